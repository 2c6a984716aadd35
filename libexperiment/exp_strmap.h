/* exp_strmap.h -- private to libexperiment: a hash map from (tag, string)
 * to an int (strmap.c), so that the engine finds a name among many in
 * constant time instead of comparing it with every earlier one: a problem's
 * metadata by path (prepare.c), repeated labels and files within a section
 * (prepare.c), section names (config.c), the names a folder's record holds
 * (owned.c).  The strings are borrowed: they must outlive the map.
 */
#ifndef EXP_STRMAP_H
#define EXP_STRMAP_H

#include <stddef.h>

typedef struct exp_strmap {
  const char **key; /* NULL: an empty slot */
  int *tag, *val;
  size_t cap, n; /* slots (a power of two), entries */
} exp_strmap;

/* An empty map; 0, or -1 out of memory.  expect: the entries foreseen (the
 * map grows past it). */
int exp_strmap_init(exp_strmap *m, size_t expect);
void exp_strmap_free(exp_strmap *m);
/* The value stored under (tag, key), or -1. */
int exp_strmap_get(const exp_strmap *m, int tag, const char *key);
/* Stores val under (tag, key), replacing an earlier value; 0, or -1 out
 * of memory (the map unchanged). */
int exp_strmap_put(exp_strmap *m, int tag, const char *key, int val);

#endif /* EXP_STRMAP_H */
