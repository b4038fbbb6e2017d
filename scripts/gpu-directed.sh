#!/usr/bin/env bash
# Run ON THE GPU MACHINE: directed against undirected sampling toward the
# held-out repositories' kernels (docs/SAMPLER.md, "Directed sampling"),
# as scripts/gpu-check.sh lays the machine out. Needs .carry/gpu-deps.tar.xz
# and .wsmin/github.db.xz (scripts/gpu-workspace.sh). Results go to $OUT (or
# gpu-results/).
#
#   scripts/gpu-directed.sh PHASE...
#   build     scripts/gpu-build.sh (skipped when build-gpu/ holds clgen)
#   train     configs/github.toml on the snapshot for at most $TRAIN_SECONDS
#             (skipped when the workspace has that model's checkpoint)
#   targets   how many held-out kernels there are (a 5 s sampling call that
#             extracts their features; also checks the build)
#   directed1 bench/directed.sh 1: 1 minute per side, 2 minutes of wall time
#   start5    bench/directed.sh 5 in the background (10 minutes of wall time,
#             over one call's limit): poll with `wait5`
#   wait5     waits up to $WAIT_SECONDS for start5's run and prints its table
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-gpu-results}
BUILD_DIR=${BUILD_DIR:-build-gpu}
CLGEN=$BUILD_DIR/cli/clgen
WS=gpu-work/github
TRAIN_SECONDS=${TRAIN_SECONDS:-300}
WAIT_SECONDS=${WAIT_SECONDS:-540}
export CLGEN WORKSPACE=$WS RESULTS=$RESULTS/directed
mkdir -p "$RESULTS/directed"
log() { echo "== $(date -u +%T) $*"; }

phase_build() { OUT=$RESULTS ./scripts/gpu-check.sh build; }

phase_train() {
  [ -f "$WS/clgen.db" ] || { mkdir -p "$WS" && xz -dc .wsmin/github.db.xz > "$WS/clgen.db"; }
  if "$CLGEN" --workspace "$WS" -q sample --config configs/github.toml --device cuda --max-samples 1 -n 0 \
      --batch-size 1 --max-length 8 --out "$RESULTS/directed/probe" > /dev/null 2>&1; then
    log "configs/github.toml's model is trained already"
    return 0
  fi
  log "train configs/github.toml for at most $TRAIN_SECONDS s"
  timeout --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "$WS" train --config configs/github.toml --device cuda \
    2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/directed/train.log" | grep -E "validation|epoch [0-9]+:" | tail -4
  return 0
}

phase_targets() {
  "$CLGEN" --workspace "$WS" -q sample --config configs/github.toml --device cuda --held-out-targets -n 0 \
    --time-limit 5 --batch-size 64 --out "$RESULTS/directed/probe" --json > "$RESULTS/directed/targets-probe.json" \
    2> "$RESULTS/directed/targets-probe.err" || { tail -5 "$RESULTS/directed/targets-probe.err"; return 1; }
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steering"]; print("held-out targets:", s["directed"]["targets"])' \
    "$RESULTS/directed/targets-probe.json"
}

phase_directed1() { ./bench/directed.sh 1 | tee "$RESULTS/directed/table-1min.txt"; }

phase_start5() {
  nohup ./bench/directed.sh 5 > "$RESULTS/directed/table-5min.txt" 2>&1 &
  echo $! > "$RESULTS/directed/run5.pid"
  log "bench/directed.sh 5 started (pid $(cat "$RESULTS/directed/run5.pid")), 10 minutes of wall time"
}

phase_wait5() {
  local pid waited=0
  pid=$(cat "$RESULTS/directed/run5.pid" 2>/dev/null || echo)
  while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$WAIT_SECONDS" ]; do sleep 10; waited=$((waited + 10)); done
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then log "still running"; tail -3 "$RESULTS/directed/table-5min.txt"; return 0; fi
  cat "$RESULTS/directed/table-5min.txt"
}

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; exit 1; }; done
