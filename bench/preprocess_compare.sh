#!/usr/bin/env bash
# Golden comparison and CPU time of two clgen binaries' `corpus preprocess`
# on the same imported corpus, run one after the other in the same call:
#  * every stored row (verdict, category, reason, normalized text hash,
#    instruction count, inferred names, language, prelude) must be equal;
#  * CPU seconds (user + system of clgen and its Clang workers) per file, and
#    the workers' CPU by pass when the binary writes CLGEN_PASS_TIMES
#    (corpus/preprocess/pass_times.h).
#
# Usage: bench/preprocess_compare.sh BASE_CLGEN NEW_CLGEN SOURCE_WORKSPACE OUT_DIR [PREFIXES] [JOBS]
#   SOURCE_WORKSPACE: a workspace after `clgen corpus add ...` (read only; its
#     preprocessed rows, if any, are not copied).
#   PREFIXES: a sample, the kernel files whose content sha256 starts with one of
#     these comma-separated hex prefixes ("0" is 1/16 of the files); "" = all.
#   JOBS: `-j` of the runs (default 1).
# Exit status 1 when the stored rows differ (OUT_DIR/rows.diff says where).
# The 60 s wall-clock budget (docs/PREPROCESS.md, "The budget") makes
# time_limit verdicts depend on the machine's load: on a loaded machine a
# difference in those rows alone is the budget's, not the binaries'.
set -euo pipefail
if [[ $# -lt 4 ]]; then
  sed -n '2,17p' "$0"
  exit 2
fi
BASE=$(readlink -f "$1")
NEW=$(readlink -f "$2")
SRC=$3
OUT=$4
PREFIXES=${5:-}
JOBS=${6:-1}
mkdir -p "$OUT"

where=""
if [[ -n "$PREFIXES" ]]; then
  IFS=',' read -ra ps <<<"$PREFIXES"
  for p in "${ps[@]}"; do where+="${where:+ OR }sha256 LIKE '${p}%'"; done
  where="NOT ($where)"
fi

run_one() {  # NAME BINARY
  local name=$1 bin=$2 ws="$OUT/$1"
  rm -rf "$ws" "$OUT/$name-empty" "$OUT/empty-dir"
  mkdir -p "$ws" "$OUT/$name-empty" "$OUT/empty-dir"
  sqlite3 "$SRC/clgen.db" ".backup '$ws/clgen.db'"
  sqlite3 "$ws/clgen.db" "DROP TABLE IF EXISTS preprocessed;"
  # The run's version, from a workspace with nothing to preprocess.
  local version
  "$bin" -q --workspace "$OUT/$name-empty" corpus add "$OUT/empty-dir" >/dev/null 2>&1
  version=$("$bin" -q --workspace "$OUT/$name-empty" corpus preprocess 2>/dev/null | sed -n 's/^preprocessor \([^:]*\):.*/\1/p')
  if [[ -n "$where" ]]; then
    # Placeholder rows make the run skip every file outside the sample (it
    # resumes from the rows present); they are removed afterwards. The table
    # is the one the binary made in the empty workspace.
    sqlite3 "$OUT/$name-empty/clgen.db" ".schema preprocessed" | sqlite3 "$ws/clgen.db"
    sqlite3 "$ws/clgen.db" "DELETE FROM preprocessed;
      INSERT INTO preprocessed (content_sha256, preprocessor_version, kernel, status)
      SELECT sha256, '$version', '', 'placeholder' FROM content_files WHERE $where;"
  fi
  rm -f "$OUT/$name.passes"
  CLGEN_PASS_TIMES="$OUT/$name.passes" nice /usr/bin/time -f '%U %S %e' -o "$OUT/$name.time" \
    "$bin" -q --workspace "$ws" corpus preprocess -j "$JOBS" >"$OUT/$name.log"
  sqlite3 "$ws/clgen.db" "DELETE FROM preprocessed WHERE status = 'placeholder';"
  sqlite3 -separator $'\t' "$ws/clgen.db" \
    "SELECT content_sha256, kernel, status, COALESCE(category,''), replace(COALESCE(reason,''), char(10), '\\n'),
            COALESCE(normalized_sha256,''), COALESCE(instruction_count,''),
            replace(COALESCE(inferred,''), char(10), '\\n'), language, replace(COALESCE(prelude,''), char(10), '\\n')
     FROM preprocessed WHERE preprocessor_version = '$version' ORDER BY 1, 2" >"$OUT/$name.rows"
  local files cpu
  files=$(sed -n 's/^preprocessor [^:]*: \([0-9]*\) files processed now.*/\1/p' "$OUT/$name.log")
  read -r user sys wall <"$OUT/$name.time"
  cpu=$(echo "$user + $sys" | bc)
  echo "$name: $version"
  echo "  files $files, CPU ${cpu} s (user $user, sys $sys), wall $wall s, CPU a file $(echo "scale=4; $cpu / $files" | bc) s"
  if [[ -s "$OUT/$name.passes" ]]; then
    echo "  worker CPU by pass (s, scopes, share of the workers' CPU):"
    python3 - "$OUT/$name.passes" <<'PY'
import sys, collections
t, c = collections.Counter(), collections.Counter()
for line in open(sys.argv[1]):
    name, sec, calls = line.rstrip("\n").rsplit(" ", 2)
    t[name] += float(sec); c[name] += int(calls)
workers = t.pop("process", 0.0); c.pop("process", None)
for name, sec in t.most_common():
    print(f"    {name:34s} {sec:8.2f} {c[name]:7d} {100 * sec / workers if workers else 0:5.1f}%")
print(f"    {'workers, all':34s} {workers:8.2f}")
PY
  fi
  echo "  files by verdict (a file's rows: ok when any kernel is accepted):"
  sqlite3 "$ws/clgen.db" "SELECT CASE WHEN SUM(status='ok') > 0 THEN 'ok' ELSE MIN(status || '/' || COALESCE(category,'')) END AS v, 1
     FROM preprocessed WHERE preprocessor_version = '$version' GROUP BY content_sha256" |
    cut -d'|' -f1 | sort | uniq -c | sort -nr | sed 's/^/    /'
}

run_one base "$BASE"
run_one new "$NEW"
if diff "$OUT/base.rows" "$OUT/new.rows" >"$OUT/rows.diff"; then
  echo "stored rows: identical ($(wc -l <"$OUT/base.rows") rows)"
else
  echo "stored rows DIFFER: $(grep -c '^[<>]' "$OUT/rows.diff") lines in $OUT/rows.diff"
  exit 1
fi
