"""GraphDefs TensorFlow 2.21 writes for tf.functions with tf.cond, tf.while_loop and a
nested tf.function (StatelessIf / StatelessWhile / PartitionedCall over a
FunctionDefLibrary; tests/fixtures/tf_functions, made by tools/make_tf_function_fixtures.py)
imported with opgen.import_graph_def and run with opgen.Session give TensorFlow's recorded
outputs; the library survives export and re-import; bad functions raise clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, types_pb2
from opgen.runtime import errors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_functions"


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _load():
    gd = graph_pb2.GraphDef.FromString((FIXTURES / "control_flow.pb").read_bytes())
    return gd, np.load(FIXTURES / "control_flow_io.npz")


def test_tensorflow_control_flow_graph_gives_tensorflows_outputs():
    gd, io = _load()
    assert {"StatelessIf", "StatelessWhile"} <= {n.op for n in gd.node}
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(gd, name="")
    x_name, n_name = (str(s) for s in io["inputs"])
    (out_name,) = (str(s) for s in io["outputs"])
    with opgen.Session(graph=graph) as session:
        for case in ("0", "1"):
            got = session.run(out_name, {x_name: io["x" + case], n_name: io["n" + case]})
            np.testing.assert_allclose(got, io["out" + case], rtol=1e-5, atol=1e-6)


def test_the_library_survives_export_and_reimport():
    gd, io = _load()
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(gd, name="")
    exported = graph.as_graph_def()
    assert {f.signature.name for f in exported.library.function} == \
        {f.signature.name for f in gd.library.function}
    again = opgen.Graph()
    with again.as_default():
        opgen.import_graph_def(exported, name="")
    with opgen.Session(graph=again) as session:
        got = session.run(str(io["outputs"][0]), {str(io["inputs"][0]): io["x0"],
                                                  str(io["inputs"][1]): io["n0"]})
    np.testing.assert_allclose(got, io["out0"], rtol=1e-5, atol=1e-6)


def _recursive_graph_def():
    gd = graph_pb2.GraphDef()
    x = gd.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    f = gd.library.function.add()
    f.signature.name = "forever"
    f.signature.input_arg.add(name="a", type=types_pb2.DT_FLOAT)
    f.signature.output_arg.add(name="b", type=types_pb2.DT_FLOAT)
    f.node_def.add(name="again", op="forever", input=["a"])
    f.ret["b"] = "again:b:0"
    call = gd.node.add(name="call", op="PartitionedCall", input=["x"])
    call.attr["Tin"].list.type.append(types_pb2.DT_FLOAT)
    call.attr["Tout"].list.type.append(types_pb2.DT_FLOAT)
    call.attr["f"].CopyFrom(attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name="forever")))
    return gd


def test_bad_functions_raise_clear_errors():
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(_recursive_graph_def(), name="")
    with opgen.Session(graph=graph) as session, pytest.raises(
            errors.ResourceExhaustedError, match=r"nest deeper than 100 \(calling 'forever'"):
        session.run("call:0", {"x:0": np.float32(1)})
    gd = _recursive_graph_def()
    gd.node[1].attr["f"].func.name = "missing"
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(graph=graph) as session, pytest.raises(
            errors.NotFoundError, match=r"'missing' is not in the function library \(it holds: forever\)"):
        session.run("call:0", {"x:0": np.float32(1)})


def test_a_call_without_arguments_inside_a_function():
    """A NodeDef's empty `Tin` ("list {}") is the empty type list that no inputs imply
    (it was refused as "Tin=[] implies Tin=[]")."""
    gd = graph_pb2.GraphDef()
    seven = gd.library.function.add()
    seven.signature.name = "seven"
    seven.signature.output_arg.add(name="y", type=types_pb2.DT_FLOAT)
    const = seven.node_def.add(name="c", op="Const")
    const.attr["dtype"].type = types_pb2.DT_FLOAT
    const.attr["value"].tensor.dtype = types_pb2.DT_FLOAT
    const.attr["value"].tensor.float_val.append(7.0)
    seven.ret["y"] = "c:output:0"
    outer = gd.library.function.add()
    outer.signature.name = "outer"
    outer.signature.output_arg.add(name="y", type=types_pb2.DT_FLOAT)
    outer.ret["y"] = "call:output:0"
    for node, callee in ((outer.node_def.add(name="call"), "seven"), (gd.node.add(name="top"), "outer")):
        node.op = "PartitionedCall"
        node.attr["Tin"].list.SetInParent()
        node.attr["Tout"].list.type.append(types_pb2.DT_FLOAT)
        node.attr["f"].func.name = callee
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(graph=graph) as session:
        assert session.run("top:0") == np.float32(7.0)
