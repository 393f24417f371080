"""Cast between every pair of real types and bool equals numpy's astype (ml_dtypes'
for bfloat16); half and bfloat16 round to nearest even, bit for bit, special values
included."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_dtypes import REALS, bfloat16, is_int, name, run

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(3)

TYPES = REALS + [np.bool_]


def source_values(dtype):
    """Values every destination holds: 0..100 with fractions for floats, 0 included."""
    x = rng.uniform(0, 100, size=(4, 6))
    x[0, :3] = [0, 1, 0.5]
    return x.astype(np.float32).astype(dtype) if not is_int(dtype) else x.astype(dtype)


@pytest.mark.parametrize("dst", TYPES, ids=name)
@pytest.mark.parametrize("src", TYPES, ids=name)
def test_cast_matches_astype(src, dst):
    x = source_values(src) if src is not np.bool_ else rng.random((4, 6)) < 0.5
    got = run("Cast", [x], {"DstT": name(dst)})
    want = x.astype(dst)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8))


@pytest.mark.parametrize("src", [np.float32, np.float64], ids=name)
@pytest.mark.parametrize("dst", [np.float16, bfloat16], ids=name)
def test_narrowing_rounds_to_nearest_even_bit_for_bit(src, dst):
    if dst is None:
        pytest.skip("ml_dtypes is not installed")
    tiny = float(np.finfo(np.float16).smallest_subnormal)
    x = np.array([0.0, -0.0, np.inf, -np.inf, 65504, 65519.99, 65520, -65520, 1e-8, tiny,
                  tiny / 2, tiny * 1.5, 6e-5, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8,
                  1 + 3 * 2 ** -8, 3.4e38, -3.4e38, 1e-40, 1 / 3, -2 / 3], src)
    with np.errstate(over="ignore"):
        want = x.astype(dst)
        got = run("Cast", [x], {"DstT": name(dst)})
    if src == np.float64:
        # float64 goes through float32, whose subnormals flush to zero (sign kept), as in
        # TensorFlow: its Cast of 1e-40 to bfloat16 is 0.
        flushed = np.abs(x) < np.finfo(np.float32).tiny
        want[flushed] = np.copysign(0.0, x[flushed]).astype(dst)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    nan = run("Cast", [np.array([np.nan, -np.nan], src)], {"DstT": name(dst)})
    assert np.isnan(nan.astype(np.float32)).all()


@pytest.mark.parametrize("src", [np.float16, bfloat16], ids=name)
def test_every_16_bit_pattern_widens_exactly(src):
    if src is None:
        pytest.skip("ml_dtypes is not installed")
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(src)
    for dst in (np.float32, np.float64):
        got = run("Cast", [x], {"DstT": name(dst)})
        with np.errstate(invalid="ignore"):
            want = x.astype(dst)
        if dst == np.float64:
            # A bfloat16 subnormal is a float32 subnormal: float32 to float64 reads it as
            # zero (denormals-are-zero), as TensorFlow's Cast does; to float32 it is a
            # bit copy and stays.
            flushed = np.abs(want) < np.finfo(np.float32).tiny
            want[flushed] = np.copysign(0.0, want[flushed])
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        finite = ~np.isnan(want)
        np.testing.assert_array_equal(got[finite].view(np.uint8), want[finite].view(np.uint8))


@pytest.mark.parametrize("dst", [np.int8, np.int16, np.uint8, np.uint16, np.uint32], ids=name)
def test_narrowing_integers_wraps(dst):
    x = np.array([300, -1, 70000, -70000, 2 ** 33 + 5], np.int64)
    np.testing.assert_array_equal(run("Cast", [x], {"DstT": name(dst)}), x.astype(dst))


@pytest.mark.parametrize("src", [np.float32, np.float16], ids=name)
def test_floats_to_integers_truncate_toward_zero(src):
    x = np.array([-2.9, -0.5, 0.5, 2.9, 100.99], src)
    for dst in (np.int8, np.int16, np.int32, np.int64):
        np.testing.assert_array_equal(run("Cast", [x], {"DstT": name(dst)}),
                                      x.astype(np.float64).astype(dst))
