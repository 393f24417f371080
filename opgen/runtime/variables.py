"""``opgen.Variable``: a resource variable, as ``tf.Variable`` is for its user.

The state lives in the runtime (C++ behind the C ABI, so every language shares it):
a ``VarHandleOp`` names a variable of the resource manager of the eager context or of
the session that runs the graph, and ``ReadVariableOp`` / ``AssignVariableOp`` /
``AssignAddVariableOp`` / ``AssignSubVariableOp`` act on it through that handle.

Eagerly, a Variable gets an anonymous handle (a variable of its own, as TensorFlow 2's
eager variables) that is assigned its initial value at once and destroyed when the
Variable goes away. In a graph (inside ``Graph.as_default()``) it builds TensorFlow's
nodes: ``NAME`` (VarHandleOp, shared_name NAME), ``NAME/Initializer/initial_value``,
``NAME/Assign`` (the ``initializer``, to run once per session),
``NAME/IsInitialized/VarIsInitializedOp`` and ``NAME/Read/ReadVariableOp``; values are
kept per session across ``Session.run`` calls. ``global_variables_initializer()``
groups the initializers of a graph's variables in one ``NoOp``.

Operators and op inputs see the variable's current value (``read_value()``), as
TensorFlow's do.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

import numpy as np

from opgen.runtime import _boolean_mask, _operators, dtypes, eager, errors, graph, graph_mode
from opgen.runtime._operators import TensorOperators
from opgen.runtime.graph import Graph, Operation, Output
from opgen.runtime.tensor import Tensor, _convert

# TensorFlow's ResourceHandle::ANONYMOUS_NAME: a VarHandleOp with this shared_name makes
# a new variable on every run (the runtime names it uniquely).
ANONYMOUS_NAME = "cd2c89b7-88b7-44c8-ad83-06c2a9158347"

# The variables built in each graph, in creation order, for global_variables_initializer.
_graph_variables: weakref.WeakKeyDictionary[Graph, list[Variable]] = weakref.WeakKeyDictionary()


def _destroy(handle: Tensor) -> None:
    """Deletes an eager variable's state once its Variable is gone."""
    with contextlib.suppress(Exception):  # at interpreter exit the runtime may be gone
        eager.execute_eager("DestroyResourceOp", [handle], {"ignore_lookup_error": True})


def _static_shape(value: Any) -> tuple[int | None, ...] | None:
    shape = value.shape
    return None if shape is None else tuple(shape)


# Called as hook(variable, value) after each eager read (opgen.runtime.backprop's tapes).
_read_hooks: list = []
# Called as hook(variable) when an eager variable is used through its handle by one of
# its methods (sparse_read): the tapes watch it, as TensorFlow's variable_accessed.
_access_hooks: list = []


class Variable:
    """A mutable tensor kept by the runtime between ops (eager) or runs (sessions).

    ``initial_value``: a tensor, Python or numpy data, or a callable returning one;
    ``dtype`` converts it (Python data) or must match it (tensors). ``name`` names the
    graph nodes ("Variable" by default) and ``name`` reports it as "NAME:0".
    ``trainable`` is kept for optimizers.
    """

    # numpy defers its binary operators (`array @ v`) to the variable's reflected ones,
    # as it does for Tensors (TensorOperators sets the same priority).
    __array_priority__ = 100

    def __init__(self, initial_value: Any, dtype: Any = None, name: str | None = None,
                 trainable: bool = True) -> None:
        if initial_value is None:
            raise ValueError("initial_value must be given")
        if callable(initial_value):
            initial_value = initial_value()
        want = dtypes.as_dtype(dtype) if dtype is not None else None
        self._trainable = bool(trainable)
        g = graph_mode._thread_graph()
        if traced_eagerly(g) and not isinstance(initial_value, Output):
            g = None  # made while tracing a function called eagerly: lifted out, as TF does
        if g is None and isinstance(initial_value, Output):
            g = initial_value.graph
        if g is None:
            self._init_eager(initial_value, want, name)
        else:
            self._init_graph(g, initial_value, want, name)

    # ---- construction ----

    def _init_eager(self, initial_value: Any, want: dtypes.DType | None,
                    name: str | None) -> None:
        value = _convert(initial_value, want, False)
        self._graph: Graph | None = None
        self._dtype = value.dtype
        self._shape: tuple[int | None, ...] | None = tuple(value.shape)
        self._name = f"{name or 'Variable'}:0"
        self._initial_value: Tensor | Output = value
        self._initializer: Operation | None = None
        self._handle = eager.execute_eager(
            "VarHandleOp", [],
            {"dtype": self._dtype, "shape": list(self._shape), "shared_name": ANONYMOUS_NAME,
             "debug_name": name or "Variable"})[0]
        eager.execute_eager("AssignVariableOp", [self._handle, value], {})
        self._finalizer = weakref.finalize(self, _destroy, self._handle)
        graph_mode.eager_variables[id(self._handle)] = self

    def _init_graph(self, g: Graph, initial_value: Any, want: dtypes.DType | None,
                    name: str | None) -> None:
        self._graph = g
        init: Output
        with g.name_scope(name or "Variable") as scope:
            shared_name = scope[:-1]
            if isinstance(initial_value, Output):
                if want is not None and initial_value.dtype != want:
                    raise ValueError(f"initial_value is {initial_value.dtype.name}, "
                                     f"dtype asks for {want.name}")
                init = initial_value
            else:
                value = _convert(initial_value, want, False)
                with g.name_scope("Initializer"):
                    init = g.create_op("Const", [], {"dtype": value.dtype, "value": value.numpy()},
                                       name="initial_value").outputs[0]
            self._dtype = init.dtype
            shape = _static_shape(init)
            self._shape = shape if shape is not None else None
            handle_op = g.create_op(
                "VarHandleOp", [],
                {"dtype": self._dtype, "shape": list(shape) if shape is not None else None,
                 "shared_name": shared_name, "debug_name": scope}, name=scope)
            self._handle = handle_op.outputs[0]
            self._name = f"{shared_name}:0"
            self._initial_value = init
            with g.name_scope("IsInitialized"):
                self._is_initialized = g.create_op("VarIsInitializedOp", [self._handle],
                                                   {}).outputs[0]
            self._initializer = g.create_op("AssignVariableOp", [self._handle, init],
                                            {"dtype": self._dtype}, name="Assign")
            with g.name_scope("Read"):
                self._graph_value = g.create_op("ReadVariableOp", [self._handle],
                                                {"dtype": self._dtype}).outputs[0]
        _graph_variables.setdefault(g, []).append(self)

    # ---- what it is ----

    @property
    def handle(self) -> Tensor | Output:
        """The DT_RESOURCE scalar naming the variable: the input of the generated
        ``ops.read_variable_op``, ``ops.assign_variable_op`` ..."""
        return self._handle

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        return self._shape

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def graph(self) -> Graph | None:
        """The graph the variable was built in; None for an eager variable."""
        return self._graph

    @property
    def initializer(self) -> Operation | None:
        """The op that assigns the initial value (graph mode); None eagerly, where the
        variable is initialized when made."""
        return self._initializer

    @property
    def initial_value(self) -> Tensor | Output:
        return self._initial_value

    @property
    def op(self) -> Operation:
        """The VarHandleOp (graph mode)."""
        if self._graph is None:
            raise AttributeError("an eager variable has no op")
        return self._handle.op

    def is_initialized(self) -> Any:
        """Whether the variable holds a value: a bool eagerly, an Output in a graph."""
        if self._graph is not None:
            return self._is_initialized
        return bool(eager.execute_eager("VarIsInitializedOp", [self._handle], {})[0].numpy())

    # ---- reading ----

    def _run(self, op_type: str, inputs: list[Any], attrs: dict[str, Any],
             name: str | None = None) -> Any:
        if self._graph is None:
            result = eager.execute_eager(op_type, inputs, attrs, name)
            if op_type == "ReadVariableOp":
                for hook in _read_hooks:  # opgen.GradientTape notes the read
                    hook(self, result[0])
            return result
        return graph_mode.build_op(self._graph, op_type, inputs, attrs, name)

    def read_value(self) -> Tensor | Output:
        """The current value: a new Tensor eagerly (a snapshot: later assignments do not
        change it); in a graph, a new ReadVariableOp node's Output; in a function being
        traced, a read of the captured variable when the function runs."""
        body = tracing_body(self)
        if body is not None:
            read = body.read_captured_variable(self)
            if read is not None:
                return read
        return self._run("ReadVariableOp", [self._handle], {"dtype": self._dtype})[0]

    def value(self) -> Tensor | Output:
        """The value the operators use: read_value() eagerly; in a graph the
        ``NAME/Read/ReadVariableOp`` node built with the variable."""
        if self._graph is not None:
            return self._graph_value
        return self.read_value()

    def sparse_read(self, indices: Any, name: str | None = None) -> Tensor | Output:
        """The variable's rows at `indices` (TensorFlow's ``Variable.sparse_read``, what
        ``tf.gather(v, indices)`` runs for a variable): a ResourceGather of the handle,
        reading only those rows. Eagerly a GradientTape watches the variable as for a
        read (its gradient is an IndexedSlices, as TensorFlow's); in a graph,
        a ResourceGather node; in a traced function, a gather of the captured read."""
        if self._graph is not None:
            return graph_mode.build_op(self._graph, "ResourceGather", [self._handle, indices],
                                       {"dtype": self._dtype}, name)[0]
        if graph.thread_has_default_graph():  # tracing: the handle is not the body's
            return eager.execute_op("GatherV2", [_operand(self), indices, 0], {}, name)[0]
        for hook in _access_hooks:
            hook(self)
        return eager.execute_op("ResourceGather", [self._handle, indices],
                                {"dtype": self._dtype}, name)[0]

    def gather_nd(self, indices: Any, name: str | None = None) -> Tensor | Output:
        """The slices that index rows address (TensorFlow's ``Variable.gather_nd``): a
        ResourceGatherNd of the handle, watched by a GradientTape as sparse_read is."""
        if self._graph is not None:
            return graph_mode.build_op(self._graph, "ResourceGatherNd", [self._handle, indices],
                                       {"dtype": self._dtype}, name)[0]
        if graph.thread_has_default_graph():  # tracing: the handle is not the body's
            return eager.execute_op("GatherNd", [_operand(self), indices], {}, name)[0]
        for hook in _access_hooks:
            hook(self)
        return eager.execute_op("ResourceGatherNd", [self._handle, indices],
                                {"dtype": self._dtype}, name)[0]

    def numpy(self) -> np.ndarray:
        if self._graph is not None:
            raise NotImplementedError("numpy() is only available for eager variables; "
                                      "run read_value() in a Session")
        return self.read_value().numpy()  # type: ignore[union-attr]  # eager: a Tensor

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def _opgen_value(self) -> Tensor | Output:
        """What an op input or a conversion takes from the variable: its value."""
        return self.value()

    # ---- assigning ----

    def _check_value(self, value: Any, what: str) -> Any:
        if isinstance(value, Variable):
            value = value.value()
        if isinstance(value, Output):
            if not _visible_in(value.graph, self._graph or tracing_body(self)):
                raise ValueError(f"cannot {what} a graph Output to a variable of another graph "
                                 "or an eager variable")
            if value.dtype != self._dtype:
                raise TypeError(f"cannot {what} a {value.dtype.name} value to variable "
                                f"'{self._name}' of dtype {self._dtype.name}")
        else:
            try:  # Python values convert; tensors and numpy data must have the dtype
                value = _convert(value, self._dtype, True)
            except Exception as e:  # noqa: BLE001 - re-raised naming the variable
                raise type(e)(f"cannot {what} to variable '{self._name}' "
                              f"({self._dtype.name}): {e}") from None
        have, got = self._shape, _static_shape(value)
        if (have is not None and got is not None and len(have) == len(got) and
                any(a is not None and b is not None and a != b for a, b in zip(have, got))) or (
                have is not None and got is not None and len(have) != len(got)):
            raise ValueError(
                f"Cannot {what} to variable '{self._name}': shape mismatch. The variable "
                f"shape {have}, and the value shape {got} are incompatible.")
        return value

    def _update(self, op_type: str, what: str, value: Any, read_value: bool,
                name: str | None, operands: list[Any] | None = None,
                attrs: dict[str, Any] | None = None) -> Any:
        """Runs `op_type` on the handle, `operands` (before the value) and the value
        (checked against the whole variable unless `operands` address a part of it)."""
        body = tracing_body(self)
        if body is not None:
            return self._update_in_body(body, op_type, what, value, read_value, name,
                                        operands, attrs)
        value = (self._check_value(value, what) if operands is None
                 else self._check_part(value, what))
        op = self._run(op_type, [self._handle, *(operands or []), value], attrs or {}, name)
        if self._graph is None:
            return self if read_value else None
        if not read_value:
            return op
        with self._graph.control_dependencies([op]):
            return self.read_value()

    def _update_in_body(self, body: Any, op_type: str, what: str, value: Any,
                        read_value: bool, name: str | None, operands: list[Any] | None = None,
                        attrs: dict[str, Any] | None = None) -> Any:
        """The update as a node of the function body being traced: it runs at each call
        (a control output of the function), after the body's earlier uses of the variable
        and before its later ones."""
        if body.variables_as_values:
            raise errors.UnimplementedError(
                f"cannot {what} to variable '{self._name}' in a function differentiated by "
                "an outer GradientTape: assign outside the tape, or take the gradient inside "
                "the function")
        value = (self._check_value(value, what) if operands is None
                 else self._check_part(value, what))
        op = graph_mode.build_op(body, op_type, [self._handle, *(operands or []), value],
                                 attrs or {}, name)
        if not read_value:
            return op
        with body.control_dependencies([op]):
            return self.read_value()

    def assign(self, value: Any, use_locking: Any = None, name: str | None = None,
               read_value: bool = True) -> Any:
        """Sets the value (same dtype and shape). Eagerly returns the variable (None
        with ``read_value=False``); in a graph, the new value's Output (the assign
        Operation with ``read_value=False``)."""
        return self._update("AssignVariableOp", "assign", value, read_value, name)

    def assign_add(self, delta: Any, use_locking: Any = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        """Adds `delta`; returns as ``assign`` does."""
        return self._update("AssignAddVariableOp", "add", delta, read_value, name)

    def assign_sub(self, delta: Any, use_locking: Any = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        """Subtracts `delta`; returns as ``assign`` does."""
        return self._update("AssignSubVariableOp", "subtract", delta, read_value, name)

    def _check_part(self, value: Any, what: str) -> Any:
        """A value for a part of the variable: its dtype; the op checks the shape."""
        if isinstance(value, Variable):
            value = value.value()
        if isinstance(value, Output):
            return self._check_value(value, what) if value.dtype != self._dtype else value
        try:
            return _convert(value, self._dtype, True)
        except Exception as e:  # noqa: BLE001 - re-raised naming the variable
            raise type(e)(f"cannot {what} to variable '{self._name}' "
                          f"({self._dtype.name}): {e}") from None

    # ---- parts: slices and index rows (tf.Variable's) ----

    def __getitem__(self, key: object) -> Any:
        """``v[key]``: the slice's value, as the value's ``[key]``; for a strided slice
        it also has ``.assign(x)`` (ResourceStridedSliceAssign), as tf.Variable's has."""
        value = _operand(self)[key]
        if _boolean_mask.is_mask(key, _operators.is_tensor):
            return value
        return VariableSlice(self, key, value)

    def _assign_slice(self, key: object, value: Any, name: str | None,
                      read_value: bool = True) -> Any:
        packed, attrs = _operators.strided_slice_operands(key)
        return self._update("ResourceStridedSliceAssign", "assign", value, read_value, name,
                            packed, attrs)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Replaces the slices that index rows address (ResourceScatterNdUpdate);
        returns as ``assign`` does."""
        return self._update("ResourceScatterNdUpdate", "scatter", updates, True, name,
                            [indices])

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Adds `updates` at index rows (ResourceScatterNdAdd); returns as ``assign``."""
        return self._update("ResourceScatterNdAdd", "scatter", updates, True, name, [indices])

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """Subtracts `updates` at index rows (ResourceScatterNdSub); returns as ``assign``."""
        return self._update("ResourceScatterNdSub", "scatter", updates, True, name, [indices])

    def scatter_nd_max(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """The element-wise maximum at index rows (ResourceScatterNdMax)."""
        return self._update("ResourceScatterNdMax", "scatter", updates, True, name, [indices])

    def scatter_nd_min(self, indices: Any, updates: Any, name: str | None = None) -> Any:
        """The element-wise minimum at index rows (ResourceScatterNdMin)."""
        return self._update("ResourceScatterNdMin", "scatter", updates, True, name, [indices])

    # ---- display ----

    def __repr__(self) -> str:
        shape = self._shape
        head = f"<opgen.Variable '{self._name}' shape={shape} dtype={self._dtype.name}"
        if self._graph is not None:
            return head + ">"
        return head + f", numpy={self.numpy()!r}>"


def traced_eagerly(g: Any) -> bool:
    """Whether `g` is a function body traced from eager code (its outermost graph is a
    function body, not a user's Graph)."""
    while getattr(g, "outer", None) is not None:
        g = g.outer
    return hasattr(g, "capture_variable")


def _visible_in(source: Graph, g: Any) -> bool:
    """Whether an Output of `source` can be used in `g`: the same graph, or one that `g`
    (a function body) is nested in and captures from."""
    while g is not None:
        if g is source:
            return True
        g = getattr(g, "outer", None)
    return False


def tracing_body(variable: Variable) -> Any:
    """The function body being traced on this thread that `variable` (of another graph, or
    eager) is captured into; None outside a trace."""
    g = graph_mode._thread_graph()
    if not hasattr(g, "capture_variable") or g is variable._graph:
        return None
    return g


def _operand(variable: Variable) -> Any:
    """The value an operator uses; for an eager variable inside a function body being
    traced (opgen.function), a read in that body, made when the function is called."""
    read = getattr(graph_mode._thread_graph(), "read_captured_variable", None)
    captured = read(variable) if read is not None and variable._graph is None else None
    return captured if captured is not None else variable.value()


def _delegate(method: str):
    def operator(self: Variable, *args: Any) -> Any:
        # Another Variable operand counts by its value too (`v + w`).
        args = tuple(_operand(a) if isinstance(a, Variable) else a for a in args)
        return getattr(_operand(self), method)(*args)
    operator.__name__ = method
    operator.__doc__ = f"``{method}`` of the variable's value."
    return operator


# The operators of opgen.Tensor / opgen.Output, applied to the value (TensorFlow's
# variables overload the same set). == and hash stay identity, as for tf.Variable.
for _method in sorted(vars(TensorOperators)):
    if (_method.startswith("__") and _method.endswith("__") and
            _method not in {"__eq__", "__ne__", "__hash__", "__init__", "__slots__", "__getitem__",
                            "__module__", "__doc__", "__qualname__", "__dict__",
                            "__weakref__", "__annotations__", "__firstlineno__",
                            "__static_attributes__"}
            and callable(vars(TensorOperators)[_method])):
        setattr(Variable, _method, _delegate(_method))
del _method


class VariableSlice:
    """What ``variable[key]`` gives: the slice's value (a Tensor eagerly, a graph
    Output), used as that value by ops, operators and numpy, and ``assign(x)``, which
    writes `x` (broadcast to the slice's shape) into the variable's slice."""

    __slots__ = ("_variable", "_key", "_value")

    def __init__(self, variable: Variable, key: object, value: Any) -> None:
        self._variable, self._key, self._value = variable, key, value

    def assign(self, value: Any, name: str | None = None, read_value: bool = True) -> Any:
        """``variable[key] = value``; returns as ``Variable.assign`` does."""
        return self._variable._assign_slice(self._key, value, name, read_value)

    def _opgen_value(self) -> Any:
        return self._value

    def __getattr__(self, attr: str) -> Any:  # dtype, shape, numpy(), ...: the value's
        return getattr(self._value, attr)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self._value)
        return array if dtype is None else array.astype(dtype)

    def __repr__(self) -> str:
        return repr(self._value)


def _slice_operator(method: str):
    def operator(self: VariableSlice, *args: Any) -> Any:
        args = tuple(_operand(a) if isinstance(a, Variable) else a for a in args)
        return getattr(self._value, method)(*args)
    operator.__name__ = method
    return operator


for _method in sorted(vars(TensorOperators)):
    if (_method.startswith("__") and _method.endswith("__") and
            callable(vars(TensorOperators)[_method]) and _method not in {
                "__init__", "__slots__", "__eq__", "__ne__", "__hash__"}):
        setattr(VariableSlice, _method, _slice_operator(_method))
# and the Python conversions a Tensor has (an Output lacks some: the call fails there too)
for _method in ("__len__", "__iter__", "__bool__", "__float__", "__int__", "__index__",
                "__complex__", "__format__"):
    setattr(VariableSlice, _method, _slice_operator(_method))
del _method


def variables_initializer(var_list: list[Variable], name: str = "init") -> Operation | None:
    """One NoOp that runs the initializers of `var_list` (graph variables of one graph),
    for ``Session.run``; None for an empty list."""
    initializers = [v.initializer for v in var_list if v.initializer is not None]
    if not initializers:
        return None
    g = initializers[0].graph
    return g.create_op("NoOp", [], {}, name=name, control_inputs=initializers)


def global_variables_initializer() -> Operation | None:
    """variables_initializer over every Variable built in the default graph."""
    g = graph_mode._thread_graph()
    if g is None:
        return None
    return variables_initializer(list(_graph_variables.get(g, [])))


__all__ = ["ANONYMOUS_NAME", "Variable", "VariableSlice", "global_variables_initializer",
           "variables_initializer"]
