#!/usr/bin/env bash
# bench/gpu-experiment.sh with DRY_RUN=1: each experiment prints the commands its
# phases would run (the expected lines follow from the experiments' defaults,
# read off bench/gpu/NAME.sh), an unknown name is a usage error, and the dry run
# writes nothing into the checkout.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/bench/gpu-experiment.sh
fail=0
before=$(cd "$ROOT" && ls -a)

expect() {  # "ENV..." "ARGS" EXPECTED-SUBSTRING...: every substring appears in the dry run's output
  local env=$1 args=$2 out
  shift 2
  # shellcheck disable=SC2086  # ENV and ARGS are word lists
  out=$(env DRY_RUN=1 $env "$RUNNER" $args 2>&1)
  for want in "$@"; do
    if [[ $out != *"$want"* ]]; then
      echo "FAIL: DRY_RUN=1 $env bench/gpu-experiment.sh $args: no line with: $want"
      echo "$out" | head -40
      fail=1
    fi
  done
}

# pipeline: the build step, then configs/gpu.toml trained on CUDA for TRAIN_SECONDS (default 240).
expect "" "pipeline build train" "+ ./scripts/gpu-build.sh" \
  "+ timeout --foreground --signal=INT 240 build-gpu/cli/clgen --workspace gpu-work train --config configs/gpu.toml --device cuda"
# check: AFTER's first entry gpu:16:1 is sample --check gpu with 16 jobs and a 1 s time-out, seed 13.
expect "" "check after" "--seed 13 --time-limit 45 -n 0 --json --check gpu --check-jobs 16 --check-timeout 1"
# corpus-compare: NAMES "default github" train gpu.toml and github.toml in their own workspaces.
expect "TRAIN_SECONDS=60" "corpus-compare train" \
  "60 build-gpu/cli/clgen --workspace gpu-work/default train --config configs/gpu.toml" \
  "60 build-gpu/cli/clgen --workspace gpu-work/github train --config configs/github.toml"
# models: SAMPLES' second entry samples lstm-v2 (configs/github.toml) from its last checkpoint, free signature.
expect "" "models sample" \
  "--workspace gpu-work/s-lstm-v2-last -q sample --config configs/github.toml --checkpoint last --device cuda" \
  "sample --config configs/github-transformer.toml --checkpoint best"
# directed: sliced1 is bench/directed.sh 1 with MODE=sliced on the github workspace.
expect "" "directed sliced1" "MODE=sliced" "WORKSPACE=gpu-work/github" "bench/directed.sh 1"
# distributed: world size 1 runs clgen under torchrun with one process per node.
expect "WORLDS=1 PHASES=scaling" "distributed" "--standalone --nnodes 1 --nproc-per-node 1 --no-python" \
  "train --config gpu-work/dist/per-gpu-1.toml --device cuda --distributed --timeout 120"
# fuzz: a new bundle is unpacked into gpu-work/fuzz before the run.
expect "" "fuzz run fuzz_rewrite 10 2" "+ tar -C gpu-work/fuzz -xf -" "gpu-fuzz: fuzz_rewrite:"
# wgsize: the export phase writes the wgsize dataset into its results folder.
expect "" "wgsize export" "dataset export --task wgsize --out gpu-work/wgsize-results/wgsize.csv"
# wgsize arms: one checked sampling run per steering, the directed ones with their flags.
expect "CONFIG=configs/github-transformer.toml" "wgsize arms" \
  "sample --config configs/github-transformer.toml --device cuda" \
  "--check gpu --check-jobs 16 --check-timeout 1 --target-features .wsmin/wgsize-targets.csv" \
  "--check-timeout 1 --explore"
# realism: the v3 model trained, then each arm sampled on its own workspace copy with the arm's flags.
expect "TRAIN_SECONDS=90" "realism train arms" \
  "90 build-gpu/cli/clgen --workspace gpu-work/v3 train --config configs/github-transformer.toml --device cuda" \
  "--workspace gpu-work/arms/text-free-10 -q sample --config configs/github-transformer.toml --device cuda" \
  "--json --begin text --no-constrain --temperature 1.0"
# list names every experiment.
expect "" "list" "pipeline " "workspace "

env DRY_RUN=1 "$RUNNER" no-such-experiment > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: an unknown experiment exited $rc, not 2"; fail=1; }
after=$(cd "$ROOT" && ls -a)
[ "$before" = "$after" ] || { echo "FAIL: the dry runs changed the checkout's top level:"; diff <(echo "$before") <(echo "$after"); fail=1; }
[ $fail -eq 0 ] && echo "gpu-experiment dry runs: ok"
exit $fail
