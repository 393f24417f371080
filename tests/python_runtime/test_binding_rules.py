"""Binding rules: lazy loading, exports, dtype parsing, Python-side attr validation
(allowed_values, minimum, required, Python types), conversion rules and raw statuses."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import opgen
from opgen.runtime import dtypes, errors
from opgen.runtime.tensor import default_numpy_value


def test_runtime_exports_exist():
    for name in opgen._RUNTIME_EXPORTS - {"newaxis"}:
        assert getattr(opgen, name) is not None, name
    assert opgen.newaxis is None  # (as tf.newaxis)


def test_import_does_not_load_the_library(tmp_path):
    code = ("import sys, opgen.runtime, opgen.runtime._lib as l; import opgen; "
            "opgen.float32; assert l._lib is None; print('ok')")
    env = dict(os.environ, OPGEN_RUNTIME_LIB=str(tmp_path / "missing.so"))
    env["PYTHONPATH"] = str(opgen._paths.SOURCE_ROOT)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=False)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


@pytest.mark.parametrize("spelling, want", [
    ("float32", dtypes.float32), ("float", dtypes.float32), ("DT_FLOAT", dtypes.float32),
    ("double", dtypes.float64), ("half", dtypes.float16), ("int64", dtypes.int64),
    (1, dtypes.float32), (9, dtypes.int64), (np.float64, dtypes.float64),
    (np.dtype("int8"), dtypes.int8), (float, dtypes.float32), (np.bool_, dtypes.bool),
    (dtypes.uint16, dtypes.uint16),
    # numpy's string and object dtypes are TensorFlow's string, as tf.as_dtype has them
    (np.dtype("U3"), dtypes.string), (np.bytes_, dtypes.string), (np.object_, dtypes.string)])
def test_as_dtype_spellings(spelling, want):
    assert dtypes.as_dtype(spelling) is want


@pytest.mark.parametrize("bad", ["floaty", 99, True, object(), np.dtype("M8[s]"), None])
def test_as_dtype_refusals(bad):
    with pytest.raises(TypeError):
        dtypes.as_dtype(bad)


def test_dtype_properties():
    assert dtypes.float32.is_floating and not dtypes.int32.is_floating
    assert dtypes.uint8.is_unsigned and dtypes.int8.is_integer and dtypes.bool.is_bool
    assert dtypes.qint8.is_quantized and dtypes.complex64.is_complex
    assert dtypes.float64.as_numpy_dtype is np.float64
    assert dtypes.half is dtypes.float16 and dtypes.double is dtypes.float64
    assert dtypes.resource.as_datatype_enum == 20 and dtypes.variant.as_datatype_enum == 21
    with pytest.raises(TypeError):
        _ = dtypes.qint8.as_numpy_dtype


@pytest.mark.parametrize("value, want", [
    (1.5, np.float32), (3, np.int32), (2 ** 40, np.int64), (-(2 ** 31), np.int32),
    (True, np.bool_), ([[1, 2], [3, 4]], np.int32), ([1, 2.5], np.float32),
    ([[True], [False]], np.bool_), (np.float64(1), np.float64), (np.arange(3, dtype=np.uint8), np.uint8)])
def test_default_conversion_dtypes(value, want):
    assert default_numpy_value(value).dtype == want


def test_error_codes_and_messages():
    e = errors.InvalidArgumentError("bad", "Relu")
    assert e.code == 3 and e.op_name == "Relu" and e.message == "bad" and isinstance(e, errors.OpError)
    assert errors.exception_class(16) is errors.UnauthenticatedError
    assert errors.exception_class(999) is errors.UnknownError


# ---- with the library -------------------------------------------------------------------

lib_needed = pytest.mark.usefixtures("runtime_lib")


@lib_needed
def test_raise_for_status_takes_a_raw_pointer(runtime_lib):
    status = runtime_lib.TF_NewStatus()
    try:
        errors.raise_for_status(status, "Foo")  # OK: no raise
    finally:
        runtime_lib.TF_DeleteStatus(status)


@lib_needed
@pytest.mark.parametrize("call, error, fragments", [
    # allowed_values of a type attr, inferred from the input: names op, attr, allowed set
    (lambda: opgen.execute_op("Relu", [np.array([True])], {}), errors.InvalidArgumentError,
     ["Relu", "'T'", "bool", "float32"]),
    # allowed_values of a type attr given in attrs (Relu's T pinned by the caller)
    (lambda: opgen.execute_op("Relu", [[1, 2]], {"T": "bool"}), errors.InvalidArgumentError,
     ["Relu", "'T'", "bool", "allowed"]),
    # a dtype with no kernel: NotFoundError listing what is registered
    (lambda: opgen.execute_op("Cast", [np.ones(2)], {"DstT": "string"}), errors.NotFoundError,
     ["Cast", "Registered"]),
    # number attr below its minimum (ConcatV2 N >= 2)
    (lambda: opgen.execute_op("ConcatV2", [[np.ones(2)], 0], {}), errors.InvalidArgumentError,
     ["ConcatV2", "'N'", "minimum 2"]),
    # missing required attr
    (lambda: opgen.execute_op("Cast", [np.ones(2)], {}), errors.InvalidArgumentError,
     ["Cast", "missing required attr 'DstT'"]),
    # wrong Python types per attr kind
    (lambda: opgen.execute_op("MatMul", [np.ones((1, 1)), np.ones((1, 1))], {"transpose_a": 1}),
     errors.InvalidArgumentError, ["MatMul", "transpose_a", "bool"]),
    (lambda: opgen.execute_op("Unpack", [np.ones((3, 2))], {"num": 3.0, "axis": 0}),
     errors.InvalidArgumentError, ["Unpack", "num", "int"]),
    (lambda: opgen.execute_op("Cast", [np.ones(2)], {"DstT": 3.5}), errors.InvalidArgumentError,
     ["Cast", "DstT"]),
    # unknown attr lists the op's attrs
    (lambda: opgen.execute_op("Neg", [np.ones(2)], {"bogus": 1}), errors.InvalidArgumentError,
     ["Neg", "bogus", "T"]),
    # Python value that cannot take the pinned dtype
    (lambda: opgen.execute_op("AddV2", [np.ones(2, np.int32), 1.5], {}), errors.InvalidArgumentError,
     ["AddV2", "int32"]),
    (lambda: opgen.execute_op("AddV2", [np.ones(2, np.uint8), 300], {}), errors.InvalidArgumentError,
     ["AddV2", "uint8"]),
])
def test_python_side_validation(call, error, fragments):
    with pytest.raises(error) as info:
        call()
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@lib_needed
@pytest.mark.parametrize("op_type, inputs, attrs, fragments", [
    ("Cast", [np.ones(2)], {}, ["Cast", "missing required attr 'DstT'"]),
    ("MatMul", [np.ones((1, 1)), np.ones((1, 1))], {"transpose_a": 1},
     ["MatMul", "attr 'transpose_a' must be a bool"]),
    ("Neg", [np.ones(2)], {"bogus": 1}, ["Neg has no attr named 'bogus'", "T"]),
    ("Relu", [[1, 2]], {"T": "bool"}, ["Relu", "'T'", "bool", "allowed"]),
    ("ConcatV2", [[np.ones(2)], 0], {}, ["ConcatV2", "'N'", "minimum 2"]),
])
def test_graph_mode_checks_attrs_as_eager_mode_does(op_type, inputs, attrs, fragments):
    """A node is refused at build time with the message eager execution gives."""
    messages = []
    for graph in (None, opgen.Graph()):
        with pytest.raises(errors.InvalidArgumentError) as info:
            if graph is None:
                opgen.execute_op(op_type, inputs, attrs)
            else:
                with graph.as_default():
                    opgen.execute_op(op_type, inputs, attrs)
        messages.append(str(info.value))
    for fragment in fragments:
        assert all(fragment in message for message in messages), messages


@lib_needed
def test_dtype_attrs_accept_names_dtypes_and_numpy():
    x = np.arange(4, dtype=np.int32)
    for spelling in ("float32", "float", dtypes.float32, np.float32, 1):
        out = opgen.execute_op("Cast", [x], {"DstT": spelling})[0]
        assert out.dtype == dtypes.float32
        np.testing.assert_array_equal(np.asarray(out), x.astype(np.float32))


@lib_needed
def test_convert_to_tensor_rules():
    t = opgen.convert_to_tensor(np.arange(3, dtype=np.int64), dtype="float64")  # int -> float: cast
    assert t.dtype == dtypes.float64
    with pytest.raises(errors.InvalidArgumentError):
        opgen.convert_to_tensor(np.ones(2), dtype="int32")  # float -> int: refused
    with pytest.raises(errors.InvalidArgumentError):
        opgen.convert_to_tensor(opgen.convert_to_tensor(1.0), dtype="float64")
    with pytest.raises(errors.InvalidArgumentError):
        opgen.convert_to_tensor(2 ** 70)
    nc = np.arange(12, dtype=np.float32).reshape(3, 4).T  # not C-contiguous
    np.testing.assert_array_equal(np.asarray(opgen.convert_to_tensor(nc)), nc)
    assert opgen.convert_to_tensor([]).shape == (0,)


@lib_needed
def test_tensor_scalar_protocols_and_array_dtype():
    t = opgen.convert_to_tensor(3)
    assert int(t) == 3 and [10, 20, 30, 40][t] == 40 and bool(t)
    assert not bool(opgen.convert_to_tensor(0.0))
    with pytest.raises(TypeError):
        [1, 2][opgen.convert_to_tensor(1.0)]
    with pytest.raises(TypeError):
        len(t)
    a = np.asarray(opgen.convert_to_tensor([1, 2]), dtype=np.float64)
    assert a.dtype == np.float64
    assert opgen.convert_to_tensor(np.ones((2, 0))).numpy().shape == (2, 0)


@lib_needed
def test_many_tensors_are_freed():
    x = np.ones((256, 256), np.float32)
    for _ in range(300):  # 300 * 256 KiB: leaks would show up under ASan / RSS, not crash
        opgen.execute_op("AddV2", [x, x], {})
