"""Kernels registered through the public kernel builder, run through the eager C API.

The kernels here are Python callbacks, registered exactly as a C plugin would, so the
test exercises the registry, attr completion and the kernel contexts on their own."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

c_void_p, c_int, c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
CREATE = ctypes.CFUNCTYPE(c_void_p, c_void_p)
COMPUTE = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
DELETE = ctypes.CFUNCTYPE(None, c_void_p)
TF_FLOAT, TF_DOUBLE, TF_INT32 = 1, 2, 3
OK, INVALID_ARGUMENT, NOT_FOUND = 0, 3, 5


def _declare(lib):
    sig = {
        "TF_NewStatus": (c_void_p, []), "TF_DeleteStatus": (None, [c_void_p]),
        "TF_GetCode": (c_int, [c_void_p]), "TF_Message": (c_char_p, [c_void_p]),
        "TF_SetStatus": (None, [c_void_p, c_int, c_char_p]),
        "TF_NewOpDefinitionBuilder": (c_void_p, [c_char_p]),
        "TF_OpDefinitionBuilderAddAttr": (None, [c_void_p, c_char_p]),
        "TF_OpDefinitionBuilderAddInput": (None, [c_void_p, c_char_p]),
        "TF_OpDefinitionBuilderAddOutput": (None, [c_void_p, c_char_p]),
        "TF_RegisterOpDefinition": (None, [c_void_p, c_void_p]),
        "TF_NewKernelBuilder": (c_void_p, [c_char_p, c_char_p, CREATE, COMPUTE, DELETE]),
        "TF_KernelBuilder_TypeConstraint": (None, [c_void_p, c_char_p, c_int, c_void_p]),
        "TF_RegisterKernelBuilder": (None, [c_char_p, c_void_p, c_void_p]),
        "TF_OpKernelConstruction_GetAttrFloat": (None, [c_void_p, c_char_p, ctypes.POINTER(ctypes.c_float), c_void_p]),
        "TF_OpKernelConstruction_Failure": (None, [c_void_p, c_void_p]),
        "TF_GetInput": (None, [c_void_p, c_int, ctypes.POINTER(c_void_p), c_void_p]),
        "TF_AllocateOutput": (c_void_p, [c_void_p, c_int, c_int, ctypes.POINTER(ctypes.c_int64), c_int, ctypes.c_size_t, c_void_p]),
        "TF_OpKernelContext_Failure": (None, [c_void_p, c_void_p]),
        "TF_ExpectedOutputDataType": (c_int, [c_void_p, c_int]),
        "TF_NumInputs": (c_int, [c_void_p]),
        "TF_AllocateTensor": (c_void_p, [c_int, ctypes.POINTER(ctypes.c_int64), c_int, ctypes.c_size_t]),
        "TF_DeleteTensor": (None, [c_void_p]), "TF_TensorData": (c_void_p, [c_void_p]),
        "TF_TensorElementCount": (ctypes.c_int64, [c_void_p]),
        "TF_NumDims": (c_int, [c_void_p]), "TF_Dim": (ctypes.c_int64, [c_void_p, c_int]),
        "TF_TensorType": (c_int, [c_void_p]),
        "TFE_NewContextOptions": (c_void_p, []), "TFE_DeleteContextOptions": (None, [c_void_p]),
        "TFE_NewContext": (c_void_p, [c_void_p, c_void_p]), "TFE_DeleteContext": (None, [c_void_p]),
        "TFE_NewTensorHandle": (c_void_p, [c_void_p, c_void_p]),
        "TFE_DeleteTensorHandle": (None, [c_void_p]),
        "TFE_TensorHandleResolve": (c_void_p, [c_void_p, c_void_p]),
        "TFE_NewOp": (c_void_p, [c_void_p, c_char_p, c_void_p]), "TFE_DeleteOp": (None, [c_void_p]),
        "TFE_OpAddInput": (None, [c_void_p, c_void_p, c_void_p]),
        "TFE_OpAddInputList": (None, [c_void_p, ctypes.POINTER(c_void_p), c_int, c_void_p]),
        "TFE_OpSetAttrFloat": (None, [c_void_p, c_char_p, ctypes.c_float]),
        "TFE_OpSetAttrInt": (None, [c_void_p, c_char_p, ctypes.c_int64]),
        "TFE_OpSetAttrType": (None, [c_void_p, c_char_p, c_int]),
        "TFE_Execute": (None, [c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_int), c_void_p]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes


class Runtime:
    def __init__(self, lib):
        self.lib = lib
        self.status = lib.TF_NewStatus()
        opts = lib.TFE_NewContextOptions()
        self.ctx = lib.TFE_NewContext(opts, self.status)
        lib.TFE_DeleteContextOptions(opts)
        assert self.code == OK, self.message
        self.handles = []  # every handle made, freed when the module's tests end

    def close(self):
        for h in self.handles:
            self.lib.TFE_DeleteTensorHandle(h)
        self.lib.TFE_DeleteContext(self.ctx)
        self.lib.TF_DeleteStatus(self.status)

    @property
    def code(self):
        return self.lib.TF_GetCode(self.status)

    @property
    def message(self):
        return self.lib.TF_Message(self.status).decode()

    def handle(self, array: np.ndarray, dtype: int):
        dims = (ctypes.c_int64 * array.ndim)(*array.shape)
        t = self.lib.TF_AllocateTensor(dtype, dims, array.ndim, array.nbytes)
        ctypes.memmove(self.lib.TF_TensorData(t), array.ctypes.data, array.nbytes)
        h = self.lib.TFE_NewTensorHandle(t, self.status)
        self.lib.TF_DeleteTensor(t)  # the handle keeps the data alive
        self.handles.append(h)
        return h

    def to_numpy(self, handle, np_dtype):
        t = self.lib.TFE_TensorHandleResolve(handle, self.status)
        shape = tuple(self.lib.TF_Dim(t, i) for i in range(self.lib.TF_NumDims(t)))
        n = self.lib.TF_TensorElementCount(t)
        out = np.empty(shape, np_dtype)
        ctypes.memmove(out.ctypes.data, self.lib.TF_TensorData(t), n * out.itemsize)
        self.lib.TF_DeleteTensor(t)
        return out

    def execute(self, op_type, inputs=(), attrs=None, capacity=4):
        """Runs an op; returns the output handles, or None with the status set."""
        op = self.lib.TFE_NewOp(self.ctx, op_type.encode(), self.status)
        if self.code != OK:
            return None
        for x in inputs:
            if isinstance(x, list):
                arr = (c_void_p * len(x))(*x)
                self.lib.TFE_OpAddInputList(op, arr, len(x), self.status)
            else:
                self.lib.TFE_OpAddInput(op, x, self.status)
        for name, (setter, value) in (attrs or {}).items():
            getattr(self.lib, f"TFE_OpSetAttr{setter}")(op, name.encode(), value)
        retvals = (c_void_p * capacity)()
        n = c_int(capacity)
        self.lib.TFE_Execute(op, retvals, ctypes.byref(n), self.status)
        self.lib.TFE_DeleteOp(op)
        if self.code != OK:
            return None
        self.handles.extend(retvals[: n.value])
        return list(retvals[: n.value])


@pytest.fixture(scope="module")
def rt(runtime_cdll):
    lib = runtime_cdll
    _declare(lib)
    runtime = Runtime(lib)
    _register_scale_op(runtime)
    yield runtime
    runtime.close()


_callbacks = []  # keep the C function pointers alive for the process


def _register_scale_op(rt):
    """OpgenTestScale: y = factor * sum(xs) over a list input, float kernel only."""
    lib, status = rt.lib, rt.status
    b = lib.TF_NewOpDefinitionBuilder(b"OpgenTestScale")
    for spec in (b"N: int >= 1", b"T: {float, double}", b"factor: float = 2.0"):
        lib.TF_OpDefinitionBuilderAddAttr(b, spec)
    lib.TF_OpDefinitionBuilderAddInput(b, b"xs: N * T")
    lib.TF_OpDefinitionBuilderAddOutput(b, b"y: T")
    lib.TF_RegisterOpDefinition(b, status)
    assert rt.code == OK, rt.message

    @CREATE
    def create(construction):
        factor = ctypes.c_float()
        st = lib.TF_NewStatus()
        lib.TF_OpKernelConstruction_GetAttrFloat(construction, b"factor", ctypes.byref(factor), st)
        if factor.value < 0:
            lib.TF_SetStatus(st, INVALID_ARGUMENT, b"factor must not be negative")
            lib.TF_OpKernelConstruction_Failure(construction, st)
        lib.TF_DeleteStatus(st)
        return ctypes.cast(ctypes.pointer(ctypes.c_float(factor.value)), c_void_p).value

    kernel_state = {}

    @COMPUTE
    def compute(state, ctx):
        st = lib.TF_NewStatus()
        factor = ctypes.cast(state, ctypes.POINTER(ctypes.c_float)).contents.value if state else 1.0
        total = None
        for i in range(lib.TF_NumInputs(ctx)):
            t = c_void_p()
            lib.TF_GetInput(ctx, i, ctypes.byref(t), st)
            n = lib.TF_TensorElementCount(t)
            shape = tuple(lib.TF_Dim(t, d) for d in range(lib.TF_NumDims(t)))
            x = np.ctypeslib.as_array(ctypes.cast(lib.TF_TensorData(t), ctypes.POINTER(ctypes.c_float)), (max(n, 1),))[:n].reshape(shape).copy()
            lib.TF_DeleteTensor(t)
            if total is not None and total.shape != x.shape:
                lib.TF_SetStatus(st, INVALID_ARGUMENT, b"shapes differ")
                lib.TF_OpKernelContext_Failure(ctx, st)
                lib.TF_DeleteStatus(st)
                return
            total = x if total is None else total + x
        y = (total * factor).astype(np.float32)
        dims = (ctypes.c_int64 * y.ndim)(*y.shape)
        out = lib.TF_AllocateOutput(ctx, 0, lib.TF_ExpectedOutputDataType(ctx, 0), dims, y.ndim, y.nbytes, st)
        ctypes.memmove(lib.TF_TensorData(out), y.ctypes.data, y.nbytes)
        lib.TF_DeleteTensor(out)
        lib.TF_DeleteStatus(st)

    @DELETE
    def delete(state):
        pass

    _callbacks.extend([create, compute, delete, kernel_state])
    kb = lib.TF_NewKernelBuilder(b"OpgenTestScale", b"CPU", create, compute, delete)
    lib.TF_KernelBuilder_TypeConstraint(kb, b"T", TF_FLOAT, status)
    lib.TF_RegisterKernelBuilder(b"OpgenTestScaleCpuFloat", kb, status)
    assert rt.code == OK, rt.message


def test_list_input_infers_length_and_type_and_uses_defaults(rt):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((2, 3), np.float32)
    out = rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT), rt.handle(b, TF_FLOAT)]])
    assert out is not None, rt.message
    np.testing.assert_array_equal(rt.to_numpy(out[0], np.float32), 2.0 * (a + b))


def test_attr_set_by_caller_reaches_the_kernel(rt):
    a = np.arange(4, dtype=np.float32)
    out = rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT)]], {"factor": ("Float", 0.5)})
    assert out is not None, rt.message
    np.testing.assert_array_equal(rt.to_numpy(out[0], np.float32), 0.5 * a)


def test_missing_kernel_lists_what_is_registered(rt):
    a = np.arange(4, dtype=np.float64)
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_DOUBLE)]]) is None
    assert rt.code == NOT_FOUND
    assert "OpgenTestScale" in rt.message and "T in [DT_FLOAT]" in rt.message
    assert "T=DT_DOUBLE" in rt.message


def test_type_outside_allowed_values_is_invalid_argument(rt):
    a = np.arange(4, dtype=np.int32)
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_INT32)]]) is None
    assert rt.code == INVALID_ARGUMENT
    assert "OpgenTestScale" in rt.message and "'T'" in rt.message and "int32" in rt.message


@pytest.mark.parametrize("attrs, fragment", [
    ({"factor": ("Int", 3)}, "attr 'factor' must be a float"),
    ({"nonsense": ("Float", 1.0)}, "no attr named 'nonsense'"),
    ({"N": ("Int", 5)}, "implies N=1"),
    ({"T": ("Type", TF_DOUBLE)}, "implies T=DT_FLOAT"),
])
def test_bad_attrs_are_reported_with_op_and_attr(rt, attrs, fragment):
    a = np.arange(4, dtype=np.float32)
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT)]], attrs) is None
    assert rt.code == INVALID_ARGUMENT and fragment in rt.message


def test_kernel_failures_surface_as_status(rt):
    a = np.arange(4, dtype=np.float32)
    b = np.arange(3, dtype=np.float32)
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT), rt.handle(b, TF_FLOAT)]]) is None
    assert rt.code == INVALID_ARGUMENT and "shapes differ" in rt.message
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT)]], {"factor": ("Float", -1.0)}) is None
    assert rt.code == INVALID_ARGUMENT and "must not be negative" in rt.message


def test_wrong_input_count_and_unknown_op(rt):
    assert rt.execute("OpgenTestScale", []) is None
    assert rt.code == INVALID_ARGUMENT and "expects 1 inputs" in rt.message
    assert rt.execute("NoSuchOpAnywhere") is None
    assert rt.code == NOT_FOUND and "NoSuchOpAnywhere" in rt.message


def test_too_few_retvals_is_refused(rt):
    a = np.arange(4, dtype=np.float32)
    assert rt.execute("OpgenTestScale", [[rt.handle(a, TF_FLOAT)]], capacity=0) is None
    assert rt.code == INVALID_ARGUMENT


def _kernel_def(op: str, device: str, constraints=(), label: str = "", priority: int = 0) -> bytes:
    """KernelDef bytes (op=1, device_type=2, constraint=3 {name=1, allowed_values=2},
    label=5, priority=6), written by hand: opgen has no kernel_def proto module."""
    from opgen.protos import attr_value_pb2

    def field(number: int, payload: bytes) -> bytes:
        assert len(payload) < 128
        return bytes([number << 3 | 2, len(payload)]) + payload
    out = field(1, op.encode()) + field(2, device.encode())
    for name, types in constraints:
        allowed = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(type=types))
        out += field(3, field(1, name.encode()) + field(2, allowed.SerializeToString()))
    if label:
        out += field(5, label.encode())
    if priority:
        out += bytes([6 << 3, priority])
    assert b"\0" not in out  # TensorFlow's signature reads the bytes as a C string
    return out


@pytest.fixture(scope="module")
def identity_op(rt):
    """OpgenTestKernelDefIdentity, with kernels registered from KernelDef bytes."""
    lib, status = rt.lib, rt.status
    lib.TF_SetOutput.argtypes = [c_void_p, c_int, c_void_p, c_void_p]
    lib.TF_RegisterKernelBuilderWithKernelDef.argtypes = [c_char_p, c_char_p, c_void_p, c_void_p]
    name = "OpgenTestKernelDefIdentity"
    b = lib.TF_NewOpDefinitionBuilder(name.encode())
    lib.TF_OpDefinitionBuilderAddAttr(b, b"T: {float, double, int32, int64}")
    lib.TF_OpDefinitionBuilderAddInput(b, b"x: T")
    lib.TF_OpDefinitionBuilderAddOutput(b, b"y: T")
    lib.TF_RegisterOpDefinition(b, status)
    assert rt.code == OK, rt.message

    @COMPUTE
    def compute(state, ctx):
        st = lib.TF_NewStatus()
        t = c_void_p()
        lib.TF_GetInput(ctx, 0, ctypes.byref(t), st)
        lib.TF_SetOutput(ctx, 0, t, st)  # shares the input's buffer
        lib.TF_DeleteTensor(t)
        lib.TF_DeleteStatus(st)
    _callbacks.append(compute)

    def register(kernel_def: bytes | None, kernel_name: bytes = b"identity"):
        kb = lib.TF_NewKernelBuilder(b"Ignored" if kernel_def else name.encode(), b"CPU",
                                     CREATE(), compute, DELETE())
        lib.TF_RegisterKernelBuilderWithKernelDef(kernel_def, kernel_name, kb, status)
        return rt.code, rt.message

    assert register(_kernel_def(name, "CPU", [("T", [TF_FLOAT, TF_DOUBLE])], priority=3)) == (OK, "")
    return name, register


def test_a_kernel_def_allowing_several_dtypes_serves_each(rt, identity_op):
    name, _ = identity_op
    for dtype, np_dtype in ((TF_FLOAT, np.float32), (TF_DOUBLE, np.float64)):
        a = np.arange(5, dtype=np_dtype)
        out = rt.execute(name, [rt.handle(a, dtype)])
        assert out is not None, rt.message
        np.testing.assert_array_equal(rt.to_numpy(out[0], np_dtype), a)


def test_a_kernel_def_miss_lists_each_registered_combination(rt, identity_op):
    name, _ = identity_op
    assert rt.execute(name, [rt.handle(np.arange(3, dtype=np.int32), TF_INT32)]) is None
    assert rt.code == NOT_FOUND
    assert f"No registered '{name}' OpKernel for 'CPU' devices" in rt.message
    assert "T in [DT_FLOAT]; priority=3" in rt.message and "T in [DT_DOUBLE]; priority=3" in rt.message


def test_kernel_def_registration_errors(rt, identity_op):
    name, register = identity_op
    TF_INT64, ALREADY_EXISTS = 9, 6
    # A labelled kernel registers, but serves only nodes whose "_kernel" attr names it.
    assert register(_kernel_def(name, "CPU", [("T", [TF_INT64])], label="fast")) == (OK, "")
    assert rt.execute(name, [rt.handle(np.arange(3, dtype=np.int64), TF_INT64)]) is None
    assert rt.code == NOT_FOUND and "T in [DT_INT64]; label='fast'" in rt.message
    code, message = register(_kernel_def(name, "CPU", [("T", [TF_FLOAT])], priority=3))
    assert code == ALREADY_EXISTS and name in message
    code, message = register(_kernel_def("OpgenNoSuchOp", "CPU"))
    assert code == NOT_FOUND and "OpgenNoSuchOp" in message
    code, message = register(b"\x0a\x7fshort")
    assert code == INVALID_ARGUMENT and "malformed KernelDef" in message
    # No KernelDef: the builder's own op and device, exactly as TF_RegisterKernelBuilder.
    assert register(None) == (OK, "")
    out = rt.execute(name, [rt.handle(np.arange(3, dtype=np.int64), TF_INT64)])
    assert out is not None, rt.message
