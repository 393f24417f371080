"""The C target: names and literals checked by the C compiler itself, the generated
header and source compiled for TensorFlow 2.21's whole registry, output stable."""

from __future__ import annotations

import math
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

from opgen import _paths, generate, model, opdefs
from opgen.langs import c_family
from opgen.protos import op_def_pb2

CC = shutil.which("cc")
needs_cc = pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")


def _compile_and_run(source: str, tmp_path: Path) -> str:
    path = tmp_path / "prog.c"
    path.write_text(source)
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", str(path), "-o", str(tmp_path / "prog"),
                    "-lm"], check=True, capture_output=True, text=True)
    return subprocess.run([str(tmp_path / "prog")], check=True, capture_output=True,
                          text=True).stdout


# ------------------------------------------------------------------------- naming

@pytest.mark.parametrize("op_name, core", [
    ("MatMul", "MatMul"),
    ("_Arg", "Arg_"),
    ("__MklDummy", "MklDummy_"),   # underscores never doubled
    ("Namespace>TestStringOutput", "Namespace_TestStringOutput"),
])
def test_core_names_are_identifiers_without_reserved_underscores(op_name, core):
    assert c_family.core_name(op_name) == core
    assert "__" not in core and not core.startswith("_")


def test_two_ops_with_one_core_keep_distinct_names_in_any_order():
    def spec(name):
        return model.OpSpec(name, (), (), (), (), ())
    names = ["Foo_", "_Foo", "Foo"]
    first = c_family.op_cores([spec(n) for n in names])
    second = c_family.op_cores([spec(n) for n in reversed(names)])
    assert first == second
    assert len(set(first.values())) == 3


@pytest.mark.parametrize("name", ["default", "int", "class", "template", "NULL", "bool",
                                  "__x", "_y", "9lives", "a-b"])
def test_local_names_avoid_reserved_words_of_c_and_cpp(name):
    taken: set[str] = set()
    result = c_family.local_name(name, taken)
    assert result not in c_family.RESERVED
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", result) and "__" not in result
    assert c_family.local_name(name, taken) != result   # a second one gets another name


# ----------------------------------------------------------------------- literals

@needs_cc
def test_float_literals_are_the_float32_values_they_stand_for(tmp_path):
    rng = random.Random(0)
    values = [0.0, -0.0, 0.1, 1e-5, 3.4028234e38, 1e39, -1e39, 1.17549435e-38, 1e-45,
              math.inf, -math.inf, 0.5, 2.0 / 3.0] + [rng.uniform(-1e6, 1e6) for _ in range(20)]
    lines = "\n".join(f'  printf("%a\\n", (double){c_family.float_literal(v)});' for v in values)
    out = _compile_and_run(f"#include <math.h>\n#include <stdio.h>\nint main(void) {{\n{lines}\n"
                           "  return 0;\n}\n", tmp_path).split()
    for value, text in zip(values, out):
        with np.errstate(over="ignore"):   # beyond float32's range: infinity, as in C
            expected = float(np.float32(value))
        assert float.fromhex(text) == expected or (math.isinf(expected) and text in ("inf", "-inf"))
    assert c_family.float_literal(math.nan) == "NAN"


@needs_cc
def test_int_literals_cover_the_int64_range(tmp_path):
    values = [0, 1, -1, 2**31 - 1, -2**31, 2**31, 2**63 - 1, -2**63, -2**63 + 1]
    lines = "\n".join(f'  printf("%" PRId64 "\\n", (int64_t){c_family.int_literal(v)});' for v in values)
    out = _compile_and_run(f"#include <inttypes.h>\n#include <stdio.h>\nint main(void) {{\n{lines}\n"
                           "  return 0;\n}\n", tmp_path).split()
    assert [int(v) for v in out] == values


@needs_cc
def test_string_literals_hold_exactly_the_utf8_bytes(tmp_path):
    texts = ["plain", 'quote " and \\ backslash', "??= trigraph ??/", "tab\tnew\nline",
             "\x00nul", "1\x012", "é ü 漢字 \U0001f600", "*/ /* // ", "%d %s"]
    lines = "\n".join(
        f"  {{ static const char s[] = {c_family.string_literal(t)}; "
        f"for (size_t i = 0; i + 1 < sizeof s; ++i) printf(\"%02x\", (unsigned char)s[i]); "
        f"printf(\"\\n\"); }}" for t in texts)
    out = _compile_and_run(f"#include <stdio.h>\nint main(void) {{\n{lines}\n  return 0;\n}}\n",
                           tmp_path).split("\n")
    assert [bytes.fromhex(line) for line in out[:len(texts)]] == [t.encode() for t in texts]


def test_datatype_enumerators_match_the_runtime_header():
    header = (_paths.include_dir() / "tensorflow" / "c" / "tf_datatype.h").read_text()
    declared = {int(v): n for n, v in re.findall(r"\b(TF_[A-Z0-9_]+) = (\d+)", header)
                if n != "TF_COMPLEX"}
    assert declared == c_family.DATATYPE_ENUMERATORS


# ------------------------------------------------------- generated code compiles

_AWKWARD_OPS = """
op { name: "_Internal" input_arg { name: "int" type: DT_FLOAT } output_arg { name: "default" type: DT_FLOAT } }
op { name: "Namespace>Op" input_arg { name: "class" type_attr: "T" number_attr: "N" }
     output_arg { name: "template" type_attr: "T" number_attr: "N" }
     output_arg { name: "status" type: DT_INT32 }
     attr { name: "T" type: "type" } attr { name: "N" type: "int" minimum: 1 } }
op { name: "Defaults" output_arg { name: "out" type: DT_FLOAT }
     attr { name: "s" type: "string" default_value { s: "a\\"b\\\\c??/\\n\\303\\251" } }
     attr { name: "f" type: "float" default_value { f: -inf } }
     attr { name: "i" type: "int" default_value { i: -9223372036854775808 } }
     attr { name: "shape" type: "shape" default_value { shape { dim { size: 2 } dim { size: -1 } } } }
     attr { name: "ints" type: "list(int)" default_value { list { i: 1 i: 2 } } }
     attr { name: "types" type: "list(type)" default_value { list { type: DT_HALF } } }
     attr { name: "strings" type: "list(string)" default_value { list { s: "x" s: "" } } }
     attr { name: "t" type: "tensor" default_value { tensor { dtype: DT_INT32 int_val: 1 } } }
     attr { name: "fn" type: "func" default_value { func { name: "f" } } }
     attr { name: "fns" type: "list(func)" default_value { list { } } }
     attr { name: "shapes" type: "list(shape)" default_value { list { } } }
     attr { name: "register" type: "bool" default_value { b: true } }
     attr { name: "graph" type: "type" default_value { type: DT_FLOAT } }
     attr { name: "status" type: "type" default_value { type: DT_INT32 } }
     doc_marker: 0 }
"""


def _render(oplist, out_dir: Path, languages=("c",)) -> None:
    generate.write(generate.render(oplist, list(languages)), out_dir)


@needs_cc
def test_awkward_names_and_defaults_compile_as_c_and_cpp(tmp_path):
    text = _AWKWARD_OPS.replace("doc_marker: 0", "summary: \"Ends */ here /* and ??/\"")
    oplist = text_format.Parse(text, op_def_pb2.OpList())
    _render(oplist, tmp_path)
    include = _paths.include_dir()
    header = tmp_path / "c" / "opgen_ops.h"
    source = tmp_path / "c" / "opgen_ops.c"
    for args in ([CC, "-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", str(source)],
                 ["c++", "-std=c++17", "-Wall", "-Werror", "-x", "c++", str(header)]):
        result = subprocess.run(args + [f"-I{include}", f"-I{header.parent}", "-fsyntax-only"],
                                capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stderr
    text = header.read_text()
    assert "TF_Operation* opgen_Internal_(" in text and "opgen_Namespace_Op(" in text
    # an output named like a parameter every function has is renamed; struct fields
    # do not compete with parameters, only with reserved words
    assert "TF_Output* status_, TF_Status* status)" in text
    assert "  TF_DataType graph;\n" in text and "  unsigned char register_;\n" in text


@pytest.fixture(scope="module")
def tf_c_output(tmp_path_factory, tf_oplist_path):
    """opgen_ops.h/.c for TensorFlow 2.21's registry (skipped without the test data)."""
    out = tmp_path_factory.mktemp("tf_c")
    _render(opdefs.load(str(tf_oplist_path)), out)
    return out / "c"


@needs_cc
def test_tensorflow_registry_header_and_source_compile(tf_c_output, tf_oplist_path):
    # The source includes the header, so one compile checks both, with every warning.
    result = subprocess.run(
        [CC, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
         f"-I{_paths.include_dir()}", f"-I{tf_c_output}", str(tf_c_output / "opgen_ops.c")],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-5000:]
    assert len(re.findall(r"^TF_Operation\* opgen_", (tf_c_output / "opgen_ops.h").read_text(),
                          re.MULTILINE)) == len(opdefs.load(str(tf_oplist_path)).op)


def test_output_is_byte_stable_whatever_the_op_order(tf_c_output, tf_oplist_path):
    oplist = opdefs.load(str(tf_oplist_path))
    shuffled = op_def_pb2.OpList()
    ops = list(oplist.op)
    random.Random(1).shuffle(ops)
    shuffled.op.extend(ops)
    again = {f.path: f.content for f in generate.render(shuffled, ["c"])}
    assert again[Path("c/opgen_ops.h")] == (tf_c_output / "opgen_ops.h").read_bytes()
    assert again[Path("c/opgen_ops.c")] == (tf_c_output / "opgen_ops.c").read_bytes()


# ------------------------------------------------- generated C on the runtime's ops

_PROGRAM = r"""
#include <stdio.h>
#include "opgen_ops.h"

static void Print(const char* what, TF_Tensor* t) {
  printf("%s", what);
  for (int64_t i = 0; i < TF_TensorElementCount(t); ++i) printf(" %.6g", ((float*)TF_TensorData(t))[i]);
  printf("\n");
  TF_DeleteTensor(t);
}

static TF_Output Constant(TF_Graph* g, const float* values, const int64_t* dims, int rank, TF_Status* s) {
  int64_t n = 1;
  for (int i = 0; i < rank; ++i) n *= dims[i];
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, rank, (size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; ++i) ((float*)TF_TensorData(t))[i] = values[i];
  TF_Output out;
  opgen_Const(g, NULL, t, TF_FLOAT, &out, s);
  TF_DeleteTensor(t);
  return out;
}

int main(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  const float a_values[6] = {1, 2, 3, 4, 5, 6};
  const int64_t a_dims[2] = {3, 2};
  TF_Output a = Constant(g, a_values, a_dims, 2, s);

  /* Attrs struct: defaults, then one changed. */
  opgen_MatMulAttrs attrs;
  opgen_MatMulAttrsInit(&attrs);
  printf("defaults %d %d\n", attrs.transpose_a, attrs.transpose_b);
  attrs.transpose_a = 1;
  TF_Output ata, aat;
  TF_Operation* m1 = opgen_MatMul(g, NULL, a, a, &attrs, &ata, s);   /* a^T a */
  attrs.transpose_a = 0;
  attrs.transpose_b = 1;
  TF_Operation* m2 = opgen_MatMul(g, "", a, a, &attrs, &aat, s);     /* a a^T */
  printf("names %s %s %s\n", TF_OperationName(m1), TF_OperationName(m2), TF_Message(s));

  /* A list output with a smaller capacity than its length, and a list input. */
  TF_Output rows[2];
  int num_rows = -1;
  opgen_Unpack(g, "rows", a, 3, NULL, rows, 2, &num_rows, s);
  printf("unpack %d %s\n", num_rows, TF_Message(s));
  TF_Output sum;
  opgen_AddN(g, "sum", rows, 2, &sum, s);

  /* Errors: NULL and the status's code, here mismatched inner dimensions. */
  TF_Operation* bad = opgen_MatMul(g, NULL, a, a, NULL, NULL, s);
  printf("error %d %d\n", bad == NULL, (int)TF_GetCode(s));

  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(g, options, s);
  TF_DeleteSessionOptions(options);
  TF_Output fetches[3] = {ata, aat, sum};
  TF_Tensor* values[3] = {NULL, NULL, NULL};
  TF_SessionRun(session, NULL, NULL, NULL, 0, fetches, values, 3, NULL, 0, NULL, s);
  printf("run %d\n", (int)TF_GetCode(s));
  Print("ata", values[0]);
  Print("aat", values[1]);
  Print("sum", values[2]);
  TF_CloseSession(session, s);
  TF_DeleteSession(session, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return 0;
}
"""


@needs_cc
def test_generated_c_on_the_runtime_ops_behaves_as_documented(tmp_path):
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    _render(opdefs.load(str(_paths.bundled_ops_path())), tmp_path)
    source = tmp_path / "program.c"
    source.write_text(_PROGRAM)
    binary = tmp_path / "program"
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", str(source), str(tmp_path / "c" / "opgen_ops.c"),
                    f"-I{tmp_path / 'c'}", f"-I{_paths.include_dir()}", f"-L{library.parent}",
                    f"-l:{library.name}", f"-Wl,-rpath,{library.parent}", "-o", str(binary)], check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    lines = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()}
    assert lines["defaults"] == ["0", "0"]
    assert lines["names"] == ["MatMul", "MatMul_1"]
    assert lines["unpack"] == ["3"]
    assert lines["error"] == ["1", "3"]          # NULL, TF_INVALID_ARGUMENT
    assert lines["run"] == ["0"]
    a = np.float32([[1, 2], [3, 4], [5, 6]])
    np.testing.assert_allclose(np.float32(lines["ata"]), (a.T @ a).ravel(), rtol=1e-6)
    np.testing.assert_allclose(np.float32(lines["aat"]), (a @ a.T).ravel(), rtol=1e-6)
    np.testing.assert_allclose(np.float32(lines["sum"]), a[0] + a[1], rtol=1e-6)
