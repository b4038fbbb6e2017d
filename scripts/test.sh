#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test.
# GPU-only tests skip themselves, with a reason, where no GPU exists.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600)
# Fuzz smoke: every fuzz target (clang-15, ASan+UBSan, its own build-fuzz/) for
# FUZZ_SMOKE_SECONDS each on its seeds; a crash fails the run. FUZZ_SMOKE=0 skips it.
if [ "${FUZZ_SMOKE:-1}" != 0 ]; then
  BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz} ./scripts/fuzz.sh smoke "${FUZZ_SMOKE_SECONDS:-20}"
fi
