"""The same example plugin source builds against TensorFlow's own headers and
libtensorflow_framework, loads with tf.load_op_library, and behaves there as it does in
opgen: same numbers, same inferred shape, same shape error. TensorFlow runs in its own
interpreter ($OPGEN_TF_PYTHON); skipped without it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from tf_reference import run_tf, tf_env, tf_python

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import EXAMPLE, compile_plugin

TF_SCRIPT = r"""
import json, sys
import numpy as np
import tensorflow as tf
lib = tf.load_op_library(sys.argv[1])
values = [np.arange(6, dtype=np.float64).reshape(2, 3), np.full((2, 3), 0.25)]
result = {"numbers": lib.weighted_sum(values, weights=[2.0, -4.0]).numpy().tolist()}
graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [2, None])
    y = tf.compat.v1.placeholder(tf.float32, [None, 3])
    result["shape"] = lib.weighted_sum([x, y], weights=[1.0, 1.0]).shape.as_list()
    try:
        lib.weighted_sum([tf.compat.v1.placeholder(tf.float32, [2, 3]),
                          tf.compat.v1.placeholder(tf.float32, [2, 4])], weights=[1.0, 1.0])
    except ValueError as e:
        result["shape_error"] = str(e)
try:
    lib.weighted_sum([np.ones(2, np.float32)] * 2, weights=[1.0])
except tf.errors.InvalidArgumentError as e:
    result["kernel_error"] = e.message
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def tensorflow_run(tmp_path_factory):
    where = run_tf(["-c", "import os, tensorflow as tf; print(os.path.dirname(tf.__file__))"],
                   check=False)
    if where.returncode != 0:
        pytest.skip("TensorFlow does not import in $OPGEN_TF_PYTHON")
    tf_dir = Path(where.stdout.strip().splitlines()[-1])
    framework = tf_dir / "libtensorflow_framework.so.2"
    if not (tf_dir / "include" / "tensorflow" / "c" / "kernels.h").exists() or not framework.exists():
        pytest.skip("this TensorFlow ships no C headers or framework library")
    lib = compile_plugin(EXAMPLE, tmp_path_factory.mktemp("tf") / "libmy_ops_tf.so",
                         tf_dir / "include", str(framework), f"-Wl,-rpath,{tf_dir}")
    run = run_tf(["-c", TF_SCRIPT, lib])
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_tensorflow_runs_the_plugin(tensorflow_run):
    want = 2.0 * np.arange(6.0).reshape(2, 3) - 4.0 * 0.25
    np.testing.assert_allclose(tensorflow_run["numbers"], want)


def test_opgen_and_tensorflow_agree(tensorflow_run, my_ops):
    import opgen
    values = [np.arange(6, dtype=np.float64).reshape(2, 3), np.full((2, 3), 0.25)]
    ours = np.asarray(my_ops.weighted_sum(values, weights=[2.0, -4.0]))
    np.testing.assert_array_equal(ours, tensorflow_run["numbers"])

    g = opgen.Graph()
    x = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [2, None]}).outputs[0]
    y = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [None, 3]}).outputs[0]
    total = g.create_op("WeightedSum", [[x, y]], {"weights": [1.0, 1.0]}).outputs[0]
    assert list(total.shape) == tensorflow_run["shape"] == [2, None]

    plugin_message = ("WeightedSum needs values of one shape: dimension 1 of value 1 is 4, "
                      "of value 0 3")
    assert plugin_message in tensorflow_run["shape_error"]
    assert "WeightedSum got 1 weights for 2 values" in tensorflow_run["kernel_error"]



IMPORT_ORDER_SCRIPT = r"""
import sys
import numpy as np
import tensorflow as tf  # its C API enters the global symbol scope first
sys.path.insert(0, sys.argv[1])  # the opgen under test, not one installed beside tensorflow
import opgen  # execute_op, not opgen.ops: a checkout has the generated package elsewhere
print(np.asarray(opgen.execute_op("AddV2", [np.ones(4, np.float32), np.full(4, 2, np.float32)],
                                  {})[0]).tolist())
print(opgen.device_unavailable_reason("GPU"))
"""


@pytest.fixture
def runtime_library_path() -> Path:
    from opgen import _paths
    try:
        return Path(_paths.runtime_library_path())
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")


def test_device_plugin_binds_to_opgen_after_tensorflow_is_imported(runtime_library_path, tmp_path):
    """The CUDA plugin beside the runtime links it; loaded into a process that imported
    tensorflow first, its TF_* calls must still reach opgen's runtime (they reached
    TensorFlow's and crashed before the plugin was opened with RTLD_DEEPBIND)."""
    tf_python()  # skips first when there is no TensorFlow
    if not (runtime_library_path.parent / "libopgen_cuda.so").exists():
        pytest.skip("no device plugin beside the runtime library (built without nvcc)")
    import opgen
    opgen_parent = str(Path(opgen.__file__).resolve().parents[1])
    run = run_tf(["-c", IMPORT_ORDER_SCRIPT, opgen_parent], cwd=tmp_path,
                 env=tf_env(OPGEN_RUNTIME_LIB=str(runtime_library_path)))
    assert run.stdout.splitlines()[0] == "[3.0, 3.0, 3.0, 3.0]"
