"""Large element-wise ops and reductions on the GPU through opgen's eager API, against
the device's copy bandwidth and PyTorch, measured in the same run.

    python benchmarks/bench_cuda_elementwise.py [--sizes 10M,30M,100M] [--repeats 15] [--batch 20]

Cases, on float32 tensors already on the GPU (`ops.identity` under
`opgen.device("/GPU:0")`): a + b (AddV2), tanh, the sum of every element and the maximum
of every element. Each repeat times a batch of `batch` calls followed by one
OPGEN_SynchronizeDevice (torch.cuda.synchronize for PyTorch), so the figure is the
device time per call once the queue is full; medians over repeats, contenders rotated
per repeat. Bandwidth counts the bytes an op must move (read + written: 12 bytes per
element for a + b, 8 for tanh, 4 for the reductions), and the ratio is to a
device-to-device copy (torch `y.copy_(x)`, 8 bytes per element) timed the same way.

Last, the eager dispatch of a small op: AddV2 on two 4-element float32 GPU tensors
against torch's a + b on the same device, per call (a batch of calls, then one sync).

Exits 0 with a message where PyTorch, a CUDA device, or opgen's GPU device is missing.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time

import numpy as np


def _skip(why: str) -> None:
    print(f"bench_cuda_elementwise: skipped: {why}")
    sys.exit(0)


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    scale = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:], 1)
    return int(float(text.rstrip("KMG")) * scale)


def _opgen_gpu():
    """(opgen, ops, device name) or a skip."""
    import opgen
    from opgen import ops

    list_devices = getattr(opgen, "list_devices", None)
    if list_devices is None:
        _skip("this opgen has no device API (opgen.list_devices)")
    gpus = [d for d in list_devices() if d.device_type == "GPU"]
    if not gpus:
        reason = getattr(opgen, "device_unavailable_reason", lambda _: None)("GPU")
        _skip(f"opgen has no GPU device ({reason or 'no CUDA plugin in this build'})")
    return opgen, ops


def _synchronizer(device_name: str):
    """A function waiting for the work queued on `device_name`, through the C ABI."""
    from opgen.runtime import _lib

    lib = _lib.lib()
    fn = lib.OPGEN_SynchronizeDevice
    fn.restype, fn.argtypes = None, [ctypes.c_char_p, ctypes.c_void_p]
    status = _lib.Status()
    name = device_name.encode()

    def sync() -> None:
        fn(name, status.ptr)
        if status.code != 0:
            raise RuntimeError(f"OPGEN_SynchronizeDevice({device_name}): {status.message}")

    return sync


def _per_call(fn, sync, batch: int) -> float:
    start = time.perf_counter()
    for _ in range(batch):
        fn()
    sync()
    return (time.perf_counter() - start) / batch


def _measure(contenders, repeats: int, batch: int) -> dict:
    """contenders: [(label, fn, sync)]; returns label -> median seconds per call."""
    for _, fn, sync in contenders:  # warm up: kernels loaded, allocator caches filled
        _per_call(fn, sync, 3)
    samples = {label: [] for label, _, _ in contenders}
    for r in range(repeats):
        k = r % len(contenders)
        for label, fn, sync in contenders[k:] + contenders[:k]:
            samples[label].append(_per_call(fn, sync, batch))
    return {label: statistics.median(s) for label, s in samples.items()}


def _large(opgen, ops, torch, n: int, repeats: int, batch: int) -> None:
    rng = np.random.default_rng(0)
    host_a = rng.standard_normal(n, dtype=np.float32)
    host_b = rng.standard_normal(n, dtype=np.float32)
    with opgen.device("/GPU:0"):
        a, b = ops.identity(host_a), ops.identity(host_b)
    sync = _synchronizer(a.device)
    axis = np.array([0], np.int32)
    cuda = torch.device("cuda:0")
    ta, tb = torch.from_numpy(host_a).to(cuda), torch.from_numpy(host_b).to(cuda)
    copy_dst = torch.empty_like(ta)
    tsync = torch.cuda.synchronize

    # label: (fn, sync, bytes moved per call)
    cases = {
        "torch copy_ (d2d)": (lambda: copy_dst.copy_(ta), tsync, 8 * n),
        "opgen a + b": (lambda: ops.add_v2(a, b), sync, 12 * n),
        "torch a + b": (lambda: ta + tb, tsync, 12 * n),
        "opgen tanh": (lambda: ops.tanh(a), sync, 8 * n),
        "torch tanh": (lambda: torch.tanh(ta), tsync, 8 * n),
        "opgen sum (all)": (lambda: ops.sum(a, axis), sync, 4 * n),
        "torch sum (all)": (lambda: ta.sum(), tsync, 4 * n),
        "opgen max (all)": (lambda: ops.max(a, axis), sync, 4 * n),
        "torch amax (all)": (lambda: ta.amax(), tsync, 4 * n),
    }
    # The results agree before anything is timed.
    with opgen.device("/GPU:0"):
        got_sum = float(np.asarray(ops.sum(a, axis)))
        got_max = float(np.asarray(ops.max(a, axis)))
    want_sum, want_max = float(ta.double().sum()), float(ta.max())
    assert abs(got_sum - want_sum) <= 1e-4 * float(ta.abs().double().sum()), (got_sum, want_sum)
    assert got_max == want_max, (got_max, want_max)

    with opgen.device("/GPU:0"):  # entered once: the calls themselves carry no scope
        medians = _measure([(label, fn, s) for label, (fn, s, _) in cases.items()], repeats, batch)
    copy_bw = cases["torch copy_ (d2d)"][2] / medians["torch copy_ (d2d)"]
    print(f"n = {n:,} float32 ({n * 4 / 1e6:.0f} MB per tensor); copy bandwidth {copy_bw / 1e9:.0f} GB/s")
    print(f"  {'case':22s} {'time':>10s} {'GB/s':>8s} {'x copy':>7s}")
    for label, (_, _, nbytes) in cases.items():
        t = medians[label]
        bw = nbytes / t
        print(f"  {label:22s} {t * 1e6:8.1f}us {bw / 1e9:8.0f} {bw / copy_bw:7.2f}")
    add_ratio = medians["torch a + b"] / medians["opgen a + b"]
    print(f"  opgen a + b at {add_ratio:.2f}x torch's speed")


def _dispatch(opgen, ops, torch, repeats: int, batch: int) -> None:
    with opgen.device("/GPU:0"):
        a = ops.identity(np.arange(4, dtype=np.float32))
        b = ops.identity(np.arange(4, dtype=np.float32) + 1)
    sync = _synchronizer(a.device)
    ta = torch.arange(4, dtype=torch.float32, device="cuda:0")
    tb = ta + 1

    contenders = [("opgen ops.add_v2 (GPU tensors)", lambda: ops.add_v2(a, b), sync),
                  ("torch a + b (cuda tensors)", lambda: ta + tb, torch.cuda.synchronize)]
    with opgen.device("/GPU:0"):
        medians = _measure(contenders, repeats, batch)
    reference = medians["torch a + b (cuda tensors)"]
    print("eager dispatch, 4-element float32 add on the GPU (per call, sync amortised):")
    for label, t in medians.items():
        print(f"  {label:32s} {t * 1e6:8.2f}us {t / reference:6.2f}x torch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10M,30M,100M")
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--batch", type=int, default=20)
    parser.add_argument("--dispatch-batch", type=int, default=2000)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        _skip("PyTorch is not installed (it measures the copy bandwidth and the reference)")
    if not torch.cuda.is_available():
        _skip("PyTorch sees no CUDA device")
    opgen, ops = _opgen_gpu()
    print(f"device: {torch.cuda.get_device_name(0)}")
    for size in args.sizes.split(","):
        _large(opgen, ops, torch, _parse_size(size), args.repeats, args.batch)
    _dispatch(opgen, ops, torch, args.repeats, args.dispatch_batch)


if __name__ == "__main__":
    main()
