"""opgen.random's stateful samplers and seeds against TensorFlow 2.21, bit for bit.

One program (PROGRAM) runs with `rnd` = tf.random in the child interpreter
$OPGEN_TF_PYTHON and with `rnd` = opgen.random in child opgen processes: once through
the compiled fast path, once through the ctypes path ($OPGEN_DISABLE_FAST_PATH). It
covers consecutive eager calls (uniform, normal, truncated_normal, shuffle, categorical)
with an op seed (no global seed), with the global seed only (op seeds drawn from it),
set_seed starting the sequences over, dtypes, a traced function called twice, and a v1
graph run twice in a session. Skipped without TensorFlow; the seed rules' own checks
need none."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from tf_reference import run_tf, tf_env

PROGRAM = r"""
import numpy as np

def program(rnd, lib, function, graph_run):
    out = []
    out += [rnd.uniform([5], seed=3) for _ in range(3)]        # op seed, no global seed
    rnd.set_seed(7)
    out += [rnd.uniform([5]) for _ in range(3)]                # global seed only
    out += [rnd.uniform([4], seed=2) for _ in range(3)]        # both
    out += [rnd.uniform([3], minval=-2.0, maxval=5.0, dtype=lib.float64, seed=2) for _ in range(2)]
    out += [rnd.uniform([3], maxval=4, dtype=lib.float32, seed=5) for _ in range(2)]
    out += [rnd.uniform([7], minval=-3, maxval=40, dtype=lib.int32, seed=4) for _ in range(2)]
    out += [rnd.uniform([3], minval=0, maxval=2**40, dtype=lib.int64) for _ in range(2)]
    out += [rnd.uniform([5], dtype=lib.float16, seed=8) for _ in range(2)]
    out += [rnd.normal([6], mean=1.5, stddev=0.5, seed=9) for _ in range(2)]
    out += [rnd.normal([4], dtype=lib.float64) for _ in range(2)]
    out += [rnd.truncated_normal([6], stddev=3.0, seed=9) for _ in range(2)]
    out += [rnd.truncated_normal([5], dtype=lib.float64) for _ in range(2)]
    out += [rnd.shuffle(np.arange(10), seed=4) for _ in range(3)]
    out += [rnd.shuffle(np.arange(14.0).reshape(7, 2)) for _ in range(2)]
    out += [rnd.shuffle(np.float32([[1.0, 2.0]]), seed=4), rnd.shuffle(np.arange(3), seed=4)]
    logits = np.float32([[0.0, 1.0, -2.0, 0.5], [3.0, -np.inf, 0.0, 3.0]])
    out += [rnd.categorical(logits, 7, seed=6) for _ in range(3)]
    out += [rnd.categorical(logits.astype(np.float64), 5, dtype=lib.int32) for _ in range(2)]
    out += [rnd.categorical(np.float32([[1.0, 2.0, 3.0]]), 0, seed=6)]
    rnd.set_seed(7)                                            # the same again
    out += [rnd.uniform([5]) for _ in range(2)]
    out += [rnd.uniform([4], seed=2) for _ in range(2)]
    out += [rnd.shuffle(np.arange(10), seed=4)]
    rnd.set_seed(0)                                            # (0, 0) becomes (0, 2**31 - 1)
    out += [rnd.uniform([3], seed=0)]

    rnd.set_seed(11)
    @function
    def f():
        return [rnd.uniform([3]), rnd.normal([2], seed=5), rnd.uniform([2])]
    out += list(f()) + list(f())

    def build():
        rnd.set_seed(3)
        return [rnd.uniform([4]), rnd.uniform([4], seed=1), rnd.normal([2])]
    out += graph_run(build) + graph_run(build)
    return out
"""

_TF_MAIN = r"""
import base64, json
import numpy as np
import tensorflow as tf

def graph_run(build, runs=[]):
    if not runs:
        runs.append(tf.Graph())
        with runs[0].as_default():
            runs.append(build())
        runs.append(tf.compat.v1.Session(graph=runs[0]))
    return list(runs[2].run(runs[1]))

values = program(tf.random, tf, tf.function, graph_run)
print(json.dumps([[np.asarray(v).dtype.name, base64.b64encode(np.asarray(v).tobytes()).decode(),
                   list(np.shape(v))] for v in values]))
"""

_OPGEN_MAIN = r"""
import base64, json
import numpy as np
import opgen

def graph_run(build, runs=[]):
    if not runs:
        runs.append(opgen.Graph())
        with runs[0].as_default():
            runs.append(build())
        runs.append(opgen.Session(graph=runs[0]))
    return list(runs[2].run(runs[1]))

values = program(opgen.random, opgen, opgen.function, graph_run)
print(json.dumps([[np.asarray(v).dtype.name, base64.b64encode(np.asarray(v).tobytes()).decode(),
                   list(np.shape(v))] for v in values]))
"""


def _run(python: str, main: str, env: dict) -> list:
    r = subprocess.run([python, "-c", PROGRAM + main], capture_output=True, text=True, env=env,
                       cwd="/", timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def tensorflow_values():
    r = run_tf(["-c", PROGRAM + _TF_MAIN], env=tf_env(CUDA_VISIBLE_DEVICES=""), timeout=300)
    return json.loads(r.stdout.splitlines()[-1])


@pytest.mark.parametrize("path", ["fast path", "ctypes path"])
def test_the_program_gives_tensorflows_values(tensorflow_values, path):
    env = dict(os.environ)
    env.pop("OPGEN_DISABLE_FAST_PATH", None)
    if path == "ctypes path":
        env["OPGEN_DISABLE_FAST_PATH"] = "1"
    ours = _run(sys.executable, _OPGEN_MAIN, env)
    assert len(ours) == len(tensorflow_values)
    for i, (got, want) in enumerate(zip(ours, tensorflow_values)):
        assert got[0] == want[0] and got[2] == want[2], (i, got, want)
        assert got[1] == want[1], (i, np.frombuffer(base64.b64decode(got[1]), got[0])[:4],
                                   np.frombuffer(base64.b64decode(want[1]), want[0])[:4])
    # The program would pass if every call repeated its first values: it must not.
    assert ours[0] != ours[1] != ours[2]


def test_get_seed_follows_tensorflows_rules():
    code = r"""
import opgen, random
rnd = opgen.random
assert rnd.get_seed(None) == (None, None)
assert rnd.get_seed(5) == (87654321, 5)
assert rnd.get_seed(-1) == (87654321, 2**31 - 2)
rnd.set_seed(2**31 + 4)
draw = random.Random(2**31 + 4)
assert rnd.get_seed(None) == (5, draw.randint(0, 2**31 - 1))
assert rnd.get_seed(None) == (5, draw.randint(0, 2**31 - 1))
rnd.set_seed(0)
assert rnd.get_seed(0) == (0, 2**31 - 1)
g = opgen.Graph()
with g.as_default():
    assert rnd.get_seed(None) == (None, None)   # a graph's own seed, not the eager one
    rnd.set_seed(9)
    assert [rnd.get_seed(None) for _ in range(3)] == [(9, 0), (9, 1), (9, 2)]
assert g.seed == 9 and opgen.random.get_seed(3) == (0, 3)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/",
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def test_uniform_refuses_what_tensorflow_refuses():
    import opgen
    with pytest.raises(ValueError):
        opgen.random.uniform([3], dtype=opgen.int32)   # no maxval
    with pytest.raises(ValueError):
        opgen.random.uniform([3], dtype=opgen.uint8, maxval=3)


def _uniform_ctypes(seed: int, seed2: int, n: int = 4):
    from opgen.runtime import dtypes, eager
    return np.asarray(eager._execute_op_python(
        "RandomUniform", [np.array([n], np.int32)],
        {"dtype": dtypes.float32, "seed": seed, "seed2": seed2})[0])


def test_the_kernel_cache_is_bounded_and_keeps_its_hot_kernels():
    """Past 4096 kernels the least recently used go; one used all along keeps its state.
    In a fresh process: kernels that other tests' fast-path signatures hold (up to 32 per
    op) stay cached beyond the bound, and the count of cached kernels includes them
    (tests/runtime/test_eager_kernel_cache.py checks that they do not crowd out the rest)."""
    code = """
import numpy as np
from opgen.runtime import _context, dtypes, eager

def uniform(seed, seed2):
    return np.asarray(eager._execute_op_python(
        "RandomUniform", [np.array([4], np.int32)],
        {"dtype": dtypes.float32, "seed": seed, "seed2": seed2})[0])

first = [uniform(1, 1)]
for seed in range(2, 4300):
    uniform(seed, 1)
    if seed % 1000 == 0:
        first.append(uniform(1, 1))
assert _context.num_cached_kernels() <= 4096, _context.num_cached_kernels()
_context.set_global_seed(None)  # starts every sequence over
again = [uniform(1, 1) for _ in first]
assert [a.tobytes() for a in again] == [f.tobytes() for f in first]
assert len({f.tobytes() for f in first}) == len(first)
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/",
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]


def test_ops_with_big_attrs_are_not_cached():
    """A Const's value is part of its key: big ones are left out of the cache, which
    would otherwise hold up to 4096 of them; small ones are cached once per value."""
    from opgen.runtime import _context, dtypes, execute_op
    _context.set_global_seed(None)  # drops the unheld kernels: room for new ones
    before = _context.num_cached_kernels()
    for i in range(5):
        big = execute_op("Const", [], {"value": np.full(2000, i, np.float32),
                                       "dtype": dtypes.float32})
    assert _context.num_cached_kernels() == before
    np.testing.assert_array_equal(np.asarray(big[0] if isinstance(big, list) else big),
                                  np.full(2000, 4, np.float32))
    for _ in range(3):
        for i in range(2):
            execute_op("Const", [], {"value": np.full(2, 7000 + i, np.float32),
                                     "dtype": dtypes.float32})
    assert _context.num_cached_kernels() == before + 2


def test_threads_sharing_a_kernel_draw_disjoint_parts_of_its_sequence():
    """Calls from several threads at once each take their own part of the one
    sequence: together, the values of as many calls made one after another."""
    import threading

    from opgen.runtime import _context
    _context.set_global_seed(None)
    serial = {_uniform_ctypes(5, 6, 256).tobytes() for _ in range(40)}
    _context.set_global_seed(None)
    results: list[bytes] = []
    lock = threading.Lock()

    def work():
        for _ in range(10):
            v = _uniform_ctypes(5, 6, 256).tobytes()
            with lock:
                results.append(v)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(results) == serial and len(results) == 40
