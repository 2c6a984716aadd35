/*
 * dyn_system_internal.h -- the buffers of a dyn_system, shared by
 * system.c (their allocation) and assemble.c (their use); never
 * installed.
 */
#ifndef DYN_SYSTEM_INTERNAL_H
#define DYN_SYSTEM_INTERNAL_H

#include <stddef.h>

#include "dyn_constraint.h"

struct dyn_system {
  int max_rows, max_nb;
  unsigned storages;
  long max_nnz;
  /* the problem view's arrays */
  double *A;    /* dense, max_rows^2 (DYN_SYS_DENSE) */
  int *Ap, *Aj; /* CSR (DYN_SYS_CSR) */
  double *Ax;
  double *b, *lo, *hi, *mu, *cone_mu;
  int *findex, *cone_rows;
  /* kept for dyn_apply_impulse */
  int *rbody;    /* 2 per row, -1 for static / none */
  double *J;     /* 12 per row */
  double *G;     /* 12 per row: M^-1 J^T per side */
  double *Minv;  /* 10 per body: m^-1, world I^-1 (row-major) */
  double *siso;  /* 1 per body: s if its world I^-1 is s 1 (isotropic: dyn_m3_scalar), else NaN */
  double *ufree; /* 6 per body: u + h M^-1 f, the free velocity in b */
  int *bdyn;     /* nb: 1 for a dynamic body (is_static read once per body) */
  double *dv;    /* 6 per body: dyn_apply_impulse's velocity changes */
  double *cfm;   /* max_rows: the diagonal term (factored storage, dyn_system_velocity_form) */
  double *rhs;   /* max_rows: each row's rhs (the energy rule's, dyn_system_energy_form) */
  int *bptr;     /* nb + 1: row list of each body (dense and CSR storage) */
  int *blist;    /* 2 max_rows entries: 2 row + side */
  int *aux_of;   /* max_rows: the aux row coupled to a beta row, or -1 */
  int *mark;     /* max_rows: CSR column marker */
  int nrows, nb; /* of the last successful assembly (nrows -1: none) */
  int threads;   /* dyn_system_threads_reserve (0, 1: one) */
  int *tcnt;     /* build_lists on threads: the runs' counts per body */
  size_t tcnt_cap;
  char msg[200];
};

#endif /* DYN_SYSTEM_INTERNAL_H */
