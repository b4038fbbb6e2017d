#!/usr/bin/env python3
"""Builds a benchmark workspace for bench/sampler.sh: the .cl files under the
given directories go into `content_files` (the corpus store's table, keyed by
sha256), ready for `clgen corpus preprocess` to normalize them."""
import hashlib
import os
import sqlite3
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: sampler_make_workspace.py WORKSPACE DIR...", file=sys.stderr)
        return 2
    ws = sys.argv[1]
    os.makedirs(ws, exist_ok=True)
    db = sqlite3.connect(os.path.join(ws, "clgen.db"))
    db.execute("CREATE TABLE IF NOT EXISTS content_files(sha256 TEXT PRIMARY KEY, "
               "text TEXT NOT NULL, size INTEGER)")
    n = 0
    for root in sys.argv[2:]:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".cl"):
                    continue
                with open(os.path.join(dirpath, name), "rb") as f:
                    data = f.read()
                text = data.decode("utf-8", errors="replace")
                db.execute("INSERT OR IGNORE INTO content_files VALUES(?, ?, ?)",
                           (hashlib.sha256(data).hexdigest(), text, len(data)))
                n += 1
    db.commit()
    print(f"{n} files from {' '.join(sys.argv[2:])} in {ws}/clgen.db")
    return 0


if __name__ == "__main__":
    sys.exit(main())
