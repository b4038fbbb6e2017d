#!/usr/bin/env bash
# Benchmark: `clgen corpus preprocess -j 2` with its Clang work in budgeted
# workers (the default), in-process (--clang-in-process), and with a baseline
# binary, alternating in one run, each on a fresh copy of a workspace's
# content files; prints wall/user/sys per run (workers' CPU included: they are
# reaped children) and checks that all runs stored the same rows.
# Usage: bench/preprocess_budget.sh DB [BASELINE_CLGEN] [ROUNDS]
#   DB: a clgen.db holding content_files, e.g. of `clgen corpus add --installed`
#   BASELINE_CLGEN: a clgen built before the budget (optional)
set -euo pipefail
cd "$(dirname "$0")/.."
DB=$1
BASE=${2:-}
ROUNDS=${3:-5}
CLGEN=${CLGEN:-build/cli/clgen}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
sqlite3 "$DB" ".backup '$WORK/source.db'"
sqlite3 "$WORK/source.db" "DROP TABLE IF EXISTS preprocessed"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
echo "files: $(sqlite3 "$WORK/source.db" 'SELECT COUNT(*) FROM content_files')"

# run LABEL BINARY [FLAGS...]: one timed run in a fresh workspace.
run() {
  local label=$1 bin=$2
  shift 2
  rm -rf "$WORK/$label"
  mkdir "$WORK/$label"
  cp "$WORK/source.db" "$WORK/$label/clgen.db"
  /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$bin" -q --workspace "$WORK/$label" corpus preprocess -j 2 "$@" \
    > /dev/null 2>&1
  echo "$label $(cat "$WORK/time")" | tee -a "$WORK/times"
  sqlite3 "$WORK/$label/clgen.db" "SELECT content_sha256, kernel, status, category, reason, normalized_sha256, \
    instruction_count, inferred, language FROM preprocessed ORDER BY 1, 2" | sha256sum | cut -c1-16 >> "$WORK/rows-$label"
}

for ((i = 0; i < ROUNDS; i++)); do
  [[ -n "$BASE" ]] && run baseline "$BASE"
  run workers "$CLGEN"
  run in-process "$CLGEN" --clang-in-process
done
echo "medians (wall s, CPU s = user + sys):"
for label in baseline workers in-process; do
  grep -q "^$label " "$WORK/times" || continue
  wall=$(awk -v l="$label" '$1 == l {print $2}' "$WORK/times" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  cpu=$(awk -v l="$label" '$1 == l {print $3 + $4}' "$WORK/times" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  echo "  $label: wall $wall, CPU $cpu"
done
if [[ $(cat "$WORK"/rows-* | sort -u | wc -l) == 1 ]]; then
  echo "stored rows: identical in every run"
else
  echo "stored rows DIFFER between runs:"
  for f in "$WORK"/rows-*; do echo "  $(basename "$f"): $(sort -u "$f" | tr '\n' ' ')"; done
  exit 1
fi
