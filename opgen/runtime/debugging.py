"""Runtime logging switches, as ``tf.debugging`` has them: device-placement logging and
the log level (``$OPGEN_LOG_LEVEL``). The runtime itself logs, on stderr, so programs
in every language that load it log the same lines (C: ``opgen/c_api_ext.h``)."""

from __future__ import annotations

import ctypes
from typing import Any

from opgen.runtime import _lib

# Level names, as $OPGEN_LOG_LEVEL accepts them: the least severity printed.
_LEVELS = {"info": 0, "warning": 1, "error": 2, "none": 3}


def _function(name: str, restype: Any, argtypes: list[Any]) -> Any:
    fn = getattr(_lib.lib(), name, None)
    if fn is None:
        raise NotImplementedError(f"the opgen runtime library in use predates "
                                  f"{name}: rebuild or reinstall opgen")
    fn.restype, fn.argtypes = restype, argtypes
    return fn


def set_log_device_placement(enabled: bool) -> None:
    """With ``True``, every op logs on stderr the device it runs on, as
    ``tf.debugging.set_log_device_placement`` does: eagerly, on every run,
    ``Executing op MatMul in device /job:localhost/replica:0/task:0/device:CPU:0``;
    in a session, once per node when its kernel is placed, ``y: (MatMul): <device>``.
    For the whole process; INFO messages, so hidden by ``OPGEN_LOG_LEVEL`` >= 1."""
    _function("OPGEN_SetLogDevicePlacement", None, [ctypes.c_int])(1 if enabled else 0)


def get_log_device_placement() -> bool:
    """Whether device placement is logged."""
    return bool(_function("OPGEN_GetLogDevicePlacement", ctypes.c_int, [])())


def set_log_level(level: int | str) -> None:
    """The least severity the runtime prints, as ``$OPGEN_LOG_LEVEL`` sets it at start:
    0 or ``"info"`` (everything), 1 or ``"warning"``, 2 or ``"error"``, 3 or ``"none"``."""
    if isinstance(level, str):
        if level.lower() not in _LEVELS:
            raise ValueError(f"unknown log level {level!r}; levels: {', '.join(_LEVELS)} "
                             "or 0-3")
        level = _LEVELS[level.lower()]
    if _function("OPGEN_SetLogLevel", ctypes.c_int, [ctypes.c_int])(int(level)) != 0:
        raise ValueError(f"log level {level!r} is not 0-3 ({', '.join(_LEVELS)})")


def get_log_level() -> int:
    """The runtime's log level, 0-3."""
    return int(_function("OPGEN_GetLogLevel", ctypes.c_int, [])())
