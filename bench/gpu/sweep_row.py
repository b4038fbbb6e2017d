#!/usr/bin/env python3
"""One row of bench/gpu/models.sh's sweep.tsv from a `clgen train` log:

  sweep_row.py LOG NAME OVERRIDES

name, overrides, best validation loss and its epoch, epochs finished, the last
epoch's validation loss, and the median training tokens/s of the epochs after
the first (the first holds the start-up)."""
import re
import sys

log, name, over = open(sys.argv[1], errors="replace").read(), sys.argv[2], sys.argv[3]
rows = re.findall(r"epoch (\d+)/\d+: train loss [\d.]+, validation loss ([\d.]+).*?([\d.]+) tokens/s", log)
if not rows:
    print(f"{name}\t{over}\t-\t-\t0\t-\t-")
    sys.exit(0)
best = min(rows, key=lambda r: float(r[1]))
speeds = sorted(float(r[2]) for r in rows[1:]) or [float(rows[0][2])]
print(f"{name}\t{over}\t{best[1]}\t{best[0]}\t{rows[-1][0]}\t{rows[-1][1]}\t{speeds[len(speeds) // 2]:.0f}")
