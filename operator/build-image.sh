#!/usr/bin/env bash
# Builds the operator image tarball (target/jib-image.tar) without a Docker daemon and runs its
# entrypoint from the unpacked layers. Used by .ci/run; see operator/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -Pimage -DskipTests package
operator/smoke-test.sh target/jib-image.tar
