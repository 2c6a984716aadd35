#!/bin/sh
# bench_pivot.sh -- benchmark (`make bench-pivot`, also run by `make bench`;
# not a test): lcplab's pivoting solvers lemke and dantzig next to the peers'
# pivoting codes (Siconos lexicolemke, Bullet Lemke, the Dantzig solvers of
# ODE, DART and Bullet) on the same instance files, with the same residual.
#
#   sh experiments/bench_pivot.sh BUILDDIR SRCDIR [GNUPLOT]
#
# Needs ../shared/peers beside SRCDIR (or LCPLAB_PEERS=DIR) and its Debian
# packages (once, as root: make -C ../shared/peers deps; this script never
# installs anything), python3, and BUILDDIR/cli/lcplab built; gnuplot (with
# pngcairo / pdfcairo) for the figure, optional.
#
# Steps:
# 1. copy the (read-only) harness to a temporary directory and build
#    peer_solve and gen_lcp there;
# 2. generate with gen_lcp, seed 1, n in BENCH_PIVOT_SIZES (default
#    "100 200 500 1000"): spd and contact (Siconos .dat, standard LCP) and
#    contact-box (.blcp: normal + 2 friction rows per contact, findex, so its
#    true n is 3 floor(n/3));
# 3. on every file, each run in its own process under `timeout`
#    (BENCH_PIVOT_TIMEOUT seconds, default 60):
#      lcplab solve FILE --solver lemke   --max-iter 100000 --repeat R --solution X   (all three)
#      lcplab solve FILE --solver dantzig --max-iter 100000 --repeat R --solution X   (all three)
#      peer_solve --check-z X FILE        (the harness's residual of lcplab's x)
#      peer_solve -s P --maxpiv 100000 --repeat R FILE   for P in
#        siconos:lexicolemke (spd, contact), bullet:lemke (spd, contact, n <= 500:
#        it is slow), ode:dantzig, dart:dantzig, bullet:dantzig (all three)
#    with R = BENCH_PIVOT_REPEAT (default 5).  --max-iter also sets lcplab's
#    pivot limit.  Any exit code is recorded, never fatal: lcplab exit 2
#    (the solver refuses the problem, e.g. a placeholder or findex rows for
#    lemke) gives a row "refused" with lcplab's message in the note; 3 (ran,
#    not converged) keeps its numbers; 124 is "timeout"; anything else
#    "crash".
# 4. write, in BUILDDIR/experiments/results/HOST/ (HOST = uname -n):
#      bench_pivot.csv   one row per run: file, family, n, program, solver,
#                        status, pivots, time_s (median of R), res_nat_inf,
#                        then exit, res_nat_check (peer harness on lcplab's
#                        x), solved (res_nat_inf / max(1, ||b||_inf) <= 1e-8
#                        by the program's own figure), note; '#' preamble with
#                        rev, host, date, BLAS, OPENBLAS_NUM_THREADS, seed
#      bench_pivot.md    the same as a table, the fitted slopes, the speedups
#      bench_pivot.png / .pdf   (bench_pivot.gp) median time against n,
#                        log-log, one panel per family, one series per
#                        (program, solver), slope in the legend
#    Earlier files of the same names are moved aside with a UTC timestamp.
#    Slopes: least squares of log t = a + s log n over the points of a series
#    that have a time (at least 2 points), computed by python3 here and by
#    gnuplot's `stats` in the figure (the same formula).
#    Speedups (the issue's question): t_peer / t_lcplab (> 1: lcplab faster)
#    of lcplab lemke vs siconos:lexicolemke and lcplab dantzig vs ode:dantzig
#    on the files of nominal size N >= 500, residuals side by side.
#
# Times are medians of the solver call only, as each program measures it
# (file reading and set-up excluded).  "status" is the program's own verdict
# (lcplab: converged / max_iter / ...; peers: ok / fail / unknown ...); the
# "solved" column applies one test to all.  The whole run takes about 2-4
# minutes on 2 cores (most of it the peers at n = 1000 and the harness build).
# Exit status: 0 tables written; 1 the harness could not be built; 2 usage /
# missing inputs.
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-}
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
sizes=${BENCH_PIVOT_SIZES:-100 200 500 1000}
tlimit=${BENCH_PIVOT_TIMEOUT:-60}
repeat=${BENCH_PIVOT_REPEAT:-5}
maxpiv=100000
seed=1
export OPENBLAS_NUM_THREADS=1

if [ ! -f "$peers/Makefile" ]; then
  echo "bench_pivot.sh: peer harness not found at $peers (set LCPLAB_PEERS=DIR): no benchmark" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "bench_pivot.sh: $lcplab not built (run 'make bench-pivot' in $builddir)" >&2
  exit 2
fi
for tool in python3 timeout; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench_pivot.sh: $tool not found: it is needed (python3: tables and fits; timeout: coreutils)" >&2
    exit 2
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-bench-pivot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# ---- 1. the peer harness, built in a private copy ----------------------------------
cp -R "$peers/." "$tmp/peers"
chmod -R u+w "$tmp/peers"
echo "bench_pivot.sh: building the peer harness (copy of $peers) ..."
if ! { make -C "$tmp/peers" clean && make -j2 -C "$tmp/peers" peer_solve gen_lcp; } >"$tmp/build.log" 2>&1; then
  tail -n 20 "$tmp/build.log" >&2
  echo "bench_pivot.sh: cannot build peer_solve/gen_lcp.  If the peers' headers or libraries are" >&2
  echo "  missing, install them once as root:  make -C $peers deps" >&2
  exit 1
fi
peer_solve=$tmp/peers/peer_solve
gen_lcp=$tmp/peers/gen_lcp

# ---- runs: one JSON line per run ------------------------------------------------------
# {"file","family","program","solver","exit","out": <stdout JSON or null>,
#  "err": <first stderr line>, "check": <peer_solve --check-z JSON or null>}
runs=$tmp/runs.jsonl
: >"$runs"

# record FAMILY FILE PROGRAM SOLVER EXIT OUTFILE ERRFILE [CHECKFILE]
record() {
  python3 - "$@" >>"$runs" <<'EOF'
import json, sys
fam, f, prog, solver, code, outf, errf = sys.argv[1:8]
checkf = sys.argv[8] if len(sys.argv) > 8 else None
def load(path):
    try:
        txt = open(path).read().strip()
    except OSError:
        return None
    if not txt:
        return None
    try:
        return json.loads(txt.splitlines()[-1])
    except ValueError:
        return None
try:
    err = next((l.strip() for l in open(errf) if l.strip()), "")
except OSError:
    err = ""
print(json.dumps({"file": f, "family": fam, "program": prog, "solver": solver, "exit": int(code),
                  "out": load(outf), "err": err[:300], "check": load(checkf) if checkf else None}))
EOF
}

# run_lcplab FAMILY FILE SOLVER
run_lcplab() {
  x=$tmp/x.txt
  rm -f "$x" "$tmp/check.json"
  rc=0
  timeout "$tlimit" "$lcplab" solve "$2" --solver "$3" --max-iter "$maxpiv" --repeat "$repeat" \
    --solution "$x" --json >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
  if [ -s "$x" ]; then
    timeout "$tlimit" "$peer_solve" --check-z "$x" "$2" >"$tmp/check.json" 2>/dev/null || true
  fi
  record "$1" "$(basename "$2")" lcplab "$3" "$rc" "$tmp/out.json" "$tmp/err.txt" "$tmp/check.json"
  echo "  lcplab:$3 exit $rc"
}

# run_peer FAMILY FILE PEER:SOLVER
run_peer() {
  rc=0
  timeout "$tlimit" "$peer_solve" -s "$3" --maxpiv "$maxpiv" --repeat "$repeat" "$2" \
    >"$tmp/out.json" 2>"$tmp/err.txt" || rc=$?
  record "$1" "$(basename "$2")" "${3%%:*}" "${3#*:}" "$rc" "$tmp/out.json" "$tmp/err.txt"
  echo "  $3 exit $rc"
}

start=$(date +%s)
for n in $sizes; do
  for family in spd contact contact-box; do
    case $family in
      contact-box) f=$tmp/contactbox_${n}_s$seed.blcp ;;
      *) f=$tmp/${family}_${n}_s$seed.dat ;;
    esac
    "$gen_lcp" --type "$family" --n "$n" --seed "$seed" --out "$f" >/dev/null
    echo "bench_pivot.sh: $(basename "$f") ($(($(date +%s) - start)) s elapsed)"
    run_lcplab "$family" "$f" lemke
    run_lcplab "$family" "$f" dantzig
    if [ "$family" != contact-box ]; then
      run_peer "$family" "$f" siconos:lexicolemke
      if [ "$n" -le 500 ]; then run_peer "$family" "$f" bullet:lemke; fi
    fi
    for p in ode:dantzig dart:dantzig bullet:dantzig; do run_peer "$family" "$f" "$p"; done
    rm -f "$f"
  done
done

# ---- 4. the CSV, the table, the figure ------------------------------------------------
host=$(uname -n 2>/dev/null || hostname)
results=$builddir/experiments/results/$host
mkdir -p "$results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for ext in csv md png pdf; do
  if [ -e "$results/bench_pivot.$ext" ]; then
    mv "$results/bench_pivot.$ext" "$results/bench_pivot.$ext.$stamp"
    echo "bench_pivot.sh: previous bench_pivot.$ext moved to bench_pivot.$ext.$stamp"
  fi
done
csv=$results/bench_pivot.csv
md=$results/bench_pivot.md

rev=$(git -C "$srcdir" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && [ -n "$(git -C "$srcdir" status --porcelain 2>/dev/null)" ]; then
  rev="$rev-dirty"
fi
# the BLAS/LAPACK libsolvers really loads (alternatives resolved); lcplab
# itself is a libtool wrapper script in a build tree
blas=
for so in "$builddir/libsolvers/.libs/libsolvers.so" "$lcplab"; do
  [ -e "$so" ] || continue
  blas=$(ldd "$so" 2>/dev/null | awk '/blas|lapack/ && $3 ~ /^\// {print $3}' |
    while IFS= read -r l; do readlink -f "$l"; done | tr '\n' ' ')
  [ -n "$blas" ] && break
done
[ -n "$blas" ] || blas="unknown"

python3 - "$runs" "$csv" "$md" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$host" "$rev" "$blas" \
  "$seed" "$repeat" "$maxpiv" "$tlimit" "$tmp/" <<'EOF'
import csv as csvmod, json, math, sys

runs, csvpath, mdpath, date, host, rev, blas, seed, repeat, maxpiv, tlimit, tmpdir = sys.argv[1:13]
blas = blas.strip()
ACC = 1e-8  # "solved": res_nat_inf / max(1, ||b||_inf) <= ACC

def fnum(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None

rows = []
for line in open(runs):
    r = json.loads(line)
    out, code = r["out"], r["exit"]
    row = dict(file=r["file"].rsplit(".", 1)[0], family=r["family"], n=None,
               program=r["program"], solver=r["solver"], status="", pivots=None, time_s=None,
               res_nat_inf=None, exit=code, res_nat_check=None, solved="", note="")
    if code == 124:
        row["status"] = "timeout"
        row["note"] = "killed after %s s" % tlimit
    elif r["program"] == "lcplab":
        if code in (0, 3) and out:
            row.update(n=out.get("n"), status=out.get("status", "?"), pivots=out.get("pivots"),
                       time_s=fnum(out.get("time_s")), res_nat_inf=fnum(out.get("res_nat_inf")))
            rel = fnum(out.get("res_rel"))
            row["solved"] = "yes" if rel is not None and rel <= ACC else "no"
            if out.get("message"):
                row["note"] = out["message"]
        elif code == 2:
            row["status"] = "refused"
            row["note"] = r["err"]
        else:
            row["status"] = "crash"
            row["note"] = "exit %d: %s" % (code, r["err"])
        chk = r.get("check")
        if chk:
            row["res_nat_check"] = fnum(chk.get("res_nat"))
    else:
        if out and code == 0:
            st = out.get("status", "?")
            row.update(n=out.get("n"), status=st, time_s=fnum(out.get("time_s")),
                       res_nat_inf=fnum(out.get("res_nat")))
            it = out.get("iterations")
            row["pivots"] = it if isinstance(it, int) and it >= 0 else None
            if st in ("not_applicable", "error"):
                row["time_s"] = row["res_nat_inf"] = None
                row["note"] = out.get("note", "")
            else:
                row["solved"] = "yes" if out.get("solved") else "no"
        else:
            row["status"] = "crash"
            row["note"] = "exit %d: %s" % (code, r["err"])
    if row["note"]:
        # the instance files lived in a temporary directory: keep their names only
        note = row["note"].replace(tmpdir, "").replace("\n", " ").replace('"', "'")
        # lcplab's "lcplab: FILE: " prefix repeats the row's file
        prefix = "lcplab: %s: " % r["file"]
        row["note"] = note[len(prefix):] if note.startswith(prefix) else note
    rows.append(row)

# n of a file from any row that knows it (a refused lcplab row does not)
nof = {}
for row in rows:
    if row["n"] is not None:
        nof[row["file"]] = row["n"]
for row in rows:
    if row["n"] is None:
        row["n"] = nof.get(row["file"], int(row["file"].split("_")[1]))

cols = ["file", "family", "n", "program", "solver", "status", "pivots", "time_s",
        "res_nat_inf", "exit", "res_nat_check", "solved", "note"]

def cell(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)

with open(csvpath, "w", newline="") as fh:
    fh.write("# lcplab bench_pivot: pivoting solvers vs peers (experiments/bench_pivot.sh)\n")
    fh.write("# rev: %s\n# host: %s\n# date: %s\n# blas: %s\n" % (rev, host, date, blas))
    fh.write("# OPENBLAS_NUM_THREADS: 1\n# seed: %s\n# repeat: %s\n# max_pivots: %s\n"
             "# timeout_s: %s\n" % (seed, repeat, maxpiv, tlimit))
    fh.write("# time_s: median solve time [s] of the repeats; res_nat_inf = ||x - mid(lo, hi, "
             "x - w)||_inf by the program's own code; res_nat_check: the peer harness's number "
             "for lcplab's x; solved: res_rel <= %g\n" % ACC)
    w = csvmod.writer(fh, lineterminator="\n")
    w.writerow(cols)
    for row in rows:
        w.writerow([cell(row[c]) for c in cols])

# ---- slopes: log t = a + s log n, least squares per (program, solver, family) ----
series = {}
for row in rows:
    if row["time_s"] is not None and row["time_s"] > 0:
        key = (row["program"], row["solver"], row["family"])
        series.setdefault(key, []).append((row["n"], row["time_s"], row["solved"]))

def fit(pts):
    if len(pts) < 2:
        return None
    xs = [math.log(n) for n, _, _ in pts]
    ys = [math.log(t) for _, t, _ in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx

def g(v, f="%.3g"):
    return "-" if v is None else f % v

out = []
out.append("## Pivoting solvers: lcplab vs peers (seed %s, median of %s runs)" % (seed, repeat))
out.append("")
out.append("%s, host %s, rev %s, OPENBLAS_NUM_THREADS=1, BLAS %s.  Pivot limit %s, timeout %s s "
           "per run.  res_nat_inf = ||x - mid(lo, hi, x - w)||_inf from each program's own code; "
           "check = the peer harness's figure for lcplab's x; solved = res_rel <= %g.  "
           "contact-box has findex friction rows: lcplab lemke takes them through the friction LCP reformulation, the Lemke peers do not."
           % (date, host, rev, blas, maxpiv, tlimit, ACC))
out.append("")
out.append("| file | n | program:solver | status | solved | pivots | median time [s] | res_nat_inf | check | note |")
out.append("|---|---|---|---|---|---|---|---|---|---|")
order = {"spd": 0, "contact": 1, "contact-box": 2}
for row in sorted(rows, key=lambda r: (order.get(r["family"], 9), r["n"])):
    note = row["note"]
    if len(note) > 110:
        note = note[:107] + "..."
    out.append("| %s | %d | %s:%s | %s | %s | %s | %s | %s | %s | %s |" % (
        row["file"], row["n"], row["program"], row["solver"], row["status"], row["solved"] or "-",
        "-" if row["pivots"] is None else row["pivots"], g(row["time_s"]),
        g(row["res_nat_inf"], "%.1e"), g(row["res_nat_check"], "%.1e"), note.replace("|", "/")))

out.append("")
out.append("### Fitted slopes s of log t = a + s log n (least squares over each series' points)")
out.append("")
out.append("| family | program:solver | points | n range | slope s | unsolved points |")
out.append("|---|---|---|---|---|---|")
for key in sorted(series, key=lambda k: (order.get(k[2], 9), k[0] != "lcplab", k[0], k[1])):
    pts = sorted(series[key])
    s = fit(pts)
    bad = sum(1 for p in pts if p[2] != "yes")
    out.append("| %s | %s:%s | %d | %d-%d | %s | %s |" % (
        key[2], key[0], key[1], len(pts), pts[0][0], pts[-1][0], g(s, "%.2f"), bad or "-"))

out.append("")
out.append("### Speedups at n >= 500: t_peer / t_lcplab (> 1: lcplab faster), residuals side by side")
out.append("")
out.append("| file | n | lcplab | status | time [s] | res_nat_inf | peer | status | time [s] | res_nat_inf | speedup |")
out.append("|---|---|---|---|---|---|---|---|---|---|---|")
byfile = {}
for row in rows:
    byfile.setdefault(row["file"], {})[(row["program"], row["solver"])] = row
pairs = [(("lcplab", "lemke"), ("siconos", "lexicolemke")), (("lcplab", "dantzig"), ("ode", "dantzig"))]
for f in sorted(byfile, key=lambda f: (order.get(next(iter(byfile[f].values()))["family"], 9),
                                       next(iter(byfile[f].values()))["n"])):
    d = byfile[f]
    for mine, peer in pairs:
        if mine not in d or peer not in d:
            continue
        a, b = d[mine], d[peer]
        if int(f.split("_")[1]) < 500:  # nominal size (contact-box: true n = 3 floor(N/3))
            continue
        sp = (b["time_s"] / a["time_s"]) if a["time_s"] and b["time_s"] and a["status"] == "converged" else None
        out.append("| %s | %d | %s | %s | %s | %s | %s:%s | %s%s | %s | %s | %s |" % (
            f, a["n"], mine[1], a["status"], g(a["time_s"]), g(a["res_nat_inf"], "%.1e"),
            peer[0], peer[1], b["status"], "" if b["solved"] in ("yes", "") else " (not solved)",
            g(b["time_s"]), g(b["res_nat_inf"], "%.1e"), g(sp, "%.2fx")))
out.append("")
out.append("speedup '-': lcplab did not converge (or did not run), so no ratio is given.")
text = "\n".join(out) + "\n"
open(mdpath, "w").write(text)
sys.stdout.write(text)
EOF

# ---- the figure --------------------------------------------------------------------------
if [ -z "$gnuplot" ]; then gnuplot=$(command -v gnuplot || true); fi
if [ -n "$gnuplot" ] && [ -x "$gnuplot" ]; then
  if "$gnuplot" -e "csv='$csv'; out='$results/bench_pivot'" "$srcdir/experiments/bench_pivot.gp"; then
    echo "bench_pivot.sh: figure $results/bench_pivot.png (and .pdf)"
  else
    echo "bench_pivot.sh: gnuplot failed: no figure (the CSV and table are complete)" >&2
  fi
else
  echo "bench_pivot.sh: gnuplot not found: no figure (apt-get install gnuplot-nox)" >&2
fi
echo
echo "bench_pivot.sh: $csv"
echo "bench_pivot.sh: $md"
echo "bench_pivot.sh: done in $(($(date +%s) - start)) s of runs"
