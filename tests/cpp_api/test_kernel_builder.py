"""REGISTER_KERNEL_BUILDER's Name(...) options through the C kernel builder: Priority
picks among kernels of one op, device and type; Label and HostMemory reach the registry;
a TypeConstraint with a list of types registers one kernel per type."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PROBE = Path(__file__).with_name("kernel_builder_probe.cc")

RUN = """
import sys, numpy as np, opgen
from opgen.runtime.kernels import registered_kernels
ops = opgen.load_op_library(sys.argv[1])
print(int(np.asarray(ops.cpp_kernel_builder_probe(np.ones(2, np.float32)))))
print(int(np.asarray(ops.cpp_kernel_builder_probe(np.ones(2, np.float64)))))
print(int(np.asarray(ops.cpp_kernel_builder_probe(np.ones(2, np.int32)))))
for k in registered_kernels("CppKernelBuilderProbe").kernel:
    print(k.constraint[0].allowed_values.list.type[0], k.priority, k.label or "-",
          ",".join(k.host_memory_arg) or "-")
"""


def test_priority_label_host_memory_and_type_lists(tmp_path):
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    from opgen import _paths
    lib = tmp_path / "libprobe.so"
    subprocess.run([cxx, "-std=c++17", "-O0", "-Wall", "-Werror", "-shared", "-fPIC",
                    f"-I{_paths.include_dir()}", str(PROBE), "-o", str(lib)], check=True)
    run = subprocess.run([sys.executable, "-c", RUN, str(lib)], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[:3] == ["2", "4", "4"]  # float: the priority-5 kernel; double, int32: the list
    assert sorted(lines[3:]) == sorted(["1 0 - -", "1 5 - x", "1 0 third -", "2 0 - -", "3 0 - -"])
