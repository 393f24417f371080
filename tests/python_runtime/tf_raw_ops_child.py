"""Runs tf.raw_ops calls in TensorFlow 2.21's own interpreter ($OPGEN_TF_PYTHON, a child
process, never imported here) and returns each call's outputs as numpy arrays, or the
error's class name and message. Tests that need it skip when it is not there."""

from __future__ import annotations

import base64
import json

import numpy as np
from tf_reference import run_tf, tf_env

_SCRIPT = r"""
import base64, json, sys
import numpy as np
import tensorflow as tf

def dec(item):
    dtype, shape, data = item
    return np.frombuffer(base64.b64decode(data), dtype=np.dtype(dtype)).reshape(shape)

def enc(t):
    a = np.asarray(t)
    return [a.dtype.str, list(a.shape), base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()]

out = []
for call in json.load(sys.stdin):
    args = {k: tf.constant(dec(v)) for k, v in call["inputs"].items()}
    try:
        r = getattr(tf.raw_ops, call["op"])(**args, **call["attrs"])
        out.append({"outputs": [enc(x) for x in (r if isinstance(r, (list, tuple)) else [r])]})
    except Exception as e:
        out.append({"error": type(e).__name__, "message": getattr(e, "message", str(e))})
print(json.dumps(out))
"""


def _enc(a) -> list:
    a = np.asarray(a)
    return [a.dtype.str, list(a.shape), base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()]


def _dec(item) -> np.ndarray:
    dtype, shape, data = item
    return np.frombuffer(base64.b64decode(data), dtype=np.dtype(dtype)).reshape(shape)


def call(op: str, inputs: dict, attrs: dict | None = None) -> dict:
    """One call's description: inputs by argument name (numpy arrays), attrs as Python."""
    return {"op": op, "inputs": {k: _enc(v) for k, v in inputs.items()}, "attrs": attrs or {}}


def run(calls: list[dict]) -> list:
    """Each call's outputs (a list of arrays) or ("ErrorClass", message)."""
    r = run_tf(["-c", _SCRIPT], input=json.dumps(calls), env=tf_env(CUDA_VISIBLE_DEVICES=""))
    return [[_dec(x) for x in item["outputs"]] if "outputs" in item
            else (item["error"], item["message"]) for item in json.loads(r.stdout)]
