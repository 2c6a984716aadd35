#!/bin/sh
# test_install.sh -- lcplab as an installed library, from outside the tree; run by
# `make installcheck` (so by `make distcheck`), after `make install` (DESTDIR allowed):
#   tests/test_install.sh SRCDIR DESTDIR PREFIX LIBDIR INCLUDEDIR BINDIR MANDIR PKGCONFIGDIR VERSION \
#     SLV_LT DYN_LT SLVIO_LT EXP_LT MDL_LT
# (the last three: libtool -version-info CURRENT:REVISION:AGE of each library, from
# configure.ac; the expected soname major is CURRENT - AGE)
# Checks, with nothing but the installed files and pkg-config:
#   - the pkg-config packages (lcplab-solvers, lcplab-io, lcplab-dynamics, lcplab-experiment,
#     lcplab-models) exist at
#     VERSION; libsolvers' flags name neither HDF5 nor libfclib, lcplab-io's static flags
#     name libzip (Requires.private) and none HDF5, libfclib or libmatio (libio opens them on
#     first use: docs/io.md);
#   - the shared libraries: the sonames their -version-info gives, only libio NEEDs libzip,
#     none HDF5, libfclib, libmatio (libio opens them on first use) or libmujoco (libmodels
#     opens it on first use);
#   - tests/install/consumer.c built with `cc $(pkg-config --cflags ...) ... --libs` runs:
#     it solves a 2 x 2 LCP with a known solution, writes and reads a .lcp, steps a scene,
#     and reads an FCLIB file that the installed `lcplab convert` wrote;
#   - tests/install/consumer.cpp (every public header, one call into each library) built
#     and linked by g++ and clang++ (those installed) runs;
#   - the installed lcplab runs (--version) and its man page lcplab(1) is there;
#   - the template plugin examples/plugin, copied into an empty folder and built by its Makefile
#     (pkg-config only), is listed, solves (pgs's answer), steps a world and runs in a campaign
#     on 2 jobs and (when installed) under GNU parallel, with the installed lcplab.
# With a DESTDIR the .pc files are read through copies whose absolute paths get DESTDIR.
# Last line "N passed, M failed".
src=$1 dest=$2 prefix=$3 libdir=$4 includedir=$5 bindir=$6 mandir=$7 pcdir=$8 version=$9
shift 9
# soname major of a libtool CURRENT:REVISION:AGE
lt_major() { echo "$1" | awk -F: 'NF == 3 { print $1 - $3 }'; }
slv_major=$(lt_major "${1:-}") dyn_major=$(lt_major "${2:-}") io_major=$(lt_major "${3:-}")
exp_major=$(lt_major "${4:-}") mdl_major=$(lt_major "${5:-}")
TST_NAME=test_install
# shellcheck source=tst_lib.sh
. "$src/tests/tst_lib.sh"
ok() { pass "$@"; }
bad() { fail "$@"; }
command -v pkg-config >/dev/null 2>&1 || { echo "FAIL - pkg-config not found"; echo "0 passed, 1 failed"; exit 1; }

# pkg-config files (with DESTDIR: copies whose absolute paths are under it)
mkdir -p "$T/pc"
for p in lcplab-solvers lcplab-io lcplab-dynamics lcplab-experiment lcplab-models; do
  if [ -f "$dest$pcdir/$p.pc" ]; then
    sed -E "s#^(prefix|exec_prefix|libdir|includedir)=/#\\1=$dest/#" "$dest$pcdir/$p.pc" >"$T/pc/$p.pc"
  else
    bad "$p.pc installed" "$dest$pcdir/$p.pc missing"
  fi
done
PKG_CONFIG_PATH="$T/pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
for p in lcplab-solvers lcplab-io lcplab-dynamics lcplab-experiment lcplab-models; do
  v=$(pkg-config --modversion "$p" 2>&1)
  if [ "$v" = "$version" ]; then ok "pkg-config $p: version $v"; else bad "pkg-config $p" "$v"; fi
done
if pkg-config --libs --static lcplab-solvers | grep -qE 'fclib|hdf5|zip'; then
  bad "lcplab-solvers names no HDF5, libfclib, libzip" "$(pkg-config --libs --static lcplab-solvers)"
else
  ok "lcplab-solvers names no HDF5, libfclib, libzip (even --static)"
fi
s=$(pkg-config --libs --static lcplab-io)
if echo "$s" | grep -q -- '-lzip' && ! echo "$s" | grep -qE 'fclib|hdf5|matio' &&
  ! pkg-config --libs lcplab-io | grep -qE 'fclib|hdf5|zip|matio'; then
  ok "lcplab-io: libzip in Requires.private only, no libfclib, HDF5, libmatio (opened on first use)"
else
  bad "lcplab-io's private requirements" "$s"
fi

# the shared objects
lib="$dest$libdir"
for pair in "solvers:$slv_major" "dynamics:$dyn_major" "io:$io_major" "experiment:$exp_major" \
  "models:$mdl_major"; do
  name=${pair%%:*} major=${pair#*:}
  so="$lib/lib$name.so.$major"
  if [ -z "$major" ]; then
    bad "lib$name soname" "no CURRENT:REVISION:AGE given (tests/test_install.sh usage)"
    continue
  fi
  if [ -e "$so" ] && objdump -p "$so" | grep -q "SONAME *lib$name.so.$major\$"; then
    ok "lib$name.so.$major installed, soname lib$name.so.$major"
  else
    bad "lib$name.so.$major" "missing or another soname"
  fi
  needs=$(objdump -p "$so" 2>/dev/null | awk '$1 == "NEEDED" { print $2 }' | tr '\n' ' ')
  case "$name:$needs" in
  io:*libfclib* | io:*libhdf5* | io:*libmatio*)
    bad "libio opens HDF5, libfclib and libmatio on first use: it NEEDs none" "$needs" ;;
  io:*libzip*) ok "libio NEEDs libzip, no HDF5, libfclib, libmatio (opened on first use)" ;;
  io:*) bad "libio NEEDED" "$needs" ;;
  *:*fclib* | *:*hdf5* | *:*libzip* | *:*libmatio*) bad "lib$name NEEDs no HDF5, libfclib, libzip, libmatio" "$needs" ;;
  models:*libmujoco*) bad "libmodels opens libmujoco on first use: it NEEDs it not" "$needs" ;;
  models:*) ok "libmodels NEEDs no libmujoco (opened on first use), no HDF5, libfclib, libzip" ;;
  *:*libmujoco*) bad "lib$name NEEDs no libmujoco" "$needs" ;;
  *) ok "lib$name NEEDs no HDF5, libfclib, libzip ($needs)" ;;
  esac
done
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# the program and its man page
if "$dest$bindir/lcplab" --version | grep -qx "lcplab $version"; then ok "lcplab --version"; else bad "lcplab --version"; fi
if [ -f "$dest$mandir/man1/lcplab.1" ]; then ok "man page lcplab(1) installed"; else bad "man page" "$dest$mandir/man1/lcplab.1 missing"; fi
# the public headers by name (Makefile.am, lcplabinclude_HEADERS)
want="dyn.h dyn_constraint.h dyn_joint.h dyn_math.h dyn_model.h dyn_redmax.h dyn_run.h dyn_world.h
exp.h io.h mdl.h slv.h"
got=$(cd "$dest$includedir/lcplab" 2>/dev/null && ls -- *.h | tr '\n' ' ')
if [ "$(echo $got)" = "$(echo $want)" ]; then
  ok "the 12 public headers in $includedir/lcplab"
else
  bad "public headers" "found: $got; want: $(echo $want)"
fi

# an FCLIB file written by the installed lcplab, for the consumer to read
printf '3\n1\n0\n3\n3\n3\t3\n1 0 0\n0 1 0\n0 0 1\n-1 0.25 0\n0.5\n' >"$T/fc1.dat"
if "$dest$bindir/lcplab" convert "$T/fc1.dat" "$T/fc1.hdf5"; then ok "installed lcplab convert .dat -> .hdf5"; else bad "installed lcplab convert"; fi

# the C consumer
cc=${CC:-cc}
# shellcheck disable=SC2046
if $cc -std=c11 -Wall -Wextra -Werror $(pkg-config --cflags lcplab-io lcplab-dynamics) \
  "$src/tests/install/consumer.c" -o "$T/consumer" $(pkg-config --libs lcplab-io lcplab-dynamics) -lm \
  >"$T/log" 2>&1; then
  ok "C consumer builds with pkg-config only"
  if "$T/consumer" "$T" "$T/fc1.hdf5" >"$T/out" 2>&1; then
    ok "C consumer runs: $(grep -c '^ok' "$T/out") checks"
  else
    bad "C consumer runs" "$(cat "$T/out")"
  fi
else
  bad "C consumer builds" "$(head -c 600 "$T/log")"
fi
# the C++ consumer
for cxx in g++ clang++; do
  command -v "$cxx" >/dev/null 2>&1 || continue
  # shellcheck disable=SC2046
  if $cxx -std=c++11 -Wall -Wextra -pedantic -Werror \
    $(pkg-config --cflags lcplab-io lcplab-dynamics lcplab-models) "$src/tests/install/consumer.cpp" \
    -o "$T/consumer_cxx" $(pkg-config --libs lcplab-io lcplab-dynamics lcplab-models) \
    >"$T/log" 2>&1 && "$T/consumer_cxx" >"$T/out" 2>&1; then
    ok "$cxx: C++ consumer of every public header builds, links, runs ($(cat "$T/out"))"
  else
    bad "$cxx: C++ consumer" "$(head -c 600 "$T/log") $(cat "$T/out" 2>/dev/null)"
  fi
done

# the template plugin (examples/plugin; docs/plugins.md), copied into an empty folder and built
# by its own Makefile with nothing but the installed pkg-config file, then run by the installed
# lcplab: listed, its answer pgs's on a planted problem, a world stepped, a campaign on 2 jobs
mkdir -p "$T/plugin/probs"
cp "$src/examples/plugin/my_jacobi.c" "$src/examples/plugin/Makefile" "$T/plugin/"
lcplab="$dest$bindir/lcplab"
if make -C "$T/plugin" CC="$cc" >"$T/log" 2>&1 && [ -f "$T/plugin/my_jacobi.so" ]; then
  ok "template plugin builds from an empty folder with pkg-config only"
  "$lcplab" --plugin "$T/plugin/my_jacobi.so" solvers >"$T/out" 2>&1
  if grep -q '^my_jacobi ' "$T/out"; then ok "installed lcplab --plugin: solvers lists my_jacobi"; else bad "template plugin listed" "$(head -c 300 "$T/out")"; fi
  "$lcplab" generate --type spd --n 15 --seed 4 --out "$T/plugin/probs/a.lcp" >/dev/null 2>&1
  "$lcplab" generate --type spd --n 15 --seed 5 --out "$T/plugin/probs/b.lcp" >/dev/null 2>&1
  "$lcplab" --plugin "$T/plugin/my_jacobi.so" solve "$T/plugin/probs/a.lcp" --solver my_jacobi --tol 1e-12 \
    --max-iter 100000 --solution "$T/plugin/xj" >/dev/null 2>&1
  jrc=$?
  "$lcplab" solve "$T/plugin/probs/a.lcp" --solver pgs --tol 1e-12 --max-iter 100000 --solution "$T/plugin/xp" >/dev/null 2>&1
  d=$(paste "$T/plugin/xj" "$T/plugin/xp" | awk '{ e = $1 - $2; if (e < 0) e = -e; if (e > m) m = e } END { printf "%.3g", m }')
  if [ "$jrc" -eq 0 ] && awk "BEGIN { exit !($d <= 1e-8) }"; then ok "template plugin solves: converged, pgs's answer (max diff $d)"; else bad "template plugin solve" "exit $jrc, max diff $d"; fi
  if "$lcplab" --plugin "$T/plugin/my_jacobi.so" simulate --scene stack --solver my_jacobi --friction none --steps 10 2>&1 |
    grep -q '"solver":"my_jacobi"'; then
    ok "template plugin steps a world"
  else
    bad "template plugin steps a world"
  fi
  printf 'plugin my_jacobi.so\nexperiment profile cmp\nsolvers pgs my_jacobi\ninstances probs\ntol 1e-6\nmin_runs 2\nmin_time 0.001\n' >"$T/plugin/cmp.exp"
  if "$lcplab" experiment "$T/plugin/cmp.exp" --out "$T/plugin/out" --jobs 2 --no-plot >"$T/out" 2>&1 &&
    [ "$(grep -v '^#' "$T/plugin/out/cmp.csv" | awk -F, '$4 == "my_jacobi" && $6 == "converged"' | wc -l)" -eq 2 ]; then
    ok "template plugin in a campaign on 2 jobs: converged on both problems"
  else
    bad "template plugin campaign" "$(tail -c 300 "$T/out")"
  fi
  if command -v parallel >/dev/null 2>&1; then
    if "$lcplab" experiment "$T/plugin/cmp.exp" --plan "$T/plugin/plan" >"$T/out" 2>&1 &&
      sh "$T/plugin/plan/run-parallel.sh" >>"$T/out" 2>&1 &&
      "$lcplab" collect "$T/plugin/plan" --out "$T/plugin/col" --no-plot >>"$T/out" 2>&1 &&
      [ "$(grep -v '^#' "$T/plugin/col/cmp.csv" | awk -F, '$4 == "my_jacobi" && $6 == "converged"' | wc -l)" -eq 2 ]; then
      ok "template plugin under GNU parallel (the plan's plugins.tsv): converged on both problems"
    else
      bad "template plugin under GNU parallel" "$(tail -c 300 "$T/out")"
    fi
  fi
else
  bad "template plugin builds" "$(head -c 600 "$T/log")"
fi
tst_done
