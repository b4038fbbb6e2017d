#!/usr/bin/env bash
# Configures and builds clgen (Release, Ninja, ccache) into ${BUILD_DIR:-build}.
# Extra arguments go to CMake, e.g. -DCLGEN_WITH_TORCH=OFF. TARGETS (space
# separated) builds only those, e.g. TARGETS="clgen clgen-worker" (the main
# job's); empty builds everything, tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# Two jobs on two cores; Clang/LibTorch translation units take about 1 GB each.
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} "$@"
# shellcheck disable=SC2086  # TARGETS is a list
cmake --build "$BUILD_DIR" -j "$JOBS" ${TARGETS:+--target $TARGETS}
