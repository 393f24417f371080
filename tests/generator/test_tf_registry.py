"""TensorFlow's full registry (1,908 ops) from its binary and text OpLists: both load,
give the same byte-stable output whatever the op order, and the module compiles,
imports and has TensorFlow's signatures."""

from __future__ import annotations

import inspect
import random
import re
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
    return generate.render(tf_binary, ["python"])


@pytest.fixture(scope="module")
def generated_path(rendered, tmp_path_factory):
    out = tmp_path_factory.mktemp("tf")
    generate.write(rendered, out)
    return out / "python"


def test_binary_and_text_give_identical_output(tf_binary, tf_text, rendered):
    assert len(tf_binary.op) == len(tf_text.op) > 1000
    assert generate.render(tf_text, ["python"]) == rendered


def test_output_is_byte_stable_and_order_independent(tf_binary, rendered):
    assert generate.render(tf_binary, ["python"]) == rendered
    ops = list(tf_binary.op)
    random.Random(2024).shuffle(ops)
    shuffled = type(tf_binary)()
    shuffled.op.extend(ops)
    assert generate.render(shuffled, ["python"]) == rendered


def test_generated_modules_compile_without_warnings(generated_path):
    for path in sorted(generated_path.glob("*.py*")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. SyntaxWarning for an invalid escape
            compile(path.read_bytes(), str(path), "exec")


def test_odd_names_are_present_and_valid(rendered):
    text = "".join(f.content.decode() for f in rendered if f.path.suffix == ".py")
    # (signatures the formatter layout split over lines, joined back)
    text = re.sub(r",?\n\s*\)", ")", re.sub(r"\(\n\s*", "(", re.sub(r",\n\s*", ", ", text)))
    assert "def namespace_test_string_output(input: TensorLike, name: str | None = None)" in text
    assert '_execute_op("Namespace>TestStringOutput", [input], {}, name)' in text
    assert "def __retval(input: TensorLike, index: int, name: str | None = None)" in text
    assert "def ___mkl_dummy_conv2d_with_bias(" in text
    assert "def dtype_with_default_op(in_: TensorLike, name: str | None = None)" in text
    assert "def if_(" in text and "def while_(" in text


@pytest.fixture(scope="module")
def tf_module(generated_path, import_generated):
    import sys
    import types

    from opgen.runtime import dtypes
    fake = types.ModuleType("opgen.runtime")
    fake.execute_op = lambda op_type, inputs, attrs, name: [op_type]
    fake.dtypes = dtypes
    saved = sys.modules.get("opgen.runtime")
    sys.modules["opgen.runtime"] = fake
    try:
        module = import_generated(generated_path)
        for name in dir(module):   # every submodule imports while the stand-in is in place
            getattr(module, name)
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
    ("unique", "(x, out_idx=opgen.int32, name=None)"),
    ("concat_v2", "(values, axis, name=None)"),
    ("no_op", "(name=None)"),
])
def test_signatures_match_tensorflow(tf_module, function, signature):
    sig = inspect.signature(getattr(tf_module, function))
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()]
    plain = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    assert str(plain) == signature


def test_every_op_has_a_function_calling_it(tf_module, tf_binary):
    functions = [value for value in vars(tf_module).values()
                 if inspect.isfunction(value) and value.__module__.startswith(tf_module.__name__ + ".")]
    assert len(functions) == len(tf_binary.op)
    # The stand-in runtime returns its arguments as the "outputs".
    assert tf_module.add_v2(1, 2) == "AddV2"
    assert tf_module.mat_mul(1, 2) == "MatMul"


# --- formatters (tests/generator/test_formatters.py has the bundled OpList's checks) ---

@pytest.fixture(scope="module")
def formatted_languages(tf_binary, tmp_path_factory):
    """Python, Go and Rust for TensorFlow's registry, as `opgen generate` writes them."""
    out = tmp_path_factory.mktemp("tf-formatted")
    generate.generate(tf_binary, ["python", "go", "rust"], out)
    return out


def test_full_registry_go_is_gofmt_clean_and_marked_generated(formatted_languages, formatters):
    for path in sorted((formatted_languages / "go").rglob("*.go")):
        assert path.read_text().startswith("// Code generated by opgen. DO NOT EDIT.\n"), path
    assert formatters.gofmt(formatted_languages / "go") == ""


def test_full_registry_rust_is_rustfmt_clean(formatted_languages, formatters):
    assert formatters.rustfmt(formatted_languages / "rust") == ""


def test_full_registry_python_is_ruff_format_clean(formatted_languages, formatters):
    assert formatters.ruff_format(formatted_languages / "python") == ""


def test_full_registry_python_is_black_clean(formatted_languages, formatters):
    assert formatters.black(formatted_languages / "python") == ""
