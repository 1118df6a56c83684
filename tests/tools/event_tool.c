/** @file event_tool.c
 *  A minimal Kokkos Tools library for the tests: it exports the `kokkosp_*`
 *  hooks Porta calls and records every event as one line of text, e.g.
 *    init 0 20211015 0
 *    begin_parallel_for pf_test 0 1001      (name, devID, the kID it set)
 *    end_parallel_for 1001
 *    allocate Host prof_view 800
 *    begin_deep_copy Host dst Host src 800
 *    push_region name / pop_region / begin_fence name devID kID / end_fence kID / finalize
 *  kIDs are handed out from one counter starting at 1001 (kernels and fences).
 *  Tests read the records in memory through the event_tool_* query functions
 *  (found with dlsym); kokkosp_finalize_library also writes them, one per
 *  line, to the file named by PORTA_EVENT_TOOL_LOG if that is set.
 *  Not thread-safe, like the interface it implements.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Kokkos_Profiling_KokkosPDeviceInfo {
  size_t deviceID;
};

struct Kokkos_Profiling_SpaceHandle {
  char name[64];
};

typedef struct event {
  char *text;
  const void *ptr; /**< allocation and copy events: the (destination) pointer */
} event;

static event *events = NULL;
static int nevents = 0, cap = 0;
static uint64_t next_kid = 1001;

static void record(const void *ptr, const char *fmt, ...) {
  if (nevents == cap) {
    int c = cap ? 2 * cap : 256;
    event *e = (event *)realloc(events, (size_t)c * sizeof *e);
    if (!e) return;
    events = e;
    cap = c;
  }
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  size_t n = strlen(buf);
  char *text = (char *)malloc(n + 1);
  if (!text) return;
  memcpy(text, buf, n + 1);
  events[nevents].text = text;
  events[nevents].ptr = ptr;
  ++nevents;
}

/* ---- the Kokkos Tools hooks ---- */

void kokkosp_init_library(const int loadSeq, const uint64_t interfaceVer,
                          const uint32_t devInfoCount,
                          struct Kokkos_Profiling_KokkosPDeviceInfo *deviceInfo) {
  (void)deviceInfo;
  record(NULL, "init %d %" PRIu64 " %" PRIu32, loadSeq, interfaceVer, devInfoCount);
}

void kokkosp_finalize_library(void) {
  record(NULL, "finalize");
  const char *path = getenv("PORTA_EVENT_TOOL_LOG");
  if (path && *path) {
    FILE *f = fopen(path, "w");
    if (f) {
      for (int i = 0; i < nevents; ++i) fprintf(f, "%s\n", events[i].text);
      fclose(f);
    }
  }
}

#define BEGIN_END_(KIND)                                                                           \
  void kokkosp_begin_##KIND(const char *name, const uint32_t devID, uint64_t *kID) {               \
    *kID = next_kid++;                                                                             \
    record(NULL, "begin_" #KIND " %s %" PRIu32 " %" PRIu64, name, devID, *kID);                    \
  }                                                                                                \
  void kokkosp_end_##KIND(const uint64_t kID) { record(NULL, "end_" #KIND " %" PRIu64, kID); }

BEGIN_END_(parallel_for)
BEGIN_END_(parallel_reduce)
BEGIN_END_(parallel_scan)
BEGIN_END_(fence)

void kokkosp_push_profile_region(const char *name) { record(NULL, "push_region %s", name); }
void kokkosp_pop_profile_region(void) { record(NULL, "pop_region"); }

void kokkosp_allocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                           const void *ptr, const uint64_t size) {
  record(ptr, "allocate %s %s %" PRIu64, space.name, label, size);
}

void kokkosp_deallocate_data(const struct Kokkos_Profiling_SpaceHandle space, const char *label,
                             const void *ptr, const uint64_t size) {
  record(ptr, "deallocate %s %s %" PRIu64, space.name, label, size);
}

void kokkosp_begin_deep_copy(struct Kokkos_Profiling_SpaceHandle dst_handle, const char *dst_name,
                             const void *dst_ptr, struct Kokkos_Profiling_SpaceHandle src_handle,
                             const char *src_name, const void *src_ptr, uint64_t size) {
  (void)src_ptr;
  record(dst_ptr, "begin_deep_copy %s %s %s %s %" PRIu64, dst_handle.name, dst_name,
         src_handle.name, src_name, size);
}

void kokkosp_end_deep_copy(void) { record(NULL, "end_deep_copy"); }

/* ---- queries for the tests ---- */

/** Non-zero if event text `t` is `prefix` followed by the end or a space. */
static int starts_with_word(const char *t, const char *prefix) {
  size_t n = strlen(prefix);
  return strncmp(t, prefix, n) == 0 && (t[n] == '\0' || t[n] == ' ');
}

/** Number of events recorded so far. */
int event_tool_num_events(void) { return nevents; }

/** The text of event i (NULL if out of range). */
const char *event_tool_event(int i) { return i >= 0 && i < nevents ? events[i].text : NULL; }

/** The pointer of event i (allocation, deallocation, deep copy destination). */
const void *event_tool_ptr(int i) { return i >= 0 && i < nevents ? events[i].ptr : NULL; }

/** Events whose text is `prefix` or starts with `prefix` followed by a space. */
int event_tool_count(const char *prefix) {
  int c = 0;
  for (int i = 0; i < nevents; ++i) c += starts_with_word(events[i].text, prefix);
  return c;
}

/** Index of the first such event at or after `from`, or -1. */
int event_tool_find(const char *prefix, int from) {
  for (int i = from < 0 ? 0 : from; i < nevents; ++i)
    if (starts_with_word(events[i].text, prefix)) return i;
  return -1;
}

/** Free the records when the library is unloaded (keeps leak checkers quiet). */
__attribute__((destructor)) static void event_tool_cleanup(void) {
  for (int i = 0; i < nevents; ++i) free(events[i].text);
  free(events);
  events = NULL;
  nevents = cap = 0;
}
