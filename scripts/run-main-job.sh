#!/bin/bash
# run-main-job.sh -- lcplab's main job on a fresh Debian 12 machine (as root):
# every solver on the bundled instance set, a CSV and its figure.
#
#   bash scripts/run-main-job.sh          (from anywhere; works in the checkout)
#
# 1. installs the Debian packages below if any is missing (apt-get update only
#    then; needs root for that step only);
# 2. autoreconf -fi; out-of-tree build in build/ (../configure; make -j2);
# 3. make main-job: experiments/run_compare.sh, which prints the paths of
#    build/experiments/results/HOST/compare.{csv,png,pdf} at the end.
set -euo pipefail

PACKAGES="build-essential autoconf automake libtool pkg-config libopenblas-dev liblapacke-dev
libgsl-dev libcunit1-dev libhdf5-dev libfclib-dev gnuplot-nox valgrind python3"

# Installs the missing packages of $PACKAGES (none: no apt-get at all).
install_packages() {
  local missing="" p
  for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
  if [ -z "$missing" ]; then
    echo "packages: all present"
    return 0
  fi
  echo "packages: installing$missing"
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: missing Debian packages:$missing; run this script as root, or install them" >&2
    return 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $missing
}

cd "$(dirname "$0")/.."
start=$(date +%s)
install_packages
autoreconf -fi
mkdir -p build
cd build
../configure
make -j2
make main-job
echo "run-main-job.sh: done in $(( $(date +%s) - start )) s"
