"""`opgen generate`'s options for real projects: the names output is published under
(Python package, Rust crate and version, Go module and package, C prefix, C++ namespace),
op selection (--only, --exclude, --only-runnable) and --kernel-docs.

The renamed output is imported (Python, in a process started outside the checkout) and
compiled (C, C++, Rust, Go where their tools are installed) beside the default output,
which is what a program holding two generated bindings needs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen import _paths, opdefs
from opgen.cli import main
from opgen.langs.identity import DEFAULT, Identity, IdentityError

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "generated"
SMALL = ["--only", "MatMul", "--only", "Relu", "--only", "Const"]   # fast to compile
RENAMED = ["--python-package", "myproj.nn_ops", "--rust-crate", "my-ops", "--rust-version",
           "1.2.3-beta.1", "--go-module", "example.com/my/tf", "--go-package", "mytf",
           "--c-prefix", "my_", "--cpp-namespace", "my::nn"]


def _generate(out: Path, *args: str, ok: bool = True) -> str:
    result = CliRunner().invoke(main, ["generate", "--out", str(out), *args])
    assert (result.exit_code == 0) == ok, result.output
    return result.output


def _runtime_library() -> Path:
    try:
        return _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("renamed")
    _generate(out, "--lang", "python,c,cpp,rust,go", *SMALL, *RENAMED)
    return out


# ---- names -------------------------------------------------------------------------

def test_default_options_write_what_is_checked_in(tmp_path):
    """Every option at its default (given explicitly, too) gives generated/ byte for byte."""
    _generate(tmp_path, "--lang", "python,c,cpp,rust,go", "--ops", str(REPO / "ops.pbtxt"),
              "--python-package", "python", "--c-prefix", "opgen_", "--cpp-namespace",
              "opgen::ops", "--rust-crate", "opgen-ops", "--go-package", "tf")
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted(p.relative_to(GENERATED) for p in GENERATED.rglob("*")
                             if p.is_file() and "__pycache__" not in p.parts)
    for path in written:
        assert (tmp_path / path).read_bytes() == (GENERATED / path).read_bytes(), path


def test_renamed_files_and_names(renamed):
    assert sorted(str(p.relative_to(renamed)) for p in renamed.rglob("*") if p.is_file()) == [
        "c/my_ops.c", "c/my_ops.h", "cpp/my_nn.h", "cpp/opgen_framework.h",
        "go/function.go", "go/go.mod", "go/op/flow.go", "go/op/ops.go", "go/op/scope.go",
        "go/op/train.go", "go/op/variable.go", "go/runtime.go", "go/types.go",
        "myproj/nn_ops/__init__.py", "myproj/nn_ops/__init__.pyi", "myproj/nn_ops/_ops_c.py",
        "myproj/nn_ops/_ops_m.py", "myproj/nn_ops/_ops_r.py",
        "rust/Cargo.toml", "rust/build.rs", "rust/src/data_type.rs", "rust/src/flow.rs",
        "rust/src/lib.rs",
        "rust/src/ops.rs", "rust/src/train.rs", "rust/src/variable.rs"]
    cargo = (renamed / "rust" / "Cargo.toml").read_text()
    assert 'name = "my-ops"\nversion = "1.2.3-beta.1"' in cargo and 'name = "my_ops"' in cargo
    assert "\nmodule example.com/my/tf\n" in (renamed / "go" / "go.mod").read_text()
    runtime_go = (renamed / "go" / "runtime.go").read_text()
    assert "\npackage mytf\n" in runtime_go and "example.com/my/tf/op" in runtime_go
    assert "\npackage mytf\n" in (renamed / "go" / "types.go").read_text()
    assert "\npackage mytf\n" in (renamed / "go" / "function.go").read_text()
    assert 'tf "example.com/my/tf"' in (renamed / "go" / "op" / "flow.go").read_text()
    assert 'tf "example.com/my/tf"' in (renamed / "go" / "op" / "ops.go").read_text()
    assert 'tf "example.com/my/tf"' in (renamed / "go" / "op" / "variable.go").read_text()
    assert 'tf "example.com/my/tf"' in (renamed / "go" / "op" / "train.go").read_text()
    header = (renamed / "c" / "my_ops.h").read_text()
    assert "TF_Operation* my_MatMul(" in header and "opgen_MatMul" not in header
    assert "#ifndef OPGEN_GENERATED_MY_OPS_H_" in header
    cpp = (renamed / "cpp" / "my_nn.h").read_text()
    assert "namespace my {\nnamespace nn {\n" in cpp and "}  // namespace nn\n}  // namespace my\n" in cpp
    assert "#ifndef OPGEN_GENERATED_MY_NN_H_CC_" in cpp


def test_bad_names_are_refused_naming_the_option(tmp_path):
    for option, value, says in [("--python-package", "my-ops", "not a Python module name"),
                                ("--python-package", "a.class", "not a Python module name"),
                                ("--rust-crate", "9ops", "crate name"),
                                ("--rust-version", "1.2", "semantic version"),
                                ("--go-module", "a b", "Go module path"),
                                ("--go-package", "Tf", "Go package name"),
                                ("--go-package", "func", "Go package name"),
                                ("--c-prefix", "1x_", "C identifier"),
                                ("--cpp-namespace", "my::class", "C++ namespace")]:
        output = _generate(tmp_path, "--lang", "python", option, value, ok=False)
        assert f"{option} '{value}': {says}" in output.replace("\n", " ") or says in output, output
        assert not any(tmp_path.iterdir())
    with pytest.raises(IdentityError, match="--c-prefix"):
        Identity(c_prefix="")
    assert Identity(python_package="a.b_c", cpp_namespace="x") .cpp_header == "x.h"
    assert DEFAULT.c_files == "opgen_ops" and DEFAULT.cpp_header == "opgen_ops.h"


def test_every_name_has_an_option_whose_help_gives_its_default():
    """The CLI spells the defaults in its help (it does not import the language modules
    to start); they must be Identity's."""
    from dataclasses import fields

    from opgen.cli import generate
    options = {p.name: p for p in generate.params}
    for field in fields(Identity):
        option = options[field.name]
        assert option.opts == ["--" + field.name.replace("_", "-")]
        assert option.help.endswith(f"[default: {field.default}]"), option.help


def test_python_package_imports_by_its_name_from_out(renamed, tmp_path):
    """OUT on sys.path, cwd outside the checkout: `import myproj.nn_ops` runs ops."""
    _runtime_library()
    program = ("import numpy as np, myproj.nn_ops as ops\n"
               "print(ops.__name__, sorted(ops.__all__))\n"
               "print(np.asarray(ops.relu(np.float32([-1.5, 2.0]))).tolist())\n"
               "print(np.asarray(ops.mat_mul(np.float32([[1, 2]]), np.float32([[3], [4]]))).tolist())\n"
               "print(hasattr(ops, 'abs'))\n")
    # opgen itself as this process imports it: installed, or a checkout on $PYTHONPATH
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(renamed), *filter(None, [os.environ.get("PYTHONPATH")])])}
    run = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["myproj.nn_ops ['const', 'mat_mul', 'relu']",
                                       "[0.0, 2.0]", "[[11.0]]", "False"]


def test_stale_submodules_of_a_renamed_package_are_removed(tmp_path):
    _generate(tmp_path, "--python-package", "pkg", "--only", "MatMul", "--only", "Relu")
    assert (tmp_path / "pkg" / "_ops_r.py").is_file()
    output = _generate(tmp_path, "--python-package", "pkg", "--only", "MatMul")
    assert f"removed: {tmp_path / 'pkg' / '_ops_r.py'}" in output
    assert sorted(p.name for p in (tmp_path / "pkg").iterdir()) == [
        "__init__.py", "__init__.pyi", "_ops_m.py"]


CC, CXX = shutil.which("cc"), shutil.which("c++")


@pytest.mark.skipif(CC is None, reason="no C compiler (cc) on PATH")
def test_renamed_c_links_beside_the_default_c(renamed, tmp_path):
    """Two generated C bindings in one program: no symbol of one clashes with the other."""
    library = _runtime_library()
    main_c = tmp_path / "main.c"
    main_c.write_text('#include <stdio.h>\n#include "opgen_ops.h"\n#include "my_ops.h"\n'
                      "int main(void) {\n"
                      "  opgen_MatMulAttrs a; opgen_MatMulAttrsInit(&a);\n"
                      "  my_MatMulAttrs b; my_MatMulAttrsInit(&b);\n"
                      '  printf("%d %d\\n", (int)a.transpose_a, (int)b.transpose_b);\n'
                      "  return 0;\n}\n")
    binary = tmp_path / "prog"
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", str(main_c), str(GENERATED / "c" / "opgen_ops.c"),
                    str(renamed / "c" / "my_ops.c"), f"-I{GENERATED / 'c'}", f"-I{renamed / 'c'}",
                    f"-I{_paths.include_dir()}", f"-L{library.parent}", f"-l:{library.name}",
                    f"-Wl,-rpath,{library.parent}", "-o", str(binary)], check=True)
    symbols = subprocess.run(["nm", "-g", "--defined-only", str(binary)], capture_output=True,
                             text=True, check=True).stdout
    assert re.search(r" T my_MatMul$", symbols, re.M) and re.search(r" T opgen_MatMul$", symbols, re.M)
    assert subprocess.run([str(binary)], capture_output=True, text=True,
                          check=True).stdout == "0 0\n"   # the OpDef defaults


@pytest.mark.skipif(CXX is None, reason="no C++ compiler (c++) on PATH")
def test_renamed_cpp_header_compiles_beside_the_default_one(renamed, tmp_path):
    source = tmp_path / "both.cc"
    source.write_text('#include "opgen_ops.h"\n#include "my_nn.h"\n'
                      "void build(const opgen::Scope& scope, opgen::Input a) {\n"
                      "  opgen::ops::MatMul x(scope, a, a);\n"
                      "  my::nn::MatMul y(scope, x, a, my::nn::MatMul::TransposeB(true));\n"
                      "  my::nn::Relu z(scope, y);\n  (void)z;\n}\n")
    result = subprocess.run([CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                             f"-I{GENERATED / 'cpp'}", f"-I{renamed / 'cpp'}",
                             f"-I{_paths.include_dir()}", str(source)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]


def test_renamed_rust_crate_is_used_by_its_name(renamed, tmp_path):
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust crate is not compiled")
    user = tmp_path / "user"
    (user / "src").mkdir(parents=True)
    (user / "Cargo.toml").write_text(
        '[package]\nname = "user"\nversion = "0.1.0"\nedition = "2021"\n\n'
        f'[dependencies]\nmy-ops = {{ path = "{(renamed / "rust").as_posix()}", version = "=1.2.3-beta.1" }}\n\n'
        "[workspace]\n")
    (user / "src" / "main.rs").write_text("#[allow(unused_imports)]\nuse my_ops::{ops::relu, Output};\n\nfn main() {}\n")
    env = {**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target"), "OPGEN_LIB_DIR": str(tmp_path)}
    result = subprocess.run([cargo, "check", "--offline", "--quiet"], cwd=user, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]


def test_renamed_go_module_is_imported_by_its_path_and_name(renamed, tmp_path):
    go = shutil.which("go")
    if go is None:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    user = tmp_path / "user"
    user.mkdir()
    (user / "go.mod").write_text("module user\n\ngo 1.18\n\nrequire example.com/my/tf v0.0.0\n\n"
                                 f"replace example.com/my/tf => {(renamed / 'go').as_posix()}\n")
    (user / "main.go").write_text('package main\n\nimport (\n\t"example.com/my/tf"\n'
                                  '\t"example.com/my/tf/op"\n)\n\n'
                                  "func main() {\n\ts := op.NewScope()\n"
                                  "\tvar g *mytf.Graph = s.Graph()\n\t_ = g\n\t_ = op.Relu\n}\n")
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOPATH": str(tmp_path / "gopath"), "GOCACHE": os.environ.get("GOCACHE", str(tmp_path / "gocache")),
           "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}"}
    result = subprocess.run([go, "vet", ".", "example.com/my/tf/..."], cwd=user, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]


# ---- selection -----------------------------------------------------------------------

def _functions(out: Path, package: str = "python") -> list[str]:
    text = "".join(p.read_text() for p in sorted((out / package).glob("_ops_*.py")))
    return re.findall(r"^def (\w+)\(", text, re.M)


def test_only_and_exclude_select_by_pattern(tmp_path):
    output = _generate(tmp_path, "--lang", "python,c", "--only", "Relu*", "--only", "Mat?ul",
                       "--exclude", "*6", "--exclude", "*Grad")
    assert _functions(tmp_path) == ["mat_mul", "relu"]
    assert re.findall(r"^TF_Operation\* opgen_(\w+)\(", (tmp_path / "c" / "opgen_ops.h").read_text(),
                      re.M) == ["MatMul", "Relu"]
    assert "wrote:" in output
    head = (tmp_path / "python" / "__init__.py").read_text().splitlines()[0]
    assert head.endswith("), 2 of them selected.")


def test_a_pattern_matching_nothing_is_an_error(tmp_path):
    output = _generate(tmp_path, "--only", "Relu", "--only", "relu*", ok=False)
    bundled = len(opdefs.load(str(REPO / "ops.pbtxt")).op)
    assert f"--only 'relu*' matches no op of the bundled ops.pbtxt ({bundled} ops; op names " \
           "are case-sensitive" in output
    output = _generate(tmp_path, "--exclude", "Nope*", ok=False)
    assert "--exclude 'Nope*' matches no op" in output
    output = _generate(tmp_path, "--only", "Relu", "--exclude", "Rel*", ok=False)
    assert "--only 'Relu' --exclude 'Rel*' leave no op of the bundled ops.pbtxt to generate" in output
    assert not any(tmp_path.iterdir())


def test_only_runnable_keeps_the_ops_with_kernels(tmp_path):
    """An OpList of the bundled ops plus two the runtime has no kernel for."""
    import opgen
    _runtime_library()
    with_kernels = {k.op for k in opgen.registered_kernels().kernel}
    text = (REPO / "ops.pbtxt").read_text() + (
        'op { name: "NoKernelHere" input_arg { name: "x" type: DT_FLOAT } }\n'
        'op { name: "AlsoNone" }\n')
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(text)
    bundled = [op.name for op in opdefs.load(str(REPO / "ops.pbtxt")).op]
    # OpDefs TensorFlow's CPU builds register without a kernel (CTCLossV2's is cuDNN's)
    opdef_only = {"CTCLossV2"}
    assert set(bundled) - opdef_only <= with_kernels   # what the expectation below rests on
    assert not opdef_only & with_kernels
    _generate(tmp_path / "all", "--ops", str(ops))
    assert {"no_kernel_here", "also_none"} <= set(_functions(tmp_path / "all"))
    _generate(tmp_path / "runnable", "--ops", str(ops), "--only-runnable")
    functions = _functions(tmp_path / "runnable")
    assert "no_kernel_here" not in functions and "also_none" not in functions
    assert "ctc_loss_v2" not in functions
    assert len(functions) == len(_functions(tmp_path / "all")) - 2 - len(opdef_only)
    output = _generate(tmp_path / "none", "--ops", str(ops), "--only", "*None",
                       "--only-runnable", ok=False)
    assert "--only '*None' --only-runnable leave no op" in output


def test_kernel_docs_name_devices_and_dtypes_in_every_language(tmp_path):
    import opgen
    from opgen.runtime.dtypes import as_dtype
    _runtime_library()
    cpu = sorted({as_dtype(c.allowed_values.list.type[0]).name
                  for k in opgen.registered_kernels("Relu").kernel if k.device_type == "CPU"
                  for c in k.constraint})
    assert "float32" in cpu
    text = ('op { name: "NoKernelHere" input_arg { name: "x" type: DT_FLOAT } }\n')
    ops = tmp_path / "ops.pbtxt"
    ops.write_text((REPO / "ops.pbtxt").read_text() + text)
    _generate(tmp_path, "--ops", str(ops), "--lang", "python,c,cpp,rust,go", "--only", "Relu",
              "--only", "NoKernelHere", "--kernel-docs")
    files = {"python": tmp_path / "python" / "_ops_r.py", "c": tmp_path / "c" / "opgen_ops.h",
             "cpp": tmp_path / "cpp" / "opgen_ops.h", "rust": tmp_path / "rust" / "src" / "ops.rs",
             "go": tmp_path / "go" / "op" / "ops.go"}
    for lang, path in files.items():
        # the doc comment's words, without comment markers and line breaks
        words = " ".join(re.sub(r"^\s*(///|//|/?\*|#)?\s?", "", line)
                         for line in path.read_text().splitlines()).split()
        prose = " ".join(words)
        assert f"Kernels in the opgen runtime: CPU for {', '.join(_natural(cpu))}" in prose, lang
        assert "No kernel in the opgen runtime: running it fails with NotFoundError" in prose or \
            lang == "python", lang
    assert "No kernel in the opgen runtime" in (tmp_path / "python" / "_ops_n.py").read_text()


def _natural(names):
    return sorted(names, key=lambda n: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", n)])


def test_without_kernel_docs_no_kernel_text_is_written():
    for path in GENERATED.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            assert "Kernels in the opgen runtime" not in path.read_text(errors="replace"), path


def _kernel(op: str, device: str, **dtypes: int):
    from opgen.protos import kernel_def_pb2
    kernel = kernel_def_pb2.KernelDef(op=op, device_type=device)
    for name, value in dtypes.items():
        kernel.constraint.add(name=name).allowed_values.list.type.append(value)
    return kernel


def test_kernel_summary_wording():
    from opgen.op_selection import kernel_summary

    def flat(kernels):   # wrapped at 80 columns for doc comments; compared as prose
        text = kernel_summary(kernels)
        assert all(len(line) <= 80 for line in text.splitlines())
        return " ".join(text.split())
    f32, f64, i32, i64 = 1, 2, 3, 9   # DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64
    assert flat([_kernel("A", "GPU", T=f32), _kernel("A", "CPU", T=f64),
                 _kernel("A", "CPU", T=f32)]) == \
        "Kernels in the opgen runtime: CPU for float32, float64; GPU for float32."
    product = [_kernel("G", "CPU", T=t, Tidx=i) for t in (f32, f64) for i in (i64, i32)]
    assert flat(product) == \
        "Kernels in the opgen runtime: CPU for T in {float32, float64} x Tidx in {int32, int64}."
    assert flat(product[:3]) == (   # not every combination: each kernel
        "Kernels in the opgen runtime: CPU for T=float32 Tidx=int32, T=float32 Tidx=int64, "
        "T=float64 Tidx=int64.")
    assert flat([_kernel("NoOp", "CPU"), _kernel("NoOp", "GPU")]) == \
        "Kernels in the opgen runtime: CPU; GPU."
    assert flat([]).startswith("No kernel in the opgen runtime")
