# exp_accuracy.gp -- figure of an `accuracy` experiment: per step, the
# deepest penetration, the joint error, the complementarity and the
# natural-map residual of the step's solve, per scene and friction model;
# colour, dash and marks = solver (experiments/README.md, "Figures").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure accuracy CSV`)
#
# dat: scene, solver, integrator, friction, step, t, max_penetration,
# joint_error, compl, infeas, res_nat_inf, iterations, status.
# compl = sum_i w_i^+ (x_i - lo_i) + w_i^- (hi_i - x_i) (+ |x_c . w^_c| per
# cone), recomputed by slv_residual from the step's problem and impulses.
# Only the panels that carry information are drawn: a metric a scene does
# not have or that is the same at every step of every run (no contact:
# penetration 0) has no panel.  The joint error has none: it measures the
# stabilisation (Baumgarte, docs/dynamics.md), the same for every solver
# that solves the joint rows, and the paper says so in a sentence
# (paper/gen.py).  The penetration
# panel's axis says "depth [mm]": the full word ran into the title of the
# panel to its left.  Log axes span the
# decades of the positive values (exact zeros are not drawn, and no floor is
# invented); time ends at the last step any run of the scene reached.
# The panels are exp_scene_panels.gp's (shared with exp_drift.gp).
# Panels flow in `figure cols=N` columns (default 3 at the two-column width,
# 2 below 4 in), `figure rows=R` rows a page (default 4; more go to out-2.*,
# ...), lettered.  Options: solvers=, width=, cols=, rows=, font=, title=.
# Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_accuracy.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }

# metric m of a panel: 1 penetration (mm), 2 joint error (no panel: see
# above), 3 complementarity, 4 natural-map residual (exact zeros not drawn)
sname = "exp_accuracy.gp"
nmetrics = 4
mcol(m) = word("7 8 9 11", m) + 0
mexpr(m) = m == 1 ? "1000 * $7" : sprintf("$%d", mcol(m))
mval(m) = m == 1 ? 1000 * column(7) : (column(mcol(m)) > 0 ? column(mcol(m)) : NaN)
mlog(m) = m > 1
mname(m) = m == 1 ? "depth [mm]" : m == 2 ? "joint error [m]" : m == 3 ? "compl. gap" : "res_{nat}"
mpanel(m) = m != 2
mfloor = 1e-14
lmarg = 0.135
gapx = 0.135
yoff = 0.2
load gpdir."/exp_scene_panels.gp"
