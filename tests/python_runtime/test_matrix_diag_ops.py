"""MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 (bands k, the four aligns, padding)
and L2Loss: values against a numpy reference written from the ops' definition and
against TensorFlow 2.21 (in its own interpreter, $OPGEN_TF_PYTHON), eagerly and in a
graph, every registered dtype; errors with TensorFlow's messages; gradients against
tf.GradientTape (test_gradient_coverage.py checks them against central differences)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(11)
ALIGNS = ["RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"]
DTYPES = ["float32", "float64", "float16", "int32", "int64", "uint8", "int8", "int16", "uint16",
          "uint32", "uint64", "bool", "complex64", "complex128", "bfloat16"]
# (matrix shape, k): one diagonal, bands across the main one, wide and tall matrices
SHAPES = [((3, 4), 0), ((3, 4), [-1, 2]), ((2, 5, 3), [-2, 0]), ((2, 4, 4), [1, 3]),
          ((1, 3, 6), [-2, -1]), ((6, 2), [-4, 1])]


def _values(shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    if dtype == "bfloat16":
        import ml_dtypes
        return rng.normal(size=shape).astype(ml_dtypes.bfloat16)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 100, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def _band(k):
    return (k, k) if np.isscalar(k) else tuple(k)


def _length(rows, cols, d):
    return min(rows + min(d, 0), cols - max(d, 0))


def _offset(rows, cols, d, max_len, align):
    left = align.split("_")[0 if d >= 0 else 1] == "LEFT"
    return 0 if left else max_len - _length(rows, cols, d)


def diag_part_ref(x, k, pad, align):
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    max_len = max(0, min(rows + min(hi, 0), cols - max(lo, 0)))
    out = np.full(x.shape[:-2] + (hi - lo + 1, max_len), pad, x.dtype)
    for row, d in enumerate(range(hi, lo - 1, -1)):
        off = _offset(rows, cols, d, max_len, align)
        for i in range(_length(rows, cols, d)):
            out[..., row, i + off] = x[..., i + max(-d, 0), i + max(d, 0)]
    return out if hi > lo else out[..., 0, :]


def set_diag_ref(x, diag, k, align):
    lo, hi = _band(k)
    rows, cols = x.shape[-2:]
    out = x.copy()
    diag = diag if hi > lo else diag[..., None, :]
    max_len = diag.shape[-1]
    for row, d in enumerate(range(hi, lo - 1, -1)):
        off = _offset(rows, cols, d, max_len, align)
        for i in range(_length(rows, cols, d)):
            out[..., i + max(-d, 0), i + max(d, 0)] = diag[..., row, i + off]
    return out


def diag_ref(diag, k, rows, cols, pad, align):
    lo, hi = _band(k)
    batch = diag.shape[:-2] if hi > lo else diag.shape[:-1]
    return set_diag_ref(np.full(batch + (rows, cols), pad, diag.dtype), diag, k, align)


def _run(op, inputs, attrs=None):
    return execute_op(op, inputs, attrs or {})[0].numpy()


def _in_graph(op, inputs, attrs):
    """The op in a graph, its data inputs fed, k and sizes constants."""
    g = opgen.Graph()
    with g.as_default():
        fed = [i for i, v in enumerate(inputs) if np.asarray(v).ndim > 0 and i != 1 and
               not (op == "MatrixSetDiagV3" and i == 2)]
        nodes = [opgen.ops.placeholder(opgen.as_dtype(np.asarray(v).dtype), shape=np.shape(v))
                 if i in fed else opgen.constant(np.asarray(v)) for i, v in enumerate(inputs)]
        y = g.create_op(op, nodes, attrs).outputs[0]
    return y, opgen.Session(g).run(y, {nodes[i]: inputs[i] for i in fed})


def _pad(dtype):
    return np.array(True if dtype == "bool" else 7, dtype=_values((1,), dtype).dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_part_matches_reference_eager_and_in_a_graph(dtype):
    for shape, k in SHAPES:
        x = _values(shape, dtype)
        for align in ALIGNS:
            want = diag_part_ref(x, k, _pad(dtype), align)
            got = _run("MatrixDiagPartV3", [x, np.int32(k), _pad(dtype)], {"align": align})
            assert got.dtype == x.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{shape} {k} {align}")
        node, value = _in_graph("MatrixDiagPartV3", [x, np.int32(k), _pad(dtype)], {"align": align})
        assert tuple(node.shape) == want.shape
        np.testing.assert_array_equal(value, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_set_diag_and_diag_match_reference_eager_and_in_a_graph(dtype):
    for shape, k in SHAPES:
        x = _values(shape, dtype)
        lo, hi = _band(k)
        for align in ALIGNS:
            diag = _values(diag_part_ref(x, k, _pad(dtype), align).shape, dtype)
            got = _run("MatrixSetDiagV3", [x, diag, np.int32(k)], {"align": align})
            np.testing.assert_array_equal(got, set_diag_ref(x, diag, k, align))
            rows, cols = shape[-2:]
            got = _run("MatrixDiagV3", [diag, np.int32(k), np.int32(rows), np.int32(cols),
                                        _pad(dtype)], {"align": align})
            np.testing.assert_array_equal(got, diag_ref(diag, k, rows, cols, _pad(dtype), align))
        node, value = _in_graph("MatrixSetDiagV3", [x, diag, np.int32(k)], {"align": align})
        assert tuple(node.shape) == x.shape
        np.testing.assert_array_equal(value, set_diag_ref(x, diag, k, align))
        node, value = _in_graph("MatrixDiagV3", [diag, np.int32(k), np.int32(-1), np.int32(cols),
                                                 _pad(dtype)], {"align": align})
        min_rows = diag.shape[-1] - min(hi, 0)
        assert tuple(node.shape) == diag.shape[:-2 if hi > lo else -1] + (min_rows, cols)
        np.testing.assert_array_equal(value, diag_ref(diag, k, min_rows, cols, _pad(dtype), align))


def test_diag_infers_square_and_minimal_sizes():
    d = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = _run("MatrixDiagV3", [d, np.int32([0, 1]), np.int32(-1), np.int32(-1), np.float32(7)])
    np.testing.assert_array_equal(got, [[3, 1, 7], [7, 4, 2], [7, 7, 5]])  # TensorFlow's
    got = _run("MatrixDiagV3", [d[0], np.int32(-2), np.int32(-1), np.int32(-1), np.float32(0)])
    assert got.shape == (5, 5) and np.array_equal(np.diag(got, -2), d[0])


def test_l2_loss_all_dtypes():
    import ml_dtypes
    x = rng.normal(size=(4, 5))
    for dtype, tol in ((np.float64, 1e-14), (np.float32, 1e-6), (np.float16, 1e-3),
                       (ml_dtypes.bfloat16, 1e-2)):
        got = _run("L2Loss", [x.astype(dtype)])
        assert got.dtype == dtype and got.shape == ()
        want = float((x.astype(dtype).astype(np.float64) ** 2).sum() / 2)
        assert abs(float(got) - want) <= tol * want
    assert _run("L2Loss", [np.zeros((0, 3), np.float32)]) == 0


def test_errors_as_tensorflow():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    pad = np.float32(0)
    cases = [
        ("MatrixDiagPartV3", [x, np.int32([2, 1]), pad],
         "lower_diag_index must not be larger than upper_diag_index: 2 > 1"),
        ("MatrixDiagPartV3", [x, np.int32([1, 2, 3]), pad],
         "diag_index must have only one or two elements, received 3 elements"),
        ("MatrixDiagPartV3", [x, np.int32([[1]]), pad],
         r"diag_index must be a scalar or vector, received shape: \[1,1\]"),
        ("MatrixDiagPartV3", [x, np.int32([4, 5]), pad],
         "lower_diag_index is out of bound: 4. It must be between -3 and 4"),
        ("MatrixDiagPartV3", [x, np.int32([0, 4]), pad],
         "upper_diag_index is out of bound: 4. It must be between -3 and 4"),
        ("MatrixDiagPartV3", [x[0], np.int32(0), pad],
         r"input must be at least 2-dim, received shape: \[4\]"),
        ("MatrixDiagV3", [x[:2, :3], np.int32([0, 1]), np.int32(2), np.int32(-1), pad],
         "The number of rows is too small"),
        ("MatrixDiagV3", [x[:2, :3], np.int32([0, 1]), np.int32(5), np.int32(6), pad],
         "The number of rows or columns is not consistent"),
        ("MatrixDiagV3", [x[:2, :3], np.int32([0, 2]), np.int32(-1), np.int32(-1), pad],
         "The number of diagonals provided in the input does not match"),
        ("MatrixDiagV3", [np.float32(1), np.int32(0), np.int32(-1), np.int32(-1), pad],
         r"diagonal must be at least 1-dim, received shape: \[\]"),
        ("MatrixDiagV3", [x[0], np.int32(0), np.int32([3]), np.int32(-1), pad],
         "num_rows must be a scalar"),
        ("MatrixDiagV3", [x[0], np.int32(0), np.int32(-1), np.int32(-1), np.float32([7])],
         "padding_value must be a scalar"),
        ("MatrixSetDiagV3", [x, np.ones((3, 3), np.float32), np.int32([0, 1])],
         "The number of diagonals provided in `diag` is not consistent"),
        ("MatrixSetDiagV3", [x, np.ones((2, 2), np.float32), np.int32([0, 1])],
         r"Diagonal shape: \[2,2\]\nExpected diagonal shape: \[2,3\]"),
        ("MatrixSetDiagV3", [x, np.ones(2, np.float32), np.int32(0)],
         r"Expected diagonal shape: \[3\]"),
    ]
    for op, inputs, message in cases:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            _run(op, inputs)


TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    cases = json.load(open(sys.argv[1]))
    data = dict(np.load(sys.argv[2]))
    out = {}
    for c in cases:
        inputs = {n: tf.constant(data[c["id"] + "/" + n]) if n in c["arrays"] else v
                  for n, v in c["inputs"].items()}
        with tf.GradientTape() as tape:
            for n in c["diff"]:
                tape.watch(inputs[n])
            y = getattr(tf.raw_ops, c["op"])(**inputs, **c["attrs"])
            loss = tf.reduce_sum(y * data[c["id"] + "/w"])
        out[c["id"]] = y.numpy()
        for n, g in zip(c["diff"], tape.gradient(loss, [inputs[n] for n in c["diff"]])):
            out[c["id"] + "/grad/" + n] = g.numpy()
    np.savez(sys.argv[3], **out)
""")


def _tf_cases():
    cases, arrays = [], {}
    for j, (shape, k) in enumerate(SHAPES):
        for align in ALIGNS[:2] if j % 2 else ALIGNS[2:]:
            x = rng.normal(size=shape)
            diag = rng.normal(size=diag_part_ref(x, k, 0.0, align).shape)
            rows, cols = shape[-2:]
            for op, named, diff in (
                    ("MatrixDiagPartV3", {"input": x, "k": k, "padding_value": 0.5}, ["input"]),
                    ("MatrixSetDiagV3", {"input": x, "diagonal": diag, "k": k},
                     ["input", "diagonal"]),
                    ("MatrixDiagV3", {"diagonal": diag, "k": k, "num_rows": rows,
                                      "num_cols": cols, "padding_value": -1.0}, ["diagonal"])):
                key = f"{op}-{j}-{align}"
                arrays_here = [n for n, v in named.items() if isinstance(v, np.ndarray)]
                for n in arrays_here:
                    arrays[f"{key}/{n}"] = named[n]
                cases.append({"id": key, "op": op, "attrs": {"align": align}, "diff": diff,
                              "arrays": arrays_here,
                              "inputs": {n: (None if n in arrays_here else v)
                                         for n, v in named.items()}})
    x = rng.normal(size=(3, 4))
    arrays["L2Loss/t"] = x
    cases.append({"id": "L2Loss", "op": "L2Loss", "attrs": {}, "diff": ["t"], "arrays": ["t"],
                  "inputs": {"t": None}})
    return cases, arrays


TF_CASES, TF_ARRAYS = _tf_cases()


def _opgen_value_and_grads(case):
    """The op in a graph: its value and the gradients of sum(y * w)."""
    g = opgen.Graph()
    with g.as_default():
        nodes, feed = {}, {}
        for n, v in case["inputs"].items():
            if n in case["arrays"]:
                value = TF_ARRAYS[f"{case['id']}/{n}"]
                nodes[n] = opgen.ops.placeholder(opgen.float64, shape=value.shape)
                feed[nodes[n]] = value
            else:
                nodes[n] = opgen.constant(np.float64(v) if isinstance(v, float) else np.int32(v))
        y = g.create_op(case["op"], list(nodes.values()), case["attrs"]).outputs[0]
        w = opgen.ops.placeholder(opgen.float64)
        grads = opgen.gradients(y, [nodes[n] for n in case["diff"]], grad_ys=[w])
    session = opgen.Session(g)
    value = session.run(y, feed)
    feed[w] = TF_ARRAYS[f"{case['id']}/w"] = rng.normal(size=np.shape(value))
    return value, session.run(grads, feed)


@pytest.fixture(scope="module")
def tf_ref():
    tf_python()  # skip before the opgen side's work when there is no TensorFlow
    ours = {c["id"]: _opgen_value_and_grads(c) for c in TF_CASES}
    return ours, run_tf_script(TF_SCRIPT, TF_ARRAYS, TF_CASES)


@pytest.mark.parametrize("case", TF_CASES, ids=[c["id"] for c in TF_CASES])
def test_values_and_gradients_match_tensorflow(case, tf_ref):
    ours, theirs = tf_ref
    value, grads = ours[case["id"]]
    np.testing.assert_allclose(value, theirs[case["id"]], rtol=1e-12, atol=1e-12)
    for n, got in zip(case["diff"], grads):
        np.testing.assert_allclose(got, theirs[f"{case['id']}/grad/{n}"], rtol=1e-12, atol=1e-12,
                                   err_msg=n)
