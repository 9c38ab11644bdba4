#!/usr/bin/env bash
# Builds the root filesystem the operator image adds to `scratch`: a jlinked Java runtime in
# /opt/java, the host libraries it links against (glibc, libz, libstdc++…), and a passwd entry
# for the non-root user 65532. Jib (profile `image`) packs it as a layer under the application.
#
# usage: operator/jlink-runtime.sh <output dir>        (the image profile passes target/image-root)
set -euo pipefail

out=${1:?usage: jlink-runtime.sh <output dir>}
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
# Recompute with: jdeps --print-module-deps --ignore-missing-deps --multi-release 17 target/stallwatch.jar
# (jdk.httpserver serves /metrics and the probes; java.desktop is for java.beans, used by
# Jackson; jdk.crypto.ec for TLS with EC keys, which many API servers use.)
modules=java.base,java.compiler,java.desktop,java.naming,java.net.http,java.sql,jdk.httpserver,jdk.management,jdk.unsupported,jdk.crypto.ec
# The JVM runs headless: AWT, sound, image and font natives are never loaded, and would drag
# in X11 and friends.
excluded='**/libawt.so,**/libawt_xawt.so,**/libjawt.so,**/libfontmanager.so,**/libjavajpeg.so,**/libjsound.so,**/liblcms.so,**/libmlib_image.so,**/libsplashscreen.so'

rm -rf "$out"
mkdir -p "$out/opt" "$out/etc" "$out/tmp" "$out/home/nonroot"
"$java_home/bin/jlink" \
  --module-path "$java_home/jmods" \
  --add-modules "$modules" \
  --exclude-files="$excluded" \
  --strip-debug --no-header-files --no-man-pages --compress=2 \
  --output "$out/opt/java"

# Host libraries the runtime's ELF files need, copied (symlinks resolved) to the same paths.
copy_library() {
  local lib=$1
  mkdir -p "$out$(dirname "$lib")"
  cp -L "$lib" "$out$lib"
}
interpreter=/lib64/ld-linux-x86-64.so.2
copy_library "$interpreter"
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \) -print0 |
  xargs -0 ldd 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
  grep -v "^$out" | sort -u |
  while read -r lib; do copy_library "$lib"; done

cat >"$out/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
PASSWD
cat >"$out/etc/group" <<'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
echo 'hosts: files dns' >"$out/etc/nsswitch.conf"

echo "runtime root in $out: $(du -sh "$out" | cut -f1), libraries:" \
  "$(find "$out/lib" "$out/lib64" "$out/usr" -type f 2>/dev/null | wc -l)"
