#!/usr/bin/env bash
# The README's main job (scripts/run-default.sh) in its CI form: QUICK=1 with a
# built clgen (no install, no build), in a fresh workspace. It must install
# the shipped model, sample with the checker, and leave at least one
# benchmark-grade kernel file and a CSV row of its CPU runtime.
# Usage: main_job_quick_test.sh CLGEN
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLGEN_BIN=$1
if [ ! -f "$ROOT/model/default/package.json" ]; then
  echo "skipped: model/default holds no model package (docs/MODEL.md, \"The shipped model\", says how to make it)"
  exit 77
fi
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
out=$(QUICK=1 CLGEN="$CLGEN_BIN" WORKSPACE="$ws/work" "$ROOT/scripts/run-default.sh" 2>&1)
rc=$?
shopt -s nullglob
files=("$ws"/work/benchmark-grade/*/*.cl)
fail=0
if [ $rc -ne 0 ]; then echo "FAIL: run-default.sh exited $rc"; fail=1; fi
if [ ${#files[@]} -lt 1 ]; then echo "FAIL: no benchmark-grade kernel file written"; fail=1; fi
# The CSV: a header and one row per kernel driven.
rows=$( [ -f "$ws/work/benchmark-grade.csv" ] && tail -n +2 "$ws/work/benchmark-grade.csv" | grep -c . )
if [ "${rows:-0}" -lt 1 ]; then echo "FAIL: benchmark-grade.csv has no runtime row"; fail=1; fi
if [[ $out != *"benchmark-grade kernels (compile, run"* ]]; then echo "FAIL: no closing summary"; fail=1; fi
if [ $fail -ne 0 ]; then echo "$out" | tail -40; exit 1; fi
echo "ok: ${#files[@]} benchmark-grade kernel(s), $rows CSV row(s)"
