#!/usr/bin/env bash
# Throughput of `clgen sample`: raw samples/s, static pass rate, unique
# accepted kernels per minute, verbatim-copy rate and the stage that bounds
# throughput, for --args "float*,float*,float*,int" and for free signatures.
#   bench/sampler.sh [SECONDS] [DIR...]
# WORKSPACE=dir reuses a workspace with a trained model; otherwise one is
# built from the .cl files under DIR... (default: /usr/share/pocl-tests
# /usr/share/ufo): corpus preprocess, then `clgen train --config $CONFIG`.
# DEVICE=cpu|cuda, BATCH=streams, CONFIG=model config (default tiny), START=file|zero,
# SEED, TEMPERATURE, MODES="constrained raw" (each spec is sampled with the
# constrained decoder and, as the same-run baseline, with --no-constrain),
# SPECS="float*,int;int*,int*,int" (more --args specs, ';'-separated, sampled
# constrained only), FREE=0 / PAPER=0 (skip the free-signature / the paper's
# --args runs), SAMPLE_FLAGS (more
# `clgen sample` flags for every run, e.g. "--max-refusals 8").
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${CLGEN:-build/cli/clgen}
DEVICE=${DEVICE:-cpu}
BATCH=${BATCH:-64}
CONFIG=${CONFIG:-configs/tiny.toml}
TEMPERATURE=${TEMPERATURE:-0.8}
START=${START:-file}   # clgen sample --start: file (after the separator) or zero
SEED=${SEED:-1}
RUN_SECONDS=${1:-60}
shift || true
DIRS=("$@")
[ ${#DIRS[@]} -gt 0 ] || DIRS=(/usr/share/pocl-tests /usr/share/ufo)
OUT=${BENCH_DIR:-$(mktemp -d /tmp/clgen-bench-sampler.XXXXXX)}
mkdir -p "$OUT"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%FT%TZ)"

WS=${WORKSPACE:-}
if [ -z "$WS" ]; then
  WS=$OUT/ws
  "$CLGEN" --workspace "$WS" -q corpus add "${DIRS[@]}"
  "$CLGEN" --workspace "$WS" -q corpus preprocess
  /usr/bin/time -f "training: wall %e s" "$CLGEN" --workspace "$WS" -q train --config "$CONFIG" --device "$DEVICE" >/dev/null
fi

MODES=${MODES:-constrained raw}

run() {  # name args...
  local name=$1
  shift
  # shellcheck disable=SC2086
  "$CLGEN" --workspace "$WS" -q sample --config "$CONFIG" "$@" ${SAMPLE_FLAGS:-} -n 0 --time-limit "$RUN_SECONDS" \
    --seed "$SEED" --start "$START" --temperature "$TEMPERATURE" --batch-size "$BATCH" --device "$DEVICE" \
    --out "$OUT/samples-$name" --json >"$OUT/$name.json"
  python3 - "$name" "$OUT/$name.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
j = json.load(open(path))
n, secs = j["samples"], j["seconds"]
passed, copies = j["passed_filter"], j["training_copies"]
def pct(a, b):
    return 100.0 * a / b if b else 0.0
util = lambda s, k=1: pct(s, k * secs)
print(f"== {name}: {n} samples in {secs:.1f}s on {j['filter_threads']} filter threads")
print(f"  samples/s            {n / secs:.2f}   ({j['tokens'] / secs:.0f} tokens/s)")
complete = n - j["by_status"].get("truncated", 0)  # reached their closing brace
print(f"  static pass rate     {pct(passed, n):.1f}% of all samples, {pct(passed, complete):.1f}% of the "
      f"{complete} complete ones")
print(f"  unique accepted/min  {j['accepted_per_minute']:.1f}   ({j['accepted']} new unique kernels)")
print(f"  verbatim copies      {pct(copies, passed):.1f}% of passing samples ({copies})")
print(f"  busy: model {util(j['model_seconds'] + j['draw_seconds']):.0f}%, "
      f"filter {util(j['filter_seconds'], j['filter_threads']):.0f}%, store {util(j['store_seconds']):.0f}%"
      f" -> bound by {j['bottleneck']}")
print(f"  constrained {j['constrained']}: {j['redrawn']} draws redrawn ({pct(j['redrawn'], j['tokens']):.1f}% of tokens)")
print(f"  statuses {json.dumps(j['by_status'])}")
print(f"  rejections {json.dumps(j['by_category'])}")
PY
}

for mode in $MODES; do
  flag=()
  [ "$mode" = raw ] && flag=(--no-constrain)
  [ "${PAPER:-1}" = 0 ] || run "paper-args-$mode" --args "float*,float*,float*,int" "${flag[@]}"
  [ "${FREE:-1}" = 0 ] || run "free-signature-$mode" "${flag[@]}"
done
IFS=';' read -r -a extra <<< "${SPECS:-}"
for spec in "${extra[@]}"; do
  [ -n "$spec" ] && run "args-$(echo "$spec" | tr -c 'a-zA-Z0-9\n' '_')" --args "$spec"
done
echo "results and kernels in $OUT"
