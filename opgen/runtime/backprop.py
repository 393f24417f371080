"""``opgen.GradientTape``: eager gradients through the same gradient functions as graphs.

While a tape is active on a thread, every op run eagerly there (through ``execute_op``:
the generated ops and the Tensor operators) is recorded with its inputs, attrs and
outputs, and reads of eager ``opgen.Variable``s are noted. ``gradient()`` replays the
recorded ops that lie between the sources and the target into a fresh graph (tensors
from outside the tape become placeholders fed with their values; a variable's reads
become placeholders too, since the graph's session does not hold the eager variable),
asks the runtime for the gradients (TF_AddGradients: the one registry), and runs them.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from opgen.runtime import eager, graph, graph_mode, variables
from opgen.runtime.constant_op import constant
from opgen.runtime.gradients_impl import gradients as _graph_gradients
from opgen.runtime.graph import Graph, Output
from opgen.runtime.session import Session
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
    result = eager.execute_eager(op_type, inputs, attrs, name)
    for tape in _tapes():
        tape._record(op_type, inputs, attrs, result)
    return result


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
    `persistent` gives one :meth:`gradient` call.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_variables = watch_accessed_variables
        self._records: list[tuple[str, Any, dict, list]] = []
        self._watched: dict[int, Tensor] = {}
        self._variable_reads: dict[int, list[Tensor]] = {}  # id(variable) -> its reads
        self._variables: dict[int, Any] = {}
        self._recording = False
        self._used = False

    def __enter__(self) -> GradientTape:
        _tapes().append(self)
        self._recording = True
        with _lock:
            _installed[0] += 1
            eager.set_graph_dispatch(_dispatch)
        return self

    def __exit__(self, *exc: object) -> None:
        tapes = _tapes()
        if self in tapes:
            tapes.remove(self)
        self._recording = False
        with _lock:
            _installed[0] -= 1
            if _installed[0] == 0:
                _restore_dispatch()

    # ---- recording ----

    def watch(self, tensor: Any) -> None:
        """Marks eager Tensors (or Variables, or lists of them) as sources."""
        for t in _flatten(tensor):
            if isinstance(t, variables.Variable):
                self._variables[id(t)] = t
                self._variable_reads.setdefault(id(t), [])
            elif isinstance(t, Tensor):
                self._watched[id(t)] = t
            else:
                raise TypeError(f"GradientTape.watch takes eager Tensors or Variables, got "
                                f"{type(t).__name__}")

    def _record(self, op_type: str, inputs: Any, attrs: dict, result: Any) -> None:
        if not self._recording:
            return

        def as_read(value: Any) -> Any:
            # A Variable input was read just before the op ran: that read is the input.
            if isinstance(value, (list, tuple)):
                return [as_read(v) for v in value]
            if isinstance(value, variables.Variable):
                reads = self._variable_reads.get(id(value))
                if reads:
                    return reads[-1]
            return value

        self._records.append((op_type, [as_read(v) for v in inputs], dict(attrs),
                              _flatten(result)))

    def _variable_read(self, variable: Any, value: Tensor) -> None:
        if not self._recording:
            return
        if id(variable) not in self._variables:
            if not (self._watch_variables and getattr(variable, "trainable", True)):
                return
            self._variables[id(variable)] = variable
        self._variable_reads.setdefault(id(variable), []).append(value)

    def watched_variables(self) -> tuple:
        return tuple(self._variables.values())

    # ---- differentiating ----

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None) -> Any:
        """d(sum of `target`)/d(source) for each source (same structure as `sources`:
        one value or a list); None for a source the target does not depend on."""
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute "
                               "one set of gradients (or jacobians)")
        self._used = True
        single = not isinstance(sources, (list, tuple))
        source_list = [sources] if single else list(sources)
        targets = _flatten(target)

        g = Graph()
        mapped: dict[int, Output] = {}
        feeds: dict[Output, np.ndarray] = {}
        keep: list[Any] = []  # the tensors whose ids key `mapped`
        captured: set[int] = set()  # tensors from outside the tape, not watched

        def placeholder(t: Tensor, name: str) -> Output:
            ph = graph_mode.build_op(g, "Placeholder", [], {"dtype": t.dtype,
                                                            "shape": list(t.shape)}, name)[0]
            feeds[ph] = t.numpy()
            mapped[id(t)] = ph
            keep.append(t)
            return ph

        with g.as_default():
            read_phs: dict[int, list[Output]] = {}
            for key, reads in self._variable_reads.items():
                read_phs[key] = [placeholder(r, "read") for r in reads]
            for t in list(self._watched.values()):
                placeholder(t, "watched")
            for op_type, inputs, attrs, outputs in self._records:
                def convert(value: Any) -> Any:
                    if isinstance(value, (list, tuple)):
                        return [convert(v) for v in value]
                    if isinstance(value, variables.Variable):
                        return value
                    if isinstance(value, Tensor):
                        out = mapped.get(id(value))
                        if out is None:
                            captured.add(id(value))
                            out = placeholder(value, "captured")
                        return out
                    return value
                built = graph_mode.build_op(g, op_type, [convert(v) for v in inputs], attrs)
                for t, out in zip(outputs, _flatten(built)):
                    if isinstance(t, Tensor) and isinstance(out, Output):
                        mapped[id(t)] = out
                        keep.append(t)
            ys = []
            for t in targets:
                if id(t) not in mapped:
                    raise ValueError("GradientTape.gradient: the target was not computed "
                                     "while the tape recorded")
                ys.append(mapped[id(t)])
            xs: list[Output] = []
            slots: list[tuple[int, int]] = []
            for s in source_list:
                if isinstance(s, variables.Variable):
                    phs = read_phs.get(id(s), [])
                    slots.append((len(xs), len(phs)))
                    xs.extend(phs)
                elif isinstance(s, Tensor):
                    on_tape = id(s) in mapped and id(s) not in captured
                    slots.append((len(xs), 1 if on_tape else 0))
                    if on_tape:
                        xs.append(mapped[id(s)])
                else:
                    raise TypeError(f"GradientTape.gradient: sources are eager Tensors or "
                                    f"Variables, got {type(s).__name__}")
            grad_ys = None
            if output_gradients is not None:
                grad_ys = [np.asarray(getattr(v, "numpy", lambda v=v: v)())
                           for v in _flatten(output_gradients)]
            grads = _graph_gradients(ys, xs, grad_ys=grad_ys) if xs else []
        fetch = [gr for gr in grads if gr is not None]
        values = iter(Session(g).run(fetch, feeds) if fetch else [])
        computed = [None if gr is None else next(values) for gr in grads]
        results: list[Any] = []
        for start, count in slots:
            parts = [c for c in computed[start:start + count] if c is not None]
            results.append(constant(sum(parts[1:], parts[0])) if parts else None)
        if not self._persistent:
            self._records.clear()
        return results[0] if single else results


__all__ = ["GradientTape"]
