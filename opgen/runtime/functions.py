"""``opgen.function``: Python functions traced into the function library, as
``tf.function`` does.

A call traces the Python function once per input signature (dtypes and shapes of the
tensor arguments, values of the others) into a scratch graph, a :class:`FuncGraph`
with one ``Placeholder`` per tensor argument, and makes a ``TF_Function`` of it
(``TF_GraphToFunction``). In graph mode the function joins the graph's library and a
``PartitionedCall`` (``StatefulPartitionedCall`` when a stateful op is inside) calls
it; eagerly it joins the eager context's library and runs as an op of its own name.
Tensors of an enclosing graph that the function reads become extra inputs (captures).
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import itertools
import re
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from opgen.protos import attr_value_pb2
from opgen.runtime import (
    _context,
    _function_library,
    _function_split,
    _lib,
    _opplan,
    _tape_program,
    backprop,
    devices,
    dtypes,
    graph_mode,
)
from opgen.runtime.errors import InvalidArgumentError, NotFoundError, raise_for_status
from opgen.runtime.graph import Graph, Output, get_default_graph, thread_has_default_graph
from opgen.runtime.tensor import Tensor, _convert

_P = ctypes.POINTER
_SIGNATURES = {
    "TF_GraphToFunction": (ctypes.c_void_p, [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ubyte, ctypes.c_int, ctypes.c_void_p,
        ctypes.c_int, _P(_lib.TF_Output), ctypes.c_int, _P(_lib.TF_Output), ctypes.c_void_p,
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]),
    "TF_GraphToFunctionWithControlOutputs": (ctypes.c_void_p, [
        ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ubyte, ctypes.c_int, ctypes.c_void_p,
        ctypes.c_int, _P(_lib.TF_Output), ctypes.c_int, _P(_lib.TF_Output), ctypes.c_void_p,
        ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
        ctypes.c_void_p]),
    "TF_FunctionToFunctionDef": (None, [ctypes.c_void_p, _P(_lib.TF_Buffer), ctypes.c_void_p]),
    "TF_DeleteFunction": (None, [ctypes.c_void_p]),
    "TF_GraphCopyFunction": (None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_void_p]),
    "TFE_ContextAddFunction": (None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
    "TFE_ContextHasFunction": (ctypes.c_ubyte, [ctypes.c_void_p, ctypes.c_char_p]),
}
_capi: Any = None
# Stateful ops that only read: a result that needs them runs them, and none is needed
# otherwise (a control output of each would run every read at every call).
_READ_ONLY_STATEFUL = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd",
                                 "VarIsInitializedOp", "VariableShape", "Placeholder"})
_names = itertools.count(1)
# Functions a GradientTape recorded a call of, by name, for its replay graphs (kept:
# a replay may come long after the Function that traced them is gone).
_by_name: dict[str, ConcreteFunction] = {}


def _add_recorded_function(g: Graph, name: str) -> None:
    function = _by_name.get(name)
    if function is not None:
        function.add_to_graph(g)
_lock = threading.Lock()


def _c() -> Any:
    global _capi
    if _capi is None:
        _capi = _lib.declared(_SIGNATURES)
    return _capi


_tape_program.function_adders.append(_add_recorded_function)


class TensorSpec:
    """The dtype and shape (None for an unknown dim, or shape None for an unknown rank)
    a traced function's argument takes, as ``tf.TensorSpec``."""

    def __init__(self, shape: Sequence[int | None] | None, dtype: Any = dtypes.float32,
                 name: str | None = None) -> None:
        self.shape = None if shape is None else tuple(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype.name}, name={self.name!r})"


class FuncGraph(Graph):
    """A scratch graph a function body is traced into. An input from another graph
    (`outer`, or one enclosing it) is captured: it becomes a new Placeholder here, and
    the outer tensor an extra input of the call."""

    def __init__(self, name: str, outer: Graph | None, variables_as_values: bool = False) -> None:
        super().__init__()
        self.name = name
        self.outer = outer
        # As TensorFlow's FuncGraph: the enclosing graph's random seed, or the eager
        # global seed when traced from eager code.
        self.seed = outer.seed if outer is not None else _context.global_seed()
        self.inputs: list[Output] = []
        self.captures: dict[Output, Output] = {}  # outer tensor -> its placeholder here
        self.functions: list[ConcreteFunction] = []  # those called from here
        # Eager variables read here (traced eagerly only): each one's handle (None when
        # traced with variables_as_values), a weak reference to it, its placeholder.
        self.eager_captures: list[tuple[Tensor | None, weakref.ref, Output]] = []
        # Traced for a GradientTape's replay: each eager variable is a value argument
        # (a plain tensor: the call is then stateless and differentiable) instead of a
        # resource handle read inside. Bodies nested in such a graph inherit it.
        self.variables_as_values: bool = variables_as_values or (
            isinstance(outer, FuncGraph) and outer.variables_as_values)

        # Per resource tensor of the body (a captured variable's handle), the last op
        # that used it: the next one waits for it, so reads and updates run in the
        # order the Python code made them (TensorFlow's automatic control dependencies).
        self._last_use: dict[Output, Any] = {}

    def _create_op(self, op_type: str, plan, inputs, attrs: dict, name: str | None,
                   device: str | None = None, control_inputs=()) -> Any:
        resources = []
        for value in inputs:
            for v in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(v, Output) and v.dtype == dtypes.resource:
                    resources.append(self._own_output(v, op_type, "resource"))
        if not resources:
            return super()._create_op(op_type, plan, inputs, attrs, name, device,
                                      control_inputs)
        earlier = [self._last_use[r] for r in resources if r in self._last_use]
        op = super()._create_op(op_type, plan, inputs, attrs, name, device,
                                [*(control_inputs or ()), *dict.fromkeys(earlier)])
        for r in resources:
            self._last_use[r] = op
        return op

    def stateful_operations(self, opers: Sequence[Any] | None = None) -> list[Any]:
        """The body's operations (of `opers` when given) that must run at every call even
        when no result needs them: those with state (variable updates, random ops)."""
        found = []
        for op in self.get_operations() if opers is None else opers:
            plan = _opplan.registry._plans.get(op.type)
            if plan is None:
                try:
                    plan = _opplan.registry.plan(op.type)
                except NotFoundError:
                    continue
            if plan.op_def.is_stateful and op.type not in _READ_ONLY_STATEFUL:
                found.append(op)
        return found

    def placeholder(self, dtype: dtypes.DType, shape: Sequence[int | None] | None,
                    name: str) -> Output:
        attrs: dict[str, Any] = {"dtype": dtype}
        if shape is not None:
            attrs["shape"] = list(shape)
        return self.create_op("Placeholder", [], attrs, name=name).outputs[0]

    def capture(self, value: Output) -> Output:
        inner = self.captures.get(value)
        if inner is None:
            with self.as_default(), self.control_dependencies(None):
                inner = self.placeholder(value.dtype, value.shape, "capture")
            self.captures[value] = inner
        return inner

    def capture_variable(self, variable: Any) -> Output | None:
        """A placeholder here for the eager variable `variable`, passed in by each call
        (through the enclosing bodies): its DT_RESOURCE handle, or its value where
        `variables_as_values`; None where the outermost enclosing graph is not a
        function body being traced eagerly."""
        if self.outer is None:
            for _, known, inner in self.eager_captures:
                if known() is variable:
                    return inner
            as_value = self.variables_as_values
            with self.as_default(), self.control_dependencies(None):
                if as_value:
                    inner = self.placeholder(variable.dtype, variable.shape, "capture_value")
                else:
                    inner = self.placeholder(variable.handle.dtype, (), "capture_resource")
            self.eager_captures.append(
                (None if as_value else variable.handle, weakref.ref(variable), inner))
            return inner
        if not isinstance(self.outer, FuncGraph):
            return None
        outer = self.outer.capture_variable(variable)
        return None if outer is None else self.capture(outer)

    def read_captured_variable(self, variable: Any) -> Output | None:
        """The value of the eager opgen.Variable `variable` in this body: a
        ReadVariableOp of its captured handle, or its captured value (None for a graph
        variable, which is read as its graph's read node)."""
        if not isinstance(variable.handle, Tensor):
            return None
        inner = self.capture_variable(variable)
        if inner is None or self.variables_as_values:
            return inner
        with self.as_default():
            read = self.create_op("ReadVariableOp", [inner], {"dtype": variable.dtype}).outputs[0]
        read.set_shape(variable.shape)  # the handle placeholder carries no shape
        return read

    def _own_output(self, value: Any, op_type: str, arg: str) -> Output:
        if isinstance(value, Output) and value.graph is not self and self.outer is not None:
            return self.capture(value)
        return super()._own_output(value, op_type, arg)

    def is_stateful(self) -> bool:
        """Whether the body has state: a stateful op, or a call (a function-name node,
        If, While, Case, StatefulPartitionedCall) of a function of its library that
        has one (an imported GraphDef's functions are looked into)."""
        calls = False
        for op in self.get_operations():
            plan = _opplan.registry._plans.get(op.type)
            if plan is None:
                try:
                    plan = _opplan.registry.plan(op.type)
                except NotFoundError:  # a function's name as an op type
                    calls = True
                    continue
            if op.type in _function_library.CALL_OPS:
                calls = True
            elif plan.op_def.is_stateful:
                return True
        if not calls:
            return False
        graph_def = self.as_graph_def()
        state = _function_library.Statefulness(graph_def.library)
        return any(state.node(node) for node in graph_def.node)


def _output_of(g: Graph, value: Any, want: dtypes.DType | None, what: str) -> Output:
    """`value` as an Output of `g` (Python and numpy values become Consts)."""
    with g.as_default():
        try:
            return graph_mode._as_output(g, value, want, "Const")
        except InvalidArgumentError as e:
            raise TypeError(f"{what}: {e.message}") from None


class ConcreteFunction:
    """One trace: a ``TF_Function`` with its argument and result dtypes, the structure
    of its results, and the outer tensors it captured (extra inputs after the
    arguments)."""

    def __init__(self, graph: FuncGraph, outputs: Sequence[Output], structure: Any,
                 inputs: Sequence[Output] | None = None, opers: Sequence[Any] | None = None,
                 name: str | None = None) -> None:
        c = _c()
        inputs = list(graph.inputs if inputs is None else inputs)
        # Each result is an Identity of its own, so an argument returned as it is (or
        # one tensor returned twice) is still a node of the body.
        with graph.as_default(), graph.control_dependencies(None):
            outputs = [graph.create_op("Identity", [o], name="output").outputs[0]
                       for o in outputs]
        name = name or graph.name
        c_in = (_lib.TF_Output * max(len(inputs), 1))(*[i._c for i in inputs])
        c_out = (_lib.TF_Output * max(len(outputs), 1))(*[o._c for o in outputs])
        # `opers`: the part of the graph this function is (a split's forward or
        # backward); else all of it
        c_opers, n_opers = None, -1
        if opers is not None:
            body = [*opers, *(o.op for o in outputs)]
            c_opers, n_opers = (ctypes.c_void_p * max(len(body), 1))(
                *[op._c_op for op in body]), len(body)
        # The updates and other stateful ops run at every call, needed by a result or not.
        controls = graph.stateful_operations(None if opers is None else body)
        c_controls = (ctypes.c_void_p * max(len(controls), 1))(*[op._c_op for op in controls])
        c_names = (ctypes.c_char_p * max(len(controls), 1))(
            *[op.name.encode() for op in controls])
        status = _lib.thread_status()
        self._c_function = c.TF_GraphToFunctionWithControlOutputs(
            graph._c_graph, name.encode(), 0, n_opers, c_opers, len(inputs), c_in,
            len(outputs), c_out, None, len(controls), c_controls, c_names, None, None,
            status.ptr)
        raise_for_status(status)
        self._finalizer = weakref.finalize(self, c.TF_DeleteFunction, self._c_function)
        self.name = name
        self.graph = graph
        self.input_dtypes = [i.dtype for i in inputs]
        self.output_dtypes = [o.dtype for o in outputs]
        self.output_shapes = [o.shape for o in outputs]
        self.structure = structure
        self.captured: list[Any] = [*graph.captures,
                                    *(h for h, _, _ in graph.eager_captures if h is not None)]
        # The eager variables it reads (weak references), in the order of their captures.
        self.variables = [ref for _, ref, _ in graph.eager_captures]
        self.stateful = graph.is_stateful()
        # Functions of the body's library that no trace of opgen's made (those an
        # imported GraphDef brought): they go wherever this function goes.
        self.library = _function_library.library_of(
            graph, [self.name, *_trace_names(graph.functions)])
        # Traces the same Python function with its variables as value arguments (set by
        # Function; see _tape_function).
        self.retrace: Callable[[], ConcreteFunction] | None = None
        self._tape_variant: ConcreteFunction | None = None
        self._in_graphs: weakref.WeakKeyDictionary[Graph, bool] = weakref.WeakKeyDictionary()
        self._eager_kernel: int | None = None
        # Traces the Python function again for the split a tape runs (set by Function
        # for eager traces; see _tape_split); _split: False until made.
        self._split_trace: Callable[[], Any] | None = None
        self._split: Any = False
        # The stub _record_blocker records (made on first use).
        self._blocker: ConcreteFunction | None = None

    @property
    def function_def(self) -> Any:
        """The FunctionDef message (opgen's protos, wire-compatible with TensorFlow's)."""
        from opgen.protos import function_pb2
        buffer = _lib.graph_lib().TF_NewBuffer()
        try:
            status = _lib.thread_status()
            _c().TF_FunctionToFunctionDef(self._c_function, buffer, status.ptr)
            raise_for_status(status)
            data = ctypes.string_at(buffer.contents.data, buffer.contents.length)
        finally:
            _lib.graph_lib().TF_DeleteBuffer(buffer)
        return function_pb2.FunctionDef.FromString(data)

    def add_to_graph(self, g: Graph) -> None:
        """Adds this function, and those it calls, to `g`'s library (once)."""
        if g in self._in_graphs:
            return
        for called in self.graph.functions:
            called.add_to_graph(g)
        if self.library is not None:
            _function_library.add_to_graph(self.library, g, self.name)
        status = _lib.thread_status()
        _c().TF_GraphCopyFunction(g._c_graph, self._c_function, None, status.ptr)
        raise_for_status(status)
        self._in_graphs[g] = True
        if isinstance(g, FuncGraph):
            g.functions.append(self)

    def add_to_context(self) -> None:
        """Adds this function, and those it calls, to the eager context's library."""
        ctx = _context.eager_context()
        if _c().TFE_ContextHasFunction(ctx, self.name.encode()):
            return
        for called in self.graph.functions:
            called.add_to_context()
        if self.library is not None:
            _function_library.add_to_context(self.library, ctx, self.name)
        status = _lib.thread_status()
        _c().TFE_ContextAddFunction(ctx, self._c_function, status.ptr)
        raise_for_status(status)

    def func_attr(self) -> attr_value_pb2.AttrValue:
        return attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=self.name))

    def call_flat(self, args: Sequence[Any]) -> list[Any]:
        """Calls the function on `args` (its arguments, then its captures' outer
        tensors): in the default graph when there is one, else eagerly."""
        if thread_has_default_graph():
            g = get_default_graph()
            self.add_to_graph(g)
            inputs = [_output_of(g, a, d, f"argument {i} of {self.name}")
                      for i, (a, d) in enumerate(zip(args, self.input_dtypes))]
            op_type = "StatefulPartitionedCall" if self.stateful else "PartitionedCall"
            op = g.create_op(op_type, [inputs], {"Tout": self.output_dtypes,
                                                 "f": self.func_attr()})
            return list(op.outputs)
        return self._call_eager(args)

    def _call_eager(self, args: Sequence[Any]) -> list[Any]:
        tensors = [_convert(a, d, True) for a, d in zip(args, self.input_dtypes)]
        tapes = [t for t in backprop._tapes() if t._recording]
        replay = None
        if tapes and not self.variables and not backprop._touches(tapes, tensors):
            tapes = []  # nothing the tapes track goes in: a plain call
        if tapes:
            split = self._tape_split()
            if split is not None:
                inputs = self._split_inputs(split, tensors)
                if inputs is not None:
                    if not backprop._touches(tapes, inputs):
                        return self._execute(tensors)  # nothing to keep for a gradient
                    return _call_split(split, inputs, tapes)
            # (what the tapes replay is chosen, and the variables read, before the call)
            replay = self._tape_replay(tensors)
        results = self._execute(tensors)
        if replay is not None and backprop._touches(tapes, replay[1]):
            function, inputs = replay
            _by_name[function.name] = function
            attrs = {"Tout": function.output_dtypes, "f": function.func_attr()}
            for tape in tapes:
                tape._record("PartitionedCall", [inputs], attrs, list(results))
        elif tapes and replay is None:
            self._record_blocker(tensors, results, tapes)
        return results

    def _record_blocker(self, tensors: list[Tensor], results: list[Tensor],
                        tapes: list[Any]) -> None:
        """Records, for a stateful call the tapes can neither split nor replay, a stub
        whose gradient raises an error naming this function (not a silent None)."""
        floats = [t for t in tensors if t.dtype in _function_split._FLOATS]
        if not backprop._touches(tapes, floats):
            return
        stub = self._blocker  # (the float inputs' dtypes are this trace's: one stub)
        if stub is None:
            stub = self._blocker = _function_split.blocker(
                self.name, floats, results, ConcreteFunction, FuncGraph)
            _by_name[stub.name] = stub
        for tape in tapes:
            tape._record(stub.name, [*floats, *results], {}, list(results))

    def _execute(self, tensors: list[Tensor]) -> list[Tensor]:
        lib = _lib.lib()
        status = _lib.thread_status()
        device = devices.eager_device_bytes()
        # The function's instance is kept across calls (instantiating it is most of the
        # cost of a small call), except under an opgen.device scope.
        kernel = self._eager_kernel if device is None else None
        if kernel is None:
            kernel = self._new_eager_kernel(tensors, device)
            if device is None:
                self._eager_kernel = kernel
                weakref.finalize(self, lib.OPGEN_DeleteEagerKernel, kernel)
        try:
            n = len(self.output_dtypes)
            outputs = (ctypes.c_void_p * max(n, 1))()
            flat = (ctypes.c_void_p * max(len(tensors), 1))(*[t._tensor for t in tensors])
            lib.OPGEN_EagerKernelExecute(kernel, flat, len(tensors), outputs, n, status.ptr)
            raise_for_status(status)
        finally:
            if device is not None:
                lib.OPGEN_DeleteEagerKernel(kernel)
        return [Tensor._from_tf_tensor(outputs[i] or 0) for i in range(n)]

    def _tape_split(self) -> _function_split.Split | None:
        """This trace's forward/backward split for tapes (made on first use, then kept;
        None where it has none: the tapes replay the call)."""
        if self._split is False:
            if self._split_trace is None:
                self._split = None
            else:
                self._split = _function_split.make(self._split_trace, _replayed(self),
                                                   ConcreteFunction, FuncGraph)
        return self._split

    def _split_inputs(self, split: _function_split.Split,
                      tensors: list[Tensor]) -> list[Tensor] | None:
        """The forward function's inputs for a call on `tensors`: the arguments, then
        the values of the variables it reads, read now (the tapes note the reads)."""
        if not split.variables:
            return tensors
        values = []
        for ref in split.variables:
            variable = ref()
            if variable is None:
                return None
            values.append(variable.read_value())
        return [*tensors[:len(tensors) - len(self.captured)], *values]

    def _tape_replay(self, tensors: list[Tensor]) -> tuple[ConcreteFunction, list[Tensor]] | None:
        """What the recording GradientTapes replay for a call on `tensors`: a stateless
        function and its inputs (the runtime differentiates a PartitionedCall of it), or
        None where the call cannot be replayed (a stateful op inside: a replay would draw
        new random numbers, say). A call that reads variables is replayed as this trace
        with the variables as value arguments, given their values read now, so the
        tapes see the reads (watching the trainable variables, as for any read) and the
        variables' gradients are their reads'."""
        if not self.variables:
            return None if self.stateful else (self, tensors)
        variant = self._tape_function()
        if variant is None or variant.stateful:
            return None
        values = []
        for ref in variant.variables:
            variable = ref()
            if variable is None:
                return None
            values.append(variable.read_value())
        explicit = len(tensors) - len(self.captured)
        return variant, [*tensors[:explicit], *values]

    def _tape_function(self) -> ConcreteFunction | None:
        """This trace's stateless twin for tapes (traced on first use, then kept)."""
        if self._tape_variant is None and self.retrace is not None:
            self._tape_variant = self.retrace()
        return self._tape_variant

    def _new_eager_kernel(self, tensors: list[Tensor], device: bytes | None) -> int:
        self.add_to_context()
        lib = _lib.lib()
        status = _lib.thread_status()
        op = lib.TFE_NewOp(_context.eager_context(), self.name.encode(), status.ptr)
        raise_for_status(status)
        try:
            if device is not None:
                lib.TFE_OpSetDevice(op, device, status.ptr)
                raise_for_status(status)
            for t in tensors:
                lib.TFE_OpAddInput(op, t._handle, status.ptr)
                raise_for_status(status)
            kernel: int = lib.OPGEN_NewEagerKernel(op, status.ptr)
            raise_for_status(status)
        finally:
            lib.TFE_DeleteOp(op)
        return kernel

    def __call__(self, *args: Any) -> Any:
        return pack(self.structure, self.call_flat([*args, *self.captured]))


def _call_split(split: _function_split.Split, inputs: list[Tensor],
                tapes: list[Any]) -> list[Tensor]:
    """A call under recording tapes: the forward function runs, keeping the values the
    gradient needs, and the tapes record the stub op whose gradient takes them."""
    values = split.forward._execute(inputs)
    results = values[:split.n_outputs]
    kept = values[split.n_outputs:]
    for tape in tapes:
        tape._record(split.stub.name, [*inputs, *kept, *results], {}, list(results))
    return results


def _build_split_call(g: Graph, op_type: str, inputs: list[Any], replay: bool) -> list[Output]:
    """A recorded stub op in a tape's gradient graph: the stub (its gradient takes the
    kept values), or where the graph is differentiated again (`replay`), the original
    call, whose gradient reaches the inputs through everything."""
    split = _function_split.stubs[op_type]
    if not replay:
        split.stub.add_to_graph(g)
        with g.as_default():
            return graph_mode.build_op(g, op_type, inputs, {})
    original = split.original()
    if original is None:
        raise RuntimeError(f"GradientTape: the function of {op_type} is gone")
    original.add_to_graph(g)
    op_type = "StatefulPartitionedCall" if original.stateful else "PartitionedCall"
    with g.as_default():
        op = g.create_op(op_type, [inputs[:split.n_inputs]],
                         {"Tout": original.output_dtypes, "f": original.func_attr()})
    return list(op.outputs)


_tape_program.op_builders.append((_function_split.stubs, _build_split_call))


def _build_blocker(g: Graph, op_type: str, inputs: list[Any], replay: bool) -> list[Output]:
    """A recorded blocking stub in a tape's gradient graph (its gradient raises)."""
    stub = _by_name[op_type]
    stub.add_to_graph(g)
    with g.as_default():
        return graph_mode.build_op(g, op_type, inputs, {})


_tape_program.op_builders.append((_function_split.blocked, _build_blocker))


def _replayed(function: ConcreteFunction) -> Callable[[], ConcreteFunction | None]:
    """What a gradient graph differentiated again replays for a split call of
    `function` (traced then: its twin, for a function that reads variables)."""
    ref = weakref.ref(function)

    def get() -> ConcreteFunction | None:
        f = ref()
        return f if f is None or not f.variables else f._tape_function()
    return get


def _trace_for_split(fn: Callable[..., Any], name: str, specs: list[Any], args: Sequence[Any],
                     variables_as_values: bool) -> tuple[FuncGraph, list[Output], list[Output],
                                                         list[Any]]:
    """`fn` traced again for a split (see opgen.runtime._function_split): the graph,
    its outputs, its inputs (the arguments, then the variables' values where
    `variables_as_values`), the variables (weak references)."""
    g, (_, flat) = trace(fn, specs, name + "_split", None, args,
                         variables_as_values=variables_as_values)
    inputs = [*g.inputs, *(p for _, _, p in g.eager_captures)]
    return g, flat, inputs, [ref for _, ref, _ in g.eager_captures]


def _trace_names(functions: Sequence[ConcreteFunction]) -> set[str]:
    """The names of `functions` and of every trace they call."""
    names: set[str] = set()
    for f in functions:
        if f.name not in names:
            names.add(f.name)
            names |= _trace_names(f.graph.functions)
    return names


# ---- nested structures (lists, tuples, dicts, None) of tensors ---------------------------

def flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in flatten(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in flatten(value[k])]
    if value is None:
        return []
    return [value]


def structure_of(value: Any) -> Any:
    """`value` with each leaf replaced by 0 (None stays None): comparable structures."""
    if isinstance(value, (list, tuple)):
        return type(value)(structure_of(v) for v in value)
    if isinstance(value, dict):
        return {k: structure_of(v) for k, v in value.items()}
    return None if value is None else 0


def pack(structure: Any, flat: Sequence[Any]) -> Any:
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, (list, tuple)):
            return type(s)(build(v) for v in s)
        if isinstance(s, dict):
            built = {k: build(s[k]) for k in sorted(s)}
            return {k: built[k] for k in s}
        return None if s is None else next(it)
    return build(structure)


def trace(fn: Callable[..., Any], specs: Sequence[tuple[dtypes.DType, Any]], name: str,
          outer: Graph | None, args: Sequence[Any] | None = None,
          variables_as_values: bool = False) -> tuple[FuncGraph, Any]:
    """Runs `fn` in a new FuncGraph on one Placeholder per (dtype, shape) of `specs`
    (or, where `args` holds a non-tensor, that value); returns the graph (its `inputs`
    the placeholders) and what `fn` returned, with leaves as Outputs of the graph."""
    # A name TensorFlow accepts for a function (lambdas are "<lambda>").
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "function"
    with _lock:
        unique = f"{safe}_{next(_names)}"
    g = FuncGraph(unique, outer, variables_as_values)
    with g.as_default():
        call_args: list[Any] = []
        spec_iter = iter(specs)
        for i in range(len(args) if args is not None else len(specs)):
            if args is not None and not _is_tensor(args[i]):
                call_args.append(args[i])
                continue
            dtype, shape = next(spec_iter)
            ph = g.placeholder(dtype, shape, f"arg{i}")
            g.inputs.append(ph)
            call_args.append(ph)
        result = fn(*call_args)
        flat = [_output_of(g, v, None, f"a result of {name}") for v in flatten(result)]
        # An outer tensor returned as it is is captured now, before the callers list
        # the captures.
        flat = [g._own_output(o, name, "result") for o in flat]
    return g, (structure_of(result), flat)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, (Tensor, Output, np.ndarray, np.generic, TensorSpec)) or hasattr(
        value, "_opgen_value")


def _spec_of(value: Any) -> tuple[dtypes.DType, Any]:
    if isinstance(value, TensorSpec):
        return value.dtype, value.shape
    if isinstance(value, Output):
        return value.dtype, value.shape
    tensor = _convert(value, None, True)
    return tensor.dtype, tensor.shape


class Function:
    """A Python function traced into the function library on each new input signature
    (what ``opgen.function`` returns); call it eagerly or while building a graph."""

    def __init__(self, fn: Callable[..., Any], input_signature: Sequence[TensorSpec] | None,
                 name: str | None) -> None:
        self.python_function = fn
        self.input_signature = None if input_signature is None else list(input_signature)
        self._name = str(name or getattr(fn, "__name__", "function"))
        self._traces: dict[Any, ConcreteFunction] = {}
        functools.update_wrapper(self, fn)

    def get_concrete_function(self, *args: Any) -> ConcreteFunction:
        """The trace for `args` (tensors, TensorSpecs, or Python values that become part
        of the trace), made on first use."""
        if self.input_signature is not None:
            if args and len(args) != len(self.input_signature):
                raise TypeError(f"{self._name} takes {len(self.input_signature)} argument(s) "
                                f"(its input_signature), got {len(args)}")
            for i, (a, spec) in enumerate(zip(args, self.input_signature)):
                dtype, shape = _spec_of(a)
                if dtype != spec.dtype or not _shape_fits(shape, spec.shape):
                    raise TypeError(
                        f"{self._name}: argument {i} ({dtype.name} {shape}) does not match its "
                        f"input_signature {spec}")
            args = tuple(self.input_signature)
        outer = get_default_graph() if thread_has_default_graph() else None
        key_parts: list[Any] = [None if outer is None else id(outer)]
        specs = []
        for a in args:
            if _is_tensor(a):
                dtype_shape = _spec_of(a)
                specs.append(dtype_shape)
                key_parts.append(dtype_shape)
            else:
                key_parts.append(("value", type(a), a))
        key = tuple(key_parts)
        concrete = self._traces.get(key)
        if concrete is not None and any(isinstance(v, Output) and v.graph is not outer
                                        for v in concrete.captured):
            concrete = None  # traced for a graph since freed, whose id `outer` reuses
        if concrete is None:
            g, (structure, flat) = trace(self.python_function, specs, self._name, outer, args)
            concrete = ConcreteFunction(g, flat, structure, [
                *g.inputs, *g.captures.values(), *(p for _, _, p in g.eager_captures)])
            concrete.python_args = [a for a in args if not _is_tensor(a)]  # type: ignore[attr-defined]
            if outer is None:
                # (not bound methods: the trace would keep its Function alive)
                if concrete.variables:
                    concrete.retrace = functools.partial(
                        _trace_for_tape, self.python_function, self._name, specs, args)
                concrete._split_trace = functools.partial(
                    _trace_for_split, self.python_function, self._name, specs, args,
                    bool(concrete.variables))
            self._traces[key] = concrete
        return concrete

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Keyword arguments as positional ones, in the Python function's order."""
        if not kwargs:
            return args
        bound = inspect.signature(self.python_function).bind(*args, **kwargs)
        bound.apply_defaults()
        if bound.kwargs:
            raise TypeError(f"{self._name}: keyword-only arguments are not supported")
        return tuple(bound.args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = self._bind(args, kwargs)
        if _function_split.inlining():  # traced into the caller's split graph
            return self._inline(args)
        concrete = self.get_concrete_function(*args)
        tensors = [a for a in args if _is_tensor(a)]
        return pack(concrete.structure, concrete.call_flat([*tensors, *concrete.captured]))


    def _inline(self, args: tuple[Any, ...]) -> Any:
        """The Python function run in the default graph, its tensor arguments as Outputs
        there (as a trace sees them), returning Outputs."""
        g = get_default_graph()
        args = tuple(_output_of(g, a, None, f"argument {i} of {self._name}")
                     if _is_tensor(a) and not isinstance(a, TensorSpec) else a
                     for i, a in enumerate(args))
        with g.as_default():
            result = self.python_function(*args)
        return pack(structure_of(result),
                    [_output_of(g, v, None, f"a result of {self._name}") for v in flatten(result)])


def _trace_for_tape(fn: Callable[..., Any], name: str, specs: list[Any],
                    args: Sequence[Any]) -> ConcreteFunction:
    """`fn` traced again with the variables it reads as value arguments, after its own:
    the twin a GradientTape replays for an eager call (ConcreteFunction._tape_replay)."""
    g, (structure, flat) = trace(fn, specs, name + "_tape", None, args,
                                 variables_as_values=True)
    return ConcreteFunction(g, flat, structure, [*g.inputs, *(p for _, _, p in g.eager_captures)])


def _shape_fits(shape: Any, spec: Any) -> bool:
    if spec is None:
        return True
    if shape is None:
        return False
    return len(shape) == len(spec) and all(s is None or d == s for d, s in zip(shape, spec))


def function(func: Callable[..., Any] | None = None, input_signature: Sequence[TensorSpec] | None = None,
             name: str | None = None) -> Any:
    """Makes a Python function of tensors a library function, as ``tf.function``: each
    call with a new input signature (dtypes and shapes of the tensor arguments, values
    of the others) traces it into a FunctionDef; calls run it eagerly, or add a
    ``PartitionedCall`` node while a graph is the default. With `input_signature`
    (a list of TensorSpec) it is traced once, for those specs. Usable as a decorator,
    with or without arguments."""
    if func is None:
        return lambda f: Function(f, input_signature, name)
    return Function(func, input_signature, name)


__all__ = ["ConcreteFunction", "FuncGraph", "Function", "TensorSpec", "function"]
