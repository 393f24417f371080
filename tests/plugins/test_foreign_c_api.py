"""Issue 18: with another copy of TensorFlow's C API in the global symbol scope
(`import tensorflow` puts libtensorflow_framework's TF_NewStatus, TF_AllocateOutput, ...
there), loading a plugin crashed: the plugin's TF_* calls bound to the other copy while
its OPGEN_* calls bound to opgen. TF_LoadLibrary now checks every C API name the plugin
imports and refuses the load with FailedPrecondition naming the first foreign one.

No TensorFlow needed: a small library defining TF_NewStatus stands in for it, loaded
RTLD_GLOBAL before opgen, in a child process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import compile_plugin  # noqa: E402

OTHER_C_API = r"""
#include <stddef.h>
/* Another library's TF_NewStatus: its own kind of object, which opgen must never see. */
static char other_status[256];
void* TF_NewStatus(void) { return other_status; }
void TF_DeleteStatus(void* s) { (void)s; }
"""

CHILD = """
import ctypes, sys
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)   # first in the global scope
import opgen
from opgen.runtime import errors
try:
    opgen.load_op_library(sys.argv[2])
except errors.FailedPreconditionError as e:
    print("REFUSED:", e)
else:
    print("LOADED")
"""


def test_plugin_is_refused_when_its_c_api_calls_would_bind_elsewhere(tmp_path):
    from opgen import _paths
    other = tmp_path / "libother_c_api.c"
    other.write_text(OTHER_C_API)
    other_so = compile_plugin(other, tmp_path / "libother_c_api.so", _paths.include_dir())
    plugin = compile_plugin(Path(__file__).parent / "fake_device.c", tmp_path / "libfake.so",
                            _paths.include_dir())
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD), str(other_so),
                            str(plugin)], capture_output=True, text=True, timeout=120,
                           cwd=tmp_path)  # not the checkout: its opgen/ has no built library
    assert child.returncode == 0, f"the child died ({child.returncode}):\n{child.stderr[-2000:]}"
    assert "REFUSED:" in child.stdout, child.stdout
    assert "TF_NewStatus" in child.stdout and "libother_c_api.so" in child.stdout, child.stdout


def test_plugin_loads_when_its_c_api_calls_bind_to_opgen(tmp_path):
    """The check must not refuse the ordinary case (nothing else in the global scope)."""
    from opgen import _paths
    plugin = compile_plugin(Path(__file__).parent / "fake_device.c", tmp_path / "libfake.so",
                            _paths.include_dir())
    child = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD).replace(
        "ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)", "pass"), "-", str(plugin)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert child.returncode == 0, child.stderr[-2000:]
    assert "LOADED" in child.stdout, child.stdout
