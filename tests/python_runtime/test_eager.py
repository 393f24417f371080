"""execute_op through the eager C API: results equal numpy for every built-in op and
dtype, tensors share memory with numpy, and misuse raises, never crashes."""

from __future__ import annotations


import numpy as np
import pytest

from opgen.runtime import Tensor, convert_to_tensor, dtypes, errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

NUMERIC = [np.float32, np.float64, np.int32, np.int64]
SHAPE_PAIRS = [((), ()), ((5,), (5,)), ((2, 3), ()), ((), (4,)), ((2, 3), (3,)),
               ((4, 1), (1, 5)), ((2, 1, 3), (4, 1)), ((0, 3), (3,)), ((2, 0), (2, 1))]
rng = np.random.default_rng(1234)


def random(shape, dtype, nonzero=False):
    if np.issubdtype(dtype, np.integer):
        values = rng.integers(-50, 50, size=shape).astype(dtype)
        if nonzero:
            values[values == 0] = 7
        return values
    values = rng.standard_normal(shape).astype(dtype)
    if nonzero:
        values[np.abs(values) < 0.1] = 0.5
    return values


def run(op, inputs, attrs=None):
    return np.asarray(execute_op(op, inputs, attrs or {})[0])


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("xs, ys", SHAPE_PAIRS)
@pytest.mark.parametrize("op, reference", [
    ("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply), ("RealDiv", None)])
def test_binary_ops_match_numpy_with_broadcasting(op, reference, dtype, xs, ys):
    x, y = random(xs, dtype), random(ys, dtype, nonzero=(op == "RealDiv"))
    got = run(op, [x, y])
    if reference is None:  # integer division truncates toward zero, as in C
        reference = (lambda a, b: np.trunc(a / b).astype(dtype)) if np.issubdtype(dtype, np.integer) else np.divide
    want = reference(x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_])
@pytest.mark.parametrize("rows, channels", [(1, 3), (5000, 3), (37, 1 + 64), (333, 7), (9, 64),
                                            (1, 200), (4097, 2)])
@pytest.mark.parametrize("row_first", [False, True])
def test_a_row_broadcast_over_many_rows_matches_numpy(dtype, rows, channels, row_first):
    """[rows, C] against [1, 1, C] (either side): the kernel repeats the short row to
    cover several rows per loop; row counts that leave a partial repeat at a thread's
    end, and channel counts either side of the repeat's 64."""
    whole = random((1, rows, channels), dtype) if dtype != np.bool_ else rng.random(
        (1, rows, channels)) < 0.5
    row = random((1, 1, channels), dtype, nonzero=True) if dtype != np.bool_ else rng.random(
        (1, 1, channels)) < 0.5
    x, y = (row, whole) if row_first else (whole, row)
    if dtype == np.bool_:
        np.testing.assert_array_equal(run("LogicalAnd", [x, y]), np.logical_and(x, y))
        return
    np.testing.assert_array_equal(run("Sub", [x, y]), x - y)
    np.testing.assert_array_equal(run("Mul", [x, y]), x * y)
    np.testing.assert_array_equal(run("Maximum", [x, y]), np.maximum(x, y))


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("shape", [(), (7,), (3, 4), (0,), (2, 0, 3)])
def test_unary_ops_match_numpy(dtype, shape):
    x = random(shape, dtype)
    np.testing.assert_array_equal(run("Neg", [x]), -x)
    np.testing.assert_array_equal(run("Relu", [x]), np.maximum(x, 0))
    identity = run("Identity", [x])
    assert identity.dtype == x.dtype
    np.testing.assert_array_equal(identity, x)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("transpose_a", [False, True])
@pytest.mark.parametrize("transpose_b", [False, True])
@pytest.mark.parametrize("m, k, n", [(3, 4, 5), (1, 1, 1), (16, 33, 7), (0, 3, 2), (2, 0, 3)])
def test_mat_mul_matches_numpy(dtype, transpose_a, transpose_b, m, k, n):
    a, b = random((m, k), dtype), random((k, n), dtype)
    a_in = np.ascontiguousarray(a.T) if transpose_a else a
    b_in = np.ascontiguousarray(b.T) if transpose_b else b
    got = run("MatMul", [a_in, b_in], {"transpose_a": transpose_a, "transpose_b": transpose_b})
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, a @ b, rtol=tolerance, atol=tolerance)
    assert got.dtype == dtype


@pytest.mark.parametrize("src", NUMERIC + [np.bool_])
@pytest.mark.parametrize("dst", NUMERIC + [np.bool_])
def test_cast_matches_numpy_astype(src, dst):
    x = random((3, 4), src) if src is not np.bool_ else rng.integers(0, 2, (3, 4)).astype(bool)
    got = run("Cast", [x], {"DstT": dtypes.as_dtype(dst)})
    assert got.dtype == np.dtype(dst)
    np.testing.assert_array_equal(got, x.astype(dst))


def test_asarray_shares_the_runtime_buffer(runtime_lib):
    t = execute_op("AddV2", [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)], {})[0]
    view = np.asarray(t)
    assert view.ctypes.data == runtime_lib.TF_TensorData(t._tensor)
    assert np.shares_memory(view, np.asarray(t))
    del t
    np.testing.assert_array_equal(view, 2.0)  # the view keeps the tensor alive


def test_identity_output_shares_the_input_buffer():
    x = convert_to_tensor(np.arange(4, dtype=np.int64))
    y = execute_op("Identity", [x], {})[0]
    assert np.asarray(y).ctypes.data == np.asarray(x).ctypes.data


def test_python_values_follow_tensorflows_default_dtypes():
    assert convert_to_tensor(1.5).dtype == dtypes.float32
    assert convert_to_tensor(3).dtype == dtypes.int32
    assert convert_to_tensor(2 ** 40).dtype == dtypes.int64
    assert convert_to_tensor([[True, False]]).dtype == dtypes.bool
    assert convert_to_tensor(np.float64(1)).dtype == dtypes.float64
    assert convert_to_tensor(7).shape == ()
    # A Python scalar beside a typed input takes that input's dtype.
    out = execute_op("AddV2", [np.ones(2, np.float64), 1], {})[0]
    assert out.dtype == dtypes.float64
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])


def test_tensor_protocols():
    t = convert_to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(t, Tensor) and t.shape == (2, 2) and t.ndim == 2 and len(t) == 2
    assert "CPU" in t.device
    assert float(convert_to_tensor(2.5)) == 2.5 and int(convert_to_tensor(3)) == 3
    assert "float32" in repr(t)
    np.testing.assert_array_equal(t.numpy(), [[1, 2], [3, 4]])


@pytest.mark.parametrize("call, error, fragments", [
    (lambda: execute_op("NoSuchOp", [], {}), errors.NotFoundError, ["NoSuchOp"]),
    (lambda: execute_op("Relu", [np.array([True])], {}), errors.InvalidArgumentError,
     ["Relu", "'T'", "bool"]),
    (lambda: execute_op("MatMul", [np.ones((2, 3)), np.ones((2, 3))], {}),
     errors.InvalidArgumentError, ["MatMul", "[2,3]"]),
    (lambda: execute_op("MatMul", [np.ones((2, 2), np.uint8), np.ones((2, 2), np.uint8)], {}),
     errors.NotFoundError, ["MatMul", "Registered", "DT_FLOAT"]),
    (lambda: execute_op("AddV2", [np.ones(3), np.ones(4)], {}), errors.InvalidArgumentError,
     ["AddV2", "Incompatible shapes: [3] vs. [4]"]),
    (lambda: execute_op("AddV2", [np.ones(3), np.ones(3, np.float32)], {}),
     errors.InvalidArgumentError, ["AddV2", "float64", "float32"]),
    (lambda: execute_op("RealDiv", [np.array([1], np.int32), np.array([0], np.int32)], {}),
     errors.InvalidArgumentError, ["RealDiv", "division by zero"]),
    (lambda: execute_op("Cast", [np.ones(2)], {"DstT": "nonsense"}), errors.InvalidArgumentError,
     ["Cast", "DstT"]),
    (lambda: execute_op("MatMul", [np.ones((1, 1)), np.ones((1, 1))], {"transpose_a": "yes"}),
     errors.InvalidArgumentError, ["MatMul", "transpose_a"]),
    (lambda: execute_op("Cast", [np.ones(2)], {}), errors.InvalidArgumentError,
     ["Cast", "DstT"]),
    (lambda: execute_op("Neg", [np.ones(2)], {"bogus": 1}), errors.InvalidArgumentError,
     ["Neg", "bogus"]),
    (lambda: execute_op("Neg", [], {}), errors.InvalidArgumentError, ["Neg", "1 inputs"]),
])
def test_misuse_raises_naming_the_op(call, error, fragments):
    with pytest.raises(error) as info:
        call()
    for fragment in fragments:
        assert fragment in str(info.value)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("xs, ys", [((2, 3, 4), (2, 4, 5)), ((3, 4), (2, 4, 5)),
                                    ((2, 1, 3, 4), (5, 4, 2)), ((0, 3, 4), (4, 2))])
@pytest.mark.parametrize("adj_x, adj_y", [(False, False), (True, False), (False, True)])
def test_batch_mat_mul_matches_numpy_matmul(dtype, xs, ys, adj_x, adj_y):
    x, y = random(xs, dtype), random(ys, dtype)
    x_in = np.ascontiguousarray(np.swapaxes(x, -1, -2)) if adj_x else x
    y_in = np.ascontiguousarray(np.swapaxes(y, -1, -2)) if adj_y else y
    got = run("BatchMatMulV2", [x_in, y_in], {"adj_x": adj_x, "adj_y": adj_y})
    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(got, np.matmul(x, y), rtol=tolerance, atol=tolerance)
