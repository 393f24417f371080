"""ExtractImagePatches against TensorFlow 2.21 (a child process, $OPGEN_TF_PYTHON) bit for
bit (the op only moves values) for every registered dtype, window, stride, rate and
padding; against a numpy reference; its gradient in a graph against numpy; and
TensorFlow's errors."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
import tf_raw_ops_child as tfc
from opgen.runtime import errors, execute_op

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(5)
TF_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
             np.uint8, np.uint16, np.uint32, np.uint64, np.complex64, np.complex128]
# bool: the OpDef allows it, but TensorFlow registers no kernel for it (nor does opgen)
# (ksizes, strides, rates) over [rows, cols]
WINDOWS = [((1, 1), (1, 1), (1, 1)), ((3, 2), (1, 1), (1, 1)), ((2, 3), (2, 3), (1, 1)),
           ((3, 2), (2, 1), (2, 3)), ((4, 5), (3, 2), (1, 1)), ((2, 2), (5, 5), (2, 1))]


def _attrs(window, padding):
    k, s, r = window
    return {"ksizes": [1, *k, 1], "strides": [1, *s, 1], "rates": [1, *r, 1], "padding": padding}


def _values(dtype, shape):
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dtype, np.complexfloating):
        return (rng.normal(size=shape) + 1j * rng.normal(size=shape)).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(1, 100, shape).astype(dtype)  # no zeros: padding shows
    return (rng.normal(size=shape) + 5).astype(dtype)


def _numpy_patches(x, attrs):
    (kr, kc), (sr, sc), (rr, rc) = (attrs[a][1:3] for a in ("ksizes", "strides", "rates"))
    b, h, w, d = x.shape
    eh, ew = kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1)
    if attrs["padding"] == "SAME":
        oh, ow = -(-h // sr), -(-w // sc)
        pt, pl = max(0, (oh - 1) * sr + eh - h) // 2, max(0, (ow - 1) * sc + ew - w) // 2
    else:
        oh, ow, pt, pl = (h - eh + sr) // sr, (w - ew + sc) // sc, 0, 0
    out = np.zeros((b, oh, ow, kr, kc, d), x.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(kr):
                for c in range(kc):
                    y, xx = i * sr - pt + a * rr, j * sc - pl + c * rc
                    if 0 <= y < h and 0 <= xx < w:
                        out[:, i, j, a, c] = x[:, y, xx]
    return out.reshape(b, oh, ow, kr * kc * d)


def _cases():
    cases = []
    for dt in TF_DTYPES:
        x = _values(dt, (2, 7, 8, 3))
        for window in WINDOWS:
            for padding in ("VALID", "SAME"):
                cases.append((x, _attrs(window, padding)))
    x = _values(np.float32, (1, 3, 4, 2))  # windows as large as the image and larger
    for window in (((3, 4), (1, 1), (1, 1)), ((2, 2), (1, 1), (3, 4)), ((4, 1), (1, 1), (1, 1))):
        for padding in ("VALID", "SAME"):
            cases.append((x, _attrs(window, padding)))
    return cases


CASES = _cases()
ERROR_CASES = [
    (_values(np.float32, (3, 4, 2)), _attrs(((2, 2), (1, 1), (1, 1)), "VALID")),
    (_values(np.float32, (1, 3, 4, 2)), _attrs(((5, 2), (1, 1), (1, 1)), "VALID")),
    (_values(np.float32, (1, 3, 4, 2)), {**_attrs(((2, 2), (1, 1), (1, 1)), "VALID"),
                                         "ksizes": [2, 2, 2, 1]}),
    (_values(np.float32, (1, 3, 4, 2)), {**_attrs(((2, 2), (1, 1), (1, 1)), "VALID"),
                                         "strides": [1, 0, 1, 1]}),
    (_values(np.float32, (1, 3, 4, 2)), {**_attrs(((2, 2), (1, 1), (1, 1)), "VALID"),
                                         "rates": [1, 1, 1, 2]}),
]


@pytest.fixture(scope="module")
def tf_results():
    calls = [tfc.call("ExtractImagePatches", {"images": x}, a) for x, a in CASES + ERROR_CASES]
    return tfc.run(calls)


def _run(x, attrs):
    return execute_op("ExtractImagePatches", [x], attrs)[0].numpy()


def test_patches_match_tensorflow_bit_for_bit(tf_results):
    for (x, attrs), want in zip(CASES, tf_results):
        assert not isinstance(want, tuple), (attrs, want)
        got = _run(x, attrs)
        assert got.dtype == want[0].dtype and got.shape == want[0].shape, attrs
        np.testing.assert_array_equal(got, want[0], err_msg=f"{x.dtype} {attrs}")


def test_patches_errors_match_tensorflow(tf_results):
    for (x, attrs), want in zip(ERROR_CASES, tf_results[len(CASES):]):
        assert isinstance(want, tuple), attrs
        with pytest.raises(errors.OpError) as info:
            _run(x, attrs)
        assert type(info.value).__name__ == want[0], (str(info.value), want)
        message = str(info.value).split(": ", 1)[1]
        assert message in want[1], (message, want[1])


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128, "bfloat16"])
def test_patches_match_numpy(dtype):
    if dtype == "bfloat16":  # (no TensorFlow comparison: the child's wire has no bfloat16)
        from ml_dtypes import bfloat16
        x = _values(np.float32, (2, 6, 7, 2)).astype(bfloat16)
    else:
        x = _values(dtype, (2, 6, 7, 2))
    for window in WINDOWS:
        for padding in ("VALID", "SAME"):
            attrs = _attrs(window, padding)
            np.testing.assert_array_equal(_run(x, attrs), _numpy_patches(x, attrs),
                                          err_msg=str(attrs))


def test_patches_gradient_in_a_graph_sums_the_copies():
    """The registered gradient (unknown batch at graph time) against numpy: each pixel's
    gradient is the sum of its copies' gradients."""
    x = rng.normal(size=(2, 5, 6, 3))
    for window in WINDOWS[1:4]:
        for padding in ("VALID", "SAME"):
            attrs = _attrs(window, padding)
            g = opgen.Graph()
            with g.as_default():
                p = opgen.ops.placeholder(opgen.float64, shape=(None, 5, 6, 3))
                y = opgen.ops.extract_image_patches(p, **attrs)
                w = opgen.ops.placeholder(opgen.float64)
                (dx,) = opgen.gradients(y, [p], grad_ys=[w])
            weights = rng.normal(size=_numpy_patches(x, attrs).shape)
            with opgen.Session(graph=g) as session:
                got = session.run(dx, {p: x, w: weights})
            # d/dx sum(weights * patches(x)): the patches of an indicator, summed
            want = np.zeros_like(x)
            for i in np.ndindex(x.shape):
                unit = np.zeros_like(x)
                unit[i] = 1
                want[i] = (weights * _numpy_patches(unit, attrs)).sum()
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=str(attrs))
