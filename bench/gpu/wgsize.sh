#!/usr/bin/env bash
# Workgroup-size and device-mapping data on both devices, real and synthetic, and the experiment.
# Run ON THE GPU MACHINE (one call, at most ~9 minutes): workgroup-size data
# on the H100 and on PoCL for real kernels (the GitHub snapshot, carried as
# .wsmin/github.db.xz) and benchmark-grade synthetic kernels (a short
# `clgen sample --check gpu`), the wgsize dataset export, and one archive
# $OUT/wgsize-results.tar.gz. Needs .carry/gpu-deps.tar.xz (scripts/gpu-carry.sh)
# and .wsmin/github.db.xz (bench/gpu-experiment.sh workspace).
#
#   bench/gpu-experiment.sh wgsize [PHASE...]   (default: build train sample screen pick sweep export summary experiment pack)
#
#   build       scripts/gpu-build.sh (skipped when build-gpu/ holds clgen)
#   train       configs/github.toml on the snapshot, at most $TRAIN_SECONDS
#   sample      sample --check gpu for $SAMPLE_SECONDS: benchmark-grade synthetic kernels
#   screen      $SCREEN_KERNELS shuffled snapshot kernels through the checker on the GPU
#               at global size 4096 (which of them the driver can run)
#   pick        up to $REAL_KERNELS passing snapshot kernels and $SYN_KERNELS passing
#               samples, written as files, split into 1-D and 2-D (a kernel that asks
#               for dimension 1 of an id or size is 2-D)
#   arms        (not in the default list; instead of sample) one `sample --check gpu` run
#               of $ARM_SECONDS per steering in $ARMS (default "undirected features
#               explore"): undirected, --target-features $TARGETS (the Grewe features of
#               the real kernels, made here by bench/wgsize_arms.py targets), --explore;
#               every stored sample records its steering, which the export carries
#   pick_arms   (instead of pick) the real kernels listed in $REAL_SHAS (normalized
#               sha256s, one a line; made here by bench/wgsize_arms.py targets) and, per
#               steering, the same number (at most $SYN_KERNELS) of passing samples
#   sweep       clgen drive --lsize-sweep on the GPU and on PoCL at once: 1-D kernels at
#               $GSIZES_1D, 2-D ones at $GSIZES_2D, real and synthetic interleaved, each
#               device until the phase's deadline (SIGINT: finished runs stay)
#   crossover   (not in the default list) clgen drive --crossover $CROSSOVER on
#               $CROSSOVER_KERNELS picked 1-D kernels, both devices
#   export      clgen dataset export --task wgsize (~0.1 s per kernel for its features); with
#               MAPPING_EXPORT=1 also --task mapping (as long again; it can be redone from the
#               packed database: clgen --workspace W dataset export --task mapping --cpu Xeon --gpu NVIDIA)
#   summary     per device, from the CSV (Python only): scenarios, kernels by origin,
#               best fixed size and the oracle's speedup over it and over the default
#   experiment  clgen predict experiment --task wgsize (needs a clgen built with
#               OpenCV, which the GPU machine's build leaves out: then it says so,
#               and the same phase runs here on the unpacked archive:
#               RESULTS=DIR CLGEN=build/cli/clgen bench/gpu-experiment.sh wgsize experiment)
#   pack        the results folder and the workspace database (accepted samples
#               only) as $OUT/wgsize-results.tar.gz
#
# To continue an earlier call's sweeps, seed the workspace with its packed
# database (WS_SEED=FILE.db.xz, e.g. clgen.db.xz of wgsize-results.tar.gz,
# slimmed with scripts/wgsize-seed.sh) and run `build pick sweep ...`: the
# pick is the same, and the driver skips every run already stored.
#
# Every phase is bounded by the call's deadline: $BUDGET seconds (default 520)
# from the start, less $RESERVE seconds (default 70) kept for export, summary
# and pack. Progress lines start with "== HH:MM:SS".
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
START=$(date +%s)
BUDGET=${BUDGET:-520}
RESERVE=${RESERVE:-70}
MAPPING_EXPORT=${MAPPING_EXPORT:-0}
DEADLINE=$((START + BUDGET))
WS=${WS:-gpu-work/wgsize}
RESULTS=${RESULTS:-gpu-work/wgsize-results}
CLGEN=${CLGEN:-$BUILD_DIR/cli/clgen}
PYTHON=${PYTHON:-python3}
TRAIN_SECONDS=${TRAIN_SECONDS:-100}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-40}
SCREEN_KERNELS=${SCREEN_KERNELS:-1500}
SCREEN_SECONDS=${SCREEN_SECONDS:-75}
REAL_KERNELS=${REAL_KERNELS:-200}
SYN_KERNELS=${SYN_KERNELS:-200}
GSIZES_1D=${GSIZES_1D:-"4096 131072 1048576"}
GSIZES_2D=${GSIZES_2D:-"128,128 1024,1024"}
SHARE_1D=${SHARE_1D:-70}  # percent of a device's sweep time for the 1-D kernels
RUNS=${RUNS:-3}
SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-2}
GPU_JOBS=${GPU_JOBS:-8}
CPU_JOBS=${CPU_JOBS:-4}  # PoCL uses every core per kernel: few at once keeps its timings cleaner
CROSSOVER=${CROSSOVER:-2^6..2^22}
# Runs without a GPU (PoCL only, docs/RESULTS.md): screen on another device, also
# screen the workspace's accepted samples, pick by another device name
# (an SQL LIKE pattern), sweep other devices.
SCREEN_DEVICE=${SCREEN_DEVICE:-gpu}
SCREEN_SAMPLES=${SCREEN_SAMPLES:-0}
PICK_DEVICE=${PICK_DEVICE:-%NVIDIA%}
SWEEP_DEVICES=${SWEEP_DEVICES:-"gpu cpu"}
CROSSOVER_KERNELS=${CROSSOVER_KERNELS:-20}
CONFIG=${CONFIG:-configs/github.toml}
ARMS=${ARMS:-"undirected features explore"}
ARM_SECONDS=${ARM_SECONDS:-50}
TARGETS=${TARGETS:-.wsmin/wgsize-targets.csv}
REAL_SHAS=${REAL_SHAS:-.wsmin/wgsize-real.txt}
KERNELS=$WS/kernels
mkdir -p "$RESULTS"
export PYTHONUNBUFFERED=1

log() { echo "== $(date -u +%T) [$(( $(date +%s) - START ))s] $*" | tee -a "$RESULTS/progress.log"; }
# Seconds a phase may use: at most $1, and never past the deadline less the reserve.
left() {
  local want=$1 rest=$((DEADLINE - RESERVE - $(date +%s)))
  [ "$rest" -lt "$want" ] && want=$rest
  [ "$want" -lt 0 ] && want=0
  echo "$want"
}
workspace() {  # from WS_SEED (default .wsmin/github.db.xz), once
  unpack_workspace "$WS" "${WS_SEED:-.wsmin/github.db.xz}"
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || true
  [ -x "$CLGEN" ] || log "build"
  build_clgen "$RESULTS/build.log" || return 1
  "$CLGEN" devices 2>&1 | grep -E "Platform|Device" | tee "$RESULTS/devices.txt"
}

phase_train() {
  workspace || return 1
  local t
  t=$(left "$TRAIN_SECONDS")
  log "train $CONFIG for at most $t s"
  [ "$t" -gt 10 ] || { log "no time left to train"; return 1; }
  timeout --foreground --signal=INT "$t" "$CLGEN" --workspace "$WS" train --config "$CONFIG" --device cuda \
    > "$RESULTS/train.log" 2>&1
  grep -v '^epoch [0-9]*/[0-9]* [0-9]' "$RESULTS/train.log" | tail -3
  return 0
}

phase_sample() {
  workspace || return 1
  local t
  t=$(left "$SAMPLE_SECONDS")
  log "sample --check gpu for $t s"
  [ "$t" -gt 5 ] || { log "no time left to sample"; return 0; }
  sample_checked "$t" sample 19
}

sample_checked() {  # SECONDS NAME SEED [FLAGS...]: sample --check gpu into $RESULTS/NAME.json, then its counts
  local t=$1 name=$2 seed=$3
  shift 3
  "$CLGEN" --workspace "$WS" -q sample --config "$CONFIG" --device cuda --batch-size "${BATCH:-8192}" \
    --temperature 0.8 --seed "$seed" --time-limit "$t" -n 0 --json --check gpu --check-jobs 16 --check-timeout 1 \
    "$@" > "$RESULTS/$name.json" 2> "$RESULTS/$name.err"
  "$PYTHON" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[2], {k: j.get(k) for k in ("samples","accepted","checked","dynamically_valid","dynamically_valid_per_minute")})' \
    "$RESULTS/$name.json" "$name" || tail -5 "$RESULTS/$name.err"
}

phase_arms() {
  workspace || return 1
  local arm seed=19 t flags
  for arm in $ARMS; do
    t=$(left "$ARM_SECONDS")
    [ "$t" -ge "$ARM_SECONDS" ] || { log "no time left for the $arm arm ($t of $ARM_SECONDS s)"; return 1; }
    case $arm in
      undirected) flags=() ;;
      features) flags=(--target-features "$TARGETS") ;;
      explore) flags=(--explore) ;;
      held-out) flags=(--held-out-targets) ;;
      *) echo "gpu-experiment wgsize: unknown arm '$arm' (undirected, features, explore, held-out)" >&2; return 1 ;;
    esac
    log "arm $arm: sample --check gpu for $t s ${flags[*]}"
    sample_checked "$t" "arm-$arm" "$seed" "${flags[@]}"
    seed=$((seed + 1))
  done
}

phase_screen() {
  workspace || return 1
  local t
  t=$(left "$SCREEN_SECONDS")
  local what=(--corpus)
  [ "$SCREEN_SAMPLES" = 1 ] && what+=(--samples)
  log "screen $SCREEN_KERNELS shuffled sources (${what[*]}) on $SCREEN_DEVICE at 4096 for at most $t s"
  [ "$t" -gt 5 ] || { log "no time left to screen"; return 0; }
  timeout --foreground --signal=INT --kill-after=20 "$t" "$CLGEN" --workspace "$WS" -q drive "${what[@]}" --device "$SCREEN_DEVICE" \
    --timeout 1 --runs 1 --jobs "${SCREEN_JOBS:-16}" --shuffle 1 --limit "$SCREEN_KERNELS" > "$RESULTS/screen.log" 2>&1
  grep -E "^pass|^total|sources:" "$RESULTS/screen.log"
  return 0
}

phase_pick() {
  workspace || return 1
  log "pick up to $REAL_KERNELS real and $SYN_KERNELS synthetic kernels that pass on $PICK_DEVICE"
  rm -rf "$KERNELS" && mkdir -p "$KERNELS"
  "$PYTHON" - "$WS/clgen.db" "$KERNELS" "$REAL_KERNELS" "$SYN_KERNELS" "$PICK_DEVICE" <<'PY' | tee "$RESULTS/pick.txt"
import os, random, re, sqlite3, sys
db, out, n_real, n_syn = sqlite3.connect(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
device = sys.argv[5]
two_d = re.compile(r"get_(global|local|group)_(id|size)\s*\(\s*1\s*\)|get_num_groups\s*\(\s*1\s*\)")
rows = db.execute("SELECT DISTINCT r.origin, k.sha256, k.text FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 "
                  "WHERE r.outcome = 'pass' AND r.device LIKE ? AND r.global_size = '4096' "
                  "AND r.requested_local_size = '' AND r.origin IN ('corpus', 'samples') ORDER BY k.sha256",
                  (device,)).fetchall()
rng = random.Random(19)
for origin, cap in (("corpus", n_real), ("samples", n_syn)):
    picked = [r for r in rows if r[0] == origin]
    rng.shuffle(picked)
    picked = picked[:cap]
    n2 = 0
    for i, (_, sha, text) in enumerate(picked):
        dims = "2d" if two_d.search(text) else "1d"
        n2 += dims == "2d"
        os.makedirs(os.path.join(out, dims), exist_ok=True)
        # The file name orders real and synthetic kernels alternately.
        with open(os.path.join(out, dims, f"{i:05d}-{'real' if origin == 'corpus' else 'syn'}-{sha[:12]}.cl"), "w") as f:
            f.write(text)
    print(f"{origin}: {sum(1 for r in rows if r[0] == origin)} sources pass on {device}; picked {len(picked)} "
          f"({len(picked) - n2} 1-D, {n2} 2-D)")
PY
}

phase_pick_arms() {
  workspace || return 1
  log "pick the real kernels of $REAL_SHAS and up to $SYN_KERNELS passing samples per steering on $PICK_DEVICE"
  rm -rf "$KERNELS" && mkdir -p "$KERNELS"
  "$PYTHON" bench/wgsize_arms.py pick "$WS/clgen.db" "$KERNELS" "$REAL_SHAS" "$SYN_KERNELS" "$PICK_DEVICE" |
    tee "$RESULTS/pick.txt"
}

sweep_device() {  # DEVICE JOBS SECONDS: 1-D then 2-D kernels, --lsize-sweep, until the time is spent
  local dev=$1 jobs=$2 total=$3 t1 t g
  t1=$((total * SHARE_1D / 100))
  for dims in 1d 2d; do
    local files=() gs=()
    [ -d "$KERNELS/$dims" ] && mapfile -t files < <(ls "$KERNELS/$dims"/*.cl 2>/dev/null | sort)
    [ ${#files[@]} -gt 0 ] || continue
    if [ "$dims" = 1d ]; then for g in $GSIZES_1D; do gs+=(--gsize "$g"); done; t=$t1
    else for g in $GSIZES_2D; do gs+=(--gsize "$g"); done; t=$((total - ($(date +%s) - SWEEP_START))); fi
    [ "$t" -gt 5 ] || continue
    echo "== $(date -u +%T) $dev: ${#files[@]} $dims kernels for at most $t s"
    timeout --foreground --signal=INT --kill-after=20 "$t" "$CLGEN" --workspace "$WS" -q drive --device "$dev" "${gs[@]}" \
      --lsize-sweep --runs "$RUNS" --timeout "$SWEEP_TIMEOUT" --jobs "$jobs" "${files[@]}"
    echo "== $(date -u +%T) $dev $dims: exit $?"
  done
}

phase_sweep() {
  workspace || return 1
  local t
  t=$(left 100000)
  log "local-size sweeps on $SWEEP_DEVICES at once (jobs: gpu $GPU_JOBS, cpu $CPU_JOBS) for $t s"
  [ "$t" -gt 10 ] || { log "no time left to sweep"; return 0; }
  SWEEP_START=$(date +%s)
  local pids=() dev
  for dev in $SWEEP_DEVICES; do
    local jobs=$CPU_JOBS
    [ "$dev" = gpu ] && jobs=$GPU_JOBS
    sweep_device "$dev" "$jobs" "$t" > "$RESULTS/sweep-$dev.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  for dev in $SWEEP_DEVICES; do grep -hE "^== |^pass|^invalid launch|^total|sources:" "$RESULTS/sweep-$dev.log"; done
  return 0
}

phase_crossover() {
  workspace || return 1
  local t files=()
  t=$(left 120)
  [ -d "$KERNELS/1d" ] && mapfile -t files < <(ls "$KERNELS/1d"/*.cl 2>/dev/null | sort | head -n "$CROSSOVER_KERNELS")
  log "crossover search $CROSSOVER on ${#files[@]} 1-D kernels for at most $t s"
  [ "$t" -gt 10 ] && [ ${#files[@]} -gt 0 ] || return 0
  timeout --foreground --signal=INT --kill-after=20 "$t" "$CLGEN" --workspace "$WS" -q drive --device all --crossover "$CROSSOVER" \
    --runs "$RUNS" --timeout "$SWEEP_TIMEOUT" "${files[@]}" > "$RESULTS/crossover.log" 2>&1
  tail -n 25 "$RESULTS/crossover.log"
  return 0
}

phase_export() {
  workspace || return 1
  log "export the wgsize dataset"
  "$CLGEN" --workspace "$WS" dataset export --task wgsize --out "$RESULTS/wgsize.csv" 2>&1 | tee "$RESULTS/export.log"
  if [ "$MAPPING_EXPORT" = 1 ]; then
    "$CLGEN" --workspace "$WS" dataset export --task mapping --cpu Xeon --gpu NVIDIA --out "$RESULTS/mapping.csv" \
      >> "$RESULTS/export.log" 2>&1 || echo "mapping export: none (see export.log)"
  fi
  log "export done"
  return 0
}

phase_summary() {
  [ -f "$RESULTS/wgsize.csv" ] || { echo "no $RESULTS/wgsize.csv"; return 1; }
  log "summary per device (oracle vs best fixed size and the driver's default)"
  "$PYTHON" - "$RESULTS/wgsize.csv" <<'PY' | tee "$RESULTS/summary.txt"
import csv, math, re, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = [c for c in rows[0] if re.fullmatch(r"\d+x\d+", c)] if rows else []
by_dev = defaultdict(list)
for r in rows:
    by_dev[r["dev_name"]].append(r)
for dev, rs in by_dev.items():
    real = [r for r in rs if r["origin"] != "synthetic"]
    print(f"{dev}: {len(rs)} scenarios; real {len(real)} scenarios of {len({r['kern_checksum'] for r in real})} kernels; "
          f"synthetic {len(rs) - len(real)} scenarios of {len({r['kern_checksum'] for r in rs if r['origin'] == 'synthetic'})} kernels")
    for name, part in (("real", real), ("all", rs)):
        if not part:
            continue
        perf = lambda r, s: (min(float(r[x]) for x in sizes if float(r[x]) > 0) / float(r[s])) if float(r[s]) > 0 else 0
        fixed = max(sizes, key=lambda s: sum(perf(r, s) for r in part))
        legal = [r for r in part if float(r[fixed]) > 0]
        gm = math.exp(sum(math.log(1 / perf(r, fixed)) for r in legal) / len(legal)) if legal else float("nan")
        dflt = [r for r in part if r["default_local_size"] in r and float(r[r["default_local_size"]]) > 0]
        gd = math.exp(sum(math.log(1 / perf(r, r["default_local_size"])) for r in dflt) / len(dflt)) if dflt else float("nan")
        print(f"  {name}: best fixed {fixed} = {100 * sum(perf(r, fixed) for r in part) / len(part):.1f}% of oracle "
              f"(illegal 0; legal in {len(legal)}/{len(part)}); oracle over it {gm:.3f}x (geomean where legal) -> "
              f"{'>= 10%' if gm >= 1.1 else '< 10%'}; oracle over the default {gd:.3f}x ({len(dflt)} scenarios)")
PY
}

phase_experiment() {
  [ -f "$RESULTS/wgsize.csv" ] || { echo "no $RESULTS/wgsize.csv"; return 1; }
  if ! "$CLGEN" predict --help > /dev/null 2>&1; then
    echo "clgen here has no 'predict' (built without OpenCV): run on the unpacked archive with a full build:"
    echo "  RESULTS=DIR CLGEN=build/cli/clgen bench/gpu-experiment.sh wgsize experiment"
    return 0
  fi
  if [ ! -f "$RESULTS/mapping.csv" ] && [ -f "$RESULTS/clgen.db.xz" ]; then
    log "mapping export from the packed database"
    mkdir -p "$RESULTS/ws" && xz -dc "$RESULTS/clgen.db.xz" > "$RESULTS/ws/clgen.db"
    "$CLGEN" --workspace "$RESULTS/ws" dataset export --task mapping --cpu Xeon --gpu NVIDIA \
      --out "$RESULTS/mapping.csv" 2>&1 | tail -3 || true
  fi
  experiment wgsize "${MODEL:-best}"
  [ -f "$RESULTS/mapping.csv" ] && experiment mapping "${MAPPING_MODEL:-best}"
  return 0
}

experiment() {  # TASK MODEL: grouped by program, else (too few programs for the folds) by kernel
  local task=$1 model=$2 group
  for group in program kernel; do
    log "experiment $task ($model): real vs real + synthetic, grouped by $group"
    "$CLGEN" predict experiment --task "$task" --data "$RESULTS/$task.csv" --model "$model" --group "$group" \
      --repeats "${REPEATS:-5}" --cv-folds "${FOLDS:-5}" --out "$RESULTS/experiment-$task-$group.csv" \
      > "$RESULTS/experiment-$task-$group.txt" 2>&1
    local rc=$?
    cat "$RESULTS/experiment-$task-$group.txt"
    [ $rc -eq 0 ] && return 0
  done
  return 1
}

phase_pack() {
  log "pack"
  if [ -f "$WS/clgen.db" ]; then
    "$PYTHON" - "$WS/clgen.db" "$RESULTS/clgen.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
if dst.execute("SELECT 1 FROM sqlite_master WHERE name='samples'").fetchone():
    dst.execute("DELETE FROM samples WHERE status != 'accepted'")
# The mined files' texts are most of the bytes and no export reads them (the
# preprocessed kernels, their origins and repositories stay).
if dst.execute("SELECT 1 FROM sqlite_master WHERE name='content_files'").fetchone():
    dst.execute("UPDATE content_files SET text = ''")
dst.commit()
dst.execute("VACUUM")
PY
    xz -T0 -6 -f "$RESULTS/clgen.db"
  fi
  local dest=${OUT:-gpu-results}
  mkdir -p "$dest"
  tar -C "$(dirname "$RESULTS")" -czf "$dest/wgsize-results.tar.gz" "$(basename "$RESULTS")"
  ls -la "$dest/wgsize-results.tar.gz"
  [ "$(stat -c %s "$dest/wgsize-results.tar.gz")" -lt 16000000 ] ||
    echo "gpu-experiment wgsize: the archive is over 16 MB, which may not come back: copy $RESULTS/*.csv to \$OUT by hand"
}

phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(build train sample screen pick sweep export summary experiment pack)
status=0
for p in "${phases[@]}"; do
  fn="phase_$p"
  if ! declare -F "$fn" >/dev/null; then echo "gpu-experiment wgsize: unknown phase '$p'" >&2; exit 2; fi
  "$fn" || { log "phase $p failed"; status=1; [ "$p" = build ] && { phase_pack; exit 1; }; }
done
log "done (status $status)"
exit $status
