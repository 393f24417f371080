"""Updates of parts of variables and tensors: ResourceStridedSliceAssign and
TensorStridedSliceUpdate (``v[key].assign(x)``), ResourceScatterNd{Update,Add,Sub,Min,Max},
ResourceGatherNd, ResourceScatter{Mul,Div,Min,Max} and ResourceApplyAdamWithAmsgrad,
against numpy's slice assignment and TensorFlow 2.21 (a child process), with
TensorFlow's messages for bad input."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from opgen.runtime._operators import strided_slice_operands
from tf_reference import run_tf_script

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(11)

# Slice keys as Python source (numpy's and TensorFlow's basic indexing), over a [5, 6, 4]
# tensor: every mask (begin/end by omission, ellipsis, new axis, shrink by an int).
KEYS = [
    "1:3", "::2", "::-1", "-2:", "1", "-1", "1:4, ::-2", "..., 1", "..., ::-3",
    "None, 2:4", "1, None, ::2", "2:0:-1, 1:5:2, 3", "..., None", ":, 2, 1:",
    "4:1:-2, ..., ::3", "3:3", "0, 0, 0", ":, -1, None, ::-1",
]
SHAPE = (5, 6, 4)


def _key(text):
    return eval(f"np.s_[{text}]")  # noqa: S307 - the fixed keys above


def _value_for(key, broadcast):
    """A random value of the slice's shape, or with broadcast dims (1 or dropped)."""
    shape = np.zeros(SHAPE)[_key(key)].shape
    if broadcast and len(shape) > 0:
        shape = (1,) + shape[1:] if len(shape) > 1 else ()
    return rng.standard_normal(shape).astype(np.float32)


CASES = [(k, b) for k in KEYS for b in (False, True)]
BASE = rng.standard_normal(SHAPE).astype(np.float32)
VALUES = {f"{k}|{b}": _value_for(k, b) for k, b in CASES}


def _numpy_assign(key, value):
    want = BASE.copy()
    want[_key(key)] = value
    return want


@pytest.mark.parametrize("key,broadcast", CASES)
def test_slice_assign_matches_numpy(key, broadcast):
    value = VALUES[f"{key}|{broadcast}"]
    want = _numpy_assign(key, value)
    v = opgen.Variable(BASE)
    v[_key(key)].assign(value)
    np.testing.assert_array_equal(v.numpy(), want)
    packed, attrs = strided_slice_operands(_key(key))
    got = ops.tensor_strided_slice_update(BASE, *packed, value, **attrs)
    np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(BASE, BASE.copy())  # the input is left as it was


TF_SLICES = textwrap.dedent("""
    import json, sys, numpy as np, tensorflow as tf
    spec = json.load(open(sys.argv[1])); arrays = np.load(sys.argv[2]); out = {}
    base = arrays["base"]
    for k, b in spec["cases"]:
        key = eval(f"np.s_[{k}]"); value = arrays[f"{k}|{b}"]
        v = tf.Variable(base)
        v[key].assign(value)
        out[f"var/{k}|{b}"] = v.numpy()
    # TensorStridedSliceUpdate's gradient, the value broadcast along dim 0
    x = tf.constant(base); val = tf.constant(arrays["gval"])
    with tf.GradientTape() as tape:
        tape.watch([x, val])
        y = tf.raw_ops.TensorStridedSliceUpdate(input=x, begin=[1, 0], end=[4, 6], strides=[2, 1],
                                                value=val, shrink_axis_mask=0)
    gx, gv = tape.gradient(y, [x, val], output_gradients=tf.constant(arrays["w"]))
    out["gx"], out["gv"] = gx.numpy(), gv.numpy()
    # ResourceGatherNd's gradient (dense) and value
    var = tf.Variable(base)
    with tf.GradientTape() as tape:
        g = tf.gather_nd(var, arrays["gidx"])  # ResourceGatherNd, the variable watched
    out["gather"] = g.numpy()
    out["gathergrad"] = tf.convert_to_tensor(tape.gradient(g, var, output_gradients=tf.ones_like(g) * 3)).numpy()
    np.savez(sys.argv[3], **out)
""")

GVAL = rng.standard_normal((1, 6, 4)).astype(np.float32)
W = rng.standard_normal(SHAPE).astype(np.float32)
GIDX = np.array([[0, 1], [4, 5], [0, 1]], np.int64)


@pytest.fixture(scope="module")
def tf_slices():
    arrays = {"base": BASE, "gval": GVAL, "w": W, "gidx": GIDX, **VALUES}
    return run_tf_script(TF_SLICES, arrays, {"cases": CASES})


@pytest.mark.parametrize("key,broadcast", CASES)
def test_slice_assign_matches_tensorflow(key, broadcast, tf_slices):
    v = opgen.Variable(BASE)
    v[_key(key)].assign(VALUES[f"{key}|{broadcast}"])
    np.testing.assert_array_equal(v.numpy(), tf_slices[f"var/{key}|{broadcast}"])


def test_slice_update_and_gather_nd_gradients_match_tensorflow(tf_slices):
    x, val = opgen.constant(BASE), opgen.constant(GVAL)
    with opgen.GradientTape() as tape:
        tape.watch(x)
        tape.watch(val)
        y = ops.tensor_strided_slice_update(x, np.int32([1, 0]), np.int32([4, 6]),
                                            np.int32([2, 1]), val)
    gx, gv = tape.gradient(y, [x, val], output_gradients=opgen.constant(W))
    np.testing.assert_array_equal(gx.numpy(), tf_slices["gx"])
    np.testing.assert_allclose(gv.numpy(), tf_slices["gv"], rtol=1e-6)
    var = opgen.Variable(BASE)
    with opgen.GradientTape() as tape:
        g = var.gather_nd(GIDX)
    np.testing.assert_array_equal(g.numpy(), tf_slices["gather"])
    grad = tape.gradient(g, var, output_gradients=opgen.constant(np.full(g.shape, 3, np.float32)))
    np.testing.assert_array_equal(np.asarray(grad), tf_slices["gathergrad"])


def test_slice_assign_errors_are_tensorflows():
    v = opgen.Variable(BASE)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Cannot broadcast input shape \[3,6,4\] into final shape \[2,6,4\]"):
        v[1:3].assign(np.zeros((3, 6, 4), np.float32))
    np.testing.assert_array_equal(v.numpy(), BASE)  # nothing written
    v[2:2].assign(np.zeros((7, 7), np.float32))  # an empty slice takes any value, as TF
    with pytest.raises(errors.InvalidArgumentError, match="strides\\[0\\] must be non-zero"):
        ops.tensor_strided_slice_update(BASE, np.int32([0]), np.int32([1]), np.int32([0]),
                                        np.float32(1))
    with pytest.raises(errors.InvalidArgumentError, match="wrong dtype"):
        ops.resource_strided_slice_assign(v.handle, np.int32([0]), np.int32([1]), np.int32([1]),
                                          np.zeros((1, 6, 4), np.float64))


# ---- scatters ----

SCATTER_ND = ["ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
              "ResourceScatterNdMin", "ResourceScatterNdMax"]
SCATTER = ["ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax"]
DTYPES = [np.float32, np.float64, np.int32, np.int64]


def _scatter_inputs(dtype):
    var = rng.integers(-9, 10, (6, 3)).astype(dtype)
    nd_idx = np.array([[1, 2], [4, 0], [1, 2], [5, 1], [1, 2]], np.int32)  # repeats
    nd_upd = rng.integers(-9, 10, 5).astype(dtype)
    rows = np.array([2, 0, 2, 5, 2], np.int64)
    upd = rng.integers(1, 5, (5, 3)).astype(dtype) * np.where(rng.random((5, 3)) < 0.5, -1, 1).astype(dtype)
    return var, nd_idx, nd_upd, rows, upd


SCATTER_INPUTS = {np.dtype(d).name: _scatter_inputs(d) for d in DTYPES}

TF_SCATTER = textwrap.dedent("""
    import json, sys, numpy as np, tensorflow as tf
    spec = json.load(open(sys.argv[1])); arrays = np.load(sys.argv[2]); out = {}
    for d in spec["dtypes"]:
        var, nd_idx, nd_upd, rows, upd = (arrays[f"{d}/{i}"] for i in range(5))
        for op in spec["nd"]:
            v = tf.Variable(var)
            getattr(tf.raw_ops, op)(ref=v.handle, indices=nd_idx, updates=nd_upd)
            out[f"{d}/{op}"] = v.numpy()
        for op in spec["rows"]:
            v = tf.Variable(var)
            getattr(tf.raw_ops, op)(resource=v.handle, indices=rows, updates=upd)
            out[f"{d}/{op}"] = v.numpy()
            v = tf.Variable(var)
            getattr(tf.raw_ops, op)(resource=v.handle, indices=rows, updates=upd[0, 0])
            out[f"{d}/{op}/scalar"] = v.numpy()
        v = tf.Variable(var)
        v.scatter_nd_update(nd_idx[:2], nd_upd[:2]); v.scatter_nd_add(nd_idx, nd_upd)
        v.scatter_nd_sub(nd_idx[2:], nd_upd[2:])
        out[f"{d}/methods"] = v.numpy()
    np.savez(sys.argv[3], **out)
""")


@pytest.fixture(scope="module")
def tf_scatter():
    arrays = {f"{d}/{i}": a for d, inputs in SCATTER_INPUTS.items() for i, a in enumerate(inputs)}
    return run_tf_script(TF_SCATTER, arrays,
                         {"dtypes": list(SCATTER_INPUTS), "nd": SCATTER_ND, "rows": SCATTER})


def _numpy_scatter(op, var, idx, upd):
    out = var.copy()
    fns = {"Update": lambda a, b: b, "Add": lambda a, b: a + b, "Sub": lambda a, b: a - b,
           "Min": np.minimum, "Max": np.maximum, "Mul": lambda a, b: a * b,
           "Div": lambda a, b: (np.trunc(a / b).astype(a.dtype) if a.dtype.kind == "i"
                                else a / b)}
    fn = fns[op.rsplit("Scatter", 1)[1].removeprefix("Nd")]
    for i, row in enumerate(idx):
        at = tuple(row) if idx.ndim == 2 else row
        out[at] = fn(out[at], upd[i] if np.ndim(upd) else upd)
    return out


@pytest.mark.parametrize("dtype", list(SCATTER_INPUTS))
def test_scatters_with_repeated_indices_match_numpy_and_tensorflow(dtype, tf_scatter):
    var, nd_idx, nd_upd, rows, upd = SCATTER_INPUTS[dtype]
    for op in SCATTER_ND:
        v = opgen.Variable(var)
        opgen.runtime.execute_op(op, [v.handle, nd_idx, nd_upd], {})
        np.testing.assert_array_equal(v.numpy(), _numpy_scatter(op, var, nd_idx, nd_upd), op)
        np.testing.assert_array_equal(v.numpy(), tf_scatter[f"{dtype}/{op}"], op)
    for op in SCATTER:
        v = opgen.Variable(var)
        opgen.runtime.execute_op(op, [v.handle, rows, upd], {})
        np.testing.assert_allclose(v.numpy(), _numpy_scatter(op, var, rows, upd), rtol=1e-6)
        np.testing.assert_allclose(v.numpy(), tf_scatter[f"{dtype}/{op}"], rtol=1e-6, err_msg=op)
        v = opgen.Variable(var)
        opgen.runtime.execute_op(op, [v.handle, rows, upd[0, 0]], {})
        np.testing.assert_allclose(v.numpy(), tf_scatter[f"{dtype}/{op}/scalar"], rtol=1e-6)
    v = opgen.Variable(var)
    v.scatter_nd_update(nd_idx[:2], nd_upd[:2])
    v.scatter_nd_add(nd_idx, nd_upd)
    v.scatter_nd_sub(nd_idx[2:], nd_upd[2:])
    np.testing.assert_array_equal(v.numpy(), tf_scatter[f"{dtype}/methods"])


def test_scatter_errors_are_tensorflows():
    var = np.arange(12.0).reshape(4, 3)
    v = opgen.Variable(var)
    cases = [
        ("ResourceScatterNdUpdate", [[5]], np.ones((1, 3)),
         r"indices\[0\] = \[5\] does not index into shape \[4,3\]"),
        ("ResourceScatterNdAdd", [[1, 7]], np.ones(1),
         r"indices\[0\] = \[1, 7\] does not index into shape \[4,3\]"),
        ("ResourceScatterNdAdd", [[1]], np.ones((2, 3)),
         r"Dimensions \[0,1\) of indices\[shape=\[1,1\]\] = 1 must match dimensions \[0,1\) "
         r"of updates\[shape=\[2,3\]\] = 2"),
        ("ResourceScatterNdSub", [[1]], np.ones((1, 4)),
         r"Dimensions \[1,2\) of input\[shape=\[4,3\]\] must match dimensions \[1,2\) of "
         r"updates\[shape=\[1,4\]\]"),
        ("ResourceScatterMul", np.array([9]), np.ones((1, 3)), r"indices\[0\] = 9 is not in \[0, 4\)"),
    ]
    for op, idx, upd, message in cases:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            opgen.runtime.execute_op(op, [v.handle, np.array(idx, np.int32), upd], {})
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"indices\[0\] = \[9\] does not index into param shape \[4,3\]"):
        ops.resource_gather_nd(v.handle, np.int32([[9]]), dtype=opgen.float64)
    np.testing.assert_array_equal(v.numpy(), var)  # nothing written
    w = opgen.Variable(np.array([[5, 7], [9, -3]], np.int32))
    with pytest.raises(errors.InvalidArgumentError, match="updates must not contain 0"):
        opgen.runtime.execute_op("ResourceScatterDiv",
                                 [w.handle, np.int32([0, 0]), np.int32([[2, 0], [2, 2]])], {})
    np.testing.assert_array_equal(w.numpy(), [[5, 7], [9, -3]])


# ---- AMSGrad ----

TF_AMSGRAD = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    a = np.load(sys.argv[1]); out = {}
    for d in ("float32", "float64"):
        var, m, v, vhat = (tf.Variable(a["var"].astype(d)) for _ in range(4))
        for slot in (m, v, vhat): slot.assign(tf.zeros_like(slot))
        b1, b2 = 0.9, 0.999
        for step in range(4):
            tf.raw_ops.ResourceApplyAdamWithAmsgrad(
                var=var.handle, m=m.handle, v=v.handle, vhat=vhat.handle,
                beta1_power=tf.constant(b1 ** (step + 1), d), beta2_power=tf.constant(b2 ** (step + 1), d),
                lr=tf.constant(0.01, d), beta1=tf.constant(b1, d), beta2=tf.constant(b2, d),
                epsilon=tf.constant(1e-7, d), grad=tf.constant(a[f"g{step}"].astype(d)))
        for name, x in (("var", var), ("m", m), ("v", v), ("vhat", vhat)):
            out[f"{d}/{name}"] = x.numpy()
    np.savez(sys.argv[2], **out)
""")

AMS = {"var": rng.standard_normal((3, 4))}
# large early gradients, then small ones: vhat keeps the early maximum
AMS.update({f"g{s}": rng.standard_normal((3, 4)) * (5.0 if s < 2 else 0.1) for s in range(4)})


def test_amsgrad_steps_match_tensorflow():
    want = run_tf_script(TF_AMSGRAD, AMS)
    for d in ("float32", "float64"):
        var, m, v, vhat = (opgen.Variable(AMS["var"].astype(d)) for _ in range(4))
        for slot in (m, v, vhat):
            slot.assign(np.zeros((3, 4), d))
        b1, b2 = 0.9, 0.999
        for step in range(4):
            scalars = [b1 ** (step + 1), b2 ** (step + 1), 0.01, b1, b2, 1e-7]
            opgen.runtime.execute_op(
                "ResourceApplyAdamWithAmsgrad",
                [var.handle, m.handle, v.handle, vhat.handle,
                 *(np.array(s, d) for s in scalars), AMS[f"g{step}"].astype(d)], {})
        tol = 1e-6 if d == "float32" else 1e-12
        for name, x in (("var", var), ("m", m), ("v", v), ("vhat", vhat)):
            np.testing.assert_allclose(x.numpy(), want[f"{d}/{name}"], rtol=tol, atol=tol,
                                       err_msg=f"{d}/{name}")
        assert np.all(vhat.numpy() >= v.numpy())


# ---- AdagradDA ----

TF_ADAGRAD_DA = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    a = np.load(sys.argv[1]); out = {}
    for d in ("float32", "float64"):
        for l1 in (0.0, 0.05):
            var, acc, sq = (tf.Variable(a[n].astype(d)) for n in ("var", "acc", "sq"))
            svar, sacc, ssq = (tf.Variable(a[n].astype(d)) for n in ("var", "acc", "sq"))
            for step in range(1, 4):
                scal = dict(lr=tf.constant(0.1, d), l1=tf.constant(l1, d), l2=tf.constant(0.02, d),
                            global_step=tf.constant(step, tf.int64))
                tf.raw_ops.ResourceApplyAdagradDA(
                    var=var.handle, gradient_accumulator=acc.handle,
                    gradient_squared_accumulator=sq.handle, grad=a[f"g{step}"].astype(d), **scal)
                tf.raw_ops.ResourceSparseApplyAdagradDA(
                    var=svar.handle, gradient_accumulator=sacc.handle,
                    gradient_squared_accumulator=ssq.handle, grad=a[f"r{step}"].astype(d),
                    indices=a["rows"], **scal)
            for name, x in (("var", var), ("acc", acc), ("sq", sq), ("svar", svar),
                            ("sacc", sacc), ("ssq", ssq)):
                out[f"{d}/{l1}/{name}"] = x.numpy()
    np.savez(sys.argv[2], **out)
""")

DA = {"var": rng.standard_normal((4, 3)), "acc": rng.standard_normal((4, 3)) * 0.1,
      "sq": rng.random((4, 3)) + 0.1, "rows": np.array([2, 0, 2], np.int64)}
DA.update({f"g{s}": rng.standard_normal((4, 3)) for s in range(1, 4)})
DA.update({f"r{s}": rng.standard_normal((3, 3)) for s in range(1, 4)})


def test_adagrad_da_steps_match_tensorflow():
    want = run_tf_script(TF_ADAGRAD_DA, DA)
    for d in ("float32", "float64"):
        for l1 in (0.0, 0.05):
            var, acc, sq, svar, sacc, ssq = (opgen.Variable(DA[n].astype(d))
                                             for n in ("var", "acc", "sq") * 2)
            for step in range(1, 4):
                scalars = [np.array(0.1, d), np.array(l1, d), np.array(0.02, d), np.int64(step)]
                opgen.runtime.execute_op("ResourceApplyAdagradDA",
                                         [var.handle, acc.handle, sq.handle,
                                          DA[f"g{step}"].astype(d), *scalars], {})
                opgen.runtime.execute_op("ResourceSparseApplyAdagradDA",
                                         [svar.handle, sacc.handle, ssq.handle,
                                          DA[f"r{step}"].astype(d), DA["rows"], *scalars], {})
            tol = 1e-5 if d == "float32" else 1e-12
            for name, x in (("var", var), ("acc", acc), ("sq", sq), ("svar", svar),
                            ("sacc", sacc), ("ssq", ssq)):
                np.testing.assert_allclose(x.numpy(), want[f"{d}/{l1}/{name}"], rtol=tol,
                                           atol=tol, err_msg=f"{d}/{l1}/{name}")


def test_adagrad_da_errors_are_tensorflows():
    f = np.float32
    var, acc = opgen.Variable(np.ones((3, 2), f)), opgen.Variable(np.ones((3, 2), f))
    narrow, sq = opgen.Variable(np.ones((3, 1), f)), opgen.Variable(np.ones((3, 2), f))
    good = [f(0.1), f(0.1), f(0.1), np.int64(1)]
    cases = [
        ("ResourceApplyAdagradDA", [var.handle, acc.handle, narrow.handle, np.ones((3, 2), f), *good],
         r"var and accum do not have the same shape\[3,2\] \[3,1\]"),
        ("ResourceApplyAdagradDA", [var.handle, acc.handle, acc.handle, np.ones((2, 2), f), *good],
         None),  # two inputs naming one variable: opgen's refusal
        ("ResourceApplyAdagradDA",
         [var.handle, acc.handle, narrow.handle, np.ones((3, 2), f), *good[:3], np.int64([1])],
         r"global_step is not a scalar: \[1\]"),
        ("ResourceSparseApplyAdagradDA",
         [var.handle, acc.handle, narrow.handle, np.ones((1, 2), f), np.int32([1]), f([0.1]),
          *good[1:]], r"lr is not a scalar: \[1\]"),
        ("ResourceSparseApplyAdagradDA",
         [var.handle, acc.handle, sq.handle, np.ones((1, 2), f), np.int32([7]), *good], r"Index 7 at offset 0 in indices is out of range"),
        ("ResourceSparseApplyAdagradDA",
         [var.handle, acc.handle, sq.handle, np.ones((2, 2), f), np.int32([1]), *good], r"grad must be the same size as indices in the first dimension"),
    ]
    for op, inputs, message in cases:
        with pytest.raises(errors.InvalidArgumentError, match=message):
            opgen.runtime.execute_op(op, inputs, {})
    np.testing.assert_array_equal(var.numpy(), np.ones((3, 2), f))  # nothing written


def test_graph_mode_slice_assign_scatter_nd_and_gather_nd_gradient():
    """In a graph: ResourceStridedSliceAssign / ResourceScatterNdAdd nodes, and
    ResourceGatherNd's registered gradient (ScatterNd of the gradient into the variable's
    shape, repeated rows added up), against numpy."""
    var = np.arange(12.0).reshape(4, 3)
    idx = np.int32([[0, 1], [3, 2], [0, 1]])
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable(var)
        assigned = v[1:3, ::2].assign(np.float64([7, 8]))
        added = v.scatter_nd_add([[0]], np.ones((1, 3)))
        rows = v.gather_nd(idx)
        (grad,) = opgen.gradients(rows * np.float64([1, 2, 3]), [v])
        init = opgen.global_variables_initializer()
    with opgen.Session(graph=g) as s:
        s.run(init)
        want = var.copy()
        want[1:3, ::2] = [7, 8]
        np.testing.assert_array_equal(s.run(assigned), want)
        want[0] += 1
        np.testing.assert_array_equal(s.run(added), want)
        np.testing.assert_array_equal(s.run(rows), want[idx[:, 0], idx[:, 1]])
        dense = np.zeros_like(var)
        np.add.at(dense, (idx[:, 0], idx[:, 1]), [1, 2, 3])
        np.testing.assert_array_equal(np.asarray(s.run(grad)), dense)


TF_BOOL = textwrap.dedent("""
    import sys, numpy as np, tensorflow as tf
    a = np.load(sys.argv[1]); out = {}
    for op in ("ResourceScatterNdAdd", "ResourceScatterNdSub"):
        u = tf.Variable(a["var"])
        getattr(tf.raw_ops, op)(ref=u.handle, indices=a["idx"], updates=a["upd"])
        out[op] = u.numpy()
    np.savez(sys.argv[2], **out)
""")


def test_bool_scatter_nd_add_and_sub_match_tensorflow():
    # every (old, update) pair, and a row updated twice: + is or, - exclusive or
    arrays = {"var": np.array([True, False, True, False, False]),
              "idx": np.int32([[0], [1], [2], [3], [4], [4]]),
              "upd": np.array([True, True, False, False, True, True])}
    want = run_tf_script(TF_BOOL, arrays)
    for op in ("ResourceScatterNdAdd", "ResourceScatterNdSub"):
        v = opgen.Variable(arrays["var"])
        opgen.runtime.execute_op(op, [v.handle, arrays["idx"], arrays["upd"]], {})
        np.testing.assert_array_equal(v.numpy(), want[op], op)


def test_a_variable_slice_is_its_value_elsewhere():
    """``v[key]`` stands for the slice's value: ops (dtype inferred from it, as from a
    Tensor), operators, numpy, Python conversions, gradients; so does ``v`` itself."""
    var = np.arange(6.0).reshape(2, 3)
    v = opgen.Variable(var)
    np.testing.assert_array_equal(ops.add(v[0], 1.0).numpy(), var[0] + 1)
    np.testing.assert_array_equal(ops.add(v, 1.0).numpy(), var + 1)
    np.testing.assert_array_equal((v[1] * v).numpy(), var[1] * var)
    assert v[0].shape == (3,) and v[0].dtype == opgen.float64 and len(v[0]) == 3
    assert float(v[1, 2]) == 5.0 and [float(x) for x in v[1]] == [3.0, 4.0, 5.0]
    np.testing.assert_array_equal(np.asarray(v[:, 1]), var[:, 1])
    with opgen.GradientTape() as tape:
        y = ops.sum(v[1] * 2.0, [0])
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[0, 0, 0], [2, 2, 2]])
