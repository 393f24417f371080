"""The C++ ops of examples/plugin_cpp, built from the same sources with TensorFlow's
tf.sysconfig flags and loaded with tf.load_op_library, give what opgen gives for them:
equal numbers, the same inferred shapes, the same OP_REQUIRES messages. TensorFlow runs
in its own interpreter ($OPGEN_TF_PYTHON); skipped without it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import opgen
from cpp_api_build import compile_cpp_plugin, load_cpp_ops
from cpp_api_cases import describe_function, function_lists
from tf_reference import run_tf

# Every call below, run by both runtimes; `run(ops)` returns plain lists and messages.
CALLS = r"""
import numpy as np

def run(ops, error_types):
    x = np.arange(-6, 6).reshape(3, 4)
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((2, 5)) for _ in range(3)]
    out = {
        "zero_out": ops.zero_out(np.array([[5, 6, 7], [8, 9, 10]], np.int32), preserve_index=4),
        "scale_clip_f32": ops.scale_clip((x * 1.5).astype(np.float32), scale=0.75, limit=2.5),
        "scale_clip_f64": ops.scale_clip(x * 1.5, scale=0.75, limit=2.5),
        "scale_clip_i64": ops.scale_clip(x.astype(np.int64), scale=0.5, limit=2.0),
        "weighted_add_n": ops.weighted_add_n(values, weights=[0.5, -2.0, 1.25]),
        "weighted_add_n_f32": ops.weighted_add_n([v.astype(np.float32) for v in values],
                                                 weights=[0.5, -2.0, 1.25]),
        "repeat_rows": ops.repeat_rows(np.arange(6, dtype=np.int32).reshape(2, 3), times=2),
        "fill_shaped": ops.fill_shaped(shape=[2, 3], value=-1.25, T=np.float64),
        # the guide's functor layout: CPU functor on context->eigen_device<CPUDevice>()
        "scale_and_shift_f32": ops.scale_and_shift((x * 0.3).astype(np.float32), scale=1.7,
                                                   shift=-0.1),
        "scale_and_shift_f64": ops.scale_and_shift(x * 0.3, scale=1.7, shift=-0.1),
        "scale_and_shift_i32": ops.scale_and_shift(x.astype(np.int32), scale=3.0, shift=2.0),
        "scale_and_shift_default": ops.scale_and_shift(x.astype(np.float32)),
        # a shape attr read as a PartialTensorShape in a kernel constructor
        "partial_shape_dims": list(ops.partial_shape_dims(shape=[None, 3, None])),
        "partial_shape_dims_scalar": list(ops.partial_shape_dims(shape=[])),
        "partial_shape_dims_unknown": list(ops.partial_shape_dims(shape=None)),
        # string tensors: short (inline) and long (heap) strings, a NUL, UTF-8
        "string_repeat": list(ops.string_repeat(
            np.array([[b"ab", b"", b"x" * 30], ["\u0394".encode(), b"a\x00b", b"hello"]], object),
            times=3, separator="-|-")),
        # a list output through OpOutputList; an AsyncOpKernel
        "unstack_rows_f32": list(ops.unstack_rows((x * 0.5).astype(np.float32), num=3)),
        "unstack_rows_i64": list(ops.unstack_rows(x.reshape(3, 2, 2).astype(np.int64), num=3)),
        "async_add_one": ops.async_add_one(x.astype(np.int64) * 2**35),
    }

    def plain(v):  # bytes (string tensors) as hex, for JSON
        if isinstance(v, list):
            return [plain(e) for e in v]
        return v.hex() if isinstance(v, bytes) else v
    out = {k: ([plain(np.asarray(t).tolist()) for t in v] if isinstance(v, list)
               else plain(np.asarray(v).tolist()))
           for k, v in out.items()}
    errors = {
        "constructor": lambda: ops.scale_clip(np.ones(2, np.float32), limit=-0.5),
        "compute": lambda: ops.zero_out(np.ones(3, np.int32), preserve_index=3),
        "list": lambda: ops.weighted_add_n([np.ones((2, 3)), np.ones(3)], weights=[1.0, 1.0]),
        "string": lambda: ops.string_repeat(np.array([b"x" * 1000], object), times=2000),
        "output_list": lambda: ops.unstack_rows(np.ones((4, 2), np.float32), num=3),
        "async": lambda: ops.async_add_one(np.zeros(0, np.int64)),
    }
    for name, call in errors.items():
        try:
            call()
            out["error_" + name] = None
        except error_types as e:
            out["error_" + name] = [type(e).__name__, str(e)]
    return out
"""

TF_SCRIPT = CALLS + r"""
import json, sys
import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2
ops = tf.load_op_library(sys.argv[1])
result = run(ops, (tf.errors.InvalidArgumentError,))
# list(func) attrs (func attrs are given in graphs): the NameAttrLists arrive serialized
result["function_list"] = {}
for case, serialized in json.loads(sys.argv[2]).items():
    fs = [attr_value_pb2.NameAttrList.FromString(bytes.fromhex(f)) for f in serialized]
    with tf.Graph().as_default():
        description, num_attrs = ops.function_list(fs=fs)
        shape = num_attrs.shape.as_list()
        with tf.compat.v1.Session() as sess:
            description, num_attrs = sess.run([description, num_attrs])
    result["function_list"][case] = [bytes(description.tolist()).decode(), num_attrs.tolist(), shape]
g = tf.Graph()
with g.as_default():
    a = tf.compat.v1.placeholder(tf.float32, [2, None])
    b = tf.compat.v1.placeholder(tf.float32, [None, 3])
    result["shape_merge"] = ops.weighted_add_n([a, b], weights=[1.0, 1.0]).shape.as_list()
    m = tf.compat.v1.placeholder(tf.int32, [5, None])
    result["shape_repeat"] = ops.repeat_rows(m, times=3).shape.as_list()
    try:
        ops.repeat_rows(tf.compat.v1.placeholder(tf.float32, [3]), times=2)
    except ValueError as e:
        result["shape_error"] = str(e)
    result["shape_fill"] = ops.fill_shaped(shape=[4, 1, 2], T=tf.float32).shape.as_list()
    result["shape_scale_and_shift"] = ops.scale_and_shift(a).shape.as_list()
    s = tf.compat.v1.placeholder(tf.string, [2, None])
    result["shape_string_repeat"] = [t.shape.as_list() for t in ops.string_repeat(s, times=2)]
    r = tf.compat.v1.placeholder(tf.float32, [3, None, 2])
    result["shape_unstack_rows"] = [t.shape.as_list() for t in ops.unstack_rows(r, num=3)]
    try:
        ops.fill_shaped(shape=[2], value=float("nan"), T=tf.float32)
    except ValueError as e:
        result["shape_fill_error"] = str(e)
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def tensorflow_results(tmp_path_factory):
    where = run_tf(
        ["-c", "import json, tensorflow as tf; print(json.dumps("
         "[tf.sysconfig.get_compile_flags(), tf.sysconfig.get_link_flags(), tf.sysconfig.get_lib()]))"],
        check=False)
    if where.returncode != 0:
        pytest.skip("TensorFlow does not import in $OPGEN_TF_PYTHON")
    compile_flags, link_flags, tf_lib = json.loads(where.stdout.strip().splitlines()[-1])
    if not (Path(compile_flags[0][2:]) / "tensorflow" / "core" / "framework" / "op_kernel.h").exists():
        pytest.skip("this TensorFlow ships no C++ headers")
    lib = compile_cpp_plugin(tmp_path_factory.mktemp("tf_cpp") / "libcpp_ops_tf.so",
                             *compile_flags, *link_flags, f"-Wl,-rpath,{tf_lib}", "-w")
    from opgen.protos import attr_value_pb2
    function_list_cases = json.dumps({case: [f.SerializeToString().hex() for f in fs]
                                      for case, fs in function_lists(attr_value_pb2).items()})
    run = run_tf(["-c", TF_SCRIPT, lib, function_list_cases])
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def opgen_results(tmp_path_factory):
    ops = load_cpp_ops(tmp_path_factory)[1]
    namespace: dict = {}
    exec(CALLS, namespace)
    result = namespace["run"](ops, (opgen.errors.InvalidArgumentError,))
    g = opgen.Graph()
    a = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [2, None]}).outputs[0]
    b = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [None, 3]}).outputs[0]
    result["shape_merge"] = list(g.create_op("WeightedAddN", [[a, b]], {"weights": [1.0, 1.0]})
                                 .outputs[0].shape)
    m = g.create_op("Placeholder", [], {"dtype": opgen.int32, "shape": [5, None]}).outputs[0]
    result["shape_repeat"] = list(g.create_op("RepeatRows", [m], {"times": 3}).outputs[0].shape)
    result["shape_fill"] = list(g.create_op("FillShaped", [], {"T": opgen.float32, "shape": [4, 1, 2]})
                                .outputs[0].shape)
    result["shape_scale_and_shift"] = list(g.create_op("ScaleAndShift", [a], {}).outputs[0].shape)
    s = g.create_op("Placeholder", [], {"dtype": opgen.string, "shape": [2, None]}).outputs[0]
    result["shape_string_repeat"] = [list(t.shape) for t in
                                     g.create_op("StringRepeat", [s], {"times": 2}).outputs]
    r = g.create_op("Placeholder", [], {"dtype": opgen.float32, "shape": [3, None, 2]}).outputs[0]
    result["shape_unstack_rows"] = [list(t.shape) for t in
                                    g.create_op("UnstackRows", [r], {"num": 3}).outputs]
    from opgen.protos import attr_value_pb2 as av
    result["function_list"] = {}
    for case, fs in function_lists(av).items():
        g = opgen.Graph()
        op = g.create_op("FunctionList", [], {"fs": av.AttrValue(list=av.AttrValue.ListValue(func=fs))})
        shape = list(op.outputs[1].shape)
        with opgen.Session(g) as sess:
            description, num_attrs = sess.run([op.outputs[0], op.outputs[1]])
        result["function_list"][case] = [bytes(np.asarray(description, np.uint8)).decode(),
                                         np.asarray(num_attrs).tolist(), shape]
    return result


def test_same_numbers(tensorflow_results, opgen_results):
    for key in ["zero_out", "scale_clip_f32", "scale_clip_f64", "scale_clip_i64",
                "weighted_add_n", "weighted_add_n_f32", "repeat_rows", "fill_shaped",
                "scale_and_shift_f32", "scale_and_shift_f64", "scale_and_shift_i32",
                "scale_and_shift_default", "unstack_rows_f32", "unstack_rows_i64",
                "async_add_one"]:
        np.testing.assert_array_equal(opgen_results[key], tensorflow_results[key], err_msg=key)
    x = np.arange(-6, 6).reshape(3, 4)
    np.testing.assert_array_equal(opgen_results["unstack_rows_f32"], x * 0.5)
    np.testing.assert_array_equal(opgen_results["async_add_one"], x * 2**35 + 1)
    # (dims, rank) of a shape attr read as a PartialTensorShape
    assert tensorflow_results["partial_shape_dims"] == opgen_results["partial_shape_dims"] == [
        [-1, 3, -1], 3]
    assert (tensorflow_results["partial_shape_dims_scalar"]
            == opgen_results["partial_shape_dims_scalar"] == [[], 0])
    assert (tensorflow_results["partial_shape_dims_unknown"]
            == opgen_results["partial_shape_dims_unknown"] == [[], -1])


def test_same_strings(tensorflow_results, opgen_results):
    """String tensors in and out of a kernel (flat<tstring>(), a DT_STRING output and
    temporary) give the same bytes as TensorFlow, and as Python joins them."""
    strings = [[b"ab", b"", b"x" * 30], ["\u0394".encode(), b"a\x00b", b"hello"]]
    want = [[b"-|-".join([s] * 3).hex() for s in row] for row in strings]
    want_lengths = [[len(s) * 3 + 6 for s in row] for row in strings]
    assert tensorflow_results["string_repeat"] == opgen_results["string_repeat"] == [
        want, want_lengths]


def test_same_list_func_attrs(tensorflow_results, opgen_results):
    """A list(func) attr read in a kernel constructor and a shape function: each function's
    name and attrs, as the Python reference describes them."""
    from opgen.protos import attr_value_pb2
    for case, fs in function_lists(attr_value_pb2).items():
        want = [";".join(describe_function(f) for f in fs), [len(f.attr) for f in fs], [len(fs)]]
        assert tensorflow_results["function_list"][case] == want, case
        assert opgen_results["function_list"][case] == want, case


def test_same_shapes(tensorflow_results, opgen_results):
    assert tensorflow_results["shape_merge"] == opgen_results["shape_merge"] == [2, 3]
    assert tensorflow_results["shape_repeat"] == opgen_results["shape_repeat"] == [15, None]
    assert "Shape must be rank 2 but is rank 1" in tensorflow_results["shape_error"]
    # a shape attr and a float attr read by the shape function
    assert tensorflow_results["shape_fill"] == opgen_results["shape_fill"] == [4, 1, 2]
    assert "FillShaped needs a finite value, got nan" in tensorflow_results["shape_fill_error"]
    assert (tensorflow_results["shape_scale_and_shift"] == opgen_results["shape_scale_and_shift"]
            == [2, None])
    assert (tensorflow_results["shape_string_repeat"] == opgen_results["shape_string_repeat"]
            == [[2, None], [2, None]])
    assert (tensorflow_results["shape_unstack_rows"] == opgen_results["shape_unstack_rows"]
            == [[None, 2]] * 3)


def test_same_op_requires_failures(tensorflow_results, opgen_results):
    for key in ["error_constructor", "error_compute", "error_list", "error_string",
                "error_output_list", "error_async"]:
        tf_class, tf_message = tensorflow_results[key]
        ours_class, ours_message = opgen_results[key]
        assert tf_class == ours_class == "InvalidArgumentError"
        # TensorFlow appends " [Op:Name] ..."; the kernel's own message is the same
        kernel_message = ours_message.split(": ", 1)[1]
        assert kernel_message in tf_message, (key, tf_message, ours_message)
