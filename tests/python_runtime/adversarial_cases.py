"""Adversarial calls for every op the runtime registers: the inputs a careless or hostile
caller could pass (wrong and mismatched dtypes, wrong ranks, shapes that do not fit,
empty and 0-d tensors, axes / indices / sizes out of range or overflowing int64, NaN
where integers belong, non-contiguous and byte-swapped arrays, object and string arrays,
lists of the wrong length, attrs out of range).

Each op has one valid call (its *baseline*); the cases are that call with one thing
broken, generated from the op's OpDef, plus hand-written cases whose input is invalid
by the op's definition (these must raise). The same seed gives the same cases, in the
same order, in every process, so a child process can run case number i alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from opgen.runtime import dtypes

# The TF1 optimizer ops and their sparse forms (no outputs; they update variables).
TF1_OPTIMIZER_OPS = (
    "ResourceApplyAdaMax", "ResourceApplyAdadelta", "ResourceApplyAdagradV2",
    "ResourceApplyAddSign", "ResourceApplyCenteredRMSProp", "ResourceApplyFtrl",
    "ResourceApplyFtrlV2", "ResourceApplyPowerSign", "ResourceApplyProximalAdagrad",
    "ResourceApplyProximalGradientDescent", "ResourceSparseApplyAdagrad",
    "ResourceSparseApplyAdagradV2", "ResourceSparseApplyFtrl", "ResourceSparseApplyFtrlV2",
    "ResourceSparseApplyKerasMomentum", "ResourceSparseApplyMomentum",
    "ResourceSparseApplyRMSProp", "ResourceSparseApplyAdadelta",
    "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyProximalAdagrad",
    "ResourceSparseApplyProximalGradientDescent")

try:
    from ml_dtypes import bfloat16
except ImportError:  # ml_dtypes is a dependency; without it bfloat16 cases are left out
    bfloat16 = None

SEED = 20261123

f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64
I32_MAX, I32_MIN = np.iinfo(np.int32).max, np.iinfo(np.int32).min
I64_MAX, I64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min

# Expectations. ERROR: the input is invalid by the op's definition, so the call must
# raise. ANY: a result or an error are both right; a result must be the same in every
# mode and from run to run. SAME: the result must equal the one for `reference`
# (the same values in ordinary C-contiguous, native-order arrays).
# OK: the baseline, which must succeed (else its variants test nothing).
ERROR, ANY, SAME, OK = "error", "any", "same", "ok"


@dataclass(eq=False)
class Case:
    op: str
    inputs: list
    attrs: dict
    expect: str
    what: str
    reference: tuple | None = None  # (inputs, attrs) of the plain call, for SAME
    modes: tuple = ("eager", "graph", "fed")  # fed: inputs are fed Placeholders

    def describe(self) -> str:
        attrs = ", ".join(f"{k}={describe_value(v)}" for k, v in self.attrs.items())
        return f"{self.op} [{self.what}] inputs={describe_values(self.inputs)} attrs={{{attrs}}}"


def describe_values(values) -> str:
    return "[" + ", ".join(describe_value(v) for v in values) + "]"


def describe_value(value) -> str:
    if isinstance(value, np.ndarray):
        layout = "" if value.flags.c_contiguous else " non-contiguous"
        order = "" if value.dtype.isnative else " byte-swapped"
        text = " ".join(np.array2string(value, threshold=8, edgeitems=2).split())
        text = text if len(text) <= 60 else text[:57] + "..."
        return f"{value.dtype.name}{list(value.shape)}{layout}{order} {text}"
    if isinstance(value, np.generic):
        return f"{type(value).__name__}({value!r})"
    if isinstance(value, list) and value and all(isinstance(v, np.ndarray) for v in value):
        return describe_values(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---- the dtypes a sweep tries -------------------------------------------------------------

PALETTE = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64, np.complex128]
if bfloat16 is not None:
    PALETTE.append(bfloat16)


def allowed_dtypes(attr) -> list:
    """numpy dtypes an OpDef type attr allows (all of PALETTE when unconstrained)."""
    if not attr.allowed_values.list.type:
        return [np.dtype(d) for d in PALETTE]
    out = []
    for enum in attr.allowed_values.list.type:
        try:
            numpy_dtype = dtypes.as_dtype(enum).numpy_dtype
        except (TypeError, ValueError, KeyError):
            continue
        if numpy_dtype is not None and numpy_dtype.kind != "O":
            out.append(numpy_dtype)
    return out


def cast(value, dtype):
    """`value` (an array) in `dtype`, through float64 for bfloat16 / complex targets."""
    dtype = np.dtype(dtype)
    array = np.asarray(value)
    if array.dtype == np.bool_ and dtype.kind != "b":
        array = array.astype(np.int8)
    if dtype.kind == "b":
        return array != 0
    return array.astype(dtype)


# ---- baselines: one valid call per op -----------------------------------------------------

def _x(rng, shape=(2, 3), dtype=f32):
    return rng.uniform(0.5, 2.0, size=shape).astype(dtype)


def _boxes(rng, n=5):
    """n boxes [y1, x1, y2, x2] in the unit square (corners in either order)."""
    return rng.uniform(0, 1, (n, 4)).astype(f32)


WINDOW = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
WINDOW3 = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
DILATION = {"strides": [1, 1, 1, 1], "rates": [1, 1, 1, 1], "padding": "VALID"}


_SP_IND = np.array([[0, 1], [1, 0], [1, 2]], np.int64)
_SP_IND2 = np.array([[0, 1], [1, 1], [1, 2]], np.int64)
_SP_SHAPE = np.array([2, 3], np.int64)


def _lstm_cell(rng):
    """LSTMBlockCell's x [2, 5], cs_prev, h_prev [2, 4], w [9, 16], wci, wcf, wco [4], b [16]."""
    return [_x(rng, s) for s in ((2, 5), (2, 4), (2, 4), (9, 16), (4,), (4,), (4,), (16,))]


def _gru_cell(rng):
    """GRUBlockCell's x [2, 5], h_prev [2, 4], w_ru [9, 8], w_c [9, 4], b_ru [8], b_c [4]."""
    return [_x(rng, s) for s in ((2, 5), (2, 4), (9, 8), (9, 4), (8,), (4,))]


def baseline(op_def, rng):
    """(inputs, attrs) of one call of `op_def` that succeeds."""
    name = op_def.name
    special = {
        "ArgMax": lambda: ([_x(rng), i32(1)], {}),
        "ArgMin": lambda: ([_x(rng), i32(1)], {}),
        "AvgPool": lambda: ([_x(rng, (1, 4, 4, 2))], dict(WINDOW)),
        "MaxPool": lambda: ([_x(rng, (1, 4, 4, 2))], dict(WINDOW)),
        "BatchMatMulV2": lambda: ([_x(rng, (2, 2, 3)), _x(rng, (2, 3, 4))], {}),
        "MatMul": lambda: ([_x(rng, (2, 3)), _x(rng, (3, 4))], {}),
        "BiasAdd": lambda: ([_x(rng), _x(rng, (3,))], {}),
        "BiasAddV1": lambda: ([_x(rng), _x(rng, (3,))], {}),
        "NthElement": lambda: ([_x(rng), i32(1)], {"reverse": True}),
        # CTC: logits [max_time, batch, classes], labels (batch, position) in row-major order
        "CTCLoss": lambda: ([_x(rng, (4, 2, 3)), np.array([[0, 0], [0, 1], [1, 0]], i64),
                             np.array([1, 0, 1], i32), np.array([4, 3], i32)], {}),
        "CTCGreedyDecoder": lambda: ([_x(rng, (4, 2, 3)), np.array([4, 3], i32)],
                                     {"merge_repeated": True}),
        "CTCBeamSearchDecoder": lambda: ([_x(rng, (4, 2, 3)), np.array([4, 3], i32)],
                                         {"beam_width": 3, "top_paths": 2}),
        "EditDistance": lambda: ([_SP_IND, _x(rng, (3,)), _SP_SHAPE,
                                  np.array([[0, 0], [1, 1]], i64), _x(rng, (2,)), _SP_SHAPE], {}),
        "Dilation2D": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (2, 2, 2))], dict(DILATION)),
        "Dilation2DBackpropInput": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (2, 2, 2)), _x(rng, (1, 3, 3, 2))],
                                            dict(DILATION)),
        "Dilation2DBackpropFilter": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (2, 2, 2)), _x(rng, (1, 3, 3, 2))],
                                             dict(DILATION)),
        "BroadcastGradientArgs": lambda: ([np.array([2, 1, 3], i32), np.array([4, 1], i32)], {}),
        "Cast": lambda: ([_x(rng)], {"DstT": dtypes.int32}),
        "ClipByValue": lambda: ([_x(rng), f32(0.7), f32(1.5)], {}),
        "ConcatV2": lambda: ([[_x(rng), _x(rng)], i32(0)], {}),
        "Const": lambda: ([], {"value": _x(rng), "dtype": dtypes.float32}),
        "Conv2D": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (2, 2, 2, 3))],
                           {"strides": [1, 1, 1, 1], "padding": "VALID"}),
        "ExpandDims": lambda: ([_x(rng), i32(0)], {}),
        "Fill": lambda: ([np.array([2, 3], i32), f32(1.5)], {}),
        "FusedBatchNormV3": lambda: ([_x(rng, (2, 2, 2, 3))] + [_x(rng, (3,)) for _ in range(4)],
                                     {"is_training": False}),
        "GatherV2": lambda: ([_x(rng, (3, 4)), np.array([0, 2], i32), i32(0)], {}),
        "NoOp": lambda: ([], {}),
        "Pack": lambda: ([[_x(rng), _x(rng)]], {"axis": 0}),
        "Pad": lambda: ([_x(rng), np.array([[1, 0], [0, 2]], i32)], {}),
        "PadV2": lambda: ([_x(rng), np.array([[1, 0], [0, 2]], i32), f32(-1.5)], {}),
        "ShapeN": lambda: ([[_x(rng), _x(rng, (4,))]], {}),
        "BroadcastArgs": lambda: ([np.array([2, 1, 3], i32), np.array([4, 1], i32)], {}),
        "Empty": lambda: ([np.array([2, 3], i32)], {"dtype": dtypes.float32, "init": True}),
        "UnravelIndex": lambda: ([np.array([1, 5], i32), np.array([2, 4], i32)], {}),
        "Placeholder": lambda: ([], {"dtype": dtypes.float32, "shape": [2]}),
        "PlaceholderWithDefault": lambda: ([_x(rng)], {"shape": [2, 3]}),
        "Range": lambda: ([i32(0), i32(5), i32(1)], {}),
        "Reshape": lambda: ([_x(rng), np.array([3, 2], i32)], {}),
        "SelectV2": lambda: ([rng.random((2, 3)) < 0.5, _x(rng), _x(rng)], {}),
        "Slice": lambda: ([_x(rng, (3, 4)), np.array([1, 0], i32), np.array([2, 3], i32)], {}),
        "Squeeze": lambda: ([_x(rng, (1, 3, 1))], {}),
        "StridedSlice": lambda: ([_x(rng, (3, 4)), np.array([0, 1], i32), np.array([3, 4], i32),
                                  np.array([1, 2], i32)], {}),
        "Tile": lambda: ([_x(rng), np.array([2, 1], i32)], {}),
        "ReverseV2": lambda: ([_x(rng, (2, 3, 2)), np.array([0, 2], i32)], {}),
        # convolution-family and image ops (runtime/ops/conv_image_ops.cc)
        "DepthwiseConv2dNative": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (2, 2, 2, 2))],
                                          {"strides": [1, 1, 1, 1], "padding": "SAME"}),
        "Conv2DBackpropInput": lambda: ([np.array([1, 4, 4, 2], i32), _x(rng, (2, 2, 2, 3)),
                                         _x(rng, (1, 4, 4, 3))], {"strides": [1, 1, 1, 1], "padding": "SAME"}),
        "Conv3D": lambda: ([_x(rng, (1, 3, 4, 4, 2)), _x(rng, (2, 2, 2, 2, 3))],
                           {"strides": [1, 1, 1, 1, 1], "padding": "VALID"}),
        "SpaceToBatchND": lambda: ([_x(rng, (1, 4, 4, 2)), np.array([2, 2], i32), np.zeros((2, 2), i32)], {}),
        "BatchToSpaceND": lambda: ([_x(rng, (4, 2, 2, 2)), np.array([2, 2], i32), np.zeros((2, 2), i32)], {}),
        "FusedBatchNorm": lambda: ([_x(rng, (2, 2, 2, 3))] + [_x(rng, (3,)) for _ in range(4)],
                                   {"is_training": False}),
        "FusedBatchNormV2": lambda: ([_x(rng, (2, 2, 2, 3))] + [_x(rng, (3,)) for _ in range(4)],
                                     {"is_training": False}),
        "ResizeBilinear": lambda: ([_x(rng, (1, 3, 4, 2)), np.array([5, 2], i32)], {}),
        "ResizeNearestNeighbor": lambda: ([_x(rng, (1, 3, 4, 2)), np.array([5, 2], i32)], {}),
        "ResizeBicubic": lambda: ([_x(rng, (1, 3, 4, 2)), np.array([5, 2], i32)],
                                  {"half_pixel_centers": True}),
        "ResizeArea": lambda: ([_x(rng, (1, 3, 4, 2)), np.array([5, 2], i32)], {}),
        "ScaleAndTranslate": lambda: ([_x(rng, (1, 3, 4, 2)), np.array([5, 2], i32),
                                       np.array([5 / 3, 0.5], f32), np.array([0.0, 0.25], f32)],
                                      {"kernel_type": "lanczos3"}),
        "ScaleAndTranslateGrad": lambda: ([_x(rng, (1, 5, 2, 2)), _x(rng, (1, 3, 4, 2)),
                                           np.array([5 / 3, 0.5], f32),
                                           np.array([0.0, 0.25], f32)], {}),
        "Bincount": lambda: ([np.array([[1, 0, 4], [3, 3, 9]], i32), i32(5), _x(rng)], {}),
        "DenseBincount": lambda: ([np.array([[1, 0, 4], [3, 3, 9]], i32), i32(5), _x(rng)],
                                  {"binary_output": False}),
        "RaggedBincount": lambda: ([np.array([0, 2, 2, 6], i64), np.array([1, 0, 4, 3, 3, 9], i32),
                                   i32(5), _x(rng, (6,))], {}),
        "SparseBincount": lambda: ([np.array([[0, 1], [1, 0], [1, 3]], i64),
                                   np.array([1, 4, 9], i32), np.array([2, 5], i64), i32(5),
                                   _x(rng, (3,))], {}),
        "MaxPool3D": lambda: ([_x(rng, (1, 4, 4, 4, 2))],
                              {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1],
                               "padding": "VALID"}),
        "AvgPool3D": lambda: ([_x(rng, (1, 4, 4, 4, 2))],
                              {"ksize": [1, 3, 3, 3, 1], "strides": [1, 2, 2, 2, 1],
                               "padding": "SAME"}),
        "MaxPool3DGrad": lambda: ([_x(rng, (1, 4, 4, 4, 2)), _x(rng, (1, 2, 2, 2, 2)),
                                   _x(rng, (1, 2, 2, 2, 2))], dict(WINDOW3)),
        "AvgPool3DGrad": lambda: ([np.array([1, 4, 4, 4, 2], i32), _x(rng, (1, 2, 2, 2, 2))], dict(WINDOW3)),
        "MaxPool3DGradGrad": lambda: ([_x(rng, (1, 4, 4, 4, 2)), _x(rng, (1, 2, 2, 2, 2)),
                                       _x(rng, (1, 4, 4, 4, 2))], dict(WINDOW3)),
        "ResizeBicubicGrad": lambda: ([_x(rng, (1, 5, 2, 2)), _x(rng, (1, 3, 4, 2))], {}),
        "MatrixBandPart": lambda: ([_x(rng, (2, 3, 4)), np.int64(1), np.int64(-1)], {}),
        "Bucketize": lambda: ([_x(rng, (2, 3)) - 1.0], {"boundaries": [-0.5, 0.0, 0.5]}),
        "MatrixDiagPartV3": lambda: ([_x(rng, (2, 3, 4)), np.array([-1, 1], i32), f32(0.5)], {}),
        "MatrixDiagV3": lambda: ([_x(rng, (2, 2, 3)), np.array([0, 1], i32), i32(-1), i32(-1),
                                  f32(-1)], {"align": "LEFT_RIGHT"}),
        "MatrixSetDiagV3": lambda: ([_x(rng, (2, 3, 4)), _x(rng, (2, 3)), i32(0)], {}),
        # the older forms (TF1-era v1, TF 2.2's V2)
        "MatrixDiagPartV2": lambda: ([_x(rng, (2, 3, 4)), np.array([-1, 1], i32), f32(0.5)], {}),
        "MatrixDiagV2": lambda: ([_x(rng, (2, 2, 3)), np.array([0, 1], i32), i32(-1), i32(-1),
                                  f32(-1)], {}),
        "MatrixSetDiagV2": lambda: ([_x(rng, (2, 3, 4)), _x(rng, (2, 3)), i32(0)], {}),
        "MatrixDiag": lambda: ([_x(rng, (2, 3))], {}),
        "MatrixDiagPart": lambda: ([_x(rng, (2, 3, 4))], {}),
        "MatrixSetDiag": lambda: ([_x(rng, (2, 3, 4)), _x(rng, (2, 3))], {}),
        "Concat": lambda: ([i32(0), [_x(rng), _x(rng)]], {}),
        "ParallelConcat": lambda: ([[_x(rng, (1, 3)), _x(rng, (1, 3))]], {"shape": [2, 3]}),
        "Gather": lambda: ([_x(rng, (3, 4)), np.array([0, 2], i32)], {}),
        "Reverse": lambda: ([_x(rng, (2, 3, 2)), np.array([True, False, True])], {}),
        "BatchMatMul": lambda: ([_x(rng, (2, 2, 3)), _x(rng, (2, 3, 4))], {}),
        "PlaceholderV2": lambda: ([], {"dtype": dtypes.float32, "shape": [2]}),
        "SpaceToBatch": lambda: ([_x(rng, (1, 4, 4, 2)), np.zeros((2, 2), i32)], {"block_size": 2}),
        "BatchToSpace": lambda: ([_x(rng, (4, 2, 2, 1)), np.zeros((2, 2), i32)], {"block_size": 2}),
        **{op: (lambda: ([_x(rng, (4, 2)), np.array([0, 0, 2, 2], i32), i32(4)], {}))
           for op in ("SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2")},
        "HistogramFixedWidth": lambda: ([_x(rng, (2, 3)), np.array([0.0, 1.0], f32), i32(4)], {}),
        "L2Loss": lambda: ([_x(rng, (2, 3))], {}),
        "InTopKV2": lambda: ([_x(rng, (3, 4)), np.array([0, 3, 1], i32), i32(2)], {}),
        "InTopK": lambda: ([_x(rng, (3, 4)), np.array([0, 3, 1], i64)], {"k": 2}),
        "UpperBound": lambda: ([np.sort(_x(rng, (2, 5)), 1), _x(rng, (2, 3))], {}),
        "LowerBound": lambda: ([np.sort(_x(rng, (2, 5)), 1), _x(rng, (2, 3))],
                               {"out_type": dtypes.int64}),
        "Diag": lambda: ([_x(rng, (2, 3))], {}),
        "DiagPart": lambda: ([_x(rng, (2, 3, 2, 3))], {}),
        "Bitcast": lambda: ([_x(rng, (2, 3))], {"type": dtypes.uint8}),
        "InplaceUpdate": lambda: ([_x(rng, (4, 3)), np.array([2, 0], i32), _x(rng, (2, 3))], {}),
        "InplaceAdd": lambda: ([_x(rng, (4, 3)), np.array([2, -1], i32), _x(rng, (2, 3))], {}),
        "InplaceSub": lambda: ([_x(rng, (4, 3)), np.array([1, 1], i32), _x(rng, (2, 3))], {}),
        "DataFormatVecPermute": lambda: ([np.array([1, 2, 3, 4], i32)], {}),
        "DataFormatDimMap": lambda: ([np.array([0, -1, 2], i32)],
                                     {"src_format": "NCDHW", "dst_format": "NDHWC"}),
        # linear algebra: well-conditioned (diagonally dominant) matrices
        **{op: (lambda: ([_x(rng, (2, 3, 3)) + 3 * np.eye(3, dtype=f32)], {}))
           for op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky")},
        "MatrixSolve": lambda: ([_x(rng, (2, 3, 3)) + 3 * np.eye(3, dtype=f32), _x(rng, (2, 3, 2))], {}),
        "Svd": lambda: ([_x(rng, (2, 4, 3))], {"full_matrices": True}),
        "Qr": lambda: ([_x(rng, (2, 3, 4))], {}),
        "SelfAdjointEigV2": lambda: ([_x(rng, (2, 3, 3))], {}),
        "Lu": lambda: ([_x(rng, (2, 3, 3)) + 3 * np.eye(3, dtype=f32)], {}),
        "MatrixSolveLs": lambda: ([_x(rng, (2, 4, 3)), _x(rng, (2, 4, 2)), np.float64(0.1)], {}),
        "MatrixTriangularSolve": lambda: ([_x(rng, (3, 3)) + 3 * np.eye(3, dtype=f32),
                                           _x(rng, (2, 3, 2))], {}),
        # the FFT family: lengths 5 and 6 (Bluestein and radix-2 paths), RFFT cropping
        **{op: (lambda: ([_x(rng, (2, 3, 5)).astype(np.complex64)], {}))
           for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D")},
        "RFFT": lambda: ([_x(rng, (2, 6)), np.array([5], i32)], {}),
        "RFFT2D": lambda: ([_x(rng, (2, 3, 6)), np.array([3, 4], i32)], {}),
        "RFFT3D": lambda: ([_x(rng, (2, 3, 4)), np.array([2, 3, 4], i32)], {}),
        "IRFFT": lambda: ([_x(rng, (2, 4)).astype(np.complex64), np.array([6], i32)], {}),
        "IRFFT2D": lambda: ([_x(rng, (3, 4)).astype(np.complex64), np.array([3, 5], i32)], {}),
        "IRFFT3D": lambda: ([_x(rng, (2, 3, 4)).astype(np.complex64), np.array([2, 3, 6], i32)], {}),
        # issue 22's backprop ops
        "Conv2DBackpropFilter": lambda: ([_x(rng, (1, 4, 4, 2)), np.array([2, 2, 2, 3], i32),
                                          _x(rng, (1, 4, 4, 3))], {"strides": [1, 1, 1, 1], "padding": "SAME"}),
        "DepthwiseConv2dNativeBackpropInput": lambda: (
            [np.array([1, 4, 4, 2], i32), _x(rng, (2, 2, 2, 2)), _x(rng, (1, 4, 4, 4))],
            {"strides": [1, 1, 1, 1], "padding": "SAME"}),
        "DepthwiseConv2dNativeBackpropFilter": lambda: (
            [_x(rng, (1, 4, 4, 2)), np.array([2, 2, 2, 2], i32), _x(rng, (1, 4, 4, 4))],
            {"strides": [1, 1, 1, 1], "padding": "SAME"}),
        "MaxPoolGrad": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (1, 2, 2, 2)), _x(rng, (1, 2, 2, 2))],
                                dict(WINDOW)),
        "MaxPoolGradGrad": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (1, 2, 2, 2)), _x(rng, (1, 4, 4, 2))],
                                    dict(WINDOW)),
        "AvgPoolGrad": lambda: ([np.array([1, 4, 4, 2], i32), _x(rng, (1, 2, 2, 2))], dict(WINDOW)),
        "FakeQuantWithMinMaxArgs": lambda: ([_x(rng)], {"min": -1.0, "max": 1.5}),
        "FakeQuantWithMinMaxArgsGradient": lambda: ([_x(rng), _x(rng)], {"num_bits": 4}),
        "FakeQuantWithMinMaxVars": lambda: ([_x(rng), f32(-1), f32(1)], {}),
        "FakeQuantWithMinMaxVarsGradient": lambda: ([_x(rng), _x(rng), f32(-1), f32(1)], {}),
        "FakeQuantWithMinMaxVarsPerChannel": lambda: (
            [_x(rng), np.array([-1, -2, 0], f32), np.array([1, 0.5, 2], f32)], {}),
        "FakeQuantWithMinMaxVarsPerChannelGradient": lambda: (
            [_x(rng), _x(rng), np.array([-1, -2, 0], f32), np.array([1, 0.5, 2], f32)], {}),
        "MaxPoolV2": lambda: ([_x(rng, (1, 4, 4, 2)), np.array([1, 2, 2, 1], i32), np.array([1, 2, 2, 1], i32)],
                              {"padding": "VALID"}),
        "MaxPoolGradV2": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (1, 2, 2, 2)), _x(rng, (1, 2, 2, 2)),
                                   np.array([1, 2, 2, 1], i32), np.array([1, 2, 2, 1], i32)], {"padding": "VALID"}),
        "MaxPoolGradGradV2": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (1, 2, 2, 2)), _x(rng, (1, 4, 4, 2)),
                                       np.array([1, 2, 2, 1], i32), np.array([1, 2, 2, 1], i32)],
                                      {"padding": "VALID"}),
        "MaxPoolWithArgmax": lambda: ([_x(rng, (2, 4, 4, 2))], dict(WINDOW)),
        "MaxPoolGradWithArgmax": lambda: ([_x(rng, (1, 4, 4, 2)), _x(rng, (1, 2, 2, 2)),
                                           np.array([0, 3, 9, 15, 16, 21, 27, 31], np.int64).reshape(1, 2, 2, 2)],
                                          dict(WINDOW)),
        "LRN": lambda: ([_x(rng, (1, 2, 2, 3))], {"depth_radius": 1}),
        # TensorFlow 1's fused RNN cells (batch 2, input 5, cell 4; 3 time steps) and batch norm
        "LSTMBlockCell": lambda: (_lstm_cell(rng), {}),
        "LSTMBlockCellGrad": lambda: (_lstm_cell(rng) + [_x(rng, (2, 4)) for _ in range(8)],
                                      {"use_peephole": True}),
        "BlockLSTM": lambda: ([np.int64(3), _x(rng, (3, 2, 5))] + _lstm_cell(rng)[1:], {}),
        "BlockLSTMV2": lambda: ([np.int64(3), _x(rng, (3, 2, 5))] + _lstm_cell(rng)[1:], {}),
        **{op: (lambda: ([np.int64(2), _x(rng, (3, 2, 5))] + _lstm_cell(rng)[1:]
                         + [_x(rng, (3, 2, 4)) for _ in range(9)], {"use_peephole": True}))
           for op in ("BlockLSTMGrad", "BlockLSTMGradV2")},
        "GRUBlockCell": lambda: (_gru_cell(rng), {}),
        "GRUBlockCellGrad": lambda: (_gru_cell(rng) + [_x(rng, (2, 4)) for _ in range(4)], {}),
        "BatchNormWithGlobalNormalization": lambda: (
            [_x(rng, (1, 2, 2, 3))] + [_x(rng, (3,)) for _ in range(4)],
            {"variance_epsilon": 0.001, "scale_after_normalization": True}),
        "BatchNormWithGlobalNormalizationGrad": lambda: (
            [_x(rng, (1, 2, 2, 3))] + [_x(rng, (3,)) for _ in range(3)] + [_x(rng, (1, 2, 2, 3))],
            {"variance_epsilon": 0.001, "scale_after_normalization": True}),
        "LRNGrad": lambda: ([_x(rng, (1, 2, 2, 3)), _x(rng, (1, 2, 2, 3)), _x(rng, (1, 2, 2, 3))],
                            {"depth_radius": 1}),
        "FusedBatchNormGrad": lambda: ([_x(rng, (2, 2, 2, 3)), _x(rng, (2, 2, 2, 3))]
                                       + [_x(rng, (3,)) for _ in range(3)], {}),
        "FusedBatchNormGradV2": lambda: ([_x(rng, (2, 2, 2, 3)), _x(rng, (2, 2, 2, 3))]
                                         + [_x(rng, (3,)) for _ in range(3)], {}),
        "FusedBatchNormGradV3": lambda: ([_x(rng, (2, 2, 2, 3)), _x(rng, (2, 2, 2, 3))]
                                         + [_x(rng, (3,)) for _ in range(4)], {}),
        "Conv3DBackpropInputV2": lambda: ([np.array([1, 3, 4, 4, 2], i32), _x(rng, (2, 2, 2, 2, 3)),
                                           _x(rng, (1, 3, 4, 4, 3))], {"strides": [1] * 5, "padding": "SAME"}),
        "Conv3DBackpropFilterV2": lambda: ([_x(rng, (1, 3, 4, 4, 2)), np.array([2, 2, 2, 2, 3], i32),
                                            _x(rng, (1, 3, 4, 4, 3))], {"strides": [1] * 5, "padding": "SAME"}),
        "ResizeBilinearGrad": lambda: ([_x(rng, (1, 5, 2, 2)), _x(rng, (1, 3, 4, 2))], {}),
        "ResizeNearestNeighborGrad": lambda: ([_x(rng, (1, 5, 2, 2)), np.array([3, 4], i32)], {}),
        "DepthToSpace": lambda: ([_x(rng, (1, 2, 3, 8))], {"block_size": 2}),
        "SpaceToDepth": lambda: ([_x(rng, (1, 4, 2, 3))], {"block_size": 2}),
        "MirrorPad": lambda: ([_x(rng), np.array([[1, 0], [0, 2]], i32)], {"mode": "REFLECT"}),
        "Transpose": lambda: ([_x(rng), np.array([1, 0], i32)], {}),
        "Unpack": lambda: ([_x(rng)], {"num": 2}),
        "AddN": lambda: ([[_x(rng), _x(rng), _x(rng)]], {}),
        "Max": lambda: ([_x(rng), i32(1)], {}),
        "Min": lambda: ([_x(rng), i32(1)], {}),
        "Mean": lambda: ([_x(rng), i32(1)], {}),
        "Sum": lambda: ([_x(rng), i32(1)], {}),
        "Prod": lambda: ([_x(rng), i32(1)], {}),
        # issue 17's ops
        "Einsum": lambda: ([[_x(rng, (2, 3)), _x(rng, (3, 4))]], {"equation": "ab,bc->ac"}),
        "IdentityN": lambda: ([[_x(rng), _x(rng, (3,))]], {}),
        "Split": lambda: ([i32(1), _x(rng, (2, 4))], {"num_split": 2}),
        "SplitV": lambda: ([_x(rng, (2, 4)), np.array([1, -1], i64), i32(1)], {"num_split": 2}),
        "OneHot": lambda: ([np.array([0, 2, 1], i64), i32(3), f32(1), f32(0)], {}),
        "BroadcastTo": lambda: ([_x(rng, (1, 3)), np.array([2, 3], i32)], {}),
        "TopKV2": lambda: ([_x(rng), i32(2)], {}),
        "Cumsum": lambda: ([_x(rng), i32(1)], {}),
        "Cumprod": lambda: ([_x(rng), i32(1)], {}),
        # the math family (runtime/kernels/cpu/math_family.cc and the reductions, scans)
        "EuclideanNorm": lambda: ([_x(rng), i32(1)], {}),
        "CumulativeLogsumexp": lambda: ([_x(rng), i32(1)], {}),
        "AccumulateNV2": lambda: ([[_x(rng), _x(rng), _x(rng)]], {"shape": [2, 3]}),
        "ConjugateTranspose": lambda: ([_x(rng), np.array([1, 0], i32)], {}),
        "Cross": lambda: ([_x(rng, (4, 3)), _x(rng, (4, 3))], {}),
        "All": lambda: ([rng.random((2, 3)) < 0.5, i32(1)], {}),
        # issue 22's gradient kernels (runtime/ops/nn_grad_ops.cc, array_grad_ops.cc)
        "SparseSoftmaxCrossEntropyWithLogits": lambda: ([_x(rng), np.array([0, 2], i64)], {}),
        "UnsortedSegmentSum": lambda: ([_x(rng, (3, 2)), np.array([0, 2, 0], i32), i32(3)], {}),
        **{op: (lambda: ([[np.array([0, 2], i32), np.array([[1], [3]], i32)],
                          [_x(rng, (2, 3)), _x(rng, (2, 1, 3))]], {}))
           for op in ("DynamicStitch", "ParallelDynamicStitch")},
        "DynamicPartition": lambda: ([_x(rng, (4, 2)), np.array([1, 0, 1, 2], i32)],
                                     {"num_partitions": 3}),
        "GatherNd": lambda: ([_x(rng, (3, 4)), np.array([[0, 1], [2, 3], [0, 1]], i32)], {}),
        "ScatterNd": lambda: ([np.array([[1], [3], [1]], i32), _x(rng, (3, 2)),
                               np.array([4, 2], i32)], {}),
        **{op: (lambda: ([_x(rng, (4, 2)), np.array([[1], [3], [1]], i32), _x(rng, (3, 2))], {}))
           for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                      "TensorScatterMax", "TensorScatterMin")},
        **{op: (lambda: ([_x(rng, (4, 2)), np.array([0, 2, -1, 2], i32), i32(3)], {}))
           for op in ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")},
        **{op: (lambda: ([_x(rng, (4, 2)), np.array([0, 0, 2, 2], i32)], {}))
           for op in ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")},
        **{op: (lambda: ([_x(rng, (3, 2)), np.array([0, 2, 2, 1], i32),
                          np.array([0, 0, 1, 3], i32)], {}))
           for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN")},
        **{op: (lambda: ([_x(rng, (3, 2)), np.array([0, 2, 2, 1], i32),
                          np.array([0, 0, 1, 3], i32), i32(5)], {}))
           for op in ("SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
                      "SparseSegmentSqrtNWithNumSegments")},
        # SparseTensor ops: (indices [3, 2], values [3], dense shape [2, 3])
        "SparseReorder": lambda: ([_SP_IND[::-1].copy(), _x(rng, (3,)), _SP_SHAPE], {}),
        "SparseReshape": lambda: ([_SP_IND, _SP_SHAPE, np.array([3, -1], np.int64)], {}),
        "SparseFillEmptyRows": lambda: ([_SP_IND, _x(rng, (3,)), np.array([4, 3], np.int64),
                                         f32(-1)], {}),
        "SparseFillEmptyRowsGrad": lambda: ([np.array([1, 2, 4], np.int64), _x(rng, (5,))], {}),
        "SparseTensorDenseMatMul": lambda: ([_SP_IND, _x(rng, (3,)), _SP_SHAPE, _x(rng, (3, 4))],
                                            {}),
        "SparseAdd": lambda: ([_SP_IND, _x(rng, (3,)), _SP_SHAPE, _SP_IND2, _x(rng, (3,)),
                               _SP_SHAPE, f32(0)], {}),
        "SparseAddGrad": lambda: ([_x(rng, (4,)), _SP_IND, _SP_IND2,
                                   np.array([[0, 1], [1, 0], [1, 1], [1, 2]], np.int64)], {}),
        "SparseSlice": lambda: ([_SP_IND, _x(rng, (3,)), _SP_SHAPE, np.array([1, 0], np.int64),
                                 np.array([1, 3], np.int64)], {}),
        "SparseSliceGrad": lambda: ([_x(rng, (2,)), _SP_IND, np.array([1, 0], np.int64),
                                     np.array([[0, 0], [0, 2]], np.int64)], {}),
        "SparseReduceSum": lambda: ([_SP_IND, _x(rng, (3,)), _SP_SHAPE, np.array([1], i32)], {}),
        "SparseConcat": lambda: ([[_SP_IND, _SP_IND2], [_x(rng, (3,)), _x(rng, (3,))],
                                  [_SP_SHAPE, _SP_SHAPE]], {"concat_dim": 1}),
        "ConcatOffset": lambda: ([i32(1), [np.array([2, 3], i32), np.array([2, 4], i32)]], {}),
        "InvertPermutation": lambda: ([np.array([2, 0, 1], i32)], {}),
        "StridedSliceGrad": lambda: ([np.array([3, 4], i32), np.array([0, 1], i32),
                                      np.array([3, 4], i32), np.array([1, 2], i32),
                                      _x(rng, (3, 2))], {}),
        "TensorStridedSliceUpdate": lambda: ([_x(rng, (3, 4)), np.array([0, 1], i32),
                                              np.array([3, 4], i32), np.array([1, 2], i32),
                                              _x(rng, (3, 2))], {}),
        # non-max suppression (runtime/ops/detection_ops.cc)
        **{op: (lambda: ([_boxes(rng), _x(rng, (5,)), i32(3), f32(0.5), f32(0.0)], {}))
           for op in ("NonMaxSuppressionV3", "NonMaxSuppressionV4")},
        "NonMaxSuppressionV5": lambda: ([_boxes(rng), _x(rng, (5,)), i32(3), f32(0.5), f32(0.0),
                                         f32(0.5)], {}),
        "CombinedNonMaxSuppression": lambda: ([_boxes(rng, 10).reshape(2, 5, 1, 4),
                                               _x(rng, (2, 5, 3)), i32(2), i32(4), f32(0.5),
                                               f32(0.0)], {}),
        "NonMaxSuppressionWithOverlaps": lambda: ([_x(rng, (5, 5)), _x(rng, (5,)), i32(3),
                                                   f32(0.5), f32(0.0)], {}),
        # CropAndResize and its gradients
        "CropAndResize": lambda: ([_x(rng, (2, 4, 5, 2)), _boxes(rng, 3), np.array([0, 1, 1], i32),
                                   np.array([3, 2], i32)], {}),
        "CropAndResizeGradImage": lambda: ([_x(rng, (3, 3, 2, 2)), _boxes(rng, 3),
                                            np.array([0, 1, 1], i32),
                                            np.array([2, 4, 5, 2], i32)], {"T": dtypes.float32}),
        "CropAndResizeGradBoxes": lambda: ([_x(rng, (3, 3, 2, 2)), _x(rng, (2, 4, 5, 2)),
                                            _boxes(rng, 3), np.array([0, 1, 1], i32)], {}),
        "ExtractImagePatches": lambda: ([_x(rng, (2, 4, 5, 2))],
                                        {"ksizes": [1, 2, 3, 1], "strides": [1, 1, 2, 1],
                                         "rates": [1, 2, 1, 1], "padding": "SAME"}),
        # projective transforms (Keras' RandomRotation and kin): one map per image
        "ImageProjectiveTransformV2": lambda: (
            [_x(rng, (2, 4, 5, 2)), np.array([[0.9, -0.3, 0.5, 0.3, 0.9, -0.2, 0.01, 0]] * 2, f32),
             np.array([3, 6], i32)], {"interpolation": "BILINEAR", "fill_mode": "REFLECT"}),
        "ImageProjectiveTransformV3": lambda: (
            [_x(rng, (2, 4, 5, 2)), np.array([[1.1, 0.2, -1.5, -0.1, 0.8, 0.7, 0, 0.02]] * 2, f32),
             np.array([5, 3], i32), f32(1.0)], {"interpolation": "NEAREST", "fill_mode": "CONSTANT"}),
        # the older image ops (runtime/ops/image_transform_ops.cc)
        "NonMaxSuppression": lambda: ([_boxes(rng), _x(rng, (5,)), i32(3)],
                                      {"iou_threshold": 0.5}),
        "NonMaxSuppressionV2": lambda: ([_boxes(rng), _x(rng, (5,)), i32(3), f32(0.5)], {}),
        "AdjustContrast": lambda: ([_x(rng, (2, 3, 3)), f32(1.5), f32(0.8), f32(1.6)], {}),
        "DrawBoundingBoxes": lambda: ([_x(rng, (2, 4, 5, 3)), _boxes(rng, 6).reshape(2, 3, 4)],
                                      {}),
        "DrawBoundingBoxesV2": lambda: ([_x(rng, (2, 4, 5, 3)), _boxes(rng, 6).reshape(2, 3, 4),
                                         _x(rng, (2, 4))], {}),
        "RandomCrop": lambda: ([_x(rng, (5, 4, 2)), np.array([3, 2], np.int64)],
                               {"seed": 1, "seed2": 2}),
        **{op: (lambda: ([_x(rng, (2, 5, 6, 2)), np.array([3, 4], i32),
                          np.array([[0.1, -0.4], [0.7, 0.2]], f32)], {"noise": "zero",
                                                                     "uniform_noise": False}))
           for op in ("ExtractGlimpse", "ExtractGlimpseV2")},
        "SampleDistortedBoundingBox": lambda: (
            [np.array([20, 30, 3], i32), _boxes(rng, 2).reshape(1, 2, 4)],
            {"seed": 1, "seed2": 2}),
        "SampleDistortedBoundingBoxV2": lambda: (
            [np.array([20, 30, 3], i32), _boxes(rng, 2).reshape(1, 2, 4), f32(0.1)],
            {"seed": 1, "seed2": 2}),
        "StatelessSampleDistortedBoundingBox": lambda: (
            [np.array([20, 30, 3], i32), _boxes(rng, 2).reshape(1, 2, 4), f32(0.1),
             np.array([3, 4], i32)], {}),
        # colour adjustments: images of rank 3 or more, 3 channels, a scalar factor
        "AdjustHue": lambda: ([_x(rng, (2, 3, 3)), f32(0.2)], {}),
        "AdjustSaturation": lambda: ([_x(rng, (2, 3, 3)), f32(0.7)], {}),
        "AdjustContrastv2": lambda: ([_x(rng, (2, 3, 3)), f32(1.5)], {}),
        "MirrorPadGrad": lambda: ([_x(rng, (4, 5)), np.array([[1, 0], [0, 2]], i32)],
                                  {"mode": "REFLECT"}),
        "Any": lambda: ([rng.random((2, 3)) < 0.5, i32(1)], {}),
        # debugging and sequence ops (runtime/ops/debug_ops.cc, sequence_ops.cc)
        "CheckNumerics": lambda: ([_x(rng)], {"message": "checked"}),
        "CheckNumericsV2": lambda: ([_x(rng)], {"message": "checked"}),
        "EnsureShape": lambda: ([_x(rng)], {"shape": [2, -1]}),
        "StringFormat": lambda: ([[_x(rng), np.array([1, 2, 3, 4, 5, 6, 7], i32)]],
                                 {"template": "x={} n={}", "placeholder": "{}"}),
        "Roll": lambda: ([_x(rng, (2, 3)), np.array([1, -4], i32), np.array([1, 0], i32)], {}),
        "ReverseSequence": lambda: ([_x(rng, (2, 3)), np.array([2, 3], i64)], {"seq_dim": 1}),
        "LinSpace": lambda: ([f32(-1.5), f32(2.0), i32(5)], {}),
        "StatelessShuffle": lambda: ([_x(rng, (4, 3)), np.array([7], np.uint64),
                                      np.array([1, 2], np.uint64), i32(1)], {}),
        "Unique": lambda: ([np.array([2, 1, 2, 3, 1], f32)], {}),
        "UniqueWithCounts": lambda: ([np.array([2, 1, 2, 3, 1], f32)], {}),
        "UniqueV2": lambda: ([np.array([[1, 2], [3, 4], [1, 2]], f32), np.array([0], i64)], {}),
        "UniqueWithCountsV2": lambda: ([np.array([[1, 2], [3, 4], [1, 2]], f32),
                                       np.array([1], i64)], {}),
        "ListDiff": lambda: ([np.array([1, 2, 3, 4, 2], f32), np.array([2, 5], f32)], {}),
        # audio ops: a stereo signal, its spectrogram, their MFCCs
        "EncodeWav": lambda: ([_x(rng, (6, 2)) - 1.25, i32(8000)], {}),
        "AudioSpectrogram": lambda: ([_x(rng, (20, 2)) - 1.25], {"window_size": 8, "stride": 4}),
        "Mfcc": lambda: ([_x(rng, (2, 3, 33)), i32(8000)], {}),
        "SparseToDense": lambda: ([np.array([[0, 1], [1, 2]], i32), np.array([2, 3], i32),
                                   np.array([1.5, 2.5], f32), f32(-1)], {}),
    }
    if name in special:
        return special[name]()
    # Element-wise ops and the like: every input a [2,3] array of the first type the
    # op allows (float32 where it may), or bool for bool inputs.
    inputs = []
    for arg in op_def.input_arg:
        if arg.number_attr or arg.type_list_attr:
            raise KeyError(f"no baseline for {name}: list input {arg.name}")
        if arg.type == dtypes.bool.as_datatype_enum:
            inputs.append(rng.random((2, 3)) < 0.5)
            continue
        attr = next(a for a in op_def.attr if a.name == arg.type_attr)
        allowed = allowed_dtypes(attr)
        dtype = np.dtype(f32) if np.dtype(f32) in allowed else allowed[0]
        inputs.append(cast(_x(rng), dtype))
    return inputs, {}


# ---- cases generated from the OpDef -------------------------------------------------------

# Inputs that carry axes, indices, sizes, permutations or shapes rather than data.
INDEX_TYPE_ATTRS = {"Tidx", "Index", "Tperm", "Tshape", "Tpaddings", "Tmultiples", "Tlabels",
                    "Tnumsegments", "Tindices", "Taxis", "Tdim", "index_type", "Targmax"}


def _type_attr_of(op_def, arg_index):
    arg = op_def.input_arg[arg_index]
    return arg.type_attr or None


def _attr(op_def, name):
    return next((a for a in op_def.attr if a.name == name), None)


def _is_index_input(op_def, i) -> bool:
    return op_def.name != "Range" and _type_attr_of(op_def, i) in INDEX_TYPE_ATTRS


def _with(inputs, i, value):
    out = list(inputs)
    out[i] = value
    return out


def _layout_variants(array):
    """(label, array) with the same values in another memory layout."""
    if not isinstance(array, np.ndarray) or array.ndim == 0 or array.size == 0:
        return
    wide = np.repeat(array, 2, axis=-1)[..., ::2]  # every other element of a wider array
    assert np.array_equal(wide, array, equal_nan=True)
    yield "strided view", wide
    if array.ndim >= 2:
        yield "Fortran order", np.asfortranarray(array)
    if array.dtype.itemsize > 1 and array.dtype.kind in "iufc":
        yield "byte-swapped", array.astype(array.dtype.newbyteorder())
    raw = np.empty(array.nbytes + 1, np.uint8)[1:]
    unaligned = raw.view(array.dtype).reshape(array.shape)
    unaligned[...] = array
    if array.dtype.itemsize > 1:
        yield "unaligned", unaligned


def _shape_variants(array, rng):
    if not isinstance(array, np.ndarray) and not isinstance(array, np.generic):
        return
    dtype = np.asarray(array).dtype
    for shape in [(), (0,), (2, 0, 3), (3, 2), (1,), (1, 1, 1, 1, 1, 1, 1), (7, 1)]:
        yield f"shape {list(shape)}", cast(_x(rng, shape), dtype)


JUNK = [
    ("None", None),
    ("a str", "abc"),
    ("a dict", {"a": 1}),
    ("ragged nested list", [[1, 2], [3]]),
    ("object array with None", np.array([1, None, 3], dtype=object)),
    ("object array of ints", np.array([1, 2, 3], dtype=object)),
    ("unicode array", np.array(["a", "bc"])),
    ("bytes array", np.array([b"a", b"bc"])),
    ("Python int beyond int64", 2 ** 70),
    ("datetime64 array", np.array(["2020-01-01"], dtype="datetime64[D]")),
    ("structured array", np.zeros(2, dtype=[("a", "i4"), ("b", "f4")])),
]

INDEX_VALUES = [-1, -3, 3, 1000, I32_MAX, I32_MIN, I64_MAX, I64_MIN, 2 ** 40]


def _index_variants(value):
    """(label, value, expect) replacements for an index input (int array or scalar)."""
    array = np.asarray(value)
    for v in INDEX_VALUES:
        for dtype in (i32, i64):
            if not np.iinfo(dtype).min <= v <= np.iinfo(dtype).max:
                continue
            if array.ndim == 0:
                yield f"index {v} ({np.dtype(dtype).name})", dtype(v), ANY
            elif array.size:
                changed = array.astype(dtype).copy()
                changed.flat[0] = v
                yield f"first entry {v} ({np.dtype(dtype).name})", changed, ANY
                changed = np.full_like(array.astype(dtype), v)
                yield f"every entry {v} ({np.dtype(dtype).name})", changed, ANY
    if array.ndim >= 1:
        yield "one entry more", np.concatenate([array.reshape(-1), array.reshape(-1)[:1]]), ANY
        if array.size:
            yield "one entry less", array.reshape(-1)[1:], ANY
        yield "as a matrix", array.reshape(1, -1), ANY
        yield "empty", np.zeros((0,), array.dtype), ANY
    else:
        yield "as a vector", array.reshape(1), ANY
        yield "as a matrix", array.reshape(1, 1), ANY
    for label, bad in [("NaN", np.nan), ("inf", np.inf), ("1.5", 1.5)]:
        yield f"float {label} instead of an integer", np.full(array.shape, bad, f32), ERROR
        yield f"Python float {label} instead of an integer", (bad if array.ndim == 0
                                                              else [bad] * array.size), ERROR
    yield "bool instead of an integer", np.zeros(array.shape, np.bool_), ERROR


def _attr_variants(attr):
    """(label, value) replacements for an attr of the op."""
    if attr.type == "int":
        for v in [-1, -2, 1000, I32_MAX, I32_MIN, I64_MAX, I64_MIN]:
            yield f"{attr.name}={v}", v
        yield f"{attr.name}=1.5 (float)", 1.5
        yield f"{attr.name}='1' (str)", "1"
    elif attr.type == "list(int)":
        for v in [[], [1, 1, 1], [0, 0, 0, 0], [-1, -1, -1, -1], [1, I64_MAX, I64_MAX, 1],
                  [1, 2 ** 40, 2 ** 40, 1], [1, 1, 1, 1, 1], [1, -5, 1, 1]]:
            yield f"{attr.name}={v}", v
        yield f"{attr.name}=[1.5, ...]", [1.5, 1, 1, 1]
        yield f"{attr.name}=3 (not a list)", 3
    elif attr.type == "string":
        for v in ["", "BOGUS", "NCHW", "SAME", "VALID", "EXPLICIT", "NHWC\x00x", "\u00e9"]:
            yield f"{attr.name}={v!r}", v
        yield f"{attr.name}=3 (int)", 3
    elif attr.type == "bool":
        yield f"{attr.name}=True", True
        yield f"{attr.name}=1 (int)", 1
    elif attr.type == "float":
        for v in [float("nan"), float("inf"), -1.0, 0.0, 1e300]:
            yield f"{attr.name}={v}", v
        yield f"{attr.name}='x' (str)", "x"
    elif attr.type == "type":
        for t in ["float32", "int64", "bool", "complex128", "string", "qint8", "resource"]:
            yield f"{attr.name}={t}", t
        yield f"{attr.name}=12345 (bad enum)", 12345
    elif attr.type == "shape":
        for v in [None, [], [-1], [2, 3], [0], [-5, 3], [2 ** 62, 2 ** 62]]:
            yield f"{attr.name}={v}", v


def generated_cases(op_def, rng):
    name = op_def.name
    base_inputs, base_attrs = baseline(op_def, rng)
    # A Placeholder runs only fed, in a graph.
    yield Case(name, base_inputs, base_attrs, ANY if name in ("Placeholder", "PlaceholderV2") else OK,
               "baseline")

    # Inputs of one type attr: every allowed dtype together (each kernel), then one
    # input alone in another dtype (a mismatch).
    by_attr: dict = {}
    for i, arg in enumerate(op_def.input_arg):
        if arg.type_attr and not arg.number_attr:
            by_attr.setdefault(arg.type_attr, []).append(i)
    for attr_name, indices in by_attr.items():
        attr = _attr(op_def, attr_name)
        allowed = allowed_dtypes(attr)
        for dtype in PALETTE:
            dtype = np.dtype(dtype)
            changed = list(base_inputs)
            for i in indices:
                changed[i] = cast(base_inputs[i], dtype)
            expect = ANY if dtype in allowed else ERROR
            yield Case(name, changed, base_attrs, expect, f"{attr_name}={dtype.name} for every input")
        if len(indices) >= 2:
            for dtype in [np.float64, np.int32, np.bool_]:
                yield Case(name, _with(base_inputs, indices[-1], cast(base_inputs[indices[-1]], dtype)),
                           base_attrs, ERROR if np.dtype(dtype) != np.asarray(base_inputs[indices[0]]).dtype
                           else ANY, f"last {attr_name} input alone {np.dtype(dtype).name}")

    for i, value in enumerate(base_inputs):
        arg = op_def.input_arg[i]
        if isinstance(value, list):  # a number_attr list
            yield from _list_cases(op_def, base_inputs, base_attrs, i, rng)
            continue
        for label, variant in _layout_variants(value):
            yield Case(name, _with(base_inputs, i, variant), base_attrs, SAME,
                       f"input {arg.name} as {label}", reference=(base_inputs, base_attrs))
        if _is_index_input(op_def, i):
            for label, variant, expect in _index_variants(value):
                yield Case(name, _with(base_inputs, i, variant), base_attrs, expect,
                           f"{arg.name}: {label}")
        else:
            for label, variant in _shape_variants(value, rng):
                yield Case(name, _with(base_inputs, i, variant), base_attrs, ANY,
                           f"{arg.name} of {label}")
            if np.asarray(value).dtype.kind in "fc":
                special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e38], np.asarray(value).dtype)
                yield Case(name, _with(base_inputs, i, special), base_attrs, ANY,
                           f"{arg.name} with NaN / inf / -0")
        for label, junk in JUNK:
            yield Case(name, _with(base_inputs, i, junk), base_attrs, ANY, f"{arg.name} as {label}",
                       modes=("eager", "graph"))
    if base_inputs:
        yield Case(name, base_inputs[:-1], base_attrs, ERROR, "one input too few",
                   modes=("eager", "graph"))
        yield Case(name, base_inputs + [base_inputs[-1]], base_attrs, ERROR, "one input too many",
                   modes=("eager", "graph"))
        zero = [cast(_x(rng, (0, 3)), np.asarray(v).dtype) if not isinstance(v, list) and
                not _is_index_input(op_def, j) else v for j, v in enumerate(base_inputs)]
        yield Case(name, zero, base_attrs, ANY, "every data input of shape [0,3]")

    for attr in op_def.attr:
        if attr.name in base_attrs or attr.HasField("default_value") or attr.type in ("int", "type"):
            if any(attr.name in (a.type_attr, a.number_attr, a.type_list_attr)
                   for a in op_def.input_arg):
                continue  # inferred from the inputs: the mismatch cases cover it
            for label, value in _attr_variants(attr):
                yield Case(name, base_inputs, {**base_attrs, attr.name: value}, ANY, label)
    yield Case(name, base_inputs, {**base_attrs, "no_such_attr": 1}, ERROR, "an unknown attr")
    if name == "Const":
        yield from _const_value_cases(base_attrs["value"])


def _const_value_cases(value):
    """Const's tensor-valued attr: every dtype, other layouts, and values that are not
    tensors of its dtype."""
    for dtype in PALETTE:
        dtype = np.dtype(dtype)
        as_dtype = cast(value, dtype)
        yield Case("Const", [], {"value": as_dtype, "dtype": dtypes.as_dtype(dtype)}, ANY,
                   f"value and dtype {dtype.name}")
        if dtype != np.float32:  # numpy integers and floats convert to float32 (TensorFlow's rule)
            yield Case("Const", [], {"value": as_dtype, "dtype": dtypes.float32},
                       ERROR if dtype.kind in "bc" else ANY, f"a {dtype.name} value for dtype float32")
    for label, variant in _layout_variants(value):
        yield Case("Const", [], {"value": variant, "dtype": dtypes.float32}, SAME, f"value as {label}",
                   reference=([], {"value": value, "dtype": dtypes.float32}))
    for label, junk in JUNK:
        yield Case("Const", [], {"value": junk, "dtype": dtypes.float32}, ANY, f"value as {label}",
                   modes=("eager", "graph"))
    for shape in [(), (0,), (0, 5), (1,) * 8]:
        yield Case("Const", [], {"value": np.zeros(shape, np.float32), "dtype": dtypes.float32}, ANY,
                   f"value of shape {list(shape)}")


def _list_cases(op_def, base_inputs, base_attrs, i, rng):
    name = op_def.name
    items = base_inputs[i]
    arg = op_def.input_arg[i]
    if arg.type_list_attr:  # a list of any dtypes (IdentityN): mixing them is allowed
        yield Case(name, _with(base_inputs, i, []), base_attrs, ERROR, f"{arg.name} an empty list",
                   modes=("eager", "graph"))
        yield Case(name, _with(base_inputs, i, items[:1]), base_attrs, ANY, f"{arg.name} of one entry")
        yield Case(name, _with(base_inputs, i, [items[0], cast(items[1], np.int32)]), base_attrs, ANY,
                   f"{arg.name} of float32 and int32")
        yield Case(name, _with(base_inputs, i, [items[0], None]), base_attrs, ANY,
                   f"{arg.name} with a None entry", modes=("eager", "graph"))
        yield Case(name, _with(base_inputs, i, items * 20), base_attrs, ANY, f"{arg.name} of 40 entries")
        for shape in [(3, 2), (2,), (), (2, 3, 1), (0, 3), (2, 0)]:
            yield Case(name, _with(base_inputs, i, [items[0], _x(rng, shape)]), base_attrs, ANY,
                       f"{arg.name} with a second entry of shape {list(shape)}")
        for label, variant in _layout_variants(items[0]):
            yield Case(name, _with(base_inputs, i, [variant] + items[1:]), base_attrs, SAME,
                       f"{arg.name}[0] as {label}", reference=(base_inputs, base_attrs))
        return
    n_attr = _attr(op_def, arg.number_attr)
    minimum = n_attr.minimum if n_attr.has_minimum else 0
    yield Case(name, _with(base_inputs, i, []), base_attrs, ERROR, f"{arg.name} an empty list",
               modes=("eager", "graph"))
    yield Case(name, _with(base_inputs, i, items[:1]), base_attrs, ANY if minimum <= 1 else ERROR,
               f"{arg.name} of one entry")
    yield Case(name, _with(base_inputs, i, items * 20), base_attrs, ANY, f"{arg.name} of 40 entries")
    yield Case(name, _with(base_inputs, i, items[0]), base_attrs, ANY,
               f"{arg.name} a single array, not a list", modes=("eager", "graph"))
    yield Case(name, _with(base_inputs, i, [items[0], cast(items[1], np.float64)]), base_attrs, ERROR,
               f"{arg.name} of mixed dtypes")
    # the first entry's dtype with another (ConcatOffset's shapes are int32 already)
    first = np.asarray(items[0]).dtype
    other = np.dtype(np.int32) if first != np.int32 else np.dtype(f32)
    yield Case(name, _with(base_inputs, i, [items[0], cast(items[1], other)]), base_attrs, ERROR,
               f"{arg.name} of {first.name} and {other.name}")
    yield Case(name, _with(base_inputs, i, [items[0], None]), base_attrs, ANY,
               f"{arg.name} with a None entry", modes=("eager", "graph"))
    for shape in [(3, 2), (2,), (), (2, 3, 1), (0, 3), (2, 0)]:
        yield Case(name, _with(base_inputs, i, [items[0], _x(rng, shape)]), base_attrs, ANY,
                   f"{arg.name} with a second entry of shape {list(shape)}")
    yield Case(name, _with(base_inputs, i, [_x(rng, ()), _x(rng, ())]), base_attrs, ANY,
               f"{arg.name} of scalars")
    yield Case(name, _with(base_inputs, i, [_x(rng, (0, 3)), _x(rng, (0, 3))]), base_attrs, ANY,
               f"{arg.name} of empty arrays")
    for label, variant in _layout_variants(items[0]):
        yield Case(name, _with(base_inputs, i, [variant] + items[1:]), base_attrs, SAME,
                   f"{arg.name}[0] as {label}", reference=(base_inputs, base_attrs))
    if n_attr is not None:
        for n in [0, 1, len(items) + 1, -1]:
            yield Case(name, base_inputs, {**base_attrs, arg.number_attr: n}, ERROR,
                       f"{arg.number_attr}={n} with {len(items)} entries", modes=("eager", "graph"))


# ---- hand-written cases: inputs invalid by the op's definition ----------------------------

def _a(shape, dtype=f32):
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape).astype(dtype)


def _v(*values, dtype=i32):
    return np.array(values, dtype)


BIG = 2 ** 40  # a dimension whose square overflows no int64, but whose bytes no machine has


def invalid_cases():
    """Cases that must raise, per op: (op, inputs, attrs, what)."""
    x = _a((2, 3))
    window = dict(WINDOW)
    conv = {"strides": [1, 1, 1, 1], "padding": "VALID"}
    img, flt = _a((1, 4, 4, 2)), _a((2, 2, 2, 3))
    window3 = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
    cases = [
        ("GatherV2", [_a((3, 4)), _v(0, 3), i32(0)], {}, "index 3 of 3 rows"),
        ("Gather", [_a((3, 4)), _v(0, 3)], {}, "index 3 of 3 rows"),
        ("Gather", [f32(1), _v(0)], {}, "scalar params"),
        ("Concat", [i32(2), [_a((2, 3)), _a((2, 3))]], {}, "axis 2 of rank 2"),
        ("Concat", [i32(0), [_a((2, 3)), _a((2, 4))]], {}, "shapes differ off the axis"),
        ("Reverse", [_a((2, 3)), np.array([True])], {}, "one flag for two dims"),
        ("ParallelConcat", [[_a((2, 3)), _a((2, 3))]], {"shape": [2, 3]}, "values not [1, ...]"),
        ("BatchMatMul", [_a((2, 2, 3)), _a((3, 3, 4))], {}, "batch dims 2 and 3"),
        ("BatchMatMul", [_a((2, 2, 3)), _a((3, 4))], {}, "ranks 3 and 2"),
        ("MatrixDiagPart", [_a((3,))], {}, "rank 1"),
        ("MatrixSetDiag", [_a((2, 3, 3)), _a((2, 2))], {}, "diagonal too short"),
        ("SpaceToBatch", [_a((1, 4, 4)), np.zeros((2, 2), i32)], {"block_size": 2}, "rank 3"),
        ("SpaceToBatch", [_a((1, 3, 4, 1)), np.zeros((2, 2), i32)], {"block_size": 2}, "3 by 2"),
        ("BatchToSpace", [_a((3, 2, 2, 1)), np.zeros((2, 2), i32)], {"block_size": 2}, "batch 3 by 4"),
        ("SegmentSumV2", [_a((3,)), _v(0, 1, 3), i32(3)], {}, "id 3 of 3 segments"),
        ("SegmentSumV2", [_a((3,)), _v(0, 2, 1), i32(3)], {}, "ids not sorted"),
        ("SegmentMaxV2", [_a((3,)), _v(0, 1, 1), i32(-1)], {}, "negative num_segments"),
        ("HistogramFixedWidth", [_a((3,)), np.array([1.0, 1.0], f32), i32(2)], {}, "empty range"),
        ("HistogramFixedWidth", [_a((3,)), np.array([0.0, 1.0], f32), i32(0)], {}, "no bins"),
        ("HistogramFixedWidth", [_a((3,)), np.array([0.0, 1.0, 2.0], f32), i32(2)], {}, "3 ends"),
        ("GatherV2", [_a((3, 4)), _v(-1), i32(0)], {}, "index -1"),
        ("GatherV2", [_a((3, 4)), _v(I64_MIN, dtype=i64), i32(1)], {}, "index int64 min"),
        ("GatherV2", [_a((3, 4)), _v(0), i32(2)], {}, "axis 2 of rank 2"),
        ("GatherV2", [_a((3, 4)), _v(0), i32(-3)], {}, "axis -3 of rank 2"),
        ("GatherV2", [_a((3, 4)), _v(0), _v(0, 1)], {}, "axis a vector"),
        ("GatherV2", [_a((0, 4)), _v(0), i32(0)], {}, "index 0 of an empty axis"),
        ("GatherV2", [f32(1), _v(0), i32(0)], {}, "params a scalar"),
        ("DynamicStitch", [[_v(0, -1)], [_a((2,))]], {}, "index -1"),
        ("DynamicStitch", [[_v(0, 1)], [_a((3,))]], {}, "data not shaped as its indices"),
        ("DynamicStitch", [[_v(0), _v(1)], [_a((1, 2)), _a((1, 3))]], {}, "rows of two shapes"),
        ("DynamicPartition", [_a((3,)), _v(0, 3, 0)], {"num_partitions": 2}, "partition 3 of 2"),
        ("DynamicPartition", [_a((3,)), _v(0, 1)], {"num_partitions": 2}, "fewer partitions than rows"),
        ("GatherNd", [_a((3, 4)), _v(3, 0).reshape(1, 2)], {}, "row 3 of 3"),
        ("GatherNd", [_a((3, 4)), _v(I64_MIN, dtype=i64).reshape(1, 1)], {}, "index int64 min"),
        ("GatherNd", [_a((3, 4)), _v(0, 0, 0).reshape(1, 3)], {}, "index deeper than params"),
        ("GatherNd", [_a((3, 4)), i32(0)], {}, "indices a scalar"),
        ("ScatterNd", [_v(4).reshape(1, 1), _a((1,)), _v(4)], {}, "index 4 of 4"),
        ("ScatterNd", [_v(1).reshape(1, 1), _a((2,)), _v(4)], {}, "updates of the wrong shape"),
        ("ScatterNd", [_v(1).reshape(1, 1), _a((1,)), _v(-4)], {}, "a negative shape"),
        ("TensorScatterUpdate", [_a((4,)), _v(-1).reshape(1, 1), _a((1,))], {}, "index -1"),
        ("TensorScatterMax", [_a((4,)), _v(0, 0).reshape(1, 2), _a((1,))], {}, "index too deep"),
        ("UnsortedSegmentMax", [_a((3,)), _v(0, 3, 0), i32(3)], {}, "id 3 of 3 segments"),
        ("UnsortedSegmentProd", [_a((3,)), _v(0, 1, 0), i32(-1)], {}, "num_segments -1"),
        ("SegmentSum", [_a((3,)), _v(1, 0, 2)], {}, "ids not sorted"),
        ("SegmentMax", [_a((3,)), _v(0, 0)], {}, "fewer ids than rows"),
        ("SegmentMean", [f32(1), _v(0)], {}, "data a scalar"),
        ("SparseSegmentSum", [_a((2, 2)), _v(0, 2), _v(0, 0)], {}, "index 2 of 2 rows"),
        ("SparseSegmentMean", [_a((2, 2)), _v(0), _v(0, 0)], {}, "fewer indices than ids"),
        ("SparseSegmentSqrtN", [_a((2, 2)), _v(0, 1), _v(1, 0)], {}, "ids not sorted"),
        ("Slice", [x, _v(0, 0), _v(3, 3)], {}, "size beyond the input"),
        ("Slice", [x, _v(-1, 0), _v(1, 1)], {}, "negative begin"),
        ("Slice", [x, _v(0, 0), _v(-2, 1)], {}, "size -2"),
        ("Slice", [x, _v(1, 1, dtype=i64), _v(I64_MAX, 1, dtype=i64)], {}, "begin + size overflows"),
        ("Slice", [x, _v(I64_MAX, 0, dtype=i64), _v(1, 1, dtype=i64)], {}, "begin int64 max"),
        ("Slice", [x, _v(0), _v(1)], {}, "begin and size of the wrong length"),
        ("StridedSlice", [x, _v(0, 0), _v(2, 3), _v(1, 0)], {}, "stride 0"),
        ("StridedSlice", [x, _v(0, 0), _v(2, 3), _v(1)], {}, "strides shorter than begin"),
        ("StridedSlice", [x, _v(0, 0, 0), _v(2, 3, 1), _v(1, 1, 1)], {}, "more dims than the input"),
        ("StridedSlice", [x, _v(5, 0), _v(6, 3), _v(1, 1)], {"shrink_axis_mask": 1},
         "shrink index 5 of 2"),
        ("StridedSlice", [x, _v(-3, 0), _v(6, 3), _v(1, 1)], {"shrink_axis_mask": 1},
         "shrink index -3 of 2"),
        ("StridedSlice", [x, _v(0, 0), _v(2, 3), _v(1, 1)], {"ellipsis_mask": 3},
         "two ellipses"),
        ("TensorStridedSliceUpdate", [x, _v(0, 0), _v(2, 3), _v(1, 1), _a((3, 3))], {},
         "a value that does not broadcast to the slice"),
        ("TensorStridedSliceUpdate", [x, _v(0, 0), _v(2, 3), _v(1, 1), _a((2, 2, 3))], {},
         "a value of more dims than the slice, not 1"),
        ("Transpose", [x, _v(0, 0)], {}, "perm with a repeat"),
        ("ConjugateTranspose", [x, _v(0, 0)], {}, "perm with a repeat"),
        ("ConjugateTranspose", [x, _v(I32_MAX, I32_MIN)], {}, "perm int32 extremes"),
        ("Cross", [_a((2, 4)), _a((2, 4))], {}, "vectors of 4"),
        ("Cross", [_a((2, 3)), _a((3,))], {}, "shapes differ"),
        ("Cross", [f32(1), f32(2)], {}, "scalars"),
        ("ApproximateEqual", [_a((2, 3)), _a((3,))], {}, "shapes differ"),
        ("EuclideanNorm", [x, _v(2)], {}, "axis 2 of rank 2"),
        ("EuclideanNorm", [x, _v(I32_MIN)], {}, "axis int32 min"),
        ("CumulativeLogsumexp", [x, _v(5)], {}, "axis 5 of rank 2"),
        ("CumulativeLogsumexp", [f32(1), i32(0)], {}, "a scalar"),
        ("AccumulateNV2", [[_a((2, 3)), _a((3,))]], {"shape": [2, 3]}, "shapes differ"),
        ("Transpose", [x, _v(0, 2)], {}, "perm entry 2 of rank 2"),
        ("Transpose", [x, _v(-3, 0)], {}, "perm entry -3 of rank 2"),  # -1 counts from the end
        ("Transpose", [x, _v(1, 0, 2)], {}, "perm longer than the rank"),
        ("Transpose", [x, _v(0)], {}, "perm shorter than the rank"),
        ("Transpose", [x, _v(I32_MAX, I32_MIN)], {}, "perm int32 extremes"),
        ("Reshape", [x, _v(4, 2)], {}, "8 elements for 6"),
        ("Reshape", [x, _v(-1, -1)], {}, "two -1"),
        ("Reshape", [x, _v(-2, 3)], {}, "a dim of -2"),
        ("Reshape", [x, _v(-1, 4)], {}, "-1 that does not divide"),
        ("Reshape", [x, _v(2 ** 32, 2 ** 32, dtype=i64)], {}, "element count 2^64"),
        ("Reshape", [x, _v(2 ** 32, 2 ** 32, 0, dtype=i64)], {}, "2^64 x 0 for 6 elements"),
        # (0,3) to [-1, 0] is valid: TensorFlow gives (3,0) (test_special_values.py).
        ("Reshape", [x, _v(I64_MAX, -1, dtype=i64)], {}, "int64 max and -1"),
        ("Reshape", [x, _v(-1, 2 ** 32, 2 ** 32, dtype=i64)], {}, "-1 beside dims whose product wraps to 0"),
        ("Reshape", [x, _v(2 ** 62, -1, dtype=i64)], {}, "-1 beside 2^62"),
        ("Reshape", [x, _v(0, -1)], {}, "0 and -1 for 6 elements"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [1, 1]}, "a repeated dim of 3"),
        ("Transpose", [f32(1), _v(0)], {}, "perm of one entry for a scalar"),
        ("GatherV2", [_a((3, 4)), _v(0), i32(0)], {"batch_dims": -3}, "batch_dims -3"),
        ("GatherV2", [_a((3, 4)), _v(0), i32(0)], {"batch_dims": I64_MIN}, "batch_dims int64 min"),
        ("StridedSlice", [x, _v(I64_MIN, 0, dtype=i64), _v(I64_MAX, 3, dtype=i64), _v(1, 1, dtype=i64)],
         {"shrink_axis_mask": 1}, "shrink at int64 min"),
        ("ConcatV2", [[x, x], i32(2)], {}, "axis 2 of rank 2"),
        ("ConcatV2", [[x, x], i32(-3)], {}, "axis -3 of rank 2"),
        ("ConcatV2", [[x, _a((2, 4))], i32(0)], {}, "shapes differ off the axis"),
        ("ConcatV2", [[x, _a((2, 3, 1))], i32(0)], {}, "ranks differ"),
        ("ConcatV2", [[f32(1), f32(2)], i32(0)], {}, "scalars"),
        ("ConcatV2", [[x, x], _v(0, 1)], {}, "axis a vector"),
        ("ConcatV2", [[x, x], i32(I32_MIN)], {}, "axis int32 min"),
        ("Pack", [[x, _a((3, 2))]], {"axis": 0}, "shapes differ"),
        ("Pack", [[x, x]], {"axis": 3}, "axis 3 for rank 3 output"),
        ("Pack", [[x, x]], {"axis": -4}, "axis -4 for rank 3 output"),
        ("Pack", [[x, x]], {"axis": I64_MIN}, "axis int64 min"),
        ("Unpack", [x], {"num": 3}, "num 3 for 2"),
        ("Unpack", [x], {"num": 2, "axis": 2}, "axis 2 of rank 2"),
        ("Unpack", [x], {"num": 2, "axis": I64_MIN}, "axis int64 min"),
        ("Unpack", [f32(1)], {"num": 1}, "a scalar"),
        ("Pad", [x, _v(-1, 0, 0, 0).reshape(2, 2)], {}, "negative padding"),
        ("PadV2", [x, _v(-1, 0, 0, 0).reshape(2, 2), f32(0)], {}, "negative padding"),
        ("PadV2", [x, _v(0, 0, 0, 0), f32(0)], {}, "paddings a vector"),
        ("PadV2", [x, _v(0, 0, 0, 0).reshape(2, 2), _v(1, 2).astype(f32)], {},
         "constant_values a vector"),
        ("PadV2", [x, _v(BIG, BIG, BIG, BIG, dtype=i64).reshape(2, 2), f32(0)], {},
         "padding 2^40"),
        ("BroadcastArgs", [_v(2, 3), _v(4)], {}, "incompatible shapes"),
        ("Empty", [_v(2, -1)], {"dtype": dtypes.float32}, "negative dim"),
        ("Empty", [_v(I64_MAX, 2, dtype=i64).astype(i32)], {"dtype": dtypes.float32},
         "wrapped dims"),
        ("UnravelIndex", [_v(1, 8), _v(2, 4)], {}, "index past the end"),
        ("SparseReshape", [_SP_IND, _SP_SHAPE, _v(4, -1, dtype=i64)], {}, "6 values as [4, -1]"),
        ("SparseFillEmptyRows", [_SP_IND, _a((3,)), _v(1, 3, dtype=i64), f32(0)], {},
         "a row past the dense shape"),
        ("SparseFillEmptyRows", [_SP_IND, _a((3,)), _v(I64_MAX, 3, dtype=i64), f32(0)], {},
         "int64-max rows"),
        ("SparseTensorDenseMatMul", [_SP_IND, _a((3,)), _v(2, 2, dtype=i64), _a((2, 4))], {},
         "a column past a_shape"),
        ("SparseReduceSum", [_SP_IND, _a((3,)), _v(I64_MAX, I64_MAX, dtype=i64), _v(0)], {},
         "an output of int64-max elements"),
        ("SparseConcat", [[_SP_IND, _SP_IND], [_a((3,)), _a((3,))], [_SP_SHAPE, _v(3, 3, dtype=i64)]],
         {"concat_dim": 1}, "other dims differ"),
        ("UnravelIndex", [_v(-1), _v(2, 0)], {}, "a zero dim"),
        ("UnravelIndex", [_v(1), _v(2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1)], {},
         "dims product overflowing int64"),
        ("BroadcastArgs", [_v(2, 3).reshape(1, 2), _v(4)], {}, "s0 a matrix"),
        ("Pad", [x, _v(0, 0, 0, 0, 0, 0).reshape(3, 2)], {}, "paddings for rank 3"),
        ("Pad", [x, _v(0, 0, 0, 0)], {}, "paddings a vector"),
        ("Pad", [x, _v(BIG, BIG, BIG, BIG, dtype=i64).reshape(2, 2)], {}, "padding 2^40"),
        ("Pad", [x, _v(I64_MAX, 0, 0, 0, dtype=i64).reshape(2, 2)], {}, "padding int64 max"),
        ("Tile", [x, _v(1, -1)], {}, "negative multiple"),
        ("Tile", [x, _v(1, 1, 1)], {}, "multiples longer than the rank"),
        ("Tile", [x, _v(BIG, BIG, dtype=i64)], {}, "multiples 2^40"),
        ("Tile", [x, _v(I64_MAX, I64_MAX, dtype=i64)], {}, "multiples int64 max"),
        ("Tile", [x, _v(1, 2).reshape(1, 2)], {}, "multiples a matrix"),
        ("Range", [i32(0), i32(5), i32(0)], {}, "delta 0"),
        ("Range", [i32(0), i32(5), i32(-1)], {}, "delta against the direction"),
        ("Range", [f32(0), f32(5), f32(0)], {}, "float delta 0"),
        ("Range", [f32(0), f32(np.nan), f32(1)], {}, "NaN limit"),
        ("Range", [f32(0), f32(np.inf), f32(1)], {}, "inf limit"),
        ("Range", [f32(np.nan), f32(5), f32(1)], {}, "NaN start"),
        ("Range", [f32(0), f32(5), f32(np.nan)], {}, "NaN delta"),
        ("Range", [i64(0), i64(I64_MAX), i64(1)], {}, "2^63 elements"),
        ("Range", [f64(0), f64(1e300), f64(1e-300)], {}, "1e600 float elements"),
        ("Range", [_v(0, 1), i32(5), i32(1)], {}, "start a vector"),
        ("Fill", [_v(2, -1), f32(1)], {}, "negative dim"),
        ("Fill", [_v(BIG, BIG, dtype=i64), f32(1)], {}, "2^80 elements"),
        ("Fill", [_v(I64_MAX, 2, dtype=i64), f32(1)], {}, "element count overflowing int64"),
        ("Fill", [_v(I64_MAX, 2, 0, dtype=i64), f32(1)], {}, "int64 max x 2 x 0"),
        ("Fill", [_v(2 ** 31, 2 ** 31, dtype=i64), np.int8(1)], {}, "2^62 bytes"),
        ("Fill", [_v(2, 2), _v(1, 2).astype(f32)], {}, "value a vector"),
        ("Fill", [_v(2, 2).reshape(1, 2), f32(1)], {}, "dims a matrix"),
        ("ExpandDims", [x, i32(3)], {}, "dim 3 of rank 2"),
        ("ExpandDims", [x, i32(-4)], {}, "dim -4 of rank 2"),
        ("ExpandDims", [x, i32(I32_MIN)], {}, "dim int32 min"),
        ("ExpandDims", [x, _v(0, 1)], {}, "dim of two entries"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [1]}, "squeezing a dim of 3"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [3]}, "dim 3 of rank 3"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [-4]}, "dim -4 of rank 3"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [I64_MIN]}, "dim int64 min"),
        ("Sum", [x, i32(2)], {}, "axis 2 of rank 2"),
        ("Sum", [x, i32(-3)], {}, "axis -3 of rank 2"),
        ("Sum", [x, _v(0, 0, 5)], {}, "axis list with 5"),
        ("Mean", [x, i32(I32_MIN)], {}, "axis int32 min"),
        ("Prod", [x, _v(I64_MAX, dtype=i64)], {}, "axis int64 max"),
        ("ArgMax", [x, i32(2)], {}, "axis 2 of rank 2"),
        ("ArgMax", [_a((2, 0)), i32(1)], {}, "an empty axis"),
        ("ArgMin", [x, i32(I32_MIN)], {}, "axis int32 min"),
        ("ArgMax", [x, _v(0, 1)], {}, "axis a vector"),
        ("ArgMax", [f32(1), i32(0)], {}, "a scalar"),
        ("MatMul", [_a((2, 3)), _a((2, 3))], {}, "inner dims differ"),
        ("MatMul", [_a((2, 3, 1)), _a((3, 2))], {}, "rank 3"),
        ("MatMul", [f32(1), f32(1)], {}, "scalars"),
        ("BatchMatMulV2", [_a((2, 2, 3)), _a((3, 3, 4))], {}, "batch dims 2 and 3"),
        ("BatchMatMulV2", [_a((3,)), _a((3, 4))], {}, "a vector"),
        ("BatchMatMulV2", [_a((2, 2, 3)), _a((2, 4, 4))], {}, "inner dims differ"),
        ("BiasAdd", [x, _a((2,))], {}, "bias of 2 for 3 channels"),
        ("BiasAdd", [x, _a((3, 1))], {}, "bias a matrix"),
        ("BiasAdd", [_a((3,)), _a((3,))], {}, "value of rank 1"),
        ("BiasAdd", [x, _a((3,))], {"data_format": "BOGUS"}, "data_format BOGUS"),
        ("Conv2D", [img, _a((2, 2, 3, 3))], conv, "filter in-channels 3 for 2"),
        ("Conv2D", [_a((1, 4, 4, 4)), _a((2, 2, 2, 3))], conv,
         "grouped: 3 output channels for 2 groups"),
        ("Conv2D", [_a((1, 4, 4, 6)), _a((2, 2, 4, 4))], conv,
         "input depth 6 not a multiple of the filter's 4"),
        ("ReverseV2", [x, _v(1, 1)], {}, "axis 1 twice"),
        ("ReverseV2", [x, _v(1, -1)], {}, "axis 1 twice, once as -1"),
        ("ReverseV2", [x, _v(2)], {}, "axis 2 of rank 2"),
        ("ReverseV2", [x, _v(-3)], {}, "axis -3 of rank 2"),
        ("ReverseV2", [x, _v(0, 1).reshape(1, 2)], {}, "axis a matrix"),
        ("ReverseV2", [x, _v(I64_MIN, dtype=i64)], {}, "axis int64 min"),
        ("Conv2D", [img, flt], {"strides": [1, 0, 1, 1], "padding": "VALID"}, "stride 0"),
        ("Conv2D", [img, flt], {"strides": [1, -1, 1, 1], "padding": "VALID"}, "stride -1"),
        ("Conv2D", [img, flt], {"strides": [1, 1, 1], "padding": "VALID"}, "3 strides"),
        ("Conv2D", [img, flt], {**conv, "dilations": [1, 0, 1, 1]}, "dilation 0"),
        ("Conv2D", [img, flt], {**conv, "dilations": [1, -2, 1, 1]}, "dilation -2"),
        ("Conv2D", [img, flt], {**conv, "dilations": [1, I64_MAX, 1, 1]}, "dilation int64 max"),
        ("Conv2D", [img, flt], {"strides": [1, 1, 1, 1], "padding": "BOGUS"}, "padding BOGUS"),
        ("Conv2D", [img, flt], {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                                "explicit_paddings": [0, 0, -1, 0, 0, 0, 0, 0]}, "negative explicit padding"),
        ("Conv2D", [img, flt], {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                                "explicit_paddings": [0, 0, 1]}, "3 explicit paddings"),
        ("Conv2D", [img, flt], {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                                "explicit_paddings": [0, 0, I64_MAX, I64_MAX, 0, 0, 0, 0]},
         "explicit padding int64 max"),
        ("Conv2D", [_a((4, 4, 2)), flt], conv, "input of rank 3"),
        ("Conv2D", [img, _a((2, 2, 2))], conv, "filter of rank 3"),
        ("Conv2D", [img, _a((2, 2, 0, 3))], conv, "filter with 0 in-channels"),
        ("MaxPool", [img], {**window, "ksize": [1, 0, 2, 1]}, "window 0"),
        ("MaxPool", [img], {**window, "ksize": [1, -2, 2, 1]}, "window -2"),
        ("MaxPool", [img], {**window, "strides": [1, 0, 2, 1]}, "stride 0"),
        ("MaxPool", [img], {**window, "ksize": [1, 2, 2, 1, 1]}, "5 window sizes"),
        ("MaxPool", [img], {**window, "ksize": [2, 2, 2, 1]}, "window over the batch"),
        ("MaxPool", [_a((4, 4, 2))], window, "input of rank 3"),
        # the Keras layer sweep's ops
        ("MaxPool3D", [_a((1, 4, 4, 2))], dict(window3), "input of rank 4"),
        ("MaxPool3D", [_a((1, 4, 4, 4, 2))], {**window3, "ksize": [1, 0, 2, 2, 1]}, "window 0"),
        ("AvgPool3D", [_a((1, 4, 4, 4, 2))], {**window3, "strides": [1, 2, -1, 2, 1]},
         "stride -1"),
        ("AvgPool3D", [_a((1, 1, 4, 4, 2))], window3, "a window deeper than the input"),
        ("AvgPool3D", [_a((1, 4, 4, 4, 2))], {**window3, "ksize": [2, 2, 2, 2, 1]},
         "window over the batch"),
        ("MaxPool3DGrad", [_a((1, 4, 4, 4, 2)), _a((1, 3, 3, 3, 2)), _a((1, 2, 2, 2, 2))], window3,
         "orig_output of the wrong size"),
        ("MaxPool3DGrad", [_a((1, 4, 4, 4, 2)), _a((1, 2, 2, 2, 2)), _a((1, 2, 2, 2, 3))], window3,
         "grad of another shape"),
        ("MaxPool3DGrad", [_a((4, 4, 4, 2)), _a((1, 2, 2, 2, 2)), _a((1, 2, 2, 2, 2))], window3,
         "orig_input of rank 4"),
        ("MaxPool3DGrad", [_a((1, 4, 4, 4, 2))] * 3, {**window3, "data_format": "NCDHW"}, "NCDHW on the CPU"),
        ("AvgPool3DGrad", [_v(1, 4, 4, 2), _a((1, 2, 2, 2, 2))], window3, "orig_input_shape of 4 values"),
        ("AvgPool3DGrad", [_v(1, 4, 4, 4, 2), _a((1, 3, 3, 3, 2))], window3, "grad of the wrong size"),
        ("AvgPool3DGrad", [_v(1, 4, -4, 4, 2), _a((1, 2, 2, 2, 2))], window3, "a negative size"),
        ("AvgPool3DGrad", [_v(1, 4, 4, 4, 2), _a((1, 2, 2, 2, 2))], {**window3, "ksize": [2, 2, 2, 2, 1]},
         "window over the batch"),
        ("MaxPool3DGradGrad", [_a((1, 4, 4, 4, 2)), _a((1, 2, 2, 2, 2)), _a((1, 3, 4, 4, 2))], window3,
         "grad not shaped as orig_input"),
        ("MaxPool3DGradGrad", [_a((1, 4, 4, 4, 2)), _a((1, 3, 3, 3, 2)), _a((1, 4, 4, 4, 2))], window3,
         "orig_output of the wrong size"),
        ("ResizeBicubicGrad", [_a((5, 2, 2)), _a((1, 3, 4, 2))], {}, "grads of rank 3"),
        ("FakeQuantWithMinMaxArgs", [_a((2, 3))], {"num_bits": 40}, "num_bits 40"),
        ("FakeQuantWithMinMaxArgs", [_a((2, 3))], {"min": 1.0, "max": -1.0}, "min above max"),
        ("FakeQuantWithMinMaxVarsPerChannel", [_a(()), _a((1,)), _a((1,))], {}, "a scalar input"),
        ("FakeQuantWithMinMaxVarsPerChannelGradient", [_a((2, 3)), _a((2, 3)), _a((2,)), _a((3,))], {},
         "min of the wrong size"),
        ("MaxPoolV2", [_a((1, 4, 4, 2)), _v(1, 2, 2, 1), _v(1, 2, 2)], {"padding": "VALID"}, "3 strides"),
        ("MaxPoolV2", [_a((1, 4, 4, 2)), _v(1, 5, 2, 1), _v(1, 1, 1, 1)], {"padding": "VALID"},
         "a window taller than the input"),
        ("MaxPoolGradV2", [_a((1, 4, 4, 2)), _a((1, 2, 2, 2)), _a((1, 3, 2, 2)), _v(1, 2, 2, 1), _v(1, 2, 2, 1)],
         {"padding": "VALID"}, "grad of another shape"),
        ("MaxPoolGradWithArgmax", [_a((1, 4, 4, 2)), _a((1, 2, 2, 2)),
                                   np.full((1, 2, 2, 2), I64_MAX, np.int64)], dict(WINDOW), "argmax int64 max"),
        ("MaxPoolGradWithArgmax", [_a((2, 4, 4, 2)), _a((2, 2, 2, 2)), np.full((2, 2, 2, 2), -5, np.int64)],
         {**WINDOW, "include_batch_in_index": True}, "negative argmax"),
        ("MaxPoolWithArgmax", [_a((1, 4, 4, 2))], {**WINDOW, "ksize": [1, 2, 2, 2]}, "window over depth"),
        ("Dilation2D", [_a((1, 4, 4, 2)), _a((2, 2, 3))], DILATION, "a filter of another depth"),
        ("Dilation2D", [_a((1, 4, 4, 2)), _a((2, 2, 2))], {**DILATION, "rates": [1, 0, 1, 1]}, "rate 0"),
        ("Dilation2D", [_a((1, 4, 4, 2)), _a((2, 2, 2))], {**DILATION, "rates": [1, I32_MAX, 1, 1]},
         "a rate of int32 max (VALID: no room)"),
        ("Dilation2DBackpropFilter", [_a((1, 4, 4, 2)), _a((2, 2, 2)), _a((1, 2, 3, 2))], DILATION,
         "out_backprop of the wrong size"),
        ("LRN", [_a((1, 2, 2, 3))], {"depth_radius": -3}, "a negative depth_radius"),
        ("LRN", [_a((1, 2, 2, 3))], {"depth_radius": 2 ** 40}, "depth_radius past int32"),
        ("LRNGrad", [_a((1, 2, 2, 3)), _a((1, 2, 2, 3)), _a((1, 2, 3, 3))], {}, "output_image of another shape"),
        ("ResizeBicubicGrad", [_a((1, 5, 2, 2)), _a((1, 3, 4, 2))],
         {"align_corners": True, "half_pixel_centers": True}, "align_corners with half_pixel_centers"),
        ("MatrixDiagPartV3", [_a((3, 4)), _v(2, 1), f32(0)], {}, "k low above high"),
        ("MatrixDiagPartV3", [_a((3, 4)), _v(0, 4), f32(0)], {}, "k high past the columns"),
        ("MatrixDiagPartV3", [_a((3, 4)), _v(0, 1, 2), f32(0)], {}, "k of 3 values"),
        ("MatrixDiagV3", [_a((2, 3)), _v(0, 1), i32(2), i32(-1), f32(0)], {}, "too few rows"),
        ("MatrixDiagV3", [_a((2, 3)), _v(0, 2), i32(-1), i32(-1), f32(0)], {},
         "2 diagonals for a band of 3"),
        ("MatrixSetDiagV3", [_a((3, 4)), _a((2,)), i32(0)], {}, "a diagonal too short"),
        ("MatrixInverse", [_a((2, 3))], {}, "not square"),
        ("MatrixInverse", [np.zeros((3, 3), f32)], {}, "singular"),
        ("MatrixSolve", [np.eye(3, dtype=f32), _a((4, 2))], {}, "rhs of 4 rows for 3"),
        ("MatrixSolve", [np.eye(3, dtype=f32)[None].repeat(2, 0), _a((3, 3, 1))], {},
         "batch 2 vs 3"),
        ("MatrixTriangularSolve", [np.eye(3, dtype=f32)[None].repeat(2, 0), _a((3, 3, 1))], {},
         "batch 2 vs 3"),
        ("Cholesky", [_a((3,))], {}, "input of rank 1"),
        ("SelfAdjointEigV2", [_a((2, 3))], {}, "not square"),
        ("Lu", [np.zeros((3, 3), f32)], {}, "singular"),
        ("MatrixSolveLs", [_a((3, 2)), _a((2, 1)), np.float64(0)], {}, "rhs of 2 rows for 3"),
        ("MatrixSolveLs", [_a((3, 2)), _a((3, 1)), np.float64(-1)], {}, "a negative l2_regularizer"),
        ("MatrixSolveLs", [_a((3, 2)), _a((3, 1)), np.zeros(2)], {}, "l2_regularizer of 2 values"),
        ("FFT2D", [_a((4,)).astype(np.complex64)], {}, "input of rank 1"),
        ("RFFT", [_a((4,)), _v(8)], {}, "fft_length longer than the input"),
        ("RFFT", [_a((4,)), _v(-1)], {}, "a negative fft_length"),
        ("RFFT2D", [_a((4, 4)), _v(4)], {}, "fft_length of 1 value for 2 dims"),
        ("IRFFT", [_a((2, 3)).astype(np.complex64), _v(6)], {}, "spectrum shorter than 6 / 2 + 1"),
        ("MatrixBandPart", [_a((3,)), i64(0), i64(0)], {}, "input of rank 1"),
        ("MatrixBandPart", [_a((3, 4)), i64(4), i64(0)], {}, "num_lower 4 of 3 rows"),
        ("MatrixBandPart", [_a((3, 4)), i64(0), i64(5)], {}, "num_upper 5 of 4 columns"),
        ("MatrixBandPart", [_a((3, 4)), _v(0, dtype=i64), i64(0)], {}, "num_lower a vector"),
        ("Bucketize", [x], {"boundaries": [1.0, 0.0]}, "boundaries unsorted"),
        ("InTopKV2", [_a((3,)), _v(0), i32(1)], {}, "predictions of rank 1"),
        ("InTopKV2", [_a((2, 3)), _v(0, 1, 2), i32(1)], {}, "3 targets for 2 rows"),
        ("InTopKV2", [_a((2, 3)), _v(0, 1), _v(1)], {}, "k a vector"),
        ("UpperBound", [_a((2, 3)), _a((3, 3))], {}, "batch 2 vs 3"),
        ("LowerBound", [_a((3,)), _a((3,))], {}, "sorted_inputs of rank 1"),
        ("Diag", [f32(1)], {}, "a scalar diagonal"),
        ("DiagPart", [_a((2, 3))], {}, "halves 2 vs 3"),
        ("DiagPart", [_a((2, 3, 2))], {}, "odd rank"),
        ("Bitcast", [_v(1, 2, 3)], {"type": dtypes.int64}, "last dim 3 into int64"),
        ("Bitcast", [i32(1)], {"type": dtypes.int64}, "a scalar into a wider type"),
        ("InplaceAdd", [_a((3, 2)), _v(0), _a((1, 3))], {}, "rows of 3 into rows of 2"),
        ("InplaceUpdate", [_a((3, 2)), _v(0, 1), _a((1, 2))], {}, "2 indices, 1 row"),
        ("InplaceUpdate", [_a((3, 2)), _v(0).reshape(1, 1), _a((1, 2))], {}, "i a matrix"),
        ("InplaceSub", [_a((0, 2)), _v(0), _a((1, 2))], {}, "a row into an empty x"),
        ("DataFormatVecPermute", [_v(1, 2, 3)], {}, "3 values for a 4-letter format"),
        ("DataFormatVecPermute", [_v(1, 2, 3, 4)], {"src_format": "NHWC", "dst_format": "NHWX"},
         "formats not a permutation"),
        ("DataFormatDimMap", [_v(0)], {"src_format": "NHW", "dst_format": "NWH"},
         "3-letter formats"),
        ("ResizeBicubic", [img, _v(0, 3)], {}, "size 0"),
        ("ResizeBicubic", [img, _v(3, 3)], {"align_corners": True, "half_pixel_centers": True},
         "align_corners with half_pixel_centers"),
        ("ResizeArea", [_a((4, 4, 2)), _v(3, 3)], {}, "images of rank 3"),
        ("ResizeArea", [img, _v(3, -1)], {}, "size -1"),
        ("AvgPool", [img], {**window, "ksize": [1, 0, 2, 1]}, "window 0"),
        ("AvgPool", [img], {**window, "strides": [1, 1, 0, 1]}, "stride 0"),
        ("AvgPool", [img], {**window, "padding": "BOGUS"}, "padding BOGUS"),
        ("FusedBatchNormV3", [img, _a((3,)), _a((2,)), _a((2,)), _a((2,))], {"is_training": False},
         "scale of 3 for 2 channels"),
        ("FusedBatchNormV3", [img, _a((2, 1)), _a((2,)), _a((2,)), _a((2,))], {"is_training": False},
         "scale a matrix"),
        ("FusedBatchNormV3", [_a((2,)), _a((2,)), _a((2,)), _a((2,)), _a((2,))],
         {"is_training": False}, "x of rank 1"),
        ("FusedBatchNormV3", [img, _a((2,)), _a((2,)), _a((1,)), _a((2,))], {"is_training": False},
         "mean of 1 for 2 channels"),
        # issue 22's backprop ops: sizes that do not fit the tensors they come with
        ("Conv2DBackpropFilter", [img, _v(2, 2, 3, 3), _a((1, 4, 4, 3))], {**conv, "padding": "SAME"},
         "filter_sizes in-channels 3 for 2"),
        ("Conv2DBackpropFilter", [img, _v(2, 2, 2), _a((1, 4, 4, 3))], {**conv, "padding": "SAME"},
         "filter_sizes of 3 values"),
        ("Conv2DBackpropFilter", [img, _v(2, 2, 2, 3), _a((1, 4, 4, 3))], conv,
         "out_backprop of the SAME size for VALID"),
        ("Conv2DBackpropFilter", [img, _v(2, -2, 2, 3), _a((1, 3, 3, 3))], conv, "negative filter_sizes"),
        ("Conv2DBackpropFilter", [img, _v(2, 2, 2, 3), _a((1, 3, 3, 3))], {**conv, "data_format": "NCHW"},
         "NCHW on the CPU"),
        ("DepthwiseConv2dNativeBackpropInput", [_v(1, 4, 4, 3), _a((2, 2, 2, 2)), _a((1, 4, 4, 4))],
         {**conv, "padding": "SAME"}, "input_sizes depth 3 for a filter of 2"),
        ("DepthwiseConv2dNativeBackpropInput", [_v(1, 4, 4, 2), _a((2, 2, 2, 2)), _a((1, 4, 4, 3))],
         {**conv, "padding": "SAME"}, "out_backprop depth 3 for 2 x 2"),
        ("DepthwiseConv2dNativeBackpropFilter", [img, _v(2, 2, 2, 2), _a((1, 3, 3, 2))], conv,
         "out_backprop depth 2 for 2 x 2"),
        ("MaxPoolGrad", [img, _a((1, 2, 2, 2)), _a((1, 2, 2, 3))], window, "grad of another shape"),
        ("MaxPoolGrad", [img, _a((1, 3, 3, 2)), _a((1, 3, 3, 2))], window, "grad of the wrong size"),
        ("MaxPoolGrad", [_a((4, 4, 2)), _a((1, 2, 2, 2)), _a((1, 2, 2, 2))], window, "orig_input of rank 3"),
        ("MaxPoolGradGrad", [img, _a((1, 2, 2, 2)), _a((1, 2, 2, 2))], window, "grad not shaped as orig_input"),
        ("MaxPoolGradGrad", [img, _a((1, 3, 3, 2)), img], window, "orig_output of the wrong size"),
        ("AvgPoolGrad", [_v(1, 4, 4), _a((1, 2, 2, 2))], window, "orig_input_shape of 3 values"),
        ("AvgPoolGrad", [_v(1, 5, 5, 2), _a((1, 3, 3, 2))], window, "grad of the wrong size"),
        ("FusedBatchNormGradV3", [img, _a((1, 4, 4, 3))] + [_a((2,))] * 4, {}, "x and y_backprop differ"),
        ("FusedBatchNormGradV3", [img, img, _a((3,)), _a((2,)), _a((2,)), _a((2,))], {},
         "scale of 3 for 2 channels"),
        ("FusedBatchNormGrad", [_a((2,)), _a((2,))] + [_a((2,))] * 3, {}, "x of rank 1"),
        ("ResizeBilinearGrad", [_a((1, 5, 2, 2)), _a((2, 3, 4, 2))], {}, "batch 2 for 1"),
        ("ResizeBilinearGrad", [_a((5, 2, 2)), _a((1, 3, 4, 2))], {}, "grads of rank 3"),
        ("ResizeNearestNeighborGrad", [_a((1, 5, 2, 2)), _v(3, 0)], {}, "size 0"),
        ("ResizeNearestNeighborGrad", [_a((1, 5, 2, 2)), _v(3, 4, 1)], {}, "size of 3 values"),
        ("Conv3DBackpropFilterV2", [_a((1, 3, 4, 4, 2)), _v(2, 2, 2, 3, 3), _a((1, 3, 4, 4, 3))],
         {"strides": [1] * 5, "padding": "SAME"}, "filter_sizes in-channels 3 for 2"),
        ("Conv3DBackpropInputV2", [_v(1, 3, 4, 4, 2), _a((2, 2, 2, 2, 3)), _a((1, 2, 4, 4, 3))],
         {"strides": [1] * 5, "padding": "SAME"}, "out_backprop of the wrong depth"),
        ("Softmax", [f32(1)], {}, "a scalar"),
        ("LogSoftmax", [f32(1)], {}, "a scalar"),
        ("AddV2", [x, _a((2,))], {}, "shapes [2,3] and [2]"),
        ("Mul", [_a((2, 3, 4)), _a((3, 3))], {}, "shapes [2,3,4] and [3,3]"),
        ("Equal", [x, _a((2,))], {}, "shapes [2,3] and [2]"),
        ("SelectV2", [np.ones((2, 3), bool), _a((2,)), _a((3,))], {}, "three shapes that do not fit"),
        ("SelectV2", [np.ones((4,), bool), x, x], {}, "condition of 4 for 3"),
        ("ClipByValue", [x, _a((2,)), f32(1)], {}, "min of shape [2] for [2,3]"),
        ("ClipByValue", [x, f32(0), _a((3, 1))], {}, "max of shape [3,1] for [2,3]"),
        ("Betainc", [x, _a((2,)), f32(0.5)], {}, "b of shape [2] for a of [2,3]"),
        ("Betainc", [_a((1, 3)), x, f32(0.5)], {}, "a of [1,3] for b of [2,3] (no broadcasting)"),
        ("AddN", [[x, _a((3, 2))]], {}, "shapes differ"),
        ("AddN", [[x, _a((3,))]], {}, "shapes [2,3] and [3] (AddN does not broadcast)"),
        ("Cast", [x], {"DstT": "string"}, "to string"),
        ("Cast", [np.array([1, 2], np.int32)], {"DstT": "resource"}, "to resource"),
        ("Const", [], {"value": _a((2,)), "dtype": dtypes.int32}, "value and dtype differ"),
    ]
    for op, inputs, attrs, what in cases:
        yield Case(op, inputs, attrs, ERROR, what)
    # Edge cases TensorFlow answers with a result: a result or a clean error will do.
    lstm = [_a(s) for s in ((2, 5), (2, 4), (2, 4), (9, 16), (4,), (4,), (4,), (16,))]
    edges = [
        ("Max", [_a((2, 0)), i32(1)], {}, "max over an empty axis (TensorFlow: -inf)"),
        ("Min", [_a((0,)), i32(0)], {}, "min over an empty vector (TensorFlow: +inf)"),
        ("MaxPool", [img], {**window, "padding": "EXPLICIT", "explicit_paddings": [0] * 8},
         "EXPLICIT padding of zeros"),
        ("AvgPool", [img], {**window, "ksize": [1, 5, 5, 1]}, "window bigger than the VALID input"),
        ("FusedBatchNormV3", [img, _a((2,)), _a((2,)), _a((0,)), _a((0,))], {"is_training": True},
         "training with empty running mean and variance"),
        ("PlaceholderWithDefault", [x], {"shape": [3, 2]}, "default of another shape"),
        ("Conv2D", [img, flt], {"strides": [1, I64_MAX, 1, 1], "padding": "SAME"}, "stride int64 max"),
        ("MaxPool", [img], {**window, "ksize": [1, I64_MAX, 2, 1]}, "window int64 max, VALID"),
        ("MaxPool", [img], {**window, "strides": [1, I64_MAX, 2, 1], "padding": "SAME"},
         "stride int64 max, SAME"),
        ("Range", [i32(I32_MIN), i32(I32_MAX), i32(I32_MAX)], {}, "int32 span past int32"),
        ("Range", [i64(I64_MIN), i64(I64_MAX), i64(I64_MAX)], {}, "int64 span past int64"),
        ("Reshape", [_a((0, 3)), _v(2 ** 40, 2 ** 40, 0, dtype=i64)], {}, "0 elements, huge dims"),
        ("Tile", [_a((0, 3)), _v(I64_MAX, 1, dtype=i64)], {}, "0 elements tiled int64 max times"),
        ("StridedSlice", [x, _v(I64_MIN, I64_MAX, dtype=i64), _v(I64_MAX, I64_MIN, dtype=i64),
                          _v(1, -1, dtype=i64)], {}, "begin and end at the int64 extremes"),
        ("StridedSlice", [x, _v(I64_MAX, I64_MIN, dtype=i64), _v(I64_MIN, I64_MAX, dtype=i64),
                          _v(I64_MAX, I64_MIN + 1, dtype=i64)], {}, "strides at the int64 extremes"),
        ("StridedSlice", [x, _v(0, 0), _v(1, 1), _v(1, 1)], {"begin_mask": -1, "end_mask": -1,
                                                           "new_axis_mask": -1}, "masks of all ones"),
        ("Slice", [x, _v(3, 0), _v(-1, -1)], {}, "begin past the end, size -1"),
        ("StridedSlice", [x, _v(0, 0, dtype=i64), _v(2, 3, dtype=i64), _v(1, I64_MIN, dtype=i64)], {},
         "stride int64 min"),
        ("StridedSlice", [x, _v(0, 0), _v(1, 1), _v(1, 1)], {"ellipsis_mask": 1, "new_axis_mask": 3,
                                                           "shrink_axis_mask": 3}, "every mask on one axis"),
        ("Squeeze", [_a((1, 3, 1))], {"squeeze_dims": [0, -3]}, "one dim named twice"),
        ("MaxPoolV2", [_a((1, 4, 4, 2)), _v(1, I32_MAX, 2, 1), _v(1, I32_MAX, 1, 1)], {"padding": "SAME"},
         "a window and stride of int32 max"),
        # the fused RNN cells: seq_len_max outside the time steps, sizes that disagree
        ("BlockLSTM", [np.int64(I64_MAX), _a((3, 2, 5))] + lstm[1:], {}, "seq_len_max int64 max"),
        ("BlockLSTMV2", [np.int64(-1), _a((3, 2, 5))] + lstm[1:], {}, "a negative seq_len_max"),
        ("BlockLSTMGrad", [np.int64(4), _a((3, 2, 5))] + lstm[1:] + [_a((3, 2, 4))] * 9,
         {"use_peephole": True}, "seq_len_max past the time steps"),
        ("BlockLSTMGradV2", [np.int64(2), _a((3, 2, 5))] + lstm[1:] + [_a((3, 2, 4))] * 8 + [_a((2, 2, 4))],
         {"use_peephole": True}, "h_grad of fewer steps"),
        ("LSTMBlockCell", lstm[:7] + [_a((0,))], {}, "an empty b"),
        ("LSTMBlockCell", lstm[:4] + [_a((1,))] + lstm[5:], {"use_peephole": True}, "a short wci"),
        ("LSTMBlockCellGrad", lstm + [_a((2, 4))] * 7 + [_a((2, 3))], {"use_peephole": False},
         "h_grad of another shape"),
        ("GRUBlockCellGrad", [_a(s) for s in ((2, 5), (2, 4), (9, 8), (9, 4), (8,), (4,))]
         + [_a((2, 4))] * 3 + [_a((4, 2))], {}, "d_h transposed"),
        ("BatchNormWithGlobalNormalization", [_a((1, 2, 2, 3)), _a((3,)), _a((2,)), _a((3,)), _a((3,))],
         {"variance_epsilon": 0.0, "scale_after_normalization": True}, "a short v"),
        ("BatchNormWithGlobalNormalizationGrad", [_a((1, 2, 2, 3)), _a((3,)), _a((3,)), _a((3,)),
                                                  _a((1, 2, 2, 4))],
         {"variance_epsilon": 0.0, "scale_after_normalization": False}, "backprop of another shape"),
    ]
    for op, inputs, attrs, what in edges:
        yield Case(op, inputs, attrs, ANY, what)


def all_cases(op_defs):
    """Every case for `op_defs` (OpDef protos), seeded, in a fixed order."""
    rng = np.random.default_rng(SEED)
    cases = []
    names = {op.name for op in op_defs}
    for op_def in sorted(op_defs, key=lambda o: o.name):
        cases.extend(generated_cases(op_def, rng))
    cases.extend(c for c in invalid_cases() if c.op in names)
    return cases


# Ops this sweep leaves to tests of their own, and why. Control-flow ops mean something
# only to the session executor (frames, iterations, dead outputs: a lone Enter's value
# lives in a loop frame, a Switch leaves one output dead), and TensorList ops take
# DT_VARIANT lists, which no numpy array can stand for.
NOT_SWEPT = {
    "CTCLossV2": "no kernel: TensorFlow's is cuDNN's (GPU builds only), opgen has none",
    **{op: "v1 control flow: tests/python_runtime/test_control_flow.py"
       for op in ("Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
                  "ControlTrigger")},
    **{op: "TensorList (DT_VARIANT) ops: tests/python_runtime/test_tensor_list.py"
       for op in ("TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
                  "TensorListSetItem", "TensorListStack", "TensorListLength",
                  "TensorListElementShape", "TensorListPushBack", "TensorListPopBack",
                  "TensorListGather", "TensorListResize", "TensorListConcatV2",
                  "TensorListSplit", "TensorListScatter", "TensorListScatterV2",
                  "TensorListScatterIntoExistingList")},
    **{op: "TensorArray ops (DT_RESOURCE handles): tests/python_runtime/test_tensor_array_v3.py"
       for op in ("TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3",
                  "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArrayConcatV3",
                  "TensorArraySplitV3", "TensorArraySizeV3", "TensorArrayCloseV3",
                  "TensorArrayGradV3", "TensorArrayGradWithShape")},
    **{op: "stacks (DT_RESOURCE handles): tests/python_runtime/test_tensor_array_v3.py"
       for op in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2")},
    **{op: "resource variables (DT_RESOURCE handles): tests/python_runtime/test_variables.py"
       for op in ("VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                  "AssignSubVariableOp", "VarIsInitializedOp", "DestroyResourceOp",
                  "DisableCopyOnRead")},
    "VariableShape": "a resource variable's shape (a DT_RESOURCE handle): "
                     "tests/python_runtime/test_everyday_array_ops.py",
    **{op: "resource variables (DT_RESOURCE handles): tests/python_runtime/"
           "test_scatter_segment.py"
       for op in ("ResourceGather", "ResourceScatterAdd", "ResourceScatterSub",
                  "ResourceScatterUpdate")},
    **{op: "resource variables (DT_RESOURCE handles): tests/python_runtime/"
           "test_variable_updates.py"
       for op in ("ResourceScatterMul", "ResourceScatterDiv", "ResourceScatterMin",
                  "ResourceScatterMax", "ResourceScatterNdUpdate", "ResourceScatterNdAdd",
                  "ResourceScatterNdSub", "ResourceScatterNdMin", "ResourceScatterNdMax",
                  "ResourceGatherNd", "ResourceStridedSliceAssign",
                  "ResourceApplyAdamWithAmsgrad", "ResourceApplyAdagradDA",
                  "ResourceSparseApplyAdagradDA")},
    **{op: "string ops of the save/restore graphs (string operands): "
           "tests/python_runtime/test_string_ops.py"
       for op in ("StringJoin", "ShardedFilename", "ShardedFilespec", "StaticRegexFullMatch")},
    **{op: "string hashes (string operands): tests/python_runtime/test_preprocessing_ops.py"
       for op in ("StringToHashBucketFast", "StringToHashBucketStrong", "Fingerprint")},
    **{op: "serialized tf.Example operands (strings, not values to sweep): "
           "tests/python_runtime/test_parse_example.py feeds malformed protos"
       for op in ("ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor",
                  "SerializeTensor")},
    **{op: "text-preprocessing string ops (string operands): "
           "tests/python_runtime/test_text_ops.py"
       for op in ("StringLower", "StringUpper", "StringStrip", "StaticRegexReplace",
                  "RegexReplace", "StringSplitV2", "StringNGrams", "Substr")},
    **{op: "everyday string ops (string operands): "
           "tests/python_runtime/test_everyday_string_ops.py checks bad ones against TensorFlow"
       for op in ("StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin",
                  "UnsortedSegmentJoin", "StringSplit", "StringToHashBucket", "EncodeBase64",
                  "DecodeBase64", "UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
                  "UnicodeTranscode", "UnicodeScript")},
    **{op: "string operands (WAV and CSV bytes, raw bytes): tests/python_runtime/"
           "test_audio_ops.py and test_decode_ops.py check bad ones against TensorFlow"
       for op in ("DecodeWav", "DecodeRaw", "DecodePaddedRaw", "DecodeCSV")},
    **{op: "file operands (a sweep would read and write wherever its strings point): "
           "tests/python_runtime/test_decode_ops.py"
       for op in ("ReadFile", "WriteFile")},
    "RaggedTensorToTensor": "row splits are partitions, not values to sweep: "
                            "tests/python_runtime/test_text_ops.py checks bad ones",
    **{op: "lookup tables (DT_RESOURCE handles): tests/python_runtime/test_lookup_tables.py"
       for op in ("HashTableV2", "MutableHashTableV2", "LookupTableImportV2",
                  "InitializeTableV2", "LookupTableInsertV2", "LookupTableFindV2",
                  "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2", "LookupTableExportV2")},
    **{op: "function calls and functional control flow (func attrs name a library's "
           "functions): tests/runtime/test_function_calls.py"
       for op in ("PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
                  "StatelessCase", "While", "StatelessWhile")},
    **{op: "checkpoint files (string paths; a sweep would write files wherever its strings "
           "point): tests/python_runtime/test_checkpoints.py"
       for op in ("SaveV2", "RestoreV2", "MergeV2Checkpoints")},
    **{op: "optimizer ops on resource variables: tests/python_runtime/test_training.py"
       for op in ("ResourceApplyAdagrad", "ResourceApplyAdam", "ResourceApplyGradientDescent",
                  "ResourceApplyKerasMomentum", "ResourceApplyMomentum",
                  "ResourceApplyRMSProp")},
    **{op: "optimizer ops on resource variables: "
           "tests/python_runtime/test_training_ops_more.py"
       for op in TF1_OPTIMIZER_OPS},
    **{op: "no outputs, and stateful: a failed Assert is its purpose, PrintV2 writes to "
           "a stream; tests/python_runtime/test_debug_ops.py checks their messages, operands "
           "and TensorFlow's frozen graphs"
       for op in ("Assert", "PrintV2")},
    **{op: "random ops (a shape operand or Multinomial's num_samples sized from swept values "
           "would ask for absurd outputs; each run draws new values; "
           "uint64 key/counter operands): tests/python_runtime/test_random_ops.py checks their "
           "operand errors and compares them with TensorFlow (Multinomial: "
           "test_random_stateful.py; RandomShuffle, whose output is its input's shape, is "
           "swept, compared run to run by dtype and shape as the OpDef is stateful)"
       for op in ['RandomUniform', 'RandomStandardNormal', 'TruncatedNormal', 'RandomUniformInt', 'StatelessRandomUniform', 'StatelessRandomNormal', 'StatelessTruncatedNormal', 'StatelessRandomUniformInt', 'StatelessRandomUniformV2', 'StatelessRandomNormalV2', 'StatelessTruncatedNormalV2', 'StatelessRandomUniformIntV2', 'StatelessRandomUniformFullIntV2', 'StatelessRandomGetKeyCounter', 'StatelessRandomGetAlg', 'StatelessRandomGetKeyCounterAlg', 'Multinomial',
                  'StatelessMultinomial', 'StatelessRandomUniformFullInt',
                  'StatelessRandomGammaV2', 'StatelessRandomGammaV3', 'StatelessRandomPoisson',
                  'StatelessRandomBinomial', 'StatelessParameterizedTruncatedNormal']},
    **{op: "tf.random.Generator's ops take an int64 state variable (a resource handle) "
           "and sample shapes sized from swept values would ask for absurd outputs: "
           "tests/python_runtime/test_random_generator.py checks their errors and compares "
           "them with TensorFlow step by step"
       for op in ("StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
                  "StatefulStandardNormalV2", "StatefulTruncatedNormal", "RngSkip",
                  "RngReadAndSkip")},
}


def builtin_op_names() -> list[str]:
    """The ops of the checked-in ops.pbtxt: the runtime's built-in ops (a generator test
    proves them equal), less NOT_SWEPT."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "ops.pbtxt").read_text()
    return sorted(name for name in (line.split('"')[1] for line in text.splitlines()
                                    if line.startswith('  name: "'))
                  if name not in NOT_SWEPT)


def runtime_op_defs():
    """The OpDefs of the built-in ops, as the runtime registers them (TF_GetAllOpList);
    ops that plugin libraries loaded into this process added are left out."""
    from opgen import opdefs
    builtin = set(builtin_op_names())
    return [op for op in opdefs.load_runtime_registry().op if op.name in builtin]


def registered_op_names() -> list[str]:
    """Every op the runtime of this process registers, less NOT_SWEPT."""
    from opgen import opdefs
    return sorted(op.name for op in opdefs.load_runtime_registry().op if op.name not in NOT_SWEPT)
