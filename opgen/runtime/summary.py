"""TensorBoard summaries: scalars and graphs written to an event file that
``tensorboard --logdir`` reads, through the runtime's ``OPGEN_EventsWriter`` C API
(``opgen/summary.h``), the same writer the C, C++, Rust and Go bindings call.

The API follows ``tf.summary``::

    writer = opgen.summary.create_file_writer("logs/run1")
    with writer.as_default():
        for step in range(100):
            opgen.summary.scalar("loss", loss_value, step=step)
    writer.graph(graph)  # the Graphs tab
    writer.close()
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
import types
from collections.abc import Iterator

import numpy as np

from opgen.runtime import _lib, errors
from opgen.runtime.graph import Graph

__all__ = ["SummaryWriter", "create_file_writer", "scalar"]

_SIGNATURES = {
    "OPGEN_NewEventsWriter": (ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p]),
    "OPGEN_EventsWriterFileName": (ctypes.c_char_p, [ctypes.c_void_p]),
    "OPGEN_EventsWriterAddScalar": (None, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64,
                                           ctypes.c_float, ctypes.c_void_p]),
    "OPGEN_EventsWriterAddGraph": (None, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
    "OPGEN_EventsWriterAddEvent": (None, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                          ctypes.c_void_p]),
    "OPGEN_EventsWriterFlush": (None, [ctypes.c_void_p, ctypes.c_void_p]),
    "OPGEN_DeleteEventsWriter": (None, [ctypes.c_void_p]),
}
_functions: types.SimpleNamespace | None = None
_default = threading.local()  # the writer `as_default()` made current, per thread


def _c() -> types.SimpleNamespace:
    global _functions
    if _functions is None:
        _functions = _lib.declared(_SIGNATURES)
    return _functions


class SummaryWriter:
    """One event file in a log directory. Make it with :func:`create_file_writer`."""

    def __init__(self, logdir: str | os.PathLike[str], filename_suffix: str | None = None):
        c = _c()
        status = _lib.Status()
        self._ptr = c.OPGEN_NewEventsWriter(os.fsencode(logdir),
                                            (filename_suffix or "").encode(), status.ptr)
        errors.raise_for_status(status)
        self._c = c
        self.logdir = os.fspath(logdir)
        self.path: str = c.OPGEN_EventsWriterFileName(self._ptr).decode()

    def _writer(self) -> int:
        if not self._ptr:
            raise ValueError(f"the summary writer for {self.path} is closed")
        return self._ptr

    def scalar(self, name: str, data, step: int) -> None:
        """Logs `data` (a number, or a one-element array or tensor) under `name` at `step`."""
        value = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
        if value.size != 1 or not np.issubdtype(value.dtype, np.number):
            raise ValueError(f"summary scalar {name!r} must be one number, got "
                             f"{value.dtype} of shape {value.shape}")
        status = _lib.Status()
        self._c.OPGEN_EventsWriterAddScalar(self._writer(), name.encode(), int(step),
                                            float(value.reshape(())), status.ptr)
        errors.raise_for_status(status)

    def graph(self, graph: Graph) -> None:
        """Logs `graph` for TensorBoard's graph view."""
        status = _lib.Status()
        self._c.OPGEN_EventsWriterAddGraph(self._writer(), graph._c_graph, status.ptr)
        errors.raise_for_status(status)

    def add_event(self, event: bytes) -> None:
        """Writes a serialized ``tensorflow.Event`` proto as it is (any summary kind)."""
        status = _lib.Status()
        self._c.OPGEN_EventsWriterAddEvent(self._writer(), event, len(event), status.ptr)
        errors.raise_for_status(status)

    def flush(self) -> None:
        status = _lib.Status()
        self._c.OPGEN_EventsWriterFlush(self._writer(), status.ptr)
        errors.raise_for_status(status)

    def close(self) -> None:
        """Flushes and closes the file; closing twice is allowed."""
        if self._ptr:
            self._c.OPGEN_DeleteEventsWriter(self._ptr)
            self._ptr = None

    @contextlib.contextmanager
    def as_default(self) -> Iterator[SummaryWriter]:
        """Makes this the writer :func:`scalar` writes to, inside the ``with`` block."""
        previous = getattr(_default, "writer", None)
        _default.writer = self
        try:
            yield self
        finally:
            _default.writer = previous
            if self._ptr:
                self.flush()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_ptr", None):
            self.close()


def create_file_writer(logdir: str | os.PathLike[str],
                       filename_suffix: str | None = None) -> SummaryWriter:
    """A writer of a new event file in `logdir` (created if missing), as
    ``tf.summary.create_file_writer``."""
    return SummaryWriter(logdir, filename_suffix)


def scalar(name: str, data, step: int) -> bool:
    """Logs a scalar to the default writer (see :meth:`SummaryWriter.as_default`).
    Returns False, writing nothing, when there is none, as ``tf.summary.scalar`` does."""
    writer = getattr(_default, "writer", None)
    if writer is None:
        return False
    writer.scalar(name, data, step)
    return True
