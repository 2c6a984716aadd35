# exp_scaling.gp -- figure of a `scaling` experiment: median solve time
# against n, log-log, one panel per family, the fitted slope of each solver in
# the legend (experiments/README.md).
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure scaling CSV --csv2 CSV2`)
#
# dat (NAME.csv's rows): family, problem, kind, n, solver, status, iterations, pivots, time_s, ...
# dat2 (the second CSV's rows): family, solver, points, slope, intercept, r2 (least squares of
# log t = a + s log n over the converged points, libexperiment/stats.c).
# Converged points are filled and joined; runs that did not converge are
# circled in black; the fitted line is dotted.  The legend gives each
# solver's slope with its 95 % confidence interval.  Panels side by side (at
# most 3 a row), lettered, legends under them; axes hug the data.
# A family with more than six solvers is drawn as two panels, the box
# solvers and the contact solvers (ingroup, exp_style.gp).
# Options: solvers=, width= (default 6.65, 3.3 for one panel), font=, title=.
# Writes out.pdf, out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_scaling.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }
if (!exists("dat2") || strlen(dat2) == 0) { dat2 = out."_slopes.dat" }

fams = dat_list(dat, "$9 != \"\"", "$1")
nf = words(fams)
if (nf == 0) { print "exp_scaling.gp: no measured rows in ".dat; exit status 1 }
tol = dat_meta(dat, "tol")

# awk condition: family f, solver s, status == / != converged
sel(f, s, op) = sprintf("$1 == \"%s\" && $5 == \"%s\" && $6 %s \"converged\"", f, s, op)
# a solver's fit: its own row, or the row of the one entry identical algorithms share
# ("pgs=pgs_wide": the engine's merged name, experiments/README.md, "one entry per algorithm")
fit(f, s, col) = system(sprintf("awk -F'\\t' '$1 == \"%s\" && index(\"=\" $2 \"=\", \"=%s=\") > 0 && $4 != \"\" {print $%d; exit}' '%s'", f, s, col, dat2))
slopetxt(f, s) = (fit(f, s, 4) eq "") ? "no fit" : sprintf("slope %.2f", real(fit(f, s, 4)))
fitline(f, s, n) = (fit(f, s, 4) eq "") ? NaN : exp(real(fit(f, s, 5)) + real(fit(f, s, 4)) * log(n))

# panels: one a family, or two (the box solvers, the contact solvers) when a
# family has more than six solvers, so that no panel has more than six curves
gfilter(g) = ingroup(g, 5)
panels = ""
do for [fi = 1:nf] {
  f = word(fams, fi)
  nsv = words(dat_list(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f).sfilter(5), "$5"))
  if (nsv > 6) {
    do for [g = 1:2] {
      if (words(dat_list(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f).sfilter(5).gfilter(g), "$5")) > 0) { panels = panels.sprintf(" %d:%d", fi, g) }
    }
  } else {
    panels = panels.sprintf(" %d:0", fi)
  }
}
np = words(panels)
W = figwidth(np < 2 ? 3.3 : 6.65)
ncols = np < 3 ? np : 3
# the slope and its 95 % interval (slope_lo, slope_hi of dat2)
slopetxt(f, s) = (fit(f, s, 4) eq "") ? "no fit" : sprintf("%.2f [%.2f, %.2f]", real(fit(f, s, 4)), real(fit(f, s, 7)), real(fit(f, s, 8)))
nsmax = 6
PH = 1.8
LH = 0.2 * (nsmax + 1) + 0.2
nr = int((np + ncols - 1) / ncols)
H = (PH + LH + 0.5) * nr + (strlen(fig_title_opt) > 0 ? 0.2 : 0)
do for [fmt in figformats] {
  eval(figset(fmt, W, H))
  set output out.".".fmt
  set multiplot title fig_title_opt font tf
  set logscale xy
  set format y "10^{%L}"
  set format x "%g"
  set xlabel "n (unknowns)" offset 0, 0.7
  do for [pi = 1:np] {
    pp = word(panels, pi)
    fi = int(pp[1:strstrt(pp, ":") - 1])
    g = int(pp[strstrt(pp, ":") + 1:])
    f = word(fams, fi)
    solvers = dat_list(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f).sfilter(5).gfilter(g), "$5")
    bads = dat_list(dat, sprintf("$1 == \"%s\" && $9 != \"\" && $6 != \"converged\"", f).gfilter(g), "$5")
    r = int((pi - 1) / ncols)
    c = (pi - 1) % ncols
    x0 = c * (1.0 / ncols) + 0.11 * 6.7 / W
    x1 = (c + 1) * (1.0 / ncols) - 0.06 * 6.7 / W
    ytop = 1.0 - (r * (PH + LH + 0.5) + 0.25) / H
    set lmargin at screen x0
    set rmargin at screen x1
    set tmargin at screen ytop
    set bmargin at screen ytop - PH / H
    set ylabel (c == 0 ? "median solve time [s]" : "") offset 1, 0
    nlo = real(colmin(dat, sprintf("$1 == \"%s\"", f), "$4", 1))
    nhi = real(colmax(dat, sprintf("$1 == \"%s\"", f), "$4", 1))
    set xrange [nlo / 1.3:nhi * 1.3]
    tlo = real(colmin(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f), "$9", 1))
    thi = real(colmax(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f), "$9", 1))
    set yrange [logfloor(tlo):logceil(thi)]
    set title sprintf("%s family %s%s", letter(pi), txt(f), g == 0 ? "" : (g == 1 ? ", box solvers" : ", contact solvers")) noenhanced font tf offset 0, -0.6
    set key at screen x0 - 0.08 * 6.7 / W, screen ytop - (PH + 0.5) / H left top vertical Left reverse samplen 2.5 spacing 1.0 width 0 font kf title "log-log slope [95 % interval]" left
    plot for [k = 1:words(solvers)] rows(dat, sel(f, word(solvers, k), "==")) using 4:9 with linespoints \
           lw 1.1 dt sdt_s(word(solvers, k)) pt spt(word(solvers, k)) ps 0.6 lc rgb scolour(word(solvers, k)) \
           title sprintf("%s: %s", txt(word(solvers, k)), slopetxt(f, word(solvers, k))), \
         rows(dat, sprintf("$1 == \"%s\" && $9 != \"\"", f).gfilter(g)) \
           using 4:(strcol(6) ne "converged" ? $9 : NaN) with points pt 6 ps 1.2 lc rgb "black" \
           title (words(bads) > 0 ? "not converged" : ""), \
         for [k = 1:words(solvers)] rows(dat, sel(f, word(solvers, k), "==")) \
           using 4:(fitline(f, word(solvers, k), $4)) with lines dt 3 lw 0.6 lc rgb scolour(word(solvers, k)) notitle
  }
  unset multiplot
  set output
  if (fmt eq "pdf") { dummy = figpng(out) }
}
