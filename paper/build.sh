#!/bin/sh
# paper/build.sh -- build the lcplab paper from the results of one
# `lcplab experiment` run: the main job's sample or a full campaign.
#
#   sh paper/build.sh RESULTS_DIR OUT_DIR
#   make paper                       (RESULTS_DIR = the main job's results)
#   make paper CAMPAIGN=/tmp/paper-campaign   (a full campaign's --out folder)
#
# RESULTS_DIR holds the CSVs of `lcplab experiment` (experiments/default.exp
# or experiments/full.exp).  Everything is written into OUT_DIR (created):
# the figures, redrawn from the CSVs by experiments/exp_*.gp with the fonts of
# the paper (figure option font=latex, plus each section's own `figure`
# options from its CSV preamble), gen/*.tex (paper/gen.py: provenance,
# tables, every number quoted in the text), the LaTeX sources, the log files
# and paper.pdf.  The source tree and RESULTS_DIR are only read.
# Needs lcplab (LCPLAB, else on PATH), the lcplab Python package for gen.py
# (PYTHON, else python3, with PYTHONPATH as `make paper` sets it: the build's
# python/ folder; or a pip install), gnuplot (pdfcairo), pdflatex and
# bibtex (scripts/deps.sh);
# pdftoppm (poppler-utils) makes the PNGs of the figures, which the paper
# does not need.
# Exit status: 0 built and checked (the PDF path is printed last), 2 bad usage or
# missing results, 1 a gnuplot, LaTeX or BibTeX failure (the log's tail is shown)
# or a FAIL of tests/paper_checks.py (OUT/checks.txt).
set -eu

if [ $# -ne 2 ]; then
  echo "usage: sh paper/build.sh RESULTS_DIR OUT_DIR" >&2
  exit 2
fi
res=$1
out=$2
srcdir=$(cd "$(dirname "$0")" && pwd)
gpdir="$srcdir/../experiments"

for f in profile.csv profile_profile.csv profile_winners.csv profile_failures.csv \
         profile_coverage.csv profile_timings.csv convergence.csv scaling.csv \
         scaling_slopes.csv drift.csv accuracy.csv; do
  if [ ! -f "$res/$f" ]; then
    echo "paper: $res/$f is missing; run make main-job first (or give a campaign's folder)" >&2
    exit 2
  fi
done
lcplab=${LCPLAB:-lcplab}
python=${PYTHON:-python3}
for p in "$python" pdflatex bibtex "${GNUPLOT:-gnuplot}" "$lcplab"; do
  if ! command -v "$p" >/dev/null 2>&1; then
    echo "paper: '$p' not found; install the packages of scripts/deps.sh" >&2
    exit 2
  fi
done

mkdir -p "$out/gen" "$out/fig"
# fig/ is this build's own: a figure an earlier build drew from other results (a
# campaign's large set, its profiles with refusals) must not reach this paper
rm -f "$out/fig/"*.pdf "$out/fig/"*.png
case $out in /*) ;; *) out=$(cd "$out" && pwd) ;; esac
case $res in /*) ;; *) res=$(cd "$res" && pwd) ;; esac
cp "$srcdir/paper.tex" "$out/"
# the single bibliography of the project, under the name paper.tex cites, without
# its note fields (the project's comments, which the plain style would print)
"$python" "$srcdir/gen.py" --bib "$srcdir/../docs/references.bib" "$out/refs.bib"
: >"$out/build.log"

# ---- figures: redrawn from the CSVs ---------------------------------------------------
# figure NAME KIND [CSV2]: the section NAME.csv drawn by exp_KIND.gp into fig/NAME*,
# by `lcplab figure` (the section's `figure` options from the CSV preamble, then the
# paper's font), which hands gnuplot no name or path as code (experiments/README.md,
# "Figures"); --force: fig/ is this build's own folder, redrawn by every build
figure() {
  name=$1 kind=$2 csv2=${3:-} csv=$res/$1.csv
  [ -f "$csv" ] || return 0
  case $kind in
  drift | accuracy | convergence) # identical algorithms drawn once (gen.py --merge-traces)
    mkdir -p "$out/fig-data"
    csv=$out/fig-data/$name.csv
    if ! "$python" "$srcdir/gen.py" --merge-traces "$res/$name.csv" "$csv" >>"$out/build.log" 2>&1; then
      echo "paper: gen.py --merge-traces failed on $name.csv; see $out/build.log" >&2
      exit 1
    fi
    ;;
  esac
  # the paper's main profiles are those over the problems each solver accepted (its
  # caption says so; the figure labels them), the ones with refusals counted beside them
  # (profile_all, below): the figure's default is the latter (issue 86)
  measure=
  [ "$kind" = profile ] && measure=measure=accepted
  if ! "$lcplab" figure "$kind" "$csv" ${csv2:+--csv2 "$csv2"} --out "$out/fig/$name" \
       --scripts "$gpdir" --set font=latex ${measure:+--set "$measure"} --force >>"$out/build.log" 2>&1; then
    echo "paper: lcplab figure failed on $name ($gpdir/exp_$kind.gp); see $out/build.log" >&2
    exit 1
  fi
}
figure profile profile "$res/profile_profile.csv"
# beside it, at the first tolerance, the profiles with a refusal counted as a failure
# (rho_all, issue 65) of the classes where some solver refused a problem: elsewhere
# the two are the same curves
if grep -m1 '^tol,' "$res/profile_profile.csv" | grep -q ',rho_all,'; then
  tol1=$(awk -F, '/^#/ {next} !h {h = 1; next} {print $1; exit}' "$res/profile_profile.csv")
  refusing=$(awk -F, -v t="$tol1" '/^#/ {next} !h {h = 1; next} $1 == t && $9 > 0 && !s[$8]++ {printf "%s%s", n++ ? "," : "", $8}' \
    "$res/profile_profile.csv")
  if [ -n "$refusing" ] &&
     ! "$lcplab" figure profile "$res/profile.csv" --csv2 "$res/profile_profile.csv" --out "$out/fig/profile_all" \
       --scripts "$gpdir" --set font=latex --set measure=all --set "tol=$tol1" --set "classes=$refusing" \
       --force >>"$out/build.log" 2>&1; then
    echo "paper: lcplab figure failed on the profiles with refusals ($gpdir/exp_profile.gp); see $out/build.log" >&2
    exit 1
  fi
fi
figure convergence convergence
figure scaling scaling "$res/scaling_slopes.csv"
figure drift drift
figure accuracy accuracy
figure integrators drift
[ -f "$res/large_profile.csv" ] && figure large profile "$res/large_profile.csv"

# ---- tables and numbers ---------------------------------------------------------------
if ! LCPLAB="$lcplab" "$python" "$srcdir/gen.py" "$res" "$out/gen" >>"$out/build.log" 2>&1; then
  echo "paper: paper/gen.py failed on $res; last lines:" >&2
  tail -5 "$out/build.log" >&2
  exit 1
fi
if [ -f "$res/articulated.csv" ] && [ -f "$res/articulated.pdf" ]; then
  cp "$res/articulated.pdf" "$out/fig/articulated.pdf"
fi

cd "$out"
run() {
  if ! "$@" >"$out/build.log.tmp" 2>&1; then
    cat "$out/build.log.tmp" >>"$out/build.log"
    echo "paper: '$*' failed in $out; last lines of its output:" >&2
    tail -25 "$out/build.log.tmp" >&2
    exit 1
  fi
  cat "$out/build.log.tmp" >>"$out/build.log"
}
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
run bibtex paper
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
rm -f "$out/build.log.tmp"
if grep -q 'Citation.*undefined\|Reference.*undefined' paper.log; then
  echo "paper: warning: undefined citations or references (see $out/paper.log)" >&2
fi
# the paper's checks (tests/paper_checks.py: every count against the CSVs, and issue 84's
# kinds of contradiction: a file name without its section, per-class counts against the
# problem list, two tie factors, refusals in some denominators only, a "Rerun" warning);
# a FAIL fails the build, its lines shown (all of them in OUT/checks.txt)
checks="$srcdir/../tests/paper_checks.py"
if [ -f "$checks" ]; then
  LCPLAB="$lcplab" "$python" "$checks" "$res" "$out/gen" "$srcdir/paper.tex" >"$out/checks.txt" 2>&1 || true
  if grep -q '^FAIL' "$out/checks.txt" || ! grep -q '^ok' "$out/checks.txt"; then
    echo "paper: the paper's checks failed ($out/checks.txt):" >&2
    grep -v '^ok' "$out/checks.txt" | head -20 >&2
    exit 1
  fi
fi
echo "$out/paper.pdf"
