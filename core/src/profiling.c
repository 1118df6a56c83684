/** @file profiling.c
 *  The Kokkos Tools C interface (dlopen'ed `kokkosp_*` hooks) and the built-in
 *  per-kernel time table. Launches from several host threads at once report events
 *  concurrently: the frames, handles and table are kept under one lock (taken only while
 *  profiling is on), and the tools' hooks are called outside it. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "porta/error.h"
#include "porta/runtime.h"
#include "profiling_private.h"

int porta_profiling_active_ = 0;

/** Guards P's frames, handle counter, table and region depth against concurrent launches. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the Kokkos Tools C interface (as in Kokkos_Profiling_C_Interface.h) ---- */

struct Kokkos_Profiling_KokkosPDeviceInfo {
  size_t deviceID;
};

struct Kokkos_Profiling_SpaceHandle {
  char name[64];
};

typedef void (*kp_init_fn)(const int, const uint64_t, const uint32_t,
                           struct Kokkos_Profiling_KokkosPDeviceInfo *);
typedef void (*kp_finalize_fn)(void);
typedef void (*kp_begin_fn)(const char *, const uint32_t, uint64_t *);
typedef void (*kp_end_fn)(uint64_t);
typedef void (*kp_push_fn)(const char *);
typedef void (*kp_pop_fn)(void);
typedef void (*kp_data_fn)(const struct Kokkos_Profiling_SpaceHandle, const char *, const void *,
                           const uint64_t);
typedef void (*kp_begin_copy_fn)(struct Kokkos_Profiling_SpaceHandle, const char *, const void *,
                                 struct Kokkos_Profiling_SpaceHandle, const char *, const void *,
                                 uint64_t);
typedef void (*kp_end_copy_fn)(void);

/** Kinds of events that carry a handle: the three patterns, then fences. */
enum { KIND_FENCE = 3, NUM_KINDS = 4 };

static const char *const begin_names[NUM_KINDS] = {
    "kokkosp_begin_parallel_for", "kokkosp_begin_parallel_reduce", "kokkosp_begin_parallel_scan",
    "kokkosp_begin_fence"};
static const char *const end_names[NUM_KINDS] = {"kokkosp_end_parallel_for",
                                                 "kokkosp_end_parallel_reduce",
                                                 "kokkosp_end_parallel_scan", "kokkosp_end_fence"};

/** One loaded tool library and the hooks it exports (NULL where it does not). */
typedef struct tool {
  void *handle;
  kp_init_fn init;
  kp_finalize_fn finalize;
  kp_begin_fn begin[NUM_KINDS];
  kp_end_fn end[NUM_KINDS];
  kp_push_fn push_region;
  kp_pop_fn pop_region;
  kp_data_fn allocate;
  kp_data_fn deallocate;
  kp_begin_copy_fn begin_deep_copy;
  kp_end_copy_fn end_deep_copy;
} tool;

/** An event in flight (kernel or fence): what each tool's end hook must get back. */
typedef struct frame {
  int kind;
  uint64_t handle;               /**< what the caller was given */
  uint64_t kid[PORTA_MAX_TOOLS]; /**< what each tool set */
  int entry;                     /**< table row, -1 if none */
  double start;
} frame;

/** Kernels contain fences, nothing nests deeper in practice; deeper events
 *  still reach the tools, with the caller's handle. */
#define MAX_FRAMES 64

/** One row of the built-in table. */
typedef struct entry {
  char *label;
  int pattern;
  int64_t calls;
  double seconds;
} entry;

static struct {
  int initialized;
  int table_on;
  int ntools;
  tool tools[PORTA_MAX_TOOLS];
  int nframes;
  frame frames[MAX_FRAMES];
  uint64_t next_handle;
  int64_t region_depth;
  /* the table: rows in order of first use, and an open-addressing index into them */
  entry *rows;
  int nrows, cap_rows;
  int *index; /**< -1 = empty; capacity a power of two, at most half full */
  int cap_index;
} P;

/** The tools' handle of a memory space: its name, as its back end registered it. */
static struct Kokkos_Profiling_SpaceHandle space_handle(int space) {
  struct Kokkos_Profiling_SpaceHandle h;
  memset(&h, 0, sizeof h);
  const char *name = space >= 0 && space < PORTA_NUM_MEMORY_SPACES
                         ? porta_memory_space_name((porta_memory_space)space)
                         : "Unknown";
  memcpy(h.name, name, strlen(name) < sizeof h.name ? strlen(name) : sizeof h.name - 1);
  return h;
}

/* dlsym returns an object pointer; copy its bits into a function pointer. */
#define RESOLVE(lib, name, fn)                                                                     \
  do {                                                                                             \
    void *sym_ = dlsym((lib), (name));                                                             \
    memcpy(&(fn), &sym_, sizeof(fn));                                                              \
  } while (0)

static void unload_all(void) {
  for (int t = P.ntools - 1; t >= 0; --t)
    if (P.tools[t].handle) dlclose(P.tools[t].handle);
  memset(P.tools, 0, sizeof P.tools);
  P.ntools = 0;
}

/** dlopen one library and resolve its hooks. */
static int load_tool(const char *path) {
  if (P.ntools == PORTA_MAX_TOOLS)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_initialize", path,
                       "more than %d Kokkos Tools libraries in KOKKOS_TOOLS_LIBS", PORTA_MAX_TOOLS);
  dlerror();
  void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    const char *why = dlerror();
    return porta_error(PORTA_ERROR_IO, "porta_initialize", path,
                       "cannot load the Kokkos Tools library: %s", why ? why : "dlopen failed");
  }
  tool *t = &P.tools[P.ntools++];
  memset(t, 0, sizeof *t);
  t->handle = lib;
  RESOLVE(lib, "kokkosp_init_library", t->init);
  RESOLVE(lib, "kokkosp_finalize_library", t->finalize);
  for (int k = 0; k < NUM_KINDS; ++k) {
    RESOLVE(lib, begin_names[k], t->begin[k]);
    RESOLVE(lib, end_names[k], t->end[k]);
  }
  RESOLVE(lib, "kokkosp_push_profile_region", t->push_region);
  RESOLVE(lib, "kokkosp_pop_profile_region", t->pop_region);
  RESOLVE(lib, "kokkosp_allocate_data", t->allocate);
  RESOLVE(lib, "kokkosp_deallocate_data", t->deallocate);
  RESOLVE(lib, "kokkosp_begin_deep_copy", t->begin_deep_copy);
  RESOLVE(lib, "kokkosp_end_deep_copy", t->end_deep_copy);
  return PORTA_SUCCESS;
}

/** Load every library of a ';' / ':' separated list; empty items are skipped. */
static int load_list(const char *list) {
  size_t n = strlen(list);
  char *copy = (char *)malloc(n + 1);
  if (!copy)
    return porta_error(PORTA_ERROR_OUT_OF_MEMORY, "porta_initialize", NULL,
                       "no memory to parse KOKKOS_TOOLS_LIBS");
  memcpy(copy, list, n + 1);
  int rc = PORTA_SUCCESS;
  char *item = copy;
  for (char *p = copy;; ++p) {
    if (*p == ';' || *p == ':' || *p == '\0') {
      int last = *p == '\0';
      *p = '\0';
      if (*item) rc = load_tool(item);
      if (rc != PORTA_SUCCESS || last) break;
      item = p + 1;
    }
  }
  free(copy);
  return rc;
}

int porta_profiling_initialize(const char *tools_libs, int builtin_table) {
  if (P.initialized)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_profiling_initialize", NULL,
                       "profiling is already initialised");
  const char *list = tools_libs;
  if (!list) {
    list = getenv("KOKKOS_TOOLS_LIBS");
    if (!list || !*list) list = getenv("KOKKOS_PROFILE_LIBRARY");
  }
  if (list && *list) {
    int rc = load_list(list);
    if (rc != PORTA_SUCCESS) {
      unload_all(); /* none was initialised yet */
      return rc;
    }
  }
  P.nframes = 0;
  P.next_handle = 0;
  P.table_on = builtin_table != 0;
  P.initialized = 1;
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].init) {
      struct Kokkos_Profiling_KokkosPDeviceInfo info;
      info.deviceID = 0;
      P.tools[t].init(t, (uint64_t)PORTA_KOKKOSP_INTERFACE_VERSION, 0, &info);
    }
  porta_profiling_active_ = P.ntools > 0 || P.table_on;
  return PORTA_SUCCESS;
}

int porta_profiling_num_tools(void) { return P.ntools; }
int porta_profiling_table_enabled(void) { return P.initialized && P.table_on; }
int porta_profiling_enabled(void) { return porta_profiling_active_; }

/* ---- the table ---- */

static const char *const pattern_names[3] = {"for", "reduce", "scan"};

static uint64_t hash_key(const char *label, int pattern) {
  uint64_t h = 1469598103934665603ull ^ (uint64_t)pattern; /* FNV-1a */
  for (const unsigned char *s = (const unsigned char *)label; *s; ++s)
    h = (h ^ *s) * 1099511628211ull;
  return h;
}

static int grow_index(void) {
  int cap = P.cap_index ? 2 * P.cap_index : 64;
  int *index = (int *)malloc((size_t)cap * sizeof *index);
  if (!index) return -1;
  for (int i = 0; i < cap; ++i) index[i] = -1;
  for (int r = 0; r < P.nrows; ++r) {
    size_t i = (size_t)hash_key(P.rows[r].label, P.rows[r].pattern) & (size_t)(cap - 1);
    while (index[i] >= 0) i = (i + 1) & (size_t)(cap - 1);
    index[i] = r;
  }
  free(P.index);
  P.index = index;
  P.cap_index = cap;
  return 0;
}

/** The row of (label, pattern), created on first use; -1 if out of memory. */
static int table_row(const char *label, int pattern) {
  if (2 * (P.nrows + 1) > P.cap_index && grow_index() != 0) return -1;
  size_t mask = (size_t)(P.cap_index - 1);
  size_t i = (size_t)hash_key(label, pattern) & mask;
  for (; P.index[i] >= 0; i = (i + 1) & mask) {
    entry *e = &P.rows[P.index[i]];
    if (e->pattern == pattern && strcmp(e->label, label) == 0) return P.index[i];
  }
  if (P.nrows == P.cap_rows) {
    int cap = P.cap_rows ? 2 * P.cap_rows : 32;
    entry *rows = (entry *)realloc(P.rows, (size_t)cap * sizeof *rows);
    if (!rows) return -1;
    P.rows = rows;
    P.cap_rows = cap;
  }
  size_t n = strlen(label);
  char *copy = (char *)malloc(n + 1);
  if (!copy) return -1;
  memcpy(copy, label, n + 1);
  entry *e = &P.rows[P.nrows];
  e->label = copy;
  e->pattern = pattern;
  e->calls = 0;
  e->seconds = 0.0;
  P.index[i] = P.nrows;
  return P.nrows++;
}

int porta_profile_table_entry(const char *label, int64_t *calls, double *seconds) {
  static const char op[] = "porta_profile_table_entry";
  if (!P.initialized || !P.table_on)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "the profile table is off (--porta-profile / PORTA_PROFILE=1)");
  if (!label) return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, NULL, "no label given");
  int64_t c = 0;
  double s = 0.0;
  int found = 0;
  pthread_mutex_lock(&lock);
  for (int r = 0; r < P.nrows; ++r)
    if (strcmp(P.rows[r].label, label) == 0) {
      c += P.rows[r].calls;
      s += P.rows[r].seconds;
      found = 1;
    }
  pthread_mutex_unlock(&lock);
  if (!found)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, op, label,
                       "no kernel with this label has run");
  if (calls) *calls = c;
  if (seconds) *seconds = s;
  return PORTA_SUCCESS;
}

static int by_time_desc(const void *a, const void *b) {
  const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
  if (x->seconds != y->seconds) return x->seconds > y->seconds ? -1 : 1;
  return strcmp(x->label, y->label);
}

static void print_table(FILE *out) {
  double total = 0.0;
  int64_t launches = 0;
  int width = 5;
  for (int r = 0; r < P.nrows; ++r) {
    total += P.rows[r].seconds;
    launches += P.rows[r].calls;
    int n = (int)strlen(P.rows[r].label);
    if (n > width) width = n;
  }
  if (width > 60) width = 60;
  fprintf(out, "Porta kernel profile: %d kernel(s), %lld launch(es), %.6f s in kernels\n", P.nrows,
          (long long)launches, total);
  if (P.nrows == 0) return;
  const entry **sorted = (const entry **)malloc((size_t)P.nrows * sizeof *sorted);
  if (!sorted) return;
  for (int r = 0; r < P.nrows; ++r) sorted[r] = &P.rows[r];
  qsort(sorted, (size_t)P.nrows, sizeof *sorted, by_time_desc);
  fprintf(out, "  %-*s %-6s %10s %12s %12s %7s\n", width, "label", "type", "calls", "total s",
          "mean us", "%");
  for (int r = 0; r < P.nrows; ++r) {
    const entry *e = sorted[r];
    double mean_us = e->calls ? 1e6 * e->seconds / (double)e->calls : 0.0;
    double pct = total > 0.0 ? 100.0 * e->seconds / total : 0.0;
    fprintf(out, "  %-*s %-6s %10lld %12.6f %12.3f %7.2f\n", width, e->label,
            pattern_names[e->pattern], (long long)e->calls, e->seconds, mean_us, pct);
  }
  free(sorted);
  fflush(out);
}

static void free_table(void) {
  for (int r = 0; r < P.nrows; ++r) free(P.rows[r].label);
  free(P.rows);
  free(P.index);
  P.rows = NULL;
  P.index = NULL;
  P.nrows = P.cap_rows = P.cap_index = 0;
}

void porta_profiling_finalize(FILE *out) {
  if (!P.initialized) return;
  porta_profiling_active_ = 0;
  if (P.table_on && out) print_table(out);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].finalize) P.tools[t].finalize();
  unload_all();
  free_table();
  P.table_on = 0;
  P.nframes = 0;
  P.initialized = 0;
}

/* ---- events with handles: kernels and fences ---- */

static uint64_t begin_event(int kind, const char *label, uint32_t device_id, int timed) {
  uint64_t kid[PORTA_MAX_TOOLS];
  int have = 0;
  uint64_t handle = 0;
  for (int t = 0; t < P.ntools; ++t) {
    kid[t] = 0;
    if (P.tools[t].begin[kind]) {
      P.tools[t].begin[kind](label, device_id, &kid[t]);
      if (!have) handle = kid[t];
      have = 1;
    }
  }
  pthread_mutex_lock(&lock);
  frame scratch;
  frame *f = P.nframes < MAX_FRAMES ? &P.frames[P.nframes++] : &scratch;
  f->kind = kind;
  f->entry = -1;
  for (int t = 0; t < P.ntools; ++t) f->kid[t] = kid[t];
  if (!have) handle = ++P.next_handle;
  f->handle = handle;
  if (timed) {
    f->entry = table_row(label, kind);
    f->start = porta_wtime(); /* last: tools' overhead is not the kernel's */
  }
  pthread_mutex_unlock(&lock);
  return handle;
}

static void end_event(int kind, uint64_t handle) {
  double now = P.table_on && kind != KIND_FENCE ? porta_wtime() : 0.0;
  pthread_mutex_lock(&lock);
  int at = -1; /* the innermost open event of this kind and handle */
  for (int i = P.nframes - 1; i >= 0; --i)
    if (P.frames[i].kind == kind && P.frames[i].handle == handle) {
      at = i;
      break;
    }
  frame f;
  if (at >= 0) {
    f = P.frames[at];
    memmove(&P.frames[at], &P.frames[at + 1], (size_t)(P.nframes - at - 1) * sizeof(frame));
    --P.nframes;
    if (f.entry >= 0 && P.table_on) {
      P.rows[f.entry].calls += 1;
      P.rows[f.entry].seconds += now - f.start;
    }
  }
  pthread_mutex_unlock(&lock);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].end[kind]) P.tools[t].end[kind](at >= 0 ? f.kid[t] : handle);
}

uint64_t porta_profile_begin_kernel_(porta_pattern p, const char *label, uint32_t device_id) {
  int kind = (int)p >= 0 && (int)p < 3 ? (int)p : 0;
  return begin_event(kind, label ? label : "", device_id, P.table_on);
}

void porta_profile_end_kernel_(porta_pattern p, uint64_t handle) {
  end_event((int)p >= 0 && (int)p < 3 ? (int)p : 0, handle);
}

uint64_t porta_profile_begin_fence_(const char *label, uint32_t device_id) {
  return begin_event(KIND_FENCE, label ? label : "", device_id, 0);
}

void porta_profile_end_fence_(uint64_t handle) { end_event(KIND_FENCE, handle); }

/* ---- events without handles ---- */

void porta_profile_allocate_(int space, const char *label, const void *ptr, uint64_t bytes) {
  struct Kokkos_Profiling_SpaceHandle h = space_handle(space);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].allocate) P.tools[t].allocate(h, label ? label : "", ptr, bytes);
}

void porta_profile_deallocate_(int space, const char *label, const void *ptr, uint64_t bytes) {
  struct Kokkos_Profiling_SpaceHandle h = space_handle(space);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].deallocate) P.tools[t].deallocate(h, label ? label : "", ptr, bytes);
}

void porta_profile_begin_deep_copy_(int dst_space, const char *dst_label, const void *dst,
                                    int src_space, const char *src_label, const void *src,
                                    uint64_t bytes) {
  struct Kokkos_Profiling_SpaceHandle dh = space_handle(dst_space), sh = space_handle(src_space);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].begin_deep_copy)
      P.tools[t].begin_deep_copy(dh, dst_label ? dst_label : "", dst, sh,
                                 src_label ? src_label : "", src, bytes);
}

void porta_profile_end_deep_copy_(void) {
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].end_deep_copy) P.tools[t].end_deep_copy();
}

/* ---- regions (public) ---- */

int porta_push_region(const char *name) {
  if (!name)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_push_region", NULL,
                       "no region name given");
  pthread_mutex_lock(&lock);
  ++P.region_depth;
  pthread_mutex_unlock(&lock);
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].push_region) P.tools[t].push_region(name);
  return PORTA_SUCCESS;
}

int porta_pop_region(void) {
  pthread_mutex_lock(&lock);
  const int none = P.region_depth == 0;
  if (!none) --P.region_depth;
  pthread_mutex_unlock(&lock);
  if (none)
    return porta_error(PORTA_ERROR_INVALID_ARGUMENT, "porta_pop_region", NULL,
                       "no region is pushed");
  for (int t = 0; t < P.ntools; ++t)
    if (P.tools[t].pop_region) P.tools[t].pop_region();
  return PORTA_SUCCESS;
}
