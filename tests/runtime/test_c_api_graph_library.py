"""TF_LoadLibrary on plugins compiled here with the system C compiler: the ops a plugin
registers from its load-time constructor are recorded, usable in graphs, and a plugin
that redefines an existing op is refused without changing that op."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from graph_capi import ALREADY_EXISTS, NOT_FOUND, OK, TF_FLOAT, CApiError, out  # noqa: E402
from opgen.protos import op_def_pb2  # noqa: E402

# Loads plugin libraries (see tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_tensorflow_in_process")

PLUGIN_SOURCE = r"""
#include <stdint.h>
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

static void times_two(void* kernel, TF_OpKernelContext* ctx) {
  TF_Status* s = TF_NewStatus();
  TF_Tensor* x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) {
    int64_t dims[8];
    int rank = TF_NumDims(x);
    for (int i = 0; i < rank; ++i) dims[i] = TF_Dim(x, i);
    TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, rank, TF_TensorByteSize(x), s);
    if (TF_GetCode(s) == TF_OK) {
      const float* in = (const float*)TF_TensorData(x);
      float* o = (float*)TF_TensorData(y);
      for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) o[i] = 2 * in[i];
      TF_DeleteTensor(y);
    }
    TF_DeleteTensor(x);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteStatus(s);
}

__attribute__((constructor)) static void register_plugin(void) {
  TF_Status* s = TF_NewStatus();
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(OP_NAME);
  TF_OpDefinitionBuilderAddInput(b, "x: float");
  TF_OpDefinitionBuilderAddOutput(b, "y: float");
  TF_RegisterOpDefinition(b, s);
  if (TF_GetCode(s) == TF_OK) {
    TF_KernelBuilder* k = TF_NewKernelBuilder(OP_NAME, "CPU", NULL, times_two, NULL);
    TF_RegisterKernelBuilder(OP_NAME "_CPU", k, s);
  }
  TF_DeleteStatus(s);
}
"""


@pytest.fixture(scope="module")
def build_plugin(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    folder = tmp_path_factory.mktemp("plugins")

    def build(op_name: str) -> Path:
        src = folder / f"{op_name}.c"
        src.write_text(PLUGIN_SOURCE)
        lib = folder / f"lib{op_name}.so"
        subprocess.run([compiler, "-shared", "-fPIC", "-O1", f'-DOP_NAME="{op_name}"',
                        f"-I{_paths.include_dir()}", str(src), "-o", str(lib)], check=True)
        return lib

    return build


def _load(api, path):
    handle = api.lib.TF_LoadLibrary(str(path).encode(), api.status)
    api.check()
    return handle


def test_plugin_ops_are_recorded_and_run(api, build_plugin):
    lib = api.lib
    path = build_plugin("OpgenPluginTimesTwo")
    handle = _load(api, path)
    buf = lib.TF_GetOpList(handle)
    ops = op_def_pb2.OpList.FromString(ctypes.string_at(buf.data, buf.length))
    assert [op.name for op in ops.op] == ["OpgenPluginTimesTwo"]
    assert [a.name for a in ops.op[0].input_arg] == ["x"]
    assert _load(api, path) == handle  # the same path loads once
    lib.TF_DeleteLibraryHandle(handle)
    lib.TF_DeleteLibraryHandle(handle)

    g = lib.TF_NewGraph()
    x = api.placeholder(g, "x", TF_FLOAT)
    y = api.op(g, "OpgenPluginTimesTwo", "y", [out(x)])
    sess = api.session(g)
    xv = np.float32([[1, -2], [3.5, 0]])
    (got,) = api.run(sess, [(out(x), xv)], [out(y)])
    np.testing.assert_array_equal(got, 2 * xv)
    lib.TF_DeleteSession(sess, api.status)
    lib.TF_DeleteGraph(g)


def test_plugin_redefining_an_op_is_refused(api, build_plugin):
    lib = api.lib
    before = api.buffer_bytes(lambda b: lib.TF_GraphGetOpDef(None, b"Relu", b, api.status))
    path = build_plugin("Relu")
    for _ in range(2):  # and again: the answer is kept
        assert lib.TF_LoadLibrary(str(path).encode(), api.status) is None
        assert lib.TF_GetCode(api.status) == ALREADY_EXISTS
        assert "Relu" in lib.TF_Message(api.status).decode()
    after = api.buffer_bytes(lambda b: lib.TF_GraphGetOpDef(None, b"Relu", b, api.status))
    assert after == before


def test_missing_library(api, tmp_path):
    with pytest.raises(CApiError) as e:
        _load(api, tmp_path / "libnothing.so")
    assert e.value.code == NOT_FOUND and "libnothing.so" in e.value.message
