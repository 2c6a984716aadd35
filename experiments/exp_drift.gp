# exp_drift.gp -- figure of a `drift` experiment: energy drift and penetration
# against simulated time, one row of panels per scene, colour = solver, dash
# = integrator (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; out='NAME'; gpdir='experiments'" exp_drift.gp
#
# csv: scene, solver, integrator, friction, step, t, energy, rel_drift,
# max_penetration, contacts, iterations, res_nat_inf, status.
# Left: |E(t) - E0| / S, S = max(|E0|, M |g| D) (the rel_drift
# column, cli/experiment_run.c; log y; 0 drawn at 1e-17): on a conservative scene
# (elastic bounce, no friction) any value is error, on a dissipative one
# (stack, pyramid) it is mostly the dissipation.  Right: the deepest
# penetration of each step in mm.  Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv")) { print "exp_drift.gp: give csv='NAME.csv'"; exit status 2 }
if (!exists("out")) { out = csv[1:strlen(csv)-4] }

# one row of panels per (scene, friction model): solvers are compared on one model
scenes = csv_list(csv, "$5 != \"\"".sfilter(2), "$1 \"|\" $4")
ns = words(scenes)
if (ns == 0) { print "exp_drift.gp: no measured rows in ".csv; exit status 1 }
if (ns > 6) { print "exp_drift.gp: more than 6 scenes: only the first 6 are drawn"; ns = 6 }
allsolvers = csv_list(csv, "$5 != \"\"".sfilter(2), "$2")
allints = csv_list(csv, "$5 != \"\"".sfilter(2), "$3")
rev = word(csv_meta(csv, "rev"), 1)
tmax = real(system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} $6 != \"\" && $6 + 0 > m {m = $6 + 0} END {printf \"%%.6f\", m}' '%s'", csv)))
set xtics nicestep(tmax)
set xrange [0:tmax]

H = 0.75 + 1.8 * ns
top = 1.0 - 0.5 / H
sel(sc, run) = sprintf("$1 \"|\" $4 == \"%s\" && $2 \"/\" $3 == \"%s\" && $5 != \"\"", sc, run)
sctitle(sc) = sprintf("%s (%s friction)", sc[1:strstrt(sc, "|") - 1], sc[strstrt(sc, "|") + 1:])
rsolver(run) = run[1:strstrt(run, "/") - 1]
rint(run) = run[strstrt(run, "/") + 1:]

do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_drift.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, 3.4, H))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot
  eval(keystrip(top, kf))
  plot for [k = 1:words(allsolvers)] NaN with lines lw 1.5 lc rgb scolour(word(allsolvers, k)) \
         title word(allsolvers, k), \
       for [k = 1:words(allints)] NaN with lines lw 1 dt sdt(word(allints, k)) lc rgb "black" \
         title word(allints, k)
  eval(keyend)
  set xtics nicestep(tmax)
  set xrange [0:tmax]
  set xlabel "t [s]"
  do for [si = 1:ns] {
    sc = word(scenes, si)
    runs = csv_list(csv, sprintf("$1 \"|\" $4 == \"%s\" && $5 != \"\"", sc).sfilter(2), "$2 \"/\" $3")
    do for [panel = 1:2] {
      eval(gridpanel(si, panel, ns, 2, 0.15, 0.98, 0.4 / H, top - 0.25 / H, 0.14, 0.62 / H))
      if (panel == 1) {
        set logscale y
        set format y "10^{%L}"
        set ylabel "|E - E_0| / S  [-]"
      } else {
        unset logscale y
        set format y "%g"
        set ylabel "max penetration [mm]"
      }
      set title sprintf("%s%s", sctitle(sc), panel == 1 ? ": energy drift" : ": penetration") noenhanced font kf
      plot for [k = 1:words(runs)] rows(csv, sel(sc, word(runs, k))) \
             using 6:(panel == 1 ? floor17(abs($8)) : 1000 * $9) with lines lw 1 \
             dt sdt(rint(word(runs, k))) lc rgb scolour(rsolver(word(runs, k))) notitle
    }
  }
  unset multiplot
  set output
}
