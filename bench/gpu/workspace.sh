#!/usr/bin/env bash
# (run here) .wsmin/NAME.db.xz: the imported, preprocessed corpus of a workspace, for a call to carry.
#   bench/gpu-experiment.sh workspace [WORKSPACE] [NAME]     (defaults: clgen-work clgen)
# Run HERE: makes .wsmin/NAME.db.xz (default clgen.db.xz), the workspace database a GPU-machine
# experiment starts from (the pipeline experiment reads clgen, the others github and default): the imported and preprocessed
# corpus of WORKSPACE (default clgen-work, filled by scripts/run-default.sh),
# without samples, driver runs or training records, and with only the newest
# preprocessor version's results. The GPU machine has no
# corpus miner (no libgit2 there, and no network), so the corpus travels.
# MAX_TEXT=N also leaves out accepted kernels of more than N characters (no
# training config reads kernels over its max_file_chars, 8,000 at most; the
# snapshot's accepted rows hold some 340 kernels over 100,000 characters, 2.6 MiB
# of the compressed file), to keep a call's carry under 64 MiB.
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -euo pipefail
WORKSPACE=${1:-clgen-work}
NAME=${2:-clgen}
[ -f "$WORKSPACE/clgen.db" ] || { echo "gpu-experiment workspace: $WORKSPACE/clgen.db missing (run scripts/run-default.sh)" >&2; exit 1; }
mkdir -p .wsmin
rm -f ".wsmin/$NAME.db" ".wsmin/$NAME.db.xz"
"${PYTHON:-/usr/bin/python3}" - "$WORKSPACE/clgen.db" ".wsmin/$NAME.db" "${MAX_TEXT:-0}" <<'PY'
import sqlite3, sys
src = sqlite3.connect(sys.argv[1])
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
keep = {"repositories", "content_files", "content_origins", "preprocessed", "skipped", "decontaminated"}
for (name,) in dst.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
    if name not in keep and not name.startswith("sqlite_"):
        dst.execute(f"DROP TABLE {name}")
# Only the newest preprocessor version's rows: what training and sampling read.
dst.execute("DELETE FROM preprocessed WHERE preprocessor_version != "
            "(SELECT preprocessor_version FROM preprocessed ORDER BY rowid DESC LIMIT 1)")
# The raw files are read only by preprocessing, which runs here, not there;
# their rows stay (sizes, provenance), their texts go (the snapshot's
# hashcat headers alone would push a call past its 64 MiB).
dst.execute("UPDATE content_files SET text = ''")
if int(sys.argv[3]) > 0:
    gone = dst.execute("DELETE FROM preprocessed WHERE status = 'ok' AND LENGTH(normalized_text) > ?",
                       (int(sys.argv[3]),)).rowcount
    print(f"left out {gone} accepted kernels of more than {sys.argv[3]} characters")
dst.commit()
dst.execute("VACUUM")
for (name,) in dst.execute("SELECT name FROM sqlite_master WHERE type='table'"):
    print(name, dst.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
PY
xz -T0 -9 ".wsmin/$NAME.db"
ls -la ".wsmin/$NAME.db.xz"
