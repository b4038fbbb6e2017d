#!/usr/bin/env bash
# Benchmark: `clgen sample`'s filter (strict rewrite + usefulness check) in
# this process (--clang-in-process) and in budgeted clgen-clang-workers (the
# default), alternating in one run, over a fixed set of kernel files:
# kernels filtered per second, the median of ROUNDS runs of each, and the
# slowest single kernel (what --clang-time-limit's default must exceed), and
# the CPU seconds per kernel (the workers' included), which the load of other
# processes on the machine disturbs less than the wall clock.
# Usage: bench/sample_filter.sh [ROUNDS] [THREADS] [DIR...]
#   THREADS: filter threads, each with its own worker (default 1: `clgen
#   sample`'s cores - 1 on 2 cores); DIR...: where the .cl files are (default
#   tests/data without its macro bombs, /usr/share/pocl-tests, /usr/share/ufo).
# REPEAT=N filters the set N times per run (a worker's start, tens of
# milliseconds, then weighs less, as in a long `clgen sample`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
THREADS=${2:-1}
shift $(($# < 2 ? $# : 2))
BENCH=${BENCH:-build/tests/sample_filter_bench}
DIRS=("$@")
[ ${#DIRS[@]} -gt 0 ] || DIRS=(tests/data /usr/share/pocl-tests /usr/share/ufo)
mapfile -t FILES < <(find "${DIRS[@]}" -name '*.cl' -not -path '*/budget/*' 2>/dev/null | LC_ALL=C sort)
REPEAT=${REPEAT:-1}
SET=()
for ((r = 0; r < REPEAT; r++)); do SET+=("${FILES[@]}"); done
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel files: ${#FILES[@]} (sha256 of the list and texts: $(cat "${FILES[@]}" | sha256sum | cut -c1-16)); threads: $THREADS; each filtered $REPEAT time(s) per run"
OUT=$(mktemp)
trap 'rm -f "$OUT" "$OUT.run"' EXIT
for ((i = 0; i < ROUNDS; i++)); do
  for mode in in-process isolated; do
    "$BENCH" "$mode" "$THREADS" "${SET[@]}" >"$OUT.run"
    head -1 "$OUT.run"
    cat "$OUT.run" >>"$OUT"
  done
done
python3 - "$OUT" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) threads=\d+ kernels=(\d+) seconds=\S+ kernels_per_second=(\S+) "
                 r"slowest_kernel_seconds=(\S+) cpu_seconds=(\S+)", line)
    if m:
        n = int(m.group(2))
        runs.setdefault(m.group(1), []).append((float(m.group(3)), float(m.group(4)), 1000 * float(m.group(5)) / n))
med = {mode: statistics.median(r[0] for r in rs) for mode, rs in runs.items()}
cpu = {mode: statistics.median(r[2] for r in rs) for mode, rs in runs.items()}
for mode, rs in runs.items():
    print(f"{mode}: median {med[mode]:.1f} kernels/s over {len(rs)} runs "
          f"({', '.join(f'{r[0]:.1f}' for r in rs)}); slowest kernel {max(r[1] for r in rs):.2f} s; "
          f"median CPU {cpu[mode]:.2f} ms per kernel")
if "in-process" in med and "isolated" in med:
    print(f"isolated / in-process: throughput {med['isolated'] / med['in-process']:.3f}, "
          f"CPU per kernel {cpu['isolated'] / cpu['in-process']:.3f}")
PY
grep '^  ' "$OUT.run" | sed 's/^  /verdicts: /'
# Both modes must give the same verdict counts.
grep '^  ' "$OUT" | sort | uniq -c | awk -v r="$ROUNDS" '$1 != 2 * r { bad = 1; print "verdicts differ: " $0 } END { exit bad }'
