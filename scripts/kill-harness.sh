#!/usr/bin/env bash
# Random SIGKILL harness: scripts/kill-harness.sh STAGE [TRIALS] [SEED].
# STAGE: corpus-add | mine-github | preprocess | train | drive | sample | all.
# One reference run per stage, then TRIALS (default 20) seeded trials of
# SIGKILL at a random moment and a rerun to completion, each compared with the
# reference (database rows, PRAGMA integrity_check; for train also the model
# files, for sample the .cl files written). Uses build/cli/clgen (CLGEN=...
# for another binary); drive runs on CLGEN_TEST_DEVICE (default: cpu, i.e.
# PoCL). docs/BENCHMARKS.md, "Kill harness".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
  echo "usage: scripts/kill-harness.sh STAGE [TRIALS] [SEED]   (STAGE: corpus-add mine-github preprocess train drive sample all)" >&2
  exit 2
fi
exec python3 scripts/kill_harness.py --clgen "${CLGEN:-build/cli/clgen}" "$@"
