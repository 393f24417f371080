"""Graph mode for the generated ops: inside ``Graph.as_default()`` the same op function
that runs eagerly elsewhere adds a node and returns its ``Output``s, shaped as the
eager results (one per output arg, a list for list args).

``execute_op`` stays eager-only until the first ``as_default()`` block opens in any
thread; from then until the last one closes it hands every call to :func:`dispatch`
here, which builds a node when the calling thread has a default graph and runs the op
eagerly otherwise. Node construction follows TensorFlow's generated wrappers: the op
opens a name scope with its name (the op type by default), Python values and numpy
data for inputs become ``Const`` nodes named after their input arg inside it, and the
node takes that scope's name.

Also here: ``name_scope``, ``device`` and ``control_dependencies`` for the default
graph of this thread. Eagerly, ``device`` places the ops run inside it (see
:mod:`opgen.runtime.devices`); the other two do nothing, as in TensorFlow 2.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from opgen.runtime import _operators, devices, dtypes, eager, graph
from opgen.runtime._opplan import registry
from opgen.runtime.errors import InvalidArgumentError, OpError
from opgen.runtime.graph import Graph, Output
from opgen.runtime.tensor import Tensor, _convert


def dispatch(op_type: str, inputs: Sequence[Any], attrs: dict[str, Any],
             name: str | None = None) -> Any:
    """execute_op while some thread is in graph mode: a node on this thread's default
    graph, else eager execution."""
    stack = getattr(graph._thread_stacks, "stack", None)
    if not stack:
        return eager.execute_eager(op_type, inputs, attrs, name)
    return build_op(stack[-1], op_type, inputs, attrs, name)


def _graph_mode_changed(active: bool) -> None:
    eager.set_graph_dispatch(dispatch if active else None)


graph._graph_mode_hook = _graph_mode_changed


def run_operator_op(op_type: str, inputs: Sequence[Any], attrs: dict[str, Any]) -> Any:
    """How Tensor and Output operators run an op: a node in the graph of the first
    graph Output among `inputs` (whether or not that graph is the default here, as
    TensorFlow finds an op's graph from its inputs), else execute_op (eager, or a node
    of this thread's default graph)."""
    for value in inputs:
        for v in value if isinstance(value, list) else (value,):
            if isinstance(v, Output):
                return build_op(_operator_graph(v.graph), op_type, inputs, attrs)
    return eager.execute_op(op_type, inputs, attrs, None)


def _operator_graph(g: Graph) -> Graph:
    """Where an operator on an Output of `g` builds: this thread's default graph when
    that is a function body traced inside `g` (opgen.runtime.functions.FuncGraph, whose
    `outer` chain leads to `g`; the body then captures the Output), else `g`."""
    stack = getattr(graph._thread_stacks, "stack", None)
    if stack and stack[-1] is not g:
        outer = getattr(stack[-1], "outer", None)
        while outer is not None:
            if outer is g:
                return stack[-1]
            outer = getattr(outer, "outer", None)
    return g


_operators.install_runner(run_operator_op)


# ---- building a node ------------------------------------------------------------------------

def _carries_dtype(value: object) -> bool:
    return isinstance(value, (Output, Tensor, np.ndarray, np.generic))


def _dtype_of(value: Any) -> dtypes.DType:
    if isinstance(value, (Output, Tensor)):
        return value.dtype
    return dtypes.as_dtype(np.asarray(value).dtype)


def build_op(g: Graph, op_type: str, inputs: Sequence[Any], attrs: dict[str, Any],
             name: str | None = None) -> Any:
    """Adds `op_type` to `g` with `inputs` (Outputs, or values that become Const nodes)
    and `attrs` as execute_op takes them; returns its Outputs, one entry per output arg
    (a list for list args), or the Operation when the op has no outputs. The attrs are
    converted and checked once, by the same plan eager mode uses."""
    plan = registry.plan(op_type)
    plan.check_input_count(op_type, inputs)
    prepared = plan.prepare_attrs(op_type, attrs, graph=True)
    with g.name_scope(name or op_type) as scope:
        resolved = (plan.resolve_dtypes(inputs, prepared, _carries_dtype, _dtype_of)
                    if plan.inferred else {})
        node_inputs = [_as_outputs(g, entry, value, resolved, prepared, op_type)
                       for entry, value in zip(plan.inputs, inputs)]
        inferred = plan.infer_attrs(op_type, node_inputs, prepared)
        op = g._create_op(op_type, plan, node_inputs, {**prepared, **inferred}, name=scope)
    if not plan.op_def.output_arg:
        return op  # the generated function returns it, as TensorFlow's do
    return plan.group_outputs(op.outputs, plan.output_counts(prepared, inferred))


def _as_outputs(g: Graph, entry: tuple[Any, ...], value: Any, resolved: dict[str, Any],
                attrs: dict[str, Any], op_type: str) -> Any:
    """One input arg's value as Outputs of `g`: Python values, numpy data and eager
    Tensors become Const nodes named after the arg (`arg`, or `arg_0`, `arg_1` ... in
    a list), with the dtype the op gives them (as TensorFlow's convert_to_tensor)."""
    arg, kind, type_attr, fixed, _ = entry
    try:
        if kind == "single":
            want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
            return _as_output(g, value, want, arg)
        if isinstance(value, Output) or not isinstance(value, (list, tuple)):
            raise InvalidArgumentError(
                f"input '{arg}' takes a list of tensors, got {type(value).__name__}")
        if kind == "number":
            want = resolved.get(type_attr) if type_attr else dtypes.as_dtype(fixed)
            return [_as_output(g, v, want, f"{arg}_{i}") for i, v in enumerate(value)]
        types = attrs.get(type_attr)
        if types is not None and len(types) != len(value):
            raise InvalidArgumentError(
                f"input '{arg}' has {len(value)} tensors but attr '{type_attr}' "
                f"lists {len(types)} types")
        return [_as_output(g, v, types[i] if types is not None else None, f"{arg}_{i}")
                for i, v in enumerate(value)]
    except OpError as e:
        raise type(e)(f"{op_type}: input '{arg}': {e.message}"
                      if not e.message.startswith("input '") else f"{op_type}: {e.message}",
                      op_type) from None
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(
            f"{op_type}: cannot convert input '{arg}' to a tensor: {e}", op_type) from None


# The eager opgen.Variables alive, by id of their handle Tensor: a function body that is
# given a handle (an optimizer's ResourceApply* op, an assignment) captures the variable.
eager_variables: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _as_output(g: Graph, value: Any, want: dtypes.DType | None, const_name: str) -> Output:
    if isinstance(value, Tensor) and value.dtype == dtypes.resource:
        variable = eager_variables.get(id(value))
        capture = getattr(g, "capture_variable", None)
        if variable is not None and variable.handle is value and capture is not None:
            inner = capture(variable)
            if inner is not None and inner.dtype == dtypes.resource:
                return inner
    as_value = getattr(value, "_opgen_value", None)
    if as_value is not None:  # an opgen.Variable: its value (a graph variable's read node)
        # A function body (opgen.runtime.functions.FuncGraph) reads an eager variable
        # when called, not now.
        read = getattr(g, "read_captured_variable", None)
        captured = read(value) if read is not None and hasattr(value, "handle") else None
        value = captured if captured is not None else as_value()
    if isinstance(value, Output):
        if want is not None and value.dtype != want:
            raise InvalidArgumentError(
                f"expected a {want.name} tensor, got {value.name} of type {value.dtype.name}")
        return value
    tensor = _convert(value, want, True)  # the dtype rules of eager mode
    const = g.create_op("Const", [], {"dtype": tensor.dtype, "value": tensor.numpy()},
                        name=const_name)
    return const.outputs[0]


# ---- scopes of the default graph --------------------------------------------------------------

def _thread_graph() -> Graph | None:
    stack = getattr(graph._thread_stacks, "stack", None)
    return stack[-1] if stack else None


@contextmanager
def name_scope(name: str | None) -> Iterator[str]:
    """Names ops built inside the block "`name`/..." in the default graph (TensorFlow's
    rules, see ``Graph.name_scope``); yields the scope. Eagerly, names nothing."""
    g = _thread_graph()
    if g is None:
        yield "" if not name else name if name.endswith("/") else name + "/"
        return
    with g.name_scope(name) as scope:
        yield scope


@contextmanager
def device(device_name: Any) -> Iterator[None]:
    """Places the ops inside the block on `device_name` ("/GPU:0", "/CPU:0", any of
    TensorFlow's spellings, or a DeviceInfo from ``opgen.list_devices()``; None: no
    device).

    In graph mode the nodes built inside get that device (the Session runs them
    there). Eagerly, the ops called inside run there, on this thread; a device the
    runtime does not have (a GPU where there is none) means the CPU, as TensorFlow's
    soft placement does. ``opgen.list_devices()`` says which devices there are."""
    g = _thread_graph()
    if g is None:
        previous = devices.set_eager_device(device_name)
        try:
            yield
        finally:
            devices.restore_eager_device(previous)
        return
    if isinstance(device_name, devices.DeviceInfo):
        device_name = device_name.name
    with g.device(device_name):
        yield


@contextmanager
def control_dependencies(control_inputs: Any) -> Iterator[None]:
    """Ops built inside the block run after `control_inputs` (Operations or Outputs).
    Eagerly, ops run in program order anyway."""
    g = _thread_graph()
    if g is None:
        yield
        return
    with g.control_dependencies(control_inputs):
        yield


__all__ = ["build_op", "control_dependencies", "device", "dispatch", "name_scope"]
