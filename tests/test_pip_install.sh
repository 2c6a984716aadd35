#!/bin/sh
# test_pip_install.sh -- the Python package as a new user installs it
# (docs/python.md, "Install"): from a copy of the source tree with no build
# folder and no autotools output (in a git checkout the files git tracks;
# in a release tree, as make distcheck unpacks it, the files the tarball
# holds), in a fresh virtual environment made with
# --system-site-packages (numpy from Debian):
#   - pyproject.toml names numpy as a build requirement, and a build that
#     has no numpy says why (isolation or a bare environment; below);
#   - pip install --no-build-isolation --no-index COPY works (offline: no
#     index is asked);
#   - the package imports outside both trees, from the environment, with
#     the version of configure.ac in lcplab.__version__ and in
#     importlib.metadata, its stubs and py.typed beside it, no
#     libsolvers.so loaded (the libraries are linked in), and solves a 2 x 2
#     LCP whose solution is known (x = (1/3, 1/3));
#   - the `lcplab` command and `python -m lcplab` run the lcplab program the
#     package ships (bin/lcplab, docs/python.md, "The lcplab command"):
#     --version, `lcplab solvers`, `lcplab solve FILE` on the 2 x 2 LCP,
#     `python -m lcplab --help`, and an experiment with its figure;
#   - python3 -m build --no-isolation --wheel (python3-build) makes a wheel
#     with the extension, the program, the console script, the stubs and
#     the metadata (it reuses the first build's folder, so it only packs).
# Environment (Makefile.am): LCPLAB_PYTHON, LCPLAB_SRCDIR, LCPLAB_SAN_FLAGS.
# Exit 77 (skip) without the venv module, and in a sanitizer build (pip
# builds its own, plain extension: the plain build's run is the test).
# About two minutes: configure and the libraries' compilation run once.
src=${LCPLAB_SRCDIR:?LCPLAB_SRCDIR is not set (run through make check)}
py=${LCPLAB_PYTHON:-python3}
TST_NAME=test_pip_install
# shellcheck source=tst_lib.sh
. "$src/tests/tst_lib.sh"
if [ -n "${LCPLAB_SAN_FLAGS:-}" ]; then
  echo "SKIP: a sanitizer build; pip builds a plain extension (the plain build runs this test)"
  exit 77
fi
if ! "$py" -c "import venv, ensurepip" 2>/dev/null; then
  echo "SKIP: $py has no venv module with pip (apt-get install python3-venv)"
  exit 77
fi
want=$(sed -n 's/^AC_INIT(\[lcplab\], *\[\([^]]*\)\].*/\1/p' "$src/configure.ac")

# the copy: in a git checkout, the files a clone has (tracked, and new ones
# not ignored; a clone has no configure script, so setup.py runs
# autoreconf); in a release tree (a `make dist` tarball unpacked, as make
# distcheck does), the files the tarball holds -- the list automake
# distributes -- which is the whole tree but its configured build folders.
# A release tree is often unpacked inside another checkout (distcheck
# unpacks it in the build folder): git answers there for the enclosing
# repository, where the tree's files are not tracked, so only a tree that
# is itself the top of a git work tree is a checkout.
mkdir "$T/src"
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || top=
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard) >"$T/files"
  if ! [ -s "$T/files" ]; then
    fail "git ls-files lists the checkout's files" "none listed in $src"
    tst_done
  fi
  (cd "$src" && xargs -0 cp --parents -t "$T/src" <"$T/files" 2>"$T/err") ||
    fail "copy of the tracked files" "$(head -3 "$T/err")"
  if [ -e "$T/src/build" ] || [ -e "$T/src/configure" ]; then
    fail "the clone-like copy has no build folder and no configure script"
  else
    pass "the clone-like copy has no build folder and no configure script"
  fi
else
  # the release tree: every top-level entry but the configured build
  # folders (build/, build-san/, distcheck's _build/: those holding a
  # config.status)
  for e in "$src"/* "$src"/.[!.]*; do
    [ -e "$e" ] || continue
    [ -d "$e" ] && [ -n "$(find "$e" -maxdepth 2 -name config.status 2>/dev/null)" ] && continue
    cp -R "$e" "$T/src/" || fail "copy of $e"
  done
  chmod -R u+w "$T/src"
  if [ -n "$(find "$T/src" -maxdepth 3 -name config.status)" ]; then
    fail "the copy has no build folder"
  else
    pass "the copy has no build folder"
  fi
fi

if "$py" -m venv --system-site-packages "$T/V" >"$T/venv.log" 2>&1; then
  pass "python3 -m venv --system-site-packages"
else
  fail "python3 -m venv --system-site-packages" "$(tail -3 "$T/venv.log")"
  tst_done
fi
# numpy, which the extension compiles against, is a build requirement
# (pyproject.toml's [build-system] requires), and a build without numpy says
# what is wrong (setup.py, numpy_missing; issue 86, item 9):
#   - `pip install .` with build isolation, offline: pip cannot install numpy
#     in its build environment and stops there, naming numpy (its message:
#     no code of the package runs before the build requirements are in);
#   - an isolated build environment as pip makes one (PYTHONNOUSERSITE, a
#     sitecustomize on PYTHONPATH that drops the system site-packages, the
#     requirements in an overlay: here setuptools' wheel of
#     /usr/share/python-wheels alone) hides Debian's numpy: the build
#     stops before configure naming the isolation, where numpy is, and
#     --no-build-isolation, not "apt-get install python3-numpy";
#   - a virtual environment without --system-site-packages: numpy is in
#     its base, and the message says --system-site-packages.
if "$py" - "$T/src/pyproject.toml" <<'EOF'; then
import re, sys
try:
    import tomllib
    with open(sys.argv[1], "rb") as f:
        req = tomllib.load(f)["build-system"]["requires"]
except ImportError:  # Python < 3.11: the section's requires line
    text = open(sys.argv[1]).read().split("[build-system]")[1].split("\n[")[0]
    req = re.findall(r'"([^"]+)"', re.search(r"requires\s*=\s*\[(.*?)\]", text, re.S).group(1))
sys.exit(0 if any(r.split(">")[0].split("=")[0].strip() == "numpy" for r in req) else
         f"[build-system] requires is {req}: no numpy")
EOF
  pass "pyproject.toml lists numpy under [build-system] requires"
else
  fail "pyproject.toml's build requirements"
fi
(cd "$T" && V/bin/pip install --no-index --find-links /usr/share/python-wheels ./src) \
  >"$T/iso.log" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "No matching distribution found for numpy" "$T/iso.log" &&
  ! "$T/V/bin/pip" show lcplab >/dev/null 2>&1; then
  pass "an isolated offline pip install stops at the build requirement numpy, nothing installed"
elif [ "$rc" -eq 0 ]; then
  pass "an isolated pip install found numpy (a wheel in the links) and built"
  "$T/V/bin/pip" uninstall -y lcplab >/dev/null 2>&1
else
  fail "the isolated offline pip install" "exit $rc: $(tail -5 "$T/iso.log")"
fi
E=$T/pip-build-env-test
mkdir -p "$E/site" "$T/st"
cat >"$E/site/sitecustomize.py" <<EOF
import site, sys
system = set(site.getsitepackages())
sys.path[:] = [p for p in sys.path if p not in system]
site.addsitedir("$T/st")
EOF
whl=$(ls /usr/share/python-wheels/setuptools-*.whl 2>/dev/null | head -1)
if [ -z "$whl" ]; then
  echo "note: no setuptools wheel in /usr/share/python-wheels: no build without numpy is tried"
else
  "$py" -m zipfile -e "$whl" "$T/st"
  (cd "$T/src" && PYTHONNOUSERSITE=1 PYTHONPATH=$E/site ../V/bin/python setup.py build_ext) \
    >"$T/iso2.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && grep -q "has numpy (.*), but this isolated build environment" "$T/iso2.log" &&
    grep -q "pip install --no-build-isolation \." "$T/iso2.log" &&
    ! grep -q "apt-get" "$T/iso2.log" && ! [ -e "$T/src/configure" ]; then
    pass "numpy hidden by an isolated build: stopped before configure, naming --no-build-isolation"
  else
    fail "numpy hidden by an isolated build" "exit $rc: $(grep -i "numpy\|error" "$T/iso2.log" | tail -3)"
  fi
fi
# (made without pip: setuptools' wheel on PYTHONPATH is enough to run setup.py)
if [ -n "$whl" ] && "$py" -m venv --without-pip "$T/V2" >"$T/venv2.log" 2>&1 &&
  ! "$T/V2/bin/python" -c "import numpy" 2>/dev/null; then
  (cd "$T/src" && PYTHONPATH=$T/st ../V2/bin/python setup.py build_ext) >"$T/iso3.log" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && grep -q "numpy is not installed in the environment .*V2, though its base" \
    "$T/iso3.log" && grep -q -- "--system-site-packages" "$T/iso3.log" &&
    ! [ -e "$T/src/configure" ]; then
    pass "a virtual environment without numpy: the message names --system-site-packages"
  else
    fail "a virtual environment without numpy" "exit $rc: $(grep -i "numpy\|error" "$T/iso3.log" | tail -3)"
  fi
fi
rm -rf "$T/V2" "$E" "$T/st" "$T/src/build"

# CFLAGS=-O0: the build that pip starts (configure and make, setup.py) is
# what is tested here, not the speed of the code it makes; unoptimised it
# takes about half the CPU (experiments/records/2026-11-28-ci-timeout.md),
# and this test was the check stage's longest.
if (cd "$T" && CFLAGS=-O0 V/bin/pip install --no-build-isolation --no-index ./src) >"$T/pip.log" 2>&1; then
  pass "pip install --no-build-isolation --no-index (offline) from the copy"
else
  fail "pip install --no-build-isolation --no-index" "$(tail -25 "$T/pip.log")"
  tst_done
fi

# the build ran under dash where there is one (setup.py,
# configure_shell_env): configure, left alone, re-runs itself under bash,
# and bash's forks in libtool's runs cost the build CPU (experiments/
# records/2026-11-29-test-time-7.md)
lt=$(find "$T/src/build" -path '*/autotools/libtool' 2>/dev/null | head -1)
if [ -n "${CONFIG_SHELL:-}" ] || ! [ -x /bin/dash ]; then
  echo "note: CONFIG_SHELL is set or there is no /bin/dash: the build's shell is not checked"
elif [ -n "$lt" ] && [ "$(head -1 "$lt")" = "#! /bin/dash" ] &&
  grep -q '^SHELL = /bin/dash$' "$(dirname "$lt")/Makefile"; then
  pass "the package's build ran configure, make's recipes and libtool under /bin/dash"
else
  fail "the package's build under /bin/dash" \
    "libtool ${lt:-(not found under $T/src/build)}: $(head -1 "$lt" 2>/dev/null)"
fi

# the installed package, from outside both trees
cat >"$T/check.py" <<'EOF'
import importlib.metadata, os, sys
import lcplab
want, venv = sys.argv[1], os.path.realpath(sys.argv[2])
here = os.path.realpath(os.path.dirname(lcplab.__file__))
print("version", lcplab.__version__, importlib.metadata.version("lcplab"))
assert lcplab.__version__ == want, (lcplab.__version__, want)
assert importlib.metadata.version("lcplab") == want
assert here.startswith(venv + os.sep), here
for f in ("py.typed", "__init__.pyi", "_problem.pyi"):
    assert os.path.exists(os.path.join(here, f)), f
with open("/proc/self/maps") as m:
    assert "libsolvers.so" not in m.read(), "libsolvers.so loaded"
r = lcplab.solve(lcplab.Problem([[2.0, 1.0], [1.0, 2.0]], [-1.0, -1.0]), "lemke")
assert r.converged and max(abs(r.x - 1 / 3)) < 1e-14, (r, r.x)
assert os.path.exists(os.path.join(here, "scripts", "exp_profile.gp")), "no figure scripts"
# the comparison engine: a campaign with figures, from the package alone
import shutil, tempfile
tmp = tempfile.mkdtemp()
exp = os.path.join(tmp, "e.exp")
with open(exp, "w") as f:
    f.write("experiment profile gen\nsolvers lemke pgs\ngenerate spd 10\ntol 1e-8\nmin_runs 1\n")
c = lcplab.run_experiment(exp, os.path.join(tmp, "out"), jobs=1,
                          figures=shutil.which("gnuplot") is not None)
assert c.status == 0 and len(c.table("gen")) == 2, (c, c.messages)
if shutil.which("gnuplot"):
    assert os.path.exists(os.path.join(tmp, "out", "gen.png")), c.messages
shutil.rmtree(tmp)
print("ok")
EOF
if (cd / && "$T/V/bin/python" "$T/check.py" "$want" "$T/V") >"$T/out" 2>"$T/err"; then
  pass "the installed package imports, is version $want (metadata too), solves, runs a campaign with figures"
else
  fail "the installed package" "$(tail -5 "$T/err")"
fi
rm -f "$T/out" "$T/err"
if "$T/V/bin/pip" show lcplab 2>/dev/null | grep -q "^Version: $want\$"; then
  pass "pip show lcplab: version $want"
else
  fail "pip show lcplab" "$("$T/V/bin/pip" show lcplab 2>&1 | head -3)"
fi

# the lcplab command and python -m lcplab: the lcplab program itself, the
# package's bin/lcplab (an executable with the libraries linked in, no
# libsolvers.so), run from outside both trees
pkg=$(cd / && "$T/V/bin/python" -c "import lcplab, os; print(os.path.dirname(lcplab.__file__))")
prog="$pkg/bin/lcplab"
if [ -x "$prog" ] && head -c 4 "$prog" | grep -q ELF && ! ldd "$prog" | grep -q libsolvers; then
  pass "the package holds the lcplab program, bin/lcplab (an executable, no libsolvers.so)"
else
  fail "the package's bin/lcplab" "$(ls -l "$prog" 2>&1)"
fi
mkdir "$T/cmd"
(cd "$T/cmd" && "$T/V/bin/python" -c "import lcplab; lcplab.write(lcplab.Problem(
    [[2.0, 1.0], [1.0, 2.0]], [-1.0, -1.0]), 'p.lcp')") >"$T/out" 2>"$T/err"
if (cd "$T/cmd" && "$T/V/bin/lcplab" --version) >"$T/out" 2>"$T/err" &&
  [ "$(cat "$T/out")" = "lcplab $want" ] &&
  (cd "$T/cmd" && "$T/V/bin/lcplab" solvers) >"$T/solvers" 2>"$T/err" &&
  grep -q '^lemke ' "$T/solvers" && grep -q '^nsgs ' "$T/solvers"; then
  pass "the lcplab command: --version is $want, lcplab solvers lists lemke and nsgs"
else
  fail "the lcplab command" "$(cat "$T/out") $(head -3 "$T/err")"
fi
# lcplab solve FILE: the 2 x 2 LCP, x = (1/3, 1/3), status converged (exit 0)
if (cd "$T/cmd" && "$T/V/bin/lcplab" solve p.lcp --solver lemke --solution x.txt) \
  >"$T/out" 2>"$T/err" && grep -q '"status": *"converged"' "$T/out" &&
  awk '{ d = $1 - 1 / 3; if (d < 0) d = -d; if (d > 1e-14) bad = 1 } END { exit bad || NR != 2 }' \
    "$T/cmd/x.txt"; then
  pass "lcplab solve FILE: converged, x = (1/3, 1/3)"
else
  fail "lcplab solve FILE" "$(cat "$T/cmd/x.txt" 2>/dev/null)"
fi
if (cd "$T/cmd" && "$T/V/bin/python" -m lcplab --help) >"$T/out" 2>"$T/err" &&
  grep -q '^usage: lcplab COMMAND' "$T/out" &&
  (cd "$T/cmd" && "$T/V/bin/python" -m lcplab solvers) >"$T/solvers2" 2>"$T/err" &&
  cmp -s "$T/solvers" "$T/solvers2"; then
  pass "python -m lcplab --help: the program's usage; python -m lcplab solvers: the command's list"
else
  fail "python -m lcplab" "$(head -3 "$T/out")"
fi
# an experiment with its figure through the command: the program finds the
# package's figure scripts
if command -v gnuplot >/dev/null 2>&1; then
  printf 'experiment profile gen\nsolvers lemke pgs\ngenerate spd 10\ntol 1e-8\nmin_runs 1\n' \
    >"$T/cmd/e.exp"
  if (cd "$T/cmd" && "$T/V/bin/lcplab" experiment e.exp --out o --jobs 1) >"$T/out" 2>"$T/err" &&
    [ -s "$T/cmd/o/gen.pdf" ]; then
    pass "lcplab experiment through the command draws its figure with the package's scripts"
  else
    fail "lcplab experiment through the command" "no $T/cmd/o/gen.pdf"
  fi
fi
rm -f "$T/out" "$T/err"

if ! "$T/V/bin/python" -c "import build" 2>/dev/null; then
  echo "note: python3-build is not installed: the wheel is not built"
  tst_done
fi
if (cd "$T/src" && CFLAGS=-O0 ../V/bin/python -m build --no-isolation --wheel --outdir "$T/dist" .) \
  >"$T/build.log" 2>&1; then
  pass "python3 -m build --no-isolation --wheel"
else
  fail "python3 -m build --no-isolation --wheel" "$(tail -10 "$T/build.log")"
  tst_done
fi
whl=$(ls "$T"/dist/lcplab-"$want"-*.whl 2>/dev/null | head -1)
if [ -n "$whl" ] && "$T/V/bin/python" - "$whl" "$want" <<'EOF'; then
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
want = ["lcplab/py.typed", "lcplab/__init__.pyi", "lcplab/__init__.py",
        f"lcplab-{sys.argv[2]}.dist-info/METADATA"]
z = zipfile.ZipFile(sys.argv[1])
missing = [n for n in want if n not in names]
missing += [] if any(n.startswith("lcplab/_lcplab") and n.endswith(".so") for n in names) \
    else ["lcplab/_lcplab*.so"]
# the program, executable, and the console script that runs it
if "lcplab/bin/lcplab" not in names or not (z.getinfo("lcplab/bin/lcplab").external_attr >> 16) & 0o100:
    missing.append("lcplab/bin/lcplab (executable)")
ep = f"lcplab-{sys.argv[2]}.dist-info/entry_points.txt"
if ep not in names or "lcplab = lcplab.__main__:main" not in z.read(ep).decode():
    missing.append("the console script lcplab = lcplab.__main__:main")
sys.exit(f"the wheel lacks {missing}" if missing else 0)
EOF
  pass "the wheel $(basename "$whl") holds the extension, the program, the stubs, the metadata"
else
  fail "the wheel" "${whl:-none in $T/dist}"
fi
tst_done
