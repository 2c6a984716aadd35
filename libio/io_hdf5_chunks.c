/* io_hdf5_chunks.c -- a chunked dataset's stored chunks checked against the
 * chunk size before libhdf5 reads them.
 *
 * Why: libhdf5 1.10.8 copies a whole chunk (the chunk's dims times the
 * element size) out of the buffer it read the stored chunk into, without
 * comparing the two sizes: a version 7.3 MAT-file whose filter pipeline
 * message had been retyped (so a deflated chunk of a few hundred bytes was
 * taken for a raw one of 40400) made it read past that buffer
 * (AddressSanitizer, found by tests/fuzz/fuzz_mat; the regression is
 * tests/fuzz/regressions/mat/v73-chunk-stored-short.edits).
 *
 * So every allocated chunk is looked up by its coordinates (the chunk index
 * gives its stored size and which filters were applied) and must hold one
 * chunk's bytes: stored as they are when no filter applies, or, compressed
 * by deflate (the only filter MATLAB and FCLIB writers use, so the only
 * one accepted), inflating with zlib to exactly that many, read here raw
 * (H5Dread_chunk) and inflated a block at a time, nothing kept.  At most
 * IO_CHUNKS_MAX chunks are looked up; a dataset of more is refused (the
 * readers' largest, a dense 5000 x 5000 matrix, needs 25 million only with
 * chunks of one element); a chunk's bytes, which libhdf5 allocates to read
 * it, are bounded by the caller (max_chunk), and its stored bytes by the
 * file's size.  An unallocated chunk reads as the fill value. */
#include "io_hdf5_chunks.h"
#include "io_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define IO_CHUNKS_MAX  1000000.0
#define IO_CHUNKS_RANK 32

/* The bytes the zlib stream in (n bytes) inflates to, at most cap + 1
 * (more is not counted); -1 when it is not a whole zlib stream. */
static double inflated_bytes(const unsigned char *in, size_t n, double cap) {
  unsigned char out[16384];
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit(&z) != Z_OK) return -1;
  z.next_in = (unsigned char *)in;
  z.avail_in = (uInt)n;
  double total = 0;
  int zr = Z_OK;
  while (zr == Z_OK && total <= cap) {
    z.next_out = out;
    z.avail_out = sizeof out;
    zr = inflate(&z, Z_NO_FLUSH);
    total += (double)(sizeof out - z.avail_out);
    if (zr == Z_BUF_ERROR || (zr == Z_OK && z.avail_out != 0 && z.avail_in == 0)) zr = Z_DATA_ERROR;
  }
  inflateEnd(&z);
  return zr == Z_STREAM_END || total > cap ? total : -1;
}

/* One allocated chunk at offset (its stored size, the filters skipped in
 * mask) against the chunk's bytes cb; deflated when deflate applies. */
static int check_chunk(hid_t d, const hsize_t *offset, unsigned mask, hsize_t size, int deflate,
                       double cb, char *why, size_t whylen) {
  if (!deflate || (mask & 1u)) {
    if ((double)size == cb) return 0;
    io_msgf(why, whylen, "a chunk stored in %llu bytes, not its %.0f", (unsigned long long)size,
            cb);
    return -1;
  }
  unsigned char *raw = malloc(size > 0 ? (size_t)size : 1);
  uint32_t filters = 0;
  if (!raw || H5Dread_chunk(d, H5P_DEFAULT, offset, &filters, raw) < 0) {
    free(raw);
    io_msgf(why, whylen, "a chunk of %llu bytes that cannot be read", (unsigned long long)size);
    return -1;
  }
  double got = inflated_bytes(raw, (size_t)size, cb);
  free(raw);
  if (got == cb) return 0;
  if (got < 0)
    io_msgf(why, whylen, "a deflated chunk of %llu bytes that is not a whole zlib stream",
            (unsigned long long)size);
  else
    io_msgf(why, whylen, "a deflated chunk inflating to %s%.0f bytes, not its %.0f",
            got > cb ? "more than " : "", got > cb ? cb : got, cb);
  return -1;
}

/* The filter pipeline: none, or deflate alone (*deflate = 1). */
static int check_filters(hid_t pl, int *deflate, char *why, size_t whylen) {
  int nf = H5Pget_nfilters(pl);
  *deflate = 0;
  if (nf == 0) return 0;
  unsigned flags = 0;
  size_t nv = 0;
  if (nf == 1 && H5Pget_filter2(pl, 0, &flags, &nv, NULL, 0, NULL, NULL) == H5Z_FILTER_DEFLATE) {
    *deflate = 1;
    return 0;
  }
  io_msgf(why, whylen, "a filter pipeline of %d filters other than deflate alone", nf);
  return -1;
}

int io_hdf5_chunks_check(hid_t d, size_t esz, double eof, double max_chunk, char *why,
                         size_t whylen) {
  hid_t pl = H5Dget_create_plist(d), sp = H5Dget_space(d);
  hsize_t cd[IO_CHUNKS_RANK], dims[IO_CHUNKS_RANK], at[IO_CHUNKS_RANK];
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1, deflate = 0, r = -1;
  if (pl < 0 || rank < 0 || rank > IO_CHUNKS_RANK || H5Pget_chunk(pl, IO_CHUNKS_RANK, cd) != rank ||
      H5Sget_simple_extent_dims(sp, dims, NULL) < 0)
    io_msgf(why, whylen, "a chunked layout that cannot be read");
  else if (!check_filters(pl, &deflate, why, whylen))
    r = 0;
  double cb = (double)esz, count = 1;
  for (int k = 0; !r && k < rank; k++) {
    if (cd[k] == 0) {
      io_msgf(why, whylen, "a chunk dimension of 0");
      r = -1;
      break;
    }
    cb *= (double)cd[k];
    count *= (double)((dims[k] + cd[k] - 1) / cd[k]);
    at[k] = 0;
  }
  if (!r && count > IO_CHUNKS_MAX) {
    io_msgf(why, whylen, "%.0f chunks (at most %.0f are read)", count, IO_CHUNKS_MAX);
    r = -1;
  } else if (!r && cb > max_chunk) { /* libhdf5 allocates a chunk's bytes to read it */
    io_msgf(why, whylen, "chunks of %.0f bytes (at most %.0f)", cb, max_chunk);
    r = -1;
  }
  /* every chunk's coordinates in turn, the last dimension fastest */
  for (double c = 0; !r && c < count; c++) {
    unsigned mask = 0;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    if (H5Dget_chunk_info_by_coord(d, at, &mask, &addr, &size) < 0) {
      io_msgf(why, whylen, "a chunk index that cannot be read");
      r = -1;
    } else if (addr != HADDR_UNDEF && (double)size > eof) {
      io_msgf(why, whylen, "a chunk stored in %llu bytes, more than the file's %.0f",
              (unsigned long long)size, eof);
      r = -1;
    } else if (addr != HADDR_UNDEF) {
      r = check_chunk(d, at, mask, size, deflate, cb, why, whylen);
    }
    for (int k = rank - 1; k >= 0; k--) {
      at[k] += cd[k];
      if (at[k] < dims[k]) break;
      at[k] = 0;
    }
  }
  if (sp >= 0) H5Sclose(sp);
  if (pl >= 0) H5Pclose(pl);
  return r;
}
