"""Issue 18: NaN, infinities, -0.0 and subnormals as TensorFlow's CPU kernels treat them
(the references below are TensorFlow 2.21's outputs, checked by hand and by the
differential test, tests/conformance). docs/conformance.md has the rules."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from kernel_dtypes import FLOATS, name, run

NAN, INF = np.nan, np.inf


def _same(got, want):
    """Equal values, NaN where NaN, and the same sign of zero."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok], want[ok])
    np.testing.assert_array_equal(np.signbit(got[ok]), np.signbit(want[ok]))


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_relu_keeps_nan_and_negative_zero(dtype):
    x = np.array([NAN, -0.0, 0.0, -1.0, 2.0, -INF, INF]).astype(dtype)
    _same(run("Relu", [x]), [NAN, -0.0, 0.0, 0.0, 2.0, 0.0, INF])
    _same(run("Relu6", [x]), [NAN, -0.0, 0.0, 0.0, 2.0, 0.0, 6.0])


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
def test_abs_and_sign_of_negative_zero_are_positive_zero(dtype):
    x = np.array([-0.0, 0.0, NAN, -2.0, INF]).astype(dtype)
    _same(run("Abs", [x]), [0.0, 0.0, NAN, 2.0, INF])
    _same(run("Sign", [x]), [0.0, 0.0, NAN, -1.0, 1.0])


@pytest.mark.parametrize("dtype", FLOATS, ids=name)
@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_reductions_skip_nan(op, dtype):
    x = np.array([[NAN, 1, 2], [3, NAN, -1], [NAN, NAN, NAN], [1, NAN, 5]]).astype(dtype)
    want = {"ArgMax": [2, 0, 0, 2], "ArgMin": [1, 2, 0, 0]}[op]
    np.testing.assert_array_equal(run(op, [x, np.int32(1)]), want)
    np.testing.assert_array_equal(run(op, [x.T.copy(), np.int32(0)]), want)


SUBNORMAL = np.float32(1.4e-45)


def test_subnormals_are_flushed_to_zero_as_in_tensorflow():
    """TensorFlow's CPU kernels run with flush-to-zero and denormals-are-zero."""
    assert run("Equal", [np.float32(0.0), SUBNORMAL]) == np.bool_(True)
    assert run("Rsqrt", [SUBNORMAL]) == np.float32(np.inf)
    assert run("Mul", [np.float32(1e-30), np.float32(1e-15)]) == 0  # a subnormal result
    assert run("Equal", [np.float64(0.0), np.float64(5e-324)]) == np.bool_(True)


def test_subnormals_are_flushed_on_the_pool_threads_too():
    """A large op is split across the worker pool: every part flushes."""
    n = 1 << 20
    got = run("Mul", [np.full(n, 1e-30, np.float32), np.full(n, 1e-15, np.float32)])
    assert not got.any()
    got = run("Add", [np.full(n, 1e-40, np.float32), np.zeros(n, np.float32)])  # DAZ
    assert not got.any()


def test_subnormals_are_kept_with_opgen_flush_denormals_0(tmp_path):
    code = ("import numpy as np; from opgen.runtime import execute_op; "
            "print(np.asarray(execute_op('Equal', [np.float32(0), np.float32(1.4e-45)], {})[0]))")
    env = {**os.environ, "OPGEN_FLUSH_DENORMALS": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, cwd=tmp_path)  # not the checkout, whose opgen/ is unbuilt
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "False"


def test_flushing_does_not_leak_into_the_calling_thread():
    """The modes are set around kernel calls on the caller's thread and restored after:
    numpy on the same thread still sees subnormals."""
    run("Add", [np.float32(1), np.float32(2)])
    assert np.float32(1.4e-45) * np.float32(1) != 0


# ---- shapes and arguments TensorFlow's kernels take (or refuse) -------------------------

def test_fill_takes_a_value_of_one_element():
    np.testing.assert_array_equal(run("Fill", [np.array([2], np.int32), np.array([1.5], np.float32)]),
                                  [1.5, 1.5])
    from opgen.runtime import errors
    with pytest.raises(errors.InvalidArgumentError):
        run("Fill", [np.array([2], np.int32), np.array([1.5, 2.5], np.float32)])


def test_reshape_of_no_values_solves_minus_one_from_the_non_zero_sizes():
    got = run("Reshape", [np.zeros((0, 3), np.float32), np.array([-1, 0], np.int32)])
    assert got.shape == (3, 0)  # TensorFlow 2.21's answer


def test_transpose_takes_negative_perm_entries():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run("Transpose", [x, np.array([-1, 0], np.int32)]), x.T)
    np.testing.assert_array_equal(run("Transpose", [x, np.array([-2, -1], np.int32)]), x)


@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min", "Prod"])
def test_reductions_refuse_an_axis_named_twice(op):
    from opgen.runtime import errors
    with pytest.raises(errors.InvalidArgumentError, match="duplicate"):
        run(op, [np.ones((2, 3), np.float32), np.array([1, -1], np.int32)])


def test_strided_slice_refuses_an_index_entry_with_a_negative_stride():
    from opgen.runtime import errors
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    args = [x, np.array([1], np.int32), np.array([0], np.int32)]
    with pytest.raises(errors.InvalidArgumentError, match="only stride 1"):
        run("StridedSlice", args + [np.array([-1], np.int32)], {"shrink_axis_mask": 1})
    # A positive stride on an index entry is ignored, as in TensorFlow.
    np.testing.assert_array_equal(
        run("StridedSlice", args + [np.array([2], np.int32)], {"shrink_axis_mask": 1}), x[1])


@pytest.mark.parametrize("src", [np.float32], ids=name)
def test_cast_to_bfloat16_with_truncate_rounds_toward_zero(src):
    """float32 only: TensorFlow 2.21 rounds float64 to bfloat16 to nearest even even with
    Truncate=True (the differential test holds opgen to that)."""
    from kernel_dtypes import bfloat16
    if bfloat16 is None:
        pytest.skip("ml_dtypes is not installed")
    x = np.array([1.00390625, -1.00390625, 1.0009765625, 70000.0, np.inf, -np.inf], src)
    got = run("Cast", [x], {"DstT": "bfloat16", "Truncate": True}).view(np.uint16)
    want = (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)  # the upper half
    np.testing.assert_array_equal(got, want)
    nan = run("Cast", [np.array([np.nan], src)], {"DstT": "bfloat16", "Truncate": True})
    assert np.isnan(nan.astype(np.float32)).all()
    # Without Truncate, to nearest even: 1.00390625 is a tie, rounding to 1.0.
    assert run("Cast", [x[:1]], {"DstT": "bfloat16"}).view(np.uint16)[0] == 0x3F80


@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV3"])
def test_batch_norm_training_on_no_rows_gives_nan_statistics(op):
    empty, ones = np.zeros((0, 2, 2, 3), np.float32), np.ones(3, np.float32)
    none = np.zeros(0, np.float32)
    from opgen.runtime import execute_op
    out = execute_op(op, [empty, ones, ones, none, none], {"is_training": True})
    assert np.asarray(out[0]).shape == (0, 2, 2, 3)
    assert np.isnan(np.asarray(out[1])).all() and np.isnan(np.asarray(out[2])).all()
