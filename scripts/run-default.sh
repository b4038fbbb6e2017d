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
echo "== clgen train (tiny model; resumes if interrupted)"
"$CLGEN" --workspace "$WORKSPACE" train --config configs/tiny.toml
echo "== clgen sample (tiny model, --args \"float*,float*,float*,int\")"
"$CLGEN" --workspace "$WORKSPACE" sample --config configs/tiny.toml \
  --args "float*,float*,float*,int" -n 10 --time-limit 300 --max-length 1500
