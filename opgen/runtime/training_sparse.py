"""The sparse-gradient side of ``opgen.train``: what TensorFlow's v1 optimizers do with
an ``IndexedSlices`` gradient that is not one fused op: summing the rows of repeated
indices first (``Unique`` + ``UnsortedSegmentSum``, as TensorFlow's optimizers do before
every ``ResourceSparseApply*``), and Adam's sparse step, which TensorFlow composes of
ordinary ops (decay all of ``m`` and ``v``, scatter-add the new rows, update the whole
variable), in its order so the results are its bits."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from opgen.runtime import dtypes, eager, graph_mode
from opgen.runtime.graph import Graph, Output
from opgen.runtime.tensor import _convert


def run(op_type: str, inputs: list[Any], attrs: dict[str, Any], graph: Graph | None) -> Any:
    """Runs `op_type` eagerly or builds it in `graph`: its outputs, or the Operation of
    an op without outputs in a graph."""
    if graph is None:
        return eager.execute_eager(op_type, inputs, attrs)
    return graph_mode.build_op(graph, op_type, inputs, attrs)


def run1(op_type: str, inputs: list[Any], graph: Graph | None,
         attrs: dict[str, Any] | None = None) -> Any:
    """The first output of `op_type`."""
    return run(op_type, inputs, attrs or {}, graph)[0]


def after(graph: Graph | None, deps: list[Any]) -> Any:
    """Ops built inside run after `deps` (eagerly everything runs in order anyway)."""
    return contextlib.nullcontext() if graph is None else graph.control_dependencies(deps)


def checked_indices(indices: Any, var: Any, graph: Graph | None) -> Any:
    """An IndexedSlices gradient's indices for `var`: an Output of `graph` (where the
    update is built: `var`'s graph or the function body traced), or a tensor converted
    from what was given; int32 or int64."""
    if isinstance(indices, Output):
        if graph is None or indices.graph is not graph:
            raise ValueError(f"the gradient indices of variable '{var.name}' are an Output of "
                             "another graph")
    else:
        indices = _convert(indices, None, False)
    if indices.dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"the gradient indices of variable '{var.name}' must be int32 or "
                        f"int64, not {indices.dtype.name}")
    return indices


def deduplicate(values: Any, indices: Any, graph: Graph | None) -> tuple[Any, Any]:
    """(`values` with the rows of equal indices summed, the unique indices)."""
    unique, positions = run("Unique", [indices], {}, graph)
    count = run1("Size", [unique], graph)
    return run1("UnsortedSegmentSum", [values, positions, count], graph), unique


def adam_sparse(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any,
                beta1: Any, beta2: Any, epsilon: Any, values: Any, indices: Any,
                graph: Graph | None, use_locking: bool) -> list[Any]:
    """Adam's step for rows `indices`: ``m = beta1 * m`` then ``m[indices] += (1 - beta1) *
    values`` (likewise ``v`` with ``values^2`` and beta2), then ``var -= lr_t * m /
    (sqrt(v) + epsilon)`` over the whole variable; the hyperparameters are scalars of the
    variable's dtype. Returns the ops (in a graph) the step's group waits for."""
    one = _one(var.dtype)
    lr_t = run1("RealDiv", [run1("Mul", [lr, run1("Sqrt", [run1("Sub", [one, beta2_power],
                                                                  graph)], graph)], graph),
                            run1("Sub", [one, beta1_power], graph)], graph)
    m_rows = run1("Mul", [values, run1("Sub", [one, beta1], graph)], graph)
    m_t = _scale_then_scatter_add(m, beta1, indices, m_rows, graph)
    v_rows = run1("Mul", [run1("Mul", [values, values], graph),
                          run1("Sub", [one, beta2], graph)], graph)
    v_t = _scale_then_scatter_add(v, beta2, indices, v_rows, graph)
    step = run1("RealDiv", [run1("Mul", [lr_t, m_t], graph),
                            run1("AddV2", [run1("Sqrt", [v_t], graph), epsilon], graph)], graph)
    update = var.assign_sub(step, use_locking=use_locking, read_value=False)
    return [update, m_t, v_t] if graph is not None else []


def _scale_then_scatter_add(slot: Any, decay: Any, indices: Any, rows: Any,
                            graph: Graph | None) -> Any:
    """``slot = decay * slot; slot[indices] += rows``: the slot's value after both."""
    scaled = slot.assign(run1("Mul", [slot.read_value(), decay], graph), read_value=False)
    with after(graph, [scaled]):
        added = run("ResourceScatterAdd", [slot.handle, indices, rows], {}, graph)
    with after(graph, [added]):
        return slot.read_value()


def _one(dtype: Any) -> Any:
    """The constant 1 of `dtype` (numpy: an eager operand or a graph Const alike)."""
    return np.asarray(1, dtype.numpy_dtype)
