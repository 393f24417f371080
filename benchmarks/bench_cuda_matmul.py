"""GPU MatMul through opgen eager against torch.matmul (cuBLAS called directly), on the
same device, float32 and bfloat16, 4096^3 and 8192^3.

Inputs live on the GPU before timing (no host-to-device copies counted). Each sample
queues `iterations` MatMuls back to back and waits for the device, so launch and
dispatch overheads count as they would in a model; the figure is the median sample
divided by `iterations`. opgen queues on its own stream, so it is waited for with
OPGEN_SynchronizeDevice (torch.cuda.synchronize() would not see it). Both sides use
the same cuBLAS settings: float32 without TF32, bfloat16 accumulated and reduced in
float32. The ratio is torch time / opgen time (the goal is >= 0.90).

    python benchmarks/bench_cuda_matmul.py [--sizes 4096 8192] [--repeats 7]

Exits 0 with a message where torch, CUDA or opgen's GPU device is missing.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time

import numpy as np


def skip(reason: str) -> None:
    print(f"skipped: {reason}")
    sys.exit(0)


def opgen_gpu_or_skip():
    import opgen

    list_devices = getattr(opgen, "list_devices", None)
    if list_devices is None or not any(d.device_type == "GPU" for d in list_devices()):
        why = getattr(opgen, "device_unavailable_reason", lambda _: None)("GPU")
        skip(f"opgen has no GPU device ({why or 'no CUDA plugin in this build'})")
    return opgen


def opgen_synchronizer(opgen):
    """A function that waits for the work opgen queued on GPU:0."""
    sync = getattr(opgen, "synchronize", None)
    if sync is not None:
        return lambda: sync("/GPU:0")
    from opgen.runtime import _lib

    lib = _lib.lib()
    fn = lib.OPGEN_SynchronizeDevice
    fn.restype, fn.argtypes = None, [ctypes.c_char_p, ctypes.c_void_p]
    new_status = lib.TF_NewStatus
    new_status.restype, new_status.argtypes = ctypes.c_void_p, []
    get_code = lib.TF_GetCode
    get_code.restype, get_code.argtypes = ctypes.c_int, [ctypes.c_void_p]
    message = lib.TF_Message
    message.restype, message.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
    status = new_status()  # one for the process: kept, never freed

    def wait():
        fn(b"/GPU:0", status)
        if get_code(status) != 0:
            raise RuntimeError(message(status).decode())

    return wait


def median_per_call(run, wait, iterations: int, repeats: int) -> float:
    """Median over `repeats` samples of the seconds per call of `run`."""
    run()  # warm up: cuBLAS handles, kernel selection, memory pools
    wait()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(iterations):
            run()
        wait()
        samples.append((time.perf_counter() - start) / iterations)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    try:
        import torch
    except ImportError:
        skip("torch is not installed (it is the cuBLAS reference)")
    if not torch.cuda.is_available():
        skip("torch sees no CUDA device")
    opgen = opgen_gpu_or_skip()
    from opgen import ops

    try:
        from ml_dtypes import bfloat16
    except ImportError:
        bfloat16 = None

    # The cuBLAS settings opgen uses (gemm.cu, cublas_api.cc).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    wait_opgen = opgen_synchronizer(opgen)
    wait_torch = torch.cuda.synchronize

    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}")
    print(f"{'case':<22}{'opgen ms':>10}{'torch ms':>10}{'opgen TFLOP/s':>15}{'ratio':>8}")
    rng = np.random.default_rng(0)
    for n in args.sizes:
        a32 = rng.standard_normal((n, n), dtype=np.float32)
        b32 = rng.standard_normal((n, n), dtype=np.float32)
        cases = [("float32", np.float32, torch.float32)]
        if bfloat16 is not None:
            cases.append(("bfloat16", bfloat16, torch.bfloat16))
        for label, np_dtype, torch_dtype in cases:
            with opgen.device("/GPU:0"):
                a = ops.identity(a32.astype(np_dtype))
                b = ops.identity(b32.astype(np_dtype))
            ta = torch.from_numpy(a32).to("cuda:0", torch_dtype)
            tb = torch.from_numpy(b32).to("cuda:0", torch_dtype)
            wait_opgen()
            flops = 2.0 * n * n * n
            # About half a second of work per sample.
            iterations = max(3, int(0.5 / (flops / (400e12 if label == "bfloat16" else 40e12))))

            def run_opgen():
                with opgen.device("/GPU:0"):
                    ops.mat_mul(a, b)

            t_opgen = median_per_call(run_opgen, wait_opgen, iterations, args.repeats)
            t_torch = median_per_call(lambda: torch.matmul(ta, tb), wait_torch, iterations,
                                      args.repeats)
            print(f"{f'MatMul {n}^3 {label}':<22}{t_opgen * 1e3:>10.3f}{t_torch * 1e3:>10.3f}"
                  f"{flops / t_opgen / 1e12:>15.1f}{t_torch / t_opgen:>8.2f}")
            del a, b, ta, tb


if __name__ == "__main__":
    main()
