"""Computes gradients with TensorFlow's tf.GradientTape for test_gradients_vs_tensorflow.py,
in the interpreter $OPGEN_TF_PYTHON names, as

    python tf_gradient_runner.py CASES.npz RESULTS.npz

CASES.npz holds a JSON list of cases under "cases" (op, attrs, which inputs are
differentiated, whether the inputs (or how many leading ones) form one list arg, which
output) and each case's
inputs and output weights as arrays "c<case>_in<i>" / "c<case>_w". The result for a case
is d(sum(w * y))/dx for each differentiated x: "c<case>_g<k>", absent for None."""

from __future__ import annotations

import inspect
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np


def main(cases_path: str, results_path: str) -> None:
    import tensorflow as tf

    blobs = dict(np.load(cases_path))
    cases = json.loads(bytes(blobs.pop("cases")).decode())
    out = {}
    with tf.device("/CPU:0"):
        for c, case in enumerate(cases):
            fn = getattr(tf.raw_ops, case["op"])
            params = [p for p in inspect.signature(fn).parameters if p != "name"]
            xs = [tf.constant(blobs[f"c{c}_in{i}"]) for i in range(case["num_inputs"])]
            attrs = {k: (tf.as_dtype(v[6:]) if isinstance(v, str) and v.startswith("dtype:") else v)
                     for k, v in case["attrs"].items()}
            with tf.GradientTape() as tape:
                for i in case["diff"]:
                    tape.watch(xs[i])
                if case["list_arg"] is True:
                    kwargs = {params[0]: xs}
                elif case["list_arg"]:  # a count: the leading inputs form the list arg
                    n = case["list_arg"]
                    kwargs = {params[0]: xs[:n]} | dict(zip(params[1:], xs[n:]))
                else:
                    kwargs = dict(zip(params, xs))
                y = fn(**kwargs, **attrs)
                if isinstance(y, (list, tuple)):
                    y = y[case["output"]]
                loss = tf.reduce_sum(tf.cast(y, tf.float64) * blobs[f"c{c}_w"])
            grads = tape.gradient(loss, [xs[i] for i in case["diff"]])
            for k, gr in enumerate(grads):
                if gr is not None:
                    out[f"c{c}_g{k}"] = tf.convert_to_tensor(gr).numpy()
    np.savez(results_path, **out)


if __name__ == "__main__":
    main(*sys.argv[1:])
