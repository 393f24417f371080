"""The runtime's device model without a GPU: tests/plugins/fake_device.c adds devices
FAKE:0 and FAKE:1 whose memory holds every byte scrambled, with AddV2, Reshape (shape
in host memory) and Shape (output in host memory) kernels. Wherever the runtime touched
device memory other than through the device's copy functions, numbers would come out
wrong; where it forgot a copy, a kernel would read scrambled bytes."""

from __future__ import annotations

import ctypes
import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import compile_plugin  # noqa: E402


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    from opgen import _paths
    path = compile_plugin(Path(__file__).parent / "fake_device.c",
                          tmp_path_factory.mktemp("fake") / "libfake_device.so", _paths.include_dir())
    opgen.load_op_library(path)
    lib = ctypes.CDLL(str(path))  # the same, already loaded, copy
    lib.fake_device_live_allocations.restype = ctypes.c_long
    return lib


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_plugin_devices_are_listed_after_the_cpu(fake):
    devices = opgen.list_devices()
    assert devices[0].device_type == "CPU"
    names = [d.name for d in devices]
    assert "/job:localhost/replica:0/task:0/device:FAKE:0" in names
    assert "/job:localhost/replica:0/task:0/device:FAKE:1" in names
    fake0 = next(d for d in devices if d.name.endswith("FAKE:0"))
    assert fake0.description == "a scrambling test device" and fake0.memory_bytes == 1 << 20
    assert opgen.device_unavailable_reason("FAKE") is None


@pytest.mark.parametrize("spelling", ["/FAKE:1", "/device:FAKE:1", "FAKE:1", "fake:1",
                                      "/job:localhost/replica:0/task:0/device:FAKE:1"])
def test_eager_op_runs_on_the_named_device_and_copies_back(fake, rng, spelling):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    with opgen.device(spelling):
        z = ops.add_v2(x, y)
    assert z.device.endswith("device:FAKE:1")
    np.testing.assert_array_equal(z.numpy(), x + y)
    np.testing.assert_array_equal(np.asarray(z), x + y)


def test_device_results_chain_without_host_round_trips(fake, rng):
    x = rng.standard_normal(5).astype(np.float32)
    with opgen.device("/FAKE:0"):
        a = ops.add_v2(x, x)
        b = ops.add_v2(a, a)  # a stays on FAKE:0: a host copy would be scrambled
        c = ops.reshape(b, [5, 1])
        s = ops.shape(c)
    assert b.device.endswith("FAKE:0") and c.device.endswith("FAKE:0")
    np.testing.assert_array_equal(c.numpy(), (4 * x).reshape(5, 1))
    assert s.device.endswith("CPU:0")  # host-memory output
    np.testing.assert_array_equal(s.numpy(), [5, 1])


def test_ops_without_a_device_kernel_run_on_the_cpu(fake, rng):
    x = rng.standard_normal(4).astype(np.float32)
    with opgen.device("/FAKE:0"):
        a = ops.add_v2(x, x)
        m = ops.mul(a, a)  # no FAKE kernel: soft placement copies `a` to the host
    assert m.device.endswith("CPU:0")
    np.testing.assert_allclose(m.numpy(), (2 * x) ** 2, rtol=1e-6)


def test_tensors_move_between_devices_on_demand(fake, rng):
    x = rng.standard_normal(3).astype(np.float32)
    with opgen.device("/FAKE:0"):
        a = ops.add_v2(x, x)
    with opgen.device("/FAKE:1"):
        b = ops.add_v2(a, x)  # FAKE:0 -> FAKE:1 and host -> FAKE:1
    with opgen.device("/CPU:0"):
        c = ops.add_v2(b, a)  # both back to the host
    assert b.device.endswith("FAKE:1") and c.device.endswith("CPU:0")
    a_ = x + x
    np.testing.assert_array_equal(c.numpy(), (a_ + x) + a_)  # float32, in the ops' order


def test_kernel_errors_on_a_device_raise(fake):
    with opgen.device("/FAKE:0"), pytest.raises(opgen.errors.InvalidArgumentError,
                                                match="same-shape"):
        ops.add_v2(np.ones(3, np.float32), np.ones(1, np.float32))


def test_graph_on_a_device_runs_with_copy_edges(fake, rng):
    x = rng.standard_normal((3, 2)).astype(np.float32)
    g = opgen.Graph()
    with g.as_default():
        p = ops.placeholder(opgen.float32, shape=[3, 2])
        with opgen.device("/FAKE:0"):
            a = ops.add_v2(p, p)
            r = ops.reshape(a, [2, 3])
            s = ops.shape(r)
        with opgen.device("/FAKE:1"):
            b = ops.add_v2(r, r)
        m = ops.mul(b, 2.0)  # CPU
    with opgen.Session(graph=g) as sess:
        for _ in range(3):  # the plan is reused; copies happen on every run
            got_r, got_s, got_b, got_m = sess.run([r, s, b, m], {p: x})
            np.testing.assert_array_equal(got_r, (2 * x).reshape(2, 3))
            np.testing.assert_array_equal(got_s, [2, 3])
            np.testing.assert_array_equal(got_b, (4 * x).reshape(2, 3))
            np.testing.assert_array_equal(got_m, (8 * x).reshape(2, 3))


def test_device_memory_is_given_back(fake, rng):
    import gc
    x = rng.standard_normal(64).astype(np.float32)
    gc.collect()
    before = fake.fake_device_live_allocations()
    for _ in range(20):
        with opgen.device("/FAKE:0"):
            y = ops.reshape(ops.add_v2(x, x), [8, 8])
        assert y.numpy().shape == (8, 8)
        del y
    g = opgen.Graph()
    with g.as_default():
        p = ops.placeholder(opgen.float32, shape=[64])
        with opgen.device("/FAKE:1"):
            out = ops.add_v2(p, p)
    with opgen.Session(graph=g) as sess:
        for _ in range(5):
            sess.run(out, {p: x})
    del out, g, sess
    gc.collect()
    assert fake.fake_device_live_allocations() == before
