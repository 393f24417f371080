"""Roll, ReverseSequence, LinSpace, the Unique family, ListDiff, SparseToDense and
ZerosLike of strings: values against numpy for every registered dtype (strings
included where TensorFlow has them), eagerly and in a graph of fed placeholders, and
against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) for LinSpace's rounding,
Unique's NaN and signed-zero rules and every error message."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf, tf_python

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(77)
NUMBERS = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
           "uint16", "uint32", "uint64"]
MOVE_TYPES = NUMBERS + ["bool", "complex64", "complex128", "object"]  # object: strings


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _values(shape, dtype, distinct=12):
    """Values of `dtype` with repeats (integers below `distinct`); strings for object."""
    ints = rng.integers(0, distinct, shape)
    if dtype == "object":
        out = np.empty(shape, object)
        out.flat[:] = [b"w%d" % v for v in ints.flat]
        return out
    if dtype == "bool":
        return ints % 2 == 1
    return ints.astype(dtype)


def _bf16(values):
    return np.array(values, np.float32).astype(bfloat16)


# ---- Roll and ReverseSequence -------------------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_TYPES)
def test_roll_matches_numpy(dtype):
    x = _values((3, 4, 5), dtype)
    for shift, axis in ((1, 0), (-2, 2), ([1, 7, -3], [0, 1, 2]), ([2, 3], [-1, -1]),
                        (10**12 + 1, 1), ([0], [2])):
        (got,) = _run("Roll", [x, np.int64(shift), np.int32(axis)])
        want = np.roll(x, shift, axis if np.ndim(axis) == 0 else tuple(axis))
        np.testing.assert_array_equal(got, want)
        assert got.dtype == x.dtype


def _reverse_sequence(x, lengths, seq_dim, batch_dim):
    out = x.copy()
    for b, n in enumerate(lengths):
        index = [slice(None)] * x.ndim
        index[batch_dim] = b
        index[seq_dim] = slice(0, n)
        out[tuple(index)] = np.flip(x[tuple(index)], axis=seq_dim - (batch_dim < seq_dim))
    return out


@pytest.mark.parametrize("dtype", MOVE_TYPES)
def test_reverse_sequence_matches_numpy(dtype):
    x = _values((3, 5, 2), dtype)
    for lengths, seq_dim, batch_dim in (([5, 0, 3], 1, 0), ([1, 2], 0, 2), ([3, 1, 2], 1, 0)):
        for tlen in (np.int32, np.int64):
            (got,) = _run("ReverseSequence", [x, tlen(lengths)],
                          {"seq_dim": seq_dim, "batch_dim": batch_dim})
            np.testing.assert_array_equal(got, _reverse_sequence(x, lengths, seq_dim, batch_dim))


# ---- LinSpace ------------------------------------------------------------------------------

LINSPACE_CASES = [(0.0, 1.0, 5), (0.1, 1.7, 11), (-3.0, 10.0, 7), (2.5, 2.5, 3), (1.0, -1.0, 1),
                  (1e-3, 7.3, 1000), (5.0, -5.0, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lin_space_matches_tensorflow_bit_for_bit(dtype, tf_ref):
    for i, (start, stop, num) in enumerate(LINSPACE_CASES):
        for tidx in (np.int32, np.int64):
            (got,) = _run("LinSpace", [np.array(start, dtype), np.array(stop, dtype), tidx(num)])
            want = np.array(tf_ref[f"linspace/{dtype}/{i}"], dtype)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_allclose(got, np.linspace(start, stop, num, dtype=dtype),
                                       rtol=1e-5, atol=1e-5 * max(abs(start), abs(stop)))
            assert got[-1] == np.array(stop if num > 1 else start, dtype)


# ---- Unique, ListDiff ------------------------------------------------------------------------

def _unique_reference(rows):
    """(unique rows in order of first appearance, index of each row, counts)."""
    keys, idx, counts = [], [], []
    for r in rows:
        k = r.tobytes() if isinstance(r, np.ndarray) and r.dtype != object else repr(r)
        if k not in keys:
            keys.append(k)
            counts.append(0)
        idx.append(keys.index(k))
        counts[keys.index(k)] += 1
    first = [idx.index(j) for j in range(len(keys))]
    return first, np.array(idx), np.array(counts)


@pytest.mark.parametrize("dtype", NUMBERS + ["bool", "object"])
@pytest.mark.parametrize("out_idx", [np.int32, np.int64])
def test_unique_family_matches_a_reference(dtype, out_idx):
    x = _values((20,), dtype, distinct=6)
    first, idx, counts = _unique_reference(list(x))
    attrs = {"out_idx": opgen.as_dtype(out_idx)}
    y, i = _run("Unique", [x], attrs)
    np.testing.assert_array_equal(y, x[first])
    np.testing.assert_array_equal(i, idx)
    assert i.dtype == out_idx
    y, i, c = _run("UniqueWithCounts", [x], attrs)
    np.testing.assert_array_equal(c, counts)
    assert c.dtype == out_idx
    for axis in (np.int64([]), np.int32([0]), np.int64([-1])):
        y, i, c = _run("UniqueWithCountsV2", [x, axis], attrs)
        np.testing.assert_array_equal(y, x[first])
        np.testing.assert_array_equal(c, counts)
    m = _values((4, 9), dtype, distinct=2)  # columns repeat
    for axis, rows in ((0, list(m)), (1, list(m.T))):
        first, idx, counts = _unique_reference([np.ascontiguousarray(r) if dtype != "object"
                                                else tuple(r) for r in rows])
        y, i = _run("UniqueV2", [m, np.int32([axis])], attrs)
        np.testing.assert_array_equal(y, np.take(m, first, axis=axis))
        np.testing.assert_array_equal(i, idx)
        y, i, c = _run("UniqueWithCountsV2", [m, np.int64([axis - 2])], attrs)
        np.testing.assert_array_equal(c, counts)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_unique_and_list_diff_follow_tensorflows_nan_and_zero_rules(dtype, tf_ref):
    """A NaN equals nothing; -0 equals 0 in float and double but not in half and bfloat16."""
    if dtype == "bfloat16" and bfloat16 is None:
        pytest.skip("no ml_dtypes")
    cast = _bf16 if dtype == "bfloat16" else (lambda v: np.array(v, dtype))
    x = cast(SPECIALS)
    y, i = _run("Unique", [x])
    np.testing.assert_array_equal(np.asarray(y, np.float64), tf_ref[f"unique/{dtype}/y"])
    np.testing.assert_array_equal(i, tf_ref[f"unique/{dtype}/idx"])
    y, i, c = _run("UniqueWithCountsV2", [x.reshape(-1, 1), np.int64([0])])
    np.testing.assert_array_equal(np.asarray(y, np.float64).ravel(), tf_ref[f"unique/{dtype}/y"])
    np.testing.assert_array_equal(c, tf_ref[f"unique/{dtype}/count"])
    out, i = _run("ListDiff", [x, cast([0.0, float("nan"), 2.0])])
    np.testing.assert_array_equal(np.asarray(out, np.float64), tf_ref[f"listdiff/{dtype}/out"])
    np.testing.assert_array_equal(i, tf_ref[f"listdiff/{dtype}/idx"])


SPECIALS = [0.0, -0.0, float("nan"), float("nan"), 1.0, 1.0, float("inf"), 2.0, -0.0]


@pytest.mark.parametrize("dtype", NUMBERS + ["object"])
def test_list_diff_keeps_order_and_duplicates(dtype):
    x, y = _values((30,), dtype, distinct=10), _values((6,), dtype, distinct=10)
    keep = [k for k, v in enumerate(x) if not any(v == w for w in y)]
    for out_idx in (np.int32, np.int64):
        out, idx = _run("ListDiff", [x, y], {"out_idx": opgen.as_dtype(out_idx)})
        np.testing.assert_array_equal(out, x[keep])
        np.testing.assert_array_equal(idx, keep)
        assert idx.dtype == out_idx


# ---- SparseToDense and ZerosLike of strings ---------------------------------------------------

@pytest.mark.parametrize("dtype", MOVE_TYPES)
def test_sparse_to_dense_matches_numpy(dtype):
    values, default = _values((3,), dtype), _values((), dtype)
    indices = np.array([[0, 1], [1, 3], [2, 0]])
    want = np.full((3, 4), default, dtype=values.dtype)
    want[tuple(indices.T)] = values
    for index in (np.int32, np.int64):
        (got,) = _run("SparseToDense", [index(indices), index([3, 4]), values, default])
        np.testing.assert_array_equal(got, want)
        # a scalar value for every index; unordered indices without validation
        (got,) = _run("SparseToDense", [index(indices[::-1]), index([3, 4]), values[:1].reshape(()),
                                        default], {"validate_indices": False})
        want_scalar = np.full((3, 4), default, dtype=values.dtype)
        want_scalar[tuple(indices.T)] = values[0]
        np.testing.assert_array_equal(got, want_scalar)
    (got,) = _run("SparseToDense", [np.int32([1, 3]), np.int32([5]), values[:2], default])
    want_1d = np.full((5,), default, dtype=values.dtype)
    want_1d[[1, 3]] = values[:2]
    np.testing.assert_array_equal(got, want_1d)
    (got,) = _run("SparseToDense", [np.int64(2), np.int64([3]), values[:1].reshape(()), default])
    assert got[2] == values[0] and got[0] == default


def test_zeros_like_of_strings_is_empty_strings():
    x = np.array([[b"a", b"bc"], [b"", b"x" * 100]], object)
    (got,) = _run("ZerosLike", [x])
    assert got.shape == (2, 2) and all(v == b"" for v in got.flat)


# ---- in a graph of fed placeholders ---------------------------------------------------------

def test_the_ops_in_a_graph_with_unknown_shapes():
    g = opgen.Graph()
    with g.as_default():
        def ph(dtype, name):
            return g.create_op("Placeholder", [], {"dtype": opgen.as_dtype(dtype)},
                               name=name).outputs[0]
        x, n, lengths = ph(np.float32, "x"), ph(np.int32, "n"), ph(np.int64, "lengths")
        shift, axis = ph(np.int32, "shift"), ph(np.int32, "axis")
        rolled = g.create_op("Roll", [x, shift, axis]).outputs[0]
        reversed_ = g.create_op("ReverseSequence", [rolled, lengths], {"seq_dim": 1}).outputs[0]
        y, idx = g.create_op("Unique", [g.create_op("Reshape", [reversed_, g.create_op(
            "Const", [], {"dtype": opgen.int32, "value": np.int32([-1])}).outputs[0]]).outputs[0]]
        ).outputs
        space = g.create_op("LinSpace", [g.create_op("Const", [], {
            "dtype": opgen.float32, "value": np.float32(0)}).outputs[0], g.create_op(
            "Const", [], {"dtype": opgen.float32, "value": np.float32(1)}).outputs[0], n]).outputs[0]
    x_value = _values((2, 3), "float32")
    with opgen.Session(g) as s:
        got = s.run([reversed_, y, idx, space], {x: x_value, n: np.int32(3), shift: np.int32([1]),
                                                 axis: np.int32([1]), lengths: np.int64([3, 2])})
    want = _reverse_sequence(np.roll(x_value, 1, 1), [3, 2], 1, 0)
    np.testing.assert_array_equal(got[0], want)
    first, idx_want, _ = _unique_reference(list(want.ravel()))
    np.testing.assert_array_equal(got[1], want.ravel()[first])
    np.testing.assert_array_equal(got[2], idx_want)
    np.testing.assert_array_equal(got[3], np.float32([0, 0.5, 1]))


# ---- error messages, against TensorFlow -------------------------------------------------------

ERROR_CASES = [
    ("Roll", [np.int32(1), np.int32(1), np.int32(0)], {}),
    ("Roll", [np.int32([1, 2]), np.int32([1, 2]), np.int32(0)], {}),
    ("Roll", [np.int32([1, 2]), np.int32(1), np.int32(3)], {}),
    ("Roll", [np.int32([1, 2]), np.int32([[1]]), np.int32([[0]])], {}),
    ("ReverseSequence", [np.int32([[1, 2]]), np.int64([3])], {"seq_dim": 1}),
    ("ReverseSequence", [np.int32([[1, 2]]), np.int64([-1])], {"seq_dim": 1}),
    ("ReverseSequence", [np.int32([[1, 2]]), np.int64([1, 1])], {"seq_dim": 1}),
    ("ReverseSequence", [np.int32([[1, 2]]), np.int64([1])], {"seq_dim": 2}),
    ("ReverseSequence", [np.int32([[1, 2]]), np.int64([1])], {"seq_dim": 0}),
    ("LinSpace", [np.float32(0), np.float32(1), np.int32(0)], {}),
    ("LinSpace", [np.float32([0]), np.float32(1), np.int32(3)], {}),
    ("LinSpace", [np.float32(0), np.float32(1), np.int64(-5)], {}),
    ("Unique", [np.int32([[1]])], {}),
    ("UniqueV2", [np.int32([[1]]), np.int64([5])], {}),
    ("UniqueV2", [np.int32([[1]]), np.int64([0, 1])], {}),
    ("UniqueV2", [np.int32([[1]]), np.int64(0)], {}),
    ("UniqueV2", [np.int32([[1]]), np.int64([])], {}),
    ("ListDiff", [np.int32([[1]]), np.int32([1])], {}),
    ("ListDiff", [np.int32([1]), np.int32(1)], {}),
    ("SparseToDense", [np.int32([[0], [5]]), np.int32([4]), np.float32(1), np.float32(0)], {}),
    ("SparseToDense", [np.int32([[1], [0]]), np.int32([4]), np.float32(1), np.float32(0)], {}),
    ("SparseToDense", [np.int32([[1], [1]]), np.int32([4]), np.float32(1), np.float32(0)], {}),
    ("SparseToDense", [np.int32([[1], [9]]), np.int32([4]), np.float32(1), np.float32(0)],
     {"validate_indices": False}),
    ("SparseToDense", [np.int32([[1, 2]]), np.int32([4]), np.float32(1), np.float32(0)], {}),
    ("SparseToDense", [np.int32([[1]]), np.int32([4]), np.float32([1, 2]), np.float32(0)], {}),
    ("SparseToDense", [np.int32([[1]]), np.int32([4]), np.float32([1]), np.float32([0])], {}),
    ("SparseToDense", [np.int64([[0, -1]]), np.int64([2, 2]), np.float32(1), np.float32(0)], {}),
]


@pytest.mark.parametrize("k", range(len(ERROR_CASES)))
def test_errors_match_tensorflow(k, tf_ref):
    op, inputs, attrs = ERROR_CASES[k]
    kind, message = tf_ref[f"error/{k}"]
    assert kind == "InvalidArgumentError", (op, message)
    with pytest.raises(errors.InvalidArgumentError) as info:
        _run(op, inputs, attrs)
    assert message.strip() in str(info.value)


# ---- the TensorFlow reference ---------------------------------------------------------------

TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf

    spec = json.load(open(sys.argv[1]))
    out = {}
    for dtype in ("float32", "float64"):
        for i, (start, stop, num) in enumerate(spec["linspace"]):
            out[f"linspace/{dtype}/{i}"] = tf.linspace(
                tf.constant(start, dtype), tf.constant(stop, dtype), num).numpy().tolist()
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        x = tf.cast(tf.constant(spec["specials"], tf.float64), dtype)
        y, idx, count = tf.raw_ops.UniqueWithCounts(x=x)
        out[f"unique/{dtype}/y"] = [str(v) for v in tf.cast(y, tf.float64).numpy().tolist()]
        out[f"unique/{dtype}/idx"] = idx.numpy().tolist()
        out[f"unique/{dtype}/count"] = count.numpy().tolist()
        o, i = tf.raw_ops.ListDiff(x=x, y=tf.cast(tf.constant([0.0, np.nan, 2.0]), dtype))
        out[f"listdiff/{dtype}/out"] = [str(v) for v in tf.cast(o, tf.float64).numpy().tolist()]
        out[f"listdiff/{dtype}/idx"] = i.numpy().tolist()
    for k, (op, inputs, attrs) in enumerate(spec["errors"]):
        try:
            args = {name: tf.constant(np.array(v, dtype))
                    for name, (v, dtype) in zip(spec["arg_names"][op], inputs)}
            getattr(tf.raw_ops, op)(**args, **attrs)
            out[f"error/{k}"] = [None, ""]
        except tf.errors.OpError as e:
            message = e.message.split(" [Op:")[0].split("}} ")[-1]
            out[f"error/{k}"] = [type(e).__name__, message]
    json.dump(out, open(sys.argv[2], "w"))
""")

ARG_NAMES = {"Roll": ["input", "shift", "axis"], "ReverseSequence": ["input", "seq_lengths"],
             "LinSpace": ["start", "stop", "num"], "Unique": ["x"], "UniqueV2": ["x", "axis"],
             "ListDiff": ["x", "y"],
             "SparseToDense": ["sparse_indices", "output_shape", "sparse_values",
                               "default_value"]}


@pytest.fixture(scope="module")
def tf_ref(tmp_path_factory):
    tf_python()  # skip before any work when there is no TensorFlow
    folder = tmp_path_factory.mktemp("sequence_tf")
    spec = {"linspace": LINSPACE_CASES, "specials": SPECIALS, "arg_names": ARG_NAMES,
            "errors": [(op, [(np.asarray(v).tolist(), np.asarray(v).dtype.name) for v in inputs],
                        attrs) for op, inputs, attrs in ERROR_CASES]}
    (folder / "spec.json").write_text(json.dumps(spec))
    run_tf(["-c", TF_SCRIPT, folder / "spec.json", folder / "out.json"], cwd=folder)
    ref = json.loads((folder / "out.json").read_text())
    for key, value in ref.items():  # floats were written as text (NaN is no JSON)
        if key.endswith("/y") or key.endswith("/out"):
            ref[key] = np.array([float(v) for v in value])
    return ref
