#!/usr/bin/env bash
# Reproduces docs/BENCHMARKS.md, "Predictive models": every mapping model on both platforms
# under both protocols, and every workgroup-size model, on the published data.
# Usage: bench/predict.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, docs/data)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-docs/data}
mkdir -p "$out"
clgen="$build/cli/clgen"
data=tests/data
echo "machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%dT%H:%MZ)"
for p in amd nvidia; do
  echo "== mapping, $p"
  /usr/bin/time -f "   %e s wall" "$clgen" predict eval --task mapping --data "$data/devmap/$p.csv" \
    --folds "$data/devmap/folds-$p.csv" --model all --out "$out/mapping-$p.csv"
done
echo "== workgroup size"
/usr/bin/time -f "   %e s wall" "$clgen" predict eval --task wgsize --data "$data/wgsize/runtimes.csv" \
  --model all --split scenario --out "$out/wgsize-models.csv"  # ADAPT'16's protocol (the default groups by kernel)
