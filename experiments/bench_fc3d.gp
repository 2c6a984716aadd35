# bench_fc3d.gp -- the figure of bench_fc3d.sh: Dolan-More performance
# profiles of lcplab's cone solvers and Siconos' FC3D solvers.
#
#   gnuplot params.gp bench_fc3d.gp   (in a folder holding data.csv)
#
# bench_fc3d.sh runs it through experiments/gp_run.sh: the CSV is copied to
# data.csv, the only name the system() calls below see; params.gp sets out
# (default "figure") and optionally info='TEXT' (appended to the title:
# rev, host, peers mode).  Reads the profile CSV written by profile.py (columns: 1 tol, 2 solver
# "program:name", 3 tau, 4 log2_tau, 5 rho; the rows of one (tol, solver)
# are contiguous and sorted by tau).  Writes out.png (pngcairo if available,
# else png) and out.pdf (pdfcairo; skipped with a message if absent).
# One panel per tolerance (as many as the CSV holds, side by side), one
# step curve per solver: rho_s(tau) = share of the problems solved within a
# factor tau of the fastest solver, x axis log2(tau) (0 = the fastest).
# lcplab's solvers are solid and thick, the peers dashed; a solver keeps
# its colour in every panel; the legend (right of each panel) gives rho at
# the right end (the share of problems solved).

csv = "data.csv"
if (!exists("out")) {
  out = "figure"
}
if (!exists("info")) {
  info = ""
}

set datafile separator ","
set datafile commentschars "#"
set encoding utf8

body = "/^#/ {next} !h {h=1; next}"
solvers = system("awk -F, '" . body . " !s[$2]++ {printf \"%s \", $2}' data.csv")
tols = system("awk -F, '" . body . " !s[$1]++ {printf \"%s \", $1}' data.csv")
if (words(solvers) == 0 || words(tols) == 0) {
  print sprintf("bench_fc3d.gp: %s has no profile rows: nothing to plot", csv)
  exit status 1
}
# the final rho of (tol, solver), for the legend: words "tol|solver rho",
# read once (no value of the CSV is pasted into a command)
finals = system("awk -F, '" . body . " {r[$1 \"|\" $2] = $5} END {for (k in r) printf \"%s %.6f \", k, r[k]}' data.csv")
fword(key, i) = i > words(finals) ? "0" : (word(finals, i) eq key ? word(finals, i + 1) : fword(key, i + 2))
final(t, s) = real(fword(t . "|" . s, 1))
xmax = real(system("awk -F, '" . body . " {if ($4 + 0 > m) m = $4 + 0} END {print (m > 1 ? m : 1)}' data.csv"))
nprob = system("awk '/^# Dolan-More/ {for (i = 1; i <= NF; i++) if ($i == \"problems\") print $(i - 1); exit}' data.csv")

widx(list, w, i) = i > words(list) ? 0 : (word(list, i) eq w ? i : widx(list, w, i + 1))
colour(k) = word("#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #8C564B #7F7F7F #808000 #000000 #9467BD #E41A1C", (k - 1) % 12 + 1)
islcp(s) = strstrt(s, "lcplab:") == 1
sel(t, s, v) = (strcol(1) eq t && strcol(2) eq s) ? v : NaN

nt = words(tols)
# one line style per solver: lcplab solid and thick, the peers dashed
do for [k = 1:words(solvers)] {
  if (islcp(word(solvers, k))) {
    eval(sprintf("set style line %d lc rgb '%s' lw 2.5 dt 1", k, colour(k)))
  } else {
    eval(sprintf("set style line %d lc rgb '%s' lw 1.4 dt 2", k, colour(k)))
  }
}
have_png = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png"
have_pdf = strstrt(GPVAL_TERMINALS, "pdfcairo") > 0
if (!have_pdf) {
  print "bench_fc3d.gp: this gnuplot has no pdfcairo terminal: no PDF written"
}

title_ = "Performance profiles, " . nprob . " local FC3D problems: lcplab (solid) vs Siconos (dashed)"
if (strlen(info) > 0) {
  title_ = title_ . "\n(" . info . ")"
}

do for [fmt in "png pdf"] {
  if (fmt eq "png") {
    if (have_png eq "pngcairo") {
      eval(sprintf("set terminal pngcairo size %d,620 font \",10\" enhanced dashed", 800 * nt))
    } else {
      eval(sprintf("set terminal png size %d,620 enhanced", 800 * nt))
    }
  } else {
    if (!have_pdf) {
      break
    }
    eval(sprintf("set terminal pdfcairo size %.1fin,4.2in font \",9\" enhanced dashed", 5.2 * nt))
  }
  set output out . "." . fmt
  set multiplot layout 1,nt title title_ noenhanced
  set grid xtics ytics lc rgb "#dddddd"
  set xlabel "log_2 {/Symbol t}   (time within a factor {/Symbol t} of the fastest)"
  set ylabel "{/Symbol r}({/Symbol t}): share of problems"
  eval(sprintf("set xrange [0:%g]", xmax * 1.02))
  set yrange [0:1.02]
  set ytics 0.1
  set key outside right top Left reverse noenhanced samplen 3 spacing 1.05 box font ",8"
  do for [j = 1:nt] {
    t_ = word(tols, j)
    set title sprintf("tol = %s", t_) noenhanced
    plot for [k = 1:words(solvers)] csv using (sel(t_, word(solvers, k), $4)):5 \
           with steps ls k \
           title sprintf("%s  %.0f%%", word(solvers, k), 100 * final(t_, word(solvers, k)))
  }
  unset multiplot
  set output
}
