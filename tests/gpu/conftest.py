"""GPU tests: every test under tests/gpu needs a GPU device and skips, saying why,
where the runtime has none (no CUDA plugin built, no driver, no device).

`gpu_matches_cpu(fn, *args, **kwargs)` runs `fn` (a generated op, usually) once on the
CPU and once on GPU:0 and checks that every output of the GPU run lives on the GPU and
equals the CPU's within what the dtype warrants."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from gpu_compare import gpu_skip_reason, assert_gpu_matches_cpu  # noqa: E402


# The parameters that choose which compiled kernel runs, besides any whose value is a
# dtype (index types...); the others (shapes, axes, values) pick inputs for the same one.
KERNEL_PARAMS = frozenset({"dtype", "op", "fn", "name", "src", "dst", "transpose_a", "transpose_b",
                           "keep_dims", "padding"})


def _chooses_kernel(name: str, value) -> bool:
    return name in KERNEL_PARAMS or isinstance(value, np.dtype) or (
        isinstance(value, type) and issubclass(value, np.generic))


def beyond_kernel_sample(items) -> list:
    """The items after the first of each test function and kernel choice."""
    seen, beyond = set(), []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        choice = tuple(sorted((k, repr(v)) for k, v in params.items() if _chooses_kernel(k, v)))
        key = (str(item.fspath), item.originalname, choice)
        if key in seen:
            beyond.append(item)
        seen.add(key)
    return beyond


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    if config.getoption("--kernel-sample", default=False):   # declared in tests/conftest.py
        deselected = beyond_kernel_sample(
            [item for item in items if here in Path(str(item.fspath)).parents])
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            drop = set(map(id, deselected))
            items[:] = [item for item in items if id(item) not in drop]
    reason = None
    for item in items:
        if here in Path(str(item.fspath)).parents:
            if reason is None:
                reason = gpu_skip_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


# ---- which GPU kernels the run reached ---------------------------------------------------
#
# Each process (each xdist worker) lists the GPU kernels it made instances of; the
# controller merges them and reports the registered GPU kernels no test reached, so a run
# on a GPU shows that every kernel was compared with the CPU's, not only that the tests
# passed. tools/gpu_check.sh prints the count in its summary.

_REACHED = "gpu_kernels_reached"          # in an xdist worker's output
_REACHED_KEY = pytest.StashKey[set]()      # in the controller's (or the only) process


def _gpu_kernel_lines(kernel_list) -> set:
    from opgen.runtime.kernels import describe_kernel
    return {describe_kernel(k) for k in kernel_list.kernel if k.device_type == "GPU"}


def pytest_sessionfinish(session):
    if gpu_skip_reason():
        return
    from opgen.runtime.kernels import instantiated_kernels
    reached = sorted(_gpu_kernel_lines(instantiated_kernels()))
    if hasattr(session.config, "workeroutput"):  # an xdist worker: hand them on
        session.config.workeroutput[_REACHED] = reached
    else:
        session.config.stash.setdefault(_REACHED_KEY, set()).update(reached)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    reached = getattr(node, "workeroutput", {}).get(_REACHED)
    if reached is not None:
        node.config.stash.setdefault(_REACHED_KEY, set()).update(reached)


def pytest_terminal_summary(terminalreporter, config):
    reached = config.stash.get(_REACHED_KEY, None)
    if reached is None or hasattr(config, "workeroutput"):
        return
    import opgen
    registered = _gpu_kernel_lines(opgen.registered_kernels())
    missed = sorted(registered - reached)
    terminalreporter.section("GPU kernel coverage")
    terminalreporter.write_line(f"GPU kernels reached: {len(registered & reached)} of "
                                f"{len(registered)}; not reached: {len(missed)}")
    for line in missed[:200]:
        terminalreporter.write_line("  " + line.replace("\t", "  "))
    if len(missed) > 200:
        terminalreporter.write_line(f"  ... and {len(missed) - 200} more")


@pytest.fixture
def gpu_matches_cpu():
    return assert_gpu_matches_cpu


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
