#!/usr/bin/env python3
"""Directed against undirected synthetic kernels for the workgroup-size task
(bench/gpu/wgsize.sh, phases arms and pick_arms; docs/RESULTS.md).

  wgsize_arms.py targets DATA.csv TARGETS.csv SHAS.txt
      (here) from a wgsize export's real (corpus) rows: one row per distinct
      kernel with its Grewe features, the CSV that `sample --target-features`
      reads, and the kernels' normalized sha256s, one a line, for pick.
  wgsize_arms.py pick DB OUT SHAS.txt N DEVICE
      (on the GPU machine) writes under OUT/1d and OUT/2d the real kernels of
      SHAS.txt and, for each steering of the accepted samples that passed on
      DEVICE (an SQL LIKE pattern) at global size 4096, the same number of
      them: the smallest steering's count, at most N. File names interleave
      the sets, so a sweep cut short leaves all of them.
"""
import csv
import os
import random
import re
import sqlite3
import sys

GREWE = ("comp", "rational", "mem", "localmem", "coalesced", "atomic")
TWO_D = re.compile(r"get_(global|local|group)_(id|size)\s*\(\s*1\s*\)|get_num_groups\s*\(\s*1\s*\)")


def targets(data, targets_out, shas_out):
    kernels = {}
    with open(data, newline="") as f:
        for row in csv.DictReader(f):
            if row["origin"] == "synthetic":
                continue
            key = (row["kernel_sha256"], row["kernel"])
            kernels.setdefault(key, [row[c] for c in GREWE])
    with open(targets_out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("file", "kernel") + GREWE)
        for (sha, name), values in sorted(kernels.items()):
            w.writerow([sha[:12], name] + values)
    shas = sorted({sha for sha, _ in kernels})
    with open(shas_out, "w") as f:
        f.write("".join(s + "\n" for s in shas))
    print(f"{len(kernels)} real kernels in {len(shas)} sources -> {targets_out}, {shas_out}")


def write(out, index, tag, sha, text):
    dims = "2d" if TWO_D.search(text) else "1d"
    os.makedirs(os.path.join(out, dims), exist_ok=True)
    with open(os.path.join(out, dims, f"{index:05d}-{tag}-{sha[:12]}.cl"), "w") as f:
        f.write(text)
    return dims


def pick(db_path, out, shas_path, cap, device):
    db = sqlite3.connect(db_path)
    wanted = [line.strip() for line in open(shas_path) if line.strip()]
    real = []
    for sha in wanted:
        row = db.execute("SELECT normalized_text FROM preprocessed WHERE normalized_sha256 = ? AND status = 'ok' "
                         "LIMIT 1", (sha,)).fetchone()
        if row:
            real.append((sha, row[0]))
    print(f"real: {len(real)} of {len(wanted)} listed kernels are in the workspace")
    columns = {r[1] for r in db.execute("PRAGMA table_info(samples)")}
    steering = "COALESCE(s.steering, 'undirected')" if "steering" in columns else "'undirected'"
    rows = db.execute(
        f"SELECT DISTINCT {steering}, k.sha256, k.text FROM runs r JOIN kernel_sources k ON k.sha256 = r.kernel_sha256 "
        "JOIN samples s ON s.normalized_sha256 = k.sha256 AND s.status = 'accepted' "
        "WHERE r.outcome = 'pass' AND r.device LIKE ? AND r.global_size = '4096' AND r.requested_local_size = '' "
        "AND r.origin = 'samples' ORDER BY k.sha256", (device,)).fetchall()
    arms = {}
    for arm, sha, text in rows:
        arms.setdefault(arm, {})[sha] = text  # a kernel sampled by two arms counts for the first stored
    if not arms:
        sys.exit("wgsize_arms pick: no sample passed on " + device)
    n = min(cap, min(len(v) for v in arms.values()))
    rng = random.Random(19)
    sets = [("real", real)]
    for arm in sorted(arms):
        picked = sorted(arms[arm].items())
        rng.shuffle(picked)
        sets.append((arm, picked[:n]))
        print(f"{arm}: {len(arms[arm])} passing samples; picked {n}")
    for tag, items in sets:
        two = sum(write(out, i, tag, sha, text) == "2d" for i, (sha, text) in enumerate(items))
        print(f"  {tag}: {len(items) - two} 1-D, {two} 2-D")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "targets":
        targets(*sys.argv[2:5])
    elif len(sys.argv) == 7 and sys.argv[1] == "pick":
        pick(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
    else:
        sys.exit(__doc__)
