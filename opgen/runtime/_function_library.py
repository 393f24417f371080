"""The function library a traced body holds besides opgen's own traces (the functions
an imported GraphDef brought), carried wherever the trace goes, and whether calls into
a library have state.

A body that imports a GraphDef (``opgen.import_graph_def`` inside an
``opgen.function``, a cond branch, a loop body) gets the GraphDef's FunctionDefs in its
scratch graph's library. The ``TF_Function`` made of the body names them without
holding them, so every graph and eager context the trace is added to receives them too,
as TensorFlow's FuncGraph passes its functions on: merged all or nothing into a graph
(gradient entries included), one by one into the eager context. A function already
there under the same name is kept when it is the same definition and refused
(``InvalidArgumentError``) when it differs.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from typing import Any

from opgen.protos import function_pb2, graph_pb2
from opgen.runtime import _lib, _opplan
from opgen.runtime.errors import InvalidArgumentError, NotFoundError, raise_for_status

_SIGNATURES = {
    "TF_GraphNumFunctions": (ctypes.c_int, [ctypes.c_void_p]),
    "TFE_ContextAddFunctionDef": (None, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                         ctypes.c_void_p]),
}
_capi: Any = None

# Ops whose own OpDef is stateful only because what they call might be: a call of
# them has state exactly when a function they call has (TensorFlow picks the
# Stateless* forms by the same rule).
CALL_OPS = frozenset({"If", "While", "Case", "StatefulPartitionedCall"})


def _c() -> Any:
    global _capi
    if _capi is None:
        _capi = _lib.declared(_SIGNATURES)
    return _capi


def library_of(graph: Any, leave_out: Iterable[str] = ()) -> function_pb2.FunctionDefLibrary | None:
    """`graph`'s library without the functions named in `leave_out`; None when nothing
    else is there (the common case, answered without serializing the graph)."""
    if _c().TF_GraphNumFunctions(graph._c_graph) == 0:
        return None
    library = graph.as_graph_def().library
    skip = set(leave_out)
    kept = [f for f in library.function if f.signature.name not in skip]
    if not kept:
        return None
    names = {f.signature.name for f in kept}
    out = function_pb2.FunctionDefLibrary(function=kept)
    out.gradient.extend(g for g in library.gradient if g.function_name in names)
    out.registered_gradients.extend(library.registered_gradients)
    return out


def add_to_graph(library: function_pb2.FunctionDefLibrary, graph: Any, owner: str) -> None:
    """Merges `library` into `graph`'s (all or nothing), as importing a GraphDef does."""
    runtime = _lib.graph_lib()
    data = graph_pb2.GraphDef(library=library).SerializeToString()
    options = runtime.TF_NewImportGraphDefOptions()
    buffer = runtime.TF_NewBufferFromString(data, len(data))
    status = _lib.thread_status()
    results = None
    try:
        results = runtime.TF_GraphImportGraphDefWithResults(graph._c_graph, buffer, options,
                                                            status.ptr)
        _raise_with_owner(status, owner)
    finally:
        if results:
            runtime.TF_DeleteImportGraphDefResults(results)
        runtime.TF_DeleteBuffer(buffer)
        runtime.TF_DeleteImportGraphDefOptions(options)


def add_to_context(library: function_pb2.FunctionDefLibrary, ctx: Any, owner: str) -> None:
    """Adds each function of `library` to the eager context `ctx`'s library."""
    status = _lib.thread_status()
    for function in library.function:
        data = function.SerializeToString()
        _c().TFE_ContextAddFunctionDef(ctx, data, len(data), status.ptr)
        _raise_with_owner(status, owner)


def _raise_with_owner(status: Any, owner: str) -> None:
    try:
        raise_for_status(status)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(
            f"the function library {owner} carries (from an imported GraphDef) clashes: "
            f"{e.message}") from None


class Statefulness:
    """Which functions of a library have state: a stateful op inside, a signature
    marked ``is_stateful`` (field 17), or a call of a stateful function (through a
    function-name node or any func attr of a call op), found once per function."""

    def __init__(self, library: function_pb2.FunctionDefLibrary) -> None:
        self._functions = {f.signature.name: f for f in library.function}
        self._known: dict[str, bool] = {}

    def function(self, name: str) -> bool:
        known = self._known.get(name)
        if known is not None:
            return known
        fdef = self._functions.get(name)
        if fdef is None:
            return True  # not here: nothing says it is free of state
        self._known[name] = False  # (a recursive call adds no state of its own)
        stateful = fdef.signature.is_stateful or any(self.node(n) for n in fdef.node_def)
        self._known[name] = stateful
        return stateful

    def node(self, node: Any) -> bool:
        """Whether a NodeDef (or an Operation-like object with ``type`` and the attrs
        in ``attr``) has state."""
        op = node.op
        if op in self._functions:
            return self.function(op)
        try:
            plan = _opplan.registry.plan(op)
        except NotFoundError:
            return True
        if op in CALL_OPS:
            return any(self.function(name) for name in called_functions(node.attr))
        return bool(plan.op_def.is_stateful)


def called_functions(attrs: Any) -> list[str]:
    """The function names in a node's func and list(func) attrs."""
    names = []
    for value in attrs.values():
        kind = value.WhichOneof("value")
        if kind == "func":
            names.append(value.func.name)
        elif kind == "list":
            names.extend(f.name for f in value.list.func)
    return names
