"""CPU Einsum on the equations of Keras' MultiHeadAttention and EinsumDense against the
same product through BatchMatMulV2 (inputs already laid out for it, so it does no
transposes) and numpy.einsum (optimize=True, which also calls BLAS), float32, in the same
run. The ratio bmm/einsum shows what Einsum's planning costs over a bare batched GEMM
(1.0 is the goal where the equation needs no transpose); numpy/einsum is the speed-up
over numpy.

    python benchmarks/bench_einsum.py [--repeats 7] [--tokens 128]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def best_of(fn, repeats: int, inner: int) -> float:
    fn()  # warm up (plans the kernel, fills caches)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) / inner)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()

    from opgen import ops

    rng = np.random.default_rng(0)
    b, t, h, d, e = 2, args.tokens, 12, 64, 768
    f = np.float32
    x = rng.standard_normal((b, t, e)).astype(f)
    w = rng.standard_normal((e, h, d)).astype(f)
    q = rng.standard_normal((b, t, h, d)).astype(f)
    k = rng.standard_normal((b, t, h, d)).astype(f)
    probs = rng.standard_normal((b, h, t, t)).astype(f)
    wo = rng.standard_normal((h, d, e)).astype(f)
    # (name, equation, operands, the same product for BatchMatMulV2 on pre-laid-out operands)
    cases = [
        ("projection abc,cde->abde", "abc,cde->abde", [x, w],
         lambda: ops.batch_mat_mul_v2(x.reshape(b * t, e), w.reshape(e, h * d))),
        ("scores aecd,abcd->acbe", "aecd,abcd->acbe", [k, q],
         (lambda qt=np.ascontiguousarray(q.transpose(0, 2, 1, 3)),
          kt=np.ascontiguousarray(k.transpose(0, 2, 1, 3)):
          ops.batch_mat_mul_v2(qt, kt, adj_y=True))),
        ("context acbe,aecd->abcd", "acbe,aecd->abcd", [probs, q],
         (lambda vt=np.ascontiguousarray(q.transpose(0, 2, 1, 3)):
          ops.batch_mat_mul_v2(probs, vt))),
        ("output abcd,cde->abe", "abcd,cde->abe", [q, wo],
         lambda: ops.batch_mat_mul_v2(q.reshape(b * t, h * d), wo.reshape(h * d, e))),
        ("dense abc,cd->abd", "abc,cd->abd", [x, w.reshape(e, h * d)],
         lambda: ops.batch_mat_mul_v2(x.reshape(b * t, e), w.reshape(e, h * d))),
    ]
    print(f"{'equation':28s} {'einsum ms':>10s} {'bmm ms':>8s} {'numpy ms':>9s} "
          f"{'bmm/einsum':>10s} {'numpy/einsum':>12s}")
    for label, equation, operands, bmm in cases:
        inner = 5
        t_einsum = best_of(lambda: np.asarray(ops.einsum(operands, equation=equation)), args.repeats, inner)
        t_bmm = best_of(lambda: np.asarray(bmm()), args.repeats, inner)
        t_np = best_of(lambda: np.einsum(equation, *operands, optimize=True), args.repeats, inner)
        print(f"{label:28s} {t_einsum * 1e3:10.3f} {t_bmm * 1e3:8.3f} {t_np * 1e3:9.3f} "
              f"{t_bmm / t_einsum:10.2f} {t_np / t_einsum:12.2f}")


if __name__ == "__main__":
    main()
