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

echo "== clgen corpus add --installed (the embedded default corpus)"
./scripts/fetch-darktable-kernels.sh "$WORKSPACE" || echo "darktable kernels not fetched; continuing without them"
"$CLGEN" --workspace "$WORKSPACE" corpus add --installed
echo "== clgen corpus preprocess (compile filter + rewriter, all cores, resumable)"
"$CLGEN" --workspace "$WORKSPACE" corpus preprocess
echo "== clgen corpus stats"
"$CLGEN" --workspace "$WORKSPACE" corpus stats

echo "== clgen train (tiny model; resumes if interrupted)"
"$CLGEN" --workspace "$WORKSPACE" train --config configs/tiny.toml

echo "== clgen sample (tiny model, --args \"float*,float*,float*,int\")"
"$CLGEN" --workspace "$WORKSPACE" sample --config configs/tiny.toml \
  --args "float*,float*,float*,int" -n 10 --time-limit ${SAMPLE_SECONDS:-120} --max-length 1500 \
  --temperature 0.5 --max-refusals 32  # the tiny model's kernels need room: see docs/SAMPLER.md

echo "== clgen drive (accepted samples and a hand-written saxpy on the CPU device)"
"$CLGEN" --workspace "$WORKSPACE" drive --samples --device cpu --csv "$WORKSPACE/drive-samples.csv"
"$CLGEN" --workspace "$WORKSPACE" drive --device cpu --csv "$WORKSPACE/drive-handwritten.csv" \
  tests/data/driver/saxpy.cl

echo "== clgen sample --check cpu (sample and check at once: -n counts benchmark-grade kernels)"
"$CLGEN" --workspace "$WORKSPACE" sample --config configs/tiny.toml \
  --args "float*,float*,float*,int" -n 3 --time-limit ${SAMPLE_SECONDS:-120} --max-length 1500 \
  --temperature 0.5 --max-refusals 32 --check cpu
echo "benchmark-grade kernels (compile, run, and write output that depends on their input):"
echo "  $WORKSPACE/benchmark-grade/<model id>/*.cl; their runs are in the workspace's runs table"
