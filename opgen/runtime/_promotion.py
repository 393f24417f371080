"""The dtypes of Python operators on tensors (``t + 1``, ``2 ** t``, ``t / u`` ...): the
rules TensorFlow 2.x applies by default (no numpy-style promotion), written down here
and tested in tests/python_runtime/test_tensor_operators.py against TensorFlow itself.

For ``x OP y`` where `x` is an ``opgen.Tensor`` or graph ``opgen.Output`` (and for the
reflected ``y OP x``), the other operand `y`:

1. **A tensor** (Tensor or Output) is never converted: both must already have the same
   dtype, else the op refuses them (``float32 + int32`` raises InvalidArgumentError,
   as ``tf.constant(1.) + tf.constant(1)`` does). There is no implicit promotion
   between tensors, whatever their dtypes.
2. **A Python scalar or (nested) list** takes the tensor's dtype, where no data is
   lost: ``int32_t + 2`` is int32, ``float16_t * 2.5`` is float16, ``int32_t + True``
   is int32 (bool -> int is allowed), but ``int32_t + 2.5`` (float -> int),
   ``bool_t & 1`` (int -> bool) and ``float32_t + 1j`` (complex -> real) raise
   TypeError. An int that does not fit the dtype raises too (TensorFlow wraps it
   around silently; opgen refuses: ``uint8_t + 300``).
3. **numpy data** (an array or a numpy scalar) is cast to the tensor's dtype, as
   TensorFlow casts it (numpy's ``astype``): ``float32_t + np.float64(1)`` and
   ``float32_t + np.arange(3)`` are float32, ``int32_t + np.array([1.5])`` is int32
   (1.5 truncates to 1, as in TensorFlow). numpy's own promotion (float32 + float64
   -> float64) never applies: the tensor's dtype wins. Where the tensor's dtype has
   no numpy equivalent (string), the data goes to the op as it is.
4. Anything else (None, arbitrary objects) is not an operand: the operator returns
   NotImplemented, so Python tries the other object's reflected method and then
   raises TypeError.

Per operator, on top of that (TensorFlow's ``math_ops``):

- ``/`` (``__truediv__``) casts integer operands to floats first: int8, uint8, int16,
  uint16 -> float32; int32, uint32, int64, uint64 -> float64 (``int32_t / 2`` is
  float64); floats and complex divide in their own dtype (RealDiv).
- ``//`` is FloorDiv, ``%`` FloorMod, ``**`` Pow, all in the operands' dtype.
- ``&``, ``|``, ``^``, ``~`` are logical on bool tensors (LogicalAnd, LogicalOr,
  xor as NotEqual, LogicalNot) and bitwise on integers (BitwiseAnd/Or/Xor, Invert).
- comparisons give bool tensors; ``==``/``!=`` on eager tensors are elementwise
  (Equal/NotEqual with ``incompatible_shape_error=False``: operands that do not
  broadcast compare as unequal, a scalar False/True) and ``t == None`` is False;
  graph Outputs compare by identity, as tensors of a TensorFlow ``tf.Graph`` do.
- ``abs`` of complex64/complex128 is ComplexAbs (float32/float64), else Abs.
- ``@`` is MatMul for two matrices, BatchMatMulV2 for anything of another or
  unknown rank (both broadcast batch dimensions).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from opgen.runtime import _convert, dtypes
from opgen.runtime.errors import InvalidArgumentError

# Integer dtypes and the float dtype ``/`` computes them in (TensorFlow's truediv).
TRUEDIV_FLOAT: dict[dtypes.DType, dtypes.DType] = {
    dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32,
    dtypes.int16: dtypes.float32, dtypes.uint16: dtypes.float32,
    dtypes.int32: dtypes.float64, dtypes.uint32: dtypes.float64,
    dtypes.int64: dtypes.float64, dtypes.uint64: dtypes.float64,
}

# Python values that become tensors (rule 2); others are not operands (rule 4).
_PYTHON_OPERANDS = (numbers.Number, bool, list, tuple, str, bytes)


def is_operand(value: object) -> bool:
    """Whether `value` can be the other operand of a tensor operator (rules 2, 3)."""
    return isinstance(value, (np.ndarray, np.generic) + _PYTHON_OPERANDS)


def operand_as(value: Any, dtype: dtypes.DType) -> Any:
    """`value`, a non-tensor operand (Python or numpy data), as data of `dtype` under
    rules 2 and 3: a numpy array of exactly `dtype`, or `value` unchanged where `dtype`
    has no numpy equivalent. TypeError when rule 2 refuses it."""
    np_dtype = dtype.numpy_dtype
    if np_dtype is None:
        return value
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind in "OUSV" and array.dtype != np_dtype:
            raise TypeError(f"cannot use numpy {array.dtype} data as {dtype.name}")
        return array.astype(np_dtype, copy=False)
    if isinstance(value, bool) and not dtype.is_bool:
        return np.asarray(value).astype(np_dtype)  # True + int32_t: bool -> number
    try:
        return _convert.python_value_as(value, dtype)
    except InvalidArgumentError as e:
        raise TypeError(e.message) from None
