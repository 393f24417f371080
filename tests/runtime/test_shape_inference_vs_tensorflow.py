"""Partially known inputs, compared with TensorFlow's own shape inference.

Each case builds one node from inputs whose dims, ranks or values are partly unknown.
TensorFlow (run in its own interpreter: $OPGEN_TF_PYTHON;
skipped when absent) builds the same node in a graph; opgen's answer must know at least
what TensorFlow's does, and agree with it wherever both know a dim. Nodes TensorFlow
refuses while building the graph, opgen must refuse too."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tf_reference import run_tf, tf_python

I32 = np.int32

TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_library, op_def_registry

def attr_default(value):
    kind = value.WhichOneof("value")
    if kind == "list":
        return list(value.list.i) or list(value.list.s)
    if kind == "s":
        return value.s.decode()
    return getattr(value, kind)

def tensor(spec):
    dtype = tf.as_dtype(spec["dtype"])
    if "value" in spec:
        return tf.constant(np.array(spec["value"], dtype=dtype.as_numpy_dtype))
    return tf.compat.v1.placeholder(dtype, spec["shape"])

results = []
for case in json.load(sys.stdin):
    with tf.Graph().as_default():
        kwargs = {name: [tensor(s) for s in arg] if isinstance(arg, list) else tensor(arg)
                  for name, arg in case["args"].items()}
        for name, value in case["attrs"].items():
            is_dtype = isinstance(value, str) and value.startswith("dtype:")
            kwargs[name] = tf.as_dtype(value[6:]) if is_dtype else value
        for attr in op_def_registry.get(case["op"]).attr:  # defaults, as TF's wrappers pass them
            if attr.name in kwargs or "type" in attr.type or not attr.HasField("default_value"):
                continue
            kwargs[attr.name] = attr_default(attr.default_value)
        try:
            op = op_def_library._apply_op_helper(case["op"], **kwargs)[2]
            results.append({"shapes": [t.shape.as_list() if t.shape.rank is not None else None
                                       for t in op.outputs]})
        except (ValueError, TypeError, tf.errors.OpError) as e:
            results.append({"error": str(e).splitlines()[0]})
print(json.dumps(results))
"""


class P:
    """An input of unknown value: a shape (None: unknown rank; None dims) and a dtype."""

    def __init__(self, shape, dtype="float32"):
        self.shape, self.dtype = shape, dtype


def c(value):
    """A constant int32 input."""
    return np.array(value, I32)


WINDOW = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}

# (op, {arg name: input or list of inputs}, attrs)
CASES = [
    ("AddV2", {"x": P([None, 1]), "y": P([5, None])}, {}),
    ("AddV2", {"x": P([None, 3]), "y": P([3])}, {}),
    ("Mul", {"x": P(None), "y": P([3])}, {}),
    ("Mul", {"x": P([2, None]), "y": P([7, 1, 1])}, {}),
    ("Less", {"x": P([None, None]), "y": P([1, 4])}, {}),
    ("Equal", {"x": P([2, 3]), "y": P([4])}, {"incompatible_shape_error": False}),
    ("NotEqual", {"x": P([2, None]), "y": P([4])}, {"incompatible_shape_error": False}),
    ("SelectV2", {"condition": P([None, 1], "bool"), "t": P([3]), "e": P([2, None, None])}, {}),
    ("ClipByValue", {"t": P([None, 3]), "clip_value_min": P([]), "clip_value_max": P([])}, {}),
    ("AddN", {"inputs": [P([None, 3]), P([2, None])]}, {}),
    ("Relu", {"features": P([None, 3])}, {}),
    ("Softmax", {"logits": P(None)}, {}),
    ("Cast", {"x": P([None, 2])}, {"DstT": "dtype:int32"}),
    ("ZerosLike", {"x": P([None, 2])}, {}),
    ("Sum", {"input": P([2, None, 4]), "reduction_indices": c([1])}, {"keep_dims": True}),
    ("Sum", {"input": P([2, None, 4]), "reduction_indices": c([-1, 0])}, {}),
    ("Mean", {"input": P([2, 3]), "reduction_indices": P([1], "int32")}, {"keep_dims": True}),
    ("Max", {"input": P(None), "reduction_indices": c([0])}, {}),
    ("ArgMax", {"input": P([2, None, 4]), "dimension": c(1)}, {}),
    ("ArgMin", {"input": P([2, 3, 4]), "dimension": P([], "int32")}, {}),
    ("MatMul", {"a": P([None, 3]), "b": P([3, None])}, {}),
    ("MatMul", {"a": P(None), "b": P([4, 5])}, {"transpose_b": True}),
    ("BatchMatMulV2", {"x": P([None, 2, 3]), "y": P([1, 3, 4])}, {}),
    ("BatchMatMulV2", {"x": P([5, None, 2, 3]), "y": P([None, 3, 4])}, {"adj_x": False}),
    ("BiasAdd", {"value": P([2, None]), "bias": P([5])}, {}),
    ("Reshape", {"tensor": P([None, 4]), "shape": c([-1, 2])}, {}),
    ("Reshape", {"tensor": P([2, None]), "shape": c([3, -1])}, {}),
    ("Reshape", {"tensor": P([None, 4]), "shape": P([3], "int32")}, {}),
    ("Reshape", {"tensor": P([2, 3]), "shape": c([6])}, {}),
    ("Transpose", {"x": P([None, 3, 4]), "perm": c([2, 0, 1])}, {}),
    ("Transpose", {"x": P([None, 3]), "perm": P([2], "int32")}, {}),
    ("ExpandDims", {"input": P([None, 3]), "dim": c(-1)}, {}),
    ("ExpandDims", {"input": P([2, 3]), "dim": P([], "int32")}, {}),
    ("Squeeze", {"input": P([2, None, 1])}, {}),
    ("Squeeze", {"input": P([2, None, 1])}, {"squeeze_dims": [2]}),
    ("Squeeze", {"input": P([1, None])}, {"squeeze_dims": [0]}),
    ("ConcatV2", {"values": [P([2, None]), P([2, 4])], "axis": c(1)}, {}),
    ("ConcatV2", {"values": [P([None, 3]), P([2, 4])], "axis": P([], "int32")}, {}),
    ("ConcatV2", {"values": [P([2, 3]), P(None)], "axis": c(0)}, {}),
    ("Pack", {"values": [P([None, 3]), P([2, None])]}, {"axis": 1}),
    ("Unpack", {"value": P([None, 3])}, {"num": 3, "axis": 1}),
    ("Slice", {"input": P([None, 5]), "begin": c([0, 1]), "size": c([-1, 2])}, {}),
    ("Slice", {"input": P([4, 5]), "begin": P([2], "int32"), "size": c([2, -1])}, {}),
    ("StridedSlice", {"input": P([None, 5]), "begin": c([0, 1]), "end": c([0, 3]),
                      "strides": c([1, 1])}, {"begin_mask": 1, "end_mask": 1}),
    ("StridedSlice", {"input": P([4, None]), "begin": c([1]), "end": c([3]),
                      "strides": c([1])}, {}),
    ("StridedSlice", {"input": P([6, 5]), "begin": c([-1, 0]), "end": c([0, 5]),
                      "strides": c([-2, 2])}, {"end_mask": 1}),
    ("StridedSlice", {"input": P([6, 5, 4]), "begin": c([0, 2]), "end": c([0, 3]),
                      "strides": c([1, 1])}, {"ellipsis_mask": 1, "shrink_axis_mask": 2}),
    ("Pad", {"input": P([None, 3]), "paddings": c([[1, 1], [2, 2]])}, {}),
    ("Pad", {"input": P([2, 3]), "paddings": P([2, 2], "int32")}, {}),
    ("Tile", {"input": P([None, 3]), "multiples": c([2, 2])}, {}),
    ("Tile", {"input": P([2, 3]), "multiples": P([2], "int32")}, {}),
    ("GatherV2", {"params": P([5, None]), "indices": P([7], "int32"), "axis": c(0)}, {}),
    ("GatherV2", {"params": P([5, 4]), "indices": P([None, 2], "int32"), "axis": c(1)}, {}),
    ("Range", {"start": c(1), "limit": c(11), "delta": c(3)}, {}),
    ("Range", {"start": P([], "int32"), "limit": c(5), "delta": c(1)}, {}),
    ("Fill", {"dims": c([2, 3]), "value": P([])}, {}),
    ("Fill", {"dims": P([2], "int32"), "value": P([])}, {}),
    ("Shape", {"input": P([None, 3])}, {}),
    ("Size", {"input": P(None)}, {}),
    ("Rank", {"input": P([None])}, {}),
    ("Conv2D", {"input": P([None, None, None, 3]), "filter": P([3, 3, 3, 8])},
     {"strides": [1, 2, 2, 1], "padding": "SAME"}),
    ("Conv2D", {"input": P([1, 10, None, 3]), "filter": P([3, 3, 3, 8])},
     {"strides": [1, 1, 1, 1], "padding": "VALID"}),
    ("MaxPool", {"input": P([None, 8, 7, 3])}, WINDOW),
    ("AvgPool", {"value": P([2, None, 8, 3])}, WINDOW),
    ("FusedBatchNormV3", {"x": P([None, 4, 4, None]), "scale": P([3]), "offset": P([None]),
                          "mean": P([0]), "variance": P([0])}, {}),
    # issue 22's gradient kernels
    ("ReluGrad", {"gradients": P([None, 3]), "features": P([2, None])}, {}),
    ("LeakyReluGrad", {"gradients": P(None), "features": P([2, None])}, {}),
    ("BiasAddGrad", {"out_backprop": P([None, 4, 5])}, {"data_format": "NCHW"}),
    ("BiasAddGrad", {"out_backprop": P([None, 4, 5])}, {}),
    ("BiasAddGrad", {"out_backprop": P(None)}, {}),
    ("SoftmaxCrossEntropyWithLogits", {"features": P([None, 3]), "labels": P([2, None])}, {}),
    ("SoftmaxCrossEntropyWithLogits", {"features": P([None, 3]), "labels": P([3])}, {}),
    ("SparseSoftmaxCrossEntropyWithLogits", {"features": P([None, 3]),
                                             "labels": P([4], "int64")}, {}),
    ("UnsortedSegmentSum", {"data": P([4, None, 3]), "segment_ids": P([None], "int32"),
                            "num_segments": c(5)}, {}),
    ("UnsortedSegmentSum", {"data": P([4, 2, 3]), "segment_ids": P([4, 2], "int32"),
                            "num_segments": P([], "int32")}, {}),
    ("ConcatOffset", {"concat_dim": c(1), "shape": [P([3], "int32"), P([None], "int32")]}, {}),
    ("InvertPermutation", {"x": P([None], "int32")}, {}),
    ("StridedSliceGrad", {"shape": c([2, 3]), "begin": c([0]), "end": c([1]), "strides": c([1]),
                          "dy": P([1, 3])}, {}),
    ("StridedSliceGrad", {"shape": P([3], "int32"), "begin": c([0]), "end": c([1]),
                          "strides": c([1]), "dy": P(None)}, {}),
    ("MirrorPadGrad", {"input": P([None, 7]), "paddings": c([[1, 1], [2, 2]])}, {"mode": "REFLECT"}),
    ("MirrorPadGrad", {"input": P([5, 7]), "paddings": P([2, 2], "int32")}, {"mode": "SYMMETRIC"}),
    # text preprocessing and lookup tables (tests/python_runtime/test_text_ops.py)
    ("StringLower", {"input": P([None, 3], "string")}, {}),
    ("StringStrip", {"input": P(None, "string")}, {}),
    ("StaticRegexReplace", {"input": P([2, None], "string")}, {"pattern": "a", "rewrite": "b"}),
    ("RegexReplace", {"input": P([None, 2], "string"), "pattern": P([], "string"),
                      "rewrite": P([], "string")}, {}),
    ("StringSplitV2", {"input": P([None], "string"), "sep": P([], "string")}, {}),
    ("StringNGrams", {"data": P([None], "string"), "data_splits": P([4], "int64")},
     {"separator": " ", "ngram_widths": [1, 2], "left_pad": "", "right_pad": "",
      "pad_width": 0, "preserve_short_sequences": False}),
    ("Substr", {"input": P([None, 3], "string"), "pos": P([], "int32"), "len": P([], "int32")},
     {}),
    ("RaggedTensorToTensor", {"shape": c([-1, 5]), "values": P([None]),
                              "default_value": P([]),
                              "row_partition_tensors": [P([None], "int64")]},
     {"row_partition_types": ["ROW_SPLITS"]}),
    ("RaggedTensorToTensor", {"shape": c(-1), "values": P([None, 3]), "default_value": P([]),
                              "row_partition_tensors": [P([4], "int32")]},
     {"row_partition_types": ["ROW_SPLITS"]}),
    ("RaggedTensorToTensor", {"shape": c([-1, 4]), "values": P([None]), "default_value": P([]),
                              "row_partition_tensors": [P([], "int64"), P([None], "int64")]},
     {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]}),
    ("HashTableV2", {}, {"key_dtype": "dtype:string", "value_dtype": "dtype:int64"}),
    # the everyday string ops (tests/python_runtime/test_everyday_string_ops.py)
    ("StringLength", {"input": P([None, 3], "string")}, {"unit": "UTF8_CHAR"}),
    ("StringToNumber", {"string_tensor": P([2, None], "string")}, {"out_type": "dtype:int64"}),
    ("RegexFullMatch", {"input": P([None, 2], "string"), "pattern": P([], "string")}, {}),
    ("ReduceJoin", {"inputs": P([2, None, 4], "string"), "reduction_indices": c([0, -1])},
     {"keep_dims": False}),
    ("ReduceJoin", {"inputs": P([2, None, 4], "string"), "reduction_indices": c([1])},
     {"keep_dims": True}),
    ("ReduceJoin", {"inputs": P([2, 3], "string"), "reduction_indices": P([None], "int32")},
     {"keep_dims": True}),
    ("UnsortedSegmentJoin", {"inputs": P([4, None, 3], "string"),
                             "segment_ids": P([4, None], "int32"), "num_segments": c(5)}, {}),
    ("UnsortedSegmentJoin", {"inputs": P([4, 3], "string"), "segment_ids": P([4], "int64"),
                             "num_segments": P([], "int32")}, {}),
    ("StringSplit", {"input": P([None], "string"), "delimiter": P([], "string")}, {}),
    ("StringToHashBucket", {"string_tensor": P([None, 2], "string")}, {"num_buckets": 5}),
    ("EncodeBase64", {"input": P([3, None], "string")}, {}),
    ("DecodeBase64", {"input": P(None, "string")}, {}),
]


# Inputs that cannot go together, already visible in their shapes or constant operands.
# (opgen also refuses some nodes TensorFlow leaves to fail at run time: two -1s in a
# Reshape shape, a perm that is not a permutation, a Slice past the end.)
ERROR_CASES = [
    ("AddV2", {"x": P([2, 3]), "y": P([4])}, {}),
    ("ReluGrad", {"gradients": P([2, 3]), "features": P([3, 2])}, {}),
    ("BiasAddGrad", {"out_backprop": P([3])}, {}),
    ("SparseSoftmaxCrossEntropyWithLogits", {"features": P([2, 3]), "labels": P([3], "int64")}, {}),
    ("InvertPermutation", {"x": P([2, 2], "int32")}, {}),
    ("SelectV2", {"condition": P([2], "bool"), "t": P([3]), "e": P([])}, {}),
    ("AddN", {"inputs": [P([2, 3]), P([3, 2])]}, {}),
    ("MatMul", {"a": P([2, 3]), "b": P([4, 5])}, {}),
    ("MatMul", {"a": P([2, 3, 4]), "b": P([4, 5])}, {}),
    ("BatchMatMulV2", {"x": P([2, 3, 4]), "y": P([3, 4, 6])}, {}),
    ("BiasAdd", {"value": P([2, 4]), "bias": P([5])}, {}),
    ("Sum", {"input": P([2, 3]), "reduction_indices": c([2])}, {}),
    ("ArgMax", {"input": P([2, 3]), "dimension": c(-3)}, {}),
    ("Reshape", {"tensor": P([2, 3]), "shape": c([4, -1])}, {}),
    ("Transpose", {"x": P([2, 3]), "perm": c([0, 1, 2])}, {}),
    ("ExpandDims", {"input": P([2, 3]), "dim": c(4)}, {}),
    ("Squeeze", {"input": P([2, 3])}, {"squeeze_dims": [0]}),
    ("ConcatV2", {"values": [P([2, 3]), P([3, 3])], "axis": c(1)}, {}),
    ("ConcatV2", {"values": [P([2, 3]), P([2, 3, 1])], "axis": c(0)}, {}),
    ("Pack", {"values": [P([2, 3]), P([3, 2])]}, {}),
    ("Unpack", {"value": P([2, 3])}, {"num": 3}),
    ("Pad", {"input": P([2, 3]), "paddings": c([[1, 1]])}, {}),
    ("Tile", {"input": P([2, 3]), "multiples": c([2])}, {}),
    ("GatherV2", {"params": P([2, 3]), "indices": P([4], "int32"), "axis": c(2)}, {}),
    ("Range", {"start": c(0), "limit": c(5), "delta": c(0)}, {}),
    ("Fill", {"dims": c([2, 3]), "value": P([2])}, {}),
    ("Conv2D", {"input": P([1, 5, 5, 3]), "filter": P([3, 3, 2, 4])},
     {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ("MaxPool", {"input": P([1, 2, 2, 1])}, {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1],
                                             "padding": "VALID"}),
    ("FusedBatchNormV3", {"x": P([2, 4, 4, 3]), "scale": P([5]), "offset": P([3]),
                          "mean": P([0]), "variance": P([0])}, {}),
]


def random_cases(seed=20261123, rounds=25):
    """Cases with random shapes, partly forgotten, and random constant operands."""
    rng = np.random.default_rng(seed)

    def shape(lo=1, hi=3):
        return [int(d) for d in rng.integers(1, 6, rng.integers(lo, hi + 1))]

    def forget(dims):
        if rng.random() < 0.1:
            return None
        return [None if rng.random() < 0.4 else d for d in dims]

    cases = []
    for _ in range(rounds):
        dims = shape()
        n = len(dims)
        begin = [int(rng.integers(-d - 2, d + 3)) for d in dims]
        end = [int(rng.integers(-d - 2, d + 3)) for d in dims]
        strides = [int(rng.choice([-2, -1, 1, 2])) for _ in dims]
        masks = {"begin_mask": int(rng.integers(0, 1 << n)),
                 "end_mask": int(rng.integers(0, 1 << n))}
        if rng.random() < 0.3:
            masks["shrink_axis_mask"] = 1
            begin[0] = int(rng.integers(-dims[0], dims[0]))
            end[0], strides[0] = begin[0] + 1, 1
        if rng.random() < 0.3:
            masks["ellipsis_mask"] = 1 << (n - 1)
        cases.append(("StridedSlice", {"input": P(forget(dims)), "begin": c(begin), "end": c(end),
                                       "strides": c(strides)}, masks))
        other = [1 if rng.random() < 0.3 else d for d in dims[n - int(rng.integers(0, n + 1)):]]
        cases.append(("AddV2", {"x": P(forget(dims)), "y": P(forget(other))}, {}))
        cases.append(("Reshape", {"tensor": P(forget(dims)), "shape": c([-1] + dims[1:])}, {}))
        cases.append(("Slice", {"input": P(forget(dims)), "begin": c([0] * n),
                                "size": c([-1 if rng.random() < 0.5 else 1 for _ in dims])}, {}))
        cases.append(("Transpose", {"x": P(forget(dims)),
                                    "perm": c([int(p) for p in rng.permutation(n)])}, {}))
        cases.append(("Sum", {"input": P(forget(dims)),
                              "reduction_indices": c([int(rng.integers(-n, n))])},
                      {"keep_dims": bool(rng.random() < 0.5)}))
        cases.append(("Tile", {"input": P(forget(dims)),
                               "multiples": c([int(rng.integers(0, 3)) for _ in dims])}, {}))
        cases.append(("Squeeze", {"input": P(forget([1 if rng.random() < 0.5 else d
                                                     for d in dims]))}, {}))
        axis = int(rng.integers(-n, n))
        cases.append(("ConcatV2", {"values": [P(forget(dims)), P(forget(dims))], "axis": c(axis)},
                      {}))
        cases.append(("GatherV2", {"params": P(forget(dims)), "indices": P(forget(shape(0, 2)),
                                                                         "int32"),
                                   "axis": c(axis)}, {}))
        k, m = (int(x) for x in rng.integers(1, 5, 2))
        cases.append(("BatchMatMulV2", {"x": P(forget(dims[:-1] + [k, m])),
                                        "y": P(forget(other + [m, 3]))}, {}))
    return cases


RANDOM_CASES = random_cases()


def flatten(args):
    inputs, sizes = [], []
    for arg in args.values():
        group = arg if isinstance(arg, list) else [arg]
        inputs.extend(group)
        sizes.append(len(group))
    return inputs, sizes


def to_json(x):
    if isinstance(x, np.ndarray):
        return {"dtype": str(x.dtype), "value": x.tolist()}
    return {"dtype": x.dtype, "shape": x.shape}


@pytest.fixture(scope="module")
def tensorflow_results():
    """TensorFlow's answer to each case of CASES, ERROR_CASES and RANDOM_CASES:
    {"shapes": [...]} or {"error": ...}."""
    tf_python()  # skip before building the cases when there is no TensorFlow
    cases = [{"op": op, "attrs": attrs,
              "args": {k: [to_json(x) for x in v] if isinstance(v, list) else to_json(v)
                       for k, v in args.items()}}
             for op, args, attrs in CASES + ERROR_CASES + RANDOM_CASES]
    run = run_tf(["-c", TF_SCRIPT], input=json.dumps(cases))
    return json.loads(run.stdout.strip().splitlines()[-1])


def refines(ours, theirs) -> bool:
    """Whether shape `ours` knows at least what `theirs` knows and agrees with it."""
    if theirs is None:
        return True
    return ours is not None and len(ours) == len(theirs) and all(
        t is None or o == t for o, t in zip(ours, theirs))


def opgen_shapes(infer_shapes, op, args, attrs, node="node"):
    def dtype(name):  # TensorFlow's "string" is an object array in numpy
        return np.dtype(object if name == "string" else name)
    attrs = {k: dtype(v[6:]) if isinstance(v, str) and v.startswith("dtype:") else v
             for k, v in attrs.items()}
    inputs, sizes = flatten(args)
    inputs = [x if isinstance(x, np.ndarray) else infer_shapes.Partial(x.shape, dtype(x.dtype))
              for x in inputs]
    return infer_shapes(op, inputs, attrs, sizes, node=node)


@pytest.mark.parametrize("index", range(len(CASES)),
                         ids=[f"{i}-{case[0]}" for i, case in enumerate(CASES)])
def test_opgen_knows_what_tensorflow_knows(infer_shapes, tensorflow_results, index):
    op, args, attrs = CASES[index]
    theirs = tensorflow_results[index]
    assert "error" not in theirs, theirs
    ours = opgen_shapes(infer_shapes, op, args, attrs)
    assert len(ours) == len(theirs["shapes"])
    theirs = [None if s is None else tuple(s) for s in theirs["shapes"]]
    assert all(refines(o, t) for o, t in zip(ours, theirs)), (ours, theirs)


@pytest.mark.parametrize("index", range(len(ERROR_CASES)),
                         ids=[f"{i}-{case[0]}" for i, case in enumerate(ERROR_CASES)])
def test_opgen_refuses_what_tensorflow_refuses(infer_shapes, tensorflow_results, index):
    op, args, attrs = ERROR_CASES[index]
    theirs = tensorflow_results[len(CASES) + index]
    assert "error" in theirs, f"TensorFlow accepts this case: {theirs}"
    with pytest.raises(infer_shapes.Error) as e:
        opgen_shapes(infer_shapes, op, args, attrs, node="bad")
    assert e.value.code == 3
    assert e.value.message.startswith(f"{op} node 'bad': "), e.value.message


def test_random_cases_agree_with_tensorflow(infer_shapes, tensorflow_results):
    """Where TensorFlow builds the node, opgen knows at least as much; where it refuses,
    opgen refuses too."""
    disagreements = []
    for (op, args, attrs), theirs in zip(RANDOM_CASES, tensorflow_results[-len(RANDOM_CASES):]):
        try:
            ours = opgen_shapes(infer_shapes, op, args, attrs)
        except infer_shapes.Error as e:
            if "error" not in theirs:
                disagreements.append((op, args, attrs, theirs, e.message))
            continue
        theirs_shapes = [None if s is None else tuple(s) for s in theirs.get("shapes", [])]
        if "error" in theirs or not all(refines(o, t) for o, t in zip(ours, theirs_shapes)):
            disagreements.append((op, args, attrs, theirs, ours))
    assert len(RANDOM_CASES) > 200 and disagreements == []
