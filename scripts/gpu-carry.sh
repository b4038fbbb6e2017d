#!/usr/bin/env bash
# Run HERE (Debian 12): packs the Debian packages the GPU machine (Ubuntu 24.04
# with PyTorch's LibTorch, PoCL and NVIDIA's OpenCL) lacks into
# .carry/gpu-deps.tar.xz, pruned of static libraries and unused targets so it
# fits the 64 MiB a device call may carry. scripts/gpu-build.sh unpacks it there.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(
  # header-only or small libraries of the support library and CLI
  libcli11-dev libtomlplusplus-dev libtomlplusplus3 nlohmann-json3-dev
  libfmt-dev libfmt9 libspdlog-dev libspdlog1.10 libsqlite3-dev libssl-dev
  # corpus: libgit2 and libcurl headers (Ubuntu has the libcurl runtime)
  libgit2-dev libgit2-1.5 libhttp-parser2.9 libmbedcrypto7 libmbedtls14 libmbedx509-1
  libssh2-1 libcurl4-openssl-dev
  # archive import (the machine has no libarchive)
  libarchive-dev libarchive13
  # LLVM/Clang 15 (shared libraries + headers), clang's OpenCL headers, libclc
  libllvm15 libclang-cpp15 llvm-15-dev libclang-15-dev libclang-common-15-dev clang-15
  libclc-15 libclc-15-dev libz3-4 libedit2
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${packages[@]}" >/dev/null)
mkdir -p "$work/root"
for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
r="$work/root"
# We link the shared LLVM and clang-cpp: empty the static archives, drop docs,
# sanitizer runtimes and the libclc targets other than NVPTX.
# CMake's export files check that every listed archive exists, so archives are
# kept as empty files rather than deleted.
find "$r" -name '*.a' -exec truncate -s 0 {} +
rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/lib/llvm-15/bin" \
       "$r/usr/lib/llvm-15/lib/clang/15.0.6/lib" "$r/usr/lib/llvm-15/share" \
       "$r/usr/lib/llvm-15/lib/clang/15.0.6/share"
# clgen links only nvptx64--nvidiacl.bc (CLGEN_LIBCLC_BITCODE); OpenCL C never
# includes clang's ARM intrinsic headers (6 MiB).
find "$r/usr/lib/clc" -type f ! -name 'nvptx64--nvidiacl.bc' -delete 2>/dev/null || true
rm -f "$r"/usr/lib/llvm-15/lib/clang/15.0.6/include/arm_*.h
# The same check covers files of packages we do not carry (libLTO, tools):
# give every file the export sets name an empty stand-in.
for f in "$r"/usr/lib/llvm-15/lib/cmake/{llvm,clang}/*Export*-*.cmake \
         "$r"/usr/lib/llvm-15/lib/cmake/clang/ClangTargets-*.cmake; do
  [ -f "$f" ] || continue
  grep -o '${_IMPORT_PREFIX}/[^" )]*' "$f" | sed "s|\${_IMPORT_PREFIX}|$r/usr/lib/llvm-15|" |
    while read -r path; do
      [ -e "$path" ] || { mkdir -p "$(dirname "$path")"; : > "$path"; }
    done
done
mkdir -p .carry
tar -C "$r" -cJf .carry/gpu-deps.tar.xz .
du -h .carry/gpu-deps.tar.xz
