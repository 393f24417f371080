"""StatelessMultinomial, StatelessRandomUniformFullInt (v1), StatelessShuffle,
StatelessRandomGammaV2/V3, StatelessRandomPoisson, StatelessRandomBinomial and
StatelessParameterizedTruncatedNormal against
TensorFlow 2.21 bit for bit, over seeds, shapes and dtypes, and their errors; run
eagerly through the same TensorFlow child as test_random_ops (skipped without it)."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import errors, execute_op
from test_random_ops import _as_list, _dec, _opgen_attrs, _opgen_inputs, _same, _tf

SEEDS = [[1, 2], [-7, 123456789], [0, 0], [2**40 + 3, -(2**50)]]


def _calls() -> list:
    calls = []
    logits = [[1.0, 2.0, 0.5, -1.0], [0.0, 0.0, 0.0, 0.0], [-3.0, float("-inf"), 2.0, 7.5]]
    for seed in SEEDS:
        for dt in ("float32", "float64", "float16"):
            for out in ("int32", "int64"):
                for samples in (1, 5, 8, 0):
                    calls.append({"kind": "eager", "op": "StatelessMultinomial", "attrs": {"output_dtype": out},
                                  "inputs": {"logits": (logits, dt), "num_samples": (samples, "int32"),
                                             "seed": (seed, "int64")}})
        calls.append({"kind": "eager", "op": "StatelessMultinomial", "attrs": {},
                      "inputs": {"logits": ([[0.25] * 37], "float32"), "num_samples": (41, "int32"),
                                 "seed": ([s % 2**31 for s in seed], "int32")}})
        for shape in ([5], [3, 7], [0], [2, 2, 3], [257]):
            for dt in ("int32", "int64", "uint32", "uint64"):
                calls.append({"kind": "eager", "op": "StatelessRandomUniformFullInt", "attrs": {"dtype": dt},
                              "inputs": {"shape": (shape, "int32"), "seed": (seed, "int64")}})
    for key, counter in (([7], [0, 0]), ([2**63 + 5], [2**64 - 3, 11])):
        for alg in (1, 3):
            for value, dt in ((list(range(10)), "int32"), ([[1.5, 2.5], [3.5, 4.5], [5.5, 6.5]], "float64"),
                              (list(range(1000)), "int64"), ([7], "uint8"), ([], "float32"),
                              ([[1, 2, 3]], "int16"), ([True, False, False, True, True], "bool")):
                calls.append({"kind": "eager", "op": "StatelessShuffle", "attrs": {},
                              "inputs": {"value": (value, dt), "key": (key, "uint64"),
                                         "counter": (counter, "uint64"), "alg": (alg, "int32")}})
    for seed in SEEDS[:3]:
        for dt in ("float32", "float64", "float16"):
            for shape, alpha in (([3, 1], [0.5]), ([4, 3], [1.0, 0.3, 7.5]), ([2, 2, 2], [[0.01, 2.0], [1e-4, 50.0]]),
                                 ([0, 3], [1.0, 2.0, 3.0]), ([6], []),
                                 ([3, 5], [0.0, -0.5, -1.0, float("nan"), float("inf")])):
                a = alpha if shape != [6] else 2.5
                calls.append({"kind": "eager", "op": "StatelessRandomGammaV2", "attrs": {},
                              "inputs": {"shape": (shape, "int32"), "seed": (seed, "int64"), "alpha": (a, dt)}})
    rates = [0.5, 3.0, 9.99, 10.0, 37.5, 1e4, 0.0, -2.0, float("inf"), 2e9]
    for seed in SEEDS[:3]:
        for rt in ("float32", "float64", "float16", "int32", "int64"):
            for out in ("float32", "float64", "float16", "int32", "int64"):
                r = [x for x in rates if rt.startswith("float") or (abs(x) < 2**31 and x == int(x))]
                if rt == "float16":
                    r = [x for x in r if abs(x) < 6e4]
                if rt.startswith("int"):
                    r = [int(x) for x in r]
                if out == "float16" or out.startswith("int"):
                    r = [x for x in r if x != 2e9]  # counts past the type's range: undefined in TensorFlow
                calls.append({"kind": "eager", "op": "StatelessRandomPoisson", "attrs": {"dtype": out},
                              "inputs": {"shape": ([4, len(r)], "int32"), "seed": (seed, "int64"),
                                         "lam": (r, rt)}})
    counts = [5.0, 40.0, 1000.0, 0.0, 7.0, 100.0, 3.0, 2.5e6]
    probs = [0.3, 0.5, 0.01, 0.5, 1.0, 0.93, -0.1, 0.999]
    for seed in SEEDS[:3]:
        for t in ("float32", "float64", "float16"):
            for out in ("float32", "float64", "int32", "int64", "float16"):
                c = counts if t != "float16" else counts[:-1]
                calls.append({"kind": "eager", "op": "StatelessRandomBinomial", "attrs": {"dtype": out},
                              "inputs": {"shape": ([3, len(c)], "int32"), "seed": (seed, "int64"),
                                         "counts": (c, t), "probs": (probs[:len(c)], t)}})
        # broadcasting: counts [2, 1] against probs [3]
        calls.append({"kind": "eager", "op": "StatelessRandomBinomial", "attrs": {"dtype": "int32"},
                      "inputs": {"shape": ([4, 2, 3], "int64"), "seed": (seed, "int64"),
                                 "counts": ([[10.0], [300.0]], "float64"), "probs": ([0.2, 0.6, 0.05], "float64")}})
        calls.append({"kind": "eager", "op": "StatelessRandomBinomial", "attrs": {"dtype": "float64"},
                      "inputs": {"shape": ([2, 3], "int32"), "seed": (seed, "int64"),
                                 "counts": ([10.0, 20.0, 30.0], "float64"), "probs": ([float("nan")], "float64")}})
    # each sampler: normals (wide bounds), uniforms (narrow), exponential (a far tail), mirrored
    params = ([0.0, 1.0, 5.0, -2.0, 0.0, 3.0], [1.0, 2.0, 0.5, 1.0, 1.0, 1.5],
              [-1.0, -10.0, 5.1, 2.5, float("-inf"), -5.0], [1.0, 10.0, 5.2, 4.0, -3.0, 9.5])
    for seed in SEEDS[:3]:
        for dt in ("float32", "float64"):
            calls.append({"kind": "eager", "op": "StatelessParameterizedTruncatedNormal", "attrs": {},
                          "inputs": {"shape": ([7, 6], "int32"), "seed": (seed, "int64"),
                                     "means": (params[0], dt), "stddevs": (params[1], dt),
                                     "minvals": (params[2], dt), "maxvals": (params[3], dt)}})
            calls.append({"kind": "eager", "op": "StatelessParameterizedTruncatedNormal", "attrs": {},
                          "inputs": {"shape": ([3, 2, 4], "int64"), "seed": (seed, "int64"),
                                     "means": ([[0.5], [-1.0]], dt), "stddevs": (2.0, dt),
                                     "minvals": ([-1.0, 0.0, 1.0, 8.0], dt), "maxvals": (10.0, dt)}})
    for key, counter in (([7], [0, 0]), ([2**63 + 5], [2**64 - 3, 11])):
        for dt in ("float32", "float64"):
            calls.append({"kind": "eager", "op": "StatelessRandomGammaV3", "attrs": {},
                          "inputs": {"shape": ([3, 4], "int64"), "key": (key, "uint64"),
                                     "counter": (counter, "uint64"), "alg": (1, "int32"),
                                     "alpha": ([0.2, 1.0, 3.0, 0.9], dt)}})
    return calls


@pytest.fixture(scope="module")
def reference():
    calls = _calls()
    return calls, _tf(calls)


def test_match_tensorflow_bit_for_bit(reference):
    calls, results = reference
    for call, want in zip(calls, results):
        what = f"{call['op']} {call['attrs']} {call['inputs']}"
        assert not isinstance(want, str), (what, want)
        got = _as_list(execute_op(call["op"], _opgen_inputs(call), _opgen_attrs(call)))
        assert len(got) == len(want), what
        for g, w in zip(got, want):
            _same(g, _dec(w), what)


def test_errors_are_tensorflows():
    logits = np.float32([[1.0, 2.0]])
    with pytest.raises(errors.InvalidArgumentError, match=r"seed must have shape \[2\], not \[3\]"):
        execute_op("StatelessMultinomial", [logits, np.int32(3), np.int64([1, 2, 3])], {})
    with pytest.raises(errors.InvalidArgumentError, match="logits should be a matrix"):
        execute_op("StatelessMultinomial", [np.float32([1.0]), np.int32(3), np.int64([1, 2])], {})
    with pytest.raises(errors.InvalidArgumentError, match="Invalid seed type: uint32"):
        execute_op("StatelessRandomUniformFullInt", [np.int32([3]), np.uint32([1, 2])], {})
    # an empty output draws nothing and refuses nothing, as in TensorFlow
    assert np.asarray(_as_list(execute_op("StatelessRandomUniformFullInt",
                                          [np.int32([0]), np.uint32([1, 2])], {}))[0]).shape == (0,)
    with pytest.raises(errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape"):
        execute_op("StatelessRandomGammaV2", [np.int32([5]), np.int64([1, 2]), np.float32([0.5])], {})
    with pytest.raises(errors.InvalidArgumentError, match="Unsupported algorithm id: 2"):
        execute_op("StatelessShuffle", [np.int32([1, 2, 3]), np.uint64([1]), np.uint64([1, 2]), np.int32(2)], {})


_GAMMA_GRAD_TF = r"""
import json, sys
import numpy as np
import tensorflow as tf
out = []
for dt in ("float64", "float32"):
    a = tf.constant(np.array([0.5, 2.0, 7.0], dt))
    with tf.GradientTape(persistent=True) as t:
        t.watch(a)
        y2 = tf.raw_ops.StatelessRandomGammaV2(shape=tf.constant([4, 3]), seed=tf.constant([1, 2], tf.int64), alpha=a)
        loss = tf.reduce_sum(y2 * np.arange(12, dtype=dt).reshape(4, 3))
        y3 = tf.raw_ops.StatelessRandomGammaV3(shape=tf.constant([2, 5, 3], tf.int64), key=tf.constant([7], tf.uint64),
                                               counter=tf.constant([0, 9], tf.uint64), alg=tf.constant(1), alpha=a)
    out.append([t.gradient(loss, a).numpy().tolist(), t.gradient(y3, a).numpy().tolist()])
print(json.dumps(out))
"""


def test_gamma_gradients_match_tensorflow():
    """d/d alpha through RandomGammaGrad, summed over the sample dims, as TensorFlow's
    gradient; float64 to rounding, float32 to RandomGammaGrad's float32 differences."""
    import json

    import opgen
    from opgen import ops
    from tf_reference import run_tf, tf_env
    want = json.loads(run_tf(["-c", _GAMMA_GRAD_TF], env=tf_env(CUDA_VISIBLE_DEVICES="")).stdout)
    for (want2, want3), dt, rtol in zip(want, (np.float64, np.float32), (1e-12, 1e-5)):
        a = opgen.constant(np.array([0.5, 2.0, 7.0], dt))
        with opgen.GradientTape(persistent=True) as t:
            t.watch(a)
            y2 = ops.stateless_random_gamma_v2(np.int32([4, 3]), np.int64([1, 2]), a)
            loss = ops.sum(ops.mul(y2, np.arange(12, dtype=dt).reshape(4, 3)), np.int32([0, 1]))
            y3 = ops.stateless_random_gamma_v3(np.int64([2, 5, 3]), np.uint64([7]), np.uint64([0, 9]),
                                               np.int32(1), a)
        np.testing.assert_allclose(t.gradient(loss, a).numpy(), want2, rtol=rtol)
        np.testing.assert_allclose(t.gradient(y3, a).numpy(), want3, rtol=rtol)


def test_nan_parameters_give_nan_where_tensorflow_never_returns():
    """TensorFlow 2.21 loops forever on a NaN Poisson rate or a NaN binomial count (its
    rejection / inversion loops never end): here they give NaN, integers the lowest value."""
    seed = np.int64([1, 2])
    y = _as_list(execute_op("StatelessRandomPoisson", [np.int32([3, 2]), seed, np.float64([np.nan, 4.0])],
                            {"dtype": np.float64}))[0]
    y = np.asarray(y)
    assert np.isnan(y[:, 0]).all() and (y[:, 1] >= 0).all()
    y = np.asarray(_as_list(execute_op("StatelessRandomPoisson", [np.int32([3, 1]), seed, np.float32([np.nan])],
                                       {"dtype": np.int32}))[0])
    assert (y == np.iinfo(np.int32).min).all()
    y = np.asarray(_as_list(execute_op("StatelessRandomBinomial", [np.int32([3, 1]), seed, np.float64([np.nan]),
                                                                   np.float64([0.3])], {"dtype": np.float64}))[0])
    assert np.isnan(y).all()


_PTN_GRAD_TF = r"""
import json
import numpy as np
import tensorflow as tf
out = []
for dt in ("float64", "float32"):
    p = [tf.constant(np.array(v, dt)) for v in ([[0.5], [-1.0]], 2.0, [-1.0, 0.0, 1.0, 8.0], 10.0)]
    with tf.GradientTape() as t:
        t.watch(p)
        y = tf.raw_ops.StatelessParameterizedTruncatedNormal(shape=tf.constant([3, 2, 4]),
                                                             seed=tf.constant([1, 2], tf.int64),
                                                             means=p[0], stddevs=p[1], minvals=p[2], maxvals=p[3])
        loss = tf.reduce_sum(y * np.arange(24, dtype=dt).reshape(3, 2, 4))
    out.append([g.numpy().tolist() for g in t.gradient(loss, p)])
print(json.dumps(out))
"""


def test_parameterized_truncated_normal_gradients_match_tensorflow():
    """TensorFlow's implicit-reparameterization gradient for all four parameters, summed
    to their (broadcast) shapes."""
    import json

    import opgen
    from opgen import ops
    from tf_reference import run_tf, tf_env
    want = json.loads(run_tf(["-c", _PTN_GRAD_TF], env=tf_env(CUDA_VISIBLE_DEVICES="")).stdout)
    for grads, dt, rtol in zip(want, (np.float64, np.float32), (1e-12, 1e-5)):
        p = [opgen.constant(np.array(v, dt)) for v in ([[0.5], [-1.0]], 2.0, [-1.0, 0.0, 1.0, 8.0], 10.0)]
        with opgen.GradientTape() as t:
            for v in p:
                t.watch(v)
            y = ops.stateless_parameterized_truncated_normal(np.int32([3, 2, 4]), np.int64([1, 2]), *p)
            loss = ops.sum(ops.mul(y, np.arange(24, dtype=dt).reshape(3, 2, 4)), np.int32([0, 1, 2]))
        for got, w in zip(t.gradient(loss, p), grads):
            np.testing.assert_allclose(np.asarray(got), w, rtol=rtol, atol=1e-30)
