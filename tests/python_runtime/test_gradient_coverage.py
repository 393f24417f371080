"""Gradient coverage: every op the runtime registers is classified, and an op added
without a classification fails test_every_builtin_op_is_classified.

- GRADIENT_CASES: ops with a gradient, each checked against central differences
  (gradient_check.py) in float64 and float32 (where the op's kernels take them), with
  broadcasting operands where the op broadcasts.
- NOT_DIFFERENTIABLE: ops declared so, with the reason.
- V1_WHILE_LOOPS: no gradient on purpose; the error says to use functional control flow.
  (v1 conds, Switch and Merge outside loops, have gradients: GRADIENT_CASES.)
- UNIMPLEMENTED: a gradient registered that reports why it cannot be built yet.
- CHECKED_ELSEWHERE: gradients checked by a named test (inputs the checker cannot feed).
- Internal ops (``_Opgen*``): made by the graph optimizer when a graph runs, after any
  gradient was built.

The gradients this file added (second derivatives, the conv backprops', the TensorList
ops') are also compared with tf.GradientTape (TensorFlow 2.21 in its own interpreter,
$OPGEN_TF_PYTHON) where TensorFlow registers one."""

from __future__ import annotations

import ctypes
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import opgen
from gradient_check import check_gradient
from opgen.protos import op_def_pb2
from tf_reference import run_tf_script, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

F64, F32 = np.float64, np.float32
rng = np.random.default_rng(22)


def _u(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape)


def _distinct(shape, lo=-2.0, hi=2.0):
    """Values spaced apart (no ties, nothing near a kink)."""
    n = int(np.prod(shape))
    return rng.permutation(np.linspace(lo, hi, n) + 0.05).reshape(shape)


@dataclass
class Case:
    """One check: inputs(dtype) gives the inputs (floats not differentiated are made in
    that dtype too, where the op wants them to match)."""
    inputs: Callable[[Any], list]
    attrs: dict = field(default_factory=dict)
    diff: list | None = None
    dtypes: tuple = (F64, F32)
    extra: dict = field(default_factory=dict)
    tf: bool = False  # also compared with tf.GradientTape


def C(inputs, attrs=None, diff=None, dtypes=(F64, F32), tf=False, **extra) -> Case:
    return Case(inputs, attrs or {}, diff, dtypes, extra, tf)


def fixed(*values) -> Callable[[Any], list]:
    """Inputs that do not depend on the dtype (made once, so every run sees the same)."""
    return lambda dt: list(values)


def _hsv_images(shape, gap=0.08):
    """RGB pixels in (0, 1] whose channels differ by `gap` or more, in every order (each
    hue sector, the red one's wrap included): no ties, the conversion is smooth there."""
    pixels = int(np.prod(shape[:-1]))
    steps = rng.uniform(gap, 0.3, (pixels, 2))
    low = rng.uniform(0.02, 0.3, (pixels, 1))
    sorted_rgb = np.concatenate([low, low + steps[:, :1], low + steps.sum(1, keepdims=True)], 1)
    orders = np.array([rng.permutation(3) for _ in range(pixels)])
    return np.take_along_axis(sorted_rgb, orders, 1).reshape(shape)


HSV_IMAGES = [_hsv_images((2, 3, 4, 3)), _hsv_images((6, 3))]


# Two boxes (one flipped) whose crops sample inside the image, away from pixel centres.
CROP_BOXES = np.float32([[0.13, 0.21, 0.77, 0.86], [0.71, 0.62, 0.18, 0.27]])


def _pool_inputs(attrs, shape=(2, 5, 4, 2), pool="MaxPool"):
    x = _distinct(shape).astype(F32)  # MaxPool3D takes no float64
    y = opgen.execute_op(pool, [x], attrs)[0].numpy()
    g = _u(y.shape)
    return lambda dt: [x.astype(dt), y.astype(dt), g]


def _pool_grad_grad_inputs(attrs, shape=(2, 5, 4, 2), pool="MaxPool"):
    x = _distinct(shape).astype(F32)
    y = opgen.execute_op(pool, [x], attrs)[0].numpy()
    g = _u(shape)
    return lambda dt: [x.astype(dt), y.astype(dt), g]


# ---- composites: gradients that only mean something through several ops ----------------

def _list_round_trip(g, inputs):
    """FromTensor -> SetItem -> GetItem + Stack: every list gradient on one path."""
    t, item = inputs
    shape = g.create_op("Const", [], {"dtype": opgen.int32, "value": np.int32([3])}).outputs[0]
    lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
    one = g.create_op("Const", [], {"dtype": opgen.int32, "value": np.int32(1)}).outputs[0]
    lst = g.create_op("TensorListSetItem", [lst, one, item], {"element_dtype": t.dtype}).outputs[0]
    stacked = g.create_op("TensorListStack", [lst, shape], {"element_dtype": t.dtype}).outputs[0]
    return stacked


def _list_get_item(g, inputs):
    (t,) = inputs
    shape = g.create_op("Const", [], {"dtype": opgen.int32, "value": np.int32([3])}).outputs[0]
    lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
    two = g.create_op("Const", [], {"dtype": opgen.int32, "value": np.int32(2)}).outputs[0]
    return g.create_op("TensorListGetItem", [lst, two, shape], {"element_dtype": t.dtype}).outputs[0]


def _list_two_reads(g, inputs):
    """Two items of one list: their gradient lists meet at the list (AddN of lists)."""
    (t,) = inputs
    shape = g.create_op("Const", [], {"dtype": opgen.int32, "value": np.int32([3])}).outputs[0]
    lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
    items = [g.create_op("TensorListGetItem", [lst, g.create_op(
        "Const", [], {"dtype": opgen.int32, "value": np.int32(i)}).outputs[0], shape],
        {"element_dtype": t.dtype}).outputs[0] for i in (0, 2)]
    return g.create_op("Mul", items, {}).outputs[0]


def _const(g, value):
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(value.dtype), "value": value}).outputs[0]


def _list_push_back(g, inputs):
    """FromTensor -> PushBack(item) -> Stack."""
    t, item = inputs
    shape = _const(g, np.int32([3]))
    lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
    lst = g.create_op("TensorListPushBack", [lst, item], {"element_dtype": t.dtype}).outputs[0]
    return g.create_op("TensorListStack", [lst, shape], {"element_dtype": t.dtype}).outputs[0]


def _list_resize(g, inputs):
    """FromTensor -> Resize (grown, then cut) -> Stack."""
    (t,) = inputs
    shape = _const(g, np.int32([3]))
    lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
    lst = g.create_op("TensorListResize", [lst, _const(g, np.int32(6))], {}).outputs[0]
    lst = g.create_op("TensorListResize", [lst, _const(g, np.int32(3))], {}).outputs[0]
    return g.create_op("TensorListStack", [lst, shape], {"element_dtype": t.dtype}).outputs[0]


def _list_split_concat(g, inputs):
    """Split into [1, 3] rows -> ConcatV2 -> the rows back, squared per element by Mul."""
    (t,) = inputs
    shape = _const(g, np.int32([-1, 3]))
    attrs = {"element_dtype": t.dtype, "shape_type": opgen.int32}
    lst = g.create_op("TensorListSplit", [t, shape, _const(g, np.int64([1, 3]))], attrs).outputs[0]
    out = g.create_op("TensorListConcatV2", [lst, shape, _const(g, np.zeros([0], np.int64))],
                      attrs).outputs[0]
    return g.create_op("Mul", [out, t], {}).outputs[0]


def _list_split_get(g, inputs):
    """Split -> GetItem(1): the gradient list's element 0 is unset (zeros of its rows)."""
    (t,) = inputs
    lst = g.create_op("TensorListSplit", [t, _const(g, np.int32([-1, 3])), _const(g, np.int64([1, 3]))],
                      {"element_dtype": t.dtype, "shape_type": opgen.int32}).outputs[0]
    return g.create_op("TensorListGetItem", [lst, _const(g, np.int32(1)), _const(g, np.int32([3, 3]))],
                       {"element_dtype": t.dtype}).outputs[0]


def _list_pop_back(only_item):
    """FromTensor -> PopBack: the element times 3 pushed back onto the shorter list and
    stacked, or (only_item) the element alone (no gradient reaches the shorter list)."""
    def f(g, inputs):
        (t,) = inputs
        shape = _const(g, np.int32([3]))
        lst = g.create_op("TensorListFromTensor", [t, shape], {"element_dtype": t.dtype}).outputs[0]
        pop = g.create_op("TensorListPopBack", [lst, shape], {"element_dtype": t.dtype})
        shorter, item = pop.outputs
        if only_item:
            return g.create_op("Mul", [item, item], {}).outputs[0]
        item = g.create_op("Mul", [item, _const(g, np.array(3, t.dtype.as_numpy_dtype))], {}).outputs[0]
        lst = g.create_op("TensorListPushBack", [shorter, item], {"element_dtype": t.dtype}).outputs[0]
        return g.create_op("TensorListStack", [lst, shape], {"element_dtype": t.dtype}).outputs[0]
    return f


def _list_gather(g, inputs):
    """FromTensor -> Gather (an index twice, one never): gradients summed and zeros."""
    (t,) = inputs
    lst = g.create_op("TensorListFromTensor", [t, _const(g, np.int32([3]))],
                      {"element_dtype": t.dtype}).outputs[0]
    return g.create_op("TensorListGather", [lst, _const(g, np.int32([2, 0, 2])), _const(g, np.int32([3]))],
                       {"element_dtype": t.dtype}).outputs[0]


def _list_scatter(op):
    """Scatter(V2) rows to [3, 0, 1] of a list of 5 -> Stack (unset elements are zeros)."""
    def f(g, inputs):
        (t,) = inputs
        args = [t, _const(g, np.int32([3, 0, 1])), _const(g, np.int32([3]))]
        if op == "TensorListScatterV2":
            args.append(_const(g, np.int32(5)))
        lst = g.create_op(op, args, {"element_dtype": t.dtype, "shape_type": opgen.int32}).outputs[0]
        if op == "TensorListScatter":
            lst = g.create_op("TensorListResize", [lst, _const(g, np.int32(5))], {}).outputs[0]
        return g.create_op("TensorListStack", [lst, _const(g, np.int32([3]))],
                           {"element_dtype": t.dtype}).outputs[0]
    return f


def _ragged_to_tensor(shape, splits, types=("ROW_SPLITS",)):
    """An op_type for check_gradient: RaggedTensorToTensor(shape, values, default) of
    fixed row partitions (its list input), differentiated in values and default."""
    def f(g, inputs):
        values, default = inputs
        def const(v):
            return g.create_op("Const", [], {"dtype": opgen.as_dtype(v.dtype),
                                             "value": v}).outputs[0]
        return g.create_op("RaggedTensorToTensor",
                           [const(np.int64(shape)), values, default,
                            [const(np.int64(p)) for p in splits]],
                           {"row_partition_types": list(types)}).outputs[0]
    f.__name__ = "_ragged_to_tensor"
    return f


def _stitch(op):
    """DynamicStitch / ParallelDynamicStitch of two data tensors at constant indices (the
    indices are int32 lists, which the checker does not feed)."""
    def f(g, inputs):
        idx = [g.create_op("Const", [], {"dtype": opgen.int32, "value": v}).outputs[0]
               for v in (np.int32([[0, 4], [2, 1]]), np.int32([5, 3]))]
        return g.create_op(op, [idx, list(inputs)], {}).outputs[0]
    f.__name__ = f"stitch_{op}"
    return f


# ---- complex: real inputs in pairs as complex numbers, a real output ---------------------

def _complex_chain(build):
    """An op_type for check_gradient: inputs (re0, im0, re1, im1, ...) become complex
    values through Complex (complex128 from float64 parts, complex64 from float32), and
    build(g, zs, part_dtype) makes a real output of them."""
    def f(g, inputs):
        part = inputs[0].dtype
        tout = opgen.complex128 if part == opgen.float64 else opgen.complex64
        zs = [g.create_op("Complex", inputs[i:i + 2], {"Tout": tout}).outputs[0]
              for i in range(0, len(inputs), 2)]
        return build(g, zs, part)
    return f


def _cop(g, op, inputs, **attrs):
    return g.create_op(op, inputs, attrs).outputs[0]


def _complex_cases(u) -> dict[str, list[Case]]:
    """The complex family's gradients, each through a chain with a real output; the
    chains also take complex Mul, Div, Add, Sub, Neg, Square, Reciprocal and Sum."""
    def part(op):  # Real, Imag, Angle, ComplexAbs of the first operand
        return lambda g, zs, p: _cop(g, op, [zs[0]], Tout=p)

    def pair(*values):
        return fixed(*values)

    a, b = u((2, 3), 0.3, 1.5), u((2, 3), -1.5, -0.3)
    c, d = u((3,), 0.5, 1.5), u((3,), 0.5, 1.5)
    real, imag = part("Real"), part("Imag")
    chain = _complex_chain
    return {
        # |re + i im| with im broadcast: Complex's gradient sums it back
        "ComplexAbs": [C(pair(a, d), op_type=chain(part("ComplexAbs")))],
        "Angle": [C(pair(a, b), op_type=chain(part("Angle")))],
        # Imag(z^2) = 2 re im
        "Complex": [C(pair(a, b), op_type=chain(
            lambda g, zs, p: _cop(g, "Imag", [_cop(g, "Mul", [zs[0], zs[0]])], Tout=p)))],
        # Re(z * w), w broadcast over z's rows
        "Real": [C(pair(a, b, c, d), op_type=chain(
            lambda g, zs, p: real(g, [_cop(g, "Mul", zs)], p)))],
        # Im(z / w) and Im(1 / z^2 - (-w))
        "Imag": [C(pair(a, b, c, d), op_type=chain(
                     lambda g, zs, p: imag(g, [_cop(g, "RealDiv", zs)], p))),
                 C(pair(a, b, c, d), op_type=chain(lambda g, zs, p: imag(g, [_cop(
                     g, "Sub", [_cop(g, "Reciprocal", [_cop(g, "Square", [zs[0]])]),
                                _cop(g, "Neg", [zs[1]])])], p)))],
        # Im(conj(z) * w + z), summed over rows
        "Conj": [C(pair(a, b, c, d), op_type=chain(lambda g, zs, p: imag(g, [_cop(
            g, "Sum", [_cop(g, "AddV2", [_cop(g, "Mul", [_cop(g, "Conj", [zs[0]]), zs[1]]), zs[0]]),
                       g.create_op("Const", [], {"dtype": opgen.int32,
                                                 "value": np.int32([0])}).outputs[0]])], p)))],
    }


def _complex_math_cases(u) -> dict[str, list[Case]]:
    """Complex cases of ops with real ones too (appended to theirs): each op's value
    multiplied by a broadcast w and read through Imag, so both parts of its derivative
    (and the conjugations of TensorFlow's rules) count."""
    def imag_of(op, **attrs):
        return lambda g, zs, p: _cop(g, "Imag", [_cop(g, "Mul", [_cop(g, op, zs[:-1], **attrs),
                                                                  zs[-1]])], Tout=p)

    a, b = u((2, 3), 0.3, 1.5), u((2, 3), -1.5, -0.3)
    c, d = u((3,), 0.5, 1.5), u((3,), -0.5, 0.5)
    chain, z_w = _complex_chain, fixed(a, b, c, d)
    cases = {op: [C(z_w, op_type=chain(imag_of(op)))]
             for op in ("Exp", "Log", "Sqrt", "Rsqrt", "Tanh", "Sigmoid")}
    for op in ("Pow", "DivNoNan"):
        cases[op] = [C(fixed(a, b, c, d, c, d), op_type=chain(imag_of(op)))]
    cases["Prod"] = [C(z_w, op_type=chain(lambda g, zs, p: imag_of("Prod")(g, [zs[0], g.create_op(
        "Const", [], {"dtype": opgen.int32, "value": np.int32(0)}).outputs[0], zs[1]], p)))]
    m1, m2 = u((3, 2), 0.3, 1.5), u((3, 2), -1.5, 0.3)
    cases["MatMul"] = [C(fixed(a, b, m1, m2, c, d), op_type=chain(
        imag_of("MatMul", transpose_a=True, transpose_b=True)))]
    cases["BatchMatMulV2"] = [C(fixed(a, b, m2, m1, c, d), op_type=chain(
        imag_of("BatchMatMulV2", adj_x=True, adj_y=True)))]
    return cases


def _spectral_cases(u) -> dict[str, list[Case]]:
    """The FFT family: complex transforms through the complex chain (Imag(op(z) * w)),
    RFFT on real input (its real output read through Imag(. * w)), IRFFT of a complex
    input; fft_length a constant, cropping the input in some cases. float64 only: the
    chains' complex64 differences are too coarse."""
    def const(g, value):
        return g.create_op("Const", [], {"dtype": opgen.int32, "value": value}).outputs[0]

    def complex_op(op):
        return lambda g, zs, p: _cop(g, "Imag", [_cop(g, "Mul", [_cop(g, op, zs[:1]), zs[1]])], Tout=p)

    def rfft(op, n):
        def build(g, inputs):
            x, wr, wi = inputs
            w = _cop(g, "Complex", [wr, wi], Tout=opgen.complex128)
            y = _cop(g, op, [x, const(g, np.int32(n))], Tcomplex=opgen.complex128)
            return _cop(g, "Imag", [_cop(g, "Mul", [y, w])], Tout=opgen.float64)
        build.__name__ = f"{op}-chain"
        return build

    def irfft(op, n):
        def build(g, inputs):
            re, im, w = inputs
            z = _cop(g, "Complex", [re, im], Tout=opgen.complex128)
            x = _cop(g, op, [z, const(g, np.int32(n))], Treal=opgen.float64)
            return _cop(g, "Mul", [x, w])
        build.__name__ = f"{op}-chain"
        return build

    only64 = (F64,)
    cases: dict[str, list[Case]] = {}
    for op, shape in (("FFT", (2, 5)), ("IFFT", (2, 8)), ("FFT2D", (2, 3, 4)),
                      ("IFFT2D", (3, 5)), ("FFT3D", (2, 2, 3)), ("IFFT3D", (2, 3, 2))):
        cases[op] = [C(fixed(u(shape), u(shape), u(shape[-1:]), u(shape[-1:])), dtypes=only64,
                       op_type=_complex_chain(complex_op(op)))]
    for op, shape, lengths in (("RFFT", (2, 7), [[6], [5]]), ("RFFT2D", (3, 5), [[3, 4], [2, 5]]),
                               ("RFFT3D", (2, 3, 4), [[2, 3, 4], [2, 2, 3]])):
        out = [shape[:-len(n)] + tuple(n[:-1]) + (n[-1] // 2 + 1,) for n in lengths]
        cases[op] = [C(fixed(u(shape), u(o), u(o)), dtypes=only64, op_type=rfft(op, n))
                     for n, o in zip(lengths, out)]
    for op, shape, lengths in (("IRFFT", (2, 4), [[6], [5]]), ("IRFFT2D", (3, 4), [[3, 6], [2, 5]]),
                               ("IRFFT3D", (2, 3, 3), [[2, 3, 4], [1, 2, 3]])):
        cases[op] = [C(fixed(u(shape), u(shape), u(shape[:-len(n)] + tuple(n))), dtypes=only64,
                       op_type=irfft(op, n)) for n in lengths]
    return cases


def _cholesky_of_gram(g, inputs):
    """Cholesky(x x^T + 3 I): a symmetric positive definite input for every x (the op
    reads one triangle, so the check goes through a symmetric matrix)."""
    (x,) = inputs
    gram = g.create_op("BatchMatMulV2", [x, x], {"adj_y": True}).outputs[0]
    eye = g.create_op("Const", [], {"dtype": x.dtype, "value": (3 * np.eye(3)).astype(
        x.dtype.as_numpy_dtype)}).outputs[0]
    return g.create_op("Cholesky", [g.create_op("AddV2", [gram, eye], {}).outputs[0]], {}).outputs[0]


def _linalg_cases(u) -> dict[str, list[Case]]:
    """Well-conditioned matrices (a random part plus 3 I); MatrixTriangularSolve with
    broadcast batch dims both ways."""
    def well(shape):
        return u(shape) + 3 * np.eye(shape[-1])

    return {
        "MatrixInverse": [C(fixed(well((2, 3, 3))), tf=True),
                          C(fixed(well((3, 3))), {"adjoint": True}, tf=True)],
        "MatrixDeterminant": [C(fixed(well((2, 3, 3))), tf=True)],
        # output 1, log|det| (test_linalg_ops.py compares it with TensorFlow)
        "LogMatrixDeterminant": [C(fixed(well((2, 3, 3)) * [1, -1, 1]), output=1)],
        "MatrixSolve": [C(fixed(well((2, 3, 3)), u((2, 3, 2))), tf=True),
                        C(fixed(well((3, 3)), u((3, 4))), {"adjoint": True}, tf=True)],
        "MatrixTriangularSolve": [
            C(fixed(well((3, 3)), u((2, 3, 2))), tf=True),
            C(fixed(well((2, 1, 3, 3)), u((3, 3, 1))), {"lower": False, "adjoint": True}, tf=True),
            C(fixed(well((2, 3, 3)), u((2, 3, 2))), {"adjoint": True})],
        "Cholesky": [C(fixed(u((2, 3, 3))), op_type=_cholesky_of_gram, tf=True)],
        # the decompositions (test_linalg_decompositions.py compares them with TensorFlow):
        # the values, factors unique near the input (Qr's), and squares of the singular
        # vectors / eigenvectors (their signs are arbitrary)
        "Svd": [C(fixed(u((2, 4, 3)))), C(fixed(u((3, 5))), {"compute_uv": False}),
                C(fixed(u((3, 4))), op_type=_squared_output("Svd", 1, {"full_matrices": True})),
                C(fixed(u((2, 3, 4))), op_type=_squared_output("Svd", 2, {}))],
        "Qr": [C(fixed(u((2, 4, 3)))), C(fixed(u((2, 4, 3))), output=1),
               C(fixed(u((3, 5))), output=1), C(fixed(u((3, 3))), {"full_matrices": True})],
        "SelfAdjointEigV2": [C(fixed(u((2, 4, 4)))), C(fixed(u((3, 3))), {"compute_v": False}),
                             C(fixed(u((3, 3))), op_type=_squared_output("SelfAdjointEigV2", 1, {}))],
        "MatrixSolveLs": [C(fixed(u((2, 5, 3)), u((2, 5, 2)), np.float64(0.5)), diff=[0, 1]),
                          C(fixed(u((3, 5)), u((3, 2)), np.float64(0)), diff=[0, 1])],
    }


def _squared_output(op, index, attrs):
    """op's output `index` squared: invariant under the signs of singular vectors and
    eigenvectors."""
    def build(g, inputs):
        y = g.create_op(op, list(inputs), attrs).outputs[index]
        return g.create_op("Mul", [y, y], {}).outputs[0]
    return build


def _cond(pred: bool, nested: bool):
    """A v1 cond on a constant predicate: x * merge(sin(x) | cond(...), x * z), with the
    false branch itself a cond when `nested`; x is also used outside."""
    def build(g, inputs):
        x, z = inputs

        def const_bool(v):
            return g.create_op("Const", [], {"dtype": opgen.bool, "value": np.bool_(v)}).outputs[0]

        p = const_bool(pred)
        fx, tx = g.create_op("Switch", [x, p], {}).outputs
        _, tz = g.create_op("Switch", [z, p], {}).outputs
        false_result = g.create_op("Sin", [fx], {}).outputs[0]
        if nested:
            q = const_bool(not pred)
            ffx, tfx = g.create_op("Switch", [fx, q], {}).outputs
            inner = [g.create_op("Cos", [ffx], {}).outputs[0], g.create_op("Mul", [tfx, tfx], {}).outputs[0]]
            false_result = g.create_op("Merge", [inner], {}).outputs[0]
        true_result = g.create_op("Mul", [tx, tz], {}).outputs[0]
        merged = g.create_op("Merge", [[false_result, true_result]], {}).outputs[0]
        return g.create_op("Mul", [merged, x], {}).outputs[0]
    build.__name__ = f"cond-{int(pred)}-{int(nested)}"
    return build


def _batch_norm_second_order(version, data_format, output):
    """FusedBatchNorm* in training, then its FusedBatchNormGrad* on the forward op's
    reserve spaces: the second derivative with respect to dy, x and scale."""
    def build(g, inputs):
        dy, x, scale = inputs
        empty = g.create_op("Const", [], {"dtype": opgen.float32,
                                          "value": np.zeros(0, np.float32)}).outputs[0]
        offset = g.create_op("Const", [], {"dtype": opgen.float32,
                                           "value": np.float32([0.1, -0.2, 0.3])}).outputs[0]
        attrs = {"is_training": True, "data_format": data_format, "epsilon": 0.001}
        if version:
            attrs["U"] = opgen.float32
        fwd = g.create_op("FusedBatchNorm" + version, [x, scale, offset, empty, empty], attrs)
        reserve = [fwd.outputs[3], fwd.outputs[4]] + ([fwd.outputs[5]] if version == "V3" else [])
        grad = g.create_op("FusedBatchNormGrad" + version, [dy, x, scale] + reserve, attrs)
        return grad.outputs[output]
    build.__name__ = f"FusedBatchNormGrad{version}-{data_format}-out{output}"
    return build


def _cases() -> dict[str, list[Case]]:
    u, d = _u, _distinct
    bn = dict(dtypes=(F32,), reference_dtype=F32, delta=1e-2, rtol=1e-2, atol=1e-2)
    window = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    conv = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    conv3 = {"strides": [1, 1, 2, 1, 1], "padding": "SAME"}
    window3 = {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 2, 1, 1], "padding": "SAME"}
    valid3 = {"ksize": [1, 2, 2, 3, 1], "strides": [1, 1, 2, 2, 1], "padding": "VALID"}
    one = {"strides": [1, 1, 1, 1], "padding": "VALID"}
    unary = {"Neg": (-1, 1), "Abs": (0.2, 1), "Square": (-1, 1), "Sqrt": (0.5, 2),
             "Rsqrt": (0.5, 2), "Exp": (-1, 1), "Expm1": (-1, 1), "Log": (0.5, 2), "Log1p": (-0.5, 1),
             "Sin": (-2, 2), "Cos": (-2, 2), "Tanh": (-2, 2), "Sigmoid": (-3, 3),
             "Reciprocal": (0.5, 2), "Inv": (0.5, 2), "Erf": (-1.5, 1.5), "Erfc": (-1.5, 1.5), "Softplus": (-3, 3),
             "Identity": (-1, 1), "Sign": (0.1, 1), "Softsign": (-2, 2), "Relu": (-2, 2),
             "Relu6": (-2, 7), "Elu": (-2, 2), "Selu": (-2, 2),
             "Tan": (-1, 1), "Asin": (-0.8, 0.8), "Acos": (-0.8, 0.8), "Atan": (-2, 2),
             "Sinh": (-2, 2), "Cosh": (0.2, 2), "Asinh": (-2, 2), "Acosh": (1.2, 3),
             "Atanh": (-0.8, 0.8), "Lgamma": (0.3, 4), "Erfinv": (-0.9, 0.9),
             "Ndtri": (0.05, 0.85), "BesselI0e": (0.2, 3), "BesselI1e": (0.2, 3),
             "Digamma": (0.5, 3)}
    cases: dict[str, list[Case]] = {
        op: [C(fixed(d((2, 3), lo, hi) if op != "Abs" else d((2, 3), lo, hi) * [1, -1, 1]))]
        for op, (lo, hi) in unary.items()}
    for op in ("Add", "AddV2", "Sub", "Mul", "SquaredDifference", "Maximum", "Minimum"):
        cases[op] = [C(fixed(d((2, 3)), d((3,), -1.9, 1.7))), C(fixed(u((2, 1)), u((1, 3))))]
    for op in ("Div", "RealDiv", "Pow", "DivNoNan"):
        cases[op] = [C(fixed(u((2, 3), 0.5, 2), u((3,), 0.5, 2))), C(fixed(u(()), u((2, 2), 0.5, 2)))]
    for op in ("Atan2", "Xdivy", "MulNoNan", "NextAfter", "Xlogy", "Xlog1py"):
        cases[op] = [C(fixed(d((2, 3)), u((3,), 0.5, 2))), C(fixed(u(()), u((2, 2), 0.5, 2)))]
    for op in ("Igamma", "Igammac"):  # through IgammaGradA for a, the density for x
        cases[op] = [C(fixed(u((2, 3), 0.5, 3), u((3,), 0.5, 3))), C(fixed(u((), 0.5, 3), u((2, 2), 0.5, 3)))]
    # The order, Zeta's x and Betainc's a and b have no gradient (as in TensorFlow); made
    # once, in the checked dtype (float64: float32 differences of these are too coarse).
    def typed(*values):
        return lambda dt: [np.asarray(v, dt) for v in values]
    cases["Polygamma"] = [C(typed(np.array([[0.0, 1, 2], [1, 2, 3]]), u((3,), 0.6, 2)), {}, [1], dtypes=(F64,))]
    cases["Zeta"] = [C(typed(np.array([[2.0, 3, 4], [2.5, 3.5, 6]]), u((3,), 0.6, 2)), {}, [1], dtypes=(F64,))]
    cases["Betainc"] = [C(typed(u((2, 3), 0.5, 3), u((2, 3), 0.5, 3), u((2, 3), 0.1, 0.9)), {}, [2], dtypes=(F64,)),
                        C(typed(2.5, 1.5, u((4,), 0.1, 0.9)), {}, [2], dtypes=(F64,))]
    cases["FloorMod"] = [C(fixed(np.array([[1.3, 2.6, 5.2], [-1.3, 3.7, 0.4]]), np.array([1.1, 1.7, 2.4])))]
    for op in ("Sum", "Mean", "Max", "Min"):
        cases[op] = [C(fixed(d((2, 3, 2)), np.int32([0, 2])), {"keep_dims": False}, [0]),
                     C(fixed(d((2, 3, 2)), np.int32(-1)), {"keep_dims": True}, [0])]
    cases["Prod"] = [C(fixed(d((2, 3, 2), 0.5, 1.5), np.int32([1])), {}, [0])]
    cases["EuclideanNorm"] = [C(fixed(d((2, 3, 2)), np.int32([0, 2])), {"keep_dims": False}, [0]),
                              C(fixed(d((2, 3, 2)), np.int32(-1)), {"keep_dims": True}, [0])]
    cases["Cross"] = [C(fixed(u((2, 3)), u((2, 3))))]
    cases.update(_complex_cases(u))
    cases.update(_spectral_cases(u))
    cases.update(_linalg_cases(u))
    cases["MatMul"] = [C(fixed(u((2, 3)), u((4, 3))), {"transpose_b": True})]
    cases["BatchMatMulV2"] = [C(fixed(u((2, 2, 3)), u((3, 4))))]  # y broadcast over the batch
    for op, more in _complex_math_cases(u).items():
        cases[op] = cases[op] + more
    cases["Reshape"] = [C(fixed(u((2, 3)), np.int32([3, 2])), {}, [0])]
    cases["ExpandDims"] = [C(fixed(u((2, 3)), np.int32(1)), {}, [0])]
    cases["Squeeze"] = [C(fixed(u((2, 1, 3))), {"squeeze_dims": [1]})]
    cases["Transpose"] = [C(fixed(u((2, 3, 4)), np.int32([2, 0, 1])), {}, [0])]
    cases["ConjugateTranspose"] = [C(fixed(u((2, 3, 4)), np.int32([2, 0, 1])), {}, [0])]
    cases["ReverseV2"] = [C(fixed(u((2, 3, 4)), np.int32([0, 2])), {}, [0])]
    cases["Softmax"] = [C(fixed(u((2, 4), -2, 2)))]
    cases["LogSoftmax"] = [C(fixed(u((2, 4), -2, 2)))]
    cases["LeakyRelu"] = [C(fixed(d((2, 3))), {"alpha": 0.3})]
    cases["BiasAdd"] = [C(fixed(u((2, 3, 4)), u((4,))))]
    cases["BiasAddGrad"] = [C(fixed(u((2, 3, 4))))]
    cases["TanhGrad"] = [C(fixed(u((2, 3), 0.1, 0.9), u((2, 3))))]
    cases["SigmoidGrad"] = [C(fixed(u((2, 3), 0.1, 0.9), u((2, 3))))]
    cases["ReluGrad"] = [C(fixed(u((2, 3)), d((2, 3))))]
    cases["Relu6Grad"] = [C(fixed(u((2, 3)), d((2, 3), -2, 7)))]
    logits, labels = u((3, 4), -2, 2), rng.dirichlet(np.ones(4), 3)
    cases["SoftmaxCrossEntropyWithLogits"] = [C(fixed(logits, labels[:1]))]  # labels broadcast
    cases["SparseSoftmaxCrossEntropyWithLogits"] = [C(fixed(logits, np.int32([0, 3, 1])), {}, [0])]
    cases["Conv2D"] = [C(fixed(u((1, 5, 5, 2)), u((3, 3, 2, 2))), conv)]
    cases["DepthwiseConv2dNative"] = [C(fixed(u((1, 5, 5, 2)), u((2, 2, 2, 2))), conv)]
    cases["Conv3D"] = [C(fixed(u((1, 3, 4, 3, 2)), u((2, 2, 2, 2, 2))), conv3)]
    cases["Conv2DBackpropInput"] = [
        C(fixed(np.int32([1, 5, 5, 2]), u((3, 3, 2, 3)), u((1, 3, 3, 3))), conv, [1, 2])]
    cases["MaxPool"] = [C(fixed(d((2, 5, 4, 2))), window)]
    cases["AvgPool"] = [C(fixed(d((2, 5, 4, 2))), window)]
    cases["BiasAddV1"] = [C(fixed(u((2, 3, 4)), u((4,))))]
    # values apart, so no step moves a maximum
    cases["Dilation2D"] = [C(fixed(d((1, 5, 4, 2)), d((2, 2, 2), -0.3, 0.3)),
                             {"strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1], "padding": "SAME"}, tf=True)]
    # distinct values: no element moves past another within a step
    cases["NthElement"] = [C(fixed(d((3, 5)), np.int32(2)), {}, [0]),
                           C(fixed(d((2, 2, 4)), np.int32(0)), {"reverse": True}, [0], tf=True)]
    # the max-pool variants: MaxPool's window as tensors, or with the argmax output beside
    v2_window = [np.int32(window["ksize"]), np.int32(window["strides"])]
    cases["MaxPoolV2"] = [C(fixed(d((2, 5, 4, 2)), *v2_window), {"padding": "SAME"}, [0])]
    cases["MaxPoolWithArgmax"] = [C(fixed(d((2, 5, 4, 2))), window),
                                  C(fixed(d((2, 5, 4, 2))), {**window, "include_batch_in_index": True})]
    pool_v2 = _pool_inputs(window)
    cases["MaxPoolGradV2"] = [C(lambda dt: pool_v2(dt) + v2_window, {"padding": "SAME"}, [2],
                                reference_dtype="same", delta=0.25)]
    # LRN's kernels take float32 and half: differences in float32, a wide step
    cases["LRN"] = [C(fixed(u((1, 2, 2, 6))), {"depth_radius": 2, "bias": 1.0, "alpha": 0.5, "beta": 0.75},
                      dtypes=(F32,), reference_dtype=F32, delta=1e-2, tf=True),
                    C(fixed(u((2, 1, 2, 4))), {}, dtypes=(F32,), reference_dtype=F32, delta=1e-2)]
    # float32 kernels only: MaxPool3D's values 0.025 apart, so a 0.01 step moves no maximum
    cases["MaxPool3D"] = [C(fixed(d((1, 4, 5, 4, 2))), window3, dtypes=(F32,), reference_dtype=F32,
                            delta=0.01, tf=True),
                          C(fixed(d((2, 3, 3, 5, 1))), valid3, dtypes=(F32,), reference_dtype=F32,
                            delta=0.01, tf=True)]
    cases["AvgPool3D"] = [C(fixed(u((1, 4, 5, 4, 2))), window3, dtypes=(F32,), reference_dtype=F32,
                            delta=0.25, tf=True),
                          C(fixed(u((2, 3, 3, 5, 1))), valid3, dtypes=(F32,), reference_dtype=F32,
                            delta=0.25, tf=True)]
    # float32 output: linear, so a wide step is exact
    cases["ResizeBicubic"] = [C(fixed(u((1, 3, 3, 2)), np.int32([5, 4])), attrs, [0], delta=0.25,
                                tf=True)
                              for attrs in ({}, {"align_corners": True}, {"half_pixel_centers": True})]
    def padded(*values):  # the last input, padding_value, in the dtype under test
        return lambda dt: [*values[:-1], np.asarray(values[-1], dt)]

    # linear, with a padding constant of the dtype: differences in that dtype, a wide step
    same = {"reference_dtype": "same", "delta": 0.25}

    for align in ("RIGHT_LEFT", "LEFT_RIGHT"):
        band = {"align": align}
        cases.setdefault("MatrixDiagPartV3", []).append(
            C(padded(u((2, 3, 4)), np.int32([-1, 2]), 0.5), band, [0], tf=True, **same))
        cases.setdefault("MatrixSetDiagV3", []).append(
            C(fixed(u((2, 4, 3)), u((2, 3, 3)), np.int32([-1, 1])), band, [0, 1], tf=True))
        cases.setdefault("MatrixDiagV3", []).append(
            C(padded(u((2, 2, 3)), np.int32([0, 1]), np.int32(3), np.int32(4), -1.0),
              band, [0], tf=True, **same))
    cases["MatrixDiagPartV3"].append(C(padded(u((3, 3)), np.int32(0), 0.0), {}, [0], **same))
    # The older forms (TF1-era v1, TF 2.2's V2 with LEFT_LEFT): single diagonals are
    # compared with TensorFlow too; its V2 gradients use RIGHT_LEFT, so bands are not.
    cases["MatrixDiagPartV2"] = [
        C(padded(u((2, 3, 4)), np.int32(1), 0.5), {}, [0], tf=True, **same),
        C(padded(u((2, 3, 4)), np.int32([-1, 2]), 0.5), {}, [0], **same)]
    cases["MatrixSetDiagV2"] = [C(fixed(u((2, 4, 3)), u((2, 3)), np.int32(-1)), {}, [0, 1], tf=True),
                                C(fixed(u((2, 4, 3)), u((2, 3, 3)), np.int32([-1, 1])), {}, [0, 1])]
    cases["MatrixDiagV2"] = [
        C(padded(u((2, 3)), np.int32(1), np.int32(-1), np.int32(-1), -1.0), {}, [0], tf=True, **same),
        C(padded(u((2, 2, 3)), np.int32([0, 1]), np.int32(3), np.int32(4), -1.0), {}, [0], **same)]
    cases["MatrixDiag"] = [C(fixed(u((2, 3))), tf=True)]
    cases["MatrixDiagPart"] = [C(fixed(u((2, 3, 4))), tf=True), C(fixed(u((3, 3))), tf=True)]
    cases["MatrixSetDiag"] = [C(fixed(u((2, 4, 3)), u((2, 3))), tf=True)]
    cases["L2Loss"] = [C(fixed(u((2, 3))), tf=True), C(fixed(u((4,))))]
    cases["Diag"] = [C(fixed(u((3,))), tf=True), C(fixed(u((2, 3))), tf=True)]
    cases["DiagPart"] = [C(fixed(u((3, 3))), tf=True), C(fixed(u((2, 3, 2, 3))), tf=True)]
    cases["MatrixBandPart"] = [C(fixed(u((2, 3, 4)), np.int64(1), np.int64(0)), {}, [0], tf=True),
                               C(fixed(u((3, 3)), np.int32(-1), np.int32(1)), {}, [0])]
    for version in ("", "V2", "V3"):
        attrs = {"is_training": True, "epsilon": 0.001}
        if version:
            attrs["U"] = opgen.float32
        cases["FusedBatchNorm" + version] = [C(fixed(
            u((2, 2, 3, 3)), u((3,), 0.5, 1.5), u((3,)), np.zeros(0, F32), np.zeros(0, F32)),
            attrs, [0, 1, 2], **bn)]
    cases["AddN"] = [C(fixed(u((2, 3)), u((2, 3)), u((2, 3))), list_arg=True)]
    cases["AccumulateNV2"] = [C(fixed(u((2, 3)), u((2, 3))), {"shape": [2, 3]}, list_arg=True)]
    cases["IdentityN"] = [C(fixed(u((2,)), u((3,))), list_arg=True, output=1)]
    cases["Cast"] = [C(fixed(u((2, 3))), {"DstT": opgen.float32}, dtypes=(F64,), delta=0.25, rtol=1e-5)]
    cond = np.array([[True, False, True], [False, False, True]])
    cases["Select"] = [C(fixed(cond, u((2, 3)), u((2, 3))), {}, [1, 2])]
    cases["SelectV2"] = [C(fixed(cond[0], u((2, 3)), u((1, 3))), {}, [1, 2])]
    cases["ClipByValue"] = [C(fixed(np.array([[-2.0, -0.5, 0.3], [0.9, 2.5, -0.2]]),
                                    np.array([-1.0, -0.6, 0.5]), np.array(0.8)))]
    cases.update({
        "ConcatV2": [C(fixed(u((2, 3)), u((2, 2)), np.int32(1)), {}, [0, 1], list_arg=2)],
        "Split": [C(fixed(np.int32(1), u((2, 4))), {"num_split": 2}, [1], output=1)],
        "SplitV": [C(fixed(u((5, 2)), np.int32([2, -1]), np.int32(0)), {"num_split": 2}, [0])],
        "Pack": [C(fixed(u((2, 3)), u((2, 3))), {"axis": 1}, list_arg=True)],
        "Unpack": [C(fixed(u((2, 3, 2))), {"num": 3, "axis": 1}, output=2)],
        "Slice": [C(fixed(u((3, 4)), np.int32([1, 0]), np.int32([2, -1])), {}, [0])],
        "StridedSlice": [C(fixed(u((4, 5)), np.int32([3, 0]), np.int32([0, 5]), np.int32([-1, 2])),
                           {}, [0])],
        "Pad": [C(fixed(u((2, 3)), np.int32([[1, 0], [2, 1]])), {}, [0])],
        # constant_values is not cast with the checked dtype: float64 only
        "PadV2": [C(fixed(u((2, 3)), np.int32([[1, 0], [2, 1]]), np.float64(-2.5)), {}, [0],
                    dtypes=(F64,))],
        "MirrorPad": [C(fixed(u((3, 4)), np.int32([[1, 2], [2, 1]])), {"mode": "REFLECT"}, [0])],
        "Tile": [C(fixed(u((2, 3)), np.int32([2, 3])), {}, [0])],
        "BroadcastTo": [C(fixed(u((3, 1)), np.int32([2, 3, 4])), {}, [0])],
        "Fill": [C(fixed(np.int32([2, 3]), u(())), {}, [1])],
        "GatherV2": [C(fixed(u((4, 3)), np.int32([[0, 2], [2, 3]]), np.int32(0)), {}, [0])],
        # (TensorFlow's gradient is IndexedSlices: against central differences only)
        "Gather": [C(fixed(u((4, 3)), np.int32([[0, 2], [2, 3]])), {}, [0])],
        "SpaceToBatch": [C(fixed(u((1, 4, 2, 2)), np.int32([[0, 0], [1, 1]])), {"block_size": 2},
                           [0], tf=True)],
        "BatchToSpace": [C(fixed(u((4, 2, 3, 1)), np.int32([[1, 0], [0, 2]])), {"block_size": 2},
                           [0], tf=True)],
        "Reverse": [C(fixed(u((2, 3, 4)), np.array([True, False, True])), {}, [0], tf=True)],
        "BatchMatMul": [C(fixed(u((2, 2, 3)), u((2, 3, 4))), tf=True),
                        C(fixed(u((2, 3, 2)), u((2, 4, 3))), {"adj_x": True, "adj_y": True}, tf=True)],
        "TopKV2": [C(fixed(d((2, 3, 4)), np.int32(2)), {}, [0])],
        "Cumsum": [C(fixed(u((3, 4)), np.int32(1)), {"exclusive": True}, [0])],
        # not exclusive: the -inf first output makes central differences NaN (exclusive
        # is compared with TensorFlow in test_math_family_ops.py)
        "CumulativeLogsumexp": [C(fixed(u((3, 4)), np.int32(1)), {}, [0]),
                                C(fixed(u((3, 4)), np.int32(0)), {"reverse": True}, [0])],
        # debugging and sequence ops: checks pass the gradient through, Roll and
        # ReverseSequence undo themselves, SparseToDense gathers at its indices
        "CheckNumerics": [C(fixed(u((2, 3))), {"message": "m"}, tf=True)],
        "CheckNumericsV2": [C(fixed(u((2, 3))), {"message": "m"}, tf=True)],
        "EnsureShape": [C(fixed(u((2, 3))), {"shape": [2, -1]}, tf=True)],
        "Roll": [C(fixed(u((3, 4)), np.int32([1, -2]), np.int32([0, 1])), {}, [0], tf=True),
                 C(fixed(u((2, 5)), np.int64(7), np.int64(-1)), {}, [0])],
        "ReverseSequence": [C(fixed(u((3, 4, 2)), np.int64([1, 4, 2])), {"seq_dim": 1}, [0],
                              tf=True),
                            C(fixed(u((4, 3)), np.int32([0, 3, 2])),
                              {"seq_dim": 0, "batch_dim": 1}, [0])],
        "SparseToDense": [C(fixed(np.int32([[0, 1], [2, 3]]), np.int32([3, 4]), u((2,)), u(())),
                            {}, [2, 3], tf=True),
                          C(fixed(np.int64([0, 2]), np.int64([4]), u(()), u(())), {}, [2, 3]),
                          C(fixed(np.int32(1), np.int32([3]), u(()), u(())), {}, [2, 3])],
        "Cumprod": [C(fixed(u((3, 4), 0.5, 1.5), np.int32(1)), {}, [0])],
        "Einsum": [C(fixed(u((2, 3)), u((3, 4))), {"equation": "ij,jk->ik"}, list_arg=True)],
        "SpaceToDepth": [C(fixed(u((1, 4, 4, 2))), {"block_size": 2})],
        "DepthToSpace": [C(fixed(u((1, 2, 2, 8))), {"block_size": 2})],
        "SpaceToBatchND": [C(fixed(u((1, 4, 3, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])),
                             {}, [0])],
        "BatchToSpaceND": [C(fixed(u((4, 2, 2, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])),
                             {}, [0])],
        # float32 output: linear, so a wide step is exact
        "ResizeBilinear": [C(fixed(u((1, 3, 3, 2)), np.int32([5, 4])), {"half_pixel_centers": True},
                             [0], delta=0.25)],
        "ResizeNearestNeighbor": [C(fixed(u((1, 3, 3, 2)), np.int32([5, 4])), {}, [0])],
        # float32 output, linear in the images: a wide step is exact; the grad op is float only
        "ScaleAndTranslate": [
            C(fixed(u((1, 4, 5, 2)), np.int32([6, 3]), np.float32([1.5, 0.6]),
                    np.float32([0.25, -0.5])), {"kernel_type": kind, "antialias": aa}, [0],
              dtypes=(F32,), reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5, tf=True)
            for kind, aa in (("lanczos3", True), ("gaussian", False), ("mitchellcubic", True),
                             ("box", False))],
        "PlaceholderWithDefault": [C(fixed(u((2, 3))), {"shape": [2, 3]})],
        # pixels without ties between channels, in all six orders
        "RGBToHSV": [C(fixed(images), tf=True) for images in HSV_IMAGES],
        # float32 crops; boxes whose samples stay inside the image and off pixel centres
        # (the sampling is smooth there)
        "CropAndResize": [
            C(fixed(u((2, 5, 6, 2)), CROP_BOXES, np.int32([1, 0]), np.int32(crop)),
              {"method": method}, diff, dtypes=(F32,), reference_dtype=F32, delta=1e-3,
              rtol=2e-2, atol=2e-3, tf=True)
            for crop, method, diff in (((3, 4), "bilinear", [0, 1]), ((1, 1), "bilinear", [0, 1]),
                                       ((4, 3), "nearest", [0]))],
        # a copy of pixels: linear, so a wide step is exact
        "ExtractImagePatches": [
            C(fixed(u((2, 5, 6, 2))), {"ksizes": [1, *k, 1], "strides": [1, *s, 1],
                                       "rates": [1, *r, 1], "padding": pad}, [0], delta=0.25,
              tf=True)
            for k, s, r, pad in (((2, 3), (1, 2), (2, 1), "SAME"),
                                 ((3, 2), (2, 2), (1, 1), "VALID"))],
        # TensorFlow registers no gradient for CropAndResizeGradImage: derived (its
        # transpose, CropAndResize), numeric only
        "CropAndResizeGradImage": [
            C(fixed(u((2, 3, 4, 2)), CROP_BOXES, np.int32([1, 0]), np.int32([2, 5, 6, 2])),
              {"T": opgen.float32, "method": method}, [0], dtypes=(F32,), reference_dtype=F32,
              delta=0.25, rtol=1e-4, atol=1e-5) for method in ("bilinear", "nearest")],
    })
    # ---- added with this file: second derivatives and the rest ----
    cases.update({
        "EluGrad": [C(fixed(u((2, 3)), d((2, 3))), tf=True)],
        "SeluGrad": [C(fixed(u((2, 3)), d((2, 3))), tf=True)],
        "LeakyReluGrad": [C(fixed(u((2, 3)), d((2, 3))), {"alpha": 0.3}, tf=True)],
        "SoftplusGrad": [C(fixed(u((2, 3)), u((2, 3), -2, 2)), tf=True)],
        "SoftsignGrad": [C(fixed(u((2, 3)), d((2, 3))))],  # TensorFlow has none
        "ReciprocalGrad": [C(fixed(u((2, 3), 0.5, 2), u((2, 3))), tf=True)],
        "InvGrad": [C(fixed(u((2, 3), 0.5, 2), u((2, 3))), tf=True)],
        "RsqrtGrad": [C(fixed(u((2, 3), 0.5, 2), u((2, 3))), tf=True)],
        "SqrtGrad": [C(fixed(u((2, 3), 0.5, 2), u((2, 3))), tf=True)],
        "StridedSliceGrad": [C(fixed(np.int32([4, 5]), np.int32([3, 0]), np.int32([0, 5]),
                                     np.int32([-1, 2]), u((3, 3))), {}, [4], tf=True)],
        # the value broadcast along dim 0 of the [2, 3] slice: its gradient is summed
        "TensorStridedSliceUpdate": [C(fixed(u((4, 5)), np.int32([3, 0]), np.int32([0, 5]),
                                             np.int32([-2, 2]), u((1, 3))), {}, [0, 4], tf=True)],
        "MirrorPadGrad": [C(fixed(u((6, 7)), np.int32([[1, 2], [2, 1]])), {"mode": "REFLECT"}, [0],
                            tf=True),
                          C(fixed(u((5, 6)), np.int64([[1, 1], [2, 0]])), {"mode": "SYMMETRIC"}, [0],
                            tf=True)],
        "UnsortedSegmentSum": [C(fixed(u((4, 3)), np.int32([0, 2, -1, 2]), np.int32(3)), {}, [0],
                                 tf=True),
                               C(fixed(u((2, 2, 3)), np.int64([[1, 0], [1, 4]]), np.int32(5)), {}, [0],
                                 tf=True)],
        # gathers/scatters by n-d indices and the segment reductions (scatter_grad.cc);
        # max/min/prod inputs are distinct and away from 0 (no ties, no kink)
        "GatherNd": [C(fixed(u((4, 3, 2)), np.int32([[0, 1], [3, 2], [0, 1]])), {}, [0], tf=True),
                     C(fixed(u((4, 3)), np.int64([[[2]], [[0]]])), {}, [0], tf=True)],
        "ScatterNd": [C(fixed(np.int32([[1], [3], [1]]), u((3, 2)), np.int32([5, 2])), {}, [1],
                        tf=True)],
        "TensorScatterUpdate": [C(fixed(u((5, 2)), np.int32([[1], [3]]), u((2, 2))), {}, [0, 2],
                                  tf=True)],
        "TensorScatterAdd": [C(fixed(u((5, 2)), np.int64([[1], [3], [1]]), u((3, 2))), {}, [0, 2],
                               tf=True)],
        "TensorScatterSub": [C(fixed(u((5, 2)), np.int32([[1], [3], [1]]), u((3, 2))), {}, [0, 2],
                               tf=True)],
        "TensorScatterMax": [C(fixed(d((5, 2)), np.int32([[1], [3]]), d((2, 2))), {}, [0, 2],
                               tf=True)],
        "TensorScatterMin": [C(fixed(d((5, 2)), np.int32([[1], [3]]), d((2, 2))), {}, [0, 2],
                               tf=True)],
        # every segment named: an empty one's lowest/highest value overflows the differences
        "UnsortedSegmentMax": [C(fixed(d((5, 3)), np.int32([0, 1, -1, 1, 0]), np.int32(2)), {},
                                 [0], tf=True)],
        "UnsortedSegmentMin": [C(fixed(d((5, 3)), np.int64([0, 1, -1, 1, 0]), np.int32(2)), {},
                                 [0], tf=True)],
        "UnsortedSegmentProd": [C(fixed(u((5, 3), 0.5, 1.5), np.int32([0, 2, -1, 2, 0]),
                                        np.int32(4)), {}, [0], tf=True)],
        "SegmentSum": [C(fixed(u((5, 3)), np.int32([0, 0, 2, 3, 3])), {}, [0], tf=True)],
        "SegmentMean": [C(fixed(u((5, 3)), np.int64([0, 0, 2, 3, 3])), {}, [0], tf=True)],
        "SegmentMax": [C(fixed(d((5, 3)), np.int32([0, 0, 2, 3, 3])), {}, [0], tf=True)],
        "SegmentMin": [C(fixed(d((5, 3)), np.int32([0, 0, 2, 3, 3])), {}, [0], tf=True)],
        "SegmentProd": [C(fixed(u((5, 3), 0.5, 1.5), np.int32([0, 0, 2, 3, 3])), {}, [0],
                          tf=True)],
        "SparseSegmentSum": [C(fixed(u((4, 3)), np.int32([0, 3, 3, 1]), np.int32([0, 0, 2, 2])),
                               {}, [0], tf=True)],
        "SparseSegmentMean": [C(fixed(u((4, 3)), np.int64([0, 3, 3, 1]), np.int32([0, 0, 2, 2])),
                                {}, [0], tf=True)],
        "SparseSegmentSqrtN": [C(fixed(u((4, 3)), np.int32([0, 3, 3, 1]), np.int64([0, 1, 1, 1])),
                                 {}, [0], tf=True)],
        "SparseSegmentSumWithNumSegments": [
            C(fixed(u((4, 3)), np.int32([0, 3, 3, 1]), np.int32([0, 0, 2, 2]), np.int32(5)),
              {}, [0], tf=True)],
        "SparseSegmentMeanWithNumSegments": [
            C(fixed(u((4, 3)), np.int64([0, 3, 3, 1]), np.int32([1, 1, 2, 2]), np.int64(4)),
              {}, [0], tf=True)],
        "SparseSegmentSqrtNWithNumSegments": [
            C(fixed(u((4, 3)), np.int32([0, 3, 3, 1]), np.int64([0, 1, 1, 1]), np.int32(3)),
              {}, [0], tf=True)],
        # SparseTensor ops: values get the gradients of the entries they became
        "SparseReorder": [C(fixed(np.int64([[1, 0], [0, 2], [0, 1], [1, 2]]), u((4,)),
                                  np.int64([2, 3])), {}, [1], tf=True, output=1),
                          C(fixed(np.zeros((0, 2), np.int64), u((0,)), np.int64([2, 3])), {},
                            [1], output=1)],
        "SparseFillEmptyRows": [C(fixed(np.int64([[3, 0], [1, 2], [1, 1]]), u((3,)),
                                        np.int64([5, 3]), u(())), {}, [1, 3], tf=True,
                                  output=1)],
        "SparseTensorDenseMatMul": [
            C(fixed(np.int64([[0, 1], [1, 0], [1, 2], [0, 1]]), u((4,)), np.int64([2, 3]),
                    u((3, 4))), {}, [1, 3], tf=True),
            C(fixed(np.int32([[1, 0], [0, 1], [2, 1]]), u((3,)), np.int64([3, 2]), u((3, 4))),
              {"adjoint_a": True}, [1, 3], tf=True),
            C(fixed(np.int64([[0, 1], [1, 0], [1, 2]]), u((3,)), np.int64([2, 3]), u((4, 3))),
              {"adjoint_b": True}, [1, 3], tf=True),
            C(fixed(np.int64([[1, 0], [0, 1], [2, 1]]), u((3,)), np.int64([3, 2]), u((4, 3))),
              {"adjoint_a": True, "adjoint_b": True}, [1, 3], tf=True)],
        "SparseAdd": [C(fixed(np.int64([[0, 1], [1, 0], [1, 2]]), u((3,)), np.int64([2, 3]),
                              np.int64([[0, 1], [1, 1], [1, 2]]), u((3,)), np.int64([2, 3]),
                              np.float64(0)), {}, [1, 4], tf=True, output=1)],
        "SparseSlice": [C(fixed(np.int64([[0, 1], [1, 0], [1, 2], [3, 3]]), u((4,)),
                                np.int64([4, 5]), np.int64([1, 0]), np.int64([2, 3])), {}, [1],
                          tf=True, output=1)],
        "SparseReduceSum": [C(fixed(np.int64([[0, 1, 1], [1, 0, 0], [1, 2, 1], [0, 1, 0]]), u((4,)),
                                    np.int64([2, 3, 2]), np.int32(ax)), {"keep_dims": keep}, [1],
                              tf=True)
                            for ax, keep in (([1], False), ([-1, 0], True), ([], False))],
        "DynamicStitch": [C(fixed(u((2, 2, 3)), u((2, 3))), {}, op_type=_stitch("DynamicStitch"))],
        "ParallelDynamicStitch": [C(fixed(u((2, 2, 3)), u((2, 3))), {},
                                    op_type=_stitch("ParallelDynamicStitch"))],
        "DynamicPartition": [C(fixed(u((5, 2)), np.int32([1, 0, 1, 2, 0])), {"num_partitions": 3},
                               [0], tf=True),
                             C(fixed(u((2, 3, 2)), np.int32([[1, 0, 1], [2, 0, 2]])),
                               {"num_partitions": 3}, [0], output=2)],
        "AvgPoolGrad": [C(fixed(np.int32([2, 5, 4, 2]), u((2, 3, 2, 2))), window, [1], tf=True)],
        # linear in grad, with constants of its dtype: differences in that dtype, a wide step
        "MaxPoolGrad": [C(_pool_inputs(window), window, [2], tf=True, reference_dtype="same",
                          delta=0.25)],
        "MaxPoolGradGrad": [C(_pool_grad_grad_inputs(window), window, [2], tf=True,
                              reference_dtype="same", delta=0.25)],
        "Conv2DBackpropFilter": [C(fixed(u((1, 5, 5, 2)), np.int32([3, 3, 2, 3]), u((1, 3, 3, 3))),
                                   conv, [0, 2], tf=True)],
        "DepthwiseConv2dNativeBackpropFilter": [
            C(fixed(u((1, 5, 5, 2)), np.int32([2, 2, 2, 2]), u((1, 4, 4, 4))), one, [0, 2], tf=True)],
        "DepthwiseConv2dNativeBackpropInput": [
            C(fixed(np.int32([1, 5, 5, 2]), u((2, 2, 2, 2)), u((1, 4, 4, 4))), one, [1, 2], tf=True)],
        "Conv3DBackpropInputV2": [
            C(fixed(np.int32([1, 3, 4, 3, 2]), u((2, 2, 2, 2, 2)), u((1, 3, 2, 3, 2))), conv3, [1, 2],
              tf=True)],
        "Conv3DBackpropFilterV2": [
            C(fixed(u((1, 3, 4, 3, 2)), np.int32([2, 2, 2, 2, 2]), u((1, 3, 2, 3, 2))), conv3, [0, 2],
              tf=True)],
        # the 3-D pools (float32 kernels only): linear in grad, a wide step
        "AvgPool3DGrad": [C(fixed(np.int32([1, 4, 5, 3, 2]), u((1, 2, 3, 3, 2))), window3, [1],
                            dtypes=(F32,), reference_dtype=F32, delta=0.25, tf=True)],
        "MaxPool3DGrad": [C(_pool_inputs(window3, (1, 4, 5, 3, 2), "MaxPool3D"), window3, [2],
                            dtypes=(F32,), reference_dtype=F32, delta=0.25, tf=True)],
        "MaxPool3DGradGrad": [C(_pool_grad_grad_inputs(window3, (1, 4, 5, 3, 2), "MaxPool3D"), window3,
                                [2], dtypes=(F32,), reference_dtype=F32, delta=0.25, tf=True)],
        "ResizeBicubicGrad": [C(fixed(u((1, 5, 4, 2)), np.zeros((1, 3, 3, 2), F32)),
                                {"half_pixel_centers": True}, [0], dtypes=(F32,),
                                reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5),
                              C(fixed(u((1, 5, 4, 2)), np.zeros((1, 3, 3, 2), F32)),
                                {"align_corners": True}, [0], dtypes=(F32,),
                                reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5)],
        # TensorFlow registers no gradient for the resize backprops: derived, numeric only
        "ResizeBilinearGrad": [C(fixed(u((1, 5, 4, 2)), np.zeros((1, 3, 3, 2), F32)),
                                 {"half_pixel_centers": True}, [0], dtypes=(F32,),
                                 reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5),
                               C(fixed(u((1, 5, 4, 2)), np.zeros((1, 3, 3, 2), F32)),
                                 {"align_corners": True}, [0], dtypes=(F32,),
                                 reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5)],
        # TensorFlow registers no gradient for ScaleAndTranslateGrad: derived, numeric only
        "ScaleAndTranslateGrad": [C(fixed(u((1, 6, 3, 2)), np.zeros((1, 4, 5, 2), F32),
                                          np.float32([1.5, 0.6]), np.float32([0.25, -0.5])),
                                    {"kernel_type": "lanczos5"}, [0], dtypes=(F32,),
                                    reference_dtype=F32, delta=0.25, rtol=1e-4, atol=1e-5)],
        "ResizeNearestNeighborGrad": [C(fixed(u((1, 5, 4, 2)), np.int32([3, 3])), {}, [0]),
                                      C(fixed(u((1, 2, 3, 2)), np.int32([4, 5])),
                                        {"half_pixel_centers": True}, [0])],
        # values [6, 2] in rows of 2, 0, 3, 1; padded, truncated (values dropped: zero
        # gradient), two ragged levels, a default per inner position, FIRST_DIM_SIZE rows
        "RaggedTensorToTensor": [
            C(fixed(u((6, 2)), u(())), {}, op_type=_ragged_to_tensor([-1, -1, 2],
                                                                      [[0, 2, 2, 5, 6]])),
            C(fixed(u((6, 2)), u((2,))), {}, op_type=_ragged_to_tensor([3, 2, 2],
                                                                       [[0, 2, 2, 5, 6]])),
            C(fixed(u((6,)), u(())), {}, op_type=_ragged_to_tensor(
                [-1, -1, -1], [[0, 2, 2, 3], [0, 2, 3, 6]], ("ROW_SPLITS", "ROW_SPLITS"))),
            C(fixed(u((5,)), u(())), {}, op_type=_ragged_to_tensor(
                [4, 3], [4, [0, 0, 2, 2, 2]], ("FIRST_DIM_SIZE", "VALUE_ROWIDS")))],
        # TensorList: a round trip through every list op with a gradient
        "TensorListFromTensor": [C(fixed(u((4, 3)), u((3,))), tf=True,
                                   op_type=_list_round_trip)],
        "TensorListGetItem": [C(fixed(u((4, 3))), tf=True, op_type=_list_get_item),
                              C(fixed(u((4, 3))), tf=True, op_type=_list_two_reads)],
    })
    cases["TensorListSetItem"] = cases["TensorListStack"] = cases["TensorListFromTensor"]
    cases["TensorListPushBack"] = [C(fixed(u((4, 3)), u((3,))), op_type=_list_push_back)]
    cases["TensorListResize"] = [C(fixed(u((4, 3))), op_type=_list_resize)]
    cases["TensorListSplit"] = [C(fixed(u((4, 3))), op_type=_list_split_concat),
                                C(fixed(u((4, 3))), op_type=_list_split_get)]
    cases["TensorListConcatV2"] = [C(fixed(u((4, 3))), op_type=_list_split_concat)]
    cases["TensorListGather"] = [C(fixed(u((4, 3))), op_type=_list_gather)]
    cases["TensorListPopBack"] = [C(fixed(u((4, 3))), op_type=_list_pop_back(False)),
                                  C(fixed(u((4, 3))), op_type=_list_pop_back(True))]
    for op in ("TensorListScatter", "TensorListScatterV2"):
        cases[op] = [C(fixed(u((3, 3))), op_type=_list_scatter(op))]
    # v1 conds: both branches taken, and a cond nested in a branch
    cases["Switch"] = [C(fixed(u((2, 3)), u((2, 3))), tf=True, op_type=_cond(pred, nested))
                       for pred in (True, False) for nested in (False, True)]
    cases["Merge"] = cases["Switch"]
    for version in ("", "V2", "V3"):
        name = "FusedBatchNormGrad" + version
        cases[name] = [C(fixed(u((2, 2, 3, 3)), u((2, 2, 3, 3)), u((3,), 0.5, 1.5)), tf=True,
                         op_type=_batch_norm_second_order(version, "NHWC", output), **bn)
                       for output in (0, 1, 2)]
        cases[name].append(C(fixed(u((2, 3, 2, 3)), u((2, 3, 2, 3)), u((3,), 0.5, 1.5)),
                             op_type=_batch_norm_second_order(version, "NCHW", 0), **bn))
    # inference: the population statistics are inputs (constants here)
    cases["FusedBatchNormGradV3"].append(C(
        fixed(u((2, 2, 3, 3)), u((2, 2, 3, 3)), u((3,), 0.5, 1.5), u((3,)).astype(F32),
              u((3,), 0.5, 1.5).astype(F32), np.zeros(0, F32)),
        {"is_training": False, "epsilon": 0.001, "U": opgen.float32}, [0, 1, 2], **bn))
    return cases


GRADIENT_CASES = _cases()

NOT_DIFFERENTIABLE = {
    **dict.fromkeys(["Shape", "Size", "Rank", "BroadcastGradientArgs", "ConcatOffset",
                     "InvertPermutation", "Range", "Bucketize", "ShapeN", "BroadcastArgs",
                     "VariableShape", "UnravelIndex"], "computes shapes or indices"),
    "Empty": "a new tensor from a shape (TensorFlow registers no gradient)",
    **dict.fromkeys(["SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2"],
                    "TensorFlow registers no gradient"),
    "HistogramFixedWidth": "counts in bins (TensorFlow registers no gradient)",
    **dict.fromkeys(["DecodeRaw", "DecodePaddedRaw"],
                    "bytes reinterpreted as numbers (TensorFlow: not differentiable)"),
    "ParallelConcat": "TensorFlow registers no gradient",
    **dict.fromkeys(["InTopK", "InTopKV2", "UpperBound", "LowerBound", "DataFormatVecPermute",
                     "DataFormatDimMap"], "bool or index output (TensorFlow registers no gradient)"),
    "SparseReshape": "index arithmetic on int64 inputs (TensorFlow registers no gradient)",
    "SparseFillEmptyRowsGrad": "a gradient op (TensorFlow registers no gradient)",
    **dict.fromkeys(["SparseAddGrad", "SparseSliceGrad"],
                    "a gradient op (TensorFlow registers no gradient)"),
    "SparseConcat": "TensorFlow declares it not differentiable",
    **dict.fromkeys(["ArgMax", "ArgMin", "OneHot", "Where"], "integer or index output"),
    **dict.fromkeys(["Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                     "LogicalAnd", "LogicalOr", "LogicalNot", "All", "Any", "IsFinite", "IsNan",
                     "IsInf", "ApproximateEqual"], "boolean output"),
    **dict.fromkeys(["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "PopulationCount"],
                    "integer only"),
    **dict.fromkeys(["LeftShift", "RightShift"], "integer only"),
    **dict.fromkeys(["Floor", "Ceil", "Round", "FloorDiv", "Rint", "TruncateDiv"],
                    "piecewise constant: TensorFlow's gradient is None"),
    **dict.fromkeys(["ZerosLike", "OnesLike"], "does not depend on the input's values"),
    **dict.fromkeys(['RandomUniform', 'RandomStandardNormal', 'TruncatedNormal', 'RandomUniformInt', 'StatelessRandomUniform', 'StatelessRandomNormal', 'StatelessTruncatedNormal', 'StatelessRandomUniformInt', 'StatelessRandomUniformV2', 'StatelessRandomNormalV2', 'StatelessTruncatedNormalV2', 'StatelessRandomUniformIntV2', 'StatelessRandomUniformFullIntV2', 'StatelessRandomGetKeyCounter', 'StatelessRandomGetAlg', 'StatelessRandomGetKeyCounterAlg',
                     'RandomShuffle', 'Multinomial', 'StatelessMultinomial',
                     'StatelessRandomUniformFullInt', 'StatelessShuffle', 'StatelessRandomPoisson', 'StatelessRandomBinomial',
                     'StatefulUniform',
                     'StatefulUniformInt', 'StatefulUniformFullInt', 'StatefulStandardNormalV2',
                     'StatefulTruncatedNormal', 'RngSkip', 'RngReadAndSkip'],
                    "random values: TensorFlow registers the random ops as not differentiable"),
    "StopGradient": "stops gradients by definition",
    **dict.fromkeys(["Const", "Placeholder", "PlaceholderV2"], "no inputs"),
    **dict.fromkeys(["VarHandleOp", "VarIsInitializedOp", "DestroyResourceOp", "AssignVariableOp",
                     "AssignAddVariableOp", "AssignSubVariableOp", "ResourceScatterAdd",
                     "ResourceScatterSub", "ResourceScatterUpdate", "ResourceScatterMul",
                     "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
                     "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
                     "ResourceScatterNdMin", "ResourceScatterNdMax",
                     "ResourceStridedSliceAssign"],
                    "variable state: gradients reach a variable through ReadVariableOp"),
    **dict.fromkeys(["ResourceApplyGradientDescent", "ResourceApplyMomentum",
                     "ResourceApplyKerasMomentum", "ResourceApplyAdagrad", "ResourceApplyRMSProp",
                     "ResourceApplyAdam", "ResourceApplyAdadelta", "ResourceApplyAdagradV2",
                     "ResourceApplyAdamWithAmsgrad", "ResourceApplyAdagradDA",
                     "ResourceSparseApplyAdagradDA",
                     "ResourceApplyProximalAdagrad", "ResourceApplyProximalGradientDescent",
                     "ResourceApplyCenteredRMSProp", "ResourceApplyFtrl", "ResourceApplyFtrlV2",
                     "ResourceApplyAdaMax", "ResourceApplyAddSign", "ResourceApplyPowerSign",
                     "ResourceSparseApplyAdagrad", "ResourceSparseApplyAdagradV2",
                     "ResourceSparseApplyMomentum", "ResourceSparseApplyKerasMomentum",
                     "ResourceSparseApplyRMSProp", "ResourceSparseApplyFtrl",
                     "ResourceSparseApplyFtrlV2", "ResourceSparseApplyAdadelta",
                     "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyProximalAdagrad",
                     "ResourceSparseApplyProximalGradientDescent"],
                    "an optimizer's update: no output"),
    **dict.fromkeys(["SaveV2", "RestoreV2", "MergeV2Checkpoints"], "checkpoint I/O"),
    **dict.fromkeys(["NoOp", "ControlTrigger", "DisableCopyOnRead"], "no outputs"),
    **dict.fromkeys(["StringJoin", "ShardedFilename", "ShardedFilespec", "StaticRegexFullMatch"],
                    "string or boolean output"),
    **dict.fromkeys(["AsString", "StringToHashBucketFast", "StringToHashBucketStrong",
                     "Fingerprint"],
                    "string or hash-bucket output (TensorFlow: not differentiable)"),
    **dict.fromkeys(["ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor",
                     "SerializeTensor"],
                    "parses serialized protos (TensorFlow: not differentiable)"),
    "HSVToRGB": "TensorFlow declares it not differentiable",
    **dict.fromkeys(["CTCGreedyDecoder", "CTCBeamSearchDecoder", "EditDistance"],
                    "decoded label sequences and their distances (TensorFlow: not "
                    "differentiable)"),
    **dict.fromkeys(["SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
                     "StatelessSampleDistortedBoundingBox", "DrawBoundingBoxes",
                     "ExtractGlimpse"],
                    "sampled crops, drawn boxes, glimpses (TensorFlow: not differentiable)"),
    **dict.fromkeys(["NonMaxSuppression", "NonMaxSuppressionV2",
                     "NonMaxSuppressionV3", "NonMaxSuppressionV4", "NonMaxSuppressionV5",
                     "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression"],
                    "selected box indices (TensorFlow registers no gradient; V5's scores "
                    "have none there either)"),
    **dict.fromkeys(["Bincount", "DenseBincount", "RaggedBincount", "SparseBincount"],
                    "counts of integer values (TensorFlow registers no gradient)"),
    **dict.fromkeys(["StringLower", "StringUpper", "StringStrip", "StaticRegexReplace",
                     "RegexReplace", "StringSplitV2", "StringNGrams", "Substr"],
                    "string ops: TensorFlow declares them not differentiable"),
    **dict.fromkeys(["StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin",
                     "UnsortedSegmentJoin", "StringSplit", "StringToHashBucket", "EncodeBase64",
                     "DecodeBase64", "UnicodeDecode", "UnicodeDecodeWithOffsets",
                     "UnicodeEncode", "UnicodeTranscode", "UnicodeScript"],
                    "string, integer or boolean outputs of strings (TensorFlow registers no "
                    "gradient)"),
    **dict.fromkeys(["HashTableV2", "MutableHashTableV2", "LookupTableImportV2",
                     "InitializeTableV2", "LookupTableInsertV2", "LookupTableFindV2",
                     "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2", "LookupTableExportV2"],
                    "lookup tables: keys are looked up, not differentiated (as in TensorFlow)"),
    "LoopCond": "a boolean loop condition",
    **dict.fromkeys(["Assert", "PrintV2"], "no outputs (TensorFlow: not differentiable)"),
    "StringFormat": "string output",
    "LinSpace": "TensorFlow declares it not differentiable",
    **dict.fromkeys(["Unique", "UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2",
                     "ListDiff"],
                    "selects values by equality: TensorFlow registers no gradient"),
    **dict.fromkeys(["TensorListLength", "TensorListElementShape"], "a list's length or shape"),
    "TensorListReserve": "a new list of unset elements from integer inputs",
    **dict.fromkeys(["TensorArrayV3", "TensorArraySizeV3", "TensorArrayCloseV3"],
                    "a TensorArray's handle, size or deletion (TensorFlow: not differentiable)"),
    **dict.fromkeys(["TensorArrayGradV3", "TensorArrayGradWithShape"],
                    "makes the gradient array itself (TensorFlow: not differentiable)"),
    **dict.fromkeys(["StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"],
                    "a loop gradient's saved values (TensorFlow: not differentiable)"),
    **dict.fromkeys(["FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
                     "FakeQuantWithMinMaxVarsPerChannelGradient"],
                    "a straight-through gradient's mask (TensorFlow: not differentiable)"),
}

# TensorArray ops TensorFlow differentiates through TensorArrayGradV3, which opgen lacks
# yet: their gradient entries refuse, naming the op (test_tensor_array_gradients_are_refused).
TENSOR_ARRAY_NO_GRADIENT_YET = {
    # TensorFlow's list_ops.py differentiates these; opgen's gradients are not built yet
    # (test_list_gradients_not_built_are_refused).
    **{op: "TensorFlow's list_ops.py gradient is not built yet"
       for op in ("TensorListScatterIntoExistingList",)}}

V1_WHILE_LOOPS = ["Enter", "Exit", "NextIteration"]

# No gradient entry at all, as in TensorFlow's registry: differentiating through one
# fails with "No gradient defined for op" (NotFoundError, a LookupError, as TensorFlow's),
# and a user may register one (checked in test_debug_ops.py).
NO_GRADIENT = {"Snapshot": "TensorFlow registers none: its tape and tf.gradients fail",
               "Lu": "TensorFlow registers none: its tape and tf.gradients fail",
               **dict.fromkeys(["LRNGrad", "MaxPoolGradGradV2", "MaxPoolGradWithArgmax",
                                "Dilation2DBackpropInput", "Dilation2DBackpropFilter"],
                               "TensorFlow registers none: its tape and tf.gradients fail"),
               **dict.fromkeys(["LSTMBlockCell", "GRUBlockCell", "LSTMBlockCellGrad", "GRUBlockCellGrad",
                                "BlockLSTMGrad", "BlockLSTMGradV2", "BatchNormWithGlobalNormalizationGrad"],
                               "TensorFlow registers none: its tape and tf.gradients fail"),
               **dict.fromkeys(["Bitcast", "InplaceUpdate", "InplaceAdd", "InplaceSub"],
                               "TensorFlow registers none: its tape and tf.gradients fail"),
               **dict.fromkeys(["AdjustContrast", "RandomCrop", "ExtractGlimpseV2",
                                "DrawBoundingBoxesV2"],
                               "TensorFlow registers none: its tape and tf.gradients fail"),
               **dict.fromkeys(["DecodeWav", "EncodeWav", "AudioSpectrogram", "Mfcc", "ReadFile",
                                "WriteFile", "DecodeCSV"],
                               "TensorFlow registers none (audio and file ops)")}

UNIMPLEMENTED: dict[str, str] = {
    **dict.fromkeys(["IgammaGradA", "RandomGammaGrad"], "TensorFlow defines no gradient either"),
    **dict.fromkeys(["Mod", "TruncateMod"], "TensorFlow defines no gradient either"),
    "ResizeArea": "TensorFlow defines no gradient for it either",
    "CropAndResizeGradBoxes": "TensorFlow defines no gradient for it either",
    **dict.fromkeys(["AdjustHue", "AdjustSaturation", "AdjustContrastv2"],
                    "TensorFlow defines no gradient for them either"),
}

# Function calls and functional control flow: their gradients are issue 23's part 3;
# until then TF_AddGradients through them says "No gradient defined for op: ..." (checked
# below).
# Checked in test_function_gradients.py (finite differences; TensorFlow's gradients of its
# tf.cond / tf.while_loop graph).
FUNCTIONAL = ["PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
              "StatelessCase", "While", "StatelessWhile"]

CHECKED_ELSEWHERE = {
    # sparse labels the checker cannot feed; the gradient is the op's own second output
    "CTCLoss": "test_ctc_ops.py::test_ctc_loss_gradient_matches_tensorflow",
    "CTCLossV2": "test_ctc_ops.py::test_ctc_loss_v2_has_no_kernel_and_the_same_gradient_function",
    # half and float only (float32 central differences through a recurrence are too coarse):
    # against TensorFlow's tape through the same graphs.
    **dict.fromkeys(["BlockLSTM", "BlockLSTMV2"], "test_rnn_block_ops.py::test_matches_tensorflow "
                    "(the tape-* cases) and test_graph_gradients_equal_the_gradient_op"),
    # TensorFlow runs it only in graphs of GraphDef version 8 or older.
    "BatchNormWithGlobalNormalization": "test_batch_norm_global.py::test_matches_tensorflow",
    **dict.fromkeys(["StatelessRandomGammaV2", "StatelessRandomGammaV3"],
                    "test_random_stateless_samplers.py::test_gamma_gradients_match_tensorflow"),
    "StatelessParameterizedTruncatedNormal": "test_random_stateless_samplers.py::"
                                             "test_parameterized_truncated_normal_gradients_match_tensorflow",
    # Their gradients are LookupErrors, as TensorFlow's (a registered gradient that fails).
    "PreventGradient": "test_everyday_array_ops.py::"
                       "test_prevent_gradient_gradient_is_a_lookup_error_with_the_message",
    "GuaranteeConst": "test_everyday_array_ops.py::"
                      "test_guarantee_const_is_stateful_and_has_no_gradient",
    # the list input second, which the checker cannot pass
    "Concat": "test_legacy_ops.py::test_concat_gradient_matches_tensorflow",
    # TensorFlow's gradient resamples through the inverse map, not the exact adjoint of
    # the sampling: compared with tf.GradientTape, not with finite differences
    **dict.fromkeys(["ImageProjectiveTransformV2", "ImageProjectiveTransformV3"],
                    "test_image_transform_ops.py::test_gradient_matches_tensorflow"),
    "ReadVariableOp": "test_gradients.py::test_gradient_with_respect_to_a_variable",
    "ResourceGather": "test_scatter_segment.py::test_embedding_training_step_with_resource_gather",
    "ResourceGatherNd": "test_variable_updates.py::"
                        "test_slice_update_and_gather_nd_gradients_match_tensorflow",
    # Straight-through gradients (finite differences of a step function are zero): against
    # tf.GradientTape's.
    **dict.fromkeys(["FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxVars",
                     "FakeQuantWithMinMaxVarsPerChannel"],
                    "test_fake_quant_lrn.py::test_matches_tensorflow (the tape-* cases)"),
    # Through gradient arrays, against TensorFlow's tf.gradients of the same program.
    **dict.fromkeys(["TensorArrayReadV3", "TensorArrayWriteV3", "TensorArrayGatherV3",
                     "TensorArrayScatterV3", "TensorArrayConcatV3", "TensorArraySplitV3"],
                    "test_tensor_array_v3.py::test_opgen_gradients_through_tensor_arrays_"
                    "match_tensorflows"),
}


def _registry() -> list[str]:
    """The built-in ops: the runtime's, less those that op libraries loaded into this
    process (by other tests) added; the internal _Opgen* ones are kept."""
    from google.protobuf import text_format

    from opgen import _paths
    from opgen.runtime import _lib
    ops = op_def_pb2.OpList()
    ops.ParseFromString(_lib.all_op_list_bytes())
    builtin = {op.name for op in text_format.Parse(_paths.bundled_ops_path().read_text(),
                                                   op_def_pb2.OpList()).op}
    return [op.name for op in ops.op if op.name in builtin or op.name.startswith("_Opgen")]


def _has_gradient(op: str) -> bool:
    from opgen.runtime import _lib
    fn = _lib.lib().OPGEN_HasGradient
    fn.argtypes, fn.restype = [ctypes.c_char_p], ctypes.c_int
    return fn(op.encode()) == 1


def test_every_builtin_op_is_classified():
    registry = _registry()
    internal = {op for op in registry if op.startswith("_Opgen")}
    groups = {"GRADIENT_CASES": set(GRADIENT_CASES), "NOT_DIFFERENTIABLE": set(NOT_DIFFERENTIABLE),
              "V1_WHILE_LOOPS": set(V1_WHILE_LOOPS), "NO_GRADIENT": set(NO_GRADIENT),
              "UNIMPLEMENTED": set(UNIMPLEMENTED),
              "CHECKED_ELSEWHERE": set(CHECKED_ELSEWHERE), "FUNCTIONAL": set(FUNCTIONAL),
              "TENSOR_ARRAY_NO_GRADIENT_YET": set(TENSOR_ARRAY_NO_GRADIENT_YET),
              "internal": internal}
    classified: set[str] = set()
    for name, ops in groups.items():
        assert not ops & classified, f"{name} repeats {sorted(ops & classified)}"
        classified |= ops
    unclassified = sorted(set(registry) - classified)
    assert not unclassified, (f"ops without a gradient classification: {unclassified}; add each "
                              "to a table in test_gradient_coverage.py")
    assert not classified - set(registry), f"not ops: {sorted(classified - set(registry))}"
    assert len(registry) >= 190
    assert set(ADDED) <= set(GRADIENT_CASES)
    for op in set(registry) - set(V1_WHILE_LOOPS) - set(NO_GRADIENT) - internal:
        assert _has_gradient(op), f"{op} is classified but the runtime has no gradient entry"
    for op in set(V1_WHILE_LOOPS) | set(NO_GRADIENT) | internal:
        assert not _has_gradient(op), op


CASE_IDS = [(op, k) for op in sorted(GRADIENT_CASES) for k in range(len(GRADIENT_CASES[op]))]


@pytest.mark.parametrize("dtype", [F64, F32], ids=["float64", "float32"])
@pytest.mark.parametrize("op,k", CASE_IDS, ids=[f"{op}-{k}" for op, k in CASE_IDS])
def test_gradient_against_finite_differences(op, k, dtype):
    case = GRADIENT_CASES[op][k]
    if dtype not in case.dtypes:
        pytest.skip(f"{op}'s kernels take no {np.dtype(dtype).name}")
    extra = dict(case.extra)
    op_type = extra.pop("op_type", op)
    if extra.get("reference_dtype") == "same":
        extra["reference_dtype"] = dtype
    check_gradient(op_type, case.inputs(dtype), case.attrs, diff=case.diff, dtype=dtype, **extra)


ADDED = ["EluGrad", "SeluGrad", "LeakyReluGrad", "SoftplusGrad", "SoftsignGrad", "ReciprocalGrad",
         "RsqrtGrad", "SqrtGrad", "StridedSliceGrad", "TensorStridedSliceUpdate", "MirrorPadGrad",
         "UnsortedSegmentSum",
         "AvgPoolGrad", "MaxPoolGrad", "MaxPoolGradGrad", "Conv2DBackpropFilter",
         "DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput",
         "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", "ResizeBilinearGrad",
         "ResizeNearestNeighborGrad", "ScaleAndTranslateGrad", "TensorListFromTensor", "TensorListGetItem",
         "FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3", "Switch", "Merge",
         "MaxPool3D", "AvgPool3D", "ResizeBicubic", "AvgPool3DGrad", "MaxPool3DGrad", "MaxPool3DGradGrad",
         "ResizeBicubicGrad", "RFFT", "RFFT2D", "RFFT3D", "IRFFT", "IRFFT2D", "IRFFT3D", "MatrixDiagV3",
         "MatrixDiagPartV3", "MatrixSetDiagV3", "MatrixDiagV2", "MatrixDiagPartV2", "MatrixSetDiagV2",
         "MatrixDiag", "MatrixDiagPart", "MatrixSetDiag", "Gather", "Reverse", "BatchMatMul",
         "SpaceToBatch", "BatchToSpace", "L2Loss", "Diag", "DiagPart", "MatrixInverse", "MatrixDeterminant",
         "LogMatrixDeterminant", "MatrixSolve", "MatrixTriangularSolve", "Cholesky",
         "GatherNd", "ScatterNd", "TensorScatterUpdate", "TensorScatterAdd",
         "TensorScatterSub", "TensorScatterMax", "TensorScatterMin", "UnsortedSegmentMax",
         "UnsortedSegmentMin", "UnsortedSegmentProd", "SegmentSum", "SegmentMean", "SegmentMax",
         "SegmentMin", "SegmentProd", "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
         "RGBToHSV", "SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
         "SparseSegmentSqrtNWithNumSegments", "SparseReorder", "SparseFillEmptyRows",
         "SparseTensorDenseMatMul", "SparseAdd", "SparseSlice", "SparseReduceSum"]
DYNAMIC_IDS = [(op, k) for op, k in CASE_IDS if op in ADDED]


@pytest.mark.parametrize("op,k", DYNAMIC_IDS, ids=[f"{op}-{k}" for op, k in DYNAMIC_IDS])
def test_added_gradients_with_unknown_shapes(op, k):
    """The gradients added with this file, built on placeholders of unknown rank (the
    graph-time shape paths fall back to Shape nodes)."""
    case = GRADIENT_CASES[op][k]
    dtype = case.dtypes[0]
    extra = dict(case.extra)
    op_type = extra.pop("op_type", op)
    if extra.get("reference_dtype") == "same":
        extra["reference_dtype"] = dtype
    check_gradient(op_type, case.inputs(dtype), case.attrs, diff=case.diff, dtype=dtype,
                   static=False, **extra)


@pytest.mark.parametrize("op", V1_WHILE_LOOPS)
def test_v1_while_loops_name_the_op_and_the_way_out(op):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[2], name="x")
        attrs = {"frame_name": "f"} if op == "Enter" else {}
        y = g.create_op(op, [x], attrs, name="cf").outputs[0]
    count = len(g.get_operations())
    with pytest.raises(opgen.errors.NotFoundError,
                       match=rf"No gradient defined for op: {op} \(node 'cf'\).*functional control flow"):
        opgen.gradients(y, x)
    assert len(g.get_operations()) == count


_UNIMPLEMENTED_CALLS = {
    "ResizeArea": ([np.zeros((1, 3, 3, 1), F32), np.int32([5, 5])], {}),
    **{op: ([np.full((1, 2, 2, 3), 0.5, F32), np.float32(0.5)], {})
       for op in ("AdjustHue", "AdjustSaturation", "AdjustContrastv2")},
    "CropAndResizeGradBoxes": ([np.zeros((1, 2, 2, 1), F32), np.zeros((1, 3, 3, 1), F32),
                                np.float32([[0, 0, 1, 1]]), np.int32([0])], {}),
    **{op: ([np.float32([1.5, 2.5]), np.float32([0.5, 3.0])], {})
       for op in ("IgammaGradA", "RandomGammaGrad")},
    **{op: ([np.float32([5.5, -3.5]), np.float32([2.0, 2.0])], {}) for op in ("Mod", "TruncateMod")},
}
# Ops whose differentiated input is not the first: (inputs, attrs, x's place, the list
# inputs' places).
_UNIMPLEMENTED_CALLS_AT = {
    "RaggedTensorToTensor": ([np.int64(-1), np.zeros((3,), F32), np.float32(0),
                              np.int64([0, 1, 3])], {"row_partition_types": ["ROW_SPLITS"]},
                             1, [3]),
}


def test_list_gradients_not_built_are_refused():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[4, 2], name="x")
        handle = opgen.ops.tensor_list_from_tensor(x, np.int32([2]))
        y = opgen.ops.tensor_list_scatter_into_existing_list(handle, x[:2], np.int32([3, 0]))
        y = opgen.ops.tensor_list_stack(y, np.int32([2]), element_dtype=opgen.float32)
    with pytest.raises(opgen.errors.UnimplementedError, match="TensorListScatterIntoExistingList"):
        opgen.gradients(y, x)


@pytest.mark.parametrize("op", sorted(UNIMPLEMENTED))
def test_unimplemented_gradients_say_why(op):
    g = opgen.Graph()
    inputs, attrs, at, lists = (_UNIMPLEMENTED_CALLS[op] + (0, [])
                                if op in _UNIMPLEMENTED_CALLS else _UNIMPLEMENTED_CALLS_AT[op])
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=inputs[at].shape, name="x")
        args = [x if i == at else opgen.constant(v) for i, v in enumerate(inputs)]
        args = [[a] if i in lists else a for i, a in enumerate(args)]
        y = g.create_op(op, args, attrs, name="n").outputs[0]
    with pytest.raises(opgen.errors.UnimplementedError, match=op):
        opgen.gradients(y, x)


def test_switch_and_merge_of_a_while_loop_say_so():
    """A loop's Merge (fed by Enter and NextIteration) and Switch (on LoopCond) refuse."""
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[], name="x")
        enter = g.create_op("Enter", [x], {"frame_name": "loop"}).outputs[0]
        merge = g.create_op("Merge", [[enter, enter]], {}).outputs[0]
        cond = g.create_op("LoopCond", [g.create_op("Less", [merge, merge], {}).outputs[0]], {})
        switch = g.create_op("Switch", [merge, cond.outputs[0]], {}).outputs[1]
    for y in (merge, switch):
        with pytest.raises(opgen.errors.UnimplementedError, match=r"v1 while loops.*While"):
            opgen.gradients(y, x)


def test_functional_control_flow_has_gradients():
    """TensorFlow 2.21's tf.cond / tf.while_loop graph (tests/fixtures/tf_functions): its
    StatelessIf and StatelessWhile differentiate (test_function_gradients.py checks the
    values against TensorFlow's)."""
    from opgen.protos import graph_pb2
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "tf_functions" / "control_flow.pb"
    gd = graph_pb2.GraphDef.FromString(fixture.read_bytes())
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(gd, name="")
    by_type = {op.type: op for op in g.get_operations()}
    x = next(op for op in g.get_operations() if op.type == "Placeholder"
             and op.get_attr("dtype") == opgen.float32).outputs[0]
    for op_type, output in (("StatelessIf", 0), ("StatelessWhile", 3)):  # float32 outputs
        (dx,) = opgen.gradients(by_type[op_type].outputs[output], x)
        assert dx is not None and dx.dtype == opgen.float32


def test_complex_abs_gradient_is_zero_at_zero():
    """TensorFlow's div_no_nan: |z| has no derivative at 0, and its gradient there is 0."""
    g = opgen.Graph()
    with g.as_default():
        z = opgen.ops.placeholder(opgen.complex64, shape=[3])
        y = g.create_op("ComplexAbs", [z], {"Tout": opgen.float32}).outputs[0]
        (dz,) = opgen.gradients(y, z)
    with opgen.Session(graph=g) as s:
        got = s.run(dz, {z: np.complex64([0, 3 + 4j, -2j])})
    np.testing.assert_allclose(got, [0, 0.6 + 0.8j, -1j], rtol=1e-6)


def test_batch_norm_second_order_in_half_follows_float32():
    """FusedBatchNormGradV3 on half x: the second-order gradient computes in float32 and
    casts back, so it is float32's rounded to half."""
    data = np.random.default_rng(5)
    dy_v, x_v = data.uniform(-1, 1, (2, 2, 3, 3)), data.uniform(-1, 1, (2, 2, 3, 3))
    scale_v = data.uniform(0.5, 1.5, 3).astype(F32)

    def second_order(dtype):
        g = opgen.Graph()
        with g.as_default():
            dy, x = (opgen.ops.placeholder(dtype, shape=[2, 2, 3, 3]) for _ in range(2))
            scale = opgen.ops.placeholder(opgen.float32, shape=[3])
            empty = opgen.constant(np.zeros(0, F32))
            attrs = {"is_training": True, "epsilon": 0.001, "U": opgen.float32}
            fwd = g.create_op("FusedBatchNormV3", [x, scale, opgen.constant(np.float32([0.1, -0.2, 0.3])),
                                                   empty, empty], attrs)
            grad = g.create_op("FusedBatchNormGradV3", [dy, x, scale] + fwd.outputs[3:6], attrs)
            y = opgen.ops.add_v2(opgen.ops.sum(opgen.ops.cast(grad.outputs[0], opgen.float32), [0, 1, 2, 3]),
                                 opgen.ops.sum(grad.outputs[1], [0]))
            grads = opgen.gradients(y, [dy, x, scale])
        numpy_dtype = dtype.as_numpy_dtype
        return opgen.Session(g).run(grads, {dy: dy_v.astype(numpy_dtype), x: x_v.astype(numpy_dtype),
                                            scale: scale_v})

    for want, got in zip(second_order(opgen.float32), second_order(opgen.float16)):
        assert got.dtype == (np.float16 if want.shape != (3,) else np.float32)
        np.testing.assert_allclose(np.asarray(got, F32), want, atol=3e-3 * max(1.0, np.abs(want).max()))


def test_max_pool_grad_grad_kernel_against_numpy():
    """MaxPoolGradGrad reads grad at the first element of each window equal to orig_output
    there (TensorFlow's CPU rule), zero where none is; windows clipped by SAME padding."""
    x = _distinct((2, 5, 4, 3))
    x[0, 0, 0, 0] = x[0, 0, 1, 0] = 9.0  # a tie: the first equal element wins
    attrs = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    y = opgen.execute_op("MaxPool", [x], attrs)[0].numpy()
    y[1, 0, 0, 2] = 123.0  # not in its window: zero
    g = _u(x.shape)
    got = opgen.execute_op("MaxPoolGradGrad", [x, y, g], attrs)[0].numpy()
    want = np.zeros_like(y)
    pad_h = max((y.shape[1] - 1) * 2 + 3 - 5, 0) // 2
    pad_w = max((y.shape[2] - 1) * 2 + 2 - 4, 0) // 2
    for b, i, j, ch in np.ndindex(*y.shape):
        r0, c0 = max(i * 2 - pad_h, 0), max(j * 2 - pad_w, 0)
        r1, c1 = min(i * 2 - pad_h + 3, 5), min(j * 2 - pad_w + 2, 4)
        hits = [(r, c) for r in range(r0, r1) for c in range(c0, c1) if x[b, r, c, ch] == y[b, i, j, ch]]
        if hits:
            want[b, i, j, ch] = g[b, hits[0][0], hits[0][1], ch]
    assert want[0, 0, 0, 0] == g[0, 0, 0, 0] and want[1, 0, 0, 2] == 0
    np.testing.assert_array_equal(got, want)
    with pytest.raises(opgen.errors.InvalidArgumentError, match="same shape"):
        opgen.execute_op("MaxPoolGradGrad", [x, y, g[:1]], attrs)


def test_add_n_of_lists_sums_elements_and_keeps_unset_ones():
    """The gradients reaching one list from several places are summed element by element
    (TensorFlow's AddN of variants); an element unset in every list stays unset."""
    g = opgen.Graph()
    with g.as_default():
        def const(v):
            return opgen.constant(np.asarray(v))

        def new_list(n):
            return g.create_op("TensorListReserve", [const(np.int32([2])), const(np.int32(n))],
                               {"element_dtype": opgen.float64}).outputs[0]

        def set_item(lst, i, v):
            return g.create_op("TensorListSetItem", [lst, const(np.int32(i)), const(v)],
                               {"element_dtype": opgen.float64}).outputs[0]

        a = set_item(set_item(new_list(4), 0, [1.0, 2.0]), 1, [3.0, 4.0])
        b = set_item(new_list(4), 1, [10.0, 20.0])
        total = g.create_op("AddN", [[a, b, b]], {}).outputs[0]
        stacked = g.create_op("TensorListStack", [total, const(np.int32([2]))],
                              {"element_dtype": opgen.float64}).outputs[0]
        stacked_b = g.create_op("TensorListStack", [b, const(np.int32([2]))],
                                {"element_dtype": opgen.float64}).outputs[0]
        bad = g.create_op("AddN", [[a, new_list(3)]], {}).outputs[0]
    session = opgen.Session(g)
    got, got_b = session.run([stacked, stacked_b])
    np.testing.assert_array_equal(got, [[1, 2], [23, 44], [0, 0], [0, 0]])
    np.testing.assert_array_equal(got_b, [[0, 0], [10, 20], [0, 0], [0, 0]])  # inputs untouched
    with pytest.raises(opgen.errors.InvalidArgumentError, match="one length"):
        session.run(bad)


# ---- against tf.GradientTape -----------------------------------------------------------

# Run by TensorFlow's interpreter: argv[1] the cases (JSON), argv[2] their arrays (.npz),
# argv[3] the results (.npz). Each case is a raw op on named inputs, or a composite.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    cases, data, out = json.load(open(sys.argv[1])), dict(np.load(sys.argv[2])), {}

    def attr(v):
        return tf.as_dtype(v["dtype"]) if isinstance(v, dict) else v

    def list_round_trip(t, item):
        lst = tf.raw_ops.TensorListFromTensor(tensor=t, element_shape=tf.constant([3]))
        lst = tf.raw_ops.TensorListSetItem(input_handle=lst, index=1, item=item)
        return tf.raw_ops.TensorListStack(input_handle=lst, element_shape=tf.constant([3]),
                                          element_dtype=t.dtype)

    def list_get_item(t):
        lst = tf.raw_ops.TensorListFromTensor(tensor=t, element_shape=tf.constant([3]))
        return tf.raw_ops.TensorListGetItem(input_handle=lst, index=2, element_shape=[3],
                                            element_dtype=t.dtype)

    def list_two_reads(t):
        lst = tf.raw_ops.TensorListFromTensor(tensor=t, element_shape=tf.constant([3]))
        a, b = (tf.raw_ops.TensorListGetItem(input_handle=lst, index=i, element_shape=[3],
                                             element_dtype=t.dtype) for i in (0, 2))
        return a * b

    def cholesky_of_gram(x):
        gram = tf.matmul(x, x, adjoint_b=True) + 3 * tf.eye(3, dtype=x.dtype)
        return tf.raw_ops.Cholesky(input=gram)

    def batch_norm(version, output):
        def f(dy, x, scale):
            empty = tf.zeros([0])
            fwd = getattr(tf.raw_ops, "FusedBatchNorm" + version)(
                x=x, scale=scale, offset=tf.constant([0.1, -0.2, 0.3]), mean=empty,
                variance=empty, epsilon=0.001, is_training=True)
            extra = {"reserve_space_3": fwd[5]} if version == "V3" else {}
            return getattr(tf.raw_ops, "FusedBatchNormGrad" + version)(
                y_backprop=dy, x=x, scale=scale, reserve_space_1=fwd[3],
                reserve_space_2=fwd[4], epsilon=0.001, is_training=True, **extra)[output]
        return f

    def cond(pred, nested):
        @tf.function
        def f(x, z, w):
            fx, tx = tf.raw_ops.Switch(data=x, pred=tf.constant(pred))
            _, tz = tf.raw_ops.Switch(data=z, pred=tf.constant(pred))
            false_result = tf.sin(fx)
            if nested:
                ffx, tfx = tf.raw_ops.Switch(data=fx, pred=tf.constant(not pred))
                false_result = tf.raw_ops.Merge(inputs=[tf.cos(ffx), tfx * tfx])[0]
            y = tf.raw_ops.Merge(inputs=[false_result, tx * tz])[0] * x
            return tf.gradients(y, [x, z], grad_ys=w)  # v1 control flow: graph gradients
        return f

    for c in cases:
        inputs = {k: tf.constant(data[v]) for k, v in c["inputs"].items()}
        if (c["composite"] or "").startswith("cond-"):
            _, pred, nested = c["composite"].split("-")
            grads = cond(pred == "1", nested == "1")(*inputs.values(), tf.constant(data[c["w"]]))
            for name, gr in zip(c["diff"], grads):
                out[c["id"] + "/" + name] = np.asarray(gr)
            continue
        with tf.GradientTape() as tape:
            for name in c["diff"]:
                tape.watch(inputs[name])
            if c["composite"]:
                kind = c["composite"]
                lists = {"round_trip": list_round_trip, "get_item": list_get_item,
                         "two_reads": list_two_reads, "cholesky_of_gram": cholesky_of_gram}
                fn = lists.get(kind) or batch_norm(kind[2:], int(kind[0]))
                y = fn(*inputs.values())
            else:
                y = getattr(tf.raw_ops, c["op"])(
                    **inputs, **{k: attr(v) for k, v in c["attrs"].items()})
                y = y[c.get("output", 0)] if isinstance(y, (list, tuple)) else y
        grads = tape.gradient(y, [inputs[n] for n in c["diff"]],
                              output_gradients=tf.constant(data[c["w"]]))
        for name, gr in zip(c["diff"], grads):
            out[c["id"] + "/" + name] = np.asarray(gr)
    np.savez(sys.argv[3], **out)
""")

TF_CASES = [(op, k) for op, k in CASE_IDS if GRADIENT_CASES[op][k].tf]
_COMPOSITES = {"_list_round_trip": "round_trip", "_list_get_item": "get_item",
               "_list_two_reads": "two_reads", "_cholesky_of_gram": "cholesky_of_gram"}


def _composite(case: Case) -> str | None:
    fn = case.extra.get("op_type")
    if fn is None:
        return None
    if fn.__name__ in _COMPOSITES:
        return _COMPOSITES[fn.__name__]
    if fn.__name__.startswith("cond-"):
        return fn.__name__
    _, _, output = fn.__name__.rpartition("out")
    version = fn.__name__.split("-")[0][len("FusedBatchNormGrad"):]
    return f"{output}-{version}"


def _opgen_side(op, k, dtype):
    """opgen's gradients of sum(w * y), and what TensorFlow needs to compute the same."""
    case = GRADIENT_CASES[op][k]
    values = [np.asarray(v) for v in case.inputs(dtype)]
    diff = list(range(len(values))) if case.diff is None else case.diff
    composite = _composite(case)
    op_def = next(o for o in _OP_DEFS if o.name == op)
    names = [a.name for a in op_def.input_arg] if composite is None else [f"in{i}" for i in
                                                                          range(len(values))]
    g = opgen.Graph()
    with g.as_default():
        nodes = []
        for i, v in enumerate(values):
            if i in diff:
                v = v.astype(dtype)
                values[i] = v
                nodes.append(opgen.ops.placeholder(opgen.as_dtype(v.dtype), shape=v.shape))
            else:
                nodes.append(opgen.constant(v))
        if composite is None:
            y = g.create_op(op, nodes, dict(case.attrs)).outputs[case.extra.get("output", 0)]
        else:
            y = case.extra["op_type"](g, nodes)
        w_node = opgen.ops.placeholder(y.dtype)
        grads = opgen.gradients(y, [nodes[i] for i in diff], grad_ys=[w_node])
    session = opgen.Session(g)
    feed = {nodes[i]: values[i] for i in diff}
    w = _u(np.shape(session.run(y, feed))).astype(y.dtype.as_numpy_dtype)
    feed[w_node] = w
    got = session.run(grads, feed)
    attrs = {key: ({"dtype": value.name} if isinstance(value, opgen.DType) else value)
             for key, value in case.attrs.items()}
    spec = {"op": op, "attrs": attrs, "diff": [names[i] for i in diff], "composite": composite,
            "output": case.extra.get("output", 0),
            "inputs": {names[i]: f"{op}-{k}-{np.dtype(dtype).name}-{i}" for i in range(len(values))},
            "w": f"{op}-{k}-{np.dtype(dtype).name}-w", "id": f"{op}-{k}-{np.dtype(dtype).name}"}
    arrays = {spec["inputs"][names[i]]: values[i] for i in range(len(values))}
    arrays[spec["w"]] = w
    return spec, arrays, dict(zip(spec["diff"], got))


_OP_DEFS: list = []


@pytest.fixture(scope="module")
def tensorflow_gradients():
    tf_python()  # skip before the opgen side's work when there is no TensorFlow
    from opgen.runtime import _lib
    ops = op_def_pb2.OpList()
    ops.ParseFromString(_lib.all_op_list_bytes())
    _OP_DEFS[:] = list(ops.op)
    specs, arrays, ours = [], {}, {}
    for op, k in TF_CASES:
        for dtype in GRADIENT_CASES[op][k].dtypes:
            spec, data, got = _opgen_side(op, k, dtype)
            specs.append(spec)
            arrays.update(data)
            ours[spec["id"]] = got
    return ours, run_tf_script(TF_SCRIPT, arrays, specs)


@pytest.mark.parametrize("op,k", TF_CASES, ids=[f"{op}-{k}" for op, k in TF_CASES])
def test_gradient_against_tensorflow(op, k, tensorflow_gradients):
    ours, theirs = tensorflow_gradients
    case = GRADIENT_CASES[op][k]
    for dtype in case.dtypes:
        key = f"{op}-{k}-{np.dtype(dtype).name}"
        for name, got in ours[key].items():
            want = theirs[f"{key}/{name}"]
            tol = 1e-10 if dtype == F64 else 2e-5
            if case.extra.get("op_type") is not None and "FusedBatchNorm" in op:
                tol = 2e-4  # float32 sums in a different order
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{key} {name}")
