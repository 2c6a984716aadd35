#!/usr/bin/env python3
"""peak_memory.py -- runs a program and prints one line: a label, its wall
seconds and its peak resident memory in MB (Python's resource module), the
fallback of experiments/bench_plan.sh where GNU time is not installed.

    python3 experiments/peak_memory.py LABEL PROGRAM [ARGS...]

The program's output is discarded; its failure is this script's (exit 1,
Python's CalledProcessError), as bench_plan.sh runs under `set -e`.
"""
import resource
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: peak_memory.py LABEL PROGRAM [ARGS...]\n")
        return 2
    t0 = time.monotonic()
    subprocess.run(argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.monotonic() - t0
    kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print("%s  %8.2f s  %8.1f MB" % (argv[1], wall, kb / 1024.0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
