/* solve_gradient.c -- `lcplab solve FILE --sensitivity GX --gradient OUT`:
 * the gradients of <gx, x> on the problem's b, lo, hi and mu at the
 * solve's answer (libsolvers' slv_sensitivity_vjp; docs/gradients.md),
 * written as CSV:
 *
 *     row,mode,gb,glo,ghi,gmu
 *
 * one line per row, mode "free", "lower", "upper" or "sliding" with
 * "+degenerate" where the row is weakly active (a cone's mu gradient at its
 * first row).  GX holds the cotangent: exactly n finite values (read as a
 * --warm start is, io_read_start).  Refused (exit 2, the message naming
 * GX or OUT): GX of another length, a NaN or inf in it, OUT an input or
 * an existing file without --force, a singular free block (the derivative
 * is not unique).  An answer the judge did not accept gets no gradient (a
 * line on stderr; the solve's exit status 3 stands).
 */
#include "cli.h"
#include "io.h"
#include "slv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *mode_name(unsigned char m) {
  static const char *const names[] = { "free", "lower", "upper", "sliding" };
  return names[m & 3];
}

int cli_gradient_read(const char *gxfile, int n, double **gx) {
  char err[512] = "";
  *gx = calloc(n > 0 ? (size_t)n : 1, sizeof **gx);
  if (!*gx) {
    cli_error("%s: out of memory for %d values", gxfile, n);
    return CLI_EXIT_USAGE;
  }
  if (io_read_start(gxfile, n, *gx, err, sizeof err) != SLV_OK) {
    cli_error_lib(gxfile, err);
    return CLI_EXIT_USAGE;
  }
  for (int i = 0; i < n; i++)
    if (!isfinite((*gx)[i])) {
      cli_error("%s: value %d (row %d) is %g: the cotangent must be finite", gxfile, i + 1, i,
                (*gx)[i]);
      return CLI_EXIT_USAGE;
    }
  return -1;
}

/* The CSV of the gradients into out.  0, or -1 (message given). */
static int write_csv(const char *out, int n, const unsigned char *modes, const double *g) {
  FILE *f = fopen(out, "w");
  if (!f) {
    cli_error("%s: cannot open for writing", out);
    return -1;
  }
  fprintf(f, "row,mode,gb,glo,ghi,gmu\n");
  for (int i = 0; i < n; i++)
    fprintf(f, "%d,%s%s,%.17g,%.17g,%.17g,%.17g\n", i, mode_name(modes[i]),
            modes[i] & SLV_ROW_DEGENERATE ? "+degenerate" : "", g[i], g[n + i],
            g[2 * (size_t)n + i], g[3 * (size_t)n + i]);
  if (fclose(f) != 0) {
    cli_error("%s: write failed", out);
    return -1;
  }
  return 0;
}

int cli_gradient_write(const char *out, const slv_problem *p, const double *x, double tol,
                       const double *gx) {
  char msg[512] = "";
  slv_sensitivity *s = NULL;
  int n = p->n, rc = -1;
  double *g = malloc(4 * (size_t)(n > 0 ? n : 1) * sizeof *g);
  slv_status st = g ? slv_sensitivity_new(p, x, tol, &s, msg, sizeof msg) : SLV_ERR_NOMEM;
  if (st == SLV_OK)
    st = slv_sensitivity_vjp(s, n, gx, NULL, g, g + n, g + 2 * (size_t)n, g + 3 * (size_t)n, msg,
                             sizeof msg);
  if (st != SLV_OK)
    cli_error("%s: no gradient (%s): %s", out, slv_status_str(st), msg[0] ? msg : "out of memory");
  else if (write_csv(out, n, slv_sensitivity_modes(s), g) == 0)
    rc = 0;
  slv_sensitivity_free(s);
  free(g);
  return rc;
}
