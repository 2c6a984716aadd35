# exp_drift.gp -- figure of a `drift` experiment: energy drift and penetration
# against simulated time, per scene and friction model; colour, dash and
# marks = solver, dash = integrator when several (experiments/README.md,
# "Figures").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure drift CSV`)
#
# dat (NAME.csv's rows): scene, solver, integrator, friction, step, t, energy, rel_drift,
# max_penetration, contacts, iterations, res_nat_inf, status, applied, note.
# Energy panel: |E(t) - E0| / S, S = max(|E0|, M |g| D) (rel_drift; log y;
# exact zeros are not drawn): on a conservative scene any value is error, on
# a dissipative one (stack, pyramid) it is mostly the dissipation.
# Penetration panel: the deepest penetration of each step in mm.
# Only the panels that carry information are drawn: a metric that is the
# same at every step of every run of a scene (no contact: penetration 0) has
# no panel.  Each panel's axes hug its data: time up to the last step any of
# its runs reached (a run that stopped early ends where it stopped), the log
# axis over the decades the values span.  Panels flow in `figure cols=N`
# columns (default 2 when the width is one column, 4 otherwise), lettered.
# Options: solvers=, width= (default 6.7 in), cols=, font=, title=.
# Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_drift.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }

scenes = dat_list(dat, "$5 != \"\"".sfilter(2), "$1 \"|\" $4")
ns = words(scenes)
if (ns == 0) { print "exp_drift.gp: no measured rows in ".dat; exit status 1 }
allsolvers = dat_list(dat, "$5 != \"\"".sfilter(2), "$2")
allints = dat_list(dat, "$5 != \"\"".sfilter(2), "$3")
nints = words(allints)
W = figwidth(6.65)
ncols = exists("fig_cols") ? int(fig_cols) : (W < 4 ? 2 : 3)

scsel(sc) = sprintf("$1 \"|\" $4 == \"%s\" && $5 != \"\"", sc).sfilter(2)
sel(sc, run) = sprintf("$1 \"|\" $4 == \"%s\" && $2 \"/\" $3 == \"%s\" && $5 != \"\"", sc, run)
sctitle(sc) = sc[strstrt(sc, "|") + 1:] eq "none" ? txt(sc[1:strstrt(sc, "|") - 1]) : sprintf("%s, %s", txt(sc[1:strstrt(sc, "|") - 1]), sc[strstrt(sc, "|") + 1:])
rsolver(run) = run[1:strstrt(run, "/") - 1]
rint(run) = run[strstrt(run, "/") + 1:]
rundt(run) = nints > 1 ? sdt(rint(run)) : sdt_s(rsolver(run))
# metric m of a panel: 1 energy drift, 2 penetration (mm)
mexpr(m) = m == 1 ? "($8 < 0 ? -$8 : $8)" : "1000 * $9"

# the panels that carry information: (scene, metric) with a metric that varies
panels = ""
do for [si = 1:ns] {
  sc = word(scenes, si)
  do for [m = 1:2] {
    lo = colmin(dat, scsel(sc), mexpr(m), 0)
    hi = colmax(dat, scsel(sc), mexpr(m), 0)
    if (!isnan_s(hi) && real(hi) > real(lo) && real(hi) > 0) {
      nruns = words(okruns(sc, 0))
      if (nruns > per_panel) {
        do for [g = 1:2] {
          nc = nchunks(words(okruns(sc, g)))
          # a group whose runs are constant in this metric has no panel
          glo = colmin(dat, scsel(sc).gfilter(g), mexpr(m), 0)
          ghi = colmax(dat, scsel(sc).gfilter(g), mexpr(m), 0)
          gvaries = !isnan_s(ghi) && real(ghi) > real(glo) && real(ghi) > 1e-14
          if (gvaries && words(okruns(sc, g)) > 0) { do for [c = 1:nc] { panels = panels.panel_code(si, m, g, c) } }
        }
      } else {
        if (nruns > 0) { panels = panels.panel_code(si, m, 0, 1) }
      }
    }
  }
}
np = words(panels)
if (np == 0) { print "exp_drift.gp: every metric is constant in ".dat.": no figure"; exit status 1 }
# at most `figure rows=R` rows of panels a page (default 4: a page of five
# rows, 9.2 in, and its caption overflow the paper's 9.4 in of text height): more panels go
# to out-2.pdf, out-3.pdf, ... (and their PNGs)
maxrows = exists("fig_rows") ? int(fig_rows) : 4
perpage = maxrows * ncols
npages = int((np + perpage - 1) / perpage)
PH = 1.62
hascarried = ncarried(dat) > 0
# rows of the legend strip: gnuplot fits 4 to 6 columns of names at 6.7 in; room for 4
keyh = 0.16 * (int((words(allsolvers) + nints * (nints > 1) + hascarried + 3) / 4) + 1)
titleh = strlen(fig_title_opt) > 0 ? 0.2 : 0

do for [page = 1:npages] {
p0 = (page - 1) * perpage
np_here = (np - p0 < perpage) ? np - p0 : perpage
nr = int((np_here + ncols - 1) / ncols)
H = titleh + keyh + PH * nr + 0.1
top = 1.0 - (titleh + keyh) / H
base = page == 1 ? out : sprintf("%s-%d", out, page)
do for [fmt in figformats] {
  eval(figset(fmt, W, H))
  set output base.".".fmt
  set multiplot title fig_title_opt font tf
  eval(keystrip(top, 1.0 - titleh / H, 6))
  plot for [k = 1:words(allsolvers)] NaN with linespoints lw 1.2 dt sdt_s(word(allsolvers, k)) \
         pt spt(word(allsolvers, k)) ps 0.6 lc rgb scolour(word(allsolvers, k)) title txt(word(allsolvers, k)), \
       for [k = 1:(nints > 1 ? nints : 0)] NaN with lines lw 1 dt sdt(word(allints, k)) lc rgb "black" \
         title word(allints, k), \
       for [k = 1:(hascarried ? 1 : 0)] NaN with points pt 6 ps 0.7 lc rgb "#777777" \
         title "carried"
  eval(keyend)
  do for [p = p0 + 1:p0 + np_here] {
    pp = int(word(panels, p))
    si = panel_scene(pp)
    m = panel_metric(pp)
    g = panel_group(pp)
    sc = word(scenes, si)
    nc = nchunks(words(okruns(sc, g)))
    runs = chunk(okruns(sc, g), panel_chunk(pp), nc)
    eval(gridpanel(int((p - p0 - 1) / ncols) + 1, (p - p0 - 1) % ncols + 1, nr, ncols, 0.12 * 6.7 / W, 0.955, 0.5 / H, top - 0.4 / H, 0.115 * 6.7 / W, 0.9 / H))
    tmax = real(colmax(dat, scsel(sc), "$6", 1))
    set xrange [0:tmax]
    set xtics nicestep(1.6 * tmax)  # at most about five labels a panel
    set xlabel "t [s]" offset 0, 0.5
    lo = real(colmin(dat, scsel(sc), mexpr(m), 1))
    hi = real(colmax(dat, scsel(sc), mexpr(m), 1))
    if (m == 1) {
      set logscale y
      set format y "10^{%L}"
      lo = lo > hi * 1e-12 ? lo : hi * 1e-12
      set yrange [logfloor(lo):logceil(hi)]
      set ytics 10.0**ceil(log10(logceil(hi) / logfloor(lo)) / 4 - 1e-9)
      set ylabel "|E - E_0| / S" offset 0.5, 0
    } else {
      unset logscale y
      set format y "%g"
      set yrange [0:hi * 1.05]
      set ytics nicestep(hi)
      set ylabel "penetration [mm]" offset 0.5, 0
    }
    set title sprintf("%s %s%s", letter(p), sctitle(sc), gtitle(sc, g).ctitle(panel_chunk(pp), nc)) noenhanced font tf offset 0, -0.3
    nstep = int(real(colmax(dat, scsel(sc), "$5", 1)))
    pint = nstep > 12 ? int(nstep / 6) : 1
    plot for [k = 1:words(runs)] rows(dat, sel(sc, word(runs, k))) \
           using 6:(m == 1 ? (($8 < 0 ? -$8 : $8) > 0 ? ($8 < 0 ? -$8 : $8) : NaN) : 1000 * $9) \
           with linespoints lw 1 pi pint pt spt(rsolver(word(runs, k))) ps 0.5 \
           dt rundt(word(runs, k)) \
           lc rgb scolour(rsolver(word(runs, k))) notitle, \
         for [k = 1:(hascarried ? words(runs) : 0)] rows(dat, sel(sc, word(runs, k))) \
           using 6:(!carried_step(0) ? NaN : m == 1 ? (($8 < 0 ? -$8 : $8) > 0 ? ($8 < 0 ? -$8 : $8) : NaN) : 1000 * $9) \
           every pint with points pt 6 ps 0.7 lc rgb "#777777" notitle
  }
  unset multiplot
  set output
  if (fmt eq "pdf") { dummy = figpng(base) }
}
}
