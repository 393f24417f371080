"""``opgen run``: load a frozen GraphDef or a SavedModel directory (one of its signatures),
feed it ``.npy`` inputs, fetch outputs, and optionally time it. The CLI (``opgen.cli``) parses arguments; this module does the work
and is importable on its own (tests and benchmarks use it).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from opgen.protos import graph_pb2

if TYPE_CHECKING:  # the runtime loads only when a model is run
    from opgen.runtime.graph import Graph
    from opgen.runtime.session import Session

# Node types that produce no value worth printing when outputs are guessed.
_NOT_OUTPUTS = {"NoOp", "Const", "Placeholder", "Assert", "ControlTrigger"}


class ModelError(ValueError):
    """A model, input or output the user named is unusable; the message says why."""


@dataclass
class Model:
    """A frozen GraphDef imported into its own graph, with its inputs and outputs; or a
    SavedModel's graph with its restored `session` and the `signature` that is run."""

    path: Path
    graph_def: graph_pb2.GraphDef
    graph: Graph
    placeholders: list[Any] = field(default_factory=list)  # NodeDefs of op Placeholder
    session: Session | None = None
    signature: Any = None  # an opgen.saved_model.Signature


def read_graph_def(path: Path) -> graph_pb2.GraphDef:
    """A GraphDef from binary protobuf (``.pb``) or text format (``.pbtxt``)."""
    from google.protobuf import message, text_format

    data = Path(path).read_bytes()
    graph_def = graph_pb2.GraphDef()
    try:
        graph_def.ParseFromString(data)
        if graph_def.node or not data:
            return graph_def
    except message.DecodeError:  # not binary; try text below
        pass
    try:
        return text_format.Parse(data.decode("utf-8"), graph_pb2.GraphDef())
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise ModelError(f"{path} is neither a binary nor a text-format GraphDef ({e})") from None


def load(path: Path, signature: str | None = None, tags: str | None = None,
         optimize: bool | None = None) -> Model:
    """A GraphDef file, or a SavedModel directory's `signature` (default: serving_default,
    or its only one) from the MetaGraphDef of the comma-separated `tags`, loaded into a
    session with the graph optimizer on or off (`optimize`; None: the runtime's default)."""
    import opgen

    if Path(path).is_dir():
        return _load_saved_model(Path(path), signature, tags, optimize)
    if signature is not None or tags is not None:
        raise ModelError(f"--signature and --tags are for SavedModel directories; {path} is a file")
    graph_def = read_graph_def(Path(path))
    graph = opgen.Graph()
    with graph.as_default():
        opgen.import_graph_def(graph_def, name="")  # type: ignore[no-untyped-call]
    placeholders = [n for n in graph_def.node if n.op == "Placeholder"]
    return Model(Path(path), graph_def, graph, placeholders)


def _load_saved_model(path: Path, signature: str | None, tags: str | None,
                      optimize: bool | None) -> Model:
    from opgen import saved_model
    from opgen.runtime.session import SessionOptions

    options = None if optimize is None else SessionOptions(optimize=optimize)
    loaded = saved_model.load(path, tags=tags.split(",") if tags else None, options=options)
    names = list(loaded.signatures)
    if signature is None:
        if saved_model.DEFAULT_SIGNATURE in names or len(names) != 1:
            signature = saved_model.DEFAULT_SIGNATURE
        else:
            signature = names[0]
    try:
        chosen = loaded.signatures[signature]
    except KeyError as e:
        loaded.close()
        raise ModelError(f"{path}: {e.args[0]}") from None
    graph_def = loaded.meta_graph.graph_def
    nodes = {n.name: n for n in graph_def.node}
    inputs = [nodes[info.name.split(":")[0]] for info in chosen.inputs.values()]
    return Model(path, graph_def, loaded.graph, inputs, loaded.session, chosen)


def tensor_name(name: str) -> str:
    """"x" -> "x:0"; "x:1" unchanged."""
    return name if ":" in name else name + ":0"


def guess_outputs(model: Model) -> list[str]:
    """The outputs nothing else reads: what a frozen model returns (its Identity
    outputs, usually), in the GraphDef's order."""
    if model.signature is not None:
        return [info.name for info in model.signature.outputs.values()]
    consumed = set()
    for node in model.graph_def.node:
        for inp in node.input:
            if not inp.startswith("^"):
                consumed.add(tensor_name(inp))
    names = []
    for op in model.graph.get_operations():
        if op.type in _NOT_OUTPUTS:
            continue
        for out in op.outputs:
            if out.name not in consumed:
                names.append(out.name)
    return names


def read_inputs(model: Model, specs: list[str]) -> dict[str, np.ndarray]:
    """Parses ``NAME=FILE.npy`` specs into feeds checked against the placeholders."""
    feeds = {}
    for spec in specs:
        name, sep, file_name = spec.partition("=")
        if not sep or not name or not file_name:
            raise ModelError(f"--input wants NAME=FILE.npy, got {spec!r}")
        if model.signature is not None and name in model.signature.inputs:
            name = model.signature.inputs[name].name
        name = tensor_name(name)
        try:
            model.graph.get_tensor_by_name(name)
        except (KeyError, ValueError):
            raise ModelError(f"{model.path} has no tensor {name!r}; its inputs are "
                             f"{', '.join(n.name + ':0' for n in model.placeholders) or 'none'}") from None
        try:
            value = np.load(file_name, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise ModelError(f"cannot read {file_name} for {name}: {e}") from None
        if isinstance(value, np.lib.npyio.NpzFile):
            raise ModelError(f"{file_name} is an .npz archive; give one array per --input (.npy)")
        feeds[name] = value
    missing = [n.name + ":0" for n in model.placeholders if n.name + ":0" not in feeds]
    if missing:
        raise ModelError(f"no value for input{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}: give --input NAME=FILE.npy, or --random-inputs")
    return feeds


def random_inputs(model: Model, seed: int = 0, unknown_dim: int = 1) -> dict[str, np.ndarray]:
    """Feeds of random values shaped as each placeholder says (unknown sizes: 1)."""
    from opgen.runtime import dtypes

    rng = np.random.default_rng(seed)
    feeds = {}
    for node in model.placeholders:
        dtype = dtypes.as_dtype(node.attr["dtype"].type).as_numpy_dtype
        shape_proto = node.attr["shape"].shape
        if shape_proto.unknown_rank:
            raise ModelError(f"input {node.name} has an unknown rank: give --input "
                             f"{node.name}=FILE.npy")
        shape = [d.size if d.size >= 0 else unknown_dim for d in shape_proto.dim]
        if np.issubdtype(dtype, np.floating):
            value = rng.standard_normal(shape).astype(dtype)
        elif np.issubdtype(dtype, np.integer):
            value = rng.integers(0, 2, size=shape).astype(dtype)
        elif dtype == np.bool_:
            value = rng.integers(0, 2, size=shape).astype(bool)
        else:
            raise ModelError(f"cannot make random values of {dtype} for input {node.name}")
        feeds[node.name + ":0"] = value
    return feeds


def make_session(model: Model, optimize: bool | None) -> Session:
    """A Session over the model's graph, with the graph optimizer on, off, or as the
    runtime decides (None: on unless $OPGEN_GRAPH_OPTIMIZER=0)."""
    from opgen.runtime.session import Session, SessionOptions

    if model.session is not None:  # a SavedModel's, holding its restored variables
        return model.session
    if optimize is None:
        return Session(graph=model.graph)
    return Session(graph=model.graph, options=SessionOptions(optimize=optimize))


def check_outputs(model: Model, names: list[str]) -> list[str]:
    checked = []
    for name in names:
        full = tensor_name(name)
        try:
            model.graph.get_tensor_by_name(full)
        except (KeyError, ValueError):
            raise ModelError(f"{model.path} has no tensor {full!r} to fetch") from None
        checked.append(full)
    return checked


@dataclass
class Timing:
    runs: int
    times_ms: list[float]

    def percentile(self, q: float) -> float:
        return float(np.percentile(self.times_ms, q))

    def summary(self) -> str:
        t = self.times_ms
        return (f"{self.runs} runs: median {self.percentile(50):.3f} ms, "
                f"p90 {self.percentile(90):.3f} ms, p99 {self.percentile(99):.3f} ms, "
                f"min {min(t):.3f} ms, mean {float(np.mean(t)):.3f} ms")


def benchmark(session: Session, outputs: list[str], feeds: dict[str, np.ndarray], runs: int,
              warmup: int = 2, progress: Callable[[int], None] | None = None) -> Timing:
    """Times ``runs`` calls of ``session.run`` after ``warmup`` untimed ones. `progress`,
    when given, is called with the number of finished runs after each one."""
    for _ in range(warmup):
        session.run(outputs, feeds)
    times = []
    for i in range(runs):
        start = time.perf_counter()
        session.run(outputs, feeds)
        times.append((time.perf_counter() - start) * 1e3)
        if progress is not None:
            progress(i + 1)
    return Timing(runs, times)


def describe(name: str, value: np.ndarray, max_items: int = 1000) -> str:
    """One block per output: name, dtype, shape and (a short view of) its values."""
    head = f"{name}: {value.dtype} {list(value.shape)}"
    if value.size == 0:
        return head
    with np.printoptions(threshold=max_items, edgeitems=3, precision=6, suppress=False):
        body = np.array2string(value, separator=", ")
    return head + "\n" + body
