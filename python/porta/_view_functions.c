/** @file _view_functions.c
 *  The array functions of porta._core (docs/python.md, "Arrays"): deep_copy, create_mirror,
 *  create_mirror_view and views made from Python, on porta.View objects or on any other array
 *  (wrapped as an unmanaged view of its space), and the module's View type and constants.
 *  Limited API (3.11).
 */
#include "_arrays_private.h"

#include <stdint.h>

#include "_array_api.h"
#include <stdlib.h>
#include <string.h>

/* ---- module functions ---- */

/** A porta_view for `o`: a View's own (borrowed, *wrapped = 0), or any other array wrapped as an
 *  unmanaged view of its space (the layout C, F or strided as its strides say; an array that is
 *  both C and F contiguous takes `prefer`). */
static int as_view(PyObject *o, const char *what, porta_layout prefer, porta_view *out, pyarr *a) {
  if (pyarr_is_view(o)) {
    *out = ((ViewObject *)o)->v;
    a->has_buffer = 0;
    a->dl = NULL;
    return 0;
  }
  int r = pyarr_get(o, a);
  if (r <= 0) {
    if (r == 0) {
      PyObject *tn = PyType_GetName(Py_TYPE(o));
      PyErr_Format(PyExc_TypeError, "%s must be a porta.View or an array, not %S", what,
                   tn ? tn : Py_None);
      Py_XDECREF(tn);
    }
    return -1;
  }
  int64_t st[PORTA_MAX_RANK];
  int c = 1, f = 1;
  int64_t want = 1;
  for (int k = a->ndim - 1; k >= 0; --k) {
    if (a->strides[k] % a->itemsize != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s has a stride of %lld bytes, not a multiple of its "
                   "itemsize %zd",
                   what, (long long)a->strides[k], a->itemsize);
      pyarr_release(a);
      return -1;
    }
    st[k] = a->strides[k] / a->itemsize;
    if (a->shape[k] > 1 && st[k] != want) c = 0;
    want *= a->shape[k];
  }
  want = 1;
  for (int k = 0; k < a->ndim; ++k) {
    if (a->shape[k] > 1 && st[k] != want) f = 0;
    want *= a->shape[k];
  }
  porta_view_options opt;
  opt.space = (porta_memory_space)a->space;
  opt.layout = c && f && prefer != PORTA_LAYOUT_DEFAULT ? prefer
               : c                                      ? PORTA_LAYOUT_RIGHT
               : f                                      ? PORTA_LAYOUT_LEFT
                                                        : PORTA_LAYOUT_STRIDE;
  opt.flags = a->readonly ? PORTA_VIEW_CONST : 0;
  opt.stride = opt.layout == PORTA_LAYOUT_STRIDE ? st : NULL;
  int rc = porta_view_wrap(out, a->data, what, (porta_type)a->ptype, (size_t)a->itemsize, a->ndim,
                           a->shape, &opt);
  if (rc != PORTA_SUCCESS) {
    pyarr_release(a);
    porta_py_raise(rc, what);
    return -1;
  }
  return 0;
}

/** deep_copy(dst, src): porta_view_deep_copy; either may be a porta.View or any array. */
static PyObject *core_deep_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
  (void)self;
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "deep_copy(dst, src)");
    return NULL;
  }
  porta_view dst, src;
  pyarr ad, as;
  porta_layout prefer_d = pyarr_is_view(args[1]) ? (porta_layout)((ViewObject *)args[1])->v.m.layout
                                                 : PORTA_LAYOUT_DEFAULT;
  if (as_view(args[0], "dst", prefer_d, &dst, &ad) < 0) return NULL;
  if (as_view(args[1], "src", (porta_layout)dst.m.layout, &src, &as) < 0) {
    pyarr_release(&ad);
    return NULL;
  }
  PyObject *result = NULL;
  if (dst.m.type != src.m.type || dst.m.value_size != src.m.value_size) {
    char nd[16], ns[16];
    pyarr_type_name(dst.m.type, nd, sizeof nd);
    pyarr_type_name(src.m.type, ns, sizeof ns);
    PyErr_Format(PyExc_ValueError,
                 "deep_copy: dst has dtype %s, src has dtype %s (Porta does not convert "
                 "element types in deep_copy)",
                 nd, ns);
  } else {
    PyThreadState *ts = PyEval_SaveThread();
    int rc = porta_view_deep_copy(dst, src);
    PyEval_RestoreThread(ts);
    if (rc != PORTA_SUCCESS) {
      porta_py_raise(rc, "deep_copy");
    } else {
      Py_INCREF(Py_None);
      result = Py_None;
    }
  }
  pyarr_release(&ad);
  pyarr_release(&as);
  return result;
}

static PyObject *mirror(PyObject *src, int view_if_host) {
  if (view_if_host) {
    if (pyarr_is_view(src) && pyarr_host_accessible(((ViewObject *)src)->v.m.space)) {
      Py_INCREF(src);
      return src;
    }
    if (!pyarr_is_view(src)) {
      pyarr a;
      int r = pyarr_get(src, &a);
      if (r < 0) return NULL;
      int host = r == 1 && pyarr_host_accessible(a.space);
      if (r == 1) pyarr_release(&a);
      if (host) {
        Py_INCREF(src);
        return src;
      }
    }
  }
  porta_view s, out;
  pyarr a;
  if (as_view(src, "src", PORTA_LAYOUT_DEFAULT, &s, &a) < 0) return NULL;
  int rc = porta_view_create_mirror(&out, &s);
  pyarr_release(&a);
  if (rc != PORTA_SUCCESS) return porta_py_raise(rc, "create_mirror");
  return porta_py_view_wrap_owned(porta_py_view_class, &out);
}

static PyObject *core_create_mirror(PyObject *self, PyObject *src) {
  (void)self;
  return mirror(src, 0);
}

static PyObject *core_create_mirror_view(PyObject *self, PyObject *src) {
  (void)self;
  return mirror(src, 1);
}

/** view_subview(view, slices): porta_view_subview of a View; `slices` holds one (kind, begin,
 *  end) tuple per rank (porta_slice_kind; views.subview checks them first). */
static PyObject *core_view_subview(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *src, *sl;
  if (!PyArg_ParseTuple(args, "OO!", &src, &PyTuple_Type, &sl)) return NULL;
  if (!pyarr_is_view(src)) {
    PyErr_SetString(PyExc_TypeError, "subview: the first argument must be a porta.View");
    return NULL;
  }
  const porta_view *v = &((ViewObject *)src)->v;
  if (PyTuple_Size(sl) != v->m.rank) {
    PyErr_Format(PyExc_ValueError, "subview: %d slices for a view of rank %d",
                 (int)PyTuple_Size(sl), v->m.rank);
    return NULL;
  }
  porta_slice slices[PORTA_MAX_RANK];
  for (int r = 0; r < v->m.rank; ++r) {
    int kind = 0;
    long long b = 0, e = 0;
    PyObject *item = PyTuple_GetItem(sl, r);
    if (!PyArg_Parse(item, "(iLL)", &kind, &b, &e)) return NULL;
    if (kind != PORTA_SLICE_ALL && kind != PORTA_SLICE_INDEX && kind != PORTA_SLICE_RANGE) {
      PyErr_Format(PyExc_TypeError, "subview: slice %d has kind %d (0-2)", r, kind);
      return NULL;
    }
    slices[r].kind = (porta_slice_kind)kind;
    slices[r].begin = (int64_t)b;
    slices[r].end = (int64_t)e;
  }
  porta_view out;
  int rc = porta_view_subview(&out, v, slices);
  if (rc != PORTA_SUCCESS) return porta_py_raise(rc, "subview");
  return porta_py_view_wrap_owned(Py_TYPE(src), &out);
}

/** view_create(cls, shape, dtype, space, layout, label, initialize): a new view. */
static PyObject *core_view_create(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *cls, *shape;
  const char *dtype, *label;
  int space, layout, init;
  if (!PyArg_ParseTuple(args, "OOsiisp", &cls, &shape, &dtype, &space, &layout, &label, &init))
    return NULL;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, porta_py_view_type)) {
    PyErr_SetString(PyExc_TypeError, "view_create: cls must be a subclass of _core.View");
    return NULL;
  }
  PyObject *t = PySequence_Tuple(shape);
  if (!t) return NULL;
  const Py_ssize_t nd = PyTuple_Size(t);
  int64_t ext[PORTA_MAX_RANK];
  if (nd > PORTA_MAX_RANK) {
    Py_DECREF(t);
    PyErr_Format(PyExc_ValueError, "a view has at most %d dimensions", PORTA_MAX_RANK);
    return NULL;
  }
  for (Py_ssize_t r = 0; r < nd; ++r) {
    ext[r] = PyLong_AsLongLong(PyTuple_GetItem(t, r));
    if (ext[r] < 0 && !PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "negative extent %lld", (long long)ext[r]);
  }
  Py_DECREF(t);
  if (PyErr_Occurred()) return NULL;
  int pt;
  char name[16];
  const char kind = dtype[0];
  const int size = atoi(dtype + 1);
  pyarr_dtype_of(kind, size, &pt, name, sizeof name);
  if (pt == PORTA_TYPE_USER && !(kind == 'b' && size == 1)) {
    PyErr_Format(PyExc_TypeError,
                 "views hold float64, float32, int64, int32, uint64, uint32, "
                 "uint8 or bool, not %s",
                 name);
    return NULL;
  }
  if (space < 0) space = porta_default_memory_space();
  if (space >= PORTA_NUM_MEMORY_SPACES) {
    PyErr_Format(PyExc_ValueError, "unknown memory space %d", space);
    return NULL;
  }
  porta_view_options opt;
  opt.space = (porta_memory_space)space;
  opt.layout = (porta_layout)layout;
  opt.flags = init ? 0 : PORTA_VIEW_UNINITIALIZED;
  opt.stride = NULL;
  porta_view v;
  int rc = porta_view_create(&v, label, (porta_type)pt, (size_t)size, (int)nd, ext, &opt);
  if (rc != PORTA_SUCCESS) return porta_py_raise(rc, "porta.View");
  return porta_py_view_wrap_owned((PyTypeObject *)cls, &v);
}

static PyObject *core_set_view_class(PyObject *self, PyObject *cls) {
  (void)self;
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, porta_py_view_type)) {
    PyErr_SetString(PyExc_TypeError, "_set_view_class: a subclass of _core.View");
    return NULL;
  }
  Py_INCREF(cls);
  Py_XDECREF((PyObject *)porta_py_view_class);
  porta_py_view_class = (PyTypeObject *)cls;
  Py_RETURN_NONE;
}

/** array_info(obj): None for a scalar, else (ndim, dtype name, space, layout code, via). */
static PyObject *core_array_info(PyObject *self, PyObject *o) {
  (void)self;
  pyarr a;
  int r = pyarr_get(o, &a);
  if (r < 0) return NULL;
  if (r == 0) Py_RETURN_NONE;
  char buf[24];
  PyObject *t = Py_BuildValue("(isiis)", a.ndim, pyarr_dtype_name(&a, buf, sizeof buf), a.space,
                              pyarr_layout(&a), a.via);
  pyarr_release(&a);
  return t;
}

static PyObject *core_space_accessible(PyObject *self, PyObject *args) {
  (void)self;
  int backend, space;
  if (!PyArg_ParseTuple(args, "ii", &backend, &space)) return NULL;
  if (backend < 0 || backend >= PORTA_NUM_BACKENDS || space < 0 || space >= PORTA_NUM_MEMORY_SPACES)
    Py_RETURN_FALSE;
  return PyBool_FromLong(porta_space_accessible((porta_backend)backend, (porta_memory_space)space));
}

PyMethodDef porta_py_array_methods[] = {
    {"deep_copy", (PyCFunction)(void (*)(void))core_deep_copy, METH_FASTCALL,
     "deep_copy(dst, src): porta_view_deep_copy (views or arrays)."},
    {"create_mirror", core_create_mirror, METH_O, "A new host view shaped like src."},
    {"create_mirror_view", core_create_mirror_view, METH_O,
     "src itself when the host can read it, else a new host mirror."},
    {"view_create", core_view_create, METH_VARARGS, "A new view (porta_view_create)."},
    {"view_subview", core_view_subview, METH_VARARGS, "porta_view_subview of a View."},
    {"_set_view_class", core_set_view_class, METH_O, "The class mirrors are made of."},
    {"array_info", core_array_info, METH_O, "(ndim, dtype, space, layout, via) or None."},
    {"space_accessible", core_space_accessible, METH_VARARGS, "porta_space_accessible."},
    {NULL, NULL, 0, NULL}};

/* ---- the capsule porta._core._array_api (_array_api.h) ---- */

static int api_as_view(PyObject *o, const char *what, porta_view *out, void **hold) {
  *hold = NULL;
  pyarr *a = (pyarr *)calloc(1, sizeof *a);
  if (!a) {
    PyErr_NoMemory();
    return -1;
  }
  if (as_view(o, what, PORTA_LAYOUT_DEFAULT, out, a) < 0) {
    free(a);
    return -1;
  }
  if (a->has_buffer || a->dl)
    *hold = a;
  else
    free(a);
  return 0;
}

static void api_release(void *hold) {
  if (!hold) return;
  pyarr_release((pyarr *)hold);
  free(hold);
}

static porta_py_array_api array_api = {PORTA_PY_ARRAY_API_VERSION, api_as_view, api_release, NULL};

int porta_py_arrays_init(PyObject *m) {
  porta_py_view_type = (PyTypeObject *)PyType_FromSpec(&porta_py_view_spec);
  if (!porta_py_view_type) return -1;
  Py_INCREF((PyObject *)porta_py_view_type);
  porta_py_view_class = porta_py_view_type;
  Py_INCREF((PyObject *)porta_py_view_class);
  if (PyModule_AddObject(m, "View", (PyObject *)porta_py_view_type) < 0) return -1;
  if (PyModule_AddIntConstant(m, "HOST_SPACE", PORTA_HOST_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_SPACE", PORTA_CUDA_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_UVM_SPACE", PORTA_CUDA_UVM_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_HOST_PINNED_SPACE", PORTA_CUDA_HOST_PINNED_SPACE) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_BACKEND", PORTA_BACKEND_CUDA) < 0 ||
      PyModule_AddIntConstant(m, "CUDA_BUILT", PORTA_ENABLE_CUDA) < 0)
    return -1;
  array_api.error = porta_py_error;
  PyObject *cap = PyCapsule_New(&array_api, PORTA_PY_ARRAY_API_NAME, NULL);
  if (!cap || PyModule_AddObject(m, "_array_api", cap) < 0) {
    Py_XDECREF(cap);
    return -1;
  }
  return 0;
}
