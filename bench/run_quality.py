#!/usr/bin/env python3
"""Quality of one sampling run's accepted kernels (docs/BENCHMARKS.md): N of
them, drawn at random with a fixed seed from the workspace's `samples` table,
go through the dynamic checker (`clgen drive`, 16 workers, global size 4096,
1 s time-out, as `sample --check` drives them), and `clgen features` gives
their Grewe features. Prints one line: kernels drawn of accepted, checker
outcomes, median comp and mem, the share with comp >= 10 and the share using
`__local` memory. With --targets-csv (a `--target-report`), also the share
whose six Grewe features equal one of the targets'. With --export, writes
the drawn kernels as JSON lines (text, outcome, the six features), a few
hundred KB, so that their failures can be read on another machine.

Usage: bench/run_quality.py --clgen build/cli/clgen --workspace RUN_WS
         [--n 300] [--seed 1] [--device gpu] [--label NAME] [--targets-csv FILE]
         [--export FILE.jsonl]
"""
import argparse
import csv
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sample_quality import features  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clgen", required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--label", default="")
    ap.add_argument("--targets-csv", default="")
    ap.add_argument("--export", default="")
    a = ap.parse_args()
    db = sqlite3.connect(os.path.join(a.workspace, "clgen.db"))
    rows = db.execute("SELECT normalized_sha256, normalized_text FROM samples WHERE status = 'accepted' "
                      "ORDER BY normalized_sha256").fetchall()
    if not rows:
        print(f"{a.label}: no accepted samples in {a.workspace}")
        return 1
    picked = random.Random(a.seed).sample(rows, min(a.n, len(rows)))
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for sha, text in picked:
            paths.append(os.path.join(d, sha + ".cl"))
            with open(paths[-1], "w") as f:
                f.write(text)
        r = subprocess.run([a.clgen, "--workspace", a.workspace, "-q", "drive", *paths, "--device", a.device,
                            "-j", "16", "--gsize", "4096", "--timeout", "1"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{a.label}: drive failed: {r.stderr.strip()[-500:]}")
            return 1
    outcomes, outcome_of = {}, []
    for sha, _ in picked:
        got = [o for (o,) in db.execute("SELECT outcome FROM runs WHERE kernel_sha256 = ?", (sha,))]
        o = "pass" if "pass" in got else (got[0] if got else "not driven")
        outcomes[o] = outcomes.get(o, 0) + 1
        outcome_of.append(o)
    all_fs = features(a.clgen, [t for _, t in picked])
    fs = [f for f in all_fs if f is not None]
    if a.export:
        with open(a.export, "w") as out:
            for (_, text), o, f in zip(picked, outcome_of, all_fs):
                out.write(json.dumps({"text": text, "outcome": o, "grewe": f}) + "\n")
    n = len(picked)
    line = (f"{a.label}: {n} of {len(rows)} accepted; checker pass {outcomes.get('pass', 0)} "
            f"({100 * outcomes.get('pass', 0) / n:.1f}%); "
            + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1]) if k != "pass"))
    if fs:
        line += (f"; features for {len(fs)}: median comp {statistics.median(f[0] for f in fs):g}, "
                 f"mem {statistics.median(f[2] for f in fs):g}, comp >= 10 {100 * sum(f[0] >= 10 for f in fs) / len(fs):.1f}%, "
                 f"__local {100 * sum(f[3] > 0 for f in fs) / len(fs):.1f}%")
        if a.targets_csv:
            targets = {tuple(int(v) for v in r["target_values"].split(",")) for r in csv.DictReader(open(a.targets_csv))}
            line += f", equal to a target {100 * sum(f in targets for f in fs) / len(fs):.1f}%"
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
