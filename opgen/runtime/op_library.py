"""Op libraries (plugins) loaded at run time, wrapped as Python modules.

:func:`load_op_library` is opgen's ``tf.load_op_library``: ``TF_LoadLibrary`` runs the
library's registration code (load-time constructors), the OpList it registered is read
with ``TF_GetOpList``, and the Python generator renders wrappers for exactly those ops
into a module built in memory. The wrappers call ``execute_op`` like those of
:mod:`opgen.ops`, so they run eagerly, and build nodes when ``execute_op`` does.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import sys
import threading
import types

from opgen.protos import op_def_pb2
from opgen.runtime import _lib, errors

#: Parent name of the modules made for libraries; nothing is imported from it.
MODULE_PREFIX = "opgen.plugin_ops"

_lock = threading.Lock()
_modules: dict[str, types.ModuleType] = {}   # by the library's real path


def _declare(runtime: ctypes.CDLL) -> None:
    runtime.TF_LoadLibrary.restype = ctypes.c_void_p
    runtime.TF_LoadLibrary.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    runtime.TF_GetOpList.restype = _lib.TF_Buffer   # returned by value
    runtime.TF_GetOpList.argtypes = [ctypes.c_void_p]


def library_op_list(path: str | os.PathLike) -> op_def_pb2.OpList:
    """Loads the library at ``path`` into the runtime (once per process) and returns the
    OpList of the ops it registered. Raises an :class:`opgen.errors.OpError` subclass
    with the runtime's message when loading or registering fails: ``NotFoundError`` for
    a file that cannot be loaded, ``AlreadyExistsError`` for an op that was already
    registered (the registry keeps the earlier definition)."""
    runtime = _lib.lib()
    _declare(runtime)
    status = _lib.Status()
    handle = runtime.TF_LoadLibrary(os.fsencode(path), status.ptr)
    errors.raise_for_status(status)
    # The handle is not deleted: the runtime keeps the library mapped and its record
    # for later loads, which TF_DeleteLibraryHandle would only count down.
    buf = runtime.TF_GetOpList(handle)
    return op_def_pb2.OpList.FromString(ctypes.string_at(buf.data, buf.length))


def _module_name(path: str) -> str:
    stem = re.sub(r"\W", "_", os.path.basename(path).split(".")[0]) or "lib"
    digest = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{MODULE_PREFIX}.{stem}_{digest}"


def _build_module(oplist: op_def_pb2.OpList, name: str, path: str) -> types.ModuleType:
    """The generated Python package for ``oplist`` as modules in memory: the submodules
    are executed first and placed in sys.modules, where the package's lazy lookup finds
    them."""
    from opgen import generate

    files = {str(f.path): f.content.decode("utf-8") for f in generate.render(oplist, ["python"])}
    for file_name, source in sorted(files.items()):
        group = os.path.basename(file_name)[:-3]
        if not file_name.endswith(".py") or group == "__init__":
            continue
        sub = types.ModuleType(f"{name}.{group}")
        sub.__file__ = f"<generated for {path}: {group}.py>"
        exec(compile(source, sub.__file__, "exec"), sub.__dict__)
        sys.modules[sub.__name__] = sub
    package = types.ModuleType(name)
    package.__file__ = f"<generated for {path}>"
    package.__path__ = []          # a package, so the submodule names resolve
    exec(compile(files["python/__init__.py"], package.__file__, "exec"), package.__dict__)
    package.LIBRARY_PATH = path  # type: ignore[attr-defined]  # a module built at run time
    package.OP_LIST = oplist  # type: ignore[attr-defined]
    sys.modules[name] = package
    return package


def loaded_op_names() -> set[str]:
    """Names of the ops that libraries loaded through :func:`load_op_library` added."""
    with _lock:
        return {op.name for module in _modules.values() for op in module.OP_LIST.op}


def load_op_library(path: str | os.PathLike) -> types.ModuleType:
    """Loads an op library and returns a module with a generated wrapper per op it
    registers (``WeightedSum`` becomes ``weighted_sum``), as ``opgen.ops`` has for the
    built-in ops. Loading the same file again returns the same module. Raises as
    :func:`library_op_list` does; a failed load leaves the registry as it was."""
    real = os.path.realpath(os.fspath(path))
    with _lock:
        module = _modules.get(real)
        if module is None:
            oplist = library_op_list(real)
            module = _modules[real] = _build_module(oplist, _module_name(real), real)
        return module
