#!/usr/bin/env bash
# Benchmark: the GitHub-scale corpus snapshot end to end on this machine —
# `clgen corpus add` of shared/data/github-opencl (archive + manifest), then
# `clgen corpus preprocess` twice in one workspace: the baseline without the
# second chances (--no-infer --no-cl20, the preprocessor before them) and the
# default. Prints wall and CPU time of each step, the load average (a shared
# machine's times are pessimistic), files and kernels accepted with reasons
# (bench/corpus_discard.py, also without hashcat), stored bytes and training
# bytes (distinct accepted normalized kernels).
# Usage: bench/corpus_snapshot.sh [SNAPSHOT_DIR] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
SNAP=${1:-../shared/data/github-opencl}
THREADS=${2:-$(nproc)}
CLGEN=${BUILD_DIR:-build}/cli/clgen
[ -x "$CLGEN" ] || { echo "build clgen first (scripts/build.sh)"; exit 1; }
[ -f "$SNAP/corpus.tar.xz" ] || { echo "no $SNAP/corpus.tar.xz"; exit 1; }
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
timed() {  # LABEL COMMAND...: wall and CPU seconds of COMMAND
  local label=$1; shift
  /usr/bin/time -f "$label: wall %e s, user %U s, sys %S s" "$@" > "$ws/$label.out" 2> "$ws/$label.err" || {
    tail -5 "$ws/$label.err"; exit 1; }
  tail -1 "$ws/$label.err"
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start; $(date -u +%F)"
timed import "$CLGEN" -q --workspace "$ws" corpus add "$SNAP/corpus.tar.xz" --manifest "$SNAP/MANIFEST.tsv"
tail -2 "$ws/import.out"
timed preprocess-baseline "$CLGEN" -q --workspace "$ws" corpus preprocess -j "$THREADS" --no-infer --no-cl20
timed preprocess "$CLGEN" -q --workspace "$ws" corpus preprocess -j "$THREADS"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for out in preprocess-baseline preprocess; do
  version=$(head -1 "$ws/$out.out" | sed -n 's/^preprocessor \([^:]*\):.*/\1/p')
  echo "== $out ($version)"
  python3 bench/corpus_discard.py "$ws/clgen.db" "$version" --top 10
  python3 bench/corpus_discard.py "$ws/clgen.db" "$version" --exclude hashcat/hashcat --top 0 | sed -n 2,3p | sed 's/^/  without hashcat: /'
  sqlite3 "$ws/clgen.db" "SELECT '  training text: ' || COUNT(*) || ' distinct accepted kernels, ' || SUM(LENGTH(t)) || ' bytes' FROM
    (SELECT MIN(normalized_text) t FROM preprocessed WHERE status = 'ok' AND preprocessor_version = '$version'
     GROUP BY normalized_sha256)"
done
sqlite3 "$ws/clgen.db" "SELECT 'stored: ' || COUNT(*) || ' contents, ' || SUM(size) || ' bytes' FROM content_files"
