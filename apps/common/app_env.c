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

void app_env_usage(FILE *out, const app_env_switch *list, int n) {
  for (int k = 0; k < n; ++k)
    fprintf(out, "  %s=%s\n      %s\n", list[k].name, list[k].values, list[k].help);
}
