/** @file test_view_debug.c
 *  Debug-build view checks (PORTA_ENABLE_DEBUG): out-of-bounds, wrong-rank and wrong-layout
 *  accesses, on the host and inside kernel bodies, and host code touching device memory, stop the
 * program with a message naming the view, what went wrong, the offending indices and the extents.
 *
 *  Each bad access runs in a forked child whose stderr goes to a pipe; the parent checks that
 *  the child died of SIGABRT and reads the message. The parent itself launches no kernel, so
 *  no OpenMP thread pool exists when it forks. A control child making only valid accesses
 *  must exit normally and print nothing.
 *
 *  Release builds have no checks: the program exits with 77, which CTest reports as skipped
 *  (SKIP_RETURN_CODE in test_view_debug.cmake).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "porta/porta.h"

#if !PORTA_ENABLE_DEBUG

int main(void) {
  printf("test_view_debug: skipped (release build: PORTA_ENABLE_DEBUG is 0)\n");
  return 77;
}

#else

#include "harness.h"
#include "child_process.h"

/* ------------------------------------------------------------------------------------------ */
/* kernels with bad accesses                                                                   */
/* ------------------------------------------------------------------------------------------ */

typedef struct {
  porta_view_f64 v;
} dbg_args;

/** v(i) = 1 for i in the launch range (one past the end with a range one too long). */
PORTA_FOR(dbg_write1_k, dbg_args, a, i) { PORTA_AT1(a->v, i) = 1.0; }
/** Reads v(i + 1): the last index is out of bounds. */
PORTA_REDUCE(dbg_read_next_k, dbg_args, a, i, porta_sum_f64, acc) {
  *acc += PORTA_AT1(a->v, i + 1);
}
/** A rank-2 box over a 2D view with the Right accessor. */
PORTA_MDFOR2(dbg_write2_k, dbg_args, a, i, j) { PORTA_R2(a->v, i, j) = 2.0; }
/** A rank-3 accessor on whatever view it gets. */
PORTA_FOR(dbg_rank3_k, dbg_args, a, i) { PORTA_AT3(a->v, i, 0, 0) = 3.0; }
/** The Left accessor on whatever view it gets. */
PORTA_MDFOR2(dbg_left_k, dbg_args, a, i, j) { PORTA_L2(a->v, i, j) = 4.0; }

/* ------------------------------------------------------------------------------------------ */
/* running a bad access in a child                                                             */
/* ------------------------------------------------------------------------------------------ */

typedef void (*child_fn)(void);

/** Run `fn` in a child; return its wait status and its stderr in `text`. */
static int run_child(child_fn fn, char *text, size_t size) {
  int fds[2];
  text[0] = '\0';
  const pid_t pid = pt_child_start(fds);
  if (pid < 0) return -1;
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 2);
    close(fds[1]);
    alarm(60); /* a hang is a failure (SIGALRM), not a stuck test */
    fn();
    fflush(stderr);
    _exit(0);
  }
  return pt_child_finish(fds, pid, text, size);
}

/** `fn` must die of SIGABRT and its stderr must contain every string of `needles`. */
static void expect_abort(const char *name, child_fn fn, const char *const *needles) {
  char text[8192];
  int status = run_child(fn, text, sizeof text);
  char m[9000];
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)) {
    snprintf(m, sizeof m, "%s: child was not stopped by SIGABRT (status 0x%x); stderr: %s", name,
             status, text);
    pt_fail_(__FILE__, __LINE__, m);
  }
  for (int k = 0; needles[k]; ++k)
    if (!strstr(text, needles[k])) {
      snprintf(m, sizeof m, "%s: message lacks \"%s\": %s", name, needles[k], text);
      pt_fail_(__FILE__, __LINE__, m);
    }
}

/** Views made in the child (nothing leaks into the parent). */
static porta_view_f64 make1(const char *label, int64_t n) {
  porta_view_f64 v;
  if (porta_view_f64_create1(&v, label, n)) _exit(3);
  return v;
}
static porta_view_f64 make2(const char *label, int64_t n0, int64_t n1, porta_layout layout) {
  porta_view_f64 v;
  porta_view_options o;
  const int64_t e[2] = {n0, n1};
  o.space = porta_default_memory_space();
  o.layout = layout;
  o.flags = 0;
  o.stride = NULL;
  if (porta_view_f64_create(&v, label, 2, e, &o)) _exit(3);
  return v;
}

/* ---- host accesses ---- */

static void host_oob_2d(void) {
  porta_view_f64 v = make2("dbg_host2d", 3, 5, PORTA_LAYOUT_RIGHT);
  volatile double x = PORTA_R2(v, 3, 1);
  (void)x;
}
static void host_oob_col(void) {
  porta_view_f64 v = make2("dbg_hostcol", 3, 5, PORTA_LAYOUT_RIGHT);
  PORTA_AT2(v, 2, 5) = 1.0;
}
static void host_oob_negative(void) {
  porta_view_f64 v = make1("dbg_neg", 4);
  PORTA_AT1(v, -1) = 1.0;
}
static void host_oob_3d(void) {
  porta_view_f64 v;
  const int64_t e[3] = {2, 3, 4};
  if (porta_view_f64_create(&v, "dbg_3d", 3, e, NULL)) _exit(3);
  PORTA_R3(v, 1, 2, 4) = 1.0;
}
static void host_oob_subview(void) {
  /* a 2x3 block of a 4x5 view: (1, 3) is inside the parent but outside the block */
  porta_view_f64 p = make2("dbg_block", 4, 5, PORTA_LAYOUT_RIGHT), b;
  porta_slice sl[2];
  sl[0] = porta_slice_range(1, 3);
  sl[1] = porta_slice_range(1, 4);
  if (porta_view_f64_subview(&b, &p, sl)) _exit(3);
  PORTA_S2(b, 1, 3) = 1.0;
}
static void host_rank(void) {
  porta_view_f64 v = make2("dbg_rank", 3, 5, PORTA_LAYOUT_RIGHT);
  PORTA_AT1(v, 2) = 1.0;
}
static void host_layout(void) {
  porta_view_f64 v = make2("dbg_layout", 3, 5, PORTA_LAYOUT_LEFT);
  PORTA_R2(v, 1, 1) = 1.0;
}
static void host_layout_stride(void) {
  /* a column of a Right view has stride 5: a Right rank-1 access is a layout error */
  porta_view_f64 p = make2("dbg_column", 4, 5, PORTA_LAYOUT_RIGHT), c;
  porta_slice sl[2];
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(2);
  if (porta_view_f64_subview(&c, &p, sl)) _exit(3);
  PORTA_R1(c, 0) = 1.0;
}

/* ---- accesses inside kernel bodies ---- */

static void kernel_oob_for(void) {
  dbg_args a;
  a.v = make1("dbg_kern_for", 10);
  porta_parallel_for("dbg_for", porta_exec_default(), porta_range(0, 11), &dbg_write1_k, &a);
}
static void kernel_oob_reduce(void) {
  dbg_args a;
  double s = 0;
  a.v = make1("dbg_kern_reduce", 8);
  porta_parallel_reduce("dbg_reduce", porta_exec_default(), porta_range(0, 8), &dbg_read_next_k, &a,
                        &s);
}
static void kernel_oob_md(void) {
  dbg_args a;
  a.v = make2("dbg_kern_md", 3, 5, PORTA_LAYOUT_RIGHT);
  porta_parallel_for_md("dbg_md", porta_exec_default(), porta_mdrange2(0, 3, 0, 6), &dbg_write2_k,
                        &a);
}
static void kernel_rank(void) {
  dbg_args a;
  a.v = make2("dbg_kern_rank", 3, 5, PORTA_LAYOUT_RIGHT);
  porta_parallel_for("dbg_rank", porta_exec_default(), porta_range(0, 3), &dbg_rank3_k, &a);
}
static void kernel_layout(void) {
  dbg_args a;
  a.v = make2("dbg_kern_layout", 3, 5, PORTA_LAYOUT_RIGHT);
  porta_parallel_for_md("dbg_layout", porta_exec_default(), porta_mdrange2(0, 3, 0, 5), &dbg_left_k,
                        &a);
}

/* ---- the control: every access valid, up to the last index ---- */

static void valid_accesses(void) {
  dbg_args a, l;
  double s = -1;
  a.v = make1("dbg_ok1", 10);
  porta_parallel_for("ok_for", porta_exec_default(), porta_range(0, 10), &dbg_write1_k, &a);
  porta_parallel_reduce("ok_reduce", porta_exec_default(), porta_range(0, 9), &dbg_read_next_k, &a,
                        &s);
  if (s != 9.0) _exit(4);
  PORTA_AT1(a.v, 9) = PORTA_AT1(a.v, 0) + 1;
  a.v = make2("dbg_ok2", 3, 5, PORTA_LAYOUT_RIGHT);
  porta_parallel_for_md("ok_md", porta_exec_default(), porta_mdrange2(0, 3, 0, 5), &dbg_write2_k,
                        &a);
  if (PORTA_R2(a.v, 2, 4) != 2.0 || PORTA_AT2(a.v, 0, 0) != 2.0) _exit(5);
  l.v = make2("dbg_ok_left", 3, 5, PORTA_LAYOUT_LEFT);
  porta_parallel_for_md("ok_left", porta_exec_default(), porta_mdrange2(0, 3, 0, 5), &dbg_left_k,
                        &l);
  if (PORTA_L2(l.v, 2, 4) != 4.0 || PORTA_S2(l.v, 2, 4) != 4.0) _exit(6);
  /* rank 1: Left and Right accessors agree on contiguous views */
  porta_view_f64 c = make1("dbg_ok_r1", 3);
  PORTA_L1(c, 2) = 5.0;
  if (PORTA_R1(c, 2) != 5.0) _exit(7);
  /* a row of a Right view is Right; a column is reached with the Stride accessor */
  porta_view_f64 row, col;
  porta_slice sl[2];
  sl[0] = porta_slice_index(2);
  sl[1] = porta_slice_all();
  if (porta_view_f64_subview(&row, &a.v, sl)) _exit(8);
  PORTA_R1(row, 4) = 6.0;
  sl[0] = porta_slice_all();
  sl[1] = porta_slice_index(4);
  if (porta_view_f64_subview(&col, &a.v, sl)) _exit(8);
  if (PORTA_S1(col, 2) != 6.0) _exit(9);
  porta_view_f64 z;
  if (porta_view_f64_create0(&z, "dbg_ok0")) _exit(3);
  PORTA_AT0(z) = 1.0;
}

/** Host code touching memory that only a device's kernels reach: host memory wrapped as a
 *  CudaSpace view (the check asks the space's back end, it does not read the memory). */
static void host_device_memory(void) {
  static double mem[4];
  porta_view_f64 v;
  const int64_t n = 4;
  const porta_view_options o = {PORTA_CUDA_SPACE, PORTA_LAYOUT_RIGHT, 0, NULL};
  if (porta_view_f64_wrap(&v, mem, "dbg_devmem", 1, &n, &o)) _exit(3);
  PORTA_S1(v, 1) = 1.0;
}

/* ------------------------------------------------------------------------------------------ */

static void test_host_device_memory(void) {
  const char *const n1[] = {"dbg_devmem", "host access to device memory (CudaSpace)", "(1)", "(4)",
                            NULL};
  expect_abort("host_device_memory", host_device_memory, n1);
}

static void test_host_bounds(void) {
  const char *const n1[] = {"dbg_host2d", "bounds", "(3, 1)", "(3, 5)", NULL};
  expect_abort("host_oob_2d", host_oob_2d, n1);
  const char *const n2[] = {"dbg_hostcol", "bounds", "(2, 5)", "(3, 5)", NULL};
  expect_abort("host_oob_col", host_oob_col, n2);
  const char *const n3[] = {"dbg_neg", "bounds", "(-1)", "(4)", NULL};
  expect_abort("host_oob_negative", host_oob_negative, n3);
  const char *const n4[] = {"dbg_3d", "bounds", "(1, 2, 4)", "(2, 3, 4)", NULL};
  expect_abort("host_oob_3d", host_oob_3d, n4);
  const char *const n5[] = {"dbg_block", "bounds", "(1, 3)", "(2, 3)", NULL};
  expect_abort("host_oob_subview", host_oob_subview, n5);
}

static void test_host_rank_layout(void) {
  const char *const n1[] = {"dbg_rank", "rank mismatch", "(2)", "(3, 5)", NULL};
  expect_abort("host_rank", host_rank, n1);
  const char *const n2[] = {"dbg_layout", "layout mismatch", "(1, 1)", "(3, 5)", NULL};
  expect_abort("host_layout", host_layout, n2);
  const char *const n3[] = {"dbg_column", "layout mismatch", "(0)", "(4)", NULL};
  expect_abort("host_layout_stride", host_layout_stride, n3);
}

static void test_kernel_checks(void) {
  const char *const n1[] = {"dbg_kern_for", "bounds", "index (10)", "extents (10)", NULL};
  expect_abort("kernel_oob_for", kernel_oob_for, n1);
  const char *const n2[] = {"dbg_kern_reduce", "bounds", "index (8)", "extents (8)", NULL};
  expect_abort("kernel_oob_reduce", kernel_oob_reduce, n2);
  /* which row hits column 5 first depends on the threads; the column and extents do not */
  const char *const n3[] = {"dbg_kern_md", "bounds", ", 5)", "extents (3, 5)", NULL};
  expect_abort("kernel_oob_md", kernel_oob_md, n3);
  const char *const n4[] = {"dbg_kern_rank", "rank mismatch", ", 0, 0)", "(3, 5)", NULL};
  expect_abort("kernel_rank", kernel_rank, n4);
  const char *const n5[] = {"dbg_kern_layout", "layout mismatch", "(3, 5)", NULL};
  expect_abort("kernel_layout", kernel_layout, n5);
}

static void test_valid_accesses(void) {
  char text[8192];
  int status = run_child(valid_accesses, text, sizeof text);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    char m[9000];
    snprintf(m, sizeof m, "valid accesses: child status 0x%x; stderr: %s", status, text);
    pt_fail_(__FILE__, __LINE__, m);
  }
  PT_EQ_I64(strlen(text), 0);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  PT_RUN(test_valid_accesses);
  PT_RUN(test_host_bounds);
  PT_RUN(test_host_rank_layout);
  PT_RUN(test_host_device_memory);
  PT_RUN(test_kernel_checks);
  PT_END();
}

#endif
