"""Malformed shapes, tensor attrs and NULL arguments through the C ABI.

Shapes and tensor attrs: each case of malformed_cases.py runs the same C calls on the
runtime and, in a child process ($OPGEN_TF_PYTHON;
skipped when absent), on TensorFlow's libtensorflow_cc. Where TensorFlow refuses an
input, opgen must refuse it too (INVALID_ARGUMENT), with a message naming what is
wrong. A few inputs TensorFlow's C setters take by reading any dim below -1 as unknown
(they are outside what its headers allow); opgen refuses those too, and the tests say
which they are.

NULL arguments: a function with a status reports a NULL required pointer as
INVALID_ARGUMENT naming the argument (TensorFlow's library crashes on most of these,
so there is nothing of its to compare with)."""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from tf_reference import run_tf, tf_env

sys.path.insert(0, str(Path(__file__).parent))
import malformed_cases
from graph_capi import INVALID_ARGUMENT, OK, TF_FLOAT, out

HERE = Path(__file__).parent
REPO = HERE.parent.parent

# Both refuse (same code); `shared`, when given, appears in both messages.
SAME, STRICTER = "same", "stricter"  # STRICTER: TensorFlow's call succeeds, opgen's refuses
EXPECTED = {
    # case: (fragment of opgen's message or None for success, relation, shared fragment)
    "import_placeholder_dim_below_minus_one":
        ("invalid NodeDef 'p' (attr 'shape': shape [2,-5] has dim -5 at index 1; "
         "a dim must be >= -1 (-1 means unknown))", SAME, "[2,-5]"),
    "import_placeholder_with_default_dim_below_minus_one":
        ("'p' (attr 'shape': shape [-5] has dim -5 at index 0", SAME, "[-5]"),
    "import_placeholder_unknown_rank_with_dims":
        ("shape has unknown_rank set and 2 dims; a shape of unknown rank has no dims", SAME, None),
    "import_placeholder_of_rank_255": ("shape of rank 255 has more than 254 dims", SAME, None),
    "import_placeholder_of_rank_254": (None, SAME, None),
    "import_placeholder_unknown_dim": (None, SAME, None),
    "set_attr_value_proto_shape_below_minus_one":
        ("Invalid AttrValue proto for attr 'shape': shape [-2] has dim -2", SAME, "[-2]"),
    "set_attr_tensor_shape_proto_below_minus_one":
        ("Invalid TensorShapeProto for attr 'shape': shape [3,-7] has dim -7 at index 1",
         STRICTER, None),
    "set_attr_tensor_shape_proto_list_below_minus_one":
        ("Invalid TensorShapeProto 1 for attr 'shapes': shape [-3] has dim -3", STRICTER, None),
    "set_attr_shape_below_minus_one":
        ("Node 'n' (Placeholder): attr 'shape': shape [2,-5] has dim -5 at index 1", STRICTER, None),
    "graph_set_tensor_shape_below_minus_one":
        ("TF_GraphSetTensorShape of 'p': shape [2,-5] has dim -5 at index 1", STRICTER, None),
    "eager_shape_attr_below_minus_one":
        ("PlaceholderWithDefault: attr 'shape': shape [-5] has dim -5", STRICTER, None),
    "import_const_of_unknown_dim":
        ("Node 'c' (Const): attr 'value': TensorProto shape [-1] has a negative dimension "
         "(-1 at index 0); a tensor's dims must be >= 0", SAME, None),
    "import_const_of_negative_dim":
        ("Node 'c' (Const): attr 'value': TensorProto shape [2,-3] has a negative dimension",
         SAME, "[2,-3]"),
    "import_const_of_unknown_rank": (None, SAME, None),  # both read the dims and ignore the flag
    "import_const_whose_element_count_overflows":
        ("TensorProto shape [4611686018427387904,8] has too many elements", SAME,
         "[4611686018427387904,8]"),
    "set_attr_value_proto_const_of_negative_dim":
        ("Node 'n' (Const): attr 'value': TensorProto shape [-4] has a negative dimension",
         SAME, None),
    # TensorFlow finds these when it makes the Const kernel (a session run); opgen while
    # the graph is built, the earliest point the node is complete.
    "import_const_dtype_mismatch":
        ("Node 'c' (Const): type mismatch between value (float) and attr 'dtype' (int32)", SAME,
         "mismatch between value (float)"),
    "build_const_dtype_mismatch":
        ("Node 'c' (Const): type mismatch between value (float) and attr 'dtype' (int32)", SAME,
         "mismatch between value (float)"),
    "eager_const_dtype_mismatch":
        ("Const: type mismatch between value (float) and attr 'dtype' (int32)", SAME,
         "mismatch between value (float)"),
}


def test_every_case_has_an_expectation():
    assert set(EXPECTED) == set(malformed_cases.CASES)


@pytest.fixture(scope="module")
def tensorflow_results():
    """{case: (code, message)} from TensorFlow's C library, in its own interpreter."""
    # The child imports the runtime's ctypes bindings from the checkout as well.
    env = tf_env(PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    run = run_tf([HERE / "malformed_cases.py"], env=env, timeout=300)
    return {k: tuple(v) for k, v in json.loads(run.stdout.strip().splitlines()[-1]).items()}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_malformed_shape_or_tensor_attr(api, case):
    code, message = malformed_cases.CASES[case](api)
    fragment = EXPECTED[case][0]
    if fragment is None:
        assert (code, message) == (OK, "")
    else:
        assert code == INVALID_ARGUMENT, message
        assert fragment in message


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_malformed_shape_or_tensor_attr_against_tensorflow(api, tensorflow_results, case):
    _, relation, shared = EXPECTED[case]
    ours, theirs = malformed_cases.CASES[case](api), tensorflow_results[case]
    if relation == STRICTER:
        # TensorFlow's setter reads the dim as unknown: documented here, so that a change
        # on either side shows.
        assert theirs[0] == OK and ours[0] == INVALID_ARGUMENT, (ours, theirs)
        return
    assert ours[0] == theirs[0], (ours, theirs)
    if shared is not None:
        assert shared in ours[1] and shared in theirs[1], (ours, theirs)


def test_tensor_attrs_of_a_valid_graph_still_import(api, graph):
    # The build-time checks read only dtype and shape: a string Const (whose values the
    # runtime does not make) still imports, with its shape known.
    from opgen.protos import graph_pb2
    gd = graph_pb2.GraphDef(node=[malformed_cases._const_node(
        malformed_cases.tensor_proto([2], dtype=7, string_val=[b"a", b"b"]), dtype=7)])
    api.import_graph_def(graph, gd.SerializeToString())
    c = api.lib.TF_GraphOperationByName(graph, b"c")
    assert api.lib.TF_OperationOutputType(out(c)) == 7


# ---- NULL arguments -------------------------------------------------------------------

def _declare(lib, name, restype, argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, argtypes
    return fn


c_void_p, c_int, c_int64, c_char_p, c_size_t = (ctypes.c_void_p, ctypes.c_int, ctypes.c_int64,
                                                ctypes.c_char_p, ctypes.c_size_t)
P = ctypes.POINTER


@pytest.fixture
def call_with_nulls(api, graph):
    """Runs `fn(lib, graph, placeholder, status)` and returns (code, message)."""
    lib = api.lib
    _declare(lib, "TF_SetStatus", None, [c_void_p, c_int, c_char_p])
    p = api.placeholder(graph, "p")

    def call(fn):
        fn(lib, graph, p, api.status)
        return lib.TF_GetCode(api.status), lib.TF_Message(api.status).decode()
    return call


def _new_desc(lib, graph):
    desc = lib.TF_NewOperation(graph, b"Placeholder", b"x")
    lib.TF_SetAttrType(desc, b"dtype", TF_FLOAT)
    return desc


def _then_finish(lib, desc, status):
    """Keeps the status of the call before, and frees the description."""
    code, message = lib.TF_GetCode(status), lib.TF_Message(status)
    other = lib.TF_NewStatus()
    lib.TF_FinishOperation(desc, other)
    lib.TF_DeleteStatus(other)
    lib.TF_SetStatus(status, code, message)


NULL_CALLS = {
    "TF_FinishOperation(desc)": (lambda lib, g, p, s: lib.TF_FinishOperation(None, s), "'desc'"),
    "TF_FinishOperation(graph)": (
        lambda lib, g, p, s: lib.TF_FinishOperation(lib.TF_NewOperation(None, b"NoOp", b"n"), s),
        "TF_NewOperation: argument 'graph'"),
    "TF_SetAttrValueProto(attr_name)": (
        lambda lib, g, p, s: (lambda d: (lib.TF_SetAttrValueProto(d, None, b"", 0, s),
                                         _then_finish(lib, d, s)))(_new_desc(lib, g)),
        "'attr_name'"),
    "TF_SetAttrValueProto(proto)": (
        lambda lib, g, p, s: (lambda d: (lib.TF_SetAttrValueProto(d, b"shape", None, 4, s),
                                         _then_finish(lib, d, s)))(_new_desc(lib, g)),
        "'proto'"),
    "TF_SetAttrTensor(value)": (
        lambda lib, g, p, s: (lambda d: (lib.TF_SetAttrTensor(d, b"value", None, s),
                                         _then_finish(lib, d, s)))(_new_desc(lib, g)),
        "TF_SetAttrTensor: argument 'value' is NULL"),
    "TF_SetAttrTensorShapeProto(proto)": (
        lambda lib, g, p, s: (lambda d: (lib.TF_SetAttrTensorShapeProto(d, b"shape", None, 3, s),
                                         _then_finish(lib, d, s)))(_new_desc(lib, g)),
        "Unparseable TensorShapeProto for attr 'shape': proto is NULL"),
    "TF_SetAttrShape(dims)": (
        lambda lib, g, p, s: (lambda d: (lib.TF_SetAttrShape(d, b"shape", None, 2),
                                         lib.TF_FinishOperation(d, s)))(_new_desc(lib, g)),
        "attr 'shape': dims is NULL for a shape of rank 2"),
    "TF_OperationGetAttrInt(oper)": (
        lambda lib, g, p, s: lib.TF_OperationGetAttrInt(None, b"x", ctypes.byref(c_int64()), s),
        "TF_OperationGetAttrInt: argument 'oper' is NULL"),
    "TF_OperationGetAttrType(attr_name)": (
        lambda lib, g, p, s: lib.TF_OperationGetAttrType(p, None, ctypes.byref(c_int()), s),
        "TF_OperationGetAttrType: argument 'attr_name' is NULL"),
    "TF_OperationGetAttrType(value)": (
        lambda lib, g, p, s: lib.TF_OperationGetAttrType(p, b"dtype", None, s),
        "TF_OperationGetAttrType: argument 'value' is NULL"),
    "TF_OperationGetAttrValueProto(buffer)": (
        lambda lib, g, p, s: lib.TF_OperationGetAttrValueProto(p, b"dtype", None, s),
        "argument 'value' is NULL"),
    "TF_OperationGetAttrMetadata(oper)": (
        lambda lib, g, p, s: lib.TF_OperationGetAttrMetadata(None, b"dtype", s),
        "TF_OperationGetAttrMetadata: argument 'oper' is NULL"),
    "TF_OperationToNodeDef(buffer)": (
        lambda lib, g, p, s: lib.TF_OperationToNodeDef(p, None, s), "'output_node_def'"),
    "TF_OperationOutputListLength(oper)": (
        lambda lib, g, p, s: lib.TF_OperationOutputListLength(None, b"output", s), "'oper'"),
    "TF_GraphGetTensorNumDims(graph)": (
        lambda lib, g, p, s: lib.TF_GraphGetTensorNumDims(None, out(p), s),
        "TF_GraphGetTensorNumDims: argument 'graph' is NULL"),
    "TF_GraphGetTensorShape(dims)": (
        lambda lib, g, p, s: (lib.TF_GraphSetTensorShape(g, out(p), (c_int64 * 1)(3), 1, s),
                              lib.TF_GraphGetTensorShape(g, out(p), None, 1, s)),
        "TF_GraphGetTensorShape: argument 'dims' is NULL"),
    "TF_GraphSetTensorShape(dims)": (
        lambda lib, g, p, s: lib.TF_GraphSetTensorShape(g, out(p), None, 2, s),
        "dims is NULL for a shape of rank 2"),
    "TF_GraphToGraphDef(graph)": (
        lambda lib, g, p, s: lib.TF_GraphToGraphDef(None, lib.TF_NewBuffer(), s), "'graph'"),
    "TF_GraphGetOpDef(buffer)": (
        lambda lib, g, p, s: lib.TF_GraphGetOpDef(g, b"Placeholder", None, s), "'output_op_def'"),
    "TF_GraphImportGraphDef(graph_def)": (
        lambda lib, g, p, s: lib.TF_GraphImportGraphDef(g, None, None, s),
        "TF_GraphImportGraphDef: argument 'graph_def' is NULL"),
    "TF_GraphImportGraphDef(graph)": (
        lambda lib, g, p, s: lib.TF_GraphImportGraphDef(None, lib.TF_NewBufferFromString(b"", 0),
                                                        None, s),
        "argument 'graph' is NULL"),
    "TF_CloseSession(session)": (lambda lib, g, p, s: lib.TF_CloseSession(None, s), "'session'"),
    "TF_SessionRun(session)": (
        lambda lib, g, p, s: lib.TF_SessionRun(None, None, None, None, 0, None, None, 0, None, 0,
                                               None, s),
        "TF_SessionRun: argument 'session' is NULL"),
    "TF_SetConfig(options)": (
        lambda lib, g, p, s: lib.TF_SetConfig(None, b"", 0, s), "TF_SetConfig: argument 'options'"),
}


@pytest.mark.parametrize("name", sorted(NULL_CALLS))
def test_null_argument_is_invalid_argument(call_with_nulls, name):
    fn, fragment = NULL_CALLS[name]
    code, message = call_with_nulls(fn)
    assert code == INVALID_ARGUMENT, message
    assert fragment in message


def test_session_run_with_null_arrays_of_no_elements_still_runs(api, graph):
    # NULL is fine for an array of zero elements: a run with no feeds, fetches or targets.
    sess = api.session(graph)
    api.lib.TF_SessionRun(sess, None, None, None, 0, None, None, 0, None, 0, None, api.status)
    api.check()
    api.lib.TF_DeleteSession(sess, api.status)


@pytest.fixture
def eager_api(api):
    lib = api.lib
    for name, restype, argtypes in [
            ("TFE_NewContextOptions", c_void_p, []), ("TFE_DeleteContextOptions", None, [c_void_p]),
            ("TFE_NewContext", c_void_p, [c_void_p, c_void_p]), ("TFE_DeleteContext", None, [c_void_p]),
            ("TFE_NewOp", c_void_p, [c_void_p, c_char_p, c_void_p]), ("TFE_DeleteOp", None, [c_void_p]),
            ("TFE_OpAddInput", None, [c_void_p, c_void_p, c_void_p]),
            ("TFE_OpAddInputList", None, [c_void_p, P(c_void_p), c_int, c_void_p]),
            ("TFE_OpSetAttrTensor", None, [c_void_p, c_char_p, c_void_p, c_void_p]),
            ("TFE_OpSetAttrShape", None, [c_void_p, c_char_p, P(c_int64), c_int, c_void_p]),
            ("TFE_OpGetName", c_char_p, [c_void_p, c_void_p]),
            ("TFE_TensorHandleNumDims", c_int, [c_void_p, c_void_p]),
            ("TFE_TensorHandleResolve", c_void_p, [c_void_p, c_void_p]),
            ("TFE_Execute", None, [c_void_p, P(c_void_p), P(c_int), c_void_p])]:
        _declare(lib, name, restype, argtypes)
    opts = lib.TFE_NewContextOptions()
    ctx = lib.TFE_NewContext(opts, api.status)
    lib.TFE_DeleteContextOptions(opts)
    op = lib.TFE_NewOp(ctx, b"Identity", api.status)
    yield lib, ctx, op
    lib.TFE_DeleteOp(op)
    lib.TFE_DeleteContext(ctx)


EAGER_NULL_CALLS = {
    "TFE_NewOp(name)": (lambda lib, ctx, op, s: lib.TFE_NewOp(ctx, None, s),
                        "TFE_NewOp: argument 'op_or_function_name' is NULL"),
    "TFE_NewOp(ctx)": (lambda lib, ctx, op, s: lib.TFE_NewOp(None, b"Identity", s),
                       "TFE_NewOp: argument 'ctx' is NULL"),
    "TFE_OpGetName(op)": (lambda lib, ctx, op, s: lib.TFE_OpGetName(None, s), "'op'"),
    "TFE_OpAddInput(op)": (lambda lib, ctx, op, s: lib.TFE_OpAddInput(None, None, s), "'op'"),
    "TFE_OpAddInputList(inputs)": (
        lambda lib, ctx, op, s: lib.TFE_OpAddInputList(op, None, 2, s), "'inputs'"),
    "TFE_OpSetAttrTensor(tensor)": (
        lambda lib, ctx, op, s: lib.TFE_OpSetAttrTensor(op, b"value", None, s), "'tensor'"),
    "TFE_OpSetAttrShape(dims)": (
        lambda lib, ctx, op, s: lib.TFE_OpSetAttrShape(op, b"shape", None, 3, s),
        "dims is NULL for a shape of rank 3"),
    "TFE_TensorHandleNumDims(h)": (
        lambda lib, ctx, op, s: lib.TFE_TensorHandleNumDims(None, s), "'h'"),
    "TFE_TensorHandleResolve(h)": (
        lambda lib, ctx, op, s: lib.TFE_TensorHandleResolve(None, s), "'h'"),
    "TFE_Execute(op)": (
        lambda lib, ctx, op, s: lib.TFE_Execute(None, (c_void_p * 1)(), ctypes.byref(c_int(1)), s),
        "TFE_Execute: argument 'op' is NULL"),
    "TFE_Execute(num_retvals)": (
        lambda lib, ctx, op, s: lib.TFE_Execute(op, (c_void_p * 1)(), None, s), "'num_retvals'"),
    "TFE_Execute(retvals)": (
        lambda lib, ctx, op, s: lib.TFE_Execute(op, None, ctypes.byref(c_int(1)), s), "'retvals'"),
}


@pytest.mark.parametrize("name", sorted(EAGER_NULL_CALLS))
def test_eager_null_argument_is_invalid_argument(api, eager_api, name):
    lib, ctx, op = eager_api
    fn, fragment = EAGER_NULL_CALLS[name]
    result = fn(lib, ctx, op, api.status)
    assert not isinstance(result, int) or result in (-1, 0)
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT
    assert fragment in lib.TF_Message(api.status).decode()


def test_valid_calls_still_succeed_after_the_null_checks(api, graph):
    # An attr getter with no room (max_values 0, values NULL) and a shape getter of a
    # scalar (dims NULL, num_dims 0) are valid calls.
    lib = api.lib
    c = api.const(graph, "c", np.float32(1))
    lib.TF_OperationGetAttrIntList(c, b"dtype", None, 0, api.status)
    assert lib.TF_GetCode(api.status) == INVALID_ARGUMENT  # dtype is not a list(int)...
    assert b"is not a list(int)" in lib.TF_Message(api.status)  # ...and that is the error
    lib.TF_GraphGetTensorShape(graph, out(c), None, 0, api.status)
    api.check()
    buf = lib.TF_NewBuffer()
    lib.TF_OperationGetAttrValueProto(c, b"dtype", buf, api.status)
    lib.TF_DeleteBuffer(buf)
    api.check()


@pytest.mark.parametrize("name", [
    "TF_DeleteGraph", "TF_DeleteTensor", "TF_DeleteBuffer", "TF_DeleteStatus",
    "TF_DeleteSessionOptions", "TF_DeleteImportGraphDefOptions",
    "TF_DeleteImportGraphDefResults", "TF_DeleteLibraryHandle", "TFE_DeleteOp",
    "TFE_DeleteTensorHandle", "TFE_DeleteContext", "TFE_DeleteContextOptions",
    "TF_DeleteDeviceList", "TF_DeleteKernelBuilder", "TF_DeleteOpDefinitionBuilder"])
def test_delete_functions_accept_null(runtime_cdll, name):
    _declare(runtime_cdll, name, None, [c_void_p])(None)


def test_delete_session_accepts_null(api):
    api.lib.TF_DeleteSession(None, api.status)
    api.check()
