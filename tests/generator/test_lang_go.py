"""The Go binding: names, functional options, literals and doc comments, and `go vet` of
the package generated for TensorFlow's full registry."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from opgen import _paths, generate, opdefs
from opgen.langs import go
from opgen.model import ArgKind, ArgSpec, AttrSpec, DType, OpSpec, Shape

from .conftest import TF_OPLIST

FLOAT = DType(1, "float32")


def _spec(name="Op", inputs=(), required=(), optional=(), outputs=(), **kw) -> OpSpec:
    return OpSpec(name=name, inputs=tuple(inputs), outputs=tuple(outputs), inferred_attrs=(),
                  required_attrs=tuple(required), optional_attrs=tuple(optional), **kw)


def test_camel_case_names():
    assert go.camel_case("transpose_a") == "TransposeA"
    assert go.camel_case("Tidx") == "Tidx"
    assert go.camel_case("_Arg") == "Arg"
    assert go.camel_case("Ns>Op") == "NsOp"
    assert go.lower_camel_case("transpose_a") == "transposeA"
    assert go.lower_camel_case("T") == "t"
    assert go.lower_camel_case("Tidx") == "tidx"
    assert go.lower_camel_case("DTypes") == "dTypes"
    assert go.lower_camel_case("split_dim") == "splitDim"


def test_functions_and_options_are_exported_and_unique():
    specs = [_spec("MatMul", optional=[AttrSpec("transpose_a", "bool", default=False)]),
             _spec("MatMulTransposeA"),     # wants the name of MatMul's option
             _spec("_Arg"), _spec("Arg"), _spec("Scope"), _spec("Shape")]
    names = go.op_names(specs)
    assert names["MatMul"].function == "MatMul"
    assert names["MatMul"].attr_type == "MatMulAttr"
    assert names["MatMulTransposeA"].function == "MatMulTransposeA"
    assert names["MatMul"].options == {"transpose_a": "MatMulTransposeA2"}
    assert names["Arg"].function == "Arg" and names["_Arg"].function == "Arg2"
    # package op's own Scope keeps its name; tf.Shape is in another package
    assert names["Scope"].function == "Scope2" and names["Shape"].function == "Shape"
    assert names["Arg"].attr_type == ""   # no optional attrs, no option type
    assert go.op_names(list(reversed(specs))) == names


def test_parameters_avoid_keywords_predeclared_names_and_locals():
    spec = _spec(inputs=[ArgSpec("type", ArgKind.SINGLE, fixed_type=FLOAT),
                         ArgSpec("len", ArgKind.SINGLE, fixed_type=FLOAT),
                         ArgSpec("scope", ArgKind.SINGLE, fixed_type=FLOAT)],
                 required=[AttrSpec("err", "int"), AttrSpec("out_type", "type"), AttrSpec("tf", "int")])
    assert go.parameter_names(spec) == {"type": "type_", "len": "len_", "scope": "scope_",
                                        "err": "err_", "out_type": "outType", "tf": "tf_"}


def test_every_opdef_attr_type_has_a_go_type():
    for attr_type in ["string", "int", "float", "bool", "type", "shape", "tensor", "func"]:
        for t in (attr_type, f"list({attr_type})"):
            assert go.attr_type(AttrSpec("a", t))
    assert go.attr_value(AttrSpec("f", "func"), "value") == "tf.Func(value)"
    assert go.attr_value(AttrSpec("f", "list(func)"), "fs") == "funcNames(fs)"


def test_literals_spell_go_values():
    assert go.literal(False, "bool") == "false"
    assert go.literal(0.1, "float") == "0.1"
    assert go.literal(float("nan"), "float") == "NaN"
    assert go.literal("NHWC", "string") == '"NHWC"'
    assert go.literal(b"\xff\x00", "string") == '"\\xff\\u0000"'
    assert go.literal(DType(9, "int64"), "type") == "tf.Int64"
    assert go.literal(Shape((None, 3)), "shape") == "tf.MakeShape(-1, 3)"
    assert go.literal([DType(1, "float32")], "list(type)") == "[]tf.DataType{tf.Float}"
    assert go.literal([1, 2], "list(int)") == "[]int64{1, 2}"


def test_outputs_and_results():
    spec = _spec("Unique", inputs=[ArgSpec("x", ArgKind.SINGLE, type_attr="T")],
                 outputs=[ArgSpec("y", ArgKind.SINGLE, type_attr="T"),
                          ArgSpec("idx", ArgKind.SINGLE, fixed_type=DType(3, "int32"))])
    op = go.go_op(spec, go.op_names([spec])["Unique"])
    assert op.results == "(tf.Output, tf.Output, error)"
    assert op.success_return == "return op.Output(0), op.Output(1), nil"
    assert op.error_return == "return tf.Output{}, tf.Output{}, err"
    assert op.output_args == ""

    split = _spec("Split", inputs=[ArgSpec("value", ArgKind.SINGLE, type_attr="T")],
                  required=[AttrSpec("num_split", "int")],
                  outputs=[ArgSpec("output", ArgKind.NUMBER_LIST, type_attr="T", number_attr="num_split")])
    op = go.go_op(split, go.op_names([split])["Split"])
    assert op.parameters == "scope *Scope, value tf.Output, numSplit int64"
    assert op.results == "([]tf.Output, error)"
    assert op.output_args == '[]string{"output"}, []bool{true}'
    assert op.success_return == "return outs[0], nil"

    no_outputs = _spec("NoOp")
    op = go.go_op(no_outputs, go.op_names([no_outputs])["NoOp"])
    assert op.results == "(*tf.Operation, error)"


def test_doc_comment_starts_with_the_function_name():
    spec = _spec("Relu", inputs=[ArgSpec("features", ArgKind.SINGLE, type_attr="T")],
                 outputs=[ArgSpec("activations", ArgKind.SINGLE, type_attr="T")],
                 summary="Computes rectified linear: `max(features, 0)`.")
    op = go.go_op(spec, go.op_names([spec])["Relu"])
    lines = op.doc.split("\n")
    assert lines[0] == "// Relu adds a `Relu` operation to the scope's graph."
    assert lines[2] == "// Computes rectified linear: `max(features, 0)`."
    assert all(line == "//" or line.startswith("// ") for line in lines)


def _go() -> str:
    found = shutil.which("go")
    if not found:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    return found


def go_env(tmp_path) -> dict[str, str]:
    """Offline, self-contained Go settings with cgo pointed at the runtime's headers."""
    return {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
            "GOPATH": str(tmp_path / "gopath"), "GOCACHE": os.environ.get("GOCACHE", str(tmp_path / "gocache")),
            "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}"}


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's op registry (tf-2.21-oplist.pb) not found")
def test_package_for_tensorflows_registry_passes_go_vet(tmp_path):
    go_tool = _go()
    oplist = opdefs.load(TF_OPLIST)
    generate.generate(oplist, ["go"], tmp_path)
    result = subprocess.run([go_tool, "vet", "./..."], cwd=tmp_path / "go", env=go_env(tmp_path),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-5000:]
    ops_go = (tmp_path / "go" / "op" / "ops.go").read_text()
    assert len(re.findall(r"^func [A-Z]\w*\(scope \*Scope", ops_go, re.M)) == len(oplist.op)
