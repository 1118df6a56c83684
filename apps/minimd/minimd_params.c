/** @file minimd_params.c
 *  miniMD's input deck (14 lines at fixed positions, the first token(s) of each read, the rest
 *  a comment) and its command line (the reference's options, through app_cli's hook). Every
 *  value is checked; a bad one stops the run with the file, the line and the reason. */
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "app_deck.h"
#include "minimd_params.h"

/** A whole integer in [lo, hi], or an error naming the option. */
static int parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out) {
  return app_cli_int("minimd", "option ", key, v, lo, hi, out);
}

static int set_int(void *user, const char *key, const char *v) {
  minimd_cli *c = (minimd_cli *)user;
  int64_t x = 0;
  if (!strcmp(key, "nsteps")) {
    PORTA_CHECK(parse_int(key, v, 0, MINIMD_MAX_STEPS, &x));
    c->nsteps = x;
  } else if (!strcmp(key, "size")) {
    PORTA_CHECK(parse_int(key, v, 1, MINIMD_MAX_CELLS, &x));
    c->size = x;
  } else if (!strcmp(key, "nx") || !strcmp(key, "ny") || !strcmp(key, "nz")) {
    PORTA_CHECK(parse_int(key, v, 1, MINIMD_MAX_CELLS, &x));
    c->n[key[1] - 'x'] = x;
  } else if (!strcmp(key, "num_threads")) {
    PORTA_CHECK(parse_int(key, v, 1, INT_MAX, &x)); /* Porta's limit follows (runtime.c) */
    c->threads = (int)x;
  } else if (!strcmp(key, "ntypes")) {
    PORTA_CHECK(parse_int(key, v, 1, 1024, &x));
    c->ntypes = (int)x;
  } else if (!strcmp(key, "neigh_bins")) {
    PORTA_CHECK(parse_int(key, v, 1, 100000, &x));
    c->nbins = (int)x;
  } else if (!strcmp(key, "half_neigh")) {
    PORTA_CHECK(parse_int(key, v, -1, 1, &x));
    c->half_neigh = (int)x;
  } else if (!strcmp(key, "ghost_newton")) {
    PORTA_CHECK(parse_int(key, v, 0, 1, &x));
    c->ghost_newton = (int)x;
  } else if (!strcmp(key, "sort")) {
    PORTA_CHECK(parse_int(key, v, -1, MINIMD_MAX_STEPS, &x));
    c->sort = (int)x;
  } else if (!strcmp(key, "yaml_output")) {
    PORTA_CHECK(parse_int(key, v, 0, 1, &x));
    c->yaml_output = (int)x;
  } else if (!strcmp(key, "dump-every")) {
    PORTA_CHECK(parse_int(key, v, 0, MINIMD_MAX_STEPS, &x));
    c->dump_every = (int)x;
  } else if (!strcmp(key, "teams")) {
    PORTA_CHECK(parse_int(key, v, 1, 1 << 20, &x)); /* parsed, no effect (as the reference) */
  }
  return PORTA_SUCCESS;
}

static int set_flag(void *user, const char *key, const char *v) {
  minimd_cli *c = (minimd_cli *)user;
  (void)v;
  if (!strcmp(key, "check_exchange")) c->check_exchange = 1;
  if (!strcmp(key, "yaml_screen")) c->yaml_screen = 1;
  return PORTA_SUCCESS;
}

static int set_word(void *user, const char *key, const char *v) {
  minimd_cli *c = (minimd_cli *)user;
  if (!strcmp(key, "units")) {
    if (strcmp(v, "lj") && strcmp(v, "metal"))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", key,
                         "option units: '%s' is neither lj nor metal", v);
    c->units = !strcmp(v, "lj") ? MINIMD_UNITS_LJ : MINIMD_UNITS_METAL;
  } else if (!strcmp(key, "force")) {
    if (strcmp(v, "lj") && strcmp(v, "eam"))
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", key,
                         "option force: '%s' is neither lj nor eam", v);
    c->force = !strcmp(v, "lj") ? MINIMD_FORCE_LJ : MINIMD_FORCE_EAM;
  } else if (!strcmp(key, "data_file")) {
    if (strlen(v) >= sizeof c->data_file)
      return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", key, "data file name too long");
    snprintf(c->data_file, sizeof c->data_file, "%s", v);
  }
  return PORTA_SUCCESS;
}

static int set_sse(void *user, const char *key, const char *v) {
  (void)user;
  (void)v;
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", key,
                     "option -sse: SSE intrinsics are not part of this miniMD (the compiler "
                     "vectorises the kernels)");
}

static const app_cli_option minimd_options[] = {
    {"nsteps", "N", "number of steps (overrides the deck)", set_int, "n", 0},
    {"size", "N", "nx = ny = nz = N unit cells", set_int, "s", 0},
    {"nx", "N", "unit cells along x (ny and nz default to it without -s)", set_int, NULL, 0},
    {"ny", "N", "unit cells along y", set_int, NULL, 0},
    {"nz", "N", "unit cells along z", set_int, NULL, 0},
    {"num_threads", "N", "threads per rank (as --porta-threads)", set_int, "t", 0},
    {"teams", "N", "accepted for the reference's command lines; no effect", set_int, NULL, 0},
    {"ntypes", "N", "atom types (default 4; every pair has the same parameters)", set_int, NULL, 0},
    {"neigh_bins", "N", "neighbour bins per dimension (default 5/6 of the cells)", set_int, "b", 0},
    {"half_neigh", "K",
     "1 half neighbour list, 0 full list (default: full for LJ, half for EAM on the host, "
     "full on a GPU; the reference's default is 1)",
     set_int, NULL, 0},
    {"ghost_newton", "K", "1 Newton's third law across ghosts (default; EAM uses 0)", set_int, "gn",
     0},
    {"units", "lj|metal", "unit system (overrides the deck)", set_word, "u", 0},
    {"force", "lj|eam", "force field (overrides the deck)", set_word, "p", 0},
    {"data_file", "FILE", "LAMMPS data file with the atoms (overrides the deck)", set_word, "f", 0},
    {"sort", "N", "sort atoms by bin every N steps (-1: at every re-neighbouring; 0: never)",
     set_int, NULL, 0},
    {"check_exchange", NULL, "stop with an error if an atom moved farther than a sub-domain",
     set_flag, NULL, 1},
    {"yaml_output", "0|1", "write the reference's YAML report miniMD-DATE.yaml", set_int, "o", 0},
    {"yaml_screen", NULL, "print the YAML report on stdout too", set_flag, NULL, 1},
    {"dump-every", "N", "snapshots of the atoms in the HDF5 file every N steps", set_int, NULL, 0},
    {"sse", "K", "refused (the reference's Intel-only option)", set_sse, NULL, 0},
};

void minimd_cli_defaults(minimd_cli *c) {
  memset(c, 0, sizeof *c);
  c->nsteps = -1;
  c->size = -1;
  c->n[0] = c->n[1] = c->n[2] = -1;
  c->threads = -1;
  c->ntypes = 4;
  c->nbins = 0;
  c->half_neigh = -2; /* not given: chosen per force field and back end (minimd_main.c) */
  c->ghost_newton = -1;
  c->sort = -1;
  c->units = -1;
  c->force = -1;
}

/* miniMD's environment switches (read in minimd_main.c) */
static const app_env_switch minimd_env[] = {
    {"MINIMD_DEVICE_RENEIGHBOR", "0|1",
     "1: re-neighbour on the execution space, 0: on the host (default: 1 on a GPU)"},
    {"MINIMD_OVERLAP", "0|1",
     "1: LJ forces of atoms without ghost neighbours overlap the ghosts' messages (full list; "
     "default: 1 on several GPUs)"},
    {"MINIMD_CHECK_SORT", "0|1", "1: each device sort checks its bin order"},
    {"MINIMD_DEVICE_SWAPS", "0|1",
     "1: on several GPUs the swaps with other ranks are queued there (default), 0: each waits "
     "on the host"}};

app_cli_spec minimd_cli_spec(minimd_cli *c) {
  app_cli_spec s;
  memset(&s, 0, sizeof s);
  s.program = "minimd";
  s.description = "miniMD (Mantevo miniMD, ref variant, on Porta): Lennard-Jones and EAM "
                  "molecular dynamics";
  s.default_input = "in.lj.miniMD";
  s.default_output = "minimd";
  s.takes_input = 1;
  s.input_long = "input_file";
  s.options = minimd_options;
  s.noptions = (int)(sizeof minimd_options / sizeof minimd_options[0]);
  s.user = c;
  s.env = minimd_env;
  s.nenv = (int)(sizeof minimd_env / sizeof minimd_env[0]);
  /* the thermo sums (3 a thermo step) and the velocity set-up cost well under 1 % exact */
  s.sums_by_default = APP_SUMS_EXACT;
  return s;
}

/* ---- the deck ---------------------------------------------------------------------------- */

/** The tokens of file line `n` (NULL when the line is blank or missing). */
static const app_deck_line *deck_line(const app_deck *d, int n) {
  for (int k = 0; k < d->nlines; ++k)
    if (d->lines[k].line == n) return &d->lines[k];
  return NULL;
}

static int need_tokens(app_deck *d, int n, int count, const char *what, const app_deck_line **out) {
  const app_deck_line *l = deck_line(d, n);
  if (!l || l->ntok < count)
    return app_deck_error(d, n, "expected %s on this line (the deck has 14 lines at fixed places)",
                          what);
  *out = l;
  return PORTA_SUCCESS;
}

static int positive(app_deck *d, int n, const char *key, double v, int zero_ok) {
  if (zero_ok ? v >= 0.0 : v > 0.0) return PORTA_SUCCESS;
  return app_deck_error(d, n, "%s must be %s, got %g", key, zero_ok ? "zero or more" : "positive",
                        v);
}

/** Parse the 14-line deck held by `d`. */
static int parse_deck(app_deck *d, minimd_params *p) {
  const app_deck_line *l = NULL;
  /* (a FIFO that no process writes reads as empty: said so, not as a missing line 3) */
  if (d->nlines == 0) return app_deck_error(d, 0, "the input deck is empty");
  PORTA_CHECK(need_tokens(d, 3, 1, "the units (lj or metal)", &l));
  if (!strcmp(l->tok[0], "lj"))
    p->units = MINIMD_UNITS_LJ;
  else if (!strcmp(l->tok[0], "metal"))
    p->units = MINIMD_UNITS_METAL;
  else
    return app_deck_error(d, 3, "units '%s': expected lj or metal", l->tok[0]);
  PORTA_CHECK(need_tokens(d, 4, 1, "the data file (none or a file name)", &l));
  if (strcmp(l->tok[0], "none")) {
    if (strlen(l->tok[0]) >= sizeof p->data_file)
      return app_deck_error(d, 4, "data file name too long");
    snprintf(p->data_file, sizeof p->data_file, "%s", l->tok[0]);
  }
  PORTA_CHECK(need_tokens(d, 5, 1, "the force style (lj or eam)", &l));
  if (!strcmp(l->tok[0], "lj"))
    p->force = MINIMD_FORCE_LJ;
  else if (!strcmp(l->tok[0], "eam"))
    p->force = MINIMD_FORCE_EAM;
  else
    return app_deck_error(d, 5, "force style '%s': expected lj or eam", l->tok[0]);
  PORTA_CHECK(need_tokens(d, 6, 2, "the LJ epsilon and sigma", &l));
  PORTA_CHECK(app_deck_double(d, 6, "epsilon", l->tok[0], &p->epsilon));
  PORTA_CHECK(app_deck_double(d, 6, "sigma", l->tok[1], &p->sigma));
  PORTA_CHECK(positive(d, 6, "epsilon", p->epsilon, 0));
  PORTA_CHECK(positive(d, 6, "sigma", p->sigma, 0));
  PORTA_CHECK(need_tokens(d, 7, 3, "the problem size in unit cells (nx ny nz)", &l));
  int64_t *n[3] = {&p->nx, &p->ny, &p->nz};
  const char *nk[3] = {"nx", "ny", "nz"};
  for (int k = 0; k < 3; ++k) {
    PORTA_CHECK(app_deck_i64(d, 7, nk[k], l->tok[k], n[k]));
    if (*n[k] < 1 || *n[k] > MINIMD_MAX_CELLS)
      return app_deck_error(d, 7, "%s = %lld: expected 1..%d unit cells", nk[k], (long long)*n[k],
                            MINIMD_MAX_CELLS);
  }
  PORTA_CHECK(need_tokens(d, 8, 1, "the number of timesteps", &l));
  PORTA_CHECK(app_deck_i64(d, 8, "timesteps", l->tok[0], &p->nsteps));
  if (p->nsteps < 0 || p->nsteps > MINIMD_MAX_STEPS)
    return app_deck_error(d, 8, "timesteps = %lld: expected 0..%d", (long long)p->nsteps,
                          MINIMD_MAX_STEPS);
  PORTA_CHECK(need_tokens(d, 9, 1, "the timestep size", &l));
  PORTA_CHECK(app_deck_double(d, 9, "timestep size", l->tok[0], &p->dt));
  PORTA_CHECK(positive(d, 9, "the timestep size", p->dt, 0));
  PORTA_CHECK(need_tokens(d, 10, 1, "the initial temperature", &l));
  PORTA_CHECK(app_deck_double(d, 10, "temperature", l->tok[0], &p->temperature));
  PORTA_CHECK(positive(d, 10, "the initial temperature", p->temperature, 1));
  PORTA_CHECK(need_tokens(d, 11, 1, "the density", &l));
  PORTA_CHECK(app_deck_double(d, 11, "density", l->tok[0], &p->density));
  PORTA_CHECK(positive(d, 11, "the density", p->density, 0));
  PORTA_CHECK(need_tokens(d, 12, 1, "the re-neighbouring interval", &l));
  int64_t every = 0;
  PORTA_CHECK(app_deck_i64(d, 12, "reneighboring every", l->tok[0], &every));
  if (every < 1 || every > MINIMD_MAX_STEPS)
    return app_deck_error(d, 12, "re-neighbouring every %lld steps: expected 1..%d",
                          (long long)every, MINIMD_MAX_STEPS);
  p->neigh_every = (int)every;
  PORTA_CHECK(need_tokens(d, 13, 2, "the force cut-off and the neighbour skin", &l));
  PORTA_CHECK(app_deck_double(d, 13, "force cutoff", l->tok[0], &p->cutforce));
  PORTA_CHECK(app_deck_double(d, 13, "neighbor skin", l->tok[1], &p->skin));
  PORTA_CHECK(positive(d, 13, "the force cut-off", p->cutforce, 0));
  PORTA_CHECK(positive(d, 13, "the neighbour skin", p->skin, 1));
  PORTA_CHECK(need_tokens(d, 14, 1, "the thermo interval", &l));
  int64_t thermo = 0;
  PORTA_CHECK(app_deck_i64(d, 14, "thermo every", l->tok[0], &thermo));
  if (thermo < 0 || thermo > MINIMD_MAX_STEPS)
    return app_deck_error(d, 14, "thermo every %lld steps: expected 0 (start and end) to %d",
                          (long long)thermo, MINIMD_MAX_STEPS);
  p->thermo_every = (int)thermo;
  return PORTA_SUCCESS;
}

/** Apply the command line over the deck and check what the two give together. */
static int apply_cli(const minimd_cli *c, minimd_params *p) {
  if (c->units >= 0) p->units = c->units;
  if (c->force >= 0) p->force = c->force;
  if (c->data_file[0]) snprintf(p->data_file, sizeof p->data_file, "%s", c->data_file);
  if (c->data_file[0] && !strcmp(c->data_file, "none")) p->data_file[0] = '\0';
  if (c->nsteps >= 0) p->nsteps = c->nsteps;
  /* the reference's rule: -s sets all three; -nx sets nx, and ny and nz follow it only when
     -s is absent (-s 2 -nx 3 is 3 x 2 x 2, in either order) */
  if (c->size > 0) p->nx = p->ny = p->nz = c->size;
  if (c->n[0] > 0) p->nx = c->n[0];
  if (c->n[0] > 0 && c->size <= 0) p->ny = p->nz = c->n[0];
  if (c->n[1] > 0) p->ny = c->n[1];
  if (c->n[2] > 0) p->nz = c->n[2];
  p->ntypes = c->ntypes;
  p->nbins[0] = p->nbins[1] = p->nbins[2] = c->nbins;
  p->half_neigh = c->half_neigh;
  p->ghost_newton = c->ghost_newton < 0 ? 1 : c->ghost_newton;
  p->sort_every = c->sort;
  p->yaml_output = c->yaml_output;
  p->yaml_screen = c->yaml_screen;
  p->dump_every = c->dump_every;
  if (p->units == MINIMD_UNITS_LJ && p->force == MINIMD_FORCE_EAM)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", p->input,
                       "%s: EAM needs metal units (line 3 or --units metal)", p->input);
  const double natoms = 4.0 * (double)p->nx * (double)p->ny * (double)p->nz;
  if (!p->data_file[0] && natoms > (double)MINIMD_MAX_ATOMS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minimd", p->input,
                       "%lld x %lld x %lld unit cells are %.3g atoms, more than %g",
                       (long long)p->nx, (long long)p->ny, (long long)p->nz, natoms,
                       (double)MINIMD_MAX_ATOMS);
  return PORTA_SUCCESS;
}

int minimd_params_read(minimd_params *p, const char *path, const minimd_cli *c, MPI_Comm comm) {
  memset(p, 0, sizeof *p);
  snprintf(p->input, sizeof p->input, "%s", path);
  app_deck d;
  memset(&d, 0, sizeof d);
  int rc = app_deck_load(&d, path, comm);
  if (rc == PORTA_SUCCESS) rc = app_deck_tokenize(&d, "", "", 0);
  if (rc == PORTA_SUCCESS) rc = parse_deck(&d, p);
  app_deck_free(&d);
  return rc == PORTA_SUCCESS ? apply_cli(c, p) : rc;
}
