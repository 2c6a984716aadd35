# run-tests.mk -- the stages of scripts/run-tests.sh as targets of one make
# run, so that they share its job slots: `make -j2 -f run-tests.mk` keeps
# two jobs running on the two cores from the first configure to the last
# test, where the stages one after the other left a core idle during each
# configure, link and slow last test (experiments/records/
# 2026-11-28-test-time-4.md).  A stage's make runs inside this one's
# jobserver (LCPLAB_MAKE_J empty: no -j of its own), so the whole run never
# has more than two jobs.  Each recipe is run-tests.sh --run-stage, which
# writes the stage's log and result under test-logs/ and always succeeds:
# a failed stage does not stop the independent ones, as before.
#
# Order: install, valgrind and slurm use build/ after the check stage
# built it; valgrind and slurm after install, which relinks in build/.  The
# sanitizer and fuzz stages have their own trees.  The sanitizer stage holds
# one slot from the start; check, install, fuzz and valgrind follow one
# another in the other, and that chain is the longer one.  valgrind comes
# last in it: its many test programs take up the second slot when the
# sanitizer stage ends, where fuzz's last part (the command line's tests,
# one after the other) could not (experiments/records/
# 2026-11-29-test-time-9.md; before, fuzz waited for valgrind:
# 2026-11-28-test-time-4.md).  slurm (17 s, mostly waiting for its
# daemons) waits for the sanitizer stage and takes the slot it frees:
# ready after install alone, it was started before valgrind when fuzz
# ended, and delayed it by its 17 s.

# The checkout's folder comes as LCPLAB_TESTS_ROOT in the environment and is
# read by the shell inside double quotes: a folder named with a blank, a
# quote, $( ), a backquote or ; is a name, never make or shell syntax.
RUN = +@LCPLAB_MAKE_J= bash "$$LCPLAB_TESTS_ROOT/scripts/run-tests.sh" --run-stage

.PHONY: all check sanitizers install valgrind fuzz slurm distcheck
all: check sanitizers install valgrind fuzz slurm

check:
	$(RUN) check 1800 build stage_check
sanitizers:
	$(RUN) sanitizers 2400 build-san stage_san
install: check
	$(RUN) install 200 build stage_install
valgrind: install fuzz
	$(RUN) valgrind 1200 build stage_valgrind
fuzz: install
	$(RUN) fuzz 900 build-fuzz stage_fuzz
slurm: install sanitizers
	$(RUN) slurm 300 build stage_slurm
distcheck: all
	$(RUN) distcheck 3600 build stage_distcheck
