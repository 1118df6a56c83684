/** @file _exchange_agree.c
 *  porta._exchange: the comparison of arguments between ranks (_exchange_private.h).
 *
 *  Arguments every rank must give alike (a Decomp's cells and rank grid, a halo's depth, a
 *  plan's tag) are compared at construction, at every Halo2D exchange and Plan start (the
 *  depth, the number of fields), and by a global sum whose ranks' counts differ: an
 *  MPI_Allreduce(MAX) of a fixed-size record and of its negation gives every rank the largest
 *  and smallest value of each entry (a short record of 5 entries first, which is all a
 *  per-call agreement reduces; the whole one for a constructor's arguments). Where they differ,
 *  or a rank refused its arguments, an MPI_Allgather of the records (on that path only) lets
 *  every rank raise an exception naming the argument and the value on each rank, instead of
 *  hanging in mismatched messages or running on inconsistent domains.
 */
#include "_exchange_private.h"

#include <stdio.h>
#include <stdlib.h>

/** One more argument: n values (form AGREE_INT: one; AGREE_NONE: none). */
void pyex_agree_add(agreement *a, const char *name, int form, const int64_t *v, int n) {
  if (a->nargs >= AGREE_MAX_ARGS) return;
  int64_t *r = a->rec + AGREE_HEAD + a->nargs * AGREE_WIDTH;
  a->name[a->nargs++] = name;
  r[0] = form;
  r[1] = n;
  for (int k = 0; k < n && k < AGREE_MAX_VALUES; ++k)
    r[2 + k] = v[k] == INT64_MIN ? INT64_MIN + 1 : v[k]; /* negated below */
}

/** Append to `buf` the argument at `r` (form, count, values) as Python would print it. */
static void agree_format(char *buf, size_t size, const int64_t *r) {
  size_t len = strlen(buf);
  const int64_t form = r[0], n = r[1];
  if (form == AGREE_NONE) {
    snprintf(buf + len, size - len, "None");
    return;
  }
  if (form == AGREE_INT) {
    snprintf(buf + len, size - len, "%lld", (long long)r[2]);
    return;
  }
  snprintf(buf + len, size - len, "(");
  for (int64_t k = 0; k < n && k < AGREE_MAX_VALUES; ++k) {
    len = strlen(buf);
    snprintf(buf + len, size - len, "%s%lld", k ? ", " : "", (long long)r[2 + k]);
  }
  len = strlen(buf);
  snprintf(buf + len, size - len, "%s)", n == 1 ? "," : n > AGREE_MAX_VALUES ? ", ..." : "");
}

/** A number for the call `who` names (its first word: Decomp, Halo2D, Halo2D.exchange,
 *  Plan), so that ranks that meet in different collective calls are told apart. */
static int64_t call_id(const char *who) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (const char *c = who; *c && *c != ' '; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return (int64_t)(h >> 2); /* positive: negated in the reduction */
}

/** A ValueError naming the first argument whose values differ between the ranks' records
 *  `all` (nranks of them), each value with the ranks that gave it; or saying which ranks
 *  are in another call. */
static void agree_mismatch(const char *who, const agreement *a, const int64_t *all, int nranks) {
  for (int q = 0; q < nranks; ++q)
    if (all[(size_t)q * AGREE_LEN + 1] != a->rec[1]) {
      PyErr_Format(PyExc_ValueError,
                   "%s: rank %d is in another collective call of porta.exchange (every rank of "
                   "the communicator makes the same calls in the same order)",
                   who, q);
      return;
    }
  int j = 0;
  for (; j < a->nargs; ++j) {
    const int64_t *first = all + AGREE_HEAD + j * AGREE_WIDTH;
    int same = 1;
    for (int q = 1; q < nranks && same; ++q)
      same = !memcmp(first, all + (size_t)q * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH,
                     AGREE_WIDTH * sizeof(int64_t));
    if (!same) break;
  }
  if (j == a->nargs) { /* cannot be: the reduction saw a difference */
    PyErr_Format(PyExc_ValueError, "%s: the ranks' arguments differ", who);
    return;
  }
  char buf[1024] = "";
  int listed = 0;
  char *done = (char *)calloc((size_t)nranks, 1);
  for (int q = 0; q < nranks && done; ++q) {
    if (done[q]) continue;
    const int64_t *v = all + (size_t)q * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH;
    size_t len = strlen(buf);
    if (listed == 4) {
      snprintf(buf + len, sizeof buf - len, "; other values on other ranks");
      break;
    }
    snprintf(buf + len, sizeof buf - len, "%s", listed ? "; " : "");
    agree_format(buf, sizeof buf, v);
    int nq = 0;
    for (int p = q; p < nranks; ++p)
      if (!done[p] && !memcmp(v, all + (size_t)p * AGREE_LEN + AGREE_HEAD + j * AGREE_WIDTH,
                              AGREE_WIDTH * sizeof(int64_t))) {
        done[p] = 1;
        len = strlen(buf);
        if (nq < 4)
          snprintf(buf + len, sizeof buf - len, "%s%d", nq ? ", " : " on rank ", p);
        else if (nq == 4)
          snprintf(buf + len, sizeof buf - len, " ...");
        ++nq;
      }
    ++listed;
  }
  free(done);
  PyErr_Format(PyExc_ValueError,
               "%s: %s is not the same on every rank: %s (every rank of the communicator must "
               "pass the same)",
               who, a->name[j], buf);
}

/** One reduction of the agreement: `len` entries of this rank's record `rec` (its first two
 *  the refusal and the call) against every other rank's. 0: every rank agreed and none
 *  refused; 1: this rank refused (every other rank raises too); -1 with an exception: another
 *  rank refused, a value differs, or MPI failed. Where they differ, the records are gathered
 *  (on that path only) and `a`'s names and forms read them (a small agreement's integers are
 *  spread into full records first). */
static int agree_stage(MPI_Comm comm, const char *who, agreement *a, const int64_t *rec, int len,
                       int refused) {
  int64_t both[2 * AGREE_LEN];
  for (int k = 0; k < len; ++k) {
    both[k] = rec[k];
    both[len + k] = -rec[k];
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allreduce(MPI_IN_PLACE, both, 2 * len, MPI_INT64_T, MPI_MAX, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS) goto mpi_failed;
  const int any_refused = both[0] > 0, all_refused = -both[len] > 0;
  int differ = 0;
  for (int k = 1; k < len; ++k) differ |= both[k] != -both[len + k];
  if (!any_refused && !differ) return 0;
  if (all_refused) return 1; /* each rank raises its own */
  /* every rank takes this path: the reduction's result is the same everywhere */
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  int64_t *got = (int64_t *)malloc((size_t)nranks * len * sizeof(int64_t));
  int64_t *all =
      len == AGREE_LEN ? got : (int64_t *)calloc((size_t)nranks * AGREE_LEN, sizeof(int64_t));
  if (!got || !all) {
    free(got);
    if (all != got) free(all);
    PyErr_NoMemory();
    return -1;
  }
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Allgather(rec, len, MPI_INT64_T, got, len, MPI_INT64_T, comm);
  Py_END_ALLOW_THREADS;
  if (rc != MPI_SUCCESS || refused) {
    free(got);
    if (all != got) free(all);
    if (rc != MPI_SUCCESS) goto mpi_failed;
    return 1;
  }
  if (all != got) /* short records: the head, and a small agreement's integers */
    for (int q = 0; q < nranks; ++q) {
      int64_t *full = all + (size_t)q * AGREE_LEN;
      const int64_t *s = got + (size_t)q * len;
      full[0] = s[0];
      full[1] = s[1];
      for (int j = 0; a->small && j < a->nargs && j < AGREE_SMALL_ARGS; ++j) {
        int64_t *r = full + AGREE_HEAD + j * AGREE_WIDTH;
        r[0] = AGREE_INT;
        r[1] = 1;
        r[2] = s[AGREE_HEAD + j];
      }
    }
  if (any_refused) {
    char ranks[256] = "";
    int nq = 0;
    for (int q = 0; q < nranks; ++q)
      if (all[(size_t)q * AGREE_LEN]) {
        size_t slen = strlen(ranks);
        if (nq < 8) snprintf(ranks + slen, sizeof ranks - slen, "%s%d", nq ? ", " : "", q);
        if (nq == 8) snprintf(ranks + slen, sizeof ranks - slen, " ...");
        ++nq;
      }
    PyErr_Format(PyExc_ValueError,
                 "%s: refused on rank%s %s (the exception there says why); every rank raises", who,
                 nq > 1 ? "s" : "", ranks);
  } else {
    agree_mismatch(who, a, all, nranks);
  }
  if (all != got) free(all);
  free(got);
  return -1;
mpi_failed : {
  char msg[MPI_MAX_ERROR_STRING] = "";
  int mlen = 0;
  MPI_Error_string(rc, msg, &mlen);
  PyErr_Format(pyex_api->error, "%s: comparing the arguments of the ranks failed in MPI: %s", who,
               msg);
  return -1;
}
}

/** Compare this rank's record with every other rank of `comm` (collective; the GIL is
 *  released while MPI waits): first the short record (the refusal, the call and a small
 *  agreement's integers), then, for an agreement that is not small, the whole record. 0:
 *  every rank agreed and none refused; 1: this rank refused (`refused`; its own exception is
 *  the caller's to raise, and every other rank raises too); -1 with an exception: another
 *  rank refused, the values differ, or MPI failed. */
static int agree_run(MPI_Comm comm, const char *who, agreement *a, int refused) {
  if (refused) memset(a->rec, 0, sizeof a->rec);
  a->rec[0] = refused ? 1 : 0;
  a->rec[1] = call_id(who);
  int64_t head[AGREE_SMALL_LEN] = {a->rec[0], a->rec[1]};
  for (int j = 0; a->small && j < a->nargs && j < AGREE_SMALL_ARGS; ++j)
    head[AGREE_HEAD + j] = a->rec[AGREE_HEAD + j * AGREE_WIDTH + 2];
  const int r = agree_stage(comm, who, a, head, AGREE_SMALL_LEN, refused);
  if (r != 0 || a->small) return r;
  return agree_stage(comm, who, a, a->rec, AGREE_LEN, 0);
}

/** agree_run for a C caller whose own checks may have left an exception: it is kept over
 *  the collective and raised again when this rank refused. 0, or -1 with an exception. */
int pyex_agree_after(MPI_Comm comm, const char *who, agreement *a) {
  PyObject *t = NULL, *v = NULL, *tb = NULL;
  const int refused = PyErr_Occurred() != NULL;
  if (refused) PyErr_Fetch(&t, &v, &tb);
  const int r = agree_run(comm, who, a, refused);
  if (r == 1) {
    PyErr_Restore(t, v, tb);
    return -1;
  }
  Py_XDECREF(t);
  Py_XDECREF(v);
  Py_XDECREF(tb);
  return r;
}

/** One argument of agree()'s list: (name, value), the value an int, a tuple or list of ints,
 *  or None. 0, or -1 with an exception. */
static int agree_pair(agreement *a, PyObject *pair) {
  PyObject *name_o, *v;
  if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "UO", &name_o, &v)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "agree: (name, value) pairs");
    return -1;
  }
  const char *name = PyUnicode_AsUTF8AndSize(name_o, NULL); /* lives with the pairs */
  if (!name) return -1;
  if (v == Py_None) {
    pyex_agree_add(a, name, AGREE_NONE, NULL, 0);
    return 0;
  }
  if (PyList_Check(v) || PyTuple_Check(v)) {
    const Py_ssize_t n = PySequence_Size(v);
    int64_t vals[AGREE_MAX_VALUES];
    for (Py_ssize_t k = 0; k < n && k < AGREE_MAX_VALUES; ++k) {
      PyObject *e = PySequence_GetItem(v, k);
      if (!e) return -1;
      vals[k] = PyLong_AsLongLong(e);
      Py_DECREF(e);
      if (vals[k] == -1 && PyErr_Occurred()) return -1;
    }
    pyex_agree_add(a, name, AGREE_TUPLE, vals, (int)n);
    return 0;
  }
  const int64_t x = PyLong_AsLongLong(v);
  if (x == -1 && PyErr_Occurred()) return -1;
  pyex_agree_int(a, name, x);
  return 0;
}

/** agree(comm, who, refused, pairs): compare the arguments `pairs` ((name, value), ...; at
 *  most 8) of this rank with every other rank of comm, in one MPI_Allreduce (collective).
 *  Returns None when every rank agreed, and when this rank `refused` (it raises its own
 *  exception; the other ranks raise too); raises ValueError when another rank refused or a
 *  value differs (naming the argument and each rank's value). */
PyObject *pyex_agree(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *comm_o, *pairs;
  const char *who;
  int refused;
  if (!PyArg_ParseTuple(args, "OspO!", &comm_o, &who, &refused, &PyTuple_Type, &pairs)) return NULL;
  MPI_Comm comm;
  if (pyex_check_mpi(who) < 0 || pyex_comm_from(comm_o, who, 1, &comm) < 0) return NULL;
  agreement a;
  pyex_agree_init(&a);
  const Py_ssize_t n = PyTuple_Size(pairs);
  if (n > AGREE_MAX_ARGS) {
    PyErr_Format(PyExc_ValueError, "agree: at most %d arguments", AGREE_MAX_ARGS);
    return NULL;
  }
  if (refused) { /* this rank raises its own exception: only the others are told here */
    if (agree_run(comm, who, &a, 1) < 0) return NULL;
    Py_RETURN_NONE;
  }
  for (Py_ssize_t k = 0; k < n; ++k) /* a value that is no integer: this rank refuses */
    if (agree_pair(&a, PyTuple_GetItem(pairs, k)) < 0) break;
  if (pyex_agree_after(comm, who, &a) < 0) return NULL;
  Py_RETURN_NONE;
}
