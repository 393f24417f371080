"""Running cases of ops in TensorFlow 2.21 (tests/tf_reference.py) and in opgen, for the
tests of the fake-quantization, LRN and max-pool-variant ops and the CTC ops. A case is an op with named
inputs and attrs: its outputs, or the error it raises; a gradient case is the gradient of
the op's output 0 (weighted by `dy`) with respect to the named inputs."""

from __future__ import annotations

import re
import textwrap

import numpy as np

import opgen
from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf_script

# Run by TensorFlow's interpreter: argv[1] the spec, argv[2] the arrays, argv[3] the results.
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    spec, arrays, out = json.load(open(sys.argv[1])), dict(np.load(sys.argv[2])), {}
    for case in spec:
        cid = case["id"]
        inputs = {k: tf.bitcast(tf.constant(arrays[cid + ":" + k + ":bf16"]), tf.bfloat16)
                  if cid + ":" + k + ":bf16" in arrays else tf.constant(arrays[cid + ":" + k])
                  for k in case["inputs"]}
        op = getattr(tf.raw_ops, case["op"])
        case["attrs"] = {k: tf.as_dtype(v["dtype"]) if isinstance(v, dict) else v
                         for k, v in case["attrs"].items()}
        try:
            if case["wrt"]:
                with tf.GradientTape() as tape:
                    for k in case["wrt"]:
                        tape.watch(inputs[k])
                    y = op(**inputs, **case["attrs"])
                    y0 = y[0] if isinstance(y, (list, tuple)) else y
                grads = tape.gradient(y0, [inputs[k] for k in case["wrt"]],
                                      output_gradients=tf.constant(arrays[cid + ":dy"]))
                results = list(grads)
            else:
                y = op(**inputs, **case["attrs"])
                # list outputs (number_attr) flattened in order
                results = [t for r in (y if isinstance(y, (list, tuple)) else [y])
                           for t in (r if isinstance(r, (list, tuple)) else [r])]
            for i, r in enumerate(results):
                # bfloat16 travels as its bits (an .npz cannot hold it)
                if r.dtype == tf.bfloat16:
                    out[cid + ":" + str(i) + ":bf16"] = tf.bitcast(r, tf.uint16).numpy()
                else:
                    out[cid + ":" + str(i)] = r.numpy()
        except (tf.errors.OpError, ValueError, TypeError) as e:
            out[cid + ":error"] = np.array(str(e).splitlines()[0])
    np.savez(sys.argv[3], **out)
""")


def snake(op: str) -> str:
    """The generated function's name (a digit before a capital stays with it: Dilation2D)."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[0-9])(?=[A-Z][a-z])", "_", op).lower()


class Case:
    def __init__(self, cid, op, inputs, attrs=None, wrt=(), dy=None, py=None, message=None):
        self.id, self.op, self.inputs, self.attrs = cid, op, inputs, dict(attrs or {})
        self.message = message  # for errors: what opgen's must hold, where not TensorFlow's words
        self.wrt, self.dy = list(wrt), dy
        self.py = py or snake(op)

    def spec(self):
        # type attrs (numpy dtypes) travel by name; the child makes TensorFlow dtypes of them
        attrs = {k: {"dtype": np.dtype(v).name} if isinstance(v, type) else v for k, v in self.attrs.items()}
        return {"id": self.id, "op": self.op, "inputs": list(self.inputs), "attrs": attrs, "wrt": self.wrt}

    def arrays(self):
        a = {f"{self.id}:{k}" + (":bf16" if v.dtype.name == "bfloat16" else ""):
             v.view(np.uint16) if v.dtype.name == "bfloat16" else v for k, v in self.inputs.items()}
        if self.dy is not None:
            a[f"{self.id}:dy"] = self.dy
        return a

    def run_opgen(self):
        """opgen's outputs (a list), or the error it raises."""
        fn = getattr(ops, self.py)
        if not self.wrt:
            y = fn(**self.inputs, **self.attrs)
            return [t.numpy() for r in (y if isinstance(y, tuple) else [y])
                    for t in (r if isinstance(r, list) else [r])]
        inputs = {k: opgen.constant(v) for k, v in self.inputs.items()}
        with opgen.GradientTape() as tape:
            tape.watch([inputs[k] for k in self.wrt])
            y = fn(**inputs, **self.attrs)
            y0 = y[0] if isinstance(y, tuple) else y
        grads = tape.gradient(y0, [inputs[k] for k in self.wrt], output_gradients=opgen.constant(self.dy))
        return [g.numpy() for g in grads]


def run_tensorflow(cases):
    arrays = {}
    for c in cases:
        arrays.update(c.arrays())
    return run_tf_script(TF_SCRIPT, arrays, [c.spec() for c in cases])


def check(case, tf_out, rtol=1e-6, atol=1e-6):
    """opgen's results against TensorFlow's: the same values, or an error whose message
    holds TensorFlow's (without its op-name decorations)."""
    err = tf_out.get(case.id + ":error")
    if err is not None:
        message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", str(err))
        message = re.sub(r"\s*\[Op:\w+\].*$", "", message)
        try:
            got = case.run_opgen()
        except (errors.OpError, ValueError, TypeError) as e:
            want = case.message if case.message is not None else message
            assert want in str(e), f"{case.id}: opgen said {e!s}, TensorFlow {message}"
            return
        raise AssertionError(f"{case.id}: TensorFlow failed ({message}); opgen gave {got}")
    got = case.run_opgen()
    def result(i):
        bits = tf_out.get(f"{case.id}:{i}:bf16")
        return bits.view(got[i].dtype) if bits is not None else tf_out[f"{case.id}:{i}"]
    want = [result(i) for i in range(len(got))]
    assert f"{case.id}:{len(got)}" not in tf_out, f"{case.id}: TensorFlow gave more outputs"
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (case.id, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=case.id)
