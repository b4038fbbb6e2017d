#!/usr/bin/env bash
# Measures the filter on the default corpus (the kernels Debian installs),
# read directly into a scratch workspace's content_files (includes are not
# inlined here; the corpus module does that): accepted/rejected by reason
# with and without the shim (and with libclc's header), and the size of the rewritten corpus.
# Usage: [SOURCE_DB=clgen.db] bench/preprocess-corpus.sh [CLGEN_BINARY] [WORKSPACE]
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${1:-build/cli/clgen}
WS=${2:-$(mktemp -d)}
DB="$WS/clgen.db"
mkdir -p "$WS"
sqlite3 "$DB" "CREATE TABLE IF NOT EXISTS content_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL, size INTEGER, path TEXT);"
if [[ -n "${SOURCE_DB:-}" ]]; then
  # The content files of another workspace (e.g. the default corpus of
  # `clgen corpus add --installed`, includes inlined), read only.
  sqlite3 "$DB" "ATTACH 'file:$SOURCE_DB?mode=ro' AS src; INSERT OR IGNORE INTO content_files SELECT sha256, text, size, NULL FROM src.content_files;"
else
{
  echo "BEGIN;"
  find /usr/share/pocl-tests /usr/share/ufo /usr/share/hashcat/OpenCL -name '*.cl' | sort | while IFS= read -r f; do
    h=$(sha256sum "$f" | cut -d' ' -f1)
    echo "INSERT OR IGNORE INTO content_files VALUES ('$h', CAST(readfile('$f') AS TEXT), $(stat -c %s "$f"), '$f');"
  done
  echo "COMMIT;"
} | sqlite3 "$DB"
fi
echo "content files: $(sqlite3 "$DB" 'SELECT COUNT(*) FROM content_files')"

for mode in --no-shim "" "--header libclc"; do
  echo "== clgen corpus preprocess $mode"
  # shellcheck disable=SC2086
  "$CLGEN" -q --workspace "$WS" corpus preprocess $mode
done

V=$(sqlite3 "$DB" "SELECT preprocessor_version FROM preprocessed WHERE preprocessor_version LIKE '%-clang-shim-%' LIMIT 1")
echo "== rewritten corpus ($V)"
ids() { tr -c 'A-Za-z0-9_' '\n' | grep -E '^[A-Za-z_]' | sort -u | wc -l; }
sqlite3 "$DB" "SELECT c.text FROM content_files c JOIN preprocessed p ON p.content_sha256 = c.sha256 WHERE p.preprocessor_version='$V' AND p.status='ok'" > "$WS/before.txt"
sqlite3 "$DB" "SELECT normalized_text FROM preprocessed WHERE preprocessor_version='$V' AND status='ok' GROUP BY normalized_sha256" > "$WS/after.txt"
echo "files: $(sqlite3 "$DB" "SELECT COUNT(*), COUNT(DISTINCT normalized_sha256) FROM preprocessed WHERE preprocessor_version='$V' AND status='ok'" | tr '|' ' ') (accepted, distinct after rewriting)"
echo "kernels (after; rewriting keeps every kernel): $(grep -c '^__kernel\|^kernel' "$WS/after.txt")"
echo "lines: before $(wc -l < "$WS/before.txt"), after $(wc -l < "$WS/after.txt")"
echo "distinct identifiers: before $(ids < "$WS/before.txt"), after $(ids < "$WS/after.txt")"
echo "workspace: $WS"
