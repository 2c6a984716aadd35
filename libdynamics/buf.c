/*
 * buf.c -- dyn_buf (world_internal.h): the growable array behind every
 * buffer of a dyn_world.  Growth is geometric (x 1.5 from 16 elements), so
 * a scene whose sizes settle stops allocating; each growth is counted
 * (dyn_world_grow_count).
 */
#include "world_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* p (old bytes in use, NULL when none) moved into a block of `bytes`:
 * realloc, or from SLV_LARGE_BYTES on slv_alloc_large's memory (huge
 * pages for the arrays a step walks over: the rows, the contacts, the
 * assembly's arrays) with the old contents copied; NULL (p kept) when
 * memory is short. */
static void *grown_alloc(void *p, size_t old, size_t bytes) {
  if (bytes < SLV_LARGE_BYTES) return realloc(p, bytes);
  void *q = slv_alloc_large(bytes);
  if (!q) return NULL;
  if (p) memcpy(q, p, old);
  free(p);
  return q;
}

int dyn_buf_raw_reserve(void *pp, size_t *cap, size_t need, size_t elem, long *grows) {
  /* pp points at a T *; it is read and written as bytes, so that no T ** is
   * accessed through a void ** (every object pointer has void *'s
   * representation on the platforms lcplab builds on: POSIX) */
  void *p;
  memcpy(&p, pp, sizeof p);
  if (need <= *cap && p) return 0;
  size_t nc = *cap > 16 ? *cap : 16;
  while (nc < need) nc += nc / 2;
  if (nc > SIZE_MAX / elem) return -1;
  void *q = grown_alloc(p, *cap * elem, nc * elem);
  if (!q) return -1;
  memcpy(pp, &q, sizeof q);
  *cap = nc;
  (*grows)++;
  return 0;
}
