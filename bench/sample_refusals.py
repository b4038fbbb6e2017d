#!/usr/bin/env python3
"""Where the constraint ended sampled streams: the `samples` rows of a
workspace with category 'refused', grouped by the draw that used up the
stream's --max-refusals (its token, and the text just before it with names
and numbers blanked), most common first, with an example of the commonest
groups; then the refused tokens alone, and where in the stream (characters
after the seed) the last refusal came (docs/BENCHMARKS.md).

Usage: bench/sample_refusals.py WORKSPACE/clgen.db [TOP]
"""
import collections
import re
import sqlite3
import sys

DRAW = re.compile(r"(?<![\w])(\d+):'((?:[^'\\]|\\.)*)'")  # not the taken-back draws (bOFFSET)
NAME = re.compile(r"\b[A-Za-z_]\w*\b")
KEYWORDS = set("""if else for while do return break continue int uint float double char uchar short ushort
long ulong bool void const __global global __local local __constant constant __private private __kernel kernel
unsigned signed struct typedef size_t get_global_id get_local_id get_group_id get_global_size get_local_size
barrier CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE float2 float4 int2 int4 uint4 half sizeof""".split())


def shape(context):
    """The last line before a draw, names outside KEYWORDS as N, numbers as 0."""
    line = context.rsplit("\n", 1)[-1].strip()[-48:]
    line = NAME.sub(lambda m: m.group(0) if m.group(0) in KEYWORDS else "N", line)
    return re.sub(r"\b\d+(\.\d*)?f?\b", "0", line)


def main():
    db = sqlite3.connect(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    groups, tokens, depth = collections.Counter(), collections.Counter(), collections.Counter()
    example = {}
    total = without = 0
    for reason, text in db.execute("SELECT reason, text FROM samples WHERE category = 'refused'"):
        total += 1
        draws = DRAW.findall((reason or "").split("refused at character: ", 1)[-1]) if reason else []
        if not draws:
            without += 1
            continue
        at, token = draws[-1]
        at = int(at)
        key = f"{shape(text[:at])!s:>50}  <- '{token}'"
        groups[key] += 1
        tokens[token] += 1
        body = text.find("{")
        depth[min((at - body) // 200 * 200, 2000) if body >= 0 else -1] += 1
        example.setdefault(key, (reason, text[max(0, at - 400):at] + "⟦" + token + "⟧"))
    print(f"refused samples: {total} ({without} without recorded draws)")
    for key, n in groups.most_common(top):
        print(f"{n:7d} {100 * n / max(total, 1):5.1f}%  {key}")
    print("\nrefused tokens (the last draw):")
    for token, n in tokens.most_common(25):
        print(f"{n:7d} {100 * n / max(total, 1):5.1f}%  '{token}'")
    print("\ncharacters into the body at the last refusal (200s, 2000 = 2000 or more):")
    for at in sorted(depth):
        print(f"{at:7d} {depth[at]:7d}")
    for key, _ in groups.most_common(8):
        reason, text = example[key]
        print(f"\n##### {key}\n{reason[:300]}\n{text}")


if __name__ == "__main__":
    main()
