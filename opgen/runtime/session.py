"""``Session``: runs a Graph through TensorFlow's C session API (``TF_SessionRun``).

``run`` resolves its fetches and feed keys once per signature (the structure of
`fetches` and the keys of `feed_dict`) into a :class:`_RunPlan` holding the C arrays
``TF_SessionRun`` takes; a repeated call only converts the feed values, makes the C
call and copies the results into numpy arrays.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from typing import Any

import numpy as np

from opgen.runtime import _convert, _lib, dtypes
from opgen.runtime.errors import (FailedPreconditionError, InvalidArgumentError, UnimplementedError,
                                  exception_class)
from opgen.runtime.graph import Graph, Operation, Output, get_default_graph

_c_void_p, _c_int64 = ctypes.c_void_p, ctypes.c_int64
_memmove = ctypes.memmove
_ndarray = np.ndarray
_empty = np.empty
_MAX_PLANS = 256


class SessionOptions:
    """How a Session runs its graph.

    `optimize`: whether the session's graph optimizer rewrites the graph it runs
    (constant folding, folding constant Mul/Add/BatchNorm into convolutions, fused
    convolution / MatMul + bias + activation kernels, identity removal); None leaves it
    to `config` and the environment (``OPGEN_GRAPH_OPTIMIZER=0`` turns it off).
    `config`: a serialized TensorFlow ``ConfigProto`` (bytes), or a message with
    ``SerializeToString``, as ``TF_SetConfig`` takes it; the optimizer honours
    ``graph_options.optimizer_options.opt_level = L0`` and ``graph_options.rewrite_options``
    (``disable_meta_optimizer``, and ``constant_folding`` / ``arithmetic_optimization`` /
    ``remapping`` / ``dependency_optimization`` = OFF), as Grappler does, and the session's
    kernels run on the calling thread alone with ``intra_op_parallelism_threads = 1``.
    """

    def __init__(self, optimize: bool | None = None, config=None):
        if optimize is not None and not isinstance(optimize, bool):
            raise TypeError(f"optimize must be a bool or None, not {type(optimize).__name__}")
        if config is not None and not isinstance(config, bytes):
            config = config.SerializeToString()
        self.optimize = optimize
        self.config = config

    def __repr__(self) -> str:
        return f"opgen.SessionOptions(optimize={self.optimize!r}, config={self.config!r})"


class Session:
    """Runs operations of one Graph (the default graph when `graph` is None).

    Use it as a context manager, or call :meth:`close`, to free it at once. ``run``
    may be called from several threads at once, and :meth:`close` from any thread: it
    waits for the runs in flight, and a run that starts after it raises RuntimeError.
    `options` (a :class:`SessionOptions`) says how the graph runs.
    """

    def __init__(self, graph: Graph | None = None, options: SessionOptions | None = None):
        if graph is None:
            graph = get_default_graph()
        if not isinstance(graph, Graph):
            raise TypeError(f"graph must be an opgen.Graph, not {type(graph).__name__}")
        if options is not None and not isinstance(options, SessionOptions):
            raise TypeError(f"options must be an opgen.SessionOptions, not "
                            f"{type(options).__name__}")
        runtime = _lib.graph_lib()
        status = _lib.thread_status()
        c_session = _with_c_options(options, lambda c_options: runtime.TF_NewSession(
            graph._c_graph, c_options, status.ptr))
        if status.code != 0:
            raise exception_class(status.code)(status.message)
        self._adopt(graph, c_session)

    @classmethod
    def _from_c_session(cls, graph: Graph, c_session) -> Session:
        """A Session owning `c_session`, a TF_Session over `graph` made elsewhere (by
        TF_LoadSessionFromSavedModel)."""
        session = cls.__new__(cls)
        session._adopt(graph, c_session)
        return session

    def _adopt(self, graph: Graph, c_session) -> None:
        runtime = _lib.graph_lib()
        self._graph = graph
        self._c_session = c_session
        self._plans: dict = {}
        self._plans_lock = threading.Lock()
        # Runs in flight hold the C session: close() frees it only when none is left, so
        # no thread hands a freed pointer to TF_SessionRun.
        self._in_flight = 0
        self._state = threading.Condition(threading.Lock())
        # The finalizer holds the Graph, so the graph is deleted after the session.
        self._finalizer = weakref.finalize(self, _delete_session, runtime, c_session, graph)

    @property
    def graph(self) -> Graph:
        return self._graph

    def close(self) -> None:
        """Frees the session once the runs in flight (in other threads) have returned;
        runs that start later raise RuntimeError. Closing twice is harmless."""
        with self._state:
            c_session, self._c_session = self._c_session, None
        if c_session is None:
            return
        # TF_CloseSession fails the runs that enter C from now on and waits for those
        # inside it; the wait below covers runs between their check and the C call.
        status = _lib.Status()
        _lib.graph_lib().TF_CloseSession(c_session, status.ptr)
        with self._state:
            self._state.wait_for(lambda: self._in_flight == 0)
        self._finalizer()

    def _acquire(self):
        """The C session for one call, counted in flight; RuntimeError once closed."""
        with self._state:
            c_session = self._c_session
            if c_session is None:
                raise RuntimeError("Attempted to use a closed Session.")
            self._in_flight += 1
        return c_session

    def _release(self) -> None:
        with self._state:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._state.notify_all()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(self, fetches: Any, feed_dict: dict[Any, Any] | None = None) -> Any:
        """Runs the graph and returns the values of `fetches` as numpy arrays.

        `fetches` is an Output, a tensor name ("probs:0"), an Operation or operation
        name (run for its effect; its result is None), or a list, tuple, namedtuple or
        dict of these, nested as deep as wanted; the result has the same structure.
        `feed_dict` maps Outputs or tensor names to values (numpy arrays, Python scalars
        or lists), converted to the fed tensor's dtype as TensorFlow converts them.
        """
        c_session = self._acquire()
        try:
            return self._run(c_session, fetches, feed_dict)
        except FailedPreconditionError:
            if self._c_session is None:  # closed by another thread while this one ran
                raise RuntimeError("Attempted to use a closed Session.") from None
            raise
        finally:
            self._release()

    def _run(self, c_session, fetches, feed_dict):
        key: tuple[Any, ...] | None
        try:
            key = (_structure_key(fetches), tuple(feed_dict) if feed_dict else ())
            plan = self._plans.get(key)
        except TypeError:  # an unhashable fetch: resolve it without caching
            key = plan = None
        if plan is None:
            plan = _RunPlan(self._graph, fetches, tuple(feed_dict) if feed_dict else ())
            if key is not None:
                with self._plans_lock:
                    if len(self._plans) >= _MAX_PLANS:
                        self._plans.clear()
                    self._plans[key] = plan
        return plan.run(c_session, feed_dict.values() if feed_dict else ())

    def optimized_graph_def(self, fetches, feeds=()):
        """The GraphDef (a ``GraphDef`` message) this session runs for `fetches` (as for
        :meth:`run`) given the fed tensors `feeds` (Outputs or names, or the keys of a
        feed dict): the graph optimizer's copy, or the graph as given where the
        optimizer is off or leaves it alone."""
        from opgen.protos import graph_pb2
        plan = _RunPlan(self._graph, fetches, tuple(feeds))
        runtime = _lib.graph_lib()
        c_session = self._acquire()
        buffer = runtime.TF_NewBuffer()
        try:
            status = _lib.thread_status()
            runtime.OPGEN_SessionOptimizedGraphDef(
                c_session, plan.c_inputs, plan.n_inputs, plan.c_outputs, plan.n_outputs,
                plan.c_targets, plan.n_targets, buffer, status.ptr)
            if status.code != 0:
                raise exception_class(status.code)(status.message)
            data = ctypes.string_at(buffer.contents.data, buffer.contents.length)
        finally:
            runtime.TF_DeleteBuffer(buffer)
            self._release()
        return graph_pb2.GraphDef.FromString(data)

    def __repr__(self) -> str:
        state = "closed" if self._c_session is None else "open"
        return f"<opgen.Session ({state}) over {self._graph!r}>"


def _with_c_options(options: SessionOptions | None, make):
    """`make(c_options)` with TF_SessionOptions set from `options`, freed afterwards."""
    runtime = _lib.graph_lib()
    status = _lib.thread_status()
    c_options = runtime.TF_NewSessionOptions()
    try:
        if options is not None and options.config is not None:
            runtime.TF_SetConfig(c_options, options.config, len(options.config), status.ptr)
            if status.code != 0:
                raise exception_class(status.code)(status.message)
        if options is not None and options.optimize is not None:
            runtime.OPGEN_SetGraphOptimizer(c_options, int(options.optimize))
        return make(c_options)
    finally:
        runtime.TF_DeleteSessionOptions(c_options)


def _delete_session(runtime, c_session, graph) -> None:
    status = _lib.Status()
    runtime.TF_CloseSession(c_session, status.ptr)
    runtime.TF_DeleteSession(c_session, status.ptr)


def _structure_key(fetches):
    """A hashable key telling apart every fetch structure (types, dict keys, leaves)."""
    kind = type(fetches)
    if kind is Output or kind is str or kind is Operation:
        return fetches
    if isinstance(fetches, (list, tuple)):
        return (kind, *[_structure_key(f) for f in fetches])
    if isinstance(fetches, dict):
        return (kind, *[(k, _structure_key(v)) for k, v in fetches.items()])
    return (kind, fetches)


class _FeedSpec:
    """How to turn one feed value into the fed tensor's TF_Tensor."""

    __slots__ = ("output", "dtype", "np_dtype", "enum", "shape", "scalar_types", "scalar_ctype",
                 "itemsize", "allocate", "data")

    def __init__(self, output: Output):
        self.output = output
        self.dtype = output.dtype
        # strings: object arrays of bytes (_convert.as_array converts other data)
        np_dtype = np.dtype(object) if self.dtype == dtypes.string else self.dtype.numpy_dtype
        if np_dtype is None:
            raise UnimplementedError(f"feeding {self.dtype.name} tensors ({output.name}) is not "
                                     "supported yet")
        self.np_dtype = np_dtype
        self.enum = self.dtype.as_datatype_enum
        self.shape = output.shape  # None, or a tuple with None for unknown dims
        # Scalars whose type says they need no conversion check take the fast path:
        # the numpy scalar of the fed dtype, or a Python float for a float tensor.
        self.scalar_ctype = _convert.SCALAR_CTYPES.get(self.np_dtype)
        self.scalar_types: tuple[type, ...] = ()
        if self.scalar_ctype is not None and self.shape in (None, ()):
            self.scalar_types = (self.np_dtype.type, float) if self.np_dtype.kind == "f" \
                else (self.np_dtype.type,)
        self.itemsize = self.np_dtype.itemsize
        runtime = _lib.graph_lib()
        self.allocate, self.data = runtime.TF_AllocateTensor, runtime.TF_TensorData

    def to_tf_tensor(self, value) -> int:
        if type(value) in self.scalar_types:
            tensor = self.allocate(self.enum, None, 0, self.itemsize)
            self.scalar_ctype.from_address(self.data(tensor)).value = value  # type: ignore[union-attr]  # scalar_types is () without a ctype
            return tensor
        if type(value) is _ndarray and value.dtype == self.np_dtype and value.flags.c_contiguous:
            array = value
        else:
            array = _convert.as_array(value, self.dtype, f"feed for {self.output.name}")
        shape = self.shape
        if shape is not None and (len(shape) != array.ndim or any(
                want is not None and want != have for want, have in zip(shape, array.shape))):
            raise InvalidArgumentError(
                f"Cannot feed value of shape {array.shape} for tensor {self.output.name!r}, "
                f"which has shape {_shape_text(shape)}")
        return _convert.new_tf_tensor(array, self.enum)


def _shape_text(shape) -> str:
    return "(" + ", ".join("None" if d is None else str(d) for d in shape) + \
        ("," if len(shape) == 1 else "") + ")"


class _RunPlan:
    """One resolved signature of Session.run: the C arrays of fed outputs, fetched
    outputs and target operations, and how to rebuild the caller's structure."""

    def __init__(self, graph: Graph, fetches, feed_keys: tuple):
        self.feeds = [_FeedSpec(_feed_output(graph, key)) for key in feed_keys]
        self.fetched: list[Output] = []
        self.targets: list[Operation] = []
        self._position: dict[Output, int] = {}
        self.rebuild = self._structure(graph, fetches)
        self.single = self.rebuild is None  # the result is the one fetched value
        self.n_inputs, self.n_outputs, self.n_targets = (
            len(self.feeds), len(self.fetched), len(self.targets))
        self.c_inputs = (_lib.TF_Output * max(self.n_inputs, 1))(
            *[spec.output._c for spec in self.feeds])
        self.c_outputs = (_lib.TF_Output * max(self.n_outputs, 1))(
            *[o._c for o in self.fetched])
        self.c_targets = (_c_void_p * max(self.n_targets, 1))(*[op._c_op for op in self.targets])
        self.readers = [_output_reader(o.dtype) for o in self.fetched]
        self._inputs_type = _c_void_p * max(self.n_inputs, 1)
        self._outputs_type = _c_void_p * max(self.n_outputs, 1)
        runtime = _lib.graph_lib()
        self._session_run = runtime.TF_SessionRun
        self._delete_tensor = runtime.TF_DeleteTensor

    def _structure(self, graph: Graph, fetches):
        """Collects the leaves of `fetches`; returns a function from the list of
        fetched values to the caller's structure (None when `fetches` is one tensor)."""
        if isinstance(fetches, (Output, str, Operation)) and not isinstance(
                _leaf(graph, fetches), Operation):
            self._leaf_index(_leaf(graph, fetches))
            return None
        return self._build(graph, fetches)

    def _build(self, graph: Graph, fetch):
        if isinstance(fetch, (list, tuple)):
            children = [self._build(graph, f) for f in fetch]
            if hasattr(fetch, "_fields"):  # a namedtuple
                kind = type(fetch)
                return lambda values: kind(*[child(values) for child in children])
            kind = type(fetch)
            return lambda values: kind([child(values) for child in children])
        if isinstance(fetch, dict):
            items = [(key, self._build(graph, value)) for key, value in fetch.items()]
            mapping = type(fetch)
            return lambda values: mapping([(key, child(values)) for key, child in items])
        fetch_parts = getattr(fetch, "_opgen_fetch", None)
        if fetch_parts is not None:  # an IndexedSlices: its values, indices, dense_shape
            parts, make = fetch_parts()
            builds = [None if p is None else self._build(graph, p) for p in parts]
            return lambda values: make(*[None if b is None else b(values) for b in builds])
        element = _leaf(graph, fetch)
        if isinstance(element, Operation):
            if element not in self.targets:
                self.targets.append(element)
            return lambda values: None
        index = self._leaf_index(element)
        return lambda values: values[index]

    def _leaf_index(self, output: Output) -> int:
        index = self._position.get(output)
        if index is None:
            index = self._position[output] = len(self.fetched)
            self.fetched.append(output)
        return index

    def run(self, c_session, feed_values):
        status = _lib.thread_status()
        n_inputs, n_outputs = self.n_inputs, self.n_outputs
        inputs = self._inputs_type()
        outputs = self._outputs_type()
        delete = self._delete_tensor
        try:
            for i, (spec, value) in enumerate(zip(self.feeds, feed_values)):
                inputs[i] = spec.to_tf_tensor(value)
            self._session_run(c_session, None, self.c_inputs, inputs, n_inputs,
                              self.c_outputs, outputs, n_outputs, self.c_targets,
                              self.n_targets, None, status.ptr)
        finally:
            for i in range(n_inputs):
                if inputs[i]:
                    delete(inputs[i])
        try:
            if status.code != 0:
                raise exception_class(status.code)(status.message)
            values = [read(outputs[i]) for i, read in enumerate(self.readers)]
        finally:
            for i in range(n_outputs):
                if outputs[i]:
                    delete(outputs[i])
        if self.single:
            return values[0]
        return self.rebuild(values)


def _leaf(graph: Graph, fetch):
    if isinstance(fetch, (Output, Operation, str)):
        return graph.as_graph_element(fetch)
    raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch).__name__}: fetch "
                    "Outputs, Operations, their names, or lists, tuples and dicts of them")


def _feed_output(graph: Graph, key) -> Output:
    if isinstance(key, (Output, str)):
        return graph.as_graph_element(key, allow_operation=False)
    raise TypeError(f"feed_dict keys must be Outputs or tensor names (\"x:0\"), not "
                    f"{type(key).__name__}")


def _output_reader(dtype: dtypes.DType):
    """A function copying a fetched ``TF_Tensor*`` of `dtype` into numpy: an array, or
    for a rank-0 tensor a numpy scalar, as TensorFlow's Session.run returns them."""
    if dtype == dtypes.string:  # object arrays of bytes; bytes for a scalar
        def read_strings(tensor):
            value = _convert.to_numpy(tensor)
            return value[()] if value.ndim == 0 else value
        return read_strings
    if dtype.numpy_dtype is None:
        return _convert.to_numpy  # raises UnimplementedError naming the dtype
    runtime = _lib.graph_lib()
    np_dtype = dtype.numpy_dtype
    scalar_type, scalar_ctype = np_dtype.type, _convert.SCALAR_CTYPES.get(np_dtype)
    enum = dtype.as_datatype_enum
    num_dims, dim, data, byte_size, tensor_type = (
        runtime.TF_NumDims, runtime.TF_Dim, runtime.TF_TensorData, runtime.TF_TensorByteSize,
        runtime.TF_TensorType)

    def read(tensor):
        if tensor_type(tensor) != enum:  # not what the graph declared: read it as it is
            value = _convert.to_numpy(tensor)
            return value[()] if value.ndim == 0 else value
        rank = num_dims(tensor)
        if rank == 0 and scalar_ctype is not None:
            return scalar_type(scalar_ctype.from_address(data(tensor)).value)
        array = _empty(tuple([dim(tensor, i) for i in range(rank)]), np_dtype)
        nbytes = array.nbytes
        if nbytes:
            if byte_size(tensor) != nbytes:
                raise exception_class(13)(f"a fetched {dtype.name} tensor of shape "
                                          f"{array.shape} holds {byte_size(tensor)} bytes")
            _memmove(array.ctypes.data, data(tensor), nbytes)
        return array[()] if rank == 0 else array
    return read
