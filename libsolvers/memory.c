/* memory.c -- slv_alloc_large (slv.h, "memory for large arrays"): the
 * allocation of the arrays a solve or a world step walks over again and
 * again (pgs_wide's lanes, a world's rows and contacts).
 *
 * From SLV_LARGE_BYTES on, the array starts on a 2 MiB boundary and its
 * size is rounded up to 2 MiB, and the kernel is asked to back it with
 * transparent huge pages (Linux's madvise(MADV_HUGEPAGE); the system's
 * setting "madvise", Debian's default, grants them only to memory that
 * asks).  A sweep over a few megabytes then needs a few TLB entries, not
 * one a 4 KiB page.  The price is memory: the rounding and the alignment
 * are address space, and a huge page is made whole where any byte of it
 * is touched.  Where the call does not exist,
 * or the kernel refuses (THP off, no huge page free), the pages are
 * ordinary ones: the memory is the same, only the mapping differs, so no
 * result depends on it.  Below the threshold, and for the arrays of small
 * problems, memory is aligned to 64 bytes (a cache line, an AVX-512
 * vector).  docs/solver-machinery.md, "Memory".
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "slv.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

enum { HUGE_PAGE_BYTES = 2 << 20 };

/* bytes rounded up to a multiple of `to` (a power of two); 0 on overflow */
static size_t round_up(size_t bytes, size_t to) {
  if (bytes > SIZE_MAX - (to - 1)) return 0;
  return (bytes + to - 1) & ~(to - 1);
}

void *slv_alloc_large(size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (bytes < SLV_LARGE_BYTES) return aligned_alloc(64, round_up(bytes, 64));
  size_t n = round_up(bytes, HUGE_PAGE_BYTES);
  if (n == 0) return NULL;
  void *p = aligned_alloc(HUGE_PAGE_BYTES, n);
#ifdef MADV_HUGEPAGE
  /* advice only: a refusal leaves ordinary pages, the memory as good */
  if (p) (void)madvise(p, n, MADV_HUGEPAGE);
#endif
  return p;
}
