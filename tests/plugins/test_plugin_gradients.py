"""A gradient for a plugin's op (examples/plugin/my_ops.c's WeightedSum), written in
Python with opgen.RegisterGradient: without it the backward pass names the op; with it
the gradients equal central differences."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python_runtime"))
from gradient_check import check_gradient  # noqa: E402


def test_python_gradient_for_a_plugin_op(my_ops):
    from opgen.runtime import gradients_impl
    weights = [0.5, -2.0, 3.25]
    g = opgen.Graph()
    with g.as_default():
        xs = [opgen.ops.placeholder(opgen.float64, shape=[2, 3]) for _ in weights]
        y = my_ops.weighted_sum(xs, weights=weights)
    with pytest.raises(opgen.errors.NotFoundError, match="No gradient defined for op: WeightedSum"):
        opgen.gradients(y, xs)

    @opgen.RegisterGradient("WeightedSum")
    def _weighted_sum_grad(op, grad):
        return [grad * w for w in op.get_attr("weights")]

    try:
        rng = np.random.default_rng(5)
        inputs = [rng.uniform(-1, 1, (2, 3)) for _ in weights]
        grads = check_gradient("WeightedSum", inputs, {"weights": weights}, list_arg=True)
        assert len(grads) == 3
        check_gradient("WeightedSum", inputs, {"weights": weights}, list_arg=True,
                       dtype=np.float32)
    finally:
        gradients_impl._unregister("WeightedSum")
