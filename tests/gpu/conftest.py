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


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    reason = None
    for item in items:
        if here in Path(str(item.fspath)).parents:
            if reason is None:
                reason = gpu_skip_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture
def gpu_matches_cpu():
    return assert_gpu_matches_cpu


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
