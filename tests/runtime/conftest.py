import ctypes

import numpy as np
import pytest


@pytest.fixture(scope="module")
def runtime_cdll():
    """A fresh ctypes handle on the runtime library, for tests that declare C functions
    themselves (independent of opgen.runtime's declarations). Skips without a library."""
    from opgen import _paths
    from opgen.runtime import _lib
    try:
        path = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    _lib._preload_openblas()
    return ctypes.CDLL(str(path))


# ---- Shape inference without a graph: OPGEN_InferShapesForTesting ----------------------

class _Buffer(ctypes.Structure):  # TF_Buffer
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t),
                ("data_deallocator", ctypes.c_void_p)]


class ShapeInferenceError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"[{code}] {message}")
        self.code, self.message = code, message


class Partial:
    """An input whose value is not known while the graph is built: a shape (None for an
    unknown rank, None entries for unknown dims) and a numpy dtype."""

    def __init__(self, shape, dtype=np.float32):
        self.shape = None if shape is None else tuple(shape)
        self.dtype = np.dtype(dtype)


class ShapeAttr(tuple):
    """A shape attr value (None entries: unknown dims); `ShapeAttr.unknown()` for an
    unknown rank."""

    unknown_rank = False

    @classmethod
    def unknown(cls):
        s = cls(())
        s.unknown_rank = True
        return s


# TF_DataType values (tf_datatype.h) of the numpy dtypes tests use.
TF_DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
             np.dtype(np.uint8): 4, np.dtype(np.int16): 5, np.dtype(np.int8): 6,
             np.dtype(np.int64): 9, np.dtype(np.bool_): 10}


def attr_value(value):
    """An AttrValue proto for a Python value: bool, int, float, str, list of ints, numpy
    array (tensor), numpy dtype (type) or ShapeAttr."""
    from opgen.protos import attr_value_pb2, tensor_pb2
    v = attr_value_pb2.AttrValue()
    if isinstance(value, ShapeAttr):
        v.shape.unknown_rank = value.unknown_rank
        for d in value:
            v.shape.dim.add(size=-1 if d is None else d)
    elif isinstance(value, (bool, np.bool_)):
        v.b = bool(value)
    elif isinstance(value, int):
        v.i = value
    elif isinstance(value, float):
        v.f = value
    elif isinstance(value, str):
        v.s = value.encode()
    elif isinstance(value, np.dtype):
        v.type = TF_DTYPES[value]
    elif isinstance(value, np.ndarray):
        t = tensor_pb2.TensorProto(dtype=TF_DTYPES[value.dtype], tensor_content=value.tobytes())
        for d in value.shape:
            t.tensor_shape.dim.add(size=d)
        v.tensor.CopyFrom(t)
    elif isinstance(value, (list, tuple)):
        v.list.i.extend(int(x) for x in value)
    else:
        raise TypeError(f"no AttrValue for {value!r}")
    return v


class ShapeInference:
    """Calls OPGEN_InferShapesForTesting: the output shapes of one would-be graph node.

    `inputs` are numpy arrays (constants: shape and value known) or Partial (value
    unknown), flattened over input args; `arg_sizes` groups them (default: one per arg).
    Returns one shape per output: None for an unknown rank, else a tuple with None for
    unknown dims. Errors raise ShapeInferenceError."""

    Partial, ShapeAttr, Error = Partial, ShapeAttr, ShapeInferenceError

    def __init__(self, lib: ctypes.CDLL):
        P, c_void_p, c_int = ctypes.POINTER, ctypes.c_void_p, ctypes.c_int
        self.lib = lib
        for name, restype, argtypes in [
            ("TF_NewStatus", c_void_p, []), ("TF_DeleteStatus", None, [c_void_p]),
            ("TF_GetCode", c_int, [c_void_p]), ("TF_Message", ctypes.c_char_p, [c_void_p]),
            ("TF_AllocateTensor", c_void_p, [c_int, P(ctypes.c_int64), c_int, ctypes.c_size_t]),
            ("TF_TensorData", c_void_p, [c_void_p]), ("TF_DeleteTensor", None, [c_void_p]),
            ("TF_DeleteBuffer", None, [P(_Buffer)]),
            ("OPGEN_InferShapesForTesting", P(_Buffer),
             [ctypes.c_char_p, ctypes.c_char_p, P(ctypes.c_char_p), P(c_void_p),
              P(ctypes.c_size_t), c_int, P(c_int), c_int, P(c_int), P(c_int),
              P(ctypes.c_int64), P(c_void_p), c_void_p]),
        ]:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes

    def _tensor(self, array: np.ndarray):
        array = np.ascontiguousarray(array)
        dims = (ctypes.c_int64 * array.ndim)(*array.shape)
        t = self.lib.TF_AllocateTensor(TF_DTYPES[array.dtype], dims, array.ndim, array.nbytes)
        ctypes.memmove(self.lib.TF_TensorData(t), array.ctypes.data, array.nbytes)
        return t

    def __call__(self, op: str, inputs=(), attrs=None, arg_sizes=None, node: str = "node"):
        from opgen.protos import attr_value_pb2
        attrs = attrs or {}
        inputs = list(inputs)
        arg_sizes = list(arg_sizes) if arg_sizes is not None else [1] * len(inputs)
        assert sum(arg_sizes) == len(inputs)
        blobs = [attr_value(v).SerializeToString() for v in attrs.values()]
        names = (ctypes.c_char_p * len(attrs))(*[k.encode() for k in attrs])
        values = (ctypes.c_void_p * len(blobs))(*[ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p)
                                                   for b in blobs])
        lengths = (ctypes.c_size_t * len(blobs))(*[len(b) for b in blobs])
        n = len(inputs)
        num_dims, dims, dtypes, tensors = [], [], [], []
        for x in inputs:
            shape = x.shape
            num_dims.append(-1 if shape is None else len(shape))
            dims.extend(-1 if d is None else d for d in (shape or ()))
            dtypes.append(TF_DTYPES[np.dtype(x.dtype)])
            tensors.append(self._tensor(x) if isinstance(x, np.ndarray) else None)
        status = self.lib.TF_NewStatus()
        try:
            buf = self.lib.OPGEN_InferShapesForTesting(
                op.encode(), node.encode(), names, values, lengths, len(attrs),
                (ctypes.c_int * len(arg_sizes))(*arg_sizes), len(arg_sizes),
                (ctypes.c_int * n)(*dtypes), (ctypes.c_int * n)(*num_dims),
                (ctypes.c_int64 * len(dims))(*dims), (ctypes.c_void_p * n)(*tensors), status)
            code = self.lib.TF_GetCode(status)
            if code != 0:
                raise ShapeInferenceError(code, self.lib.TF_Message(status).decode())
            result = attr_value_pb2.AttrValue.FromString(
                ctypes.string_at(buf.contents.data, buf.contents.length))
            self.lib.TF_DeleteBuffer(buf)
        finally:
            self.lib.TF_DeleteStatus(status)
            for t in tensors:
                if t:
                    self.lib.TF_DeleteTensor(t)
        return [None if s.unknown_rank else tuple(None if d.size < 0 else d.size for d in s.dim)
                for s in result.list.shape]


@pytest.fixture(scope="module")
def infer_shapes(runtime_cdll):
    """A ShapeInference over the runtime library."""
    return ShapeInference(runtime_cdll)
