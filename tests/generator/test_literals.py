"""Every kind of attr default renders as Python source that evaluates back to the
value, and docstrings always compile, whatever text the OpDef carries."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest
from google.protobuf import text_format
from hypothesis import example, given, settings, strategies as st

from opgen import model, opdefs
from opgen.langs import python as py
from opgen.model import OpSpec
from opgen.protos import op_def_pb2

EVAL_GLOBALS = {"_math": math, "_np": np}


def _default(attr_type: str, default_text: str):
    op = text_format.Parse(f'''
        name: "D"
        attr {{ name: "a" type: "{attr_type}" default_value {{ {default_text} }} }}
    ''', op_def_pb2.OpDef())
    attr = OpSpec.from_opdef(op).optional_attrs[0]
    return attr.default, py.literal(attr.default, attr_type)


@pytest.mark.parametrize("attr_type, default_text, expected", [
    ("bool", "b: true", True),
    ("bool", "b: false", False),
    ("int", "i: -7", -7),
    ("int", "i: 9223372036854775807", 9223372036854775807),
    ("float", "f: 0.5", 0.5),
    ("float", "f: -1e-07", np.float32(-1e-07)),
    ("float", "f: 3e+38", np.float32(3e38)),
    ("string", 's: "NHWC"', "NHWC"),
    ("string", 's: ""', ""),
    ("string", r's: "quote\" back\\ nl\n tab\t nul\000 \"\"\""', 'quote" back\\ nl\n tab\t nul\x00 """'),
    ("string", r's: "caf\303\251"', "café"),
    ("string", r's: "\377\376"', b"\xff\xfe"),
    ("type", "type: DT_FLOAT", "float32"),
    ("type", "type: DT_HALF", "float16"),
    ("type", "type: DT_QINT8", "qint8"),
    ("list(type)", "list { type: [DT_INT32, DT_DOUBLE] }", ["int32", "float64"]),
    ("list(int)", "list { i: [1, 2, 2, 1] }", [1, 2, 2, 1]),
    ("list(int)", "list { }", []),
    ("list(float)", "list { f: [0.25, -2] }", [0.25, -2.0]),
    ("list(bool)", "list { b: [true, false] }", [True, False]),
    ("list(string)", 'list { s: ["a", "b\\"c"] }', ["a", 'b"c']),
    ("shape", "shape { dim { size: 2 } dim { size: -1 } }", [2, None]),
    ("shape", "shape { }", []),
    ("shape", "shape { unknown_rank: true }", None),
    ("list(shape)", "list { shape { dim { size: 3 } } shape { unknown_rank: true } }", [[3], None]),
    ("func", 'func { name: "my_fn" }', "my_fn"),
])
def test_default_literal_evaluates_back_to_the_value(attr_type, default_text, expected):
    _, source = _default(attr_type, default_text)
    value = eval(source, dict(EVAL_GLOBALS))
    assert value == expected
    assert type(value) is type(expected) or isinstance(expected, np.floating)


@pytest.mark.parametrize("text, check", [
    ("f: inf", lambda v: v == math.inf),
    ("f: -inf", lambda v: v == -math.inf),
    ("f: nan", lambda v: math.isnan(v)),
])
def test_special_floats_render_through_math(text, check):
    _, source = _default("float", text)
    assert "_math." in source
    assert check(eval(source, dict(EVAL_GLOBALS)))


def test_float32_defaults_render_shortest():
    assert _default("float", "f: 0.1")[1] == "0.1"
    assert _default("float", "f: 3")[1] == "3.0"
    assert _default("float", "f: 0.0001")[1] == "0.0001"


@pytest.mark.parametrize("tensor_text, dtype, expected", [
    ("dtype: DT_INT32 tensor_shape { } int_val: 1", np.int32, np.array(1, np.int32)),
    ("dtype: DT_UINT8 tensor_shape { dim { size: 4 } } int_val: [255, 0, 0, 255]", np.uint8,
     np.array([255, 0, 0, 255], np.uint8)),
    ("dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1.5", np.float32,
     np.full((2, 2), 1.5, np.float32)),
    ("dtype: DT_DOUBLE tensor_shape { dim { size: 3 } } double_val: [1, 2, 3]", np.float64,
     np.array([1.0, 2.0, 3.0])),
    ("dtype: DT_FLOAT tensor_shape { dim { size: 2 } } tensor_content: \"\\000\\000\\200?\\000\\000\\000@\"",
     np.float32, np.array([1.0, 2.0], np.float32)),
    ("dtype: DT_BOOL tensor_shape { dim { size: 2 } } bool_val: [true, false]", np.bool_,
     np.array([True, False])),
    ("dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: \"ab\"", object,
     np.array([b"ab"], object)),
])
def test_tensor_defaults_render_as_numpy_arrays(tensor_text, dtype, expected):
    _, source = _default("tensor", f"tensor {{ {tensor_text} }}")
    value = eval(source, dict(EVAL_GLOBALS))
    assert value.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(value, expected)


def test_list_of_tensors_default():
    _, source = _default("list(tensor)", "list { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 5 } }")
    [value] = eval(source, dict(EVAL_GLOBALS))
    assert value.dtype == np.int64 and value == 5


@settings(max_examples=200, deadline=None, derandomize=True)  # the same examples every run
@given(st.text())
def test_string_literal_round_trips_any_text(text):
    assert ast.literal_eval(py.string_literal(text)) == text


@settings(max_examples=100, deadline=None, derandomize=True)  # the same examples every run
@given(st.binary())
@example(b"\\'")  # an escaped backslash before a quote once lost its backslash
def test_string_literal_round_trips_any_bytes(data):
    assert ast.literal_eval(py.string_literal(data)) == data


@settings(max_examples=300, deadline=None, derandomize=True)  # the same examples every run
@given(st.text())
def test_docstring_literal_always_compiles_and_keeps_the_text(text):
    source = py.docstring_literal(text, indent="")
    expected = "\n".join(line.rstrip(" \t") for line in text.split("\n"))
    if "\n" in text:
        expected += "\n"
    assert ast.literal_eval(source) == expected


@pytest.mark.parametrize("text", ['ends with a quote"', 'has """ inside', '"""', 'x""""', "back\\slash\\",
                                  '""""', "\\", '"', "line\r\nbreak", "\x00\x1b"])
def test_docstring_literal_inside_a_function_compiles(text):
    source = f"def f():\n    {py.docstring_literal(text)}\n    return 1\n"
    namespace = {}
    exec(compile(source, "<test>", "exec"), namespace)
    assert namespace["f"]() == 1


def _docstring_literal_by_lines(text: str, indent: str) -> str:
    """The plain statement of docstring_literal's layout, line by line (the reference
    for its faster whole-text version)."""
    escaped = "".join(c if c in "\n\t" or c.isprintable() else repr(c)[1:-1]
                      for c in text.replace("\\", "\\\\"))
    lines = [line.rstrip(" \t") for line in escaped.split("\n")]
    body = "\n".join([lines[0]] + [indent + line if line else "" for line in lines[1:]])
    body = body.replace('"""', '\\"\\"\\"')
    if len(lines) > 1:
        return f'"""{body}\n{indent}"""'
    if body.endswith('"') and (len(body) - 1 - len(body[:-1].rstrip("\\"))) % 2 == 0:
        body = body[:-1] + '\\"'
    return f'"""{body}"""'


@settings(max_examples=500, deadline=None, derandomize=True)  # the same examples every run
@given(st.text(st.sampled_from(list(' \t\n\r"\\ab\x00\x0b\u2028\xe9\x7f'))),
       st.sampled_from(["", "  ", "    "]))
def test_docstring_literal_lays_out_lines_as_the_line_by_line_statement(text, indent):
    assert py.docstring_literal(text, indent) == _docstring_literal_by_lines(text, indent)


_DOCSTRING_OPS = r'''
op { name: "Plain" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
     attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
     attr { name: "mode" type: "string" default_value { s: "SAME" } allowed_values { list { s: "SAME" s: "VALID" } } } }
op { name: "OddDefault" output_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_INT32 }
     attr { name: "sep" type: "string" default_value { s: "\\\"\"\"\t" } } }
op { name: "Described" summary: "Sums,  caf\303\251.  " description: "One\\two  \n\n\n  \"\"\" three\t"
     input_arg { name: "x" type: DT_FLOAT description: "trailing  \n\n  blanks " }
     output_arg { name: "y" type: DT_FLOAT description: "out \\ put" }
     attr { name: "k" type: "int" description: "a count  \n  more" } }
op { name: "Old" output_arg { name: "y" type: DT_FLOAT } deprecation { version: 3 explanation: "use \"New\"" } }
'''


def _docstrings_two_ways(specs):
    """Each op's docstring as python_ops prints it, and as docstring_literal lays out
    the docstring's text."""
    by_name = {spec.name: spec for spec in specs}
    for op in py.python_ops(specs):
        spec = by_name[ast.literal_eval(op.op_type)]
        output_class = op.output_tuple.class_name if op.output_tuple else None
        params = py.parameter_names(spec, [output_class] if output_class else [])
        fields = list(op.output_tuple.fields) if op.output_tuple else []
        shared = py.SharedText()
        text = py.docstring(spec, params, fields, shared.attrs(spec.caller_attrs, params), shared)
        yield op.docstring, py.docstring_literal(text)


def test_docstrings_made_of_generated_text_are_laid_out_as_docstring_literal_does():
    # python_ops lays out docstrings of only generated text without docstring_literal;
    # text from the OpDef (or an attr doc needing escapes) goes through it.
    specs = model.op_specs(opdefs.load(_DOCSTRING_OPS.encode()))
    for printed, expected in _docstrings_two_ways(specs):
        assert printed == expected
        compile(f"def f():\n    {printed}\n", "<test>", "exec")


def test_tensorflow_docstrings_are_laid_out_as_docstring_literal_does(tf_oplist_path):
    for printed, expected in _docstrings_two_ways(model.op_specs(opdefs.load(tf_oplist_path))):
        assert printed == expected
