/** @file test_error_scope.c
 *  Scoped error modes (porta_error_scope_begin / _end): inside a scope this thread's failures
 *  follow the scope's mode whatever the process-wide one; the scope's end restores what was
 *  before (nested scopes too); other threads keep the process-wide mode.
 *  A process in PORTA_ERROR_MODE_ABORT survives a failing call made inside a RETURN scope (an
 *  abort would end this test with a failure), and aborts again on the next failure once the
 *  scope has ended (in a child process whose end the test reads).
 */
#include "harness.h"

#include <signal.h>
#include <string.h>

#include "child_process.h"

static int calls_app, calls_lib;
static int count_app(int code, const char *message, void *user) {
  (void)message;
  (void)user;
  ++calls_app;
  return code;
}
static int count_lib(int code, const char *message, void *user) {
  (void)message;
  ++*(int *)user;
  return code + 100; /* what the scope's handler returns is what the call returns */
}

/* A call that fails with PORTA_ERROR_INVALID_ARGUMENT (a negative extent). */
static int failing_call(void) {
  porta_view_f64 v;
  return porta_view_f64_create1(&v, "negative", -1);
}

static void test_scope_over_abort(void) {
  porta_set_error_mode(PORTA_ERROR_MODE_ABORT, NULL, NULL);
  porta_error_scope s = porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  const int rc = failing_call(); /* returns: the scope wins over ABORT */
  porta_error_scope_end(s);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  PT_EQ_I64(rc, PORTA_ERROR_INVALID_ARGUMENT);
  PT_MSG_HAS("negative");
}

/* The application's ABORT is back when the library's scope ends: in a child, the call in the
 * scope returns its code and prints nothing; the next failing call prints and aborts. */
static void test_abort_after_scope(void) {
  int fds[2];
  const pid_t pid = pt_child_start(fds);
  if (pid < 0) return;
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[1]);
    alarm(30);
    porta_set_error_mode(PORTA_ERROR_MODE_ABORT, NULL, NULL);
    porta_error_scope s = porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);
    const int rc = failing_call();
    porta_error_scope_end(s);
    printf("in the scope: %s\n", porta_error_name(rc));
    fflush(stdout);
    failing_call(); /* aborts */
    printf("not aborted after the scope\n");
    fflush(stdout);
    _exit(0);
  }
  char text[8192];
  const int status = pt_child_finish(fds, pid, text, sizeof text);
  const int aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
  const char *scoped = strstr(text, "in the scope: PORTA_ERROR_INVALID_ARGUMENT\n");
  const char *message = strstr(text, "negative"); /* the first failure's label, if it printed */
  if (!aborted || !scoped || !message || message < scoped) fprintf(stderr, "child:\n%s", text);
  PT_CHECK(aborted);
  PT_CHECK(scoped != NULL);
  PT_CHECK(message != NULL && message > scoped); /* printed by the failure after the scope only */
}

static void test_restore_and_nest(void) {
  calls_app = calls_lib = 0;
  porta_set_error_mode(PORTA_ERROR_MODE_CALLBACK, count_app, NULL);
  PT_EQ_I64(failing_call(), PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(calls_app, 1);
  porta_error_scope outer =
      porta_error_scope_begin(PORTA_ERROR_MODE_CALLBACK, count_lib, &calls_lib);
  PT_EQ_I64(failing_call(), PORTA_ERROR_INVALID_ARGUMENT + 100);
  porta_error_scope inner = porta_error_scope_begin(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  PT_EQ_I64(failing_call(), PORTA_ERROR_INVALID_ARGUMENT);
  porta_error_scope_end(inner); /* back to the outer scope */
  PT_EQ_I64(failing_call(), PORTA_ERROR_INVALID_ARGUMENT + 100);
  porta_error_scope_end(outer); /* back to the process-wide callback */
  PT_EQ_I64(failing_call(), PORTA_ERROR_INVALID_ARGUMENT);
  PT_EQ_I64(calls_lib, 2);
  PT_EQ_I64(calls_app, 2);
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
}

#if defined(_OPENMP)
#include <omp.h>
/* A scope on one thread does not change another thread's mode. */
static void test_other_threads(void) {
  calls_app = calls_lib = 0;
  porta_set_error_mode(PORTA_ERROR_MODE_CALLBACK, count_app, NULL);
  int lib_rc = 0, app_rc = 0, team = 1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) team = omp_get_num_threads();
    if (omp_get_thread_num() == 0) {
      porta_error_scope s =
          porta_error_scope_begin(PORTA_ERROR_MODE_CALLBACK, count_lib, &calls_lib);
#pragma omp barrier
      lib_rc = failing_call();
#pragma omp barrier
      porta_error_scope_end(s);
    } else {
#pragma omp barrier
      app_rc = failing_call();
#pragma omp barrier
    }
  }
  porta_set_error_mode(PORTA_ERROR_MODE_RETURN, NULL, NULL);
  if (team == 2) {
    PT_EQ_I64(lib_rc, PORTA_ERROR_INVALID_ARGUMENT + 100);
    PT_EQ_I64(app_rc, PORTA_ERROR_INVALID_ARGUMENT);
    PT_EQ_I64(calls_lib, 1);
    PT_EQ_I64(calls_app, 1);
  }
}
#endif

/* porta_last_error_parts: the failure as porta_error received it, a long label shortened as
   in the message, nothing after porta_error_clear. */
static void test_parts(void) {
  porta_error(PORTA_ERROR_IO, "app_write", "out/res.h5", "cannot write the file: %s", "No space");
  porta_error_parts e = porta_last_error_parts();
  PT_CHECK(e.code == PORTA_ERROR_IO);
  PT_CHECK(strcmp(e.op, "app_write") == 0 && strcmp(e.label, "out/res.h5") == 0);
  PT_CHECK(strcmp(e.reason, "cannot write the file: No space") == 0);
  PT_CHECK(strcmp(porta_last_error_message(),
                  "porta: app_write('out/res.h5'): cannot write the file: No space "
                  "[PORTA_ERROR_IO]") == 0);
  char label[301];
  for (int i = 0; i < 300; ++i) label[i] = (char)('a' + i % 26);
  label[300] = '\0';
  porta_error(PORTA_ERROR_INVALID_ARGUMENT, "op", label, "bad");
  e = porta_last_error_parts();
  PT_CHECK(strlen(e.label) == 60 + 3 + 160 && strncmp(e.label, label, 60) == 0 &&
           strcmp(e.label + 63, label + 140) == 0);
  PT_CHECK(strstr(porta_last_error_message(), e.label) != NULL);
  porta_error(PORTA_ERROR_BACKEND, "op2", NULL, "no label");
  e = porta_last_error_parts();
  PT_CHECK(e.code == PORTA_ERROR_BACKEND && e.label[0] == '\0' &&
           strcmp(e.reason, "no label") == 0);
  porta_error_clear();
  e = porta_last_error_parts();
  PT_CHECK(e.code == PORTA_SUCCESS && e.op[0] == '\0' && e.reason[0] == '\0' &&
           porta_last_error_message()[0] == '\0');
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_scope_over_abort);
  PT_RUN(test_abort_after_scope);
  PT_RUN(test_restore_and_nest);
#if defined(_OPENMP)
  PT_RUN(test_other_threads);
#endif
  PT_RUN(test_parts);
  PT_END();
}
