"""The header-only value types of the C++ custom-op API (runtime/include/tensorflow/core)
against independent references: Eigen::half and bfloat16 rounding against numpy's float16
and ml_dtypes' bfloat16, errors::InvalidArgument's StrCat formatting against TensorFlow's
documented one (six significant digits), TensorShape arithmetic."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

PROBE = Path(__file__).with_name("value_types_probe.cc")
VALUES = [0.0, -0.0, 1.0, -2.5, 0.1, 1 / 3, 65504.0, 65520.0, 1e5, 6.1e-5, 5.96e-8, 2.98e-8,
          1e-9, 3.14159265, -1e30, float("inf"), 1.00048828125, 1.0009765625, 257.5, 0.0078125]


@pytest.fixture(scope="module")
def probe_output(tmp_path_factory):
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    from opgen import _paths
    binary = tmp_path_factory.mktemp("probe") / "probe"
    subprocess.run([cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", f"-I{_paths.include_dir()}",
                    str(PROBE), "-o", str(binary)], check=True)
    run = subprocess.run([str(binary), *[repr(v) for v in VALUES]], capture_output=True, text=True,
                         check=True)
    return run.stdout.splitlines()


def test_half_and_bfloat16_round_like_numpy(probe_output):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    for value, line in zip(VALUES, probe_output):
        half, bf16 = (float.fromhex(v) for v in line.split())
        f = np.float32(value)
        with np.errstate(over="ignore"):  # 65520 and up round to inf, as they should
            assert half == float(f.astype(np.float16)) or (np.isnan(half) and np.isnan(f)), value
        assert bf16 == float(f.astype(ml_dtypes.bfloat16)), value


def test_error_message_concatenation(probe_output):
    code, message, elements, equal = probe_output[len(VALUES)].split("|")
    assert code == "3"
    assert message == "got 3 and -7, 0.1, 1e-07, 1.23457e+08 for [2,3,4] of int64"
    assert elements == "24" and equal == "1"
