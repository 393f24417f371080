"""The built-in registry is the one source of truth: ``ops.pbtxt`` is that registry
written out, and ``generated/python`` is ``opgen generate`` on ``ops.pbtxt``."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from google.protobuf import text_format

REPO = Path(__file__).resolve().parents[2]


def _opgen(*args: str, text: bool = True) -> subprocess.CompletedProcess:
    """Runs the installed `opgen` in a fresh process. The working directory is outside
    the checkout, so `-m opgen` finds the installed package, not the source tree."""
    return subprocess.run([sys.executable, "-m", "opgen", *args], capture_output=True,
                          text=text, cwd=tempfile.gettempdir())


@pytest.fixture(scope="module")
def runtime_oplist():
    """The runtime's registry as a fresh process sees it (tests in this process may
    register ops of their own)."""
    from opgen import _paths
    from opgen.protos import op_def_pb2
    try:
        _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")
    result = _opgen("dump", "--from-runtime", "--format", "binary", text=False)
    assert result.returncode == 0, result.stderr.decode()
    return op_def_pb2.OpList.FromString(result.stdout)


def test_ops_pbtxt_is_the_runtime_registry_written_out(runtime_oplist):
    from opgen.protos import op_def_pb2
    checked_in = text_format.Parse((REPO / "ops.pbtxt").read_text(), op_def_pb2.OpList())
    assert [op.name for op in checked_in.op] == sorted(op.name for op in runtime_oplist.op)
    by_name = {op.name: op for op in runtime_oplist.op}
    for op in checked_in.op:
        assert op == by_name[op.name], f"ops.pbtxt is stale for {op.name}: run `opgen dump --from-runtime --out ops.pbtxt`"


def test_opgen_dump_reproduces_ops_pbtxt_byte_for_byte(tmp_path, runtime_oplist):
    # `opgen dump` is how ops.pbtxt is made; it must reproduce it exactly.
    out = tmp_path / "ops.pbtxt"
    result = _opgen("dump", "--from-runtime", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == (REPO / "ops.pbtxt").read_bytes()


def test_generated_python_is_fresh():
    result = _opgen("generate", "--check", "--lang", "python",
                    "--ops", str(REPO / "ops.pbtxt"), "--out", str(REPO / "generated"))
    assert result.returncode == 0, (
        "generated/ is stale; run `opgen generate`:\n" + result.stdout + result.stderr)


def test_check_reports_stale_output_and_writes_nothing(tmp_path):
    out = tmp_path / "gen"
    (out / "python").mkdir(parents=True)
    stale = out / "python" / "__init__.py"
    stale.write_text("# stale\n")
    result = _opgen("generate", "--check", "--ops", str(REPO / "ops.pbtxt"), "--out", str(out))
    assert result.returncode != 0
    assert stale.read_text() == "# stale\n"
