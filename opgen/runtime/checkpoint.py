"""``opgen.train.Saver``: variables saved to and restored from TensorFlow's checkpoint
format (the tensor bundle SaveV2 writes: ``PREFIX.index`` + ``PREFIX.data-00000-of-00001``),
as ``tf.compat.v1.train.Saver`` does::

    v = opgen.Variable([1.0, 2.0], name="v")
    saver = opgen.train.Saver([v])
    path = saver.save(None, "/tmp/model/ckpt")        # eagerly: no session
    saver.restore(None, path)

    with g.as_default(): ...; saver = opgen.train.Saver()   # a graph's variables
    saver.save(sess, "/tmp/model/ckpt", global_step=10)     # -> "/tmp/model/ckpt-10"

Variables are saved under their names without ":0" (``{"name": var}`` picks others),
which is how TensorFlow's Saver names them, so checkpoints cross between the two. In a
graph, the Saver adds its nodes once, under the scope "save" (a string Placeholder
``save/Const`` for the path, ``save/SaveV2``, ``save/RestoreV2`` and an assign per
variable); ``save``/``restore`` run them in the session given. ``save`` also writes the
``checkpoint`` file of the directory that ``latest_checkpoint`` reads.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from opgen.runtime import dtypes, eager, graph_mode
from opgen.runtime.errors import InvalidArgumentError
from opgen.runtime.graph import Graph
from opgen.runtime.variables import Variable, _graph_variables

_STATE_FILE = "checkpoint"


def _named(var_list: Any) -> dict[str, Variable]:
    if isinstance(var_list, Mapping):
        named = dict(var_list)
    else:
        named = {}
        for v in var_list:
            name = v.name[:-2] if v.name.endswith(":0") else v.name
            if name in named:
                raise ValueError(f"two variables are named '{name}'; pass a dict of names")
            named[name] = v
    for name, v in named.items():
        if not isinstance(v, Variable):
            raise TypeError(f"'{name}' is a {type(v).__name__}, not an opgen.Variable")
    return dict(sorted(named.items()))


class Saver:
    """Saves and restores variables (``var_list``: Variables, or a dict of checkpoint
    names to Variables; by default every variable of the default graph)."""

    def __init__(self, var_list: Iterable[Variable] | Mapping[str, Variable] | None = None,
                 max_to_keep: int = 5) -> None:
        if var_list is None:
            g = graph_mode._thread_graph()
            if g is None:
                raise ValueError("var_list is required eagerly (there is no graph to take "
                                 "the variables of)")
            var_list = list(_graph_variables.get(g, []))
        self._vars = _named(var_list)
        if not self._vars:
            raise ValueError("no variables to save")
        self._max_to_keep = max_to_keep
        self._kept: list[str] = []
        graphs = {v.graph for v in self._vars.values()}
        if len(graphs) > 1:
            raise ValueError("the variables belong to different graphs")
        self._graph: Graph | None = graphs.pop()
        if self._graph is not None:
            self._build(self._graph)

    # ---- graph mode: the nodes, built once ----

    def _build(self, g: Graph) -> None:
        names = list(self._vars)
        variables = list(self._vars.values())
        types = [v.dtype for v in variables]
        with g.as_default(), g.name_scope("save"):
            self._path = g.create_op("Placeholder", [], {"dtype": dtypes.string, "shape": []},
                                     name="Const").outputs[0]
            reads = [v.read_value() for v in variables]
            self._save_op = graph_mode.build_op(
                g, "SaveV2", [self._path, names, [""] * len(names), reads], {}, name="SaveV2")
            restored = graph_mode.build_op(
                g, "RestoreV2", [self._path, names, [""] * len(names)], {"dtypes": types},
                name="RestoreV2")[0]
            assigns = [graph_mode.build_op(g, "AssignVariableOp", [v.handle, value],
                                           {"validate_shape": True}, name="Assign")
                       for v, value in zip(variables, restored)]
            self._restore_op = g.create_op("NoOp", [], {}, name="restore_all",
                                           control_inputs=assigns)

    # ---- saving and restoring ----

    def save(self, sess: Any, save_path: str, global_step: Any = None,
             write_state: bool = True) -> str:
        """Writes the variables' values; returns the checkpoint's prefix (``save_path``,
        or ``save_path-STEP`` with ``global_step``). ``sess`` is the Session for graph
        variables, None eagerly."""
        prefix = os.fspath(save_path)
        if global_step is not None:
            step = global_step.numpy() if hasattr(global_step, "numpy") else global_step
            prefix = f"{prefix}-{int(step)}"
        if self._graph is None:
            names = list(self._vars)
            eager.execute_eager("SaveV2", [prefix, names, [""] * len(names),
                                           [v.read_value() for v in self._vars.values()]], {})
        else:
            self._session(sess).run(self._save_op, {self._path: prefix})
        if write_state:
            self._remember(prefix)
        return prefix

    def restore(self, sess: Any, save_path: str) -> None:
        """Sets the variables from the checkpoint at ``save_path`` (a prefix).
        NotFoundError for a missing checkpoint or variable, InvalidArgumentError for a
        dtype or shape that differs, DataLossError for a corrupted file."""
        prefix = os.fspath(save_path)
        if self._graph is not None:
            self._session(sess).run(self._restore_op, {self._path: prefix})
            return
        names = list(self._vars)
        values = eager.execute_eager(
            "RestoreV2", [prefix, names, [""] * len(names)],
            {"dtypes": [v.dtype for v in self._vars.values()]})[0]
        for (name, v), value in zip(self._vars.items(), values):
            if v.shape is not None and tuple(value.shape) != tuple(v.shape):
                raise InvalidArgumentError(
                    f"tensor '{name}' of checkpoint {prefix} has shape {tuple(value.shape)}, "
                    f"variable '{v.name}' has shape {tuple(v.shape)}")
        for v, value in zip(self._vars.values(), values):
            v.assign(value, read_value=False)

    def _session(self, sess: Any) -> Any:
        if sess is None:
            raise ValueError("the variables are graph variables: pass the Session to run in")
        return sess

    def _remember(self, prefix: str) -> None:
        """The directory's ``checkpoint`` file (TensorFlow's CheckpointState as text),
        and the oldest checkpoints beyond ``max_to_keep`` deleted."""
        if prefix in self._kept:
            self._kept.remove(prefix)
        self._kept.append(prefix)
        if self._max_to_keep:
            while len(self._kept) > self._max_to_keep:
                _delete_checkpoint(self._kept.pop(0))
        write_checkpoint_state(prefix, self._kept)


def write_checkpoint_state(prefix: str, kept: list[str]) -> None:
    """The ``checkpoint`` file of `prefix`'s directory (TensorFlow's CheckpointState as
    text): `prefix` the latest, `kept` all those still there."""
    directory = os.path.dirname(prefix) or "."
    # Paths relative to the directory, as TensorFlow writes them for its own files.
    lines = [f'model_checkpoint_path: "{os.path.relpath(prefix, directory)}"']
    lines += [f'all_model_checkpoint_paths: "{os.path.relpath(p, directory)}"' for p in kept]
    temp = os.path.join(directory, f".{_STATE_FILE}.tmp{os.getpid()}")
    with open(temp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(temp, os.path.join(directory, _STATE_FILE))


def _delete_checkpoint(prefix: str) -> None:
    directory, base = os.path.split(prefix)
    for entry in os.listdir(directory or "."):
        if entry == base + ".index" or entry.startswith(base + ".data-"):
            try:
                os.remove(os.path.join(directory, entry))
            except OSError:
                pass


def latest_checkpoint(checkpoint_dir: str) -> str | None:
    """The prefix the ``checkpoint`` file of ``checkpoint_dir`` names last, if its index
    exists (``tf.train.latest_checkpoint``); None otherwise."""
    directory = os.fspath(checkpoint_dir)
    try:
        with open(os.path.join(directory, _STATE_FILE)) as f:
            text = f.read()
    except OSError:
        return None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model_checkpoint_path":
            path = value.strip().strip('"')
            path = path if os.path.isabs(path) else os.path.join(directory, path)
            return path if os.path.exists(path + ".index") else None
    return None
