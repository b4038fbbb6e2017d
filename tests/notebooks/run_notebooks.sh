#!/usr/bin/env bash
# Executes every notebook headless on the small test data; PNGs go to a temp
# dir. Exits 77 (skipped) with a message when Debian's jupyter stack is absent.
set -euo pipefail
src=${1:?usage: run_notebooks.sh SOURCE_DIR}
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
for png in mapping-accuracy mapping-speedup wgsize-oracle wgsize-models features-pca; do
  test -s "$out/png/$png.png" || { echo "missing $png.png"; exit 1; }
done
echo "all notebooks ran; 5 plots written"
