#!/usr/bin/env bash
# libFuzzer targets in fork mode on the GPU machine's 16 cores (pack here, run there).
# Fuzzing on the GPU machine's 16 cores (libFuzzer's -fork mode), for the
# targets whose inputs are Clang compiles (hundreds of executions per second
# per core: 1 M executions need hours of one core here).
#
#   HERE:   bench/gpu-experiment.sh fuzz pack TARGET...
#           bundles build-fuzz/tests/fuzz/TARGET (scripts/fuzz.sh builds them),
#           the shared libraries the Ubuntu machine lacks, Clang's resource
#           headers and each target's seeds (tests/fuzz/seeds.sh) into
#           .carry-fuzz/fuzz.tar.xz; carry .carry-fuzz.
#   THERE:  bench/gpu-experiment.sh fuzz run TARGET SECONDS FORKS
#           unpacks the bundle once (gpu-work/fuzz), runs TARGET with -fork=FORKS
#           for SECONDS, keeping going past findings (-ignore_crashes etc.), the
#           corpus kept in gpu-work/fuzz/corpus/TARGET between warm calls, and
#           ends with "gpu-fuzz: TARGET: N executions ..."; findings and the log
#           land in $OUT/fuzz/TARGET. Two runs started together on a new bundle race
#           on the unpack: start one (`run TARGET 1 1`), then the others.
# shellcheck disable=SC2317  # phases are called by name (phase_$NAME)
set -euo pipefail
mode=${1:-}
case "$mode" in
  pack)
    shift
    [ $# -gt 0 ] || { echo "usage: bench/gpu-experiment.sh fuzz pack TARGET..." >&2; exit 2; }
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/bin" "$work/lib" "$work/seeds" "$work/dict"
    # Libraries an Ubuntu 24.04 machine has under the same soname are left out.
    have='^(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libz|libxml2|libicu.*|libzstd|liblzma|libbz2|liblz4|libacl|libnettle|libffi|libtinfo|libbsd|libmd|libsqlite3|libcrypto|libresolv|libdl|libpthread|librt)\.so'
    for t in "$@"; do
      b=build-fuzz/tests/fuzz/$t
      [ -x "$b" ] || { echo "gpu-fuzz: $b missing (scripts/fuzz.sh $t 1 builds it)" >&2; exit 1; }
      cp "$b" "$work/bin/"
      ldd "$b" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
        [[ "$name" =~ $have ]] || cp -L "$path" "$work/lib/$name"
      done
      tests/fuzz/seeds.sh "$t" "$work/seeds/$t" > /dev/null
      [ -f "tests/fuzz/$t.dict" ] && cp "tests/fuzz/$t.dict" "$work/dict/"
    done
    cp -r /usr/lib/llvm-15/lib/clang/15.0.6/include "$work/resource-include"
    mkdir -p .carry-fuzz
    tar -C "$work" -cf - . | xz -T0 -6 > .carry-fuzz/fuzz.tar.xz
    du -h .carry-fuzz/fuzz.tar.xz
    ;;
  run)
    [ $# -eq 4 ] || { echo "usage: bench/gpu-experiment.sh fuzz run TARGET SECONDS FORKS" >&2; exit 2; }
    t=$2 seconds=$3 forks=$4
    dir=gpu-work/fuzz
    # A new bundle replaces the binaries; the corpora stay.
    sum=$(sha256sum .carry-fuzz/fuzz.tar.xz | cut -c1-64)
    if [ "$(cat "$dir/.unpacked" 2>/dev/null)" != "$sum" ]; then
      rm -rf "${dir:?}/bin" "${dir:?}/lib" "$dir/seeds" "$dir/dict" "$dir/resource-include"
      mkdir -p "$dir" && xz -dc .carry-fuzz/fuzz.tar.xz | tar -C "$dir" -xf - && echo "$sum" > "$dir/.unpacked"
    fi
    # The binaries look for Clang's headers where Debian puts them.
    res=/usr/lib/llvm-15/lib/clang/15.0.6
    if [ ! -e "$res/include/opencl-c.h" ]; then
      mkdir -p "$res" && rm -rf "$res/include" && ln -s "$PWD/$dir/resource-include" "$res/include"
    fi
    out=${OUT:-gpu-results}/fuzz/$t
    mkdir -p "$out" "$dir/corpus/$t"
    dict=()
    [ -f "$dir/dict/$t.dict" ] && dict=(-dict="$dir/dict/$t.dict")
    max_len=4096
    [ "$t" = fuzz_code_constraint ] && max_len=1024
    set +e
    LD_LIBRARY_PATH="$PWD/$dir/lib" ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
      "$dir/bin/$t" -seed="${FUZZ_SEED:-1}" -fork="$forks" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
      -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$out/" "${dict[@]}" "$dir/corpus/$t" "$dir/seeds/$t" > "$out/run.log" 2>&1
    rc=$?
    set -e
    last=$(grep -E '^#[0-9]+: cov:' "$out/run.log" | tail -1 || true)  # none when the run died at start
    execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' <<< "$last")
    speed=$(sed -n 's/.* exec\/s:\{0,1\} \([0-9]*\).*/\1/p' <<< "$last")
    found=$(find "$out" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    tail -n 5 "$out/run.log"
    echo "gpu-fuzz: $t: ${execs:-?} executions in $seconds s with $forks forks, ${speed:-?} exec/s, exit $rc, $found finding files in $out"
    ;;
  *)
    echo "usage: bench/gpu-experiment.sh fuzz pack TARGET... | run TARGET SECONDS FORKS" >&2
    exit 2
    ;;
esac
