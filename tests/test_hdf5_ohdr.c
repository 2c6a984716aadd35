/* test_hdf5_ohdr.c -- the object-header check of the FCLIB and MAT 7.3 readers
 * (libio/io_hdf5_ohdr.c) on object headers written byte by byte here from
 * the HDF5 file format's layout, so every expected answer is known:
 *
 *   - version 1 and version 2 headers whose chunks and messages all fit,
 *     with and without a continuation chunk, a user block (base 512),
 *     4-byte offsets, version 2's optional times, attribute limits,
 *     creation-order fields and 2-byte chunk sizes: accepted;
 *   - an old-style group whose local heap lies inside the file: accepted;
 *     one that claims 378 GB (a fuzz finding), or is no heap: refused;
 *   - an attribute message (MATLAB_class = "double") that fits: accepted;
 *     one whose value, or name, datatype and dataspace, run past it (fuzz
 *     findings of tests/fuzz/fuzz_mat), a dataspace message whose dims run
 *     past it, compact data larger than its layout message, a chunked
 *     layout with a dim of 0 (libhdf5 divides by it), a message in the
 *     shared message heap, a committed one whose header does not fit, and
 *     a local heap whose last byte is not a NUL, a dataset's header
 *     without a layout message, a layout message libhdf5 cannot decode
 *     (version, class, dimensionality, flags, chunk index): refused;
 *   - a continuation chunk claiming 1 GiB (the fuzz finding
 *     object-header-claims-738-MB.edits in small), chunk 0 past the end, a
 *     message running past its chunk, a cycle of continuations, a header
 *     that is neither version: refused, with the reason.
 *
 * Each case is checked twice: from the image in memory and from the same
 * bytes in a file (the two sources of io_ohdr_src). */
#include "../libio/io_hdf5_ohdr.h"
#include "tst_util.h"

#include <stdio.h>
#include <string.h>

#define IMG 4096

typedef struct img {
  unsigned char b[IMG];
} img;

static void put(img *m, size_t at, uint64_t v, unsigned n) {
  for (unsigned k = 0; k < n; k++) m->b[at + k] = (unsigned char)(v >> (8 * k));
}

/* a version-1 header at addr with chunk 0 of len bytes (messages follow
 * at addr + 16) */
static void v1_header(img *m, size_t addr, uint32_t len) {
  put(m, addr, 1, 1);
  put(m, addr + 2, 2, 2); /* messages */
  put(m, addr + 4, 1, 4); /* reference count */
  put(m, addr + 8, len, 4);
}

/* a version-1 message at p: type, data size; returns the next position */
static size_t v1_msg(img *m, size_t p, unsigned type, unsigned size) {
  put(m, p, type, 2);
  put(m, p + 2, size, 2);
  return p + 8 + size;
}

/* a continuation message's data: offset and length (8 bytes each unless
 * the file says otherwise) */
static void cont_data(img *m, size_t p, uint64_t at, uint64_t len, unsigned sa, unsigned ss) {
  put(m, p, at, sa);
  put(m, p + sa, len, ss);
}

static int check_both(const img *m, size_t eof, uint64_t base, unsigned sa, uint64_t addr,
                      char *why, size_t whylen) {
  io_ohdr_src s = { .image = m->b, .eof = eof, .base = base, .sizeof_addr = sa, .sizeof_size = 8 };
  int r_mem = io_ohdr_check(&s, addr, why, whylen);
  FILE *fp = tmpfile();
  CU_ASSERT_FATAL(fp != NULL);
  CU_ASSERT_FATAL(fwrite(m->b, 1, eof, fp) == eof);
  io_ohdr_src f = s;
  f.image = NULL;
  f.fp = fp;
  char why2[160];
  int r_file = io_ohdr_check(&f, addr, why2, sizeof why2);
  fclose(fp);
  CU_ASSERT_EQUAL(r_mem, r_file);
  if (r_mem) CU_ASSERT_STRING_EQUAL(why, why2);
  return r_mem;
}

/* v1: chunk 0 (a continuation and a NIL message) at 64, its continuation
 * chunk (one NIL message) at 512 + base */
static void v1_with_continuation(img *m, uint64_t base, uint64_t cont_len) {
  memset(m, 0, sizeof *m);
  v1_header(m, base + 64, 48);
  size_t p = v1_msg(m, base + 80, 0x10, 16);
  cont_data(m, base + 88, 512, cont_len, 8, 8);
  v1_msg(m, p, 0, 16);
  v1_msg(m, base + 512, 0, 56);
}

static void test_v1_accepted(void) {
  img m;
  char why[160] = "";
  v1_with_continuation(&m, 0, 64);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  v1_with_continuation(&m, 512, 64); /* a user block of 512 bytes */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 512, 8, 64, why, sizeof why), 0);
  /* 4-byte offsets: the continuation's data is 4 + 8 bytes */
  memset(&m, 0, sizeof m);
  v1_header(&m, 64, 24);
  v1_msg(&m, 80, 0x10, 16);
  cont_data(&m, 88, 512, 8, 4, 8);
  v1_msg(&m, 512, 0, 0);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 4, 64, why, sizeof why), 0);
  /* the last byte of the file is the continuation's last */
  v1_with_continuation(&m, 0, IMG - 512);
  v1_msg(&m, 512, 0, IMG - 512 - 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
}

static void test_v1_refused(void) {
  img m;
  char why[160] = "";
  /* the fuzz finding in small: a continuation of 1 GiB in a 4 KiB file */
  v1_with_continuation(&m, 0, 1u << 30);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a continuation chunk of 1073741824 bytes at offset 512, "
                              "past the end of the file (4096 bytes)");
  /* one byte too long */
  v1_with_continuation(&m, 0, IMG - 512 + 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  /* chunk 0 past the end */
  v1_with_continuation(&m, 0, 64);
  put(&m, 64 + 8, 5000, 4);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "chunk 0 of 5000 bytes at offset 80, past the end of the file "
                              "(4096 bytes)");
  /* a message running past its chunk: the NIL message of 16 -> 24 */
  v1_with_continuation(&m, 0, 64);
  put(&m, 104 + 2, 24, 2);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "a message of 24 bytes at offset 104 running past"));
  /* a cycle: the continuation chunk continues into itself */
  v1_with_continuation(&m, 0, 64);
  v1_msg(&m, 512, 0x10, 16);
  cont_data(&m, 520, 512, 64, 8, 8);
  v1_msg(&m, 536, 0, 32);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "more than 256 chunks"));
  /* the header at the end of the file, and a header of neither version */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, IMG - 8, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "past the end of the file"));
  m.b[64] = 3;
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "no object header"));
}

/* A group B-tree node ("TREE", type 0) at at of the given level whose n
 * children (8-byte keys and addresses alternating after the 24-byte
 * head) are at child[0..n-1]. */
static void tree_node(img *m, size_t at, unsigned level, unsigned n, const uint64_t *child) {
  memcpy(m->b + at, "TREE", 4);
  put(m, at + 5, level, 1);
  put(m, at + 6, n, 2);
  put(m, at + 8, ~0ull, 8); /* no siblings */
  put(m, at + 16, ~0ull, 8);
  for (unsigned k = 0; k < n; k++) put(m, at + 24 + 8 + 16 * k, child[k], 8);
}

/* An old-style group: chunk 0 holds a symbol-table message (B-tree at
 * 256, an empty leaf, local heap at 384) whose heap's data segment is len
 * bytes at seg, with one free block of 16 bytes at its offset 8. */
static void v1_group(img *m, uint64_t seg, uint64_t len, const char *sig) {
  memset(m, 0, sizeof *m);
  v1_header(m, 64, 24);
  v1_msg(m, 80, 0x11, 16);
  put(m, 88, 256, 8);
  put(m, 96, 384, 8);
  tree_node(m, 256, 0, 0, NULL);
  memcpy(m->b + 384, sig, 4);
  put(m, 384 + 8, len, 8);  /* data segment size */
  put(m, 384 + 16, 8, 8);   /* offset to the free list */
  put(m, 384 + 24, seg, 8); /* data segment address */
  if (seg + 24 <= IMG) {
    put(m, seg + 8, 1, 8); /* the last free block */
    put(m, seg + 16, 16, 8);
  }
}

static void test_local_heap(void) {
  img m;
  char why[160] = "";
  v1_group(&m, 1024, 88, "HEAP");
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  v1_group(&m, 1024, IMG - 1024, "HEAP"); /* up to the last byte */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  /* the fuzz finding in small: a heap of 378 GB */
  v1_group(&m, 1024, 0x5800000000ull, "HEAP");
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap of 377957122048 bytes at offset 1024, past the end "
                              "of the file (4096 bytes)");
  v1_group(&m, 1024, IMG - 1024 + 1, "HEAP");
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  v1_group(&m, 1024, 88, "PEAH");
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "no local heap at offset 384");
}

/* The heap's free list (a fuzz finding: a block naming itself as the
 * next made libhdf5 loop): blocks at 8 -> 40 -> 1 accepted; one naming
 * itself, a cycle 8 -> 24 -> 40 -> 24, a block past the segment and a
 * list longer than the heap can hold refused, naming the block reached
 * twice or the count. */
static void test_free_list(void) {
  img m;
  char why[160] = "";
  v1_group(&m, 1024, 88, "HEAP");
  put(&m, 1024 + 8, 40, 8);
  put(&m, 1024 + 40, 1, 8);
  put(&m, 1024 + 48, 16, 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  put(&m, 1024 + 8, 8, 8); /* the block at 8 names itself */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap at offset 384 whose free list reaches the block at "
                              "offset 8 twice (expected each free block once)");
  put(&m, 1024 + 8, 24, 8);
  put(&m, 1024 + 24, 40, 8);
  put(&m, 1024 + 32, 16, 8);
  put(&m, 1024 + 40, 24, 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap at offset 384 whose free list reaches the block at "
                              "offset 24 twice (expected each free block once)");
  put(&m, 1024 + 40, 80, 8); /* 80 + 16 bytes of fields > 88 */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap whose free block at offset 80 does not lie inside its "
                              "88 bytes");
  /* seven blocks in 64 bytes, each inside the heap, none reached twice:
   * more than the 64 / 16 blocks whose fields fit without overlapping
   * (8 -> 48 -> 0 -> 40 -> 16 -> 32 -> 24 -> none; a block's size is the
   * next block's link, each within the heap's end) */
  static const uint64_t link[7][2] = { { 8, 48 },  { 48, 0 },  { 0, 40 }, { 40, 16 },
                                       { 16, 32 }, { 32, 24 }, { 24, 1 } };
  v1_group(&m, 1024, 64, "HEAP");
  for (int k = 0; k < 7; k++) put(&m, 1024 + link[k][0], link[k][1], 8);
  put(&m, 1024 + 56, 0, 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap at offset 384 whose free list has more than 4 blocks");
}

/* A dataset's header as libhdf5 tells one (a datatype and a dataspace
 * message) at 64: dataspace (rank 1, dims 5), datatype, and a contiguous
 * layout (version 3, class 1) when with_layout, else a NIL message. */
static void v1_dataset(img *m, int with_layout) {
  memset(m, 0, sizeof *m);
  v1_header(m, 64, 80);
  size_t p = v1_msg(m, 80, 0x01, 16);
  put(m, 88, 1, 1); /* version 1, rank 1 */
  put(m, 89, 1, 1);
  put(m, 96, 5, 8);
  p = v1_msg(m, p, 0x03, 16);
  v1_msg(m, p, with_layout ? 0x08 : 0x00, 24);
  if (with_layout) {
    put(m, p + 8, 3, 1);
    put(m, p + 9, 1, 1);
    put(m, p + 10, 2048, 8); /* address */
    put(m, p + 18, 40, 8);   /* size */
  }
}

/* A dataset without a layout message (a fuzz finding of fuzz_mat: with a
 * filter pipeline message, libhdf5 1.10.8 leaks it when the layout is not
 * found): refused before HDF5 opens it; with its layout accepted, and so
 * are a datatype alone (a committed datatype) and a dataspace alone. */
static void test_dataset_layout(void) {
  img m;
  char why[160] = "";
  v1_dataset(&m, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  v1_dataset(&m, 0);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a dataset's object header at offset 64 without a layout message");
  put(&m, 80, 0x00, 2); /* no dataspace: not a dataset */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  v1_dataset(&m, 0);
  put(&m, 104, 0x00, 2); /* no datatype: not a dataset */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
}

/* The layout message's fields as libhdf5 decodes them (at 136, 24 bytes,
 * in v1_dataset's header): a version outside 1 to 4 (the fuzz finding
 * v73-dataset-without-layout.edits: version 0 after a filter pipeline
 * message), a class outside 0 to 2, a virtual dataset, a contiguous
 * layout's fields past the message, a chunked one of dimensionality 1,
 * version 4's unknown flags, chunk index type 0 and a fixed array's
 * parameter of 0: refused; a version 4 chunked layout with a fixed array
 * index accepted. */
static void layout_v4_chunked(img *m, unsigned flags, unsigned index, unsigned param) {
  v1_dataset(m, 1);
  memset(m->b + 136, 0, 24);
  put(m, 136, 4, 1); /* version 4, class 2 */
  put(m, 137, 2, 1);
  put(m, 138, flags, 1);
  put(m, 139, 2, 1); /* dimensionality 2, dims of 4 bytes: 5 and 8 */
  put(m, 140, 4, 1);
  put(m, 141, 5, 4);
  put(m, 145, 8, 4);
  put(m, 149, index, 1);
  put(m, 150, param, 1);
}

static void test_layout_fields(void) {
  img m;
  char why[160] = "";
  v1_dataset(&m, 1);
  put(&m, 136, 0, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a layout message at offset 136 of version 0 (1 to 4 exist)");
  put(&m, 136, 3, 1);
  put(&m, 137, 5, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a layout message at offset 136 of class 5 (0 to 2 exist)");
  put(&m, 136, 4, 1);
  put(&m, 137, 3, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a virtual dataset's layout message at offset 136 (data in other "
                              "files)");
  v1_dataset(&m, 1);
  v1_msg(&m, 128, 0x08, 8); /* contiguous: address and size need 18 bytes */
  put(&m, 144, 0, 2);       /* the rest of the chunk a NIL message of 8 bytes */
  put(&m, 146, 8, 2);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a layout message at offset 136 of 8 bytes, damaged");
  v1_dataset(&m, 1);
  put(&m, 137, 2, 1); /* version 3 chunked, dimensionality 1 */
  put(&m, 138, 1, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a chunked layout message at offset 136 of dimensionality 1 (2 to "
                              "33)");
  layout_v4_chunked(&m, 0, 3, 10);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  layout_v4_chunked(&m, 0x04, 3, 10);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a chunked layout message at offset 136 with flags 0x04 (bits 0 and "
                              "1 exist)");
  layout_v4_chunked(&m, 0, 0, 10);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a chunked layout message at offset 136 with chunk index type 0 (1 "
                              "to 5 exist)");
  layout_v4_chunked(&m, 0, 3, 0);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a chunked layout message at offset 136 with a chunk index "
                              "parameter of 0");
}

/* The group's B-tree: a root of level 1 over a leaf at 2048 over a symbol
 * node at 2560 whose one symbol is the group itself: accepted.  A root
 * whose child is itself, a child of the root's level, a leaf whose child
 * is no "SNOD", a symbol's header past the end, a node of type 1 and one of
 * more than 2K entries: refused with the reason. */
static void test_group_btree(void) {
  img m;
  char why[160] = "";
  uint64_t leaf = 2048, snod = 2560, self = 256;
  v1_group(&m, 1024, 88, "HEAP");
  tree_node(&m, 256, 1, 1, &leaf);
  tree_node(&m, 2048, 0, 1, &snod);
  memcpy(m.b + 2560, "SNOD", 4);
  put(&m, 2560 + 4, 1, 1);
  put(&m, 2560 + 6, 1, 2);
  put(&m, 2560 + 16, 64, 8); /* the symbol's object header */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  put(&m, 2560 + 16, IMG, 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a symbol table node at offset 2560 whose symbol 0 has its object "
                              "header at offset 4096, past the end of the file (4096 bytes)");
  put(&m, 2560 + 16, 64, 8);
  m.b[2560] = 'X';
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a group B-tree child at offset 2560 that is no symbol table node "
                              "(\"SNOD\", version 1)");
  m.b[2560] = 'S';
  put(&m, 2048 + 5, 1, 1); /* the leaf at the root's level */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a group B-tree node at offset 2048 of level 1, not one below its "
                              "parent's (expected level 0)");
  tree_node(&m, 256, 1, 1, &self); /* the root's child is the root */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a group B-tree whose node at offset 256 is reached twice (expected "
                              "each node once)");
  tree_node(&m, 256, 1, 1, &leaf);
  put(&m, 2048 + 5, 0, 1);
  put(&m, 2048 + 4, 1, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a B-tree node at offset 2048 of type 1 (a group's is 0)");
  put(&m, 2048 + 4, 0, 1);
  /* with the superblock's K = 2: 5 entries are too many; 1 fits in a
   * node of 24 + 4 x 8 + 5 x 8 bytes */
  io_ohdr_src s = {
    .image = m.b, .eof = IMG, .sizeof_addr = 8, .sizeof_size = 8, .internal_k = 2, .leaf_k = 1
  };
  CU_ASSERT_EQUAL(io_ohdr_check(&s, 64, why, sizeof why), 0);
  put(&m, 2048 + 6, 5, 2);
  CU_ASSERT_EQUAL(io_ohdr_check(&s, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a group B-tree node at offset 2048 of 5 entries (at most 2K = 4)");
}

/* A version 1 header at 64 whose chunk 0 holds one message of the given
 * type and size at 80 (data at 88). */
static void v1_one_msg(img *m, unsigned type, unsigned size) {
  memset(m, 0, sizeof *m);
  v1_header(m, 64, 8 + size);
  v1_msg(m, 80, type, size);
}

/* MATLAB_class = "double" as a version 1 attribute message (56 bytes):
 * version, reserved, name size 13, datatype size 8, dataspace size 16; the
 * name padded to 16, the datatype (a string, class 3, of 6 bytes), the
 * dataspace (version 1, rank 1, one element), the 6-byte value. */
static void v1_attribute(img *m) {
  v1_one_msg(m, 0x0C, 56);
  put(m, 88, 1, 1);
  put(m, 90, 13, 2);
  put(m, 92, 8, 2);
  put(m, 94, 16, 2);
  memcpy(m->b + 96, "MATLAB_class", 13);
  put(m, 112, 0x13, 1);
  put(m, 116, 6, 4); /* the datatype's size */
  put(m, 120, 1, 1); /* dataspace version 1 */
  put(m, 121, 1, 1); /* rank 1 */
  put(m, 128, 1, 8); /* dims[0] */
  memcpy(m->b + 136, "double", 6);
}

static void test_messages(void) {
  img m;
  char why[160] = "";
  v1_attribute(&m);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  /* the value's datatype claims 256 MB: HDF5 would copy them */
  put(&m, 116, 0x10000000u, 4);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "an attribute message at offset 88 whose value (1 points of "
                              "268435456 bytes) runs past its 56 bytes");
  /* 7 elements of 6 bytes in 56 - 48 */
  v1_attribute(&m);
  put(&m, 128, 7, 8);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "whose value (7 points of 6 bytes)"));
  /* the name's size as in tests/fuzz/regressions/mat/v73-hdf5-attr-overflow.mat */
  v1_attribute(&m);
  put(&m, 90, 0xffff, 2);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "an attribute message at offset 88 whose name, datatype and "
                              "dataspace (65568 bytes) run past its 56 bytes");
  /* a dataspace message of rank 3 (8 + 24 bytes) in 16 bytes */
  v1_one_msg(&m, 0x01, 16);
  put(&m, 88, 1, 1);
  put(&m, 89, 3, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a dataspace message at offset 88 of 16 bytes, damaged");
  put(&m, 89, 1, 1); /* rank 1 fits */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  /* compact data (layout version 3, class 0) of 100 bytes in 16 */
  v1_one_msg(&m, 0x08, 16);
  put(&m, 88, 3, 1);
  put(&m, 90, 100, 2);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "compact data of 100 bytes at offset 88 in a message of 16");
  put(&m, 90, 12, 2); /* 12 bytes fit */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  /* a chunked layout (version 3: dimensionality 2, address, dims 4 bytes
   * each) with a dim of 0: libhdf5 divides by it; as version 2 (reserved
   * bytes before the address): likewise */
  v1_one_msg(&m, 0x08, 24);
  put(&m, 88, 3, 1);
  put(&m, 89, 2, 1);
  put(&m, 90, 2, 1);
  put(&m, 99, 10, 4);
  put(&m, 103, 8, 4);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  put(&m, 99, 0, 4);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a chunked layout message at offset 88 with a dim of 0");
  put(&m, 88, 2, 1); /* version 2: dims at 88 + 16, zero */
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  /* a shared message (flags bit 1): in the shared message heap (version
   * 2, type 1) refused; committed (version 3, type 2) to a header that is
   * checked in turn: at 512 (chunk 0 of 16 bytes) accepted, claiming 1 GiB
   * refused */
  v1_one_msg(&m, 0x05, 16);
  put(&m, 80 + 4, 0x02, 1);
  put(&m, 88, 2, 1);
  put(&m, 89, 1, 1);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a message at offset 88 kept in the shared message heap (not "
                              "supported)");
  put(&m, 88, 3, 1);
  put(&m, 89, 2, 1);
  put(&m, 90, 512, 8);
  v1_header(&m, 512, 16);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
  put(&m, 512 + 8, 1u << 30, 4);
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "chunk 0 of 1073741824 bytes"));
  /* a local heap whose last byte is not a NUL: a name without its end
   * (tests/fuzz/regressions/mat/v73-local-heap-name-unterminated.mat) */
  v1_group(&m, 1024, 88, "HEAP");
  m.b[1024 + 87] = 'x';
  CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "a local heap of 88 bytes at offset 1024 whose names do not end "
                              "inside it");
}

/* The superblock, found at 0 or 512: version 0 (root group's header
 * address in the root symbol table entry, byte 24 + 5 x 8) and version 2
 * (byte 12 + 3 x 8; the extension's at 12 + 8); no signature: refused. */
static void test_superblock(void) {
  static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
  img m;
  char why[160] = "";
  uint64_t root = 0, ext = 0;
  memset(&m, 0, sizeof m);
  memcpy(m.b + 512, sig, 8);
  put(&m, 512 + 13, 8, 1);
  put(&m, 512 + 14, 8, 1);
  put(&m, 512 + 64, 96, 8);
  io_ohdr_src s = { .image = m.b, .eof = IMG };
  CU_ASSERT_EQUAL(io_ohdr_superblock(&s, &root, &ext, why, sizeof why), 0);
  CU_ASSERT(s.base == 512 && s.sizeof_addr == 8 && s.sizeof_size == 8);
  CU_ASSERT(root == 96 && ext == UINT64_MAX);
  memset(&m, 0, sizeof m);
  memcpy(m.b, sig, 8);
  put(&m, 8, 2, 1);
  put(&m, 9, 4, 1);
  put(&m, 10, 8, 1);
  put(&m, 12 + 4, 0xffffffffu, 4); /* no extension */
  put(&m, 12 + 12, 48, 4);
  s = (io_ohdr_src){ .image = m.b, .eof = IMG };
  CU_ASSERT_EQUAL(io_ohdr_superblock(&s, &root, &ext, why, sizeof why), 0);
  CU_ASSERT(s.base == 0 && s.sizeof_addr == 4 && s.sizeof_size == 8);
  CU_ASSERT(root == 48 && ext == UINT64_MAX);
  memset(&m, 0, sizeof m);
  s = (io_ohdr_src){ .image = m.b, .eof = IMG };
  CU_ASSERT_EQUAL(io_ohdr_superblock(&s, &root, &ext, why, sizeof why), -1);
  CU_ASSERT_STRING_EQUAL(why, "no HDF5 superblock");
}

/* v2 at 64: "OHDR", 2, flags, [times], [limits], chunk-0 size of width
 * bytes; chunk 0 = a continuation message and a NIL message; the OCHK
 * chunk at 512 holds one NIL message.  Message headers are 4 bytes, 6 with
 * creation order (flags & 0x04).  Returns the continuation length's
 * position. */
static size_t v2_with_continuation(img *m, unsigned flags, uint64_t cont_len) {
  memset(m, 0, sizeof *m);
  unsigned mh = (flags & 0x04) ? 6 : 4, width = 1u << (flags & 3);
  size_t p = 64;
  memcpy(m->b + p, "OHDR", 4);
  m->b[p + 4] = 2;
  m->b[p + 5] = (unsigned char)flags;
  p += 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
  unsigned len0 = mh + 16 + mh + 10;
  put(m, p, len0, width);
  p += width;
  m->b[p] = 0x10;
  put(m, p + 1, 16, 2);
  size_t lenpos = p + mh + 8;
  cont_data(m, p + mh, 512, cont_len, 8, 8);
  p += mh + 16;
  put(m, p + 1, 10, 2); /* NIL */
  memcpy(m->b + 512, "OCHK", 4);
  put(m, 516 + 1, (unsigned)(cont_len >= 8 + mh ? cont_len - 8 - mh : 0), 2);
  return lenpos;
}

static void test_v2(void) {
  img m;
  char why[160] = "";
  static const unsigned flags[] = { 0x00,        0x04,
                                    0x01,        0x20 | 0x10 | 0x04,
                                    0x02 | 0x04, 0x20 | 0x10 | 0x04 | 0x03 };
  for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
    unsigned mh = (flags[k] & 0x04) ? 6 : 4;
    v2_with_continuation(&m, flags[k], 8 + mh + 20);
    CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), 0);
    size_t lenpos = v2_with_continuation(&m, flags[k], 8 + mh + 20);
    put(&m, lenpos, 1u << 30, 8);
    CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
    CU_ASSERT_STRING_EQUAL(why, "a continuation chunk of 1073741824 bytes at offset 512, "
                                "past the end of the file (4096 bytes)");
    /* the OCHK chunk's message one byte longer than its room */
    v2_with_continuation(&m, flags[k], 8 + mh + 20);
    put(&m, 517, 21, 2);
    CU_ASSERT_EQUAL(check_both(&m, IMG, 0, 8, 64, why, sizeof why), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(why, "a message of 21 bytes at offset 516 running past"));
  }
  /* sizes of offsets the check does not read */
  v1_with_continuation(&m, 0, 64);
  io_ohdr_src s16 = { .image = m.b, .eof = IMG, .sizeof_addr = 16, .sizeof_size = 8 };
  CU_ASSERT_EQUAL(io_ohdr_check(&s16, 64, why, sizeof why), -1);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "1 to 8 supported"));
  /* chunk 0 without room for its checksum: the file ends 2 bytes after */
  v2_with_continuation(&m, 0x00, 32);
  size_t end0 = 64 + 6 + 1 + 4 + 16 + 4 + 10;
  CU_ASSERT_EQUAL(check_both(&m, end0 + 2, 0, 8, 64, why, sizeof why), -1);
}

int main(void) {
  CU_initialize_registry();
  CU_pSuite s = CU_add_suite("hdf5 object headers", NULL, NULL);
  CU_add_test(s, "version 1 headers that fit: accepted", test_v1_accepted);
  CU_add_test(s, "version 1 headers that do not fit: refused with the reason", test_v1_refused);
  CU_add_test(s, "version 2 headers: flags, continuation, refusals", test_v2);
  CU_add_test(s, "an old-style group's local heap: inside the file", test_local_heap);
  CU_add_test(s, "a local heap's free list: inside the heap, no cycle", test_free_list);
  CU_add_test(s, "a dataset's header: with its layout message", test_dataset_layout);
  CU_add_test(s, "a layout message's fields as libhdf5 decodes them", test_layout_fields);
  CU_add_test(s, "a group's B-tree: nodes in the file, levels down, each once", test_group_btree);
  CU_add_test(s, "attributes, dataspaces, compact data: inside their messages", test_messages);
  CU_add_test(s, "the superblock: versions 0 and 2, or none", test_superblock);
  return tst_run();
}
