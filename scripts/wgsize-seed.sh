#!/usr/bin/env bash
# Run HERE: slims a packed wgsize workspace database (clgen.db.xz of
# bench/gpu-experiment.sh wgsize's archive) to what a continuation call needs — the
# runs, the kernels they ran, the samples, and the corpus rows and origins of
# those kernels (the export's `group`) — and writes it xz-compressed, to be
# carried as WS_SEED (about 4 MB instead of 13).
#   scripts/wgsize-seed.sh IN.db.xz OUT.db.xz
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: scripts/wgsize-seed.sh IN.db.xz OUT.db.xz" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
xz -dc "$1" > "$work/clgen.db"
sqlite3 "$work/clgen.db" <<'SQL'
DELETE FROM preprocessed WHERE normalized_sha256 IS NULL
  OR normalized_sha256 NOT IN (SELECT sha256 FROM kernel_sources);
DELETE FROM content_origins WHERE sha256 NOT IN (SELECT content_sha256 FROM preprocessed);
DELETE FROM content_files WHERE sha256 NOT IN (SELECT content_sha256 FROM preprocessed)
  AND sha256 NOT IN (SELECT sha256 FROM content_origins);
VACUUM;
SQL
xz -T0 -6 -c "$work/clgen.db" > "$2"
ls -la "$2"
