"""``opgen.Module``: TensorFlow's ``tf.Module``, the base class of models written by hand::

    class Dense(opgen.Module):
        def __init__(self, n_in, n_out, name=None):
            super().__init__(name=name)
            self.w = opgen.Variable(np.zeros((n_in, n_out), np.float32), name="w")
            self.b = opgen.Variable(np.zeros(n_out, np.float32), name="b")

    class MLP(opgen.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(4, 8), Dense(8, 2)]

    MLP().trainable_variables   # the four variables, in TensorFlow's order

It finds what its attributes hold, as TensorFlow's does: variables and submodules, also
inside lists, tuples and dicts; its own attributes first, by name, then each submodule's
in turn, each object once. ``name_scope`` opens a scope of the module's name (in a graph
the nodes built in it are named under it), and ``opgen.train.Checkpoint`` saves a
module's variables under its attribute names as ``tf.train.Checkpoint`` does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from opgen.runtime import graph_mode
from opgen.runtime.variables import Variable

_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _snake_case(name: str) -> str:
    """TensorFlow's default module name: the class name in snake case ("MyDense" ->
    "my_dense")."""
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def _leaves(value: Any, seen: set[int]) -> Iterator[Any]:
    """The values inside `value` (lists, tuples and dict values, dicts by sorted key)."""
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            yield from _leaves(value[key], seen)
    elif isinstance(value, (list, tuple)):
        if id(value) in seen:
            return
        seen.add(id(value))
        for item in value:
            yield from _leaves(item, seen)
    else:
        yield value


class Module:
    """A named container of variables and submodules (``tf.Module``)."""

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not _VALID_NAME.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be "
                             "valid Python 2 identifiers (e.g. a valid class name).")
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    @contextmanager
    def name_scope(self) -> Iterator[str]:
        """A name scope named after the module, for the ops and variables made in it."""
        with graph_mode.name_scope(self._name) as scope:
            yield scope

    def _flatten(self, predicate: Callable[[Any], bool], recursive: bool = True) -> list[Any]:
        found: list[Any] = []
        seen: set[int] = {id(self)}

        def walk(module: Module) -> None:
            submodules = []
            for key in sorted(vars(module)):
                if key == "_name":
                    continue
                for leaf in _leaves(vars(module)[key], set()):
                    if id(leaf) in seen:
                        continue
                    if predicate(leaf):
                        seen.add(id(leaf))
                        found.append(leaf)
                    if isinstance(leaf, Module):
                        seen.add(id(leaf))
                        submodules.append(leaf)
            if recursive:
                for sub in submodules:
                    walk(sub)

        walk(self)
        return found

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of this module and its submodules."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The variables made with ``trainable=True`` (what optimizers update)."""
        return tuple(self._flatten(lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(self._flatten(lambda v: isinstance(v, Variable) and not v.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """The modules this one holds, and theirs, each once."""
        return tuple(self._flatten(lambda v: isinstance(v, Module)))

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorates a method so that it runs inside the module's ``name_scope``."""
        def wrapped(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)
        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self._name}'>"
