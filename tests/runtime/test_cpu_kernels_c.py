"""The built-in CPU kernels, run through the eager C API alone, agree with numpy.

Only TensorFlow's C API is used (TF_AllocateTensor, TFE_NewOp, TFE_OpSetAttr*,
TFE_Execute, ...) through ctypes, and every type attr is set explicitly as a C caller of
TensorFlow would set it, so these tests need nothing of opgen's Python binding. The
library is the installed one, or $OPGEN_RUNTIME_LIB."""

from __future__ import annotations

import ctypes
import zlib

import numpy as np
import pytest

c_void_p, c_int, c_char_p, c_int64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int64
OK, INVALID_ARGUMENT, NOT_FOUND = 0, 3, 5

# TF_DataType values (tf_datatype.h) of the dtypes the CPU kernels cover.
DTYPES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2, np.dtype(np.int32): 3,
          np.dtype(np.int64): 9, np.dtype(np.bool_): 10}
NUMPY_OF = {code: dtype for dtype, code in DTYPES.items()}
NUMERIC = [np.float32, np.float64, np.int32, np.int64]


class OpError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"[{code}] {message}")
        self.code, self.message = code, message


class EagerC:
    """A TFE_Context and the few C functions needed to run one op on numpy arrays."""

    SIGNATURES = {
        "TF_NewStatus": (c_void_p, []), "TF_DeleteStatus": (None, [c_void_p]),
        "TF_GetCode": (c_int, [c_void_p]), "TF_Message": (c_char_p, [c_void_p]),
        "TF_AllocateTensor": (c_void_p, [c_int, ctypes.POINTER(c_int64), c_int, ctypes.c_size_t]),
        "TF_DeleteTensor": (None, [c_void_p]), "TF_TensorData": (c_void_p, [c_void_p]),
        "TF_TensorByteSize": (ctypes.c_size_t, [c_void_p]),
        "TF_NumDims": (c_int, [c_void_p]), "TF_Dim": (c_int64, [c_void_p, c_int]),
        "TF_TensorType": (c_int, [c_void_p]),
        "TFE_NewContextOptions": (c_void_p, []), "TFE_DeleteContextOptions": (None, [c_void_p]),
        "TFE_NewContext": (c_void_p, [c_void_p, c_void_p]), "TFE_DeleteContext": (None, [c_void_p]),
        "TFE_NewTensorHandle": (c_void_p, [c_void_p, c_void_p]),
        "TFE_DeleteTensorHandle": (None, [c_void_p]),
        "TFE_TensorHandleResolve": (c_void_p, [c_void_p, c_void_p]),
        "TFE_NewOp": (c_void_p, [c_void_p, c_char_p, c_void_p]), "TFE_DeleteOp": (None, [c_void_p]),
        "TFE_OpAddInput": (None, [c_void_p, c_void_p, c_void_p]),
        "TFE_OpSetAttrType": (None, [c_void_p, c_char_p, c_int]),
        "TFE_OpSetAttrBool": (None, [c_void_p, c_char_p, ctypes.c_ubyte]),
        "TFE_Execute": (None, [c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_int), c_void_p]),
    }

    def __init__(self, lib: ctypes.CDLL):
        for name, (restype, argtypes) in self.SIGNATURES.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.lib = lib
        self.status = lib.TF_NewStatus()
        options = lib.TFE_NewContextOptions()
        self.ctx = lib.TFE_NewContext(options, self.status)
        lib.TFE_DeleteContextOptions(options)
        self._check()

    def close(self) -> None:
        self.lib.TFE_DeleteContext(self.ctx)
        self.lib.TF_DeleteStatus(self.status)

    def _check(self) -> None:
        code = self.lib.TF_GetCode(self.status)
        if code != OK:
            raise OpError(code, self.lib.TF_Message(self.status).decode())

    def _handle(self, array: np.ndarray) -> int:
        array = np.require(array, requirements="C")  # ascontiguousarray would make 0-d 1-d
        dims = (c_int64 * array.ndim)(*array.shape)
        tensor = self.lib.TF_AllocateTensor(DTYPES[array.dtype], dims, array.ndim, array.nbytes)
        if array.nbytes:
            ctypes.memmove(self.lib.TF_TensorData(tensor), array.ctypes.data, array.nbytes)
        handle = self.lib.TFE_NewTensorHandle(tensor, self.status)
        self.lib.TF_DeleteTensor(tensor)  # the handle holds its own reference
        self._check()
        return handle

    def _array(self, handle: int) -> np.ndarray:
        tensor = self.lib.TFE_TensorHandleResolve(handle, self.status)
        self._check()
        try:
            shape = tuple(self.lib.TF_Dim(tensor, i) for i in range(self.lib.TF_NumDims(tensor)))
            out = np.empty(shape, NUMPY_OF[self.lib.TF_TensorType(tensor)])
            assert self.lib.TF_TensorByteSize(tensor) == out.nbytes
            if out.nbytes:
                ctypes.memmove(out.ctypes.data, self.lib.TF_TensorData(tensor), out.nbytes)
            return out
        finally:
            self.lib.TF_DeleteTensor(tensor)

    def run(self, op_type: str, inputs: list[np.ndarray], types: dict[str, type] | None = None,
            bools: dict[str, bool] | None = None) -> np.ndarray:
        """Runs `op_type` on `inputs` and returns its single output. `types` sets type
        attrs (by default T, as the first input's dtype), `bools` sets bool attrs."""
        inputs = [np.asarray(x) for x in inputs]
        if types is None:
            types = {"T": inputs[0].dtype}
        op = self.lib.TFE_NewOp(self.ctx, op_type.encode(), self.status)
        self._check()
        handles: list[int] = []
        try:
            for x in inputs:
                handles.append(self._handle(x))
                self.lib.TFE_OpAddInput(op, handles[-1], self.status)
                self._check()
            for name, dtype in types.items():
                self.lib.TFE_OpSetAttrType(op, name.encode(), DTYPES[np.dtype(dtype)])
            for name, value in (bools or {}).items():
                self.lib.TFE_OpSetAttrBool(op, name.encode(), int(value))
            retvals = (c_void_p * 1)()
            num_retvals = c_int(1)
            self.lib.TFE_Execute(op, retvals, ctypes.byref(num_retvals), self.status)
            self._check()
            assert num_retvals.value == 1
            handles.append(retvals[0])
            return self._array(retvals[0])
        finally:
            for h in handles:
                self.lib.TFE_DeleteTensorHandle(h)
            self.lib.TFE_DeleteOp(op)


@pytest.fixture(scope="module")
def rt(runtime_cdll):
    # The installed library, or $OPGEN_RUNTIME_LIB (see tests/runtime/conftest.py).
    runtime = EagerC(runtime_cdll)
    yield runtime
    runtime.close()


def seeded(*key) -> np.random.Generator:
    """A generator seeded by the test case, the same in every run."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def random_array(rng: np.random.Generator, shape, dtype, *, low=-50, high=50,
                 nonzero=False) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        x = rng.uniform(low, high, shape).astype(dtype)
    else:
        x = rng.integers(low, high, shape, dtype=dtype, endpoint=True)
    if nonzero:
        x[x == 0] = 1
    return x


# Shape pairs for binary ops: equal shapes, scalars on either side, numpy broadcasting
# in every direction, empty results, and one large enough to run on several threads.
BROADCAST_SHAPES = [
    ((), ()), ((5,), (5,)), ((2, 3), (2, 3)), ((2, 3), ()), ((), (2, 3)), ((4,), (1,)),
    ((2, 3), (3,)), ((3,), (2, 3)), ((4, 1, 3), (2, 1)), ((2, 1, 3), (1, 5, 1)),
    ((1, 1, 1), (2, 3)), ((2, 1, 4, 1), (3, 1, 5)), ((0,), ()), ((0, 3), (3,)),
    ((2, 0), (1,)), ((2, 1), (0,)), ((0,), (0,)), ((400, 1000), (400, 1000)),
    ((400, 1000), ()),
]
BINARY_NUMPY = {
    "AddV2": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "RealDiv": lambda x, y: np.true_divide(x, y).astype(x.dtype) if x.dtype.kind == "f"
    else truncating_divide(x, y),
}


def truncating_divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's integer division (toward zero), which TensorFlow's integer RealDiv performs."""
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -q, q).astype(np.result_type(x, y))


def assert_matches(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.shape)
    if got.dtype.kind == "f":
        rtol = 1e-6 if got.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", sorted(BINARY_NUMPY))
@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
def test_binary_ops_broadcast_like_numpy(rt, op, dtype, shapes):
    rng = seeded(op, np.dtype(dtype).name, shapes)
    x = random_array(rng, shapes[0], dtype)
    y = random_array(rng, shapes[1], dtype, nonzero=op == "RealDiv")
    assert_matches(rt.run(op, [x, y]), BINARY_NUMPY[op](x, y))


@pytest.mark.parametrize("op", sorted(BINARY_NUMPY))
@pytest.mark.parametrize("shapes, message", [
    (((2, 3), (4,)), "Incompatible shapes: [2,3] vs. [4]"),
    (((2, 3), (3, 2)), "Incompatible shapes: [2,3] vs. [3,2]"),
    (((0,), (2,)), "Incompatible shapes: [0] vs. [2]"),
])
def test_incompatible_shapes_are_invalid_argument(rt, op, shapes, message):
    with pytest.raises(OpError) as e:
        rt.run(op, [np.ones(shapes[0], np.float32), np.ones(shapes[1], np.float32)])
    assert e.value.code == INVALID_ARGUMENT
    assert op in e.value.message and message in e.value.message


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("y", [np.array([1, 0, 2]), np.array(0)], ids=["element", "scalar"])
def test_integer_division_by_zero_is_an_error_not_a_crash(rt, dtype, y):
    with pytest.raises(OpError) as e:
        rt.run("RealDiv", [np.array([4, 5, 6], dtype), y.astype(dtype)])
    assert e.value.code == INVALID_ARGUMENT
    assert "RealDiv" in e.value.message and "division by zero" in e.value.message


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_division_by_zero_follows_ieee(rt, dtype):
    x = np.array([1, -1, 0], dtype)
    got = rt.run("RealDiv", [x, np.zeros(3, dtype)])
    np.testing.assert_array_equal(got, np.array([np.inf, -np.inf, np.nan], dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_arithmetic_wraps_at_the_limits(rt, dtype):
    """Overflow wraps modulo 2^bits as numpy's does; MIN / -1, which traps in hardware,
    is MIN."""
    info = np.iinfo(dtype)
    x = np.array([info.min, info.max, info.min, 7], dtype)
    y = np.array([-1, 1, 1, -1], dtype)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(rt.run("RealDiv", [x, y]),
                                      np.array([info.min, info.max, info.min, -7], dtype))
        np.testing.assert_array_equal(rt.run("AddV2", [x, y]), np.add(x, y))
        np.testing.assert_array_equal(rt.run("Sub", [x, y]), np.subtract(x, y))
        np.testing.assert_array_equal(rt.run("Mul", [x, x]), np.multiply(x, x))
        np.testing.assert_array_equal(rt.run("Neg", [x]), np.negative(x))


UNARY_NUMPY = {"Neg": np.negative, "Relu": lambda x: np.maximum(x, np.zeros((), x.dtype))}
UNARY_SHAPES = [(), (1,), (7,), (3, 4), (2, 3, 4), (0,), (3, 0, 2), (600, 1000)]


@pytest.mark.parametrize("op", sorted(UNARY_NUMPY))
@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", UNARY_SHAPES, ids=str)
def test_unary_ops_match_numpy(rt, op, dtype, shape):
    rng = seeded(op, np.dtype(dtype).name, shape)
    x = random_array(rng, shape, dtype)
    assert_matches(rt.run(op, [x]), UNARY_NUMPY[op](x))


def test_neg_keeps_signed_zeros_and_nans(rt):
    x = np.array([0.0, -0.0, np.nan, np.inf], np.float32)
    got = rt.run("Neg", [x])
    np.testing.assert_array_equal(np.signbit(got[:2]), [True, False])
    assert np.isnan(got[2]) and got[3] == -np.inf


def test_a_dtype_the_opdef_forbids_is_refused(rt):
    with pytest.raises(OpError) as e:
        rt.run("Relu", [np.array([True, False])])
    assert e.value.code == INVALID_ARGUMENT and "Relu" in e.value.message


@pytest.mark.parametrize("dtype", NUMERIC + [np.bool_], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4), (0, 4)], ids=str)
def test_identity_returns_its_input(rt, dtype, shape):
    x = random_array(seeded(np.dtype(dtype).name, shape), shape, dtype)
    got = rt.run("Identity", [x])
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, x)


MATMUL_SHAPES = [(1, 1, 1), (2, 3, 4), (5, 7, 3), (64, 33, 17), (130, 70, 90),
                 (0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0)]  # (m, k, n)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("mkn", MATMUL_SHAPES, ids=str)
def test_matmul_matches_numpy(rt, dtype, transpose_a, transpose_b, mkn):
    m, k, n = mkn
    rng = seeded(np.dtype(dtype).name, mkn)
    a = random_array(rng, (m, k), dtype, low=-9, high=9)
    b = random_array(rng, (k, n), dtype, low=-9, high=9)
    a_in = np.ascontiguousarray(a.T) if transpose_a else a
    b_in = np.ascontiguousarray(b.T) if transpose_b else b
    got = rt.run("MatMul", [a_in, b_in],
                 bools={"transpose_a": transpose_a, "transpose_b": transpose_b})
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype)
    assert got.dtype == np.dtype(dtype) and got.shape == (m, n)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-12,
                                   atol=1e-3 if dtype == np.float32 else 1e-10)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("a_shape, b_shape, bools, fragments", [
    ((2, 3), (2, 3), {}, ["[2,3]"]),
    ((2, 3), (4, 3), {"transpose_a": True, "transpose_b": True}, ["[2,3]", "[4,3]"]),
    ((3,), (3, 2), {}, ["[3]", "[3,2]"]),
    ((2, 2, 2), (2, 2), {}, ["[2,2,2]"]),
    ((), (1, 1), {}, ["[]"]),
])
def test_matmul_shape_errors_name_the_op_and_shapes(rt, a_shape, b_shape, bools, fragments):
    with pytest.raises(OpError) as e:
        rt.run("MatMul", [np.ones(a_shape, np.float32), np.ones(b_shape, np.float32)], bools=bools)
    assert e.value.code == INVALID_ARGUMENT
    for fragment in ["MatMul"] + fragments:
        assert fragment in e.value.message


CAST_TYPES = NUMERIC + [np.bool_]


def cast_source(dtype) -> np.ndarray:
    """Values every destination type holds: fractions (truncated toward zero by a cast
    to an integer), zeros of both signs, and both signs of magnitude up to 2^24, which
    float32 represents exactly."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.array([[True, False, True], [False, False, True]])
    values = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.75, -0.75, 1e6 + 0.5, -(2.0 ** 24), 2.0 ** 24, 123.0]
    return np.array(values).astype(dtype).reshape(3, 4)


@pytest.mark.parametrize("src", CAST_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("dst", CAST_TYPES, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("truncate", [False, True])
def test_cast_matches_numpy_astype(rt, src, dst, truncate):
    x = cast_source(src)
    got = rt.run("Cast", [x], types={"SrcT": src, "DstT": dst}, bools={"Truncate": truncate})
    assert_matches(got, x.astype(dst))
    empty = np.zeros((0, 3), src)
    assert_matches(rt.run("Cast", [empty], types={"SrcT": src, "DstT": dst}), empty.astype(dst))


@pytest.mark.parametrize("src", [np.float32, np.float64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("dst", [np.int32, np.int64], ids=lambda t: np.dtype(t).name)
def test_cast_of_values_out_of_range_is_defined(rt, src, dst):
    """NaN, infinities and out-of-range floats have no C++ conversion; the kernel gives
    the destination's minimum (what x86 hardware, and so numpy there, gives)."""
    big = float(np.iinfo(dst).max) * 4
    x = np.array([np.nan, np.inf, -np.inf, big, -big, 3.9], src)
    got = rt.run("Cast", [x], types={"SrcT": src, "DstT": dst})
    lowest = np.iinfo(dst).min
    np.testing.assert_array_equal(got, np.array([lowest] * 5 + [3], dst))


def test_cast_to_bool_is_nonzero(rt):
    x = np.array([0.0, -0.0, 0.5, np.nan, -np.inf], np.float64)
    got = rt.run("Cast", [x], types={"SrcT": np.float64, "DstT": np.bool_})
    np.testing.assert_array_equal(got, x.astype(np.bool_))
