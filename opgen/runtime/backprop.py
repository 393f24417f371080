"""``opgen.GradientTape``: eager gradients through the same gradient functions as graphs.

While a tape is active on a thread, the ops run eagerly there (through ``execute_op``:
the generated ops and the Tensor operators) that take a tensor the tape tracks (watched,
a variable's read, or computed from those) are recorded with their inputs, attrs and
outputs, and reads of eager ``opgen.Variable``s are noted. ``gradient()`` turns the
record into a graph (opgen.runtime._tape_program: tensors from outside the record and
the variable reads become placeholders), asks the runtime for the gradients
(TF_AddGradients: the one registry) and runs them; the graph is built once per record
structure. A ``gradient`` call made while other tapes record is itself recorded on
them, so their replay differentiates it again: second derivatives.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from opgen.runtime import _graph_tape, _tape_program, dtypes, eager, errors, graph, graph_mode, variables
from opgen.runtime._opplan import registry
from opgen.runtime.constant_op import constant
from opgen.runtime.indexed_slices import IndexedSlices, to_dense
from opgen.runtime.tensor import Tensor

_state = threading.local()  # the active tapes of this thread


def _tapes() -> list[GradientTape]:
    tapes = getattr(_state, "tapes", None)
    if tapes is None:
        tapes = _state.tapes = []
    return tapes


_installed = [0]  # tapes active in all threads together
_lock = threading.Lock()


def _dispatch(op_type: str, inputs: Any, attrs: dict, name: str | None = None) -> Any:
    """execute_op while a tape is active somewhere: graph mode where this thread has a
    default graph, else eager execution, recorded by this thread's tapes."""
    if graph.thread_has_default_graph():
        return graph_mode.dispatch(op_type, inputs, attrs, name)
    inputs = _read_variables(op_type, inputs)
    result = eager.execute_eager(op_type, inputs, attrs, name)
    tapes = [t for t in _tapes() if t._recording]
    if tapes and op_type in _HANDLE_READS:
        _record_handle_read(tapes, op_type, inputs, attrs, result)
    elif tapes and _touches(tapes, inputs) and not _stateful(op_type):
        outputs = []
        for r in result:
            if isinstance(r, list):
                outputs.extend(r)
            else:
                outputs.append(r)
        for t in tapes:
            t._record(op_type, inputs, attrs, outputs)
    return result


# The ops that read a variable through its handle (input 0). A tape that watches the
# variable records them as a read of it (then, for ResourceGather, a GatherV2 of that
# read; for ResourceGatherNd, a GatherNd): the record holds no handles, and the replay reads no variable, whose value may
# have changed since. Ops that write through a handle are stateful: not replayed.
_HANDLE_READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd"})


def _record_handle_read(tapes: list, op_type: str, inputs: Any, attrs: dict,
                        result: Any) -> None:
    watching = [t for t in tapes if id(inputs[0]) in t._handles]
    if not watching:
        return
    variable = watching[0]._handles[id(inputs[0])]
    if op_type == "ReadVariableOp":
        read = result[0]
    else:  # copy-on-write: the read shares the variable's buffer
        read = eager.execute_eager("ReadVariableOp", [inputs[0]], {"dtype": attrs["dtype"]})[0]
    for t in watching:
        t._variable_read(variable, read)
        if op_type == "ResourceGather":
            t._record("GatherV2", [read, inputs[1], 0],
                      {"batch_dims": attrs.get("batch_dims", 0)}, [result[0]])
        elif op_type == "ResourceGatherNd":
            t._record("GatherNd", [read, inputs[1]], {}, [result[0]])


def _read_variables(op_type: str, inputs: Any) -> Any:
    """`inputs` with each Variable (also inside list inputs) replaced by its value, read
    now (the tapes note the read): the op then takes the fast path, and the record
    holds the tensor the op used. A resource input keeps the Variable (it fails there
    as it does without a tape)."""
    out = None
    resource = _resource_inputs(op_type)
    for i, v in enumerate(inputs):
        if i in resource:
            continue
        if isinstance(v, variables.Variable):
            new: Any = v.value()
        elif isinstance(v, (list, tuple)) and any(isinstance(e, variables.Variable) for e in v):
            new = [e.value() if isinstance(e, variables.Variable) else e for e in v]
        else:
            continue
        if out is None:
            out = list(inputs)
        out[i] = new
    return inputs if out is None else out


def _touches(tapes: list, inputs: Any) -> bool:
    """Whether an input is a tensor some tape tracks (only such ops are recorded)."""
    for v in inputs:
        for e in (v if isinstance(v, (list, tuple)) else (v,)):
            k = id(e)
            for t in tapes:
                if k in t._tracked:
                    return True
    return False


_stateful_ops: dict[str, bool] = {}
_resource_args: dict[str, frozenset] = {}


def _resource_inputs(op_type: str) -> frozenset:
    """The positions of `op_type`'s resource inputs (its variable handles)."""
    known = _resource_args.get(op_type)
    if known is None:
        try:
            args = registry.plan(op_type).op_def.input_arg
        except errors.NotFoundError:  # an unknown op: execute_eager reports it
            args = []
        known = _resource_args[op_type] = frozenset(
            i for i, a in enumerate(args) if a.type == dtypes.resource.as_datatype_enum)
    return known


def _stateful(op_type: str) -> bool:
    """Stateful ops (random numbers, variable updates) are not replayed: a replay would
    draw new numbers or write again; their outputs are fed as recorded instead."""
    known = _stateful_ops.get(op_type)
    if known is None:
        known = _stateful_ops[op_type] = bool(registry.plan(op_type).op_def.is_stateful)
    return known


def _restore_dispatch() -> None:
    eager.set_graph_dispatch(graph_mode.dispatch if graph._graph_mode_depth > 0 else None)


def _graph_mode_changed(active: bool) -> None:
    if _installed[0] == 0:
        _restore_dispatch()


graph._graph_mode_hook = _graph_mode_changed


def _on_variable_read(variable: Any, value: Tensor) -> None:
    for tape in _tapes():
        tape._variable_read(variable, value)


variables._read_hooks.append(_on_variable_read)


def _on_variable_access(variable: Any) -> None:
    for tape in _tapes():
        tape._variable_accessed(variable)


variables._access_hooks.append(_on_variable_access)


def _flatten(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _flatten(v)]
    return [value]


class GradientTape:
    """Records eager operations to differentiate them (TensorFlow's ``tf.GradientTape``)::

        v = opgen.Variable([1.0, 2.0])
        x = opgen.constant(3.0)
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = opgen.ops.sum(v * x * x, [0])
        dv, dx = tape.gradient(y, [v, x])

    Trainable variables read inside the block are watched automatically
    (`watch_accessed_variables`); other tensors with :meth:`watch`. A tape that is not
    `persistent` gives one :meth:`gradient` call. Tapes nest: a tape active while an
    inner tape's ``gradient`` runs records that call, so differentiating its result
    gives second derivatives.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._graph_state: _graph_tape.GraphTapeState | None = None
        self._persistent = persistent
        self._watch_variables = watch_accessed_variables
        self._recording = False
        self._active = False
        self._clear()

    def _clear(self) -> None:
        self._records: list[tuple[str | None, Any, Any, list]] = []
        self._watched: dict[int, Tensor] = {}
        self._variable_reads: dict[int, list[Tensor]] = {}  # id(variable) -> its reads
        self._variables: dict[int, Any] = {}
        self._handles: dict[int, Any] = {}  # id(watched variable's handle) -> variable
        # ids of the tensors whose ops are recorded: watched, read, computed from those
        # (each is held by the lists above, so an id is not reused while here)
        self._tracked: set[int] = set()
        self._used = False

    def __enter__(self) -> GradientTape:
        if self._active:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        g = graph_mode._thread_graph()
        if g is not None:  # building a graph (a traced function): its nodes are the record
            self._graph_state = _graph_tape.GraphTapeState(g)
            self._recording = self._active = True
            return self
        self._graph_state = None
        _tapes().append(self)
        self._recording = self._active = True
        with _lock:
            _installed[0] += 1
            eager.set_graph_dispatch(_dispatch)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._graph_state is not None:
            self._graph_state.end = len(self._graph_state.graph.get_operations())
            self._recording = self._active = False
            return
        tapes = _tapes()
        if self in tapes:
            tapes.remove(self)
        self._recording = self._active = False
        with _lock:
            _installed[0] -= 1
            if _installed[0] == 0:
                _restore_dispatch()

    # ---- recording ----

    def watch(self, tensor: Any) -> None:
        """Marks eager Tensors (or Variables, or lists of them) as sources."""
        for t in _flatten(tensor):
            if self._graph_state is not None and isinstance(t, graph.Output):
                self._graph_state.watch(t)
            elif isinstance(t, variables.Variable):
                self._watch_variable(t)
                self._variable_reads.setdefault(id(t), [])
            elif isinstance(t, Tensor):
                self._watched[id(t)] = t
                self._tracked.add(id(t))
            else:
                raise TypeError(f"GradientTape.watch takes eager Tensors or Variables (Outputs "
                                f"while building a graph), got {type(t).__name__}")

    @contextmanager
    def stop_recording(self) -> Iterator[None]:
        """A block whose ops this tape does not record (TensorFlow's
        ``tape.stop_recording()``); the tape must be active."""
        if not self._recording:
            raise ValueError("Tape.stop_recording() can only be called inside a tape "
                             "context that is recording")
        self._recording = False
        try:
            yield
        finally:
            self._recording = True

    def reset(self) -> None:
        """Forgets everything recorded and watched, as if the tape were new (it goes on
        recording when inside its ``with`` block)."""
        self._clear()

    def _record(self, op_type: str | None, inputs: Any, attrs: Any, outputs: list) -> None:
        # (an op's Variable inputs were replaced by their reads before it ran)
        self._records.append((op_type, inputs, attrs, outputs))
        self._tracked.update(id(t) for t in outputs if t is not None)

    def _variable_read(self, variable: Any, value: Tensor) -> None:
        if not self._recording:
            return
        if id(variable) not in self._variables:
            if not (self._watch_variables and getattr(variable, "trainable", True)):
                return
            self._watch_variable(variable)
        self._variable_reads.setdefault(id(variable), []).append(value)
        self._tracked.add(id(value))

    def _variable_accessed(self, variable: Any) -> None:
        """`variable` used through its handle: watched as a read would watch it."""
        if self._recording and id(variable) not in self._variables and (
                self._watch_variables and getattr(variable, "trainable", True)):
            self._watch_variable(variable)
            self._variable_reads.setdefault(id(variable), [])

    def _watch_variable(self, variable: Any) -> None:
        self._variables[id(variable)] = variable
        if variable.graph is None:  # an eager handle: ops taking it read the variable
            self._handles[id(variable.handle)] = variable

    def watched_variables(self) -> tuple:
        """The variables this tape watches (read while recording, or watched)."""
        if self._graph_state is not None:
            accessed = self._graph_state.watched_variables(self._watch_variables)
            return tuple({id(v): v for v in [*self._variables.values(), *accessed]}.values())
        return tuple(self._variables.values())

    # ---- differentiating ----

    def _source_groups(self, source_list: list) -> list[list[Tensor]]:
        groups = []
        for s in source_list:
            if isinstance(s, variables.Variable):
                groups.append(list(self._variable_reads.get(id(s), ())))
            elif isinstance(s, Tensor):
                groups.append([s] if id(s) in self._tracked else [])
            else:
                raise TypeError(f"GradientTape.gradient: sources are eager Tensors or "
                                f"Variables, got {type(s).__name__}")
        return groups

    def _check_use(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute "
                               "one set of gradients (or jacobians)")
        self._used = True

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None) -> Any:
        """d(sum of `target`)/d(source) for each source (same structure as `sources`:
        one value or a list); None for a source the target does not depend on, an
        ``opgen.IndexedSlices`` (as TensorFlow's) for one read only through gathers.
        `output_gradients` (one per target) weight the targets instead of ones."""
        self._check_use()
        single = not isinstance(sources, (list, tuple))
        source_list = [sources] if single else list(sources)
        targets = _flatten(target)
        grad_ys = None
        if output_gradients is not None:
            given = _flatten(output_gradients)
            if len(given) != len(targets):
                raise ValueError(f"GradientTape.gradient: {len(given)} output_gradients for "
                                 f"{len(targets)} targets")
            grad_ys = [g if isinstance(g, (Tensor, graph.Output)) else constant(g, dtype=t.dtype)
                       for g, t in zip(given, targets)]
        if self._graph_state is not None:
            results = self._graph_state.gradient(targets, source_list, grad_ys,
                                                 self._watch_variables, set(self._variables))
            return results[0] if single else results
        results = self._gradients(targets, source_list, grad_ys)
        if not self._persistent:
            self._clear_records()
        return results[0] if single else results

    def jacobian(self, target: Any, sources: Any) -> Any:
        """d target[i...] / d source[j...] for each source: shaped target.shape +
        source.shape (None for a source the target does not depend on), one gradient
        per element of `target` (all through one compiled graph)."""
        self._check_use()
        single = not isinstance(sources, (list, tuple))
        source_list = [sources] if single else list(sources)
        if self._graph_state is not None:
            symbolic = self._graph_state.jacobian(target, source_list, self._watch_variables,
                                                  set(self._variables))
            return symbolic[0] if single else symbolic
        if not isinstance(target, Tensor):
            raise TypeError(f"GradientTape.jacobian: the target is one eager Tensor, got "
                            f"{type(target).__name__}")
        n = int(np.prod(target.shape, dtype=np.int64))
        np_dtype = target.dtype.numpy_dtype
        rows: list[list] = []
        for i in range(n):
            one_hot = np.zeros(n, np_dtype)
            one_hot[i] = 1
            rows.append(self._gradients([target], source_list,
                                        [constant(one_hot.reshape(target.shape))]))
        results: list[Any] = []
        for k, s in enumerate(source_list):
            parts = [row[k] for row in rows]
            if n and any(p is None for p in parts):
                results.append(None)
                continue
            shape = tuple(target.shape) + tuple(s.shape)
            source_dtype = s.dtype.numpy_dtype
            stacked = (np.stack([np.asarray(p) for p in parts]) if n
                       else np.zeros(shape, source_dtype))
            results.append(constant(stacked.reshape(shape)))
        if not self._persistent:
            self._clear_records()
        return results[0] if single else results

    def _clear_records(self) -> None:
        self._records.clear()

    def _gradients(self, targets: list, source_list: list, grad_ys: list | None) -> list:
        groups = self._source_groups(source_list)
        # the tensors recorded while the tape was on: read first, then watched, then ops
        program = _tape_program.trace(list(self._variable_reads.values()),
                                      list(self._watched.values()), self._records,
                                      targets, groups, grad_ys)
        if not any(s is not None for s in program.result[0]):
            results: list = [None] * len(groups)  # the target is not on the tape
        else:
            results = _tape_program.compiled(program).run(program.feeds)
        return self._record_on_outer_tapes(targets, groups, grad_ys, results)

    def _record_on_outer_tapes(self, targets: list, groups: list, grad_ys: Any,
                               results: list) -> list:
        """Records this gradient call on the active tapes that see its inputs, so an
        outer tape differentiates through it (second derivatives); `results` then are
        dense (an outer tape replays the call as dense gradients)."""
        tapes = [t for t in _tapes() if t._recording and (t is not self or self._persistent)]
        if not tapes:
            return results
        flat = targets + [x for group in groups for x in group] + (grad_ys or [])
        if any(id(x) in t._tracked for t in tapes for x in flat):
            results = [to_dense(r) if isinstance(r, IndexedSlices) else r for r in results]
            for t in tapes:
                t._record(None, (targets, groups, grad_ys), None, results)
        return results


__all__ = ["GradientTape"]
