/** @file test_view_debug_device.c
 *  Debug-build view checks inside kernels on the GPU (PORTA_ENABLE_DEBUG with the CUDA back
 *  end): an out-of-bounds index, a rank mismatch or a layout mismatch in a kernel body stops
 *  the kernel, and the launch returns PORTA_ERROR_BOUNDS with a message naming the launch
 *  label, the view, what went wrong, the indices and the extents (the fence after it fails the
 *  same way: the CUDA context is unusable after the trap).
 *
 *  A trapped kernel leaves its process without a usable GPU, so each bad launch runs in a
 *  fresh copy of this program (fork and exec of /proc/self/exe with --child=NAME: CUDA does
 *  not survive a plain fork). The child prints the launch's code and message and exits with
 *  PT_CHILD_BOUNDS when the code was PORTA_ERROR_BOUNDS; the parent checks the exit status and
 *  the text. A control child making only valid accesses must exit 0, print no error, and
 *  compute the right values.
 *
 *  Registered for debug CUDA builds only (test_view_debug_device.cmake); elsewhere it exits
 *  with 77 (skipped). Host back ends' checks are test_view_debug's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "porta/porta.h"

#if !PORTA_ENABLE_DEBUG || !PORTA_ENABLE_CUDA

int main(void) {
  printf("test_view_debug_device: skipped (needs PORTA_ENABLE_DEBUG and PORTA_ENABLE_CUDA)\n");
  return 77;
}

#else

#include "harness.h"
#include "child_process.h"

/** Exit status of a child whose launch returned PORTA_ERROR_BOUNDS. */
#define PT_CHILD_BOUNDS 42

/* ------------------------------------------------------------------------------------------ */
/* kernels with bad accesses (views in the GPU's default Left layout)                          */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 v;
} dd_args;

/** v(i) = 1 for i in the launch range (one past the end with a range one too long). */
PORTA_FOR(dd_write1_k, dd_args, a, i) { PORTA_AT1(a->v, i) = 1.0; }
/** Reads v(i + 1): the last index is out of bounds. */
PORTA_REDUCE(dd_read_next_k, dd_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->v, i + 1); }
/** A rank-2 box over a 2D view. */
PORTA_MDFOR2(dd_write2_k, dd_args, a, i, j) { PORTA_AT2(a->v, i, j) = 2.0 + i + j; }
/** A team kernel: member r of league rank lr writes v(lr, r). */
PORTA_TEAM_FOR(dd_team_k, dd_args, a, t) {
  PORTA_SINGLE_PER_THREAD(t) { PORTA_AT2(a->v, t->league_rank, t->team_rank) = 5.0; }
}
/** A rank-3 accessor on whatever view it gets. */
PORTA_FOR(dd_rank3_k, dd_args, a, i) { PORTA_AT3(a->v, i, 0, 0) = 3.0; }
/** The Right accessor on whatever view it gets. */
PORTA_MDFOR2(dd_right_k, dd_args, a, i, j) { PORTA_R2(a->v, i, j) = 4.0; }
/** Sum of a 2D view in any layout. */
PORTA_MDREDUCE2(dd_sum2_k, dd_args, a, i, j, porta_sum_f64, acc) { *acc += PORTA_S2(a->v, i, j); }

/* ------------------------------------------------------------------------------------------ */
/* the children: each launches one kernel and reports what the launch returned                 */
/* ------------------------------------------------------------------------------------------ */

static porta_view_f64 dd_make(const char *label, int rank, int64_t n0, int64_t n1) {
  porta_view_f64 v;
  porta_view_options o;
  const int64_t e[2] = {n0, n1};
  o.space = PORTA_CUDA_SPACE;
  o.layout = PORTA_LAYOUT_DEFAULT;
  o.flags = 0;
  o.stride = NULL;
  if (porta_view_f64_create(&v, label, rank, e, &o)) {
    fprintf(stderr, "child: view create failed: %s\n", porta_last_error_message());
    exit(3);
  }
  return v;
}

/** Print the launch's code and message, check a fence fails the same way, and exit. */
static void dd_report(int rc) {
  fprintf(stderr, "child: launch returned %s\nchild: message: %s\n", porta_error_name(rc),
          porta_last_error_message());
  const int fence = porta_fence("after the failed launch");
  fprintf(stderr, "child: fence returned %s\n", porta_error_name(fence));
  fflush(stderr);
  fflush(stdout);
  _exit(rc == PORTA_ERROR_BOUNDS && fence == PORTA_ERROR_BOUNDS ? PT_CHILD_BOUNDS : 1);
}

static void child_for(void) {
  dd_args a;
  a.v = dd_make("dd_view_for", 1, 10, 1);
  dd_report(porta_parallel_for("dd_launch_for", porta_exec_default(), porta_range(0, 11),
                               &dd_write1_k, &a));
}

static void child_reduce(void) {
  dd_args a;
  double s = 0;
  a.v = dd_make("dd_view_reduce", 1, 8, 1);
  dd_report(porta_parallel_reduce("dd_launch_reduce", porta_exec_default(), porta_range(0, 8),
                                  &dd_read_next_k, &a, &s));
}

static void child_md(void) {
  dd_args a;
  a.v = dd_make("dd_view_md", 2, 3, 5);
  dd_report(porta_parallel_for_md("dd_launch_md", porta_exec_default(), porta_mdrange2(0, 3, 0, 6),
                                  &dd_write2_k, &a));
}

static void child_team(void) {
  dd_args a;
  a.v = dd_make("dd_view_team", 2, 4, 3); /* teams of 4 write members 0..3: column 3 is out */
  dd_report(porta_parallel_for_team("dd_launch_team", porta_exec_default(),
                                    porta_team_policy_make(4, 4, 1), &dd_team_k, &a));
}

static void child_rank(void) {
  dd_args a;
  a.v = dd_make("dd_view_rank", 2, 3, 5);
  dd_report(porta_parallel_for("dd_launch_rank", porta_exec_default(), porta_range(0, 3),
                               &dd_rank3_k, &a));
}

static void child_layout(void) {
  dd_args a;
  a.v = dd_make("dd_view_layout", 2, 3, 5); /* Left on the GPU; the kernel uses Right */
  dd_report(porta_parallel_for_md("dd_launch_layout", porta_exec_default(),
                                  porta_mdrange2(0, 3, 0, 5), &dd_right_k, &a));
}

/** Instance streams: the failing kernel runs on a stream of its own. */
static void child_instance(void) {
  dd_args a;
  porta_exec ex;
  if (porta_exec_create_instance(PORTA_BACKEND_CUDA, &ex)) exit(3);
  a.v = dd_make("dd_view_stream", 1, 6, 1);
  dd_report(porta_parallel_for("dd_launch_stream", ex, porta_range(0, 7), &dd_write1_k, &a));
}

/** Every access valid, up to the last index; the values are checked on the host. */
static void child_valid(void) {
  dd_args a, b;
  double s = -1;
  int bad = 0;
  a.v = dd_make("dd_ok1", 1, 10, 1);
  bad |= porta_parallel_for("ok_for", porta_exec_default(), porta_range(0, 10), &dd_write1_k, &a);
  bad |= porta_parallel_reduce("ok_reduce", porta_exec_default(), porta_range(0, 9),
                               &dd_read_next_k, &a, &s);
  bad |= s != 9.0;
  b.v = dd_make("dd_ok2", 2, 4, 5);
  bad |= porta_parallel_for_md("ok_md", porta_exec_default(), porta_mdrange2(0, 4, 0, 5),
                               &dd_write2_k, &b);
  bad |= porta_parallel_for_team("ok_team", porta_exec_default(), porta_team_policy_make(4, 5, 1),
                                 &dd_team_k, &b);
  bad |= porta_parallel_reduce_md("ok_sum", porta_exec_default(), porta_mdrange2(0, 4, 0, 5),
                                  &dd_sum2_k, &b, &s);
  bad |= s != 100.0;
  bad |= porta_fence("ok") != PORTA_SUCCESS;
  if (bad)
    fprintf(stderr, "child: valid accesses failed: %s (sum %g)\n", porta_last_error_message(), s);
  _exit(bad ? 1 : 0);
}

typedef struct {
  const char *name;
  void (*fn)(void);
} dd_child;

static const dd_child dd_children[] = {
    {"for", child_for},           {"reduce", child_reduce}, {"md", child_md},
    {"team", child_team},         {"rank", child_rank},     {"layout", child_layout},
    {"instance", child_instance}, {"valid", child_valid}};

/* ------------------------------------------------------------------------------------------ */
/* the parent                                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** Run this program with --child=`name`; return its wait status, stdout and stderr in `text`. */
static int run_child(const char *name, char *text, size_t size) {
  int fds[2];
  text[0] = '\0';
  const pid_t pid = pt_child_start(fds);
  if (pid < 0) return -1;
  if (pid == 0) {
    char arg[64];
    snprintf(arg, sizeof arg, "--child=%s", name);
    close(fds[0]);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    close(fds[1]);
    alarm(120); /* a hang is a failure (SIGALRM), not a stuck test */
    char *const argv[] = {(char *)"test_view_debug_device", arg, NULL};
    execv("/proc/self/exe", argv);
    _exit(127);
  }
  return pt_child_finish(fds, pid, text, size);
}

/** Child `name` must exit with PT_CHILD_BOUNDS and print every string of `needles`. */
static void expect_bounds(const char *name, const char *const *needles) {
  static char text[65536];
  int status = run_child(name, text, sizeof text);
  char m[2048];
  if (!(WIFEXITED(status) && WEXITSTATUS(status) == PT_CHILD_BOUNDS)) {
    snprintf(m, sizeof m, "child %s: status 0x%x, not exit %d; output: %.1500s", name, status,
             PT_CHILD_BOUNDS, text);
    pt_fail_(__FILE__, __LINE__, m);
  }
  for (int k = 0; needles[k]; ++k)
    if (!strstr(text, needles[k])) {
      snprintf(m, sizeof m, "child %s: output lacks \"%s\": %.1500s", name, needles[k], text);
      pt_fail_(__FILE__, __LINE__, m);
    }
}

static void test_out_of_bounds(void) {
  const char *const n1[] = {"PORTA_ERROR_BOUNDS",
                            "dd_launch_for",
                            "view 'dd_view_for'",
                            "index out of bounds",
                            "index (10)",
                            "extents (10)",
                            "test_view_debug_device.c",
                            "fence returned PORTA_ERROR_BOUNDS",
                            NULL};
  expect_bounds("for", n1);
  const char *const n2[] = {"PORTA_ERROR_BOUNDS", "dd_launch_reduce", "view 'dd_view_reduce'",
                            "index (8)",          "extents (8)",      NULL};
  expect_bounds("reduce", n2);
  /* which row reaches column 5 first depends on the threads; the column and extents do not */
  const char *const n3[] = {
      "PORTA_ERROR_BOUNDS", "dd_launch_md", "view 'dd_view_md'", ", 5)", "extents (3, 5)", NULL};
  expect_bounds("md", n3);
  const char *const n4[] = {"PORTA_ERROR_BOUNDS",  "dd_launch_team",
                            "view 'dd_view_team'", ", 3)",
                            "extents (4, 3)",      NULL};
  expect_bounds("team", n4);
  const char *const n5[] = {"PORTA_ERROR_BOUNDS", "dd_launch_stream", "view 'dd_view_stream'",
                            "index (6)",          "extents (6)",      NULL};
  expect_bounds("instance", n5);
}

static void test_rank_layout(void) {
  const char *const n1[] = {"PORTA_ERROR_BOUNDS",
                            "dd_launch_rank",
                            "view 'dd_view_rank'",
                            "rank mismatch",
                            ", 0, 0)",
                            "extents (3, 5)",
                            NULL};
  expect_bounds("rank", n1);
  const char *const n2[] = {"PORTA_ERROR_BOUNDS", "dd_launch_layout", "view 'dd_view_layout'",
                            "layout mismatch",    "extents (3, 5)",   NULL};
  expect_bounds("layout", n2);
}

static void test_valid_accesses(void) {
  static char text[65536];
  int status = run_child("valid", text, sizeof text);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char m[2048];
    snprintf(m, sizeof m, "valid accesses: child status 0x%x; output: %.1500s", status, text);
    pt_fail_(__FILE__, __LINE__, m);
  }
  PT_CHECK(strstr(text, "porta:") == NULL);
}

int main(int argc, char **argv) {
  for (int k = 1; k < argc; ++k)
    if (strncmp(argv[k], "--child=", 8) == 0) {
      if (porta_initialize(NULL, NULL) != PORTA_SUCCESS) {
        fprintf(stderr, "child: porta_initialize failed: %s\n", porta_last_error_message());
        return 3;
      }
      for (size_t c = 0; c < sizeof dd_children / sizeof dd_children[0]; ++c)
        if (strcmp(argv[k] + 8, dd_children[c].name) == 0) dd_children[c].fn();
      fprintf(stderr, "child: unknown child '%s'\n", argv[k] + 8);
      return 3;
    }
  PT_BEGIN(argc, argv);
  if (porta_exec_default().backend != PORTA_BACKEND_CUDA) {
    printf("test_view_debug_device: skipped (the default back end is not cuda)\n");
    porta_finalize();
    return 77;
  }
  PT_RUN(test_valid_accesses);
  PT_RUN(test_out_of_bounds);
  PT_RUN(test_rank_layout);
  PT_END();
}

#endif
