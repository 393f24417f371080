"""GatherNd, ScatterNd, TensorScatter{Update,Add,Sub,Max,Min}, UnsortedSegment{Max,Min,Prod},
Segment{Sum,Mean,Max,Min,Prod} and SparseSegment{Sum,Mean,SqrtN}: every CPU dtype and
index type against numpy and against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON),
eagerly and in a graph; bad indices and ids fail as TensorFlow's CPU kernels do."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script

try:
    from ml_dtypes import bfloat16
except ImportError:  # ml_dtypes is a dependency; without it bfloat16 cases are left out
    bfloat16 = None

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)
FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
REAL = FLOATS + INTS
NUMBER = REAL + [np.complex64, np.complex128]


def _values(shape, dtype):
    """Small positive integers (exact in every dtype, products stay small), distinct
    enough that max/min pick one element."""
    v = rng.integers(1, 4, shape)
    if np.dtype(dtype).kind == "c":
        return (v + 1j * rng.integers(0, 3, shape)).astype(dtype)
    return v.astype(dtype)


# ---- numpy references ----------------------------------------------------------------

def np_gather_nd(params, indices):
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    out = np.stack([params[tuple(r)] for r in rows]) if len(rows) else np.zeros(
        (0,) + params.shape[k:], params.dtype)
    return out.reshape(indices.shape[:-1] + params.shape[k:])


def np_scatter(base, indices, updates, combine):
    out = base.copy()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    ups = updates.reshape((len(rows),) + base.shape[k:])
    for r, u in zip(rows, ups):
        out[tuple(r)] = combine(out[tuple(r)], u)
    return out


COMBINE = {"TensorScatterUpdate": lambda a, b: b, "TensorScatterAdd": lambda a, b: a + b,
           "TensorScatterSub": lambda a, b: a - b, "TensorScatterMax": np.maximum,
           "TensorScatterMin": np.minimum}


def _is_bf16(dtype):
    return bfloat16 is not None and np.dtype(dtype) == np.dtype(bfloat16)


def _limits(dtype):
    if _is_bf16(dtype):
        import ml_dtypes
        return ml_dtypes.finfo(bfloat16)
    return np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)


def _identity(op, dtype):
    """The empty unsorted segment's value: the lowest / highest finite value, or 1."""
    if op.endswith("Prod"):
        return 1
    if op.endswith("Max"):
        return _limits(dtype).min
    if op.endswith("Min"):
        return _limits(dtype).max
    return 0


def np_segment(op, data, rows, segs, n, sorted_):
    """op's reduction of data[rows[i]] into segment segs[i] (negative: dropped)."""
    kind = op.replace("Unsorted", "").replace("Sparse", "").replace("Segment", "")
    out = []
    wide = np.complex128 if np.dtype(data.dtype).kind == "c" else (
        np.float64 if np.dtype(data.dtype).kind == "f" or _is_bf16(data.dtype) else
        np.uint64 if np.dtype(data.dtype).kind == "u" else np.int64)
    for s in range(n):
        picked = [data[r].astype(wide) for r, q in zip(rows, segs) if q == s]
        if not picked:
            empty = 1 if kind == "Prod" else (0 if sorted_ else _identity(op, data.dtype))
            out.append(np.full(data.shape[1:], float(empty) if wide == np.float64 else empty, wide))
            continue
        p = np.stack(picked)
        value = {"Sum": p.sum(0), "Prod": p.prod(0), "Max": p.max(0), "Min": p.min(0),
                 "Mean": p.sum(0) // len(p) if np.dtype(wide).kind in "iu" else p.sum(0) / len(p),
                 "SqrtN": p.sum(0) / np.sqrt(len(p))}[kind]
        out.append(value)
    if np.dtype(data.dtype).kind in "iu":
        return np.array(out).astype(data.dtype) if out else np.zeros((0,) + data.shape[1:], data.dtype)
    result = np.array(out, np.float64 if wide != np.complex128 else wide).reshape((n,) + data.shape[1:])
    with np.errstate(over="ignore"):
        return result.astype(data.dtype)


# ---- the cases: (id, op, inputs, attrs, numpy reference) -------------------------------

def _cases():
    cases = []
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.bool_,
               np.complex64] + ([bfloat16] if bfloat16 is not None else []):
        for it in (np.int16, np.int32, np.int64):
            params = _values((4, 3, 2), dt) if dt != np.bool_ else rng.integers(0, 2, (4, 3, 2)) > 0
            idx = np.array([[[0, 1], [3, 2]], [[1, 0], [0, 1]]], it)
            cases.append((f"GatherNd-{np.dtype(dt).name}-{np.dtype(it).name}", "GatherNd",
                          [params, idx], {}, np_gather_nd(params, idx)))
    for dt in NUMBER:
        for it in (np.int32, np.int64):
            idx = np.array([[1], [3], [1]], it)
            ups = _values((3, 2), dt)
            want = np_scatter(np.zeros((5, 2), dt), idx, ups, lambda a, b: a + b)
            cases.append((f"ScatterNd-{np.dtype(dt).name}-{np.dtype(it).name}", "ScatterNd",
                          [idx, ups, np.array([5, 2], it)], {}, want))
            for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                       "TensorScatterMax", "TensorScatterMin"):
                if op in ("TensorScatterMax", "TensorScatterMin") and dt not in REAL:
                    continue
                base = _values((5, 2), dt)
                nd_idx = np.array([[1, 0], [3, 1], [1, 0], [4, 1]], it)
                ups2 = _values((4,), dt)
                if op == "TensorScatterUpdate":  # duplicates: the last row wins on the CPU
                    want = np_scatter(base, nd_idx, ups2, COMBINE[op])
                else:
                    with np.errstate(over="ignore"):
                        want = np_scatter(base, nd_idx, ups2, COMBINE[op])
                cases.append((f"{op}-{np.dtype(dt).name}-{np.dtype(it).name}", op,
                              [base, nd_idx, ups2], {}, want))
    ids = np.array([0, 2, -1, 2, 0, 4], np.int32)
    for op, types in (("UnsortedSegmentMax", REAL), ("UnsortedSegmentMin", REAL),
                      ("UnsortedSegmentProd", NUMBER)):
        for dt in types:
            for it in (np.int32, np.int64):
                for nt in (np.int32, np.int64):
                    data = _values((6, 2), dt)
                    want = np_segment(op, data, range(6), ids, 6, False)
                    cases.append((f"{op}-{np.dtype(dt).name}-{np.dtype(it).name}-{np.dtype(nt).name}",
                                  op, [data, ids.astype(it), nt(6)], {}, want))
    sids = np.array([0, 0, 2, 3, 3, 3], np.int32)
    for op, types in (("SegmentSum", NUMBER), ("SegmentMean", NUMBER), ("SegmentProd", NUMBER),
                      ("SegmentMax", REAL), ("SegmentMin", REAL)):
        for dt in types:
            for it in (np.int32, np.int64):
                data = _values((6, 2), dt)
                want = np_segment(op, data, range(6), sids, 4, True)
                cases.append((f"{op}-{np.dtype(dt).name}-{np.dtype(it).name}", op,
                              [data, sids.astype(it)], {}, want))
    pick, psegs = np.array([0, 3, 3, 1, 2], np.int32), np.array([1, 1, 1, 3, 3], np.int32)
    for op, types in (("SparseSegmentSum", REAL), ("SparseSegmentMean", FLOATS),
                      ("SparseSegmentSqrtN", FLOATS)):
        for dt in types:
            for it in (np.int32, np.int64):
                for st in (np.int32, np.int64):
                    data = _values((4, 3), dt)
                    want = np_segment(op, data, pick, psegs, 4, True)
                    cases.append((f"{op}-{np.dtype(dt).name}-{np.dtype(it).name}-{np.dtype(st).name}",
                                  op, [data, pick.astype(it), psegs.astype(st)], {}, want))
    return cases


CASES = _cases()
IDS = [c[0] for c in CASES]


def _tol(dtype):
    if np.dtype(dtype) == np.float16 or _is_bf16(dtype):
        return dict(rtol=2e-2, atol=2e-2)
    return dict(rtol=1e-6, atol=1e-6)


def _compare(got, want):
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if np.dtype(got.dtype).kind in "iub":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.complex128 if got.dtype.kind == "c" else np.float64),
                                   want.astype(np.complex128 if want.dtype.kind == "c" else np.float64),
                                   **_tol(got.dtype))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_eager_against_numpy(case):
    _, op, inputs, attrs, want = case
    (got,) = [t.numpy() for t in execute_op(op, inputs, attrs)]
    _compare(got, want)


# ---- TensorFlow 2.21 ------------------------------------------------------------------

TF_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    data = dict(np.load(sys.argv[1]))
    bf16 = set(str(k) for k in data.pop("__bf16__"))  # stored as float32
    names = {"GatherNd": ["params", "indices"], "ScatterNd": ["indices", "updates", "shape"],
             "Segment": ["data", "segment_ids"], "Unsorted": ["data", "segment_ids", "num_segments"],
             "Sparse": ["data", "indices", "segment_ids"], "Tensor": ["tensor", "indices", "updates"]}
    out = {}
    for case_id in sorted({k.rsplit("/", 1)[0] for k in data}):
        op = case_id.split("-")[0]
        key = next(k for k in names if op.startswith(k))
        n = sum(1 for k in data if k.startswith(case_id + "/"))
        args = {names[key][i]: tf.constant(data[f"{case_id}/{i}"],
                                           tf.bfloat16 if f"{case_id}/{i}" in bf16 else None)
                for i in range(n)}
        try:
            y = getattr(tf.raw_ops, op)(**args)
            out[case_id] = (tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y).numpy()
        except Exception as e:
            out[case_id + "/error"] = np.array(str(e))
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def tf_ref():
    arrays = {f"{cid}/{i}": np.asarray(v) for cid, _, inputs, _, _ in CASES
              for i, v in enumerate(inputs)}
    bf16 = [k for k, v in arrays.items() if _is_bf16(v.dtype)]
    arrays.update({k: arrays[k].astype(np.float32) for k in bf16})
    return run_tf_script(TF_SCRIPT, {"__bf16__": np.array(bf16, dtype=str), **arrays})


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_eager_against_tensorflow(case, tf_ref):
    case_id, op, inputs, attrs, _ = case
    assert case_id + "/error" not in tf_ref, str(tf_ref.get(case_id + "/error"))
    (got,) = [t.numpy() for t in execute_op(op, inputs, attrs)]
    want = tf_ref[case_id]
    if _is_bf16(got.dtype):
        want = want.view(bfloat16) if want.dtype == np.uint16 else want.astype(bfloat16)
    _compare(got, want)


# ---- in a graph ------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["GatherNd", "ScatterNd", "TensorScatterMax", "UnsortedSegmentProd",
                                "SegmentMean", "SparseSegmentSqrtN"])
def test_in_a_graph_with_inferred_shapes(op):
    case = next(c for c in CASES if c[1] == op and "float32" in c[0])
    _, _, inputs, attrs, want = case
    g = opgen.Graph()
    with g.as_default():
        nodes = [opgen.constant(v) for v in inputs]
        y = g.create_op(op, nodes, attrs).outputs[0]
    shape = None if y.shape is None else list(y.shape)
    if op in ("GatherNd", "ScatterNd", "TensorScatterMax", "UnsortedSegmentProd"):
        assert shape == list(np.shape(want))
    else:  # sorted segments: the number of segments is known only when the graph runs
        assert shape == [None] + list(np.shape(want)[1:])
    with opgen.Session(graph=g) as s:
        _compare(s.run(y), want)


# ---- errors, with TensorFlow's messages ----------------------------------------------

ERRORS = [
    ("GatherNd", [np.zeros((3, 2), np.float32), np.int32([[0, 1], [3, 0]])],
     r"indices\[1\] = \[3, 0\] does not index into param shape \[3,2\]"),
    ("GatherNd", [np.zeros((3, 2), np.float32), np.int64([[[-1]]])],
     r"indices\[0,0\] = \[-1\] does not index into param shape \[3,2\]"),
    ("GatherNd", [np.zeros((3, 2), np.float32), np.int32([[0, 1, 1]])],
     r"index innermost dimension length must be <= params rank; saw: 3 vs. 2"),
    ("ScatterNd", [np.int32([[1, 4]]), np.float32([1]), np.int32([3, 4])],
     r"indices\[0\] = \[1, 4\] does not index into shape \[3,4\]"),
    ("ScatterNd", [np.int32([[1], [1]]), np.float32([1, 2, 3]), np.int32([4])],
     r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] must match dimensions \[0,1\) of "
     r"updates\[shape=\[3\]\]"),
    ("TensorScatterUpdate", [np.zeros(4, np.float32), np.int32([[9]]), np.float32([1])],
     r"indices\[0\] = \[9\] does not index into shape \[4\]"),
    ("TensorScatterAdd", [np.zeros(4, np.float32), np.int64([[-1]]), np.float32([1])],
     r"indices\[0\] = \[-1\] does not index into shape \[4\]"),
    ("UnsortedSegmentMax", [np.float32([1, 2, 3]), np.int32([0, 5, 0]), np.int32(3)],
     r"segment_ids\[1\] = 5 is out of range \[0, 3\)"),
    ("SegmentSum", [np.float32([1, 2, 3]), np.int32([1, 0, 2])], r"segment ids are not increasing"),
    ("SegmentSum", [np.float32([1, 2, 3]), np.int32([-1, 0, 2])],
     r"Segment id -1 out of range \[0, 3\), possibly because 'segment_ids' input is not sorted."),
    ("SegmentMax", [np.float32([1, 2, 3]), np.int32([0, 0])],
     r"segment_ids should be the same size as dimension 0 of input."),
    ("SparseSegmentSum", [np.float32([[1, 2], [3, 4]]), np.int32([0, 5, 1]), np.int32([0, 0, 2])],
     r"Bad: indices\[1\] == 5 out of range \[0, 2\)"),
    ("SparseSegmentMean", [np.float32([[1, 2], [3, 4]]), np.int32([0, 1]), np.int32([0, 0, 2])],
     r"segment_ids and indices should have same size."),
    ("SparseSegmentSqrtN", [np.float32([[1, 2], [3, 4]]), np.int32([0, 1, 1]), np.int32([1, 0, 2])],
     r"segment ids are not increasing"),
]


@pytest.mark.parametrize("op,inputs,message", ERRORS, ids=[f"{e[0]}-{i}" for i, e in enumerate(ERRORS)])
def test_bad_indices_fail_as_tensorflow_does(op, inputs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        execute_op(op, inputs, {})


def test_bad_indices_policy_ignore():
    """IGNORE: a bad gather row gives zeros, a bad scatter row is skipped (TensorFlow's)."""
    p = np.float32([[1, 2], [3, 4], [5, 6]])
    (got,) = execute_op("GatherNd", [p, np.int32([[5], [1]])], {"bad_indices_policy": "IGNORE"})
    np.testing.assert_array_equal(got.numpy(), [[0, 0], [3, 4]])
    (got,) = execute_op("ScatterNd", [np.int32([[1], [7]]), np.float32([1, 2]), np.int32([4])],
                        {"bad_indices_policy": "IGNORE"})
    np.testing.assert_array_equal(got.numpy(), [0, 1, 0, 0])


def test_duplicates_add_up_in_scatter_nd_and_the_last_update_wins():
    (got,) = execute_op("ScatterNd", [np.int32([[1], [1]]), np.float32([1, 2]), np.int32([4])], {})
    np.testing.assert_array_equal(got.numpy(), [0, 3, 0, 0])
    (got,) = execute_op("TensorScatterUpdate", [np.zeros(4, np.float32), np.int32([[1], [1]]),
                                                np.float32([1, 2])], {})
    np.testing.assert_array_equal(got.numpy(), [0, 2, 0, 0])


def test_empty_segments_hold_the_reductions_identity():
    data, ids = np.float32([1, 2, 3]), np.int32([0, 0, -1])
    got = {op: execute_op(op, [data, ids, np.int32(3)], {})[0].numpy()
           for op in ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")}
    lo, hi = np.finfo(np.float32).min, np.finfo(np.float32).max
    np.testing.assert_array_equal(got["UnsortedSegmentMax"], [2, lo, lo])
    np.testing.assert_array_equal(got["UnsortedSegmentMin"], [1, hi, hi])
    np.testing.assert_array_equal(got["UnsortedSegmentProd"], [2, 1, 1])
    sorted_ids = np.int32([0, 0, 2])
    for op, want in (("SegmentMax", [2, 0, 3]), ("SegmentMin", [1, 0, 3]), ("SegmentMean", [1.5, 0, 3]),
                     ("SegmentProd", [2, 1, 3]), ("SegmentSum", [3, 0, 3])):
        np.testing.assert_array_equal(execute_op(op, [data, sorted_ids], {})[0].numpy(), want, op)


def test_gradient_of_an_embedding_bag_reaches_the_rows_read():
    """An embedding-bag step in a graph: SparseSegmentMean over picked rows of a table,
    a squared loss; the (dense) gradient reaches the rows that were read, only those."""
    table = rng.normal(0, 1, (6, 3)).astype(np.float32)
    g = opgen.Graph()
    with g.as_default():
        w = opgen.ops.placeholder(opgen.float32, shape=[6, 3])
        bag = g.create_op("SparseSegmentMean", [w, opgen.constant(np.int32([1, 4, 4])),
                                                opgen.constant(np.int32([0, 0, 1]))], {}).outputs[0]
        loss = g.create_op("Sum", [g.create_op("Square", [bag], {}).outputs[0],
                                   opgen.constant(np.int32([0, 1]))], {}).outputs[0]
        (dw,) = opgen.gradients(loss, [w])
    with opgen.Session(graph=g) as s:
        got = s.run(dw, {w: table})
    b0, b1 = (table[1] + table[4]) / 2, table[4]
    want = np.zeros_like(table)
    want[1] += b0
    want[4] += b0 + 2 * b1
    np.testing.assert_allclose(got, want, rtol=1e-5)


# ---- DynamicStitch, ParallelDynamicStitch, DynamicPartition --------------------------

STITCH_DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int32, np.int64, np.uint16,
                 np.bool_, np.complex64, np.complex128] + ([bfloat16] if bfloat16 is not None else [])


def _stitch_case(dt):
    indices = [np.int32([[0, 4], [2, 1]]), np.int32([5, 2])]  # 2 appears twice: the last wins
    data = [_values((2, 2, 3), dt), _values((2, 3), dt)]
    if dt == np.bool_:
        data = [rng.integers(0, 2, d.shape) > 0 for d in data]
    want = np.zeros((6, 3), data[0].dtype)
    for idx, d in zip(indices, data):
        want[idx.reshape(-1)] = d.reshape(-1, 3)
    return indices, data, want


def _partition_case(dt):
    data = _values((3, 2, 2), dt) if dt != np.bool_ else rng.integers(0, 2, (3, 2, 2)) > 0
    parts = np.int32([[2, 0], [2, 2], [0, 0]])
    flat = data.reshape(6, 2)
    return data, parts, [flat[parts.reshape(-1) == p] for p in range(4)]


STITCH_CASES = {np.dtype(dt).name: (_stitch_case(dt), _partition_case(dt)) for dt in STITCH_DTYPES}

STITCH_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    data = dict(np.load(sys.argv[1]))
    bf16 = set(str(k) for k in data.pop("__bf16__"))
    def t(key):
        return tf.constant(data[key], tf.bfloat16 if key in bf16 else None)
    def back(y):
        return (tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y).numpy()
    out = {}
    for name in sorted({k.split("/")[0] for k in data}):
        idx = [t(f"{name}/i{m}") for m in range(2)]
        d = [t(f"{name}/d{m}") for m in range(2)]
        out[name + "/stitch"] = back(tf.raw_ops.DynamicStitch(indices=idx, data=d))
        out[name + "/pstitch"] = back(tf.raw_ops.ParallelDynamicStitch(indices=idx[1:], data=d[1:]))
        parts = tf.raw_ops.DynamicPartition(data=t(f"{name}/pd"), partitions=t(f"{name}/pp"),
                                           num_partitions=4)
        for p, y in enumerate(parts):
            out[f"{name}/part{p}"] = back(y)
    np.savez(sys.argv[2], **out)
""")


@pytest.fixture(scope="module")
def tf_stitch():
    arrays = {}
    for name, ((indices, data, _), (pdata, parts, _)) in STITCH_CASES.items():
        for m in range(2):
            arrays[f"{name}/i{m}"], arrays[f"{name}/d{m}"] = indices[m], data[m]
        arrays[f"{name}/pd"], arrays[f"{name}/pp"] = pdata, parts
    bf16 = [k for k, v in arrays.items() if _is_bf16(v.dtype)]
    arrays.update({k: arrays[k].astype(np.float32) for k in bf16})
    return run_tf_script(STITCH_SCRIPT, {"__bf16__": np.array(bf16, dtype=str), **arrays})


def _as(want, like):
    return want.astype(bfloat16) if _is_bf16(like.dtype) else want


@pytest.mark.parametrize("name", list(STITCH_CASES))
def test_stitch_and_partition_against_numpy_and_tensorflow(name, tf_stitch):
    (indices, data, want), (pdata, parts, pwant) = STITCH_CASES[name]
    (got,) = execute_op("DynamicStitch", [indices, data], {})
    _compare(got.numpy(), want)
    _compare(got.numpy(), _as(tf_stitch[name + "/stitch"], got.numpy()))
    (got,) = execute_op("ParallelDynamicStitch", [indices[1:], data[1:]], {})
    _compare(got.numpy(), _as(tf_stitch[name + "/pstitch"], got.numpy()))
    (outs,) = execute_op("DynamicPartition", [pdata, parts], {"num_partitions": 4})  # one list output
    assert len(outs) == 4
    for p, (y, w) in enumerate(zip(outs, pwant)):
        _compare(y.numpy(), w)
        _compare(y.numpy(), _as(tf_stitch[f"{name}/part{p}"], y.numpy()))


def test_stitch_and_partition_in_a_graph_and_their_gradients():
    """The inverse pair of TensorFlow's docs: partition, then stitch back; the gradient of
    the round trip is the identity, of each partition its rows back in place."""
    x = rng.normal(0, 1, (5, 2)).astype(np.float32)
    parts = np.int32([1, 0, 1, 2, 0])
    g = opgen.Graph()
    with g.as_default():
        xp = opgen.ops.placeholder(opgen.float32, shape=[5, 2])
        p = opgen.constant(parts)
        pieces = g.create_op("DynamicPartition", [xp, p], {"num_partitions": 3}).outputs
        positions = g.create_op("DynamicPartition", [opgen.constant(np.arange(5, dtype=np.int32)), p],
                                {"num_partitions": 3}).outputs
        back = g.create_op("DynamicStitch", [list(positions), list(pieces)], {}).outputs[0]
        w = opgen.constant(rng.normal(0, 1, (5, 2)).astype(np.float32))
        loss = g.create_op("Sum", [g.create_op("Mul", [back, w], {}).outputs[0],
                                   opgen.constant(np.int32([0, 1]))], {}).outputs[0]
        (dx,) = opgen.gradients(loss, [xp])
    assert [tuple(o.shape) if o.shape is not None else None for o in pieces] == [(None, 2)] * 3
    with opgen.Session(graph=g) as s:
        got_back, got_dx, w_value = s.run([back, dx, w], {xp: x})
    np.testing.assert_array_equal(got_back, x)
    np.testing.assert_allclose(got_dx, w_value, rtol=1e-6)


@pytest.mark.parametrize("op,inputs,attrs,message", [
    ("DynamicStitch", [[np.int32([0, 1]), np.int32([3, -1])], [np.float32([1, 2]), np.float32([5, 6])]],
     {}, r"indices\[1\] is out of range"),
    ("DynamicStitch", [[np.int32([0, 1]), np.int32([2])], [np.float32([1, 2]), np.float32([5, 6])]],
     {}, r"data\[1\].shape = \[2\] does not start with indices\[1\].shape = \[1\]"),
    ("DynamicPartition", [np.float32([1, 2, 3]), np.int32([0, -1, 0])], {"num_partitions": 2},
     r"partitions\[1\] = -1 is not in \[0, 2\)"),
    ("DynamicPartition", [np.float32([1, 2, 3]), np.int32([0, 1])], {"num_partitions": 2},
     r"data.shape must start with partitions.shape, got data.shape = \[3\], "
     r"partitions.shape = \[2\]"),
])
def test_stitch_and_partition_errors(op, inputs, attrs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        execute_op(op, inputs, attrs)


# ---- variables: ResourceGather, ResourceScatter{Add,Sub,Update} ----------------------

RESOURCE_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8,
                   np.complex64] + ([bfloat16] if bfloat16 is not None else [])
TABLE_IDS = np.int64([[3, 0], [3, 1]])  # a duplicate: scatters apply it twice, in order


def _resource_case(dt):
    table = _values((4, 3), dt)
    updates = _values((2, 2, 3), dt)
    return table, updates


RESOURCE_CASES = {np.dtype(dt).name: _resource_case(dt) for dt in RESOURCE_DTYPES}

RESOURCE_SCRIPT = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    data = dict(np.load(sys.argv[1]))
    bf16 = set(str(k) for k in data.pop("__bf16__"))
    ids = data.pop("ids")
    def t(key):
        return tf.constant(data[key], tf.bfloat16 if key in bf16 else None)
    def back(y):
        y = tf.convert_to_tensor(y)
        return (tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y).numpy()
    out = {}
    for name in sorted({k.split("/")[0] for k in data} - {"sgd"}):
        table, updates = t(name + "/table"), t(name + "/updates")
        v = tf.Variable(table)
        out[name + "/gather"] = back(tf.raw_ops.ResourceGather(resource=v.handle, indices=ids,
                                                               dtype=v.dtype))
        for op in ("ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate"):
            v = tf.Variable(table)
            getattr(tf.raw_ops, op)(resource=v.handle, indices=ids, updates=updates)
            out[f"{name}/{op}"] = back(v)
    # one SGD step of an embedding: loss = sum(w * gather(table, ids)^2)
    v = tf.Variable(data["sgd/table"])
    with tf.GradientTape() as tape:
        rows = tf.gather(v, ids)
        loss = tf.reduce_sum(data["sgd/w"] * rows * rows)
    grad = tape.gradient(loss, v)
    v.assign_sub(0.1 * tf.convert_to_tensor(grad))
    out["sgd/after"] = v.numpy()
    # the eager tape through ResourceGather on a watched variable's handle: SGD steps
    v = tf.Variable(data["sgd/table"])
    for step in range(3):
        with tf.GradientTape() as tape:
            tape.watch(v)
            rows = tf.raw_ops.ResourceGather(resource=v.handle, indices=ids, dtype=v.dtype)
            loss = tf.reduce_sum(data["sgd/w"] * rows * rows)
        grad = tape.gradient(loss, v)
        out[f"tape/kind{step}"] = np.array(type(grad).__name__)
        out[f"tape/grad{step}"] = tf.convert_to_tensor(grad).numpy()
        v.assign_sub(0.1 * tf.convert_to_tensor(grad))
    out["tape/after"] = v.numpy()
    # a handle alone does not watch its variable; a read (an access) does, and then a
    # ReadVariableOp through the handle counts too
    with tf.GradientTape() as tape:
        rows = tf.raw_ops.ResourceGather(resource=v.handle, indices=ids, dtype=v.dtype)
        loss = tf.reduce_sum(rows * rows)
    out["tape/unwatched"] = np.array(tape.gradient(loss, v) is None)
    with tf.GradientTape() as tape:
        v.read_value()
        rows = tf.raw_ops.ResourceGather(resource=v.handle, indices=ids, dtype=v.dtype)
        whole = tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=v.dtype)
        loss = tf.reduce_sum(rows * rows) + tf.reduce_sum(whole * whole * whole)
    out["tape/accessed"] = tf.convert_to_tensor(tape.gradient(loss, v)).numpy()
    np.savez(sys.argv[2], **out)
""")

SGD_TABLE = rng.normal(0, 1, (5, 3))
SGD_W = rng.normal(0, 1, (2, 2, 3))


@pytest.fixture(scope="module")
def tf_resource():
    arrays = {"ids": TABLE_IDS, "sgd/table": SGD_TABLE, "sgd/w": SGD_W}
    for name, (table, updates) in RESOURCE_CASES.items():
        arrays[f"{name}/table"], arrays[f"{name}/updates"] = table, updates
    bf16 = [k for k, v in arrays.items() if _is_bf16(v.dtype)]
    arrays.update({k: arrays[k].astype(np.float32) for k in bf16})
    return run_tf_script(RESOURCE_SCRIPT, {"__bf16__": np.array(bf16, dtype=str), **arrays})


def _scatter_reference(op, table, updates):
    out = table.copy()
    rows = updates.reshape(-1, table.shape[1])
    with np.errstate(over="ignore"):
        for i, r in zip(TABLE_IDS.reshape(-1), rows):
            out[i] = {"ResourceScatterAdd": out[i] + r, "ResourceScatterSub": out[i] - r,
                      "ResourceScatterUpdate": r}[op]
    return out


@pytest.mark.parametrize("name", list(RESOURCE_CASES))
def test_resource_gather_and_scatters_against_numpy_and_tensorflow(name, tf_resource):
    table, updates = RESOURCE_CASES[name]
    v = opgen.Variable(table)
    (got,) = execute_op("ResourceGather", [v.handle, TABLE_IDS], {"dtype": v.dtype})
    _compare(got.numpy(), table[TABLE_IDS])
    _compare(got.numpy(), _as(tf_resource[name + "/gather"], got.numpy()))
    for op in ("ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate"):
        v = opgen.Variable(table)
        assert execute_op(op, [v.handle, TABLE_IDS, updates], {}) in ([], (), None)
        _compare(v.numpy(), _scatter_reference(op, table, updates))
        _compare(v.numpy(), _as(tf_resource[f"{name}/{op}"], v.numpy()))


def test_resource_scatter_takes_a_scalar_update_and_checks_indices():
    v = opgen.Variable(np.float32([[1, 2], [3, 4], [5, 6]]))
    execute_op("ResourceScatterAdd", [v.handle, np.int32([2, 0]), np.float32(10)], {})
    np.testing.assert_array_equal(v.numpy(), [[11, 12], [3, 4], [15, 16]])
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in \[0, 3\)"):
        execute_op("ResourceScatterUpdate", [v.handle, np.int32([0, 5]), np.float32([[0, 0], [0, 0]])],
                   {})
    np.testing.assert_array_equal(v.numpy(), [[11, 12], [3, 4], [15, 16]])  # unchanged
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = -1 is not in \[0, 3\)"):
        execute_op("ResourceGather", [v.handle, np.int32([-1])], {"dtype": opgen.float32})
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Must have updates.shape = indices.shape \+ params.shape\[1:\]"):
        execute_op("ResourceScatterSub", [v.handle, np.int32([0]), np.float32([1, 2, 3])], {})
    with pytest.raises(errors.InvalidArgumentError,  # TensorFlow's words
                       match=re.escape("The shape of indices ([1]) must be a prefix of the shape of "
                                       "updates ([2,2])")):
        execute_op("ResourceScatterAdd", [v.handle, np.int32([0]), np.float32([[1, 2], [3, 4]])], {})
    with pytest.raises(errors.InvalidArgumentError,  # TensorFlow reads past the updates here
                       match=r"Must have updates.shape = indices.shape \+ params.shape\[1:\]"):
        execute_op("ResourceScatterAdd", [v.handle, np.int32([0, 1]), np.float32([[1], [3]])], {})
    np.testing.assert_array_equal(v.numpy(), [[11, 12], [3, 4], [15, 16]])


def test_embedding_training_step_with_resource_gather(tf_resource):
    """An embedding lookup on a variable (ResourceGather), a loss, its gradient with
    respect to the variable (an IndexedSlices, as TensorFlow's, made dense by the Mul)
    and one SGD step in a session: the table after it equals TensorFlow's (the eager
    tape's steps: the next test)."""
    want = tf_resource["sgd/after"]
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable(SGD_TABLE, name="table")
        rows = g.create_op("ResourceGather", [v.handle, opgen.constant(TABLE_IDS)],
                           {"dtype": opgen.float64}).outputs[0]
        w = opgen.constant(SGD_W)
        loss = opgen.ops.sum(opgen.ops.mul(opgen.ops.mul(rows, rows), w), [0, 1, 2])
        (dv,) = opgen.gradients(loss, [v])
        step = v.assign_sub(opgen.ops.mul(dv, opgen.constant(np.float64(0.1))))
        init = opgen.global_variables_initializer()
    with opgen.Session(graph=g) as s:
        s.run(init)
        s.run(step)
        after = s.run(v.value())
    np.testing.assert_allclose(after, want, rtol=1e-12)
    # numpy: each row read gets 2 * w * row, summed over its reads
    dense = np.zeros_like(SGD_TABLE)
    np.add.at(dense, TABLE_IDS.reshape(-1), (2 * SGD_W * SGD_TABLE[TABLE_IDS]).reshape(-1, 3))
    np.testing.assert_allclose(after, SGD_TABLE - 0.1 * dense, rtol=1e-12)


def _gather_loss(v, w):
    rows = execute_op("ResourceGather", [v.handle, TABLE_IDS], {"dtype": v.dtype})[0]
    return opgen.ops.sum(rows * rows * opgen.constant(w), [0, 1, 2])


def test_eager_tape_through_resource_gather_trains_like_tensorflow(tf_resource):
    """The eager tape differentiates a ResourceGather on a watched variable's handle (an
    embedding lookup): three SGD steps give TensorFlow's gradients (IndexedSlices, as
    its, compared densified) and table."""
    v = opgen.Variable(SGD_TABLE)
    for step in range(3):
        with opgen.GradientTape() as tape:
            tape.watch(v)
            loss = _gather_loss(v, SGD_W)
        grad = tape.gradient(loss, v)
        assert str(tf_resource[f"tape/kind{step}"]) == "IndexedSlices"
        assert isinstance(grad, opgen.IndexedSlices)
        np.testing.assert_array_equal(grad.indices.numpy(), TABLE_IDS.ravel())
        dense = np.zeros_like(SGD_TABLE)  # numpy: 2 * w * row per read, summed per row
        np.add.at(dense, TABLE_IDS.reshape(-1),
                  (2 * SGD_W * v.numpy()[TABLE_IDS]).reshape(-1, 3))
        np.testing.assert_allclose(np.asarray(grad), dense, rtol=1e-12)
        np.testing.assert_allclose(np.asarray(grad), tf_resource[f"tape/grad{step}"],
                                   rtol=1e-12)
        v.assign_sub(opgen.ops.mul(grad, np.float64(0.1)))
    np.testing.assert_allclose(v.numpy(), tf_resource["tape/after"], rtol=1e-12)


def test_eager_tape_watches_a_handle_as_tensorflow_does(tf_resource):
    """A handle alone does not watch its variable (None, as TensorFlow); once the
    variable is read on the tape, a ResourceGather and a ReadVariableOp through its
    handle are on the gradient's path; the gradient uses the values the ops read, not
    the variable's value after a later assignment."""
    v = opgen.Variable(tf_resource["tape/after"])
    with opgen.GradientTape() as tape:
        rows = execute_op("ResourceGather", [v.handle, TABLE_IDS], {"dtype": v.dtype})[0]
        loss = opgen.ops.sum(rows * rows, [0, 1, 2])
    assert bool(tf_resource["tape/unwatched"]) and tape.gradient(loss, v) is None
    table = v.numpy()
    with opgen.GradientTape() as tape:
        v.read_value()
        rows = execute_op("ResourceGather", [v.handle, TABLE_IDS], {"dtype": v.dtype})[0]
        whole = opgen.ops.read_variable_op(v.handle, v.dtype)
        loss = opgen.ops.sum(rows * rows, [0, 1, 2]) + opgen.ops.sum(whole * whole * whole,
                                                                       [0, 1])
        v.assign(np.zeros_like(table))  # after the reads: not what they saw
    grad = tape.gradient(loss, v).numpy()
    want = 3 * table ** 2
    np.add.at(want, TABLE_IDS.reshape(-1), (2 * table[TABLE_IDS]).reshape(-1, 3))
    np.testing.assert_allclose(grad, want, rtol=1e-12)
    np.testing.assert_allclose(grad, tf_resource["tape/accessed"], rtol=1e-12)


def test_eager_tape_passes_resource_scatters_and_variables_at_handles():
    """Scatters through a watched handle run under the tape (stateful: not replayed;
    the updates get no gradient, as in TensorFlow, whose tape links no write to a later
    read) and a Variable at a resource input fails as it does without a tape."""
    v = opgen.Variable(np.float64([[1, 2], [3, 4]]))
    u = opgen.constant(np.float64([[1, 1]]))
    with opgen.GradientTape() as tape:
        tape.watch(u)
        v.read_value()
        execute_op("ResourceScatterAdd", [v.handle, np.int32([0]), u], {})
        loss = opgen.ops.sum(v.read_value(), [0, 1])
    du, dv = tape.gradient(loss, [u, v])
    assert du is None
    np.testing.assert_array_equal(dv.numpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(v.numpy(), [[2, 3], [3, 4]])
    message = "input 'resource': expected a resource tensor, got a float64 tensor"
    with opgen.GradientTape(), pytest.raises(errors.InvalidArgumentError, match=message):
        execute_op("ResourceGather", [v, np.int32([0])], {"dtype": v.dtype})
    with pytest.raises(errors.InvalidArgumentError, match=message):
        execute_op("ResourceGather", [v, np.int32([0])], {"dtype": v.dtype})


def test_sparse_read_trains_like_tensorflow_gather_of_a_variable(tf_resource):
    """Variable.sparse_read (what tf.gather(v, ids) runs): rows as numpy's; under a tape
    it watches the variable as TensorFlow's does, and one SGD step gives TensorFlow's
    table; in a graph it is a ResourceGather node, in a traced function a gather."""
    v = opgen.Variable(SGD_TABLE)
    np.testing.assert_array_equal(v.sparse_read(TABLE_IDS).numpy(), SGD_TABLE[TABLE_IDS])
    with opgen.GradientTape() as tape:
        rows = v.sparse_read(TABLE_IDS)
        loss = opgen.ops.sum(rows * rows * opgen.constant(SGD_W), [0, 1, 2])
    assert tape.watched_variables() == (v,)
    grad = tape.gradient(loss, v)
    assert isinstance(grad, opgen.IndexedSlices)  # TensorFlow's type (tape/kind0)
    v.assign_sub(opgen.ops.mul(grad, np.float64(0.1)))  # as a dense tensor
    np.testing.assert_allclose(v.numpy(), tf_resource["sgd/after"], rtol=1e-12)
    frozen = opgen.Variable(SGD_TABLE, trainable=False)
    with opgen.GradientTape() as tape:
        loss = opgen.ops.sum(frozen.sparse_read(TABLE_IDS), [0, 1, 2])
    assert tape.watched_variables() == () and tape.gradient(loss, frozen) is None
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(SGD_TABLE)
        rows = w.sparse_read(opgen.constant(TABLE_IDS))
        assert rows.op.type == "ResourceGather"
        (dw,) = opgen.gradients(opgen.ops.sum(rows, [0, 1, 2]), [w])
        init = opgen.global_variables_initializer()
    with opgen.Session(graph=g) as s:
        s.run(init)
        got_rows, got_dw = s.run([rows, dw])
    np.testing.assert_array_equal(got_rows, SGD_TABLE[TABLE_IDS])
    assert isinstance(got_dw, opgen.IndexedSlices)
    np.testing.assert_array_equal(got_dw.indices, TABLE_IDS.ravel())
    got_dw = np.asarray(got_dw)
    np.testing.assert_array_equal(got_dw, np.bincount(TABLE_IDS.ravel(), minlength=5)[:, None]
                                  * np.ones((1, 3)))

    @opgen.function
    def lookup(ids):
        return v.sparse_read(ids)

    np.testing.assert_array_equal(lookup(opgen.constant(TABLE_IDS)).numpy(),
                                  v.numpy()[TABLE_IDS])
    with opgen.GradientTape() as tape:
        loss = opgen.ops.sum(lookup(opgen.constant(TABLE_IDS)), [0, 1, 2])
    np.testing.assert_array_equal(np.asarray(tape.gradient(loss, v)), got_dw)
