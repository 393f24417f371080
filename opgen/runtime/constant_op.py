"""``opgen.constant``: TensorFlow's ``tf.constant`` — an eager Tensor, or in graph mode
(inside ``Graph.as_default()``) a Const node's Output."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from opgen.runtime import _convert, _strings, dtypes, graph_mode
from opgen.runtime.errors import InvalidArgumentError
from opgen.runtime.tensor import Tensor, _from_numpy


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Tensor:
    """A constant tensor holding `value` (a Python scalar or nested list, numpy data,
    or an eager Tensor).

    Without `dtype`, numpy data keeps its dtype and Python values take TensorFlow's
    defaults (float -> float32, int -> int32 or int64 when it does not fit, bool,
    complex -> complex128). With `dtype`, numpy data is cast to it (numpy's
    ``astype``, as ``tf.constant`` does: ``np.array([1.5])`` as int32 is ``[1]``);
    Python values must convert without losing data (``1.5`` as int32 raises TypeError);
    a Tensor must already have it.

    With `shape`, a one-element value fills that shape, and a value with as many
    elements as the shape is reshaped to it; other values raise TypeError.

    Eagerly the result is a Tensor; inside ``Graph.as_default()`` it is the Output of
    a Const node named `name` (made unique) in that graph. (Typed as Tensor: both have
    the same operators.)
    """
    want = dtypes.as_dtype(dtype) if dtype is not None else None
    array = _as_numpy(value, want)
    if shape is not None:
        array = _with_shape(array, tuple(int(d) for d in shape), value)
    g = graph_mode._thread_graph()
    if g is not None:
        const = g.create_op("Const", [], {"dtype": dtypes.as_dtype(array.dtype), "value": array},
                            name=name)
        return cast(Tensor, const.outputs[0])  # (an Output: see the docstring)
    return _from_numpy(array, dtypes.as_dtype(array.dtype))


def _as_numpy(value: Any, want: dtypes.DType | None) -> np.ndarray:
    if isinstance(value, Tensor):
        if want is not None and value.dtype != want:
            raise TypeError(f"expected a {want.name} tensor, got a {value.dtype.name} tensor")
        return value.numpy()
    strings = isinstance(value, (bytes, str)) or (
        isinstance(value, (np.ndarray, np.generic)) and np.asarray(value).dtype.kind in "SUO")
    if want == dtypes.string or (want is None and strings):
        return _string_array(value)
    if want is not None and want.numpy_dtype is None:
        raise TypeError(f"cannot make a {want.name} constant from Python values")
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return array if want is None else array.astype(want.numpy_dtype)
    try:
        if want is None:
            array = _convert.default_numpy_value(value)
            if array.dtype.kind in "SU":  # lists of bytes / str
                return _string_array(value)
            if array.dtype.kind in "OUSV":
                raise TypeError(f"cannot convert {_convert.short_repr(value)} to a tensor")
            return array
        return _convert.python_value_as(value, want)
    except InvalidArgumentError as e:
        raise TypeError(e.message) from None
    except ValueError as e:  # (ragged nested lists)
        raise TypeError(f"cannot convert {_convert.short_repr(value)} to a tensor: {e}") from None


def _string_array(value: Any) -> np.ndarray:
    try:  # an object array of bytes (str is encoded as UTF-8)
        return _strings.string_array(value)
    except InvalidArgumentError as e:
        raise TypeError(e.message) from None


def _with_shape(array: np.ndarray, shape: tuple[int, ...], value: Any) -> np.ndarray:
    size = int(np.prod(shape, dtype=np.int64))
    if array.size == 1:
        return np.full(shape, array.reshape(()), dtype=array.dtype)
    if array.size == size:
        return array.reshape(shape)
    raise TypeError(f"constant {_convert.short_repr(value)} has {array.size} elements, but "
                    f"shape {shape} has {size}")
