/*
 * mjcf_tree.c -- the kinematic tree the writer gives MuJoCo (mjcf_write.h;
 * docs/models.md, "Joints").
 *
 * lcplab's joints are constraints between two bodies in maximal
 * coordinates; MJCF nests bodies, and a body's joints say how it moves in
 * its parent's frame.  The joints that form the tree are a spanning forest
 * of the joint graph, the world and the static bodies counted as one node
 * (the ground): the joints that MJCF cannot use to close a loop (slider,
 * hinge-2, universal) are taken into the forest first, then the others,
 * each group in index order; a joint whose two ends are already connected
 * closes a loop and becomes an equality constraint (ball: <connect>,
 * fixed: <weld>, hinge: two <connect> on its axis; a slider, hinge-2 or
 * universal joint left to close a loop is refused).  The forest is then
 * hung from its roots breadth first: the world (joints with b = -1) and
 * the static bodies in index order, then, for each component not tied to
 * them, its body of lowest index, a free root with a <freejoint/>.
 * Children are listed in index order, roots too, so MuJoCo's body order
 * follows the model's where the joints allow.
 *
 * MuJoCo numbers bodies, joints, geoms and sites depth first in document
 * order; the element ids computed here are those numbers (the custom data
 * records them, mdl_internal.h).
 */
#include "mjcf_write.h"

#include <stdlib.h>
#include <string.h>

void mdl_tree_free(mdl_tree *t) {
  if (!t) return;
  free(t->parent);
  free(t->pjoint);
  free(t->first);
  free(t->next);
  free(t->order);
  free(t->elem_body);
  free(t->as);
  free(t->elem);
  free(t->adj_start);
  free(t->adj);
  memset(t, 0, sizeof *t);
}

/* adj_start / adj: the joints at each body (CSR, in joint order). */
static int build_adjacency(const dyn_model *m, mdl_tree *t) {
  const dyn_joint_def *J = dyn_model_joints(m);
  int nb = t->nb, nj = t->nj;
  t->adj_start = calloc((size_t)nb + 1, sizeof *t->adj_start);
  t->adj = malloc((size_t)(2 * nj + 1) * sizeof *t->adj);
  if (!t->adj_start || !t->adj) return -1;
  for (int j = 0; j < nj; j++) {
    t->adj_start[J[j].a + 1]++;
    if (J[j].b >= 0) t->adj_start[J[j].b + 1]++;
  }
  for (int i = 0; i < nb; i++) t->adj_start[i + 1] += t->adj_start[i];
  int *fill = calloc((size_t)nb + 1, sizeof *fill);
  if (!fill) return -1;
  for (int j = 0; j < nj; j++) {
    t->adj[t->adj_start[J[j].a] + fill[J[j].a]++] = j;
    if (J[j].b >= 0) t->adj[t->adj_start[J[j].b] + fill[J[j].b]++] = j;
  }
  free(fill);
  return 0;
}

/* What a joint that closes a loop is written as, or -1 (not expressible). */
static int loop_form(dyn_joint_kind k) {
  switch (k) {
  case DYN_JOINT_BALL: return MDL_AS_CONNECT;
  case DYN_JOINT_FIXED: return MDL_AS_WELD;
  case DYN_JOINT_HINGE: return MDL_AS_CONNECT2;
  default: return -1;
  }
}

/* Union-find over the bodies and the ground (index nb: the world and the
 * static bodies, which are MJCF's static bodies all together). */
static int find(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

/* Which joints close loops: a spanning forest of the joint graph, with the
 * joints that cannot close a loop (slider, hinge-2, universal) taken into
 * it first, each in index order; as[j] = the loop's form for the others
 * (MDL_AS_UNSET stays on the forest's edges). */
static int find_loops(const dyn_model *m, mdl_tree *t, char *msg, size_t cap) {
  const dyn_joint_def *J = dyn_model_joints(m);
  const dyn_body_def *B = dyn_model_bodies(m);
  int nb = t->nb, *up = malloc(((size_t)nb + 1) * sizeof *up);
  if (!up) return -2;
  for (int i = 0; i < nb; i++) up[i] = B[i].is_static ? nb : i;
  up[nb] = nb;
  for (int pass = 0; pass < 2; pass++)
    for (int j = 0; j < t->nj; j++) {
      int form = loop_form(J[j].kind);
      if ((pass == 0) != (form < 0)) continue;
      int u = find(up, J[j].a), v = find(up, J[j].b < 0 ? nb : J[j].b);
      if (u != v) {
        up[u] = v;
        continue;
      }
      if (form < 0) {
        free(up);
        mdl_msg(msg, cap,
                "joint %d '%s': a %s joint closes a loop, and MJCF's equality constraints "
                "close loops only with ball (connect), fixed (weld) and hinge joints",
                j, J[j].name, mdl_joint_kind_name(J[j].kind));
        return -1;
      }
      t->as[j] = form;
    }
  free(up);
  return 0;
}

/* The search from the bodies queue[head .. *tail) along the forest's
 * edges: each makes the body at its other end a child. */
static void search(const dyn_model *m, mdl_tree *t, int *queue, int head, int *tail) {
  const dyn_joint_def *J = dyn_model_joints(m);
  for (; head < *tail; head++) {
    int u = queue[head]; /* -1: the world */
    int lo = u >= 0 ? t->adj_start[u] : 0, hi = u >= 0 ? t->adj_start[u + 1] : t->nj;
    for (int k = lo; k < hi; k++) {
      int j = u >= 0 ? t->adj[k] : k;
      if (u < 0 && J[j].b != -1) continue; /* the world's joints are b = -1 */
      if (t->as[j] != MDL_AS_UNSET) continue;
      int v = J[j].a == u ? J[j].b : J[j].a;
      t->parent[v] = u;
      t->pjoint[v] = j;
      t->as[j] = MDL_AS_TREE;
      queue[(*tail)++] = v;
    }
  }
}

/* parent, pjoint and as[] for every body and joint. */
static int find_tree(const dyn_model *m, mdl_tree *t, char *msg, size_t cap) {
  const dyn_body_def *B = dyn_model_bodies(m);
  int nb = t->nb;
  int rc = find_loops(m, t, msg, cap);
  if (rc != 0) return rc;
  int *queue = malloc(((size_t)nb + 1) * sizeof *queue);
  if (!queue) return -2;
  int tail = 0;
  queue[tail++] = -1;
  for (int i = 0; i < nb; i++)
    if (B[i].is_static) {
      t->parent[i] = -1;
      queue[tail++] = i;
    }
  search(m, t, queue, 0, &tail);
  for (int i = 0; i < nb; i++)
    if (t->parent[i] == MDL_NOT_IN_TREE) { /* the root of a free component */
      t->parent[i] = -1;
      int head = tail;
      queue[tail++] = i;
      search(m, t, queue, head, &tail);
    }
  free(queue);
  return 0;
}

/* Children lists in index order, then the document order (preorder) and
 * the element ids of bodies and equalities. */
static int number_elements(const dyn_model *m, mdl_tree *t) {
  int nb = t->nb;
  int *last = malloc(((size_t)nb + 1) * sizeof *last);
  int *stack = malloc(((size_t)nb + 1) * sizeof *stack);
  if (!last || !stack) {
    free(last);
    free(stack);
    return -2;
  }
  int root_first = -1, root_last = -1;
  for (int i = 0; i < nb; i++) t->first[i] = t->next[i] = last[i] = -1;
  for (int i = 0; i < nb; i++) {
    int p = t->parent[i];
    int *head = p < 0 ? &root_first : &t->first[p], *tl = p < 0 ? &root_last : &last[p];
    if (*head < 0)
      *head = i;
    else
      t->next[*tl] = i;
    *tl = i;
  }
  t->root_first = root_first;
  int n = 0, top = 0;
  for (int r = root_first; r >= 0; r = t->next[r]) {
    stack[top++] = r;
    while (top > 0) {
      int u = stack[--top];
      t->order[n] = u;
      t->elem_body[u] = ++n; /* the world body is 0 */
      /* children pushed, then reversed, so that the first is visited first */
      int base = top;
      for (int c = t->first[u]; c >= 0; c = t->next[c]) stack[top++] = c;
      for (int a = base, b = top - 1; a < b; a++, b--) {
        int x = stack[a];
        stack[a] = stack[b];
        stack[b] = x;
      }
    }
  }
  free(last);
  free(stack);
  int neq = 0;
  for (int i = 0; i < nb; i++)
    if (t->pjoint[i] >= 0) t->elem[t->pjoint[i]] = t->elem_body[i];
  for (int j = 0; j < t->nj; j++)
    if (t->as[j] != MDL_AS_TREE) {
      t->elem[j] = neq;
      neq += t->as[j] == MDL_AS_CONNECT2 ? 2 : 1;
    }
  (void)m;
  return 0;
}

int mdl_tree_build(const dyn_model *m, mdl_tree *t, char *msg, size_t cap) {
  memset(t, 0, sizeof *t);
  t->nb = dyn_model_body_count(m);
  t->nj = dyn_model_joint_count(m);
  size_t nb = (size_t)t->nb + 1, nj = (size_t)t->nj + 1;
  t->parent = malloc(nb * sizeof *t->parent);
  t->pjoint = malloc(nb * sizeof *t->pjoint);
  t->first = malloc(nb * sizeof *t->first);
  t->next = malloc(nb * sizeof *t->next);
  t->order = malloc(nb * sizeof *t->order);
  t->elem_body = malloc(nb * sizeof *t->elem_body);
  t->as = malloc(nj * sizeof *t->as);
  t->elem = malloc(nj * sizeof *t->elem);
  int rc = -2;
  if (t->parent && t->pjoint && t->first && t->next && t->order && t->elem_body && t->as &&
      t->elem && build_adjacency(m, t) == 0) {
    for (int i = 0; i < t->nb; i++) {
      t->parent[i] = MDL_NOT_IN_TREE;
      t->pjoint[i] = -1;
    }
    for (int j = 0; j < t->nj; j++) t->as[j] = MDL_AS_UNSET;
    rc = find_tree(m, t, msg, cap);
    if (rc == 0) rc = number_elements(m, t);
  }
  if (rc == -2) mdl_msg(msg, cap, "out of memory for the kinematic tree");
  if (rc != 0) mdl_tree_free(t);
  return rc;
}
