/* io_hdf5_chunks.h -- a chunked dataset's stored chunks checked against the
 * chunk size before libhdf5 reads them (io_hdf5_chunks.c says why). */
#ifndef LCPLAB_IO_HDF5_CHUNKS_H
#define LCPLAB_IO_HDF5_CHUNKS_H

#include "io_dl.h"

#include <stddef.h>

/* 0 when every allocated chunk of the chunked dataset d (elements of esz
 * bytes in the file, eof bytes long) holds exactly one chunk's bytes, at
 * most max_chunk: stored so when no filter applies to it, or inflating
 * (zlib) to that when compressed with deflate, the only filter accepted;
 * else -1 with the reason in why. */
int io_hdf5_chunks_check(hid_t d, size_t esz, double eof, double max_chunk, char *why,
                         size_t whylen);

#endif
