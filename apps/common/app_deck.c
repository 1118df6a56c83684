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

int app_deck_error(app_deck *d, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0)
    snprintf(d->err, sizeof d->err, "%s:%d: %s", d->path, line, msg);
  else
    snprintf(d->err, sizeof d->err, "%s: %s", d->path, msg);
  return 1;
}

int app_deck_load_text(app_deck *d, const char *name, const char *text) {
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", name ? name : "(deck)");
  d->size = strlen(text);
  d->text = (char *)malloc(d->size + 1);
  if (!d->text) return app_deck_error(d, 0, "out of memory");
  memcpy(d->text, text, d->size + 1);
  return 0;
}

int app_deck_load(app_deck *d, const char *path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  memset(d, 0, sizeof *d);
  snprintf(d->path, sizeof d->path, "%s", path);
  long long len = -1; /* -1: cannot open, -2: read error */
  char *buf = NULL;
  if (rank == 0) {
    FILE *f = fopen(path, "rb");
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
      len = (buf && !ferror(f)) ? (long long)n : -2;
      fclose(f);
    }
  }
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
  if (len < 0) {
    free(buf);
    return app_deck_error(d, 0, "cannot %s the input deck (%s)", len == -1 ? "open" : "read",
                          len == -1 ? "no such file or not readable" : "read error");
  }
  if (rank != 0) buf = (char *)malloc((size_t)len + 1);
  if (!buf) return app_deck_error(d, 0, "out of memory");
  if (len > 0) MPI_Bcast(buf, (int)len, MPI_CHAR, 0, comm);
  buf[len] = '\0';
  d->text = buf;
  d->size = (size_t)len;
  return 0;
}

int app_deck_tokenize(app_deck *d, const char *comment, const char *separators, int lower) {
  int cap = 64;
  d->lines = (app_deck_line *)calloc((size_t)cap, sizeof *d->lines);
  if (!d->lines) return app_deck_error(d, 0, "out of memory");
  const char *p = d->text;
  int lineno = 0;
  while (*p) {
    ++lineno;
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char *s = (char *)malloc(n + 1);
    if (!s) return app_deck_error(d, lineno, "out of memory");
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
      if (!nt) return app_deck_error(d, lineno, "out of memory");
      tok = nt;
      tok[ntok] = (char *)malloc(strlen(q) + 1);
      strcpy(tok[ntok++], q);
    }
    free(s);
    if (ntok > 0) {
      if (d->nlines == cap) {
        app_deck_line *nl = (app_deck_line *)realloc(d->lines, (size_t)(cap *= 2) * sizeof *nl);
        if (!nl) return app_deck_error(d, lineno, "out of memory");
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
  return 0;
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
    return app_deck_error(d, line, "bad integer value '%s' for '%s'", text ? text : "(missing)",
                          key);
  *out = (int64_t)v;
  return 0;
}

int app_deck_int(app_deck *d, int line, const char *key, const char *text, int *out) {
  int64_t v = 0;
  if (app_deck_i64(d, line, key, text, &v)) return 1;
  if (v < INT_MIN || v > INT_MAX)
    return app_deck_error(d, line, "integer value '%s' for '%s' is out of range", text, key);
  *out = (int)v;
  return 0;
}

int app_deck_double(app_deck *d, int line, const char *key, const char *text, double *out) {
  char buf[128];
  char *end = NULL;
  if (!text || !*text || strlen(text) >= sizeof buf)
    return app_deck_error(d, line, "bad number '%s' for '%s'", text ? text : "(missing)", key);
  /* Fortran exponents: 1.0d-3 */
  snprintf(buf, sizeof buf, "%s", text);
  for (char *c = buf; *c; ++c)
    if (*c == 'd' || *c == 'D') *c = 'e';
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || errno == ERANGE || !isfinite(v))
    return app_deck_error(d, line, "bad number '%s' for '%s'", text, key);
  *out = v;
  return 0;
}
