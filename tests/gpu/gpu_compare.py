"""Running an op on the CPU and on the GPU and comparing the two (see conftest.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import opgen

# Relative and absolute tolerance per dtype name: float32 math on the GPU uses other
# instruction sequences (fused multiply-add, its own exp/tanh) than the CPU's.
TOLERANCES = {
    "float16": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float32": (2e-5, 1e-6),
    "float64": (1e-12, 1e-14),
}


# Sums of many products (MatMul, Conv2D as a GEMM) accumulate in another order on the GPU
# (cuBLAS) than on the CPU (OpenBLAS); float16 and bfloat16 round once from float32 on
# both. (rtol, atol for a sum of one product) per dtype name; integers are exact.
GEMM_TOLERANCES = {
    "float32": (1e-4, 1e-5),
    "float64": (1e-10, 1e-12),
    "float16": (1e-2, 2e-3),
    "bfloat16": (2e-2, 1.6e-2),
}


def gemm_tolerance(dtype, products: int) -> dict:
    """assert_gpu_matches_cpu's tolerances for results that each sum `products`
    products: the absolute one grows as the size of such a sum of random terms."""
    name = np.dtype(dtype).name
    if name not in GEMM_TOLERANCES:
        return {}
    rtol, atol = GEMM_TOLERANCES[name]
    return {"rtol": rtol, "atol": atol * math.sqrt(max(products, 1))}


def gpu_skip_reason() -> str | None:
    """None where the runtime has a GPU device, else why not."""
    if any(d.device_type == "GPU" for d in opgen.list_devices()):
        return None
    why = opgen.device_unavailable_reason("GPU")
    if why is None:
        why = "this build of opgen has no CUDA plugin (nvcc was not found when it was built)"
    return f"no GPU device: {why}"


def _flatten(result):
    if isinstance(result, (list, tuple)):  # lists and namedtuples of outputs
        out = []
        for r in result:
            out.extend(_flatten(r))
        return out
    return [result]


def assert_close(got: np.ndarray, want: np.ndarray, dtype_name: str, what: str = "",
                 rtol=None, atol=None) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if dtype_name in TOLERANCES:
        r, a = TOLERANCES[dtype_name]
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=rtol if rtol is not None else r,
                                   atol=atol if atol is not None else a,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def assert_gpu_matches_cpu(fn, *args, rtol=None, atol=None, on_host=(), **kwargs):
    """Runs fn(*args, **kwargs) under opgen.device("/CPU:0") and "/GPU:0"; asserts the
    outputs match and the GPU's live on the GPU (except the output indices in
    `on_host`: host-memory outputs such as Shape's). Returns the GPU outputs as numpy."""
    with opgen.device("/CPU:0"):
        want = _flatten(fn(*args, **kwargs))
    with opgen.device("/GPU:0"):
        got = _flatten(fn(*args, **kwargs))
    assert len(got) == len(want)
    results = []
    for i, (g, w) in enumerate(zip(got, want)):
        what = f"{getattr(fn, '__name__', fn)} output {i}"
        where = "CPU:0" if i in on_host else "GPU:0"
        assert g.device.endswith(where), f"{what} is on {g.device}, not {where}"
        assert w.device.endswith("CPU:0"), f"{what} (reference) is on {w.device}"
        gn, wn = g.numpy(), w.numpy()
        assert_close(gn, wn, g.dtype.name, what, rtol, atol)
        results.append(gn)
    return results


# Dtype lists and helpers the op-family GPU tests share.
try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None

FLOATS = [np.float32, np.float64, np.float16] + ([bfloat16] if bfloat16 is not None else [])
MOVE_TYPES = FLOATS + [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                       np.uint64, np.bool_, np.complex64, np.complex128]
RESIZE_TYPES = FLOATS + [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64]


def name(dtype) -> str:
    return np.dtype(dtype).name


def random(rng, shape, dtype):
    if np.dtype(dtype) == np.bool_:
        return rng.random(shape) > 0.5
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(0, 50, shape).astype(dtype)
    return (rng.standard_normal(shape) * 4).astype(dtype)


def _raises_on_both(exception, fn, *args, **kwargs):
    for device in ("/CPU:0", "/GPU:0"):
        with opgen.device(device), pytest.raises(exception):
            result = fn(*args, **kwargs)
            for r in (result if isinstance(result, (list, tuple)) else [result]):
                r.numpy()
