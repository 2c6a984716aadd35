# exp_profile.gp -- figure of a `profile` experiment: Dolan-More performance
# profiles, one panel per (problem class, tolerance) (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; csv2='NAME_profile.csv'; out='NAME'; gpdir='experiments'" exp_profile.gp
#
# Reads csv2 (tol, solver, tau, log2_tau, rho, solved_share, problems, class),
# the curves lcplab computed per class (cli/experiment_tables.c): only the
# solvers that take part in a class (accepted one of its problems) have a
# curve there.  Draws rho_s(tau) against log2(tau) as steps, a row of panels
# per class and a column per tolerance, the legend giving each solver's share
# of the class's problems solved.  fig_solvers='a,b' (`figure solvers=a,b`)
# draws only those.  Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv2") || strlen(csv2) == 0) { print "exp_profile.gp: give csv2='NAME_profile.csv'"; exit status 2 }
if (!exists("out")) { out = csv2[1:strlen(csv2)-12] }

tols = csv_list(csv2, "1", "$1")
classes = csv_list(csv2, "1", "$8")
nt = words(tols)
nc = words(classes)
if (nt == 0 || nc == 0) { print "exp_profile.gp: no rows in ".csv2; exit status 1 }
xmax = system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} {if ($4 + 0 > m) m = $4 + 0} END {printf \"%%.3f\", (m > 1 ? m : 1)}' '%s'", csv2))

csel(c, t, s) = sprintf("$8 == \"%s\" && $1 == \"%s\" && $2 == \"%s\"", c, t, s)
share(c, t, s) = system(sprintf("awk -F, '$8 == \"%s\" && $1 == \"%s\" && $2 == \"%s\" {printf \"%%.0f\", 100 * $6; exit}' '%s'", c, t, s, csv2))
nprob(c) = system(sprintf("awk -F, '$8 == \"%s\" {print $7; exit}' '%s'", c, csv2))

# the legend goes under each panel, three solvers a line, so that many
# solvers (the peers included) never squeeze the plot itself
nsmax = int(system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} !s[$8 \"/\" $2]++ {n[$8]++} END {m = 0; for (c in n) if (n[c] > m) m = n[c]; print m}' '%s'", csv2)))
W = 3.4 * (nt > 1 ? 2 : 1)
PH = 1.7 + 0.13 * int((nsmax + 2) / 3)
H = 0.3 + PH * nc
do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_profile.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, W, H))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot layout nc,nt
  do for [ci = 1:nc] {
    c = word(classes, ci)
    do for [ti = 1:nt] {
      t = word(tols, ti)
      solvers = csv_list(csv2, sprintf("$8 == \"%s\" && $1 == \"%s\"", c, t).sfilter(2), "$2")
      set title sprintf("%s (%s problems), tol %s", c, nprob(c), t) noenhanced font kf
      set xlabel "log_2 {/Symbol t}   (time / fastest time)"
      set ylabel "{/Symbol r}_s({/Symbol t})"
      set xrange [0:xmax]
      set yrange [0:1.02]
      set key outside below center horizontal maxcols 3 Left reverse samplen 1.5 spacing 0.9 width -2 font kf
      plot for [k = 1:words(solvers)] rows(csv2, csel(c, t, word(solvers, k))) using 4:5 with steps \
           lw 1.5 lc rgb scolour(word(solvers, k)) \
           title sprintf("%s (%s%%)", word(solvers, k), share(c, t, word(solvers, k)))
    }
  }
  unset multiplot
  set output
}
