#!/usr/bin/env bash
# Benchmark: files/s of clgen's in-process filter + rewriter against the
# equivalent per-file subprocess chain (clang-15 to LLVM IR, clang-15 -E,
# clang-format-15), both serial, on the same files in the same run.
# Usage: bench/preprocess.sh [CLGEN_BINARY] [MAX_FILES]   (default: build/cli/clgen, 400)
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${1:-build/cli/clgen}
MAX=${2:-400}
RES=/usr/lib/llvm-15/lib/clang/15.0.6
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The default corpus: the kernels Debian installs. Every k-th file of the
# sorted list, so the sample spans all three sets.
find /usr/share/pocl-tests /usr/share/ufo /usr/share/hashcat/OpenCL -name '*.cl' -size -1024k | sort > "$WORK/all"
TOTAL=$(wc -l < "$WORK/all")
STEP=$(( TOTAL > MAX ? (TOTAL + MAX - 1) / MAX : 1 ))
awk -v s="$STEP" 'NR % s == 0' "$WORK/all" > "$WORK/files"
N=$(wc -l < "$WORK/files")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "files: $N of $TOTAL (every ${STEP}th)"

now() { date +%s.%N; }

# 1. In-process: one clgen process, one thread, every file through
#    compile -> expand -> rename -> format -> compile again.
t0=$(now)
xargs -a "$WORK/files" -d '\n' "$CLGEN" -q preprocess --check > "$WORK/inproc.txt" 2>/dev/null || true
t1=$(now)
IN_OK=$(grep -c ': ok ' "$WORK/inproc.txt" || true)

# 2. Subprocess chain per file, as CLgen ran it.
STYLE='{BasedOnStyle: Google, IndentWidth: 2, PointerAlignment: Left, DerivePointerAlignment: false, AllowShortBlocksOnASingleLine: Never, AllowShortFunctionsOnASingleLine: None, AllowShortIfStatementsOnASingleLine: Never, AllowShortLoopsOnASingleLine: false, ColumnLimit: 5000}'
CL=(clang-15 -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header
    -Xclang -fdeclare-opencl-builtins -w)
t2=$(now)
SUB_OK=0
while IFS= read -r f; do
  if "${CL[@]}" -O1 -emit-llvm -c -o "$WORK/out.bc" "$f" 2>/dev/null; then
    "${CL[@]}" -E -P "$f" -o "$WORK/pp.cl" 2>/dev/null &&
      clang-format-15 --style="$STYLE" --assume-filename=x.cpp < "$WORK/pp.cl" > "$WORK/fmt.cl" &&
      SUB_OK=$((SUB_OK + 1))
  fi
done < "$WORK/files"
t3=$(now)

awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v io="$IN_OK" -v so="$SUB_OK" 'BEGIN {
  ti = b - a; ts = d - c;
  printf "in-process  : %6.2f s  %7.1f files/s  (%d accepted)\n", ti, n / ti, io;
  printf "subprocesses: %6.2f s  %7.1f files/s  (%d accepted)\n", ts, n / ts, so;
  printf "ratio       : %.1fx\n", ts / ti;
}'
