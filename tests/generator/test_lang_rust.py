"""The Rust binding: names, attr types, literals and doc comments, and `cargo check` of the
crate generated for TensorFlow's full registry."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from opgen import generate, opdefs
from opgen.langs import rust
from opgen.model import ArgKind, ArgSpec, AttrSpec, DType, OpSpec, Shape, TensorValue

from .conftest import TF_OPLIST

FLOAT = DType(1, "float32")


def _spec(name="Op", inputs=(), required=(), optional=(), outputs=(), **kw) -> OpSpec:
    return OpSpec(name=name, inputs=tuple(inputs), outputs=tuple(outputs), inferred_attrs=(),
                  required_attrs=tuple(required), optional_attrs=tuple(optional), **kw)


def test_op_names_are_snake_case_functions_and_camel_case_structs():
    names = rust.op_names(["MatMul", "Conv3DBackpropInputV2", "FFT2D", "_Arg", "Ns>Op"])
    assert names["MatMul"] == ("mat_mul", "MatMul")
    assert names["Conv3DBackpropInputV2"] == ("conv3d_backprop_input_v2", "Conv3DBackpropInputV2")
    assert names["FFT2D"] == ("fft2d", "FFT2D")
    assert names["_Arg"] == ("__arg", "_Arg")
    assert names["Ns>Op"] == ("ns_op", "Ns_Op")


def test_keywords_and_crate_types_get_an_underscore():
    names = rust.op_names(["Const", "Where", "Tensor", "Shape", "Box"])
    assert names["Const"] == ("const_", "Const")
    assert names["Where"] == ("where_", "Where")
    # the crate's own types are spelled crate::Shape in ops; prelude names stay free
    assert names["Tensor"][1] == "Tensor"
    assert names["Shape"][1] == "Shape"
    assert names["Box"] == ("box_", "Box_")


def test_colliding_names_are_numbered_in_op_name_order_whatever_the_input_order():
    forward = rust.op_names(["FooBar", "Foo_bar"])
    backward = rust.op_names(["Foo_bar", "FooBar"])
    assert forward == backward
    assert forward["FooBar"][0] == "foo_bar"
    assert forward["Foo_bar"][0] == "foo_bar_2"


def test_parameters_avoid_keywords_and_the_builder_local():
    spec = _spec(inputs=[ArgSpec("type", ArgKind.SINGLE, fixed_type=FLOAT),
                         ArgSpec("op", ArgKind.SINGLE, fixed_type=FLOAT)],
                 required=[AttrSpec("Tidx", "type"), AttrSpec("self", "int")],
                 optional=[AttrSpec("name", "string", default=""), AttrSpec("use", "bool", default=False)])
    assert rust.parameter_names(spec) == {"type": "type_", "op": "op_", "Tidx": "tidx", "self": "self_"}
    # builder methods name, device, build... stay the builder's own
    assert rust.method_names(spec) == {"name": "name_", "use": "use_"}


def test_attr_types_and_conversions():
    shape = AttrSpec("shape", "shape", default=Shape(None))
    assert rust.attr_type(shape) == "impl Into<crate::Shape>"
    assert rust.attr_value(shape, "value") == "crate::AttrValue::Shape(value.into())"
    ints = AttrSpec("ksize", "list(int)")
    assert rust.attr_type(ints) == "&[i64]"
    assert rust.attr_value(ints, "ksize") == "crate::AttrValue::IntList(ksize.to_vec())"
    assert rust.attr_type(AttrSpec("f", "func")) == "impl Into<String>"


def test_every_opdef_attr_type_has_a_rust_type():
    for attr_type in ["string", "int", "float", "bool", "type", "shape", "tensor", "func"]:
        for t in (attr_type, f"list({attr_type})"):
            assert rust.attr_type(AttrSpec("a", t))
            assert "{" not in rust.attr_value(AttrSpec("a", t), "v").replace("{}", "")


def test_dtype_variants_follow_the_data_type_enum():
    variants = dict(rust.dtypes())
    assert variants["Float"] == 1 and variants["Double"] == 2 and variants["Int32"] == 3
    assert variants["BFloat16"] == 14 and variants["Half"] == 19 and variants["Uint64"] == 23
    assert all(value < 100 for value in variants.values())   # no _REF values
    assert len(set(variants)) == len(variants)


def test_literals_spell_rust_values():
    assert rust.literal(True, "bool") == "true"
    assert rust.literal(-3, "int") == "-3"
    assert rust.literal(0.1, "float") == "0.1"
    assert rust.literal(float("-inf"), "float") == "f32::NEG_INFINITY"
    assert rust.literal('a"b\\\n', "string") == '"a\\"b\\\\\\n"'
    assert rust.literal(b"\xff", "string") == 'b"\\xff"'
    assert rust.literal(DType(3, "int32"), "type") == "DataType::Int32"
    assert rust.literal(Shape((None, 3)), "shape") == "Shape::from(&[-1, 3][..])"
    assert rust.literal(Shape(None), "shape") == "Shape::unknown()"
    assert rust.literal([1, 2], "list(int)") == "[1, 2]"
    assert rust.literal(TensorValue(FLOAT, (2,), (1.0, 2.0)), "tensor") == "a float32 tensor of shape [2]"


def test_doc_comments_are_line_comments_and_code_fences_never_become_doctests():
    doc = rust.doc_comment(["Summary.", "", "```", "x = f(y)", "```", "```python", "z", "```"])
    assert doc.split("\n") == ["/// Summary.", "///", "/// ```text", "/// x = f(y)", "/// ```",
                               "/// ```text", "/// z", "/// ```"]


def test_op_doc_lists_inputs_attrs_and_outputs():
    spec = _spec("MatMul",
                 inputs=[ArgSpec("a", ArgKind.SINGLE, type_attr="T", description="Left.")],
                 required=[AttrSpec("N", "int", minimum=1)],
                 optional=[AttrSpec("transpose_a", "bool", default=False, description="Transpose a.")],
                 outputs=[ArgSpec("product", ArgKind.SINGLE, type_attr="T")],
                 summary="Multiplies.\r\nTwo lines.")
    op = rust.rust_op(spec, "mat_mul", "MatMul")
    lines = op.doc.split("\n")
    assert lines[:2] == ["/// Multiplies.", "/// Two lines."]
    assert "/// - `a`: a tensor of type attr `T`" in lines
    assert "///   Left." in lines
    assert "/// - `n`: an `int` that is >= 1." in lines
    assert "/// - `product`: a tensor of type attr `T`" in lines
    assert op.parameters == "a: impl Into<crate::Output>, n: i64"
    (method,) = op.optional
    assert method.param == "transpose_a"
    assert "    /// Defaults to `false`." not in method.doc
    assert method.doc.split("\n") == ["    /// Transpose a.", "    ///", "    /// A `bool`. Defaults to `false`."]


def test_inputs_are_added_in_opdef_order_whatever_the_signature_order():
    spec = _spec(inputs=[ArgSpec("a", ArgKind.SINGLE, fixed_type=FLOAT),
                         ArgSpec("b", ArgKind.NUMBER_LIST, fixed_type=FLOAT, number_attr="N")],
                 input_order=("b", "a"))
    op = rust.rust_op(spec, "op", "Op")
    assert op.parameters.startswith("b: impl IntoIterator")
    assert [i.param for i in op.inputs] == ["a", "b"]
    assert op.inputs[1].add.lstrip().startswith("op.add_input_list(")


def test_skip_ops_are_left_out():
    ops = rust.rust_ops([_spec("A"), _spec("B", visibility="SKIP")])
    assert [op.struct for op in ops] == ["A"]


def _cargo() -> str:
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust crate is not compiled")
    return cargo


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's op registry (tf-2.21-oplist.pb) not found")
def test_crate_for_tensorflows_registry_passes_cargo_check(tmp_path):
    cargo = _cargo()
    oplist = opdefs.load(TF_OPLIST)
    generate.generate(oplist, ["rust"], tmp_path)
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target"),
           "OPGEN_LIB_DIR": str(tmp_path)}   # check links nothing: any folder will do
    result = subprocess.run([cargo, "check", "--offline", "--quiet"], cwd=tmp_path / "rust",
                            env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-5000:]
    assert "error" not in result.stderr
    ops_rs = (tmp_path / "rust" / "src" / "ops.rs").read_text()
    assert ops_rs.count("\npub fn ") == len(oplist.op)
