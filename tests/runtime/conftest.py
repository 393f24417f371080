import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

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


REPO = Path(__file__).resolve().parents[2]
# The runtime sources a harness of internal classes links: the wire format and what it
# needs, not the whole library.
HARNESS_SOURCES = ("wire_format.cc", "tensor.cc", "status.cc", "host_block_cache.cc",
                   "shape_check.cc", "tstring.cc", "tensor_attr.cc")


@pytest.fixture(scope="module")
def build_runtime_harness(tmp_path_factory):
    """build(main, *extra_sources): builds tests/runtime/<main> with the runtime's
    HARNESS_SOURCES and `extra_sources` (names under runtime/src) into an executable and
    returns its path; skips without a C++ compiler."""
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not compiler:
        pytest.skip("no C++ compiler to build the runtime harness")
    src = REPO / "runtime" / "src"

    def build(main: str, *extra_sources: str) -> Path:
        exe = tmp_path_factory.mktemp("harness") / Path(main).stem
        subprocess.run(
            [compiler, "-std=c++17", "-O0", f"-I{REPO / 'runtime' / 'include'}", f"-I{src}",
             str(REPO / "tests" / "runtime" / main),
             *(str(src / name) for name in HARNESS_SOURCES + extra_sources), "-o", str(exe)],
            check=True)
        return exe
    return build


# ---- Shape inference through the graph API ---------------------------------------------

class ShapeInferenceError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"[{code}] {message}")
        self.code, self.message = code, message


class Partial:
    """An input whose value is not known while the graph is built (a Placeholder): a shape
    (None for an unknown rank, None entries for unknown dims) and a numpy dtype."""

    def __init__(self, shape, dtype=np.float32):
        self.shape = None if shape is None else tuple(shape)
        self.dtype = np.dtype(dtype)


class ShapeAttr(tuple):
    """A shape attr value (None entries: unknown dims)."""


def attr_value(value):
    """An AttrValue proto for a Python value: bool, int, float, str, list of ints or of
    numpy dtypes, list of floats, numpy array (tensor), numpy dtype (type), ShapeAttr or {"func": name}."""
    from opgen.protos import attr_value_pb2, tensor_pb2
    from graph_capi import NP_TO_TF
    v = attr_value_pb2.AttrValue()
    if isinstance(value, ShapeAttr):
        v.shape.SetInParent()  # a scalar shape has no dims but must still be there
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
        v.type = NP_TO_TF[value]
    elif isinstance(value, np.ndarray):
        t = tensor_pb2.TensorProto(dtype=NP_TO_TF[value.dtype], tensor_content=value.tobytes())
        for d in value.shape:
            t.tensor_shape.dim.add(size=d)
        v.tensor.CopyFrom(t)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(x, np.dtype) for x in value):
        v.list.type.extend(NP_TO_TF[x] for x in value)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(x, float) for x in value):
        v.list.f.extend(value)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(x, str) for x in value):
        v.list.s.extend(x.encode() for x in value)
    elif isinstance(value, (list, tuple)):
        v.list.i.extend(int(x) for x in value)
    elif isinstance(value, dict) and set(value) == {"func"}:
        v.func.name = value["func"]
    else:
        raise TypeError(f"no AttrValue for {value!r}")
    return v


class ShapeInference:
    """The output shapes of one node added to a fresh graph through TensorFlow's C API
    (TF_FinishOperation, then TF_GraphGetTensorShape).

    `inputs`, flattened over input args, are numpy arrays (Const nodes: shape and value
    known) or Partial (Placeholder nodes); `arg_sizes` groups them (default: one per arg).
    Returns one shape per output: None for an unknown rank, else a tuple with None for
    unknown dims. A refused node raises ShapeInferenceError."""

    Partial, ShapeAttr, Error = Partial, ShapeAttr, ShapeInferenceError

    def __init__(self, lib: ctypes.CDLL):
        from graph_capi import Api
        self.api = Api(lib)
        self.lib = self.api.lib

    def _input(self, graph, name, x):
        from graph_capi import NP_TO_TF, TF_Output
        if isinstance(x, np.ndarray):
            return TF_Output(self.api.const(graph, name, x), 0)
        shape = None if x.shape is None else [-1 if d is None else d for d in x.shape]
        return TF_Output(self.api.placeholder(graph, name, NP_TO_TF[x.dtype], shape), 0)

    def _op_def(self, graph, op):
        from opgen.protos import op_def_pb2
        data = self.api.buffer_bytes(
            lambda buf: self.lib.TF_GraphGetOpDef(graph, op.encode(), buf, self.api.status))
        return op_def_pb2.OpDef.FromString(data)

    def __call__(self, op: str, inputs=(), attrs=None, arg_sizes=None, node: str = "node"):
        from graph_capi import TF_Output
        lib, status = self.lib, self.api.status
        inputs = list(inputs)
        arg_sizes = list(arg_sizes) if arg_sizes is not None else [1] * len(inputs)
        assert sum(arg_sizes) == len(inputs)
        graph = lib.TF_NewGraph()
        try:
            outputs = [self._input(graph, f"input{i}", x) for i, x in enumerate(inputs)]
            args = self._op_def(graph, op).input_arg
            desc = lib.TF_NewOperation(graph, op.encode(), node.encode())
            for arg, size in zip(args, arg_sizes):
                group, outputs = outputs[:size], outputs[size:]
                if arg.number_attr or arg.type_list_attr:
                    lib.TF_AddInputList(desc, (TF_Output * size)(*group), size)
                else:
                    lib.TF_AddInput(desc, group[0])
            for name, value in (attrs or {}).items():
                blob = attr_value(value).SerializeToString()
                lib.TF_SetAttrValueProto(desc, name.encode(), blob, len(blob), status)
            oper = lib.TF_FinishOperation(desc, status)
            code = lib.TF_GetCode(status)
            if code != 0:
                raise ShapeInferenceError(code, lib.TF_Message(status).decode())
            return [self._shape(graph, TF_Output(oper, k))
                    for k in range(lib.TF_OperationNumOutputs(oper))]
        finally:
            lib.TF_DeleteGraph(graph)

    def _shape(self, graph, output):
        num_dims = self.lib.TF_GraphGetTensorNumDims(graph, output, self.api.status)
        self.api.check()
        if num_dims < 0:
            return None
        dims = (ctypes.c_int64 * num_dims)()
        self.lib.TF_GraphGetTensorShape(graph, output, dims, num_dims, self.api.status)
        self.api.check()
        return tuple(None if d < 0 else d for d in dims)


@pytest.fixture(scope="module")
def infer_shapes(runtime_cdll):
    """A ShapeInference over the runtime library."""
    sys.path.insert(0, str(Path(__file__).parent))  # graph_capi
    return ShapeInference(runtime_cdll)


@pytest.fixture(scope="module")
def api(runtime_cdll):
    """graph_capi's declarations of the C graph and session API on the runtime library."""
    sys.path.insert(0, str(Path(__file__).parent))  # graph_capi
    from graph_capi import Api
    a = Api(runtime_cdll)
    yield a
    a.close()


@pytest.fixture
def graph(api):
    """A fresh TF_Graph, deleted after the test."""
    g = api.lib.TF_NewGraph()
    yield g
    api.lib.TF_DeleteGraph(g)
