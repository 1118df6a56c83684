/** @file app_file.c
 *  Small result files written without destroying what is there (see app_file.h). */
/* realpath (XSI) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "app_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

int app_file_tmp_create(const char *final, char *tmp, size_t len, int *err) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (snprintf(tmp, len, "%s.tmp.%ld.%08x", final, (long)getpid(), tmp_random()) >= (int)len) {
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

/* What is at path: 0 nothing or a file (a temporary renamed over it; a link to a file is
 * replaced, not followed), 1 a device or FIFO, also through a link (/dev/stdout is one; written
 * straight into), or -errno (a directory: -EISDIR). */
static int target_kind(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0) return 0;
  if (S_ISDIR(sb.st_mode)) return -EISDIR;
  if (S_ISLNK(sb.st_mode) && stat(path, &sb) != 0) return 0; /* a dangling link: replaced */
  return S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode) ? 1 : 0;
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

int app_text_file_probe(const char *path) {
  const int kind = target_kind(path);
  if (kind < 0) return -kind;
  int err = 0;
  if (kind == 1) /* not opened: closing a FIFO would end its reader's input */
    return access(path, W_OK) == 0 ? 0 : errno;
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
  const int kind = target_kind(path);
  if (kind < 0)
    return porta_error(PORTA_ERROR_IO, op, path, "cannot write it: %s", strerror(-kind));
  int err = 0, fd;
  if (kind == 1) {
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
  /* into a device or FIFO: held until the commit (these files are small), which writes it
     with SIGPIPE ignored */
  if (kind == 1) setvbuf(t->f, NULL, _IOFBF, (size_t)1 << 20);
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
