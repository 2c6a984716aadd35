/* prov.c -- provenance of experiment results: what ran them,
 * where and how loaded the machine was (experiments/README.md, "Provenance").
 *
 *   cpu          /proc/cpuinfo's first "model name"
 *   cores        online CPUs (sysconf)
 *   governor     /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor, or
 *                "unknown (no cpufreq)" (virtual machines have none)
 *   load         /proc/loadavg's 1-minute average (getloadavg)
 *   compiler     __VERSION__; cflags: the build-time LCPLAB_CFLAGS define
 *   blas         openblas_get_config(), looked up with dlsym (another BLAS:
 *                "unknown"); threads: openblas_get_num_threads() (every task
 *                sets it to 1: openblas_set_num_threads)
 *   binary       FNV-1a of the program file and of the libsolvers and
 *                libdynamics shared objects it runs (dladdr): two results
 *                with the same value came from the same build
 *   rev          LCPLAB_REV, else `git rev-parse --short=12 HEAD` in the
 *                config's folder, "-dirty" when `git status --porcelain`
 *                lists anything
 *   precision    double (IEEE 754 binary64): the only one lcplab has
 *   placement    sched_getaffinity: "cpu K" for a worker pinned to CPU K
 *                (jobs.c), else "any of N cpus"
 *   memory_limit the address-space limit in force (getrlimit RLIMIT_AS,
 *                gathered after exp_limit_memory set it), MB or "none": the
 *                limit the task ran under, whatever set it
 *                (LCPLAB_MEMORY_LIMIT, the default, the shell's ulimit -v)
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, dladdr, getloadavg */

#include "exp_internal.h"

#include <dlfcn.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dyn_world.h"

extern char **environ;

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = '\0';
}

int exp_run_prog(char *const *argv, char *out, size_t len, int quiet) {
  int fd[2] = { -1, -1 };
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out) {
    if (pipe(fd) != 0) {
      posix_spawn_file_actions_destroy(&fa);
      return -1;
    }
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
  }
  if (quiet) posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (out) close(fd[1]);
  if (err != 0) {
    if (out) close(fd[0]);
    return -1;
  }
  if (out) {
    size_t used = 0;
    for (;;) {
      ssize_t r = read(fd[0], out + used, len - 1 - used);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      used += (size_t)r;
      if (used + 1 >= len) {
        char sink[256];
        while (read(fd[0], sink, sizeof sink) > 0) {}
        break;
      }
    }
    out[used] = '\0';
    close(fd[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void exp_git_rev(const char *dir, char *rev, size_t len) {
  const char *env = getenv("LCPLAB_REV");
  if (env && env[0]) {
    snprintf(rev, len, "%s", env);
    return;
  }
  char out[256] = "";
  char *a1[] = { "git", "-C", (char *)dir, "rev-parse", "--short=12", "HEAD", NULL };
  if (exp_run_prog(a1, out, sizeof out, 1) == 0 && out[0]) {
    chomp(out);
    char st[64] = "";
    /* --no-optional-locks: never write the index (status would refresh it) */
    char *a2[] = { "git", "--no-optional-locks", "-C", (char *)dir, "status", "--porcelain", NULL };
    int dirty = exp_run_prog(a2, st, sizeof st, 1) == 0 && st[0];
    snprintf(rev, len, "%s%s", out, dirty ? "-dirty" : "");
    return;
  }
  snprintf(rev, len, "unknown (no git checkout at %s; set LCPLAB_REV)", dir);
}

double exp_loadavg(void) {
  double l[1];
  return getloadavg(l, 1) == 1 ? l[0] : -1.0;
}

static void read_line_file(const char *path, char *out, size_t len) {
  out[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return;
  if (fgets(out, (int)len, f)) chomp(out);
  fclose(f);
}

static void cpu_model(char *out, size_t len) {
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) != 0) continue;
    const char *c = strchr(line, ':');
    if (c) {
      c++;
      while (*c == ' ' || *c == '\t') c++;
      snprintf(out, len, "%s", c);
      chomp(out);
    }
    break;
  }
  fclose(f);
}

/* FNV-1a of a file's bytes, continued from h (h unchanged if unreadable). */
static uint64_t hash_file(uint64_t h, const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return h;
  char buf[65536];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0) h = exp_fnv1a(h, buf, (size_t)r);
  close(fd);
  return h;
}

static void binary_hash(char *out, size_t len) {
  uint64_t h = EXP_FNV_INIT;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    h = hash_file(h, exe);
  }
  Dl_info di;
  if (dladdr((void *)slv_solve, &di) && di.dli_fname) h = hash_file(h, di.dli_fname);
  if (dladdr((void *)dyn_world_step, &di) && di.dli_fname) h = hash_file(h, di.dli_fname);
  snprintf(out, len, "%016llx", (unsigned long long)h);
}

static void blas_info(exp_prov *p) {
  char *(*get_config)(void);
  int (*get_threads)(void);
  *(void **)&get_config = dlsym(RTLD_DEFAULT, "openblas_get_config");
  *(void **)&get_threads = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  snprintf(p->blas, sizeof p->blas, "%s",
           get_config ? get_config() : "unknown (not OpenBLAS: no openblas_get_config symbol)");
  if (get_threads)
    snprintf(p->blas_threads, sizeof p->blas_threads, "%d", get_threads());
  else
    snprintf(p->blas_threads, sizeof p->blas_threads, "unknown");
}

static void placement(char *out, size_t len) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    snprintf(out, len, "unknown");
    return;
  }
  int n = CPU_COUNT(&set), k = 0;
  while (n == 1 && k < CPU_SETSIZE && !CPU_ISSET(k, &set)) k++;
  if (n == 1)
    snprintf(out, len, "cpu %d", k);
  else
    snprintf(out, len, "any of %d cpus", n);
}

/* An address-space limit as recorded: MB, or "none". */
static void limit_str(rlim_t v, char *out, size_t len) {
  if (v == RLIM_INFINITY)
    snprintf(out, len, "none");
  else
    snprintf(out, len, "%.0f", floor((double)v / 1048576.0));
}

/* The address-space limit in force. */
static void memory_limit(char *out, size_t len) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0)
    snprintf(out, len, "unknown");
  else
    limit_str(rl.rlim_cur, out, len);
}

void exp_prov_gather(exp_prov *p) {
  memset(p, 0, sizeof *p);
  placement(p->placement, sizeof p->placement);
  cpu_model(p->cpu, sizeof p->cpu);
  p->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  read_line_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", p->governor,
                 sizeof p->governor);
  if (!p->governor[0]) snprintf(p->governor, sizeof p->governor, "unknown (no cpufreq)");
#if defined(__clang__)
  snprintf(p->compiler, sizeof p->compiler, "clang %s", __VERSION__);
#elif defined(__GNUC__)
  snprintf(p->compiler, sizeof p->compiler, "gcc %s", __VERSION__);
#else
  snprintf(p->compiler, sizeof p->compiler, "unknown");
#endif
#ifdef LCPLAB_CFLAGS
  snprintf(p->cflags, sizeof p->cflags, "%s", LCPLAB_CFLAGS);
#else
  snprintf(p->cflags, sizeof p->cflags, "not recorded at build time");
#endif
  for (char *c = p->cflags; *c; c++)
    if (*c == '\n' || *c == '\t') *c = ' ';
  blas_info(p);
  binary_hash(p->binary, sizeof p->binary);
  struct utsname u;
  if (uname(&u) == 0)
    exp_fmt(p->host, sizeof p->host, "%s %s %s", u.nodename, u.release, u.machine);
  else
    snprintf(p->host, sizeof p->host, "unknown");
  snprintf(p->precision, sizeof p->precision, "double (binary64)");
  p->load_start = exp_loadavg();
  p->load_end = p->load_start;
  memory_limit(p->memory_limit, sizeof p->memory_limit);
}

void exp_prov_write(FILE *f, const exp_prov *p, const char *rev) {
  fprintf(f, "# cpu: %s\n# cores: %d\n# governor: %s\n", p->cpu, p->cores, p->governor);
  fprintf(f, "# compiler: %s\n# cflags: %s\n", p->compiler, p->cflags);
  fprintf(f, "# blas: %s\n# threads: OpenBLAS threads %s\n", p->blas, p->blas_threads);
  fprintf(f, "# binary: %s\n# precision: %s\n# host: %s\n", p->binary, p->precision, p->host);
  fprintf(f, "# rev: %s\n# lcplab: %s\n# load: %.2f\n", rev, SLV_VERSION, p->load_start);
}

double exp_default_memory_mb(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (pages <= 0 || size <= 0) return 0.0;
  double mb = (double)pages * (double)size / 1048576.0 / (double)(cpus > 0 ? cpus : 1);
  return mb < 1024.0 ? 1024.0 : floor(mb);
}

/* The soft RLIMIT_AS that exp_limit_memory(mb) leaves in force, given the
 * limits rl before it (RLIM_INFINITY: none). */
static rlim_t limit_after(double mb, const struct rlimit *rl) {
#if defined(__SANITIZE_ADDRESS__)
  (void)mb; /* AddressSanitizer reserves terabytes of shadow memory */
  return rl->rlim_cur;
#else
  const char *env = getenv("LCPLAB_MEMORY_LIMIT");
  if (env && env[0]) mb = atof(env);
  if (!(mb > 0)) return rl->rlim_cur;
  rlim_t want = (rlim_t)(mb * 1048576.0);
  if (rl->rlim_max != RLIM_INFINITY && want > rl->rlim_max) want = rl->rlim_max;
  if (rl->rlim_cur != RLIM_INFINITY && want > rl->rlim_cur)
    return rl->rlim_cur; /* lower in force */
  return want;
#endif
}

void exp_limit_memory(double mb) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0) return;
  rlim_t want = limit_after(mb, &rl);
  if (want == rl.rlim_cur) return;
  rl.rlim_cur = want;
  setrlimit(RLIMIT_AS, &rl);
}

void exp_prov_memory_limit(exp_prov *p, double mb) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) != 0)
    snprintf(p->memory_limit, sizeof p->memory_limit, "unknown");
  else
    limit_str(limit_after(mb, &rl), p->memory_limit, sizeof p->memory_limit);
}
