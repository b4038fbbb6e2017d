#!/usr/bin/env bash
# CPU training throughput and quality of `clgen train`: builds a workspace from
# installed OpenCL files (raw, not normalized), trains CONFIG on it with the
# char and a SentencePiece vocabulary, and prints per-epoch metrics (tokens/s,
# validation loss and perplexity) from the workspace database.
#   bench/model_train.sh [CONFIG] [DIR...]
# Defaults: configs/tiny.toml; /usr/share/pocl-tests /usr/share/ufo.
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${CLGEN:-build/cli/clgen}
PYTHON=${PYTHON:-/usr/bin/python3}  # Debian's python3-torch
BASELINE_BATCHES=${BASELINE_BATCHES:-100}
CONFIG=${1:-configs/tiny.toml}
shift || true
DIRS=("$@")
[ ${#DIRS[@]} -gt 0 ] || DIRS=(/usr/share/pocl-tests /usr/share/ufo)
OUT=${BENCH_DIR:-$(mktemp -d /tmp/clgen-bench-model.XXXXXX)}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%FT%TZ)"
python3 bench/model_make_workspace.py "$OUT/ws" "${DIRS[@]}"

run() {  # name config
  local name=$1 config=$2
  echo "== $name ($config)"
  /usr/bin/time -f "wall %e s, user %U s, sys %S s, max RSS %M KiB" "$CLGEN" --workspace "$OUT/ws" train \
    --config "$config" --device cpu 2>&1 | grep -v '^epoch [0-9]*/[0-9]* [0-9]' || true
}

run char "$CONFIG"
# The same network, batches and optimizer through PyTorch's Python API (same
# LibTorch underneath on Debian), timed right after on the same token file.
echo "== PyTorch Python baseline (char model, $BASELINE_BATCHES batches after 5 warm-up)"
"$PYTHON" bench/model_train_baseline.py --config "$CONFIG" --workspace "$OUT/ws" --device cpu \
  --max-batches "$BASELINE_BATCHES"
# The same network over a SentencePiece unigram vocabulary of 500 pieces.
sed -e 's/^type = "char"/type = "sentencepiece"\nalgorithm = "unigram"\nsize = 500/' "$CONFIG" > "$OUT/sp.toml"
run sentencepiece "$OUT/sp.toml"

echo "== per-epoch metrics"
python3 - "$OUT/ws/clgen.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = """SELECT r.vocabulary, m.epoch, m.train_loss, m.valid_loss, m.valid_perplexity,
       m.tokens_per_second, m.seconds FROM training_metrics m
       JOIN training_runs r ON r.id = m.run_id ORDER BY r.id, m.epoch"""
print(f"{'vocab':14} {'epoch':>5} {'train':>7} {'valid':>7} {'ppl':>8} {'tok/s':>9} {'s':>7}")
for v, e, t, vl, p, tps, s in db.execute(q):
    print(f"{v:14} {e:5d} {t:7.4f} {vl or float('nan'):7.4f} {p or float('nan'):8.3f} {tps:9.0f} {s:7.1f}")
PY
echo "workspace: $OUT/ws"
