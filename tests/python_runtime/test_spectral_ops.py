"""The FFT family (FFT/IFFT/RFFT/IRFFT in 1-3 inner dims): values against numpy.fft and
TensorFlow 2.21 (in its own interpreter, $OPGEN_TF_PYTHON), eagerly and in a graph, for
every registered dtype; fft_length cropping; errors as TensorFlow's; the gradients of
the complex-input ops against tf.GradientTape (tests/python_runtime/test_gradient_coverage.py
checks them all against central differences)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen.runtime import errors, execute_op
from tf_reference import run_tf_script

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7)
COMPLEX = {"complex64": np.complex64, "complex128": np.complex128}
REAL_OF = {"complex64": np.float32, "complex128": np.float64}
TOL = {"complex64": 2e-5, "complex128": 1e-11}


def _complex(shape, dtype):
    return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)


def _axes(rank):
    return tuple(range(-rank, 0))


# (op, rank, inverse, input shape): lengths 1..12 (radix-2 and Bluestein), batches
COMPLEX_CASES = [("FFT", 1, False, (3, 7)), ("FFT", 1, False, (16,)), ("IFFT", 1, True, (2, 12)),
                 ("FFT2D", 2, False, (2, 5, 6)), ("IFFT2D", 2, True, (4, 8)),
                 ("FFT3D", 3, False, (2, 3, 4, 5)), ("IFFT3D", 3, True, (3, 1, 9))]
# (rank, input shape, fft_length): equal, cropped, odd and even lengths
REAL_CASES = [(1, (3, 10), [10]), (1, (3, 10), [7]), (1, (5,), [1]), (2, (2, 6, 9), [6, 9]),
              (2, (2, 6, 9), [4, 5]), (3, (2, 3, 4, 6), [3, 4, 6]), (3, (3, 5, 7), [2, 4, 5])]
# (rank, complex input shape, fft_length): the spectrum cropped where it is longer
INVERSE_CASES = [(1, (3, 6), [10]), (1, (3, 6), [9]), (1, (3, 6), [4]), (2, (2, 5, 4), [5, 6]),
                 (2, (2, 5, 4), [3, 5]), (3, (2, 3, 4, 4), [3, 4, 6]), (3, (3, 4, 5), [2, 3, 7]),
                 (1, (4, 5), [8]), (1, (2, 4), [7]), (2, (3, 4, 3), [4, 5])]

SPEC = {"complex": [], "real": [], "inverse": []}
ARRAYS: dict[str, np.ndarray] = {}
for name, dtype in COMPLEX.items():
    for k, (op, _rank, _inverse, shape) in enumerate(COMPLEX_CASES):
        key = f"c{k}-{name}"
        ARRAYS[key] = _complex(shape, dtype)
        SPEC["complex"].append({"id": key, "op": op})
    for k, (rank, shape, n) in enumerate(REAL_CASES):
        key = f"r{k}-{name}"
        ARRAYS[key] = rng.normal(size=shape).astype(REAL_OF[name])
        SPEC["real"].append({"id": key, "op": "RFFT" + ("" if rank == 1 else f"{rank}D"),
                             "n": n, "tcomplex": name})
    for k, (rank, shape, n) in enumerate(INVERSE_CASES):
        key = f"i{k}-{name}"
        ARRAYS[key] = _complex(shape, dtype)
        SPEC["inverse"].append({"id": key, "op": "IRFFT" + ("" if rank == 1 else f"{rank}D"),
                                "n": n, "treal": "float32" if name == "complex64" else "float64"})

TF_SCRIPT = textwrap.dedent(r"""
    import json, sys
    import numpy as np
    import tensorflow as tf
    spec = json.load(open(sys.argv[1]))
    data = dict(np.load(sys.argv[2]))
    out = {}
    for c in spec["complex"]:
        x = tf.constant(data[c["id"]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.raw_ops, c["op"])(input=x)
            w = tf.constant(data[c["id"]][::-1].copy())
            loss = tf.math.imag(tf.reduce_sum(y * w))
        out[c["id"]] = y.numpy()
        out[c["id"] + "/grad"] = tape.gradient(loss, x).numpy()
    for c in spec["real"]:
        out[c["id"]] = getattr(tf.raw_ops, c["op"])(
            input=data[c["id"]], fft_length=c["n"], Tcomplex=c["tcomplex"]).numpy()
    for c in spec["inverse"]:
        x = tf.constant(data[c["id"]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.raw_ops, c["op"])(input=x, fft_length=c["n"], Treal=c["treal"])
            loss = tf.reduce_sum(y * y)
        out[c["id"]] = y.numpy()
        try:  # fails where fft_length crops the spectrum
            out[c["id"] + "/grad"] = tape.gradient(loss, x).numpy()
        except (tf.errors.InvalidArgumentError, LookupError):  # no IRFFT3D gradient
            pass
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def tf_ref():
    return run_tf_script(TF_SCRIPT, ARRAYS, SPEC)


def _eager(op, inputs, attrs=None):
    return execute_op(op, inputs, attrs or {})[0].numpy()


def _in_graph(op, inputs, attrs=None):
    """The op in a graph fed through placeholders (fft_length a constant)."""
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.as_dtype(inputs[0].dtype), shape=inputs[0].shape)
        rest = [opgen.constant(v) for v in inputs[1:]]
        y = g.create_op(op, [x, *rest], attrs or {}).outputs[0]
    return y, opgen.Session(g).run(y, {x: inputs[0]})


def _numpy_complex(op, x):
    rank = 1 if op in ("FFT", "IFFT") else int(op[-2])
    fn = np.fft.ifftn if op.startswith("I") else np.fft.fftn
    return fn(x, axes=_axes(rank))


def _crop(x, lengths):
    index = (Ellipsis,) + tuple(slice(0, n) for n in lengths)
    return x[index]


@pytest.mark.parametrize("dtype", sorted(COMPLEX))
@pytest.mark.parametrize("k", range(len(COMPLEX_CASES)))
def test_complex_transforms_match_numpy_eager_and_in_a_graph(k, dtype):
    op = COMPLEX_CASES[k][0]
    x = ARRAYS[f"c{k}-{dtype}"]
    want = _numpy_complex(op, x.astype(np.complex128))
    got = _eager(op, [x])
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * np.abs(want).max())
    node, value = _in_graph(op, [x])
    assert tuple(node.shape) == x.shape
    np.testing.assert_array_equal(value, got)


@pytest.mark.parametrize("dtype", sorted(COMPLEX))
@pytest.mark.parametrize("k", range(len(REAL_CASES)))
def test_rfft_matches_numpy_eager_and_in_a_graph(k, dtype):
    rank, _, n = REAL_CASES[k]
    op = "RFFT" + ("" if rank == 1 else f"{rank}D")
    x = ARRAYS[f"r{k}-{dtype}"]
    attrs = {"Tcomplex": opgen.as_dtype(COMPLEX[dtype])}
    want = np.fft.rfftn(_crop(x.astype(np.float64), n), axes=_axes(rank))
    got = _eager(op, [x, np.int32(n)], attrs)
    assert got.dtype == COMPLEX[dtype] and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * np.abs(want).max())
    node, value = _in_graph(op, [x, np.int32(n)], attrs)
    assert tuple(node.shape) == want.shape  # the shape function reads fft_length
    np.testing.assert_array_equal(value, got)


@pytest.mark.parametrize("dtype", sorted(COMPLEX))
@pytest.mark.parametrize("k", range(len(INVERSE_CASES)))
def test_irfft_matches_numpy_eager_and_in_a_graph(k, dtype):
    rank, _, n = INVERSE_CASES[k]
    op = "IRFFT" + ("" if rank == 1 else f"{rank}D")
    x = ARRAYS[f"i{k}-{dtype}"]
    attrs = {"Treal": opgen.as_dtype(REAL_OF[dtype])}
    kept = list(n[:-1]) + [n[-1] // 2 + 1]
    want = np.fft.irfftn(_crop(x.astype(np.complex128), kept), s=n, axes=_axes(rank))
    got = _eager(op, [x, np.int32(n)], attrs)
    assert got.dtype == REAL_OF[dtype] and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype] * np.abs(want).max())
    node, value = _in_graph(op, [x, np.int32(n)], attrs)
    assert tuple(node.shape) == want.shape
    np.testing.assert_array_equal(value, got)


def test_round_trips_of_long_and_prime_lengths():
    """Bluestein's lengths (primes, 1000) and a long power of two, both ways."""
    for n in (97, 1000, 4096, 1021):
        x = rng.normal(size=(2, n))
        spectrum = _eager("RFFT", [x, np.int32([n])], {"Tcomplex": opgen.complex128})
        np.testing.assert_allclose(spectrum, np.fft.rfft(x), rtol=1e-9, atol=1e-9 * n)
        back = _eager("IRFFT", [spectrum, np.int32([n])], {"Treal": opgen.float64})
        np.testing.assert_allclose(back, x, atol=1e-12 * n)


@pytest.mark.parametrize("dtype", sorted(COMPLEX))
def test_values_match_tensorflow(dtype, tf_ref):
    for k, (op, *_rest) in enumerate(COMPLEX_CASES):
        key = f"c{k}-{dtype}"
        got = _eager(op, [ARRAYS[key]])
        np.testing.assert_allclose(got, tf_ref[key], rtol=TOL[dtype] * 10,
                                   atol=TOL[dtype] * 10 * np.abs(got).max(), err_msg=key)
    for k, (rank, _, n) in enumerate(REAL_CASES):
        key = f"r{k}-{dtype}"
        got = _eager("RFFT" + ("" if rank == 1 else f"{rank}D"), [ARRAYS[key], np.int32(n)],
                     {"Tcomplex": opgen.as_dtype(COMPLEX[dtype])})
        np.testing.assert_allclose(got, tf_ref[key], rtol=TOL[dtype] * 10,
                                   atol=TOL[dtype] * 10 * np.abs(got).max(), err_msg=key)
    for k, (rank, _, n) in enumerate(INVERSE_CASES):
        key = f"i{k}-{dtype}"
        got = _eager("IRFFT" + ("" if rank == 1 else f"{rank}D"), [ARRAYS[key], np.int32(n)],
                     {"Treal": opgen.as_dtype(REAL_OF[dtype])})
        np.testing.assert_allclose(got, tf_ref[key], rtol=TOL[dtype] * 10,
                                   atol=TOL[dtype] * 10 * np.abs(got).max(), err_msg=key)


def _graph_gradient(op, x, attrs, extra, loss):
    g = opgen.Graph()
    with g.as_default():
        node = opgen.ops.placeholder(opgen.as_dtype(x.dtype), shape=x.shape)
        y = g.create_op(op, [node, *[opgen.constant(v) for v in extra]], attrs).outputs[0]
        (grad,) = opgen.gradients(loss(g, y), [node])
    return opgen.Session(g).run(grad, {node: x})


@pytest.mark.parametrize("dtype", sorted(COMPLEX))
def test_gradients_of_complex_inputs_match_tensorflow(dtype, tf_ref):
    """Im(sum(op(x) * w)) for the complex transforms and sum(y * y) for IRFFT (cropped
    spectra included): TensorFlow's convention, dL/dRe + i dL/dIm."""
    tol = 1e-4 if dtype == "complex64" else 1e-10
    for k, (op, *_rest) in enumerate(COMPLEX_CASES):
        key = f"c{k}-{dtype}"
        w = ARRAYS[key][::-1].copy()

        def loss(g, y, w=w):
            prod = g.create_op("Mul", [y, opgen.constant(w)], {}).outputs[0]
            total = g.create_op("Sum", [prod, opgen.constant(np.int32(list(range(w.ndim))))],
                                {}).outputs[0]
            return g.create_op("Imag", [total], {"Tout": opgen.as_dtype(REAL_OF[dtype])}).outputs[0]
        got = _graph_gradient(op, ARRAYS[key], {}, [], loss)
        want = tf_ref[key + "/grad"]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max(), err_msg=key)
    cropped = []
    for k, (rank, _, n) in enumerate(INVERSE_CASES):
        key = f"i{k}-{dtype}"

        def square_sum(g, y, rank_of_y=ARRAYS[key].ndim):
            sq = g.create_op("Mul", [y, y], {}).outputs[0]
            axes = opgen.constant(np.arange(rank_of_y, dtype=np.int32))
            return g.create_op("Sum", [sq, axes], {}).outputs[0]
        got = _graph_gradient("IRFFT" + ("" if rank == 1 else f"{rank}D"), ARRAYS[key],
                              {"Treal": opgen.as_dtype(REAL_OF[dtype])}, [np.int32(n)], square_sum)
        assert got.shape == ARRAYS[key].shape
        if key + "/grad" not in tf_ref:  # cropped: TensorFlow's gradient fails (shapes)
            cropped.append(key)
            continue
        want = tf_ref[key + "/grad"]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max(), err_msg=key)
    assert len(INVERSE_CASES) - len(cropped) >= 5, cropped  # the uncropped ones are compared


def test_eager_tape_gradient_of_rfft():
    """The tape records fft_length as a constant, so the RFFT gradient builds eagerly too:
    d/dx sum(|rfft(x)|^2 * w) against the closed form."""
    x = opgen.constant(rng.normal(size=(2, 8)))
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = execute_op("RFFT", [x, np.int32([8])], {"Tcomplex": opgen.complex128})[0]
        power = execute_op("ComplexAbs", [y], {"Tout": opgen.float64})[0]
        loss = execute_op("Sum", [execute_op("Mul", [power, power], {})[0], np.int32([0, 1])],
                          {})[0]
    got = tape.gradient(loss, x).numpy()
    # sum_k |X_k|^2 over the kept half = x^T A x with A symmetric: the gradient is 2 A x
    xs = x.numpy()
    eye = np.eye(8)
    basis = np.fft.rfft(eye)  # row j: the spectrum of e_j
    a = (basis.conj() @ basis.T).real
    np.testing.assert_allclose(got, 2 * xs @ a, rtol=1e-10, atol=1e-10)


def test_errors_as_tensorflow():
    with pytest.raises(errors.InvalidArgumentError, match=r"rank of at least 1 but got: \[\]"):
        _eager("FFT", [np.complex64(1)])
    with pytest.raises(errors.InvalidArgumentError, match=r"rank of at least 2 but got: \[6\]"):
        _eager("RFFT2D", [np.zeros(6, np.float32), np.int32([2, 2])])
    with pytest.raises(errors.InvalidArgumentError, match=r"fft_length must have shape \[1\]"):
        _eager("RFFT", [np.zeros(6, np.float32), np.int32([4, 4])])
    with pytest.raises(errors.InvalidArgumentError, match=r"fft_length\[0\] must >= 0, but got: -1"):
        _eager("RFFT", [np.zeros(6, np.float32), np.int32([-1])])
    with pytest.raises(errors.InvalidArgumentError,
                       match="Input dimension 0 must have length of at least 8 but got: 6"):
        _eager("RFFT", [np.zeros(6, np.float32), np.int32([8])])
    with pytest.raises(errors.InvalidArgumentError,
                       match="Input dimension 2 must have length of at least 5 but got: 4"):
        _eager("IRFFT2D", [np.zeros((2, 3, 4), np.complex64), np.int32([3, 8])])


def test_empty_inputs():
    assert _eager("FFT", [np.zeros((0, 4), np.complex64)]).shape == (0, 4)
    out = _eager("RFFT", [np.zeros((3, 5), np.float32), np.int32([0])])
    assert out.shape == (3, 1) and not out.any()  # fft_length 0: nothing summed
    assert _eager("IRFFT", [np.zeros((3, 5), np.complex64), np.int32([0])]).shape == (3, 0)
