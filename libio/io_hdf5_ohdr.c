/* io_hdf5_ohdr.c -- an HDF5 object header's chunks checked against the file
 * before libhdf5 loads the header.
 *
 * Why: libhdf5 1.10.8 (Debian 12) allocates every chunk of an object header
 * at the size the file claims, before reading it, and when a chunk does not
 * fit in the file it fails without returning some of its free-list blocks.
 * A 128 KiB file whose continuation message claims a 738 MB chunk made it
 * allocate 738 MB, and left its library unable to shut down at exit
 * ("HDF5: infinite loop closing library" on stderr).  Found by fuzzing
 * (tests/fuzz/README.md, regression object-header-claims-738-MB.edits).
 *
 * What is read: the object header layout of the HDF5 file format
 * specification, version 3 ([hdf5format], section IV.A.1):
 *
 *   version 1:  version (1) = 1, reserved (1), number of messages (2),
 *               reference count (4), size of chunk 0 (4), reserved (4);
 *               chunk 0 follows at +16.  Each message: type (2), size (2),
 *               flags (1), reserved (3), then size bytes of data.
 *   version 2:  "OHDR", version (1) = 2, flags (1), [4 times of 4 bytes if
 *               flags & 0x20], [2 + 2 attribute limits if flags & 0x10],
 *               size of chunk 0 (1 << (flags & 3) bytes); chunk 0 follows,
 *               then a 4-byte checksum.  Each message: type (1), size (2),
 *               flags (1), [creation order (2) if the header's flags &
 *               0x04], data.
 *               Continuation chunks start with "OCHK" and end with a
 *               checksum, both inside the length the continuation gives.
 *   continuation message (type 0x10): offset (the file's size of
 *               offsets), length (its size of lengths).
 *
 * The same holds for an old-style group's local heap (the link names),
 * which libhdf5 allocates at its header's size at the group's first lookup
 * (378 GB asked for by a 13 KB fuzz input, local-heap-claims-378-GB.hdf5):
 * a symbol-table message's heap must be a "HEAP" whose data segment lies
 * inside the file.
 *
 * And libhdf5 copies an attribute's value (its dataspace's points times
 * its datatype's size) out of the attribute message without comparing that
 * with the message's size: a heap-buffer overflow under AddressSanitizer
 * (tests/fuzz/regressions/mat/mat-v73-hdf5-attr-overflow.mat).  So an
 * attribute's name, datatype, dataspace and value must lie inside its
 * message, a dataspace message's dims inside it, a compact dataset's data
 * inside its layout message, and a chunked one's dims inside it and not 0
 * (libhdf5 divides by them: SIGFPE, regression v73-chunk-dim-0.edits);
 * a dataset's header (a datatype and a dataspace) must have a layout.
 * The root group's header, which H5Fopen loads, is found through the
 * superblock (io_ohdr_superblock) so that it is checked before.
 *
 * Every chunk must lie inside the file and every message inside its chunk;
 * at most IO_OHDR_MAX_CHUNKS chunks are followed (a cycle of continuations
 * ends there).  Nothing else is judged: the rest is left to libhdf5, which
 * fails cleanly on it.  Little-endian fields, as the format says. */
#define _POSIX_C_SOURCE 200809L

#include "io_hdf5_ohdr.h"
#include "io_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IO_OHDR_MAX_CHUNKS 256
#define OHDR_DATASPACE     0x01
#define OHDR_DATATYPE      0x03
#define OHDR_LAYOUT        0x08
#define OHDR_ATTRIBUTE     0x0C
#define OHDR_CONTINUATION  0x10
#define OHDR_SYMBOL_TABLE  0x11

/* The reason into w->why (io_msgf), and -1. */
#define refuse(w, ...) (io_msgf((w)->why, (w)->whylen, __VA_ARGS__), -1)

/* n bytes at file offset off, or -1 when they are not all in the file */
static int read_at(const io_ohdr_src *s, uint64_t off, void *buf, size_t n) {
  if (off > s->eof || n > s->eof - off) return -1;
  if (s->image) {
    memcpy(buf, s->image + off, n);
    return 0;
  }
  if (fseeko(s->fp, (off_t)off, SEEK_SET) != 0) return -1;
  return fread(buf, 1, n, s->fp) == n ? 0 : -1;
}

static uint64_t le(const unsigned char *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned k = n; k-- > 0;) v = (v << 8) | p[k];
  return v;
}

typedef struct chunk {
  uint64_t at, len; /* file offset and length of the message area */
} chunk;

typedef struct walk {
  const io_ohdr_src *src;
  int version;
  unsigned flags; /* version 2: the header's flags */
  int depth;      /* 0, or 1 in a committed object a shared message names */
  chunk todo[IO_OHDR_MAX_CHUNKS];
  int ntodo, nseen;
  unsigned kinds; /* the dataset messages seen (seen_kind) */
  char *why;
  size_t whylen;
} walk;

static int push_chunk(walk *w, uint64_t at, uint64_t len, const char *what) {
  const io_ohdr_src *s = w->src;
  if (at > s->eof || len > s->eof - at)
    return refuse(w, "%s of %llu bytes at offset %llu, past the end of the file (%llu bytes)", what,
                  (unsigned long long)len, (unsigned long long)at, (unsigned long long)s->eof);
  if (w->nseen >= IO_OHDR_MAX_CHUNKS)
    return refuse(w, "more than %d chunks (a cycle of continuation messages?)", IO_OHDR_MAX_CHUNKS);
  w->todo[w->ntodo++] = (chunk){ at, len };
  w->nseen++;
  return 0;
}

/* a continuation message's data: the next chunk */
static int follow_continuation(walk *w, uint64_t data, uint64_t size) {
  const io_ohdr_src *s = w->src;
  unsigned char buf[16];
  if (size < s->sizeof_addr + s->sizeof_size)
    return refuse(w, "a continuation message of %llu bytes (needs %u)", (unsigned long long)size,
                  s->sizeof_addr + s->sizeof_size);
  if (read_at(s, data, buf, s->sizeof_addr + s->sizeof_size))
    return refuse(w, "a continuation message past the end of the file");
  uint64_t at = le(buf, s->sizeof_addr), len = le(buf + s->sizeof_addr, s->sizeof_size);
  if (at > UINT64_MAX - s->base) return refuse(w, "a continuation chunk at an impossible address");
  at += s->base;
  if (w->version == 2) {
    /* "OCHK" and the checksum sit inside the length */
    if (len < 8) return refuse(w, "a continuation chunk of %llu bytes", (unsigned long long)len);
    if (push_chunk(w, at, len, "a continuation chunk")) return -1;
    w->todo[w->ntodo - 1] = (chunk){ at + 4, len - 8 };
    return 0;
  }
  return push_chunk(w, at, len, "a continuation chunk");
}

/* A local heap's free list ([hdf5format] III.D, "Local Heaps"): from the
 * header's offset to its head, each free block (an offset in the data
 * segment) holds the offset of the next (1: none) and its own size, both of
 * the size of lengths.  libhdf5 follows it when it loads the heap, without
 * looking for a cycle: a 33 KB fuzz input whose free block named itself as
 * the next made H5Literate over the root group allocate without end
 * (regression v73-local-heap-free-list-cycle.edits).  Each block must lie
 * inside the data segment, none be reached twice, and there be no more
 * of them than fit in the heap (a longer list is refused by its count,
 * cycle or not).  A cycle is found, and the block it comes
 * back to named, with two walkers, one twice as fast as the other
 * (Floyd's cycle detection), without memory. */
#define HEAP_FREE_NULL 1

/* the free block after the one at offset at of the heap's data segment
 * (file offset seg, len bytes); -1 when at is not a block inside it */
static int next_free(walk *w, uint64_t seg, uint64_t len, uint64_t at, uint64_t *next) {
  unsigned ss = w->src->sizeof_size;
  unsigned char b[16];
  if (at >= len || len - at < 2ull * ss || read_at(w->src, seg + at, b, 2 * ss) ||
      le(b + ss, ss) > len - at)
    return refuse(w,
                  "a local heap whose free block at offset %llu does not lie inside its %llu "
                  "bytes",
                  (unsigned long long)at, (unsigned long long)len);
  *next = le(b, ss);
  return 0;
}

static int check_free_list(walk *w, uint64_t heap, uint64_t seg, uint64_t len, uint64_t head) {
  /* each free block holds its two fields: at most len / (2 x size of
   * lengths) blocks in a heap whose blocks do not overlap */
  uint64_t most = len / (2ull * w->src->sizeof_size), t = head, h = head, read = 0;
  for (;;) {
    for (int k = 0; k < 2; k++) { /* the fast walker checks every block */
      if (h == HEAP_FREE_NULL) return 0;
      if (++read > most)
        return refuse(w, "a local heap at offset %llu whose free list has more than %llu blocks",
                      (unsigned long long)heap, (unsigned long long)most);
      if (next_free(w, seg, len, h, &h)) return -1;
    }
    next_free(w, seg, len, t, &t); /* a block the fast one has read */
    if (t == h) break;
  }
  /* a cycle: the block it comes back to is as far from the head as the
   * walkers' meeting point is from it, along the cycle */
  for (t = head; t != h;) {
    next_free(w, seg, len, t, &t);
    next_free(w, seg, len, h, &h);
  }
  return refuse(w,
                "a local heap at offset %llu whose free list reaches the block at offset %llu "
                "twice (expected each free block once)",
                (unsigned long long)heap, (unsigned long long)t);
}

/* A symbol-table message's data (an old-style group): the address of its
 * B-tree, then of its local heap, whose data segment (the link names)
 * libhdf5 allocates at the size the heap's header gives before reading it
 * (found by fuzzing: a 128 KB file whose heap claimed 378 GB).  The heap's
 * header: "HEAP", version (1), reserved (3), data segment size (size of
 * lengths), offset to the free list (size of lengths), data segment
 * address (size of offsets). */
static int check_local_heap(walk *w, uint64_t data, uint64_t size) {
  const io_ohdr_src *s = w->src;
  unsigned sa = s->sizeof_addr, ss = s->sizeof_size;
  unsigned char b[32];
  if (size < 2 * (uint64_t)sa || read_at(s, data, b, 2 * sa))
    return refuse(w, "a symbol-table message of %llu bytes", (unsigned long long)size);
  uint64_t heap = le(b + sa, sa);
  if (heap > UINT64_MAX - s->base || read_at(s, heap + s->base, b, 8 + 2 * ss + sa) ||
      memcmp(b, "HEAP", 4) != 0)
    return refuse(w, "no local heap at offset %llu", (unsigned long long)heap);
  uint64_t len = le(b + 8, ss), at = le(b + 8 + 2 * ss, sa);
  if (at > UINT64_MAX - s->base || at + s->base > s->eof || len > s->eof - (at + s->base))
    return refuse(
        w, "a local heap of %llu bytes at offset %llu, past the end of the file (%llu bytes)",
        (unsigned long long)len, (unsigned long long)at, (unsigned long long)s->eof);
  /* libhdf5 copies a link's name from the heap up to its NUL (strdup, not
   * bounded by the heap: a read past its buffer found by fuzz_mat,
   * regression v73-local-heap-name-unterminated.mat); so the heap's last
   * byte must be a NUL, which ends every name.  libhdf5 writes it so: the
   * heap ends with the last name's padding or with a free block, whose
   * size's high byte is 0 */
  unsigned char last = 1;
  if (len == 0 || read_at(s, at + s->base + len - 1, &last, 1) || last != 0)
    return refuse(w, "a local heap of %llu bytes at offset %llu whose names do not end inside it",
                  (unsigned long long)len, (unsigned long long)at);
  return check_free_list(w, heap, at + s->base, len, le(b + 8 + ss, ss));
}

/* An old-style group's B-tree ([hdf5format] III.A.1, "Version 1 B-trees",
 * and III.C, "Symbol Table Nodes"), walked before libhdf5 looks anything
 * up in the group or lists it.  A 33 KB fuzz input (regression
 * v73-root-btree-child-not-a-node.edits) made HDF5's H5Literate over the
 * root group run without end; libhdf5 does not check that a group's B-tree
 * is a tree.  A group node ("TREE", node type 0): signature (4), type (1),
 * level (1), entries used (2), left and right siblings (size of offsets
 * each; not followed), then keys (size of lengths) and child addresses
 * alternating, entries + 1 keys; HDF5 reads 2K children and 2K + 1 keys
 * (K: the superblock's group internal node K).  A level-0 node's children
 * are symbol table nodes: "SNOD", version (1) = 1, reserved (1), number of
 * symbols (2), then 2K entries (K: group leaf node K) of link name offset,
 * object header address (size of offsets each), cache type (4), reserved
 * (4) and scratch pad (16).
 *
 * Every node must lie inside the file with its signature, a group node's
 * type 0 and entries at most 2K, each child one level below its parent,
 * no node reached twice (a set of the addresses seen, allocated once), at
 * most IO_BTREE_MAX_NODES nodes, and each symbol's object header address
 * inside the file.  K unknown (0: a version 2 or 3 superblock, before
 * libhdf5 has opened the file) bounds nothing but the nodes' size. */
#define IO_BTREE_MAX_NODES 65536u
#define BTREE_SNOD         (-1) /* a level-0 node's child: a symbol table node */
#define BTREE_ANY          (-2) /* the root: any level */

typedef struct bnode {
  uint64_t addr; /* file offset */
  int level;     /* the level expected, or BTREE_SNOD, BTREE_ANY */
} bnode;

typedef struct btree_walk {
  walk *w;
  uint64_t *seen; /* open addressing: offsets + 1, 0 empty */
  size_t nslots;  /* a power of two, at least twice cap */
  bnode *stack;
  size_t nstack, nvisited, cap;
} btree_walk;

/* queues the node at file offset at, unless it was reached before */
static int push_node(btree_walk *b, uint64_t at, int level) {
  walk *w = b->w;
  uint64_t base = w->src->base;
  if (at >= w->src->eof)
    return refuse(w, "a group B-tree node at offset %llu, past the end of the file (%llu bytes)",
                  (unsigned long long)(at - base), (unsigned long long)w->src->eof);
  size_t mask = b->nslots - 1, i = (size_t)((at * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  for (; b->seen[i]; i = (i + 1) & mask)
    if (b->seen[i] == at + 1)
      return refuse(w,
                    "a group B-tree whose node at offset %llu is reached twice "
                    "(expected each node once)",
                    (unsigned long long)(at - base));
  if (b->nvisited >= b->cap) return refuse(w, "a group B-tree of more than %zu nodes", b->cap);
  b->seen[i] = at + 1;
  b->nvisited++;
  b->stack[b->nstack++] = (bnode){ at, level };
  return 0;
}

/* n bytes at at, all inside the file */
static int node_fits(walk *w, uint64_t at, uint64_t n, const char *what) {
  const io_ohdr_src *s = w->src;
  if (n > s->eof - at)
    return refuse(w, "%s of %llu bytes at offset %llu, past the end of the file (%llu bytes)", what,
                  (unsigned long long)n, (unsigned long long)(at - s->base),
                  (unsigned long long)s->eof);
  return 0;
}

/* a symbol table node: inside the file, each object header address too */
static int check_snod(walk *w, uint64_t at) {
  const io_ohdr_src *s = w->src;
  unsigned sa = s->sizeof_addr, esz = 2 * sa + 24;
  unsigned char b[8];
  uint64_t rel = at - s->base;
  if (read_at(s, at, b, 8) || memcmp(b, "SNOD", 4) != 0 || b[4] != 1)
    return refuse(w,
                  "a group B-tree child at offset %llu that is no symbol table node (\"SNOD\", "
                  "version 1)",
                  (unsigned long long)rel);
  uint64_t n = le(b + 6, 2);
  if (s->leaf_k && n > 2ull * s->leaf_k)
    return refuse(w, "a symbol table node at offset %llu of %llu symbols (at most 2K = %u)",
                  (unsigned long long)rel, (unsigned long long)n, 2 * s->leaf_k);
  uint64_t size = 8 + (s->leaf_k ? 2ull * s->leaf_k : n) * esz;
  if (node_fits(w, at, size, "a symbol table node")) return -1;
  for (uint64_t k = 0; k < n; k++) {
    if (read_at(s, at + 8 + k * esz + sa, b, sa)) return refuse(w, "a symbol past the end");
    uint64_t oh = le(b, sa);
    if (oh >= s->eof - s->base)
      return refuse(w,
                    "a symbol table node at offset %llu whose symbol %llu has its object header "
                    "at offset %llu, past the end of the file (%llu bytes)",
                    (unsigned long long)rel, (unsigned long long)k, (unsigned long long)oh,
                    (unsigned long long)s->eof);
  }
  return 0;
}

/* a group B-tree node: signature, type, level, entries; its children
 * queued */
static int check_tree_node(btree_walk *bw, bnode nd) {
  walk *w = bw->w;
  const io_ohdr_src *s = w->src;
  unsigned sa = s->sizeof_addr, ss = s->sizeof_size, k2 = 2 * s->internal_k;
  unsigned char b[24];
  uint64_t rel = nd.addr - s->base;
  if (read_at(s, nd.addr, b, 8) || memcmp(b, "TREE", 4) != 0)
    return refuse(w, "a group B-tree node at offset %llu without its signature \"TREE\"",
                  (unsigned long long)rel);
  unsigned type = b[4], level = b[5];
  uint64_t n = le(b + 6, 2);
  if (type != 0)
    return refuse(w, "a B-tree node at offset %llu of type %u (a group's is 0)",
                  (unsigned long long)rel, type);
  if (nd.level != BTREE_ANY && (int)level != nd.level)
    return refuse(w,
                  "a group B-tree node at offset %llu of level %u, not one below its parent's "
                  "(expected level %d)",
                  (unsigned long long)rel, level, nd.level);
  if (k2 && n > k2)
    return refuse(w, "a group B-tree node at offset %llu of %llu entries (at most 2K = %u)",
                  (unsigned long long)rel, (unsigned long long)n, k2);
  uint64_t head = 8 + 2ull * sa, size = head + (k2 ? k2 : n) * (uint64_t)(sa + ss) + ss;
  if (node_fits(w, nd.addr, size, "a group B-tree node")) return -1;
  for (uint64_t k = 0; k < n; k++) {
    if (read_at(s, nd.addr + head + ss + k * (sa + ss), b, sa))
      return refuse(w, "a group B-tree child past the end");
    uint64_t child = le(b, sa);
    if (child > UINT64_MAX - s->base)
      return refuse(w, "a group B-tree child at an impossible address");
    if (push_node(bw, child + s->base, level > 0 ? (int)level - 1 : BTREE_SNOD)) return -1;
  }
  return 0;
}

/* A symbol-table message's data: its B-tree (the first address) walked
 * from its root, each node once. */
static int check_group_btree(walk *w, uint64_t data, uint64_t size) {
  const io_ohdr_src *s = w->src;
  unsigned char b[8];
  if (size < s->sizeof_addr || read_at(s, data, b, s->sizeof_addr))
    return refuse(w, "a symbol-table message of %llu bytes", (unsigned long long)size);
  uint64_t root = le(b, s->sizeof_addr);
  if (root > UINT64_MAX - s->base) return refuse(w, "a group B-tree at an impossible address");
  btree_walk bw = { .w = w, .cap = IO_BTREE_MAX_NODES };
  if (s->eof / 8 + 1 < bw.cap) bw.cap = (size_t)(s->eof / 8 + 1); /* a node has 8 bytes or more */
  for (bw.nslots = 1; bw.nslots < 2 * bw.cap;) bw.nslots *= 2;
  void *mem = calloc(1, bw.nslots * sizeof *bw.seen + bw.cap * sizeof *bw.stack);
  if (!mem) return refuse(w, "no memory to walk a group B-tree");
  bw.seen = mem;
  bw.stack = (bnode *)(bw.seen + bw.nslots);
  int r = push_node(&bw, root + s->base, BTREE_ANY);
  while (r == 0 && bw.nstack > 0) {
    bnode nd = bw.stack[--bw.nstack];
    r = nd.level == BTREE_SNOD ? check_snod(w, nd.addr) : check_tree_node(&bw, nd);
  }
  free(mem);
  return r;
}

/* A dataspace's encoding in len bytes at p (a dataspace message, or the
 * dataspace field of an attribute): version 1: version, rank, flags,
 * reserved (5), dims (rank x size of lengths), max dims if flags & 1;
 * version 2: version, rank, flags, type (0 scalar, 1 simple, 2 null), dims,
 * max dims if flags & 1.  Its dims must fit in len; *npoints their product
 * (a double: no overflow; scalar 1, null 0).  -1 when they do not fit. */
static int dataspace_points(const walk *w, const unsigned char *p, uint64_t len, double *npoints) {
  unsigned ss = w->src->sizeof_size;
  if (len < 4 || (p[0] != 1 && p[0] != 2)) return -1;
  unsigned rank = p[1], flags = p[2], head = p[0] == 1 ? 8 : 4;
  uint64_t need = head + (uint64_t)rank * ss * ((flags & 1) ? 2 : 1);
  if (need > len) return -1;
  double np = (p[0] == 2 && p[3] == 2) ? 0 : 1;
  for (unsigned k = 0; k < rank; k++) np *= (double)le(p + head + (uint64_t)k * ss, ss);
  *npoints = np;
  return 0;
}

/* The bytes of one element of a datatype's encoding (len bytes at p):
 * class and version (1; the class in the low 4 bits), class bit fields (3),
 * size (4); a variable-length type (class 9) is stored as a global heap
 * reference, 4 + size of offsets + 4 bytes.  0 when it does not fit. */
static double datatype_bytes(const walk *w, const unsigned char *p, uint64_t len) {
  if (len < 8) return 0;
  if ((p[0] & 0x0f) == 9) return 8.0 + w->src->sizeof_addr;
  return (double)le(p + 4, 4);
}

/* An attribute message (len bytes at file offset at): libhdf5 1.10.8
 * copies the attribute's value, its dataspace's points times its
 * datatype's size, from the message without comparing that with the
 * message's size (a heap-buffer overflow found by tests/fuzz/fuzz_mat,
 * regression mat-v73-hdf5-attr-overflow.mat).  [hdf5format] IV.A.2.m:
 * version (1), flags (1; reserved in version 1), name, datatype and
 * dataspace sizes (2 each), [encoding (1) in version 3], then the name,
 * datatype and dataspace (each padded to 8 bytes in version 1), then the
 * value.  A shared datatype or dataspace (flags 1, 2) is a reference, whose
 * value size is not known here: only the fields are bounded then. */
static int check_attribute(walk *w, uint64_t at, uint64_t len) {
  unsigned char b[1024];
  uint64_t n = len < sizeof b ? len : sizeof b;
  if (read_at(w->src, at, b, n)) return refuse(w, "an attribute message past the end of the file");
  unsigned ver = n >= 1 ? b[0] : 0, flags = ver >= 2 && n >= 2 ? b[1] : 0;
  uint64_t head = ver == 3 ? 9 : 8;
  if (n < head || ver < 1 || ver > 3)
    return refuse(w, "an attribute message at offset %llu of version %u (1 to 3 supported)",
                  (unsigned long long)at, ver);
  uint64_t f[3] = { le(b + 2, 2), le(b + 4, 2), le(b + 6, 2) }, off[3];
  uint64_t p = head;
  for (int k = 0; k < 3; k++) {
    off[k] = p;
    p += ver == 1 ? (f[k] + 7) / 8 * 8 : f[k];
  }
  if (p > len)
    return refuse(w,
                  "an attribute message at offset %llu whose name, datatype and dataspace "
                  "(%llu bytes) run past its %llu bytes",
                  (unsigned long long)at, (unsigned long long)p, (unsigned long long)len);
  if (flags & 3) return 0;
  double np = 0, esz = 0;
  if (off[2] + f[2] > n || dataspace_points(w, b + off[2], f[2], &np) || off[1] + f[1] > n ||
      (esz = datatype_bytes(w, b + off[1], f[1])) <= 0)
    return refuse(w, "an attribute message at offset %llu with a damaged datatype or dataspace",
                  (unsigned long long)at);
  if (np * esz > (double)(len - p))
    return refuse(w,
                  "an attribute message at offset %llu whose value (%.0f points of %.0f bytes) "
                  "runs past its %llu bytes",
                  (unsigned long long)at, np, esz, (unsigned long long)len);
  return 0;
}

/* A dataspace message (the dataset's shape): its dims inside it. */
static int check_dataspace(walk *w, uint64_t at, uint64_t len) {
  unsigned char b[8 + 2 * 32 * 8];
  uint64_t n = len < sizeof b ? len : sizeof b;
  double np;
  if (read_at(w->src, at, b, n) || dataspace_points(w, b, n, &np))
    return refuse(w, "a dataspace message at offset %llu of %llu bytes, damaged",
                  (unsigned long long)at, (unsigned long long)len);
  return 0;
}

/* n chunk dims of w bytes each at p (len bytes left): inside the message
 * and none 0 (libhdf5 1.10.8 divides by them opening the dataset: SIGFPE
 * found by tests/fuzz/fuzz_mat, regression v73-chunk-dim-0.edits). */
static int check_chunk_dims(walk *w, uint64_t at, const unsigned char *p, uint64_t len, unsigned n,
                            unsigned width) {
  if (width < 1 || width > 8 || (uint64_t)n * width > len)
    return refuse(w, "a chunked layout message at offset %llu whose %u dims run past it",
                  (unsigned long long)at, n);
  for (unsigned k = 0; k < n; k++)
    if (le(p + (uint64_t)k * width, width) == 0)
      return refuse(w, "a chunked layout message at offset %llu with a dim of 0",
                    (unsigned long long)at);
  return 0;
}

#define LAYOUT_MAX_DIMS 33 /* HDF5's largest rank + 1 (a chunk's element size) */

static int layout_damaged(walk *w, uint64_t at, uint64_t len) {
  return refuse(w, "a layout message at offset %llu of %llu bytes, damaged", (unsigned long long)at,
                (unsigned long long)len);
}

/* A version 4 chunked layout's chunk index, after its dims: its type (1
 * single chunk, 2 implicit, 3 fixed array, 4 extensible array, 5 version 2
 * B-tree), its parameters (libhdf5 refuses a fixed or extensible array's
 * of 0) and its address. */
static int check_chunk_index(walk *w, uint64_t at, const unsigned char *p, uint64_t len,
                             unsigned flags) {
  unsigned type = len ? p[0] : 0;
  uint64_t need = type == 1   ? ((flags & 2) ? w->src->sizeof_size + 4u : 0)
                  : type == 2 ? 0
                  : type == 3 ? 1
                  : type == 4 ? 5
                              : 6;
  if (type < 1 || type > 5)
    return refuse(w,
                  "a chunked layout message at offset %llu with chunk index type %u (1 to 5 exist)",
                  (unsigned long long)at, type);
  if (1 + need + w->src->sizeof_addr > len) return layout_damaged(w, at, len);
  for (uint64_t k = 1; (type == 3 || type == 4) && k <= need; k++)
    if (p[k] == 0)
      return refuse(w, "a chunked layout message at offset %llu with a chunk index parameter of 0",
                    (unsigned long long)at);
  return 0;
}

/* A chunked layout (class 2) as libhdf5 decodes it: versions 1 and 2:
 * dimensionality (2 to 33, byte 1), reserved, address, dims (4 bytes each);
 * version 3: dimensionality (2 to 33), address, dims; version 4: flags
 * (bits 0 and 1 only), dimensionality (at most 33), the dims' width (1 to
 * 8), dims, the chunk index.  No dim may be 0 (libhdf5 divides by them). */
static int check_chunked(walk *w, uint64_t at, const unsigned char *b, uint64_t n, uint64_t len) {
  unsigned ver = b[0], sa = w->src->sizeof_addr, nd, width = 4;
  uint64_t dims;
  if (ver < 3) {
    nd = b[1];
    dims = 8 + sa;
  } else if (ver == 3) {
    nd = b[2];
    dims = 3 + sa;
  } else {
    if (b[2] & ~3u)
      return refuse(
          w, "a chunked layout message at offset %llu with flags 0x%02x (bits 0 and 1 exist)",
          (unsigned long long)at, b[2]);
    nd = b[3];
    width = b[4];
    dims = 5;
  }
  if (nd > LAYOUT_MAX_DIMS || (ver < 4 && nd < 2))
    return refuse(w, "a chunked layout message at offset %llu of dimensionality %u (2 to %d)",
                  (unsigned long long)at, nd, LAYOUT_MAX_DIMS);
  if (dims > n) return layout_damaged(w, at, len);
  if (check_chunk_dims(w, at, b + dims, n - dims, nd, width)) return -1;
  uint64_t end = dims + (uint64_t)nd * width;
  return ver == 4 ? check_chunk_index(w, at, b + end, n - end, b[2]) : 0;
}

/* A data layout message ([hdf5format] IV.A.2.i), checked as libhdf5
 * decodes it: versions 1 to 4; classes 0 (compact), 1 (contiguous) and 2
 * (chunked; check_chunked), and 3 (virtual: data in other files, refused);
 * every field inside the message.  libhdf5 takes a header with a datatype
 * and a dataspace for a dataset's, and when its layout fails to decode
 * after a filter pipeline message was read, libhdf5 1.10.8 leaks the
 * pipeline (a fuzz finding of fuzz_mat).  Versions 1 and 2: version,
 * dimensionality, class, reserved (5), [address], dims (4 bytes each),
 * [compact: size (4), data].  Versions 3 and 4: version, class, then
 * compact: size (2), data; contiguous: address, size (size of lengths). */
static int check_layout(walk *w, uint64_t at, uint64_t len) {
  unsigned char b[8 + 8 + 8 * LAYOUT_MAX_DIMS + 24];
  uint64_t n = len < sizeof b ? len : sizeof b, sa = w->src->sizeof_addr;
  if (len < 2 || read_at(w->src, at, b, n)) return layout_damaged(w, at, len);
  unsigned ver = b[0];
  if (ver < 1 || ver > 4)
    return refuse(w, "a layout message at offset %llu of version %u (1 to 4 exist)",
                  (unsigned long long)at, ver);
  if (ver < 3 && n < 8) return layout_damaged(w, at, len);
  unsigned cls = ver < 3 ? b[2] : b[1];
  if (cls == 3 && ver == 4)
    return refuse(w, "a virtual dataset's layout message at offset %llu (data in other files)",
                  (unsigned long long)at);
  if (cls > 2)
    return refuse(w, "a layout message at offset %llu of class %u (0 to 2 exist)",
                  (unsigned long long)at, cls);
  if (ver < 3 && b[1] > LAYOUT_MAX_DIMS)
    return refuse(w, "a layout message at offset %llu of dimensionality %u (at most %d)",
                  (unsigned long long)at, b[1], LAYOUT_MAX_DIMS);
  if (cls == 2) return check_chunked(w, at, b, n, len);
  uint64_t size = 0, head = 4;
  if (cls == 1) /* contiguous: its fields inside the message */
    return (ver < 3 ? 8 + sa + 4ull * b[1] : 2 + sa + w->src->sizeof_size) > len
               ? layout_damaged(w, at, len)
               : 0;
  if (ver >= 3) {
    size = le(b + 2, 2);
  } else {
    head = 8 + 4 * (uint64_t)b[1] + 4;
    if (head > n)
      return refuse(w, "a compact layout message at offset %llu, damaged", (unsigned long long)at);
    size = le(b + head - 4, 4);
  }
  if (head > len || size > len - head)
    return refuse(w, "compact data of %llu bytes at offset %llu in a message of %llu",
                  (unsigned long long)size, (unsigned long long)at, (unsigned long long)len);
  return 0;
}

static int check_header(const io_ohdr_src *src, uint64_t addr, int depth, char *whybuf,
                        size_t whylen);

/* A shared message (its flags' bit 1): in place of the message, where it
 * is kept ([hdf5format] IV.A.2, "Shared Messages"): version (1), type (1;
 * from version 2, 1 is the shared message heap), then version 1: reserved
 * (6) and a symbol table entry (name offset, header address); versions 2
 * and 3: the heap ID or the committed object's header address.  libhdf5
 * 1.10.8 reads the shared message heap through a table a file without one
 * lacks (a NULL read in H5SM_get_fheap_addr found by tests/fuzz/fuzz_mat,
 * regression v73-shared-message-without-table.edits): no writer of the
 * files lcplab reads uses it, so it is refused; a committed object's
 * header is checked as this one (one level: a shared message inside it is
 * refused). */
static int check_shared(walk *w, uint64_t at, uint64_t len) {
  unsigned sa = w->src->sizeof_addr;
  unsigned char b[32];
  uint64_t n = len < sizeof b ? len : sizeof b;
  if (n < 2 || read_at(w->src, at, b, n) || b[0] < 1 || b[0] > 3)
    return refuse(w, "a shared message at offset %llu, damaged", (unsigned long long)at);
  if (b[0] >= 2 && b[1] == 1)
    return refuse(w, "a message at offset %llu kept in the shared message heap (not supported)",
                  (unsigned long long)at);
  uint64_t off = b[0] == 1 ? 8 + sa : 2;
  if (off + sa > n)
    return refuse(w, "a shared message at offset %llu, damaged", (unsigned long long)at);
  if (w->depth > 0)
    return refuse(w, "a shared message at offset %llu inside a committed object",
                  (unsigned long long)at);
  return check_header(w->src, le(b + off, sa), w->depth + 1, w->why, w->whylen);
}

/* What a message says of a dataset's header: libhdf5 takes a header with
 * a datatype and a dataspace message for a dataset and then needs its
 * layout message; when a filter pipeline message is there and the layout
 * is not, libhdf5 1.10.8 leaks the pipeline it has read (a fuzz finding of
 * fuzz_mat), so such a header is refused (check_header). */
#define KIND_DATASPACE 1u
#define KIND_DATATYPE  2u
#define KIND_LAYOUT    4u
static unsigned seen_kind(unsigned type) {
  return type == OHDR_DATASPACE  ? KIND_DATASPACE
         : type == OHDR_DATATYPE ? KIND_DATATYPE
         : type == OHDR_LAYOUT   ? KIND_LAYOUT
                                 : 0u;
}

/* every message of one chunk inside it; continuations queued; a group's
 * local heap inside the file; an attribute's value, a dataspace's dims and
 * compact data inside their messages */
static int walk_chunk(walk *w, chunk c) {
  const unsigned hdr = w->version == 1 ? 8 : 4;
  uint64_t p = c.at, end = c.at + c.len;
  while (end - p >= hdr) {
    unsigned char m[8]; /* a version-1 message header */
    if (read_at(w->src, p, m, hdr)) return refuse(w, "a message past the end");
    unsigned type = w->version == 1 ? (unsigned)le(m, 2) : m[0];
    unsigned mflags = w->version == 1 ? m[4] : m[3];
    uint64_t size = w->version == 1 ? le(m + 2, 2) : le(m + 1, 2);
    uint64_t head = hdr;
    if (w->version == 2 && (w->flags & 0x04)) head += 2; /* creation order tracked */
    if (end - p < head || size > end - p - head)
      return refuse(w,
                    "a message of %llu bytes at offset %llu running past its chunk's end "
                    "(offset %llu)",
                    (unsigned long long)size, (unsigned long long)p, (unsigned long long)end);
    w->kinds |= seen_kind(type);
    if ((mflags & 0x02) && check_shared(w, p + head, size)) return -1;
    if (mflags & 0x02) { /* the message is elsewhere: its data here is the reference */
      p += head + size;
      continue;
    }
    if (type == OHDR_CONTINUATION && follow_continuation(w, p + head, size)) return -1;
    if (type == OHDR_SYMBOL_TABLE &&
        (check_local_heap(w, p + head, size) || check_group_btree(w, p + head, size)))
      return -1;
    if (type == OHDR_ATTRIBUTE && check_attribute(w, p + head, size)) return -1;
    if (type == OHDR_DATASPACE && check_dataspace(w, p + head, size)) return -1;
    if (type == OHDR_LAYOUT && check_layout(w, p + head, size)) return -1;
    p += head + size;
  }
  return 0;
}

/* chunk 0 from the header's prefix */
static int first_chunk(walk *w, uint64_t addr) {
  const io_ohdr_src *s = w->src;
  unsigned char b[40]; /* the longest prefix: 6 + 16 + 4 + 8 bytes */
  if (read_at(s, addr, b, 16))
    return refuse(w, "an object header at offset %llu, past the end of the file",
                  (unsigned long long)addr);
  if (b[0] == 1) {
    w->version = 1;
    return push_chunk(w, addr + 16, le(b + 8, 4), "chunk 0");
  }
  if (memcmp(b, "OHDR", 4) != 0 || b[4] != 2)
    return refuse(w, "no object header (version 1 or \"OHDR\" 2) at offset %llu",
                  (unsigned long long)addr);
  w->version = 2;
  unsigned flags = w->flags = b[5];
  unsigned at = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
  unsigned width = 1u << (flags & 3);
  if (read_at(s, addr, b, at + width))
    return refuse(w, "an object header prefix past the end of the file");
  uint64_t len = le(b + at, width);
  /* the 4-byte checksum follows chunk 0 */
  if (push_chunk(w, addr + at + width, len, "chunk 0")) return -1;
  if (len > s->eof - (addr + at + width) || s->eof - (addr + at + width) - len < 4)
    return refuse(w, "chunk 0 without room for its checksum");
  return 0;
}

int io_ohdr_check(const io_ohdr_src *src, uint64_t addr, char *whybuf, size_t whylen) {
  return check_header(src, addr, 0, whybuf, whylen);
}

/* io_ohdr_check at a depth (check_shared) */
static int check_header(const io_ohdr_src *src, uint64_t addr, int depth, char *whybuf,
                        size_t whylen) {
  walk w = { .src = src, .depth = depth, .why = whybuf, .whylen = whylen };
  if (src->sizeof_addr < 1 || src->sizeof_addr > 8 || src->sizeof_size < 1 || src->sizeof_size > 8)
    return refuse(&w, "sizes of offsets and lengths %u and %u (1 to 8 supported)", src->sizeof_addr,
                  src->sizeof_size);
  if (addr > UINT64_MAX - src->base) return refuse(&w, "an impossible address");
  if (first_chunk(&w, addr + src->base)) return -1;
  for (int k = 0; k < w.ntodo; k++)
    if (walk_chunk(&w, w.todo[k])) return -1;
  if (w.kinds == (KIND_DATASPACE | KIND_DATATYPE))
    return refuse(&w, "a dataset's object header at offset %llu without a layout message",
                  (unsigned long long)addr);
  return 0;
}

/* The superblock ([hdf5format] II.A): at offset 0, 512, 1024, 2048, ...,
 * the signature "\211HDF\r\n\032\n", then its version (byte 8).
 * Versions 0 and 1: sizes of offsets and lengths at bytes 13 and 14, the
 * group leaf and internal node K's at 16 and 18, then (from byte 24, 28 in
 * version 1) four addresses (the third the end of file) and the root group's
 * symbol table entry (link name offset, object header address).  Versions
 * 2 and 3: the sizes at bytes 9 and 10, then (from byte 12) the base, the
 * superblock extension's, end-of-file and root object header addresses. */
int io_ohdr_superblock(io_ohdr_src *src, uint64_t *root, uint64_t *ext, char *whybuf,
                       size_t whylen) {
  static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
  walk w = { .src = src, .why = whybuf, .whylen = whylen };
  unsigned char b[96];
  uint64_t at = 0;
  while (read_at(src, at, b, 8) == 0 && memcmp(b, sig, 8) != 0) at = at ? 2 * at : 512;
  if (read_at(src, at, b, 16)) return refuse(&w, "no HDF5 superblock");
  unsigned ver = b[8], sa = ver < 2 ? b[13] : b[9], ss = ver < 2 ? b[14] : b[10];
  if (ver > 3 || sa < 1 || sa > 8 || ss < 1 || ss > 8)
    return refuse(&w, "a superblock of version %u, sizes %u and %u", ver, sa, ss);
  unsigned head = ver == 0 ? 24 : ver == 1 ? 28 : 12;
  unsigned need = ver < 2 ? head + 6 * sa : head + 4 * sa;
  if (read_at(src, at, b, need)) return refuse(&w, "a superblock past the end of the file");
  src->base = at;
  src->sizeof_addr = sa;
  src->sizeof_size = ss;
  src->leaf_k = ver < 2 ? (unsigned)le(b + 16, 2) : 0;
  src->internal_k = ver < 2 ? (unsigned)le(b + 18, 2) : 0;
  /* the end-of-file address, in both layouts; libhdf5 compares it with
   * the file's whole length, user block included */
  src->stored_eof = le(b + head + 2 * sa, sa);
  *root = le(b + head + (ver < 2 ? 5 * sa : 3 * sa), sa);
  *ext = ver < 2 ? UINT64_MAX : le(b + head + sa, sa);
  if (sa < 8 && *ext == (1ull << (8 * sa)) - 1) *ext = UINT64_MAX; /* undefined: all ones */
  return 0;
}
