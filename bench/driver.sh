#!/usr/bin/env bash
# Benchmark of `clgen drive`: kernels per second through the full dynamic
# check (4 executions) plus 10 profiled runs at global size 4096, on one
# OpenCL device (default: PoCL's CPU device). Baseline in the same run: one
# `clgen drive` process per kernel file (a fresh worker and OpenCL start-up
# per kernel) against one process over all files (one reused worker).
# Every file is driven as VARIANTS distinct sources (a comment appended), so
# each is a new kernel to PoCL as sampled kernels are; PoCL's kernel cache is
# off (POCL_KERNEL_CACHE=0), so every build is a cold compile in both variants.
# Usage: bench/driver.sh [DEVICE]   (env CLGEN=path/to/clgen, REPEAT=N, VARIANTS=N)
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${CLGEN:-build/cli/clgen}
DEVICE=${1:-cpu}
REPEAT=${REPEAT:-3}
VARIANTS=${VARIANTS:-4}
export POCL_KERNEL_CACHE=0
# The hand-written kernels that run to completion (no hang, no crash): every
# worker is then reused, so the number measures the driver, not restarts.
FILES=(tests/data/driver/saxpy.cl tests/data/driver/writes_nothing.cl
       tests/data/driver/writes_constant.cl tests/data/driver/race.cl
       tests/data/driver/two_kernels.cl tests/data/driver/args_mix.cl
       tests/data/driver/matmul_2d.cl tests/data/driver/struct_arg.cl
       tests/data/driver/compile_error.cl)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
ALL=()
FIRST=()  # variant 1 of each file, for the baseline
for f in "${FILES[@]}"; do
  FIRST+=("$SCRATCH/src/$(basename "$f" .cl)-1.cl")
  for v in $(seq "$VARIANTS"); do
    out="$SCRATCH/src/$(basename "$f" .cl)-$v.cl"
    mkdir -p "$SCRATCH/src"
    { cat "$f"; echo "// variant $v"; } > "$out"
    ALL+=("$out")
  done
done
now() { date +%s.%N; }
# SQL through python3's sqlite3 module: the GPU machine has no sqlite3 shell.
sql() { python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join(map(str, r)))' "$1" "$2"; }
count_runs() { sql "$1/clgen.db" "SELECT COUNT(*) FROM runs"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$CLGEN" devices | grep -i "device" | head -4

for i in $(seq "$REPEAT"); do
  ws="$SCRATCH/one-$i"
  t0=$(now)
  "$CLGEN" -q --workspace "$ws" drive --device "$DEVICE" --gsize 4096 --runs 10 "${ALL[@]}" >/dev/null
  t1=$(now)
  n=$(count_runs "$ws")
  ws="$SCRATCH/per-$i"
  t2=$(now)
  for f in "${FIRST[@]}"; do
    "$CLGEN" -q --workspace "$ws" drive --device "$DEVICE" --gsize 4096 --runs 10 "$f" >/dev/null
  done
  t3=$(now)
  m=$(count_runs "$ws")
  python3 - "$n" "$t0" "$t1" "$m" "$t2" "$t3" <<'PY'
import sys
n, t0, t1, m, t2, t3 = int(sys.argv[1]), *map(float, sys.argv[2:4]), int(sys.argv[4]), *map(float, sys.argv[5:7])
one, per = n / (t1 - t0), m / (t3 - t2)
print(f"one process, reused worker: {n} kernels in {t1 - t0:.2f} s = {one:.2f} kernels/s; "
      f"process per kernel file: {m} kernels in {t3 - t2:.2f} s = {per:.2f} kernels/s; "
      f"ratio {one / per:.2f}x")
PY
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
sql "$SCRATCH/one-1/clgen.db" "SELECT outcome, COUNT(*) FROM runs GROUP BY outcome ORDER BY 2 DESC"
