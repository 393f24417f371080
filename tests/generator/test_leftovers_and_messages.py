"""A hostile user's findings on the generator (issue 18, parts 5 and 6):
- a run killed between writing a temporary file and renaming it leaves the file behind;
  the next run removes it (and only files named as opgen names its own);
- a value its field cannot hold (an enum number outside int32) is reported at its
  FILE:LINE:COL by generate, list, show and diff, not as an internal error;
- names echoed in error messages are cut to a readable length."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from opgen import generate, opdefs
from opgen.cli import EXIT_ERROR, main

OPS = '''
op {
  name: "AddV2"
  input_arg { name: "x" type_attr: "T" }
  input_arg { name: "y" type_attr: "T" }
  output_arg { name: "z" type_attr: "T" }
  attr { name: "T" type: "type" }
}
'''


def _invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _strays(folder):
    return sorted(p.name for p in folder.rglob("*.tmp"))


def test_an_interrupted_write_leaves_a_temp_file_the_next_run_removes(tmp_path, monkeypatch):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(OPS)
    out = tmp_path / "gen"
    assert _invoke("generate", "--ops", str(ops), "--out", str(out)).exit_code == 0
    python = out / "python"
    unrelated = python / ".notes.tmp"  # not named as opgen names its files: kept
    unrelated.write_text("mine")

    # Killed after staging a file, before renaming it (as kill -9 does; an exception
    # that is no OSError, like KeyboardInterrupt, leaves it the same way).
    def killed(*args):
        raise KeyboardInterrupt
    monkeypatch.setattr(generate.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        generate.write([generate.GeneratedFile(generate.Path("python/_ops_a.py"), b"new")], out)
    monkeypatch.undo()
    left = [name for name in _strays(out) if name != ".notes.tmp"]
    assert len(left) == 1 and left[0].startswith(generate.TEMP_PREFIX), _strays(out)

    # The next run has nothing to write (the output is up to date) and still cleans.
    again = _invoke("generate", "--ops", str(ops), "--out", str(out))
    assert again.exit_code == 0 and again.output == ""
    assert _strays(out) == [".notes.tmp"]
    assert unrelated.read_text() == "mine"


def test_check_mode_touches_nothing(tmp_path):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(OPS)
    out = tmp_path / "gen"
    assert _invoke("generate", "--ops", str(ops), "--out", str(out)).exit_code == 0
    stray = out / "python" / f"{generate.TEMP_PREFIX}_ops_a.py.abc123.tmp"
    stray.write_text("x")
    assert _invoke("generate", "--check", "--ops", str(ops), "--out", str(out)).exit_code == 0
    assert stray.exists()


OUT_OF_RANGE = '''op {
  name: "Foo"
  output_arg { name: "y" type: 2147483648 }
}
'''


@pytest.mark.parametrize("command", [
    ["generate", "--ops", "{ops}", "--out", "{out}"],
    ["list", "--ops", "{ops}"],
    ["show", "Foo", "--ops", "{ops}"],
    ["diff", "{ops}", "{ops}"],
])
def test_an_enum_number_outside_int32_is_reported_at_its_location(tmp_path, command):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(OUT_OF_RANGE)
    args = [a.format(ops=ops, out=tmp_path / "gen") for a in command]
    result = _invoke(*args)
    assert result.exit_code == EXIT_ERROR, result.output
    assert f"{ops}:3:32:" in result.output, result.output
    assert "internal error" not in result.output and "2147483648" in result.output
    assert not (tmp_path / "gen").exists()


def test_an_api_def_value_out_of_range_is_located_too(tmp_path):
    api = tmp_path / "api_def_Foo.pbtxt"
    api.write_text('op {\n  graph_op_name: "AddV2"\n  visibility: 4294967296\n}\n')
    with pytest.raises(opdefs.OpDefError) as error:
        from opgen import api_def
        api_def.load([api])
    assert f"{api}:3:15:" in str(error.value), str(error.value)


def test_names_echoed_in_errors_are_cut(tmp_path):
    long_op = "A" * 300_000
    long_arg = "y" * 300_000
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(f'op {{\n  name: "{long_op}"\n  output_arg {{ name: "{long_arg}" '
                   'type_attr: "T" }\n}\n')
    for args in (["generate", "--ops", str(ops), "--out", str(tmp_path / "gen")],
                 ["list", "--ops", str(ops)]):
        result = _invoke(*args)
        assert result.exit_code == EXIT_ERROR
        assert len(result.output) < 1000, len(result.output)
        assert "(300000 characters)" in result.output and "names no attr" in result.output
    shown = _invoke("show", "Z" * 5000, "--ops", str(tmp_path / "missing.pbtxt"))
    assert len(shown.output) < 1000


def test_cutting_keeps_short_names_and_says_how_long_a_long_one_was():
    assert opdefs.shown_name("MatMul") == "MatMul"
    cut = opdefs.shown_name("x" * 500)
    assert len(cut) <= opdefs.MAX_SHOWN_NAME + 30 and cut.endswith("(500 characters)")
    text = "input 'a' of op 'B': " + "q" * 1000 + " and more"
    assert opdefs.cut_long_words(text).startswith("input 'a' of op 'B': qqq")
    assert opdefs.cut_long_words(text).endswith("(1000 characters) and more")


def test_temp_prefix_is_what_write_uses(tmp_path, monkeypatch):
    made = []
    real = generate.tempfile.mkstemp

    def spy(*args, **kwargs):
        fd, path = real(*args, **kwargs)
        made.append(os.path.basename(path))
        return fd, path
    monkeypatch.setattr(generate.tempfile, "mkstemp", spy)
    generate.write([generate.GeneratedFile(generate.Path("a.txt"), b"x")], tmp_path)
    assert made and made[0].startswith(generate.TEMP_PREFIX + "a.txt.") and made[0].endswith(".tmp")
