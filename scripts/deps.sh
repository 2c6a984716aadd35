#!/bin/bash
# deps.sh -- sourced by run-main-job.sh and run-tests.sh: the Debian 12
# packages lcplab needs, and install_packages, which installs the missing ones
# (apt-get update only when something is missing; nothing at all otherwise).
# libzip-dev: the zip store of ContactBench .npz files (libio/io_npz.c);
# libmatio-dev: MATLAB MAT-files, version 5 and 7.3 (libio/io_mat.c);
# python3-numpy: tests/test_npz.sh checks files numpy itself writes.
# python3-venv, python3-setuptools, python3-build, mypy: `pip install .` in a
# virtual environment, the wheel, the type stubs' check (docs/python.md).
# poppler-utils: pdftoppm rasterises each figure's PDF into its PNG, so that
# both show the same content (experiments/exp_style.gp).
# libmujoco-dev: MuJoCo's MJCF compiler, which libmodels reads scene files
# through (docs/models.md); libmujoco-samples: MuJoCo's own model files.
# PEER_PACKAGES: the peers' harnesses of ../shared/peers (their README.md and
# Makefiles' `deps`): Siconos numerics, Bullet, DART's copy of ODE's LCP, ODE,
# MuJoCo; built by experiments/build_peers.sh into build/experiments/peers.
PACKAGES="build-essential autoconf automake libtool pkg-config libopenblas-dev liblapacke-dev
libgsl-dev libcunit1-dev libhdf5-dev libfclib-dev libsuitesparse-dev libzip-dev
libmatio-dev gnuplot-nox
valgrind python3 python3-dev python3-numpy python3-pytest python3-scipy python3-venv
python3-setuptools python3-build mypy parallel poppler-utils libmujoco-dev libmujoco-samples
texlive-latex-base texlive-latex-recommended texlive-fonts-recommended"
PEER_PACKAGES="libsiconos-numerics-dev libbullet-dev libbullet-extras-dev
libdart-external-odelcpsolver-dev libode-dev libmujoco-dev"

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
  # shellcheck disable=SC2086
  apt-get update && apt-get install -y --no-install-recommends $missing
}

# The peers' packages, one at a time: one that cannot be installed (not in
# the archive, no root) is named and the others are still installed; the
# peers that need it are then not built (experiments/build_peers.sh says
# which) and the main job runs without them.  Never fails.
install_peer_packages() {
  local p updated=""
  for p in $PEER_PACKAGES; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      continue
    fi
    if [ "$(id -u)" -ne 0 ]; then
      echo "peers: package $p missing and not root: the peers that need it are not built" >&2
      continue
    fi
    if [ -z "$updated" ]; then
      apt-get update >/dev/null 2>&1 || true
      updated=1
    fi
    if DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$p" \
      >/dev/null 2>&1; then
      echo "peers: installed $p"
    else
      echo "peers: package $p unavailable: the peers that need it are not built" >&2
    fi
  done
}

# configure under dash (Debian's /bin/sh), which makes it the shell of make's
# recipes and of libtool: libtool's shell forks many times per compile and
# link, and a fork of dash is cheaper than one of bash (the builds' times
# under each: experiments/records/2026-11-29-test-time-6.md and
# 2026-11-29-test-time-7.md).  Left alone, configure re-runs itself under
# bash.
BUILD_SHELL=/bin/dash
[ -x "$BUILD_SHELL" ] || BUILD_SHELL=/bin/sh
# libtool (2.4.7) defines its basename and dirname helpers before it probes
# the shell's ${x##*/} and ${x%/*}, so every link forks sed for each of
# them; its probe's result, set here, gives it the shell's own (a test
# program's link: experiments/records/2026-11-29-test-time-7.md).  dash and
# bash both have them.
if [ "$BUILD_SHELL" = /bin/dash ]; then export _G_HAVE_XSI_OPS=yes; fi
run_configure() { # [configure options]: ../configure under BUILD_SHELL, from a build folder
  CONFIG_SHELL=$BUILD_SHELL "$BUILD_SHELL" ../configure "$@"
}
