"""Resource variables through the C API alone: variables_capi.c builds a graph with
VarHandleOp / AssignVariableOp / AssignAddVariableOp / ReadVariableOp and a NoOp train
op, runs it in two sessions, and runs the ops eagerly. The expected values are numpy's
arithmetic; the error codes and messages are TensorFlow's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

PROGRAM = Path(__file__).resolve().parent / "variables_capi.c"
FAILED_PRECONDITION, INVALID_ARGUMENT = 9, 3


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = tmp_path_factory.mktemp("variables") / "variables_capi"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", str(PROGRAM),
                    f"-I{_paths.include_dir()}", f"-L{library.parent}",
                    f"-l:{library.name}", f"-Wl,-rpath,{library.parent}", "-o", str(binary)],
                   check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    out: dict[str, list[str]] = {"stdout": [run.stdout]}
    for line in run.stdout.splitlines():
        key, _, rest = line.partition(": ")
        out.setdefault(key, []).append(rest)
    return out


def floats(text: str) -> np.ndarray:
    return np.float32([float(v) for v in text.split()])


def test_reading_before_the_initializer_is_failed_precondition_naming_the_variable(lines):
    code, _, message = lines["before_init"][0].removeprefix("error ").partition(" ")
    assert int(code) == FAILED_PRECONDITION
    assert message.startswith("ReadVariableOp: Could not find variable w.")
    assert "container=localhost\n\t [[{{node read}}]]" in lines["stdout"][0]


def test_train_op_updates_the_variable_across_session_runs(lines):
    assert lines["init"] == ["ok"] and lines["train"] == ["ok"] * 3
    expected = np.float32([1, 2]) + 3 * np.float32([0.5, 0.25])
    np.testing.assert_array_equal(floats(lines["after_3_steps"][0]), expected)


def test_each_session_has_its_own_variables(lines):
    assert lines["other_session"][0].startswith(f"error {FAILED_PRECONDITION} ")


def test_assigning_another_dtype_is_invalid_argument_and_keeps_the_value(lines):
    code, _, message = lines["wrong_dtype"][0].removeprefix("error ").partition(" ")
    assert int(code) == INVALID_ARGUMENT
    assert "wrong dtype. Expected float got int32" in message and "'w'" in message
    np.testing.assert_array_equal(floats(lines["still"][0]), floats(lines["after_3_steps"][0]))


def test_eager_context_keeps_the_variable_until_destroyed(lines):
    code, _, message = lines["eager_uninitialized"][0].partition(" ")
    assert int(code) == FAILED_PRECONDITION and "Could not find variable v" in message
    np.testing.assert_array_equal(floats(lines["eager_after_sub"][0]),
                                  np.float32([1, 2]) - np.float32([0.5, 0.25]))
    assert lines["eager_handle_dtype"] == ["20"]  # TF_RESOURCE
    assert lines["eager_destroyed"] == [str(FAILED_PRECONDITION)]
