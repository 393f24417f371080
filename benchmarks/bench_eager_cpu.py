"""Eager CPU speed of the generated ops, as ratios against numpy in the same process.

    python benchmarks/bench_eager_cpu.py [--repeats 7]

Prints, per case, the median time of opgen and of numpy and the ratio numpy/opgen
(above 1.0 means opgen is faster). Run it on an otherwise idle machine; the numbers
are medians of several repeats because shared machines are noisy.
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import median_seconds

from opgen import convert_to_tensor, ops


def cases():
    rng = np.random.default_rng(0)
    small = rng.standard_normal(16).astype(np.float32)
    big_a = rng.standard_normal(10_000_000).astype(np.float32)
    big_b = rng.standard_normal(10_000_000).astype(np.float32)
    m = rng.standard_normal((1024, 1024)).astype(np.float32)
    # Inputs already in the runtime: the kernel without the numpy -> runtime copies.
    big_ta, big_tb = convert_to_tensor(big_a), convert_to_tensor(big_b)
    yield "add_v2 16 f32 (dispatch overhead)", lambda: ops.add_v2(small, small), lambda: np.add(small, small), 2000
    yield "add_v2 10M f32", lambda: ops.add_v2(big_a, big_b), lambda: np.add(big_a, big_b), 3
    yield "add_v2 10M f32, runtime inputs", lambda: ops.add_v2(big_ta, big_tb), lambda: np.add(big_a, big_b), 3
    yield "relu 10M f32", lambda: ops.relu(big_a), lambda: np.maximum(big_a, 0), 3
    yield "mat_mul 1024x1024 f32", lambda: ops.mat_mul(m, m), lambda: m @ m, 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"{'case':40s} {'opgen':>12s} {'numpy':>12s} {'numpy/opgen':>12s}")
    for label, ours, reference, inner in cases():
        t_ours = median_seconds(ours, args.repeats, inner)
        t_ref = median_seconds(reference, args.repeats, inner)
        print(f"{label:40s} {t_ours * 1e6:10.1f}us {t_ref * 1e6:10.1f}us {t_ref / t_ours:12.2f}")


if __name__ == "__main__":
    main()
