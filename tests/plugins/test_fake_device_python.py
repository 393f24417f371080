"""The Python side of devices, on the scrambling FAKE devices of fake_device.c (see
test_fake_device.py): numpy, float(), repr() and DLPack get the data through the
device's copy functions, never by reading device memory (which would show scrambled
bytes); the compiled fast path and the ctypes path both place ops and key cached
kernels on the thread's device; copies go between devices."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import devices, eager
from opgen.runtime.tensor import _fast_path

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import compile_plugin  # noqa: E402

FAKE0 = "/job:localhost/replica:0/task:0/device:FAKE:0"
FAKE1 = "/job:localhost/replica:0/task:0/device:FAKE:1"
CPU = devices.CPU_DEVICE_NAME


@pytest.fixture(scope="module", autouse=True)
def fake(tmp_path_factory):
    """The FAKE devices, loaded once per process (test_fake_device.py may have)."""
    from opgen import _paths
    if not any(d.name == FAKE0 for d in opgen.list_devices()):
        path = compile_plugin(Path(__file__).parent / "fake_device.c",
                              tmp_path_factory.mktemp("fake_py") / "libfake_device.so",
                              _paths.include_dir())
        opgen.load_op_library(path)
    assert any(d.name == FAKE0 for d in opgen.list_devices())


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def on_fake(values, device="/FAKE:0"):
    t = opgen.copy_to_device(values, device)
    assert t.device == devices.canonical_device_name(device)
    return t


def test_numpy_sees_the_values_not_the_device_memory(rng):
    values = rng.standard_normal((3, 4)).astype(np.float32)
    t = on_fake(values)
    assert not t._on_host
    for array in (t.numpy(), np.asarray(t), np.array(t), np.asarray(t, dtype=np.float64)):
        np.testing.assert_array_equal(array, values.astype(array.dtype))
    assert isinstance(t.__array_interface__["data"], np.ndarray)
    with pytest.raises(ValueError, match="copy"):
        t.__array__(copy=False)
    np.testing.assert_array_equal(t.__array__(copy=True), values)
    scalar = on_fake(np.float32(1.25))
    assert float(scalar) == 1.25 and bool(scalar)
    assert int(on_fake(np.float32(3.0))) == 3
    assert "numpy=[[" in repr(t)
    assert on_fake(np.zeros((0, 2), np.float32)).numpy().shape == (0, 2)


def test_both_paths_place_ops_on_the_scope_device(rng):
    x = rng.standard_normal(8).astype(np.float32)
    with opgen.device("fake:1"):
        fast = [ops.add_v2(x, x) for _ in range(3)]  # resolved once, then cached
        slow = eager._execute_op_python("AddV2", [x, x], {})[0]
    for t in fast + [slow]:
        assert t.device == FAKE1
        np.testing.assert_array_equal(t.numpy(), x + x)


def test_cached_kernels_are_per_device(rng):
    x = rng.standard_normal(5).astype(np.float32)
    y = x.astype(np.float32)
    for _ in range(3):
        with opgen.device("/FAKE:0"):
            a = ops.add_v2(x, y)
        with opgen.device("/FAKE:1"):
            b = ops.add_v2(x, y)
        c = ops.add_v2(x, y)
        assert (a.device, b.device, c.device) == (FAKE0, FAKE1, CPU)
        for t in (a, b, c):
            np.testing.assert_array_equal(t.numpy(), x + y)
    if _fast_path is not None:
        assert _fast_path.cache_info()["AddV2"] >= 3


def test_device_tensors_feed_ops_anywhere(rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    a = on_fake(x)
    b = ops.add_v2(a, a)  # unscoped: on the CPU, a copied over
    assert b.device == CPU
    with opgen.device("/FAKE:1"):
        c = ops.add_v2(a, b)  # FAKE:0 -> FAKE:1 and CPU -> FAKE:1
    assert c.device == FAKE1
    np.testing.assert_array_equal(c.numpy(), 3 * x)
    with opgen.device("/FAKE:0"):
        m = ops.mul(c, 2.0)  # no FAKE kernel: soft placement onto the CPU
    assert m.device == CPU
    np.testing.assert_array_equal(m.numpy(), 6 * x)


def test_copies_between_devices(rng):
    x = rng.standard_normal(6).astype(np.float32)
    a = on_fake(x, "/FAKE:0")
    assert opgen.copy_to_device(a, "FAKE:0") is not None
    b = opgen.copy_to_device(a, "/FAKE:1")
    h = opgen.copy_to_device(b, "/CPU:0")
    assert (b.device, h.device) == (FAKE1, CPU) and h._on_host
    np.testing.assert_array_equal(np.asarray(h), x)
    assert devices.host_copy(h) is h
    with pytest.raises(opgen.errors.InvalidArgumentError):
        opgen.copy_to_device(x, "/FAKE:7")


def test_dlpack_of_a_device_tensor_without_a_dlpack_device_type(rng):
    x = rng.standard_normal(4).astype(np.float32)
    t = on_fake(x)
    with pytest.raises(BufferError):
        t.__dlpack_device__()
    with pytest.raises(BufferError):
        t.__dlpack__()
    host = opgen.from_dlpack(t.__dlpack__(dl_device=(1, 0)))  # a host copy, on request
    assert host.device == CPU
    np.testing.assert_array_equal(host.numpy(), x)
    np.testing.assert_array_equal(np.from_dlpack(t, device="cpu"), x)


def test_handles_keep_device_data_where_it_is(rng):
    x = rng.standard_normal(3).astype(np.float32)
    t = on_fake(x)
    again = opgen.Tensor(_new_handle(t))  # Tensor(handle): no copy to the host
    assert again.device == FAKE0
    np.testing.assert_array_equal(again.numpy(), x)


def _new_handle(t) -> int:
    from opgen.runtime import _lib
    from opgen.runtime.errors import raise_for_status
    status = _lib.thread_status()
    handle = _lib.lib().TFE_NewTensorHandle(t._tensor, status.ptr)
    raise_for_status(status)
    return handle


def test_scopes_of_other_threads_do_not_leak(rng):
    x = rng.standard_normal(2).astype(np.float32)
    seen = []
    with opgen.device("/FAKE:0"):
        thread = threading.Thread(target=lambda: seen.append(ops.add_v2(x, x).device))
        thread.start()
        thread.join(30)
        assert ops.add_v2(x, x).device == FAKE0
    assert seen == [CPU]


def test_dlpack_import_of_device_memory(monkeypatch):
    """A CUDA capsule, with FAKE:0 standing in for GPU:0: the tensor wraps the memory
    without a copy (so the device, which stores bytes XOR 0x5A, reads them scrambled),
    and once dropped the producer's deleter runs, after the device is waited for."""
    import ctypes
    import gc

    from opgen.runtime import dlpack
    monkeypatch.setattr(dlpack, "_gpu_device_name", lambda ordinal: FAKE0)
    values = np.arange(8, dtype=np.uint8)
    source = opgen.convert_to_tensor(values)
    before = len(dlpack._exports)
    capsule = source.__dlpack__(max_version=(1, 0))
    address = dlpack._py.PyCapsule_GetPointer(id(capsule), b"dltensor_versioned")
    dlpack.DLManagedTensorVersioned.from_address(address).dl_tensor.device.device_type = \
        dlpack.kDLCUDA
    t = opgen.from_dlpack(capsule)
    assert t.device == FAKE0 and t._data == source._data
    np.testing.assert_array_equal(t.numpy(), values ^ 0x5A)
    assert len(dlpack._exports) == before + 1
    del t, capsule
    gc.collect()
    assert len(dlpack._exports) == before  # the producer (opgen itself here) was told
    assert ctypes.sizeof(dlpack.DLManagedTensorVersioned) == 8 + 8 + 8 + 8 + 48
