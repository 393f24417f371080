"""SparseReorder, SparseReshape, SparseFillEmptyRows(Grad), SparseTensorDenseMatMul,
SparseAdd(Grad), SparseSlice(Grad), SparseReduceSum, SparseConcat and
SparseSegment*WithNumSegments: the ops behind tf.sparse.* and feature columns. Outputs
and error messages against TensorFlow 2.21's raw ops on the same inputs (a child
process), over dtypes, shapes and empty sparse tensors; values also against numpy.
Gradients are test_gradient_coverage.py's (against tf.GradientTape)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from tf_reference import run_tf_script

import opgen
from opgen.runtime import errors, execute_op

from .kernel_dtypes import ALL, FLOATS, REALS, bfloat16, name, tolerance

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(31)
I64 = np.int64


def _vals(dtype, n):
    if np.dtype(dtype) == np.bool_:
        return rng.random(n) < 0.5
    if np.dtype(dtype).kind == "S":
        return np.array([b"v%d" % i for i in range(n)], dtype=object).astype(bytes)
    if np.issubdtype(np.dtype(dtype), np.complexfloating):
        return (rng.integers(-5, 5, n) + 1j * rng.integers(-5, 5, n)).astype(dtype)
    return rng.integers(0, 9, n).astype(dtype)


def _scalar(dtype):
    return np.asarray(_vals(dtype, 1)[0], dtype=_vals(dtype, 1).dtype)


def _random_sparse(shape, n, unique=True):
    """n coordinates inside `shape`, in random order (distinct when `unique`)."""
    size = int(np.prod(shape))
    flat = rng.choice(size, n, replace=False) if unique else rng.integers(0, size, n)
    return np.stack(np.unravel_index(flat, shape), 1).astype(I64).reshape(n, len(shape))


# (id, op, [(input name, array)], attrs)
CASES: list = []


def case(cid, op, inputs, attrs=None):
    CASES.append((cid, op, inputs, attrs or {}))


STRING = np.dtype("S")
for dt in ALL + [STRING]:
    dn = "string" if dt is STRING else name(dt)
    for shape, n in [((4, 5), 7), ((3, 2, 4), 9), ((6,), 3), ((2, 3), 0), ((0, 3), 0)]:
        ind = _random_sparse(shape, n)
        sid = f"{dn}-{'x'.join(map(str, shape))}-{n}"
        case(f"reorder-{sid}", "SparseReorder",
             [("input_indices", ind), ("input_values", _vals(dt, n)),
              ("input_shape", np.array(shape, I64))])
        case(f"fill-{sid}", "SparseFillEmptyRows",
             [("indices", ind), ("values", _vals(dt, n)), ("dense_shape", np.array(shape, I64)),
              ("default_value", _scalar(dt))])
# duplicates keep their order; indices outside the shape are only sorted
case("reorder-dup", "SparseReorder", [("input_indices", I64([[1, 0], [0, 2], [1, 0], [0, 2]])),
                                      ("input_values", np.float32([1, 2, 3, 4])),
                                      ("input_shape", I64([2, 3]))])
case("reorder-outside", "SparseReorder", [("input_indices", I64([[1, 0], [0, 5], [0, -1]])),
                                          ("input_values", np.float32([1, 2, 3])),
                                          ("input_shape", I64([2, 3]))])
case("fill-rows-out-of-order", "SparseFillEmptyRows",
     [("indices", I64([[3, 0], [1, 2], [1, 1], [3, 2]])), ("values", np.float32([1, 2, 3, 4])),
      ("dense_shape", I64([6, 3])), ("default_value", np.float32(-1))])
case("fill-column-outside", "SparseFillEmptyRows",
     [("indices", I64([[1, 7]])), ("values", np.float32([1])), ("dense_shape", I64([3, 3])),
      ("default_value", np.float32(9))])
# errors
R, V, S = "input_indices", "input_values", "input_shape"
for cid, (ind, vals, shape) in {
        "indices": ([1, 0], [1, 2], [2]), "values": ([[1, 0]], [[1]], [2, 3]),
        "shape": ([[1, 0]], [1], [[2, 3]]), "count": ([[1, 0], [0, 1]], [1], [2, 3]),
        "rank": ([[1, 0]], [1], [2, 3, 4])}.items():
    case(f"reorder-err-{cid}", "SparseReorder",
         [(R, I64(ind)), (V, np.float32(vals)), (S, I64(shape))])
def F(ind, vals, shape, default):
    return [("indices", I64(ind)), ("values", np.float32(vals)),
            ("dense_shape", I64(shape)), ("default_value", np.float32(default))]
case("fill-err-row-past", "SparseFillEmptyRows", F([[0, 0], [7, 0]], [1, 2], [5, 3], 0))
case("fill-err-row-negative", "SparseFillEmptyRows", F([[-1, 0]], [1], [5, 3], 0))
case("fill-err-default", "SparseFillEmptyRows", F([[1, 0]], [1], [5, 3], [0]))
case("fill-err-values", "SparseFillEmptyRows", F([[1, 0]], [1, 2], [5, 3], 0))
case("fill-err-values-rank", "SparseFillEmptyRows", F([[1, 0]], [[1]], [5, 3], 0))
case("fill-err-shape-len", "SparseFillEmptyRows", F([[1, 0]], [1], [5], 0))
case("fill-err-shape-rank", "SparseFillEmptyRows", F([[1, 0]], [1], [[5, 3]], 0))
case("fill-err-indices", "SparseFillEmptyRows", F([1], [1], [5], 0))
case("fill-err-negative-shape", "SparseFillEmptyRows", F([[0, 0]], [1], [-1, 3], 0))
case("fill-err-rank0", "SparseFillEmptyRows", F(np.zeros((1, 0)), [1], np.zeros(0), 0))

# SparseFillEmptyRowsGrad: every type TensorFlow's kernel takes
for dt in REALS + [np.complex64, np.complex128]:
    case(f"fillgrad-{name(dt)}", "SparseFillEmptyRowsGrad",
         [("reverse_index_map", I64([0, 2, 5, 3])), ("grad_values", _vals(dt, 7))])
case("fillgrad-empty", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", np.zeros(0, I64)), ("grad_values", np.float32([1, 2]))])
case("fillgrad-duplicate", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", I64([1, 1])), ("grad_values", np.float32([3, 4, 5]))])
case("fillgrad-err-past", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", I64([0, 4])), ("grad_values", np.float32([1, 2, 3, 4]))])
case("fillgrad-err-negative", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", I64([-1])), ("grad_values", np.float32([1, 2]))])
case("fillgrad-err-map", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", I64([[0]])), ("grad_values", np.float32([1, 2]))])
case("fillgrad-err-grad", "SparseFillEmptyRowsGrad",
     [("reverse_index_map", I64([0])), ("grad_values", np.float32([[1, 2]]))])

# SparseReshape
def RS(ind, shape, new):
    return [("input_indices", I64(ind)), ("input_shape", I64(shape)),
            ("new_shape", I64(new))]
for shape, new in [((4, 6), (3, -1)), ((4, 6), (2, 3, 4)), ((2, 3, 4), (-1,)), ((2, 3, 4), (4, 6)),
                   ((24,), (2, 12)), ((4, 6), (4, 6)), ((3, 5), (15, 1, 1))]:
    ind = _random_sparse(shape, 6)
    case(f"reshape-{'x'.join(map(str, shape))}-to-{'x'.join(map(str, new))}", "SparseReshape",
         RS(ind, shape, new))
case("reshape-empty", "SparseReshape", RS(np.zeros((0, 2)), [0, 3], [-1, 3]))
case("reshape-scalar", "SparseReshape", RS(np.zeros((1, 0)), [], [1, 1]))
case("reshape-outside", "SparseReshape", RS([[5, 0]], [2, 3], [6]))
case("reshape-err-multiple", "SparseReshape", RS([[1, 0]], [2, 3], [4, -1]))
case("reshape-err-size", "SparseReshape", RS([[1, 0]], [2, 3], [4, 2]))
case("reshape-err-two-unknown", "SparseReshape", RS([[1, 0]], [2, 3], [-1, -1]))
case("reshape-err-negative", "SparseReshape", RS([[1, 0]], [2, 3], [-2, 3]))
case("reshape-err-rank", "SparseReshape", RS([[1, 0]], [2, 3, 1], [6]))
case("reshape-err-empty-unknown", "SparseReshape", RS(np.zeros((0, 2)), [0, 3], [-1, 0]))
case("reshape-err-indices", "SparseReshape", RS([1, 0], [2, 3], [6]))
case("reshape-err-new-shape", "SparseReshape",
     [("input_indices", I64([[1, 0]])), ("input_shape", I64([2, 3])), ("new_shape", I64([[6]]))])
case("reshape-err-negative-input", "SparseReshape", RS([[1, 0]], [-2, 3], [-1]))

# SparseTensorDenseMatMul over its types, index types and adjoints (duplicates add up)
MM_TYPES = [np.float32, np.float64, np.int32, np.float16, np.complex64, np.complex128] + (
    [bfloat16] if bfloat16 is not None else [])
for dt in MM_TYPES:
    for ti in (np.int32, np.int64):
        for adj_a in (False, True):
            for adj_b in (False, True):
                m, k, n = 4, 5, 3
                a_shape = (k, m) if adj_a else (m, k)
                ind = np.concatenate([_random_sparse(a_shape, 6), _random_sparse(a_shape, 1)])
                b = _vals(dt, k * n).reshape((n, k) if adj_b else (k, n))
                case(f"mm-{name(dt)}-{name(ti)}-{int(adj_a)}{int(adj_b)}",
                     "SparseTensorDenseMatMul",
                     [("a_indices", ind.astype(ti)), ("a_values", _vals(dt, 7)),
                      ("a_shape", I64(a_shape)), ("b", b)],
                     {"adjoint_a": adj_a, "adjoint_b": adj_b})
def MM(ind, vals, shape, b, **attrs):
    return ([("a_indices", I64(ind)), ("a_values", np.float32(vals)),
             ("a_shape", I64(shape)), ("b", np.float32(b))], attrs)
B = np.arange(6).reshape(3, 2)
for cid, (inputs, attrs) in {
        "mm-empty": MM(np.zeros((0, 2)), [], [2, 3], B),
        "mm-no-rows": MM(np.zeros((0, 2)), [], [0, 3], B),
        "mm-no-columns-skips-bounds": MM([[9, 9]], [1], [2, 3], np.zeros((3, 0))),
        "mm-err-inner": MM([[0, 1]], [1], [2, 3], B.T),
        "mm-err-k": MM([[0, 5]], [1], [2, 3], B),
        "mm-err-m": MM([[4, 0]], [1], [2, 3], B),
        "mm-err-both": MM([[4, 5]], [1], [2, 3], B),
        "mm-err-negative": MM([[-1, 0]], [1], [2, 3], B),
        "mm-err-m-adjoint": MM([[0, 4]], [1], [2, 3], B[:2], adjoint_a=True),
        "mm-err-shape-len": MM([[0, 1]], [1], [2, 3, 1], B),
        "mm-err-shape-rank": MM([[0, 1]], [1], [[2, 3]], B),
        "mm-err-b": MM([[0, 1]], [1], [2, 3], B[0]),
        "mm-err-values-rank": MM([[0, 1]], [[1]], [2, 3], B),
        "mm-err-indices": MM([0, 1], [1, 2], [2, 3], B),
        "mm-err-count": MM([[0, 1], [1, 1]], [1], [2, 3], B),
        "mm-err-columns": MM([[0, 1, 0]], [1], [2, 3], B)}.items():
    case(cid, "SparseTensorDenseMatMul", inputs, attrs)

# SparseSegment*WithNumSegments
SEG = {"Sum": REALS, "Mean": FLOATS, "SqrtN": FLOATS}
for red, types in SEG.items():
    op = f"SparseSegment{red}WithNumSegments"
    for dt in types:
        for ti, ts, tn in [(np.int32, np.int32, np.int32), (np.int64, np.int32, np.int64),
                           (np.int32, np.int64, np.int64)]:
            data = _vals(dt, 15).reshape(5, 3)
            case(f"seg{red}-{name(dt)}-{name(ti)}{name(ts)}{name(tn)}", op,
                 [("data", data), ("indices", np.array([0, 4, 4, 1, 2], ti)),
                  ("segment_ids", np.array([0, 0, 2, 2, 3], ts)), ("num_segments", tn(6))])
    case(f"seg{red}-empty", op, [("data", np.float32(np.ones((3, 2)))),
                                 ("indices", np.zeros(0, np.int32)),
                                 ("segment_ids", np.zeros(0, np.int32)),
                                 ("num_segments", np.int32(3))])
def SG(idx, ids, n, data=None):
    return [("data", np.float32(np.arange(12).reshape(4, 3)) if data is None else data),
            ("indices", np.int32(idx)), ("segment_ids", np.int32(ids)),
            ("num_segments", np.int32(n))]
for cid, inputs in {
        "seg-no-segments": SG(np.zeros(0), np.zeros(0), 0),
        "seg-3d": SG([3, 0], [1, 1], 4, np.float32(np.arange(24).reshape(4, 3, 2))),
        "seg-err-id-past": SG([0, 1], [0, 5], 5),
        "seg-err-id-negative": SG([0, 1], [-1, 0], 5),
        "seg-err-unsorted": SG([0, 1], [2, 0], 5),
        "seg-err-unsorted-inside": SG([0, 1, 2], [0, 2, 1], 5),
        "seg-err-num-negative": SG([0, 1], [0, 0], -1),
        "seg-err-num-zero": SG([0, 1], [0, 0], 0),
        "seg-err-num-vector": SG([0, 1], [0, 0], [3]),
        "seg-err-index": SG([0, 7], [0, 0], 3),
        "seg-err-ids-rank": SG([0], [[0]], 2)}.items():
    case(cid, "SparseSegmentSumWithNumSegments", inputs)


# SparseAdd (operands sorted; coinciding entries add up, small sums dropped) and its grad
ADD_TYPES = [np.float32, np.float64, np.int64, np.int32, np.int16, np.int8, np.complex64,
             np.complex128]
for dt in ADD_TYPES:
    for shape, na, nb in [((4, 5), 6, 7), ((3, 2, 4), 5, 5), ((6,), 2, 3), ((3, 3), 0, 4),
                          ((2, 2), 0, 0)]:
        ai, bi = _random_sparse(shape, na), _random_sparse(shape, nb)
        ai, bi = ai[np.lexsort(ai.T[::-1])], bi[np.lexsort(bi.T[::-1])]
        # some coordinates in both, one of them cancelling
        if na and nb:
            bi[: min(na, nb) // 2] = ai[: min(na, nb) // 2]
            bi = bi[np.lexsort(bi.T[::-1])]
        av, bv = _vals(dt, na), _vals(dt, nb)
        sid = f"{name(dt)}-{'x'.join(map(str, shape))}-{na}-{nb}"
        # the threshold in T's real type: TensorFlow's kernel reads it as that type whatever
        # Treal says (known_differences.md)
        real = {np.complex64: np.float32, np.complex128: np.float64}.get(dt, dt)
        for thresh in (real(0), real(4)):
            case(f"add-{sid}-{thresh}", "SparseAdd",
                 [("a_indices", ai), ("a_values", av), ("a_shape", I64(shape)),
                  ("b_indices", bi), ("b_values", bv), ("b_shape", I64(shape)), ("thresh", thresh)])
def A(ai, av, ash, bi, bv, bsh, th=None):
    return [("a_indices", I64(ai)), ("a_values", np.float32(av)), ("a_shape", I64(ash)),
            ("b_indices", I64(bi)), ("b_values", np.float32(bv)), ("b_shape", I64(bsh)),
            ("thresh", np.float32(0) if th is None else th)]
A1, A2 = [[0, 1], [1, 0], [1, 2]], [[0, 1], [1, 1], [1, 2]]
for cid, inputs in {
        "add-cancel-kept-at-zero-threshold": A(A1, [1, 2, 3], [2, 3], A2, [10, 20, -3], [2, 3]),
        "add-cancel-dropped": A(A1, [1, 2, 3], [2, 3], A2, [10, 20, -3], [2, 3], np.float32(2.5)),
        "add-unsorted": A([[1, 0], [0, 1]], [1, 2], [2, 3], A2, [10, 20, -3], [2, 3]),
        "add-duplicates": A([[0, 1], [0, 1]], [1, 2], [2, 3], A2, [10, 20, -3], [2, 3]),
        "add-outside": A([[0, 5]], [1], [2, 3], A2, [10, 20, -3], [2, 3]),
        "add-err-shapes": A(A1, [1, 2, 3], [2, 3], A2, [1, 2, 3], [2, 4]),
        "add-err-values": A(A1, [1, 2], [2, 3], A2, [1, 2, 3], [2, 3]),
        "add-err-values-rank": A(A1, [[1, 2, 3]], [2, 3], A2, [1, 2, 3], [2, 3]),
        "add-err-threshold": A(A1, [1, 2, 3], [2, 3], A2, [1, 2, 3], [2, 3], np.float32([0])),
        "add-err-indices": A([0, 1], [1, 2], [2, 3], A2, [1, 2, 3], [2, 3]),
        "add-err-index-ranks": A([[0, 1, 0]], [1], [2, 3], A2, [1, 2, 3], [2, 3]),
        "add-err-a-shape": A([[0, 1]], [1], [2, 3, 1], [[0, 1]], [1], [2, 3]),
        "add-err-ranks": A([[0, 1]], [1], [2, 3], [[0, 1]], [1], [2, 3, 1]),
        "add-err-shape-rank": A([[0, 1]], [1], [[2, 3]], [[0, 1]], [1], [2, 3]),
        "add-err-empty": A(np.zeros((0, 0)), [], [], np.zeros((0, 0)), [], [])}.items():
    case(cid, "SparseAdd", inputs)
SUM4 = I64([[0, 1], [1, 0], [1, 1], [1, 2]])
def AG(g, ai=A1, bi=A2, si=SUM4):
    return [("backprop_val_grad", np.float32(g)), ("a_indices", I64(ai)),
            ("b_indices", I64(bi)), ("sum_indices", I64(si))]
for dt in ADD_TYPES:
    case(f"addgrad-{name(dt)}", "SparseAddGrad",
         [("backprop_val_grad", _vals(dt, 4)), ("a_indices", I64(A1)), ("b_indices", I64(A2)),
          ("sum_indices", SUM4)])
for cid, inputs in {
        "addgrad-dropped-sum": AG([1, 2], si=[[0, 1], [1, 0]]),
        "addgrad-err-count": AG([1, 2, 3]),
        "addgrad-err-grad-rank": AG([[1, 2, 3, 4]]),
        "addgrad-err-ndims": AG([1], ai=[[0, 1, 1]], si=[[0, 1]]),
        "addgrad-err-indices": AG([1, 2, 3, 4], ai=[0])}.items():
    case(cid, "SparseAddGrad", inputs)

# SparseSlice over every type, windows inside, across and past the shape
for dt in ALL + [STRING]:
    dn = "string" if dt is STRING else name(dt)
    shape = (5, 6)
    ind = _random_sparse(shape, 12)
    ind = ind[np.lexsort(ind.T[::-1])]
    for start, size in [((1, 2), (3, 3)), ((0, 0), (5, 6)), ((3, 4), (10, 10)), ((6, 0), (1, 1)),
                        ((-1, 0), (2, 3)), ((2, 2), (0, 2))]:
        case(f"slice-{dn}-{start}-{size}", "SparseSlice",
             [("indices", ind), ("values", _vals(dt, 12)), ("shape", I64(shape)),
              ("start", I64(start)), ("size", I64(size))])
case("slice-empty", "SparseSlice", [("indices", np.zeros((0, 3), I64)), ("values", np.float32([])),
                                    ("shape", I64([2, 3, 4])), ("start", I64([0, 1, 1])),
                                    ("size", I64([2, 2, 2]))])
def SL(ind, vals, shape, start, size):
    return [("indices", I64(ind)), ("values", np.float32(vals)),
            ("shape", I64(shape)), ("start", I64(start)),
            ("size", I64(size))]
S4 = [[0, 1], [1, 0], [1, 2], [3, 3]]
for cid, inputs in {
        "slice-err-size": SL(S4, [1, 2, 3, 4], [4, 5], [0, 0], [-1, 3]),
        "slice-err-start-len": SL(S4, [1, 2, 3, 4], [4, 5], [2], [1, 5]),
        "slice-err-size-len": SL(S4, [1, 2, 3, 4], [4, 5], [2, 0], [1]),
        "slice-err-start-rank": SL(S4, [1, 2, 3, 4], [4, 5], [[2, 0]], [1, 5]),
        "slice-err-indices": SL([1], [1], [4], [2], [1]),
        "slice-err-values": SL(S4, [1], [4, 5], [2, 0], [1, 5]),
        "slice-err-shape": SL(S4, [1, 2, 3, 4], [4, 5, 1], [2, 0, 0], [1, 5, 1])}.items():
    case(cid, "SparseSlice", inputs)
for dt in REALS + [np.complex64, np.complex128]:
    case(f"slicegrad-{name(dt)}", "SparseSliceGrad",
         [("backprop_val_grad", _vals(dt, 2)), ("input_indices", I64(S4)),
          ("input_start", I64([1, 0])), ("output_indices", I64([[0, 0], [0, 2]]))])
# a threshold of another type than T's real type: its value, converted (TensorFlow reads
# its bytes as T's real type)
def test_sparse_add_threshold_of_another_type_is_converted():
    for thresh, kept in ((np.int32(1), 3), (np.float64(0), 4), (np.int64(30), 2)):
        _, vals, shape = _ours("SparseAdd", A(A1, [1, 2, 3], [2, 3], A2, [10, 20, -3], [2, 3],
                                                thresh), {})
        assert len(vals) == kept and shape.tolist() == [2, 3]


case("slicegrad-err-not-propagated", "SparseSliceGrad",
     [("backprop_val_grad", np.float32([5, 6])), ("input_indices", I64(S4)),
      ("input_start", I64([1, 0])), ("output_indices", I64([[0, 0], [0, 4]]))])
case("slicegrad-err-count", "SparseSliceGrad",
     [("backprop_val_grad", np.float32([5])), ("input_indices", I64(S4)),
      ("input_start", I64([1, 0])), ("output_indices", I64([[0, 0], [0, 2]]))])

# SparseReduceSum over its types, axes (negative, repeated, none, all) and keep_dims
for dt in REALS + [np.complex64, np.complex128]:
    shape = (3, 4, 2)
    ind = _random_sparse(shape, 10)
    for axes in ([1], [0, 2], [-1], [2, -1], [], [0, 1, 2], 1):
        for keep in (False, True):
            case(f"rsum-{name(dt)}-{axes}-{keep}", "SparseReduceSum",
                 [("input_indices", ind), ("input_values", _vals(dt, 10)),
                  ("input_shape", I64(shape)), ("reduction_axes", np.int32(axes))],
                 {"keep_dims": keep})
def RSM(ind, vals, shape, axes):
    return [("input_indices", I64(ind)), ("input_values", np.float32(vals)),
            ("input_shape", I64(shape)), ("reduction_axes", np.int32(axes))]
for cid, inputs in {
        "rsum-duplicates-unsorted": RSM([[3, 3], [0, 1], [0, 1]], [1, 2, 3], [4, 5], [0]),
        "rsum-empty": RSM(np.zeros((0, 2)), [], [4, 5], [0]),
        "rsum-zero-dim": RSM(np.zeros((0, 2)), [], [0, 5], [1]),
        "rsum-reduced-coordinate-outside": RSM([[7, 3]], [1], [4, 5], [0]),
        "rsum-err-kept-coordinate-outside": RSM([[1, 7]], [1], [4, 5], [0]),
        "rsum-err-kept-coordinate-negative": RSM([[1, -1]], [1], [4, 5], [0]),
        "rsum-err-axis": RSM(S4, [1, 2, 3, 4], [4, 5], [2]),
        "rsum-err-axis-negative": RSM(S4, [1, 2, 3, 4], [4, 5], [-3]),
        "rsum-err-axes-rank": RSM(S4, [1, 2, 3, 4], [4, 5], [[1]]),
        "rsum-err-values": RSM([[1, 3]], [1, 2], [4, 5], [0]),
        "rsum-err-rank": RSM([[1, 3]], [1], [4, 5, 1], [0]),
        "rsum-err-indices": RSM([1], [1], [4], [0]),
        "rsum-err-values-rank": RSM(S4, [[1, 2, 3, 4]], [4, 5], [1]),
        "rsum-err-shape-rank": RSM(S4, [1, 2, 3, 4], [[4, 5]], [1])}.items():
    case(cid, "SparseReduceSum", inputs)

# SparseConcat over every type, along each dim (negative too), of 2 and 3 inputs
for dt in ALL + [STRING]:
    dn = "string" if dt is STRING else name(dt)
    for dim in (0, 1, -1):
        shapes = [(2, 3), (2, 4), (2, 1)] if dim else [(2, 3), (4, 3), (1, 3)]
        parts = [_random_sparse(s, n) for s, n in zip(shapes, (3, 5, 0))]
        case(f"concat-{dn}-{dim}", "SparseConcat",
             [("indices", parts), ("values", [_vals(dt, len(p)) for p in parts]),
              ("shapes", [I64(s) for s in shapes])], {"concat_dim": dim})
def CC(inds, vals, shapes, dim):
    return ([("indices", [I64(i) for i in inds]),
             ("values", [np.float32(v) for v in vals]),
             ("shapes", [I64(s) for s in shapes])], {"concat_dim": dim})
for cid, (inputs, attrs) in {
        "concat-duplicates": CC([[[1, 0], [1, 0]], [[1, 2], [0, 0]]], [[1, 2], [3, 4]],
                                [[2, 3], [2, 4]], 1),
        "concat-3d": CC([[[0, 1, 1]], [[1, 0, 0], [0, 0, 0]]], [[1], [2, 3]],
                        [[2, 2, 2], [2, 2, 2]], 2),
        "concat-err-dim": CC([[[0, 1]], [[0, 0]]], [[1], [2]], [[2, 3], [2, 4]], 2),
        "concat-err-dim-negative": CC([[[0, 1]], [[0, 0]]], [[1], [2]], [[2, 3], [2, 4]], -3),
        "concat-err-other-dim": CC([[[0, 1]], [[0, 0]]], [[1], [2]], [[2, 3], [3, 4]], 1),
        "concat-err-ranks": CC([[[0, 1]], [[0, 0, 0]]], [[1], [2]], [[2, 3], [2, 4, 1]], 1),
        "concat-err-values": CC([[[0, 1]], [[0, 0]]], [[1, 2], [2]], [[2, 3], [2, 4]], 1),
        "concat-err-indices": CC([[0], [[0, 0]]], [[1], [2]], [[2, 3], [2, 4]], 1),
        "concat-err-values-rank": CC([[[0, 1]], [[0, 0]]], [[[1]], [2]], [[2, 3], [2, 4]], 1),
        "concat-err-shape-rank": CC([[[0, 1]], [[0, 0]]], [[1], [2]], [[[2, 3]], [2, 4]],
                                    1)}.items():
    case(cid, "SparseConcat", inputs, attrs)


TF_SCRIPT = textwrap.dedent("""
    import json, re, sys, numpy as np, tensorflow as tf
    cases, data = json.load(open(sys.argv[1])), dict(np.load(sys.argv[2]))
    out = {}
    for c in cases:
        args = {}
        for arg, key in c["inputs"]:
            if isinstance(key, list):  # a list input
                args[arg] = [tf.constant(data[k], tf.bfloat16 if k in c["bf16"] else None)
                             for k in key]
            else:
                args[arg] = tf.constant(data[key], tf.bfloat16 if key in c["bf16"] else None)
        try:
            ys = getattr(tf.raw_ops, c["op"])(**args, **c["attrs"])
            ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
            for k, y in enumerate(ys):
                v = (tf.cast(y, tf.float32) if y.dtype == tf.bfloat16 else y).numpy()
                out[f"{c['id']}/{k}"] = v.astype(bytes) if v.dtype == object else v
        except Exception as e:
            m = re.search(r"\\}\\} (.*?) \\[Op:", str(e), re.S)
            message = m.group(1) if m else str(e)
            out[c["id"] + "/error"] = np.array(type(e).__name__ + ": " + message)
    np.savez(sys.argv[3], **out)
""")


def _is_bf16(a):
    return bfloat16 is not None and a.dtype == np.dtype(bfloat16)


@pytest.fixture(scope="module")
def tf_results():
    specs, arrays = [], {}
    for cid, op, inputs, attrs in CASES:
        keys = []
        bf16 = []
        for k, (arg, value) in enumerate(inputs):
            if isinstance(value, list):
                for m, v in enumerate(value):
                    v = np.asarray(v)
                    if _is_bf16(v):
                        bf16.append(f"{cid}/{k}/{m}")
                    arrays[f"{cid}/{k}/{m}"] = v.astype(np.float32) if _is_bf16(v) else v
                keys.append([arg, [f"{cid}/{k}/{m}" for m in range(len(value))]])
                continue
            key = f"{cid}/{k}"
            value = np.asarray(value)
            arrays[key] = value.astype(np.float32) if _is_bf16(value) else value
            keys.append([arg, key])
        specs.append({"id": cid, "op": op, "inputs": keys, "attrs": attrs,
                      "bf16": bf16 + [f"{cid}/{k}" for k, (_, v) in enumerate(inputs)
                                      if not isinstance(v, list) and _is_bf16(np.asarray(v))]})
    return run_tf_script(TF_SCRIPT, arrays, specs)


def _ours(op, inputs, attrs):
    args = [[np.asarray(u) for u in v] if isinstance(v, list) else np.asarray(v) for _, v in inputs]
    return [t.numpy() for t in execute_op(op, args, attrs)]


@pytest.mark.parametrize("cid,op,inputs,attrs", CASES, ids=[c[0] for c in CASES])
def test_against_tensorflow(cid, op, inputs, attrs, tf_results):
    if f"{cid}/error" in tf_results:
        want = str(tf_results[f"{cid}/error"])
        # TensorFlow's Internal errors for bad indices are InvalidArgument in opgen
        # (docs/conformance.md)
        assert want.split(":", 1)[0] in ("InvalidArgumentError", "InternalError"), want
        with pytest.raises(errors.InvalidArgumentError) as info:
            _ours(op, inputs, attrs)
        assert want.split(": ", 1)[1] in str(info.value)
        return
    got = _ours(op, inputs, attrs)
    for k, y in enumerate(got):
        want = tf_results[f"{cid}/{k}"]
        assert y.shape == want.shape, (k, y.shape, want.shape)
        if y.dtype.kind in "SOU" or want.dtype.kind in "SOU":
            assert [bytes(v) for v in y.ravel()] == [bytes(v) for v in want.ravel()]
        elif _is_bf16(y) or y.dtype == np.float16:
            np.testing.assert_allclose(y.astype(np.float32), want.astype(np.float32),
                                       **tolerance(y.dtype))
        elif y.dtype.kind in "fc":
            np.testing.assert_allclose(y, want, **tolerance(y.dtype))
        else:
            assert y.dtype == want.dtype, (y.dtype, want.dtype)
            np.testing.assert_array_equal(y, want)


# ---- against numpy ---------------------------------------------------------------------

def _dense(indices, values, shape):
    out = np.zeros(shape, values.dtype)
    for i, v in zip(indices, values):
        out[tuple(i)] += v
    return out


@pytest.mark.parametrize("adj_a,adj_b",
                         [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_dense_matmul_against_numpy(adj_a, adj_b):
    a_shape = (7, 5)
    ind = np.concatenate([_random_sparse(a_shape, 12), _random_sparse(a_shape, 3)])
    vals = (rng.normal(size=15) + 1j * rng.normal(size=15)).astype(np.complex128)
    dense_a = _dense(ind, vals, a_shape)
    inner = a_shape[0] if adj_a else a_shape[1]
    b_shape = (4, inner) if adj_b else (inner, 4)
    b = rng.normal(size=b_shape) + 1j * rng.normal(size=b_shape)
    (got,) = _ours("SparseTensorDenseMatMul",
                   [(0, ind), (0, vals), (0, I64(a_shape)), (0, b)],
                   {"adjoint_a": adj_a, "adjoint_b": adj_b})
    op_a = dense_a.conj().T if adj_a else dense_a
    op_b = b.conj().T if adj_b else b
    np.testing.assert_allclose(got, op_a @ op_b, rtol=1e-12, atol=1e-12)


def test_fill_empty_rows_and_reorder_against_numpy():
    shape = (6, 4)
    ind = _random_sparse(shape, 8)
    ind = ind[ind[:, 0] != 2]  # row 2 left empty for sure
    vals = rng.normal(size=len(ind))
    out_ind, out_vals, empty, reverse = _ours(
        "SparseFillEmptyRows", [(0, ind), (0, vals), (0, I64(shape)), (0, np.float64(-7))], {})
    np.testing.assert_array_equal(empty, [not (ind[:, 0] == r).any() for r in range(6)])
    np.testing.assert_array_equal(out_vals[reverse], vals)
    np.testing.assert_array_equal(out_ind[reverse], ind)
    assert np.all(np.diff(out_ind[:, 0]) >= 0)
    filled = _dense(out_ind, out_vals, shape)
    want = _dense(ind, vals, shape)
    want[empty, 0] = -7
    np.testing.assert_array_equal(filled, want)
    r_ind, r_vals = _ours("SparseReorder", [(0, ind), (0, vals), (0, I64(shape))], {})
    order = np.lexsort(ind.T[::-1])
    np.testing.assert_array_equal(r_ind, ind[order])
    np.testing.assert_array_equal(r_vals, vals[order])


def test_reshape_keeps_row_major_offsets():
    shape, new = (3, 4, 5), (6, -1)
    ind = _random_sparse(shape, 10)
    out_ind, out_shape = _ours("SparseReshape", [(0, ind), (0, I64(shape)), (0, I64(new))], {})
    np.testing.assert_array_equal(out_shape, [6, 10])
    np.testing.assert_array_equal(np.ravel_multi_index(out_ind.T, (6, 10)),
                                  np.ravel_multi_index(ind.T, shape))


# ---- in a graph: shape functions ---------------------------------------------------------

# one float32 case of each op; the static shapes the shape functions infer from constants
GRAPH_CASES = {op: next(c for c in CASES if c[1] == op and "err" not in c[0] and
                        ("float32" in c[0] or op in ("SparseReshape", "SparseSliceGrad")))
               for op in sorted({c[1] for c in CASES})}
FULLY_KNOWN = {"SparseTensorDenseMatMul", "SparseReduceSum", "SparseSegmentSumWithNumSegments",
               "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments",
               "SparseFillEmptyRowsGrad", "SparseAddGrad", "SparseSliceGrad"}


def _nodes(inputs, make):
    return [[make(np.asarray(u)) for u in v] if isinstance(v, list) else make(np.asarray(v))
            for _, v in inputs]


@pytest.mark.parametrize("op", sorted(GRAPH_CASES))
def test_in_a_graph_with_inferred_shapes(op):
    cid, _, inputs, attrs = GRAPH_CASES[op]
    want = _ours(op, inputs, attrs)
    g = opgen.Graph()
    with g.as_default():
        outputs = g.create_op(op, _nodes(inputs, opgen.constant), attrs).outputs
    for y, w in zip(outputs, want):
        assert y.shape is not None and len(y.shape) == w.ndim, (cid, y.shape, w.shape)
        for static, actual in zip(y.shape, w.shape):
            assert static in (None, actual), (cid, list(y.shape), w.shape)
    if op in FULLY_KNOWN:
        assert list(outputs[0].shape) == list(want[0].shape)
    with opgen.Session(graph=g) as session:
        for got, w in zip(session.run(list(outputs)), want):
            np.testing.assert_array_equal(got, w)


@pytest.mark.parametrize("op", sorted(GRAPH_CASES))
def test_shape_functions_take_unknown_shapes(op):
    _, _, inputs, attrs = GRAPH_CASES[op]
    g = opgen.Graph()
    with g.as_default():
        nodes = _nodes(inputs, lambda v: opgen.ops.placeholder(opgen.as_dtype(v.dtype)))
        outputs = g.create_op(op, nodes, attrs).outputs
    assert len(outputs) == len(_ours(op, inputs, attrs))
