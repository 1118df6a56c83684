/** @file minife_params.c
 *  miniFE's own command-line keys (the reference's), parsed through app_cli's option hook:
 *  `-nx 30`, `nx=30`, `--nx=30` and the other forms app_cli accepts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app_deck.h"
#include "minife_params.h"

/** A whole integer in [lo, hi], or an error naming the key. */
static int parse_int(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out) {
  return app_cli_int("minife", "", key, v, lo, hi, out);
}

static int set_size(void *user, const char *key, const char *v) {
  minife_params *p = (minife_params *)user;
  int64_t x = 0;
  PORTA_CHECK(parse_int(key, v, 1, MINIFE_MAX_EXTENT, &x));
  if (!strcmp(key, "nx")) p->nx = x;
  if (!strcmp(key, "ny")) {
    p->ny = x;
    p->have_ny = 1;
  }
  if (!strcmp(key, "nz")) {
    p->nz = x;
    p->have_nz = 1;
  }
  return PORTA_SUCCESS;
}

static int set_flag(void *user, const char *key, const char *v) {
  minife_params *p = (minife_params *)user;
  int64_t x = 0;
  PORTA_CHECK(parse_int(key, v, 0, 1, &x));
  if (!strcmp(key, "verify_solution")) p->verify_solution = (int)x;
  if (!strcmp(key, "mv_overlap_comm_comp")) p->mv_overlap = (int)x;
  if (!strcmp(key, "source_free")) p->source_free = (int)x;
  return PORTA_SUCCESS;
}

static int set_slice(void *user, const char *key, const char *v) {
  minife_params *p = (minife_params *)user;
  int64_t x = 0;
  PORTA_CHECK(parse_int(key, v, 1, 32, &x));
  if (x != 1 && x != 32)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minife", key,
                       "%s: %lld is neither 1 (CSR) nor 32 (slices of a warp's rows)", key,
                       (long long)x);
  p->matvec_slice = (int)x;
  return PORTA_SUCCESS;
}

static int set_imbalance(void *user, const char *key, const char *v) {
  minife_params *p = (minife_params *)user;
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end != '\0' || app_number_is_hex(v) || !(x >= 0.0 && x < 100.0))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minife", key,
                       "%s: '%s' is not a percentage in [0, 100)", key, v);
  p->load_imbalance = x;
  return PORTA_SUCCESS;
}

static int set_name(void *user, const char *key, const char *v) {
  minife_params *p = (minife_params *)user;
  if (strlen(v) >= sizeof p->name || strchr(v, '/'))
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "minife", key,
                       "%s: '%s' must be shorter than %zu characters and hold no '/'", key, v,
                       sizeof p->name);
  snprintf(p->name, sizeof p->name, "%s", v);
  return PORTA_SUCCESS;
}

/** Keys the reference parses but does not use: accepted so its command lines run. */
static int set_ignored(void *user, const char *key, const char *v) {
  (void)user;
  (void)key;
  (void)v;
  return PORTA_SUCCESS;
}

static const app_cli_option minife_options[] = {
    {"nx", "N", "elements along x (default 10)", set_size, NULL, 0},
    {"ny", "N", "elements along y (default nx)", set_size, NULL, 0},
    {"nz", "N", "elements along z (default ny)", set_size, NULL, 0},
    {"load_imbalance", "PCT", "make the decomposition this many percent unbalanced (default 0)",
     set_imbalance, NULL, 0},
    {"verify_solution", "0|1",
     "check the centre points against the analytic solution (exit 1 "
     "if the error is above 0.06)",
     set_flag, NULL, 0},
    {"mv_overlap_comm_comp", "0|1", "overlap the halo exchange with the interior rows", set_flag,
     NULL, 0},
    {"source_free", "0|1",
     "solve with Q = 0, the problem the analytic solution belongs to, and report the largest "
     "error over every node",
     set_flag, NULL, 0},
    {"name", "TEXT", "added to the YAML file's name", set_name, NULL, 0},
    {"matvec_slice", "1|32",
     "rows a slice of the matrix's storage: 1 = CSR (default on the host), 32 (default on a "
     "GPU: a warp's rows read their entries together); each row is summed in the same order "
     "either way, so exact and deterministic sums give the same bits",
     set_slice, NULL, 0},
    {"numthreads", "N", "accepted for the reference's command lines; use --porta-threads",
     set_ignored, NULL, 0},
};

void minife_params_defaults(minife_params *p) {
  memset(p, 0, sizeof *p);
  p->nx = p->ny = p->nz = 10;
  p->matvec_slice = -1;
}

/* miniFE's environment switch (read in minife_cg_loop.c) */
static const app_env_switch minife_env[] = {
    {"MINIFE_DEVICE_LOOP", "0|1",
     "1: CG's iterations as a recorded loop on host back ends too; 0: never (default: on a GPU, "
     "with exact sums too; on several ranks where their sums and exchanges can be queued)"}};

app_cli_spec minife_cli_spec(minife_params *p) {
  app_cli_spec s;
  memset(&s, 0, sizeof s);
  s.program = "minife";
  s.description = "miniFE (Mantevo miniFE 2.0 on Porta): implicit finite elements, CG";
  s.default_output = "minife";
  s.takes_input = 0;
  s.options = minife_options;
  s.noptions = (int)(sizeof minife_options / sizeof minife_options[0]);
  s.user = p;
  s.env = minife_env;
  s.nenv = (int)(sizeof minife_env / sizeof minife_env[0]);
  /* exact sums cost 1.04x a CG iteration on a CPU or one H200, 1.057x on two */
  s.sums_by_default = APP_SUMS_EXACT_BUT_GPUS;
  return s;
}

void minife_params_finish(minife_params *p) {
  if (!p->have_ny) p->ny = p->nx;
  if (!p->have_nz) p->nz = p->ny;
}
