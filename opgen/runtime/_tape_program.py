"""A GradientTape's record as a program, and the gradient graph built from it once.

:func:`trace` walks what a tape recorded (variable reads, watched tensors, ops, nested
``gradient`` calls) and the requested target/sources, and numbers every tensor it meets
("slots"). Tensors the walk meets first as inputs become feeds. What comes out is
`feeds` (the tensors whose values this step supplies) and `key`, a hashable description
of everything the graph depends on: op types, attrs, constant inputs, which slot feeds
which input, the feeds' dtypes and shapes. Equal keys give equal graphs, so
:func:`compiled` builds the graph (the record replayed, ``TF_AddGradients`` on it) and
its Session once per key; a later training step of the same structure only feeds
values and runs.
"""

from __future__ import annotations

import ctypes
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from opgen.protos import attr_value_pb2
from opgen.runtime import _lib, gradients_impl, graph_mode
from opgen.runtime.dtypes import DType
from opgen.runtime.errors import raise_for_status
from opgen.runtime.graph import Graph, Output
from opgen.runtime.indexed_slices import IndexedSlices, to_dense
from opgen.runtime.session import Session
from opgen.runtime.tensor import Tensor

# Called as add(graph, function_name) before a recorded function call is replayed
# (opgen.runtime.functions registers the one that knows the traced functions).
function_adders: list[Callable[[Graph, str], None]] = []

# (ops, build) pairs: a recorded op whose type is in `ops` is added to a gradient graph
# by build(graph, op_type, inputs, replay) (opgen.runtime.functions registers the stubs
# of split function calls); `replay` is set where the graph has a nested gradient.
op_builders: list[tuple[Any, Callable[[Graph, str, list, bool], list]]] = []

_MAX_GRAPHS = 64  # compiled gradient graphs kept (least recently used dropped)


class _Const:
    """A non-tensor input (a Python number, a shape list, numpy data): a Const node."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value


def _freeze(value: Any) -> Any:
    """A hashable stand-in for an attr or constant input that tells values apart by
    type too (1, 1.0 and True are equal in Python but not as op inputs)."""
    if isinstance(value, np.ndarray):
        return ("a", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float):  # by bits: -0.0 is not 0.0, a NaN is itself
        return (float, value.hex())
    if isinstance(value, np.generic):
        return (type(value), value.tobytes())
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, *[_freeze(v) for v in value])
    try:
        hash(value)
    except TypeError:
        return ("r", repr(value))
    return (type(value), value)


class Program:
    """The walk's result: `key`, `feeds` (Tensors, in slot order among the feeds) and
    the build steps (with the original constant values) for a cache miss."""

    __slots__ = ("key", "feeds", "steps", "result")

    def __init__(self) -> None:
        self.key: Any = None
        self.feeds: list[Tensor] = []
        self.steps: list[tuple] = []
        self.result: tuple = ()


def _attrs_key(attrs: dict) -> tuple:
    # Equal attr values build equal nodes whatever their Python type (the OpDef fixes
    # each attr's kind), so plain equality keys them; lists become tuples.
    # DTypes by their enum: plain ints hash and compare without a Python-level call.
    items = tuple((k, tuple(v) if type(v) is list else
                   v.as_datatype_enum if type(v) is DType else v) for k, v in attrs.items())
    try:
        hash(items)
    except TypeError:
        return tuple((k, _freeze(v)) for k, v in attrs.items())
    return items


def trace(read_groups: list[list[Tensor]], watched: list[Tensor], records: list[tuple],
          targets: list[Tensor], source_groups: list[list[Tensor]],
          output_gradients: list[Tensor] | None) -> Program:
    """The program of one ``gradient`` call. `records` hold ``(op_type, inputs, attrs,
    outputs)`` for an op and ``(None, (targets, source_groups, output_gradients), None,
    outputs)`` for a nested gradient call; a source group is the tensors whose
    gradients sum to one result (a variable's reads). ``result`` holds None in the
    target slots for targets the record never met."""
    program = Program()
    slots: dict[int, int] = {}  # id(tensor) -> slot
    steps, feeds = program.steps, program.feeds
    key: list[Any] = []
    count = 0

    def feed(t: Tensor) -> int:
        nonlocal count
        slot = slots[id(t)] = count
        count += 1
        feeds.append(t)
        steps.append(("F", t._dtype, t._shape))
        key.append((t._dtype.as_datatype_enum, t._shape))
        return slot

    def refs_of(values: Any) -> tuple[list, tuple]:
        """(what _build reads, what the key holds) for a list of inputs."""
        built: list[Any] = []
        keyed: list[Any] = []
        for v in values:
            if isinstance(v, Tensor):
                slot = slots.get(id(v))
                if slot is None:
                    slot = feed(v)
                built.append(slot)
                keyed.append(slot)
            elif isinstance(v, (list, tuple)):
                b, k = refs_of(v)
                built.append(b)
                keyed.append(k)
            else:
                built.append(_Const(v))
                keyed.append(("c", _freeze(v)))
        return built, tuple(keyed)

    for group in read_groups:
        for t in group:
            feed(t)
    for t in watched:
        if id(t) not in slots:
            feed(t)
    for op_type, inputs, attrs, outputs in records:
        if op_type is None:  # a nested gradient call
            ys, groups, grad_ys = inputs
            y_refs, y_key = refs_of(ys)
            group_refs = [refs_of(g) for g in groups]
            g_refs, g_key = refs_of(grad_ys) if grad_ys is not None else (None, None)
            steps.append(("G", y_refs, [r for r, _ in group_refs], g_refs))
            key.append(("G", y_key, tuple(k for _, k in group_refs), g_key))
        else:
            refs, ref_key = refs_of(inputs)
            steps.append(("O", op_type, refs, attrs, len(outputs)))
            key.append((op_type, ref_key, _attrs_key(attrs)))
        for t in outputs:
            if t is not None:
                slots[id(t)] = count
            count += 1
    target_slots = [slots.get(id(t)) for t in targets]
    groups = [[slots[id(t)] for t in group if id(t) in slots] for group in source_groups]
    grads, grads_key = refs_of(output_gradients) if output_gradients is not None else (None, None)
    program.result = (target_slots, groups, grads)
    key.append(("Y", tuple(target_slots), tuple(tuple(g) for g in groups), grads_key,
                gradients_impl.generation()))
    program.key = tuple(key)
    return program


# ---- building and running ----------------------------------------------------------------

class Compiled:
    """A program's gradient graph: its Session, feed placeholders and fetches. A run
    hands the eager tensors' own buffers to ``TF_SessionRun`` and takes the results
    as eager Tensors: no copies through numpy either way."""

    __slots__ = ("session", "placeholders", "fetches", "layout", "_c_inputs", "_c_outputs",
                 "_inputs_type", "_outputs_type", "_run")

    def __init__(self, session: Session, placeholders: list[Output], fetches: list[Output],
                 layout: list[int | tuple[int, int, int] | None]):
        self.session = session
        self.placeholders = placeholders
        self.fetches = fetches
        # per source group: its index among fetches, its IndexedSlices' three, or None
        self.layout = layout
        self._c_inputs = (_lib.TF_Output * max(len(placeholders), 1))(
            *[p._c for p in placeholders])
        self._c_outputs = (_lib.TF_Output * max(len(fetches), 1))(*[f._c for f in fetches])
        self._inputs_type = ctypes.c_void_p * max(len(placeholders), 1)
        self._outputs_type = ctypes.c_void_p * max(len(fetches), 1)
        self._run = _lib.graph_lib().TF_SessionRun

    def run(self, feeds: list[Tensor]) -> list[Tensor | IndexedSlices | None]:
        n_out = len(self.fetches)
        if not n_out:
            return [None] * len(self.layout)
        inputs = self._inputs_type(*[t._tensor for t in feeds])
        outputs = self._outputs_type()
        status = _lib.thread_status()
        c_session = self.session._acquire()
        try:
            self._run(c_session, None, self._c_inputs, inputs, len(feeds), self._c_outputs,
                      outputs, n_out, None, 0, None, status.ptr)
        finally:
            self.session._release()
        values = [Tensor._from_tf_tensor(t) for t in outputs[:n_out] if t]
        raise_for_status(status)
        return [None if i is None else values[i] if isinstance(i, int) else
                IndexedSlices(values[i[0]], values[i[1]], values[i[2]]) for i in self.layout]


def _grads(g: Graph, ys: list, groups: list[list], grad_ys: list | None) -> list:
    """Per group of xs, the sum of their gradients of sum(ys) in `g` (None: none)."""
    if not any(groups) or any(y is None for y in ys):
        return [None] * len(groups)
    return gradients_impl.grouped(ys, groups, grad_ys=grad_ys)


def _build(program: Program) -> Compiled:
    g = Graph()
    table: list[Any] = []
    placeholders: list[Output] = []

    def value(refs: Any) -> Any:
        if isinstance(refs, list):
            return [value(r) for r in refs]
        if isinstance(refs, _Const):
            return refs.value
        return table[refs]

    nested = any(step[0] == "G" for step in program.steps)
    with g.as_default():
        for step in program.steps:
            if step[0] == "F":
                ph = graph_mode.build_op(g, "Placeholder", [], {"dtype": step[1],
                                                                "shape": list(step[2])})[0]
                placeholders.append(ph)
                table.append(ph)
            elif step[0] == "O":
                _, op_type, refs, attrs, n_outputs = step
                for attr in attrs.values():  # a call: its function joins g's library
                    if isinstance(attr, attr_value_pb2.AttrValue) and attr.HasField("func"):
                        for add in function_adders:
                            add(g, attr.func.name)
                builder = next((b for ops, b in op_builders if op_type in ops), None)
                if builder is not None:
                    built = builder(g, op_type, [value(r) for r in refs], nested)
                else:
                    built = graph_mode.build_op(g, op_type, [value(r) for r in refs], attrs)
                flat = [o for v in (built if isinstance(built, (list, tuple)) else [built])
                        for o in (v if isinstance(v, (list, tuple)) else [v])]
                if len(flat) != n_outputs:
                    raise RuntimeError(f"GradientTape: replaying {op_type} gave {len(flat)} "
                                       f"outputs, the eager op {n_outputs}")
                table.extend(flat)
            else:  # a nested gradient: its own TF_AddGradients inside this graph
                _, ys, groups, grad_ys = step
                # (dense: what the nested call recorded on this tape; see backprop)
                table.extend(to_dense(r) if isinstance(r, IndexedSlices) else r
                             for r in _grads(g, value(ys), value(groups),
                                             None if grad_ys is None else value(grad_ys)))
        targets, groups, grad_ys = program.result
        ys = [None if s is None else table[s] for s in targets]
        grads = _grads(g, ys, value(groups), None if grad_ys is None else value(grad_ys))
    fetches: list[Output] = []
    layout: list[int | tuple[int, int, int] | None] = []
    for gr in grads:
        if gr is None:
            layout.append(None)
        elif isinstance(gr, IndexedSlices):  # three fetches, made an IndexedSlices again
            layout.append((len(fetches), len(fetches) + 1, len(fetches) + 2))
            fetches.extend([gr.values, gr.indices, gr.dense_shape])
        else:
            layout.append(len(fetches))
            fetches.append(gr)
    return Compiled(Session(g), placeholders, fetches, layout)


_cache: OrderedDict = OrderedDict()
_lock = threading.Lock()


def compiled(program: Program) -> Compiled:
    """The compiled graph of `program`'s key, built on first use."""
    with _lock:
        entry = _cache.get(program.key)
        if entry is not None:
            _cache.move_to_end(program.key)
            return entry
    entry = _build(program)
    with _lock:
        _cache[program.key] = entry
        while len(_cache) > _MAX_GRAPHS:
            _cache.popitem(last=False)
    return entry


def clear_cache() -> None:
    """Forgets the compiled graphs (for tests)."""
    with _lock:
        _cache.clear()
