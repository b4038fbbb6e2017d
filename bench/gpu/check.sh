#!/usr/bin/env bash
# Benchmark-grade kernels per minute (sample --check), the driver's settings, the static check.
# Run ON THE GPU MACHINE: benchmark-grade kernels per GPU-machine minute,
# with and without the static check and the concurrent checker, same model, same call
# (docs/BENCHMARKS.md, "Benchmark-grade kernels"). Needs
# .carry/gpu-deps.tar.xz and .wsmin/github.db.xz (bench/gpu-experiment.sh workspace).
# Results go to $OUT (or gpu-results/).
#
#   bench/gpu-experiment.sh check PHASE...
#   build    scripts/gpu-build.sh (skipped when build-gpu/ holds clgen)
#   train    configs/github.toml on the snapshot for at most $TRAIN_SECONDS
#   corpus   the snapshot's kernels through the checker on the GPU: a shuffled
#            $BASE_KERNELS with --jobs 1 (the old driver), then all of them with
#            --jobs $JOBS; then bench/usefulness.py (static check vs outcomes)
#   before   sample $SAMPLE_SECONDS without the static check, then drive a
#            shuffled $BASE_KERNELS of the accepted kernels with --jobs 1
#   after    sample --check for $SAMPLE_SECONDS with the static check, for each
#            DEVICE:JOBS:TIMEOUT of $AFTER
#   repair   sample --check gpu for $SAMPLE_SECONDS without and with --repairs $REPAIRS (same seed)
#   cpu      sample --check cpu (PoCL on the 16 cores) for $SAMPLE_SECONDS
#   levers   sample $LEVER_SECONDS, then the same shuffled $LEVER_KERNELS accepted
#            kernels driven with each driver setting in $LEVERS (each on its own
#            copy of the workspace database), kernels/s and outcomes per setting
#   export   every driven sample of the workspace, with its outcome, as
#            samples-driven.jsonl
#   files    every .cl of $FILES_DIR (default .wsmin/extra) driven on the GPU:
#            outcomes, and files-driven.tsv (file, outcome)
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${OUT:-gpu-results}
CLGEN=$BUILD_DIR/cli/clgen
WS=gpu-work/github
TRAIN_SECONDS=${TRAIN_SECONDS:-150}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-45}
BATCH=${BATCH:-8192}
JOBS=${JOBS:-16}
BASE_KERNELS=${BASE_KERNELS:-200}
TIMEOUT=${TIMEOUT:-3}
mkdir -p "$RESULTS"
sample() {  # NAME SEED FLAGS...: one timed sampling run, JSON summary to $RESULTS/NAME.json
  local name=$1 seed=$2
  shift 2
  log "sample $name: $*"
  "$CLGEN" --workspace "$WS" -q sample --config configs/github.toml --device cuda --batch-size "$BATCH" \
    --temperature 0.8 --seed "$seed" --time-limit "$SAMPLE_SECONDS" -n 0 --json "$@" > "$RESULTS/$name.json" \
    2> "$RESULTS/$name.err"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print({k: j.get(k) for k in ("samples","accepted","accepted_per_minute","seconds","wall_seconds","checked","dynamically_valid","dynamically_valid_per_minute","checked_per_second","check_outcomes","by_category","tokens","repairs","repair_tokens")})' "$RESULTS/$name.json" || tail -5 "$RESULTS/$name.err"
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  build_clgen "$RESULTS/build.log"
}

phase_train() {
  unpack_workspace "$WS" .wsmin/github.db.xz || return 1
  log "train configs/github.toml for at most $TRAIN_SECONDS s"
  /usr/bin/time -f "wall %e s" timeout --foreground --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "$WS" train \
    --config configs/github.toml --device cuda 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/train.log" | tail -4
  return 0
}

phase_corpus() {
  unpack_workspace "$WS" .wsmin/github.db.xz || return 1
  if [ "$BASE_KERNELS" -gt 0 ]; then
  log "drive $BASE_KERNELS shuffled corpus kernels, --jobs 1"
  /usr/bin/time -f "wall %e s" "$CLGEN" --workspace "$WS" -q drive --corpus --device gpu --timeout "$TIMEOUT" \
    --shuffle 1 --limit "$BASE_KERNELS" --jobs 1 > "$RESULTS/corpus-j1.log" 2>&1
  tail -4 "$RESULTS/corpus-j1.log"
  fi
  log "drive every corpus kernel, --jobs $JOBS"
  /usr/bin/time -f "wall %e s" "$CLGEN" --workspace "$WS" -q drive --corpus --device gpu --timeout "$TIMEOUT" \
    --jobs "$JOBS" > "$RESULTS/corpus-j$JOBS.log" 2>&1
  tail -16 "$RESULTS/corpus-j$JOBS.log"
  log "static usefulness check against the GPU outcomes of the corpus"
  python3 bench/usefulness.py "$WS" --clgen "$CLGEN" --device NVIDIA --origin corpus | tee "$RESULTS/usefulness-corpus.txt"
  # The passing kernels the check rejects, in one file (a call returns few files).
  python3 - "$WS/clgen.db" "$CLGEN" "$RESULTS/rejected-passing.txt" <<'PY'
import os, sqlite3, subprocess, sys, tempfile
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT DISTINCT k.sha256, k.text FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 "
                  "WHERE r.origin = 'corpus' AND r.outcome = 'pass'").fetchall()
with tempfile.TemporaryDirectory() as tmp, open(sys.argv[3], "w") as out:
    paths = []
    for sha, text in rows:
        paths.append(os.path.join(tmp, sha + ".cl"))
        open(paths[-1], "w").write(text)
    res = subprocess.run([sys.argv[2], "preprocess", "--usefulness", "--no-infer", "--no-cl20"] + paths,
                         capture_output=True, text=True).stdout
    for line in res.splitlines():
        if ": useless" in line:
            path = line.split(": ")[0]
            out.write(f"// {line[len(tmp) + 1:]}\n{open(path).read()}\n")
print(sum(1 for l in res.splitlines() if ": useless" in l), "passing corpus kernels rejected")
PY
}

phase_before() {
  sample before 11 --no-usefulness-check
  log "drive $BASE_KERNELS of the accepted samples, --jobs 1"
  /usr/bin/time -f "wall %e s" "$CLGEN" --workspace "$WS" -q drive --samples --device gpu --timeout "$TIMEOUT" \
    --shuffle 1 --limit "$BASE_KERNELS" --jobs 1 > "$RESULTS/before-drive.log" 2>&1
  tail -16 "$RESULTS/before-drive.log"
}

AFTER=${AFTER:-"gpu:16:1 all:16:1 gpu:32:1"}
phase_after() {  # each DEVICE:JOBS:TIMEOUT of $AFTER: sample --check with the static check on
  local v device jobs timeout seed=13
  for v in $AFTER; do
    IFS=: read -r device jobs timeout <<< "$v"
    sample "after-$device-$jobs-$timeout" "$seed" --check "$device" --check-jobs "$jobs" --check-timeout "$timeout"
    seed=$((seed + 1))
  done
}

REPAIRS=${REPAIRS:-2}
phase_repair() {  # the same sampling with and without --repairs, --check gpu, same seed
  sample repair-0 31 --check gpu --check-jobs "$JOBS" --check-timeout 1
  sample "repair-$REPAIRS" 31 --check gpu --check-jobs "$JOBS" --check-timeout 1 --repairs "$REPAIRS"
}

phase_cpu() {
  sample after-cpu 14 --check cpu --check-jobs "$JOBS" --check-timeout "$TIMEOUT"
}

LEVER_SECONDS=${LEVER_SECONDS:-30}
LEVER_KERNELS=${LEVER_KERNELS:-300}
LEVERS=${LEVERS:-"gpu:1:3:10 gpu:16:3:10 gpu:16:1:10 gpu:16:1:3 gpu:32:1:3 cpu:16:1:3"}
phase_levers() {
  sample levers 21 --no-usefulness-check
  local v device jobs timeout runs
  for v in $LEVERS; do
    IFS=: read -r device jobs timeout runs <<< "$v"
    rm -rf "gpu-work/lever" && mkdir -p gpu-work/lever && cp "$WS/clgen.db" gpu-work/lever/
    log "drive $LEVER_KERNELS samples: device $device, --jobs $jobs, --timeout $timeout, --runs $runs"
    /usr/bin/time -f "wall %e s" "$CLGEN" --workspace gpu-work/lever -q drive --samples --device "$device" \
      --timeout "$timeout" --runs "$runs" --shuffle 1 --limit "$LEVER_KERNELS" --jobs "$jobs" \
      > "$RESULTS/lever-$device-$jobs-$timeout-$runs.log" 2>&1
    grep -E "^pass|^no output|^input|^nondet|^timeout|^crash|sources:|wall" "$RESULTS/lever-$device-$jobs-$timeout-$runs.log" | tr '\n' ';'; echo
    cp gpu-work/lever/clgen.db "gpu-work/lever-$device-$jobs-$timeout-$runs.db"
  done
  return 0
}

phase_export() {
  python3 - "$WS/clgen.db" "$RESULTS/samples-driven.jsonl" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT k.text, r.outcome, r.message, r.kernel_ns_median FROM runs r "
                  "JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 WHERE r.origin = 'samples'").fetchall()
with open(sys.argv[2], "w") as f:
    for text, outcome, message, ns in rows:
        f.write(json.dumps({"text": text, "outcome": outcome, "message": message, "kernel_ns": ns}) + "\n")
print(len(rows), "driven samples exported")
PY
}

phase_kernels() {  # three benchmark-grade samples with their GPU runtimes
  python3 - "$WS/clgen.db" <<'PY' | tee "$RESULTS/kernels.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for text, ns, dev in db.execute(
        "SELECT k.text, r.kernel_ns_median, r.device FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 "
        "WHERE r.origin = 'samples' AND r.outcome = 'pass' AND r.device LIKE '%H100%' "
        "ORDER BY length(k.text) DESC LIMIT 3"):
    print(f"// {dev}: median kernel time {ns} ns at global size 4096\n{text}")
PY
}

FILES_DIR=${FILES_DIR:-.wsmin/extra}
phase_files() {  # every .cl of $FILES_DIR through the checker on the GPU, outcome per file
  local ws=gpu-work/files
  rm -rf "$ws" && mkdir -p "$ws"
  log "drive the $(ls "$FILES_DIR"/*.cl | wc -l) files of $FILES_DIR, --jobs $JOBS"
  "$CLGEN" --workspace "$ws" -q drive --device gpu --timeout "$TIMEOUT" --jobs "$JOBS" "$FILES_DIR"/*.cl \
    > "$RESULTS/files-drive.log" 2>&1
  grep -E "^pass|^no output|^input|^nondet|^timeout|^crash|^total" "$RESULTS/files-drive.log"
  python3 - "$ws/clgen.db" "$FILES_DIR" "$RESULTS/files-driven.tsv" <<'PY'
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
outcome = dict(db.execute("SELECT k.text, r.outcome FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256"))
with open(sys.argv[3], "w") as out:
    for name in sorted(os.listdir(sys.argv[2])):
        text = open(os.path.join(sys.argv[2], name)).read()
        out.write(f"{name}\t{outcome.get(text, outcome.get(text.rstrip(), 'not driven'))}\n")
print(open(sys.argv[3]).read().count("\tpass\n"), "files pass")
PY
}

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; [ "${DRY_RUN:-0}" = 1 ] || exit 1; }; done
