#!/usr/bin/env bash
# Writes the seed inputs of fuzz target TARGET into DIR, from tests/data
# (scripts/fuzz.sh calls it): tests/fuzz/seeds.sh TARGET DIR.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
data=tests/data

# seed NAME: stdin becomes one seed file.
seed() { cat > "$dir/$1"; }

case "$target" in
  fuzz_arg_spec)
    # The --args values of the tests and docs, and the prototypes of the fixed kernels.
    printf 'float*,float*,float*,int' | seed a1
    printf 'global const float4* restrict, local uint8*, constant half*, unsigned char' | seed a2
    printf '__global volatile double*,__local int*,long,unsigned' | seed a3
    for f in "$data"/sampler/corpus/*.cl "$data"/model/*.cl; do
      head -1 "$f" | sed 's/^__kernel void A(//; s/) {$//; s/ [a-z]*\(,\|$\)/\1/g' | tr -d '\n' | seed "$(basename "$f").args"
    done
    ;;
  fuzz_manifest)
    printf 'repository\tcommit\tlicense\tfiles_kept\tbytes_kept\tdomain\nalice/kernels\t0123456789abcdef0123456789abcdef01234567\tMIT\t3\t4096\timage\nbob/fft\tfedcba9876543210fedcba9876543210fedcba98\tApache-2.0\t12\t88000\tsignal\n' | seed m1
    printf 'domain\tbytes_kept\trepository\textra\tfiles_kept\tlicense\tcommit\r\nml\t10\ta/b\tx\t1\tBSD-3-Clause\tabc\r\n\r\nsim\t0\tc/d\t\t0\t\tdef\r\n' | seed m2
    ;;
  fuzz_features_csv)
    for f in "$data"/devmap/*.csv "$data"/wgsize/*.csv "$data"/notebooks/*.csv; do
      head -c 4000 "$f" | seed "$(basename "$f")"
    done
    printf 'a,"b ""q""",c\r\n1,"x,\ny",3\n\n4,,6\n' | seed quoted.csv
    ;;
  fuzz_code_constraint)
    # Mode byte (0: sampled text in pieces, 1: a training text, 2: a tables file), then the text.
    for f in "$data"/sampler/corpus/*.cl "$data"/model/*.cl; do
      { printf '\003'; cat "$f"; } | seed "$(basename "$f").pieces"
      { printf '\001'; cat "$f"; } | seed "$(basename "$f").train"
    done
    { printf '\002'; printf '{"version":1,"fixed":["int","float"],"fields":["x"]}'; } | seed tables.json
    ;;
  fuzz_inliner)
    # Files separated by a NUL byte, each "path\ncontents"; the first is the one inlined.
    for f in "$data"/preprocess/*/*.cl; do
      { printf 'src/k.cl\n#include "inc/a.h"\n#include <b.h>\n#include "../secret.h"\n'; cat "$f";
        printf '\0inc/a.h\n#include "../include/b.h"\nint a;\n\0include/b.h\n#pragma once\n#define X 1\n'; } | seed "$(basename "$f")"
    done
    ;;
  fuzz_kernel_args)
    for f in "$data"/driver/*.cl "$data"/model/*.cl; do
      case "$f" in *infinite_loop*|*front_end_crash*) ;; *) seed "$(basename "$f")" < "$f" ;; esac
    done
    ;;
  fuzz_rewrite)
    # Not the input that crashes Clang on purpose (`#pragma clang __debug crash`): the
    # recovered crash leaks the compiler's state by design, which LeakSanitizer reports.
    for f in "$data"/preprocess/*/*.cl; do
      grep -q '__debug' "$f" && continue
      case "$f" in *.expected.cl) ;; *) seed "$(basename "$(dirname "$f")")-$(basename "$f")" < "$f" ;; esac
    done
    ;;
  fuzz_host_code)
    # The host-code fixtures, each prefixed with its language's byte (HostLanguage:
    # 0 C, 1 Python, 2 Java, 3 JavaScript, 4 Rust), and one with Latin-1 bytes.
    for f in "$data"/host_code/*; do
      case "$f" in
        *.golden) ;;
        *.py) { printf '\001'; cat "$f"; } | seed "$(basename "$f")" ;;
        *.java) { printf '\002'; cat "$f"; } | seed "$(basename "$f")" ;;
        *) { printf '\000'; cat "$f"; } | seed "$(basename "$f")" ;;
      esac
    done
    printf '\003const s = `__kernel void k(__global int* a) { a[0] = ${v}; }` + "x";\n' | seed js
    printf '\004const S: &str = r#"__kernel void k(__global int* a) { a[0] = 1; }"#; fn f<%sa>() {}\n' "'" | seed rs
    printf '\000// \251 caf\351\nconst char* s = "__kernel void k(int a) { }" "\\n";\n' | seed latin1
    ;;
  *)
    echo "seeds.sh: no seeds for '$target'" >&2
    exit 2
    ;;
esac
n=$(find "$dir" -type f | wc -l)
echo "seeds.sh: $n seeds for $target in $dir"
