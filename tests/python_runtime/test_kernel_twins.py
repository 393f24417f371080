"""Kernel families are twins by file name: runtime/kernels/cpu/X.cc and
runtime/kernels/cuda/X.cu (or X.cc) register the same ops, so that whoever changes one
finds the other by its name. A family file is one that defines a registration function
`void Register...Kernels(TF_Status* status)`; the ops it registers are read from its
source (the op-name string literals in it) and checked against the registry, so that an
op registered some other way cannot slip past."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

import opgen

from test_registered_kernels import (CPU_ONLY, RUNTIME_KERNELS, _builtin_op_names,
                                     _gpu_plugin_reason)

KERNELS = Path(__file__).resolve().parents[2] / "runtime" / "kernels"

# CPU families without a CUDA twin, and why (their ops are test_registered_kernels.py's
# CPU_ONLY, op by op).
CPU_ONLY_FAMILIES = {
    "lstm_block": "TensorFlow 1's fused LSTM ops: no CUDA kernels yet (GPU placements fall back)",
    "gru_block": "TensorFlow 1's fused GRU cell: no CUDA kernels yet (GPU placements fall back)",
    "batch_norm_global": "BatchNormWithGlobalNormalization(Grad), deprecated since GraphDef "
                         "version 9: no CUDA kernels yet (GPU placements fall back)",
    "adagrad_da": "TensorFlow registers (ResourceSparse)ApplyAdagradDA for the CPU only",
    "placeholder": "fed values arrive on the host",
    "unravel_index": "TensorFlow registers UnravelIndex for the CPU only",
    "nth_element": "TensorFlow registers NthElement for the CPU only",
    "ctc_loss": "TensorFlow registers CTCLoss for the CPU only (its GPU loss is CTCLossV2, cuDNN)",
    "ctc_decoder": "TensorFlow registers the CTC decoders for the CPU only",
    "edit_distance": "TensorFlow registers EditDistance for the CPU only",
    "sparse_tensor": "SparseReorder, SparseReshape, SparseFillEmptyRows(Grad) and "
                     "SparseTensorDenseMatMul walk int64 index rows on the host (no GPU "
                     "kernels yet: GPU placements fall back to these)",
    "sparse_combine": "SparseAdd(Grad), SparseSlice(Grad), SparseReduceSum and SparseConcat "
                      "walk int64 index rows on the host (no GPU kernels yet: GPU placements "
                      "fall back to these)",
    "checkpoint": "checkpoint files are read and written on the host",
    "image_legacy": "TensorFlow registers AdjustContrast, DrawBoundingBoxes(V2), RandomCrop "
                    "and ExtractGlimpse(V2) for the CPU only",
    "sample_distorted_bounding_box": "TensorFlow registers the bounding-box samplers for the "
                                     "CPU only (a sequential rejection loop)",
    "audio": "DecodeWav, EncodeWav, AudioSpectrogram and Mfcc: TensorFlow registers CPU "
             "kernels only",
    "raw_decode": "ReadFile, WriteFile, DecodeRaw and DecodePaddedRaw: files and bytes on the "
                  "host, as in TensorFlow",
    "decode_csv": "CSV text is host data; TensorFlow registers a CPU kernel only",
    "string_ops": "string tensors are host data, as in TensorFlow",
    "as_string": "string outputs are host data, as in TensorFlow",
    "string_hash": "string inputs are host data, as in TensorFlow",
    "parse_example": "serialized tf.Example protos are host strings, as in TensorFlow",
    "string_text": "string tensors are host data, as in TensorFlow",
    "string_convert": "string tensors are host data, as in TensorFlow",
    "string_join_split": "string tensors are host data, as in TensorFlow",
    "string_unicode": "string tensors are host data, as in TensorFlow",
    "lookup_table": "lookup tables are host objects, as in TensorFlow",
    "ragged": "its ragged inputs come from host string ops (no GPU kernel yet)",
    "tensor_list": "TensorLists are host objects (DT_VARIANT), as in TensorFlow",
    "tensor_array": "TensorArrays are host objects behind a resource handle (no GPU "
                    "kernels yet: TensorFlow keeps GPU elements on the device)",
    "stack": "stacks are host objects behind a resource handle, as TensorArrays are (no "
             "GPU kernels yet: TensorFlow keeps GPU elements on the device)",
    "debug_host": "Assert, PrintV2 and StringFormat turn tensors into text on the host, "
                  "as in TensorFlow",
    "unique": "Unique* and ListDiff: outputs sized by the values, computed on the host "
              "(no GPU kernel yet)",
    "spectral": "the FFT family: no GPU FFT yet (TensorFlow's is cuFFT); GPU placements "
                "fall back to these host kernels",
    "linalg": "inverse, determinants, Cholesky and solves: no GPU kernels yet (TensorFlow's "
              "are cuSOLVER's); GPU placements fall back to these host kernels",
    "linalg_decompositions": "Svd, Qr, SelfAdjointEigV2, Lu and MatrixSolveLs through LAPACK: "
                             "no GPU kernels yet (TensorFlow's are cuSOLVER's); GPU placements "
                             "fall back to these host kernels",
    "non_max_suppression": "a sequential greedy selection: GPU placements fall back to "
                           "the host kernel (TensorFlow's GPU kernel selects the same)",
    "training_sparse": "the ResourceSparseApply* optimizer ops: no GPU kernels yet (TensorFlow "
                       "has some, racing on repeated indices)",
    "random_host": "(Stateless)Shuffle moves rows, (Stateless)Multinomial searches a CDF per "
                   "sample: GPU placements fall back to these host kernels",
    "random_gamma_poisson": "StatelessRandomGammaV2/V3, StatelessRandomPoisson: no CUDA twins "
                            "yet (TensorFlow has them); GPU placements fall back to these host "
                            "kernels",
    "random_binomial": "StatelessRandomBinomial: no CUDA twin yet (TensorFlow has one); GPU "
                       "placements fall back to this host kernel",
    "random_truncated_normal": "StatelessParameterizedTruncatedNormal: no CUDA twin yet "
                               "(TensorFlow has one); GPU placements fall back to this host kernel",
    "random_generator": "tf.random.Generator's ops: no CUDA twins yet (TensorFlow has them); "
                        "GPU placements fall back to these host kernels",
}

_REGISTRATION = re.compile(r"^void Register\w+Kernels\(TF_Status\* status\)", re.M)
_LITERAL = re.compile(r'"(\w+)"')

pytestmark = pytest.mark.skipif(not (KERNELS / "cpu").is_dir(),
                                reason="the kernel sources are not beside the tests")


def _families(device_dir: str, patterns: tuple[str, ...]) -> dict[str, Path]:
    """Family name (the file's stem) -> file, for the files that define a registration."""
    files = [f for pattern in patterns for f in sorted((KERNELS / device_dir).glob(pattern))]
    return {f.stem: f for f in files if _REGISTRATION.search(f.read_text())}


@pytest.fixture(scope="module")
def cpu_families() -> dict[str, Path]:
    return _families("cpu", ("*.cc",))


@pytest.fixture(scope="module")
def cuda_families() -> dict[str, Path]:
    return _families("cuda", ("*.cu", "*.cc"))


@pytest.fixture(scope="module")
def op_names(runtime_lib) -> set[str]:
    """The built-in ops, the runtime's internal _Opgen* ones included."""
    kernels = opgen.registered_kernels().kernel
    return _builtin_op_names() | {k.op for k in kernels if k.op.startswith("_Opgen")}


def _ops_of(path: Path, op_names: set[str]) -> set[str]:
    return set(_LITERAL.findall(path.read_text())) & op_names


def test_every_cpu_family_has_a_cuda_twin_of_the_same_name(cpu_families, cuda_families):
    assert len(cpu_families) > 20, sorted(cpu_families)  # the scan finds the families
    assert not set(CPU_ONLY_FAMILIES) & set(cuda_families)
    missing = sorted(set(cpu_families) - set(cuda_families) - set(CPU_ONLY_FAMILIES))
    assert not missing, f"CPU families without a CUDA twin of the same name: {missing}"
    assert set(cuda_families) <= set(cpu_families), "CUDA families without a CPU twin: " + str(
        sorted(set(cuda_families) - set(cpu_families)))
    assert set(CPU_ONLY_FAMILIES) <= set(cpu_families)


def test_both_files_of_a_pair_register_the_same_ops(cpu_families, cuda_families, op_names):
    differ = []
    for name, cpu_file in sorted(cpu_families.items()):
        if name in CPU_ONLY_FAMILIES:
            continue
        cpu_ops, cuda_ops = _ops_of(cpu_file, op_names), _ops_of(cuda_families[name], op_names)
        assert cpu_ops, f"{cpu_file.name} registers no op that the scan sees"
        if cpu_ops != cuda_ops:
            differ.append(f"{name}: CPU only {sorted(cpu_ops - cuda_ops)}, "
                          f"CUDA only {sorted(cuda_ops - cpu_ops)}")
    assert not differ, "\n".join(differ)


# Ops that a CPU-only family registers for its host dtype alone, their other kernels
# being twinned elsewhere.
HOST_DTYPE_KERNELS = {"AddN": "tensor_list: AddN of TensorLists (DT_VARIANT)",
                      "Equal": "string_text: Equal of strings (host data)",
                      "NotEqual": "string_text: NotEqual of strings (host data)"}


def test_the_cpu_only_families_hold_the_cpu_only_ops(cpu_families, op_names):
    ops = set().union(*(_ops_of(cpu_families[name], op_names) for name in CPU_ONLY_FAMILIES))
    assert ops - set(HOST_DTYPE_KERNELS) == set(CPU_ONLY)
    assert set(HOST_DTYPE_KERNELS) <= ops


def _registered_ops(device: str, op_names: set[str]) -> set[str]:
    return {k.op for k in opgen.registered_kernels().kernel
            if k.device_type == device and k.op in op_names and not k.label}


def test_the_scan_sees_every_registered_cpu_op(cpu_families, op_names):
    """The source scan agrees with the registry: every op with a CPU kernel is named in
    a CPU family file, and every name found there has a CPU kernel."""
    scanned = defaultdict(list)
    for name, path in cpu_families.items():
        for op in _ops_of(path, op_names):
            scanned[op].append(name)
    assert not set(scanned) & set(RUNTIME_KERNELS)
    assert set(scanned) | set(RUNTIME_KERNELS) == _registered_ops("CPU", op_names)


def test_the_scan_sees_every_registered_gpu_op(cuda_families, op_names):
    reason = _gpu_plugin_reason()
    if reason:
        pytest.skip(reason)
    scanned = set().union(*(_ops_of(path, op_names) for path in cuda_families.values()))
    assert scanned == _registered_ops("GPU", op_names)
