#!/usr/bin/env bash
# The GPU-machine part of the pipeline: build, train, sample, drive both devices, tests, pack.
# Run ON THE GPU MACHINE from a clean checkout that carries .carry/ (made by
# scripts/gpu-carry.sh) and .wsmin/clgen.db.xz (a workspace database with the
# default corpus imported and preprocessed: `bench/gpu-experiment.sh workspace`
# makes it here). Does the GPU-machine part of the pipeline in phases, each resumable,
# and leaves logs, JSON summaries and the compressed workspace database in
# RESULTS (default $OUT, else gpu-results/):
#
#   bench/gpu-experiment.sh pipeline [PHASE...]     (default: build train sample drive pack)
#
#   build     scripts/gpu-build.sh (LLVM 15 etc. from .carry, LibTorch from PyTorch)
#   diagnose  the SentencePiece vocabulary on CUDA and the failing test binaries,
#             with backtraces of any crash
#   train     `clgen train` of $GPU_CONFIG on CUDA for $TRAIN_SECONDS at most, then
#             (unless SKIP_BASELINES=1) the PyTorch Python baseline on the same
#             token file; the `paper` model for one epoch and its baseline
#             (docs/BENCHMARKS.md, "Model training")
#   sample    bench/sampler.sh on CUDA: --args "float*,float*,float*,int" and
#             free signatures, constrained and --no-constrain ($MODES), then the
#             --args specs in $SPECS (';'-separated), $SAMPLE_SECONDS each, for
#             each --start mode in $SAMPLE_STARTS (default "file"; seeds 1, 2, ...)
#             (docs/BENCHMARKS.md, "Sampling")
#   drive     up to $DRIVE_SAMPLES accepted samples, then the preprocessed corpus,
#             on PoCL's CPU device and the NVIDIA GPU at global sizes $GSIZES,
#             both devices at once; stops at $DRIVE_DEADLINE (epoch seconds) and
#             resumes where it stopped on the next call
#   tests     the test suite there, and the driver's tests on the NVIDIA device
#   bench-driver  bench/driver.sh on both devices (docs/BENCHMARKS.md, "Driver")
#   pack      the workspace database, xz-compressed (model checkpoints stay; the
#             texts of rejected samples beyond 2,000 per --args are blanked)
#
# A model checkpoint does not travel back (too large), so `train` and `sample`
# belong to the same call; the database (samples, runs, metrics) does.
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${RESULTS:-${OUT:-gpu-results}}
WS=${WS:-gpu-work}
CLGEN=$BUILD_DIR/cli/clgen
GPU_CONFIG=${GPU_CONFIG:-configs/gpu.toml}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-60}
TRAIN_SECONDS=${TRAIN_SECONDS:-240}
SAMPLE_BATCH=${SAMPLE_BATCH:-1024}
DRIVE_SAMPLES=${DRIVE_SAMPLES:-400}
GSIZES=${GSIZES:-"256 2048 16384 131072 1048576 4194304"}
DRIVE_DEADLINE=${DRIVE_DEADLINE:-0}
DRIVE_TIMEOUT=${DRIVE_TIMEOUT:-10}
PYTHON=${PYTHON:-python3}
mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)  # absolute: the tests phase writes from inside the build folder
export PYTHONUNBUFFERED=1

workspace() {
  [ -f "$WS/clgen.db" ] && return 0
  mkdir -p "$WS"
  if [ -f .wsmin/clgen.db.xz ]; then xz -dc .wsmin/clgen.db.xz > "$WS/clgen.db"
  elif [ -f .wsmin/clgen.db ]; then cp .wsmin/clgen.db "$WS/clgen.db"
  else echo "gpu-experiment pipeline: no .wsmin/clgen.db(.xz) to start the workspace from" >&2; return 1; fi
}

phase_build() {
  log "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
  build_clgen "$RESULTS/build.log" || return 1
  [ ! -f "$RESULTS/build.log" ] || tail -20 "$RESULTS/build.log"
}

# Resolves the "FILE(+0xOFFSET)" frames of crash backtraces (support/crash_trace.h)
# in a log to function names with addr2line.
symbolize() {
  grep -oE '^[^ (]+\(\+0x[0-9a-f]+\)' "$1" | sort -u | while IFS= read -r frame; do
    local file=${frame%%(*} off=${frame##*+}
    off=${off%)}
    echo "$frame -> $(addr2line -Cfpe "$file" "$off" 2>/dev/null | head -1)"
  done
  # The faulting instruction: "at pc 0x..." and the maps line after it.
  grep -A1 -E ' at pc 0x|called from 0x' "$1" | "$PYTHON" -c '
import re, subprocess, sys
pc = None
for line in sys.stdin:
    m = re.search(r" at pc (0x[0-9a-f]+)", line) or re.search(r"called from (0x[0-9a-f]+)", line)
    if m:
        pc = int(m.group(1), 16)
        continue
    m = re.match(r"\s*in mapping: ([0-9a-f]+)-[0-9a-f]+ \S+ ([0-9a-f]+) \S+ \S+\s+(\S+)", line)
    if m and pc is not None:
        lo, off, path = int(m.group(1), 16), int(m.group(2), 16), m.group(3)
        addr = hex(pc - lo + off)
        r = subprocess.run(["addr2line", "-Cfpe", path, addr], capture_output=True, text=True)
        print(f"pc {hex(pc)} = {path}+{addr} -> {r.stdout.strip()}")
        pc = None
' | sort | uniq -c
}

phase_diagnose() {
  workspace || return 1
  log "SentencePiece vocabulary with CUDA (configs/gpu-sp.toml, 1 epoch)"
  timeout 60 "$CLGEN" --workspace "$WS" train --config configs/gpu-sp.toml --epochs 1 --device cuda \
    > "$RESULTS/diagnose-sp.log" 2>&1
  echo "exit $?"; grep -v '^epoch [0-9]*/' "$RESULTS/diagnose-sp.log" | tail -40
  symbolize "$RESULTS/diagnose-sp.log"
  log "test binaries that crashed here before (gdb: $(command -v gdb || echo none))"
  (cd "$BUILD_DIR" && timeout 100 ctest -j4 --timeout 60 -R "${DIAGNOSE_TESTS:-Checkpoint|LanguageModelApi|Training|PipelineTest|Compile\.}" \
    --output-on-failure > "$RESULTS/diagnose-tests.log" 2>&1)
  grep -E 'tests passed|Failed|SEGFAULT|Exception|\*\*\*' "$RESULTS/diagnose-tests.log" | head -40
  grep -B2 -A30 'fatal signal' "$RESULTS/diagnose-tests.log" | head -150
  symbolize "$RESULTS/diagnose-tests.log"
}

phase_train() {
  workspace || return 1
  log "clgen train $GPU_CONFIG on CUDA for at most $TRAIN_SECONDS s (SIGINT then checkpoints)"
  /usr/bin/time -f "wall %e s" timeout --foreground --signal=INT "$TRAIN_SECONDS" \
    "$CLGEN" --workspace "$WS" train --config "$GPU_CONFIG" --device cuda ${TRAIN_EPOCHS:+--epochs $TRAIN_EPOCHS} \
    2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/train-gpu.log" | tail -25
  [ "${SKIP_BASELINES:-0}" = 1 ] && return 0
  log "PyTorch Python baseline for $GPU_CONFIG"
  "$PYTHON" bench/model_train_baseline.py --config "$GPU_CONFIG" --workspace "$WS" --device cuda \
    --max-batches 300 2>&1 | tee "$RESULTS/baseline-gpu.json"
  local gpu_model
  gpu_model=$(cat "$WS/models/latest")
  # The paper model (3x2048) for three epochs over the first 320k tokens (100
  # batches each; the last epoch is the steady-state tokens/s, past cuDNN's
  # and the allocator's warm-up), and the baseline over the same 100 batches.
  sed 's/^max_tokens = .*/max_tokens = 320000/' configs/paper.toml > "$WS/paper-bench.toml"
  log "clgen train paper (3x2048 char), 3 epochs of 320k tokens, on CUDA"
  timeout --foreground --signal=INT 120 "$CLGEN" --workspace "$WS" train --config "$WS/paper-bench.toml" --epochs 3 \
    --device cuda 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/train-paper.log" | tail -8
  "$PYTHON" bench/model_train_baseline.py --config "$WS/paper-bench.toml" --workspace "$WS" --device cuda \
    --max-batches 100 2>&1 | tee "$RESULTS/baseline-paper.json"
  # The sampler's default model is the latest trained: keep it the GPU config's.
  echo "$gpu_model" > "$WS/models/latest"
}

phase_sample() {
  workspace || return 1
  local start seed=1
  for start in ${SAMPLE_STARTS:-file}; do
    log "bench/sampler.sh on CUDA, $SAMPLE_SECONDS s per run, $SAMPLE_BATCH streams, --start $start"
    WORKSPACE="$WS" DEVICE=cuda BATCH="$SAMPLE_BATCH" CONFIG="$GPU_CONFIG" CLGEN="$CLGEN" START=$start \
      SEED=$seed BENCH_DIR="$WS/bench-sampler-$start" bench/sampler.sh "$SAMPLE_SECONDS" 2>&1 |
      tee "$RESULTS/sampler-$start.log"
    for j in "$WS/bench-sampler-$start"/*.json; do cp "$j" "$RESULTS/$start-$(basename "$j")"; done
    seed=$((seed + 1))
  done
}

phase_drive() {
  workspace || return 1
  local gs=() g
  for g in $GSIZES; do gs+=(--gsize "$g"); done
  [ "$DRIVE_DEADLINE" -eq 0 ] || [ "$(date +%s)" -lt "$DRIVE_DEADLINE" ] || return 0
  drive_one() {  # device kind, then sources; stops (SIGINT, resumable) at the deadline
    local dev=$1 left=0
    shift
    if [ "$DRIVE_DEADLINE" -gt 0 ]; then
      left=$((DRIVE_DEADLINE - $(date +%s)))
      [ $left -gt 0 ] || return 0
      timeout --foreground --signal=INT --kill-after=30 $left "$CLGEN" --workspace "$WS" -q drive --device "$dev" "${gs[@]}" \
        --timeout "$DRIVE_TIMEOUT" "$@"
    else
      "$CLGEN" --workspace "$WS" -q drive --device "$dev" "${gs[@]}" --timeout "$DRIVE_TIMEOUT" "$@"
    fi
  }
  log "drive corpus + samples on cpu and gpu at once (sizes: $GSIZES)"
  # Samples first: the corpus alone can use up the deadline on PoCL.
  ( drive_one cpu --samples --limit "$DRIVE_SAMPLES"; drive_one cpu --corpus ) > "$RESULTS/drive-cpu.log" 2>&1 &
  local cpu_pid=$!
  ( drive_one gpu --samples --limit "$DRIVE_SAMPLES"; drive_one gpu --corpus ) > "$RESULTS/drive-gpu.log" 2>&1
  wait $cpu_pid
  tail -n 30 "$RESULTS/drive-cpu.log" "$RESULTS/drive-gpu.log"
  # python3's sqlite3 module: the GPU machine has no sqlite3 shell.
  "$PYTHON" - "$WS/clgen.db" <<'PY'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(
        "SELECT device, origin, outcome, COUNT(*) FROM runs GROUP BY 1,2,3"):
    print("|".join(map(str, row)))
PY
}

phase_tests() {
  log "the whole test suite (ctest -j16), then the driver's tests on the NVIDIA device"
  (cd "$BUILD_DIR" && timeout 150 ctest -j16 --timeout 120 > "$RESULTS/tests.log" 2>&1)
  grep -E 'tests passed|Failed|\*\*\*|Skipped' "$RESULTS/tests.log" | head -40
  (cd "$BUILD_DIR" && CLGEN_TEST_DEVICE=gpu timeout 100 ctest -j8 --timeout 90 -R 'Executor|Worker|DriveCli' \
    > "$RESULTS/tests-gpu-driver.log" 2>&1)
  grep -E 'tests passed|Failed|\*\*\*' "$RESULTS/tests-gpu-driver.log" | head -20
}

phase_bench_driver() {
  log "bench/driver.sh on PoCL (cpu) and the NVIDIA GPU"
  for dev in cpu gpu; do
    CLGEN="$CLGEN" REPEAT=${BENCH_REPEAT:-2} bench/driver.sh "$dev" 2>&1 | tee "$RESULTS/bench-driver-$dev.log" | tail -12
  done
}

phase_pack() {
  workspace || return 1
  log "packing the workspace database"
  "$PYTHON" - "$WS/clgen.db" "$RESULTS/clgen.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
src.execute("PRAGMA wal_checkpoint(TRUNCATE)")
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
# A file that comes back from the GPU machine may hold 16 MiB: rejected and
# truncated samples keep their status, reason and timings, but only 2,000 of
# them per --args keep their text (a random sample, for error analysis).
has = dst.execute("SELECT 1 FROM sqlite_master WHERE name='samples'").fetchone()
if has:
    dst.execute("""UPDATE samples SET text = '', normalized_text = NULL
                   WHERE status IN ('rejected', 'truncated') AND id NOT IN (
                     SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY args ORDER BY random()) AS k
                                     FROM samples WHERE status IN ('rejected', 'truncated')) WHERE k <= 2000)""")
    dst.commit()
dst.execute("VACUUM")
dst.close()
PY
  xz -T0 -6 -f "$RESULTS/clgen.db"
  ls -la "$RESULTS"
}

phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(build train sample drive pack)
status=0
for p in "${phases[@]}"; do
  fn="phase_${p//-/_}"
  if ! declare -F "$fn" >/dev/null; then echo "gpu-experiment pipeline: unknown phase '$p'" >&2; exit 2; fi
  "$fn" || { echo "gpu-experiment pipeline: phase $p failed" >&2; status=1; [ "$p" = build ] && break; }
done
exit $status
