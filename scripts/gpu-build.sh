#!/usr/bin/env bash
# Run ON THE GPU MACHINE (Ubuntu 24.04, PyTorch's LibTorch with CUDA, PoCL,
# NVIDIA's OpenCL) from a clean checkout that carries .carry/gpu-deps.tar.xz
# (made here by scripts/gpu-carry.sh): unpacks the carried Debian packages
# into a prefix, configures against PyTorch's LibTorch, builds, and lists the
# OpenCL devices. Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${CLGEN_DEPS_PREFIX:-/opt/clgen-deps}
BUILD_DIR=${BUILD_DIR:-build-gpu}
if [ ! -f "$PREFIX/.unpacked" ]; then
  [ -f .carry/gpu-deps.tar.xz ] || { echo "gpu-build: .carry/gpu-deps.tar.xz missing (run scripts/gpu-carry.sh here and carry .carry)" >&2; exit 1; }
  mkdir -p "$PREFIX"
  tar -C "$PREFIX" -xJf .carry/gpu-deps.tar.xz
  # -dev packages' .so links point at runtime packages we do not carry where
  # the machine has its own (SQLite, libcurl, OpenSSL): link to the machine's.
  for link in "$PREFIX"/usr/lib/x86_64-linux-gnu/*.so; do
    if [ -L "$link" ] && [ ! -e "$link" ]; then
      own=$(ls /usr/lib/x86_64-linux-gnu/"$(basename "$link")".* 2>/dev/null | head -n 1 || true)
      if [ -n "$own" ]; then ln -sf "$own" "$link"; else echo "gpu-build: no runtime for $link" >&2; fi
    fi
  done
  touch "$PREFIX/.unpacked"
fi
# Let the dynamic loader find the carried libraries (libLLVM-15's libz3, ...)
# for every binary, tests included. Listed last ("zz-") so the machine's own
# libraries win where both have the same soname.
if [ -w /etc/ld.so.conf.d ]; then
  printf '%s\n' "$PREFIX/usr/lib/x86_64-linux-gnu" "$PREFIX/usr/lib/llvm-15/lib" \
    > /etc/ld.so.conf.d/zz-clgen-deps.conf
  ldconfig
fi
# NVIDIA's OpenCL platform must be registered with the ICD loader.
if [ ! -e /etc/OpenCL/vendors/nvidia.icd ] && [ -e /usr/lib/libnvidia-opencl.so.1 ]; then
  mkdir -p /etc/OpenCL/vendors
  echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
PY=${PYTHON:-python3}
TORCH_CMAKE=$("$PY" -c 'import torch;print(torch.utils.cmake_prefix_path)')
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu:$PREFIX/usr/lib/llvm-15/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# DT_RPATH (not RUNPATH) so the carried libraries' own dependencies, such as
# libLLVM-15's libz3, resolve without LD_LIBRARY_PATH.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$TORCH_CMAKE;$PREFIX/usr" \
  -DCMAKE_INCLUDE_PATH="$PREFIX/usr/include" \
  -DCMAKE_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu" \
  -DCLGEN_LLVM_ROOT="$PREFIX/usr/lib/llvm-15" \
  -DCMAKE_BUILD_RPATH="$PREFIX/usr/lib/x86_64-linux-gnu;$PREFIX/usr/lib/llvm-15/lib" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" \
  -DCLGEN_WITH_TORCH=ON -DCLGEN_WITH_OPENCL=ON -DCLGEN_WITH_CLANG=ON \
  -DCLGEN_WITH_OPENCV=OFF "$@"
cmake --build "$BUILD_DIR" -j "$(nproc)"
"$BUILD_DIR/cli/clgen" version --deps
"$BUILD_DIR/cli/clgen" devices
