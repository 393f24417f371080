"""One condition, one code in every language: an unregistered op is TF_NOT_FOUND from C
(graph and eager), from the generated C++ API (opgen::Error::code()) and from Python
(NotFoundError); Rust and Go are checked by test_examples_rust_go.py. And the runtime's
device-placement log, switched on from C (OPGEN_SetLogDevicePlacement), filtered by
$OPGEN_LOG_LEVEL."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.runtime import errors

REPO = Path(__file__).resolve().parents[2]
NOT_FOUND = 5   # TF_NOT_FOUND
CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def _build_and_run(tmp_path: Path, compiler: str, source: str, suffix: str, flags: list[str],
                   env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler} on PATH")
    path = tmp_path / f"program{suffix}"
    path.write_text(source)
    binary = tmp_path / "program"
    std = ["-std=c++17"] if suffix == ".cc" else ["-std=c11"]
    subprocess.run([compiler, *std, "-Wall", "-Werror", str(path),
                    f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(binary)], check=True)
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60,
                            env=env if env is not None else dict(os.environ))
    assert result.returncode == 0, result.stderr
    return result


C_CODES = r"""
#include <stdio.h>
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"

int main(void) {
  TF_Status* s = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_FinishOperation(TF_NewOperation(g, "NoSuchOp", "n"), s);
  printf("graph %d\n", TF_GetCode(s));
  TFE_ContextOptions* options = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(options, s);
  TFE_NewOp(ctx, "NoSuchOp", s);
  printf("eager %d\n", TF_GetCode(s));
  return 0;
}
"""

CPP_CODES = r"""
#include <cstdio>
#include "opgen_framework.h"

int main() {
  opgen::Scope scope = opgen::Scope::NewRootScope();
  try {
    opgen::internal::OperationBuilder builder(scope, "NoSuchOp", "n");
    builder.Finish();
    std::printf("no error\n");
  } catch (const opgen::Error& e) {
    std::printf("graph %d\n", static_cast<int>(e.code()));
  }
  return 0;
}
"""


def test_an_unregistered_op_is_not_found_in_c(tmp_path, flags):
    printed = _build_and_run(tmp_path, "cc", C_CODES, ".c", flags).stdout.split("\n")
    assert printed[:2] == [f"graph {NOT_FOUND}", f"eager {NOT_FOUND}"]


def test_an_unregistered_op_is_not_found_in_cpp(tmp_path, flags):
    assert _build_and_run(tmp_path, "c++", CPP_CODES, ".cc", flags).stdout == f"graph {NOT_FOUND}\n"


def test_an_unregistered_op_is_not_found_in_python():
    with pytest.raises(errors.NotFoundError) as graph_error:
        opgen.Graph().create_op("NoSuchOp", [])
    with pytest.raises(errors.NotFoundError) as eager_error:
        opgen.execute_op("NoSuchOp", [], {})
    assert graph_error.value.code == eager_error.value.code == NOT_FOUND


C_PLACEMENT = r"""
#include <stdio.h>
#include "opgen/c_api_ext.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"

int main(void) {
  OPGEN_SetLogDevicePlacement(1);
  if (!OPGEN_GetLogDevicePlacement() || OPGEN_SetLogLevel(9) != -1) return 2;
  TF_Status* s = TF_NewStatus();
  TFE_ContextOptions* options = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(options, s);
  int64_t dims[1] = {2};
  TF_Tensor* t = TF_AllocateTensor(TF_FLOAT, dims, 1, 2 * sizeof(float));
  ((float*)TF_TensorData(t))[0] = 3.0f;
  ((float*)TF_TensorData(t))[1] = -1.5f;
  TFE_TensorHandle* h = TFE_NewTensorHandle(t, s);
  TFE_Op* op = TFE_NewOp(ctx, "Neg", s);
  TFE_OpAddInput(op, h, s);
  TFE_TensorHandle* out[1];
  int n = 1;
  TFE_Execute(op, out, &n, s);
  TF_Tensor* r = TFE_TensorHandleResolve(out[0], s);
  printf("%g %g %d\n", ((float*)TF_TensorData(r))[0], ((float*)TF_TensorData(r))[1],
         OPGEN_GetLogLevel());
  return TF_GetCode(s);
}
"""


@pytest.mark.parametrize("level, logged", [(None, True), ("0", True), ("1", False),
                                           ("error", False), ("3", False)])
def test_placement_logging_from_c_follows_the_log_level(tmp_path, flags, level, logged):
    env = {k: v for k, v in os.environ.items() if k != "OPGEN_LOG_LEVEL"}
    if level is not None:
        env["OPGEN_LOG_LEVEL"] = level
    result = _build_and_run(tmp_path, "cc", C_PLACEMENT, ".c", flags, env)
    values = result.stdout.split()
    np.testing.assert_array_equal(np.float32(values[:2]), -np.float32([3.0, -1.5]))
    assert (f"Executing op Neg in device {CPU}" in result.stderr.splitlines()) == logged
    expected_level = {None: 0, "0": 0, "1": 1, "error": 2, "3": 3}[level]
    assert int(values[2]) == expected_level
