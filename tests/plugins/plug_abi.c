/* plug_abi.c -- a test plugin (tests/test_plugins.sh) built for another
 * solver ABI: the loader must refuse it, naming both versions, before
 * calling any of its code (slv_plugin_init would abort). */
#include "slv.h"

#include <stdlib.h>

const int slv_plugin_abi = SLV_SOLVER_ABI + 1;

slv_status slv_plugin_init(const char *origin, char *msg, size_t msglen) {
  (void)origin, (void)msg, (void)msglen;
  abort();
}
