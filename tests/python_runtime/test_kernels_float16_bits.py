"""The software half <-> float conversions (used where the compiler has no _Float16)
agree with numpy bit for bit: every half widened, and a million float32 patterns,
special values and rounding ties included, narrowed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    compiler = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not compiler:
        pytest.skip("no C++ compiler to build the conversion harness")
    exe = tmp_path_factory.mktemp("float16") / "float16_bits"
    subprocess.run([compiler, "-std=c++17", "-O1", f"-I{REPO / 'runtime' / 'include'}",
                    f"-I{REPO / 'runtime' / 'kernels' / 'cpu'}",
                    str(HERE / "kernels_float16_bits.cc"), "-o", str(exe)], check=True)
    return exe


def test_software_conversions_match_numpy(harness):
    rng = np.random.default_rng(1)
    ties = (np.arange(1 << 16, dtype=np.uint32) << 13) | 0x1000  # exactly half-way
    special = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x477FEFFF,
                        0x477FF000, 0x33000000, 0x33000001, 0x387FC000, 0x00000001],
                       np.uint32)
    floats = np.concatenate([special, ties, rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint32)])
    out = subprocess.run([str(harness)], input=floats.astype("<u4").tobytes(),
                         capture_output=True, check=True).stdout
    narrowed = np.frombuffer(out[:2 * floats.size], "<u2")
    widened = np.frombuffer(out[2 * floats.size:], "<u4")

    as_float = floats.view(np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        want = as_float.astype(np.float16).view(np.uint16)
    nan = np.isnan(as_float)
    np.testing.assert_array_equal(narrowed[~nan], want[~nan])
    assert ((narrowed[nan] & 0x7C00) == 0x7C00).all() and (narrowed[nan] & 0x3FF).all()

    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    with np.errstate(invalid="ignore"):
        want_wide = halves.astype(np.float32)
    finite = ~np.isnan(want_wide)
    np.testing.assert_array_equal(widened[finite], want_wide[finite].view(np.uint32))
    assert np.isnan(widened[~finite].view(np.float32)).all()
