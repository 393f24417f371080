"""`from opgen import ops`: the generated wrappers of the built-in ops, run eagerly."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

ops = pytest.importorskip("opgen.ops", reason="opgen.ops is installed by `pip install .`")


def test_add_v2_on_numpy_arrays_matches_numpy():
    out = ops.add_v2(np.ones(3), np.ones(3))
    np.testing.assert_array_equal(np.asarray(out), np.full(3, 2.0))
    assert out.dtype.name == "float64"


def test_signatures_follow_tensorflow_conventions():
    sig = inspect.signature(ops.mat_mul)
    assert list(sig.parameters)[:4] == ["a", "b", "transpose_a", "transpose_b"]
    assert sig.parameters["transpose_a"].default is False
    assert list(sig.parameters)[-1] == "name"
    # Cast's SrcT is inferred from the input; DstT is required, so it has no default.
    cast = inspect.signature(ops.cast)
    assert "SrcT" not in cast.parameters
    assert cast.parameters["DstT"].default is inspect.Parameter.empty


def test_chained_ops_give_numpy_results():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    y = ops.relu(ops.add_v2(ops.mat_mul(a, w), b))
    np.testing.assert_allclose(np.asarray(y), np.maximum(a @ w + b, 0), rtol=1e-5, atol=1e-5)


def test_misuse_raises_a_python_exception_naming_the_op():
    from opgen import errors
    with pytest.raises(errors.InvalidArgumentError, match="MatMul"):
        ops.mat_mul(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(errors.OpError, match="Relu"):
        ops.relu(np.array([True, False]))


def test_a_small_classifier_matches_numpy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    w = rng.standard_normal((5, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    probs = ops.softmax(ops.bias_add(ops.mat_mul(x, w), b))
    logits = x @ w + b
    want = np.exp(logits - logits.max(1, keepdims=True))
    want /= want.sum(1, keepdims=True)
    np.testing.assert_allclose(np.asarray(probs), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(ops.arg_max(probs, 1)), want.argmax(1))
    total = ops.sum(probs, [0, 1])
    assert abs(float(total) - 8.0) < 1e-4
