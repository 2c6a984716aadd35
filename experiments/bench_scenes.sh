#!/bin/sh
# bench_scenes.sh -- benchmark (`make bench-scenes`, also run by `make bench`;
# not a test): whole simulation steps of lcplab next to ODE quickstep and
# Bullet on the peers' scenes (../shared/peers/scenes: the same geometry,
# masses, friction, dt = 1/120, 600 steps, 50 solver iterations).
#
#   sh experiments/bench_scenes.sh BUILDDIR SRCDIR [GNUPLOT]
#
# lcplab runs `simulate --solver $SOLVER --max-iter 50` (default pgs_wide:
# pgs's sweep with four independent groups of rows per AVX2 instruction, pgs's
# iterates bit for bit; SOLVER=pgs for the plain loop; box friction, warm start, AUTO storage:
# matrix-free factored above 256 rows) on pile N = $PILES and pyramid
# L = $PYRAMIDS (environment, defaults below), with collision margin
# $MARGIN m and warm-start factor $WARM, defaults 0.002 and 0.85, not the
# world's 0 and 0.7: speculative contacts up to 2 mm apart (Bullet keeps
# contacts up to a small positive distance too; MARGIN=0.001 gives its
# contact counts, 0.002 up to 9 % more) and Bullet's m_warmstartingFactor.
# With them the pyramids up to 40 layers stay up at 50 sweeps (see
# experiments/README.md).  Contact order $ORDER, default top-down
# (--contact-order top-down: the pairs highest first, not the broad phase's
# order along x; less penetration on every pyramid, fuller pgs_wide lanes:
# experiments/README.md).  A value other than the world's default shows in
# the engine label (-margin0.002-warm0.85-top-down).
# The peers' numbers are read from their stored sweep,
# ../shared/peers/scenes/results/bench.jsonl (measured on this machine type
# by scripts/bench.sh).  LCPLAB_PEERS_LIVE=1 builds the peers and runs them
# here instead, on the same sizes, each size's ODE and Bullet runs just
# before lcplab's: on a shared machine whose speed drifts by tens of per cent
# within an hour, interleaving keeps the drift out of the ratios (~20 min
# for the default sizes).  REPEAT=R (default 1) runs each size R times
# (live: the peers too, interleaved) and keeps each engine's fastest median:
# the drift and bursts of a shared machine only ever slow a run down.  Both
# sides report the median step time and the mean contacts per step over the
# last 480 of 600 steps, and the deepest penetration at the end; the
# pyramids' largest |r_end - r_start| of a box comes from the peers'
# results/pyramid_check.jsonl (same settings; absent from bench.jsonl).
#
# Output in BUILDDIR/experiments/results/HOST/: bench_scenes.csv (one row per
# engine, scene, size), bench_scenes.md (the table, with lcplab's speed-up
# over each peer per contact: (t_peer / c_peer) / (t_lcplab / c_lcplab);
# and over Bullet per constraint row, since Bullet solves two rows a contact
# (normal and one friction direction, solver mode 260: peers' README) where
# lcplab's box friction and ODE's dContactApprox1 solve three), and
# bench_scenes.png / .pdf (time per step against contacts, log-log, every
# engine), and under the table the least-squares slope of log(step time)
# on log(contacts) per engine and scene (1 = linear growth).  Earlier
# results are moved aside with a UTC timestamp suffix.
# Exit: 0 done, 1 a run failed, 2 usage / missing inputs.
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILDDIR SRCDIR [GNUPLOT]" >&2
  exit 2
fi
builddir=$1
srcdir=$2
gnuplot=${3:-gnuplot}
peers=${LCPLAB_PEERS:-$srcdir/../shared/peers}
lcplab=$builddir/cli/lcplab
piles=${PILES:-500 1000 2000 3000 5000}
pyramids=${PYRAMIDS:-10 20 30 40 50}
solver=${SOLVER:-pgs_wide}
margin=${MARGIN:-0.002}
warm=${WARM:-0.85}
order=${ORDER:-top-down}
repeat=${REPEAT:-1}
case $repeat in
  ''|*[!0-9]*) repeat=bad ;;
esac
if [ "$repeat" = bad ] || [ "$repeat" -lt 1 ]; then
  echo "$0: REPEAT must be a positive integer, got '${REPEAT:-}'" >&2
  exit 2
fi
if [ ! -x "$lcplab" ]; then
  echo "$0: $lcplab is not built" >&2
  exit 2
fi
jsonl=$peers/scenes/results/bench.jsonl
peer=
tmp=
if [ "${LCPLAB_PEERS_LIVE:-0}" = 1 ]; then
  # the peers are built in a copy and run on the same sizes, interleaved
  # with lcplab (below); the copy's stored results are replaced
  tmp=$(mktemp -d)
  cp -r "$peers/scenes" "$tmp/" && (cd "$tmp/scenes" && make >/dev/null) || exit 1
  peer=$tmp/scenes/peer_scene
  jsonl=$tmp/scenes/results/bench.jsonl
  : >"$jsonl"
fi
if [ ! -f "$jsonl" ]; then
  echo "$0: $jsonl not found (the peers' stored sweep)" >&2
  exit 2
fi
out=$builddir/experiments/results/$(uname -n)
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for f in bench_scenes.csv bench_scenes.md bench_scenes.png bench_scenes.pdf; do
  [ -e "$out/$f" ] && mv "$out/$f" "$out/$f.$stamp"
done
runs=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$runs" "$work" ${tmp:+"$tmp"}' EXIT
export OPENBLAS_NUM_THREADS=1
# live peers: ODE and Bullet on one scene size, just before lcplab's run
live_peers() {
  [ -n "$peer" ] || return 0
  for e in ode-quickstep bullet; do
    echo "$e $* ..." >&2
    "$peer" "$@" --engine "$e" --iters 50 --dt 1/120 --steps 600 >>"$jsonl" || exit 1
  done
}
# one scene size, REPEAT times: the live peers (if any), then lcplab.
# run_size SCENE KEY SIZE: KEY is the scene parameter, and the peers' --KEY
run_size() {
  for r in $(seq "$repeat"); do
    live_peers "$1" --"$2" "$3"
    echo "lcplab $1 $2=$3 ($r of $repeat) ..." >&2
    s=$("$lcplab" simulate --scene "$1" --param "$2=$3" --solver "$solver" --margin "$margin" \
          --warm-factor "$warm" --contact-order "$order" --max-iter 50 --steps 600 --dt 1/120 \
          --csv "$work/$1_$3_$r.csv") || exit 1
    echo "$1 $3 $work/$1_$3_$r.csv $s" >>"$runs"
  done
}
for n in $piles; do run_size pile n "$n"; done
for l in $pyramids; do run_size pyramid layers "$l"; done
label=lcplab-$solver
[ "$margin" = 0 ] || label=$label-margin$margin
[ "$warm" = 0.7 ] || label=$label-warm$warm
[ "$order" = broadphase ] || label=$label-$order
python3 - "$runs" "$jsonl" "$out" "$label" <<'PY'
import csv, json, math, os, sys
runs, jsonl, out, lcp = sys.argv[1:5]
rows = []
for line in open(runs):
    scene, size, steps_csv, js = line.split(" ", 3)
    d = json.loads(js)
    # rows per step over the same last 480 steps as the contacts
    nrows = [float(r["rows"]) for r in csv.DictReader(open(steps_csv))][-480:]
    rows.append(dict(engine=lcp, scene=scene, size=int(size),
                     contacts=d["contacts_mean_timed"], step_ms=1e3 * d["time_step_median_s"],
                     pen_end=d["max_penetration_end"], rows=sum(nrows) / len(nrows),
                     disp=d["max_body_displacement"] if scene == "pyramid" else None))
disp = {}  # (engine, layers) -> the peers' max_body_displacement
check = os.path.join(os.path.dirname(jsonl), "pyramid_check.jsonl")
if os.path.exists(check):
    for line in open(check):
        d = json.loads(line)
        disp[(d["engine"], d["params"].get("layers"))] = d.get("max_body_displacement")
for line in open(jsonl):
    d = json.loads(line)
    if d["engine"] not in ("ode-quickstep", "bullet"):
        continue
    p = d["params"]
    rows.append(dict(engine=d["engine"], scene=d["scene"],
                     size=int(p.get("n", p.get("layers", 0))), contacts=d["contacts_mean_timed"],
                     step_ms=1e3 * d["time_step_median_s"], pen_end=d["max_penetration"],
                     rows=(2 if d["engine"] == "bullet" else 3) * d["contacts_mean_timed"],
                     disp=disp.get((d["engine"], p.get("layers")) if d["scene"] == "pyramid" else None)))
# REPEAT > 1: each engine's fastest run per scene and size (the runs are
# deterministic; only the time differs)
best = {}
for r in rows:
    k = (r["engine"], r["scene"], r["size"])
    if k not in best or r["step_ms"] < best[k]["step_ms"]:
        best[k] = r
rows = sorted(best.values(), key=lambda r: (r["scene"], r["size"], r["engine"]))
with open(out + "/bench_scenes.csv", "w") as f:
    f.write("# bench_scenes: median step over the last 480 of 600 steps, dt 1/120, 50 iterations\n")
    f.write("engine,scene,size,contacts,step_ms,us_per_contact,max_penetration_end_m\n")
    for r in rows:
        f.write("%s,%s,%d,%.1f,%.4g,%.4g,%.3g\n" % (r["engine"], r["scene"], r["size"], r["contacts"],
                r["step_ms"], 1e3 * r["step_ms"] / r["contacts"], r["pen_end"]))
    f.write("\n\n")  # gnuplot indices 1..6: one block per engine and scene
    for eng in (lcp, "ode-quickstep", "bullet"):
        for scene in ("pile", "pyramid"):
            f.write("# %s %s\n" % (eng, scene))
            for r in rows:
                if r["engine"] == eng and r["scene"] == scene:
                    f.write("%s,%s,%d,%.1f,%.4g,%.4g,%.3g\n" % (r["engine"], r["scene"], r["size"],
                            r["contacts"], r["step_ms"], 1e3 * r["step_ms"] / r["contacts"],
                            r["pen_end"]))
            f.write("\n\n")
by = {(r["engine"], r["scene"], r["size"]): r for r in rows}
md = ["| scene | size | " + lcp + " contacts | " + lcp + " ms | ODE contacts | ODE ms | Bullet contacts | Bullet ms "
      "| speed-up per contact vs ODE | vs Bullet | per row vs Bullet "
      "| penetration end lcplab / ODE / Bullet (mm) | max box displacement lcplab / ODE / Bullet (m) |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
fmt = lambda v, f: f % v if v is not None else "-"
for (eng, scene, size), r in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    if eng != lcp:
        continue
    o, b = by.get(("ode-quickstep", scene, size)), by.get(("bullet", scene, size))
    per = lambda x: x["step_ms"] / x["contacts"]
    perrow = lambda x: x["step_ms"] / x["rows"]
    md.append("| %s | %d | %.0f | %.2f | %s | %s | %s | %s | %s | %s | %s | %.2f / %s / %s | %s / %s / %s |" % (
        scene, size, r["contacts"], r["step_ms"],
        "%.0f" % o["contacts"] if o else "-", "%.2f" % o["step_ms"] if o else "-",
        "%.0f" % b["contacts"] if b else "-", "%.2f" % b["step_ms"] if b else "-",
        "%.2fx" % (per(o) / per(r)) if o else "-", "%.2fx" % (per(b) / per(r)) if b else "-",
        "%.2fx" % (perrow(b) / perrow(r)) if b else "-",
        1e3 * r["pen_end"], "%.2f" % (1e3 * o["pen_end"]) if o else "-",
        "%.2f" % (1e3 * b["pen_end"]) if b else "-",
        fmt(r["disp"], "%.3g"), fmt(o and o["disp"], "%.3g"), fmt(b and b["disp"], "%.3g")))
# growth of the step with contacts: least-squares slope of log(ms) on
# log(contacts) per engine and scene (1 = linear)
md.append("")
md.append("| slope of log(step ms) on log(contacts) | pile | pyramid |")
md.append("|---|---|---|")
for eng, name in ((lcp, lcp), ("ode-quickstep", "ODE quickstep"), ("bullet", "Bullet")):
    cells = []
    for scene in ("pile", "pyramid"):
        pts = [(math.log(r["contacts"]), math.log(r["step_ms"])) for r in rows
               if r["engine"] == eng and r["scene"] == scene and r["contacts"] > 0]
        if len(pts) < 2:
            cells.append("-")
            continue
        mx = sum(x for x, _ in pts) / len(pts)
        my = sum(y for _, y in pts) / len(pts)
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        cells.append("%.2f (%d sizes)" % (sum((x - mx) * (y - my) for x, y in pts) / sxx, len(pts))
                     if sxx > 0 else "-")
    md.append("| %s | %s | %s |" % (name, cells[0], cells[1]))
open(out + "/bench_scenes.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
if command -v "$gnuplot" >/dev/null 2>&1; then
  "$gnuplot" -e "csv='$out/bench_scenes.csv'; outbase='$out/bench_scenes'; lcp='lcplab $solver'; note=\"\\nlcplab: collision margin $margin m, warm-start factor $warm, contact order $order\"" \
    "$srcdir/experiments/bench_scenes.gp" || exit 1
  echo "$out/bench_scenes.png"
  echo "$out/bench_scenes.pdf"
else
  echo "$0: gnuplot not found: no figure" >&2
fi
echo "$out/bench_scenes.csv"
echo "$out/bench_scenes.md"
