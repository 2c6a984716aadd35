/* plug_noinit.c -- a test plugin (tests/test_plugins.sh): a shared
 * library with lcplab's ABI symbol but no slv_plugin_init function. */
#include "slv.h"

SLV_PLUGIN_ABI_DEFINE;
