# exp_convergence.gp -- figure of a `convergence` experiment (work-precision):
# res_rel against iterations (left) and against time (right), one row of
# panels per problem, one line per solver (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; out='NAME'; gpdir='experiments'" exp_convergence.gp
#
# csv: problem, kind, n, solver, status, iteration, time_s, res_rel, final.
# Lines: the solver's history (final = 0; iterations >= 1, log-log); the
# filled point: its final state as the library recomputed it (final = 1),
# which is also the only mark of solvers without a history (pivoting,
# direct).  Time of iteration k is the estimate T k / K (see the README).
# The run's tolerance is the dashed line.  Residuals of exactly 0 are drawn
# at 1e-17.  Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv")) { print "exp_convergence.gp: give csv='NAME.csv'"; exit status 2 }
if (!exists("out")) { out = csv[1:strlen(csv)-4] }

probs = csv_list(csv, "$9 == \"1\" && $6 != \"\"", "$1")
np = words(probs)
if (np == 0) { print "exp_convergence.gp: no measured rows in ".csv; exit status 1 }
if (np > 6) { print "exp_convergence.gp: more than 6 problems: only the first 6 are drawn"; np = 6 }
allsolvers = csv_list(csv, "$6 != \"\"".sfilter(4), "$4")
rev = word(csv_meta(csv, "rev"), 1)
tolstr = word(csv_meta(csv, "tol"), 1)
tol = 0.0
if (tolstr ne "?") { eval("tol = " . tolstr) }

H = 0.75 + 1.8 * np
top = 1.0 - 0.5 / H

do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_convergence.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, 3.4, H))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot
  eval(keystrip(top, kf))
  plot for [k = 1:words(allsolvers)] NaN with linespoints lw 1.2 pt spt(word(allsolvers, k)) ps 0.8 \
         lc rgb scolour(word(allsolvers, k)) title word(allsolvers, k), \
       NaN with lines dt 2 lc rgb "#666666" title sprintf("tol %s", tolstr)
  eval(keyend)
  set logscale xy
  set format y "10^{%L}"
  set format x "10^{%L}"
  set ytics 100
  do for [pi = 1:np] {
    p = word(probs, pi)
    hist = csv_list(csv, sprintf("$1 == \"%s\" && $9 == \"0\" && $6 + 0 >= 1", p).sfilter(4), "$4")
    fin = csv_list(csv, sprintf("$1 == \"%s\" && $9 == \"1\" && $6 != \"\"", p).sfilter(4), "$4")
    do for [panel = 1:2] {
      eval(gridpanel(pi, panel, np, 2, 0.14, 0.97, 0.4 / H, top - 0.25 / H, 0.1, 0.62 / H))
      xcol = panel == 1 ? 6 : 7
      set xlabel (panel == 1 ? "iteration" : "time [s]")
      set ylabel (panel == 1 ? "res\\_rel  [-]" : "")
      set title sprintf("%s%s", p, panel == 1 ? "" : " (time)") noenhanced font kf
      plot for [k = 1:words(hist)] rows(csv, sprintf("$1 == \"%s\" && $4 == \"%s\" && $9 == \"0\" && $%d + 0 > 0", p, word(hist, k), xcol)) \
             using xcol:(floor17($8)) with lines lw 1.2 lc rgb scolour(word(hist, k)) notitle, \
           for [k = 1:words(fin)] rows(csv, sprintf("$1 == \"%s\" && $4 == \"%s\" && $9 == \"1\" && $%d + 0 > 0", p, word(fin, k), xcol)) \
             using xcol:(floor17($8)) with points pt spt(word(fin, k)) ps 0.8 lc rgb scolour(word(fin, k)) notitle, \
           (tol > 0 ? tol : NaN) with lines dt 2 lc rgb "#666666" notitle
    }
  }
  unset multiplot
  set output
}
