#!/usr/bin/env python3
"""The static usefulness check against the dynamic checker.

For every driven source of a workspace (kernel_sources joined with runs), runs
`clgen preprocess --usefulness` on its text and crosses the static verdict
with the driver's outcome: a source "passes" when one of its runs on DEVICE
(a substring of the device name; default any) passed. Prints how many
passing sources the check would reject (the issue's bound: 0) and, for the
others, which outcomes it removes.

usage: bench/usefulness.py WORKSPACE [--clgen build/cli/clgen] [--device SUBSTR] [--origin corpus|samples]
"""
import argparse
import collections
import concurrent.futures
import os
import sqlite3
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workspace")
    ap.add_argument("--clgen", default=os.path.join(os.path.dirname(__file__), "..", "build", "cli", "clgen"))
    ap.add_argument("--device", default="")
    ap.add_argument("--origin", default="", help="only sources of this origin (corpus, samples)")
    a = ap.parse_args()
    db = sqlite3.connect(os.path.join(a.workspace, "clgen.db"))
    rows = db.execute(
        "SELECT k.sha256, k.text, GROUP_CONCAT(r.outcome, '|') FROM kernel_sources k "
        "JOIN runs r ON r.kernel_sha256 = k.sha256 WHERE r.device LIKE ? AND k.origin LIKE ? "
        "GROUP BY k.sha256", (f"%{a.device}%", f"%{a.origin}%")).fetchall()
    if not rows:
        sys.exit("no driven sources match")
    verdicts = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for sha, text, _ in rows:
            p = os.path.join(tmp, sha + ".cl")
            with open(p, "w") as f:
                f.write(text)
            paths.append(p)
        def run(chunk):
            return subprocess.run([a.clgen, "preprocess", "--usefulness", "--no-infer", "--no-cl20"] + chunk,
                                  capture_output=True, text=True).stdout
        chunks = [paths[i:i + 200] for i in range(0, len(paths), 200)]
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as pool:
            outputs = list(pool.map(run, chunks))
        for out in outputs:
            for line in out.splitlines():
                path, _, rest = line.partition(": ")
                sha = os.path.basename(path)[:-3]
                if rest.startswith("useful"):
                    verdicts[sha] = "useful"
                elif rest.startswith("useless ["):
                    verdicts[sha] = rest[len("useless ["):rest.index("]")]
                else:
                    verdicts[sha] = "not accepted: " + rest.split(" ")[0]
    table = collections.Counter()
    for sha, _, outcomes in rows:
        outs = outcomes.split("|")
        best = "pass" if "pass" in outs else collections.Counter(outs).most_common(1)[0][0]
        table[(verdicts.get(sha, "missing"), best)] += 1
    passing = sum(n for (v, o), n in table.items() if o == "pass")
    rejected_passing = sum(n for (v, o), n in table.items() if o == "pass" and v not in ("useful",))
    rejected = sum(n for (v, o), n in table.items() if v not in ("useful",) and not v.startswith("not accepted"))
    print(f"sources driven: {len(rows)}; passing: {passing}")
    print(f"rejected by the static check: {rejected}, of which passing: {rejected_passing}")
    print(f"{'verdict':32} {'outcome':26} sources")
    for (v, o), n in sorted(table.items(), key=lambda x: (-x[1], x[0])):
        print(f"{v:32} {o:26} {n}")


if __name__ == "__main__":
    main()
