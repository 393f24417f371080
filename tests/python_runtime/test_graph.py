"""opgen.Graph, Operation, Output and import_graph_def over the C graph API: what an
operation reports matches what was built, GraphDefs round-trip through the protobuf
library, imports honour prefix / input_map / return_elements, and misuse raises."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, tensor_shape_pb2
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def placeholder(g, dtype=opgen.float32, shape=None, name="x"):
    return g.create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name).outputs[0]


def const(g, value, dtype=None, name=None):
    array = np.asarray(value, dtype=dtype)
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(array.dtype), "value": array},
                       name=name or "Const").outputs[0]


def tensor_proto_array(proto):
    """A TensorProto's values as numpy (float32 / int32 protos as the runtime writes them)."""
    shape = [d.size for d in proto.tensor_shape.dim]
    dtype = opgen.as_dtype(proto.dtype).numpy_dtype
    if proto.tensor_content:
        return np.frombuffer(proto.tensor_content, dtype=dtype).reshape(shape)
    values = proto.float_val if dtype == np.float32 else proto.int_val
    return np.broadcast_to(np.asarray(values, dtype=dtype), shape)


# ---- building and inspecting ----------------------------------------------------------------

def test_operations_report_what_was_built():
    g = opgen.Graph()
    x = placeholder(g, shape=[None, 3])
    w = const(g, np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    product = g.create_op("MatMul", [x, w], {"transpose_b": False}, name="product")

    assert (product.name, product.type, product.graph) == ("product", "MatMul", g)
    assert product.inputs == [x, w]
    assert product.num_inputs == 2 and product.num_outputs == 1
    out = product.outputs[0]
    assert (out.name, out.value_index, out.op) == ("product:0", 0, product)
    assert out.dtype == opgen.float32
    assert x.op.type == "Placeholder" and x.op.inputs == []
    assert x.shape == (None, 3)
    assert w.shape == (3, 2)
    assert x.consumers() == [product]
    assert product.outputs[0].consumers() == []


def test_the_same_operation_is_the_same_object():
    g = opgen.Graph()
    x = placeholder(g)
    assert g.get_operation_by_name("x") is x.op
    assert g.get_tensor_by_name("x:0") is x
    assert g.get_operations()[0] is x.op


def test_get_attr_returns_python_values_as_tensorflow_does():
    g = opgen.Graph()
    x = placeholder(g, opgen.int32, shape=[2, None], name="x")
    c = const(g, [[1, 2, 3]], dtype=np.int32, name="c")
    add = g.create_op("AddV2", [x, c], name="add")

    assert x.op.get_attr("dtype") == opgen.int32
    shape = x.op.get_attr("shape")
    assert isinstance(shape, tensor_shape_pb2.TensorShapeProto)
    assert [d.size for d in shape.dim] == [2, -1]
    assert add.get_attr("T") == opgen.int32  # inferred from the inputs
    np.testing.assert_array_equal(tensor_proto_array(c.op.get_attr("value")), [[1, 2, 3]])
    matmul = g.create_op("MatMul", [const(g, np.eye(2, dtype=np.float32))] * 2,
                         {"transpose_a": True})
    assert matmul.get_attr("transpose_a") is True
    assert matmul.get_attr("transpose_b") is False  # the OpDef default
    with pytest.raises(ValueError, match="no attr"):
        matmul.get_attr("no_such_attr")


def test_list_attrs_and_devices():
    g = opgen.Graph()
    image = placeholder(g, shape=[1, 4, 4, 1], name="image")
    pool = g.create_op("MaxPool", [image], {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                            "padding": "VALID"}, device="/device:CPU:0")
    assert pool.get_attr("ksize") == [1, 2, 2, 1]
    assert pool.get_attr("padding") == b"VALID"
    assert pool.device.endswith("CPU:0")
    assert pool.outputs[0].shape == (1, 2, 2, 1)


def test_attrs_as_attr_value_messages_and_extra_underscore_attrs():
    g = opgen.Graph()
    shape = attr_value_pb2.AttrValue()
    shape.shape.dim.add(size=5)
    x = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": shape}).outputs[0]
    assert x.shape == (5,)
    tagged = g.create_op("Identity", [x], {"_class": ["loc:@Placeholder"], "_note": "kept",
                                           "_count": 3, "_flag": True})
    assert tagged.get_attr("_class") == [b"loc:@Placeholder"]
    assert tagged.get_attr("_note") == b"kept"
    assert tagged.get_attr("_count") == 3 and tagged.get_attr("_flag") is True
    node = {n.name: n for n in g.as_graph_def().node}[tagged.name]
    assert list(node.attr["_class"].list.s) == [b"loc:@Placeholder"]
    with pytest.raises(errors.InvalidArgumentError, match="_odd"):
        g.create_op("Identity", [x], {"_odd": object()})


def test_names_are_made_unique_and_default_to_the_op_type():
    g = opgen.Graph()
    first, second = placeholder(g, name="x"), placeholder(g, name="x")
    assert (first.op.name, second.op.name) == ("x", "x_1")
    a, b = const(g, 1.0, name=None), const(g, 2.0, name=None)
    assert (a.op.name, b.op.name) == ("Const", "Const_1")
    assert [op.name for op in g] == ["x", "x_1", "Const", "Const_1"]
    assert len(g) == 4 and "x_1" in g and "y" not in g


def test_control_inputs():
    g = opgen.Graph()
    first = g.create_op("NoOp", [], name="first")
    x = placeholder(g)
    after = g.create_op("Identity", [x], control_inputs=[first], name="after")
    assert after.control_inputs == [first]
    assert x.op.control_inputs == []


def test_lookups_by_name_raise_like_tensorflow():
    g = opgen.Graph()
    placeholder(g)
    with pytest.raises(KeyError):
        g.get_operation_by_name("missing")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("missing:0")
    with pytest.raises(KeyError):
        g.get_tensor_by_name("x:1")
    with pytest.raises(ValueError):
        g.get_tensor_by_name("x")
    with pytest.raises(ValueError):
        g.get_operation_by_name("x:0")


def test_bad_operations_raise_and_leave_the_graph_unchanged():
    g, other = opgen.Graph(), opgen.Graph()
    x = placeholder(g)
    i = placeholder(g, opgen.int32, name="i")
    with pytest.raises(errors.NotFoundError, match="NoSuchOp"):
        g.create_op("NoSuchOp", [])
    with pytest.raises(errors.InvalidArgumentError, match="takes 2 input"):
        g.create_op("AddV2", [x])
    with pytest.raises(errors.InvalidArgumentError, match="another graph"):
        g.create_op("AddV2", [x, placeholder(other)])
    with pytest.raises(errors.InvalidArgumentError, match="must be an opgen.Output"):
        g.create_op("AddV2", [x, 1.0])
    with pytest.raises(errors.InvalidArgumentError, match="no attr named 'bogus'"):
        g.create_op("Identity", [x], {"bogus": 1})
    with pytest.raises(errors.InvalidArgumentError, match="transpose_a"):
        g.create_op("MatMul", [x, x], {"transpose_a": "yes"})
    with pytest.raises(errors.InvalidArgumentError, match="takes a list"):
        g.create_op("AddN", [x])
    assert [op.name for op in g] == ["x", "i"]
    with pytest.raises(errors.InvalidArgumentError):  # the C side: float32 + int32
        g.create_op("AddV2", [x, i])


# ---- default graph ---------------------------------------------------------------------------

def test_as_default_nests_and_is_per_thread():
    outer, inner = opgen.Graph(), opgen.Graph()
    base = opgen.get_default_graph()
    seen_in_thread = []
    with outer.as_default() as entered:
        assert entered is outer and opgen.get_default_graph() is outer
        with inner.as_default():
            assert opgen.get_default_graph() is inner
            worker = threading.Thread(target=lambda: seen_in_thread.append(opgen.get_default_graph()))
            worker.start()
            worker.join()
        assert opgen.get_default_graph() is outer
    assert opgen.get_default_graph() is base
    assert seen_in_thread == [base]


def test_reset_default_graph():
    before = opgen.get_default_graph()
    opgen.reset_default_graph()
    assert opgen.get_default_graph() is not before
    with opgen.Graph().as_default(), pytest.raises(AssertionError):
        opgen.reset_default_graph()


# ---- GraphDef out and in ---------------------------------------------------------------------

def build_affine(g):
    x = placeholder(g, shape=[None, 2])
    w = const(g, [[1.0, 2.0], [3.0, 4.0]], dtype=np.float32, name="w")
    y = g.create_op("MatMul", [x, w], name="y").outputs[0]
    g.create_op("Relu", [y], name="out")
    return x


def test_as_graph_def_is_a_graph_def_the_protobuf_library_reads():
    g = opgen.Graph()
    build_affine(g)
    graph_def = g.as_graph_def()
    assert isinstance(graph_def, graph_pb2.GraphDef)
    reparsed = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
    nodes = {n.name: n for n in reparsed.node}
    assert [n.name for n in reparsed.node] == ["x", "w", "y", "out"]
    assert nodes["y"].op == "MatMul" and list(nodes["y"].input) == ["x", "w"]
    assert list(nodes["out"].input) == ["y"]
    assert nodes["x"].attr["dtype"].type == opgen.float32.as_datatype_enum
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 2]
    np.testing.assert_array_equal(tensor_proto_array(nodes["w"].attr["value"].tensor),
                                  [[1.0, 2.0], [3.0, 4.0]])
    assert nodes["y"].attr["T"].type == opgen.float32.as_datatype_enum


def test_import_prefixes_names_like_tensorflow():
    source = opgen.Graph()
    build_affine(source)
    graph_def = source.as_graph_def()
    target = opgen.Graph()
    with target.as_default():
        assert opgen.import_graph_def(graph_def) is None
        opgen.import_graph_def(graph_def.SerializeToString())
        opgen.import_graph_def(graph_def, name="net")
        opgen.import_graph_def(graph_def, name="")
    names = [op.name for op in target]
    assert names[:4] == ["import/x", "import/w", "import/y", "import/out"]
    assert names[4:8] == ["import_1/x", "import_1/w", "import_1/y", "import_1/out"]
    assert names[8:12] == ["net/x", "net/w", "net/y", "net/out"]
    assert names[12:] == ["x", "w", "y", "out"]
    assert target.get_operation_by_name("net/y").inputs == [
        target.get_tensor_by_name("net/x:0"), target.get_tensor_by_name("net/w:0")]


def test_import_with_input_map_and_return_elements():
    source = opgen.Graph()
    build_affine(source)
    target = opgen.Graph()
    with target.as_default():
        replacement = placeholder(target, shape=[3, 2], name="features")
        out, y_op = opgen.import_graph_def(
            source.as_graph_def(), input_map={"x:0": replacement},
            return_elements=["out:0", "y"], name="model")
    assert (out.name, y_op.name) == ("model/out:0", "model/y")
    assert isinstance(out, opgen.Output) and isinstance(y_op, opgen.Operation)
    assert y_op.inputs[0] is replacement
    assert out.graph is target


def test_import_errors():
    source = opgen.Graph()
    build_affine(source)
    with opgen.Graph().as_default() as target:
        z = placeholder(target, name="z")
        with pytest.raises(errors.InvalidArgumentError, match="nope:0"):
            opgen.import_graph_def(source.as_graph_def(), input_map={"nope:0": z})
        with pytest.raises(errors.OpError):
            opgen.import_graph_def(source.as_graph_def(), return_elements=["missing:0"])
        with pytest.raises(errors.InvalidArgumentError):
            opgen.import_graph_def(b"\xff\xff\xff not a graph def")
        with pytest.raises(TypeError):
            opgen.import_graph_def(42)
        unknown = graph_pb2.GraphDef()
        unknown.node.add(name="n", op="NoSuchOp")
        with pytest.raises(errors.OpError, match="NoSuchOp"):
            opgen.import_graph_def(unknown)


def test_graphs_are_freed():
    import gc
    import weakref
    g = opgen.Graph()
    build_affine(g)
    finalizer = g._finalizer
    ref = weakref.ref(g)
    del g
    gc.collect()
    assert ref() is None and not finalizer.alive
