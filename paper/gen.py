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
# NAME_tex.csv (exp_text_write; exp_tex_escape): it escapes only the
# underscores of plain names (families, folders, scene parameters).
# Sections that a results folder lacks (large, integrators, peers) are
# reported as absent, in one sentence, through the macros.
import csv
import math
import os
import re
import subprocess
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
    """The LaTeX form of a text of the results: as the library wrote it
    (NAME_tex.csv), else as the library writes it (`lcplab tex`, the one
    escaper, exp_tex_escape); a number needs none."""
    s = str(s)
    if not s or s in TEX:
        return TEX.get(s, s)
    try:
        float(s)
        return s
    except ValueError:
        pass
    lcplab = os.environ.get('LCPLAB', 'lcplab')
    try:
        r = subprocess.run([lcplab, 'tex', '--', s], capture_output=True, text=True)
    except OSError as e:
        sys.exit('gen.py: cannot run %s tex (LCPLAB names the program): %s' % (lcplab, e))
    if r.returncode != 0:
        sys.exit('gen.py: %s tex failed: %s' % (lcplab, r.stderr.strip()))
    TEX[s] = r.stdout.rstrip('\n')
    return TEX[s]


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
            if line.startswith('# config> '):
                k, _, v = line[10:].strip().partition(' ')
                pre.setdefault('config ' + k, v.strip())
            elif line.startswith('#'):
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
    """v in LaTeX math; None for a missing value (its sentence or row is left out)."""
    if v is None or math.isnan(v):
        return None
    if v == 0:
        return '0'
    m, e = ('%.*e' % (d, v)).split('e')
    e = int(e)
    if -2 <= e <= 3:
        # d + 1 significant digits, positional ('%g' would write 120 as 1.2e+02)
        return '%.*f' % (max(0, d - e), float('%.*e' % (d, v)))
    return '%s\\times10^{%d}' % (m, e)


def cellsci(v):
    """A table cell in math, empty for a missing value."""
    m = sci(num(v))
    return '$%s$' % m if m is not None else ''


def tolfmt(t):
    m, e = ('%e' % float(t)).split('e')
    m = m.rstrip('0').rstrip('.')
    return ('10^{%d}' % int(e)) if m == '1' else ('%s\\times10^{%d}' % (m, int(e)))


CLASS_NAME = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
              'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}
CLASS_ORDER = ['lcp', 'box', 'mlcp', 'fc3d', 'cone-assoc']
def externals_declared():
    """The external solvers the campaign declared (its plan.exp's `external
    NAME ...` lines): the peers."""
    path = os.path.join(res, 'campaign', 'plan.exp')
    if not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {l.split()[1] for l in fh if l.startswith('external ') and len(l.split()) > 1}


EXTERNALS = externals_declared()


def is_peer(s):
    return s in EXTERNALS


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
if math.isnan(tie_f):
    sys.exit('gen.py: %s/profile.csv has no tie_tolerance in its preamble' % res)
nums += macro('TieTol', '%g' % tie_f)
nums += macro('TieFactor', '%g' % (1 + tie_f))

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
def campaign_tsv(name):
    """The rows of the plan's campaign/NAME (a '# ' header line of column
    names, then tab-separated rows), as the campaign wrote them; an empty
    list when the results folder has no campaign or an older one without it.
    problems.tsv: section, label, family, class, n, nnz, contacts, cond_est,
    mu_min, mu_max, origin, path; solvers.tsv: solver, sections, summary,
    params, cite (the registry's)."""
    path = os.path.join(res, 'campaign', name)
    if not os.path.exists(path):
        return []
    with open(path, newline='') as fh:
        lines = [l for l in fh if l.strip()]
    head = lines[0].lstrip('#').split()
    return [dict(zip(head, l.rstrip('\n').split('\t'))) for l in lines[1:]]


PLAN = campaign_tsv('problems.tsv')
PLAN_SOLVERS = campaign_tsv('solvers.tsv')


def plan_of(section, label):
    return next((p for p in PLAN if p['section'] == section and p['label'] == label), {})


def contacts_of(section, r):
    """The problem's contacts: the CSV's column, else the plan's."""
    v = num(r.get('contacts'))
    if math.isnan(v):
        v = num(plan_of(section, r['problem']).get('contacts'))
    return None if math.isnan(v) else int(v)


t = ('\\begin{tabular}{@{}llrrrrr@{}}\n\\toprule\nset & class & problems & $n$ min & $n$ max & '
     'nnz max & contacts max \\\\\n\\midrule\n')
nmax = 0
for name, rows in sets:
    pr = collection(rows)
    for c in classes_of(rows):
        ps = [r for r in pr.values() if r['class'] == c]
        ns = [int(num(r['n'])) for r in ps]
        nz = [int(num(r.get('nnz'))) for r in ps if not math.isnan(num(r.get('nnz')))]
        ct = [k for k in (contacts_of(name, r) for r in ps) if k is not None]
        t += '%s & %s & %d & %d & %d & %s & %s \\\\\n' % (
            name, CLASS_NAME.get(c) or tex(c), len(ps), min(ns), max(ns),
            max(nz) if nz else '', max(ct) if ct else '')
        nmax = max(nmax, max(ns))
t += '\\bottomrule\n\\end{tabular}\n'
write('collection.tex', t)
nclasses = len({r['class'] for _, rows in sets for r in rows})
# a problem in two sets (spd_200_s1 in the profile and the scaling) is one problem
DISTINCT = {p for _, rows in sets for p in collection(rows)}
nums += macro('NProblems', len(DISTINCT))
nums += macro('NClasses', nclasses)
nums += macro('NMax', nmax)
nums += macro('NProfileProblems', len(collection(prof)))
nums += macro('NProfileRows', len(prof))
lcp_solvers = [s for s in dict.fromkeys(r['solver'] for r in prof) if not is_peer(s)]
peers = [s for s in dict.fromkeys(r['solver'] for r in prof) if is_peer(s)]
nums += macro('NSolvers', len(lcp_solvers))
nums += macro('NPeers', len(peers))
nums += macro('HavePeers', '1' if peers else '0')
nums += macro('ProfilePeersNote', ' The peers are external programs judged by the same residual.' if peers else '')


# ---- the protocol as run: the problems and the timing rule ------------------------------
WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']


def count_word(k):
    return WORDS[k] if 0 <= k < len(WORDS) else str(k)


def plural(k, one, many=None):
    return '%s %s' % (count_word(k), one if k == 1 else (many or one + 's'))


def peers_ran():
    """The peers that ran in any section (externals with rows), in order."""
    out = []
    for name in ('profile', 'peers_lcp', 'peers_fc3d', 'scenes'):
        if have(name + '.csv'):
            out += [s for s in dict.fromkeys(r['solver'] for r in read(name + '.csv')[1])
                    if is_peer(s) and s not in out]
    return out


def peer_problems():
    """The distinct problems and scenes of the peers' own sections."""
    probs = {r['problem'] for n in ('peers_lcp', 'peers_fc3d') if have(n + '.csv')
             for r in read(n + '.csv')[1]}
    scenes = {r['scene'] for r in (read('scenes.csv')[1] if have('scenes.csv') else [])}
    return probs, scenes


PEERS_RAN = peers_ran()
_pp, _ps = peer_problems()
write('abstract_peers.tex', (
    'In the same campaign %s of other libraries, run as external programs, meet \\lcp\'s solvers side '
    'by side on %s judged by the same residual%s (Section~\\ref{sec:peers}).' % (
        plural(len(PEERS_RAN), 'peer'), plural(len(_pp), 'problem'),
        (' and in %s' % plural(len(_ps), 'scene')) if _ps else '')) if PEERS_RAN else '')
write('peers_run.tex', ('This campaign ran %s: %s.' % (plural(len(PEERS_RAN), 'peer'),
                                                       ', '.join(tt(s) for s in PEERS_RAN)))
      if PEERS_RAN else '')


def series(items):
    """a, b and c"""
    items = list(items)
    return items[0] if len(items) == 1 else ', '.join(items[:-1]) + ' and ' + items[-1]


def ranges(vals):
    """Sizes in math: 50, 200"""
    return ',\\,'.join('%d' % v for v in sorted(vals))


def seeds_of(label):
    tail = label.rsplit('_s', 1)
    return tail[1] if len(tail) == 2 and tail[1].isdigit() else None


def generated_clause(ps):
    fams = {}
    for p in ps:
        fams.setdefault(p['family'], []).append(p)
    parts = []
    for f, fp in fams.items():
        ns = {int(num(p['n'])) for p in fp}
        sd = {seeds_of(p['label']) for p in fp} - {None}
        parts.append('%s ($n=%s$%s)' % (tt(f), ranges(ns),
                                         ', %s' % plural(len(sd), 'seed') if len(sd) > 1 else ''))
    return '%s generated (%s)' % (count_word(len(ps)), series(parts))


def files_clause(ps):
    """k of the m files of each shared folder the problems were read from."""
    dirs = {}
    for p in ps:
        dirs.setdefault(os.path.dirname(p['path']), []).append(p)
    parts = []
    for d, dp in dirs.items():
        ext = os.path.splitext(dp[0]['path'])[1]
        there = [f for f in os.listdir(d) if f.endswith(ext)] if os.path.isdir(d) else []
        where = tt('/'.join(d.split('/')[-2:]))
        parts.append(('%d of the %d %s files of %s' % (len(dp), len(there), tex(ext.lstrip('.')), where))
                     if there else '%d from %s' % (len(dp), where))
    return '%d files read in place (%s)' % (len(ps), series(parts))


def scenes_clause(ps):
    return '%d exported from simulated scenes (%s)' % (len(ps), ', '.join(tt(p['label']) for p in ps))


def problems_paragraph():
    ps = [p for p in PLAN if p['section'] == 'profile']
    if not ps:
        return ''
    parts = []
    for origin, clause in (('generated', generated_clause), ('file', files_clause),
                           ('scene', scenes_clause)):
        sel = [p for p in ps if p.get('origin') == origin]
        if sel:
            parts.append(clause(sel))
    ct = [int(num(p['contacts'])) for p in ps if not math.isnan(num(p['contacts']))]
    t = ('\\paragraph{Problems.} Table~\\ref{tab:coll} lists the collection and Table~\\ref{tab:plist} '
         'every problem of the profiles. The profiles have %d problems: %s. Their sizes run from '
         '$n=%d$ to $n=%d$%s.' % (len(ps), '; '.join(parts), min(int(num(p['n'])) for p in ps),
                                   max(int(num(p['n'])) for p in ps),
                                   ', with at most %d contacts' % max(ct) if ct and max(ct) else ''))
    return t + '\n\n'


TIMED = ('profile', 'scaling', 'large', 'peers_lcp', 'peers_fc3d')


def timing_rows():
    """Each timed section's protocol as run (NAME_timing.csv, one row)."""
    out = []
    for name in TIMED:
        if have(name + '_timing.csv'):
            rows = read(name + '_timing.csv')[1]
            if rows:
                out.append((name, rows[0]))
    return out


def placement_words(r):
    """Where the timed tasks ran, in words, from a NAME_timing.csv row."""
    w = int(num(r['workers']))
    cpus = r['cpus'].split()
    if r['placement'] == 'pinned' and w == 1:
        return 'one worker pinned to CPU %s, one timed task at a time' % series(cpus)
    if r['placement'] == 'pinned':
        return ('%s, each pinned to its own CPU (CPUs %s), one timed task per CPU at a time' % (
            plural(w, 'worker'), series(cpus)))
    if r['placement'] == 'serial':
        return 'one worker, one timed task at a time'
    return '%s (placement %s)' % (plural(w, 'worker'), tex(r['placement']))


def protocol_sentences():
    """The placement, the repeats rule, the noise and the tie of each timed
    section, grouped where sections share them."""
    rows = timing_rows()
    if not rows:
        return ''
    place, rules, noise = {}, {}, []
    for name, r in rows:
        place.setdefault(placement_words(r), []).append(name)
        rules.setdefault('repeated until at least %s runs totalling at least %g\\,s, or until the runs '
                         'total %g\\,s' % (r['min_runs'], num(r['min_time_s']), num(r['max_time_s'])),
                         []).append(name)
        noise.append((name, r))
    t = 'The timed tasks ran on %s. ' % series(['%s (%s)' % (w, ', '.join(tex(n) for n in ns))
                                                for w, ns in place.items()])
    t += ('Each (solver, problem) pair is solved once to warm up and then %s (one run when the warm-up '
          'alone takes that long); the CSV holds the median, the quartiles and the minimum of the runs. '
          % '; '.join('%s (%s)' % (k, ', '.join(tex(n) for n in ns)) for k, ns in rules.items()))
    measured = [(n, r) for n, r in noise if not math.isnan(num(r['noise']))]
    if measured:
        t += ('The between-run noise measured in the same run, the median over the rows with two runs or '
              'more of the interquartile range of the repeats relative to their median, is %s. ' %
              series(['%.2f\\,\\%% in %s (%s rows)' % (100 * num(r['noise']), tex(n), r['noise_rows'])
                      for n, r in measured]))
    unmeasured = [tex(n) for n, r in noise if math.isnan(num(r['noise']))]
    if unmeasured:
        t += 'No row of %s had two runs or more: no noise was measured there. ' % series(unmeasured)
    ties = {}
    for n, r in noise:
        how = {'noise': '%s noise', 'default': 'the default, $%g$, as no noise was measured' % num(r['tie'])}
        ties.setdefault(how.get(r['tie_source'], 'set by the section, $%g$' % num(r['tie'])), []).append(tex(n))
    t += 'The tie tolerance (Section~\\ref{sec:ties}) of %s. ' % series([
        '%s is %s' % (series(ns), (w % ('its' if len(ns) == 1 else 'each one\'s')) if '%s' in w else w)
        for w, ns in ties.items()])
    return t


def timing_paragraph():
    limits = {}
    for name in TIMED:
        if not have(name + '.csv'):
            continue
        lim = read(name + '.csv')[0].get('time_limit_s', '').split(' ')[0]
        if lim:
            limits.setdefault(lim, []).append(tex(name))
    t = protocol_sentences()
    if not t:
        return ''
    t = '\\paragraph{Timing.} ' + t
    runs = []
    for name, rows in sets:
        runs += [int(num(r['repeats'])) for r in rows if r.get('status') == 'converged' and
                 not math.isnan(num(r.get('repeats'))) and r.get('time_source', 'library') in ('library', '')]
    if runs:
        runs.sort()
        t += ('The %d timed rows of converged runs have %d to %d runs, %d at the median. ' %
              (len(runs), runs[0], runs[-1], runs[len(runs) // 2]))
    t += 'Each solve has a time limit of %s. ' % series(
        ['%s\\,s (%s)' % (v, ', '.join(n)) for v, n in limits.items()])
    t += 'The solvers are single-threaded and the BLAS uses one thread. '
    cores = num(pre.get('cores'))
    loads = [float(x) for x in re_floats(pre.get('load', ''))]
    if loads and not math.isnan(cores):
        t += ('The 1-minute load average of the machine was %.1f to %.1f on its %d cores during the '
              'run%s (Table~\\ref{tab:prov}).' % (min(loads), max(loads), int(cores),
                                                  ': the machine was shared with other work, and the '
                                                  'times carry that load' if max(loads) > cores else ''))
    return t + '\n\n'


def re_floats(s):
    return re.findall(r'\d+\.\d+', s)


write('protocol.tex', problems_paragraph() + timing_paragraph())


def mu_text(p):
    """A problem's friction coefficients (problems.tsv's mu_min, mu_max,
    computed by the library from its cones or findex rows): "0.3",
    "0.1--0.8", "none" without friction; empty for a plan made before the
    columns (unknown, not "none")."""
    if 'mu_min' not in p:
        return ''
    lo, hi = num(p.get('mu_min')), num(p.get('mu_max'))
    if math.isnan(lo) or math.isnan(hi):
        return 'none'
    if lo == hi:
        return '%g' % lo
    return '%g--%g' % (lo, hi)


def problem_list():
    """Every problem of the profiles (the plan's problems.tsv): name, origin,
    class, n, contacts, the friction coefficients and the 1-norm condition
    estimate of A."""
    ps = [p for p in PLAN if p['section'] == 'profile']
    if not ps:
        return ''
    t = ('\\begin{tabular}{@{}llllrrlr@{}}\n\\toprule\nproblem & origin & family & class & $n$ & '
         'contacts & $\\mu$ & $\\kappa_1(A)$ \\\\\n\\midrule\n')
    for p in sorted(ps, key=lambda p: (CLASS_ORDER.index(p['class']) if p['class'] in CLASS_ORDER
                                       else 99, int(num(p['n'])))):
        k = num(p['cond_est'])
        cond = ('$%s$' % sci(k)) if not math.isnan(k) and not math.isinf(k) else (
            'singular' if math.isinf(k) else '')
        t += '%s & %s & %s & %s & %s & %s & %s & %s \\\\\n' % (
            tt(p['label']), tex(p['origin']), tex(p['family']), tex(p['class']), p['n'],
            p['contacts'], mu_text(p), cond)
    return t + '\\bottomrule\n\\end{tabular}\n'


def sci_words(s):
    """The numbers of a text in C's exponent notation (a params line's 1e-9)
    typeset: $10^{-9}$, $2.5\\times10^{-3}$."""
    def one(m):
        e = int(m.group(2))
        return '$10^{%d}$' % e if m.group(1) == '1' else '$%s\\times10^{%d}$' % (m.group(1), e)
    return re.sub(r'(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])', one, s)


def solver_params():
    """Every solver the campaign ran, in the order its sections name them,
    with the constants and rules it runs with by default (the plan's
    solvers.tsv: each solver's params line in libsolvers)."""
    if not PLAN_SOLVERS:
        return ''  # an older results folder: no table, and the references say Section 4
    t = ('\\begin{table*}[tbp]\n\\centering\\scriptsize\n\\caption{The solvers and their default '
         'parameters (\\texttt{campaign/solvers.tsv}): the constants and rules each solver runs '
         'with, as its source defines them (the \\texttt{params} line of its descriptor in '
         '\\texttt{libsolvers}, \\texttt{lcplab solvers --json}); with the tolerance and '
         'iteration limit of Table~\\ref{tab:params} they reproduce a run '
         '(Section~\\ref{sec:solvers}).}\n\\label{tab:solverparams}\n'
         '\\setlength{\\tabcolsep}{3pt}\n')
    t += ('\\begin{tabular}{@{}lp{0.86\\textwidth}@{}}\n\\toprule\nsolver & default constants '
         'and rules (\\texttt{options}: \\texttt{slv\\_options}, its default in parentheses) '
         '\\\\\n\\midrule\n')
    for p in PLAN_SOLVERS:
        t += '%s & %s \\\\\n' % (tt(p['solver']), sci_words(tex(p['params'])))
    return t + '\\bottomrule\n\\end{tabular}\n\\end{table*}\n'


def solver_params_ref():
    """Where the solvers' defaults are: the table when solvers.tsv is there."""
    return 'Table~\\ref{tab:solverparams}' if PLAN_SOLVERS else 'Section~\\ref{sec:solvers}'


def run_parameters():
    """Per section: the tolerances, the iteration limit, the repeats rule and
    the time limit as run (the configuration lines of each CSV's preamble)."""
    t = ('\\begin{tabular}{@{}lllllll@{}}\n\\toprule\nexperiment & solvers & tol & max.\\ iter. & '
         'runs & time limit & problems or scenes \\\\\n\\midrule\n')
    n = 0
    for name in ('profile', 'convergence', 'scaling', 'large', 'drift', 'accuracy', 'integrators',
                 'peers_lcp', 'peers_fc3d', 'scenes'):
        if not have(name + '.csv'):
            continue
        p, rows = read(name + '.csv')
        solvers = list(dict.fromkeys(r['solver'] for r in rows if r.get('solver')))
        tol = p.get('config tol', '')
        mi = p.get('config max_iter', '')
        if name in ('drift', 'accuracy', 'integrators', 'scenes'):
            st = p.get('solver settings', '')
            m = re.search(r'world defaults: ([\d.e+-]+), (\d+)', st)
            if m and 'tol default' in st:
                tol = m.group(1)
            if m and 'max_iter default' in st:
                mi = m.group(2)
        rule = ''
        if p.get('config min_runs'):
            rule = '%s runs, %s--%s\\,s' % (p['config min_runs'], p.get('config min_time', ''),
                                            p.get('config max_time', ''))
        lim = p.get('time_limit_s', '')
        what = len({r.get('problem') or r.get('scene') for r in rows})
        t += '%s & %d & %s & %s & %s & %s & %d \\\\\n' % (
            tex(name), len(solvers), ', '.join('$%s$' % tolfmt(x) for x in tol.split()) if tol else '',
            mi, rule, tex(lim), what)
        n += 1
    return t + '\\bottomrule\n\\end{tabular}\n' if n else ''


def config_lines(name, key):
    """The configuration lines `key ...` of a section, as run (its CSV's preamble)."""
    out = []
    with open(os.path.join(res, name + '.csv')) as fh:
        for line in fh:
            if not line.startswith('#'):
                break
            if line.startswith('# config> %s ' % key):
                out.append(line[len('# config> %s ' % key):].strip())
    return out


def world_lines(name):
    """The `# world:` lines of a scene section (the settings each scene ran
    with, as the library wrote them): {config line: {key: value}}."""
    out = {}
    with open(os.path.join(res, name + '.csv')) as fh:
        for line in fh:
            if not line.startswith('#'):
                break
            m = re.match(r'# world: line (\d+) (\S+): (.*)', line)
            if m and '=' in m.group(3):
                out[int(m.group(1))] = dict(kv.split('=', 1) for kv in m.group(3).split())
    return out


def config_scene_lines(name):
    """The scene lines of a section with their line numbers in the file."""
    pre = {}
    with open(os.path.join(res, name + '.csv')) as fh:
        for line in fh:
            if not line.startswith('#'):
                break
            m = re.match(r'# config: .* \(lines (\d+)-\d+\)', line)
            if m:
                pre['first'] = int(m.group(1))
                pre['k'] = pre['first'] - 1
            elif line.startswith('# config> ') and 'first' in pre:
                pre['k'] += 1
                if line.startswith('# config> scene '):
                    pre.setdefault('lines', []).append((pre['k'], line[len('# config> scene '):].strip()))
    return pre.get('lines', [])


def dt_text(v):
    """A time step as written, 1/N when it is one."""
    x = num(v)
    if x > 0 and abs(1 / x - round(1 / x)) < 1e-3:
        return '1/%d' % round(1 / x)
    return tex(v)


WORLD_COLS = [('dt', '$h$ (s)'), ('mu', '$\\mu$'), ('restitution', '$e$'), ('k_erp', 'ERP'),
              ('cfm', 'CFM'), ('slop', 'slop (m)'), ('margin', 'margin (m)'), ('omega', '$\\omega$'),
              ('warm_factor', 'warm'), ('max_iter', 'iter.'), ('bodies', 'bodies')]


def scene_table():
    """Every scene of the scene experiments with its world settings as run
    (the `# world:` lines), the friction models of the section and the
    bodies' masses."""
    t = ('\\begin{tabular}{@{}lll' + 'r' * (len(WORLD_COLS) + 1) + '@{}}\n\\toprule\nexperiment & scene & '
         'friction & ' + ' & '.join(h for _, h in WORLD_COLS) + ' & mass (kg) \\\\\n\\midrule\n')
    n = 0
    for name in ('drift', 'accuracy', 'integrators', 'scenes'):
        if not have(name + '.csv'):
            continue
        worlds = world_lines(name)
        frictions = ' '.join(config_lines(name, 'friction')) or 'box'
        for ln, line in config_scene_lines(name):
            w = worlds.get(ln)
            if not w:
                continue
            words = line.split()
            fr = [x[len('friction='):] for x in words[1:] if x.startswith('friction=')]
            params = [x for x in words[1:] if not x.startswith(('friction=', 'steps=', 'dt='))]
            mass = ('%.3g' % num(w['mass_min']) if w['mass_min'] == w['mass_max'] else
                    '%.3g--%.3g' % (num(w['mass_min']), num(w['mass_max'])))
            t += '%s & %s & %s & %s & %s \\\\\n' % (
                tex(name), tex(' '.join([words[0]] + params)), tex(fr[0] if fr else frictions),
                ' & '.join(dt_text(w[k]) if k == 'dt' else tex(w.get(k, '')) for k, _ in WORLD_COLS),
                mass)
            n += 1
    if not n:
        return ''
    return ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The scenes as run: the world '
            'settings each scene ran with, as the library wrote them (the \\texttt{\\# world:} lines of the '
            'CSVs): time step $h$, friction coefficient $\\mu$, restitution $e$, ERP and CFM of the contact '
            'rows, penetration slop, collision margin, relaxation $\\omega$ and iterations per step of the '
            'world\'s solver, warm-start factor, dynamic bodies and their masses.}\n  \\label{tab:scenetab}\n'
            '  \\setlength{\\tabcolsep}{2pt}\n' + t + '\\bottomrule\n\\end{tabular}\n\\end{table*}\n')


write('problemlist.tex', problem_list())
write('scenetable.tex', scene_table())
write('runparams.tex', run_parameters())
write('solverparams.tex', solver_params())

# ---- winners, ties, identical algorithms ---------------------------------------------------
def winners_table(name, tol_pick):
    _, w = read(name)
    tols = list(dict.fromkeys(r['tol'] for r in w))
    tol = tols[tol_pick] if tol_pick < len(tols) else tols[0]
    rows = [r for r in w if r['tol'] == tol]
    # the winners' problems are those the solver accepted when the table
    # counts refusals apart (its refused column)
    t = ('\\begin{tabular}{@{}llrrrrrr@{}}\n\\toprule\nclass & solver & %s & solved & '
         'fastest & tied & $\\rho(2)$ & $\\rho(10)$ \\\\\n\\midrule\n' % (
             'accepted' if rows and 'refused' in rows[0] else 'problems'))
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
def same_as_text(same):
    """Solvers that ran another's loop, grouped: 'a and b ran c's own loop on
    10 lcp and 7 box problems'."""
    per = {}
    for c, s, a in same:
        who, _, cnt = a.partition(' on ')
        per.setdefault((s, who.strip()), []).append('%s %s' % (cnt.strip() or 'all', tex(c)))
    groups = {}
    for (s, who), where in per.items():
        groups.setdefault((who, tuple(where)), []).append(s)
    return '; '.join('%s repeated %s\'s trace on %s problem%s' % (
        series([tt(x) for x in ss]), tt(who), series(list(where)),
        '' if len(where) == 1 and where[0].split()[0] == '1' else 's')
        for (who, where), ss in groups.items())


def noise_paragraph():
    """The times of identical loops (a solver that ran another's loop,
    same_as) on the same problems, against the tie tolerance: the noise
    itself is NAME_timing.csv's (the Timing paragraph)."""
    rows = [r for r in prof if r['tol'] == tolA and r.get('status') == 'converged' and
            r.get('time_source', 'library') in ('library', '')]
    t = ''
    traces = {}  # the same trace: status, iterations, pivots and x (the engine's same_as)
    for r in rows:
        if r.get('x_digest') and num(r['time_s']) > 0:
            key = (r['problem'], r['x_digest'], r['iterations'], r['pivots'])
            traces.setdefault(key, []).append(num(r['time_s']))
    ratios = [max(v) / min(v) for v in traces.values() if len(v) > 1]
    if ratios:
        ratios.sort()
        t += ('Runs with the same trace on a problem (Section~\\ref{sec:ties}) reach the same answer in the '
              'same number of iterations: '
              'on the %d problems where two solvers or more had one, their median times differ by a factor '
              'of %.2f at the median and up to %.2f' % (len(ratios), ratios[len(ratios) // 2], ratios[-1]))
        over = sum(1 for x in ratios if x > 1 + tie_f)
        t += ('; on %d of them the difference is larger than the tie factor %g of the profile, so at '
              '$\\tau=1$ runs with the same trace, implemented differently or timed at another moment, can '
              'rank differently. ' % (over, 1 + tie_f) if over else '. ')
    return ('\\paragraph{Noise.} ' + t.strip() + '\n\n') if t else ''


write('noise.tex', noise_paragraph())
nums += macro('SameAsSentence', (
    'A solver whose run on a problem repeats another\'s trace (the same status, iteration and pivot '
    'counts and the same $x$, bit for bit) is not a separate winner there: %s; they are '
    'marked $^*$ in the tables and never counted as fastest or tied. Most of these are one algorithm '
    'under two names; on a problem solved in an iteration or two, two algorithms can also meet.'
    % same_as_text(same)) if same else
    'No solver repeated another solver\'s trace on a problem of this run.')
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


def refusals_clause():
    """How the profiles count a refusal, from the tables: outside the
    denominators when every solver's problems are the ones it accepted."""
    acc = {(r['class'], r['solver']): int(num(r['accepted'])) for r in cov}
    inside = [r for r in wrows if int(num(r['problems'])) != acc.get((r['class'], r['solver']),
                                                                      int(num(r['problems'])))]
    if not inside:
        return 'refusals are outside the profiles\' denominators and are listed as coverage, not failures'
    return ('a refusal counts as an unsolved problem in the profiles (their denominator is the class) '
            'and is listed with its reason in the coverage table, not as a failure')


nums += macro('RefusalsClause', refusals_clause())
# the profiles' denominator, as the tables count it
_outside = refusals_clause().startswith('refusals are outside')
nums += macro('ProfileShareOf', 'the class\'s problems $s$ accepts' if _outside else
              'the class\'s problems')
nums += macro('ProfileLegendShare', 'of the class\'s problems each accepts' if _outside else
              'of the class\'s problems')
nums += macro('ClassList', series([CLASS_NAME.get(c) or tex(c) for c in
                                   classes_of([r for _, rows in sets for r in rows])]))

# ---- per-class paragraphs: who takes part, who is fastest, who is robust, who fails --------
def names(rs):
    return ', '.join(tt(r['solver']) for r in rs)


def upfirst(s):
    return s[:1].upper() + s[1:]


def class_paragraph(c):
    # the class's problems: the leaders' count (every problem of the class);
    # a winners row counts only the problems its solver accepted
    LA = lead(c, tolA) or lead(c, tolB)
    cr = [r for r in cov if r['class'] == c]
    nprob = int(num(LA['problems'])) if LA else (int(num(cr[0]['problems'])) if cr else 0)
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
        k = int(num(LA['fastest_alone']))
        t += 'At %s, %s is fastest alone on %d problem%s and tied on %s' % (
            '$' + tolfmt(tolA) + '$', tt(LA['fastest']), k, '' if k == 1 else 's', LA['fastest_tied'])
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

# ---- large problems: the whole section, only when the results have it ----------------------
def large_section():
    if not have('large_winners.csv') or not have('large.csv'):
        return ''
    lt, ltol, lrows, _ = winners_table('large_winners.csv', 0)
    write('large.tex', lt)
    lpre, lg = read('large.csv')
    t = ('\\section{Large problems}\\label{sec:large}\nThe large set has %d problems up to $n=%d$, '
         'solved by the solvers that need no dense factorisation (Table~\\ref{tab:large}).' %
         (len(collection(lg)), max(int(num(r['n'])) for r in lg)))
    lim = lpre.get('time_limit_s', '').split(' ')[0]
    hits = []
    if have('large_failures.csv'):
        for r in read('large_failures.csv')[1]:
            k = int(num(r.get('time_limit') or 0))
            if k:
                hits.append('%s on %d of the %s %s problems' % (tt(r['solver']), k, r['problems'],
                                                                tex(r['class'])))
    if lim and hits:
        t += ' The time limit of %s\\,s was reached by %s.' % (lim, '; '.join(hits))
    t += ('\n\n\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{Large problems: fastest, tied '
          'and profile values per class (as Table~\\ref{tab:win}).}\n  \\label{tab:large}\n'
          '  \\setlength{\\tabcolsep}{3pt}\n  \\input{gen/large.tex}\n\\end{table*}\n')
    return t


write('large_section.tex', large_section())

# ---- scaling -------------------------------------------------------------------------------
_, sl = read('scaling_slopes.csv')
scpre, sc = read('scaling.csv')
fit = [r for r in sl if not math.isnan(num(r['slope']))]
# the figure's solvers (the section's `figure solvers=` line), when fewer than the fits
_figsv = [w for w in re.findall(r'(?:^|\s)solvers=(\S+)', scpre.get('figure', ''))[-1:]
          for w in w.split(',') if w]
_fitsv = list(dict.fromkeys(r['solver'] for r in fit))
_drawn = [x for x in _fitsv if x in _figsv]
nums += macro('ScalingFigNote', (
    ' It draws %d of the %d solvers fitted (%s: the section\'s \\texttt{figure solvers=}); '
    'Table~\\ref{tab:slopes} gives every fit.' % (len(_drawn), len(_fitsv),
                                                 ', '.join(tt(x) for x in _drawn)))
              if _figsv and len(_drawn) < len(_fitsv) else '')
t = ('\\begin{tabular}{@{}llrrcr@{}}\n\\toprule\nfamily & solver & points & slope $s$ & 95\\,\\% '
     'interval & $R^2$ \\\\\n\\midrule\n')
fams = list(dict.fromkeys(r['family'] for r in fit))
for f in fams:
    first = True
    for r in (r for r in fit if r['family'] == f):
        t += '%s & %s & %s & %.2f & [%.2f, %.2f] & %.3f \\\\\n' % (
            tex(f) if first else '', tt(r['solver']), r['points'], num(r['slope']), num(r['slope_lo']),
            num(r['slope_hi']), num(r['r2']))
        first = False
    if f != fams[-1]:
        t += '\\midrule\n'
t += '\\bottomrule\n\\end{tabular}\n'
write('slopes.tex', t if fit else '')


def family_sizes():
    """The sizes n each scaling family was run at (scaling.csv)."""
    sizes = {}
    for r in sc:
        if r['n']:
            sizes.setdefault(r['problem'].split('_')[0], set()).add(int(num(r['n'])))
    return sizes


def scaling_text():
    if not fit:
        return ''
    sizes = family_sizes()
    ns = sorted({n for v in sizes.values() for n in v})
    counts = sorted({len(v) for v in sizes.values()})
    lo = min(fit, key=lambda r: num(r['slope']))
    hi = max(fit, key=lambda r: num(r['slope']))
    wide = max(fit, key=lambda r: num(r['slope_hi']) - num(r['slope_lo']))
    narrow = min(fit, key=lambda r: num(r['slope_hi']) - num(r['slope_lo']))
    t = ('Figure~\\ref{fig:scaling} and Table~\\ref{tab:slopes} give the median solve time against $n$ '
         '($n=%s$) on the %s %s, with the fitted exponents $s$ of $\\log t = a + s\\log n$ and their '
         '95\\,\\%% confidence intervals. With %s %s per family the intervals run from '
         '[%.2f, %.2f] (%s) to [%.2f, %.2f] (%s). The exponents range from %.2f (%s) to %.2f (%s); '
         'differences smaller than the intervals are not significant.' % (
             ranges(ns), 'family' if len(fams) == 1 else 'families',
             series([tt(f) for f in fams]), series([count_word(c) for c in counts]),
             'size' if counts == [1] else 'sizes',
             num(narrow['slope_lo']), num(narrow['slope_hi']), tt(narrow['solver']),
             num(wide['slope_lo']), num(wide['slope_hi']), tt(wide['solver']),
             num(lo['slope']), tt(lo['solver']), num(hi['slope']), tt(hi['solver'])))
    none = [r['solver'] for r in sl if math.isnan(num(r['slope']))]
    if none:
        t += ' %s solved fewer than two sizes and %s no fit.' % (
            series([tt(x) for x in none]), 'has' if len(none) == 1 else 'have')
    nmax = ns[-1]
    at = [(num(r['time_s']), r['solver']) for r in sc if r['n'] and int(num(r['n'])) == nmax and
          r.get('status') == 'converged' and not math.isnan(num(r['time_s']))]
    if len(at) > 1:
        at.sort()
        t += (' At $n=%d$ the fastest is %s ($%s$\\,s) and the slowest %s ($%s$\\,s).' %
              (nmax, tt(at[0][1]), sci(at[0][0], 2), tt(at[-1][1]), sci(at[-1][0], 2)))
    return t + '\n'


write('scaling_text.tex', scaling_text())

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
        return 'refused'
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
# the measure the convergence CSV records (its column), as the text names it
_meas = next((k for k in ('res_scaled', 'res_rel') if cv and k in cv[0]), 'res_scaled')
nums += macro('ConvMeasure', '\\mathrm{res}_{\\mathrm{%s}}' % _meas.split('_')[1])

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


def unconverged(r):
    """Steps of a run that ended on the iteration limit or unconverged."""
    return int(num(r['max_iter'])) + int(num(r.get('unconverged') or 0))


def short_most(r):
    n = int(num(r['steps']))
    return n > 0 and 2 * unconverged(r) > n


t = ('\\begin{tabular}{@{}llllrlrrrrr@{}}\n\\toprule\nexperiment & scene & friction & solver & steps & '
     'end & conv. & max it. & other & own & carried \\\\\n\\midrule\n')
nfail_runs = 0
for ex, r in scene_rows:
    if r['end'].startswith('refused'):
        continue
    other = sum(int(num(r[s])) for s in ('stagnated', 'ray_termination', 'singular_pivot', 'breakdown',
                                          'no_solution', 'not_finite', 'unconverged', 'failed', 'error',
                                          'other') if s in r)
    if r['end'] == 'ran' and other == 0 and not int(num(r['applied_other'])) and not short_most(r):
        continue  # ran to the end on its own answers, converged on most steps
    if r['end'] != 'ran':
        nfail_runs += 1
    t += '%s & %s & %s & %s & %s & %s & %s & %s & %d & %s & %s \\\\\n' % (
        ex, tex(r['scene']), tex(r['friction']), tt(r['solver']), r['steps'],
        end_cell(r['end']), r['converged'], r['max_iter'], other,
        r['applied_solution'], r['applied_other'])
t += '\\bottomrule\n\\end{tabular}\n'
write('scenes.tex', t)

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


STATUS_WORDS = [('max_iter', 'at the iteration limit'), ('unconverged', 'unconverged'),
                ('stagnated', 'stagnated'), ('ray_termination', 'on a ray'),
                ('singular_pivot', 'on a singular pivot'), ('breakdown', 'on a breakdown'),
                ('not_finite', 'not finite'), ('time_limit', 'on the time limit'),
                ('failed', 'failed'), ('error', 'on an error'), ('other', 'on another status')]


def run_summary(ex, r):
    """One scene run of the steps table in words."""
    parts = ['%s converged' % r['converged']]
    parts += ['%d %s' % (int(num(r[k])), w) for k, w in STATUS_WORDS if int(num(r.get(k) or 0))]
    t = '%s (%s): %s steps, %s' % (where(r), ex, r['steps'], ', '.join(parts))
    if int(num(r['applied_other'])):
        t += ', %s of %s carried by the failure policy' % (r['applied_other'], r['steps'])
    if r['end'] != 'ran':
        t += ', ended by %s' % end_cell(r['end'])
    return t


def lemke_paragraph():
    t = ''
    mine = [r for r in flA if r['solver'] == 'lemke']
    if mine:
        acc = sum(int(num(r['problems'])) - int(num(r['refused'])) for r in mine)
        t += ('Of the %d profile problems that \\texttt{lemke} accepts it solves %d at %s' %
              (acc, fsum('lemke', 'converged'), '$' + tolfmt(tolA) + '$'))
        ends = ['%d %s' % (fsum('lemke', k), w) for k, w in STATUS_WORDS if fsum('lemke', k)]
        t += ('; it ends %s.' % series(ends)) if ends else '.'
    runs = [run_summary(ex, r) for ex, r in scene_rows
            if r['solver'] == 'lemke' and not r['end'].startswith('refused')]
    if runs:
        t += ' In the scenes it ran %s.' % '; '.join(runs)
    bad = any(int(num(r.get('singular_pivot') or 0)) + int(num(r.get('ray_termination') or 0))
              for _, r in scene_rows if r['solver'] == 'lemke')
    bad = bad or fsum('lemke', 'singular_pivot') + fsum('lemke', 'ray_termination') > 0
    if bad:
        t += (' In exact arithmetic Lemke\'s method processes the pyramid LCP~\\cite{stewart1996,anitescu1997};'
              ' with many contacts at rest its pivot blocks become nearly singular, and we have not separated'
              ' rounding from degeneracy in these failures.')
    return ('\\paragraph{Lemke\'s method.} ' + t.strip() + '\n\n') if t else ''


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
    what = {'solver': 'its own iterate', 'solution': 'its own iterate',
            'warm': 'the warm start (the previous step\'s impulses)', 'zero': 'the projection of zero'}
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


def where(r):
    """The scene and friction of a steps row in words."""
    f = r['friction']
    return 'the %s %s' % (tex(r['scene']), 'without friction' if f == 'none' else 'with %s friction' % tex(f))


def group_where(rows):
    groups = {}
    for r in rows:
        groups.setdefault(where(r), []).append(r)
    return groups


def by_scene(rows, count):
    """Runs grouped by scene and friction: 'on the S: a N of M, b K of M'."""
    groups = {}
    for r in rows:
        groups.setdefault(where(r), []).append(r)
    return '; '.join('on %s, %s' % (w, ', '.join('%s %d of %s' % (tt(r['solver']), count(r), r['steps'])
                                                for r in rs)) for w, rs in groups.items())


POLICY = {
    'keep': 'a step applies the solver\'s iterate unless it is worse than no impulse, which ends the run',
    'stop': 'a failed step ends the run',
    'best': 'a failed step applies the best of the solver\'s iterate, the warm start and the '
            'projection of zero',
}


def policy_sentence(pre):
    """The failure policy as run (drift.csv's preamble, on_failure)."""
    pol = pre.get('on_failure', '').split(' ')[0]
    if pol in POLICY:
        return 'Under the failure policy of this run (\\texttt{%s}) %s. ' % (pol, POLICY[pol])
    if pol != 'fallback':
        return ''
    t = ('A step whose solver does not converge does not end the run: under the failure policy of '
         'this run (\\texttt{fallback}) the step is solved again by a fallback solver')
    m = re.search(r'fallback solver (\S+) for equality rows only, (\S+) for cones, else (\S+), (\d+) '
                  r'iterations', pre.get('on_failure', ''))
    if m:
        t += (' (%s on problems of equality rows only, %s on cones, %s otherwise; at most %s '
              'iterations)' % (tt(m.group(1)), tt(m.group(2)), tt(m.group(3)), m.group(4)))
    return t + (', and the world applies the candidate with the smallest natural-map residual among '
                'the fallback\'s answer, the solver\'s iterate, the warm start and the projection of '
                'zero. ')


def world_paragraph():
    """What the time stepper did with the steps whose solver did not converge:
    the policy as run, the runs it carried, the runs unconverged on most steps."""
    pre = read('drift.csv')[0] if have('drift.csv') else {}
    t = policy_sentence(pre)
    b = re.search(r'world defaults: ([\d.e+-]+), (\d+)', pre.get('solver settings', ''))
    if b and 'max_iter default' in pre.get('solver settings', ''):
        t += ('Each step is solved to the world\'s tolerance $%s$ within %s iterations, warm-started from '
              'the previous step. ' % (tolfmt(b.group(1)), b.group(2)))
    runs = [r for _, r in scene_rows if not r['end'].startswith('refused')]
    carried = [r for r in runs if int(num(r['applied_other']))]
    most = [r for r in carried if 2 * int(num(r['applied_other'])) > int(num(r['steps']))]
    if carried:
        t += ('The policy, not the solver, supplied the applied impulses of some steps in %s '
              '(Table~\\ref{tab:scenes}, ``carried\'\', per run)' % plural(len(carried), 'run'))
        t += ('; of most steps in these: %s. ' % by_scene(most, lambda r: int(num(r['applied_other'])))
              if most else '. ')
        t += ('The energy and penetration of those steps are those of what was applied, not of the '
              'solver under test. ')
    short = [r for r in runs if short_most(r)]
    if short:
        t += ('%s ended most of their steps on the iteration limit or unconverged (Table~\\ref{tab:scenes}, '
              '``max it.\'\'): %s. ' % (upfirst(plural(len(short), 'run')),
                                       series(['%s on %s' % (series([tt(r['solver']) for r in rs]), w)
                                               for w, rs in group_where(short).items()])))
    stopped = [r for r in runs if r['end'] != 'ran']
    if stopped:
        t += '%s ended before the last step (Table~\\ref{tab:scenes}). ' % upfirst(plural(len(stopped), 'run'))
    ac = [r for r in (read('accuracy.csv')[1] if have('accuracy.csv') else []) if r['step']]
    if ac:
        conv = sum(1 for r in ac if r['status'] == 'converged')
        t += ('Of the %d solver steps of the accuracy experiment, %.0f\\,\\%% reached the tolerance. ' %
              (len(ac), 100.0 * conv / len(ac)))
    return ('\\paragraph{What the world did.} ' + t.strip() + '\n\n') if t else ''


story = scene_story(drift_rows, 'pendulum')
tl = sorted(((fsum(s, 'time_limit'), s) for s in lcp_solvers), reverse=True)
tl_txt = ''
if tl and tl[0][0]:
    tl_txt = ('\\paragraph{Time limits.} The solves that reached the time limit in the profile: %s.\n\n' %
              '; '.join('%s on %d' % (tt(s), k) for k, s in tl if k))
write('failures_text.tex', lemke_paragraph() +
      (('\\paragraph{The pendulum.} The pendulum has only joint rows (an MLCP) and nothing in it '
        'dissipates or injects energy beyond the integrator, so any energy change above the exact '
        'solvers\' is the solvers\'. ' + story + '\n\n') if story else '') +
      world_paragraph() + tl_txt)
chain = [(abs(num(r['rel_drift'])), k[1]) for k, r in dl.items() if k[0] == 'chain'
         and not math.isnan(num(r['rel_drift']))]
# a sentence only when the drift runs have a chain (the main job's do not)
nums += macro('ChainClause', 'On the chain the relative energy change at the end ranges from $%s$ to $%s$.' %
              (sci(min(chain)[0]), sci(max(chain)[0])) if chain else '')

# accuracy: converged share of the applied steps
_, ac = read('accuracy.csv')
ac = [r for r in ac if r['step']]
conv = sum(1 for r in ac if r['status'] == 'converged')
def joint_error_sentence(ac):
    """The joint error per step across the solvers of each joint scene: the
    same for all (it measures the stabilisation) or how far apart."""
    steps = {}
    for r in ac:
        v = num(r.get('joint_error'))
        if not math.isnan(v) and v > 0:
            steps.setdefault((r['scene'], r['friction'], r['step']), []).append(v)
    if not steps:
        return ''
    top = max(max(v) for v in steps.values())
    spread = max(max(v) - min(v) for v in steps.values()) / top
    scenes = series([tt(k) for k in dict.fromkeys(k[0] for k in steps)])
    t = ('On %s the joint error (at most $%s$\\,m) differs between the solvers at the same step by at most '
         '%.2g\\,\\%% of its largest value' % (scenes, sci(top, 2), 100 * spread))
    if spread < 0.05:
        return t + (': it measures the Baumgarte stabilisation, not the solver, and has no panel. ')
    return t + '; it has no panel. '


def scenes_intro():
    t = joint_error_sentence(ac)
    pen = {}
    for r in ac:
        k = (r['scene'], r['friction'], r['solver'])
        v = num(r['max_penetration'])
        if not math.isnan(v):
            pen[k] = max(pen.get(k, 0.0), v)
    if pen:
        k, v = max(pen.items(), key=lambda kv: kv[1])
        t += ('The deepest penetration of any run of the accuracy experiment was $%s$\\,mm (%s on the %s '
              'with %s friction). ' % (sci(1e3 * v), tt(k[2]), tex(k[0]), tex(k[1])))
    return t


write('scenes_intro.tex', scenes_intro())

# integrators: the whole section, only when the results have it
def integ_section():
    if not have('integrators.csv'):
        return ''
    rows = read('integrators.csv')[1]
    il = last_rows(rows)
    scenes = list(dict.fromkeys(k[0] for k in il))
    solvers = list(dict.fromkeys(k[1] for k in il))
    txt, worst = [], set()
    for sc_name in scenes:
        d = [(abs(num(r['rel_drift'])), k[2]) for k, r in il.items() if k[0] == sc_name
             and not math.isnan(num(r['rel_drift']))]
        if not d:
            continue
        txt.append('%s: %s' % (tt(sc_name), ', '.join('%s $%s$' % (tex(i), sci(v)) for v, i in d)))
        worst.add(max(d)[1])
    if not txt:
        return ''
    t = ('\\section{Integrators}\\label{sec:integ}\nThe scenes %s compare the integrators, not the solvers: '
         'they are run with %s (Figure~\\ref{fig:integ}). The relative energy change after %d steps is %s.' %
         (series([tt(x) for x in scenes]), series([tt(x) for x in solvers]),
          max(int(r['step']) for r in rows if r['step']), '; '.join(txt)))
    if len(worst) == 1 and len(txt) > 1:
        t += ' The %s integrator has the largest change on every scene.' % tex(worst.pop())
    return t + '\n'


write('integ_section.tex', integ_section())

# ---- peers: a paragraph only when peers ran ----------------------------------------------------
ptxt = []
for c in classes_of(wrows):
    L = lead(c, tolA)
    if not peers or not L or not L['best_external'] or not L['best_builtin']:
        continue
    ptxt.append('on the %s problems the peer that solves the most is %s (%s of %s, $\\rho(10)=%.2f$) '
                'against %s of \\lcp\\ (%s, $\\rho(10)=%.2f$)' % (
                    tex(c), tt(L['best_external']), L['best_external_solved'], L['problems'],
                    num(L['best_external_rho_10']), tt(L['best_builtin']),
                    L['best_builtin_solved'], num(L['best_builtin_rho_10'])))
write('peers_text.tex', ('\\paragraph{Peers.} In the same profiles, %s. The peers\' times are those they '
                         'report for the solver call (not the process), so that reading the file is not '
                         'charged to them.\n' % '; '.join(ptxt)) if ptxt else '')


# ---- the peers side by side: peers_lcp, peers_fc3d, scenes (experiments/default.exp) -----------
PEER_SECTIONS = ('peers_lcp', 'peers_fc3d')


def absent_externals():
    """The externals each section left out (`# externals_absent:`), in order."""
    out = []
    for name in PEER_SECTIONS + ('scenes',):
        if have(name + '.csv'):
            for x in read(name + '.csv')[0].get('externals_absent', '').split('(')[0].split(','):
                if x.strip() and x.strip() not in out:
                    out.append(x.strip())
    return out


def peer_table(name):
    """One row per (class, solver) at the section's first tolerance: the
    problems it accepts, the refusals apart, solved, fastest, tied, rho(10)
    (NAME_winners.csv) and the unsolved by status (NAME_failures.csv)."""
    _, w = read(name + '_winners.csv')
    _, fl = read(name + '_failures.csv')
    tol = w[0]['tol'] if w else None
    fails = {(r['class'], r['solver']): r for r in fl if r['tol'] == tol}
    t = ('\\begin{tabular}{@{}llrrrrrrl@{}}\n\\toprule\nclass & solver & accepted & refused & solved & '
         'fastest & tied & $\\rho(10)$ & unsolved: status (problems) \\\\\n\\midrule\n')
    cls = classes_of([r for r in w if r['tol'] == tol])
    for c in cls:
        first = True
        for r in (r for r in w if r['tol'] == tol and r['class'] == c):
            f = fails.get((c, r['solver']), {})
            bad = ['%s %d' % (short.get(k, k), int(num(f[k]))) for k in statuses
                   if k not in ('converged', 'refused') and k in f and int(num(f[k]))]
            sname = tt(r['solver']) + ('$^{*}$' if r.get('same_as') else '')
            t += '%s & %s & %s & %s & %s & %s & %s & %.2f & %s \\\\\n' % (
                tex(c) if first else '', sname, r['problems'], r.get('refused', ''), r['solved'],
                r['fastest'], r['tied'], num(r['rho_10']), ', '.join(bad))
            first = False
        t += '\\midrule\n' if c != cls[-1] else ''
    return t + '\\bottomrule\n\\end{tabular}\n', tol, w


def peer_section_paragraph(name, w, tol):
    """Who ran, on what, who leads, in one paragraph from the section's CSVs."""
    p, rows = read(name + '.csv')
    solvers = list(dict.fromkeys(r['solver'] for r in rows))
    ext = [s for s in solvers if is_peer(s)]
    own = [s for s in solvers if not is_peer(s)]
    probs = collection(rows)
    t = ('\\paragraph{Peers on %s.} %s of \\lcp\\ (%s) and %s (%s) on %s, to the tolerance $%s$ '
         '(Table~\\ref{tab:%s}). ' % (
             series([CLASS_NAME.get(c) or tex(c) for c in classes_of(list(probs.values()))]) + ' problems',
             upfirst(plural(len(own), 'solver')), ', '.join(tt(s) for s in own),
             plural(len(ext), 'peer'), ', '.join(tt(s) for s in ext),
             series([plural(sum(1 for r in probs.values() if r['class'] == c),
                            (CLASS_NAME.get(c) or tex(c)) + ' problem')
                     for c in classes_of(list(probs.values()))]), tolfmt(tol), name.replace('_', '')))
    srcs = sorted({r.get('time_source') for r in rows if is_peer(r['solver']) and r.get('time_source')})
    peer_unconv = sum(int(num(r['unconverged'])) for r in read(name + '_failures.csv')[1]
                      if is_peer(r['solver']) and r['tol'] == tol)
    if peer_unconv:
        t += ('A peer\'s answer counts as solved when \\lcp\'s test accepts it, the test its own solvers '
              'meet; %s of the peers\' answers were rejected by it (``unconv.\'\' in the table), whatever '
              'the peer\'s own stopping test said. ' % count_word(peer_unconv))
    if srcs == ['reported']:
        t += ('The peers\' times are the median solve times they report over repeated solves in one '
              'process (not the process: reading the file is not charged to them). ')
    _, lead_rows = read(name + '_leaders.csv')
    for L in (r for r in lead_rows if r['tol'] == tol):
        parts = []
        if L['best_external'] and not int(num(L['best_external_solved'])):
            parts.append('no peer solves any, \\lcp\'s %s solves %s' % (tt(L['best_builtin']),
                                                                     L['best_builtin_solved']))
        elif L['best_builtin'] and L['best_external']:
            parts.append('the peer that solves the most is %s (%s of %s, $\\rho(10)=%.2f$), \\lcp\'s is %s '
                         '(%s, $\\rho(10)=%.2f$)' % (
                             tt(L['best_external']), L['best_external_solved'], L['problems'],
                             num(L['best_external_rho_10']), tt(L['best_builtin']),
                             L['best_builtin_solved'], num(L['best_builtin_rho_10'])))
        if L['fastest']:
            parts.append('%s is fastest alone on %s' % (tt(L['fastest']), L['fastest_alone']))
        if parts:
            t += 'On the %s problems (%s), %s. ' % (CLASS_NAME.get(L['class']) or tex(L['class']),
                                                   L['problems'], '; '.join(parts))
    same_rows = [r for r in w if r['tol'] == tol and r.get('same_as')]
    if same_rows:
        t += '%s ran another solver\'s trace on some problems (marked $^*$): %s. ' % (
            upfirst(plural(len(same_rows), 'solver')),
            series(['%s as %s on %s' % (tt(r['solver']), tt(r['same_as'].partition(' on ')[0]),
                                         plural(int(num(r['same_as'].partition(' on ')[2] or 0)), 'problem'))
                    for r in same_rows]))
    return t


def scenes_table():
    """The scenes section's summary rows: one per (scene, engine)."""
    _, rows = read('scenes.csv')
    t = ('\\begin{tabular}{@{}lllrrrrrr@{}}\n\\toprule\nscene & engine & friction & steps & contacts & '
         'step (s) & per contact (s) & energy change & penetration (m) \\\\\n\\midrule\n')
    last = None
    for r in rows:
        sc = '%s %s' % (r['scene'], r['params'])
        t += '%s & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n' % (
            tex(sc) if sc != last else '', tt(r['solver']), tex(r['friction']), r['steps'],
            r['contacts_max'], cellsci(r['time_step_median_s']), cellsci(r['time_per_contact_s']),
            cellsci(r['energy_drift']), cellsci(r['max_penetration_end']))
        last = sc
    return t + '\\bottomrule\n\\end{tabular}\n', rows


def scenes_paragraph(rows):
    engines = list(dict.fromkeys(r['solver'] for r in rows))
    scenes = list(dict.fromkeys('%s (%s)' % (tex(r['scene']), tex(r['params'])) for r in rows))
    t = ('\\paragraph{Scenes.} %s ran in %s: %s (Table~\\ref{tab:peerscenes}); the step time is the '
         'median wall time of a whole step (collision and solve), the energy change is relative to the '
         'start, the penetration is the deepest at the end. ' % (
             upfirst(series(scenes)), plural(len(engines), 'engine'), series([tt(e) for e in engines])))
    unconv = [r for r in rows if num(r.get('not_converged')) > 0]
    if unconv:
        mi = read('scenes.csv')[0].get('config max_iter', '')
        t += ('\\lcp\'s solver ended steps on its iteration limit%s: %s. ' % (
            (' (%s sweeps a step, the iteration count each peer is given too)' % mi) if mi else '', series(['%s of %s steps on the %s' % (r['not_converged'], r['steps'],
                                                                         tex(r['scene'])) for r in unconv])))
    fb = [r for r in rows if num(r.get('fallback_steps')) > 0]
    if fb:
        t += 'The fallback solver carried %s. ' % series(['%s steps of %s on the %s' % (
            r['fallback_steps'], tt(r['solver']), tex(r['scene'])) for r in fb])
    return t


def validation_paragraph():
    """The harness against peer_fc3d's own verdicts (make bench-validate),
    when its results are in RESULTS_DIR/bench_validate: every count from
    bench_validate_agreement.csv (the engine's table), the problems, the
    time limit and the runs without a verdict from bench_validate.csv."""
    path = os.path.join('bench_validate', 'bench_validate_agreement.csv')
    if not have(path):
        return ''
    _, rows = read(path)
    allr = [r for r in rows if r['solver'] == 'all']
    if not allr:
        return ''
    a = allr[0]
    per = [r for r in rows if r['solver'] != 'all' and r['tol'] == a['tol']]
    pairs, agree, nov = int(num(a['pairs'])), int(num(a['agree'])), int(num(a['no_verdict']))
    total = pairs + nov
    runs = os.path.join('bench_validate', 'bench_validate.csv')
    bpre, brows = read(runs) if have(runs) else ({}, [])
    brows = [r for r in brows if r.get('tol') and num(r['tol']) == num(a['tol'])]
    probs = len({r['problem'] for r in brows})
    lim = bpre.get('time_limit_s', '').split(' ')[0]
    t = ('\\paragraph{The harness against the literature.} A separate run, \\texttt{make bench-validate} '
         '(not part of the main job), runs %s of Siconos (%s) as external solvers through the engine '
         'on %s, and compares the engine\'s verdict ($\\mathrm{err}_\\mathrm{siconos}\\le %s$, recomputed by '
         'the library from the answer the solver wrote) with the one \\texttt{peer\\_fc3d} prints itself '
         '(\\texttt{solved}: its own $\\mathrm{err}_\\mathrm{siconos}\\le %s$, $r$ and $u$ finite). ' % (
             plural(len(per), 'solver'), ', '.join(tt(r['solver']) for r in per),
             ('the %d FC3D problems of the shared datasets' % probs) if probs else
             'the FC3D problems of the shared datasets', tolfmt(a['tol']), tolfmt(a['tol'])))
    if nov:
        t += 'Of the %d (solver, problem) pairs, %d have both verdicts' % (total, pairs)
    else:
        t += 'All %d (solver, problem) pairs have both verdicts' % pairs
    t += (', and the two agree on %s: %s solved by both, %s by neither' % (
        ('all %d' % pairs) if agree == pairs else ('%d of them (%.1f\\,\\%%)' % (
            agree, 100 * num(a['agree_share']))), a['both_solved'], a['both_unsolved']))
    only = [(int(num(a['only_reported'])), 'by the peer alone'),
            (int(num(a['only_engine'])), 'by the engine\'s test alone')]
    if any(k for k, _ in only):
        t += '; solved %s' % series(['%d %s' % (k, w) for k, w in only if k])
    else:
        t += '; no pair is solved by one and not the other'
    t += '. '
    if nov:
        gone = [r for r in brows if r.get('reported_solved', '') == '']
        words = {'time_limit': 'killed at the %s\\,s time limit' % lim if lim else 'killed at the time limit',
                 'refused': 'refused', 'failed': 'without an answer', 'error': 'with an error'}
        by = {}
        for r in gone:
            by.setdefault(words.get(r['status'], r['status'].replace('_', ' ')), []).append(
                '%s on %s' % (tt(r['solver']), tt(r['problem'])))
        if gone and len(gone) == nov:
            t += 'The other %s gave no verdict, %s. ' % (
                plural(nov, 'run'), '; '.join('%s: %s' % (w, series(v)) for w, v in by.items()))
        else:
            t += 'The other %s gave no verdict (refused, killed at the time limit or silent). ' % (
                plural(nov, 'run'))
        t += ('Counted as disagreements, the two verdicts agree on %d of the %d pairs (%.1f\\,\\%%). ' %
              (agree, total, 100.0 * agree / total))
    return t.rstrip() + '\n\n'


def peers_side_section():
    t = ''
    for name in PEER_SECTIONS:
        if not have(name + '.csv') or not have(name + '_winners.csv'):
            continue
        tab, tol, w = peer_table(name)
        if not w:
            continue
        t += peer_section_paragraph(name, w, tol) + '\n\n'
        t += ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{%s: \\lcp\'s solvers and the '
              'peers at $%s$; accepted: the problems the solver takes (the profile\'s denominator), '
              'refused apart; fastest and tied at $\\tau=1$ within the section\'s tie factor.}\n'
              '  \\label{tab:%s}\n  \\setlength{\\tabcolsep}{3pt}\n%s\\end{table*}\n\n' % (
                  tex(name), tolfmt(tol), name.replace('_', ''), tab))
    if have('scenes.csv'):
        tab, rows = scenes_table()
        if rows:
            t += scenes_paragraph(rows) + '\n\n'
            t += ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The scenes in \\lcp\\ and '
                  'in the scene peers, one run each.}\n  \\label{tab:peerscenes}\n'
                  '  \\setlength{\\tabcolsep}{3pt}\n%s\\end{table*}\n\n' % tab)
    gone = absent_externals()
    if t and gone:
        t += ('Not built on this machine, and so left out of these sections: %s.\n\n' %
              series([tt(x) for x in gone]))
    t += validation_paragraph()
    if not t:
        return ''
    t += '\\clearpage\n'  # its tables before the related work
    return ('\\section{The peers side by side}\\label{sec:peers}\nThese sections of the same campaign run '
            '\\lcp\'s solvers and other libraries\' as external programs on the same problems; every '
            'answer is judged by \\lcp\'s residual, and a refusal is outside the denominators.\n\n' + t)


write('peers_side.tex', peers_side_section())


def peers_conclusion():
    """One sentence on the peers' sections: per class, the most problems
    solved by lcplab's best solver and by the best peer (NAME_leaders.csv)."""
    parts = []
    for name in PEER_SECTIONS:
        if not have(name + '_leaders.csv'):
            continue
        lr = read(name + '_leaders.csv')[1]
        tol = lr[0]['tol'] if lr else None
        for L in (r for r in lr if r['tol'] == tol and r['best_builtin'] and r['best_external']):
            parts.append('on the %s problems of %s at $%s$, \\lcp\'s %s solves %s of %s and the best peer, '
                         '%s, %s' % (CLASS_NAME.get(L['class']) or tex(L['class']), tex(name), tolfmt(tol),
                                     tt(L['best_builtin']), L['best_builtin_solved'], L['problems'],
                                     tt(L['best_external']), L['best_external_solved']))
    return (' Beside the peers (Section~\\ref{sec:peers}): %s.' % '; '.join(parts)) if parts else ''


# ---- conclusion: what this run shows, per class ------------------------------------------------
def conclusion():
    parts = []
    for c in classes_of(wrows):
        L = lead(c, tolA)
        if not L or not L['fastest']:
            continue
        most = L['most_solved'].split()
        parts.append('on the %s problems %s is fastest most often and %s solve%s the most' % (
            CLASS_NAME.get(c) or tex(c), tt(L['fastest']), series([tt(x) for x in most]),
            '' if len(most) > 1 else 's'))
    winners = {lead(c, tolA)['fastest'] for c in classes_of(wrows) if lead(c, tolA) and lead(c, tolA)['fastest']}
    # the profiles' problems: the verdicts below are theirs (the scaling and
    # large sets are not in the profiles)
    ncl = len(classes_of(wrows))
    t = ('\\section{Conclusion}\\label{sec:concl}\nOn the %d problems of the profiles, in %s, at %s, %s.' % (
        len(collection(prof)), plural(ncl, 'class', 'classes'), '$' + tolfmt(tolA) + '$', '; '.join(parts)))
    if len(winners) > 1:
        t += ' No solver is fastest on every class.'
    t += peers_conclusion()
    t += (' The comparison is limited by the size of the sample (Table~\\ref{tab:coll}), by the machine '
          '(Table~\\ref{tab:prov}) and by the solvers\' default parameters '
          '(' + solver_params_ref() + '); the '
          'campaign file and the toolkit make it repeatable with other settings.\n')
    return t if parts else ''


write('conclusion.tex', conclusion())

nums += macro('SolverParamsRef', solver_params_ref())
write('numbers.tex', nums)

# ---- maximal against reduced coordinates (make articulated) --------------------------------
art = ''
write('articulated_clause.tex', '')
if have('articulated.csv'):
    write('articulated_clause.tex', 'Table~\\ref{tab:art} compares them on a pendulum chain '
          '(\\texttt{make articulated}).')
    _, ar = read('articulated.csv')
    art = ('\\begin{tabular}{@{}rlrrr@{}}\n\\toprule\n$h$ (s) & formulation & joint drift (m) & '
           'energy drift & time/step (s) \\\\\n\\midrule\n')
    for r in ar:
        art += '%s & %s & %s & %s & %s \\\\\n' % (
            r['h'], r['formulation'].replace('_', ' '), cellsci(r['joint_drift_max']),
            cellsci(r['energy_drift']), cellsci(r['time_per_step_s']))
    art += '\\bottomrule\n\\end{tabular}\n'
write('articulated.tex', art)
with open(os.path.join(gen, 'numbers.tex'), 'a') as fh:
    fh.write(macro('HaveArticulated', '1' if art else '0'))
