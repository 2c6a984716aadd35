# bench_exports.gp -- time to the tolerance against contacts on the scene
# exports, lcplab's cone solvers and Siconos' FC3D solvers, one panel per
# scene (log-log).  Filled points: solved (the judge's res_rel_q <= tol);
# open points: the run stopped unsolved (timeout, memory cap, max_iter,
# crash), drawn at the time it stopped.
#   gnuplot params.gp bench_exports.gp   (in a folder holding data.csv, series.gp)
#   data.csv and series.gp: bench_exports.csv and bench_exports_series.gp
#   (written by bench_exports.py), copied there by experiments/gp_run.sh;
#   params.gp sets out (default "figure") and tol ('1e-6'); writes out.png, out.pdf
set datafile separator ","
set logscale xy
set xlabel "contacts"
set ylabel "time (s)"
set key outside below center horizontal maxrows 2 noenhanced font ",9"
set grid
# the data's own range, a margin around it: no point on the border
set xtics (100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000)
set autoscale fix
set offsets graph 0.06, graph 0.06, graph 0.1, graph 0.1
csv = "data.csv"
if (!exists("out")) out = "figure"
mtitle = "Time to res_rel_q <= ".tol." (peer_fc3d --check-r on every r); filled: solved, open: stopped unsolved (timeout, memory, budget), at its stop"
set terminal pngcairo size 1200,600
set output out.".png"
load "series.gp"
set terminal pdfcairo size 9in,4.4in font ",9"
set output out.".pdf"
load "series.gp"
