#!/usr/bin/env bash
# Benchmark: files/s of clgen's in-process filter + rewriter against the
# equivalent per-file subprocess chain (clang-15 to LLVM IR, clang-15 -E,
# clang-format-15), both serial, on the same files in the same run.
# Usage: [WORKSPACE=dir | DIRS="dir..."] bench/preprocess.sh [CLGEN_BINARY] [MAX_FILES]   (default: build/cli/clgen, 400)
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${1:-build/cli/clgen}
MAX=${2:-400}
RES=/usr/lib/llvm-15/lib/clang/15.0.6
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The corpus: with WORKSPACE=dir, the content files stored in dir/clgen.db
# (e.g. the default corpus of `clgen corpus add --installed`, includes
# inlined), written out one file each; otherwise the *.cl files under DIRS.
# Every k-th file of the sorted list, so the sample spans all sources.
if [[ -n "${WORKSPACE:-}" ]]; then
  mkdir "$WORK/corpus"
  sqlite3 "$WORKSPACE/clgen.db" "SELECT writefile('$WORK/corpus/' || sha256 || '.cl', text) FROM content_files" > /dev/null
  DIRS="$WORK/corpus"
fi
DIRS=${DIRS:-/usr/share/pocl-tests /usr/share/ufo /usr/share/hashcat/OpenCL}
# shellcheck disable=SC2086
find $DIRS -name '*.cl' -size -1024k | sort > "$WORK/all"
TOTAL=$(wc -l < "$WORK/all")
STEP=$(( TOTAL > MAX ? (TOTAL + MAX - 1) / MAX : 1 ))
awk -v s="$STEP" 'NR % s == 0' "$WORK/all" > "$WORK/files"
N=$(wc -l < "$WORK/files")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "files: $N of $TOTAL (every ${STEP}th)"

TIMEFORMAT='%R %U %S'  # wall, user, sys of the timed command and its children

# JOBS=N (default 1) runs both sides on N shards of the files at once
# (round-robin split, N processes each side), e.g. JOBS=$(nproc).
JOBS=${JOBS:-1}
for ((j = 0; j < JOBS; j++)); do
  awk -v n="$JOBS" -v j="$j" '(NR - 1) % n == j' "$WORK/files" > "$WORK/shard$j"
done
echo "jobs: $JOBS per side"

# 1. In-process: one clgen process per shard, one thread, every file
#    through expand -> rename -> format -> compile (and the input's own
#    compile when a pass fails).
inproc() {
  for ((j = 0; j < JOBS; j++)); do
    xargs -a "$WORK/shard$j" -d '\n' "$CLGEN" -q preprocess --check > "$WORK/inproc$j.txt" 2>/dev/null &
  done
  wait
}

# 2. Subprocess chain per file, as CLgen ran it (there is no stand-alone
#    rename tool to call, so the chain does less work than clgen does).
STYLE='{BasedOnStyle: Google, IndentWidth: 2, PointerAlignment: Left, DerivePointerAlignment: false, AllowShortBlocksOnASingleLine: Never, AllowShortFunctionsOnASingleLine: None, AllowShortIfStatementsOnASingleLine: Never, AllowShortLoopsOnASingleLine: false, ColumnLimit: 5000}'
CL=(clang-15 -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header
    -Xclang -fdeclare-opencl-builtins -w)
chain() {  # shard number
  local j=$1
  while IFS= read -r f; do
    if "${CL[@]}" -O0 -emit-llvm -c -o "$WORK/out$j.bc" "$f" 2>/dev/null; then
      "${CL[@]}" -E -P "$f" -o "$WORK/pp$j.cl" 2>/dev/null &&
        clang-format-15 --style="$STYLE" --assume-filename=x.cpp < "$WORK/pp$j.cl" > "$WORK/fmt$j.cl" &&
        echo ok
    fi
  done < "$WORK/shard$j" > "$WORK/sub$j.txt"
}
subproc() {
  for ((j = 0; j < JOBS; j++)); do chain "$j" & done
  wait
}

{ time inproc; } 2> "$WORK/t_in"
{ time subproc; } 2> "$WORK/t_sub"
IN_OK=$(cat "$WORK"/inproc*.txt | grep -c ': ok ' || true)
SUB_OK=$(cat "$WORK"/sub*.txt | grep -c '^ok' || true)

# clgen's own start-up (loading ~300 shared libraries, LibTorch's static
# registration), paid once per in-process shard: `clgen --help`, which
# preprocesses nothing. Reported beside the ratio, never subtracted from it.
{ time "$CLGEN" --help > /dev/null; } 2> "$WORK/t_start"
read -r wst ust sst < "$WORK/t_start"

read -r wi ui si < "$WORK/t_in"
read -r ws us ss < "$WORK/t_sub"
awk -v n="$N" -v wi="$wi" -v ui="$ui" -v si="$si" -v ws="$ws" -v us="$us" -v ss="$ss" \
    -v io="$IN_OK" -v so="$SUB_OK" -v j="$JOBS" -v st="$ust" -v ss0="$sst" 'BEGIN {
  ci = ui + si; cs = us + ss;
  printf "in-process  : wall %6.2f s %7.1f files/s | cpu %6.2f s %7.1f files/cpu-s (%d accepted)\n", wi, n / wi, ci, n / ci, io;
  printf "subprocesses: wall %6.2f s %7.1f files/s | cpu %6.2f s %7.1f files/cpu-s (%d accepted)\n", ws, n / ws, cs, n / cs, so;
  printf "ratio       : wall %.1fx, cpu %.1fx\n", ws / wi, cs / ci;
  s = j * (st + ss0);
  printf "clgen start-up: cpu %.2f s per process; cpu ratio without it: %.1fx\n", st + ss0, cs / (ci - s);
}'
