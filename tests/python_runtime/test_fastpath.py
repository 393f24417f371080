"""The compiled eager fast path (opgen.runtime._eager_fastpath) behaves exactly as the
ctypes path: same results, same errors and messages, for first and repeated calls;
it never lets a Tensor alias caller-owned numpy memory, leaks no references, and
runs safely from several threads. Without the extension, execute_op is the ctypes
path itself."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import weakref

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import Tensor, convert_to_tensor, eager

pytestmark = pytest.mark.usefixtures("runtime_lib")

fastpath = pytest.importorskip("opgen.runtime._eager_fastpath")
if eager.execute_op is not fastpath.execute_op:
    pytest.skip("the fast path is disabled ($OPGEN_DISABLE_FAST_PATH)", allow_module_level=True)

rng = np.random.default_rng(7)
f32 = rng.standard_normal(6).astype(np.float32)
f64 = rng.standard_normal((2, 3))
i32 = rng.integers(-9, 9, size=(2, 3)).astype(np.int32)
i64 = rng.integers(-9, 9, size=(4,)).astype(np.int64)
mat = rng.standard_normal((3, 3)).astype(np.float32)

# (op, inputs, attrs): results or errors must be the same on both paths.
CALLS = [
    ("AddV2", [f32, f32], {}),
    ("AddV2", [f64, f64], {}),
    ("AddV2", [i32, i32], {}),
    ("AddV2", [f32, 2.5], {}),
    ("AddV2", [2.5, f32], {}),
    ("AddV2", [f64, 3], {}),
    ("AddV2", [i32, 7], {}),
    ("AddV2", [i64, -(2 ** 40)], {}),
    ("AddV2", [i32, 2 ** 40], {}),           # does not fit int32
    ("AddV2", [i32, 2.5], {}),               # float into int32
    ("AddV2", [i32, True], {}),              # bool into int32
    ("AddV2", [f32, np.float32(1.5)], {}),
    ("AddV2", [f32, np.float64(1.5)], {}),   # numpy data is not cast
    ("AddV2", [f32, f64], {}),
    ("AddV2", [f32, i32], {}),
    ("AddV2", [f32[::2], f32[1::2]], {}),   # strided views
    ("AddV2", [f64.T, f64.T], {}),           # Fortran order
    ("AddV2", [f32, f32[:4]], {}),           # incompatible shapes
    ("AddV2", [f32.astype(">f4"), f32], {}),  # non-native byte order
    ("AddV2", [1.0, 2.0], {}),               # no input carries a dtype
    ("AddV2", [1, 2], {}),
    ("AddV2", [2 ** 40, 1], {}),
    ("AddV2", [[1.0, 2.0], f32[:2]], {}),    # a Python list operand
    ("AddV2", [f32], {}),                    # wrong number of inputs
    ("LogicalAnd", [np.array([True, False]), True], {}),
    ("Relu", [np.float32(-3.0)], {}),
    ("Relu", [np.array([True])], {}),        # dtype outside the allowed list
    ("Identity", [f32], {}),
    ("Identity", [np.empty((0, 3), np.float32)], {}),
    ("Reshape", [f64, np.array([3, 2], np.int32)], {}),
    ("Reshape", [f64, [3, 2]], {}),
    ("MatMul", [mat, mat], {"transpose_a": True, "transpose_b": False}),
    ("MatMul", [mat, mat], {"transpose_a": False, "transpose_b": False}),
    ("MatMul", [mat, mat], {"transpose_a": 1}),       # an int is not a bool
    ("MatMul", [mat, mat], {"transpose_c": True}),    # unknown attr
    ("ArgMax", [f64, np.int32(1)], {"output_type": "int32"}),
    ("ArgMax", [f64, np.int32(1)], {"output_type": np.int64}),
    ("ArgMax", [f64, np.int32(1)], {"output_type": "float32"}),  # not allowed
    ("Cast", [i32], {"DstT": "float64", "Truncate": False}),
    ("Cast", [i32], {"DstT": "float64", "Truncate": 0.0}),
    ("Cast", [f64], {}),                                 # missing required attr
    ("AddN", [[f32, f32, f32]], {}),
    ("AddN", [(f32, f32)], {}),
    ("AddN", [[f32, f64]], {}),
    ("AddN", [f32], {}),                                  # an array is not a list
    ("ConcatV2", [[f64, f64], 0], {}),
    ("ConcatV2", [[f64, f64], np.int64(1)], {}),
    ("Unpack", [f64], {"num": 2, "axis": 0}),
    ("Unpack", [f64], {"num": 3, "axis": 0}),             # wrong num
    ("Pack", [[i64, i64]], {"axis": 1}),
    ("NoSuchOp", [f32], {}),
]


def outcome(execute, op, inputs, attrs):
    """What a call gives, in a comparable form: values, dtypes and structure, or the
    exception's type and message."""
    try:
        result = execute(op, inputs, attrs, None)
    except Exception as e:  # noqa: BLE001 - comparing whatever is raised
        return ("raised", type(e), str(e))

    def plain(value):
        if isinstance(value, list):
            return [plain(v) for v in value]
        assert type(value) is Tensor
        array = np.asarray(value)
        return (value.dtype.name, value.shape, array.tobytes())
    return ("returned", plain(result))


@pytest.mark.parametrize("call", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_same_outcome_as_the_ctypes_path_first_and_repeated(call):
    op, inputs, attrs = call
    want = outcome(eager._execute_op_python, op, inputs, attrs)
    for _ in range(3):  # first call resolves, later ones run a cached signature
        assert outcome(eager.execute_op, op, inputs, attrs) == want


def test_cached_signatures_tell_apart_types_and_values_that_compare_equal():
    x = np.array([1.0, -2.0], np.float32)
    assert np.asarray(ops.mat_mul(mat, mat, transpose_a=True)).tobytes() == \
        np.asarray(ops.mat_mul(mat, mat, transpose_a=True)).tobytes()
    with pytest.raises(Exception) as e:  # 1 == True, but an int is not a bool
        ops.mat_mul(mat, mat, transpose_a=1)
    with pytest.raises(Exception) as e2:
        eager._execute_op_python("MatMul", [mat, mat], {"transpose_a": 1}, None)
    assert (type(e.value), str(e.value)) == (type(e2.value), str(e2.value))
    # Python int then float operands with the same array: different conversions.
    np.testing.assert_array_equal(ops.add_v2(x, 1), x + 1)
    np.testing.assert_array_equal(ops.add_v2(x, 1.5), x + np.float32(1.5))
    assert fastpath.cache_info()["AddV2"] >= 2


def test_attr_lists_are_copied_into_the_cache_key():
    value = rng.standard_normal((2, 3, 4)).astype(np.float32)
    perm = [2, 0, 1]
    first = np.asarray(ops.transpose(value, np.array(perm, np.int32)))
    np.testing.assert_array_equal(first, value.transpose(perm))
    axes = [0]
    squeezed = rng.standard_normal((1, 3)).astype(np.float32)
    np.testing.assert_array_equal(ops.squeeze(squeezed, squeeze_dims=axes), squeezed[0])
    axes[0] = 5  # changing the caller's list must not change the cached attrs
    with pytest.raises(Exception) as fast:
        ops.squeeze(squeezed, squeeze_dims=axes)
    with pytest.raises(Exception) as slow:
        eager._execute_op_python("Squeeze", [squeezed], {"squeeze_dims": axes}, None)
    assert type(fast.value) is type(slow.value)


def test_outputs_never_alias_numpy_inputs():
    a = np.arange(6, dtype=np.float32)
    for out in (ops.identity(a), ops.reshape(a, np.array([2, 3], np.int32)),
                ops.add_v2(a, 0.0)):
        assert not np.shares_memory(np.asarray(out), a)
        before = np.asarray(out).copy()
        a += 100  # the caller keeps writing its array
        np.testing.assert_array_equal(np.asarray(out), before)


def test_numpy_inputs_are_not_written_and_not_kept():
    a = np.arange(1000, dtype=np.float64)
    b = np.ones(1000)
    snapshot_a, snapshot_b = a.copy(), b.copy()
    refs = sys.getrefcount(a), sys.getrefcount(b)
    results = [ops.add_v2(a, b) for _ in range(50)]
    results += [ops.identity(a) for _ in range(50)]
    del results
    gc.collect()
    assert (sys.getrefcount(a), sys.getrefcount(b)) == refs
    np.testing.assert_array_equal(a, snapshot_a)
    np.testing.assert_array_equal(b, snapshot_b)
    # Results do not keep the array alive: dropping it frees it at once.
    c = np.arange(5, dtype=np.float32)
    watch = weakref.ref(c)
    outs = [ops.add_v2(c, c), ops.identity(c), ops.reshape(c, np.array([5], np.int32))]
    del c
    assert watch() is None
    np.testing.assert_array_equal(np.asarray(outs[0]), np.arange(5, dtype=np.float32) * 2)


def test_fast_path_tensors_work_with_the_ctypes_path_and_numpy():
    a = np.arange(4, dtype=np.float32)
    t = ops.add_v2(a, a)
    assert type(t) is Tensor and t.dtype.name == "float32" and t.shape == (4,)
    assert weakref.ref(t)() is t
    # The ctypes path asks for a TFE_TensorHandle, made on demand.
    again = eager._execute_op_python("AddV2", [t, t], {}, None)[0]
    np.testing.assert_array_equal(np.asarray(again), a * 4)
    np.testing.assert_array_equal(ops.mul(again, convert_to_tensor(a)), a * a * 4)
    view = t.numpy()
    del t
    gc.collect()
    np.testing.assert_array_equal(view, a * 2)  # the view keeps the tensor alive


def test_many_signatures_of_one_op_stay_correct():
    # More signatures (here: float attr values) than one op caches: the rest go
    # through the ctypes path, with the same results.
    x = rng.standard_normal((2, 2, 2, 3)).astype(np.float32)
    channel = [np.linspace(0.5, 1.5, 3).astype(np.float32) for _ in range(4)]
    for k in range(40):
        epsilon = 1e-3 * (k + 1)
        fast = ops.fused_batch_norm_v3(x, *channel, epsilon=epsilon, is_training=False)
        slow = eager._execute_op_python(
            "FusedBatchNormV3", [x, *channel],
            {"epsilon": epsilon, "exponential_avg_factor": 1.0, "data_format": "NHWC",
             "is_training": False}, None)
        np.testing.assert_array_equal(np.asarray(fast[0]), np.asarray(slow[0]))
    assert fastpath.cache_info()["FusedBatchNormV3"] == 32


def test_large_ops_from_several_threads():
    arrays = [rng.standard_normal(300_000).astype(np.float32) for _ in range(4)]
    want = [a + a * 2 for a in arrays]
    failures = []

    def work(i):
        for _ in range(5):
            got = np.asarray(ops.add_v2(arrays[i], ops.mul(arrays[i], 2.0)))
            if not np.allclose(got, want[i]):
                failures.append(i)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_without_the_extension_execute_op_is_the_ctypes_path(tmp_path):
    code = ("import numpy as np; from opgen.runtime import eager, tensor; from opgen import ops;"
            "assert eager.execute_op is eager._execute_op_checked;"
            "assert eager.execute_eager is eager._execute_op_python;"
            "assert tensor._fast_path is None;"
            "t = ops.add_v2(np.ones(3, np.float32), 2.0);"
            "assert np.asarray(t).tolist() == [3.0, 3.0, 3.0]")
    env = dict(os.environ, OPGEN_DISABLE_FAST_PATH="1")
    # (run from an empty folder: `python -c` would import a source checkout's opgen)
    subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, check=True, timeout=120)


def test_the_first_call_of_a_process_binds_the_fast_path(tmp_path):
    # An op with no tensor in or out, first in a fresh process, is cached too.
    code = ("from opgen import ops; from opgen.runtime import _eager_fastpath as f;"
            "assert ops.no_op() is None and ops.no_op() is None;"
            "assert f.cache_info() == {'NoOp': 1}, f.cache_info()")
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, timeout=120)
