"""The generated op functions in graph mode: inside ``Graph.as_default()`` they add
nodes and return Outputs shaped as their eager results; outside they run eagerly.
Graphs built this way run (directly, or exported and re-imported) to the values the
same calls give eagerly, which numpy checks in turn."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime.errors import InvalidArgumentError


def test_the_same_function_builds_a_node_in_a_graph_and_runs_outside():
    eager = ops.add_v2(np.float32([1, 2]), np.float32([3, 4]))
    assert isinstance(eager, opgen.Tensor)
    g = opgen.Graph()
    with g.as_default():
        a = ops.placeholder(opgen.float32, shape=[2], name="a")
        node = ops.add_v2(a, a)
        assert isinstance(node, opgen.Output)
        assert node.graph is g and node.op.type == "AddV2" and node.dtype == opgen.float32
        assert node.op.get_attr("T") == opgen.float32
    # Back outside: eager again, and the fast path's results are plain Tensors.
    again = ops.add_v2(np.float32([1, 2]), np.float32([3, 4]))
    assert isinstance(again, opgen.Tensor)
    np.testing.assert_array_equal(again.numpy(), eager.numpy())
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(node, {a: np.float32([1, 2])}), [2, 4])


def test_other_threads_stay_eager_while_one_builds_a_graph():
    g = opgen.Graph()
    results = []
    entered, done = threading.Event(), threading.Event()

    def eager_thread():
        entered.wait(10)
        results.append(ops.mul(np.float32([2]), np.float32([5])))
        done.set()

    worker = threading.Thread(target=eager_thread)
    worker.start()
    with g.as_default():
        entered.set()
        done.wait(10)
        assert isinstance(ops.neg(1.0), opgen.Output)
    worker.join()
    assert isinstance(results[0], opgen.Tensor)
    np.testing.assert_array_equal(results[0].numpy(), [10])


def test_placeholder_has_the_dtype_and_shape_given():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.int64, shape=[None, 3], name="x")
        unknown = ops.placeholder("float32")
    assert x.dtype == opgen.int64 and x.shape == (None, 3) and x.name == "x:0"
    assert unknown.shape is None and unknown.op.name == "Placeholder"
    with opgen.Session(g) as sess:
        fed = np.arange(6, dtype=np.int64).reshape(2, 3)
        np.testing.assert_array_equal(sess.run(x, {x: fed}), fed)


def _const_input(output: opgen.Output, index: int) -> opgen.Operation:
    op = output.op.inputs[index].op
    assert op.type == "Const"
    return op


def test_python_values_become_const_nodes_with_the_ops_dtype():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float64, name="x")
        # The type attr comes from the other input: 1 becomes a float64 Const.
        y = ops.add_v2(x, 1)
        # Nothing fixes the type: TensorFlow's defaults (int32, float32).
        ints = ops.add_v2([[1, 2], [3, 4]], 5)
        floats = ops.mul(0.5, [2.0, 4.0])
        # Numpy data keeps its dtype; eager tensors become constants too.
        arr = ops.neg(np.arange(3, dtype=np.int16))
        tensor = ops.neg(opgen.convert_to_tensor(np.float32([1.5])))
        # Range's Tidx defaults to int32, yet float bounds make it float32 (as eagerly).
        rng = ops.range(0.5, 2.0, 0.5)
        # An input whose dtype the OpDef fixes: Fill's dims is int32 by its attr default.
        filled = ops.fill([2, 3], np.float32(1.5))
    assert _const_input(y, 1).get_attr("dtype") == opgen.float64 and y.dtype == opgen.float64
    assert ints.dtype == opgen.int32 and floats.dtype == opgen.float32
    assert arr.dtype == opgen.int16 and tensor.dtype == opgen.float32
    assert rng.dtype == opgen.float32 and filled.dtype == opgen.float32
    assert _const_input(filled, 0).get_attr("dtype") == opgen.int32
    with opgen.Session(g) as sess:
        got = sess.run({"y": y, "ints": ints, "floats": floats, "arr": arr, "tensor": tensor,
                        "rng": rng, "filled": filled}, {x: np.float64(2.0)})
    assert got["y"] == 3.0 and got["y"].dtype == np.float64
    np.testing.assert_array_equal(got["ints"], np.array([[6, 7], [8, 9]], dtype=np.int32))
    np.testing.assert_array_equal(got["floats"], np.float32([1.0, 2.0]))
    np.testing.assert_array_equal(got["arr"], -np.arange(3, dtype=np.int16))
    np.testing.assert_array_equal(got["tensor"], np.float32([-1.5]))
    np.testing.assert_array_equal(got["rng"], np.arange(0.5, 2.0, 0.5, dtype=np.float32))
    np.testing.assert_array_equal(got["filled"], np.full((2, 3), 1.5, np.float32))


def test_const_conversion_errors_name_the_op_and_input():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.int32, name="x")
        with pytest.raises(InvalidArgumentError, match="AddV2.*'y'"):
            ops.add_v2(x, np.float64([1.5]))  # numpy data is not cast, as eagerly
        with pytest.raises(InvalidArgumentError, match="AddV2"):
            ops.add_v2(x, ops.placeholder(opgen.float32))
        with pytest.raises(InvalidArgumentError, match="Relu.*'T'.*bool"):
            ops.relu(ops.placeholder(opgen.bool))
        with pytest.raises(InvalidArgumentError, match="Placeholder.*dtype"):
            ops.placeholder(dtype=None)


def test_inferred_attrs_from_output_dtypes():
    g = opgen.Graph()
    with g.as_default():
        a = ops.placeholder(opgen.float32, shape=[2, 2], name="a")
        b = ops.placeholder(opgen.float32, shape=[1, 2], name="b")
        cat = ops.concat_v2([a, b, [[7.0, 8.0]]], 0)
        total = ops.add_n([a, a, a])
    assert cat.op.get_attr("N") == 3 and cat.op.get_attr("T") == opgen.float32
    assert cat.op.get_attr("Tidx") == opgen.int32 and cat.shape == (4, 2)
    assert total.op.get_attr("N") == 3
    fa, fb = np.float32([[1, 2], [3, 4]]), np.float32([[5, 6]])
    with opgen.Session(g) as sess:
        got_cat, got_total = sess.run([cat, total], {a: fa, b: fb})
    np.testing.assert_array_equal(got_cat, np.concatenate([fa, fb, [[7, 8]]]))
    np.testing.assert_array_equal(got_total, fa * 3)


def test_outputs_are_shaped_as_eager_results():
    x = np.random.default_rng(0).standard_normal((2, 2, 2, 3)).astype(np.float32)
    scale, offset = np.float32([1, 2, 3]), np.float32([0.5, 0, -0.5])
    mean, variance = np.float32([0.1, 0.2, 0.3]), np.float32([1, 2, 0.5])
    eager = ops.fused_batch_norm_v3(x, scale, offset, mean, variance, is_training=False)
    eager_parts = ops.unpack(np.arange(6, dtype=np.float32).reshape(3, 2), num=3)
    g = opgen.Graph()
    with g.as_default():
        px = ops.placeholder(opgen.float32, shape=x.shape, name="x")
        node = ops.fused_batch_norm_v3(px, scale, offset, mean, variance, is_training=False)
        parts = ops.unpack(np.arange(6, dtype=np.float32).reshape(3, 2), num=3)
    assert type(node).__name__ == type(eager).__name__ == "FusedBatchNormV3"
    assert node._fields == eager._fields
    assert all(isinstance(o, opgen.Output) for o in node)
    assert isinstance(parts, list) and len(parts) == 3
    with opgen.Session(g) as sess:
        got = sess.run({"y": node.y, "parts": parts}, {px: x})
    np.testing.assert_allclose(got["y"], eager.y.numpy(), rtol=1e-6)
    for got_part, eager_part in zip(got["parts"], eager_parts):
        np.testing.assert_array_equal(got_part, eager_part.numpy())


def _model(x, w):
    """A small network of generated ops; `x` and `w` are eager or graph values."""
    h = ops.relu(ops.add_v2(ops.mat_mul(x, w), [0.5, -0.25, 0.0]))
    s = ops.sum(ops.mul(h, h), [1], keep_dims=True)
    return ops.concat_v2([h, ops.sqrt(s)], 1)


def test_a_graph_exported_and_reimported_runs_to_the_eager_result():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 2)).astype(np.float32)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    eager = _model(x, w).numpy()
    h = np.maximum(x @ w + np.float32([0.5, -0.25, 0.0]), 0)  # numpy, independently
    np.testing.assert_allclose(eager, np.concatenate(
        [h, np.sqrt((h * h).sum(1, keepdims=True))], 1), rtol=1e-5)

    g = opgen.Graph()
    with g.as_default():
        px = ops.placeholder(opgen.float32, shape=[None, 2], name="x")
        out = ops.identity(_model(px, w), name="out")
    graph_def = g.as_graph_def()
    assert {n.name for n in graph_def.node} >= {"x", "out", "MatMul/b", "MatMul"}

    fresh = opgen.Graph()
    with fresh.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(fresh) as sess:
        got = sess.run("out:0", {"x:0": x})
    np.testing.assert_allclose(got, eager, rtol=1e-6)


def test_name_is_accepted_by_every_op_and_scopes_apply():
    g = opgen.Graph()
    with g.as_default():
        first = ops.no_op(name="init")
        assert isinstance(first, opgen.Operation)  # no outputs: the Operation, as TensorFlow
        assert first is g.get_operation_by_name("init") and first.type == "NoOp"
        with opgen.control_dependencies([first]):
            waits = ops.no_op()
        assert waits.control_inputs == [first] and waits.name == "NoOp"
        with opgen.name_scope("layer"):
            out = ops.identity(ops.placeholder(opgen.float32, name="in"), name="result")
    assert out.name == "layer/result:0"
    assert out.op.inputs[0].name == "layer/in:0"
    assert ops.no_op() is None  # eagerly: nothing to return


def test_graph_mode_ends_with_the_last_as_default_block():
    from opgen.runtime import eager as eager_module

    g = opgen.Graph()
    with g.as_default():
        with opgen.Graph().as_default():
            assert eager_module._graph_dispatch is not None
        assert isinstance(ops.neg(1.0), opgen.Output)
    assert isinstance(ops.neg(1.0), opgen.Tensor)
    assert eager_module._graph_dispatch is None


def test_a_graph_output_outside_its_graph_context_is_a_clear_error():
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, name="x")
    with pytest.raises(InvalidArgumentError, match="Neg: input 'x' is the graph output 'x:0'"):
        ops.neg(x)
    with pytest.raises(InvalidArgumentError, match="AddN: input 'inputs' is the graph output"):
        ops.add_n([x, x])


def test_graph_mode_without_the_compiled_fast_path(tmp_path):
    script = tmp_path / "graph_mode_ctypes.py"
    script.write_text(
        "import numpy as np, opgen\n"
        "from opgen import ops\n"
        "from opgen.runtime import tensor\n"
        "assert tensor._fast_path is None\n"
        "g = opgen.Graph()\n"
        "with g.as_default():\n"
        "    y = ops.add_v2(ops.placeholder(opgen.float32, name='x'), 1.0)\n"
        "assert isinstance(y, opgen.Output) and y.op.name == 'AddV2'\n"
        "assert isinstance(ops.add_v2(1.0, 2.0), opgen.Tensor)\n"
        "assert opgen.Session(g).run(y, {'x:0': np.float32(2)}) == 3.0\n")
    env = dict(os.environ, OPGEN_DISABLE_FAST_PATH="1")
    # (run from an empty folder: it would import a source checkout's opgen)
    subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, check=True, timeout=120)
