# exp_scene_panels.gp -- the figure of a scene section (exp_drift.gp,
# exp_accuracy.gp): per scene and friction model, one panel per metric
# that varies, the metric against simulated time, one curve per run
# (solver / integrator); colour, dash and marks = solver, dash = integrator
# when several (experiments/README.md, "Figures").  Loaded by those scripts
# after exp_style.gp and the definitions of their metrics:
#
#   sname          the script's name, for its messages
#   nmetrics       the metrics m = 1..nmetrics of a scene
#   mexpr(m)       metric m as an awk expression over a data row
#   mval(m)        metric m of the current row in a plot's using (NaN: not
#                  drawn, e.g. an exact zero on a log axis)
#   mlog(m)        1 for a log y axis
#   mname(m)       the y axis label
#   mpanel(m)      0 for a metric that never gets a panel
#   mfloor         a metric whose largest value is not above it has no panel
#   lmarg, gapx    the grid's left margin and column gap, as a fraction of
#                  the 6.7 in width; yoff the y label's offset
#
# Only the panels that carry information are drawn: a metric that is the
# same at every step of every run of a scene has none.  A scene with more
# runs than `figure per_panel=K` is drawn as small multiples (the box and
# contact solver groups, in chunks: exp_style.gp).  Each panel's axes hug
# its data: time up to the last step any of its runs reached, a log axis
# over the decades the positive values span (exact zeros are not drawn, no
# floor is invented).  Panels flow in `figure cols=N` columns (default 3 at
# the two-column width, 2 below 4 in), `figure rows=R` rows a page (default
# 4; more go to out-2.*, ...), lettered, under one legend strip.  The steps
# the failure policy carried are grey rings.

scenes = dat_list(dat, "$5 != \"\" && $13 != \"refused\"".sfilter(2), "$1 \"|\" $4")
ns = words(scenes)
if (ns == 0) { print sname.": no measured rows in ".dat; exit status 1 }
allsolvers = dat_list(dat, "$5 != \"\" && $13 != \"refused\"".sfilter(2), "$2")
allints = dat_list(dat, "$5 != \"\" && $13 != \"refused\"".sfilter(2), "$3")
nints = words(allints)
W = figwidth(6.65)
ncols = exists("fig_cols") ? int(fig_cols) : (W < 4 ? 2 : 3)

scsel(sc) = sprintf("$1 \"|\" $4 == \"%s\" && $5 != \"\" && $13 != \"refused\"", sc).sfilter(2)
sel(sc, run) = sprintf("$1 \"|\" $4 == \"%s\" && $2 \"/\" $3 == \"%s\" && $5 != \"\" && $13 != \"refused\"", sc, run)
sctitle(sc) = sc[strstrt(sc, "|") + 1:] eq "none" ? txt(sc[1:strstrt(sc, "|") - 1]) : sprintf("%s, %s", txt(sc[1:strstrt(sc, "|") - 1]), sc[strstrt(sc, "|") + 1:])
rsolver(run) = run[1:strstrt(run, "/") - 1]
rint(run) = run[strstrt(run, "/") + 1:]
rundt(run) = nints > 1 ? sdt(rint(run)) : sdt_s(rsolver(run))

# the panels that carry information: (scene, metric) with a metric that varies
panels = ""
do for [si = 1:ns] {
  sc = word(scenes, si)
  do for [m = 1:nmetrics] {
    lo = colmin(dat, scsel(sc), mexpr(m), 0)
    hi = colmax(dat, scsel(sc), mexpr(m), 0)
    if (mpanel(m) && !isnan_s(hi) && real(hi) > real(lo) && real(hi) > 0 && real(hi) > mfloor) {
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
if (np == 0) { print sname.": every metric is constant in ".dat.": no figure"; exit status 1 }
# at most `figure rows=R` rows of panels a page (default 4: a page of five
# rows, 9.2 in, and its caption overflow the paper's 9.4 in of text height): more panels go
# to out-2.pdf, out-3.pdf, ... (and their PNGs)
maxrows = exists("fig_rows") ? int(fig_rows) : 4
perpage = maxrows * ncols
npages = int((np + perpage - 1) / perpage)
PH = 1.62
hascarried = ncarried(dat) > 0
# rows of the legend strip: gnuplot fits 4 to 6 columns of names at 6.7 in; room for 4
# (up to 6 columns asked), fewer where a name is long ("pgs=pgs_wide=...": 3 or 2)
keylen = 0
do for [k = 1:words(allsolvers)] { keylen = strlen(word(allsolvers, k)) > keylen ? strlen(word(allsolvers, k)) : keylen }
keyper = keylen > 24 ? 2 : (keylen > 14 ? 3 : 4)
keycols = keyper == 4 ? 6 : keyper
keyh = 0.16 * (int((words(allsolvers) + nints * (nints > 1) + hascarried + keyper - 1) / keyper) + 1)
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
  eval(keystrip(top, 1.0 - titleh / H, keycols))
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
    eval(gridpanel(int((p - p0 - 1) / ncols) + 1, (p - p0 - 1) % ncols + 1, nr, ncols, lmarg * 6.7 / W, 0.955, 0.5 / H, top - 0.4 / H, gapx * 6.7 / W, 0.9 / H))
    tmax = real(colmax(dat, scsel(sc), "$6", 1))
    set xrange [0:tmax]
    set xtics nicestep(1.6 * tmax)  # at most about five labels a panel
    set xlabel "t [s]" offset 0, 0.8
    lo = real(colmin(dat, scsel(sc), mexpr(m), 1))
    hi = real(colmax(dat, scsel(sc), mexpr(m), 1))
    if (mlog(m)) {
      set logscale y
      set format y "10^{%L}"
      lo = lo > hi * 1e-12 ? lo : hi * 1e-12
      set yrange [logfloor(lo):logceil(hi)]
      set ytics 10.0**ceil(log10(logceil(hi) / logfloor(lo)) / 4 - 1e-9)
    } else {
      unset logscale y
      set format y "%g"
      set yrange [0:hi * 1.05]
      set ytics nicestep(hi)
    }
    set ylabel mname(m) offset yoff, 0
    set title sprintf("%s %s%s", letter(p), sctitle(sc), gtitle(sc, g).ctitle(panel_chunk(pp), nc)) noenhanced font tf offset 0, -0.75
    nstep = int(real(colmax(dat, scsel(sc), "$5", 1)))
    pint = nstep > 12 ? int(nstep / 6) : 1
    plot for [k = 1:words(runs)] rows(dat, sel(sc, word(runs, k))) \
           using 6:(mval(m)) \
           with linespoints lw 1 pi pint pt spt(rsolver(word(runs, k))) ps 0.5 \
           dt rundt(word(runs, k)) \
           lc rgb scolour(rsolver(word(runs, k))) notitle, \
         for [k = 1:(hascarried ? words(runs) : 0)] rows(dat, sel(sc, word(runs, k))) \
           using 6:(!carried_step(0) ? NaN : mval(m)) \
           every pint with points pt 6 ps 0.7 lc rgb "#777777" notitle
  }
  unset multiplot
  set output
  if (fmt eq "pdf") { dummy = figpng(base) }
}
}
