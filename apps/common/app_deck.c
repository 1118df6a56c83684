/** @file app_deck.c
 *  Deck loading and tokenising (see app_deck.h). */
#include "app_deck.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

/* "file:line: message" into d->err, and the Porta error `code` of function `op` on the deck;
 * returns the code. */
static int deck_vfail(app_deck *d, int code, const char *op, int line, const char *fmt,
                      va_list ap) {
  char msg[512];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (line > 0) {
    snprintf(d->err, sizeof d->err, "%s:%d: %s", d->path, line, msg);
    return porta_error(code, op, d->path, "line %d: %s", line, msg);
  }
  snprintf(d->err, sizeof d->err, "%s: %s", d->path, msg);
  return porta_error(code, op, d->path, "%s", msg);
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

int app_deck_load(app_deck *d, const char *path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", path);
  long long len = -1; /* -1: cannot open, -2: read error */
  char *buf = NULL;
  int os_errno = 0; /* rank 0's reason, sent with len */
  if (rank == 0) {
    errno = 0;
    FILE *f = fopen(path, "rb");
    os_errno = errno;
    if (f) {
      size_t cap = 4096, n = 0, got;
      buf = (char *)malloc(cap);
      while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
          char *nb = (char *)realloc(buf, cap *= 2);
          if (!nb) {
            free(buf);
            buf = NULL;
          }
          buf = nb;
        }
      }
      os_errno = !buf ? ENOMEM : ferror(f) ? errno : 0;
      len = (buf && !ferror(f)) ? (long long)n : -2;
      fclose(f);
    }
  }
  long long msg[2] = {len, os_errno};
  MPI_Bcast(msg, 2, MPI_LONG_LONG, 0, comm);
  len = msg[0];
  if (len < 0) {
    free(buf);
    return deck_fail(d, PORTA_ERROR_IO, "app_deck_load", 0, "cannot %s the input deck (%s)",
                     len == -1 ? "open" : "read",
                     msg[1] ? strerror((int)msg[1])
                            : (len == -1 ? "no such file or not readable" : "read error"));
  }
  if (rank != 0) buf = (char *)malloc((size_t)len + 1);
  if (!buf) return DECK_OOM("app_deck_load", 0);
  if (len > 0) MPI_Bcast(buf, (int)len, MPI_CHAR, 0, comm);
  buf[len] = '\0';
  d->text = buf;
  d->size = (size_t)len;
  return PORTA_SUCCESS;
}

int app_deck_tokenize(app_deck *d, const char *comment, const char *separators, int lower) {
  int cap = 64;
  d->lines = (app_deck_line *)calloc((size_t)cap, sizeof *d->lines);
  if (!d->lines) return DECK_OOM("app_deck_tokenize", 0);
  const char *p = d->text;
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
  char *end = NULL;
  errno = 0;
  long long v = text ? strtoll(text, &end, 10) : 0;
  if (!text || !*text || *end || errno)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_i64", line,
                     "bad integer value '%s' for '%s'", text ? text : "(missing)", key);
  *out = (int64_t)v;
  return PORTA_SUCCESS;
}

int app_deck_int(app_deck *d, int line, const char *key, const char *text, int *out) {
  int64_t v = 0;
  PORTA_CHECK(app_deck_i64(d, line, key, text, &v));
  if (v < INT_MIN || v > INT_MAX)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_int", line,
                     "integer value '%s' for '%s' is out of range", text, key);
  *out = (int)v;
  return PORTA_SUCCESS;
}

int app_deck_double(app_deck *d, int line, const char *key, const char *text, double *out) {
  char buf[128];
  char *end = NULL;
  if (!text || !*text || strlen(text) >= sizeof buf)
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "bad number '%s' for '%s'", text ? text : "(missing)", key);
  /* Fortran exponents: 1.0d-3 */
  snprintf(buf, sizeof buf, "%s", text);
  for (char *c = buf; *c; ++c)
    if (*c == 'd' || *c == 'D') *c = 'e';
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || errno == ERANGE || !isfinite(v))
    return deck_fail(d, PORTA_ERROR_INVALID_ARGUMENT, "app_deck_double", line,
                     "bad number '%s' for '%s'", text, key);
  *out = v;
  return PORTA_SUCCESS;
}
