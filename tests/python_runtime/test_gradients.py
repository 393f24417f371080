"""Graph gradients (TF_AddGradients through opgen.gradients): every built-in gradient
checked against central differences (gradient_check.py), with static and dynamic shapes
and broadcasting operands; the backward pass's rules (fan-in sums, unconnected and
integer xs, ops that stop gradients, errors); Python gradient functions
(opgen.RegisterGradient); the kernels gradient graphs use."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from gradient_check import check_gradient

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)


def _u(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape)


def _distinct(shape, lo=-2.0, hi=2.0):
    """Values spaced apart (no ties, nothing near a kink)."""
    n = int(np.prod(shape))
    values = np.linspace(lo, hi, n) + 0.05
    return rng.permutation(values).reshape(shape)


SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2)), ((3, 1, 2), (2,))]

BINARY = {
    "Add": lambda s: _u(s), "AddV2": lambda s: _u(s), "Sub": lambda s: _u(s),
    "Mul": lambda s: _u(s), "SquaredDifference": lambda s: _u(s),
    "Div": lambda s: _u(s, 0.5, 2.0), "RealDiv": lambda s: _u(s, 0.5, 2.0),
    "Pow": lambda s: _u(s, 0.5, 2.0),
}


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary(op, shapes, static):
    make = BINARY[op]
    check_gradient(op, [make(shapes[0]), make(shapes[1])], static=static)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("op", ["Maximum", "Minimum"])
def test_maximum_minimum(op, static):
    x = _distinct((2, 3))
    check_gradient(op, [x, _distinct((3,), -1.9, 1.7)], static=static)
    # ties: all to x, as TensorFlow (finite differences would split them)
    g = opgen.Graph()
    with g.as_default():
        a = opgen.ops.placeholder(opgen.float64, shape=[3])
        y = g.create_op(op, [a, a], {}).outputs[0]
        w = opgen.ops.placeholder(opgen.float64, shape=[3])
        da = opgen.gradients(y, a, grad_ys=w)[0]
        cmp_ = g.create_op(op, [a, opgen.ops.identity(a)], {}).outputs[0]
        grads = opgen.gradients(cmp_, [a], grad_ys=w)
    wv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(opgen.Session(g).run(da, {a: np.ones(3), w: wv}), wv)
    assert grads[0] is not None


def test_floor_mod():
    x = np.array([[1.3, 2.6, 5.2], [-1.3, 3.7, 0.4]])
    y = np.array([1.1, 1.7, 2.4])
    check_gradient("FloorMod", [x, y])


UNARY = {
    "Neg": (-1, 1), "Abs": (0.2, 1.0), "Square": (-1, 1), "Sqrt": (0.5, 2), "Rsqrt": (0.5, 2),
    "Exp": (-1, 1), "Log": (0.5, 2), "Log1p": (-0.5, 1), "Sin": (-2, 2), "Cos": (-2, 2),
    "Tanh": (-2, 2), "Sigmoid": (-3, 3), "Reciprocal": (0.5, 2), "Erf": (-1.5, 1.5),
    "Erfc": (-1.5, 1.5), "Softplus": (-3, 3), "Identity": (-1, 1), "Sign": (0.1, 1),
    "Softsign": (-2, 2),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, dtype):
    lo, hi = UNARY[op]
    x = _u((2, 3), lo, hi)
    if op == "Abs":
        x = x * np.where(rng.uniform(size=x.shape) < 0.5, -1, 1)
    check_gradient(op, [x], dtype=dtype)


@pytest.mark.parametrize("op", ["Floor", "Ceil", "Round", "StopGradient"])
def test_ops_without_gradient_give_none(op):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[2])
        y = g.create_op(op, [x], {}).outputs[0]
        assert opgen.gradients(y, x) == [None]
        z = opgen.ops.mul(y, x)  # one path blocked, the other flows
        (dz,) = opgen.gradients(z, x)
    value = np.float32([1.7, -2.2])
    got = opgen.Session(g).run(dz, {x: value})
    expected = {"Floor": np.floor, "Ceil": np.ceil, "Round": np.round,
                "StopGradient": lambda v: v}[op](value)
    np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("axes", [[1], [0, 2], [-1], [0, 1, 2], 1])
@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Min"])
def test_reductions(op, axes, keep_dims, static):
    x = _distinct((2, 3, 2))
    check_gradient(op, [x, np.int32(axes)], {"keep_dims": keep_dims}, diff=[0], static=static)


@pytest.mark.parametrize("keep_dims", [False, True])
@pytest.mark.parametrize("axes", [[1], [0, 2], [-1], [0, 1, 2]])
def test_prod(axes, keep_dims):
    x = _distinct((2, 3, 2), 0.5, 1.5)
    check_gradient("Prod", [x, np.int32(axes)], {"keep_dims": keep_dims}, diff=[0])
    x[0, 1, 0] = 0.0  # a zero: the others' product, no division
    check_gradient("Prod", [x, np.int32(axes)], {"keep_dims": keep_dims}, diff=[0])


def test_prod_needs_a_static_shape():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64)
        y = opgen.ops.prod(x, [0])
    with pytest.raises(opgen.errors.UnimplementedError, match="Prod needs"):
        opgen.gradients(y, x)


def test_max_shares_the_gradient_among_ties():  # TensorFlow's rule, not a derivative
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[2, 3])
        w = opgen.ops.placeholder(opgen.float64, shape=[2])
        (dx,) = opgen.gradients(opgen.ops.max(x, [1]), x, grad_ys=w)
    got = opgen.Session(g).run(dx, {x: np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
                                    w: np.array([1.0, 6.0])})
    np.testing.assert_allclose(got, [[0, 0.5, 0.5], [2, 2, 2]])


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_matmul(ta, tb, static):
    a = _u((3, 2) if ta else (2, 3))
    b = _u((4, 3) if tb else (3, 4))
    check_gradient("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb}, static=static)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("adj_x,adj_y", [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("shapes", [((2, 2, 3), (3, 4)), ((1, 2, 3), (2, 3, 2)), ((2, 3), (2, 3, 2))],
                         ids=str)
def test_batch_matmul(shapes, adj_x, adj_y, static):
    xs, ys = list(shapes[0]), list(shapes[1])
    if adj_x:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if adj_y:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    check_gradient("BatchMatMulV2", [_u(xs), _u(ys)], {"adj_x": adj_x, "adj_y": adj_y},
                   static=static)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_shape_ops(static):
    check_gradient("Reshape", [_u((2, 3)), np.int32([3, 2])], diff=[0], static=static)
    check_gradient("ExpandDims", [_u((2, 3)), np.int32(1)], diff=[0], static=static)
    check_gradient("Squeeze", [_u((2, 1, 3))], {"squeeze_dims": [1]}, static=static)
    check_gradient("Transpose", [_u((2, 3, 4)), np.int32([2, 0, 1])], diff=[0], static=static)


def test_transpose_with_a_fed_permutation():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[2, 3, 4])
        perm = opgen.ops.placeholder(opgen.int32, shape=[3])
        y = opgen.ops.transpose(x, perm)
        w = opgen.ops.placeholder(opgen.float64)
        (dx,) = opgen.gradients(y, x, grad_ys=w)
    weights = _u((4, 2, 3))
    got = opgen.Session(g).run(dx, {x: _u((2, 3, 4)), perm: np.int32([2, 0, 1]), w: weights})
    np.testing.assert_allclose(got, np.transpose(weights, [1, 2, 0]))


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_softmax(op, dtype):
    check_gradient(op, [_u((2, 4), -2, 2)], dtype=dtype)


# ---- neural-network ops ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("op,attrs,lo,hi", [
    ("Relu", {}, -2, 2), ("Relu6", {}, -2, 7), ("Elu", {}, -2, 2), ("Selu", {}, -2, 2),
    ("LeakyRelu", {"alpha": 0.3}, -2, 2)], ids=lambda v: v if isinstance(v, str) else "")
def test_activations(op, attrs, lo, hi, dtype):
    check_gradient(op, [_distinct((2, 3), lo, hi)], attrs, dtype=dtype)  # no value at a kink


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_bias_add(static):
    check_gradient("BiasAdd", [_u((2, 3, 4)), _u((4,))], static=static)
    check_gradient("BiasAdd", [_u((2, 3, 2, 2)), _u((3,))], {"data_format": "NCHW"}, static=static)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_second_derivatives_through_backprop_kernels(static):
    y = _u((2, 3), 0.1, 0.9)
    check_gradient("TanhGrad", [y, _u((2, 3))], static=static)
    check_gradient("SigmoidGrad", [y, _u((2, 3))], static=static)
    for op in ("SqrtGrad", "RsqrtGrad", "ReciprocalGrad"):
        check_gradient(op, [_u((2, 3), 0.5, 2.0), _u((2, 3))], static=static)
    for op, features in (("ReluGrad", _distinct((2, 3))), ("Relu6Grad", _distinct((2, 3), -2, 7))):
        check_gradient(op, [_u((2, 3)), features], static=static)
    check_gradient("BiasAddGrad", [_u((2, 3, 4))], static=static)
    if static:
        check_gradient("BiasAddGrad", [_u((2, 3, 2, 2))], {"data_format": "NCHW"})


def test_softmax_cross_entropy():
    logits, labels = _u((3, 4), -2, 2), rng.dirichlet(np.ones(4), 3)
    check_gradient("SoftmaxCrossEntropyWithLogits", [logits, labels])
    for static in (True, False):  # labels broadcast
        check_gradient("SoftmaxCrossEntropyWithLogits", [logits, labels[:1]], static=static)
    # through the backprop output too (the labels' gradient is TensorFlow's: the loss's only)
    check_gradient("SoftmaxCrossEntropyWithLogits", [logits, labels], output=1, diff=[0])
    for ids in (np.int32([0, 3, 1]), np.int64([2, 2, 0])):
        check_gradient("SparseSoftmaxCrossEntropyWithLogits", [logits, ids], diff=[0])
        check_gradient("SparseSoftmaxCrossEntropyWithLogits", [logits, ids], diff=[0], output=1)
    check_gradient("SparseSoftmaxCrossEntropyWithLogits", [logits, np.int32([0, 3, 1])], diff=[0],
                   dtype=np.float32)


CONV_WINDOWS = [  # strides, padding, dilations, explicit_paddings
    ([1, 1, 1, 1], "VALID", [1, 1, 1, 1], []), ([1, 2, 2, 1], "SAME", [1, 1, 1, 1], []),
    ([1, 2, 1, 1], "VALID", [1, 1, 1, 1], []), ([1, 1, 1, 1], "SAME", [1, 2, 2, 1], []),
    ([1, 1, 2, 1], "EXPLICIT", [1, 1, 1, 1], [0, 0, 1, 0, 0, 2, 0, 0]),
]


@pytest.mark.parametrize("window", CONV_WINDOWS, ids=lambda w: f"{w[1]}-s{w[0][1]}{w[0][2]}-d{w[2][1]}")
@pytest.mark.parametrize("op", ["Conv2D", "DepthwiseConv2dNative"])
def test_conv2d(op, window):
    strides, padding, dilations, explicit = window
    if op == "DepthwiseConv2dNative" and strides[1] != strides[2]:
        strides = [1, strides[1], strides[1], 1]  # its kernels want equal strides, as TF's
    attrs = {"strides": strides, "padding": padding, "dilations": dilations}
    if explicit:
        attrs["explicit_paddings"] = explicit
    f = _u((2, 2, 2, 3)) if op == "Conv2D" else _u((2, 2, 2, 2))
    check_gradient(op, [_u((2, 5, 4, 2)), f], attrs)


def test_conv2d_float32_and_dynamic_and_backprop_input():
    attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    check_gradient("Conv2D", [_u((1, 5, 5, 2)), _u((3, 3, 2, 2))], attrs, dtype=np.float32)
    check_gradient("Conv2D", [_u((1, 4, 4, 2)), _u((2, 2, 2, 2))], attrs, static=False)
    # Conv2DBackpropInput (a transposed convolution) in its filter and out_backprop
    check_gradient("Conv2DBackpropInput", [np.int32([1, 5, 5, 2]), _u((3, 3, 2, 3)), _u((1, 3, 3, 3))],
                   attrs, diff=[1, 2])
    # Conv2DBackpropFilter (second derivatives of Conv2D) in its input and out_backprop
    check_gradient("Conv2DBackpropFilter", [_u((1, 5, 5, 2)), np.int32([3, 3, 2, 3]), _u((1, 3, 3, 3))],
                   attrs, diff=[0, 2])


def test_conv3d():
    check_gradient("Conv3D", [_u((1, 3, 4, 3, 2)), _u((2, 2, 2, 2, 2))],
                   {"strides": [1, 1, 2, 1, 1], "padding": "SAME"})


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
@pytest.mark.parametrize("op", ["MaxPool", "AvgPool"])
def test_pooling(op, padding, static):
    attrs = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": padding}
    check_gradient(op, [_distinct((2, 5, 4, 2))], attrs, static=static)
    check_gradient(op, [_distinct((1, 4, 4, 1))], attrs, dtype=np.float32)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False], ids=["training", "inference"])
@pytest.mark.parametrize("op", ["FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"])
def test_fused_batch_norm(op, is_training, data_format):
    # float32 only (TensorFlow's kernels): differences taken in float32 with a wide step
    x = _u((2, 2, 3, 3) if data_format == "NHWC" else (2, 3, 2, 3))
    stats = [np.zeros(0, np.float32)] * 2 if is_training else [
        np.float32(_u((3,))), np.float32(_u((3,), 0.5, 1.5))]
    attrs = {"is_training": is_training, "data_format": data_format, "epsilon": 0.001}
    if op != "FusedBatchNorm":
        attrs["U"] = opgen.float32
    check_gradient(op, [x, _u((3,), 0.5, 1.5), _u((3,))] + stats, attrs, diff=[0, 1, 2],
                   dtype=np.float32, reference_dtype=np.float32, delta=1e-2, rtol=1e-2, atol=1e-2)


# ---- array ops ------------------------------------------------------------------------

def _array_cases():
    u = _u
    return [
        ("ConcatV2", [u((2, 3)), u((2, 2)), np.int32(1)], {}, [0, 1], {"list_arg": 2}),
        ("ConcatV2", [u((1, 3)), u((2, 3)), u((1, 3)), np.int64(-2)], {}, [0, 1, 2], {"list_arg": 3}),
        ("Split", [np.int32(1), u((2, 4))], {"num_split": 2}, [1], {"output": 1}),
        ("SplitV", [u((5, 2)), np.int32([2, -1]), np.int32(0)], {"num_split": 2}, [0], {}),
        ("Pack", [u((2, 3)), u((2, 3))], {"axis": 1}, None, {"list_arg": True}),
        ("Unpack", [u((2, 3, 2))], {"num": 3, "axis": 1}, None, {"output": 2}),
        ("Slice", [u((3, 4)), np.int32([1, 0]), np.int32([2, -1])], {}, [0], {}),
        ("StridedSlice", [u((4, 5)), np.int32([3, 0]), np.int32([0, 5]), np.int32([-1, 2])], {}, [0], {}),
        ("StridedSlice", [u((4, 5, 2)), np.int64([1, 0]), np.int64([2, 0]), np.int64([1, 1])],
         {"shrink_axis_mask": 1, "ellipsis_mask": 2}, [0], {}),
        ("Pad", [u((2, 3)), np.int32([[1, 0], [2, 1]])], {}, [0], {}),
        ("MirrorPad", [u((3, 4)), np.int32([[1, 2], [2, 1]])], {"mode": "REFLECT"}, [0], {}),
        ("MirrorPad", [u((3, 4)), np.int64([[1, 2], [2, 0]])], {"mode": "SYMMETRIC"}, [0], {}),
        ("Tile", [u((2, 3)), np.int32([2, 3])], {}, [0], {}),
        ("BroadcastTo", [u((3, 1)), np.int32([2, 3, 4])], {}, [0], {}),
        ("Fill", [np.int32([2, 3]), u(())], {}, [1], {}),
        ("GatherV2", [u((4, 3)), np.int32([[0, 2], [2, 3]]), np.int32(0)], {}, [0], {}),
        ("TopKV2", [_distinct((2, 3, 4)), np.int32(2)], {}, [0], {}),
        ("TopKV2", [_distinct((5,)), np.int32(3)], {"index_type": opgen.int64}, [0], {}),
        ("Cumsum", [u((3, 4)), np.int32(1)], {"exclusive": True}, [0], {}),
        ("Cumsum", [u((3, 4)), np.int32(0)], {"reverse": True}, [0], {}),
        ("Cumprod", [u((3, 4), 0.5, 1.5), np.int32(1)], {}, [0], {}),
        ("Cumprod", [u((3, 4), 0.5, 1.5), np.int32(1)], {"exclusive": True, "reverse": True}, [0], {}),
        ("Einsum", [u((2, 3)), u((3, 4))], {"equation": "ij,jk->ik"}, None, {"list_arg": True}),
        ("Einsum", [u((2, 3, 3)), u((3, 4))], {"equation": "bij,jk->bk"}, None, {"list_arg": True}),
        ("Einsum", [u((2, 3))], {"equation": "ij->j"}, None, {"list_arg": True}),
        ("Einsum", [u((2, 3)), u((4,))], {"equation": "ij,k->ikj"}, None, {"list_arg": True}),
        ("SpaceToDepth", [u((1, 4, 4, 2))], {"block_size": 2}, None, {}),
        ("DepthToSpace", [u((1, 2, 2, 8))], {"block_size": 2}, None, {}),
        ("SpaceToBatchND", [u((1, 4, 3, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])], {}, [0], {}),
        ("BatchToSpaceND", [u((4, 2, 2, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])], {}, [0], {}),
        # linear, with a float32 output: a wide step is exact
        ("ResizeBilinear", [u((1, 3, 3, 2)), np.int32([5, 4])], {"half_pixel_centers": True}, [0],
         {"delta": 0.25}),
        ("ResizeBilinear", [u((1, 3, 3, 2)), np.int32([5, 4])], {"align_corners": True}, [0],
         {"delta": 0.25}),
        ("ResizeNearestNeighbor", [u((1, 3, 3, 2)), np.int32([5, 4])], {}, [0], {}),
        ("PlaceholderWithDefault", [u((2, 3))], {"shape": [2, 3]}, None, {}),
    ]


ARRAY_CASES = _array_cases()


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
@pytest.mark.parametrize("c", range(len(ARRAY_CASES)),
                         ids=[f"{case[0]}-{n}" for n, case in enumerate(ARRAY_CASES)])
def test_array_ops(c, static):
    op, inputs, attrs, diff, extra = ARRAY_CASES[c]
    check_gradient(op, inputs, attrs, diff=diff, static=static, **extra)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_gather_along_other_axes(static):
    check_gradient("GatherV2", [_u((2, 4, 3)), np.int64([3, 0, 3]), np.int32(1)], diff=[0])
    check_gradient("GatherV2", [_u((2, 4, 3)), np.int32([[2, 0]]), np.int32(-1)], diff=[0])
    if not static:  # an axis other than 0 needs params' rank
        g = opgen.Graph()
        with g.as_default():
            p = opgen.ops.placeholder(opgen.float64)
            y = opgen.ops.gather_v2(p, [0], 1)
        with pytest.raises(opgen.errors.UnimplementedError, match="GatherV2 needs"):
            opgen.gradients(y, p)


def test_einsum_beyond_the_simple_equations_is_unimplemented():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3, 3])
        y = g.create_op("Einsum", [[x]], {"equation": "ii->i"}).outputs[0]
    with pytest.raises(opgen.errors.UnimplementedError, match="Einsum 'ii->i'"):
        opgen.gradients(y, x)


@pytest.mark.parametrize("op", ["OneHot", "Where", "Range"])
def test_not_differentiable_array_ops(op):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[3])
        if op == "OneHot":
            y = opgen.ops.one_hot(opgen.ops.cast(x, opgen.int32), 4, x[0], x[1])
        elif op == "Where":
            y = opgen.ops.cast(g.create_op("Where", [x], {}).outputs[0], opgen.float32)
        else:
            y = opgen.ops.range(x[0], x[1], x[2])
        grads = opgen.gradients(y, x)
    assert grads == [None]


def test_add_n_and_identity_n():
    check_gradient("AddN", [_u((2, 3)), _u((2, 3)), _u((2, 3))], list_arg=True)
    check_gradient("IdentityN", [_u((2,)), _u((3,))], list_arg=True, output=1)


def test_cast():
    # linear: a wide step is exact, and float32's rounding stays out of the difference
    check_gradient("Cast", [_u((2, 3))], {"DstT": opgen.float32}, delta=0.25, rtol=1e-5)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_select(static):
    cond = np.array([[True, False, True], [False, False, True]])
    check_gradient("Select", [cond, _u((2, 3)), _u((2, 3))], diff=[1, 2], static=static)
    check_gradient("SelectV2", [cond[0], _u((2, 3)), _u((1, 3))], diff=[1, 2], static=static)


@pytest.mark.parametrize("static", [True, False], ids=["static", "dynamic"])
def test_clip_by_value(static):
    t = np.array([[-2.0, -0.5, 0.3], [0.9, 2.5, -0.2]])
    check_gradient("ClipByValue", [t, np.array(-0.4), np.array(0.8)], static=static)
    check_gradient("ClipByValue", [t, np.array([-1.0, -0.6, 0.5]), np.array([0.5, 1.0, 2.0])],
                   static=static)


# ---- the backward pass's rules ----------------------------------------------------------

def _graph_xy():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3], name="x")
    return g, x


def test_fan_in_is_summed_and_default_grad_ys_are_ones():
    g, x = _graph_xy()
    with g.as_default():
        y = opgen.ops.add_v2(opgen.ops.mul(x, x), opgen.ops.sin(x))
        (dx,) = opgen.gradients(y, x)
    assert any(op.type == "AddN" for op in g.get_operations())
    value = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(opgen.Session(g).run(dx, {x: value}), 2 * value + np.cos(value))


def test_several_ys_and_xs_and_names():
    g, x = _graph_xy()
    with g.as_default():
        z = opgen.ops.placeholder(opgen.float64, shape=[3], name="z")
        y1 = opgen.ops.mul(x, z)
        y2 = opgen.ops.square(z)
        dx, dz = opgen.gradients([y1, y2], [x, z])
        again = opgen.gradients(y1, x)[0]
        named = opgen.gradients(y1, x, name="grads")[0]
    assert dx.op.name.startswith("gradients/")
    assert again.op.name.startswith("gradients_1/")
    assert named.op.name.startswith("grads/")
    xv, zv = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 4.0])
    got = opgen.Session(g).run([dx, dz, again], {x: xv, z: zv})
    np.testing.assert_allclose(got[0], zv)
    np.testing.assert_allclose(got[1], xv + 2 * zv)
    np.testing.assert_allclose(got[2], zv)


def test_gradient_of_x_with_respect_to_itself():
    g, x = _graph_xy()
    (dx,) = opgen.gradients(x, x)
    np.testing.assert_allclose(opgen.Session(g).run(dx, {x: np.zeros(3)}), np.ones(3))


def test_unconnected_and_integer_xs_get_none():
    g, x = _graph_xy()
    with g.as_default():
        other = opgen.ops.placeholder(opgen.float64, shape=[3])
        n = opgen.ops.placeholder(opgen.int32, shape=[3])
        y = opgen.ops.add_v2(opgen.ops.mul(x, opgen.ops.cast(n, opgen.float64)), x)
        assert opgen.gradients(y, [other, n]) == [None, None]
        # through an integer tensor nothing flows
        k = opgen.ops.cast(opgen.ops.cast(x, opgen.int32), opgen.float64)
        assert opgen.gradients(k, x) == [None]
        # a shape does not depend on the values
        s = opgen.ops.cast(opgen.ops.shape(x), opgen.float64)
        assert opgen.gradients(s, x) == [None]


def test_partial_outputs_get_zeros():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[2])
        z = opgen.ops.placeholder(opgen.float64, shape=[3])
        _a, b = opgen.ops.identity_n([x, z])
        (dx, dz) = opgen.gradients(opgen.ops.mul(b, b), [x, z])
    assert dx is not None  # IdentityN's output 0 got zeros, passed to x
    got = opgen.Session(g).run([dx, dz], {x: np.ones(2), z: np.array([1.0, 2, 3])})
    np.testing.assert_allclose(got[0], np.zeros(2))
    np.testing.assert_allclose(got[1], [2.0, 4, 6])


def test_no_gradient_defined_names_the_op_and_leaves_the_graph_unchanged():
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[2], name="x")
        entered = g.create_op("Enter", [x], {"frame_name": "frame"}, name="enter").outputs[0]
        y = opgen.ops.mul(entered, entered)
    count = len(g.get_operations())
    with pytest.raises(opgen.errors.NotFoundError, match=r"No gradient defined for op: Enter.*'enter'"):
        opgen.gradients(y, x)
    assert len(g.get_operations()) == count


def test_grad_ys_must_match_the_ys():
    g, x = _graph_xy()
    with g.as_default():
        y = opgen.ops.mul(x, x)
        bad_shape = opgen.ops.placeholder(opgen.float64, shape=[4])
        bad_dtype = opgen.ops.placeholder(opgen.float32, shape=[3])
    count = len(g.get_operations())
    with pytest.raises(opgen.errors.InvalidArgumentError, match=r"shape \[4\].*\[3\]"):
        opgen.gradients(y, x, grad_ys=[bad_shape])
    with pytest.raises(opgen.errors.InvalidArgumentError, match=r"dtype float.*double"):
        opgen.gradients(y, x, grad_ys=[bad_dtype])
    with pytest.raises(ValueError, match="2 grad_ys for 1 ys"):
        opgen.gradients(y, x, grad_ys=[bad_shape, bad_shape])
    assert len(g.get_operations()) == count
    (dx,) = opgen.gradients(y, x, grad_ys=[np.array([1.0, 2.0, 3.0])])  # values: constants
    np.testing.assert_allclose(opgen.Session(g).run(dx, {x: np.ones(3)}), [2.0, 4.0, 6.0])


def test_inputs_must_be_graph_outputs():
    _g, x = _graph_xy()
    with pytest.raises(TypeError, match="graph Outputs"):
        opgen.gradients(opgen.constant([1.0]), x)
    _other, z = _graph_xy()
    with pytest.raises(ValueError, match="another graph"):
        opgen.gradients(x, z)


def test_gradient_with_respect_to_a_variable():
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable(np.array([1.0, -2.0, 3.0]), name="v")
        x = opgen.ops.placeholder(opgen.float64, shape=[3])
        loss = opgen.ops.sum(opgen.ops.mul(opgen.ops.square(v.value()), x), [0])
        dv, dhandle = opgen.gradients(loss, [v, v.handle])
        init = opgen.global_variables_initializer()
    s = opgen.Session(g)
    s.run(init)
    xv = np.array([0.5, 1.0, 2.0])
    got = s.run([dv, dhandle], {x: xv})
    np.testing.assert_allclose(got[0], 2 * np.array([1.0, -2.0, 3.0]) * xv)
    np.testing.assert_allclose(got[1], got[0])


# ---- gradient functions from Python ------------------------------------------------------

def test_python_gradient_overrides_and_unregisters():
    from opgen.runtime import gradients_impl
    calls = []

    @opgen.RegisterGradient("Square")
    def _square_grad(op, grad):
        calls.append((op.type, grad.dtype))
        assert op.name in grad.name or grad.op.type in ("Placeholder", "OnesLike")
        return [opgen.ops.mul(grad, op.inputs[0]) * 3.0]

    try:
        g, x = _graph_xy()
        with g.as_default():
            (dx,) = opgen.gradients(opgen.ops.square(x, name="sq"), x)
        assert calls == [("Square", opgen.float64)]
        assert dx.op.name.startswith("gradients/sq_grad/")
        np.testing.assert_allclose(opgen.Session(g).run(dx, {x: np.ones(3)}), 3 * np.ones(3))
    finally:
        gradients_impl._unregister("Square")
    g, x = _graph_xy()
    with g.as_default():
        (dx,) = opgen.gradients(opgen.ops.square(x), x)
    np.testing.assert_allclose(opgen.Session(g).run(dx, {x: np.ones(3)}), 2 * np.ones(3))


def test_python_gradient_errors_become_exceptions_not_crashes():
    from opgen.runtime import gradients_impl

    @opgen.RegisterGradient("Sin")
    def _broken(op, grad):
        raise KeyError("deliberately broken")

    try:
        g, x = _graph_xy()
        with g.as_default():
            y = opgen.ops.sin(x)
        count = len(g.get_operations())
        with pytest.raises(KeyError, match="deliberately broken"):
            opgen.gradients(y, x)
        assert len(g.get_operations()) == count

        @opgen.RegisterGradient("Sin")
        def _wrong_count(op, grad):
            return [grad, grad]

        with pytest.raises(ValueError, match="returned 2 gradient"):
            opgen.gradients(y, x)

        @opgen.RegisterGradient("Sin")
        def _wrong_shape(op, grad):
            return [opgen.ops.concat_v2([grad, grad], 0)]

        with pytest.raises(opgen.errors.InvalidArgumentError, match="incompatible"):
            opgen.gradients(y, x)
    finally:
        gradients_impl._unregister("Sin")


def test_not_differentiable_from_python():
    from opgen.runtime import gradients_impl
    opgen.NotDifferentiable("Cos")
    try:
        g, x = _graph_xy()
        with g.as_default():
            assert opgen.gradients(opgen.ops.cos(x), x) == [None]
    finally:
        gradients_impl._unregister("Cos")
    with pytest.raises(TypeError):
        opgen.NotDifferentiable("")


# ---- kernels gradient graphs use -------------------------------------------------------

@pytest.mark.parametrize("s0,s1,r0,r1", [
    ([1], [1], [], []), ([3], [1, 3], [0], [0]), ([2, 1, 3], [4, 1], [1], [0, 2]),
    ([], [2, 3], [0, 1], []), ([1, 1], [1], [0, 1], [0, 1]), ([5, 1], [1, 1], [1], [0, 1]),
])
def test_broadcast_gradient_args(s0, s1, r0, r1):  # TensorFlow 2.21's answers
    for dtype in (np.int32, np.int64):
        got = opgen.execute_op("BroadcastGradientArgs", [np.array(s0, dtype), np.array(s1, dtype)], {})
        assert [t.numpy().tolist() for t in got] == [r0, r1]
        assert got[0].dtype == opgen.as_dtype(dtype)
    with pytest.raises(opgen.errors.InvalidArgumentError, match="Incompatible shapes"):
        opgen.execute_op("BroadcastGradientArgs", [np.int32([2, 3]), np.int32([4])], {})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_fused_gradient_kernels(dtype):
    y = np.array([0.2, 0.5, 0.9, 1.5], dtype)
    dy = np.array([1.0, -2.0, 0.5, 3.0], dtype)
    yw, dw = y.astype(np.float64), dy.astype(np.float64)
    expected = {"SigmoidGrad": dw * yw * (1 - yw), "TanhGrad": dw * (1 - yw * yw),
                "SqrtGrad": 0.5 * dw / yw, "RsqrtGrad": -0.5 * dw * yw ** 3,
                "ReciprocalGrad": -dw * yw * yw}
    tol = 1e-3 if dtype == np.float16 else 1e-6
    for op, want in expected.items():
        (got,) = opgen.execute_op(op, [y, dy], {})
        assert got.dtype == opgen.as_dtype(dtype)
        np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=tol, atol=tol)
    with pytest.raises(opgen.errors.InvalidArgumentError, match="same number of elements"):
        opgen.execute_op("TanhGrad", [y, dy[:2]], {})


# ---- opgen.GradientTape: eager ops replayed into a graph, the same gradient functions ----

def test_gradient_tape_on_tensors_and_variables():
    v = opgen.Variable(np.array([1.0, 2.0, 3.0]))
    x = opgen.constant(np.array([0.5, -1.0, 2.0]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = opgen.ops.sum(opgen.ops.mul(opgen.ops.square(v.value()), opgen.ops.sin(x)), [0])
    dv, dx = tape.gradient(y, [v, x])
    xv, vv = x.numpy(), np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(dv.numpy(), 2 * vv * np.sin(xv))
    np.testing.assert_allclose(dx.numpy(), vv ** 2 * np.cos(xv))
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.gradient(y, x)


def test_gradient_tape_persistent_unwatched_and_operators():
    x = opgen.constant(np.array([1.0, 2.0]))
    other = opgen.constant(np.array([3.0, 4.0]))
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * 3.0 + other
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 6 * x.numpy())
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 6 * x.numpy())  # persistent
    assert tape.gradient(y, other) is None  # not watched
    w = opgen.constant(np.array([1.0, 0.5]))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.gradient(y, x, output_gradients=w).numpy(), 2 * x.numpy() * [1, 0.5])


def test_gradient_tape_variable_as_op_input():
    v = opgen.Variable(np.array([2.0, -1.0]))
    with opgen.GradientTape() as tape:
        y = opgen.ops.mul(v, v)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [4.0, -2.0])


def test_gradient_tape_through_a_small_convolutional_network():
    """One training step's gradients (embedding gather, Conv2D, BiasAdd, Relu, MaxPool,
    MatMul, sparse cross-entropy) against central differences."""
    ops = opgen.ops
    data = np.random.default_rng(3)
    table_v = data.uniform(-1, 1, (5, 4 * 4 * 2))
    filt_v, bias_v = data.uniform(-1, 1, (3, 3, 2, 3)), data.uniform(-0.1, 0.1, (3,))
    dense_v = data.uniform(-1, 1, (2 * 2 * 3, 4))
    ids, labels = np.int32([1, 4]), np.int32([0, 3])

    def loss_of(table, filt, bias, dense):
        x = ops.reshape(ops.gather_v2(table, ids, 0), [2, 4, 4, 2])
        h = ops.relu(ops.bias_add(ops.conv2d(x, filt, strides=[1, 1, 1, 1], padding="SAME"), bias))
        h = ops.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        logits = ops.mat_mul(ops.reshape(h, [2, -1]), dense)
        loss, _ = ops.sparse_softmax_cross_entropy_with_logits(logits, labels)
        return ops.mean(loss, [0])

    params = [opgen.Variable(v) for v in (table_v, filt_v, bias_v, dense_v)]
    with opgen.GradientTape() as tape:
        loss = loss_of(*[p.value() for p in params])
    grads = tape.gradient(loss, params)
    values = [table_v, filt_v, bias_v, dense_v]
    for k, got in enumerate(grads):
        flat = values[k].reshape(-1)
        for j in range(0, flat.size, max(1, flat.size // 6)):  # a few entries each
            plus = [v.copy() for v in values]
            minus = [v.copy() for v in values]
            plus[k].reshape(-1)[j] += 1e-6
            minus[k].reshape(-1)[j] -= 1e-6
            numeric = (float(loss_of(*map(opgen.constant, plus)).numpy())
                       - float(loss_of(*map(opgen.constant, minus)).numpy())) / 2e-6
            np.testing.assert_allclose(np.asarray(got).reshape(-1)[j], numeric, rtol=1e-4, atol=1e-7)
