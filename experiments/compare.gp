# compare.gp -- the figure of exp_compare's CSV (experiments/README.md).
#
#   gnuplot params.gp compare.gp   (in a folder holding data.csv)
#
# run_compare.sh runs it through experiments/gp_run.sh: the CSV is copied to
# data.csv, the only name the system() calls below see; params.gp sets out
# (default "figure").  Writes out.png (pngcairo if this gnuplot has it, else png) and out.pdf
# (pdfcairo; skipped with a message if absent).  Two panels, one point series
# per (solver, instance family), colour = solver, point shape = family:
#   left:  median solve time [s] vs n, log-log;
#   right: res_rel = ||mid(x-hi, w, x-lo)||_inf / max(1, ||b||_inf) vs n, log y,
#          with the tolerance of the run (from the CSV preamble) dashed.
# Runs that did not converge (status other than "converged") are circled in
# black in both panels; "unsupported" rows (no numbers) are not drawn.  A
# residual of exactly 0 cannot sit on a log axis: it is drawn at 1e-17.
# The family of an instance is its name up to the first '_' (run_compare.sh
# names the files FAMILY_N_sSEED.lcp).  Needs awk (to list solvers/families).

csv = "data.csv"
if (!exists("out")) {
  out = "figure"
}

set datafile separator ","
set datafile commentschars "#"
set encoding utf8

# Solvers and families that have at least one measured row (time present),
# and the (solver, family) pairs to draw, in the CSV's order.
awkbody = "/^#/ {next} !h {h=1; next} $7 == \"\" {next} {f=$1; sub(/_.*/, \"\", f)}"
solvers = system("awk -F, '" . awkbody . " !s[$4]++ {printf \"%s \", $4}' data.csv")
families = system("awk -F, '" . awkbody . " !s[f]++ {printf \"%s \", f}' data.csv")
pairs = system("awk -F, '" . awkbody . " !s[$4 \"/\" f]++ {printf \"%s \", $4 \"/\" f}' data.csv")
# printed as a number (%g), never the preamble's own text: tol reaches eval below
tol = system("awk '/^# tol:/ {t = $3; exit} END {if (t + 0 > 0) printf \"%g\", t + 0; else print \"none\"}' data.csv")
rev = system("awk '/^# rev:/ {print $3; exit}' data.csv")
host = system("awk '/^# host:/ {print $3; exit}' data.csv")

# data ranges (measured rows only), for axes padded by a factor 2 (log scale);
# %e keeps a decimal point: gnuplot reads "1e-8" + 0 as 1 with trailing text
# (built by concatenation: gnuplot 5.4's sprintf mangles "%%.10e %%.10e")
rng(col) = system("awk -F, '" . awkbody . " {v = $" . sprintf("%d", col) . " + 0; \
  if (v < 1e-17) v = 1e-17; if (lo == \"\" || v < lo) lo = v; if (hi == \"\" || v > hi) hi = v} \
  END {printf \"%.10e %.10e\", lo, hi}' data.csv")
nr = rng(3); tr = rng(7); rr = rng(10)

if (words(pairs) == 0) {
  print sprintf("compare.gp: %s has no measured rows: nothing to plot", csv)
  exit status 1
}

# index of word w in the list (0 if absent)
widx(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : widx(list, w, i + 1))
psolver(p) = p[1:strstrt(p, "/") - 1]
pfamily(p) = p[strstrt(p, "/") + 1:]
shape(k) = word("7 5 9 13 11 15 4 6", (k - 1) % 8 + 1) + 0
colour(k) = word("#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #F0E442", (k - 1) % 8 + 1)

# keep a row's value only for solver s / family f (NaN otherwise: not drawn)
fam(name) = strstrt(name, "_") > 0 ? name[1:strstrt(name, "_") - 1] : name
sel(s, f, v) = (strcol(4) eq s && fam(strcol(1)) eq f) ? v : NaN
bad(v) = (strcol(5) ne "converged" && strcol(5) ne "unsupported") ? v : NaN
floorres(v) = v > 1e-17 ? v : 1e-17

title_ = sprintf("lcplab solver comparison   (rev %s, host %s, tol %s)", rev, host, tol)

# (gnuplot's own string-to-number conversion rejects "1e-08"; eval parses it)
tolnum = 0.0
if (tol ne "none") { eval("tolnum = " . tol) }

# ---- the two panels, once per output format -----------------------------------
have_png = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png"
have_pdf = strstrt(GPVAL_TERMINALS, "pdfcairo") > 0
if (!have_pdf) { print "compare.gp: this gnuplot has no pdfcairo terminal: no PDF written" }

do for [fmt in "png pdf"] {
  if (fmt eq "png") {
    if (have_png eq "pngcairo") {
      set terminal pngcairo size 1500,560 font ",10" enhanced
    } else {
      set terminal png size 1500,560 enhanced
    }
  } else {
    if (!have_pdf) { break }
    set terminal pdfcairo size 13in,4.9in font ",9" enhanced
  }
  set output out . "." . fmt

  set multiplot layout 1,2 title title_ noenhanced
  set logscale xy
  set grid xtics ytics mxtics mytics lc rgb "#dddddd"
  set xlabel "n (rows = unknowns)"
  eval(sprintf("set xrange [%s/2:%s*2]", word(nr, 1), word(nr, 2)))
  set format x "%g"
  set format y "10^{%L}"

  set ylabel "median solve time [s]"
  eval(sprintf("set yrange [%s/2:%s*2]", word(tr, 1), word(tr, 2)))
  set key off
  plot for [k = 1:words(pairs)] csv using \
         (sel(psolver(word(pairs, k)), pfamily(word(pairs, k)), $3)):7 \
         with points pt shape(widx(families, pfamily(word(pairs, k)), 1)) ps 1.2 \
         lc rgb colour(widx(solvers, psolver(word(pairs, k)), 1)) notitle, \
       csv using (bad($3)):7 with points pt 6 ps 2.4 lc rgb "black" notitle

  set ylabel "res\\_rel = ||r_{nat}||_∞ / max(1, ||b||_∞)  [-]"
  eval(sprintf("set yrange [%s/10:%s*10]", (tolnum > 0 && tolnum < word(rr, 1) + 0 ? sprintf("%g", tolnum) : word(rr, 1)), \
                                       (tolnum > word(rr, 2) + 0 ? sprintf("%g", tolnum) : word(rr, 2))))
  set key outside right top vertical Left reverse noenhanced samplen 1 spacing 1.1
  plot for [k = 1:words(pairs)] csv using \
         (sel(psolver(word(pairs, k)), pfamily(word(pairs, k)), $3)):(floorres($10)) \
         with points pt shape(widx(families, pfamily(word(pairs, k)), 1)) ps 1.2 \
         lc rgb colour(widx(solvers, psolver(word(pairs, k)), 1)) \
         title sprintf("%s, %s", psolver(word(pairs, k)), pfamily(word(pairs, k))), \
       csv using (bad($3)):(floorres($10)) with points pt 6 ps 2.4 lc rgb "black" \
         title "not converged", \
       (tolnum > 0 ? tolnum : NaN) with lines dt 2 lc rgb "#666666" title sprintf("tol = %s", tol)
  unset multiplot
  set output
}
