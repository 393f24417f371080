"""``opgen.random.Generator``: ``tf.random.Generator`` over the same ops, so a generator
made from the same seed draws TensorFlow's numbers, call after call::

    g = opgen.random.Generator.from_seed(1234)
    g.normal([2, 3])          # tf.random.Generator.from_seed(1234).normal([2, 3])'s values
    g.state.numpy()           # [2770, 0, 0], as TensorFlow's state after that call

The state is an int64 ``opgen.Variable`` (Philox: a 128-bit counter then a 64-bit key;
ThreeFry: a 64-bit counter then a key). Each draw reads the state and moves the counter
past the values drawn (``RngReadAndSkip``), then runs the stateless V2 sampler on the
counter and key it read, as TensorFlow's generator does; so the draws of one generator
never overlap, and saving ``g.state`` (``opgen.train.Saver``) saves the stream.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from opgen import ops
from opgen.runtime import dtypes
from opgen.runtime.variables import Variable

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator",
           "set_global_generator"]


class Algorithm:
    """TensorFlow's counter-based algorithm ids (``tf.random.Algorithm``)."""

    PHILOX = 1
    THREEFRY = 2


_STATE_SIZE = {Algorithm.PHILOX: 3, Algorithm.THREEFRY: 2}
_COUNTER_SIZE = {Algorithm.PHILOX: 2, Algorithm.THREEFRY: 1}
_NAMES = {"philox": Algorithm.PHILOX, "threefry": Algorithm.THREEFRY}


def _alg_id(alg: Any) -> int:
    """An algorithm given as an id, a name or an enum-like object with ``.value``."""
    if isinstance(alg, str):
        if alg.lower() not in _NAMES:
            raise ValueError(f"Unknown algorithm name: {alg} (one of {sorted(_NAMES)})")
        return _NAMES[alg.lower()]
    alg_id = int(getattr(alg, "value", alg))
    if alg_id not in _STATE_SIZE:
        raise ValueError(f"Unsupported algorithm id: {alg_id}")
    return alg_id


def _as_int64(words: Any) -> np.ndarray:
    """int64 words from Python or numpy integers, values past int64 wrapped as uint64."""
    flat = [int(w) for w in np.asarray(words, dtype=object).reshape(-1)]
    return np.array([w - 2**64 if w >= 2**63 else w for w in flat], dtype=np.int64)


def create_rng_state(seed: Any, alg: Any) -> np.ndarray:
    """The state ``Generator.from_seed`` starts from, as ``tf.random.create_rng_state``:
    a Python integer cut into 64-bit words, least significant first; a vector of integers
    taken as they are; either cut to the algorithm's state size or padded with zeros on the
    left (so that a short seed lands in the key, not the counter)."""
    size = _STATE_SIZE[_alg_id(alg)]
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        words = []
        for _ in range(size):
            words.append(seed & (2**64 - 1))
            seed >>= 64
        state = _as_int64(words)
    else:
        state = _as_int64(seed)[:size]
    return np.concatenate([np.zeros(size - state.size, np.int64), state])


def _check_state(state: np.ndarray, alg: int) -> np.ndarray:
    if state.shape != (_STATE_SIZE[alg],):
        raise ValueError(f"the state of algorithm {alg} has shape [{_STATE_SIZE[alg]}], "
                         f"not {list(state.shape)}")
    return state


def _element_count(shape: Any) -> Any:
    """How far a draw of `shape` moves the counter: its element count, as uint64."""
    if isinstance(shape, (list, tuple, int, np.integer, np.ndarray)):
        return np.uint64(np.prod(np.asarray(shape, np.int64)))
    return ops.cast(ops.prod(shape, np.int32(0)), dtypes.uint64)


def _shape(shape: Any) -> Any:
    if isinstance(shape, (list, tuple)) and not shape:
        return np.zeros([0], np.int64)
    return np.asarray(shape, np.int64) if isinstance(shape, (list, tuple, int, np.ndarray)) else shape


def _value(v: Any, dtype: dtypes.DType) -> Any:
    if isinstance(v, (int, float, np.generic, np.ndarray)):
        return np.asarray(v, dtype.as_numpy_dtype)
    return v


class Generator:
    """A random-number generator with its state in an int64 variable, as
    ``tf.random.Generator``. Build it with ``from_seed``, ``from_state``,
    ``from_key_counter`` or ``from_non_deterministic_state``; ``Generator(copy_from=g)``
    copies another's state into a new variable. Every draw moves the state on."""

    def __init__(self, copy_from: Generator | None = None, state: Any = None,
                 alg: Any = None) -> None:
        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("copy_from excludes state and alg")
            self._alg = copy_from.algorithm
            self._state_var = Variable(copy_from.state.read_value(), trainable=False)
            return
        if state is None or alg is None:
            raise ValueError("a Generator needs copy_from, or both state and alg")
        self._alg = _alg_id(alg)
        if isinstance(state, (list, tuple, int, np.integer, np.ndarray)):
            state = Variable(_check_state(_as_int64(state), self._alg), trainable=False)
        elif not isinstance(state, Variable):  # a tensor: its value starts a new variable
            state = Variable(ops.cast(state, dtypes.int64), trainable=False)
        size = _STATE_SIZE[self._alg]
        if state.dtype != dtypes.int64 or (state.shape is not None and
                                           tuple(state.shape) != (size,)):
            raise ValueError(f"the state of algorithm {self._alg} is int64 of shape [{size}]")
        self._state_var = state

    # ---- construction ----

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        """A generator whose state is ``create_rng_state(seed, alg)`` (Philox by default)."""
        alg = Algorithm.PHILOX if alg is None else _alg_id(alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> Generator:
        """A generator from a state vector (or an int64 variable, which it then uses)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> Generator:
        """A generator whose state is `counter` (the algorithm's counter words) then `key`."""
        alg = _alg_id(alg)
        counter = _as_int64(counter)
        if counter.size != _STATE_SIZE[alg] - 1:
            raise ValueError(f"the counter of algorithm {alg} has {_STATE_SIZE[alg] - 1} "
                             f"words, not {counter.size}")
        return cls(state=np.concatenate([counter, _as_int64([key])]), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """A generator whose state comes from the operating system's random source."""
        alg = Algorithm.PHILOX if alg is None else _alg_id(alg)
        words = [secrets.randbits(64) for _ in range(_STATE_SIZE[alg])]
        return cls(state=_as_int64(words), alg=alg)

    def reset(self, state: Any) -> None:
        """Sets the state to `state`."""
        self._state_var.assign(_check_state(_as_int64(state), self._alg))

    def reset_from_seed(self, seed: Any) -> None:
        """Sets the state to ``create_rng_state(seed, self.algorithm)``."""
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        """Sets the state to `counter` then `key`."""
        self.reset(Generator.from_key_counter(key, counter, self._alg).state.numpy())

    # ---- state ----

    @property
    def state(self) -> Variable:
        """The int64 state variable."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        """The algorithm id: ``Algorithm.PHILOX`` (1) or ``Algorithm.THREEFRY`` (2)."""
        return self._alg

    @property
    def key(self) -> Any:
        """The key: the state's last word."""
        return ops.strided_slice(self._state_var.read_value(), np.array([-1], np.int32), np.array([0], np.int32),
                                 np.array([1], np.int32), end_mask=1, shrink_axis_mask=1)

    def skip(self, delta: Any) -> Any:
        """Moves the counter as a draw of `delta` values would; returns the state before."""
        if isinstance(delta, (int, np.integer)):
            delta = np.uint64(delta)
        else:
            delta = ops.cast(delta, dtypes.uint64)
        return ops.rng_read_and_skip(self._state_var.handle, np.int32(self._alg), delta)

    def _key_counter(self, shape: Any) -> tuple[Any, Any]:
        """The key and counter a draw of `shape` uses, the state moved past it."""
        old = ops.rng_read_and_skip(self._state_var.handle, np.int32(self._alg),
                                    _element_count(shape))
        n = _COUNTER_SIZE[self._alg]
        counter = ops.bitcast(ops.slice(old, np.array([0], np.int32), np.array([n], np.int32)), dtypes.uint64)
        key = ops.bitcast(ops.slice(old, np.array([n], np.int32), np.array([1], np.int32)), dtypes.uint64)
        return key, counter

    # ---- draws ----

    def _scaled(self, sampler: Any, shape: Any, mean: Any, stddev: Any, dtype: Any,
                name: str | None) -> Any:
        """``sampler``'s standard values for `shape` times `stddev` plus `mean`."""
        dtype = dtypes.as_dtype(dtype)
        mean, stddev = _value(mean, dtype), _value(stddev, dtype)
        shape = _shape(shape)
        key, counter = self._key_counter(shape)
        rnd = sampler(shape, key, counter, np.int32(self._alg), dtype=dtype)
        return ops.add_v2(ops.mul(rnd, stddev), mean, name=name)

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
               dtype: Any = dtypes.float32, name: str | None = None) -> Any:
        """Normal values ``rnd * stddev + mean``."""
        return self._scaled(ops.stateless_random_normal_v2, shape, mean, stddev, dtype, name)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                         dtype: Any = dtypes.float32, name: str | None = None) -> Any:
        """Normal values redrawn until within two standard deviations of `mean`."""
        return self._scaled(ops.stateless_truncated_normal_v2, shape, mean, stddev, dtype,
                            name)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: Any = dtypes.float32, name: str | None = None) -> Any:
        """Uniform values in [minval, maxval); floats default to [0, 1); integers take both
        bounds, or neither for values over the dtype's whole range."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(f"For integer dtype {dtype.name}, minval and maxval must be "
                                 f"both `None` or both non-`None`; got minval={minval} and "
                                 f"maxval={maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype=dtype, name=name)
        elif maxval is None:
            maxval = 1
        lo, hi = _value(minval, dtype), _value(maxval, dtype)
        shape = _shape(shape)
        key, counter = self._key_counter(shape)
        alg = np.int32(self._alg)
        if dtype.is_integer:
            return ops.stateless_random_uniform_int_v2(shape, key, counter, alg, lo, hi,
                                                       name=name)
        rnd = ops.stateless_random_uniform_v2(shape, key, counter, alg, dtype=dtype)
        return ops.add_v2(ops.mul(rnd, ops.sub(hi, lo)), lo, name=name)

    def uniform_full_int(self, shape: Any, dtype: Any = dtypes.uint64,
                         name: str | None = None) -> Any:
        """Integers over the whole range of `dtype` (int32, int64, uint32 or uint64)."""
        shape = _shape(shape)
        key, counter = self._key_counter(shape)
        return ops.stateless_random_uniform_full_int_v2(shape, key, counter, np.int32(self._alg),
                                                        dtype=dtypes.as_dtype(dtype), name=name)

    def make_seeds(self, count: int = 1) -> Any:
        """A [2, count] int64 tensor of seed pairs for the stateless samplers (each column
        one seed: a fresh key, then 0)."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        return ops.pack([keys, ops.zeros_like(keys)])

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators, each keyed by a fresh key with a zero counter; this
        generator's state moves on."""
        keys = self.uniform_full_int([count], dtype=dtypes.int64)
        zeros: Any = np.zeros(_STATE_SIZE[self._alg] - 1, np.int64)  # the new counters
        return [Generator(state=ops.concat_v2([zeros, ops.reshape(key, np.array([1], np.int32))],
                                              np.int32(0)), alg=self._alg)
                for key in ops.unpack(keys, num=count)]

    def __repr__(self) -> str:
        return f"<opgen.random.Generator algorithm={self._alg} state={self._state_var!r}>"


_global_generator: Generator | None = None


def get_global_generator() -> Generator:
    """The process's generator, made from the system's random source at first use."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the process's generator (functions traced already keep the old one)."""
    global _global_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected an opgen.random.Generator, not {type(generator).__name__}")
    _global_generator = generator
