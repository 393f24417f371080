"""``opgen.random``: the samplers of ``tf.random``, over the same ops TensorFlow's Python
layer emits, so they give TensorFlow's values for the same seeds, eagerly and in graphs.

Stateless ones (``StatelessRandomGetKeyCounter`` feeding a V2 op, then the scaling) are
pure functions of their seed::

    u = opgen.random.stateless_uniform([2, 3], seed=[1, 2])
    z = opgen.random.stateless_normal([4], seed=[7, 0], mean=1.0, stddev=0.5)

Stateful ones (``uniform``, ``normal``, ``truncated_normal``, ``shuffle``,
``categorical``) take their op's (seed,
seed2) from the global seed (``set_seed``) and the op seed by TensorFlow's rules
(``get_seed``); an eager call with the same seeds goes on along one sequence, since
the eager context keeps one kernel per op, attrs and dtypes, as TensorFlow's does::

    opgen.random.set_seed(5)
    a = opgen.random.uniform([3], seed=1)   # tf.random.uniform's values, call after call
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from opgen import ops
from opgen.runtime import _context, dtypes
from opgen.random_generator import (Algorithm, Generator, create_rng_state,
                                    get_global_generator, set_global_generator)
from opgen.runtime.graph import get_default_graph, thread_has_default_graph

__all__ = ["Algorithm", "Generator", "categorical", "create_rng_state", "get_global_generator",
           "set_global_generator", "get_seed", "normal", "set_seed", "shuffle", "stateless_normal",
           "stateless_truncated_normal", "stateless_uniform", "truncated_normal", "uniform"]

# TensorFlow's algorithm names and ids (tf.random.Algorithm).
_ALGORITHMS = {"philox": 1, "threefry": 2, "auto_select": 3}


def _alg(alg: Any) -> Any:
    if alg is None:
        return np.int32(3)
    if isinstance(alg, str):
        if alg.lower() not in _ALGORITHMS:
            raise ValueError(f"unknown random algorithm {alg!r}: one of {sorted(_ALGORITHMS)}")
        return np.int32(_ALGORITHMS[alg.lower()])
    return np.int32(int(getattr(alg, "value", alg)))


def _key_counter(seed: Any) -> tuple[Any, Any]:
    if isinstance(seed, (list, tuple)):
        seed = np.asarray(seed, np.int64)
    key, counter = ops.stateless_random_get_key_counter(seed)
    return key, counter


def _shape(shape: Any) -> Any:
    return np.asarray(shape, np.int32) if isinstance(shape, (list, tuple, int, np.ndarray)) else shape


def _value(v: Any, dtype: Any) -> Any:
    return np.asarray(v, dtype.as_numpy_dtype) if isinstance(v, (int, float, np.generic, np.ndarray)) else v


def stateless_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                      dtype: Any = dtypes.float32, name: str | None = None,
                      alg: Any = "auto_select") -> Any:
    """Uniform values in [minval, maxval) (floats: maxval defaults to 1), a pure function
    of `seed` (two integers), as ``tf.random.stateless_uniform``. Integer dtypes take both
    bounds, or neither for values over the whole range (``StatelessRandomUniformFullIntV2``)."""
    dtype = dtypes.as_dtype(dtype)
    key, counter = _key_counter(seed)
    shape, a = _shape(shape), _alg(alg)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError("for integers, minval and maxval are both given or both None")
        if minval is None:
            return ops.stateless_random_uniform_full_int_v2(shape, key, counter, a, dtype=dtype,
                                                            name=name)
        return ops.stateless_random_uniform_int_v2(shape, key, counter, a, _value(minval, dtype),
                                                   _value(maxval, dtype), name=name)
    if maxval is None:
        maxval = 1
    lo, hi = _value(minval, dtype), _value(maxval, dtype)
    rnd = ops.stateless_random_uniform_v2(shape, key, counter, a, dtype=dtype)
    return ops.add_v2(ops.mul(rnd, ops.sub(hi, lo)), lo, name=name)


def stateless_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = dtypes.float32, name: str | None = None,
                     alg: Any = "auto_select") -> Any:
    """Normal values ``rnd * stddev + mean``, a pure function of `seed`, as
    ``tf.random.stateless_normal``."""
    dtype = dtypes.as_dtype(dtype)
    key, counter = _key_counter(seed)
    rnd = ops.stateless_random_normal_v2(_shape(shape), key, counter, _alg(alg), dtype=dtype)
    return ops.add_v2(ops.mul(rnd, _value(stddev, dtype)), _value(mean, dtype), name=name)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: str | None = None,
                               alg: Any = "auto_select") -> Any:
    """Normal values redrawn until within two standard deviations of `mean`, a pure
    function of `seed`, as ``tf.random.stateless_truncated_normal``."""
    dtype = dtypes.as_dtype(dtype)
    key, counter = _key_counter(seed)
    rnd = ops.stateless_truncated_normal_v2(_shape(shape), key, counter, _alg(alg), dtype=dtype)
    return ops.add_v2(ops.mul(rnd, _value(stddev, dtype)), _value(mean, dtype), name=name)


# ---- seeds, as tf.random.set_seed and tf.compat.v1.random.get_seed derive them -----------

DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's, for an op seed without a global seed
_MAXINT32 = 2**31 - 1
_graph_op_counts: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_graph_lock = threading.Lock()


def set_seed(seed: int | None) -> None:
    """Sets the global random seed, as ``tf.random.set_seed``: eagerly, the process's
    (seedless ops then draw op seeds from it, and the eager kernels start over, so a
    seeded op repeats its sequence); inside ``Graph.as_default()`` or a traced
    function, that graph's."""
    if thread_has_default_graph():
        get_default_graph().seed = None if seed is None else int(seed)
    else:
        _context.set_global_seed(seed)


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The (seed, seed2) attrs of a random op given its op seed, by TensorFlow's rules:
    with a global seed, (global, op seed), the op seed drawn from the global seed's
    generator eagerly, or the graph's count of such ops so far; with an op seed alone,
    (87654321, op seed); with neither, (None, None): nondeterministic. Both are taken
    modulo 2**31 - 1, and (0, 0) becomes (0, 2**31 - 1)."""
    graph = get_default_graph() if thread_has_default_graph() else None
    global_seed = _context.global_seed() if graph is None else graph.seed
    if global_seed is not None:
        if op_seed is None:
            if graph is None:
                op_seed = _context.internal_operation_seed()
            else:
                with _graph_lock:
                    op_seed = _graph_op_counts.get(graph, 0)
                    _graph_op_counts[graph] = op_seed + 1
        seeds: tuple[int | None, int | None] = (int(global_seed) % _MAXINT32,
                                                int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _seed_attrs(seed: int | None) -> tuple[int, int]:
    """The op's (seed, seed2) attr values: get_seed's, None (nondeterministic) as 0."""
    seed1, seed2 = get_seed(seed)
    return seed1 or 0, seed2 or 0


_UNIFORM_DTYPES = frozenset(
    (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64))


def uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
            seed: int | None = None, name: str | None = None) -> Any:
    """Uniform values in [minval, maxval) (floats: maxval defaults to 1), as
    ``tf.random.uniform``: ``RandomUniform`` scaled (``RandomUniformInt`` for integers,
    which need maxval), seeded by ``get_seed(seed)``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"uniform: dtype {dtype.name} is not one of "
                         f"{sorted(d.name for d in _UNIFORM_DTYPES)}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"uniform: an integer dtype ({dtype.name}) needs maxval")
        maxval = 1
    shape = _shape(shape)
    # As TensorFlow: the Python ints 0 and 1 (not 0.0, 1.0) skip the scaling ops.
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval, maxval = _value(minval, dtype), _value(maxval, dtype)
    s1, s2 = _seed_attrs(seed)
    if dtype.is_integer:
        return ops.random_uniform_int(shape, minval, maxval, seed=s1, seed2=s2, name=name)
    result = ops.random_uniform(shape, dtype=dtype, seed=s1, seed2=s2)
    if minval_is_zero:
        return result if maxval_is_one else ops.mul(result, maxval, name=name)
    return ops.add_v2(ops.mul(result, ops.sub(maxval, minval)), minval, name=name)


def normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
           seed: int | None = None, name: str | None = None) -> Any:
    """Normal values ``rnd * stddev + mean``, as ``tf.random.normal``
    (``RandomStandardNormal``, seeded by ``get_seed(seed)``)."""
    dtype = dtypes.as_dtype(dtype)
    mean, stddev = _value(mean, dtype), _value(stddev, dtype)
    s1, s2 = _seed_attrs(seed)
    rnd = ops.random_standard_normal(_shape(shape), dtype=dtype, seed=s1, seed2=s2)
    return ops.add_v2(ops.mul(rnd, stddev), mean, name=name)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = dtypes.float32, seed: int | None = None,
                     name: str | None = None) -> Any:
    """Normal values redrawn until within two standard deviations of `mean`, as
    ``tf.random.truncated_normal`` (``TruncatedNormal``, seeded by ``get_seed(seed)``)."""
    dtype = dtypes.as_dtype(dtype)
    mean, stddev = _value(mean, dtype), _value(stddev, dtype)
    s1, s2 = _seed_attrs(seed)
    rnd = ops.truncated_normal(_shape(shape), dtype=dtype, seed=s1, seed2=s2)
    return ops.add_v2(ops.mul(rnd, stddev), mean, name=name)


def shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Any:
    """`value` with its rows (dimension 0) in a random order, as ``tf.random.shuffle``
    (``RandomShuffle``, seeded by ``get_seed(seed)``)."""
    s1, s2 = _seed_attrs(seed)
    return ops.random_shuffle(value, seed=s1, seed2=s2, name=name)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None,
                name: str | None = None) -> Any:
    """`num_samples` class indices per row of [batch, classes] `logits` (unnormalized log
    probabilities), as ``tf.random.categorical`` (``Multinomial``, seeded by
    ``get_seed(seed)``); `dtype` int64 (the default) or int32."""
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"categorical: dtype {dtype.name} is not int32 or int64")
    if isinstance(num_samples, (int, np.integer)):
        num_samples = np.int32(num_samples)
    s1, s2 = _seed_attrs(seed)
    return ops.multinomial(logits, num_samples, seed=s1, seed2=s2, output_dtype=dtype, name=name)
