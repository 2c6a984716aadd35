/*
 * model_names.c -- the name index of each kind of record of a dyn_model
 * (model_internal.h): names are unique among the records of one kind, and
 * dyn_model_find_* looks them up in O(1).
 *
 * Open addressing with linear probing on a 64-bit hash of the name (FNV-1a
 * over its bytes, then dyn_mix64 so that every byte reaches the slot bits),
 * at most half full; a slot holds the record's index, -1 when empty.  The
 * index keeps no copy of the names: every record struct starts with its
 * name, so record i's name is at base + i stride.  Nothing is removed: a
 * rename rebuilds the index of that kind (dyn_names_rebuild), O(records).
 */
#include "model_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t name_hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a offset basis */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return dyn_mix64(h);
}

static const char *name_at(const void *base, size_t stride, int i) {
  return (const char *)base + (size_t)i * stride;
}

int dyn_names_find(const dyn_name_index *x, const void *base, size_t stride, const char *name) {
  if (!name || !name[0] || x->cap == 0) return -1;
  size_t s = (size_t)name_hash(name) & (x->cap - 1);
  for (; x->slot[s] >= 0; s = (s + 1) & (x->cap - 1))
    if (strcmp(name_at(base, stride, x->slot[s]), name) == 0) return x->slot[s];
  return -1;
}

/* Enter i in a table with room (no growth, no duplicate check). */
static void put(dyn_name_index *x, const char *name, int i) {
  size_t s = (size_t)name_hash(name) & (x->cap - 1);
  while (x->slot[s] >= 0) s = (s + 1) & (x->cap - 1);
  x->slot[s] = i;
  x->count++;
}

/* A table of cap slots (a power of two), all empty; -1 on memory shortage
 * (the old one kept). */
static int table_alloc(dyn_name_index *x, size_t cap) {
  int *p = malloc(cap * sizeof *p);
  if (!p) return -1;
  for (size_t s = 0; s < cap; s++) p[s] = -1;
  free(x->slot);
  x->slot = p;
  x->cap = cap;
  x->count = 0;
  return 0;
}

int dyn_names_rebuild(dyn_name_index *x, const void *base, size_t stride, int n) {
  int named = 0;
  for (int i = 0; i < n; i++) named += name_at(base, stride, i)[0] != '\0';
  size_t cap = 16;
  while (cap < 2 * (size_t)named + 2) cap *= 2;
  if (table_alloc(x, cap) != 0) return -1;
  for (int i = 0; i < n; i++)
    if (name_at(base, stride, i)[0]) put(x, name_at(base, stride, i), i);
  return 0;
}

int dyn_names_insert(dyn_name_index *x, const void *base, size_t stride, const char *name, int i) {
  if (!name[0]) return 0;
  if (2 * ((size_t)x->count + 1) > x->cap) {
    /* double, and put the named records back (they are base[0 .. i - 1]
     * plus the new one, which the caller has not stored yet) */
    dyn_name_index y = { NULL, 0, 0 };
    if (table_alloc(&y, x->cap ? 2 * x->cap : 16) != 0) return -1;
    for (size_t s = 0; s < x->cap; s++)
      if (x->slot[s] >= 0) put(&y, name_at(base, stride, x->slot[s]), x->slot[s]);
    free(x->slot);
    *x = y;
  }
  put(x, name, i);
  return 0;
}

void dyn_names_free(dyn_name_index *x) {
  free(x->slot);
  x->slot = NULL;
  x->cap = 0;
  x->count = 0;
}
