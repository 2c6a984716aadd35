# paper_kinds.py -- the kinds of contradiction issue 84 asks the paper's build to
# catch, each a function of the paper's text (or log) that returns what is wrong
# (an empty list: nothing).  tests/paper_checks.py runs them on the paper `make paper`
# built; tests/paper_kinds_planted.py plants each kind and sees it reported.
#
#   caption_files(text)            a file name without its section (\_peers.csv, NAME\_x.csv)
#   class_counts(text, plist)      per-class and per-family counts against the problem list
#   tie_values(text, tie_factor)   more than one tie factor stated for the profiles' sections
#   refusal_denominators(tables)   a table whose rho counts refusals apart while others count them
#   rerun_warning(log)             LaTeX's "Rerun" warning at the end of the log
import re

CLASS_NAME = {'lcp': 'standard LCP', 'box': 'boxed/findex LCP', 'mlcp': 'MLCP (equality rows)',
              'fc3d': '3-D Coulomb friction (FC3D)', 'cone-assoc': 'associated cone'}
WORDS = {'no': 0, 'one': 1, 'two': 2, 'three': 3, 'four': 4, 'five': 5, 'six': 6, 'seven': 7,
         'eight': 8, 'nine': 9, 'ten': 10, 'eleven': 11, 'twelve': 12}


def caption_files(text):
    """File names a reader cannot open: \\texttt{\\_peers.csv} or NAME\\_x.csv (the
    section's name missing)."""
    return re.findall(r'\\texttt\{((?:NAME)?\\_[\w\\]*\.(?:csv|tex|pdf))\}', text)


def plist_counts(plist_tex):
    """{('class', c): k, ('family', f): k} of the problem list's rows (gen/problemlist.tex:
    problem & origin & family & class & n & ...)."""
    out = {}
    for line in plist_tex.splitlines():
        cells = [c.strip() for c in line.split('&')]
        if len(cells) < 8 or not cells[0].startswith('\\texttt{'):
            continue
        fam, cls = cells[2].replace('\\', ''), cells[3].replace('\\', '')
        out[('family', fam)] = out.get(('family', fam), 0) + 1
        out[('class', cls)] = out.get(('class', cls), 0) + 1
    return out


def number(word):
    return int(word) if word.isdigit() else WORDS.get(word.lower())


def class_counts(text, plist_tex):
    """The per-class counts the text states of the profiles' classes ("The C class (N
    problems", "C: N problems") and the generators' table's per-family counts ("N problems
    (Table~\\ref{tab:plist})" in a family's row) against the problem list's rows.  text:
    the paper without the peers' sections (they have problems of their own)."""
    have = plist_counts(plist_tex)
    bad = []
    for code, name in CLASS_NAME.items():
        pat = re.escape(name)
        for m in re.finditer(r'(?:The %s class \(|%s: )(\w+) problems?' % (pat, pat), text):
            n, want = number(m.group(1)), have.get(('class', code), 0)
            if n != want:
                bad.append('%s: the text says %s, the problem list has %d' % (name, m.group(1), want))
    for m in re.finditer(r'^\\texttt\{([\w\\-]+)\}[^\n]*?(\w+) problems? \(Table~\\ref\{tab:plist\}\)', text, re.M):
        fam = m.group(1).replace('\\', '')
        n, want = number(m.group(2)), have.get(('family', fam), 0)
        if n != want:
            bad.append('family %s: the generators\' table says %s, the problem list has %d' % (fam, m.group(2), want))
    return bad


def tie_values(text, tie_factor):
    """The tie factors the text states for the profiles' sections: the macro's, every
    "within a factor F" / "tie factor F", and every tolerance T of the timing paragraph's
    "The tie tolerance ... of S is ..., $T$" (factor 1 + T) where S is the profile or a
    section without passes of its own.  Two values are one when they agree to the coarser one's printed digits.
    Returns the distinct values when there are two or more.  text: the paper without the
    peers' sections and tables, which state their own."""
    vals = []
    if tie_factor:
        vals.append((float(tie_factor), tie_factor))
    for m in re.finditer(r'(?:within a factor|tie factor)(?: of)? \$?(\d+\.\d+)', text):
        vals.append((float(m.group(1)), m.group(1)))
    m = re.search(r'The tie tolerance \(Section~\\ref\{sec:ties\}\) of (.*?)\.\s', text, re.S)
    # each "S is ..., $T$" with no other " is " between the name and its value: the profile's,
    # and those of sections without passes of their own (their in-task noise, a default or a
    # set value: a second factor for statements on the profiles' timing); a section with its
    # own passes (the peers', a full campaign's large set) states its own, as its table does
    for name, how, tol in re.findall(r'([A-Za-z][\w\\]*) is ((?:(?! is )[^$])*?)\$([\d.e+-]+)\$',
                                     m.group(1) if m else ''):
        if name == 'profile' or ('passes' not in how and not name.startswith('peers')):
            f = 1 + float(tol)
            vals.append((f, '%s (1 + %s, %s)' % (('%.6g' % f), tol, name.replace('\\', ''))))
    distinct = []
    for v, shown in vals:
        digits = len(shown.split(' ')[0].split('.')[1]) if '.' in shown.split(' ')[0] else 0
        if not any(abs(v - w) <= 0.5 * 10 ** -min(digits, d) + 1e-12 for w, _, d in distinct):
            distinct.append((v, shown, digits))
    return [shown for _, shown, _ in distinct] if len(distinct) > 1 else []


def refusal_denominators(tables):
    """tables: {label: tabular text} of the tables that give a profile value rho per solver
    (the winners table, the peers' tables).  A table with refusals (a `refused' column with a
    nonzero cell, or accepted below the class's problems) and no rho_all column counts
    refusals apart while the profiles with refusals count them: reported by label."""
    bad = []
    for label, tab in tables.items():
        head = next((l for l in tab.splitlines() if 'solver' in l and '&' in l), '')
        if not head or 'rho' not in head or 'mathrm{all}' in head:
            continue
        cols = [c.strip() for c in head.rstrip('\\ ').split('&')]
        if 'refused' not in cols:
            continue
        k = cols.index('refused')
        for line in tab.splitlines():
            cells = [c.strip() for c in line.rstrip('\\ ').split('&')]
            if len(cells) == len(cols) and cells[k].isdigit() and int(cells[k]) > 0:
                bad.append('%s: refusals (%s) outside its rho, no rho_all column' % (label, cells[1]))
                break
    return bad


def rerun_warning(log):
    """LaTeX's last words asking for another run ("Label(s) may have changed. Rerun",
    "Rerun to get cross-references right"): the PDF's references may be wrong."""
    tail = log[-3000:]
    return re.findall(r'[^\n]*Rerun[^\n]*', tail)
