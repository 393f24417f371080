"""The type aliases generated op signatures use, for type checkers and readers.

Generated functions take tensors as :data:`TensorLike` (an ``opgen.Tensor``, a graph
``opgen.Output``, a numpy array, a Python scalar or nested sequence), dtypes as
:data:`DTypeLike` and shapes as :data:`ShapeLike`; they return :data:`OpOutput`. Importing this module costs nothing at
run time: the runtime classes are only imported for type checkers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union
from collections.abc import Sequence

if TYPE_CHECKING:
    import numpy as np

    from opgen.runtime.dtypes import DType
    from opgen.runtime.graph import Operation, Output
    from opgen.runtime.tensor import Tensor

TensorLike = Union["Tensor", "Output", "np.ndarray", "np.generic", bool, int, float, complex, str, bytes,
                   Sequence[Any]]
DTypeLike = Union["DType", str, type, "np.dtype"]
ShapeLike = Sequence[int | None] | None
# What an op returns for each output: an eager tensor, or in graph mode (inside
# ``Graph.as_default()``) an output of the node it added.
OpOutput = Union["Tensor", "Output"]
# What an op without outputs returns: None eagerly, in graph mode the Operation it added
# (to pass to control_dependencies).
OpNode = Union["Operation", None]
