# paper_kinds_planted.py -- each kind of contradiction of issue 84 (tests/paper_kinds.py,
# run by tests/paper_checks.py on the paper `make paper` builds) planted, and seen
# reported; beside each, a variant that is right and must pass.
#
#   python3 tests/paper_kinds_planted.py        exit 0 all passed, 1 any failure
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import paper_kinds as k  # noqa: E402

fails = 0


def check(ok, desc):
    global fails
    fails += not ok
    print(('ok   - %s' if ok else 'FAIL - %s') % desc)


# a caption whose file name lacks its section (Tables 13 and 14 of the referee's reading)
bad = k.caption_files(r'\caption{per section (its disagreements table, \texttt{\_disagreements.csv}); and '
                      r'\texttt{NAME\_peers.csv}}')
check(bad == [r'\_disagreements.csv', r'NAME\_peers.csv'], 'caption: a bare \\_NAME.csv is reported (%s)' % bad)
check(k.caption_files(r'\caption{(\texttt{peers\_lcp\_disagreements.csv}, \texttt{profile\_peers.csv})}') == [],
      'caption: file names with their section pass')

# per-class counts in the text against the problem list (Table 2's "seven problems" of spd
# against four listed)
plist = '\n'.join([r'\texttt{spd\_50\_s%d} & generated & spd & lcp & 50 & 0 & none & $1$ \\' % s for s in (1, 2)] +
                  [r'\texttt{spd\_200\_s%d} & generated & spd & lcp & 200 & 0 & none & $1$ \\' % s for s in (1, 2)] +
                  [r'\texttt{relay1} & file & relay & box & 4 & 0 & none & $1$ \\'])
gen_bad = r'\texttt{spd} & lcp & B & lo & b & x* & seven problems (Table~\ref{tab:plist}) \\'
gen_ok = r'\texttt{spd} & lcp & B & lo & b & x* & four problems (Table~\ref{tab:plist}); 3 problems in other sections \\'
check(len(k.class_counts(gen_bad, plist)) == 1, 'counts: the generators\' "seven problems" against 4 listed')
check(k.class_counts(gen_ok, plist) == [], 'counts: "four problems (Table plist)" passes')
bad = k.class_counts('The standard LCP class (5 problems, 1 with a best time) ... boxed/findex LCP: 1 problem;', plist)
check(len(bad) == 1 and 'standard LCP' in bad[0], 'counts: "The standard LCP class (5 problems" against 4 (%s)' % bad)
check(k.class_counts('The standard LCP class (4 problems, none ...); boxed/findex LCP: 1 problem', plist) == [],
      'counts: the right class counts pass')

# the tie factor stated in more than one value (p. 18's 1.846 against scaling's 0.0425)
two = (r'tied within a factor 1.846 with \texttt{pgs}. The tie tolerance (Section~\ref{sec:ties}) of profile is '
       r'the noise between two passes over the timed set, $0.846$ and of scaling is its noise within a task, '
       r'$0.0425$. ')
check(k.tie_values(two, '1.846') == ['1.846', '1.0425 (1 + 0.0425, scaling)'], 'tie: 1.846 and 1 + 0.0425 reported (%s)' %
      k.tie_values(two, '1.846'))
one = (r'tied within a factor 1.846 with \texttt{pgs}. The tie tolerance (Section~\ref{sec:ties}) of profile is '
       r'the noise between two passes over the timed set, $0.846$; of peers\_lcp is its noise, $0.957$. ')
check(k.tie_values(one, '1.846') == [], 'tie: one factor (the peers\' own apart) passes')
one2 = (r'The tie tolerance (Section~\ref{sec:ties}) of profile is the noise between two passes, $0.846$, scaling '
        r'is that of the profiles (the noise between their passes), peers\_lcp is the noise between two '
        r'passes, $1.28071$. ')
check(k.tie_values(one2, '1.846') == [], 'tie: a section using the profiles\' factor, stated without a number, passes')
own = (r'The tie tolerance (Section~\ref{sec:ties}) of profile is the noise between two passes, $0.846$ and large '
       r'is the noise between two independent passes over the timed set, $0.4768$. ')
check(k.tie_values(own, '1.846') == [], 'tie: a section with passes of its own states its own factor')

# refusals counted in some denominators and not others (Table 16 against Figs. 4-6)
head = r'class & solver & accepted & refused & solved & fastest & tied & $\rho(10)$ & unsolved \\'
rowr = r' & \texttt{dantzig} & 7 & 1 & 7 & 0 & 2 & 0.71 &  \\'
check(len(k.refusal_denominators({'tab:peerslcp': head + '\n' + rowr})) == 1,
      'denominators: a rho without rho_all where a solver refused is reported')
head_all = head.replace(r'$\rho(10)$', r'$\rho(10)$ & $\rho_{\mathrm{all}}(10)$')
check(k.refusal_denominators({'tab:peerslcp': head_all + '\n' + rowr.replace('0.71', '0.71 & 0.62')}) == [],
      'denominators: rho_all beside rho passes')
check(k.refusal_denominators({'tab:x': head + '\n' + rowr.replace('& 7 & 1 &', '& 8 & 0 &')}) == [],
      'denominators: no refusal, no rho_all needed')

# LaTeX's Rerun warning at the end of the log
log = 'Output written on paper.pdf (37 pages).\nLaTeX Warning: Label(s) may have changed. Rerun to get ' \
      'cross-references right.\n'
check(len(k.rerun_warning(log)) == 1, 'rerun: "Label(s) may have changed. Rerun" reported')
check(k.rerun_warning('Output written on paper.pdf (37 pages).\n') == [], 'rerun: a clean log passes')

print('%d failed' % fails)
sys.exit(1 if fails else 0)
