#!/usr/bin/env bash
# Runs one libFuzzer target for a time budget: scripts/fuzz.sh TARGET SECONDS.
# Configures and builds build-fuzz/ (clang-15, ASan+UBSan, CLGEN_FUZZ=ON) when
# needed, seeds the run from tests/data (tests/fuzz/seeds.sh), uses a fixed
# -seed (FUZZ_SEED) and extra libFuzzer flags from FUZZ_ARGS (e.g. "-fork=1
# -ignore_ooms=1" to fuzz on past a finding), and ends with the executions,
# exec/s and crashes. Crash inputs land in build-fuzz/crashes/TARGET/.
# docs/FUZZING.md lists the targets.
#
# scripts/fuzz.sh smoke SECONDS: the CI smoke (scripts/test.sh). Builds the
# fuzz targets (the text ones; FUZZ_SMOKE_CLANG=1 adds the two Clang targets;
# FUZZ_SMOKE_TARGETS names others) in one ninja call, runs each
# for SECONDS on its seeds, JOBS (default: the cores) at a time, and fails
# when any run finds a crash, leak or timeout; prints each target's line and
# the minutes spent building and running.
# scripts/fuzz.sh smoke-build 0: only configures and builds what the smoke runs.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 2 ]; then
  echo "usage: scripts/fuzz.sh TARGET SECONDS | scripts/fuzz.sh smoke SECONDS   (targets: tests/fuzz/CMakeLists.txt, fuzz_*)" >&2
  exit 2
fi
target=$1
seconds=$2
BUILD_DIR=${BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-$(nproc)}
SEED=${FUZZ_SEED:-1}

configure() {
  # Only the components a target may fuzz; LibTorch, OpenCV and SentencePiece stay out.
  # -O1 with line tables: readable sanitizer traces at a fair speed; assertions on.
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCLGEN_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-15 -DCMAKE_CXX_COMPILER=clang++-15 \
    -DCMAKE_BUILD_TYPE=FuzzDebug -DCMAKE_CXX_FLAGS_FUZZDEBUG="-O1 -gline-tables-only" \
    -DCMAKE_C_FLAGS_FUZZDEBUG="-O1 -gline-tables-only" -DBUILD_TESTING=OFF \
    -DCLGEN_WITH_TORCH=OFF -DCLGEN_WITH_OPENCV=OFF -DCLGEN_WITH_SENTENCEPIECE=OFF
}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then configure; fi

if [ "$target" = smoke ] || [ "$target" = smoke-build ]; then
  start=$(date +%s)
  # The Clang targets (fuzz_kernel_args, fuzz_rewrite) need a sanitized
  # clgen_clang / clgen_preprocess: about 25 minutes more on two cold cores, so
  # they join only with FUZZ_SMOKE_CLANG=1 (docs/FUZZING.md).
  all=$(ninja -C "$BUILD_DIR" -t targets all | sed -n 's|^tests/fuzz/\(fuzz_[a-z_]*\): .*|\1|p' | sort -u)
  if [ "${FUZZ_SMOKE_CLANG:-0}" = 0 ]; then all=$(echo "$all" | grep -v -x -e fuzz_kernel_args -e fuzz_rewrite); fi
  targets=${FUZZ_SMOKE_TARGETS:-$(echo "$all" | tr '\n' ' ')}
  # shellcheck disable=SC2086
  cmake --build "$BUILD_DIR" -j "$JOBS" --target $targets
  if [ "$target" = smoke-build ]; then exit 0; fi
  built=$(date +%s)
  # A libFuzzer run uses one core: run $JOBS targets at a time, each for the
  # full SECONDS, and report them in the order of $targets.
  failed=()
  declare -A pid_of=()
  for t in $targets; do
    rm -rf "$BUILD_DIR/crashes/$t"  # a finding of an earlier run is not this run's
    BUILD_DIR=$BUILD_DIR FUZZ_BUILT=1 "$0" "$t" "$seconds" > "$BUILD_DIR/smoke-$t.log" 2>&1 &
    pid_of[$t]=$!
    while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do sleep 1; done
  done
  for t in $targets; do
    if ! wait "${pid_of[$t]}"; then
      failed+=("$t")
      tail -40 "$BUILD_DIR/smoke-$t.log" >&2
    fi
    tail -1 "$BUILD_DIR/smoke-$t.log"
  done
  end=$(date +%s)
  echo "fuzz smoke: build $(( (built - start) / 60 )) min $(( (built - start) % 60 )) s, runs $(( (end - built) / 60 )) min $(( (end - built) % 60 )) s, ${#failed[@]} targets failed ${failed[*]:-}"
  [ ${#failed[@]} -eq 0 ]
  exit
fi
if [ -z "${FUZZ_BUILT:-}" ]; then cmake --build "$BUILD_DIR" -j "$JOBS" --target "$target"; fi

work="$BUILD_DIR/fuzz-work/$target"
crashes="$BUILD_DIR/crashes/$target"
mkdir -p "$work/corpus" "$crashes"
tests/fuzz/seeds.sh "$target" "$work/seeds"
# The code constraint costs a state copy per piece: long inputs only slow it down.
max_len=4096
if [ "$target" = fuzz_code_constraint ]; then max_len=1024; fi
dict=()
if [ -f "tests/fuzz/$target.dict" ]; then dict=(-dict="tests/fuzz/$target.dict"); fi

# No abort_on_error: a sanitizer report must end the process with _exit, since
# abort() inside Clang's CrashRecoveryContext (the Clang targets) is recovered.
log="$work/run.log"
set +e
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$BUILD_DIR/tests/fuzz/$target" -seed="$SEED" -max_total_time="$seconds" -print_final_stats=1 \
  -max_len=${FUZZ_MAX_LEN:-$max_len} -timeout=${FUZZ_TIMEOUT:-10} -rss_limit_mb=${FUZZ_RSS_MB:-2048} \
  -artifact_prefix="$crashes/" "${dict[@]}" ${FUZZ_ARGS:-} "$work/corpus" "$work/seeds" 2>&1 | tee "$log" | grep -v -e '^#[0-9]' -e '^"' -e 'ecommended dictionary'
rc=${PIPESTATUS[0]}
set -e
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
if [ -z "$execs" ]; then  # -fork mode: its last status line, "#N: cov: ... exec/s R ..."
  execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
  speed=$(sed -n 's/^#[0-9]*: cov:.* exec\/s \([0-9]*\).*/\1/p' "$log" | tail -1)
fi
found=$(find "$crashes" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
echo "fuzz.sh: $target: ${execs:-?} executions in ${seconds} s, ${speed:-?} exec/s, exit $rc, $found crash inputs in $crashes"
exit "$rc"
