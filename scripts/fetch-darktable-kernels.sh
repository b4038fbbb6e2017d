#!/usr/bin/env bash
# Extracts darktable's OpenCL kernels into WORKSPACE/packages/darktable without
# installing darktable (whose GUI dependency chain is hundreds of MB): the .deb
# is fetched from Debian's archive with `apt-get download` and unpacked with
# `dpkg-deb -x`; only usr/share/darktable/kernels and a VERSION file are kept.
# Idempotent: does nothing when the kernels are installed or already extracted.
set -euo pipefail
WORKSPACE=${1:-clgen-work}
dest="$WORKSPACE/packages/darktable"
if [ -d /usr/share/darktable/kernels ] || [ -d "$dest/usr/share/darktable/kernels" ]; then
  echo "fetch-darktable-kernels: kernels already present"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"  # apt's _apt user downloads into it
(cd "$tmp" && apt-get download -q darktable)
deb=$(ls "$tmp"/darktable_*.deb)
dpkg-deb -x "$deb" "$tmp/root"
mkdir -p "$dest/usr/share/darktable"
rm -rf "$dest/usr/share/darktable/kernels"
cp -r "$tmp/root/usr/share/darktable/kernels" "$dest/usr/share/darktable/kernels"
dpkg-deb -f "$deb" Version > "$dest/VERSION"
echo "fetch-darktable-kernels: $(ls "$dest/usr/share/darktable/kernels" | wc -l) files, version $(cat "$dest/VERSION")"
