"""opgen.gradients against TensorFlow's tf.GradientTape: each case is one op on fixed
inputs, differentiated as d(sum(w * y))/dx with the same weights w on both sides
(TensorFlow runs once, in the interpreter $OPGEN_TF_PYTHON names; skipped without one)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opgen
from tf_reference import run_tf, tf_python

HERE = Path(__file__).resolve().parent
rng = np.random.default_rng(11)


def _u(shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape)


def _case(op, inputs, attrs=None, diff=None, list_arg=False, output=0, tol=None):
    return {"op": op, "inputs": [np.asarray(v) for v in inputs], "attrs": attrs or {},
            "diff": list(range(len(inputs))) if diff is None else diff,
            "list_arg": list_arg, "output": output, "tol": tol}


def _cases():
    cases = []
    for op in ["AddV2", "Sub", "Mul", "RealDiv", "Div", "SquaredDifference", "Pow",
               "Maximum", "Minimum", "FloorMod"]:
        lo = 0.5 if op in ("RealDiv", "Div", "Pow", "FloorMod") else -1.0
        cases.append(_case(op, [_u((2, 3), lo, 2.0), _u((3,), lo, 2.0)]))
    for op, lo, hi in [("Neg", -1, 1), ("Abs", 0.2, 1), ("Square", -1, 1), ("Sqrt", 0.5, 2),
                       ("Rsqrt", 0.5, 2), ("Exp", -1, 1), ("Log", 0.5, 2), ("Log1p", -0.5, 1),
                       ("Sin", -2, 2), ("Cos", -2, 2), ("Tanh", -2, 2), ("Sigmoid", -3, 3),
                       ("Reciprocal", 0.5, 2), ("Erf", -1, 1), ("Erfc", -1, 1),
                       ("Softplus", -3, 3), ("Sign", 0.1, 1), ("Floor", 0.1, 0.9),
                       ("Softmax", -2, 2), ("LogSoftmax", -2, 2), ("Identity", -1, 1)]:
        cases.append(_case(op, [_u((2, 3), lo, hi)]))
    x = rng.permutation(np.linspace(-2, 2, 12)).reshape(2, 3, 2)
    for op in ["Sum", "Mean", "Max", "Min"]:
        for keep in (False, True):
            cases.append(_case(op, [x, np.int32([0, 2])], {"keep_dims": keep}, diff=[0]))
    for ta in (False, True):
        for tb in (False, True):
            cases.append(_case("MatMul", [_u((3, 2) if ta else (2, 3)), _u((4, 3) if tb else (3, 4))],
                               {"transpose_a": ta, "transpose_b": tb}))
    cases.append(_case("BatchMatMulV2", [_u((2, 2, 3)), _u((3, 4))]))
    cases.append(_case("BatchMatMulV2", [_u((1, 3, 2)), _u((2, 3, 2))], {"adj_x": True}))
    cases.append(_case("Reshape", [_u((2, 3)), np.int32([3, 2])], diff=[0]))
    cases.append(_case("ExpandDims", [_u((2, 3)), np.int32(-1)], diff=[0]))
    cases.append(_case("Squeeze", [_u((2, 1, 3))], {"axis": [1]}))
    cases.append(_case("Transpose", [_u((2, 3, 4)), np.int32([1, 2, 0])], diff=[0]))
    cases.append(_case("AddN", [_u((2, 2)), _u((2, 2)), _u((2, 2))], list_arg=True))
    cases.append(_case("Cast", [_u((2, 3))], {"DstT": "dtype:float32"}))
    cond = np.array([[True, False, True], [False, True, True]])
    cases.append(_case("SelectV2", [cond[0], _u((2, 3)), _u((1, 3))], diff=[1, 2]))
    cases.append(_case("Select", [cond, _u((2, 3)), _u((2, 3))], diff=[1, 2]))
    cases.append(_case("ClipByValue", [np.array([[-2.0, -0.5, 0.3], [0.9, 2.5, -0.2]]),
                                       np.array([[-1.0, -0.6, 0.5], [0.0, 0.1, -1.0]]),
                                       np.array(0.8)]))
    cases += _nn_cases()
    cases += _array_cases()
    cases += _special_math_cases()  # last: the earlier cases keep their random values
    return cases


def _special_math_cases():
    cases = []
    for op, lo, hi in [("Tan", -1, 1), ("Asin", -0.8, 0.8), ("Acos", -0.8, 0.8),
                       ("Atan", -2, 2), ("Sinh", -2, 2), ("Cosh", -2, 2), ("Asinh", -2, 2),
                       ("Acosh", 1.2, 3), ("Atanh", -0.8, 0.8), ("Lgamma", 0.3, 4),
                       ("Erfinv", -0.9, 0.9), ("Ndtri", 0.05, 0.9), ("BesselI0e", -3, 3),
                       ("BesselI1e", -3, 3)]:
        cases.append(_case(op, [_u((2, 3), lo, hi)]))
    for op in ["Atan2", "Xlogy", "Xdivy", "Xlog1py", "MulNoNan", "NextAfter"]:
        x = _u((2, 3), -2.0, 2.0)
        x[0, 0] = 0.0  # the zero-safe ops' gradient to x is 0 there, as TensorFlow's
        cases.append(_case(op, [x, _u((3,), 0.5, 2.0)]))
    # The incomplete gamma and beta family; TensorFlow differentiates only Polygamma's x,
    # Zeta's q and Betainc's x.
    cases.append(_case("Digamma", [_u((2, 3), 0.5, 3)]))
    for op in ("Igamma", "Igammac"):
        cases.append(_case(op, [_u((2, 3), 0.5, 3), _u((3,), 0.5, 3)]))
    cases.append(_case("Polygamma", [np.array([[0.0, 1, 2], [1, 2, 3]]), _u((3,), 0.6, 2)], diff=[1]))
    cases.append(_case("Zeta", [np.array([[2.0, 3, 4], [2.5, 3.5, 6]]), _u((3,), 0.6, 2)], diff=[1]))
    cases.append(_case("Betainc", [_u((2, 3), 0.5, 3), _u((2, 3), 0.5, 3), _u((2, 3), 0.1, 0.9)],
                       diff=[2]))
    return cases


def _distinct(shape, lo=-2.0, hi=2.0):
    return rng.permutation(np.linspace(lo, hi, int(np.prod(shape))) + 0.05).reshape(shape)


def _nn_cases():
    cases = []
    for op, attrs, lo, hi in [("Relu", {}, -2, 2), ("Relu6", {}, -2, 7), ("Elu", {}, -2, 2),
                              ("Selu", {}, -2, 2), ("Softsign", {}, -2, 2),
                              ("LeakyRelu", {"alpha": 0.3}, -2, 2)]:
        cases.append(_case(op, [_distinct((2, 3), lo, hi)], attrs))
    cases.append(_case("BiasAdd", [_u((2, 3, 4)), _u((4,))]))
    cases.append(_case("BiasAddGrad", [_u((2, 3, 2, 2))], {"data_format": "NCHW"}))
    for op in ("TanhGrad", "SigmoidGrad"):
        cases.append(_case(op, [_u((2, 3), 0.1, 0.9), _u((2, 3))]))
    for op in ("ReluGrad", "Relu6Grad"):
        cases.append(_case(op, [_u((2, 3)), _distinct((2, 3), -2, 7)]))
    cases.append(_case("BiasAdd", [_u((2, 3, 2, 2)), _u((3,))], {"data_format": "NCHW"}))
    logits, labels = _u((3, 4), -2, 2), rng.dirichlet(np.ones(4), 3)
    cases.append(_case("SoftmaxCrossEntropyWithLogits", [logits, labels]))
    cases.append(_case("SoftmaxCrossEntropyWithLogits", [logits, labels], output=1))
    cases.append(_case("SparseSoftmaxCrossEntropyWithLogits", [logits, np.int32([0, 3, 1])], diff=[0]))
    cases.append(_case("SparseSoftmaxCrossEntropyWithLogits", [logits, np.int64([2, 2, 0])], diff=[0],
                       output=1))
    for strides, padding, dilations in [([1, 1, 1, 1], "VALID", [1, 1, 1, 1]),
                                        ([1, 2, 2, 1], "SAME", [1, 1, 1, 1])]:
        # (TensorFlow's CPU backprop kernels refuse dilations: the numeric checker has them)
        attrs = {"strides": strides, "padding": padding, "dilations": dilations}
        cases.append(_case("Conv2D", [_u((2, 5, 4, 2)), _u((2, 2, 2, 3))], attrs))
        cases.append(_case("DepthwiseConv2dNative", [_u((1, 5, 4, 2)), _u((2, 2, 2, 2))], attrs))
    cases.append(_case("Conv2D", [_u((1, 4, 4, 2)), _u((2, 2, 2, 2))],
                       {"strides": [1, 1, 2, 1], "padding": "EXPLICIT",
                        "explicit_paddings": [0, 0, 1, 0, 0, 2, 0, 0]}))
    cases.append(_case("Conv2DBackpropInput", [np.int32([1, 5, 5, 2]), _u((3, 3, 2, 3)), _u((1, 3, 3, 3))],
                       {"strides": [1, 2, 2, 1], "padding": "SAME"}, diff=[1, 2]))
    cases.append(_case("Conv2DBackpropFilter", [_u((1, 5, 5, 2)), np.int32([3, 3, 2, 3]), _u((1, 3, 3, 3))],
                       {"strides": [1, 2, 2, 1], "padding": "SAME"}, diff=[0, 2]))
    cases.append(_case("Conv3D", [_u((1, 3, 4, 3, 2)), _u((2, 2, 2, 2, 2))],
                       {"strides": [1, 1, 2, 1, 1], "padding": "SAME"}))
    for op in ("MaxPool", "AvgPool"):
        for padding in ("VALID", "SAME"):
            cases.append(_case(op, [_distinct((2, 5, 4, 2))],
                               {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": padding}))
    for op in ("MaxPool3D", "AvgPool3D"):  # float32: their only kernels beside bfloat16
        for padding in ("VALID", "SAME"):
            cases.append(_case(op, [np.float32(_distinct((2, 4, 5, 3, 2)))],
                               {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 2, 1, 1], "padding": padding},
                               tol=1e-5))
    for attrs in ({}, {"align_corners": True}, {"half_pixel_centers": True}):
        cases.append(_case("ResizeBicubic", [_u((2, 3, 4, 2)), np.int32([5, 7])], attrs, diff=[0]))
    for op in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
        for training in (True, False):
            for fmt in ("NHWC", "NCHW"):
                x = np.float32(_u((2, 2, 3, 3) if fmt == "NHWC" else (2, 3, 2, 3)))
                stats = [np.zeros(0, np.float32)] * 2 if training else [
                    np.float32(_u((3,))), np.float32(_u((3,), 0.5, 1.5))]
                cases.append(_case(op, [x, np.float32(_u((3,), 0.5, 1.5)), np.float32(_u((3,)))] + stats,
                                   {"is_training": training, "data_format": fmt, "epsilon": 0.001},
                                   diff=[0, 1, 2], tol=1e-4))
    return cases


def _array_cases():
    u = _u
    c = _case
    return [
        c("ConcatV2", [u((2, 3)), u((2, 2)), np.int32(1)], diff=[0, 1], list_arg=2),
        c("Split", [np.int32(1), u((2, 4))], {"num_split": 2}, diff=[1], output=1),
        c("SplitV", [u((5, 2)), np.int32([2, -1]), np.int32(0)], {"num_split": 2}, diff=[0]),
        c("Pack", [u((2, 3)), u((2, 3))], {"axis": 1}, list_arg=True),
        c("Unpack", [u((2, 3, 2))], {"num": 3, "axis": 1}, output=2),
        c("Slice", [u((3, 4)), np.int32([1, 0]), np.int32([2, -1])], diff=[0]),
        c("StridedSlice", [u((4, 5)), np.int32([3, 0]), np.int32([0, 5]), np.int32([-1, 2])], diff=[0]),
        c("StridedSlice", [u((4, 5, 2)), np.int64([1, 0]), np.int64([2, 0]), np.int64([1, 1])],
          {"shrink_axis_mask": 1, "ellipsis_mask": 2}, diff=[0]),
        c("Pad", [u((2, 3)), np.int32([[1, 0], [2, 1]])], diff=[0]),
        c("MirrorPad", [u((3, 4)), np.int32([[1, 2], [2, 1]])], {"mode": "REFLECT"}, diff=[0]),
        c("MirrorPad", [u((3, 4)), np.int32([[1, 2], [2, 0]])], {"mode": "SYMMETRIC"}, diff=[0]),
        c("Tile", [u((2, 3)), np.int32([2, 3])], diff=[0]),
        c("BroadcastTo", [u((3, 1)), np.int32([2, 3, 4])], diff=[0]),
        c("Fill", [np.int32([2, 3]), u(())], diff=[1]),
        c("GatherV2", [u((4, 3)), np.int32([[0, 2], [2, 3]]), np.int32(0)], diff=[0]),
        c("GatherV2", [u((2, 4, 3)), np.int64([3, 0, 3]), np.int32(1)], diff=[0]),
        c("TopKV2", [_distinct((2, 3, 4)), np.int32(2)], diff=[0]),
        c("Cumsum", [u((3, 4)), np.int32(1)], {"exclusive": True}, diff=[0]),
        c("Cumsum", [u((3, 4)), np.int32(0)], {"reverse": True}, diff=[0]),
        c("Cumprod", [u((3, 4), 0.5, 1.5), np.int32(1)], {"exclusive": True, "reverse": True}, diff=[0]),
        c("Einsum", [u((2, 3, 3)), u((3, 4))], {"equation": "bij,jk->bk"}, list_arg=True),
        c("Einsum", [u((2, 3)), u((4,))], {"equation": "ij,k->ikj"}, list_arg=True),
        c("SpaceToDepth", [u((1, 4, 4, 2))], {"block_size": 2}),
        c("DepthToSpace", [u((1, 2, 2, 8))], {"block_size": 2}),
        c("SpaceToBatchND", [u((1, 4, 3, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])], diff=[0]),
        c("BatchToSpaceND", [u((4, 2, 2, 1)), np.int32([2, 2]), np.int32([[0, 0], [1, 0]])], diff=[0]),
        c("ResizeBilinear", [np.float32(u((1, 3, 3, 2))), np.int32([5, 4])], {"half_pixel_centers": True},
          diff=[0]),
        c("ResizeBilinear", [np.float32(u((1, 3, 3, 2))), np.int32([5, 4])], {"align_corners": True},
          diff=[0]),
        c("ResizeNearestNeighbor", [u((1, 3, 3, 2)), np.int32([5, 4])], diff=[0]),
        c("ResizeNearestNeighbor", [u((1, 3, 3, 2)), np.int32([5, 4])], {"half_pixel_centers": True},
          diff=[0]),
    ]


CASES = _cases()


def _arranged(inputs, list_arg):
    """The op's inputs: all in one list arg (True), the leading `list_arg` of them, or none."""
    if list_arg is True:
        return [list(inputs)]
    if list_arg:
        return [list(inputs[:list_arg])] + list(inputs[list_arg:])
    return list(inputs)


def _opgen_grads(case):
    g = opgen.Graph()
    with g.as_default():
        node_inputs, xs = [], []
        for i, v in enumerate(case["inputs"]):
            if i in case["diff"]:
                ph = opgen.ops.placeholder(opgen.as_dtype(v.dtype), shape=list(v.shape))
                xs.append(ph)
                node_inputs.append(ph)
            else:
                node_inputs.append(g.create_op("Const", [], {"dtype": opgen.as_dtype(v.dtype),
                                                             "value": v}).outputs[0])
        attrs = {k: (opgen.as_dtype(v[6:]) if isinstance(v, str) and v.startswith("dtype:") else v)
                 for k, v in case["attrs"].items()}
        if case["op"] == "Squeeze":
            attrs = {"squeeze_dims": attrs.pop("axis")}
        op = g.create_op(case["op"], _arranged(node_inputs, case["list_arg"]), attrs)
        y = op.outputs[case["output"]]
        w = opgen.ops.placeholder(y.dtype)
        grads = opgen.gradients(y, xs, grad_ys=w)
    feed = {x: case["inputs"][i] for x, i in zip(xs, case["diff"])}
    feed[w] = case["w"].astype(y.dtype.as_numpy_dtype)
    s = opgen.Session(g)
    return [None if gr is None else s.run(gr, feed) for gr in grads]


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    tf_python()  # skips before the cases are built when there is no TensorFlow
    folder = tmp_path_factory.mktemp("tf_gradients")
    arrays, docs = {}, []
    for c, case in enumerate(CASES):
        for i, v in enumerate(case["inputs"]):
            arrays[f"c{c}_in{i}"] = v
        # the forward output's shape, from opgen, to size the weights
        y = opgen.execute_op(case["op"], _arranged(case["inputs"], case["list_arg"]),
                             {k: (opgen.as_dtype(v[6:]) if isinstance(v, str) and v.startswith("dtype:") else v)
                              for k, v in (case["attrs"] if case["op"] != "Squeeze"
                                           else {"squeeze_dims": case["attrs"]["axis"]}).items()})
        if isinstance(y, (list, tuple)):  # outputs, a list output arg as a nested list
            flat = [t for o in y for t in (o if isinstance(o, (list, tuple)) else [o])]
            y = flat[case["output"]]
        case["w"] = rng.uniform(0.5, 1.5, np.shape(y.numpy()))
        arrays[f"c{c}_w"] = case["w"]
        docs.append({k: case[k] for k in ("op", "attrs", "diff", "list_arg", "output")}
                    | {"num_inputs": len(case["inputs"])})
    arrays["cases"] = np.frombuffer(json.dumps(docs).encode(), np.uint8)
    np.savez(folder / "cases.npz", **arrays)
    run_tf([HERE / "tf_gradient_runner.py", folder / "cases.npz", folder / "results.npz"],
           cwd=folder)
    return dict(np.load(folder / "results.npz"))


@pytest.mark.parametrize("c", range(len(CASES)),
                         ids=[f"{c['op']}-{n}" for n, c in enumerate(CASES)])
def test_gradient_matches_tensorflow(c, tf_results):
    case = CASES[c]
    got = _opgen_grads(case)
    for k, gr in enumerate(got):
        want = tf_results.get(f"c{c}_g{k}")
        if want is None:
            assert gr is None or not np.any(gr), f"{case['op']}: TensorFlow gives None for input {k}"
            continue
        assert gr is not None, f"{case['op']}: opgen gives None for input {k}, TensorFlow {want}"
        tol = case["tol"] or 1e-5
        np.testing.assert_allclose(gr, want, rtol=tol, atol=tol / 10, err_msg=f"{case['op']} input {k}")
