/* fuzz_experiment.c -- libFuzzer harness: the experiment-file parser,
 * exp_config_read (libexperiment/config.c; tests/fuzz/README.md).
 *
 * The input is the experiment file's bytes, FZ_DIR "in.exp" in memory (the
 * parser's fopen is wrapped, fuzz_util.h), with the variables N=10,
 * FAMILY=spd, SCENE=pile, SOLVER=pgs and DIR=/tmp defined as by `--var`.
 * The parser must return -1 (parsed) or 2 (one error line on stderr,
 * which libFuzzer's -close_fd_mask=2 silences), and a parsed file must be
 * consistent: at least one section, each with problems and solvers (none
 * only when the externals it named are absent, and named so), the
 * solvers registered ones or externals the file declares, the counts within
 * their arrays.  Instance paths
 * are checked with stat() on the real file system: only ones that exist
 * there (/tmp, /) pass. */
#include "fuzz_util.h"
#include "exp_internal.h"

static void check_section(const exp_config *cfg, const exp_section *s) {
  if (s->kind < 0 || s->kind >= EXP_KIND_COUNT) fz_fail("section kind %d", (int)s->kind);
  if (s->nsrc < 1 || s->nsrc > s->capsrc || !s->src)
    fz_fail("section '%s': %d sources", s->name, s->nsrc);
  /* no solver only when every one it named is an absent external (named in absent) */
  if (s->nsolvers < (s->absent[0] ? 0 : 1) || s->nsolvers > EXP_MAX_SOLVERS)
    fz_fail("section '%s': %d solvers", s->name, s->nsolvers);
  for (int k = 0; k < s->nsolvers; k++) {
    const exp_solver_ref *r = &s->solvers[k];
    int found = 0;
    if (r->sv) /* a registered solver */
      for (int i = 0; i < slv_solver_count(); i++) found |= slv_solver_at(i) == r->sv;
    else /* an external one, declared in the file */
      found = r->ext >= 0 && r->ext < cfg->next;
    if (!found) fz_fail("section '%s': solver %d is neither registered nor external", s->name, k);
  }
  if (s->ntol < 0 || s->ntol > EXP_MAX_TOLS || s->nint < 0 || s->nint > 3)
    fz_fail("section '%s': ntol %d, nint %d", s->name, s->ntol, s->nint);
  for (int k = 0; k < s->nsrc; k++)
    if (s->src[k].nparams < 0 || s->src[k].nparams > EXP_MAX_PARAMS)
      fz_fail("section '%s': %d scene parameters", s->name, s->src[k].nparams);
}

/* Counts the error lines the library hands to its sink. */
static void count_errors(void *ctx, exp_say_kind kind, const char *line) {
  (void)line;
  if (kind == EXP_SAY_ERROR) (*(int *)ctx)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const exp_vars vars = { { "N=10", "FAMILY=spd", "SCENE=pile", "SOLVER=pgs", "DIR=/tmp" },
                                 5 };
  fz_file_put(FZ_DIR "in.exp", data, size);
  exp_config cfg;
  int errors = 0;
  const exp_log log = { count_errors, &errors };
  int rc = exp_config_read(FZ_DIR "in.exp", NULL, &vars, &log, &cfg);
  if (rc != -1 && rc != EXP_EXIT_USAGE) fz_fail("exp_config_read returned %d", rc);
  if ((rc == -1) != (errors == 0))
    fz_fail("exp_config_read returned %d after %d error lines (one, or none on success)", rc,
            errors);
  if (rc == -1) {
    if (cfg.nsec < 1) fz_fail("parsed a file without sections");
    for (int i = 0; i < cfg.nsec; i++) check_section(&cfg, &cfg.sec[i]);
  }
  exp_config_free(&cfg);
  fz_files_clear();
  return 0;
}
