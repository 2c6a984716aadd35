/* settings.c -- the world settings of a scene line (`scene NAME ...
 * KEY=VALUE`, experiments/README.md, "Experiment files"): each KEY=VALUE
 * word set by libdynamics' one parser of settings by name
 * (dyn_world_settings_set, dyn_world.h; docs/dynamics.md, "Settings by
 * name"), which `lcplab simulate --KEY VALUE` and Python's World(**settings)
 * call too.
 */
#include <stdio.h>
#include <string.h>

#include "exp_internal.h"

int exp_source_world(const exp_source *src, dyn_world_settings *set, char *err, size_t len) {
  for (int k = 0; k < src->nsettings; k++) {
    const char *kv = src->settings[k], *eq = strchr(kv, '=');
    char key[64];
    if (!eq || (size_t)(eq - kv) >= sizeof key) {
      exp_fmt(err, len, "'%s' is not KEY=VALUE", kv);
      return k;
    }
    memcpy(key, kv, (size_t)(eq - kv));
    key[eq - kv] = '\0';
    int rc = dyn_world_settings_set(set, key, eq + 1, err, len);
    if (rc == 0) exp_fmt(err, len, "'%s' is no world setting", key);
    if (rc != 1) return k;
  }
  return -1;
}
