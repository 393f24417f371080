"""The process's runtime state that every layer above shares: which eager dispatch
backs this process (the compiled fast path, or ctypes alone), and the eager context.

Both are decided here once, so the modules above ask one place instead of each
probing for the compiled extension itself.
"""

from __future__ import annotations

import os
import threading

from opgen.runtime import _lib, errors


def _load_fast_path():
    """The compiled fast path (opgen.runtime._eager_fastpath), or None where it is not
    built or $OPGEN_DISABLE_FAST_PATH is set; everything works without it, slower."""
    if os.environ.get("OPGEN_DISABLE_FAST_PATH"):
        return None
    try:
        from opgen.runtime import _eager_fastpath  # type: ignore[attr-defined]  # compiled, may be absent
    except ImportError:
        return None
    if not hasattr(_eager_fastpath, "set_eager_device"):
        return None  # a build older than device scopes would ignore them
    return _eager_fastpath


#: The compiled extension module, or None: then Tensor keeps its storage through
#: ctypes (opgen.runtime._tensor_storage) and execute_op is the Python path.
fast_path = _load_fast_path()

_ctx = None
_ctx_lock = threading.Lock()


def eager_context() -> int:
    """The process-wide ``TFE_Context*``, created on first use (the runtime then
    initialises and loads its device plugins)."""
    global _ctx
    if _ctx is None:
        with _ctx_lock:
            if _ctx is None:
                lib = _lib.lib()
                status = _lib.thread_status()
                options = lib.TFE_NewContextOptions()
                ctx = lib.TFE_NewContext(options, status.ptr)
                lib.TFE_DeleteContextOptions(options)
                errors.raise_for_status(status)
                _ctx = ctx
    return _ctx
