"""Host memory the runtime keeps for reuse.

Freed host buffers of 1 MiB and more are kept for later tensors of the same size (up to
``OPGEN_HOST_CACHE_MB`` megabytes, default 256; ``0`` turns reuse off), because a fresh
buffer costs a page fault and a page clear per page when it is first written, which is
as long as a memory-bound op itself. These functions let a program see and give back
that memory, e.g. after a large one-off computation.
"""

from __future__ import annotations

from opgen.runtime import _lib


def cached_host_memory_bytes() -> int:
    """Bytes of freed host tensor buffers the runtime keeps for reuse now."""
    fn = _lib.device_lib().OPGEN_CachedHostMemoryBytes
    return int(fn()) if fn is not None else 0


def release_cached_host_memory() -> int:
    """Frees the host buffers kept for reuse; returns how many bytes that gave back."""
    fn = _lib.device_lib().OPGEN_ReleaseCachedHostMemory
    return int(fn()) if fn is not None else 0
