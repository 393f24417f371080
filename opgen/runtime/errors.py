"""Exceptions for failed ops, one class per TensorFlow error code.

The runtime reports failures through ``TF_Status``; :func:`raise_for_status` turns a
status into the matching class, so callers can catch e.g. ``InvalidArgumentError``
as they would with TensorFlow.
"""

from __future__ import annotations


class OpError(Exception):
    """An op failed. ``code`` is TensorFlow's error code, ``op_name`` the op type."""

    code = 2

    def __init__(self, message: str, op_name: str | None = None, code: int | None = None):
        super().__init__(message)
        self.message = message
        self.op_name = op_name
        if code is not None:
            self.code = code


class CancelledError(OpError): code = 1
class UnknownError(OpError): code = 2
class InvalidArgumentError(OpError, ValueError): code = 3
class DeadlineExceededError(OpError): code = 4
class NotFoundError(OpError, LookupError): code = 5
class AlreadyExistsError(OpError): code = 6
class PermissionDeniedError(OpError): code = 7
class ResourceExhaustedError(OpError): code = 8
class FailedPreconditionError(OpError): code = 9
class AbortedError(OpError): code = 10
class OutOfRangeError(OpError): code = 11
class UnimplementedError(OpError, NotImplementedError): code = 12
class InternalError(OpError): code = 13
class UnavailableError(OpError): code = 14
class DataLossError(OpError): code = 15
class UnauthenticatedError(OpError): code = 16

_BY_CODE = {cls.code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError,
    AbortedError, OutOfRangeError, UnimplementedError, InternalError, UnavailableError,
    DataLossError, UnauthenticatedError)}


def exception_class(code: int) -> type[OpError]:
    """The exception class for a TF error code (UnknownError for codes it does not know)."""
    return _BY_CODE.get(code, UnknownError)


# (code, message) of a raw ``TF_Status*``. This module sits below the ctypes layer
# (opgen.runtime._lib), which installs the reader when it loads the library: a raw
# status only exists once the library is loaded.
_raw_status_reader = None


def set_raw_status_reader(reader) -> None:
    """Called by opgen.runtime._lib: `reader(status) -> (code, message)`."""
    global _raw_status_reader
    _raw_status_reader = reader


def raise_for_status(status, op_name: str | None = None) -> None:
    """Raises the matching OpError when `status` is not OK. `status` is an
    ``_lib.Status`` or a raw ``TF_Status*`` (an int or ``ctypes.c_void_p``) of the
    loaded runtime. With `op_name`, the message starts "OpType: "."""
    if hasattr(status, "code") and hasattr(status, "message"):
        code = status.code
        if code == 0:
            return
        message = status.message
    else:
        if _raw_status_reader is None:
            raise TypeError("a raw TF_Status* before the opgen runtime was loaded")
        code, message = _raw_status_reader(status)
        if code == 0:
            return
    if op_name and not message.startswith(op_name):
        message = f"{op_name}: {message}"
    raise exception_class(code)(message, op_name, code)
