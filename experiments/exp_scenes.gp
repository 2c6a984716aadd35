# exp_scenes.gp -- figure of a `scenes` experiment: the median step time
# against the contacts per step, log-log, one panel per scene, one curve per
# solver or scene peer (experiments/README.md, "scenes").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure scenes CSV`)
#
# dat (NAME.csv's rows): scene, params, settings, solver, friction, steps, contacts_mean_timed,
# contacts_max, time_step_median_s, ... status (column 20), note; only the
# runs that completed (status ok) are drawn.  The contacts axis is linear
# when the panel's contacts span less than a decade.  Options: width=, font=, title=.
# Writes out.pdf, out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_scenes.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }

ok = "$20 == \"ok\" && $7 > 0 && $9 > 0"
scenes = dat_list(dat, ok, "$1")
ns = words(scenes)
if (ns == 0) { print "exp_scenes.gp: no completed run in ".dat; exit status 1 }
ncols = ns < 3 ? ns : 3
W = figwidth(ncols < 2 ? 3.3 : 6.65)
PH = 1.8
nsv = words(dat_list(dat, ok, "$4"))
LH = 0.2 * (nsv + 1) + 0.2
nr = int((ns + ncols - 1) / ncols)
H = (PH + LH + 0.5) * nr + (strlen(fig_title_opt) > 0 ? 0.2 : 0)
sel(sc, s) = sprintf("%s && $1 == \"%s\" && $4 == \"%s\"", ok, sc, s)
do for [fmt in figformats] {
  eval(figset(fmt, W, H))
  set output out.".".fmt
  set multiplot title fig_title_opt font tf
  set logscale xy
  set format y "10^{%L}"
  set format x "%g"
  set xlabel "contacts per step" offset 0, 0.7
  do for [pi = 1:ns] {
    sc = word(scenes, pi)
    solvers = dat_list(dat, sprintf("%s && $1 == \"%s\"", ok, sc), "$4")
    r = int((pi - 1) / ncols)
    c = (pi - 1) % ncols
    x0 = c * (1.0 / ncols) + 0.11 * 6.7 / W
    x1 = (c + 1) * (1.0 / ncols) - 0.06 * 6.7 / W
    ytop = 1.0 - (r * (PH + LH + 0.5) + 0.25) / H
    set lmargin at screen x0
    set rmargin at screen x1
    set tmargin at screen ytop
    set bmargin at screen ytop - PH / H
    set ylabel (c == 0 ? "median step time [s]" : "") offset 1, 0
    clo = real(colmin(dat, sprintf("%s && $1 == \"%s\"", ok, sc), "$7", 1))
    chi = real(colmax(dat, sprintf("%s && $1 == \"%s\"", ok, sc), "$7", 1))
    # within a decade a log axis would have no labelled tic: linear then
    if (chi / clo < 10) { unset logscale x; set logscale y; set xrange [clo * 0.9:chi * 1.1]; set xtics nicestep(chi * 1.1 - clo * 0.9) } else { set logscale xy; set xrange [clo / 1.3:chi * 1.3]; set xtics autofreq }
    tlo = real(colmin(dat, sprintf("%s && $1 == \"%s\"", ok, sc), "$9", 1))
    thi = real(colmax(dat, sprintf("%s && $1 == \"%s\"", ok, sc), "$9", 1))
    set yrange [logfloor(tlo):logceil(thi)]
    set title sprintf("%s %s", letter(pi), txt(sc)) noenhanced font tf offset 0, -0.6
    set key at screen x0 - 0.08 * 6.7 / W, screen ytop - (PH + 0.5) / H left top vertical Left reverse samplen 2.5 spacing 1.0 width 0 font kf noenhanced
    plot for [k = 1:words(solvers)] rows(dat, sel(sc, word(solvers, k))) using 7:9 with linespoints \
           lw 1.1 dt sdt_s(word(solvers, k)) pt spt(word(solvers, k)) ps 0.6 lc rgb scolour(word(solvers, k)) \
           title txt(word(solvers, k))
  }
  unset multiplot
  set output
  if (fmt eq "pdf") { dummy = figpng(out) }
}
