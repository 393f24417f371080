"""v1 control flow placed on the GPU: Switch/Merge and a while loop whose nodes all ask
for GPU:0 give the CPU's results (int32 counters, predicates and value_index stay in host
memory, float loop variables on the device)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np


# The CPU tests' graphs (tests/python_runtime/test_control_flow.py), loaded by path: a
# module of that name may already be imported from elsewhere.
_CPU_TESTS = Path(__file__).resolve().parents[1] / "python_runtime"
sys.path.insert(0, str(_CPU_TESTS))
_spec = importlib.util.spec_from_file_location("cpu_control_flow_tests", _CPU_TESTS / "test_control_flow.py")
cpu_tests = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cpu_tests)
run = cpu_tests.run


def on_gpu(builder):
    for node in builder.graph_def.node:
        node.device = "/device:GPU:0"
    return builder


def test_cond_on_the_gpu_matches_the_cpu():
    x = np.array([1.5, -2.0, 4.0], np.float32)
    for pred in (True, False):
        got = run(on_gpu(cpu_tests.cond_graph()), ["merge:0", "merge:1"], {"x:0": x, "pred:0": pred})
        want = run(cpu_tests.cond_graph(), ["merge:0", "merge:1"], {"x:0": x, "pred:0": pred})
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]


def test_a_while_loop_on_the_gpu_matches_the_cpu():
    feeds = {"n:0": np.int32(9), "acc0:0": np.float32(0.5), "k:0": np.float32(-0.25)}
    got = run(on_gpu(cpu_tests.counting_loop()), ["i_final:0", "acc_final:0"], feeds)
    want = run(cpu_tests.counting_loop(), ["i_final:0", "acc_final:0"], feeds)
    assert got[0] == want[0] == 9
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert got[1] == cpu_tests.counting_reference(9, 0.5, -0.25)[1]


def test_nested_loops_on_the_gpu():
    got = run(on_gpu(cpu_tests.nested_loops()), "total:0", {"n:0": np.int32(3), "m:0": np.int32(4)})
    assert got == sum(i * 4 + j + 1 for i in range(3) for j in range(4))
