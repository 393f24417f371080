"""Loading TensorFlow SavedModels: ``opgen.saved_model.load(path)`` (and writing them:
``opgen.saved_model.save``, in saved_model_export.py).

A SavedModel directory holds ``saved_model.pb`` (a SavedModel proto: one MetaGraphDef per
tag set) and a ``variables/`` checkpoint. Loading picks the MetaGraphDef by its tags and
hands the rest to the C API's ``TF_LoadSessionFromSavedModel`` (runtime/src/saved_model.cc):
it imports the graph into a new Graph, restores the variables by running the saver's
restore op with the checkpoint prefix fed (as TensorFlow's loader does, for TF1 and TF2
models alike) and runs the model's init op. The SignatureDefs become callables::

    model = opgen.saved_model.load("my_model")
    outputs = model.signatures["serving_default"](x=np.ones((1, 4), np.float32))

TF2 SavedModels call their functions through ``StatefulPartitionedCall``, which the
runtime runs like any op: the same steps load TF1 and TF2 models.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf import message as _message

from opgen.protos import meta_graph_pb2, saved_model_pb2
from opgen.saved_model_export import save

if TYPE_CHECKING:  # the runtime loads when a model does
    from opgen.runtime.graph import Graph
    from opgen.runtime.session import Session

__all__ = ["load", "save", "LoadedSavedModel", "Signature", "read_saved_model",
           "select_meta_graph", "SERVING", "DEFAULT_SIGNATURE"]

SERVING = "serve"
DEFAULT_SIGNATURE = "serving_default"
# The signature TF2 SavedModels name their init op with: not one to call.
_INIT_SIGNATURE = "__saved_model_init_op"


def _errors() -> ModuleType:
    from opgen.runtime import errors
    return errors


def read_saved_model(path: str | os.PathLike[str]) -> saved_model_pb2.SavedModel:
    """The SavedModel proto of the directory `path` (NotFoundError when it has none,
    DataLossError when saved_model.pb does not parse)."""
    errors = _errors()
    directory = Path(path)
    pb = directory / "saved_model.pb"
    if not directory.is_dir():
        raise errors.NotFoundError(f"SavedModel directory {directory} does not exist")
    if not pb.is_file():
        text = directory / "saved_model.pbtxt"
        hint = " (saved_model.pbtxt, the text form, is not read)" if text.exists() else ""
        raise errors.NotFoundError(f"{directory} is not a SavedModel: it has no saved_model.pb"
                                   f"{hint}")
    try:
        saved = saved_model_pb2.SavedModel.FromString(pb.read_bytes())
    except _message.DecodeError as e:
        raise errors.DataLossError(f"{pb} is not a SavedModel proto: {e}") from None
    if not saved.meta_graphs:
        raise errors.DataLossError(f"{pb} holds no MetaGraphDef")
    return saved


def _tag_sets(saved: saved_model_pb2.SavedModel) -> str:
    return "; ".join("{" + ", ".join(sorted(m.meta_info_def.tags)) + "}"
                     for m in saved.meta_graphs)


def select_meta_graph(saved: saved_model_pb2.SavedModel,
                      tags: str | list[str] | set[str] | None = None,
                      where: str = "the SavedModel") -> meta_graph_pb2.MetaGraphDef:
    """The MetaGraphDef whose tag set equals `tags` (a tag or tags). Without `tags`: the
    only one, or the one tagged "serve" alone. NotFoundError lists the tag sets there are."""
    if tags is None:
        if len(saved.meta_graphs) == 1:
            return saved.meta_graphs[0]
        wanted = {SERVING}
    else:
        wanted = {tags} if isinstance(tags, str) else set(tags)
    for meta in saved.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    raise _errors().NotFoundError(
        f"{where} has no MetaGraphDef with tags {{{', '.join(sorted(wanted))}}}; "
        f"its tag sets are: {_tag_sets(saved)}")


class Signature:
    """One SignatureDef of a loaded model: call it with keyword inputs (numpy arrays,
    scalars, lists, opgen Tensors); it returns a dict of numpy arrays keyed as the
    SignatureDef's outputs."""

    def __init__(self, model: LoadedSavedModel, name: str, signature: meta_graph_pb2.SignatureDef):
        self.name = name
        self.signature_def = signature
        self._model = model
        self.inputs = {key: info for key, info in sorted(signature.inputs.items())}
        self.outputs = {key: info for key, info in sorted(signature.outputs.items())}
        for key, info in (*self.inputs.items(), *self.outputs.items()):
            if info.WhichOneof("encoding") != "name":
                raise _errors().UnimplementedError(
                    f"signature {name!r}: {key!r} is a {info.WhichOneof('encoding')} tensor; "
                    "opgen runs signatures of dense tensors only")

    def __call__(self, **inputs: Any) -> dict[str, np.ndarray]:
        missing = [k for k in self.inputs if k not in inputs
                   and k not in self.signature_def.defaults]
        unknown = [k for k in inputs if k not in self.inputs]
        if missing or unknown:
            raise TypeError(
                f"signature {self.name!r} takes the inputs {', '.join(self.inputs) or 'none'}"
                + (f"; missing: {', '.join(missing)}" if missing else "")
                + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        feeds = {}
        for key, info in self.inputs.items():
            if key in inputs:
                feeds[info.name] = self._model._feed_value(inputs[key], info, f"{self.name}/{key}")
            else:  # a default the SignatureDef carries
                feeds[info.name] = _tensor_proto_value(self.signature_def.defaults[key])
        fetches = {key: info.name for key, info in self.outputs.items()}
        outputs: dict[str, np.ndarray] = self._model.session.run(fetches, feeds)
        return outputs

    def __repr__(self) -> str:
        return (f"<opgen.saved_model.Signature {self.name!r} inputs={list(self.inputs)} "
                f"outputs={list(self.outputs)}>")


_VAL_FIELDS = ("float_val", "double_val", "int_val", "int64_val", "bool_val", "string_val",
               "uint32_val", "uint64_val")


def _tensor_proto_value(proto: Any) -> np.ndarray:
    """A SignatureDef default (a TensorProto) as numpy: its raw content, or its typed
    values with the last one repeated to fill the shape, as TensorFlow reads them."""
    from opgen.runtime import dtypes

    dtype = dtypes.as_dtype(proto.dtype)
    shape = [d.size for d in proto.tensor_shape.dim]
    count = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes.string:
        values = list(proto.string_val)
        out = np.empty(count, object)
        out[:] = (values + values[-1:] * count)[:count] if values else b""
        return out.reshape(shape)
    numpy_dtype = dtype.as_numpy_dtype
    if proto.tensor_content:
        content = np.frombuffer(proto.tensor_content, numpy_dtype).reshape(shape)
        return np.array(content)
    values = next((list(getattr(proto, f)) for f in _VAL_FIELDS if len(getattr(proto, f))), [])
    if not values:
        return np.zeros(shape, numpy_dtype)
    filled = values + values[-1:] * max(0, count - len(values))
    return np.array(filled[:count], numpy_dtype).reshape(shape)


class _Signatures(Mapping[str, "Signature"]):
    """name -> Signature; an unknown name raises KeyError listing the names there are."""

    def __init__(self, signatures: dict[str, Signature]):
        self._signatures = signatures

    def __getitem__(self, name: str) -> Signature:
        try:
            return self._signatures[name]
        except KeyError:
            raise KeyError(f"no signature {name!r}; this model's signatures are: "
                           f"{', '.join(self._signatures) or 'none'}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return f"<signatures {list(self._signatures)}>"


class LoadedSavedModel:
    """A SavedModel's MetaGraphDef imported into `graph`, its variables restored in
    `session`; `signatures` maps names to callables (the init-op signature is left out)."""

    def __init__(self, path: Path, meta_graph: meta_graph_pb2.MetaGraphDef, graph: Graph,
                 session: Session):
        self.path = path
        self.meta_graph = meta_graph
        self.graph = graph
        self.session = session
        self.tags = sorted(meta_graph.meta_info_def.tags)
        self.signatures = _Signatures({
            name: Signature(self, name, meta_graph.signature_def[name])
            for name in sorted(meta_graph.signature_def) if name != _INIT_SIGNATURE})

    def _feed_value(self, value: Any, info: meta_graph_pb2.TensorInfo, what: str) -> np.ndarray:
        from opgen.runtime import dtypes
        from opgen.runtime.tensor import Tensor

        if isinstance(value, Tensor):
            value = value.numpy()
        dtype = dtypes.as_dtype(info.dtype)
        if dtype == dtypes.string:
            return np.asarray(value, dtype=object)
        array = np.asarray(value)
        want = dtype.as_numpy_dtype
        if array.dtype != want and not np.can_cast(array.dtype, want, casting="same_kind"):
            raise _errors().InvalidArgumentError(
                f"{what}: wants {dtype.name}, got an array of {array.dtype}")
        return array.astype(want, copy=False)

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> LoadedSavedModel:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (f"<opgen.saved_model.LoadedSavedModel {str(self.path)!r} tags={self.tags} "
                f"signatures={list(self.signatures)}>")


def _load_session(directory: Path, tags: list[str], graph: Graph,
                  options: Any) -> tuple[Any, meta_graph_pb2.MetaGraphDef]:
    """TF_LoadSessionFromSavedModel into `graph`: the C session and the MetaGraphDef."""
    import ctypes

    from opgen.runtime import _lib
    from opgen.runtime.errors import exception_class
    from opgen.runtime.session import _with_c_options

    runtime = _lib.graph_lib()  # type: ignore[no-untyped-call]
    status = _lib.thread_status()
    tag_array = (ctypes.c_char_p * len(tags))(*[t.encode() for t in tags])
    buffer = runtime.TF_NewBuffer()
    try:
        c_session = _with_c_options(options, lambda c_options: runtime.TF_LoadSessionFromSavedModel(
            c_options, None, os.fsencode(directory), tag_array, len(tags), graph._c_graph,
            buffer, status.ptr))
        if status.code != 0:
            message = status.message
            missing = re.search(r"Op type not registered '([^']+)'", message)
            raise exception_class(status.code)(message, op_name=missing and missing.group(1))
        meta_bytes = ctypes.string_at(buffer.contents.data, buffer.contents.length)
    finally:
        runtime.TF_DeleteBuffer(buffer)
    return c_session, meta_graph_pb2.MetaGraphDef.FromString(meta_bytes)


def load(path: str | os.PathLike[str], tags: str | list[str] | set[str] | None = None,
         options: Any = None) -> LoadedSavedModel:
    """Loads the SavedModel directory `path`: the MetaGraphDef with tag set `tags` (None:
    the only one, or {"serve"}), imported into a new Graph and run by a new Session
    (`options`, an opgen.SessionOptions) with its variables restored and its init op run.
    Errors: NotFoundError (no such directory, tag set or checkpoint; the message lists the
    tag sets there are), DataLossError (a corrupt saved_model.pb or checkpoint),
    UnimplementedError (an op the runtime does not have, e.g. a TF2 model's
    StatefulPartitionedCall until functions run)."""
    import opgen
    from opgen.runtime.session import Session

    directory = Path(path)
    saved = read_saved_model(directory)
    meta = select_meta_graph(saved, tags, where=f"SavedModel {directory}")
    graph = opgen.Graph()
    c_session, meta = _load_session(directory, list(meta.meta_info_def.tags), graph, options)
    return LoadedSavedModel(directory, meta, graph, Session._from_c_session(graph, c_session))
