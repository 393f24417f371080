"""The process's runtime state that every layer above shares: which eager dispatch
backs this process (the compiled fast path, or ctypes alone), the eager context, and
its global random seed (``opgen.random.set_seed``).

Both are decided here once, so the modules above ask one place instead of each
probing for the compiled extension itself.
"""

from __future__ import annotations

import ctypes
import os
import random
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


# ---- the eager global seed (tf.random.set_seed's eager half) ------------------------------

_MAXINT32 = 2**31 - 1
_seed: int | None = None
_seed_rng: random.Random | None = None
_seed_lock = threading.Lock()


def set_global_seed(seed: int | None) -> None:
    """The eager global seed, as TensorFlow's eager context keeps it: op seeds for ops
    without one are drawn from ``random.Random(seed)``, and the context's cached kernels
    start over (TFE_ContextClearCaches), so seeded stateful ops repeat their sequence."""
    global _seed, _seed_rng
    with _seed_lock:
        _seed = None if seed is None else int(seed)
        _seed_rng = None if seed is None else random.Random(_seed)
    clear = _runtime_function("TFE_ContextClearCaches", None)
    if clear is not None:  # (a runtime older than the kernel cache has nothing to clear)
        clear(eager_context())


def global_seed() -> int | None:
    return _seed


def internal_operation_seed() -> int:
    """The next op seed for an eager random op given none (set_global_seed must have
    been called), as TensorFlow's context draws it."""
    with _seed_lock:
        assert _seed_rng is not None, "no global seed"
        return _seed_rng.randint(0, _MAXINT32)


def num_cached_kernels() -> int:
    """How many kernels the eager context caches (for tests and diagnostics)."""
    count = _runtime_function("OPGEN_ContextNumCachedKernels", ctypes.c_int64)
    return int(count(eager_context())) if count is not None else 0


def _runtime_function(name: str, restype):
    """The runtime's function `name` taking a TFE_Context*, or None where it lacks it."""
    fn = getattr(_lib.lib(), name, None)
    if fn is not None:
        fn.argtypes, fn.restype = [ctypes.c_void_p], restype
    return fn
