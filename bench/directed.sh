#!/usr/bin/env bash
# Directed against undirected sampling, same model, same call
# (docs/SAMPLER.md, "Directed sampling"). Targets: the Grewe features of the
# kernels of the repositories that $CONFIG's training holds out (`clgen
# sample --held-out-targets`), or TARGETS=FILE.csv. Each run alternates
# directed and undirected slices of $SLICE seconds for MINUTES per side
# (2 x MINUTES of wall time; MODE=sliced), or samples MINUTES of one side
# only (MODE=directed, or MODE=undirected: --baseline-only, every stream
# undirected, distances still reported), then prints the table: targets matched
# exactly, mean normalized distance, kernels matching a target, and with
# CHECK set, the share of the exactly matching nearest kernels that the
# dynamic checker found benchmark-grade; then three matched kernels with
# their targets.
#   bench/directed.sh MINUTES...          e.g. bench/directed.sh 1 5
# WORKSPACE (gpu-work/github: a workspace whose $CONFIG model is trained),
# CONFIG (configs/github.toml), CLGEN (build-gpu/cli/clgen, else
# build/cli/clgen), DEVICE (cuda), BATCH (8192), SEED (1), TEMPERATURE (0.8),
# SLICE (10), SPLIT (time: `--baseline-split`; "streams" gives each side half
# the batch for the whole run, which time slices do not at full speed: see
# docs/SAMPLER.md), CHECK (gpu; "" = no dynamic check), ARGS (an --args spec; ""
# = free signature), TARGETS (a targets CSV instead of the held-out
# kernels), SAMPLE_FLAGS (more `clgen sample` flags, e.g. "--max-refusals 32"),
# MATCHED_CHECK (a device, e.g. gpu; "" = none): after sampling, drive only
# the kept exact matches of the targets matched exactly (up to 4 a target:
# the report's exact_sha256) through the dynamic checker (`clgen drive`, 16
# workers, global size 4096, 1 s time-out, as --check does) and time it.
# With CHECK="" the checker does not set the sampler's pace (handing a kernel
# over blocks while it is busy, and it takes some 30-80 kernels a second
# against the sampler's 100-300 new ones), and the benchmark-grade columns
# still count the matched targets' nearest kernels that pass, and the matched
# targets with some exact match that passes.
# RESULTS (directory for the JSON and CSV; default gpu-results/directed).
# KERNELS_DIR (where each run's accepted kernels go, as RUN-kernels; default
# $RESULTS; on the GPU machine, a folder outside $OUT: tens of thousands of
# files do not come back from a call).
# Every run samples on its own copy of the workspace (database, models,
# vocabularies) under $RUNS_DIR (default $WORKSPACE/directed-runs): on the
# workspace itself, a second run of the same seed would replay the first's
# draws without filtering them (docs/SAMPLER.md, "Resuming") and lose that
# time.
set -euo pipefail
cd "$(dirname "$0")/.."
WS=${WORKSPACE:-gpu-work/github}
CONFIG=${CONFIG:-configs/github.toml}
CLGEN=${CLGEN:-$([ -x build-gpu/cli/clgen ] && echo build-gpu/cli/clgen || echo build/cli/clgen)}
DEVICE=${DEVICE:-cuda}
BATCH=${BATCH:-8192}
SEED=${SEED:-1}
TEMPERATURE=${TEMPERATURE:-0.8}
SLICE=${SLICE:-10}
SPLIT=${SPLIT:-time}
CHECK=${CHECK-gpu}
MATCHED_CHECK=${MATCHED_CHECK:-}
MODE=${MODE:-sliced}
ARGS=${ARGS:-}
TARGETS=${TARGETS:-}
RESULTS=${RESULTS:-gpu-results/directed}
KERNELS_DIR=${KERNELS_DIR:-$RESULTS}
RUNS_DIR=${RUNS_DIR:-$WS/directed-runs}
[ $# -gt 0 ] || set -- 1
mkdir -p "$RESULTS" "$KERNELS_DIR"
[ -f "$WS/clgen.db" ] || { echo "directed.sh: no workspace at $WS (train $CONFIG first)" >&2; exit 1; }

for minutes in "$@"; do
  name=$MODE-${minutes}min
  case $MODE in
    sliced) seconds=$(python3 -c "print(round(2 * 60 * $minutes))"); side=(--baseline --baseline-slice "$SLICE" --baseline-split "$SPLIT") ;;
    directed) seconds=$(python3 -c "print(round(60 * $minutes))"); side=() ;;
    undirected) seconds=$(python3 -c "print(round(60 * $minutes))"); side=(--baseline-only) ;;
    *) echo "directed.sh: MODE is sliced, directed or undirected" >&2; exit 2 ;;
  esac
  flags=(--config "$CONFIG" --device "$DEVICE" --batch-size "$BATCH" --seed "$SEED" --temperature "$TEMPERATURE"
         -n 0 --time-limit "$seconds" "${side[@]}"
         --target-report "$RESULTS/$name-targets.csv" --out "$KERNELS_DIR/$name-kernels" --json)
  if [ -n "$TARGETS" ]; then flags+=(--target-features "$TARGETS"); else flags+=(--held-out-targets); fi
  [ -z "$ARGS" ] || flags+=(--args "$ARGS")
  # shellcheck disable=SC2206
  [ -z "${SAMPLE_FLAGS:-}" ] || flags+=($SAMPLE_FLAGS)
  [ -z "$CHECK" ] || flags+=(--check "$CHECK" --check-jobs 16 --check-timeout 1
                              --check-out "$RESULTS/$name-benchmark-grade")
  run_ws=$RUNS_DIR/$name
  rm -rf "$run_ws" && mkdir -p "$run_ws" && cp "$WS/clgen.db" "$run_ws/" && cp -r "$WS/models" "$WS/vocabularies" "$run_ws/"
  echo "== $(date -u +%T) $name: $CLGEN sample ${flags[*]} (on a copy of $WS: $run_ws)"
  "$CLGEN" --workspace "$run_ws" -q sample "${flags[@]}" > "$RESULTS/$name.json" 2> "$RESULTS/$name.err" ||
    { tail -20 "$RESULTS/$name.err"; exit 1; }
  if [ -n "$MATCHED_CHECK" ]; then
    # Every kept exact match of every matched target (exact_sha256: up to
    # the beam's 4 per target, the nearest first), either side; a kernel's
    # file under --out is named by its normalized sha256, as runs are keyed.
    mapfile -t matched < <(python3 -c '
import csv, os, sys
seen = set()
for r in csv.DictReader(open(sys.argv[1])):
    if r["distance"] and float(r["distance"]) == 0:
        for h in (r.get("exact_sha256") or r["nearest_sha256"]).split(";"):
            if h not in seen:
                seen.add(h)
                print(os.path.join(sys.argv[2], h + ".cl"))' "$RESULTS/$name-targets.csv" "$KERNELS_DIR/$name-kernels")
    started=$(date +%s.%N)
    if [ ${#matched[@]} -gt 0 ]; then
      "$CLGEN" --workspace "$run_ws" -q drive "${matched[@]}" --device "$MATCHED_CHECK" -j 16 --gsize 4096 \
        --timeout 1 > "$RESULTS/$name-matched-check.txt" 2>&1 || { tail -20 "$RESULTS/$name-matched-check.txt"; exit 1; }
    fi
    python3 -c "import sys; print(f'dynamic check of the {sys.argv[1]} matched kernels on $MATCHED_CHECK: {float(sys.argv[2]) - float(sys.argv[3]):.1f} s')" \
      "${#matched[@]}" "$(date +%s.%N)" "$started"
  fi
  python3 - "$RESULTS/$name.json" "$RESULTS/$name-targets.csv" "$run_ws/clgen.db" "$minutes" "$MODE" <<'PY'
import csv, json, sqlite3, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
db = sqlite3.connect(sys.argv[3])
minutes, mode = sys.argv[4], sys.argv[5]
s = j["steering"]
# Without --baseline the one side is "directed" in the JSON and the report;
# MODE=undirected (--baseline-only) has only the baseline side.
sides = [("directed", "directed"), ("baseline", "undirected")] if mode == "sliced" else \
        [("directed", "directed")] if mode == "directed" else [("baseline", "undirected")]
has_runs = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'runs'").fetchone() is not None
def passed(h):
    return db.execute("SELECT 1 FROM runs WHERE kernel_sha256 = ? AND outcome = 'pass'", (h,)).fetchone() is not None
def graded(side):
    """Of this side's exactly matched targets: how many nearest kernels have a passing run (two targets with
    equal features share theirs), and how many targets have some kept exact match that passed."""
    if not has_runs:
        return "-", "-"
    matched = [r for r in rows if r["side"] == side and r["distance"] and float(r["distance"]) == 0]
    nearest = list(dict.fromkeys(r["nearest_sha256"] for r in matched))
    any_exact = sum(1 for r in matched if any(passed(h) for h in (r.get("exact_sha256") or r["nearest_sha256"]).split(";")))
    return f"{sum(map(passed, nearest))}/{len(nearest)}", f"{any_exact}/{len(matched)}"
print(f"{j['samples']} samples in {j['seconds']:.0f}s, model {j['model_id']}; streams continued from a prefix: "
      f"{s['starts']['replayed']} ({s['starts']['refused']} refused)")
# Where the run's tokens and samples went: replayed prefixes against the
# whole, and the filter's verdicts (rejection categories included).
print(f"new accepted {j['accepted']}, passed the filter {j['passed_filter']}, training copies "
      f"{j['training_copies']}; tokens {j['tokens']}, replayed {s['starts']['forced_tokens']}; "
      f"bottleneck {j['bottleneck']}; rejected by category {json.dumps(j['by_category'], sort_keys=True)}")
print(f"| minutes per side | side | targets | matched exactly | mean normalized distance | kernels | "
      f"kernels matching a target | benchmark-grade matched | targets with a benchmark-grade exact match |")
print("|---|---|---|---|---|---|---|---|---|")
for key, side in sides:
    r = s[key]
    d = r["mean_normalized_distance"]
    print(f"| {minutes} | {side} | {r['targets']} | {r['matched_exactly']} "
          f"({100.0 * r['matched_exactly'] / max(r['targets'], 1):.1f}%) | {'-' if d is None else f'{d:.3f}'} | "
          f"{r['kernels']} | {r['kernels_matching_a_target']} | "
          f"{' | '.join(graded(key if key == 'directed' else 'undirected'))} |")
if mode == "sliced":
    u = s["baseline"]["matched_exactly"]
    print(f"matched exactly, directed / undirected: {s['directed']['matched_exactly']} / {u}"
          + (f" = {s['directed']['matched_exactly'] / u:.2f}x" if u else ""))
shown = 0
for r in rows:
    if mode == "undirected" or r["side"] != "directed" or not r["distance"] or float(r["distance"]) != 0 or shown == 3:
        continue
    text = db.execute("SELECT normalized_text FROM samples WHERE normalized_sha256 = ? LIMIT 1",
                      (r["nearest_sha256"],)).fetchone()
    if text:
        shown += 1
        print(f"// target {r['target']} (comp, rational, mem, localmem, coalesced, atomic = {r['target_values']})\n{text[0]}")
PY
done
