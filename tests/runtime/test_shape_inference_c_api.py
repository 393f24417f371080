"""TensorFlow's shape-inference C API from a plugin's side: a C library, compiled here
against the public headers alone and loaded with TF_LoadLibrary, registers ops whose
shape functions use the TF_ShapeInferenceContext calls; the graph must run them for new
nodes (TF_FinishOperation) and report their errors with the node and op named."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

import pytest

# Loads plugin libraries (see tests/conftest.py).
pytestmark = pytest.mark.usefixtures("no_tensorflow_in_process")

PLUGIN_SOURCE = r"""
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_status.h"

static int ok(TF_Status* s) { return TF_GetCode(s) == TF_OK; }

/* [len(a), len(b)] for vectors a and b; with T = int32 a vector of 2 instead. */
static void outer_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_DataType t;
  TF_ShapeInferenceContext_GetAttrType(ctx, "T", &t, status);
  if (!ok(status)) return;
  if (t == TF_INT32) {
    TF_ShapeHandle* v = TF_ShapeInferenceContextVectorFromSize(ctx, 2);
    TF_ShapeInferenceContextSetOutput(ctx, 0, v, status);
    TF_DeleteShapeHandle(v);
    return;
  }
  TF_ShapeHandle* a = TF_NewShapeHandle();
  TF_ShapeHandle* b = TF_NewShapeHandle();
  TF_ShapeHandle* out = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, a, status);
  if (ok(status)) TF_ShapeInferenceContextGetInput(ctx, 1, b, status);
  if (ok(status)) TF_ShapeInferenceContextWithRank(ctx, a, 1, a, status);
  if (ok(status)) TF_ShapeInferenceContextWithRank(ctx, b, 1, b, status);
  if (ok(status)) TF_ShapeInferenceContextConcatenateShapes(ctx, a, b, out, status);
  if (ok(status)) TF_ShapeInferenceContextSetOutput(ctx, 0, out, status);
  TF_DeleteShapeHandle(a);
  TF_DeleteShapeHandle(b);
  TF_DeleteShapeHandle(out);
}

/* Output 0: x[1:] (x of rank 1 to 3). Output 1: a vector as long as x's rank. Output 2:
 * a vector as long as x's first dim, or unknown. Output 3: a scalar, and x[-2:] must
 * be a valid subshape. */
static void tail_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* x = TF_NewShapeHandle();
  TF_ShapeHandle* tail = TF_NewShapeHandle();
  TF_DimensionHandle* first = TF_NewDimensionHandle();
  if (TF_ShapeInferenceContextNumInputs(ctx) != 1) {
    TF_SetStatus(status, TF_INTERNAL, "expected one input");
  }
  if (ok(status)) TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (ok(status)) TF_ShapeInferenceContextWithRankAtLeast(ctx, x, 1, x, status);
  if (ok(status)) TF_ShapeInferenceContextWithRankAtMost(ctx, x, 3, x, status);
  if (ok(status)) TF_ShapeInferenceContextSubshape(ctx, x, 1, 100, tail, status);
  if (ok(status)) TF_ShapeInferenceContextSetOutput(ctx, 0, tail, status);
  if (ok(status)) {
    TF_ShapeHandle* rank_vec = TF_ShapeInferenceContextRankKnown(ctx, x)
        ? TF_ShapeInferenceContextVectorFromSize(ctx, (size_t)TF_ShapeInferenceContextRank(ctx, x))
        : TF_NewShapeHandle();
    TF_ShapeInferenceContextSetOutput(ctx, 1, rank_vec, status);
    TF_DeleteShapeHandle(rank_vec);
  }
  if (ok(status)) {
    TF_ShapeInferenceContextDim(ctx, x, 0, first);
    TF_ShapeHandle* v = TF_DimensionHandleValueKnown(first)
        ? TF_ShapeInferenceContextVectorFromSize(ctx, (size_t)TF_DimensionHandleValue(first))
        : TF_NewShapeHandle();
    TF_ShapeInferenceContextSetOutput(ctx, 2, v, status);
    TF_DeleteShapeHandle(v);
  }
  if (ok(status)) TF_ShapeInferenceContextSubshape(ctx, x, -2, 100, tail, status);
  if (ok(status)) {
    TF_ShapeHandle* s = TF_ShapeInferenceContextScalar(ctx);
    TF_ShapeInferenceContextSetOutput(ctx, 3, s, status);
    TF_DeleteShapeHandle(s);
  }
  TF_DeleteShapeHandle(x);
  TF_DeleteShapeHandle(tail);
  TF_DeleteDimensionHandle(first);
}

static void unknown_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeInferenceContextSetUnknownShape(ctx, status);
}

/* Asks for an input that does not exist: the runtime must report, not crash. */
static void bad_index_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* h = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 7, h, status);
  TF_DeleteShapeHandle(h);
}

static void add(const char* name, const char* const* attrs, const char* const* inputs,
                const char* const* outputs,
                void (*fn)(TF_ShapeInferenceContext*, TF_Status*), TF_Status* status) {
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  for (; attrs && *attrs; ++attrs) TF_OpDefinitionBuilderAddAttr(b, *attrs);
  for (; inputs && *inputs; ++inputs) TF_OpDefinitionBuilderAddInput(b, *inputs);
  for (; outputs && *outputs; ++outputs) TF_OpDefinitionBuilderAddOutput(b, *outputs);
  TF_OpDefinitionBuilderSetShapeInferenceFunction(b, fn);
  TF_RegisterOpDefinition(b, status);
}

/* Registered when TF_LoadLibrary loads the plugin, as TensorFlow plugins do. */
__attribute__((constructor)) static void register_plugin_ops(void) {
  TF_Status* status = TF_NewStatus();
  const char* t_attr[] = {"T: {float, int32}", 0};
  const char* ab[] = {"a: T", "b: T", 0};
  const char* out[] = {"out: T", 0};
  const char* x[] = {"x: float", 0};
  const char* four[] = {"tail: float", "rank: int32", "first: int32", "scalar: float", 0};
  const char* one[] = {"y: float", 0};
  add("OpgenPluginOuter", t_attr, ab, out, outer_shape, status);
  if (ok(status)) add("OpgenPluginTail", 0, x, four, tail_shape, status);
  if (ok(status)) add("OpgenPluginUnknown", 0, x, one, unknown_shape, status);
  if (ok(status)) add("OpgenPluginBadIndex", 0, x, one, bad_index_shape, status);
  TF_DeleteStatus(status);
}
"""


PLUGIN_OPS = ["OpgenPluginBadIndex", "OpgenPluginOuter", "OpgenPluginTail", "OpgenPluginUnknown"]


@pytest.fixture(scope="module")
def plugin(infer_shapes, tmp_path_factory):
    """The plugin built against the public headers and loaded with TF_LoadLibrary."""
    import sys
    if "tensorflow" in sys.modules:  # module-scoped: set up before the pytestmark check
        pytest.skip("tensorflow was imported into this test process; see tests/conftest.py")
    from opgen import _paths
    from opgen.protos import op_def_pb2
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        pytest.skip("no C compiler to build the plugin")
    tmp = tmp_path_factory.mktemp("shape_plugin")
    src, lib_path = tmp / "plugin.c", tmp / "libshape_plugin.so"
    src.write_text(PLUGIN_SOURCE)
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", "-shared", "-fPIC",
                    f"-I{_paths.include_dir()}", str(src), "-o", str(lib_path)], check=True)
    lib, status = infer_shapes.lib, infer_shapes.api.status
    handle = lib.TF_LoadLibrary(str(lib_path).encode(), status)
    infer_shapes.api.check()
    op_list = lib.TF_GetOpList(handle)
    ops = op_def_pb2.OpList.FromString(ctypes.string_at(op_list.data, op_list.length))
    assert sorted(op.name for op in ops.op) == PLUGIN_OPS
    return handle


def test_plugin_shape_function_combines_its_inputs(plugin, infer_shapes):
    P = infer_shapes.Partial
    assert infer_shapes("OpgenPluginOuter", [P((3,)), P((5,))]) == [(3, 5)]
    assert infer_shapes("OpgenPluginOuter", [P((None,)), P(None)]) == [(None, None)]
    assert infer_shapes("OpgenPluginOuter", [P((3,), "int32"), P((5,), "int32")]) == [(2,)]


def test_plugin_rank_errors_name_the_node_and_op(plugin, infer_shapes):
    P = infer_shapes.Partial
    with pytest.raises(infer_shapes.Error) as e:
        infer_shapes("OpgenPluginOuter", [P((3, 2)), P((5,))], node="outer1")
    assert e.value.code == 3
    assert e.value.message.startswith("OpgenPluginOuter node 'outer1': ")
    assert "rank 1" in e.value.message and "[3,2]" in e.value.message
    with pytest.raises(infer_shapes.Error, match="OpgenPluginTail node 't'.*rank at most 3"):
        infer_shapes("OpgenPluginTail", [P((1, 2, 3, 4))], node="t")
    with pytest.raises(infer_shapes.Error, match="rank at least 1"):
        infer_shapes("OpgenPluginTail", [P(())])


def test_dims_subshapes_and_ranks(plugin, infer_shapes):
    P = infer_shapes.Partial
    assert infer_shapes("OpgenPluginTail", [P((4, 2, 3))]) == [(2, 3), (3,), (4,), ()]
    assert infer_shapes("OpgenPluginTail", [P((None, 7))]) == [(7,), (2,), None, ()]
    # An unknown rank passes the rank checks and leaves what depends on it unknown.
    assert infer_shapes("OpgenPluginTail", [P(None)]) == [None, None, None, ()]


def test_set_unknown_shape_and_bad_index(plugin, infer_shapes):
    P = infer_shapes.Partial
    assert infer_shapes("OpgenPluginUnknown", [P((2,))]) == [None]
    with pytest.raises(infer_shapes.Error, match="OpgenPluginBadIndex node 'b'.*input index 7"):
        infer_shapes("OpgenPluginBadIndex", [P((2,))], node="b")
