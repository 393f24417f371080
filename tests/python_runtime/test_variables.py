"""opgen.Variable and the resource-variable ops, eagerly and in graphs run by sessions,
against numpy arithmetic and TensorFlow's semantics (what tf.Variable returns, which
errors its ops raise); compared with TensorFlow itself where it is installed."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.protos import resource_handle_pb2
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def variable_ops(runtime_lib):
    from opgen.runtime._opplan import registry
    try:
        registry.plan("VarHandleOp")
    except Exception:  # noqa: BLE001 - a runtime built before the variable ops
        pytest.skip("this runtime has no resource variable ops")


# ---- eager ----------------------------------------------------------------------------

def test_eager_variable_reads_assigns_and_updates_as_numpy_computes():
    v = opgen.Variable([1.0, 2.0, 3.0])
    assert v.dtype == opgen.float32 and v.shape == (3,) and v.name == "Variable:0"
    np.testing.assert_array_equal(v.numpy(), np.float32([1, 2, 3]))
    snapshot = v.read_value()
    assert v.assign_add([0.5, 0.5, 0.5]) is v  # TensorFlow returns the variable
    assert v.assign_sub(np.float32([1, 1, 1]), read_value=False) is None
    np.testing.assert_array_equal(v.numpy(), np.float32([0.5, 1.5, 2.5]))
    np.testing.assert_array_equal(snapshot.numpy(), np.float32([1, 2, 3]))  # a snapshot
    v.assign([7.0, 8.0, 9.0])
    np.testing.assert_array_equal(np.asarray(v), np.float32([7, 8, 9]))


def test_dtype_converts_python_values_and_names_the_variable():
    v = opgen.Variable(3, dtype=opgen.float64, name="w")
    assert v.dtype == opgen.float64 and v.shape == () and v.name == "w:0"
    assert v.numpy() == 3.0 and v.numpy().dtype == np.float64
    i = opgen.Variable(np.int64([1, 2]))
    i.assign_add([10, 20])
    np.testing.assert_array_equal(i.numpy(), np.int64([1, 2]) + np.int64([10, 20]))


def test_operators_and_op_inputs_use_the_current_value():
    v = opgen.Variable(np.float32([[1, 2], [3, 4]]))
    x = np.float32([[0.5, -1], [2, 1]])
    np.testing.assert_allclose((v * 2 + 1).numpy(), np.float32([[1, 2], [3, 4]]) * 2 + 1)
    np.testing.assert_allclose((x @ v).numpy(), x @ np.float32([[1, 2], [3, 4]]))
    np.testing.assert_allclose((-v).numpy(), -np.float32([[1, 2], [3, 4]]))
    np.testing.assert_allclose(ops.mat_mul(v, x).numpy(), np.float32([[1, 2], [3, 4]]) @ x)
    v.assign(x)
    np.testing.assert_allclose((v + v).numpy(), x + x)
    np.testing.assert_allclose(v[1].numpy(), x[1])


def test_handle_is_a_resource_tensor_the_generated_ops_take():
    v = opgen.Variable([1.0, 2.0], name="h")
    assert v.handle.dtype == opgen.dtypes.resource
    ops.assign_variable_op(v.handle, np.float32([5, 6]))
    ops.assign_add_variable_op(v.handle, np.float32([1, 1]))
    np.testing.assert_array_equal(ops.read_variable_op(v.handle, dtype=opgen.float32).numpy(),
                                  np.float32([6, 7]))
    assert bool(ops.var_is_initialized_op(v.handle).numpy())


def test_handle_holds_a_resource_handle_proto():
    v = opgen.Variable(np.zeros((2, 3), np.float32))
    raw = _tensor_bytes(v.handle)
    proto = resource_handle_pb2.ResourceHandleProto.FromString(raw)
    assert proto.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert proto.container == "Anonymous" and proto.name.isdigit()
    assert proto.maybe_type_name == "tensorflow::Var"
    (entry,) = proto.dtypes_and_shapes
    assert entry.dtype == 1 and [d.size for d in entry.shape.dim] == [2, 3]


def _tensor_bytes(t) -> bytes:
    """The bytes of an eager Tensor's TF_Tensor (a resource tensor has no numpy view)."""
    import ctypes
    from opgen.runtime import _lib
    lib = _lib.lib()
    return ctypes.string_at(lib.TF_TensorData(t._tensor), lib.TF_TensorByteSize(t._tensor))


def test_eager_variables_are_anonymous_and_independent():
    a = opgen.Variable([1.0], name="same")
    b = opgen.Variable([2.0], name="same")
    a.assign([10.0])
    assert b.numpy()[0] == 2.0 and a.numpy()[0] == 10.0


def test_raw_ops_share_a_variable_by_shared_name_in_one_context():
    h1 = ops.var_handle_op(dtype=opgen.float32, shape=[2], shared_name="shared_by_name")
    h2 = ops.var_handle_op(dtype=opgen.float32, shape=[2], shared_name="shared_by_name")
    assert not bool(ops.var_is_initialized_op(h2).numpy())
    ops.assign_variable_op(h1, np.float32([1, 2]))
    assert bool(ops.var_is_initialized_op(h2).numpy())
    np.testing.assert_array_equal(ops.read_variable_op(h2, dtype=opgen.float32).numpy(),
                                  np.float32([1, 2]))
    ops.destroy_resource_op(h1)
    assert not bool(ops.var_is_initialized_op(h2).numpy())
    with pytest.raises(errors.NotFoundError):
        ops.destroy_resource_op(h1, ignore_lookup_error=False)


def test_eager_errors_are_tensorflows():
    h = ops.var_handle_op(dtype=opgen.float32, shape=[2], shared_name="errors_var")
    with pytest.raises(errors.FailedPreconditionError, match="Could not find variable errors_var"):
        ops.read_variable_op(h, dtype=opgen.float32)
    with pytest.raises(errors.NotFoundError, match="errors_var"):
        ops.assign_add_variable_op(h, np.float32([1, 1]))
    ops.assign_variable_op(h, np.float32([1, 2]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"wrong dtype\. Expected float got int32.*errors_var"):
        ops.assign_variable_op(h, np.int32([1, 2]))
    with pytest.raises(errors.InvalidArgumentError, match=r"wrong dtype.*errors_var"):
        ops.read_variable_op(h, dtype=opgen.int32)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"wrong shape. Expected \[2\] got \[3\]"):
        ops.assign_variable_op(h, np.float32([1, 2, 3]), validate_shape=True)
    ops.assign_variable_op(h, np.float32([1, 2, 3]))  # validate_shape=False: TF allows it
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Cannot update variable with shape \[3\] using a Tensor with "
                             r"shape \[2\], shapes must be equal"):
        ops.assign_sub_variable_op(h, np.float32([1, 2]))
    np.testing.assert_array_equal(ops.read_variable_op(h, dtype=opgen.float32).numpy(),
                                  np.float32([1, 2, 3]))
    ops.destroy_resource_op(h)


def test_variable_assign_checks_dtype_and_shape_naming_it():
    v = opgen.Variable([1.0, 2.0], name="checked")
    with pytest.raises(ValueError, match=r"checked:0.*shape mismatch"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(opgen.errors.InvalidArgumentError, match="checked:0"):
        v.assign(np.int32([1, 2]))
    np.testing.assert_array_equal(v.numpy(), np.float32([1, 2]))


def test_a_deleted_eager_variable_frees_its_state():
    v = opgen.Variable([1.0])
    handle = v.handle
    del v
    gc.collect()
    assert not bool(ops.var_is_initialized_op(handle).numpy())


# ---- graphs and sessions ----------------------------------------------------------------

def test_graph_variable_builds_tensorflows_nodes():
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable([1.0, 2.0], name="w")
    names = {op.name: op.type for op in g.get_operations()}
    assert names == {
        "w/Initializer/initial_value": "Const", "w": "VarHandleOp",
        "w/IsInitialized/VarIsInitializedOp": "VarIsInitializedOp",
        "w/Assign": "AssignVariableOp", "w/Read/ReadVariableOp": "ReadVariableOp"}
    assert v.name == "w:0" and v.initializer.name == "w/Assign" and v.graph is g
    assert v.handle.op.get_attr("shared_name") in (b"w", "w")
    with pytest.raises(NotImplementedError):
        v.numpy()


def test_graph_shapes_handle_and_flag_scalar_read_unknown():
    """As TensorFlow's shape functions without handle data: VarHandleOp and
    VarIsInitializedOp give scalars; ReadVariableOp's shape is the variable's, unknown
    while the graph is built (Variable.shape keeps it)."""
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable(np.zeros((2, 3), np.float32), name="s")
    assert v.handle.shape == () and v.is_initialized().shape == ()
    assert v.value().shape is None and v.shape == (2, 3)


def test_session_keeps_variables_across_runs_and_trains_with_a_noop():
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(np.float32([[1, 2], [3, 4]]), name="w")
        b = opgen.Variable(np.float32([0.5, -0.5]), name="b")
        x = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [None, 2]},
                        name="x").outputs[0]
        y = x @ w + b
        step = w.assign_sub(np.float32([[0.1, 0.1], [0.1, 0.1]]), read_value=False)
        with opgen.control_dependencies([step]):
            train = g.create_op("NoOp", [], {}, name="train")
        init = opgen.global_variables_initializer()
    assert init.type == "NoOp"
    feed = np.float32([[1, 1], [2, 0]])
    with opgen.Session(g) as sess:
        with pytest.raises(errors.FailedPreconditionError, match="Could not find variable w"):
            sess.run(y, {x: feed})
        sess.run(init)
        np.testing.assert_allclose(sess.run(y, {x: feed}),
                                   feed @ np.float32([[1, 2], [3, 4]]) + [0.5, -0.5])
        for _ in range(3):
            sess.run(train)
        w_now = np.float32([[1, 2], [3, 4]]) - 3 * np.float32(0.1)
        np.testing.assert_allclose(sess.run(w.read_value()), w_now, rtol=1e-6)
        np.testing.assert_allclose(sess.run(y, {x: feed}), feed @ w_now + [0.5, -0.5], rtol=1e-6)
        assert bool(sess.run(w.is_initialized()))
    with opgen.Session(g) as fresh:  # a new session starts without values
        assert not bool(fresh.run(w.is_initialized()))


def test_graph_assign_returns_the_new_value_and_read_value_false_the_op():
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable([1.0, 2.0], name="v")
        added = v.assign_add([1.0, 1.0])
        op = v.assign([0.0, 0.0], read_value=False)
    assert op.type == "AssignVariableOp"
    with opgen.Session(g) as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(added), np.float32([2, 3]))
        np.testing.assert_array_equal(sess.run(added), np.float32([3, 4]))
        sess.run(op)
        np.testing.assert_array_equal(sess.run(v.value()), np.float32([0, 0]))


def test_graph_errors_wrong_dtype_and_shape():
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable([1.0, 2.0], name="v")
        with pytest.raises(ValueError, match="shape mismatch"):
            v.assign([1.0, 2.0, 3.0])
        h = ops.var_handle_op(dtype=opgen.float32, shape=[2], shared_name="v")
        wrong = ops.assign_variable_op(h, np.int32([1, 2]))
    with opgen.Session(g) as sess:
        sess.run(v.initializer)
        with pytest.raises(errors.InvalidArgumentError, match=r"Expected float got int32.*'v'"):
            sess.run(wrong)


# ---- TensorFlow, where installed -----------------------------------------------------------

def test_same_values_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    init = np.float32([[1.5, -2], [0.25, 4]])
    delta = np.float32([[0.5, 0.5], [-1, 2]])
    tv, ov = tf.Variable(init), opgen.Variable(init)
    for _ in range(3):
        tv.assign_add(delta)
        ov.assign_add(delta)
    tv.assign_sub(delta * 2)
    ov.assign_sub(delta * 2)
    np.testing.assert_array_equal(ov.numpy(), tv.numpy())
    np.testing.assert_array_equal((ov * 3 - 1).numpy(), (tv * 3 - 1).numpy())
