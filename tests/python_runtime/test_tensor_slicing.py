"""Issue 20 part 1: ``tensor[key]`` (StridedSlice) against numpy's basic indexing over
many index forms (ints, slices with any steps, ``...``, ``None``), eagerly and in a
graph run by a Session; tensor indices and TensorFlow's own results are in
test_tensor_operators.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

import opgen
from opgen.runtime.errors import OpError

SHAPE = (2, 3, 4)
ARRAY = np.arange(24, dtype=np.float32).reshape(SHAPE) - 5.5


def _random_slice(rng: random.Random) -> slice:
    def bound():
        return rng.choice([None, None, rng.randint(-6, 6)])
    step = rng.choice([None, 1, 2, 3, -1, -2, -3])
    return slice(bound(), bound(), step)


def _random_key(rng: random.Random):
    """A basic numpy index of SHAPE: up to 3 dims named (ints in range for every dim,
    slices), None anywhere, at most one `...`."""
    items: list = []
    named = rng.randint(0, 3)
    for _ in range(named):
        items.append(rng.randint(-2, 1) if rng.random() < 0.35 else _random_slice(rng))
    for _ in range(rng.randint(0, 2)):
        items.insert(rng.randint(0, len(items)), None)
    if rng.random() < 0.4:
        items.insert(rng.randint(0, len(items)), Ellipsis)
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


FIXED_KEYS = [
    0, 1, -1, -2, (0, 1), (1, -1, 2), (-2, 0, -4), slice(None), slice(1, None),
    slice(None, 2), slice(None, None, -1), slice(-1, None, -1), slice(5, None),
    slice(-10, 10), slice(None, -1), slice(3, 0, -1), (slice(None), 1), (Ellipsis, 0),
    (0, Ellipsis), (Ellipsis,), Ellipsis, None, (None, 0), (0, None, 1), (None, None),
    (Ellipsis, None), (None, Ellipsis, None), (1, Ellipsis, slice(None, None, -1)),
    (Ellipsis, slice(1, None), None), (slice(None), slice(None), slice(None), None),
    (slice(0, 0),), (slice(2, 1),), (slice(1, 3, 2), slice(None, None, -2), 3),
    (np.int64(1), np.int32(-1)), (),
]
KEYS = FIXED_KEYS + [_random_key(random.Random(seed)) for seed in range(150)]


@pytest.fixture(scope="module")
def tensor(runtime_lib):
    return opgen.constant(ARRAY)


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_eager_slicing_matches_numpy(tensor, key):
    want = ARRAY[key]
    got = tensor[key].numpy()
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_graph_slicing_matches_numpy(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=list(SHAPE), name="x")
        outputs = [x[key] for key in KEYS]
    assert all(isinstance(o, opgen.Output) for o in outputs)
    with opgen.Session(graph=g) as session:
        results = session.run(outputs, {x: ARRAY})
    for key, got in zip(KEYS, results):
        want = ARRAY[key]
        assert got.shape == want.shape, key
        np.testing.assert_array_equal(got, want, err_msg=repr(key))


def test_static_shape_of_a_slice_is_known(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=list(SHAPE), name="x")
        assert x[1, ..., None, ::2].shape == (3, 1, 2)


@pytest.mark.parametrize("key", [2, -3, (0, 3), (0, 0, 4), (Ellipsis, -5)])
def test_out_of_range_index_is_an_op_error(tensor, key):
    with pytest.raises(IndexError):
        ARRAY[key]
    with pytest.raises(OpError, match="out of bounds|out of range"):
        tensor[key]


@pytest.mark.parametrize("key, match", [
    (1.0, "valid indices"), ("a", "valid indices"), ((0, [1]), "valid indices"),
    (True, "mask cannot be scalar"), (np.array(True), "mask cannot be scalar"),
    (np.array([True, False, True]), r"Shapes \(2,\) and \(3,\) are incompatible"),
    ((np.array([True, False]), 0), "bool mask must be the whole index"),
    ((Ellipsis, Ellipsis), "single ellipsis"), (slice(0, 1.5), "valid indices"),
])
def test_invalid_indices_raise(tensor, key, match):
    with pytest.raises((TypeError, IndexError, ValueError), match=match):
        tensor[key]


def test_tensor_indices(tensor):
    one = opgen.constant(1)
    np.testing.assert_array_equal(tensor[one].numpy(), ARRAY[1])
    np.testing.assert_array_equal(tensor[:, one:, ::opgen.constant(-1)].numpy(), ARRAY[:, 1:, ::-1])
    np.testing.assert_array_equal(tensor[opgen.constant(-1, "int64"), 0].numpy(), ARRAY[-1, 0])
    with pytest.raises(TypeError, match="valid indices"):
        tensor[opgen.constant([0, 1])]
    np.testing.assert_array_equal(tensor[tensor > 0].numpy(), ARRAY[ARRAY > 0])


# ---- boolean masks (TensorFlow's tf.boolean_mask as the whole index) ----------------------

MASK_SHAPES = [(2,), (2, 3), (2, 3, 4)]


@pytest.mark.parametrize("mask_shape", MASK_SHAPES, ids=str)
@pytest.mark.parametrize("seed", range(3))
def test_eager_boolean_mask_matches_numpy(tensor, mask_shape, seed):
    mask = np.random.default_rng(seed).random(mask_shape) < 0.5
    want = ARRAY[mask]
    for key in (mask, opgen.constant(mask)):
        got = tensor[key]
        assert got.dtype == opgen.float32 and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)


def test_boolean_mask_all_false_and_all_true(tensor):
    assert tensor[np.zeros((2, 3), bool)].shape == (0, 4)
    np.testing.assert_array_equal(tensor[np.ones(2, bool)].numpy(), ARRAY)


def test_graph_boolean_mask_matches_numpy(runtime_lib):
    """Placeholders of unknown dims: the shapes are checked by the ops when they run."""
    rng = np.random.default_rng(5)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[None, 3, 4])
        mask = opgen.ops.placeholder(opgen.bool, shape=[None, None])
        picked = x[mask]
        positive = x[x > 0]
    assert isinstance(picked, opgen.Output) and picked.op.graph is g
    mask_value = rng.random((2, 3)) < 0.5
    with opgen.Session(graph=g) as session:
        got, got_positive = session.run([picked, positive], {x: ARRAY, mask: mask_value})
        np.testing.assert_array_equal(got, ARRAY[mask_value])
        np.testing.assert_array_equal(got_positive, ARRAY[ARRAY > 0])
        with pytest.raises(OpError):
            session.run(picked, {x: ARRAY, mask: np.ones((3, 3), bool)})


def test_graph_boolean_mask_of_unknown_rank_is_refused(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[None, 3])
        mask = opgen.ops.placeholder(opgen.bool)
        with pytest.raises(ValueError, match="Number of mask dimensions"):
            x[mask]


def test_other_dtypes_slice(runtime_lib):
    for dtype in ("int8", "uint16", "int64", "float64", "bool", "complex64"):
        array = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
        np.testing.assert_array_equal(opgen.constant(array)[1:, ::-2].numpy(), array[1:, ::-2])
