"""``tensor[mask]`` with a bool mask, as TensorFlow's ``tf.Tensor.__getitem__`` does it:
the whole index must be one bool tensor or numpy bool array (TensorFlow then calls
``tf.boolean_mask(tensor, mask)``); bools inside a tuple index are no masks.

The mask's k dimensions must match the tensor's first k (checked here where both are
known, else by the ops when they run); the result has the elements whose mask entry
is true, in row-major order, with the tensor's remaining dimensions:
``t[m]`` is ``numpy``'s ``t[m]`` for such masks. The ops are TensorFlow's, so an eager
Tensor and a graph Output take the same path: Shape, StridedSlice and Prod for the
number of masked positions, Reshape to put them on one axis, Where + Squeeze for the
true positions and GatherV2 to pick them.

A Python bool (``t[True]``) or a 0-d mask is the ValueError TensorFlow raises ("mask
cannot be scalar."), as is a mask of unknown rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgen.runtime import dtypes

RunOp = Callable[[str, Sequence[Any], "dict[str, Any] | None"], Any]


def is_mask(key: object, is_tensor: Callable[[object], bool]) -> bool:
    """Whether ``tensor[key]`` is a boolean mask (TensorFlow's test: a Python bool, a
    bool tensor or a numpy bool array as the whole index)."""
    if isinstance(key, bool):
        return True
    if is_tensor(key):
        tensor: Any = key
        return bool(tensor.dtype.name == "bool")
    return isinstance(key, np.ndarray) and key.dtype == np.bool_


def boolean_mask(tensor: Any, mask: Any, run_op: RunOp) -> Any:
    """The elements of `tensor` where `mask` is true (see the module docstring)."""
    mask_shape = _static_shape(mask)
    if mask_shape is None:
        raise ValueError("Number of mask dimensions must be specified, even if some "
                         "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                         "is not.")
    k = len(mask_shape)
    if k == 0:
        raise ValueError("mask cannot be scalar.")
    tensor_shape = tensor.shape
    if tensor_shape is not None:
        _check_compatible(tuple(tensor_shape)[:k], mask_shape)

    shape = run_op("Shape", [tensor], {"out_type": dtypes.int32})
    leading = run_op("StridedSlice", [shape, _ints([0]), _ints([k]), _ints([1])], None)
    positions = run_op("Prod", [leading, _ints([0])], {"keep_dims": True})
    rest = run_op("StridedSlice", [shape, _ints([k]), _ints([0]), _ints([1])],
                  {"end_mask": 1})
    flat_shape = run_op("ConcatV2", [[positions, rest], np.int32(0)], None)
    flat = run_op("Reshape", [tensor, flat_shape], None)
    flat_mask = run_op("Reshape", [mask, _ints([-1])], None)
    where = run_op("Where", [flat_mask], None)
    indices = run_op("Squeeze", [where], {"squeeze_dims": [1]})
    return run_op("GatherV2", [flat, indices, np.int32(0)], {"batch_dims": 0})


def _static_shape(mask: Any) -> tuple[int | None, ...] | None:
    if isinstance(mask, (bool, np.ndarray)):
        return tuple(np.shape(mask))
    shape = mask.shape
    return None if shape is None else tuple(shape)


def _check_compatible(dims: tuple[int | None, ...], mask_dims: tuple[int | None, ...]) -> None:
    """TensorFlow's static check: the tensor's first dims against the mask's."""
    compatible = len(dims) == len(mask_dims) and all(
        a is None or b is None or a == b for a, b in zip(dims, mask_dims))
    if not compatible:
        raise ValueError(f"Shapes {_text(dims)} and {_text(mask_dims)} are incompatible")


def _text(dims: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") + ")"


def _ints(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int32)

