#!/usr/bin/env bash
# Run ON THE GPU MACHINE: the default corpus against the GitHub snapshot, one
# model each, same sampler settings and time (docs/BENCHMARKS.md, "GitHub
# corpus"). Needs .carry/gpu-deps.tar.xz (scripts/gpu-carry.sh) and
# .wsmin/default.db.xz + .wsmin/github.db.xz (scripts/gpu-workspace.sh WS NAME).
# Results go to $OUT (or gpu-results/) as one results.tar.xz.
#
#   scripts/gpu-corpus-compare.sh PHASE...
#   build    scripts/gpu-build.sh
#   train    configs/gpu.toml on the default corpus, configs/github.toml on the
#            snapshot, each for at most $TRAIN_SECONDS (SIGINT checkpoints)
#   sizes    validation loss on the held-out repositories: configs/github.toml
#            variants (2x512 char, SentencePiece unigram 4000) for $SIZE_SECONDS each
#   sample   bench/sampler.sh on each model: --args "float*,float*,float*,int" and
#            free signatures, $SAMPLE_SECONDS each, $BATCH streams, temperature 0.8
#   drive    the first $DRIVE_SAMPLES accepted samples of each workspace through the
#            dynamic checker on the NVIDIA GPU
#   pack     databases (samples, runs, metrics) and logs into results.tar.xz
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${OUT:-gpu-results}
BUILD_DIR=${BUILD_DIR:-build-gpu}
CLGEN=$BUILD_DIR/cli/clgen
TRAIN_SECONDS=${TRAIN_SECONDS:-200}
SIZE_SECONDS=${SIZE_SECONDS:-150}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-30}
BATCH=${BATCH:-8192}
DRIVE_SAMPLES=${DRIVE_SAMPLES:-300}
mkdir -p "$RESULTS"
log() { echo "== $(date -u +%T) $*"; }
config_of() { [ "$1" = default ] && echo configs/gpu.toml || echo configs/github.toml; }

workspace() {  # NAME: gpu-NAME/clgen.db from .wsmin/NAME.db.xz, once
  [ -f "gpu-$1/clgen.db" ] && return 0
  mkdir -p "gpu-$1" && xz -dc ".wsmin/$1.db.xz" > "gpu-$1/clgen.db"
}

train() {  # NAME CONFIG SECONDS LOG
  log "train $2 on $1 for at most $3 s"
  /usr/bin/time -f "wall %e s" timeout --signal=INT "$3" "$CLGEN" --workspace "gpu-$1" train --config "$2" \
    --device cuda 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/$4" | tail -8
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  [ -x "$CLGEN" ] || ./scripts/gpu-build.sh > "$RESULTS/build.log" 2>&1 || { tail -40 "$RESULTS/build.log"; return 1; }
}

phase_train() {
  local n
  for n in default github; do
    workspace "$n" || return 1
    train "$n" "$(config_of "$n")" "$TRAIN_SECONDS" "train-$n.log"
    cp "gpu-$n/models/latest" "gpu-$n/models/main"  # the model `sample` uses, whatever trains later
  done
}

phase_sizes() {
  workspace github || return 1
  sed 's/^hidden_size = 1024/hidden_size = 512/' configs/github.toml > gpu-github/github-512.toml
  sed -e 's/^type = "char"/type = "sentencepiece"\nalgorithm = "unigram"\nsize = 4000/' \
      -e 's/^embedding_size = 64/embedding_size = 256/' configs/github.toml > gpu-github/github-sp.toml
  train github gpu-github/github-512.toml "$SIZE_SECONDS" train-github-512.log
  train github gpu-github/github-sp.toml "$SIZE_SECONDS" train-github-sp.log
  cp gpu-github/models/main gpu-github/models/latest
}

phase_sample() {
  local n
  for n in default github; do
    workspace "$n" || return 1
    cp "gpu-$n/models/main" "gpu-$n/models/latest"
    log "bench/sampler.sh on $n ($(config_of "$n")), $SAMPLE_SECONDS s per run"
    WORKSPACE="gpu-$n" DEVICE=cuda BATCH="$BATCH" CONFIG="$(config_of "$n")" CLGEN="$CLGEN" MODES=constrained \
      SEED=1 BENCH_DIR="gpu-$n/bench-sampler" bench/sampler.sh "$SAMPLE_SECONDS" 2>&1 | tee "$RESULTS/sampler-$n.log"
    for j in "gpu-$n/bench-sampler"/*.json; do cp "$j" "$RESULTS/$n-$(basename "$j")"; done
  done
}

phase_drive() {
  local n
  for n in default github; do
    log "drive the first $DRIVE_SAMPLES accepted samples of $n on the GPU"
    /usr/bin/time -f "wall %e s" "$CLGEN" --workspace "gpu-$n" -q drive --samples --limit "$DRIVE_SAMPLES" \
      --device gpu --gsize 4096 --timeout 3 > "$RESULTS/drive-$n.log" 2>&1
    tail -5 "$RESULTS/drive-$n.log"
  done
}

phase_pack() {
  local n
  for n in default github; do
    [ -f "gpu-$n/clgen.db" ] || continue
    python3 - "gpu-$n/clgen.db" "$RESULTS/$n.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1]); dst = sqlite3.connect(sys.argv[2]); src.backup(dst)
for t in ("content_files",):  # the corpus came from here; samples, runs and metrics go back
    dst.execute(f"UPDATE {t} SET text = ''")
dst.commit(); dst.execute("VACUUM")
PY
  done
  tar -C "$RESULTS" -cJf "$RESULTS/results.tar.xz" --exclude results.tar.xz . && ls -la "$RESULTS/results.tar.xz"
  find "$RESULTS" -mindepth 1 ! -name results.tar.xz -delete
}

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; exit 1; }; done
