# bench_models.gp -- the work-precision figure of `make bench-models`
# (experiments/bench_models.sh, issue 82 item 3): per file a panel, median step
# time (ms) against self-consistency (the RMS deviation of the bodies' centres
# of mass over the first second from the engine's own converged reference,
# m), one curve per engine and solver through its budgets.  Run by
# bench_models.sh through experiments/gp_run.sh in a folder holding data.dat
# (bench_models.py table --dat: one block per file and curve, in the order
# below); params.gp sets out (default 'figure') and files (the panels' names,
# blank-separated).  Grayscale: the engine is the dash (lcplab solid, MuJoCo
# 2.2.2 dashed, 3.12.0 dotted), the solver the mark (filled: lcplab's; open:
# MuJoCo's); the colours (Okabe-Ito) only repeat it.  An exact solver's 0 is
# drawn at 1e-12.
dat = 'data.dat'
if (!exists("out")) out = 'figure'
if (!exists("files")) files = 'humanoid'
nf = words(files)
nc = 9
label(j) = (j == 0) ? 'lcplab pgs\_wide' : (j == 1) ? 'lcplab dantzig' : (j == 2) ? 'lcplab auto' : \
  (j == 3) ? 'MuJoCo 2.2.2 PGS' : (j == 4) ? 'MuJoCo 2.2.2 CG' : (j == 5) ? 'MuJoCo 2.2.2 Newton' : \
  (j == 6) ? 'MuJoCo 3.12.0 PGS' : (j == 7) ? 'MuJoCo 3.12.0 CG' : 'MuJoCo 3.12.0 Newton'
dt(j) = (j < 3) ? 1 : (j < 6) ? 2 : 3
pt(j) = word("7 5 9 6 4 8 6 4 8", j + 1) + 0
lc(j) = word("#0072B2 #0072B2 #0072B2 #D55E00 #D55E00 #D55E00 #009E73 #009E73 #009E73", j + 1)
set logscale xy
set format x '10^{%L}'
set format y '%g'
set grid
set xlabel 'self-consistency: RMS deviation from own reference, 1st s (m)'
set ylabel 'step time, median (ms)'
cols = (nf + 1 > 4) ? 3 : 2
rows = int((nf + 1 + cols - 1) / cols)
do for [t in "png pdf"] {
  if (t eq "png") {
    set terminal pngcairo size 1500, 500 * rows font ',10'
    set output out.'.png'
  } else {
    set terminal pdfcairo size 10, 3.4 * rows font ',9'
    set output out.'.pdf'
  }
  set multiplot layout rows, cols title 'Work-precision: lcplab (reduced coordinates, hard contacts) vs MuJoCo (soft contacts), one run'
  unset key
  do for [i = 0:nf - 1] {
    set title word(files, i + 1) noenhanced
    plot for [j = 0:nc - 1] dat index (i * nc + j) using 2:3 with linespoints \
      dt dt(j) pt pt(j) ps 1.3 lw 2 lc rgb lc(j) notitle
  }
  # the legend, alone in the next panel
  unset title
  unset border
  unset tics
  unset xlabel
  unset ylabel
  unset grid
  set key center center box font ',11'
  set label 1 'points: budgets (iterations); self-consistency 0 drawn at 10^{-12}' at screen 0.5, 0.02 center
  set label 1 at graph 0.5, 0.02 center
  set xrange [1:2]
  set yrange [1:2]
  plot for [j = 0:nc - 1] NaN with linespoints dt dt(j) pt pt(j) ps 1.3 lw 2 lc rgb lc(j) \
    title label(j)
  unset label 1
  set border
  set tics
  set grid
  set xlabel 'self-consistency: RMS deviation from own reference, 1st s (m)'
  set ylabel 'step time, median (ms)'
  set autoscale xy
  unset multiplot
  set output
}
