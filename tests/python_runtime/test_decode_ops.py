"""The raw-decoding ops of serving graphs: ReadFile, WriteFile, DecodeRaw, DecodePaddedRaw
and DecodeCSV.

Against independent references (numpy.frombuffer for the raw bytes, Python's csv module
for the CSV dialect, the file system itself) and, where TensorFlow 2.21 is installed
($OPGEN_TF_PYTHON, a child process), against TensorFlow's outputs and error messages."""

from __future__ import annotations

import csv
import pickle
import re

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf, tf_python

pytestmark = pytest.mark.usefixtures("runtime_lib")

try:
    from ml_dtypes import bfloat16
except ImportError:  # a dependency; without it the bfloat16 case is left out
    bfloat16 = None


def _s(values, shape=None):
    array = np.empty(len(values), object)
    array[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return array.reshape(shape) if shape else array


RAW_TYPES = ["float16", "float32", "float64", "int32", "uint16", "uint8", "int16", "int8",
             "int64", "complex64", "complex128", "bool"] + (["bfloat16"] if bfloat16 else [])


def _np_dtype(name):
    return np.dtype(bfloat16) if name == "bfloat16" else np.dtype(name)


# ---- DecodeRaw and DecodePaddedRaw against numpy ------------------------------------------

@pytest.mark.parametrize("little_endian", [True, False])
@pytest.mark.parametrize("dtype", RAW_TYPES)
def test_decode_raw_is_numpy_frombuffer(dtype, little_endian):
    rng = np.random.default_rng(len(dtype))
    blobs = [bytes(rng.integers(0, 256, 32, dtype=np.uint8)) for _ in range(6)]
    if dtype == "bool":
        blobs = [bytes(b % 2 for b in blob) for blob in blobs]
    got = ops.decode_raw(_s(blobs, (2, 3)), out_type=dtype, little_endian=little_endian).numpy()
    want_type = _np_dtype(dtype).newbyteorder("<" if little_endian else ">")
    want = np.stack([np.frombuffer(b, want_type) for b in blobs]).reshape(2, 3, -1)
    assert got.shape == want.shape and got.dtype == _np_dtype(dtype)
    assert got.tobytes() == want.astype(_np_dtype(dtype)).tobytes()


def test_decode_raw_of_empty_strings_is_empty():
    assert ops.decode_raw(_s([b"", b""]), out_type="int32").numpy().shape == (2, 0)
    assert ops.decode_raw(np.empty((0, 4), object), out_type="int32").numpy().shape == (0, 4, 0)


def test_decode_raw_refuses_uneven_strings():
    with pytest.raises(errors.InvalidArgumentError,
                       match="that is not a multiple of 4, the size of float"):
        ops.decode_raw(_s([b"abcdef"]), out_type="float32").numpy()
    with pytest.raises(errors.InvalidArgumentError, match="to all be the same size"):
        ops.decode_raw(_s([b"ab", b"abcd"]), out_type="int16").numpy()


@pytest.mark.parametrize("little_endian", [True, False])
@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "uint8", "int64"])
def test_decode_padded_raw_pads_with_zero_bytes(dtype, little_endian):
    size = np.dtype(dtype).itemsize
    blobs = [bytes(range(1, n + 1)) for n in (0, 1, 3 * size - 1, 3 * size, 5 * size)]
    got = ops.decode_padded_raw(_s(blobs), 3 * size, out_type=dtype,
                                little_endian=little_endian).numpy()
    order = np.dtype(dtype).newbyteorder("<" if little_endian else ">")
    want = np.stack([np.frombuffer(b[:3 * size].ljust(3 * size, b"\0"), order) for b in blobs])
    assert got.shape == (5, 3)
    assert got.tobytes() == want.astype(dtype).tobytes()


# ---- ReadFile and WriteFile -----------------------------------------------------------------

def test_write_file_creates_parents_and_read_file_reads_it_back(tmp_path):
    data = bytes(range(256)) * 3
    target = tmp_path / "a" / "b" / "blob.bin"
    ops.write_file(str(target), data)
    assert target.read_bytes() == data
    assert ops.read_file(str(target)).numpy().item() == data
    assert ops.read_file("file://" + str(target)).numpy().item() == data
    ops.write_file(str(target), b"")  # replaces the file
    assert target.read_bytes() == b""


def test_file_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        ops.read_file(str(tmp_path / "missing")).numpy()
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        ops.read_file(str(tmp_path)).numpy()
    with pytest.raises(errors.UnimplementedError, match="File system scheme 'bogus' not implemented"):
        ops.read_file("bogus://x").numpy()
    with pytest.raises(errors.InvalidArgumentError,
                       match=re.escape("Input filename tensor must be scalar, but had shape: [1]")):
        ops.read_file(_s([str(tmp_path / "x")])).numpy()


def test_file_ops_in_a_graph(tmp_path):
    import opgen
    target = tmp_path / "g" / "out.txt"
    graph = opgen.Graph()
    with graph.as_default():
        name = ops.placeholder(opgen.string, shape=[])
        write = ops.write_file(name, b"graph bytes")
        read = ops.read_file(name)
    with opgen.Session(graph=graph) as session:
        session.run(write, {name: str(target)})
        assert session.run(read, {name: str(target)}) == b"graph bytes"


# ---- DecodeCSV against Python's csv module ---------------------------------------------------

def test_decode_csv_reads_what_the_csv_module_writes():
    rng = np.random.default_rng(1)
    rows = [[int(rng.integers(-1000, 1000)), float(np.float32(rng.normal())),
             "".join(rng.choice(list('ab,"c '), 6)), int(rng.integers(-2 ** 40, 2 ** 40))]
            for _ in range(20)]
    lines = []
    for row in rows:
        buffer = []
        writer = csv.writer(buffer_writer := _Collect(buffer), lineterminator="")
        writer.writerow(row)
        lines.append("".join(buffer))
    defaults = [np.array([0], np.int32), np.array([0.0], np.float32), np.array([b""], object),
                np.array([0], np.int64)]
    got = [t.numpy() for t in ops.decode_csv(_s(lines), defaults)]
    parsed = list(csv.reader(lines))
    assert got[0].tolist() == [int(r[0]) for r in parsed]
    np.testing.assert_array_equal(got[1], np.float32([float(r[1]) for r in parsed]))
    assert got[2].tolist() == [r[2].encode() for r in parsed]
    assert got[3].tolist() == [int(r[3]) for r in parsed]


class _Collect:
    def __init__(self, out):
        self.out = out

    def write(self, text):
        self.out.append(text)


def test_decode_csv_defaults_na_value_and_select_cols():
    records = _s(["1,,x,NA", ",2.5,,7"])
    defaults = [np.array([-1], np.int32), np.array([9.5], np.float64), np.array([b"d"], object),
                np.array([3], np.int64)]
    got = [t.numpy() for t in ops.decode_csv(records, defaults, na_value="NA")]
    assert got[0].tolist() == [1, -1] and got[1].tolist() == [9.5, 2.5]
    assert got[2].tolist() == [b"x", b"d"] and got[3].tolist() == [3, 7]
    picked = ops.decode_csv(_s(["a;b;c", "d;e;f"]), [np.array([], object)] * 2,
                            field_delim=";", select_cols=[0, 2])
    assert [t.numpy().tolist() for t in picked] == [[b"a", b"d"], [b"c", b"f"]]


# ---- against TensorFlow ----------------------------------------------------------------------

_I, _L = np.int32, np.int64


def _d(value, dtype):
    return np.array([] if value is None else [value], dtype)


CSV_CASES = [
    (["1,2.5,x", '3,,"q""uote"', ",4,"], [_d(7, _I), _d(0.5, np.float32), _d(b"d", object)], {}),
    (["1,2"], [_d(None, _I)] * 2 + [_d(9, _I)], {}),
    (["1,2,"], [_d(None, _I)] * 2 + [_d(9, _I)], {}),
    (["1,2,"], [_d(None, _I)] * 3, {}),
    ([""], [_d(5, _I)], {}),
    ([","], [_d(5, _I), _d(6, _I)], {}),
    (["1,2,3"], [_d(None, _I)] * 2, {}),
    (["+5", " 5", "5 ", "-0", "-2147483648"], [_d(None, _I)], {}),
    (["2147483648"], [_d(None, _I)], {}),
    (["2147483648", "-9223372036854775808"], [_d(None, _L)], {}),
    (["1e3"], [_d(None, _L)], {}),
    (["1e3", "0x1A", "inf", "-Infinity", "nan", " 1.5 ", ".5", "1" * 40, "3.4e39", "nan(abc)"],
     [_d(None, np.float32)], {}),
    (["1e3", "0x1p3", "1e-50", "1" * 40], [_d(None, np.float64)], {}),
    (["1.5x"], [_d(None, np.float32)], {}),
    (["1e"], [_d(None, np.float64)], {}),
    (["NA,1"], [_d(3, _I), _d(b"z", object)], {"na_value": "NA"}),
    (["NA,NA"], [_d(3, _I), _d(None, object)], {"na_value": "NA"}),
    (["a;b;c", "d;e;f"], [_d(None, object)] * 2, {"field_delim": ";", "select_cols": [0, 2]}),
    (["a,b,c"], [_d(None, object)] * 2, {"select_cols": [1, 3]}),
    (["a,b,c"], [_d(None, object)] * 2, {"select_cols": [2, 1]}),
    (["a,b,c"], [_d(None, object)] * 2, {"select_cols": [-1, 1]}),
    (["a,b,c"], [_d(None, object)] * 2, {"select_cols": [1]}),
    (["a,b,,"], [_d(None, object), _d(b"u", object)], {"select_cols": [0, 3]}),
    (["a,b,c"], [_d(None, object)], {"field_delim": ";;"}),
    (['a"b'], [_d(None, object)], {}),
    (['a"b'], [_d(None, object)], {"use_quote_delim": False}),
    (['"a,b",c'], [_d(None, object)] * 2, {"use_quote_delim": False}),
    (['"ab'], [_d(None, object)], {}),
    (['"a"b"'], [_d(None, object)], {}),
    (['"'], [_d(None, object)], {}),
    (['"",x'], [_d(b"def", object), _d(None, object)], {}),
    (["a\nb"], [_d(None, object)] * 2, {}),
    (["\na,b"], [_d(None, object)] * 2, {}),
    (["\na,b\r\n"], [_d(None, object)] * 2, {}),
    (['"a\nb",c'], [_d(None, object)] * 2, {}),
    (["x"], [np.array([[1]], _I)], {}),
    (["x"], [np.array([1, 2], _I)], {}),
    (["1", "x"], [_d(None, _I)], {}),
]

TF_CASES = [("DecodeCSV", {"records": _s(r), "record_defaults": d}, a) for r, d, a in CSV_CASES]
TF_CASES += [
    ("DecodeCSV", {"records": _s(["1", "2", "3", ""], (2, 2)), "record_defaults": [_d(0, _I)]}, {}),
    ("DecodeCSV", {"records": np.array(b"1,2", object),
                   "record_defaults": [_d(0, _I), _d(None, np.float32)]}, {}),
    ("DecodeRaw", {"bytes": _s([bytes(range(1, 17)), bytes(range(1, 9))])},
     {"out_type": np.int16}),
    ("DecodeRaw", {"bytes": _s([b"abc"])}, {"out_type": np.complex128}),
    ("DecodeRaw", {"bytes": _s([b"abc"])}, {"out_type": np.float16}),
    ("DecodeRaw", {"bytes": _s([b"", b"ab"])}, {"out_type": np.int16}),
    ("DecodeRaw", {"bytes": _s([bytes(range(1, 17))])},
     {"out_type": np.complex64, "little_endian": False}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01\x02\x03", b"\x04"]), "fixed_length": _I(4)},
     {"out_type": np.int16, "little_endian": False}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01\x02\x03"]), "fixed_length": _I(3)},
     {"out_type": np.int16}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01\x02\x03"]), "fixed_length": _I(0)},
     {"out_type": np.int16}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01\x02\x03"]), "fixed_length": _I(-4)},
     {"out_type": np.int16}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01\x02\x03"]), "fixed_length": _I(-3)},
     {"out_type": np.int16}),
    ("DecodePaddedRaw", {"input_bytes": _s([b"\x01"]), "fixed_length": np.array([4], _I)},
     {"out_type": np.int16}),
    ("ReadFile", {"filename": _s(["a", "b"])}, {}),
    ("WriteFile", {"filename": np.array(b"unused", object), "contents": _s(["x"])}, {}),
]

TF_SCRIPT = r"""
import os, pickle, re, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
cases = pickle.load(open(sys.argv[1], "rb"))
out = []
for op, inputs, attrs in cases:
    attrs = {k: (tf.as_dtype(v) if isinstance(v, type) else v) for k, v in attrs.items()}
    try:
        res = getattr(tf.raw_ops, op)(**inputs, **attrs)
        if res is None:
            res = []
        res = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
        out.append(("ok", res))
    except Exception as e:
        message = str(e).split("}} ", 1)[-1]
        message = re.sub(r" \[Op:\w+\].*$", "", message.strip(), flags=re.S)
        out.append(("error", type(e).__name__, message))
pickle.dump(out, open(sys.argv[2], "wb"))
"""


@pytest.fixture(scope="module")
def tf_results(tmp_path_factory):
    tf_python()  # skips first when there is no TensorFlow
    tmp = tmp_path_factory.mktemp("tf_decode")
    (tmp / "cases.pkl").write_bytes(pickle.dumps(TF_CASES))
    run_tf(["-c", TF_SCRIPT, tmp / "cases.pkl", tmp / "out.pkl"], cwd=tmp, timeout=300)
    return pickle.loads((tmp / "out.pkl").read_bytes())


def _snake(op: str) -> str:
    return {"DecodeCSV": "decode_csv"}.get(op) or re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", op).lower()


@pytest.mark.parametrize("index", range(len(TF_CASES)))
def test_matches_tensorflow(tf_results, index):
    op, inputs, attrs = TF_CASES[index]
    attrs = {k: (np.dtype(v).name if isinstance(v, type) else v) for k, v in attrs.items()}
    result = tf_results[index]
    fn = getattr(ops, _snake(op))
    if result[0] == "error":
        _, error_class, message = result
        with pytest.raises(getattr(errors, error_class, errors.OpError)) as raised:
            res = fn(**inputs, **attrs)
            [r.numpy() for r in res] if isinstance(res, (list, tuple)) else res.numpy()
        assert message in str(raised.value), (op, attrs)
        return
    want = [np.array(w, object) if isinstance(w, bytes) else w for w in result[1]]
    res = fn(**inputs, **attrs)
    got = [r.numpy() for r in res] if isinstance(res, (list, tuple)) else [res.numpy()]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (op, attrs)
        if g.dtype.kind == "f":
            np.testing.assert_array_equal(g, w)  # NaN-aware
        else:
            assert g.tolist() == w.tolist(), (op, attrs)
