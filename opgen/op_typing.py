"""The type aliases generated op signatures use, for type checkers and readers.

Generated functions take tensors as :data:`TensorLike` (an ``opgen.Tensor``, a graph
``opgen.Output``, a numpy array, a Python scalar or nested sequence), dtypes as
:data:`DTypeLike` and shapes as :data:`ShapeLike`; they return :data:`OpOutput`.

The stub (``__init__.pyi``) says more, with overloads, for ops of one output: given a
graph :data:`GraphOutput` for some input, the op adds a node and returns its
``GraphOutput``; given only :data:`EagerTensorLike` inputs (no graph Output), it runs
eagerly and returns an :data:`EagerOutput` (``opgen.Tensor``), so that
``ops.relu(array).numpy()`` type-checks. (Inside ``Graph.as_default()`` an op of
eager-like inputs builds a node too, which no type checker can see: there the stub's
``Tensor`` is an ``Output`` at run time.)

Importing this module costs nothing at run time: the runtime classes are only
imported for type checkers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, Union
from collections.abc import Sequence

if TYPE_CHECKING:
    import numpy as np

    from opgen.runtime.dtypes import DType
    from opgen.runtime.graph import Operation, Output
    from opgen.runtime.tensor import Tensor

TensorLike = Union["Tensor", "Output", "np.ndarray", "np.generic", bool, int, float, complex, str, bytes,
                   Sequence[Any]]
# TensorLike but a graph Output: inputs that make an op run eagerly (outside a graph's
# as_default()).
EagerTensorLike = Union["Tensor", "np.ndarray", "np.generic", bool, int, float, complex, str,
                        bytes, Sequence[Any]]
DTypeLike = Union["DType", str, type, "np.dtype"]
ShapeLike = Sequence[int | None] | None
# What an op returns for each output: an eager tensor, or in graph mode (inside
# ``Graph.as_default()``) an output of the node it added.
OpOutput = Union["Tensor", "Output"]
# Each of the two, by name: an op's result eagerly, and in a graph.
EagerOutput: TypeAlias = "Tensor"
GraphOutput: TypeAlias = "Output"
# What an op without outputs returns: None eagerly, in graph mode the Operation it added
# (to pass to control_dependencies).
OpNode = Union["Operation", None]
