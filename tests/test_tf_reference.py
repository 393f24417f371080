"""tests/tf_reference.py, the one way tests reach TensorFlow: the skips, the child's
environment and folder, the .npz exchange and the failure report. The child here is this
interpreter standing in for TensorFlow's (numpy only), so these run everywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tf_reference import TFReferenceError, run_tf, run_tf_script, tf_python

CHECKOUT = Path(__file__).resolve().parents[1]

# Echoes what the child saw, and doubles the input array.
ECHO = r"""
import json, os, sys
import numpy as np
spec = json.load(open(sys.argv[1]))
data = np.load(sys.argv[2])
np.savez(sys.argv[3], doubled=2 * data["x"], scale=np.float64(spec["scale"]),
         cwd=np.array(os.getcwd()), log_level=np.array(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "")),
         pythonpath=np.array(os.environ.get("PYTHONPATH", "<unset>")))
"""


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setenv("OPGEN_TF_PYTHON", sys.executable)
    monkeypatch.setenv("PYTHONPATH", str(CHECKOUT))


def test_unset_skips_naming_the_variable(monkeypatch):
    monkeypatch.delenv("OPGEN_TF_PYTHON", raising=False)
    with pytest.raises(pytest.skip.Exception, match="OPGEN_TF_PYTHON is not set"):
        tf_python()


def test_missing_interpreter_skips_naming_the_path(monkeypatch, tmp_path):
    monkeypatch.setenv("OPGEN_TF_PYTHON", str(tmp_path / "no-python"))
    with pytest.raises(pytest.skip.Exception, match="no-python does not exist"):
        run_tf(["-c", "pass"])


def test_an_interpreter_without_tensorflow_skips(stand_in):
    with pytest.raises(pytest.skip.Exception, match="has no TensorFlow"):
        run_tf(["-c", "raise ModuleNotFoundError(\"No module named 'tensorflow'\")"])


def test_npz_round_trip_in_a_quiet_child_outside_the_checkout(stand_in):
    x = np.arange(6.0).reshape(2, 3)
    out = run_tf_script(ECHO, {"x": x}, {"scale": 0.5})
    np.testing.assert_array_equal(out["doubled"], 2 * x)
    assert out["scale"] == 0.5
    assert out["log_level"] == "3"
    assert out["pythonpath"] == "<unset>"  # the checkout's opgen never shadows TensorFlow's env
    cwd = Path(str(out["cwd"])).resolve()
    assert cwd != CHECKOUT and CHECKOUT not in cwd.parents


def test_a_failing_child_raises_with_its_stderr_tail(stand_in):
    script = "import sys; sys.stderr.write('x' * 5000 + 'the real reason'); sys.exit(3)"
    with pytest.raises(TFReferenceError, match="exited with 3") as info:
        run_tf(["-c", script])
    message = str(info.value)
    assert message.endswith("the real reason")
    assert len(message) < 5000  # the tail, not the whole of it


def test_check_false_returns_the_failure(stand_in):
    assert run_tf(["-c", "import sys; sys.exit(2)"], check=False).returncode == 2


def test_the_timeout_is_passed_on(stand_in):
    with pytest.raises(subprocess.TimeoutExpired):
        run_tf(["-c", "import time; time.sleep(30)"], timeout=1)


def test_no_test_reads_the_tensorflow_interpreter_itself():
    """Every test reaches TensorFlow through tf_reference: none reads OPGEN_TF_PYTHON on
    its own, and nothing under tests/, tools/ or benchmarks/ names a machine's path."""
    readers, machine_paths = [], []
    for folder in ("tests", "tools", "benchmarks"):
        for path in sorted((CHECKOUT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = str(path.relative_to(CHECKOUT))
            if folder == "tests" and path.name not in ("tf_reference.py", Path(__file__).name) \
                    and ('environ.get("OPGEN_TF_PYTHON"' in text
                         or 'environ["OPGEN_TF_PYTHON"]' in text):
                readers.append(name)
            if path.name != Path(__file__).name and any(
                    p in text for p in ("/work/venv", "/work/tfvenv")):
                machine_paths.append(name)
    assert readers == [] and machine_paths == []
