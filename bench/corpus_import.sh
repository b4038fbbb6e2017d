#!/usr/bin/env bash
# Benchmark: import throughput of the embedded default corpus (installed
# Debian packages + extracted darktable kernels) with `clgen corpus add
# --installed` into a fresh workspace, against a baseline measured in the same
# run: `sha256sum` over the same candidate files (read + hash, no inlining, no
# database). Prints files/s and MB/s (MB = 10^6 bytes of raw candidate files).
# Usage: bench/corpus_import.sh [RUNS]   (default 3; the median is reported)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
CLGEN=${BUILD_DIR:-build}/cli/clgen
[ -x "$CLGEN" ] || { echo "build clgen first (scripts/build.sh)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache=${BENCH_CACHE:-/tmp/clgen-bench-cache}
./scripts/fetch-darktable-kernels.sh "$cache" >/dev/null

# The candidate files, as `corpus add --installed` selects them.
{
  find /usr/share/pocl-tests /usr/share/ufo -type f -name '*.cl'
  find /usr/include/bullet/Bullet3OpenCL -type f -path '*/kernels/*.h'
  if [ -d /usr/share/darktable/kernels ]; then find /usr/share/darktable/kernels -type f -name '*.cl'
  else find "$cache/packages/darktable/usr/share/darktable/kernels" -type f -name '*.cl'; fi
} | sort > "$tmp/files"
nfiles=$(wc -l < "$tmp/files")
nbytes=$(xargs -d '\n' cat < "$tmp/files" | wc -c)

now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\\n\", $1 }"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: > "$tmp/clgen.times"
: > "$tmp/base.times"
for i in $(seq "$RUNS"); do
  t0=$(now); xargs -d '\n' sha256sum < "$tmp/files" > /dev/null; t1=$(now)
  calc "$t1 - $t0" >> "$tmp/base.times"
  ws="$tmp/ws$i"
  mkdir -p "$ws/packages"
  ln -s "$cache/packages/darktable" "$ws/packages/darktable"
  t0=$(now); "$CLGEN" -q --workspace "$ws" corpus add --installed > "$tmp/out$i" 2> "$tmp/err$i"; t1=$(now)
  calc "$t1 - $t0" >> "$tmp/clgen.times"
  "$CLGEN" --workspace "$ws" corpus stats --json > "$tmp/stats"
  rm -rf "$ws"
done
tc=$(median < "$tmp/clgen.times")
tb=$(median < "$tmp/base.times")
mb=$(calc "$nbytes / 1000000")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%dT%H:%MZ)"
printf 'candidate files: %d, %.1f MB raw\n' "$nfiles" "$mb"
printf 'clgen corpus add --installed (median of %d): %.2f s, %.0f files/s, %.1f MB/s\n' \
  "$RUNS" "$tc" "$(calc "$nfiles / $tc")" "$(calc "$mb / $tc")"
printf 'baseline sha256sum           (median of %d): %.2f s, %.0f files/s, %.1f MB/s\n' \
  "$RUNS" "$tb" "$(calc "$nfiles / $tb")" "$(calc "$mb / $tb")"
printf 'ratio clgen / baseline time: %.1fx\n' "$(calc "$tc / $tb")"
stored=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes"])' "$tmp/stats")
printf 'stored after inlining: %.1f MB, %.1f MB/s written\n' "$(calc "$stored / 1000000")" \
  "$(calc "$stored / 1000000 / $tc")"
echo "last run's per-package progress (stderr):"
sed 's/^/  /' "$tmp/err$RUNS"
echo "last run's summary:"
sed 's/^/  /' "$tmp/out$RUNS"
