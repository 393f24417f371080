"""The differential test's calls: for every registered CPU kernel (an op and the dtypes
its type attrs are pinned to: a *pair*), the op's one valid call (adversarial_cases.
baseline) in those dtypes, then the same call with the data inputs (those typed by a
non-index type attr) holding random values, special values (NaN, +-inf, -0.0,
subnormals, float and integer extremes) and, where the op is element-wise, no elements;
plus hand-written calls for the disagreement classes of issue 18 (EXTRA_CASES).

Everything here is deterministic (one seed), so the TensorFlow child and the test see
the same calls, and a pair's cases are built alone (``cases_for_pair``)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

import adversarial_cases as ac
from opgen.runtime import dtypes

try:
    from ml_dtypes import bfloat16
except ImportError:  # ml_dtypes is a dependency of opgen
    bfloat16 = None

SEED = 20261127

# Ops the comparison leaves out, and why (docs/conformance.md lists them too).
NOT_COMPARED = {
    "Const": "its value is an attr (a TensorProto), not an input: nothing to vary",
    "NoOp": "no outputs",
    "Placeholder": "has no value outside a fed graph",
    "PlaceholderWithDefault": "the identity on its default: tested by the graph tests",
    "Enter": "a control-flow frame op: no eager meaning in TensorFlow",
    "Exit": "a control-flow frame op: no eager meaning in TensorFlow",
    "NextIteration": "a control-flow frame op: no eager meaning in TensorFlow",
    "LoopCond": "a control-flow frame op: no eager meaning in TensorFlow",
    "Merge": "a control-flow op of graphs: no eager meaning in TensorFlow",
    "Switch": "a control-flow op of graphs: TensorFlow's eager Switch returns both outputs",
    "ControlTrigger": "no outputs",
    **{op: "resource variables hold state behind a DT_RESOURCE handle, not a function of "
           "array inputs: tests/python_runtime/test_variables.py compares them with TensorFlow"
       for op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                  "AssignSubVariableOp", "VarIsInitializedOp", "DestroyResourceOp",
                  "DisableCopyOnRead")},
    "AccumulateNV2": "TensorFlow registers no kernel (a graph pass rewrites it into other "
                     "ops); tests/python_runtime/test_math_family_ops.py compares it with "
                     "TensorFlow's AddN",
    "VariableShape": "a resource variable's shape behind a DT_RESOURCE handle: "
                     "tests/python_runtime/test_everyday_array_ops.py compares it with "
                     "TensorFlow",
    **{op: "resource variables hold state behind a DT_RESOURCE handle: "
           "tests/python_runtime/test_scatter_segment.py compares them with TensorFlow"
       for op in ("ResourceGather", "ResourceScatterAdd", "ResourceScatterSub",
                  "ResourceScatterUpdate")},
    **{op: "resource variables hold state behind a DT_RESOURCE handle: "
           "tests/python_runtime/test_variable_updates.py compares them with TensorFlow"
       for op in ("ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin",
                  "ResourceScatterMax", "ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                  "ResourceScatterNdSub", "ResourceScatterNdMin", "ResourceScatterNdMax",
                  "ResourceGatherNd", "ResourceStridedSliceAssign")},
    **{op: "optimizer steps update resource variables, not a function of array inputs: "
           "tests/python_runtime/test_variable_updates.py compares them with TensorFlow"
       for op in ("ResourceApplyAdamWithAmsgrad", "ResourceApplyAdagradDA",
                  "ResourceSparseApplyAdagradDA")},
    **{op: "string operands (file names and patterns of the save/restore graphs): "
           "tests/python_runtime/test_string_ops.py, and the SavedModel tests run them in "
           "TensorFlow's own graphs"
       for op in ("StringJoin", "ShardedFilename", "ShardedFilespec", "StaticRegexFullMatch")},
    **{op: "string output or string operands (Keras' Hashing): "
           "tests/python_runtime/test_preprocessing_ops.py compares them with TensorFlow, "
           "bit for bit"
       for op in ("AsString", "StringToHashBucketFast", "StringToHashBucketStrong",
                  "Fingerprint")},
    **{op: "serialized tf.Example operands (string tensors of a protobuf encoding): "
           "tests/python_runtime/test_parse_example.py compares them with TensorFlow"
       for op in ("ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor",
                  "SerializeTensor")},
    **{op: "string operands (text preprocessing): tests/python_runtime/test_text_ops.py "
           "compares them with TensorFlow, test_text_models.py runs them in Keras' graphs"
       for op in ("StringLower", "StringUpper", "StringStrip", "StaticRegexReplace",
                  "RegexReplace", "StringSplitV2", "StringNGrams", "Substr")},
    **{op: "string operands (the everyday tf.strings ops): "
           "tests/python_runtime/test_everyday_string_ops.py compares them with TensorFlow, "
           "error messages included"
       for op in ("StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin",
                  "UnsortedSegmentJoin", "StringSplit", "StringToHashBucket", "EncodeBase64",
                  "DecodeBase64", "UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
                  "UnicodeTranscode", "UnicodeScript")},
    **{op: "text made from tensors (a string output, or none: Assert fails on purpose, "
           "PrintV2 writes to a stream): tests/python_runtime/test_debug_ops.py compares "
           "their text and messages with TensorFlow's"
       for op in ("Assert", "PrintV2", "StringFormat")},
    "RaggedTensorToTensor": "row splits must be valid partitions, not random values: "
                            "tests/python_runtime/test_text_ops.py compares it with TensorFlow",
    **{op: "lookup tables hold state behind a DT_RESOURCE handle, not a function of array "
           "inputs: tests/python_runtime/test_lookup_tables.py and test_text_models.py"
       for op in ("HashTableV2", "MutableHashTableV2", "LookupTableImportV2",
                  "InitializeTableV2", "LookupTableInsertV2", "LookupTableFindV2",
                  "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2", "LookupTableExportV2")},
    **{op: "calls functions of a graph's library, not a function of array inputs alone: "
           "tests/python_runtime/test_tf_functions.py and the SavedModel tests compare them "
           "with TensorFlow"
       for op in ("PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
                  "StatelessCase", "While", "StatelessWhile")},
    **{op: "checkpoint files, not a function of array inputs: "
           "tests/conformance/test_checkpoints_tf.py compares them with TensorFlow"
       for op in ("SaveV2", "RestoreV2", "MergeV2Checkpoints")},
    **{op: "optimizer steps update resource variables, not a function of array inputs: "
           "tests/python_runtime/test_training_vs_tensorflow.py compares them with TensorFlow"
       for op in ("ResourceApplyAdagrad", "ResourceApplyAdam", "ResourceApplyGradientDescent",
                  "ResourceApplyKerasMomentum", "ResourceApplyMomentum", "ResourceApplyRMSProp")},
    **{op: "optimizer steps update resource variables, not a function of array inputs: "
           "tests/python_runtime/test_training_ops_more.py compares them with TensorFlow"
       for op in ac.TF1_OPTIMIZER_OPS},
    **{op: "random ops: tests/python_runtime/test_random_ops.py compares them with TensorFlow "
           "bit for bit (stateless ones over shapes, seeds and algorithms; stateful ones over two "
           "runs of a seeded graph node)"
       for op in ['RandomUniform', 'RandomStandardNormal', 'TruncatedNormal', 'RandomUniformInt', 'StatelessRandomUniform', 'StatelessRandomNormal', 'StatelessTruncatedNormal', 'StatelessRandomUniformInt', 'StatelessRandomUniformV2', 'StatelessRandomNormalV2', 'StatelessTruncatedNormalV2', 'StatelessRandomUniformIntV2', 'StatelessRandomUniformFullIntV2', 'StatelessRandomGetKeyCounter', 'StatelessRandomGetAlg', 'StatelessRandomGetKeyCounterAlg']},
    **{op: "FFTs round differently (TensorFlow's DUCC in the input's precision, opgen's in "
           "double) and spread NaN / infinities by their own paths: "
           "tests/python_runtime/test_spectral_ops.py compares them with TensorFlow within a "
           "tolerance"
       for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT",
                  "RFFT2D", "IRFFT2D", "RFFT3D", "IRFFT3D")},
    **{op: "factorisations of random and non-finite matrices: TensorFlow's Eigen LU / LLT "
           "pivot and round in the input's type (float max overflows, NaN pivots are picked "
           "differently, a failed Cholesky leaves a partial factor), opgen's in double: "
           "tests/python_runtime/test_linalg_ops.py compares well-conditioned inputs, "
           "singular ones and the errors with TensorFlow"
       for op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky",
                  "MatrixSolve", "MatrixTriangularSolve")},
    **{op: "decompositions are unique only up to the signs / phases of singular vectors and "
           "eigenvectors, and LAPACK (opgen, in double) and Eigen (TensorFlow, in the input's "
           "type) choose them differently: tests/python_runtime/test_linalg_decompositions.py "
           "compares invariants with numpy, and the unique values and the gradients of "
           "sign-invariant losses with TensorFlow"
       for op in ("Svd", "Qr", "SelfAdjointEigV2", "Lu", "MatrixSolveLs")},
    **{op: "stateful or random (RandomCrop, the stateful samplers, ExtractGlimpse's noise), "
           "or refused by TensorFlow 2.21 in its own GraphDef version (AdjustContrast): "
           "tests/python_runtime/test_image_legacy_ops.py compares them with TensorFlow bit "
           "for bit (seeded first runs, zero noise, a producer-1 GraphDef)"
       for op in ("RandomCrop", "SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
                  "StatelessSampleDistortedBoundingBox", "ExtractGlimpse", "ExtractGlimpseV2",
                  "AdjustContrast")},
    **{op: "random: tests/python_runtime/test_random_stateful.py compares tf.random.shuffle's "
           "and tf.random.categorical's values with TensorFlow's over consecutive eager runs"
       for op in ("RandomShuffle", "Multinomial")},
    **{op: "random ops: tests/python_runtime/test_random_stateless_samplers.py compares them "
           "with TensorFlow bit for bit over seeds, shapes and dtypes"
       for op in ("StatelessMultinomial", "StatelessRandomUniformFullInt", "StatelessShuffle",
                  "StatelessRandomGammaV2", "StatelessRandomGammaV3", "StatelessRandomPoisson",
                  "StatelessRandomBinomial", "StatelessParameterizedTruncatedNormal")},
    **{op: "tf.random.Generator's ops read and advance a resource variable, not a function of "
           "array inputs: tests/python_runtime/test_random_generator.py compares them with "
           "TensorFlow step by step"
       for op in ("StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
                  "StatefulStandardNormalV2", "StatefulTruncatedNormal", "RngSkip",
                  "RngReadAndSkip")},
    **{op: "deprecated since GraphDef version 9: TensorFlow refuses it eagerly and in newer "
           "graphs; tests/python_runtime/test_batch_norm_global.py compares it with TensorFlow "
           "in a version-8 GraphDef"
       for op in ("BatchNormWithGlobalNormalization", "BatchNormWithGlobalNormalizationGrad")},
    **{op: "string operands or outputs (WAV and CSV bytes, file names, raw bytes): "
           "tests/python_runtime/test_audio_ops.py and test_decode_ops.py compare them "
           "with TensorFlow"
       for op in ("DecodeWav", "EncodeWav", "ReadFile", "WriteFile", "DecodeRaw",
                  "DecodePaddedRaw", "DecodeCSV")},
    **{op: "TensorFlow 2.21 has no CPU kernel for it (XLA only): "
           "tests/python_runtime/test_legacy_ops.py compares it with TensorFlow under jit_compile"
       for op in ("SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2")},
}
NOT_COMPARED_PREFIXES = {
    "TensorList": "TensorLists are DT_VARIANT host objects, not arrays",
    "TensorArray": "TensorArrays hold state behind a DT_RESOURCE handle: "
                   "tests/python_runtime/test_tensor_array_v3.py compares them with TensorFlow",
    "Stack": "stacks hold state behind a DT_RESOURCE handle: "
             "tests/python_runtime/test_tensor_array_v3.py runs TensorFlow's loop gradients "
             "that use them",
    "_": "opgen's internal ops (graph-optimizer fusions): TensorFlow has no such op; the "
         "optimizer tests compare them with the unfused graph",
}

# Ops whose T-typed inputs are sizes or bounds rather than data: special values there
# only ask for absurd sizes (Range(0, inf, 1)), so they get the hand-written cases only.
NO_SPECIAL_VALUES = {"Range", "Fill", "OneHot"}


@dataclass
class Call:
    op: str
    inputs: list           # arrays, or lists of arrays for list inputs
    attrs: dict            # as execute_op takes them (dtype attrs as opgen DTypes)
    what: str
    tf_attrs: dict = field(default_factory=dict)  # the attrs tf.raw_ops wants (not inferred)


def _dtype_name(dtype) -> str:
    return np.dtype(dtype).name


def numpy_dtype(enum: int):
    return np.dtype(dtypes.as_dtype(enum).numpy_dtype)


def is_float(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind == "f" or (bfloat16 is not None and dtype == np.dtype(bfloat16))


def finfo(dtype):
    if bfloat16 is not None and np.dtype(dtype) == np.dtype(bfloat16):
        import ml_dtypes
        return ml_dtypes.finfo(bfloat16)
    return np.finfo(dtype)


def special_values(dtype) -> np.ndarray:
    """The values every data input of `dtype` is tried with."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.array([True, False, False, True, True, False])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = [0, 1, info.max, info.min, info.max - 1, info.min + 1, 2, 7, info.max // 2]
        if dtype.kind == "i":
            values += [-1, -2, -7]
        return np.array(values, dtype=dtype)
    if dtype.kind == "c":
        parts = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.5, 1e-40]
        return np.array([complex(a, b) for a in parts[:4] for b in parts[3:7]], dtype=dtype)
    info = finfo(dtype)
    tiny = float(info.smallest_normal)
    values = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5,
              float(info.max), -float(info.max), tiny, -tiny,
              tiny / 4, -tiny / 4,  # subnormals
              float(info.smallest_subnormal), 1e-3, -1e-3, 88.5, -88.5, 3.0]
    return ac.cast(np.array(values, np.float64), dtype)


def random_values(rng, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape,
                            endpoint=True).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-3, 3, shape) + 1j * rng.uniform(-3, 3, shape)).astype(dtype)
    return ac.cast(rng.uniform(-3, 3, shape), dtype)


def _fill(pool: np.ndarray, shape, shift: int) -> np.ndarray:
    size = int(np.prod(shape))
    index = (np.arange(size) * 1 + shift) % len(pool)
    return pool[index].reshape(shape)


# ---- the pairs -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    op: str
    constraints: tuple  # ((attr name, numpy dtype name), ...), sorted

    @property
    def id(self) -> str:
        return self.op + "-" + "-".join(d for _, d in self.constraints) if self.constraints else self.op


def registered_pairs() -> list[Pair]:
    """Every CPU kernel of the runtime as a Pair (ops NOT_COMPARED included)."""
    import opgen
    out = set()
    for kernel in opgen.registered_kernels().kernel:
        if kernel.device_type != "CPU":
            continue
        constraints = []
        for c in kernel.constraint:
            try:
                constraints.append((c.name, _dtype_name(numpy_dtype(c.allowed_values.list.type[0]))))
            except (TypeError, ValueError, KeyError):
                constraints.append((c.name, dtypes.as_dtype(c.allowed_values.list.type[0]).name))
        out.add(Pair(kernel.op, tuple(sorted(constraints))))
    return sorted(out, key=lambda p: p.id)


_REAL_PART = {"complex64": "float32", "complex128": "float64"}


def not_compared_pair_reason(pair) -> str | None:
    """Pairs of a compared op that have no TensorFlow result to compare with."""
    types = dict(pair.constraints)
    if pair.op == "SparseAdd" and types.get("Treal") != _REAL_PART.get(types.get("T"), types.get("T")):
        return ("SparseAdd with a thresh type other than T's real type: TensorFlow's kernel "
                "reads thresh's bytes as T's real type (past the end of a narrower one), so its "
                "result is not defined; opgen converts the value (docs/conformance.md)")
    return None


def not_compared_reason(op: str) -> str | None:
    if op in NOT_COMPARED:
        return NOT_COMPARED[op]
    for prefix, why in NOT_COMPARED_PREFIXES.items():
        if op.startswith(prefix):
            return why
    return None


_OP_DEFS = None


def op_defs() -> dict:
    global _OP_DEFS
    if _OP_DEFS is None:
        _OP_DEFS = {op.name: op for op in ac.runtime_op_defs()}
    return _OP_DEFS


def _inferred_attrs(op_def) -> set:
    names = set()
    for arg in op_def.input_arg:
        names.update(a for a in (arg.type_attr, arg.number_attr, arg.type_list_attr) if a)
    return names


def _tf_attrs(op_def, attrs: dict) -> dict:
    inferred = _inferred_attrs(op_def)
    return {k: v for k, v in attrs.items() if k not in inferred}


def _data_inputs(op_def, pinned: dict) -> list[int]:
    """Indices of the inputs that carry data: typed by a pinned type attr that is not an
    index attr (adversarial_cases.INDEX_TYPE_ATTRS), or of a fixed float type."""
    out = []
    for i, arg in enumerate(op_def.input_arg):
        if arg.type_attr and arg.type_attr in pinned and arg.type_attr not in ac.INDEX_TYPE_ATTRS:
            out.append(i)
    return out


def _cast_input(value, dtype):
    if isinstance(value, list):
        return [ac.cast(v, dtype) for v in value]
    return ac.cast(value, dtype)


def _map_data(inputs, data, fn):
    out = list(inputs)
    for n, i in enumerate(data):
        if isinstance(out[i], list):
            out[i] = [fn(np.asarray(v), n + k) for k, v in enumerate(out[i])]
        else:
            out[i] = fn(np.asarray(out[i]), n)
    return out


def _is_elementwise(op_def, inputs, data) -> bool:
    """All inputs data, all of the baseline's [2,3] shape: an element-wise op."""
    return (len(data) == len(op_def.input_arg) and all(
        not isinstance(inputs[i], list) and np.shape(inputs[i]) == (2, 3) for i in data))


def cases_for_pair(pair: Pair) -> list[Call]:
    op_def = op_defs()[pair.op]
    rng = np.random.default_rng(zlib.crc32(pair.id.encode()) ^ SEED)
    pinned = {name: np.dtype(dt) if dt != "bfloat16" else np.dtype(bfloat16)
              for name, dt in pair.constraints if _known_dtype(dt)}
    try:
        inputs, attrs = ac.baseline(op_def, np.random.default_rng(SEED))
    except KeyError:
        return [c for c in EXTRA_CASES(pair) if c]
    inputs = list(inputs)
    attrs = dict(attrs)
    for i, arg in enumerate(op_def.input_arg):
        if arg.type_attr in pinned:
            inputs[i] = _cast_input(inputs[i], pinned[arg.type_attr])
    for name, dtype in pinned.items():
        if name not in _inferred_attrs(op_def):
            attrs[name] = dtypes.as_dtype(dtype)
    data = _data_inputs(op_def, pinned)
    calls = [Call(pair.op, inputs, attrs, "baseline")]
    calls.append(Call(pair.op, _map_data(inputs, data,
                                         lambda a, n: random_values(rng, a.shape, a.dtype)),
                      attrs, "random"))
    if pair.op not in NO_SPECIAL_VALUES and data:
        pools = {}
        for shift in range(4):
            def special(a, n, shift=shift):
                pool = pools.setdefault(a.dtype.str, special_values(a.dtype))
                if a.ndim == 0:
                    return pool[(shift * 5 + n * 3) % len(pool)]
                return _fill(pool, a.shape, shift * 6 + n * 7)
            calls.append(Call(pair.op, _map_data(inputs, data, special), attrs,
                              f"special values #{shift}"))
        if _is_elementwise(op_def, inputs, data):
            calls.append(Call(pair.op, _map_data(inputs, data, lambda a, n: a[:0]), attrs,
                              "empty"))
    calls += EXTRA_CASES(pair)
    for call in calls:
        call.tf_attrs = _tf_attrs(op_def, call.attrs)
    return calls


def _known_dtype(name: str) -> bool:
    return name in ("bfloat16",) or hasattr(np, name)


# ---- hand-written cases: issue 18's classes -------------------------------------------------

def _pinned(pair: Pair) -> dict:
    return dict(pair.constraints)


def _cast_cases(pair: Pair) -> list[Call]:
    """Cast with Truncate=True, and out-of-range values, for float sources."""
    pinned = _pinned(pair)
    src, dst = pinned.get("SrcT"), pinned.get("DstT")
    if src is None or dst is None or not _known_dtype(src) or not _known_dtype(dst):
        return []
    src_dtype = np.dtype(bfloat16) if src == "bfloat16" else np.dtype(src)
    dst_dtype = np.dtype(bfloat16) if dst == "bfloat16" else np.dtype(dst)
    if not is_float(src_dtype):
        return []
    with np.errstate(over="ignore", invalid="ignore"):  # 3.4e38 overflows half: inf, wanted
        x = ac.cast(np.array([1.00390625, -1.00390625, 1.0009765625, 3.1415926, -1.0, 300.0,
                              -300.0, 70000.0, np.nan, 3.4e38, -3.4e38, 1e10]), src_dtype)
    attrs = {"DstT": dtypes.as_dtype(dst_dtype)}
    return [Call("Cast", [x], dict(attrs, Truncate=True), "Truncate=True"),
            Call("Cast", [x], attrs, "rounding and out-of-range values")]


def rng_values(*shape) -> np.ndarray:
    """Small integers (exact in every float type) of `shape`, the same on every call."""
    return np.random.default_rng(SEED).integers(-3, 4, shape).astype(np.float64)


def EXTRA_CASES(pair: Pair) -> list[Call]:  # noqa: N802 (a table, read as one)
    if pair.op == "Cast":
        return _cast_cases(pair)
    if pair.op == "ConcatOffset":  # no T: its operands are shapes
        return _grad_kernel_cases(pair, None, None)
    t = _pinned(pair).get("T")
    out = []
    f32 = np.float32
    i32 = np.int32
    if t is None:
        return out
    dt = np.dtype(bfloat16) if t == "bfloat16" else (np.dtype(t) if hasattr(np, t) else None)
    if dt is None:
        return out

    def a(values, dtype=dt):
        return ac.cast(np.asarray(values, np.float64), dtype)

    op = pair.op
    floaty = is_float(dt)
    if op in ("ArgMax", "ArgMin") and floaty:
        out.append(Call(op, [a([[np.nan, 1, 2], [3, np.nan, -1]]), i32(1)], {}, "NaN skipped"))
        out.append(Call(op, [a([[np.nan, np.nan], [1, 2]]), i32(1)], {}, "all-NaN row"))
    if op == "Softmax" or op == "LogSoftmax":
        out.append(Call(op, [a([[1, np.inf, 2], [1, 2, 3], [np.nan, 0, 1]])], {}, "inf / NaN rows"))
    if op in ("Sum", "Mean", "Max", "Min", "Prod"):
        out.append(Call(op, [a(np.arange(6).reshape(2, 3)), np.array([1, -1], i32)], {},
                        "duplicate axes"))
        out.append(Call(op, [a(np.zeros((0, 3))), i32(0)], {}, "empty reduction"))
    if op == "Fill":
        out.append(Call(op, [np.array([2], i32), a([1.5])], {}, "shape-[1] value"))
    if op == "Reshape":
        out.append(Call(op, [a(np.zeros((0, 3))), np.array([-1, 0], i32)], {}, "(0,3) -> [-1,0]"))
    if op == "Transpose":
        out.append(Call(op, [a(np.arange(6).reshape(2, 3)), np.array([-1, 0], i32)], {},
                        "negative perm"))
    if op == "ReverseV2" and dt != np.bool_:
        x = a(np.arange(24).reshape(2, 3, 4))
        out.append(Call(op, [x, np.array([-1], i32)], {}, "last axis, negative"))
        out.append(Call(op, [x, np.array([0, 1, 2], i32)], {}, "every axis"))
        out.append(Call(op, [x, np.zeros(0, i32)], {}, "no axis"))
        out.append(Call(op, [a(np.zeros((0, 3))), np.array([0, 1], i32)], {}, "empty"))
    if op == "Conv2D" and floaty:
        x = a(rng_values(2, 5, 5, 6))
        out.append(Call(op, [x, a(rng_values(3, 3, 2, 6))], {"strides": [1, 1, 1, 1], "padding": "SAME"},
                        "3 groups"))
        out.append(Call(op, [x, a(rng_values(3, 3, 1, 12))], {"strides": [1, 2, 2, 1], "padding": "VALID"},
                        "a group per channel, 2 outputs each, strided"))
    if op == "GatherV2":
        out.append(Call(op, [a(np.arange(12).reshape(2, 3, 2)), np.array([[0, 1], [2, 0]], i32),
                             i32(1)], {"batch_dims": 1}, "batch_dims=1"))
    if op == "ClipByValue":
        out.append(Call(op, [a(np.arange(6).reshape(2, 3)), a([1, 2, 3]), a([4, 4, 4])], {},
                        "bounds of another shape"))
    if op in ("Igamma", "Igammac", "IgammaGradA", "RandomGammaGrad"):
        out.append(Call(op, [a([0, 1, 2, -1, 0.5, np.inf, np.nan, 3]), a([0, 0, np.inf, 1, -1, 2, 0, 2.5])],
                        {}, "x = 0, infinities, invalid a and x"))
    if op in ("Zeta", "Polygamma"):
        out.append(Call(op, [a([1, 2, 3, 4, 2, 3, 0.5, 2]), a([1, -1, -2, -2.5, 0, 0.25, 1, np.inf])],
                        {}, "poles, negative q, s < 1"))
    if op == "Betainc":
        out.append(Call(op, [a([0, 1, 2, np.nan, 1, 0.5]), a(1.5), a([0.5, 1.5, 1, 0, 0.2, 1])],
                        {}, "scalar b, x outside [0, 1], the ends"))
    if op == "StridedSlice":
        out.append(Call(op, [a(np.arange(6).reshape(2, 3)), np.array([1], i32), np.array([0], i32),
                             np.array([-1], i32)], {"shrink_axis_mask": 1}, "shrink with stride -1"))
    if op in ("Elu", "Selu") and floaty:
        out.append(Call(op, [a([-1e-7, -1e-5, -3e-4, -0.0, 1e-8, -1e-30])], {}, "expm1 near 0"))
    if op == "FusedBatchNormV3" and floaty and dt == np.float32:
        empty = np.zeros((0, 2, 2, 3), f32)
        ones = np.ones(3, f32)
        out.append(Call(op, [empty, ones, ones, np.zeros(0, f32), np.zeros(0, f32)],
                        {"is_training": True}, "training on empty x"))
    out.extend(_backprop_cases(op, dt, a))
    out.extend(_pool3d_backprop_cases(op, dt, a))
    if op == "Relu" and floaty:
        out.append(Call(op, [a([np.nan, -np.nan, -0.0, 0.0])], {}, "NaN and -0.0"))
    out += _grad_kernel_cases(pair, dt, a)
    return out


def _grad_kernel_cases(pair: Pair, dt, a) -> list[Call]:
    """Issue 22's gradient kernels: the layouts, masks, modes and index operands the
    generated baseline leaves out."""
    op, out, i32 = pair.op, [], np.int32
    rng = np.random.default_rng(SEED)
    if op == "BiasAddGrad":
        g = a(rng.integers(-5, 6, (2, 3, 4, 5)))
        out += [Call(op, [g], {"data_format": f}, f"4-D {f}") for f in ("NHWC", "NCHW")]
    if op in ("ReluGrad", "Relu6Grad", "LeakyReluGrad") and is_float(dt):
        g = a([1.0, -2.0, np.nan, np.inf, 3.0, -1.0])
        f = a([0.0, -0.0, -1.0, -2.0, 6.0, 5.5])
        out.append(Call(op, [g, f], {}, "edges, NaN and inf gradients"))
    if op == "SoftmaxCrossEntropyWithLogits":
        logits = a(rng.uniform(-3, 3, (4, 3)))
        out.append(Call(op, [logits, a([0.2, 0.3, 0.5])], {}, "labels broadcast over rows"))
        out.append(Call(op, [a(rng.uniform(-3, 3, (4, 1))), a(np.eye(3)[[0, 2, 1, 1]])], {},
                        "logits broadcast over classes"))
    if op == "SparseSoftmaxCrossEntropyWithLogits":
        tl = dict(pair.constraints).get("Tlabels", "int64")
        logits = a(rng.uniform(-3, 3, (4, 5)))
        out.append(Call(op, [logits, np.array([4, 0, 2, 4], tl)], {}, "labels"))
        out.append(Call(op, [logits, np.array([4, 0, 5, 4], tl)], {}, "label out of range"))
    pinned = dict(pair.constraints)
    if op == "UnsortedSegmentSum":
        ids = np.array([[3, -1], [0, 3], [1, 0]], pinned["Tindices"])
        data = a(rng.integers(-9, 10, (3, 2, 4)))
        num = np.dtype(pinned["Tnumsegments"]).type(5)
        out.append(Call(op, [data, ids, num], {}, "2-D ids, a negative id, empty segments"))
        bad = np.array([[3, 5], [0, 3], [1, 0]], pinned["Tindices"])
        out.append(Call(op, [data, bad, num], {}, "id out of range"))
    if op == "ConcatOffset":
        st = pinned["shape_type"]
        shapes = [np.array(s, st) for s in ([2, 3, 5], [2, 7, 5], [2, 0, 5])]
        out += [Call(op, [i32(d), shapes], {}, f"concat_dim {d}") for d in (1, -2)]
        out.append(Call(op, [i32(0), shapes], {}, "dims other than concat_dim differ"))
    if op == "InvertPermutation":
        out.append(Call(op, [np.array([3, 0, 4, 1, 2], dt)], {}, "a permutation"))
        out.append(Call(op, [np.array([1, 1, 0], dt)], {}, "a duplicate"))
    if op == "StridedSliceGrad":
        index = pinned["Index"]
        dy = a(rng.integers(-9, 10, (1, 2, 3)))
        shape, v = np.array([3, 5], index), (lambda *x: np.array(x, index))
        out.append(Call(op, [np.array([5, 5], index), v(0, 2, 0), v(0, 4, 0), v(1, 1, 2), dy],
                        {"new_axis_mask": 1, "end_mask": 4}, "new axis, strides 2"))
        out.append(Call(op, [shape, v(-1, 4), v(0, 0), v(-1, -2), a(rng.integers(-9, 10, (3, 2)))],
                        {"shrink_axis_mask": 0, "end_mask": 1}, "negative strides"))
        out.append(Call(op, [shape, v(1), v(2), v(1), a(rng.integers(-9, 10, (5,)))],
                        {"shrink_axis_mask": 1}, "shrink"))
        out.append(Call(op, [shape, v(0), v(2), v(1), a(rng.integers(-9, 10, (2, 5)))],
                        {"ellipsis_mask": 0}, "a prefix"))
    if op == "MirrorPadGrad":
        g = a(rng.integers(-9, 10, (6, 5, 3)))
        pads = np.array([[1, 2], [2, 0], [0, 1]], pinned["Tpaddings"])
        out += [Call(op, [g, pads], {"mode": m}, f"3-D {m}") for m in ("REFLECT", "SYMMETRIC")]
        out.append(Call(op, [g, np.array([[3, 3], [0, 0], [0, 0]], pinned["Tpaddings"])],
                        {"mode": "REFLECT"}, "paddings too large"))
    return out


def _backprop_cases(op: str, dt, a) -> list[Call]:
    """Issue 22's backprop ops: each padding, stride and layout TensorFlow's CPU kernels
    take, ties and NaN for MaxPoolGrad and MaxPoolGradGrad, both modes of the batch-norm gradients and every
    sampling rule of the resize gradients. No dilated depthwise backprop: TensorFlow's CPU
    kernels ignore dilations there (opgen's derivative tests cover them)."""
    if not is_float(dt) and op not in ("MaxPoolGrad", "MaxPoolGradGrad", "ResizeNearestNeighborGrad"):
        return []
    rng = np.random.default_rng(zlib.crc32(op.encode()) + np.dtype(dt).itemsize)
    i32 = np.int32

    def r(*shape):
        return a(rng.uniform(-2.0, 2.0, size=shape).round(2) if is_float(dt)
                 else rng.integers(-3, 4, size=shape))

    out = []
    conv_windows = [
        ((1, 1), "SAME", [], (2, 5, 6, 3), (3, 3), "SAME 3x3"),
        ((2, 2), "SAME", [], (2, 5, 6, 3), (3, 3), "SAME 3x3 stride 2, odd sizes"),
        ((2, 1), "VALID", [], (1, 6, 5, 2), (2, 3), "VALID 2x3 strides 2,1"),
        ((1, 2), "EXPLICIT", [0, 0, 1, 2, 0, 1, 0, 0], (1, 5, 5, 2), (3, 2), "EXPLICIT 1,2 / 0,1"),
    ]
    for (sh, sw), padding, explicit, xs, (kh, kw), what in conv_windows:
        attrs = {"strides": [1, sh, sw, 1], "padding": padding}
        if explicit:
            attrs["explicit_paddings"] = explicit
        pads = explicit or [0] * 8
        if padding == "SAME":
            oh, ow = -(-xs[1] // sh), -(-xs[2] // sw)
        else:
            oh = (xs[1] + pads[2] + pads[3] - kh) // sh + 1
            ow = (xs[2] + pads[4] + pads[5] - kw) // sw + 1
        if op == "Conv2DBackpropFilter":
            out.append(Call(op, [r(*xs), np.array([kh, kw, xs[3], 4], i32), r(xs[0], oh, ow, 4)],
                            attrs, what))
        if op == "DepthwiseConv2dNativeBackpropFilter":
            out.append(Call(op, [r(*xs), np.array([kh, kw, xs[3], 2], i32),
                                 r(xs[0], oh, ow, 2 * xs[3])], attrs, what))
        if op == "DepthwiseConv2dNativeBackpropInput":
            out.append(Call(op, [np.array(xs, i32), r(kh, kw, xs[3], 2), r(xs[0], oh, ow, 2 * xs[3])],
                            attrs, what))
    if op == "Conv2DBackpropFilter" and np.dtype(dt).itemsize >= 4:
        # Enough rows for several of the CPU kernel's im2col tiles, the last one short; in
        # quarters, so that sums of hundreds of products are exact in any order.
        def q(*shape):
            return a(rng.integers(-8, 9, size=shape) / 4)
        out.append(Call(op, [q(3, 21, 19, 32), np.array([3, 3, 32, 5], i32), q(3, 11, 10, 5)],
                        {"strides": [1, 2, 2, 1], "padding": "SAME"}, "SAME 3x3 stride 2, row tiles"))
    if op == "Conv2DBackpropInput" and np.dtype(dt).itemsize >= 4 and is_float(dt):
        # Stride 1 (a convolution with the turned filter, in tiles) and stride 2 (whole
        # images per thread), exact in any order as above.
        def q4(*shape):
            return a(rng.integers(-8, 9, size=shape) / 4)
        for stride, dy_hw in ((1, (21, 19)), (2, (11, 10))):
            out.append(Call(op, [np.array([3, 21, 19, 32], i32), q4(3, 3, 32, 5), q4(3, *dy_hw, 5)],
                            {"strides": [1, stride, stride, 1], "padding": "SAME"},
                            f"SAME 3x3 stride {stride}, row tiles"))
    if op in ("Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"):
        for strides, padding, xs, k, os in [((1, 1, 1), "SAME", (2, 3, 4, 5, 2), (2, 3, 2), (3, 4, 5)),
                                            ((1, 2, 2), "SAME", (1, 4, 5, 5, 3), (3, 2, 3), (4, 3, 3)),
                                            ((2, 1, 1), "VALID", (1, 5, 4, 3, 2), (2, 2, 2), (2, 3, 2))]:
            attrs = {"strides": [1, *strides, 1], "padding": padding}
            dy = r(xs[0], *os, 3)
            what = f"{padding} strides {strides}"
            if op == "Conv3DBackpropFilterV2":
                out.append(Call(op, [r(*xs), np.array([*k, xs[4], 3], i32), dy], attrs, what))
            else:
                out.append(Call(op, [np.array(xs, i32), r(*k, xs[4], 3), dy], attrs, what))
    pool_windows = [
        ((3, 3), (1, 1), "SAME", [], (1, 5, 6, 2), "SAME 3x3 stride 1"),
        ((3, 2), (2, 2), "SAME", [], (2, 5, 5, 3), "SAME 3x2 stride 2"),
        ((2, 2), (1, 2), "VALID", [], (1, 4, 6, 2), "VALID 2x2 strides 1,2"),
        ((2, 3), (2, 1), "EXPLICIT", [0, 0, 1, 0, 1, 1, 0, 0], (1, 4, 4, 2), "EXPLICIT"),
    ]
    for (kh, kw), (sh, sw), padding, explicit, xs, what in pool_windows:
        attrs = {"ksize": [1, kh, kw, 1], "strides": [1, sh, sw, 1], "padding": padding}
        pads = explicit or [0] * 8
        if padding == "SAME":
            oh, ow = -(-xs[1] // sh), -(-xs[2] // sw)
        else:
            oh = (xs[1] + pads[2] + pads[3] - kh) // sh + 1
            ow = (xs[2] + pads[4] + pads[5] - kw) // sw + 1
        if op == "MaxPoolGrad":
            if explicit:
                attrs["explicit_paddings"] = explicit
            x = r(*xs)
            out.append(Call(op, [x, r(xs[0], oh, ow, xs[3]), r(xs[0], oh, ow, xs[3])], attrs, what))
            # Plateaus: many equal values, so the first maximum of each window decides.
            ties = a(rng.integers(0, 2, size=xs))
            out.append(Call(op, [ties, r(xs[0], oh, ow, xs[3]), r(xs[0], oh, ow, xs[3])], attrs,
                            what + ", ties"))
            if is_float(dt):
                nan = np.asarray(x, np.float64)
                nan.reshape(-1)[::3] = np.nan
                out.append(Call(op, [a(nan), r(xs[0], oh, ow, xs[3]), r(xs[0], oh, ow, xs[3])], attrs,
                                what + ", NaN"))
        if op == "MaxPoolGradGrad" and not explicit:  # no EXPLICIT padding in its OpDef
            x = r(*xs)
            out.append(Call(op, [x, r(xs[0], oh, ow, xs[3]), r(*xs)], attrs, what))
            ties = a(rng.integers(0, 2, size=xs))
            out.append(Call(op, [ties, r(xs[0], oh, ow, xs[3]), r(*xs)], attrs, what + ", ties"))
            if is_float(dt):
                nan = np.asarray(x, np.float64)
                nan.reshape(-1)[::3] = np.nan
                out.append(Call(op, [a(nan), r(xs[0], oh, ow, xs[3]), r(*xs)], attrs, what + ", NaN"))
        if op == "AvgPoolGrad" and not explicit:
            out.append(Call(op, [np.array(xs, i32), r(xs[0], oh, ow, xs[3])], attrs, what))
    if op.startswith("FusedBatchNormGrad"):
        stats = 4 if op.endswith("V3") else 3
        for shape, fmt, training in [((2, 3, 4, 5), "NHWC", True), ((2, 3, 4, 5), "NCHW", True),
                                     ((2, 3, 4, 5), "NHWC", False), ((3, 1, 1, 4), "NHWC", True)]:
            c = shape[1] if fmt == "NCHW" else shape[3]
            var = np.abs(rng.uniform(0.5, 2.0, size=c)).astype(np.float32)
            ins = [r(*shape), r(*shape), rng.uniform(0.5, 2, size=c).astype(np.float32),
                   rng.uniform(-1, 1, size=c).astype(np.float32), var]
            if op == "FusedBatchNormGrad":
                ins[2:] = [a(v) for v in ins[2:]]
            ins += [np.zeros(c, np.float32)] * (stats - 3)
            out.append(Call(op, ins, {"data_format": fmt, "is_training": training},
                            f"{fmt}, is_training={training}, shape {shape}"))
        if op == "FusedBatchNormGradV3":
            ins = [r(2, 3, 2, 4, 3), r(2, 3, 2, 4, 3), np.ones(3, np.float32),
                   np.zeros(3, np.float32), np.ones(3, np.float32), np.zeros(3, np.float32)]
            out.append(Call(op, ins, {"data_format": "NDHWC"}, "NDHWC"))
    if op in ("ResizeBilinearGrad", "ResizeNearestNeighborGrad"):
        for (ih, iw), (oh, ow) in [((3, 4), (5, 7)), ((6, 5), (4, 2)), ((1, 3), (4, 1))]:
            for align, half in [(False, False), (True, False), (False, True)]:
                attrs = {"align_corners": align, "half_pixel_centers": half}
                what = f"{ih}x{iw} -> {oh}x{ow}, align_corners={align}, half_pixel_centers={half}"
                if op == "ResizeBilinearGrad":
                    grads = rng.uniform(-2, 2, size=(2, oh, ow, 3)).astype(np.float32)
                    out.append(Call(op, [grads, r(2, ih, iw, 3)], attrs, what))
                else:
                    out.append(Call(op, [r(2, oh, ow, 3), np.array([ih, iw], i32)], attrs, what))
    return out


# (input dims, ksize, strides) of the 3-D pooling backprop cases: odd sizes, strides
# other than the window, a window longer than the volume (TensorFlow's CPU kernels then
# spread over the whole volume, and opgen's do the same).
POOL3D_WINDOWS = [((2, 5, 6, 7, 3), (2, 3, 2), (2, 2, 3)), ((1, 3, 4, 5, 2), (3, 3, 3), (1, 2, 1)),
                  ((1, 4, 4, 4, 1), (2, 2, 2), (2, 2, 2)), ((1, 5, 1, 2, 1), (6, 1, 2), (1, 1, 1))]


def _pool3d_out(n: int, k: int, s: int, padding: str) -> int | None:
    if padding == "SAME":
        return -(-n // s)
    return (n - k) // s + 1 if n >= k else None


def _pool3d_backprop_cases(op: str, dt, a) -> list[Call]:
    """MaxPool3DGrad, AvgPool3DGrad, MaxPool3DGradGrad (NDHWC, SAME and VALID, strides,
    odd sizes; small integers so that windows tie) and ResizeBicubicGrad (every sampling
    rule, one-pixel originals)."""
    if op not in ("MaxPool3DGrad", "AvgPool3DGrad", "MaxPool3DGradGrad", "ResizeBicubicGrad"):
        return []
    rng = np.random.default_rng(zlib.crc32(op.encode()) + np.dtype(dt).itemsize)
    out = []
    if op == "ResizeBicubicGrad":
        for (ih, iw), (oh, ow) in [((3, 4), (5, 7)), ((6, 5), (3, 2)), ((1, 1), (4, 3)), ((1, 3), (4, 5))]:
            for align, half in [(False, False), (True, False), (False, True)]:
                grads = rng.uniform(-2, 2, size=(2, oh, ow, 3)).astype(np.float32)
                out.append(Call(op, [grads, a(np.zeros((2, ih, iw, 3)))],
                                {"align_corners": align, "half_pixel_centers": half},
                                f"{ih}x{iw} -> {oh}x{ow}, align_corners={align}, half_pixel_centers={half}"))
        return out
    for dims, k, s in POOL3D_WINDOWS:
        for padding in ("SAME", "VALID"):
            outs = [_pool3d_out(dims[d + 1], k[d], s[d], padding) for d in range(3)]
            if None in outs:
                continue
            pooled = (dims[0], *outs, dims[4])
            attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding}
            what = f"{dims} window {k} stride {s} {padding}"
            x = a(rng.integers(-3, 4, size=dims))
            if op == "AvgPool3DGrad":
                out.append(Call(op, [np.array(dims, np.int32), a(rng.uniform(-2, 2, pooled).round(2))],
                                attrs, what))
            elif op == "MaxPool3DGrad":
                out.append(Call(op, [x, a(rng.integers(-3, 4, size=pooled)),
                                     a(rng.uniform(-2, 2, pooled).round(2))], attrs, what + ", ties"))
            else:
                out.append(Call(op, [x, a(rng.integers(-3, 4, size=pooled)),
                                     a(rng.uniform(-2, 2, dims).round(2))], attrs, what + ", ties"))
    return out
