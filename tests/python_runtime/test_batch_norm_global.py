"""BatchNormWithGlobalNormalization, its gradient op and its registered gradient against
TensorFlow 2.21 (its own interpreter, tests/tf_reference.py; skipped without it), in half,
float and double, with and without scale_after_normalization, and TensorFlow's messages.

TensorFlow refuses the op in graphs of GraphDef version 9 and later (it is deprecated
there), so its side runs each case in a graph marked as written by version 8, as the 2015
Inception graph that holds the op is; its inputs are placeholders of unknown shape, so the
kernel, not the shape function, checks them. opgen runs deprecated ops in any graph
(docs/conformance.md)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf_script

# The generated wrappers warn once that the op is deprecated (TensorFlow 1 removed it in
# GraphDef version 9); these tests call it on purpose.
pytestmark = [pytest.mark.usefixtures("runtime_lib"),
              pytest.mark.filterwarnings("ignore:BatchNormWithGlobalNormalization:DeprecationWarning")]

rng = np.random.default_rng(2015)
NAMES = ["t", "m", "v", "beta", "gamma"]

TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf
    from tensorflow.core.framework import graph_pb2
    tf.compat.v1.disable_eager_execution()

    spec, arrays, out = json.load(open(sys.argv[1])), dict(np.load(sys.argv[2])), {}
    names = ["t", "m", "v", "beta", "gamma"]
    for case in spec:
        cid, attrs = case["id"], case["attrs"]
        feed = {n: arrays[cid + ":" + n] for n in names + ["dy"]}
        # The op written into a GraphDef of version 8 (TensorFlow's Python refuses to add it
        # to a graph of today's version); importing it keeps that version, so the graph
        # may hold the op and its gradient.
        graph_def = graph_pb2.GraphDef()
        graph_def.versions.producer = 8
        for n in feed:
            node = graph_def.node.add(name=n, op="Placeholder")
            node.attr["dtype"].type = tf.as_dtype(feed[n].dtype).as_datatype_enum
        node = graph_def.node.add(name="y", op="BatchNormWithGlobalNormalization", input=names)
        node.attr["T"].type = tf.as_dtype(feed["t"].dtype).as_datatype_enum
        node.attr["variance_epsilon"].f = attrs["variance_epsilon"]
        node.attr["scale_after_normalization"].b = attrs["scale_after_normalization"]
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(graph_def, name="")
            ph = {n: g.get_tensor_by_name(n + ":0") for n in feed}
            fetch = [g.get_tensor_by_name("y:0")]
            if case["grads"]:
                fetch += tf.compat.v1.gradients(fetch[0], [ph[n] for n in names], grad_ys=ph["dy"])
                fetch += list(tf.raw_ops.BatchNormWithGlobalNormalizationGrad(
                    t=ph["t"], m=ph["m"], v=ph["v"], gamma=ph["gamma"], backprop=ph["dy"], **attrs))
        try:
            with tf.compat.v1.Session(graph=g) as sess:
                results = sess.run(fetch, {ph[n]: feed[n] for n in feed})
            for k, r in enumerate(results):
                out[cid + ":" + str(k)] = r
        except tf.errors.OpError as e:
            out[cid + ":error"] = np.array(e.message)
    np.savez(sys.argv[3], **out)
""")


class Case:
    def __init__(self, cid, inputs, dy, attrs, grads=True):
        self.id, self.inputs, self.dy, self.attrs, self.grads = cid, inputs, dy, attrs, grads

    def spec(self):
        return {"id": self.id, "attrs": self.attrs, "grads": self.grads}

    def arrays(self):
        a = {f"{self.id}:{n}": v for n, v in zip(NAMES, self.inputs)}
        a[f"{self.id}:dy"] = self.dy
        return a

    def run_opgen(self):
        """y, then (with grads) the tape's five gradients and the gradient op's five."""
        named = dict(zip(NAMES, self.inputs))
        if not self.grads:
            return [ops.batch_norm_with_global_normalization(**named, **self.attrs).numpy()]
        consts = [opgen.constant(v) for v in self.inputs]
        with opgen.GradientTape() as tape:
            tape.watch(consts)
            y = ops.batch_norm_with_global_normalization(**dict(zip(NAMES, consts)), **self.attrs)
        tape_grads = tape.gradient(y, consts, output_gradients=opgen.constant(self.dy))
        op = ops.batch_norm_with_global_normalization_grad(
            t=named["t"], m=named["m"], v=named["v"], gamma=named["gamma"], backprop=self.dy, **self.attrs)
        return [y.numpy()] + [g.numpy() for g in tape_grads] + [g.numpy() for g in op]


def make(cid, dtype, shape, attrs, grads=True, **over):
    c = shape[3]
    inputs = {"t": rng.uniform(-2, 2, shape), "m": rng.uniform(-1, 1, c), "v": rng.uniform(0.1, 2, c),
              "beta": rng.uniform(-1, 1, c), "gamma": rng.uniform(0.5, 1.5, c)}
    inputs.update(over)
    return Case(cid, [np.asarray(inputs[n]).astype(dtype) for n in NAMES],
                rng.uniform(-1, 1, shape).astype(dtype), attrs, grads)


CASES = []
for _dt in (np.float16, np.float32, np.float64):
    for _scale in (True, False):
        for _k, _shape in enumerate([(2, 3, 4, 5), (1, 1, 1, 3), (4, 2, 3, 1)]):
            CASES.append(make(f"{np.dtype(_dt).name}-{_scale}-{_k}", _dt, _shape,
                              {"variance_epsilon": 0.001, "scale_after_normalization": _scale}))
CASES.append(make("eps-zero", np.float32, (2, 2, 2, 3), {"variance_epsilon": 0.0,
                                                        "scale_after_normalization": True}))
CASES.append(make("empty", np.float32, (0, 2, 2, 3), {"variance_epsilon": 0.01,
                                                      "scale_after_normalization": True}))
_ATTRS = {"variance_epsilon": 0.001, "scale_after_normalization": True}
ERRORS = [make("e-t-rank", np.float32, (2, 2, 2, 3), _ATTRS, grads=False, t=rng.uniform(-1, 1, (4, 3))),
          make("e-m-rank", np.float32, (2, 2, 2, 3), _ATTRS, grads=False, m=np.zeros((1, 3))),
          make("e-gamma-rank", np.float32, (2, 2, 2, 3), _ATTRS, grads=False, gamma=np.float32(1))]
BY_ID = {c.id: c for c in CASES + ERRORS}


@pytest.fixture(scope="module")
def tf_results():
    arrays = {}
    for c in CASES + ERRORS:
        arrays.update(c.arrays())
    return run_tf_script(TF_SCRIPT, arrays, [c.spec() for c in CASES + ERRORS])


@pytest.mark.parametrize("cid", [c.id for c in CASES])
def test_matches_tensorflow(cid, tf_results):
    case = BY_ID[cid]
    assert f"{cid}:error" not in tf_results, str(tf_results.get(f"{cid}:error"))
    got = case.run_opgen()
    half = case.inputs[0].dtype == np.float16
    tol = 2e-2 if half else 1e-5 if case.inputs[0].dtype == np.float32 else 1e-10
    for k, g in enumerate(got):
        want = tf_results[f"{cid}:{k}"]
        assert g.shape == want.shape and g.dtype == want.dtype, (k, g.shape, want.shape)
        np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=tol,
                                   atol=tol * max(1.0, float(np.abs(want).max(initial=0))),
                                   err_msg=f"{cid} output {k}")


@pytest.mark.parametrize("cid", [c.id for c in ERRORS])
def test_errors_match_tensorflow(cid, tf_results):
    err = tf_results.get(f"{cid}:error")
    assert err is not None, f"{cid}: TensorFlow computes"
    with pytest.raises(errors.InvalidArgumentError) as info:
        BY_ID[cid].run_opgen()
    ours = str(info.value).split(": ", 1)[1]  # less the op name opgen puts first
    assert ours in str(err), f"{cid}: opgen said {info.value}, TensorFlow {err}"


def test_channel_counts_must_match():
    # TensorFlow 2.21's kernel reads past a short m, v, beta or gamma; opgen refuses.
    case = make("short", np.float32, (1, 2, 2, 3), _ATTRS, grads=False, v=np.ones(2))
    with pytest.raises(errors.InvalidArgumentError, match="var must have shape"):
        case.run_opgen()


def test_shape_function_in_a_graph():
    g = opgen.Graph()
    with g.as_default():
        t = ops.placeholder(dtype=opgen.float32, shape=[-1, 4, 4, -1])
        m = ops.placeholder(dtype=opgen.float32, shape=[3])
        y = ops.batch_norm_with_global_normalization(t, m, m, m, m, variance_epsilon=0.1,
                                                     scale_after_normalization=True)
        assert list(y.shape) in ([None, 4, 4, 3], [-1, 4, 4, 3])
        with pytest.raises(ValueError):
            ops.batch_norm_with_global_normalization(t, m, m, m, ops.placeholder(dtype=opgen.float32, shape=[5]),
                                                     variance_epsilon=0.1, scale_after_normalization=True)
