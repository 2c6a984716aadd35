/*
 * mjcf_write.h -- private to libmodels' MJCF writer (mjcf_write.c: the
 * document; mjcf_write_body.c: bodies, joints, geoms; mjcf_tree.c: the
 * kinematic tree; mjcf_write_key.c: the keyframe).
 */
#ifndef MJCF_WRITE_H
#define MJCF_WRITE_H

#include <stdio.h>

#include "mdl_internal.h"

#define MDL_NOT_IN_TREE (-2)
#define MDL_AS_UNSET    (-1)

typedef struct mdl_tree {
  int nb, nj;
  int *parent;          /* per body: its parent body, -1 the world body */
  int *pjoint;          /* per body: the joint that hangs it from its parent, -1 none
                     (a root: static, or free with a <freejoint/>) */
  int *first;           /* per body: its first child, -1 none */
  int *next;            /* per body: its next sibling, -1 none */
  int root_first;       /* the first child of the world body */
  int *order;           /* the bodies in document order */
  int *elem_body;       /* per body: MuJoCo's body id */
  int *as;              /* per joint: MDL_AS_* */
  int *elem;            /* per joint: the child's body id (tree) or the first
                     equality's id */
  int *adj_start, *adj; /* the joints at each body */
} mdl_tree;

/* The tree of m (validated), or -1 with the message (a loop MJCF cannot
 * close), -2 out of memory; t is freed on failure. */
int mdl_tree_build(const dyn_model *m, mdl_tree *t, char *msg, size_t cap);
void mdl_tree_free(mdl_tree *t);

/* The writer's state: the stream, the model, its tree, the element names
 * of the bodies (their own, or one made up where an element must name
 * them), and the first write error. */
typedef struct mdl_writer {
  FILE *f;
  const dyn_model *m;
  const mdl_write_options *o;
  mdl_tree t;
  char (*bname)[DYN_NAME_MAX + 16]; /* per body: its element's name ("" none) */
  int *bnamed;                      /* per body: 1 its own name, 0 made up */
  int failed;                       /* a write failed */
  int depth;                        /* bodies open (indentation) */
} mdl_writer;

/* "ball", "hinge", ... */
const char *mdl_joint_kind_name(dyn_joint_kind k);

/* Output helpers: a number (%.17g; -0 as 0), a vector, an XML-escaped
 * attribute value, formatted text. */
void mdl_w_printf(mdl_writer *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void mdl_w_num(mdl_writer *w, double x);
void mdl_w_nums(mdl_writer *w, const double *x, int n);
void mdl_w_attr_nums(mdl_writer *w, const char *attr, const double *x, int n);
void mdl_w_attr_text(mdl_writer *w, const char *attr, const char *text);

/* 1 if I is diagonal: written as diaginertia, else fullinertia. */
int mdl_is_diagonal(const dyn_m3 *I);

/* <keyframe>: the initial state in MuJoCo's coordinates (mjcf_write_key.c). */
void mdl_w_keyframe(mdl_writer *w);

/* The bodies of <worldbody>, nested (mjcf_write_body.c). */
void mdl_w_bodies(mdl_writer *w);
/* The plane's frame: the point d n and the rotation taking z to n. */
void mdl_plane_frame(dyn_v3 n, double d, dyn_v3 *pos, dyn_quat *rot);

#endif /* MJCF_WRITE_H */
