"""FakeQuantWithMinMax{Args,Vars,VarsPerChannel}, their gradient ops, LRN and LRNGrad on the
CPU against TensorFlow 2.21 (its own interpreter, tests/tf_reference.py; skipped without
it): outputs over shapes, attrs and dtypes, the registered gradients against
tf.GradientTape's, and TensorFlow's messages for bad attrs and inputs."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from nn_extra_reference import Case, check, run_tensorflow

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(4207)
f32 = np.float32


def u(*shape, lo=-4.0, hi=4.0, dtype=f32):
    return rng.uniform(lo, hi, shape).astype(dtype)


def grid(*shape):
    """Values on and between the levels of an 8-bit grid over [-1, 1], and outside it."""
    return (rng.integers(-300, 300, shape) / 127.5).astype(f32)


QUANT_ATTRS = [{}, {"num_bits": 4}, {"num_bits": 2, "narrow_range": True}, {"num_bits": 16},
               {"narrow_range": True}]
RANGES = [(-6.0, 6.0), (-1.0, 1.0), (0.1, 2.3), (-2.5, -0.3), (-0.7, 0.35)]


def fake_quant_cases():
    cases = []
    for i, attrs in enumerate(QUANT_ATTRS):
        for j, (lo, hi) in enumerate(RANGES):
            x = u(3, 5, lo=lo * 1.5 - 0.5, hi=hi * 1.5 + 0.5)
            dy = u(3, 5)
            tag = f"{i}-{j}"
            cases += [
                Case(f"args-{tag}", "FakeQuantWithMinMaxArgs", {"inputs": x}, {**attrs, "min": lo, "max": hi}),
                Case(f"argsgrad-{tag}", "FakeQuantWithMinMaxArgsGradient", {"gradients": dy, "inputs": x},
                     {**attrs, "min": lo, "max": hi}),
                Case(f"vars-{tag}", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(lo), "max": f32(hi)}, attrs),
                Case(f"varsgrad-{tag}", "FakeQuantWithMinMaxVarsGradient",
                     {"gradients": dy, "inputs": x, "min": f32(lo), "max": f32(hi)}, attrs),
            ]
        mins = np.array([r[0] for r in RANGES] + [0.0], f32)
        maxs = np.array([r[1] for r in RANGES] + [0.0], f32)  # the last channel: a zero range
        for shape in [(6,), (4, 6), (2, 3, 2, 6)]:
            x, dy = u(*shape), u(*shape)
            tag = f"{i}-{len(shape)}d"
            cases += [
                Case(f"pc-{tag}", "FakeQuantWithMinMaxVarsPerChannel", {"inputs": x, "min": mins, "max": maxs}, attrs),
                Case(f"pcgrad-{tag}", "FakeQuantWithMinMaxVarsPerChannelGradient",
                     {"gradients": dy, "inputs": x, "min": mins, "max": maxs}, attrs),
            ]
    x, dy = grid(4, 7), u(4, 7)
    cases += [
        # min == max == 0: zeros forward, every gradient to the input; min > max as TF nudges it
        Case("vars-zero", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(0), "max": f32(0)}),
        Case("varsgrad-zero", "FakeQuantWithMinMaxVarsGradient",
             {"gradients": dy, "inputs": x, "min": f32(0), "max": f32(0)}),
        Case("vars-inverted", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(2), "max": f32(1)}),
        Case("varsgrad-inverted", "FakeQuantWithMinMaxVarsGradient",
             {"gradients": dy, "inputs": x, "min": f32(2), "max": f32(1)}),
        Case("args-ties", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"min": -1.0, "max": 1.0}),
        Case("args-empty", "FakeQuantWithMinMaxArgs", {"inputs": np.zeros((0, 3), f32)}),
        Case("pc-empty", "FakeQuantWithMinMaxVarsPerChannel",
             {"inputs": np.zeros((0, 2), f32), "min": np.zeros(2, f32), "max": np.ones(2, f32)}),
        Case("pcgrad-empty", "FakeQuantWithMinMaxVarsPerChannelGradient",
             {"gradients": np.zeros((0, 2), f32), "inputs": np.zeros((0, 2), f32),
              "min": np.zeros(2, f32), "max": np.ones(2, f32)}),
        # errors
        Case("err-args-bits1", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"num_bits": 1}),
        Case("err-args-bits17", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"num_bits": 17}),
        Case("err-args-range", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"min": 1.0, "max": 1.0}),
        Case("err-argsgrad-range", "FakeQuantWithMinMaxArgsGradient", {"gradients": x, "inputs": x},
             {"min": 2.5, "max": -1.0}),
        Case("err-argsgrad-shape", "FakeQuantWithMinMaxArgsGradient", {"gradients": x[:2], "inputs": x}),
        Case("err-vars-bits", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(0), "max": f32(1)},
             {"num_bits": 1}),
        Case("err-vars-min", "FakeQuantWithMinMaxVars", {"inputs": x, "min": np.zeros(1, f32), "max": f32(1)}),
        Case("err-vars-max", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(0), "max": np.ones(2, f32)}),
        Case("err-varsgrad-shape", "FakeQuantWithMinMaxVarsGradient",
             {"gradients": x[:2], "inputs": x, "min": f32(0), "max": f32(1)}),
        Case("err-pc-min", "FakeQuantWithMinMaxVarsPerChannel",
             {"inputs": x, "min": np.zeros(3, f32), "max": np.ones(7, f32)}),
        Case("err-pc-max", "FakeQuantWithMinMaxVarsPerChannel",
             {"inputs": x, "min": np.zeros(7, f32), "max": np.ones(8, f32)}),
        Case("err-pcgrad-shape", "FakeQuantWithMinMaxVarsPerChannelGradient",
             {"gradients": x[:1], "inputs": x, "min": np.zeros(7, f32), "max": np.ones(7, f32)}),
        Case("err-pcgrad-bits", "FakeQuantWithMinMaxVarsPerChannelGradient",
             {"gradients": x, "inputs": x, "min": np.zeros(7, f32), "max": np.ones(7, f32)}, {"num_bits": 17}),
    ]
    # the registered gradients (tf.GradientTape against opgen.GradientTape)
    x, dy = u(5, 4), u(5, 4)
    cases += [
        Case("tape-args", "FakeQuantWithMinMaxArgs", {"inputs": x}, {"min": -2.0, "max": 1.5, "num_bits": 5},
             wrt=["inputs"], dy=dy),
        Case("tape-vars", "FakeQuantWithMinMaxVars", {"inputs": x, "min": f32(-1.5), "max": f32(2.0)},
             {"narrow_range": True}, wrt=["inputs", "min", "max"], dy=dy),
        Case("tape-pc", "FakeQuantWithMinMaxVarsPerChannel",
             {"inputs": x, "min": np.array([-1, -3, 0, -0.5], f32), "max": np.array([1, 0.5, 2, 3], f32)},
             wrt=["inputs", "min", "max"], dy=dy),
    ]
    return cases


def lrn_cases():
    cases = []
    lrn_attrs = [{}, {"depth_radius": 2, "bias": 2.0, "alpha": 1e-4, "beta": 0.75},
                 {"depth_radius": 0, "bias": 0.5, "alpha": 0.3, "beta": 1.0},
                 {"depth_radius": 3, "bias": 1.5, "alpha": 0.2, "beta": 0.3},
                 {"depth_radius": 20, "bias": 1.0, "alpha": 0.5, "beta": 2.0}]
    for i, attrs in enumerate(lrn_attrs):
        for shape in [(2, 3, 2, 7), (1, 1, 1, 1), (1, 2, 3, 16)]:
            tag = f"{i}-{shape[-1]}"
            x, dy = u(*shape, lo=-2, hi=2), u(*shape)
            y = rng.uniform(-1, 1, shape).astype(f32)  # LRNGrad reads output_image as given
            cases += [
                Case(f"lrn-{tag}", "LRN", {"input": x}, attrs),
                Case(f"lrngrad-{tag}", "LRNGrad", {"input_grads": dy, "input_image": x, "output_image": y}, attrs),
                Case(f"tape-lrn-{tag}", "LRN", {"input": x}, attrs, wrt=["input"], dy=dy),
            ]
    x = u(2, 2, 3, 9, lo=-2, hi=2, dtype=np.float16)
    cases += [
        Case("lrn-half", "LRN", {"input": x}, {"depth_radius": 2}),
        Case("lrngrad-half", "LRNGrad", {"input_grads": x, "input_image": x, "output_image": x[::-1]},
             {"depth_radius": 2}),
        Case("lrn-empty", "LRN", {"input": np.zeros((0, 2, 2, 3), f32)}),
        Case("err-lrn-rank", "LRN", {"input": u(2, 3, 4)}),
        Case("err-lrn-radius", "LRN", {"input": u(1, 1, 2, 3)}, {"depth_radius": -1}),
        Case("err-lrn-radius-big", "LRN", {"input": u(1, 1, 2, 3)}, {"depth_radius": 2 ** 40}),
        Case("err-lrngrad-rank", "LRNGrad", {"input_grads": u(2, 3), "input_image": u(2, 3), "output_image": u(2, 3)}),
        Case("err-lrngrad-shape", "LRNGrad",
             {"input_grads": u(1, 2, 2, 3), "input_image": u(1, 2, 1, 3), "output_image": u(1, 2, 2, 3)}),
    ]
    return cases


CASES = fake_quant_cases() + lrn_cases()


@pytest.fixture(scope="module")
def tensorflow():
    return run_tensorflow(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_matches_tensorflow(case, tensorflow):
    half = any(v.dtype == np.float16 for v in case.inputs.values())
    # LRN's sums and powers in another order than TensorFlow's band-matrix product
    lrn = case.op.startswith("LRN")
    check(case, tensorflow, rtol=2e-3 if half else 2e-5 if lrn else 1e-6,
          atol=2e-3 if half else 2e-5 if lrn else 1e-6)


def test_fake_quant_levels_are_the_grid():
    """Independent of TensorFlow: every output is a level of the nudged grid over [-1, 1]
    (zero among them), and values inside the range move by at most half a step."""
    x = grid(50)
    y = ops.fake_quant_with_min_max_args(x, min=-1.0, max=1.0).numpy()
    scale = 2.0 / 255
    levels = np.round(y / scale)
    np.testing.assert_allclose(y, levels * scale, atol=1e-6)
    inside = np.abs(x) <= 0.99
    assert np.all(np.abs(y - x)[inside] <= scale / 2 + 1e-6)
    # 2^8 levels, zero one of them: the range nudged to [-127, 128] steps (1 / step rounds down)
    assert levels.min() == -127 and levels.max() == 128


def test_graph_gradients_of_fake_quant_vars():
    """TF_AddGradients builds the same three gradients the tape does."""
    x, dy = u(3, 4), u(3, 4)
    g = opgen.Graph()
    with g.as_default():
        xp = ops.placeholder(opgen.float32, shape=[3, 4])
        lo = ops.placeholder(opgen.float32, shape=[])
        hi = ops.placeholder(opgen.float32, shape=[])
        y = ops.fake_quant_with_min_max_vars(xp, lo, hi)
        grads = opgen.gradients(ops.mul(y, dy), [xp, lo, hi])
    got = opgen.Session(g).run(grads, {xp: x, lo: f32(-1), hi: f32(2)})
    want = ops.fake_quant_with_min_max_vars_gradient(dy, x, f32(-1), f32(2))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b.numpy())


def test_fake_quant_gradient_ops_are_not_differentiable():
    """As TensorFlow declares them: no gradient flows through them (None), and no error."""
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[2])
        y = ops.fake_quant_with_min_max_args_gradient(x, x)
        grads = opgen.gradients(ops.sum(y, np.array([0], np.int32)), [x])
    assert grads == [None]
