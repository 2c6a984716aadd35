# bench_pivot.gp -- the figure of bench_pivot.sh's CSV: median solve time
# against n, log-log, for lcplab's pivoting solvers and the peers'.
#
#   gnuplot params.gp bench_pivot.gp   (in a folder holding data.csv)
#
# bench_pivot.sh runs it through experiments/gp_run.sh: the CSV is copied to
# data.csv, the only name the system() calls below see; params.gp sets out
# (default "figure").  Writes out.png (pngcairo if this gnuplot has it, else png) and out.pdf
# (pdfcairo; skipped with a message if absent).  One panel per instance
# family (spd, contact, contact-box), one series per program:solver that has
# at least one timed row; the colour belongs to program:solver and is the
# same in every panel.  Points: the measured medians (column time_s); line:
# the least-squares fit log t = a + s log n over that series' points, drawn
# at the measured n; the legend gives s ("s=-" for a single point).  Rows
# whose answer is not accurate (column solved = "no": res_rel > 1e-8) are
# circled in black: their time is that of a wrong answer.  Rows without a
# time (refused, timeout, crash, not applicable) are not drawn.
# The fits are computed here with awk from the CSV (the same formula as the
# slope table of bench_pivot.md).

csv = "data.csv"
if (!exists("out")) {
  out = "figure"
}

set datafile separator ","
set datafile commentschars "#"
set encoding utf8

# columns: 1 file, 2 family, 3 n, 4 program, 5 solver, 6 status, 7 pivots,
# 8 time_s, 9 res_nat_inf, 10 exit, 11 res_nat_check, 12 solved, 13 note
timed = "/^#/ {next} !h {h=1; next} $8 == \"\" || $8 + 0 <= 0 {next}"
pairs = system("awk -F, '" . timed . " !s[$4 \":\" $5]++ {printf \"%s \", $4 \":\" $5}' data.csv")
families = system("awk -F, '" . timed . " !s[$2]++ {printf \"%s \", $2}' data.csv")
# words "family|program:solver": the series of each panel (no value of the
# CSV is pasted into a command)
fampairs = system("awk -F, '" . timed . " !s[$2 \"|\" $4 \":\" $5]++ {printf \"%s \", $2 \"|\" $4 \":\" $5}' data.csv")
rev = system("awk '/^# rev:/ {print $3; exit}' data.csv")
host = system("awk '/^# host:/ {print $3; exit}' data.csv")

if (words(pairs) == 0) {
  print sprintf("bench_pivot.gp: %s has no timed rows: nothing to plot", csv)
  exit status 1
}

# least squares per (family, program:solver): words "family|prog:solver s a
# nmin nmax", s = sum (x - mx)(y - my) / sum (x - mx)^2 with x = log n,
# y = log t, a = my - s mx ("-" for s and a with fewer than 2 distinct n)
# (built by concatenation: gnuplot 5.4's sprintf mangles several "%%s" in one format)
fits = system("awk -F, '" . timed . " {k = $2 \"|\" $4 \":\" $5; c[k]++; x = log($3); y = log($8); \
  sx[k] += x; sy[k] += y; sxx[k] += x * x; sxy[k] += x * y; \
  if (!(k in lo) || $3 + 0 < lo[k]) lo[k] = $3 + 0; if (!(k in hi) || $3 + 0 > hi[k]) hi[k] = $3 + 0} \
  END {for (k in c) {d = sxx[k] - sx[k] * sx[k] / c[k]; \
    if (c[k] >= 2 && d > 1e-12) {s = (sxy[k] - sx[k] * sy[k] / c[k]) / d; a = (sy[k] - s * sx[k]) / c[k]} \
    else {s = \"-\"; a = \"-\"} if (s != \"-\") {s = sprintf(\"%.10f\", s); a = sprintf(\"%.10f\", a)} \
    printf \"%s %s %s %d %d \", k, s, a, lo[k], hi[k]}}' data.csv")
# x tics at the nominal sizes of the file names (FAMILY_N_sSEED; contact-box's true n is 3 floor(N/3))
nvals = system("awk -F, '" . timed . " {split($1, a, \"_\"); if (!s[a[2]]++) printf \"%d \", a[2]}' data.csv")

# field off (1 slope, 2 intercept, 3 nmin, 4 nmax) of a key: "-" if absent
fitword(key, off, i) = i > words(fits) ? "-" : (word(fits, i) eq key ? word(fits, i + off) : fitword(key, off, i + 5))
slope(f, p) = fitword(f . "|" . p, 1, 1)
icept(f, p) = fitword(f . "|" . p, 2, 1)
num(s) = s eq "-" ? NaN : real(s)
# the fitted line, only over the series' own n range
fitline(f, p, x) = (x >= num(fitword(f . "|" . p, 3, 1)) * 0.999 && x <= num(fitword(f . "|" . p, 4, 1)) * 1.001) ? \
  exp(num(icept(f, p)) + num(slope(f, p)) * log(x)) : NaN

widx(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : widx(list, w, i + 1))
colour(k) = word("#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #8C564B #7F7F7F #BCBD22", (k - 1) % 9 + 1)
shape(k) = word("7 5 9 13 11 15 4 6 8", (k - 1) % 9 + 1) + 0

# a row's value only for family f and program:solver p (NaN otherwise)
sel(f, p, v) = (strcol(2) eq f && (strcol(4) . ":" . strcol(5)) eq p && strcol(8) ne "") ? v : NaN
bad(f, v) = (strcol(2) eq f && strcol(12) eq "no" && strcol(8) ne "") ? v : NaN
ptitle(f, p) = slope(f, p) eq "-" ? sprintf("%s  s=-", p) : sprintf("%s  s=%.2f", p, num(slope(f, p)))

# axis ranges over all timed rows, padded by 2 (log scale)
rng(col) = system("awk -F, '" . timed . " {v = $" . sprintf("%d", col) . " + 0; \
  if (lo == \"\" || v < lo) lo = v; if (hi == \"\" || v > hi) hi = v} \
  END {printf \"%.10e %.10e\", lo, hi}' data.csv")
nr = rng(3); tr = rng(8)

title_ = sprintf("lcplab pivoting solvers vs peers: median solve time   (rev %s, host %s)", rev, host)
nf = words(families)

have_png = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png"
have_pdf = strstrt(GPVAL_TERMINALS, "pdfcairo") > 0
if (!have_pdf) { print "bench_pivot.gp: this gnuplot has no pdfcairo terminal: no PDF written" }

do for [fmt in "png pdf"] {
  if (fmt eq "png") {
    if (have_png eq "pngcairo") {
      eval(sprintf("set terminal pngcairo size %d,600 font \",10\" enhanced", 520 * nf))
    } else {
      eval(sprintf("set terminal png size %d,600 enhanced", 520 * nf))
    }
  } else {
    if (!have_pdf) { break }
    eval(sprintf("set terminal pdfcairo size %.1fin,5.2in font \",9\" enhanced", 4.6 * nf))
  }
  set output out . "." . fmt
  set multiplot layout 1,nf title title_ noenhanced
  set logscale xy
  set grid xtics ytics mxtics mytics lc rgb "#dddddd"
  set xlabel "n (rows = unknowns)"
  set ylabel "median solve time [s]"
  eval(sprintf("set xrange [%s/1.5:%s*1.5]", word(nr, 1), word(nr, 2)))
  eval(sprintf("set yrange [%s/3:%s*3]", word(tr, 1), word(tr, 2)))
  set format x "%g"
  set xtics ()
  set mxtics 10
  do for [v in nvals] { eval("set xtics add (" . v . ")") }
  set samples 400
  set format y "10^{%L}"
  set key top left Left reverse noenhanced samplen 2 spacing 1.1 box opaque
  do for [j = 1:nf] {
    fam_ = word(families, j)
    fp = ""
    do for [i = 1:words(fampairs)] {
      w_ = word(fampairs, i)
      if (w_[1:strstrt(w_, "|") - 1] eq fam_) { fp = fp . w_[strstrt(w_, "|") + 1:] . " " }
    }
    set title fam_ noenhanced
    plot for [k = 1:words(fp)] csv using (sel(fam_, word(fp, k), $3)):8 \
           with points pt shape(widx(pairs, word(fp, k), 1)) ps 1.3 \
           lc rgb colour(widx(pairs, word(fp, k), 1)) title ptitle(fam_, word(fp, k)), \
         for [k = 1:words(fp)] fitline(fam_, word(fp, k), x) \
           with lines lw 1.5 lc rgb colour(widx(pairs, word(fp, k), 1)) notitle, \
         csv using (bad(fam_, $3)):8 with points pt 6 ps 2.6 lc rgb "black" title "not solved (res_rel > 1e-8)"
  }
  unset multiplot
  set output
}
