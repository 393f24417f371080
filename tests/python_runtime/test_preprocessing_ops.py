"""The ops of Keras' preprocessing layers that the layer sweep needed: ScaleAndTranslate
(Resizing with Lanczos / Gaussian / cubic filters) and its gradient, Bincount /
DenseBincount (CategoryEncoding), AsString and StringToHashBucketFast / Strong
(Hashing). Against numpy where it has the computation (bincount) and against
TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) for everything, bit for bit where the
result is an integer or a string."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(41)
FILTERS = ["lanczos1", "lanczos3", "lanczos5", "gaussian", "box", "triangle", "keyscubic",
           "mitchellcubic"]
# (input [h, w], output size, scale, translation): growing, shrinking (where antialias
# widens the filter), and an arbitrary transform whose edges sample outside the image.
GEOMETRIES = [((5, 6), (7, 9), (7 / 5, 9 / 6), (0.0, 0.0)),
              ((9, 8), (4, 3), (4 / 9, 3 / 8), (0.0, 0.0)),
              ((6, 7), (8, 5), (1.3, 0.6), (0.5, -1.25))]


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _words():
    """Random byte strings of every length 0..130 (all of FarmHash's length classes and
    several 64-byte blocks), some with bytes >= 0x80, plus a few long ones."""
    words = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(131)]
    words += [bytes(rng.integers(97, 123, n, dtype=np.uint8)) for n in range(0, 131, 3)]
    words += [b"x" * 1000, bytes(range(256)) * 3, "h\u00e9llo w\u00f6rld".encode()]
    return words


def _as_object(words):
    array = np.empty(len(words), object)
    array[:] = words
    return array


# ---- the TensorFlow reference, computed once in a child process -----------------------

def _cases():
    resize = []
    for f in FILTERS:
        for aa in (True, False):
            for g, (in_hw, size, scale, trans) in enumerate(GEOMETRIES):
                image = rng.normal(0, 1, (2, *in_hw, 3)).astype(np.float32)
                resize.append({"id": f"{f}-{aa}-{g}", "kernel_type": f, "antialias": aa,
                               "image": image.tolist(), "dtype": "float32", "size": list(size),
                               "scale": list(scale), "translation": list(trans),
                               "grads": rng.normal(0, 1, (2, *size, 3)).tolist()})
    for dtype in ("uint8", "int16", "float64"):
        image = rng.integers(0, 200, (1, 5, 6, 2)).astype(dtype)
        resize.append({"id": f"lanczos3-{dtype}", "kernel_type": "lanczos3", "antialias": True,
                       "image": image.tolist(), "dtype": dtype, "size": [3, 8],
                       "scale": [0.6, 8 / 6], "translation": [0.0, 0.0], "grads": None})
    as_string = []
    floats = [1.5, -2.25e-7, 3e20, float("nan"), float("inf"), -0.0, 1 / 3, 123456789.0, -42.0]
    ints = [0, 7, -3, 127, -128, 42]
    attr_sets = [{}, {"width": 8}, {"width": 8, "fill": "0"}, {"width": 7, "fill": "-"},
                 {"width": 6, "fill": " "}, {"width": 5, "fill": "+"}, {"fill": "#"}]
    float_attrs = [{"precision": 3}, {"scientific": True}, {"shortest": True},
                   {"precision": 2, "width": 11, "fill": "0", "scientific": True},
                   {"shortest": True, "precision": 10}, {"precision": 0}, {"fill": "#",
                                                                           "precision": 0}]
    for dtype in ("float32", "float64", "float16", "bfloat16", "complex64", "complex128"):
        for k, attrs in enumerate(attr_sets + float_attrs):
            as_string.append({"id": f"{dtype}-{k}", "dtype": dtype, "attrs": attrs,
                              "values": floats})
    for dtype in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
        values = [v % 256 if dtype.startswith("u") else v for v in ints]
        if dtype == "int64":
            values += [2**63 - 1, -2**63]
        if dtype == "uint64":
            values += [2**64 - 1]
        for k, attrs in enumerate(attr_sets):
            as_string.append({"id": f"{dtype}-{k}", "dtype": dtype, "attrs": attrs,
                              "values": values})
    for k, attrs in enumerate([{}, {"width": 3}]):
        as_string.append({"id": f"bool-{k}", "dtype": "bool", "attrs": attrs,
                          "values": [True, False]})
    return resize, as_string


RESIZE_CASES, AS_STRING_CASES = _cases()
WORDS = _words()
BUCKETS = [1, 7, 1000003, 2**62, 2**63 - 1]
KEYS = [[0, 0], [133, 133], [7, 99], [-1, 2**62 + 5]]


def _bincount_cases():
    ragged, sparse = [], []
    for tidx in ("int32", "int64"):
        for t in ("int32", "int64", "float32", "float64"):
            for binary in (False, True):
                splits = [0, 3, 3, 8, 12]
                weights = rng.integers(1, 5, 12).tolist() if not binary else []
                ragged.append({"splits": splits, "values": rng.integers(0, 8, 12).tolist(),
                               "size": 6, "weights": weights, "tidx": tidx, "t": t,
                               "binary": binary})
                for shape in ([9], [3, 5], [2, 3, 4]):
                    n = 7
                    flat = rng.choice(int(np.prod(shape)), n, replace=False)
                    indices = np.stack(np.unravel_index(flat, shape), 1).ravel().tolist()
                    low = 0 if len(shape) == 1 else -2  # batched: negatives left out
                    sparse.append({"indices": indices, "shape": shape,
                                   "values": rng.integers(low, 8, n).tolist(), "size": 6,
                                   "weights": rng.integers(1, 5, n).tolist() if not binary else [],
                                   "tidx": tidx, "t": t, "binary": binary})
    return ragged, sparse


RAGGED_CASES, SPARSE_CASES = _bincount_cases()
# Rows of raw bytes: 0..200 bytes a row (5 x 10 int32 = 40 bytes, 3 x 2 x 9 float64 = 144).
FINGERPRINT_ROWS = {"int32": rng.integers(-9, 9, (5, 10)).astype(np.int32),
                    "float64": rng.normal(0, 1, (3, 2, 9)),
                    "uint8": rng.integers(0, 256, (4, 200)).astype(np.uint8),
                    "bool": rng.random((6, 3)) < 0.5}

TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    spec = json.load(open(sys.argv[1]))
    words = [bytes.fromhex(w) for w in spec["words"]]
    out = {}
    for c in spec["resize"]:
        dt = tf.bfloat16 if c["dtype"] == "bfloat16" else tf.as_dtype(c["dtype"])
        image = tf.constant(np.array(c["image"], c["dtype"]))
        args = dict(size=c["size"], scale=tf.constant(c["scale"], tf.float32),
                    translation=tf.constant(c["translation"], tf.float32),
                    kernel_type=c["kernel_type"], antialias=c["antialias"])
        out["resize/" + c["id"]] = tf.raw_ops.ScaleAndTranslate(images=image, **args).numpy()
        if c["grads"] is not None:
            grads = tf.constant(np.array(c["grads"], np.float32))
            with tf.GradientTape() as tape:
                tape.watch(image)
                y = tf.raw_ops.ScaleAndTranslate(images=image, **args)
            out["grad/" + c["id"]] = tape.gradient(y, image, output_gradients=grads).numpy()
    for c in spec["as_string"]:
        dt = tf.as_dtype(c["dtype"])
        values = tf.cast(tf.constant(c["values"], tf.float64 if dt.is_floating or dt.is_complex
                                     else (tf.bool if dt == tf.bool else tf.float64)), dt) \
            if c["dtype"] not in ("int64", "uint64", "uint32") else \
            tf.constant(np.array(c["values"], c["dtype"]))
        out["as_string/" + c["id"]] = np.array(
            tf.strings.as_string(values, **c["attrs"]).numpy().tolist(), dtype=object)
    from tensorflow.python.ops import gen_math_ops as g
    for k, c in enumerate(spec["ragged"]):
        w = np.array(c["weights"], c["t"])
        out[f"ragged/{k}"] = g.ragged_bincount(np.array(c["splits"], np.int64),
                                               np.array(c["values"], c["tidx"]),
                                               np.array(c["size"], c["tidx"]), w,
                                               binary_output=c["binary"]).numpy()
    for k, c in enumerate(spec["sparse"]):
        w = np.array(c["weights"], c["t"])
        out[f"sparse/{k}"] = g.sparse_bincount(np.array(c["indices"], np.int64).reshape(
            -1, len(c["shape"])), np.array(c["values"], c["tidx"]), np.array(c["shape"], np.int64),
            np.array(c["size"], c["tidx"]), w, binary_output=c["binary"]).numpy()
    t = tf.constant(words)
    out["fingerprint/words"] = tf.fingerprint(t).numpy()
    out["fingerprint/pairs"] = tf.fingerprint(tf.reshape(t[:130], (65, 2))).numpy()
    for dtype in ("int32", "float64", "uint8", "bool"):
        data = np.array(spec["rows"][dtype], dtype)
        out[f"fingerprint/{dtype}"] = tf.fingerprint(tf.constant(data)).numpy()
    for n in spec["buckets"]:
        out[f"fast/{n}"] = tf.strings.to_hash_bucket_fast(t, n).numpy()
        for k, key in enumerate(spec["keys"]):
            out[f"strong/{n}/{k}"] = tf.strings.to_hash_bucket_strong(t, n, key).numpy()
    np.savez(sys.argv[2], **{k: (np.array([s.hex() for s in v]) if v.dtype == object else v)
                             for k, v in out.items()})
""")


@pytest.fixture(scope="module")
def tf_ref():
    spec = {"resize": RESIZE_CASES, "as_string": AS_STRING_CASES,
            "words": [w.hex() for w in WORDS], "buckets": BUCKETS, "keys": KEYS,
            "rows": {k: v.tolist() for k, v in FINGERPRINT_ROWS.items()},
            "ragged": RAGGED_CASES, "sparse": SPARSE_CASES}
    return run_tf_script(TF_SCRIPT, spec=spec)


# ---- ScaleAndTranslate ------------------------------------------------------------------

def _resize_inputs(c):
    return [np.array(c["image"], c["dtype"]), np.int32(c["size"]), np.float32(c["scale"]),
            np.float32(c["translation"])]


@pytest.mark.parametrize("case", RESIZE_CASES, ids=[c["id"] for c in RESIZE_CASES])
def test_scale_and_translate_matches_tensorflow(case, tf_ref):
    attrs = {"kernel_type": case["kernel_type"], "antialias": case["antialias"]}
    (got,) = _run("ScaleAndTranslate", _resize_inputs(case), attrs)
    want = tf_ref["resize/" + case["id"]]
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("case", [c for c in RESIZE_CASES if c["grads"] is not None],
                         ids=[c["id"] for c in RESIZE_CASES if c["grads"] is not None])
def test_scale_and_translate_gradient_matches_tensorflow(case, tf_ref):
    """Through the registered gradient (a graph), and the grad op run directly."""
    attrs = {"kernel_type": case["kernel_type"], "antialias": case["antialias"]}
    image, size, scale, trans = _resize_inputs(case)
    grads = np.array(case["grads"], np.float32)
    want = tf_ref["grad/" + case["id"]]
    (direct,) = _run("ScaleAndTranslateGrad", [grads, image, scale, trans], attrs)
    np.testing.assert_allclose(direct, want, rtol=1e-5, atol=1e-5)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=image.shape)
        y = g.create_op("ScaleAndTranslate", [x, opgen.constant(size), opgen.constant(scale),
                                              opgen.constant(trans)], attrs).outputs[0]
        (dx,) = opgen.gradients(y, [x], grad_ys=[opgen.constant(grads)])
    with opgen.Session(graph=g) as session:
        np.testing.assert_allclose(session.run(dx, {x: image}), want, rtol=1e-5, atol=1e-5)


def test_scale_and_translate_identity_transform_copies_the_image():
    """The interpolating filters are 1 at 0 and 0 at the other integers (Gaussian and
    Mitchell's cubic blur, by design)."""
    image = rng.normal(0, 1, (1, 4, 5, 2)).astype(np.float32)
    for f in ("lanczos1", "lanczos3", "lanczos5", "box", "triangle", "keyscubic"):
        (got,) = _run("ScaleAndTranslate", [image, np.int32([4, 5]), np.float32([1, 1]),
                                            np.float32([0, 0])], {"kernel_type": f})
        np.testing.assert_allclose(got, image, rtol=1e-5, atol=1e-5, err_msg=f)


@pytest.mark.parametrize("inputs, attrs, match", [
    ([np.zeros((1, 3, 3, 1), np.float32), np.int32([2, 2]), np.float32([1, 1]),
      np.float32([0, 0])], {"kernel_type": "sinc"}, "Unrecognized kernel type"),
    ([np.zeros((1, 3, 3, 1), np.float32), np.int32([2, 2]), np.float32([0, 1]),
      np.float32([0, 0])], {}, "Scale must be greater than zero"),
    ([np.zeros((1, 3, 3, 1), np.float32), np.int32([0, 2]), np.float32([1, 1]),
      np.float32([0, 0])], {}, "positive"),
    ([np.zeros((3, 3, 1), np.float32), np.int32([2, 2]), np.float32([1, 1]),
      np.float32([0, 0])], {}, "4"),
    ([np.zeros((1, 3, 3, 1), np.float32), np.int32([2, 2]), np.float32([1, 1, 1]),
      np.float32([0, 0])], {}, "two elements"),
])
def test_scale_and_translate_bad_operands_are_errors(inputs, attrs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run("ScaleAndTranslate", inputs, attrs)


# ---- Bincount, DenseBincount --------------------------------------------------------

@pytest.mark.parametrize("tidx", [np.int32, np.int64])
@pytest.mark.parametrize("t", [np.int32, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("binary", [False, True])
def test_dense_bincount_matches_numpy(tidx, t, binary):
    size = 6
    for shape in [(9,), (3, 5), ()]:
        values = rng.integers(0, 9, shape).astype(tidx)  # 6..8 fall outside the bins
        weights = rng.integers(1, 5, shape).astype(t)
        rows = values.reshape(-1, shape[-1]) if len(shape) == 2 else values.reshape(1, -1)
        wrows = weights.reshape(rows.shape)
        for w in (weights, np.zeros((0,), t)):
            want = np.stack([np.bincount(r[r < size], (wr[r < size] if w.size else None),
                                         minlength=size)[:size] for r, wr in zip(rows, wrows)])
            if binary:
                want = (np.stack([np.bincount(r[r < size], minlength=size)[:size]
                                  for r in rows]) > 0)
            want = want.astype(t).reshape((rows.shape[0], size) if len(shape) == 2 else (size,))
            (got,) = _run("DenseBincount", [values, tidx(size), w], {"binary_output": binary})
            assert got.dtype == t
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t", [np.int32, np.int64, np.float32, np.float64])
def test_bincount_matches_numpy(t):
    values = rng.integers(0, 12, (4, 5)).astype(np.int32)
    weights = rng.uniform(0, 3, (4, 5)).astype(t) if t in (np.float32, np.float64) else \
        rng.integers(0, 4, (4, 5)).astype(t)
    flat = values.ravel()
    keep = flat < 10
    (got,) = _run("Bincount", [values, np.int32(10), weights])
    want = np.bincount(flat[keep], weights.ravel()[keep].astype(np.float64), minlength=10)
    np.testing.assert_allclose(got, want.astype(t), rtol=1e-6)
    (counts,) = _run("Bincount", [values, np.int32(10), np.zeros((0,), t)])
    np.testing.assert_array_equal(counts, np.bincount(flat[keep], minlength=10).astype(t))


@pytest.mark.parametrize("op, inputs, match", [
    ("Bincount", [np.int32([1, -2]), np.int32(3), np.zeros(0, np.float32)], "non-negative"),
    ("DenseBincount", [np.int32([1, -2]), np.int32(3), np.zeros(0, np.float32)], "non-negative"),
    ("DenseBincount", [np.int32([1, 2]), np.int32(-1), np.zeros(0, np.float32)], "size"),
    ("DenseBincount", [np.int32([[[1]]]), np.int32(3), np.zeros(0, np.float32)], "rank"),
    ("DenseBincount", [np.int32([1, 2]), np.int32(3), np.ones(1, np.float32)], "weights"),
    ("Bincount", [np.int32([1, 2]), np.int32([3]), np.zeros(0, np.float32)], "scalar"),
])
def test_bincount_bad_operands_are_errors(op, inputs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run(op, inputs)


# ---- AsString -------------------------------------------------------------------------

def _as_string_input(case):
    if case["dtype"] == "bfloat16":
        return np.array(case["values"], np.float32).astype(opgen.bfloat16.as_numpy_dtype)
    if case["dtype"] in ("int64", "uint64", "uint32"):
        return np.array(case["values"], case["dtype"])
    if case["dtype"] == "bool":
        return np.array(case["values"], bool)
    with np.errstate(over="ignore"):  # 3e20 is inf in half, as in TensorFlow's cast
        return np.array(case["values"], np.float64).astype(case["dtype"])


@pytest.mark.parametrize("case", AS_STRING_CASES, ids=[c["id"] for c in AS_STRING_CASES])
def test_as_string_matches_tensorflow(case, tf_ref):
    (got,) = _run("AsString", [_as_string_input(case)], case["attrs"])
    want = [bytes.fromhex(h) for h in tf_ref["as_string/" + case["id"]]]
    assert [bytes(g) for g in got.ravel()] == want


@pytest.mark.parametrize("value, attrs, match", [
    (np.int32([1]), {"precision": 2}, "precision not supported"),
    (np.int32([1]), {"scientific": True}, "not supported for datatype"),
    (np.float32([1]), {"scientific": True, "shortest": True}, "both scientific and shortest"),
    (np.float32([1]), {"fill": "x", "width": 4}, "Fill argument not supported"),
    (np.float32([1]), {"fill": "%", "width": 4}, "Fill argument not supported"),
    (np.float32([1]), {"fill": "00"}, "one or fewer characters"),
])
def test_as_string_bad_attrs_are_errors(value, attrs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run("AsString", [value], attrs)


def test_as_string_of_strings_pads_to_width():
    words = _as_object([b"ab", b"", b"longer than five"])
    (same,) = _run("AsString", [words])
    assert [bytes(w) for w in same] == [b"ab", b"", b"longer than five"]
    (padded,) = _run("AsString", [words], {"width": 5, "fill": "-"})
    assert [bytes(w) for w in padded] == [b"ab   ", b"     ", b"longer than five"]


# ---- StringToHashBucketFast / Strong ----------------------------------------------------

@pytest.mark.parametrize("buckets", BUCKETS)
def test_hash_bucket_fast_is_tensorflows_fingerprint64(buckets, tf_ref):
    """Modulo 2^62 and 2^63 - 1 together pin down all 64 bits of the fingerprint."""
    (got,) = _run("StringToHashBucketFast", [_as_object(WORDS)], {"num_buckets": buckets})
    np.testing.assert_array_equal(got, tf_ref[f"fast/{buckets}"])


@pytest.mark.parametrize("buckets", BUCKETS)
@pytest.mark.parametrize("k", range(len(KEYS)))
def test_hash_bucket_strong_is_tensorflows_siphash(buckets, k, tf_ref):
    attrs = {"num_buckets": buckets, "key": KEYS[k]}
    (got,) = _run("StringToHashBucketStrong", [_as_object(WORDS).reshape(-1, 1)], attrs)
    assert got.shape == (len(WORDS), 1)
    np.testing.assert_array_equal(got.ravel(), tf_ref[f"strong/{buckets}/{k}"])


def test_hash_bucket_strong_wants_two_key_words():
    with pytest.raises(errors.InvalidArgumentError, match="2 elements"):
        _run("StringToHashBucketStrong", [_as_object([b"a"])], {"num_buckets": 3, "key": [1]})


# ---- Fingerprint ----------------------------------------------------------------------

def test_fingerprint_of_strings_matches_tensorflow(tf_ref):
    """One string a row: its Fingerprint64 (all 64 bits, little-endian); several: the
    fingerprint of their fingerprints."""
    method = _as_object([b"farmhash64"])[0]
    (got,) = _run("Fingerprint", [_as_object(WORDS), method])
    assert got.dtype == np.uint8 and got.shape == (len(WORDS), 8)
    np.testing.assert_array_equal(got, tf_ref["fingerprint/words"])
    (pairs,) = _run("Fingerprint", [_as_object(WORDS[:130]).reshape(65, 2), method])
    np.testing.assert_array_equal(pairs, tf_ref["fingerprint/pairs"])


@pytest.mark.parametrize("dtype", sorted(FINGERPRINT_ROWS))
def test_fingerprint_of_numbers_hashes_each_rows_bytes(dtype, tf_ref):
    method = _as_object([b"farmhash64"])[0]
    (got,) = _run("Fingerprint", [FINGERPRINT_ROWS[dtype], method])
    np.testing.assert_array_equal(got, tf_ref[f"fingerprint/{dtype}"])


def test_fingerprint_bad_operands_are_errors():
    with pytest.raises(errors.InvalidArgumentError, match="Unsupported fingerprint method"):
        _run("Fingerprint", [np.int32([1]), _as_object([b"md5"])[0]])
    with pytest.raises(errors.InvalidArgumentError, match="at least one dimension"):
        _run("Fingerprint", [np.int32(1), _as_object([b"farmhash64"])[0]])
    (empty,) = _run("Fingerprint", [np.zeros((0, 3), np.float32), _as_object([b"farmhash64"])[0]])
    assert empty.shape == (0, 8)


# ---- RaggedBincount, SparseBincount ---------------------------------------------------

@pytest.mark.parametrize("k", range(len(RAGGED_CASES)))
def test_ragged_bincount_matches_numpy_and_tensorflow(k, tf_ref):
    c = RAGGED_CASES[k]
    values = np.array(c["values"], c["tidx"])
    weights = np.array(c["weights"], c["t"])
    (got,) = _run("RaggedBincount", [np.array(c["splits"], np.int64), values,
                                     np.array(c["size"], c["tidx"]), weights],
                  {"binary_output": c["binary"]})
    want = np.zeros((len(c["splits"]) - 1, c["size"]), c["t"])
    for r, (a, b) in enumerate(zip(c["splits"], c["splits"][1:])):
        for i in range(a, b):
            if values[i] < c["size"]:
                want[r, values[i]] = 1 if c["binary"] else want[r, values[i]] + (
                    weights[i] if weights.size else 1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got, tf_ref[f"ragged/{k}"])


@pytest.mark.parametrize("k", range(len(SPARSE_CASES)))
def test_sparse_bincount_matches_numpy_and_tensorflow(k, tf_ref):
    """Values of size or more are left out (negative ones too when batched); a rank-1
    input gives one row of bins, a higher rank one per first coordinate."""
    c = SPARSE_CASES[k]
    rank = len(c["shape"])
    indices = np.array(c["indices"], np.int64).reshape(-1, rank)
    values = np.array(c["values"], c["tidx"])
    weights = np.array(c["weights"], c["t"])
    (got,) = _run("SparseBincount", [indices, values, np.array(c["shape"], np.int64),
                                     np.array(c["size"], c["tidx"]), weights],
                  {"binary_output": c["binary"]})
    want = np.zeros((1 if rank == 1 else c["shape"][0], c["size"]), c["t"])
    for i, v in enumerate(values):
        if 0 <= v < c["size"]:
            row = 0 if rank == 1 else indices[i, 0]
            want[row, v] = 1 if c["binary"] else want[row, v] + (weights[i] if weights.size else 1)
    np.testing.assert_array_equal(got, want[0] if rank == 1 else want)
    np.testing.assert_array_equal(got, tf_ref[f"sparse/{k}"])


@pytest.mark.parametrize("op, inputs, match", [
    ("RaggedBincount", [np.int64([1, 2]), np.int32([1, 2]), np.int32(3), np.zeros(0, np.float32)],
     "start with 0"),
    ("RaggedBincount", [np.int64([0, 1]), np.int32([1, 2]), np.int32(3), np.zeros(0, np.float32)],
     "end with the number of values"),
    ("RaggedBincount", [np.int64([0, 2]), np.int32([1, -2]), np.int32(3), np.zeros(0, np.float32)],
     "non-negative"),
    ("SparseBincount", [np.int64([[7, 1]]), np.int32([1]), np.int64([3, 5]), np.int32(4),
                        np.zeros(0, np.float32)], "out of bounds"),
    ("SparseBincount", [np.int64([[0, 1]]), np.int32([1]), np.int64([3]), np.int32(4),
                        np.zeros(0, np.float32)], "dense_shape"),
    ("SparseBincount", [np.int64([[0], [3]]), np.int32([1, -3]), np.int64([7]), np.int32(4),
                        np.zeros(0, np.float32)], "non-negative"),
])
def test_ragged_and_sparse_bincount_bad_operands_are_errors(op, inputs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        _run(op, inputs)


def test_training_through_a_lanczos_resize_reduces_the_loss():
    """A variable image resized with lanczos3 (antialiased shrink) fitted to a target by
    plain gradient descent on the eager tape: the registered gradient drives the loss down
    as far as the resize lets it (the target is itself a resize, so to ~0)."""
    size, scale, trans = np.int32([3, 4]), np.float32([0.5, 0.5]), np.float32([0, 0])
    target = _run("ScaleAndTranslate", [rng.normal(0, 1, (1, 6, 8, 2)).astype(np.float32),
                                        size, scale, trans])[0]
    image = opgen.Variable(np.zeros((1, 6, 8, 2), np.float32))
    losses = []
    for _ in range(60):
        with opgen.GradientTape() as tape:
            y = opgen.ops.scale_and_translate(image, size, scale, trans)
            diff = opgen.ops.sub(y, target)
            loss = opgen.ops.sum(opgen.ops.mul(diff, diff), np.int32([0, 1, 2, 3]))
        (grad,) = tape.gradient(loss, [image])
        image.assign_sub(opgen.ops.mul(grad, np.float32(2.0)))
        losses.append(float(loss.numpy()))
    assert losses[-1] < 1e-3 * losses[0], losses[::10]
