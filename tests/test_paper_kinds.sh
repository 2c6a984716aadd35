#!/bin/sh
# test_paper_kinds.sh -- the kinds of contradiction paper_checks.py fails the paper's
# build on (issue 84: a caption's file name without its section, per-class counts
# against the problem list, two tie factors, refusals in some denominators only,
# LaTeX's "Rerun" warning), each planted and seen reported: tests/paper_kinds_planted.py.
# Exit: 0 all passed, 1 any failure, 77 skipped (no python3).
SRC=${LCPLAB_SRCDIR:-$(dirname "$0")/..}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
exec python3 "$SRC/tests/paper_kinds_planted.py"
