"""A GradientTape step over an eager opgen.function holding a long While loop.

f(x) = sum(acc_n), acc <- acc * x + 0.001 * sin(acc) for n iterations (float32[3], x
near 1), as an opgen.function called eagerly. Per n, the medians of: the plain call (no
tape), the tape step (the call under a tape watching x, then tape.gradient), and their
ratio. The tape's call runs a forward function keeping the loop's values and the
gradient walks back over them, so the step runs the loop once (about 2 to 3 plain calls
of work: keeping, then the loop back); replaying the call instead ran the forward loop
twice more inside the gradient. The gradient is checked against the same loop's
gradient carried forward in numpy (float64).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_tape_while.py \\
        [--iterations 1000 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from _timing import median_seconds_each

import opgen

SCALE = 0.001


def numpy_gradient(x: np.ndarray, n: int) -> np.ndarray:
    """d sum(acc_n) / d x with acc_0 = x, carried forward in float64."""
    x = x.astype(np.float64)
    acc, d = x.copy(), np.ones_like(x)
    for _ in range(n):
        d = (x + SCALE * np.cos(acc)) * d + acc
        acc = acc * x + SCALE * np.sin(acc)
    return d


def calls(n: int, xv: np.ndarray):
    """(the plain call, the tape step) for n iterations, as functions to time."""
    ops = opgen.ops

    @opgen.function
    def f(x):
        body = lambda i, a: (i + 1, a * x + SCALE * ops.sin(a))  # noqa: E731
        return ops.sum(opgen.while_loop(lambda i, a: i < n, body, [0, x])[1], [0])

    x = opgen.constant(xv)

    def plain():
        return f(x)

    def step():
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)
    return plain, step


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
    xv = np.float32([0.9999, 1.0, 0.9998])
    for n in args.iterations:
        plain, step = calls(n, xv)
        np.testing.assert_allclose(step().numpy(), numpy_gradient(xv, n), rtol=2e-3)
        t_plain, t_step = median_seconds_each([plain, step], args.repeats)
        print(f"n={n:6d}  plain call {t_plain * 1e3:8.2f} ms   tape step {t_step * 1e3:8.2f} ms"
              f"   step/call {t_step / t_plain:5.2f}")


if __name__ == "__main__":
    main()
