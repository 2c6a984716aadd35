#!/bin/bash
# build_seeds.sh -- the seed corpora of the fuzz harnesses (tests/fuzz/README.md).
#
#   bash tests/fuzz/build_seeds.sh BUILDDIR SRCDIR OUTDIR [bench|quick]
#
# quick (the test suite's fuzz stage, run_fuzz.sh quick) leaves out the
# generated files, which take minutes with the instrumented lcplab on a
# shared machine; it keeps the shared, in-tree and scene seeds.
# BUILDDIR has cli/lcplab.  OUTDIR/<harness>/ gets,
# for each harness, files made here and symbolic links to the shared files
# (../shared/datasets, read in place: nothing of them is copied, and nothing
# here goes into the source tree):
#   generated  `lcplab generate` of every family at n = 3, 6, 9, converted by
#              `lcplab convert` to every format that holds them; `lcplab
#              export` of small scenes (stack, pyramid, pile, dominoes, ball,
#              chain, car) with box, pyramid and cone friction, in every
#              format, with their impulse vectors (.x);
#   shared     the Siconos .dat files up to 64 KiB (siconos), the FCLIB
#              .hdf5 files up to 160 KiB (8 of the 11 in fclib/, siconos/fc3d
#              and siconos/gfc3d: local and global problems; the three
#              larger ones cost 1 to 3 s per execution, run_fuzz.sh), the
#              MATLAB .mat files up to 64 KiB (mat: the DCA-BL benchmark);
#   in tree    experiments/*.exp and tests/fuzz/seeds/<harness>/ (small
#              hand-written seeds); the scene seeds are written from
#              `lcplab simulate --help` (every scene, its keys at their
#              defaults, counts made small).
# A MatrixMarket seed is one file: the .mtx, then "@@b", "@@lo", ... lines
# each followed by that sidecar (the layout fuzz_mtx.c splits).
# Prints "seeds: HARNESS N" per harness.  Exit 0, or 2 when a tool is missing.
set -uo pipefail

build=${1:?usage: build_seeds.sh BUILDDIR SRCDIR OUTDIR}
src=${2:?usage: build_seeds.sh BUILDDIR SRCDIR OUTDIR}
out=${3:?usage: build_seeds.sh BUILDDIR SRCDIR OUTDIR [bench|quick]}
mode=${4:-bench}
lcplab=$build/cli/lcplab
shared=${LCPLAB_SHARED:-$src/../shared}/datasets
[ -x "$lcplab" ] || { echo "build_seeds.sh: $lcplab not built" >&2; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

harnesses="blcp experiment fclib lcplab mat mtx scene siconos vector"
rm -rf "$out"
for h in $harnesses; do mkdir -p "$out/$h"; done
work=$(mktemp -d "${TMPDIR:-/tmp}/lcplab-seeds.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gen" "$work/conv" "$work/export"

# ---- generated instances, in every format that holds them -------------------
[ "$mode" = quick ] && gen_families="" || gen_families="spd contact boxed-findex box joints"
for fam in $gen_families; do
  for n in 3 6 9; do
    "$lcplab" generate --type "$fam" --n "$n" --seed "$n" --out "$work/gen/${fam}_$n.lcp" >/dev/null 2>&1
  done
done
convert_all() { # DIR: each .lcp in it to every format that holds it, into $work/conv
  local f b ext
  for f in "$1"/*.lcp; do
    [ -f "$f" ] || continue
    b=$(basename "$(dirname "$f")")_$(basename "$f" .lcp)
    for ext in dat blcp mtx hdf5; do
      "$lcplab" convert "$f" "$work/conv/$b.$ext" >/dev/null 2>&1
    done
  done
}
convert_all "$work/gen"

# ---- exported scene steps ------------------------------------------------------
export_scene() { # NAME FRICTION SOLVER PARAMS...: lcplab's format, converted below
  local scene=$1 fr=$2 solver=$3
  shift 3
  local params=()
  for p in "$@"; do params+=(--param "$p"); done
  "$lcplab" export --scene "$scene" "${params[@]}" --friction "$fr" --solver "$solver" \
    --format lcplab --steps 40 --every 13 --out "$work/export/${scene}_$fr" --force >/dev/null 2>&1
}
[ "$mode" = quick ] && frictions="" || frictions="box pyramid cone"
for fr in $frictions; do
  solver=pgs
  [ "$fr" = cone ] && solver=nsgs
  export_scene stack "$fr" "$solver" n=3
  export_scene pyramid "$fr" "$solver" layers=2
  export_scene pile "$fr" "$solver" n=6 seed=2
  export_scene dominoes "$fr" "$solver" n=3
done
if [ "$mode" != quick ]; then
  export_scene ball box pgs
  export_scene chain box pgs n=3
  export_scene car box pgs
  export_scene door box pgs
fi
for d in "$work"/export/*; do convert_all "$d"; done

# ---- arrange per harness ---------------------------------------------------------
n=0
copy() { # FILE HARNESS: a generated file into the harness's seeds
  n=$((n + 1))
  cp "$1" "$out/$2/$n-$(basename "$1")"
}
link() { # FILE HARNESS: a shared file, read in place
  n=$((n + 1))
  ln -s "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" "$out/$2/$n-$(basename "$1")"
}
mtx_seed() { # FILE.mtx: one file with its sidecars after marker lines
  local base=${1%.mtx} s
  n=$((n + 1))
  {
    cat "$1"
    for s in b lo hi findex mu; do
      [ -f "$base.$s" ] && { echo "@@$s"; cat "$base.$s"; }
    done
  } >"$out/mtx/$n-$(basename "$1")"
}

while IFS= read -r f; do
  case $f in
    *.dat) copy "$f" siconos ;;
    *.blcp) copy "$f" blcp ;;
    *.lcp) copy "$f" lcplab ;;
    *.hdf5) copy "$f" fclib ;;
    *.mtx) mtx_seed "$f" ;;
    *.x | *.b | *.lo | *.hi | *.mu) copy "$f" vector ;;
  esac
done < <(find "$work/gen" "$work/conv" "$work/export" -type f | sort)

if [ -d "$shared" ]; then
  while IFS= read -r f; do link "$f" siconos; done < <(find "$shared/siconos" -name '*.dat' -size -65k | sort)
  while IFS= read -r f; do link "$f" fclib; done < <(find "$shared" -name '*.hdf5' -size -160k | sort)
  while IFS= read -r f; do link "$f" mat; done < <(find "$shared" -name '*.mat' -size -64k | sort)
fi
# the experiment files, but those whose model= lines name MuJoCo's own sample
# models: the parser reads a model file as it reads the line, and MuJoCo's arena
# for 22_humanoids.xml is one 517 MB allocation, past the harness's malloc limit
# (run_fuzz.sh): the size of a legitimate model, not of the fuzzer's input
for f in "$src"/experiments/*.exp; do
  grep -q 'model=/usr/share/mujoco' "$f" || link "$f" experiment
done
for h in $harnesses; do
  if [ -d "$src/tests/fuzz/seeds/$h" ]; then
    for f in "$src/tests/fuzz/seeds/$h"/*; do [ -f "$f" ] && link "$f" "$h"; done
  fi
done

# ---- scene seeds from the scene list -------------------------------------------
# "  NAME  summary: key=value key=value": every scene at its defaults, counts
# (n, layers) at 3, and a second seed with world options.
"$lcplab" simulate --help 2>/dev/null | sed -n '/^scenes:/,/^$/p' | tail -n +2 |
  while read -r name rest; do
    [ -n "$name" ] || continue
    params=""
    for kv in ${rest##*:}; do
      case $kv in
        n=* | layers=*) kv="${kv%%=*}=3" ;;
        *=*) ;;
        *) continue ;;
      esac
      params="$params --param $kv"
    done
    echo "--scene $name$params" >"$out/scene/$name"
    echo "--scene $name$params --dt 1/240 --friction cone --solver nsgs --eta 8 --tol 1e-6" \
      >"$out/scene/$name-options"
  done

for h in $harnesses; do
  echo "seeds: $h $(find "$out/$h" -mindepth 1 -maxdepth 1 | wc -l)"
done
exit 0
