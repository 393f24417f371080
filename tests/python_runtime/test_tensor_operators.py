"""Issue 20 part 1: Python operators on opgen.Tensor (eager) and graph Outputs, with
TensorFlow's dtype rules (opgen.runtime._promotion), against:

- the expected results written below with TensorFlow's rules (numpy values, computed
  by hand from those rules: no numpy promotion), always;
- TensorFlow itself, when the interpreter $OPGEN_TF_PYTHON names imports it: the same
  expressions run there in a child process, with ``C`` = ``tf.constant``;
- graph mode: the same expressions built inside ``Graph.as_default()`` and run by a
  Session give the eager results.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.runtime._opplan import registry
from opgen.runtime.errors import NotFoundError, OpError
from tf_reference import run_tf

RAISES = "raises"

# The operands every expression sees (C is opgen.constant / tf.constant).
SETUP = """
f = C([1.5, 2.0])
i = C([1, 2])
b = C([True, False])
h = C([1.0, 4.0], "float16")
d = C([1.0, 2.0], "float64")
i8 = C([1, 2], "int8")
u8 = C([1, 200], "uint8")
l = C([3, 4], "int64")
m = C([[1.0, 2.0], [3.0, 4.0]])
c = C([3 + 4j], "complex64")
x = C(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
"""
_X = np.arange(24, dtype=np.int32).reshape(2, 3, 4)

# (expression, (dtype, values)) or (expression, RAISES): TensorFlow 2.x's results.
CASES = [
    # Python scalars take the tensor's dtype.
    ("f + 1", ("float32", [2.5, 3.0])),
    ("1 + f", ("float32", [2.5, 3.0])),
    ("f + 2.5", ("float32", [4.0, 4.5])),
    ("f - 1", ("float32", [0.5, 1.0])),
    ("3 - f", ("float32", [1.5, 1.0])),
    ("f * 2", ("float32", [3.0, 4.0])),
    ("2 * f", ("float32", [3.0, 4.0])),
    ("h * 2.5", ("float16", [2.5, 10.0])),
    ("l + 1", ("int64", [4, 5])),
    ("i + True", ("int32", [2, 3])),
    ("f + [1.0, 2.0]", ("float32", [2.5, 4.0])),
    ("[1.0, 2.0] + f", ("float32", [2.5, 4.0])),
    # ... but never lose data.
    ("i + 2.5", RAISES),
    ("2.5 + i", RAISES),
    ("f + 1j", RAISES),
    ("b & 1", RAISES),
    ("f + None", RAISES),
    ("i + 'a'", RAISES),
    # numpy data is cast to the tensor's dtype (no numpy promotion).
    ("f + np.array([1.0, 2.0])", ("float32", [2.5, 4.0])),
    ("np.array([1.0, 2.0]) + f", ("float32", [2.5, 4.0])),
    ("f + np.float64(1)", ("float32", [2.5, 3.0])),
    ("np.float64(1) + f", ("float32", [2.5, 3.0])),
    ("f + np.array([1, 2])", ("float32", [2.5, 4.0])),
    ("i + np.array([1.5, 2.0])", ("int32", [2, 4])),
    ("i + np.int64(3)", ("int32", [4, 5])),
    ("h + np.float64(2)", ("float16", [3.0, 6.0])),
    ("i8 + np.int32(100)", ("int8", [101, 102])),
    ("d + np.float32(1.5)", ("float64", [2.5, 3.5])),
    # Tensors are never promoted.
    ("f + i", RAISES),
    ("i + l", RAISES),
    ("f * d", RAISES),
    ("f > i", RAISES),
    ("f ** i", RAISES),
    # / computes integers as floats; //, %, ** keep the dtype.
    ("f / 2", ("float32", [0.75, 1.0])),
    ("3 / f", ("float32", [2.0, 1.5])),
    ("i / 2", ("float64", [0.5, 1.0])),
    ("i / i", ("float64", [1.0, 1.0])),
    ("4 / i", ("float64", [4.0, 2.0])),
    ("l / 2", ("float64", [1.5, 2.0])),
    ("i8 / 2", ("float32", [0.5, 1.0])),
    ("u8 / 2", ("float32", [0.5, 100.0])),
    ("h / 2", ("float16", [0.5, 2.0])),
    ("i / 2.5", RAISES),
    ("i // 2", ("int32", [0, 1])),
    ("7 // i", ("int32", [7, 3])),
    ("-i // 2", ("int32", [-1, -1])),
    ("f // 1", ("float32", [1.0, 2.0])),
    ("i % 2", ("int32", [1, 0])),
    ("-i % 3", ("int32", [2, 1])),
    ("i % -3", ("int32", [-2, -1])),
    ("7 % i", ("int32", [0, 1])),
    ("f % -1.0", ("float32", [-0.5, 0.0])),
    ("i ** 2", ("int32", [1, 4])),
    ("2 ** i", ("int32", [2, 4])),
    ("f ** 2", ("float32", [2.25, 4.0])),
    ("2 ** f", ("float32", [2.0 ** 1.5, 4.0])),
    # @
    ("m @ m", ("float32", [[7.0, 10.0], [15.0, 22.0]])),
    ("m @ [[1.0], [0.0]]", ("float32", [[1.0], [3.0]])),
    ("[[1.0, 0.0]] @ m", ("float32", [[1.0, 2.0]])),
    ("C([[[1.0, 2.0], [3.0, 4.0]]] * 2) @ m", ("float32", [[[7.0, 10.0], [15.0, 22.0]]] * 2)),
    ("f @ f", RAISES),
    # unary
    ("-f", ("float32", [-1.5, -2.0])),
    ("-i", ("int32", [-1, -2])),
    ("abs(-f)", ("float32", [1.5, 2.0])),
    ("abs(C([-1, 2]))", ("int32", [1, 2])),
    ("-b", RAISES),
    ("~b", ("bool", [False, True])),
    # comparisons
    ("f < 2", ("bool", [True, False])),
    ("f <= 2", ("bool", [True, True])),
    ("f > 1.5", ("bool", [False, True])),
    ("f >= 1.5", ("bool", [True, True])),
    ("2 < i", ("bool", [False, False])),
    ("b < b", RAISES),
    ("f == 1.5", ("bool", [True, False])),
    ("f != 2", ("bool", [True, False])),
    ("f == f", ("bool", [True, True])),
    ("f == [1.5, 2.0]", ("bool", [True, True])),
    ("i == C([1, 2, 3])", ("bool", False)),  # shapes that do not broadcast: unequal
    ("i != C([1, 2, 3])", ("bool", True)),
    ("f == i", RAISES),
    # logical on bool
    ("b & b", ("bool", [True, False])),
    ("b | True", ("bool", [True, True])),
    ("True & b", ("bool", [True, False])),
    ("b ^ C([True, True])", ("bool", [False, True])),
    ("b + b", RAISES),
    # indexing (tests/python_runtime/test_tensor_slicing.py has the many basic forms)
    ("x[1]", ("int32", _X[1].tolist())),
    ("x[C(1)]", ("int32", _X[1].tolist())),
    ("x[:, C(-1)]", ("int32", _X[:, -1].tolist())),
    ("x[C(1):, :C(2), ::C(-2)]", ("int32", _X[1:, :2, ::-2].tolist())),
    ("x[C(1, 'int64'):, :C(2, 'int64')]", ("int32", _X[1:, :2].tolist())),
    ("x[0, C(1, 'int64')]", ("int32", _X[0, 1].tolist())),
    ("x[..., 1, None]", ("int32", _X[..., 1, None].tolist())),
    ("x[[1, 0]]", ("int32", _X[1, 0].tolist())),  # a list is a tuple of indices (not numpy's)
    ("x[np.int64(1), np.array(2)]", ("int32", _X[1, 2].tolist())),
    ("x[::-1, 1::-1, -1:0:-2]", ("int32", _X[::-1, 1::-1, -1:0:-2].tolist())),
    ("x[2]", RAISES),
    ("x[:, -4]", RAISES),
    ("x[1.0]", RAISES),
    ("x[C([0])]", RAISES),
    ("x[C(0.0)]", RAISES),
    ("x[::0]", RAISES),
    ("x[..., ...]", RAISES),
    # A bool mask as the whole index is tf.boolean_mask (numpy's t[mask] for it).
    ("x[x > 20]", ("int32", [21, 22, 23])),
    ("x[x > 100]", ("int32", [])),
    ("x[np.array([False, True])]", ("int32", _X[[1]].tolist())),
    ("x[x[:, :, 0] > 4]", ("int32", _X[_X[:, :, 0] > 4].tolist())),
    ("i[b]", ("int32", [1])),
    ("m[m > 1.5]", ("float32", [2.0, 3.0, 4.0])),
    ("x[True]", RAISES),  # "mask cannot be scalar."
    ("x[C(False)]", RAISES),
    ("x[C([True, False, True])]", RAISES),  # the mask's shape is not x's first dims'
    ("x[b, 0]", RAISES),  # a mask inside a tuple is no index
]

# Bitwise operators and complex abs, where this runtime registers the op.
OP_CASES = [
    ("i & 3", ("int32", [1, 2]), "BitwiseAnd"),
    ("1 & i", ("int32", [1, 0]), "BitwiseAnd"),
    ("i | 1", ("int32", [1, 3]), "BitwiseOr"),
    ("i ^ 3", ("int32", [2, 1]), "BitwiseXor"),
    ("~i", ("int32", [-2, -3]), "Invert"),
    ("~u8", ("uint8", [254, 55]), "Invert"),
    ("abs(c)", ("float32", [5.0]), "ComplexAbs"),
    ("abs(C([-6 + 8j, 0j], 'complex128'))", ("float64", [10.0, 0.0]), "ComplexAbs"),
    ("i8 & C([3, -1], 'int8')", ("int8", [1, 2]), "BitwiseAnd"),
    ("l | C([1, 8], 'int64')", ("int64", [3, 12]), "BitwiseOr"),
    ("u8 ^ 255", ("uint8", [254, 55]), "BitwiseXor"),
    ("~C([0, 7], 'uint64')", ("uint64", [2**64 - 1, 2**64 - 8]), "Invert"),
    ("x[0, 0] & 6", ("int32", [0, 0, 2, 2]), "BitwiseAnd"),
]

# Where opgen is knowingly stricter than TensorFlow (which wraps an out-of-range
# Python int around): compared with these expectations only, not with TensorFlow.
OPGEN_ONLY_CASES = [
    ("i + (1 << 40)", RAISES),
    ("u8 + 300", RAISES),
]


def _namespace(constant):
    ns = {"C": constant, "np": np}
    exec(SETUP, ns)
    return ns


def _run_opgen(expr):
    """(dtype name, values) of an expression evaluated eagerly, or RAISES."""
    ns = _namespace(opgen.constant)
    try:
        result = eval(expr, ns)
    except (TypeError, ValueError, IndexError, OpError):
        return RAISES
    if isinstance(result, bool):
        return ("pybool", result)
    assert isinstance(result, opgen.Tensor), type(result)
    return (result.dtype.name, result.numpy())


def _check(got, want, expr):
    if want == RAISES:
        assert got == RAISES, f"{expr}: expected an error, got {got}"
        return
    assert got != RAISES, f"{expr}: raised, expected {want}"
    dtype, values = got
    assert dtype == want[0], f"{expr}: dtype {dtype}, expected {want[0]}"
    expected = np.asarray(want[1], dtype=np.dtype(want[0]))
    assert np.shape(values) == expected.shape, expr
    np.testing.assert_allclose(np.asarray(values), expected, rtol=1e-6, err_msg=expr)


def _has_op(op_type):
    try:
        registry.plan(op_type)
        return True
    except NotFoundError:
        return False


@pytest.mark.parametrize("expr, want", CASES + OPGEN_ONLY_CASES,
                         ids=[c[0] for c in CASES + OPGEN_ONLY_CASES])
def test_operator_eager(expr, want, runtime_lib):
    _check(_run_opgen(expr), want, expr)


@pytest.mark.parametrize("expr, want, op_type", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_operator_needing_optional_op(expr, want, op_type, runtime_lib):
    if not _has_op(op_type):
        # (the operator is TF's; the op itself is not in this runtime yet)
        with pytest.raises(NotFoundError, match=op_type):
            eval(expr, _namespace(opgen.constant))
        return
    _check(_run_opgen(expr), want, expr)


# ---- graph mode: the same expressions build nodes; a Session runs them ------------------

_NOT_IN_GRAPHS = ("==", "!=")  # graph Outputs compare by identity, as in a tf.Graph


def test_operators_build_the_same_results_in_a_graph(runtime_lib):
    g = opgen.Graph()
    built, failed = {}, set()
    with g.as_default():
        ns = _namespace(opgen.constant)
        for expr, _want in CASES:
            if any(s in expr for s in _NOT_IN_GRAPHS):
                continue
            try:
                out = eval(expr, ns)
            except (TypeError, ValueError, IndexError, OpError):
                failed.add(expr)
                continue
            assert isinstance(out, opgen.Output), (expr, out)
            built[expr] = out
    with opgen.Session(graph=g) as session:
        for expr, want in CASES:
            if any(s in expr for s in _NOT_IN_GRAPHS):
                continue
            if expr in failed:
                got = RAISES
            else:
                try:
                    value = session.run(built[expr])
                    got = (built[expr].dtype.name, value)
                except OpError:  # (an error only the kernel sees: f @ f)
                    got = RAISES
            _check(got, want, expr)
    assert len(built) > 50


def test_output_operators_build_in_their_graph_outside_as_default(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, name="x")
    y = (x * 2 + 1)[1:]  # no default graph here: the nodes go into x's graph
    assert isinstance(y, opgen.Output) and y.graph is g
    with opgen.Session(graph=g) as session:
        np.testing.assert_array_equal(session.run(y, {x: np.float32([1, 2, 3])}), [5, 7])


def test_eager_tensor_and_output_mix_into_a_node(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, name="x")
    t = opgen.constant([1.0, 2.0])
    y = t + x  # an eager Tensor becomes a Const of x's graph
    with opgen.Session(graph=g) as session:
        np.testing.assert_array_equal(session.run(y, {x: np.float32([1, 1])}), [2, 3])


# ---- what differs between eager Tensors and graph Outputs --------------------------------

def test_eager_tensor_python_protocols(runtime_lib):
    t = opgen.constant([[1, 2], [3, 4]])
    assert len(t) == 2 and t.size == 4 and t.ndim == 2
    rows = list(t)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4]]
    assert t.tolist() == [[1, 2], [3, 4]] and isinstance(t.tolist()[0][0], int)
    assert opgen.constant(2.5).item() == 2.5 and isinstance(opgen.constant(7).item(), int)
    with pytest.raises(ValueError):
        t.item()
    scalar = opgen.constant(3)
    assert bool(scalar) and not bool(opgen.constant(0)) and scalar.size == 1
    with pytest.raises(TypeError, match="len"):
        len(scalar)
    with pytest.raises(TypeError, match="scalar"):
        iter(scalar)
    with pytest.raises(ValueError):  # as numpy and TensorFlow: ambiguous
        bool(t)
    assert [1, 2, 3][opgen.constant(1)] == 2  # __index__
    np.testing.assert_array_equal(np.asarray(t), [[1, 2], [3, 4]])
    assert opgen.Tensor.__array_priority__ == 100


def test_eager_tensor_equality_and_hash_as_tensorflow(runtime_lib):
    t = opgen.constant([1.0, 2.0])
    assert (t == None) is False and (t != None) is True  # noqa: E711 (the operator itself is tested)
    with pytest.raises(TypeError, match=r"unhashable.*ref"):
        hash(t)
    with pytest.raises(TypeError):
        {t: 1}  # noqa: B018
    u = opgen.constant([1.0, 2.0])
    refs = {t.ref(): "t", u.ref(): "u"}
    assert len(refs) == 2 and refs[t.ref()] == "t" and t.ref().deref() is t
    assert t.ref() != u.ref()
    # an object that is no operand: Python's fallback (identity), not an error
    assert (t == object()) is False


def test_graph_output_protocols_as_tensorflow(runtime_lib):
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[2], name="x")
        y = x + 1
    assert (x == x) is True and (x == y) is False and (x != y) is True
    assert {x: 1, y: 2}[x] == 1  # hashable: feed_dict keys
    with pytest.raises(TypeError, match="bool"):
        bool(x)
    with pytest.raises(TypeError, match="len"):
        len(x)
    with pytest.raises(TypeError, match="iterating"):
        iter(x)
    with pytest.raises(NotImplementedError, match="numpy"):
        np.asarray(x)
    assert opgen.Output.__array_priority__ == 100


def test_operand_that_is_no_tensor_defers_to_its_reflected_method(runtime_lib):
    class Other:
        def __radd__(self, other):
            return "Other.__radd__"

    assert opgen.constant([1.0]) + Other() == "Other.__radd__"
    with pytest.raises(TypeError):
        opgen.constant([1.0]) - Other()


def test_constant_as_tensorflow(runtime_lib):
    assert opgen.constant(1.5).dtype == opgen.float32
    assert opgen.constant(2 ** 40).dtype == opgen.int64
    assert opgen.constant(np.float64(1)).dtype == opgen.float64
    assert opgen.constant([1, 2], opgen.uint8).numpy().tolist() == [1, 2]
    assert opgen.constant(np.array([1.5]), "int32").numpy().tolist() == [1]  # numpy: astype
    with pytest.raises(TypeError):
        opgen.constant(1.5, "int32")  # Python values: no loss of data
    np.testing.assert_array_equal(opgen.constant(7, shape=[2, 3]).numpy(), np.full((2, 3), 7))
    np.testing.assert_array_equal(opgen.constant([1, 2, 3, 4, 5, 6], shape=(2, 3)).numpy(),
                                  [[1, 2, 3], [4, 5, 6]])
    with pytest.raises(TypeError, match="3 elements"):
        opgen.constant([1, 2, 3], shape=[2, 3])
    t = opgen.constant([1, 2])
    assert opgen.constant(t).numpy().tolist() == [1, 2]
    with pytest.raises(TypeError):
        opgen.constant(t, "float32")
    g = opgen.Graph()
    with g.as_default():
        c = opgen.constant([1.0, 2.0], name="c")
    assert isinstance(c, opgen.Output) and c.op.name == "c" and c.op.type == "Const"
    with opgen.Session(graph=g) as session:
        np.testing.assert_array_equal(session.run(c), [1.0, 2.0])


def test_import_opgen_reaches_ops_lazily(tmp_path):
    # Run outside the checkout: `python -c` puts the current folder first on sys.path, and
    # a checkout's opgen/ has no ops/ (generated/python is installed as opgen.ops).
    code = ("import sys, opgen; assert 'opgen.ops' not in sys.modules; "
            "assert 'opgen.runtime' not in sys.modules; "
            "ops = opgen.ops; assert 'opgen.ops' in sys.modules and ops.add_v2; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False, cwd=tmp_path)
    assert out.returncode == 0 and "ok" in out.stdout, out.stderr


# ---- against TensorFlow itself --------------------------------------------------------------

_TF_RUNNER = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["CUDA_VISIBLE_DEVICES"] = ""
import numpy as np
import tensorflow as tf
setup, exprs = json.load(open(sys.argv[1]))
results = []
for expr in exprs:
    ns = {"C": tf.constant, "np": np}
    exec(setup, ns)
    try:
        r = eval(expr, ns)
        if isinstance(r, bool):
            results.append(["pybool", r])
        else:
            results.append([r.dtype.name, r.numpy().tolist()])
    except Exception as e:
        results.append(["raises", type(e).__name__])
json.dump(results, open(sys.argv[2], "w"))
"""


def run_in_tensorflow(setup, exprs, tmp_path):
    """TensorFlow's [dtype, values] or ["raises", type] per expression; skips the test
    where TensorFlow does not import."""
    (tmp_path / "in.json").write_text(json.dumps([setup, exprs]))
    runner = tmp_path / "runner.py"
    runner.write_text(_TF_RUNNER)
    run_tf([runner, tmp_path / "in.json", tmp_path / "out.json"], cwd=tmp_path)
    return json.loads((tmp_path / "out.json").read_text())


def test_operators_match_tensorflow(tmp_path, runtime_lib):
    """The expectations above are TensorFlow's, and opgen gives them."""
    cases = CASES + [(expr, want) for expr, want, _ in OP_CASES]
    results = run_in_tensorflow(SETUP, [expr for expr, _ in cases], tmp_path)
    for (expr, want), (dtype, values) in zip(cases, results):
        tf_result = RAISES if dtype == "raises" else (dtype, values)
        _check(tf_result, want, expr)  # our written rules are TensorFlow's ...
    for expr, want in CASES:
        _check(_run_opgen(expr), want, expr)  # ... and opgen follows them


def test_docs_example_runs(runtime_lib, capsys):
    import re
    doc = Path(__file__).resolve().parents[2] / "docs" / "tensors.md"
    example = re.findall(r"```python\n(.*?)```", doc.read_text(), re.DOTALL)[0]
    exec(example, {})
    printed = capsys.readouterr().out
    assert "[[ 20.  28.]" in printed and "[3. 5.]" in printed
