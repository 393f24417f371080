"""The C ABI fuzzer (tools/fuzz/fuzz_capi.c), built with the system C compiler against the
runtime, runs a fixed seed over 20,000 mutated inputs: GraphDefs, AttrValue, shape and
tensor protos, op specs, tensor dims, session misuse. Every call must succeed or fail
with a message; a crash, an abort or an empty error message fails the run. Long runs under
AddressSanitizer and UBSan: tools/fuzz/README.md."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FUZZER = REPO / "tools" / "fuzz" / "fuzz_capi.c"
FIXTURES = [REPO / "tests" / "fixtures" / "tf_models" / name for name in ("mlp.pb", "cnn.pb")]
SEED, INPUTS = 20261123, 20000
KINDS = ["GraphDef", "AttrValue", "TensorShapeProto", "TensorProto", "op spec", "tensor dims"]


@pytest.fixture(scope="module")
def fuzzer(tmp_path_factory) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = tmp_path_factory.mktemp("fuzz") / "fuzz_capi"
    build = subprocess.run(
        [compiler, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", str(FUZZER),
         f"-I{_paths.include_dir()}", f"-L{library.parent}", f"-l:{library.name}",
         f"-Wl,-rpath,{library.parent}", "-o", str(binary)],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return binary


def _run(fuzzer: Path, *args: str) -> str:
    run = subprocess.run([str(fuzzer), *args], capture_output=True, text=True, timeout=120,
                         cwd=fuzzer.parent, env={**os.environ, "TMPDIR": str(fuzzer.parent)})
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr[-4000:]}"
    return run.stdout


def _counts(report: str) -> dict[str, tuple[int, int]]:
    """{kind: (inputs, accepted)} from the run's summary."""
    found = re.findall(r"^  (.+?)\s+(\d+) inputs,\s+(\d+) accepted$", report, re.M)
    return {kind: (int(n), int(ok)) for kind, n, ok in found}


def test_fixed_seed_run_finds_no_crash_and_reaches_every_entry_point(fuzzer):
    counts = _counts(_run(fuzzer, "--seed", str(SEED), "--iterations", str(INPUTS),
                          *map(str, FIXTURES)))
    assert sorted(counts) == sorted(KINDS)
    assert sum(n for n, _ in counts.values()) > 0.9 * INPUTS  # the rest: session misuse
    for kind in ["GraphDef", "AttrValue", "TensorShapeProto", "tensor dims", "op spec"]:
        inputs, accepted = counts[kind]
        # Both outcomes occur: mutants that still parse reach the checks past the parser.
        assert 0 < accepted < inputs, (kind, counts[kind])


def test_an_iteration_replays_alone(fuzzer):
    # A failure report names (seed, iteration); --start must rebuild that very input, so
    # the inputs of a range must not depend on the iterations before it.
    whole = _counts(_run(fuzzer, "--seed", "5", "--iterations", "400"))
    halves = [_counts(_run(fuzzer, "--seed", "5", "--start", start, "--iterations", "200"))
              for start in ("0", "200")]
    assert {k: tuple(a + b for a, b in zip(halves[0][k], halves[1][k])) for k in KINDS} == whole
