#!/usr/bin/env bash
# Runs one of the plot scripts here (scale-plot.py, soak-plot.py) in a virtualenv with matplotlib,
# made once under ~/.cache/stallwatch/plot-venv (or $STALLWATCH_PLOT_VENV).
#
#   src/test/realcluster/plot.sh soak-plot.py docs/reliability.md docs/soak.png
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
[ $# -ge 1 ] || { echo "usage: plot.sh SCRIPT [ARGS…]" >&2; exit 2; }
venv="${STALLWATCH_PLOT_VENV:-$HOME/.cache/stallwatch/plot-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "matplotlib==3.11.2" >&2
fi
script="$1"; shift
exec "$venv/bin/python" "$here/$script" "$@"
