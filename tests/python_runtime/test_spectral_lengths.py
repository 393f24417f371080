"""The FFT family's fast paths over many lengths, against numpy.fft in double precision:
RFFT/IRFFT of even lengths (one complex transform of n/2 and a twiddle pass) and odd
ones, powers of two (radix 4, plus one radix-2 pass where log2 n is odd), mixed radices
(2, 3, 4, 5 and primes up to 31) and Bluestein lengths (large primes and their
multiples), lengths 1-3, batches of rows split over threads,
strided axes wider than the 16-column tiles, both precisions; round trips; the
complex64 error no worse than TensorFlow's own (its single-precision transform, in a
child interpreter at $OPGEN_TF_PYTHON) on the same inputs."""

from __future__ import annotations

import textwrap
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from tf_reference import run_tf

import opgen
from opgen.runtime import execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(11)
REAL = {"complex64": np.float32, "complex128": np.float64}
# relative to the largest output value; complex64's is what test_spectral_ops.py allows
TOL = {"complex64": 2e-5, "complex128": 1e-11}
# powers of two; products of 2, 3, 4, 5 and primes up to 31 (mixed radix); lengths with a
# larger prime factor (Bluestein)
LENGTHS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 17, 31, 32, 33, 37, 64, 97, 111, 128, 256, 480,
           1000, 1001, 1021, 2042, 2048, 3125, 4096, 7919, 8192, 65537]


def _eager(op, inputs, attrs=None):
    return execute_op(op, inputs, attrs or {})[0].numpy()


def _close(got, want, dtype, n=1):
    scale = np.abs(want).max() or 1.0
    # double precision: the error grows (slowly) with the length
    tol = TOL[dtype] * (1 if dtype == "complex64" else max(1.0, np.log2(max(n, 2)) / 4))
    np.testing.assert_allclose(got, want, rtol=0, atol=tol * scale)


@pytest.mark.parametrize("dtype", sorted(REAL))
@pytest.mark.parametrize("n", LENGTHS)
def test_rfft_and_irfft_of_every_length(n, dtype):
    rows = 3 if n < 10000 else 1
    x = rng.normal(size=(rows, n)).astype(REAL[dtype])
    got = _eager("RFFT", [x, np.int32([n])], {"Tcomplex": opgen.as_dtype(dtype)})
    want = np.fft.rfft(x.astype(np.float64))
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape
    _close(got, want, dtype, n)
    # a spectrum with imaginary parts at 0 and n/2 (IRFFT ignores them, as numpy does)
    spec = (rng.normal(size=(rows, n // 2 + 1)) + 1j * rng.normal(size=(rows, n // 2 + 1)))
    spec = spec.astype(dtype)
    back = _eager("IRFFT", [spec, np.int32([n])], {"Treal": opgen.as_dtype(REAL[dtype])})
    want_back = np.fft.irfft(spec.astype(np.complex128), n)
    assert back.dtype == REAL[dtype] and back.shape == (rows, n)
    _close(back, want_back, dtype, n)
    # and the round trip
    again = _eager("IRFFT", [got, np.int32([n])], {"Treal": opgen.as_dtype(REAL[dtype])})
    _close(again, x, dtype, n)


@pytest.mark.parametrize("dtype", sorted(REAL))
@pytest.mark.parametrize("n", LENGTHS)
def test_fft_and_ifft_of_every_length(n, dtype):
    rows = 2 if n < 10000 else 1
    x = (rng.normal(size=(rows, n)) + 1j * rng.normal(size=(rows, n))).astype(dtype)
    got = _eager("FFT", [x])
    want = np.fft.fft(x.astype(np.complex128))
    assert got.dtype == np.dtype(dtype)
    _close(got, want, dtype, n)
    inverse = _eager("IFFT", [x])
    _close(inverse, np.fft.ifft(x.astype(np.complex128)), dtype, n)
    _close(_eager("IFFT", [got]), x, dtype, n)


@pytest.mark.parametrize("dtype", sorted(REAL))
def test_large_batches_are_split_over_threads_deterministically(dtype):
    """Rows are independent: a batch gives each row what a single row gives, bit for
    bit, and the same bits every run, however the thread pool splits it."""
    for n in (1024, 1000, 63):
        x = rng.normal(size=(257, n)).astype(REAL[dtype])  # 16 tiles of 16 rows and one
        attrs = {"Tcomplex": opgen.as_dtype(dtype)}
        got = _eager("RFFT", [x, np.int32([n])], attrs)
        _close(got, np.fft.rfft(x.astype(np.float64)), dtype, n)
        for row in (0, 100, 256):
            np.testing.assert_array_equal(_eager("RFFT", [x[row:row + 1], np.int32([n])], attrs),
                                          got[row:row + 1])
        np.testing.assert_array_equal(_eager("RFFT", [x, np.int32([n])], attrs), got)
        back = _eager("IRFFT", [got, np.int32([n])], {"Treal": opgen.as_dtype(REAL[dtype])})
        np.testing.assert_array_equal(
            _eager("IRFFT", [got, np.int32([n])], {"Treal": opgen.as_dtype(REAL[dtype])}), back)
        for row in (0, 100, 256):
            np.testing.assert_array_equal(
                _eager("IRFFT", [got[row:row + 1], np.int32([n])],
                       {"Treal": opgen.as_dtype(REAL[dtype])}), back[row:row + 1])
        _close(back, x, dtype, n)
        c = (x + 1j * x[::-1]).astype(dtype)
        f = _eager("FFT", [c])
        np.testing.assert_array_equal(_eager("FFT", [c[5:6]]), f[5:6])
        _close(f, np.fft.fft(c.astype(np.complex128)), dtype, n)


@pytest.mark.parametrize("dtype", sorted(REAL))
def test_strided_axes_wider_than_a_tile(dtype):
    """The outer axes of 2-D/3-D transforms are gathered 16 columns at a time: widths
    that are not multiples of 16, and cropped inputs."""
    x = (rng.normal(size=(3, 24, 37)) + 1j * rng.normal(size=(3, 24, 37))).astype(dtype)
    _close(_eager("FFT2D", [x]), np.fft.fft2(x.astype(np.complex128)), dtype, 37)
    _close(_eager("IFFT3D", [x]), np.fft.ifftn(x.astype(np.complex128), axes=(0, 1, 2)), dtype)
    r = rng.normal(size=(2, 9, 20, 70)).astype(REAL[dtype])
    got = _eager("RFFT3D", [r, np.int32([7, 20, 66])], {"Tcomplex": opgen.as_dtype(dtype)})
    want = np.fft.rfftn(r[:, :7, :, :66].astype(np.float64), axes=(1, 2, 3))
    _close(got, want, dtype, 66)
    spec = (rng.normal(size=(2, 33, 40)) + 1j * rng.normal(size=(2, 33, 40))).astype(dtype)
    back = _eager("IRFFT2D", [spec, np.int32([30, 41])], {"Treal": opgen.as_dtype(REAL[dtype])})
    _close(back, np.fft.irfft2(spec[:, :30, :21].astype(np.complex128), s=(30, 41)), dtype)
    # power-of-two axes: tiles of 16 lanes side by side, partial tiles (5 columns), and
    # tiles too narrow for the lanes (3 columns, 1 column) line by line
    for shape in ((2, 64, 37), (5, 128, 3), (4, 8, 21)):
        z = (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
        _close(_eager("FFT2D", [z]), np.fft.fft2(z.astype(np.complex128)), dtype, 128)
        _close(_eager("IFFT2D", [z]), np.fft.ifft2(z.astype(np.complex128)), dtype, 128)
    # cropped rows of a power-of-two length, side by side
    got = _eager("RFFT2D", [r, np.int32([20, 64])], {"Tcomplex": opgen.as_dtype(dtype)})
    _close(got, np.fft.rfftn(r[..., :20, :64].astype(np.float64), axes=(2, 3)), dtype, 64)
    back = _eager("IRFFT2D", [spec, np.int32([30, 64])], {"Treal": opgen.as_dtype(REAL[dtype])})
    _close(back, np.fft.irfft2(spec[:, :30, :33].astype(np.complex128), s=(30, 64)), dtype)
    square = rng.normal(size=(64, 256)).astype(REAL[dtype])
    _close(_eager("RFFT2D", [square, np.int32([64, 256])], {"Tcomplex": opgen.as_dtype(dtype)}),
           np.fft.rfft2(square.astype(np.float64)), dtype, 256)
    image = rng.normal(size=(96, 130)).astype(REAL[dtype])
    two = _eager("RFFT2D", [image, np.int32([96, 130])], {"Tcomplex": opgen.as_dtype(dtype)})
    _close(two, np.fft.rfft2(image.astype(np.float64)), dtype, 130)
    _close(_eager("IRFFT2D", [two, np.int32([96, 130])], {"Treal": opgen.as_dtype(REAL[dtype])}),
           image, dtype, 130)


def test_plans_are_shared_safely_between_threads():
    """Threads transforming many lengths at once share the plan cache (more lengths than
    it keeps, so it starts over while other threads hold plans)."""
    lengths = [n for n in range(2, 400) if n % 5 in (0, 2)][:100]
    signals = {n: rng.normal(size=(3, n)) for n in lengths}

    def work(offset):
        for n in lengths[offset:] + lengths[:offset]:
            got = _eager("RFFT", [signals[n], np.int32([n])], {"Tcomplex": opgen.complex128})
            np.testing.assert_allclose(got, np.fft.rfft(signals[n]), rtol=0,
                                       atol=1e-11 * np.abs(got).max())
        return True

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, [0, 25, 50, 75]))


TF_ERRORS = textwrap.dedent(r"""
    import sys
    import numpy as np
    import tensorflow as tf
    data = dict(np.load(sys.argv[1]))
    out = {}
    for key, x in data.items():
        n = x.shape[-1]
        if key.startswith("r"):
            out[key] = tf.raw_ops.RFFT(input=x, fft_length=[n], Tcomplex=tf.complex64).numpy()
        else:
            out[key] = tf.raw_ops.FFT(input=x).numpy()
    np.savez(sys.argv[2], **out)
""")


def test_complex64_error_is_no_worse_than_tensorflows(tmp_path):
    """Single precision like TensorFlow's transform: the error against numpy in double is
    within twice TensorFlow's own on the same inputs."""
    inputs = {}
    for n in (1000, 1021, 4096, 65536, 7919):
        inputs[f"r{n}"] = rng.normal(size=(2, n)).astype(np.float32)
        inputs[f"c{n}"] = (rng.normal(size=(2, n)) + 1j * rng.normal(size=(2, n))).astype(np.complex64)
    np.savez(tmp_path / "in.npz", **inputs)
    run_tf(["-c", TF_ERRORS, str(tmp_path / "in.npz"), str(tmp_path / "out.npz")], cwd=tmp_path)
    tf_out = dict(np.load(tmp_path / "out.npz"))
    for key, x in inputs.items():
        n = x.shape[-1]
        if key.startswith("r"):
            want = np.fft.rfft(x.astype(np.float64))
            got = _eager("RFFT", [x, np.int32([n])], {"Tcomplex": opgen.complex64})
        else:
            want = np.fft.fft(x.astype(np.complex128))
            got = _eager("FFT", [x])
        scale = np.abs(want).max()
        ours = np.abs(got - want).max() / scale
        theirs = np.abs(tf_out[key] - want).max() / scale
        assert ours <= 2 * theirs + 1e-8, (key, ours, theirs)
