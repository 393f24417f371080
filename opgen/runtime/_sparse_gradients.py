"""Which gradients of ``opgen.gradients`` are ``IndexedSlices``, and building them.

TensorFlow's gradient of a gather's params (ResourceGather, Gather, GatherV2 on axis 0)
is an ``IndexedSlices``: the gather's output gradient as rows, at the gathered indices.
Identity and ReadVariableOp pass one on unchanged; where a tensor's gradients meet, they
are concatenated while all are sparse and summed densely otherwise. So a source is
sparse exactly when every way from it to the ys (through Identity / ReadVariableOp)
ends at a gather's params: :func:`plan` finds those gathers (the "taps"), the runtime
differentiates the ys with respect to the taps' outputs, and :func:`from_taps` makes
the rows."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from opgen.runtime import dtypes, graph_mode
from opgen.runtime.graph import Graph, Operation, Output
from opgen.runtime.indexed_slices import IndexedSlices

_PASS_THROUGH = frozenset({"Identity", "ReadVariableOp"})  # their gradient is the incoming one


def _axis_is_zero(axis: Output) -> bool:
    """Whether `axis` is a Const 0 (TensorFlow makes the rows only for a static axis 0)."""
    if axis.op.type != "Const":
        return False
    proto = axis.op.get_attr("value")
    np_dtype = np.int64 if proto.dtype == dtypes.int64.as_datatype_enum else np.int32
    if proto.tensor_content:
        values = np.frombuffer(proto.tensor_content, np_dtype)
    else:
        values = np.asarray(list(proto.int64_val) or list(proto.int_val), np_dtype)
    return values.size == 1 and int(values.reshape(-1)[0]) == 0


def _sparse_use(op: Operation, index: int) -> bool:
    """Whether input `index` of `op` is the params of a gather whose gradient is rows."""
    if index != 0 or op.type not in ("Gather", "GatherV2", "ResourceGather"):
        return False
    if op.type != "Gather" and op.get_attr("batch_dims") != 0:
        return False
    return op.type != "GatherV2" or _axis_is_zero(op.inputs[2])


def _ancestors(ys: list[Output]) -> set[str]:
    """The names of the ops the ys depend on through data edges (ys' own included)."""
    seen: set[str] = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
    return seen


def _backward_order(ys: list[Output], xs: list[Output], reach: set[str]) -> dict[str, int]:
    """The position of each op between the xs and the ys in TensorFlow's backward pass
    (first in, first out from the ys' ops; an op is ready once every use of its outputs
    is done): where gradients meet, they are concatenated in this order."""
    between: dict[str, Operation] = {}
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op.name in between or op.name not in reach:
            continue
        between[op.name] = op
        stack.extend(c for out in op.outputs for c in out.consumers())
    pending: dict[str, int] = dict.fromkeys(between, 0)
    for op in between.values():
        for t in op.inputs:
            if t.op.name in between:
                pending[t.op.name] += 1
    queue: deque[Operation] = deque()
    for y in ys:
        if pending.get(y.op.name) == 0 and all(q is not y.op for q in queue):
            queue.append(y.op)
    order: dict[str, int] = {}
    while queue:
        op = queue.popleft()
        order[op.name] = len(order)
        for t in op.inputs:
            if t.op.name in between:
                pending[t.op.name] -= 1
                if pending[t.op.name] == 0:
                    queue.append(t.op)
    return order


def plan(ys: list[Output], groups: list[list[Output]]) -> list[list[Operation] | None]:
    """Per group of xs (whose gradients sum to one result): the gathers the result is
    the rows of, in TensorFlow's order, or None where it is dense (an x is a y, or is
    used otherwise on the way to the ys) or no x reaches the ys."""
    reach = _ancestors(ys)
    y_keys = {(y.op.name, y.value_index) for y in ys}
    order = _backward_order(ys, [x for group in groups for x in group], reach)

    def walk(t: Output, taps: list[tuple[int, list[Operation]]]) -> bool:
        """Adds (position, gathers) per use of `t`; False at a dense use."""
        if (t.op.name, t.value_index) in y_keys:
            return False
        seen: set[str] = set()
        for op in t.consumers():
            if op.name not in reach or op.name in seen:
                continue
            seen.add(op.name)
            for i, inp in enumerate(op.inputs):
                if inp.op is not t.op or inp.value_index != t.value_index:
                    continue
                if op.type in _PASS_THROUGH:
                    inner: list[tuple[int, list[Operation]]] = []
                    if not walk(op.outputs[0], inner):
                        return False
                    taps.append((order.get(op.name, 0), _flat(inner)))
                elif _sparse_use(op, i):
                    taps.append((order.get(op.name, 0), [op]))
                else:
                    return False
        return True

    result: list[list[Operation] | None] = []
    for group in groups:
        taps: list[tuple[int, list[Operation]]] = []
        sparse = all(walk(x, taps) for x in group)
        result.append(_flat(taps) or None if sparse else None)
    return result


def _flat(taps: list[tuple[int, list[Operation]]]) -> list[Operation]:
    return [op for _, ops in sorted(taps, key=lambda p: p[0]) for op in ops]


def _run(g: Graph, op_type: str, inputs: list[Any], attrs: dict[str, Any] | None = None) -> Any:
    return graph_mode.build_op(g, op_type, inputs, attrs or {})[0]


def _rows(g: Graph, gather: Operation, grad: Output) -> IndexedSlices:
    """The gradient `grad` of `gather`'s output as rows of its params (TensorFlow's)."""
    params, indices = gather.inputs[0], gather.inputs[1]
    if gather.type == "ResourceGather":
        shape = _run(g, "VariableShape", [params], {"out_type": dtypes.int32})
    else:
        shape = _run(g, "Shape", [params], {"out_type": dtypes.int32})
    size = _run(g, "ExpandDims", [_run(g, "Size", [indices], {"out_type": dtypes.int32}),
                                  np.int32(0)])
    tail = _run(g, "StridedSlice", [shape, np.array([1], np.int32), np.array([0], np.int32),
                                   np.array([1], np.int32)],
                {"end_mask": 1})
    values_shape = _run(g, "ConcatV2", [[size, tail], np.int32(0)])
    values = _run(g, "Reshape", [grad, values_shape])
    return IndexedSlices(values, _run(g, "Reshape", [indices, size]), shape)


def concat(g: Graph, parts: list[IndexedSlices]) -> IndexedSlices:
    """Sparse gradients of one tensor together: their rows and indices concatenated
    (indices as int64 where their dtypes differ), the first one's dense_shape."""
    if len(parts) == 1:
        return parts[0]
    indices = [p.indices for p in parts]
    if len({i.dtype for i in indices}) > 1:
        indices = [i if i.dtype == dtypes.int64 else
                   _run(g, "Cast", [i], {"DstT": dtypes.int64}) for i in indices]
    return IndexedSlices(_run(g, "ConcatV2", [[p.values for p in parts], np.int32(0)]),
                         _run(g, "ConcatV2", [indices, np.int32(0)]), parts[0].dense_shape)


def from_taps(g: Graph, taps: list[Operation], grads: list[Output | None]) -> Any:
    """The IndexedSlices of a sparse source from its gathers' output gradients (None
    where none reaches the ys), concatenated in the gathers' order."""
    parts = [_rows(g, op, grad) for op, grad in zip(taps, grads) if grad is not None]
    return concat(g, parts) if parts else None


__all__ = ["concat", "from_taps", "plan"]
