# exp_style.gp -- the one style of the `lcplab experiment` figures, loaded by
# every exp_KIND.gp (experiments/README.md, "Figures").
#
#   load gpdir."/exp_style.gp"
#
# Sizes: the figures are drawn at the width they are printed at in a
# two-column paper (one column 3.3 in, both 6.65 in; `figure width=IN`
# overrides), 8 pt text and 7.5 pt legends, so that no text is below 7 pt when
# LaTeX includes them at \columnwidth or \textwidth.  The PDF is drawn by
# pdfcairo; the PNG is the same page rasterised at 200 dpi by pdftoppm
# (poppler-utils), so PNG and PDF show the same content; without pdftoppm the
# PNG is drawn by pngcairo with the same layout and font sizes scaled to
# 200 dpi.
#
# Fonts: `figure font=latex` (Latin Modern Roman, the OpenType version of
# LaTeX's Computer Modern, installed with texlive) matches the paper's text;
# `font=sans` (the default) is DejaVu Sans; any other value is a fontconfig
# family name.  The font is named explicitly so that nothing is substituted
# silently.
#
# Lines: every curve has a colour of the Okabe-Ito palette (safe for the
# common colour-vision deficiencies), a dash type and a point type, so that
# six curves stay apart in grayscale.  Two schemes:
#   - per solver (scolour, spt, sdt_s): fixed wherever the solver appears;
#     the solvers of one friction model (box: pgs, pgs_wide, pgs_color,
#     pgs_part, pjacobi, direct, lemke, dantzig, enum; cone: nsgs,
#     nsgs_newton, nsn_ac, pjacobi_cone, pcg_cone, apgd, admm, ipm) have
#     different colours (pgs blue, admm indigo, with their own marks), and a box solver and a
#     contact solver that share a colour differ in dash or mark (pgs blue
#     solid, nsgs black solid: they meet in the scaling and LCP panels);
#     external solvers get grey shades with their own marks;
#   - by position in a panel (pcol, ppt, pdt, k = 1..6): for panels whose
#     curves are any subset (the profiles, with the peers).
# Integrators have fixed dash types (symplectic solid, verlet dashed,
# explicit dotted).
#
# Figure options (`figure key=value ...` in the .exp file; gnuplot gets
# fig_KEY): solvers=a,b,c (the subset drawn), width=IN, font=latex|sans|NAME,
# title=TEXT (underscores for blanks; none by default: the caption says it),
# and each script's own (see its header).
#
# Defines: sfilter(c), scolour(name), spt(name), sdt_s(name), sdt(integrator),
# pcol(k), ppt(k), pdt(k), figterm(w_in, h_in), figpng(base, w_in, h_in),
# fontname, kf (legend font), tf (title font), letter(k) ("(a)", ...),
# panel_letter(k) (sets label 90), dat_list, rows, dat_meta, gridpanel,
# nicestep, colmin/colmax (awk extremes of a column over matching rows),
# ingroup(g, c) (the box and contact solver groups), scene_figure (the
# drift and accuracy figures' panels: exp_scene_panels.gp).

# (every registered solver: a check of tests/paper_checks.py; the marks differ within
# each friction group, the (mark, dash) pairs everywhere)
style_solvers = "pgs pgs_wide pjacobi direct lemke dantzig enum nsgs nsgs_newton nsn_ac pjacobi_cone pcg_cone apgd admm auto pgs_color pgs_part ipm ppa_nsn"
style_colours = "#0072B2 #56B4E9 #009E73 #000000 #D55E00 #E69F00 #CC79A7 #000000 #D55E00 #009E73 #E69F00 #CC79A7 #56B4E9 #332288 #000000 #882255 #AA4499 #44AA99 #117733"
style_points  = "7 6 5 1 9 11 2 13 4 8 10 12 3 15 14 4 8 6 9"
style_dashes  = "1 2 3 1 1 4 5 1 2 3 4 5 6 4 5 5 5 3 2"
grey_colours  = "#555555 #777777 #999999 #333333 #666666 #888888"

sidx(name, i) = i > words(style_solvers) ? 0 : (word(style_solvers, i) eq name ? i : sidx(name, i + 1))
# a stable small number of an unknown (external) name, for its grey and marks
shash(name, i, h) = i > strlen(name) ? h : shash(name, i + 1, (h * 31 + strstrt("abcdefghijklmnopqrstuvwxyz-_0123456789", name[i:i])) % 997)
scolour(name) = sidx(name, 1) > 0 ? word(style_colours, sidx(name, 1)) : word(grey_colours, shash(name, 1, 7) % 6 + 1)
spt(name) = sidx(name, 1) > 0 ? word(style_points, sidx(name, 1)) + 0 : word("1 2 3 4 6 8", shash(name, 1, 7) % 6 + 1) + 0
sdt_s(name) = sidx(name, 1) > 0 ? word(style_dashes, sidx(name, 1)) + 0 : (shash(name, 1, 7) % 5) + 2
sdt(integ) = integ eq "verlet" ? 2 : (integ eq "explicit" ? 3 : 1)

# by position in a panel: six Okabe-Ito colours, six dash types, six marks
pos_colours = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000"
pcol(k) = word(pos_colours, (k - 1) % 7 + 1)
ppt(k) = word("7 5 9 11 13 6 4", (k - 1) % 7 + 1) + 0
pdt(k) = word("1 2 3 4 5 6 1", (k - 1) % 7 + 1) + 0

letter(k) = k <= 26 ? sprintf("(%s)", "abcdefghijklmnopqrstuvwxyz"[k:k]) : sprintf("(%s')", "abcdefghijklmnopqrstuvwxyz"[(k - 27) % 26 + 1:(k - 27) % 26 + 1])
# the panel letter, bold, above the top left corner of the next plot
panel_letter(k) = sprintf("set label 90 '{/:Bold %s}' at graph -0.02, graph 1.06 right front font '%s,8'", letter(k), fontname)

# the smallest round tic step (1, 2 or 5 times a power of ten) giving at
# most 4 intervals over [0, v]: a panel is under an inch tall, and 6 labels
# at 8 pt ran together (1e-9 of slack: 0.8 / 4 / 0.1 is 2.0000000000000004)
nicestep(v) = (v <= 0) ? 1 : nicestep_q(real(v) / 4, 10.0**floor(log10(real(v) / 4)))
nicestep_q(q, d) = d * (q / d <= 1 + 1e-9 ? 1 : (q / d <= 2 + 1e-9 ? 2 : (q / d <= 5 + 1e-9 ? 5 : 10)))
# the margins (screen fractions) of panel (r, c) of an nr x nc grid inside
# [L, R] x [B, T] with gaps gx, gy between panels; eval the string
gridpanel(r, c, nr, nc, L, R, B, T, gx, gy) = sprintf( \
  "set lmargin at screen %g; set rmargin at screen %g; set bmargin at screen %g; set tmargin at screen %g", \
  L + (c - 1) * ((R - L + gx) / nc), L + (c - 1) * ((R - L + gx) / nc) + (R - L + gx) / nc - gx, \
  T - r * ((T - B + gy) / nr) + gy, T - (r - 1) * ((T - B + gy) / nr))
# a legend strip from screen y0 to y1: eval(keystrip(y0, y1, cols)), plot
# NaN series with titles, then eval(keyend)
keystrip(y0, y1, cols) = sprintf("set lmargin at screen 0.01; set rmargin at screen 0.99; set bmargin at screen %g; set tmargin at screen %g; unset border; unset tics; unset xlabel; unset ylabel; unset title; unset logscale; unset label 90; set xrange [0:1]; set yrange [0:1]; set key inside center center horizontal maxcols %d samplen 2.5 width 0 spacing 1.0 font kf", y0, y1, cols)
keyend = "set border 3 lw 0.8; set xtics nomirror out scale 0.5 autofreq; set ytics nomirror out scale 0.5 autofreq; unset x2tics; unset y2tics; unset key; set autoscale xy"

# ---- fonts and terminals -------------------------------------------------------------------
fig_font_opt = exists("fig_font") ? fig_font : "sans"
fontname = fig_font_opt eq "latex" ? "Latin Modern Roman" : (fig_font_opt eq "sans" ? "DejaVu Sans" : fig_font_opt)
kf = fontname.",7.5"
tf = fontname.",8"
have_pdf = strstrt(GPVAL_TERMINALS, "pdfcairo") > 0
have_pngcairo = strstrt(GPVAL_TERMINALS, "pngcairo") > 0
have_pdftoppm = system("command -v pdftoppm >/dev/null 2>&1 && echo 1 || echo 0") eq "1"
# underscores to blanks, in gnuplot itself: no title text reaches a shell
us_blank(s) = strstrt(s, "_") == 0 ? s : s[1:strstrt(s, "_") - 1]." ".us_blank(s[strstrt(s, "_") + 1:*])
fig_title_opt = exists("fig_title") ? us_blank(fig_title) : ""
# the figure's width in inches: `figure width=IN`, else the script's default
figwidth(def) = exists("fig_width") ? real(fig_width) : def
# PDF: the printed size and font; the PNG is then rasterised from it
figterm(w, h) = sprintf("set terminal pdfcairo size %gin,%gin font '%s' fontscale 1 linewidth 0.75 rounded enhanced", w, h, tf)
# PNG without pdftoppm: the same layout at 200 dpi (cairo fonts are 72 dpi points)
figterm_png(w, h) = have_pngcairo ? \
  sprintf("set terminal pngcairo size %d,%d font '%s' fontscale %g linewidth %g rounded enhanced", int(w * 200), int(h * 200), tf, 200.0 / 72, 200.0 / 72 * 0.75) : \
  sprintf("set terminal png size %d,%d enhanced", int(w * 200), int(h * 200))
# the formats to draw: "pdf" (and the PNG from it) or "pdf png" / "png"
figformats = have_pdf ? (have_pdftoppm ? "pdf" : "pdf png") : "png"
figset(fmt, w, h) = fmt eq "pdf" ? figterm(w, h) : figterm_png(w, h)
# after the PDF is closed: its PNG, 200 dpi
figpng(base) = have_pdftoppm ? system(sprintf("pdftoppm -r 200 -png -singlefile '%s.pdf' '%s' 2>&1", base, base)) : ""

# ---- reading the data files -----------------------------------------------------------------
# The scripts read no CSV: lcplab hands them its CSVs' rows as data files,
# dat and dat2 (libexperiment/figure.c), split once by the engine's CSV
# reader and written tab-separated, in which a field holding any character
# but letters, digits and ._+-:/= is the token @K, whose text is fig_text_K
# (experiments/CAMPAIGNS.md, "No shell ever parses a value"): no field holds
# a tab, a quote or a blank, so gnuplot (separator "\t", below) and the awk
# programs (-F'\t') split the lines with no quoting rule, and see plain
# words only.  txt(w): the text to show for w.
txt(w) = (strlen(w) > 1 && w[1:1] eq "@" && exists(sprintf("fig_text_%s", w[2:*]))) ? value(sprintf("fig_text_%s", w[2:*])) : w
# distinct values of an awk expression over the data rows (not '#', not the
# header) that pass an awk condition, space-separated, in file order
dat_list(file, cond, expr) = system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} (%s) {v = %s; if (!s[v]++) printf \"%%s \", v}' '%s'", cond, expr, file))
# the data rows passing an awk condition, as a gnuplot data source (a pipe):
# selecting rows this way keeps lines unbroken (NaN rows would break them)
rows(file, cond) = sprintf("< awk -F'\\t' '/^#/ {next} !h {h=1; next} (%s)' '%s'", cond, file)
# the number of matching rows
nrows(file, cond) = int(system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} (%s) {n++} END {print n + 0}' '%s'", cond, file)))
# one value of the preamble ("# key: value"), or "?"
dat_meta(file, key) = system(sprintf("awk '/^# %s:/ {sub(/^# %s: */, \"\"); print; f=1; exit} END {if (!f) print \"?\"}' '%s'", key, key, file))
# the least and greatest value of an awk expression over the matching rows
# whose value is finite and, for pos = 1, > 0 ("nan" when there is none)
colext(file, cond, expr, pos, op) = system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} (%s) {v = %s \"\"; if (v !~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) next; v += 0; if (%d && v <= 0) next; if (!n++ || v %s m) m = v} END {if (n) printf \"%%.17g\", m; else print \"nan\"}' '%s'", cond, expr, pos, op, file))
colmin(file, cond, expr, pos) = colext(file, cond, expr, pos, "<")
colmax(file, cond, expr, pos) = colext(file, cond, expr, pos, ">")
isnan_s(s) = (s eq "nan" || s eq "" || s eq "inf" || s eq "-inf")
# log-axis limits that hug [lo, hi] (whole decades; one decade at least)
logfloor(v) = 10.0**floor(log10(v))
logceil(v) = 10.0**ceil(log10(v) - 1e-9)

# the figure's solver subset (`figure solvers=a,b,c` in the .exp file, given
# to gnuplot as fig_solvers): an awk condition on the solver in column c
fig_solvers_list = exists("fig_solvers") ? fig_solvers : ""
sfilter(c) = strlen(fig_solvers_list) > 0 ? \
  sprintf(" && index(\",%s,\", \",\" $%d \",\") > 0", fig_solvers_list, c) : ""

# ---- scene figures (exp_drift.gp, exp_accuracy.gp): runs a panel ----------------
# A scene whose runs are more than `figure per_panel=K` (default 6) is drawn as
# small multiples: the box solvers (group 1) and the contact solvers (group 2),
# and a group still over K in near-equal chunks.  A panel is the code
# si*10000 + m*1000 + g*100 + c: scene si, metric m, group g (0: all), chunk c.
per_panel = exists("fig_per_panel") ? int(fig_per_panel) : 6
# the solver groups: box_solvers (",a,b,", written by the engine from the
# registry: the solvers that take no Coulomb cone) are group 1, every other
# solver (the cone solvers, auto, external solvers) group 2; ingroup(g, c)
# is an awk condition on the solver in column c (g = 0: any)
if (!exists("box_solvers")) { box_solvers = "," }
ingroup(g, c) = g == 0 ? "" : sprintf(" && index(\"%s\", \",\" $%d \",\") %s 0", box_solvers, c, g == 1 ? ">" : "==")
gfilter(g) = ingroup(g, 2)
# the runs of a scene that the scene's solver group took (a run that was
# refused at its first problem is in the coverage table, not in the figure)
# the scenes' steps the failure policy carried (column 14, applied: the
# fallback's answer, the warm start or P(0) instead of the solver's own;
# experiments/README.md, "Failed steps"): drawn as grey rings over the run
carried_step(dummy) = strcol(14) ne "solver" && strcol(14) ne "none" && strcol(14) ne ""
ncarried(f) = int(system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} $5 != \"\" && $14 != \"solver\" && $14 != \"none\" && $14 != \"\" {n++} END {print n + 0}' '%s'", f)))
okruns(sc, g) = system(sprintf("awk -F'\\t' '/^#/ {next} !h {h=1; next} ($1 \"|\" $4 == \"%s\"%s%s) {r = $2 \"/\" $3; if (!(r in s)) {s[r] = 1; o[++n] = r} if ($13 == \"refused\") bad[r] = 1} END {for (i = 1; i <= n; i++) if (!(o[i] in bad)) printf \"%%s \", o[i]}' '%s'", sc, sfilter(2), gfilter(g), dat))
# a panel's group in its title only when the scene has runs in both groups
gtitle(sc, g) = g == 0 || words(okruns(sc, 3 - g)) == 0 ? "" : (g == 1 ? ", box" : ", contact")
# small multiples (here and in exp_profile.gp): n curves in nchunks(n)
# panels of at most per_panel; the k-th of n chunks of m words is words lo..hi
nchunks(n) = n <= per_panel ? 1 : int((n + per_panel - 1) / per_panel)
chunklo(m, n, k) = int((k - 1) * m / n) + 1
chunkhi(m, n, k) = int(k * m / n)
wordrange(l, a, b) = a > b ? "" : word(l, a)." ".wordrange(l, a + 1, b)
chunk(l, c, nc) = wordrange(l, chunklo(words(l), nc, c), chunkhi(words(l), nc, c))
ctitle(c, nc) = nc > 1 ? sprintf(" %d/%d", c, nc) : ""
panel_code(si, m, g, c) = sprintf(" %d", si * 10000 + m * 1000 + g * 100 + c)
panel_scene(p) = int(p / 10000)
panel_metric(p) = int(p / 1000) % 10
panel_group(p) = int(p / 100) % 10
panel_chunk(p) = p % 100

set datafile separator "\t"
set datafile commentschars "#"
set datafile missing ""
set encoding utf8
set grid xtics ytics lc rgb "#e0e0e0" lw 0.5
set border 3 lw 0.8
set tics nomirror out scale 0.5
set key noenhanced
set style data lines
