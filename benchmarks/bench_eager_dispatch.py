"""Eager dispatch overhead: a generated op on tiny arrays, against numpy (and PyTorch and
TensorFlow where they import) in the same process.

    python benchmarks/bench_eager_dispatch.py [--repeats 41] [--inner 20000]

The case is `ops.add_v2(a, b)` on two 4-element float32 numpy arrays, from the call
to a usable result (an opgen Tensor). Each repeat times every contender back to back
(`inner` calls each, order rotated per repeat), so a slow moment on a shared machine
hits all of them alike; the figures are medians over repeats, and the ratios are
medians of the per-repeat ratios. Also timed: the same op on opgen Tensors and with
a Python scalar operand, and, apart and last, the ctypes path (what runs where the
compiled fast path is not built).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from opgen import convert_to_tensor, ops
from opgen.runtime import eager


def _contenders():
    a = np.arange(4, dtype=np.float32)
    b = np.arange(4, dtype=np.float32) + 1
    ta, tb = convert_to_tensor(a), convert_to_tensor(b)
    yield "numpy np.add", lambda: np.add(a, b)
    yield "opgen ops.add_v2 (numpy in)", lambda: ops.add_v2(a, b)
    yield "opgen ops.add_v2 (Tensors in)", lambda: ops.add_v2(ta, tb)
    yield "opgen ops.add_v2 (numpy, 2.0)", lambda: ops.add_v2(a, 2.0)
    # For the breakdown: without the generated wrapper, and an op with no tensors.
    execute_op = eager.execute_op
    yield "opgen execute_op direct (numpy in)", lambda: execute_op("AddV2", [a, b], {}, None)
    yield "opgen ops.no_op (no tensors)", ops.no_op
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)
        xa, xb = torch.from_numpy(a), torch.from_numpy(b)
        yield "torch.add (torch tensors in)", lambda: torch.add(xa, xb)
    try:
        import tensorflow as tf
    except ImportError:
        pass
    else:
        from tensorflow.python.ops import gen_math_ops  # TensorFlow's generated op

        fa, fb = tf.constant(a), tf.constant(b)
        yield "tf gen_math_ops.add_v2 (numpy in)", lambda: gen_math_ops.add_v2(a, b)
        yield "tf gen_math_ops.add_v2 (tf in)", lambda: gen_math_ops.add_v2(fa, fb)


def _ctypes_path():
    """The path every call took before the compiled one (and takes without it)."""
    a = np.arange(4, dtype=np.float32)
    b = np.arange(4, dtype=np.float32) + 1
    python_path = eager._execute_op_python
    yield "numpy np.add", lambda: np.add(a, b)
    yield "opgen ctypes path (numpy in)", lambda: python_path("AddV2", [a, b], {}, None)


def _time(fn, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - start) / inner


def _measure(contenders, repeats: int, inner: int) -> None:
    for _, fn in contenders:  # warm up: caches, first-call resolution, page faults
        _time(fn, 1000)
    samples = {label: [] for label, _ in contenders}
    for r in range(repeats):
        rotated = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
        for label, fn in rotated:
            samples[label].append(_time(fn, inner))
    reference = samples["numpy np.add"]
    for label, _ in contenders:
        ratio = statistics.median(t / n for t, n in zip(samples[label], reference))
        print(f"{label:36s} {statistics.median(samples[label]) * 1e6:8.3f}us {ratio:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41)
    parser.add_argument("--inner", type=int, default=20000)
    args = parser.parse_args()
    print(f"{'case':36s} {'median':>10s} {'x numpy':>8s}")
    _measure(list(_contenders()), args.repeats, args.inner)
    # Last and apart: its garbage would slow the allocator for the others.
    print("-- the ctypes path (before the compiled one), against numpy:")
    _measure(list(_ctypes_path()), max(5, args.repeats // 4), max(100, args.inner // 100))


if __name__ == "__main__":
    main()
