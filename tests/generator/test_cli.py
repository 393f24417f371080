"""The `opgen` command line: generate, list, dump; clear errors, no tracebacks, nothing
written on failure."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from opgen import langs, opdefs
from opgen.cli import main

OPS = '''
op { name: "Relu" input_arg { name: "features" type_attr: "T" } output_arg { name: "activations" type_attr: "T" } attr { name: "T" type: "type" } }
op { name: "AddV2" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" } output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" } }
'''


@pytest.fixture
def runner():
    return CliRunner()


def _invoke(runner, *args, **kw):
    return runner.invoke(main, list(args), catch_exceptions=False, **kw)


def test_generate_writes_python_and_reports_it(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    result = _invoke(runner, "generate", "--lang", "python", "--ops", str(pbtxt(OPS)), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "wrote:" in result.output
    assert "def add_v2(x: TensorLike, y: TensorLike, name: str | None = None) -> OpOutput:" \
        in (out / "python" / "_ops_a.py").read_text()
    again = _invoke(runner, "generate", "--ops", str(pbtxt(OPS)), "--out", str(out))
    assert again.exit_code == 0 and again.output == ""


def test_generate_reads_stdin(runner, tmp_path):
    out = tmp_path / "gen"
    result = _invoke(runner, "generate", "--ops", "-", "--out", str(out), input=OPS)
    assert result.exit_code == 0, result.output
    assert (out / "python" / "__init__.py").exists()


def test_check_exits_non_zero_when_stale_and_writes_nothing(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    result = _invoke(runner, "generate", "--check", "--ops", str(pbtxt(OPS)), "--out", str(out))
    assert result.exit_code == 1
    assert "stale:" in result.output
    assert not out.exists()


def test_unknown_language_is_refused_listing_known_ones(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    result = _invoke(runner, "generate", "--lang", "python,cobol", "--ops", str(pbtxt(OPS)), "--out", str(out))
    assert result.exit_code != 0
    known = ", ".join(langs.known())
    assert f"unknown language 'cobol'; known languages: {known}" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_invalid_oplist_is_refused_with_locations_and_nothing_written(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    bad = pbtxt('op {\n  name: "A"\n  input_arg { name: "x" type_attr: "T" }\n}\n')
    result = _invoke(runner, "generate", "--ops", str(bad), "--out", str(out))
    assert result.exit_code == 2
    assert f"{bad}:2:3: op 'A': input 'x': type_attr 'T' names no attr" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_syntax_error_and_truncated_binary_are_refused(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    syntax = pbtxt('op {\n  name: "A"\n  bogus: 1\n}\n')
    result = _invoke(runner, "generate", "--ops", str(syntax), "--out", str(out))
    assert result.exit_code == 2 and f"{syntax}:3:" in result.output
    binary = tmp_path / "ops.pb"
    binary.write_bytes(opdefs.load(OPS.encode()).SerializeToString()[:-5])
    result = _invoke(runner, "generate", "--ops", str(binary), "--out", str(out))
    assert result.exit_code == 2 and "truncated or corrupt" in result.output
    assert not out.exists()


def test_missing_ops_file(runner, tmp_path):
    result = _invoke(runner, "list", "--ops", str(tmp_path / "nope.pbtxt"))
    assert result.exit_code == 2 and "cannot read the OpList" in result.output


def test_list_prints_sorted_names(runner, pbtxt):
    result = _invoke(runner, "list", "--ops", str(pbtxt(OPS)))
    assert result.exit_code == 0
    assert result.output == "AddV2\nRelu\n"


def test_dump_writes_sorted_text_and_binary(runner, pbtxt, tmp_path):
    path = pbtxt(OPS)
    text_out, binary_out = tmp_path / "out.pbtxt", tmp_path / "out.pb"
    assert _invoke(runner, "dump", "--ops", str(path), "--out", str(text_out)).exit_code == 0
    assert _invoke(runner, "dump", "--ops", str(path), "--format", "binary", "--out", str(binary_out)).exit_code == 0
    text = text_out.read_text()
    assert text.index('name: "AddV2"') < text.index('name: "Relu"')
    assert opdefs.load(binary_out) == opdefs.load(text_out)
    stdout = _invoke(runner, "dump", "--ops", str(path))
    assert stdout.output == text


def test_dump_needs_a_source(runner):
    result = _invoke(runner, "dump")
    assert result.exit_code == 2 and "--from-runtime or --ops" in result.output


def test_from_runtime_without_a_library_is_a_clear_error(runner, tmp_path, monkeypatch):
    monkeypatch.setenv("OPGEN_RUNTIME_LIB", str(tmp_path / "missing.so"))
    result = _invoke(runner, "list", "--from-runtime")
    assert result.exit_code == 2
    assert "missing.so" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", [[], ["generate"], ["list"], ["dump"]])
def test_help_texts_have_examples(runner, command):
    result = _invoke(runner, *command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.output and "opgen " in result.output


def test_depfile_lists_outputs_and_inputs(runner, pbtxt, tmp_path):
    out, dep = tmp_path / "gen", tmp_path / "opgen.d"
    ops = pbtxt(OPS)
    result = _invoke(runner, "generate", "--ops", str(ops), "--out", str(out), "--depfile", str(dep))
    assert result.exit_code == 0, result.output
    text = dep.read_text()
    targets, dependencies = text.split(":", 1)
    assert targets.split() == [str(out / "python" / name) for name in
                               ("__init__.py", "__init__.pyi", "_ops_a.py", "_ops_r.py")]
    assert str(ops) in dependencies and "group.py.j2" in dependencies
    assert "__init__.pyi.j2" in dependencies


def test_an_unknown_language_is_refused_and_the_error_says_which_are_known(runner, pbtxt, tmp_path):
    from opgen import langs
    out = tmp_path / "gen"
    result = _invoke(runner, "generate", "--lang", "python,fortran", "--ops", str(pbtxt(OPS)), "--out", str(out))
    assert result.exit_code == 2
    assert f"unknown language 'fortran'; known languages: {', '.join(langs.known())}" in result.output
    assert not out.exists()


def test_check_lists_obsolete_submodules_and_generate_removes_them(runner, pbtxt, tmp_path):
    out = tmp_path / "gen"
    ops = str(pbtxt(OPS))
    assert _invoke(runner, "generate", "--ops", ops, "--out", str(out)).exit_code == 0
    obsolete = out / "python" / "_ops_x.py"
    obsolete.write_text("")
    checked = _invoke(runner, "generate", "--check", "--ops", ops, "--out", str(out))
    assert checked.exit_code == 1 and f"obsolete: {obsolete}" in checked.output
    assert "0 file(s) out of date, 1 obsolete" in checked.output and obsolete.exists()
    result = _invoke(runner, "generate", "--ops", ops, "--out", str(out))
    assert result.exit_code == 0 and f"removed: {obsolete}" in result.output
    assert not obsolete.exists()


def test_depfile_escapes_spaces_for_make(runner, tmp_path):
    folder = tmp_path / "with space"
    folder.mkdir()
    ops = folder / "ops.pbtxt"
    ops.write_text(OPS)
    dep = tmp_path / "gen.d"
    result = _invoke(runner, "generate", "--ops", str(ops), "--out", str(tmp_path / "gen"),
                     "--depfile", str(dep))
    assert result.exit_code == 0, result.output
    assert str(ops).replace(" ", "\\ ") in dep.read_text()


def test_depfile_lists_the_static_files_a_language_copies(runner, pbtxt, tmp_path):
    # An edit to templates/<lang>/static/* must make a build system regenerate.
    dep = tmp_path / "opgen.d"
    result = _invoke(runner, "generate", "--lang", "cpp,go,rust", "--ops", str(pbtxt(OPS)),
                     "--out", str(tmp_path / "gen"), "--depfile", str(dep))
    assert result.exit_code == 0, result.output
    dependencies = dep.read_text().split(":", 1)[1]
    for static in ("cpp/static/opgen_framework.h", "go/static/runtime.go", "go/static/variable.go",
                   "go/static/train.go", "go/static/function.go", "go/static/flow.go",
                   "rust/static/lib.rs", "rust/static/variable.rs", "rust/static/train.rs",
                   "rust/static/flow.rs"):
        assert static in dependencies, static


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    # `opgen list | head -1`: the pipe closes under a long listing. Unix tools stop
    # quietly there (a shell reports 141); no "Broken pipe" message, no traceback.
    import subprocess
    import sys
    big = "\n".join(OPS.strip().replace("Relu", f"Relu{i}").splitlines()[0] for i in range(20000))
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(big)
    script = ("import sys; from opgen.cli import main; "
              "sys.argv = ['opgen', 'list', '--ops', sys.argv[1]]; main()")
    listing = subprocess.Popen([sys.executable, "-c", script, str(ops)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert listing.stdout.readline()
    listing.stdout.close()   # the reader goes away
    _, err = listing.communicate(timeout=120)
    assert listing.returncode == 141, err
    assert err == b""


def test_config_prints_cflags_and_libs_together_as_pkg_config_does(runner, monkeypatch):
    from opgen import config
    monkeypatch.setattr(config, "cflags", lambda: "-I/inc")
    monkeypatch.setattr(config, "libs", lambda: "-L/lib -lopgen_runtime")
    both = _invoke(runner, "config", "--cflags", "--libs")
    assert both.exit_code == 0 and both.output == "-I/inc -L/lib -lopgen_runtime\n"
    assert _invoke(runner, "config", "--libs", "--cflags").output == both.output
    assert _invoke(runner, "config", "--cflags").output == "-I/inc\n"
    mixed = _invoke(runner, "config", "--cmake-dir", "--libs")
    assert mixed.exit_code == 2 and "--cmake-dir prints a folder" in mixed.output
    none = _invoke(runner, "config")
    assert none.exit_code == 2 and "--cflags, --libs (both may be given)" in none.output


def test_a_missing_api_def_folder_is_named_as_such_not_as_an_invalid_oplist(runner, pbtxt, tmp_path):
    missing = tmp_path / "no_such_api_def"
    result = _invoke(runner, "generate", "--ops", str(pbtxt(OPS)), "--api-def", str(missing),
                     "--out", str(tmp_path / "gen"))
    assert result.exit_code == 2
    assert result.output == f"Error: {missing}: no such ApiDef file or folder; nothing written\n"
