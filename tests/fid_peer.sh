#!/bin/sh
# fid_peer.sh -- a planted scene peer for the fidelity section's tests
# (tests/test_fidelity.sh, tests/test_paper_gen.sh): peer_scene's words
# (SCENE [--angle DEG] [--steps K] ...), its trace on stderr (body 0 sliding
# down the incline at the analytic g (sin a - 0.5 cos a), mu 0.5), its summary
# on stdout; FAST=1.03 makes the body 3 % faster than the analytic motion.
scene=$1; shift
angle=0 steps=120
while [ $# -gt 0 ]; do
  case $1 in --angle) angle=$2; shift ;; --steps) steps=$2; shift ;; esac
  shift
done
awk -v sc="$scene" -v deg="$angle" -v K="$steps" -v f="${FAST:-1}" 'BEGIN {
  a = deg * atan2(0, -1) / 180; acc = f * 9.81 * (sin(a) - 0.5 * cos(a))
  for (k = 0; k < K; k++) {
    t = (k + 1) / 120; s = acc * t * t / 2; v = acc * t
    printf "step %d contacts 4 t_step 1e-05 t_col 1e-06 body0 p %.9f 0.000000 %.9f v %.9f 0.000000 %.9f\n",
      k, -s * cos(a), -s * sin(a), -v * cos(a), -v * sin(a) > "/dev/stderr"
  }
  d = sc == "stack" ? 5.5e-3 : 1.0
  printf "{\"engine\":\"planted\",\"steps\":%d,\"contacts_mean_timed\":4,\"energy_start\":1,", K
  printf "\"energy_end\":1,\"max_body_displacement\":%g,\"time_step_median_s\":1e-05,", d
  printf "\"time_step_mean_s\":2e-05,\"engine_info\":{\"lib\":\"Planted 1.0\"}}\n"
}'
