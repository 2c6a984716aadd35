# paper_checks.py -- the checks of tests/test_paper_gen.sh on paper/gen.py's
# output (issue 52): no placeholder reaches the paper, and every checked count
# or verdict agrees with the CSVs of the results folder.
#
#   python3 tests/paper_checks.py RESULTS_DIR GEN_DIR PAPER_TEX
#
# paper.tex is read with its \input{gen/...} files inlined and its comments
# removed.  One line per check: "ok DESC" or "FAIL DESC: WHY".
import csv
import math
import os
import re
import sys

res, gen, paper = sys.argv[1:4]
WORDS = {'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7,
         'eight': 8, 'nine': 9, 'ten': 10}


def report(ok, desc, why=''):
    print(('ok %s' % desc) if ok else ('FAIL %s: %s' % (desc, why)))


def strip_comments(text):
    return re.sub(r'(?<!\\)%.*', '', text)


def inline(text):
    def one(m):
        path = os.path.join(gen, os.path.basename(m.group(1)))
        if not os.path.exists(path) or m.group(1) == 'numbers.tex':
            return ''
        with open(path) as fh:
            return inline(strip_comments(fh.read()))
    return re.sub(r'\\input\{gen/([^}]*)\}', one, text)


def rows(name):
    path = os.path.join(res, name)
    if not os.path.exists(path):
        return [], {}
    pre, body = {}, []
    with open(path, newline='') as fh:
        for line in fh:
            if line.startswith('# config> '):
                k, _, v = line[10:].strip().partition(' ')
                pre.setdefault('config ' + k, v)
            elif line.startswith('#'):
                k, _, v = line[1:].strip().partition(':')
                pre.setdefault(k.strip(), v.strip())
            elif line.strip():
                body.append(line)
    return list(csv.DictReader(body)), pre


def macros():
    out = {}
    path = os.path.join(gen, 'numbers.tex')
    with open(path) as fh:
        for m in re.finditer(r'\\newcommand\{\\(\w+)\}\{(.*)\}\s*$', fh.read(), re.M):
            out[m.group(1)] = m.group(2)
    return out


M = macros()


def expand(text):
    """paper.tex with the generated macros replaced by their values."""
    for _ in range(3):
        text = re.sub(r'\\(\w+)(?:\{\})?', lambda m: M.get(m.group(1), m.group(0)), text)
    return text


with open(paper) as fh:
    doc_raw = strip_comments(fh.read())
    doc = expand(inline(doc_raw))
gens = ''
for name in sorted(os.listdir(gen)):
    with open(os.path.join(gen, name)) as fh:
        gens += fh.read() + '\n'
text = doc + '\n' + gens

# ---- placeholders ----------------------------------------------------------------------
PLACEHOLDERS = [
    (r'(?:^|[\s&{(\[$])--(?=[\s&}\\)\].,;$]|$)', '"--" as a value'),
    (r'\u2026|\.\.\.|\\ldots|\\dots', 'an ellipsis'),
    (r'\\texttt\{none\}|\(none\)|\bis none\b|\bby none\b', '"none" as a name'),
    (r'not run\b|were not built|not in this results folder|has no [\w-]+ section',
     'a sentence about absent data'),
]
for pat, desc in PLACEHOLDERS:
    hits = [m.group(0) for m in re.finditer(pat, text, re.M)]
    ctx = [text[max(0, m.start() - 40):m.end() + 40].replace('\n', ' ').replace('\\', '/')
           for m in re.finditer(pat, text, re.M)][:2]
    report(not hits, 'no placeholder: %s' % desc, '; '.join(ctx))

body = doc.split('\\begin{document}', 1)[-1]
parts = re.split(r'\\section\*?\{', body)
empty = []
for part in parts[1:]:
    title, _, rest = part.partition('}')
    rest = re.split(r'\\clearpage|\\end\{document\}|\\bibliography', rest)[0]
    rest = re.sub(r'\\label\{[^}]*\}|\\ifthenelse\{[^{}]*\}\{\}\{\}', '', rest)
    if not rest.strip():
        empty.append(title)
report(not empty, 'no empty section', ', '.join(empty))

# every page of a figure the paper shows has its float (NAME-2.pdf, NAME-1-3.pdf, ...)
shown = set(re.findall(r'\\iffig\{([^}]*)\}', doc_raw))
pages = sorted(f[:-4] for f in os.listdir(res) if f.endswith('.pdf') and
               re.match(r'(profile|drift|accuracy)(-\d+)*\.pdf$', f))
report(not [f for f in pages if f not in shown], 'every page of the paper\'s figures has its float',
       'no float for ' + ', '.join(f for f in pages if f not in shown))

# numbers are typeset, never in C's exponent notation ("$1.2e+02$" prints "1.2e + 02")
plain = re.sub(r'\\texttt\{[^}]*\}|\\(?:label|ref|input|cite)\{[^}]*\}', '', text)
bad = [plain[max(0, m.start() - 30):m.end() + 10].replace('\n', ' ').replace('\\', '/')
       for m in re.finditer(r'(?<![\w.-])\d+(?:\.\d+)?[eE][+-]\d+', plain)]
report(not bad, 'no number in C exponent notation', '; '.join(bad[:3]))

# ---- counts --------------------------------------------------------------------------

scal, spre = rows('scaling.csv')
sizes = {}
for r in scal:
    if r.get('n'):
        sizes.setdefault(r['problem'].split('_')[0], set()).add(r['n'])
counts = {len(v) for v in sizes.values()}
bad = []
for m in re.finditer(r'(\w+) sizes per family', text):
    k = WORDS.get(m.group(1).lower(), m.group(1))
    if counts != {int(k)} if str(k).isdigit() else True:
        bad.append('%s (the CSV: %s)' % (m.group(0), sorted(counts)))
report(not bad, 'the sizes per scaling family printed are the CSV\'s', '; '.join(bad))

# per generated family (FAMILY_N_sS): a family's "(n = ..., K seeds)" is its own seeds'; a count
# of seeds said elsewhere is every family's
seeds, fam_seeds = set(), {}
for r in rows('profile.csv')[0]:
    m = re.search(r'^(.*)_\d+_s(\d+)$', r['problem'])
    if m:
        seeds.add(m.group(2))
        fam_seeds.setdefault(m.group(1), set()).add(m.group(2))
bad = []
for m in re.finditer(r'(?:\\texttt\{([\w\\-]+)\} \([^()]*)?\b(\w+) seeds\b', text):
    k = WORDS.get(m.group(2).lower())
    want = fam_seeds.get((m.group(1) or '').replace('\\_', '_'), seeds)
    if k is not None and k != len(want):
        bad.append('%s (the CSV: %d)' % (m.group(0)[-40:], len(want)))
report(not bad, 'the number of seeds printed is the CSV\'s', '; '.join(bad))

slopes = [float(r['slope']) for r in rows('scaling_slopes.csv')[0] if r.get('slope')]
bad = []
for m in re.finditer(r'exponents near (\d+(?:\.\d+)?)', text):
    v = float(m.group(1))
    if not slopes or max(abs(s - v) for s in slopes) > 0.25:
        bad.append('%s (fitted: %s)' % (m.group(0), ', '.join('%.2f' % s for s in slopes)))
report(not bad, 'a verdict on the exponents agrees with the fits', '; '.join(bad))

# the per-class paragraphs: "N problems" and "(k of N)" count the class's problems (the
# coverage table's), not one solver's accepted ones
CLASS_TITLE = {'Standard LCP': 'lcp', 'Boxed/findex LCP': 'box', 'MLCP (equality rows)': 'mlcp',
               '3-D Coulomb friction (FC3D)': 'fc3d', 'Associated cone': 'cone-assoc'}
ncls = {}
for r in rows('profile_coverage.csv')[0]:
    ncls.setdefault(r['class'], r['problems'])
bad = []
path = os.path.join(gen, 'classes.tex')
if os.path.exists(path):
    with open(path) as fh:
        for m in re.finditer(r'\\paragraph\{([^}]*)\.\} (\d+) problems?;([^\n]*)', fh.read()):
            c = CLASS_TITLE.get(m.group(1))
            want = ncls.get(c)
            outof = set(re.findall(r'\(\d+ of (\d+)\)', m.group(3)))
            if want is None or m.group(2) != want or outof - {want}:
                bad.append('%s: %s problems, (of %s); the coverage: %s' % (
                    m.group(1), m.group(2), ', '.join(sorted(outof)), want))
report(ncls and not bad, 'the per-class paragraphs count the class\'s problems', '; '.join(bad))
# one stopping rule (issue 65, point 1): a disagreement of the verdicts costs only its
# solver, so the leaders (counts, winners, profiles) keep every problem of the class, and
# each paragraph counts the class's disagreeing rows as the CSV has them, per tolerance
bad = ['%s at %s: %s problems, the coverage %s' % (r['class'], r['tol'], r['problems'], ncls.get(r['class']))
       for r in rows('profile_leaders.csv')[0] if ncls.get(r['class']) not in (None, r['problems'])]
report(not bad, 'the leaders count every problem of the class (a disagreement is its solver\'s alone)',
       '; '.join(bad))
dis = rows('profile_disagreements.csv')[0]
bad = []
if os.path.exists(path):
    with open(path) as fh:
        paras = re.findall(r'\\paragraph\{([^}]*)\.\}([^\n]*)', fh.read())
    for title, body in paras:
        c = CLASS_TITLE.get(title)
        want = [r for r in dis if r['class'] == c]
        m = re.search(r'the (\w+) rows? where a solver\'s own verdict is not the judge\'s \(([^)]*)\) count as '
                      r'unsolved for that solver alone', body)
        if not want:
            if m:
                bad.append('%s: says %s disagreeing rows, the CSV none' % (title, m.group(1)))
            continue
        per = {}
        for r in want:
            per[float(r['tol'])] = per.get(float(r['tol']), 0) + 1
        said = {}
        for k, a, e in re.findall(r'(\d+) at \$(?:([\d.]+)\\times)?10\^\{(-?\d+)\}\$', m.group(2) if m else ''):
            said[float('%se%s' % (a or '1', e))] = int(k)
        total = -1
        if m:
            total = int(m.group(1)) if m.group(1).isdigit() else WORDS.get(m.group(1), -1)
        if total != len(want) or said != per:
            bad.append('%s: says %s (%s), the CSV %d (%s)' % (
                title, m.group(1) if m else 'nothing', m.group(2) if m else '', len(want),
                ', '.join('%d at %g' % (v, k) for k, v in per.items())))
report(not bad, 'the per-class paragraphs count their rows with disagreeing verdicts as unsolved', '; '.join(bad))
bad = re.findall(r'[^.]*(?:problems? (?:is|are) left out|left out, as a solver)[^.]*verdict[^.]*', text)
report(not bad, 'no problem is said to be left out for a disagreement of verdicts', '; '.join(bad[:2]))
bad = re.findall(r'\b1 problems\b|\bon 1 [\w-]+ problems\b', text)
report(not bad, 'no "1 problems"', '; '.join(bad[:3]))

# the convergence section names the measure its CSV (and figure) plots
cvr = rows('convergence.csv')[0]
m = re.search(r'\\section\{Convergence\}(.*?)\\section', text, re.S)
if cvr and m:
    col = 'res_scaled' if 'res_scaled' in cvr[0] else 'res_rel'
    other = 'rel' if col == 'res_scaled' else 'scaled'
    report('\\mathrm{%s}' % other not in m.group(1) and '\\mathrm{%s}' % col.split('_')[1] in m.group(1),
           'the convergence section names the measure its CSV records (%s)' % col,
           'the section names res_%s' % other)

# the conclusion counts the problems its verdicts are about: the profiles'
m = re.search(r'\\section\{Conclusion\}[^\n]*\n(On[^,]*)', text)
nprof = len({r['problem'] for r in rows('profile.csv')[0]})
report(not m or re.fullmatch(r'On the %d problems of the profiles' % nprof, m.group(1).strip()),
       'the conclusion counts the profiles\' problems', '%s (profile.csv: %d)' % (m.group(1) if m else '', nprof))

# ---- the scenes ---------------------------------------------------------------------------
steps = rows('drift_steps.csv')[0] + rows('accuracy_steps.csv')[0]
ran = {r['solver'] for r in steps if not r['end'].startswith('refused')}
bad = [m.group(0) for m in re.finditer(r'no scene run of (?:\\texttt\{)?([\w\\]+)', text)
       if m.group(1).replace('\\_', '_') in ran]
report(not bad, 'a solver that ran a scene is not said to be absent', '; '.join(bad))

onfail = rows('drift.csv')[1].get('on_failure', '')
bad = re.findall(r'runs? stops? there|stops the run|the run stops', text)
report(not (bad and onfail.startswith('fallback')),
       'no run is said to stop at a failed step when the stepper falls back',
       '%s; on_failure: %s' % (bad, onfail))

def table_row(solver, *counts):
    """A row of the scenes table (gen/scenes.tex) naming the solver and the counts."""
    with open(os.path.join(gen, 'scenes.tex')) as fh:
        for line in fh:
            cells = [c.strip().rstrip('\\').strip() for c in line.split('&')]
            name = '\\texttt{%s}' % solver.replace('_', '\\_')
            if name in cells and all(str(k) in cells for k in counts):
                return True
    return False


missing = []
for r in steps:
    n = int(r['steps'] or 0)
    short = int(r['max_iter'] or 0) + int(r.get('unconverged') or 0)
    if n and short * 2 > n and not table_row(r['solver'], r['steps'], r['max_iter']):
        missing.append('%s on %s/%s: %d of %d' % (r['solver'], r['scene'], r['friction'], short, n))
report(not missing, 'every scene run unconverged on most steps is in the scenes table', '; '.join(missing[:4]))
nshort = sum(1 for r in steps if int(r['steps'] or 0) and
             2 * (int(r['max_iter'] or 0) + int(r.get('unconverged') or 0)) > int(r['steps']))
report(not nshort or re.search(r'ended most of their steps on the iteration limit', text),
       'the text says that runs ended most steps unconverged', '%d such runs' % nshort)

missing = []
for r in steps:
    k = int(r['applied_other'] or 0)
    if k and not table_row(r['solver'], r['steps'], r['applied_other']):
        missing.append('%s on %s/%s: %d of %s' % (r['solver'], r['scene'], r['friction'], k, r['steps']))
report(not missing, 'the steps the policy carried are in the scenes table per run', '; '.join(missing[:4]))


# ---- the time limits and the timing rule ----------------------------------------------------
prof, ppre = rows('profile.csv')
limits = {ppre.get('time_limit_s', '').split(' ')[0]}
vals = set()
for name in ('profile.csv', 'scaling.csv', 'large.csv', 'peers_lcp.csv', 'peers_fc3d.csv'):
    pre = rows(name)[1]
    for k in ('config min_time', 'config max_time', 'config time_limit'):
        if k in pre:
            vals.add('%g' % float(pre[k]))
m = re.search(r'\\paragraph\{Timing\.\}(.*?)(?:\\paragraph|\\section)', doc, re.S)
printed = set(re.findall(r'(\d+(?:\.\d+)?)\\,s\b', m.group(1))) if m else set()
bad = sorted('%g' % float(v) for v in printed if '%g' % float(v) not in vals)
report(not bad, 'the times of the timing rule are those run',
       'printed %s, run %s' % (bad, sorted(vals)))

# ---- refusals and the profiles' denominators ----------------------------------------------
acc = {(r['class'], r['solver']): r['accepted'] for r in rows('profile_coverage.csv')[0]}
inside = [r for r in rows('profile_winners.csv')[0]
          if acc.get((r['class'], r['solver']), r['problems']) != r['problems']]
claim = re.search(r"refusals are (?:coverage|outside the profiles)", text)
report(not (claim and inside), 'refusals are not said to be outside the profiles when they count',
       '%s; e.g. %s on %s: %s problems, %s accepted' % (
           claim.group(0) if claim else '', inside[0]['solver'] if inside else '',
           inside[0]['class'] if inside else '', inside[0]['problems'] if inside else '',
           acc.get((inside[0]['class'], inside[0]['solver'])) if inside else ''))
no_inside = not inside and rows('profile_winners.csv')[0]
bad = re.findall(r'refusal counts as an unsolved problem', text)
report(not (no_inside and bad), 'refusals are not said to count in the profiles when they do not',
       'the winners\' problems are the accepted ones, yet: %s' % bad)
report(not no_inside or re.search(r'refusals are outside the profiles|each class where some solver refused a problem '
                                  r'is drawn twice, with a refusal '
                                  r'counted as a failure', text),
       'the abstract says that refusals are outside the profiles when they are', 'not said')

# ---- the timing protocol: NAME_timing.csv ---------------------------------------------------
timed = [(n, rows(n + '_timing.csv')[0]) for n in ('profile', 'scaling', 'large', 'peers_lcp',
                                                  'peers_fc3d')]
timed = [(n, r[0]) for n, r in timed if r]
m = re.search(r'\\paragraph\{Timing\.\}(.*?)(?:\\paragraph|\\section|$)', text, re.S)
para = m.group(1) if m else ''
bad = []
for n, r in timed:
    name = n.replace('_', '\\_')
    if r['noise'] and '%.2f\\,\\%% in %s' % (100 * float(r['noise']), name) not in para:
        bad.append('%s: noise %s not printed' % (n, r['noise']))
    if not r['noise'] and not re.search(r'No row of [^.]*%s[^.]*: no noise was measured' % re.escape(name),
                                        para):
        bad.append('%s: no noise measured, not said' % n)
    w = int(r['workers'])
    word = {1: 'one', 2: 'two', 3: 'three', 4: 'four'}.get(w, str(w))
    if r['placement'] == 'pinned' and not re.search(r'%s workers?,? [^.;]*pinned' % word, para, re.I):
        bad.append('%s: %d pinned workers not said' % (n, w))
    if r['placement'] == 'serial' and 'one timed task at a time' not in para:
        bad.append('%s: serial placement not said' % n)
report(not bad and timed, 'the timing protocol printed is NAME_timing.csv\'s (placement, workers, noise)',
       '; '.join(bad) or 'no timing table')
prof_t = dict(timed).get('profile')
tie = M.get('TieTol', '')
report(not prof_t or prof_t['tie_source'] != 'noise' or
       abs(float(tie or 'nan') - float(prof_t['noise'])) <= 1e-6 * float(prof_t['noise']),
       'the tie tolerance printed is the profile\'s measured noise',
       'printed %s, noise %s' % (tie, prof_t['noise'] if prof_t else ''))

# ---- the peers side by side ------------------------------------------------------------------
def table_cells(label):
    """The body rows of the generated table labelled `label`: lists of cells."""
    m = re.search(r'\\label\{%s\}(.*?)\\end\{tabularx?\}' % re.escape(label), gens, re.S)
    if not m:
        return None
    body = m.group(1).split('\\midrule', 1)[-1]
    return [[c.strip() for c in l.rstrip().rstrip('\\').split('&')] for l in body.split('\n')
            if '&' in l]


def texttt(cell):
    m = re.search(r'\\texttt\{([^}]*)\}', cell)
    return m.group(1).replace('\\_', '_') if m else None


absent = []
for n in ('peers_lcp', 'peers_fc3d', 'scenes'):
    a = rows(n + '.csv')[1].get('externals_absent', '').split('(')[0]
    absent += [x.strip() for x in a.split(',') if x.strip()]
for n in ('peers_lcp', 'peers_fc3d'):
    w = rows(n + '_winners.csv')[0]
    if not w:
        continue
    tol = w[0]['tol']
    want = sorted({r['solver'] for r in w if r['tol'] == tol})
    cells = table_cells('tab:' + n.replace('_', ''))
    got = sorted({texttt(c[1]) for c in cells or [] if texttt(c[1])})
    report(got == want, 'the %s table lists exactly the solvers that ran' % n,
           'table %s, CSV %s' % (got, want))
    cov = {(r['class'], r['solver']): r for r in rows(n + '_coverage.csv')[0]}
    # a disagreement of a solver's own verdict and the judge's costs only that solver's
    # row (experiments/README.md, "One stopping rule"): every problem stays in the counts
    bad, cls = [], ''
    for c in cells or []:
        cls = c[0] or cls
        r = cov.get((cls, texttt(c[1])))
        if r and (c[2], c[3]) != (r['accepted'], r['refused']):
            bad.append('%s %s: %s/%s, coverage %s/%s' % (cls, texttt(c[1]), c[2], c[3], r['accepted'],
                                                        r['refused']))
    report(not bad, 'the %s table\'s accepted and refused are the coverage\'s' % n, '; '.join(bad))
named = re.search(r'Not built on this machine[^.]*\.', text)
bad = [x for x in absent if not named or '\\texttt{%s}' % x.replace('_', '\\_') not in named.group(0)]
report(not bad, 'the absent peers are named', ', '.join(bad))
bad = [x for x in absent for lab in ('tab:peerslcp', 'tab:peersfc3d', 'tab:peerscenes')
       if any(texttt(c[1]) == x for c in table_cells(lab) or [])]
report(not bad, 'no absent peer is in a peers table', ', '.join(bad))

# ---- the scenes as run: the `# world:` lines ---------------------------------------------------
worlds = []
# every section of kind scenes (scenes.csv, scenes_newton.csv, ...), by the CSV's first line
scene_secs = sorted(f[:-4] for f in os.listdir(res) if f.startswith('scenes') and f.endswith('.csv') and
                    open(os.path.join(res, f)).readline().split()[3:5] == ['scenes', f[:-4]])
for n in ('profile', 'large', 'drift', 'accuracy', 'integrators') + tuple(scene_secs):
    path = os.path.join(res, n + '.csv')
    if os.path.exists(path):
        with open(path) as fh:
            worlds += [(n, l) for l in fh if l.startswith('# world: ')]
cells = table_cells('tab:scenetab') or []
bad = []
for n, l in worlds:
    kv = dict(x.split('=', 1) for x in l.split(':', 2)[2].split())
    if not any(c[0].replace('\\_', '_') == n and kv['mu'] in c and kv['max_iter'] in c and kv['bodies'] in c
               for c in cells):
        bad.append('%s: %s' % (n, l.split(':', 2)[1].strip()))
report(worlds and not bad and len(cells) == len(worlds),
       'the scene table has each scene\'s world settings as run',
       '%d world lines, %d table rows; missing %s' % (len(worlds), len(cells), bad))

# ---- the problem list: mu from the plan's problems.tsv -------------------------------------
def tsv_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        lines = [l.rstrip('\n') for l in fh if l.strip()]
    head = lines[0].lstrip('#').split()
    return [dict(zip(head, l.split('\t'))) for l in lines[1:]]


def mu_cell(p):
    lo, hi = float(p.get('mu_min') or 'nan'), float(p.get('mu_max') or 'nan')
    if lo != lo or hi != hi:
        return 'none'
    return '%g' % lo if lo == hi else '%g--%g' % (lo, hi)


prof_plan = [p for p in tsv_rows(os.path.join(res, 'campaign', 'problems.tsv'))
             if p.get('section') == 'profile']
plist = os.path.join(gen, 'problemlist.tex')
cells = {}
if os.path.exists(plist):
    with open(plist) as fh:
        for l in fh:
            c = [x.strip() for x in l.rstrip().rstrip('\\').split('&')]
            if len(c) >= 8 and texttt(c[0]):
                cells[texttt(c[0])] = c
bad = []
for p in prof_plan:
    c = cells.get(p['label'])
    if not c:
        bad.append('%s: no row' % p['label'])
    elif 'mu_min' not in p:
        bad.append('problems.tsv has no mu_min column')
        break
    elif c[6] != mu_cell(p):
        bad.append('%s: mu %s, problems.tsv %s' % (p['label'], c[6], mu_cell(p)))
friction = [p for p in prof_plan if mu_cell(p) != 'none']
report(prof_plan and friction and not bad,
       'the problem list has each profile problem with its mu from problems.tsv',
       '; '.join(bad[:4]) or ('no problem with friction' if prof_plan else 'no plan'))

# ---- the solvers' default parameters: the plan's solvers.tsv -----------------------------------
def untex(cell):
    """A cell of exp_tex_escape's output back to its text; None if it holds
    a command the escaper does not write."""
    for k, v in (('\\textbar{}', '|'), ('\\textless{}', '<'), ('\\textgreater{}', '>'),
                 ('\\textasciicircum{}', '^'), ('\\textasciitilde{}', '~'),
                 ('\\textbackslash{}', '\\'), ('\\_', '_'), ('\\%', '%'), ('\\#', '#'),
                 ('\\&', '&'), ('\\$', '$'), ('\\{', '{'), ('\\}', '}')):
        cell = cell.replace(k, v)
    cell = re.sub(r'\$(?:([\d.]+)\\times)?10\^\{(-?\d+)\}\$',
                  lambda m: '%se%s' % (m.group(1) or '1', m.group(2)), cell)  # gen.py's sci_words
    return None if '\\' in cell or '$' in cell else cell


# ---- the gradients table (issue 83): gradients_quality.csv's lines, as the CSV has them --------
def sci_value(cell):
    """The number of a cell gen.py's cellsci wrote, None when it is empty."""
    m = re.fullmatch(r'\$(-?[\d.]+)(?:\\times10\^\{(-?\d+)\})?\$', cell.strip())
    return float(m.group(1)) * 10 ** int(m.group(2) or 0) if m else None


gq = os.path.join(res, 'gradients_quality.csv')
if os.path.exists(gq):
    want = rows('gradients_quality.csv')[0]
    gt = os.path.join(gen, 'gradients_section.tex')
    lines = [l for l in (open(gt).read().split('\n') if os.path.exists(gt) else [])
             if l.rstrip().endswith('\\\\') and ' & ' in l and not l.startswith('solver & ')]
    bad, solver = [], ''
    for r, l in zip(want, lines):
        c = [x.strip() for x in l.rstrip().rstrip('\\').split('&')]
        solver = untex(c[0][len('\\texttt{'):-1]) if c[0] else solver
        med = float(r['median_err_all'])
        got = sci_value(c[3])
        if (solver, untex(c[1]), c[2]) != (r['solver'], r['mode'], '%s/%s/%s' % (
                r['problems'], r['stable'], r['accepted'])) or \
                (got is None) != math.isnan(med) or (got is not None and abs(got - med) > 0.051 * abs(med)):
            bad.append('%s %s: %s' % (r['solver'], r['mode'], l.strip()))
    report(len(want) >= 4 and len(lines) == len(want) and not bad,
           'the gradients table has gradients_quality.csv\'s lines, counts and medians',
           '%d lines for %d; %s' % (len(lines), len(want), '; '.join(bad[:3])))


# ---- the fidelity tables (issue 84 item 4): fidelity.csv's rows, as the CSV has them ----------
def table_lines(text, label):
    """The body lines (ending in \\\\, with cells) of the table floats labelled label (its parts
    included), the head lines left out."""
    out = []
    for part in re.split(r'\\begin\{table\*\}', text)[1:]:
        if '\\label{%s}' % label not in part and 'Table~\\ref{%s}, continued' % label not in part:
            continue
        body = part.split('\\midrule', 1)[1] if '\\midrule' in part else ''
        out += [l for l in body.split('\n') if l.rstrip().endswith('\\\\') and ' & ' in l]
    return out


def fid_cell_ok(cell, r):
    """A solver table's measured cell against its row: the number (to gen.py's two digits), the
    x mark iff the run failed its judge, a status in parentheses iff it has no verdict."""
    m = re.fullmatch(r'(\$[^$]*\$)(\\,\$\\times\$|\\,\((.*)\))?', cell.strip())
    if not m or sci_value(m.group(1)) is None:
        return False
    got, want = sci_value(m.group(1)), float(r['measured'])
    close = abs(got - want) <= 0.051 * abs(want) + 1e-300
    mark = 'no' if m.group(2) == '\\,$\\times$' else 'yes' if not m.group(2) else ''
    return close and mark == r['pass'] and (mark or untex(m.group(3)) == r['status'])


def fidelity_checks():
    want, pre = rows('fidelity.csv')
    path = os.path.join(gen, 'fidelity_section.tex')
    text = open(path).read() if os.path.exists(path) else ''
    lc = [r for r in want if r['friction']]
    budgets = sorted({int(r['budget']) for r in lc})
    by = {(r['solver'], r['scene'], int(r['budget'])): r for r in lc}
    bad, seen, block = [], set(), []
    for l in table_lines(text, 'tab:fidelity'):
        c = [x.strip() for x in l.rstrip().rstrip('\\').split(' & ')]
        if c[0]:
            block = [untex(x[len('\\texttt{'):-1]) for x in c[0].split('=')]
        scene = untex(c[1][len('\\texttt{'):-1])
        cells, k = c[2:], 0
        for b in budgets:
            for so in block:
                seen.add((so, scene, b))
            r = by.get((block[0], scene, b))
            if r is None or not r['measured']:
                ok = r is None or cells[k] == '\\multicolumn{3}{c}{%s}' % r['status']
                k += 1
            else:
                share = '' if not r['converged_share'] else '%.2f' % float(r['converged_share'])
                ok = fid_cell_ok(cells[k], r) and cells[k + 1] == share
                k += 3
            if not ok:
                bad.append('%s %s %d: %s' % (block[0], scene, b, l.strip()[:120]))
    missing = [k for k, r in by.items() if r['measured'] and k not in seen]
    report(lc and not bad and not missing and len(seen) > 0,
           'the fidelity table has fidelity.csv\'s measured values, verdicts and converged shares',
           '%s; not in the table: %s' % ('; '.join(bad[:3]), missing[:3]))
    peers = [r for r in want if not r['friction'] and r['status'] != 'refused']
    lines = table_lines(text, 'tab:fidengines')
    got = {}
    scene = ''
    for l in lines:
        c = [x.strip() for x in l.rstrip().rstrip('\\').split(' & ')]
        scene = untex(c[0][len('\\texttt{'):-1]) if c[0] else scene
        got[(scene, untex(c[1][len('\\texttt{'):-1]))] = c
    bad = [r['scene'] + ' ' + r['solver'] for r in peers
           if (r['scene'], r['solver']) not in got or
           untex(got[(r['scene'], r['solver'])][2]) != r['version'] or
           got[(r['scene'], r['solver'])][5] != (r['pass'] or r['status']) or
           (r['measured'] and not abs(sci_value(got[(r['scene'], r['solver'])][3]) - float(r['measured']))
            <= 0.051 * abs(float(r['measured'])) + 1e-300)]
    report(not peers or (lines and not bad),
           'the engines\' table has every engine row of fidelity.csv with its version, value and verdict',
           '; '.join(bad[:3]) or 'no table')
    per = []
    for b in budgets:
        rb = [r for r in lc if int(r['budget']) == b and r['pass'] in ('yes', 'no')]
        per.append('%d of %d at %d' % (sum(r['pass'] == 'yes' for r in rb), len(rb), b))
    said = re.search(r'Runs passed \(of those judged; a refused run has no verdict\): (.*?)\. ', text)
    report(said and said.group(1) == (per[0] if len(per) == 1 else ', '.join(per[:-1]) + ' and ' + per[-1]),
           'the fidelity text\'s passes per budget are fidelity.csv\'s', said.group(1) if said else 'no sentence')
    tols = {}
    for l in table_lines(text, 'tab:fidscenes'):
        c = [x.strip() for x in l.rstrip().rstrip('\\').split(' & ')]
        tols[untex(c[0][len('\\texttt{'):-1])] = sci_value(c[4].split(' ')[0])
    bad = [r['scene'] for r in want if tols.get(r['scene']) is None or
           abs(tols[r['scene']] - float(r['tol'])) > 1e-9 * float(r['tol'])]
    report(tols and not bad, 'the fidelity scenes\' tolerances are fidelity.csv\'s', ', '.join(sorted(set(bad))))


if os.path.exists(os.path.join(res, 'fidelity.csv')):
    fidelity_checks()


plan_solvers = tsv_rows(os.path.join(res, 'campaign', 'solvers.tsv'))
# the profile's registered solvers: a full campaign's peers (its `external` lines) have no parameters here
plan_exp = os.path.join(res, 'campaign', 'plan.exp')
ext_names = {l.split()[1] for l in open(plan_exp) if l.startswith('external ') and len(l.split()) > 1} \
    if os.path.exists(plan_exp) else set()
prof_solvers = list(dict.fromkeys(r['solver'] for r in rows('profile.csv')[0] if r.get('solver') and
                                  r['solver'] not in ext_names))
spath = os.path.join(gen, 'solverparams.tex')
srows = []
if os.path.exists(spath):
    with open(spath) as fh:
        for l in fh:
            c = [x.strip() for x in re.split(r'(?<!\\)&', l.rstrip().rstrip('\\'))]
            if len(c) == 2 and texttt(c[0]):
                srows.append((texttt(c[0]), untex(c[1])))
names = [n for n, _ in srows]
params = {p['solver']: p['params'] for p in plan_solvers}
bad = ['%s: %d rows' % (x, names.count(x)) for x in prof_solvers if names.count(x) != 1]
bad += ['%s: not in solvers.tsv' % n for n in names if n not in params]
bad += ['%s: cell %r, solvers.tsv %r' % (n, c, params[n]) for n, c in srows
        if n in params and c != params[n]]
report(prof_solvers and plan_solvers and not bad and len(srows) == len(plan_solvers),
       'the solver-parameter table has one row per profile solver, its params from solvers.tsv',
       '; '.join(bad[:4]) or '%d rows, %d in solvers.tsv, %d profile solvers' % (
           len(srows), len(plan_solvers), len(prof_solvers)))
ref = re.search(r'Every solver runs\s+with its defaults \(Table~\\ref\{tab:solverparams\}\)', text)
report(ref and '\\label{tab:solverparams}' in text,
       '"Every solver runs with its defaults" points to the solver-parameter table')

# ---- the harness's validation (make bench-validate) --------------------------------------------
agr = rows(os.path.join('bench_validate', 'bench_validate_agreement.csv'))[0]
para = re.search(r'\\paragraph\{The harness against the literature\.\}([^\n]*)', text)
if not agr:
    report(not para and 'bench-validate' not in gens, 'no validation paragraph without its results',
           (para.group(0)[:80] if para else 'bench-validate named'))
else:
    a = next((r for r in agr if r['solver'] == 'all'), {})
    pairs, agree, nov = int(a['pairs']), int(a['agree']), int(a['no_verdict'])
    total = pairs + nov
    want = ['agree on all %d' % pairs if agree == pairs else
            'agree on %d of them (%.1f\\,\\%%)' % (agree, 100 * float(a['agree_share']))]
    if nov:
        want.append('%d of the %d pairs (%.1f\\,\\%%)' % (agree, total, 100.0 * agree / total))
    p1 = para.group(1) if para else ''
    miss = [w for w in want if w not in p1]
    report(bool(para) and not miss, 'the validation paragraph has the agreement of its results',
           'missing %s in: %s' % (miss, p1[:200]) if para else 'no paragraph')
    # every number it prints is one of its results' (the agreement table, the runs' CSV)
    runs, rpre = rows(os.path.join('bench_validate', 'bench_validate.csv'))
    runs = [r for r in runs if r.get('tol') and float(r['tol']) == float(a['tol'])]
    allowed = {v for r in agr for k, v in r.items() if k not in ('tol', 'solver')}
    allowed |= {str(total), '%.1f' % (100.0 * agree / total), '%.1f' % (100 * float(a['agree_share'])),
                str(len({r['problem'] for r in runs}))}
    if rpre.get('time_limit_s'):
        allowed.add('%g' % float(rpre['time_limit_s'].split(' ')[0]))
    plain = re.sub(r'\\texttt\{[^}]*\}|\$[^$]*\$', ' ', p1)
    stray = [x for x in re.findall(r'\d+(?:\.\d+)?', plain) if x not in allowed]
    report(bool(para) and not stray, 'every number of the validation paragraph is its results\'',
           'not in the CSVs: %s' % stray)
    # the runs without a verdict are named when the runs' CSV is there
    gone = [r for r in runs if r.get('reported_solved', '') == '']
    bad = ['%s on %s' % (r['solver'], r['problem']) for r in gone
           if '\\texttt{%s} on \\texttt{%s}' % (r['solver'].replace('_', '\\_'),
                                                 r['problem'].replace('_', '\\_')) not in p1]
    report(not bad and (not runs or len(gone) == nov),
           'the validation paragraph names the runs without a verdict', '; '.join(bad))

# ---- the peers' answers that lcplab's test rejected: NAME_failures.csv -------------------------
said = [WORDS.get(m.group(1), m.group(1)) for m in
        re.finditer(r"(\w+) of the peers' answers were rejected by it", doc)]
plan = os.path.join(res, 'campaign', 'plan.exp')
declared = set()
if os.path.exists(plan):
    with open(plan) as fh:
        declared = {l.split()[1] for l in fh if l.startswith('external ') and len(l.split()) > 1}
want = []
for n in ('peers_lcp', 'peers_fc3d'):
    fl = rows(n + '_failures.csv')[0]
    tol = fl[0]['tol'] if fl else None
    k = sum(int(r['unconverged']) for r in fl if r['tol'] == tol and r['solver'] in declared)
    if k:
        want.append(k)
report([str(x) for x in said] == [str(x) for x in want],
       'the peers\' rejected answers printed are the failures tables\'', 'printed %s, tables %s' % (said, want))

# ---- issue 65: conclusions the data carry, sentences from the data, reproducibility ------------
import json
import subprocess

# placeholders of the library's preamble and of the figure options, a status glossed by itself
for pat, desc in ((r'NAME\\?_\w+', 'a NAME_ file name'), (r'solvers=', 'a "solvers=" option'),
                  (r'\b([a-z]{2,}(?: [a-z]+)?) = \1\b(?![_+])', 'a term defined as itself ("X = X")')):
    hits = [text[max(0, m.start() - 30):m.end() + 20].replace('\n', ' ').replace('\\', '/')
            for m in re.finditer(pat, text)]
    report(not hits, 'no placeholder: %s' % desc, '; '.join(hits[:2]))

# per class of the profile at its first tolerance: problems, and those whose best converged
# median is 1 ms or more; a statement only where >= 10 and >= 5 (issue 65, point 6)
prof = rows('profile.csv')[0]
tolA = prof[0]['tol'] if prof else None
best, pcls = {}, {}
for r in prof:
    if r['tol'] != tolA:
        continue
    pcls[r['problem']] = r['class']
    if r['status'] == 'converged' and r['time_s'] not in ('', 'nan'):
        best[r['problem']] = min(best.get(r['problem'], 1e300), float(r['time_s']))
support = {}
for p, c in pcls.items():
    n, k = support.get(c, (0, 0))
    support[c] = (n + 1, k + (best.get(p, 0.0) >= 1e-3))
small = {c for c, (n, k) in support.items() if n < 10 or k < 5}
TITLE_CLASS = {v: k for k, v in CLASS_TITLE.items()}
bad = []
path = os.path.join(gen, 'classes.tex')
ctext = open(path).read() if os.path.exists(path) else ''
for m in re.finditer(r'\\paragraph\{([^}]*)\.\}([^\n]*)', ctext):
    c = CLASS_TITLE.get(m.group(1))
    if c in small and (re.search(r'fastest|most robust|Fewer than half', m.group(2)) or
                       'too small for a statement' not in m.group(2)):
        bad.append('%s: %s' % (c, m.group(2)[:100]))
concl = re.search(r'\\section\{Conclusion\}(.*?)(?:\\section|\\clearpage|$)', text, re.S)
for c in small:
    name = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
            'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}.get(c, c)
    for where, t in (('the conclusion', concl.group(1) if concl else ''), ('the summary', M.get('WinnersText', ''))):
        if re.search(r'on the %s problems[^;.]*(?:fastest|solves? the most)' % re.escape(name), t):
            bad.append('%s states a verdict on %s' % (where, c))
report(prof and not bad, 'no per-class statement on a class too small for one (%s)' % ', '.join(sorted(small)),
       '; '.join(bad[:3]))
abstract = re.search(r'\\begin\{abstract\}(.*?)\\end\{abstract\}', doc, re.S)
cfg = ''
with open(os.path.join(res, 'profile.csv')) as fh:
    for line in fh:
        if line.startswith('# config: '):
            cfg = os.path.basename(line[10:].split(' (')[0])
            break
report(abstract and cfg and cfg.replace('_', '\\_') in abstract.group(1) and
       re.search(r'sample|study|campaign of', abstract.group(1)),
       'the first page says which campaign (%s) the paper is built from' % cfg,
       abstract.group(1)[-200:] if abstract else 'no abstract')

# issue 84 item 1: every class large enough for a statement has its result in the abstract and
# in the conclusion -- its problems, those at 1 ms or more, the fastest's wins alone and their
# bootstrap interval (profile_leaders.csv) -- and no other class has one in the abstract
PROSE = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
         'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}
lead = {r['class']: r for r in rows('profile_leaders.csv')[0] if r['tol'] == tolA}
qual = [c for c in support if c not in small and lead.get(c, {}).get('fastest')]
bad = []
for where, t in (('the abstract', abstract.group(1) if abstract else ''),
                 ('the conclusion', concl.group(1) if concl else '')):
    for c in qual:
        L, (n, k) = lead[c], support[c]
        pat = (r'on the %s problems \(%d, %d of them with a best time of 1\\,ms or more\), \\texttt\{%s\} is '
               r'fastest alone on %s \(95\\,\\%% interval %s--%s' % (
                   re.escape(PROSE.get(c, c)), n, k, re.escape(L['fastest'].replace('_', '\\_')),
                   L['fastest_alone'], L['fastest_lo'], L['fastest_hi']))
        if not re.search(pat, t):
            bad.append('%s lacks the %s class\'s result' % (where, c))
    if where == 'the abstract':
        bad += ['the abstract states a verdict on %s' % c for c in small
                if re.search(r'on the %s problems[^;.]*fastest' % re.escape(PROSE.get(c, c)), t)]
report(prof and not bad, 'the abstract and the conclusion state each qualifying class\'s result with its '
       'interval (%s)' % ', '.join(qual), '; '.join(bad[:3]))

# the title's count: every section's distinct problems
allp = set()
for name in ('profile', 'large', 'scaling', 'convergence', 'peers_lcp', 'peers_fc3d'):
    allp |= {r['problem'] for r in rows(name + '.csv')[0] if r.get('n')}
report(M.get('NProblems') == str(len(allp)), 'the title counts every section\'s distinct problems',
       'printed %s, the CSVs have %d' % (M.get('NProblems'), len(allp)))

# the convergence table: a pivoting solver's cell gives its pivots (the profile's column)
piv = {(r['problem'], r['solver']): r['pivots'] for r in prof
       if r['tol'] == tolA and r.get('pivots') not in (None, '', '0')}
cv = rows('convergence.csv')[0]
fin = {(r['problem'], r['solver']): r for r in cv if r['final'] == '1' and r['status'] == 'converged'}
bad = []
cpath = os.path.join(gen, 'conv.tex')
if os.path.exists(cpath):
    probs = list(dict.fromkeys(r['problem'] for r in cv))
    for l in open(cpath):
        c = [x.strip() for x in l.rstrip().rstrip('\\').split('&')]
        s = texttt(c[0]) if c else None
        if not s or len(c) != len(probs) + 1:
            continue
        for p, cell in zip(probs, c[1:]):
            k = piv.get((p, s))
            if (p, s) in fin and k and k != fin[(p, s)]['iteration'] and '%s piv.' % k not in cell:
                bad.append('%s on %s: %r, %s pivots' % (s, p, cell, k))
report(piv and not bad, 'the convergence table gives a pivoting solver\'s pivots', '; '.join(bad[:3]))

# the integrators' scenes: "no part" only for a scene without contacts or solves
integ = rows('integrators.csv')[0]
busy = {r['scene'] for r in integ if r.get('step') and (float(r.get('contacts') or 0) > 0 or
                                                       float(r.get('iterations') or 0) > 0)}
bad = [sc for sc in busy if re.search(r'\\texttt\{%s\}, which has no contact' % re.escape(sc), text)]
bad += ['"plays no part" in paper.tex'] if 'plays no part' in doc_raw else []
report(integ and busy and not bad, 'no scene with contacts is said to have no solver part', '; '.join(bad))

# the accuracy experiment's denominator: its steps, refused runs apart
acc = [r for r in rows('accuracy.csv')[0] if r.get('step') and r['status'] not in ('refused', 'unsupported')]
m = re.search(r'Of the (\d+) solver steps of the accuracy experiment[^,]*, (\d+) reached', text)
want = (len(acc), sum(r['status'] == 'converged' for r in acc))
report(m and (int(m.group(1)), int(m.group(2))) == want, 'the accuracy denominator is its solved steps',
       '%s; the CSV: %s' % (m.group(0) if m else 'no sentence', want))

# lemke's pyramid failures are said only where lemke failed on a pyramid LCP
stp = rows('drift_steps.csv')[0] + rows('accuracy_steps.csv')[0]
pyr = sum(int(r.get('singular_pivot') or 0) + int(r.get('ray_termination') or 0) for r in stp
          if r['solver'] == 'lemke' and r['friction'] == 'pyramid')
report(not ('processes the pyramid LCP' in text and not pyr), 'lemke\'s pyramid failures only when it failed there',
       '%d failed pyramid steps' % pyr)

# per solver, the scene steps another answer carried
per = {}
for r in stp:
    if r['end'].startswith('refused'):
        continue
    d = per.setdefault(r['solver'], [0, 0])
    d[0] += int(r['steps'])
    d[1] += int(r['applied_other'])
bad = [s for s, (n, k) in per.items()
       if '\\texttt{%s} %d of %d' % (s.replace('_', '\\_'), k, n) not in text]
report(per and not bad, 'the steps carried per solver are the steps tables\'', ', '.join(bad))

# the peers named in the solvers section are the campaign's: those that ran and the absent
ran = set()
for name in ('profile', 'peers_lcp', 'peers_fc3d') + tuple(scene_secs):
    ran |= {r['solver'] for r in rows(name + '.csv')[0] if r.get('solver') in declared}
absent = set()
for name in ('peers_lcp', 'peers_fc3d') + tuple(scene_secs):
    absent |= {x.strip() for x in rows(name + '.csv')[1].get('externals_absent', '').split('(')[0].split(',')
               if x.strip()}
prun = open(os.path.join(gen, 'peers_run.tex')).read() if os.path.exists(os.path.join(gen, 'peers_run.tex')) else ''
named = {x.replace('\\_', '_') for x in re.findall(r'\\texttt\{([^}]*)\}', prun)}
report(named == ran | absent and 'lexicolemke' not in doc_raw,
       'the peers of the solvers section are those that ran and those declared absent',
       'named %s; ran %s; absent %s' % (sorted(named), sorted(ran), sorted(absent)))

# every registered solver described by the registry's own summary
lcp = os.environ.get('LCPLAB', 'lcplab')
try:
    reg = json.loads(subprocess.run([lcp, 'solvers', '--json'], capture_output=True, text=True).stdout)
except (OSError, ValueError):
    reg = []
stext = open(os.path.join(gen, 'solvers.tex')).read() if os.path.exists(os.path.join(gen, 'solvers.tex')) else ''
srow = {}
for l in stext.splitlines():
    c = [x.strip() for x in re.split(r'(?<!\\)&', l.rstrip().rstrip('\\'))]
    if len(c) == 4 and texttt(c[0]):
        srow[texttt(c[0])] = untex(c[1])
bad = [d['name'] for d in reg if d['name'] not in srow or srow[d['name']] not in (None, d['summary'])]
report(reg and not bad and len(srow) == len(reg), 'every registered solver is described by its registry summary',
       '%s; %d rows, %d registered' % (', '.join(bad[:5]), len(srow), len(reg)))

# every generator family described, from the generator's documentation
hlp = subprocess.run([lcp, 'generate', '--help'], capture_output=True, text=True)
fams = (re.search(r'^\s+--type FAMILY\s+(.*)', hlp.stdout + hlp.stderr, re.M) or re.search('()', '')).group(1).split()
gtext = open(os.path.join(gen, 'generators.tex')).read() if os.path.exists(os.path.join(gen, 'generators.tex')) else ''
bad = [f for f in fams if not re.search(r'^\\texttt\{%s\} &' % re.escape(f.replace('_', '\\_')), gtext, re.M)]
report(fams and not bad, 'every generator family is described (%d)' % len(fams), ', '.join(bad))

# the scene settings of every scene a problem section exported
bad = []
for name in ('profile', 'large'):
    _, pre = rows(name + '.csv')
    lines = []
    if os.path.exists(os.path.join(res, name + '.csv')):
        with open(os.path.join(res, name + '.csv')) as fh:
            lines = [l for l in fh if l.startswith('#')]
    scenes = [l for l in lines if l.startswith('# config> scene ')]
    worlds = [l for l in lines if l.startswith('# world: line ') and 'solver=' in l]
    if len(worlds) != len(scenes):
        bad.append('%s: %d scene lines, %d world lines' % (name, len(scenes), len(worlds)))
report(not bad, 'a problem section has the world settings of the scenes it exported (# world:, solver=)',
       '; '.join(bad))

# the run cap, as the timing rule states it
m = re.search(r'at most (\d+) runs', rows('profile.csv')[1].get('timing', ''))
report(m and ('stops at %s runs' % '{:,}'.format(int(m.group(1))).replace(',', '\\,')) in text,
       'the run cap is stated', m.group(0) if m else 'no cap in the timing preamble')

# the literature's measures: the table's counts are the profile's
lt = open(os.path.join(gen, 'measures.tex')).read() if os.path.exists(os.path.join(gen, 'measures.tex')) else ''
bad, nrow = [], 0
for tol in dict.fromkeys(r['tol'] for r in prof):
    conv = [r for r in prof if r['tol'] == tol and r['status'] == 'converged']
    for col in ('siconos_err', 'err_siconos', 'res_rel_1q'):
        have = [r for r in conv if r.get(col) not in (None, '', 'nan')]
        if not have:
            continue
        nrow += 1
        over = sum(float(r[col]) > float(tol) for r in have)
        if not re.search(r'& %d & %d & %d & ' % (len(conv), len(have), over), lt):
            bad.append('%s at %s: %d, %d, %d' % (col, tol, len(conv), len(have), over))
report(nrow and not bad, 'the literature\'s measures table counts the disagreements', '; '.join(bad))

# MuJoCo's Newton in the scene comparison, or its absence said
if rows('scenes.csv')[0]:
    report(re.search(r"MuJoCo's Newton solver", text), 'MuJoCo\'s Newton: in the scene comparison or said absent')

# no bibliography note in the paper's copy (gen.py --bib)
bib = os.path.join(gen, '..', 'refs.bib')
if os.path.exists(bib):
    report(not re.search(r'^\s*note\s*=', open(bib).read(), re.M), 'the paper\'s bibliography has no note field')

# the figures' per-solver styles (experiments/exp_style.gp): every registered solver has its
# own, no two share colour-free marks and dashes, and within a friction group (the box solvers,
# those that take no cone; the others) no two share a mark, so every curve of a panel is told
# apart in grayscale
style = open(os.path.join(os.path.dirname(os.path.abspath(paper)), '..', 'experiments', 'exp_style.gp')).read()
lists = {k: re.search(r'^%s\s*=\s*"([^"]*)"' % k, style, re.M).group(1).split()
         for k in ('style_solvers', 'style_points', 'style_dashes', 'style_colours')}
pt = dict(zip(lists['style_solvers'], lists['style_points']))
dt = dict(zip(lists['style_solvers'], lists['style_dashes']))
bad = ['%s: no style' % d['name'] for d in reg if d['name'] not in pt]
pairs = {}
for s in pt:
    pairs.setdefault((pt[s], dt.get(s)), []).append(s)
bad += ['same mark and dash: %s' % ', '.join(v) for v in pairs.values() if len(v) > 1]
for cone in (False, True):
    marks = {}
    for d in reg:
        if d['name'] in pt and ('cone' in d['accepts']) == cone:
            marks.setdefault(pt[d['name']], []).append(d['name'])
    bad += ['same mark in a group: %s' % ', '.join(v) for v in marks.values() if len(v) > 1]
report(reg and not bad and len({len(v) for v in lists.values()}) == 1,
       'every registered solver has a figure style of its own, told apart in grayscale', '; '.join(bad))

# the noise paragraph counts groups of runs with one trace, and the problems they are on
m = re.search(r'in the (\d+) groups of two solvers or more with one trace on a problem \(on (\d+) of the (\d+) '
              r'problems\)', text)
# the groups are the library's (profile_same.csv): converged at the first tolerance, two runs timed
grp = [g for g in rows('profile_same.csv')[0] if g['tol'] == tolA and g['status'] == 'converged' and
       int(g['timed']) >= 2] if os.path.exists(os.path.join(res, 'profile_same.csv')) else []
want = (len(grp), len({g['problem'] for g in grp}), len({r['problem'] for r in prof}))
bad = re.findall(r'on the (\d+) problems where two solvers or more', text)
report(not bad and (not want[0] or (m and tuple(int(x) for x in m.groups()) == want)),
       'the noise paragraph counts trace groups and their problems', '%s; the CSV: %s' % (
           m.group(0) if m else bad, want))

# ---- issue 65's second round: the paper uses what the engine measures ------------------------
# point 4: identical algorithms count once in the abstract (names the engine made one entry
# `a=b` in every class and tolerance where they ran)
wn = rows('profile_winners.csv')[0]
sig = {}
for r in wn:
    for x in r['solver'].split('='):
        sig.setdefault(x, set()).add(r['solver'])
own = [s for s in dict.fromkeys(r['solver'] for r in prof) if s not in declared]
algs = {frozenset(sig.get(s, {s})) for s in own}
report(M.get('NSolvers') == str(len(algs)), 'the abstract counts algorithms, identical ones once',
       'printed %s; %d algorithms of %d names' % (M.get('NSolvers'), len(algs), len(own)))

# point 5: with the curves that count a refusal as a failure (rho_all), the paper draws them
# and never says that refusals are outside every denominator
pp = rows('profile_profile.csv')[0]
if pp and 'rho_all' in pp[0]:
    build = open(os.path.join(os.path.dirname(os.path.abspath(paper)), 'build.sh')).read()
    said = re.search(r"refusals are outside the profiles' denominators", abstract.group(1) if abstract else '')
    report('\\iffig{profile_all}' in doc_raw and 'measure=all' in build and not said and
           M.get('ProfAllSentence'),
           'the profiles with refusals counted as failures are drawn and said',
           'abstract: %s' % (said.group(0) if said else 'ok'))

# point 2: the tie factor and the wins' intervals come from the passes between runs
pt = dict(timed).get('profile')
if pt and pt.get('tie_source') == 'replicates':
    m = re.search(r'\\paragraph\{Timing\.\}(.*?)(?:\\paragraph|\\section|$)', text, re.S)
    para = m.group(1) if m else ''
    want = '90\\,\\%% by less than %.3f' % (1 + float(pt['replicate_tie']))
    report(want in para and 'set by the section' not in para and
           abs(float(M.get('TieFactor', 'nan')) - 1 - float(pt['replicate_tie'])) < 1e-5,
           'the tie factor printed is the noise between passes', 'want "%s"; TieFactor %s' % (
               want, M.get('TieFactor')))
    if pt.get('speed_checks'):
        want = '%s of %s checks found the CPU slow (runs made again: %s; kept though slow: %s)' % (
            pt['slow_checks'], pt['speed_checks'], pt['runs_again'], pt['runs_kept_slow'])
        report(want in ' '.join(para.split()), 'the speed checks printed are the timing CSV\'s',
               'want "%s"' % want)
    wt = open(os.path.join(gen, 'winners.tex')).read()
    bad = []
    for r in wn:
        if r['tol'] != tolA or not r.get('fastest_lo'):
            continue
        cell = '& %s & %s--%s & %s &' % (r['fastest'], r['fastest_lo'], r['fastest_hi'], r['tied'])
        if cell not in wt:
            bad.append('%s %s: %s' % (r['class'], r['solver'], cell))
    report(wn and not bad, 'the winners table gives each count of wins its bootstrap interval', '; '.join(bad[:3]))
# every peers' table states its section's own tie factor (NAME_timing.csv)
bad = []
for n in ('peers_lcp', 'peers_fc3d'):
    r = dict(timed).get(n)
    cap = re.search(r'\\caption\{%s:(.*?)\}\s*\\label' % re.escape(n.replace('_', '\\_')), gens, re.S)
    if r and cap and 'a factor %.3f' % (1 + float(r['tie'])) not in cap.group(1):
        bad.append('%s: tie %s not in its caption' % (n, r['tie']))
report(not bad, 'the peers\' tables give their section\'s tie factor', '; '.join(bad))

# point 1: both verdicts; the disagreements and the peers' versions in the paper
dis = []
for n in ('profile', 'peers_lcp', 'peers_fc3d'):
    dis += rows(n + '_disagreements.csv')[0]
side = open(os.path.join(gen, 'peers_side.tex')).read() if os.path.exists(os.path.join(gen, 'peers_side.tex')) else ''
if any(os.path.exists(os.path.join(res, n + '_disagreements.csv')) for n in ('profile', 'peers_lcp', 'peers_fc3d')):
    miss = ['%s on %s' % (r['solver'], r['problem']) for r in dis
            if not re.search(r'\\texttt\{%s\} & \\texttt\{%s\} &' % (re.escape(r['problem'].replace('_', '\\_')),
                                                                    re.escape(r['solver'].replace('_', '\\_'))), side)]
    report((dis and '\\label{tab:disagree}' in side and not miss) or
           (not dis and "No solver's own verdict disagreed" in side),
           'the disagreements of the verdicts are the paper\'s table (%d rows)' % len(dis), ', '.join(miss[:3]))
    # the told cell: the tolerance on the ladder, or none (a command without {tol}), said in the caption
    bad = []
    for r in dis:
        m = re.search(r'\\texttt\{%s\} & \\texttt\{%s\} &[^\n]*& ([^&\n]*?) \\\\' % (
            re.escape(r['problem'].replace('_', '\\_')), re.escape(r['solver'].replace('_', '\\_'))), side)
        cell = m.group(1).strip() if m else '?'
        if cell == '' or (cell == 'none') != (not r.get('peer_tol')):
            bad.append('%s on %s: told cell "%s", peer_tol "%s"' % (r['solver'], r['problem'], cell,
                                                                  r.get('peer_tol', '')))
    if dis and any(not r.get('peer_tol') for r in dis) and 'none: its command takes no tolerance' not in side:
        bad.append('the caption does not say what "none" means')
    report(not bad, 'the disagreements table says what each solver was told', '; '.join(bad[:3]))
vers = {}
for n in ('profile', 'peers_lcp', 'peers_fc3d'):
    for r in rows(n + '_peers.csv')[0]:
        vers.setdefault(r['solver'], r.get('version', ''))
if vers:
    bad = [s for s, v in vers.items()
           if not re.search(r'\\texttt\{%s\} & %s &' % (re.escape(s.replace('_', '\\_')),
                                                      re.escape(v.replace('_', '\\_') or 'not stated')), side)]
    report('\\label{tab:peerversions}' in side and not bad, 'every peer\'s version and options are in its table',
           ', '.join(bad))

# point 7: the scenes' budget stops per solver, and whose an energy blow-up is
steps = {}
for n in ('drift', 'accuracy'):
    for r in rows(n + '.csv')[0]:
        if r.get('step') and r['status'] not in ('refused', 'unsupported'):
            d = steps.setdefault(r['solver'], [0, 0, 0])
            d[0] += 1
            d[1] += r['status'] == 'converged'
            d[2] += (r['status'] != 'converged' and not r.get('note', '').startswith('failed solve') and
                     (r.get('applied') or 'solver') == 'solver')
bt = open(os.path.join(gen, 'budget.tex')).read() if os.path.exists(os.path.join(gen, 'budget.tex')) else ''
# a solver's row, or the row of identical algorithms it is one of ("a=b=...")
def in_name(s):
    return r'\\texttt\{(?:[^}=]*=)*%s(?:=[^}]*)?\}' % re.escape(s.replace('_', '\\_'))


bad = [s for s, d in steps.items()
       if not re.search(r'%s & %d & %d & %d &' % (in_name(s), d[0], d[1], d[2]), bt)]
report(steps and not bad and 'budget stop' in text, 'the budget stops per solver are the steps\' own', ', '.join(bad))
last = {}
for r in rows('drift.csv')[0]:
    if r.get('step'):
        last[(r['scene'], r['friction'], r['integrator'], r['solver'])] = r
blow = [k for k, r in last.items() if abs(float(r['rel_drift'] or 0)) > 1]
bad = [k for k in blow if not re.search(r'%s took the energy from' % in_name(k[3]), text)]
report(not bad, 'every energy blow-up of the drift runs is named with its steps (%d)' % len(blow),
       ', '.join('%s on %s' % (k[3], k[0]) for k in bad))

# point 7: the energy rule, where drift.csv's on_failure line names it, said with the
# budget stops it failed per solver (the rows whose note says so)
drift_rows, drift_pre = rows('drift.csv')
if 'energy rule' in drift_pre.get('on_failure', ''):
    ef = {}
    for n in ('drift', 'accuracy'):
        for r in rows(n + '.csv')[0]:
            if r.get('step') and r.get('note', '').startswith('failed solve (energy rule'):
                ef[r['solver']] = ef.get(r['solver'], 0) + 1
    bad = [s for s, k in ef.items() if not re.search(r'%s \(%d of \d+ steps\)' % (in_name(s), k), text)]
    report('energy rule' in text and not bad, 'the energy rule is said, with the budget stops it failed (%d solvers)'
           % len(ef), ', '.join(bad))

# the peers' problems in the abstract: those of the peers' own sections and, in a full
# campaign, the profile's problems a peer took
pp_probs = {r['problem'] for n in ('peers_lcp', 'peers_fc3d') for r in rows(n + '.csv')[0]}
pp_probs |= {r['problem'] for n in ('profile', 'large') for r in rows(n + '.csv')[0]
             if r.get('solver') in declared and r.get('status') != 'refused'}
ab = open(os.path.join(gen, 'abstract_peers.tex')).read() if os.path.exists(os.path.join(gen, 'abstract_peers.tex')) else ''
m = re.search(r'side by side on (\w+) problems?', ab)
report(not ab or (m and (WORDS.get(m.group(1)) or (int(m.group(1)) if m.group(1).isdigit() else -1)) == len(pp_probs)),
       'the abstract counts the problems the peers met', '%s; the CSVs: %d' % (m.group(0) if m else ab[:80],
                                                                            len(pp_probs)))

# the scaling figure's note: the fits it draws are those whose entry (`a=b` for identical
# algorithms) holds a solver the figure line names
sc_pre = rows('scaling.csv')[1]
figsv = [w for w in re.findall(r'(?:^|\s)solvers=(\S+)', sc_pre.get('figure', ''))[-1:] for w in w.split(',') if w]
fits = list(dict.fromkeys(r['solver'] for r in rows('scaling_slopes.csv')[0] if r.get('slope') not in ('', 'nan')))
m = re.search(r'It draws (\d+) of the (\d+) (?:fits|solvers fitted)', M.get('ScalingFigNote', ''))
want = sum(1 for x in fits if set(x.split('=')) & set(figsv))
report(not m or int(m.group(1)) == want, 'the scaling figure\'s note counts the fits it draws',
       '%s; drawn %d' % (m.group(0) if m else '', want))

# the scaling text's fastest at the largest size: a statement of time within the noise --
# it names a factor, and every entry (identical algorithms pooled, `a=b`) within that factor
# of the fastest's pooled median is named tied; none slower than that is
st = open(os.path.join(gen, 'scaling_text.tex')).read() if os.path.exists(os.path.join(gen, 'scaling_text.tex')) else ''
m = re.search(r'At \$n=(\d+)\$ the fastest is \\texttt\{([^}]*)\}', st)
if m:
    n_at = m.group(1)
    entry = {x: r['solver'] for r in rows('scaling_slopes.csv')[0] for x in r['solver'].split('=')}
    pooled = {}
    for r in scal:
        if r.get('n') == n_at and r.get('status') == 'converged':
            ts = [float(x) for x in (r.get('time_runs_s') or r['time_s']).split()]
            pooled.setdefault(entry.get(r['solver'], r['solver']), []).extend(ts)
    med = {e: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
           for e, v in pooled.items()}
    f = re.search(r'(?:tied within a factor|more than a factor) (\d+\.\d+)', st)
    fast = m.group(2).replace('\\_', '_')
    named = {x.replace('\\_', '_') for x in re.findall(r'\\texttt\{([^}]*)\}',
                                                         st.split('tied within a factor', 1)[1].split(', and the slowest')[0])} \
        if 'tied within a factor' in st else set()
    want = set()
    if f and fast in med:
        want = {e for e, t in med.items() if e != fast and t <= med[fast] * float(f.group(1))}
    report(bool(f) and fast in med and min(med.values()) == med[fast] and named == want,
           'the scaling text\'s fastest at the largest size allows for the noise',
           'factor %s; fastest %s; tied named %s; within the factor %s' % (
               f.group(1) if f else 'none', fast, sorted(named), sorted(want)))

# every page inside the margins: the LaTeX log beside GEN_DIR (paper/build.sh writes
# OUT/paper.log beside OUT/gen) has no box more than OVERFULL_PT too wide (a table past
# the right margin) and no float taller than the page (a table past the bottom); without
# a log (gen.py alone) there is nothing to check
OVERFULL_PT = 3.0
log = os.path.join(os.path.dirname(os.path.normpath(gen)), 'paper.log')
if os.path.exists(log):
    with open(log, errors='replace') as fh:
        ltext = fh.read()
    wide = []
    for m in re.finditer(r'Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\) (?:in paragraph|in alignment|detected) '
                         r'at lines? (\d+(?:--\d+)?)', ltext):
        if float(m.group(1)) > OVERFULL_PT:
            opened = re.findall(r'\((?:\./)?(gen/[\w.-]+\.tex|paper\.tex)', ltext[:m.start()])
            wide.append('%s pt at lines %s (%s)' % (m.group(1), m.group(2), opened[-1] if opened else '?'))
    report(not wide, 'no box past the right margin by more than %g pt (paper.log)' % OVERFULL_PT,
           '; '.join(wide[:4]))
    tall = re.findall(r'Float too large for page by (\d+(?:\.\d+)?)pt on input line (\d+)', ltext)
    report(not tall, 'no float taller than the page (paper.log)',
           '; '.join('%s pt at input line %s' % t for t in tall[:4]))

# ---- issue 84, item 6: the kinds of contradiction that fail the build (tests/paper_kinds.py,
# each planted in tests/paper_kinds_planted.py) ------------------------------------------------------
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paper_kinds  # noqa: E402


def gen_text(skip=()):
    """The generated files but those whose names start with one of skip, macros expanded."""
    out = ''
    for name in sorted(os.listdir(gen)):
        if name.startswith(skip) or not name.endswith('.tex'):
            continue
        with open(os.path.join(gen, name)) as fh:
            out += expand(strip_comments(fh.read())) + '\n'
    return out


bad = paper_kinds.caption_files(text)
report(not bad, 'every file name the paper gives carries its section', ', '.join(bad[:4]))
plist = os.path.join(gen, 'problemlist.tex')
if os.path.exists(plist):
    own = expand(inline(re.sub(r'\\input\{gen/(?:abstract_)?peers[^}]*\}', '', doc_raw))) + '\n' + \
        gen_text(('peers', 'abstract_peers'))
    own = re.sub(r'\\caption\{peers\\_\w+:.*?\}\s*\\label', '', own, flags=re.S)
    bad = paper_kinds.class_counts(own, open(plist).read())
    report(not bad, 'the per-class and per-family counts are the problem list\'s', '; '.join(bad[:4]))
    bad = paper_kinds.tie_values(own, M.get('TieFactor'))
    report(not bad, 'one tie factor for the profiles\' sections', 'stated: %s' % ', '.join(bad))
tables = {}
for m in re.finditer(r'\\label\{(tab:[^}]*)\}(.*?)\\end\{tabular', text, re.S):
    tables[m.group(1)] = m.group(2)
wtex = os.path.join(gen, 'winners.tex')
if os.path.exists(wtex):
    tables['tab:win'] = open(wtex).read()
bad = paper_kinds.refusal_denominators(tables)
report(not bad, 'refusals in every denominator (a rho over accepted problems has its rho_all beside it)',
       '; '.join(bad[:4]))
if os.path.exists(log):
    with open(log, errors='replace') as fh:
        bad = paper_kinds.rerun_warning(fh.read())
    report(not bad, 'no LaTeX "Rerun" warning at the end of paper.log', '; '.join(bad[:2]))

# issue 84 item 2: the set-up cost measured apart -- the timings table's empty column is the
# overhead section's median per solver, to its two printed digits (the LCP file for the LCP classes, the Coulomb contact
# for the cone classes), and the noise paragraph names it an overhead, not noise
if os.path.exists(os.path.join(res, 'overhead.csv')):
    ov = {(r['solver'], r['kind']): float(r['time_s']) for r in rows('overhead.csv')[0]
          if r['status'] == 'converged' and r['time_s'] not in ('', 'nan')}
    m = re.search(r'\\label\{tab:timings\}(.*?)\\end\{tabular\}', doc, re.S)
    bad, cls, seen = [], '', 0
    for line in (m.group(1).split('\\midrule', 1)[-1].split('\n') if m else []):
        c = [x.strip() for x in line.rstrip().rstrip('\\').split('&')]
        if len(c) != 8:
            continue
        cls, seen = c[0] or cls, seen + 1
        # a merged row ('pgs=pgs_wide=...') shows its first solver's empty solve
        want = ov.get((texttt(c[1]).split('=')[0], 'cone' if cls in ('fc3d', 'cone-assoc') else 'lcp'))
        got = sci_value(c[7])
        if (got is None) != (want is None) or (want is not None and abs(got - want) > 0.05 * want):
            bad.append('%s %s: %s, overhead.csv %s' % (cls, c[1], c[7], want))
    noise = re.search(r'\\paragraph\{Noise\.\}(.*?)\n\n', text, re.S)
    report(seen and not bad and noise and 'overhead' in noise.group(1) and 'not counted as noise' in noise.group(1),
           'the empty solves are the overhead section\'s and named an overhead (%d rows)' % seen, '; '.join(bad[:3]))
