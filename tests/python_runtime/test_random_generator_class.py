"""opgen.random.Generator against tf.random.Generator (TensorFlow 2.21, in the child
interpreter $OPGEN_TF_PYTHON names; skipped without it): the same constructors and the
same calls give the same numbers bit for bit and the same state after each call, eagerly,
in a traced function and in a graph run by a Session."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen.runtime import errors
from tf_reference import run_tf_script

# One program, run by TensorFlow and by opgen: each step's result and the state after it.
_TF_SCRIPT = r"""
import sys
import numpy as np
import tensorflow as tf
out = {}
def record(prefix, g, steps):
    for i, (name, fn) in enumerate(steps):
        r = fn(g)
        if isinstance(r, list):
            for j, sub in enumerate(r):
                out[f"{prefix}{i}_{name}_gen{j}"] = sub.state.numpy()
                out[f"{prefix}{i}_{name}_gen{j}_normal"] = sub.normal([3]).numpy()
        elif r is not None:
            out[f"{prefix}{i}_{name}"] = np.asarray(r)
        out[f"{prefix}{i}_{name}_state"] = g.state.numpy()
STEPS
for seed in SEEDS:
    g = tf.random.Generator.from_seed(seed)
    out[f"s{seed}_init"] = g.state.numpy()
    record(f"s{seed}_", g, steps)
g = tf.random.Generator.from_key_counter(key=77, counter=[5, 2**62], alg="philox")
out["kc_init"] = g.state.numpy()
record("kc_", g, steps[:3])
g = tf.random.Generator.from_seed([3, 4])
out["vec_init"] = g.state.numpy()
g.reset_from_seed(2**70 + 5)
out["reset_init"] = g.state.numpy()
record("reset_", g, steps[:2])
copy = tf.random.Generator(copy_from=g)
out["copy_normal"] = copy.normal([4]).numpy()
out["copy_state"] = copy.state.numpy()
out["copy_source_state"] = g.state.numpy()
g = tf.random.Generator.from_seed(99)
f = tf.function(lambda: g.uniform([2, 2], minval=-3.0, maxval=5.0))
out["fn_0"] = f().numpy(); out["fn_1"] = f().numpy(); out["fn_state"] = g.state.numpy()
np.savez(sys.argv[-1], **out)
"""

# (name, TensorFlow call, opgen call): the same method with the same arguments.
_STEPS = [
    ("normal", "lambda g: g.normal([3, 2], mean=1.5, stddev=0.25)",
     lambda g: g.normal([3, 2], mean=1.5, stddev=0.25)),
    ("uniform", "lambda g: g.uniform([5], minval=-2.0, maxval=3.0, dtype=tf.float64)",
     lambda g: g.uniform([5], minval=-2.0, maxval=3.0, dtype=opgen.float64)),
    ("trunc", "lambda g: g.truncated_normal([7], stddev=2.0)",
     lambda g: g.truncated_normal([7], stddev=2.0)),
    ("int", "lambda g: g.uniform([4], minval=3, maxval=1000, dtype=tf.int32)",
     lambda g: g.uniform([4], minval=3, maxval=1000, dtype=opgen.int32)),
    ("full", "lambda g: g.uniform([3], minval=None, maxval=None, dtype=tf.int64)",
     lambda g: g.uniform([3], minval=None, maxval=None, dtype=opgen.int64)),
    ("fullu", "lambda g: g.uniform_full_int([2])", lambda g: g.uniform_full_int([2])),
    ("half", "lambda g: g.uniform([3], dtype=tf.float16)",
     lambda g: g.uniform([3], dtype=opgen.float16)),
    ("scalar", "lambda g: g.normal([])", lambda g: g.normal([])),
    ("skip", "lambda g: g.skip(11)", lambda g: g.skip(11)),
    ("key", "lambda g: g.key", lambda g: g.key),
    ("seeds", "lambda g: g.make_seeds(3)", lambda g: g.make_seeds(3)),
    ("split", "lambda g: g.split(2)", lambda g: g.split(2)),
    ("after", "lambda g: g.normal([2])", lambda g: g.normal([2])),
]
_SEEDS = [1234, 0, 2**40 + 9, -5, 2**64 + 3]


@pytest.fixture(scope="module")
def tf_out():
    steps = "steps = [" + ", ".join(f"({n!r}, {src})" for n, src, _ in _STEPS) + "]"
    script = _TF_SCRIPT.replace("STEPS", steps).replace("SEEDS", repr(_SEEDS))
    return run_tf_script(script)


def _same(ours, want, what):
    ours = np.asarray(ours)
    assert ours.shape == want.shape, what
    assert ours.dtype == want.dtype or want.dtype == np.float16, what
    assert ours.tobytes() == want.astype(ours.dtype).tobytes(), (what, ours, want)


def _replay(prefix, g, steps, want):
    for i, (name, _, fn) in enumerate(steps):
        r = fn(g)
        key = f"{prefix}{i}_{name}"
        if isinstance(r, list):
            for j, sub in enumerate(r):
                _same(sub.state.numpy(), want[f"{key}_gen{j}"], f"{key} gen {j}")
                _same(sub.normal([3]), want[f"{key}_gen{j}_normal"], f"{key} gen {j} normal")
        elif key in want:
            _same(r, want[key], key)
        _same(g.state.numpy(), want[f"{key}_state"], f"{key} state")


@pytest.mark.parametrize("seed", _SEEDS)
def test_from_seed_draws_tensorflows_numbers(tf_out, seed):
    g = opgen.random.Generator.from_seed(seed)
    _same(g.state.numpy(), tf_out[f"s{seed}_init"], "from_seed state")
    _same(opgen.random.create_rng_state(seed, "philox"), tf_out[f"s{seed}_init"], "create")
    _replay(f"s{seed}_", g, _STEPS, tf_out)


def test_other_constructors_and_resets(tf_out):
    g = opgen.random.Generator.from_key_counter(key=77, counter=[5, 2**62], alg="philox")
    _same(g.state.numpy(), tf_out["kc_init"], "from_key_counter")
    _replay("kc_", g, _STEPS[:3], tf_out)
    g = opgen.random.Generator.from_seed([3, 4])  # short vectors pad on the left
    _same(g.state.numpy(), tf_out["vec_init"], "vector seed")
    g.reset_from_seed(2**70 + 5)
    _same(g.state.numpy(), tf_out["reset_init"], "reset_from_seed")
    _replay("reset_", g, _STEPS[:2], tf_out)
    copy = opgen.random.Generator(copy_from=g)
    _same(copy.normal([4]), tf_out["copy_normal"], "copy draws")
    _same(copy.state.numpy(), tf_out["copy_state"], "copy state")
    _same(g.state.numpy(), tf_out["copy_source_state"], "the source keeps its state")


def test_traced_function_moves_the_state_each_call(tf_out):
    g = opgen.random.Generator.from_seed(99)
    f = opgen.function(lambda: g.uniform([2, 2], minval=-3.0, maxval=5.0))
    _same(f(), tf_out["fn_0"], "first call")
    _same(f(), tf_out["fn_1"], "second call")
    _same(g.state.numpy(), tf_out["fn_state"], "state")


def test_graph_session_runs_continue_the_stream():
    """In a graph the generator's state is a graph variable: each run draws what the same
    eager calls draw, one after another."""
    eager = opgen.random.Generator.from_seed(7)
    want = [eager.normal([2, 3]).numpy() for _ in range(2)]
    g = opgen.Graph()
    with g.as_default():
        gen = opgen.random.Generator.from_seed(7)
        y = gen.normal([2, 3])
        assert y.shape == (2, 3)
        init = opgen.global_variables_initializer()
    with opgen.Session(g) as sess:
        sess.run(init)
        for w in want:
            np.testing.assert_array_equal(sess.run(y), w)


def test_state_variable_is_shared_and_saved(tmp_path):
    """A generator built on a variable uses it; saving the variable saves the stream."""
    state = opgen.Variable(np.int64([1, 2, 3]))
    g = opgen.random.Generator.from_state(state, "philox")
    g.normal([5])
    assert g.state is state and state.numpy().tolist() != [1, 2, 3]
    saver = opgen.train.Saver({"rng": state})
    path = saver.save(None, str(tmp_path / "ckpt"))
    want = g.normal([4]).numpy()
    saver.restore(None, path)
    np.testing.assert_array_equal(g.normal([4]).numpy(), want)


def test_errors():
    with pytest.raises(ValueError, match="Unknown algorithm name: mt19937"):
        opgen.random.Generator.from_seed(1, alg="mt19937")
    with pytest.raises(ValueError, match="Unsupported algorithm id: 9"):
        opgen.random.Generator.from_seed(1, alg=9)
    with pytest.raises(ValueError, match=r"has shape \[3\], not \[2\]"):
        opgen.random.Generator.from_state([1, 2], "philox")
    with pytest.raises(ValueError, match="both `None` or both non-`None`"):
        opgen.random.Generator.from_seed(1).uniform([2], maxval=5, minval=None, dtype=opgen.int32)
    with pytest.raises(TypeError, match=r"opgen\.random\.Generator"):
        opgen.random.set_global_generator(object())
    # ThreeFry has no CPU kernel in TensorFlow either.
    with pytest.raises(errors.UnimplementedError, match="ThreeFry"):
        opgen.random.Generator.from_seed(1, alg="threefry").normal([2])


def test_global_generator_is_replaceable():
    first = opgen.random.get_global_generator()
    assert opgen.random.get_global_generator() is first
    other = opgen.random.Generator.from_seed(3)
    try:
        opgen.random.set_global_generator(other)
        assert opgen.random.get_global_generator() is other
        want = opgen.random.Generator.from_seed(3).normal([2]).numpy()
        np.testing.assert_array_equal(opgen.random.get_global_generator().normal([2]), want)
    finally:
        opgen.random.set_global_generator(first)
