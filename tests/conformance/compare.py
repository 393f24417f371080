"""When an opgen result agrees with TensorFlow's: both raise, or the same number of
outputs, each of the same dtype and shape, NaN where TensorFlow has NaN, the same
infinities, and finite values equal (EXACT_OPS: bit for bit up to NaN payloads, the sign
of zero included) or within a few units in the last place (the rest: transcendental
functions and sums computed in another order)."""

from __future__ import annotations

import numpy as np

from cases import finfo, is_float

# Ops whose every output is one correctly rounded operation of the inputs, or moved
# data: they must match TensorFlow exactly.
EXACT_OPS = {
    "Abs", "Add", "AddV2", "Sub", "Mul", "Neg", "Relu", "Relu6", "Maximum", "Minimum",
    "Sign", "Square", "Floor", "Ceil", "Round", "Rint", "Equal", "NotEqual", "Less",
    "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
    "Select", "SelectV2", "Cast", "Identity", "IdentityN", "Reshape", "Transpose",
    "ConcatV2", "Pack", "Unpack", "Split", "SplitV", "Slice", "StridedSlice", "GatherV2",
    "Tile", "Pad", "PadV2", "MirrorPad", "ExpandDims", "Squeeze", "Fill", "ZerosLike",
    "OnesLike", "BroadcastTo", "ClipByValue", "ArgMax", "ArgMin", "Max", "Min", "Shape",
    "Size", "Rank", "SpaceToDepth", "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND",
    "MaxPool", "LeakyRelu", "OneHot", "Range", "ReverseV2", "StopGradient", "Snapshot",
    "SquaredDifference", "RealDiv", "Div", "FloorDiv", "FloorMod", "TruncateDiv",
    "TruncateMod", "Sqrt", "Reciprocal", "Inv", "Bitcast", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "Invert", "LeftShift", "RightShift", "IsNan", "IsInf", "IsFinite",
    "Where", "TopKV2", "All", "Any", "DivNoNan", "MulNoNan", "Mod",
}


# EXACT_OPS that are several roundings on complex values (|x| and a quotient, a square
# root through hypot): compared within a few units in the last place there.
INEXACT_ON_COMPLEX = {"Sign", "Sqrt"}


# Ops whose zero results may be either zero: TensorFlow's own kernels give -0.0 or +0.0
# by dtype (float32 Relu(-0.0) is -0.0, float64's is +0.0) and by which of two equal
# zeros a max/min keeps.
ZERO_SIGN_FREE = {"Relu", "Relu6", "LeakyRelu", "Max", "Min", "Maximum", "Minimum", "MaxPool",
                  "ClipByValue", "SegmentMax", "SegmentMin"}


def _rtol(op: str, dtype) -> float:
    """0 for EXACT_OPS; else a few units in the last place for half and bfloat16 (both
    compute in float32 and round once), more for float32/64, whose sums and dot
    products TensorFlow and opgen add up in different orders."""
    if op in EXACT_OPS:
        return 0.0
    eps = float(finfo(dtype).eps)
    return (2 if np.dtype(dtype).itemsize == 2 else 64) * eps


def _flush_subnormals(array, dtype):
    """Subnormal results as zero (sign kept): both libraries flush subnormals in
    arithmetic (docs/conformance.md), but where a kernel only moves or selects a value
    (Relu, Maximum, Abs of a bfloat16) one keeps the bits the other's arithmetic
    flushed; which of the two does is an implementation detail, not a difference."""
    tiny = float(finfo(dtype).smallest_normal)
    return np.where(np.abs(array) < tiny, 0.0, array)


def _as_float(array):
    return array.astype(np.complex128 if array.dtype.kind == "c" else np.float64)


def compared_outputs(call) -> int | None:
    """How many leading outputs a call's results are compared on (None: all).
    FusedBatchNorm* in inference mode leave their batch statistics and reserve spaces
    unspecified: TensorFlow returns uninitialised memory there. In training, the
    reserve spaces (outputs 3-5) are the kernel's own input to its gradient: not
    compared either (TensorFlow's hold 0 for an empty x, where its batch mean is NaN).
    The gradients' outputs 3 and 4 are placeholders."""
    if call.op.startswith("FusedBatchNormGrad"):
        return 3  # the reserve spaces are empty placeholders
    if call.op.startswith("FusedBatchNorm"):
        return 3 if call.attrs.get("is_training", True) else 1
    return None


def disagreement(op: str, got, want, outputs: int | None = None) -> str | None:
    """None when `got` (opgen's outputs or error) agrees with `want` (TensorFlow's);
    else what differs. Each is ("error", message) or ("outputs", [arrays])."""
    if got[0] == "error" or want[0] == "error":
        if got[0] == want[0]:
            return None
        if got[0] == "error":
            return f"opgen raises, TensorFlow computes: {got[1][:160]}"
        return f"opgen computes, TensorFlow raises: {want[1][:160]}"
    got, want = got[1], want[1]
    if outputs is not None:
        got, want = got[:outputs], want[:outputs]
    if len(got) != len(want):
        return f"{len(got)} outputs, TensorFlow {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        problem = _array_disagreement(op, g, w)
        if problem:
            return f"output {k}: {problem}"
    return None


def _array_disagreement(op, g, w) -> str | None:  # noqa: C901 (one comparison, read as one)
    if g.dtype != w.dtype:
        return f"dtype {g.dtype}, TensorFlow {w.dtype}"
    if g.shape != w.shape:
        return f"shape {g.shape}, TensorFlow {w.shape}"
    if g.dtype.kind in "biuSOV" and not is_float(g.dtype):
        if np.array_equal(g, w):
            return None
        bad = np.argwhere(g != w)[0]
        return f"at {tuple(bad)}: {g[tuple(bad)]!r}, TensorFlow {w[tuple(bad)]!r}"
    gf, wf = _as_float(g), _as_float(w)
    parts = [(gf.real, wf.real), (gf.imag, wf.imag)] if g.dtype.kind == "c" else [(gf, wf)]
    rtol = _rtol(op if g.dtype.kind != "c" or op not in INEXACT_ON_COMPLEX else "",
                 g.dtype if g.dtype.kind != "c" else np.float32 if g.dtype == np.complex64 else np.float64)
    real_dtype = g.dtype if g.dtype.kind != "c" else np.dtype(np.float32 if g.dtype == np.complex64 else np.float64)
    for gp, wp in parts:
        gp, wp = _flush_subnormals(gp, real_dtype), _flush_subnormals(wp, real_dtype)
        gn, wn = np.isnan(gp), np.isnan(wp)
        finite = np.isfinite(wp) & np.isfinite(gp)
        scale = np.max(np.abs(wp[np.isfinite(wp)]), initial=1.0)
        if rtol:
            with np.errstate(invalid="ignore"):
                close = np.abs(gp - wp) <= rtol * np.maximum(np.abs(wp), scale * 1e-2)
        else:
            close = (gp == wp) & ((np.signbit(gp) == np.signbit(wp)) | (op in ZERO_SIGN_FREE))
        ok = np.where(wn | gn, wn & gn, np.where(finite, close, gp == wp))
        if not ok.all():
            bad = tuple(np.argwhere(~ok)[0])
            return f"at {bad}: {g[bad]!r}, TensorFlow {w[bad]!r}"
    return None
