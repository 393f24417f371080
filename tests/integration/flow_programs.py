"""What the functions-and-control-flow programs in C++ (examples/cpp/flow_example.cc), Rust
and Go print, "what: values" a line, and the values numpy computes for the same graphs.

Every program builds one graph with x = a float32 placeholder of shape [3], fed [1, 2, 3],
and y = a float32 constant [0.5, -1, 2]:

- function: f(a, b) = a * a + b, traced from a graph of its own into a FunctionDef
  (TF_GraphToFunction) named "square_plus", added to the graph, called twice:
  f(f(x, y), y). "function_grad" is d sum(f(f(x, y), y)) / dx.
- cond: then(x) = x * x, else(x) = x - 1, as a StatelessIf node over two functions, pred a bool
  placeholder; "cond_true"/"cond_false" for pred fed true/false; "cond_grad_true" and
  "cond_grad_false" are d sum(cond) / dx for each pred.
- while: loop variables (i: int32 0, n: int32 placeholder fed 4, v: x); cond i < n;
  body (i + 1, n, v * 1.5 + 1), built through TF_NewWhile / TF_FinishWhile.
  "while_count" is the final i, "while" the final v, "while_grad" d sum(v) / dx.

Then the errors, each "what: CODE | message" with the code as the language prints it:
- missing_function: a node whose op is "no_such_function" (no op, no function of that
  name): the message names it.
- while_dtype: a loop whose body casts v to int32; the error (when the loop is built or
  when it runs) names both dtypes.
"""

from __future__ import annotations

import numpy as np

from variable_programs import parse

X = np.float32([1, 2, 3])
Y = np.float32([0.5, -1, 2])
LOOP_COUNT = 4


def expected_values() -> dict[str, np.ndarray]:
    inner = X * X + Y
    values = {"function": inner * inner + Y, "function_grad": 2 * inner * 2 * X}
    values["cond_true"] = X * X
    values["cond_false"] = X - 1
    values["cond_grad_true"] = 2 * X
    values["cond_grad_false"] = np.ones_like(X)
    v = X.copy()
    for _ in range(LOOP_COUNT):
        v = v * np.float32(1.5) + np.float32(1)
    values["while_count"] = np.float32([LOOP_COUNT])
    values["while"] = v
    values["while_grad"] = np.full_like(X, 1.5**LOOP_COUNT)
    return values


def check(stdout: str, not_found: str, invalid_argument: str) -> dict[str, str]:
    """Asserts the printed values and errors (codes as the language prints them); returns
    the lines for checks of a language's own."""
    lines = parse(stdout)
    for what, values in expected_values().items():
        printed = np.array([float(v) for v in lines[what].split()])
        np.testing.assert_allclose(printed, values.ravel(), rtol=1e-6, err_msg=what)
    code, message = lines["missing_function"].split(" | ", 1)
    assert code == not_found, lines["missing_function"]
    assert "no_such_function" in message, message
    code, message = lines["while_dtype"].split(" | ", 1)
    assert code == invalid_argument, lines["while_dtype"]
    assert "float32" in message and "int32" in message, message
    return lines
