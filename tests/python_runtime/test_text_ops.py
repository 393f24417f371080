"""The text-preprocessing string ops (StringLower/Upper/Strip, StaticRegexReplace,
RegexReplace, StringSplitV2, StringNGrams, Substr) and RaggedTensorToTensor, against
Python references (str methods, `re.sub` on the patterns both dialects read alike) and,
where TensorFlow 2.21 is installed ($OPGEN_TF_PYTHON, a child process), against
TensorFlow's own outputs and error classes on edge cases: empty input, maxsplit, UTF-8
bytes, n-gram padding and separators, truncating and padding ragged rows. RE2 syntax
outside the subset opgen runs is refused, never matched differently."""

from __future__ import annotations

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


WORDS = ["Hello, World!", "", "  MiXeD\tcase \n", "caf\u00e9 \u00c9T\u00c9", "a" * 40, "x\x00Y"]


# ---- case mapping and stripping: Python's ASCII methods --------------------------------

def _ascii_lower(b: bytes) -> bytes:
    return bytes(c + 32 if 65 <= c <= 90 else c for c in b)


def test_lower_upper_strip_map_ascii_only():
    x = _s(WORDS, (2, 3))
    flat = [w.encode() for w in WORDS]
    assert ops.string_lower(x).numpy().ravel().tolist() == [_ascii_lower(w) for w in flat]
    assert ops.string_upper(x).numpy().ravel().tolist() == [
        bytes(c - 32 if 97 <= c <= 122 else c for c in w) for w in flat]
    assert ops.string_strip(x).numpy().ravel().tolist() == [w.strip(b" \t\n\v\f\r")
                                                            for w in flat]
    assert ops.string_lower(_s([])).numpy().shape == (0,)


# Every code point of the blocks opgen's UTF-8 case tables cover (each alone, so a Σ is a
# word of its own), words for Final_Sigma's contexts, and ill-formed UTF-8 (one U+FFFD
# per maximal ill-formed subpart).
_CASE_BLOCKS = [*range(0xA0, 0x180), *range(0x1C4, 0x1CD), *range(0x1F0, 0x1F4), 0x345,
                *range(0x370, 0x400), *range(0x400, 0x530), *range(0x530, 0x590),
                *range(0x1E00, 0x1F00), *range(0x2150, 0x2190), *range(0x2460, 0x2500),
                *range(0xFB00, 0xFB07), *range(0xFF00, 0xFF60), *range(0x10400, 0x10450)]
CASE_TEXT = [chr(c) for c in _CASE_BLOCKS if not 0xD800 <= c < 0xE000] + [
    "\u039f\u0394\u039f\u03a3 \u03a3\u0391 \u03a3 \u0391\u03a3. \u0391\u03a3'\u0391 A\u03a3 "
    "\u0391\u03a3\u0301 \u03a3\u03a3\u03a3 \u00aa\u03a3 1\u03a3 \u0130\u03a3",
    "\u00c0\u00c9\u00ce\u00f5\u00fc Stra\u00dfe \u0100\u011e\u0141\u0152\u0178 "
    "\u041f\u0440\u0438\u0432\u0435\u0442 \u0401\u0416 \u01c5 \u0390\u03b0 \ufb03",
    "\u65e5\u672c\u8a9e \U0001f600 MiXeD", ""]
CASE_BYTES = [b"\xe0\x80A\xed\xa0\x80B\xf0\x9f\x98C\xc0\xafD\xf4\x90\x80\x80E",
              b"\xff\xfe", b"\xc3", b"\xc3\xa9\xc3", b"\xe2\x82", b"\xf0\x9f\x98\x80\x80"]


def test_case_mapping_utf8_against_python():
    """Python's str.lower/upper (Unicode's full mappings, Final_Sigma) on the covered
    blocks; the ASCII-only mapping without an encoding leaves non-ASCII bytes."""
    words = _s(CASE_TEXT)
    lower = ops.string_lower(words, encoding="utf-8").numpy().tolist()
    upper = ops.string_upper(words, encoding="utf-8").numpy().tolist()
    assert [w.decode() for w in lower] == [t.lower() for t in CASE_TEXT]
    assert [w.decode() for w in upper] == [t.upper() for t in CASE_TEXT]
    plain = ops.string_lower(words).numpy().tolist()
    assert plain == [_ascii_lower(t.encode()) for t in CASE_TEXT]
    bad = ops.string_upper(_s(CASE_BYTES), encoding="utf-8").numpy().tolist()
    assert bad[0] == "\ufffd\ufffdA\ufffd\ufffd\ufffdB\ufffdC\ufffd\ufffdD\ufffd\ufffd\ufffd\ufffdE".encode()
    assert bad[3] == "\u00c9\ufffd".encode()
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"only utf-8 or '' \(no encoding\) is supported, received latin1"):
        ops.string_lower(_s(["A"]), encoding="latin1").numpy()


# ---- regex replacement: Python's re on patterns both read alike ----------------------

KERAS_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


# (RE2 and Python differ on an empty match right after a match, which Python takes:
# test_matches_tensorflow checks `a*` against TensorFlow.)
@pytest.mark.parametrize("pattern, rewrite, python_rewrite", [
    (KERAS_PUNCTUATION, "", ""),
    (r"\s+", " ", " "),
    (r"(\w+)@(\w+)", r"\2 at \1", r"\2 at \1"),
    (r"^\W+|\W+$", "", ""),
    (r"[0-9]{2,3}", "#", "#"),
    (r"(?:ab|cd)+", r"<\0>", r"<\g<0>>"),
])
def test_regex_replace_matches_python_re(pattern, rewrite, python_rewrite):
    words = ["Hello, World!", "", "mail me@host now", "aaabaa", "  --x--  ", "1 12 1234",
             "abcdab cd", "tab\tand\nnewline"]
    got = ops.static_regex_replace(_s(words), pattern=pattern, rewrite=rewrite).numpy()
    want = [re.sub(pattern, python_rewrite, w).encode() for w in words]
    assert got.tolist() == want
    dynamic = ops.regex_replace(_s(words), _s([pattern])[0], _s([rewrite])[0]).numpy()
    assert dynamic.tolist() == want
    first = ops.static_regex_replace(_s(words), pattern=pattern, rewrite=rewrite,
                                     replace_global=False).numpy()
    assert first.tolist() == [re.sub(pattern, python_rewrite, w, count=1).encode()
                              for w in words]


@pytest.mark.parametrize("pattern, why", [
    (r"(?i)abc", "flags"), (r"\p{L}+", "escape"), (r"(a)\1", "backreference"),
    (r"a(?=b)", "lookaround"), ("\u00e9", "non-ASCII"), (r"\Qa.b\E", "escape"),
    (r"\x{e9}", "non-ASCII"), (r"[\W]", "inside"), ("(unclosed", "invalid pattern"),
])
def test_regex_outside_the_supported_re2_subset_is_refused(pattern, why):
    with pytest.raises(errors.InvalidArgumentError, match=re.escape(why)):
        ops.static_regex_replace(_s(["abc"]), pattern=pattern, rewrite="").numpy()
    with pytest.raises(errors.InvalidArgumentError):
        ops.regex_replace(_s(["abc"]), _s([pattern])[0], _s([""])[0]).numpy()


def test_single_character_patterns_refuse_utf8_text():
    """RE2 reads `.` as one code point, std::regex as one byte: refused, not differing."""
    assert ops.static_regex_replace(_s(["caf\u00e9"]), pattern="f", rewrite="F").numpy().tolist() \
        == ["caF\u00e9".encode()]
    with pytest.raises(errors.InvalidArgumentError, match="non-ASCII"):
        ops.static_regex_replace(_s(["caf\u00e9"]), pattern=".", rewrite="x").numpy()


def test_bad_rewrite_is_refused():
    with pytest.raises(errors.InvalidArgumentError, match="Rewrite"):
        ops.static_regex_replace(_s(["a"]), pattern="(a)", rewrite=r"\2").numpy()
    with pytest.raises(errors.InvalidArgumentError, match="Rewrite"):
        ops.static_regex_replace(_s(["a"]), pattern="a", rewrite="\\").numpy()


# ---- split, n-grams, substr, ragged-to-dense: Python references ----------------------

def _split(words, sep, maxsplit):
    return [w.split(sep or None, maxsplit) for w in words]


@pytest.mark.parametrize("sep, maxsplit", [("", -1), ("", 1), ("", 0), (",", -1), (",", 2),
                                           (",", 0), ("<>", -1)])
def test_string_split_v2_is_python_split(sep, maxsplit):
    words = [b"a,b,,c", b"", b"  lead  and trail  ", b"<>x<><>y<>", b",", b"one"]
    indices, values, shape = (t.numpy() for t in ops.string_split_v2(
        _s(words), _s([sep])[0], maxsplit=maxsplit))
    rows = _split(words, sep.encode(), maxsplit)
    assert values.tolist() == [p for r in rows for p in r]
    assert indices.tolist() == [[i, j] for i, r in enumerate(rows) for j in range(len(r))]
    assert shape.tolist() == [len(words), max(len(r) for r in rows)]


def test_string_split_v2_wants_a_vector_and_scalar_sep():
    with pytest.raises(errors.InvalidArgumentError, match="vector"):
        ops.string_split_v2(_s(["a b"], (1, 1)), _s([""])[0]).numpy()
    with pytest.raises(errors.InvalidArgumentError, match="scalar"):
        ops.string_split_v2(_s(["a b"]), _s([" "])).numpy()


def _ngrams(row, width, sep, left, right, pad):
    pad = min(width - 1 if pad < 0 else pad, width - 1)
    padded = [left] * pad + row + [right] * pad
    return [sep.join(padded[i:i + width]) for i in range(len(padded) - width + 1)]


@pytest.mark.parametrize("widths, pad_width, preserve", [
    ([1, 2], 0, False), ([2, 3], -1, False), ([3], 1, True), ([4], 0, True), ([2], 5, False)])
def test_string_ngrams_are_sliding_windows(widths, pad_width, preserve):
    rows = [[b"a", b"b", b"c"], [], [b"d"], [b"e", b"f"]]
    data = _s([t for r in rows for t in r])
    splits = np.int64(np.cumsum([0] + [len(r) for r in rows]))
    grams, out_splits = (t.numpy() for t in ops.string_n_grams(
        data, splits, separator="_", ngram_widths=widths, left_pad="<", right_pad=">",
        pad_width=pad_width, preserve_short_sequences=preserve))
    want = []
    for r in rows:
        g = [x for w in widths for x in _ngrams(r, w, b"_", b"<", b">", pad_width)]
        if preserve and r and not g:
            p = max(pad_width, 0)
            g = [b"_".join([b"<"] * p + r + [b">"] * p)]
        want.append(g)
    assert grams.tolist() == [g for r in want for g in r]
    assert out_splits.tolist() == np.cumsum([0] + [len(r) for r in want]).tolist()
    grams32, splits32 = ops.string_n_grams(
        data, np.int32(splits), separator="_", ngram_widths=widths, left_pad="<",
        right_pad=">", pad_width=pad_width, preserve_short_sequences=preserve)
    assert splits32.numpy().dtype == np.int32 and grams32.numpy().tolist() == grams.tolist()


def test_string_ngrams_bad_splits_are_errors():
    with pytest.raises(errors.InvalidArgumentError, match="split"):
        ops.string_n_grams(_s(["a", "b"]), np.int64([0, 3]), separator=" ", ngram_widths=[1],
                           left_pad="", right_pad="", pad_width=0,
                           preserve_short_sequences=False).numpy()


def test_substr_bytes_and_utf8_chars():
    words = _s(["hello", "caf\u00e9s", "", "ab"])
    assert ops.substr(words[:2], np.int32(1), np.int32(3)).numpy().tolist() == [
        b"ell", "caf\u00e9s".encode()[1:4]]
    assert ops.substr(words[:2], np.int64(-3), np.int64(2), unit="UTF8_CHAR").numpy().tolist() \
        == [b"ll", "f\u00e9".encode()]
    assert ops.substr(words, np.int32([0, 2, 0, 1]), np.int32([9, 9, 1, 0])).numpy().tolist() \
        == [b"hello", "caf\u00e9s".encode()[2:], b"", b""]
    with pytest.raises(errors.InvalidArgumentError, match="pos"):
        ops.substr(words, np.int32(4), np.int32(1)).numpy()


def _ragged_to_dense(rows, shape, default):
    n_rows = len(rows) if shape[0] < 0 else shape[0]
    width = max((len(r) for r in rows), default=0) if shape[1] < 0 else shape[1]
    out = np.full((n_rows, width), default, dtype=object if isinstance(default, bytes) else None)
    for i, r in enumerate(rows[:n_rows]):
        for j, v in enumerate(r[:width]):
            out[i, j] = v
    return out


@pytest.mark.parametrize("shape", [[-1, -1], [2, 6], [5, 2], [-1, 1]])
@pytest.mark.parametrize("values_kind", ["int64", "string"])
def test_ragged_tensor_to_tensor_pads_and_truncates(shape, values_kind):
    rows = [[1, 2, 3], [], [4], [5, 6, 7, 8]]
    if values_kind == "string":
        rows = [[str(v).encode() * v for v in r] for r in rows]
        values, default = _s([v for r in rows for v in r]), b"pad"
        default_t = _s([default])[0]
    else:
        values, default = np.int64([v for r in rows for v in r]), 0
        default_t = np.int64(0)
    splits = np.int64(np.cumsum([0] + [len(r) for r in rows]))
    got = ops.ragged_tensor_to_tensor(np.int64(shape), values, default_t, [splits],
                                      row_partition_types=["ROW_SPLITS"]).numpy()
    np.testing.assert_array_equal(got, _ragged_to_dense(rows, shape, default))


def test_ragged_tensor_to_tensor_nested_and_scalar_shape():
    # [[[1, 2], [3]], [], [[4, 5, 6]]]: two ragged levels.
    outer, inner = np.int32([0, 2, 2, 3]), np.int32([0, 2, 3, 6])
    got = ops.ragged_tensor_to_tensor(np.int32(-1), np.float32([1, 2, 3, 4, 5, 6]),
                                      np.float32(-1), [outer, inner],
                                      row_partition_types=["ROW_SPLITS", "ROW_SPLITS"]).numpy()
    want = np.float32([[[1, 2, -1], [3, -1, -1]], [[-1] * 3] * 2, [[4, 5, 6], [-1] * 3]])
    np.testing.assert_array_equal(got, want)
    with pytest.raises(errors.UnimplementedError, match="ROW_SPLITS"):
        ops.ragged_tensor_to_tensor(np.int64(-1), np.int64([1]), np.int64(0),
                                    [np.int64([0])], row_partition_types=["VALUE_ROWIDS"]).numpy()
    with pytest.raises(errors.InvalidArgumentError, match="split"):
        ops.ragged_tensor_to_tensor(np.int64(-1), np.int64([1, 2]), np.int64(0),
                                    [np.int64([0, 3])], row_partition_types=["ROW_SPLITS"]).numpy()


# ---- against TensorFlow itself -----------------------------------------------------------

TF_SCRIPT = r"""
import os, pickle, sys
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
        out.append(("error", type(e).__name__))
pickle.dump(out, open(sys.argv[2], "wb"))
"""

_UTF8 = ["caf\u00e9 CR\u00c8ME br\u00fbl\u00e9e", "\u65e5\u672c\u8a9e \u30c6\u30ad\u30b9\u30c8",
         "MiXeD Case", "", "  x  "]
TF_CASES = [
    ("StringLower", {"input": _s(_UTF8)}, {}),
    ("StringUpper", {"input": _s(_UTF8)}, {}),
    ("StringStrip", {"input": _s(_UTF8 + ["\t\v\f\r\n"])}, {}),
    *[(op, {"input": _s(CASE_TEXT + CASE_BYTES)}, {"encoding": encoding})
      for op in ("StringLower", "StringUpper") for encoding in ("", "utf-8")],
    ("StringLower", {"input": _s(["A"])}, {"encoding": "latin1"}),
    ("StaticRegexReplace", {"input": _s(_UTF8 + ["Hi, there! (ok)"])},
     {"pattern": KERAS_PUNCTUATION, "rewrite": "", "replace_global": True}),
    ("StaticRegexReplace", {"input": _s(["aaa b", "", "xyz"])},
     {"pattern": "a*", "rewrite": "<\\0>", "replace_global": True}),
    ("StaticRegexReplace", {"input": _s(["ab12cd345", "99"])},
     {"pattern": "([a-z]+)(\\d+)", "rewrite": "\\2\\1", "replace_global": False}),
    ("StaticRegexReplace", {"input": _s(["1 12 1234 x9", ""])},
     {"pattern": "[[:digit:]]{2,3}|\\bx", "rewrite": "#", "replace_global": True}),
    ("RegexReplace", {"input": _s(["one  two\tthree", "\u00e9 \u00e9"]),
                      "pattern": _s(["\\s+"])[0], "rewrite": _s(["_"])[0]}, {}),
    ("StringSplitV2", {"input": _s(_UTF8 + [",a,,b,"]), "sep": _s([""])[0]}, {"maxsplit": -1}),
    ("StringSplitV2", {"input": _s(_UTF8 + [",a,,b,"]), "sep": _s([","])[0]}, {"maxsplit": -1}),
    ("StringSplitV2", {"input": _s(["a b c d", "  a  b  ", ""]), "sep": _s([""])[0]},
     {"maxsplit": 1}),
    ("StringSplitV2", {"input": _s(["a,b,c,d", ",", ""]), "sep": _s([","])[0]},
     {"maxsplit": 2}),
    ("StringSplitV2", {"input": _s(["a b c"]), "sep": _s([" "])[0]}, {"maxsplit": 0}),
    ("StringSplitV2", {"input": _s([]), "sep": _s([""])[0]}, {"maxsplit": -1}),
    ("StringSplitV2", {"input": _s(["a b"], (1, 1)), "sep": _s([""])[0]}, {"maxsplit": -1}),
]
# The accepted RE2 subset, pattern by pattern, on ASCII text with empty strings, runs of
# spaces, punctuation and line breaks (plus UTF-8 where the pattern reads no single char).
_RE2_PATTERNS = [
    ("a+?", "<\\0>"), ("(a|ab)(c|bcd)(d*)", "[\\1|\\2|\\3]"), ("\\bfo+\\b", "F"),
    ("\\Bo", "0"), ("^\\s*|\\s*$", "|"), ("x*", "-"), ("[^a-z\\n]+", "_"),
    ("(?P<w>\\w+)\\s(\\w+)", "\\2 \\1"), ("[[:upper:]][[:lower:]]*", "Cap"),
    ("\\d{2,}|\\.", "#"), ("[\\]\\[\\\\^-]", "!"), ("\\A.|.\\z", "@"),
    ("\\x41|\\x{42}|\\t", "~"), ("(?:ab){2}|a{,2}", "="), ("o{1,2}?", "0"),
]
_RE2_TEXT = ["", "foo bar  baz", "Hello World\nNext Line", "aab abab abcd", "x.y,z 123 4",
             "AB\tC]D[E\\F^G-H", "  lead and trail  ", "foofoo fo o"]
for pattern, rewrite in _RE2_PATTERNS:
    TF_CASES.append(("StaticRegexReplace", {"input": _s(_RE2_TEXT)},
                     {"pattern": pattern, "rewrite": rewrite, "replace_global": True}))
    TF_CASES.append(("StaticRegexReplace", {"input": _s(_RE2_TEXT)},
                     {"pattern": pattern, "rewrite": rewrite, "replace_global": False}))
for widths, pad, preserve, left, right, sep in [
        ([1, 2], 0, False, "", "", " "), ([2, 3], -1, False, "<s>", "</s>", "|"),
        ([3], 1, True, "L", "R", ""), ([5], 0, True, "", "", "+"), ([2], 4, False, "[", "]", "")]:
    TF_CASES.append(("StringNGrams", {
        "data": _s(["a", "b", "c", "\u00e9", "d", "e", "f", "g"]),
        "data_splits": np.int64([0, 3, 3, 4, 8])},
        {"separator": sep, "ngram_widths": widths, "left_pad": left, "right_pad": right,
         "pad_width": pad, "preserve_short_sequences": preserve}))
for unit in ("BYTE", "UTF8_CHAR"):
    for pos, length in [(0, 2), (1, 10), (-2, 1), (2, 0), (-5, 3), (3, -1), (1, -2), (-2, -1)]:
        TF_CASES.append(("Substr", {"input": _s(["hello", "caf\u00e9s", "abc"]),
                                    "pos": np.int32(pos), "len": np.int32(length)},
                         {"unit": unit}))
for shape in ([-1, -1], [2, 5], [6, 2]):
    TF_CASES.append(("RaggedTensorToTensor", {
        "shape": np.int64(shape), "values": np.int64([1, 2, 3, 4, 5, 6]),
        "default_value": np.int64(-7),
        "row_partition_tensors": [np.int64([0, 2, 2, 6, 6])]},
        {"row_partition_types": ["ROW_SPLITS"]}))
for shape, nrows in (([-1, -1], 5), ([3, 2], 5), ([-1, 3], 0)):
    TF_CASES.append(("RaggedTensorToTensor", {
        "shape": np.int64(shape), "values": np.float32([1, 2, 3, 4, 5, 6][:6 if nrows else 0]),
        "default_value": np.float32(0.5),
        "row_partition_tensors": [np.int64(nrows),
                                  np.int64([0, 0, 2, 2, 2, 4][:6 if nrows else 0])]},
        {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]}))
TF_CASES.append(("RaggedTensorToTensor", {
    "shape": np.int64([-1, 4]), "values": _s(["x", "y", "\u00e9"]), "default_value": _s([""])[0],
    "row_partition_tensors": [np.int32([0, 1, 3])]}, {"row_partition_types": ["ROW_SPLITS"]}))


def _snake(op: str) -> str:
    return {"StringNGrams": "string_n_grams"}.get(
        op, re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op).lower())


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    tf_python()  # skips first when there is no TensorFlow
    tmp = tmp_path_factory.mktemp("tf_text_ops")
    (tmp / "cases.pkl").write_bytes(pickle.dumps(TF_CASES))
    run_tf(["-c", TF_SCRIPT, tmp / "cases.pkl", tmp / "out.pkl"], cwd=tmp, timeout=300)
    return pickle.loads((tmp / "out.pkl").read_bytes())


@pytest.mark.parametrize("index", range(len(TF_CASES)))
def test_matches_tensorflow(tf_results, index):
    op, inputs, attrs = TF_CASES[index]
    kind, want = tf_results[index]
    fn = getattr(ops, _snake(op))
    if kind == "error":
        error_class = getattr(errors, want, errors.OpError)
        with pytest.raises(error_class):
            res = fn(**inputs, **attrs)
            [r.numpy() for r in res] if isinstance(res, (list, tuple)) else res.numpy()
        return
    res = fn(**inputs, **attrs)
    got = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (op, attrs, g, w)
        np.testing.assert_array_equal(g, w, err_msg=f"{op} {attrs}")


# ---- RaggedTensorToTensor's gradient, against tf.GradientTape ------------------------------

GRAD_SCRIPT = r"""
import os, pickle, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
out = []
for values, default, shape, partitions, types, w in pickle.load(open(sys.argv[1], "rb")):
    v, d = tf.constant(values), tf.constant(default)
    with tf.GradientTape() as tape:
        tape.watch([v, d])
        y = tf.raw_ops.RaggedTensorToTensor(
            shape=tf.constant(shape), values=v, default_value=d,
            row_partition_tensors=[tf.constant(p) for p in partitions], row_partition_types=types)
    gv, gd = tape.gradient(y, [v, d], output_gradients=tf.constant(w))
    out.append((tf.convert_to_tensor(gv).numpy(), gd.numpy()))
pickle.dump(out, open(sys.argv[2], "wb"))
"""

_GRAD_RNG = np.random.default_rng(5)
GRAD_CASES = [  # values, default, shape, row partitions, their types
    (_GRAD_RNG.standard_normal((6, 2)), _GRAD_RNG.standard_normal(2), [-1, -1, 2],
     [np.int64([0, 2, 2, 5, 6])], ["ROW_SPLITS"]),
    (_GRAD_RNG.standard_normal((6, 2)), np.float64(0.5), [3, 2, 2],
     [np.int64([0, 2, 2, 5, 6])], ["ROW_SPLITS"]),
    (_GRAD_RNG.standard_normal(6), np.float64(-1), [-1, -1, -1],
     [np.int32([0, 2, 2, 3]), np.int32([0, 2, 3, 6])], ["ROW_SPLITS", "ROW_SPLITS"]),
    (_GRAD_RNG.standard_normal(5), np.float64(2), [4, 3],
     [np.int64(4), np.int64([0, 0, 2, 2, 2])], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]),
]


def _opgen_ragged_grads(values, default, shape, partitions, types, w):
    import opgen
    g = opgen.Graph()
    with g.as_default():
        v = ops.placeholder(opgen.float64, shape=list(values.shape))
        d = ops.placeholder(opgen.float64, shape=list(np.shape(default)))
        y = ops.ragged_tensor_to_tensor(np.int64(shape), v, d, partitions,
                                        row_partition_types=types)
        wy = ops.placeholder(opgen.float64, shape=list(w.shape))
        gv, gd = opgen.gradients([y], [v, d], grad_ys=[wy])
    return opgen.Session(g).run([gv, gd], {v: values, d: default, wy: w})


def test_ragged_tensor_to_tensor_gradient_matches_tensorflow(tmp_path):
    tf_python()  # skips first when there is no TensorFlow
    cases = []
    for values, default, shape, partitions, types in GRAD_CASES:
        y = ops.ragged_tensor_to_tensor(np.int64(shape), values, default, partitions,
                                        row_partition_types=types).numpy()
        cases.append((values, default, shape, partitions, types,
                      _GRAD_RNG.uniform(0.5, 1.5, y.shape)))
    (tmp_path / "cases.pkl").write_bytes(pickle.dumps(cases))
    run_tf(["-c", GRAD_SCRIPT, tmp_path / "cases.pkl", tmp_path / "out.pkl"], cwd=tmp_path,
           timeout=300)
    for case, (want_v, want_d) in zip(cases, pickle.loads((tmp_path / "out.pkl").read_bytes())):
        got_v, got_d = _opgen_ragged_grads(*case)
        np.testing.assert_allclose(got_v, want_v, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got_d, want_d, rtol=1e-12, atol=1e-12)
