"""Const values given in TensorProto's typed fields (not tensor_content), as TensorFlow
writes small tensors, read by the runtime's own TensorProto decoder for every integer
dtype, the unsigned ones included (uint32_val = 16, uint64_val = 17)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2, tensor_pb2, types_pb2

CASES = [
    (types_pb2.DT_INT32, "int_val", np.int32, [-3, 0, 7]),
    (types_pb2.DT_INT64, "int64_val", np.int64, [-(2**40), 1, 2**62]),
    (types_pb2.DT_UINT32, "uint32_val", np.uint32, [0, 7, 2**32 - 1]),
    (types_pb2.DT_UINT64, "uint64_val", np.uint64, [0, 2**63 + 5, 2**64 - 1]),
    (types_pb2.DT_UINT16, "int_val", np.uint16, [0, 1, 65535]),
]


@pytest.mark.parametrize("dtype, field, np_dtype, vals", CASES,
                         ids=[c[2].__name__ for c in CASES])
@pytest.mark.parametrize("shape", [(3,), (3, 0)])
def test_typed_values_decode(dtype, field, np_dtype, vals, shape):
    proto = tensor_pb2.TensorProto(dtype=dtype)
    for d in shape:
        proto.tensor_shape.dim.add(size=d)
    if 0 not in shape:
        getattr(proto, field).extend(vals)
    graph_def = graph_pb2.GraphDef()
    node = graph_def.node.add(name="c", op="Const")
    node.attr["dtype"].type = dtype
    node.attr["value"].tensor.CopyFrom(proto)
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(graph=g) as sess:
        got = sess.run("c:0")
    want = np.array(vals, np_dtype) if 0 not in shape else np.zeros(shape, np_dtype)
    assert got.dtype == np_dtype
    np.testing.assert_array_equal(got, want)
