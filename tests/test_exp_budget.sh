#!/bin/sh
# test_exp_budget.sh -- an experiment file's `max_iter N` is the budget of
# sweeps and of pivots, as `lcplab solve --max-iter N` and lcplab.solve's
# max_iter (exp_options_budget; experiments/README.md, "max_iter"); an
# explicit `max_pivots` still sets the pivots alone.  lemke needs 16 pivots
# on `generate spd 30 seed=1`:
#   - max_iter 2: status max_iter in the section's CSV, and `lcplab solve
#     --max-iter 2` says the same;
#   - max_iter 2, max_pivots 100: converged (the pivots' own key wins);
#   - max_iter 100: converged.
# A scene section's `max_iter N` is the same budget (exp_scene_settings
# takes the one rule): lemke on `stack n=2 friction=pyramid` needs more
# than 2 pivots on a step (8 contacts), so `max_iter 2` stops it at
# max_iter there (before the rule, the automatic pivot budget let every
# step converge); `max_iter 2` with `max_pivots 100` converges.
# Python's lcplab.solve(max_iter=N) gives the same pivot budget as `lcplab solve
# --max-iter N` (the rule is C's, applied by the extension: issue 81 item 4): lemke's
# status and pivots at max_iter 2 through lcplab.solve and through the extension's
# own solve({"max_iter": 2}), and with --opt max_pivots=100 / max_pivots=100 (the
# pivots' own key wins) equal the program's.
# Environment: LCPLAB_BIN, LCPLAB_SRCDIR; LCPLAB_PYTHON and LCPLAB_PYTHONPATH for the
# Python cases (left out without the package).  Last line "N passed, M failed".
TST_NAME=test_exp_budget
# shellcheck source=tst_cli_lib.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_cli_lib.sh"

# status_of_run MAX_ITER [MAX_PIVOTS]: lemke's status in the profile CSV
status_of_run() {
  d="$T/run_$1_${2:-0}"
  mkdir -p "$d"
  {
    echo "experiment profile budget"
    echo "solvers lemke"
    echo "max_iter $1"
    [ -n "${2:-}" ] && echo "max_pivots $2"
    echo "generate spd 30 seed=1"
  } >"$d/t.exp"
  lcp experiment "$d/t.exp" --out "$d/out"
  [ "$rc" -eq 0 ] || { echo "exit $rc"; return; }
  awk -F, '!/^#/ && !h { for (i = 1; i <= NF; i++) if ($i == "status") c = i; h = 1; next }
    !/^#/ && $4 == "lemke" { print $c }' "$d/out/budget.csv" | sort -u
}

s=$(status_of_run 2)
if [ "$s" = max_iter ]; then pass "max_iter 2: lemke stops at 2 pivots (max_iter)"; else fail "max_iter 2" "status '$s'"; fi
"$BIN" generate --type spd --n 30 --seed 1 --out "$T/spd.lcp" >/dev/null 2>&1
lcp solve "$T/spd.lcp" --solver lemke --max-iter 2 --json
if grep -q '"status":"max_iter"' "$T/out"; then pass "lcplab solve --max-iter 2: the same status"; else fail "solve --max-iter 2" "$(head -c 200 "$T/out")"; fi
# python_vs_solve DESC PYOPTS [SOLVE FLAGS...]: status and pivots of lemke on spd.lcp
# through lcplab.solve(**PYOPTS), the extension's solve(PYOPTS) and `lcplab solve`
python_vs_solve() {
  desc=$1 popts=$2
  shift 2
  lcp solve "$T/spd.lcp" --solver lemke --json "$@"
  want=$(sed -n 's/.*"status":"\([a-z_]*\)".*"pivots":\([0-9]*\).*/\1 \2/p' "$T/out")
  got=$(pyrun - "$T/spd.lcp" "$popts" <<'PY'
import json, sys, lcplab
from lcplab import _lcplab
p, o = lcplab.read(sys.argv[1]), json.loads(sys.argv[2])
r = lcplab.solve(p, "lemke", **o)
d = _lcplab.solve(p._c(), "lemke", o, None, False, None, 0)
print("%s %d / %s %d" % (r.status, r.pivots, lcplab.Status(d["status"]), d["pivots"]))
PY
)
  if [ -n "$want" ] && [ "$got" = "$want / $want" ]; then
    pass "$desc: Python and lcplab solve ($want)"
  else
    fail "$desc: Python and lcplab solve" "lcplab solve '$want', lcplab.solve / extension '$got'"
  fi
}
py=${LCPLAB_PYTHON:-python3}
# shellcheck source=tst_python.sh
. "${LCPLAB_SRCDIR:-$(dirname "$0")/..}/tests/tst_python.sh"
pyrun() { (tst_python_env >/dev/null && "$py" "$@"); }
if pyrun -c "import lcplab" 2>/dev/null; then
  python_vs_solve "max_iter 2" '{"max_iter": 2}' --max-iter 2
  python_vs_solve "max_iter 2, max_pivots 100" '{"max_iter": 2, "max_pivots": 100}' --max-iter 2 --opt max_pivots=100
fi
s=$(status_of_run 2 100)
if [ "$s" = converged ]; then pass "max_iter 2, max_pivots 100: converged"; else fail "max_iter 2 max_pivots 100" "status '$s'"; fi
s=$(status_of_run 100)
if [ "$s" = converged ]; then pass "max_iter 100: converged"; else fail "max_iter 100" "status '$s'"; fi
# scene_status MAX_ITER [MAX_PIVOTS]: lemke's statuses over the steps of a scene section
scene_status() {
  d="$T/scene_$1_${2:-0}"
  mkdir -p "$d"
  {
    echo "experiment drift sc"
    echo "solvers lemke"
    echo "max_iter $1"
    [ -n "${2:-}" ] && echo "max_pivots $2"
    echo "scene stack n=2 steps=2 friction=pyramid"
  } >"$d/t.exp"
  lcp experiment "$d/t.exp" --out "$d/out" --no-plot
  [ "$rc" -eq 0 ] || { echo "exit $rc"; return; }
  awk -F, '!/^#/ && !h { for (i = 1; i <= NF; i++) if ($i == "status") c = i; h = 1; next }
    !/^#/ { print $c }' "$d/out/sc.csv" | sort -u | tr '\n' ' '
}
s=$(scene_status 2)
if case "$s" in *max_iter*) true ;; *) false ;; esac then pass "scene section max_iter 2: lemke stops at 2 pivots"; else fail "scene max_iter 2" "statuses '$s'"; fi
s=$(scene_status 2 100)
if [ "$s" = "converged " ]; then pass "scene section max_iter 2, max_pivots 100: converged"; else fail "scene max_iter 2 max_pivots 100" "statuses '$s'"; fi
tst_done
