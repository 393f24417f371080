"""``opgen.random``: the stateless samplers of ``tf.random``, over the same ops TensorFlow's
Python layer emits (``StatelessRandomGetKeyCounter`` feeding a V2 op, then the scaling),
so they give TensorFlow's values for the same seed, eagerly and in graphs::

    u = opgen.random.stateless_uniform([2, 3], seed=[1, 2])
    z = opgen.random.stateless_normal([4], seed=[7, 0], mean=1.0, stddev=0.5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgen import ops
from opgen.runtime import dtypes

__all__ = ["stateless_normal", "stateless_truncated_normal", "stateless_uniform"]

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
