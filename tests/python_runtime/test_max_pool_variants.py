"""MaxPoolV2, MaxPoolGradV2, MaxPoolGradGradV2, MaxPoolWithArgmax and MaxPoolGradWithArgmax
on the CPU against TensorFlow 2.21 (its own interpreter, tests/tf_reference.py; skipped
without it): outputs over windows, paddings and dtypes (ties included), the registered
gradients against tf.GradientTape's, and TensorFlow's messages for bad windows and inputs."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from nn_extra_reference import Case, check, run_tensorflow

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(9113)
f32, i32 = np.float32, np.int32

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.uint8, np.int8, np.int16,
          np.uint16] + ([bfloat16] if bfloat16 is not None else [])
GRAD_DTYPES = DTYPES + [np.uint32, np.uint64]

WINDOWS = [  # ksize, strides, padding
    ((2, 2), (2, 2), "VALID"), ((3, 3), (1, 1), "SAME"), ((3, 2), (2, 1), "SAME"),
    ((2, 3), (1, 2), "VALID"), ((1, 1), (1, 1), "VALID"), ((4, 4), (3, 3), "SAME"),
]


def distinct(shape, dtype=f32):
    return rng.permutation(np.arange(np.prod(shape)) - np.prod(shape) // 3).reshape(shape).astype(dtype)


def ties(shape, dtype=f32):
    return rng.integers(0, 3, shape).astype(dtype)


def pooled_shape(shape, k, s, padding):
    dims = []
    for d in (1, 2):
        dims.append((shape[d] - k[d - 1]) // s[d - 1] + 1 if padding == "VALID" else -(-shape[d] // s[d - 1]))
    return (shape[0], *dims, shape[3])


def v2_cases():
    cases = []
    for i, (k, s, padding) in enumerate(WINDOWS):
        ks, ss = np.int32([1, *k, 1]), np.int32([1, *s, 1])
        for j, (shape, make) in enumerate([((2, 5, 6, 3), distinct), ((1, 4, 4, 2), ties)]):
            x = make(shape)
            tag = f"{i}-{j}"
            y = ops.max_pool(x, ksize=[1, *k, 1], strides=[1, *s, 1], padding=padding).numpy()
            dy = rng.uniform(-1, 1, y.shape).astype(f32)
            g = rng.uniform(-1, 1, shape).astype(f32)
            cases += [
                Case(f"v2-{tag}", "MaxPoolV2", {"input": x, "ksize": ks, "strides": ss}, {"padding": padding}),
                Case(f"gradv2-{tag}", "MaxPoolGradV2",
                     {"orig_input": x, "orig_output": y, "grad": dy, "ksize": ks, "strides": ss},
                     {"padding": padding}),
                Case(f"gradgradv2-{tag}", "MaxPoolGradGradV2",
                     {"orig_input": x, "orig_output": y, "grad": g, "ksize": ks, "strides": ss},
                     {"padding": padding}),
                Case(f"tape-v2-{tag}", "MaxPoolV2", {"input": x, "ksize": ks, "strides": ss},
                     {"padding": padding}, wrt=["input"], dy=dy),
                Case(f"tape-gradv2-{tag}", "MaxPoolGradV2",
                     {"orig_input": x, "orig_output": y, "grad": dy, "ksize": ks, "strides": ss},
                     {"padding": padding}, wrt=["orig_input", "orig_output", "grad"], dy=g),
            ]
    two = {"ksize": np.int32([1, 2, 2, 1]), "strides": np.int32([1, 2, 2, 1])}
    for dtype in DTYPES:
        x = distinct((1, 4, 4, 2), dtype)
        cases.append(Case(f"v2-{np.dtype(dtype).name}", "MaxPoolV2", {"input": x, **two}, {"padding": "SAME"}))
    for dtype in GRAD_DTYPES:
        x = distinct((1, 4, 4, 2), dtype)
        y = x.reshape(1, 2, 2, 2, 2, 2).max(axis=(2, 4))
        cases += [
            Case(f"gradv2-{np.dtype(dtype).name}", "MaxPoolGradV2",
                 {"orig_input": x, "orig_output": y, "grad": ties((1, 2, 2, 2), dtype), **two}, {"padding": "VALID"}),
            Case(f"gradgradv2-{np.dtype(dtype).name}", "MaxPoolGradGradV2",
                 {"orig_input": x, "orig_output": y, "grad": ties((1, 4, 4, 2), dtype), **two}, {"padding": "VALID"}),
        ]
    x = distinct((2, 4, 4, 2))
    y = ops.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID").numpy()
    bad = lambda k, s: {"input": x, "ksize": np.int32(k), "strides": np.int32(s)}  # noqa: E731
    cases += [
        Case("err-v2-ksize3", "MaxPoolV2", bad([1, 2, 2], [1, 2, 2, 1]), {"padding": "VALID"}),
        Case("err-v2-strides3", "MaxPoolV2", bad([1, 2, 2, 1], [1, 2, 2]), {"padding": "VALID"}),
        Case("err-v2-batch", "MaxPoolV2", bad([2, 2, 2, 1], [1, 2, 2, 1]), {"padding": "VALID"}),
        Case("err-v2-batch-stride", "MaxPoolV2", bad([1, 2, 2, 1], [2, 2, 2, 1]), {"padding": "VALID"}),
        Case("err-v2-k0", "MaxPoolV2", bad([1, 0, 2, 1], [1, 2, 2, 1]), {"padding": "VALID"}),
        Case("err-v2-s0", "MaxPoolV2", bad([1, 2, 2, 1], [1, 0, 2, 1]), {"padding": "VALID"}),
        Case("err-v2-depth", "MaxPoolV2", bad([1, 2, 2, 2], [1, 2, 2, 2]), {"padding": "VALID"},
             message="MaxPooling supports exactly one of pooling across depth or pooling across width/height"),
        Case("err-v2-rank", "MaxPoolV2", {**bad([1, 2, 2, 1], [1, 2, 2, 1]), "input": x[0]}, {"padding": "VALID"},
             message="4-D"),
        Case("err-gradv2-ksize3", "MaxPoolGradV2",
             {"orig_input": x, "orig_output": y, "grad": y, "ksize": np.int32([1, 2, 2]),
              "strides": np.int32([1, 2, 2, 1])}, {"padding": "VALID"}),
        Case("err-gradv2-batch", "MaxPoolGradV2",
             {"orig_input": x, "orig_output": y, "grad": y, "ksize": np.int32([2, 2, 2, 1]),
              "strides": np.int32([1, 2, 2, 1])}, {"padding": "VALID"}),
        Case("err-gradv2-grad", "MaxPoolGradV2",
             {"orig_input": x, "orig_output": y, "grad": y[:1], **two}, {"padding": "VALID"},
             message="must have the same shape"),
        Case("err-gradgradv2-grad", "MaxPoolGradGradV2",
             {"orig_input": x, "orig_output": y, "grad": y, **two}, {"padding": "VALID"},
             message="must have the same shape"),
    ]
    return cases


def argmax_cases():
    cases = []
    for i, (k, s, padding) in enumerate(WINDOWS):
        attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
        for j, (shape, make) in enumerate([((2, 5, 6, 3), distinct), ((3, 4, 4, 2), ties)]):
            x = make(shape)
            out = pooled_shape(shape, k, s, padding)
            dy = rng.uniform(-1, 1, out).astype(f32)
            for include in (False, True):
                for targ in (np.int32, np.int64):
                    tag = f"{i}-{j}-{int(include)}-{np.dtype(targ).name}"
                    a = {**attrs, "include_batch_in_index": include}
                    cases.append(Case(f"wa-{tag}", "MaxPoolWithArgmax", {"input": x},
                                      {**a, "Targmax": targ}))
                y, am = ops.max_pool_with_argmax(x, include_batch_in_index=include, **attrs)
                tag = f"{i}-{j}-{int(include)}"
                cases += [
                    Case(f"gwa-{tag}", "MaxPoolGradWithArgmax", {"input": x, "grad": dy, "argmax": am.numpy()},
                         {**attrs, "include_batch_in_index": include}),
                    Case(f"tape-wa-{tag}", "MaxPoolWithArgmax", {"input": x},
                         {**attrs, "include_batch_in_index": include}, wrt=["input"], dy=dy),
                ]
    one = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    for dtype in GRAD_DTYPES:
        x = ties((2, 4, 4, 2), dtype)
        name = np.dtype(dtype).name
        cases.append(Case(f"wa-{name}", "MaxPoolWithArgmax", {"input": x}, one))
        am = ops.max_pool_with_argmax(x.astype(f32), **one)[1].numpy()
        cases.append(Case(f"gwa-{name}", "MaxPoolGradWithArgmax",
                          {"input": x, "grad": ties((2, 2, 2, 2), dtype), "argmax": am}, one))
    x = distinct((2, 4, 4, 2))
    y, am = (t.numpy() for t in ops.max_pool_with_argmax(x, **one))
    cases += [
        Case("err-wa-batch", "MaxPoolWithArgmax", {"input": x}, {**one, "ksize": [2, 2, 2, 1]}),
        Case("err-wa-k0", "MaxPoolWithArgmax", {"input": x}, {**one, "ksize": [1, 0, 2, 1]}),
        Case("err-wa-rank", "MaxPoolWithArgmax", {"input": x[0]}, one, message="tensor_in must be 4-dimensional"),
        Case("err-wa-depth", "MaxPoolWithArgmax", {"input": x}, {**one, "ksize": [1, 2, 2, 2]},
             message="MaxPooling supports exactly one of pooling across depth or pooling across width/height"),
        Case("err-gwa-grad", "MaxPoolGradWithArgmax", {"input": x, "grad": y[:1], "argmax": am}, one),
        Case("err-gwa-argmax", "MaxPoolGradWithArgmax", {"input": x, "grad": y, "argmax": am[:1]}, one),
        Case("err-gwa-rank", "MaxPoolGradWithArgmax", {"input": x[0], "grad": y, "argmax": am}, one),
        Case("err-gwa-batch", "MaxPoolGradWithArgmax", {"input": x, "grad": y, "argmax": am},
             {**one, "ksize": [2, 2, 2, 1]}),
    ]
    return cases


CASES = v2_cases() + argmax_cases()


@pytest.fixture(scope="module")
def tensorflow():
    return run_tensorflow(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_matches_tensorflow(case, tensorflow):
    half = any(v.dtype in (np.float16, bfloat16) for v in case.inputs.values() if v.dtype.kind == "f"
               or v.dtype == bfloat16)
    check(case, tensorflow, rtol=1e-2 if half else 1e-6, atol=1e-2 if half else 1e-6)


@pytest.mark.parametrize("include", [False, True])
def test_argmax_indices_name_the_maxima(include):
    """Independent of TensorFlow: argmax indexes the input (flattened, per image without
    include_batch_in_index) at the pooled value."""
    x = distinct((3, 5, 7, 2))
    y, am = (t.numpy() for t in ops.max_pool_with_argmax(
        x, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1], padding="SAME", include_batch_in_index=include))
    flat = x.reshape(-1) if include else x.reshape(3, -1)
    got = flat[am] if include else np.stack([flat[b][am[b]] for b in range(3)])
    np.testing.assert_array_equal(got, y)
    np.testing.assert_array_equal(y, ops.max_pool(x, ksize=[1, 3, 2, 1], strides=[1, 2, 2, 1],
                                                  padding="SAME").numpy())


@pytest.mark.parametrize("include, argmax", [(False, 32), (False, -1), (True, 64)])
def test_grad_with_argmax_refuses_an_index_outside_the_input(include, argmax):
    """TensorFlow's kernel aborts the process on these; opgen refuses them."""
    x = distinct((2, 4, 4, 2))
    am = np.zeros((2, 2, 2, 2), np.int64)
    am[1, 1, 0, 1] = argmax
    with pytest.raises(errors.InvalidArgumentError, match=f"Invalid argmax index {argmax}"):
        ops.max_pool_grad_with_argmax(x, np.ones((2, 2, 2, 2), f32), am, ksize=[1, 2, 2, 1],
                                      strides=[1, 2, 2, 1], padding="VALID", include_batch_in_index=include)


def test_grad_with_argmax_takes_int64_argmax_only():
    """As TensorFlow's kernels: an int32 argmax (MaxPoolWithArgmax's Targmax=int32) finds no
    gradient kernel."""
    x = distinct((1, 4, 4, 1))
    with pytest.raises(errors.NotFoundError):
        ops.max_pool_grad_with_argmax(x, np.ones((1, 2, 2, 1), f32), np.zeros((1, 2, 2, 1), np.int32),
                                      ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")


def test_graph_gradients_of_max_pool_v2():
    """TF_AddGradients through MaxPoolV2 and MaxPoolWithArgmax gives MaxPool's gradient."""
    x = distinct((2, 5, 4, 3))
    attrs = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 1, 1], "padding": "SAME"}
    g = opgen.Graph()
    with g.as_default():
        xp = ops.placeholder(opgen.float32, shape=[2, 5, 4, 3])
        y1 = ops.max_pool_v2(xp, np.int32(attrs["ksize"]), np.int32(attrs["strides"]), padding="SAME")
        y2 = ops.max_pool_with_argmax(xp, **attrs)[0]
        dy = rng.uniform(-1, 1, (2, 3, 4, 3)).astype(f32)
        grads = opgen.gradients(ops.add(ops.mul(y1, dy), ops.mul(y2, dy)), [xp])
    got = opgen.Session(g).run(grads, {xp: x})[0]
    y = ops.max_pool(x, **attrs).numpy()
    want = ops.max_pool_grad(x, y, dy, **attrs).numpy() * 2
    np.testing.assert_allclose(got, want, rtol=1e-6)
