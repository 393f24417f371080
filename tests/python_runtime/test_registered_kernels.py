"""TF_GetAllRegisteredKernels / TF_GetRegisteredKernelsForOp and opgen.registered_kernels:
the KernelList the runtime reports is what the protobuf library reads, every kernel in it
fits its op's OpDef, and the CUDA plugin, wherever it is built, has a GPU kernel for every
CPU kernel (checked from the registry, so no GPU is needed)."""

from __future__ import annotations

import ast
import ctypes
import os
from collections import defaultdict

import pytest
from google.protobuf.unknown_fields import UnknownFieldSet

import opgen
from opgen.protos import attr_value_pb2, kernel_def_pb2, op_def_pb2, types_pb2
from opgen.runtime import _lib, errors

# CPU kernels that have no GPU twin, and why. Placeholders produce no data (a fed value
# replaces them, on the host), so a GPU placement falls back to the CPU for them.
CPU_ONLY = {
    # TensorFlow 1's fused RNN cells and batch norm, kept for frozen graphs: TensorFlow has
    # GPU kernels for them; opgen's are CPU-only for now (GPU placements fall back).
    **{op: "TensorFlow 1's fused RNN cells: no GPU kernel yet"
       for op in ("LSTMBlockCell", "LSTMBlockCellGrad", "BlockLSTM", "BlockLSTMV2", "BlockLSTMGrad",
                  "BlockLSTMGradV2", "GRUBlockCell", "GRUBlockCellGrad")},
    **{op: "TensorFlow 1's batch norm (deprecated since GraphDef version 9): no GPU kernel yet"
       for op in ("BatchNormWithGlobalNormalization", "BatchNormWithGlobalNormalizationGrad")},
    "UnravelIndex": "TensorFlow registers only a CPU kernel (index arithmetic on the host)",
    "NthElement": "TensorFlow registers only a CPU kernel (a partial sort per row)",
    **{op: "TensorFlow registers only CPU kernels (sequence searches per batch entry)"
       for op in ("CTCLoss", "CTCGreedyDecoder", "CTCBeamSearchDecoder", "EditDistance")},
    # SparseTensor index walks on the host (TensorFlow has GPU kernels for some; opgen none
    # yet): GPU placements fall back to these.
    **{op: "SparseTensor index walks on the host (no GPU kernel yet)"
       for op in ("SparseReorder", "SparseReshape", "SparseFillEmptyRows",
                  "SparseFillEmptyRowsGrad", "SparseTensorDenseMatMul", "SparseAdd",
                  "SparseAddGrad", "SparseSlice", "SparseSliceGrad", "SparseReduceSum",
                  "SparseConcat")},
    **{op: "TensorFlow registers only CPU kernels"
       for op in ("ResourceApplyAdagradDA", "ResourceSparseApplyAdagradDA")},
    **{op: "TensorFlow registers only CPU kernels (audio, files, bytes and CSV text on "
           "the host)"
       for op in ("DecodeWav", "EncodeWav", "AudioSpectrogram", "Mfcc", "ReadFile", "WriteFile",
                  "DecodeRaw", "DecodePaddedRaw", "DecodeCSV")},
    "Placeholder": "fed values arrive on the host",
    "PlaceholderV2": "fed values arrive on the host",
    "PlaceholderWithDefault": "fed values arrive on the host",
    # The sparse optimizer updates have host kernels only for now (training_sparse.cc).
    **{op: "sparse optimizer updates: no GPU kernels yet"
       for op in ("ResourceSparseApplyAdagrad", "ResourceSparseApplyAdagradV2",
                  "ResourceSparseApplyMomentum", "ResourceSparseApplyKerasMomentum",
                  "ResourceSparseApplyRMSProp", "ResourceSparseApplyFtrl",
                  "ResourceSparseApplyFtrlV2", "ResourceSparseApplyAdadelta",
                  "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyProximalAdagrad",
                  "ResourceSparseApplyProximalGradientDescent")},
    # Checkpoint files are read and written by the host, as in TensorFlow.
    **{op: "checkpoint files are read and written on the host"
       for op in ("SaveV2", "RestoreV2", "MergeV2Checkpoints")},
    # String tensors live on the host; TensorFlow's string ops are CPU kernels too.
    **{op: "string tensors are host data, as in TensorFlow"
       for op in ("StringJoin", "ShardedFilename", "ShardedFilespec", "StaticRegexFullMatch",
                  "AsString", "StringToHashBucketFast", "StringToHashBucketStrong",
                  "Fingerprint")},
    **{op: "serialized protos are host strings; TensorFlow's parse kernels are CPU only"
       for op in ("ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor",
                  "SerializeTensor")},
    **{op: "string tensors are host data, as in TensorFlow (text preprocessing)"
       for op in ("StringLower", "StringUpper", "StringStrip", "StaticRegexReplace",
                  "RegexReplace", "StringSplitV2", "StringNGrams", "Substr")},
    **{op: "string tensors are host data, as in TensorFlow (everyday tf.strings ops)"
       for op in ("StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin",
                  "UnsortedSegmentJoin", "StringSplit", "StringToHashBucket", "EncodeBase64",
                  "DecodeBase64", "UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
                  "UnicodeTranscode", "UnicodeScript")},
    # Lookup tables are host objects; TensorFlow's table kernels are CPU kernels too.
    **{op: "lookup tables are host objects, as in TensorFlow"
       for op in ("HashTableV2", "MutableHashTableV2", "LookupTableImportV2",
                  "InitializeTableV2", "LookupTableInsertV2", "LookupTableFindV2",
                  "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2", "LookupTableExportV2")},
    "RaggedTensorToTensor": "its ragged inputs come from host string ops (TensorFlow "
                            "registers a GPU kernel; opgen has none yet)",
    # A TensorList is a host object (a DT_VARIANT scalar); TensorFlow's GPU builds run
    # these ops on the host too, and the GPU control-flow kernels pass lists through
    # in host memory.
    **{op: "TensorLists are host objects (DT_VARIANT), as in TensorFlow"
       for op in ("TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
                  "TensorListSetItem", "TensorListStack", "TensorListLength",
                  "TensorListElementShape", "TensorListPushBack", "TensorListPopBack",
                  "TensorListGather", "TensorListResize", "TensorListConcatV2",
                  "TensorListSplit", "TensorListScatter", "TensorListScatterV2",
                  "TensorListScatterIntoExistingList")},
    # A TensorArray is a host object behind a resource handle (TensorFlow's GPU kernels
    # keep its elements on the device; opgen has no GPU kernels for it yet).
    **{op: "TensorArrays are host objects behind a resource handle (no GPU kernel yet)"
       for op in ("TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3",
                  "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArrayConcatV3",
                  "TensorArraySplitV3", "TensorArraySizeV3", "TensorArrayCloseV3",
                  "TensorArrayGradV3", "TensorArrayGradWithShape")},
    # Stacks, which v1 loop gradients push forward values onto, likewise.
    **{op: "stacks are host objects behind a resource handle (no GPU kernel yet)"
       for op in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2")},
    # Text made from tensors on the host (TensorFlow keeps Assert's and PrintV2's
    # operands in host memory; StringFormat has only a CPU kernel).
    **{op: "turns tensors into text on the host, as in TensorFlow"
       for op in ("Assert", "PrintV2", "StringFormat")},
    # Output sizes that depend on the values (TensorFlow has a GPU kernel for Unique;
    # opgen computes them on the host, a GPU placement falls back here).
    **{op: "outputs sized by the values: host kernels (no GPU kernel yet)"
       for op in ("Unique", "UniqueV2", "UniqueWithCounts", "UniqueWithCountsV2", "ListDiff")},
    # TensorFlow's GPU kernels are cuFFT's; opgen has none: a GPU placement falls back to
    # the host kernels (docs/reference/ops.md says so).
    **{op: "no GPU FFT yet (TensorFlow's is cuFFT): a GPU placement falls back to the host"
       for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D", "RFFT", "IRFFT",
                  "RFFT2D", "IRFFT2D", "RFFT3D", "IRFFT3D")},
    **{op: "no GPU linear algebra yet (TensorFlow's is cuSOLVER / cuBLAS): a GPU placement "
           "falls back to the host"
       for op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky",
                  "MatrixSolve", "MatrixTriangularSolve", "Svd", "Qr", "SelfAdjointEigV2", "Lu",
                  "MatrixSolveLs")},
    **{op: "a sequential greedy selection on the host; TensorFlow's GPU kernel gives the "
           "same indices, so a GPU placement falls back to the host kernel"
       for op in ("NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionV3",
                  "NonMaxSuppressionV4", "NonMaxSuppressionV5",
                  "NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression")},
    **{op: "TensorFlow registers only a CPU kernel (the older image ops of detection and "
           "augmentation graphs)"
       for op in ("AdjustContrast", "DrawBoundingBoxes", "DrawBoundingBoxesV2", "RandomCrop",
                  "ExtractGlimpse", "ExtractGlimpseV2", "SampleDistortedBoundingBox",
                  "SampleDistortedBoundingBoxV2", "StatelessSampleDistortedBoundingBox")},
    "RandomShuffle": "moves rows only: a GPU placement falls back to the host kernel",
    "Multinomial": "a CDF search per sample: a GPU placement falls back to the host kernel",
    "StatelessMultinomial": "a CDF search per sample: a GPU placement falls back to the host kernel",
    "StatelessShuffle": "moves rows only: a GPU placement falls back to the host kernel",
    **{op: "no CUDA twin yet (TensorFlow has one): a GPU placement falls back to the host kernel"
       for op in ("StatelessRandomGammaV2", "StatelessRandomGammaV3", "StatelessRandomPoisson",
                  "StatelessRandomBinomial", "StatelessParameterizedTruncatedNormal")},
    **{op: "tf.random.Generator's ops: no CUDA twins yet (TensorFlow has them); a GPU placement "
           "falls back to the host kernels"
       for op in ("StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
                  "StatefulStandardNormalV2", "StatefulTruncatedNormal", "RngSkip",
                  "RngReadAndSkip")},
}


# Kernels of the runtime itself rather than of a kernel family: a call instantiates its
# functions and runs them through the executor (runtime/src/function_call.cc), on the
# host; the nodes inside a function body are placed as any others.
RUNTIME_KERNELS = {
    op: "a function call runs the called function's nodes through the executor"
    for op in ("PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
               "StatelessCase", "While", "StatelessWhile")
}

def _raw_kernel_list(runtime_lib, op: str | None = None) -> bytes:
    d = _lib.device_lib()
    status = _lib.Status()
    buf = (d.TF_GetAllRegisteredKernels(status.ptr) if op is None
           else d.TF_GetRegisteredKernelsForOp(op.encode(), status.ptr))
    assert runtime_lib.TF_GetCode(status.ptr) == 0, runtime_lib.TF_Message(status.ptr)
    try:
        return ctypes.string_at(buf.contents.data, buf.contents.length)
    finally:
        runtime_lib.TF_DeleteBuffer(buf)


def _key(kernel) -> tuple:
    """What makes a kernel: op, type constraints (attr, dtypes), label."""
    return (kernel.op, tuple(sorted((c.name, tuple(c.allowed_values.list.type))
                                    for c in kernel.constraint)), kernel.label)


@pytest.fixture(scope="module")
def kernels(runtime_lib):
    return opgen.registered_kernels()


@pytest.fixture(scope="module")
def opdefs(runtime_lib):
    return {op.name: op for op in op_def_pb2.OpList.FromString(_lib.all_op_list_bytes()).op}


def test_the_list_is_a_kernel_list_that_protobuf_reads_whole(runtime_lib):
    raw = _raw_kernel_list(runtime_lib)
    parsed = kernel_def_pb2.KernelList.FromString(raw)
    assert len(parsed.kernel) > 1000
    assert all(len(UnknownFieldSet(k)) == 0 for k in parsed.kernel)
    # protobuf writes fields in number order, packed, defaults left out: so does the runtime
    assert parsed.SerializeToString() == raw


def test_every_kernel_fits_its_opdef(kernels, opdefs):
    problems = []
    for k in kernels.kernel:
        op = opdefs.get(k.op)
        if op is None:
            problems.append(f"{k.op}: no such op")
            continue
        assert k.device_type, k  # "CPU", "GPU", or a test plugin's device
        attrs = {a.name: a for a in op.attr}
        for c in k.constraint:
            attr = attrs.get(c.name)
            if attr is None or attr.type not in ("type", "list(type)"):
                problems.append(f"{k.op}: constraint on {c.name}, not a type attr")
                continue
            assert len(c.allowed_values.list.type) == 1, k
            allowed = attr.allowed_values.list.type
            dtype = c.allowed_values.list.type[0]
            if allowed and dtype not in allowed:
                problems.append(f"{k.op} on {k.device_type}: {c.name}={types_pb2.DataType.Name(dtype)}"
                                " is not among the attr's allowed values")
        args = {a.name for a in list(op.input_arg) + list(op.output_arg)}
        problems += [f"{k.op}: host memory arg {a} is no arg" for a in k.host_memory_arg
                     if a not in args]
    assert not problems, "\n".join(sorted(set(problems)))


@pytest.mark.parametrize("op", ["MatMul", "Const", "Placeholder", "AddV2", "NoSuchOp"])
def test_one_ops_kernels_are_the_whole_list_filtered(runtime_lib, kernels, op):
    for_op = kernel_def_pb2.KernelList.FromString(_raw_kernel_list(runtime_lib, op))
    assert list(for_op.kernel) == [k for k in kernels.kernel if k.op == op]
    assert list(opgen.registered_kernels(op).kernel) == list(for_op.kernel)
    assert (len(for_op.kernel) == 0) == (op == "NoSuchOp")


def test_a_null_op_name_is_an_invalid_argument(runtime_lib):
    d = _lib.device_lib()
    status = _lib.Status()
    assert not d.TF_GetRegisteredKernelsForOp(None, status.ptr)
    assert runtime_lib.TF_GetCode(status.ptr) == errors.InvalidArgumentError.code
    with pytest.raises(TypeError):
        opgen.registered_kernels(b"MatMul")


_COMPUTE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_kept = []  # the registry keeps the function pointers for the life of the process


def test_a_kernel_def_registration_is_listed_as_given(runtime_lib):
    """A KernelDef that protobuf wrote, registered through the C API, comes back with its
    label, priority and host-memory args, one kernel per allowed dtype."""
    rt = runtime_lib
    rt.TF_NewKernelBuilder.restype = ctypes.c_void_p
    rt.TF_NewKernelBuilder.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                                       ctypes.c_void_p, ctypes.c_void_p]
    rt.TF_RegisterKernelBuilderWithKernelDef.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                         ctypes.c_void_p, ctypes.c_void_p]
    label = f"listed_{os.getpid()}"  # a labelled kernel runs only for nodes that ask for it
    given = kernel_def_pb2.KernelDef(op="Identity", device_type="CPU", label=label, priority=7,
                                     host_memory_arg=["input"])
    given.constraint.add(name="T", allowed_values=attr_value_pb2.AttrValue(
        list=attr_value_pb2.AttrValue.ListValue(type=[types_pb2.DT_INT8, types_pb2.DT_UINT16])))
    compute = _COMPUTE(lambda kernel, ctx: None)
    _kept.append(compute)
    builder = rt.TF_NewKernelBuilder(b"Identity", b"CPU", None,
                                     ctypes.cast(compute, ctypes.c_void_p), None)
    status = _lib.Status()
    rt.TF_RegisterKernelBuilderWithKernelDef(given.SerializeToString(), b"listed", builder,
                                             status.ptr)
    assert rt.TF_GetCode(status.ptr) == 0, rt.TF_Message(status.ptr)

    listed = [k for k in opgen.registered_kernels("Identity").kernel if k.label == label]
    assert [k.constraint[0].allowed_values.list.type[0] for k in listed] == [
        types_pb2.DT_INT8, types_pb2.DT_UINT16]
    for k in listed:
        assert (k.device_type, k.priority, list(k.host_memory_arg)) == ("CPU", 7, ["input"])


def _gpu_plugin_reason() -> str | None:
    """Why this build has no CUDA plugin to check, or None."""
    from opgen import _paths
    runtime = _paths.runtime_library_path()
    if not (runtime.parent / _lib.CUDA_PLUGIN_NAME).exists():
        return f"no {_lib.CUDA_PLUGIN_NAME} beside {runtime}: built without nvcc"
    if os.environ.get("OPGEN_DISABLE_DEVICE_PLUGINS", "") not in ("", "0"):
        return "OPGEN_DISABLE_DEVICE_PLUGINS is set"
    return None


def _builtin_op_names() -> set[str]:
    """The runtime's own ops (the bundled ops.pbtxt is its registry written out): other
    tests load plugins that add ops and CPU kernels to this process."""
    from google.protobuf import text_format
    from opgen import _paths
    ops = text_format.Parse(_paths.bundled_ops_path().read_text(), op_def_pb2.OpList())
    return {op.name for op in ops.op}


def _has_host_dtype_constraint(key: tuple) -> bool:
    """Strings, variants (TensorLists) and resource handles are host objects: only
    fixed-size dtypes live on devices, as in TensorFlow (whose GPU kernels of these keep
    them in host memory)."""
    host = {types_pb2.DT_STRING, types_pb2.DT_VARIANT, types_pb2.DT_RESOURCE}
    return any(host & set(dtypes) for _, dtypes in key[1])


def test_the_gpu_has_a_kernel_for_every_cpu_kernel(kernels):
    reason = _gpu_plugin_reason()
    if reason:
        pytest.skip(reason)
    builtin = _builtin_op_names()
    by_device = defaultdict(set)
    for k in kernels.kernel:
        if k.op in builtin and not k.label:  # labelled kernels here are other tests'
            by_device[k.device_type].add(_key(k))
    assert by_device["GPU"], "the CUDA plugin is built but registered no GPU kernel"
    # String, variant and resource tensors live on the host (only fixed-size dtypes live
    # on devices): their kernels (Identity, Const, Shape ... of DT_STRING, AddN of
    # TensorLists, Identity of a variable's handle) are CPU-only.
    host_only = {key for key in by_device["CPU"] if _has_host_dtype_constraint(key)}
    missing = sorted(key for key in by_device["CPU"] - by_device["GPU"] - host_only
                     if key[0] not in CPU_ONLY and key[0] not in RUNTIME_KERNELS)
    described = [f"{op} {dict((a, types_pb2.DataType.Name(t[0])) for a, t in cons)}"
                 for op, cons, _ in missing]
    assert not missing, f"{len(missing)} CPU kernels have no GPU kernel:\n" + "\n".join(described)
    # and the GPU has nothing the CPU lacks: every GPU kernel can be compared with one
    assert by_device["GPU"] <= by_device["CPU"]
    assert ({key[0] for key in by_device["CPU"] - by_device["GPU"] - host_only}
            == set(CPU_ONLY) | set(RUNTIME_KERNELS))


# ---- opgen kernels ---------------------------------------------------------------------

def _cli(*args):
    """`opgen kernels ARGS`; click >= 8.2 keeps the result's stdout and stderr apart."""
    from click.testing import CliRunner

    from opgen.cli import main
    return CliRunner().invoke(main, ["kernels", *args])


def test_the_cli_prints_one_line_per_kernel(runtime_lib):
    result = _cli("MatMul", "Reshape")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    listed = [k for k in opgen.registered_kernels().kernel if k.op in ("MatMul", "Reshape")]
    assert len(lines) == len(listed) and lines == sorted(lines)
    assert "MatMul\tCPU\tT=float32" in lines
    assert "Reshape\tCPU\tT=complex128 Tshape=int64" in lines  # the CPU reads shapes in place
    assert {tuple(line.split("\t")[:2]) for line in lines} == {(k.op, k.device_type) for k in listed}


def test_the_cli_filters_by_device_and_says_why_a_gpu_is_missing(runtime_lib):
    result = _cli("--device", "cpu", "AddV2")
    assert result.exit_code == 0, result.output
    assert result.stdout and all(line.split("\t")[1] == "CPU" for line in result.stdout.splitlines())
    gpu = _cli("--device", "GPU", "AddV2")
    if _gpu_plugin_reason() is not None:
        assert gpu.exit_code == 2 and "'GPU' has no kernels here" in gpu.output
    else:
        assert gpu.exit_code == 0 and "AddV2\tGPU\tT=float32" in gpu.stdout.splitlines()
        reason = opgen.device_unavailable_reason("GPU")
        assert (reason is not None) == ("this machine has no GPU" in gpu.stderr)


def test_the_cli_refuses_a_device_type_without_kernels_and_lists_those_with(runtime_lib):
    result = _cli("--device", "TPU")
    assert result.exit_code == 2 and result.stdout == ""
    known = sorted({k.device_type for k in opgen.registered_kernels().kernel})
    assert f"'TPU' has no kernels here; device types with kernels: {', '.join(known)}" \
        in result.output


def test_the_cli_names_ops_without_kernels(runtime_lib):
    result = _cli("MatMul", "NoSuchOp")
    assert result.exit_code == 2 and "no kernels for NoSuchOp" in result.output


_REACH_SCRIPT = r"""
import numpy as np, opgen
from opgen.runtime.kernels import describe_kernel, instantiated_kernels
before = {describe_kernel(k) for k in instantiated_kernels().kernel}
opgen.execute_op("AddV2", [np.ones(3, np.float32), np.ones(3, np.float32)], {})
from opgen import ops
g = opgen.Graph()
with g.as_default():
    x = ops.placeholder(opgen.float64, shape=[2])
    y = ops.neg(x)
with opgen.Session(graph=g) as s:
    s.run(y, {x: np.ones(2)})
after = {describe_kernel(k) for k in instantiated_kernels().kernel}
print(sorted(after - before))
"""


def test_instantiated_kernels_are_the_ones_a_process_ran(runtime_lib, tmp_path):
    """A fresh process lists exactly the kernels its eager op and its graph ran on."""
    import subprocess
    import sys
    env = {**os.environ, "OPGEN_DISABLE_DEVICE_PLUGINS": "1"}
    run = subprocess.run([sys.executable, "-c", _REACH_SCRIPT], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    # the fed Placeholder runs no kernel: the feed replaces it
    assert ast.literal_eval(run.stdout) == ["AddV2\tCPU\tT=float32", "Neg\tCPU\tT=float64"]
