# exp_style.gp -- the one style of the `lcplab experiment` figures, loaded by
# every exp_KIND.gp (experiments/README.md, "Figures").
#
#   load gpdir."/exp_style.gp"
#
# Sizes are for one column of a two-column paper: 3.4 in wide, 7 pt text
# (PDF, vector, pdfcairo) and the same layout at 200 dpi for the PNG
# (pngcairo; the plain png terminal if cairo is absent).  Each solver has a
# fixed colour and point type wherever it appears (the registry's names, in
# registry order; an unknown name is grey), integrators have fixed dash types
# (symplectic solid, verlet dashed, explicit dotted).  Colours: the Okabe-Ito
# palette plus darker shades, distinguishable in print; point types back them
# up in black and white.
#
# Defines: sfilter(c) (the `figure solvers=` subset), style_solvers, scolour(name), spt(name), sdt(integrator),
# figterm(fmt, w_in, h_in) (the "set terminal" command), keyfont(fmt), have_pdf, floor17(v),
# csv_list(csv, awk_filter, awk_expr) (distinct values, in file order),
# rows(csv, awk_filter) (a data source of the matching rows), csv_meta(csv, key).

style_solvers = "pgs pgs_wide pjacobi direct lemke dantzig enum nsgs nsgs_newton nsn_ac pjacobi_cone pcg_cone apgd"
style_colours = "#0072B2 #44AA99 #56B4E9 #000000 #D55E00 #E69F00 #999933 #009E73 #117733 #CC79A7 #882255 #332288 #AA4499"
style_points = "7 3 5 9 11 13 15 6 4 8 10 12 14"

sidx(name, i) = i > words(style_solvers) ? 0 : (word(style_solvers, i) eq name ? i : sidx(name, i + 1))
scolour(name) = sidx(name, 1) > 0 ? word(style_colours, sidx(name, 1)) : "#888888"
spt(name) = sidx(name, 1) > 0 ? word(style_points, sidx(name, 1)) + 0 : 1
sdt(integ) = integ eq "verlet" ? 2 : (integ eq "explicit" ? 3 : 1)
floor17(v) = (v != v) ? NaN : ((v > 1e-17) ? v : 1e-17)  # NaN (no value) stays undrawn
# a round tic step giving about 4 intervals over [0, v]
nicestep(v) = (v <= 0) ? 1 : (10**floor(log10(v / 4))) * \
  ((v / 4) / 10**floor(log10(v / 4)) < 1.5 ? 1 : ((v / 4) / 10**floor(log10(v / 4)) < 3.5 ? 2 : 5))
# the margins (screen fractions) of panel (r, c) of an nr x nc grid inside
# [L, R] x [B, T] with gaps gx, gy between panels; eval the string
gridpanel(r, c, nr, nc, L, R, B, T, gx, gy) = sprintf( \
  "set lmargin at screen %g; set rmargin at screen %g; set bmargin at screen %g; set tmargin at screen %g", \
  L + (c - 1) * ((R - L + gx) / nc), L + (c - 1) * ((R - L + gx) / nc) + (R - L + gx) / nc - gx, \
  T - r * ((T - B + gy) / nr) + gy, T - (r - 1) * ((T - B + gy) / nr))
# a legend strip across the top of the figure, from screen y0 to the top:
# eval(keystrip(y0, kf)), then plot NaN series with titles, then eval(keyend)
keystrip(y0, kf) = sprintf("set lmargin at screen 0.02; set rmargin at screen 0.98; set bmargin at screen %g; set tmargin at screen 0.995; unset border; unset tics; unset xlabel; unset ylabel; unset title; unset logscale; set xrange [0:1]; set yrange [0:1]; set key inside center center horizontal maxcols 5 samplen 2 width -1 font '%s'", y0, kf)
keyend = "set border 3 lw 0.8; set xtics nomirror out scale 0.5 autofreq; set ytics nomirror out scale 0.5 autofreq; unset x2tics; unset y2tics; unset key; set autoscale xy"
keyfont(fmt) = fmt eq "pdf" ? "Helvetica,6" : "Helvetica,12"

have_pdf = strstrt(GPVAL_TERMINALS, "pdfcairo") > 0
have_pngcairo = strstrt(GPVAL_TERMINALS, "pngcairo") > 0
figterm(fmt, w, h) = fmt eq "pdf" ? \
  sprintf("set terminal pdfcairo size %gin,%gin font 'Helvetica,7' linewidth 1 rounded enhanced", w, h) : \
  (have_pngcairo ? \
    sprintf("set terminal pngcairo size %d,%d font 'Helvetica,14' linewidth 2 rounded enhanced", int(w * 200), int(h * 200)) : \
    sprintf("set terminal png size %d,%d enhanced", int(w * 200), int(h * 200)))

# distinct values of an awk expression over the data rows (not '#', not the
# header) that pass an awk condition, space-separated, in file order
csv_list(file, cond, expr) = system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} (%s) {v = %s; if (!s[v]++) printf \"%%s \", v}' '%s'", cond, expr, file))
# the data rows passing an awk condition, as a gnuplot data source (a pipe):
# selecting rows this way keeps lines unbroken (NaN rows would break them)
rows(file, cond) = sprintf("< awk -F, '/^#/ {next} !h {h=1; next} (%s)' '%s'", cond, file)
# one value of the preamble ("# key: value"), or "?"
csv_meta(file, key) = system(sprintf("awk '/^# %s:/ {sub(/^# %s: */, \"\"); print; f=1; exit} END {if (!f) print \"?\"}' '%s'", key, key, file))

# the figure's solver subset (`figure solvers=a,b,c` in the .exp file, given
# to gnuplot as fig_solvers): an awk condition on the solver in column c
fig_solvers_list = exists("fig_solvers") ? fig_solvers : ""
sfilter(c) = strlen(fig_solvers_list) > 0 ? \
  sprintf(" && index(\",%s,\", \",\" $%d \",\") > 0", fig_solvers_list, c) : ""

set datafile separator ","
set datafile commentschars "#"
set datafile missing ""
set encoding utf8
set grid xtics ytics lc rgb "#dddddd" lw 0.5
set border 3 lw 0.8
set tics nomirror out scale 0.5
set key noenhanced
set style data lines
