"""``IndexedSlices``: a gradient that touches only some rows of a tensor, as
TensorFlow's ``tf.IndexedSlices`` (what the gradient of a gather's params is). The
optimizers of ``opgen.train`` apply one through their ``ResourceSparseApply*`` op
(or, for gradient descent and Adam, through ``ResourceScatterAdd``), updating only
those rows. Passed to an op, or to ``np.asarray``, it becomes its dense tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgen.runtime import eager, graph_mode
from opgen.runtime.graph import Output


class IndexedSlices:
    """Rows `values[i]` of a tensor of shape `dense_shape` at first-dimension positions
    `indices[i]`; a repeated index means the sum of its rows."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None) -> None:
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    @property
    def dtype(self) -> Any:
        """The dtype of `values` (and of the dense tensor)."""
        return getattr(self.values, "dtype", None)

    @property
    def shape(self) -> tuple[int, ...] | None:
        """The dense tensor's shape where `dense_shape` has a value (eagerly), else None."""
        if self.dense_shape is None or isinstance(self.dense_shape, Output):
            return None
        return tuple(int(d) for d in np.asarray(self.dense_shape))

    def __repr__(self) -> str:
        return (f"IndexedSlices(values={self.values!r}, indices={self.indices!r}, "
                f"dense_shape={self.dense_shape!r})")

    def _opgen_value(self) -> Any:
        """The dense tensor (an Output in the values' graph, else an eager Tensor): what
        an op taking this as an input reads, as TensorFlow converts one."""
        return to_dense(self)

    def _opgen_fetch(self) -> tuple[list[Any], Any]:
        """What Session.run fetches for this: the parts, and what makes the result of
        their values (an IndexedSlices of numpy arrays, as TensorFlow's
        IndexedSlicesValue)."""
        return [self.values, self.indices, self.dense_shape], IndexedSlices

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if isinstance(self.values, Output):
            raise NotImplementedError(f"cannot convert the IndexedSlices of graph output "
                                      f"{self.values.name!r} to a numpy array")
        array = to_dense(self).numpy()
        return array if dtype is None else array.astype(dtype)


def to_dense(value: IndexedSlices) -> Any:
    """``UnsortedSegmentSum(values, indices, dense_shape[0])``: the rows scattered into
    zeros, repeated indices summed (TensorFlow's conversion of an IndexedSlices)."""
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without "
                         f"dense_shape: {value!s}")
    graph = next((t.graph for t in (value.values, value.indices, value.dense_shape)
                  if isinstance(t, Output)), None)

    def run(op_type: str, inputs: list[Any], attrs: dict[str, Any]) -> Any:
        if graph is None:
            return eager.execute_eager(op_type, inputs, attrs)[0]
        return graph_mode.build_op(graph, op_type, inputs, attrs)[0]

    shape = value.dense_shape
    if not isinstance(shape, Output) and not hasattr(shape, "_tensor"):
        shape = np.asarray(shape, np.int64 if np.asarray(shape).dtype == np.int64
                           else np.int32)
    rows = run("GatherV2", [shape, np.int32(0), np.int32(0)], {})
    return run("UnsortedSegmentSum", [value.values, value.indices, rows], {})


__all__ = ["IndexedSlices", "to_dense"]
