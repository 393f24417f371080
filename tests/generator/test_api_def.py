"""ApiDef overrides (TensorFlow's text format, <<END blocks included): renamed
endpoints, HIDDEN and SKIP, arg renames and arg_order, default overrides, summary and
description overrides; later files win; problems name FILE:LINE:COL and the op."""

from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

from opgen import api_def, generate, model, opdefs
from opgen.cli import main

OPS = r'''
op {
  name: "MatMul"
  input_arg { name: "a" type_attr: "T" }
  input_arg { name: "b" type_attr: "T" }
  output_arg { name: "product" type_attr: "T" }
  attr { name: "transpose_a" type: "bool" default_value { b: false } }
  attr { name: "T" type: "type" }
  summary: "Original summary."
}
op {
  name: "Scale"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "y" type: DT_FLOAT }
  attr { name: "factor" type: "float" }
}
op { name: "Internal" }
op { name: "Obsolete" }
'''

BASE = '''op {
  graph_op_name: "MatMul"
  endpoint { name: "linalg.MatrixProduct" }
  endpoint { name: "Dot" }
  in_arg { name: "a" rename_to: "left" }
  in_arg { name: "b" rename_to: "right" description: "The right factor." }
  arg_order: "b"
  arg_order: "a"
  summary: "Multiplies two matrices."
  description: <<END
The product of `left` and `right`.

Both must have the same dtype.
END
}
op {
  graph_op_name: "Scale"
  attr { name: "factor" rename_to: "by" default_value { f: 2.5 } }
}
op {
  graph_op_name: "Internal"
  visibility: HIDDEN
}
'''

PYTHON = '''op {
  graph_op_name: "Obsolete"
  visibility: SKIP
}
op {
  graph_op_name: "Scale"
  deprecation_message: "Multiply instead."
  deprecation_version: 30
}
op {
  graph_op_name: "MatMul"
  summary: "Python's own summary."
}
'''


@pytest.fixture
def api_dir(tmp_path):
    folder = tmp_path / "api"
    folder.mkdir()
    (folder / "api_def_base.pbtxt").write_text(BASE)
    return folder


@pytest.fixture
def package(api_dir, tmp_path, fake_runtime, import_generated):
    python_file = tmp_path / "python_api.pbtxt"
    python_file.write_text(PYTHON)
    api_defs = api_def.load([api_dir, python_file])
    generate.generate(opdefs.load(OPS.encode()), ["python"], tmp_path / "out", api_defs=api_defs)
    return import_generated(tmp_path / "out" / "python")


def test_heredocs_become_strings_and_keep_line_numbers():
    text = 'a: <<END\nline "one"\n  two \\\\ x\nEND\nb: 1\n'
    expanded = api_def.expand_heredocs(text)
    assert expanded.split("\n")[0] == 'a: "line \\"one\\"\\n  two \\\\\\\\ x"'
    assert expanded.split("\n")[4] == "b: 1"         # same line as before


def test_endpoint_renames_the_function_and_adds_aliases(package):
    assert package.matrix_product is package.dot
    assert "matrix_product" in package.__all__ and "dot" in package.__all__
    assert not hasattr(package, "mat_mul")


def test_arg_renames_and_arg_order_shape_the_signature_not_the_call(package, fake_runtime):
    params = list(inspect.signature(package.matrix_product).parameters)
    assert params == ["right", "left", "transpose_a", "name"]
    package.matrix_product(2, 1)
    # The runtime still receives inputs in OpDef order (a, b) under OpDef attr names.
    assert fake_runtime.calls[-1] == ("MatMul", [1, 2], {"transpose_a": False}, None)


def test_default_override_makes_a_required_attr_optional(package, fake_runtime):
    assert str(inspect.signature(package.scale).parameters["by"]) == "by: 'float' = 2.5"
    with pytest.warns(DeprecationWarning):   # python_api.pbtxt deprecates Scale
        package.scale(1.0)
    assert fake_runtime.calls[-1] == ("Scale", [1.0], {"factor": 2.5}, None)


def test_an_api_def_deprecation_warns_like_an_opdef_one(package):
    with pytest.warns(DeprecationWarning, match="Scale is deprecated since GraphDef version 30: "
                                                "Multiply instead."):
        package.scale(1.0)


def test_hidden_ops_get_an_underscore_and_skipped_ops_are_absent(package):
    assert callable(package._internal) and "_internal" not in package.__all__
    assert not hasattr(package, "obsolete") and "obsolete" not in dir(package)


def test_summary_and_descriptions_are_overridden_later_file_winning(package):
    doc = package.matrix_product.__doc__
    assert doc.startswith("Python's own summary.")
    assert "The product of `left` and `right`.\n\n    Both must have the same dtype." in doc
    assert "right: A `Tensor`." in doc and "The right factor." in doc


def test_spec_records_the_overrides(api_dir):
    specs = {s.name: s for s in model.op_specs(opdefs.load(OPS.encode()), api_def.load([api_dir]))}
    matmul = specs["MatMul"]
    assert matmul.endpoints == ("linalg.MatrixProduct", "Dot")
    assert [a.public_name for a in matmul.signature_inputs] == ["right", "left"]
    assert [a.name for a in matmul.inputs] == ["a", "b"]
    assert specs["Internal"].visibility == "HIDDEN" and specs["Obsolete"].visibility == "VISIBLE"


@pytest.mark.parametrize("text, message", [
    ('op {\n  graph_op_name: "Nope"\n}\n', "2:3: op 'Nope': ApiDef for an op that is not in the OpList"),
    ('\nop {\n  graph_op_name: "MatMul"\n  in_arg { name: "c" }\n}\n',
     "3:3: op 'MatMul': in_arg 'c' is not one of the op's in_args (a, b)"),
    ('op {\n  graph_op_name: "MatMul"\n  arg_order: "a"\n}\n',
     "2:3: op 'MatMul': arg_order [a] must list each input exactly once (a, b)"),
    ('op {\n  graph_op_name: "MatMul"\n  in_arg { name: "a" rename_to: "b" }\n}\n',
     "op 'MatMul': after renaming, these names are used twice: b"),
    ('op {\n  graph_op_name: "Scale"\n  attr { name: "factor" default_value { i: 2 } }\n}\n',
     "op 'Scale': attr 'factor': default_value must hold a 'float' value, not 'i'"),
])
def test_problems_name_file_line_column_and_op(tmp_path, text, message):
    path = tmp_path / "bad.pbtxt"
    path.write_text(text)
    problems = api_def.validate(api_def.load([path]), opdefs.load(OPS.encode()))
    assert any(str(p).startswith(f"{path}:") and message in str(p) for p in problems), problems


def test_syntax_errors_name_the_line_after_a_heredoc(tmp_path):
    path = tmp_path / "bad.pbtxt"
    path.write_text('op {\n  graph_op_name: "MatMul"\n  description: <<END\nx\ny\nEND\n  bogus: 1\n}\n')
    with pytest.raises(opdefs.OpDefError) as error:
        api_def.load([path])
    assert f"{path}:7:" in str(error.value) and "bogus" in str(error.value)


def test_cli_applies_api_defs_and_lists_them_in_the_depfile(api_dir, tmp_path, pbtxt):
    ops, out, dep = pbtxt(OPS), tmp_path / "gen", tmp_path / "gen.d"
    result = CliRunner().invoke(main, ["generate", "--ops", str(ops), "--api-def", str(api_dir),
                                       "--out", str(out), "--depfile", str(dep)])
    assert result.exit_code == 0, result.output
    assert "def matrix_product(" in (out / "python" / "_ops_m.py").read_text()
    assert str(api_dir / "api_def_base.pbtxt") in dep.read_text()


def test_cli_refuses_bad_api_defs_naming_the_place(tmp_path, pbtxt):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('op {\n  graph_op_name: "Nope"\n}\n')
    out = tmp_path / "gen"
    result = CliRunner().invoke(main, ["generate", "--ops", str(pbtxt(OPS)), "--api-def", str(bad),
                                       "--out", str(out)])
    assert result.exit_code == 2
    assert f"{bad}:2:3: op 'Nope': ApiDef for an op that is not in the OpList" in result.output
    assert not out.exists()
