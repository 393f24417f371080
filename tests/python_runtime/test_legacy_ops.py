"""The older forms of ops the runtime has in their newer form (Concat, Gather, Reverse,
BatchMatMul, PlaceholderV2, MatrixDiag/MatrixDiagPart/MatrixSetDiag v1 and V2,
SpaceToBatch/BatchToSpace, Segment{Sum,Prod,Max,Min}V2, HistogramFixedWidth), which
frozen graphs of that time hold. Each is compared with TensorFlow 2.21's tf.raw_ops (a
child process) over several shapes and dtypes, its errors with TensorFlow's where the
message is TensorFlow's, its gradient with tf.gradients, and a GraphDef that TensorFlow
writes with these ops is imported and run."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from tf_reference import run_tf_script, tf_python

import opgen
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(1616)
F32, F64, I32, I64 = np.float32, np.float64, np.int32, np.int64


def _values(dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        return rng.normal(size=shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


def _run(op, inputs, attrs=None):
    attrs = {k: opgen.as_dtype(np.dtype(v)) if isinstance(v, type) else v
             for k, v in (attrs or {}).items()}
    return [t.numpy() for t in execute_op(op, inputs, attrs)]


# (op, {input name: value or list of values}, attrs): the names are the OpDef's, so the
# same case runs as tf.raw_ops.<op>(**inputs, **attrs).
CASES = []
for dt in (F32, F64, I32, I64, np.bool_, np.complex64, np.float16):
    CASES += [
        ("Concat", {"concat_dim": I32(1), "values": [_values(dt, (2, 3)), _values(dt, (2, 1))]}, {}),
        ("Concat", {"concat_dim": I32(-1), "values": [_values(dt, (2, 2, 0)), _values(dt, (2, 2, 3)),
                                                      _values(dt, (2, 2, 1))]}, {}),
        ("Concat", {"concat_dim": I32(0), "values": [_values(dt, (1,)), _values(dt, (4,))]}, {}),
        ("Gather", {"params": _values(dt, (5, 3)), "indices": I32([[4, 0], [2, 2]])}, {}),
        ("Gather", {"params": _values(dt, (4,)), "indices": I64([3, 1, 0])},
         {"validate_indices": False}),
        ("Gather", {"params": _values(dt, (3, 2, 2)), "indices": I32(1)}, {}),
        ("Reverse", {"tensor": _values(dt, (2, 3, 4)), "dims": np.array([True, False, True])}, {}),
        ("Reverse", {"tensor": _values(dt, (5,)), "dims": np.array([False])}, {}),
        ("Reverse", {"tensor": _values(dt, (3, 0)), "dims": np.array([True, True])}, {}),
        ("MatrixDiag", {"diagonal": _values(dt, (2, 3))}, {}),
        ("MatrixDiagPart", {"input": _values(dt, (2, 3, 4))}, {}),
        ("MatrixDiagPart", {"input": _values(dt, (4, 2))}, {}),
        ("MatrixSetDiag", {"input": _values(dt, (2, 4, 3)), "diagonal": _values(dt, (2, 3))}, {}),
        ("MatrixDiagV2", {"diagonal": _values(dt, (2, 3, 3)), "k": I32([-1, 1]),
                          "num_rows": I32(-1), "num_cols": I32(-1),
                          "padding_value": _values(dt, ())}, {}),
        ("MatrixDiagV2", {"diagonal": _values(dt, (3,)), "k": I32(1), "num_rows": I32(4),
                          "num_cols": I32(-1), "padding_value": _values(dt, ())}, {}),
        ("MatrixDiagPartV2", {"input": _values(dt, (2, 3, 5)), "k": I32([-2, 1]),
                              "padding_value": _values(dt, ())}, {}),
        ("MatrixSetDiagV2", {"input": _values(dt, (2, 4, 3)), "diagonal": _values(dt, (2, 3, 3)),
                             "k": I32([-1, 1])}, {}),
    ]
for dt in (F32, F64, I32, np.uint8, np.float16):  # TensorFlow's CPU kernels: real types
    CASES += [
        ("SpaceToBatch", {"input": _values(dt, (2, 4, 6, 3)), "paddings": I32([[0, 0], [1, 1]])},
         {"block_size": 2}),
        ("SpaceToBatch", {"input": _values(dt, (1, 5, 4, 1)), "paddings": I64([[2, 2], [1, 1]])},
         {"block_size": 3}),
        ("BatchToSpace", {"input": _values(dt, (8, 2, 3, 2)), "crops": I32([[1, 0], [0, 2]])},
         {"block_size": 2}),
        ("BatchToSpace", {"input": _values(dt, (9, 1, 2, 1)), "crops": I64([[0, 0], [1, 1]])},
         {"block_size": 3}),
    ]
for dt in (F32, F64, I32, I64, np.uint8, np.float16):
    for op in ("SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2"):
        CASES += [
            (op, {"data": _values(dt, (5, 2)), "segment_ids": I32([0, 0, 2, 2, 3]),
                  "num_segments": I32(6)}, {}),
            (op, {"data": _values(dt, (3,)), "segment_ids": I64([1, 1, 1]),
                  "num_segments": I64(2)}, {}),
            (op, {"data": _values(dt, (0, 3)), "segment_ids": I32([]), "num_segments": I32(2)}, {}),
        ]
for dt, lo, hi in ((F32, -1.5, 2.0), (F64, 0.0, 1e-3), (I32, -20, 30), (I64, 0, 7)):
    for out in (I32, I64):
        v = (_values(dt, (4, 7)) * (1e-4 if dt == F64 else 1)).astype(dt)
        CASES += [("HistogramFixedWidth", {"values": v, "value_range": np.array([lo, hi], dt),
                                           "nbins": I32(n)}, {"dtype": out}) for n in (1, 5, 13)]
CASES += [(op, {"data": _values(np.complex64, (4, 2)), "segment_ids": I32([0, 1, 1, 3]),
                "num_segments": I32(4)}, {}) for op in ("SegmentSumV2", "SegmentProdV2")]
for dt in (F32, F64, I32, I64, np.complex128, np.float16):
    CASES += [
        ("BatchMatMul", {"x": _values(dt, (2, 3, 4)), "y": _values(dt, (2, 4, 5))}, {}),
        ("BatchMatMul", {"x": _values(dt, (2, 1, 4, 3)), "y": _values(dt, (2, 1, 5, 4))},
         {"adj_x": True, "adj_y": True}),
        ("BatchMatMul", {"x": _values(dt, (3, 2)), "y": _values(dt, (3, 2))}, {"adj_y": True}),
    ]
# TensorFlow's messages where the check is the same one.
ERROR_CASES = [
    ("BatchMatMul", {"x": _values(F32, (2, 3, 4)), "y": _values(F32, (4, 5))}, {}),
    ("BatchMatMul", {"x": _values(F32, (2, 3, 4)), "y": _values(F32, (3, 4, 5))}, {}),
    ("Reverse", {"tensor": _values(F32, (2, 3)), "dims": np.array([True])}, {}),
    ("MatrixDiagPart", {"input": _values(F32, (3,))}, {}),
    ("MatrixSetDiag", {"input": _values(F32, (2, 3, 3)), "diagonal": _values(F32, (2, 2))}, {}),
    ("SpaceToBatch", {"input": _values(F32, (2, 4, 4)), "paddings": I32([[0, 0], [0, 0]])},
     {"block_size": 2}),
    ("BatchToSpace", {"input": _values(F32, (4, 2, 2)), "crops": I32([[0, 0], [0, 0]])},
     {"block_size": 2}),
    ("HistogramFixedWidth", {"values": F32([1, 2]), "value_range": F32([2, 2]), "nbins": I32(3)}, {}),
    ("HistogramFixedWidth", {"values": F32([1, 2]), "value_range": F32([0, 2]), "nbins": I32(0)}, {}),
    ("HistogramFixedWidth", {"values": F32([1, np.nan]), "value_range": F32([0, 2]), "nbins": I32(2)}, {}),
    ("HistogramFixedWidth", {"values": F32([1, 2]), "value_range": F32([0, 1, 2]), "nbins": I32(2)},
     {}),
    ("MatrixDiagPartV2", {"input": _values(F32, (3, 3)), "k": I32([2, 1]),
                          "padding_value": F32(0)}, {}),
]

TF_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tensorflow as tf
    cases = json.load(open(sys.argv[1]))
    data = np.load(sys.argv[2])
    out = {}
    for i, (op, inputs, attrs) in enumerate(cases):
        kwargs = {name: ([tf.constant(data[k]) for k in key] if isinstance(key, list)
                         else tf.constant(data[key])) for name, key in inputs.items()}
        attrs = {k: tf.as_dtype(v["dtype"]) if isinstance(v, dict) else v for k, v in attrs.items()}
        fn = getattr(tf.raw_ops, op)
        if op.startswith("Segment"):  # Segment*V2: TensorFlow runs them through XLA only
            fn = tf.function(lambda raw=fn, **kw: raw(**kw), jit_compile=True)
        try:
            out[str(i)] = fn(**kwargs, **attrs).numpy()
        except tf.errors.InvalidArgumentError as e:
            out[str(i) + "/error"] = np.array(e.message)
        except Exception as e:  # reported by the case's test
            out[str(i) + "/other"] = np.array(type(e).__name__ + ": " + str(e))
    np.savez(sys.argv[3], **out)
""")


def _tensorflow(cases):
    arrays, spec = {}, []
    for i, (op, inputs, attrs) in enumerate(cases):
        keys = {}
        for name, value in inputs.items():
            if isinstance(value, list):
                keys[name] = [f"{i}-{name}-{j}" for j in range(len(value))]
                arrays.update(zip(keys[name], value))
            else:
                keys[name] = f"{i}-{name}"
                arrays[keys[name]] = value
        spec.append([op, keys, {k: {"dtype": np.dtype(v).name} if isinstance(v, type) else v
                                for k, v in attrs.items()}])
    return run_tf_script(TF_SCRIPT, arrays, spec)


def _inputs(inputs):
    return list(inputs.values())


@pytest.fixture(scope="module")
def tensorflow_results():
    tf_python()
    return _tensorflow(CASES + ERROR_CASES)


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_legacy_op_matches_tensorflow(tensorflow_results, i):
    op, inputs, attrs = CASES[i]
    assert str(i) in tensorflow_results, tensorflow_results.get(f"{i}/other", tensorflow_results.get(f"{i}/error"))
    (got,) = _run(op, _inputs(inputs), attrs)
    want = tensorflow_results[str(i)]
    assert got.dtype == want.dtype and got.shape == want.shape
    # arithmetic: the order (and, for half, the width) of the accumulation differ
    if np.issubdtype(got.dtype, np.inexact) and op in ("BatchMatMul", "SegmentSumV2", "SegmentProdV2"):
        tol = 1e-2 if got.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("i", range(len(ERROR_CASES)), ids=[c[0] for c in ERROR_CASES])
def test_legacy_op_errors_as_tensorflows(tensorflow_results, i):
    op, inputs, attrs = ERROR_CASES[i]
    message = str(tensorflow_results[f"{len(CASES) + i}/error"])
    # TensorFlow's eager decoration: "{{function_node ...}} MESSAGE [Op:NAME] name: "
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    message = re.sub(r" \[Op:\w+\]( name: .*)?$", "", message)
    with pytest.raises(errors.InvalidArgumentError) as info:
        _run(op, _inputs(inputs), attrs)
    assert message in str(info.value)


def test_gather_out_of_range_index_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match=r"index 3 is not in \[0, 3\)"):
        _run("Gather", [np.float32([1, 2, 3]), np.int32([0, 3])])
    with pytest.raises(errors.InvalidArgumentError, match="at least 1 dimensional"):
        _run("Gather", [np.float32(1), np.int32([0])])


def test_concat_axis_out_of_range_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match=r"axis must be a scalar in \[-2, 2\)"):
        _run("Concat", [np.int32(2), [np.float32([[1]]), np.float32([[2]])]])


def test_placeholder_v2_must_be_fed_and_is_deprecated():
    from opgen.protos import op_def_pb2
    from opgen.runtime import _lib
    op_list = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
    op_def = next(o for o in op_list.op if o.name == "PlaceholderV2")
    assert op_def.deprecation.version == 23
    g = opgen.Graph()
    with g.as_default():
        x = g.create_op("PlaceholderV2", [], {"dtype": opgen.float32, "shape": [2]}).outputs[0]
        y = opgen.ops.neg(x)
    assert x.shape == (2,)
    with opgen.Session(g) as s:
        np.testing.assert_array_equal(s.run(y, {x: np.float32([1, -2])}), [-1, 2])
        with pytest.raises(errors.InvalidArgumentError, match="You must feed a value"):
            s.run(y)


CONCAT_GRAD_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorflow as tf
    data = np.load(sys.argv[1])
    with tf.Graph().as_default():
        a, b = tf.constant(data["a"]), tf.constant(data["b"])
        y = tf.raw_ops.Concat(concat_dim=tf.constant(data["axis"]), values=[a, b])
        ga, gb = tf.gradients(y, [a, b], grad_ys=tf.constant(data["w"]))
        with tf.compat.v1.Session() as s:
            ga, gb = s.run([ga, gb])
    np.savez(sys.argv[2], a=ga, b=gb)
""")


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_gradient_matches_tensorflow(axis):
    tf_python()
    a = rng.normal(size=(2, 3))
    b = rng.normal(size=(1, 3) if axis == 0 else (2, 2))
    g = opgen.Graph()
    with g.as_default():
        pa, pb = opgen.constant(a), opgen.constant(b)
        y = g.create_op("Concat", [opgen.constant(np.int32(axis)), [pa, pb]], {}).outputs[0]
        w = rng.normal(size=(3, 3) if axis == 0 else (2, 5))
        grads = opgen.gradients(y, [pa, pb], grad_ys=[opgen.constant(w)])
    with opgen.Session(g) as s:
        got = s.run(grads)
    want = run_tf_script(CONCAT_GRAD_SCRIPT, {"a": a, "b": b, "axis": np.int32(axis), "w": w})
    np.testing.assert_allclose(got[0], want["a"], rtol=1e-12)
    np.testing.assert_allclose(got[1], want["b"], rtol=1e-12)


# ---- a GraphDef that TensorFlow writes with the legacy ops ------------------------------

# TensorFlow refuses to build PlaceholderV2 in a graph of today's GraphDef version (it is
# deprecated from version 23): the graph is built with Placeholder, then made what a
# 2016 frozen graph holds (PlaceholderV2, producer 21), and TensorFlow imports and runs
# that.
GRAPH_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorflow as tf
    data = np.load(sys.argv[1])
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [2, 3, 3], name="x")
        ids = tf.compat.v1.placeholder(tf.int32, [4], name="ids")
        d = tf.raw_ops.MatrixDiagPart(input=x)
        m = tf.raw_ops.MatrixSetDiag(input=x, diagonal=d * 2.0)
        r = tf.raw_ops.Reverse(tensor=m, dims=[False, True, False])
        p = tf.raw_ops.BatchMatMul(x=r, y=x, adj_y=True)
        c = tf.raw_ops.Concat(concat_dim=1, values=[p, tf.raw_ops.MatrixDiag(diagonal=d)])
        band = tf.raw_ops.MatrixDiagPartV2(input=c, k=[-1, 0], padding_value=-1.0)
        rows = tf.raw_ops.Gather(params=tf.reshape(c, [-1, 3]), indices=ids)
        s2b = tf.raw_ops.SpaceToBatch(input=tf.reshape(c, [1, 6, 6, 1]), paddings=[[0, 0], [0, 0]],
                                      block_size=2)
        b2s = tf.raw_ops.BatchToSpace(input=s2b, crops=[[1, 1], [0, 0]], block_size=2)
        seg = tf.reshape(b2s, [4, 6])
        hist = tf.raw_ops.HistogramFixedWidth(values=seg, value_range=[-2.0, 2.0], nbins=7)
        total = tf.reduce_sum(band) + tf.reduce_sum(seg) + tf.cast(tf.reduce_sum(hist * hist), tf.float32)
        tf.identity(total + rows, name="out")
    graph_def = g.as_graph_def()
    for node in graph_def.node:
        if node.name == "x":
            node.op = "PlaceholderV2"
    graph_def.versions.producer = 21
    with tf.Graph().as_default() as legacy:
        tf.graph_util.import_graph_def(graph_def, name="")
        with tf.compat.v1.Session(graph=legacy) as s:
            value = s.run("out:0", {"x:0": data["x"], "ids:0": data["ids"]})
    np.savez(sys.argv[2], graph_def=np.frombuffer(graph_def.SerializeToString(), np.uint8),
             out=value)
""")


def test_tensorflow_graph_with_legacy_ops_imports_and_runs():
    tf_python()
    x = rng.normal(size=(2, 3, 3)).astype(np.float32)
    ids = np.int32([0, 11, 5, 5])
    want = run_tf_script(GRAPH_SCRIPT, {"x": x, "ids": ids})
    graph_def = want["graph_def"].tobytes()
    from opgen.protos import graph_pb2
    types = {n.op for n in graph_pb2.GraphDef.FromString(graph_def).node}
    assert {"PlaceholderV2", "MatrixDiagPart", "MatrixSetDiag", "Reverse", "BatchMatMul",
            "Concat", "MatrixDiag", "MatrixDiagPartV2", "Gather", "SpaceToBatch", "BatchToSpace",
            "HistogramFixedWidth"} <= types
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(g) as s:
        got = s.run(g.get_tensor_by_name("out:0"), {g.get_tensor_by_name("x:0"): x,
                                                    g.get_tensor_by_name("ids:0"): ids})
    np.testing.assert_allclose(got, want["out"], rtol=1e-5, atol=1e-5)


PARALLEL_CONCAT_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorflow as tf
    data = np.load(sys.argv[1])
    with tf.Graph().as_default():
        values = [tf.constant(data[k]) for k in sorted(data.files)]
        y = tf.raw_ops.ParallelConcat(values=values, shape=[len(values)] + list(values[0].shape[1:]))
        with tf.compat.v1.Session() as s:
            out = s.run(y)
    np.savez(sys.argv[2], out=out)
""")


@pytest.mark.parametrize("dtype", [F32, I64, np.bool_])
@pytest.mark.parametrize("shape, n", [((1, 3), 2), ((1,), 4), ((1, 2, 2), 1)])
def test_parallel_concat_matches_tensorflow(dtype, shape, n):
    tf_python()
    values = [_values(dtype, shape) for _ in range(n)]
    want = run_tf_script(PARALLEL_CONCAT_SCRIPT, {f"v{i}": v for i, v in enumerate(values)})["out"]
    (got,) = _run("ParallelConcat", [values], {"shape": [n, *shape[1:]]})
    np.testing.assert_array_equal(got, want)


def test_parallel_concat_values_must_have_a_first_dimension_of_one():
    with pytest.raises(errors.InvalidArgumentError, match="first dimension of 1"):
        _run("ParallelConcat", [[np.float32([[1], [2]])]], {"shape": [1, 1]})


def _shape(op, inputs, attrs=None):
    """The static shape opgen's shape function gives the op's output in a graph (None
    where the rank is unknown); numpy inputs are constants, shapes are placeholders."""
    g = opgen.Graph()
    with g.as_default():
        def node(v):
            if isinstance(v, tuple):  # (dtype, shape): a placeholder
                return opgen.ops.placeholder(opgen.as_dtype(np.dtype(v[0])), shape=v[1])
            return opgen.constant(v)
        nodes = [[node(u) for u in v] if isinstance(v, list) else node(v) for v in inputs]
        out = g.create_op(op, nodes, attrs or {}).outputs[0]
    return None if out.shape is None else list(out.shape)


@pytest.mark.parametrize("op, inputs, attrs, want", [
    ("Concat", [I32(1), [(F32, [2, None]), (F32, [None, 4])]], {}, [2, None]),
    ("Concat", [I32(-1), [(F32, [2, 3]), (F32, [2, 4])]], {}, [2, 7]),
    ("Concat", [(I32, []), [(F32, [2, 3]), (F32, [2, 4])]], {}, [None, None]),
    ("Gather", [(F32, [5, None, 3]), (I32, [2, 4])], {}, [2, 4, None, 3]),
    ("Reverse", [(F32, [2, 3]), np.array([True, False])], {}, [2, 3]),
    ("BatchMatMul", [(F32, [2, 3, 4]), (F32, [2, 4, 5])], {}, [2, 3, 5]),
    ("PlaceholderV2", [], {"dtype": opgen.float32, "shape": [None, 3]}, [None, 3]),
    ("MatrixDiag", [(F32, [2, 3])], {}, [2, 3, 3]),
    ("MatrixDiagPart", [(F32, [2, 3, 5])], {}, [2, 3]),
    ("MatrixDiagPart", [(F32, [2, None, 5])], {}, [2, None]),
    ("MatrixSetDiag", [(F32, [2, 3, 5]), (F32, [2, 3])], {}, [2, 3, 5]),
    ("MatrixDiagPartV2", [(F32, [2, 3, 5]), I32([-1, 1]), F32(0)], {}, [2, 3, 3]),
    ("MatrixDiagV2", [(F32, [3]), I32(1), I32(-1), I32(-1), F32(0)], {}, [4, 4]),
    ("SpaceToBatch", [(F32, [2, 4, 6, 3]), I32([[0, 0], [1, 1]])], {"block_size": 2}, [8, 2, 4, 3]),
    ("BatchToSpace", [(F32, [8, 2, 3, 2]), I32([[1, 0], [0, 2]])], {"block_size": 2}, [2, 3, 4, 2]),
    ("BatchToSpace", [(F32, [8, 2, 3, 2]), (I32, [2, 2])], {"block_size": 2}, [2, None, None, 2]),
    ("SegmentSumV2", [(F32, [5, 2]), (I32, [5]), I32(7)], {}, [7, 2]),
    ("SegmentMaxV2", [(F32, [5, 2]), (I32, [5]), (I32, [])], {}, [None, 2]),
    ("HistogramFixedWidth", [(F32, [4, 5]), F32([0, 1]), I32(6)], {}, [6]),
    ("HistogramFixedWidth", [(F32, [4, 5]), F32([0, 1]), (I32, [])], {}, [None]),
    ("ParallelConcat", [[(F32, [1, None]), (F32, [None, 3])]], {"shape": [2, None]}, [2, 3]),
])
def test_legacy_op_shapes(op, inputs, attrs, want):
    assert _shape(op, inputs, attrs) == want


@pytest.mark.parametrize("op, inputs, attrs", [
    ("SpaceToBatch", [(F32, [2, 4, 6]), I32([[0, 0], [1, 1]])], {"block_size": 2}),
    ("SpaceToBatch", [(F32, [2, 3, 6, 1]), I32([[0, 0], [1, 1]])], {"block_size": 2}),
    ("Concat", [I32(0), [(F32, [2, 3]), (F32, [2, 4])]], {}),
    ("ParallelConcat", [[(F32, [1, 2]), (F32, [1, 3])]], {"shape": [2, 2]}),
    ("ParallelConcat", [[(F32, [1, 2])]], {"shape": [2, 2]}),
    ("HistogramFixedWidth", [(F32, [4]), F32([0, 1]), I32(0)], {}),
    ("MatrixDiagPart", [(F32, [3])], {}),
])
def test_legacy_op_shape_errors(op, inputs, attrs):
    with pytest.raises(errors.InvalidArgumentError):
        _shape(op, inputs, attrs)


# Where TensorFlow's XLA kernels (its only ones) do not check: ids must be sorted and
# below num_segments here, as the CPU checks of Segment* (docs: known differences).
@pytest.mark.parametrize("ids, num, match", [
    ([0, 1, 3], 3, r"Segment id 3 out of range \[0, 3\)|must be < num_segments"),
    ([0, 2, 1], 3, "not increasing"),
    ([0, 1, 1], -1, "must be >= 0"),
])
def test_segment_v2_ids_are_checked(ids, num, match):
    for op in ("SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2"):
        with pytest.raises(errors.InvalidArgumentError, match=match):
            _run(op, [np.float32([1, 2, 3]), np.int32(ids), np.int32(num)])
