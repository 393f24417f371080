"""Each built-in op's OpDef equals TensorFlow 2.21's OpDef of the same name (docs
aside), so graphs written by TensorFlow import and the generated signatures agree."""

from __future__ import annotations

import pytest
from google.protobuf import text_format

from opgen.protos import op_def_pb2


def _without_docs(op: op_def_pb2.OpDef) -> op_def_pb2.OpDef:
    """The OpDef without docs, and without `experimental_full_type`, which TensorFlow's
    C++ registry sets (e.g. on Shape's output) but its C op-definition API cannot express."""
    op = op_def_pb2.OpDef.FromString(op.SerializeToString())
    op.ClearField("summary")
    op.ClearField("description")
    for arg in list(op.input_arg) + list(op.output_arg):
        arg.ClearField("description")
        arg.ClearField("experimental_full_type")
    for attr in op.attr:
        attr.ClearField("description")
    return op


@pytest.fixture(scope="module")
def builtin_ops():
    from opgen.runtime import _lib
    try:
        data = _lib.all_op_list_bytes()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")
    # Tests elsewhere register ops named OpgenTest*/OpgenSpecTest*, or load plugins
    # (tests/plugins); those are not built-ins. Nor are the runtime's internal _Opgen*
    # ops (the graph optimizer's fused kernels), which no TensorFlow graph holds.
    from opgen.runtime import op_library
    plugin_ops = op_library.loaded_op_names()
    return [op for op in op_def_pb2.OpList.FromString(data).op
            if not op.name.startswith(("Opgen", "_Opgen")) and op.name not in plugin_ops]


@pytest.fixture(scope="module")
def tensorflow_ops(tf_ops_text_path):
    oplist = text_format.Parse(tf_ops_text_path.read_text(), op_def_pb2.OpList())
    return {op.name: op for op in oplist.op}


def test_every_builtin_op_equals_tensorflows(builtin_ops, tensorflow_ops):
    assert builtin_ops, "the runtime registered no ops"
    for op in builtin_ops:
        assert op.name in tensorflow_ops, f"{op.name} is not a TensorFlow op"
        assert _without_docs(op) == _without_docs(tensorflow_ops[op.name]), (
            f"{op.name} differs from TensorFlow 2.21:\n{_without_docs(op)}\nvs\n"
            f"{_without_docs(tensorflow_ops[op.name])}")


def test_every_builtin_op_is_documented(builtin_ops):
    for op in builtin_ops:
        assert op.summary, f"{op.name} has no summary"
        for arg in list(op.input_arg) + list(op.output_arg):
            assert arg.description, f"{op.name}: {arg.name} is undocumented"


def test_issue_2_ops_are_all_there(builtin_ops):
    names = {op.name for op in builtin_ops}
    assert {"Identity", "AddV2", "Sub", "Mul", "RealDiv", "Neg", "Relu", "MatMul", "Cast"} <= names
