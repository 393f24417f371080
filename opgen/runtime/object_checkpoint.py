"""``opgen.train.Checkpoint``: object-based checkpoints in TensorFlow 2's format, so
training can stop in one and go on in the other::

    ckpt = opgen.train.Checkpoint(model=model, optimizer=opt, step=step)
    path = ckpt.save("/tmp/run/ckpt")          # "/tmp/run/ckpt-1"
    ckpt.restore(opgen.train.latest_checkpoint("/tmp/run")).assert_consumed()

and ``tf.train.Checkpoint(model=..., optimizer=..., step=...)`` restores what opgen
saved, and the reverse. A checkpoint is a tensor bundle (``SaveV2``) whose keys are
paths of attribute names from the root, ``model/w/.ATTRIBUTES/VARIABLE_VALUE``, plus a
``TrackableObjectGraph`` under ``_CHECKPOINTABLE_OBJECT_GRAPH``: the objects, their named
children, and each optimizer's slot variables (keyed ``v/.OPTIMIZER_SLOT/opt/m/...``).
Restoring walks that graph from the root by the children's names, so only the names of
the attributes matter, not where the objects live or in which order they were made.

What is tracked: ``opgen.Variable`` (eager), ``opgen.random.Generator`` (its state, as
TensorFlow's ``_state_var``), ``opgen.train`` optimizers (their own variables and slots),
lists, tuples and dicts of those, and any object whose attributes hold them (a model
class), each object once however often it is reached. A slot or optimizer variable
restored before the optimizer made it is kept and set when it is made, as TensorFlow's
deferred restoration does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np

from opgen.protos.trackable_object_graph_pb2 import TrackableObjectGraph
from opgen.runtime import dtypes, eager
from opgen.runtime.checkpoint import _delete_checkpoint, write_checkpoint_state
from opgen.runtime.errors import NotFoundError
from opgen.runtime.variables import Variable

_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_VALUE = "VARIABLE_VALUE"


def _escape(name: str) -> str:
    """A child's name in a checkpoint key ('.' and '/' escaped, as TensorFlow does)."""
    return name.replace(".", "..").replace("/", ".S")


def _is_optimizer(obj: Any) -> bool:
    return hasattr(obj, "_slots") and hasattr(obj, "_non_slot") and hasattr(obj, "_filled_slot")


def _children(obj: Any) -> list[tuple[str, Any]]:
    """The named trackable children of `obj`, in a fixed order."""
    if isinstance(obj, Variable):
        return []
    if _is_optimizer(obj):
        own = {name: v for (graph, name), v in obj._non_slot.items() if graph is None}
        return sorted(own.items())
    state = getattr(obj, "_state_var", None)
    if isinstance(state, Variable):  # opgen.random.Generator
        return [("_state_var", state)]
    if isinstance(obj, dict):
        items = [(str(k), v) for k, v in obj.items()]
    elif isinstance(obj, (list, tuple)):
        items = [(str(i), v) for i, v in enumerate(obj)]
    elif isinstance(obj, Checkpoint):
        items = sorted(obj._children.items())
    else:
        items = list(getattr(obj, "__dict__", {}).items())
    return [(name, v) for name, v in items if _holds_state(v, set())]


def _holds_state(obj: Any, seen: set[int]) -> bool:
    """Whether `obj` is, or reaches through its children, something with values to save."""
    if isinstance(obj, Variable) or _is_optimizer(obj):
        return True
    if obj is None or isinstance(obj, (str, bytes, int, float, bool, np.ndarray, np.generic,
                                       type)) or id(obj) in seen:
        return False
    seen.add(id(obj))
    if isinstance(obj, dict):
        values: Any = obj.values()
    elif isinstance(obj, (list, tuple)):
        values = obj
    elif hasattr(obj, "__dict__") and not callable(obj):
        values = vars(obj).values()
    else:
        return False
    return any(_holds_state(v, seen) for v in values)


class _ObjectGraph:
    """The objects reachable from a root, numbered breadth first as TensorFlow does, with
    each one's path (its checkpoint key prefix)."""

    def __init__(self, root: Any) -> None:
        self.objects: list[Any] = [root]
        self.paths: list[str] = [""]
        self.ids: dict[int, int] = {id(root): 0}
        self.children: list[list[tuple[str, int]]] = []
        i = 0
        while i < len(self.objects):
            links = []
            for name, child in _children(self.objects[i]):
                node = self.ids.get(id(child))
                if node is None:
                    node = self.ids[id(child)] = len(self.objects)
                    self.objects.append(child)
                    prefix = self.paths[i]
                    self.paths.append(f"{prefix}/{_escape(name)}" if prefix else _escape(name))
                links.append((name, node))
            self.children.append(links)
            i += 1

    def proto_and_values(self) -> tuple[TrackableObjectGraph, dict[str, Any]]:
        """The TrackableObjectGraph and the values to save, by checkpoint key."""
        graph = TrackableObjectGraph()
        values: dict[str, Any] = {}
        slot_nodes: list[tuple[int, str, Variable, str]] = []
        for i, obj in enumerate(self.objects):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=name)
            if isinstance(obj, Variable):
                key = f"{self.paths[i]}/.ATTRIBUTES/{_VALUE}"
                full = obj.name[:-2] if obj.name.endswith(":0") else obj.name
                node.attributes.add(name=_VALUE, full_name=full, checkpoint_key=key)
                values[key] = obj.read_value()
            if _is_optimizer(obj):
                for slot_name, table in sorted(obj._slots.items()):
                    for var, slot in table.values():
                        original = self.ids.get(id(var))
                        if original is not None:
                            slot_nodes.append((i, slot_name, slot, self.paths[original]))
                            graph.nodes[i].slot_variables.add(
                                original_variable_node_id=original, slot_name=slot_name,
                                slot_variable_node_id=len(self.objects) + len(slot_nodes) - 1)
        for opt_node, slot_name, slot, var_path in slot_nodes:
            key = (f"{var_path}/.OPTIMIZER_SLOT/{self.paths[opt_node]}/{_escape(slot_name)}"
                   f"/.ATTRIBUTES/{_VALUE}")
            full = slot.name[:-2] if slot.name.endswith(":0") else slot.name
            graph.nodes.add().attributes.add(name=_VALUE, full_name=full, checkpoint_key=key)
            values[key] = slot.read_value()
        for node in graph.nodes:
            node.has_checkpoint_values.value = True
        return graph, values


class CheckpointLoadStatus:
    """What a restore matched (TensorFlow's load status): ``assert_consumed`` fails when a
    value in the checkpoint or an object of the program went unmatched."""

    def __init__(self, unused_keys: list[str], unmatched: list[str]) -> None:
        self.unused_keys = unused_keys   # checkpoint values no object took
        self.unmatched = unmatched       # program objects the checkpoint has no value for

    def assert_consumed(self) -> CheckpointLoadStatus:
        if self.unused_keys or self.unmatched:
            raise AssertionError(
                "Unresolved object in checkpoint or program: checkpoint values not used "
                f"{self.unused_keys}; objects without a value {self.unmatched}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        if self.unmatched:
            raise AssertionError(f"objects without a value in the checkpoint: {self.unmatched}")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        return self


class Checkpoint:
    """Saves and restores the objects given as keyword arguments (TensorFlow's
    ``tf.train.Checkpoint``): variables, generators, optimizers and objects holding them.
    ``save_counter`` counts the saves; ``save`` numbers its files by it."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        self._children: dict[str, Any] = {}
        if root is not None:
            self._children.update({k: v for k, v in _children(root)})
        for name, value in kwargs.items():
            if not _holds_state(value, set()):
                raise ValueError(f"Checkpoint: '{name}' holds no variables to save "
                                 f"({type(value).__name__})")
            self._children[name] = value
        for name, value in self._children.items():
            _check_eager(name, value)
        self._save_counter: Variable | None = None

    @property
    def save_counter(self) -> Variable:
        """An int64 variable: how many times ``save`` ran (made on first use)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), name="save_counter", trainable=False)
        return self._save_counter

    def _graph(self) -> _ObjectGraph:
        graph = _ObjectGraph(self)
        graph.children[0].append(("save_counter", _append(graph, self.save_counter,
                                                          "save_counter")))
        return graph

    def write(self, file_prefix: str | os.PathLike[str]) -> str:
        """Writes the checkpoint at `file_prefix` as it is (no numbering); returns it."""
        prefix = os.fspath(file_prefix)
        proto, values = self._graph().proto_and_values()
        keys = [_OBJECT_GRAPH_KEY, *values]
        graph_bytes = np.empty((), dtype=object)  # a string scalar
        graph_bytes[()] = proto.SerializeToString()
        tensors = [graph_bytes, *values.values()]
        eager.execute_eager("SaveV2", [prefix, keys, [""] * len(keys), tensors], {})
        return prefix

    def save(self, file_prefix: str | os.PathLike[str]) -> str:
        """Adds one to ``save_counter`` and writes ``PREFIX-N``; the directory's
        ``checkpoint`` file then names it (``latest_checkpoint`` finds it)."""
        self.save_counter.assign_add(np.int64(1), read_value=False)
        prefix = f"{os.fspath(file_prefix)}-{int(self.save_counter.numpy())}"
        self.write(prefix)
        write_checkpoint_state(prefix, [prefix])
        return prefix

    def read(self, save_path: str | os.PathLike[str]) -> CheckpointLoadStatus:
        """Sets the objects from the checkpoint at `save_path`, matching them by the
        names on the way from the root."""
        return _restore(self, os.fspath(save_path))

    def restore(self, save_path: str | os.PathLike[str] | None) -> CheckpointLoadStatus:
        """As ``read``; None (no checkpoint yet, as ``latest_checkpoint`` gives) restores
        nothing."""
        if save_path is None:
            return CheckpointLoadStatus([], [])
        return self.read(save_path)


def _append(graph: _ObjectGraph, obj: Any, name: str) -> int:
    node = graph.ids.get(id(obj))
    if node is None:
        node = graph.ids[id(obj)] = len(graph.objects)
        graph.objects.append(obj)
        graph.paths.append(_escape(name))
        graph.children.append([])
    return node


def _check_eager(name: str, value: Any) -> None:
    for v in _variables_of(value, set()):
        if v.graph is not None:
            raise ValueError(f"Checkpoint: '{name}' holds variables of a graph; "
                             "opgen.train.Saver saves those in a Session")


def _variables_of(obj: Any, seen: set[int]) -> Iterator[Variable]:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, Variable):
        yield obj
        return
    for _, child in _children(obj):
        yield from _variables_of(child, seen)


def _read_object_graph(prefix: str) -> TrackableObjectGraph:
    try:
        raw = eager.execute_eager("RestoreV2", [prefix, [_OBJECT_GRAPH_KEY], [""]],
                                  {"dtypes": [dtypes.string]})[0][0]
    except NotFoundError as e:
        raise NotFoundError(f"{prefix} is not an object-based checkpoint (no "
                            f"{_OBJECT_GRAPH_KEY}; opgen.train.Saver reads name-based "
                            f"ones): {e.message}") from None
    graph = TrackableObjectGraph()
    graph.ParseFromString(raw.numpy().item())
    return graph


def _restore(ckpt: Checkpoint, prefix: str) -> CheckpointLoadStatus:
    proto = _read_object_graph(prefix)
    ours = ckpt._graph()
    matched: dict[int, int] = {}  # checkpoint node -> our node
    variables: list[tuple[str, Variable]] = []
    non_slots: list[tuple[Any, str, str]] = []         # (optimizer, name, key): not made yet
    slots: list[tuple[Any, str, Variable, str]] = []   # (optimizer, slot name, variable, key)
    stack = [(0, 0)]
    while stack:
        theirs, mine = stack.pop()
        if theirs in matched:
            continue
        matched[theirs] = mine
        obj = ours.objects[mine]
        key = _value_key(proto.nodes[theirs])
        if isinstance(obj, Variable) and key is not None:
            variables.append((key, obj))
        names = dict(ours.children[mine])
        for child in proto.nodes[theirs].children:
            if child.local_name in names:
                stack.append((child.node_id, names[child.local_name]))
            elif _is_optimizer(obj):  # one of its variables, made at its first step
                child_key = _value_key(proto.nodes[child.node_id])
                if child_key is not None:
                    non_slots.append((obj, child.local_name, child_key))
    for theirs, mine in matched.items():
        opt = ours.objects[mine]
        if not _is_optimizer(opt):
            continue
        for slot in proto.nodes[theirs].slot_variables:
            original = matched.get(slot.original_variable_node_id)
            key = _value_key(proto.nodes[slot.slot_variable_node_id])
            if original is not None and key is not None:
                slots.append((opt, slot.slot_name, ours.objects[original], key))
    # Every value at once (one RestoreV2), then the assignments.
    wanted: dict[str, dtypes.DType] = {key: v.dtype for key, v in variables}
    wanted.update({key: var.dtype for _, _, var, key in slots})
    wanted.update({key: dtypes.float32 for _, _, key in non_slots})  # the beta powers
    values: dict[str, Any] = {}
    if wanted:
        keys = list(wanted)
        read = eager.execute_eager("RestoreV2", [prefix, keys, [""] * len(keys)],
                                   {"dtypes": list(wanted.values())})[0]
        values = dict(zip(keys, read))
    for key, v in variables:
        _assign(v, values[key], key, prefix)
    for opt, slot_name, var, key in slots:
        opt._restore_slot(slot_name, var, values[key])
    for opt, name, key in non_slots:
        opt._restore_non_slot(name, values[key])
    all_keys = {a.checkpoint_key for n in proto.nodes for a in n.attributes}
    unmatched = [ours.paths[m] for m in range(len(ours.objects))
                 if isinstance(ours.objects[m], Variable) and m not in matched.values()
                 and not _is_slot_of_matched(ours, m, slots)]
    return CheckpointLoadStatus(sorted(all_keys - set(wanted)), unmatched)


def _is_slot_of_matched(ours: _ObjectGraph, node: int, slots: list) -> bool:
    return any(opt.get_slot(var, name) is ours.objects[node] for opt, name, var, _ in slots)


def _value_key(node: Any) -> str | None:
    for attribute in node.attributes:
        if attribute.name == _VALUE:
            return attribute.checkpoint_key
    return None


def _assign(v: Variable, value: Any, key: str, prefix: str) -> None:
    if v.shape is not None and tuple(value.shape) != tuple(v.shape):
        raise ValueError(f"checkpoint {prefix}: '{key}' has shape {tuple(value.shape)}, the "
                         f"variable '{v.name}' has shape {tuple(v.shape)}")
    v.assign(value, read_value=False)


class CheckpointManager:
    """Numbered saves of one Checkpoint in `directory`, keeping the newest
    `max_to_keep` (TensorFlow's ``tf.train.CheckpointManager``)."""

    def __init__(self, checkpoint: Checkpoint, directory: str | os.PathLike[str],
                 max_to_keep: int | None, checkpoint_name: str = "ckpt") -> None:
        self._checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self.directory, checkpoint_name)
        self._kept: list[str] = []

    @property
    def checkpoints(self) -> list[str]:
        """The prefixes kept, oldest first."""
        return list(self._kept)

    @property
    def latest_checkpoint(self) -> str | None:
        return self._kept[-1] if self._kept else None

    def save(self, checkpoint_number: int | None = None) -> str:
        """Writes ``DIRECTORY/ckpt-N`` (N: `checkpoint_number`, else the checkpoint's
        save counter after counting this save) and drops the oldest beyond
        `max_to_keep`."""
        os.makedirs(self.directory, exist_ok=True)
        counter = self._checkpoint.save_counter
        counter.assign_add(np.int64(1), read_value=False)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        prefix = self._checkpoint.write(f"{self._prefix}-{number}")
        if prefix in self._kept:
            self._kept.remove(prefix)
        self._kept.append(prefix)
        if self._max_to_keep is not None:
            while len(self._kept) > self._max_to_keep:
                _delete_checkpoint(self._kept.pop(0))
        write_checkpoint_state(prefix, self._kept)
        return prefix
