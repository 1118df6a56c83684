/** @file app_file.c
 *  Small result files written without destroying what is there (see app_file.h). */
/* realpath (XSI) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "app_file.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "porta/error.h"

/* 32 random bits: /dev/urandom, else the clock and a counter. */
static unsigned tmp_random(void) {
  static unsigned counter = 0;
  unsigned v = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
    close(fd);
  }
  if (v == 0) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = (unsigned)ts.tv_nsec ^ ((unsigned)ts.tv_sec << 7) ^ (++counter * 2654435761u);
  }
  return v;
}

size_t app_file_name_max(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, (size_t)(slash + 1 - path)) : strdup(".");
  long n = -1;
  if (dir) {
    errno = 0;
    n = pathconf(dir, _PC_NAME_MAX);
    free(dir);
  }
  return n > 0 ? (size_t)n : (size_t)APP_FILE_NAME_MAX;
}

int app_file_tmp_create(const char *final, char *tmp, size_t len, int *err) {
  const char *slash = strrchr(final, '/');
  const size_t dir = slash ? (size_t)(slash + 1 - final) : 0, base = strlen(final) - dir;
  const size_t most = app_file_name_max(final);
  for (int attempt = 0; attempt < 100; ++attempt) {
    char end[64];
    const int n = snprintf(end, sizeof end, ".tmp.%ld.%08x", (long)getpid(), tmp_random());
    /* FINAL's own name cut where the whole would pass the directory's longest file name */
    size_t keep = base;
    if (keep + (size_t)n > most) keep = most > (size_t)n ? most - (size_t)n : 0;
    if (keep == 0 || dir + keep > (size_t)INT_MAX ||
        snprintf(tmp, len, "%.*s%s", (int)(dir + keep), final, end) >= (int)len) {
      if (len) snprintf(tmp, len, "%s", final);
      *err = ENAMETOOLONG;
      return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    if (errno != EEXIST) {
      *err = errno;
      return -1;
    }
  }
  *err = EEXIST;
  return -1;
}

FILE *app_file_create_unique(const char *stem, const char *suffix, char *path, size_t len,
                             int *err) {
  for (int k = 1; k <= 1000; ++k) {
    const int n = k == 1 ? snprintf(path, len, "%s.%s", stem, suffix)
                         : snprintf(path, len, "%s.%d.%s", stem, k, suffix);
    if (n < 0 || (size_t)n >= len) {
      *err = ENAMETOOLONG;
      return NULL;
    }
    const int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      FILE *f = fdopen(fd, "w");
      if (!f) *err = errno, close(fd);
      return f;
    }
    if (errno != EEXIST) {
      *err = errno;
      return NULL;
    }
  }
  *err = EEXIST;
  return NULL;
}

/* dirname's real path + "/" + basename, malloc'ed; NULL when the directory does not resolve. */
static char *canonical(const char *p) {
  const char *slash = strrchr(p, '/');
  const char *base = slash ? slash + 1 : p;
  char *dir = slash ? (slash == p ? strdup("/") : strndup(p, (size_t)(slash - p))) : strdup(".");
  if (!dir) return NULL;
  char *real = realpath(dir, NULL);
  free(dir);
  if (!real) return NULL;
  const size_t n = strlen(real) + strlen(base) + 2;
  char *out = (char *)malloc(n);
  if (out) snprintf(out, n, "%s/%s", real, base);
  free(real);
  return out;
}

/* How `path` is written (target_kind). */
enum { TARGET_FILE = 0, TARGET_DEVICE = 1, TARGET_FD = 2 };

/* /proc/PID/fd/N or /proc/PID/task/TID/fd/N of this process (what /dev/stdout, /dev/fd/N and
 * /proc/self/fd/N resolve to): N, else -1. */
static int own_fd(const char *p) {
  char head[48];
  const int h = snprintf(head, sizeof head, "/proc/%ld/", (long)getpid());
  if (strncmp(p, head, (size_t)h) != 0) return -1;
  p += h;
  if (!strncmp(p, "task/", 5) && isdigit((unsigned char)p[5])) {
    for (p += 5; isdigit((unsigned char)*p); ++p) {
    }
    if (*p++ != '/') return -1;
  }
  if (strncmp(p, "fd/", 3) != 0 || !isdigit((unsigned char)p[3])) return -1;
  char *end = NULL;
  errno = 0;
  const long n = strtol(p + 3, &end, 10);
  return *end || errno || n > INT_MAX ? -1 : (int)n;
}

/* What is at path, its links followed one by one (each directory resolved):
 * - TARGET_FD with *fd = N: one of this process's descriptors ("-" for standard output,
 *   /dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to one): written into that descriptor
 *   (a copy of it), wherever it leads (a file, a pipe, a terminal), so the link stays;
 * - TARGET_DEVICE: a character device or a FIFO, also through links: opened and written;
 * - TARGET_FILE: nothing, a file, or a link to one (or a dangling link, a loop): a temporary
 *   renamed over path, so a link is replaced, never followed, as the results' links are;
 * - -EISDIR: a directory at path itself (a link to one is replaced). */
static int target_kind(const char *path, int *fd) {
  *fd = -1;
  if (!strcmp(path, "-")) {
    *fd = STDOUT_FILENO;
    return TARGET_FD;
  }
  int kind = TARGET_FILE;
  char *cur = strdup(path);
  for (int hop = 0; cur && hop < 40; ++hop) {
    char *c = canonical(cur); /* NULL: its directory does not resolve (the temporary says why) */
    free(cur);
    cur = NULL;
    struct stat sb;
    if (c && (*fd = own_fd(c)) >= 0) {
      kind = TARGET_FD;
    } else if (c && lstat(c, &sb) == 0) {
      if (S_ISDIR(sb.st_mode) && hop == 0)
        kind = -EISDIR;
      else if (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))
        kind = TARGET_DEVICE;
      else if (S_ISLNK(sb.st_mode)) { /* the next hop: the link's text, from its directory */
        char link[APP_CLEANUP_PATH_MAX];
        const ssize_t n = readlink(c, link, sizeof link - 1);
        if (n > 0) {
          link[n] = '\0';
          const size_t dir = link[0] == '/' ? 0 : (size_t)(strrchr(c, '/') - c) + 1;
          if ((cur = (char *)malloc(dir + (size_t)n + 1)) != NULL)
            snprintf(cur, dir + (size_t)n + 1, "%.*s%s", (int)dir, c, link);
        }
      }
    }
    free(c);
  }
  free(cur);
  return kind;
}

/* Open a device or FIFO for writing. A FIFO nobody reads fails (ENXIO) instead of waiting. */
static int open_direct(const char *path, int *err) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags == -1 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1) {
    *err = errno;
    close(fd);
    return -1;
  }
  return fd;
}

/* Can descriptor fd be written? 0 or the errno (EBADF: closed, or open for reading only). */
static int fd_writable(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags == -1) return errno;
  return (flags & O_ACCMODE) == O_RDONLY ? EBADF : 0;
}

int app_text_file_probe(const char *path) {
  int fdno = -1;
  const int kind = target_kind(path, &fdno);
  if (kind < 0) return -kind;
  if (kind == TARGET_FD) return fd_writable(fdno);
  int err = 0;
  if (kind == TARGET_DEVICE) /* not opened: closing a FIFO would end its reader's input */
    return access(path, W_OK) == 0 ? 0 : errno;
  const char *slash = strrchr(path, '/');
  if (strlen(slash ? slash + 1 : path) > app_file_name_max(path)) return ENAMETOOLONG;
  char tmp[APP_CLEANUP_PATH_MAX];
  const int fd = app_file_tmp_create(path, tmp, sizeof tmp, &err);
  if (fd < 0) return err;
  close(fd);
  unlink(tmp);
  return 0;
}

int app_text_file_open(const char *op, const char *path, app_text_file *t) {
  t->f = NULL;
  t->path = path;
  t->tmp[0] = '\0';
  t->cleanup = -1;
  int fdno = -1;
  const int kind = target_kind(path, &fdno);
  if (kind < 0)
    return porta_error(PORTA_ERROR_IO, op, path, "cannot write it: %s", strerror(-kind));
  int err = 0, fd;
  if (kind == TARGET_FD) {
    /* a copy of the descriptor: written where it stands, after what the program printed */
    fflush(stdout);
    fflush(stderr);
    if ((err = fd_writable(fdno)) != 0 || (fd = fcntl(fdno, F_DUPFD_CLOEXEC, 3)) < 0)
      return porta_error(PORTA_ERROR_IO, op, path, "cannot write into descriptor %d: %s", fdno,
                         strerror(err ? err : errno));
  } else if (kind == TARGET_DEVICE) {
    if ((fd = open_direct(path, &err)) < 0)
      return porta_error(PORTA_ERROR_IO, op, path, "cannot open it for writing: %s",
                         err == ENXIO ? "a FIFO that no process reads" : strerror(err));
  } else {
    if ((fd = app_file_tmp_create(path, t->tmp, sizeof t->tmp, &err)) < 0)
      return porta_error(PORTA_ERROR_IO, op, path, "cannot create its temporary '%s': %s", t->tmp,
                         strerror(err));
    t->cleanup = app_cleanup_add(t->tmp);
  }
  t->f = fdopen(fd, "w");
  if (!t->f) {
    err = errno;
    close(fd);
    if (t->tmp[0]) unlink(t->tmp);
    app_cleanup_forget(t->cleanup);
    t->cleanup = -1;
    return porta_error(PORTA_ERROR_IO, op, path, "cannot write it: %s", strerror(err));
  }
  /* into a device, a FIFO or a descriptor: held until the commit (these files are small), which
     writes it with SIGPIPE ignored */
  if (kind != TARGET_FILE) setvbuf(t->f, NULL, _IOFBF, (size_t)1 << 20);
  return PORTA_SUCCESS;
}

int app_text_file_commit(const char *op, app_text_file *t) {
  /* a FIFO whose reader has left: EPIPE, reported, rather than SIGPIPE ending the process */
  struct sigaction ign, old;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  const int restore = sigaction(SIGPIPE, &ign, &old) == 0;
  errno = 0;
  int bad = fflush(t->f) != 0 || ferror(t->f) != 0;
  int os = errno;
  if (fclose(t->f) != 0 && !bad) bad = 1, os = errno;
  if (restore) sigaction(SIGPIPE, &old, NULL);
  t->f = NULL;
  int rc = PORTA_SUCCESS;
  if (bad) {
    if (t->tmp[0]) unlink(t->tmp);
    rc = porta_error(PORTA_ERROR_IO, op, t->path, "cannot write the file%s%s%s: %s",
                     t->tmp[0] ? " ('" : "", t->tmp, t->tmp[0] ? "')" : "",
                     os ? strerror(os) : "write error");
  } else if (t->tmp[0] && rename(t->tmp, t->path) != 0) {
    os = errno;
    unlink(t->tmp);
    rc = porta_error(PORTA_ERROR_IO, op, t->path, "cannot rename '%s' to it: %s", t->tmp,
                     strerror(os));
  }
  app_cleanup_forget(t->cleanup);
  t->cleanup = -1;
  return rc;
}

void app_file_dir_of(const char *path, char *out, size_t len) {
  const char *slash = strrchr(path, '/');
  char *dir =
      slash ? (slash == path ? strdup("/") : strndup(path, (size_t)(slash - path))) : strdup(".");
  char *real = dir ? realpath(dir, NULL) : NULL;
  if (real)
    snprintf(out, len, "%s", real);
  else
    snprintf(out, len, "%s (%s)", dir ? dir : path, strerror(errno));
  free(real);
  free(dir);
}

int app_file_same(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char *ca = canonical(a), *cb = canonical(b);
  const int same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
  free(ca);
  free(cb);
  return same;
}
