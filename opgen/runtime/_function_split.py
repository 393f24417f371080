"""The forward/backward split of an eager ``opgen.function`` call a GradientTape records.

Without it a tape replays the call (a ``PartitionedCall`` in its gradient graph), and
the call's gradient recomputes the whole forward pass: a While inside runs its loop in
the eager call and again in the gradient. As ``tf.function`` does, a call made while a
tape watches runs instead a *forward* function that also returns what the gradient
needs (a While's accumulators, kept by the runtime's While gradient, among them), and
the tape records an op whose gradient is a *backward* function of those values: the
loop runs once.

Both come from one graph: the Python function traced again (nested ``opgen.function``
calls inlined, so their loops are split too), its gradients added there with a
placeholder per output gradient. The nodes the outputs need are the forward function;
the nodes the gradients need besides are the backward one; the tensors crossing
between them (the intermediates) are the forward's extra outputs and the backward's
inputs. The recorded op is a *stub* function ``(inputs, intermediates, outputs) ->
outputs`` (identities: the replay does not recompute anything) whose gradient, a
Python gradient function registered under its name, calls the backward function.
A gradient graph that is differentiated again (a nested ``gradient`` call) replays the
original call instead, whose gradient has a path back to the inputs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from opgen.protos import function_pb2
from opgen.runtime import _function_library, _opplan, dtypes, errors, gradients_impl
from opgen.runtime.graph import Graph, Operation, Output
from opgen.runtime.indexed_slices import IndexedSlices, to_dense

_FLOATS = frozenset({dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
                     dtypes.complex64, dtypes.complex128})

_state = threading.local()  # set while a split trace runs: nested functions inline


def inlining() -> bool:
    """Whether opgen.function calls are traced inline (in a split's trace)."""
    return getattr(_state, "inline", False)


class Split:
    """A call's forward function, stub and backward function, and how they connect."""

    __slots__ = ("forward", "stub", "backward", "original", "variables", "n_inputs",
                 "n_outputs", "n_intermediates", "dy_outputs", "dx_inputs")

    def __init__(self, forward: Any, stub: Any, backward: Any, original: Any,
                 variables: list, n_inputs: int, n_outputs: int, n_intermediates: int,
                 dy_outputs: list[int], dx_inputs: list[int]) -> None:
        self.forward = forward          # inputs -> outputs, intermediates
        self.stub = stub                # inputs, intermediates, outputs -> outputs
        self.backward = backward        # inputs, intermediates, dys -> dxs
        self.original = original        # () -> the function replayed where differentiated twice
        self.variables = variables      # weak refs: the variables passed after the args
        self.n_inputs = n_inputs
        self.n_outputs = n_outputs
        self.n_intermediates = n_intermediates
        self.dy_outputs = dy_outputs    # the outputs the backward takes a gradient of
        self.dx_inputs = dx_inputs      # the input each backward result is the gradient of


# name of a stub -> its split (read by the stub's gradient and by replays)
stubs: dict[str, Split] = {}


def make(trace: Callable[[], tuple[Any, list[Output], list[Output], list]],
         original: Any, concrete_type: Any, graph_type: Any) -> Split | None:
    """The split of a call of `original()` (a ConcreteFunction); `trace` traces its Python function
    again, returning (graph, outputs, inputs, variable refs). None where the body has
    no gradient the split can use (the tape then replays the call as before).
    `concrete_type` and `graph_type` are functions' ConcreteFunction and FuncGraph (passed
    in: that module imports this one)."""
    _state.inline = True
    try:
        g, outputs, inputs, variables = trace()
    except Exception:  # noqa: BLE001 - a body that traces only as its own function
        return None
    finally:
        _state.inline = False
    with g.as_default(), g.control_dependencies(None):
        outputs = [g.create_op("Identity", [o], name="output").outputs[0] for o in outputs]
        dy_outputs = [i for i, o in enumerate(outputs) if o.dtype in _FLOATS]
        dx_inputs = [i for i, x in enumerate(inputs) if x.dtype in _FLOATS]
        dys = [g.placeholder(outputs[i].dtype, outputs[i].shape, "dy") for i in dy_outputs]
    if not dy_outputs or not dx_inputs:
        return None
    try:
        grads = gradients_impl.gradients([outputs[i] for i in dy_outputs],
                                         [inputs[i] for i in dx_inputs], grad_ys=dys)
        with g.as_default():  # the backward function returns dense gradients
            grads = [to_dense(d) if isinstance(d, IndexedSlices) else d for d in grads]
    except Exception:  # noqa: BLE001 - no usable gradient: the tape replays the call
        return None
    dx_inputs = [i for i, d in zip(dx_inputs, grads) if d is not None]
    grads = [d for d in grads if d is not None]
    if not grads:
        return None
    parts = _partition(g, outputs, inputs, dys, grads)
    if parts is None:
        return None
    forward_ops, backward_ops, intermediates = parts
    base = g.name
    forward = concrete_type(g, outputs + intermediates, None, inputs, opers=forward_ops,
                            name=base + "_forward")
    backward = concrete_type(g, grads, None, [*inputs, *intermediates, *dys],
                             opers=backward_ops, name=base + "_backward")
    if _has_state(backward):
        return None  # it would run a stateful op again (a cond branch's gradient, say)
    stub = _stub(base + "_tape_call", inputs, intermediates, outputs, concrete_type, graph_type)
    stub.graph.functions.append(backward)  # (goes wherever the stub goes)
    split = Split(forward, stub, backward, original, variables, len(inputs), len(outputs),
                  len(intermediates), dy_outputs, dx_inputs)
    stubs[stub.name] = split
    # The stub's op type for graph building: its signature as an OpDef.
    _opplan.registry._plans[stub.name] = _opplan._new_plan(
        stub.name, stub.function_def.signature)
    gradients_impl._register_internal(stub.name, _stub_gradient)
    return split


def _partition(g: Graph, outputs: list[Output], inputs: list[Output], dys: list[Output],
               grads: list[Output]) -> tuple[list, list, list[Output]] | None:
    """(forward ops, backward ops, intermediates): the ops the outputs need; the other
    ops the gradients need; the forward ops' outputs that backward ops read."""
    boundary = {x.op for x in inputs} | {d.op for d in dys}
    forward = _ancestors([o.op for o in outputs], boundary)
    backward = _ancestors([d.op for d in grads], boundary | forward)
    intermediates: list[Output] = []
    seen: set[Output] = set()
    input_set = set(inputs)
    for op in backward:
        for c in op.control_inputs:
            if c in forward:
                return None  # an order the split cannot keep
        for t in op.inputs:
            if t.op in forward and t not in seen and t not in input_set:
                seen.add(t)
                intermediates.append(t)
    order = {op: i for i, op in enumerate(g.get_operations())}
    return (sorted(forward, key=order.__getitem__), sorted(backward, key=order.__getitem__),
            intermediates)


def _ancestors(roots: Sequence[Operation], stop: set) -> set:
    found: set = set()
    stack = [op for op in roots if op not in stop]
    while stack:
        op = stack.pop()
        if op in found:
            continue
        found.add(op)
        for t in op.inputs:
            if t.op not in stop and t.op not in found:
                stack.append(t.op)
        for c in op.control_inputs:
            if c not in stop and c not in found:
                stack.append(c)
    return found


def _has_state(function: Any) -> bool:
    """Whether a node of `function` has state (through what it calls, too)."""
    state = _function_library.Statefulness(
        function.library or function_pb2.FunctionDefLibrary())
    return any(state.node(n) for n in function.function_def.node_def)


def _stub(name: str, inputs: list[Output], intermediates: list[Output],
          outputs: list[Output], concrete_type: Any, graph_type: Any) -> Any:
    g = graph_type(name, None)
    with g.as_default():
        args = [g.placeholder(t.dtype, None, f"arg{i}")
                for i, t in enumerate([*inputs, *intermediates, *outputs])]
    first = len(inputs) + len(intermediates)
    return concrete_type(g, args[first:], None, args)


def _stub_gradient(op: Operation, *grads: Output | None) -> list:
    """A stub's gradient: the backward function on the intermediates and the output
    gradients (zeros for an output none reaches)."""
    split = stubs[op.type]
    g = op.graph
    split.backward.add_to_graph(g)
    ins = op.inputs
    known = ins[:split.n_inputs + split.n_intermediates]
    dys = []
    for i in split.dy_outputs:
        dy = grads[i]
        if dy is None:
            dy = g.create_op("ZerosLike", [op.outputs[i]]).outputs[0]
        dys.append(dy)
    dxs = g.create_op("PartitionedCall", [[*known, *dys]], {
        "Tout": split.backward.output_dtypes, "f": split.backward.func_attr()}).outputs
    result: list[Any] = [None] * len(ins)
    for i, dx in zip(split.dx_inputs, dxs):
        result[i] = dx
    return result


# name of a blocking stub -> the name of the function whose call it stands for
blocked: dict[str, str] = {}


def blocker(function_name: str, inputs: list[Any], outputs: list[Any], concrete_type: Any,
            graph_type: Any) -> Any:
    """A stub ``(inputs, outputs) -> outputs`` recorded for a stateful call that has
    neither a split nor a replay: a gradient that reaches it raises an error naming the
    function, where without a record the tape would answer None (TensorFlow, which
    keeps every call's intermediates, always has a gradient there)."""
    stub = _stub(function_name + "_tape_nograd", inputs, [], outputs, concrete_type,
                 graph_type)
    blocked[stub.name] = function_name
    _opplan.registry._plans[stub.name] = _opplan._new_plan(
        stub.name, stub.function_def.signature)
    gradients_impl._register_internal(stub.name, _blocked_gradient)
    return stub


def _blocked_gradient(op: Operation, *grads: Output | None) -> list:
    name = blocked[op.type]
    raise errors.UnimplementedError(
        f"GradientTape: no gradient through the eager call of the stateful function "
        f"'{name}': its gradient would run its stateful ops again, and it could not be "
        f"split into a forward function that keeps what the gradient needs")
