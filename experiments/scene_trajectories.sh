#!/bin/sh
# scene_trajectories.sh -- every named scene run by two builds, in one run of
# this script, compared bit for bit: the per-step CSV of `lcplab simulate`
# but for its timing column (solve_time_s), the trace of every dynamic
# body (r, q, v, w at %.17g) and the JSON summary but for its times, for
# each scene of `lcplab simulate --help`'s list under pgs (box friction)
# and nsgs (--friction cone).
#
#   sh experiments/scene_trajectories.sh BEFORE_BUILD AFTER_BUILD [STEPS]
#
# BEFORE_BUILD, AFTER_BUILD: build folders (cli/lcplab built); STEPS: the
# steps of each run (default 120).  TRAJ_SCENES chooses the scenes (words
# NAME or NAME:KEY=VALUE,... for its --param; default every scene with its
# defaults), TRAJ_SOLVERS the solvers (default "pgs nsgs"; nsgs with
# --friction cone, the others box friction), TRAJ_ARGS more options for
# every run (e.g. "--contact-order top-down"), TRAJ_NEW the CSV columns and
# summary fields that AFTER_BUILD adds (comma-separated, e.g.
# "failed,integrator_excess,failed_integrator_steps"), left out of both
# builds' outputs before comparing.  Prints one line per scene and solver,
# "same" or the first difference, and a last line "N same, M differ"; exits
# 1 when a run differs (or failed differently: exit codes and stderr are
# compared too), 2 for bad arguments.  Work files go to a temporary folder.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [STEPS]" >&2; exit 2; }
before=$1 after=$2 steps=${3:-120}
for b in "$before" "$after"; do
  [ -x "$b/cli/lcplab" ] || { echo "$0: $b/cli/lcplab: not built" >&2; exit 2; }
done
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
export OPENBLAS_NUM_THREADS=1

# the scene names: the indented lines of the help's scene list
scenes=${TRAJ_SCENES:-$("$after/cli/lcplab" simulate --help 2>&1 | sed -n '/^scenes/,$p' |
  sed -n 's/^  \([a-z_]*\) .*/\1/p')}
[ -n "$scenes" ] || { echo "$0: no scene list in 'lcplab simulate --help'" >&2; exit 2; }
solvers=${TRAJ_SOLVERS:-pgs nsgs}

# run BUILD OUT ARGS...: the CSV without solve_time_s, the trace, the exit code
run() {
  build=$1 out=$2
  shift 2
  "$build/cli/lcplab" simulate "$@" --steps "$steps" --csv "$out.csv" --trace "$out.trace" \
    --force > "$out.json" 2> "$out.err"
  echo "exit $?" >> "$out.err"
  # the JSON summary without its times
  sed -e 's/"time_stage_mean_s":{[^}]*},*//' -e 's/"time_[a-z_]*":[^,}]*,*//g' \
    -e 's/"wall_total_s":[^,}]*,*//' "$out.json" > "$out.sum"
  for f in $(printf '%s\n' "${TRAJ_NEW:-}" | tr ',' ' '); do
    sed -e "s/\"$f\":[^,}]*,*//" "$out.sum" > "$out.sum2" && mv "$out.sum2" "$out.sum"
  done
  if [ -f "$out.csv" ]; then
    awk -F, -v new=",${TRAJ_NEW:-}," 'NR == 1 { for (i = 1; i <= NF; i++)
        if ($i == "solve_time_s" || index(new, "," $i ",")) skip[i] = 1 }
      { line = ""; n = 0
        for (i = 1; i <= NF; i++) if (!(i in skip)) line = line (n++ ? "," : "") $i
        print line }' "$out.csv" > "$out.cmp"
  fi
}

nsame=0 ndiff=0
for sc in $scenes; do
  s=${sc%%:*}
  for solver in $solvers; do
    if [ "$solver" = nsgs ]; then set -- --friction cone; else set --; fi
    if [ "$s" != "$sc" ]; then
      for kv in $(printf '%s\n' "${sc#*:}" | tr ',' ' '); do set -- "$@" --param "$kv"; done
    fi
    # shellcheck disable=SC2086 # TRAJ_ARGS: words
    set -- "$@" ${TRAJ_ARGS:-}
    run "$before" "$T/b" --scene "$s" --solver "$solver" "$@"
    run "$after" "$T/a" --scene "$s" --solver "$solver" "$@"
    why=
    for f in cmp trace sum err; do
      [ -z "$why" ] || break
      if ! cmp -s "$T/b.$f" "$T/a.$f"; then
        why="$f differs: $(diff "$T/b.$f" "$T/a.$f" 2>&1 | sed -n 2p | cut -c1-120)"
      fi
    done
    if [ -z "$why" ]; then
      nsame=$((nsame + 1))
      echo "$sc $solver: same ($(($(wc -l < "$T/a.cmp") - 1)) steps)"
    else
      ndiff=$((ndiff + 1))
      echo "$sc $solver: $why"
    fi
    rm -f "$T"/a.* "$T"/b.*
  done
done
echo "$nsame same, $ndiff differ"
[ "$ndiff" -eq 0 ]
