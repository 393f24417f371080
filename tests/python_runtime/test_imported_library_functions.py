"""An opgen.function whose body imports a GraphDef with a function library: a plain
function called by a function-name node; psin[T], total[N, T] (an N*T list argument)
and pair[Tl] (a list(type) one) called by PartitionedCall (bound by their func attrs'
attrs); an If over two branch functions; a While over cond/body functions. Called
eagerly, under a GradientTape and in a graph, the library goes with the function (it
used to stay in the trace's scratch graph: "'psin' is not in the function library").

Forward values and tape gradients are checked against numpy's closed forms and central
differences of the eager calls (float64), and against TensorFlow 2.21 (child process)
where it can compute them: the forward values of the same GraphDef in its session (all
but pair[Tl], which its runtime fails to instantiate), and the gradients of plain, psin
and the If's branches by its SymbolicGradient. (TensorFlow's own eager tf.function
cannot run this GraphDef: its imported library does not reach its eager context, "Op
type not registered 'plain'"; its Python gradients cannot wrap polymorphic functions
nor differentiate an imported While.)"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2, types_pb2
from opgen.runtime import errors
from tf_reference import run_tf, tf_python

sys.path.insert(0, str(Path(__file__).parent))
from test_polymorphic_function_gradients import _func, _library, _node

DTYPES = {np.float32: types_pb2.DT_FLOAT, np.float64: types_pb2.DT_DOUBLE}
B, I32 = types_pb2.DT_BOOL, types_pb2.DT_INT32
X = np.array([0.5, -1.0, 1.25])
Y = np.array([0.3, 0.7, -0.4])
OUTPUTS = ["c_plain:0", "c_poly:0", "c_if:0", "c_while:1", "c_total:0", "c_pairmul:0"]


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def _signature(f, name, inputs, outputs):
    f.signature.name = name
    for arg, t in inputs:
        f.signature.input_arg.add(name=arg, type=t)
    for arg, t in outputs:
        f.signature.output_arg.add(name=arg, type=t)


def _const(container, name, value):
    tensor = _node(container, name, "Const", dtype=I32).attr["value"].tensor
    tensor.dtype = I32
    tensor.int_val.append(value)


def _graph_def(t, suffix, plain_op="Exp"):
    """x0, x1: t; p: bool. plain(a, b) = a * exp(b); psin[T](x, y) = x*x*y + sin(x);
    If(p): then a*a*b, else cos(a)*b; While 3 times: acc <- acc*x + sin(acc) from
    acc = x0, x = x1. Monomorphic functions end in `suffix` (one set per dtype)."""
    gd = graph_pb2.GraphDef()
    lib = gd.library
    _library(lib)
    plain = lib.function.add()
    _signature(plain, "plain" + suffix, [("a", t), ("b", t)], [("r", t)])
    _node(plain.node_def, "e", plain_op, ["b"], T=t)
    _node(plain.node_def, "r", "Mul", ["a", "e:y:0"], T=t)
    plain.ret["r"] = "r:z:0"
    for name, unary in (("then", "Square"), ("else", "Cos")):
        f = lib.function.add()
        _signature(f, name + suffix, [("a", t), ("b", t)], [("r", t)])
        _node(f.node_def, "u", unary, ["a"], T=t)
        _node(f.node_def, "r", "Mul", ["u:y:0", "b"], T=t)
        f.ret["r"] = "r:z:0"
    loop_vars = [("i", I32), ("acc", t), ("x", t)]
    cond = lib.function.add()
    _signature(cond, "wcond" + suffix, loop_vars, [("r", B)])
    _const(cond.node_def, "k", 3)
    _node(cond.node_def, "r", "Less", ["i", "k:output:0"], T=I32)
    cond.ret["r"] = "r:z:0"
    body = lib.function.add()
    _signature(body, "wbody" + suffix, loop_vars, [("i_out", I32), ("acc_out", t), ("x_out", t)])
    _const(body.node_def, "k", 1)
    _node(body.node_def, "next", "AddV2", ["i", "k:output:0"], T=I32)
    _node(body.node_def, "ax", "Mul", ["acc", "x"], T=t)
    _node(body.node_def, "s", "Sin", ["acc"], T=t)
    _node(body.node_def, "acc_next", "AddV2", ["ax:z:0", "s:y:0"], T=t)
    body.ret.update({"i_out": "next:z:0", "acc_out": "acc_next:z:0", "x_out": "x"})

    # pair[Tl: list(type)](xs: Tl) -> ys: Tl, the list passed through IdentityN
    pair = lib.function.add()
    pair.signature.name = "pair"
    pair.signature.attr.add(name="Tl", type="list(type)")
    pair.signature.input_arg.add(name="xs", type_list_attr="Tl")
    pair.signature.output_arg.add(name="ys", type_list_attr="Tl")
    _node(pair.node_def, "same", "IdentityN", ["xs"]).attr["T"].placeholder = "Tl"
    pair.ret["ys"] = "same:output"

    for name in ("x0", "x1"):
        _node(gd.node, name, "Placeholder", dtype=t)
    _node(gd.node, "p", "Placeholder", dtype=B)
    _node(gd.node, "c_plain", "plain" + suffix, ["x0", "x1"])
    _node(gd.node, "c_poly", "PartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t],
          f=_func("psin", T=t))
    _node(gd.node, "c_if", "If", ["p", "x0", "x1"], Tcond=B, Tin=[t, t], Tout=[t],
          then_branch=_func("then" + suffix), else_branch=_func("else" + suffix))
    total = _node(gd.node, "c_total", "PartitionedCall", ["x0", "x1"], Tin=[t, t], Tout=[t])
    total.attr["f"].func.name = "total"
    # (TensorFlow binds a PartitionedCall's function from its func attr's attrs only)
    total.attr["f"].func.attr["N"].i = 2
    total.attr["f"].func.attr["T"].type = t
    pair_call = _node(gd.node, "c_pair", "PartitionedCall", ["x0", "x1"], Tin=[t, t],
                      Tout=[t, t], f=_func("pair"))
    pair_call.attr["f"].func.attr["Tl"].list.type.extend([t, t])
    _node(gd.node, "c_pairmul", "Mul", ["c_pair:0", "c_pair:1"], T=t)
    _const(gd.node, "zero", 0)
    _node(gd.node, "c_while", "While", ["zero", "x0", "x1"], T=[I32, t, t],
          cond=_func("wcond" + suffix), body=_func("wbody" + suffix))
    return gd


def _importing_function(gd):
    @opgen.function
    def imported(x, y, p):
        return opgen.import_graph_def(gd, input_map={"x0": x, "x1": y, "p": p},
                                      return_elements=OUTPUTS)
    return imported


def _expected(x, y, p):
    """numpy: the outputs and their (d/dx, d/dy), elementwise."""
    acc, dx, dy = x.copy(), np.ones_like(x), np.zeros_like(x)
    for _ in range(3):  # forward-mode through acc <- acc*y + sin(acc)
        factor = y + np.cos(acc)
        dx, dy = dx * factor, dy * factor + acc
        acc = acc * y + np.sin(acc)
    if p:
        cond = (x * x * y, (2 * x * y, x * x))
    else:
        cond = (np.cos(x) * y, (-np.sin(x) * y, np.cos(x)))
    s = x + y
    ds = np.sin(s) + s * np.cos(s)
    values = [x * np.exp(y), x * x * y + np.sin(x), cond[0], acc, s * np.sin(s), x * y]
    grads = [(np.exp(y), x * np.exp(y)), (2 * x * y + np.cos(x), x * x), cond[1], (dx, dy),
             (ds, ds), (y, x)]
    return values, grads


def _suffix(dtype):
    return "_" + np.dtype(dtype).name


@pytest.mark.parametrize("p", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_eager_call_and_tape_gradients_match_numpy(dtype, p):
    f = _importing_function(_graph_def(DTYPES[dtype], _suffix(dtype)))
    x, y = opgen.constant(X.astype(dtype)), opgen.constant(Y.astype(dtype))
    want_values, want_grads = _expected(X, Y, p)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    got = f(x, y, np.bool_(p))
    for value, want in zip(got, want_values):
        assert value.dtype == opgen.as_dtype(dtype)
        np.testing.assert_allclose(value.numpy(), want, rtol=tol, atol=tol)
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        outputs = f(x, y, np.bool_(p))
    for k, (out, want) in enumerate(zip(outputs, want_grads)):
        dx, dy = tape.gradient(out, [x, y])
        assert dx is not None and dy is not None, OUTPUTS[k]
        np.testing.assert_allclose(dx.numpy(), want[0], rtol=tol, atol=tol, err_msg=OUTPUTS[k])
        np.testing.assert_allclose(dy.numpy(), want[1], rtol=tol, atol=tol, err_msg=OUTPUTS[k])


def test_tape_gradients_match_central_differences():
    """d sum(w * out_k) / d(x, y) by the tape against central differences of the eager
    call itself (float64), for each output."""
    f = _importing_function(_graph_def(types_pb2.DT_DOUBLE, "_float64"))
    w = np.random.default_rng(3).uniform(0.5, 1.5, X.shape)
    x, y = opgen.constant(X), opgen.constant(Y)
    with opgen.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        losses = [opgen.ops.sum(out * w, [0]) for out in f(x, y, np.bool_(False))]
    h = 1e-6
    for k, loss in enumerate(losses):
        got = [g.numpy() for g in tape.gradient(loss, [x, y])]
        for which, base in enumerate((X, Y)):
            numeric = np.zeros_like(base)
            for i in range(base.size):
                sums = []
                for step in (h, -h):
                    moved = [X.copy(), Y.copy()]
                    moved[which][i] += step
                    sums.append(float(np.sum(w * f(moved[0], moved[1], np.bool_(False))[k].numpy())))
                numeric[i] = (sums[0] - sums[1]) / (2 * h)
            np.testing.assert_allclose(got[which], numeric, rtol=1e-6, atol=1e-8,
                                       err_msg=f"{OUTPUTS[k]} d/d{'xy'[which]}")


def test_graph_mode_call_carries_the_library_and_differentiates():
    gd = _graph_def(types_pb2.DT_DOUBLE, "_float64")
    f = _importing_function(gd)
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3])
        y = opgen.ops.placeholder(opgen.float64, shape=[3])
        outs = f(x, y, np.bool_(True))
        grads = [opgen.gradients([o], [x, y]) for o in outs]
    names = {fd.signature.name for fd in g.as_graph_def().library.function}
    assert {"psin", "plain_float64", "then_float64", "wbody_float64"} <= names
    with opgen.Session(graph=g) as session:
        got_values, got_grads = session.run([outs, grads], {x: X, y: Y})
    want_values, want_grads = _expected(X, Y, True)
    for k in range(len(OUTPUTS)):
        np.testing.assert_allclose(got_values[k], want_values[k], rtol=1e-12, atol=1e-12)
        for got, want in zip(got_grads[k], want_grads[k]):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_call_of_stateless_library_functions_is_stateless():
    """If, While and function-name nodes whose functions have no state make a
    PartitionedCall (the tape replays it); a stateful op in a called function makes
    the call stateful."""
    gd = _graph_def(types_pb2.DT_DOUBLE, "_float64")
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float64, shape=[3])
        _importing_function(gd)(x, x, np.bool_(True))
        random = _graph_def(types_pb2.DT_DOUBLE, "_random", plain_op="Exp")
        body = next(f for f in random.library.function if f.signature.name == "wbody_random")
        seed = _node(body.node_def, "seed", "Const", dtype=types_pb2.DT_INT32).attr["value"].tensor
        seed.dtype = types_pb2.DT_INT32
        seed.tensor_shape.dim.add(size=1)
        seed.int_val.append(1)
        _node(body.node_def, "draw", "RandomUniform", ["seed:output:0"],
              T=types_pb2.DT_INT32, dtype=types_pb2.DT_DOUBLE)
        _importing_function(random)(x, x, np.bool_(True))
    calls = [op.type for op in g.get_operations() if op.type.endswith("PartitionedCall")]
    assert calls == ["PartitionedCall", "StatefulPartitionedCall"]


def test_same_definition_is_shared_a_different_one_is_refused():
    t = types_pb2.DT_DOUBLE
    first = _importing_function(_graph_def(t, "_clash"))
    again = _importing_function(_graph_def(t, "_clash"))
    other = _importing_function(_graph_def(t, "_clash", plain_op="Sin"))
    x = opgen.constant(X)
    (a, *_), (b, *_) = first(x, x, np.bool_(True)), again(x, x, np.bool_(True))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(errors.InvalidArgumentError,
                       match="'plain_clash' because a different function with the same name"):
        other(x, x, np.bool_(True))
    g = opgen.Graph()
    with g.as_default():
        y = opgen.ops.placeholder(opgen.float64, shape=[3])
        first(y, y, np.bool_(True))
        with pytest.raises(errors.InvalidArgumentError, match="different function"):
            other(y, y, np.bool_(True))


# What TensorFlow's C++ runtime runs of the GraphDef: not pair[Tl] ("input input[0]
# expected type double != INVALID, the type of xs[0]" instantiating it); and what its
# SymbolicGradient differentiates: not total[N, T] ("No gradient defined for op: AddN"),
# nor the While (no function to name).
TF_RUNS = [name for name in OUTPUTS if name != "c_pairmul:0"]

TF_SCRIPT = r"""
import sys, numpy as np, tensorflow as tf
from tensorflow.python.framework import function as tf_function
# (TensorFlow's Python cannot wrap polymorphic FunctionDefs; the C++ runtime runs them)
tf_function.from_library = lambda library: []
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
io = np.load(sys.argv[2])
t = io["x"].dtype
with tf.Graph().as_default():
    tf.compat.v1.import_graph_def(gd, name="")
    with tf.compat.v1.Session() as s:
        out = {}
        for p in (True, False):
            feed = {"x0:0": io["x"], "x1:0": io["y"], "p:0": p, "w:0": io["w"]}
            out[f"values_{p}"] = s.run(sys.argv[4].split(","), feed)
        feed = {"x0:0": io["x"], "x1:0": io["y"], "w:0": io["w"]}
        for name in sys.argv[5].split(","):
            out[name] = s.run([f"g_{name}:0", f"g_{name}:1"], feed)
np.savez(sys.argv[3], **{k: np.stack(v) for k, v in out.items()})
"""


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_tensorflow(dtype, tmp_path):
    """Forward values of TensorFlow's session on the same GraphDef (TF_RUNS), and the
    gradients of plain, psin[T] bound to the dtype and the If's branch for its pred by
    TensorFlow's SymbolicGradient, weighted by w."""
    tf_python()  # skips first when there is no TensorFlow
    t, suffix = DTYPES[dtype], _suffix(dtype)
    gd = _graph_def(t, suffix)
    tf_gd = graph_pb2.GraphDef()
    tf_gd.CopyFrom(gd)
    _node(tf_gd.node, "w", "Placeholder", dtype=t)
    functions = {"plain": _func("plain" + suffix), "psin": _func("psin", T=t),
                 "then": _func("then" + suffix), "else": _func("else" + suffix)}
    for name, func in functions.items():
        _node(tf_gd.node, f"g_{name}", "SymbolicGradient", ["x0", "x1", "w"], Tin=[t] * 3,
              Tout=[t] * 2, f=func)
    x, y = X.astype(dtype), Y.astype(dtype)
    w = np.random.default_rng(5).uniform(0.5, 1.5, X.shape).astype(dtype)
    (tmp_path / "g.pb").write_bytes(tf_gd.SerializeToString())
    np.savez(tmp_path / "io.npz", x=x, y=y, w=w)
    (tmp_path / "tf_ref.py").write_text(TF_SCRIPT)
    run_tf([tmp_path / "tf_ref.py", tmp_path / "g.pb", tmp_path / "io.npz", tmp_path / "tf.npz",
            ",".join(TF_RUNS), ",".join(functions)], cwd=tmp_path, timeout=300)
    expected = np.load(tmp_path / "tf.npz")

    f = _importing_function(gd)
    xt, yt = opgen.constant(x), opgen.constant(y)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for p in (True, False):
        with opgen.GradientTape(persistent=True) as tape:
            tape.watch([xt, yt])
            outs = f(xt, yt, np.bool_(p))
            weighted = [opgen.ops.sum(o * w, [0]) for o in outs]
        for k, name in enumerate(TF_RUNS):
            np.testing.assert_allclose(outs[OUTPUTS.index(name)].numpy(),
                                       expected[f"values_{p}"][k], rtol=tol, atol=tol, err_msg=name)
        called = {"c_plain:0": "plain", "c_poly:0": "psin", "c_if:0": "then" if p else "else"}
        for k, out in enumerate(OUTPUTS):
            if out not in called:
                continue
            got = [g.numpy() for g in tape.gradient(weighted[k], [xt, yt])]
            np.testing.assert_allclose(got, expected[called[out]], rtol=tol, atol=tol,
                                       err_msg=out)


def test_library_imported_in_a_cond_branch_in_a_nested_function_with_a_variable():
    """The library travels up from a cond branch and from a nested opgen.function to
    the outer call, and into the tape's twin trace of a function reading a variable."""
    gd = _graph_def(types_pb2.DT_DOUBLE, "_float64")
    scale = opgen.Variable(np.float64(1.5))
    inner = _importing_function(gd)

    @opgen.function
    def outer(x, y):
        negative = opgen.ops.less(x[0], np.float64(0))
        branch = opgen.cond(negative,
                            lambda: inner(x, y, np.bool_(False))[3],
                            lambda: opgen.import_graph_def(
                                gd, input_map={"x0": x, "x1": y, "p": negative},
                                return_elements=["c_poly:0"])[0])
        return branch * scale

    x, y = opgen.constant(X), opgen.constant(Y)
    with opgen.GradientTape() as tape:
        tape.watch([x, y])
        out = outer(x, y)
    dx, dy, dscale = tape.gradient(out, [x, y, scale])
    values, grads = _expected(X, Y, True)  # X[0] > 0: the psin branch
    np.testing.assert_allclose(out.numpy(), 1.5 * values[1], rtol=1e-12)
    np.testing.assert_allclose(dx.numpy(), 1.5 * grads[1][0], rtol=1e-12)
    np.testing.assert_allclose(dy.numpy(), 1.5 * grads[1][1], rtol=1e-12)
    np.testing.assert_allclose(dscale.numpy(), np.sum(values[1]), rtol=1e-12)
    x_neg = opgen.constant(-X)
    with opgen.GradientTape() as tape:
        tape.watch(x_neg)
        out = outer(x_neg, y)
    values, grads = _expected(-X, Y, False)
    np.testing.assert_allclose(out.numpy(), 1.5 * values[3], rtol=1e-12)
    np.testing.assert_allclose(tape.gradient(out, x_neg).numpy(), 1.5 * grads[3][0], rtol=1e-12)
