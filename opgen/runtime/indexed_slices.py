"""``IndexedSlices``: a gradient that touches only some rows of a variable, as
TensorFlow's ``tf.IndexedSlices`` (what ``tf.gather``'s gradient is). The optimizers of
``opgen.train`` apply one through their ``ResourceSparseApply*`` op (or, for gradient
descent and Adam, through ``ResourceScatterAdd``), updating only those rows."""

from __future__ import annotations

from typing import Any


class IndexedSlices:
    """Rows `values[i]` of a tensor of shape `dense_shape` at first-dimension positions
    `indices[i]`; a repeated index means the sum of its rows."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    def __repr__(self) -> str:
        return (f"IndexedSlices(values={self.values!r}, indices={self.indices!r}, "
                f"dense_shape={self.dense_shape!r})")


__all__ = ["IndexedSlices"]
