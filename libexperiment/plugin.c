/* plugin.c -- C plugins in the engine (docs/plugins.md, "C plugins"):
 * libsolvers loads them (slv_plugin_load: real path, dlopen, ABI check,
 * registration); the engine adds the SHA-256 of each plugin's bytes as
 * they were when it was loaded (exp_program_hash: the content that keys
 * its tasks, as an external's program does; experiments/CAMPAIGNS.md,
 * "Results keyed by content").
 *
 * The hashes mirror libsolvers' table of loaded plugins, which mirrors
 * what dlopen holds for the whole process: process-wide, append-only,
 * guarded by a mutex.
 */
#include "exp_internal.h"

#include <pthread.h>
#include <string.h>

typedef struct plugin_hash {
  char path[EXP_PATH_MAX]; /* real path */
  char sha256[65];
} plugin_hash;

static pthread_mutex_t hash_lock = PTHREAD_MUTEX_INITIALIZER;
static plugin_hash hashes[SLV_MAX_PLUGINS];
static int nhashes;

/* The hash of each plugin libsolvers loaded since index `from` and the
 * engine has not hashed: 0, or -1 with err (the file gone or unreadable
 * since). */
static int hash_new_plugins(int from, char *err, size_t len) {
  int rc = 0;
  pthread_mutex_lock(&hash_lock);
  for (int i = from, n = slv_plugin_count(); rc == 0 && i < n && nhashes < SLV_MAX_PLUGINS; i++) {
    const char *p = slv_plugin_path(i);
    char real[EXP_PATH_MAX];
    int known = 0;
    for (int k = 0; k < nhashes; k++) known |= strcmp(hashes[k].path, p) == 0;
    if (known) continue;
    if (exp_program_hash(p, real, sizeof real, hashes[nhashes].sha256, err, len) != 0) {
      rc = -1;
      break;
    }
    exp_fmt(hashes[nhashes].path, sizeof hashes[nhashes].path, "%s", p);
    nhashes++;
  }
  pthread_mutex_unlock(&hash_lock);
  return rc;
}

int exp_plugin_load(const char *path, char *err, size_t len) {
  int before = slv_plugin_count();
  if (slv_plugin_load(path, err, len) != SLV_OK) return -1;
  return hash_new_plugins(before, err, len);
}

int exp_plugins_load_list(const char *list, char *err, size_t len) {
  int before = slv_plugin_count();
  if (slv_plugins_load_list(list, err, len) != SLV_OK) {
    char why[512]; /* the ones loaded before the failure are hashed too */
    hash_new_plugins(before, why, sizeof why);
    return -1;
  }
  return hash_new_plugins(before, err, len);
}

const char *exp_plugin_sha256_of(const char *real) {
  const char *sha = NULL;
  pthread_mutex_lock(&hash_lock);
  for (int k = 0; real && k < nhashes && !sha; k++)
    if (strcmp(hashes[k].path, real) == 0) sha = hashes[k].sha256;
  pthread_mutex_unlock(&hash_lock);
  return sha;
}
