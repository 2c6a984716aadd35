#!/bin/bash
# run-main-job.sh -- lcplab's main job on a fresh Debian 12 machine (as root):
# the default experiment set (experiments/default.exp): every registered
# solver on LCP, boxed and cone problems, one convergence, scaling, drift and
# accuracy run; CSVs and figures.
#
#   bash scripts/run-main-job.sh          (from anywhere; works in the checkout)
#
# 1. installs the Debian packages of scripts/deps.sh if any is missing (apt-get update only
#    then; needs root for that step only);
# 2. autoreconf -fi; out-of-tree build in build/ (../configure; make -j2);
# 3. make main-job: experiments/run_main.sh, which runs `lcplab experiment
#    experiments/default.exp` and prints the paths of
#    build/experiments/results/HOST/{profile,convergence,scaling,drift,accuracy}.*
#    at the end.
set -euo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "$0")/deps.sh"

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
