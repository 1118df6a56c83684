/** @file app_summary.h
 *  The run summary every app stores for tools: what ran (app, input, size, back end, ranks,
 *  threads, device, build), how long it took (solve time, time per iteration, a rate and an
 *  effective bandwidth where the app has them) and whether its self-check passed. It is written
 *  as attributes of /summary in the app's HDF5 file and, with --summary-json FILE, as one JSON
 *  object (FILE "-": standard output; /dev/stdout and the like are written into, never
 *  replaced: app_file.h). Tools (scripts/compare-backends, scripts/scaling) read these, never
 * stdout.
 */
#ifndef APP_SUMMARY_H
#define APP_SUMMARY_H

#include <stdint.h>

#include "app_h5.h"
#include "app_report.h"

PORTA_EXTERN_C_BEGIN

/** Verdict of an app's own check of its answer. */
typedef enum app_check {
  APP_CHECK_NONE = -1, /**< the run has nothing to check against */
  APP_CHECK_FAILED = 0,
  APP_CHECK_PASSED = 1
} app_check;

typedef struct app_summary {
  const char *app;            /**< "tealeaf", "minife", "minimd" */
  char input[1024];           /**< the deck's path ("" without one) */
  char size[128];             /**< the problem size in the app's words: "4000x4000 cells" */
  const char *iteration_name; /**< what one iteration is: "cg_iteration", "step" */
  int64_t iterations;         /**< iterations in the timed part */
  double solve_time;          /**< seconds in the timed part (the solver, the MD loop) */
  double total_time;          /**< seconds for the whole program */
  /** Work of one iteration in the units of rate_unit ("atom-steps/s": the atoms); the summary's
   *  rate is work_per_iteration * iterations / solve_time. 0: no rate. */
  double work_per_iteration;
  const char *rate_unit; /**< NULL without a rate */
  /** Bytes one iteration moves by the reference's count; the summary's effective bandwidth is
   *  bytes_per_iteration * iterations / solve_time. 0: not applicable. */
  double bytes_per_iteration;
  app_check check;
  char check_detail[256]; /**< what was checked, with the measured value */
  /** How the halo values travelled, over all ranks (porta_exchange_transport's names joined by
   *  '+', "none" without an exchange): set by app_summary_agree. */
  char exchange[64];
  /** The result file's fields' digest (app_h5.h's digest) in 16 hex digits, "" without a
   *  result file: equal digests, equal fields. Set by app_summary_write_h5. */
  char fields_digest[24];
} app_summary;

/** A summary of `app` with nothing measured yet and no check. */
void app_summary_init(app_summary *s, const char *app);

/** Collective over comm: the times become their maximum over the ranks (so every rank holds
 *  the same summary, as the HDF5 attributes need, and the rate and bandwidth are the slowest
 *  rank's), and `exchange` names every rank's halo transports (rank 0 prints it: "# Halo
 *  exchange: ..."). Returns a Porta code. */
int app_summary_agree(app_summary *s, MPI_Comm comm);

/** Attributes of the group /summary in h (collective over h's communicator), after the fields:
 *  s->fields_digest is set from h's digest first. */
int app_summary_write_h5(app_summary *s, const app_run_config *rc, app_h5 *h);

/** Collective over comm: can rank 0 write the file `path` (app_text_file_probe), and is it
 *  none of the `nkeep` files `keep` (the run's input and results; NULL or "" entries are
 *  skipped), which the summary must not replace? Checked at start-up so that a bad
 *  --summary-json fails before the run, not after it. On every rank, with the same message:
 *  PORTA_ERROR_INVALID_ARGUMENT naming the kept file, or PORTA_ERROR_IO with the OS's reason. */
int app_summary_probe(const char *path, const char *const *keep, int nkeep, MPI_Comm comm);

/** One JSON object in the file `path`, written by rank 0 of MPI_COMM_WORLD (the others return
 *  PORTA_SUCCESS at once) as app_file.h says: a temporary renamed over `path`, or straight into
 *  a device, a FIFO or one of the process's descriptors ("-": standard output). PORTA_ERROR_IO with
 * the file's name when it cannot be written; the file at `path` is then left as it was. */
int app_summary_write_json(const app_summary *s, const app_run_config *rc, const char *path);

PORTA_EXTERN_C_END

#endif /* APP_SUMMARY_H */
