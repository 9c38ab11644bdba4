#!/usr/bin/env bash
# Helm can only read files inside the chart, so the chart carries copies of the CRD, the alert
# rules and the dashboard. This refreshes them from their sources; ChartFilesIT fails when a
# copy differs from its source.
set -euo pipefail
cd "$(dirname "$0")/.."
chart=deploy/helm/stallwatch
mkdir -p "$chart/crds" "$chart/files" "$chart/dashboards"
rm -f "$chart"/crds/*.yml
for crd in crd/*.yml; do
  [ -e "$crd" ] && cp "$crd" "$chart/crds/"
done
cp deploy/prometheus/stallwatch-alerts.yml "$chart/files/"
cp deploy/grafana/stallwatch-dashboard.json "$chart/dashboards/"
echo "chart copies refreshed in $chart"
