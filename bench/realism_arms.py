#!/usr/bin/env python3
"""The realism table of bench/gpu/realism.sh's arms (docs/BENCHMARKS.md, "Realism").

    bench/realism_arms.py WORKSPACE CONFIG ARMS_DIR JSON_DIR [--graded] > table.md

ARMS_DIR holds one folder per arm with accepted/ and grade/ (the arms.tar.xz the
GPU call packs); JSON_DIR the arms' `sample --json` summaries (arm-NAME.json,
empty where the run failed). For each arm the benchmark-grade kernels go through
`clgen eval realism --as-is` against the held-out repositories (with the judge's
floor) and, with --graded, against the benchmark-grade training kernels of
WORKSPACE (its runs: `clgen drive --corpus`). Prints one markdown row per arm.
"""
import json
import os
import statistics
import subprocess
import sys

CLGEN = os.environ.get("CLGEN", "build/cli/clgen")


def evaluate(ws, config, folder, human):
    out = subprocess.run([CLGEN, "--workspace", ws, "-q", "eval", "realism", folder, "--as-is", human, "--config",
                          config, "--json", "-"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def main():
    ws, config, arms_dir, json_dir = sys.argv[1:5]
    graded = "--graded" in sys.argv[5:]
    print("| arm | samples/s | accepted / samples | benchmark-grade a minute | median tokens: accepted, "
          "benchmark-grade | AUC vs held-out (length-matched; floor) | AUC vs benchmark-grade training (floor) "
          "| near copies |")
    print("|---|---|---|---|---|---|---|---|")
    for arm in sorted(os.listdir(arms_dir)):
        grade = os.path.join(arms_dir, arm, "grade")
        if not os.path.isdir(grade):
            continue
        summary = {}
        path = os.path.join(json_dir, f"arm-{arm}.json")
        if os.path.exists(path) and os.path.getsize(path) > 0:
            summary = json.load(open(path))
        held = evaluate(ws, config, grade, "--held-out")
        accepted = evaluate(ws, config, os.path.join(arms_dir, arm, "accepted"), "--held-out")
        row = [arm]
        if summary:
            row.append(f"{summary['samples'] / summary['seconds']:.1f}")
            row.append(f"{summary['accepted'] / max(summary['samples'], 1):.1%}")
            row.append(f"{summary['dynamically_valid_per_minute']:.0f} ({summary['dynamically_valid']} in "
                       f"{summary['wall_seconds']:.0f} s)")
        else:
            row += ["failed (see note)"] * 3
        med = lambda j: j["distributions"]["tokens"]["median_samples"] if j else float("nan")
        row.append(f"{med(accepted):.0f}, {med(held):.0f} (human {held['distributions']['tokens']['median_human']:.0f})"
                   if held else "–")
        if held:
            lm = held["judge_length_matched"]["auc"] if held.get("judge_length_matched") else float("nan")
            fl = held["judge_floor"]["auc"] if held.get("judge_floor") else float("nan")
            row.append(f"{held['judge']['auc']:.3f} ({lm:.3f}; {fl:.3f})")
        else:
            row.append("–")
        if graded:
            g = evaluate(ws, config, grade, "--graded-training")
            if g:
                fl = g["judge_floor"]["auc"] if g.get("judge_floor") else float("nan")
                row.append(f"{g['judge']['auc']:.3f} ({fl:.3f}); median {g['distributions']['tokens']['median_human']:.0f}")
            else:
                row.append("–")
        else:
            row.append("not measured")
        novelty = held.get("novelty") if held else None
        row.append(f"{novelty['near_copies'] / max(novelty['samples'], 1):.1%}" if novelty else "–")
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
