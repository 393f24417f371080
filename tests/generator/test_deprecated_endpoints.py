"""Deprecated ApiDef endpoints (`endpoint { deprecated: true deprecation_version: 2 }`):
the model keeps them and makes the first current endpoint primary; Python aliases warn
once and call the function; C, C++, Rust and Go mark their aliases so that compilers
(or Go's tools) flag callers; `show` names them; `diff` calls deprecating compatible and
removing breaking."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from opgen import _paths, api_def, diff, generate, model, opdefs, show
from opgen.langs import cpp as cpp_lang

OPS = r'''
op {
  name: "MatMul"
  input_arg { name: "a" type_attr: "T" }
  input_arg { name: "b" type_attr: "T" }
  output_arg { name: "product" type_attr: "T" }
  attr { name: "transpose_a" type: "bool" default_value { b: false } }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE] } } }
}
op {
  name: "Relu"
  input_arg { name: "features" type_attr: "T" }
  output_arg { name: "activations" type_attr: "T" }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE] } } }
}
'''

# Dot is listed first but deprecated: MatrixProduct is the primary. Rectify is deprecated
# by its deprecation_version alone, as TensorFlow's Python generator reads it.
API_DEFS = '''
op {
  graph_op_name: "MatMul"
  endpoint { name: "Dot" deprecated: true deprecation_version: 2 }
  endpoint { name: "linalg.MatrixProduct" }
  endpoint { name: "Mm" }
}
op {
  graph_op_name: "Relu"
  endpoint { name: "nn.Rectify" deprecation_version: 3 }
  endpoint { name: "Relu" }
}
'''


def _api_defs(tmp_path: Path, text: str, name: str = "api.pbtxt") -> api_def.ApiDefSet:
    path = tmp_path / name
    path.write_text(text)
    return api_def.load([path])


def _specs(tmp_path: Path, text: str = API_DEFS, name: str = "api.pbtxt") -> dict[str, model.OpSpec]:
    specs = model.op_specs(opdefs.load(OPS.encode()), _api_defs(tmp_path, text, name))
    return {s.name: s for s in specs}


# --------------------------------------------------------------------------- model


def test_the_first_current_endpoint_is_primary_and_deprecations_are_kept(tmp_path):
    specs = _specs(tmp_path)
    matmul, relu = specs["MatMul"], specs["Relu"]
    assert matmul.endpoints == ("linalg.MatrixProduct", "Dot", "Mm")
    assert matmul.deprecated_endpoints == (model.DeprecatedEndpoint("Dot", 2),)
    assert matmul.endpoint_deprecation("Dot").removed_in == 2
    assert matmul.endpoint_deprecation("Mm") is None
    assert relu.endpoints == ("Relu", "nn.Rectify")
    assert relu.deprecated_endpoints == (model.DeprecatedEndpoint("nn.Rectify", 3),)


def test_when_every_endpoint_is_deprecated_the_first_stays_primary(tmp_path):
    specs = _specs(tmp_path, 'op { graph_op_name: "Relu" endpoint { name: "Old" deprecated: true }'
                             ' endpoint { name: "Older" deprecated: true } }')
    assert specs["Relu"].endpoints == ("Old", "Older")
    assert [d.name for d in specs["Relu"].deprecated_endpoints] == ["Old", "Older"]


def test_a_later_file_replaces_the_endpoints_and_their_deprecation(tmp_path):
    base = tmp_path / "base.pbtxt"
    base.write_text(API_DEFS)
    override = tmp_path / "python.pbtxt"
    override.write_text('op { graph_op_name: "MatMul" endpoint { name: "Dot" } }')
    specs = {s.name: s for s in model.op_specs(opdefs.load(OPS.encode()),
                                               api_def.load([base, override]))}
    assert specs["MatMul"].endpoints == ("Dot",) and specs["MatMul"].deprecated_endpoints == ()


def test_a_negative_deprecation_version_is_refused(tmp_path):
    path = tmp_path / "bad.pbtxt"
    path.write_text('op {\n  graph_op_name: "Relu"\n  endpoint { name: "R" deprecation_version: -1 }\n}\n')
    problems = api_def.validate(api_def.load([path]), opdefs.load(OPS.encode()))
    assert [str(p) for p in problems] == [
        f"{path}:2:3: op 'Relu': endpoint 'R': deprecation_version -1 is not an API version"]


# --------------------------------------------------------------------------- Python


@pytest.fixture
def package(tmp_path, fake_runtime, import_generated):
    out = tmp_path / "out"
    generate.generate(opdefs.load(OPS.encode()), ["python"], out,
                      api_defs=_api_defs(tmp_path, API_DEFS))
    return import_generated(out / "python")


def test_a_current_alias_is_the_function_itself(package):
    assert package.mm is package.matrix_product
    assert not hasattr(package, "mat_mul")


def test_a_deprecated_alias_warns_once_naming_what_to_use_then_calls_the_function(package, fake_runtime):
    expected = package.matrix_product(1.0, 2.0, transpose_a=True)
    with pytest.warns(DeprecationWarning) as record:
        result = package.dot(1.0, 2.0, transpose_a=True)
    assert [str(w.message) for w in record] == [
        "dot is deprecated (removed in version 2): use matrix_product instead"]
    assert record[0].filename == __file__        # points at the caller
    assert result == expected
    assert fake_runtime.calls[-1] == fake_runtime.calls[-2] == (
        "MatMul", [1.0, 2.0], {"transpose_a": True}, None)
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        package.dot(1.0, 2.0)
    assert again == []


def test_each_deprecated_alias_warns_for_itself(package):
    with pytest.warns(DeprecationWarning, match=r"^rectify is deprecated \(removed in version 3\): "
                                                r"use relu instead$"):
        package.rectify(1.0)


def test_a_deprecated_alias_keeps_the_signature_and_stays_public(package):
    assert inspect.signature(package.dot) == inspect.signature(package.matrix_product)
    assert package.dot.__name__ == "dot"
    assert "deprecated" in package.dot.__doc__
    assert {"dot", "mm", "matrix_product", "rectify", "relu"} <= set(package.__all__)


def test_the_stub_marks_deprecated_aliases_for_type_checkers(tmp_path):
    out = tmp_path / "out"
    generate.generate(opdefs.load(OPS.encode()), ["python"], out,
                      api_defs=_api_defs(tmp_path, API_DEFS))
    stub = (out / "python" / "__init__.pyi").read_text()
    assert "from typing_extensions import deprecated as _deprecated_endpoint\n" in stub
    assert ('@_deprecated_endpoint(\n    "dot is deprecated (removed in version 2): use '
            'matrix_product instead"\n)\ndef dot(\n    a: TensorLike, b: TensorLike, '
            'transpose_a: bool = ..., ') in stub
    assert "\nmm = matrix_product\n" in stub


def test_mypy_reports_calls_of_deprecated_aliases_only(tmp_path):
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    out = tmp_path / "out"
    generate.generate(opdefs.load(OPS.encode()), ["python"], out,
                      api_defs=_api_defs(tmp_path, API_DEFS))
    shutil.copytree(out / "python", tmp_path / "pkgs" / "genops")
    (tmp_path / "use.py").write_text("import genops\n\ngenops.matrix_product(1.0, 2.0)\n"
                                     "genops.mm(1.0, 2.0)\ngenops.dot(1.0, 2.0)\n")
    search = [str(tmp_path / "pkgs")]
    opgen_root = Path(model.__file__).resolve().parents[1]
    if "site-packages" not in str(opgen_root):
        search.append(str(opgen_root))  # a source checkout; mypy refuses site-packages here
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
         "--enable-error-code", "deprecated", "--cache-dir", str(tmp_path / "cache"), "use.py"],
        cwd=tmp_path, env=dict(os.environ, MYPYPATH=os.pathsep.join(search)),
        capture_output=True, text=True, timeout=300)
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1, result.stdout + result.stderr
    assert errors[0].startswith("use.py:5:") and "dot is deprecated" in errors[0]


# ------------------------------------------------------------------ show and diff


def test_show_names_the_deprecated_endpoints(tmp_path):
    text = show.format_spec(_specs(tmp_path)["MatMul"])
    assert "  endpoints: linalg.MatrixProduct, Dot (deprecated, removed in version 2), Mm\n" in text


def _diff(tmp_path: Path, old: str, new: str) -> diff.Diff:
    return diff.diff_specs(list(_specs(tmp_path, old, "old.pbtxt").values()),
                           list(_specs(tmp_path, new, "new.pbtxt").values()))


def _changes(result: diff.Diff) -> set[tuple[bool, str]]:
    return {(c.breaking, c.message) for c in result.changes}


CURRENT = 'op { graph_op_name: "MatMul" endpoint { name: "MatrixProduct" } endpoint { name: "Dot" } }'
DEPRECATED = ('op { graph_op_name: "MatMul" endpoint { name: "MatrixProduct" }'
              ' endpoint { name: "Dot" deprecated: true deprecation_version: 2 } }')


def test_diff_deprecating_an_endpoint_is_compatible(tmp_path):
    result = _diff(tmp_path, CURRENT, DEPRECATED)
    assert _changes(result) == {(False, "endpoint Dot deprecated, removed in version 2")}
    assert not result.has_breaking


def test_diff_removing_an_endpoint_breaks(tmp_path):
    result = _diff(tmp_path, DEPRECATED,
                   'op { graph_op_name: "MatMul" endpoint { name: "MatrixProduct" } }')
    assert _changes(result) == {(True, "endpoint Dot removed")}
    assert result.has_breaking


def test_diff_a_new_primary_that_keeps_the_old_name_is_compatible(tmp_path):
    old = 'op { graph_op_name: "MatMul" endpoint { name: "Dot" } }'
    assert _changes(_diff(tmp_path, old, DEPRECATED)) == {
        (False, "primary endpoint Dot -> MatrixProduct (Dot is still an endpoint)"),
        (False, "endpoint Dot deprecated, removed in version 2")}
    assert _changes(_diff(tmp_path, old, 'op { graph_op_name: "MatMul" endpoint { name: "Mm" } }')) == {
        (True, "renamed from Dot to Mm")}


# ------------------------------------------------------------ C, C++, Rust, Go


@pytest.fixture
def generated(tmp_path) -> Path:
    out = tmp_path / "gen"
    generate.generate(opdefs.load(OPS.encode()), ["c", "cpp", "rust", "go"], out,
                      api_defs=_api_defs(tmp_path, API_DEFS))
    return out


def test_each_language_aliases_every_other_endpoint_name(generated, tmp_path):
    specs = list(_specs(tmp_path).values())
    assert [a.declaration for op in cpp_lang.cpp_ops(specs) for a in op.aliases] == [
        "using MatrixProduct = MatMul;",
        'using Dot [[deprecated("Dot is deprecated (removed in version 2): use MatMul instead")]] = MatMul;',
        "using Mm = MatMul;",
        'using Rectify [[deprecated("Rectify is deprecated (removed in version 3): use Relu instead")]] = Relu;']
    c_header = (generated / "c" / "opgen_ops.h").read_text()
    assert re.search(r'^OPGEN_DEPRECATED\("opgen_Dot is deprecated \(removed in version 2\): use '
                     r'opgen_MatMul instead"\) static inline TF_Operation\* opgen_Dot\(', c_header, re.M)
    assert re.search(r"^static inline TF_Operation\* opgen_Mm\(", c_header, re.M)
    rust = (generated / "rust" / "src" / "ops.rs").read_text()
    assert ('#[deprecated(note = "dot is deprecated (removed in version 2): use mat_mul instead")]\n'
            "pub fn dot(a: impl Into<crate::Output>, b: impl Into<crate::Output>) -> MatMul {\n"
            "    mat_mul(a, b)\n}") in rust
    assert "\npub fn mm(a: impl Into<crate::Output>" in rust
    go = (generated / "go" / "op" / "ops.go").read_text()
    assert ("//\n// Deprecated: Dot is deprecated (removed in version 2): use MatMul instead.\n"
            "var Dot = MatMul\n") in go
    assert "// Mm is MatMul under the name of an ApiDef endpoint.\nvar Mm = MatMul\n" in go


CXX = shutil.which("c++")
CC = shutil.which("cc")


def _compile(compiler: str, args: list[str], source: Path) -> subprocess.CompletedProcess:
    return subprocess.run([compiler, *args, "-Wall", "-Wextra", "-Werror=deprecated-declarations",
                           "-fsyntax-only", f"-I{_paths.include_dir()}", f"-I{source.parent}",
                           str(source)], capture_output=True, text=True, timeout=120)


def _assert_warned_only_if(result, fails: bool, warning: str) -> None:
    """A -Werror compile fails with ``warning`` exactly when ``fails``, else is silent."""
    assert (result.returncode != 0) == fails, result.stderr[-3000:]
    if fails:
        assert warning in result.stderr
    else:
        assert result.stderr == ""


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (c++) on PATH")
@pytest.mark.parametrize("name, fails", [("Dot", True), ("MatrixProduct", False), ("Mm", False)])
def test_cpp_using_a_deprecated_alias_fails_under_werror(generated, name, fails):
    source = generated / "cpp" / "use.cc"
    source.write_text('#include "opgen_ops.h"\n\n'
                      "opgen::Output Use(const opgen::Scope& root, opgen::Input a, opgen::Input b) {\n"
                      f"  return opgen::ops::{name}(root, a, b, opgen::ops::{name}::TransposeA(true));\n"
                      "}\n")
    _assert_warned_only_if(_compile(CXX, ["-std=c++17"], source), fails,
                           "Dot is deprecated (removed in version 2): use MatMul instead")


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
@pytest.mark.parametrize("name, fails", [("opgen_Dot", True), ("opgen_MatrixProduct", False)])
def test_c_using_a_deprecated_alias_fails_under_werror(generated, name, fails):
    source = generated / "c" / "use.c"
    source.write_text('#include <stddef.h>\n#include "opgen_ops.h"\n\n'
                      "TF_Operation* use(TF_Graph* graph, TF_Output a, TF_Output b, TF_Status* status) {\n"
                      f"  return {name}(graph, NULL, a, b, NULL, NULL, status);\n"
                      "}\n")
    _assert_warned_only_if(_compile(CC, ["-std=c11"], source), fails,
                           "opgen_Dot is deprecated (removed in version 2): use opgen_MatMul instead")


def _cargo() -> str:
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust crate is not compiled")
    return cargo


def test_rust_calling_a_deprecated_alias_is_denied_by_the_deprecated_lint(generated):
    cargo = _cargo()
    crate = generated / "rust"
    (crate / "examples").mkdir()
    for name in ("dot", "matrix_product"):
        (crate / "examples" / f"use_{name}.rs").write_text(
            "pub fn build(a: opgen_ops::Output, b: opgen_ops::Output) -> opgen_ops::ops::MatMul {\n"
            f"    opgen_ops::ops::{name}(a, b).transpose_a(true)\n}}\n\nfn main() {{}}\n")
    env = {**os.environ, "CARGO_TARGET_DIR": str(generated / "target"),
           "OPGEN_LIB_DIR": str(generated), "RUSTFLAGS": "-D deprecated"}

    def check(example: str) -> subprocess.CompletedProcess:
        return subprocess.run([cargo, "check", "--offline", "--quiet", "--example", example],
                              cwd=crate, env=env, capture_output=True, text=True, timeout=600)

    current = check("use_matrix_product")
    assert current.returncode == 0, current.stderr[-3000:]
    deprecated = check("use_dot")
    assert deprecated.returncode != 0
    assert "use of deprecated function `opgen_ops::ops::dot`" in deprecated.stderr
    assert "dot is deprecated (removed in version 2): use mat_mul instead" in deprecated.stderr


def test_go_aliases_compile_and_carry_the_deprecated_paragraph(generated):
    go_tool = shutil.which("go")
    if not go_tool:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    # The aliases have the function's type: vet type-checks this file with the package.
    (generated / "go" / "op" / "use_test.go").write_text(
        'package op\n\nimport (\n\t"testing"\n\n\ttf "opgen.dev/tf"\n)\n\n'
        "func TestAliasesAreTheFunction(t *testing.T) {\n"
        "\tvar f func(*Scope, tf.Output, tf.Output, ...MatMulAttr) (tf.Output, error) = Dot\n"
        "\t_, _ = f, Mm\n}\n")
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOPATH": str(generated / "gopath"),
           "GOCACHE": os.environ.get("GOCACHE", str(generated / "gocache")),
           "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}"}
    result = subprocess.run([go_tool, "vet", "./..."], cwd=generated / "go", env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


def test_cli_diff_compares_the_old_api_defs_with_the_new(tmp_path, pbtxt):
    from click.testing import CliRunner

    from opgen.cli import main
    ops = pbtxt(OPS)
    (tmp_path / "current.pbtxt").write_text(CURRENT)
    (tmp_path / "deprecated.pbtxt").write_text(DEPRECATED)
    (tmp_path / "removed.pbtxt").write_text('op { graph_op_name: "MatMul" endpoint { name: "MatrixProduct" } }')

    def run(old_api: str, new_api: str):
        return CliRunner().invoke(main, ["diff", str(ops), str(ops), "--old-api-def",
                                         str(tmp_path / old_api), "--api-def", str(tmp_path / new_api)])

    deprecating = run("current.pbtxt", "deprecated.pbtxt")
    assert deprecating.exit_code == 0, deprecating.output
    assert "MatMul: compatible: endpoint Dot deprecated, removed in version 2\n" in deprecating.output
    removing = run("deprecated.pbtxt", "removed.pbtxt")
    assert removing.exit_code == 1
    assert "MatMul: breaking: endpoint Dot removed\n" in removing.output


def test_output_with_deprecated_aliases_is_formatted(tmp_path, formatters):
    # The aliases' lines (decorators, alias functions, #[deprecated], Go's paragraph) laid
    # out as the formatters print them; each check skips without its tool.
    out = tmp_path / "out"
    generate.generate(opdefs.load(OPS.encode()), ["python", "go", "rust"], out,
                      api_defs=_api_defs(tmp_path, API_DEFS))
    problems, skipped = {}, []
    for lang, check in (("python", formatters.ruff_format), ("go", formatters.gofmt),
                        ("rust", formatters.rustfmt)):
        try:
            problems[lang] = check(out / lang)
        except pytest.skip.Exception as e:
            skipped.append(str(e))
    if not problems:
        pytest.skip("; ".join(skipped))
    assert problems == dict.fromkeys(problems, "")
