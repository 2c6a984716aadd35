#!/bin/sh
# test_plugin_writes.sh -- a solver that writes its read-only input
# (docs/convergence.md, "A solver that writes its input"; issue 86, items
# 6 and 7), with the solvers of tests/plugins/plug_write.c, which write an
# array of the problem (the const cast away), return x = P(0) and say
# converged:
#   1. lcplab solve: each written array (b; hi, lo; A's values dense,
#      CSR and factored; the CSR pattern; mu; cone_mu; findex) gives
#      status error, exit 3, the message naming the array, no residual;
#   2. a world's step (simulate; factored: fJ, fblk; dense: A; CSR: b): the
#      step fails naming the array, the fallback never solves what was
#      written, --dump-failures writes no file of the written arrays;
#   3. a campaign on one worker (--jobs 1) with the writers, plug_liar and
#      pgs: the writers' rows error, the liar's stagnated, pgs's the same
#      iterations and res_rel as pgs alone, the winners table ranks no
#      writer and no liar; with two tolerances the writer's stricter row
#      is error, not run; a solver that writes b from its free function,
#      after its solves were checked, leaves pgs's rows as they were too.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR, LCPLAB_BUILDDIR.  SKIP (77)
# without shared libraries (no plugin can be built).

TST_NAME=test_plugin_writes
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"
BUILD=${LCPLAB_BUILDDIR:-.}
P=$BUILD/tests/plugins/.libs
if [ ! -f "$P/plug_write.so" ]; then
  echo "SKIP: no plugin modules in $P (a build without shared libraries)"
  echo "0 passed, 0 failed"
  exit 77
fi
W=$P/plug_write.so LIAR=$P/plug_liar.so
unset LCPLAB_PLUGINS LCPLAB_TEST_PLUGIN

status_of() { sed -n 's/.*"status":"\([a-z_]*\)".*/\1/p' "$T/out"; }

"$BIN" generate --type spd --n 20 --seed 7 --out "$T/spd.lcp" >/dev/null 2>&1
"$BIN" generate --type sparse-findex --n 30 --seed 3 --out "$T/sf.lcp" >/dev/null 2>&1
"$BIN" generate --type box --n 16 --seed 2 --out "$T/box.lcp" >/dev/null 2>&1
"$BIN" generate --type boxed-findex --n 24 --seed 5 --out "$T/bf.lcp" >/dev/null 2>&1
"$BIN" export --scene stack --friction cone --format lcplab --steps 3 --out "$T/cone" >/dev/null 2>&1
CONE=$(ls "$T"/cone/*.lcp 2>/dev/null | tail -n 1)

# ---- 1. lcplab solve ------------------------------------------------------------------------
# wrote SOLVER FILE ARRAY: error, exit 3, "(ARRAY changed", res_rel not a number
wrote() {
  lcp solve "$2" --plugin "$W" --solver "$1" --json
  if [ "$rc" -eq 3 ] && [ "$(status_of)" = error ] && grep -qF "wrote its read-only input ($3 changed" "$T/out" &&
    ! grep -q '"res_rel":[0-9]' "$T/out"; then
    pass "$1 on $(basename "$2"): error naming $3, exit 3, no residual"
  else
    fail "$1 on $(basename "$2")" "exit $rc, status $(status_of): $(cut -c1-300 "$T/out")"
  fi
}
wrote plug_write_b "$T/spd.lcp" b
wrote plug_write_lohi "$T/spd.lcp" hi
wrote plug_write_lohi "$T/box.lcp" lo
wrote plug_write_A "$T/spd.lcp" A
wrote plug_write_A "$T/sf.lcp" "Ax (A's CSR values)"
wrote plug_write_pattern "$T/sf.lcp" "Aj (A's CSR column indices)"
wrote plug_write_mu "$T/bf.lcp" mu
wrote plug_write_findex "$T/bf.lcp" findex
if [ -n "$CONE" ]; then wrote plug_write_mu "$CONE" cone_mu; else fail "a cone problem" "export wrote none"; fi

lcp solve "$T/spd.lcp" --plugin "$W" --solver plug_write_b --repeat 3 --json
if [ "$rc" -eq 3 ] && [ "$(status_of)" = error ]; then
  pass "--repeat 3: the repeats after the write are not judged on it"
else
  fail "--repeat 3" "exit $rc, status $(status_of)"
fi

# ---- 2. a world's step ------------------------------------------------------------------------
# world SOLVER STORAGE ARRAY: step 1 fails, exit 3, naming ARRAY, no fallback applied
world() {
  lcp --plugin "$W" simulate --scene stack --steps 3 --storage "$2" --solver "$1"
  if [ "$rc" -eq 3 ] && grep -qF "step 1: $1 wrote its read-only input ($3 changed" "$T/err" &&
    grep -q "no fallback" "$T/err" && ! grep -q '"steps":3' "$T/out"; then
    pass "simulate $1 --storage $2: step 1 fails naming $3, no fallback"
  else
    fail "simulate $1 --storage $2" "exit $rc: $(head -c 300 "$T/err")"
  fi
}
world plug_write_A factored "fJ (A's factor J)"
world plug_write_pattern factored "fblk (A's factored blocks)"
world plug_write_A dense A
world plug_write_b csr b
lcp --plugin "$W" simulate --scene stack --steps 3 --solver plug_write_b --dump-failures "$T/dump"
if [ "$rc" -eq 3 ] && [ ! -e "$T/dump/step1.lcp" ] && grep -q "note: step 1 not dumped: plug_write_b wrote its problem" "$T/err"; then
  pass "--dump-failures writes no problem the solver wrote over, and says so"
else
  fail "--dump-failures after a write" "exit $rc, $(ls "$T/dump" 2>&1 | tr '\n' ' ')"
fi

# ---- 3. a campaign on one worker --------------------------------------------------------------
mkdir -p "$T/c/probs"
for s in 1 2; do "$BIN" generate --type spd --n 12 --seed $s --out "$T/c/probs/spd$s.lcp" >/dev/null 2>&1; done
exp_file() {
  cat >"$T/c/$1.exp" <<EOF
plugin $W
plugin $LIAR
experiment profile $1
solvers $2
instances probs
tol 1e-6
min_runs 2
min_time 0.001
EOF
}
# status,iterations,res_rel of SOLVER's rows in a campaign's CSV, one line per problem
rowsof() {
  grep -v '^#' "$1" | awk -F, -v s="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["solver"] == s { print $c["problem"], $c["status"], $c["iterations"], $c["res_rel"] }' | sort
}
exp_file alone pgs
lcp experiment "$T/c/alone.exp" --out "$T/c/alone" --jobs 1 --no-plot
alone=$(rowsof "$T/c/alone/alone.csv" pgs)
exp_file shared "plug_write_b plug_write_lohi plug_liar pgs"
lcp experiment "$T/c/shared.exp" --out "$T/c/shared" --jobs 1 --no-plot
shared=$(rowsof "$T/c/shared/shared.csv" pgs)
if [ -n "$alone" ] && [ "$shared" = "$alone" ] && echo "$alone" | awk '$2 != "converged" || $3 < 1 { bad = 1 } END { exit bad }'; then
  pass "--jobs 1 after two writers and a liar: pgs's rows are pgs's alone"
else
  fail "pgs after the writers" "alone: $alone; shared: $shared"
fi
w=$(rowsof "$T/c/shared/shared.csv" plug_write_b; rowsof "$T/c/shared/shared.csv" plug_write_lohi)
l=$(rowsof "$T/c/shared/shared.csv" plug_liar)
if [ "$(echo "$w" | awk '{ print $2 }' | sort -u)" = error ] && [ "$(echo "$w" | wc -l)" -eq 4 ] &&
  [ "$(echo "$l" | awk '{ print $2 }' | sort -u)" = stagnated ]; then
  pass "the writers' rows say error, the liar's stagnated"
else
  fail "writers and liar rows" "writers: $w; liar: $l"
fi
if [ -f "$T/c/shared/shared_winners.csv" ] &&
  ! grep -v '^#' "$T"/c/shared/shared_winners.csv | awk -F, '$3 ~ /plug_/ && ($5 + 0 > 0 || $7 + 0 > 0)' | grep -q .; then
  pass "the winners table credits no writer and no liar"
else
  fail "winners" "$(grep -v '^#' "$T/c/shared/shared_winners.csv" 2>/dev/null | head -n 8)"
fi
exp_file tols "plug_write_b pgs"
sed 's/^tol 1e-6$/tol 1e-4 1e-8/' "$T/c/tols.exp" >"$T/c/tols2.exp" && mv "$T/c/tols2.exp" "$T/c/tols.exp"
lcp experiment "$T/c/tols.exp" --out "$T/c/tols" --jobs 1 --no-plot
notrun=$(grep -v '^#' "$T/c/tols/tols.csv" | grep -c 'plug_write_b,1e-08,error,.*not run: plug_write_b wrote its read-only input (b changed')
pgs2=$(rowsof "$T/c/tols/tols.csv" pgs | awk '$2 == "converged" && $3 > 0' | wc -l)
if [ "$notrun" -eq 2 ] && [ "$pgs2" -eq 4 ]; then
  pass "two tolerances: the writer's stricter rows are not run (error), pgs's all converged"
else
  fail "two tolerances" "not run rows: $notrun, pgs converged rows: $pgs2"
fi
exp_file late "plug_write_late pgs"
lcp experiment "$T/c/late.exp" --out "$T/c/late" --jobs 1 --no-plot
late=$(rowsof "$T/c/late/late.csv" pgs)
if [ "$late" = "$alone" ]; then
  pass "a solver that writes b when freed: pgs's rows after it are pgs's alone"
else
  fail "a write in free" "alone: $alone; after: $late"
fi

tst_done
