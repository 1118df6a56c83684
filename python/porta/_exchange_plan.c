/** @file _exchange_plan.c
 *  porta._exchange.Plan: an exchange plan over any lists of elements (porta_exchange_create on
 *  the default space), the handle exchange.Plan wraps: its lists (packed int64 bytes from
 *  exchange.py, checked whole before any message), fields that are not one gapless block
 *  (staged through a contiguous copy), start/finish and the counters.
 */
#include "_exchange_private.h"

#include <stdio.h>
#include <stdlib.h>

/** n int64 values from a bytes object (exchange.py packs the lists); NULL with an exception. */
static const int64_t *i64_bytes(PyObject *o, const char *what, Py_ssize_t *n) {
  char *p = NULL;
  Py_ssize_t len = 0;
  if (!PyBytes_Check(o) || PyBytes_AsStringAndSize(o, &p, &len) < 0 || len % 8) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: expected packed int64 values", what);
    return NULL;
  }
  *n = len / 8;
  return (const int64_t *)p;
}

/** How a field that is not one gapless block is exchanged: its elements, numbered in layout
 *  order (dimensions from the largest stride to the smallest, each index increasing: for
 *  x[::2] element k is x[k]), are the plan's offsets. The values sent are gathered into a
 *  contiguous staging view of the field's memory space and the plan runs on it; the values
 *  received are scattered back, at their offsets only (the field's other elements may change
 *  between start and finish). The host does both, so the field must be in memory it reads. */
typedef struct layout {
  int n;                          /**< dimensions of more than one element */
  int64_t extent[PORTA_MAX_RANK]; /**< fastest (smallest stride) first */
  int64_t stride[PORTA_MAX_RANK]; /**< element strides */
} layout;

/** The layout of `m` (its dimensions of extent > 1, by increasing stride); 1 when its
 *  elements are one gapless block in that order (an offset is then the element's distance
 *  from the first: no staging), 0 when they are not but lie apart (a slice: staged), -1
 *  when two elements share memory or the dimensions interleave (refused). */
static int layout_of(const porta_view_meta *m, layout *L) {
  L->n = 0;
  for (int r = 0; r < m->rank; ++r) {
    if (m->extent[r] == 0) return 1; /* no elements */
    if (m->extent[r] == 1) continue;
    int j = L->n++;
    for (; j > 0 && L->stride[j - 1] > m->stride[r]; --j) {
      L->extent[j] = L->extent[j - 1];
      L->stride[j] = L->stride[j - 1];
    }
    L->extent[j] = m->extent[r];
    L->stride[j] = m->stride[r];
  }
  int gapless = 1;
  int64_t next = 1, reach = 0; /* reach: the farthest element of the dimensions so far */
  for (int j = 0; j < L->n; ++j) {
    if (L->stride[j] <= reach) return -1;
    gapless = gapless && L->stride[j] == next;
    next *= L->extent[j];
    reach += (L->extent[j] - 1) * L->stride[j];
  }
  return gapless;
}

/** The element distance from the field's first element of its element `k` in layout order. */
static inline int64_t layout_offset(const layout *L, int64_t k) {
  int64_t off = 0;
  for (int j = 0; j < L->n; ++j) {
    off += (k % L->extent[j]) * L->stride[j];
    k /= L->extent[j];
  }
  return off;
}

/** Copy the elements at `n` offsets between a field (laid out as L) and its staging buffer
 *  (contiguous): to_stage, stage[o] = field[o in layout order], else the reverse. */
static void stage_copy(unsigned char *field, const layout *L, unsigned char *stage, size_t vs,
                       const int64_t *offsets, int64_t n, int to_stage) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t o = offsets[i];
    unsigned char *f = field + (size_t)layout_offset(L, o) * vs, *s = stage + (size_t)o * vs;
    if (to_stage)
      memcpy(s, f, vs);
    else
      memcpy(f, s, vs);
  }
}

typedef struct PlanObject {
  PyObject_HEAD porta_exchange *x;
  MPI_Comm comm; /**< the plan's (mpi4py's; not duplicated): start() agrees over it */
  porta_exec exec;
  size_t value_size;
  int max_fields;
  int started;
  fieldset fs; /**< the exchange in progress */
  /* the offsets as given, for staging strided fields (copies, updated by update()) */
  int64_t *send_index, *recv_index;
  int64_t nsend, nrecv, max_offset; /**< max_offset: -1 when the lists are empty */
  int accumulate;
  porta_view stage[PORTA_EXCHANGE_MAX_FIELDS]; /**< kept for the next exchange */
  layout staged[PORTA_EXCHANGE_MAX_FIELDS];    /**< this exchange's strided fields */
  int is_staged[PORTA_EXCHANGE_MAX_FIELDS];
} PlanObject;

/** The lists from exchange.py's packed bytes: ranks, counts and offsets (int64 each). */
typedef struct lists_buf {
  porta_exchange_lists l;
  int *ranks;
  int64_t nsend, nrecv, max_offset;
} lists_buf;

/** The lists, checked here whole (so that a refusal comes before any message: a plan on a
 *  GPU shakes hands with its neighbours as it is made): counts, offsets not negative, ranks
 *  in the communicator of `nranks` ranks. 0, or -1 with an exception. */
static int lists_get(PyObject *ranks_o, PyObject *sc_o, PyObject *si_o, PyObject *rc_o,
                     PyObject *ri_o, int nranks, const char *who, lists_buf *b) {
  memset(b, 0, sizeof *b);
  Py_ssize_t nr, nsc, nsi, nrc, nri;
  const int64_t *r = i64_bytes(ranks_o, "ranks", &nr);
  const int64_t *sc = r ? i64_bytes(sc_o, "send_counts", &nsc) : NULL;
  const int64_t *si = sc ? i64_bytes(si_o, "send_index", &nsi) : NULL;
  const int64_t *rcv = si ? i64_bytes(rc_o, "recv_counts", &nrc) : NULL;
  const int64_t *ri = rcv ? i64_bytes(ri_o, "recv_index", &nri) : NULL;
  if (!ri) return -1;
  if (nsc != nr || nrc != nr) {
    PyErr_Format(PyExc_ValueError,
                 "%s: ranks has %zd entries, send_counts %zd and recv_counts %zd: one per "
                 "neighbour",
                 who, nr, nsc, nrc);
    return -1;
  }
  int64_t ts = 0, tr = 0;
  for (Py_ssize_t k = 0; k < nr; ++k) {
    if (sc[k] < 0 || rcv[k] < 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: neighbour %zd has a negative count (send %lld, recv %lld)", who, k,
                   (long long)sc[k], (long long)rcv[k]);
      return -1;
    }
    ts += sc[k];
    tr += rcv[k];
  }
  if (ts != nsi || tr != nri) {
    PyErr_Format(PyExc_ValueError,
                 "%s: send_index has %zd offsets and recv_index %zd, but the counts add up to "
                 "%lld and %lld",
                 who, nsi, nri, (long long)ts, (long long)tr);
    return -1;
  }
  int64_t hi = -1;
  for (int side = 0; side < 2; ++side) {
    const int64_t *o = side ? ri : si;
    const Py_ssize_t n = side ? nri : nsi;
    for (Py_ssize_t k = 0; k < n; ++k) {
      if (o[k] < 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s[%zd] is %lld, a negative offset", who,
                     side ? "recv_index" : "send_index", k, (long long)o[k]);
        return -1;
      }
      if (o[k] > hi) hi = o[k];
    }
  }
  for (Py_ssize_t k = 0; k < nr; ++k)
    if (r[k] < 0 || r[k] >= nranks) {
      PyErr_Format(PyExc_ValueError, "%s: ranks[%zd] is %lld, but the communicator has ranks 0..%d",
                   who, k, (long long)r[k], nranks - 1);
      return -1;
    }
  b->ranks = (int *)malloc((size_t)(nr > 0 ? nr : 1) * sizeof(int));
  if (!b->ranks) {
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t k = 0; k < nr; ++k) b->ranks[k] = (int)r[k];
  b->l.nneighbours = (int)nr;
  b->l.ranks = b->ranks;
  b->l.send_count = sc;
  b->l.send_index = si;
  b->l.recv_count = rcv;
  b->l.recv_index = ri;
  b->nsend = nsi;
  b->nrecv = nri;
  b->max_offset = hi;
  return 0;
}

/** Copies of the lists' offsets (send, then receive), for staging: NULL with an exception. */
static int64_t *lists_copy(const lists_buf *b) {
  int64_t *s = (int64_t *)malloc((size_t)(b->nsend + b->nrecv + 1) * sizeof(int64_t));
  if (!s) {
    PyErr_NoMemory();
    return NULL;
  }
  if (b->nsend) memcpy(s, b->l.send_index, (size_t)b->nsend * sizeof(int64_t));
  if (b->nrecv) memcpy(s + b->nsend, b->l.recv_index, (size_t)b->nrecv * sizeof(int64_t));
  return s;
}

/** The plan's copies of its lists become `s` (from lists_copy(b)). */
static void plan_keep_lists(PlanObject *o, const lists_buf *b, int64_t *s) {
  free(o->send_index);
  o->send_index = s;
  o->recv_index = s + b->nsend;
  o->nsend = b->nsend;
  o->nrecv = b->nrecv;
  o->max_offset = b->max_offset;
}

/** The arguments of Plan() and plan_check(), checked. 0, or -1 with an exception. */
static int plan_args(PyObject *args, PyObject *kw, MPI_Comm *comm, lists_buf *b,
                     Py_ssize_t *value_size, int *max_fields, int *tag, const char **label) {
  static char *names[] = {"comm",        "ranks",      "send_counts", "send_index",
                          "recv_counts", "recv_index", "value_size",  "max_fields",
                          "tag",         "label",      NULL};
  PyObject *comm_o, *r_o, *sc_o, *si_o, *rc_o, *ri_o;
  *value_size = 8;
  *max_fields = 1;
  *tag = 0;
  *label = "plan";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOO|niis", names, &comm_o, &r_o, &sc_o, &si_o,
                                   &rc_o, &ri_o, value_size, max_fields, tag, label))
    return -1;
  if (pyex_check_ready("Plan") < 0 || pyex_comm_from(comm_o, "Plan", 1, comm) < 0) return -1;
  if (*value_size < 4 || *value_size % 4) {
    PyErr_Format(PyExc_ValueError, "Plan %s: value_size %zd is not a positive multiple of 4",
                 *label, *value_size);
    return -1;
  }
  if (*max_fields < 1 || *max_fields > PORTA_EXCHANGE_MAX_FIELDS) {
    PyErr_Format(PyExc_ValueError, "Plan %s: max_fields %d is outside 1..%d", *label, *max_fields,
                 PORTA_EXCHANGE_MAX_FIELDS);
    return -1;
  }
  if (*tag < 0) {
    PyErr_Format(PyExc_ValueError, "Plan %s: tag %d is negative", *label, *tag);
    return -1;
  }
  int nranks = 0;
  MPI_Comm_size(*comm, &nranks);
  char who[96];
  snprintf(who, sizeof who, "Plan %s", *label);
  return lists_get(r_o, sc_o, si_o, rc_o, ri_o, nranks, who, b);
}

/** plan_check(...): Plan's checks alone, nothing made (exchange.py makes them on every rank
 *  before the ranks compare their arguments, and only then the plan). */
PyObject *pyex_plan_check(PyObject *self, PyObject *args, PyObject *kw) {
  (void)self;
  MPI_Comm comm;
  lists_buf b;
  Py_ssize_t value_size;
  int max_fields, tag;
  const char *label;
  if (plan_args(args, kw, &comm, &b, &value_size, &max_fields, &tag, &label) < 0) return NULL;
  free(b.ranks);
  Py_RETURN_NONE;
}

/** h with one more count folded in (FNV-1a): a number for a sequence of counts. */
static int64_t counts_hash(int64_t h, int64_t count) {
  return (int64_t)(((uint64_t)h ^ (uint64_t)count) * 1099511628211ull) & INT64_MAX;
}

/** Whether every pair of ranks agrees on what goes between them: what rank p's lists send to
 *  rank q (the number of messages, values, and the counts in order; an entry of no values
 *  sends none) is what q's lists receive from p. One MPI_Alltoall of 3 int64 per rank and one
 * MPI_Allreduce of one (collective over comm, at construction only); where a pair differs, its
 * receiving rank's view goes to every rank (MPI_Bcast), which raises the same ValueError naming
 * both ranks and their counts, instead of a truncated message or a wait for ever. 0, or -1 with an
 * exception. */
static int plan_pairs_agree(MPI_Comm comm, const char *who, const lists_buf *b) {
  int nranks = 1, me = 0;
  MPI_Comm_size(comm, &nranks);
  MPI_Comm_rank(comm, &me);
  int64_t *buf = (int64_t *)calloc((size_t)nranks * 9, sizeof(int64_t));
  if (!buf) {
    PyErr_NoMemory();
    return -1;
  }
  int64_t *out = buf, *in = buf + 3 * (size_t)nranks, *want = buf + 6 * (size_t)nranks;
  for (int k = 0; k < b->l.nneighbours; ++k) { /* an entry of no values sends no message */
    int64_t *o = out + 3 * (size_t)b->ranks[k], *w = want + 3 * (size_t)b->ranks[k];
    const int64_t sc = b->l.send_count[k], rcv = b->l.recv_count[k];
    if (sc > 0) {
      o[0] += 1;
      o[1] += sc;
      o[2] = counts_hash(o[2], sc);
    }
    if (rcv > 0) {
      w[0] += 1;
      w[1] += rcv;
      w[2] = counts_hash(w[2], rcv);
    }
  }
  int rc;
  int64_t first = (int64_t)nranks * nranks; /* the pair (from, to) as from * nranks + to */
  int64_t seen[6] = {0}; /* the receiving rank's: sent entries, values, hash; received ... */
  Py_BEGIN_ALLOW_THREADS;
  rc = MPI_Alltoall(out, 3, MPI_INT64_T, in, 3, MPI_INT64_T, comm);
  if (rc == MPI_SUCCESS) {
    for (int q = 0; q < nranks; ++q)
      if (memcmp(in + 3 * (size_t)q, want + 3 * (size_t)q, 3 * sizeof(int64_t))) {
        first = (int64_t)q * nranks + me;
        break;
      }
    rc = MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, comm);
  }
  if (rc == MPI_SUCCESS && first < (int64_t)nranks * nranks) {
    const int from = (int)(first / nranks), to = (int)(first % nranks);
    if (me == to) {
      memcpy(seen, in + 3 * (size_t)from, 3 * sizeof(int64_t));
      memcpy(seen + 3, want + 3 * (size_t)from, 3 * sizeof(int64_t));
    }
    rc = MPI_Bcast(seen, 6, MPI_INT64_T, to, comm);
  }
  Py_END_ALLOW_THREADS;
  free(buf);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    PyErr_Format(pyex_api->error, "%s: comparing the ranks' counts failed in MPI: %s", who, msg);
    return -1;
  }
  if (first == (int64_t)nranks * nranks) return 0;
  const int from = (int)(first / nranks), to = (int)(first % nranks);
  PyErr_Format(PyExc_ValueError,
               "%s: rank %d sends %lld value%s to rank %d in %lld message%s, but rank %d receives "
               "%lld value%s from rank %d in %lld message%s%s (send_counts and recv_counts "
               "must match between the ranks, entry by entry in the same order)",
               who, from, (long long)seen[1], seen[1] == 1 ? "" : "s", to, (long long)seen[0],
               seen[0] == 1 ? "" : "s", to, (long long)seen[4], seen[4] == 1 ? "" : "s", from,
               (long long)seen[3], seen[3] == 1 ? "" : "s",
               seen[0] == seen[3] && seen[1] == seen[4] ? ", with other counts per entry" : "");
  return -1;
}

/** Plan(comm, ranks, send_counts, send_index, recv_counts, recv_index, value_size, max_fields,
 *  tag, label): porta_exchange_create on the default space; the lists are packed int64 bytes
 *  (exchange.py). */
static PyObject *Plan_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  MPI_Comm comm;
  lists_buf b;
  Py_ssize_t value_size;
  int max_fields, tag;
  const char *label;
  if (plan_args(args, kw, &comm, &b, &value_size, &max_fields, &tag, &label) < 0) return NULL;
  char who[96];
  snprintf(who, sizeof who, "Plan %s", label);
  if (plan_pairs_agree(comm, who, &b) < 0) { /* every rank gets here (exchange.py agreed) */
    free(b.ranks);
    return NULL;
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  PlanObject *self = (PlanObject *)alloc(tp, 0);
  if (!self) {
    free(b.ranks);
    return NULL;
  }
  self->comm = comm;
  self->exec = porta_exec_default();
  self->value_size = (size_t)value_size;
  self->max_fields = max_fields;
  int64_t *copy = lists_copy(&b);
  if (!copy) {
    free(b.ranks);
    Py_DECREF(self);
    return NULL;
  }
  plan_keep_lists(self, &b, copy);
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_create(&self->x, label, comm, &b.l, (size_t)value_size, max_fields,
                             self->exec, tag);
  Py_END_ALLOW_THREADS;
  free(b.ranks);
  if (rc != PORTA_SUCCESS) {
    self->x = NULL;
    Py_DECREF(self);
    return pyex_raise_rc(rc, "Plan");
  }
  return (PyObject *)self;
}

static int plan_live(PlanObject *o) {
  if (o->x) return 0;
  PyErr_SetString(PyExc_ValueError, "Plan: closed");
  return -1;
}

/** The view the plan runs on for field k: the field itself when it is one gapless block,
 *  else its staging view (made or grown here), with is_staged[k] and staged[k] set. 0, or -1
 *  with an exception. */
static int plan_field(PlanObject *o, int k, const porta_view *v, porta_view *out) {
  const char *who = "Plan.start";
  o->is_staged[k] = 0;
  *out = *v;
  if (o->max_offset < 0) return 0; /* empty lists: nothing read or written */
  layout *L = &o->staged[k];
  const int kind = layout_of(&v->m, L);
  if (kind == 1) { /* the core's check, made before the ranks agree so that all raise */
    const int64_t span = porta_view_meta_span_bytes(&v->m) / (int64_t)o->value_size;
    if (o->max_offset < span) return 0;
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d has %u-byte values and spans %lld; the plan needs %zu-byte values "
                 "and offsets up to %lld",
                 who, k, (unsigned)v->m.value_size, (long long)span, o->value_size,
                 (long long)o->max_offset);
    return -1;
  }
  if (kind < 0) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d's elements overlap or its dimensions interleave (strides of "
                 "%lld, %lld, ... elements); pass a copy (numpy.ascontiguousarray)",
                 who, k, (long long)v->m.stride[0], (long long)v->m.stride[1]);
    return -1;
  }
  const porta_memory_space space = (porta_memory_space)v->m.space;
  if (!porta_space_accessible(PORTA_BACKEND_SERIAL, space)) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d is not contiguous (strides of %lld, %lld, ... elements) and in "
                 "%s memory, which the host cannot read to stage it: pass a contiguous array",
                 who, k, (long long)v->m.stride[0], (long long)v->m.stride[1],
                 porta_memory_space_name(space));
    return -1;
  }
  const int64_t size = porta_view_meta_size(&v->m);
  if (o->max_offset >= size) {
    PyErr_Format(PyExc_ValueError,
                 "%s: field %d has %lld elements; the plan needs offsets up to %lld", who, k,
                 (long long)size, (long long)o->max_offset);
    return -1;
  }
  porta_view *s = &o->stage[k];
  const int64_t need = o->max_offset + 1;
  if (s->data && ((porta_memory_space)s->m.space != space || s->m.extent[0] < need ||
                  s->m.value_size != v->m.value_size))
    porta_view_release(s);
  if (!s->data && need > 0) {
    porta_view_options opt;
    memset(&opt, 0, sizeof opt);
    opt.space = space;
    opt.layout = PORTA_LAYOUT_RIGHT;
    opt.flags = PORTA_VIEW_UNINITIALIZED;
    const int rc =
        porta_view_create(s, "plan_stage", (porta_type)v->m.type, v->m.value_size, 1, &need, &opt);
    if (rc != PORTA_SUCCESS) {
      memset(s, 0, sizeof *s);
      pyex_raise_rc(rc, who);
      return -1;
    }
  }
  o->is_staged[k] = 1;
  *out = *s;
  return 0;
}

/** Gather (to_stage) the values at `offsets` of every staged field of the exchange. */
static void plan_stage(PlanObject *o, const int64_t *offsets, int64_t n, int to_stage) {
  for (int k = 0; k < o->fs.n; ++k)
    if (o->is_staged[k])
      stage_copy((unsigned char *)o->fs.v[k].data, &o->staged[k], (unsigned char *)o->stage[k].data,
                 o->value_size, offsets, n, to_stage);
}

/** start(fields). Every start compares the number of fields between the ranks of the plan's
 *  communicator, and tells a rank's refusal of its fields to the others (one MPI_Allreduce of
 *  10 int64), so that ranks that differ raise together instead of sending messages of other
 *  sizes than the neighbour receives. */
static PyObject *Plan_start(PyObject *self, PyObject *seq) {
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0 || pyex_check_ready("Plan.start") < 0) return NULL;
  fieldset fs;
  int got = 0;
  if (o->started)
    PyErr_SetString(PyExc_RuntimeError, "Plan.start: an exchange is in progress (finish() it)");
  else
    got = pyex_fields_get(seq, o->max_fields, o->value_size, 0, o->nrecv > 0, o->exec, "Plan.start",
                          &fs) == 0;
  porta_view run[PORTA_EXCHANGE_MAX_FIELDS];
  int staging = 0;
  for (int k = 0; got && k < fs.n; ++k) { /* a refusal: told at the agreement */
    if (plan_field(o, k, &fs.v[k], &run[k]) < 0) break;
    staging |= o->is_staged[k];
  }
  agreement a;
  pyex_agree_init_small(&a);
  pyex_agree_int(&a, "the number of fields", got ? fs.n : 0);
  if (pyex_agree_after(o->comm, "Plan.start", &a) < 0) {
    if (got) pyex_fields_release(&fs);
    return NULL;
  }
  o->fs = fs; /* held until finish */
  int rc = PORTA_SUCCESS;
  Py_BEGIN_ALLOW_THREADS;
  if (staging) { /* kernels that wrote the fields are done before the host reads them */
    rc = porta_exec_fence(o->exec, "Plan.start");
    if (rc == PORTA_SUCCESS) plan_stage(o, o->send_index, o->nsend, 1);
  }
  if (rc == PORTA_SUCCESS) rc = porta_exchange_start(o->x, run, fs.n);
  Py_END_ALLOW_THREADS;
  if (rc != PORTA_SUCCESS) {
    pyex_fields_release(&o->fs);
    return pyex_raise_rc(rc, "Plan.start");
  }
  o->started = 1;
  Py_RETURN_NONE;
}

static PyObject *Plan_finish(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0 || pyex_check_ready("Plan.finish") < 0) return NULL;
  if (!o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.finish: no exchange in progress (start() first)");
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  /* an adding unpack adds to the fields' values as they are now */
  if (o->accumulate) plan_stage(o, o->recv_index, o->nrecv, 1);
  rc = porta_exchange_finish(o->x);
  if (rc == PORTA_SUCCESS) rc = porta_exec_fence(o->exec, "Plan.finish");
  if (rc == PORTA_SUCCESS) plan_stage(o, o->recv_index, o->nrecv, 0);
  Py_END_ALLOW_THREADS;
  o->started = 0;
  pyex_fields_release(&o->fs);
  if (rc != PORTA_SUCCESS) return pyex_raise_rc(rc, "Plan.finish");
  Py_RETURN_NONE;
}

static PyObject *Plan_run(PyObject *self, PyObject *seq) {
  PyObject *r = Plan_start(self, seq);
  if (!r) return NULL;
  Py_DECREF(r);
  return Plan_finish(self, NULL);
}

static PyObject *Plan_set_accumulate(PyObject *self, PyObject *on) {
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  const int t = PyObject_IsTrue(on);
  if (t < 0) return NULL;
  const int rc = porta_exchange_set_accumulate(o->x, t);
  if (rc != PORTA_SUCCESS) return pyex_raise_rc(rc, "Plan.set_accumulate");
  o->accumulate = t;
  Py_RETURN_NONE;
}

static PyObject *Plan_update(PyObject *self, PyObject *args) {
  PlanObject *o = (PlanObject *)self;
  PyObject *r_o, *sc_o, *si_o, *rc_o, *ri_o;
  if (!PyArg_ParseTuple(args, "OOOOO", &r_o, &sc_o, &si_o, &rc_o, &ri_o)) return NULL;
  if (plan_live(o) < 0 || pyex_check_ready("Plan.update") < 0) return NULL;
  if (o->started) {
    PyErr_SetString(PyExc_RuntimeError, "Plan.update: an exchange is in progress (finish() it)");
    return NULL;
  }
  /* the plan's communicator: its size bounds the ranks (the core checks them against it) */
  lists_buf b;
  if (lists_get(r_o, sc_o, si_o, rc_o, ri_o, 0x7fffffff, "Plan.update", &b) < 0) return NULL;
  int64_t *copy = lists_copy(&b);
  if (!copy) {
    free(b.ranks);
    return NULL;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_exchange_update(o->x, &b.l);
  Py_END_ALLOW_THREADS;
  free(b.ranks);
  if (rc != PORTA_SUCCESS) {
    free(copy);
    return pyex_raise_rc(rc, "Plan.update");
  }
  plan_keep_lists(o, &b, copy);
  Py_RETURN_NONE;
}

static PyObject *Plan_transport(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  return PyUnicode_FromString(porta_exchange_transport(o->x));
}

static PyObject *Plan_stats(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  int64_t m = 0, b = 0;
  porta_exchange_stats(o->x, &m, &b);
  return Py_BuildValue("(LL)", (long long)m, (long long)b);
}

static PyObject *Plan_totals(PyObject *self, PyObject *unused) {
  (void)unused;
  PlanObject *o = (PlanObject *)self;
  if (plan_live(o) < 0) return NULL;
  return Py_BuildValue("(LL)", (long long)porta_exchange_send_total(o->x),
                       (long long)porta_exchange_recv_total(o->x));
}

static void Plan_close_(PlanObject *o) {
  const int ok = pyex_can_free();
  if (o->x) {
    if (o->started && ok) {
      Py_BEGIN_ALLOW_THREADS;
      porta_exchange_finish(o->x); /* messages in flight must land before the buffers go */
      porta_exec_fence(o->exec, "Plan.close");
      Py_END_ALLOW_THREADS;
    }
    o->started = 0;
    pyex_fields_release(&o->fs);
    if (ok) porta_exchange_destroy(o->x); /* after MPI_Finalize or porta_finalize: left */
    o->x = NULL;
  }
  for (int k = 0; k < PORTA_EXCHANGE_MAX_FIELDS; ++k)
    if (o->stage[k].data) {
      if (ok) porta_view_release(&o->stage[k]);
      memset(&o->stage[k], 0, sizeof o->stage[k]);
    }
  free(o->send_index);
  o->send_index = o->recv_index = NULL;
}

static PyObject *Plan_close(PyObject *self, PyObject *unused) {
  (void)unused;
  Plan_close_((PlanObject *)self);
  Py_RETURN_NONE;
}

static void Plan_dealloc(PyObject *self) {
  Plan_close_((PlanObject *)self);
  PyTypeObject *tp = Py_TYPE(self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyMethodDef plan_methods[] = {
    {"start", Plan_start, METH_O, "start(fields): porta_exchange_start."},
    {"finish", Plan_finish, METH_NOARGS, "porta_exchange_finish, then a fence."},
    {"run", Plan_run, METH_O, "run(fields): start + finish."},
    {"set_accumulate", Plan_set_accumulate, METH_O, "porta_exchange_set_accumulate."},
    {"update", Plan_update, METH_VARARGS, "porta_exchange_update (packed lists)."},
    {"transport", Plan_transport, METH_NOARGS, "porta_exchange_transport."},
    {"stats", Plan_stats, METH_NOARGS, "(messages, bytes): porta_exchange_stats."},
    {"totals", Plan_totals, METH_NOARGS, "(send_total, recv_total) values per field."},
    {"close", Plan_close, METH_NOARGS, "porta_exchange_destroy."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot plan_slots[] = {{Py_tp_new, Plan_new},
                                   {Py_tp_dealloc, Plan_dealloc},
                                   {Py_tp_methods, plan_methods},
                                   {Py_tp_doc, "porta_exchange (a handle for porta.exchange)."},
                                   {0, NULL}};
PyType_Spec pyex_plan_spec = {"porta._exchange.Plan", sizeof(PlanObject), 0, Py_TPFLAGS_DEFAULT,
                              plan_slots};
