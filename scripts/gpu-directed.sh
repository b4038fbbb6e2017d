#!/usr/bin/env bash
# Run ON THE GPU MACHINE: directed against undirected sampling toward the
# held-out repositories' kernels (docs/SAMPLER.md, "Directed sampling"),
# laid out as scripts/gpu-check.sh lays out its work. Needs
# .carry/gpu-deps.tar.xz and .wsmin/github.db.xz (scripts/gpu-workspace.sh).
# Results go to $OUT/directed (or gpu-results/directed). Each phase below
# fits one 10-minute call once the machine is built and the model trained
# (a machine given back loses both).
#
#   scripts/gpu-directed.sh PHASE...
#   build       scripts/gpu-check.sh build (skipped when build-gpu/ holds clgen)
#   train       configs/github.toml on the snapshot for at most $TRAIN_SECONDS
#               (skipped when the workspace has that model)
#   targets     how many held-out kernels there are (a 5 s sampling call)
#   sliced1     bench/directed.sh 1: directed and undirected slices, 1 minute
#               a side in one call (2 minutes of wall time)
#   sliced2     the same, 2 minutes a side (fits a call with build and train)
#   sliced4     the same, 4 minutes a side (8 minutes: the most one call holds)
#   directed5   5 minutes of directed sampling alone
#   undirected5 5 minutes of undirected sampling alone (--plain-share 1), same
#               model, its own call
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-gpu-results}
DIR=$RESULTS/directed
CLGEN=${BUILD_DIR:-build-gpu}/cli/clgen
WS=gpu-work/github
TRAIN_SECONDS=${TRAIN_SECONDS:-300}
mkdir -p "$DIR"
log() { echo "== $(date -u +%T) $*"; }
bench() {  # MODE MINUTES
  MODE=$1 CLGEN=$CLGEN WORKSPACE=$WS RESULTS=$DIR ./bench/directed.sh "$2" | tee "$DIR/table-$1-$2min.txt"
}

phase_build() { OUT=$RESULTS ./scripts/gpu-check.sh build; }

phase_train() {
  [ -f "$WS/clgen.db" ] || { mkdir -p "$WS" && xz -dc .wsmin/github.db.xz > "$WS/clgen.db"; }
  if "$CLGEN" --workspace "$WS" -q sample --config configs/github.toml --device cuda --max-samples 1 -n 0 \
      --batch-size 1 --max-length 8 --out "$DIR/probe" > /dev/null 2>&1; then
    log "configs/github.toml's model is trained already"
    return 0
  fi
  log "train configs/github.toml for at most $TRAIN_SECONDS s"
  timeout --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "$WS" train --config configs/github.toml --device cuda \
    2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$DIR/train.log" | grep -E "validation|epoch [0-9]+:" | tail -4
  return 0
}

phase_targets() {
  "$CLGEN" --workspace "$WS" -q sample --config configs/github.toml --device cuda --held-out-targets -n 0 \
    --time-limit 5 --batch-size 64 --out "$DIR/probe" --json > "$DIR/targets-probe.json" 2> "$DIR/targets-probe.err" ||
    { tail -5 "$DIR/targets-probe.err"; return 1; }
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steering"]; print("held-out targets:", s["directed"]["targets"])' \
    "$DIR/targets-probe.json"
}

phase_sliced1() { bench sliced 1; }
phase_sliced2() { bench sliced 2; }
phase_sliced4() { bench sliced 4; }
phase_directed5() { bench directed 5; }
phase_undirected5() { bench undirected 5; }

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; exit 1; }; done
