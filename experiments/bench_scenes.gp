# bench_scenes.gp -- time per step against contacts per step, lcplab, ODE
# quickstep and Bullet on the peers' pile and pyramid scenes (log-log).
#   gnuplot params.gp bench_scenes.gp   (in a folder holding data.csv)
#   -> out.png, out.pdf; bench_scenes.sh runs it through experiments/gp_run.sh,
#   params.gp sets out (default "figure"), lcp ('lcplab SOLVER') and note
#   (optional, a second title line)
csv = "data.csv"
if (!exists("out")) out = "figure"
set datafile separator ","
set logscale xy
set xlabel "contacts per step (mean over the last 480 of 600 steps)"
set ylabel "median time per step (ms)"
set key top left noenhanced  # solver names have underscores
set grid
set rmargin 5  # room for the last x tick label (10^5 on the log axis)
if (!exists("note")) note = ""  # e.g. lcplab's contact settings, on a second title line
set title "Whole step (collide + assemble + solve + integrate), 50 iterations, dt 1/120".(strlen(note) > 0 ? "\n".note : "") noenhanced
# blocks 1..8: (lcplab, ODE, Bullet, Bullet with two friction rows) x (pile,
# pyramid); colour by engine, dashes by scene; an engine without runs (Bullet
# two-row outside a live run) leaves its blocks empty and gets no key entry
eng(k) = (k - 1) / 2
if (!exists("lcp")) lcp = "lcplab"
name(k) = (eng(k) == 0 ? lcp : eng(k) == 1 ? "ODE quickstep" : eng(k) == 2 ? "Bullet (one friction row)" : "Bullet, two friction rows") . ((k - 1) % 2 == 0 ? ", pile" : ", pyramid")
plot_all = "plot for [k=1:8] csv index k using 4:5 with linespoints lw 2 lc (eng(k) + 1) dt 1+(k - 1) % 2 pt ((k - 1) % 2 == 0 ? 7 : 5) title name(k)"
set terminal pngcairo size 900,600
set output out.".png"
eval plot_all
set terminal pdfcairo size 5in,3.4in font ",9"
set output out.".pdf"
eval plot_all
