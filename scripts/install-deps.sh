#!/usr/bin/env bash
# Installs every Debian 12 package clgen needs to build, test and run.
# Idempotent and non-interactive; run as root or with sudo available.
set -euo pipefail

packages=(
  # Toolchain
  cmake ninja-build ccache g++ pkg-config git
  # LLVM/Clang 15: the version Debian's PoCL links, so one LLVM serves the process.
  llvm-15-dev libclang-15-dev clang-15 clang-format-15 libclc-15-dev libclc-15
  # Model; libgloo-dev: the gloo headers c10d's ProcessGroupGloo.hpp includes
  # (distributed training on CPUs; libtorch links libgloo0 already)
  libtorch-dev libsentencepiece-dev libgloo-dev
  # An optimized BLAS for LibTorch on CPU (training with the reference libblas was several times slower)
  libopenblas0-openmp
  # bench/model_train_baseline.py on CPU: the same LibTorch 1.13 through Python
  python3-torch
  # OpenCL: ICD loader, headers, PoCL's CPU device, clinfo for diagnostics
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  # Corpus mining and storage
  libgit2-dev libcurl4-openssl-dev libsqlite3-dev sqlite3 libssl-dev libarchive-dev
  # Small libraries
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev libspdlog-dev
  # Predictive models (decision trees, forests, SVM, ... from OpenCV's ml module)
  libopencv-ml-dev
  # The realism report's plot (clgen eval realism --plot: OpenCV drawing and PNG writing)
  libopencv-imgproc-dev libopencv-imgcodecs-dev
  # Embedded default corpus: OpenCL kernels shipped by Debian packages (darktable's
  # are extracted from its .deb by scripts/fetch-darktable-kernels.sh instead)
  pocl-tests ufo-filters-data libufo-data hashcat-data libbullet-dev
  # The Grewe entropy tree (scikit-learn) and the notebooks (jupyter, pandas, matplotlib)
  python3-sklearn python3-pandas python3-matplotlib jupyter-nbconvert python3-nbformat
  python3-nbclient python3-ipykernel
  # Tests: GoogleTest; python3 serves the local GitHub API fixture (git ships git-daemon)
  libgtest-dev libgmock-dev python3
)

# Only call apt-get when something is missing, so repeat runs take a second.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
