#!/usr/bin/env bash
# How human-like sampled kernels are: one model, every sampling arm, the human reference through the checker.
# Run ON THE GPU MACHINE (docs/BENCHMARKS.md, "Realism"). Needs .carry/gpu-deps.tar.xz and
# .wsmin/v3.db.xz (bench/gpu-experiment.sh workspace WS v3); .wsmin/v2.db.xz for the v2 model.
# Results gather in gpu-results/ (RESULTS); what comes back from a call (at
# most 8 files) is packed into $OUT after every phase and every arm, so a call
# cut at its time limit still returns what it finished: results.tar.xz (logs
# and the arms' summaries), arms.tar.xz (the kernels for `clgen eval realism`,
# which runs here on the CPU) and human-runs.db.xz.
#
#   bench/gpu-experiment.sh realism PHASE...
#   build    scripts/gpu-build.sh (skipped when build-gpu/ holds clgen)
#   v2       gpu-work/v2: the v3 workspace without the repositories v3 added
#            (.wsmin/added-v3.txt, the first column of the snapshot's ADDED-v3.tsv):
#            v2's text, with no second workspace to carry
#   train    $CONFIG on each snapshot of $SNAPSHOTS (gpu-work/NAME) for at most
#            $TRAIN_SECONDS ($TRAIN_EPOCHS, when set, over the config's epochs);
#            the best validation loss of each in train-NAME.log
#   human    $HUMAN_KERNELS shuffled corpus kernels of the first snapshot through the
#            checker on the GPU (drive --corpus, the checker's settings), interrupted
#            after $HUMAN_SECONDS when set (what was driven is kept); outcomes in
#            human-drive.log, the runs as a workspace to merge (human-runs.db.xz)
#   arms     every arm of $ARMS (NAME:FLAGS, flags joined by ','), each on its own
#            copy of the first snapshot's workspace: sample --check gpu for
#            $ARM_SECONDS at $BATCH streams (2,048 on a card of more than 100 GB,
#            else 1,024), then the samples in flight drain; an arm is
#            interrupted after $ARM_TIMEOUT s (its summary then says
#            "interrupted": a drain cut short keeps short samples, as the old
#            stop did); arm-NAME.json each
#   pack     arms.tar.xz: per arm accepted/ and grade/ (benchmark-grade) kernels
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${RESULTS:-gpu-results}
CLGEN=$BUILD_DIR/cli/clgen
CONFIG=${CONFIG:-configs/github-transformer.toml}
SNAPSHOTS=${SNAPSHOTS:-v3}
TRAIN_SECONDS=${TRAIN_SECONDS:-110}
TRAIN_EPOCHS=${TRAIN_EPOCHS:-}
HUMAN_KERNELS=${HUMAN_KERNELS:-2500}
HUMAN_SECONDS=${HUMAN_SECONDS:-0}
ARM_SECONDS=${ARM_SECONDS:-20}
ARM_TIMEOUT=${ARM_TIMEOUT:-170}
# The Transformer's cache at 2,048 streams does not fit an H100.
if [ -z "${BATCH:-}" ]; then
  mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null | head -1)
  if [ "${mem:-0}" -gt 100000 ] 2>/dev/null; then BATCH=2048; else BATCH=1024; fi
fi
JOBS=${JOBS:-16}
# Signature seed or whole text; constrained with the old cut-off (4 refusals, no
# backtracking: the checked runs' old settings), constrained without it (names
# taken back after a refusal), unconstrained (rejection), the importance correction;
# and top-p 0.95 on the default (text-nocut-10).
ARMS=${ARMS:-"sig-cut-08:--begin,signature,--max-refusals,4,--temperature,0.8
sig-cut-10:--begin,signature,--max-refusals,4,--temperature,1.0
sig-nocut-08:--begin,signature,--backtracks,16,--temperature,0.8
sig-nocut-10:--begin,signature,--backtracks,16,--temperature,1.0
sig-free-08:--begin,signature,--no-constrain,--temperature,0.8
sig-free-10:--begin,signature,--no-constrain,--temperature,1.0
sig-corr-10:--begin,signature,--backtracks,16,--correction,0.1,--temperature,1.0
text-cut-08:--begin,text,--max-refusals,4,--temperature,0.8
text-cut-10:--begin,text,--max-refusals,4,--temperature,1.0
text-nocut-08:--begin,text,--backtracks,16,--temperature,0.8
text-nocut-10:--begin,text,--backtracks,16,--temperature,1.0
text-free-08:--begin,text,--no-constrain,--temperature,0.8
text-free-10:--begin,text,--no-constrain,--temperature,1.0
text-corr-08:--begin,text,--backtracks,16,--correction,0.1,--temperature,0.8
text-corr-10:--begin,text,--backtracks,16,--correction,0.1,--temperature,1.0
text-nocut-10-p95:--begin,text,--backtracks,16,--temperature,1.0,--top-p,0.95
text-nocut-10-r4:--begin,text,--backtracks,16,--temperature,1.0,--resume-errors,4"}
mkdir -p "$RESULTS"
first=${SNAPSHOTS%% *}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  build_clgen "$RESULTS/build.log"
}

phase_v2() {
  unpack_workspace gpu-work/v3 .wsmin/v3.db.xz || return 1
  mkdir -p gpu-work/v2 && cp gpu-work/v3/clgen.db gpu-work/v2/clgen.db
  python3 - gpu-work/v2/clgen.db .wsmin/added-v3.txt <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
added = [l.strip() for l in open(sys.argv[2]) if l.strip()]
ids = [i for (i, o, n) in db.execute("SELECT id, owner, name FROM repositories") if f"{o}/{n}" in set(added)]
marks = ",".join("?" * len(ids))
db.execute(f"DELETE FROM content_origins WHERE repository_id IN ({marks})", ids)
db.execute(f"DELETE FROM repositories WHERE id IN ({marks})", ids)
orphans = "SELECT sha256 FROM content_files WHERE sha256 NOT IN (SELECT sha256 FROM content_origins)"
db.execute(f"DELETE FROM preprocessed WHERE content_sha256 IN ({orphans})")
db.execute(f"DELETE FROM content_files WHERE sha256 IN ({orphans})")
db.commit()
print(len(ids), "repositories removed;", db.execute("SELECT COUNT(*) FROM repositories").fetchone()[0], "left")
PY
}

phase_train() {
  local name
  for name in $SNAPSHOTS; do
    unpack_workspace "gpu-work/$name" ".wsmin/$name.db.xz" || return 1
    log "train $CONFIG on $name for at most $TRAIN_SECONDS s"
    timeout --foreground --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "gpu-work/$name" train \
      --config "$CONFIG" --device cuda ${TRAIN_EPOCHS:+--epochs "$TRAIN_EPOCHS"} > "$RESULTS/train-$name.log" 2>&1
    grep -E "validation|best|tokens/s" "$RESULTS/train-$name.log" | tail -4
  done
  return 0
}

phase_human() {
  local ws=gpu-work/$first
  log "drive $HUMAN_KERNELS shuffled corpus kernels of $first on the GPU"
  local limit=()
  [ "$HUMAN_SECONDS" = 0 ] || limit=(timeout --signal=INT "$HUMAN_SECONDS")
  /usr/bin/time -f "wall %e s" "${limit[@]}" "$CLGEN" --workspace "$ws" -q drive --corpus --device gpu --timeout 1 \
    --shuffle 1 --limit "$HUMAN_KERNELS" --jobs "$JOBS" > "$RESULTS/human-drive.log" 2>&1
  tail -20 "$RESULTS/human-drive.log"
  # The runs and their sources alone, as a workspace `clgen workspace merge` reads.
  mkdir -p gpu-work/human-runs && rm -f gpu-work/human-runs/clgen.db
  python3 - "$ws/clgen.db" gpu-work/human-runs/clgen.db <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
for (name,) in dst.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
    if name not in ("runs", "kernel_sources", "workspace_meta") and not name.startswith("sqlite_"):
        dst.execute(f"DROP TABLE {name}")
dst.commit()
dst.execute("VACUUM")
print("runs", dst.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
PY
  xz -T0 -9 -c gpu-work/human-runs/clgen.db > "$RESULTS/human-runs.db.xz"
}

phase_arms() {
  local ws=gpu-work/$first spec name flags seed=101
  for spec in $ARMS; do
    name=${spec%%:*}
    sleep 5  # the last arm's check workers release their OpenCL contexts first
    flags=${spec#*:}
    local arm=gpu-work/arms/$name
    rm -rf "$arm" && mkdir -p "$arm"
    cp "$ws/clgen.db" "$arm/" && cp -r "$ws/models" "$ws/vocabularies" "$arm/"
    log "arm $name: ${flags//,/ }"
    # shellcheck disable=SC2086  # the arm's flags
    timeout -k 30 --signal=INT "$ARM_TIMEOUT" "$CLGEN" --workspace "$arm" -q sample --config "$CONFIG" --device cuda \
      --batch-size "$BATCH" \
      --seed "$seed" --time-limit "$ARM_SECONDS" -n 0 --check gpu --check-jobs "$JOBS" --check-timeout 1 \
      --out "$arm/accepted" --check-out "$arm/grade" --json ${flags//,/ } > "$RESULTS/arm-$name.json" \
      2> "$RESULTS/arm-$name.err"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print({k: j.get(k) for k in ("samples","accepted","seconds","wall_seconds","drained","drain_seconds","interrupted","checked","dynamically_valid","dynamically_valid_per_minute","by_category")})' \
      "$RESULTS/arm-$name.json" || tail -5 "$RESULTS/arm-$name.err"
    seed=$((seed + 1))
    phase_pack > /dev/null && send_back
  done
  return 0
}

phase_pack() {
  local name dirs=()
  for name in gpu-work/arms/*/; do
    name=$(basename "$name")
    [ -d "gpu-work/arms/$name/accepted" ] && dirs+=("$name/accepted")
    [ -d "gpu-work/arms/$name/grade" ] && dirs+=("$name/grade")
  done
  [ ${#dirs[@]} -gt 0 ] || return 0
  XZ_OPT=-T0 tar -C gpu-work/arms -cJf "$RESULTS/arms.tar.xz" "${dirs[@]}"
  ls -la "$RESULTS/arms.tar.xz"
}

# What comes back from the call, replaced whole (written beside, then moved).
send_back() {
  [ -n "${OUT:-}" ] || return 0
  mkdir -p "$OUT"
  # (A dry run's tar and cp write nothing: hence the checks.)
  tar -C "$RESULTS" --exclude=arms.tar.xz --exclude=human-runs.db.xz -cJf "$OUT/.results.tmp" . &&
    [ -f "$OUT/.results.tmp" ] && mv "$OUT/.results.tmp" "$OUT/results.tar.xz"
  local f
  for f in arms.tar.xz human-runs.db.xz; do
    [ -f "$RESULTS/$f" ] && cp "$RESULTS/$f" "$OUT/.$f.tmp" && [ -f "$OUT/.$f.tmp" ] && mv "$OUT/.$f.tmp" "$OUT/$f"
  done
  return 0
}

for phase in "$@"; do
  "phase_$phase" || { echo "phase $phase failed"; send_back; [ "${DRY_RUN:-0}" = 1 ] || exit 1; }
  send_back
done
