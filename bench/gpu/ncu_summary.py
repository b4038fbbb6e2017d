#!/usr/bin/env python3
"""The GPU time per kernel name in an `ncu --csv --print-summary per-kernel`
report of gpu__time_duration.sum (bench/gpu/models.sh, phase profile):

  ncu_summary.py REPORT.csv LABEL [TOP]

prints the total over the profiled launches and the TOP (default 15) kernels by
time, with their launches. ncu writes its own progress lines before the CSV;
rows without the header's width are skipped."""
import csv
import sys


def main():
    path, label = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    rows = list(csv.reader(open(path, errors="replace")))
    start = next(i for i, r in enumerate(rows) if "Kernel Name" in r and "Metric Name" in r)
    head = rows[start]
    col = {name: head.index(name) for name in ("Kernel Name", "Metric Name", "Average")}
    calls = head.index("Invocations") if "Invocations" in head else None  # absent: a row a launch
    time_ns, launches = {}, {}
    for r in rows[start + 1:]:
        if len(r) != len(head) or r[col["Metric Name"]] != "gpu__time_duration.sum":
            continue
        name = r[col["Kernel Name"]]
        count = int(r[calls].replace(",", "")) if calls is not None else 1
        avg = float(r[col["Average"]].replace(",", ""))
        time_ns[name] = time_ns.get(name, 0.0) + avg * count
        launches[name] = launches.get(name, 0) + count
    total = sum(time_ns.values())
    if not total:
        sys.exit(f"ncu_summary: no gpu__time_duration.sum rows in {path}")
    print(f"{label}: {sum(launches.values())} launches, {total / 1e6:.2f} ms of GPU time "
          f"({total / 1e3 / sum(launches.values()):.1f} us a launch); the largest kernels:")
    for name, t in sorted(time_ns.items(), key=lambda x: -x[1])[:top]:
        print(f"  {100 * t / total:5.1f}%  {t / 1e6:8.2f} ms  {launches[name]:6d}x  {name[:100]}")


if __name__ == "__main__":
    main()
