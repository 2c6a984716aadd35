# exp_accuracy.gp -- figure of an `accuracy` experiment: per step, the
# deepest penetration, the complementarity and the natural-map residual of
# the step's solve (and the joint error when a scene has joints), one column
# of panels per scene, one line per solver (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; out='NAME'; gpdir='experiments'" exp_accuracy.gp
#
# csv: scene, solver, integrator, friction, step, t, max_penetration,
# joint_error, compl, infeas, res_nat_inf, iterations, status.
# compl = sum_i w_i^+ (x_i - lo_i) + w_i^- (hi_i - x_i) (+ |x_c . w^_c| per
# cone), recomputed by slv_residual from the step's problem and impulses.
# Values of exactly 0 are drawn at 1e-17 on the log axes.  Writes out.pdf and
# out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv")) { print "exp_accuracy.gp: give csv='NAME.csv'"; exit status 2 }
if (!exists("out")) { out = csv[1:strlen(csv)-4] }

# one column of panels per (scene, friction model): solvers are compared on one model
scenes = csv_list(csv, "$5 != \"\"".sfilter(2), "$1 \"|\" $4")
ns = words(scenes)
if (ns == 0) { print "exp_accuracy.gp: no measured rows in ".csv; exit status 1 }
if (ns > 3) { print "exp_accuracy.gp: more than 3 scenes: only the first 3 are drawn"; ns = 3 }
allsolvers = csv_list(csv, "$5 != \"\"".sfilter(2), "$2")
tmax = real(system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} $6 != \"\" && $6 + 0 > m {m = $6 + 0} END {printf \"%%.6f\", m}' '%s'", csv)))
set xtics nicestep(tmax)
set xrange [0:tmax]
# the joint error is a metric of the scenes drawn that have joints
hasj(sc) = words(csv_list(csv, sprintf("$1 \"|\" $4 == \"%s\" && $8 != \"\"", sc), "$1")) > 0
joints = 0
do for [si = 1:ns] { if (hasj(word(scenes, si))) { joints = 1 } }
nm = joints ? 4 : 3
# metric m: column, label, log scale
mcol(m) = word(joints ? "7 8 9 11" : "7 9 11", m) + 0
mlabel(m) = mcol(m) == 7 ? "max penetration [mm]" : mcol(m) == 8 ? "joint error [m]" : \
            mcol(m) == 9 ? "complementarity [-]" : "res\\_nat\\_inf [-]"
mval(m, v) = mcol(m) == 7 ? 1000 * v : floor17(v)

H = 0.7 + 1.6 * nm
W = 3.4
top = 1.0 - 0.45 / H
sel(sc, s) = sprintf("$1 \"|\" $4 == \"%s\" && $2 == \"%s\" && $5 != \"\"", sc, s)
sctitle(sc) = sprintf("%s (%s)", sc[1:strstrt(sc, "|") - 1], sc[strstrt(sc, "|") + 1:])

do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_accuracy.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, W, H))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot
  eval(keystrip(top, kf))
  plot for [k = 1:words(allsolvers)] NaN with lines lw 1.5 lc rgb scolour(word(allsolvers, k)) \
         title word(allsolvers, k)
  eval(keyend)
  set xtics nicestep(tmax)
  set xrange [0:tmax]
  do for [si = 1:ns] {
    sc = word(scenes, si)
    solvers = csv_list(csv, sprintf("$1 \"|\" $4 == \"%s\" && $5 != \"\"", sc).sfilter(2), "$2")
    do for [m = 1:nm] {
      eval(gridpanel(m, si, nm, ns, 0.17, 0.98, 0.35 / H, top - 0.25 / H, 0.06, 0.3 / H))
      if (mcol(m) == 7) {
        unset logscale y
        set format y "%g"
      } else {
        set logscale y
        set format y "10^{%L}"
      }
      set xlabel (m == nm ? "t [s]" : "")
      set format x (m == nm ? "%g" : "")
      set ylabel (si == 1 ? mlabel(m) : "")
      set title (m == 1 ? sctitle(sc) : "") noenhanced font kf
      if (mcol(m) == 8 && !hasj(sc)) {
        # no joint in this scene: an empty panel, not a line at the floor
        set label 1 "no joints" at graph 0.5, 0.5 center font kf
        set yrange [1e-17:1]
        plot NaN notitle
        unset label 1
        set autoscale y
      } else {
      plot for [k = 1:words(solvers)] rows(csv, sel(sc, word(solvers, k))) \
             using 6:(mval(m, column(mcol(m)))) with lines lw 1 lc rgb scolour(word(solvers, k)) notitle
      }
    }
  }
  unset multiplot
  set output
}
