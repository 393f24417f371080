"""The session's graph optimizer (runtime/src/optimizer/): every graph here runs with and
without it and the results agree within float rounding (and with numpy or TensorFlow's
recorded outputs); the optimized GraphDef shows each pass did its rewrite; the switches
(SessionOptions, ConfigProto, OPGEN_GRAPH_OPTIMIZER) turn it off."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_models"


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib, monkeypatch):
    if not hasattr(runtime_lib, "OPGEN_SessionOptimizedGraphDef"):
        pytest.skip("this runtime was built without the graph optimizer")
    monkeypatch.delenv("OPGEN_GRAPH_OPTIMIZER", raising=False)
    monkeypatch.delenv("OPGEN_LOG_OPTIMIZER", raising=False)


# ---- graph building -----------------------------------------------------------------------

def placeholder(g, shape=None, name="x", dtype=opgen.float32):
    return g.create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name).outputs[0]


def const(g, value, name=None, dtype=np.float32):
    array = np.asarray(value, dtype=dtype)
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(array.dtype), "value": array},
                       name=name).outputs[0]


def op(g, op_type, *inputs, name=None, **attrs):
    return g.create_op(op_type, list(inputs), attrs or None, name=name).outputs[0]


def conv2d(g, x, w, name=None, padding="SAME", strides=(1, 1, 1, 1)):
    return op(g, "Conv2D", x, w, name=name, strides=list(strides), padding=padding)


def run(g, fetches, feeds, optimize):
    with opgen.Session(g, options=opgen.SessionOptions(optimize=optimize)) as s:
        return s.run(fetches, feeds)


def run_both(g, fetches, feeds, rtol=1e-5, atol=1e-5):
    """The optimized run's result, checked against the unoptimized one."""
    optimized = run(g, fetches, feeds, True)
    plain = run(g, fetches, feeds, False)
    np.testing.assert_allclose(optimized, plain, rtol=rtol, atol=atol)
    return optimized


def optimized_ops(g, fetches, feeds=(), options=None):
    with opgen.Session(g, options=options) as s:
        gd = s.optimized_graph_def(fetches, feeds)
    return {n.name: n for n in gd.node}


def types(nodes) -> list[str]:
    return sorted(n.op for n in nodes.values())


# ---- numpy references -----------------------------------------------------------------------

def np_conv_same(x, w):
    """NHWC x HWIO, stride 1, SAME."""
    kh, kw = w.shape[:2]
    pt, pl = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x, ((0, 0), (pt, kh - 1 - pt), (pl, kw - 1 - pl), (0, 0)))
    out = np.zeros(x.shape[:3] + (w.shape[3],), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("bhwc,co->bhwo", xp[:, i:i + x.shape[1], j:j + x.shape[2], :],
                             w[i, j].astype(np.float64))
    return out


_erf = np.vectorize(math.erf)
ACTIVATIONS = {
    "Relu": lambda v: np.maximum(v, 0),
    "Relu6": lambda v: np.clip(v, 0, 6),
    "Elu": lambda v: np.where(v < 0, np.expm1(v), v),
    "Sigmoid": lambda v: 1 / (1 + np.exp(-v)),
    "Tanh": np.tanh,
    "Swish": lambda v: v / (1 + np.exp(-v)),
    "GeluExact": lambda v: 0.5 * v * (1 + _erf(v / np.sqrt(2))),
    "GeluTanh": lambda v: 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3))),
    "LeakyRelu": lambda v: np.where(v < 0, 0.1 * v, v),
}


def activation_subgraph(g, name, h):
    """The activation as TensorFlow / Keras graphs spell it, over tensor `h`."""
    if name in ("Relu", "Relu6", "Elu", "Sigmoid", "Tanh"):
        return op(g, name, h, name="act")
    if name == "Swish":
        return op(g, "Mul", h, op(g, "Sigmoid", h), name="act")
    if name == "GeluExact":  # 0.5 * x * (1 + erf(x / sqrt(2)))
        inner = op(g, "Erf", op(g, "Mul", h, const(g, 1 / np.sqrt(2))))
        return op(g, "Mul", op(g, "Mul", const(g, 0.5), h),
                  op(g, "AddV2", const(g, 1.0), inner), name="act")
    if name == "GeluTanh":  # 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
        cube = op(g, "Mul", const(g, 0.044715), op(g, "Pow", h, const(g, 3.0)))
        inner = op(g, "Tanh", op(g, "Mul", const(g, np.sqrt(2 / np.pi)), op(g, "AddV2", h, cube)))
        return op(g, "Mul", op(g, "Mul", h, const(g, 0.5)),
                  op(g, "AddV2", inner, const(g, 1.0)), name="act")
    if name == "LeakyRelu":  # max(x, 0.1 x), as Keras writes it without the op
        return op(g, "Maximum", h, op(g, "Mul", h, const(g, 0.1)), name="act")
    raise AssertionError(name)


# ---- passes ---------------------------------------------------------------------------------

def test_constant_subgraphs_fold_into_one_const():
    rng = np.random.default_rng(1)
    var, gamma = rng.uniform(0.5, 2, 6).astype(np.float32), rng.normal(size=6).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 6])
    scale = op(g, "Mul", op(g, "Rsqrt", op(g, "AddV2", const(g, var), const(g, 1e-3))),
               const(g, gamma), name="scale")
    y = op(g, "Mul", x, scale, name="y")
    xv = rng.normal(size=(2, 6)).astype(np.float32)
    got = run_both(g, y, {x: xv})
    np.testing.assert_allclose(got, xv * gamma / np.sqrt(var + 1e-3), rtol=1e-6)
    nodes = optimized_ops(g, y, [x])
    assert types(nodes) == ["Const", "Mul", "Placeholder"]
    assert nodes["y"].input[1] == "scale"  # the folded node keeps its name
    # Fetching the folded node itself gives its value, from a Const of the same name.
    np.testing.assert_allclose(run_both(g, scale, {}), gamma / np.sqrt(var + 1e-3), rtol=1e-6)


def test_folding_that_would_grow_a_constant_is_left_alone():
    g = opgen.Graph()
    x = placeholder(g, [512, 512])
    big = op(g, "Fill", const(g, [512, 512], dtype=np.int32), const(g, 2.0), name="big")
    y = op(g, "Mul", x, big, name="y")
    xv = np.ones((512, 512), np.float32)
    np.testing.assert_array_equal(run_both(g, y, {x: xv}), 2 * xv)
    assert "Fill" in types(optimized_ops(g, y, [x]))


def test_conv_batchnorm_relu_folds_and_fuses():
    rng = np.random.default_rng(2)
    w = rng.normal(size=(3, 3, 4, 5)).astype(np.float32)
    scale = rng.uniform(0.5, 1.5, 5).astype(np.float32)
    offset = rng.normal(size=5).astype(np.float32)
    mean, var = rng.normal(size=5).astype(np.float32), rng.uniform(0.5, 2, 5).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 6, 6, 4])
    c = conv2d(g, x, const(g, w, name="w"), name="conv")
    bn = g.create_op("FusedBatchNormV3", [c, const(g, scale), const(g, offset), const(g, mean),
                                          const(g, var)],
                     {"epsilon": 1e-3, "is_training": False}, name="bn").outputs[0]
    y = op(g, "Relu", bn, name="y")
    xv = rng.normal(size=(2, 6, 6, 4)).astype(np.float32)
    got = run_both(g, y, {x: xv})
    expected = np.maximum((np_conv_same(xv, w) - mean) / np.sqrt(var + 1e-3) * scale + offset, 0)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, y, [x])
    assert types(nodes) == ["Const", "Const", "Placeholder", "_OpgenFusedConv2D"]
    assert nodes["y"].op == "_OpgenFusedConv2D"
    assert nodes["y"].attr["activation"].s == b"Relu"


def test_conv_mul_add_sub_fold_into_filter_and_bias():
    rng = np.random.default_rng(3)
    w = rng.normal(size=(1, 1, 3, 4)).astype(np.float32)
    b, m = rng.normal(size=4).astype(np.float32), rng.normal(size=(1, 1, 1, 4)).astype(np.float32)
    a, s = rng.normal(size=4).astype(np.float32), np.float32(0.5)
    g = opgen.Graph()
    x = placeholder(g, [1, 5, 5, 3])
    h = op(g, "BiasAdd", conv2d(g, x, const(g, w)), const(g, b))
    h = op(g, "Mul", const(g, m), h)                # constant first: Mul commutes
    h = op(g, "AddV2", h, const(g, a))
    h = op(g, "Sub", h, const(g, s), name="y")      # fetched: keeps its name
    xv = rng.normal(size=(1, 5, 5, 3)).astype(np.float32)
    got = run_both(g, h, {x: xv})
    np.testing.assert_allclose(got, (np_conv_same(xv, w) + b) * m + a - s, rtol=1e-5, atol=1e-5)
    nodes = optimized_ops(g, h, [x])
    assert types(nodes) == ["Const", "Const", "Placeholder", "_OpgenFusedConv2D"]
    assert nodes["y"].attr["activation"].s == b"None"


def test_a_constant_that_would_broadcast_the_output_is_not_folded():
    g = opgen.Graph()
    x = placeholder(g, [1, 4, 4, 2])
    w = np.ones((1, 1, 2, 3), np.float32)
    y = op(g, "Mul", conv2d(g, x, const(g, w)), const(g, np.ones((2, 1, 1, 3), np.float32)),
           name="y")
    xv = np.ones((1, 4, 4, 2), np.float32)
    got = run_both(g, y, {x: xv})
    assert got.shape == (2, 4, 4, 3)
    assert "Mul" in types(optimized_ops(g, y, [x]))


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_matmul_bias_activation_fuses(activation):
    rng = np.random.default_rng(4)
    w, b = rng.normal(size=(6, 5)).astype(np.float32), rng.normal(size=5).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [3, 6])
    h = op(g, "BiasAdd", op(g, "MatMul", x, const(g, w)), const(g, b))
    y = activation_subgraph(g, activation, h)
    xv = rng.normal(size=(3, 6)).astype(np.float32) * 2
    got = run_both(g, y, {x: xv})
    np.testing.assert_allclose(got, ACTIVATIONS[activation](xv.astype(np.float64) @ w + b),
                               rtol=1e-5, atol=1e-5)
    nodes = optimized_ops(g, y, [x])
    assert nodes["act"].op == "_OpgenFusedMatMul", types(nodes)
    assert nodes["act"].attr["activation"].s.decode() == activation
    if activation == "LeakyRelu":
        assert nodes["act"].attr["leakyrelu_alpha"].f == pytest.approx(0.1)
    assert len(nodes) == 4  # x, the filter, the bias, the fused node


@pytest.mark.parametrize("activation", ["Relu6", "Swish", "GeluTanh"])
def test_conv_activation_without_bias_fuses_with_zero_bias(activation):
    rng = np.random.default_rng(5)
    w = rng.normal(size=(3, 3, 2, 3)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 5, 5, 2])
    y = activation_subgraph(g, activation, conv2d(g, x, const(g, w)))
    xv = rng.normal(size=(1, 5, 5, 2)).astype(np.float32)
    got = run_both(g, y, {x: xv})
    np.testing.assert_allclose(got, ACTIVATIONS[activation](np_conv_same(xv, w)), rtol=1e-5,
                               atol=1e-5)
    assert optimized_ops(g, y, [x])["act"].op == "_OpgenFusedConv2D"


def test_a_constant_filter_is_prepared_once_and_reused_for_every_shape():
    # The fused kernel keeps a constant filter's packed / Winograd-transformed forms
    # between runs. On 8x8 maps the batch size picks the path: batch 1 runs the 3x3
    # layers as GEMMs (16 Winograd tiles are too few) with 64-column panels (64 pixels),
    # batches 2-3 through Winograd; the 1x1 layers take 64-column panels at batch 1 and
    # 32-column ones from batch 2, the same number of floats in another order; the 3x3
    # 32->64 layer has more output channels than tiles at batch 3 and the 1x1 64->128
    # more than pixels at batch 1 (the other splits). Every run must equal numpy,
    # whatever was prepared before.
    rng = np.random.default_rng(21)
    shapes = [(3, 3, 16, 32), (3, 3, 32, 64), (1, 1, 64, 64), (1, 1, 64, 128)]
    filters = [(rng.normal(size=s) / np.sqrt(s[0] * s[1] * s[2])).astype(np.float32) for s in shapes]
    g = opgen.Graph()
    x = placeholder(g, [None, 8, 8, 16])
    h = x
    for i, w in enumerate(filters):  # the last convolution has nothing after it to fuse
        last = i == len(filters) - 1
        h = (conv2d(g, h, const(g, w), name=f"h{i}") if last
             else op(g, "Relu", conv2d(g, h, const(g, w)), name=f"h{i}"))
    nodes = optimized_ops(g, h, [x])
    for i in range(len(filters)):
        node = nodes[f"h{i}"]
        assert node.op == "_OpgenFusedConv2D" and node.attr["constant_filter"].b
    with opgen.Session(g) as s:
        for batch in [1, 3, 2, 1, 3]:
            xv = rng.normal(size=(batch, 8, 8, 16)).astype(np.float32)
            want = xv
            for i, w in enumerate(filters):
                want = np_conv_same(want, w)
                want = want if i == len(filters) - 1 else np.maximum(want, 0)
            np.testing.assert_allclose(s.run(h, {x: xv}), want, rtol=1e-4, atol=1e-4)


def test_a_fed_filter_is_not_kept():
    rng = np.random.default_rng(22)
    g = opgen.Graph()
    x = placeholder(g, [1, 8, 8, 16])
    w = placeholder(g, [3, 3, 16, 32], name="w")
    y = op(g, "Relu", conv2d(g, x, w), name="y")
    assert not optimized_ops(g, y, [x, w])["y"].attr["constant_filter"].b
    xv = rng.normal(size=(1, 8, 8, 16)).astype(np.float32)
    with opgen.Session(g) as s:
        for _ in range(2):
            wv = rng.normal(size=(3, 3, 16, 32)).astype(np.float32)
            np.testing.assert_allclose(s.run(y, {x: xv, w: wv}), np.maximum(np_conv_same(xv, wv), 0),
                                       rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("conv_op", ["Conv2D", "DepthwiseConv2dNative"])
def test_a_zero_pad_becomes_the_convolutions_explicit_padding(conv_op):
    # Keras' ZeroPadding2D before a strided VALID convolution (MobileNet, EfficientNet).
    rng = np.random.default_rng(11)
    w = rng.normal(size=(3, 3, 4, 1 if conv_op != "Conv2D" else 5)).astype(np.float32)
    xv = rng.normal(size=(2, 7, 8, 4)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 7, 8, 4])
    pads = const(g, [[0, 0], [1, 2], [0, 1], [0, 0]], dtype=np.int32)
    padded = op(g, "Pad", x, pads, name="pad")
    y = op(g, conv_op, padded, const(g, w), name="conv", strides=[1, 2, 2, 1], padding="VALID")
    got = run_both(g, y, {x: xv})
    nodes = optimized_ops(g, y, [x])
    assert "pad" not in nodes
    assert nodes["conv"].attr["padding"].s == b"EXPLICIT"
    assert list(nodes["conv"].attr["explicit_paddings"].list.i) == [0, 0, 1, 2, 0, 1, 0, 0]
    if conv_op == "Conv2D":  # numpy: the padded input through a VALID stride-2 convolution
        xp = np.pad(xv, [(0, 0), (1, 2), (0, 1), (0, 0)]).astype(np.float64)
        want = np.zeros((2, 4, 4, 5))
        for i in range(3):
            for j in range(3):
                want += np.einsum("nhwc,co->nhwo", xp[:, i:i + 7:2, j:j + 7:2, :], w[i, j])
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def np_depthwise_same(x, f):
    """NHWC x [kh, kw, c, 1], stride 1, SAME."""
    kh, kw = f.shape[:2]
    pt, pl = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x.astype(np.float64), ((0, 0), (pt, kh - 1 - pt), (pl, kw - 1 - pl), (0, 0)))
    out = np.zeros(x.shape, np.float64)
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i:i + x.shape[1], j:j + x.shape[2], :] * f[i, j, :, 0]
    return out


def _depthwise_bn_graph(activation, batchnorm=True, channels=12):
    """x -> DepthwiseConv2dNative -> inference FusedBatchNorm (or BiasAdd) -> activation,
    as MobileNetV2 (Relu6) and EfficientNet (Swish) write their depthwise layers; the
    parameters and the expected result."""
    rng = np.random.default_rng(21)
    f = rng.normal(size=(3, 3, channels, 1)).astype(np.float32)
    scale, offset = rng.uniform(0.5, 1.5, channels), rng.normal(size=channels)
    mean, var = rng.normal(size=channels), rng.uniform(0.5, 2, channels)
    g = opgen.Graph()
    x = placeholder(g, [2, 7, 9, channels])
    dw = op(g, "DepthwiseConv2dNative", x, const(g, f, name="f"), name="dw",
            strides=[1, 1, 1, 1], padding="SAME")
    if batchnorm:
        h = g.create_op("FusedBatchNormV3", [dw] + [const(g, v) for v in (scale, offset, mean, var)],
                        {"epsilon": 1e-3, "is_training": False}, name="bn").outputs[0]
    else:
        h = op(g, "BiasAdd", dw, const(g, offset), name="bn")
    y = activation_subgraph(g, activation, h)
    xv = rng.normal(size=(2, 7, 9, channels)).astype(np.float32) * 2

    def expected(values=xv):
        d = np_depthwise_same(values, f)
        pre = (d - mean) / np.sqrt(var + 1e-3) * scale + offset if batchnorm else d + offset
        return pre, ACTIVATIONS[activation](pre), d
    return g, x, h, y, xv, expected


@pytest.mark.parametrize("activation", ["Relu", "Relu6", "Swish", "Sigmoid", "Elu"])
@pytest.mark.parametrize("batchnorm", [True, False], ids=["batchnorm", "biasadd"])
def test_depthwise_batchnorm_activation_fuses(activation, batchnorm):
    g, x, _, y, xv, expected = _depthwise_bn_graph(activation, batchnorm)
    got = run_both(g, y, {x: xv})
    np.testing.assert_allclose(got, expected()[1], rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, y, [x])
    assert types(nodes) == ["Const", "Const", "Placeholder", "_OpgenFusedDepthwiseConv2dNative"]
    assert nodes["act"].attr["activation"].s.decode() == activation


def test_depthwise_activation_with_a_second_reader_keeps_the_activation():
    # The biased value is also read by an Add: only the bias is fused, the Relu6 stays.
    g, x, h, y, xv, expected = _depthwise_bn_graph("Relu6")
    z = op(g, "AddV2", y, h, name="z")
    pre, post, _ = expected()
    np.testing.assert_allclose(run_both(g, z, {x: xv}), post + pre, rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, z, [x])
    assert nodes["bn"].op == "_OpgenFusedDepthwiseConv2dNative"
    assert nodes["bn"].attr["activation"].s == b"None"
    assert nodes["act"].op == "Relu6"


def test_a_fetched_depthwise_intermediate_keeps_its_value():
    # Fetching the biased value: it stays a node of its own with its value; the
    # activation after it is not fused into the convolution.
    g, x, h, y, xv, expected = _depthwise_bn_graph("Relu6", batchnorm=False)
    pre, post, conv = expected()
    got_h, got_y = run_both(g, [h, y], {x: xv})
    np.testing.assert_allclose(got_h, pre, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_y, post, rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, [h, y], [x])
    assert nodes["bn"].op == "_OpgenFusedDepthwiseConv2dNative"
    assert nodes["bn"].attr["activation"].s == b"None"
    assert nodes["act"].op == "Relu6"
    # Fetching the convolution itself: nothing after it is fused into it.
    dw = g.get_operation_by_name("dw").outputs[0]
    got_dw, got_y = run_both(g, [dw, y], {x: xv})
    np.testing.assert_allclose(got_dw, conv, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_y, post, rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, [dw, y], [x])
    assert nodes["dw"].op == "DepthwiseConv2dNative"
    assert nodes["act"].op == "Relu6"


def _normalization_graph(shape=(2, 50, 37, 3), tail=None):
    """Keras' Rescaling (x * 1/255 + 0) and Normalization ((x - mean) / std) layers, as
    EfficientNet's frozen graph writes them, then `tail` (a function of the graph and the
    last value); the placeholder, the output and the expected result."""
    rng = np.random.default_rng(31)
    mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(1, 1, 1, 3)
    std = np.sqrt(np.array([0.229, 0.224, 0.225], np.float32)).reshape(1, 1, 1, 3)
    g = opgen.Graph()
    x = placeholder(g, list(shape))
    h = op(g, "Mul", x, const(g, 1 / 255), name="rescale")
    h = op(g, "AddV2", h, const(g, 0.0), name="shift")
    h = op(g, "Sub", h, const(g, mean), name="sub")
    y = op(g, "RealDiv", h, const(g, std), name="y")
    if tail is not None:
        y = tail(g, y)
    xv = rng.uniform(0, 255, size=shape).astype(np.float32)
    return g, x, y, xv, (xv.astype(np.float64) / 255 - mean) / std


def test_a_rescaling_and_normalization_chain_becomes_one_scale_shift():
    g, x, y, xv, want = _normalization_graph()
    np.testing.assert_allclose(run_both(g, y, {x: xv}), want, rtol=1e-5, atol=1e-5)
    nodes = optimized_ops(g, y, [x])
    assert types(nodes) == ["Const", "Const", "Placeholder", "_OpgenFusedScaleShift"]
    assert nodes["y"].op == "_OpgenFusedScaleShift"


@pytest.mark.parametrize("shape", [(1, 7, 5, 3), (3, 33, 21, 3), (2, 9, 9, 1)])
def test_an_affine_chain_of_scalars_takes_its_channels_from_the_input(shape):
    # (c - x) * 0.5 + 1, then Relu: the channel count is the input's last dimension.
    rng = np.random.default_rng(32)
    g = opgen.Graph()
    x = placeholder(g, list(shape))
    h = op(g, "Sub", const(g, 2.0), x)
    h = op(g, "Mul", h, const(g, 0.5))
    y = op(g, "Relu", op(g, "AddV2", const(g, -1.0), h), name="y")
    xv = rng.normal(size=shape).astype(np.float32) * 4
    np.testing.assert_allclose(run_both(g, y, {x: xv}), np.maximum((2 - xv) * 0.5 - 1, 0),
                               rtol=1e-6, atol=1e-6)
    nodes = optimized_ops(g, y, [x])
    assert nodes["y"].op == "_OpgenFusedScaleShift"
    assert nodes["y"].attr["activation"].s == b"Relu"
    assert len(nodes) == 4


def test_affine_chains_that_must_stay():
    # An inner value read elsewhere, or fetched, ends the chain there; a constant
    # divided by x, or a division by zero, is no step of one.
    g, x, y, xv, want = _normalization_graph(tail=lambda g, y: op(g, "AddV2", y, y, name="z"))
    sub = g.get_operation_by_name("sub").outputs[0]
    z = g.get_operation_by_name("z").outputs[0]
    got_sub, got_z = run_both(g, [sub, z], {x: xv})
    np.testing.assert_allclose(got_sub, want * np.sqrt([0.229, 0.224, 0.225]), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(got_z, 2 * want, rtol=1e-5, atol=1e-5)
    nodes = optimized_ops(g, [sub, z], [x])
    assert nodes["sub"].op == "_OpgenFusedScaleShift"  # rescale, shift, sub
    assert nodes["y"].op == "RealDiv"
    for divisor, numerator_first in ((0.0, False), (2.0, True)):
        g = opgen.Graph()
        x = placeholder(g, [1, 3, 3, 2])
        h = op(g, "Mul", x, const(g, 3.0), name="m")
        y = op(g, "RealDiv", *((const(g, divisor), h) if numerator_first else (h, const(g, divisor))),
               name="y")
        v = np.array([1, 2, 0, -3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8],
                     np.float32).reshape(1, 3, 3, 2)
        with np.errstate(divide="ignore", invalid="ignore"):
            want = divisor / (3 * v) if numerator_first else (3 * v) / divisor
        np.testing.assert_array_equal(run_both(g, y, {x: v}), want.astype(np.float32))
        assert optimized_ops(g, y, [x])["y"].op == "RealDiv"


def test_duplicate_activations_of_one_tensor_become_one():
    # NASNet: every branch of a cell applies its own Relu to the cell's input.
    rng = np.random.default_rng(5)
    xv = rng.normal(size=(1, 6, 6, 3)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 6, 6, 3])
    h = op(g, "Add", x, const(g, np.float32(0.5)), name="h")
    r1, r2, r3 = (op(g, "Relu", h, name=f"relu{i}") for i in (1, 2, 3))
    other = op(g, "Relu", x, name="relu_of_x")  # another input: stays
    s1 = op(g, "Sigmoid", h, name="sig1")
    s2 = op(g, "Sigmoid", h, name="sig2")
    y = r1
    for term in (op(g, "Mul", r2, r3), other, s1, s2):
        y = op(g, "Add", y, term)
    fetched = op(g, "Relu", h, name="relu_fetched")  # fetched: stays as named
    got = run_both(g, [y, fetched], {x: xv})
    hv = xv + 0.5
    relu, sig = np.maximum(hv, 0), 1 / (1 + np.exp(-hv))
    np.testing.assert_allclose(got[0], relu + relu * relu + np.maximum(xv, 0) + 2 * sig,
                               rtol=1e-5, atol=1e-6)
    nodes = optimized_ops(g, [y, fetched], [x])
    relus = sorted(n for n, d in nodes.items() if d.op == "Relu")
    assert relus == ["relu1", "relu_fetched", "relu_of_x"]
    assert sorted(n for n, d in nodes.items() if d.op == "Sigmoid") == ["sig1"]


def test_pads_the_convolution_cannot_take_stay():
    w = np.ones((3, 3, 2, 2), np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 5, 5, 2])
    spatial = const(g, [[0, 0], [1, 1], [1, 1], [0, 0]], dtype=np.int32)
    same = conv2d(g, op(g, "Pad", x, spatial, name="pad_same"), const(g, w), padding="SAME")
    channels = op(g, "Pad", x, const(g, [[0, 0], [1, 1], [1, 1], [0, 1]], dtype=np.int32),
                  name="pad_channels")
    by_channels = conv2d(g, channels, const(g, np.ones((3, 3, 3, 2), np.float32)), padding="VALID")
    fetched = op(g, "Pad", x, spatial, name="pad_fetched")
    by_fetched = conv2d(g, fetched, const(g, w), padding="VALID")
    fetches = [same, by_channels, by_fetched, fetched]
    feeds = {x: np.arange(50, dtype=np.float32).reshape(1, 5, 5, 2)}
    for got, want in zip(run(g, fetches, feeds, True), run(g, fetches, feeds, False)):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    nodes = optimized_ops(g, fetches, [x])
    for name in ["pad_same", "pad_channels", "pad_fetched"]:
        assert name in nodes, name


@pytest.mark.parametrize("x_shape, const_shape, spelling", [
    ((2, 5, 5, 3), (3,), "add"),             # DenseNet's BatchNorm + Relu before a conv
    ((2, 5, 5, 3), (1, 1, 1, 3), "sub"),     # Keras' reshaped form; x * s - b
    ((2, 5, 5, 1), (3,), "add_swapped"),     # x's last dim 1: repeated over the channels
    ((3,), (1, 1, 1, 3), "add"),             # x of lower rank: ones prepended
])
def test_a_per_channel_scale_and_shift_fuse_with_their_activation(x_shape, const_shape, spelling):
    rng = np.random.default_rng(31)
    sv = rng.normal(size=const_shape).astype(np.float32)
    bv = rng.normal(size=const_shape).astype(np.float32)
    xv = rng.normal(size=x_shape).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, list(x_shape))
    scaled = (op(g, "Mul", const(g, sv), x, name="mul") if spelling == "add_swapped"
              else op(g, "Mul", x, const(g, sv), name="mul"))
    shifted = op(g, "Sub" if spelling == "sub" else "AddV2", scaled, const(g, bv), name="shift")
    y = op(g, "Relu", shifted, name="y")
    want = np.maximum(xv * sv - bv if spelling == "sub" else xv * sv + bv, 0)
    got = run_both(g, y, {x: xv})
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    nodes = optimized_ops(g, y, [x])
    assert nodes["y"].op == "_OpgenFusedScaleShift" and nodes["y"].attr["activation"].s == b"Relu"
    assert "mul" not in nodes and "shift" not in nodes


def test_a_scale_and_shift_read_elsewhere_stays():
    g = opgen.Graph()
    x = placeholder(g, [4, 3])
    scaled = op(g, "Mul", x, const(g, [1.0, 2.0, 3.0]), name="mul")
    shifted = op(g, "AddV2", scaled, const(g, [0.5, 0.5, 0.5]), name="shift")
    y = op(g, "Relu", shifted, name="y")
    xv = np.arange(-6, 6, dtype=np.float32).reshape(4, 3)
    got = run(g, [y, scaled], {x: xv}, True)
    np.testing.assert_allclose(got[0], np.maximum(xv * [1, 2, 3] + 0.5, 0))
    assert optimized_ops(g, [y, scaled], [x])["mul"].op == "Mul"


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("window", [3, 1])
def test_a_residual_add_and_its_activation_fuse_into_the_convolution(with_bias, window):
    # The end of a ResNet identity block: relu(conv(h) + bias + x), h = relu(x). 12x12 maps
    # with 32 channels: the 3x3 convolution goes through Winograd, the 1x1 through the
    # GEMM path.
    rng = np.random.default_rng(41)
    w = (rng.normal(size=(window, window, 32, 32)) / 16).astype(np.float32)
    b = rng.normal(size=32).astype(np.float32)
    xv = rng.normal(size=(2, 12, 12, 32)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 12, 12, 32])
    h = conv2d(g, op(g, "Relu", x, name="h"), const(g, w), name="conv")
    if with_bias:
        h = op(g, "BiasAdd", h, const(g, b), name="bias")
    y = op(g, "Relu", op(g, "AddV2", x, h, name="add"), name="y")
    want = np.maximum(np_conv_same(np.maximum(xv, 0), w) + (b if with_bias else 0) + xv, 0)
    np.testing.assert_allclose(run_both(g, y, {x: xv}), want, rtol=1e-4, atol=1e-4)
    nodes = optimized_ops(g, y, [x])
    assert nodes["y"].op == "_OpgenFusedConv2DWithResidual"
    assert nodes["y"].attr["activation"].s == b"Relu"
    assert nodes["y"].input[0] == "h" and nodes["y"].input[3] == "x"
    assert "add" not in nodes and "conv" not in nodes


@pytest.mark.parametrize("groups", [2, 8])
def test_a_grouped_convolution_fuses_with_its_bias_residual_and_activation(groups):
    # Keras' Conv2D(groups=...): the filter has 8 / groups in-channels for 8 input
    # channels; each group of input channels makes its share of the outputs.
    rng = np.random.default_rng(44)
    gic, oc = 8 // groups, 8
    w = (rng.normal(size=(3, 3, gic, oc)) / 4).astype(np.float32)
    b = rng.normal(size=oc).astype(np.float32)
    xv = rng.normal(size=(2, 6, 6, 8)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 6, 6, 8])
    h = op(g, "BiasAdd", conv2d(g, x, const(g, w), name="conv"), const(g, b), name="bias")
    y = op(g, "Relu", op(g, "AddV2", x, h, name="add"), name="y")
    goc = oc // groups
    grouped = np.concatenate([np_conv_same(xv[..., k * gic:(k + 1) * gic],
                                           w[..., k * goc:(k + 1) * goc]) for k in range(groups)], -1)
    want = np.maximum(grouped + b + xv, 0)
    np.testing.assert_allclose(run_both(g, y, {x: xv}), want, rtol=1e-4, atol=1e-4)
    assert optimized_ops(g, y, [x])["y"].op == "_OpgenFusedConv2DWithResidual"


def test_static_shapes_are_not_trusted_when_an_inner_node_is_fed():
    # Through the C API an inner node may be fed a value of another shape than the graph
    # inferred (the Python layer checks, TF_SessionRun does not), and the Add would then
    # broadcast: with an inner node fed, the optimizer trusts no static shape, so the Add
    # stays. (Python refuses the odd shape, so the value here has the inferred one.)
    rng = np.random.default_rng(43)
    w = (rng.normal(size=(1, 1, 4, 4)) / 2).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 3, 3, 4])
    h = op(g, "Relu", x, name="h")
    y = op(g, "Relu", op(g, "AddV2", h, conv2d(g, x, const(g, w)), name="add"), name="y")
    xv = rng.normal(size=(1, 3, 3, 4)).astype(np.float32)
    hv = rng.normal(size=(1, 3, 3, 4)).astype(np.float32)
    got = run_both(g, y, {x: xv, h: hv})
    np.testing.assert_allclose(got, np.maximum(np_conv_same(xv, w) + hv, 0), rtol=1e-5, atol=1e-5)
    assert optimized_ops(g, y, [x, h])["add"].op == "AddV2"


def test_an_add_that_broadcasts_is_not_a_residual():
    # Adding a [32] tensor that is not a constant: the shapes differ, so the Add stays.
    rng = np.random.default_rng(42)
    w = (rng.normal(size=(3, 3, 4, 32)) / 6).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 6, 6, 4])
    v = placeholder(g, [32], name="v")
    y = op(g, "Relu", op(g, "AddV2", conv2d(g, x, const(g, w)), v, name="add"), name="y")
    xv = rng.normal(size=(1, 6, 6, 4)).astype(np.float32)
    vv = rng.normal(size=32).astype(np.float32)
    np.testing.assert_allclose(run_both(g, y, {x: xv, v: vv}),
                               np.maximum(np_conv_same(xv, w) + vv, 0), rtol=1e-4, atol=1e-4)
    assert optimized_ops(g, y, [x, v])["add"].op == "AddV2"


def test_an_activation_read_elsewhere_is_not_fused_away():
    g = opgen.Graph()
    x = placeholder(g, [2, 3])
    h = op(g, "BiasAdd", op(g, "MatMul", x, const(g, np.eye(3, dtype=np.float32))),
           const(g, [1.0, -2.0, 0.5]), name="h")
    y = op(g, "Relu", h, name="y")
    z = op(g, "AddV2", y, h, name="z")  # h is read twice: only the bias can be fused
    xv = np.array([[1, 2, 3], [-4, 5, -6]], np.float32)
    h_value = xv + [1, -2, .5]
    np.testing.assert_allclose(run_both(g, z, {x: xv}), np.maximum(h_value, 0) + h_value)
    nodes = optimized_ops(g, z, [x])
    assert nodes["h"].op == "_OpgenFusedMatMul" and nodes["h"].attr["activation"].s == b"None"
    assert nodes["y"].op == "Relu"


def test_identity_chains_go_and_control_dependencies_stay():
    g = opgen.Graph()
    x = placeholder(g, [3])
    i1 = op(g, "Identity", x, name="i1")
    i2 = op(g, "Identity", i1, name="i2")
    y = op(g, "Neg", i2, name="y")
    kept = op(g, "Identity", y, name="kept")  # fetched: stays
    xv = np.array([1, -2, 3], np.float32)
    np.testing.assert_array_equal(run_both(g, kept, {x: xv}), -xv)
    nodes = optimized_ops(g, kept, [x])
    assert types(nodes) == ["Identity", "Neg", "Placeholder"]
    assert nodes["y"].input == ["x"]


def test_identity_with_a_control_input_hands_it_on():
    g = opgen.Graph()
    x = placeholder(g, [2])
    before = g.create_op("Abs", [x], name="before")  # y must still run after it
    with g.control_dependencies([before]):
        ident = op(g, "Identity", x, name="ident")
    y = op(g, "Neg", ident, name="y")
    nodes = optimized_ops(g, y, [x])
    assert "ident" not in nodes and "^before" in nodes["y"].input
    np.testing.assert_array_equal(run_both(g, y, {x: np.ones(2, np.float32)}), -np.ones(2))



def test_a_frozen_functions_output_noop_and_identityn_resolve_through_chains():
    # The shape convert_variables_to_constants_v2 leaves: every variable read becomes an
    # Identity of a Const, the output waits on a NoOp that waits on every read.
    g = opgen.Graph()
    x = placeholder(g, [2])
    reads = [op(g, "Identity", const(g, [float(i), 1.0], name=f"w{i}"), name=f"read{i}")
             for i in range(40)]
    order = g.create_op("Abs", [x], name="order")  # a real dependency the NoOp carries
    with g.control_dependencies([r.op for r in reads] + [order]):
        barrier = g.create_op("NoOp", [], name="barrier")
    pair = g.create_op("IdentityN", [[reads[3], x]], {"T": [opgen.float32, opgen.float32]},
                       name="pair")
    chained = op(g, "Identity", op(g, "Identity", pair.outputs[1], name="c1"), name="c2")
    total = op(g, "Maximum", op(g, "Mul", chained, pair.outputs[0], name="mul"), reads[7],
               name="total")
    with g.control_dependencies([barrier]):
        out = op(g, "Identity", total, name="out")
    xv = np.array([2.0, -3.0], np.float32)
    expected = np.maximum(xv * [3.0, 1.0], [7.0, 1.0])
    np.testing.assert_array_equal(run_both(g, out, {x: xv}), expected)
    nodes = optimized_ops(g, out, [x])
    # No identity, IdentityN or NoOp is left but the fetched one; the wait on `order`
    # survives (handed on through the NoOp), the waits on constants do not.
    assert sorted(n.op for n in nodes.values() if n.op in ("Identity", "IdentityN", "NoOp")) \
        == ["Identity"]
    assert "^order" in nodes["out"].input
    assert not [i for i in nodes["out"].input if i.startswith("^w")]
    assert (nodes["total"].op, nodes["total"].input) == ("Maximum", ["mul", "w7"]), nodes["total"]
    assert nodes["mul"].input == ["x", "w3"]

def test_feeding_an_inner_node_keeps_its_name_and_value():
    rng = np.random.default_rng(6)
    w = rng.normal(size=(4, 3)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [2, 4])
    h = op(g, "BiasAdd", op(g, "MatMul", x, const(g, w)), const(g, [1.0, 2.0, 3.0]), name="h")
    y = op(g, "Relu", h, name="y")
    hv = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(run_both(g, y, {h: hv}), np.maximum(hv, 0))
    nodes = optimized_ops(g, y, [h])
    assert types(nodes) == ["Placeholder", "Relu"]


# ---- switches and reports -------------------------------------------------------------------

def _bias_relu_graph():
    g = opgen.Graph()
    x = placeholder(g, [2, 2])
    h = op(g, "BiasAdd", op(g, "MatMul", x, const(g, np.eye(2, dtype=np.float32))),
           const(g, [1.0, -1.0]))
    return g, x, op(g, "Relu", op(g, "Identity", h), name="y")


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _config(graph_options: bytes) -> bytes:
    """A ConfigProto with graph_options (field 10), written by hand: no TensorFlow here."""
    return _field(10, graph_options)


OPT_LEVEL_L0 = _config(_field(3, _varint(3 << 3) + _varint(-1)))  # optimizer_options.opt_level
DISABLE_META = _config(_field(10, _varint(19 << 3) + _varint(1)))  # rewrite_options
REMAPPING_OFF = _config(_field(10, _varint(14 << 3) + _varint(2)))


@pytest.mark.parametrize("options", [
    opgen.SessionOptions(optimize=False),
    opgen.SessionOptions(config=OPT_LEVEL_L0),
    opgen.SessionOptions(config=DISABLE_META),
], ids=["optimize=False", "opt_level=L0", "disable_meta_optimizer"])
def test_switches_turn_the_optimizer_off(options):
    g, x, y = _bias_relu_graph()
    assert types(optimized_ops(g, y, [x], options)) == [
        "BiasAdd", "Const", "Const", "Identity", "MatMul", "Placeholder", "Relu"]
    assert "_OpgenFusedMatMul" in types(optimized_ops(g, y, [x]))


def test_config_turns_single_passes_off():
    g, x, y = _bias_relu_graph()
    assert types(optimized_ops(g, y, [x], opgen.SessionOptions(config=REMAPPING_OFF))) == [
        "BiasAdd", "Const", "Const", "MatMul", "Placeholder", "Relu"]


def test_the_environment_turns_the_optimizer_off(monkeypatch):
    g, x, y = _bias_relu_graph()
    monkeypatch.setenv("OPGEN_GRAPH_OPTIMIZER", "0")
    assert "Identity" in types(optimized_ops(g, y, [x]))
    # An explicit SessionOptions choice wins over the environment.
    forced = opgen.SessionOptions(optimize=True)
    assert "_OpgenFusedMatMul" in types(optimized_ops(g, y, [x], forced))


def test_the_log_says_what_the_passes_did(monkeypatch, capfd):
    g, x, y = _bias_relu_graph()
    monkeypatch.setenv("OPGEN_LOG_OPTIMIZER", "1")
    with opgen.Session(g) as s:
        s.run(y, {x: np.ones((2, 2), np.float32)})
    err = capfd.readouterr().err
    assert "opgen graph optimizer: 7 -> 4 nodes" in err and "fused 1" in err


def test_session_options_are_checked():
    with pytest.raises(TypeError):
        opgen.SessionOptions(optimize="yes")
    with pytest.raises(TypeError):
        opgen.Session(opgen.Graph(), options={"optimize": False})


def test_internal_ops_stay_out_of_the_public_registry():
    from opgen import opdefs
    from opgen.runtime import _lib
    from opgen.protos import op_def_pb2
    runtime_ops = {op.name for op in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}
    assert {"_OpgenFusedConv2D", "_OpgenFusedMatMul"} <= runtime_ops
    public = {op.name for op in opdefs.load_runtime_registry().op}
    assert not any(name.startswith("_Opgen") for name in public) and "Conv2D" in public
    from opgen import _paths
    bundled = {op.name for op in opdefs.load(str(_paths.bundled_ops_path())).op}
    assert not any(name.startswith("_Opgen") for name in bundled)


def registered_ops() -> set[str]:
    from opgen.protos import op_def_pb2
    from opgen.runtime import _lib
    return {op.name for op in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}


# ---- frozen models --------------------------------------------------------------------------

FROZEN = ["mlp", "cnn", "opt_resnet_block", "opt_dense_activations", "opt_conv_activations"]
EXPECTED_FUSED = {"cnn": 2, "mlp": 2, "opt_resnet_block": 5, "opt_dense_activations": 7,
                  "opt_conv_activations": 5}


@pytest.mark.parametrize("name", FROZEN)
def test_frozen_models_match_tensorflow_both_ways(name):
    io = np.load(FIXTURES / f"{name}_io.npz")
    graph_def = graph_pb2.GraphDef.FromString((FIXTURES / f"{name}.pb").read_bytes())
    missing = sorted({n.op for n in graph_def.node} - registered_ops())
    if missing:  # ops other branches of issue 17 add (LeakyRelu, IdentityN, Erfc)
        pytest.skip(f"this runtime lacks {', '.join(missing)}")
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    fetch, feed = str(io["output_name"]), str(io["input_name"])
    expected = io["output"]
    got = run_both(g, fetch, {feed: io["input"]}, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
    nodes = optimized_ops(g, fetch, [feed])
    fused = [n for n in nodes.values() if n.op.startswith("_OpgenFused")]
    assert len(fused) == EXPECTED_FUSED[name], types(nodes)
    assert not {"FusedBatchNormV3", "Identity", "BiasAdd"} & {n.op for n in nodes.values()
                                                              if n.name != fetch.split(":")[0]}


def _spelled_with_main_ops(graph_def):
    """The graph with the ops other branches of issue 17 add spelled with older ones, so
    the Keras patterns around them are tested here already: Erfc(z) as 1 - Erf(z),
    IdentityN (swish's custom gradient) as an Identity of its first input, LeakyRelu as
    Maximum(x, alpha * x)."""
    present = registered_ops()
    new = graph_pb2.GraphDef()

    def node(name, op_type, inputs):
        n = new.node.add(name=name, op=op_type, input=inputs)
        n.attr["T"].type = 1  # DT_FLOAT
        return n

    def scalar(name, value):
        n = new.node.add(name=name, op="Const")
        n.attr["dtype"].type = 1
        n.attr["value"].tensor.dtype = 1
        n.attr["value"].tensor.float_val.append(value)
        return name

    for n in graph_def.node:
        if n.op == "Erfc" and "Erfc" not in present:
            node(n.name + "/erf", "Erf", list(n.input))
            node(n.name, "Sub", [scalar(n.name + "/one", 1.0), n.name + "/erf"])
        elif n.op == "IdentityN" and "IdentityN" not in present:
            node(n.name, "Identity", [n.input[0]])
        elif n.op == "LeakyRelu" and "LeakyRelu" not in present:
            alpha = scalar(n.name + "/alpha", n.attr["alpha"].f)
            node(n.name + "/scaled", "Mul", [n.input[0], alpha])
            node(n.name, "Maximum", [n.input[0], n.name + "/scaled"])
        else:
            new.node.add().CopyFrom(n)
    return new


@pytest.mark.parametrize("name, activations", [
    ("opt_dense_activations", ["GeluExact", "GeluTanh", "Swish", "Elu", "Sigmoid", "Tanh", "None"]),
    ("opt_conv_activations", ["LeakyRelu", "Elu", "Sigmoid", "Tanh", "Swish"]),
])
def test_keras_activation_spellings_fuse(name, activations):
    io = np.load(FIXTURES / f"{name}_io.npz")
    graph_def = graph_pb2.GraphDef.FromString((FIXTURES / f"{name}.pb").read_bytes())
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(_spelled_with_main_ops(graph_def), name="")
    fetch, feed, expected = str(io["output_name"]), str(io["input_name"]), io["output"]
    got = run_both(g, fetch, {feed: io["input"]}, atol=1e-5 * np.abs(expected).max())
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max())
    with opgen.Session(g) as s:
        nodes = s.optimized_graph_def(fetch, [feed]).node
    assert [n.attr["activation"].s.decode() for n in nodes if n.op.startswith("_OpgenFused")] \
        == activations


def _other_threads_cpu_ticks() -> int:
    """utime + stime of every thread of this process but the calling one (Linux)."""
    import threading
    me = threading.get_native_id()
    total = 0
    for task in Path("/proc/self/task").iterdir():
        if int(task.name) == me:
            continue
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the thread ended
            continue
        total += int(fields[11]) + int(fields[12])
    return total


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_intra_op_parallelism_threads_1_keeps_kernels_on_the_calling_thread():
    # ConfigProto.intra_op_parallelism_threads (field 2) = 1: the session's kernels run on
    # the thread that called run; without it the pool's workers take part.
    import os
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the pool has no workers")
    rng = np.random.default_rng(51)
    w = rng.normal(size=(3, 3, 64, 64)).astype(np.float32)
    xv = rng.normal(size=(1, 56, 56, 64)).astype(np.float32)
    g = opgen.Graph()
    x = placeholder(g, [1, 56, 56, 64])
    y = op(g, "Relu", conv2d(g, x, const(g, w)), name="y")

    def worker_ticks(config):
        with opgen.Session(g, options=opgen.SessionOptions(config=config)) as s:
            s.run(y, {x: xv})
            import time
            time.sleep(0.05)  # let the workers' spin after the first run end
            before = _other_threads_cpu_ticks()
            start = time.process_time()
            while time.process_time() - start < 0.6:
                s.run(y, {x: xv})
            return _other_threads_cpu_ticks() - before

    one_thread = _varint(2 << 3) + _varint(1)
    assert worker_ticks(one_thread) <= 2
    assert worker_ticks(None) >= 5

