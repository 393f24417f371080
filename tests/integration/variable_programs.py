"""What the resource-variable programs in C++ (examples/cpp/variable_example.cc), Rust and
Go (test_examples_rust_go.py) print, "what: values" a line, and the values numpy computes
for the same steps: initialize, three AssignAdds, an Assign, two AssignSubs, a read, an
int64 counter assigned then incremented across runs; then the errors (a read no run
assigned, a wrong dtype, a wrong shape)."""

from __future__ import annotations

import re

import numpy as np

#: the message every binding gives for an int32 value assigned to the float32 variable
WRONG_DTYPE = "cannot assign a int32 value to variable 'weights' of dtype float32"
#: ... and for a value of static shape (3,) assigned to the (2, 2) variable
WRONG_SHAPE = "cannot assign a value of shape (3,) to variable 'weights' of shape (2, 2)"


def expected_values() -> dict[str, np.ndarray]:
    steps = {}
    w = np.float32([[1, 2], [3, 4]])
    steps["init"] = w
    for k in range(1, 4):
        w = w + np.float32(0.5)
        steps[f"add_{k}"] = w
    w = np.float32([[10, 20], [30, 40]])
    steps["assign"] = w
    for k in range(1, 3):
        w = w - np.ones_like(w)
        steps[f"sub_{k}"] = w
    steps["read"] = w
    steps["counter"] = np.int64([5, 6, 7, 8])
    return steps


def parse(stdout: str) -> dict[str, str]:
    """"what: text" lines; a line of no "what: " continues the one before (a runtime
    message may end with the node on a line of its own)."""
    lines: dict[str, str] = {}
    what = ""
    for line in stdout.strip().splitlines():
        match = re.match(r"(\w+): (.*)", line)
        if match:
            what = match.group(1)
            lines[what] = match.group(2)
        else:
            lines[what] += "\n" + line
    return lines


def check(stdout: str, failed_precondition: str, invalid_argument: str) -> dict[str, str]:
    """Asserts the printed values and errors (codes as the language prints them); returns
    the lines for checks of a language's own."""
    lines = parse(stdout)
    for what, values in expected_values().items():
        printed = np.array([float(v) for v in lines[what].split()])
        np.testing.assert_allclose(printed, values.ravel(), rtol=1e-6, err_msg=what)
    code, message = lines["uninitialized"].split(" | ", 1)
    assert code == failed_precondition, lines["uninitialized"]
    assert "weights" in message, message                       # names the variable
    code, message = lines["wrong_dtype"].split(" | ", 1)
    assert (code, message) == (invalid_argument, WRONG_DTYPE)
    code, message = lines["wrong_shape"].split(" | ", 1)
    assert (code, message) == (invalid_argument, WRONG_SHAPE)
    return lines
