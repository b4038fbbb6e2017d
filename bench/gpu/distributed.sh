#!/usr/bin/env bash
# clgen train --distributed under torchrun: scaling and time to a validation loss.
# Run ON THE GPU MACHINE (several GPUs: nvidia-h200-x2/-x4/-x8) from a checkout
# that carries .carry/gpu-deps.tar.xz (scripts/gpu-carry.sh) and .wsmin/clgen.db.xz
# (bench/gpu-experiment.sh workspace): measures `clgen train --distributed` under torchrun
# (docs/MODEL.md, "Distributed training"). Fits one 10-minute call with the
# defaults; everything lands in one file, $OUT/results.tar.xz (or gpu-results/),
# and the summary is printed at the end.
#
#   bench/gpu-experiment.sh distributed            # every world size 1, 2, 4, 8 up to the GPUs present
#   WORLDS="1 2" bench/gpu-experiment.sh distributed
#   PHASES="scaling summary" bench/gpu-experiment.sh distributed   # the phases below, in order
#
# 1. build     scripts/gpu-build.sh unless build-gpu/cli/clgen exists; the CMake
#              summary says whether the NCCL (and Gloo) backends compiled
# 2. scaling   $CONFIG at the same per-GPU batch ($PER_GPU_BATCH streams, default
#              the config's batch_size): a plain single-process run, then torchrun
#              with 1, 2, 4, 8 GPUs, $SCALING_SECONDS each; training tokens/s is the
#              median over the epochs after the first (validation and checkpoint
#              time excluded); efficiency = tokens/s(N) / (N x tokens/s(1 rank))
# 3. to-loss   $CONFIG as it is (same global batch) on 1 GPU for $TARGET_SECONDS;
#              the target is the best validation loss it reached; then the largest
#              world for the same time: training seconds (sum of epoch times) and
#              wall seconds (first epoch checkpoint at or below the target, from
#              the run's start) to reach it, and the two validation curves
# Each run has a workspace of its own (gpu-work/dist/NAME, from .wsmin), so no
# run resumes another's checkpoint.
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${OUT:-gpu-results}
CLGEN=$PWD/$BUILD_DIR/cli/clgen
CONFIG=${CONFIG:-configs/gpu.toml}
SCALING_SECONDS=${SCALING_SECONDS:-30}
TARGET_SECONDS=${TARGET_SECONDS:-100}
PYTHON=${PYTHON:-python3}
TORCHRUN=${TORCHRUN:-$(command -v torchrun || echo /opt/torch/.venv/bin/torchrun)}
WORK=gpu-work/dist
LOGS=$RESULTS/distributed
mkdir -p "$LOGS" "$WORK"

GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${GPUS:-0}" -ge 1 ] || GPUS=1
if [ -z "${WORLDS:-}" ]; then
  WORLDS=""
  for w in 1 2 4 8; do [ "$w" -le "$GPUS" ] && WORLDS="$WORLDS $w"; done
fi
MAX_WORLD=$(echo $WORLDS | tr ' ' '\n' | sort -n | tail -1)
BATCH=$(sed -n 's/^batch_size *= *\([0-9]*\).*/\1/p' "$CONFIG" | head -1)
PER_GPU_BATCH=${PER_GPU_BATCH:-$BATCH}

phase_build() {
  log "machine: $(nproc) cores; $GPUS GPUs"
  nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader || true
  nvidia-smi topo -m > "$LOGS/topology.txt" 2>&1 || true
  build_clgen "$LOGS/build.log" || return 1
  cmake -N -LA "$BUILD_DIR" 2>/dev/null | grep -E '^CLGEN_(GLOO|NCCL)_COMPILES|^CLGEN_NCCL_INCLUDE_DIR' | tee "$LOGS/backends.txt"
  for f in "$BUILD_DIR"/c10d-probe/*.log; do [ -f "$f" ] && { echo "-- $f"; grep -m5 -E 'error' "$f"; }; done
  log "torchrun: $TORCHRUN ($("$TORCHRUN" --help >/dev/null 2>&1 && echo ok || echo missing))"
}

# A fresh workspace gpu-work/dist/NAME holding the corpus only.
fresh_workspace() {
  rm -rf "${WORK:?}/$1" && mkdir -p "$WORK/$1"
  if [ -f .wsmin/clgen.db.xz ]; then xz -dc .wsmin/clgen.db.xz > "$WORK/$1/clgen.db"
  elif [ -f .wsmin/clgen.db ]; then cp .wsmin/clgen.db "$WORK/$1/clgen.db"
  else echo "gpu-experiment distributed: no .wsmin/clgen.db(.xz)" >&2; return 1; fi
}

# $CONFIG with batch_size B and many epochs (the time limit ends the run).
config_with_batch() {
  sed -e "s/^batch_size *=.*/batch_size = $2/" -e "s/^epochs *=.*/epochs = 1000/" \
      -e "s/^samples *=.*/samples = 0/" "$CONFIG" > "$1"
}

# NAME WORLD CONFIG SECONDS: trains in gpu-work/dist/NAME for SECONDS (SIGINT
# then, which checkpoints); WORLD 0 = one process without --distributed.
train_run() {
  local name=$1 world=$2 config=$3 seconds=$4 ws=$WORK/$1
  fresh_workspace "$name" || return 1
  log "$name: world $world, $(grep '^batch_size' "$config"), ${seconds} s"
  if [ "$world" -eq 0 ]; then
    timeout --foreground --signal=INT --kill-after=30 "$seconds" "$CLGEN" --workspace "$ws" train --config "$config" \
      --device cuda > "$LOGS/$name.log" 2>&1
  else
    timeout --signal=INT --kill-after=30 "$seconds" "$TORCHRUN" --standalone --nnodes 1 \
      --nproc-per-node "$world" --no-python "$CLGEN" --workspace "$ws" train --config "$config" \
      --device cuda --distributed --timeout 120 > "$LOGS/$name.log" 2>&1
  fi
  echo "exit $? (124/130 = stopped by the time limit)" >> "$LOGS/$name.log"
  grep -E 'epoch [0-9]+/[0-9]+: train|error|distributed:' "$LOGS/$name.log" | tail -3
  "$PYTHON" - "$ws/clgen.db" "$LOGS/$name.json" "$name" "$world" <<'PY'
import json, sqlite3, statistics, sys
db, out, name, world = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
con = sqlite3.connect(db)
rows = con.execute("SELECT epoch, tokens, seconds, valid_loss FROM training_metrics ORDER BY epoch").fetchall()
run = con.execute("SELECT device, status, started_at FROM training_runs ORDER BY id LIMIT 1").fetchone()
ckpt = con.execute("SELECT epoch, (julianday(created_at) - julianday((SELECT started_at FROM training_runs "
                   "ORDER BY id LIMIT 1))) * 86400 FROM checkpoints WHERE reason = 'epoch' ORDER BY epoch").fetchall()
wall = dict(ckpt)
steady = [t / s for (_, t, s, _) in rows[1:] if s > 0] or [t / s for (_, t, s, _) in rows if s > 0]
curve, train_s = [], 0.0
for epoch, tokens, seconds, valid in rows:
    train_s += seconds
    curve.append({"epoch": epoch, "train_seconds": round(train_s, 3), "wall_seconds": wall.get(epoch),
                  "valid_loss": valid})
json.dump({"name": name, "world": world, "device": run[0] if run else None,
           "status": run[1] if run else None, "epochs": len(rows),
           "tokens_per_second": statistics.median(steady) if steady else None, "curve": curve},
          open(out, "w"), indent=1)
PY
}

phase_scaling() {
  local w cfg
  cfg=$WORK/per-gpu-1.toml
  config_with_batch "$cfg" "$PER_GPU_BATCH"
  train_run scaling-plain 0 "$cfg" "$SCALING_SECONDS"
  for w in $WORLDS; do
    cfg=$WORK/per-gpu-$w.toml
    config_with_batch "$cfg" $((PER_GPU_BATCH * w))
    train_run "scaling-$w" "$w" "$cfg" "$SCALING_SECONDS"
  done
}

phase_to_loss() {
  local cfg=$WORK/global.toml
  config_with_batch "$cfg" "$BATCH"
  train_run to-loss-1 1 "$cfg" "$TARGET_SECONDS"
  [ "$MAX_WORLD" -gt 1 ] && train_run "to-loss-$MAX_WORLD" "$MAX_WORLD" "$cfg" "$TARGET_SECONDS"
  return 0
}

phase_summary() {
  "$PYTHON" - "$LOGS" "$PER_GPU_BATCH" "$BATCH" "$MAX_WORLD" "$TARGET_SECONDS" <<'PY' | tee "$LOGS/summary.txt"
import glob, json, os, sys
logs, per_gpu, batch, max_world, target_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
runs = {os.path.basename(p)[:-5]: json.load(open(p)) for p in glob.glob(logs + "/*.json") if not p.endswith("summary.json")}
summary = {"per_gpu_batch": per_gpu, "global_batch_to_loss": batch, "scaling": [], "to_loss": None}
print(f"scaling at the same per-GPU batch ({per_gpu} streams), training tokens/s (median epoch after the first):")
base = runs.get("scaling-1", {}).get("tokens_per_second")
plain = runs.get("scaling-plain", {}).get("tokens_per_second")
if plain: print(f"  1 GPU without --distributed: {plain:,.0f} tokens/s")
for name in sorted((n for n in runs if n.startswith("scaling-") and n != "scaling-plain"), key=lambda n: int(n.split("-")[1])):
    r = runs[name]; w = r["world"]; tps = r["tokens_per_second"]
    eff = tps / (w * base) if tps and base else None
    summary["scaling"].append({"world": w, "tokens_per_second": tps, "efficiency": eff, "epochs": r["epochs"], "device": r["device"]})
    print(f"  {w} GPU(s): {tps:,.0f} tokens/s, efficiency {eff:.1%} ({r['epochs']} epochs, {r['device']})" if tps and eff
          else f"  {w} GPU(s): no finished epoch ({r.get('device')})")
one, many = runs.get("to-loss-1"), runs.get(f"to-loss-{max_world}")
if one and one["curve"]:
    losses = [c["valid_loss"] for c in one["curve"] if c["valid_loss"] is not None]
    target = min(losses)
    print(f"time to the validation loss 1 GPU reaches in {target_s} s ({target:.4f}), global batch {batch}:")
    def reach(r):
        for c in r["curve"]:
            if c["valid_loss"] is not None and c["valid_loss"] <= target:
                return c
        return None
    res = {"target": target}
    for label, r in (("1", one), (str(max_world), many)):
        if not r: continue
        c = reach(r)
        res[label] = c
        print(f"  {label} GPU(s): " + (f"epoch {c['epoch']}, {c['train_seconds']:.1f} s of training, {c['wall_seconds']:.1f} s wall"
                                      if c else f"not reached in {target_s} s (best {min([x['valid_loss'] for x in r['curve'] if x['valid_loss']] or [float('nan')]):.4f})"))
    if many:
        pairs = [(a["valid_loss"], b["valid_loss"]) for a, b in zip(one["curve"], many["curve"]) if a["valid_loss"] and b["valid_loss"]]
        if pairs:
            d = max(abs(a - b) for a, b in pairs)
            res["curve_max_difference"] = d
            print(f"  validation curves, epoch by epoch over {len(pairs)} epochs: max difference {d:.4f} nats/char")
    summary["to_loss"] = res
json.dump({"summary": summary, "runs": runs}, open(logs + "/summary.json", "w"), indent=1)
PY
}

phase_pack() {
  tar -C "$RESULTS" -cJf "$RESULTS/results.tar.xz" distributed && rm -rf "$LOGS"
  ls -la "$RESULTS/results.tar.xz"
}

status=0
for p in ${PHASES:-build scaling to_loss summary pack}; do
  "phase_$p" || { echo "gpu-experiment distributed: phase $p failed" >&2; status=1; [ "$p" = build ] && break; }
done
[ -f "$RESULTS/results.tar.xz" ] || phase_pack
exit $status
