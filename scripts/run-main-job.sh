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
#    and the peers' packages (deps.sh, install_peer_packages: one that cannot be
#    installed is named and left out, never an error);
# 2. autoreconf -fi; out-of-tree build in build/ (../configure under dash,
#    deps.sh run_configure; make -j2);
# 3. the peers' harnesses of ../shared/peers built into build/experiments/peers
#    (experiments/build_peers.sh; ../shared is only read); a harness that does
#    not build is named, and the main job runs without it.  This step is timed
#    apart: it is not part of the main job's 5 minutes;
# 4. make main-job: experiments/run_main.sh, which runs `lcplab experiment
#    experiments/default.exp` (the peers' sections with the harnesses of step 3)
#    and prints the paths of
#    build/experiments/results/HOST/{profile,convergence,scaling,drift,accuracy}.*
#    at the end.
set -euo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "$0")/deps.sh"

cd "$(dirname "$0")/.."
start=$(date +%s)
install_packages
install_peer_packages
autoreconf -fi
mkdir -p build
cd build
run_configure
make -j2
peers_start=$(date +%s)
sh ../experiments/build_peers.sh experiments/peers >/dev/null ||
  echo "run-main-job.sh: some peers did not build (above): the main job runs without them" >&2
peers_s=$(( $(date +%s) - peers_start ))
main_start=$(date +%s)
make main-job
echo "run-main-job.sh: done in $(( $(date +%s) - start )) s: the main job" \
  "$(( $(date +%s) - main_start )) s, the peers' build $peers_s s"
