"""Runs the differential test's calls with TensorFlow: started by test_vs_tensorflow.py in
the interpreter $OPGEN_TF_PYTHON names, as

    python tf_runner.py CALLS.json CALLS.npz RESULTS.json RESULTS.npz

Each call is ``tf.raw_ops.<Op>(**inputs, **attrs)`` on the CPU; its result is every
output's bytes, or the exception's type and message."""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
# TensorFlow's own kernels (Eigen), the same on every platform, not the oneDNN ones that
# x86 Linux builds swap in by default for some ops and dtypes (their Softmax of a row
# holding +inf is [0, nan, 0], the Eigen one's all NaN): docs/conformance.md.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire  # noqa: E402


def _tensor(tf, array):
    """A tf.Tensor of exactly the array's dtype. Given numpy arrays, raw_ops may convert
    by the op's default type (Range's scalars became int32) and read bfloat16 as float32."""
    if array.dtype.name == "bfloat16":
        return tf.bitcast(tf.constant(array.view(np.uint16)), tf.bfloat16)
    return tf.constant(array)


def _python_names(fn, kwargs):
    """kwargs by the names tf.raw_ops uses: an ApiDef may rename an OpDef arg (Sum's
    reduction_indices is `axis`); renamed ones take the unused parameters in order."""
    import inspect
    params = [p for p in inspect.signature(fn).parameters if p != "name"]
    unused = [p for p in params if p not in kwargs]
    out = {}
    for key, value in kwargs.items():
        out[key if key in params or not unused else unused.pop(0)] = value
    return out


def main(calls_json, calls_npz, results_json, results_npz):
    import tensorflow as tf

    with open(calls_json) as f:
        calls = json.load(f)
    blobs = dict(np.load(calls_npz))
    store = wire.ArrayStore()
    results = []
    with tf.device("/CPU:0"):
        for call in calls:
            try:
                kwargs = {}
                for name, value in call["inputs"].items():
                    value = wire.decode_value(blobs, value, tf.dtypes.as_dtype)
                    kwargs[name] = ([_tensor(tf, v) for v in value] if isinstance(value, list)
                                    else _tensor(tf, value))
                for name, value in call["attrs"].items():
                    kwargs[name] = wire.decode_value(blobs, value, tf.dtypes.as_dtype)
                fn = getattr(tf.raw_ops, call["op"])
                out = fn(**_python_names(fn, kwargs))
                outputs = [store.put(t.numpy()) for t in wire.flatten(out)]
                results.append({"outputs": outputs})
            except Exception as e:  # noqa: BLE001 (every error is a result to compare)
                results.append({"error": f"{type(e).__name__}: {str(e)[:300]}"})
    with open(results_json, "w") as f:
        json.dump(results, f)
    store.save(results_npz)


if __name__ == "__main__":
    main(*sys.argv[1:5])
