/** @file profiling.h
 *  Profiling: the Kokkos Tools C interface and a built-in per-kernel time table.
 *
 *  Tools: porta_initialize loads every library named in KOKKOS_TOOLS_LIBS
 *  (separated by ';' or ':'; the legacy KOKKOS_PROFILE_LIBRARY is read when
 *  KOKKOS_TOOLS_LIBS is unset) with dlopen(RTLD_NOW | RTLD_GLOBAL), as Kokkos
 *  does, and calls its `kokkosp_*` hooks, so the existing Kokkos Tools (kernel
 *  timers, memory high-water marks, NVTX / ROCTX connectors, ...) work
 *  unchanged. Hooks a library does not export are not called. Libraries are
 *  initialised with loadSeq 0, 1, ... and interface version
 *  PORTA_KOKKOSP_INTERFACE_VERSION, and finalised and unloaded by porta_finalize.
 *
 *  Table: with --porta-profile (PORTA_PROFILE=1) every kernel's wall time is
 *  accumulated per label and pattern and printed at porta_finalize, sorted by
 *  total time.
 *
 *  Cost: with neither on, a launch pays one branch (the core's hooks are private to it).
 *
 *  Not thread-safe: launches, allocations, copies, fences and regions are
 *  reported from one host thread at a time.
 */
#ifndef PORTA_PROFILING_H
#define PORTA_PROFILING_H

#include <stdio.h>

#include "porta/macros.h"

PORTA_EXTERN_C_BEGIN

#ifndef PORTA_PATTERN_DEFINED
#define PORTA_PATTERN_DEFINED
/** The parallel pattern of a kernel (kernel descriptors and profiling share it). */
typedef enum porta_pattern {
  PORTA_PATTERN_FOR = 0,
  PORTA_PATTERN_REDUCE = 1,
  PORTA_PATTERN_SCAN = 2
} porta_pattern;
#endif

/** The Kokkos Tools interface version handed to kokkosp_init_library (Kokkos 4's). */
#define PORTA_KOKKOSP_INTERFACE_VERSION 20211015u

/** At most this many tool libraries are loaded at once. */
#define PORTA_MAX_TOOLS 8

/** Non-zero iff a tool library is loaded or the built-in table is on. */
PORTA_API int porta_profiling_enabled(void);

/** Load the tool libraries in `tools_libs` (';' or ':' separated; NULL: read
 *  KOKKOS_TOOLS_LIBS, then KOKKOS_PROFILE_LIBRARY) and call their
 *  kokkosp_init_library; turn the built-in table on if `builtin_table`.
 *  A library that fails to load is a PORTA_ERROR_IO naming its path and
 *  dlerror's reason; then nothing stays loaded. Called by porta_initialize. */
PORTA_API int porta_profiling_initialize(const char *tools_libs, int builtin_table);

/** Print the built-in table to `out` (if on and `out` is not NULL), call the
 *  tools' kokkosp_finalize_library, unload them and switch profiling off.
 *  Does nothing when profiling is not initialised. Called by porta_finalize. */
PORTA_API void porta_profiling_finalize(FILE *out);

/** Number of tool libraries loaded (0 when none or not initialised). */
PORTA_API int porta_profiling_num_tools(void);

/** Non-zero while the built-in per-kernel table is recording. */
PORTA_API int porta_profiling_table_enabled(void);

/** Look up the built-in table: calls and total seconds of the kernels labelled
 *  `label` (summed over patterns if one label was used for several). Either
 *  output pointer may be NULL. PORTA_SUCCESS if found; an error if the table
 *  is off or no kernel with that label has run. */
PORTA_API int porta_profile_table_entry(const char *label, int64_t *calls, double *seconds);

/** Push a named region (Kokkos::Profiling::pushRegion): tools see nested
 *  regions, e.g. as NVTX ranges. `name` must not be NULL. Works also when no
 *  tool is loaded; the nesting depth is counted for the whole process. */
PORTA_API int porta_push_region(const char *name);
/** Pop the innermost region; popping with nothing pushed is an error. */
PORTA_API int porta_pop_region(void);

/** Kokkos' 32-bit device id for tools: device type (the back end: Serial 0,
 *  OpenMP 1, Cuda 2, as Kokkos numbers them) in the top 8 bits, the device
 *  number in the next 7 and the instance in the low 17. Serial instance 0 is 0. */
static inline uint32_t porta_profile_device_id(int backend, uint32_t device, uint32_t instance) {
  return ((uint32_t)backend << 24) | ((device & 0x7fu) << 17) | (instance & 0x1ffffu);
}

PORTA_EXTERN_C_END

#endif /* PORTA_PROFILING_H */
