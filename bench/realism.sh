#!/usr/bin/env bash
# The realism report on a workspace (docs/EVAL.md): the judge floor (training
# repositories' human kernels against the held-out repositories', computed
# inside every --held-out report) beside the samples' AUC, with the run time.
# Usage: bench/realism.sh WORKSPACE CONFIG [SAMPLES...]
#   SAMPLES: folders of .cl files or exports; default: the workspace's
#   benchmark-grade kernels when it has them, else its accepted samples.
# Writes WORKSPACE/realism.json and WORKSPACE/realism.png; prints the table,
# the wall-clock seconds and the kernel counts.
set -euo pipefail
cd "$(dirname "$0")/.."
CLGEN=${BUILD_DIR:-build}/cli/clgen
[ -x "$CLGEN" ] || { echo "build clgen first"; exit 1; }
ws=$1 config=$2
shift 2
if [ $# -gt 0 ]; then samples=("$@")
elif [ -d "$ws/benchmark-grade" ]; then samples=(--benchmark-grade)
else samples=(--accepted); fi
t0=$(date +%s.%N)
"$CLGEN" --workspace "$ws" eval realism "${samples[@]}" --held-out --config "$config" \
  --json "$ws/realism.json" --plot "$ws/realism.png"
t1=$(date +%s.%N)
python3 - "$ws/realism.json" "$t0" "$t1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["sets"]
n = s["samples"]["kernels"] + s["human"]["kernels"] + s["training"]["kernels"]
floor = j["judge_floor"]["auc"] if j["judge_floor"] else float("nan")
print(f"kernels: {s['samples']['kernels']} samples, {s['human']['kernels']} held-out, "
      f"{s['training']['kernels']} training ({n} in all); wall {float(sys.argv[3]) - float(sys.argv[2]):.1f} s")
print(f"AUC samples {j['judge']['auc']:.3f}, floor {floor:.3f}")
PY
