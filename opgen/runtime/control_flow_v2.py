"""``opgen.cond`` and ``opgen.while_loop``: TensorFlow 2's functional control flow.

In a graph, the branches (or the loop's condition and body) are traced into functions
of the graph's library (opgen.runtime.functions) and one ``If``/``StatelessIf`` or
``While``/``StatelessWhile`` node calls them; the stateful forms only where a stateful
op is inside. Tensors the functions read from the enclosing graph become extra inputs
(of both branches; loop variables passed through unchanged, for a loop). Eagerly, as in
TensorFlow, the Python callables simply run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opgen.runtime import dtypes
from opgen.runtime.functions import (
    ConcreteFunction,
    FuncGraph,
    _output_of,
    flatten,
    pack,
    structure_of,
    trace,
)
from opgen.runtime.graph import Graph, Output, get_default_graph, thread_has_default_graph
from opgen.runtime.tensor import _convert


def _graph() -> Graph | None:
    return get_default_graph() if thread_has_default_graph() else None


def _finish(g: FuncGraph, explicit: Sequence[Output], outputs: Sequence[Output],
            structure: Any, captured: Sequence[Output]) -> ConcreteFunction:
    """A function of `g` taking `explicit` then a placeholder per `captured` outer
    tensor (made here when `g` did not read it itself)."""
    inputs = list(explicit) + [g.capture(v) for v in captured]
    return ConcreteFunction(g, outputs, structure, inputs)


def _union(*graphs: FuncGraph) -> list[Output]:
    seen: dict[Output, None] = {}
    for g in graphs:
        for v in g.captures:
            seen.setdefault(v, None)
    return list(seen)


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any],
         name: str | None = None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`, as ``tf.cond``: both branches must return
    the same structure of tensors with the same dtypes."""
    g = _graph()
    if g is None:
        return true_fn() if bool(_convert(pred, None, True)) else false_fn()
    pred_out = _output_of(g, pred, None, "cond's pred")
    if pred_out.dtype != dtypes.bool:
        raise TypeError(f"cond's pred must be a bool tensor, got {pred_out.dtype.name}")
    base = name or "cond"
    true_g, (true_s, true_flat) = trace(true_fn, [], base + "_true", g)
    false_g, (false_s, false_flat) = trace(false_fn, [], base + "_false", g)
    if true_s != false_s:
        raise ValueError(
            "true_fn and false_fn must return the same structure of tensors; true_fn "
            f"returned {_describe(true_s)} and false_fn {_describe(false_s)}")
    for i, (t, f) in enumerate(zip(true_flat, false_flat)):
        if t.dtype != f.dtype:
            raise TypeError(
                f"true_fn and false_fn must return the same dtypes: result {i} is "
                f"{t.dtype.name} in true_fn and {f.dtype.name} in false_fn")
    captured = _union(true_g, false_g)
    then_f = _finish(true_g, [], true_flat, true_s, captured)
    else_f = _finish(false_g, [], false_flat, false_s, captured)
    then_f.add_to_graph(g)
    else_f.add_to_graph(g)
    stateful = then_f.stateful or else_f.stateful
    op = g.create_op("If" if stateful else "StatelessIf", [pred_out, list(captured)], {
        "Tout": then_f.output_dtypes,
        "then_branch": then_f.func_attr(), "else_branch": else_f.func_attr(),
    }, name=name)
    return pack(true_s, list(op.outputs))


def _describe(structure: Any) -> str:
    return repr(structure).replace("0", "tensor")


def while_loop(cond: Callable[..., Any], body: Callable[..., Any], loop_vars: Any,
               maximum_iterations: Any = None, parallel_iterations: int = 10,
               shape_invariants: Any = None, name: str | None = None) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is true (and at
    most `maximum_iterations` times), as ``tf.while_loop``; returns the last loop_vars,
    in their structure. `body` must keep each loop variable's dtype and shape, or the
    shape given for it in `shape_invariants` (the structure of loop_vars, with None for
    dims, or a whole shape, that may change)."""
    single = not isinstance(loop_vars, (list, tuple))
    as_list = [loop_vars] if single else list(loop_vars)
    structure = structure_of(as_list)
    g = _graph()
    if g is None:
        done = _eager_loop(cond, body, as_list, structure, maximum_iterations, single)
        return done if single else type(loop_vars)(done)
    flat_in = [_output_of(g, v, None, f"loop variable {i}")
               for i, v in enumerate(flatten(as_list))]
    counter = _output_of(g, 0, dtypes.int32, "the loop counter")
    limit = _output_of(g, -1 if maximum_iterations is None else maximum_iterations,
                       dtypes.int32, "maximum_iterations")
    if shape_invariants is None:
        invariants = [v.shape for v in flat_in]
    else:
        invariants = _shapes_like(structure, [shape_invariants] if single
                                  else list(shape_invariants))
    specs = [(dtypes.int32, ()), (dtypes.int32, ())] + [
        (v.dtype, s) for v, s in zip(flat_in, invariants)]
    base = name or "while"

    def unpack(flat: Sequence[Any]) -> list[Any]:
        return list(pack(structure, flat))

    def cond_fn(i: Output, n: Output, *flat: Output) -> Any:
        user = _output_of(get_default_graph(), cond(*unpack(flat)), None, "cond's result")
        if user.dtype != dtypes.bool:
            raise TypeError(f"while_loop's cond must return a bool tensor, got {user.dtype.name}")
        if maximum_iterations is None:
            return user
        gg = get_default_graph()
        below = gg.create_op("Less", [i, n]).outputs[0]
        return gg.create_op("LogicalAnd", [below, user]).outputs[0]

    def body_fn(i: Output, n: Output, *flat: Output) -> Any:
        result = _as_list(body(*unpack(flat)), single, len(as_list))
        if structure_of(list(result)) != structure:
            raise ValueError(
                "while_loop's body must return the structure of loop_vars: "
                f"{_describe(structure)}, got {_describe(structure_of(list(result)))}")
        gg = get_default_graph()
        out = []
        for k, (v, before) in enumerate(zip(flatten(list(result)), flat)):
            o = _output_of(gg, v, None, f"loop variable {k}")
            if o.dtype != before.dtype:
                raise TypeError(
                    f"while_loop's body changed loop variable {k} from {before.dtype.name} "
                    f"to {o.dtype.name}")
            if before.shape is not None and o.shape is not None and \
                    len(before.shape) != len(o.shape):
                raise ValueError(
                    f"while_loop's body changed the rank of loop variable {k} from "
                    f"{len(before.shape)} to {len(o.shape)}")
            if before.shape is not None and o.shape is not None and any(
                    a is not None and a != b for a, b in zip(before.shape, o.shape)):
                raise ValueError(
                    f"while_loop's body changed the shape of loop variable {k} from "
                    f"{before.shape} to {o.shape}; give shape_invariants with None for "
                    "the dims that change")
            out.append(o)
        one = _output_of(gg, 1, dtypes.int32, "one")
        return [gg.create_op("AddV2", [i, one]).outputs[0], n, *out]

    cond_g, (_, cond_flat) = trace(cond_fn, specs, base + "_cond", g)
    body_g, (_, body_flat) = trace(body_fn, specs, base + "_body", g)
    captured = _union(cond_g, body_g)
    cond_f = _finish(cond_g, cond_g.inputs, cond_flat, 0, captured)
    # The captured tensors are loop variables that the body passes on unchanged.
    body_outs = body_flat + [body_g.capture(v) for v in captured]
    body_f = _finish(body_g, body_g.inputs, body_outs, 0, captured)
    cond_f.add_to_graph(g)
    body_f.add_to_graph(g)
    stateful = cond_f.stateful or body_f.stateful
    inputs = [counter, limit, *flat_in, *captured]
    op = g.create_op("While" if stateful else "StatelessWhile", [inputs], {
        "cond": cond_f.func_attr(), "body": body_f.func_attr(),
        "parallel_iterations": parallel_iterations,
    }, name=name)
    results = list(op.outputs)[2:2 + len(flat_in)]
    packed = unpack(results)
    return packed[0] if single else type(loop_vars)(packed)


def _eager_loop(cond: Callable[..., Any], body: Callable[..., Any], values: list[Any],
                structure: Any, maximum_iterations: Any, single: bool) -> Any:
    limit = None if maximum_iterations is None else int(_convert(maximum_iterations, None, True))
    # As in a graph, the loop variables are tensors from the start.
    values = pack(structure, [_convert(v, None, True) for v in flatten(values)])
    steps = 0
    while (limit is None or steps < limit) and bool(_convert(cond(*values), None, True)):
        new = _as_list(body(*values), single, len(values))
        if structure_of(new) != structure:
            raise ValueError(
                "while_loop's body must return the structure of loop_vars: "
                f"{_describe(structure)}, got {_describe(structure_of(new))}")
        for k, (a, b) in enumerate(zip(flatten(values), flatten(new))):
            da, db = _convert(a, None, True).dtype, _convert(b, None, True).dtype
            if da != db:
                raise TypeError(
                    f"while_loop's body changed loop variable {k} from {da.name} to {db.name}")
        values = new
        steps += 1
    return values[0] if single else values


def _shapes_like(structure: Any, shapes: Any) -> list[Any]:
    """The shapes of `shapes` (shape_invariants: the structure of loop_vars, a shape at
    each tensor) in the order flatten gives the loop variables."""
    if isinstance(structure, (list, tuple)):
        if not isinstance(shapes, (list, tuple)) or len(shapes) != len(structure):
            raise ValueError("shape_invariants must have the structure of loop_vars")
        return [s for st, sh in zip(structure, shapes) for s in _shapes_like(st, sh)]
    if isinstance(structure, dict):
        return [s for k in sorted(structure) for s in _shapes_like(structure[k], shapes[k])]
    return [] if structure is None else [None if shapes is None else tuple(shapes)]


def _as_list(result: Any, single: bool, count: int) -> list[Any]:
    """The body's result as a list of loop variables (one variable may come bare)."""
    if single or (count == 1 and not isinstance(result, (list, tuple))):
        return [result]
    return list(result)


__all__ = ["cond", "while_loop"]
