"""TensorFlow 1's TensorArray ops (TensorArrayV3 and its Write/Read/Gather/Scatter/Concat/
Split/Size/Close): values against numpy, eager, for every registered dtype; TensorFlow's
semantics (dynamic_size, clear_after_read, element_shape, identical_element_shapes) and
its errors and messages; and graphs TensorFlow 2.21 writes (a tf.compat.v1.while_loop over
TensorArrays, a frozen dynamic_rnn LSTM, a tf.function that grows a tf.TensorArray, the
same TensorArray program as a tf.function, made of TensorLists),
imported into opgen and compared with TensorFlow's outputs (made at test time by a child
process, $OPGEN_TF_PYTHON)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from tf_reference import run_tf

import opgen
from opgen import ops
from opgen.runtime import errors

DTYPES = [opgen.float32, opgen.float64, opgen.float16, opgen.int32, opgen.int64, opgen.int8,
          opgen.uint8, opgen.bool]


def new_array(size, dtype=opgen.float32, **attrs):
    return ops.tensor_array_v3(size=np.int32(size), dtype=dtype, **attrs)


def write(h, f, i, value):
    return ops.tensor_array_write_v3(h, np.int32(i), value, f)


def values_of(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    np_type = dtype.as_numpy_dtype
    if np_type == np.bool_:
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 10).astype(np_type)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_write_read_gather_concat_match_numpy(dtype):
    x = values_of(dtype, (4, 2, 3))
    h, f = new_array(4, dtype, clear_after_read=False)
    for i in (2, 0, 3, 1):
        f = write(h, f, i, x[i])
    np.testing.assert_array_equal(ops.tensor_array_read_v3(h, np.int32(2), f, dtype=dtype).numpy(), x[2])
    gathered = ops.tensor_array_gather_v3(h, np.array([3, 1, 1], np.int32), f, dtype=dtype)
    np.testing.assert_array_equal(gathered.numpy(), x[[3, 1, 1]])
    value, lengths = ops.tensor_array_concat_v3(h, f, dtype=dtype)
    np.testing.assert_array_equal(value.numpy(), x.reshape(8, 3))
    np.testing.assert_array_equal(lengths.numpy(), [2, 2, 2, 2])
    assert int(ops.tensor_array_size_v3(h, f).numpy()) == 4


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
def test_scatter_and_split_match_numpy(dtype):
    x = values_of(dtype, (6, 2), seed=1)
    h, f = new_array(3, dtype, clear_after_read=False)
    f = ops.tensor_array_scatter_v3(h, np.array([2, 0, 1], np.int32), x[:3], f)
    np.testing.assert_array_equal(
        ops.tensor_array_gather_v3(h, np.array([0, 1, 2], np.int32), f, dtype=dtype).numpy(),
        x[[1, 2, 0]])
    h, f = new_array(3, dtype, clear_after_read=False)
    f = ops.tensor_array_split_v3(h, x, np.array([1, 0, 5], np.int64), f)
    for i, (lo, hi) in enumerate([(0, 1), (1, 1), (1, 6)]):
        np.testing.assert_array_equal(
            ops.tensor_array_read_v3(h, np.int32(i), f, dtype=dtype).numpy(), x[lo:hi])
    value, lengths = ops.tensor_array_concat_v3(h, f, dtype=dtype)
    np.testing.assert_array_equal(value.numpy(), x)
    np.testing.assert_array_equal(lengths.numpy(), [1, 0, 5])


def test_dynamic_size_grows_on_write_and_scatter():
    h, f = new_array(1, dynamic_size=True)
    f = write(h, f, 3, np.float32([1.0, 3.0]))
    assert int(ops.tensor_array_size_v3(h, f).numpy()) == 4
    f = ops.tensor_array_scatter_v3(h, np.array([6], np.int32), np.float32([[5.0, 6.0]]), f)
    assert int(ops.tensor_array_size_v3(h, f).numpy()) == 7


def test_unwritten_elements_read_as_zeros_of_a_known_element_shape():
    h, f = new_array(3, element_shape=[2])
    f = write(h, f, 1, np.float32([1.0, 3.0]))
    np.testing.assert_array_equal(
        ops.tensor_array_gather_v3(h, np.array([0, 1], np.int32), f, dtype=opgen.float32).numpy(),
        [[0, 0], [1, 3]])
    h, f = new_array(3, identical_element_shapes=True)
    f = write(h, f, 1, np.float32([1.0, 3.0]))
    np.testing.assert_array_equal(
        ops.tensor_array_read_v3(h, np.int32(2), f, dtype=opgen.float32).numpy(), [0, 0])


def test_empty_arrays_stack_and_concat_to_the_attr_shape():
    h, f = new_array(0)
    out = ops.tensor_array_gather_v3(h, np.zeros([0], np.int32), f, dtype=opgen.float32,
                                     element_shape=[2])
    assert out.numpy().shape == (0, 2)
    value, lengths = ops.tensor_array_concat_v3(h, f, dtype=opgen.float32,
                                                element_shape_except0=[3])
    assert value.numpy().shape == (0, 3) and lengths.numpy().shape == (0,)
    with pytest.raises(errors.UnimplementedError, match="is not fully defined"):
        ops.tensor_array_gather_v3(h, np.zeros([0], np.int32), f, dtype=opgen.float32)


def test_each_run_makes_a_new_array():
    h1, f1 = new_array(1)
    h2, f2 = new_array(1)
    write(h1, f1, 0, np.float32(1.0))
    write(h2, f2, 0, np.float32(2.0))  # not "already written"
    assert float(ops.tensor_array_read_v3(h2, np.int32(0), f2, dtype=opgen.float32).numpy()) == 2.0


# (what to do with a fresh 2-element float array, TensorFlow's message)
ERRORS = {
    "unwritten": (lambda h, f: ops.tensor_array_read_v3(h, np.int32(0), f, dtype=opgen.float32),
                  "Could not read from TensorArray index 0.  Furthermore, the element shape is "
                  "not fully defined: <unknown>."),
    "written twice": (lambda h, f: write(h, write(h, f, 0, np.float32([1])), 0, np.float32([1])),
                      "Could not write to TensorArray index 0 because it has already been "
                      "written to."),
    "write past the end": (lambda h, f: write(h, f, 5, np.float32([1])),
                           "Tried to write to index 5 but array is not resizeable and size is: 2"),
    "negative write": (lambda h, f: write(h, f, -1, np.float32([1])),
                       "Tried to write to index -1 but array is not resizeable and size is: 2"),
    "read twice": (lambda h, f: [ops.tensor_array_read_v3(h, np.int32(0), flow, dtype=opgen.float32)
                                 for flow in [write(h, f, 0, np.float32(1))] * 2],
                   "Could not read index 0 twice because it was cleared after a previous read "
                   "(perhaps try setting clear_after_read = false?)."),
    "write dtype": (lambda h, f: write(h, f, 0, np.int32([1])),
                    "TensorArray dtype is float but Op is trying to write dtype int32."),
    "read dtype": (lambda h, f: ops.tensor_array_read_v3(h, np.int32(0), write(h, f, 0, np.float32(1)),
                                                         dtype=opgen.int32),
                   "TensorArray dtype is float but Op requested dtype int32."),
    "read past the end": (lambda h, f: ops.tensor_array_read_v3(h, np.int32(3), f, dtype=opgen.float32),
                          "Tried to read from index 3 but array size is: 2"),
    "inconsistent gather": (
        lambda h, f: ops.tensor_array_gather_v3(
            h, np.array([0, 1], np.int32),
            write(h, write(h, f, 0, np.float32([1])), 1, np.float32([1, 2])), dtype=opgen.float32),
        "TensorArray has inconsistent shapes.  Index 0 has shape: [1] but index 1 has shape: [2]"),
    "concat of scalars": (
        lambda h, f: ops.tensor_array_concat_v3(
            h, write(h, write(h, f, 0, np.float32(1)), 1, np.float32(2)), dtype=opgen.float32),
        "Concat saw a scalar shape at index 0 but requires at least vectors.  Did you mean to "
        "call pack?"),
    "split lengths": (
        lambda h, f: ops.tensor_array_split_v3(h, np.float32([1, 2, 3]), np.array([1, 1], np.int64), f),
        "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2 and "
        "value's shape is: [3]"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_carry_tensorflows_messages(case):
    fn, message = ERRORS[case]
    h, f = new_array(2)
    with pytest.raises(errors.InvalidArgumentError) as info:
        fn(h, f)
    assert message in str(info.value)


def test_identical_element_shapes_refuse_another_shape():
    h, f = new_array(2, identical_element_shapes=True)
    f = write(h, f, 0, np.float32([1]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"the value shape is \[2\] which is incompatible with the "
                             r"TensorArray's inferred element shape: \[1\]"):
        write(h, f, 1, np.float32([1, 2]))


def test_a_closed_array_is_gone():
    h, f = new_array(2)
    ops.tensor_array_close_v3(h)
    with pytest.raises(errors.OpError):
        ops.tensor_array_size_v3(h, f)


def test_ops_in_a_graph_session_run_again_with_fresh_arrays():
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[3], name="x")
        h, f = new_array(2)
        f = write(h, f, 0, x)
        f = write(h, f, 1, x * 2.0)
        out = ops.tensor_array_gather_v3(h, np.array([1, 0], np.int32), f, dtype=opgen.float32)
    with opgen.Session(graph=graph) as session:
        for k in range(3):  # a second run must not find index 0 written already
            value = np.float32([k, 1, 2])
            np.testing.assert_array_equal(session.run(out, {x: value}), [value * 2, value])


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs Linux's /proc")
def test_a_session_run_frees_the_arrays_it_made():
    """TF1 graphs never close their arrays: each run's go with the run (TensorFlow's
    per-step container), so a serving loop does not grow. Here every run leaves a 16 MB
    element unread in its array; 30 runs kept would hold 480 MB."""
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[1 << 22], name="x")
        h, f = new_array(2, clear_after_read=False)
        f = write(h, f, 0, x + 1.0)  # a new 16 MB tensor, held by the array
        size = ops.tensor_array_size_v3(h, f)
    value = np.zeros(1 << 22, np.float32)
    with opgen.Session(graph=graph) as session:
        for _ in range(3):
            session.run(size, {x: value})
        before = _resident_bytes()
        for _ in range(30):
            assert int(session.run(size, {x: value})) == 2
        grown = _resident_bytes() - before
    assert grown < 8 * (1 << 24), f"{grown / 2**20:.0f} MB more after 30 runs"


# ---- graphs TensorFlow writes -----------------------------------------------------------

FIXTURE_SCRIPT = Path(__file__).with_name("tensor_array_tf_fixture.py")


@pytest.fixture(scope="module")
def tf_graphs(tmp_path_factory):
    out = tmp_path_factory.mktemp("tensor_array") / "graphs.npz"
    run_tf([FIXTURE_SCRIPT, out], cwd=out.parent)
    return np.load(out)


def run_graph(data, name, optimize):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(data[f"{name}_graph"].tobytes(), name="")
    feeds = {str(n): data[f"{name}_in_{k}"] for k, n in enumerate(data[f"{name}_feeds"])}
    fetches = [str(n) for n in data[f"{name}_fetches"]]
    with opgen.Session(graph=graph, options=opgen.SessionOptions(optimize=optimize)) as session:
        got = session.run(fetches, feeds)
    return got, [data[f"{name}_out_{k}"] for k in range(len(fetches))]


@pytest.mark.parametrize("optimize", [False, True])
@pytest.mark.parametrize("name", ["loop", "lstm", "grow", "loop_v2", "loop_grad", "lstm_grad"])
def test_tensorflow_graphs_give_tensorflows_outputs(tf_graphs, name, optimize):
    got, want = run_graph(tf_graphs, name, optimize)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_shape_functions_in_a_graph():
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[3, 2], name="x")
        h, f = new_array(3)
        f = ops.tensor_array_scatter_v3(h, np.int32([0, 1, 2]), x, f)
        read = ops.tensor_array_read_v3(h, np.int32(0), f, dtype=opgen.float32)
        gathered = ops.tensor_array_gather_v3(h, np.int32([0, 2]), f, dtype=opgen.float32,
                                              element_shape=[2])
        unknown = ops.tensor_array_gather_v3(h, np.int32([0, 2]), f, dtype=opgen.float32)
        value, lengths = ops.tensor_array_concat_v3(h, f, dtype=opgen.float32,
                                                    element_shape_except0=[5])
        size = ops.tensor_array_size_v3(h, f)
    # As TensorFlow's: the handle has its legacy 2-vector shape.
    assert tuple(h.shape) == (2,) and tuple(f.shape) == () and tuple(size.shape) == ()
    assert read.shape is None  # the element's shape is the array's, known at run time
    assert tuple(gathered.shape) == (2, 2)
    assert unknown.shape is None
    assert tuple(value.shape) == (None, 5) and tuple(lengths.shape) == (None,)


# ---- gradient arrays (TensorArrayGradV3) and stacks: what v1 loop gradients use --------

def read(h, f, i, dtype=opgen.float32):
    return ops.tensor_array_read_v3(h, np.int32(i), f, dtype=dtype).numpy()


def test_a_gradient_array_sums_writes_and_reads_zeros_of_the_forward_shapes():
    h, f = new_array(3, clear_after_read=False)
    f = write(h, f, 0, np.float32([1, 2]))
    f = write(h, f, 2, np.float32([[1, 2, 3]]))  # elements of other shapes: infer_shape=False
    g, gf = ops.tensor_array_grad_v3(h, f, source="gradients")
    gf = write(g, gf, 0, np.float32([1, 1]))
    gf = write(g, gf, 0, np.float32([2, 3]))
    same, _ = ops.tensor_array_grad_v3(h, f, source="gradients")  # one array per source
    gf = write(same, gf, 0, np.float32([10, 10]))
    np.testing.assert_array_equal(read(g, gf, 0), [13, 14])
    np.testing.assert_array_equal(read(g, gf, 2), np.zeros((1, 3), np.float32))
    assert int(ops.tensor_array_size_v3(g, gf).numpy()) == 3
    # Element 1 was never written forward: no shape to make zeros of.
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"@gradients: Could not read from TensorArray index 1\.  Furthermore, "
                             r"the element shape is not fully defined: <unknown>"):
        read(g, gf, 1)
    # Another source, another array; gradient arrays give their elements away when read.
    other, of = ops.tensor_array_grad_v3(h, f, source="gradients_1")
    np.testing.assert_array_equal(read(other, of, 0), [0, 0])
    with pytest.raises(errors.InvalidArgumentError, match="twice because it was cleared"):
        read(other, of, 0)


def test_gradient_array_scatter_sums_repeated_indices_and_gather_reads_zeros():
    h, f = new_array(3, element_shape=[2])
    f = ops.tensor_array_scatter_v3(h, np.int32([0, 1, 2]), np.float32(np.arange(6).reshape(3, 2)), f)
    g, gf = ops.tensor_array_grad_v3(h, f, source="gradients")
    gf = ops.tensor_array_scatter_v3(g, np.int32([2, 0, 2]), np.float32([[1, 1], [2, 2], [3, 3]]), gf)
    got = ops.tensor_array_gather_v3(g, np.int32([0, 1, 2]), gf, dtype=opgen.float32).numpy()
    np.testing.assert_array_equal(got, [[2, 2], [0, 0], [4, 4]])


def test_gradient_array_refusals_carry_tensorflows_messages():
    h, f = new_array(2, dynamic_size=True, clear_after_read=False)
    f = write(h, f, 0, np.float32([1, 2]))
    g, gf = ops.tensor_array_grad_v3(h, f, source="gradients")
    # The forward array no longer grows once its gradient array exists.
    with pytest.raises(errors.InvalidArgumentError,
                       match="Tried to write to index 5 but array is not resizeable and size is: 2"):
        write(h, f, 5, np.float32([1, 2]))
    gf = write(g, gf, 0, np.float32([1, 1]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Could not aggregate to TensorArray index 0 because the existing "
                             r"shape is \[2\] but the new input shape is \[3\]\."):
        write(g, gf, 0, np.float32([1, 1, 1]))
    gf = write(g, gf, 0, np.float32([1, 1]))  # summed: no gradient of this array any more
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Unable to create a gradients TensorArray for \S+@gradients\.  "
                             r"Perhaps you used the multiple_writes_aggregate flag"):
        ops.tensor_array_grad_v3(g, gf, source="gradients")


def test_a_read_element_is_not_written_again():
    h, f = new_array(2, element_shape=[2], clear_after_read=False)
    np.testing.assert_array_equal(read(h, f, 1), [0, 0])  # unwritten: zeros, and now read
    with pytest.raises(errors.InvalidArgumentError,
                       match="Could not write to TensorArray index 1 because it has already "
                             "been read."):
        write(h, f, 1, np.float32([1, 2]))


def test_gradient_array_with_shape_prepends_dims_to_the_zeros():
    h, f = new_array(2, clear_after_read=False)
    f = write(h, f, 0, np.float32([1, 2, 3]))
    g, gf = ops.tensor_array_grad_with_shape(h, f, np.int32([4]), source="jacobian")
    assert read(g, gf, 0).shape == (4, 3)


def test_a_stack_pops_what_was_pushed_last_first():
    h = ops.stack_v2(np.int32(-1), elem_type=opgen.float32)
    np.testing.assert_array_equal(ops.stack_push_v2(h, np.float32([1, 2])).numpy(), [1, 2])
    ops.stack_push_v2(h, np.float32(3))
    assert ops.stack_pop_v2(h, elem_type=opgen.float32).numpy() == 3
    np.testing.assert_array_equal(ops.stack_pop_v2(h, elem_type=opgen.float32).numpy(), [1, 2])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Stack\[StackV2\S*\] is empty when calling Pop\(\)\."):
        ops.stack_pop_v2(h, elem_type=opgen.float32)


@pytest.mark.parametrize("dtype", DTYPES + [opgen.string], ids=lambda d: d.name)
def test_a_stack_holds_any_dtype(dtype):
    h = ops.stack_v2(np.int32(-1), elem_type=dtype)
    value = np.array([b"a", b"bc"], object) if dtype == opgen.string else values_of(dtype, (2, 3))
    ops.stack_push_v2(h, value)
    got = ops.stack_pop_v2(h, elem_type=dtype).numpy()
    np.testing.assert_array_equal(got, value)


def test_stack_refusals_carry_tensorflows_messages():
    h = ops.stack_v2(np.int32(1), elem_type=opgen.int32, stack_name="s")
    ops.stack_push_v2(h, np.int32(1))
    with pytest.raises(errors.InvalidArgumentError, match=r"Stack\[s_\d+\] overflowed its max_size \(1\)"):
        ops.stack_push_v2(h, np.int32(2))
    with pytest.raises(errors.InvalidArgumentError, match="Must have type int32 but got float"):
        ops.stack_push_v2(h, np.float32(2))
    ops.stack_close_v2(h)
    with pytest.raises(errors.OpError):
        ops.stack_pop_v2(h, elem_type=opgen.int32)


# The same program through opgen's gradients (TensorFlow's formulas, gradient arrays) and
# through tf.gradients in TensorFlow 2.21's v1 graph mode.
GRADIENT_PROGRAM_TF = """
import sys, numpy as np, tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_control_flow_v2()
x_val = np.load(sys.argv[1])["x"]
with tf.Graph().as_default():
    x = tf1.placeholder(tf.float32, [4, 3])
    ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
    a = ta.read(1) * ta.read(1) + ta.read(3)
    out = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    out = out.write(0, a).write(2, tf.sin(ta.read(0)))
    out = out.write(1, ta.read(2) * 3.0)
    gathered = out.gather([2, 0, 2])
    pieces = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(
        tf.reshape(x, [12]), tf.constant([5, 7], tf.int64))
    joined = pieces.concat()
    y = (tf.reduce_sum(gathered * gathered) + tf.reduce_sum(out.stack())
         + tf.reduce_sum(joined * tf.range(12, dtype=tf.float32)))
    dx = tf.gradients(y, x)[0]
    with tf1.Session() as s:
        np.savez(sys.argv[2], dx=s.run(dx, {x: x_val}))
"""


def test_opgen_gradients_through_tensor_arrays_match_tensorflows(tmp_path):
    x_val = values_of(opgen.float32, (4, 3), seed=5) / 10
    np.savez(tmp_path / "in.npz", x=x_val)
    run_tf(["-c", GRADIENT_PROGRAM_TF, tmp_path / "in.npz", tmp_path / "out.npz"])
    want = np.load(tmp_path / "out.npz")["dx"]
    graph = opgen.Graph()
    with graph.as_default():
        x = ops.placeholder(dtype=opgen.float32, shape=[4, 3], name="x")
        h, f = new_array(4, clear_after_read=False)
        f = ops.tensor_array_scatter_v3(h, np.int32([0, 1, 2, 3]), x, f)

        def rd(i):
            return ops.tensor_array_read_v3(h, np.int32(i), f, dtype=opgen.float32)

        a = rd(1) * rd(1) + rd(3)
        oh, of = new_array(3, clear_after_read=False)
        of = write(oh, write(oh, of, 0, a), 2, ops.sin(rd(0)))
        of = write(oh, of, 1, rd(2) * 3.0)
        gathered = ops.tensor_array_gather_v3(oh, np.int32([2, 0, 2]), of, dtype=opgen.float32)
        stacked = ops.tensor_array_gather_v3(oh, np.int32([0, 1, 2]), of, dtype=opgen.float32)
        ph, pf = new_array(2)
        pf = ops.tensor_array_split_v3(ph, ops.reshape(x, np.int32([12])), np.int64([5, 7]), pf)
        joined, _ = ops.tensor_array_concat_v3(ph, pf, dtype=opgen.float32)
        y = (ops.sum(gathered * gathered, np.int32([0, 1])) + ops.sum(stacked, np.int32([0, 1]))
             + ops.sum(joined * np.arange(12, dtype=np.float32), np.int32(0)))
        (dx,) = opgen.gradients(y, [x])
    with opgen.Session(graph=graph) as session:
        got = session.run(dx, {x: x_val})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
