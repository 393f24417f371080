"""CLI conventions: `--lang` values checked with the known ones listed, `-q`/`-v`, and
shell completion of languages and op names through click's completion protocol."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from opgen import langs
from opgen.cli import main

OPS = '''
op { name: "Relu" input_arg { name: "features" type_attr: "T" } output_arg { name: "activations" type_attr: "T" } attr { name: "T" type: "type" } }
op { name: "AddV2" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" } output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" } }
op { name: "AddN" input_arg { name: "inputs" type_attr: "T" number_attr: "N" } output_arg { name: "sum" type_attr: "T" } attr { name: "N" type: "int" has_minimum: true minimum: 1 } attr { name: "T" type: "type" } }
'''


def _invoke(*args, **kw):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kw)


@pytest.mark.parametrize("value, named", [("cobol", "'cobol'"), ("python,cobol,c", "'cobol'"),
                                          ("go,klingon,perl", "'klingon', 'perl'")])
def test_unknown_languages_are_refused_listing_the_known_ones(tmp_path, value, named):
    result = _invoke("generate", "--lang", value, "--out", tmp_path / "gen")
    assert result.exit_code == 2
    assert named in result.stderr
    assert f"known languages: {', '.join(langs.known())}" in result.stderr
    assert not (tmp_path / "gen").exists()


def test_empty_language_list_is_refused(tmp_path):
    result = _invoke("generate", "--lang", " , ", "--out", tmp_path / "gen")
    assert result.exit_code == 2 and "no language given" in result.stderr


def test_quiet_leaves_out_progress_but_not_what_check_finds(pbtxt, tmp_path):
    ops, out = pbtxt(OPS), tmp_path / "gen"
    loud = _invoke("generate", "--ops", ops, "--out", out / "a")
    assert loud.exit_code == 0 and "wrote:" in loud.stdout
    quiet = _invoke("-q", "generate", "--ops", ops, "--out", out / "b")
    assert quiet.exit_code == 0 and quiet.stdout == "" and quiet.stderr == ""
    assert (out / "b" / "python" / "__init__.py").is_file()
    (out / "b" / "python" / "__init__.py").write_text("# edited\n")
    checked = _invoke("--quiet", "generate", "--check", "--ops", ops, "--out", out / "b")
    assert checked.exit_code == 1
    assert checked.stdout.strip() == f"stale: {out / 'b' / 'python' / '__init__.py'}"
    assert checked.stderr == ""   # the summary line is progress talk
    summary = _invoke("generate", "--check", "--ops", ops, "--out", out / "b")
    assert "1 file(s) out of date" in summary.stderr


def test_verbose_says_what_is_read_from_where_and_how_long_it_took(pbtxt, tmp_path):
    ops = pbtxt(OPS)
    result = _invoke("-v", "generate", "--ops", ops, "--lang", "python,c", "--out", tmp_path / "g")
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert any(line.startswith(f"read 3 ops from {ops} in ") and line.endswith(" ms")
               for line in lines), lines
    assert any(line.startswith("built 3 op specs in ") for line in lines), lines
    assert any(line.startswith("rendered python, c in ") for line in lines), lines
    assert any(line.startswith("wrote ") and f"under {tmp_path / 'g'}" in line for line in lines)
    plain = _invoke("generate", "--ops", ops, "--out", tmp_path / "h")
    assert plain.stderr == ""


def test_quiet_and_verbose_together_are_refused():
    result = _invoke("-q", "-v", "list")
    assert result.exit_code == 2 and "not both" in result.stderr


# ---- shell completion, as bash asks for it (click's protocol: _OPGEN_COMPLETE) ----------

def _complete(words: str, env: dict[str, str] | None = None) -> list[str]:
    """The candidates bash would offer for the last word of `words` ("" after a space)."""
    parts = words.split(" ")
    result = CliRunner().invoke(main, [], prog_name="opgen", env={
        "_OPGEN_COMPLETE": "bash_complete", "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1), **(env or {})})
    assert result.exit_code == 0, result.output
    # bash_complete prints "type,value" per candidate
    return [line.split(",", 1)[1] for line in result.stdout.splitlines() if line]


def test_bash_source_prints_the_completion_script():
    result = CliRunner().invoke(main, [], prog_name="opgen",
                                env={"_OPGEN_COMPLETE": "bash_source"})
    assert result.exit_code == 0
    assert "_OPGEN_COMPLETE=bash_complete" in result.stdout
    assert "complete " in result.stdout and " opgen" in result.stdout


def test_lang_values_are_completed_item_by_item():
    assert _complete("opgen generate --lang ") == langs.known()
    assert _complete("opgen generate --lang py") == ["python"]
    assert _complete("opgen generate --lang c") == ["c", "cpp"]
    # after a comma: the next language, not one already given
    assert _complete("opgen generate --lang python,") == \
        [f"python,{name}" for name in langs.known() if name != "python"]
    assert _complete("opgen generate --lang python,r") == ["python,rust"]


def test_op_names_are_completed_from_the_bundled_oplist():
    names = _complete("opgen show MatM")
    assert names and all(name.startswith("MatM") for name in names)
    assert "MatMul" in names
    assert "Relu" in _complete("opgen kernels Rel")


def test_op_names_are_completed_from_the_ops_given(pbtxt):
    ops = pbtxt(OPS)
    assert _complete(f"opgen show --ops {ops} Add") == ["AddN", "AddV2"]
    assert _complete(f"opgen show --ops {ops} ") == ["AddN", "AddV2", "Relu"]
    # an unreadable --ops offers nothing rather than failing
    assert _complete("opgen show --ops /no/such/file Add") == []


def test_op_names_of_a_binary_oplist_are_completed(tmp_path):
    from opgen import opdefs
    path = tmp_path / "ops.pb"
    path.write_bytes(opdefs.to_binary(opdefs.parse(OPS.encode())))
    assert _complete(f"opgen show --ops {path} Add") == ["AddN", "AddV2"]


def test_pkgconfig_dir_names_the_folder_of_opgen_pc_or_says_why_not():
    result = _invoke("config", "--pkgconfig-dir")
    if result.exit_code == 0:   # an installed opgen
        from pathlib import Path
        assert (Path(result.stdout.strip()) / "opgen.pc").is_file()
    else:                       # a source checkout: the flags are there, the file is not
        assert result.exit_code == 2 and "opgen.pc is not installed" in result.stderr
    mixed = _invoke("config", "--pkgconfig-dir", "--libs")
    assert mixed.exit_code == 2 and "--pkgconfig-dir prints a folder" in mixed.stderr
