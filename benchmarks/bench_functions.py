"""Function-call and functional-loop overhead: opgen's session against itself and
TensorFlow.

1. A 10-op function (elementwise on a float32[16]) called through PartitionedCall against
   the same 10 ops inlined in the graph: the ratio call/inlined (issue 23 asks <= 2).
2. A While of 1,000 scalar iterations (i < 1000: i + 1, acc * 0.999 + 1), the same
   GraphDef run by opgen.Session and by TensorFlow's tf.compat.v1.Session (in a child
   process with $OPGEN_TF_PYTHON): the ratio TF/opgen (issue 23 asks >= 1).

Each figure is the median of --repeats timed runs after a warm-up. Unset
OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for the run.

    python benchmarks/bench_functions.py [--repeats 200]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import opgen
from opgen.protos import graph_pb2, types_pb2

F, I32, BOOL = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_BOOL


def _node(container, name, op, inputs=(), **attrs):
    n = container.add(name=name, op=op)
    n.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, (np.ndarray, np.generic)):
            value = np.asarray(value)
            n.attr[key].tensor.dtype = F if value.dtype == np.float32 else I32
            for d in value.shape:
                n.attr[key].tensor.tensor_shape.dim.add(size=d)
            n.attr[key].tensor.tensor_content = value.tobytes()
        elif isinstance(value, list):
            n.attr[key].list.type.extend(value)
        elif isinstance(value, str):
            n.attr[key].func.name = value
        else:
            n.attr[key].type = value
    return n


def _ten_ops(container, x, ref):
    """Ten elementwise ops on `x`; `ref(node, out_arg)` names an output."""
    prev = x
    for k in range(5):
        _node(container, f"c{k}", "Const", value=np.float32(1.0 + 0.1 * k), dtype=F)
        _node(container, f"m{k}", "Mul", [prev, ref(f"c{k}", "output")], T=F)
        _node(container, f"a{k}", "AddV2", [ref(f"m{k}", "z"), ref(f"c{k}", "output")], T=F)
        prev = ref(f"a{k}", "z")
    return prev


def call_graphs():
    called = graph_pb2.GraphDef()
    _node(called.node, "x", "Placeholder", dtype=F)
    f = called.library.function.add()
    f.signature.name = "ten_ops"
    f.signature.input_arg.add(name="v", type=F)
    f.signature.output_arg.add(name="y", type=F)
    f.ret["y"] = _ten_ops(f.node_def, "v", lambda n, a: f"{n}:{a}:0")
    _node(called.node, "out", "PartitionedCall", ["x"], Tin=[F], Tout=[F], f="ten_ops")
    inlined = graph_pb2.GraphDef()
    _node(inlined.node, "x", "Placeholder", dtype=F)
    last = _ten_ops(inlined.node, "x", lambda n, a: n)
    _node(inlined.node, "out", "Identity", [last], T=F)
    return called, inlined


def loop_graph():
    gd = graph_pb2.GraphDef()
    _node(gd.node, "i0", "Placeholder", dtype=I32)
    _node(gd.node, "acc0", "Placeholder", dtype=F)
    c = gd.library.function.add()
    c.signature.name = "cond"
    c.signature.input_arg.add(name="i", type=I32)
    c.signature.input_arg.add(name="acc", type=F)
    c.signature.output_arg.add(name="more", type=BOOL)
    _node(c.node_def, "n", "Const", value=np.int32(1000), dtype=I32)
    _node(c.node_def, "less", "Less", ["i", "n:output:0"], T=I32)
    c.ret["more"] = "less:z:0"
    b = gd.library.function.add()
    b.signature.name = "body"
    for name, t in (("i", I32), ("acc", F)):
        b.signature.input_arg.add(name=name, type=t)
        b.signature.output_arg.add(name=name + "_next", type=t)
    _node(b.node_def, "one", "Const", value=np.int32(1), dtype=I32)
    _node(b.node_def, "inext", "AddV2", ["i", "one:output:0"], T=I32)
    _node(b.node_def, "k", "Const", value=np.float32(0.999), dtype=F)
    _node(b.node_def, "m", "Mul", ["acc", "k:output:0"], T=F)
    _node(b.node_def, "fone", "Const", value=np.float32(1), dtype=F)
    _node(b.node_def, "anext", "AddV2", ["m:z:0", "fone:output:0"], T=F)
    b.ret["i_next"] = "inext:z:0"
    b.ret["acc_next"] = "anext:z:0"
    _node(gd.node, "loop", "While", ["i0", "acc0"], T=[I32, F], cond="cond", body="body")
    return gd


def time_opgen(gd, fetch, feeds, repeats):
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(gd, name="")
    with opgen.Session(graph=graph) as s:
        result = s.run(fetch, feeds)
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            s.run(fetch, feeds)
            times.append(time.perf_counter() - t0)
    return statistics.median(times), result


TF_SCRIPT = r"""
import json, statistics, sys, time
import numpy as np
import tensorflow as tf
gd = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
repeats = int(sys.argv[2])
g = tf.Graph()
with g.as_default():
    tf.compat.v1.import_graph_def(gd, name="")
with tf.compat.v1.Session(graph=g) as s:
    feeds = {"i0:0": np.int32(0), "acc0:0": np.float32(0)}
    out = s.run("loop:1", feeds)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter(); s.run("loop:1", feeds); times.append(time.perf_counter() - t0)
print(json.dumps({"median": statistics.median(times), "out": float(out)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores")
    x = np.linspace(-1, 1, 16).astype(np.float32)
    called, inlined = call_graphs()
    t_call, y_call = time_opgen(called, "out:0", {"x:0": x}, args.repeats)
    t_inl, y_inl = time_opgen(inlined, "out:0", {"x:0": x}, args.repeats)
    np.testing.assert_allclose(y_call, y_inl, rtol=1e-6)
    print(f"10-op function: PartitionedCall {t_call * 1e6:.1f} us, inlined {t_inl * 1e6:.1f} us, "
          f"ratio call/inlined {t_call / t_inl:.2f}")
    gd = loop_graph()
    loops = max(args.repeats // 10, 5)
    t_loop, acc = time_opgen(gd, "loop:1", {"i0:0": np.int32(0), "acc0:0": np.float32(0)}, loops)
    print(f"While x1000: opgen {t_loop * 1e3:.2f} ms (acc {float(acc):.4f})")
    python = os.environ.get("OPGEN_TF_PYTHON")
    if python and os.path.exists(python):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "loop.pb")
            with open(path, "wb") as fh:
                fh.write(gd.SerializeToString())
            out = subprocess.run([python, "-c", TF_SCRIPT, path, str(loops)], cwd=tmp,
                                 capture_output=True, text=True, check=True).stdout
        tf = json.loads(out.strip().splitlines()[-1])
        assert abs(tf["out"] - float(acc)) < 1e-3 * abs(tf["out"]), (tf["out"], float(acc))
        print(f"While x1000: TensorFlow {tf['median'] * 1e3:.2f} ms, ratio TF/opgen "
              f"{tf['median'] / t_loop:.2f}")
    else:
        print("TensorFlow ($OPGEN_TF_PYTHON) not available: no TF figure", file=sys.stderr)


if __name__ == "__main__":
    main()
