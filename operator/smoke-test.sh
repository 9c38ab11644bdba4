#!/usr/bin/env bash
# Runs the operator image without a container engine: unpacks the layers of the image tarball
# (Docker format, as Jib's buildTar writes it) into a root filesystem and runs the image's
# entrypoint inside it (chroot, as the image's user, with only the image's env): the default
# command must be `operator`, `--version` must name the expected version, `operator --help` must
# list the operator's flags, and the classpath must hold no demo-only code. Needs root.
#
# usage: operator/smoke-test.sh [image tar] [expected version]
set -euo pipefail
cd "$(dirname "$0")/.."

tarball=${1:-target/jib-image.tar}
expected=${2:-$(sed -n 's/^version=//p' target/classes/dev/stallwatch/version.properties)}
[ -f "$tarball" ] || { echo "smoke-test: no image tarball at $tarball (run operator/build-image.sh)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "smoke-test: needs root for chroot" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/image" "$work/rootfs"
tar -xf "$tarball" -C "$work/image"

# Layers in order, then entrypoint, env and user from the image config.
python3 - "$work/image" >"$work/plan" <<'PY'
import json, sys, os
image = sys.argv[1]
manifest = json.load(open(os.path.join(image, "manifest.json")))[0]
config = json.load(open(os.path.join(image, manifest["Config"])))["config"]
for layer in manifest["Layers"]:
    print("layer", layer)
print("user", config.get("User", "0:0"))
for env in config.get("Env", []):
    print("env", env)
for arg in config["Entrypoint"]:
    print("entrypoint", arg)
for arg in config.get("Cmd") or []:
    print("cmd", arg)
PY

user=$(awk '$1 == "user" { print $2 }' "$work/plan")
mapfile -t env < <(sed -n 's/^env //p' "$work/plan")
mapfile -t entrypoint < <(sed -n 's/^entrypoint //p' "$work/plan")
while read -r layer; do
  tar -xzf "$work/image/$layer" -C "$work/rootfs" --no-same-owner --warning=no-unknown-keyword
done < <(sed -n 's/^layer //p' "$work/plan")

mapfile -t cmd < <(sed -n 's/^cmd //p' "$work/plan")
echo "image user: $user; entrypoint: ${entrypoint[*]}; cmd: ${cmd[*]}"
# `docker run IMAGE` with no arguments must start the operator.
[ "${cmd[*]}" = "operator" ] || { echo "smoke-test: the image's default command is '${cmd[*]}', not 'operator'" >&2; exit 1; }
case "$user" in
  0 | 0:* | root | root:*) echo "smoke-test: image runs as root" >&2; exit 1 ;;
esac
[ ! -e "$work/rootfs/bin/sh" ] || { echo "smoke-test: unexpected shell in the image" >&2; exit 1; }

# The image is the operator's, not the demo's: no simulator, embedded API server, mock server,
# vert.x, netty or bouncycastle on its classpath (see the `image` profile in pom.xml).
python3 - "$work/rootfs/app" <<'PY'
import os, re, sys, zipfile
app = sys.argv[1]
jars = [os.path.join(d, f) for d, _, fs in os.walk(app) for f in fs if f.endswith(".jar")]
unwanted_jar = re.compile(r"^(kubernetes-server-mock|mockwebserver|vertx-|netty-|bc(prov|pkix|util)-)")
unwanted_class = re.compile(r"^dev/stallwatch/(demo|sim|embedded)/|^dev/stallwatch/main/StallwatchCommand")
problems = [os.path.basename(j) for j in jars if unwanted_jar.match(os.path.basename(j))]
for jar in jars:
    with zipfile.ZipFile(jar) as z:
        problems += [f"{os.path.basename(jar)}!{n}" for n in z.namelist() if unwanted_class.match(n)][:5]
for d, _, fs in os.walk(app):
    rel = os.path.relpath(d, app).split(os.sep, 1)[-1] + "/"
    problems += [rel + f for f in fs if unwanted_class.match(rel + f)][:5]
if problems:
    sys.exit("smoke-test: demo-only code on the image's classpath: " + ", ".join(problems[:20]))
print(f"image classpath: {len(jars)} jars, no demo, simulator, mock server, vert.x, netty or bouncycastle")
PY

chroot=$(command -v chroot)
output=$(env -i "${env[@]}" "$chroot" --userspec="$user" "$work/rootfs" "${entrypoint[@]}" --version 2>&1) || {
  echo "$output" >&2
  echo "smoke-test: entrypoint --version failed" >&2
  exit 1
}
echo "$output"
grep -qx "stallwatch $expected" <<<"$output" || {
  echo "smoke-test: expected 'stallwatch $expected'" >&2
  exit 1
}
help=$(env -i "${env[@]}" "$chroot" --userspec="$user" "$work/rootfs" "${entrypoint[@]}" operator --help 2>&1) || {
  echo "$help" >&2
  echo "smoke-test: entrypoint operator --help failed" >&2
  exit 1
}
grep -q -- '--stall-after' <<<"$help" || { echo "smoke-test: 'operator --help' lacks --stall-after" >&2; exit 1; }
echo "operator --help: OK"
echo "smoke-test: OK ($(du -h "$tarball" | cut -f1) image, $(du -sh "$work/rootfs" | cut -f1) unpacked)"
