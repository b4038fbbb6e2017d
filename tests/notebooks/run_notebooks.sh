#!/usr/bin/env bash
# Executes every notebook headless on the small test data; PNGs go to a temp
# dir. Exits 77 (skipped) with a message when Debian's jupyter stack is absent.
# With a clgen binary as second argument, results.ipynb also computes its
# prediction CSVs itself (CLGEN_BIN) into an empty directory.
set -euo pipefail
src=${1:?usage: run_notebooks.sh SOURCE_DIR [CLGEN_BIN]}
clgen=${2:-}
python=/usr/bin/python3
if ! command -v jupyter-nbconvert >/dev/null 2>&1 ||
   ! "$python" -c "import pandas, matplotlib, sklearn, nbformat, ipykernel" 2>/dev/null; then
  echo "SKIPPED: jupyter-nbconvert, pandas, matplotlib, scikit-learn or ipykernel missing" \
       "(apt-get install jupyter-nbconvert python3-pandas python3-matplotlib python3-sklearn python3-ipykernel)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export CLGEN_NOTEBOOK_DATA="$src/tests/data/notebooks"
export CLGEN_NOTEBOOK_OUT="$out/png"
export CLGEN_WGSIZE_TABLE="$src/tests/data/wgsize/runtimes.csv"
export CLGEN_MAPPING_TABLE="$src/tests/data/devmap/amd.csv"
export MPLCONFIGDIR="$out/mpl"
# Debian's kernel, not whatever python3 is first on PATH.
export PATH="/usr/bin:$PATH"
for nb in "$src"/notebooks/*.ipynb; do
  echo "executing $(basename "$nb")"
  jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=120 \
    --output-dir "$out/nb" "$nb" >/dev/null 2>"$out/log" || { cat "$out/log"; exit 1; }
done
pngs="mapping-accuracy mapping-speedup wgsize-oracle wgsize-models features-pca
      results-runtimes results-models results-features synthetic-gain learning-curves
      learning-curves-wgsize learning-curves-arms"
for png in $pngs; do
  test -s "$out/png/$png.png" || { echo "missing $png.png"; exit 1; }
done
test -s "$out/png/data/results-models.csv" || { echo "missing data/results-models.csv"; exit 1; }
echo "all notebooks ran; $(echo $pngs | wc -w) plots written"

# results.ipynb without its prediction CSVs: a clear error without CLGEN_BIN,
# the four CSVs computed by clgen with it.
preds="$out/preds"
mkdir -p "$preds"
if CLGEN_RESULTS_PREDS="$preds" CLGEN_BIN= jupyter-nbconvert --to notebook --execute \
     --ExecutePreprocessor.timeout=120 --output-dir "$out/nb" "$src/notebooks/results.ipynb" \
     >/dev/null 2>"$out/log"; then
  echo "results.ipynb ran without its prediction CSVs and without CLGEN_BIN"; exit 1
fi
grep -q "missing. Set CLGEN_BIN" "$out/log" || { cat "$out/log"; echo "no clear error"; exit 1; }
echo "results.ipynb without predictions: clear error"
if [ -n "$clgen" ]; then
  CLGEN_RESULTS_PREDS="$preds" CLGEN_BIN="$clgen" jupyter-nbconvert --to notebook --execute \
    --ExecutePreprocessor.timeout=120 --output-dir "$out/nb" "$src/notebooks/results.ipynb" \
    >/dev/null 2>"$out/log" || { cat "$out/log"; exit 1; }
  for model in grewe best; do
    for training in real all; do
      f="$preds/mapping-xeon-h200.lobo-$model-$training.csv"
      cmp -s <(cut -d, -f1,2 "$f") <(cut -d, -f1,2 "$CLGEN_NOTEBOOK_DATA/$(basename "$f")") ||
        { echo "$f: missing or its rows differ from the test data's"; exit 1; }
    done
  done
  echo "results.ipynb computed its predictions with $clgen"
fi
