#!/usr/bin/env python3
"""How many kernels' Grewe features change between two clgen binaries.

Runs `clgen features` of both binaries over the same kernel texts and counts,
per feature (comp, rational, mem, localmem, coalesced, atomic), the rows whose
value differs, matching rows by file and kernel name.

Usage: bench/features_diff.py OLD_CLGEN NEW_CLGEN SOURCE [--limit N] [--show K] [--keep DIR] [-- ARGS...]

SOURCE is a directory of .cl files, or a workspace's clgen.db: the distinct
texts of its accepted samples (`samples`, status 'accepted'), or where it has
none, of its corpus's accepted kernels (`preprocessed`, status 'ok'); the
first N (--limit, default 1000) by the text's sha256. ARGS go to both
`clgen features` runs (e.g. --grewe-clgen).
"""
import argparse
import collections
import csv
import hashlib
import io
import os
import sqlite3
import subprocess
import sys
import tempfile

FEATURES = ["comp", "rational", "mem", "localmem", "coalesced", "atomic"]
CHUNK = 200  # files per `clgen features` run


def texts_from_db(path, limit):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    rows = []
    if "samples" in tables:
        rows = [r[0] for r in db.execute("SELECT normalized_text FROM samples WHERE status='accepted'")]
    what = "accepted samples"
    if not rows:
        rows = [r[0] for r in db.execute("SELECT normalized_text FROM preprocessed WHERE status='ok'")]
        what = "accepted corpus kernels"
    distinct = {hashlib.sha256(t.encode()).hexdigest(): t for t in rows if t}
    chosen = sorted(distinct.items())[:limit]
    print(f"{len(chosen)} of {len(distinct)} distinct {what} texts of {path}", file=sys.stderr)
    return chosen


def features(clgen, files, args):
    """{(file, kernel): {feature: value}} and the number of files without a row."""
    rows = {}
    for start in range(0, len(files), CHUNK):
        chunk = files[start:start + CHUNK]
        run = subprocess.run([clgen, "features", *chunk, *args], capture_output=True, text=True)
        if run.returncode not in (0, 1):  # 1: some files failed, the others' rows are written
            sys.exit(f"{clgen} features failed ({run.returncode}): {run.stderr[-2000:]}")
        for r in csv.DictReader(io.StringIO(run.stdout)):
            rows[(r["file"], r["kernel"])] = {f: int(r[f]) for f in FEATURES}
    return rows, len(set(files) - {k[0] for k in rows})


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("source")
    p.add_argument("--limit", type=int, default=1000)
    p.add_argument("--show", type=int, default=0, help="print the first K changed rows")
    p.add_argument("--keep", help="write the texts taken from a database here (default: a temporary directory)")
    a = p.parse_args(argv)
    # A binary given by a relative path (not looked up on PATH).
    a.old, a.new = (os.path.abspath(b) if os.path.exists(b) else b for b in (a.old, a.new))

    with tempfile.TemporaryDirectory() as tmp:
        if os.path.isdir(a.source):
            files = sorted(os.path.join(a.source, f) for f in os.listdir(a.source) if f.endswith(".cl"))[:a.limit]
        else:
            out = a.keep or tmp
            os.makedirs(out, exist_ok=True)
            files = []
            for sha, text in texts_from_db(a.source, a.limit):
                files.append(os.path.join(out, sha[:16] + ".cl"))
                with open(files[-1], "w") as f:
                    f.write(text)
        old, old_failed = features(a.old, files, extra)
        new, new_failed = features(a.new, files, extra)

    both = sorted(set(old) & set(new))
    changed = collections.Counter()
    rows_changed, kernels_changed, shown = 0, set(), 0
    for key in both:
        diff = [f for f in FEATURES if old[key][f] != new[key][f]]
        changed.update(diff)
        if diff:
            rows_changed += 1
            kernels_changed.add(key[0])
            if shown < a.show:
                shown += 1
                print(f"{key[0]} {key[1]}: " + ", ".join(f"{f} {old[key][f]} -> {new[key][f]}" for f in diff))
    print(f"files {len(files)}; without a row: old {old_failed}, new {new_failed}")
    print(f"rows: old {len(old)}, new {len(new)}, in both {len(both)}; only old {len(set(old) - set(new))}, "
          f"only new {len(set(new) - set(old))}")
    print(f"rows changed: {rows_changed} (files {len(kernels_changed)})")
    for f in FEATURES:
        print(f"  {f:10s} {changed[f]}")


if __name__ == "__main__":
    main()
