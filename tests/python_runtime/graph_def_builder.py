"""GraphDefs written node by node, for tests of TensorFlow's v1 control flow (Switch,
Merge, Enter, Exit, NextIteration, LoopCond) and TensorLists: a while loop needs a
back edge (NextIteration -> Merge) that graph-building APIs cannot make before the
NextIteration exists, while a GraphDef simply names it. ``while_loop`` lays a loop out
the way TensorFlow's tf.while_loop (v1) and its While lowering do."""

from __future__ import annotations

import numpy as np

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, tensor_pb2, types_pb2

_DTYPES = {np.dtype(np.float32): types_pb2.DT_FLOAT, np.dtype(np.int32): types_pb2.DT_INT32,
           np.dtype(np.bool_): types_pb2.DT_BOOL, np.dtype(np.int64): types_pb2.DT_INT64}
F32, I32, BOOL, I64 = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_BOOL, types_pb2.DT_INT64
VARIANT = types_pb2.DT_VARIANT


def _attr(value) -> attr_value_pb2.AttrValue:
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    if isinstance(value, bool):
        return attr_value_pb2.AttrValue(b=value)
    if isinstance(value, int):
        return attr_value_pb2.AttrValue(i=value)
    if isinstance(value, str):
        return attr_value_pb2.AttrValue(s=value.encode())
    raise TypeError(value)


def dtype_attr(dtype) -> attr_value_pb2.AttrValue:
    return attr_value_pb2.AttrValue(type=dtype)


class GraphDefBuilder:
    def __init__(self):
        self.graph_def = graph_pb2.GraphDef()
        self.graph_def.versions.producer = 2474

    def node(self, name: str, op: str, inputs=(), **attrs) -> str:
        n = self.graph_def.node.add(name=name, op=op, input=list(inputs))
        for key, value in attrs.items():
            n.attr[key].CopyFrom(_attr(value))
        return name

    def const(self, name: str, value, dtype=None) -> str:
        array = np.asarray(value, dtype=dtype)
        proto = tensor_pb2.TensorProto(dtype=_DTYPES[array.dtype])
        proto.tensor_shape.dim.extend(proto.tensor_shape.Dim(size=d) for d in array.shape)
        proto.tensor_content = array.tobytes()
        return self.node(name, "Const", value=attr_value_pb2.AttrValue(tensor=proto),
                         dtype=dtype_attr(proto.dtype))

    def placeholder(self, name: str, dtype) -> str:
        return self.node(name, "Placeholder", dtype=dtype_attr(dtype))

    def unary(self, name, op, x, dtype, **attrs) -> str:
        return self.node(name, op, [x], T=dtype_attr(dtype), **attrs)

    def binary(self, name, op, x, y, dtype) -> str:
        return self.node(name, op, [x, y], T=dtype_attr(dtype))

    def while_loop(self, frame: str, loop_vars, cond, body, invariants=(), parallel_iterations=10):
        """A v1 while loop in frame `frame`.

        loop_vars: [(tensor, dtype)]; invariants: [(tensor, dtype)] entered as constants;
        cond(b, vars, invs) -> a bool tensor; body(b, vars, invs) -> new vars. Returns
        the Exit tensors, one per loop var."""
        p = frame + "/"
        enters = [self.node(f"{p}enter_{i}", "Enter", [t], T=dtype_attr(d), frame_name=frame,
                            is_constant=False, parallel_iterations=parallel_iterations)
                  for i, (t, d) in enumerate(loop_vars)]
        invs = [self.node(f"{p}inv_{i}", "Enter", [t], T=dtype_attr(d), frame_name=frame,
                          is_constant=True, parallel_iterations=parallel_iterations)
                for i, (t, d) in enumerate(invariants)]
        merges = [self.node(f"{p}merge_{i}", "Merge", [e, f"{p}next_{i}"], T=dtype_attr(d), N=2)
                  for i, (e, (_, d)) in enumerate(zip(enters, loop_vars))]
        pred = cond(self, merges, invs)
        loop_cond = self.node(f"{p}loop_cond", "LoopCond", [pred])
        switches = [self.node(f"{p}switch_{i}", "Switch", [m, loop_cond], T=dtype_attr(d))
                    for i, (m, (_, d)) in enumerate(zip(merges, loop_vars))]
        exits = [self.node(f"{p}exit_{i}", "Exit", [s], T=dtype_attr(d))
                 for i, (s, (_, d)) in enumerate(zip(switches, loop_vars))]
        current = [self.node(f"{p}body_in_{i}", "Identity", [f"{s}:1"], T=dtype_attr(d))
                   for i, (s, (_, d)) in enumerate(zip(switches, loop_vars))]
        new = body(self, current, invs)
        for i, (t, (_, d)) in enumerate(zip(new, loop_vars)):
            self.node(f"{p}next_{i}", "NextIteration", [t], T=dtype_attr(d))
        return exits

    def import_into(self, graph=None) -> opgen.Graph:
        graph = graph or opgen.Graph()
        with graph.as_default():
            opgen.import_graph_def(self.graph_def, name="")
        return graph


def run(builder: GraphDefBuilder, fetches, feeds=None):
    graph = builder.import_into()
    with opgen.Session(graph=graph) as session:
        return session.run(fetches, feeds or {})
