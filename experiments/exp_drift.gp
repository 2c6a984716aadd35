# exp_drift.gp -- figure of a `drift` experiment: energy drift and penetration
# against simulated time, per scene and friction model; colour, dash and
# marks = solver, dash = integrator when several (experiments/README.md,
# "Figures").
#
#   drawn by the engine (libexperiment/figure.c, `lcplab figure drift CSV`)
#
# dat: scene, solver, integrator, friction, step, t, energy, rel_drift,
# max_penetration, contacts, iterations, res_nat_inf, status, applied, note.
# Energy panel: |E(t) - E0| / S, S = max(|E0|, M |g| D) (rel_drift; log y;
# exact zeros are not drawn): on a conservative scene any value is error, on
# a dissipative one (stack, pyramid) it is mostly the dissipation.
# Penetration panel: the deepest penetration of each step in mm.
# Only the panels that carry information are drawn: a metric that is the
# same at every step of every run of a scene (no contact: penetration 0) has
# no panel.  Each panel's axes hug its data: time up to the last step any of
# its runs reached (a run that stopped early ends where it stopped), the log
# axis over the decades the values span (the panels are
# exp_scene_panels.gp's, shared with exp_accuracy.gp).  Panels flow in `figure cols=N`
# columns (default 3 at the two-column width, 2 below 4 in), lettered.
# Options: solvers=, width= (default 6.7 in), cols=, font=, title=.
# Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("dat")) { print "exp_drift.gp: give dat='NAME.dat'"; exit status 2 }
if (!exists("out")) { out = dat[1:strlen(dat)-4] }


# metric m of a panel: 1 energy drift |rel_drift| (exact zeros not drawn),
# 2 penetration (mm)
sname = "exp_drift.gp"
nmetrics = 2
mexpr(m) = m == 1 ? "($8 < 0 ? -$8 : $8)" : "1000 * $9"
mval(m) = m == 1 ? (abs(column(8)) > 0 ? abs(column(8)) : NaN) : 1000 * column(9)
mlog(m) = m == 1
mname(m) = m == 1 ? "|E - E_0| / S" : "penetration [mm]"
mpanel(m) = 1
mfloor = 0
lmarg = 0.12
gapx = 0.115
yoff = 0.5
load gpdir."/exp_scene_panels.gp"
