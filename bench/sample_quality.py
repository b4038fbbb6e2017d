#!/usr/bin/env python3
"""Static quality of sampled kernels against real ones (docs/BENCHMARKS.md,
"GitHub corpus"): for the kernels of one or more NAME-driven.jsonl exports
(bench/gpu-experiment.sh corpus-compare export) it reports dynamic-checker outcomes,
the median Grewe `comp` and `mem`, the share using `__local` memory, and the
share whose six Grewe features (comp, rational, mem, localmem, coalesced,
atomic) equal those of some kernel of the held-out repositories.

Held-out kernels are the newest preprocessor version's accepted kernels of the
named repositories in a workspace database (the names `clgen train` prints
after "held-out repositories:"). Features come from `clgen features`.

Usage: bench/sample_quality.py --clgen build/cli/clgen --db WS/clgen.db
         --held-out "owner/name, owner/name" NAME-driven.jsonl...
"""
import argparse
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile

GREWE = ["comp", "rational", "mem", "localmem", "coalesced", "atomic"]


def features(clgen, texts):
    """Grewe features per text (None where clgen cannot compute them)."""
    out = [None] * len(texts)
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, t in enumerate(texts):
            p = os.path.join(d, f"k{i:06d}.cl")
            with open(p, "w") as f:
                f.write(t)
            paths.append(p)
        for start in range(0, len(paths), 200):
            chunk = paths[start:start + 200]
            r = subprocess.run([clgen, "-q", "features", *chunk], capture_output=True, text=True)
            for row in csv.DictReader(io.StringIO(r.stdout)):
                i = int(os.path.basename(row["file"])[1:7])
                if out[i] is None:  # the first kernel of the file
                    out[i] = tuple(int(float(row[c])) for c in GREWE)
    return out


def held_out_texts(db, repos):
    import sqlite3
    con = sqlite3.connect(db)
    version = con.execute("SELECT preprocessor_version FROM preprocessed ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    q = ("SELECT DISTINCT p.normalized_text FROM preprocessed p JOIN content_origins o ON o.sha256 = p.content_sha256 "
         "JOIN repositories r ON r.id = o.repository_id WHERE p.status = 'ok' AND p.preprocessor_version = ? "
         "AND r.owner || '/' || r.name = ?")
    texts = []
    for repo in repos:
        texts += [t for (t,) in con.execute(q, (version, repo))]
    return version, texts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clgen", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--held-out", required=True, help="comma-separated owner/name list")
    ap.add_argument("driven", nargs="+")
    a = ap.parse_args()
    repos = [r.strip() for r in a.held_out.split(",") if r.strip()]
    version, held = held_out_texts(a.db, repos)
    held_f = [f for f in features(a.clgen, held) if f is not None]
    held_set = set(held_f)
    print(f"held-out: {len(repos)} repositories, {len(held)} kernels ({version}), {len(held_f)} with features, "
          f"{len(held_set)} distinct feature vectors; median comp {statistics.median(f[0] for f in held_f):g}, "
          f"mem {statistics.median(f[2] for f in held_f):g}, __local {100 * sum(f[3] > 0 for f in held_f) / len(held_f):.1f}%")
    for path in a.driven:
        rows = [json.loads(l) for l in open(path)]
        seen, texts, outcomes = set(), [], {}
        for r in rows:
            if r["text"] in seen:
                continue
            seen.add(r["text"])
            texts.append(r["text"])
            outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
        fs = features(a.clgen, texts)
        ok = [f for f in fs if f is not None]
        n = len(texts)
        passed = outcomes.get("pass", 0)
        print(f"{os.path.basename(path)}: {n} driven kernels; dynamic checker pass {passed} ({100 * passed / max(n, 1):.1f}%); "
              + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1])))
        if not ok:
            continue
        print(f"  features for {len(ok)}: median comp {statistics.median(f[0] for f in ok):g}, "
              f"mem {statistics.median(f[2] for f in ok):g}; __local {100 * sum(f[3] > 0 for f in ok) / len(ok):.1f}%; "
              f"Grewe vector equal to a held-out kernel's {100 * sum(f in held_set for f in ok) / len(ok):.1f}%")


if __name__ == "__main__":
    sys.exit(main())
