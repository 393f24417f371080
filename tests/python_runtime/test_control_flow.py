"""TensorFlow's v1 control flow in opgen's session executor: Switch/Merge conditionals,
while loops (Enter, Merge, LoopCond, Switch, NextIteration, Exit) with frames and
iterations, nested loops, loop invariants, dead tensors, the iteration limit, and the
errors malformed graphs give. Graphs are GraphDefs written node by node
(graph_def_builder.py); expected values are computed in numpy / Python."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from graph_def_builder import BOOL, F32, I32, GraphDefBuilder, run
from graph_def_builder import dtype_attr as _t
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


# ---- conditionals ----------------------------------------------------------------------

def cond_graph():
    """y = pred ? x * 3 : x + 10, through Switch and Merge."""
    b = GraphDefBuilder()
    x, pred = b.placeholder("x", F32), b.placeholder("pred", BOOL)
    b.node("switch", "Switch", [x, pred], T=_t(F32))
    b.const("three", np.float32(3))
    b.const("ten", np.float32(10))
    b.binary("times", "Mul", "switch:1", "three", F32)
    b.binary("plus", "AddV2", "switch:0", "ten", F32)
    b.node("merge", "Merge", ["plus", "times"], T=_t(F32), N=2)
    return b




@pytest.mark.parametrize("pred", [True, False])
def test_switch_and_merge_take_one_branch(pred):
    x = np.array([1.5, -2.0, 4.0], np.float32)
    y, index = run(cond_graph(), ["merge:0", "merge:1"], {"x:0": x, "pred:0": pred})
    np.testing.assert_array_equal(y, x * 3 if pred else x + 10)
    assert index.dtype == np.int32 and index == (1 if pred else 0)


def test_a_dead_branch_is_not_computed_and_its_fetch_is_an_error():
    b = cond_graph()
    b.unary("after_times", "Neg", "times", F32)  # dead whenever times is
    with pytest.raises(errors.InvalidArgumentError, match=r"'after_times:0' is dead"):
        run(b, ["after_times:0"], {"x:0": np.float32(1), "pred:0": False})
    assert run(b, "after_times:0", {"x:0": np.float32(2), "pred:0": True}) == -6


def test_deadness_flows_through_control_inputs_and_control_trigger_stops_it():
    b = cond_graph()
    b.const("one", np.float32(1))
    # a control input from the dead branch makes a node dead...
    b.node("gated", "Identity", ["one", "^times"], T=_t(F32))
    # ...but a ControlTrigger is live whatever its inputs were
    b.node("trigger", "ControlTrigger", ["^times", "^plus"])
    b.node("after_trigger", "Identity", ["one", "^trigger"], T=_t(F32))
    feeds = {"x:0": np.float32(1), "pred:0": False}
    with pytest.raises(errors.InvalidArgumentError, match=r"'gated:0' is dead"):
        run(b, "gated:0", feeds)
    assert run(b, "after_trigger:0", feeds) == 1
    assert run(b, "gated:0", {"x:0": np.float32(1), "pred:0": True}) == 1


def test_a_merge_whose_inputs_are_all_dead_is_dead():
    b = GraphDefBuilder()
    x, pred = b.placeholder("x", F32), b.placeholder("pred", BOOL)
    b.node("outer", "Switch", [x, pred], T=_t(F32))
    b.node("inner", "Switch", ["outer:1", pred], T=_t(F32))
    b.node("merge", "Merge", ["inner:0", "inner:1"], T=_t(F32), N=2)  # both under outer:1
    b.node("final", "Merge", ["merge", "outer:0"], T=_t(F32), N=2)
    feeds = {"x:0": np.float32(5), "pred:0": False}
    with pytest.raises(errors.InvalidArgumentError, match=r"'merge:0' is dead"):
        run(b, "merge:0", feeds)
    assert run(b, "final:0", feeds) == 5  # the outer Merge still takes its live input
    assert run(b, ["merge:0", "final:1"], {"x:0": np.float32(5), "pred:0": True}) == [5, 0]


def test_a_cond_inside_a_graph_without_loops_can_be_run_many_times():
    graph = cond_graph().import_into()
    with opgen.Session(graph=graph) as session:
        for i in range(20):
            pred = i % 3 == 0
            got = session.run("merge:0", {"x:0": np.float32(i), "pred:0": pred})
            assert got == (i * 3 if pred else i + 10)


# ---- while loops -----------------------------------------------------------------------

def counting_loop(parallel_iterations=10):
    """i, acc = 0, acc0; while i < n: i += 1; acc = acc * 2 + k  (n, k invariants)."""
    b = GraphDefBuilder()
    n, acc0, k = b.placeholder("n", I32), b.placeholder("acc0", F32), b.placeholder("k", F32)
    b.const("zero", np.int32(0))
    b.const("one", np.int32(1))
    b.const("two", np.float32(2))

    def cond(b, v, invs):
        return b.binary("loop/less", "Less", v[0], invs[0], I32)

    def body(b, v, invs):
        i = b.binary("loop/i_plus_1", "AddV2", v[0], invs[1], I32)
        doubled = b.binary("loop/doubled", "Mul", v[1], invs[2], F32)
        return [i, b.binary("loop/acc", "AddV2", doubled, invs[3], F32)]

    exits = b.while_loop("loop", [("zero", I32), (acc0, F32)], cond, body,
                         invariants=[(n, I32), ("one", I32), ("two", F32), (k, F32)],
                         parallel_iterations=parallel_iterations)
    b.unary("i_final", "Identity", exits[0], I32)
    b.unary("acc_final", "Identity", exits[1], F32)
    return b


def counting_reference(n, acc0, k):
    acc = np.float32(acc0)
    for _ in range(n):
        acc = np.float32(acc * 2 + k)
    return max(n, 0), acc


@pytest.mark.parametrize("n", [0, 1, 5, 23])
@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_a_counting_loop_runs_n_iterations(n, parallel_iterations):
    i, acc = run(counting_loop(parallel_iterations), ["i_final:0", "acc_final:0"],
                 {"n:0": np.int32(n), "acc0:0": np.float32(0.5), "k:0": np.float32(-0.25)})
    want_i, want_acc = counting_reference(n, 0.5, -0.25)
    assert i == want_i and i.dtype == np.int32
    np.testing.assert_allclose(acc, want_acc, rtol=1e-6)


def test_a_loop_runs_again_with_other_feeds_in_one_session():
    graph = counting_loop().import_into()
    with opgen.Session(graph=graph) as session:
        for n in [3, 0, 7, 3]:
            i, acc = session.run(["i_final:0", "acc_final:0"],
                                 {"n:0": np.int32(n), "acc0:0": np.float32(1), "k:0": np.float32(1)})
            assert (i, acc) == counting_reference(n, 1, 1)


def test_fetching_inside_the_loop_is_an_error_and_after_it_is_not():
    graph = counting_loop().import_into()
    feeds = {"n:0": np.int32(3), "acc0:0": np.float32(1), "k:0": np.float32(0)}
    with opgen.Session(graph=graph) as session:
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"'loop/doubled:0'.*inside the while loop frame 'loop'"):
            session.run("loop/doubled:0", feeds)
        assert session.run("loop/exit_1:0", feeds) == 8
        assert session.run("acc_final:0", feeds) == 8


def test_the_loop_graph_survives_export_and_reimport():
    first = counting_loop().import_into()
    exported = first.as_graph_def()
    second = opgen.Graph()
    with second.as_default():
        opgen.import_graph_def(exported, name="")
    with opgen.Session(graph=second) as session:
        got = session.run("acc_final:0", {"n:0": np.int32(4), "acc0:0": np.float32(1),
                                          "k:0": np.float32(1)})
    assert got == counting_reference(4, 1, 1)[1]


def nested_loops():
    """total = 0; for i in range(n): for j in range(m): total += i * m + j + 1."""
    b = GraphDefBuilder()
    n, m = b.placeholder("n", I32), b.placeholder("m", I32)
    b.const("zero", np.int32(0))
    b.const("one", np.int32(1))

    def outer_cond(b, v, invs):
        return b.binary("outer/less", "Less", v[0], invs[0], I32)

    def outer_body(b, v, invs):
        i, total = v
        _, m_, one, zero = invs
        base = b.binary("outer/base", "Mul", i, m_, I32)

        def inner_cond(b, w, inner_invs):
            return b.binary("inner/less", "Less", w[0], inner_invs[0], I32)

        def inner_body(b, w, inner_invs):
            j, t = w
            _, one_in, base_in = inner_invs
            j1 = b.binary("inner/j1", "AddV2", j, one_in, I32)
            step = b.binary("inner/step", "AddV2", base_in, j1, I32)
            return [j1, b.binary("inner/total", "AddV2", t, step, I32)]

        # a new inner frame per outer iteration, entered from the outer frame
        inner = b.while_loop("inner", [(zero, I32), (total, I32)], inner_cond, inner_body,
                             invariants=[(m_, I32), (one, I32), (base, I32)])
        return [b.binary("outer/i1", "AddV2", i, one, I32), inner[1]]

    exits = b.while_loop("outer", [("zero", I32), ("zero", I32)], outer_cond, outer_body,
                         invariants=[(n, I32), (m, I32), ("one", I32), ("zero", I32)])
    b.unary("total", "Identity", exits[1], I32)
    return b


@pytest.mark.parametrize("n, m", [(3, 4), (1, 1), (0, 5), (4, 0), (6, 2)])
def test_nested_loops_keep_one_frame_per_outer_iteration(n, m):
    want = sum(i * m + j + 1 for i in range(n) for j in range(m))
    assert run(nested_loops(), "total:0", {"n:0": np.int32(n), "m:0": np.int32(m)}) == want


def test_a_loop_on_an_untaken_branch_is_dead_and_the_taken_one_runs():
    """A while loop whose Enter is dead (the loop sits under a Switch's untaken side)
    finishes at once with dead Exits, and the Merge after it takes the other side."""
    b = GraphDefBuilder()
    x, pred = b.placeholder("x", I32), b.placeholder("pred", BOOL)
    b.node("switch", "Switch", [x, pred], T=_t(I32))
    b.const("one", np.int32(1))
    b.const("ten", np.int32(10))

    def cond(b, v, invs):
        return b.binary("loop/less", "Less", v[0], invs[0], I32)

    def body(b, v, invs):
        return [b.binary("loop/add", "AddV2", v[0], invs[1], I32)]

    exits = b.while_loop("loop", [("switch:1", I32)], cond, body,
                         invariants=[("ten", I32), ("one", I32)])
    b.node("merge", "Merge", [exits[0], "switch:0"], T=_t(I32), N=2)
    assert run(b, "merge:0", {"x:0": np.int32(3), "pred:0": True}) == 10  # counted up to 10
    assert run(b, ["merge:0", "merge:1"], {"x:0": np.int32(3), "pred:0": False}) == [3, 1]


# ---- the iteration limit ---------------------------------------------------------------

def endless_loop():
    b = GraphDefBuilder()
    b.const("zero", np.int32(0))
    b.const("one", np.int32(1))
    b.const("true", np.bool_(True))

    def cond(b, v, invs):
        return b.unary("spin/pred", "Identity", invs[0], BOOL)

    def body(b, v, invs):
        return [b.binary("spin/add", "AddV2", v[0], invs[1], I32)]

    exits = b.while_loop("spin", [("zero", I32)], cond, body,
                         invariants=[("true", BOOL), ("one", I32)])
    b.unary("out", "Identity", exits[0], I32)
    return b


def test_a_runaway_loop_stops_at_the_iteration_limit(monkeypatch):
    monkeypatch.setenv("OPGEN_MAX_LOOP_ITERATIONS", "1000")
    with pytest.raises(errors.ResourceExhaustedError,
                       match=r"frame 'spin' ran 1000 iterations.*OPGEN_MAX_LOOP_ITERATIONS"):
        run(endless_loop(), "out:0")


def test_the_limit_leaves_shorter_loops_alone(monkeypatch):
    monkeypatch.setenv("OPGEN_MAX_LOOP_ITERATIONS", "50")
    feeds = {"n:0": np.int32(48), "acc0:0": np.float32(0), "k:0": np.float32(0)}
    assert run(counting_loop(), "i_final:0", feeds) == 48
    feeds["n:0"] = np.int32(60)
    with pytest.raises(errors.ResourceExhaustedError, match="frame 'loop' ran 50 iterations"):
        run(counting_loop(), "i_final:0", feeds)


# ---- malformed graphs ------------------------------------------------------------------

def test_a_merge_fed_only_by_its_back_edge_is_refused_naming_it():
    b = GraphDefBuilder()
    b.const("x", np.float32(1))
    b.node("merge", "Merge", ["next", "next"], T=_t(F32), N=2)
    b.unary("body", "Identity", "merge", F32)
    b.unary("next", "NextIteration", "body", F32)
    with pytest.raises(errors.InvalidArgumentError, match=r"Merge node 'merge'.*only NextIteration"):
        b.import_into()


def test_an_exit_outside_any_loop_is_an_error_naming_it():
    b = GraphDefBuilder()
    b.const("x", np.float32(1))
    b.unary("stray_exit", "Exit", "x", F32)
    with pytest.raises(errors.InvalidArgumentError, match=r"Exit node 'stray_exit' is not inside"):
        run(b, "stray_exit:0")


def test_a_next_iteration_that_feeds_no_merge_is_an_error_naming_it():
    b = counting_loop()
    b.unary("loop/stray_next", "NextIteration", "loop/doubled", F32)
    b.unary("loop/after_stray", "Identity", "loop/stray_next", F32)
    feeds = {"n:0": np.int32(2), "acc0:0": np.float32(1), "k:0": np.float32(1)}
    graph = b.import_into()
    with opgen.Session(graph=graph) as session:
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"NextIteration node 'loop/stray_next' feeds 'loop/after_stray'"):
            session.run(["acc_final:0", "loop/after_stray"], feeds)
        # a run that does not need the stray node is unaffected
        assert session.run("acc_final:0", feeds) == 7


def test_inputs_from_two_frames_are_an_error_naming_the_node():
    b = counting_loop()
    b.binary("loop/mixes_frames", "AddV2", "loop/doubled", "two", F32)  # "two": outside
    feeds = {"n:0": np.int32(1), "acc0:0": np.float32(1), "k:0": np.float32(1)}
    graph = b.import_into()
    with opgen.Session(graph=graph) as session:
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"'loop/mixes_frames' has inputs from different frames"):
            session.run(["acc_final:0", "loop/mixes_frames"], feeds)
