# gen.py -- the generated parts of paper.tex, all read from the CSVs of one
# `lcplab experiment` results folder (the main job's sample or a full
# campaign): gen/*.tex tables and gen/numbers.tex macros.
#
#   python3 paper/gen.py RESULTS_DIR GEN_DIR
#
# paper.tex holds no result.  This script only formats what the library
# wrote: the statistics (profiles, winners and ties, failures, coverage,
# timings, slopes, steps) are the tables libexperiment/tables.c wrote beside
# each CSV, and every text it quotes comes escaped from the library's
# NAME_tex.csv (exp_text_write; exp_tex_escape): it escapes nothing itself.
# Sections that a results folder lacks (large, integrators, peers) are
# reported as absent, in one sentence, through the macros.
import csv
import math
import os
import sys

res, gen = sys.argv[1], sys.argv[2]


def load_tex():
    """Every text of the results folder with its LaTeX form, as the library
    wrote them (NAME_tex.csv beside each NAME.csv)."""
    texts = {}
    for name in sorted(os.listdir(res)):
        if name.endswith('_tex.csv'):
            with open(os.path.join(res, name), newline='') as fh:
                for r in csv.DictReader(l for l in fh if not l.startswith('#')):
                    texts[r['text']] = r['tex']
    return texts


TEX = load_tex()


def tex(s):
    """The LaTeX form of a text of the results, as the library wrote it; a
    number needs none."""
    s = str(s)
    if not s or s in TEX:
        return TEX.get(s, s)
    try:
        float(s)
        return s
    except ValueError:
        sys.exit('gen.py: %r is not in %s/*_tex.csv (the library writes them: collect the '
                 'results again with this lcplab, `lcplab collect DIR/campaign --out DIR '
                 '--force`)' % (s, res))


def tt(s):
    return '\\texttt{%s}' % tex(s)


def have(name):
    return os.path.exists(os.path.join(res, name))


def read(name):
    pre, body = {}, []
    with open(os.path.join(res, name), newline='') as fh:
        for line in fh:
            if not line.strip():
                continue
            if line.startswith('#'):
                t = line[1:].strip()
                if ':' in t and not t.startswith('config'):
                    k, v = t.split(':', 1)
                    pre.setdefault(k.strip(), v.strip())
            else:
                body.append(line)
    return pre, list(csv.DictReader(body))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float('nan')


def macro(name, val):
    return '\\newcommand{\\%s}{%s}\n' % (name, val)


def sci(v, d=1):
    if v is None or math.isnan(v):
        return '--'
    if v == 0:
        return '0'
    m, e = ('%.*e' % (d, v)).split('e')
    e = int(e)
    if -2 <= e <= 3:
        return ('%.*g' % (d + 1, v))
    return '%s\\times10^{%d}' % (m, e)


def pct(v):
    return '--' if v is None or math.isnan(v) else '%.0f' % (100.0 * v)


def tolfmt(t):
    m, e = ('%e' % float(t)).split('e')
    m = m.rstrip('0').rstrip('.')
    return ('10^{%d}' % int(e)) if m == '1' else ('%s\\times10^{%d}' % (m, int(e)))


CLASS_NAME = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
              'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}
CLASS_ORDER = ['lcp', 'box', 'mlcp', 'fc3d', 'cone-assoc']
PEER_PREFIX = ('siconos', 'ode-', 'dart-', 'bullet-')


def is_peer(s):
    return s.startswith(PEER_PREFIX)


def classes_of(rows):
    seen = []
    for r in rows:
        if r['class'] not in seen:
            seen.append(r['class'])
    return sorted(seen, key=lambda c: CLASS_ORDER.index(c) if c in CLASS_ORDER else 99)


def write(name, text):
    with open(os.path.join(gen, name), 'w') as fh:
        fh.write(text)


nums = ''

# ---- provenance ------------------------------------------------------------------------
pre, prof = read('profile.csv')
prov_keys = [('cpu', 'CPU'), ('cores', 'cores'), ('governor', 'frequency governor'),
             ('load', 'load (1-min average)'), ('host', 'kernel'), ('compiler', 'compiler'),
             ('cflags', 'flags'), ('blas', 'BLAS'), ('threads', 'threads'),
             ('precision', 'precision'), ('lcplab', 'lcplab version'), ('rev', 'revision'),
             ('time_limit_s', 'time limit (s)'), ('timing', 'timing rule'),
             ('tie_tolerance', 'tie tolerance'), ('cond_est', 'condition estimate'),
             ('date', 'date'), ('tasks', 'tasks')]
t = '\\begin{tabular}{@{}l>{\\raggedright\\arraybackslash}p{0.74\\textwidth}@{}}\n\\toprule\n'
for k, lab in prov_keys:
    if k in pre:
        t += '%s & %s \\\\\n' % (lab, tex(pre[k]))
t += '\\bottomrule\n\\end{tabular}\n'
write('provenance.tex', t)
nums += macro('ProvRev', tex(pre['rev']) if 'rev' in pre else 'unknown')
nums += macro('ProvCPU', tex(pre['cpu']) if 'cpu' in pre else 'unknown')
nums += macro('ProvLoad', tex(pre['load']) if 'load' in pre else 'unknown')
tie = pre.get('tie_tolerance', '').split()
tie_f = num(tie[0]) if tie else float('nan')
nums += macro('TieTol', '%g' % tie_f if not math.isnan(tie_f) else '--')
nums += macro('TieFactor', '%g' % (1 + tie_f) if not math.isnan(tie_f) else '--')
nums += macro('TimeLimit', tex(pre.get('time_limit_s', '--').split()[0]))

# ---- the problem collection ------------------------------------------------------------
def collection(rows):
    probs = {}
    for r in rows:
        probs.setdefault(r['problem'], r)
    return probs


sets = [('profile', prof)]
if have('large.csv'):
    sets.append(('large', read('large.csv')[1]))
if have('scaling.csv'):
    sets.append(('scaling', read('scaling.csv')[1]))
allprobs = {}
for name, rows in sets:
    for p, r in collection(rows).items():
        allprobs[(name, p)] = r
t = ('\\begin{tabular}{@{}llrrrrr@{}}\n\\toprule\nset & class & problems & $n$ min & $n$ max & '
     'nnz max & contacts max \\\\\n\\midrule\n')
total = 0
nmax = 0
for name, rows in sets:
    pr = collection(rows)
    for c in classes_of(rows):
        ps = [r for r in pr.values() if r['class'] == c]
        ns = [int(num(r['n'])) for r in ps]
        nz = [int(num(r.get('nnz'))) for r in ps if not math.isnan(num(r.get('nnz')))]
        ct = [int(num(r.get('contacts'))) for r in ps if not math.isnan(num(r.get('contacts')))]
        t += '%s & %s & %d & %d & %d & %s & %s \\\\\n' % (
            name, CLASS_NAME.get(c) or tex(c), len(ps), min(ns), max(ns),
            max(nz) if nz else '--', max(ct) if ct else '--')
        total += len(ps)
        nmax = max(nmax, max(ns))
t += '\\bottomrule\n\\end{tabular}\n'
write('collection.tex', t)
nclasses = len({r['class'] for _, rows in sets for r in rows})
nums += macro('NProblems', total)
nums += macro('NClasses', nclasses)
nums += macro('NMax', nmax)
nums += macro('NProfileProblems', len(collection(prof)))
nums += macro('NProfileRows', len(prof))
lcp_solvers = [s for s in dict.fromkeys(r['solver'] for r in prof) if not is_peer(s)]
peers = [s for s in dict.fromkeys(r['solver'] for r in prof) if is_peer(s)]
nums += macro('NSolvers', len(lcp_solvers))
nums += macro('NPeers', len(peers))
nums += macro('PeerList', ', '.join(tt(s) for s in peers) if peers else 'none')
nums += macro('HavePeers', '1' if peers else '0')
nums += macro('HaveLarge', '1' if have('large.csv') else '0')
nums += macro('HaveIntegrators', '1' if have('integrators.csv') else '0')

# runs behind every timed row: >= 5 runs or >= 0.1 s of runs
timed = bad = 0
runs_all = []
for name, rows in sets:
    for r in rows:
        if r.get('status') != 'converged' or math.isnan(num(r.get('repeats'))):
            continue
        k = int(num(r['repeats']))
        if r.get('time_source', 'library') not in ('library', ''):
            continue
        timed += 1
        runs_all.append(k)
        if k < 5 and k * num(r['time_s']) < 0.1:
            bad += 1
ptimed = pbad = 0
pruns = []
for name, rows in sets:
    for r in rows:
        if r.get('status') != 'converged' or r.get('time_source', 'library') in ('library', ''):
            continue
        k = int(num(r['repeats']))
        ptimed += 1
        pruns.append(k)
        if k < 5 and k * num(r['time_s']) < 0.1:
            pbad += 1
nums += macro('NTimedPeerRows', ptimed)
nums += macro('NTimedPeerShort', pbad)
nums += macro('PeerRunsMin', min(pruns) if pruns else '--')
nums += macro('NTimedRows', timed)
nums += macro('NTimedShort', bad)
runs_all.sort()
nums += macro('RunsMedian', runs_all[len(runs_all) // 2] if runs_all else '--')

# ---- winners, ties, identical algorithms ---------------------------------------------------
def winners_table(name, tol_pick):
    _, w = read(name)
    tols = list(dict.fromkeys(r['tol'] for r in w))
    tol = tols[tol_pick] if tol_pick < len(tols) else tols[0]
    rows = [r for r in w if r['tol'] == tol]
    t = ('\\begin{tabular}{@{}llrrrrrr@{}}\n\\toprule\nclass & solver & problems & solved & '
         'fastest & tied & $\\rho(2)$ & $\\rho(10)$ \\\\\n\\midrule\n')
    same = []
    for c in classes_of(rows):
        cr = sorted((r for r in rows if r['class'] == c),
                    key=lambda r: (-int(num(r['fastest'])), -int(num(r['solved']))))
        first = True
        for r in cr:
            sname = tt(r['solver'])
            if r.get('same_as'):
                sname += '$^{*}$'
                same.append((c, r['solver'], r['same_as']))
            t += '%s & %s & %s & %s & %s & %s & %.2f & %.2f \\\\\n' % (
                tex(c) if first else '', sname, r['problems'], r['solved'], r['fastest'], r['tied'],
                num(r['rho_2']), num(r['rho_10']))
            first = False
        t += '\\midrule\n' if c != classes_of(rows)[-1] else ''
    t += '\\bottomrule\n\\end{tabular}\n'
    return t, tol, rows, same


wt, tolA, wrows, same = winners_table('profile_winners.csv', 0)
write('winners.tex', wt)
wtB, tolB, wrowsB, _ = winners_table('profile_winners.csv', 1)
write('winnersB.tex', wtB)
nums += macro('ProfTolA', '$' + tolfmt(tolA) + '$')
nums += macro('ProfTolB', '$' + tolfmt(tolB) + '$')
_, wraw = read('profile_winners.csv')
same_txt = []
for c, s, a in same:
    who, _, cnt = a.partition(' on ')
    same_txt.append('%s ran %s\'s own loop on %s problems of class %s' % (
        tt(s), tt(who.strip()), cnt.strip() or 'all', tex(c)))
nums += macro('SameAs', '; '.join(same_txt) if same_txt else 'no solver ran another solver\'s loop')
# per class: the winner (most fastest, ties excluded) and the most robust
# per class and tolerance: the fastest, the ties, who solves the most (the
# library's exp_profile_leaders, profile_leaders.csv)
_, leaders = read('profile_leaders.csv')


def lead(c, tol):
    return next((r for r in leaders if r['class'] == c and r['tol'] == tol), None)


best_txt = []
for c in classes_of(wrows):
    L = lead(c, tolA)
    if not L or not L['fastest']:
        continue
    best_txt.append('on the %s problems (%s), %s is fastest alone on %s and tied on %s; %s solves '
                    'the most (%s)' % (CLASS_NAME.get(c) or tex(c), L['problems'], tt(L['fastest']),
                                       L['fastest_alone'], L['fastest_tied'],
                                       tt(L['most_solved'].split()[0]), L['solved_most']))
nums += macro('WinnersText', '; '.join(best_txt))
nums += macro('NTiedA', sum(int(num(r['ties'])) for r in leaders if r['tol'] == tolA))

# ---- failures and coverage -----------------------------------------------------------------
_, fl = read('profile_failures.csv')
statuses = ['converged', 'max_iter', 'stagnated', 'ray_termination', 'singular_pivot', 'breakdown',
            'no_solution', 'not_finite', 'time_limit', 'unconverged', 'failed', 'error', 'other',
            'refused']
short = {'converged': 'conv.', 'max_iter': 'max it.', 'stagnated': 'stagn.', 'ray_termination': 'ray',
         'singular_pivot': 'sing.', 'breakdown': 'brkdn.', 'no_solution': 'no sol.',
         'not_finite': 'NaN', 'time_limit': 'time', 'unconverged': 'unconv.', 'failed': 'failed',
         'error': 'error', 'other': 'other', 'refused': 'refused'}
flA = [r for r in fl if r['tol'] == tolA]
used = [s for s in statuses if s in (flA[0] if flA else {}) and any(int(num(r[s]) or 0) for r in flA)]
t = '\\begin{tabular}{@{}ll' + 'r' * (len(used) + 1) + '@{}}\n\\toprule\nclass & solver & problems & ' + \
    ' & '.join(short[s] for s in used) + ' \\\\\n\\midrule\n'
cls = classes_of(flA)
for c in cls:
    first = True
    for r in (r for r in flA if r['class'] == c):
        if int(num(r['refused'])) == int(num(r['problems'])):
            continue  # refuses the whole class: the coverage table says so
        t += '%s & %s & %s & %s \\\\\n' % (tex(c) if first else '', tt(r['solver']), r['problems'],
                                         ' & '.join(('%d' % int(num(r[s]))) if int(num(r[s])) else '.'
                                                    for s in used))
        first = False
    if c != cls[-1]:
        t += '\\midrule\n'
t += '\\bottomrule\n\\end{tabular}\n'
write('failures.tex', t)
nums += macro('FailStatuses', ', '.join(short[s] + ' = ' + s.replace('_', ' ') for s in used))

def fsum(solver, status, klass=None, rows=flA):
    return sum(int(num(r[status])) for r in rows
               if r['solver'] == solver and (klass is None or r['class'] == klass) and status in r)

nums += macro('LemkeSingular', fsum('lemke', 'singular_pivot'))
nums += macro('LemkeRay', fsum('lemke', 'ray_termination'))
nums += macro('LemkeProblems', sum(int(num(r['problems'])) - int(num(r['refused'])) for r in flA if r['solver'] == 'lemke'))
nums += macro('LemkeConverged', fsum('lemke', 'converged'))
tl = sorted(((fsum(s, 'time_limit'), s) for s in lcp_solvers), reverse=True)
nums += macro('TimeLimitWorst', '%s (%d problems)' % (tt(tl[0][1]), tl[0][0]) if tl and tl[0][0] else 'none')

_, cov = read('profile_coverage.csv')
t = ('\\begin{tabular}{@{}ll>{\\raggedright\\arraybackslash}p{0.56\\textwidth}@{}}\n\\toprule\n'
     'class & solver & refused: reason (problems) \\\\\n\\midrule\n')
ccls = classes_of(cov)
for c in ccls:
    first = True
    for r in (r for r in cov if r['class'] == c and int(num(r['refused'])) > 0):
        if is_peer(r['solver']) and int(num(r['accepted'])) == 0:
            continue  # a peer registered for other classes only
        t += '%s & %s & %s of %s: %s \\\\\n' % (tex(c) if first else '', tt(r['solver']), r['refused'],
                                              r['problems'], tex(r['reasons']))
        first = False
    if c != ccls[-1]:
        t += '\\midrule\n'
t += '\\bottomrule\n\\end{tabular}\n'
write('coverage.tex', t)

# ---- per-class paragraphs: who takes part, who is fastest, who is robust, who fails --------
def names(rs):
    return ', '.join(tt(r['solver']) for r in rs)


def upfirst(s):
    return s[:1].upper() + s[1:]


def class_paragraph(c):
    ra = [r for r in wrows if r['class'] == c]
    nprob = int(num(ra[0]['problems'])) if ra else 0
    acc = [r for r in cov if r['class'] == c and int(num(r['accepted'])) > 0]
    own = [r for r in acc if not is_peer(r['solver'])]
    some = [r for r in own if int(num(r['refused'])) > 0]
    t = '\\paragraph{%s.} %d problems; %d of lcplab\'s solvers take part' % (
        upfirst(CLASS_NAME.get(c) or tex(c)), nprob, len(own))
    t += (' (%s accept only part of the class: Table~\\ref{tab:cov})' % names(some)) if some else ''
    npeer = len(acc) - len(own)
    t += (', and %d peers' % npeer) if npeer else ''
    t += '. '
    LA, LB = lead(c, tolA), lead(c, tolB)
    if LA and LA['fastest']:
        t += 'At %s, %s is fastest alone on %s problems and tied on %s' % (
            '$' + tolfmt(tolA) + '$', tt(LA['fastest']), LA['fastest_alone'], LA['fastest_tied'])
        ties = int(num(LA['ties']))
        t += ('; %d first places in the class are ties (one count per solver in a tie). ' % ties
              if ties else '. ')
    for tol, L in ((tolA, LA), (tolB, LB)):
        if not L:
            continue
        most = L['most_solved'].split()
        t += 'At %s the most robust %s %s (%s of %d). ' % (
            '$' + tolfmt(tol) + '$', 'are' if len(most) > 1 else 'is', ', '.join(tt(x) for x in most),
            L['solved_most'], nprob)
    weak = LB['under_half'].split() if LB else []
    if weak:
        t += 'Fewer than half are solved at %s by %s (Table~\\ref{tab:fail} gives the statuses).' % (
            '$' + tolfmt(tolB) + '$', ', '.join(tt(x) for x in weak))
    return t.strip() + '\n\n'


write('classes.tex', ''.join(class_paragraph(c) for c in classes_of(wrows)))

# ---- timings: runs behind the medians ------------------------------------------------------
_, tm = read('profile_timings.csv')
tmA = [r for r in tm if r['tol'] == tolA and int(num(r['solved'])) > 0]
t = ('\\begin{tabular}{@{}llrrrrr@{}}\n\\toprule\nclass & solver & solved & median (s) & '
     'spread & runs min & runs med. \\\\\n\\midrule\n')
tcl = classes_of(tmA)
for c in tcl:
    first = True
    for r in (r for r in tmA if r['class'] == c):
        t += '%s & %s & %s & $%s$ & %.2f & %s & %s \\\\\n' % (
            tex(c) if first else '', tt(r['solver']), r['solved'], sci(num(r['time_median_s']), 2),
            num(r['spread_median']), r['runs_min'], '%g' % num(r['runs_median']))
        first = False
    if c != tcl[-1]:
        t += '\\midrule\n'
t += '\\bottomrule\n\\end{tabular}\n'
write('timings.tex', t)

# ---- large problems ------------------------------------------------------------------------
if have('large_winners.csv'):
    lt, ltol, lrows, _ = winners_table('large_winners.csv', 0)
    write('large.tex', lt)
    _, lf = read('large_failures.csv')
    lt_txt = []
    for c in classes_of(lf):
        for r in (r for r in lf if r['class'] == c):
            k = int(num(r.get('time_limit', 0)))
            if k:
                lt_txt.append('%s on %d of the %s %s problems' % (tt(r['solver']), k, r['problems'], tex(c)))
    nums += macro('LargeTimeLimits', '; '.join(lt_txt) if lt_txt else 'no solver')
    _, lg = read('large.csv')
    nums += macro('LargeNmax', max(int(num(r['n'])) for r in lg))
    nums += macro('LargeNProblems', len(collection(lg)))
    nums += macro('LargeTimeLimit', tex(read('large.csv')[0].get('time_limit_s', '--').split()[0]))
else:
    write('large.tex', '')
    for m in ('LargeTimeLimits', 'LargeNmax', 'LargeNProblems', 'LargeTimeLimit'):
        nums += macro(m, '--')

# ---- scaling -------------------------------------------------------------------------------
_, sl = read('scaling_slopes.csv')
t = ('\\begin{tabular}{@{}llrrcr@{}}\n\\toprule\nfamily & solver & points & slope $s$ & 95\\,\\% '
     'interval & $R^2$ \\\\\n\\midrule\n')
fams = list(dict.fromkeys(r['family'] for r in sl))
for f in fams:
    first = True
    for r in (r for r in sl if r['family'] == f):
        s = num(r['slope'])
        if math.isnan(s):
            t += '%s & %s & %s & -- & -- & -- \\\\\n' % (tex(f) if first else '', tt(r['solver']), r['points'] or '0')
        else:
            t += '%s & %s & %s & %.2f & [%.2f, %.2f] & %.3f \\\\\n' % (
                tex(f) if first else '', tt(r['solver']), r['points'], s, num(r['slope_lo']),
                num(r['slope_hi']), num(r['r2']))
        first = False
    if f != fams[-1]:
        t += '\\midrule\n'
t += '\\bottomrule\n\\end{tabular}\n'
write('slopes.tex', t)
fit = [r for r in sl if not math.isnan(num(r['slope']))]
if fit:
    lo = min(fit, key=lambda r: num(r['slope']))
    hi = max(fit, key=lambda r: num(r['slope']))
    nums += macro('SlopeMin', '%.2f' % num(lo['slope']))
    nums += macro('SlopeMinWho', '%s on %s' % (tt(lo['solver']), tex(lo['family'])))
    nums += macro('SlopeMax', '%.2f' % num(hi['slope']))
    nums += macro('SlopeMaxWho', '%s on %s' % (tt(hi['solver']), tex(hi['family'])))
    wide = max(fit, key=lambda r: num(r['slope_hi']) - num(r['slope_lo']))
    nums += macro('SlopeWidest', '[%.2f, %.2f] (%s on %s)' % (num(wide['slope_lo']), num(wide['slope_hi']),
                                                              tt(wide['solver']), tex(wide['family'])))
else:
    for m in ('SlopeMin', 'SlopeMinWho', 'SlopeMax', 'SlopeMaxWho', 'SlopeWidest'):
        nums += macro(m, '--')
_, sc = read('scaling.csv')
ns = sorted({int(num(r['n'])) for r in sc if r['n']})
nums += macro('ScalingNmin', ns[0])
nums += macro('ScalingNmax', ns[-1])
nums += macro('ScalingFamilies', ', '.join(tex(f) for f in fams))

# ---- convergence ---------------------------------------------------------------------------
cpre, cv = read('convergence.csv')
probs = list(dict.fromkeys(r['problem'] for r in cv))
nums += macro('ConvProblems', ', '.join(tt(p) for p in probs))
src = {r.get('time_source', '') for r in cv if r['final'] == '0'}
nums += macro('ConvTimeSource', 'measured timestamps of each iteration' if src == {'measured'} else
              ('the estimate $T k/K$ (time of the whole solve $T$ spread evenly over its $K$ iterations; '
               'this results folder predates measured timestamps)' if 'interpolated' in src else
               'the solve times'))
fin = {(r['problem'], r['solver']): r for r in cv if r['final'] == '1'}
cv_solvers = []
for r in cv:
    if r['solver'] not in cv_solvers and any(fin.get((p, r['solver']), {}).get('status') not in
                                             (None, 'unsupported', 'refused') for p in probs):
        cv_solvers.append(r['solver'])


def cell(p, s):
    r = fin.get((p, s))
    if r is None or r['status'] in ('unsupported', 'refused'):
        return '--'
    if r['status'] != 'converged':
        return tex(r['status'])
    return '%s / %.3g' % (r['iteration'], 1e3 * num(r['time_s']))


t = '\\begin{tabular}{@{}l' + 'r' * len(probs) + '@{}}\n\\toprule\nsolver & ' + \
    ' & '.join('\\rotatebox{60}{%s}' % tt(p) for p in probs) + ' \\\\\n\\midrule\n'
for s in cv_solvers:
    t += '%s & %s \\\\\n' % (tt(s), ' & '.join(cell(p, s) for p in probs))
t += '\\bottomrule\n\\end{tabular}\n'
write('conv.tex', t)
nums += macro('ConvTol', '$' + tolfmt(cpre.get('tol', '1e-10').split()[0]) + '$')

# ---- scenes: steps, failures, what the world did -------------------------------------------
def steps_rows(name):
    if not have(name):
        return []
    return read(name)[1]


def end_cell(end):
    """The steps table's end: `ran`, or a status and the step it ended at."""
    if end == 'ran':
        return end
    status, at, step = end.partition(' at ')
    return tex(status) + (at + step if at else '')


scene_rows = [('drift', r) for r in steps_rows('drift_steps.csv')] + \
             [('accuracy', r) for r in steps_rows('accuracy_steps.csv')]
t = ('\\begin{tabular}{@{}llllrlrrrrr@{}}\n\\toprule\nexperiment & scene & friction & solver & steps & '
     'end & conv. & max it. & other & applied & not appl. \\\\\n\\midrule\n')
nfail_runs = 0
for ex, r in scene_rows:
    if r['end'].startswith('refused'):
        continue
    other = sum(int(num(r[s])) for s in ('stagnated', 'ray_termination', 'singular_pivot', 'breakdown',
                                          'no_solution', 'not_finite', 'unconverged', 'failed', 'error',
                                          'other') if s in r)
    if r['end'] == 'ran' and other == 0:
        continue  # ran to the end; steps at the iteration limit are the stepper's norm
    if r['end'] != 'ran':
        nfail_runs += 1
    t += '%s & %s & %s & %s & %s & %s & %s & %s & %d & %s & %s \\\\\n' % (
        ex, tex(r['scene']), tex(r['friction']), tt(r['solver']), r['steps'],
        end_cell(r['end']), r['converged'], r['max_iter'], other,
        r['applied_solution'], r['applied_other'])
t += '\\bottomrule\n\\end{tabular}\n'
write('scenes.tex', t)
nums += macro('NSceneStopped', nfail_runs)

# the notes of the failed steps (what the world refused to apply)
notes = []
for name in ('drift.csv', 'accuracy.csv'):
    if not have(name):
        continue
    for r in read(name)[1]:
        if r.get('status') == 'refused' or not r.get('note'):
            continue
        if 'not in this friction group' in r['note']:
            continue
        notes.append((name[:-4], r))


def note_of(scene, solver, friction):
    for ex, r in notes:
        if r['scene'] == scene and r['solver'] == solver and r['friction'] == friction:
            return r['note']
    return ''


def step_summary(scene, solver, friction, ex='drift'):
    for e, r in scene_rows:
        if e == ex and r['scene'] == scene and r['solver'] == solver and r['friction'] == friction:
            return r
    return None


# lemke on the pyramid and the stack: the runs a failed step stopped, and
# those the run's time limit stopped
lem, lem_tl = [], []
for ex, r in scene_rows:
    if r['solver'] != 'lemke' or ex != 'drift':
        continue
    if r['end'].startswith('failed'):
        n = note_of(r['scene'], 'lemke', r['friction'])
        lem.append('on the %s with %s friction it ran %s steps (%s converged, %s at the iteration limit, '
                   '%s singular pivots) and stopped: ``%s\'\'' % (
                       tex(r['scene']), tex(r['friction']), r['steps'], r['converged'], r['max_iter'],
                       r.get('singular_pivot', '0'), tex(n)))
    elif r['end'].startswith('time'):
        lem_tl.append('%s/%s after %s steps' % (tex(r['scene']), tex(r['friction']), r['steps']))
if lem_tl:
    lem.append('the run\'s time limit stopped it on %s' % ', '.join(lem_tl))
nums += macro('LemkeScenes', '; '.join(lem) if lem else 'no scene run of lemke is in this results folder')

# apgd on the pendulum: energy at the end
def csv_rows(name):
    return read(name)[1] if have(name) else []


def last_rows(rows):
    last = {}
    for r in rows:
        if not r['step']:
            continue
        k = (r['scene'], r['solver'], r['integrator'], r['friction'])
        if k not in last or int(r['step']) >= int(last[k]['step']):
            last[k] = r
    return last


drift_rows = csv_rows('drift.csv')
dl = last_rows(drift_rows)
# the contact-free pendulum: which solvers converged on every step, and for
# the others what the world applied (drift.csv's per-step status and applied)
def scene_story(rows, scene):
    runs = {}
    for r in rows:
        if r['scene'] != scene or not r['step'] or r['friction'] != 'none':
            continue
        d = runs.setdefault(r['solver'], {'steps': 0, 'conv': 0, 'applied': {}, 'drift': float('nan')})
        d['steps'] += 1
        d['conv'] += r['status'] == 'converged'
        a = r.get('applied', '') or 'solution'
        d['applied'][a] = d['applied'].get(a, 0) + 1
        d['drift'] = num(r['rel_drift'])
    if not runs:
        return None
    exact = sorted(s for s, d in runs.items() if d['conv'] == d['steps'])
    what = {'solution': 'its own iterate', 'warm': 'the warm start (the previous step\'s impulses)',
            'zero': 'no impulse'}
    t = ''
    if exact:
        dr = [abs(runs[s]['drift']) for s in exact]
        t += ('Every step converged for %s; their relative energy change at the end is $%s$%s, the '
              'integrator\'s own. ' % (', '.join(tt(s) for s in exact), sci(min(dr), 2),
                                       '' if max(dr) <= 1.01 * min(dr) else ' to $%s$' % sci(max(dr), 2)))
    rest = sorted((s for s in runs if s not in exact), key=lambda s: abs(runs[s]['drift']))
    groups = {}  # solvers with the same outcome share one clause
    for s in rest:
        d = runs[s]
        ap = sorted(d['applied'].items(), key=lambda kv: -kv[1])
        aps = ', '.join('%s on %d' % (what.get(a) or 'the answer of the fallback (%s)' % tt(a.replace('fallback:', '')), n)
                        for a, n in ap)
        key = 'converged on %d of %d steps, the world applied %s; energy change $%s$' % (
            d['conv'], d['steps'], aps, sci(d['drift'], 2))
        groups.setdefault(key, []).append(s)
    parts = ['%s %s' % (', '.join(tt(s) for s in ss), k) for k, ss in groups.items()]
    if parts:
        t += 'The others ended steps on the iteration limit: ' + '; '.join(parts) + '.'
    return t


story = scene_story(drift_rows, 'pendulum')
nums += macro('PendStory', story if story else 'The results folder has no run of the pendulum.')
chain = [(abs(num(r['rel_drift'])), k[1]) for k, r in dl.items() if k[0] == 'chain'
         and not math.isnan(num(r['rel_drift']))]
# a sentence only when the drift runs have a chain (the main job's do not)
nums += macro('ChainClause', 'On the chain the relative energy change at the end ranges from $%s$ to $%s$.' %
              (sci(min(chain)[0]), sci(max(chain)[0])) if chain else '')

# accuracy: converged share of the applied steps
_, ac = read('accuracy.csv')
ac = [r for r in ac if r['step']]
conv = sum(1 for r in ac if r['status'] == 'converged')
nums += macro('AccSteps', len(ac))
nums += macro('AccConvergedPct', '%.0f\\,\\%%' % (100.0 * conv / len(ac)) if ac else '--')
nums += macro('AccScenes', ', '.join(tt(s) for s in dict.fromkeys(r['scene'] for r in ac)))
pen = {}
for r in ac:
    k = (r['scene'], r['friction'], r['solver'])
    pen[k] = max(pen.get(k, 0.0), num(r['max_penetration']))
if pen:
    k, v = max(pen.items(), key=lambda kv: kv[1])
    nums += macro('AccPenWorst', '%.2g\\,mm (%s, %s on the %s with %s friction)' %
                  (1e3 * v, tt(k[2]), 'the deepest of any run', tex(k[0]), tex(k[1])))
else:
    nums += macro('AccPenWorst', '--')

# integrators: ball and racket
if have('integrators.csv'):
    il = last_rows(csv_rows('integrators.csv'))
    txt = []
    for sc_name in dict.fromkeys(k[0] for k in il):
        parts = ['%s $%s$' % (tex(k[2]), sci(abs(num(r['rel_drift']))))
                 for k, r in il.items() if k[0] == sc_name]
        txt.append('%s: %s' % (tt(sc_name), ', '.join(parts)))
    nums += macro('IntegText', '; '.join(txt))
    nums += macro('IntegSteps', max(int(r['step']) for r in read('integrators.csv')[1] if r['step']))
else:
    nums += macro('IntegText', 'not in this results folder')
    nums += macro('IntegSteps', '--')

# ---- peers ---------------------------------------------------------------------------------
if peers:
    ptxt = []
    for c in classes_of(wrows):
        L = lead(c, tolA)
        if not L or not L['best_external'] or not L['best_builtin']:
            continue
        ptxt.append('on the %s problems the peer that solves the most is %s (%s of %s, $\\rho(10)=%.2f$) '
                    'against %s of \\lcp\\ (%s, $\\rho(10)=%.2f$)' % (
                        tex(c), tt(L['best_external']), L['best_external_solved'], L['problems'],
                        num(L['best_external_rho_10']), tt(L['best_builtin']),
                        L['best_builtin_solved'], num(L['best_builtin_rho_10'])))
    nums += macro('PeerText', '; '.join(ptxt))
else:
    nums += macro('PeerText', 'the peers were not built for this run (\\texttt{experiments/build\\_peers.sh})')

write('numbers.tex', nums)

# ---- maximal against reduced coordinates (make articulated) --------------------------------
art = ''
if have('articulated.csv'):
    _, ar = read('articulated.csv')
    art = ('\\begin{tabular}{@{}rlrrr@{}}\n\\toprule\n$h$ (s) & formulation & joint drift (m) & '
           'energy drift & time/step (s) \\\\\n\\midrule\n')
    for r in ar:
        art += '%s & %s & $%s$ & $%s$ & $%s$ \\\\\n' % (
            r['h'], r['formulation'].replace('_', ' '), sci(num(r['joint_drift_max'])),
            sci(num(r['energy_drift'])), sci(num(r['time_per_step_s'])))
    art += '\\bottomrule\n\\end{tabular}\n'
write('articulated.tex', art)
with open(os.path.join(gen, 'numbers.tex'), 'a') as fh:
    fh.write(macro('HaveArticulated', '1' if art else '0'))
