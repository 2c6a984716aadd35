#!/bin/sh
# experiment_outputs.sh -- one small experiment run by two builds, in one run
# of this script, its section CSVs compared column by column: the scene
# kinds whose rows come from a world's run (drift and accuracy step rows,
# scenes summaries with a scene peer beside lcplab's runs) and a profile of
# problems exported from a scene, so that a change to the step loop, the
# metric columns, the run summary or the settings by name shows in the
# columns it moves.  experiments/scene_trajectories.sh does the same for
# `lcplab simulate`'s CSV, trace and JSON.
#
#   sh experiments/experiment_outputs.sh BEFORE_BUILD AFTER_BUILD [--expect COL,...]
#
# BEFORE_BUILD, AFTER_BUILD: build folders (cli/lcplab built).  The '#'
# preamble (provenance: paths, revision, dates) is left out.  Timing columns
# (names ending in _s, and repeats, which the timer decides) are listed as
# "timing" and do not count; so are the columns given with --expect (a
# change made on purpose, e.g. energy_drift).  Prints one line per CSV:
# "same", or each column that differs with the rows it differs in; exits 1
# when another column differs (or a row count, or an exit code), 2 for bad
# arguments.  Work files go to a temporary folder.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [--expect COL,...]" >&2; exit 2; }
before=$1 after=$2 expect=
shift 2
if [ $# -ge 2 ] && [ "$1" = --expect ]; then expect=$2; fi
for b in "$before" "$after"; do
  [ -x "$b/cli/lcplab" ] || { echo "$0: $b/cli/lcplab: not built" >&2; exit 2; }
done
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1

# a scene peer that prints a fixed summary line (experiments/CAMPAIGNS.md, "Scene peers")
cat > "$T/peer.sh" <<'EOF'
echo '{"engine":"fake","steps":'"$2"',"time_step_median_s":0.002,"time_step_mean_s":0.003,"contacts_mean_timed":8,"contacts_max":9,"max_penetration":0.001,"energy_start":10,"energy_end":9,"max_body_displacement":0.01}'
EOF
cat > "$T/small.exp" <<'EOF'
external fake kind=scene command sh ${PEER} {scene} {steps}
experiment drift dr
solvers pgs nsgs lemke
integrators symplectic verlet
scene stack n=3 steps=40
scene chain steps=40 friction=none
scene ball steps=30
experiment accuracy ac
solvers pgs nsgs
scene pyramid layers=3 steps=30
scene pendulum steps=30 friction=none
experiment scenes sc
solvers pgs nsgs fake
scene stack n=2 steps=30
scene pile n=20 steps=30
scene chain steps=30 friction=none
experiment profile pr
solvers pgs lemke
tol 1e-6
scene stack n=2 steps=10 every=5
EOF

bad=0
for b in before after; do
  eval "build=\$$b"
  "$build/cli/lcplab" experiment "$T/small.exp" --out "$T/$b" --no-plot --jobs 1 \
    --var "PEER=$T/peer.sh" > "$T/$b.log" 2>&1
  echo "$?" > "$T/$b.rc"
done
if ! cmp -s "$T/before.rc" "$T/after.rc"; then
  echo "exit codes differ: $(cat "$T/before.rc") -> $(cat "$T/after.rc")"
  bad=1
fi

for f in dr ac sc pr; do
  grep -v '^#' "$T/before/$f.csv" > "$T/b.csv" 2> /dev/null
  grep -v '^#' "$T/after/$f.csv" > "$T/a.csv" 2> /dev/null
  line=$(awk -v expect=",$expect," '
    # the fields of a CSV line into f[1..], quoted fields (RFC 4180) whole
    function fields(s, f,   n, q, c, i, cur) {
      n = 0; q = 0; cur = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\"") q = !q
        else if (c == "," && !q) { f[++n] = cur; cur = ""; continue }
        cur = cur c
      }
      f[++n] = cur
      return n
    }
    FNR == 1 { file++; if (file == 2 && $0 != head) { print " header differs"; bad = 1; exit }
               head = $0; n = fields($0, name); next }
    file == 1 { row[FNR] = $0; nb = FNR; next }
    { na = FNR; fields(row[FNR], o); fields($0, a)
      for (i = 1; i <= n; i++) if (o[i] != a[i]) diff[i]++ }
    END {
      if (bad) exit 1
      if (na != nb) { print " rows: " nb - 1 " -> " na - 1; exit 1 }
      out = ""
      for (i = 1; i <= n; i++) {
        if (!diff[i]) continue
        kind = name[i] ~ /_s$/ || name[i] == "repeats" ? "timing" \
             : index(expect, "," name[i] ",") ? "expected" : "CHANGED"
        if (kind == "CHANGED") bad = 1
        out = out " " name[i] " (" kind ", " diff[i] " rows)"
      }
      print (out == "" ? " same" : out)
      exit bad
    }' "$T/b.csv" "$T/a.csv")
  rc=$?
  echo "$f.csv:$line"
  [ $rc -eq 0 ] || bad=1
done
[ "$bad" -eq 0 ]
