# tst_python.sh -- the environment of a test that runs the build's Python
# package (python/tests/run_pytest.sh, tests/test_paper_gen.sh); sourced, not
# run.
#
# tst_python_env exports PYTHONPATH (LCPLAB_PYTHONPATH, the build's python/,
# first) and, in a sanitizer build (LCPLAB_SAN_FLAGS holding address),
# LD_PRELOAD of the sanitizer runtimes (the extension needs it loaded before
# the interpreter's own libraries; LCPLAB_CC says where it is) and
# ASAN_OPTIONS detect_leaks=0 (the interpreter keeps its allocations until
# exit).  It returns 1 after a "SKIP: ..." line when that runtime is missing.
tst_python_env() {
  PYTHONPATH=${LCPLAB_PYTHONPATH:+$LCPLAB_PYTHONPATH}${PYTHONPATH:+:$PYTHONPATH}
  export PYTHONPATH
  case ${LCPLAB_SAN_FLAGS:-} in
    *address*)
      tst_asan=$(${LCPLAB_CC:-cc} -print-file-name=libasan.so)
      # the second runtime: libubsan; --enable-sanitizers=trap links none,
      # and there libstdc++ must be in when libasan starts (configure.ac,
      # SAN_LDFLAGS)
      case $LCPLAB_SAN_FLAGS in
        *-fsanitize-undefined-trap-on-error*) tst_also=libstdc++.so ;;
        *) tst_also=libubsan.so ;;
      esac
      tst_also=$(${LCPLAB_CC:-cc} -print-file-name="$tst_also")
      if [ ! -f "$tst_asan" ]; then
        echo "SKIP: sanitizer build, but no libasan.so to preload ($tst_asan)"
        return 1
      fi
      LD_PRELOAD="$tst_asan${tst_also:+ $tst_also}${LD_PRELOAD:+ $LD_PRELOAD}"
      ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 # the last one wins
      export LD_PRELOAD ASAN_OPTIONS
      ;;
  esac
}
