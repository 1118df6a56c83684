/** @file _exchange_halo.c
 *  porta._exchange.Halo2D: halo exchanges of 2D float64 fields over a Decomp
 *  (porta_halo2d_create on the default space), the handle exchange.Halo2D wraps. Every
 *  exchange, and prepare(), compare their arguments between the ranks (_exchange_agree.c).
 */
#include "_exchange_private.h"

#include <stdlib.h>

typedef struct HaloObject {
  PyObject_HEAD porta_halo2d h;
  int live;
} HaloObject;

/** Halo2D(decomp, halo, x_dim, max_fields, tag, every): porta_halo2d_create on the default
 *  space. Local: exchange.py compares the arguments between the ranks (agree()). `every`
 *  (check_every_exchange) is accepted and compared but changes nothing: every exchange is
 *  compared. */
static PyObject *Halo_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  static char *names[] = {"decomp", "halo", "x_dim", "max_fields", "tag", "every", NULL};
  PyObject *d_o;
  int halo = 1, x_dim = 1, max_fields = 1, tag = 1000, every = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|iiiip", names, pyex_decomp_type, &d_o, &halo,
                                   &x_dim, &max_fields, &tag, &every))
    return NULL;
  if (pyex_check_ready("Halo2D") < 0) return NULL;
  if (tag < 0) {
    PyErr_Format(PyExc_ValueError, "Halo2D: tag %d is negative", tag);
    return NULL;
  }
  allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
  HaloObject *self = (HaloObject *)alloc(tp, 0);
  if (!self) return NULL;
  const int rc = porta_halo2d_create(&self->h, &((DecompObject *)d_o)->d, halo, x_dim, max_fields,
                                     porta_exec_default());
  if (rc != PORTA_SUCCESS) {
    Py_DECREF(self);
    return pyex_raise_rc(rc, "Halo2D");
  }
  self->live = 1;
  self->h.tag = tag;
  return (PyObject *)self;
}

static int halo_live(HaloObject *o) {
  if (o->live) return 0;
  PyErr_SetString(PyExc_ValueError, "Halo2D: closed");
  return -1;
}

static void Halo_close_(HaloObject *o) {
  if (o->live && pyex_can_free()) porta_halo2d_destroy(&o->h);
  o->live = 0;
}

static PyObject *Halo_close(PyObject *self, PyObject *unused) {
  (void)unused;
  Halo_close_((HaloObject *)self);
  Py_RETURN_NONE;
}

/** The checks porta_halo2d_exchange makes before it sends anything (depth, extents, strides,
 *  the neighbours' shares), made here first so that a refusal can be told to the other ranks
 *  at an agreement: 0, or -1 with an exception. */
static int halo_check(const HaloObject *o, const fieldset *fs, int depth, const char *who) {
  const porta_halo2d *h = &o->h;
  if (depth < 1 || depth > h->halo) {
    PyErr_Format(PyExc_ValueError, "%s: depth %d outside 1..%d (the fields' ghost layers)", who,
                 depth, h->halo);
    return -1;
  }
  const int64_t ex = h->d.local[0] + 2 * h->halo, ey = h->d.local[1] + 2 * h->halo;
  const int64_t e0 = h->x_dim == 0 ? ex : ey, e1 = h->x_dim == 0 ? ey : ex;
  const int64_t *s0 = h->built ? h->stride : fs->v[0].m.stride;
  for (int k = 0; k < fs->n; ++k) {
    const porta_view_meta *m = &fs->v[k].m;
    if (m->extent[0] < e0 || m->extent[1] < e1) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %d has extents %lld x %lld; this rank's halo needs at least %lld x "
                   "%lld (%lld x %lld cells, %d ghost layers each side, x is dimension %d)",
                   who, k, (long long)m->extent[0], (long long)m->extent[1], (long long)e0,
                   (long long)e1, (long long)h->d.local[0], (long long)h->d.local[1], h->halo,
                   h->x_dim);
      return -1;
    }
    if (m->stride[0] != s0[0] || m->stride[1] != s0[1]) {
      PyErr_Format(PyExc_ValueError,
                   "%s: field %d has strides %lld x %lld (elements), the halo's plans are for "
                   "%lld x %lld: every field of one Halo2D has the layout of the first exchanged",
                   who, k, (long long)m->stride[0], (long long)m->stride[1], (long long)s0[0],
                   (long long)s0[1]);
      return -1;
    }
  }
  for (int dim = 0; dim < 2; ++dim)
    if (h->d.dims[dim] > 1 && h->d.global[dim] / h->d.dims[dim] < depth) {
      PyErr_Format(PyExc_ValueError,
                   "%s: depth %d is more than the %lld cells some rank owns along %c", who, depth,
                   (long long)(h->d.global[dim] / h->d.dims[dim]), "xy"[dim]);
      return -1;
    }
  return 0;
}

/** exchange(fields, depth). Every exchange compares the depth and the number of fields
 *  between the ranks of the decomposition, and tells a rank's refusal to the others (one
 *  MPI_Allreduce of 10 int64), so that ranks that differ raise together instead of waiting
 *  for messages that do not come. */
static PyObject *Halo_exchange(PyObject *self, PyObject *args) {
  HaloObject *o = (HaloObject *)self;
  PyObject *seq;
  int depth = 1;
  if (!PyArg_ParseTuple(args, "O|i", &seq, &depth)) return NULL;
  if (halo_live(o) < 0 || pyex_check_ready("Halo2D.exchange") < 0) return NULL;
  fieldset fs;
  const int got =
      pyex_fields_get(seq, o->h.max_fields, 8, 1, 1, o->h.exec, "Halo2D.exchange", &fs) == 0;
  if (got) halo_check(o, &fs, depth, "Halo2D.exchange"); /* a refusal: told at the agreement */
  agreement a;
  pyex_agree_init_small(&a);
  pyex_agree_int(&a, "depth", depth);
  pyex_agree_int(&a, "the number of fields", got ? fs.n : 0);
  if (pyex_agree_after(o->h.d.comm, "Halo2D.exchange", &a) < 0) {
    if (got) pyex_fields_release(&fs);
    return NULL;
  }
  porta_view_f64 f[PORTA_EXCHANGE_MAX_FIELDS];
  for (int k = 0; k < fs.n; ++k) {
    f[k].data = (double *)fs.v[k].data;
    f[k].m = fs.v[k].m;
  }
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_halo2d_exchange(&o->h, f, fs.n, depth);
  /* The host sees the ghost layers on return; with no neighbour nothing was queued (one
     rank: no device sync per call). */
  int queued = 0;
  for (int dim = 0; dim < 2; ++dim)
    for (int side = 0; side < 2; ++side) queued |= o->h.d.neighbour[dim][side] != MPI_PROC_NULL;
  if (rc == PORTA_SUCCESS && queued) rc = porta_exec_fence(o->h.exec, "Halo2D.exchange");
  Py_END_ALLOW_THREADS;
  pyex_fields_release(&fs);
  if (rc != PORTA_SUCCESS) return pyex_raise_rc(rc, "Halo2D.exchange");
  Py_RETURN_NONE;
}

/** prepare(field): collective, as the first exchange (a refusal raises on every rank). */
static PyObject *Halo_prepare(PyObject *self, PyObject *field) {
  HaloObject *o = (HaloObject *)self;
  if (halo_live(o) < 0 || pyex_check_ready("Halo2D.prepare") < 0) return NULL;
  PyObject *one = PyTuple_Pack(1, field);
  if (!one) return NULL;
  fieldset fs;
  const int got = pyex_fields_get(one, 1, 8, 1, 1, o->h.exec, "Halo2D.prepare", &fs) == 0;
  Py_DECREF(one);
  if (got) halo_check(o, &fs, 1, "Halo2D.prepare");
  agreement a;
  pyex_agree_init(&a);
  if (pyex_agree_after(o->h.d.comm, "Halo2D.prepare", &a) < 0) {
    if (got) pyex_fields_release(&fs);
    return NULL;
  }
  porta_view_f64 f;
  f.data = (double *)fs.v[0].data;
  f.m = fs.v[0].m;
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = porta_halo2d_prepare(&o->h, &f);
  Py_END_ALLOW_THREADS;
  pyex_fields_release(&fs);
  if (rc != PORTA_SUCCESS) return pyex_raise_rc(rc, "Halo2D.prepare");
  Py_RETURN_NONE;
}

/** counters(): (messages, bytes) */
static PyObject *Halo_counters(PyObject *self, PyObject *unused) {
  (void)unused;
  const HaloObject *o = (const HaloObject *)self;
  return Py_BuildValue("(LL)", (long long)o->h.messages, (long long)o->h.bytes);
}

static void Halo_dealloc(PyObject *self) {
  Halo_close_((HaloObject *)self);
  PyTypeObject *tp = Py_TYPE(self);
  freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  f(self);
  Py_DECREF(tp);
}

static PyMethodDef halo_methods[] = {
    {"exchange", Halo_exchange, METH_VARARGS, "exchange(fields, depth): porta_halo2d_exchange."},
    {"prepare", Halo_prepare, METH_O, "prepare(field): porta_halo2d_prepare."},
    {"counters", Halo_counters, METH_NOARGS, "(messages, bytes) sent so far."},
    {"close", Halo_close, METH_NOARGS, "porta_halo2d_destroy."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot halo_slots[] = {{Py_tp_new, Halo_new},
                                   {Py_tp_dealloc, Halo_dealloc},
                                   {Py_tp_methods, halo_methods},
                                   {Py_tp_doc, "porta_halo2d (a handle for porta.exchange)."},
                                   {0, NULL}};
PyType_Spec pyex_halo_spec = {"porta._exchange.Halo2D", sizeof(HaloObject), 0, Py_TPFLAGS_DEFAULT,
                              halo_slots};
