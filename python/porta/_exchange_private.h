/** @file _exchange_private.h
 *  What the files of porta._exchange share (_exchange.c: the module, MPI and Porta readiness,
 *  communicators, global sums; _exchange_agree.c: the comparison of arguments between ranks;
 *  _exchange_fields.c: fields read through porta._core; _exchange_decomp.c: Decomp;
 *  _exchange_halo.c: Halo2D; _exchange_plan.c: Plan). Private to the extension.
 */
#ifndef PORTA_PY_EXCHANGE_PRIVATE_H
#define PORTA_PY_EXCHANGE_PRIVATE_H

#include "_array_api.h" /* first: Python.h before any system header */

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "porta/exchange.h"

/* ---- the module (_exchange.c) ---- */

/** porta._core's array API, imported when the module is. */
extern const porta_py_array_api *pyex_api;

/** An exception for a failed Porta call: bad arguments are ValueErrors, the rest
 *  porta.PortaError; the message is Porta's. NULL. */
PyObject *pyex_raise_rc(int rc, const char *what);

/** 0 when MPI is initialised and not finalised, else -1 with an exception. */
int pyex_check_mpi(const char *what);

/** 0 when MPI is initialised and not finalised and Porta is initialised, else -1 with an
 *  exception. */
int pyex_check_ready(const char *what);

/** MPI and Porta can still be called (for destructors, which may run after either ends). */
int pyex_can_free(void);

/** The communicator of the mpi4py communicator `o` (`intra`: an intercommunicator is
 *  refused). 0, or -1 with an exception (TypeError for anything but an mpi4py communicator). */
int pyex_comm_from(PyObject *o, const char *who, int intra, MPI_Comm *comm);

/* ---- agreement between ranks (_exchange_agree.c) ---- */

#define AGREE_MAX_ARGS 8
#define AGREE_MAX_VALUES 4 /* a tuple's entries compared (global_cells and dims have 1..3) */
#define AGREE_WIDTH (2 + AGREE_MAX_VALUES) /* per argument: form, count, values */
#define AGREE_HEAD 2 /* [0]: this rank refused (0 or 1); [1]: which call (a hash of its name) */
#define AGREE_LEN (AGREE_HEAD + AGREE_MAX_ARGS * AGREE_WIDTH)
#define AGREE_SMALL_ARGS 3 /* integers of a per-call agreement (agreement.small) */
#define AGREE_SMALL_LEN (AGREE_HEAD + AGREE_SMALL_ARGS)

enum { AGREE_INT = 1, AGREE_TUPLE = 2, AGREE_NONE = 3 };

/** The arguments a rank compares with the other ranks: a record of the same length on every
 *  rank, whatever nargs. Every agreement first reduces a short record (AGREE_SMALL_LEN: the
 *  refusal, the call, and a small agreement's integers), so that ranks in different calls
 *  always meet in reductions of one length; an agreement that is not `small` then reduces the
 *  whole record. */
typedef struct agreement {
  int nargs;
  int small; /**< at most AGREE_SMALL_ARGS integers (pyex_agree_int): one short reduction */
  const char *name[AGREE_MAX_ARGS];
  int64_t rec[AGREE_LEN];
} agreement;

static inline void pyex_agree_init(agreement *a) { memset(a, 0, sizeof *a); }

/** An agreement of at most AGREE_SMALL_ARGS integers, for calls made again and again (an
 *  exchange, a plan's start): one MPI_Allreduce of 2 AGREE_SMALL_LEN int64. */
static inline void pyex_agree_init_small(agreement *a) {
  memset(a, 0, sizeof *a);
  a->small = 1;
}

/** One more argument: n values (form AGREE_INT: one; AGREE_NONE: none). */
void pyex_agree_add(agreement *a, const char *name, int form, const int64_t *v, int n);

static inline void pyex_agree_int(agreement *a, const char *name, int64_t v) {
  pyex_agree_add(a, name, AGREE_INT, &v, 1);
}

/** Compare `a` with every other rank of `comm` (collective) for a C caller whose own checks
 *  may have left an exception: it is kept over the collective and raised again when this
 *  rank refused. 0, or -1 with an exception (on every rank where one refused or the values
 *  differ). */
int pyex_agree_after(MPI_Comm comm, const char *who, agreement *a);

/** agree(comm, who, refused, pairs): the module function (exchange.py's _collective). */
PyObject *pyex_agree(PyObject *self, PyObject *args);

/* ---- fields (_exchange_fields.c) ---- */

/** Fields read through porta._core: views, their holds and the Python objects, held while
 *  a plan's exchange is in progress. */
typedef struct fieldset {
  int n;
  porta_view v[PORTA_EXCHANGE_MAX_FIELDS];
  void *hold[PORTA_EXCHANGE_MAX_FIELDS];
  PyObject *obj[PORTA_EXCHANGE_MAX_FIELDS];
} fieldset;

/** Read the sequence `seq` into fs: every field of `value_size`-byte elements (f64_2d: 2D
 *  float64), writable when `writes` (the exchange stores into it), in memory `exec` reaches.
 *  0, or -1 with an exception. */
int pyex_fields_get(PyObject *seq, int max, size_t value_size, int f64_2d, int writes,
                    porta_exec exec, const char *who, fieldset *fs);

/** Give back the fields (their holds and objects); fs is left empty. */
void pyex_fields_release(fieldset *fs);

/* ---- the types (_exchange_decomp.c, _exchange_halo.c, _exchange_plan.c) ---- */

typedef struct DecompObject {
  PyObject_HEAD porta_decomp d;
} DecompObject;

extern PyTypeObject *pyex_decomp_type; /**< porta._exchange.Decomp, set by the module */
extern PyType_Spec pyex_decomp_spec;
extern PyType_Spec pyex_halo_spec;
extern PyType_Spec pyex_plan_spec;

/** plan_check(...): Plan's argument checks, nothing made (the module function). */
PyObject *pyex_plan_check(PyObject *self, PyObject *args, PyObject *kw);

#endif /* PORTA_PY_EXCHANGE_PRIVATE_H */
