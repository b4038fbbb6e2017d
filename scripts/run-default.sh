#!/usr/bin/env bash
# The main job on the embedded default: installs dependencies, builds, and
# runs every pipeline stage that exists end to end in ./clgen-work.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
CLGEN=${BUILD_DIR:-build}/cli/clgen
WORKSPACE=${WORKSPACE:-clgen-work}

echo "== clgen version --deps"
"$CLGEN" version --deps
echo "== clgen devices"
"$CLGEN" --workspace "$WORKSPACE" devices

if "$CLGEN" corpus --help > /dev/null 2>&1; then
  echo "== clgen corpus add --installed (the embedded default corpus)"
  ./scripts/fetch-darktable-kernels.sh "$WORKSPACE" || echo "darktable kernels not fetched; continuing without them"
  "$CLGEN" --workspace "$WORKSPACE" corpus add --installed
  echo "== clgen corpus stats"
  "$CLGEN" --workspace "$WORKSPACE" corpus stats
else
  echo "== corpus: component not built (libgit2/libcurl missing), skipped"
fi

echo "== clgen drive (hand-written kernels on the CPU device; sampled kernels come later)"
"$CLGEN" --workspace "$WORKSPACE" drive --device cpu --csv "$WORKSPACE/drive-handwritten.csv" \
  tests/data/driver/saxpy.cl tests/data/driver/writes_constant.cl tests/data/driver/writes_nothing.cl

echo "== clgen train (tiny model; resumes if interrupted)"
"$CLGEN" --workspace "$WORKSPACE" train --config configs/tiny.toml
echo "== clgen sample (tiny model, --args \"float*,float*,float*,int\")"
"$CLGEN" --workspace "$WORKSPACE" sample --config configs/tiny.toml \
  --args "float*,float*,float*,int" -n 10 --time-limit 300 --max-length 1500
