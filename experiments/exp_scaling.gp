# exp_scaling.gp -- figure of a `scaling` experiment: median solve time
# against n, log-log, one panel per family, the fitted slope of each solver in
# the legend (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; csv2='NAME_slopes.csv'; out='NAME'; gpdir='experiments'" exp_scaling.gp
#
# csv: family, problem, kind, n, solver, status, iterations, pivots, time_s, ...
# csv2: family, solver, points, slope, intercept, r2 (least squares of
# log t = a + s log n over the converged points, cli/experiment_stats.c).
# Converged points are filled and joined; runs that did not converge are
# circled in black; the fitted line is dashed.  Writes out.pdf, out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv")) { print "exp_scaling.gp: give csv='NAME.csv'"; exit status 2 }
if (!exists("out")) { out = csv[1:strlen(csv)-4] }
if (!exists("csv2") || strlen(csv2) == 0) { csv2 = out."_slopes.csv" }

fams = csv_list(csv, "$9 != \"\"", "$1")
nf = words(fams)
if (nf == 0) { print "exp_scaling.gp: no measured rows in ".csv; exit status 1 }
rev = word(csv_meta(csv, "rev"), 1)
tol = csv_meta(csv, "tol")

# awk condition: family f, solver s, status == / != converged
sel(f, s, op) = sprintf("$1 == \"%s\" && $5 == \"%s\" && $6 %s \"converged\"", f, s, op)
fit(f, s, col) = system(sprintf("awk -F, '$1 == \"%s\" && $2 == \"%s\" && $4 != \"\" {print $%d; exit}' '%s'", f, s, col, csv2))
slopetxt(f, s) = (fit(f, s, 4) eq "") ? "no fit" : sprintf("slope %.2f", real(fit(f, s, 4)))
fitline(f, s, n) = (fit(f, s, 4) eq "") ? NaN : exp(real(fit(f, s, 5)) + real(fit(f, s, 4)) * log(n))

do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_scaling.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, 3.4, 0.4 + 2.4 * nf))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot layout nf,1 title sprintf("solve time against n (tol %s, rev %s)", word(tol, 1), rev) noenhanced
  set logscale xy
  set format y "10^{%L}"
  set format x "%g"
  set xlabel "n (rows = unknowns)"
  set ylabel "median solve time [s]"
  set key outside right top vertical Left reverse samplen 1.5 spacing 0.9 font kf
  do for [fi = 1:nf] {
    f = word(fams, fi)
    solvers = csv_list(csv, sprintf("$1 == \"%s\" && $9 != \"\"", f).sfilter(5), "$5")
    bads = csv_list(csv, sprintf("$1 == \"%s\" && $9 != \"\" && $6 != \"converged\"", f), "$5")
    set title sprintf("family %s", f) noenhanced
    plot for [k = 1:words(solvers)] rows(csv, sel(f, word(solvers, k), "==")) using 4:9 with linespoints \
           lw 1.2 pt spt(word(solvers, k)) ps 0.6 lc rgb scolour(word(solvers, k)) \
           title sprintf("%s: %s", word(solvers, k), slopetxt(f, word(solvers, k))), \
         rows(csv, sprintf("$1 == \"%s\" && $9 != \"\"", f)) \
           using 4:(strcol(6) ne "converged" ? $9 : NaN) with points pt 6 ps 1.4 lc rgb "black" \
           title (words(bads) > 0 ? "not converged" : ""), \
         for [k = 1:words(solvers)] rows(csv, sel(f, word(solvers, k), "==")) \
           using 4:(fitline(f, word(solvers, k), $4)) with lines dt 2 lw 0.8 lc rgb scolour(word(solvers, k)) notitle
  }
  unset multiplot
  set output
}
