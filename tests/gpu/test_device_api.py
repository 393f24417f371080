"""The Python device API on a GPU: eager placement under opgen.device, Tensor.device,
numpy copies back to the host, tensors crossing between CPU and GPU ops, DLPack with
PyTorch and CuPy CUDA tensors without copies, and graphs (built under a device scope,
or frozen models with every node on GPU:0) run by a Session with the CPU's results.
Skips without a GPU (conftest.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.protos import graph_pb2
from opgen.runtime import devices, eager
from opgen.runtime.tensor import _fast_path

GPU = "/job:localhost/replica:0/task:0/device:GPU:0"
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tf_models"


def on_gpu(t) -> bool:
    return t.device == GPU


def gpu_tensor(values):
    t = opgen.copy_to_device(values, "/GPU:0")  # a copy, whatever kernels there are
    assert on_gpu(t), t.device
    return t


def test_identity_under_a_gpu_scope_copies_to_the_gpu(rng):
    values = rng.standard_normal((3, 3)).astype(np.float32)
    with opgen.device("/GPU:0"):
        t = ops.identity(values)
    assert on_gpu(t)
    np.testing.assert_array_equal(t.numpy(), values)


def test_list_devices_shows_the_gpu():
    found = opgen.list_devices()
    assert found[0].device_type == "CPU"
    gpus = [d for d in found if d.device_type == "GPU"]
    assert gpus and gpus[0].name == GPU and gpus[0].ordinal == 0
    assert gpus[0].description and gpus[0].memory_bytes > 0
    assert opgen.device_unavailable_reason("GPU") is None


@pytest.mark.parametrize("spelling", ["/GPU:0", "/device:GPU:0", "GPU:0", "gpu:0", "gpu", GPU])
def test_eager_ops_run_on_the_gpu(spelling, rng):
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = rng.standard_normal((32,)).astype(np.float32)
    with opgen.device(spelling):
        s = ops.add_v2(x, y)
        m = ops.mat_mul(x, x, transpose_b=True)
        again = ops.add_v2(x, y)  # the fast path's cached kernel for this device
    for t in (s, m, again):
        assert t.device == GPU
    np.testing.assert_allclose(s.numpy(), x + y, rtol=1e-6)
    np.testing.assert_allclose(again.numpy(), x + y, rtol=1e-6)
    np.testing.assert_allclose(m.numpy(), x @ x.T, rtol=1e-4, atol=1e-4)


def test_the_ctypes_path_places_too(rng):
    x = rng.standard_normal(10)
    with opgen.device("/GPU:0"):
        t = eager._execute_op_python("Neg", [x], {})[0]
    assert t.device == GPU
    np.testing.assert_array_equal(t.numpy(), -x)


def test_kernels_cached_for_one_device_never_serve_another(rng):
    x = rng.standard_normal(100).astype(np.float32)
    for _ in range(3):
        with opgen.device("/CPU:0"):
            c = ops.exp(x)
        with opgen.device("/GPU:0"):
            g = ops.exp(x)
        n = ops.exp(x)
        assert c.device == CPU and g.device == GPU and n.device == CPU
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=2e-6)
    if _fast_path is not None:
        assert _fast_path.cache_info()["Exp"] >= 3


def test_numpy_gets_host_copies_of_gpu_tensors(rng):
    values = rng.standard_normal((3, 5)).astype(np.float32)
    t = gpu_tensor(values)
    for array in (t.numpy(), np.asarray(t), np.array(t), np.asarray(t, dtype=np.float64)):
        np.testing.assert_array_equal(array, values.astype(array.dtype))
    interface = t.__array_interface__
    assert isinstance(interface["data"], np.ndarray)  # host memory, never a device pointer
    assert interface["data"].__array_interface__["data"][0] != t._data
    scalar = gpu_tensor(np.float32(2.5))
    assert float(scalar) == 2.5 and int(gpu_tensor(np.int64(7))) == 7
    assert bool(gpu_tensor(np.bool_(True))) and not bool(gpu_tensor(np.bool_(False)))
    assert "numpy=[[" in repr(t) and "dtype=float32" in repr(t)
    empty = gpu_tensor(np.zeros((0, 4), np.float32))
    assert empty.numpy().shape == (0, 4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int32",
                                   "int64", "uint8", "bool"])
def test_every_dtype_comes_back(dtype, rng):
    np_dtype = opgen.as_dtype(dtype).numpy_dtype
    values = np.abs(rng.standard_normal((4, 3)) * 10).astype(np_dtype)
    t = gpu_tensor(values)
    assert t.numpy().dtype == np_dtype
    assert t.numpy().tobytes() == values.tobytes()


def test_gpu_tensors_feed_cpu_ops_and_back(rng):
    values = rng.standard_normal((8, 8)).astype(np.float32)
    g = gpu_tensor(values)
    with opgen.device("/CPU:0"):
        c = ops.mul(g, 2.0)
    assert c.device == CPU
    np.testing.assert_array_equal(c.numpy(), values * 2)
    with opgen.device("/GPU:0"):
        back = ops.add_v2(c, g)
    assert back.device == GPU
    np.testing.assert_allclose(back.numpy(), values * 3, rtol=1e-6)
    plain = ops.neg(g)  # no scope: on the CPU, g copied there
    assert plain.device == CPU
    np.testing.assert_array_equal(plain.numpy(), -values)


def test_copy_to_device_both_ways(rng):
    values = rng.integers(-9, 9, (5, 6)).astype(np.int32)
    g = opgen.copy_to_device(values, "/GPU:0")
    assert g.device == GPU
    h = opgen.copy_to_device(g, "/CPU:0")
    assert h.device == CPU and np.asarray(h).tolist() == values.tolist()
    assert opgen.copy_to_device(g, "gpu:0").numpy().tolist() == values.tolist()


# ---- DLPack ------------------------------------------------------------------------------------

def test_dlpack_between_opgen_gpu_tensors(rng):
    t = gpu_tensor(rng.standard_normal((4, 4)).astype(np.float32))
    assert t.__dlpack_device__() == (2, 0)
    for max_version in (None, (1, 0)):
        u = opgen.from_dlpack(t.__dlpack__(max_version=max_version))
        assert u.device == GPU and u._data == t._data
        np.testing.assert_array_equal(u.numpy(), t.numpy())
    host = opgen.from_dlpack(t.__dlpack__(dl_device=(1, 0)))
    assert host.device == CPU
    np.testing.assert_array_equal(host.numpy(), t.numpy())
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(1, 0), copy=False)


def test_numpy_from_dlpack_of_a_gpu_tensor_copies_when_asked(rng):
    values = rng.standard_normal(6)
    t = gpu_tensor(values)
    try:
        array = np.from_dlpack(t, device="cpu")
    except TypeError:
        pytest.skip("this numpy's from_dlpack has no device keyword")
    np.testing.assert_array_equal(array, values)


def test_dlpack_with_torch_cuda_tensors(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    x = torch.randn(16, 8, device="cuda")
    t = opgen.from_dlpack(x)
    assert t.device == GPU and t._data == x.data_ptr()  # no copy
    with opgen.device("/GPU:0"):
        y = ops.mul(t, 2.0)
    np.testing.assert_allclose(y.numpy(), (x * 2).cpu().numpy(), rtol=1e-6)
    z = torch.from_dlpack(y)
    assert z.is_cuda and z.data_ptr() == y._data
    assert torch.equal(z, x * 2)
    for torch_dtype in (torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.bool,
                        torch.uint8):
        a = (torch.arange(12, device="cuda") % 3).to(torch_dtype)
        b = opgen.from_dlpack(a)
        assert b._data == a.data_ptr()
        c = torch.from_dlpack(b)
        assert c.data_ptr() == a.data_ptr() and torch.equal(c, a)
    with pytest.raises(BufferError):
        opgen.from_dlpack(x.t())  # strided GPU memory is refused, not copied


def test_dlpack_with_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(20, dtype=cupy.float32).reshape(4, 5)
    t = opgen.from_dlpack(a)
    assert t.device == GPU and t._data == a.data.ptr
    with opgen.device("/GPU:0"):
        s = ops.add_v2(t, t)
    b = cupy.from_dlpack(s)
    assert b.data.ptr == s._data
    assert bool((b == 2 * a).all())
    np.testing.assert_array_equal(s.numpy(), 2 * cupy.asnumpy(a))


# ---- graphs --------------------------------------------------------------------------------------

def _small_net(x, w):
    h = ops.relu(ops.add_v2(ops.mat_mul(x, w), 0.5))
    return ops.softmax(h)


def test_a_graph_built_under_a_gpu_scope_gives_the_cpus_results(rng):
    x = rng.standard_normal((32, 16)).astype(np.float32)
    w = rng.standard_normal((16, 10)).astype(np.float32)
    results = {}
    for device in ("/CPU:0", "/GPU:0"):
        g = opgen.Graph()
        with g.as_default():
            with opgen.device(device):
                out = _small_net(x, w)
        assert device[1:] in out.op.device
        with opgen.Session(graph=g) as session:
            results[device] = session.run(out)
    np.testing.assert_allclose(results["/GPU:0"], results["/CPU:0"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_frozen_models_with_every_node_on_the_gpu(name):
    graph_def = graph_pb2.GraphDef.FromString((FIXTURES / f"{name}.pb").read_bytes())
    for node in graph_def.node:
        node.device = "/device:GPU:0"
    io = np.load(FIXTURES / f"{name}_io.npz")
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    assert all("GPU:0" in op.device for op in g.get_operations())
    with opgen.Session(graph=g) as session:
        got = session.run(str(io["output_name"]), {str(io["input_name"]): io["input"]})
    np.testing.assert_allclose(got, io["output"], rtol=1e-4, atol=1e-5)


def test_device_scopes_stay_per_thread_with_a_gpu():
    import threading

    seen = []
    with opgen.device("/GPU:0"):
        thread = threading.Thread(target=lambda: seen.append(ops.neg(np.ones(2)).device))
        thread.start()
        thread.join(30)
        assert devices.eager_device() == GPU
    assert seen == [CPU]
