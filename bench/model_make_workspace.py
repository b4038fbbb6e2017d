#!/usr/bin/env python3
"""Builds a benchmark workspace whose `preprocessed` table holds the .cl files
found under the given directories, as they are (status 'ok'), so `clgen train`
can be measured before the preprocess stage exists in a checkout. The texts are
raw, not normalized: numbers taken on it say so."""
import hashlib
import os
import sqlite3
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: model_make_workspace.py WORKSPACE DIR...", file=sys.stderr)
        return 2
    ws = sys.argv[1]
    os.makedirs(ws, exist_ok=True)
    db = sqlite3.connect(os.path.join(ws, "clgen.db"))
    db.execute(
        "CREATE TABLE IF NOT EXISTS preprocessed(content_sha256 TEXT NOT NULL, "
        "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, reason TEXT, "
        "normalized_text TEXT, normalized_sha256 TEXT, instruction_count INTEGER, "
        "PRIMARY KEY(content_sha256, preprocessor_version))")
    n = 0
    for root in sys.argv[2:]:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".cl"):
                    continue
                with open(os.path.join(dirpath, name), "rb") as f:
                    data = f.read()
                if not data or len(data) > 100_000:
                    continue
                text = data.decode("utf-8", errors="replace")
                sha = hashlib.sha256(text.encode()).hexdigest()
                db.execute("INSERT OR IGNORE INTO preprocessed VALUES(?, 'raw', 'ok', NULL, NULL, ?, ?, NULL)",
                           (sha, text, sha))
                n += 1
    db.commit()
    print(f"{ws}: {n} kernel files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
