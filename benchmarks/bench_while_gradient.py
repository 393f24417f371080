"""The gradient of a long While loop: how its time grows with the iteration count.

A While of n iterations on float32[3] vectors (acc <- acc * x + 0.001 * sin(acc), with x
near 1) differentiated with opgen.gradients with respect to acc0 and x. The gradient
rewrites the forward While to keep each iteration's variables in TensorLists
(TensorListSetItem per iteration); the loop back walks through them. With a list updated
in place the time is linear in n; a list copied on every set makes it grow as n squared.
Reports, per n, the median of --repeats session runs of the gradient (which runs the
forward loop once, keeping the lists, then the loop back), the forward loop alone (a plan
that reads no list runs the plain loop), their ratio, and the loss fetched with the
gradient in one run (the same single forward loop), and checks the gradient
against the same loop's gradient computed in numpy (forward-mode, float64).

Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for the run:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_while_gradient.py \
        [--iterations 1000 5000 20000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np

import opgen
from opgen.protos import attr_value_pb2, graph_pb2, types_pb2

F, I32, BOOL = types_pb2.DT_FLOAT, types_pb2.DT_INT32, types_pb2.DT_BOOL
SCALE = 0.001


def _node(container, name, op, inputs=(), **attrs):
    n = container.add(name=name, op=op)
    n.input.extend(inputs)
    for key, value in attrs.items():
        if isinstance(value, np.ndarray):
            n.attr[key].tensor.dtype = F if value.dtype == np.float32 else I32
            for d in value.shape:
                n.attr[key].tensor.tensor_shape.dim.add(size=d)
            n.attr[key].tensor.tensor_content = value.tobytes()
        elif isinstance(value, list):
            n.attr[key].list.type.extend(value)
        elif isinstance(value, str):
            n.attr[key].CopyFrom(attr_value_pb2.AttrValue(
                func=attr_value_pb2.NameAttrList(name=value)))
        else:
            n.attr[key].type = value
    return n


def loop_graph() -> graph_pb2.GraphDef:
    """Placeholders acc0, x (float32[3]) and n (int32); loop:1 is acc after n steps."""
    gd = graph_pb2.GraphDef()
    _node(gd.node, "acc0", "Placeholder", dtype=F)
    _node(gd.node, "x", "Placeholder", dtype=F)
    _node(gd.node, "n", "Placeholder", dtype=I32)
    _node(gd.node, "zero", "Const", value=np.array(0, np.int32), dtype=I32)
    loop_vars = [("i", I32), ("acc", F), ("x", F), ("n", I32)]
    c = gd.library.function.add()
    c.signature.name = "cond"
    for name, t in loop_vars:
        c.signature.input_arg.add(name=name, type=t)
    c.signature.output_arg.add(name="more", type=BOOL)
    _node(c.node_def, "less", "Less", ["i", "n"], T=I32)
    c.ret["more"] = "less:z:0"
    b = gd.library.function.add()
    b.signature.name = "body"
    for name, t in loop_vars:
        b.signature.input_arg.add(name=name, type=t)
        b.signature.output_arg.add(name=name + "_next", type=t)
    _node(b.node_def, "one", "Const", value=np.array(1, np.int32), dtype=I32)
    _node(b.node_def, "inext", "AddV2", ["i", "one:output:0"], T=I32)
    _node(b.node_def, "ax", "Mul", ["acc", "x"], T=F)
    _node(b.node_def, "s", "Sin", ["acc"], T=F)
    _node(b.node_def, "k", "Const", value=np.array(SCALE, np.float32), dtype=F)
    _node(b.node_def, "ks", "Mul", ["s:y:0", "k:output:0"], T=F)
    _node(b.node_def, "anext", "AddV2", ["ax:z:0", "ks:z:0"], T=F)
    b.ret.update({"i_next": "inext:z:0", "acc_next": "anext:z:0", "x_next": "x", "n_next": "n"})
    _node(gd.node, "loop", "While", ["zero", "acc0", "x", "n"], T=[I32, F, F, I32],
          cond="cond", body="body")
    return gd


def numpy_gradient(acc0, x, n):
    """d sum(acc_n) / d acc0 and / d x, carried forward in float64 (elementwise loop)."""
    acc, x = acc0.astype(np.float64), x.astype(np.float64)
    d_acc0, d_x = np.ones_like(acc), np.zeros_like(acc)
    for _ in range(n):
        local = x + SCALE * np.cos(acc)  # d acc_next / d acc
        d_acc0, d_x = local * d_acc0, local * d_x + acc
        acc = acc * x + SCALE * np.sin(acc)
    return d_acc0, d_x


def median_time(session, fetch, feeds, repeats):
    result = session.run(fetch, feeds)  # warm-up: plans, kernels, instantiated functions
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        session.run(fetch, feeds)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores")
    g = opgen.Graph()
    with g.as_default():
        (out,) = opgen.import_graph_def(loop_graph(), name="", return_elements=["loop:1"])
        acc0, x, n = (g.get_tensor_by_name(f"{name}:0") for name in ("acc0", "x", "n"))
        grads = opgen.gradients([out], [acc0, x])
    a0 = np.float32([0.5, -0.25, 1.0])
    xv = np.float32([0.9999, 1.0, 0.9998])
    with opgen.Session(graph=g) as session:
        for iterations in args.iterations:
            feeds = {acc0: a0, x: xv, n: np.int32(iterations)}
            t_fwd, _ = median_time(session, out, feeds, args.repeats)
            t_grad, got = median_time(session, grads, feeds, args.repeats)
            t_both, _ = median_time(session, [out, *grads], feeds, args.repeats)
            want = numpy_gradient(a0, xv, iterations)
            for g_got, g_want in zip(got, want):
                np.testing.assert_allclose(g_got, g_want, rtol=2e-3)
            print(f"While x{iterations}: gradient {t_grad * 1e3:.1f} ms, forward "
                  f"{t_fwd * 1e3:.2f} ms, ratio gradient/forward {t_grad / t_fwd:.1f}, "
                  f"gradient per iteration {t_grad / iterations * 1e6:.2f} us; loss and "
                  f"gradient in one run {t_both * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
