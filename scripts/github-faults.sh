#!/usr/bin/env bash
# The full GitHub fault schedule: scripts/github-faults.sh [RUNS] [SEED]
# (default 50 runs, seed 1). Each run mines the local GitHub fixture
# (tests/corpus/github_fixture.py) into a fresh workspace with faults drawn by
# a seed over its requests (cut bodies, truncated chunked bodies, 429 and
# secondary rate limits, 502s, a git daemon killed mid-clone), reruns it until
# it completes, and compares the store with a fault-free run. The test suite
# runs 5 of these; this runs the test with more. Ends with the runs, reruns
# and faults injected by kind.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
seed=${2:-1}
BUILD_DIR=${BUILD_DIR:-build}
CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd .. && pwd)} ninja -C "$BUILD_DIR" corpus_test >/dev/null
start=$(date +%s)
CLGEN_GITHUB_FAULT_RUNS=$runs CLGEN_GITHUB_FAULT_SEED=$seed "$BUILD_DIR/tests/corpus_test" \
  --gtest_filter=MineGitHubFaults.RandomFaultSchedulesEndEqualToAFaultFreeRun
echo "took $(( $(date +%s) - start )) s"
