"""`opgen show OP` prints the OpSpec; `opgen diff OLD NEW` classifies every change as
breaking callers or compatible, exiting 1 when anything breaks."""

from __future__ import annotations

import subprocess
import sys
import tempfile

import pytest
from click.testing import CliRunner

from opgen import diff, model, opdefs
from opgen.cli import main

OLD = '''
op {
  name: "Conv"
  input_arg { name: "input" type_attr: "T" }
  input_arg { name: "filter" type_attr: "T" }
  output_arg { name: "output" type_attr: "T" }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE, DT_HALF] } } }
  attr { name: "padding" type: "string" allowed_values { list { s: ["SAME", "VALID"] } } }
  attr { name: "data_format" type: "string" default_value { s: "NHWC" } }
  attr { name: "strides" type: "list(int)" has_minimum: true minimum: 1 }
}
op { name: "Gone" }
op {
  name: "Keep"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "y" type: DT_FLOAT }
  summary: "Old words."
}
'''

NEW = '''
op {
  name: "Conv"
  input_arg { name: "input" type_attr: "T" }
  input_arg { name: "kernel" type_attr: "T" }
  output_arg { name: "output" type_attr: "T" }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE] } } }
  attr { name: "padding" type: "string" allowed_values { list { s: ["SAME", "VALID", "EXPLICIT"] } } }
  attr { name: "data_format" type: "string" default_value { s: "NCHW" } }
  attr { name: "strides" type: "list(int)" has_minimum: true minimum: 1 }
  attr { name: "groups" type: "int" }
  attr { name: "dilation" type: "int" default_value { i: 1 } }
}
op {
  name: "Keep"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "y" type: DT_FLOAT }
  summary: "New words."
}
op { name: "Fresh" }
'''


def _diff(old: str, new: str) -> diff.Diff:
    return diff.diff_specs(model.op_specs(opdefs.load(old.encode())),
                           model.op_specs(opdefs.load(new.encode())))


def test_each_change_is_classified():
    result = _diff(OLD, NEW)
    assert result.added == ["Fresh"] and result.removed == ["Gone"]
    found = {(c.op, c.breaking, c.message) for c in result.changes}
    assert found == {
        ("Conv", True, "input 'filter' renamed to 'kernel'"),
        ("Conv", True, "attr 'T': allowed values narrowed (no longer: float16)"),
        ("Conv", False, "attr 'padding': allowed values widened (now also: EXPLICIT)"),
        ("Conv", True, 'attr \'data_format\': default "NHWC" -> "NCHW"'),
        ("Conv", True, "attr 'groups' added without a default: callers must pass it"),
        ("Conv", False, "attr 'dilation' added with default 1"),
        ("Keep", False, "documentation changed"),
    }
    assert result.has_breaking


def test_identical_oplists_have_no_changes():
    result = _diff(OLD, OLD)
    assert (result.added, result.removed, result.changes) == ([], [], [])
    assert not result.has_breaking


def test_compatible_only_changes_do_not_break():
    widened = OLD.replace("[DT_FLOAT, DT_DOUBLE, DT_HALF]", "[DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT32]")
    result = _diff(OLD, widened + 'op { name: "Extra" }')
    assert not result.has_breaking
    assert [str(c) for c in result.changes] == [
        "compatible: attr 'T': allowed values widened (now also: int32)"]


@pytest.fixture
def files(tmp_path):
    old, new = tmp_path / "old.pbtxt", tmp_path / "new.pbtxt"
    old.write_text(OLD)
    new.write_text(NEW)
    return old, new


def test_cli_diff_exits_1_on_breaking_changes_and_summarises(files):
    old, new = files
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 1, result.output
    # one change per line, sorted by op, breaking first; then the summary
    assert result.output.splitlines() == [
        "Conv: breaking: attr 'T': allowed values narrowed (no longer: float16)",
        "Conv: breaking: attr 'data_format': default \"NHWC\" -> \"NCHW\"",
        "Conv: breaking: attr 'groups' added without a default: callers must pass it",
        "Conv: breaking: input 'filter' renamed to 'kernel'",
        "Conv: compatible: attr 'dilation' added with default 1",
        "Conv: compatible: attr 'padding': allowed values widened (now also: EXPLICIT)",
        "Fresh: compatible: op added",
        "Gone: breaking: op removed",
        "Keep: compatible: documentation changed",
        "5 breaking change(s) (1 removed op(s), 1 changed op(s)), "
        "3 compatible change(s), 1 added op(s)"]
    same = CliRunner().invoke(main, ["diff", str(old), str(old)])
    assert same.exit_code == 0, same.output


def test_cli_diff_takes_new_from_the_input_options(files):
    """NEW may come from --ops / --from-runtime / --from-library instead of a path; the
    runtime's live registry equals the bundled ops.pbtxt, so comparing them finds nothing."""
    old, new = files
    by_option = CliRunner().invoke(main, ["diff", str(old), "--ops", str(new)])
    by_path = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert by_option.exit_code == 1 and by_option.output == by_path.output
    from opgen import _paths
    # In a fresh process: this one's registry may hold ops a plugin test loaded (xdist
    # runs files in any order); the working directory is outside the checkout, so -m
    # opgen is the installed package.
    live = subprocess.run([sys.executable, "-m", "opgen", "diff", str(_paths.bundled_ops_path()),
                           "--from-runtime"], capture_output=True, text=True,
                          cwd=tempfile.gettempdir())
    assert live.returncode == 0, live.stdout + live.stderr
    assert live.stdout == ("0 breaking change(s) (0 removed op(s), 0 changed op(s)), "
                           "0 compatible change(s), 0 added op(s)\n")
    both = CliRunner().invoke(main, ["diff", str(old), str(new), "--from-runtime"])
    assert both.exit_code == 2 and "not both" in both.output
    neither = CliRunner().invoke(main, ["diff", str(old)])
    assert neither.exit_code == 2 and "say what to compare OLD with" in neither.output


def test_cli_diff_reports_a_bad_file_with_its_location(files, tmp_path):
    old, _ = files
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('op {\n  name: "A"\n  input_arg { name: "x" type_attr: "T" }\n}\n')
    result = CliRunner().invoke(main, ["diff", str(old), str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:2:3: op 'A': input 'x': type_attr 'T' names no attr" in result.output


def test_show_prints_what_the_templates_see(files):
    _, new = files
    result = CliRunner().invoke(main, ["show", "Conv", "--ops", str(new)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "op Conv"
    assert "  python: conv(input: TensorLike, kernel: TensorLike, padding: str, " \
           "strides: Sequence[int], groups: int, data_format: str = \"NCHW\", " \
           "dilation: int = 1, name: str | None = None) -> OpOutput" in lines
    assert "    T: type allowed: {float32, float64} inferred from: input, kernel" in lines
    assert '    padding: string allowed: {"SAME", "VALID", "EXPLICIT"}' in lines
    assert "    strides: list(int) minimum: 1" in lines
    assert '    data_format: string = "NCHW"' in lines


def test_show_unknown_op_suggests_close_names(files):
    _, new = files
    result = CliRunner().invoke(main, ["show", "conv", "--ops", str(new)])
    assert result.exit_code == 2
    assert f"{new}: no op named 'conv' among 3 ops; did you mean Conv?" in result.output
