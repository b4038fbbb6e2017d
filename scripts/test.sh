#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs every test.
# GPU-only tests skip themselves, with a reason, where no GPU exists.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600
