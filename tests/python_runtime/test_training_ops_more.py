"""The TF1 fused optimizer ops (Adadelta, AdagradV2, proximal Adagrad and gradient
descent, centered RMSProp, FTRL, AdaMax, AddSign, PowerSign) and the sparse
ResourceSparseApply* ops against TensorFlow 2.21 running the same ops (tf.raw_ops) on the
same inputs for a few steps, in each float dtype; and their errors, with TensorFlow's
messages. TensorFlow runs in its own interpreter ($OPGEN_TF_PYTHON); those tests skip
without one."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.langs.naming import snake_case
from opgen.runtime import errors
from tf_reference import run_tf_script

STEPS = 3
DTYPES = ["float32", "float64", "float16", "bfloat16"]
DENSE_SHAPE = (4, 5)
SPARSE_SHAPE = (5, 3)
# Repeated rows: each occurrence updates its row again, in order.
SPARSE_INDICES = [0, 2, 2, 4]


@dataclass
class Case:
    name: str
    op: str
    slots: list[str]
    scalars: dict[str, float]
    attrs: dict = field(default_factory=dict)
    grad: str = "grad"
    sparse: bool = False
    index_dtype: str = "int32"
    shape: tuple = DENSE_SHAPE
    dtypes: tuple = tuple(DTYPES)  # those TensorFlow has CPU kernels for


WIDE = ("float32", "float64")
NO_BFLOAT16 = ("float32", "float64", "float16")


def _ftrl_cases(op, sparse, extra=None):
    out = []
    for l1, l2, power, mlr in [(0.0, 0.0, -0.5, False), (0.05, 0.1, -0.5, False),
                               (0.05, 0.1, -0.3, False), (0.02, 0.0, 0.0, False),
                               (0.05, 0.1, -0.5, True), (0.05, 0.1, -0.7, True)]:
        scalars = {"lr": 0.1, "l1": l1, "l2": l2, **(extra or {}), "lr_power": power}
        out.append(Case(f"{op}-l1={l1}-l2={l2}-p={power}-mlr={mlr}", op,
                        ["accum", "linear"], scalars, {"multiply_linear_by_lr": mlr},
                        sparse=sparse, shape=SPARSE_SHAPE if sparse else DENSE_SHAPE,
                        index_dtype="int64" if l1 else "int32"))
    return out


CASES = [
    Case("adadelta", "ResourceApplyAdadelta", ["accum", "accum_update"],
         {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6}),
    *[Case(f"adagrad_v2-update_slots={u}", "ResourceApplyAdagradV2", ["accum"],
           {"lr": 0.1, "epsilon": 0.01}, {"update_slots": u}) for u in (True, False)],
    Case("proximal_adagrad-no-l1-l2", "ResourceApplyProximalAdagrad", ["accum"],
         {"lr": 0.1, "l1": 0.0, "l2": 0.0}, dtypes=WIDE),
    Case("proximal_adagrad", "ResourceApplyProximalAdagrad", ["accum"],
         {"lr": 0.1, "l1": 0.05, "l2": 0.2}, dtypes=WIDE),
    Case("proximal_gd-no-l1-l2", "ResourceApplyProximalGradientDescent", [],
         {"alpha": 0.1, "l1": 0.0, "l2": 0.0}, grad="delta", dtypes=WIDE),
    Case("proximal_gd", "ResourceApplyProximalGradientDescent", [],
         {"alpha": 0.1, "l1": 0.05, "l2": 0.2}, grad="delta", dtypes=WIDE),
    Case("centered_rmsprop", "ResourceApplyCenteredRMSProp", ["mg", "ms", "mom"],
         {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}),
    *_ftrl_cases("ResourceApplyFtrl", False),
    *_ftrl_cases("ResourceApplyFtrlV2", False, {"l2_shrinkage": 0.05}),
    Case("adamax", "ResourceApplyAdaMax", ["m", "v"],
         {"beta1_power": 0.9, "lr": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7},
         dtypes=NO_BFLOAT16),
    Case("add_sign", "ResourceApplyAddSign", ["m"],
         {"lr": 0.1, "alpha": 1.0, "sign_decay": 0.5, "beta": 0.9}),
    Case("power_sign", "ResourceApplyPowerSign", ["m"],
         {"lr": 0.1, "logbase": float(np.log(2.0)), "sign_decay": 0.5, "beta": 0.9}),
    # sparse
    *[Case(f"sparse_adagrad-update_slots={u}", "ResourceSparseApplyAdagrad", ["accum"],
           {"lr": 0.1}, {"update_slots": u}, sparse=True, shape=SPARSE_SHAPE,
           index_dtype="int64" if u else "int32") for u in (True, False)],
    Case("sparse_adagrad-1d", "ResourceSparseApplyAdagrad", ["accum"], {"lr": 0.1},
         sparse=True, shape=(6,)),
    Case("sparse_adagrad_v2", "ResourceSparseApplyAdagradV2", ["accum"],
         {"lr": 0.1, "epsilon": 0.01}, sparse=True, shape=SPARSE_SHAPE),
    *[Case(f"sparse_{kind}-nesterov={n}", op, ["accum"], {"lr": 0.1, "momentum": 0.9},
           {"use_nesterov": n}, sparse=True, shape=SPARSE_SHAPE,
           index_dtype="int64" if n else "int32")
      for kind, op in [("momentum", "ResourceSparseApplyMomentum"),
                       ("keras_momentum", "ResourceSparseApplyKerasMomentum")]
      for n in (False, True)],
    Case("sparse_rmsprop", "ResourceSparseApplyRMSProp", ["ms", "mom"],
         {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, sparse=True,
         shape=SPARSE_SHAPE, index_dtype="int64", dtypes=NO_BFLOAT16),
    Case("sparse_adadelta", "ResourceSparseApplyAdadelta", ["accum", "accum_update"],
         {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6}, sparse=True, shape=SPARSE_SHAPE),
    Case("sparse_centered_rmsprop", "ResourceSparseApplyCenteredRMSProp", ["mg", "ms", "mom"],
         {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, sparse=True,
         shape=SPARSE_SHAPE, index_dtype="int64", dtypes=NO_BFLOAT16),
    *[Case(f"sparse_proximal_adagrad-l1={l1}", "ResourceSparseApplyProximalAdagrad", ["accum"],
           {"lr": 0.1, "l1": l1, "l2": l2}, sparse=True, shape=SPARSE_SHAPE, dtypes=WIDE)
      for l1, l2 in ((0.0, 0.0), (0.05, 0.2))],
    *[Case(f"sparse_proximal_gd-l1={l1}", "ResourceSparseApplyProximalGradientDescent", [],
           {"alpha": 0.1, "l1": l1, "l2": l2}, sparse=True, shape=SPARSE_SHAPE, dtypes=WIDE,
           index_dtype="int64")
      for l1, l2 in ((0.0, 0.0), (0.05, 0.2))],
    *_ftrl_cases("ResourceSparseApplyFtrl", True),
    *_ftrl_cases("ResourceSparseApplyFtrlV2", True, {"l2_shrinkage": 0.05}),
]
RUNS = [pytest.param(c, dt, id=f"{c.name}-{dt}") for c in CASES for dt in c.dtypes]

# Run by TensorFlow's interpreter: argv[1] the cases (JSON), argv[2] the inputs (.npz, all
# float32/float64: 16-bit values are exact in float32), argv[3] the results.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    spec = json.load(open(sys.argv[1]))
    data, out = dict(np.load(sys.argv[2])), {}
    for case in spec["cases"]:
        for dt in case["dtypes"]:
            key = case["name"] + "/" + dt
            wide = tf.float64 if dt == "float64" else tf.float32
            names = ["var"] + case["slots"]
            v = {n: tf.Variable(tf.cast(data[key + "/" + n], dt)) for n in names}
            for step in range(data[key + "/grads"].shape[0]):
                kw = {n: v[n].handle for n in names}
                kw.update({k: tf.cast(tf.constant(x, wide), dt)
                           for k, x in case["scalars"].items()})
                kw[case["grad"]] = tf.cast(data[key + "/grads"][step], dt)
                if case["sparse"]:
                    kw["indices"] = tf.constant(data[key + "/indices"])
                getattr(tf.raw_ops, case["op"])(**kw, **case["attrs"])
            for n in names:
                out[key + "/" + n] = tf.cast(v[n], wide).numpy()
    np.savez(sys.argv[3], **out)
""")


def _inputs(case: Case, dt: str, rng) -> dict[str, np.ndarray]:
    wide = np.float64 if dt == "float64" else np.float32
    rows = len(SPARSE_INDICES)
    grad_shape = (rows, *case.shape[1:]) if case.sparse else case.shape

    def exact(a):  # values the dtype holds exactly
        return np.asarray(_to_wide(_to_dtype(a.astype(wide), dt)), wide)

    data = {"var": exact(rng.uniform(-1, 1, case.shape))}
    for slot in case.slots:
        low, high = {"mg": (-0.1, 0.1), "linear": (-1, 1)}.get(slot, (0.1, 0.5))
        data[slot] = exact(rng.uniform(low, high, case.shape))
    data["grads"] = exact(rng.uniform(-1, 1, (STEPS, *grad_shape)))
    if case.sparse:
        data["indices"] = np.asarray(SPARSE_INDICES, case.index_dtype)
    return data


def _to_dtype(a, dt):
    if dt in ("float32", "float64"):
        return np.asarray(a, dt)
    return ops.cast(np.asarray(a, np.float32), DstT=getattr(opgen, dt))


def _to_wide(x):
    t = x.read_value() if isinstance(x, opgen.Variable) else x
    if isinstance(t, np.ndarray):
        return t
    if t.dtype in (opgen.float16, opgen.bfloat16):
        t = ops.cast(t, DstT=opgen.float32)
    return t.numpy()


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(2021)
    return {(c.name, dt): _inputs(c, dt, rng) for c in CASES for dt in c.dtypes}


@pytest.fixture(scope="module")
def tensorflow_results(inputs):
    arrays = {f"{name}/{dt}/{k}": v for (name, dt), d in inputs.items() for k, v in d.items()}
    spec = {"cases": [{"name": c.name, "op": c.op, "slots": c.slots, "scalars": c.scalars,
                       "attrs": c.attrs, "grad": c.grad, "sparse": c.sparse,
                       "dtypes": list(c.dtypes)} for c in CASES]}
    return run_tf_script(TF_SCRIPT, arrays, spec)


def _run(case: Case, dt: str, data: dict) -> dict[str, np.ndarray]:
    names = ["var", *case.slots]
    variables = {n: opgen.Variable(_to_dtype(data[n], dt)) for n in names}
    op = getattr(ops, snake_case(case.op))
    for step in range(STEPS):
        kw = {n: variables[n].handle for n in names}
        kw.update({k: _to_dtype(np.asarray(x, np.float64 if dt == "float64" else np.float32), dt)
                   for k, x in case.scalars.items()})
        kw[case.grad] = _to_dtype(data["grads"][step], dt)
        if case.sparse:
            kw["indices"] = data["indices"]
        op(**kw, **case.attrs)
    return {n: _to_wide(variables[n]) for n in names}


# float32/float64: the same formulas, a few ulps apart where TensorFlow's Eigen kernels take
# vectorized shortcuts (rsqrt, pow, exp). 16-bit: TensorFlow rounds after every operation,
# opgen computes in float32 and rounds each stored result once, so they drift apart by a
# few 16-bit ulps over the steps.
TOLERANCE = {"float32": (2e-5, 2e-6), "float64": (1e-12, 1e-14),
             "float16": (1e-2, 3e-3), "bfloat16": (6e-2, 2e-2)}


@pytest.mark.parametrize("case, dt", RUNS)
def test_matches_tensorflow(case, dt, inputs, tensorflow_results):
    got = _run(case, dt, inputs[(case.name, dt)])
    rtol, atol = TOLERANCE[dt]
    for n, value in got.items():
        want = tensorflow_results[f"{case.name}/{dt}/{n}"]
        # FTRL's `linear` sums terms larger than itself: 16-bit cancellation errors scale
        # with the values' magnitude, not with the result's.
        scale = max(1.0, float(np.abs(want).max())) if dt in ("float16", "bfloat16") else 1.0
        np.testing.assert_allclose(value, want, rtol=rtol, atol=atol * scale,
                                   err_msg=f"{n} ({dt})")


def test_sparse_updates_only_the_named_rows_and_repeats_apply_in_order():
    var0 = np.arange(12, dtype=np.float32).reshape(4, 3)
    var, accum = opgen.Variable(var0), opgen.Variable(np.zeros((4, 3), np.float32))
    grad = np.ones((3, 3), np.float32)
    ops.resource_sparse_apply_momentum(var.handle, accum.handle, np.float32(0.5), grad,
                                       np.array([3, 1, 3], np.int64), np.float32(0.5))
    # row 3: accum 1 then 1.5; var -= 0.5 * 1 then 0.5 * 1.5. Rows 0 and 2 untouched.
    want = var0.copy()
    want[1] -= 0.5
    want[3] -= 0.5 + 0.75
    np.testing.assert_array_equal(var.numpy(), want)
    np.testing.assert_array_equal(accum.numpy()[[0, 2]], np.zeros((2, 3)))


def test_wide_rows_split_over_the_cores_keep_repeated_indices_in_order():
    # 50000 columns: the CPU kernel splits them over threads, each walking all indices.
    rng = np.random.default_rng(3)
    var0 = rng.uniform(-1, 1, (3, 50000))
    accum0 = rng.uniform(0, 1, (3, 50000))
    grad = rng.uniform(-1, 1, (4, 50000))
    indices = np.array([2, 0, 2, 2], np.int32)
    var, accum = opgen.Variable(var0), opgen.Variable(accum0)
    ops.resource_sparse_apply_momentum(var.handle, accum.handle, np.float64(0.1), grad, indices,
                                       np.float64(0.9))
    want_var, want_accum = var0.copy(), accum0.copy()
    for j, row in enumerate(indices):
        want_accum[row] = want_accum[row] * 0.9 + grad[j]
        want_var[row] -= 0.1 * want_accum[row]
    np.testing.assert_allclose(var.numpy(), want_var, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(accum.numpy(), want_accum, rtol=1e-14, atol=1e-15)


# ---- errors: TensorFlow's messages (tests/… probed against TensorFlow 2.21) -------------

def _f(*a):
    return np.asarray(a[0] if len(a) == 1 else a, np.float32)


def _vars(*shapes):
    return [opgen.Variable(np.ones(s, np.float32)) for s in shapes]


def _ftrl(op, var_shapes=((3,), (3,), (3,)), grad=None, **over):
    v = _vars(*var_shapes)
    kw = {"var": v[0].handle, "accum": v[1].handle, "linear": v[2].handle,
          "grad": grad if grad is not None else np.ones(var_shapes[0], np.float32),
          "lr": _f(1.0), "l1": _f(0.0), "l2": _f(0.0), "lr_power": _f(-0.5)}
    if "V2" in op:
        kw["l2_shrinkage"] = _f(0.0)
    if "Sparse" in op:
        kw["indices"] = np.array([0], np.int32)
    kw.update(over)
    getattr(ops, snake_case(op))(**kw)


@pytest.mark.parametrize("over, message", [
    ({"lr": _f([1.0])}, r"lr is not a scalar: \[1\]"),
    ({"l1": _f([1.0])}, r"l1 regularization strength is not a scalar: \[1\]"),
    ({"l2": _f([1.0])}, r"l2 regularization strength is not a scalar: \[1\]"),
    ({"l2_shrinkage": _f([1.0])},
     r"l2 shrinkage regularization strength is not a scalar: \[1\]"),
    ({"lr_power": _f([1.0])}, r"lr_power is not a scalar"),
    ({"grad": np.ones(2, np.float32)}, r"var and grad do not have the same shape\[3\] \[2\]"),
])
def test_dense_ftrl_errors(over, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _ftrl("ResourceApplyFtrlV2", **over)


def test_dense_ftrl_takes_any_scalar_values_as_tensorflow_does():
    # TensorFlow's dense FTRL kernels check shapes only: a negative l1 runs.
    _ftrl("ResourceApplyFtrl", l1=_f(-1.0), lr=_f(-1.0))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and linear do not have the same shape\[3\] \[2\]"):
        _ftrl("ResourceApplyFtrl", var_shapes=((3,), (3,), (2,)))


@pytest.mark.parametrize("over, message", [
    ({"lr": _f(-1.0)},
     r"lr is not a positive scalar \(or zero if multiply_linear_by_lr is set\): \[\]"),
    ({"lr": _f(0.0)}, r"lr is not a positive scalar \(or zero"),
    ({"l1": _f(-1.0)}, r"l1 regularization strength is not a non-negative scalar: \[\]"),
    ({"l2": _f([1.0])}, r"l2 regularization strength is not a non-negative scalar: \[1\]"),
    ({"l2_shrinkage": _f(-1.0)},
     r"l2 shrinkage regularization strength is not a non-negative scalar: \[\]"),
    ({"lr_power": _f(0.5)}, r"lr_power is not a non-positive scalar: \[\]"),
])
def test_sparse_ftrl_checks_values(over, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _ftrl("ResourceSparseApplyFtrlV2", var_shapes=((4, 2),) * 3,
              grad=np.ones((1, 2), np.float32), **over)


def test_sparse_ftrl_lr_zero_is_allowed_with_multiply_linear_by_lr():
    _ftrl("ResourceSparseApplyFtrl", var_shapes=((4, 2),) * 3,
          grad=np.ones((1, 2), np.float32), lr=_f(0.0), multiply_linear_by_lr=True)


def test_proximal_errors():
    var, accum = _vars((3,), (3,))
    g = np.ones(3, np.float32)
    with pytest.raises(errors.InvalidArgumentError, match=r"lr is not a positive scalar: \[\]"):
        ops.resource_apply_proximal_adagrad(var.handle, accum.handle, _f(0.0), _f(0.0),
                                            _f(0.0), g)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"l1 regularization strength is not a non-negative scalar: \[1\]"):
        ops.resource_apply_proximal_adagrad(var.handle, accum.handle, _f(1.0), _f([0.0]),
                                            _f(0.0), g)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"l2 regularization strength is not a non-negative scalar: \[\]"):
        ops.resource_apply_proximal_adagrad(var.handle, accum.handle, _f(1.0), _f(0.0),
                                            _f(-1.0), g)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"l1 regularization strength is not a scalar: \[1\]"):
        ops.resource_apply_proximal_gradient_descent(var.handle, _f(1.0), _f([1.0]), _f(1.0), g)
    with pytest.raises(errors.InvalidArgumentError, match=r"alpha is not a scalar: \[1\]"):
        ops.resource_apply_proximal_gradient_descent(var.handle, _f([1.0]), _f(1.0), _f(1.0), g)
    rows, racc = _vars((4, 3), (4, 3))
    one = np.ones((1, 3), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match=r"lr is not a positive scalar: \[1\]"):
        ops.resource_sparse_apply_proximal_adagrad(rows.handle, racc.handle, _f([1.0]), _f(0.0),
                                                   _f(0.0), one, np.int32([0]))
    with pytest.raises(errors.InvalidArgumentError, match=r"lr is not a scalar: \[1\]"):
        ops.resource_sparse_apply_proximal_gradient_descent(rows.handle, _f([1.0]), _f(0.0),
                                                            _f(0.0), one, np.int32([0]))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Index 7 at offset 0 in indices is out of range"):
        ops.resource_sparse_apply_proximal_gradient_descent(rows.handle, _f(1.0), _f(0.0),
                                                            _f(0.0), one, np.int32([7]))
    # negative l1 is fine for the proximal gradient descent kernel (no value checks)
    ops.resource_apply_proximal_gradient_descent(var.handle, _f(1.0), _f(-1.0), _f(1.0), g)


def test_dense_shape_errors():
    var, a, b, c = _vars((3,), (3,), (3,), (2,))
    g = np.ones(3, np.float32)
    with pytest.raises(errors.InvalidArgumentError, match=r"rho is not a scalar: \[1\]"):
        ops.resource_apply_adadelta(var.handle, a.handle, b.handle, _f(1.0), _f([1.0]),
                                    _f(1.0), g)
    with pytest.raises(errors.InvalidArgumentError, match=r"epsilon is not a scalar: \[1\]"):
        ops.resource_apply_adagrad_v2(var.handle, a.handle, _f(1.0), _f([1.0]), g)
    with pytest.raises(errors.InvalidArgumentError, match=r"beta1_power is not a scalar: \[1\]"):
        ops.resource_apply_ada_max(var.handle, a.handle, b.handle, _f([1.0]), *[_f(1.0)] * 4, g)
    with pytest.raises(errors.InvalidArgumentError, match=r"alpha is not a scalar: \[1\]"):
        ops.resource_apply_add_sign(var.handle, a.handle, _f(1.0), _f([1.0]), _f(1.0),
                                    _f(1.0), g)
    with pytest.raises(errors.InvalidArgumentError, match=r"logbase is not a scalar: \[1\]"):
        ops.resource_apply_power_sign(var.handle, a.handle, _f(1.0), _f([1.0]), _f(1.0),
                                      _f(1.0), g)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and mg do not have the same shape\[3\]"):
        ops.resource_apply_centered_rms_prop(var.handle, c.handle, a.handle, b.handle,
                                             *[_f(1.0)] * 4, g)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"var and grad do not have the same shape\[3\] \[2\]"):
        ops.resource_apply_adagrad_v2(var.handle, a.handle, _f(1.0), _f(1.0), g[:2])
    np.testing.assert_array_equal(var.numpy(), np.ones(3))  # nothing changed


def _sparse_adagrad(var_shape=(4, 2), accum_shape=None, grad_shape=(2, 2), indices=(0, 1),
                    lr=None):
    var, accum = _vars(var_shape, accum_shape or var_shape)
    ops.resource_sparse_apply_adagrad(var.handle, accum.handle,
                                      lr if lr is not None else _f(1.0),
                                      np.ones(grad_shape, np.float32),
                                      np.asarray(indices, np.int32))
    return var


@pytest.mark.parametrize("kw, message", [
    ({"indices": (0, 7)}, r"Index 7 at offset 1 in indices is out of range"),
    ({"indices": (-1, 0)}, r"Index -1 at offset 0 in indices is out of range"),
    ({"indices": ((0, 1),)}, r"indices must be one-dimensional"),
    ({"grad_shape": (3, 2)}, r"grad must be the same size as indices in the first dimension\."),
    ({"grad_shape": (2, 3)}, r"var and grad must match in dimension 1"),
    ({"grad_shape": (2, 2, 1)}, r"grad must have the same number of dimensions as var"),
    ({"lr": _f([1.0])}, r"lr is not a scalar: \[1\]"),
    ({"accum_shape": (4, 3)}, r"var and accum do not have the same shape\[4,2\] \[4,3\]"),
    ({"var_shape": (), "grad_shape": (2,)}, r"var must be at least 1 dimensional"),
])
def test_sparse_errors(kw, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _sparse_adagrad(**kw)


def test_sparse_bad_index_changes_nothing_and_keras_momentum_words_it_its_way():
    var, accum = _vars((4, 2), (4, 2))
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 4\)"):
        ops.resource_sparse_apply_keras_momentum(var.handle, accum.handle, _f(1.0),
                                                 np.ones((2, 2), np.float32),
                                                 np.array([0, 7], np.int64), _f(0.9))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Index 7 at offset 1 in indices is out of range"):
        ops.resource_sparse_apply_momentum(var.handle, accum.handle, _f(1.0),
                                           np.ones((2, 2), np.float32),
                                           np.array([0, 7], np.int64), _f(0.9))
    np.testing.assert_array_equal(var.numpy(), np.ones((4, 2)))
    np.testing.assert_array_equal(accum.numpy(), np.ones((4, 2)))


def test_empty_indices_change_nothing():
    var = _sparse_adagrad(grad_shape=(0, 2), indices=np.zeros(0, np.int32))
    np.testing.assert_array_equal(var.numpy(), np.ones((4, 2)))
