"""Outputs too large for the caches: element-wise kernels stream them out through a
stack tile (runtime/kernels/cpu/streaming_store.h), and freed large buffers are reused
by later outputs of the same size (runtime/src/host_block_cache.h). Results must equal
numpy whatever the element size, at odd lengths (a partial last tile, chunk edges that
split tiles) and in buffers that held other data a moment before."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from kernel_dtypes import assert_close, run, values
from opgen import runtime
from opgen.runtime import _lib

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(5)

STREAMED_BYTES = 8 << 20  # kStreamingOutputBytes


def elements(dtype, extra=13) -> int:
    """Just past the streaming threshold for `dtype`, at an odd length."""
    return STREAMED_BYTES // np.dtype(dtype).itemsize + extra


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int32, np.float16])
def test_binary_same_shape_and_scalar_operands(dtype):
    n = elements(dtype)
    x = values(rng, (n,), dtype)
    y = values(rng, (n,), dtype)
    s = values(rng, (), dtype)
    assert_close(run("AddV2", [x, y]), (x + y).astype(dtype))
    assert_close(run("Mul", [x, s]), (x * s).astype(dtype))
    assert_close(run("Sub", [s, y]), (s - y).astype(dtype))


def test_comparison_streams_a_bool_output():
    n = elements(np.bool_, extra=7)
    x = values(rng, (n,), np.float32)
    y = values(rng, (n,), np.float32)
    np.testing.assert_array_equal(run("Less", [x, y]), x < y)


@pytest.mark.parametrize("op, reference", [
    ("Tanh", np.tanh), ("Exp", np.exp), ("Neg", np.negative), ("Sqrt", np.sqrt)])
def test_unary_float32_and_float64(op, reference):
    for dtype in (np.float32, np.float64):
        x = values(rng, (elements(dtype),), dtype, low=0.0 if op == "Sqrt" else -3.0)
        got = run(op, [x])
        want = reference(x)
        np.testing.assert_allclose(got, want, rtol=4e-6 if dtype == np.float32 else 1e-12,
                                   atol=1e-30)


def test_reused_buffers_hold_fresh_results():
    """Each output lands in the buffer the previous, equal-sized output freed."""
    n = elements(np.float32)
    lib = _lib.device_lib()
    if lib.OPGEN_CachedHostMemoryBytes is None:
        pytest.skip("this runtime predates the host buffer cache")
    x = values(rng, (n,), np.float32)
    tx = runtime.convert_to_tensor(x)
    runtime.release_cached_host_memory()
    first = runtime.execute_op("Neg", [tx], {})[0]
    del first  # its buffer is kept for reuse
    kept = runtime.cached_host_memory_bytes()
    assert kept >= x.nbytes
    for k in range(3):
        z = runtime.execute_op("AddV2", [tx, np.float32(k)], {})[0]  # takes the kept buffer
        assert runtime.cached_host_memory_bytes() <= kept - x.nbytes
        np.testing.assert_array_equal(np.asarray(z), x + np.float32(k))
        del z
    assert runtime.cached_host_memory_bytes() == kept  # reused, not grown
    released = runtime.release_cached_host_memory()
    assert released >= x.nbytes
    assert runtime.cached_host_memory_bytes() == 0


def test_a_freed_block_serves_a_smaller_output_up_to_half_its_size():
    """A layer's freed output serves the next layer's smaller one (best fit within 2x),
    and goes back to the cache at its own size."""
    n = elements(np.float32)
    if _lib.device_lib().OPGEN_CachedHostMemoryBytes is None:
        pytest.skip("this runtime predates the host buffer cache")
    runtime.release_cached_host_memory()
    big = runtime.convert_to_tensor(values(rng, (n,), np.float32))
    del big  # n floats cached
    kept = runtime.cached_host_memory_bytes()
    assert kept >= 4 * n
    smaller = values(rng, (n * 3 // 4,), np.float32)
    z = runtime.execute_op("Neg", [smaller], {})[0]  # takes the n-float block
    assert runtime.cached_host_memory_bytes() <= kept - 4 * n
    np.testing.assert_array_equal(np.asarray(z), -smaller)
    del z
    assert runtime.cached_host_memory_bytes() == kept  # back at its own size
    tiny = values(rng, (n // 3,), np.float32)
    t = runtime.execute_op("Neg", [tiny], {})[0]  # under half: a block of its own
    assert runtime.cached_host_memory_bytes() == kept
    np.testing.assert_array_equal(np.asarray(t), -tiny)
    del t
    runtime.release_cached_host_memory()


_BUDGET_SCRIPT = """
import numpy as np
from opgen import runtime
x = np.ones(3 << 20, np.float32)  # 12 MiB outputs
outs = [runtime.execute_op("Neg", [x], {})[0] for _ in range(4)]
del outs
print(runtime.cached_host_memory_bytes())
"""


@pytest.mark.parametrize("budget_mb, most", [("0", 0), ("30", 30 << 20)])
def test_cache_budget_from_the_environment(budget_mb, most, tmp_path):
    env = dict(os.environ, OPGEN_HOST_CACHE_MB=budget_mb)
    # Run outside the checkout, whose opgen/ has no built runtime beside it.
    out = subprocess.run([sys.executable, "-c", _BUDGET_SCRIPT], env=env, check=True,
                         capture_output=True, text=True, cwd=tmp_path).stdout
    held = int(out.split()[-1])
    assert held <= most
    if most:
        assert held >= 12 << 20  # two 12 MiB buffers fit a 30 MiB budget
