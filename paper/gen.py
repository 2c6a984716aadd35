# gen.py -- the generated parts of paper.tex, all read from the CSVs of one
# `lcplab experiment` results folder (the main job's sample or a full
# campaign): gen/*.tex tables and gen/numbers.tex macros.
#
#   python3 paper/gen.py RESULTS_DIR GEN_DIR
#
# with the lcplab Python package importable (PYTHONPATH=BUILD/python, as
# `make paper` and paper/build.sh set it, or a pip install): the medians
# it quotes are the library's (lcplab.quantile, exp_quantile).
#
# paper.tex holds no result.  This script only formats what the library
# wrote: the statistics (profiles, winners and ties, failures, coverage,
# timings, slopes, steps) are the tables libexperiment/tables.c wrote beside
# each CSV, and every text it quotes comes escaped from the library's
# NAME_tex.csv (exp_text_write; exp_tex_escape): it escapes only the
# underscores of plain names (families, folders, scene parameters).
# Sections that a results folder lacks (large, integrators, peers) are
# reported as absent, in one sentence, through the macros.
#
# Layout: the text helpers (numbers, lists, LaTeX forms) are functions;
# Paper is one results folder: __init__ reads the tables that several
# sections share, and each section of the paper is one method that writes
# its gen/*.tex files and adds its macros to numbers.tex; main() runs them.
import csv
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

try:
    import lcplab
except ImportError as e:
    sys.exit('gen.py: the lcplab Python package is needed (PYTHONPATH=BUILD/python, or pip install '
             '.; docs/python.md): %s' % e)

SRCDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
# the generators' own documentation (datasets/INSTANCES.md's table) in LaTeX
UNICODE_TEX = [('\u207b\u00b9', '$^{-1}$'), ('\u207b\u00b2', '$^{-2}$'), ('\u1d40', '$^{T}$'),
               ('\u00d7', '$\\times$'), ('\u03b5', '$\\varepsilon$'), ('\u2212', '$-$'),
               ('\u221e', '$\\infty$')]
CLASS_NAME = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
              'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}
CLASS_ORDER = ['lcp', 'box', 'mlcp', 'fc3d', 'cone-assoc']
WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']
# the sections whose solves are timed (their NAME_timing.csv)
TIMED = ('profile', 'scaling', 'large', 'peers_lcp', 'peers_fc3d')
PEER_SECTIONS = ('peers_lcp', 'peers_fc3d')
PROV_KEYS = [('cpu', 'CPU'), ('cores', 'cores'), ('governor', 'frequency governor'),
             ('load', 'load (1-min average)'), ('host', 'kernel'), ('compiler', 'compiler'),
             ('cflags', 'flags'), ('blas', 'BLAS'), ('threads', 'threads'),
             ('precision', 'precision'), ('lcplab', 'lcplab version'), ('rev', 'revision'),
             ('time_limit_s', 'time limit (s)'), ('timing', 'timing rule'),
             ('tie_tolerance', 'tie tolerance'), ('cond_est', 'condition estimate'),
             ('date', 'date'), ('tasks', 'tasks')]
# the failures tables' statuses, in their order, and their column heads
STATUSES = ['converged', 'max_iter', 'stagnated', 'ray_termination', 'singular_pivot', 'breakdown',
            'no_solution', 'not_finite', 'time_limit', 'unconverged', 'failed', 'error', 'other',
            'refused']
SHORT = {'converged': 'conv.', 'max_iter': 'max it.', 'stagnated': 'stagn.', 'ray_termination': 'ray t.',
         'singular_pivot': 'sing.', 'breakdown': 'brkdn.', 'no_solution': 'no sol.',
         'not_finite': 'NaN', 'time_limit': 'timeout', 'unconverged': 'unconv.', 'failed': 'failed',
         'error': 'error', 'other': 'other', 'refused': 'refused'}
WORLD_COLS = [('dt', '$h$ (s)'), ('mu', '$\\mu$'), ('restitution', '$e$'), ('k_erp', 'ERP'),
              ('cfm', 'CFM'), ('slop', 'slop'), ('margin', 'margin'), ('omega', '$\\omega$'),
              ('warm_factor', 'warm'), ('max_iter', 'iter.'), ('bodies', 'bodies')]
STATUS_WORDS = [('max_iter', 'at the iteration limit'), ('unconverged', 'unconverged'),
                ('stagnated', 'stagnated'), ('ray_termination', 'on a ray'),
                ('singular_pivot', 'on a singular pivot'), ('breakdown', 'on a breakdown'),
                ('not_finite', 'not finite'), ('time_limit', 'on the time limit'),
                ('failed', 'failed'), ('error', 'on an error'), ('other', 'on another status')]
# the rows of a single-line \\scriptsize table one float holds (8 pt a row, a page's text
# height of about 680 pt less the caption and rules); a longer table is split
FLOAT_ROWS = 64
#: lcplab's solvers beside the engines in the fidelity engines' table, at the peers' iterations
FID_ENGINE_SOLVERS = ('pgs', 'nsgs', 'nsn_ac', 'lemke')
# a per-class statement needs a class this large, with this many problems
# whose best time is at least SLOW_S: below, the profiles rank call overhead
# and a handful of wins (issue 65, point 6)
CLASS_MIN_PROBLEMS, CLASS_MIN_SLOW, SLOW_S = 10, 5, 1e-3
# the literature's measures reported beside res_scaled (docs/convergence.md)
LIT_MEASURES = [('siconos_err', 'Siconos\' LCP error $\\|x-\\Mid(\\ell,h,x-w)\\|_2/\\|b\\|_2$'),
                ('err_siconos', 'Siconos\' FC3D error $\\|F\\|_2/\\max(\\|b\\|_2,\\|x\\|_2,\\|w\\|_2)$'),
                ('res_rel_1q', '$\\|F\\|_2/(1+\\|b\\|_2)$~\\cite{acary2018}')]
# The failure policy's energy rule (docs/dynamics.md, "Judging a failed solve"),
# said where drift.csv's on_failure line names it.
ENERGY_RULE = (', unless its impulses would add more energy than the run\'s drift scale beyond what gravity, '
               'loads, motors and springs gave it: then it is a failed step (the \\emph{energy rule})')

POLICY = {
    'keep': 'a step applies the solver\'s iterate unless it is worse than no impulse, which ends the run',
    'stop': 'a failed step ends the run',
    'best': 'a failed step applies the best of the solver\'s iterate, the warm start and the '
            'projection of zero',
}


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


def classes_of(rows):
    seen = []
    for r in rows:
        if r['class'] not in seen:
            seen.append(r['class'])
    return sorted(seen, key=lambda c: CLASS_ORDER.index(c) if c in CLASS_ORDER else 99)


def collection(rows):
    probs = {}
    for r in rows:
        probs.setdefault(r['problem'], r)
    return probs


def count_word(k):
    return WORDS[k] if 0 <= k < len(WORDS) else str(k)


def passes(v, default=1):
    """A `replicates` value (the passes over a timed set), default when absent."""
    x = num(v)
    return default if math.isnan(x) else int(x)


def plural(k, one, many=None):
    return '%s %s' % (count_word(k), one if k == 1 else (many or one + 's'))


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


def re_floats(s):
    return re.findall(r'\d+\.\d+', s)


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


def sci_words(s):
    """The numbers of a text in C's exponent notation (a params line's 1e-9)
    typeset: $10^{-9}$, $2.5\\times10^{-3}$."""
    def one(m):
        e = int(m.group(2))
        return '$10^{%d}$' % e if m.group(1) == '1' else '$%s\\times10^{%d}$' % (m.group(1), e)
    return re.sub(r'(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])', one, s)


def upfirst(s):
    return s[:1].upper() + s[1:]


def unconverged(r):
    """Steps of a run that ended on the iteration limit or unconverged."""
    return int(num(r['max_iter'])) + int(num(r.get('unconverged') or 0))


def short_most(r):
    n = int(num(r['steps']))
    return n > 0 and 2 * unconverged(r) > n


def class_support(rows, tol):
    """Per class of a problem section's rows at tol: (problems, problems whose
    best converged time is at least SLOW_S, 1 if a per-class statement may
    be made)."""
    best, cls = {}, {}
    for r in rows:
        if r.get('tol') and num(r['tol']) != num(tol):
            continue
        cls[r['problem']] = r['class']
        t = num(r.get('time_s'))
        if r.get('status') == 'converged' and not math.isnan(t):
            best[r['problem']] = min(best.get(r['problem'], t), t)
    out = {}
    for p, c in cls.items():
        n, slow, _ = out.get(c, (0, 0, 0))
        out[c] = (n + 1, slow + (best.get(p, 0.0) >= SLOW_S), 0)
    return {c: (n, k, int(n >= CLASS_MIN_PROBLEMS and k >= CLASS_MIN_SLOW)) for c, (n, k, _) in out.items()}


def too_small(name, sup):
    """The sentence for a class too small for a statement."""
    n, slow, _ = sup
    return 'the %s class (%d problem%s, %s with a best time of 1\\,ms or more) is too small for a statement' % (
        name, n, '' if n == 1 else 's', 'none' if not slow else '%d' % slow)


def last_rows(rows):
    last = {}
    for r in rows:
        if not r['step']:
            continue
        k = (r['scene'], r['solver'], r['integrator'], r['friction'])
        if k not in last or int(r['step']) >= int(last[k]['step']):
            last[k] = r
    return last


class Paper:
    """One results folder (RESULTS_DIR) and the generated files it gives
    (GEN_DIR): the tables several sections share are read once here."""

    def __init__(self, res, gen):
        self.res, self.gen = res, gen
        self.texts = self.load_tex()
        self.externals = self.externals_declared()
        self.nums = ''
        self.pre, self.prof = self.read('profile.csv')
        tie = self.pre.get('tie_tolerance', '').split()
        self.tie_f = num(tie[0]) if tie else float('nan')
        if math.isnan(self.tie_f):
            sys.exit('gen.py: %s/profile.csv has no tie_tolerance in its preamble' % res)
        # the problem sets: the profile's, and the large and scaling ones when run
        self.sets = [('profile', self.prof)]
        if self.have('large.csv'):
            self.sets.append(('large', self.read('large.csv')[1]))
        if self.have('scaling.csv'):
            self.sets.append(('scaling', self.read('scaling.csv')[1]))
        # every section with problems: the title's count and the collection table
        self.all_sets = list(self.sets)
        for name in ('convergence', 'peers_lcp', 'peers_fc3d'):
            if self.have(name + '.csv'):
                self.all_sets.append((name, [r for r in self.read(name + '.csv')[1] if r.get('n')]))
        self.plan = self.campaign_tsv('problems.tsv')
        self.plan_solvers = self.campaign_tsv('solvers.tsv')
        self.lcp_solvers = [s for s in dict.fromkeys(r['solver'] for r in self.prof)
                            if not self.is_peer(s)]
        self.peers = [s for s in dict.fromkeys(r['solver'] for r in self.prof) if self.is_peer(s)]
        # the profile's two tolerances: the winners, the leaders, the failures
        # at the first, the coverage
        self.winners_a = self.winners_table('profile_winners.csv', 0)
        self.winners_b = self.winners_table('profile_winners.csv', 1)
        _, self.tolA, self.wrows, self.same = self.winners_a
        _, self.tolB, _, _ = self.winners_b
        self.leaders = self.read('profile_leaders.csv')[1]
        # which classes may carry a statement (class_support)
        self.support = class_support(self.prof, self.tolA)
        self.flA = [r for r in self.read('profile_failures.csv')[1] if r['tol'] == self.tolA]
        self.cov = self.read('profile_coverage.csv')[1]
        # the scaling fits
        self.sl = self.read('scaling_slopes.csv')[1]
        self.scpre, self.sc = self.read('scaling.csv')
        self.fit = [r for r in self.sl if not math.isnan(num(r['slope']))]
        self.fams = list(dict.fromkeys(r['family'] for r in self.fit))
        # the scene runs (the steps tables) and the accuracy experiment's steps
        self.scene_rows = [('drift', r) for r in self.steps_rows('drift_steps.csv')] + \
                          [('accuracy', r) for r in self.steps_rows('accuracy_steps.csv')]
        self.ac = [r for r in self.read('accuracy.csv')[1] if r['step']]

    def run(self):
        """Every generated file, numbers.tex last."""
        for section in (self.provenance, self.collection_table, self.peers_abstract, self.protocol,
                        self.lists, self.winners, self.noise, self.leaders_text, self.failures,
                        self.coverage, self.classes, self.timings, self.large, self.scaling,
                        self.convergence, self.scenes, self.failures_text, self.scenes_intro_text,
                        self.integrators, self.peers_text, self.peers_side, self.fidelity,
                        self.conclusion_text):
            section()
        self.nums += macro('SolverParamsRef', self.solver_params_ref())
        self.nums += macro('SampleNote', self.sample_note())
        self.nums += macro('ClassVerdicts', self.class_verdicts())
        self.nums += macro('DriftAliases', self.aliases_note('drift.csv'))
        self.nums += macro('AccuracyAliases', self.aliases_note('accuracy.csv'))
        self.nums += macro('ConvergenceAliases', self.aliases_note('convergence.csv'))
        self.write('numbers.tex', self.nums)
        self.articulated()

    def aliases_note(self, name):
        """The figure caption's sentence on identical algorithms drawn once
        (trace_aliases: what build.sh's --merge-traces left out), or ''."""
        path = os.path.join(self.res, name)
        alias = trace_aliases(path)
        part = {}  # identical in some of the run groups only: (a, b) -> groups
        for (g, b), a in group_aliases(path).items():
            if alias.get(b) != a:
                part[(a, b)] = part.get((a, b), 0) + 1
        if not alias and not part:
            return ''
        bases = list(dict.fromkeys(alias.values()))
        t = ''
        if bases:
            t = ' Identical traces are drawn once, under the first name: %s.' % series([
                '%s for %s' % (self.tt(a), series([self.tt(a)] + [self.tt(b) for b, x in alias.items() if x == a]))
                for a in bases])
        if part:
            t += (' Where two traces are identical on some runs only, the second is drawn there under the first\'s '
                  'name: %s.' % series(['%s under %s on %s' % (self.tt(b), self.tt(a), plural(n, 'run'))
                                        for (a, b), n in sorted(part.items())]))
        return t + ' '

    # ---- the results folder ----------------------------------------------------------------

    def load_tex(self):
        """Every text of the results folder with its LaTeX form, as the library
        wrote them (NAME_tex.csv beside each NAME.csv)."""
        texts = {}
        for name in sorted(os.listdir(self.res)):
            if name.endswith('_tex.csv'):
                with open(os.path.join(self.res, name), newline='') as fh:
                    for r in csv.DictReader(l for l in fh if not l.startswith('#')):
                        texts[r['text']] = r['tex']
        return texts

    def tex(self, s):
        """The LaTeX form of a text of the results: as the library wrote it
        (NAME_tex.csv), else as the library writes it (`lcplab tex`, the one
        escaper, exp_tex_escape); a number needs none."""
        s = str(s)
        if not s or s in self.texts:
            return self.texts.get(s, s)
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
        self.texts[s] = r.stdout.rstrip('\n')
        return self.texts[s]

    def tt(self, s):
        return '\\texttt{%s}' % self.tex(s)

    def have(self, name):
        return os.path.exists(os.path.join(self.res, name))

    def read(self, name):
        pre, body = {}, []
        with open(os.path.join(self.res, name), newline='') as fh:
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

    def write(self, name, text):
        with open(os.path.join(self.gen, name), 'w') as fh:
            fh.write(text)

    def table_floats(self, caption, label, spec, head, rows, sep='3pt'):
        """A table as table* floats: one, or when its rows are more than a page
        holds (FLOAT_ROWS), parts of about equal length, the first with the
        caption and label, the others under the same number, continued."""
        n = max(1, -(-len(rows) // FLOAT_ROWS))
        size = max(1, -(-len(rows) // n))
        t = ''
        for k in range(n):
            cap = ('\\caption{%s}\n  \\label{%s}\n' % (caption, label) if k == 0 else
                   '\\addtocounter{table}{-1}\\caption{Table~\\ref{%s}, continued (part %d of %d).}\n' % (
                       label, k + 1, n))
            t += ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  %s  \\setlength{\\tabcolsep}{%s}\n'
                  '\\begin{tabular}{%s}\n\\toprule\n%s \\\\\n\\midrule\n%s\\bottomrule\n\\end{tabular}\n'
                  '\\end{table*}\n' % (cap, sep, spec, head, ''.join(rows[k * size:(k + 1) * size])))
        return t

    def externals_declared(self):
        """The external solvers the campaign declared (its plan.exp's `external
        NAME ...` lines): the peers."""
        path = os.path.join(self.res, 'campaign', 'plan.exp')
        if not os.path.exists(path):
            return set()
        with open(path) as fh:
            return {l.split()[1] for l in fh if l.startswith('external ') and len(l.split()) > 1}

    def is_peer(self, s):
        return s in self.externals

    def campaign_tsv(self, name):
        """The rows of the plan's campaign/NAME (a '# ' header line of column
        names, then tab-separated rows), as the campaign wrote them; an empty
        list when the results folder has no campaign or an older one without it.
        problems.tsv: section, label, family, class, n, nnz, contacts, cond_est,
        mu_min, mu_max, origin, path; solvers.tsv: solver, sections, summary,
        params, cite (the registry's)."""
        path = os.path.join(self.res, 'campaign', name)
        if not os.path.exists(path):
            return []
        with open(path, newline='') as fh:
            lines = [l for l in fh if l.strip()]
        head = lines[0].lstrip('#').split()
        return [dict(zip(head, l.rstrip('\n').split('\t'))) for l in lines[1:]]

    def plan_of(self, section, label):
        return next((p for p in self.plan if p['section'] == section and p['label'] == label), {})

    def contacts_of(self, section, r):
        """The problem's contacts: the CSV's column, else the plan's."""
        v = num(r.get('contacts'))
        if math.isnan(v):
            v = num(self.plan_of(section, r['problem']).get('contacts'))
        return None if math.isnan(v) else int(v)

    def preamble(self, name):
        """The '#' lines that open a section's CSV (NAME.csv), in order."""
        out = []
        with open(os.path.join(self.res, name + '.csv')) as fh:
            for line in fh:
                if not line.startswith('#'):
                    break
                out.append(line)
        return out

    def config_lines(self, name, key):
        """The configuration lines `key ...` of a section, as run (its CSV's preamble)."""
        head = '# config> %s ' % key
        return [line[len(head):].strip() for line in self.preamble(name) if line.startswith(head)]

    def world_lines(self, name):
        """The `# world:` lines of a scene section (the settings each scene ran
        with, as the library wrote them): {config line: {key: value}}."""
        out = {}
        for line in self.preamble(name):
            m = re.match(r'# world: line (\d+) (\S+): (.*)', line)
            if m and '=' in m.group(3):
                out[int(m.group(1))] = dict(kv.split('=', 1) for kv in m.group(3).split())
        return out

    def config_scene_lines(self, name):
        """The scene lines of a section with their line numbers in the file."""
        pre = {}
        for line in self.preamble(name):
            m = re.match(r'# config: .* \(lines (\d+)-\d+\)', line)
            if m:
                pre['first'] = int(m.group(1))
                pre['k'] = pre['first'] - 1
            elif line.startswith('# config> ') and 'first' in pre:
                pre['k'] += 1
                if line.startswith('# config> scene '):
                    pre.setdefault('lines', []).append((pre['k'], line[len('# config> scene '):].strip()))
        return pre.get('lines', [])

    def steps_rows(self, name):
        if not self.have(name):
            return []
        return self.read(name)[1]

    def csv_rows(self, name):
        return self.read(name)[1] if self.have(name) else []

    # ---- provenance ------------------------------------------------------------------------
    def provenance(self):
        """provenance.tex (the profile CSV's preamble) and its macros."""
        t = '\\begin{tabular}{@{}l>{\\raggedright\\arraybackslash}p{0.74\\textwidth}@{}}\n\\toprule\n'
        for k, lab in PROV_KEYS:
            if k in self.pre:
                # the library's preamble names a section's table NAME_...: here, the profile's
                t += '%s & %s \\\\\n' % (lab, self.tex(self.pre[k].replace('NAME_', 'profile_')))
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('provenance.tex', t)
        self.nums += macro('ProvRev', self.tex(self.pre['rev']) if 'rev' in self.pre else 'unknown')
        self.nums += macro('ProvCPU', self.tex(self.pre['cpu']) if 'cpu' in self.pre else 'unknown')
        self.nums += macro('ProvLoad', self.tex(self.pre['load']) if 'load' in self.pre else 'unknown')
        self.nums += macro('TieTol', '%g' % self.tie_f)
        self.nums += macro('TieFactor', '%g' % (1 + self.tie_f))

    # ---- the problem collection ------------------------------------------------------------
    def collection_table(self):
        """collection.tex (per set and class: problems, sizes, nnz, contacts) and
        the counts of problems, classes and solvers."""
        t = ('\\begin{tabular}{@{}llrrrrr@{}}\n\\toprule\nset & class & problems & $n$ min & $n$ max & '
             'nnz max & contacts max \\\\\n\\midrule\n')
        nmax = 0
        for name, rows in self.all_sets:
            pr = collection(rows)
            for c in classes_of(rows):
                ps = [r for r in pr.values() if r['class'] == c]
                ns = [int(num(r['n'])) for r in ps]
                nz = [int(num(r.get('nnz'))) for r in ps if not math.isnan(num(r.get('nnz')))]
                ct = [k for k in (self.contacts_of(name, r) for r in ps) if k is not None]
                t += '%s & %s & %d & %d & %d & %s & %s \\\\\n' % (
                    self.tex(name), CLASS_NAME.get(c) or self.tex(c), len(ps), min(ns), max(ns),
                    max(nz) if nz else '', max(ct) if ct else '')
                nmax = max(nmax, max(ns))
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('collection.tex', t)
        nclasses = len({r['class'] for _, rows in self.all_sets for r in rows})
        # a problem in two sets (spd_200_s1 in the profile and the scaling) is one problem;
        # every section's problems count (the convergence and the peers' too)
        distinct = {p for _, rows in self.all_sets for p in collection(rows)}
        self.nums += macro('NProblems', len(distinct))
        self.nums += macro('NClasses', nclasses)
        self.nums += macro('NMax', nmax)
        self.nums += macro('NProfileProblems', len(collection(self.prof)))
        self.nums += macro('NProfileRows', len(self.prof))
        algs = self.algorithms()
        self.nums += macro('NSolvers', len(algs))
        self.nums += macro('NSolverNames', len(self.lcp_solvers))
        alike = [a for a in algs if len(a) > 1]
        self.nums += macro('SolverNamesNote', (
            ' (%d registered names: %s run one algorithm each, the same trace on every problem, and count '
            'once)' % (len(self.lcp_solvers), series(['%s' % series([self.tt(x) for x in a]) for a in alike])))
            if alike else '')
        self.nums += macro('NPeers', len(self.peers))
        self.nums += macro('HavePeers', '1' if self.peers else '0')
        ndis = len(self.csv_rows('profile_disagreements.csv'))
        self.nums += macro('ProfilePeersNote', (' The peers are external programs judged by the same '
                                                'residual.' if self.peers else '') + (
            ' A row whose solver\'s own verdict is not the judge\'s (%s, Table~\\ref{tab:disagree}) counts as '
            'unsolved for that solver; the problem stays for every other solver.' % plural(ndis, 'row')
            if ndis else ''))

    def algorithms(self):
        """lcplab's solvers of the profile as distinct algorithms: names the
        engine made one entry (`a=b`, the same trace on every problem of a
        class) in every class and tolerance where they ran are one algorithm
        (issue 65, point 4); each a list of names, in the profile's order."""
        _, w = self.read('profile_winners.csv')
        sig = {}
        for r in w:
            for x in r['solver'].split('='):
                sig.setdefault(x, set()).add(r['solver'])
        groups = {}
        for s in self.lcp_solvers:
            groups.setdefault(frozenset(sig.get(s, {s})), []).append(s)
        return list(groups.values())

    def peers_abstract(self):
        """abstract_peers.tex and peers_run.tex: the peers that ran, if any."""
        ran = self.peers_ran()
        probs, scenes = self.peer_problems()
        self.write('abstract_peers.tex', (
            'In the same campaign %s of other libraries, run as external programs, meet \\lcp\'s solvers '
            'side by side on %s judged by the same residual%s (Section~\\ref{sec:peers}).' % (
                plural(len(ran), 'peer'), plural(len(probs), 'problem'),
                (' and in %s' % plural(len(scenes), 'scene')) if scenes else '')) if ran else '')
        gone = [x for x in self.absent_externals() if x not in ran]
        t = ('This campaign ran %s: %s.' % (plural(len(ran), 'peer'), ', '.join(self.tt(s) for s in ran))
             if ran else 'No peer ran in this campaign.')
        if gone:
            t += ' Declared in its experiment file but absent from this machine, and so left out: %s.' % (
                series([self.tt(x) for x in gone]))
        self.write('peers_run.tex', t)

    def peers_ran(self):
        """The peers that ran in any section (externals with rows), in order."""
        out = []
        for name in ('profile', 'peers_lcp', 'peers_fc3d') + tuple(self.scene_sections()):
            if self.have(name + '.csv'):
                out += [s for s in dict.fromkeys(r['solver'] for r in self.read(name + '.csv')[1])
                        if self.is_peer(s) and s not in out]
        return out

    def peer_problems(self):
        """The distinct problems and scenes of the peers' own sections."""
        probs = {r['problem'] for n in ('peers_lcp', 'peers_fc3d') if self.have(n + '.csv')
                 for r in self.read(n + '.csv')[1]}
        # a full campaign runs its peers in the profile sections themselves
        probs |= {r['problem'] for n in ('profile', 'large') if self.have(n + '.csv')
                  for r in self.read(n + '.csv')[1] if self.is_peer(r['solver']) and r['status'] != 'refused'}
        scenes = {r['scene'] for r in self.scene_peer_rows()}
        return probs, scenes

    # ---- the protocol as run: the problems and the timing rule ------------------------------
    def protocol(self):
        """protocol.tex: the problems and timing paragraphs."""
        self.write('protocol.tex', self.problems_paragraph() + self.timing_paragraph())

    def generated_clause(self, ps):
        fams = {}
        for p in ps:
            fams.setdefault(p['family'], []).append(p)
        parts = []
        for f, fp in fams.items():
            ns = {int(num(p['n'])) for p in fp}
            sd = {seeds_of(p['label']) for p in fp} - {None}
            parts.append('%s ($n=%s$%s)' % (self.tt(f), ranges(ns),
                                             ', %s' % plural(len(sd), 'seed') if len(sd) > 1 else ''))
        return '%s generated (%s)' % (count_word(len(ps)), series(parts))

    def files_clause(self, ps):
        """k of the m files of each shared folder the problems were read from."""
        dirs = {}
        for p in ps:
            dirs.setdefault(os.path.dirname(p['path']), []).append(p)
        parts = []
        for d, dp in dirs.items():
            ext = os.path.splitext(dp[0]['path'])[1]
            there = [f for f in os.listdir(d) if f.endswith(ext)] if os.path.isdir(d) else []
            where = self.tt('/'.join(d.split('/')[-2:]))
            parts.append(('%d of the %d %s files of %s' % (len(dp), len(there),
                                                           self.tex(ext.lstrip('.')), where))
                         if there else '%d from %s' % (len(dp), where))
        return '%d files read in place (%s)' % (len(ps), series(parts))

    def scenes_clause(self, ps):
        return '%d exported from simulated scenes (%s)' % (len(ps), ', '.join(self.tt(p['label']) for p in ps))

    def problems_paragraph(self):
        ps = [p for p in self.plan if p['section'] == 'profile']
        if not ps:
            return ''
        parts = []
        for origin, clause in (('generated', self.generated_clause), ('file', self.files_clause),
                               ('scene', self.scenes_clause)):
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

    def timing_rows(self):
        """Each timed section's protocol as run (NAME_timing.csv, one row)."""
        out = []
        for name in TIMED:
            if self.have(name + '_timing.csv'):
                rows = self.read(name + '_timing.csv')[1]
                if rows:
                    out.append((name, rows[0]))
        return out

    def placement_words(self, r):
        """Where the timed tasks ran, in words, from a NAME_timing.csv row."""
        w = int(num(r['workers']))
        cpus = r['cpus'].split()
        if r['placement'] == 'pinned' and w == 1:
            return 'one worker pinned to CPU %s, one timed task at a time' % series(cpus)
        if r['placement'] == 'pinned' and 'one timed task at a time' in self.pre.get('timing', ''):
            return ('%s, each pinned to its own CPU (CPUs %s), one timed task at a time on the machine '
                    '(no other timed task beside it; an untimed drift or accuracy task may run on the '
                    'other CPU)' % (plural(w, 'worker'), series(cpus)))
        if r['placement'] == 'pinned':
            return ('%s, each pinned to its own CPU (CPUs %s), one timed task per CPU at a time' % (
                plural(w, 'worker'), series(cpus)))
        if r['placement'] == 'serial':
            return 'one worker, one timed task at a time'
        return '%s (placement %s)' % (plural(w, 'worker'), self.tex(r['placement']))

    def protocol_sentences(self):
        """The placement, the repeats rule, the noise and the tie of each timed
        section, grouped where sections share them."""
        rows = self.timing_rows()
        if not rows:
            return ''
        place, rules, noise = {}, {}, []
        for name, r in rows:
            place.setdefault(self.placement_words(r), []).append(name)
            prec = re.search(r"median's 95 % interval within ([\d.e+-]+) %", self.read(name + '.csv')[0].get(
                'timing', '') if self.have(name + '.csv') else '')
            rules.setdefault('repeated until at least %s runs totalling at least %g\\,s%s, or until the runs '
                             'total %g\\,s (the budget)' % (
                                 r['min_runs'], num(r['min_time_s']),
                                 ' and the distribution-free 95\\,\\%% interval of their median is within '
                                 '%g\\,\\%% of it' % float(prec.group(1)) if prec else '', num(r['max_time_s'])),
                             []).append(name)
            noise.append((name, r))
        t = 'The timed tasks ran on %s. ' % series(['%s (%s)' % (w, ', '.join(self.tex(n) for n in ns))
                                                    for w, ns in place.items()])
        t += ('Each (solver, problem) pair is solved once to warm up and then %s (one run when the warm-up '
              'alone takes that long); the CSV holds the median, the quartiles and the minimum of the runs. '
              % '; '.join('%s (%s)' % (k, ', '.join(self.tex(n) for n in ns)) for k, ns in rules.items()))
        measured = [(n, r) for n, r in noise if not math.isnan(num(r['noise']))]
        if measured:
            t += ('The noise between the repeats inside one task, the median over the rows with two runs or '
                  'more of the interquartile range of the repeats relative to their median, is %s. ' %
                  series(['%.2f\\,\\%% in %s (%s rows)' % (100 * num(r['noise']), self.tex(n), r['noise_rows'])
                          for n, r in measured]))
        unmeasured = [self.tex(n) for n, r in noise if math.isnan(num(r['noise']))]
        if unmeasured:
            t += 'No row of %s had two runs or more: no noise was measured there. ' % series(unmeasured)
        ties = {}
        have_passes = any(r.get('tie_source') == 'replicates' for _, r in noise)
        for n, r in noise:
            if have_passes and r.get('tie_source') != 'replicates' and r.get('tie_source') in ('noise', 'default'):
                # one tie factor (issue 84): a section without passes of its own is judged with the
                # noise between the profiles' passes (noise_factor), never its repeats' own spread
                ties.setdefault('that of the profiles (the noise between their passes), as its repeats inside '
                                'one task understate the noise', []).append(self.tex(n))
                continue
            how = {'noise': '%s noise within a task, $%g$' % ('%s', num(r['tie'])),
                   'replicates': 'the noise between %s independent passes over the timed set, $%g$' % (
                       count_word(passes(r.get('replicates'), 2)), num(r['tie'])),
                   'default': 'the default, $%g$, as no noise was measured' % num(r['tie'])}
            ties.setdefault(how.get(r['tie_source'], 'set by the section, $%g$' % num(r['tie'])),
                            []).append(self.tex(n))
        rep = [(n, r) for n, r in noise if r.get('tie_source') == 'replicates']
        if rep:
            how = ('interleaved with the first (after a timed task of the first pass the next is a later '
                   'pass\'s), each pass in its own shuffled order' if 'interleaved' in self.pre.get('timing', '')
                   else 'each pass in its own shuffled order after every section\'s own tasks (another time, '
                   'another order)')
            t += ('The timed set of %s ran %s, %s; a (problem, solver, tolerance) timed converged in two '
                  'passes gives the ratio of its two times: %s. ' % (
                      series([self.tex(n) for n, _ in rep]),
                      series(sorted({plural(int(num(r['replicates'])), 'time') for _, r in rep})), how,
                      series(['in %s, over %s such cells, half differ by less than a factor %.3f and 90\\,\\%% '
                              'by less than %.3f' % (self.tex(n), r['replicate_cells'],
                                                    1 + num(r['replicate_noise_median']), 1 + num(r['replicate_tie']))
                              for n, r in rep])))
        t += self.speed_sentence(noise)
        t += 'The tie tolerance (Section~\\ref{sec:ties}) of %s. ' % series([
            '%s is %s' % (series(ns), (w % ('its' if len(ns) == 1 else 'each one\'s')) if '%s' in w else w)
            for w, ns in ties.items()])
        return t

    def speed_sentence(self, noise):
        """The layout and speed rules of the timed runs (libexperiment/task.c, speed.c) and, per
        section, the checks of the CPU's speed from its timing CSV."""
        checked = [(n, r) for n, r in noise if int(num(r.get('speed_checks', '0')) or 0) > 0]
        if not checked:
            return ''
        return ('Each timed run of an lcplab solver (a peer times itself in its own process) starts with '
                'the stack moved by another multiple of 16 bytes within a '
                'page, so that a task\'s runs meet every alignment of the stack against the problem\'s '
                'arrays. Between blocks of about 2\\,ms '
                'of timed runs a reference loop over 64\\,KB checks the CPU\'s speed; the runs of a block '
                'after which it ran more than 3\\,\\%% slower than its fastest are made again, unless '
                'the slow spell, or the row\'s runs made again, have lasted a second, or slow is the '
                'worker\'s usual (more than half of its checks, once it has made 256, found the CPU '
                'slow), when they are kept: %s. ' % series([
                    'in %s, %s of %s checks found the CPU slow (runs made again: %s; kept though '
                    'slow: %s)' % (self.tex(n), r['slow_checks'], r['speed_checks'], r['runs_again'],
                                     r['runs_kept_slow']) for n, r in checked]))

    def timing_paragraph(self):
        limits = {}
        for name in TIMED:
            if not self.have(name + '.csv'):
                continue
            lim = self.read(name + '.csv')[0].get('time_limit_s', '').split(' ')[0]
            if lim:
                limits.setdefault(lim, []).append(self.tex(name))
        t = self.protocol_sentences()
        if not t:
            return ''
        t = '\\paragraph{Timing.} ' + t
        runs = []
        for name, rows in self.sets:
            runs += [int(num(r['repeats'])) for r in rows if r.get('status') == 'converged' and
                     not math.isnan(num(r.get('repeats'))) and
                     r.get('time_source', 'library') in ('library', '')]
        if runs:
            runs.sort()
            t += ('The %d timed rows of converged runs have %d to %d runs, %g at the median. ' %
                  (len(runs), runs[0], runs[-1], lcplab.quantile(runs, 0.5)))
        cap = re.search(r'at most (\d+) runs', self.pre.get('timing', ''))
        if cap:
            t += 'A row stops at %s runs whatever its times. ' % '{:,}'.format(int(cap.group(1))).replace(',', '\\,')
        t += 'Each solve has a time limit of %s. ' % series(
            ['%s\\,s (%s)' % (v, ', '.join(n)) for v, n in limits.items()])
        t += 'The solvers are single-threaded and the BLAS uses one thread. '
        cores = num(self.pre.get('cores'))
        loads = [float(x) for x in re_floats(self.pre.get('load', ''))]
        if loads and not math.isnan(cores):
            t += ('The 1-minute load average of the machine was %.1f to %.1f on its %d cores during the '
                  'run%s (Table~\\ref{tab:prov}).' % (min(loads), max(loads), int(cores),
                                                      ': the machine was shared with other work, and the '
                                                      'times carry that load' if max(loads) > cores else ''))
        return t + '\n\n'

    def lists(self):
        """The problems, scenes, run parameters and solver parameters tables."""
        self.write('problemlist.tex', self.problem_list())
        self.write('scenetable.tex', self.scene_table())
        self.write('runparams.tex', self.run_parameters())
        self.write('solverparams.tex', self.solver_params())
        self.write('solvers.tex', self.registry_table())
        self.write('generators.tex', self.generators_table())
        lit = self.measures_table()
        self.write('measures.tex', lit)
        self.nums += macro('LitRef', ' Table~\\ref{tab:lit} counts the runs where they and the judge disagree.'
                           if lit else '')

    def problem_list(self):
        """Every problem of the profiles (the plan's problems.tsv): name, origin,
        class, n, contacts, the friction coefficients and the 1-norm condition
        estimate of A."""
        ps = [p for p in self.plan if p['section'] == 'profile']
        if not ps:
            return ''
        rows = []
        for p in sorted(ps, key=lambda p: (CLASS_ORDER.index(p['class']) if p['class'] in CLASS_ORDER
                                           else 99, int(num(p['n'])))):
            k = num(p['cond_est'])
            cond = ('$%s$' % sci(k)) if not math.isnan(k) and not math.isinf(k) else (
                'singular' if math.isinf(k) else '')
            rows.append('%s & %s & %s & %s & %s & %s & %s & %s \\\\\n' % (
                self.tt(p['label']), self.tex(p['origin']), self.tex(p['family']), self.tex(p['class']), p['n'],
                p['contacts'], mu_text(p), cond))
        return self.table_floats(
            'The problems of the profiles (\\texttt{campaign/problems.tsv}): origin, family, class, size, contacts, '
            'the friction coefficient $\\mu$ (its range over the contacts; none: a problem without friction) and '
            'the 1-norm condition estimate of $A$ (Table~\\ref{tab:prov}).', 'tab:plist', '@{}llllrrlr@{}',
            'problem & origin & family & class & $n$ & contacts & $\\mu$ & $\\kappa_1(A)$', rows)

    def solver_params(self):
        """Every solver the campaign ran, in the order its sections name them,
        with the constants and rules it runs with by default (the plan's
        solvers.tsv: each solver's params line in libsolvers)."""
        if not self.plan_solvers:
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
        for p in self.plan_solvers:
            t += '%s & %s \\\\\n' % (self.tt(p['solver']), sci_words(self.tex(p['params'])))
        return t + '\\bottomrule\n\\end{tabular}\n\\end{table*}\n'

    def registry(self):
        """Every registered solver, as the registry describes it (`lcplab
        solvers --json`: name, summary, cite)."""
        lcp = os.environ.get('LCPLAB', 'lcplab')
        try:
            r = subprocess.run([lcp, 'solvers', '--json'], capture_output=True, text=True)
        except OSError as e:
            sys.exit('gen.py: cannot run %s solvers --json: %s' % (lcp, e))
        if r.returncode != 0:
            sys.exit('gen.py: %s solvers --json failed: %s' % (lcp, r.stderr.strip()))
        return json.loads(r.stdout)

    def bib_keys(self):
        with open(os.path.join(SRCDIR, 'docs', 'references.bib')) as fh:
            return set(re.findall(r'^@\w+\{([^,\s]+),', fh.read(), re.M))

    def registry_table(self):
        """tab:solvers: every registered solver with the registry's summary and
        reference and the sections it ran in (the campaign's solvers.tsv,
        else none): the paper's one description of each solver."""
        ran = {p['solver']: p.get('sections', '') for p in self.plan_solvers}
        keys = self.bib_keys()
        t = ('\\begin{table*}[tbp]\n\\centering\\scriptsize\n\\caption{Every solver of the registry of the '
             'build that ran (\\texttt{lcplab solvers --json}): its own summary and reference, and the sections '
             'of this campaign it ran in. Section~\\ref{sec:solvers} groups them by method; '
             '\\SolverParamsRef\\ gives their parameters.}\n\\label{tab:solvers}\n'
             '\\setlength{\\tabcolsep}{3pt}\n\\begin{tabular}{@{}l>{\\raggedright\\arraybackslash}'
             'p{0.62\\textwidth}l>{\\raggedright\\arraybackslash}p{0.16\\textwidth}@{}}\n\\toprule\n'
             'solver & what it is (the registry\'s summary) & ref. & ran in \\\\\n\\midrule\n')
        for d in self.registry():
            cite = ','.join(k for k in d.get('cite', '').replace(' ', ',').split(',') if k in keys)
            t += '%s & %s & %s & %s \\\\\n' % (self.tt(d['name']), sci_words(self.tex(d.get('summary', ''))),
                                             '\\cite{%s}' % cite if cite else '',
                                             self.tex(ran.get(d['name'], '')) or 'no section')
        return t + '\\bottomrule\n\\end{tabular}\n\\end{table*}\n'

    def doc_cell(self, cell):
        """A cell of a Markdown table of the project's docs in LaTeX: `code`
        as \\texttt, the rest escaped by the library, the docs' Unicode
        signs as math."""
        out = ''
        for i, part in enumerate(cell.replace('\\|', '|').split('`')):
            if not part:
                continue
            if i % 2:
                out += self.tt(part)
                continue
            text = self.tex(part.strip()) if part.strip() else ''
            out += (' ' if part[:1] == ' ' else '') + text + (' ' if part[-1:] == ' ' and part.strip() else '')
        for u, l in UNICODE_TEX:
            out = out.replace(u, l)
        return out.strip()

    def generators_table(self):
        """tab:gen: every family of the generator, from its own documentation
        (datasets/INSTANCES.md's table), with the campaign's generated
        problems of each."""
        path = os.path.join(SRCDIR, 'datasets', 'INSTANCES.md')
        if not os.path.exists(path):
            return ''
        with open(path) as fh:
            rows = [l.strip() for l in fh if l.startswith('| `')]
        used = {}
        for p in self.plan:
            if p.get('origin') == 'generated':
                used.setdefault(p['family'], set()).add(p['label'])
        listed = {p['label'] for p in self.plan if p['section'] == 'profile'}  # Table tab:plist's
        t = ('\\begin{table*}[tbp]\n\\centering\\scriptsize\n\\caption{The generated families, as the '
             'generator documents them (\\texttt{datasets/INSTANCES.md}, ``Bundled instances\'\'; '
             '\\texttt{lcplab generate}): kind, matrix, bounds, right-hand side, planted solution, and the '
             'problems of this campaign from each. A problem\'s contacts (Table~\\ref{tab:plist}) count its '
             'frictional contacts: Coulomb cones, findex triples or the contacts of a scene\'s pyramid LCP; '
             'the normal rows of \\texttt{contact} and \\texttt{sparse-contact} (one per contact, no '
             'friction) count none.}\n\\label{tab:gen}\n\\setlength{\\tabcolsep}{2pt}\n'
             # the page's width; the problems' column takes what the others leave
             '\\begin{tabularx}{\\textwidth}{@{}l>{\\raggedright\\arraybackslash}p{0.07\\textwidth}'
             '>{\\raggedright\\arraybackslash}p{0.2\\textwidth}>{\\raggedright\\arraybackslash}p{0.17\\textwidth}'
             '>{\\raggedright\\arraybackslash}p{0.14\\textwidth}l>{\\raggedright\\arraybackslash}'
             'X@{}}\n\\toprule\nfamily & kind & $A$ & bounds & $b$ & $x_{\\mathrm{ref}}$ & '
             'problems here \\\\\n\\midrule\n')
        for line in rows:
            cells = [c.strip() for c in re.split(r'(?<!\\)\|', line.strip('|'))]
            if len(cells) < 6:
                continue
            fam = cells[0].strip('`')
            t += '%s & %s & %s & %s & %s & %s & %s \\\\\n' % (
                tuple(self.doc_cell(c) for c in cells[:6]) + (self.problems_cell(sorted(used.get(fam, ())), listed),))
        return t + '\\bottomrule\n\\end{tabularx}\n\\end{table*}\n'

    def problems_cell(self, names, listed):
        """A family's problems in the generators' table: each one when they are
        few, else the count of those the problems' table lists (the profiles',
        with their family; issue 84: the count is that table's) and of the
        other sections' apart."""
        if not names:
            return 'none'
        if len(names) <= 6:
            return ', '.join(self.tt(x) for x in names)
        inl = [x for x in names if x in listed]
        rest = [x for x in names if x not in listed]
        parts = ['%s (Table~\\ref{tab:plist})' % plural(len(inl), 'problem')] if inl else []
        if rest:
            parts.append((', '.join(self.tt(x) for x in rest) if len(rest) <= 4 else plural(len(rest), 'problem'))
                         + ' in other sections')
        return '; '.join(parts)

    def measures_table(self):
        """tab:lit: per tolerance, the runs the judge counts converged and how
        many of them each of the literature's measures would reject (its value
        above the tolerance), over the rows where it is defined."""
        t = ''
        for tol in dict.fromkeys(r['tol'] for r in self.prof):
            conv = [r for r in self.prof if r['tol'] == tol and r.get('status') == 'converged']
            for col, name in LIT_MEASURES:
                have = [r for r in conv if not math.isnan(num(r.get(col)))]
                if not have:
                    continue
                over = [r for r in have if num(r[col]) > num(tol)]
                worst = max(num(r[col]) for r in have)
                t += '$%s$ & %s & %d & %d & %d & %s \\\\\n' % (
                    tolfmt(tol), name, len(conv), len(have), len(over), cellsci(worst))
        if not t:
            return ''
        return ('\\begin{table*}[tbp]\n\\centering\\scriptsize\n\\caption{The literature\'s measures beside '
                'the judge\'s (Section~\\ref{sec:form}, ``Residuals\'\'; \\texttt{profile.csv}\'s columns): of the '
                'profile\'s runs the judge counts converged at each tolerance ($\\mathrm{res}_{\\mathrm{scaled}}'
                '\\le\\mathrm{tol}$), those where the measure is defined and those it would reject (its value above '
                'the tolerance): the disagreements; the largest value among them.}\n\\label{tab:lit}\n'
                '\\begin{tabular}{@{}llrrrr@{}}\n\\toprule\ntol & measure & converged & defined & above tol & '
                'largest \\\\\n\\midrule\n' + t + '\\bottomrule\n\\end{tabular}\n\\end{table*}\n')

    def solver_params_ref(self):
        """Where the solvers' defaults are: the table when solvers.tsv is there."""
        return 'Table~\\ref{tab:solverparams}' if self.plan_solvers else 'Section~\\ref{sec:solvers}'

    def run_parameters(self):
        """Per section: the tolerances, the iteration limit, the repeats rule and
        the time limit as run (the configuration lines of each CSV's preamble)."""
        t = ('\\begin{tabular}{@{}lllllll@{}}\n\\toprule\nexperiment & solvers & tol & max.\\ iter. & '
             'runs & time limit & problems or scenes \\\\\n\\midrule\n')
        n = 0
        for name in ('profile', 'overhead', 'convergence', 'scaling', 'large', 'drift', 'accuracy', 'integrators',
                     'peers_lcp', 'peers_fc3d') + tuple(self.scene_sections()):
            if not self.have(name + '.csv'):
                continue
            p, rows = self.read(name + '.csv')
            solvers = list(dict.fromkeys(r['solver'] for r in rows if r.get('solver')))
            tol = p.get('config tol', '')
            mi = p.get('config max_iter', '')
            if name in ('drift', 'accuracy', 'integrators') or name in self.scene_sections():
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
                if passes(p.get('config replicates')) > 1:
                    rule += ', %s passes' % count_word(passes(p['config replicates']))
            lim = p.get('time_limit_s', '')
            what = len({r.get('problem') or r.get('scene') for r in rows})
            t += '%s & %d & %s & %s & %s & %s & %d \\\\\n' % (
                self.tex(name), len(solvers), ', '.join('$%s$' % tolfmt(x) for x in tol.split()) if tol else '',
                mi, rule, self.tex(lim), what)
            n += 1
        return t + '\\bottomrule\n\\end{tabular}\n' if n else ''

    def dt_text(self, v):
        """A time step as written, 1/N when it is one."""
        x = num(v)
        if x > 0 and abs(1 / x - round(1 / x)) < 1e-3:
            return '1/%d' % round(1 / x)
        return self.tex(v)

    def scene_table(self):
        """Every scene of the scene experiments with its world settings as run
        (the `# world:` lines), the friction models of the section and the
        bodies' masses."""
        # the page's width: the scene and its friction models wrapped
        t = ('\\begin{tabularx}{\\textwidth}{@{}l>{\\raggedright\\arraybackslash}X'
             '>{\\raggedright\\arraybackslash}p{0.1\\textwidth}l' + 'r' * (len(WORLD_COLS) + 1) +
             '@{}}\n\\toprule\nexperiment & scene & '
             'friction & stepped by & ' + ' & '.join(h for _, h in WORLD_COLS) + ' & mass (kg) \\\\\n\\midrule\n')
        n = 0
        for name in ('profile', 'large', 'drift', 'accuracy', 'integrators') + tuple(self.scene_sections()):
            if not self.have(name + '.csv'):
                continue
            worlds = self.world_lines(name)
            frictions = ' '.join(self.config_lines(name, 'friction')) or 'box'
            for ln, line in self.config_scene_lines(name):
                w = worlds.get(ln)
                if not w:
                    continue
                words = line.split()
                fr = [x[len('friction='):] for x in words[1:] if x.startswith('friction=')]
                params = [x for x in words[1:] if not x.startswith(('friction=', 'steps=', 'dt=', 'cone_law='))]
                law = [x[len('cone_law='):] for x in words[1:] if x.startswith('cone_law=')]
                # a problem section's export: the world's own solver, beside its friction model
                fr_cell = self.tex((fr[0] if fr else frictions) + (', %s law' % law[0] if law else ''))
                by_cell = self.tt(w['solver']) if w.get('solver') else ''
                mass = ('%.3g' % num(w['mass_min']) if w['mass_min'] == w['mass_max'] else
                        '%.3g--%.3g' % (num(w['mass_min']), num(w['mass_max'])))
                t += '%s & %s & %s & %s & %s & %s \\\\\n' % (
                    self.tex(name), self.tex(' '.join([words[0]] + params)), fr_cell, by_cell,
                    ' & '.join(self.dt_text(w[k]) if k == 'dt' else self.tex(w.get(k, ''))
                               for k, _ in WORLD_COLS),
                    mass)
                n += 1
        if not n:
            return ''
        return ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The scenes as run: the world '
                'settings each scene ran with, as the library wrote them (the \\texttt{\\# world:} lines of the '
                'CSVs): time step $h$, friction coefficient $\\mu$, restitution $e$, ERP and CFM of the contact '
                'rows, penetration slop and collision margin (m), relaxation $\\omega$ and iterations per step of the '
                'world\'s solver, warm-start factor, dynamic bodies and their masses. The rows of a problem '
                'section (\\texttt{profile}) are the scenes whose steps it exported as problems, with the solver '
                'that stepped the world (\\emph{stepped by}; the other sections step with the solvers they compare).}\n  \\label{tab:scenetab}\n'
                '  \\setlength{\\tabcolsep}{2pt}\n' + t + '\\bottomrule\n\\end{tabularx}\n\\end{table*}\n')

    # ---- winners, ties, identical algorithms ---------------------------------------------------
    def winners(self):
        """winners.tex and winnersB.tex, at the profile's two tolerances."""
        self.write('winners.tex', self.winners_a[0])
        self.write('winnersB.tex', self.winners_b[0])
        ci = bool(self.wrows) and 'fastest_lo' in self.wrows[0]
        self.nums += macro('WinCaptionExtra', (' 95\\,\\% int.: the bootstrap interval of the fastest count '
                                              '(Section~\\ref{sec:ties}).' if ci else '') +
                           (' $\\rho_{\\mathrm{all}}(10)$: the profile with a refusal counted as a failure, over all '
                            'the class\'s problems.' if self.have_rho_all() else ''))
        self.nums += macro('ProfAllSentence', self.prof_all_sentence())
        self.nums += macro('ProfTolA', '$' + tolfmt(self.tolA) + '$')
        self.nums += macro('ProfTolB', '$' + tolfmt(self.tolB) + '$')

    def winners_table(self, name, tol_pick):
        _, w = self.read(name)
        tols = list(dict.fromkeys(r['tol'] for r in w))
        tol = tols[tol_pick] if tol_pick < len(tols) else tols[0]
        rows = [r for r in w if r['tol'] == tol]
        # the winners' problems are those the solver accepted when the table
        # counts refusals apart (its refused column); the wins' bootstrap
        # interval and the profile with refusals counted, when the results have them
        ci = bool(rows) and 'fastest_lo' in rows[0]
        rall = self.rho_all_at(name.replace('_winners.csv', '_profile.csv'), tol, 10.0)
        t = ('\\begin{tabular}{@{}llrrr%srrr%s@{}}\n\\toprule\nclass & solver & %s & solved & '
             'fastest & %stied & $\\rho(2)$ & $\\rho(10)$%s \\\\\n\\midrule\n' % (
                 'r' if ci else '', 'r' if rall else '',
                 'accepted' if rows and 'refused' in rows[0] else 'problems',
                 '95\\,\\% int. & ' if ci else '', ' & $\\rho_{\\mathrm{all}}(10)$' if rall else ''))
        same = []
        for c in classes_of(rows):
            cr = sorted((r for r in rows if r['class'] == c),
                        key=lambda r: (-int(num(r['fastest'])), -int(num(r['solved']))))
            first = True
            for r in cr:
                sname = self.tt(r['solver'])
                if r.get('same_as'):
                    sname += '$^{*}$'
                    same.append((c, r['solver'], r['same_as']))
                t += '%s & %s & %s & %s & %s & %s%s & %.2f & %.2f%s \\\\\n' % (
                    self.tex(c) if first else '', sname, r['problems'], r['solved'], r['fastest'],
                    ('%s--%s & ' % (r['fastest_lo'], r['fastest_hi'])) if ci else '', r['tied'],
                    num(r['rho_2']), num(r['rho_10']),
                    (' & %.2f' % rall[(c, r['solver'])]) if (c, r['solver']) in rall else (' & ' if rall else ''))
                first = False
            t += '\\midrule\n' if c != classes_of(rows)[-1] else ''
        t += '\\bottomrule\n\\end{tabular}\n'
        return t, tol, rows, same

    def prof_all_sentence(self):
        """The profiles with a refusal counted as a failure, beside the others:
        where they differ, and the largest gap between a solver's two shares."""
        if not self.have_rho_all():
            return ''
        _, rows = self.read('profile_profile.csv')
        rows = [r for r in rows if r['tol'] == self.tolA]
        refusing = list(dict.fromkeys(r['class'] for r in rows if int(num(r['refused']) or 0) > 0))
        if not refusing:
            return (' No solver refused a problem of the profiles, so the profiles with a refusal counted as a '
                    'failure are these.')
        gap = max(((num(r['solved_share']) - num(r['solved_share_all']), r) for r in rows
                   if r['class'] in refusing), key=lambda x: x[0])
        r = gap[1]
        return (' Figure~\\ref{fig:profall} draws the profiles of the classes with refusals (%s) again with a refusal '
                'counted as a failure, over all the class\'s problems, so that solvers which accept different problems '
                'compare; the largest difference is %s on the %s problems, which solves %.0f\\,\\%% of the %s '
                'it accepts and %.0f\\,\\%% of all %s.' % (
                    series([CLASS_NAME.get(c) or self.tex(c) for c in refusing]), self.tt(r['solver']),
                    CLASS_NAME.get(r['class']) or self.tex(r['class']), 100 * num(r['solved_share']),
                    plural(int(num(r['problems'])), 'problem'), 100 * num(r['solved_share_all']),
                    int(num(r['problems_all']))))

    def rho_all_at(self, name, tol, tau):
        """{(class, solver): rho_all(tau)} of NAME_profile.csv at tol (the
        profile with a refusal counted as a failure); {} without the column."""
        if not self.have(name):
            return {}
        out = {}
        for r in self.read(name)[1]:
            if 'rho_all' not in r:
                return {}
            if r['tol'] == tol and num(r['tau']) <= tau:
                k = (r['class'], r['solver'])
                out[k] = max(out.get(k, 0.0), num(r['rho_all']))  # rho grows with tau
        return out

    def noise(self):
        """noise.tex and the sentence on the solvers that repeated another's trace."""
        self.write('noise.tex', self.noise_paragraph())
        self.nums += macro('TieAbstract', self.tie_abstract())
        self.nums += macro('TieSource', self.tie_source_sentence())
        self.nums += macro('SameAsSentence', (
            'A solver whose run on a problem repeats another\'s trace (the same status, iteration and pivot '
            'counts and the same $x$, bit for bit) is not a separate winner there: %s; they are '
            'marked $^*$ in the tables and never counted as fastest or tied. Most of these are one algorithm '
            'under two names; on a problem solved in an iteration or two, two algorithms can also meet.'
            % self.same_as_text(self.same)) if self.same else
            'No solver repeated another solver\'s trace on a problem of this run.')

    def profile_timing(self):
        """The profile's NAME_timing.csv row ({} without one)."""
        return dict(self.timing_rows()).get('profile', {})

    def tie_abstract(self):
        """The abstract's clause on ties: the factor and where it comes from."""
        r = self.profile_timing()
        if r.get('tie_source') == 'replicates':
            return ('solvers within a factor %.2f of the fastest, the noise measured between %s independent passes '
                    'over the timed set, are tied, and the wins are counted with 95\\,\\%% bootstrap intervals' %
                    (1 + self.tie_f, count_word(passes(r.get('replicates'), 2))))
        if r.get('tie_source') == 'noise':
            return 'ties within a factor %.3f, the noise between the repeats of one task, are declared as ties' % (
                1 + self.tie_f)
        return 'ties within a factor %g are declared as ties' % (1 + self.tie_f)

    def tie_source_sentence(self):
        """Where the profile's tie factor comes from, and the wins' intervals."""
        r = self.profile_timing()
        if r.get('tie_source') != 'replicates':
            return ''
        t = ('The factor is the noise between passes (Section~\\ref{sec:setup}, ``Timing\'\'): in 90\\,\\%% of the '
             'cells timed converged in two passes, the two times differ by less; the spread of the repeats inside '
             'one task, %.2f\\,\\%%, misses what changes from one moment to another and would make ties that the '
             'next run undoes. ' % (100 * num(r.get('noise'))))
        _, w = self.read('profile_winners.csv')
        if w and 'fastest_lo' in w[0]:
            t += ('Each count of wins carries a 95\\,\\% bootstrap interval (999 resamples of the class\'s '
                  'problems, each time perturbed by a pass-to-pass ratio), printed beside it in '
                  'Table~\\ref{tab:win}; a class\'s fastest is told apart from the others only when the low end of '
                  'its interval is above the high end of every other solver\'s, else its wins are a tie within the '
                  'noise. ')
        return t

    def same_as_text(self, same):
        """Solvers that ran another's loop, grouped: 'a and b ran c's own loop on
        10 lcp and 7 box problems'."""
        per = {}
        for c, s, a in same:
            who, _, cnt = a.partition(' on ')
            per.setdefault((s, who.strip()), []).append('%s %s' % (cnt.strip() or 'all', self.tex(c)))
        groups = {}
        for (s, who), where in per.items():
            groups.setdefault((who, tuple(where)), []).append(s)
        return '; '.join('%s repeated %s\'s trace on %s problem%s' % (
            series([self.tt(x) for x in ss]), self.tt(who), series(list(where)),
            '' if len(where) == 1 and where[0].split()[0] == '1' else 's')
            for (who, where), ss in groups.items())

    def noise_paragraph(self):
        """The times of identical loops on the same problems against the tie
        tolerance: the groups of runs with one trace are the library's
        (profile_same.csv, exp_tab_same_groups_write), converged at the first
        tolerance with two runs or more the library timed; the noise itself
        is NAME_timing.csv's (the Timing paragraph)."""
        t = ''
        same = self.read('profile_same.csv')[1] if self.have('profile_same.csv') else []
        groups = [g for g in same if g['tol'] == self.tolA and g['status'] == 'converged' and
                  int(g['timed']) >= 2]
        ratios = [num(g['time_ratio']) for g in groups]
        if ratios:
            ratios.sort()
            nprob = len({g['problem'] for g in groups})
            t += ('Runs with the same trace on a problem (Section~\\ref{sec:ties}) reach the same answer in the '
                  'same number of iterations: in the %d groups of two solvers or more with one trace on a problem '
                  '(on %d of the %d problems), their median times differ by a factor '
                  'of %.2f at the median and up to %.2f' % (len(ratios), nprob, len(collection(self.prof)),
                                                             lcplab.quantile(ratios, 0.5), ratios[-1]))
            over = sum(1 for x in ratios if x > 1 + self.tie_f)
            t += ('; on %d of them the difference is larger than the tie factor %g of the profile, so at '
                  '$\\tau=1$ runs with the same trace, implemented differently or timed at another moment, can '
                  'rank differently. ' % (over, 1 + self.tie_f) if over else '. ')
        t += self.overhead_sentence()
        return ('\\paragraph{Noise.} ' + t.strip() + '\n\n') if t else ''

    def overhead_times(self):
        """Per solver and kind (lcp, cone) the empty solve's median time from the
        overhead section (overhead.csv: b >= 0, so x = 0 meets the test before
        any iteration); {} without that section."""
        if not self.have('overhead.csv'):
            return {}
        out = {}
        for r in self.read('overhead.csv')[1]:
            if r['status'] == 'converged' and not math.isnan(num(r['time_s'])):
                out.setdefault(r['solver'], {})[r['kind']] = num(r['time_s'])
        return out

    def overhead_sentence(self):
        """The set-up cost named as an overhead, with the empty solves' range per
        kind; '' without the overhead section."""
        ov = self.overhead_times()
        parts = []
        for kind, what in (('lcp', 'an LCP of three rows'), ('cone', 'one Coulomb contact')):
            ts = sorted((v[kind], s) for s, v in ov.items() if kind in v)
            if ts:
                parts.append('from $%s$\\,s (%s) to $%s$\\,s (%s) on %s' % (
                    sci(ts[0][0], 2), self.tt(ts[0][1]), sci(ts[-1][0], 2), self.tt(ts[-1][1]), what))
        if not parts:
            return ''
        return ('Each solver\'s set-up (validation, workspace, residuals) is an \\emph{overhead} of every call, '
                'measured apart and not counted as noise: an empty solve (the \\texttt{overhead} section: '
                '$b \\ge 0$, so $x = 0$ meets the test before any iteration) takes %s (Table~\\ref{tab:timings}, '
                'column \\emph{empty}); on a problem solved in a few microseconds most of a median is that '
                'overhead, so the time ratios of such problems compare set-up costs rather than iterations. ' %
                '; '.join(parts))

    def leaders_text(self):
        """Per class at the first tolerance: the fastest (ties apart) and who
        solves the most (the library's exp_profile_leaders, profile_leaders.csv)."""
        best_txt = []
        for c in classes_of(self.wrows):
            L = self.lead(c, self.tolA)
            if not L or not L['fastest']:
                continue
            if not self.supported(c):
                best_txt.append(too_small(CLASS_NAME.get(c) or self.tex(c), self.support[c]))
                continue
            best_txt.append('on the %s problems (%s), %s is fastest alone on %s%s and tied on %s; %s solves '
                            'the most (%s)' % (CLASS_NAME.get(c) or self.tex(c), L['problems'],
                                               self.tt(L['fastest']), L['fastest_alone'], self.interval_words(L),
                                               L['fastest_tied'], self.tt(L['most_solved'].split()[0]),
                                               L['solved_most']))
        self.nums += macro('WinnersText', '; '.join(best_txt))
        self.nums += macro('NTiedA', sum(int(num(r['ties'])) for r in self.leaders if r['tol'] == self.tolA))

    def interval_words(self, L):
        """A leaders row's bootstrap interval of wins and whether it tells the
        fastest apart (fastest_distinct), in words; '' without them."""
        if not L.get('fastest_lo'):
            return ''
        return (' (95\\,\\%% interval %s--%s: %s)' % (
            L['fastest_lo'], L['fastest_hi'], 'told apart from every other solver' if L.get('fastest_distinct') == '1'
            else 'a tie within the noise, as another solver\'s interval reaches it'))

    def distinct(self, L):
        """0 when the leaders row says its fastest is a tie within the noise."""
        return L.get('fastest_distinct', '1') != '0'

    def supported(self, c):
        """1 if the profile's class c may carry a statement (class_support)."""
        return self.support.get(c, (0, 0, 0))[2]

    def sample_note(self):
        """The first page's sentence: the sample or the study, from the
        experiment file the profile ran from, and how many classes carry a
        statement."""
        cfg = next((os.path.basename(l[len('# config: '):].split(' (')[0]) for l in self.preamble('profile')
                    if l.startswith('# config: ')), '')
        ok = [c for c in classes_of(self.wrows) if self.supported(c)]
        ncl = len(classes_of(self.wrows))
        rule = ('%s A per-class statement is made only for a class of at least %d problems of which at least %d '
                'have a best time of 1\\,ms or more (below that the profiles rank call overhead and a handful '
                'of wins): %s.' % (self.rule_sentence(), CLASS_MIN_PROBLEMS, CLASS_MIN_SLOW,
                                   ('%s of the %s classes of the profiles qualifies' % (
                                       'neither' if ncl == 2 else 'none', count_word(ncl))) if not ok
                                   else '%s of the %s classes qualif%s (%s)' % (
                                       count_word(len(ok)), count_word(ncl), 'ies' if len(ok) == 1 else 'y',
                                       series([CLASS_NAME.get(c) or self.tex(c) for c in ok]))))
        if cfg == 'default.exp':
            return ('\\textbf{This paper is built from a sample:} the main job\'s results '
                    '(\\texttt{experiments/default.exp}, a few minutes of runs), which sample the study of '
                    '\\texttt{experiments/full.exp}; the study\'s paper is \\texttt{make paper CAMPAIGN=DIR} on '
                    'that campaign\'s folder. ' + rule)
        if cfg == 'full.exp':
            return ('\\textbf{This paper is the study:} the full campaign of \\texttt{experiments/full.exp}, '
                    'of which the main job (\\texttt{experiments/default.exp}) is a sample. ' + rule)
        return ('This paper is built from the campaign of \\texttt{%s}. ' % self.tex(cfg or 'an experiment file')) + rule

    def class_verdict(self, c):
        """One qualifying class's result at the first tolerance, as the abstract
        and the conclusion state it: its problems and how many have a best time
        of 1 ms or more, the fastest with its wins' 95 % bootstrap interval (or
        that no solver is told apart within the noise), who solves the most."""
        L = self.lead(c, self.tolA)
        n, slow, _ = self.support[c]
        most = L['most_solved'].split()
        fast = '%s is fastest alone on %s%s' % (self.tt(L['fastest']), L['fastest_alone'], self.interval_words(L))
        return 'on the %s problems (%d, %d of them with a best time of 1\\,ms or more), %s; %s solve%s the most (%s)' % (
            CLASS_NAME.get(c) or self.tex(c), n, slow, fast, series([self.tt(x) for x in most]),
            '' if len(most) > 1 else 's', L['solved_most'])

    def qualifying(self):
        """The profile's classes that may carry a statement and have a leader."""
        return [c for c in classes_of(self.wrows) if self.supported(c) and self.lead(c, self.tolA)
                and self.lead(c, self.tolA)['fastest']]

    def class_verdicts(self):
        """The abstract's results: every qualifying class's verdict, or ''."""
        ok = self.qualifying()
        if not ok:
            return ''
        return 'At %s, %s.' % ('$' + tolfmt(self.tolA) + '$', '; '.join(self.class_verdict(c) for c in ok))

    def rule_sentence(self):
        """How many of the profile's problems have a best time of 1 ms or more."""
        n = sum(v[0] for v in self.support.values())
        slow = sum(v[1] for v in self.support.values())
        return ('Of the %d problems of the profiles, %d ha%s a best time (the fastest converged median at %s) '
                'of 1\\,ms or more.' % (n, slow, 's' if slow == 1 else 've', '$' + tolfmt(self.tolA) + '$'))

    def lead(self, c, tol):
        return next((r for r in self.leaders if r['class'] == c and r['tol'] == tol), None)

    # ---- failures and coverage -----------------------------------------------------------------
    def failures(self):
        """failures.tex (the unsolved by status at the first tolerance) and
        lemke's counts."""
        flA = self.flA
        used = [s for s in STATUSES if s in (flA[0] if flA else {}) and any(int(num(r[s]) or 0) for r in flA)]
        t = '\\begin{tabular}{@{}ll' + 'r' * (len(used) + 1) + '@{}}\n\\toprule\n' + \
            'class & solver & problems & ' + ' & '.join(SHORT[s] for s in used) + ' \\\\\n\\midrule\n'
        cls = classes_of(flA)
        for c in cls:
            first = True
            for r in (r for r in flA if r['class'] == c):
                if int(num(r['refused'])) == int(num(r['problems'])):
                    continue  # refuses the whole class: the coverage table says so
                t += '%s & %s & %s & %s \\\\\n' % (self.tex(c) if first else '', self.tt(r['solver']),
                                                 r['problems'],
                                                 ' & '.join(('%d' % int(num(r[s]))) if int(num(r[s])) else '.'
                                                            for s in used))
                first = False
            if c != cls[-1]:
                t += '\\midrule\n'
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('failures.tex', t)
        self.nums += macro('FailStatuses', ', '.join(SHORT[s] + ' = ' + s.replace('_', ' ') for s in used
                                                     if SHORT[s] != s.replace('_', ' ')))
        self.nums += macro('LemkeSingular', self.fsum('lemke', 'singular_pivot'))
        self.nums += macro('LemkeRay', self.fsum('lemke', 'ray_termination'))
        self.nums += macro('LemkeProblems', sum(int(num(r['problems'])) - int(num(r['refused']))
                                                for r in flA if r['solver'] == 'lemke'))
        self.nums += macro('LemkeConverged', self.fsum('lemke', 'converged'))

    def fsum(self, solver, status, klass=None):
        """A status's count over the failures rows of a solver at the first tolerance."""
        return sum(int(num(r[status])) for r in self.flA
                   if r['solver'] == solver and (klass is None or r['class'] == klass) and status in r)

    def coverage(self):
        """coverage.tex (the refusals with their reasons) and how the profiles
        count a refusal."""
        t = ('\\begin{tabular}{@{}ll>{\\raggedright\\arraybackslash}p{0.56\\textwidth}@{}}\n\\toprule\n'
             'class & solver & refused: reason (problems) \\\\\n\\midrule\n')
        ccls = classes_of(self.cov)
        for c in ccls:
            first = True
            for r in (r for r in self.cov if r['class'] == c and int(num(r['refused'])) > 0):
                if self.is_peer(r['solver']) and int(num(r['accepted'])) == 0:
                    continue  # a peer registered for other classes only
                t += '%s & %s & %s of %s: %s \\\\\n' % (self.tex(c) if first else '', self.tt(r['solver']),
                                                      r['refused'], r['problems'], self.tex(r['reasons']))
                first = False
            if c != ccls[-1]:
                t += '\\midrule\n'
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('coverage.tex', t)
        self.nums += macro('RefusalsClause', self.refusals_clause())
        # the profiles' denominator, as the tables count it
        outside = self.refusals_clause().startswith(('refusals are outside', 'each class where some solver refused'))
        self.nums += macro('ProfileShareOf', (
            'the class\'s problems, a refusal counted as a failure (Figure~\\ref{fig:profall}), or of the '
            'problems $s$ accepts (Figure~\\ref{fig:profA})') if self.have_rho_all() else
            'the class\'s problems $s$ accepts' if outside else 'the class\'s problems')
        self.nums += macro('ProfileLegendShare', 'of the class\'s problems each accepts' if outside else
                           'of the class\'s problems')
        self.nums += macro('ClassList', series([CLASS_NAME.get(c) or self.tex(c) for c in
                                                classes_of([r for _, rows in self.all_sets for r in rows])]))

    def have_rho_all(self):
        """1 when the profiles have the curves with refusals counted (rho_all)."""
        _, rows = self.read('profile_profile.csv')
        return bool(rows) and 'rho_all' in rows[0]

    def refusals_clause(self):
        """How the profiles count a refusal, from the tables: outside the
        denominators when every solver's problems are the ones it accepted."""
        acc = {(r['class'], r['solver']): int(num(r['accepted'])) for r in self.cov}
        inside = [r for r in self.wrows if int(num(r['problems'])) != acc.get((r['class'], r['solver']),
                                                                          int(num(r['problems'])))]
        if self.have_rho_all():
            return ('each class where some solver refused a problem is drawn twice, with a refusal counted as a '
                    'failure (the denominator is the '
                    'class\'s problems: the curves compare) and over the problems each solver accepts; a refusal '
                    'is listed with its reason in the coverage table, an implementation limit of \\lcp\\ named '
                    'as such')
        if not inside:
            return 'refusals are outside the profiles\' denominators and are listed as coverage, not failures'
        return ('a refusal counts as an unsolved problem in the profiles (their denominator is the class) '
                'and is listed with its reason in the coverage table, not as a failure')

    # ---- per-class paragraphs: who takes part, who is fastest, who is robust, who fails --------
    def classes(self):
        """classes.tex: one paragraph per class."""
        self.write('classes.tex', ''.join(self.class_paragraph(c) for c in classes_of(self.wrows)))

    def names(self, rs):
        return ', '.join(self.tt(r['solver']) for r in rs)

    def class_paragraph(self, c):
        # the class's problems: the leaders' count (every problem of the class);
        # a winners row counts only the problems its solver accepted
        LA = self.lead(c, self.tolA) or self.lead(c, self.tolB)
        cr = [r for r in self.cov if r['class'] == c]
        nprob = int(num(LA['problems'])) if LA else (int(num(cr[0]['problems'])) if cr else 0)
        acc = [r for r in self.cov if r['class'] == c and int(num(r['accepted'])) > 0]
        own = [r for r in acc if not self.is_peer(r['solver'])]
        some = [r for r in own if int(num(r['refused'])) > 0]
        t = '\\paragraph{%s.} %d problems; %d of lcplab\'s solvers take part' % (
            upfirst(CLASS_NAME.get(c) or self.tex(c)), nprob, len(own))
        t += (' (%s accept only part of the class: Table~\\ref{tab:cov})' % self.names(some)) if some else ''
        npeer = len(acc) - len(own)
        t += (', and %d peers' % npeer) if npeer else ''
        t += '. ' + self.class_disagree_words(c)
        if not self.supported(c):
            return t + upfirst(too_small(CLASS_NAME.get(c) or self.tex(c), self.support.get(c, (nprob, 0, 0)))) + \
                '; its counts are in the tables.\n\n'
        LA, LB = self.lead(c, self.tolA), self.lead(c, self.tolB)
        if LA and LA['fastest']:
            k = int(num(LA['fastest_alone']))
            t += 'At %s, %s is fastest alone on %d problem%s%s and tied on %s' % (
                '$' + tolfmt(self.tolA) + '$', self.tt(LA['fastest']), k, '' if k == 1 else 's',
                self.interval_words(LA), LA['fastest_tied'])
            ties = int(num(LA['ties']))
            t += ('; %d first places in the class are ties (one count per solver in a tie). ' % ties
                  if ties else '. ')
        for tol, L in ((self.tolA, LA), (self.tolB, LB)):
            if not L:
                continue
            most = L['most_solved'].split()
            t += 'At %s the most robust %s %s (%s of %d). ' % (
                '$' + tolfmt(tol) + '$', 'are' if len(most) > 1 else 'is', ', '.join(self.tt(x) for x in most),
                L['solved_most'], nprob)
        weak = LB['under_half'].split() if LB else []
        if weak:
            t += 'Fewer than half are solved at %s by %s (Table~\\ref{tab:fail} gives the statuses).' % (
                '$' + tolfmt(self.tolB) + '$', ', '.join(self.tt(x) for x in weak))
        return t.strip() + '\n\n'

    def class_disagree_words(self, c):
        """What a class's counts do with its rows whose own verdict is not the
        judge's (profile_disagreements.csv; the engine's exp_tab_row_solved):
        unsolved for their solver alone, the problem kept for the others."""
        rs = [r for r in self.csv_rows('profile_disagreements.csv') if r['class'] == c]
        if not rs:
            return ''
        per = [(tol, sum(1 for r in rs if r['tol'] == tol)) for tol in dict.fromkeys(r['tol'] for r in rs)]
        return ('Every problem counts for every solver: the %s where a solver\'s own verdict is not the judge\'s '
                '(%s) count as unsolved for that solver alone (Table~\\ref{tab:disagree}). ' % (
                    plural(len(rs), 'row'), ', '.join('%d at $%s$' % (k, tolfmt(tol)) for tol, k in per)))

    # ---- timings: runs behind the medians ------------------------------------------------------
    def timings(self):
        """timings.tex: per class and solver at the first tolerance, the median
        time, its spread and the runs behind it."""
        _, tm = self.read('profile_timings.csv')
        tmA = [r for r in tm if r['tol'] == self.tolA and int(num(r['solved'])) > 0]
        ov = self.overhead_times()
        t = ('\\begin{tabular}{@{}llrrrrr%s@{}}\n\\toprule\nclass & solver & solved & median (s) & '
             'spread & runs min & runs med.%s \\\\\n\\midrule\n' % ('r' if ov else '', ' & empty (s)' if ov else ''))
        tcl = classes_of(tmA)
        for c in tcl:
            first = True
            for r in (r for r in tmA if r['class'] == c):
                # a merged row (identical algorithms, 'pgs=pgs_wide=...'): its first solver's
                empty = ov.get(r['solver'].split('=')[0], {}).get('cone' if c in ('fc3d', 'cone-assoc') else 'lcp')
                t += '%s & %s & %s & $%s$ & %.2f & %s & %s%s \\\\\n' % (
                    self.tex(c) if first else '', self.tt(r['solver']), r['solved'],
                    sci(num(r['time_median_s']), 2), num(r['spread_median']), r['runs_min'],
                    '%g' % num(r['runs_median']), (' & ' + cellsci(empty)) if ov else '')
                first = False
            if c != tcl[-1]:
                t += '\\midrule\n'
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('timings.tex', t)
        self.nums += macro('TimingsEmptyNote', ' Empty: its empty solve (\\texttt{overhead}), the set-up '
                           'cost; on a row of identical algorithms, its first solver\'s.' if ov else '')

    # ---- large problems: the whole section, only when the results have it ----------------------
    def large(self):
        self.write('large_section.tex', self.large_section())
        self.write('gradients_section.tex', self.gradients_section())

    def gradients_section(self):
        """The gradient-quality table (issue 83) from a gradients section's
        gradients_quality.csv (libexperiment's gradients_quality.c: every
        number is the CSV's), or '' when the campaign has none."""
        if not self.have('gradients_quality.csv'):
            return ''
        q = self.read('gradients_quality.csv')[1]
        rows, last = [], None
        for r in q:
            first = r['solver'] != last
            last = r['solver']
            rows.append('%s & %s & %s/%s/%s & %s & %s & %s & %s & %s \\\\\n' % (
                self.tt(r['solver']) if first else '', self.tex(r['mode']), r['problems'], r['stable'],
                r['accepted'], cellsci(r['median_err_all']), cellsci(r['max_err_accepted_stable']),
                cellsci(r['within_1e-6_accepted_stable']), cellsci(r['max_err_unconverged']),
                cellsci(r['median_vjp_ratio']) if first else ''))
        head = ('solver & class & prob./stab./acc. & median err & max err (acc., stab.) & '
                'share $\\le 10^{-6}$ & max err (unconv.) & VJP/solve')
        cap = ('How good each solver\'s gradient is: the relative error of $\\langle \\mathrm{VJP}(g_x), d\\rangle$ '
               'against central differences of reference solves at $10^{-12}$, per row class, at the '
               'solver\'s own answer at $10^{-10}$ (\\texttt{gradients\\_quality.csv}; docs/gradients.md, '
               '``How good is a gradient\'\'); prob.: problems with rows of the class; acc.: the judge '
               'accepts the answer; stab.: the row modes hold under the step and the answer is the '
               'reference\'s; unconv.: answers the judge does not accept; VJP/solve: the median ratio of '
               'the VJP\'s time to the solve\'s.')
        return ('\\section{Gradients through the solve}\\label{sec:gradients}\n'
                'Every solver\'s answer is differentiated by the library\'s implicit differentiation at its '
                'row modes (Table~\\ref{tab:gradients}).\n\n' +
                self.table_floats(cap, 'tab:gradients', '@{}llrrrrrr@{}', head, rows))

    def large_section(self):
        if not self.have('large_winners.csv') or not self.have('large.csv'):
            return ''
        lt, ltol, lrows, _ = self.winners_table('large_winners.csv', 0)
        self.write('large.tex', lt)
        lpre, lg = self.read('large.csv')
        t = ('\\section{Large problems}\\label{sec:large}\nThe large set has %s up to $n=%d$, '
             'solved by the solvers that need no dense factorisation (Table~\\ref{tab:large}).' %
             (plural(len(collection(lg)), 'problem'), max(int(num(r['n'])) for r in lg)))
        lim = lpre.get('time_limit_s', '').split(' ')[0]
        hits = []
        if self.have('large_failures.csv'):
            for r in self.read('large_failures.csv')[1]:
                k = int(num(r.get('time_limit') or 0))
                if k:
                    hits.append('%s on %d of the %s %s problems' % (self.tt(r['solver']), k, r['problems'],
                                                                    self.tex(r['class'])))
        if lim and hits:
            t += ' The time limit of %s\\,s was reached by %s.' % (lim, '; '.join(hits))
        t += ('\n\n\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{Large problems: fastest, tied '
              'and profile values per class (as Table~\\ref{tab:win}).}\n  \\label{tab:large}\n'
              '  \\setlength{\\tabcolsep}{3pt}\n  \\input{gen/large.tex}\n\\end{table*}\n')
        return t

    # ---- scaling -------------------------------------------------------------------------------
    def scaling(self):
        """slopes.tex (the fits), scaling_text.tex and the figure's note."""
        # the figure's solvers (the section's `figure solvers=` line), when fewer than the fits
        figsv = [w for w in re.findall(r'(?:^|\s)solvers=(\S+)', self.scpre.get('figure', ''))[-1:]
                 for w in w.split(',') if w]
        fitsv = list(dict.fromkeys(r['solver'] for r in self.fit))
        # a fit of identical algorithms is one entry `a=b`: drawn when the figure names any of them
        drawn = [x for x in fitsv if set(x.split('=')) & set(figsv)]
        self.nums += macro('ScalingFigNote', (
            ' It draws %d of the %d fits (%s, the solvers the experiment file names for the figure, an '
            'entry of identical algorithms under its first name); Table~\\ref{tab:slopes} gives every fit.' % (
                len(drawn), len(fitsv), ', '.join(self.tt(x) for x in drawn)))
                           if figsv and len(drawn) < len(fitsv) else '')
        t = ('\\begin{tabular}{@{}llrrcr@{}}\n\\toprule\nfamily & solver & points & slope $s$ & 95\\,\\% '
             'interval & $R^2$ \\\\\n\\midrule\n')
        for f in self.fams:
            first = True
            for r in (r for r in self.fit if r['family'] == f):
                t += '%s & %s & %s & %.2f & [%.2f, %.2f] & %.3f \\\\\n' % (
                    self.tex(f) if first else '', self.tt(r['solver']), r['points'], num(r['slope']),
                    num(r['slope_lo']), num(r['slope_hi']), num(r['r2']))
                first = False
            if f != self.fams[-1]:
                t += '\\midrule\n'
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('slopes.tex', t if self.fit else '')
        self.write('scaling_text.tex', self.scaling_text())

    def family_sizes(self):
        """The sizes n each scaling family was run at (scaling.csv)."""
        sizes = {}
        for r in self.sc:
            if r['n']:
                sizes.setdefault(r['problem'].split('_')[0], set()).add(int(num(r['n'])))
        return sizes

    def scaling_text(self):
        if not self.fit:
            return ''
        sizes = self.family_sizes()
        ns = sorted({n for v in sizes.values() for n in v})
        counts = sorted({len(v) for v in sizes.values()})
        lo = min(self.fit, key=lambda r: num(r['slope']))
        hi = max(self.fit, key=lambda r: num(r['slope']))
        wide = max(self.fit, key=lambda r: num(r['slope_hi']) - num(r['slope_lo']))
        narrow = min(self.fit, key=lambda r: num(r['slope_hi']) - num(r['slope_lo']))
        t = ('Figure~\\ref{fig:scaling} and Table~\\ref{tab:slopes} give the median solve time against $n$ '
             '($n=%s$) on the %s %s, with the fitted exponents $s$ of $\\log t = a + s\\log n$ and their '
             '95\\,\\%% confidence intervals. With %s %s per family the intervals run from '
             '[%.2f, %.2f] (%s) to [%.2f, %.2f] (%s). The exponents range from %.2f (%s) to %.2f (%s); '
             'differences smaller than the intervals are not significant.' % (
                 ranges(ns), 'family' if len(self.fams) == 1 else 'families',
                 series([self.tt(f) for f in self.fams]), series([count_word(c) for c in counts]),
                 'size' if counts == [1] else 'sizes',
                 num(narrow['slope_lo']), num(narrow['slope_hi']), self.tt(narrow['solver']),
                 num(wide['slope_lo']), num(wide['slope_hi']), self.tt(wide['solver']),
                 num(lo['slope']), self.tt(lo['solver']), num(hi['slope']), self.tt(hi['solver'])))
        none = [r['solver'] for r in self.sl if math.isnan(num(r['slope']))]
        if none:
            t += ' %s solved fewer than two sizes and %s no fit.' % (
                series([self.tt(x) for x in none]), 'has' if len(none) == 1 else 'have')
        nmax = ns[-1]
        at = self.pooled_times_at(nmax)
        if len(at) > 1:
            at.sort()
            f, src = self.noise_factor('scaling')
            tied = [x for tm, x in at[1:] if tm <= at[0][0] * f]
            t += (' At $n=%d$ the fastest is %s ($%s$\\,s)%s, and the slowest %s ($%s$\\,s).' %
                  (nmax, self.tt(at[0][1]), sci(at[0][0], 2),
                   (', tied within a factor %.3f (%s) with %s' % (f, src, series([self.tt(x) for x in tied])))
                   if tied else ' (the next is more than a factor %.3f slower: %s)' % (f, src),
                   self.tt(at[-1][1]), sci(at[-1][0], 2)))
        return t + '\n'

    def pooled_times_at(self, n):
        """(median time, entry) of each converged solver of the scaling section
        at size n, identical algorithms one entry (the slopes table's
        NAME=NAME names), timed by the median of all their names' runs pooled."""
        entry = {x: r['solver'] for r in self.sl for x in r['solver'].split('=')}
        runs = {}
        for r in self.sc:
            if (r['n'] and int(num(r['n'])) == n and r.get('status') == 'converged' and
                    not math.isnan(num(r['time_s']))):
                ts = [num(x) for x in (r.get('time_runs_s') or '').split()] or [num(r['time_s'])]
                runs.setdefault(entry.get(r['solver'], r['solver']), []).extend(ts)
        return [(statistics.median(ts), e) for e, ts in runs.items()]

    def noise_factor(self, name):
        """The tie factor for a statement on section NAME's times and where it
        comes from: its own noise between passes when it ran several, else the
        noise between passes of the same run's profiles (else of another section)
        (the repeats inside one task understate the noise, issue 65), else its
        own between-run noise."""
        rows = dict(self.timing_rows())
        own = rows.get(name, {})
        if own.get('tie_source') == 'replicates':
            return 1 + num(own['tie']), 'the noise between passes over its timed set'
        passes_ = [(1 + num(r['tie']), n) for n, r in rows.items()
                   if r.get('tie_source') == 'replicates' and not math.isnan(num(r.get('tie')))]
        if passes_:  # the profiles' own (lcplab's solvers in process, as here) first, else the largest
            f, n = max(passes_, key=lambda x: (x[1] == 'profile', x[0]))
            return f, 'the noise between passes measured in the same run\'s %s section' % self.tex(n)
        f = 1 + num(own.get('tie'))
        if math.isnan(f):
            return 1.05, 'the default: no noise was measured'
        return f, 'the noise between the repeats inside one task'

    # ---- convergence ---------------------------------------------------------------------------
    def convergence(self):
        """conv.tex (per solver and problem: iterations and time to the
        tolerance) and the convergence experiment's macros."""
        cpre, cv = self.read('convergence.csv')
        probs = list(dict.fromkeys(r['problem'] for r in cv))
        self.nums += macro('ConvProblems', ', '.join(self.tt(p) for p in probs))
        src = {r.get('time_source', '') for r in cv if r['final'] == '0'}
        self.nums += macro('ConvTimeSource', 'measured timestamps of each iteration' if src == {'measured'} else
                           ('the estimate $T k/K$ (time of the whole solve $T$ spread evenly over its $K$ '
                            'iterations; this results folder predates measured timestamps)'
                            if 'interpolated' in src else 'the solve times'))
        fin = {(r['problem'], r['solver']): r for r in cv if r['final'] == '1'}
        cv_solvers = []
        for r in cv:
            if r['solver'] not in cv_solvers and any(fin.get((p, r['solver']), {}).get('status') not in
                                                     (None, 'unsupported', 'refused') for p in probs):
                cv_solvers.append(r['solver'])
        # a pivoting solver's pivots (the profile's column: the convergence CSV has none)
        self.pivots = {(r['problem'], r['solver']): int(num(r['pivots'])) for r in self.prof
                       if r.get('pivots') and num(r['pivots']) > 0 and r['tol'] == self.tolA}
        t = '\\begin{tabular}{@{}l' + 'r' * len(probs) + '@{}}\n\\toprule\nsolver & ' + \
            ' & '.join('\\rotatebox{60}{%s}' % self.tt(p) for p in probs) + ' \\\\\n\\midrule\n'
        for s in cv_solvers:
            t += '%s & %s \\\\\n' % (self.tt(s), ' & '.join(self.conv_cell(fin, p, s) for p in probs))
        t += '\\bottomrule\n\\end{tabular}\n'
        self.write('conv.tex', t)
        self.nums += macro('ConvTol', '$' + tolfmt(cpre.get('tol', '1e-10').split()[0]) + '$')
        # the measure the convergence CSV records (its column), as the text names it
        meas = next((k for k in ('res_scaled', 'res_rel') if cv and k in cv[0]), 'res_scaled')
        self.nums += macro('ConvMeasure', '\\mathrm{res}_{\\mathrm{%s}}' % meas.split('_')[1])

    def conv_cell(self, fin, p, s):
        """A convergence table cell: iterations / time (ms) of the final row."""
        r = fin.get((p, s))
        if r is None or r['status'] in ('unsupported', 'refused'):
            return 'refused'
        if r['status'] != 'converged':
            return self.tex(r['status'])
        piv = self.pivots.get((p, s))
        # a pivoting solver's work is its pivots (issue 84: not "1, 186 piv."); iterations beside
        # them only where it also iterated (an outer loop of more than one pass)
        if piv is None or str(piv) == r['iteration']:
            it = r['iteration']
        elif int(num(r['iteration']) if not math.isnan(num(r['iteration'])) else 0) <= 1:
            it = '%d piv.' % piv
        else:
            it = '%s it., %d piv.' % (r['iteration'], piv)
        return '%s / %.3g' % (it, 1e3 * num(r['time_s']))

    # ---- scenes: steps, failures, what the world did -------------------------------------------
    def scenes(self):
        """scenes.tex: the scene runs that did not converge on most steps or
        ended early, with their statuses."""
        rows = []
        for ex, r in self.scene_rows:
            if r['end'].startswith('refused'):
                continue
            other = sum(int(num(r[s])) for s in ('stagnated', 'ray_termination', 'singular_pivot',
                                                  'breakdown', 'no_solution', 'not_finite', 'unconverged',
                                                  'failed', 'error', 'other') if s in r)
            if r['end'] == 'ran' and other == 0 and not int(num(r['applied_other'])) and not short_most(r):
                continue  # ran to the end on its own answers, converged on most steps
            rows.append('%s & %s & %s & %s & %s & %s & %s & %s & %d & %s & %s \\\\\n' % (
                ex, self.tex(r['scene']), self.tex(r['friction']), self.tt(r['solver']), r['steps'],
                self.end_cell(r['end']), r['converged'], r['max_iter'], other,
                r['applied_solution'], r['applied_other']))
        self.write('scenes.tex', self.table_floats(
            'Scene runs that stopped early, ended most steps on the iteration limit, had steps with another status '
            'than converged or the iteration limit (``other\'\'), or had steps the failure policy carried (``end\'\': '
            'ran to the last step, or the status and step that ended the run). ``own\'\': steps that applied the '
            'solver\'s own answer; ``carried\'\': steps that applied the fallback\'s answer, the warm start or the '
            'projection of zero. Runs refused at their first problem are in the coverage table.', 'tab:scenes',
            '@{}llllrlrrrrr@{}', 'experiment & scene & friction & solver & steps & end & conv. & max it. & other & '
            'own & carried', rows))

    def end_cell(self, end):
        """The steps table's end: `ran`, or a status and the step it ended at."""
        if end == 'ran':
            return end
        status, at, step = end.partition(' at ')
        return self.tex(status) + (at + step if at else '')

    def failures_text(self):
        """failures_text.tex (lemke, the pendulum, the world, the time limits)
        and the chain's sentence."""
        drift_rows = self.csv_rows('drift.csv')
        story = self.scene_story(drift_rows, 'pendulum')
        tl = sorted(((self.fsum(s, 'time_limit'), s) for s in self.lcp_solvers), reverse=True)
        tl_txt = ''
        if tl and tl[0][0]:
            tl_txt = ('\\paragraph{Time limits.} The solves that reached the time limit in the profile: '
                      '%s.\n\n' % '; '.join('%s on %d' % (self.tt(s), k) for k, s in tl if k))
        self.write('failures_text.tex', self.lemke_paragraph() +
                   (('\\paragraph{The pendulum.} The pendulum has only joint rows (an MLCP) and nothing in '
                     'it dissipates or injects energy beyond the integrator, so any energy change above the '
                     'exact solvers\' is the solvers\'. ' + story + '\n\n') if story else '') +
                   self.world_paragraph() + tl_txt)
        dl = last_rows(drift_rows)
        chain = [(abs(num(r['rel_drift'])), k[1]) for k, r in dl.items() if k[0] == 'chain'
                 and not math.isnan(num(r['rel_drift']))]
        # a sentence only when the drift runs have a chain (the main job's do not)
        self.nums += macro('ChainClause', 'On the chain the relative energy change at the end ranges from '
                           '$%s$ to $%s$.' % (sci(min(chain)[0]), sci(max(chain)[0])) if chain else '')

    def run_summary(self, ex, r):
        """One scene run of the steps table in words."""
        parts = ['%s converged' % r['converged']]
        parts += ['%d %s' % (int(num(r[k])), w) for k, w in STATUS_WORDS if int(num(r.get(k) or 0))]
        t = '%s (%s): %s steps, %s' % (self.where(r), ex, r['steps'], ', '.join(parts))
        if int(num(r['applied_other'])):
            t += ', %s of %s carried by the failure policy' % (r['applied_other'], r['steps'])
        if r['end'] != 'ran':
            t += ', ended by %s' % self.end_cell(r['end'])
        return t

    def lemke_paragraph(self):
        t = ''
        mine = [r for r in self.flA if r['solver'] == 'lemke']
        if mine:
            acc = sum(int(num(r['problems'])) - int(num(r['refused'])) for r in mine)
            t += ('Of the %d profile problems that \\texttt{lemke} accepts it solves %d at %s' %
                  (acc, self.fsum('lemke', 'converged'), '$' + tolfmt(self.tolA) + '$'))
            ends = ['%d %s' % (self.fsum('lemke', k), w) for k, w in STATUS_WORDS if self.fsum('lemke', k)]
            t += ('; it ends %s.' % series(ends)) if ends else '.'
        runs = [self.run_summary(ex, r) for ex, r in self.scene_rows
                if r['solver'] == 'lemke' and not r['end'].startswith('refused')]
        if runs:
            t += ' In the scenes it ran %s.' % '; '.join(runs)
        # the pyramid's explanation only where lemke failed on a pyramid LCP
        bad = any(int(num(r.get('singular_pivot') or 0)) + int(num(r.get('ray_termination') or 0))
                  for _, r in self.scene_rows if r['solver'] == 'lemke' and r['friction'] == 'pyramid')
        if bad:
            t += (' In exact arithmetic Lemke\'s method processes the pyramid LCP~\\cite{stewart1996,anitescu1997};'
                  ' with many contacts at rest its pivot blocks become nearly singular, and we have not separated'
                  ' rounding from degeneracy in its failures on the pyramid LCP above.')
        return ('\\paragraph{Lemke\'s method.} ' + t.strip() + '\n\n') if t else ''

    def scene_story(self, rows, scene):
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
                  'integrator\'s own. ' % (', '.join(self.tt(s) for s in exact), sci(min(dr), 2),
                                           '' if max(dr) <= 1.01 * min(dr) else ' to $%s$' % sci(max(dr), 2)))
        rest = sorted((s for s in runs if s not in exact), key=lambda s: abs(runs[s]['drift']))
        groups = {}  # solvers with the same outcome share one clause
        for s in rest:
            d = runs[s]
            ap = sorted(d['applied'].items(), key=lambda kv: -kv[1])
            aps = ', '.join('%s on %d' % (what.get(a) or 'the answer of the fallback (%s)' %
                                          self.tt(a.replace('fallback:', '')), n)
                            for a, n in ap)
            key = 'converged on %d of %d steps, the world applied %s; energy change $%s$' % (
                d['conv'], d['steps'], aps, sci(d['drift'], 2))
            groups.setdefault(key, []).append(s)
        parts = ['%s %s' % (', '.join(self.tt(s) for s in ss), k) for k, ss in groups.items()]
        if parts:
            t += 'The others ended steps on the iteration limit: ' + '; '.join(parts) + '.'
        return t

    def where(self, r):
        """The scene and friction of a steps row in words."""
        f = r['friction']
        return 'the %s %s' % (self.tex(r['scene']),
                              'without friction' if f == 'none' else 'with %s friction' % self.tex(f))

    def group_where(self, rows):
        groups = {}
        for r in rows:
            groups.setdefault(self.where(r), []).append(r)
        return groups

    def by_scene(self, rows, count):
        """Runs grouped by scene and friction: 'on the S: a N of M, b K of M'."""
        groups = {}
        for r in rows:
            groups.setdefault(self.where(r), []).append(r)
        return '; '.join('on %s, %s' % (w, ', '.join('%s %d of %s' % (self.tt(r['solver']), count(r),
                                                                      r['steps'])
                                                    for r in rs)) for w, rs in groups.items())

    def policy_sentence(self, pre):
        """The failure policy as run (drift.csv's preamble, on_failure)."""
        pol = pre.get('on_failure', '').split(' ')[0]
        if pol in POLICY:
            return 'Under the failure policy of this run (\\texttt{%s}) %s. ' % (pol, POLICY[pol])
        if pol != 'fallback':
            return ''
        t = ('A step whose solve failed does not end the run. The rule is the same for every solver: a '
             'solve failed when its status is not converged, except a budget stop (an iterative method\'s '
             'iteration limit reached with a finite iterate; a pivoting method\'s pivot limit is a failure), '
             'which is the solver\'s own answer and is applied%s. Under the '
             'failure policy of this run (\\texttt{fallback}) a failed step is solved again by a fallback solver'
             % (ENERGY_RULE if 'energy rule' in pre.get('on_failure', '') else ''))
        m = re.search(r'fallback solver (\S+) for equality rows only, (\S+) for cones, else (\S+), (\d+) '
                      r'iterations', pre.get('on_failure', ''))
        if m:
            t += (' (%s on problems of equality rows only, %s on cones, %s otherwise; at most %s '
                  'iterations)' % (self.tt(m.group(1)), self.tt(m.group(2)), self.tt(m.group(3)), m.group(4)))
        return t + (', and the world applies the candidate with the smallest natural-map residual among '
                    'the fallback\'s answer, the solver\'s iterate, the warm start and the projection of '
                    'zero. ')

    def world_paragraph(self):
        """What the time stepper did with the steps whose solver did not converge:
        the policy as run, the runs it carried, the runs unconverged on most steps."""
        pre = self.read('drift.csv')[0] if self.have('drift.csv') else {}
        t = self.policy_sentence(pre)
        b = re.search(r'world defaults: ([\d.e+-]+), (\d+)', pre.get('solver settings', ''))
        if b and 'max_iter default' in pre.get('solver settings', ''):
            t += ('Each step is solved to the world\'s tolerance $%s$ within %s iterations, warm-started from '
                  'the previous step. ' % (tolfmt(b.group(1)), b.group(2)))
        runs = [r for _, r in self.scene_rows if not r['end'].startswith('refused')]
        carried = [r for r in runs if int(num(r['applied_other']))]
        most = [r for r in carried if 2 * int(num(r['applied_other'])) > int(num(r['steps']))]
        if carried:
            t += ('The policy, not the solver, supplied the applied impulses of some steps in %s '
                  '(Table~\\ref{tab:scenes}, ``carried\'\', per run)' % plural(len(carried), 'run'))
            t += ('; of most steps in these: %s. ' % self.by_scene(most, lambda r: int(num(r['applied_other'])))
                  if most else '. ')
            t += ('The energy and penetration of those steps are those of what was applied, not of the '
                  'solver under test. ')
        short = [r for r in runs if short_most(r)]
        if short:
            t += ('%s ended most of their steps on the iteration limit or unconverged (Table~\\ref{tab:scenes}, '
                  '``max it.\'\'): %s. ' % (upfirst(plural(len(short), 'run')),
                                           series(['%s on %s' % (series([self.tt(r['solver']) for r in rs]), w)
                                                   for w, rs in self.group_where(short).items()])))
        stopped = [r for r in runs if r['end'] != 'ran']
        if stopped:
            t += '%s ended before the last step (Table~\\ref{tab:scenes}). ' % upfirst(
                plural(len(stopped), 'run'))
        ac = [r for r in (self.read('accuracy.csv')[1] if self.have('accuracy.csv') else []) if r['step']]
        solved = [r for r in ac if r['status'] not in ('refused', 'unsupported')]
        if solved:
            conv = sum(1 for r in solved if r['status'] == 'converged')
            t += ('Of the %d solver steps of the accuracy experiment (refused runs apart), %d reached the '
                  'tolerance (%.0f\\,\\%%). ' % (len(solved), conv, 100.0 * conv / len(solved)))
        t += self.carried_sentence(runs)
        return ('\\paragraph{What the world did.} ' + t.strip() + '\n\n') if t else ''

    def carried_sentence(self, runs):
        """Per solver, the steps of its scene runs another answer carried (the
        fallback's, the warm start or zero), of the steps it ran."""
        per = {}
        for r in runs:
            d = per.setdefault(r['solver'], [0, 0, 0])
            d[0] += int(num(r['steps']))
            d[1] += int(num(r['applied_other']))
            d[2] += int(num(r.get('applied_fallback') or 0))
        if not per:
            return ''
        return ('Per solver, the steps of its scene runs carried by another answer than its own (of the steps '
                'it ran; the fallback solver\'s among them in parentheses): %s. ' % series(['%s %d of %d (%d)' % (self.tt(s), d[1], d[0], d[2])
                                            for s, d in per.items()]))

    def scenes_intro_text(self):
        self.write('scenes_intro.tex', self.scenes_intro())

    def joint_error_sentence(self, ac):
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
        scenes = series([self.tt(k) for k in dict.fromkeys(k[0] for k in steps)])
        t = ('On %s the joint error (at most $%s$\\,m) differs between the solvers at the same step by at most '
             '%.2g\\,\\%% of its largest value' % (scenes, sci(top, 2), 100 * spread))
        if spread < 0.05:
            return t + (': it measures the Baumgarte stabilisation, not the solver, and has no panel. ')
        worst = {}
        for r in ac:
            v = num(r.get('joint_error'))
            if not math.isnan(v) and v > 0:
                k = (r['scene'], r['solver'])
                worst[k] = max(worst.get(k, 0.0), v)
        return t + ('; the figures do not draw it, and its largest value per run is %s. ' % series([
            '$%s$\\,m (%s, %s)' % (sci(v, 2), self.tt(k[1]), self.tt(k[0]))
            for k, v in sorted(worst.items(), key=lambda kv: -kv[1])]))

    def step_outcomes(self):
        """Per solver, over the per-step rows of the drift and accuracy runs
        (refused runs apart): steps, converged, budget stops (unconverged, not
        failed: the solver's own iterate applied), failed steps carried by the
        fallback solver, by the warm start or zero, and failed steps whose own
        iterate the policy kept as the best candidate."""
        per = {}
        for name in ('drift', 'accuracy'):
            for r in self.csv_rows(name + '.csv'):
                if not r.get('step') or r['status'] in ('refused', 'unsupported'):
                    continue
                d = per.setdefault(r['solver'], [0] * 6)
                failed = r.get('note', '').startswith('failed solve')
                ap = r.get('applied', '') or 'solver'
                d[0] += 1
                if r['status'] == 'converged':
                    d[1] += 1
                elif not failed:
                    d[2] += ap == 'solver'
                elif ap.startswith('fallback'):
                    d[3] += 1
                elif ap in ('warm', 'zero'):
                    d[4] += 1
                else:
                    d[5] += 1
        return per

    def merge_outcomes(self, per):
        """per (step_outcomes) with identical algorithms as one entry (issue 65,
        point 4): b joins a when trace_aliases says so in drift.csv and
        accuracy.csv alike (wherever b has a trace) and their counts agree.
        Returns the merged counts by name ("a=b=...") and each kept solver's
        merged name."""
        ad = trace_aliases(os.path.join(self.res, 'drift.csv'))
        aa = trace_aliases(os.path.join(self.res, 'accuracy.csv'))
        td = traced_solvers(os.path.join(self.res, 'drift.csv'))
        ta = traced_solvers(os.path.join(self.res, 'accuracy.csv'))
        alias = {}
        for b, a in list(ad.items()) + list(aa.items()):
            if (b not in td or ad.get(b) == a) and (b not in ta or aa.get(b) == a) and \
                    b in per and a in per and per[b] == per[a]:
                alias[b] = a
        name = {s: '='.join([s] + [b for b in per if alias.get(b) == s]) for s in per if s not in alias}
        return {name[s]: d for s, d in per.items() if s in name}, name

    def energy_failed(self):
        """Per solver, the budget stops the energy rule failed: the steps
        whose row's note says so ("failed solve (energy rule; ...")."""
        per = {}
        for name in ('drift', 'accuracy'):
            for r in self.csv_rows(name + '.csv'):
                if r.get('step') and r.get('note', '').startswith('failed solve (energy rule'):
                    per[r['solver']] = per.get(r['solver'], 0) + 1
        return per

    def blowups(self):
        """The drift runs whose energy changed by more than the scene's scale
        (|rel_drift| > 1 at the end), with their first and last energy."""
        runs = {}
        for r in self.csv_rows('drift.csv'):
            if r.get('step'):
                k = (r['scene'], r['friction'], r['integrator'], r['solver'])
                runs.setdefault(k, []).append(r)
        return [(k, v[0], v[-1], v) for k, v in runs.items() if abs(num(v[-1]['rel_drift'])) > 1]

    def budget_paragraph(self):
        """The failure policy where the scenes are discussed: what it is, per
        solver the steps it budget-stopped or the fallback carried
        (budget.tex), and whose the energy blow-ups are."""
        per, name = self.merge_outcomes(self.step_outcomes())
        if not per:
            self.write('budget.tex', '')
            return ''
        pre = self.read('drift.csv')[0] if self.have('drift.csv') else {}
        b = re.search(r'world defaults: ([\d.e+-]+), (\d+)', pre.get('solver settings', ''))
        t = ('\\paragraph{Budget stops and the failure policy.} One rule holds for every solver in the scenes '
             '(Section~\\ref{sec:fail}, ``What the world did\'\'): each step is solved %swarm-started from the previous '
             'one; a step that ends on the iteration limit with a finite iterate is a \\emph{budget stop}, the '
             'solver\'s own answer, and its iterate is applied as it is%s; any other unconverged status (a pivoting '
             'method\'s pivot limit among them) is a failed step, solved again by the fallback solver, and the world '
             'applies the best of the candidates. Table~\\ref{tab:budget} counts, per solver, the steps of each kind; '
             'what a budget-stopped step does to the energy and the penetration is the solver\'s own. ' % (
                 ('to $%s$ within %s iterations, ' % (tolfmt(b.group(1)), b.group(2))) if b else '',
                 ENERGY_RULE if 'energy rule' in pre.get('on_failure', '') else ''))
        er = {name.get(s, s): k for s, k in self.energy_failed().items() if name.get(s, s) in per}
        if er:
            t += 'The energy rule failed budget stops of %s, carried by the policy. ' % series(
                ['%s (%d of %d steps)' % (self.tt(s), k, per[s][0]) for s, k in er.items()])
        most = sorted((s for s, d in per.items() if 2 * d[2] > d[0]), key=lambda s: -per[s][2] / per[s][0])
        if most:
            t += 'Most steps are budget stops for %s. ' % series(['%s (%d of %d)' % (self.tt(s), per[s][2], per[s][0])
                                                                for s in most])
        fb = [s for s, d in per.items() if d[3] + d[4]]
        if fb:
            t += 'The policy carried failed steps of %s. ' % series([
                '%s (%d by the fallback, %d by the warm start or zero)' % (self.tt(s), per[s][3], per[s][4])
                for s in fb])
        for k, first, last, v in self.blowups():
            if k[3] not in name:  # an identical algorithm's blow-up: said under its first name
                continue
            bs = sum(1 for r in v if r['status'] != 'converged' and not r.get('note', '').startswith('failed solve'))
            carried = sum(1 for r in v if (r.get('applied') or 'solver') != 'solver')
            t += ('On the %s%s, %s took the energy from $%s$\\,J to $%s$\\,J (a relative change of $%s$); %d of its %d '
                  'steps there were budget stops with its own iterate applied and %s carried by the policy, so the '
                  'blow-up is %s. ' % (
                      self.tex(k[0]), '' if k[1] == 'none' else ' with %s friction' % self.tex(k[1]), self.tt(name[k[3]]),
                      sci(num(first['energy']), 2), sci(num(last['energy']), 2), sci(num(last['rel_drift']), 2), bs,
                      len(v), count_word(carried) if carried else 'none',
                      'the solver\'s own' if not carried else 'partly the policy\'s'))
        tab = ('\\begin{table}[tbp]\n  \\centering\\scriptsize\n  \\caption{The scene steps per solver (drift and '
               'accuracy runs, refused runs apart): converged; budget stops (the iteration limit with a finite iterate: '
               'the solver\'s own iterate applied); failed steps carried by the fallback solver, by the warm start or '
               'zero, or whose own iterate the policy kept as the best candidate.}\n  \\label{tab:budget}\n'
               '  \\setlength{\\tabcolsep}{3pt}\n\\resizebox{\\columnwidth}{!}{%\n'
               '\\begin{tabular}{@{}lrrrrrr@{}}\n\\toprule\n'
               'solver & steps & conv. & budget & fallback & warm/zero & kept \\\\\n\\midrule\n')
        for sname, d in per.items():
            tab += '%s & %s \\\\\n' % (self.tt(sname), ' & '.join(str(x) for x in d))
        self.write('budget.tex', tab + '\\bottomrule\n\\end{tabular}}\n\\end{table}\n')
        return t + '\n\n'

    def scenes_intro(self):
        t = self.joint_error_sentence(self.ac)
        pen = {}
        for r in self.ac:
            k = (r['scene'], r['friction'], r['solver'])
            v = num(r['max_penetration'])
            if not math.isnan(v):
                pen[k] = max(pen.get(k, 0.0), v)
        if pen:
            k, v = max(pen.items(), key=lambda kv: kv[1])
            t += ('The deepest penetration of any run of the accuracy experiment was $%s$\\,mm (%s on the %s '
                  'with %s friction). ' % (sci(1e3 * v), self.tt(k[2]), self.tex(k[0]), self.tex(k[1])))
        return t + '\n\n' + self.budget_paragraph()

    # ---- integrators: the whole section, only when the results have it -------------------------
    def integrators(self):
        self.write('integ_section.tex', self.integ_section())
        self.nums += macro('IntegScenes', self.integ_scenes())

    def integ_scenes(self):
        """The integrators' scenes and whether a solver takes part in each
        (steps with contacts or a solve), from integrators.csv."""
        if not self.have('integrators.csv'):
            return 'scenes'
        per = {}
        for r in self.read('integrators.csv')[1]:
            if not r['step']:
                continue
            d = per.setdefault(r['scene'], {'steps': 0, 'contact': 0, 'solver': set()})
            d['steps'] += 1
            d['contact'] += num(r.get('contacts')) > 0 or num(r.get('iterations')) > 0
            d['solver'].add(r['solver'])
        parts = []
        for sc, d in per.items():
            if d['contact']:
                parts.append('%s, where %s solves the contacts of %d of its %d steps (all integrators '
                             'together)' % (self.tt(sc), series([self.tt(x) for x in sorted(d['solver'])]),
                                            d['contact'], d['steps']))
            else:
                parts.append('%s, which has no contact or joint row: no solver takes part' % self.tt(sc))
        return 'the scenes ' + series(parts) if parts else 'scenes'


    def integ_section(self):
        if not self.have('integrators.csv'):
            return ''
        rows = self.read('integrators.csv')[1]
        il = last_rows(rows)
        scenes = list(dict.fromkeys(k[0] for k in il))
        solvers = list(dict.fromkeys(k[1] for k in il))
        txt, worst = [], set()
        for sc_name in scenes:
            d = [(abs(num(r['rel_drift'])), k[2]) for k, r in il.items() if k[0] == sc_name
                 and not math.isnan(num(r['rel_drift']))]
            if not d:
                continue
            txt.append('%s: %s' % (self.tt(sc_name),
                                   ', '.join('%s $%s$' % (self.tex(i), sci(v)) for v, i in d)))
            worst.add(max(d)[1])
        if not txt:
            return ''
        t = ('\\section{Integrators}\\label{sec:integ}\nThe scenes %s compare the integrators, not the solvers: '
             'they are run with %s (Figure~\\ref{fig:integ}). The relative energy change after %d steps is %s.' %
             (series([self.tt(x) for x in scenes]), series([self.tt(x) for x in solvers]),
              max(int(r['step']) for r in rows if r['step']), '; '.join(txt)))
        if len(worst) == 1 and len(txt) > 1:
            t += ' The %s integrator has the largest change on every scene.' % self.tex(worst.pop())
        rk = {k[2]: abs(num(r['rel_drift'])) for k, r in il.items() if k[0] == 'racket'}
        if 'racket' in scenes and 'symplectic' in rk and 'verlet' in rk and \
                abs(rk['symplectic'] - rk['verlet']) <= 0.01 * max(rk['symplectic'], rk['verlet']):
            # issue 84: the racket's loss is the rotation's, shared by every integrator
            t += (' The racket spins about its intermediate axis with no gravity and no contact, so its energy is '
                  'rotational only: what it loses comes from the implicit gyroscopic step (implicit Euler on '
                  '$I\\dot\\omega + \\omega\\times I\\omega = 0$, the world\'s default; '
                  '\\texttt{docs/dynamics.md}, ``Rotation and the gyroscopic term\'\'), which dissipates and is '
                  'the same in the three integrators, not from the position update they differ in; so symplectic '
                  'Euler and Verlet lose the same share there.')
        return t + '\n'

    # ---- peers: a paragraph only when peers ran ----------------------------------------------------
    def peers_text(self):
        """peers_text.tex: per class, the peer that solves the most against
        lcplab's, in the profiles."""
        ptxt = []
        for c in classes_of(self.wrows):
            L = self.lead(c, self.tolA)
            if not self.peers or not L or not L['best_external'] or not L['best_builtin']:
                continue
            if not self.supported(c):
                ptxt.append(too_small(self.tex(c), self.support[c]))
                continue
            ptxt.append('on the %s problems the peer that solves the most is %s (%s of %s, $\\rho(10)=%.2f$) '
                        'against %s of \\lcp\\ (%s, $\\rho(10)=%.2f$)' % (
                            self.tex(c), self.tt(L['best_external']), L['best_external_solved'],
                            L['problems'], num(L['best_external_rho_10']), self.tt(L['best_builtin']),
                            L['best_builtin_solved'], num(L['best_builtin_rho_10'])))
        self.write('peers_text.tex', ('\\paragraph{Peers.} In the same profiles, %s. The peers\' times are '
                                      'those they report for the solver call (not the process), so that '
                                      'reading the file is not charged to them.\n' % '; '.join(ptxt))
                   if ptxt else '')

    # ---- the peers side by side: peers_lcp, peers_fc3d, scenes (experiments/default.exp) -----------
    def peers_side(self):
        self.write('peers_side.tex', self.peers_side_section())

    # ---- physical fidelity (issue 84, item 4): a fidelity section's fidelity.csv ---------------
    def fidelity(self):
        self.write('fidelity_section.tex', self.fidelity_section())

    def fidelity_section(self):
        """Scenes with analytic answers: the scenes and their judges (the CSV's
        preamble and rows), one table with a block per lcplab solver (one
        table reads the solvers against each other scene by scene, where one
        table per solver would not; solvers whose every number but the step
        time agrees share a block), and the engines' table; '' without
        fidelity.csv."""
        if not self.have('fidelity.csv'):
            return ''
        pre, rows = self.read('fidelity.csv')
        lc = [r for r in rows if r['friction']]  # the scene peers' rows have no friction model
        if not lc:
            return ''
        budgets = sorted({int(r['budget']) for r in lc})
        return (self.fidelity_text(pre, lc, budgets) + self.fidelity_scenes_table(pre, rows) +
                self.fidelity_solver_table(lc, budgets) + self.fidelity_engines(pre, rows))

    @staticmethod
    def fid_judged(r):
        return r['pass'] in ('yes', 'no')

    def fidelity_text(self, pre, lc, budgets):
        """The section's opening: the protocol, the passes per budget, who passes
        everything, the scenes failed most, the solvers refused everywhere."""
        scenes = list(dict.fromkeys(r['scene'] for r in lc))
        solvers = list(dict.fromkeys(r['solver'] for r in lc))
        per = []
        for b in budgets:
            rb = [r for r in lc if int(r['budget']) == b and self.fid_judged(r)]
            per.append('%d of %d at %d' % (sum(r['pass'] == 'yes' for r in rb), len(rb), b))
        top = budgets[-1]
        rt = [r for r in lc if int(r['budget']) == top]
        every = [so for so in solvers if any(self.fid_judged(r) for r in rt if r['solver'] == so) and
                 all(r['pass'] in ('yes', '') for r in rt if r['solver'] == so)]
        never = [so for so in solvers if not any(self.fid_judged(r) for r in lc if r['solver'] == so)]
        hard = sorted(((sum(r['pass'] == 'no' for r in rt if r['scene'] == sc), sc) for sc in scenes),
                      key=lambda x: -x[0])
        hard = [(n, sc) for n, sc in hard if n > 0]
        t = ('\\section{Physical fidelity}\\label{sec:fidelity}\n'
             'Scenes with analytic answers (Table~\\ref{tab:fidscenes}) run for every solver at budgets '
             'of %s iterations (and pivots) of every step\'s solve (%s), each run judged against its answer '
             'with its judge\'s tolerance. These runs compare fixed budgets, not converged answers: beside '
             'each verdict stand the share of the steps with rows whose solve converged and the mean step '
             'time (Table~\\ref{tab:fidelity}). ' % (series([str(b) for b in budgets]), self.fid_settings(pre)))
        t += 'Runs passed (of those judged; a refused run has no verdict): %s. ' % series(per)
        if every:
            t += '%s pass%s every run judged at %d. ' % (
                upfirst(series([self.tt(x) for x in every])), '' if len(every) > 1 else 'es', top)
        if hard:
            t += 'At %d the failed runs are on %s%s. ' % (top, series(
                ['%s (%s)' % (self.tt(sc), plural(n, 'solver')) for n, sc in hard[:3]]),
                ' and %s' % plural(len(hard) - 3, 'more scene') if len(hard) > 3 else '')
        if never:
            why = list(dict.fromkeys(next((r['note'] for r in lc if r['solver'] == so and r['note']), '')
                                     for so in never))
            t += '%s refused every scene (%s). ' % (
                upfirst(series([self.tt(x) for x in never])), '; '.join(self.tex(w) for w in why if w))
        return t + '\n\n'

    def fid_settings(self, pre):
        """The preamble's solver settings as words: 'tol 1e-08, dt 1/120 s, ...'."""
        words = []
        for w in pre.get('solver settings', '').split(', '):
            k, _, v = w.partition(' ')
            if k == 'tol':
                words.append('tolerance $%s$' % tolfmt(v))
            elif k == 'dt':
                words.append('time step %s' % self.tex(v))
            elif k == 'on_failure':
                words.append('a failed solve applying the solver\'s own best iterate' if v == 'best'
                             else 'failed steps: %s' % self.tex(v))
            elif w == 'friction auto':
                words.append('each solver\'s own friction model (box with findex rows, else Coulomb cones, '
                             'else the pyramid)')
            elif w:
                words.append(self.tex(w))
        return ', '.join(words)

    def fidelity_scenes_table(self, pre, rows):
        """Each scene: its answer (the preamble's line), judge, analytic value and
        tolerance (the rows'); the judges' definitions in the caption."""
        judges = [(k[6:], v.split('; passes')[0]) for k, v in pre.items() if k.startswith('judge ')]
        out = []
        for sc in dict.fromkeys(r['scene'] for r in rows):
            r = next(x for x in rows if x['scene'] == sc)
            desc = pre.get('scene ' + sc, '').split(' (judge')[0]
            an = next((x['analytic'] for x in rows if x['scene'] == sc and x['analytic']), '')
            unit = '' if r['unit'] == 'relative' else ' ' + self.tex(r['unit'])
            out.append('%s & %s & %s & %s & $%s$%s \\\\\n' % (
                self.tt(sc), self.tex(desc), self.tex(r['judge']), '$%s$' % sci(num(an), 3) if an else '',
                sci(num(r['tol'])), unit))
        jt = '; '.join('%s: %s' % (self.tex(k), self.tex(v)) for k, v in judges)
        return ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The fidelity scenes '
                '(\\texttt{libexperiment/fidelity.c}), the analytic value of what their judge measures and '
                'its tolerance (accel: relative). The judges: %s.}\n  \\label{tab:fidscenes}\n'
                '  \\setlength{\\tabcolsep}{3pt}\n\\begin{tabular}{@{}lllrl@{}}\n\\toprule\n'
                'scene & answer & judge & analytic & tolerance \\\\\n\\midrule\n%s\\bottomrule\n'
                '\\end{tabular}\n\\end{table*}\n\n' % (jt, ''.join(out)))

    @staticmethod
    def fid_key(r):
        return (r['scene'], r['budget'], r['measured'], r['pass'], r['converged_steps'], r['status'])

    def fid_blocks(self, lc):
        """The solvers in blocks: solvers whose rows agree but for the step time share one."""
        blocks = []
        for so in dict.fromkeys(r['solver'] for r in lc):
            key = [self.fid_key(r) for r in lc if r['solver'] == so]
            for b in blocks:
                if b[1] == key:
                    b[0].append(so)
                    break
            else:
                blocks.append(([so], key))
        return [b[0] for b in blocks]

    def fid_cells(self, r):
        """measured (a failed verdict marked), converged share, step time in microseconds."""
        if r is None or not r['measured']:
            return ['\\multicolumn{3}{c}{%s}' % (self.tex(r['status']) if r else '')]
        mark = ('' if r['pass'] == 'yes' else '\\,$\\times$' if r['pass'] == 'no'
                else '\\,(%s)' % self.tex(r['status']))
        share = num(r['converged_share'])
        return [cellsci(r['measured']) + mark, '' if math.isnan(share) else '%.2f' % share,
                '%.1f' % (num(r['step_time_mean_s']) * 1e6)]

    def fidelity_solver_table(self, lc, budgets):
        out = []
        for blk in self.fid_blocks(lc):
            mine = [r for r in lc if r['solver'] == blk[0]]
            first = True
            for sc in dict.fromkeys(r['scene'] for r in mine):
                got = {int(r['budget']): r for r in mine if r['scene'] == sc}
                if not any(got[b]['measured'] for b in got):
                    continue  # nothing measured at any budget (refused): rows it does not take
                cells = []
                for b in budgets:
                    cells += self.fid_cells(got.get(b))
                out.append('%s & %s & %s \\\\\n' % (
                    '='.join(self.tt(x) for x in blk) if first else '', self.tt(sc), ' & '.join(cells)))
                first = False
            if not first:
                out[-1] += '\\midrule\n'
        if out:
            out[-1] = out[-1][:-len('\\midrule\n')]
        head = ('solver & scene & ' + ' & '.join('\\multicolumn{3}{c}{budget %d}' % b for b in budgets) +
                ' \\\\\n & & ' + ' & '.join('measured & conv. & $\\mu$s' for _ in budgets))
        cap = ('Physical fidelity per solver (\\texttt{fidelity.csv}): per budget the judged quantity '
               '(Table~\\ref{tab:fidscenes}; $\\times$: outside its judge\'s tolerance; a status in '
               'parentheses: the run ended there, no verdict), the share of the steps with rows whose solve '
               'converged, and the mean step time in microseconds. Solvers whose rows agree in every number '
               'but the step time share a block (the first one\'s times); a scene where no run of a solver '
               'measured anything (refused before the judged quantity existed) has no row.')
        return self.table_floats(cap, 'tab:fidelity', '@{}ll' + 'rrr' * len(budgets) + '@{}', head, out) + '\n'

    def fidelity_engines(self, pre, rows):
        """The scene peers' rows, beside lcplab's FID_ENGINE_SOLVERS at the peers' iterations."""
        peer_rows = [r for r in rows if not r['friction'] and r['status'] != 'refused']
        if not peer_rows:
            return ''
        it = re.findall(r'scene peers: (\d+)', pre.get('budgets', ''))
        iters = int(it[0]) if it else 50
        mine = [r for r in rows if r['friction'] and r['solver'] in FID_ENGINE_SOLVERS and
                int(r['budget']) == iters and r['scene'] in {p['scene'] for p in peer_rows}]
        out = []
        for sc in dict.fromkeys(r['scene'] for r in peer_rows):
            first = True
            for r in [x for x in mine if x['scene'] == sc] + [x for x in peer_rows if x['scene'] == sc]:
                out.append('%s & %s & %s & %s & %s & %s & %.1f \\\\\n' % (
                    self.tt(sc) if first else '', self.tt(r['solver']), self.tex(r['version']),
                    cellsci(r['measured']), cellsci(r['error']),
                    r['pass'] if r['pass'] else self.tex(r['status']), num(r['step_time_mean_s']) * 1e6))
                first = False
        cap = ('The engines on the scenes the scene peers have (\\texttt{peer\\_scene}: ODE, Bullet with two '
               'friction rows a contact, MuJoCo; each version as the engine reports it) at %d iterations, '
               'judged by the same judges on their trace of the body (the stack: on their own largest '
               'displacement from the start), beside lcplab\'s %s at budget %d; error: what the tolerance of '
               'Table~\\ref{tab:fidscenes} bounds.' % (
                   iters, series([self.tt(x) for x in FID_ENGINE_SOLVERS]), iters))
        head = 'scene & engine & version & measured & error & pass & $\\mu$s/step'
        return self.table_floats(cap, 'tab:fidengines', '@{}lllrrlr@{}', head, out)

    def absent_externals(self):
        """The externals each section left out (`# externals_absent:`), in order."""
        out = []
        for name in PEER_SECTIONS + tuple(self.scene_sections()):
            if self.have(name + '.csv'):
                for x in self.read(name + '.csv')[0].get('externals_absent', '').split('(')[0].split(','):
                    if x.strip() and x.strip() not in out:
                        out.append(x.strip())
        return out

    def peer_table(self, name):
        """One row per (class, solver) at the section's first tolerance: the
        problems it accepts, the refusals apart, solved, fastest, tied, rho(10)
        (NAME_winners.csv) and the unsolved by status (NAME_failures.csv)."""
        _, w = self.read(name + '_winners.csv')
        _, fl = self.read(name + '_failures.csv')
        tol = w[0]['tol'] if w else None
        fails = {(r['class'], r['solver']): r for r in fl if r['tol'] == tol}
        # answers the judge accepts and the solver's own verdict rejects: unsolved, and said so
        own = {}
        for r in self.csv_rows(name + '_disagreements.csv'):
            if r['tol'] == tol and r['solved'] == '1':
                own[(r['class'], r['solver'])] = own.get((r['class'], r['solver']), 0) + 1
        # refusals in every denominator (issue 84): beside rho(10) over the accepted problems, as in
        # the winners table, rho_all(10) over the class's problems, a refusal counted as unsolved
        rall = self.rho_all_at(name + '_profile.csv', tol, 10.0)
        t = ('\\begin{tabular}{@{}llrrrrrr%sl@{}}\n\\toprule\nclass & solver & accepted & refused & solved & '
             'fastest & tied & $\\rho(10)$%s & unsolved: status (problems) \\\\\n\\midrule\n' % (
                 'r' if rall else '', ' & $\\rho_{\\mathrm{all}}(10)$' if rall else ''))
        cls = classes_of([r for r in w if r['tol'] == tol])
        for c in cls:
            first = True
            for r in (r for r in w if r['tol'] == tol and r['class'] == c):
                f = fails.get((c, r['solver']), {})
                bad = ['%s %d' % (SHORT.get(k, k), int(num(f[k]))) for k in STATUSES
                       if k not in ('converged', 'refused') and k in f and int(num(f[k]))]
                if own.get((c, r['solver'])):
                    bad.append('own verdict %d' % own[(c, r['solver'])])
                sname = self.tt(r['solver']) + ('$^{*}$' if r.get('same_as') else '')
                ra = (' & %.2f' % rall[(c, r['solver'])]) if (c, r['solver']) in rall else (' & ' if rall else '')
                t += '%s & %s & %s & %s & %s & %s & %s & %.2f%s & %s \\\\\n' % (
                    self.tex(c) if first else '', sname, r['problems'], r.get('refused', ''), r['solved'],
                    r['fastest'], r['tied'], num(r['rho_10']), ra, ', '.join(bad))
                first = False
            t += '\\midrule\n' if c != cls[-1] else ''
        return t + '\\bottomrule\n\\end{tabular}\n', tol, w

    def peer_section_paragraph(self, name, w, tol):
        """Who ran, on what, who leads, in one paragraph from the section's CSVs."""
        p, rows = self.read(name + '.csv')
        solvers = list(dict.fromkeys(r['solver'] for r in rows))
        ext = [s for s in solvers if self.is_peer(s)]
        own = [s for s in solvers if not self.is_peer(s)]
        probs = collection(rows)
        t = ('\\paragraph{Peers on %s.} %s of \\lcp\\ (%s) and %s (%s) on %s, to the tolerance $%s$ '
             '(Table~\\ref{tab:%s}). ' % (
                 series([CLASS_NAME.get(c) or self.tex(c) for c in classes_of(list(probs.values()))]) + ' problems',
                 upfirst(plural(len(own), 'solver')), ', '.join(self.tt(s) for s in own),
                 plural(len(ext), 'peer'), ', '.join(self.tt(s) for s in ext),
                 series([plural(sum(1 for r in probs.values() if r['class'] == c),
                                (CLASS_NAME.get(c) or self.tex(c)) + ' problem')
                         for c in classes_of(list(probs.values()))]), tolfmt(tol), name.replace('_', '')))
        srcs = sorted({r.get('time_source') for r in rows
                       if self.is_peer(r['solver']) and r.get('time_source')})
        peer_unconv = sum(int(num(r['unconverged'])) for r in self.read(name + '_failures.csv')[1]
                          if self.is_peer(r['solver']) and r['tol'] == tol)
        if peer_unconv:
            t += ('A peer\'s answer counts as solved when \\lcp\'s test accepts it, the test its own solvers '
                  'meet, and the peer\'s own verdict, where it gives one, agrees; %s of the peers\' answers were rejected by it (``unconv.\'\' in the table), whatever '
                  'the peer\'s own stopping test said. ' % count_word(peer_unconv))
        if srcs == ['reported']:
            t += ('The peers\' times are the median solve times they report over repeated solves in one '
                  'process (not the process: reading the file is not charged to them). ')
        _, lead_rows = self.read(name + '_leaders.csv')
        sup = class_support(rows, tol)
        for L in (r for r in lead_rows if r['tol'] == tol):
            parts = []
            if not sup.get(L['class'], (0, 0, 0))[2]:
                t += upfirst(too_small(CLASS_NAME.get(L['class']) or self.tex(L['class']),
                                       sup.get(L['class'], (0, 0, 0)))) + '. '
                continue
            if L['best_external'] and not int(num(L['best_external_solved'])):
                parts.append('no peer solves any, \\lcp\'s %s solves %s' % (self.tt(L['best_builtin']),
                                                                         L['best_builtin_solved']))
            elif L['best_builtin'] and L['best_external']:
                parts.append('the peer that solves the most is %s (%s of %s, $\\rho(10)=%.2f$), \\lcp\'s is %s '
                             '(%s, $\\rho(10)=%.2f$)' % (
                                 self.tt(L['best_external']), L['best_external_solved'], L['problems'],
                                 num(L['best_external_rho_10']), self.tt(L['best_builtin']),
                                 L['best_builtin_solved'], num(L['best_builtin_rho_10'])))
            if L['fastest']:
                parts.append('%s is fastest alone on %s%s' % (self.tt(L['fastest']), L['fastest_alone'],
                                                             self.interval_words(L)))
            if parts:
                t += 'On the %s problems (%s), %s. ' % (CLASS_NAME.get(L['class']) or self.tex(L['class']),
                                                       L['problems'], '; '.join(parts))
        same_rows = [r for r in w if r['tol'] == tol and r.get('same_as')]
        if same_rows:
            t += '%s ran another solver\'s trace on some problems (marked $^*$): %s. ' % (
                upfirst(plural(len(same_rows), 'solver')),
                series(['%s as %s on %s' % (self.tt(r['solver']), self.tt(r['same_as'].partition(' on ')[0]),
                                             plural(int(num(r['same_as'].partition(' on ')[2] or 0)), 'problem'))
                        for r in same_rows]))
        return t

    def scene_sections(self):
        """The results' sections of kind scenes (scenes.csv, and scenes_NAME.csv
        such as the main job's scenes_newton), by their CSV's first line."""
        out = []
        for f in sorted(os.listdir(self.res)):
            if f.startswith('scenes') and f.endswith('.csv'):
                with open(os.path.join(self.res, f)) as fh:
                    if fh.readline().split()[3:5] == ['scenes', f[:-4]]:
                        out.append(f[:-4])  # the section's own CSV, not one of its tables
        return sorted(out, key=lambda n: n != 'scenes')

    def scene_peer_rows(self):
        """Every scenes section's rows, a scene's runs together (in the order
        the scenes first appear)."""
        rows = [r for n in self.scene_sections() for r in self.read(n + '.csv')[1]]
        order = list(dict.fromkeys('%s %s' % (r['scene'], r['params']) for r in rows))
        return sorted(rows, key=lambda r: order.index('%s %s' % (r['scene'], r['params'])))

    def scenes_table(self):
        """The scenes sections' summary rows: one per (scene, engine)."""
        rows = self.scene_peer_rows()
        t = ('\\begin{tabular}{@{}lllrrrrrr@{}}\n\\toprule\nscene & engine & friction & steps & contacts & '
             'step (s) & per contact (s) & energy change & penetration (m) \\\\\n\\midrule\n')
        last = None
        for r in rows:
            sc = '%s %s' % (r['scene'], r['params'])
            t += '%s & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n' % (
                self.tex(sc) if sc != last else '', self.tt(r['solver']), self.tex(r['friction']), r['steps'],
                r['contacts_max'], cellsci(r['time_step_median_s']), cellsci(r['time_per_contact_s']),
                cellsci(r['energy_drift']), cellsci(r['max_penetration_end']))
            last = sc
        return t + '\\bottomrule\n\\end{tabular}\n', rows

    def scenes_paragraph(self, rows):
        engines = list(dict.fromkeys(r['solver'] for r in rows))
        scenes = list(dict.fromkeys('%s (%s)' % (self.tex(r['scene']), self.tex(r['params'])) for r in rows))
        t = ('\\paragraph{Scenes.} %s ran in %s: %s (Table~\\ref{tab:peerscenes}); the step time is the '
             'median wall time of a whole step (collision and solve), the energy change is relative to the '
             'start, the penetration is the deepest at the end. ' % (
                 upfirst(series(scenes)), plural(len(engines), 'engine'), series([self.tt(e) for e in engines])))
        mi = self.read('scenes.csv')[0].get('config max_iter', '') if self.have('scenes.csv') else ''
        if mi:
            # issue 84 item 4: a scene result reports converged answers or says it compares budgets
            t += ('These runs compare a fixed budget of %s iterations a step in every engine, not converged '
                  'answers%s. ' % (mi, '; Section~\\ref{sec:fidelity} judges runs against analytic answers'
                                   if self.have('fidelity.csv') else ''))
        unconv = [r for r in rows if num(r.get('not_converged')) > 0]
        if unconv:
            t += ('\\lcp\'s solver ended steps on its iteration limit%s: %s. ' % (
                (' (%s sweeps a step, the iteration count each peer is given too)' % mi) if mi else '', series(['%s of %s steps on the %s' % (r['not_converged'], r['steps'],
                                                                             self.tex(r['scene'])) for r in unconv])))
        fb = [r for r in rows if num(r.get('fallback_steps')) > 0]
        if fb:
            t += 'The fallback solver carried %s. ' % series(['%s steps of %s on the %s' % (
                r['fallback_steps'], self.tt(r['solver']), self.tex(r['scene'])) for r in fb])
        return t + self.newton_note(engines, rows)

    def external_commands(self):
        """The campaign's external solvers and their command lines (plan.exp)."""
        path = os.path.join(self.res, 'campaign', 'plan.exp')
        out = {}
        if os.path.exists(path):
            with open(path) as fh:
                for l in fh:
                    w = l.split()
                    if len(w) > 1 and w[0] == 'external':
                        out[w[1]] = l
        return out

    def newton_note(self, engines, rows=()):
        """MuJoCo's Newton solver in the scene comparison (on which scenes), or
        why it is not."""
        newton = [n for n, c in self.external_commands().items() if 'mujoco-newton' in c]
        ran = [n for n in newton if n in engines]
        if ran:
            allsc = list(dict.fromkeys('%s (%s)' % (self.tex(r['scene']), self.tex(r['params'])) for r in rows))
            mine = list(dict.fromkeys('%s (%s)' % (self.tex(r['scene']), self.tex(r['params'])) for r in rows
                                      if r['solver'] in ran))
            if len(mine) < len(allsc):
                return ('MuJoCo\'s Newton solver (%s) ran on %s only: the experiment file leaves it out of the '
                        'other scene%s for its running time (seconds a step). ' % (
                            series([self.tt(n) for n in ran]), series(mine), '' if len(allsc) - len(mine) == 1 else 's'))
            return 'MuJoCo\'s Newton solver (%s) ran on every scene. ' % series([self.tt(n) for n in ran])
        if newton:
            return ('MuJoCo\'s Newton solver (%s) was declared but is absent from this machine. ' %
                    series([self.tt(n) for n in newton]))
        return ('MuJoCo\'s Newton solver is not in this comparison: this run\'s experiment file does not '
                'declare it (the main job leaves it out for its running time on the pile); the full campaign, '
                '\\texttt{experiments/full.exp}, runs it. ')

    def validation_paragraph(self):
        """The harness against peer_fc3d's own verdicts (make bench-validate),
        when its results are in RESULTS_DIR/bench_validate: every count from
        bench_validate_agreement.csv (the engine's table), the problems, the
        time limit and the runs without a verdict from bench_validate.csv."""
        path = os.path.join('bench_validate', 'bench_validate_agreement.csv')
        if not self.have(path):
            return ''
        _, rows = self.read(path)
        allr = [r for r in rows if r['solver'] == 'all']
        if not allr:
            return ''
        a = allr[0]
        per = [r for r in rows if r['solver'] != 'all' and r['tol'] == a['tol']]
        pairs, agree, nov = int(num(a['pairs'])), int(num(a['agree'])), int(num(a['no_verdict']))
        total = pairs + nov
        runs = os.path.join('bench_validate', 'bench_validate.csv')
        bpre, brows = self.read(runs) if self.have(runs) else ({}, [])
        brows = [r for r in brows if r.get('tol') and num(r['tol']) == num(a['tol'])]
        probs = len({r['problem'] for r in brows})
        lim = bpre.get('time_limit_s', '').split(' ')[0]
        t = ('\\paragraph{The harness against the literature.} A separate run, \\texttt{make bench-validate} '
             '(not part of the main job), runs %s of Siconos (%s) as external solvers through the engine '
             'on %s, and compares the engine\'s verdict ($\\mathrm{err}_\\mathrm{siconos}\\le %s$, recomputed by '
             'the library from the answer the solver wrote) with the one \\texttt{peer\\_fc3d} prints itself '
             '(\\texttt{solved}: its own $\\mathrm{err}_\\mathrm{siconos}\\le %s$, $r$ and $u$ finite). ' % (
                 plural(len(per), 'solver'), ', '.join(self.tt(r['solver']) for r in per),
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
                    '%s on %s' % (self.tt(r['solver']), self.tt(r['problem'])))
            if gone and len(gone) == nov:
                t += 'The other %s gave no verdict, %s. ' % (
                    plural(nov, 'run'), '; '.join('%s: %s' % (w, series(v)) for w, v in by.items()))
            else:
                t += 'The other %s gave no verdict (refused, killed at the time limit or silent). ' % (
                    plural(nov, 'run'))
            t += ('Counted as disagreements, the two verdicts agree on %d of the %d pairs (%.1f\\,\\%%). ' %
                  (agree, total, 100.0 * agree / total))
        return t.rstrip() + '\n\n'

    def disagree_clause(self, name):
        """A section's rows whose own verdict is not the judge's: unsolved for
        their solver alone (the engine's exp_tab_row_solved)."""
        rs = self.csv_rows(name + '_disagreements.csv')
        if not rs:
            return ''
        which = (' (%s)' % ', '.join('%s on %s' % (self.tt(r['solver']), self.tt(r['problem'])) for r in rs)
                 if len(rs) <= 6 else '')
        return ('; %s where a solver\'s own verdict is not the judge\'s%s count as unsolved for that solver '
                'alone (Table~\\ref{tab:disagree}; ``own verdict\'\': answers the judge accepts)' % (
                    plural(len(rs), 'row'), which))

    def section_tie_words(self, name):
        """A section's tie factor and where it comes from (NAME_timing.csv)."""
        r = dict(self.timing_rows()).get(name, {})
        f = 1 + num(r.get('tie'))
        if math.isnan(f):
            return 'the section\'s tie factor'
        return 'a factor %.3f of the best time (%s)' % (f, {
            'replicates': 'the noise between %s passes over the timed set, as in the profiles' % count_word(
                passes(r.get('replicates'), 2)),
            'noise': 'the noise between the repeats inside one task',
            'default': 'the default: no noise was measured'}.get(r.get('tie_source'), 'set by the section'))

    def peer_options(self, line):
        """An `external` line's program and what it is told: the command
        template's program by its base name and its words up to the files it
        reads and writes ({in}, {out})."""
        cmd = line.split(' command ', 1)[1] if ' command ' in line else ''
        words = []
        for w in cmd.split(' && ')[0].split():
            if '{in}' in w or '{out}' in w:
                break
            words.append(w)
        if words and words[-1].startswith('--save'):
            words.pop()
        if words:
            words[0] = os.path.basename(words[0])
        return ' '.join(words)

    def files_of(self, names, suffix):
        """The files NAME+suffix of the sections names, each with its section's
        name (a caption never names a bare \\_suffix.csv: issue 84)."""
        return series(['\\texttt{%s}' % self.tex(n + suffix) for n in names])

    def peers_versions(self):
        """The peers' table (every section's NAME_peers.csv, one row a peer):
        version, program, options and what it is told, ladder, own verdict's key."""
        cmds = self.external_commands()
        seen = {}
        for name in ('profile',) + PEER_SECTIONS:
            if self.have(name + '_peers.csv'):
                for r in self.read(name + '_peers.csv')[1]:
                    seen.setdefault(r['solver'], r)
        if not seen:
            return ''
        t = ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The peers as run (%s, and the campaign\'s \\texttt{external} lines): the version of the library the '
             'harness was built against, the program and its options as the command template gives them (the '
             'values in braces are the section\'s: \\texttt{\\{tol\\}} the tolerance, \\texttt{\\{max\\_iter\\}} the '
             'iteration limit, \\texttt{\\{repeat\\}} the solves a process, \\texttt{\\{time\\_limit\\}} the time '
             'limit), the instance format, the ladder (times a rejected answer is asked for again told a tolerance ten '
             'times tighter; none for a pivoting peer, which takes no tolerance) and the key of the peer\'s own verdict.}\n  \\label{tab:peerversions}\n'
             '  \\setlength{\\tabcolsep}{3pt}\n'
             # the page's width, the long cells wrapped (versions at their hyphens, options at spaces)
             '\\begin{tabularx}{\\textwidth}{@{}l>{\\raggedright\\arraybackslash}p{0.2\\textwidth}'
             '>{\\raggedright\\arraybackslash}Xlrl@{}}\n\\toprule\n'
             'peer & version & program and options & format & ladder & verdict \\\\\n\\midrule\n') % self.files_of(
                 [n for n in ('profile',) + PEER_SECTIONS if self.have(n + '_peers.csv')], '_peers.csv')
        for sname, r in seen.items():
            opts = self.peer_options(cmds.get(sname, ''))
            t += '%s & %s & %s & %s & %s & %s \\\\\n' % (
                self.tt(sname), self.tex(r.get('version') or 'not stated'), self.tt(opts) if opts else '',
                self.tex(r.get('format', '')), r.get('ladder', ''), self.tt(r['verdict_key']) if r.get('verdict_key')
                else 'none')
        return t + '\\bottomrule\n\\end{tabularx}\n\\end{table*}\n\n'

    def disagreement_cases(self, rows):
        """The disagreeing rows in words: each one when they are few, else
        their count per solver and direction (every row is in the table)."""
        def way(r):
            return '%s by the judge, %s by its own test' % ('solved' if r['solved'] == '1' else 'unsolved',
                                                           'solved' if r['reported_solved'] == '1' else 'unsolved')
        if len(rows) <= 8:
            return series(['%s on %s (%s: %s)' % (self.tt(r['solver']), self.tt(r['problem']), self.tex(n), way(r))
                           for n, r in rows])
        per = {}
        for _, r in rows:
            per[(r['solver'], way(r))] = per.get((r['solver'], way(r)), 0) + 1
        return 'per solver, ' + series(['%s %d (%s)' % (self.tt(k[0]), v, k[1])
                                        for k, v in sorted(per.items(), key=lambda x: (-x[1], x[0]))])

    def disagreements(self):
        """The rows where a solver's own verdict is not the judge's
        (NAME_disagreements.csv of each section): their table and sentence."""
        rows = []
        for name in ('profile',) + PEER_SECTIONS:
            if self.have(name + '_disagreements.csv'):
                rows += [(name, r) for r in self.read(name + '_disagreements.csv')[1]]
        have = any(self.have(n + '_disagreements.csv') for n in ('profile',) + PEER_SECTIONS)
        if not have:
            return ''
        if not rows:
            return ('No solver\'s own verdict disagreed with the judge\'s in this run: the counts, winners and profiles '
                    'rest on every problem. ')
        t = ('On %s a solver\'s own verdict and the judge\'s disagree (Table~\\ref{tab:disagree}): %s. Each such row '
             'counts as unsolved for its own solver on that problem, in the counts, winners, timings and profiles; '
             'the problem stays in them for every other solver. ' % (
                 plural(len(rows), 'row'), self.disagreement_cases(rows)))
        lines = ['%s & %s & %s & %s & %s & %s & %s & %s & %s \\\\\n' % (
            self.tex(n), self.tex(r['class']), self.tt(r['problem']), self.tt(r['solver']), self.tex(r['status']),
            'solved' if r['solved'] == '1' else 'unsolved', 'solved' if r['reported_solved'] == '1' else 'unsolved',
            cellsci(r['res_scaled']), ('$%s$' % tolfmt(r['peer_tol'])) if r.get('peer_tol') else 'none')
            for n, r in rows]
        return t + '\n\n' + self.table_floats(
            'The disagreements: rows where a solver\'s own verdict (its \\texttt{verdict=} key) is not the judge\'s '
            '($\\mathrm{res}_{\\mathrm{scaled}}\\le\\mathrm{tol}$), per section (%s); each is unsolved for its '
            'solver alone; told: the tolerance the solver was last told on the ladder (none: its command takes no '
            'tolerance, e.g.\\ a pivoting method given a pivot limit only, and it stops on its own rule).' %
            self.files_of(sorted({n for n, _ in rows}), '_disagreements.csv'), 'tab:disagree', '@{}llllllrrr@{}',
            'section & class & problem & solver & status & judge & own & $\\mathrm{res}_{\\mathrm{scaled}}$ & told',
            lines) + '\n'


    def ladder_cases(self, acc):
        """The answers accepted down the ladder: each one when they are few, else
        their count per peer (each row's peer_tol is in the section's CSV)."""
        if len(acc) <= 8:
            return series(['%s on %s told $%s$' % (self.tt(r['solver']), self.tt(r['problem']),
                                                    tolfmt(r['peer_tol'])) for r in acc])
        per = {}
        for r in acc:
            per[r['solver']] = per.get(r['solver'], 0) + 1
        return ('per peer: %s; each answer\'s tolerance is the CSVs\' \\texttt{peer\\_tol} column' %
                series(['%s %d' % (self.tt(k), v) for k, v in sorted(per.items(), key=lambda x: (-x[1], x[0]))]))

    def ladder_sentence(self):
        """The peers' ladder as run: the answers accepted only once told a
        tighter tolerance (peer_tol below the section's tol)."""
        lad, told = [], 0
        for name in ('profile',) + PEER_SECTIONS:
            if not self.have(name + '.csv'):
                continue
            for r in self.read(name + '.csv')[1]:
                if self.is_peer(r['solver']) and r.get('peer_tol'):
                    told += 1
                    if num(r['peer_tol']) < num(r['tol']):
                        lad.append(r)
        if not told:
            return ''
        acc = [r for r in lad if r['status'] == 'converged']
        t = ('One stopping rule holds for every solver: each answer is judged by $\\mathrm{res}_{\\mathrm{scaled}}\\le'
             '\\mathrm{tol}$, the measure \\lcp\'s solvers stop on; a peer stops on its own measure, and an answer the '
             'judge rejects is asked for again told a tolerance ten times tighter, up to its ladder '
             '(Table~\\ref{tab:peerversions}). ')
        if lad and acc:
            t += ('Of the %d peer answers told a tolerance, %d went down the ladder, and %d of these were then '
                  'accepted (%s). ' % (told, len(lad), len(acc), self.ladder_cases(acc)))
        elif lad:
            t += ('Of the %d peer answers told a tolerance, %d went down the ladder and the judge accepted none of '
                  'them. ' % (told, len(lad)))
        else:
            t += 'None of the %d peer answers told a tolerance needed the ladder. ' % told
        return t + ('The peers\' clock holds their solver call, not their a-posteriori error; \\lcp\'s holds the '
                    'validation and the residual its verdict needs (the protocol\'s ``Timing\'\'). ')

    def peers_side_section(self):
        t = self.ladder_sentence() + self.disagreements() + self.peers_versions()
        for name in PEER_SECTIONS:
            if not self.have(name + '.csv') or not self.have(name + '_winners.csv'):
                continue
            tab, tol, w = self.peer_table(name)
            if not w:
                continue
            t += self.peer_section_paragraph(name, w, tol) + '\n\n'
            t += ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{%s: \\lcp\'s solvers and the '
                  'peers at $%s$; accepted: the problems the solver takes, refused: those it refused; '
                  '$\\rho(10)$ over the accepted problems, $\\rho_{\\mathrm{all}}(10)$ over all the class\'s '
                  'problems with a refusal counted as unsolved (as in Table~\\ref{tab:win} and the profiles with '
                  'refusals)%s; fastest and tied at $\\tau=1$ within %s.}\n'
                  '  \\label{tab:%s}\n  \\setlength{\\tabcolsep}{3pt}\n%s\\end{table*}\n\n' % (
                      self.tex(name), tolfmt(tol), self.disagree_clause(name), self.section_tie_words(name),
                      name.replace('_', ''), tab))
        if self.scene_sections():
            tab, rows = self.scenes_table()
            if rows:
                t += self.scenes_paragraph(rows) + '\n\n'
                t += ('\\begin{table*}[tbp]\n  \\centering\\scriptsize\n  \\caption{The scenes in \\lcp\\ and '
                      'in the scene peers, one run each.}\n  \\label{tab:peerscenes}\n'
                      '  \\setlength{\\tabcolsep}{3pt}\n%s\\end{table*}\n\n' % tab)
        gone = self.absent_externals()
        if t and gone:
            t += ('Not built on this machine, and so left out of these sections: %s.\n\n' %
                  series([self.tt(x) for x in gone]))
        t += self.validation_paragraph()
        if not t:
            return ''
        return ('\\section{The peers side by side}\\label{sec:peers}\nThese sections of the same campaign run '
                '\\lcp\'s solvers and other libraries\' as external programs on the same problems; every '
                'answer is judged by \\lcp\'s residual, and a refusal is outside the denominators.\n\n' + t)

    # ---- conclusion: what this run shows, per class ------------------------------------------------
    def conclusion_text(self):
        self.write('conclusion.tex', self.conclusion())

    def peers_conclusion(self):
        """One sentence on the peers' sections: per class, the most problems
        solved by lcplab's best solver and by the best peer (NAME_leaders.csv)."""
        parts = []
        for name in PEER_SECTIONS:
            if not self.have(name + '_leaders.csv'):
                continue
            lr = self.read(name + '_leaders.csv')[1]
            tol = lr[0]['tol'] if lr else None
            sup = class_support(self.read(name + '.csv')[1], tol) if tol else {}
            for L in (r for r in lr if r['tol'] == tol and r['best_builtin'] and r['best_external']
                      and sup.get(r['class'], (0, 0, 0))[2]):
                parts.append('on the %s problems of %s at $%s$, \\lcp\'s %s solves %s of %s and the best peer, '
                             '%s, %s' % (CLASS_NAME.get(L['class']) or self.tex(L['class']), self.tex(name), tolfmt(tol),
                                         self.tt(L['best_builtin']), L['best_builtin_solved'], L['problems'],
                                         self.tt(L['best_external']), L['best_external_solved']))
        return (' Beside the peers (Section~\\ref{sec:peers}): %s.' % '; '.join(parts)) if parts else ''

    def conclusion(self):
        parts, small = [], []
        for c in classes_of(self.wrows):
            L = self.lead(c, self.tolA)
            if not L or not L['fastest']:
                continue
            if not self.supported(c):
                small.append(c)
                continue
            parts.append(self.class_verdict(c))
        winners = {self.lead(c, self.tolA)['fastest'] for c in classes_of(self.wrows)
                   if self.lead(c, self.tolA) and self.lead(c, self.tolA)['fastest'] and self.supported(c)
                   and self.distinct(self.lead(c, self.tolA))}
        # the profiles' problems: the verdicts below are theirs (the scaling and
        # large sets are not in the profiles)
        ncl = len(classes_of(self.wrows))
        t = '\\section{Conclusion}\\label{sec:concl}\nOn the %d problems of the profiles, in %s, at %s' % (
            len(collection(self.prof)), plural(ncl, 'class', 'classes'), '$' + tolfmt(self.tolA) + '$')
        t += (', %s.' % '; '.join(parts)) if parts else ', no class is large enough for a statement.'
        if small:
            t += (' %s %s too small (a statement needs %d problems, %d of them with a best time of 1\\,ms or '
                  'more; %s).' % (
                      upfirst(series([CLASS_NAME.get(c) or self.tex(c) for c in small])) if parts else 'Every class is',
                      ('is' if len(small) == 1 else 'are') if parts else '', CLASS_MIN_PROBLEMS, CLASS_MIN_SLOW,
                      '; '.join(['%s: %d problems, %d at 1\\,ms or more' % (CLASS_NAME.get(c) or self.tex(c), self.support[c][0],
                                                 self.support[c][1]) for c in small]))).replace('  ', ' ')
        if len(winners) > 1:
            t += ' No solver is fastest on every class.'
        t += self.peers_conclusion()
        t += (' The comparison is limited by the size of the sample (Table~\\ref{tab:coll}), by the machine '
              '(Table~\\ref{tab:prov}) and by the solvers\' default parameters '
              '(' + self.solver_params_ref() + '); the '
              'campaign file and the toolkit make it repeatable with other settings.\n')
        return t if parts or small else ''

    # ---- maximal against reduced coordinates (make articulated) --------------------------------
    def articulated(self):
        """articulated.tex and its clause when the results have articulated.csv;
        HaveArticulated, after numbers.tex."""
        art = ''
        self.write('articulated_clause.tex', '')
        if self.have('articulated.csv'):
            self.write('articulated_clause.tex', 'Table~\\ref{tab:art} compares them on a pendulum chain '
                       '(\\texttt{make articulated}).')
            _, ar = self.read('articulated.csv')
            art = ('\\begin{tabular}{@{}rlrrr@{}}\n\\toprule\n$h$ (s) & formulation & joint drift (m) & '
                   'energy drift & time/step (s) \\\\\n\\midrule\n')
            for r in ar:
                art += '%s & %s & %s & %s & %s \\\\\n' % (
                    r['h'], r['formulation'].replace('_', ' '), cellsci(r['joint_drift_max']),
                    cellsci(r['energy_drift']), cellsci(r['time_per_step_s']))
            art += '\\bottomrule\n\\end{tabular}\n'
        self.write('articulated.tex', art)
        with open(os.path.join(self.gen, 'numbers.tex'), 'a') as fh:
            fh.write(macro('HaveArticulated', '1' if art else '0'))


def bib_without_notes(text):
    """The bibliography without its note fields: they are the project's
    comments on a reference (docs/references.bib), not part of it, and the
    plain style would print them in the reference list."""
    out, i = [], 0
    for m in re.finditer(r'^\s*note\s*=\s*\{', text, re.M):
        if m.start() < i:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {'{': 1, '}': -1}.get(text[j], 0)
            j += 1
        while j < len(text) and text[j] in ' \t,':
            j += 1
        if j < len(text) and text[j] == '\n':
            j += 1
        out.append(text[i:m.start()])
        i = j
    return ''.join(out) + text[i:]


def read_scene_rows(path):
    """The preamble lines, header and rows of a scene section's CSV."""
    with open(path, newline='') as fh:
        lines = fh.readlines()
    rows = list(csv.reader(l for l in lines if not l.startswith('#')))
    return [l for l in lines if l.startswith('#')], (rows[0] if rows else []), rows[1:]


def traced_solvers(path):
    """The solvers of a scene section's per-step CSV with a row that is not a
    refusal."""
    if not os.path.exists(path):
        return set()
    _, head, body = read_scene_rows(path)
    if 'solver' not in head or 'status' not in head:
        return set()
    si, st = head.index('solver'), head.index('status')
    return {r[si] for r in body if r[st] not in ('refused', 'unsupported')}


def trace_groups(path):
    """The run groups of a per-step or per-iteration CSV (drift.csv, accuracy.csv:
    scene, integrator, friction; convergence.csv: problem, tol) with each solver's
    trace in each: (head, body, si, keys, {group: {solver: trace}}, refused, order), or
    None.  A trace is a run's rows but for the solver's name, the note and, in the
    convergence section, the method and the measured times (two runs are one algorithm
    when their residuals match iteration by iteration)."""
    if not os.path.exists(path):
        return None
    _, head, body = read_scene_rows(path)
    group = ('scene', 'integrator', 'friction') if 'scene' in head else ('problem', 'tol')
    try:
        si, keys = head.index('solver'), [head.index(k) for k in group]
    except ValueError:
        return None
    st = head.index('status') if 'status' in head else None
    skip = {si} | {head.index(k) for k in ('note', 'method', 'time_s', 'time_source') if k in head}
    traces, refused = {}, set()
    for r in body:
        g = tuple(r[k] for k in keys)
        if st is not None and r[st] in ('refused', 'unsupported'):
            refused.add((g, r[si]))
        traces.setdefault(g, {}).setdefault(r[si], []).append(tuple(v for i, v in enumerate(r) if i not in skip))
    return head, body, si, keys, traces, refused, list(dict.fromkeys(r[si] for r in body))


def group_aliases(path):
    """{(group, b): a} for every run group where solver b's trace equals an earlier
    solver a's (issue 84: identical algorithms merged wherever they are identical, not
    only where they are identical on every group).  A refusal is no trace."""
    tg = trace_groups(path)
    if not tg:
        return {}
    _, _, _, _, traces, refused, order = tg
    out = {}
    for g, per in traces.items():
        for b in order:
            if b not in per or (g, b) in refused:
                continue
            for a in order[:order.index(b)]:
                if a in per and (g, a) not in refused and (g, a) not in out and per[a] == per[b]:
                    out[(g, b)] = a
                    break
    return out


def trace_aliases(path):
    """Identical algorithms of a per-step CSV (drift.csv, accuracy.csv; issue 65,
    point 4) or of convergence.csv: {b: a} when solver b's trace equals an earlier
    solver a's in every run group where b has one, and in at least one."""
    tg = trace_groups(path)
    if not tg:
        return {}
    _, _, _, _, traces, refused, order = tg
    alias = {}
    for b in order:
        groups = [g for g, per in traces.items() if b in per and (g, b) not in refused]
        for a in order[:order.index(b)]:
            if a in alias or not groups:
                continue
            if all(a in traces[g] and (g, a) not in refused and traces[g][a] == traces[g][b] for g in groups):
                alias[b] = a
                break
    return alias


def merge_traces(src, dst):
    """src for its figure with identical algorithms drawn once, under the
    first one's name, in every run group where they are identical
    (group_aliases): the rows of the others there are left out; the preamble
    is kept (the figure's options)."""
    alias = group_aliases(src)
    pre, head, body = read_scene_rows(src)
    tg = trace_groups(src)
    si, keys = (tg[2], tg[3]) if tg else (-1, [])
    with open(dst, 'w', newline='') as fh:
        fh.writelines(pre)
        w = csv.writer(fh, lineterminator='\n')
        if head:
            w.writerow(head)
        for r in body:
            if si < 0 or (tuple(r[k] for k in keys), r[si]) not in alias:
                w.writerow(r)


def main(argv):
    if len(argv) == 4 and argv[1] == '--bib':
        with open(argv[2]) as fh:
            text = bib_without_notes(fh.read())
        with open(argv[3], 'w') as fh:
            fh.write(text)
        return
    if len(argv) == 4 and argv[1] == '--merge-traces':
        merge_traces(argv[2], argv[3])
        return
    if len(argv) != 3:
        sys.exit('usage: python3 paper/gen.py RESULTS_DIR GEN_DIR\n'
                 '       python3 paper/gen.py --bib REFS.bib OUT.bib\n'
                 '       python3 paper/gen.py --merge-traces SCENE.csv OUT.csv')
    Paper(argv[1], argv[2]).run()


if __name__ == '__main__':
    main(sys.argv)
