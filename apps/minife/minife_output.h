/** @file minife_output.h
 *  miniFE's reports: the reference's YAML file and the HDF5 result file. */
#ifndef MINIFE_OUTPUT_H
#define MINIFE_OUTPUT_H

#include <mpi.h>

#include "app_common.h"
#include "minife.h"
#include "minife_verify.h"

PORTA_EXTERN_C_BEGIN

/** Everything the reports hold (rank 0's times, as the reference reports them). */
typedef struct minife_report {
  const minife_params *prm;
  const app_run_config *rc;
  int nranks;
  float imbalance_largest, imbalance_std_dev;
  double t_mesh, t_structure, t_assembly, t_dirichlet[2], t_local, t_total;
  int64_t global_rows, global_nnz;
  int64_t rows_min, rows_max, nnz_min, nnz_max;
  double overhead_mb;
  long long rss_all_kb, rss_max_kb; /**< peak resident memory: sum and maximum over ranks */
  const minife_cg_result *cg;
  int verified;                    /**< a verification ran */
  int verify_passed;               /**< ... and passed */
  const minife_verify_result *ver; /**< its figures */
  char date[32];                   /**< "YYYY-MM-DD, HH-MM-SS" */
  char stamp[32];                  /**< "YYYY:MM:DD-HH:MM:SS" for the file name */
} minife_report;

/** Rank 0: write miniFE.NXxNYxNZ.PNP.[name.]STAMP.yaml in the current directory; its name goes
 *  to `path`. Returns a Porta code. */
int minife_write_yaml(const minife_report *r, char *path, size_t pathlen);

/** The run summary: size, CG iterations and time, the bytes per CG iteration by the reference's
 *  count (12 per nonzero + 116 per row), and the verification's verdict (none when the run was
 *  not verified). */
void minife_summary(const minife_report *r, app_summary *s);

/** Collective: the run parameters, sizes, residual history, timings, verification and the
 *  solution on the global node grid (nz+1, ny+1, nx+1) into the open result file. */
int minife_write_h5(app_h5 *h, const minife *m, const minife_report *r);

/** Rank 0: NAME.xmf for ParaView next to NAME.h5. */
int minife_write_xdmf(const char *name, const minife *m);

PORTA_EXTERN_C_END

#endif /* MINIFE_OUTPUT_H */
