/** @file minimd_eam_file.c
 *  The EAM potential: a DYNAMO funcfl file (line 1 a comment; line 2 `Z mass`; line 3
 *  `nrho drho nr dr cut`; then F(rho)[nrho], Z(r)[nr], rho(r)[nr], any number per line),
 *  re-gridded with 4-point Lagrange interpolation and turned into LAMMPS `pair eam`'s cubic
 *  splines (7 coefficients per knot). Rank 0 reads and checks the file; a missing, short or
 *  malformed file stops the run with its name, the line and what was expected (the reference
 *  reads past the end, or crashes on a blank line). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "minimd_eam.h"
#include "minimd_input.h"

static const char op[] = "minimd_eam_read";

typedef struct funcfl {
  double mass, drho, dr, cut;
  int nrho, nr;
  double *frho, *zr, *rhor; /* 1-based */
} funcfl;

/** Read `n` numbers into list[1..n] from lines of any length (a whole table may be one line). */
static int grab(minimd_input *in, int n, double *list, const char *what) {
  const char *path = in->path;
  const int *line = &in->line;
  int i = 0;
  while (i < n) {
    int rc = PORTA_SUCCESS;
    char *p = minimd_input_line(in, &rc);
    if (!p) {
      if (rc != PORTA_SUCCESS) return rc;
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                         "%s:%d: the file ends after %d of the %d values of %s", path, *line, i, n,
                         what);
    }
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\f') ++p;
      if (!*p) break;
      char *end = NULL;
      errno = 0;
      const double v = strtod(p, &end);
      if (end == p || !isfinite(v) || app_number_is_hex(p) ||
          (*end && !strchr(" \t\r\n\f", *end))) {
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                           "%s:%d: '%.*s' is not a number (value %d of %s)", path, *line,
                           (int)strcspn(p, " \t\r\n\f") > 40 ? 40 : (int)strcspn(p, " \t\r\n\f"), p,
                           i + 1, what);
      }
      if (i == n) {
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                           "%s:%d: more values than the %d of %s the header announced", path, *line,
                           n, what);
      }
      list[1 + i++] = v;
      p = end;
    }
  }
  return PORTA_SUCCESS;
}

/* The header's lines 2 (`Z mass ...`) and 3 (`nrho drho nr dr cut`), each number a whole token
 * of its kind: "29.5" as the atomic number had been read as 29 and the mass as .5. */
static int read_header(minimd_input *in, funcfl *ff) {
  const char *path = in->path;
  char *l[3], *tok[6];
  int rc = PORTA_SUCCESS;
  for (int k = 0; k < 3; ++k) /* line 1, a comment, may be of any length */
    if (!(l[k] = minimd_input_line(in, &rc))) {
      if (rc != PORTA_SUCCESS) return rc;
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                         "%s: the file has fewer than the 3 header lines of a funcfl file", path);
    } else if (k == 1) { /* line 2's tokens, before line 3 takes the buffer */
      long long z = 0;
      int nt = 0;
      for (char *t = strtok(l[1], " \t"); t && nt < 2; t = strtok(NULL, " \t")) tok[nt++] = t;
      const int zok = nt >= 1 && minimd_input_int(tok[0], 1, 1000, &z);
      const int mok = nt >= 2 && minimd_input_real(tok[1], &ff->mass) && ff->mass > 0.0;
      if (!zok || !mok) {
        return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
                           "%s:2: expected the atomic number and the mass: '%.40s' is not %s", path,
                           !zok ? (nt > 0 ? tok[0] : "") : (nt > 1 ? tok[1] : ""),
                           !zok ? "a whole number from 1 to 1000" : "a positive mass");
      }
    }
  int nt = 0;
  for (char *t = strtok(l[2], " \t"); t && nt < 6; t = strtok(NULL, " \t")) tok[nt++] = t;
  long long nrho = 0, nr = 0;
  /* each token of its kind: whole table sizes from 5 to 10^7, positive finite spacings and
     cut-off */
  const char *bad = nt != 5 ? "" : NULL;
  if (!bad && !minimd_input_int(tok[0], 5, 10000000, &nrho)) bad = tok[0];
  if (!bad && !(minimd_input_real(tok[1], &ff->drho) && ff->drho > 0.0)) bad = tok[1];
  if (!bad && !minimd_input_int(tok[2], 5, 10000000, &nr)) bad = tok[2];
  if (!bad && !(minimd_input_real(tok[3], &ff->dr) && ff->dr > 0.0)) bad = tok[3];
  if (!bad && !(minimd_input_real(tok[4], &ff->cut) && ff->cut > 0.0)) bad = tok[4];
  if (bad) {
    return porta_error(
        PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
        "%s:3: expected 'nrho drho nr dr cut' (whole table sizes from 5 to 10^7, positive "
        "spacings and cut-off)%s%.40s%s",
        path, nt != 5 ? ": 5 numbers" : ": '", bad, nt != 5 ? "" : "' is not one");
  }
  /* the tables must span a finite, sane range: a spacing of 1e308 had overflowed the
     re-gridded table's size (a calloc of -2147483647) */
  const double rspan = (double)(nr - 1) * ff->dr, rhospan = (double)(nrho - 1) * ff->drho;
  if (!(rspan < 1e6) || !(rhospan < 1e12)) {
    return porta_error(
        PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
        "%s:3: tables of %lld x %g in r and %lld x %g in rho span %g and %g: more than "
        "the 10^6 in r and 10^12 in rho a potential can mean",
        path, nr, ff->dr, nrho, ff->drho, rspan, rhospan);
  }
  ff->nrho = (int)nrho;
  ff->nr = (int)nr;
  return PORTA_SUCCESS;
}

static int read_file(const char *path, funcfl *ff) {
  minimd_input in;
  int rc = minimd_input_open(&in, path, "EAM potential file");
  if (rc != PORTA_SUCCESS) return rc;
  rc = read_header(&in, ff);
  if (rc == PORTA_SUCCESS) {
    ff->frho = (double *)calloc((size_t)ff->nrho + 1, sizeof(double));
    ff->zr = (double *)calloc((size_t)ff->nr + 1, sizeof(double));
    ff->rhor = (double *)calloc((size_t)ff->nr + 1, sizeof(double));
    if (!ff->frho || !ff->zr || !ff->rhor) {
      rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL, "%s: no memory for the tables", path);
    }
  }
  if (rc == PORTA_SUCCESS) rc = grab(&in, ff->nrho, ff->frho, "F(rho)");
  if (rc == PORTA_SUCCESS) rc = grab(&in, ff->nr, ff->zr, "Z(r)");
  if (rc == PORTA_SUCCESS) rc = grab(&in, ff->nr, ff->rhor, "rho(r)");
  /* nothing may follow: with a header count too small the tables would take each other's
     values, and only the values left over at the end show it */
  char *l;
  while (rc == PORTA_SUCCESS && (l = minimd_input_line(&in, &rc))) {
    if (l[strspn(l, " \t\r\n\f")] != '\0') {
      rc = porta_error(
          PORTA_ERROR_INVALID_ARGUMENT, op, NULL,
          "%s:%d: more values than the header announced (nrho %d, nr %d: F(rho), Z(r) and "
          "rho(r) end on line %d)",
          path, in.line, ff->nrho, ff->nr, in.line - 1);
    }
  }
  minimd_input_close(&in);
  return rc;
}

/** 4-point Lagrange re-gridding of f[1..nf] (spacing df) onto n points of spacing d. */
static void regrid(const double *f, int nf, double df, int n, double d, double *out) {
  for (int m = 1; m <= n; ++m) {
    const double r = (m - 1) * d;
    double p = r / df + 1.0;
    int k = (int)p;
    if (k > nf - 2) k = nf - 2;
    if (k < 2) k = 2;
    p -= k;
    if (p > 2.0) p = 2.0;
    const double c1 = -p * (p - 1.0) * (p - 2.0) / 6.0;
    const double c2 = 0.5 * (p * p - 1.0) * (p - 2.0);
    const double c3 = -0.5 * p * (p + 1.0) * (p - 2.0);
    const double c4 = p * (p * p - 1.0) / 6.0;
    out[m] = c1 * f[k - 1] + c2 * f[k] + c3 * f[k + 1] + c4 * f[k + 2];
  }
}

/** LAMMPS `pair eam` spline of f[1..n] with knot spacing delta into s[m * 7 + c]. */
static void spline(const double *f, int n, double delta, double *s) {
  for (int m = 1; m <= n; ++m) s[m * 7 + 6] = f[m];
  s[1 * 7 + 5] = s[2 * 7 + 6] - s[1 * 7 + 6];
  s[2 * 7 + 5] = 0.5 * (s[3 * 7 + 6] - s[1 * 7 + 6]);
  s[(n - 1) * 7 + 5] = 0.5 * (s[n * 7 + 6] - s[(n - 2) * 7 + 6]);
  s[n * 7 + 5] = s[n * 7 + 6] - s[(n - 1) * 7 + 6];
  for (int m = 3; m <= n - 2; ++m)
    s[m * 7 + 5] = ((s[(m - 2) * 7 + 6] - s[(m + 2) * 7 + 6]) +
                    8.0 * (s[(m + 1) * 7 + 6] - s[(m - 1) * 7 + 6])) /
                   12.0;
  for (int m = 1; m <= n - 1; ++m) {
    s[m * 7 + 4] =
        3.0 * (s[(m + 1) * 7 + 6] - s[m * 7 + 6]) - 2.0 * s[m * 7 + 5] - s[(m + 1) * 7 + 5];
    s[m * 7 + 3] = s[m * 7 + 5] + s[(m + 1) * 7 + 5] - 2.0 * (s[(m + 1) * 7 + 6] - s[m * 7 + 6]);
  }
  s[n * 7 + 4] = 0.0;
  s[n * 7 + 3] = 0.0;
  for (int m = 1; m <= n; ++m) {
    s[m * 7 + 2] = s[m * 7 + 5] / delta;
    s[m * 7 + 1] = 2.0 * s[m * 7 + 4] / delta;
    s[m * 7 + 0] = 3.0 * s[m * 7 + 3] / delta;
  }
}

static int table_view(porta_view_f64 *v, const char *label, const double *s, int n) {
  porta_view_options hopt = {PORTA_HOST_SPACE, PORTA_LAYOUT_DEFAULT, 0, NULL};
  porta_view_f64 h;
  int64_t len = (int64_t)(n + 1) * 7;
  PORTA_CHECK(porta_view_f64_wrap(&h, (double *)s, "eam_table_host", 1, &len, &hopt));
  int rc = porta_view_f64_create1(v, label, len);
  if (rc == PORTA_SUCCESS) rc = porta_deep_copy(*v, h);
  porta_view_f64_release(&h);
  return rc;
}

static void funcfl_free(funcfl *ff) {
  free(ff->frho);
  free(ff->zr);
  free(ff->rhor);
}

/* Rank 0's tables (read, or the failure with its reason) on every rank. */
static int funcfl_share(funcfl *ff, int rc, int rank, MPI_Comm comm) {
  int head[3] = {rc, ff->nrho, ff->nr};
  APP_MPI_CHECK(MPI_Bcast(head, 3, MPI_INT, 0, comm));
  if (head[0] != PORTA_SUCCESS) return head[0];
  double vals[4] = {ff->mass, ff->drho, ff->dr, ff->cut};
  APP_MPI_CHECK(MPI_Bcast(vals, 4, MPI_DOUBLE, 0, comm));
  ff->nrho = head[1];
  ff->nr = head[2];
  ff->mass = vals[0];
  ff->drho = vals[1];
  ff->dr = vals[2];
  ff->cut = vals[3];
  if (rank != 0) {
    ff->frho = (double *)calloc((size_t)ff->nrho + 1, sizeof(double));
    ff->zr = (double *)calloc((size_t)ff->nr + 1, sizeof(double));
    ff->rhor = (double *)calloc((size_t)ff->nr + 1, sizeof(double));
    if (!ff->frho || !ff->zr || !ff->rhor)
      rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL, "no memory for the EAM tables");
  }
  PORTA_CHECK(app_mpi_agree(rc, op, "no memory for the EAM tables", comm));
  APP_MPI_CHECK(MPI_Bcast(ff->frho, ff->nrho + 1, MPI_DOUBLE, 0, comm));
  APP_MPI_CHECK(MPI_Bcast(ff->zr, ff->nr + 1, MPI_DOUBLE, 0, comm));
  APP_MPI_CHECK(MPI_Bcast(ff->rhor, ff->nr + 1, MPI_DOUBLE, 0, comm));
  return PORTA_SUCCESS;
}

/* The potential's splines on the execution space, from the file's tables: one funcfl file, the
   grid keeps its spacings, one knot fewer. */
static int splines_make(minimd_eam *e, const funcfl *ff) {
  e->mass = ff->mass;
  e->cut = ff->cut;
  e->cutsq = ff->cut * ff->cut;
  e->dr = ff->dr;
  e->drho = ff->drho;
  e->rdr = 1.0 / e->dr;
  e->rdrho = 1.0 / e->drho;
  const double rmax = (ff->nr - 1) * ff->dr, rhomax = (ff->nrho - 1) * ff->drho;
  e->nr = (int)(rmax / e->dr + 0.5);
  e->nrho = (int)(rhomax / e->drho + 0.5);
  const int nmax = e->nr > e->nrho ? e->nr : e->nrho;
  double *g = (double *)calloc((size_t)nmax + 1, sizeof(double));
  double *z2 = (double *)calloc((size_t)e->nr + 1, sizeof(double));
  double *s = (double *)calloc((size_t)(nmax + 1) * 7, sizeof(double));
  int rc = PORTA_SUCCESS;
  if (!g || !z2 || !s) {
    rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL, "no memory for the EAM splines");
  } else {
    regrid(ff->frho, ff->nrho, ff->drho, e->nrho, e->drho, g);
    spline(g, e->nrho, e->drho, s);
    rc = table_view(&e->frho, "eam_frho_spline", s, e->nrho);
    regrid(ff->rhor, ff->nr, ff->dr, e->nr, e->dr, g);
    memset(s, 0, (size_t)(nmax + 1) * 7 * sizeof(double));
    spline(g, e->nr, e->dr, s);
    if (rc == PORTA_SUCCESS) rc = table_view(&e->rhor, "eam_rhor_spline", s, e->nr);
    regrid(ff->zr, ff->nr, ff->dr, e->nr, e->dr, g);
    for (int m = 1; m <= e->nr; ++m) /* Hartree Bohr -> eV A */
      z2[m] = 27.2 * 0.529 * g[m] * g[m];
    memset(s, 0, (size_t)(nmax + 1) * 7 * sizeof(double));
    spline(z2, e->nr, e->dr, s);
    if (rc == PORTA_SUCCESS) rc = table_view(&e->z2r, "eam_z2r_spline", s, e->nr);
  }
  free(g);
  free(z2);
  free(s);
  return rc;
}

int minimd_eam_read(minimd_eam *e, const char *path, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  funcfl ff;
  memset(&ff, 0, sizeof ff);
  int rc = PORTA_SUCCESS;
  if (rank == 0) rc = read_file(path, &ff); /* the reason stays rank 0's, which reports it */
  /* every rank learns the verdict and, on success, the tables */
  rc = funcfl_share(&ff, rc, rank, comm);
  if (rc == PORTA_SUCCESS) rc = splines_make(e, &ff);
  funcfl_free(&ff);
  return app_mpi_agree(rc, op, "the EAM splines failed", comm);
}
