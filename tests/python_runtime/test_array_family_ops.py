"""InTopK(V2), UpperBound/LowerBound, Diag/DiagPart, Bitcast, Inplace{Update,Add,Sub} and
DataFormat{VecPermute,DimMap}: outputs and error messages against TensorFlow 2.21 (one
child process runs every case through tf.raw_ops), values against numpy over the dtypes
the CPU kernels register, and Diag/DiagPart's gradients against tf.GradientTape."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
from tf_reference import run_tf_script

import opgen
from opgen import ops
from opgen.runtime import errors, execute_op

from .kernel_dtypes import ALL, REALS, bfloat16, name

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(2021)


def _run(op, inputs, attrs=None):
    (out,) = execute_op(op, inputs, attrs or {})
    return out.numpy()


def _values(dtype, shape, lo=-50, hi=50):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    if np.issubdtype(dt, np.unsignedinteger):
        lo = max(lo, 0)  # keep a caller's floor: InplaceSub's reference must not go below 0
    return rng.integers(lo, hi, shape).astype(dtype)


# ---- The TensorFlow reference: every case through tf.raw_ops ---------------------------
# A case is (op, inputs, attrs): inputs as (name, array) pairs in OpDef order, attrs with
# dtypes written as "dtype:NAME". TensorFlow gives the output or its error's message.

TF_SCRIPT = textwrap.dedent("""
    import json, re, sys
    import numpy as np
    import tensorflow as tf
    spec = json.load(open(sys.argv[1]))
    arrays = np.load(sys.argv[2])
    out = {}
    def attr(v):
        return tf.as_dtype(v[6:]) if isinstance(v, str) and v.startswith("dtype:") else v
    for k, (op, names, dtypes, attrs) in enumerate(spec["cases"]):
        args = {n: tf.cast(tf.constant(arrays[f"{k}/{n}"]), d) if d == "bfloat16"
                else tf.constant(arrays[f"{k}/{n}"]) for n, d in zip(names, dtypes)}
        try:
            y = getattr(tf.raw_ops, op)(**args, **{a: attr(v) for a, v in attrs.items()})
            y = (tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y).numpy()
            out[f"{k}/y"] = y.astype(bytes) if y.dtype == object else y
        except tf.errors.OpError as e:
            m = re.sub(r"^\\{\\{[^}]*\\}\\} ", "", e.message)
            out[f"{k}/error"] = np.array(re.sub(r" \\[Op:\\w+\\].*$", "", m, flags=re.S))
            out[f"{k}/error_class"] = np.array(type(e).__name__)
    for k, (op, shape) in enumerate(spec["grads"]):
        x = tf.constant(np.load(sys.argv[2])[f"g{k}"])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.raw_ops, op)(**{"diagonal" if op == "Diag" else "input": x})
        w = tf.reshape(tf.range(tf.size(y), dtype=x.dtype), tf.shape(y))
        out[f"g{k}/grad"] = tape.gradient(y, x, output_gradients=w).numpy()
    np.savez(sys.argv[3], **out)
""")

_P = np.float32([[0.1, 0.3, 0.3, 0.2], [1, 2, 3, 4], [5, np.nan, 1, 0], [2, 2, 2, 2],
                 [np.inf, 1, 0, 0], [-1, -2, -3, -4]])
_SORTED = np.float32([[1, 2, 2, 4, 8], [0, 5, 6, 9, 9], [-3, -1, 0, 0, 7]])
_VALUES = np.float32([[2, 3, 0, 8, 9, np.nan], [9, 10, -1, 5, 5.5, 0], [0, -3, 7, 8, -4, -1]])


def _search_cases():
    cases = []
    for op in ("UpperBound", "LowerBound"):
        for dtype in ["float32", "float64", "int32", "int64", "uint8", "int8", "uint16", "int16",
                      "uint32", "uint64", "float16"] + (["bfloat16"] if bfloat16 else []):
            values = np.nan_to_num(_VALUES) if "int" in dtype else _VALUES
            vals = np.abs(values) if dtype.startswith("uint") else values
            srt = np.sort(np.abs(_SORTED), 1) if dtype.startswith("uint") else _SORTED
            cases.append((op, [("sorted_inputs", srt, dtype), ("values", vals, dtype)], {}))
        for out_type in ("int32", "int64"):
            cases.append((op, [("sorted_inputs", _SORTED, "float32"), ("values", _VALUES, "float32")],
                          {"out_type": f"dtype:{out_type}"}))
        cases += [
            (op, [("sorted_inputs", np.zeros((3, 0), np.float32), "float32"),
                  ("values", _VALUES, "float32")], {}),
            (op, [("sorted_inputs", _SORTED, "float32"), ("values", np.zeros((3, 0), np.float32),
                                                           "float32")], {}),
            (op, [("sorted_inputs", np.zeros((0, 4), np.float32), "float32"),
                  ("values", np.zeros((0, 2), np.float32), "float32")], {}),
            (op, [("sorted_inputs", _SORTED[0], "float32"), ("values", _VALUES, "float32")], {}),
            (op, [("sorted_inputs", _SORTED, "float32"), ("values", _VALUES[0], "float32")], {}),
            (op, [("sorted_inputs", _SORTED, "float32"), ("values", _VALUES[:2], "float32")], {}),
        ]
    return cases


def _in_top_k_cases():
    cases = []
    for tdtype in ("int32", "int64"):
        for targets in ([1, 3, 0, 2, 0, 0], [4, -1, 2, 3, 1, 3], [2, 2, 2, 2, 2, 2]):
            for k in (-1, 0, 1, 2, 3, 4, 5):
                t = np.array(targets)
                cases.append(("InTopKV2", [("predictions", _P, "float32"), ("targets", t, tdtype),
                                           ("k", np.array(k), tdtype)], {}))
                cases.append(("InTopK", [("predictions", _P, "float32"), ("targets", t, tdtype)],
                              {"k": k}))
    t2 = ("targets", np.array([0, 1]), "int32")
    cases += [
        ("InTopKV2", [("predictions", np.zeros((0, 3), np.float32), "float32"),
                      ("targets", np.zeros(0, np.int32), "int32"), ("k", np.array(1), "int32")], {}),
        ("InTopKV2", [("predictions", np.zeros((2, 0), np.float32), "float32"), t2,
                      ("k", np.array(1), "int32")], {}),
        ("InTopKV2", [("predictions", _P[0], "float32"), t2, ("k", np.array(1), "int32")], {}),
        ("InTopKV2", [("predictions", _P[:2], "float32"), ("targets", np.array([[0, 1]]), "int32"),
                      ("k", np.array(1), "int32")], {}),
        ("InTopKV2", [("predictions", _P[:3], "float32"), t2, ("k", np.array(1), "int32")], {}),
        ("InTopKV2", [("predictions", _P[:2], "float32"), t2, ("k", np.array([1]), "int32")], {}),
    ]
    return cases


def _diag_cases():
    cases = []
    for dtype in ["float32", "float64", "int32", "int64", "complex64", "complex128",
                  "float16"] + (["bfloat16"] if bfloat16 else []):
        for shape in [(3,), (2, 3), (2, 1, 2), (0,), (1,)]:
            x = _values(np.complex64 if dtype.startswith("complex") else np.float32, shape)
            cases.append(("Diag", [("diagonal", x, dtype)], {}))
            d = np.zeros(shape + shape, x.dtype)
            d.reshape(x.size, x.size)[...] = np.diag(x.reshape(-1)) + 1
            cases.append(("DiagPart", [("input", d, dtype)], {}))
    cases += [("Diag", [("diagonal", np.float32(1), "float32")], {}),
              ("DiagPart", [("input", np.float32(4), "float32")], {}),
              ("DiagPart", [("input", np.ones((2, 3, 2), np.float32), "float32")], {}),
              ("DiagPart", [("input", np.ones((2, 3), np.float32), "float32")], {}),
              ("DiagPart", [("input", np.ones((2, 3, 2, 4), np.float32), "float32")], {})]
    return cases


def _bitcast_cases():
    x32 = np.float32([[1.5, -2.0], [np.inf, 3.25]])
    return [
        ("Bitcast", [("input", x32, "float32")], {"type": "dtype:int32"}),
        ("Bitcast", [("input", x32, "float32")], {"type": "dtype:uint8"}),
        ("Bitcast", [("input", x32, "float32")], {"type": "dtype:float16"}),
        ("Bitcast", [("input", x32, "float32")], {"type": "dtype:int64"}),
        ("Bitcast", [("input", x32, "float32")], {"type": "dtype:complex64"}),
        ("Bitcast", [("input", np.arange(16, dtype=np.uint8).reshape(2, 8), "uint8")],
         {"type": "dtype:float64"}),
        ("Bitcast", [("input", np.complex128([1 + 2j, -3j]), "complex128")], {"type": "dtype:int16"}),
        ("Bitcast", [("input", np.zeros((0, 4), np.uint8), "uint8")], {"type": "dtype:float32"}),
        ("Bitcast", [("input", np.int8(5), "int8")], {"type": "dtype:uint8"}),
        ("Bitcast", [("input", np.int32([[1, 2, 3]]), "int32")], {"type": "dtype:int64"}),
        ("Bitcast", [("input", np.int32(1), "int32")], {"type": "dtype:int64"}),
    ]


def _inplace_cases():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    cases = []
    for op in ("InplaceUpdate", "InplaceAdd", "InplaceSub"):
        for i in ([0, 2], [1, 1], [4, -1], [-5, 3]):
            v = _values(np.float32, (len(i), 3))
            cases.append((op, [("x", x, "float32"), ("i", np.array(i), "int32"),
                               ("v", v, "float32")], {}))
        for dtype in ("int32", "int64", "uint8", "float64", "complex128", "float16", "int8"):
            xv = _values(np.complex128 if dtype.startswith("complex") else np.float64, (3, 2, 2))
            v = _values(np.complex128 if dtype.startswith("complex") else np.float64, (2, 2, 2))
            if dtype.startswith("uint"):
                xv, v = np.abs(xv), np.abs(v)
            cases.append((op, [("x", xv, dtype), ("i", np.array([2, 0]), "int32"),
                               ("v", v, dtype)], {}))
        cases += [
            (op, [("x", np.zeros(3, np.float32), "float32"), ("i", np.array([1]), "int32"),
                  ("v", np.ones(1, np.float32), "float32")], {}),
            (op, [("x", x, "float32"), ("i", np.zeros(0), "int32"),
                  ("v", np.zeros((0, 3), np.float32), "float32")], {}),
            (op, [("x", x, "float32"), ("i", np.array([[1]]), "int32"),
                  ("v", np.ones((1, 3), np.float32), "float32")], {}),
            (op, [("x", x, "float32"), ("i", np.array([1, 2]), "int32"),
                  ("v", np.ones((1, 3), np.float32), "float32")], {}),
            (op, [("x", x, "float32"), ("i", np.array([1]), "int32"),
                  ("v", np.ones((1, 2), np.float32), "float32")], {}),
            (op, [("x", x, "float32"), ("i", np.array([1]), "int32"),
                  ("v", np.ones((1, 3, 1), np.float32), "float32")], {}),
        ]
    strings = np.array([[b"a", b""], [b"long enough to live on the heap", b"d"], [b"e", b"f"]], object)
    cases.append(("InplaceUpdate", [("x", strings, "object"), ("i", np.array([2, -3, 0]), "int32"),
                                    ("v", strings[[1, 2, 1]][:, ::-1], "object")], {}))
    cases.append(("InplaceUpdate", [("x", np.array([[True], [False]]), "bool"),
                                    ("i", np.array([1]), "int32"),
                                    ("v", np.array([[True]]), "bool")], {}))
    return cases


_FORMATS = [("NHWC", "NCHW"), ("NCHW", "NHWC"), ("NHWC", "HWNC"), ("NHWC", "NHWC"),
            ("ABCD", "DCBA"), ("NDHWC", "NCDHW"), ("NCDHW", "NDHWC")]


def _data_format_cases():
    cases = []
    for src, dst in _FORMATS:
        n = len(src)
        attrs = {"src_format": src, "dst_format": dst}
        for dtype in ("int32", "int64"):
            cases.append(("DataFormatDimMap", [("x", np.arange(-n, 2 * n).reshape(3, n), dtype)], attrs))
            cases.append(("DataFormatDimMap", [("x", np.array(1), dtype)], attrs))
            cases.append(("DataFormatVecPermute", [("x", np.arange(10, 10 + n), dtype)], attrs))
            cases.append(("DataFormatVecPermute",
                          [("x", np.arange(2 * n).reshape(n, 2), dtype)], attrs))
        if "H" in src:
            cases.append(("DataFormatVecPermute", [("x", np.arange(1, n - 1), "int32")], attrs))
            cases.append(("DataFormatVecPermute",
                          [("x", np.arange(2 * n - 4).reshape(n - 2, 2), "int32")], attrs))
    x4 = ("x", np.arange(4), "int32")
    cases += [
        ("DataFormatVecPermute", [("x", np.arange(3), "int32")], {}),
        ("DataFormatVecPermute", [("x", np.arange(6).reshape(3, 2), "int32")], {}),
        ("DataFormatVecPermute", [("x", np.arange(12).reshape(4, 3), "int32")], {}),
        ("DataFormatVecPermute", [("x", np.zeros((4, 2, 1)), "int32")], {}),
        ("DataFormatVecPermute", [("x", np.array(1), "int32")], {}),
        ("DataFormatVecPermute", [x4], {"src_format": "NHWC", "dst_format": "NHWX"}),
        ("DataFormatVecPermute", [x4], {"src_format": "NHW", "dst_format": "NWH"}),
        ("DataFormatVecPermute", [x4], {"src_format": "NHWC", "dst_format": "NCDHW"}),
        ("DataFormatVecPermute", [x4], {"src_format": "NHHC", "dst_format": "HNHC"}),
        ("DataFormatDimMap", [x4], {"src_format": "NHWC", "dst_format": "NCHWX"}),
        ("DataFormatDimMap", [x4], {"src_format": "NHWC", "dst_format": "NHW"}),
        ("DataFormatDimMap", [x4], {"src_format": "NHWC", "dst_format": "NHWX"}),
        ("DataFormatDimMap", [("x", np.zeros((0, 2)), "int32")], {}),
    ]
    # indices outside [-n, n): TensorFlow's (x + n) % n, a negative remainder taking the
    # last slot
    far = [-9, -7, -6, -5, 4, 5, 9, 11, 2**31 - 1, -2**31]
    cases += [
        ("DataFormatDimMap", [("x", np.array(far), "int32")], {}),
        ("DataFormatDimMap", [("x", np.array(far + [2**63 - 1, -2**63]), "int64")],
         {"src_format": "NCDHW", "dst_format": "NDHWC"}),
    ]
    return cases


CASES = (_in_top_k_cases() + _search_cases() + _diag_cases() + _bitcast_cases()
         + _inplace_cases() + _data_format_cases())
GRADS = [("Diag", rng.normal(size=(3,))), ("Diag", rng.normal(size=(2, 3))),
         ("DiagPart", rng.normal(size=(3, 3))), ("DiagPart", rng.normal(size=(2, 3, 2, 3)))]


def _np_dtype(dtype: str):
    return bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


def _stored(array, dtype: str):
    """The array as the TensorFlow child reads it (bfloat16 goes as float32, cast there)."""
    if dtype == "object":  # strings go as bytes (npz stores no objects)
        return np.asarray(array).astype(bytes)
    return np.asarray(array).astype(np.float32 if dtype == "bfloat16" else dtype)


@pytest.fixture(scope="module")
def tf_out():
    arrays, spec = {}, []
    for k, (op, inputs, attrs) in enumerate(CASES):
        for n, a, d in inputs:
            arrays[f"{k}/{n}"] = _stored(a, d)
        spec.append([op, [n for n, _, _ in inputs], [d for _, _, d in inputs], attrs])
    for k, (op, x) in enumerate(GRADS):
        arrays[f"g{k}"] = x
    return run_tf_script(TF_SCRIPT, arrays, {"cases": spec, "grads": [[op, list(x.shape)] for op, x in GRADS]})


def _attr(v):
    return opgen.as_dtype(_np_dtype(v[6:])) if isinstance(v, str) and v.startswith("dtype:") else v


def _case_id(k):
    op, inputs, attrs = CASES[k]
    return f"{k}-{op}-" + "-".join(d for _, _, d in inputs[:1])


@pytest.mark.parametrize("k", range(len(CASES)), ids=_case_id)
def test_outputs_and_errors_match_tensorflow(tf_out, k):
    op, inputs, attrs = CASES[k]
    args = [np.asarray(a).astype(_np_dtype(d)) for _, a, d in inputs]
    kw = {a: _attr(v) for a, v in attrs.items()}
    if f"{k}/error" in tf_out:
        want, cls = str(tf_out[f"{k}/error"]), str(tf_out[f"{k}/error_class"])
        with pytest.raises(getattr(errors, cls)) as info:
            _run(op, args, kw)
        if cls == "InvalidArgumentError":  # (a missing kernel's message lists others)
            assert want in str(info.value)
        return
    got = _run(op, args, kw)
    want = tf_out[f"{k}/y"]
    if got.dtype == _np_dtype("bfloat16") if bfloat16 else False:
        got = got.astype(np.float32)
    if got.dtype == object:
        got = got.astype(bytes)
    assert got.shape == want.shape
    if np.issubdtype(got.dtype, np.inexact):  # bit for bit, NaNs included
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))


@pytest.mark.parametrize("k", range(len(GRADS)))
def test_diag_gradients_match_tensorflow(tf_out, k):
    op, x = GRADS[k]
    xt = opgen.constant(x)
    with opgen.GradientTape() as tape:
        tape.watch(xt)
        y = ops.diag(xt) if op == "Diag" else ops.diag_part(xt)
    w = np.arange(np.prod(y.shape), dtype=x.dtype).reshape(y.shape)
    grad = tape.gradient(y, xt, output_gradients=opgen.constant(w))
    np.testing.assert_array_equal(grad.numpy(), tf_out[f"g{k}/grad"])


# ---- Against numpy, every registered dtype ------------------------------------------------

@pytest.mark.parametrize("dtype", REALS, ids=name)
@pytest.mark.parametrize("op, side", [("LowerBound", "left"), ("UpperBound", "right")])
def test_bounds_are_numpy_searchsorted(op, side, dtype):
    srt = np.sort(_values(dtype, (3, 7), 0, 20), axis=1)
    vals = _values(dtype, (3, 5), 0, 21)
    got = _run(op, [srt, vals], {"out_type": opgen.int64})
    want = np.stack([np.searchsorted(srt[b].astype(np.float64), vals[b].astype(np.float64), side)
                     for b in range(3)])
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", ALL + [object], ids=lambda d: "string" if d is object else name(d))
def test_inplace_update_moves_rows_of_every_dtype(dtype):
    if dtype is object:
        x = np.array([str(k).encode() * k for k in range(30)], object).reshape(5, 2, 3)
        v = np.array([b"v%d" % k for k in range(18)], object).reshape(3, 2, 3)
    else:
        x = _values(dtype, (5, 2, 3))
        v = _values(dtype, (3, 2, 3))
    i = np.int32([4, 0, -4])
    got = _run("InplaceUpdate", [x, i, v])
    want = x.copy()
    want[[4, 0, 1]] = v
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, _run("Identity", [x]))  # x itself is unchanged


@pytest.mark.parametrize("dtype", [d for d in ALL if d is not np.bool_], ids=name)
@pytest.mark.parametrize("op, sign", [("InplaceAdd", 1), ("InplaceSub", -1)])
def test_inplace_add_and_sub_accumulate_repeated_rows(op, sign, dtype):
    x = _values(dtype, (3, 4), 10, 20)
    v = _values(dtype, (3, 4), 0, 5)
    i = np.int32([1, 1, 2])
    got = _run(op, [x, i, v])
    # one rounding per step to the dtype, as the kernels accumulate
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    want = x.copy()
    for j, r in enumerate(i):
        want[r] = (want[r].astype(wide) + sign * v[j].astype(wide)).astype(dtype)
    np.testing.assert_array_equal(got, want)


def test_inplace_ops_refuse_rows_into_an_empty_x():
    with pytest.raises(errors.InvalidArgumentError, match="x has no rows"):
        _run("InplaceAdd", [np.zeros((0, 2), np.float32), np.int32([0]), np.ones((1, 2), np.float32)])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.complex64,
                                   np.complex128, np.float16], ids=name)
def test_diag_and_diag_part_are_numpy_diag(dtype):
    x = _values(dtype, (2, 3))
    d = _run("Diag", [x])
    assert d.shape == (2, 3, 2, 3)
    np.testing.assert_array_equal(d.reshape(6, 6), np.diag(x.reshape(-1)))
    np.testing.assert_array_equal(_run("DiagPart", [d]), x)


def test_bitcast_shares_the_bytes_as_numpy_view():
    x = rng.normal(size=(3, 4)).astype(np.float64)
    np.testing.assert_array_equal(_run("Bitcast", [x], {"type": opgen.uint16}),
                                  x.view(np.uint16).reshape(3, 4, 4))
    y = rng.integers(0, 255, (2, 4), dtype=np.uint8)
    np.testing.assert_array_equal(_run("Bitcast", [y], {"type": opgen.int32}),
                                  y.view(np.int32).reshape(2))


def test_in_top_k_breaks_no_ties_and_is_false_for_non_finite_rows():
    p = np.float32([[3, 1, 3, 2], [1, np.nan, 2, 3]])
    got = _run("InTopKV2", [p, np.int32([2, 3]), np.int32(1)])
    np.testing.assert_array_equal(got, [True, False])


# ---- Graphs: shape functions ----------------------------------------------------------

def test_shapes_are_inferred_in_a_graph():
    g = opgen.Graph()
    with g.as_default():
        d = ops.placeholder(opgen.float32, shape=[2, None])
        dd = ops.diag(d)
        assert list(dd.shape) == [2, None, 2, None]
        assert list(ops.diag_part(ops.placeholder(opgen.float32, shape=[3, None, None, 4])).shape) == [3, 4]
        assert list(ops.bitcast(ops.placeholder(opgen.float32, shape=[5]), opgen.uint8).shape) == [5, 4]
        assert list(ops.bitcast(ops.placeholder(opgen.uint8, shape=[5, 4]), opgen.int32).shape) == [5]
        p = ops.placeholder(opgen.float32, shape=[None, 10])
        assert list(ops.in_top_kv2(p, ops.placeholder(opgen.int32, shape=[7]), 3).shape) == [7]
        s = ops.placeholder(opgen.float32, shape=[2, 9])
        assert list(ops.upper_bound(s, ops.placeholder(opgen.float32, shape=[2, 4])).shape) == [2, 4]
        with pytest.raises(errors.InvalidArgumentError, match="does not match 4"):
            ops.bitcast(ops.placeholder(opgen.uint8, shape=[5, 3]), opgen.int32)
        with pytest.raises(errors.InvalidArgumentError, match="even and non-zero rank"):
            ops.diag_part(ops.placeholder(opgen.float32, shape=[2, 3, 2]))
    x = np.arange(6, dtype=np.float32)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(dd, {d: x.reshape(2, 3)}),
                                      np.diag(x).reshape(2, 3, 2, 3))
