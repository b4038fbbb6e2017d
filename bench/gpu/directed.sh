#!/usr/bin/env bash
# Directed against undirected sampling toward the held-out repositories' kernels.
# Run ON THE GPU MACHINE: directed against undirected sampling toward the
# held-out repositories' kernels (docs/DIRECTED-SAMPLING.md),
# laid out as the check experiment lays out its work. Needs
# .carry/gpu-deps.tar.xz and .wsmin/github.db.xz (bench/gpu-experiment.sh workspace).
# Results go to $OUT/directed (or gpu-results/directed). Each phase below
# fits one 10-minute call once the machine is built and the model trained
# (a machine given back loses both).
#
#   bench/gpu-experiment.sh directed PHASE...
#   build       scripts/gpu-build.sh (skipped when build-gpu/ holds clgen)
#   train       configs/github.toml on the snapshot for at most $TRAIN_SECONDS
#               (skipped when the workspace has that model)
#   targets     how many held-out kernels there are (a 5 s sampling call)
#   sliced1     bench/directed.sh 1: directed and undirected slices, 1 minute
#               a side in one call (2 minutes of wall time)
#   sliced2     the same, 2 minutes a side (fits a call with build and train)
#   sliced4     the same, 4 minutes a side (8 minutes: the most one call holds)
#   directed5   5 minutes of directed sampling alone
#   undirected5 5 minutes of undirected sampling alone (--baseline-only), same
#               model, its own call
#   alone1      one minute each, one after the other, same model: directed
#               (the default near-first steering), directed with the earlier
#               round-robin (--near-share 0 --no-near-cuts), and undirected;
#               the fair comparison (docs/DIRECTED-SAMPLING.md). ~4.5 minutes; fits a
#               call with build and train. Tables under $DIR/alone1/
#   quality1    one minute of directed (near-first) and one of undirected
#               sampling, same model, then 300 random accepted kernels of each
#               through the checker and `clgen features` (bench/run_quality.py):
#               what steering does to the kernels' complexity. ~5 minutes
# directed5 and undirected5 end with the same quality line for their run.
# The feature-conditioned model (configs/github-cond.toml: github.toml with
# training.feature_prefix; docs/DIRECTED-SAMPLING.md, "Feature-conditioned model"):
#   train_cond  train it for at most $TRAIN_SECONDS (skipped when trained);
#               `build train train_cond` fits one call (~2 + 2 x 2.3 minutes)
#   cond1, cond2, cond4   bench/directed.sh N with it (sliced, N minutes a side)
#   cond_directed5, cond_undirected5   5 minutes of one side, a call each
#   compare1, compare2    sliced N minutes a side with each model in turn
#               (4N minutes), then both tables; compare2 fits one call
# PLAIN_SHARE (default: the sampler's) sets --plain-share of directed runs.
# CHECK and MATCHED_CHECK go to bench/directed.sh: CHECK= MATCHED_CHECK=gpu
# samples without the checker setting the pace and checks only the matched
# kernels afterwards.
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${OUT:-gpu-results}
DIR=$RESULTS/directed
CLGEN=$BUILD_DIR/cli/clgen
WS=gpu-work/github
TRAIN_SECONDS=${TRAIN_SECONDS:-210}
PLAIN_SHARE=${PLAIN_SHARE:-}
mkdir -p "$DIR"
bench() {  # MODE MINUTES [CONFIG]: results of another config than github.toml under $DIR/<its name>
  local config=${3:-configs/github.toml} dir=$DIR flags=${SAMPLE_FLAGS:-}
  [ "$config" = configs/github.toml ] || dir=$DIR/$(basename "$config" .toml)
  [ -z "$PLAIN_SHARE" ] || flags="$flags --plain-share $PLAIN_SHARE"
  mkdir -p "$dir"
  MODE=$1 CLGEN=$CLGEN WORKSPACE=$WS RESULTS=$dir KERNELS_DIR=gpu-work/kernels CONFIG=$config SAMPLE_FLAGS=$flags \
    ./bench/directed.sh "$2" | tee "$dir/table-$1-$2min.txt"
}
quality() {  # MODE MINUTES RESULTS: bench/run_quality.py on that run's workspace copy
  python3 bench/run_quality.py --clgen "$CLGEN" --workspace "$WS/directed-runs/$1-$2min" --n 300 --device gpu \
    --label "$1, $2 min" --targets-csv "$3/$1-$2min-targets.csv" --export "$3/quality-$1-$2min.jsonl" |
    tee "$3/quality-$1-$2min.txt"
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  build_clgen "$RESULTS/build.log"
}

train_config() {  # CONFIG LOG
  unpack_workspace "$WS" .wsmin/github.db.xz || return 1
  if "$CLGEN" --workspace "$WS" -q sample --config "$1" --device cuda --max-samples 1 -n 0 \
      --batch-size 1 --max-length 8 --out "$DIR/probe" > /dev/null 2>&1; then
    log "$1's model is trained already"
    return 0
  fi
  log "train $1 for at most $TRAIN_SECONDS s"
  /usr/bin/time -f "wall %e s" timeout --foreground --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "$WS" train --config "$1" \
    --device cuda 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$DIR/$2" |
    grep -E "validation|epoch [0-9]+:|feature_prefix|wall" | tail -5
  return 0
}

phase_train() { train_config configs/github.toml train.log; }
phase_train_cond() { train_config configs/github-cond.toml train-cond.log; }

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
phase_directed5() { bench directed 5 && quality directed 5 "$DIR"; }
phase_undirected5() { bench undirected 5 && quality undirected 5 "$DIR"; }
phase_quality1() {
  local mode
  for mode in directed undirected; do
    mkdir -p "$DIR/quality1"
    MODE=$mode CLGEN=$CLGEN WORKSPACE=$WS RESULTS=$DIR/quality1 KERNELS_DIR=gpu-work/kernels \
      CONFIG=configs/github.toml SAMPLE_FLAGS="${SAMPLE_FLAGS:-}" ./bench/directed.sh 1 > "$DIR/quality1/table-$mode.txt" ||
      { tail -5 "$DIR/quality1/table-$mode.txt"; return 1; }
    grep -E '^\| 1 |samples in|^new accepted' "$DIR/quality1/table-$mode.txt"
  done
  for mode in directed undirected; do quality "$mode" 1 "$DIR/quality1" || return 1; done
}
phase_alone1() {
  local v n mode flags
  for v in "near:directed:" "round-robin:directed:--near-share 0 --no-near-cuts" "undirected:undirected:"; do
    IFS=: read -r n mode flags <<< "$v"
    mkdir -p "$DIR/alone1/$n"
    MODE=$mode CLGEN=$CLGEN WORKSPACE=$WS RESULTS=$DIR/alone1/$n KERNELS_DIR=gpu-work/alone1-kernels/$n \
      CONFIG=configs/github.toml SAMPLE_FLAGS="${SAMPLE_FLAGS:-} $flags" ./bench/directed.sh 1 > "$DIR/alone1/$n/table.txt" ||
      { tail -5 "$DIR/alone1/$n/table.txt"; return 1; }
    echo "== $n"
    grep -E '^\| 1 |samples in|^new accepted' "$DIR/alone1/$n/table.txt"
  done
}
phase_cond1() { bench sliced 1 configs/github-cond.toml; }
phase_cond2() { bench sliced 2 configs/github-cond.toml; }
phase_cond4() { bench sliced 4 configs/github-cond.toml; }
phase_cond_directed5() { bench directed 5 configs/github-cond.toml; }
phase_cond_undirected5() { bench undirected 5 configs/github-cond.toml; }
compare() {  # MINUTES: sliced runs of both models, then the two tables together
  bench sliced "$1" > /dev/null || return 1
  bench sliced "$1" configs/github-cond.toml > /dev/null || return 1
  echo "== github.toml (unconditioned), $1 min a side"
  grep -E '^\| [0-9]|^matched|^[0-9]+ samples' "$DIR/table-sliced-$1min.txt"
  echo "== github-cond.toml (feature_prefix), $1 min a side"
  grep -E '^\| [0-9]|^matched|^[0-9]+ samples' "$DIR/github-cond/table-sliced-$1min.txt"
}
phase_compare1() { compare 1; }
phase_compare2() { compare 2; }

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; [ "${DRY_RUN:-0}" = 1 ] || exit 1; }; done
