"""Writing SavedModels: ``opgen.saved_model.save(export_dir, signatures)``.

The functions a model was trained with become its serving signatures::

    @opgen.function(input_signature=[opgen.TensorSpec([None, 4], opgen.float32, name="x")])
    def serve(x):
        return {"y": model(x)}

    opgen.saved_model.save("/tmp/model/1", {"serving_default": serve})

The directory is what TensorFlow's loaders, TensorFlow Serving and
``opgen.saved_model.load`` read: ``saved_model.pb`` holds one MetaGraphDef (tag "serve")
whose graph calls each signature's function (``StatefulPartitionedCall``, the function in
the graph's library) on a Placeholder per input, with one ``VarHandleOp`` per variable the
functions read; its SaverDef names the ``save/...`` nodes that restore the variables
from ``variables/variables`` (a tensor bundle written here, keys the variables' names).
Its SignatureDefs map the input names to the Placeholders and the output names (a
returned dict's keys, else ``output_0`` ...) to the call's results.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from opgen.protos import meta_graph_pb2, saved_model_pb2, saver_pb2, tensor_shape_pb2

SERVING = "serve"
_PREDICT = "tensorflow/serving/predict"


def _concrete(name: str, fn: Any) -> tuple[Any, list[str]]:
    """The trace to export for signature `name`, and its inputs' names."""
    from opgen.runtime.functions import ConcreteFunction, Function

    if isinstance(fn, Function):
        if fn.input_signature is None:
            raise ValueError(f"signature '{name}': the function needs an input_signature "
                             "(opgen.function(input_signature=[opgen.TensorSpec(...)]))")
        params = list(inspect.signature(fn.python_function).parameters)
        names = [spec.name or (params[i] if i < len(params) else f"input_{i}")
                 for i, spec in enumerate(fn.input_signature)]
        return fn.get_concrete_function(), names
    if isinstance(fn, ConcreteFunction):
        return fn, [f"input_{i}" for i in range(len(fn.graph.inputs))]
    raise TypeError(f"signature '{name}' is a {type(fn).__name__}, not an opgen.function")


def _shape_proto(shape: Any) -> tensor_shape_pb2.TensorShapeProto:
    proto = tensor_shape_pb2.TensorShapeProto()
    if shape is None:
        proto.unknown_rank = True
    else:
        for d in shape:
            proto.dim.add(size=-1 if d is None else int(d))
    return proto


def _tensor_info(output: Any) -> meta_graph_pb2.TensorInfo:
    return meta_graph_pb2.TensorInfo(name=output.name, dtype=output.dtype.as_datatype_enum,
                                     tensor_shape=_shape_proto(output.shape))


def _output_names(structure: Any, count: int) -> list[str]:
    """The results' names: a returned dict's keys (in the sorted order the flat results
    have), else output_0, output_1 ..."""
    if isinstance(structure, Mapping) and all(s == 0 for s in structure.values()):
        names = [str(k) for k in sorted(structure)]
        if len(names) == count:
            return names
    return [f"output_{i}" for i in range(count)]


class _Export:
    """The export graph: one VarHandleOp per variable, the signatures' calls, the saver."""

    def __init__(self) -> None:
        import opgen

        self.graph = opgen.Graph()
        self.handles: dict[int, Any] = {}     # id(variable) -> its VarHandleOp's output
        self.variables: dict[str, Any] = {}   # checkpoint key -> variable

    def handle(self, variable: Any) -> Any:
        found = self.handles.get(id(variable))
        if found is not None:
            return found
        base = variable.name[:-2] if variable.name.endswith(":0") else variable.name
        key, n = base, 1
        while key in self.variables:
            key, n = f"{base}_{n}", n + 1
        self.variables[key] = variable
        op = self.graph.create_op("VarHandleOp", [], {
            "dtype": variable.dtype, "shape": list(variable.shape or ()),
            "shared_name": key, "container": ""}, name=key)
        self.handles[id(variable)] = op.outputs[0]
        return op.outputs[0]

    def signature(self, name: str, concrete: Any, input_names: list[str]
                  ) -> meta_graph_pb2.SignatureDef:
        g = self.graph
        if concrete.graph.captures:
            raise ValueError(f"signature '{name}' was traced inside a graph; export functions "
                             "traced eagerly")
        sig = meta_graph_pb2.SignatureDef(method_name=_PREDICT)
        args = []
        for input_name, ph in zip(input_names, concrete.graph.inputs):
            attrs: dict[str, Any] = {"dtype": ph.dtype}
            if ph.shape is not None:
                attrs["shape"] = list(ph.shape)
            arg = g.create_op("Placeholder", [], attrs, name=f"{name}_{input_name}").outputs[0]
            sig.inputs[input_name].CopyFrom(_tensor_info(arg))
            args.append(arg)
        captured = []
        for handle, ref, _ in concrete.graph.eager_captures:
            variable = ref()
            if handle is None or variable is None:
                raise ValueError(f"signature '{name}' reads a variable that is gone")
            captured.append(self.handle(variable))
        with g.as_default():
            outputs = concrete.call_flat([*args, *captured])
            keys = _output_names(concrete.structure, len(outputs))
            for key, out, shape in zip(keys, outputs, concrete.output_shapes):
                named = g.create_op("Identity", [out], {}, name=f"{name}_{key}").outputs[0]
                sig.outputs[key].CopyFrom(_tensor_info(named))
                sig.outputs[key].tensor_shape.CopyFrom(_shape_proto(shape))  # the trace's
        return sig

    def saver(self) -> saver_pb2.SaverDef:
        """The save/... nodes TensorFlow's loaders run to restore the variables."""
        from opgen.runtime import dtypes, graph_mode

        g = self.graph
        keys = list(self.variables)
        handles = [self.handles[id(v)] for v in self.variables.values()]
        types = [v.dtype for v in self.variables.values()]
        with g.as_default(), g.name_scope("save"):
            path = g.create_op("Placeholder", [], {"dtype": dtypes.string, "shape": []},
                               name="Const").outputs[0]
            reads = [g.create_op("ReadVariableOp", [h], {"dtype": t}).outputs[0]
                     for h, t in zip(handles, types)]
            save = graph_mode.build_op(g, "SaveV2", [path, keys, [""] * len(keys), reads], {},
                                       name="SaveV2")
            done = g.create_op("Identity", [path], {}, name="control_dependency",
                               control_inputs=[save])
            restored = graph_mode.build_op(g, "RestoreV2", [path, keys, [""] * len(keys)],
                                           {"dtypes": types}, name="RestoreV2")[0]
            assigns = [g.create_op("AssignVariableOp", [h, value], {"dtype": t},
                                   name="AssignVariableOp")
                       for h, value, t in zip(handles, restored, types)]
            restore = g.create_op("NoOp", [], {}, name="restore_all", control_inputs=assigns)
        return saver_pb2.SaverDef(
            filename_tensor_name=path.name, save_tensor_name=done.outputs[0].name,
            restore_op_name=restore.name, max_to_keep=5, sharded=False,
            keep_checkpoint_every_n_hours=10000.0,
            version=saver_pb2.SaverDef.V2)


def save(export_dir: str | os.PathLike[str], signatures: Any,
         tags: tuple[str, ...] = (SERVING,)) -> None:
    """Writes a SavedModel to `export_dir` (a new or empty directory): `signatures` maps
    signature names to ``opgen.function``s with an input_signature (or their concrete
    traces); one function alone is ``serving_default``. The variables the functions read
    (eager ``opgen.Variable``s) are saved with their current values."""
    from opgen.runtime import eager
    from opgen.runtime.functions import ConcreteFunction, Function

    if isinstance(signatures, (Function, ConcreteFunction)):
        signatures = {"serving_default": signatures}
    if not signatures:
        raise ValueError("save needs at least one signature")
    directory = Path(export_dir)
    if directory.exists() and any(directory.iterdir()):
        raise FileExistsError(f"SavedModel directory {directory} exists and is not empty")
    export = _Export()
    meta = meta_graph_pb2.MetaGraphDef()
    for name, fn in signatures.items():
        concrete, input_names = _concrete(name, fn)
        meta.signature_def[name].CopyFrom(export.signature(name, concrete, input_names))
    if export.variables:
        meta.saver_def.CopyFrom(export.saver())
    meta.meta_info_def.tags.extend(tags)
    meta.meta_info_def.meta_graph_version = "opgen"
    meta.graph_def.CopyFrom(export.graph.as_graph_def())
    (directory / "variables").mkdir(parents=True, exist_ok=True)
    if export.variables:
        keys = list(export.variables)
        eager.execute_eager("SaveV2", [str(directory / "variables" / "variables"), keys,
                                       [""] * len(keys),
                                       [v.read_value() for v in export.variables.values()]],
                            {})
    saved = saved_model_pb2.SavedModel(saved_model_schema_version=1)
    saved.meta_graphs.add().CopyFrom(meta)
    (directory / "saved_model.pb").write_bytes(saved.SerializeToString())
