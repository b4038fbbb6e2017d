#!/usr/bin/env bash
# The GPU machine's experiments, one entry point (docs/GPU-MACHINE.md):
#
#   bench/gpu-experiment.sh NAME [PHASE|ARG...]
#   bench/gpu-experiment.sh list                  the experiments and their first help line
#   DRY_RUN=1 bench/gpu-experiment.sh NAME ...    print the commands instead of running them
#
# NAME is a file of bench/gpu/ (each opens with its phases and environment knobs):
#   realism         one model, every sampling arm, the human reference through the checker
#   pipeline        build, train, sample, drive on both devices, tests, driver benchmark, pack
#   check           benchmark-grade kernels per minute (sample --check), the driver's settings
#   corpus-compare  the default corpus against the GitHub snapshot, one model each
#   directed        directed against undirected sampling toward held-out kernels
#   distributed     clgen train --distributed under torchrun (machines with several GPUs)
#   fuzz            libFuzzer targets in fork mode (pack here, run there)
#   wgsize          workgroup-size and device-mapping data, and the experiment on it
#   workspace       (run here) .wsmin/NAME.db.xz, the corpus a call carries
#
# Shared here: the repository root as the working folder, the build folder
# (BUILD_DIR, default build-gpu, filled by scripts/gpu-build.sh), `log`, and the
# dry run. A dry run works in a scratch folder that mirrors the checkout
# (configs/, tests/, placeholders for .carry and .wsmin): clgen, python3,
# timeout, torchrun, xz, tar, cp, nvidia-smi, ctest, cmake, scripts/gpu-build.sh
# and bench/*.sh are stubs that print their command line and succeed, so
# every phase shows what it would run, given that each command before it
# succeeded with no output (a phase that then finds no result fails, and the
# dry run goes on with the next). Nothing outside the scratch folder is written.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EXPERIMENTS=$ROOT/bench/gpu

usage() {
  echo "usage: bench/gpu-experiment.sh NAME [PHASE|ARG...] | list   (NAME: $(cd "$EXPERIMENTS" && ls ./*.sh | sed 's|^\./||; s|\.sh$||' | tr '\n' ' '))" >&2
}

name=${1:-}
[ -n "$name" ] || { usage; exit 2; }
shift
if [ "$name" = list ]; then
  for f in "$EXPERIMENTS"/*.sh; do printf '%-15s %s\n' "$(basename "$f" .sh)" "$(sed -n '2s/^# *//p' "$f")"; done
  exit 0
fi
[ -f "$EXPERIMENTS/$name.sh" ] || { echo "gpu-experiment: no experiment '$name'" >&2; usage; exit 2; }

BUILD_DIR=${BUILD_DIR:-build-gpu}
log() { echo "== $(date -u +%T) $*"; }
# LOG: scripts/gpu-build.sh (carried LLVM 15, PyTorch's LibTorch) unless $CLGEN exists
# (a warm machine keeps its build); the log's tail when it fails.
build_clgen() {
  [ -x "$CLGEN" ] && return 0
  ./scripts/gpu-build.sh > "$1" 2>&1 || { tail -40 "$1"; return 1; }
}
# DIR FILE: DIR/clgen.db from the xz-compressed database FILE (bench/gpu/workspace.sh
# makes .wsmin/NAME.db.xz here), unless DIR has one.
unpack_workspace() {
  [ -f "$1/clgen.db" ] && return 0
  [ -f "$2" ] || { echo "gpu-experiment: $2 missing (bench/gpu-experiment.sh workspace WS NAME makes it; carry .wsmin)" >&2; return 1; }
  mkdir -p "$1" && xz -dc "$2" > "$1/clgen.db"
}

# DRY_RUN=1: a scratch checkout whose heavy commands are printing stubs.
dry_run_setup() {
  local scratch stub cmd f
  scratch=$(mktemp -d /tmp/clgen-gpu-dry.XXXXXX)
  # shellcheck disable=SC2064  # the folder is fixed now
  trap "rm -rf '$scratch'" EXIT
  exec 9>&2  # the stubs print here, past any redirection of the command they stand for
  mkdir -p "$scratch/.dry" "$scratch/bin" "$scratch/bench" "$scratch/scripts" "$scratch/.wsmin" "$scratch/.carry" \
    "$scratch/.carry-fuzz"
  stub=$scratch/.dry/stub
  cat > "$stub" <<'STUB'
#!/usr/bin/env bash
# Prints the command it stands for (the environment knobs of bench/*.sh first) and succeeds.
name=${0#"$DRY_SCRATCH"/}
name=${name#bin/}
line="+"
case $name in
  *bench/*.sh)
    for v in MODE MODES CHECK MATCHED_CHECK CLGEN WORKSPACE RESULTS KERNELS_DIR CONFIG TARGETS DEVICE BATCH SEED \
             FREE TEMPERATURE START SAMPLE_FLAGS BENCH_DIR REPEAT; do
      [ -n "${!v+x}" ] && line+=" $v=$(printf '%q' "${!v}")"
    done ;;
esac
line+=" $name"
for a in "$@"; do
  if [ ${#a} -gt 100 ] || [[ $a == *$'\n'* ]]; then line+=" <code>"; else line+=" $(printf '%q' "$a")"; fi
done
echo "$line" >&9
case "$name $*" in
  *"/clgen devices"*) printf 'Platform 0: dry run\n  Device 0.0: dry run [GPU]\n' ;;  # what phases grep for
esac
case $name in
  *scripts/gpu-build.sh) mkdir -p build-gpu/cli && /bin/cp "$DRY_SCRATCH/.dry/stub" build-gpu/cli/clgen ;;
esac
exit 0
STUB
  chmod +x "$stub"
  for cmd in python3 timeout torchrun xz tar cp nvidia-smi ctest cmake ldconfig addr2line; do
    cp "$stub" "$scratch/bin/$cmd"
  done
  for f in "$ROOT"/bench/*.sh; do cp "$stub" "$scratch/bench/$(basename "$f")"; done
  cp "$stub" "$scratch/scripts/gpu-build.sh"
  ln -s "$ROOT/configs" "$scratch/configs"
  ln -s "$ROOT/tests" "$scratch/tests"
  for f in clgen default github wgsize-seed v2 v3; do : > "$scratch/.wsmin/$f.db.xz"; done
  : > "$scratch/.carry/gpu-deps.tar.xz"
  : > "$scratch/.carry-fuzz/fuzz.tar.xz"
  # A machine that has built already, unless the phases ask for the build.
  case " $* " in
    *" build "*) ;;
    *) mkdir -p "$scratch/$BUILD_DIR/cli" && cp "$stub" "$scratch/$BUILD_DIR/cli/clgen" ;;
  esac
  export DRY_SCRATCH=$scratch PATH=$scratch/bin:$PATH PYTHON=python3 OUT=$scratch/out
  [ -z "${RESULTS:-}" ] || export RESULTS=$scratch/results
  [ -z "${CLGEN:-}" ] || export CLGEN=$BUILD_DIR/cli/clgen
  cd "$scratch" || exit 1
  echo "gpu-experiment: dry run of '$name' in $scratch" >&2
}

if [ "${DRY_RUN:-0}" = 1 ]; then dry_run_setup "$@"; else cd "$ROOT" || exit 1; fi
# shellcheck source=/dev/null
source "$EXPERIMENTS/$name.sh" "$@"
