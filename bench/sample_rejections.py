#!/usr/bin/env python3
"""Why sampled kernels were rejected: the `samples` rows of a workspace with
status 'rejected' (the constraint's 'refused' streams left out), grouped by
category and Clang message with names, types and numbers blanked, most
common first, and an example of the commonest groups (docs/BENCHMARKS.md,
"Why complete samples fail").

Usage: bench/sample_rejections.py WORKSPACE/clgen.db [TOP]
"""
import collections
import re
import sqlite3
import sys


def main():
    db = sqlite3.connect(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    groups = collections.Counter()
    example = {}
    for category, reason, text in db.execute(
            "SELECT category, reason, text FROM samples WHERE status = 'rejected' AND category != 'refused'"):
        message = re.sub(r"'[^']*'", "'X'", reason or "")
        message = re.sub(r"input\.cl:\d+:\d+: ", "", message)
        key = f"{category}: " + re.sub(r"\d+", "N", message)[:140]
        groups[key] += 1
        example.setdefault(key, (reason, text[:600]))
    total = sum(groups.values())
    print("rejected samples (not refused):", total)
    for key, n in groups.most_common(top):
        print(f"{n:7d} {100 * n / max(total, 1):5.1f}%  {key}")
    for key, _ in groups.most_common(6):
        reason, text = example[key]
        print(f"\n##### {key}\n{reason}\n{text}")


if __name__ == "__main__":
    main()
