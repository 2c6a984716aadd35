#!/bin/sh
# 2026-11-27-house2-cmp.sh BEFORE_BIN AFTER_BIN OUT: cone solvers on FC3D files, solutions + JSON (time fields dropped)
B=$1 A=$2 O=$3; mkdir -p $O/b $O/a
D=/work/shared/datasets/siconos/fc3d
same=0 diff=0
for f in Capsules-i100-889.dat Confeti-ex13-4contact-Fc3D-SBM.dat FC3D_Example1.dat NESpheres_10_1.dat Rover4516.dat Rover1039.dat OneObject-i1028-138.hdf5.dat KaplasTower-i1061-4.hdf5.dat; do
  for s in nsgs nsgs_newton nsn_ac ppa_nsn pjacobi_cone pcg_cone apgd admm ipm auto; do
    for side in b a; do
      bin=$B; [ $side = a ] && bin=$A
      timeout 60 $bin solve $D/$f --solver $s --json --solution $O/$side/$f.$s.x 2>&1 | sed 's/"time[a-z_]*":[^,}]*//g; s/"[a-z_]*_s":[^,}]*//g' > $O/$side/$f.$s.json
    done
    if cmp -s $O/b/$f.$s.x $O/a/$f.$s.x && cmp -s $O/b/$f.$s.json $O/a/$f.$s.json; then same=$((same+1)); else diff=$((diff+1)); echo "DIFF $f $s"; fi
  done
done
echo "$same same, $diff differ"
