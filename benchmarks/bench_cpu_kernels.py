"""CPU kernel speed against numpy (and torch, when importable), in the same process.

Each op runs through the generated wrappers (`opgen.ops`) on inputs that are already
runtime tensors, so the figure is the kernel plus one dispatch, not a numpy-to-tensor
copy. Every timing is the median of several repeats; ratios are reference time over
opgen time (above 1: opgen is faster).

    python benchmarks/bench_cpu_kernels.py [--size 10000000] [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
from _timing import median_seconds

import opgen
from opgen import ops

try:
    import torch
except ImportError:  # optional reference
    torch = None


def cases(size: int):
    """(name, bytes moved, opgen fn, numpy fn, torch fn or None) for each benchmark."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(size, dtype=np.float32)
    y = rng.standard_normal(size, dtype=np.float32)
    cols = 1000
    x2 = x[: size // cols * cols].reshape(-1, cols)
    tx, ty, tx2 = (opgen.convert_to_tensor(a) for a in (x, y, x2))
    two = opgen.convert_to_tensor(np.float32(2))
    all_axes = opgen.convert_to_tensor(np.array([0], np.int32))
    last_axis = opgen.convert_to_tensor(np.array([1], np.int32))
    px = py = px2 = None
    if torch is not None:
        px, py, px2 = (torch.from_numpy(a) for a in (x, y, x2))
    b = x.nbytes
    out = [
        ("AddV2 x+y", 3 * b, lambda: ops.add_v2(tx, ty), lambda: np.add(x, y),
         px is not None and (lambda: torch.add(px, py))),
        ("Mul x*2 (scalar)", 2 * b, lambda: ops.mul(tx, two), lambda: np.multiply(x, np.float32(2)),
         px is not None and (lambda: torch.mul(px, 2.0))),
        ("Maximum x,y", 3 * b, lambda: ops.maximum(tx, ty), lambda: np.maximum(x, y),
         px is not None and (lambda: torch.maximum(px, py))),
        ("Neg", 2 * b, lambda: ops.neg(tx), lambda: np.negative(x),
         px is not None and (lambda: torch.neg(px))),
        ("Relu", 2 * b, lambda: ops.relu(tx), lambda: np.maximum(x, np.float32(0)),
         px is not None and (lambda: torch.relu(px))),
        ("Exp", 2 * b, lambda: ops.exp(tx), lambda: np.exp(x),
         px is not None and (lambda: torch.exp(px))),
        ("Tanh", 2 * b, lambda: ops.tanh(tx), lambda: np.tanh(x),
         px is not None and (lambda: torch.tanh(px))),
        ("Sigmoid", 2 * b, lambda: ops.sigmoid(tx), lambda: 1 / (1 + np.exp(-x)),
         px is not None and (lambda: torch.sigmoid(px))),
        ("Sum all", b, lambda: ops.sum(tx, all_axes), lambda: np.sum(x),
         px is not None and (lambda: torch.sum(px))),
        ("Mean all", b, lambda: ops.mean(tx, all_axes), lambda: np.mean(x),
         px is not None and (lambda: torch.mean(px))),
        ("Max all", b, lambda: ops.max(tx, all_axes), lambda: np.max(x),
         px is not None and (lambda: torch.max(px))),
        ("Sum last axis", b, lambda: ops.sum(tx2, last_axis), lambda: np.sum(x2, axis=1),
         px is not None and (lambda: torch.sum(px2, dim=1))),
        ("Mean last axis", b, lambda: ops.mean(tx2, last_axis), lambda: np.mean(x2, axis=1),
         px is not None and (lambda: torch.mean(px2, dim=1))),
        ("Max last axis", b, lambda: ops.max(tx2, last_axis), lambda: np.max(x2, axis=1),
         px is not None and (lambda: torch.amax(px2, dim=1))),
        ("Sum first axis", b, lambda: ops.sum(tx2, all_axes), lambda: np.sum(x2, axis=0),
         px is not None and (lambda: torch.sum(px2, dim=0))),
    ]
    m = rng.standard_normal((1024, 1024), dtype=np.float32)
    tm = opgen.convert_to_tensor(m)
    pm = torch.from_numpy(m) if torch is not None else None
    out.append(("MatMul 1024^3", 0, lambda: ops.mat_mul(tm, tm), lambda: m @ m,
                pm is not None and (lambda: pm @ pm)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numpy {np.__version__}" + (f", torch {torch.__version__}" if torch else ""))
    print(f"# float32, {args.size:,} elements, median of {args.repeats}")
    header = f"{'op':<18} {'opgen ms':>9} {'GB/s':>6} {'numpy ms':>9} {'np/opgen':>9}"
    if torch is not None:
        header += f" {'torch ms':>9} {'torch/opgen':>11}"
    print(header)
    for name, nbytes, mine, reference, torch_fn in cases(args.size):
        t_mine = median_seconds(mine, args.repeats)
        t_np = median_seconds(reference, args.repeats)
        gbs = f"{nbytes / t_mine / 1e9:6.1f}" if nbytes else f"{'':>6}"
        line = f"{name:<18} {t_mine * 1e3:9.2f} {gbs} {t_np * 1e3:9.2f} {t_np / t_mine:9.2f}"
        if torch_fn:
            t_torch = median_seconds(torch_fn, args.repeats)
            line += f" {t_torch * 1e3:9.2f} {t_torch / t_mine:11.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
