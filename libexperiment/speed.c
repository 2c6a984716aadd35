/* speed.c -- the CPU's speed while a task is timed (experiments/README.md,
 * "Timing").
 *
 * On the 2-core development machine a CPU with nothing else of ours on it
 * still runs slower for spells of a tenth of a second to a second (the
 * host's and the other CPU's work sharing its caches), and the same solve
 * timed in two passes could differ by nearly twice
 * (experiments/records/2026-11-28-timing.md).  A timed task therefore
 * checks the CPU's speed every EXP_SPEED_BLOCK_S of runs with a fixed
 * reference loop: the runs of a block after which the loop ran more than
 * EXP_SPEED_SLACK slower than the fastest this process has seen are made
 * again, unless the slow spell has lasted EXP_SPEED_SPELL_S (task.c,
 * measure).  exp_speed holds the worker's fastest reference and the counts
 * each task's result and its section's timing CSV report.
 *
 * Nothing is waited out on a machine where slow is the usual: once the
 * worker has made EXP_SPEED_NORM_CHECKS checks and more than half of them
 * found the CPU slow.  There the fastest reference is a rare moment, not
 * the machine's speed, and the checks cannot tell a spell from the usual.
 * On the 2-core VM of 2026-11-30, 88 % of the main job's checks were slow,
 * and making their blocks again took 89 s of its 326 s, with no less
 * between-pass noise than keeping them
 * (experiments/records/2026-11-30-speed-guard.md).  The runs are then
 * kept and counted as slow, as after a long spell.
 */
#include "exp_task.h"

#include <stdlib.h>

/* One run of the reference: four independent multiply-add chains over
 * EXP_SPEED_WORDS doubles (64 KB: more than the L1 cache holds), about
 * 2 us.  Independent loads from the L2 cache are what slows down when the
 * caches are shared; a dependent chain of arithmetic hardly does (the
 * record).  The sink keeps it from being optimized away. */
static double reference_s(const double *buf, volatile double *sink) {
  double t0 = exp_now_s();
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (int i = 0; i < EXP_SPEED_WORDS; i += 4) {
    s0 += buf[i] * 1.0001;
    s1 += buf[i + 1] * 0.9999;
    s2 += buf[i + 2] * 1.0002;
    s3 += buf[i + 3] * 0.9998;
  }
  *sink = s0 + s1 + s2 + s3;
  return exp_now_s() - t0;
}

double exp_speed_probe(exp_speed *sp, int reps) {
  volatile double sink = 0.0;
  const double *buf = sp->buf;
  double best = reference_s(buf, &sink);
  for (int r = 1; r < reps; r++) {
    double t = reference_s(buf, &sink);
    if (t < best) best = t;
  }
  return best;
}

int exp_speed_check(exp_speed *sp) {
  /* the buffer once per worker, outside any solve; without it, no check */
  if (!sp->buf && !(sp->buf = calloc(EXP_SPEED_WORDS, sizeof *sp->buf))) return 1;
  if (!(sp->best_s > 0.0)) sp->best_s = exp_speed_probe(sp, EXP_SPEED_CALIBRATE);
  double t = exp_speed_probe(sp, EXP_SPEED_REPS), now = exp_now_s();
  sp->checks++;
  if (t < sp->best_s) sp->best_s = t;
  if (t <= sp->best_s * (1.0 + EXP_SPEED_SLACK)) {
    sp->slow_since = 0.0;
    return 1;
  }
  sp->slow++;
  if (!(sp->slow_since > 0.0)) sp->slow_since = now;
  return 0;
}

int exp_speed_slow_usual(const exp_speed *sp) {
  return sp->checks >= EXP_SPEED_NORM_CHECKS && 2 * sp->slow > sp->checks;
}

int exp_speed_waits(const exp_speed *sp) {
  return sp->slow_since > 0.0 && exp_now_s() - sp->slow_since < EXP_SPEED_SPELL_S &&
         !exp_speed_slow_usual(sp);
}
