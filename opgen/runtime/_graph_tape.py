"""A GradientTape used while building a graph: inside ``opgen.function`` (the training
step ``@tf.function`` users write) or a ``Graph.as_default()`` block.

Nothing is recorded op by op there: the ops the tape should differentiate are the graph's
own nodes, the ones added while it was active. ``gradient()`` asks the one gradient
registry for symbolic gradients (``opgen.gradients``) of the target with respect to the
sources as the tape saw them: a watched Output itself; a variable through its reads made
while the tape was active (a read of a captured eager variable, or a graph variable's
read), so reads before the tape do not count, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgen.runtime import dtypes, gradients_impl, graph_mode, variables
from opgen.runtime.graph import Graph, Output
from opgen.runtime.indexed_slices import IndexedSlices, to_dense

# The ops that read a variable through a handle given as input 0.
_READS = frozenset({"ReadVariableOp", "ResourceGather"})


class GraphTapeState:
    """What a tape needs in graph mode: the graph, the span of its operations added while
    the tape was active, and the Outputs it watches."""

    def __init__(self, g: Graph) -> None:
        self.graph = g
        self.start = len(g.get_operations())
        self.end: int | None = None  # set when the tape's block ends
        self.watched: list[Output] = []

    def watch(self, value: Output) -> None:
        if value.graph is not self.graph:
            raise ValueError(f"GradientTape.watch: {value.name} is not of the graph the tape "
                             "records")
        if not any(value is w for w in self.watched):
            self.watched.append(value)

    @staticmethod
    def _reads_of(value: Output, span: list[Any]) -> bool:
        return any(i is value for op in span for i in op.inputs)

    def _span(self) -> list[Any]:
        ops = self.graph.get_operations()
        return ops[self.start:self.end]

    def _variable_reads(self, variable: variables.Variable, span: list[Any]) -> list[Any]:
        g = self.graph
        reads: list[Any] = []
        if variable.graph is g:
            handle: Any = variable.handle
            # a graph variable's value() is the read built with it, before any tape
            value: Any = variable.value()
            if self._reads_of(value, span):
                reads.append(value)
        else:
            handle = g.capture_variable(variable) if hasattr(g, "capture_variable") else None
            if handle is None:
                return []
            if handle.dtype != dtypes.resource:  # traced with variables as values
                return [handle] if self._reads_of(handle, span) else []
        for op in span:
            if op.type in _READS and op.inputs and op.inputs[0] is handle:
                reads.append(op.outputs[0])
        return reads

    def watched_variables(self, watch_accessed: bool) -> list[variables.Variable]:
        """The trainable variables read while the tape was active."""
        if not watch_accessed:
            return []
        span = self._span()
        found: dict[int, variables.Variable] = {}
        handles = {op.inputs[0] for op in span if op.type in _READS and op.inputs}
        candidates = list(variables._graph_variables.get(self.graph, []))
        for _, ref, _ in getattr(self.graph, "eager_captures", ()):
            v = ref()
            if v is not None:
                candidates.append(v)
        for v in candidates:
            if not v.trainable or id(v) in found:
                continue
            if v.graph is self.graph:
                value: Any = v.value()
                if v.handle in handles or self._reads_of(value, span):
                    found[id(v)] = v
            elif self._variable_reads(v, span):
                found[id(v)] = v
        return list(found.values())

    def gradient(self, targets: list, sources: list, grad_ys: list | None,
                 watch_accessed: bool, explicit: set[int]) -> list:
        """One gradient per source: None where the tape did not see the source or the
        target does not depend on it."""
        span = self._span()
        groups: list[list[Output]] = []
        for s in sources:
            if isinstance(s, variables.Variable):
                seen = (watch_accessed and s.trainable) or id(s) in explicit
                groups.append(self._variable_reads(s, span) if seen else [])
            elif isinstance(s, Output):
                groups.append([s] if any(s is w for w in self.watched) else [])
            else:
                raise TypeError(f"GradientTape.gradient: sources in a graph are Outputs or "
                                f"Variables, got {type(s).__name__}")
        wanted = [i for i, group in enumerate(groups) if group]
        results: list = [None] * len(groups)
        if wanted:
            found = gradients_impl.grouped(targets, [groups[i] for i in wanted], grad_ys)
            for i, r in zip(wanted, found):
                results[i] = r
        return results

    def jacobian(self, target: Output, sources: list, watch_accessed: bool,
                 explicit: set[int]) -> list:
        """d target[i...] / d source[j...], shaped target.shape + source.shape: one
        gradient per element of `target` (whose shape must be static), stacked."""
        shape = target.shape
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"GradientTape.jacobian in a graph needs a target of static "
                             f"shape, got {target.name} of shape {shape}")
        n = 1
        for d in shape:
            n *= int(d or 0)
        np_dtype = target.dtype.numpy_dtype
        rows = []
        for i in range(n):
            one_hot = np.zeros(n, np_dtype)
            one_hot[i] = 1
            rows.append(self.gradient([target], sources, [one_hot.reshape(shape)],
                                      watch_accessed, explicit))
        results: list = []
        g = self.graph
        for k, source in enumerate(sources):
            parts = [row[k] for row in rows]
            if n and any(p is None for p in parts):
                results.append(None)
                continue
            source_shape = source.shape
            dense = [graph_mode.build_op(g, "Reshape", [to_dense(p), np.array([-1], np.int32)],
                                         {})[0]
                     if isinstance(p, IndexedSlices) else p for p in parts]
            stacked = graph_mode.build_op(g, "Pack", [dense], {"axis": 0})[0] if n else None
            full = [*shape, *(source_shape or ())]
            results.append(graph_mode.build_op(g, "Reshape", [stacked, np.array(full, np.int32)],
                                               {})[0]
                           if stacked is not None else np.zeros(full, np_dtype))
        return results
