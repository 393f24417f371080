"""A numeric gradient checker for graph gradients: builds `op_type` on placeholders, asks
opgen.gradients for d(sum(w * y))/dx with random weights w fed as grad_ys, runs it, and
compares with central finite differences of the same sum computed in float64.

Shared by test_gradients.py (every op with a built-in gradient) and any test that adds
gradients (other op families)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import opgen


def _placeholder(g: opgen.Graph, dtype: Any, shape: tuple | None, name: str) -> opgen.Output:
    attrs: dict[str, Any] = {"dtype": dtype}
    if shape is not None:
        attrs["shape"] = list(shape)
    return g.create_op("Placeholder", [], attrs, name=name).outputs[0]


def _const(g: opgen.Graph, value: np.ndarray, name: str) -> opgen.Output:
    value = np.asarray(value)
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(value.dtype), "value": value},
                       name=name).outputs[0]


class Built:
    """One graph: the op on placeholders for the differentiable inputs, its output y, a
    weight placeholder w, and the gradients of sum(w * y)."""

    def __init__(self, op_type: Any, inputs: Sequence[Any], attrs: dict, diff: Sequence[int],
                 dtype: np.dtype, static: bool, output: int, list_arg: bool | int):
        self.g = opgen.Graph()
        g = self.g
        self.placeholders: dict[int, opgen.Output] = {}
        node_inputs: list[Any] = []
        for i, value in enumerate(inputs):
            value = np.asarray(value)
            if i in diff:
                ph = _placeholder(g, opgen.as_dtype(np.dtype(dtype)),
                                  value.shape if static else None, f"x{i}")
                self.placeholders[i] = ph
                node_inputs.append(ph)
            else:
                node_inputs.append(_const(g, value, f"c{i}"))
        if list_arg is True:
            node_inputs = [node_inputs]
        elif list_arg:  # a count: that many leading inputs form the list arg
            node_inputs = [node_inputs[:list_arg]] + node_inputs[list_arg:]
        if callable(op_type):  # a small graph of several ops: build(graph, inputs) -> y
            self.y = op_type(g, node_inputs)
        else:
            self.y = g.create_op(op_type, node_inputs, dict(attrs)).outputs[output]
        self.w = _placeholder(g, self.y.dtype, None, "w")
        self.grads = opgen.gradients([self.y], [self.placeholders[i] for i in diff],
                                     grad_ys=[self.w])
        self.session = opgen.Session(g)

    def feed(self, values: dict[int, np.ndarray], dtype: np.dtype) -> dict:
        return {self.placeholders[i]: np.asarray(v, dtype) for i, v in values.items()}


def check_gradient(op_type: Any, inputs: Sequence[Any], attrs: dict | None = None,
                   diff: Sequence[int] | None = None, dtype: Any = np.float64,
                   static: bool = True, output: int = 0, list_arg: bool | int = False,
                   delta: float = 1e-6, rtol: float | None = None, atol: float | None = None,
                   seed: int = 0, reference_dtype: Any = np.float64) -> list:
    """Checks the gradients of `op_type` with respect to the inputs numbered in `diff`
    (default: every input) against central differences; returns the analytic gradients.

    `inputs` are numpy values (those not in `diff` become constants, with their own
    dtype); `static` gives the placeholders their shapes (False: unknown rank, so the
    gradient takes its dynamic-shape path); `list_arg` passes all inputs as one list arg
    (AddN, IdentityN), or a count: the leading inputs that do (ConcatV2). float32 gradients are compared with looser tolerances.
    `op_type` may also be a function (graph, inputs) -> output, for gradients that only
    mean something through several ops (a TensorList's, a batch norm's second order).
    `reference_dtype` is the dtype the differences are taken in (float32 for ops without
    a float64 kernel, such as FusedBatchNorm, with a wider `delta`)."""
    attrs = attrs or {}
    dtype = np.dtype(dtype)
    diff = list(range(len(inputs))) if diff is None else list(diff)
    if rtol is None:
        rtol = 1e-5 if dtype == np.float64 else 2e-3
    if atol is None:
        atol = 1e-6 if dtype == np.float64 else 2e-3
    values = {i: np.asarray(inputs[i], np.float64) for i in diff}
    under_test = Built(op_type, inputs, attrs, diff, dtype, static, output, list_arg)
    ref_dtype = np.dtype(reference_dtype)
    reference = under_test if dtype == ref_dtype else Built(
        op_type, inputs, attrs, diff, ref_dtype, static, output, list_arg)

    y0 = reference.session.run(reference.y, reference.feed(values, ref_dtype))
    w = np.random.default_rng(seed).uniform(0.5, 1.5, np.shape(y0))

    feed = under_test.feed(values, dtype)
    feed[under_test.w] = np.asarray(w, under_test.y.dtype.as_numpy_dtype)
    grads = [None if gr is None else under_test.session.run(gr, feed) for gr in under_test.grads]

    def objective(current: dict[int, np.ndarray]) -> float:
        y = reference.session.run(reference.y, reference.feed(current, ref_dtype))
        return float(np.sum(w * np.asarray(y, np.float64)))

    for k, i in enumerate(diff):
        numeric = np.zeros_like(values[i])
        flat = numeric.reshape(-1)
        for j in range(flat.size):
            plus = {n: v.copy() for n, v in values.items()}
            minus = {n: v.copy() for n, v in values.items()}
            plus[i].reshape(-1)[j] += delta
            minus[i].reshape(-1)[j] -= delta
            flat[j] = (objective(plus) - objective(minus)) / (2 * delta)
        got = grads[k]
        if got is None:
            np.testing.assert_allclose(numeric, 0, atol=atol,
                                       err_msg=f"{op_type}: no gradient for input {i}")
            continue
        assert got.shape == values[i].shape, (op_type, i, got.shape, values[i].shape)
        assert got.dtype == dtype, (op_type, i, got.dtype)
        np.testing.assert_allclose(np.asarray(got, np.float64), numeric, rtol=rtol, atol=atol,
                                   err_msg=f"{op_type}: gradient of input {i}")
    return grads
