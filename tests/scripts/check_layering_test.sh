#!/usr/bin/env bash
# scripts/check-layering.sh on small fake trees: each upward include is printed
# with its file and line and fails the check; includes of the same layer or
# one below, of no layer, or from tests/ and bench/ pass; corpus/preprocess/
# is a layer of its own above corpus/.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHECK=$ROOT/scripts/check-layering.sh
fail=0
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

put() {  # FILE LINE...: writes FILE under the fake tree, one LINE a line
  local f=$tree/$1
  shift
  mkdir -p "$(dirname "$f")"
  printf '%s\n' "$@" > "$f"
}
run() {  # ROOT: the check's output (stdout and stderr) and exit status
  out=$("$CHECK" --root "$1" 2>&1)
  rc=$?
}

put support/status.h '#pragma once'
put corpus/store.cpp '#include "corpus/store.h"' '#include "support/status.h"'
put corpus/preprocess/pipeline.cpp '#include "corpus/store.h"' '#include "support/status.h"'
put features/static_features.cpp '#include "model/config.h"' '#include <clang/AST/Decl.h>'
put cli/main.cpp '#include "eval/report.h"' '#include "tests/cli/run_command.h"'
put tests/model/store_test.cpp '#include "cli/command.h"'
put bench/probe.cpp '#include "cli/command.h"'
run "$tree"
if [ $rc -ne 0 ]; then
  echo "FAIL: a tree without upward includes exited $rc:"; echo "$out"; fail=1
fi

# The upward includes, one of them indented and spaced, and one of corpus/preprocess/ from corpus/.
put corpus/github.cpp '// mining' '#include "corpus/preprocess/pipeline.h"'
put model/feature_cache.cpp '#include "support/status.h"' '#include "model/store.h"' '  #  include "features/static_features.h"'
put driver/drive.cpp '#include "sampler/catalog.h"'
run "$tree"
want='corpus/github.cpp:2: #include "corpus/preprocess/pipeline.h": corpus includes preprocess, a layer above it
driver/drive.cpp:1: #include "sampler/catalog.h": driver includes sampler, a layer above it
model/feature_cache.cpp:3: #include "features/static_features.h": model includes features, a layer above it'
got=$(echo "$out" | grep -v '^check-layering:')
if [ $rc -ne 1 ] || [ "$got" != "$want" ]; then
  echo "FAIL: upward includes: exit $rc (want 1), output:"; echo "$out"; echo "wanted:"; echo "$want"; fail=1
fi

# --order: the script's one list, bottom (support) to top (cli); not repeated here.
order=$("$CHECK" --order | tr '\n' ' ')
if [[ $order != "support corpus preprocess "*" cli " ]]; then
  echo "FAIL: --order printed: $order"; fail=1
fi
"$CHECK" --no-such-option > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: an unknown option exited $rc, not 2"; fail=1; }

[ $fail -eq 0 ] && echo "check-layering on fake trees: ok"
exit $fail
