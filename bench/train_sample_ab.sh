#!/usr/bin/env bash
# Same-run speed of `clgen train` and `clgen sample` for two builds, A and B
# (a change against its baseline), on the main job's workspace (the default
# corpus, preprocessed, with the shipped model installed: scripts/run-default.sh).
#
#   A=OLD/clgen B=NEW/clgen bench/train_sample_ab.sh WORKSPACE [ROUNDS]
#
# Each round runs A then B, then B then A in the next (ABBA...), each on a
# fresh copy of WORKSPACE's database:
#   train   configs/default.toml for $EPOCHS epochs on the CPU: tokens/s of the last epoch
#   sample  $SAMPLES samples of the installed model, seed 1, $BATCH streams, no --check:
#           samples/s (sampling seconds of `sample --json`)
# Prints one line a run and the medians with the ratio B/A.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${A:?A=path of the baseline clgen}" "${B:?B=path of the changed clgen}"
WS=${1:?usage: A=.. B=.. bench/train_sample_ab.sh WORKSPACE [ROUNDS]}
ROUNDS=${2:-3}
EPOCHS=${EPOCHS:-2}
SAMPLES=${SAMPLES:-1000}
BATCH=${BATCH:-64}
TMP=$(mktemp -d /tmp/clgen-ab.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%FT%TZ)"

train() {  # clgen -> tokens/s of the last epoch
  rm -rf "$TMP/t" && mkdir -p "$TMP/t" && cp "$WS/clgen.db" "$TMP/t/"
  "$1" --workspace "$TMP/t" train --config configs/default.toml --device cpu --epochs "$EPOCHS" 2>&1 |
    sed -n 's/.*\] epoch [0-9]*\/[0-9]*: .*, \([0-9.]*\) tokens\/s.*/\1/p' | tail -1
}
sample() {  # clgen -> samples/s
  rm -rf "$TMP/s" && mkdir -p "$TMP/s" && cp "$WS/clgen.db" "$TMP/s/" && cp -r "$WS/models" "$WS/vocabularies" "$TMP/s/"
  "$1" --workspace "$TMP/s" -q sample -n 0 --max-samples "$SAMPLES" --seed 1 --batch-size "$BATCH" --device cpu --json |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.2f" % (j["samples"] / j["seconds"]))'
}

declare -A runs
for ((r = 0; r < ROUNDS; r++)); do
  order="A B"; [ $((r % 2)) = 1 ] && order="B A"
  for side in $order; do
    bin=${!side}
    t=$(train "$bin"); s=$(sample "$bin")
    echo "round $((r + 1)) $side: train $t tokens/s, sample $s samples/s"
    runs[$side.train]+="$t "; runs[$side.sample]+="$s "
  done
done
median() { python3 -c 'import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))' "$@"; }
for what in train sample; do
  # shellcheck disable=SC2086  # the runs' numbers
  a=$(median ${runs[A.$what]})
  # shellcheck disable=SC2086
  b=$(median ${runs[B.$what]})
  python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'$what: A {a:.2f}, B {b:.2f}, B/A {b / a:.3f}')" "$a" "$b"
done
