"""What shape inference adds to graph building: TF_FinishOperation of nodes whose op has a
shape function, against the same node shape for an op registered without one, in the
same process.

    python benchmarks/bench_shape_inference.py [--repeats 7] [--nodes 2000]

Each case builds a fresh graph holding a chain of `--nodes` nodes through the C API
(ctypes) and reports the median time per node. The reference op is registered here with
the same signature as the built-in one but no shape function, so its nodes get unknown
shapes; the ratio is reference/opgen (1.0 means shape inference costs nothing
measurable; below 1.0 is its share of TF_FinishOperation).
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "runtime"))
from graph_capi import TF_FLOAT, Api, out  # noqa: E402

# name -> (built-in op, input specs, attrs specs, output spec)
REFERENCE_OPS = {
    "OpgenBenchAddV2NoShapeFn": ("AddV2", ["x: T", "y: T"], ["T: {float}"], "z: T"),
    "OpgenBenchReshapeNoShapeFn": ("Reshape", ["tensor: T", "shape: Tshape"],
                                   ["T: type", "Tshape: {int32, int64} = DT_INT32"], "output: T"),
    "OpgenBenchMatMulNoShapeFn": ("MatMul", ["a: T", "b: T"],
                                  ["transpose_a: bool = false", "transpose_b: bool = false",
                                   "T: {float}"], "product: T"),
}


def load_api() -> Api:
    from opgen import _paths
    from opgen.runtime import _lib
    _lib._preload_openblas()
    api = Api(ctypes.CDLL(str(_paths.runtime_library_path())))
    lib = api.lib
    lib.TF_NewOpDefinitionBuilder.restype = ctypes.c_void_p
    lib.TF_NewOpDefinitionBuilder.argtypes = [ctypes.c_char_p]
    for name in ("AddAttr", "AddInput", "AddOutput"):
        getattr(lib, f"TF_OpDefinitionBuilder{name}").argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.TF_RegisterOpDefinition.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    for name, (_, inputs, attrs, output) in REFERENCE_OPS.items():
        b = lib.TF_NewOpDefinitionBuilder(name.encode())
        for spec in attrs:
            lib.TF_OpDefinitionBuilderAddAttr(b, spec.encode())
        for spec in inputs:
            lib.TF_OpDefinitionBuilderAddInput(b, spec.encode())
        lib.TF_OpDefinitionBuilderAddOutput(b, output.encode())
        lib.TF_RegisterOpDefinition(b, api.status)
        api.check()
    return api


def build_chain(api: Api, op: str, nodes: int) -> None:
    """A graph of `nodes` nodes of `op`, each fed by the one before."""
    lib = api.lib
    graph = lib.TF_NewGraph()
    try:
        if op.startswith("Reshape") or op.startswith("OpgenBenchReshape"):
            shapes = [api.const(graph, "s0", np.array([64, 32], np.int32)),
                      api.const(graph, "s1", np.array([-1, 64], np.int32))]
            node = api.placeholder(graph, "x", TF_FLOAT, [32, 64])
            for i in range(nodes):
                node = api.op(graph, op, f"n{i}", [out(node), out(shapes[i % 2])])
        elif op.startswith("MatMul") or op.startswith("OpgenBenchMatMul"):
            node = api.placeholder(graph, "x", TF_FLOAT, [16, 64])
            w = api.placeholder(graph, "w", TF_FLOAT, [64, 64])
            for i in range(nodes):
                node = api.op(graph, op, f"n{i}", [out(node), out(w)])
        else:
            node = api.placeholder(graph, "x", TF_FLOAT, [16, 64])
            y = api.placeholder(graph, "y", TF_FLOAT, [64])
            for i in range(nodes):
                node = api.op(graph, op, f"n{i}", [out(node), out(y)])
    finally:
        lib.TF_DeleteGraph(graph)


def median_per_node(api: Api, op: str, nodes: int, repeats: int) -> float:
    build_chain(api, op, nodes // 10)  # warm up
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        build_chain(api, op, nodes)
        samples.append((time.perf_counter() - start) / nodes)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--nodes", type=int, default=2000)
    args = parser.parse_args()
    api = load_api()
    print(f"{'case':40} {'with shape fn':>14} {'without':>10} {'without/with':>13}")
    for reference, (builtin, *_) in REFERENCE_OPS.items():
        with_fn = median_per_node(api, builtin, args.nodes, args.repeats)
        without = median_per_node(api, reference, args.nodes, args.repeats)
        print(f"{builtin + ' chain, TF_FinishOperation per node':40} {with_fn * 1e6:11.1f} µs "
              f"{without * 1e6:7.1f} µs {without / with_fn:13.2f}")


if __name__ == "__main__":
    main()
