# exp_convergence.gp -- figure of a `convergence` experiment (work-precision):
# res_scaled (the convergence test's measure) against iterations and against measured time, per problem, in two
# groups of solvers so that no panel has more than six curves
# (experiments/README.md, "Figures").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure convergence CSV`)
#
# dat (NAME.csv's rows): problem, kind, n, solver, status, iteration, time_s, res_scaled, final,
# class, method, time_source, tol.
# Groups: the box solvers (those that take no Coulomb cone: box_solvers,
# which the engine writes from the registry) and the contact/cone solvers
# (every other, auto and any external solver too); a group with no
# run on a problem has no panel.  One row a problem: group 1 against
# iterations, then against time, then group 2 likewise.  Lines: the
# solver's history (final = 0, iterations >= 1, log-log); the mark at the
# end: its final state as the library recomputed it (final = 1), the only
# mark of solvers without a history (pivoting, direct).
# The time axis is
# the measured timestamp of each iteration when time_source is "measured"
# (the caption should say which).  Residuals of exactly 0 are not drawn;
# the y axis spans at most 14 decades down from the largest residual; a
# final mark whose residual is below the axis (or exactly 0: a pivoting
# method's exact solution) sits on the bottom axis.  The
# run's tolerance is the dashed grey line.
# A group of more than `figure per_panel=K` solvers (default 6) is drawn in
# chunks of at most K ("contact 1/2"), two panel pairs a row, so that every
# curve of a panel is told apart in grayscale (exp_style.gp's marks and dashes).
# Options: solvers=, width= (default 6.7), font=, title=, rows= (rows of
# panel pairs a page, default 5), per_panel=.  Writes out.pdf and out.png (out-2.* ... for more pages).
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_convergence.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }

probs = dat_list(dat, "$9 == \"1\" && $6 != \"\"", "$1")
np = words(probs)
if (np == 0) { print "exp_convergence.gp: no measured rows in ".dat; exit status 1 }
allsolvers = dat_list(dat, "$6 != \"\" && $5 != \"unsupported\" && $5 != \"refused\"".sfilter(4), "$4")
tolstr = word(dat_meta(dat, "tol"), 1)
tol = 0.0
if (tolstr ne "?") { eval("tol = " . tolstr) }
gsel(g) = ingroup(g, 4)
gname(g) = g == 1 ? "box solvers" : "contact solvers"
W = figwidth(6.65)
# the panel pairs (iterations, time): per problem and group, its solvers in chunks of at
# most `figure per_panel=K` (default 6, exp_style.gp), so that every curve of a panel has a
# dash and a mark of its own in grayscale; code: problem * 10000 + group * 100 + chunk
runsel(p, g) = sprintf("$1 == \"%s\" && $5 != \"unsupported\" && $5 != \"refused\"", p).gsel(g).sfilter(4)
finals(p, g) = dat_list(dat, runsel(p, g)." && $9 == \"1\" && $6 != \"\"", "$4")
pairs = ""
# a history curve's rows, and its marks: about five along every curve (issue 84: a curve
# told apart in grayscale by its marks, not only by its end), every hpi-th point
hcond(p, s, xcol) = sprintf("$1 == \"%s\" && $4 == \"%s\" && $9 == \"0\" && $%d + 0 > 0 && $8 + 0 > 0", p, s, xcol)
hpi(p, s, xcol) = (nrows(dat, hcond(p, s, xcol)) / 5 >= 1 ? int(nrows(dat, hcond(p, s, xcol)) / 5) : 1)
do for [pi = 1:np] {
  do for [g = 1:2] {
    nf = words(finals(word(probs, pi), g))
    if (nf > 0) { do for [c = 1:nchunks(nf)] { pairs = pairs.sprintf(" %d", pi * 10000 + g * 100 + c) } }
  }
}
npairs = words(pairs)
maxrows = exists("fig_rows") ? int(fig_rows) : 5
perpage = 2 * maxrows
npages = int((npairs + perpage - 1) / perpage)
PH = 1.62
# rows of the legend strip: gnuplot fits 4 columns of names at 6.7 in (6 cut the first row)
keyh = 0.16 * (int((words(allsolvers) + 1 + 3) / 4) + 1)

do for [page = 1:npages] {
  q0 = (page - 1) * perpage
  nq = (npairs - q0 < perpage) ? npairs - q0 : perpage
  nh = int((nq + 1) / 2)
  H = keyh + PH * nh + 0.1
  top = 1.0 - keyh / H
  base = page == 1 ? out : sprintf("%s-%d", out, page)
  do for [fmt in figformats] {
    eval(figset(fmt, W, H))
    set output base.".".fmt
    set multiplot title fig_title_opt font tf
    eval(keystrip(top, 1.0, 7))
    plot for [k = 1:words(allsolvers)] NaN with linespoints lw 1.2 dt sdt_s(word(allsolvers, k)) \
           pt spt(word(allsolvers, k)) ps 0.6 lc rgb scolour(word(allsolvers, k)) title txt(word(allsolvers, k)), \
         NaN with lines dt 2 lc rgb "#888888" title sprintf("tol %s", tolstr)
    eval(keyend)
    set logscale xy
    set format y "10^{%L}"
    set format x "10^{%L}"
    letterk = 0
    do for [q = q0 + 1:q0 + nq] {
      code = int(word(pairs, q))
      pi = int(code / 10000)
      g = int(code / 100) % 100
      c = code % 100
      p = word(probs, pi)
      run = runsel(p, g)
      fall = finals(p, g)
      nc = nchunks(words(fall))
      fin = chunk(fall, c, nc)
      histall = dat_list(dat, run." && $9 == \"0\" && $6 + 0 >= 1", "$4")
      hist = ""
      do for [k = 1:words(fin)] {
        if (strstrt(" ".histall." ", " ".word(fin, k)." ") > 0) { hist = hist." ".word(fin, k) }
      }
      hi = real(colmax(dat, run, "$8", 1))
      lo = real(colmin(dat, run, "$8", 1))
      lo = lo < tol && tol > 0 ? lo : (tol > 0 ? tol : lo)
      lo = lo > hi * 1e-14 ? lo : hi * 1e-14
      row = int((q - q0 - 1) / 2) + 1
      do for [panel = 1:2] {
        letterk = letterk + 1
        col = ((q - q0 - 1) % 2) * 2 + panel
        eval(gridpanel(row, col, nh, 4, 0.12 * 6.7 / W, 0.97, 0.45 / H, top - 0.36 / H, 0.12 * 6.7 / W, 0.95 / H))
        xcol = panel == 1 ? 6 : 7
        set xlabel (panel == 1 ? "iteration" : "time [s]") offset 0, 0.7
        set ylabel (panel == 1 ? "res_{scaled}" : "") offset 1.0, 0
        set yrange [logfloor(lo):logceil(hi)]
        set ytics 10.0**ceil(log10(logceil(hi) / logfloor(lo)) / 4 - 1e-9)
        set autoscale x
        set xtics 100
        # the pair's title starts at the left edge of its first panel and
        # may run over the second, whose letter therefore sits at its right
        # edge (a centred title ran past the page and into its neighbour)
        unset title
        if (panel == 1) {
          set label 98 sprintf("%s %s: %s%s", letter(letterk), txt(p), g == 1 ? "box" : "contact", ctitle(c, nc)) at graph 0, graph 1.3 left noenhanced font kf
        } else {
          set label 98 letter(letterk) at graph 1, graph 1.3 right noenhanced font kf
        }
        plot for [k = 1:words(hist)] rows(dat, hcond(p, word(hist, k), xcol)) \
               using xcol:8 with linespoints lw 1.1 dt sdt_s(word(hist, k)) lc rgb scolour(word(hist, k)) \
               pt spt(word(hist, k)) ps 0.45 pi hpi(p, word(hist, k), xcol) notitle, \
             for [k = 1:words(fin)] rows(dat, sprintf("$1 == \"%s\" && $4 == \"%s\" && $9 == \"1\" && $%d + 0 > 0", p, word(fin, k), xcol)) \
               using xcol:($8 > logfloor(lo) ? $8 : logfloor(lo)) with points pt spt(word(fin, k)) ps 0.7 lc rgb scolour(word(fin, k)) notitle, \
             (tol > 0 ? tol : NaN) with lines dt 2 lc rgb "#888888" notitle
      }
    }
    unset label 98  # not on the next page's legend strip
    unset multiplot
    set output
    if (fmt eq "pdf") { dummy = figpng(base) }
  }
}
