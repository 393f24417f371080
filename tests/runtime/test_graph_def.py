"""GraphDefs through TensorFlow's C API: what the runtime writes parses with the protobuf
library, what the protobuf library (or TensorFlow) writes imports and reads back equal,
imports accept any node order, and bad GraphDefs are refused leaving the graph as it was."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import (  # noqa: E402
    INVALID_ARGUMENT, NOT_FOUND, TF_FLOAT, TF_INT32, CApiError, TF_Output, c_char_p, c_int,
    c_void_p, out)
from opgen.protos import attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, tensor_shape_pb2, types_pb2  # noqa: E402

TESTDATA = Path(__file__).parent / "testdata"


def _attr_type(t):
    return attr_value_pb2.AttrValue(type=t)


def _const_node(name, array):
    array = np.asarray(array, np.float32)
    tensor = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT, tensor_content=array.tobytes(),
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in array.shape]))
    return node_def_pb2.NodeDef(name=name, op="Const", attr={
        "value": attr_value_pb2.AttrValue(tensor=tensor), "dtype": _attr_type(types_pb2.DT_FLOAT)})


def _node(name, op, inputs=(), **attrs):
    return node_def_pb2.NodeDef(name=name, op=op, input=list(inputs), attr=attrs)


def _small_graph_def(order=None) -> graph_pb2.GraphDef:
    """x (placeholder) -> mul = x * c -> y = relu(mul); done: NoOp after y."""
    f = _attr_type(types_pb2.DT_FLOAT)
    nodes = [
        _node("x", "Placeholder", dtype=f,
              shape=attr_value_pb2.AttrValue(shape=tensor_shape_pb2.TensorShapeProto(unknown_rank=True))),
        _const_node("c", [2.0, -3.0]),
        _node("mul", "Mul", ["x", "c"], T=f),
        _node("y", "Relu", ["mul"], T=f),
        _node("done", "NoOp", ["^y"]),
    ]
    if order is not None:
        nodes = [nodes[i] for i in order]
    gd = graph_pb2.GraphDef(node=nodes)
    gd.versions.producer = 2474
    return gd


def _import(api, graph, gd, prefix=None):
    data = gd if isinstance(gd, bytes) else gd.SerializeToString()
    api.import_graph_def(graph, data, prefix)


def _names(api, graph):
    pos, names = ctypes.c_size_t(0), []
    while (op := api.lib.TF_GraphNextOperation(graph, ctypes.byref(pos))) is not None:
        names.append(api.lib.TF_OperationName(op).decode())
    return names


def _run(api, graph, feeds, fetch):
    lib = api.lib
    sess = api.session(graph)
    try:
        return api.run(sess, [(out(lib.TF_GraphOperationByName(graph, k.encode())), v)
                              for k, v in feeds.items()],
                       [out(lib.TF_GraphOperationByName(graph, fetch.encode()))])[0]
    finally:
        lib.TF_DeleteSession(sess, api.status)


def test_written_graph_def_parses_with_protobuf(api, graph):
    x = api.placeholder(graph, "x", TF_FLOAT, [2])
    c = api.const(graph, "c", np.float32([1, 2]))
    y = api.op(graph, "AddV2", "y", [out(x), out(c)])
    api.op(graph, "NoOp", "after", control_inputs=[y])
    gd = graph_pb2.GraphDef.FromString(api.graph_def(graph))
    assert [n.name for n in gd.node] == ["x", "c", "y", "after"]
    assert list(gd.node[2].input) == ["x", "c"] and list(gd.node[3].input) == ["^y"]
    assert gd.node[2].attr["T"].type == types_pb2.DT_FLOAT
    assert [d.size for d in gd.node[0].attr["shape"].shape.dim] == [2]
    value = gd.node[1].attr["value"].tensor
    assert np.frombuffer(value.tensor_content, np.float32).tolist() == [1, 2]
    assert gd.versions.producer > 0


def test_protobuf_graph_def_reads_back_equal(api, graph):
    gd = _small_graph_def()
    _import(api, graph, gd)
    assert graph_pb2.GraphDef.FromString(api.graph_def(graph)) == gd


def test_import_accepts_any_node_order(api, graph):
    _import(api, graph, _small_graph_def(order=[4, 3, 2, 1, 0]))
    # Dependencies first; among ready nodes the GraphDef's order.
    assert _names(api, graph) == ["c", "x", "mul", "y", "done"]
    got = _run(api, graph, {"x": np.float32([1.5, 1.0])}, "y")
    np.testing.assert_array_equal(got, np.maximum(np.float32([1.5, 1.0]) * [2, -3], 0))


def test_import_with_prefix_mapping_and_return_outputs(api, graph):
    lib = api.lib
    fed = api.placeholder(graph, "outer", TF_FLOAT, [2])
    gate = api.op(graph, "NoOp", "gate")
    gd = _small_graph_def()
    gd.node[3].input.append("^x")  # y also waits on x: remapped below
    opts = lib.TF_NewImportGraphDefOptions()
    lib.TF_ImportGraphDefOptionsSetPrefix(opts, b"imp")
    lib.TF_ImportGraphDefOptionsAddInputMapping(opts, b"x", 0, out(fed))
    lib.TF_ImportGraphDefOptionsAddInputMapping(opts, b"nowhere", 1, out(fed))
    lib.TF_ImportGraphDefOptionsRemapControlDependency(opts, b"x", gate)
    lib.TF_ImportGraphDefOptionsAddReturnOutput(opts, b"y", 0)
    lib.TF_ImportGraphDefOptionsAddReturnOperation(opts, b"done")
    assert lib.TF_ImportGraphDefOptionsNumReturnOutputs(opts) == 1
    data = gd.SerializeToString()
    buf = lib.TF_NewBufferFromString(data, len(data))
    results = lib.TF_GraphImportGraphDefWithResults(graph, buf, opts, api.status)
    lib.TF_DeleteBuffer(buf)
    lib.TF_DeleteImportGraphDefOptions(opts)
    api.check()
    n, outputs = c_int(), ctypes.POINTER(TF_Output)()
    lib.TF_ImportGraphDefResultsReturnOutputs(results, ctypes.byref(n), ctypes.byref(outputs))
    assert n.value == 1
    y = outputs[0].oper
    assert lib.TF_OperationName(y) == b"imp/y"
    nops, opers = c_int(), ctypes.POINTER(c_void_p)()
    lib.TF_ImportGraphDefResultsReturnOperations(results, ctypes.byref(nops), ctypes.byref(opers))
    assert nops.value == 1 and lib.TF_OperationName(opers[0]) == b"imp/done"
    nmiss, names, idx = c_int(), ctypes.POINTER(c_char_p)(), ctypes.POINTER(c_int)()
    lib.TF_ImportGraphDefResultsMissingUnusedInputMappings(results, ctypes.byref(nmiss),
                                                           ctypes.byref(names), ctypes.byref(idx))
    assert nmiss.value == 1 and names[0] == b"nowhere" and idx[0] == 1
    lib.TF_DeleteImportGraphDefResults(results)
    # The imported placeholder is unused: mul reads `outer`; y waits on `gate`.
    controls = (c_void_p * 2)()
    assert lib.TF_OperationGetControlInputs(y, controls, 2) == 1 and controls[0] == gate
    got = _run(api, graph, {"outer": np.float32([1, 1])}, "imp/y")
    np.testing.assert_array_equal(got, [2, 0])


def test_import_with_return_outputs_array(api, graph):
    lib = api.lib
    opts = lib.TF_NewImportGraphDefOptions()
    lib.TF_ImportGraphDefOptionsAddReturnOutput(opts, b"mul", 0)
    data = _small_graph_def().SerializeToString()
    buf = lib.TF_NewBufferFromString(data, len(data))
    returned = (TF_Output * 1)()
    lib.TF_GraphImportGraphDefWithReturnOutputs(graph, buf, opts, returned, 1, api.status)
    api.check()
    assert lib.TF_OperationName(returned[0].oper) == b"mul"
    lib.TF_DeleteBuffer(buf)
    lib.TF_DeleteImportGraphDefOptions(opts)


# ---- Bad GraphDefs: refused with a status, the graph unchanged -------------------------

def _expect_refused(api, graph, gd, code, *words):
    before = _names(api, graph)
    with pytest.raises(CApiError) as e:
        _import(api, graph, gd)
    assert e.value.code == code, e.value.message
    for w in words:
        assert w in e.value.message, e.value.message
    assert _names(api, graph) == before


def test_cycle(api, graph):
    gd = _small_graph_def()
    gd.node[2].input[0] = "y"  # mul <- y <- mul
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "cycle")


def test_missing_input_node(api, graph):
    gd = _small_graph_def()
    gd.node[3].input[0] = "ghost"
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "ghost")


def test_unknown_op(api, graph):
    gd = _small_graph_def()
    gd.node.append(_node("z", "NoSuchOp", ["y"]))
    _expect_refused(api, graph, gd, NOT_FOUND, "NoSuchOp")


def test_dtype_mismatch(api, graph):
    gd = _small_graph_def()
    gd.node[2].attr["T"].type = types_pb2.DT_INT32  # Mul says int32, inputs are float
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "mul")


def test_truncated_bytes(api, graph):
    data = _small_graph_def().SerializeToString()
    for cut in (len(data) // 2, len(data) - 1, 3):
        _expect_refused(api, graph, data[:cut], INVALID_ARGUMENT)


def test_attrs_the_op_def_lacks_are_kept_unchecked(api, graph):
    """As TensorFlow does for graphs from a newer producer: imported, not validated,
    and written back."""
    gd = _small_graph_def()
    gd.node[3].attr["from_the_future"].i = 7
    _import(api, graph, gd)
    written = graph_pb2.GraphDef.FromString(api.graph_def(graph))
    assert written.node[3].attr["from_the_future"].i == 7
    got = _run(api, graph, {"x": np.float32([1, 1])}, "y")
    np.testing.assert_array_equal(got, [2, 0])


def test_duplicate_names(api, graph):
    gd = _small_graph_def()
    gd.node.append(_node("y", "NoOp"))
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "y")


def test_failed_import_keeps_existing_nodes(api, graph):
    api.op(graph, "NoOp", "mine")
    _import(api, graph, _small_graph_def(), prefix="first")
    gd = _small_graph_def()
    gd.node.append(_node("bad", "Relu", ["x", "c"], T=_attr_type(types_pb2.DT_FLOAT)))
    _expect_refused(api, graph, gd, INVALID_ARGUMENT)
    assert len(_names(api, graph)) == 6
    _run(api, graph, {"first/x": np.float32([1, 1])}, "first/y")


def test_name_clash_with_the_graph(api, graph):
    api.op(graph, "NoOp", "y")
    _expect_refused(api, graph, _small_graph_def(), INVALID_ARGUMENT, "y")


# ---- A graph frozen by TensorFlow --------------------------------------------------------

def test_tensorflow_frozen_graph_imports_and_runs(api, graph):
    data = (TESTDATA / "frozen_cnn.pb").read_bytes()
    io = np.load(TESTDATA / "frozen_cnn_io.npz")
    _import(api, graph, data)
    name = str(io["output"]).split(":")[0]
    got = _run(api, graph, {"x": io["x"]}, name)
    np.testing.assert_allclose(got, io["y"], rtol=1e-4, atol=1e-6)
    # Written back, the graph keeps TensorFlow's attrs, private ones included.
    original = graph_pb2.GraphDef.FromString(data)
    written = graph_pb2.GraphDef.FromString(api.graph_def(graph))
    assert {n.name: n for n in written.node} == {n.name: n for n in original.node}


def test_shape_mismatch(api, graph):
    gd = _small_graph_def()
    gd.node[0].attr["shape"].shape.CopyFrom(tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=3)]))  # x: [3], c: [2]
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "mul")


# ---- What TensorFlow's importer refuses (issue 18) -----------------------------------
# Each case was checked against TensorFlow 2.21's tf.compat.v1.import_graph_def.

@pytest.mark.parametrize("node, attr", [(3, "T"), (2, "T"), (0, "dtype")])
def test_a_required_attr_missing_from_a_node_def_is_refused(api, graph, node, attr):
    """TF_FinishOperation infers a missing T from the inputs; a GraphDef must say it."""
    gd = _small_graph_def()
    del gd.node[node].attr[attr]
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, gd.node[node].name, f"'{attr}'", "missing")


def test_attrs_with_defaults_may_be_left_out(api, graph):
    gd = _small_graph_def()
    del gd.node[0].attr["shape"]  # Placeholder's shape defaults to unknown
    _import(api, graph, gd)
    np.testing.assert_array_equal(_run(api, graph, {"x": np.float32([1, -1])}, "y"), [2, 3])


def test_private_attrs_are_accepted(api, graph):
    gd = _small_graph_def()
    gd.node[3].attr["_output_shapes"].list.shape.add()
    gd.node[3].attr["_class"].list.s.append(b"loc:@x")
    _import(api, graph, gd)


@pytest.mark.parametrize("versions, words", [
    ({"producer": -1}, ["producer version -1", "min producer 0"]),
    ({"producer": 5, "min_consumer": 100000}, ["min consumer version 100000", "2474"]),
    ({"producer": 2474, "bad_consumers": [17, 2474]}, ["disallows consumer version 2474"]),
])
def test_impossible_versions_are_refused(api, graph, versions, words):
    gd = _small_graph_def()
    gd.versions.Clear()
    for key, value in versions.items():
        if key == "bad_consumers":
            gd.versions.bad_consumers.extend(value)
        else:
            setattr(gd.versions, key, value)
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, *words)


@pytest.mark.parametrize("versions", [
    {}, {"producer": 0}, {"producer": 5}, {"producer": 100000},
    {"producer": 10, "min_consumer": 20},  # producer below min_consumer: TensorFlow accepts it
    {"producer": 2474, "min_consumer": 2474, "bad_consumers": [2473, 2475]},
])
def test_possible_versions_are_accepted(api, graph, versions):
    gd = _small_graph_def()
    gd.versions.Clear()
    for key, value in versions.items():
        if key == "bad_consumers":
            gd.versions.bad_consumers.extend(value)
        else:
            setattr(gd.versions, key, value)
    _import(api, graph, gd)


def _with_library(library_bytes: bytes) -> bytes:
    """The small GraphDef with field 2 (library) holding `library_bytes` as given."""
    head = _small_graph_def().SerializeToString()
    length, n = bytearray(), len(library_bytes)
    while True:
        length.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not length[-1] & 0x80:
            break
    return head + b"\x12" + bytes(length) + library_bytes


@pytest.mark.parametrize("library", [
    b"\x0a\x05\xff\xff\xff\xff\xff",  # a FunctionDef that is not a message
    b"\x0a\x04\x0a\x02\x0a\x05",  # a signature whose name runs past its end
    b"\x0a\x06\x1a\x04\x0a\x05ab",  # a node_def whose name runs past its end
    b"\x12\x03\x0a\x05a",  # a GradientDef whose function name runs past its end
    b"\x0b\x00",  # a group start: not a FunctionDefLibrary
], ids=["function", "signature", "node_def", "gradient", "wire-type"])
def test_an_unparseable_function_library_is_refused(api, graph, library):
    _expect_refused(api, graph, _with_library(library), INVALID_ARGUMENT, "function library")


def test_function_library_names_clash_as_in_tensorflow(api, graph):
    from opgen.protos import function_pb2
    gd = _small_graph_def()
    gd.library.function.add().signature.name = "Relu"  # an op's name
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "'Relu'", "op with the same name")
    gd = _small_graph_def()
    gd.library.function.add().signature.name = "f"
    twin = gd.library.function.add()
    twin.signature.name = "f"
    twin.signature.description = "another body"
    _expect_refused(api, graph, gd, INVALID_ARGUMENT, "'f'", "different function")
    # What TensorFlow accepts: well-formed functions, twins that are the same, gradients.
    gd = _small_graph_def()
    f = gd.library.function.add()
    f.signature.name = "f"
    gd.library.function.add().CopyFrom(f)
    gd.library.gradient.add(function_name="f", gradient_func="g")
    assert isinstance(f, function_pb2.FunctionDef)
    _import(api, graph, gd)
    written = graph_pb2.GraphDef.FromString(api.graph_def(graph))
    # The library is kept parsed, by name: twins are one function, as in TensorFlow's.
    assert list(written.library.function) == [f]
    assert written.library.gradient == gd.library.gradient


# Device strings as TensorFlow 2.21's import_graph_def takes them (its DeviceSpec
# parser): every one below was checked there.
GOOD_DEVICES = ["", "/cpu:0", "/CPU:0", "/device:CPU:0", "/job:x/replica:0/task:0/device:GPU:1",
                "CPU:0", "cpu:0", "gpu", "GPU:*", "/gpu:*", "/job:x", "/task:1", "/replica:0",
                "/job:localhost/replica:0/task:0/cpu:0", "/device:XLA_CPU:0", "/device:FOO:1",
                "//", "/job:x/device:CPU:0/", "/job:worker_1/task:3",
                # lenient there, so accepted here too
                "/cpu:-1", "/job:", "/device:1a:0", ":0"]
BAD_DEVICES = ["garbage", "/replica:a", "/cpu:0/gpu:1", "/device:CPU", "/task:x", "CPU:zero",
               "/bogus:1", "/device:CPU:0:1", "/device:GPU:0/cpu:0", "cpu:0:1"]


def _import_checking_devices(api, graph, gd):
    """Imports with OPGEN_ImportGraphDefOptionsSetCheckDevices on, as opgen.import_graph_def does."""
    lib = api.lib
    lib.OPGEN_ImportGraphDefOptionsSetCheckDevices.argtypes = [c_void_p, ctypes.c_ubyte]
    lib.OPGEN_ImportGraphDefOptionsSetCheckDevices.restype = None
    data = gd.SerializeToString()
    opts = lib.TF_NewImportGraphDefOptions()
    lib.OPGEN_ImportGraphDefOptionsSetCheckDevices(opts, 1)
    buf = lib.TF_NewBufferFromString(data, len(data))
    lib.TF_GraphImportGraphDef(graph, buf, opts, api.status)
    lib.TF_DeleteBuffer(buf)
    lib.TF_DeleteImportGraphDefOptions(opts)
    api.check()


def _device_of(api, graph, name="y"):
    return api.lib.TF_OperationDevice(api.lib.TF_GraphOperationByName(graph, name.encode())).decode()


@pytest.mark.parametrize("device", GOOD_DEVICES)
def test_device_strings_tensorflow_parses_are_accepted(api, graph, device):
    gd = _small_graph_def()
    gd.node[3].device = device
    _import_checking_devices(api, graph, gd)
    assert _device_of(api, graph) == device


@pytest.mark.parametrize("device", BAD_DEVICES)
def test_device_strings_that_do_not_parse_are_refused_when_checked(api, graph, device):
    gd = _small_graph_def()
    gd.node[3].device = device
    before = _names(api, graph)
    with pytest.raises(CApiError) as e:
        _import_checking_devices(api, graph, gd)
    assert e.value.code == INVALID_ARGUMENT
    for word in ("'y'", "device", device):
        assert word in e.value.message, e.value.message
    assert _names(api, graph) == before


@pytest.mark.parametrize("device", BAD_DEVICES[:3])
def test_the_c_importer_takes_any_device_string_as_tensorflows_does(api, graph, device):
    """TensorFlow's TF_GraphImportGraphDef (like TF_SetDevice) keeps any string; only
    its Python import_graph_def parses them. The runtime's own graph rewrites round-trip
    through this importer, so a graph built with any device string keeps working."""
    gd = _small_graph_def()
    gd.node[3].device = device
    _import(api, graph, gd)
    assert _device_of(api, graph) == device


@pytest.mark.parametrize("device", ["garbage", "/cpu:0/gpu:1"])
def test_python_import_graph_def_refuses_devices_as_tensorflow_does(device):
    import opgen
    from opgen.runtime import errors
    gd = _small_graph_def()
    gd.node[3].device = device
    with opgen.Graph().as_default() as g:
        with pytest.raises(errors.InvalidArgumentError, match="device"):
            opgen.import_graph_def(gd, name="")
        assert g.get_operations() == []
        gd.node[3].device = "/device:CPU:0"
        opgen.import_graph_def(gd, name="")
        assert g.get_operation_by_name("y").device == "/device:CPU:0"
