"""Checkpoints written by TensorFlow, for opgen's checkpoint tests; run with TensorFlow's
interpreter ($OPGEN_TF_PYTHON):

    python tools/make_checkpoint_fixtures.py write DIR   # DIR/raw, DIR/saver, DIR/object
                                                         # + DIR/expected.npz
    python tools/make_checkpoint_fixtures.py read PREFIX OUT.npz   # every tensor of a
                                                         # checkpoint, as TensorFlow reads it

`write DIR` with DIR = tests/fixtures/checkpoints refreshes the committed fixture (a few
KB); tests/conformance/test_checkpoints_tf.py runs both modes live. Checkpoints:
  raw     tf.raw_ops.SaveV2 of one tensor per dtype opgen saves (strings short, long,
          empty and binary; a scalar; an empty tensor)
  saver   tf.compat.v1.train.Saver over two graph variables "w" and "b"
  object  tf.train.Checkpoint(v=...).write: "v/.ATTRIBUTES/VARIABLE_VALUE" and the
          object graph, a string scalar
expected.npz holds the values, under "<checkpoint>/<tensor name>".
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np


def raw_values() -> dict[str, np.ndarray]:
    strings = np.array([[b"", b"short"], [b"x" * 40, b"\x00\xffbinary"]], dtype=object)
    return {
        "floats": (np.arange(6, dtype=np.float32) * 0.5 - 1).reshape(2, 3),
        "doubles": np.array([1.5, -2.25, 3e300]),
        "ints": np.array([1, -2, 2**31 - 1, -2**31], np.int32),
        "longs": np.array([[2**40, -5], [7, -2**62]], np.int64),
        "flags": np.array([True, False, True]),
        "u8": np.array([0, 1, 255], np.uint8),
        "i8": np.array([-128, 127], np.int8),
        "i16": np.array([-300, 300], np.int16),
        "u16": np.array([65535, 1], np.uint16),
        "u32": np.array([2**32 - 1], np.uint32),
        "u64": np.array([2**64 - 1], np.uint64),
        "halfs": np.array([0.5, -65504], np.float16),
        "complex": np.array([1 + 2j, -3.5j], np.complex64),
        "scalar": np.array(4.25, np.float32),
        "empty": np.zeros((0, 3), np.float32),
        "strings": strings,
        "str_scalar": np.array(b"hello", dtype=object),
    }


def write(directory: str) -> None:
    import tensorflow as tf

    os.makedirs(directory, exist_ok=True)
    expected = {}
    values = raw_values()
    names = sorted(values)
    tf.raw_ops.SaveV2(prefix=os.path.join(directory, "raw"), tensor_names=names,
                      shape_and_slices=[""] * len(names),
                      tensors=[tf.constant(values[n]) for n in names])
    expected.update({f"raw/{n}": values[n] for n in names})

    g = tf.Graph()
    with g.as_default():
        w = tf.compat.v1.get_variable("w", initializer=np.array([[1, 2], [3, 4]], np.float32))
        b = tf.compat.v1.get_variable("b", initializer=np.array([5, -6], np.int64))
        saver = tf.compat.v1.train.Saver([w, b])
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(directory, "saver"), write_state=False,
                       write_meta_graph=False)
    expected["saver/w"] = np.array([[1, 2], [3, 4]], np.float32)
    expected["saver/b"] = np.array([5, -6], np.int64)

    v = tf.Variable(np.array([0.25, 0.75, -1.0], np.float32))
    tf.train.Checkpoint(v=v).write(os.path.join(directory, "object"))
    expected["object/v/.ATTRIBUTES/VARIABLE_VALUE"] = v.numpy()
    np.savez(os.path.join(directory, "expected.npz"), **expected)


def read(prefix: str, out: str) -> None:
    import tensorflow as tf

    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    values = {}
    for name in sorted(dtypes):
        # RestoreV2 directly too: the op opgen's SaveV2 must satisfy.
        restored = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[name],
                                        shape_and_slices=[""], dtypes=[dtypes[name]])[0]
        values[name] = restored.numpy()
        if not np.array_equal(reader.get_tensor(name), values[name]):
            raise SystemExit(f"load_checkpoint and RestoreV2 disagree on {name}")
    np.savez(out, **values)


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"] and len(sys.argv) == 3:
        write(sys.argv[2])
    elif sys.argv[1:2] == ["read"] and len(sys.argv) == 4:
        read(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)
