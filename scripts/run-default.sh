#!/usr/bin/env bash
# The main job on the embedded default: installs dependencies, builds, and
# runs every pipeline stage that exists end to end in ./clgen-work.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# Only what the job runs: clgen and clgen-worker (clgen brings its Clang
# workers); scripts/test.sh builds the tests.
TARGETS="clgen clgen-worker" ./scripts/build.sh
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
  --args "float*,float*,float*,int" -n 10 --time-limit ${SAMPLE_SECONDS:-120} \
  --temperature 0.5  # configs/tiny.toml's [sampler] gives its kernels room: see docs/SAMPLER.md

echo "== clgen drive (accepted samples and a hand-written saxpy on the CPU device)"
"$CLGEN" --workspace "$WORKSPACE" drive --samples --device cpu --csv "$WORKSPACE/drive-samples.csv"
"$CLGEN" --workspace "$WORKSPACE" drive --device cpu --csv "$WORKSPACE/drive-handwritten.csv" \
  tests/data/driver/saxpy.cl

echo "== clgen sample --check cpu (sample and check at once: -n counts benchmark-grade kernels)"
"$CLGEN" --workspace "$WORKSPACE" sample --config configs/tiny.toml \
  --args "float*,float*,float*,int" -n 3 --time-limit ${SAMPLE_SECONDS:-120} \
  --temperature 0.5 --check cpu

# What the job made, where it is, and what to try next.
shopt -s nullglob
grade=("$WORKSPACE"/benchmark-grade/*/*.cl)
accepted=("$WORKSPACE"/samples/*/*.cl)
if [ ${#grade[@]} -gt 0 ]; then
  "$CLGEN" --workspace "$WORKSPACE" -q drive --device cpu --csv "$WORKSPACE/benchmark-grade.csv" "${grade[@]}" ||
    echo "driving the benchmark-grade kernels failed; their checks are in the workspace's runs table"
fi
echo
echo "== done"
echo "benchmark-grade kernels (compile, run, and write output that depends on their input): ${#grade[@]}"
echo "  files: $WORKSPACE/benchmark-grade/<model id>/*.cl; CPU runtimes: $WORKSPACE/benchmark-grade.csv"
echo "accepted (compiling, unique) kernels: ${#accepted[@]} in $WORKSPACE/samples/<model id>/"
echo "next: train on the GitHub snapshot (clgen corpus add <snapshot dir>; clgen corpus preprocess;"
echo "  clgen train --config configs/github.toml), then sample on a GPU:"
echo "  clgen sample --config configs/github.toml --device cuda --check gpu (docs/GPU-MACHINE.md)"
