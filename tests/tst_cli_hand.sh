# tst_cli_hand.sh -- shared by test_cli.sh, test_cli_input.sh and
# test_cli_convert.sh (the lcplab command line, split by topic so that
# `make -j2 check-valgrind` runs them side by side); sourced, not run.  The
# caller sets TST_NAME before sourcing.
#
# Provides what tst_cli_lib.sh does, and: close FILE V1 V2 ..., json_field
# NAME, and three hand-derived problems in $T (w = M x + q, 0 <= x _|_ w >=
# 0; Siconos .dat files store M column-major, one column per text line):
#   sym.dat:    M = [[2,1],[1,2]], q = [-5,-6].  Guess both x_i > 0, so w = 0:
#               2 x1 + x2 = 5, x1 + 2 x2 = 6  ->  x1 = 4/3, x2 = 7/3 (both > 0:
#               the guess holds; M is SPD so this is the unique solution).
#   nonsym.dat: M = [[2,1],[0,2]] (row-major), q = [-5,-6].  Both x_i > 0:
#               2 x2 = 6 -> x2 = 3;  2 x1 + 3 = 5 -> x1 = 1.  Read transposed
#               (M^T = [[2,0],[1,2]]) it would give x = (2.5, 1.75), so this
#               catches any orientation error in a reader/writer pair.
#   free.blcp:  .blcp (ODE convention A x = b + w) with A = [[2,1],[1,2]],
#               b = [5,6], lo = -inf, hi = +inf: w = 0, so A x = b and again
#               x = (4/3, 7/3); the `direct` solver takes it.

# shellcheck source=tst_cli_lib.sh
. "$(dirname "${BASH_SOURCE:-$0}")/tst_cli_lib.sh"

# close FILE V1 V2 ... : FILE has exactly these values, one per line, each to 1e-10.
close() {
  cf_file=$1
  shift
  awk -v want="$*" 'BEGIN { n = split(want, e, " ") }
    { v[NR] = $1 + 0; if (NF != 1) bad = 1 }
    END {
      if (bad || NR != n) exit 1
      for (i = 1; i <= n; i++) { d = v[i] - e[i]; if (d < 0) d = -d; if (!(d <= 1e-10)) exit 1 }
    }' "$cf_file"
}

# json_field NAME: the raw value of a top-level scalar field of $T/out.
json_field() {
  sed -nE 's/.*"'"$1"'":("[^"]*"|[^,}]*).*/\1/p' "$T/out" | head -n 1
}

# the hand-derived problems of the header
cat >"$T/sym.dat" <<'EOF'
2
0
2
2
2	2
2 1
1 2
-5 -6
EOF
# nonsym, column-major: column 1 = (2, 0), column 2 = (1, 2).
cat >"$T/nonsym.dat" <<'EOF'
2
0
2
2
2	2
2 0
1 2
-5 -6
EOF
cat >"$T/free.blcp" <<'EOF'
# A x = b + w, A row-major
2
2 1
1 2
5 6
-inf -inf
inf inf
EOF
