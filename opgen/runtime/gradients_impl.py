"""Graph gradients: ``opgen.gradients`` (TensorFlow's ``tf.compat.v1.gradients``) over the
runtime's ``TF_AddGradients``, and gradient functions written in Python
(``opgen.RegisterGradient``, ``opgen.NotDifferentiable``) registered through
``OPGEN_RegisterGradient`` (runtime/include/opgen/gradients.h).

The backward pass and every built-in gradient live in the runtime (C++), so every
language gets the same gradients; a Python gradient function is called back from there
with the forward Operation and the gradients of its outputs, and builds its nodes with
the generated ops in graph mode, under the scope the runtime gives it
("gradients/<op>_grad/").
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

from opgen.runtime import _lib, _sparse_gradients, graph_mode
from opgen.runtime.errors import OpError, raise_for_status
from opgen.runtime.graph import Graph, Output

_TF_Output = _lib.TF_Output
_P = ctypes.POINTER
_c_void_p, _c_int, _c_char_p = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p

# OPGEN_GradientFunction: void (*)(OPGEN_GradientContext*, void* user_data, TF_Status*)
_GRADIENT_FUNCTION = ctypes.CFUNCTYPE(None, _c_void_p, _c_void_p, _c_void_p)

_SIGNATURES = {
    "TF_AddGradients": (None, [_c_void_p, _P(_TF_Output), _c_int, _P(_TF_Output), _c_int,
                               _P(_TF_Output), _c_void_p, _P(_TF_Output)]),
    "TF_AddGradientsWithPrefix": (None, [_c_void_p, _c_char_p, _P(_TF_Output), _c_int,
                                         _P(_TF_Output), _c_int, _P(_TF_Output), _c_void_p,
                                         _P(_TF_Output)]),
    "TF_SetStatus": (None, [_c_void_p, _c_int, _c_char_p]),
    "OPGEN_RegisterGradient": (None, [_c_char_p, _GRADIENT_FUNCTION, _c_void_p, _c_void_p]),
    "OPGEN_RegisterNotDifferentiable": (None, [_c_char_p, _c_void_p]),
    "OPGEN_GradientContextGraph": (_c_void_p, [_c_void_p]),
    "OPGEN_GradientContextOperation": (_c_void_p, [_c_void_p]),
    "OPGEN_GradientContextOutputGrad": (_TF_Output, [_c_void_p, _c_int]),
    "OPGEN_GradientContextSetInputGrad": (None, [_c_void_p, _c_int, _TF_Output, _c_void_p]),
    "OPGEN_GradientContextNameScope": (_c_char_p, [_c_void_p]),
}

_lock = threading.Lock()  # the Python gradient table below
_capi: Any = None


def _c() -> Any:
    """The gradient functions of the runtime, declared on first use."""
    global _capi
    if _capi is None:
        _capi = _lib.declared(_SIGNATURES)
    return _capi


# ---- opgen.gradients -------------------------------------------------------------------

_state = threading.local()  # graphs under a gradients() call, and a callback's exception


def _active_graphs() -> dict[int, Graph]:
    graphs = getattr(_state, "graphs", None)
    if graphs is None:
        graphs = _state.graphs = {}
    return graphs


@contextmanager
def _active(g: Graph):
    """Lets Python gradient functions called back during the block find `g`."""
    graphs = _active_graphs()
    key = g._c_graph
    previous = graphs.get(key)
    graphs[key] = g
    try:
        yield
    finally:
        if previous is None:
            del graphs[key]
        else:
            graphs[key] = previous


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_output(value: Any, what: str) -> Output:
    handle = getattr(value, "handle", None)
    if isinstance(handle, Output):  # an opgen.Variable of a graph: its handle
        return handle
    if not isinstance(value, Output):
        raise TypeError(f"opgen.gradients: {what} must be graph Outputs (or graph "
                        f"Variables), got {type(value).__name__}")
    return value


def _scope_taken(g: Graph, scope: str) -> bool:
    prefix = scope + "/"
    return any(op.name == scope or op.name.startswith(prefix) for op in g.get_operations())


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients") -> list:
    """The symbolic partial derivatives of ``sum(ys)`` with respect to each of `xs`, as
    graph Outputs (TensorFlow's ``tf.compat.v1.gradients``).

    `ys` and `xs` are Outputs (or lists of them) of one graph; an ``opgen.Variable`` of
    that graph stands for its handle (the gradient reaching its reads). `grad_ys`, one
    per y, are the gradients fed into the ys (Outputs, or values that become constants
    of each y's dtype); None means ones. The nodes go under the name scope `name`
    ("gradients", then "gradients_1" ...). Returns one entry per x: an Output, or None
    when that x does not reach any y through floating-point tensors, or an
    ``opgen.IndexedSlices`` (as TensorFlow's) where every way from x to the ys goes
    through the params of gathers (ResourceGather, Gather, GatherV2 on axis 0).

    Raises NotFoundError for an op on the path without a gradient function (its message
    names the op type and node) and InvalidArgumentError for grad_ys of the wrong dtype
    or shape; an exception raised by a Python gradient function propagates as it is.
    """
    return grouped(ys, [[x] for x in _as_list(xs)], grad_ys, name)


def grouped(ys: Any, xs: list[list[Any]], grad_ys: Any = None,
            name: str = "gradients") -> list:
    """As :func:`gradients`, one result per group of xs: the sum of their gradients
    (a GradientTape's reads of one variable), sparse where all of them are."""
    y_list = [_as_output(y, "ys") for y in _as_list(ys)]
    groups = [[_as_output(x, "xs") for x in group] for group in xs]
    x_list = [x for group in groups for x in group]
    if not y_list:
        raise ValueError("opgen.gradients: ys is empty")
    g = y_list[0].graph
    for value in y_list + x_list:
        if value.graph is not g:
            raise ValueError(f"opgen.gradients: {value.name} belongs to another graph than "
                             f"{y_list[0].name}")
    dx = None
    if grad_ys is not None:
        grad_list = _as_list(grad_ys)
        if len(grad_list) != len(y_list):
            raise ValueError(f"opgen.gradients: {len(grad_list)} grad_ys for {len(y_list)} ys")
        with g.as_default(), g.name_scope(name + "_grad_ys"):
            grad_outputs = [
                gy if isinstance(gy, Output) else
                graph_mode._as_output(g, gy, y.dtype, f"grad_ys_{i}")
                for i, (y, gy) in enumerate(zip(y_list, grad_list))]
        dx = (_TF_Output * len(grad_outputs))(*[gy._c for gy in grad_outputs])
    # Sources read only through gathers get rows (IndexedSlices) as TensorFlow's do:
    # the runtime differentiates with respect to those gathers' outputs instead.
    sparse = _sparse_gradients.plan(y_list, groups)
    call_xs = [x for group, taps in zip(groups, sparse) if taps is None for x in group]
    call_xs += [op.outputs[0] for taps in sparse if taps is not None for op in taps]
    ny, nx = len(y_list), len(call_xs)
    y_arr = (_TF_Output * ny)(*[y._c for y in y_list])
    x_arr = (_TF_Output * max(nx, 1))(*[x._c for x in call_xs])
    dy_arr = (_TF_Output * max(nx, 1))()
    status = _lib.thread_status()
    capi = _c()
    _state.exception = None
    known = set(g._operations)
    with _active(g):
        if name == "gradients":
            capi.TF_AddGradients(g._c_graph, y_arr, ny, x_arr, nx, dx, status.ptr, dy_arr)
        else:
            prefix, suffix = name, 0
            while _scope_taken(g, prefix):
                suffix += 1
                prefix = f"{name}_{suffix}"
            capi.TF_AddGradientsWithPrefix(g._c_graph, prefix.encode(), y_arr, ny, x_arr, nx,
                                           dx, status.ptr, dy_arr)
    pending, _state.exception = getattr(_state, "exception", None), None
    if status.code != 0:
        # The runtime removed the nodes this call added: forget the Operations made for
        # them (their addresses may be reused by later nodes).
        for c_op in set(g._operations) - known:
            del g._operations[c_op]
    if pending is not None and status.code != 0:
        raise pending
    raise_for_status(status)
    grads = [g._operation(dy_arr[i].oper)._output(dy_arr[i].index) if dy_arr[i].oper else None
             for i in range(nx)]
    return _results(g, name, groups, sparse, grads)


def _results(g: Graph, name: str, groups: list[list[Output]], sparse: list,
             grads: list) -> list:
    """One result per group from the runtime's `grads` (the dense groups' xs', then
    each sparse group's gathers'): a dense group's sum, a sparse one's IndexedSlices."""
    n_dense = sum(len(group) for group, taps in zip(groups, sparse) if taps is None)
    dense, tap_grads = grads[:n_dense], grads[n_dense:]
    results: list[Any] = []
    if all(taps is None and len(group) == 1 for group, taps in zip(groups, sparse)):
        return dense  # nothing to build (and no name scope taken)
    with g.as_default(), g.name_scope(name):
        for group, taps in zip(groups, sparse):
            if taps is None:
                parts = [p for p in dense[:len(group)] if p is not None]
                dense = dense[len(group):]
                results.append(None if not parts else parts[0] if len(parts) == 1 else
                               graph_mode.build_op(g, "AddN", [parts], {})[0])
            else:
                results.append(_sparse_gradients.from_taps(g, taps, tap_grads[:len(taps)]))
                tap_grads = tap_grads[len(taps):]
    return results


# ---- gradient functions written in Python -----------------------------------------------

_functions: dict[int, tuple[str, Callable[..., Any]]] = {}  # user_data key -> (op type, fn)
_generation = [0]  # bumped by every registration made here


def generation() -> int:
    """Changes whenever a gradient registration is made from Python, so graphs built
    with older gradient functions (GradientTape's compiled steps) are not reused."""
    return _generation[0]

_keys: dict[str, int] = {}  # op type -> its key
_next_key = [1]


def _graph_for(c_graph: int) -> Graph:
    g = _active_graphs().get(c_graph)
    if g is None:
        raise RuntimeError("a Python gradient function can only run under opgen.gradients "
                           "(this graph was differentiated from another language)")
    return g


def _call(ctx: int, user_data: int, c_status: int) -> None:
    """The C callback of every Python gradient function; nothing escapes it."""
    capi = _c()
    try:
        op_type, fn = _functions[user_data]
        g = _graph_for(capi.OPGEN_GradientContextGraph(ctx))
        op = g._operation(capi.OPGEN_GradientContextOperation(ctx))
        grads = []
        for i in range(op.num_outputs):
            c_grad = capi.OPGEN_GradientContextOutputGrad(ctx, i)
            grads.append(g._operation(c_grad.oper)._output(c_grad.index) if c_grad.oper else None)
        scope = capi.OPGEN_GradientContextNameScope(ctx).decode()
        with g.as_default(), g.name_scope(scope), g.device(op.device or None):
            result = fn(op, *grads)
            inputs = op.inputs
            results = list(result) if isinstance(result, (list, tuple)) else [result]
            if len(results) != len(inputs):
                raise ValueError(f"the gradient function of {op_type} returned {len(results)} "
                                 f"gradient(s) for {len(inputs)} input(s) of {op.name}")
            outputs = [None if r is None else r if isinstance(r, Output) else
                       graph_mode._as_output(g, r, inputs[i].dtype, f"grad_{i}")
                       for i, r in enumerate(results)]
        for i, out in enumerate(outputs):
            if out is None:
                continue
            capi.OPGEN_GradientContextSetInputGrad(ctx, i, out._c, c_status)
            if _lib.lib().TF_GetCode(c_status) != 0:
                return
    except BaseException as e:  # noqa: BLE001 - becomes the status, re-raised by gradients()
        _state.exception = e
        code = e.code if isinstance(e, OpError) else 2  # TF_UNKNOWN
        message = f"Python gradient function raised {type(e).__name__}: {e}"
        capi.TF_SetStatus(c_status, code, message.encode(errors="replace"))


_callback = _GRADIENT_FUNCTION(_call)  # one C function pointer, alive as long as the module


class RegisterGradient:
    """Decorator registering a Python function as the gradient of an op type
    (TensorFlow's ``tf.RegisterGradient``)::

        @opgen.RegisterGradient("MyOp")
        def _my_op_grad(op, grad):       # op: the forward Operation; one grad per output
            return [grad * 2.0, None]    # one gradient (or None) per input of op

    The function builds its nodes with opgen's ops (it runs inside the graph, under the
    scope "gradients/<op name>_grad/"). As in the runtime, a later registration for the
    same op type replaces the earlier one, built-in gradients included.
    """

    def __init__(self, op_type: str):
        if not isinstance(op_type, str) or not op_type:
            raise TypeError("RegisterGradient takes an op type name (a non-empty string)")
        self._op_type = op_type

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        capi = _c()
        with _lock:
            key = _keys.get(self._op_type)
            if key is None:
                key = _keys[self._op_type] = _next_key[0]
                _next_key[0] += 1
            _functions[key] = (self._op_type, fn)
            _generation[0] += 1
        status = _lib.thread_status()
        capi.OPGEN_RegisterGradient(self._op_type.encode(), _callback, key, status.ptr)
        raise_for_status(status)
        return fn


def _register_internal(op_type: str, fn: Callable[..., Any]) -> None:
    """Registers `fn` as the gradient of `op_type`, an op type new to every graph built so
    far (a function opgen made), so compiled gradient graphs stay valid: no generation
    change."""
    capi = _c()
    with _lock:
        key = _keys[op_type] = _next_key[0]
        _next_key[0] += 1
        _functions[key] = (op_type, fn)
    status = _lib.thread_status()
    capi.OPGEN_RegisterGradient(op_type.encode(), _callback, key, status.ptr)
    raise_for_status(status)


def NotDifferentiable(op_type: str) -> None:
    """Declares that no gradient flows through `op_type` (TensorFlow's
    ``tf.no_gradient`` / ``ops.NotDifferentiable``): the backward pass stops there."""
    if not isinstance(op_type, str) or not op_type:
        raise TypeError("NotDifferentiable takes an op type name (a non-empty string)")
    status = _lib.thread_status()
    _generation[0] += 1
    _c().OPGEN_RegisterNotDifferentiable(op_type.encode(), status.ptr)
    raise_for_status(status)


def _unregister(op_type: str) -> None:
    """Removes a registration made from Python (the built-in gradient, if any, applies
    again); for tests."""
    status = _lib.thread_status()
    _generation[0] += 1
    _c().OPGEN_RegisterGradient(op_type.encode(), _GRADIENT_FUNCTION(), None, status.ptr)
    raise_for_status(status)


__all__ = ["NotDifferentiable", "RegisterGradient", "gradients", "grouped"]
