/** @file app_deck.c
 *  Deck loading and tokenising (see app_deck.h). */
#include "app_deck.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "porta/porta.h"

/* Copy `in` into out[n] with control bytes (and DEL) written as \xNN, so that a deck's bytes
 * never reach a terminal raw. */
static void deck_escape(const char *in, char *out, size_t n) {
  size_t o = 0;
  for (const unsigned char *c = (const unsigned char *)in; *c && o + 1 < n; ++c) {
    if (*c < 0x20 || *c == 0x7f) {
      if (o + 5 > n) break;
      snprintf(out + o, n - o, "\\x%02x", *c);
      o += 4;
    } else {
      out[o++] = (char)*c;
    }
  }
  out[o] = '\0';
}

/* A value for a message: escaped, and cut to its first 48 bytes with its length when longer. */
static const char *deck_show(const char *text, char *buf, size_t n) {
  if (!text) return "(missing)";
  size_t len = strlen(text);
  if (len <= 64) {
    deck_escape(text, buf, n);
    return buf;
  }
  char head[49];
  memcpy(head, text, 48);
  head[48] = '\0';
  char esc[200];
  deck_escape(head, esc, sizeof esc);
  snprintf(buf, n, "%s... (%zu characters)", esc, len);
  return buf;
}

/* Record "file:line: message" as the Porta error `code` of function `op` on the deck; returns
 * the code. */
static int deck_vfail(app_deck *d, int code, const char *op, int line, const char *fmt,
                      va_list ap) {
  char raw[512], msg[1200], path[400];
  vsnprintf(raw, sizeof raw, fmt, ap);
  deck_escape(raw, msg, sizeof msg);
  deck_escape(d->path, path, sizeof path);
  if (line > 0) return porta_error(code, op, NULL, "%s:%d: %s", path, line, msg);
  return porta_error(code, op, NULL, "%s: %s", path, msg);
}

static int deck_fail(app_deck *d, int code, const char *op, int line, const char *fmt, ...)
    PORTA_PRINTF_FORMAT(5, 6);
static int deck_fail(app_deck *d, int code, const char *op, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = deck_vfail(d, code, op, line, fmt, ap);
  va_end(ap);
  return rc;
}

int app_deck_error(app_deck *d, int line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = deck_vfail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_error", line, fmt, ap);
  va_end(ap);
  return rc;
}

#define DECK_OOM(op, line) deck_fail(d, PORTA_ERROR_OUT_OF_MEMORY, op, line, "out of memory")

int app_deck_load_text(app_deck *d, const char *name, const char *text) {
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", name ? name : "(deck)");
  d->size = strlen(text);
  d->text = (char *)malloc(d->size + 1);
  if (!d->text) return DECK_OOM("app_deck_load_text", 0);
  memcpy(d->text, text, d->size + 1);
  return PORTA_SUCCESS;
}

/* What rank 0 found, sent to every rank before the text. */
enum { DECK_OK = 0, DECK_NO_OPEN = 1, DECK_NO_READ = 2, DECK_TOO_BIG = 3, DECK_IS_DIR = 4 };

/* Rank 0: read at most APP_DECK_MAX_BYTES of `path` into *buf (NUL-terminated), *len its size;
 * returns a DECK_* status, *os_errno the OS's reason. */
static int deck_read_file(const char *path, char **buf, long long *len, int *is_regular,
                          int *os_errno) {
  *buf = NULL;
  *len = 0;
  *is_regular = 1;
  /* opened without waiting: a FIFO that no process writes reads as empty instead of blocking
     the run for ever (a pipe with its writer, as from <(...), reads as usual) */
  errno = 0;
  const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  const int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
  FILE *f = flags != -1 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != -1 ? fdopen(fd, "rb") : NULL;
  *os_errno = errno;
  if (!f) {
    if (fd >= 0) close(fd);
    return DECK_NO_OPEN;
  }
  struct stat st;
  if (fstat(fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fclose(f);
      return DECK_IS_DIR;
    }
    *is_regular = S_ISREG(st.st_mode);
    if (*is_regular && (long long)st.st_size > APP_DECK_MAX_BYTES) { /* refused unread */
      *len = (long long)st.st_size;
      fclose(f);
      return DECK_TOO_BIG;
    }
  }
  /* read at most one byte more than the limit: a file that never ends (/dev/zero) stops here */
  size_t cap = 4096, n = 0, got;
  const size_t most = (size_t)APP_DECK_MAX_BYTES + 1;
  char *b = (char *)malloc(cap + 1);
  while (b && n < most && (got = fread(b + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap && n < most) {
      size_t ncap = cap * 2 < most ? cap * 2 : most;
      char *nb = (char *)realloc(b, ncap + 1);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap = ncap;
    }
  }
  int status = DECK_OK;
  if (!b) {
    *os_errno = ENOMEM;
    status = DECK_NO_READ;
  } else if (n > (size_t)APP_DECK_MAX_BYTES) {
    status = DECK_TOO_BIG;
    *len = -1; /* unknown: at least the limit + 1 */
  } else if (ferror(f)) {
    *os_errno = errno;
    status = DECK_NO_READ;
  } else {
    b[n] = '\0';
    *len = (long long)n;
  }
  fclose(f);
  if (status != DECK_OK) {
    free(b);
    b = NULL;
  }
  *buf = b;
  return status;
}

/* An MPI call on the deck's path failed: the error names it and MPI's reason. */
static int deck_mpi_fail(app_deck *d, const char *call, int rc) {
  char err[MPI_MAX_ERROR_STRING] = "";
  int n = 0;
  if (MPI_Error_string(rc, err, &n) != MPI_SUCCESS) snprintf(err, sizeof err, "MPI error %d", rc);
  return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0, "%s failed while loading the deck: %s",
                   call, err);
}

int app_deck_load(app_deck *d, const char *path, MPI_Comm comm) {
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", path);
  int rank = 0, mrc;
  if ((mrc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
    return deck_mpi_fail(d, "MPI_Comm_rank", mrc);
  char *buf = NULL;
  long long msg[4] = {DECK_OK, 0, 0, 1}; /* status, length, errno, regular file */
  if (rank == 0) {
    int os_errno = 0, regular = 1;
    long long len = 0;
    msg[0] = deck_read_file(path, &buf, &len, &regular, &os_errno);
    msg[1] = len;
    msg[2] = os_errno;
    msg[3] = regular;
  }
  if ((mrc = MPI_Bcast(msg, 4, MPI_LONG_LONG, 0, comm)) != MPI_SUCCESS) {
    free(buf);
    return deck_mpi_fail(d, "MPI_Bcast (deck length)", mrc);
  }
  const int status = (int)msg[0], os_errno = (int)msg[2];
  switch (status) {
  case DECK_OK: break;
  case DECK_NO_OPEN:
  case DECK_NO_READ:
    return deck_fail(
        d, PORTA_ERROR_IO, "app_deck_load", 0, "cannot %s the input deck (%s)",
        status == DECK_NO_OPEN ? "open" : "read",
        os_errno ? strerror(os_errno)
                 : (status == DECK_NO_OPEN ? "no such file or not readable" : "read error"));
  case DECK_IS_DIR:
    return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0,
                     "cannot read the input deck (it is a directory)");
  case DECK_TOO_BIG:
    if (msg[1] > 0)
      return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0,
                       "the input deck has %lld bytes, more than the limit of %lld bytes (16 MiB)",
                       msg[1], APP_DECK_MAX_BYTES);
    return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0,
                     "the input deck gives more than the limit of %lld bytes (16 MiB)%s",
                     APP_DECK_MAX_BYTES,
                     msg[3] ? "" : ": it is not a regular file (a device or pipe may never end)");
  default:
    return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0, "unexpected load status %d", status);
  }
  const long long len = msg[1];
  if (len < 0 || len > APP_DECK_MAX_BYTES) /* cannot happen: rank 0 checked it */
    return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0, "bad deck length %lld", len);
  if (rank != 0) buf = (char *)malloc((size_t)len + 1);
  int ok = buf != NULL, all_ok = 0; /* every rank has its buffer before the text is sent */
  if ((mrc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS) {
    free(buf);
    return deck_mpi_fail(d, "MPI_Allreduce (deck buffer)", mrc);
  }
  if (!all_ok) {
    free(buf);
    return DECK_OOM("app_deck_load", 0);
  }
  if (len > 0 && (mrc = MPI_Bcast(buf, (int)len, MPI_CHAR, 0, comm)) != MPI_SUCCESS) {
    free(buf);
    return deck_mpi_fail(d, "MPI_Bcast (deck text)", mrc);
  }
  buf[len] = '\0';
  d->text = buf;
  d->size = (size_t)len;
  return PORTA_SUCCESS;
}

int app_deck_tokenize(app_deck *d, const char *comment, const char *separators, int lower) {
  int cap = 64;
  d->lines = (app_deck_line *)calloc((size_t)cap, sizeof *d->lines);
  if (!d->lines) return DECK_OOM("app_deck_tokenize", 0);
  /* a NUL byte would end the text early and silently drop the rest of the deck */
  const char *nul = d->text ? (const char *)memchr(d->text, '\0', d->size) : NULL;
  if (nul) {
    int line = 1;
    for (const char *c = d->text; c < nul; ++c) line += *c == '\n';
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_tokenize", line,
                     "NUL byte at offset %lld: the input deck must be text",
                     (long long)(nul - d->text));
  }
  const char *p = d->text ? d->text : "";
  if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
    p += 3; /* a UTF-8 byte-order mark */
  int lineno = 0;
  while (*p) {
    ++lineno;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *s = (char *)malloc(n + 1);
    if (!s) return DECK_OOM("app_deck_tokenize", lineno);
    memcpy(s, p, n);
    s[n] = '\0';
    for (size_t i = 0; i < n; ++i) {
      if (strchr(comment, s[i])) {
        s[i] = '\0';
        break;
      }
      if (strchr(separators, s[i]) || s[i] == '\r' || s[i] == '\t') s[i] = ' ';
      if (lower) s[i] = (char)tolower((unsigned char)s[i]);
    }
    int ntok = 0;
    char **tok = NULL;
    for (char *q = strtok(s, " "); q; q = strtok(NULL, " ")) {
      char **nt = (char **)realloc(tok, (size_t)(ntok + 1) * sizeof *tok);
      if (!nt) return DECK_OOM("app_deck_tokenize", lineno);
      tok = nt;
      tok[ntok] = (char *)malloc(strlen(q) + 1);
      strcpy(tok[ntok++], q);
    }
    free(s);
    if (ntok > 0) {
      if (d->nlines == cap) {
        app_deck_line *nl = (app_deck_line *)realloc(d->lines, (size_t)(cap *= 2) * sizeof *nl);
        if (!nl) return DECK_OOM("app_deck_tokenize", lineno);
        d->lines = nl;
      }
      d->lines[d->nlines].line = lineno;
      d->lines[d->nlines].ntok = ntok;
      d->lines[d->nlines].tok = tok;
      d->nlines++;
    }
    p += n;
    if (*p == '\n') ++p;
  }
  return PORTA_SUCCESS;
}

void app_deck_free(app_deck *d) {
  for (int i = 0; i < d->nlines; ++i) {
    for (int t = 0; t < d->lines[i].ntok; ++t) free(d->lines[i].tok[t]);
    free(d->lines[i].tok);
  }
  free(d->lines);
  free(d->text);
  d->lines = NULL;
  d->text = NULL;
  d->nlines = 0;
}

int app_deck_i64(app_deck *d, int line, const char *key, const char *text, int64_t *out) {
  char show[256];
  char *end = NULL;
  errno = 0;
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (!text || !*text || *end || (errno && errno != ERANGE))
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_i64", line,
                     "bad integer value '%s' for '%s'", deck_show(text, show, sizeof show), key);
  if (errno == ERANGE)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_i64", line,
                     "integer value '%s' for '%s' is out of range",
                     deck_show(text, show, sizeof show), key);
  *out = (int64_t)v;
  return PORTA_SUCCESS;
}

int app_deck_int(app_deck *d, int line, const char *key, const char *text, int *out) {
  int64_t v = 0;
  PORTA_CHECK(app_deck_i64(d, line, key, text, &v));
  if (v < INT_MIN || v > INT_MAX) {
    char show[256];
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_int", line,
                     "integer value '%s' for '%s' is out of range (%d..%d)",
                     deck_show(text, show, sizeof show), key, INT_MIN, INT_MAX);
  }
  *out = (int)v;
  return PORTA_SUCCESS;
}

int app_number_is_hex(const char *text) {
  if (!text) return 0;
  while (*text == ' ' || *text == '\t') ++text;
  if (*text == '+' || *text == '-') ++text;
  return text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

int app_deck_double(app_deck *d, int line, const char *key, const char *text, double *out) {
  char show[256];
  if (!text || !*text || app_number_is_hex(text))
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "bad number '%s' for '%s'", deck_show(text, show, sizeof show), key);
  /* Fortran exponents: 1.0d-3 (a copy of any length: long numbers are not cut) */
  size_t len = strlen(text);
  char *buf = (char *)malloc(len + 1);
  if (!buf) return DECK_OOM("app_deck_double", line);
  memcpy(buf, text, len + 1);
  for (char *c = buf; *c; ++c)
    if (*c == 'd' || *c == 'D') *c = 'e';
  char *end = NULL;
  errno = 0;
  double v = strtod(buf, &end);
  const int bad = *end != '\0', range = errno == ERANGE;
  free(buf);
  if (bad)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "bad number '%s' for '%s'", deck_show(text, show, sizeof show), key);
  if (!isfinite(v))
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "number '%s' for '%s' is %s", deck_show(text, show, sizeof show), key,
                     range ? "too large for a double (it overflows)" : "not finite");
  /* strtod sets ERANGE for subnormal results too: a finite nonzero value is valid */
  if (range && v == 0.0)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "number '%s' for '%s' is too small for a double (it underflows to 0)",
                     deck_show(text, show, sizeof show), key);
  *out = v;
  return PORTA_SUCCESS;
}
