#!/usr/bin/env bash
# The main job: installs dependencies, builds clgen, adds and preprocesses the
# embedded default corpus, installs the model shipped in model/default/, and
# samples with the dynamic checker until it has benchmark-grade kernels
# (compile, run, and write output that depends on their input), whose CPU
# runtimes it writes to a CSV. Everything goes to $WORKSPACE (./clgen-work).
#
#   TRAIN=1     train configs/default.toml here instead of installing the shipped model
#   QUICK=1     smaller limits (CI): 1 benchmark-grade kernel, at most 90 s of sampling
#   CLGEN=PATH  use this built clgen: no install, no build
#   GRADE_N=N, SAMPLE_SECONDS=S   the sampling phase's target and time limit
set -euo pipefail
cd "$(dirname "$0")/.."
WORKSPACE=${WORKSPACE:-clgen-work}
if [ "${QUICK:-0}" = 1 ]; then
  GRADE_N=${GRADE_N:-1}
  SAMPLE_SECONDS=${SAMPLE_SECONDS:-90}
else
  GRADE_N=${GRADE_N:-20}
  SAMPLE_SECONDS=${SAMPLE_SECONDS:-480}
fi
phases=()
phase_start=$SECONDS
# Ends the running phase: records its name and seconds for the closing note.
end_phase() {
  phases+=("$(printf '%-28s %4d s' "$1" $((SECONDS - phase_start)))")
  echo "-- $1: $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}

if [ -z "${CLGEN:-}" ]; then
  echo "== install dependencies (scripts/install-deps.sh)"
  ./scripts/install-deps.sh
  end_phase "install dependencies"
  echo "== build clgen and clgen-worker (scripts/test.sh builds the tests)"
  TARGETS="clgen clgen-worker" ./scripts/build.sh
  end_phase "build"
  CLGEN=${BUILD_DIR:-build}/cli/clgen
fi
clgen() { "$CLGEN" --workspace "$WORKSPACE" "$@"; }

echo "== clgen version --deps; clgen devices"
"$CLGEN" version --deps
clgen devices
echo "== clgen corpus add --installed; clgen corpus preprocess (the embedded default corpus)"
# The sampler tells new kernels from copies of the corpus the model learned from.
if [ "${TRAIN:-0}" = 1 ]; then
  ./scripts/fetch-darktable-kernels.sh "$WORKSPACE" || echo "darktable kernels not fetched; continuing without them"
fi
clgen corpus add --installed
clgen corpus preprocess
clgen corpus stats
end_phase "corpus"

if [ "${TRAIN:-0}" != 1 ] && [ ! -f model/default/package.json ]; then
  echo "model/default holds no model package: training configs/default.toml here (as TRAIN=1)"
  TRAIN=1
fi
if [ "${TRAIN:-0}" = 1 ]; then
  echo "== clgen train --config configs/default.toml (resumes if interrupted)"
  clgen train --config configs/default.toml
  end_phase "train"
else
  echo "== clgen model install model/default (the shipped model; TRAIN=1 trains it here instead)"
  clgen model install model/default
  end_phase "install model"
fi

echo "== clgen sample --check cpu (-n counts benchmark-grade kernels; stops at $GRADE_N or after $SAMPLE_SECONDS s)"
# The latest model: the one just installed or trained. A fresh seed per run,
# so a second run makes new draws. The sampler's defaults: whole texts at
# temperature 1 (the model's own distribution), no refusal limit, names
# taken back after a refusal (docs/SAMPLER.md).
clgen sample -n "$GRADE_N" --time-limit "$SAMPLE_SECONDS" --check cpu \
  ${TEMPERATURE:+--temperature "$TEMPERATURE"} --max-length 1500
end_phase "sample and check"

model_id=$(tr -d '\n' <"$WORKSPACE/models/latest")
grade_dir="$WORKSPACE/benchmark-grade/$model_id"
shopt -s nullglob
grade=("$grade_dir"/*.cl)
if [ ${#grade[@]} -gt 0 ]; then
  echo "== clgen drive (the benchmark-grade kernels' runtimes on the CPU device)"
  clgen -q drive --device cpu --csv "$WORKSPACE/benchmark-grade.csv" "${grade[@]}" ||
    echo "driving the benchmark-grade kernels failed; their checks are in the workspace's runs table"
  end_phase "drive"
fi

echo
echo "== done in $SECONDS s"
printf '  %s\n' "${phases[@]}"
echo "benchmark-grade kernels (compile, run, and write output that depends on their input): ${#grade[@]}"
echo "  files: $grade_dir/*.cl"
[ ${#grade[@]} -gt 0 ] && echo "  CPU runtimes: $WORKSPACE/benchmark-grade.csv"
echo "next: train on the GitHub snapshot (clgen corpus add <snapshot dir>; clgen corpus preprocess;"
echo "  clgen train --config configs/github.toml), then sample on a GPU:"
echo "  clgen sample --config configs/github.toml --device cuda --check gpu (docs/GPU-MACHINE.md)"
[ ${#grade[@]} -gt 0 ]
