#!/usr/bin/env bash
# The default corpus against the GitHub snapshot: one model each, sampling, checker, features.
# Run ON THE GPU MACHINE: the default corpus against the GitHub snapshot, one
# model each, same sampler settings and time (docs/BENCHMARKS.md, "Default
# corpus against the GitHub snapshot"). Needs .carry/gpu-deps.tar.xz (scripts/gpu-carry.sh) and
# .wsmin/default.db.xz + .wsmin/github.db.xz (bench/gpu-experiment.sh workspace WS NAME).
# Workspaces live in gpu-work/NAME (ignored by git, so a warm machine keeps them
# between calls). Results go to $OUT (or gpu-results/) as one results.tar.xz.
#
#   bench/gpu-experiment.sh corpus-compare PHASE...
#   build    scripts/gpu-build.sh
#   train    configs/gpu.toml on the default corpus, configs/github.toml on the
#            snapshot, each for at most $TRAIN_SECONDS (SIGINT checkpoints)
#   sizes    validation loss on the held-out repositories: configs/github.toml
#            variants (2x512 char, SentencePiece unigram 4000) for $SIZE_SECONDS each
#   sample   bench/sampler.sh on each model: --args "float*,float*,float*,int" and
#            free signatures, $SAMPLE_SECONDS each, $BATCH streams, temperature 0.8
#   drive    $DRIVE_SAMPLES accepted samples of each workspace, a sample shuffled by
#            seed $DRIVE_SHUFFLE (default 1; 0: the first ones), through the
#            dynamic checker on the NVIDIA GPU with $DRIVE_JOBS jobs (default 1)
#   export   per workspace, NAME-driven.jsonl: each driven sample (text,
#            outcome, kernel runtime) and NAME-outcomes.tsv; features are computed
#            from these where Clang 15 is installed (bench/sample_quality.py)
#   tables_ab, check, directed: see their functions below
#   pack     the logs and exports into results.tar.xz
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${OUT:-gpu-results}
CLGEN=$BUILD_DIR/cli/clgen
TRAIN_SECONDS=${TRAIN_SECONDS:-200}
SIZE_SECONDS=${SIZE_SECONDS:-150}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-30}
BATCH=${BATCH:-8192}
DRIVE_SAMPLES=${DRIVE_SAMPLES:-300}
mkdir -p "$RESULTS"
# Workspaces: default (configs/gpu.toml), github (configs/github.toml) and
# balanced (the github database with configs/github-balanced.toml); $NAMES
# picks which, in order.
NAMES=${NAMES:-default github}
config_of() {
  case "$1" in
    default) echo configs/gpu.toml ;;
    balanced) echo configs/github-balanced.toml ;;
    *) echo configs/github.toml ;;
  esac
}
db_of() { [ "$1" = balanced ] && echo github || echo "$1"; }

workspace() {  # NAME: gpu-work/NAME/clgen.db from .wsmin/NAME.db.xz, once
  unpack_workspace "gpu-work/$1" ".wsmin/$(db_of "$1").db.xz"
}

train() {  # NAME CONFIG SECONDS LOG
  log "train $2 on $1 for at most $3 s"
  /usr/bin/time -f "wall %e s" timeout --foreground --signal=INT "$3" "$CLGEN" --workspace "gpu-work/$1" train --config "$2" \
    --device cuda 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' | tee "$RESULTS/$4" | tail -8
  return 0  # a time limit ends training with a checkpoint, not a failure
}

ws_copy() {  # NAME DIR: DIR/clgen.db, DIR/models and DIR/vocabularies, a copy of the trained workspace gpu-work/NAME, so that
  # runs compared with each other start from the same store (sample resumes a seed's earlier draws and
  # counts kernels new against every earlier run)
  rm -rf "$2" && mkdir -p "$2" && cp "gpu-work/$1/clgen.db" "$2/" && cp -r "gpu-work/$1/models" "gpu-work/$1/vocabularies" "$2/"
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  build_clgen "$RESULTS/build.log"
}

phase_train() {
  local n
  for n in $NAMES; do
    workspace "$n" || return 1
    train "$n" "$(config_of "$n")" "$TRAIN_SECONDS" "train-$n.log"
  done
}

phase_sizes() {
  workspace github || return 1
  sed 's/^hidden_size = 1024/hidden_size = 512/' configs/github.toml > gpu-work/github/github-512.toml
  sed -e 's/^type = "char"/type = "sentencepiece"\nalgorithm = "unigram"\nsize = 4000/' \
      -e 's/^embedding_size = 64/embedding_size = 256/' configs/github.toml > gpu-work/github/github-sp.toml
  train github gpu-work/github/github-512.toml "$SIZE_SECONDS" train-github-512.log
  train github gpu-work/github/github-sp.toml "$SIZE_SECONDS" train-github-sp.log
}

phase_sample() {
  local n
  for n in $NAMES; do
    workspace "$n" || return 1
    log "bench/sampler.sh on $n ($(config_of "$n")), $SAMPLE_SECONDS s per run"
    WORKSPACE="gpu-work/$n" DEVICE=cuda BATCH="$BATCH" CONFIG="$(config_of "$n")" CLGEN="$CLGEN" MODES=constrained \
      SEED=1 BENCH_DIR="gpu-work/$n/bench-sampler" bench/sampler.sh "$SAMPLE_SECONDS" 2>&1 | tee "$RESULTS/sampler-$n.log"
    for j in "gpu-work/$n/bench-sampler"/*.json; do cp "$j" "$RESULTS/$n-$(basename "$j")"; done
  done
}

# variants  the last of $NAMES sampled with --args "float*,float*,float*,int" for
#           $SAMPLE_SECONDS per run under each of $VARIANTS ("name:flags;name:flags",
#           flags as `clgen sample` takes them, e.g. "r16:--max-refusals 16", but
#           none that bench/sampler.sh passes itself: --seed, --temperature,
#           --batch-size, --start, --device, -n, --time-limit; set those through
#           its environment instead (CLI11 refuses an option given twice);
#           keeps each run's JSON summary and accepted kernels (variants.tar.xz)
phase_variants() {
  local n=${NAMES##* } v name flags dir seed=0
  workspace "$n" || return 1
  dir=gpu-work/$n/variants
  rm -rf "$dir" && mkdir -p "$dir"
  IFS=';' read -ra vs <<< "${VARIANTS:-base:}"
  for v in "${vs[@]}"; do
    name=${v%%:*} flags=${v#*:} seed=$((seed + 1))  # a seed each, and a fresh copy of the workspace each
    log "variant $name on $n: $flags"
    ws_copy "$n" "$dir/ws-$name" || return 1
    WORKSPACE="$dir/ws-$name" DEVICE=cuda BATCH="$BATCH" CONFIG="$(config_of "$n")" CLGEN="$CLGEN" MODES=constrained \
      SEED=$seed FREE=0 SAMPLE_FLAGS="$flags" BENCH_DIR="$dir/$name" bench/sampler.sh "$SAMPLE_SECONDS" 2>&1 | \
      grep -E "unique accepted|static pass|statuses|complete" | tee -a "$RESULTS/variants.log"
  done
  tar -C "$dir" --exclude 'ws-*' -cJf "$RESULTS/variants.tar.xz" .
}

# tables_ab  the last of $NAMES sampled twice with the same seed for $SAMPLE_SECONDS
#            (--args "float*,float*,float*,int"): with the constraint tables its
#            training saved ("new"), then with those tables plus the builtin type
#            names that tables once held as user types when a training file typedef'd
#            them ("oldtables": uint, uchar, ulong, size_t), each on its own copy of
#            the trained workspace; where the constraint ended the first arm's streams
#            (bench/sample_refusals.py). Summaries and accepted kernels in tables_ab.tar.xz.
phase_tables_ab() {
  local n=${NAMES##* } dir arm tables
  workspace "$n" || return 1
  dir=gpu-work/$n/tables_ab
  rm -rf "$dir" && mkdir -p "$dir"
  for arm in new oldtables; do
    ws_copy "$n" "$dir/ws-$arm" || return 1
    tables=$(ls -t "$dir/ws-$arm"/models/*/constraint_tables.json 2>/dev/null | head -1)
    [ -n "$tables" ] || { echo "no saved constraint tables under gpu-work/$n/models"; return 1; }
    [ "$arm" = new ] || python3 - "$tables" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["user_types"] = sorted(set(j["user_types"]) | {"uint", "uchar", "ulong", "size_t"})
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
    log "tables_ab $arm on $n"
    WORKSPACE="$dir/ws-$arm" DEVICE=cuda BATCH="$BATCH" CONFIG="$(config_of "$n")" CLGEN="$CLGEN" MODES=constrained \
      SEED=11 FREE=0 BENCH_DIR="$dir/$arm" bench/sampler.sh "$SAMPLE_SECONDS" 2>&1 | \
      grep -E "unique accepted|static pass|statuses|complete" | tee -a "$RESULTS/tables_ab.log"
  done
  python3 bench/sample_refusals.py "$dir/ws-new/clgen.db" 60 > "$RESULTS/refusals-new.txt" 2>&1
  head -70 "$RESULTS/refusals-new.txt"
  tar -C "$dir" --exclude 'ws-*' -cJf "$RESULTS/tables_ab.tar.xz" .
}

# check  the last of $NAMES: `sample --check gpu` (16 jobs, 1 s) for $CHECK_SECONDS
#        (default 40), --args "float*,float*,float*,int", seed 7, once per entry of
#        $CHECKS ("name:flags;name:flags", default "check:"), each on its own copy of
#        the trained workspace: benchmark-grade kernels per minute; summaries as NAME.json
phase_check() {
  local n=${NAMES##* } c name flags
  workspace "$n" || return 1
  IFS=';' read -ra cs <<< "${CHECKS:-check:}"
  for c in "${cs[@]}"; do
    name=${c%%:*} flags=${c#*:}
    ws_copy "$n" "gpu-work/$n-$name" || return 1
    log "sample --check gpu on $n for ${CHECK_SECONDS:-40} s: $name $flags"
    # shellcheck disable=SC2086
    "$CLGEN" --workspace "gpu-work/$n-$name" -q sample --config "$(config_of "$n")" --device cuda --batch-size "$BATCH" \
      --temperature 0.8 --seed 7 --time-limit "${CHECK_SECONDS:-40}" -n 0 --args "float*,float*,float*,int" \
      --check gpu --check-jobs 16 --check-timeout 1 $flags --json > "$RESULTS/$name.json" 2> "$RESULTS/$name.err"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print({k: j.get(k) for k in ("samples","accepted","accepted_per_minute","seconds","checked","dynamically_valid","dynamically_valid_per_minute","check_outcomes","backtracks")})' "$RESULTS/$name.json" || tail -5 "$RESULTS/$name.err"
  done
}

# directed  one minute of sampling on each of $NAMES per mode of $MODES (default
#           "directed"; "undirected" = --baseline-only), every run toward the
#           same targets: the kernels of the repositories configs/github.toml
#           holds out, written once as targets.csv from a 1-sample probe on a
#           copy of the github workspace. Each run samples on its own copy of its
#           workspace (bench/directed.sh, without the checker setting the pace);
#           then $QUALITY_N (default 300) random accepted kernels of it go through the checker and
#           `clgen features` (bench/run_quality.py). PLAIN_SHARE sets
#           --plain-share of directed runs. Tables under $RESULTS/directed-NAME/;
#           end the call with `pack`: a call brings back only a few files
phase_directed() {
  local n mode dir targets=$RESULTS/targets.csv flags=${SAMPLE_FLAGS:-}
  [ -z "${PLAIN_SHARE:-}" ] || flags="$flags --plain-share $PLAIN_SHARE"
  if [ ! -f "$targets" ]; then
    workspace github && ws_copy github gpu-work/targets-probe || return 1
    "$CLGEN" --workspace gpu-work/targets-probe -q sample --config configs/github.toml --device cuda --held-out-targets \
      --max-samples 1 -n 0 --batch-size 1 --max-length 8 --target-report gpu-work/targets-probe/report.csv \
      --out gpu-work/targets-probe/out > /dev/null 2> "$RESULTS/targets-probe.err" || { tail -5 "$RESULTS/targets-probe.err"; return 1; }
    python3 - gpu-work/targets-probe/report.csv "$targets" <<'PY' || return 1
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["side"] == "directed"]
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["target", "comp", "rational", "mem", "localmem", "coalesced", "atomic"])
    for r in rows:
        w.writerow([r["target"], *r["target_values"].split(",")])
print(len(rows), "held-out targets written to", sys.argv[2])
PY
  fi
  for mode in ${MODES:-directed}; do
    for n in $NAMES; do
      workspace "$n" || return 1
      dir=$RESULTS/directed-$n
      mkdir -p "$dir"
      log "$mode sampling on $n ($(config_of "$n")), 1 minute"
      MODE=$mode CLGEN=$CLGEN WORKSPACE=gpu-work/$n RESULTS=$dir KERNELS_DIR=gpu-work/kernels-$n CONFIG=$(config_of "$n") \
        TARGETS=$targets CHECK='' SAMPLE_FLAGS="$flags" ./bench/directed.sh 1 > "$dir/table-$mode.txt" ||
        { tail -5 "$dir/table-$mode.txt"; return 1; }
      grep -E '^\| 1 |samples in|^new accepted' "$dir/table-$mode.txt"
      python3 bench/run_quality.py --clgen "$CLGEN" --workspace "gpu-work/$n/directed-runs/$mode-1min" --n "${QUALITY_N:-300}" \
        --device gpu --label "$n, $mode, 1 min" --targets-csv "$dir/$mode-1min-targets.csv" \
        --export "$dir/quality-$mode.jsonl" | tee "$dir/quality-$mode.txt"
    done
  done
}

phase_drive() {
  local n
  for n in $NAMES; do
    log "drive $DRIVE_SAMPLES accepted samples of $n (shuffle seed ${DRIVE_SHUFFLE:-1}) on the GPU"
    /usr/bin/time -f "wall %e s" "$CLGEN" --workspace "gpu-work/$n" -q drive --samples --limit "$DRIVE_SAMPLES" \
      --device gpu --gsize 4096 --timeout 3 --shuffle "${DRIVE_SHUFFLE:-1}" --jobs "${DRIVE_JOBS:-1}" > "$RESULTS/drive-$n.log" 2>&1
    tail -5 "$RESULTS/drive-$n.log"
  done
}

phase_export() {
  local n
  for n in $NAMES; do
    [ -f "gpu-work/$n/clgen.db" ] || continue
    python3 - "gpu-work/$n/clgen.db" "$RESULTS/$n" <<'PY'
import json, sqlite3, sys
db, out = sqlite3.connect(sys.argv[1]), sys.argv[2]
rows = db.execute(
    "SELECT k.text, r.outcome, r.message, r.kernel_ns, r.global_size FROM runs r "
    "JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 WHERE r.origin = 'samples'").fetchall()
with open(out + "-driven.jsonl", "w") as f:
    for text, outcome, message, ns, gsize in rows:
        f.write(json.dumps({"text": text, "outcome": outcome, "message": message, "kernel_ns": ns,
                            "global_size": gsize}) + "\n")
with open(out + "-outcomes.tsv", "w") as f:
    for outcome, count in db.execute("SELECT outcome, COUNT(*) FROM runs WHERE origin = 'samples' GROUP BY 1"):
        f.write(f"{outcome}\t{count}\n")
print(out, len(rows), "driven samples exported")
PY
  done
}

phase_pack() {  # the archive is written outside $RESULTS: tar fails on a folder that changes as it reads it
  local tmp
  tmp=$(mktemp) && tar -C "$RESULTS" -cJf "$tmp" --exclude results.tar.xz . && mv "$tmp" "$RESULTS/results.tar.xz" &&
    ls -la "$RESULTS/results.tar.xz" && find "$RESULTS" -mindepth 1 ! -name results.tar.xz -delete
}

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; [ "${DRY_RUN:-0}" = 1 ] || exit 1; }; done
