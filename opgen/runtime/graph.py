"""Graphs as TensorFlow users know them: ``Graph``, ``Operation``, ``Output`` and the
default graph, over TensorFlow's C graph API (``TF_NewGraph`` ...).

A Graph owns one ``TF_Graph*``; Operations and Outputs are views into it that keep
the Graph alive. The same C operation is always the same ``Operation`` object, and
its outputs the same ``Output`` objects, so both compare and hash by identity (cheap
``feed_dict`` keys, as in TensorFlow).
"""

from __future__ import annotations

import ctypes
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from opgen.protos import attr_value_pb2, graph_pb2
from opgen.runtime import _lib, _opplan, dtypes
from opgen.runtime._operators import TensorOperators
from opgen.runtime.errors import InvalidArgumentError, exception_class, raise_for_status

_TF_Output = _lib.TF_Output
_c_int64, _c_size_t, _c_void_p = ctypes.c_int64, ctypes.c_size_t, ctypes.c_void_p


class Graph:
    """A dataflow graph: build it with :meth:`create_op` or :func:`import_graph_def`,
    run it with ``opgen.Session``."""

    def __init__(self) -> None:
        runtime = _lib.graph_lib()
        self._c_graph = runtime.TF_NewGraph()
        self._operations: dict[int, Operation] = {}
        self._lock = threading.Lock()
        # Names handed out so far, lower-cased (TensorFlow treats "foo" and "Foo" as
        # taken together), with how often each was asked for.
        self._names_in_use: dict[str, int] = {}
        self._scopes = threading.local()  # name stack, devices, control deps: per thread
        self._finalizer = weakref.finalize(self, runtime.TF_DeleteGraph, self._c_graph)
        # The graph-level random seed (tf.Graph.seed): opgen.random.set_seed sets it
        # inside an as_default() block; random ops built here derive their seeds from it.
        self.seed: int | None = None

    # ---- default graph ----

    @contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Makes this graph the default graph (of this thread) inside the block."""
        stack = _default_graph_stack()
        stack.append(self)
        _graph_mode_entered(1)
        try:
            yield self
        finally:
            stack.pop()
            _graph_mode_entered(-1)

    # ---- scopes (TensorFlow's naming, devices and control dependencies) ----

    def _scope_state(self):
        state = self._scopes
        if not hasattr(state, "name_stack"):
            state.name_stack, state.device, state.controls = "", None, []
        return state

    @contextmanager
    def name_scope(self, name: str | None):
        """Names operations built inside "`name`/...". As TensorFlow: `name` is made
        unique (`a`, `a_1` ...) unless it ends with "/", which re-enters that scope
        as it is; None or "" goes back to the root. Yields the scope ("a/b/")."""
        state = self._scope_state()
        old = state.name_stack
        if not name:
            new, scope = "", ""
        elif name.endswith("/"):
            new, scope = name[:-1], name
        else:
            _check_scope_name(name, nested=bool(old))
            new = self.unique_name(name)
            scope = new + "/"
        state.name_stack = new
        try:
            yield scope
        finally:
            state.name_stack = old

    @contextmanager
    def device(self, device_name: str | None):
        """Places operations built inside on `device_name` ("/CPU:0"), merged into the
        enclosing block's device as TensorFlow does ("/job:w" then "/CPU:0" gives
        "/job:w/device:CPU:0"); None: no device inside."""
        state = self._scope_state()
        old = state.device
        state.device = _merge_device(old, device_name) if device_name else None
        try:
            yield
        finally:
            state.device = old

    @contextmanager
    def control_dependencies(self, control_inputs):
        """Operations built inside run after `control_inputs` (Operations or Outputs);
        None clears the dependencies of the enclosing blocks. As TensorFlow, an
        operation gets no control edge it already has through its inputs."""
        state = self._scope_state()
        old = state.controls
        if control_inputs is None:
            state.controls = []
        else:
            ops = []
            for control in control_inputs:
                op = control.op if isinstance(control, Output) else control
                if not isinstance(op, Operation) or op.graph is not self:
                    raise ValueError(f"control inputs must be operations or outputs of this "
                                     f"graph, got {control!r}")
                if op not in ops:
                    ops.append(op)
            # (control ops, operations built inside this block)
            state.controls = old + [(ops, set())]
        try:
            yield
        finally:
            state.controls = old

    # ---- lookup ----

    def _operation(self, c_op: int) -> Operation:
        """The Operation for a ``TF_Operation*`` of this graph (one object per op)."""
        op = self._operations.get(c_op)
        if op is None:
            with self._lock:
                op = self._operations.get(c_op)
                if op is None:
                    op = self._operations[c_op] = Operation(self, c_op)
        return op

    def get_operations(self) -> list[Operation]:
        """Every operation, in the order they were added."""
        runtime = _lib.graph_lib()
        position = _c_size_t(0)
        ops: list[Operation] = []
        while True:
            c_op = runtime.TF_GraphNextOperation(self._c_graph, ctypes.byref(position))
            if not c_op:
                return ops
            ops.append(self._operation(c_op))

    def __iter__(self):
        return iter(self.get_operations())

    def __len__(self) -> int:
        return len(self.get_operations())

    def __contains__(self, name: str) -> bool:
        return self._find_operation(name) is not None

    def _find_operation(self, name: str) -> Operation | None:
        c_op = _lib.graph_lib().TF_GraphOperationByName(self._c_graph, name.encode())
        return self._operation(c_op) if c_op else None

    def get_operation_by_name(self, name: str) -> Operation:
        """The operation called `name`; KeyError when there is none, ValueError for a
        tensor name ("x:0")."""
        if not isinstance(name, str):
            raise TypeError(f"operation names are strings, not {type(name).__name__}")
        if ":" in name:
            raise ValueError(f"the name {name!r} looks like a tensor name, not an operation name")
        op = self._find_operation(name)
        if op is None:
            raise KeyError(f"the graph has no operation named {name!r}")
        return op

    def get_tensor_by_name(self, name: str) -> Output:
        """The output called `name` ("op:index"); KeyError when there is none,
        ValueError for an operation name."""
        if not isinstance(name, str):
            raise TypeError(f"tensor names are strings, not {type(name).__name__}")
        op_name, _, index = name.rpartition(":")
        if not op_name or not index.isdigit():
            raise ValueError(f"the name {name!r} is not a tensor name (\"op_name:index\")")
        op = self._find_operation(op_name)
        if op is None:
            raise KeyError(f"the tensor {name!r} does not exist: the graph has no operation "
                           f"named {op_name!r}")
        outputs = op.outputs
        if int(index) >= len(outputs):
            raise KeyError(f"the tensor {name!r} does not exist: {op_name!r} has "
                           f"{len(outputs)} output(s)")
        return outputs[int(index)]

    def as_graph_element(self, obj, allow_tensor: bool = True, allow_operation: bool = True):
        """`obj` (an Output, an Operation, "op:0" or "op") as this graph's Output or
        Operation."""
        if isinstance(obj, Output):
            if obj.graph is not self:
                raise ValueError(f"{obj} is not an element of this graph")
            if not allow_tensor:
                raise TypeError(f"expected an operation, got the tensor {obj.name!r}")
            return obj
        if isinstance(obj, Operation):
            if obj.graph is not self:
                raise ValueError(f"{obj} is not an element of this graph")
            if not allow_operation:
                raise TypeError(f"expected a tensor, got the operation {obj.name!r}")
            return obj
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(f"expected an operation name, got the tensor name {obj!r}")
                return self.get_tensor_by_name(obj)
            if not allow_operation:
                raise ValueError(f"{obj!r} names an operation; name one of its outputs "
                                 f"(\"{obj}:0\")")
            return self.get_operation_by_name(obj)
        raise TypeError(f"cannot interpret a {type(obj).__name__} as a graph element")

    # ---- building ----

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """`name` under the current name scope, with `_1`, `_2` ... appended when it was
        handed out before (TensorFlow's Graph.unique_name: case-insensitive, and a
        name already in the graph, e.g. imported, is skipped too)."""
        stack = self._scope_state().name_stack
        if stack:
            name = f"{stack}/{name}"
        key = name.lower()
        count = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = count + 1
        if count == 0 and self._find_operation(name) is None:
            return name
        suffix = max(count, 1)
        while f"{key}_{suffix}" in self._names_in_use or self._find_operation(f"{name}_{suffix}"):
            suffix += 1
        if mark_as_used:
            self._names_in_use[f"{key}_{suffix}"] = 1
        return f"{name}_{suffix}"

    def create_op(self, op_type: str, inputs=(), attrs=None, name: str | None = None,
                  device: str | None = None, control_inputs=()) -> Operation:
        """Adds one operation.

        `inputs` has one entry per input arg of the op's OpDef: an Output, or a list
        of Outputs for a list arg. `attrs` maps attr names to Python values (DTypes,
        ints, floats, bools, strings, shapes as sequences with None for unknown dims,
        numpy data for tensors, lists of these) or to AttrValue messages; attrs fixed
        by the inputs (``T``, ``N``) and defaults are filled in. Attrs of other types
        (``list(shape)``, ``func``, ``list(tensor)``) are passed as AttrValue messages.
        `name` defaults to the op type and is made unique under the current name scope
        (a name ending with "/", as ``name_scope`` yields, is taken as it is); `device`
        defaults to the one of the enclosing ``device`` block; `control_inputs` are
        Operations (or Outputs) that must run first, beside those of enclosing
        ``control_dependencies`` blocks.
        """
        plan = _opplan.registry.plan(op_type)
        attrs = plan.prepare_attrs(op_type, attrs or {}, graph=True, require=False)
        return self._create_op(op_type, plan, inputs, attrs, name, device, control_inputs)

    def _create_op(self, op_type: str, plan, inputs, attrs: dict, name: str | None,
                   device: str | None = None, control_inputs=()) -> Operation:
        """create_op with `attrs` already converted and checked (plan.prepare_attrs),
        as graph mode has them."""
        runtime = _lib.graph_lib()
        op_def = plan.op_def
        if len(inputs) != len(op_def.input_arg):
            raise InvalidArgumentError(
                f"{op_type} takes {len(op_def.input_arg)} input(s) "
                f"({', '.join(a.name for a in op_def.input_arg) or 'none'}), got {len(inputs)}",
                op_type)
        # Everything is checked before TF_NewOperation: TensorFlow's API cannot drop a
        # started description, and finishing one adds the operation to the graph.
        c_inputs: list[Any] = []  # (TF_Output) or (TF_Output array, count) per input arg
        for arg, value in zip(op_def.input_arg, inputs):
            if arg.number_attr or arg.type_list_attr:
                if isinstance(value, Output) or not isinstance(value, (list, tuple)):
                    raise InvalidArgumentError(
                        f"{op_type}: input '{arg.name}' takes a list of tensors", op_type)
                outputs = [self._own_output(v, op_type, arg.name) for v in value]
                c_inputs.append(((_TF_Output * max(len(outputs), 1))(*[o._c for o in outputs]),
                                 len(outputs)))
            else:
                c_inputs.append(self._own_output(value, op_type, arg.name)._c)
        state = self._scope_state()
        if state.controls:
            control_inputs = self._scope_control_inputs(state.controls, inputs) + [
                c for c in control_inputs or ()]
        device = device if device is not None else state.device
        c_controls = []
        for control in control_inputs or ():
            control_op = control.op if isinstance(control, Output) else control
            if not isinstance(control_op, Operation) or control_op.graph is not self:
                raise InvalidArgumentError(
                    f"{op_type}: control inputs must be operations of this graph, "
                    f"got {control!r}", op_type)
            c_controls.append(control_op._c_op)
        setters = [(_graph_setter(plan, attr_name, value), attr_name.encode(), value)
                   for attr_name, value in attrs.items()]

        if name and name.endswith("/"):  # a scope from name_scope(): the name as it is
            name = name[:-1]
        else:
            name = self.unique_name(name or op_type)
        status = _lib.thread_status()
        desc = runtime.TF_NewOperation(self._c_graph, op_type.encode(), name.encode())
        if device:
            runtime.TF_SetDevice(desc, device.encode())
        for c_input in c_inputs:
            if isinstance(c_input, tuple):
                runtime.TF_AddInputList(desc, *c_input)
            else:
                runtime.TF_AddInput(desc, c_input)
        for c_control in c_controls:
            runtime.TF_AddControlInput(desc, c_control)
        failure = None
        try:
            for setter, bname, value in setters:
                failure = setter(runtime, desc, bname, value, status) or failure
        finally:
            c_op = runtime.TF_FinishOperation(desc, status.ptr)  # also frees `desc`
        if failure is not None:
            raise exception_class(failure[0])(f"{op_type}: {failure[1]}", op_type)
        raise_for_status(status, op_type)
        op = self._operation(c_op)
        for _, built_inside in state.controls:
            built_inside.add(op)
        return op

    @staticmethod
    def _scope_control_inputs(controllers, inputs) -> list:
        """The control inputs of the enclosing control_dependencies blocks that a new
        operation with `inputs` needs: none from a block one of its inputs was built
        in (that input waits already), and none that is an input's producer."""
        producers = {v.op for value in inputs
                     for v in (value if isinstance(value, (list, tuple)) else (value,))}
        needed: list[Operation] = []
        for control_ops, built_inside in controllers:
            if producers & built_inside:
                continue
            needed.extend(op for op in control_ops if op not in producers and op not in needed)
        return needed

    def _own_output(self, value, op_type: str, arg: str) -> Output:
        if not isinstance(value, Output):
            raise InvalidArgumentError(
                f"{op_type}: input '{arg}' must be an opgen.Output of this graph, got "
                f"{type(value).__name__} (add constants with a Const op)", op_type)
        if value.graph is not self:
            raise InvalidArgumentError(
                f"{op_type}: input '{arg}' ({value.name}) belongs to another graph", op_type)
        return value

    # ---- serialisation ----

    def as_graph_def(self) -> graph_pb2.GraphDef:
        """The graph as a GraphDef message (opgen's protos, wire-compatible with
        TensorFlow's)."""
        return graph_pb2.GraphDef.FromString(self._graph_def_bytes())

    def _graph_def_bytes(self) -> bytes:
        runtime = _lib.graph_lib()
        buffer = runtime.TF_NewBuffer()
        try:
            status = _lib.thread_status()
            runtime.TF_GraphToGraphDef(self._c_graph, buffer, status.ptr)
            raise_for_status(status)
            return ctypes.string_at(buffer.contents.data, buffer.contents.length)
        finally:
            runtime.TF_DeleteBuffer(buffer)

    def __repr__(self) -> str:
        return f"<opgen.Graph with {len(self)} operations>"


class Operation:
    """One node of a Graph."""

    __slots__ = ("__weakref__", "_c_op", "_graph", "_name", "_outputs", "_type")

    def __init__(self, graph: Graph, c_op: int):
        runtime = _lib.graph_lib()
        self._graph = graph
        self._c_op = c_op
        self._name = runtime.TF_OperationName(c_op).decode()
        self._type = runtime.TF_OperationOpType(c_op).decode()
        self._outputs: list[Output] | None = None

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def device(self) -> str:
        return (_lib.graph_lib().TF_OperationDevice(self._c_op) or b"").decode()

    @property
    def outputs(self) -> list[Output]:
        # Counted each time: a While's gradient gives the node more outputs (its
        # accumulators); the Outputs made before stay the same objects.
        count = _lib.graph_lib().TF_OperationNumOutputs(self._c_op)
        if self._outputs is None or len(self._outputs) != count:
            known = (self._outputs or [])[:count]
            self._outputs = known + [Output(self, i) for i in range(len(known), count)]
        return list(self._outputs)

    def values(self) -> tuple[Output, ...]:
        return tuple(self.outputs)

    @property
    def num_outputs(self) -> int:
        return len(self.outputs)

    @property
    def num_inputs(self) -> int:
        return _lib.graph_lib().TF_OperationNumInputs(self._c_op)

    @property
    def inputs(self) -> list[Output]:
        """The outputs this operation reads, in input order."""
        runtime = _lib.graph_lib()
        count = runtime.TF_OperationNumInputs(self._c_op)
        if not count:
            return []
        array = (_TF_Output * count)()
        runtime.TF_OperationAllInputs(self._c_op, array, count)
        return [self._graph._operation(item.oper)._output(item.index) for item in array]

    @property
    def control_inputs(self) -> list[Operation]:
        runtime = _lib.graph_lib()
        count = runtime.TF_OperationNumControlInputs(self._c_op)
        if not count:
            return []
        array = (_c_void_p * count)()
        got = runtime.TF_OperationGetControlInputs(self._c_op, array, count)
        return [self._graph._operation(array[i]) for i in range(got)]

    def _output(self, index: int) -> Output:
        if self._outputs is None or index >= len(self._outputs):
            return self.outputs[index]  # (made on first use, or the node has grown)
        return self._outputs[index]

    def get_attr(self, name: str):
        """The value of attr `name`, as TensorFlow's Operation.get_attr gives it:
        bytes, int, float, bool, DType, TensorShapeProto, TensorProto, NameAttrList,
        or a list of these. ValueError when the op has no such attr."""
        runtime = _lib.graph_lib()
        buffer = runtime.TF_NewBuffer()
        try:
            status = _lib.thread_status()
            runtime.TF_OperationGetAttrValueProto(self._c_op, name.encode(), buffer, status.ptr)
            if status.code != 0:
                raise InvalidArgumentError(
                    f"operation {self._name!r} ({self._type}) has no attr {name!r}: "
                    f"{status.message}", self._type)
            proto = ctypes.string_at(buffer.contents.data, buffer.contents.length)
        finally:
            runtime.TF_DeleteBuffer(buffer)
        return attr_value_to_python(attr_value_pb2.AttrValue.FromString(proto))

    def __repr__(self) -> str:
        return f"<opgen.Operation {self._name!r} type={self._type}>"


class Output(TensorOperators):
    """One output tensor of an Operation, named "op_name:index" (TensorFlow's
    graph-mode ``tf.Tensor``).

    Python's operators (``o + 1``, ``o @ w``, ``o[:, 1:]`` ...) add nodes to the
    Output's graph, with the eager Tensor's rules (opgen.runtime._operators). As for
    tensors of a TensorFlow ``tf.Graph``, ``==`` and ``hash`` go by identity (Outputs
    are ``feed_dict`` keys), and an Output has no value to take ``bool``, ``len``,
    iteration or numpy conversion of: those raise TypeError (NotImplementedError for
    numpy).
    """

    __slots__ = ("__weakref__", "_c", "_dtype", "_index", "_op")

    def __init__(self, op: Operation, index: int):
        self._op = op
        self._index = index
        self._c = _TF_Output(op._c_op, index)
        self._dtype: dtypes.DType | None = None

    @property
    def op(self) -> Operation:
        return self._op

    @property
    def graph(self) -> Graph:
        return self._op._graph

    @property
    def value_index(self) -> int:
        return self._index

    @property
    def name(self) -> str:
        return f"{self._op._name}:{self._index}"

    @property
    def dtype(self) -> dtypes.DType:
        if self._dtype is None:
            self._dtype = dtypes.as_dtype(_lib.graph_lib().TF_OperationOutputType(self._c))
        return self._dtype

    @property
    def shape(self) -> tuple[int | None, ...] | None:
        """The static shape the graph knows: a tuple with None for unknown dims, or
        None when even the rank is unknown."""
        runtime = _lib.graph_lib()
        status = _lib.thread_status()
        graph = self._op._graph._c_graph
        rank = runtime.TF_GraphGetTensorNumDims(graph, self._c, status.ptr)
        raise_for_status(status)
        if rank < 0:
            return None
        dims = (_c_int64 * max(rank, 1))()
        runtime.TF_GraphGetTensorShape(graph, self._c, dims, rank, status.ptr)
        raise_for_status(status)
        return tuple(None if d < 0 else d for d in dims[:rank])

    def get_shape(self) -> tuple[int | None, ...] | None:
        return self.shape

    def set_shape(self, shape: Any) -> None:
        """Refines the static shape the graph knows (None dims stay unknown); a shape
        that contradicts it is an InvalidArgumentError."""
        if shape is None:
            return
        dims = (_c_int64 * max(len(shape), 1))(*[-1 if d is None else int(d) for d in shape])
        status = _lib.thread_status()
        _lib.graph_lib().TF_GraphSetTensorShape(self._op._graph._c_graph, self._c, dims,
                                                len(shape), status.ptr)
        raise_for_status(status)

    def consumers(self) -> list[Operation]:
        """The operations that read this output."""
        runtime = _lib.graph_lib()
        count = runtime.TF_OperationOutputNumConsumers(self._c)
        if not count:
            return []
        array = (_lib.TF_Input * count)()
        got = runtime.TF_OperationOutputConsumers(self._c, array, count)
        return [self._op._graph._operation(array[i].oper) for i in range(got)]

    def __repr__(self) -> str:
        try:
            dtype = self.dtype.name
        except TypeError:
            dtype = "?"
        return f"<opgen.Output {self.name!r} dtype={dtype}>"

    # Identity, as written out: the operators mixin must not make these elementwise.
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError(f"using the graph output {self.name!r} as a Python bool is not "
                        "allowed: it has no value until a Session runs it")

    def __len__(self) -> int:
        raise TypeError(f"len is not well defined for the graph output {self.name!r}; "
                        "use its .shape")

    def __iter__(self) -> NoReturn:
        raise TypeError(f"iterating over the graph output {self.name!r} is not allowed: "
                        "it has no value until a Session runs it")

    def __array__(self, dtype: object = None, copy: object = None) -> NoReturn:
        raise NotImplementedError(
            f"cannot convert the graph output {self.name!r} to a numpy array: run it with "
            "a Session first")


def _graph_setter(plan, attr_name: str, value):
    """The TF_SetAttr* call for a converted attr value (see opgen.runtime._opplan)."""
    if isinstance(value, attr_value_pb2.AttrValue):
        return _opplan.set_attr_value_proto
    spec = plan.attrs.get(attr_name)
    kind = spec.kind if spec is not None else _opplan.ATTR_KINDS[_opplan.python_attr_type(value)]
    return kind.set_graph


def attr_value_to_python(value: attr_value_pb2.AttrValue):
    """An AttrValue as TensorFlow's Operation.get_attr gives it."""
    kind = value.WhichOneof("value")
    if kind is None:
        return []
    if kind == "list":
        lst = value.list
        for name in ("s", "i", "f", "b", "type", "shape", "tensor", "func"):
            items = getattr(lst, name)
            if items:
                if name == "type":
                    return [_as_dtype_or_enum(t) for t in items]
                return list(items)
        return []
    if kind == "type":
        return _as_dtype_or_enum(value.type)
    return getattr(value, kind)


def _as_dtype_or_enum(enum: int):
    try:
        return dtypes.as_dtype(enum)
    except TypeError:
        return enum


# ---- scope names ----------------------------------------------------------------------------

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


def _check_scope_name(name: str, nested: bool) -> None:
    """ValueError for a scope name TensorFlow rejects (at the root, names start with a
    letter, digit or '.')."""
    if not (_VALID_SCOPE_NAME if nested else _VALID_OP_NAME).match(name):
        raise ValueError(f"{name!r} is not a valid scope name")


# ---- device names -----------------------------------------------------------------------

_DEVICE_FIELDS = ("job", "replica", "task")


def _parse_device(spec: str) -> dict | None:
    """{"job": .., "replica": .., "task": .., "device": "TYPE:ID"} from a device name
    ("/job:w/task:1/device:CPU:0", "/CPU:0", "/cpu:*"); None when it is not one."""
    parsed: dict = {}
    for part in spec.strip("/").split("/"):
        if not part:
            continue
        key, _, rest = part.partition(":")
        if key in _DEVICE_FIELDS and rest:
            parsed[key] = rest
            continue
        if key == "device":
            key, _, rest = rest.partition(":")
        if not key or not rest or ":" in rest:
            return None
        parsed["device"] = f"{key.upper()}:{rest}"
    return parsed


def _merge_device(outer: str | None, inner: str) -> str:
    """`inner` in TensorFlow's canonical form, its unset fields taken from `outer`
    (a name opgen cannot parse is kept as given)."""
    parsed_inner = _parse_device(inner)
    if parsed_inner is None:
        return inner
    merged = (_parse_device(outer) or {}) if outer else {}
    merged.update(parsed_inner)
    parts = [f"/{key}:{merged[key]}" for key in _DEVICE_FIELDS if key in merged]
    if "device" in merged:
        parts.append(f"/device:{merged['device']}")
    return "".join(parts)


# ---- default graph ------------------------------------------------------------------------

_global_default_graph: Graph | None = None
_global_lock = threading.Lock()
_thread_stacks = threading.local()


def _default_graph_stack() -> list[Graph]:
    stack = getattr(_thread_stacks, "stack", None)
    if stack is None:
        stack = _thread_stacks.stack = []
    return stack


def get_default_graph() -> Graph:
    """The graph `as_default()` made current on this thread, else the process-wide
    default graph (created on first use)."""
    global _global_default_graph
    stack = _default_graph_stack()
    if stack:
        return stack[-1]
    if _global_default_graph is None:
        with _global_lock:
            if _global_default_graph is None:
                _global_default_graph = Graph()
    return _global_default_graph


_graph_mode_lock = threading.Lock()
_graph_mode_depth = 0  # as_default() blocks open, all threads together
_graph_mode_hook: Callable[[bool], None] | None = None  # set by opgen.runtime.graph_mode: (active: bool) -> None


def _graph_mode_entered(delta: int) -> None:
    """Counts open as_default() blocks; tells the op dispatch when graph mode starts
    (first block opened in any thread) and ends (last one closed)."""
    global _graph_mode_depth
    with _graph_mode_lock:
        _graph_mode_depth += delta
        if _graph_mode_hook is not None and _graph_mode_depth == (1 if delta > 0 else 0):
            _graph_mode_hook(_graph_mode_depth > 0)


def thread_has_default_graph() -> bool:
    """Whether an as_default() block is open on this thread (ops then build nodes)."""
    return bool(getattr(_thread_stacks, "stack", None))


def reset_default_graph() -> None:
    """Replaces the process-wide default graph with a fresh one. Not allowed inside an
    ``as_default()`` block."""
    global _global_default_graph
    if _default_graph_stack():
        raise AssertionError("reset_default_graph() inside a Graph.as_default() block")
    with _global_lock:
        _global_default_graph = None
