#!/bin/sh
# paper/build.sh -- build the lcplab paper from the main job's results.
#
#   sh paper/build.sh RESULTS_DIR OUT_DIR
#
# RESULTS_DIR is BUILDDIR/experiments/results/HOST of `make main-job`
# (lcplab experiment experiments/default.exp).  Everything is written into
# OUT_DIR (created): the generated gen/*.tex (provenance, tables, numbers
# quoted in the text, all read from the CSVs), copies of the figures, the
# LaTeX sources, the log files and paper.pdf.  The source tree is only read.
# Needs python3, pdflatex and bibtex (Debian: texlive-latex-base,
# texlive-latex-recommended, texlive-fonts-recommended; scripts/deps.sh).
# Exit status: 0 built (the PDF path is printed last), 2 bad usage or
# missing results, 1 a LaTeX/BibTeX failure (the log's tail is shown).
set -eu

if [ $# -ne 2 ]; then
  echo "usage: sh paper/build.sh RESULTS_DIR OUT_DIR" >&2
  exit 2
fi
res=$1
out=$2
srcdir=$(cd "$(dirname "$0")" && pwd)

for f in profile.csv profile_profile.csv convergence.csv scaling.csv scaling_slopes.csv \
         drift.csv accuracy.csv; do
  if [ ! -f "$res/$f" ]; then
    echo "paper: $res/$f is missing; run make main-job first" >&2
    exit 2
  fi
done
for f in profile convergence scaling drift accuracy; do
  if [ ! -f "$res/$f.pdf" ]; then
    echo "paper: $res/$f.pdf is missing (gnuplot with pdfcairo?); run make main-job first" >&2
    exit 2
  fi
done
for p in python3 pdflatex bibtex; do
  if ! command -v "$p" >/dev/null 2>&1; then
    echo "paper: '$p' not found; install the packages of scripts/deps.sh" >&2
    exit 2
  fi
done

mkdir -p "$out/gen" "$out/fig"
case $out in /*) ;; *) out=$(cd "$out" && pwd) ;; esac
cp "$srcdir/paper.tex" "$out/"
# the single bibliography of the project, under the name paper.tex cites
cp "$srcdir/../docs/references.bib" "$out/refs.bib"
for f in profile convergence scaling drift accuracy; do
  cp "$res/$f.pdf" "$out/fig/$f.pdf"
done

python3 - "$res" "$out/gen" <<'PYEOF'
# Reads the main job's CSVs; writes gen/provenance.tex, gen/slopes.tex,
# gen/profile_tau1.tex and gen/numbers.tex (macros quoted in the text).
import csv, math, os, sys

res, gen = sys.argv[1], sys.argv[2]

def tex(s):
    rep = {'\\': r'\textbackslash{}', '_': r'\_', '%': r'\%', '&': r'\&', '#': r'\#',
           '$': r'\$', '{': r'\{', '}': r'\}', '~': r'\textasciitilde{}', '^': r'\^{}'}
    return ''.join(rep.get(c, c) for c in s)

def read(name):
    pre, rows = {}, []
    with open(os.path.join(res, name), newline='') as fh:
        lines = [l for l in fh if l.strip()]
    body = []
    for l in lines:
        if l.startswith('#'):
            t = l[1:].strip()
            if ':' in t and not t.startswith('config>'):
                k, v = t.split(':', 1)
                pre.setdefault(k.strip(), v.strip())
        else:
            body.append(l)
    rdr = csv.DictReader(body)
    rows = list(rdr)
    if not rows:
        sys.exit('paper: %s has no rows; run make main-job first' % name)
    return pre, rows

def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float('nan')

def macro(name, val):
    return '\\newcommand{\\%s}{%s}\n' % (name, val)

# ---- provenance (profile.csv preamble) ----
pre, prof = read('profile.csv')
with open(os.path.join(gen, 'provenance.tex'), 'w') as fh:
    for key, mac in [('rev', 'ProvRev'), ('compiler', 'ProvCompiler'), ('blas', 'ProvBlas'),
                     ('cflags', 'ProvCflags'), ('threads', 'ProvThreads'),
                     ('lcplab', 'ProvVersion'), ('date', 'ProvDate'), ('host', 'ProvHost'),
                     ('timing', 'ProvTiming')]:
        fh.write(macro(mac, tex(pre.get(key, 'unknown')) or 'unknown'))

# ---- profile at tau = 1 ----
_, pp = read('profile_profile.csv')
tols = []
for r in pp:
    if r['tol'] not in tols:
        tols.append(r['tol'])
tols = tols[:2]
solvers = []
for r in prof:
    if r['solver'] not in solvers:
        solvers.append(r['solver'])
at1, share, nprob = {}, {}, {}
for r in pp:
    key = (r['tol'], r['solver'])
    share[key] = num(r['solved_share'])
    nprob[r['tol']] = int(float(r['problems']))
    if num(r['tau']) == 1.0:
        at1[key] = max(at1.get(key, 0.0), num(r['rho']))

def tolfmt(t):
    m, e = ('%e' % float(t)).split('e')
    m = m.rstrip('0').rstrip('.')
    return ('10^{%d}' % int(e)) if m == '1' else ('%s\\times10^{%d}' % (m, int(e)))

def pct(v):
    return '--' if math.isnan(v) else '%.0f' % (100.0 * v)

with open(os.path.join(gen, 'profile_tau1.tex'), 'w') as fh:
    fh.write('\\begin{tabular}{l' + 'rr' * len(tols) + '}\n\\toprule\n')
    fh.write(' & ' + ' & '.join('\\multicolumn{2}{c}{tol $%s$}' % tolfmt(t) for t in tols) + ' \\\\\n')
    fh.write('solver' + ' & fastest & solved' * len(tols) + ' \\\\\n\\midrule\n')
    for s in solvers:
        cells = []
        for t in tols:
            cells.append(pct(at1.get((t, s), 0.0)))
            cells.append(pct(share.get((t, s), float('nan'))))
        fh.write('\\texttt{%s} & %s \\\\\n' % (tex(s), ' & '.join(cells)))
    fh.write('\\bottomrule\n\\end{tabular}\n')

nums = ''
nums += macro('NProfileProblems', nprob[tols[0]])
nums += macro('NProfileRows', len(prof))
nums += macro('NSolvers', len(solvers))
for i, t in enumerate(tols):
    tag = 'AB'[i]
    best = max(solvers, key=lambda s: at1.get((t, s), 0.0))
    most = max(solvers, key=lambda s: share.get((t, s), 0.0))
    nums += macro('ProfTol' + tag, '$' + tolfmt(t) + '$')
    nums += macro('ProfBest' + tag, '\\texttt{%s}' % tex(best))
    nums += macro('ProfBestShare' + tag, pct(at1.get((t, best), 0.0)) + '\\,\\%')
    nums += macro('ProfMostSolved' + tag, '\\texttt{%s}' % tex(most))
    nums += macro('ProfMostSolvedShare' + tag, pct(share.get((t, most), 0.0)) + '\\,\\%')
kinds = {}
seen = set()
for r in prof:
    if r['problem'] not in seen:
        seen.add(r['problem'])
        kinds[r['kind']] = kinds.get(r['kind'], 0) + 1
nums += macro('ProfKinds', ', '.join('%d %s' % (kinds[k], tex(k)) for k in sorted(kinds)))

# ---- scaling slopes ----
_, sl = read('scaling_slopes.csv')
fit = [r for r in sl if not math.isnan(num(r['slope']))]
with open(os.path.join(gen, 'slopes.tex'), 'w') as fh:
    fh.write('\\begin{tabular}{llrrr}\n\\toprule\nfamily & solver & points & slope $s$ & $R^2$ \\\\\n\\midrule\n')
    for r in sl:
        s = num(r['slope'])
        if math.isnan(s):
            fh.write('%s & \\texttt{%s} & %s & -- & -- \\\\\n' % (tex(r['family']), tex(r['solver']), r['points'] or '0'))
        else:
            fh.write('%s & \\texttt{%s} & %s & %.2f & %.3f \\\\\n'
                     % (tex(r['family']), tex(r['solver']), r['points'], s, num(r['r2'])))
    fh.write('\\bottomrule\n\\end{tabular}\n')
if fit:
    lo = min(fit, key=lambda r: num(r['slope']))
    hi = max(fit, key=lambda r: num(r['slope']))
    nums += macro('SlopeMin', '%.2f' % num(lo['slope']))
    nums += macro('SlopeMinSolver', '\\texttt{%s}' % tex(lo['solver']))
    nums += macro('SlopeMax', '%.2f' % num(hi['slope']))
    nums += macro('SlopeMaxSolver', '\\texttt{%s}' % tex(hi['solver']))
else:
    for m in ('SlopeMin', 'SlopeMinSolver', 'SlopeMax', 'SlopeMaxSolver'):
        nums += macro(m, '--')
_, sc = read('scaling.csv')
ns = sorted({int(float(r['n'])) for r in sc if r['n']})
nums += macro('ScalingNmin', ns[0])
nums += macro('ScalingNmax', ns[-1])

# ---- drift: worst |rel_drift| at the end of the elastic ball run ----
# (the integrator comparison, ball and racket, is its own section,
# integrators.csv, when the results have one)
_, dr = read('integrators.csv' if os.path.exists(os.path.join(res, 'integrators.csv')) else 'drift.csv')
last = {}
dr_all = dr
dr = [r for r in dr if r['step']]
for r in dr:
    k = (r['scene'], r['solver'], r['integrator'])
    if int(r['step']) >= int(last.get(k, {'step': -1})['step']):
        last[k] = r
scenes = []
for r in dr_all:
    if r['scene'] not in scenes:
        scenes.append(r['scene'])
nums += macro('DriftScenes', ', '.join('\\texttt{%s}' % tex(s) for s in scenes))
ints = sorted({r['integrator'] for r in dr})
nums += macro('DriftIntegrators', ' and '.join(tex(i) for i in ints))
steps = max(int(r['step']) for r in dr)
nums += macro('DriftSteps', steps)
for i in range(2):
    integ = ints[i] if i < len(ints) else '--'
    v = [abs(num(r['rel_drift'])) for k, r in last.items()
         if k[0] == scenes[0] and k[2] == integ and not math.isnan(num(r['rel_drift']))]
    tag = 'AB'[i]
    nums += macro('DriftInteg' + tag, tex(integ))
    nums += macro('DriftFirstMax' + tag, ('%.1e' % max(v)).replace('e', '\\times10^{') + '}' if v else '--')

# the other scenes: range over solvers and integrators of the final relative
# energy change (dissipative scenes lose energy by design)
def sci(v):
    m, e = ('%.1e' % v).split('e')
    return '%s\\times10^{%d}' % (m, int(e))
others = []
for sc_name in scenes[1:]:
    v = [(num(r['rel_drift']), k[1]) for k, r in last.items()
         if k[0] == sc_name and not math.isnan(num(r['rel_drift']))]
    if v:
        lo, hi = min(v), max(v)
        others.append('$%s$ (\\texttt{%s}) to $%s$ (\\texttt{%s}) on \\texttt{%s}'
                      % (sci(lo[0]), tex(lo[1]), sci(hi[0]), tex(hi[1]), tex(sc_name)))
nums += macro('DriftOthers', '; '.join(others) if others else '--')

# ---- accuracy: status counts over all steps ----
_, ac = read('accuracy.csv')
ac = [r for r in ac if r['step']]
acc_sc = []
for r in ac:
    if r['scene'] not in acc_sc:
        acc_sc.append(r['scene'])
nums += macro('AccScenes', ', '.join('\\texttt{%s}' % tex(s) for s in acc_sc))
conv = sum(1 for r in ac if r['status'] == 'converged')
nums += macro('AccSteps', len(ac))
nums += macro('AccConvergedPct', '%.0f\\,\\%%' % (100.0 * conv / len(ac)))

# ---- convergence problems ----
_, cv = read('convergence.csv')
probs = []
for r in cv:
    if r['problem'] not in probs:
        probs.append(r['problem'])
nums += macro('ConvProblems', ', '.join('\\texttt{%s}' % tex(p) for p in probs))
# per problem and solver: iterations and time to the tolerance (final rows)
fin = {(r['problem'], r['solver']): r for r in cv if r['final'] == '1'}
hist = {}
for r in cv:
    if r['final'] == '0' and r['iteration'] == '0':
        hist[(r['problem'], r['solver'])] = num(r['res_rel'])
cv_solvers = []
for r in cv:
    if r['solver'] not in cv_solvers and any(
            fin.get((p, r['solver']), {}).get('status') not in (None, 'unsupported') for p in probs):
        cv_solvers.append(r['solver'])
def cell(p, s):
    r = fin.get((p, s))
    if r is None or r['status'] == 'unsupported':
        return '--'
    if r['status'] != 'converged':
        return tex(r['status'])
    return '%s / %.3g' % (r['iteration'], 1e3 * num(r['time_s']))
with open(os.path.join(gen, 'conv.tex'), 'w') as fh:
    fh.write('\\begin{tabular}{l' + 'r' * len(probs) + '}\n\\toprule\n')
    fh.write('solver & ' + ' & '.join('\\texttt{%s}' % tex(p) for p in probs) + ' \\\\\n\\midrule\n')
    for sv in cv_solvers:
        fh.write('\\texttt{%s} & %s \\\\\n' % (tex(sv), ' & '.join(cell(p, sv) for p in probs)))
    fh.write('\\bottomrule\n\\end{tabular}\n')
# fastest converged solver per problem, and the mean contraction per
# iteration (res_k / res_0)^(1/k) of the runs with k >= 20 iterations
fastest = []
rates = []
for p in probs:
    ok = [r for (pp, _), r in fin.items() if pp == p and r['status'] == 'converged']
    if ok:
        b = min(ok, key=lambda r: num(r['time_s']))
        fastest.append('\\texttt{%s} on \\texttt{%s} (%.3g\\,ms)' % (tex(b['solver']), tex(p), 1e3 * num(b['time_s'])))
    for r in ok:
        k = int(r['iteration'])
        r0 = hist.get((p, r['solver']))
        if k >= 20 and r0 and r0 > 0 and num(r['res_rel']) > 0:
            rates.append(((num(r['res_rel']) / r0) ** (1.0 / k), r['solver'], p, k))
nums += macro('ConvFastest', '; '.join(fastest) if fastest else '--')
if rates:
    lo, hi = min(rates), max(rates)
    nums += macro('ConvRateMin', '%.3f' % lo[0])
    nums += macro('ConvRateMinWho', '\\texttt{%s} on \\texttt{%s}, %d iterations' % (tex(lo[1]), tex(lo[2]), lo[3]))
    nums += macro('ConvRateMax', '%.4f' % hi[0])
    nums += macro('ConvRateMaxWho', '\\texttt{%s} on \\texttt{%s}, %d iterations' % (tex(hi[1]), tex(hi[2]), hi[3]))
else:
    for m in ('ConvRateMin', 'ConvRateMinWho', 'ConvRateMax', 'ConvRateMaxWho'):
        nums += macro(m, '--')

with open(os.path.join(gen, 'numbers.tex'), 'w') as fh:
    fh.write(nums)
PYEOF

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
: >"$out/build.log"
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
run bibtex paper
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
run pdflatex -interaction=nonstopmode -halt-on-error paper.tex
rm -f "$out/build.log.tmp"
if grep -q 'Citation.*undefined\|Reference.*undefined' paper.log; then
  echo "paper: warning: undefined citations or references (see $out/paper.log)" >&2
fi
echo "$out/paper.pdf"
