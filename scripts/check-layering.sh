#!/usr/bin/env bash
# Checks the layering of the product code's includes: a file of one layer may
# include `#include "X/..."` headers of its own layer and of the layers below
# it, never of a layer above. LAYERS below is the one statement of the order,
# bottom to top; a layer is a top-level folder, except preprocess, which is
# corpus/preprocess/ (above the rest of corpus/). Only the folders of LAYERS are
# checked (tests/ and bench/ may include any layer); includes of folders that
# are no layer (<...> headers, "tests/...") are not judged.
#
# Usage: scripts/check-layering.sh [--root DIR] [--order]
#   --root DIR  check the tree under DIR (default: this repository)
#   --order     print the order, bottom to top, one layer a line, and exit
# Exits 1, printing FILE:LINE for each upward include, when there is one; 2 on a usage error.
set -uo pipefail

LAYERS=(support corpus preprocess shim model features driver sampler eval dataset predict cli)

usage() {
  sed -n '10,13s/^# \{0,1\}//p' "$0" >&2
  exit 2
}
root="$(dirname "$0")/.."
while [ $# -gt 0 ]; do
  case $1 in
    --root) [ $# -ge 2 ] || usage; root=$2; shift 2 ;;
    --order) printf '%s\n' "${LAYERS[@]}"; exit 0 ;;
    *) usage ;;
  esac
done
cd "$root" 2> /dev/null || { echo "check-layering: no folder $root" >&2; exit 2; }

# The folders to read (preprocess is read as part of corpus/).
dirs=()
for layer in "${LAYERS[@]}"; do
  if [ "$layer" != preprocess ] && [ -d "$layer" ]; then dirs+=("$layer"); fi
done
[ ${#dirs[@]} -gt 0 ] || { echo "check-layering: no layer folder under $root" >&2; exit 2; }

{ grep -rnE --include='*.cpp' --include='*.h' --include='*.cc' --include='*.hpp' \
    '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"/]+/' "${dirs[@]}" || true; } |
  LC_ALL=C sort -t: -k1,1 -k2,2n |
  awk -v order="${LAYERS[*]}" '
    BEGIN { n = split(order, names, " "); for (i = 1; i <= n; i++) rank[names[i]] = i }
    function layer(path, parts) {
      if (index(path, "corpus/preprocess/") == 1) return "preprocess"
      split(path, parts, "/")
      return parts[1]
    }
    {
      # FILE:LINE:TEXT (file names here hold no colon).
      file = $0; sub(/:.*/, "", file)
      rest = substr($0, length(file) + 2)
      line = rest; sub(/:.*/, "", line)
      text = substr(rest, length(line) + 2)
      match(text, /"[^"]+"/)
      inc = substr(text, RSTART + 1, RLENGTH - 2)
      from = layer(file); to = layer(inc)
      if (!(to in rank) || rank[to] <= rank[from]) next
      printf "%s:%s: #include \"%s\": %s includes %s, a layer above it\n", file, line, inc, from, to
      bad++
    }
    END {
      if (bad) {
        printf "check-layering: %d upward include(s); the order, bottom to top: %s\n", bad, order
        exit 1
      }
      printf "check-layering: no upward includes (bottom to top: %s)\n", order
    }'
