/* beneath.c -- removing a file inside a folder without ever leaving it:
 * the one way lcplab removes the files it recorded (owned.c), the result
 * files of a plan started over (campaign.c) and stale figures (outputs.c)
 * (experiments/CAMPAIGNS.md, "What lcplab owns in a folder").
 *
 * A name is walked from the folder's descriptor one component at a time,
 * each folder opened with openat(O_DIRECTORY | O_NOFOLLOW): a component
 * that is a symbolic link (to a folder elsewhere, or anywhere) ends the
 * walk, so nothing outside the folder is reached whatever links others
 * planted in it, also if they plant one between a check and the removal
 * (no path is looked up twice).  The last component is removed with
 * unlinkat relative to its folder's descriptor when it is a regular file
 * or a link (the link itself, never what it points to).  A name that is
 * absolute, or has an empty, "." or ".." component, is refused.
 */
#define _GNU_SOURCE

#include "exp_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the component c (length k) may be walked or removed. */
static int component_ok(const char *c, size_t k) {
  return k > 0 && k < 256 && !(k == 1 && c[0] == '.') && !(k == 2 && c[0] == '.' && c[1] == '.');
}

/* ELOOP when part (in the folder fd) is a symbolic link (O_DIRECTORY |
 * O_NOFOLLOW on a link says ENOTDIR on Linux, which misleads), else e. */
static int link_errno(int fd, const char *part, int e) {
  struct stat st;
  return fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode) ? ELOOP : e;
}

int exp_beneath_open(int dirfd, const char *sub) {
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  if (sub[0] == '/') {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  for (const char *c = sub; fd >= 0 && *c;) {
    size_t k = strcspn(c, "/");
    char part[256];
    if (!component_ok(c, k)) {
      close(fd);
      errno = EINVAL;
      return -1;
    }
    memcpy(part, c, k);
    part[k] = '\0';
    int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = next < 0 ? link_errno(fd, part, errno) : 0;
    close(fd);
    errno = e;
    fd = next;
    c += k + (c[k] == '/');
  }
  return fd;
}

/* name's folder part into sub[EXP_PATH_MAX] ("" for a bare name) and its
 * last component (returned, inside name); NULL with errno EINVAL for an
 * absolute name, a last component that may not be removed or a folder
 * part too long. */
static const char *split_last(const char *name, char sub[EXP_PATH_MAX]) {
  const char *slash = strrchr(name, '/');
  const char *last = slash ? slash + 1 : name;
  if (!component_ok(last, strlen(last)) || name[0] == '/' ||
      exp_fmt(sub, EXP_PATH_MAX, "%.*s", slash ? (int)(slash - name) : 0, name)) {
    errno = EINVAL;
    return NULL;
  }
  return last;
}

int exp_beneath_remove(int dirfd, const char *name) {
  char sub[EXP_PATH_MAX];
  const char *last = split_last(name, sub);
  if (!last) return -1;
  int fd = exp_beneath_open(dirfd, sub);
  if (fd < 0) return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 0 : -1;
  struct stat st;
  int r = 0;
  if (fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
      (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
    r = unlinkat(fd, last, 0) == 0 || errno == ENOENT ? 1 : -1;
  int e = errno;
  close(fd);
  errno = e;
  return r;
}

/* ---- creating a file in a folder others may write ------------------------------------------ */

enum { CREATE_TRIES = 100 };

int exp_create_new_at(int dirfd, const char *name, int mode, char *used, size_t len) {
  for (int k = 0; k < CREATE_TRIES; k++) {
    if ((k == 0 ? exp_fmt(used, len, "%s", name) : exp_fmt(used, len, "%s.%d", name, k)) != 0) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd =
        openat(dirfd, used, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

int exp_create_new(const char *path, int mode, char *used, size_t len) {
  return exp_create_new_at(AT_FDCWD, path, mode, used, len);
}

/* ---- making a folder inside a folder others may write ------------------------------------- */

int exp_beneath_mkdir(const char *top, const char *sub, char *bad, size_t len) {
  int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  exp_fmt(bad, len, "%s", top);
  if (fd < 0) return -1;
  if (sub[0] == '/') {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  for (const char *c = sub; fd >= 0 && *c;) {
    size_t k = strcspn(c, "/");
    char part[256];
    exp_fmt(bad, len, "%s/%.*s", top, (int)(c - sub + k), sub);
    if (!component_ok(c, k)) {
      close(fd);
      errno = EINVAL;
      return -1;
    }
    memcpy(part, c, k);
    part[k] = '\0';
    int next = -1;
    if (mkdirat(fd, part, 0777) == 0 || errno == EEXIST)
      next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = next < 0 ? link_errno(fd, part, errno) : 0;
    close(fd);
    errno = e;
    fd = next;
    c += k + (c[k] == '/');
  }
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

const char *exp_beneath_why(int e) {
  return e == ELOOP ? "a symbolic link, not followed (lcplab follows no link inside its folders)"
                    : strerror(e);
}

/* ---- removing a folder of lcplab's own, whole ------------------------------------------------ */

/* Empties the folder fd (closed here): files and links unlinked, folders
 * (opened with O_NOFOLLOW) emptied and removed, depth at most 16. */
static void empty_folder(int fd, int depth) {
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  for (struct dirent *e; (e = readdir(d));) {
    if (!component_ok(e->d_name, strlen(e->d_name))) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISDIR(st.st_mode)) {
      unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    int sub = depth < 16
                  ? openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                  : -1;
    if (sub >= 0) empty_folder(sub, depth + 1);
    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
  }
  closedir(d);
}

int exp_beneath_remove_tree(int dirfd, const char *name) {
  char sub[EXP_PATH_MAX];
  const char *last = split_last(name, sub);
  if (!last) return -1;
  int fd = exp_beneath_open(dirfd, sub);
  if (fd < 0) return -1;
  int t = openat(fd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (t >= 0) empty_folder(t, 0);
  int r = t >= 0 && unlinkat(fd, last, AT_REMOVEDIR) == 0 ? 0 : -1;
  int e = errno;
  close(fd);
  errno = e;
  return r;
}

void exp_beneath_remove_folder(const char *dir) {
  const char *slash = strrchr(dir, '/');
  char parent[EXP_PATH_MAX];
  if (!slash)
    parent[0] = '.', parent[1] = '\0';
  else if (exp_fmt(parent, sizeof parent, "%.*s", slash == dir ? 1 : (int)(slash - dir), dir))
    return;
  int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  exp_beneath_remove_tree(fd, slash ? slash + 1 : dir);
  close(fd);
}
