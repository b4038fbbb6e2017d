#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test.
# GPU-only tests skip themselves, with a reason, where no GPU exists.
# Ends with the wall time of each phase (also when a phase fails), so a CI
# log shows where its time went.
set -euo pipefail
cd "$(dirname "$0")/.."

phases=()
phase_start=$(date +%s)
phase_name=""
begin() {
  phase_name=$1
  phase_start=$(date +%s)
}
finish() {
  local s=$(( $(date +%s) - phase_start ))
  phases+=("$(printf '%-11s %4d min %02d s' "$phase_name" $((s / 60)) $((s % 60)))")
  phase_name=""
}
summary() {
  local rc=$?
  if [ -n "$phase_name" ]; then finish; phases[-1]+="  (failed, exit $rc)"; fi
  echo "test.sh: wall time per phase:"
  printf '  %s\n' "${phases[@]}"
  local total=$(( $(date +%s) - test_start ))
  printf '  %-11s %4d min %02d s\n' total $((total / 60)) $((total % 60))
}
test_start=$(date +%s)
trap summary EXIT

begin install; ./scripts/install-deps.sh; finish
# Precompiled headers (cmake/Pch.cmake): LibTorch's, Clang's and GoogleTest's
# headers are parsed once per group of targets instead of once per unit, which
# is most of a cold build's time on two cores. ccache caches those units only
# with this sloppiness.
begin build; CCACHE_SLOPPINESS=pch_defines,time_macros ./scripts/build.sh -DCLGEN_PCH=ON; finish
begin ctest
# A fresh build has no test times, so ctest would start the tests in the order
# they are declared and leave the long end-to-end ones as a serial tail. It
# starts the longest first when Testing/Temporary/CTestCostData.txt exists:
# tests/ctest-costs.txt seeds it (the tests of 1 s or more of a full run's
# file: awk 'NF==3 && $3>=1' build/Testing/Temporary/CTestCostData.txt, then ---).
costs="${BUILD_DIR:-build}/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$costs" ]; then mkdir -p "$(dirname "$costs")" && cp tests/ctest-costs.txt "$costs"; fi
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600)
finish
# Fuzz smoke: every fuzz target (clang-15, ASan+UBSan, its own build-fuzz/) for
# FUZZ_SMOKE_SECONDS each on its seeds; a crash fails the run. FUZZ_SMOKE=0 skips it.
if [ "${FUZZ_SMOKE:-1}" != 0 ]; then
  begin fuzz-build
  BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz} ./scripts/fuzz.sh smoke-build 0
  finish
  begin fuzz-smoke
  BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz} ./scripts/fuzz.sh smoke "${FUZZ_SMOKE_SECONDS:-20}"
  finish
fi
