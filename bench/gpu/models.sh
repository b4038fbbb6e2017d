#!/usr/bin/env bash
# Model types and training text: LSTM against Transformer, v1 against v2 text, best against last checkpoint.
# Run ON THE GPU MACHINE. Needs .carry/gpu-deps.tar.xz (scripts/gpu-carry.sh) and
# .wsmin/v1.db.xz + .wsmin/v2.db.xz (bench/gpu-experiment.sh workspace WS NAME, here).
# Workspaces live in gpu-work/NAME, so a warm machine keeps models between calls.
#
#   bench/gpu-experiment.sh models PHASE...
#   build     scripts/gpu-build.sh
#   train     each run of $RUNS ("name:workspace:config ..."), $TRAIN_SECONDS each on CUDA,
#             alone on the GPU (SIGINT at the limit checkpoints); train-NAME.log
#   baseline  bench/model_train_transformer_baseline.py, the same shape in plain PyTorch,
#             for $BASELINE_SECONDS on the token files of the workspace's latest model (tf-v2)
#   sample    each run of $SAMPLES ("name:run:checkpoint[:flag,flag] ...", checkpoint best|last,
#             optional extra sample flags such as --explore):
#             free-signature `sample --check gpu` for $SAMPLE_SECONDS, $BATCH streams,
#             temperature 0.8; summary NAME.json, benchmark-grade kernels in kernels/NAME
#   decode    each run of $DECODE ("name:run:checkpoint ..."): `sample` without the checker for
#             $DECODE_SECONDS, $BATCH streams, temperature 0.8: samples/s, stream-steps/s, and the
#             model's and the draws' seconds (decoding speed apart from the checker); NAME-decode.json
#   trainspeed  the Transformer run of $RUNS (tf-v2) for $TRAINSPEED_SECONDS on CUDA from scratch
#             (its own workspace copy), then the PyTorch baseline for as long, in the same call:
#             tokens/s of each (trainspeed-*.log)
#   sweep     each variant of $SWEEP ("name:key=value,key=value ..."): $SWEEP_BASE (default
#             configs/github-transformer.toml) with those keys replaced, trained on workspace
#             $SWEEP_WS (v2) for $SWEEP_SECONDS on CUDA, one after another, alone on the GPU:
#             best and last validation loss, epochs and tokens/s in sweep.tsv (one row a
#             variant, appended), config-NAME.toml, train-sw-NAME.log; the model stays in gpu-work/sw-NAME
#   profile   GPU time per kernel name, from ncu (gpu__time_duration, launches $PROFILE_SKIP+1 ..
#             $PROFILE_SKIP+$PROFILE_LAUNCHES), of clgen train on the tf-v2 run's config and of the
#             PyTorch baseline (profile-clgen.csv, profile-pytorch.csv; skipped where ncu reads
#             no counters); then the baseline for $ABLATION_SECONDS each plain, with batches
#             from the CPU (--host-batches), and with a seed every batch too (ablation-*.log)
#   pack      logs, summaries and kernels into results.tar.xz
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -uo pipefail
RESULTS=${OUT:-gpu-results}
CLGEN=$BUILD_DIR/cli/clgen
TRAIN_SECONDS=${TRAIN_SECONDS:-150}
BASELINE_SECONDS=${BASELINE_SECONDS:-60}
SAMPLE_SECONDS=${SAMPLE_SECONDS:-60}
BATCH=${BATCH:-4096}
RUNS=${RUNS:-"lstm-v1:v1:configs/github.toml lstm-v2:v2:configs/github.toml tf-v2:v2:configs/github-transformer.toml"}
SAMPLES=${SAMPLES:-"lstm-v2-best:lstm-v2:best lstm-v2-last:lstm-v2:last tf-v2-best:tf-v2:best"}
DECODE=${DECODE:-"lstm-v2-best:lstm-v2:best tf-v2-best:tf-v2:best"}
DECODE_SECONDS=${DECODE_SECONDS:-45}
TRAINSPEED_SECONDS=${TRAINSPEED_SECONDS:-60}
SWEEP=${SWEEP:-}
SWEEP_BASE=${SWEEP_BASE:-configs/github-transformer.toml}
SWEEP_WS=${SWEEP_WS:-v2}
SWEEP_SECONDS=${SWEEP_SECONDS:-100}
PROFILE_SKIP=${PROFILE_SKIP:-8000}
PROFILE_LAUNCHES=${PROFILE_LAUNCHES:-3000}
ABLATION_SECONDS=${ABLATION_SECONDS:-15}
mkdir -p "$RESULTS/kernels"

# FROM TO [PART...]: gpu-work/TO made afresh as a copy of gpu-work/FROM's
# database and the named parts (models, vocabularies) of that workspace.
copy_workspace() {
  local from=gpu-work/$1 to=gpu-work/$2 part
  shift 2
  rm -rf "$to" && mkdir -p "$to" && cp "$from/clgen.db" "$to/" || return 1
  for part in "$@"; do cp -r "$from/$part" "$to/" || return 1; done
}

run_field() {  # RUN FIELD(2 workspace | 3 config)
  local r
  for r in $RUNS; do [ "${r%%:*}" = "$1" ] && { echo "$r" | cut -d: -f"$2"; return 0; }; done
  echo "models: no run '$1' in RUNS" >&2
  return 1
}

phase_build() {
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  build_clgen "$RESULTS/build.log"
}

phase_train() {
  local r name ws config
  for r in $RUNS; do
    IFS=: read -r name ws config <<< "$r"
    unpack_workspace "gpu-work/$ws" ".wsmin/$ws.db.xz" || return 1
    log "train $config on $ws for at most $TRAIN_SECONDS s ($name)"
    /usr/bin/time -f "wall %e s" timeout --foreground --signal=INT "$TRAIN_SECONDS" "$CLGEN" --workspace "gpu-work/$ws" \
      train --config "$config" --device cuda > "$RESULTS/train-$name.log" 2>&1
    grep -iE "best|valid|tokens/s|held-out|characters" "$RESULTS/train-$name.log" | tail -6
  done
  return 0  # a time limit ends training with a checkpoint, not a failure
}

phase_baseline() {
  local ws config
  ws=$(run_field tf-v2 2) && config=$(run_field tf-v2 3) || return 1
  log "PyTorch baseline of $config on gpu-work/$ws's latest model's token files for $BASELINE_SECONDS s"
  python3 bench/model_train_transformer_baseline.py --config "$config" --workspace "gpu-work/$ws" --device cuda \
    --seconds "$BASELINE_SECONDS" 2>&1 | tee "$RESULTS/baseline-tf.log" | tail -5
}

phase_sample() {
  local s name run ckpt ws config
  local flags extra
  for s in $SAMPLES; do
    IFS=: read -r name run ckpt flags <<< "$s"
    IFS=, read -ra extra <<< "${flags:-}"
    ws=$(run_field "$run" 2) && config=$(run_field "$run" 3) || return 1
    log "sample --check gpu on $run ($ckpt checkpoint) for $SAMPLE_SECONDS s: $name"
    copy_workspace "$ws" "s-$name" models vocabularies || return 1
    "$CLGEN" --workspace "gpu-work/s-$name" -q sample --config "$config" --checkpoint "$ckpt" --device cuda \
      --batch-size "$BATCH" --temperature 0.8 --seed 7 --time-limit "$SAMPLE_SECONDS" -n 0 \
      --check gpu --check-jobs 16 --check-timeout 1 --check-out "$RESULTS/kernels/$name" --json "${extra[@]}" \
      > "$RESULTS/$name.json" 2> "$RESULTS/$name.err"
    python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print({k: j.get(k) for k in ("samples","accepted","seconds","checked","dynamically_valid","dynamically_valid_per_minute","check_outcomes")})' \
      "$RESULTS/$name.json" || tail -5 "$RESULTS/$name.err"
  done
}

phase_decode() {
  local s name run ckpt ws config
  for s in $DECODE; do
    IFS=: read -r name run ckpt <<< "$s"
    ws=$(run_field "$run" 2) && config=$(run_field "$run" 3) || return 1
    log "sample (no checker) on $run ($ckpt checkpoint) for $DECODE_SECONDS s, $BATCH streams: $name"
    copy_workspace "$ws" "d-$name" models vocabularies || return 1
    "$CLGEN" --workspace "gpu-work/d-$name" -q sample --config "$config" --checkpoint "$ckpt" --device cuda \
      --batch-size "$BATCH" --temperature 0.8 --seed 7 --time-limit "$DECODE_SECONDS" -n 0 --json \
      > "$RESULTS/$name-decode.json" 2> "$RESULTS/$name-decode.err"
    python3 - "$RESULTS/$name-decode.json" "$name" <<'PY' || tail -5 "$RESULTS/$name-decode.err"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["seconds"]
print(f"{sys.argv[2]}: {j['samples'] / s:.1f} samples/s, {j['tokens'] / s:.0f} stream-steps/s, {j['accepted']} accepted; "
      f"model {j['model_seconds']:.1f} s, draw {j['draw_seconds']:.1f} s of {s:.1f} s; backtracks {j['backtracks']}")
PY
  done
}

phase_trainspeed() {
  local ws config
  ws=$(run_field tf-v2 2) && config=$(run_field tf-v2 3) || return 1
  unpack_workspace "gpu-work/$ws" ".wsmin/$ws.db.xz" || return 1
  copy_workspace "$ws" "ts-$ws" || return 1
  log "train $config from scratch for $TRAINSPEED_SECONDS s, then the PyTorch baseline for as long"
  timeout --foreground --signal=INT "$TRAINSPEED_SECONDS" "$CLGEN" --workspace "gpu-work/ts-$ws" \
    train --config "$config" --device cuda > "$RESULTS/trainspeed-clgen.log" 2>&1
  grep -E "AdamW|tokens/s" "$RESULTS/trainspeed-clgen.log" | tail -3
  python3 bench/model_train_transformer_baseline.py --config "$config" --workspace "gpu-work/ts-$ws" --device cuda \
    --seconds "$TRAINSPEED_SECONDS" 2>&1 | tee "$RESULTS/trainspeed-pytorch.log" | tail -3
}

# BASE OUT KEY=VALUE,...: BASE with each KEY's first assignment replaced (keys of
# [model] and [training] are unique in the repository's configs, except max_tokens).
override_config() {
  local base=$1 out=$2 kv key value
  cp "$base" "$out" || return 1
  IFS=, read -ra kv <<< "$3"
  for kv in "${kv[@]}"; do
    key=${kv%%=*} value=${kv#*=}
    grep -qE "^$key = " "$out" || { echo "models: $base has no key '$key'" >&2; return 1; }
    sed -i -E "0,/^$key = /s|^$key = .*|$key = $value|" "$out"
  done
}

phase_sweep() {
  local v name over config ws
  [ -n "$SWEEP" ] || { echo "models: SWEEP is empty" >&2; return 1; }
  unpack_workspace "gpu-work/$SWEEP_WS" ".wsmin/$SWEEP_WS.db.xz" || return 1
  [ -f "$RESULTS/sweep.tsv" ] ||
    printf 'name\toverrides\tbest_valid\tbest_epoch\tepochs\tlast_valid\ttokens_per_s\n' > "$RESULTS/sweep.tsv"
  for v in $SWEEP; do
    name=${v%%:*} over=${v#*:}
    config=$RESULTS/config-$name.toml ws=gpu-work/sw-$name
    override_config "$SWEEP_BASE" "$config" "$over" || return 1
    copy_workspace "$SWEEP_WS" "sw-$name" && cp "$config" "$ws/config.toml" || return 1
    log "sweep $name ($over) for $SWEEP_SECONDS s"
    timeout --foreground --signal=INT "$SWEEP_SECONDS" "$CLGEN" --workspace "$ws" \
      train --config "$config" --device cuda > "$RESULTS/train-sw-$name.log" 2>&1
    python3 bench/gpu/sweep_row.py "$RESULTS/train-sw-$name.log" "$name" "$over" >> "$RESULTS/sweep.tsv"
    tail -1 "$RESULTS/sweep.tsv"
  done
}

# NAME COMMAND...: ncu's GPU time per kernel name over COMMAND's launches
# PROFILE_SKIP+1 .. PROFILE_SKIP+PROFILE_LAUNCHES (profile-NAME.csv).
ncu_profile() {
  local name=$1
  shift
  timeout --foreground 240 ncu --clock-control none --metrics gpu__time_duration.sum --launch-skip "$PROFILE_SKIP" \
    --launch-count "$PROFILE_LAUNCHES" --csv --print-units base --print-summary per-kernel "$@" > "$RESULTS/profile-$name.csv" \
    2> "$RESULTS/profile-$name.err"
  python3 bench/gpu/ncu_summary.py "$RESULTS/profile-$name.csv" "$name" || tail -5 "$RESULTS/profile-$name.err"
}

phase_profile() {
  local ws config a
  ws=$(run_field tf-v2 2) && config=$(run_field tf-v2 3) || return 1
  unpack_workspace "gpu-work/$ws" ".wsmin/$ws.db.xz" || return 1
  copy_workspace "$ws" "pf-$ws" || return 1
  # Two epochs from scratch (the profiled launches fall in the first), which
  # also leave the token files the baseline reads. Both programs end by
  # themselves: ncu prints its summary only when its target exits. Where ncu
  # cannot read the counters (gVisor), the two epochs run without it.
  if ncu --clock-control none --metrics gpu__time_duration.sum python3 -c \
      'import torch; torch.ones(8, device="cuda").sum().item()' > "$RESULTS/profile-probe.log" 2>&1 &&
      grep -q gpu__time_duration "$RESULTS/profile-probe.log"; then
    log "ncu: clgen train $config"
    ncu_profile clgen "$CLGEN" --workspace "gpu-work/pf-$ws" train --config "$config" --device cuda --epochs 2
    log "ncu: the PyTorch baseline"
    ncu_profile pytorch python3 bench/model_train_transformer_baseline.py --config "$config" \
      --workspace "gpu-work/pf-$ws" --device cuda --seconds 20
  else
    log "ncu reads no counters here ($(tail -1 "$RESULTS/profile-probe.log")); two epochs without it"
    "$CLGEN" --workspace "gpu-work/pf-$ws" train --config "$config" --device cuda --epochs 2 \
      > "$RESULTS/profile-train.log" 2>&1 || { tail -5 "$RESULTS/profile-train.log"; return 1; }
  fi
  # What clgen's loop adds to the model, timed in PyTorch: batches drawn on
  # the CPU and copied through pinned memory, and a seed set every batch.
  for a in "plain:" "host:--host-batches" "host-seed:--host-batches --seed-every-batch"; do
    log "PyTorch baseline, ${a%%:*}, $ABLATION_SECONDS s"
    # shellcheck disable=SC2086  # the flags split
    python3 bench/model_train_transformer_baseline.py --config "$config" --workspace "gpu-work/pf-$ws" \
      --device cuda --seconds "$ABLATION_SECONDS" ${a#*:} > "$RESULTS/ablation-${a%%:*}.log" 2>&1
    grep tokens/s "$RESULTS/ablation-${a%%:*}.log" || tail -3 "$RESULTS/ablation-${a%%:*}.log"
  done
}

phase_pack() {  # the archive is written outside $RESULTS: tar fails on a folder that changes as it reads it
  local tmp
  tmp=$(mktemp) && tar -C "$RESULTS" -cJf "$tmp" --exclude results.tar.xz . && mv "$tmp" "$RESULTS/results.tar.xz" &&
    ls -la "$RESULTS/results.tar.xz" && find "$RESULTS" -mindepth 1 ! -name results.tar.xz -delete
}

for phase in "$@"; do "phase_$phase" || { echo "phase $phase failed"; [ "${DRY_RUN:-0}" = 1 ] || exit 1; }; done
