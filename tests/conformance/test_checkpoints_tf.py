"""Checkpoints cross between opgen and TensorFlow 2.21, live: TensorFlow writes (raw
SaveV2, tf.compat.v1.train.Saver, tf.train.Checkpoint) and opgen restores the same values;
opgen writes (SaveV2, opgen.train.Saver) and TensorFlow reads them back with
tf.train.load_checkpoint and tf.raw_ops.RestoreV2. TensorFlow runs in a child process
($OPGEN_TF_PYTHON, through tools/make_checkpoint_fixtures.py); skipped without it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops
from tf_reference import run_tf, tf_python

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "make_checkpoint_fixtures.py"

pytestmark = pytest.mark.usefixtures("runtime_lib")


@pytest.fixture(scope="module")
def runtime_lib():
    from opgen.runtime import _lib
    try:
        return _lib.lib()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")


@pytest.fixture(scope="module")
def tool() -> Path:
    """tools/make_checkpoint_fixtures.py, run by TensorFlow's interpreter."""
    tf_python()
    if not TOOL.exists():
        pytest.skip("no tools/ folder beside the tests")
    return TOOL


def _dtype(value: np.ndarray):
    return opgen.string if value.dtype == object else opgen.as_dtype(value.dtype)


def _equal(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert got.shape == want.shape, name
    if want.dtype == object:
        assert got.tolist() == want.tolist(), name
    else:
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_tensorflow_writes_opgen_restores(tool, tmp_path):
    run_tf([tool, "write", tmp_path])
    with np.load(tmp_path / "expected.npz", allow_pickle=True) as data:
        expected = {k: data[k] for k in data.files}
    for key, want in expected.items():
        checkpoint, name = key.split("/", 1)
        got = ops.restore_v2(str(tmp_path / checkpoint), [name], [""], [_dtype(want)])[0]
        _equal(got.numpy(), want, key)


def test_opgen_writes_tensorflow_restores(tool, tmp_path):
    values = {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "i64": np.array([-(2**62), 7], np.int64),
        "flags": np.array([True, False]),
        "f16": np.array([1.5, -2.0], np.float16),
        "c128": np.array([1 - 1j], np.complex128),
        "scalar": np.array(3.0, np.float64),
        "empty": np.zeros((0, 2), np.int32),
        "strings": np.array([b"", b"a" * 22, b"b" * 23, b"\x00\x01" * 300], dtype=object),
    }
    names = list(values)
    ops.save_v2(str(tmp_path / "raw"), names, [""] * len(names),
                [opgen.constant(values[n]) for n in names])
    w = opgen.Variable(np.array([[1.0, -1.0]], np.float32), name="dense/kernel")
    opgen.train.Saver([w]).save(None, str(tmp_path / "saver"))
    run_tf([tool, "read", tmp_path / "raw", tmp_path / "raw.npz"])
    run_tf([tool, "read", tmp_path / "saver", tmp_path / "saver.npz"])
    with np.load(tmp_path / "raw.npz", allow_pickle=True) as data:
        assert sorted(data.files) == sorted(names)
        for name in names:
            _equal(data[name], values[name], name)
    with np.load(tmp_path / "saver.npz", allow_pickle=True) as data:
        assert data.files == ["dense/kernel"]
        _equal(data["dense/kernel"], w.numpy(), "dense/kernel")
