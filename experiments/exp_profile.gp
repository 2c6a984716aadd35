# exp_profile.gp -- figure of a `profile` experiment: Dolan-More performance
# profiles, one panel per tolerance (experiments/README.md).
#
#   gnuplot -e "csv='NAME.csv'; csv2='NAME_profile.csv'; out='NAME'; gpdir='experiments'" exp_profile.gp
#
# Reads csv2 (tol, solver, tau, log2_tau, rho, solved_share, problems), the
# curves lcplab computed (cli/experiment_stats.c); draws rho_s(tau) against
# log2(tau) as steps, one line per solver, the legend giving each solver's
# share of problems solved at that tolerance.  Writes out.pdf and out.png.
if (!exists("gpdir")) { gpdir = "." }
load gpdir."/exp_style.gp"
if (!exists("csv2") || strlen(csv2) == 0) { print "exp_profile.gp: give csv2='NAME_profile.csv'"; exit status 2 }
if (!exists("out")) { out = csv2[1:strlen(csv2)-12] }

tols = csv_list(csv2, "1", "$1")
nt = words(tols)
if (nt == 0) { print "exp_profile.gp: no rows in ".csv2; exit status 1 }
nprob = system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} {print $7; exit}' '%s'", csv2))
rev = word(csv_meta(csv2, "rev"), 1)
xmax = system(sprintf("awk -F, '/^#/ {next} !h {h=1; next} {if ($4 + 0 > m) m = $4 + 0} END {printf \"%%.3f\", (m > 1 ? m : 1)}' '%s'", csv2))

sel(t, s, v) = (strcol(1) eq t && strcol(2) eq s) ? v : NaN
share(t, s) = system(sprintf("awk -F, '$1 == \"%s\" && $2 == \"%s\" {printf \"%%.0f\", 100 * $6; exit}' '%s'", t, s, csv2))

do for [fmt in "pdf png"] {
  if (fmt eq "pdf" && !have_pdf) { print "exp_profile.gp: no pdfcairo terminal: no PDF"; continue }
  eval(figterm(fmt, 3.4, 0.4 + 2.3 * nt))
  kf = keyfont(fmt)
  set output out.".".fmt
  set multiplot layout nt,1 title sprintf("performance profiles, %s problems (rev %s)", nprob, rev) noenhanced
  do for [ti = 1:nt] {
    t = word(tols, ti)
    solvers = csv_list(csv2, sprintf("$1 == \"%s\"", t), "$2")
    set title sprintf("tol = %s (converged: res\\_rel <= tol)", t)
    set xlabel "log_2 {/Symbol t}   (time / fastest time)"
    set ylabel "{/Symbol r}_s({/Symbol t}): share of problems"
    set xrange [0:xmax]
    set yrange [0:1.02]
    set key outside right top vertical Left reverse samplen 1.5 spacing 0.9 font kf
    plot for [k = 1:words(solvers)] csv2 using (sel(t, word(solvers, k), $4)):5 with steps \
         lw 1.5 lc rgb scolour(word(solvers, k)) \
         title sprintf("%s (%s%%)", word(solvers, k), share(t, word(solvers, k)))
  }
  unset multiplot
  set output
}
