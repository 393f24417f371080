"""The graph optimizer's fused kernels on the GPU (_OpgenFusedConv2D, _OpgenFusedMatMul,
_OpgenFusedDepthwiseConv2dNative):
a graph placed on /GPU:0 runs fused there and gives the CPU's unfused answer, for every
activation the fused ops know."""

from __future__ import annotations

import numpy as np
import pytest

import opgen

ACTIVATION_OPS = ["Relu", "Relu6", "Elu", "Sigmoid", "Tanh"]


def _graph(rng, kind: str, activation: str, device: str):
    g = opgen.Graph()
    x = g.create_op("Placeholder", [], {"dtype": opgen.float32}, name="x").outputs[0]

    def const(value, name):
        return g.create_op("Const", [], {"dtype": opgen.float32, "value": value},
                           name=name).outputs[0]

    with g.device(device):
        if kind == "depthwise":
            w = const(rng.standard_normal((3, 3, 4, 1)).astype(np.float32), "w")
            h = g.create_op("DepthwiseConv2dNative", [x, w],
                            {"strides": [1, 2, 2, 1], "padding": "SAME"}, name="conv").outputs[0]
            b = const(rng.standard_normal(4).astype(np.float32), "b")
        elif kind == "conv2d":
            w = const(rng.standard_normal((3, 3, 4, 6)).astype(np.float32), "w")
            h = g.create_op("Conv2D", [x, w], {"strides": [1, 2, 2, 1], "padding": "SAME"},
                            name="conv").outputs[0]
            b = const(rng.standard_normal(6).astype(np.float32), "b")
        else:
            w = const(rng.standard_normal((5, 7)).astype(np.float32), "w")
            h = g.create_op("MatMul", [x, w], name="mm").outputs[0]
            b = const(rng.standard_normal(7).astype(np.float32), "b")
        h = g.create_op("BiasAdd", [h, b], name="bias").outputs[0]
        if activation == "Swish":
            sig = g.create_op("Sigmoid", [h], name="sig").outputs[0]
            y = g.create_op("Mul", [h, sig], name="y").outputs[0]
        else:
            y = g.create_op(activation, [h], name="y").outputs[0]
    return g, x, y


FUSED = {"conv2d": "_OpgenFusedConv2D", "matmul": "_OpgenFusedMatMul",
         "depthwise": "_OpgenFusedDepthwiseConv2dNative"}


@pytest.mark.parametrize("activation", ACTIVATION_OPS + ["Swish"])
@pytest.mark.parametrize("kind", sorted(FUSED))
def test_fused_kernels_on_the_gpu_match_the_cpu(activation, kind):
    rng = np.random.default_rng(11)
    xv = rng.standard_normal((3, 5) if kind == "matmul" else (2, 9, 9, 4)).astype(np.float32)
    results = {}
    for device, optimize in (("/GPU:0", True), ("/CPU:0", False)):
        g, x, y = _graph(np.random.default_rng(1), kind, activation, device)
        with opgen.Session(g, options=opgen.SessionOptions(optimize=optimize)) as s:
            results[device] = s.run(y, {x: xv})
            if optimize:
                nodes = {n.name: n for n in s.optimized_graph_def(y, [x]).node}
                assert nodes["y"].op == FUSED[kind]
                assert "GPU" in nodes["y"].device
    np.testing.assert_allclose(results["/GPU:0"], results["/CPU:0"], rtol=1e-4, atol=1e-4)
