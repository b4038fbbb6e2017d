#!/usr/bin/env bash
# Regenerates the end-to-end results figures from a mapping dataset: the
# leave-one-group-out predictions of the Grewe and best models trained on the real
# rows and on real + synthetic rows (DATASET_DIR/STEM.lobo-MODEL-{real,all}.csv,
# by clgen), the table docs/data/results-models.csv and docs/results-*.png (by
# notebooks/results.ipynb).
#   scripts/results-plots.sh [DATASET.csv]   # default docs/data/mapping-xeon-h200.csv
# CLGEN_BIN names the clgen binary (default build/cli/clgen).
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-docs/data/mapping-xeon-h200.csv}
clgen=${CLGEN_BIN:-build/cli/clgen}
[ -f "$dataset" ] || { echo "results-plots: no dataset $dataset" >&2; exit 1; }
[ -x "$clgen" ] || {
  echo "results-plots: no clgen binary at $clgen (./scripts/build.sh, or set CLGEN_BIN)" >&2
  exit 1
}
export PATH="/usr/bin:$PATH"  # Debian's python3 and jupyter
command -v jupyter-nbconvert >/dev/null || {
  echo "results-plots: jupyter-nbconvert missing (apt-get install jupyter-nbconvert python3-ipykernel)" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CLGEN_BIN="$(realpath "$clgen")"
export CLGEN_RESULTS_DATASET="$(realpath "$dataset")"
export CLGEN_RESULTS_RECOMPUTE=1  # predictions always from this clgen and this dataset
export CLGEN_NOTEBOOK_OUT="$PWD/docs"
export MPLCONFIGDIR="$tmp/mpl"
jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 \
  --output-dir "$tmp" notebooks/results.ipynb 2>"$tmp/log" || { tail -n 20 "$tmp/log" >&2; exit 1; }
echo "predictions: $(dirname "$dataset")/$(basename "$dataset" .csv).lobo-*.csv"
echo "figures: docs/results-runtimes.png docs/results-models.png docs/results-features.png"
echo "models on the real rows (docs/data/results-models.csv):"
column -s, -t docs/data/results-models.csv 2>/dev/null || cat docs/data/results-models.csv
