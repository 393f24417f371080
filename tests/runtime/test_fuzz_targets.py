"""The libFuzzer-style targets under tools/fuzz (the GraphDef importer, eager attr setters,
the tf.Example reader behind ParseExampleV2)
build against the runtime with the coverage-guided GCC driver and run a fixed seed in
every test run; the OpList loaders' target (an atheris one) runs on its seeds and their
mutants without atheris. The sanitizer runs (ASan + UBSan, bounded) are
tools/fuzz/run_sanitized.sh, which CI runs after the tests."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FUZZ = REPO / "tools" / "fuzz"
FIXTURES = sorted(str(p) for p in (REPO / "tests" / "fixtures" / "tf_models").glob("*.pb"))


def _build(target: str, out: Path) -> Path:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = out / f"fuzz_{target}"
    # The target itself is built with coverage (the runtime of a normal build is not), so
    # the driver's guidance has edges to find.
    target_object = out / f"target_{target}.o"
    steps = [
        [compiler, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror",
         "-fsanitize-coverage=trace-pc", f"-I{_paths.include_dir()}", "-c",
         str(FUZZ / f"target_{target}.c"), "-o", str(target_object)],
        [compiler, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", str(target_object),
         str(FUZZ / "driver.c"), f"-L{library.parent}", f"-l:{library.name}",
         f"-Wl,-rpath,{library.parent}", "-o", str(binary)],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    return binary


def _run(binary: Path, *args: str) -> str:
    run = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300,
                         cwd=binary.parent, env={**os.environ, "TMPDIR": str(binary.parent)})
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr[-4000:]}"
    return run.stdout


def _summary(report: str) -> dict[str, int]:
    match = re.search(r"Done (\d+) runs .*: (\d+) edges, corpus (\d+) \((\d+) seeds\)", report)
    assert match, report
    runs, edges, corpus, seeds = map(int, match.groups())
    return {"runs": runs, "edges": edges, "corpus": corpus, "seeds": seeds}


@pytest.mark.parametrize("target,seeds", [("graphdef", FIXTURES), ("eager_attrs", []),
                                          ("parse_example", [])])
def test_a_target_runs_a_fixed_seed_clean_and_grows_its_corpus(target, seeds, tmp_path):
    binary = _build(target, tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    summary = _summary(_run(binary, "-runs=4000", "-seed=20261127", str(corpus), *seeds))
    assert summary["runs"] == 4000
    assert summary["seeds"] == max(len(seeds), 1)
    # Coverage guidance works: mutants that reach new edges are kept and written out.
    assert summary["edges"] > 20 and summary["corpus"] > summary["seeds"]
    assert len(list(corpus.iterdir())) == summary["corpus"] - summary["seeds"]


def test_the_driver_replays_a_file(tmp_path):
    binary = _build("graphdef", tmp_path)
    assert "no crash" in _run(binary, FIXTURES[0])


def test_the_driver_saves_the_input_that_crashes(tmp_path):
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    # A target that crashes on inputs holding "boom": the mutants of a seed "bxom" find it
    # quickly (one byte to change), and the driver must write that input and fail.
    source = tmp_path / "boom.c"
    source.write_text(
        "#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t* d, size_t n) {\n"
        "  for (size_t i = 0; i + 4 <= n; i++) if (!memcmp(d + i, \"boom\", 4)) abort();\n"
        "  return 0;\n}\n")
    binary = tmp_path / "boom"
    done = subprocess.run([compiler, "-O1", str(source), str(FUZZ / "driver.c"), "-o",
                           str(binary)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (tmp_path / "seed").write_bytes(b"bxom")
    run = subprocess.run([str(binary), "-runs=200000", "-seed=1",
                          f"-artifact_prefix={tmp_path}/", str(tmp_path / "seed")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    crashes = list(tmp_path.glob("crash-*"))
    assert len(crashes) == 1 and b"boom" in crashes[0].read_bytes(), run.stderr
    # The saved input replays the crash.
    replay = subprocess.run([str(binary), str(crashes[0])], capture_output=True, cwd=tmp_path)
    assert replay.returncode != 0


def _oplist_target():
    spec = importlib.util.spec_from_file_location("fuzz_oplist", FUZZ / "fuzz_oplist.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_oplist_target_holds_on_its_seeds_and_their_mutants(tmp_path):
    target = _oplist_target()
    target.make_seeds(tmp_path)
    seeds = sorted(tmp_path.iterdir())
    assert len(seeds) >= 10
    checked = 0
    for path in seeds:
        data = path.read_bytes()
        # The seed, its cuts and a few one-byte changes: refused or loaded, never
        # another exception, and op-by-op specs equal the whole list's.
        for mutant in [data, data[: len(data) // 2], data[:-1], data + b"\x00",
                       data.replace(b"type", b"tpye"), data.replace(b"\x08", b"\x09", 1)]:
            target.test_one_input(mutant)
            checked += 1
    assert checked == 6 * len(seeds)
