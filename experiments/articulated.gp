# articulated.gp -- figure of experiments/articulated.sh: the chain in maximal
# coordinates (world joints, direct and pgs) and reduced coordinates (redmax)
# against the step h: joint drift, energy drift, time per step, gap to the
# reduced model.  Run by articulated.sh through experiments/gp_run.sh in a
# folder holding data.csv (the CSV); params.gp sets out (default 'figure':
# writes out.png and out.pdf) and nlinks (a string, for the title).
csv = 'data.csv'
if (!exists("out")) out = 'figure'
if (!exists("nlinks")) nlinks = '20'
set datafile separator ','
set datafile commentschars '#'
set key autotitle columnhead
set logscale xy
set format x '%.0e'
set format y '%.0e'
set grid
set key bottom right font ',8'
# the script writes three rows per h, in the order maximal_direct,
# maximal_pgs, reduced_redmax: 'every 3::k' picks one formulation
pos(v) = (v > 0) ? v : NaN
set xrange [5e-5:5e-3]

do for [t in "png pdf"] {
  if (t eq "png") {
    set terminal pngcairo size 1200,900 font ',10'
    set output out.'.png'
  } else {
    set terminal pdfcairo size 8in,6in font ',9'
    set output out.'.pdf'
  }
  set multiplot layout 2,2 title sprintf('%s-link hinge chain: maximal (world joints) vs reduced (RedMax)', nlinks)
  set xlabel 'h (s)'
  set ylabel 'max anchor separation (m)'
  set title 'joint drift'
  plot csv every 3::0 using 1:(pos(column(3))) with linespoints title 'maximal, direct', \
       ''  every 3::1 using 1:(pos(column(3))) with linespoints title 'maximal, pgs 50', \
       ''  every 3::2 using 1:(pos(column(3))) with linespoints title 'reduced (rounding)'
  set ylabel 'max |E - E0| / (m g L)'
  set title 'energy drift'
  plot csv every 3::0 using 1:(pos(column(4))) with linespoints title 'maximal, direct', \
       ''  every 3::1 using 1:(pos(column(4))) with linespoints title 'maximal, pgs 50', \
       ''  every 3::2 using 1:(pos(column(4))) with linespoints title 'reduced'
  set ylabel 'time per step (s)'
  set title 'cost'
  plot csv every 3::0 using 1:(pos(column(5))) with linespoints title 'maximal, direct', \
       ''  every 3::1 using 1:(pos(column(5))) with linespoints title 'maximal, pgs 50', \
       ''  every 3::2 using 1:(pos(column(5))) with linespoints title 'reduced'
  set ylabel 'max link-centre distance (m)'
  set title 'gap to the reduced model at the end'
  plot csv every 3::0 using 1:(pos(column(6))) with linespoints title 'maximal, direct', \
       ''  every 3::1 using 1:(pos(column(6))) with linespoints title 'maximal, pgs 50'
  unset multiplot
  set output
}
