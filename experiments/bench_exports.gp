# bench_exports.gp -- time to the tolerance against contacts on the scene
# exports, lcplab's cone solvers and Siconos' FC3D solvers, one panel per
# scene (log-log).  Filled points: solved (the judge's res_rel_q <= tol);
# open points: the run stopped unsolved (timeout, memory cap, max_iter,
# crash), drawn at the time it stopped.
#   gnuplot -e "dir='DIR'; tol='1e-6'" bench_exports.gp
#   reads DIR/bench_exports.csv and DIR/bench_exports_series.gp (written by
#   bench_exports.py); writes DIR/bench_exports.png and .pdf
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
csv = dir."/bench_exports.csv"
mtitle = "Time to res_rel_q <= ".tol." (peer_fc3d --check-r on every r); filled: solved, open: stopped unsolved (timeout, memory, budget), at its stop"
set terminal pngcairo size 1200,600
set output dir."/bench_exports.png"
load dir."/bench_exports_series.gp"
set terminal pdfcairo size 9in,4.4in font ",9"
set output dir."/bench_exports.pdf"
load dir."/bench_exports_series.gp"
