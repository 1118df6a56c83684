/** @file app_mpi.h
 *  MPI start-up and shut-down for the Porta mini-apps, and the fatal-error path.
 *
 *  Two ways to stop on an error:
 *  - app_fatal(): something went wrong on *this* rank only (a failed allocation, a Porta error,
 *    an HDF5 failure). It prints one message, prefixed with the program name and the rank,
 *    and calls MPI_Abort, so the other ranks never hang in a collective.
 *  - app_exit_all(): every rank knows the same error (a bad deck, a bad option: the deck text
 *    is broadcast and parsed everywhere). Rank 0 alone prints it, everyone finalises MPI and
 *    exits with the given status, so the job's exit status is reliable.
 */
#ifndef APP_MPI_H
#define APP_MPI_H

#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>

#include "porta/porta.h"

PORTA_EXTERN_C_BEGIN

/** Start MPI (MPI_Init_thread, FUNNELED) and remember the program name for messages; sets
 *  the MPI-IO environment first (app_mpi_io_env). */
int app_mpi_init(int *argc, char ***argv, const char *program);
/** Finalise Porta (if initialised) and MPI. Returns 0. */
int app_mpi_finalize(void);
/** MPI_COMM_WORLD rank and size (valid after app_mpi_init). */
int app_mpi_rank(void);
int app_mpi_size(void);
/** The program name given to app_mpi_init ("app" before). */
const char *app_program_name(void);

/** Print "PROGRAM: rank R: message" to stderr, remove the registered incomplete files
 *  (app_cleanup_run) and MPI_Abort(MPI_COMM_WORLD, 1). Never returns. */
void app_fatal(const char *fmt, ...) PORTA_PRINTF_FORMAT(1, 2) __attribute__((noreturn));
void app_vfatal(const char *fmt, va_list ap) __attribute__((noreturn));

/** The exit status of every app (README, "Exit status"): the same meaning in all three. */
enum app_exit_status {
  APP_EXIT_SUCCESS = 0,    /**< the run completed, and its check (if any) passed */
  APP_EXIT_RUN_FAILED = 1, /**< a run error (I/O, GPU, MPI, a run that blew up) or a failed check */
  APP_EXIT_BAD_INPUT = 2   /**< refused before the run: command line, deck, input file, size */
};

/** Collective exit: rank 0 prints "PROGRAM: message" (when fmt is not NULL) to stderr, every
 *  rank removes the files it still has registered (app_cleanup_run), finalises Porta and MPI
 *  and exits with `status`. Call it on every rank. */
void app_exit_all(int status, const char *fmt, ...) PORTA_PRINTF_FORMAT(2, 3)
    __attribute__((noreturn));

/** Files removed when the run stops before they are complete: a temporary result file is
 *  registered while it is written. A registered file is unlinked when the process receives
 *  SIGINT, SIGTERM or SIGHUP (an async-signal-safe handler, installed by the first
 *  registration; it then re-raises the signal with the action it replaced, so the process still
 *  dies of it; a signal that was ignored stays ignored) and when the process leaves through
 *  app_fatal or app_exit_all. Only the process that created a file registers it (rank 0 for
 *  the HDF5 writer). */
#define APP_CLEANUP_MAX 8
#define APP_CLEANUP_PATH_MAX 4160 /* APP_PATH_MAX and a temporary's ending */
/** Register `path` (copied; a relative name is resolved when it is removed, so the process
 *  must not change its directory meanwhile); returns a slot >= 0, or -1 when the path is
 *  APP_CLEANUP_PATH_MAX characters or longer or every slot is taken (then it is not
 *  registered). */
int app_cleanup_add(const char *path);
/** Forget a registration (the file is complete, renamed or removed); a slot < 0 is ignored. */
void app_cleanup_forget(int slot);
/** Unlink every registered file now and forget them. */
void app_cleanup_run(void);

/** The MPI-IO environment the apps' parallel HDF5 files need, set before the first
 *  MPI_File_open of the process (app_mpi_init and app_h5_create call it): Open MPI's
 *  shared-file-pointer component `lockedfile` is excluded (OMPI_MCA_sharedfp=^lockedfile,
 *  unless the user set OMPI_MCA_sharedfp): it is probed at every file open, even though HDF5
 *  never uses a shared file pointer, and overflows a 256-byte buffer on paths of about 240
 *  characters or more (an abort inside MPI_File_open). */
void app_mpi_io_env(void);

/** The topology environment, set before MPI_Init (app_mpi_init calls it): hwloc's OpenCL
 *  component is excluded (HWLOC_COMPONENTS=-opencl, unless the user set HWLOC_COMPONENTS). The
 *  apps use no OpenCL device, and on a node with PoCL the component starts an OpenCL platform
 *  whose CPU device makes one thread per core: on 64 cores under a `ulimit -v` of 4 GB their
 *  stacks and malloc arenas did not fit, and PoCL aborted ("PTHREAD ERROR in
 *  pthread_scheduler_init()") in the orted a singleton run starts. mpiexec loads the topology
 *  itself, before any rank: start it with HWLOC_COMPONENTS=-opencl there too. */
void app_mpi_topology_env(void);

/** The memory this process may use, in bytes (0: unknown): the smallest of the node's physical
 *  memory, the job's cgroup limit (cgroup v2 `memory.max` of this process's cgroup and its
 *  parents, or cgroup v1 `memory.limit_in_bytes`: Slurm puts a job in one) and the address-space
 *  limit (RLIMIT_AS, `ulimit -v`). `which` (may be NULL) receives what that limit is, with its
 *  file where there is one. The cgroup's limit is shared by the job's ranks on the node, the
 *  other two are not: app_node_memory_share counts them so. */
double app_memory_limit(char *which, size_t n);

/** Collective: the largest share of the memory limits that the ranks would need if each needs
 *  `bytes_per_rank`: their sum over the node's ranks against the node's memory or the job's
 *  cgroup, one rank's need against its address-space limit (0 where no limit is known). Above 1
 *  the run cannot fit: apps refuse it before allocating, rather than being killed by the system
 *  (the OOM killer in a 1.5 GB cgroup) part-way. `which` (may be NULL) receives the limit that
 *  decided, named, with its size. */
double app_node_memory_share(double bytes_per_rank, char *which, size_t n);

/** Collective: as app_node_memory_share for the memory of the device `exec` runs on (0 for a
 *  host back end): the needs of the node's ranks on one device summed against its memory. A run
 *  whose device arrays cannot fit is refused before allocating, with the same message as one
 *  the host cannot hold, rather than by the first allocation that fails. */
double app_device_memory_share(double bytes_per_rank, porta_exec exec, char *which, size_t n);

/** Collective over `comm`: the ranks' codes as one verdict, so that a failure on one rank (an
 *  allocation) stops every rank on the same path, never one while the others wait in a
 *  collective. Returns PORTA_SUCCESS where `rc` is PORTA_SUCCESS on every rank, else the largest
 *  failing code on every rank; a rank that had succeeded records "`what` on another rank" as
 *  the failure of `op` (a failing rank keeps its own message). */
int app_mpi_agree(int rc, const char *op, const char *what, MPI_Comm comm);

/** Check a Porta call: on failure, app_fatal with Porta's message in the user's words
 *  (app_check_fail_). */
#define APP_CHECK(call)                                                                            \
  do {                                                                                             \
    int app_check_rc_ = (call);                                                                    \
    if (app_check_rc_ != PORTA_SUCCESS) app_check_fail_(APP_CHECK_WHERE_(call));                   \
  } while (0)
#ifdef NDEBUG
#define APP_CHECK_WHERE_(call) NULL, NULL, 0
#else
#define APP_CHECK_WHERE_(call) #call, __FILE__, __LINE__
#endif
/** APP_CHECK's failure: app_fatal with porta_last_error_message() as the user reads it. Porta's
 *  "porta: OP('LABEL'): REASON [PORTA_ERROR_...]" (OP a function's name) becomes "REASON", led
 *  by 'LABEL' for a file (PORTA_ERROR_IO: "'res.xmf': cannot write ...: No space left on
 *  device"), with OP (and LABEL) as a trailing detail in brackets; a message whose OP is no
 *  function's name (an option: "--summary-json('x'): ...") is kept as it is, less "porta: " and
 *  the code's name. Debug builds (no NDEBUG) add the C expression and its file and line to the
 *  detail (`call` NULL: none). */
void app_check_fail_(const char *call, const char *file, int line) __attribute__((noreturn));
/** APP_CHECK's message, for a caller that stops otherwise: porta_last_error_message() in the
 *  user's words as above into out, `note` (may be NULL) after what happened ("; note"), before
 *  the bracketed detail. Pass APP_CHECK_WHERE_(call) for the last three arguments. */
void app_error_text(char *out, size_t n, const char *note, const char *call, const char *file,
                    int line);

/** Rank 0 after NAME.h5 is complete (renamed into place) and NAME.xmf could not be written:
 *  app_fatal with the reason (app_error_text: "'NAME.xmf': cannot write the file (...): No
 *  space left on device") and that NAME.h5 is complete and usable without it. NAME.xmf holds no
 *  data: it only indexes NAME.h5 for ParaView (README, "Results in pictures and in
 *  ParaView"). Exit status 1. */
void app_xmf_fatal(const char *name, const char *call, const char *file, int line)
    __attribute__((noreturn));

/** Check an MPI call: on failure, app_fatal with MPI's error string. */
#define APP_MPI_CHECK(call)                                                                        \
  do {                                                                                             \
    int app_mpi_rc_ = (call);                                                                      \
    if (app_mpi_rc_ != MPI_SUCCESS) app_mpi_fail_(app_mpi_rc_, #call, __FILE__, __LINE__);         \
  } while (0)
void app_mpi_fail_(int rc, const char *call, const char *file, int line) __attribute__((noreturn));

struct porta_device_comm; /* porta/exchange_device.h */
/** Whether a solver's iterations on `exec` run as a recorded loop on the device rather than
 *  from the host, from what the core and the exchange library can do: the back end records
 *  loops (porta_loop_records), and on several ranks a device communicator `dc` queues the sums
 *  and exchanges (exact sums too: app_sum_finish_on). `env` (e.g. TEA_DEVICE_LOOP) set to 0 or
 *  1 forces the back end's part either way. */
bool app_loop_wanted(porta_exec exec, const char *env, int nranks,
                     const struct porta_device_comm *dc);
/** Collective over `comm`: a device communicator for the sums and exchanges a solver loop
 *  queues on the GPUs (porta_device_comm_create), or, where it cannot serve on every rank
 *  alike (no NCCL in the build, not a GPU, ranks sharing a GPU), PORTA_SUCCESS with *out NULL
 *  and the reason in why[size]: the host loop then, on every rank. Any other failure is
 *  returned (it need not be every rank's: the caller stops). */
int app_device_comm_try(MPI_Comm comm, porta_exec exec, struct porta_device_comm **out, char *why,
                        size_t size);

PORTA_EXTERN_C_END

#endif /* APP_MPI_H */
