"""Python names follow TensorFlow's generator: snake_case functions, reserved words
renamed with a trailing underscore, collisions resolved deterministically."""

from __future__ import annotations

import ast
import dataclasses
import keyword

import pytest
from google.protobuf import text_format

from opgen.langs import naming
from opgen.langs import python as py
from opgen.model import OpSpec
from opgen.protos import op_def_pb2


@pytest.mark.parametrize("op_name, expected", [
    ("MatMul", "mat_mul"),
    ("Conv2D", "conv2d"),
    ("BiasAddV1", "bias_add_v1"),
    ("Conv3DBackpropInputV2", "conv3d_backprop_input_v2"),
    ("FFT2D", "fft2d"),
    ("BatchMatMulV2", "batch_mat_mul_v2"),
    ("AddV2", "add_v2"),
    ("Relu6", "relu6"),
    ("LRN", "lrn"),
    ("LRNGrad", "lrn_grad"),
    ("CTCLoss", "ctc_loss"),
    ("ResourceApplyAdaMax", "resource_apply_ada_max"),
    ("AdjustContrastv2", "adjust_contrastv2"),
    ("QuantizeAndDequantizeV4Grad", "quantize_and_dequantize_v4_grad"),
    ("StringToHashBucketFast", "string_to_hash_bucket_fast"),
    ("IFFT3D", "ifft3d"),
    ("Abs", "abs"),
    ("A", "a"),
    ("_Retval", "__retval"),            # TensorFlow's rule sees only letter case
    ("_MklConv2D", "__mkl_conv2d"),
    ("_TPUReplicate", "_tpu_replicate"),
    ("__MklDummyConv2DWithBias", "___mkl_dummy_conv2d_with_bias"),
    ("Namespace>TestStringOutput", "namespace_test_string_output"),
    ("Outer>Inner>OpV2", "outer_inner_op_v2"),
])
def test_snake_case_matches_tensorflow(op_name, expected):
    assert naming.snake_case(op_name) == expected


def test_function_names_rename_keywords_and_are_identifiers():
    names = py.function_names(["If", "While", "For", "Print", "MatMul", "Namespace>X"])
    assert names == {"If": "if_", "While": "while_", "For": "for_", "Print": "print_",
                     "MatMul": "mat_mul", "Namespace>X": "namespace_x"}
    assert all(n.isidentifier() and not keyword.iskeyword(n) for n in names.values())


def test_colliding_function_names_resolve_the_same_for_any_input_order():
    ops = ["FooBar", "Foo>Bar", "FOOBar", "MatMul"]
    first = py.function_names(ops)
    assert first == py.function_names(reversed(ops))
    assert sorted(first.values()) == ["foo_bar", "foo_bar_2", "foo_bar_3", "mat_mul"]
    assert first["FOOBar"] == "foo_bar"       # "FOOBar" sorts first and keeps the name


def test_function_names_never_shadow_module_globals():
    assert py.function_names(["_dtypes"])["_dtypes"] == "_dtypes_2"
    assert py.function_names(["_execute_op"])["_execute_op"] == "_execute_op_2"
    # The stub annotates with int, list...: an op may not take those names there.
    assert py.function_names(["Int", "List", "Complex"]) == {
        "Int": "int_2", "List": "list_2", "Complex": "complex"}


def _spec(text: str) -> OpSpec:
    return OpSpec.from_opdef(text_format.Parse(text, op_def_pb2.OpDef()))


def test_reserved_parameter_names_get_a_trailing_underscore():
    spec = _spec('''
        name: "Reserved"
        input_arg { name: "in" type: DT_FLOAT }
        input_arg { name: "lambda" type: DT_FLOAT }
        input_arg { name: "input" type: DT_FLOAT }
        attr { name: "name" type: "string" }
        attr { name: "in_" type: "int" }
        attr { name: "None" type: "bool" default_value { b: true } }
        attr { name: "ValueError" type: "int" default_value { i: 1 } }
        attr { name: "filter" type: "int" default_value { i: 1 } }
    ''')
    params = py.parameter_names(spec)
    assert params == {"in": "in_", "lambda": "lambda_", "input": "input", "name": "name_",
                      "in_": "in__", "None": "None_", "ValueError": "ValueError_",
                      "filter": "filter"}


def test_output_fields_are_valid_namedtuple_fields():
    spec = _spec('''
        name: "Outs"
        output_arg { name: "is" type: DT_FLOAT }
        output_arg { name: "_hidden" type: DT_FLOAT }
        output_arg { name: "hidden" type: DT_FLOAT }
    ''')
    assert py.output_field_names(spec.outputs) == ["is_", "hidden", "hidden_"]


def test_text_shared_between_ops_is_what_each_op_alone_gets(tf_oplist_path):
    from opgen import model, opdefs
    specs = {s.name: s for s in model.op_specs(opdefs.load(tf_oplist_path))}
    for op in py.python_ops(list(specs.values())):
        spec = specs[ast.literal_eval(op.op_type)]
        output_class = op.output_tuple.class_name if op.output_tuple else None
        alone = py.python_op(spec, op.function, output_class, op.aliases)   # its own SharedText
        assert dataclasses.replace(alone, deprecated_aliases=op.deprecated_aliases) == op
