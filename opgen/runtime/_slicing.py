"""``tensor[key]``: a Python index as the arguments of TensorFlow's StridedSlice op,
with TensorFlow's slicing syntax (``tf.Tensor.__getitem__``).

An index is one item or a tuple (or list, which TensorFlow reads as a tuple, not as
numpy's fancy indexing) of:

- an int (anything with ``__index__`` but a bool): picks one element and drops the
  dimension (StridedSlice's shrink_axis_mask);
- a slice ``start:stop:step``, steps negative too; each part None, an int or a scalar
  int32/int64 tensor; a zero step is the op's error;
- ``...`` (at most one) for all the dimensions not named;
- ``None`` (``np.newaxis``): a new dimension of size 1;
- a scalar int32/int64 tensor, as an int (its value is read when the op runs).

Where every part is a Python int, begin/end/strides are int32 constants (int64 when
a value does not fit); where some part is a tensor, they are packed (Pack) from the
parts, which must then all be of one index dtype, as in TensorFlow. A bool mask as the
whole index (``t[t > 0]``) is no slice: it is :mod:`opgen.runtime._boolean_mask`'s; a
bool inside a tuple or list index is a TypeError here (TensorFlow's errors for them
vary: TypeError for a bool tensor, the op's InvalidArgumentError for Python bools).
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

_INT32_MIN, _INT32_MAX = -(2 ** 31), 2 ** 31 - 1

_VALID = ("Only integers, slices (`:`), ellipsis (`...`), opgen.newaxis (`None`) and "
          "scalar int32/int64 tensors are valid indices")


@dataclass
class StridedSliceArgs:
    """begin/end/strides (ints or scalar index tensors) and StridedSlice's masks."""

    begin: list[Any] = field(default_factory=list)
    end: list[Any] = field(default_factory=list)
    strides: list[Any] = field(default_factory=list)
    begin_mask: int = 0
    end_mask: int = 0
    ellipsis_mask: int = 0
    new_axis_mask: int = 0
    shrink_axis_mask: int = 0

    def attrs(self) -> dict[str, int]:
        return {"begin_mask": self.begin_mask, "end_mask": self.end_mask,
                "ellipsis_mask": self.ellipsis_mask, "new_axis_mask": self.new_axis_mask,
                "shrink_axis_mask": self.shrink_axis_mask}

    def has_tensors(self, is_tensor: Callable[[object], bool]) -> bool:
        return any(is_tensor(v) for v in (*self.begin, *self.end, *self.strides))

    def constant_dtype(self) -> type[np.integer[Any]]:
        """int32, or int64 where some value does not fit (all parts Python ints)."""
        values = (*self.begin, *self.end, *self.strides)
        fits = all(_INT32_MIN <= v <= _INT32_MAX for v in values)
        return np.int32 if fits else np.int64


def strided_slice_args(key: object, is_tensor: Callable[[object], bool]) -> StridedSliceArgs:
    """The StridedSlice arguments for ``tensor[key]`` (see the module docstring);
    TypeError for an index TensorFlow does not take. `is_tensor` says whether a value
    is an opgen tensor (an eager Tensor or graph Output)."""
    items = key if isinstance(key, (list, tuple)) else (key,)
    args = StridedSliceArgs()
    for position, item in enumerate(items):
        bit = 1 << position
        if isinstance(item, slice):
            start = _bound(item.start, is_tensor)
            stop = _bound(item.stop, is_tensor)
            step = _bound(item.step, is_tensor)
            args.begin.append(0 if start is None else start)
            args.end.append(0 if stop is None else stop)
            args.strides.append(1 if step is None else step)
            if start is None:
                args.begin_mask |= bit
            if stop is None:
                args.end_mask |= bit
        elif item is Ellipsis:
            if args.ellipsis_mask:
                raise IndexError("an index can only have a single ellipsis ('...')")
            _append(args, 0, 0, 1)
            args.ellipsis_mask |= bit
        elif item is None:
            _append(args, 0, 0, 1)
            args.new_axis_mask |= bit
        else:
            index = _scalar_index(item, is_tensor)
            # (for a shrunk dimension the op reads only begin; end is begin + 1 as
            # TensorFlow writes it, a tensor op for a tensor index)
            _append(args, index, index + 1, 1)
            args.shrink_axis_mask |= bit
    return args


def _append(args: StridedSliceArgs, begin: Any, end: Any, stride: Any) -> None:
    args.begin.append(begin)
    args.end.append(end)
    args.strides.append(stride)


def _is_bool(value: object) -> bool:
    dtype = getattr(value, "dtype", None)
    return isinstance(value, (bool, np.bool_)) or (
        dtype is not None and getattr(dtype, "name", str(dtype)) == "bool")


def _scalar_index(item: object, is_tensor: Callable[[object], bool]) -> Any:
    """An int, or a scalar int32/int64 tensor, for one index item or slice bound."""
    if _is_bool(item):
        raise TypeError(f"{_VALID}, got {item!r} (a bool mask must be the whole index: "
                        "tensor[mask])")
    if is_tensor(item):
        tensor: Any = item
        dtype, shape = tensor.dtype, tensor.shape
        if dtype.name not in ("int32", "int64") or (shape is not None and len(shape) != 0):
            raise TypeError(f"{_VALID}, got {item!r}")
        return item
    if isinstance(item, numbers.Integral) or hasattr(item, "__index__"):
        try:
            return operator.index(item)  # (numpy integers, 0-d integer arrays)
        except TypeError:
            pass
    raise TypeError(f"{_VALID}, got {item!r}")


def _bound(value: object, is_tensor: Callable[[object], bool]) -> Any:
    return None if value is None else _scalar_index(value, is_tensor)
