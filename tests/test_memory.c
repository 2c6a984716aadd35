/* test_memory.c -- slv_alloc_large (slv.h, "memory for large arrays";
 * docs/solver-machinery.md, "Memory"):
 *   - small sizes (0 included): memory aligned to 64 bytes, every byte
 *     writable (the sanitizer and valgrind stages check the bounds);
 *   - from SLV_LARGE_BYTES on: aligned to 2 MiB, every byte writable, and
 *     where the kernel grants huge pages only to memory that asks
 *     (transparent_hugepage "madvise"), the mapping is eligible for them
 *     (/proc/self/smaps, THPeligible), which it is not without the advice;
 *   - a size whose rounding overflows: NULL, nothing allocated;
 *   - a world's buffer (dyn_buf) grown from 16 elements across the
 *     threshold keeps its contents at every growth, and its memory is then
 *     slv_alloc_large's (2 MiB aligned).
 */
#include "slv.h"
#include "world_internal.h"
#include "tst_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int aligned_to(const void *p, uintptr_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static void test_small(void) {
  size_t sizes[] = { 0, 1, 100, 4096, SLV_LARGE_BYTES - 1 };
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    unsigned char *p = slv_alloc_large(sizes[k]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(aligned_to(p, 64));
    memset(p, 0xa5, sizes[k]);
    if (sizes[k]) CU_ASSERT_EQUAL(p[sizes[k] - 1], 0xa5);
    free(p);
  }
}

/* The transparent huge page mode of the kernel: 'm' (madvise), 'a'
 * (always), 'n' (never), 0 when unknown (no such file). */
static char thp_mode(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return 0;
  char line[128] = "";
  char mode = 0;
  if (fgets(line, sizeof line, f)) {
    if (strstr(line, "[madvise]")) mode = 'm';
    if (strstr(line, "[always]")) mode = 'a';
    if (strstr(line, "[never]")) mode = 'n';
  }
  fclose(f);
  return mode;
}

/* THPeligible of the mapping that holds p in /proc/self/smaps: 0 or 1,
 * -1 when not found. */
static int thp_eligible(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int inside = 0, found = -1;
  uintptr_t a = (uintptr_t)p;
  while (found < 0 && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    int e;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      inside = a >= lo && a < hi;
    else if (inside && sscanf(line, "THPeligible: %d", &e) == 1)
      found = e;
  }
  fclose(f);
  return found;
}

static void test_large(void) {
  const size_t two_mib = (size_t)2 << 20;
  size_t sizes[] = { SLV_LARGE_BYTES, 3 * two_mib + 1 };
  for (size_t k = 0; k < 2; k++) {
    unsigned char *p = slv_alloc_large(sizes[k]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT(aligned_to(p, two_mib));
    memset(p, 0x5a, sizes[k]);
    CU_ASSERT_EQUAL(p[sizes[k] - 1], 0x5a);
    if (thp_mode() == 'm') {
      CU_ASSERT_EQUAL(thp_eligible(p), 1);
      /* the check can tell: plain memory of the same size is not eligible */
      unsigned char *q = malloc(sizes[k]);
      CU_ASSERT_PTR_NOT_NULL_FATAL(q);
      q[0] = 1;
      CU_ASSERT_EQUAL(thp_eligible(q), 0);
      free(q);
    }
    free(p);
  }
}

static void test_overflow(void) {
  CU_ASSERT_PTR_NULL(slv_alloc_large(SIZE_MAX));
  CU_ASSERT_PTR_NULL(slv_alloc_large(SIZE_MAX - 4096));
}

static void test_buf_growth(void) {
  DYN_BUF(double) b = { NULL, 0 };
  long grows = 0;
  size_t filled = 0, big = 0;
  for (size_t need = 1; need <= 3 * SLV_LARGE_BYTES / sizeof(double); need = need * 3 / 2 + 1) {
    CU_ASSERT_EQUAL_FATAL(dyn_buf_reserve(&b, need, &grows), 0);
    for (size_t i = 0; i < filled; i++)
      if (b.p[i] != (double)i) {
        CU_FAIL("contents lost in a growth");
        break;
      }
    for (; filled < need; filled++) b.p[filled] = (double)filled;
    if (b.cap * sizeof(double) >= SLV_LARGE_BYTES) {
      CU_ASSERT(aligned_to(b.p, (size_t)2 << 20));
      big++;
    }
  }
  CU_ASSERT(big > 0);
  CU_ASSERT(grows > 10);
  dyn_buf_free(&b);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite("memory", NULL, NULL);
  CU_add_test(s, "small sizes: 64-byte aligned, writable", test_small);
  CU_add_test(s, "large sizes: 2 MiB aligned, huge pages asked", test_large);
  CU_add_test(s, "a size that overflows: NULL", test_overflow);
  CU_add_test(s, "a world's buffer grown across the threshold", test_buf_growth);
  return tst_run();
}
