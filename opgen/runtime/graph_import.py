"""``import_graph_def``: a GraphDef (bytes or message) into the default graph, with
TensorFlow's name prefix, input map and return elements."""

from __future__ import annotations

import ctypes

from opgen.runtime import _lib
from opgen.runtime.errors import InvalidArgumentError, raise_for_status
from opgen.runtime.graph import Graph, Operation, Output, get_default_graph

_TF_Output = _lib.TF_Output
_c_int, _c_void_p = ctypes.c_int, ctypes.c_void_p


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None):
    """Imports a GraphDef into the default graph.

    `graph_def` is serialized bytes or a GraphDef message (opgen's, TensorFlow's, any
    message with ``SerializeToString``). Imported names get the prefix `name` + "/":
    "import" by default, made unique ("import_1") when taken; ``name=""`` keeps them
    as they are. `input_map` maps tensor names of `graph_def` ("x:0", or "x" for
    "x:0") to Outputs of the default graph that replace them. `return_elements` lists
    names in `graph_def` ("op" or "op:0"); the matching imported Operations and Outputs
    are returned, in that order (None without `return_elements`).
    """
    graph = get_default_graph()
    runtime = _lib.graph_lib()
    if isinstance(graph_def, (bytes, bytearray, memoryview)):
        data = bytes(graph_def)
    elif hasattr(graph_def, "SerializeToString"):
        data = graph_def.SerializeToString()
    else:
        raise TypeError(f"graph_def must be a GraphDef message or its serialized bytes, "
                        f"not {type(graph_def).__name__}")
    prefix = "import" if name is None else name
    if prefix:
        prefix = _unique_scope(graph, prefix.rstrip("/"))
    options = runtime.TF_NewImportGraphDefOptions()
    # A view of `data` for the length of the call, not a copy: the importer copies only
    # what it keeps (a model's weights once).
    view = ctypes.c_char_p(data)
    buffer = ctypes.pointer(_lib.TF_Buffer(ctypes.cast(view, _c_void_p), len(data), None))
    status = _lib.thread_status()
    results = None
    try:
        if prefix:
            runtime.TF_ImportGraphDefOptionsSetPrefix(options, prefix.encode())
        # Device strings TensorFlow's DeviceSpec cannot parse are refused, as
        # tf.import_graph_def refuses them (TensorFlow's C importer takes any).
        runtime.OPGEN_ImportGraphDefOptionsSetCheckDevices(options, 1)
        for source, target in (input_map or {}).items():
            source_name, source_index = _split_tensor_name(source, "input_map key")
            if not isinstance(target, Output):
                target = graph.as_graph_element(target, allow_operation=False)
            if target.graph is not graph:
                capture = getattr(graph, "capture", None)
                if capture is None or getattr(graph, "outer", None) is None:
                    raise ValueError(f"input_map value {target} is not in the default graph")
                # a function body being traced (a FuncGraph) reads an enclosing graph's tensor
                target = capture(target)
            runtime.TF_ImportGraphDefOptionsAddInputMapping(
                options, source_name.encode(), source_index, target._c)
        wanted = []
        for element in return_elements or ():
            if not isinstance(element, str):
                raise TypeError(f"return_elements holds names, not {type(element).__name__}")
            if ":" in element:
                op_name, index = _split_tensor_name(element, "return element")
                runtime.TF_ImportGraphDefOptionsAddReturnOutput(options, op_name.encode(), index)
                wanted.append("output")
            else:
                runtime.TF_ImportGraphDefOptionsAddReturnOperation(options, element.encode())
                wanted.append("operation")
        results = runtime.TF_GraphImportGraphDefWithResults(graph._c_graph, buffer, options,
                                                            status.ptr)
        raise_for_status(status)
        _check_input_map_used(runtime, results)
        if return_elements is None:
            return None
        return _returned_elements(runtime, graph, results, wanted)
    finally:
        if results:
            runtime.TF_DeleteImportGraphDefResults(results)
        runtime.TF_DeleteImportGraphDefOptions(options)


def _unique_scope(graph: Graph, prefix: str) -> str:
    """`prefix`, or `prefix`_1 ... when some operation already lives under it."""
    names = [op.name for op in graph.get_operations()]

    def taken(scope):
        return any(n == scope or n.startswith(scope + "/") for n in names)

    if not taken(prefix):
        return prefix
    suffix = 1
    while taken(f"{prefix}_{suffix}"):
        suffix += 1
    return f"{prefix}_{suffix}"


def _split_tensor_name(name, what: str) -> tuple[str, int]:
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a tensor name, not {type(name).__name__}")
    if name.startswith("^"):
        raise InvalidArgumentError(f"{what} {name!r}: control dependencies are not supported")
    op_name, colon, index = name.rpartition(":")
    if not colon:
        return name, 0
    if not op_name or not index.isdigit():
        raise ValueError(f"{what} {name!r} is not a tensor name (\"op_name:index\")")
    return op_name, int(index)


def _check_input_map_used(runtime, results) -> None:
    count = _c_int(0)
    names = ctypes.POINTER(ctypes.c_char_p)()
    indexes = ctypes.POINTER(_c_int)()
    runtime.TF_ImportGraphDefResultsMissingUnusedInputMappings(
        results, ctypes.byref(count), ctypes.byref(names), ctypes.byref(indexes))
    if count.value:
        missing = [f"{names[i].decode()}:{indexes[i]}" for i in range(count.value)]
        raise InvalidArgumentError(
            f"input_map names tensors that are not in the graph_def: {', '.join(missing)}")


def _returned_elements(runtime, graph: Graph, results, wanted: list[str]) -> list:
    num_outputs, num_ops = _c_int(0), _c_int(0)
    outputs = ctypes.POINTER(_TF_Output)()
    operations = ctypes.POINTER(_c_void_p)()
    runtime.TF_ImportGraphDefResultsReturnOutputs(results, ctypes.byref(num_outputs),
                                                  ctypes.byref(outputs))
    runtime.TF_ImportGraphDefResultsReturnOperations(results, ctypes.byref(num_ops),
                                                     ctypes.byref(operations))
    next_output = next_op = 0
    elements: list[Output | Operation] = []
    for kind in wanted:
        if kind == "output":
            item = outputs[next_output]
            elements.append(graph._operation(item.oper)._output(item.index))
            next_output += 1
        else:
            elements.append(graph._operation(operations[next_op]))
            next_op += 1
    return elements
