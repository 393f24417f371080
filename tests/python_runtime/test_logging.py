"""Runtime logging: device placement as tf.debugging.set_log_device_placement prints it,
and $OPGEN_LOG_LEVEL / set_log_level hiding it. The runtime (C) writes the lines on
stderr, so they are captured at the file descriptor (capfd)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import opgen
from opgen import ops

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture
def placement_logged():
    opgen.debugging.set_log_device_placement(True)
    level = opgen.debugging.get_log_level()
    yield
    opgen.debugging.set_log_device_placement(False)
    opgen.debugging.set_log_level(level)


def test_eager_ops_log_where_they_run_on_every_run(capfd, placement_logged):
    assert opgen.debugging.get_log_device_placement()
    x = ops.add_v2(np.float32([1, 2]), np.float32([3, 4]))
    ops.relu(x)
    ops.add_v2(x, x)
    lines = capfd.readouterr().err.splitlines()
    assert lines == [f"Executing op AddV2 in device {CPU}", f"Executing op Relu in device {CPU}",
                     f"Executing op AddV2 in device {CPU}"]
    np.testing.assert_array_equal(x.numpy(), [4, 6])


def test_session_nodes_log_their_placement_once(capfd, placement_logged):
    g = opgen.Graph()
    with g.as_default():   # a placeholder: nothing for the optimizer to fold away
        a = ops.placeholder(opgen.float32, shape=[2], name="a")
        total = ops.add_v2(a, a, name="total")
    with opgen.Session(graph=g) as session:
        for _ in range(2):
            np.testing.assert_array_equal(session.run(total, {a: np.float32([1, 2])}), [2, 4])
    lines = capfd.readouterr().err.splitlines()
    assert f"total: (AddV2): {CPU}" in lines, lines
    assert lines.count(f"total: (AddV2): {CPU}") == 1


def test_placement_is_not_logged_unless_asked_or_below_the_log_level(capfd, placement_logged):
    opgen.debugging.set_log_level("warning")   # hides INFO, as TF_CPP_MIN_LOG_LEVEL=1
    assert opgen.debugging.get_log_level() == 1
    ops.add_v2(np.float32([1]), np.float32([2]))
    opgen.debugging.set_log_level(0)
    opgen.set_log_device_placement(False)      # the top-level name is the same switch
    ops.add_v2(np.float32([1]), np.float32([2]))
    assert capfd.readouterr().err == ""


def test_bad_log_levels_are_refused():
    with pytest.raises(ValueError, match="0-3"):
        opgen.debugging.set_log_level(7)
    with pytest.raises(ValueError, match="info, warning, error, none"):
        opgen.debugging.set_log_level("loud")


@pytest.mark.parametrize("value, printed", [("1", False), ("warning", False), ("0", True),
                                            ("INFO", True)])
def test_log_level_comes_from_the_environment(value, printed, tmp_path):
    # (run outside the checkout, whose opgen/ would shadow the installed one)
    program = ("import numpy as np, opgen; from opgen import ops; "
               "opgen.set_log_device_placement(True); ops.neg(np.float32([1]))")
    env = {**os.environ, "OPGEN_LOG_LEVEL": value}
    result = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                            text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (f"Executing op Neg in device {CPU}" in result.stderr) == printed, result.stderr


def test_an_unknown_environment_level_is_said_and_everything_logged(tmp_path):
    program = "import opgen; print(opgen.debugging.get_log_level())"
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                            env={**os.environ, "OPGEN_LOG_LEVEL": "loud"}, timeout=120,
                            cwd=tmp_path)
    assert result.stdout.strip() == "0"
    assert "OPGEN_LOG_LEVEL=loud is not 0-3" in result.stderr


def test_verbose_cli_names_the_runtime_library_it_loads(tmp_path):
    from opgen import _paths
    # (outside the checkout, whose opgen/ would shadow the installed one)
    result = subprocess.run([sys.executable, "-m", "opgen", "-v", "kernels", "Neg"],
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    library = _paths.runtime_library_path()
    assert f"loaded the opgen runtime library {library}" in result.stderr.splitlines()
    assert result.stdout.startswith("Neg\tCPU\t")
    quiet = subprocess.run([sys.executable, "-m", "opgen", "-q", "kernels", "Neg"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert quiet.stderr == "" and quiet.stdout == result.stdout
