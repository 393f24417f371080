"""Resource variables on the GPU: a Variable made inside `opgen.device("/GPU:0")` keeps
its value in device memory, its handle on the host (as TensorFlow places them), and
AssignAdd/AssignSub/Read give the CPU's numbers, eagerly and in a session graph."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops

UPDATE_DTYPES = [np.float32, np.float64, np.int32, np.int64]


@pytest.mark.parametrize("dtype", UPDATE_DTYPES)
def test_eager_variable_on_the_gpu_matches_the_cpu(dtype):
    init = np.arange(12, dtype=dtype).reshape(3, 4)
    delta = (np.arange(12, dtype=dtype).reshape(3, 4) % 5).astype(dtype)
    with opgen.device("/GPU:0"):
        v = opgen.Variable(init)
        v.assign_add(delta)
        v.assign_sub(delta * 2)
        value = v.read_value()
        assert "GPU" in value.device
        assert "CPU" in v.handle.device
        assert bool(ops.var_is_initialized_op(v.handle).numpy())
    np.testing.assert_array_equal(value.numpy(), init + delta - delta * 2)
    np.testing.assert_array_equal(v.numpy(), init - delta)


def test_session_variable_on_the_gpu_keeps_its_value_across_runs():
    g = opgen.Graph()
    with g.as_default(), opgen.device("/GPU:0"):
        v = opgen.Variable(np.float32([1, 2, 3]), name="v")
        step = v.assign_add(np.float32([0.5, 0.5, 0.5]), read_value=False)
        train = g.create_op("NoOp", [], {}, name="train", control_inputs=[step])
    with opgen.Session(g) as sess:
        sess.run(v.initializer)
        for _ in range(4):
            sess.run(train)
        np.testing.assert_array_equal(sess.run(v.read_value()), np.float32([3, 4, 5]))
