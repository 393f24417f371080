"""Python operators for eager ``Tensor`` and graph ``Output`` alike (TensorFlow's
``tf.Tensor`` overloads): arithmetic, comparison, logical/bitwise, ``@``, unary
operators and ``t[...]`` slicing (and ``t[mask]``, :mod:`opgen.runtime._boolean_mask`).

One implementation serves both: each operator calls the op through the same entry
generated op functions use (``execute_op``, via :func:`run_op`), which runs it eagerly
for Tensors and adds a node for Outputs, in the Output's graph. Which dtype the other
operand takes is :mod:`opgen.runtime._promotion`'s rules; how an index becomes
StridedSlice's arguments is :mod:`opgen.runtime._slicing`'s.

What differs between the two classes stays with them: ``==``/``hash``, ``bool``,
``len`` and iteration (an eager Tensor has values, a graph Output has none yet).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from opgen.runtime import _boolean_mask, _promotion, _slicing, dtypes

if TYPE_CHECKING:
    from typing_extensions import Self  # (typing.Self from Python 3.11)

    from opgen.runtime.dtypes import DType

# How an operator runs an op: fn(op_type, inputs, attrs) -> the op's outputs, one entry
# per output arg (what execute_op returns). Installed by opgen.runtime.graph_mode, the
# layer that sees both eager execution and graph building (importing it from here
# would make an import cycle: those modules import the Tensor and Output classes).
_run_op: Callable[[str, Sequence[Any], dict[str, Any]], Any] | None = None


def install_runner(run: Callable[[str, Sequence[Any], dict[str, Any]], Any]) -> None:
    global _run_op
    _run_op = run


def run_op(op_type: str, inputs: Sequence[Any], attrs: dict[str, Any] | None = None) -> Any:
    """The first output of `op_type` on `inputs` (eager, or a node when some input is
    a graph Output)."""
    if _run_op is None:  # (opgen.runtime's __init__ imports graph_mode, which installs it)
        raise RuntimeError("opgen.runtime is not initialised")
    return _run_op(op_type, inputs, attrs or {})[0]


def is_tensor(value: object) -> bool:
    """Whether `value` is an opgen tensor: an eager Tensor or a graph Output."""
    return isinstance(value, TensorOperators)


class TensorOperators:
    """The operators of ``opgen.Tensor`` and ``opgen.Output``; needs ``dtype`` and
    ``shape`` from the class. Every binary operator returns NotImplemented for an
    operand that is no tensor, Python or numpy data (see _promotion, rule 4)."""

    __slots__ = ()

    # numpy defers to these operators (``np.ones(2) + t`` is ``t.__radd__``).
    __array_priority__ = 100

    if TYPE_CHECKING:
        @property
        def dtype(self) -> DType: ...

        @property
        def shape(self) -> Any: ...

    # ---- helpers ----

    def _other(self, other: object) -> Any:
        """`other` as the second operand (_promotion's rules), or NotImplemented."""
        if isinstance(other, TensorOperators):
            return other
        if not _promotion.is_operand(other):
            return NotImplemented
        return _promotion.operand_as(other, self.dtype)

    def _binary(self, op_type: str, other: object, reflected: bool = False,
                attrs: dict[str, Any] | None = None) -> Self:
        y = self._other(other)
        if y is NotImplemented:
            return cast("Self", NotImplemented)
        return self._run(op_type, [y, self] if reflected else [self, y], attrs)

    def _run(self, op_type: str, inputs: Sequence[Any],
             attrs: dict[str, Any] | None = None) -> Self:
        """run_op, typed as this class (Tensor's operators make Tensors, Output's
        Outputs)."""
        return cast("Self", run_op(op_type, inputs, attrs))

    # ---- arithmetic ----

    def __add__(self, other: object) -> Self:
        return self._binary("Add" if self.dtype == dtypes.string else "AddV2", other)

    def __radd__(self, other: object) -> Self:
        return self._binary("Add" if self.dtype == dtypes.string else "AddV2", other, True)

    def __sub__(self, other: object) -> Self:
        return self._binary("Sub", other)

    def __rsub__(self, other: object) -> Self:
        return self._binary("Sub", other, True)

    def __mul__(self, other: object) -> Self:
        return self._binary("Mul", other)

    def __rmul__(self, other: object) -> Self:
        return self._binary("Mul", other, True)

    def __truediv__(self, other: object) -> Self:
        return self._truediv(other, False)

    def __rtruediv__(self, other: object) -> Self:
        return self._truediv(other, True)

    def _truediv(self, other: object, reflected: bool) -> Self:
        y = self._other(other)
        if y is NotImplemented:
            return cast("Self", NotImplemented)
        x = self
        as_float = _promotion.TRUEDIV_FLOAT.get(self.dtype)
        if as_float is not None:  # integers divide as floats (see _promotion)
            x, y = (_cast(v, as_float) for v in (x, y))
        return self._run("RealDiv", [y, x] if reflected else [x, y])

    def __floordiv__(self, other: object) -> Self:
        return self._binary("FloorDiv", other)

    def __rfloordiv__(self, other: object) -> Self:
        return self._binary("FloorDiv", other, True)

    def __mod__(self, other: object) -> Self:
        return self._binary("FloorMod", other)

    def __rmod__(self, other: object) -> Self:
        return self._binary("FloorMod", other, True)

    def __pow__(self, other: object) -> Self:
        return self._binary("Pow", other)

    def __rpow__(self, other: object) -> Self:
        return self._binary("Pow", other, True)

    def __matmul__(self, other: object) -> Self:
        return self._matmul(other, False)

    def __rmatmul__(self, other: object) -> Self:
        return self._matmul(other, True)

    def _matmul(self, other: object, reflected: bool) -> Self:
        y = self._other(other)
        if y is NotImplemented:
            return cast("Self", NotImplemented)
        a, b = (y, self) if reflected else (self, y)
        both_matrices = _rank(a) == 2 and _rank(b) == 2
        return self._run("MatMul" if both_matrices else "BatchMatMulV2", [a, b])

    # ---- comparison ----

    def __lt__(self, other: object) -> Self:
        return self._binary("Less", other)

    def __le__(self, other: object) -> Self:
        return self._binary("LessEqual", other)

    def __gt__(self, other: object) -> Self:
        return self._binary("Greater", other)

    def __ge__(self, other: object) -> Self:
        return self._binary("GreaterEqual", other)

    def _equal(self, op_type: str, other: object) -> Self:
        """Elementwise ``==``/``!=`` (what eager Tensors use for them)."""
        return self._binary(op_type, other, attrs={"incompatible_shape_error": False})

    # ---- logical (bool) / bitwise (integers) ----

    def __and__(self, other: object) -> Self:
        return self._binary(self._logical("LogicalAnd", "BitwiseAnd"), other)

    def __rand__(self, other: object) -> Self:
        return self._binary(self._logical("LogicalAnd", "BitwiseAnd"), other, True)

    def __or__(self, other: object) -> Self:
        return self._binary(self._logical("LogicalOr", "BitwiseOr"), other)

    def __ror__(self, other: object) -> Self:
        return self._binary(self._logical("LogicalOr", "BitwiseOr"), other, True)

    def __xor__(self, other: object) -> Self:
        return self._binary(self._logical("NotEqual", "BitwiseXor"), other)

    def __rxor__(self, other: object) -> Self:
        return self._binary(self._logical("NotEqual", "BitwiseXor"), other, True)

    def _logical(self, bool_op: str, int_op: str) -> str:
        return bool_op if self.dtype == dtypes.bool else int_op

    # ---- unary ----

    def __neg__(self) -> Self:
        return self._run("Neg", [self])

    def __abs__(self) -> Self:
        if self.dtype == dtypes.complex64 or self.dtype == dtypes.complex128:
            tout = dtypes.float32 if self.dtype == dtypes.complex64 else dtypes.float64
            return self._run("ComplexAbs", [self], {"Tout": tout})
        return self._run("Abs", [self])

    def __invert__(self) -> Self:
        return self._run(self._logical("LogicalNot", "Invert"), [self])

    # ---- slicing ----

    def __getitem__(self, key: object) -> Self:
        if _boolean_mask.is_mask(key, is_tensor):  # t[t > 0], as TensorFlow
            return cast("Self", _boolean_mask.boolean_mask(self, key, run_op))
        packed, attrs = strided_slice_operands(key)
        return self._run("StridedSlice", [self, *packed], attrs)


def strided_slice_operands(key: object) -> tuple[list[Any], dict[str, int]]:
    """begin, end and strides for ``x[key]`` (constants, or packed from index tensors)
    and StridedSlice's masks: what StridedSlice and ResourceStridedSliceAssign take."""
    args = _slicing.strided_slice_args(key, is_tensor)
    if args.has_tensors(is_tensor):
        packed: list[Any] = [run_op("Pack", [parts], {"axis": 0})
                             for parts in (args.begin, args.end, args.strides)]
        if any(p.dtype == dtypes.int64 for p in packed):  # one index dtype, as TF
            packed = [_cast(p, dtypes.int64) for p in packed]
    else:
        index_dtype = args.constant_dtype()
        packed = [np.array(parts, dtype=index_dtype)
                  for parts in (args.begin, args.end, args.strides)]
    return packed, args.attrs()


def _cast(value: Any, dtype: dtypes.DType) -> Any:
    """`value` (a tensor or numpy data) in `dtype`."""
    if isinstance(value, TensorOperators):
        return value if value.dtype == dtype else run_op("Cast", [value], {"DstT": dtype})
    return np.asarray(value).astype(dtype.numpy_dtype)


def _rank(value: Any) -> int | None:
    if isinstance(value, TensorOperators):
        shape = value.shape
        return None if shape is None else len(shape)
    return int(np.ndim(value))
