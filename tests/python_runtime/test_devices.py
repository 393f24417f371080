"""Devices from Python, as far as a machine without a GPU shows them: list_devices and
device_unavailable_reason, eager device scopes (soft placement of a missing GPU onto
the CPU, the fast path keying kernels on the device), Tensor.device, copies, and DLPack
with numpy and PyTorch (CPU) both ways, for every dtype DLPack has."""

from __future__ import annotations

import dataclasses
import gc
import threading

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import devices, dlpack, dtypes, eager, errors
from opgen.runtime.tensor import _fast_path

pytestmark = pytest.mark.usefixtures("runtime_lib")

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
rng = np.random.default_rng(7)

# Every opgen dtype DLPack has a code for.
DLPACK_DTYPES = ["float16", "float32", "float64", "bfloat16", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
                 "complex128"]


def has_gpu() -> bool:
    return any(d.device_type == "GPU" for d in opgen.list_devices())


def random_array(dtype_name: str, shape) -> np.ndarray:
    np_dtype = dtypes.as_dtype(dtype_name).numpy_dtype
    if dtype_name == "bool":
        values = rng.integers(0, 2, size=shape).astype(bool)
    elif np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        values = rng.integers(max(info.min, -100), min(info.max, 100), size=shape)
    elif np.issubdtype(np_dtype, np.complexfloating):
        values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        values = rng.standard_normal(shape)
    return np.asarray(values).astype(np_dtype)  # (a 0-d array, not a numpy scalar)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def data_pointer(t) -> int:
    return np.asarray(t).__array_interface__["data"][0]


# ---- list_devices, device_unavailable_reason ---------------------------------------------------

def test_list_devices_has_the_cpu_first():
    found = opgen.list_devices()
    assert found, "no devices"
    cpu = found[0]
    assert isinstance(cpu, opgen.DeviceInfo)
    assert (cpu.name, cpu.device_type, cpu.ordinal) == (CPU, "CPU", 0)
    assert isinstance(cpu.description, str) and isinstance(cpu.memory_bytes, int)
    assert len({d.name for d in found}) == len(found)
    for d in found:
        assert d.name.startswith("/job:localhost/replica:0/task:0/device:")
        assert d.name.endswith(f"device:{d.device_type}:{d.ordinal}")
        assert d.device_type == d.device_type.upper()  # "CPU", "GPU" (plugins may add others)
        assert d.memory_bytes >= 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        cpu.name = "x"


def test_device_unavailable_reason_agrees_with_list_devices():
    reason = opgen.device_unavailable_reason("GPU")
    assert reason is None or (isinstance(reason, str) and reason)
    if has_gpu():
        assert reason is None
    assert opgen.device_unavailable_reason("CPU") is None
    assert opgen.device_unavailable_reason("gpu") == reason  # the type's case does not matter


# ---- device names ----------------------------------------------------------------------------

@pytest.mark.parametrize("spelling", [
    "/GPU:0", "/device:GPU:0", "GPU:0", "gpu:0", "/gpu:0", "gpu", "GPU",
    "/job:localhost/replica:0/task:0/device:GPU:0", "/job:localhost/device:GPU:0"])
def test_tensorflows_spellings_of_a_device(spelling):
    assert devices.canonical_device_name(spelling) == \
        "/job:localhost/replica:0/task:0/device:GPU:0"


def test_spellings_of_the_cpu_and_of_no_device():
    for spelling in ("/CPU:0", "cpu:0", "/device:CPU:0", CPU, "cpu"):
        assert devices.canonical_device_name(spelling) == CPU
    assert devices.canonical_device_name("/GPU:3").endswith("device:GPU:3")
    assert devices.canonical_device_name("") is None
    assert devices.canonical_device_name("/job:localhost") is None


@pytest.mark.parametrize("bad", ["GPU:0:1", "/device:GPU:x", "/GPU:-1", ":0", "/device:", "G-PU:0"])
def test_malformed_device_names_raise(bad):
    with pytest.raises(ValueError):
        devices.canonical_device_name(bad)
    with pytest.raises(ValueError):
        with opgen.device(bad):
            pass


# ---- eager device scopes -----------------------------------------------------------------------

def test_ops_in_an_eager_cpu_scope_run_on_the_cpu():
    x, y = random_array("float32", (3, 4)), random_array("float32", (4,))
    with opgen.device("/CPU:0"):
        assert devices.eager_device() == CPU
        t = ops.add_v2(x, y)
        m = ops.mat_mul(x, x.T)
    assert devices.eager_device() is None
    for got, want in ((t, x + y), (m, x @ x.T)):
        assert got.device == CPU
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_tensors_made_anywhere_report_the_cpu():
    assert opgen.convert_to_tensor([1.0, 2.0]).device == CPU
    assert ops.add_v2(np.ones(2), np.ones(2)).device == CPU
    assert eager._execute_op_python("AddV2", [np.ones(2), np.ones(2)], {})[0].device == CPU


@pytest.mark.parametrize("spelling", ["/GPU:0", "gpu:0", "/device:GPU:1",
                                      "/job:localhost/replica:0/task:0/device:GPU:0"])
def test_a_missing_gpu_means_the_cpu(spelling):
    if has_gpu() and spelling != "/device:GPU:1":
        pytest.skip("this machine has a GPU (tests/gpu covers it)")
    if any(d.name.endswith("GPU:1") for d in opgen.list_devices()):
        pytest.skip("this machine has a second GPU")
    x = random_array("float64", (5,))
    with opgen.device(spelling):
        assert devices.eager_device() == devices.canonical_device_name(spelling)
        t = ops.neg(x)  # soft placement: the runtime runs it on the CPU
        p = eager._execute_op_python("Neg", [x], {})[0]  # the ctypes path too
    assert t.device == CPU and p.device == CPU
    np.testing.assert_array_equal(t.numpy(), -x)
    np.testing.assert_array_equal(p.numpy(), -x)


def test_device_info_names_a_device():
    cpu = opgen.list_devices()[0]
    with opgen.device(cpu):
        assert devices.eager_device() == CPU
        assert ops.neg(np.ones(2)).device == CPU
    assert opgen.copy_to_device([1.0], cpu).device == CPU
    g = opgen.Graph()
    with g.as_default(), opgen.device(cpu):
        out = ops.neg(np.float32(1))
    assert out.op.device.endswith("CPU:0")


def test_scopes_nest_restore_and_none_clears():
    with opgen.device("/CPU:0"):
        with opgen.device(None):
            assert devices.eager_device() is None
        assert devices.eager_device() == CPU
        with pytest.raises(ZeroDivisionError):
            with opgen.device("cpu"):
                1 / 0
        assert devices.eager_device() == CPU
    assert devices.eager_device() is None


def test_the_eager_device_belongs_to_one_thread():
    seen = {}
    inside, leave = threading.Event(), threading.Event()

    def other():
        seen["before"] = devices.eager_device()
        inside.set()
        leave.wait(10)
        seen["after"] = devices.eager_device()

    with opgen.device("/CPU:0"):
        thread = threading.Thread(target=other)
        thread.start()
        inside.wait(10)
        leave.set()
        thread.join(10)
    assert seen == {"before": None, "after": None}


@pytest.mark.skipif(_fast_path is None, reason="the compiled fast path is not built")
def test_the_fast_path_keys_kernels_on_the_device():
    x = np.arange(6, dtype=np.int16)  # a signature no other test makes
    ops.abs(x)
    ops.abs(x)
    before = _fast_path.cache_info()["Abs"]
    with opgen.device("/CPU:0"):
        assert _fast_path.eager_device() != 0
        np.testing.assert_array_equal(ops.abs(x).numpy(), np.abs(x))
        np.testing.assert_array_equal(ops.abs(x).numpy(), np.abs(x))
    assert _fast_path.cache_info()["Abs"] == before + 1
    np.testing.assert_array_equal(ops.abs(x).numpy(), np.abs(x))
    assert _fast_path.cache_info()["Abs"] == before + 1
    assert _fast_path.eager_device() == 0


def test_graph_mode_scopes_still_set_node_devices():
    g = opgen.Graph()
    with g.as_default():
        with opgen.device("/CPU:0"):
            out = ops.add_v2(np.float32(1), np.float32(2))
        assert devices.eager_device() is None  # graph scopes leave the eager device alone
    assert "CPU:0" in out.op.device
    with opgen.Session(graph=g) as session:
        assert session.run(out) == 3


# ---- copies, numpy ----------------------------------------------------------------------------

def test_copy_to_the_cpu_of_a_cpu_tensor_is_the_tensor():
    t = opgen.convert_to_tensor(np.arange(4.0))
    assert opgen.copy_to_device(t, "/CPU:0") is t
    c = opgen.copy_to_device([1, 2, 3], "cpu:0")
    assert c.device == CPU and c.numpy().tolist() == [1, 2, 3]
    assert devices.host_copy(t) is t


def test_numpy_views_of_cpu_tensors_share_memory():
    t = opgen.convert_to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert data_pointer(t) == t._data
    assert float(ops.sum(t, [0, 1])) == 15.0
    assert int(ops.cast(ops.sum(t, [0, 1]), opgen.int32)) == 15
    assert bool(ops.greater(ops.sum(t, [0, 1]), 1.0))
    assert "shape=(2, 3)" in repr(t)


def test_bfloat16_tensors_come_to_numpy_as_bfloat16():
    values = random_array("bfloat16", (2, 3))
    t = opgen.convert_to_tensor(values)
    for array in (t.numpy(), np.asarray(t), np.array(t)):
        assert array.dtype == values.dtype
        assert same_bits(array, values)
    assert data_pointer(t) == t._data


# ---- DLPack -----------------------------------------------------------------------------------

def test_dlpack_device_and_capsule_names():
    t = opgen.convert_to_tensor(np.ones(3, np.float32))
    assert t.__dlpack_device__() == (1, 0)
    assert "name \"dltensor\"" in repr(t.__dlpack__()) or "dltensor" in repr(t.__dlpack__())
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" not in repr(t.__dlpack__(max_version=(0, 8)))


@pytest.mark.parametrize("dtype_name", [d for d in DLPACK_DTYPES if d != "bfloat16"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (7,), (2, 3, 4)])
def test_numpy_from_dlpack_shares_an_opgen_tensor(dtype_name, shape):
    values = random_array(dtype_name, shape)
    t = opgen.convert_to_tensor(values)
    array = np.from_dlpack(t)
    assert array.dtype == values.dtype and array.shape == shape
    assert same_bits(array, values)
    if values.size:
        assert array.__array_interface__["data"][0] == t._data
    del t
    gc.collect()
    assert same_bits(array, values)  # the capsule keeps the tensor's buffer alive


@pytest.mark.parametrize("dtype_name", DLPACK_DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3), (5,), (3, 4)])
def test_opgen_from_dlpack_shares_numpy_memory(dtype_name, shape):
    values = random_array(dtype_name, shape)
    owner = values.copy()
    t = opgen.from_dlpack(owner) if dtype_name != "bfloat16" else \
        opgen.from_dlpack(opgen.convert_to_tensor(owner).__dlpack__(max_version=(1, 0)))
    assert t.dtype == dtypes.as_dtype(dtype_name) and t.shape == shape and t.device == CPU
    assert same_bits(t.numpy(), values)
    if dtype_name != "bfloat16" and values.size:
        assert t._data == owner.__array_interface__["data"][0]  # no copy
        del owner
        gc.collect()
        assert same_bits(t.numpy(), values)  # the tensor keeps numpy's buffer alive


def test_ops_run_on_imported_tensors():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = opgen.from_dlpack(a)
    np.testing.assert_array_equal(ops.add_v2(t, t).numpy(), a + a)
    np.testing.assert_array_equal(ops.mat_mul(t, t, transpose_b=True).numpy(), a @ a.T)
    with opgen.device("/CPU:0"):
        np.testing.assert_array_equal(ops.neg(t).numpy(), -a)
    np.testing.assert_array_equal(eager._execute_op_python("Neg", [t], {})[0].numpy(), -a)


def test_strided_inputs_are_copied_into_a_compact_tensor():
    base = np.arange(48, dtype=np.int32).reshape(6, 8)
    for view in (base[:, ::2], base[::-1], base.T, base[1:4, 2:5]):
        t = opgen.from_dlpack(view)
        np.testing.assert_array_equal(t.numpy(), view)
        assert t.numpy().flags.c_contiguous


def test_a_capsule_is_consumed_once_and_unconsumed_ones_are_freed():
    t = opgen.convert_to_tensor(np.arange(5, dtype=np.int64))
    before = len(dlpack._exports)
    capsule = t.__dlpack__()
    assert len(dlpack._exports) == before + 1
    first = opgen.from_dlpack(capsule)
    np.testing.assert_array_equal(first.numpy(), np.arange(5))
    with pytest.raises(ValueError, match="consumed"):
        opgen.from_dlpack(capsule)
    del first
    gc.collect()
    assert len(dlpack._exports) == before  # the deleter ran
    for _ in range(3):
        t.__dlpack__(max_version=(1, 0))  # dropped unconsumed
    gc.collect()
    assert len(dlpack._exports) == before


def test_dlpack_keywords():
    t = opgen.convert_to_tensor(np.arange(4, dtype=np.float32))
    same = np.from_dlpack(opgen.from_dlpack(t.__dlpack__(dl_device=(1, 0), copy=False)))
    assert same.__array_interface__["data"][0] == t._data
    copied = opgen.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    assert copied._data != t._data
    np.testing.assert_array_equal(copied.numpy(), t.numpy())
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0), copy=False)
    assert opgen.from_dlpack(t) is t


def test_dlpack_rejects_what_it_cannot_carry():
    assert opgen.string not in dlpack._TO_DL  # strings and quantized types have no code
    with pytest.raises(TypeError):
        opgen.from_dlpack([1, 2, 3])


def test_dlpack_with_torch_cpu_tensors():
    torch = pytest.importorskip("torch")
    t = opgen.convert_to_tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    shared = torch.from_dlpack(t)
    assert shared.data_ptr() == t._data
    assert torch.equal(shared, torch.arange(12, dtype=torch.float32).reshape(3, 4))
    source = torch.randn(4, 5, dtype=torch.float64)
    back = opgen.from_dlpack(source)
    assert back._data == source.data_ptr() and back.dtype == opgen.float64
    np.testing.assert_array_equal(ops.mul(back, 2.0).numpy(), source.numpy() * 2)
    for torch_dtype, name in [(torch.bfloat16, "bfloat16"), (torch.bool, "bool"),
                              (torch.int8, "int8"), (torch.float16, "float16"),
                              (torch.complex64, "complex64"), (torch.uint8, "uint8")]:
        x = torch.ones(3, dtype=torch_dtype)
        y = opgen.from_dlpack(x)
        assert y.dtype.name == name and y._data == x.data_ptr()
        z = torch.from_dlpack(y)
        assert z.dtype == torch_dtype and torch.equal(z, x)
    strided = torch.arange(20).reshape(4, 5)[:, 1::2]
    np.testing.assert_array_equal(opgen.from_dlpack(strided).numpy(), strided.numpy())


def _capsule_labelled_cuda(t, strides=None):
    """t's DLPack capsule, its device rewritten to CUDA GPU:0 (and its strides to
    `strides`): what a CUDA producer hands over, on a machine without one."""
    import ctypes
    capsule = t.__dlpack__()
    address = dlpack._py.PyCapsule_GetPointer(id(capsule), b"dltensor")
    managed = dlpack.DLManagedTensor.from_address(address)
    managed.dl_tensor.device.device_type = dlpack.kDLCUDA
    if strides is not None:
        kept = (ctypes.c_int64 * len(strides))(*strides)
        managed.dl_tensor.strides = ctypes.cast(kept, ctypes.POINTER(ctypes.c_int64))
        return capsule, kept
    return capsule, None


def test_a_cuda_capsule_without_a_gpu_raises_and_releases_the_memory():
    if has_gpu():
        pytest.skip("this machine has a GPU (tests/gpu covers CUDA capsules)")
    t = opgen.convert_to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    before = len(dlpack._exports)
    capsule, _ = _capsule_labelled_cuda(t)
    with pytest.raises((BufferError, errors.OpError)):
        opgen.from_dlpack(capsule)
    assert len(dlpack._exports) == before  # the consumer called the deleter
    with pytest.raises(ValueError, match="consumed"):
        opgen.from_dlpack(capsule)


def test_strided_cuda_capsules_are_refused_unconsumed():
    t = opgen.convert_to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    before = len(dlpack._exports)
    capsule, kept = _capsule_labelled_cuda(t, strides=[1, 2])
    with pytest.raises(BufferError, match="contiguous"):
        opgen.from_dlpack(capsule)
    assert len(dlpack._exports) == before + 1  # still the capsule's
    del capsule
    gc.collect()
    assert len(dlpack._exports) == before


def test_the_host_copy_path_of_gpu_tensors(monkeypatch):
    """What numpy conversion does for a GPU tensor, run on a CPU tensor posing as one
    (its "copy to the host" is then the runtime's copy of a CPU tensor to the CPU)."""
    from opgen.runtime import _lib
    if _lib.device_lib().OPGEN_TensorCopyToDevice is None:
        pytest.skip("this runtime has no OPGEN_TensorCopyToDevice")
    values = random_array("float32", (3, 4))
    t = opgen.convert_to_tensor(values)
    b = opgen.convert_to_tensor(random_array("bfloat16", (5,)))
    posing = {id(t), id(b)}
    on_host = opgen.Tensor._on_host
    monkeypatch.setattr(opgen.Tensor, "_on_host",
                        property(lambda self: id(self) not in posing and on_host.__get__(self)))
    assert not t._on_host
    interface = t.__array_interface__
    assert isinstance(interface["data"], np.ndarray)
    for array in (t.numpy(), np.asarray(t), np.array(t)):
        assert same_bits(array, values)
    assert float(opgen.convert_to_tensor(np.float32(2.0))) == 2.0
    assert b.numpy().dtype == b.dtype.numpy_dtype
    assert "numpy=[[" in repr(t)
    assert devices.host_copy(t) is not t


# ---- cuBLAS from NVIDIA's wheels -----------------------------------------------------------------

def _record_loads(monkeypatch):
    from opgen.runtime import _lib
    loaded = []

    def fake_cdll(path, mode=0):
        loaded.append((path, mode))
        if path.endswith("libcudart.so.13"):
            raise OSError("broken")  # skipped, as a broken install would be
    monkeypatch.setattr(_lib.ctypes, "CDLL", fake_cdll)
    monkeypatch.delenv("OPGEN_CUBLAS_LIBRARY", raising=False)
    monkeypatch.delenv("OPGEN_DISABLE_DEVICE_PLUGINS", raising=False)
    return _lib, loaded


def test_cublas_is_preloaded_from_the_nvidia_wheels(tmp_path, monkeypatch):
    _lib, loaded = _record_loads(monkeypatch)
    runtime = tmp_path / "lib" / "libopgen_runtime.so"
    runtime.parent.mkdir()
    runtime.touch()
    _lib._preload_cuda_libraries(str(runtime))
    assert loaded == []  # no CUDA plugin next to the runtime: nothing to do

    (runtime.parent / "libopgen_cuda.so").touch()
    wheel = tmp_path / "site" / "nvidia" / "cu13" / "lib"  # nvidia-cublas 13's layout
    wheel.mkdir(parents=True)
    for name in ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13"):
        (wheel / name).touch()
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import importlib
    importlib.invalidate_caches()
    monkeypatch.delitem(__import__("sys").modules, "nvidia", raising=False)
    _lib._preload_cuda_libraries(str(runtime))
    ours = [p for p, _ in loaded if p.startswith(str(tmp_path))]  # (real wheels may add theirs)
    assert ours == [str(wheel / n) for n in
                    ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13")]
    assert all(mode == _lib.ctypes.RTLD_GLOBAL for _, mode in loaded)

    loaded.clear()
    mine = tmp_path / "toolkit"
    mine.mkdir()
    (mine / "libcublas.so.12").touch()
    (mine / "libcublasLt.so.12").touch()
    monkeypatch.setenv("OPGEN_CUBLAS_LIBRARY", str(mine / "libcublas.so.12"))
    _lib._preload_cuda_libraries(str(runtime))
    assert [p for p, _ in loaded] == [str(mine / "libcublasLt.so.12"),
                                      str(mine / "libcublas.so.12")]

    loaded.clear()
    monkeypatch.setenv("OPGEN_DISABLE_DEVICE_PLUGINS", "1")
    _lib._preload_cuda_libraries(str(runtime))
    assert loaded == []
