"""dtypes and error classes: TensorFlow's names and numbers, numpy equivalents."""

import subprocess
import sys
import tempfile

import numpy as np
import pytest

from opgen.protos import types_pb2
from opgen.runtime import dtypes, errors


@pytest.mark.parametrize("dtype", [d for d in dtypes.all_dtypes()])
def test_enum_numbers_are_tensorflows(dtype):
    proto_name = {"float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF"}.get(
        dtype.name, "DT_" + dtype.name.upper())
    assert types_pb2.DataType.Value(proto_name) == dtype.as_datatype_enum
    assert dtypes.as_dtype(dtype.as_datatype_enum) is dtype
    assert dtypes.as_dtype(proto_name) is dtype


@pytest.mark.parametrize("np_dtype", [np.float16, np.float32, np.float64, np.int8, np.int16,
                                      np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                      np.uint64, np.bool_, np.complex64, np.complex128])
def test_numpy_round_trip(np_dtype):
    dtype = dtypes.as_dtype(np_dtype)
    assert dtype.numpy_dtype == np.dtype(np_dtype)
    assert dtypes.as_dtype(np.dtype(np_dtype)) is dtype
    assert dtypes.as_dtype(dtype.name) is dtype


def test_aliases_and_refusals():
    assert dtypes.as_dtype("float") is dtypes.float32 and dtypes.as_dtype("half") is dtypes.float16
    assert dtypes.double is dtypes.float64
    with pytest.raises(TypeError):
        dtypes.as_dtype("floaty")
    with pytest.raises(TypeError):
        dtypes.qint8.as_numpy_dtype


def test_error_classes_carry_tensorflows_codes():
    expected = {"CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3,
                "DeadlineExceededError": 4, "NotFoundError": 5, "AlreadyExistsError": 6,
                "PermissionDeniedError": 7, "ResourceExhaustedError": 8,
                "FailedPreconditionError": 9, "AbortedError": 10, "OutOfRangeError": 11,
                "UnimplementedError": 12, "InternalError": 13, "UnavailableError": 14,
                "DataLossError": 15, "UnauthenticatedError": 16}
    for name, code in expected.items():
        cls = getattr(errors, name)
        assert issubclass(cls, errors.OpError) and cls.code == code
        assert errors.exception_class(code) is cls
    err = errors.InvalidArgumentError("bad", "MatMul")
    assert err.op_name == "MatMul" and str(err) == "bad"


def test_bfloat16_is_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dtypes.bfloat16.as_numpy_dtype is ml_dtypes.bfloat16
    assert dtypes.as_dtype(np.dtype(ml_dtypes.bfloat16)) is dtypes.bfloat16


def test_ml_dtypes_loads_only_when_a_bfloat16_needs_it():
    # Importing ml_dtypes registers its ufunc loops (about a second): a fresh process
    # that runs float32 ops must not pay for it; the first bfloat16 tensor does.
    code = (
        "import sys, numpy as np, opgen.runtime as r\n"
        "r.constant(np.ones(2, np.float32)) + 1.0\n"
        "assert r.float32.numpy_dtype == np.float32\n"
        "assert 'ml_dtypes' not in sys.modules, 'imported early'\n"
        "t = r.constant([1.5, 2.0], dtype=r.bfloat16)\n"
        "assert 'ml_dtypes' in sys.modules\n"
        "assert r.as_dtype(t.numpy().dtype) is r.bfloat16\n"
        "print(t.numpy().astype(np.float32).tolist())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1.5, 2.0]"
