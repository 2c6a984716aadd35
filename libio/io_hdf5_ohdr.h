/* io_hdf5_ohdr.h -- an HDF5 object header's chunks checked against the file
 * before libhdf5 loads it (io_hdf5_ohdr.c says why). */
#ifndef LCPLAB_IO_HDF5_OHDR_H
#define LCPLAB_IO_HDF5_OHDR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The file's bytes: an image in memory, or an open file. */
typedef struct io_ohdr_src {
  const unsigned char *image; /* the whole file, or NULL */
  FILE *fp;                   /* else read from here */
  uint64_t eof;               /* the file's length in bytes */
  uint64_t base;              /* the base address (the user block's size) */
  unsigned sizeof_addr;       /* the superblock's size of offsets (1 to 8) */
  unsigned sizeof_size;       /* its size of lengths (1 to 8) */
  unsigned leaf_k;            /* group leaf node K (symbol nodes), 0 unknown */
  unsigned internal_k;        /* group internal node K (B-tree nodes), 0 unknown */
  uint64_t stored_eof;        /* the superblock's end of file (the whole file's length) */
} io_ohdr_src;

/* 0 when every chunk of the object header at address addr (relative to
 * base) lies inside the file and every message inside its chunk (and an
 * attribute's fields and value, a dataspace's dims, compact data inside
 * their messages; a group's local heap inside the file, and its B-tree
 * walked, bounded, each node once (io_hdf5_ohdr.c, "group B-tree")); else -1
 * with the reason, "a continuation chunk of N bytes at offset O, past the
 * end of the file (E bytes)", in why. */
int io_ohdr_check(const io_ohdr_src *src, uint64_t addr, char *why, size_t whylen);

/* Finds the HDF5 superblock in src's bytes (at 0, 512, 1024, ...), sets
 * src's base (its offset), sizeof_addr and sizeof_size (and, versions 0
 * and 1, leaf_k and internal_k; else 0) and stored_eof, and gives the root
 * group's object header address and the superblock extension's (versions
 * 2 and 3; UINT64_MAX when there is none), both relative to the base, so
 * that they can be checked before libhdf5 opens the file.  -1 with the
 * reason when there is no superblock that can be read. */
int io_ohdr_superblock(io_ohdr_src *src, uint64_t *root, uint64_t *ext, char *why, size_t whylen);

#endif
