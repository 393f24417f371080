"""ctypes declarations of the graph, session and library C API, and small helpers the
graph tests share. Independent of opgen.runtime, so the tests check the C API itself."""

from __future__ import annotations

import ctypes

import numpy as np

c_void_p, c_int, c_char_p, c_size_t = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t
c_int64, c_float, c_ubyte = ctypes.c_int64, ctypes.c_float, ctypes.c_ubyte
P = ctypes.POINTER

TF_FLOAT, TF_DOUBLE, TF_INT32, TF_INT64, TF_BOOL = 1, 2, 3, 9, 10
OK, INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, OUT_OF_RANGE = 0, 3, 5, 6, 9, 11
NP_TO_TF = {np.dtype(np.float32): TF_FLOAT, np.dtype(np.float64): TF_DOUBLE,
            np.dtype(np.int32): TF_INT32, np.dtype(np.int64): TF_INT64, np.dtype(np.bool_): TF_BOOL,
            np.dtype(np.uint8): 4, np.dtype(np.complex64): 8,  # TF_UINT8, TF_COMPLEX64
            np.dtype(np.uint64): 23,  # TF_UINT64
            np.dtype(object): 7}  # TF_STRING (placeholders only)
TF_TO_NP = {v: k for k, v in NP_TO_TF.items()}


class TF_Output(ctypes.Structure):
    _fields_ = [("oper", c_void_p), ("index", c_int)]


class TF_Input(ctypes.Structure):
    _fields_ = [("oper", c_void_p), ("index", c_int)]


class TF_Buffer(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("length", c_size_t), ("data_deallocator", c_void_p)]


class TF_AttrMetadata(ctypes.Structure):
    _fields_ = [("is_list", c_ubyte), ("list_size", c_int64), ("type", c_int), ("total_size", c_int64)]


SIGNATURES = {
    "TF_NewStatus": (c_void_p, []), "TF_DeleteStatus": (None, [c_void_p]),
    "TF_GetCode": (c_int, [c_void_p]), "TF_Message": (c_char_p, [c_void_p]),
    "TF_NewBuffer": (P(TF_Buffer), []), "TF_DeleteBuffer": (None, [P(TF_Buffer)]),
    "TF_NewBufferFromString": (P(TF_Buffer), [c_void_p, c_size_t]),
    "TF_AllocateTensor": (c_void_p, [c_int, P(c_int64), c_int, c_size_t]),
    "TF_DeleteTensor": (None, [c_void_p]), "TF_TensorData": (c_void_p, [c_void_p]),
    "TF_TensorType": (c_int, [c_void_p]), "TF_NumDims": (c_int, [c_void_p]),
    "TF_Dim": (c_int64, [c_void_p, c_int]), "TF_TensorByteSize": (c_size_t, [c_void_p]),
    "TF_NewGraph": (c_void_p, []), "TF_DeleteGraph": (None, [c_void_p]),
    "TF_NewOperation": (c_void_p, [c_void_p, c_char_p, c_char_p]),
    "TF_SetDevice": (None, [c_void_p, c_char_p]),
    "TF_AddInput": (None, [c_void_p, TF_Output]),
    "TF_AddInputList": (None, [c_void_p, P(TF_Output), c_int]),
    "TF_AddControlInput": (None, [c_void_p, c_void_p]),
    "TF_ColocateWith": (None, [c_void_p, c_void_p]),
    "TF_SetAttrString": (None, [c_void_p, c_char_p, c_void_p, c_size_t]),
    "TF_SetAttrStringList": (None, [c_void_p, c_char_p, P(c_void_p), P(c_size_t), c_int]),
    "TF_SetAttrInt": (None, [c_void_p, c_char_p, c_int64]),
    "TF_SetAttrIntList": (None, [c_void_p, c_char_p, P(c_int64), c_int]),
    "TF_SetAttrFloat": (None, [c_void_p, c_char_p, c_float]),
    "TF_SetAttrFloatList": (None, [c_void_p, c_char_p, P(c_float), c_int]),
    "TF_SetAttrBool": (None, [c_void_p, c_char_p, c_ubyte]),
    "TF_SetAttrBoolList": (None, [c_void_p, c_char_p, P(c_ubyte), c_int]),
    "TF_SetAttrType": (None, [c_void_p, c_char_p, c_int]),
    "TF_SetAttrTypeList": (None, [c_void_p, c_char_p, P(c_int), c_int]),
    "TF_SetAttrShape": (None, [c_void_p, c_char_p, P(c_int64), c_int]),
    "TF_SetAttrShapeList": (None, [c_void_p, c_char_p, P(P(c_int64)), P(c_int), c_int]),
    "TF_SetAttrTensorShapeProto": (None, [c_void_p, c_char_p, c_void_p, c_size_t, c_void_p]),
    "TF_SetAttrTensor": (None, [c_void_p, c_char_p, c_void_p, c_void_p]),
    "TF_SetAttrTensorList": (None, [c_void_p, c_char_p, P(c_void_p), c_int, c_void_p]),
    "TF_SetAttrValueProto": (None, [c_void_p, c_char_p, c_void_p, c_size_t, c_void_p]),
    "TF_SetAttrFuncName": (None, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "TF_FinishOperation": (c_void_p, [c_void_p, c_void_p]),
    "TF_OperationName": (c_char_p, [c_void_p]), "TF_OperationOpType": (c_char_p, [c_void_p]),
    "TF_OperationDevice": (c_char_p, [c_void_p]),
    "TF_OperationNumOutputs": (c_int, [c_void_p]),
    "TF_OperationOutputType": (c_int, [TF_Output]),
    "TF_OperationOutputListLength": (c_int, [c_void_p, c_char_p, c_void_p]),
    "TF_OperationNumInputs": (c_int, [c_void_p]),
    "TF_OperationInputType": (c_int, [TF_Input]),
    "TF_OperationInputListLength": (c_int, [c_void_p, c_char_p, c_void_p]),
    "TF_OperationInput": (TF_Output, [TF_Input]),
    "TF_OperationOutputNumConsumers": (c_int, [TF_Output]),
    "TF_OperationOutputConsumers": (c_int, [TF_Output, P(TF_Input), c_int]),
    "TF_OperationNumControlInputs": (c_int, [c_void_p]),
    "TF_OperationGetControlInputs": (c_int, [c_void_p, P(c_void_p), c_int]),
    "TF_OperationNumControlOutputs": (c_int, [c_void_p]),
    "TF_OperationGetControlOutputs": (c_int, [c_void_p, P(c_void_p), c_int]),
    "TF_OperationGetAttrMetadata": (TF_AttrMetadata, [c_void_p, c_char_p, c_void_p]),
    "TF_OperationGetAttrString": (None, [c_void_p, c_char_p, c_void_p, c_size_t, c_void_p]),
    "TF_OperationGetAttrStringList": (None, [c_void_p, c_char_p, P(c_void_p), P(c_size_t), c_int, c_void_p, c_size_t, c_void_p]),
    "TF_OperationGetAttrInt": (None, [c_void_p, c_char_p, P(c_int64), c_void_p]),
    "TF_OperationGetAttrIntList": (None, [c_void_p, c_char_p, P(c_int64), c_int, c_void_p]),
    "TF_OperationGetAttrFloat": (None, [c_void_p, c_char_p, P(c_float), c_void_p]),
    "TF_OperationGetAttrFloatList": (None, [c_void_p, c_char_p, P(c_float), c_int, c_void_p]),
    "TF_OperationGetAttrBool": (None, [c_void_p, c_char_p, P(c_ubyte), c_void_p]),
    "TF_OperationGetAttrBoolList": (None, [c_void_p, c_char_p, P(c_ubyte), c_int, c_void_p]),
    "TF_OperationGetAttrType": (None, [c_void_p, c_char_p, P(c_int), c_void_p]),
    "TF_OperationGetAttrTypeList": (None, [c_void_p, c_char_p, P(c_int), c_int, c_void_p]),
    "TF_OperationGetAttrShape": (None, [c_void_p, c_char_p, P(c_int64), c_int, c_void_p]),
    "TF_OperationGetAttrShapeList": (None, [c_void_p, c_char_p, P(P(c_int64)), P(c_int), c_int, P(c_int64), c_int, c_void_p]),
    "TF_OperationGetAttrTensorShapeProto": (None, [c_void_p, c_char_p, P(TF_Buffer), c_void_p]),
    "TF_OperationGetAttrTensor": (None, [c_void_p, c_char_p, P(c_void_p), c_void_p]),
    "TF_OperationGetAttrTensorList": (None, [c_void_p, c_char_p, P(c_void_p), c_int, c_void_p]),
    "TF_OperationGetAttrValueProto": (None, [c_void_p, c_char_p, P(TF_Buffer), c_void_p]),
    "TF_OperationGetNumAttrs": (c_int, [c_void_p]),
    "TF_OperationGetAttrNameLength": (c_int, [c_void_p, c_int]),
    "TF_OperationGetAttrName": (None, [c_void_p, c_int, c_void_p, c_void_p]),
    "TF_OperationToNodeDef": (None, [c_void_p, P(TF_Buffer), c_void_p]),
    "TF_GraphOperationByName": (c_void_p, [c_void_p, c_char_p]),
    "TF_GraphNextOperation": (c_void_p, [c_void_p, P(c_size_t)]),
    "TF_GraphSetTensorShape": (None, [c_void_p, TF_Output, P(c_int64), c_int, c_void_p]),
    "TF_GraphGetTensorNumDims": (c_int, [c_void_p, TF_Output, c_void_p]),
    "TF_GraphGetTensorShape": (None, [c_void_p, TF_Output, P(c_int64), c_int, c_void_p]),
    "TF_GraphGetOpDef": (None, [c_void_p, c_char_p, P(TF_Buffer), c_void_p]),
    "TF_GraphToGraphDef": (None, [c_void_p, P(TF_Buffer), c_void_p]),
    "TF_NewImportGraphDefOptions": (c_void_p, []),
    "TF_DeleteImportGraphDefOptions": (None, [c_void_p]),
    "TF_ImportGraphDefOptionsSetPrefix": (None, [c_void_p, c_char_p]),
    "TF_ImportGraphDefOptionsAddInputMapping": (None, [c_void_p, c_char_p, c_int, TF_Output]),
    "TF_ImportGraphDefOptionsRemapControlDependency": (None, [c_void_p, c_char_p, c_void_p]),
    "TF_ImportGraphDefOptionsAddReturnOutput": (None, [c_void_p, c_char_p, c_int]),
    "TF_ImportGraphDefOptionsNumReturnOutputs": (c_int, [c_void_p]),
    "TF_ImportGraphDefOptionsAddReturnOperation": (None, [c_void_p, c_char_p]),
    "TF_GraphImportGraphDef": (None, [c_void_p, P(TF_Buffer), c_void_p, c_void_p]),
    "TF_GraphImportGraphDefWithReturnOutputs": (None, [c_void_p, P(TF_Buffer), c_void_p, P(TF_Output), c_int, c_void_p]),
    "TF_GraphImportGraphDefWithResults": (c_void_p, [c_void_p, P(TF_Buffer), c_void_p, c_void_p]),
    "TF_ImportGraphDefResultsReturnOutputs": (None, [c_void_p, P(c_int), P(P(TF_Output))]),
    "TF_ImportGraphDefResultsReturnOperations": (None, [c_void_p, P(c_int), P(P(c_void_p))]),
    "TF_ImportGraphDefResultsMissingUnusedInputMappings": (None, [c_void_p, P(c_int), P(P(c_char_p)), P(P(c_int))]),
    "TF_DeleteImportGraphDefResults": (None, [c_void_p]),
    "TF_NewSessionOptions": (c_void_p, []), "TF_DeleteSessionOptions": (None, [c_void_p]),
    "TF_SetTarget": (None, [c_void_p, c_char_p]),
    "TF_SetConfig": (None, [c_void_p, c_void_p, c_size_t, c_void_p]),
    "TF_NewSession": (c_void_p, [c_void_p, c_void_p, c_void_p]),
    "TF_CloseSession": (None, [c_void_p, c_void_p]),
    "TF_DeleteSession": (None, [c_void_p, c_void_p]),
    "TF_SessionRun": (None, [c_void_p, c_void_p, P(TF_Output), P(c_void_p), c_int, P(TF_Output),
                             P(c_void_p), c_int, P(c_void_p), c_int, P(TF_Buffer), c_void_p]),
    "TF_LoadLibrary": (c_void_p, [c_char_p, c_void_p]),
    "TF_GetOpList": (TF_Buffer, [c_void_p]),
    "TF_DeleteLibraryHandle": (None, [c_void_p]),
}


def declare(lib):
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


class CApiError(Exception):
    def __init__(self, code: int, message: str):
        super().__init__(f"[{code}] {message}")
        self.code, self.message = code, message


class Api:
    """The library plus one status, with helpers that raise CApiError on failure."""

    def __init__(self, lib):
        self.lib = declare(lib)
        self.status = lib.TF_NewStatus()

    def check(self):
        code = self.lib.TF_GetCode(self.status)
        if code != OK:
            raise CApiError(code, self.lib.TF_Message(self.status).decode())

    # ---- tensors
    def tensor(self, array) -> int:
        array = np.asarray(array, order="C")  # keeps 0-d arrays 0-d
        dims = (c_int64 * array.ndim)(*array.shape)
        t = self.lib.TF_AllocateTensor(NP_TO_TF[array.dtype], dims, array.ndim, array.nbytes)
        if array.nbytes:
            ctypes.memmove(self.lib.TF_TensorData(t), array.ctypes.data, array.nbytes)
        return t

    def to_numpy(self, t, delete=True) -> np.ndarray:
        shape = tuple(self.lib.TF_Dim(t, i) for i in range(self.lib.TF_NumDims(t)))
        out = np.empty(shape, TF_TO_NP[self.lib.TF_TensorType(t)])
        if out.nbytes:
            ctypes.memmove(out.ctypes.data, self.lib.TF_TensorData(t), out.nbytes)
        if delete:
            self.lib.TF_DeleteTensor(t)
        return out

    def buffer_bytes(self, fill) -> bytes:
        buf = self.lib.TF_NewBuffer()
        try:
            fill(buf)
            self.check()
            return ctypes.string_at(buf.contents.data, buf.contents.length)
        finally:
            self.lib.TF_DeleteBuffer(buf)

    # ---- graphs
    def op(self, graph, op_type, name, inputs=(), attrs=None, control_inputs=(), device=None):
        """Adds a node. `inputs`: TF_Output or list of TF_Output per input arg; `attrs`:
        name -> (setter suffix, value), or an ndarray for a tensor attr."""
        lib = self.lib
        desc = lib.TF_NewOperation(graph, op_type.encode(), name.encode())
        for x in inputs:
            if isinstance(x, (list, tuple)):
                lib.TF_AddInputList(desc, (TF_Output * len(x))(*x), len(x))
            else:
                lib.TF_AddInput(desc, x)
        for c in control_inputs:
            lib.TF_AddControlInput(desc, c)
        if device is not None:
            lib.TF_SetDevice(desc, device.encode())
        for attr, value in (attrs or {}).items():
            key = attr.encode()
            if isinstance(value, np.ndarray):
                t = self.tensor(value)
                lib.TF_SetAttrTensor(desc, key, t, self.status)
                lib.TF_DeleteTensor(t)
                self.check()
                continue
            kind, v = value
            if kind == "Type":
                lib.TF_SetAttrType(desc, key, v)
            elif kind == "Shape":
                if v is None:
                    lib.TF_SetAttrShape(desc, key, None, -1)
                else:
                    lib.TF_SetAttrShape(desc, key, (c_int64 * len(v))(*v), len(v))
            elif kind == "Bool":
                lib.TF_SetAttrBool(desc, key, int(v))
            elif kind == "Int":
                lib.TF_SetAttrInt(desc, key, v)
            elif kind == "Float":
                lib.TF_SetAttrFloat(desc, key, v)
            elif kind == "String":
                lib.TF_SetAttrString(desc, key, v, len(v))
            elif kind == "IntList":
                lib.TF_SetAttrIntList(desc, key, (c_int64 * len(v))(*v), len(v))
            else:
                raise ValueError(kind)
        oper = lib.TF_FinishOperation(desc, self.status)
        self.check()
        return oper

    def placeholder(self, graph, name, dtype=TF_FLOAT, shape=None):
        attrs = {"dtype": ("Type", dtype)}
        if shape is not None:
            attrs["shape"] = ("Shape", shape)
        return self.op(graph, "Placeholder", name, attrs=attrs)

    def const(self, graph, name, array):
        array = np.asarray(array)
        return self.op(graph, "Const", name,
                       attrs={"value": array, "dtype": ("Type", NP_TO_TF[array.dtype])})

    def graph_def(self, graph) -> bytes:
        return self.buffer_bytes(lambda buf: self.lib.TF_GraphToGraphDef(graph, buf, self.status))

    def import_graph_def(self, graph, data: bytes, prefix=None):
        opts = self.lib.TF_NewImportGraphDefOptions()
        if prefix is not None:
            self.lib.TF_ImportGraphDefOptionsSetPrefix(opts, prefix.encode())
        buf = self.lib.TF_NewBufferFromString(data, len(data))
        self.lib.TF_GraphImportGraphDef(graph, buf, opts, self.status)
        self.lib.TF_DeleteBuffer(buf)
        self.lib.TF_DeleteImportGraphDefOptions(opts)
        self.check()

    # ---- sessions
    def session(self, graph):
        opts = self.lib.TF_NewSessionOptions()
        sess = self.lib.TF_NewSession(graph, opts, self.status)
        self.lib.TF_DeleteSessionOptions(opts)
        self.check()
        return sess

    def run(self, sess, feeds=(), fetches=(), targets=(), status=None):
        """Runs `sess`; `feeds`: (TF_Output, array) pairs. Returns numpy arrays."""
        lib = self.lib
        status = status or self.status
        feeds = list(feeds)
        in_ops = (TF_Output * len(feeds))(*[k for k, _ in feeds])
        in_vals = (c_void_p * len(feeds))(*[self.tensor(v) for _, v in feeds])
        out_ops = (TF_Output * len(fetches))(*fetches)
        out_vals = (c_void_p * len(fetches))()
        tgts = (c_void_p * len(targets))(*targets)
        lib.TF_SessionRun(sess, None, in_ops, in_vals, len(feeds), out_ops, out_vals,
                          len(fetches), tgts, len(targets), None, status)
        for t in in_vals:
            lib.TF_DeleteTensor(t)
        code = lib.TF_GetCode(status)
        if code != OK:
            assert all(v is None for v in out_vals), "outputs must be NULL on failure"
            raise CApiError(code, lib.TF_Message(status).decode())
        return [self.to_numpy(t) for t in out_vals]

    def close(self):
        self.lib.TF_DeleteStatus(self.status)


def out(oper, index=0) -> TF_Output:
    return TF_Output(oper, index)
