#!/usr/bin/env bash
# Transformer decoding speed: trains a small Transformer once (raw installed
# OpenCL files, as bench/model_train.sh), then samples it with each given
# clgen binary in turn for the same time, same streams and seed, without the
# checker, and prints samples/s, tokens/s (tokens the streams stepped, over
# wall time) and the model's share of the time (model_seconds: logits read
# back, steps, saves, restores and refills).
#   bench/model_decode.sh [CLGEN...]        default: build/cli/clgen
# Knobs: CONFIG (default: a 2x128 Transformer, context 256, written here),
# DEVICE (cpu), BATCH (64 streams), SECONDS (30 per run), BENCH_DIR, DIRS.
set -euo pipefail
cd "$(dirname "$0")/.."
CLGENS=("$@")
[ ${#CLGENS[@]} -gt 0 ] || CLGENS=(build/cli/clgen)
DEVICE=${DEVICE:-cpu}
BATCH=${BATCH:-64}
SECONDS_EACH=${SECONDS:-30}
OUT=${BENCH_DIR:-$(mktemp -d /tmp/clgen-bench-decode.XXXXXX)}
read -r -a DIRS <<< "${DIRS:-/usr/share/pocl-tests /usr/share/ufo}"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%FT%TZ)"
if [ -z "${CONFIG:-}" ]; then
  CONFIG=$OUT/decode-transformer.toml
  cat > "$CONFIG" <<'TOML'
[vocabulary]
type = "char"
[model]
type = "transformer"
layers = 2
width = 128
heads = 4
context = 256
dropout = 0.1
[training]
epochs = 1
batch_size = 16
optimizer = "adamw"
learning_rate = 0.003
weight_decay = 0.1
lr_schedule = "cosine"
warmup_steps = 10
gradient_clip = 1.0
seed = 1
validation_fraction = 0.1
max_tokens = 300000
max_file_chars = 5000
TOML
fi
if [ ! -d "$OUT/ws/models" ]; then
  python3 bench/model_make_workspace.py "$OUT/ws" "${DIRS[@]}"
  "${CLGENS[0]}" --workspace "$OUT/ws" -q train --config "$CONFIG" --device "$DEVICE" > "$OUT/train.log" 2>&1 ||
    { tail -5 "$OUT/train.log"; exit 1; }
fi
for clgen in "${CLGENS[@]}"; do
  rm -rf "$OUT/run" && mkdir -p "$OUT/run" && cp -r "$OUT/ws/clgen.db" "$OUT/ws/models" "$OUT/ws/vocabularies" "$OUT/run/"
  "$clgen" --workspace "$OUT/run" -q sample --config "$CONFIG" --checkpoint last --device "$DEVICE" \
    --batch-size "$BATCH" --temperature 0.8 --seed 7 --time-limit "$SECONDS_EACH" -n 0 --json \
    > "$OUT/decode.json" 2> "$OUT/decode.err" || { tail -5 "$OUT/decode.err"; exit 1; }
  python3 - "$clgen" "$OUT/decode.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[2]))
s = j["seconds"]
print(f"{sys.argv[1]}: {j['samples']} samples in {s:.1f} s = {j['samples'] / s:.1f} samples/s; "
      f"{j['tokens']} stream-steps = {j['tokens'] / s:.0f} tokens/s; model {j['model_seconds']:.1f} s, "
      f"draw {j['draw_seconds']:.1f} s; backtracks {j['backtracks']}, accepted {j['accepted']}")
PY
done
