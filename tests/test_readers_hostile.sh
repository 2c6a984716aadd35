#!/bin/sh
# test_readers_hostile.sh -- every reader given what is not a problem file
# (issue 64, finding 18; docs/io.md, "Reading"):
#   1. what is not a regular file -- /dev/zero, /dev/urandom, a FIFO, a
#      folder -- named as a problem of every format (by extension, by
#      content, by --format), as a --warm start of the three kinds, as a
#      MatrixMarket sidecar, to convert, and as an experiment file: exit 2
#      at once, one line naming the file and what it is (a FIFO is never
#      waited on: every call runs under `timeout`);
#   2. a sparse file (a 1 GiB hole) named as a problem of every text format,
#      a starting point, a sidecar, and written by an external solver as its
#      answer: refused at its first NUL byte, having read 64 KiB;
#   3. files whose header declares more than they hold (a sparse-block M of
#      5000 rows with no q, in an LCP and in an MLCP; a 5000 x 5000
#      MatrixMarket matrix whose .b holds one value; an .npz member whose zip
#      directory claims 3.2 GB stored in a few bytes): refused with the
#      message that names the shortfall.
#   4. damaged files at the command line (finding 15): a boxed-findex
#      MatrixMarket problem copied without its .findex, an lcplab .blcp cut
#      before its findex block: exit 2, naming what is missing.
# Sections 2 and 3 also run under `ulimit -v` (200 MB), where a reader that
# allocated what the file declares would fail with "out of memory" instead
# of the refusal (skipped under memcheck and in sanitizer builds, which
# reserve more address space than that).
#
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  Exit: 0 all
# passed, 1 any failure, 77 skipped.

TST_NAME=test_readers_hostile
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
export LCPLAB_EXPERIMENTS="$SRC/experiments"
if [ "${LCPLAB_VALGRIND:-0}" = 1 ]; then export LCPLAB_MEMORY_LIMIT=0; fi

# tlcp ARGS...: lcp under `timeout` (a reader that waits on a FIFO shows as
# exit 124, not as a hung suite)
tlcp() {
  if [ -n "$VG" ]; then
    # shellcheck disable=SC2086
    timeout 300 $VG "$BIN" "$@" >"$T/out" 2>"$T/err"
  else
    timeout 120 "$BIN" "$@" >"$T/out" 2>"$T/err"
  fi
  rc=$?
}

# refused DESC WANT ARGS...: exit 2, one line on stderr containing WANT
refused() {
  desc=$1
  want=$2
  shift 2
  tlcp "$@"
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qF -- "$want" "$T/err"; then
    pass "$desc"
  else
    fail "$desc" "exit $rc (124: it waited), wanted one line with '$want'"
  fi
}

write_p2 "$T/p2.dat"
mkfifo "$T/fifo" || { fail "mkfifo"; tst_done; }
mkdir "$T/folder" "$T/l"

# ---- 1. not a regular file --------------------------------------------------------------------
what_of() {
  case $1 in
    /dev/*) echo "a character device" ;;
    "$T/fifo") echo "a FIFO (named pipe)" ;;
    *) echo "a directory" ;;
  esac
}
for target in /dev/zero /dev/urandom "$T/fifo" "$T/folder"; do
  what=$(what_of "$target")
  bad=
  for ext in .dat .blcp .mtx .lcp .hdf5 .h5 .npz ""; do
    link=$T/l/$(basename "$target")$ext
    ln -sf "$target" "$link"
    tlcp solve "$link" --solver lemke
    if [ "$rc" -ne 2 ] || [ "$(wc -l <"$T/err")" -ne 1 ] ||
      ! grep -qF "$link: expected a regular file, found $what" "$T/err"; then
      bad="$bad ${ext:-(none)}:$rc"
    fi
  done
  if [ -z "$bad" ]; then
    pass "$target as a problem of every extension (and none): refused at once, named ($what)"
  else
    fail "$target as a problem" "extensions and exits:$bad; last: $(cat "$T/err")"
  fi
done
bad=
for fmt in siconos-lcp siconos-mlcp siconos-relay siconos-fc3d siconos-gfc3d blcp mtx lcplab \
  fclib npz; do
  tlcp solve "$T/fifo" --format "$fmt" --solver lemke
  grep -qF "fifo: expected a regular file, found a FIFO" "$T/err" && [ "$rc" -eq 2 ] ||
    bad="$bad $fmt:$rc"
done
if [ -z "$bad" ]; then
  pass "a FIFO read as each --format: refused"
else
  fail "a FIFO read as each --format" "$bad"
fi
refused "--warm /dev/urandom: refused" "/dev/urandom: expected a regular file, found a character device" \
  solve "$T/p2.dat" --solver lemke --warm /dev/urandom
ln -s "$T/fifo" "$T/l/warm.hdf5"
refused "--warm FIFO.hdf5 (an FCLIB start): refused" "warm.hdf5: expected a regular file, found a FIFO" \
  solve "$T/p2.dat" --solver lemke --warm "$T/l/warm.hdf5"
ln -s /dev/zero "$T/l/warm.npz"
refused "--warm /dev/zero as .npz (a ContactBench start): refused" \
  "warm.npz: expected a regular file, found a character device" \
  solve "$T/p2.dat" --solver lemke --warm "$T/l/warm.npz"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 2\n2 2 2\n' >"$T/s.mtx"
ln -s /dev/urandom "$T/s.b"
refused "a MatrixMarket .b sidecar that is /dev/urandom: refused" \
  "s.b: expected a regular file, found a character device" solve "$T/s.mtx" --solver lemke
rm "$T/s.b"
printf -- '-2\n1\n' >"$T/s.b"
ln -s "$T/fifo" "$T/s.lo"
refused "a MatrixMarket .lo sidecar that is a FIFO: refused" \
  "s.lo: expected a regular file, found a FIFO" solve "$T/s.mtx" --solver lemke
rm "$T/s.lo"
refused "convert /dev/zero: refused" "/dev/zero: expected a regular file" convert /dev/zero \
  "$T/z.lcp"
refused "an experiment file that is a FIFO: refused" "fifo: expected a regular file, found a FIFO" \
  experiment "$T/fifo" --out "$T/ofifo" --no-plot
refused "an experiment file that is /dev/zero: refused" \
  "/dev/zero: expected a regular file, found a character device" experiment /dev/zero \
  --out "$T/ozero" --no-plot

# ---- 2. sparse files: refused at the first NUL byte ----------------------------------------------
# Can this build run under a 400 MB address-space limit?  (Not under
# memcheck, nor with AddressSanitizer's shadow memory.)
LIMIT_KB=200000
limited=0
if [ -z "$VG" ] && (ulimit -v $LIMIT_KB && timeout 60 "$BIN" solve "$T/p2.dat" --solver lemke) \
  >/dev/null 2>&1; then
  limited=1
else
  echo "note: the runs under ulimit -v $LIMIT_KB are skipped (memcheck or a sanitizer build)"
fi
# refused_bounded DESC WANT ARGS...: refused, and refused the same way
# under the address-space limit
refused_bounded() {
  refused "$@"
  [ "$limited" = 1 ] || return 0
  desc=$1
  want=$2
  shift 2
  (ulimit -v $LIMIT_KB && timeout 120 "$BIN" "$@") >"$T/out" 2>"$T/err"
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$T/err"; then
    pass "$desc, also under ulimit -v $LIMIT_KB: nothing of the declared size allocated"
  else
    fail "$desc, under ulimit -v $LIMIT_KB" "exit $rc, wanted '$want'"
  fi
}
truncate -s 1G "$T/holes" || { fail "truncate -s 1G"; tst_done; }
for ext in .dat .blcp .mtx .lcp ""; do
  ln -s "$T/holes" "$T/l/holes$ext"
  refused_bounded "a 1 GiB sparse file as ${ext:-a problem of no extension}: refused at its first NUL" \
    "holes$ext: expected a text file, found a NUL byte at byte 0" solve "$T/l/holes$ext" \
    --solver lemke
done
refused_bounded "a 1 GiB sparse --warm file: refused at its first NUL" \
  "holes: expected a text file, found a NUL byte at byte 0" solve "$T/p2.dat" --solver lemke \
  --warm "$T/holes"
ln -s "$T/holes" "$T/s.hi"
refused_bounded "a 1 GiB sparse .hi sidecar: refused at its first NUL" \
  "s.hi: expected a text file, found a NUL byte at byte 0" solve "$T/s.mtx" --solver lemke
rm "$T/s.hi"

# an external solver that leaves a 1 GiB sparse answer
cat >"$T/sparse.sh" <<'EOF'
# sparse.sh IN OUT: a "solver" that seeks 1 GiB into its answer
truncate -s 1G "$2"
EOF
cat >"$T/x.exp" <<EOF
external holes format=dat command sh $T/sparse.sh {in} {out}
experiment profile x
solvers holes
instances $T/p2.dat
tol 1e-8
min_runs 1
min_time 0
EOF
LCPLAB_MEMORY_LIMIT=${LCPLAB_MEMORY_LIMIT-600} tlcp experiment "$T/x.exp" --out "$T/ox" --jobs 1 \
  --no-plot
row=$(grep -v '^#' "$T/ox/x.csv" 2>/dev/null | awk -F, '$4 == "holes"')
status=$(printf '%s\n' "$row" | cut -d, -f6)
if [ "$status" = failed ] && printf '%s\n' "$row" | grep -qF "found a NUL byte at byte 0"; then
  pass "an external's 1 GiB sparse answer: failed, refused at its first NUL (in a task limited to 600 MB)"
else
  fail "an external's sparse answer" "exit $rc, row '$row'"
fi

# ---- 3. headers that declare more than the file holds ---------------------------------------------
printf '5000\n1\n5000\n5000\n0\n' >"$T/sbm.dat"
refused_bounded "an LCP whose sparse-block M declares 5000 rows, no q: refused" \
  "sbm.dat:4: expected 5001 numbers for M (5000 x 5000) and the 5000 values after it" \
  solve "$T/sbm.dat" --solver lemke
# MLCP storage 1: n = 0 free rows, m = 5000; one block; M sparse-block, empty
printf '1 0\n0\n5000\n0 5000\n1\n1\n5000\n5000\n0\n' >"$T/sbm_mlcp.dat"
refused_bounded "an MLCP whose sparse-block M declares 5000 rows, no q: refused" \
  "expected 5001 numbers for M (5000 x 5000) and the 5000 values after it" \
  solve "$T/sbm_mlcp.dat" --solver lemke
printf '%%%%MatrixMarket matrix coordinate real general\n5000 5000 1\n1 1 1\n' >"$T/big.mtx"
printf '1\n' >"$T/big.b"
refused_bounded "a 5000 x 5000 MatrixMarket matrix whose .b holds one value: refused before A" \
  "big.b:1: expected 5000 numbers for b (n = 5000), found only 2 bytes left in the file" \
  solve "$T/big.mtx" --solver lemke
if command -v python3 >/dev/null 2>&1; then
  # G.npy declares 19998 x 19998 float64 (3.2 GB), the zip directory
  # claims that many bytes stored, and 176 hold it; g and mus agree with G
  python3 - "$T/lie.npz" <<'EOF'
import struct, sys, zipfile
def npy(shape, data):
    h = "{'descr': '<f8', 'fortran_order': False, 'shape': %s, }" % (shape,)
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data
n = 19998
g = npy((n, n), b"\0" * 48)
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr("G.npy", g)
    z.writestr("g.npy", npy((n,), b"\0" * (8 * n)))
    z.writestr("mus.npy", npy((n // 3,), b"\0" * (8 * (n // 3))))
raw = bytearray(open(sys.argv[1], "rb").read())
claim = len(g) - 48 + 8 * n * n
# G.npy's uncompressed size: in its local header (offset 22) and in its
# central directory entry, the first one (offset 24)
struct.pack_into("<I", raw, 22, claim)
struct.pack_into("<I", raw, raw.find(b"PK\x01\x02") + 24, claim)
open(sys.argv[1], "wb").write(bytes(raw))
EOF
  refused_bounded "an .npz whose directory claims 3.2 GB stored in 176 bytes: refused" \
    "lie.npz: expected G.npy's size in the zip directory (3199360160 bytes) to fit the 176 bytes" \
    solve "$T/lie.npz" --solver nsgs
else
  echo "note: no python3: the .npz case is skipped"
fi

# ---- 4. damaged files --------------------------------------------------------------------------
lcp generate --type boxed-findex --n 6 --out "$T/bf.lcp"
mkdir "$T/copy"
lcp convert "$T/bf.lcp" "$T/bf.mtx"
for s in mtx b lo hi mu; do cp "$T/bf.$s" "$T/copy/" 2>/dev/null; done
refused "a boxed-findex .mtx copied without its .findex: refused, naming it" \
  "copy/bf.findex: expected the sidecar that" solve "$T/copy/bf.mtx" --solver pgs
lcp convert "$T/bf.lcp" "$T/bf.blcp"
n=$(wc -l <"$T/bf.blcp")
head -n $((n - 2)) "$T/bf.blcp" >"$T/cut.blcp"
refused "an lcplab .blcp cut before its findex block: refused" \
  "expected the findex block after hi, as the note 'lcplab-blocks: A b lo hi findex' says" \
  solve "$T/cut.blcp" --solver pgs

tst_done
