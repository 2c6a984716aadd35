#!/usr/bin/env python3
"""time_split.py -- where a campaign's time went, per section, from its own task results.

    python3 experiments/time_split.py RESULTS/campaign

Each task result (campaign/results/tNNNNNN.res, libexperiment/result.c) records its section
(the `spec` line), its `elapsed` seconds and, as the file's modification time, when it
ended. Per section: the tasks, the sum of their elapsed seconds, and the span from the first
task's start (end - elapsed) to the last task's end; then the span of all tasks. The timed
kinds (profile, scaling, convergence, scenes, gradients) run one task at a time
(experiments/README.md, "Tasks, timing and statuses"), so their sums add up on one core.
"""
import glob
import os
import sys


def task(path):
    """(section, kind, elapsed, end) of one result file."""
    sec = kind = None
    elapsed = 0.0
    with open(path) as fh:
        for line in fh:
            if line.startswith('spec '):
                f = line.split()
                sec, kind = f[2], f[3]
            elif line.startswith('elapsed '):
                elapsed = float(line.split()[1])
                break
    return sec, kind, elapsed, os.path.getmtime(path)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write('usage: time_split.py RESULTS/campaign\n')
        return 2
    files = glob.glob(os.path.join(argv[1], 'results', 't*.res'))
    if not files:
        sys.stderr.write('time_split.py: %s: no task results (results/t*.res)\n' % argv[1])
        return 2
    per, order = {}, []
    for path in sorted(files):
        sec, kind, el, end = task(path)
        if sec not in per:
            order.append(sec)
            per[sec] = [kind, 0, 0.0, end - el, end]
        p = per[sec]
        p[1] += 1
        p[2] += el
        p[3] = min(p[3], end - el)
        p[4] = max(p[4], end)
    t0 = min(p[3] for p in per.values())
    print('section,kind,tasks,elapsed_sum_s,first_start_s,last_end_s')
    for sec in order:
        kind, n, s, a, b = per[sec]
        print('%s,%s,%d,%.1f,%.1f,%.1f' % (sec, kind, n, s, a - t0, b - t0))
    print('all,,%d,%.1f,0.0,%.1f' % (sum(p[1] for p in per.values()), sum(p[2] for p in per.values()),
                                     max(p[4] for p in per.values()) - t0))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
