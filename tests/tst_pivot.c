/* tst_pivot.c -- see tst_pivot.h. */
#include "tst_pivot.h"

#include <string.h>

const double tst_cyc4_A[16] = { 1.1146, -0.7486, -1.2796, -0.123, -0.7486, 0.8244,
                                1.1689, -0.0909, -1.2796, 1.1689, 1.8993,  -0.0844,
                                -0.123, -0.0909, -0.0844, 0.6411 };
const double tst_cyc4_b[4] = { -2.5153, 0.0407, 2.8439, 0.9651 };
/* column-major: A = [[1.498, -1.59, 1.477], [2.708, 0.752, -0.614],
 * [2.365, -1.78, 3.329]] by rows */
const double tst_cyc3_A[9] = { 1.498, 2.708, 2.365, -1.59, 0.752, -1.78, 1.477, -0.614, 3.329 };
const double tst_cyc3_b[3] = { -0.435, 1.903, -2.227 };

void tst_block_diag(int n1, const double *A1, const double *b1, int n2, const double *A2,
                    const double *b2, double *A, double *b) {
  int n = n1 + n2;
  memset(A, 0, (size_t)n * n * sizeof *A);
  for (int j = 0; j < n1; j++) {
    memcpy(A + (size_t)j * n, A1 + (size_t)j * n1, (size_t)n1 * sizeof *A);
    b[j] = b1[j];
  }
  for (int j = 0; j < n2; j++) {
    memcpy(A + (size_t)(n1 + j) * n + n1, A2 + (size_t)j * n2, (size_t)n2 * sizeof *A);
    b[n1 + j] = b2[j];
  }
}

void tst_log_line(void *ctx, const char *line) {
  tst_log *log = ctx;
  size_t k = strlen(line);
  if (log->len + k + 2 > sizeof log->text) return;
  memcpy(log->text + log->len, line, k);
  log->len += k;
  log->text[log->len++] = '\n';
  log->text[log->len] = '\0';
}

const char *tst_log_find(const tst_log *log, const char *prefix) {
  size_t k = strlen(prefix);
  for (const char *s = log->text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
    if (strncmp(s, prefix, k) == 0) return s;
  return NULL;
}
