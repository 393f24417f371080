"""opgen's modules import each other without cycles, counting imports inside functions
(those hide a cycle from Python but not from a reader), and the Python binding
(opgen.runtime) only imports downward through its layers."""

from __future__ import annotations

import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "opgen"

# opgen.runtime, bottom to top: a module imports only from its own layer or below.
RUNTIME_LAYERS = [
    ["errors", "dtypes"],                        # no runtime dependency at all
    ["_lib"],                                    # ctypes declarations of the C ABI
    ["_context", "_convert", "_strings"],        # fast path choice, eager context; value rules
    ["_opplan", "_dlpack", "_tensor_storage",    # registry, plans, attr table; DLPack export
     "_promotion", "_slicing", "_boolean_mask", "_operators"],    # Tensor/Output operators: dtype rules, indices
    ["tensor"],
    ["devices", "graph", "session", "dlpack", "eager"],
    ["graph_mode", "graph_import", "op_library", "kernels", "memory", "debugging", "summary",
     "_function_library"],                       # an imported library carried along
    ["constant_op", "variables", "module", "checkpoint", "object_checkpoint",
     "indexed_slices", "_sparse_gradients", "gradients_impl", "_tape_program", "_graph_tape",
     "backprop",
     "_function_split", "functions"],            # opgen.function: traced FunctionDefs
    ["control_flow_v2"],                         # opgen.cond / while_loop over them
    ["training_minimize"],                       # compute_gradients / minimize
    ["training", "training_sparse",              # optimizers over Variables, their sparse
     "training_adaptive"],                       # steps, the other TF1 optimizers
    ["__init__"],
]


def module_names(root: pathlib.Path) -> dict[str, pathlib.Path]:
    names = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def import_edges(root: pathlib.Path) -> dict[str, set[str]]:
    """module -> the package's modules it imports anywhere in its source (top level,
    functions, TYPE_CHECKING blocks). A package's __init__ importing its own
    submodules (re-exports), and a submodule importing its package, are left out."""
    modules = module_names(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                targets = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target or target == name:
                    continue
                if is_package and target.startswith(name + "."):
                    continue
                if modules[target].name == "__init__.py" and name.startswith(target + "."):
                    continue
                edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_opgen_has_no_import_cycle():
    found = cycles(import_edges(PACKAGE))
    assert not found, "import cycles (imports inside functions count): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_runtime_imports_only_downward():
    layer_of = {f"opgen.runtime.{m}" if m != "__init__" else "opgen.runtime": i
                for i, layer in enumerate(RUNTIME_LAYERS) for m in layer}
    edges = import_edges(PACKAGE)
    runtime = {m for m in edges if m == "opgen.runtime" or m.startswith("opgen.runtime.")}
    unplaced = sorted(runtime - set(layer_of))
    assert not unplaced, f"place these modules in RUNTIME_LAYERS: {unplaced}"
    upward = [f"{m} (layer {layer_of[m]}) -> {t} (layer {layer_of[t]})"
              for m in sorted(runtime) for t in sorted(edges[m])
              if t in layer_of and layer_of[t] > layer_of[m]]
    assert not upward, "imports going up a layer: " + "; ".join(upward)


def test_the_checker_sees_a_cycle_through_a_function(tmp_path):
    """The checks above can fail: a cycle closed only by an import inside a function
    is found, and the package re-exporting its submodules is not one."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg.a import f\n")
    (pkg / "a.py").write_text("from pkg import b\n\ndef f():\n    return b\n")
    (pkg / "b.py").write_text("def g():\n    from pkg.a import f\n    return f\n")
    (pkg / "c.py").write_text("from . import b\n")
    edges = import_edges(pkg)
    assert edges["pkg.c"] == {"pkg.b"}
    assert cycles(edges) == [["pkg.a", "pkg.b"]]
    (pkg / "b.py").write_text("def g():\n    return 1\n")
    assert cycles(import_edges(pkg)) == []


@pytest.mark.parametrize("module", ["opgen.runtime", "opgen.runtime.tensor",
                                    "opgen.runtime.graph_mode"])
def test_each_layer_imports_alone(module):
    """A module imports in a fresh interpreter without the modules above it having
    been imported first (no import order hides a dependency)."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
