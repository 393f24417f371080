"""tf.random.Generator's ops (StatefulUniform, StatefulUniformInt, StatefulUniformFullInt,
StatefulStandardNormalV2, StatefulTruncatedNormal, RngSkip, RngReadAndSkip) against
TensorFlow 2.21 step by step: the same int64 state variable, the same calls, the same
numbers bit for bit and the same state after every call; and a tf.random.Generator made
from a seed, whose methods TensorFlow runs as RngReadAndSkip plus a stateless V2 op,
replayed here with those ops. TensorFlow runs once, in the child interpreter
$OPGEN_TF_PYTHON names (skipped without it)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import dtypes, errors
from tf_reference import run_tf, tf_env

_TF_SCRIPT = r"""
import base64, json, sys
import numpy as np
import tensorflow as tf
spec = json.load(sys.stdin)
def enc(t):
    a = np.asarray(t)
    return [a.dtype.name, list(a.shape), base64.b64encode(a.tobytes()).decode()]
out = {"raw": [], "gen": []}
for prog in spec["raw"]:
    v = tf.Variable(np.array(prog["state"], np.int64))
    steps = []
    for s in prog["steps"]:
        alg = tf.constant(s["alg"], tf.int64)
        shape = tf.constant(s.get("shape", []), tf.int64)
        dt = tf.as_dtype(s.get("dtype", "float32"))
        if s["op"] == "RngSkip":
            r = tf.raw_ops.RngSkip(resource=v.handle, algorithm=alg, delta=tf.constant(s["delta"], tf.int64))
        elif s["op"] == "RngReadAndSkip":
            r = tf.raw_ops.RngReadAndSkip(resource=v.handle, alg=tf.constant(s["alg"], tf.int32),
                                          delta=tf.constant(s["delta"], tf.uint64))
        elif s["op"] == "StatefulUniformInt":
            r = tf.raw_ops.StatefulUniformInt(resource=v.handle, algorithm=alg, shape=shape,
                                              minval=tf.constant(s["lo"], dt), maxval=tf.constant(s["hi"], dt))
        else:
            r = getattr(tf.raw_ops, s["op"])(resource=v.handle, algorithm=alg, shape=shape, dtype=dt)
        steps.append([None if r is None or isinstance(r, tf.Operation) else enc(r), enc(v.numpy())])
    out["raw"].append(steps)
for prog in spec["gen"]:
    g = tf.random.Generator.from_seed(prog["seed"])
    steps = [[None, enc(g.state.numpy())]]
    for s in prog["steps"]:
        dt = tf.as_dtype(s.get("dtype", "float32"))
        if s["op"] == "normal":
            r = g.normal(s["shape"], dtype=dt)
        elif s["op"] == "uniform":
            r = g.uniform(s["shape"], dtype=dt)
        elif s["op"] == "uniform_int":
            r = g.uniform(s["shape"], minval=s["lo"], maxval=s["hi"], dtype=dt)
        elif s["op"] == "truncated_normal":
            r = g.truncated_normal(s["shape"], dtype=dt)
        elif s["op"] == "uniform_full_int":
            r = g.uniform_full_int(s["shape"], dtype=dt)
        else:
            r = g.skip(s["delta"])
        steps.append([enc(r), enc(g.state.numpy())])
    out["gen"].append(steps)
print(json.dumps(out))
"""

REAL = ["float32", "float64", "float16", "bfloat16"]

_RAW = [
    {"state": [5, 7, 11], "steps": [
        {"op": "StatefulUniform", "alg": 1, "shape": [3], "dtype": "float32"},
        {"op": "StatefulStandardNormalV2", "alg": 1, "shape": [2, 3], "dtype": "float64"},
        {"op": "StatefulTruncatedNormal", "alg": 3, "shape": [7], "dtype": "float32"},
        {"op": "StatefulTruncatedNormal", "alg": 1, "shape": [5], "dtype": "float64"},
        {"op": "StatefulTruncatedNormal", "alg": 1, "shape": [0], "dtype": "float32"},
        {"op": "StatefulUniform", "alg": 1, "shape": [9], "dtype": "float16"},
        {"op": "StatefulUniform", "alg": 1, "shape": [4], "dtype": "bfloat16"},
        {"op": "StatefulStandardNormalV2", "alg": 1, "shape": [5], "dtype": "bfloat16"},
        {"op": "StatefulUniformInt", "alg": 1, "shape": [6], "dtype": "int32", "lo": -5, "hi": 17},
        {"op": "StatefulUniformInt", "alg": 1, "shape": [3], "dtype": "int64", "lo": -(2**40), "hi": 2**41 + 7},
        {"op": "RngSkip", "alg": 1, "delta": 3},
        {"op": "StatefulUniformFullInt", "alg": 1, "shape": [5], "dtype": "uint64"},
        {"op": "StatefulUniformFullInt", "alg": 1, "shape": [5], "dtype": "int32"},
        {"op": "StatefulUniformFullInt", "alg": 1, "shape": [3], "dtype": "uint32"},
        {"op": "StatefulUniformFullInt", "alg": 1, "shape": [3], "dtype": "int64"},
        {"op": "RngReadAndSkip", "alg": 1, "delta": 2**60},  # 256 * delta wraps to 0
        {"op": "RngReadAndSkip", "alg": 3, "delta": 17},
        {"op": "RngSkip", "alg": 1, "delta": -1},  # a uint64 skip of 2^64 - 256
    ]},
    # the low counter word wraps into the high one
    {"state": [-1, 3, -(2**62)], "steps": [
        {"op": "StatefulUniform", "alg": 1, "shape": [2], "dtype": "float64"},
        {"op": "RngReadAndSkip", "alg": 1, "delta": 1},
        {"op": "StatefulStandardNormalV2", "alg": 1, "shape": [3], "dtype": "float32"},
    ]},
    {"state": [2**63 - 1, -1, 42], "steps": [
        {"op": "RngSkip", "alg": 1, "delta": 2**56},
        {"op": "StatefulUniform", "alg": 1, "shape": [3], "dtype": "float32"},
    ]},
]

_GEN = [
    {"seed": seed, "steps": [
        {"op": "normal", "shape": [3, 2], "dtype": "float32"},
        {"op": "uniform", "shape": [5], "dtype": "float64"},
        {"op": "truncated_normal", "shape": [7], "dtype": "float32"},
        {"op": "uniform_int", "shape": [4], "dtype": "int32", "lo": 3, "hi": 1000},
        {"op": "uniform_int", "shape": [3], "dtype": "int64", "lo": -(2**50), "hi": 2**50},
        {"op": "skip", "delta": 11},
        {"op": "uniform_full_int", "shape": [3], "dtype": "uint64"},
        {"op": "normal", "shape": [2], "dtype": "float64"},
        {"op": "uniform", "shape": [3], "dtype": "float16"},
    ]} for seed in (1234, 0, 2**40 + 9)
]


def _dec(item):
    name, shape, data = item
    dtype = np.dtype(name) if name != "bfloat16" else dtypes.bfloat16.as_numpy_dtype
    return np.frombuffer(base64.b64decode(data), dtype=dtype).reshape(shape)


@pytest.fixture(scope="module")
def tf_steps():
    r = run_tf(["-c", _TF_SCRIPT], input=json.dumps({"raw": _RAW, "gen": _GEN}),
               env=tf_env(CUDA_VISIBLE_DEVICES=""))
    return json.loads(r.stdout)


def _dtype(name):
    return getattr(opgen, name)


def _raw_step(v, s):
    alg, shape = np.int64(s["alg"]), np.int64(s.get("shape", []))
    if s["op"] == "RngSkip":
        return ops.rng_skip(v.handle, alg, np.int64(s["delta"]))
    if s["op"] == "RngReadAndSkip":
        return ops.rng_read_and_skip(v.handle, np.int32(s["alg"]), np.uint64(s["delta"]))
    if s["op"] == "StatefulUniformInt":
        dt = np.dtype(s["dtype"])
        return ops.stateful_uniform_int(v.handle, alg, shape, dt.type(s["lo"]), dt.type(s["hi"]))
    fn = {"StatefulUniform": ops.stateful_uniform, "StatefulStandardNormalV2": ops.stateful_standard_normal_v2,
          "StatefulTruncatedNormal": ops.stateful_truncated_normal,
          "StatefulUniformFullInt": ops.stateful_uniform_full_int}[s["op"]]
    return fn(v.handle, alg, shape, dtype=_dtype(s["dtype"]))


def _same_bits(ours, want):
    ours = np.asarray(ours)
    assert ours.shape == want.shape
    assert ours.tobytes() == want.tobytes(), (ours, want)


@pytest.mark.parametrize("index", range(len(_RAW)))
def test_raw_ops_match_tensorflow_step_by_step(tf_steps, index):
    prog, want = _RAW[index], tf_steps["raw"][index]
    v = opgen.Variable(np.array(prog["state"], np.int64))
    for s, (out, state) in zip(prog["steps"], want):
        r = _raw_step(v, s)
        if out is not None:
            _same_bits(r.numpy(), _dec(out))
        np.testing.assert_array_equal(v.numpy(), _dec(state), err_msg=str(s))


def _generator_step(v, s):
    """A tf.random.Generator method as TensorFlow runs it: RngReadAndSkip by the number of
    elements, then the stateless V2 op from the old state's counter and key."""
    if s["op"] == "skip":
        return ops.rng_read_and_skip(v.handle, np.int32(1), np.uint64(s["delta"]))
    shape = np.int32(s["shape"])
    old = ops.rng_read_and_skip(v.handle, np.int32(1), np.uint64(np.prod(s["shape"]))).numpy()
    counter, key, alg = old[:2].view(np.uint64), old[2:3].view(np.uint64), np.int32(1)
    dt = _dtype(s["dtype"])
    if s["op"] == "normal":
        return ops.stateless_random_normal_v2(shape, key, counter, alg, dtype=dt)
    if s["op"] == "uniform":
        return ops.stateless_random_uniform_v2(shape, key, counter, alg, dtype=dt)
    if s["op"] == "truncated_normal":
        return ops.stateless_truncated_normal_v2(shape, key, counter, alg, dtype=dt)
    if s["op"] == "uniform_full_int":
        return ops.stateless_random_uniform_full_int_v2(shape, key, counter, alg, dtype=dt)
    npdt = np.dtype(s["dtype"])
    return ops.stateless_random_uniform_int_v2(shape, key, counter, alg, npdt.type(s["lo"]), npdt.type(s["hi"]))


@pytest.mark.parametrize("index", range(len(_GEN)))
def test_generator_from_seed_matches_tensorflow_step_by_step(tf_steps, index):
    prog, want = _GEN[index], tf_steps["gen"][index]
    v = opgen.Variable(_dec(want[0][1]).copy())  # the state from_seed made
    for s, (out, state) in zip(prog["steps"], want[1:]):
        r = _generator_step(v, s)
        if s["op"] != "skip":
            _same_bits(r.numpy(), _dec(out))
        np.testing.assert_array_equal(v.numpy(), _dec(state), err_msg=str(s))


def test_errors_are_tensorflows():
    v = opgen.Variable(np.int64([5, 7, 11]))
    short = opgen.Variable(np.int64([1, 2]))
    matrix = opgen.Variable(np.int64([[1, 2, 3]]))
    floats = opgen.Variable([1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match="the size of state must be at least 3; got 2"):
        ops.rng_skip(short.handle, np.int64(1), np.int64(3))
    with pytest.raises(errors.InvalidArgumentError, match="the size of state must be at least 3; got 2"):
        ops.stateful_uniform(short.handle, np.int64(1), np.int64([3]))
    with pytest.raises(errors.InvalidArgumentError, match="RNG state must have one and only one dimension, not 2"):
        ops.stateful_uniform(matrix.handle, np.int64(1), np.int64([3]))
    with pytest.raises(errors.InvalidArgumentError, match="dtype of RNG state variable must be int64, not float"):
        ops.stateful_uniform(floats.handle, np.int64(1), np.int64([3]))
    for shape in ([3], [0]):  # checked even for an empty output, as TensorFlow does
        with pytest.raises(errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
            ops.stateful_uniform_int(v.handle, np.int64(1), np.int64(shape), np.int64(5), np.int64(5))
    with pytest.raises(errors.InvalidArgumentError, match=r"input 1 \(0-based\) must have shape \[\], not \[1\]"):
        ops.stateful_uniform(v.handle, np.int64([1]), np.int64([3]))
    with pytest.raises(errors.UnimplementedError, match="Non-XLA devices don't support the ThreeFry algorithm"):
        ops.stateful_uniform(v.handle, np.int64(2), np.int64([3]))
    with pytest.raises(errors.InvalidArgumentError, match="Unsupported algorithm id: 7"):
        ops.rng_read_and_skip(v.handle, np.int32(7), np.uint64(1))
    np.testing.assert_array_equal(v.numpy(), [5, 7, 11])  # no failed call moved the state
    np.testing.assert_array_equal(short.numpy(), [1, 2])


def test_graph_shapes_and_runs_continue_the_state():
    """In a graph: the output shaped by `shape`'s value, RngReadAndSkip's [3], TensorFlow's
    rank checks at build time; each session run moves the shared state on, by 256 blocks
    per element, and draws what the same eager calls draw."""
    g = opgen.Graph()
    with g.as_default():
        h = ops.var_handle_op(dtype=opgen.int64, shape=[3], shared_name="generator_state")
        init = ops.assign_variable_op(h, np.int64([5, 7, 11]))
        y = ops.stateful_uniform_int(h, np.int64(1), np.int64([2, 3]), np.int32(0), np.int32(9))
        r = ops.rng_read_and_skip(h, np.int32(1), np.uint64(4))
        assert y.shape == (2, 3) and r.shape == (3,)
        with pytest.raises(errors.InvalidArgumentError, match="algorithm: shape must be rank 0"):
            ops.stateful_uniform(h, np.int64([1]), np.int64([2, 3]))
    with opgen.Session(g) as sess:
        sess.run(init)
        first, second = sess.run(y), sess.run(y)
        np.testing.assert_array_equal(sess.run(r), [5 + 2 * 6 * 256, 7, 11])
    v = opgen.Variable(np.int64([5, 7, 11]))
    for want in (first, second):
        got = ops.stateful_uniform_int(v.handle, np.int64(1), np.int64([2, 3]), np.int32(0), np.int32(9))
        np.testing.assert_array_equal(got.numpy(), want)
    assert first.tolist() != second.tolist()
