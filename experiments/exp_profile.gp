# exp_profile.gp -- figure of a `profile` experiment: Dolan-More performance
# profiles per problem class (experiments/README.md, "Figures").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure profile CSV --csv2 CSV2`)
#
# Reads dat2, NAME_profile.csv's rows (tol, solver, tau, log2_tau, rho, solved_share, problems, class),
# the curves lcplab computed per class (libexperiment/tables.c): only the
# solvers that take part in a class (accepted one of its problems) have a
# curve there.  Draws rho_s(tau) against log2(tau) as steps with marks.
# Solvers whose curves are the same point for point are drawn once: the
# legend says "a +k alike".
# At most `figure per_panel=K` curves a panel (default 6): a class with more
# solvers is drawn as small multiples, its solvers ordered by the share they
# solve (the most robust first) and dealt into ceil(n / K) panels of nearly
# equal size; each panel has its own legend (solver and solved share) at
# the plot's right, as wide as its longest key; a mark at every step of a curve
# after tau = 1 (where all curves start).  Panels flow in `figure cols=N` columns (default 2 at
# the two-column width 6.65 in when the legends leave the plots 1 in, else 1; a
# figure of one panel is 3.3 in wide when it fits), lettered.  One tolerance a file: the first
# tolerance's first page goes to out.pdf/png, page q of the k-th tolerance
# to out-k-q.pdf/png (`figure tol=T` draws only T; `figure rows=R`,
# rows of panels a page, default 4).  The x axis ends at the largest log2(tau) of the
# class (every curve is flat after it).
# Options: solvers=, classes=a,b, per_panel=, cols=, width=, font=, title=, tol=,
# measure=all|accepted: all (the default) draws rho_all, a refusal counted as a
# failure over all the class's problems, so that a solver that refused some is
# not flattered; accepted draws rho, each solver over the problems it accepted,
# labelled so (the legend "s (75% of 4)", the panel title "over accepted").
# Writes out.pdf and out.png (and out-k.* for more tolerances).
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat2") || strlen(dat2) == 0) { print "exp_profile.gp: give dat2='NAME_profile.dat'"; exit status 2 }
if (!exists("out")) { out = dat2[1:strlen(dat2)-12] }

cfilter = exists("fig_classes") ? sprintf(" && index(\",%s,\", \",\" $8 \",\") > 0", fig_classes) : ""
tols = exists("fig_tol") ? fig_tol : dat_list(dat2, "1", "$1")
classes = dat_list(dat2, "1".cfilter, "$8")
nt = words(tols)
nc = words(classes)
if (nt == 0 || nc == 0) { print "exp_profile.gp: no rows in ".dat2; exit status 1 }
K = per_panel

# `figure measure=all` (the default): the curves with a refusal counted as a failure
# (rho_all, solved_share_all: columns 10 and 11); `measure=accepted` those over the
# problems each solver accepted (5, 6), labelled so
if (exists("fig_measure") && fig_measure ne "all" && fig_measure ne "accepted") {
  print sprintf("exp_profile.gp: figure measure=%s: expected all or accepted", fig_measure); exit status 2
}
allm = !(exists("fig_measure") && fig_measure eq "accepted")
rv = allm ? "$10" : "$5"
sv = allm ? "$11" : "$6"
rc = allm ? 10 : 5
csel(c, t, s) = sprintf("$8 == \"%s\" && $1 == \"%s\" && $2 == \"%s\"", c, t, s)
share(c, t, s) = system(sprintf("awk -F'\\t' '$8 == \"%s\" && $1 == \"%s\" && $2 == \"%s\" {printf \"%%.0f\", 100 * %s; exit}' '%s'", c, t, s, sv, dat2))
# the class's problems: a row's accepted ($7) and refused ($9) problems
nprob(c) = system(sprintf("awk -F'\\t' '$8 == \"%s\" {print $7 + $9; exit}' '%s'", c, dat2))
# the problems solver s accepted in class c at tolerance t ($7: its denominator)
nacc(c, t, s) = system(sprintf("awk -F'\\t' '$8 == \"%s\" && $1 == \"%s\" && $2 == \"%s\" {print $7; exit}' '%s'", c, t, s, dat2))
# the share in the legend: "38%" of all the class's problems, or with measure=accepted
# "75% of 4", the problems the solver accepted
sharekey(c, t, s) = allm ? sprintf("%s%%", share(c, t, s)) : sprintf("%s%% of %s", share(c, t, s), nacc(c, t, s))
# the solvers of a class at a tolerance, the most robust (solved share) first
ranked(c, t) = system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} $8 == \"%s\" && $1 == \"%s\"%s && !s[$2]++ {print %s, NR, $2}' '%s' | sort -k1,1gr -k2,2n | awk '{printf \"%%s \", $3}'", c, t, sfilter(2), sv, dat2))
# the curves to draw, the most robust first: solvers whose curves are the
# same point for point (the same traces: pgs and pgs_wide on a dense
# problem) are one word "a+b+c", drawn once as a
groups(c, t) = system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} $8 == \"%s\" && $1 == \"%s\"%s {if (!($2 in nr)) {nr[$2] = NR; sh[$2] = %s} sig[$2] = sig[$2] \";\" $4 \":\" %s} END {for (v in nr) print sh[v], nr[v], v, sig[v]}' '%s' | sort -k1,1gr -k2,2n | awk '{if ($4 in rep) m[rep[$4]] = m[rep[$4]] \"+\" $3; else {rep[$4] = $3; o[++n] = $3}} END {for (i = 1; i <= n; i++) printf \"%%s%%s \", o[i], m[o[i]]}'", c, t, sfilter(2), sv, rv, dat2))
gfirst(w) = strstrt(w, "+") > 0 ? w[1:strstrt(w, "+") - 1] : w
galike(w) = strstrt(w, "+") > 0 ? 1 + galike(w[strstrt(w, "+") + 1:]) : 0
# the legend: "a +2 alike (100%)" for a curve drawn for a and two others
# (their names would not fit beside the panel; the paper's text names them)
gkey(c, t, w) = galike(w) > 0 ? sprintf("%s +%d alike (%s)", txt(gfirst(w)), galike(w), sharekey(c, t, gfirst(w))) : \
  sprintf("%s (%s)", txt(w), sharekey(c, t, w))
cname(c) = c eq "lcp" ? "LCP" : c eq "box" ? "box/findex" : c eq "mlcp" ? "MLCP" : \
           c eq "fc3d" ? "FC3D" : c eq "cone-assoc" ? "assoc. cone" : c
# The canvas: a panel's plot takes its column but for the y labels (0.66
# in) and its legend, whose width follows the longest key of the figure
# (gkey's characters, the share as "100%", at 0.085 in each in the 7.5 pt
# legend font, experiments/records/2026-11-30-profile-legend.md; plus the
# line sample and the margins: 0.5 in); the
# columns are as many as leave every plot 1 in (two at the two-column
# width, one below 4 in or past 16-character keys), never more than the
# panels; a figure of one panel is one column wide (3.3 in) when its
# legend leaves the plot 1 in there.  `figure width=` and `figure cols=`
# override.
keylen(w) = strlen(txt(gfirst(w))) + (galike(w) > 0 ? strlen(sprintf(" +%d alike", galike(w))) : 0) + 7 + (allm ? 0 : 8)
legendw(k) = 0.5 + 0.085 * k
plotw(wcol, k) = wcol - 0.66 - legendw(k)

do for [ti = 1:nt] {
  t = word(tols, ti)
  # the panels: (class, chunk, chunks)
  panels = ""
  kmax = 0
  do for [ci = 1:nc] {
    c = word(classes, ci)
    g = groups(c, t)
    m = words(g)
    do for [j = 1:m] { kmax = keylen(word(g, j)) > kmax ? keylen(word(g, j)) : kmax }
    # a class that no solver solved at this tolerance has no panel (an empty
    # plot); the failure table says why
    rmax = colmax(dat2, sprintf("$8 == \"%s\" && $1 == \"%s\"", c, t), rv, 1)
    if (isnan_s(rmax)) { print sprintf("exp_profile.gp: %s, tol %s: no solver solved a problem: no panel", c, t); m = 0 }
    nch = m > 0 ? nchunks(m) : 0
    do for [k = 1:nch] { panels = panels.sprintf(" %d:%d:%d", ci, k, nch) }
  }
  np = words(panels)
  if (np == 0) { continue }
  W = figwidth(np == 1 && plotw(3.3, kmax) >= 1.0 ? 3.3 : 6.65)
  ncols = W >= 4 && np > 1 && plotw(W / 2, kmax) >= 1.0 ? 2 : 1
  ncols = exists("fig_cols") ? int(fig_cols) : ncols
  # at most `figure rows=R` rows of panels a page (default 4)
  maxrows = exists("fig_rows") ? int(fig_rows) : 4
  perpage = maxrows * ncols
  npages = int((np + perpage - 1) / perpage)
  PH = 1.34
  LH = 0.2 * K - PH > 0 ? 0.2 * K - PH : 0
  titleh = strlen(fig_title_opt) > 0 ? 0.2 : 0
  RH = PH + LH + 0.82
do for [page = 1:npages] {
  p0 = (page - 1) * perpage
  np_here = (np - p0 < perpage) ? np - p0 : perpage
  nr = int((np_here + ncols - 1) / ncols)
  H = titleh + RH * nr + 0.05
  base = (ti == 1 && page == 1) ? out : sprintf("%s-%d-%d", out, ti, page)
  do for [fmt in figformats] {
    eval(figset(fmt, W, H))
    set output base.".".fmt
    set multiplot title fig_title_opt font tf
    do for [p = p0 + 1:p0 + np_here] {
      pp = word(panels, p)
      ci = int(pp[1:strstrt(pp, ":") - 1])
      rest = pp[strstrt(pp, ":") + 1:]
      k = int(rest[1:strstrt(rest, ":") - 1])
      nch = int(rest[strstrt(rest, ":") + 1:])
      c = word(classes, ci)
      all = groups(c, t)
      lo = chunklo(words(all), nch, k)
      hi = chunkhi(words(all), nch, k)
      r = int((p - p0 - 1) / ncols)
      col = (p - p0 - 1) % ncols
      cw = 1.0 / ncols
      x0 = col * cw + 0.66 / W
      x1 = col * cw + cw - legendw(kmax) / W  # the legend has the rest of the column
      x1 = x1 > x0 + 0.8 / W ? x1 : x0 + 0.8 / W
      ytop = 1.0 - (titleh + r * RH + 0.25) / H
      set lmargin at screen x0
      set rmargin at screen x1
      set tmargin at screen ytop
      set bmargin at screen ytop - PH / H
      xmax = real(colmax(dat2, sprintf("$8 == \"%s\" && $1 == \"%s\"", c, t), "$4", 0))
      xmax = xmax > 1 ? xmax : 1
      set xrange [0:xmax * 1.02]
      set xtics nicestep(1.6 * xmax)  # at most about five labels on a narrow panel
      set yrange [0:1.02]
      set ytics 0.2
      set format y "%.1f"
      set xlabel "log_2 {/Symbol t}" offset 0, 0.4
      set ylabel "{/Symbol r}_s({/Symbol t})" offset 0.7, 0
      # the title starts at the column's left edge (centred over the narrow
      # panel it would run past the page and into the legend)
      unset title
      set label 99 sprintf("%s %s, %s problems%s%s", letter(p), cname(c), nprob(c), allm ? "" : "; over accepted", nch > 1 ? sprintf(" (%d/%d)", k, nch) : "") \
        at screen col * cw + 0.06 / W, screen ytop + 0.1 / H left noenhanced font kf
      set key at screen x1 + 0.04 / W, screen ytop left top vertical Left reverse samplen 1.5 spacing 1.0 width 0 font kf
      plot for [j = lo:hi] rows(dat2, csel(c, t, gfirst(word(all, j)))) using 4:rc with steps \
             lw 1.2 dt pdt(j - lo + 1) lc rgb pcol(j - lo + 1) notitle, \
           for [j = lo:hi] rows(dat2, csel(c, t, gfirst(word(all, j)))) using 4:rc \
             every ::1 with points pt ppt(j - lo + 1) ps 0.55 lc rgb pcol(j - lo + 1) notitle, \
           for [j = lo:hi] NaN with linespoints lw 1.2 dt pdt(j - lo + 1) pt ppt(j - lo + 1) ps 0.55 \
             lc rgb pcol(j - lo + 1) title gkey(c, t, word(all, j))
    }
    unset multiplot
    set output
    if (fmt eq "pdf") { dummy = figpng(base) }
  }
}
}
