"""The C++ target: the header-only API compiles for TensorFlow 2.21's whole registry,
and a program on the bundled ops behaves as TensorFlow's C++ API does (naming, scopes,
attrs setters, list inputs and outputs, constants, errors as exceptions), checked
against numpy."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from opgen import _paths, generate, model, opdefs
from opgen.langs import cpp as cpp_lang

CXX = shutil.which("c++")
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler (c++) on PATH")


@pytest.mark.parametrize("attr, setter", [("transpose_a", "TransposeA"), ("T", "T"),
                                          ("data_format", "DataFormat"), ("use_cudnn_on_gpu", "UseCudnnOnGpu"),
                                          ("Tidx", "Tidx"), ("_class", "Class")])
def test_setters_are_camel_case_as_in_tensorflow(attr, setter):
    assert cpp_lang.camel_case(attr) == setter


def test_literals_spell_defaults_in_cpp():
    assert cpp_lang.literal([1, 2], "list(int)") == "std::vector<int64_t>{int64_t{1}, int64_t{2}}"
    assert cpp_lang.literal("a\0b", "string") == 'std::string("a\\000b", 3)'
    assert cpp_lang.literal(model.Shape(None), "shape") == "::opgen::PartialTensorShape::UnknownRank()"
    assert cpp_lang.literal(model.Shape((2, None)), "shape") == "::opgen::PartialTensorShape({2, -1})"
    assert cpp_lang.literal(model.DType.from_enum(19), "type") == "TF_HALF"


_AWKWARD_OPS = """
op { name: "Scope" input_arg { name: "scope" type: DT_FLOAT } input_arg { name: "attrs" type: DT_FLOAT }
     output_arg { name: "operation" type: DT_FLOAT } attr { name: "class" type: "int" } }
op { name: "Tensor" input_arg { name: "x" type_attr: "T" number_attr: "N" }
     output_arg { name: "y" type_attr: "T" number_attr: "N" }
     attr { name: "T" type: "type" } attr { name: "N" type: "int" minimum: 1 } }
op { name: "_Input" output_arg { name: "out" type_list_attr: "Tout" } output_arg { name: "out2" type: DT_INT32 }
     attr { name: "Tout" type: "list(type)" default_value { list { type: DT_FLOAT } } }
     attr { name: "s" type: "string" default_value { s: "a\\000b" } }
     attr { name: "bools" type: "list(bool)" default_value { list { b: true } } }
     attr { name: "t" type: "tensor" default_value { tensor { dtype: DT_INT32 int_val: 1 } } }
     attr { name: "f" type: "func" default_value { func { name: "fn" } } }
     attr { name: "fs" type: "list(func)" default_value { list { } } }
     attr { name: "shape" type: "shape" default_value { shape { unknown_rank: true } } }
     attr { name: "shapes" type: "list(shape)" default_value { list { } } }
     attr { name: "Operation" type: "float" default_value { f: nan } }
     attr { name: "operation_" type: "int" default_value { i: -9223372036854775808 } } }
op { name: "Cond" output_arg { name: "y" type: DT_FLOAT } }
op { name: "BuildWhileLoop" output_arg { name: "y" type: DT_FLOAT } }
op { name: "NoOutputs" attr { name: "fns" type: "list(func)" } attr { name: "tensors" type: "list(tensor)" } }
"""


@needs_cxx
def test_awkward_names_and_defaults_compile(tmp_path):
    from google.protobuf import text_format
    from opgen.protos import op_def_pb2
    oplist = text_format.Parse(_AWKWARD_OPS, op_def_pb2.OpList())
    generate.write(generate.render(oplist, ["cpp"]), tmp_path)
    header = tmp_path / "cpp" / "opgen_ops.h"
    result = subprocess.run([CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                             "-x", "c++", str(header), f"-I{_paths.include_dir()}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-5000:]
    text = header.read_text()
    assert "class Scope {" in text and "class Input_ {" in text   # ops namespace; no _Input
    # the framework's own opgen::ops::Cond and BuildWhileLoop keep their names
    assert "class Cond_2 {" in text and "class BuildWhileLoop_2 {" in text
    assert "::opgen::Input scope_, ::opgen::Input attrs_, int64_t class_" in text
    assert "::opgen::Output operation_;" in text                  # the member is taken


@needs_cxx
def test_tensorflow_registry_header_compiles(tmp_path, tf_oplist_path):
    generate.write(generate.render(opdefs.load(str(tf_oplist_path)), ["cpp"]), tmp_path)
    header = tmp_path / "cpp" / "opgen_ops.h"
    result = subprocess.run([CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                             "-x", "c++", str(header), f"-I{_paths.include_dir()}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-5000:]
    assert len(re.findall(r"^class \w+ \{$", header.read_text(), re.M)) == \
        len(opdefs.load(str(tf_oplist_path)).op)


_PROGRAM = r"""
#include <cstdio>
#include "opgen_ops.h"
namespace ops = opgen::ops;

static void Print(const char* what, const opgen::Tensor& t) {
  std::printf("%s", what);
  for (float v : t.ToVector<float>()) std::printf(" %.6g", v);
  std::printf("\n");
}

int main() {
  opgen::Scope root = opgen::Scope::NewRootScope();
  // Unique names per scope level; WithOpName; sub-scopes.
  auto a = ops::Placeholder(root.WithOpName("a"), TF_FLOAT);
  auto m1 = ops::MatMul(root, a, {{1.f, 2.f}, {3.f, 4.f}});
  auto m2 = ops::MatMul(root, a, a, ops::MatMul::TransposeB(true).TransposeA(false));
  opgen::Scope layer = root.NewSubScope("layer");
  auto m3 = ops::MatMul(layer, m1, m2, ops::MatMul::Attrs().TransposeA(true));
  auto sum = ops::AddN(layer.WithOpName("sum"), {m1, m2, m3});
  std::printf("names %s %s %s %s %s\n", m1.operation.name().c_str(), m2.operation.name().c_str(),
              m3.operation.name().c_str(), sum.operation.name().c_str(),
              layer.NewSubScope("layer").GetUniqueNameForOp("Relu").c_str());
  // Device and control dependencies reach the operation.
  auto dev = ops::Identity(root.WithDevice("/device:CPU:0").WithControlDependencies(m1), a);
  std::printf("device %s controls %d\n", dev.operation.device().c_str(),
              TF_OperationNumControlInputs(dev.operation.c_op()));
  // List outputs and list inputs.
  auto parts = ops::Unpack(root, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}, 3);
  auto joined = ops::ConcatV2(root, opgen::InputList(parts.output), 0);
  std::printf("unpack %zu\n", parts.size());

  opgen::ClientSession session(root);
  auto out = session.Run({{a, {{1.f, -2.f}, {0.5f, 3.f}}}}, {m1, m2, m3, sum, joined});
  Print("m1", out[0]);
  Print("m2", out[1]);
  Print("m3", out[2]);
  Print("sum", out[3]);
  Print("joined", out[4]);
  std::printf("shape %lld %lld\n", (long long)out[4].dim(0), (long long)out[4].NumElements());

  // Errors are exceptions carrying the TF_Code: mismatched inner dimensions...
  try {
    ops::MatMul(root, {{1.f, 2.f, 3.f}}, {{1.f, 2.f}});
    std::printf("no error\n");
  } catch (const opgen::Error& e) {
    std::printf("error %d\n", static_cast<int>(e.code()));
  }
  // ... and an unfed placeholder at run time.
  try {
    session.Run({m1});
    std::printf("no error\n");
  } catch (const opgen::Error& e) {
    std::printf("error %d\n", static_cast<int>(e.code()));
  }
  // Initializers refuse ragged rows.
  try {
    opgen::Input ragged({{1.f, 2.f}, {3.f}});
    std::printf("no error\n");
  } catch (const opgen::Error& e) {
    std::printf("error %d\n", static_cast<int>(e.code()));
  }
  return 0;
}
"""


@needs_cxx
def test_program_on_the_bundled_ops_behaves_like_tensorflows_cpp_api(tmp_path):
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    generate.write(generate.render(opdefs.load(str(_paths.bundled_ops_path())), ["cpp"]), tmp_path)
    source = tmp_path / "program.cc"
    source.write_text(_PROGRAM)
    binary = tmp_path / "program"
    subprocess.run([CXX, "-std=c++17", "-Wall", "-Werror", str(source), f"-I{tmp_path / 'cpp'}",
                    f"-I{_paths.include_dir()}", f"-L{library.parent}", f"-l:{library.name}",
                    f"-Wl,-rpath,{library.parent}", "-o", str(binary)], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()}

    assert lines["names"] == ["MatMul", "MatMul_1", "layer/MatMul", "layer/sum", "layer/layer/Relu"]
    assert lines["device"] == ["/device:CPU:0", "controls", "1"]
    assert lines["unpack"] == ["3"]

    a = np.float32([[1, -2], [0.5, 3]])
    m1 = a @ np.float32([[1, 2], [3, 4]])
    m2 = a @ a.T
    m3 = m1.T @ m2
    for key, expected in [("m1", m1), ("m2", m2), ("m3", m3), ("sum", m1 + m2 + m3),
                          ("joined", np.float32([1, 2, 3, 4, 5, 6]))]:
        np.testing.assert_allclose(np.float32(lines[key]), expected.ravel(), rtol=1e-5)
    assert lines["shape"] == ["6", "6"]
    invalid_argument = "3"   # TF_INVALID_ARGUMENT
    assert run.stdout.count("error ") == 3
    assert [v for k, v in (line.split() for line in run.stdout.splitlines() if line.startswith("error"))] \
        == [invalid_argument] * 3
