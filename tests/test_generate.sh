#!/bin/sh
# test_generate.sh -- `lcplab generate` (cli/cmd_generate.c over
# libexperiment/generate.c; datasets/README.md, "Generated instances"):
#   - every family writes a file of its kind and row count (findex families
#     rounded down to a multiple of 3), nothing on stdout;
#   - the same (family, n, seed) gives the same bytes, another seed others;
#     an experiment's `generate` line writes the same bytes as the command,
#     in-process: LCPLAB_GEN_INSTANCES (the old separate generator) pointing
#     nowhere changes nothing;
#   - a planted family's file is solved by lemke to its reference;
#   - bad input exits 2 with one line naming the argument, and leaves no
#     file: unknown family, n out of range, a negative or malformed seed, a
#     missing folder, an existing file without --force (kept as it was);
#     so does a full disk (the old file kept, no temporary file left).
# Environment: LCPLAB_BIN (required, else SKIP), LCPLAB_SRCDIR.  Last line
# "N passed, M failed"; exit 77 when skipped.
TST_NAME=test_generate
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# field FILE KEY: the value of the header line "KEY VALUE" of an .lcp file
field() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# ---- every family: kind and rows ---------------------------------------------------------------
for spec in spd:lcp:7 contact:lcp:7 boxed-findex:findex:6 box:blcp:7 joints:mlcp:7 \
  scaled-spd:lcp:7 sparse-contact:lcp:7 sparse-box:blcp:7 sparse-findex:findex:6; do
  fam=${spec%%:*} rest=${spec#*:}
  kind=${rest%%:*} n=${rest#*:}
  lcp generate --type "$fam" --n 7 --seed 3 --out "$T/$fam.lcp"
  got="$(field "$T/$fam.lcp" kind) $(field "$T/$fam.lcp" n)"
  if [ "$rc" -eq 0 ] && [ "$got" = "$kind $n" ] && [ ! -s "$T/out" ]; then
    pass "$fam: kind $kind, $n rows"
  else
    fail "$fam n=7" "exit $rc, kind and n '$got'"
  fi
done

# ---- the same arguments, the same bytes --------------------------------------------------------
mkdir "$T/a" "$T/b"
lcp generate --type contact --n 20 --seed 4 --out "$T/a/c.lcp"
lcp generate --type contact --n 20 --seed 4 --out "$T/b/c.lcp"
lcp generate --type contact --n 20 --seed 5 --out "$T/b/c5.lcp"
if cmp -s "$T/a/c.lcp" "$T/b/c.lcp" && ! cmp -s "$T/a/c.lcp" "$T/b/c5.lcp"; then
  pass "the same seed gives the same bytes, another seed others"
else
  fail "seeded bytes" "seed 4 twice differs, or seed 5 is the same"
fi
# --seed defaults to 1
lcp generate --type box --n 9 --out "$T/a/box_9_s1.lcp"
lcp generate --type box --n 9 --seed 1 --out "$T/b/box_9_s1.lcp"
if cmp -s "$T/a/box_9_s1.lcp" "$T/b/box_9_s1.lcp"; then pass "--seed defaults to 1"; else fail "--seed default"; fi

# an experiment's generate line: in-process, the command's bytes
cat >"$T/g.exp" <<'EOF'
experiment profile g
solvers lemke
generate box 9 seed=1
repeat 1
EOF
LCPLAB_GEN_INSTANCES=/nonexistent/gen_instances lcp experiment "$T/g.exp" --out "$T/o" --no-plot
if [ "$rc" -eq 0 ] && cmp -s "$T/o/generated/box_9_s1.lcp" "$T/a/box_9_s1.lcp"; then
  pass "experiment generate: in-process (LCPLAB_GEN_INSTANCES ignored), the command's bytes"
else
  fail "experiment generate" "exit $rc"
fi

# the experiment file's generate lines take the command's families and sizes
printf 'experiment profile g\nsolvers lemke\ngenerate spd 20000\n' >"$T/big.exp"
lcp experiment "$T/big.exp" --out "$T/o2" --no-plot
if [ "$rc" -eq 2 ] && grep -q "big.exp:3: generate: n = 20000: the family spd takes n in 1..10000" "$T/err"; then
  pass "experiment generate: the command's size limit, FILE:LINE named (exit 2)"
else
  fail "experiment generate size" "exit $rc"
fi
printf 'experiment profile g\nsolvers lemke\ngenerate scaled-spd 7\nrepeat 1\n' >"$T/sc.exp"
lcp experiment "$T/sc.exp" --out "$T/o3" --no-plot
if [ "$rc" -eq 0 ] && [ -s "$T/o3/generated/scaled-spd_7_s1.lcp" ]; then
  pass "experiment generate: every family of the command (scaled-spd)"
else
  fail "experiment generate scaled-spd" "exit $rc"
fi

# a planted family: lemke finds its reference solution
lcp solve "$T/spd.lcp" --solver lemke
if [ "$rc" -eq 0 ] && grep -q '"status":"converged"' "$T/out"; then
  pass "spd n=7: lemke converges on the planted problem"
else
  fail "spd planted" "exit $rc"
fi

# ---- bad input ----------------------------------------------------------------------------------
bad() { # DESC PATTERN ARGS...: exit 2, one line matching PATTERN, no file $T/x.lcp
  desc=$1 pat=$2
  shift 2
  rm -f "$T/x.lcp"
  lcp generate "$@"
  if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$pat" "$T/err" &&
    [ ! -e "$T/x.lcp" ]; then
    pass "$desc: exit 2, one line"
  else
    fail "$desc" "exit $rc"
  fi
}
bad "unknown family" "unknown family 'spdx' (known: spd, contact" --type spdx --n 5 --out "$T/x.lcp"
bad "n = 0" "n = 0: the family spd takes n in 1..10000" --type spd --n 0 --out "$T/x.lcp"
bad "dense n too large" "n = 10001: the family box takes n in 1..10000" --type box --n 10001 --out "$T/x.lcp"
bad "findex n < 3" "n = 2: the family sparse-findex takes n in 3..1000000" --type sparse-findex --n 2 --out "$T/x.lcp"
bad "negative seed" "generate: --seed must be a non-negative integer, got '-1'" --type spd --n 5 --seed -1 --out "$T/x.lcp"
bad "malformed n" "generate: --n must be a non-negative integer, got '5x'" --type spd --n 5x --out "$T/x.lcp"
bad "missing --out" "generate: --type, --n and --out are required" --type spd --n 5
bad "missing folder" "the folder $T/no/ does not exist" --type spd --n 5 --out "$T/no/x.lcp"
bad "unknown option" "unknown argument '--size'" --type spd --size 5 --out "$T/x.lcp"
cp "$T/a/c.lcp" "$T/keep.lcp"
lcp generate --type spd --n 5 --out "$T/a/c.lcp"
if [ "$rc" -eq 2 ] && grep -q "c.lcp: file exists (use --force to overwrite)" "$T/err" && cmp -s "$T/a/c.lcp" "$T/keep.lcp"; then
  pass "an existing file is kept without --force (exit 2)"
else
  fail "existing file" "exit $rc"
fi
lcp generate --type spd --n 5 --out "$T/a/c.lcp" --force
if [ "$rc" -eq 0 ] && [ "$(field "$T/a/c.lcp" n)" = 5 ] && [ -z "$(find "$T/a" -name "*.tmp.*")" ]; then
  pass "--force replaces it, no temporary file left"
else
  fail "--force" "exit $rc"
fi
# a full disk (ulimit -f): exit 2 as every writer (lcplab(1), EXIT STATUS), the old file
# kept, no temporary file left
echo old >"$T/full.lcp"
(
  trap '' XFSZ
  ulimit -f 2
  "$BIN" generate --type spd --n 100 --out "$T/full.lcp" --force >"$T/out" 2>"$T/err"
)
rc=$?
if [ "$rc" -eq 2 ] && grep -q "^lcplab: generate: $T/full.lcp: " "$T/err" && [ "$(cat "$T/full.lcp")" = old ] &&
  [ -z "$(find "$T" -name "full.lcp.tmp.*")" ]; then
  pass "a full disk: exit 2, one line naming FILE, the old FILE kept, no temporary file"
else
  fail "full disk" "exit $rc"
fi
tst_done
