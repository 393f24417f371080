"""TensorFlow's full registry (1,908 ops) from its binary and text OpLists: both load,
give the same byte-stable output whatever the op order, and the module compiles,
imports and has TensorFlow's signatures."""

from __future__ import annotations

import inspect
import py_compile
import random
import warnings

import pytest

from opgen import generate, opdefs


@pytest.fixture(scope="module")
def tf_binary(tf_oplist_path):
    return opdefs.load(tf_oplist_path)


@pytest.fixture(scope="module")
def tf_text(tf_oplist_text_path):
    return opdefs.load(tf_oplist_text_path)


@pytest.fixture(scope="module")
def rendered(tf_binary):
    [f] = generate.render(tf_binary, ["python"])
    return f.content


@pytest.fixture(scope="module")
def generated_path(rendered, tmp_path_factory):
    out = tmp_path_factory.mktemp("tf")
    path = out / "python" / "__init__.py"
    path.parent.mkdir()
    path.write_bytes(rendered)
    return path


def test_binary_and_text_give_identical_output(tf_binary, tf_text, rendered):
    assert len(tf_binary.op) == len(tf_text.op) > 1000
    assert generate.render(tf_text, ["python"])[0].content == rendered


def test_output_is_byte_stable_and_order_independent(tf_binary, rendered):
    assert generate.render(tf_binary, ["python"])[0].content == rendered
    ops = list(tf_binary.op)
    random.Random(2024).shuffle(ops)
    shuffled = type(tf_binary)()
    shuffled.op.extend(ops)
    assert generate.render(shuffled, ["python"])[0].content == rendered


def test_generated_module_compiles_without_warnings(generated_path):
    py_compile.compile(str(generated_path), doraise=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. SyntaxWarning for an invalid escape
        compile(generated_path.read_bytes(), str(generated_path), "exec")


def test_odd_names_are_present_and_valid(rendered):
    text = rendered.decode()
    assert "def namespace_test_string_output(input, name=None):" in text
    assert '_execute_op("Namespace>TestStringOutput", [input], {}, name)' in text
    assert "def _retval(input, index, name=None):" in text
    assert "def __mkl_dummy_conv2d_with_bias(" in text
    assert "def dtype_with_default_op(in_, name=None):" in text
    assert "def if_(" in text and "def while_(" in text


@pytest.fixture(scope="module")
def tf_module(generated_path):
    import importlib.util
    import sys
    import types
    fake = types.ModuleType("opgen.runtime")
    fake.execute_op = lambda op_type, inputs, attrs, name: [op_type]
    saved = sys.modules.get("opgen.runtime")
    sys.modules["opgen.runtime"] = fake
    try:
        spec = importlib.util.spec_from_file_location("_opgen_tf_ops", generated_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["opgen.runtime"]
        else:
            sys.modules["opgen.runtime"] = saved
    return module


@pytest.mark.parametrize("function, signature", [
    ("mat_mul", "(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False, name=None)"),
    ("add_v2", "(x, y, name=None)"),
    ("cast", "(x, DstT, Truncate=False, name=None)"),
    ("conv2d", "(input, filter, strides, padding, use_cudnn_on_gpu=True, explicit_paddings=[], "
               "data_format='NHWC', dilations=[1, 1, 1, 1], name=None)"),
    ("placeholder", "(dtype, shape=None, name=None)"),
    ("unique", "(x, out_idx='int32', name=None)"),
    ("concat_v2", "(values, axis, name=None)"),
    ("no_op", "(name=None)"),
])
def test_signatures_match_tensorflow(tf_module, function, signature):
    assert str(inspect.signature(getattr(tf_module, function))) == signature


def test_every_op_has_a_function_calling_it(tf_module, tf_binary):
    functions = [value for value in vars(tf_module).values()
                 if inspect.isfunction(value) and value.__module__ == tf_module.__name__]
    assert len(functions) == len(tf_binary.op)
    # The stand-in runtime returns its arguments as the "outputs".
    assert tf_module.add_v2(1, 2) == "AddV2"
    assert tf_module.mat_mul(1, 2) == "MatMul"
