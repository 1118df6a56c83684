/** @file test_profiling.c
 *  The Kokkos Tools interface, end to end: CTest sets KOKKOS_TOOLS_LIBS to
 *  tests/tools/event_tool.c (see test_profiling.cmake), porta_initialize loads
 *  it, and the test runs real kernels, a view's life, a deep copy, regions and
 *  a fence, then reads back the exact events the tool received (names, kernel
 *  ids matched between begin and end, spaces, labels, byte counts, pointers).
 *  Finally it finalises profiling itself and checks the tool was finalised,
 *  wrote its log and receives nothing afterwards. Also: a library that cannot
 *  be loaded, and region misuse.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- kernels ---- */

typedef struct pf_args {
  porta_view_f64 x;
} pf_args;

PORTA_FOR(pt_prof_fill, pf_args, a, i) { PORTA_AT1(a->x, i) = (double)(i + 1); }

PORTA_REDUCE(pt_prof_sum, pf_args, a, i, porta_sum_f64, acc) { *acc += PORTA_AT1(a->x, i); }

typedef struct ps_args {
  porta_view_f64 x, prefix;
} ps_args;

PORTA_SCAN(pt_prof_scan, ps_args, a, i, porta_sum_f64, upd, is_final) {
  *upd += PORTA_AT1(a->x, i);
  if (is_final) PORTA_AT1(a->prefix, i) = *upd;
}

/* ---- the tool's query functions ---- */

typedef int (*count_fn)(const char *);
typedef int (*find_fn)(const char *, int);
typedef int (*num_fn)(void);
typedef const char *(*event_fn)(int);
typedef const void *(*ptr_fn)(int);

static struct {
  void *self; /* our own reference to the tool: keeps it loaded after Porta unloads it */
  count_fn count;
  find_fn find;
  num_fn num;
  event_fn event;
  ptr_fn ptr;
} T;

static void *sym(void *lib, const char *name) {
  void *p = dlsym(lib, name);
  if (!p) fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
  return p;
}

#define SYM(lib, name, fn)                                                                         \
  do {                                                                                             \
    void *p_ = sym((lib), (name));                                                                 \
    memcpy(&(fn), &p_, sizeof(fn));                                                                \
  } while (0)

/** Resolve the query functions. Porta loaded the tool RTLD_GLOBAL (as Kokkos
 *  does), so the global scope finds them without naming the library. */
static int find_tool(void) {
  const char *path = getenv("KOKKOS_TOOLS_LIBS");
  if (!path || !*path) {
    fprintf(stderr, "KOKKOS_TOOLS_LIBS is not set: run this test through ctest\n");
    return 1;
  }
  void *global = dlopen(NULL, RTLD_NOW);
  if (!global) return 1;
  SYM(global, "event_tool_count", T.count);
  SYM(global, "event_tool_find", T.find);
  SYM(global, "event_tool_num_events", T.num);
  SYM(global, "event_tool_event", T.event);
  SYM(global, "event_tool_ptr", T.ptr);
  T.self = dlopen(path, RTLD_NOW);
  if (!T.self) fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
  count_fn direct = NULL;
  if (T.self) SYM(T.self, "event_tool_count", direct);
  dlclose(global);
  return !(T.count && T.find && T.num && T.event && T.ptr && T.self && direct == T.count);
}

/** The kID at the end of a "begin_* name devID kID" event. */
static uint64_t kid_of(int i) {
  const char *e = i >= 0 ? T.event(i) : NULL;
  const char *sp = e ? strrchr(e, ' ') : NULL;
  return sp ? strtoull(sp + 1, NULL, 10) : 0;
}

static const char *default_space(void) {
  return porta_memory_space_name(porta_default_memory_space());
}

/* ---- tests ---- */

static void test_loaded(void) {
  PT_CHECK(porta_profiling_enabled() != 0);
  PT_EQ_I64(porta_profiling_num_tools(), 1);
  PT_EQ_I64(porta_profiling_table_enabled(), 0);
  /* Loaded once, initialised first with loadSeq 0 and Kokkos 4's interface version. */
  PT_EQ_I64(T.count("init"), 1);
  PT_EQ_I64(T.find("init 0 20211015 0", 0), 0);
  PT_EQ_I64(T.count("finalize"), 0);
}

/** Check that event `begin` ("begin_KIND label") occurs exactly once and is
 *  closed by "end_KIND kID" with the kID the tool set, later in the stream. */
static void check_pair(const char *kind, const char *label, int from) {
  char begin[128], end[128];
  snprintf(begin, sizeof begin, "begin_%s %s", kind, label);
  int at = T.find(begin, from);
  PT_CHECK(at >= 0);
  PT_EQ_I64(T.find(begin, at + 1), -1);
  uint64_t kid = kid_of(at);
  PT_CHECK(kid >= 1001);
  snprintf(end, sizeof end, "end_%s %" PRIu64, kind, kid);
  int closed = T.find(end, at + 1);
  PT_CHECK(closed > at);
  PT_EQ_I64(T.count(end), 1);
}

static void test_kernels(void) {
  const int64_t n = 100;
  int start = T.num();
  pf_args a;
  PT_OK(porta_view_f64_create1(&a.x, "prof_x", n));
  PT_OK(porta_parallel_for("pf_test", porta_exec_default(), porta_range(0, n), &pt_prof_fill, &a));
  double sum = 0.0;
  PT_OK(porta_parallel_reduce("pr_test", porta_exec_default(), porta_range(0, n), &pt_prof_sum, &a,
                              &sum));
  PT_EQ_F64(sum, 5050.0);
  ps_args s;
  s.x = a.x;
  PT_OK(porta_view_f64_create1(&s.prefix, "prof_prefix", n));
  double total = 0.0;
  PT_OK(porta_parallel_scan("ps_test", porta_exec_default(), porta_range(0, n), &pt_prof_scan, &s,
                            &total));
  PT_EQ_F64(total, 5050.0);
  porta_mirror_f64 h;
  PT_OK(porta_view_f64_create_mirror_view(&h, &s.prefix));
  PT_OK(porta_deep_copy(h, s.prefix));
  PT_EQ_F64(h.data[9], 55.0);
  porta_mirror_f64_release(&h);
  porta_view_f64_release(&s.prefix);
  porta_view_f64_release(&a.x);

  /* Exactly one begin per kernel, of the right pattern, closed with its own kID. */
  check_pair("parallel_for", "pf_test", start);
  check_pair("parallel_reduce", "pr_test", start);
  check_pair("parallel_scan", "ps_test", start);
  PT_EQ_I64(T.count("begin_parallel_for"), 1);
  PT_EQ_I64(T.count("begin_parallel_reduce"), 1);
  PT_EQ_I64(T.count("begin_parallel_scan"), 1);
  PT_EQ_I64(T.count("end_parallel_for"), 1);
  PT_EQ_I64(T.count("end_parallel_reduce"), 1);
  PT_EQ_I64(T.count("end_parallel_scan"), 1);
  /* Launch order is kept. */
  PT_CHECK(T.find("begin_parallel_for pf_test", start) <
           T.find("begin_parallel_reduce pr_test", start));
  PT_CHECK(T.find("begin_parallel_reduce pr_test", start) <
           T.find("begin_parallel_scan ps_test", start));
}

static void test_view_events(void) {
  const int64_t n = 37;
  char alloc[128];
  snprintf(alloc, sizeof alloc, "allocate %s prof_view %lld", default_space(), (long long)(8 * n));
  char dealloc[128];
  snprintf(dealloc, sizeof dealloc, "deallocate %s prof_view %lld", default_space(),
           (long long)(8 * n));
  int start = T.num();
  porta_view_f64 v;
  PT_OK(porta_view_f64_create1(&v, "prof_view", n));
  const void *data = v.data;
  PT_EQ_I64(T.count(alloc), 1);
  int at = T.find(alloc, start);
  PT_CHECK(at >= start);
  PT_CHECK(T.ptr(at) == data);
  PT_EQ_I64(T.count(dealloc), 0);

  /* A second handle keeps the allocation alive: no event until the last release. */
  porta_view_f64 w = v;
  porta_view_f64_retain(&w);
  porta_view_f64_release(&v);
  PT_EQ_I64(T.count(dealloc), 0);
  porta_view_f64_release(&w);
  PT_EQ_I64(T.count(dealloc), 1);
  int freed = T.find(dealloc, start);
  PT_CHECK(freed > at);
  PT_CHECK(T.ptr(freed) == data);
}

static void test_deep_copy(void) {
  const int64_t n = 64;
  porta_view_f64 src, dst;
  PT_OK(porta_view_f64_create1(&src, "prof_src", n));
  PT_OK(porta_view_f64_create1(&dst, "prof_dst", n));
  char copy[160];
  snprintf(copy, sizeof copy, "begin_deep_copy %s prof_dst %s prof_src %lld", default_space(),
           default_space(), (long long)(8 * n));
  int start = T.num(), ends = T.count("end_deep_copy");
  PT_OK(porta_deep_copy(dst, src));
  int at = T.find(copy, start);
  PT_CHECK(at >= start);
  PT_CHECK(T.ptr(at) == (const void *)dst.data);
  PT_EQ_I64(T.count(copy), 1);
  PT_EQ_I64(T.count("end_deep_copy"), ends + 1);
  PT_CHECK(T.find("end_deep_copy", at + 1) > at);
  porta_view_f64_release(&src);
  porta_view_f64_release(&dst);
}

static void test_regions_and_fences(void) {
  int start = T.num();
  PT_OK(porta_push_region("outer_region"));
  PT_OK(porta_push_region("inner_region"));
  PT_OK(porta_fence("fence_test"));
  PT_OK(porta_pop_region());
  PT_OK(porta_pop_region());
  PT_EXPECT_CODE(porta_pop_region(), PORTA_ERROR_INVALID_ARGUMENT);
  PT_CHECK(strstr(porta_last_error_message(), "porta_pop_region") != NULL);
  PT_EXPECT_CODE(porta_push_region(NULL), PORTA_ERROR_INVALID_ARGUMENT);

  int outer = T.find("push_region outer_region", start);
  int inner = T.find("push_region inner_region", start);
  PT_CHECK(outer >= start);
  PT_CHECK(inner > outer);
  PT_EQ_I64(T.count("push_region outer_region"), 1);
  PT_EQ_I64(T.count("push_region inner_region"), 1);
  check_pair("fence", "fence_test", start);
  int fence = T.find("begin_fence fence_test", start);
  PT_CHECK(fence > inner);
  int pop1 = T.find("pop_region", start);
  PT_CHECK(pop1 > fence);
  PT_CHECK(T.find("pop_region", pop1 + 1) > pop1);
  PT_EQ_I64(T.count("pop_region"), 2); /* the failed pop reached no tool */
}

static void test_bad_library(void) {
  /* Profiling is initialised: a second initialisation is refused. */
  PT_EXPECT_CODE(porta_profiling_initialize("", 0), PORTA_ERROR_INVALID_ARGUMENT);
}

/** Finalise profiling here (porta_finalize will find it off): the tool is
 *  finalised once, writes its log, and gets nothing afterwards. */
static void test_finalize(void) {
  char log[64];
  snprintf(log, sizeof log, "/tmp/porta_event_tool_%ld.log", (long)getpid());
  setenv("PORTA_EVENT_TOOL_LOG", log, 1);
  int before = T.num();
  porta_profiling_finalize(stdout);
  PT_EQ_I64(porta_profiling_enabled(), 0);
  PT_EQ_I64(porta_profiling_num_tools(), 0);
  PT_EQ_I64(T.count("finalize"), 1);
  PT_EQ_I64(T.num(), before + 1);
  /* The log holds every event, one per line, in order. */
  FILE *f = fopen(log, "r");
  PT_CHECK(f != NULL);
  if (f) {
    char line[600];
    int i = 0, same = 1;
    while (fgets(line, sizeof line, f)) {
      line[strcspn(line, "\n")] = '\0';
      if (i >= T.num() || strcmp(line, T.event(i)) != 0) same = 0;
      ++i;
    }
    fclose(f);
    remove(log);
    PT_EQ_I64(i, T.num());
    PT_CHECK(same);
  }
  unsetenv("PORTA_EVENT_TOOL_LOG");
  /* Nothing reaches the tool any more. */
  pf_args a;
  PT_OK(porta_view_f64_create1(&a.x, "after_finalize", 8));
  PT_OK(porta_parallel_for("pf_after", porta_exec_default(), porta_range(0, 8), &pt_prof_fill, &a));
  PT_OK(porta_push_region("after"));
  PT_OK(porta_pop_region());
  porta_view_f64_release(&a.x);
  PT_EQ_I64(T.num(), before + 1);
  porta_profiling_finalize(stdout); /* twice is harmless */
}

/** With profiling off again: a library that cannot be loaded is an I/O error
 *  naming the path, and leaves nothing loaded or active; ';' and ':' both
 *  separate libraries and empty items are skipped. */
static void test_load_errors(void) {
  const char *tool = getenv("KOKKOS_TOOLS_LIBS");
  char list[1200];
  snprintf(list, sizeof list, ";%s:/nonexistent/libporta_no_such_tool.so;", tool);
  int inits = T.count("init");
  PT_EXPECT_CODE(porta_profiling_initialize(list, 0), PORTA_ERROR_IO);
  PT_CHECK(strstr(porta_last_error_message(), "/nonexistent/libporta_no_such_tool.so") != NULL);
  PT_EQ_I64(porta_profiling_enabled(), 0);
  PT_EQ_I64(porta_profiling_num_tools(), 0);
  PT_EQ_I64(T.count("init"), inits); /* the good library was not initialised either */

  /* The same library twice (';' then ':') is two tools with loadSeq 0 and 1. */
  snprintf(list, sizeof list, "%s;;%s:", tool, tool);
  PT_OK(porta_profiling_initialize(list, 0));
  PT_EQ_I64(porta_profiling_num_tools(), 2);
  PT_EQ_I64(T.count("init 0 20211015 0"), 2);
  PT_EQ_I64(T.count("init 1 20211015 0"), 1);
  int start = T.num();
  PT_OK(porta_fence("twice"));
  PT_EQ_I64(T.count("begin_fence twice"), 2);
  /* Each tool gets back the kID it set itself. */
  int b0 = T.find("begin_fence twice", start), b1 = T.find("begin_fence twice", b0 + 1);
  char e0[64], e1[64];
  snprintf(e0, sizeof e0, "end_fence %" PRIu64, kid_of(b0));
  snprintf(e1, sizeof e1, "end_fence %" PRIu64, kid_of(b1));
  PT_CHECK(kid_of(b0) != kid_of(b1));
  PT_EQ_I64(T.count(e0), 1);
  PT_EQ_I64(T.count(e1), 1);
  porta_profiling_finalize(NULL);
  PT_EQ_I64(T.count("finalize"), 3);
  PT_EQ_I64(porta_profiling_enabled(), 0);
}

int main(int argc, char **argv) {
  PT_BEGIN(argc, argv);
  if (find_tool() != 0) {
    fprintf(stderr, "the event tool was not loaded through KOKKOS_TOOLS_LIBS\n");
    porta_finalize();
    return 1;
  }
  PT_RUN(test_loaded);
  PT_RUN(test_kernels);
  PT_RUN(test_view_events);
  PT_RUN(test_deep_copy);
  PT_RUN(test_regions_and_fences);
  PT_RUN(test_bad_library);
  PT_RUN(test_finalize);
  PT_RUN(test_load_errors);
  porta_finalize();
  if (T.self) dlclose(T.self);
  printf("%d failure(s)\n", pt_failures_);
  return pt_failures_ ? 1 : 0;
}
