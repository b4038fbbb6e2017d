#!/usr/bin/env python3
"""Discard rates of one preprocessor version in a workspace, by file and by
kernel, overall and per repository, with the rejection reasons counted.

A file is discarded when none of its kernels is accepted. The kernel
denominator counts kernel function definitions in the raw kernel files (a textual count, so kernels of files that never compile are counted
too); accepted kernels are the stored ok rows.

Usage: bench/corpus_discard.py WORKSPACE/clgen.db VERSION [--top N] [--exclude REPO]...
"""
import argparse
import re
import sqlite3
from collections import Counter, defaultdict

# A kernel definition: a word containing "kernel" (`__kernel`, `kernel`, or a
# qualifier macro such as hashcat's KERNEL_FQ) before `void NAME(` in the same
# declaration.
KERNEL = re.compile(r"\b\w*(?:kernel|KERNEL)\w*\b[^;{}()]*?\bvoid\s+\w+\s*\(")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def kernel_counts(text):
    """(kernel definitions, of them with an empty body `{ }`) in `text`, comments removed."""
    text = COMMENT.sub(" ", text)
    n = empty = 0
    for m in KERNEL.finditer(text):
        n += 1
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        rest = text[i:i + 400].lstrip()
        if rest.startswith("{") and rest[1:].lstrip().startswith("}"):
            empty += 1
    return n, empty


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("version")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--exclude", action="append", default=[], help="owner/name left out of the totals")
    a = ap.parse_args()
    db = sqlite3.connect(a.db)
    repo_of = {}
    for sha, owner, name in db.execute(
            "SELECT o.sha256, r.owner, r.name FROM content_origins o JOIN repositories r ON r.id = o.repository_id "
            "WHERE o.role = 'kernel'"):
        repo_of.setdefault(sha, f"{owner}/{name}")
    kernels_in, empty_in = {}, {}
    for sha, text in db.execute("SELECT sha256, text FROM content_files"):
        if sha in repo_of:
            kernels_in[sha], empty_in[sha] = kernel_counts(text)
    rows = defaultdict(list)
    inferred = set()
    for sha, kernel, status, cat, inf in db.execute(
            "SELECT content_sha256, kernel, status, COALESCE(category, ''), inferred FROM preprocessed "
            "WHERE preprocessor_version = ?", (a.version,)):
        rows[sha].append((kernel, status, cat))
        if inf:
            inferred.add(sha)
    files = Counter()
    reasons = Counter()
    per_repo = defaultdict(Counter)
    kernels = Counter()
    for sha, repo in repo_of.items():
        if repo in a.exclude or sha not in rows:
            continue
        r = rows[sha]
        ok = sum(1 for _, s, _ in r if s == "ok")
        files["all"] += 1
        per_repo[repo]["files"] += 1
        kernels["all"] += max(kernels_in.get(sha, 0), len(r) if r[0][0] else 0)
        kernels["ok"] += ok
        kernels["empty"] += empty_in.get(sha, 0)
        if ok:
            files["ok"] += 1
            per_repo[repo]["ok"] += 1
            if sha in inferred:
                files["inferred"] += 1
        else:
            key = "no kernel accepted" if r[0][0] else f"{r[0][1]}/{r[0][2]}"
            reasons[key] += 1
            per_repo[repo][key] += 1
    n, ok = files["all"], files["ok"]
    print(f"version {a.version}" + (f" (excluding {', '.join(a.exclude)})" if a.exclude else ""))
    print(f"files: {ok} of {n} with an accepted kernel; discarded {n - ok} ({100 * (n - ok) / max(n, 1):.1f}%); "
          f"{files['inferred']} accepted only with inferred names")
    kn, kok = kernels["all"], kernels["ok"]
    print(f"kernels: {kok} accepted of {kn} defined in the files; discarded {kn - kok} "
          f"({100 * (kn - kok) / max(kn, 1):.1f}%)")
    # An empty body (`{ }`, hashcat's unused vector-width variants) has no
    # code to keep; the share without them, beside the one with them.
    ke = kernels["empty"]
    print(f"kernels with a body: {kok} accepted of {kn - ke} ({ke} have an empty body `{{ }}`); discarded "
          f"{kn - ke - kok} ({100 * (kn - ke - kok) / max(kn - ke, 1):.1f}%)")
    print("discarded files by reason:")
    for k, v in reasons.most_common():
        print(f"  {k:45s} {v}")
    print(f"repositories with the most discarded files (top {a.top}):")
    worst = sorted(per_repo.items(), key=lambda kv: kv[1]["files"] - kv[1]["ok"], reverse=True)[:a.top]
    for repo, c in worst:
        top = ", ".join(f"{k} {v}" for k, v in c.most_common() if k not in ("files", "ok"))[:150]
        print(f"  {repo:45s} {c['files'] - c['ok']:5d} of {c['files']:5d}  {top}")


if __name__ == "__main__":
    main()
