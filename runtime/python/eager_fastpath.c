/* opgen.runtime._eager_fastpath: the compiled hot path of eager op dispatch.
 *
 * `execute_op(op_type, inputs, attrs, name)` is what generated Python ops call. The
 * first call with a given op, attr values, input kinds/dtypes and eager device (the
 * thread's `opgen.device(...)` scope; a "signature") goes
 * to Python (opgen/runtime/eager.py), which checks and converts everything as the
 * ctypes path does and resolves the kernel once (OPGEN_NewEagerKernel). Later calls
 * with the same signature are matched here and run that kernel directly: numpy arrays
 * are wrapped without a copy, Python scalars converted in C, outputs wrapped in
 * Tensor objects whose storage is the C struct below. Anything this file does not
 * recognise goes to the Python path, so behaviour (results, errors, messages) is the
 * Python path's.
 *
 * The runtime's functions are called through pointers that Python takes from the
 * library it loaded with ctypes, so both paths always use the same library (also
 * when $OPGEN_RUNTIME_LIB names a development build).
 *
 * Buffer rule: a numpy input is read in place, never written (kernels do not write
 * their inputs). An output that would share memory with a numpy input (Identity,
 * Reshape forward their input) is copied, so a Tensor never aliases caller-owned
 * numpy memory, as with the ctypes path, which copies every numpy input.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL opgen_eager_fastpath_ARRAY_API
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include <stdint.h>
#include <string.h>

#include "opgen/c_api_ext.h"
#include "tensorflow/c/eager/c_api.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

_Static_assert(sizeof(npy_intp) == sizeof(int64_t), "numpy dims are passed as int64_t dims");

/* ---- the runtime's functions, bound from the library Python loaded ------------------ */

#define RUNTIME_FUNCTIONS(X)                                                             \
  X(TF_NewStatus) X(TF_DeleteStatus) X(TF_GetCode) X(TF_Message) X(TF_NewTensor)          \
  X(TF_AllocateTensor) X(TF_DeleteTensor) X(TF_TensorData) X(TF_TensorByteSize)          \
  X(TF_TensorType) X(TF_NumDims) X(TF_Dim) X(TFE_NewTensorHandle) X(TFE_DeleteTensorHandle) \
  X(TFE_TensorHandleResolve) X(OPGEN_EagerKernelExecute) X(OPGEN_EagerKernelNumInputs)    \
  X(OPGEN_EagerKernelNumOutputs) X(OPGEN_DeleteEagerKernel) X(TF_DataTypeSize)

/* Bound when the runtime has them (NULL otherwise: a runtime without devices). */
#define OPTIONAL_RUNTIME_FUNCTIONS(X) X(OPGEN_TensorDeviceName) X(OPGEN_TensorHandleTensor)

static struct {
#define DECLARE_POINTER(name) __typeof__(&name) name;
  RUNTIME_FUNCTIONS(DECLARE_POINTER)
  OPTIONAL_RUNTIME_FUNCTIONS(DECLARE_POINTER)
#undef DECLARE_POINTER
} rt;

/* The eager device of this thread (opgen.device(...) outside a graph): an index that
 * opgen.runtime.devices gives each device name, 0 for none (the runtime's default).
 * Part of every signature, so a kernel resolved for one device never serves another;
 * reading it costs one thread-local load per call. */
static _Thread_local int eager_device_index;

static int bound = 0;
static PyObject* binder;         /* () -> (functions dict, dtype-by-enum dict); loads the library */
static PyObject* python_execute; /* the Python path: execute_op(op_type, inputs, attrs, name) */
static PyObject* resolver;       /* (op_type, inputs, attrs) -> (kernel, dtypes, layout) or None */
static PyObject* raise_status;   /* (op_type, code, message) -> raises the op's error */
/* Set (by opgen.runtime.graph_mode) while some thread has a default graph: every call
 * then goes to it, which builds a node or comes back through execute_eager. One
 * pointer test per eager call otherwise. */
static PyObject* graph_dispatch;
static PyTypeObject* tensor_class; /* opgen.Tensor, a subclass of TensorBase */
static PyObject* dtype_by_enum;  /* dict: TF_DataType -> opgen DType */

#define MAX_DTYPE 32
static PyObject* dtype_objects[MAX_DTYPE]; /* borrowed from dtype_by_enum */

static TF_Status* thread_status(void) {
  static _Thread_local TF_Status* status;
  if (status == NULL) status = rt.TF_NewStatus();
  return status;
}

/* Binds the runtime on first need; -1 with a Python error on failure. */
static int ensure_bound(void) {
  if (bound) return 0;
  if (binder == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "opgen's eager fast path is not configured");
    return -1;
  }
  PyObject* result = PyObject_CallNoArgs(binder);
  if (result == NULL) return -1;
  PyObject *functions, *dtypes;
  if (!PyArg_ParseTuple(result, "O!O!", &PyDict_Type, &functions, &PyDict_Type, &dtypes)) {
    Py_DECREF(result);
    return -1;
  }
#define BIND_POINTER(name)                                                         \
  {                                                                                \
    PyObject* address = PyDict_GetItemString(functions, #name);                    \
    void* p = address ? PyLong_AsVoidPtr(address) : NULL;                          \
    if (p == NULL) {                                                               \
      if (!PyErr_Occurred())                                                       \
        PyErr_SetString(PyExc_RuntimeError, "opgen runtime lacks " #name);         \
      Py_DECREF(result);                                                           \
      return -1;                                                                   \
    }                                                                              \
    rt.name = (__typeof__(rt.name))p;                                              \
  }
  RUNTIME_FUNCTIONS(BIND_POINTER)
#undef BIND_POINTER
#define BIND_OPTIONAL(name)                                                        \
  {                                                                                \
    PyObject* address = PyDict_GetItemString(functions, #name);                    \
    rt.name = address && address != Py_None ? (__typeof__(rt.name))PyLong_AsVoidPtr(address) \
                                            : NULL;                                \
    if (PyErr_Occurred()) {                                                        \
      Py_DECREF(result);                                                           \
      return -1;                                                                   \
    }                                                                              \
  }
  OPTIONAL_RUNTIME_FUNCTIONS(BIND_OPTIONAL)
#undef BIND_OPTIONAL
  Py_XSETREF(dtype_by_enum, Py_NewRef(dtypes));
  for (int i = 0; i < MAX_DTYPE; ++i) {
    PyObject* key = PyLong_FromLong(i);
    dtype_objects[i] = key ? PyDict_GetItemWithError(dtype_by_enum, key) : NULL;
    Py_XDECREF(key);
    if (PyErr_Occurred()) {
      Py_DECREF(result);
      return -1;
    }
  }
  Py_DECREF(result);
  bound = 1;
  return 0;
}

/* New reference to the opgen DType of `dtype`; raises like dtypes.as_dtype otherwise. */
static PyObject* dtype_object(TF_DataType dtype) {
  if ((int)dtype >= 0 && (int)dtype < MAX_DTYPE && dtype_objects[dtype] != NULL)
    return Py_NewRef(dtype_objects[dtype]);
  PyErr_Format(PyExc_TypeError, "%d is not a TensorFlow DataType number", (int)dtype);
  return NULL;
}

/* ---- TensorBase: the storage of opgen.Tensor ------------------------------------------ */

typedef struct {
  PyObject_HEAD
  TF_Tensor* tensor;         /* owned */
  TFE_TensorHandle* handle;  /* owned; made when the ctypes path first asks for it */
  TF_DataType dtype_enum;
  PyObject* dtype;           /* opgen DType */
  PyObject* shape;           /* tuple; built on first use */
  PyObject* weakrefs;
  int on_host;               /* -1 not known yet, else whether the data is in host memory */
} TensorObject;

static PyTypeObject TensorBaseType;

/* A new Tensor of type `type` owning `tensor`; on failure deletes `tensor`. */
static PyObject* wrap_tensor_as(PyTypeObject* type, TF_Tensor* tensor) {
  TF_DataType dtype = rt.TF_TensorType(tensor);
  PyObject* dtype_obj = dtype_object(dtype);
  TensorObject* self = dtype_obj ? (TensorObject*)type->tp_alloc(type, 0) : NULL;
  if (self == NULL) {
    Py_XDECREF(dtype_obj);
    rt.TF_DeleteTensor(tensor);
    return NULL;
  }
  self->tensor = tensor;
  self->dtype_enum = dtype;
  self->dtype = dtype_obj;
  self->on_host = -1;
  return (PyObject*)self;
}

/* A new Tensor (of `tensor_class`) owning `tensor`; on failure deletes `tensor`. */
static PyObject* wrap_tensor(TF_Tensor* tensor) { return wrap_tensor_as(tensor_class, tensor); }

/* Tensor._from_tf_tensor(address): a Tensor owning the TF_Tensor* at `address`, which
 * may live on any device. */
static PyObject* tensor_from_tf_tensor(PyObject* cls, PyObject* address) {
  if (ensure_bound() < 0) return NULL;
  TF_Tensor* tensor = (TF_Tensor*)PyLong_AsVoidPtr(address);
  if (tensor == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_from_tf_tensor needs a TF_Tensor*");
    return NULL;
  }
  if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject*)cls, &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "_from_tf_tensor is a classmethod of TensorBase");
    return NULL;
  }
  return wrap_tensor_as((PyTypeObject*)cls, tensor);
}

static void tensor_dealloc(TensorObject* self) {
  if (self->weakrefs != NULL) PyObject_ClearWeakRefs((PyObject*)self);
  if (self->tensor != NULL) rt.TF_DeleteTensor(self->tensor);
  if (self->handle != NULL) rt.TFE_DeleteTensorHandle(self->handle);
  Py_CLEAR(self->dtype);
  Py_CLEAR(self->shape);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

/* Tensor(handle): takes ownership of a TFE_TensorHandle* given as an int. */
static int tensor_init(TensorObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* address;
  if (!PyArg_ParseTuple(args, "O:Tensor", &address) || ensure_bound() < 0) return -1;
  if (self->tensor != NULL) {
    PyErr_SetString(PyExc_RuntimeError, "Tensor is already initialised");
    return -1;
  }
  TFE_TensorHandle* handle = (TFE_TensorHandle*)PyLong_AsVoidPtr(address);
  if (handle == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "Tensor() needs a tensor handle");
    return -1;
  }
  self->handle = handle;
  TF_Status* status = thread_status();
  /* The handle's tensor where it lives (Resolve would copy device data to the host). */
  self->tensor = rt.OPGEN_TensorHandleTensor != NULL ? rt.OPGEN_TensorHandleTensor(handle, status)
                                                     : rt.TFE_TensorHandleResolve(handle, status);
  if (rt.TF_GetCode(status) != TF_OK) {
    PyObject* result = PyObject_CallFunction(raise_status, "siy", "Tensor", (int)rt.TF_GetCode(status),
                                             rt.TF_Message(status));
    Py_XDECREF(result);
    return -1;
  }
  self->dtype_enum = rt.TF_TensorType(self->tensor);
  self->dtype = dtype_object(self->dtype_enum);
  self->on_host = -1;
  return self->dtype == NULL ? -1 : 0;
}

static PyObject* tensor_get_dtype(TensorObject* self, void* closure) {
  if (self->dtype == NULL) Py_RETURN_NONE;
  return Py_NewRef(self->dtype);
}

static PyObject* tensor_get_shape(TensorObject* self, void* closure) {
  if (self->shape == NULL) {
    if (self->tensor == NULL) return PyTuple_New(0);
    int ndims = rt.TF_NumDims(self->tensor);
    PyObject* shape = PyTuple_New(ndims);
    if (shape == NULL) return NULL;
    for (int i = 0; i < ndims; ++i) {
      PyObject* dim = PyLong_FromLongLong(rt.TF_Dim(self->tensor, i));
      if (dim == NULL) {
        Py_DECREF(shape);
        return NULL;
      }
      PyTuple_SET_ITEM(shape, i, dim);
    }
    self->shape = shape;
  }
  return Py_NewRef(self->shape);
}

static PyObject* tensor_get_tensor(TensorObject* self, void* closure) {
  return PyLong_FromVoidPtr(self->tensor);
}

static PyObject* tensor_get_data(TensorObject* self, void* closure) {
  return PyLong_FromVoidPtr(self->tensor ? rt.TF_TensorData(self->tensor) : NULL);
}

static PyObject* tensor_get_handle(TensorObject* self, void* closure) {
  if (self->handle == NULL && self->tensor != NULL) {
    TF_Status* status = thread_status();
    self->handle = rt.TFE_NewTensorHandle(self->tensor, status);
    if (rt.TF_GetCode(status) != TF_OK) {
      self->handle = NULL;
      return PyObject_CallFunction(raise_status, "siy", "Tensor", (int)rt.TF_GetCode(status),
                                   rt.TF_Message(status));
    }
  }
  return PyLong_FromVoidPtr(self->handle);
}

/* Whether the data is in host memory (a CPU tensor); asked of the runtime once. */
static PyObject* tensor_get_on_host(TensorObject* self, void* closure) {
  if (self->on_host < 0) {
    const char* name = self->tensor != NULL && rt.OPGEN_TensorDeviceName != NULL
                           ? rt.OPGEN_TensorDeviceName(self->tensor)
                           : NULL;
    self->on_host = name == NULL || strstr(name, "CPU:") != NULL;
  }
  return PyBool_FromLong(self->on_host);
}

static PyGetSetDef tensor_getset[] = {
    {"_dtype", (getter)tensor_get_dtype, NULL, "the opgen DType", NULL},
    {"_shape", (getter)tensor_get_shape, NULL, "dims as a tuple", NULL},
    {"_tensor", (getter)tensor_get_tensor, NULL, "the TF_Tensor* as an int", NULL},
    {"_data", (getter)tensor_get_data, NULL, "address of the first element", NULL},
    {"_handle", (getter)tensor_get_handle, NULL, "a TFE_TensorHandle* as an int", NULL},
    {"_on_host", (getter)tensor_get_on_host, NULL, "whether the data is in host memory", NULL},
    {NULL}};

static PyMethodDef tensor_methods[] = {
    {"_from_tf_tensor", tensor_from_tf_tensor, METH_O | METH_CLASS,
     "_from_tf_tensor(address): a Tensor owning the TF_Tensor* at `address`."},
    {NULL}};

static PyTypeObject TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "opgen.runtime._eager_fastpath.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Storage of opgen.Tensor: a runtime TF_Tensor, its dtype and shape.",
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_init = (initproc)tensor_init,
    .tp_new = PyType_GenericNew,
    .tp_getset = tensor_getset,
    .tp_methods = tensor_methods,
    .tp_weaklistoffset = offsetof(TensorObject, weakrefs),
};

/* ---- signatures: what a call must look like to reuse a resolved kernel --------------- */

enum SlotKind { SLOT_ARRAY, SLOT_NUMPY_SCALAR, SLOT_TENSOR, SLOT_FLOAT, SLOT_INT, SLOT_BOOL };

/* One input tensor of the call (list inputs contribute one slot per element). */
typedef struct {
  enum SlotKind kind;
  int numpy_type;          /* SLOT_ARRAY */
  PyTypeObject* scalar_type; /* SLOT_NUMPY_SCALAR */
  TF_DataType dtype;       /* the tensor's dtype as the kernel takes it */
} Slot;

/* One input arg: a single value, or a list / tuple of `count` values. */
typedef struct {
  PyTypeObject* container; /* NULL for a single value */
  Py_ssize_t count;
} ArgLayout;

typedef struct Signature {
  struct Signature* next;
  int device;               /* eager_device_index when it was resolved */
  OPGEN_EagerKernel* kernel;
  PyObject* attrs;          /* tuple of (name, value) pairs, values copied where mutable */
  Py_ssize_t num_args;
  ArgLayout* args;
  Py_ssize_t num_slots;
  Slot* slots;
  Py_ssize_t num_output_args;
  Py_ssize_t* output_layout; /* per output arg: -1 a single tensor, n >= 0 a list of n */
  Py_ssize_t num_outputs;
} Signature;

typedef struct {
  Signature* first;
  int count;
} OpEntry;

/* Per op a bounded number of signatures; beyond it calls take the Python path. */
#define MAX_SIGNATURES_PER_OP 32
static PyObject* op_entries; /* dict: op_type -> capsule(OpEntry) */

/* Attr values whose equality (with the same type) means the same attr: these can key
 * a cache. Floats compare by bits so that 0.0 and -0.0 stay apart. */
static int is_key_scalar(PyObject* v) {
  PyTypeObject* t = Py_TYPE(v);
  return t == &PyBool_Type || t == &PyLong_Type || t == &PyFloat_Type || t == &PyUnicode_Type ||
         t == &PyBytes_Type || v == Py_None || PyType_Check(v) || PyArray_DescrCheck(v) ||
         (dtype_by_enum != NULL && t == Py_TYPE(dtype_objects[TF_FLOAT]));
}

static int is_key_value(PyObject* v) {
  if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(v);
    PyObject** items = PySequence_Fast_ITEMS(v);
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!is_key_scalar(items[i])) return 0;
    return 1;
  }
  return is_key_scalar(v);
}

static int same_scalar(PyObject* a, PyObject* b) {
  if (a == b) return 1;
  PyTypeObject* t = Py_TYPE(a);
  if (t != Py_TYPE(b)) return 0;
  if (t == &PyFloat_Type) {
    double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
    return memcmp(&x, &y, sizeof x) == 0;
  }
  if (t == &PyLong_Type || t == &PyUnicode_Type || t == &PyBytes_Type || PyArray_DescrCheck(a))
    return PyObject_RichCompareBool(a, b, Py_EQ) == 1;
  return 0; /* bool, None, types, DTypes: singletons, compared by identity above */
}

static int same_value(PyObject* a, PyObject* b) {
  if (PyList_CheckExact(a) || PyTuple_CheckExact(a)) {
    if (Py_TYPE(a) != Py_TYPE(b)) return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(a);
    if (n != PySequence_Fast_GET_SIZE(b)) return 0;
    for (Py_ssize_t i = 0; i < n; ++i)
      if (!same_scalar(PySequence_Fast_ITEMS(a)[i], PySequence_Fast_ITEMS(b)[i])) return 0;
    return 1;
  }
  return same_scalar(a, b);
}

static int attrs_match(const Signature* sig, PyObject* attrs) {
  Py_ssize_t n = PyTuple_GET_SIZE(sig->attrs);
  if (PyDict_GET_SIZE(attrs) != n) return 0;
  Py_ssize_t pos = 0, i = 0;
  PyObject *key, *value;
  while (PyDict_Next(attrs, &pos, &key, &value)) {
    PyObject* pair = PyTuple_GET_ITEM(sig->attrs, i++);
    PyObject* want_key = PyTuple_GET_ITEM(pair, 0);
    if (key != want_key && (!PyUnicode_CheckExact(key) || PyUnicode_Compare(key, want_key) != 0))
      return 0;
    if (!same_value(value, PyTuple_GET_ITEM(pair, 1))) return 0;
  }
  return 1;
}

/* The slot kind of a value, or -1 when the fast path does not take it. */
static int slot_kind(PyObject* v) {
  PyTypeObject* t = Py_TYPE(v);
  if (t == &PyArray_Type) return PyArray_ISNOTSWAPPED((PyArrayObject*)v) ? SLOT_ARRAY : -1;
  if (t == tensor_class || PyObject_TypeCheck(v, &TensorBaseType)) return SLOT_TENSOR;
  if (t == &PyFloat_Type) return SLOT_FLOAT;
  if (t == &PyLong_Type) return SLOT_INT;
  if (t == &PyBool_Type) return SLOT_BOOL;
  if (PyArray_IsScalar(v, Generic)) return SLOT_NUMPY_SCALAR;
  return -1;
}

static int slot_matches(const Slot* slot, PyObject* v) {
  switch (slot->kind) {
    case SLOT_ARRAY:
      return Py_TYPE(v) == &PyArray_Type && PyArray_TYPE((PyArrayObject*)v) == slot->numpy_type &&
             PyArray_ISNOTSWAPPED((PyArrayObject*)v);
    case SLOT_TENSOR:
      return (Py_TYPE(v) == tensor_class || PyObject_TypeCheck(v, &TensorBaseType)) &&
             ((TensorObject*)v)->tensor != NULL && ((TensorObject*)v)->dtype_enum == slot->dtype;
    case SLOT_FLOAT: return Py_TYPE(v) == &PyFloat_Type;
    case SLOT_INT: return Py_TYPE(v) == &PyLong_Type;
    case SLOT_BOOL: return Py_TYPE(v) == &PyBool_Type;
    case SLOT_NUMPY_SCALAR: return Py_TYPE(v) == slot->scalar_type;
  }
  return 0;
}

static int inputs_match(const Signature* sig, PyObject* const* args, Py_ssize_t num_args) {
  if (num_args != sig->num_args) return 0;
  const Slot* slot = sig->slots;
  for (Py_ssize_t a = 0; a < num_args; ++a) {
    PyObject* value = args[a];
    const ArgLayout* layout = &sig->args[a];
    if (layout->container == NULL) {
      if (!slot_matches(slot++, value)) return 0;
      continue;
    }
    if (Py_TYPE(value) != layout->container || PySequence_Fast_GET_SIZE(value) != layout->count)
      return 0;
    PyObject** items = PySequence_Fast_ITEMS(value);
    for (Py_ssize_t i = 0; i < layout->count; ++i)
      if (!slot_matches(slot++, items[i])) return 0;
  }
  return 1;
}

static void free_signature(Signature* sig) {
  if (sig == NULL) return;
  if (sig->kernel != NULL && bound) rt.OPGEN_DeleteEagerKernel(sig->kernel);
  Py_XDECREF(sig->attrs);
  PyMem_Free(sig->args);
  PyMem_Free(sig->slots);
  PyMem_Free(sig->output_layout);
  PyMem_Free(sig);
}

/* The attrs of a call as a tuple of (name, value); lists are copied so that a caller
 * changing its list later does not change the key. NULL (no error) if not keyable. */
static PyObject* attr_key(PyObject* attrs) {
  PyObject* items = PyTuple_New(PyDict_GET_SIZE(attrs));
  if (items == NULL) return NULL;
  Py_ssize_t pos = 0, i = 0;
  PyObject *key, *value;
  while (PyDict_Next(attrs, &pos, &key, &value)) {
    if (!PyUnicode_CheckExact(key) || !is_key_value(value)) {
      Py_DECREF(items);
      return NULL;
    }
    PyObject* kept = PyList_CheckExact(value) ? PyList_GetSlice(value, 0, PyList_GET_SIZE(value))
                                              : Py_NewRef(value);
    PyObject* pair = kept ? PyTuple_Pack(2, key, kept) : NULL;
    Py_XDECREF(kept);
    if (pair == NULL) {
      Py_DECREF(items);
      return NULL;
    }
    PyTuple_SET_ITEM(items, i++, pair);
  }
  return items;
}

/* Builds the signature of this call from the resolver's answer
 * (kernel address, flat input dtypes, output layout). NULL with an error set, or NULL
 * without one when the answer does not fit the call (then the Python path runs). */
static Signature* new_signature(PyObject* const* args, Py_ssize_t num_args, PyObject* attr_items,
                                PyObject* resolved) {
  PyObject *kernel_address, *input_dtypes, *layout;
  if (!PyArg_ParseTuple(resolved, "OO!O!", &kernel_address, &PyTuple_Type, &input_dtypes,
                        &PyTuple_Type, &layout))
    return NULL;
  Signature* sig = PyMem_Calloc(1, sizeof(Signature));
  if (sig == NULL) return (Signature*)PyErr_NoMemory();
  sig->kernel = (OPGEN_EagerKernel*)PyLong_AsVoidPtr(kernel_address);
  if (sig->kernel == NULL) goto fail;
  sig->attrs = Py_NewRef(attr_items);
  sig->num_args = num_args;
  sig->num_slots = PyTuple_GET_SIZE(input_dtypes);
  sig->num_output_args = PyTuple_GET_SIZE(layout);
  sig->args = PyMem_Calloc(num_args ? num_args : 1, sizeof(ArgLayout));
  sig->slots = PyMem_Calloc(sig->num_slots ? sig->num_slots : 1, sizeof(Slot));
  sig->output_layout = PyMem_Calloc(sig->num_output_args ? sig->num_output_args : 1,
                                    sizeof(Py_ssize_t));
  if (!sig->args || !sig->slots || !sig->output_layout) {
    PyErr_NoMemory();
    goto fail;
  }
  for (Py_ssize_t i = 0; i < sig->num_output_args; ++i) {
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(layout, i));
    if (n == -1 && PyErr_Occurred()) goto fail;
    sig->output_layout[i] = n;
    sig->num_outputs += n < 0 ? 1 : n;
  }
  if (sig->num_outputs != rt.OPGEN_EagerKernelNumOutputs(sig->kernel) ||
      sig->num_slots != rt.OPGEN_EagerKernelNumInputs(sig->kernel))
    goto mismatch;
  Py_ssize_t s = 0;
  for (Py_ssize_t a = 0; a < num_args; ++a) {
    PyObject* value = args[a];
    Py_ssize_t count = 1;
    PyObject** items = &value;
    if (PyList_CheckExact(value) || PyTuple_CheckExact(value)) {
      sig->args[a].container = Py_TYPE(value);
      count = sig->args[a].count = PySequence_Fast_GET_SIZE(value);
      items = PySequence_Fast_ITEMS(value);
    }
    for (Py_ssize_t i = 0; i < count; ++i, ++s) {
      if (s >= sig->num_slots) goto mismatch;
      Slot* slot = &sig->slots[s];
      int kind = slot_kind(items[i]);
      long dtype = PyLong_AsLong(PyTuple_GET_ITEM(input_dtypes, s));
      if (dtype == -1 && PyErr_Occurred()) goto fail;
      if (kind < 0) goto mismatch;
      slot->kind = kind;
      slot->dtype = (TF_DataType)dtype;
      size_t element = rt.TF_DataTypeSize(slot->dtype);
      if (kind == SLOT_ARRAY) {
        PyArrayObject* array = (PyArrayObject*)items[i];
        slot->numpy_type = PyArray_TYPE(array);
        if (element == 0 || (size_t)PyArray_ITEMSIZE(array) != element) goto mismatch;
      } else if (kind == SLOT_NUMPY_SCALAR) {
        slot->scalar_type = Py_TYPE(items[i]);
        PyArray_Descr* descr = PyArray_DescrFromScalar(items[i]);
        if (descr == NULL) goto fail;
        int fits = element != 0 && (size_t)PyDataType_ELSIZE(descr) == element;
        Py_DECREF(descr);
        if (!fits) goto mismatch;
      } else if (kind == SLOT_TENSOR) {
        if (((TensorObject*)items[i])->dtype_enum != slot->dtype) goto mismatch;
      }
    }
  }
  if (s != sig->num_slots) goto mismatch;
  return sig;
mismatch: /* the resolver's view of the call differs from ours: no error, Python runs it */
fail:     /* an error is set */
  free_signature(sig);
  return NULL;
}

/* ---- running a signature --------------------------------------------------------- */

static void release_array(void* data, size_t len, void* array) {
  if (PyGILState_Check()) {
    Py_DECREF((PyObject*)array);
    return;
  }
  if (!Py_IsInitialized()) return; /* interpreter gone: nothing left to release */
  PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)array);
  PyGILState_Release(gil);
}

/* A tensor over the array's memory, holding a reference to the array; NULL on error. */
static TF_Tensor* tensor_over_array(PyArrayObject* array, TF_DataType dtype) {
  Py_INCREF(array);
  TF_Tensor* t = rt.TF_NewTensor(dtype, (const int64_t*)PyArray_DIMS(array), PyArray_NDIM(array),
                                 PyArray_DATA(array), (size_t)PyArray_NBYTES(array),
                                 release_array, array);
  if (t == NULL) PyErr_SetString(PyExc_MemoryError, "cannot wrap a numpy array as a tensor");
  return t;
}

/* A tensor of `value` (a numpy array, scalar or Python scalar) for `slot`. Sets
 * *borrowed when the tensor reads caller-owned memory. NULL with an error set, or NULL
 * without one when the value needs the Python path (e.g. an int out of range). */
static TF_Tensor* input_tensor(const Slot* slot, PyObject* value, int* borrowed) {
  *borrowed = 0;
  switch (slot->kind) {
    case SLOT_ARRAY: {
      PyArrayObject* array = (PyArrayObject*)value;
      if (PyArray_IS_C_CONTIGUOUS(array) && PyArray_ISALIGNED(array)) {
        *borrowed = 1;
        return tensor_over_array(array, slot->dtype);
      }
      PyArrayObject* copy = (PyArrayObject*)PyArray_NewCopy(array, NPY_CORDER);
      if (copy == NULL) return NULL;
      TF_Tensor* t = tensor_over_array(copy, slot->dtype);
      Py_DECREF(copy);
      return t;
    }
    case SLOT_NUMPY_SCALAR: {
      PyArrayObject* array = (PyArrayObject*)PyArray_FromScalar(value, NULL);
      if (array == NULL) return NULL;
      TF_Tensor* t = tensor_over_array(array, slot->dtype);
      Py_DECREF(array);
      return t;
    }
    case SLOT_TENSOR:
      return NULL; /* not reached: tensors are passed as they are */
    default:
      break;
  }
  /* Python scalars: the conversions the Python path makes for these dtypes. */
  union { float f; double d; int32_t i32; int64_t i64; unsigned char b; } scalar;
  size_t size;
  if (slot->kind == SLOT_BOOL) {
    if (slot->dtype != TF_BOOL) return NULL;
    scalar.b = value == Py_True;
    size = 1;
  } else {
    double d = 0;
    long long i = 0;
    if (slot->kind == SLOT_FLOAT) {
      d = PyFloat_AS_DOUBLE(value);
    } else {
      int overflow = 0;
      i = PyLong_AsLongLongAndOverflow(value, &overflow);
      if (overflow || (i == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return NULL;
      }
      d = (double)i;
    }
    switch (slot->dtype) {
      case TF_FLOAT: scalar.f = slot->kind == SLOT_FLOAT ? (float)d : (float)i; size = 4; break;
      case TF_DOUBLE: scalar.d = d; size = 8; break;
      case TF_INT32:
        if (slot->kind != SLOT_INT || i < INT32_MIN || i > INT32_MAX) return NULL;
        scalar.i32 = (int32_t)i;
        size = 4;
        break;
      case TF_INT64:
        if (slot->kind != SLOT_INT) return NULL;
        scalar.i64 = i;
        size = 8;
        break;
      default: return NULL;
    }
  }
  TF_Tensor* t = rt.TF_AllocateTensor(slot->dtype, NULL, 0, size);
  if (t == NULL) return (TF_Tensor*)PyErr_NoMemory();
  memcpy(rt.TF_TensorData(t), &scalar, size);
  return t;
}

/* A copy of `t` in fresh memory; deletes `t`. NULL on failure. */
static TF_Tensor* detach(TF_Tensor* t) {
  int ndims = rt.TF_NumDims(t);
  int64_t dims[32];
  if (ndims > 32) {
    rt.TF_DeleteTensor(t);
    PyErr_SetString(PyExc_ValueError, "tensor rank above 32");
    return NULL;
  }
  for (int i = 0; i < ndims; ++i) dims[i] = rt.TF_Dim(t, i);
  size_t len = rt.TF_TensorByteSize(t);
  TF_Tensor* copy = rt.TF_AllocateTensor(rt.TF_TensorType(t), dims, ndims, len);
  if (copy != NULL && len) memcpy(rt.TF_TensorData(copy), rt.TF_TensorData(t), len);
  rt.TF_DeleteTensor(t);
  if (copy == NULL) PyErr_NoMemory();
  return copy;
}

#define INLINE_TENSORS 8

/* Not an error: the call must take the Python path. */
static PyObject NOT_HANDLED_OBJECT;
#define NOT_HANDLED (&NOT_HANDLED_OBJECT)

static PyObject* run_signature(const Signature* sig, PyObject* op_type, PyObject* const* args) {
  TF_Tensor* inline_inputs[INLINE_TENSORS];
  PyObject* inline_holders[INLINE_TENSORS];
  char inline_owned[INLINE_TENSORS], inline_borrowed[INLINE_TENSORS];
  TF_Tensor* inline_outputs[INLINE_TENSORS];
  Py_ssize_t n_in = sig->num_slots, n_out = sig->num_outputs;
  TF_Tensor** inputs = inline_inputs;
  PyObject** holders = inline_holders;
  char* owned = inline_owned;
  char* borrowed = inline_borrowed;
  TF_Tensor** outputs = inline_outputs;
  PyObject* result = NULL;
  Py_ssize_t made = 0;
  if (n_in > INLINE_TENSORS) {
    inputs = PyMem_Calloc(n_in, sizeof(TF_Tensor*));
    holders = PyMem_Calloc(n_in, sizeof(PyObject*));
    owned = PyMem_Calloc(n_in, 2);
    borrowed = owned + n_in;
    if (!inputs || !holders || !owned) {
      PyErr_NoMemory();
      goto done;
    }
  }
  if (n_out > INLINE_TENSORS) {
    outputs = PyMem_Calloc(n_out, sizeof(TF_Tensor*));
    if (!outputs) {
      PyErr_NoMemory();
      goto done;
    }
  }
  const Slot* slot = sig->slots;
  for (Py_ssize_t a = 0; a < sig->num_args; ++a) {
    Py_ssize_t count = 1;
    PyObject* const* items = &args[a];
    if (sig->args[a].container != NULL) {
      count = sig->args[a].count;
      items = PySequence_Fast_ITEMS(args[a]);
    }
    for (Py_ssize_t i = 0; i < count; ++i, ++slot, ++made) {
      int is_borrowed = 0;
      if (slot->kind == SLOT_TENSOR) {
        /* Borrowed: the Tensor is held (below) while the kernel may run without the
         * GIL, when another thread could drop the caller's last reference. */
        Py_INCREF(items[i]);
        inputs[made] = ((TensorObject*)items[i])->tensor;
        holders[made] = items[i];
        owned[made] = 0;
      } else {
        inputs[made] = input_tensor(slot, items[i], &is_borrowed);
        if (inputs[made] == NULL) {
          result = PyErr_Occurred() ? NULL : NOT_HANDLED;
          goto done;
        }
        holders[made] = NULL;
        owned[made] = 1;
      }
      borrowed[made] = (char)is_borrowed;
    }
  }
  TF_Status* status = thread_status();
  /* Every kernel runs with the GIL released: the input size says nothing of the cost
   * (a 4x4 MaxPool with a huge window, a Range, a Fill), and other Python threads must
   * go on meanwhile. Uncontended, releasing costs well under a microsecond. */
  Py_BEGIN_ALLOW_THREADS
  rt.OPGEN_EagerKernelExecute(sig->kernel, inputs, (int)n_in, outputs, (int)n_out, status);
  Py_END_ALLOW_THREADS
  if (rt.TF_GetCode(status) != TF_OK) {
    result = PyObject_CallFunction(raise_status, "Oiy", op_type, (int)rt.TF_GetCode(status),
                                   rt.TF_Message(status));
    Py_XDECREF(result);
    result = NULL;
    goto done;
  }
  /* Outputs never alias caller-owned numpy memory (see the buffer rule on top). */
  for (Py_ssize_t o = 0; o < n_out; ++o) {
    void* data = rt.TF_TensorData(outputs[o]);
    for (Py_ssize_t i = 0; i < n_in && outputs[o] != NULL; ++i) {
      if (borrowed[i] && data == rt.TF_TensorData(inputs[i]) && rt.TF_TensorByteSize(inputs[i])) {
        outputs[o] = detach(outputs[o]);
        break;
      }
    }
  }
  /* Wrap outputs as the Python path returns them: one entry per output arg. */
  result = PyList_New(sig->num_output_args);
  Py_ssize_t o = 0;
  for (Py_ssize_t a = 0; a < sig->num_output_args; ++a) {
    Py_ssize_t count = sig->output_layout[a];
    PyObject* entry;
    if (count < 0) {
      entry = outputs[o] ? wrap_tensor(outputs[o]) : NULL;
      outputs[o++] = NULL;
    } else {
      entry = PyList_New(count);
      for (Py_ssize_t i = 0; i < count; ++i, ++o) {
        PyObject* t = outputs[o] ? wrap_tensor(outputs[o]) : NULL;
        outputs[o] = NULL;
        if (entry != NULL && t != NULL) PyList_SET_ITEM(entry, i, t);
        else if (t == NULL) Py_CLEAR(entry);
        else Py_DECREF(t);
      }
    }
    if (result != NULL && entry != NULL) {
      PyList_SET_ITEM(result, a, entry);
    } else {
      Py_XDECREF(entry);
      Py_CLEAR(result);
    }
  }
  for (; o < n_out; ++o)
    if (outputs[o] != NULL) rt.TF_DeleteTensor(outputs[o]);
  if (result == NULL && !PyErr_Occurred()) PyErr_NoMemory();
done:
  for (Py_ssize_t i = 0; i < made; ++i) {
    if (owned[i]) rt.TF_DeleteTensor(inputs[i]);
    else Py_DECREF(holders[i]);
  }
  if (inputs != inline_inputs) {
    PyMem_Free(inputs);
    PyMem_Free(holders);
    PyMem_Free(owned);
  }
  if (outputs != inline_outputs) PyMem_Free(outputs);
  return result;
}

/* ---- execute_op ------------------------------------------------------------------ */

static OpEntry* op_entry(PyObject* op_type, int create) {
  PyObject* capsule = PyDict_GetItemWithError(op_entries, op_type);
  if (capsule != NULL) return (OpEntry*)PyCapsule_GetPointer(capsule, NULL);
  if (PyErr_Occurred() || !create) return NULL;
  OpEntry* entry = PyMem_Calloc(1, sizeof(OpEntry));
  if (entry == NULL) return (OpEntry*)PyErr_NoMemory();
  capsule = PyCapsule_New(entry, NULL, NULL); /* entries live as long as the process */
  if (capsule == NULL || PyDict_SetItem(op_entries, op_type, capsule) < 0) {
    Py_XDECREF(capsule);
    PyMem_Free(entry);
    return NULL;
  }
  Py_DECREF(capsule);
  return entry;
}

static PyObject* call_python_path(PyObject* const* args, size_t nargs, PyObject* kwnames) {
  return PyObject_Vectorcall(python_execute, args, nargs, kwnames);
}

static PyObject* execute_eager(PyObject* module, PyObject* const* args, size_t nargsf,
                               PyObject* kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (python_execute == NULL) {
    PyErr_SetString(PyExc_RuntimeError, "opgen's eager fast path is not configured");
    return NULL;
  }
  if (!bound && ensure_bound() < 0) {
    PyErr_Clear(); /* e.g. no runtime library: the Python path reports it its way */
    return call_python_path(args, nargsf, kwnames);
  }
  if (kwnames != NULL || (nargs != 3 && nargs != 4)) return call_python_path(args, nargsf, kwnames);
  PyObject *op_type = args[0], *inputs = args[1], *attrs = args[2];
  if (!PyUnicode_CheckExact(op_type) || !PyDict_CheckExact(attrs) ||
      !(PyList_CheckExact(inputs) || PyTuple_CheckExact(inputs)))
    return call_python_path(args, nargsf, kwnames);
  PyObject* const* values = PySequence_Fast_ITEMS(inputs);
  Py_ssize_t num_values = PySequence_Fast_GET_SIZE(inputs);

  const int device = eager_device_index;
  OpEntry* entry = op_entry(op_type, 0);
  if (entry == NULL && PyErr_Occurred()) return NULL;
  if (entry != NULL) {
    for (Signature* sig = entry->first; sig != NULL; sig = sig->next) {
      if (sig->device == device && inputs_match(sig, values, num_values) &&
          attrs_match(sig, attrs)) {
        PyObject* result = run_signature(sig, op_type, values);
        if (result != NOT_HANDLED) return result;
        return call_python_path(args, nargsf, kwnames);
      }
    }
    if (entry->count >= MAX_SIGNATURES_PER_OP) return call_python_path(args, nargsf, kwnames);
  }
  /* A new signature: only for values and attrs this file can key on. */
  for (Py_ssize_t i = 0; i < num_values; ++i) {
    PyObject* v = values[i];
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
      for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(v); ++j)
        if (slot_kind(PySequence_Fast_ITEMS(v)[j]) < 0) return call_python_path(args, nargsf, kwnames);
    } else if (slot_kind(v) < 0) {
      return call_python_path(args, nargsf, kwnames);
    }
  }
  PyObject* attr_items = attr_key(attrs);
  if (attr_items == NULL) {
    if (PyErr_Occurred()) return NULL;
    return call_python_path(args, nargsf, kwnames);
  }
  /* The resolver checks and converts the call as the Python path does (raising its
   * errors) and answers None when later calls could resolve differently. */
  PyObject* resolved = PyObject_CallFunctionObjArgs(resolver, op_type, inputs, attrs, NULL);
  if (resolved == NULL) {
    Py_DECREF(attr_items);
    return NULL;
  }
  if (resolved == Py_None) {
    Py_DECREF(resolved);
    Py_DECREF(attr_items);
    return call_python_path(args, nargsf, kwnames);
  }
  /* The resolver ran Python code: another thread may have changed a shared list. */
  values = PySequence_Fast_ITEMS(inputs);
  num_values = PySequence_Fast_GET_SIZE(inputs);
  Signature* sig = new_signature(values, num_values, attr_items, resolved);
  Py_DECREF(attr_items);
  Py_DECREF(resolved);
  if (sig == NULL) {
    if (PyErr_Occurred()) return NULL;
    return call_python_path(args, nargsf, kwnames);
  }
  sig->device = device; /* the resolver ran on this thread, under this device */
  entry = op_entry(op_type, 1);
  if (entry == NULL) {
    free_signature(sig);
    return NULL;
  }
  sig->next = entry->first;
  entry->first = sig;
  entry->count++;
  PyObject* result = run_signature(sig, op_type, values);
  if (result != NOT_HANDLED) return result;
  return call_python_path(args, nargsf, kwnames);
}

static PyObject* execute_op(PyObject* module, PyObject* const* args, size_t nargsf,
                            PyObject* kwnames) {
  if (graph_dispatch != NULL) return PyObject_Vectorcall(graph_dispatch, args, nargsf, kwnames);
  return execute_eager(module, args, nargsf, kwnames);
}

static PyObject* set_eager_device(PyObject* module, PyObject* index) {
  long value = PyLong_AsLong(index);
  if (value == -1 && PyErr_Occurred()) return NULL;
  if (value < 0 || value > INT32_MAX) {
    PyErr_SetString(PyExc_ValueError, "a device index is a non-negative int");
    return NULL;
  }
  eager_device_index = (int)value;
  Py_RETURN_NONE;
}

static PyObject* get_eager_device(PyObject* module, PyObject* unused) {
  return PyLong_FromLong(eager_device_index);
}

static PyObject* set_graph_dispatch(PyObject* module, PyObject* dispatch) {
  if (dispatch == Py_None) {
    Py_CLEAR(graph_dispatch);
  } else {
    Py_XSETREF(graph_dispatch, Py_NewRef(dispatch));
  }
  Py_RETURN_NONE;
}

/* ---- module ----------------------------------------------------------------------- */

static PyObject* configure(PyObject* module, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"binder", "python_execute", "resolver", "raise_status", "tensor_class", NULL};
  PyObject *b, *p, *r, *s, *t;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO!:configure", keywords, &b, &p, &r, &s,
                                   &PyType_Type, &t))
    return NULL;
  if (!PyType_IsSubtype((PyTypeObject*)t, &TensorBaseType)) {
    PyErr_SetString(PyExc_TypeError, "tensor_class must subclass TensorBase");
    return NULL;
  }
  Py_XSETREF(binder, Py_NewRef(b));
  Py_XSETREF(python_execute, Py_NewRef(p));
  Py_XSETREF(resolver, Py_NewRef(r));
  Py_XSETREF(raise_status, Py_NewRef(s));
  Py_XSETREF(tensor_class, (PyTypeObject*)Py_NewRef(t));
  Py_RETURN_NONE;
}

static PyObject* bind_now(PyObject* module, PyObject* unused) {
  if (ensure_bound() < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* cache_info(PyObject* module, PyObject* unused) {
  PyObject* info = PyDict_New();
  Py_ssize_t pos = 0;
  PyObject *op_type, *capsule;
  while (info && PyDict_Next(op_entries, &pos, &op_type, &capsule)) {
    OpEntry* entry = PyCapsule_GetPointer(capsule, NULL);
    PyObject* count = PyLong_FromLong(entry->count);
    if (count == NULL || PyDict_SetItem(info, op_type, count) < 0) Py_CLEAR(info);
    Py_XDECREF(count);
  }
  return info;
}

static PyMethodDef methods[] = {
    {"execute_op", (PyCFunction)(void (*)(void))execute_op, METH_FASTCALL | METH_KEYWORDS,
     "execute_op(op_type, inputs, attrs, name=None): runs an op eagerly; see "
     "opgen.runtime.eager.execute_op."},
    {"execute_eager", (PyCFunction)(void (*)(void))execute_eager, METH_FASTCALL | METH_KEYWORDS,
     "execute_eager(op_type, inputs, attrs, name=None): execute_op without the graph-mode "
     "check."},
    {"set_eager_device", set_eager_device, METH_O,
     "set_eager_device(index): this thread's eager device (0: none); see opgen.runtime.devices."},
    {"eager_device", get_eager_device, METH_NOARGS, "this thread's eager device index"},
    {"set_graph_dispatch", set_graph_dispatch, METH_O,
     "set_graph_dispatch(callable or None): where execute_op sends every call while set."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     "configure(binder, python_execute, resolver, raise_status, tensor_class)"},
    {"bind", bind_now, METH_NOARGS, "Binds the runtime library now (loads it)."},
    {"cache_info", cache_info, METH_NOARGS, "{op_type: number of cached signatures}"},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_eager_fastpath",
    "Compiled fast path of opgen's eager op dispatch (see opgen.runtime.eager).", -1, methods};

PyMODINIT_FUNC PyInit__eager_fastpath(void) {
  import_array();
  if (PyType_Ready(&TensorBaseType) < 0) return NULL;
  PyObject* module = PyModule_Create(&module_def);
  if (module == NULL) return NULL;
  op_entries = PyDict_New();
  if (op_entries == NULL || PyModule_AddObjectRef(module, "TensorBase", (PyObject*)&TensorBaseType) < 0) {
    Py_DECREF(module);
    return NULL;
  }
  return module;
}
