/** @file error.c
 *  Error recording and the caller-chosen handler. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime_private.h"

static porta_error_mode error_mode = PORTA_ERROR_MODE_RETURN;
static porta_error_handler error_handler = NULL;
static void *error_user_data = NULL;
/* this thread's scoped mode (porta_error_scope_begin), when scope.active */
static _Thread_local porta_error_scope scope;
static _Thread_local char last_message[4096];
/* the same failure in its parts (porta_last_error_parts) */
static _Thread_local int last_code;
static _Thread_local char last_op[256], last_label[256], last_reason[2048];
static _Thread_local unsigned long error_serial; /* failures recorded on this thread */

unsigned long porta_error_serial_(void) { return error_serial; }

void porta_set_error_mode(porta_error_mode mode, porta_error_handler handler, void *user_data) {
  error_mode = mode;
  error_handler = handler;
  error_user_data = user_data;
}

porta_error_scope porta_error_scope_begin(porta_error_mode mode, porta_error_handler handler,
                                          void *user_data) {
  const porta_error_scope saved = scope;
  scope.active = 1;
  scope.mode = mode;
  scope.handler = handler;
  scope.user_data = user_data;
  return saved;
}

void porta_error_scope_end(porta_error_scope saved) { scope = saved; }

const char *porta_last_error_message(void) { return last_message; }

porta_error_parts porta_last_error_parts(void) {
  const porta_error_parts p = {last_code, last_op, last_label, last_reason};
  return p;
}

void porta_error_clear(void) {
  last_message[0] = last_op[0] = last_label[0] = last_reason[0] = '\0';
  last_code = PORTA_SUCCESS;
}

const char *porta_error_name(int code) {
  switch (code) {
  case PORTA_SUCCESS: return "PORTA_SUCCESS";
  case PORTA_ERROR_INVALID_ARGUMENT: return "PORTA_ERROR_INVALID_ARGUMENT";
  case PORTA_ERROR_OUT_OF_MEMORY: return "PORTA_ERROR_OUT_OF_MEMORY";
  case PORTA_ERROR_INCOMPATIBLE: return "PORTA_ERROR_INCOMPATIBLE";
  case PORTA_ERROR_UNSUPPORTED: return "PORTA_ERROR_UNSUPPORTED";
  case PORTA_ERROR_NOT_INITIALIZED: return "PORTA_ERROR_NOT_INITIALIZED";
  case PORTA_ERROR_BOUNDS: return "PORTA_ERROR_BOUNDS";
  case PORTA_ERROR_BACKEND: return "PORTA_ERROR_BACKEND";
  case PORTA_ERROR_IO: return "PORTA_ERROR_IO";
  default: return "PORTA_ERROR_UNKNOWN";
  }
}

int porta_error(int code, const char *op, const char *label, const char *fmt, ...) {
  char reason[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  ++error_serial;
  /* a label (often a path) longer than 240 bytes is shortened to its first 60 and last 160, so
     that the reason after it is never cut off (a path of 1,000 characters had hidden it) */
  const size_t len = label ? strlen(label) : 0;
  if (len > 240)
    snprintf(last_label, sizeof last_label, "%.60s...%s", label, label + len - 160);
  else
    snprintf(last_label, sizeof last_label, "%s", label ? label : "");
  last_code = code;
  snprintf(last_op, sizeof last_op, "%s", op ? op : "");
  snprintf(last_reason, sizeof last_reason, "%s", reason);
  if (last_label[0])
    snprintf(last_message, sizeof last_message, "porta: %s('%s'): %s [%s]", last_op, last_label,
             reason, porta_error_name(code));
  else
    snprintf(last_message, sizeof last_message, "porta: %s: %s [%s]", last_op, reason,
             porta_error_name(code));
  const porta_error_mode mode = scope.active ? scope.mode : error_mode;
  porta_error_handler handler = scope.active ? scope.handler : error_handler;
  void *user_data = scope.active ? scope.user_data : error_user_data;
  switch (mode) {
  case PORTA_ERROR_MODE_RETURN: return code;
  case PORTA_ERROR_MODE_PRINT: fprintf(stderr, "%s\n", last_message); return code;
  case PORTA_ERROR_MODE_ABORT:
    fprintf(stderr, "%s\n", last_message);
    fflush(stderr);
    abort();
  case PORTA_ERROR_MODE_CALLBACK: return handler ? handler(code, last_message, user_data) : code;
  }
  return code;
}
