/** @file app_env.c
 *  Environment switches checked at start-up (see app_env.h). */
#include "app_env.h"

#include <stdlib.h>
#include <string.h>

#include "porta/porta.h"

const app_env_switch app_env_common[] = {
    {"APP_EXCHANGE_TRANSPORT", "auto|pinned-host|cuda-ipc|cuda-aware-mpi",
     "how halo messages travel between GPUs (default auto: the fastest the platform has)"}};
const int app_env_ncommon = (int)(sizeof app_env_common / sizeof app_env_common[0]);

/** Whether `value` is one of the '|'-separated `values`. */
static int is_one_of(const char *value, const char *values) {
  const size_t n = strlen(value);
  for (const char *v = values; *v;) {
    const char *bar = strchr(v, '|');
    const size_t len = bar ? (size_t)(bar - v) : strlen(v);
    if (len == n && strncmp(v, value, n) == 0) return 1;
    if (!bar) break;
    v = bar + 1;
  }
  return 0;
}

int app_env_flag(const char *name, int otherwise) {
  const char *v = getenv(name);
  return v && (!strcmp(v, "0") || !strcmp(v, "1")) ? v[0] == '1' : otherwise;
}

int app_env_check(const app_env_switch *list, int n) {
  for (int k = 0; k < n; ++k) {
    const char *value = getenv(list[k].name);
    if (!value || !*value || is_one_of(value, list[k].values)) continue;
    char shown[201]; /* the value as printed: control bytes as '?' */
    size_t i = 0;
    for (; value[i] && i < sizeof shown - 1; ++i)
      shown[i] = (unsigned char)value[i] < 0x20 || value[i] == 0x7f ? '?' : value[i];
    shown[i] = '\0';
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "environment", list[k].name,
                       "%s='%s' is none of the values it takes (%s)", list[k].name, shown,
                       list[k].values);
  }
  return PORTA_SUCCESS;
}

/* A switch's value as the ranks compare it: "" when unset, at most 31 bytes (app_env_check
   allowed only the listed values). */
#define APP_ENV_VALUE 32

int app_env_agree_value(const char *name, const char *value, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char mine[APP_ENV_VALUE] = "", lo[APP_ENV_VALUE], hi[APP_ENV_VALUE];
  snprintf(mine, sizeof mine, "%s", value ? value : "");
  /* the same everywhere when the bytewise smallest and largest are the same */
  if (MPI_Allreduce(mine, lo, APP_ENV_VALUE, MPI_CHAR, MPI_MIN, comm) != MPI_SUCCESS ||
      MPI_Allreduce(mine, hi, APP_ENV_VALUE, MPI_CHAR, MPI_MAX, comm) != MPI_SUCCESS)
    return porta_error(PORTA_ERROR_BACKEND, "environment", name, "MPI_Allreduce failed");
  if (!memcmp(lo, hi, APP_ENV_VALUE)) return PORTA_SUCCESS;
  /* they differ: every rank learns every value, and says which rank has which */
  char *all = (char *)calloc((size_t)size, APP_ENV_VALUE);
  if (!all || MPI_Allgather(mine, APP_ENV_VALUE, MPI_CHAR, all, APP_ENV_VALUE, MPI_CHAR, comm) !=
                  MPI_SUCCESS) {
    free(all);
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "environment", name,
                       "%s differs between the ranks; it must be the same on every rank", name);
  }
  char who[600] = "";
  size_t len = 0;
  for (int r = 0; r < size && r < 8 && len < sizeof who; ++r) {
    const char *v = all + (size_t)r * APP_ENV_VALUE;
    len += (size_t)snprintf(who + len, sizeof who - len, "%s%s%s%s on rank %d", r ? ", " : "",
                            v[0] ? "'" : "unset", v, v[0] ? "'" : "", r);
  }
  if (size > 8 && len < sizeof who) snprintf(who + len, sizeof who - len, ", ...");
  free(all);
  return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "environment", name,
                     "%s differs between the ranks (%s): every rank must be given the same value",
                     name, who);
}

int app_env_agree(const app_env_switch *list, int n, MPI_Comm comm) {
  for (int k = 0; k < n; ++k) {
    const int rc = app_env_agree_value(list[k].name, getenv(list[k].name), comm);
    if (rc != PORTA_SUCCESS) return rc;
  }
  return PORTA_SUCCESS;
}

int app_env_agree_porta(const porta_settings *s, MPI_Comm comm) {
  const char *backend = s->backend >= 0 ? porta_backend_name((porta_backend)s->backend) : "";
  const int rc = app_env_agree_value("PORTA_BACKEND", backend, comm);
  if (rc != PORTA_SUCCESS) return rc;
  return app_env_agree_value("PORTA_DETERMINISTIC", s->deterministic ? "1" : "0", comm);
}

void app_env_usage(FILE *out, const app_env_switch *list, int n) {
  for (int k = 0; k < n; ++k)
    fprintf(out, "  %s=%s\n      %s\n", list[k].name, list[k].values, list[k].help);
}
