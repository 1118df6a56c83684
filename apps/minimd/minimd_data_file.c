/** @file minimd_data_file.c
 *  Atoms from a LAMMPS data file (deck line 4 or -f), as the reference reads one: a header
 *  (`N atoms`, `xlo xhi`, `ylo yhi`, `zlo zhi`; other lines such as `atom types` ignored), then
 *  sections `Atoms` (id type x y z), `Velocities` (id vx vy vz) and `Masses` (type mass; the
 *  mass of LJ atoms). Velocities are used as read (no rescaling); the file's types are not
 *  (every type pair has the same parameters). Rank 0 reads and checks the whole file; a bad one
 *  stops the run with the file, the line and the reason. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "minimd_data.h"
#include "minimd_input.h"

typedef struct data_file {
  int64_t natoms;
  double lo[3], prd[3], mass;
  int have_mass, have_velocities;
  double *x, *v; /* [3 natoms], by id - 1 */
} data_file;

static int blank(const char *l) {
  for (; *l; ++l)
    if (*l != ' ' && *l != '\t' && *l != '\r' && *l != '\n') return 0;
  return 1;
}

static const char op[] = "minimd_data_read";

/** The next line that is not blank (comments from '#' removed); NULL at the end, or with *rc
 *  set (a line too long or unreadable: the reason recorded as Porta's last error). */
static char *next_line(minimd_input *in, int *rc) {
  char *l;
  while ((l = minimd_input_line(in, rc))) {
    char *h = strchr(l, '#');
    if (h) *h = '\0';
    if (!blank(l)) return l;
  }
  return NULL;
}

/** The first `n` blank-separated tokens of l into tok (l is cut up); how many there were. */
static int tokens(char *l, char **tok, int n) {
  int k = 0;
  for (char *t = strtok(l, " \t\r\n"); t && k < n; t = strtok(NULL, " \t\r\n")) tok[k++] = t;
  return k;
}

/** A Masses row `type mass`: a whole number and a positive real, each a whole token (sscanf had
 *  read "1.5 1.0" as type 1 and mass .5). 1 when it is one. */
static int parse_mass(char *l, double *mass) {
  char *tok[2];
  long long type = 0;
  return tokens(l, tok, 2) == 2 && minimd_input_int(tok[0], 1, 1000000, &type) &&
         minimd_input_real(tok[1], mass) && *mass > 0.0;
}

/** One row of Atoms (`id type x y z`, more columns such as image flags ignored) or Velocities
 *  (`id vx vy vz`): id and type whole numbers, the rest finite decimal numbers, each a whole
 *  token (sscanf would read "1.66" as the type 1 and the coordinate .66). 1 when it is one. */
static int parse_row(char *l, int atoms, long long *id, int *type, double a[3]) {
  const int need = atoms ? 5 : 4;
  char *tok[5];
  if (tokens(l, tok, need) < need || !minimd_input_int(tok[0], LLONG_MIN, LLONG_MAX, id)) return 0;
  long long ty = 0;
  if (atoms && !minimd_input_int(tok[1], 1, 1000000, &ty)) return 0;
  *type = (int)ty;
  for (int d = 0; d < 3; ++d)
    if (!minimd_input_real(tok[need - 3 + d], &a[d])) return 0;
  return 1;
}

/** Is l a line of numbers (it starts with a digit, a sign or a point)? */
static int numeric(const char *l) {
  const char c = l[strspn(l, " \t")];
  return isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.';
}

/** The other sections LAMMPS's read_data defines: their rows are skipped, as the reference
 *  skips them (a name outside this list and miniMD's three is a mistake, e.g. "Velocity"). */
static const char *const lammps_sections[] = {"Pair Coeffs",
                                              "PairIJ Coeffs",
                                              "Bond Coeffs",
                                              "Angle Coeffs",
                                              "Dihedral Coeffs",
                                              "Improper Coeffs",
                                              "BondBond Coeffs",
                                              "BondAngle Coeffs",
                                              "MiddleBondTorsion Coeffs",
                                              "EndBondTorsion Coeffs",
                                              "AngleTorsion Coeffs",
                                              "AngleAngleTorsion Coeffs",
                                              "BondBond13 Coeffs",
                                              "AngleAngle Coeffs",
                                              "Bonds",
                                              "Angles",
                                              "Dihedrals",
                                              "Impropers",
                                              "Ellipsoids",
                                              "Lines",
                                              "Triangles",
                                              "Bodies",
                                              "Atom Type Labels",
                                              "Bond Type Labels",
                                              "Angle Type Labels",
                                              "Dihedral Type Labels",
                                              "Improper Type Labels"};

/** The section name on line l (comments are gone): its words, blanks at the ends removed. */
static void section_name(const char *l, char *name, size_t n) {
  l += strspn(l, " \t");
  size_t len = strcspn(l, "\r\n");
  while (len > 0 && (l[len - 1] == ' ' || l[len - 1] == '\t')) --len;
  snprintf(name, n, "%.*s", (int)len, l);
}

/** The state of one read: the input, the file's contents so far, the current line (a section
 *  keyword between sections), and the first error (rc; its message is Porta's last error). */
typedef struct reader {
  minimd_input in;
  const char *path;
  data_file *df;
  char *l;
  int rc;
} reader;

/** The reason for a bad file (a printf format) as a Porta error; rc becomes INVALID_ARGUMENT. */
static void bad(reader *r, const char *fmt, ...) PORTA_PRINTF_FORMAT(2, 3);
static void bad(reader *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char reason[2048];
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  r->rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%s", reason);
}

static char *next(reader *r) { return r->l = next_line(&r->in, &r->rc); }

/** The header up to the first section's keyword (left in r->l): atoms and box. */
static void read_header(reader *r) {
  data_file *df = r->df;
  const char *axes[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
  int have_box[3] = {0, 0, 0};
  while (next(r)) {
    int axis = -1;
    for (int d = 0; d < 3; ++d)
      if (strstr(r->l, axes[d])) axis = d;
    if (axis >= 0) {
      double lo = 0.0, hi = 0.0;
      char *tok[2];
      if (tokens(r->l, tok, 2) != 2 || !minimd_input_real(tok[0], &lo) ||
          !minimd_input_real(tok[1], &hi) || !(hi > lo) || !isfinite(hi - lo))
        return bad(r, "%s:%d: expected '%s' with lo < hi", r->path, r->in.line, axes[axis]);
      df->lo[axis] = lo;
      df->prd[axis] = hi - lo;
      have_box[axis] = 1;
    } else if (strstr(r->l, "atom types")) {
      continue;
    } else if (strstr(r->l, "atoms")) {
      long long n = 0;
      char *tok[1];
      if (tokens(r->l, tok, 1) != 1 || !minimd_input_int(tok[0], 2, 2000000000LL, &n))
        return bad(r, "%s:%d: expected the number of atoms, a whole number from 2 to 2e9", r->path,
                   r->in.line);
      df->natoms = n;
    } else {
      break; /* the first section's keyword */
    }
  }
  if (r->rc == PORTA_SUCCESS && (!df->natoms || !have_box[0] || !have_box[1] || !have_box[2]))
    bad(r, "%s:%d: the header needs 'N atoms', 'xlo xhi', 'ylo yhi' and 'zlo zhi'", r->path,
        r->in.line);
}

/** Room for every atom's position and velocity. Every rank keeps them until they are spread: 48
 *  bytes an atom, checked against this process's memory limit before allocating (2e9 atoms had
 *  ended in "allocator is out of memory"). */
static void allocate(reader *r) {
  data_file *df = r->df;
  const double need = 49.0 * (double)df->natoms, limit = app_memory_limit(NULL, 0);
  if (limit > 0.0 && need > limit) {
    char which[256];
    app_memory_limit(which, sizeof which);
    return bad(r,
               "%s:%d: %lld atoms: their positions and velocities alone need %.3g GB on every "
               "rank, more than the %.3g GB of %s",
               r->path, r->in.line, (long long)df->natoms, need / 1e9, limit / 1e9, which);
  }
  df->x = (double *)malloc((size_t)df->natoms * 3 * sizeof(double));
  df->v = (double *)calloc((size_t)df->natoms * 3, sizeof(double));
  if (!df->x || !df->v) {
    r->rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL, "%s: no memory for %lld atoms",
                        r->path, (long long)df->natoms);
  }
}

/** One row of Atoms (atoms) or Velocities, its id not `seen` before. */
static void read_atom_row(reader *r, int atoms, char *seen) {
  data_file *df = r->df;
  long long id = 0;
  int type = 0;
  double a[3];
  const int ok = parse_row(r->l, atoms, &id, &type, a);
  if (!ok || id < 1 || id > df->natoms || seen[id - 1])
    return bad(r, "%s:%d: expected '%s' with a new id in 1..%lld and finite values", r->path,
               r->in.line, atoms ? "id type x y z" : "id vx vy vz", (long long)df->natoms);
  seen[id - 1] = 1;
  for (int d = 0; d < 3; ++d) {
    if (atoms) {
      double x = a[d] - df->lo[d]; /* the box starts at 0 */
      if (x < 0.0) x += df->prd[d];
      if (x >= df->prd[d]) x -= df->prd[d];
      if (x < 0.0 || x >= df->prd[d])
        bad(r, "%s:%d: atom %lld lies outside the box", r->path, r->in.line, id);
      df->x[3 * (id - 1) + d] = x;
    } else {
      df->v[3 * (id - 1) + d] = a[d];
    }
  }
}

/** The rows of section `key`: natoms of Atoms or Velocities, or the first of Masses. */
static void read_rows(reader *r, const char *key, int atoms, int vel, int masses) {
  data_file *df = r->df;
  const int64_t rows = atoms || vel ? df->natoms : 1;
  char *seen = atoms || vel ? (char *)calloc((size_t)df->natoms, 1) : NULL;
  for (int64_t k = 0; k < rows && r->rc == PORTA_SUCCESS; ++k) {
    if (!next(r)) {
      if (r->rc == PORTA_SUCCESS)
        bad(r, "%s: the file ends in section %s after %lld of %lld lines", r->path, key,
            (long long)k, (long long)rows);
      break;
    }
    if (masses) {
      if (!parse_mass(r->l, &df->mass))
        bad(r,
            "%s:%d: expected 'type mass': a whole number and a positive mass, each a whole "
            "token",
            r->path, r->in.line);
      df->have_mass = 1;
      continue;
    }
    read_atom_row(r, atoms, seen);
  }
  free(seen);
}

/** More rows of Masses (more atom types): all the one mass miniMD gives every atom. */
static void read_more_masses(reader *r) {
  while (next(r) && numeric(r->l)) {
    double m = 0.0;
    if (!parse_mass(r->l, &m) || m != r->df->mass)
      return bad(r,
                 "%s:%d: expected 'type mass' with the mass of the types before (%g): miniMD "
                 "gives every atom one mass",
                 r->path, r->in.line, r->df->mass);
  }
}

/** The sections from the keyword in r->l to the end; *have_atoms when Atoms was one. */
static void read_sections(reader *r, int *have_atoms) {
  while (r->rc == PORTA_SUCCESS && r->l) {
    char key[128] = "";
    section_name(r->l, key, sizeof key);
    const int atoms = !strcmp(key, "Atoms"), vel = !strcmp(key, "Velocities");
    const int masses = !strcmp(key, "Masses");
    int other = 0;
    for (size_t k = 0; k < sizeof lammps_sections / sizeof lammps_sections[0]; ++k)
      if (!strcmp(key, lammps_sections[k])) other = 1;
    if (numeric(r->l)) /* the rows of the section before did not end where the header said */
      return bad(r,
                 "%s:%d: a line of numbers where a section name was expected: the file has "
                 "more rows than the %lld atoms of its header",
                 r->path, r->in.line, (long long)r->df->natoms);
    if (other) { /* a LAMMPS section miniMD does not use: its rows skipped */
      while (next(r) && numeric(r->l)) {
      }
      continue;
    }
    if (!atoms && !vel && !masses) /* a misspelt name would drop its section unnoticed */
      return bad(r,
                 "%s:%d: unknown section '%s' (miniMD reads the sections Atoms, Velocities "
                 "and Masses and skips the other sections LAMMPS defines)",
                 r->path, r->in.line, key);
    read_rows(r, key, atoms, vel, masses);
    if (atoms) *have_atoms = 1;
    if (vel) r->df->have_velocities = 1;
    if (r->rc == PORTA_SUCCESS && masses)
      read_more_masses(r);
    else if (r->rc == PORTA_SUCCESS)
      next(r);
  }
}

static int read_file(const char *path, data_file *df) {
  reader r;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.df = df;
  r.rc = minimd_input_open(&r.in, path, "data file");
  if (r.rc != PORTA_SUCCESS) return r.rc;
  if (!minimd_input_line(&r.in, &r.rc)) { /* line 1: a title, of any length */
    if (r.rc == PORTA_SUCCESS)
      r.rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%s: the file is empty", path);
    minimd_input_close(&r.in);
    return r.rc;
  }
  read_header(&r);
  if (r.rc == PORTA_SUCCESS) allocate(&r);
  int have_atoms = 0;
  if (r.rc == PORTA_SUCCESS) read_sections(&r, &have_atoms);
  minimd_input_close(&r.in);
  if (r.rc == PORTA_SUCCESS && !have_atoms) {
    r.rc = porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "%s: no Atoms section", path);
  }
  return r.rc;
}

int minimd_data_read(const char *path, minimd_data *out, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  data_file df;
  memset(&df, 0, sizeof df);
  df.mass = 1.0;
  /* the reason of a failure stays rank 0's, which reports it */
  int rc = rank == 0 ? read_file(path, &df) : PORTA_SUCCESS;
  APP_MPI_CHECK(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  if (rc != PORTA_SUCCESS) {
    free(df.x);
    free(df.v);
    return rc;
  }
  double head[9] = {
      (double)df.natoms,          df.prd[0], df.prd[1], df.prd[2], df.mass, (double)df.have_mass,
      (double)df.have_velocities, 0,         0};
  APP_MPI_CHECK(MPI_Bcast(head, 9, MPI_DOUBLE, 0, comm));
  out->natoms = (int64_t)head[0];
  for (int d = 0; d < 3; ++d) out->prd[d] = head[1 + d];
  out->mass = head[4];
  out->have_mass = (int)head[5];
  out->have_velocities = (int)head[6];
  if (rank != 0) {
    df.x = (double *)malloc((size_t)out->natoms * 3 * sizeof(double));
    df.v = (double *)malloc((size_t)out->natoms * 3 * sizeof(double));
    if (!df.x || !df.v)
      rc = porta_error(PORTA_ERROR_OUT_OF_MEMORY, op, NULL,
                       "no memory for the data file's %lld atoms", (long long)out->natoms);
  }
  rc = app_mpi_agree(rc, op, "no memory for the data file's atoms", comm);
  if (rc != PORTA_SUCCESS) {
    free(df.x);
    free(df.v);
    return rc;
  }
  for (int64_t off = 0; off < 3 * out->natoms; off += 1 << 28) { /* MPI counts are int */
    const int n = (int)(3 * out->natoms - off < (1 << 28) ? 3 * out->natoms - off : 1 << 28);
    APP_MPI_CHECK(MPI_Bcast(df.x + off, n, MPI_DOUBLE, 0, comm));
    APP_MPI_CHECK(MPI_Bcast(df.v + off, n, MPI_DOUBLE, 0, comm));
  }
  out->x = df.x;
  out->v = df.v;
  return PORTA_SUCCESS;
}
