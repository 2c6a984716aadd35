/* strmap.c -- a hash map from (tag, string) to an int (exp_strmap.h):
 * open addressing with linear probing over a power-of-two table kept at
 * most half full, FNV-1a (fnv1a.c) of the tag and the string's bytes as
 * the hash.  A lookup or an insertion costs O(1) expected, so a list of N
 * names is checked for repeats in O(N), not O(N^2) (issue 64, finding 19:
 * a 40,000-line experiment file).
 */
#include "exp_strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exp_internal.h"

static size_t slot_of(const exp_strmap *m, int tag, const char *key) {
  uint64_t h = exp_fnv1a(EXP_FNV_INIT, &tag, sizeof tag);
  h = exp_fnv1a(h, key, strlen(key));
  return (size_t)h & (m->cap - 1);
}

/* The slot of (tag, key), or the empty slot where it would go. */
static size_t find(const exp_strmap *m, int tag, const char *key) {
  size_t i = slot_of(m, tag, key);
  while (m->key[i] && (m->tag[i] != tag || strcmp(m->key[i], key) != 0)) i = (i + 1) & (m->cap - 1);
  return i;
}

static int alloc_slots(exp_strmap *m, size_t cap) {
  m->key = calloc(cap, sizeof *m->key);
  m->tag = malloc(cap * sizeof *m->tag);
  m->val = malloc(cap * sizeof *m->val);
  m->cap = cap;
  m->n = 0;
  if (m->key && m->tag && m->val) return 0;
  exp_strmap_free(m);
  return -1;
}

int exp_strmap_init(exp_strmap *m, size_t expect) {
  size_t cap = 16;
  while (cap < 2 * expect) cap *= 2;
  return alloc_slots(m, cap);
}

void exp_strmap_free(exp_strmap *m) {
  free(m->key);
  free(m->tag);
  free(m->val);
  memset(m, 0, sizeof *m);
}

int exp_strmap_get(const exp_strmap *m, int tag, const char *key) {
  if (!m->cap) return -1;
  size_t i = find(m, tag, key);
  return m->key[i] ? m->val[i] : -1;
}

/* Doubles the table, every entry moved to its new slot. */
static int grow(exp_strmap *m) {
  exp_strmap old = *m, bigger;
  if (alloc_slots(&bigger, 2 * old.cap) != 0) return -1;
  for (size_t i = 0; i < old.cap; i++)
    if (old.key[i]) {
      size_t j = find(&bigger, old.tag[i], old.key[i]);
      bigger.key[j] = old.key[i];
      bigger.tag[j] = old.tag[i];
      bigger.val[j] = old.val[i];
      bigger.n++;
    }
  exp_strmap_free(&old);
  *m = bigger;
  return 0;
}

int exp_strmap_put(exp_strmap *m, int tag, const char *key, int val) {
  if (!m->cap && exp_strmap_init(m, 8) != 0) return -1;
  size_t i = find(m, tag, key);
  if (!m->key[i]) {
    if (2 * (m->n + 1) > m->cap) {
      if (grow(m) != 0) return -1;
      i = find(m, tag, key);
    }
    m->key[i] = key;
    m->tag[i] = tag;
    m->n++;
  }
  m->val[i] = val;
  return 0;
}
