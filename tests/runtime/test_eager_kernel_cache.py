"""The eager context's kernel cache (runtime/src/eager_kernel_cache.cc), driven directly
by a small C++ harness: kernels held outside the cache (fast-path signatures hold theirs)
stay and do not count toward the bound, so however many are held, the unheld kernels a
process uses keep their room, a hot one keeps its state, and the rest stay bounded."""

from __future__ import annotations

import subprocess


def test_held_kernels_do_not_crowd_out_the_unheld(build_runtime_harness):
    exe = build_runtime_harness("eager_kernel_cache_harness.cc", "eager_kernel_cache.cc")
    done = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [
        ["ok", "bounded"], ["ok", "released"], ["ok", "clear"]]
