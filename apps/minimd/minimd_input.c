/** @file minimd_input.c
 *  Reading miniMD's own input files by lines (see minimd_input.h). */
#include "minimd_input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_common.h"

static const char *file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

static const char op[] = "minimd_input";

int minimd_input_open(minimd_input *in, const char *path, const char *what) {
  memset(in, 0, sizeof *in);
  in->path = path;
  errno = 0;
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    return porta_error(PORTA_ERROR_IO, op, NULL, "cannot open the %s '%s': %s", what, path,
                       strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const char *kind = fstat(fd, &st) != 0 ? "unreadable" : file_kind(st.st_mode);
    close(fd);
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                       "the %s '%s' is %s: it must be a regular file", what, path, kind);
  }
  const int flags = fcntl(fd, F_GETFL);
  in->f = flags != -1 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != -1 ? fdopen(fd, "r") : NULL;
  if (!in->f) {
    const int rc = porta_error(PORTA_ERROR_IO, op, NULL, "cannot read the %s '%s': %s", what, path,
                               strerror(errno));
    close(fd);
    return rc;
  }
  return PORTA_SUCCESS;
}

char *minimd_input_line(minimd_input *in, int *rc) {
  *rc = PORTA_SUCCESS;
  size_t n = 0;
  for (;;) {
    if (in->cap - n < 2) { /* room for more than the terminating NUL */
      const size_t cap = in->cap ? 2 * in->cap : 4096;
      char *b = (char *)realloc(in->buf, cap);
      if (!b) {
        *rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL,
                          "%s:%d: no memory for a line of %zu bytes", in->path, in->line + 1, cap);
        return NULL;
      }
      in->buf = b;
      in->cap = cap;
    }
    if (!fgets(in->buf + n, (int)(in->cap - n > INT_MAX ? INT_MAX : in->cap - n), in->f)) {
      if (ferror(in->f)) {
        *rc = porta_error(PORTA_ERROR_IO, op, NULL, "%s:%d: cannot read: %s", in->path,
                          in->line + 1, strerror(errno));
        return NULL;
      }
      if (n == 0) return NULL; /* the end */
      break;                   /* a last line without its newline */
    }
    n += strlen(in->buf + n);
    if (n > 0 && in->buf[n - 1] == '\n') break;
    if ((long long)n > MINIMD_INPUT_MAX_LINE) {
      *rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                        "%s:%d: a line longer than %lld bytes", in->path, in->line + 1,
                        MINIMD_INPUT_MAX_LINE);
      return NULL;
    }
  }
  ++in->line;
  while (n > 0 && (in->buf[n - 1] == '\n' || in->buf[n - 1] == '\r')) in->buf[--n] = '\0';
  return in->buf;
}

void minimd_input_close(minimd_input *in) {
  if (in->f) fclose(in->f);
  free(in->buf);
  memset(in, 0, sizeof *in);
}

int minimd_input_int(const char *text, long long lo, long long hi, long long *out) {
  const char *p = text;
  if (*p == '+' || *p == '-') ++p;
  if (*p < '0' || *p > '9') return 0;
  char *end = NULL;
  errno = 0;
  const long long v = strtoll(text, &end, 10);
  if (errno || *end || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

int minimd_input_real(const char *text, double *out) {
  char *end = NULL;
  const double v = strtod(text, &end);
  if (end == text || *end || app_number_is_hex(text) || !isfinite(v)) return 0;
  *out = v;
  return 1;
}
