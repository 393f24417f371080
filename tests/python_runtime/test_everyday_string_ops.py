"""The everyday tf.strings ops: StringLength, StringToNumber, RegexFullMatch, ReduceJoin,
UnsortedSegmentJoin, StringSplit (v1), StringToHashBucket, EncodeBase64 / DecodeBase64 and
the Unicode ops (UnicodeDecode(WithOffsets), UnicodeEncode, UnicodeTranscode,
UnicodeScript).
Against Python references (len, float/int parsing, base64's web-safe codec, numpy joins)
and, where TensorFlow 2.21 is installed ($OPGEN_TF_PYTHON, a child process), against
TensorFlow's own outputs, error classes and error messages on edge cases."""

from __future__ import annotations

import base64
import pickle
import re

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")


def _s(values, shape=None):
    array = np.empty(len(values), object)
    array[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return array.reshape(shape) if shape else array


WORDS = ["", "a", "h\u00e9llo", "\u65e5\u672c\u8a9e", b"\xff\x80a", "x" * 40]


# ---- Python references ----------------------------------------------------------------

def test_string_length_counts_bytes_and_utf8_characters():
    x = _s(WORDS, (2, 3))
    flat = [w.encode() if isinstance(w, str) else w for w in WORDS]
    got = ops.string_length(x).numpy()
    assert got.dtype == np.int32 and got.shape == (2, 3)
    assert got.ravel().tolist() == [len(w) for w in flat]
    chars = ops.string_length(x, unit="UTF8_CHAR").numpy().ravel().tolist()
    assert chars == [sum((c & 0xC0) != 0x80 for c in w) for w in flat]
    assert chars[:4] == [len(w) for w in WORDS[:4]]


def test_string_to_number_parses_as_python():
    texts = ["1.5", " -2.25e3 ", "+.5", "0.1", "1e-50", "3.4028236e38", "7"]
    f64 = ops.string_to_number(_s(texts), out_type="float64").numpy()
    assert f64.tolist() == [float(t) for t in texts]
    f32 = ops.string_to_number(_s(texts)).numpy()
    with np.errstate(over="ignore"):  # 3.4028236e38 rounds to inf in float32
        np.testing.assert_array_equal(f32, np.float32([float(t) for t in texts]))
    ints = ["0", " 12 ", "-2147483648", "+2147483647"]
    assert ops.string_to_number(_s(ints), out_type="int32").numpy().tolist() == [
        int(t) for t in ints]
    with pytest.raises(errors.InvalidArgumentError,
                       match="StringToNumberOp could not correctly convert string: 2147483648"):
        ops.string_to_number(_s(["2147483648"]), out_type="int32").numpy()


def test_base64_round_trips_with_pythons_web_safe_codec():
    rng = np.random.default_rng(0)
    blobs = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(0, 20)]
    x = _s(blobs)
    padded = ops.encode_base64(x, pad=True).numpy().tolist()
    assert padded == [base64.urlsafe_b64encode(b) for b in blobs]
    bare = ops.encode_base64(x).numpy().tolist()
    assert bare == [base64.urlsafe_b64encode(b).rstrip(b"=") for b in blobs]
    assert ops.decode_base64(_s(padded)).numpy().tolist() == blobs
    assert ops.decode_base64(_s(bare)).numpy().tolist() == blobs


def test_reduce_join_matches_numpy_joins():
    """The joined dims run in row-major order with the first listed axis innermost (as
    TensorFlow joins: [0, 1] and [1, 0] give different orders)."""
    x = np.array([[[f"{i}{j}{k}".encode() for k in range(4)] for j in range(3)]
                  for i in range(2)], object)
    for axes in ([0], [1], [2], [0, 2], [2, 0], [-1, 0], [0, 1, 2], [1, 2, 0]):
        listed = [a % 3 for a in axes]
        kept = [d for d in range(3) if d not in listed]
        moved = x.transpose(kept + listed[::-1])
        flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
        want = np.empty(flat.shape[:-1], object)
        for idx in np.ndindex(want.shape):
            want[idx] = b"/".join(flat[idx])
        got = ops.reduce_join(x, np.int32(axes), separator="/").numpy()
        assert got.shape == want.shape and got.tolist() == want.tolist(), axes
        kept_dims = ops.reduce_join(x, np.int32(axes), keep_dims=True, separator="/").numpy()
        assert kept_dims.shape == tuple(1 if d in listed else n for d, n in enumerate(x.shape))
        assert kept_dims.ravel().tolist() == want.ravel().tolist()


def test_string_split_v1_splits_at_any_delimiter_byte():
    text = ["a,b;;c", "", ",", "xy"]
    indices, values, shape = ops.string_split(_s(text), _s([",;"])[0], skip_empty=False)
    rows = [re.split("[,;]", t) if t else [] for t in text]
    assert values.numpy().tolist() == [p.encode() for r in rows for p in r]
    assert indices.numpy().tolist() == [[i, j] for i, r in enumerate(rows) for j in range(len(r))]
    assert shape.numpy().tolist() == [4, max(len(r) for r in rows)]


# ---- TensorFlow 2.21 ----------------------------------------------------------------------

TF_SCRIPT = r"""
import os, pickle, re, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
cases = pickle.load(open(sys.argv[1], "rb"))
out = []
for op, inputs, attrs in cases:
    try:
        res = getattr(tf.raw_ops, op)(**inputs, **attrs)
        res = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
        out.append(("ok", res))
    except Exception as e:
        message = str(e).split("}} ", 1)[-1]
        message = re.sub(r" \[Op:\w+\].*$", "", message.strip(), flags=re.S)
        out.append(("error", type(e).__name__, message))
pickle.dump(out, open(sys.argv[2], "wb"))
"""

_FLOATS = ["1.5", " 2 ", "+3", "-0x10", "0X1A", "0x1.8p1", "0x.8", "0x1p-2", "inf", "-Inf",
           "+infinity", "INFINITY", "NaN", "-nan", "nan(123)", "1e5", "1E+5", ".5", "5.",
           "+.5", "\t7\n", "\v1\f", "1e40", "1e400", "1e-50", "3.4028236e38", "0.1",
           "1" * 100, "0" * 200 + "1.5"]
_BAD_FLOATS = ["1e", ".", " ", "", "abc", "1,5", "1.5f", "0x", "1 2", "infinit", "in", "+-1",
               "0x-1", "-.e1", "1_000", "\u0663"]
_INTS = ["12", " -3 ", "+4", "007", "\v5\f", "-0", "+0"]
_BAD_INTS = ["0x10", "1.0", "", "  ", "-", "+", "+-3", "1 2"]
_MATRIX = _s(["a", "b", "c", "d", "e", "f"], (2, 3))
_EMPTY = np.empty((0,), object)
TF_CASES = [
    ("StringLength", {"input": _s(WORDS)}, {"unit": "BYTE"}),
    ("StringLength", {"input": _s(WORDS, (3, 2))}, {"unit": "UTF8_CHAR"}),
    ("StringLength", {"input": _EMPTY}, {"unit": "UTF8_CHAR"}),
    *[("StringToNumber", {"string_tensor": _s(_FLOATS)}, {"out_type": t})
      for t in ("float32", "float64")],
    *[("StringToNumber", {"string_tensor": _s([v])}, {"out_type": t})
      for v in _BAD_FLOATS for t in ("float32", "float64")],
    *[("StringToNumber", {"string_tensor": _s(_INTS)}, {"out_type": t})
      for t in ("int32", "int64")],
    ("StringToNumber", {"string_tensor": _s(_INTS[:5] + ["+0"])}, {"out_type": "uint32"}),
    ("StringToNumber", {"string_tensor": _s(_INTS[:5] + ["+0"])}, {"out_type": "uint64"}),
    *[("StringToNumber", {"string_tensor": _s([v])}, {"out_type": t})
      for v in _BAD_INTS for t in ("int32", "int64", "uint32", "uint64")],
    *[("StringToNumber", {"string_tensor": _s([v])}, {"out_type": t})
      for t, v in [("int32", "2147483647"), ("int32", "2147483648"), ("int32", "-2147483648"),
                   ("int32", "-2147483649"), ("int64", "9223372036854775807"),
                   ("int64", "9223372036854775808"), ("int64", "-9223372036854775808"),
                   ("int64", "-9223372036854775809"), ("uint32", "4294967295"),
                   ("uint32", "4294967296"), ("uint32", "-1"), ("uint32", "-0"),
                   ("uint64", "18446744073709551615"), ("uint64", "18446744073709551616"),
                   ("int64", "1" * 30)]],
    ("RegexFullMatch", {"input": _s(["abc", "ab", "", "a\nc", "xabc"]),
                        "pattern": _s(["a.c"])[0]}, {}),
    ("RegexFullMatch", {"input": _s(["abc", "ab12", "", "AB", "b"], (5, 1)),
                        "pattern": _s([r"[a-z]+\d*|^$"])[0]}, {}),
    ("RegexFullMatch", {"input": _s(["abc"]), "pattern": _s(["a", "b"])}, {}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([0])}, {"separator": "|"}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([-1])},
     {"keep_dims": True, "separator": "|"}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([1, 0])}, {"separator": ""}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([0, 1])},
     {"keep_dims": True, "separator": ", "}),
    ("ReduceJoin", {"inputs": _s([str(i) for i in range(24)], (2, 3, 4)),
                    "reduction_indices": np.int32([2, -3])}, {"separator": "."}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.zeros(0, np.int32)},
     {"separator": "|"}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([2])}, {}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([-3])}, {}),
    ("ReduceJoin", {"inputs": _MATRIX, "reduction_indices": np.int32([1, -1])}, {}),
    ("ReduceJoin", {"inputs": np.empty((2, 0), object), "reduction_indices": np.int32([1])},
     {"separator": "|"}),
    ("ReduceJoin", {"inputs": np.empty((0, 2), object), "reduction_indices": np.int32([1])},
     {"separator": "|"}),
    ("ReduceJoin", {"inputs": _s(["a"])[0], "reduction_indices": np.zeros(0, np.int32)}, {}),
    ("ReduceJoin", {"inputs": _s(["a"])[0], "reduction_indices": np.int32([0])}, {}),
    ("UnsortedSegmentJoin", {"inputs": _s(["", "a", "b", "c", ""]),
                             "segment_ids": np.int32([0, 0, 2, 0, 2]),
                             "num_segments": np.int32(4)}, {"separator": "|"}),
    ("UnsortedSegmentJoin", {"inputs": _MATRIX, "segment_ids": np.int64([1, 1]),
                             "num_segments": np.int64(2)}, {"separator": "-"}),
    ("UnsortedSegmentJoin", {"inputs": _MATRIX, "segment_ids": np.int32([[0, 1, 0], [2, 1, 0]]),
                             "num_segments": np.int32(3)}, {"separator": ""}),
    ("UnsortedSegmentJoin", {"inputs": np.empty((0, 2), object),
                             "segment_ids": np.zeros(0, np.int64),
                             "num_segments": np.int64(0)}, {}),
    *[("UnsortedSegmentJoin", {"inputs": _s(["a", "b"]), "segment_ids": np.int32(ids),
                               "num_segments": np.int32(n)}, {})
      for ids, n in [([0, 3], 2), ([0, -1], 2), ([0, 0], 0), ([0, 0], -1), ([0], 1), (0, 1),
                     ([[0, 0]], 1)]],
    ("UnsortedSegmentJoin", {"inputs": _s(["a"]), "segment_ids": np.int32([0]),
                             "num_segments": np.int32([1])}, {}),
    *[("StringSplit", {"input": _s(["a,b;;c", "", ",", "xy", "\u00e9,x"]),
                       "delimiter": _s([d])[0]}, {"skip_empty": skip})
      for skip in (True, False) for d in ("", ",", ",;", "ab")],
    ("StringSplit", {"input": _EMPTY, "delimiter": _s([","])[0]}, {"skip_empty": True}),
    ("StringSplit", {"input": _s(["", ""]), "delimiter": _s([","])[0]}, {"skip_empty": False}),
    ("StringSplit", {"input": _s(["a"], (1, 1)), "delimiter": _s([","])[0]}, {"skip_empty": True}),
    ("StringSplit", {"input": _s(["a"]), "delimiter": _s([","])}, {"skip_empty": True}),
    *[("StringToHashBucket", {"string_tensor": _s(
        ["", "a", "hello", "12345678", "123456789abcdef", "caf\u00e9", "x" * 100] + WORDS)},
       {"num_buckets": n}) for n in (1, 7, 1000003, 2 ** 62)],
    *[("EncodeBase64", {"input": _s(["", "a", "ab", "abc", b"\xff\xfe\xfd\xfc", "x" * 57],
                                    (2, 3))}, {"pad": pad}) for pad in (False, True)],
    ("DecodeBase64", {"input": _s(["", "YQ", "YQ==", "YWI=", "YWJj", "YR", "_-_-", "YWJjZA",
                                   "YWJjZA=="])}, {}),
    *[("DecodeBase64", {"input": _s([bad])}, {})
      for bad in ["Y", "YQ=", "YQ==YQ==", "a===", "====", "+/+/", "YWJjZ", "YW Jj", "YWJj\n"]],
]
# Random strings over the numbers' alphabet: each grammar's corners, against TensorFlow's.
_NUMBER_RNG = np.random.default_rng(7)
_NUMBER_TEXT = ["".join(_NUMBER_RNG.choice(list(" +-0123456789.eExXpPabfinINFty()\t"),
                                           _NUMBER_RNG.integers(1, 9)))
                for _ in range(40)]
TF_CASES += [("StringToNumber", {"string_tensor": _s([text])}, {"out_type": t})
             for text in _NUMBER_TEXT for t in ("float32", "float64", "int64", "uint32")]

# Unicode: every kind of ill-formed UTF-8 (maximal subparts), UTF-16-BE surrogates and odd
# bytes, UTF-32-BE out of range and partial units, control characters.
_BAD_UTF8 = [b"a\xe0\x80Ab\xed\xa0\x80c\xf0\x9f\x98d\xc0\xafe\xf4\x90\x80\x80f\xff",
             "h\u00e9\u65e5\U0001F600".encode(), b"", b"\x01\x7f\x85 \x1f",
             b"\x00\t\n\xc2\x80\xc2\x9f\xc2\xa0", b"\xe2\x82", b"\xf8\x88\x80\x80\x80"]
_UTF16 = ["h\u00e9\U0001F600".encode("utf-16-be"), b"\xd8\x00\x00a", b"\x00a\x00", b"\xd8\x00",
          b"\xd8\x00\x00", b"\xdc\x00\x00a", b"\xd8\x00\xd8\x00\xdc\x00", b"\x00\x01"]
_UTF32 = ["h\U0001F600".encode("utf-32-be"), b"\x00\x11\x00\x00", b"\x00\x00\xd8\x00",
          b"\x00\x00\x00a\x00", b"\xff\xff\xff\xff", b"\x00\x00\x00\x1f"]
for _op in ("UnicodeDecode", "UnicodeDecodeWithOffsets"):
    for _errors in ("strict", "replace", "ignore"):
        for _control in (False, True):
            TF_CASES.append((_op, {"input": _s(_BAD_UTF8)},
                             {"input_encoding": "UTF-8", "errors": _errors,
                              "replace_control_characters": _control, "replacement_char": 63}))
            # (TensorFlow 2.21 aborts on UnicodeDecodeWithOffsets with int32 splits.)
            TF_CASES.append((_op, {"input": _s(_BAD_UTF8[1:3])},
                             {"input_encoding": "utf-8", "errors": _errors,
                              "replace_control_characters": _control,
                              "Tsplits": "int32" if _op == "UnicodeDecode" else "int64"}))
    for _encoding, _texts in (("UTF-16-BE", _UTF16), ("UTF-32-BE", _UTF32)):
        for _errors in ("replace", "ignore", "strict"):
            TF_CASES.append((_op, {"input": _s(_texts)},
                             {"input_encoding": _encoding, "errors": _errors,
                              "replace_control_characters": True}))
    TF_CASES.append((_op, {"input": _s(["ab", "c", "", "d"], (2, 2))},
                     {"input_encoding": "UTF-8"}))
    TF_CASES.append((_op, {"input": _s(["ab"])[0]}, {"input_encoding": "UTF-8"}))
    TF_CASES.append((_op, {"input": _s(["a"])}, {"input_encoding": "UTF-8",
                                                 "replacement_char": -5}))
    TF_CASES.append((_op, {"input": _s(["a"])}, {"input_encoding": "UTF-8",
                                                 "replacement_char": 0x110000}))
_CODE_POINTS = np.int32([104, 0xE9, 0x65E5, 0x1F600, -1, 0xD800, 0x110000, 0, 0xDFFF, 0x10FFFF])
for _encoding in ("UTF-8", "UTF-16-BE", "UTF-32-BE"):
    for _errors in ("strict", "replace", "ignore"):
        for _replacement in (63, 0xD800):
            TF_CASES.append(("UnicodeEncode", {"input_values": _CODE_POINTS,
                                               "input_splits": np.int64([0, 4, 4, 10])},
                             {"errors": _errors, "output_encoding": _encoding,
                              "replacement_char": _replacement}))
        TF_CASES.append(("UnicodeTranscode", {"input": _s(_BAD_UTF8, (7, 1))},
                         {"input_encoding": "UTF-8", "output_encoding": _encoding,
                          "errors": _errors, "replacement_char": 0x3F,
                          "replace_control_characters": False}))
        TF_CASES.append(("UnicodeTranscode", {"input": _s(_UTF16)},
                         {"input_encoding": "UTF-16-BE", "output_encoding": _encoding,
                          "errors": _errors, "replace_control_characters": True}))
        TF_CASES.append(("UnicodeTranscode", {"input": _s(_UTF32)},
                         {"input_encoding": "UTF-32-BE", "output_encoding": _encoding,
                          "errors": _errors, "replacement_char": 0xD800}))
TF_CASES += [
    ("UnicodeEncode", {"input_values": _CODE_POINTS[:4], "input_splits": np.int32([0, 2, 2, 4])},
     {"output_encoding": "UTF-8", "errors": "strict"}),
    *[("UnicodeEncode", {"input_values": _CODE_POINTS[:4], "input_splits": np.int64(splits)},
       {"output_encoding": "UTF-8"})
      for splits in ([0, 5], [1, 4], [0, 3, 2, 4], np.zeros(0, np.int64), [0])],
    ("UnicodeEncode", {"input_values": np.int32([[1]]), "input_splits": np.int64([0, 1])},
     {"output_encoding": "UTF-8"}),
    ("UnicodeEncode", {"input_values": np.zeros(0, np.int32), "input_splits": np.int64([0, 0])},
     {"output_encoding": "UTF-16-BE"}),
    ("UnicodeTranscode", {"input": _s([b"\x00a\x1f\x7f"])},
     {"input_encoding": "UTF-8", "output_encoding": "UTF-8", "replace_control_characters": True}),
]
# Scripts: a stride through every plane, the ends of the range, values that are no code
# point, shaped.
TF_CASES += [
    ("UnicodeScript", {"input": np.arange(0, 0x110000, 89, dtype=np.int32)}, {}),
    ("UnicodeScript", {"input": np.int32([[-1, 0, 0x10FFFF, 0x110000], [0xD800, 0xDFFF, 2**31 - 1,
                                                                        -2**31]])}, {}),
    ("UnicodeScript", {"input": np.zeros((0, 3), np.int32)}, {}),
]
# Patterns whose error text comes from the regex engine: the class is compared, not the text.
_ENGINE_MESSAGES = {"RegexFullMatch"}


def _snake(op: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op).lower()


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    tf_python()  # skips first when there is no TensorFlow
    tmp = tmp_path_factory.mktemp("tf_everyday_strings")
    (tmp / "cases.pkl").write_bytes(pickle.dumps(TF_CASES))
    run_tf(["-c", TF_SCRIPT, tmp / "cases.pkl", tmp / "out.pkl"], cwd=tmp, timeout=300)
    return pickle.loads((tmp / "out.pkl").read_bytes())


@pytest.mark.parametrize("index", range(len(TF_CASES)))
def test_matches_tensorflow(tf_results, index):
    op, inputs, attrs = TF_CASES[index]
    fn = getattr(ops, _snake(op))
    if tf_results[index][0] == "error":
        _, error_class, message = tf_results[index]
        with pytest.raises(getattr(errors, error_class, errors.OpError)) as raised:
            res = fn(**inputs, **attrs)
            [r.numpy() for r in res] if isinstance(res, (list, tuple)) else res.numpy()
        if op not in _ENGINE_MESSAGES:
            assert message in str(raised.value), (op, attrs)
        return
    want = tf_results[index][1]
    res = fn(**inputs, **attrs)
    got = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
    assert len(got) == len(want)
    # (A scalar string comes back from TensorFlow as bytes.)
    want = [np.array(w, object) if isinstance(w, bytes) else w for w in want]
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (op, attrs, g, w)
        np.testing.assert_array_equal(g, w, err_msg=f"{op} {attrs}")


def test_unicode_decode_with_offsets_gives_int32_splits():
    """TensorFlow 2.21 aborts here (a dtype check fails); opgen gives the splits."""
    splits, chars, starts = ops.unicode_decode_with_offsets(
        _s(["h\u00e9", "", "\U0001F600"]), input_encoding="UTF-8", Tsplits="int32")
    assert splits.numpy().dtype == np.int32 and splits.numpy().tolist() == [0, 2, 2, 3]
    assert chars.numpy().tolist() == [104, 0xE9, 0x1F600]
    assert starts.numpy().tolist() == [0, 1, 0]


def test_unicode_round_trips_through_pythons_codecs():
    text = ["h\u00e9llo", "", "\u65e5\u672c\u8a9e \U0001F600", "\x00\x7f\u07ff\uffff"]
    for encoding in ("utf-8", "utf-16-be", "utf-32-be"):
        name = encoding.upper()
        splits, chars = ops.unicode_decode(_s([t.encode(encoding) for t in text]),
                                           input_encoding=name, errors="strict")
        assert chars.numpy().tolist() == [ord(c) for t in text for c in t]
        assert np.diff(splits.numpy()).tolist() == [len(t) for t in text]
        encoded = ops.unicode_encode(chars, splits, output_encoding=name, errors="strict")
        assert encoded.numpy().tolist() == [t.encode(encoding) for t in text]
        transcoded = ops.unicode_transcode(_s(text), input_encoding="UTF-8",
                                           output_encoding=name, errors="strict")
        assert transcoded.numpy().tolist() == [t.encode(encoding) for t in text]


def test_unicode_script_names_icu_codes():
    """ICU's UScriptCode numbers: Common 0, Inherited 1, Cyrillic 8, Han 17, Hiragana 20,
    Latin 25, Unknown 103."""
    text = "A\u0416\u65e5\u3042 \u0301"
    got = ops.unicode_script(np.int32([ord(c) for c in text] + [0x10FFFF, -7])).numpy()
    assert got.tolist() == [25, 8, 17, 20, 0, 1, 103, -1]


def test_invalid_regex_is_refused_as_tensorflow_does():
    with pytest.raises(errors.InvalidArgumentError, match=r"Invalid pattern: \(a, error: "):
        ops.regex_full_match(_s(["abc"]), _s(["(a"])[0]).numpy()
