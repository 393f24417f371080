"""Shape functions of the built-in ops, reached through the graph API: each case adds a
node to a fresh graph (TF_FinishOperation) and reads TF_GraphGetTensorShape.

The reference is what actually happens: for random shapes the op runs eagerly (or in
numpy) and the inferred shape must equal the result's shape. Then the same node is
inferred again with part of its inputs forgotten (dims, ranks, constant operands): the
answer must still agree with every dim it claims to know. Inputs that cannot go
together must fail with TF_INVALID_ARGUMENT naming the node and the op."""

from __future__ import annotations

import numpy as np
import pytest

from opgen.runtime import execute_op
from opgen.runtime.errors import OpError

INVALID_ARGUMENT = 3
F32, I32, I64 = np.float32, np.int32, np.int64


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(20261122)


def op_def(name):
    from opgen.protos import op_def_pb2
    from opgen.runtime import _lib
    if not _OP_DEFS:
        oplist = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
        _OP_DEFS.update((op.name, op) for op in oplist.op)
    return _OP_DEFS[name]


_OP_DEFS: dict = {}


def actual_shapes(op, inputs, attrs, arg_sizes=None):
    """Output shapes of running `op` eagerly on the numpy `inputs` (flattened over args)."""
    grouped, flat = [], list(inputs)
    for arg, size in zip(op_def(op).input_arg, arg_sizes or [1] * len(flat)):
        is_list = arg.number_attr or arg.type_list_attr
        grouped.append(flat[:size] if is_list else flat[0])
        flat = flat[size:]
    shapes = []
    for out in execute_op(op, grouped, attrs):
        for t in (out if isinstance(out, list) else [out]):
            shapes.append(tuple(np.asarray(t).shape))
    return shapes


def compatible(inferred, actual):
    """Whether an inferred shape admits the actual one."""
    if inferred is None:
        return True
    return len(inferred) == len(actual) and all(i in (None, a) for i, a in zip(inferred, actual))


def forget(P, rng, x, keep_value=False):
    """`x` with part of what is known about it forgotten: maybe its value, some dims,
    or its rank."""
    if keep_value and isinstance(x, np.ndarray):
        return x
    roll = rng.random()
    if roll < 0.15:
        return P(None, x.dtype)
    return P([None if rng.random() < 0.4 else d for d in x.shape], x.dtype)


def check_op(infer, P, rng, op, inputs, attrs=None, arg_sizes=None, values_matter=()):
    """Inferred shapes equal the eager result's, and stay compatible with it when some
    of the inputs are forgotten. `values_matter`: inputs whose constant value shapes the
    result (axes, sizes); they are sometimes kept, sometimes made unknown."""
    attrs = attrs or {}
    expected = actual_shapes(op, inputs, attrs, arg_sizes)
    data_inputs = [x if i in values_matter else P(x.shape, x.dtype) for i, x in enumerate(inputs)]
    assert infer(op, data_inputs, attrs, arg_sizes) == expected, (op, data_inputs, attrs)
    for _ in range(3):
        partial = [forget(P, rng, x, keep_value=i in values_matter and rng.random() < 0.5)
                   for i, x in enumerate(inputs)]
        inferred = infer(op, partial, attrs, arg_sizes)
        assert len(inferred) == len(expected)
        for got, want in zip(inferred, expected):
            assert compatible(got, want), (op, partial, attrs, got, want)
    return expected


def random_shape(rng, min_rank=0, max_rank=4, max_dim=4):
    rank = rng.integers(min_rank, max_rank + 1)
    return tuple(int(d) for d in rng.integers(1, max_dim + 1, size=rank))


def broadcastable_pair(rng):
    out = random_shape(rng, 0, 4)
    def operand():
        rank = rng.integers(0, len(out) + 1)
        return tuple(1 if rng.random() < 0.3 else d for d in out[len(out) - rank:])
    return operand(), operand()


def arr(shape, dtype=F32):
    return np.ones(shape, dtype)


# ---- element-wise ----------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Abs", "Exp", "Neg", "Relu", "Sigmoid", "Tanh", "Softplus",
                                "Identity", "ZerosLike", "OnesLike"])
def test_unary_ops_keep_the_shape(infer_shapes, rng, op):
    P = infer_shapes.Partial
    for _ in range(4):
        check_op(infer_shapes, P, rng, op, [arr(random_shape(rng))])
    assert infer_shapes(op, [P((None, 3))]) == [(None, 3)]
    assert infer_shapes(op, [P(None)]) == [None]


def test_cast_keeps_the_shape(infer_shapes, rng):
    P = infer_shapes.Partial
    check_op(infer_shapes, P, rng, "Cast", [arr((2, 3))], {"DstT": np.dtype(I32)})


@pytest.mark.parametrize("op", ["AddV2", "Sub", "Mul", "RealDiv", "DivNoNan", "Maximum", "Pow", "Less",
                                "Equal", "SquaredDifference", "Atan2", "Mod", "TruncateDiv",
                                "TruncateMod", "Xlogy", "Xdivy", "Xlog1py", "MulNoNan",
                                "NextAfter", "Igamma", "Igammac", "IgammaGradA",
                                "RandomGammaGrad", "Polygamma", "Zeta"])
def test_binary_ops_broadcast_as_numpy(infer_shapes, rng, op):
    P = infer_shapes.Partial
    for _ in range(6):
        a, b = broadcastable_pair(rng)
        expected = check_op(infer_shapes, P, rng, op, [arr(a), arr(b)])
        assert expected == [np.broadcast_shapes(a, b)]


def test_incompatible_broadcast_is_an_error_naming_node_and_op(infer_shapes):
    P = infer_shapes.Partial
    with pytest.raises(ValueError):
        np.broadcast_shapes((2, 3), (4,))
    with pytest.raises(infer_shapes.Error) as e:
        infer_shapes("AddV2", [P((2, 3)), P((4,))], node="sum1")
    assert e.value.code == INVALID_ARGUMENT
    assert "AddV2 node 'sum1'" in e.value.message and "[2,3]" in e.value.message


def test_broadcast_with_unknown_dims(infer_shapes):
    P = infer_shapes.Partial
    # ? against 5 must be 5 (or an error at run time); ? against 1 stays ?
    assert infer_shapes("Mul", [P((None, 1)), P((5, None))]) == [(5, None)]
    assert infer_shapes("Mul", [P((None, 3)), P((3,))]) == [(None, 3)]
    assert infer_shapes("Mul", [P(None), P((3,))]) == [None]
    assert infer_shapes("Mul", [P((2, None)), P((7, 1, 1))]) == [(7, 2, None)]


def test_equal_without_shape_error_allows_incompatible_operands(infer_shapes):
    P = infer_shapes.Partial
    attrs = {"incompatible_shape_error": False}
    assert infer_shapes("Equal", [P((2, 3)), P((4,))], attrs) == [()]  # one answer: false
    assert infer_shapes("Equal", [P((2, 3)), P((3,))], attrs) == [(2, 3)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("Equal", [P((2, 3)), P((4,))])


@pytest.mark.parametrize("op", ["SelectV2", "ClipByValue"])
def test_three_operands_broadcast_together(infer_shapes, rng, op):
    P = infer_shapes.Partial
    for _ in range(5):
        a, b = broadcastable_pair(rng)
        c = random_shape(rng, 0, 1, 1)
        first = np.ones(a, bool) if op == "SelectV2" else arr(a)
        expected = check_op(infer_shapes, P, rng, op, [first, arr(b), arr(c)])
        assert expected == [np.broadcast_shapes(a, b, c)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes(op, [P((2,), bool if op == "SelectV2" else F32), P((3,)), P(())])


def test_betainc_takes_scalars_or_one_shape(infer_shapes, rng):
    """Betainc: each operand a scalar or of the one shape the others share; two scalars
    give the third's shape, known or not."""
    P = infer_shapes.Partial
    x = arr((2, 3)) * 0.5
    for inputs in ([arr(()), arr(()), x], [arr((2, 3)), arr(()), x], [arr(()), arr((2, 3)), arr(())],
                   [arr((2, 3)), arr((2, 3)), x], [arr(()), arr(()), arr(())]):
        check_op(infer_shapes, P, rng, "Betainc", inputs)
    assert infer_shapes("Betainc", [P((None, 3)), P((2, None)), P(())]) == [(2, 3)]
    assert infer_shapes("Betainc", [P(()), P(None), P(())]) == [None]
    assert infer_shapes("Betainc", [P(()), P(None), P((4,))]) == [(4,)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("Betainc", [P((2,)), P((3,)), P(())])
    with pytest.raises(infer_shapes.Error):  # no broadcasting of non-scalars
        infer_shapes("Betainc", [P((1, 3)), P((2, 3)), P(())])


def test_add_n_merges_its_inputs(infer_shapes, rng):
    P = infer_shapes.Partial
    check_op(infer_shapes, P, rng, "AddN", [arr((2, 3))] * 3, arg_sizes=[3])
    assert infer_shapes("AddN", [P((None, 3)), P((2, None)), P(None)], arg_sizes=[3]) == [(2, 3)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("AddN", [P((2, 3)), P((3, 2))], arg_sizes=[2])


# ---- reductions --------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Sum", "Mean", "Max", "Prod", "EuclideanNorm"])
def test_reductions_with_constant_axes_are_exact(infer_shapes, rng, op):
    P = infer_shapes.Partial
    for keep_dims in (False, True):
        for _ in range(4):
            shape = random_shape(rng, 1, 4)
            axes = rng.choice(len(shape), size=rng.integers(0, len(shape) + 1), replace=False)
            axes = np.array([a - len(shape) if rng.random() < 0.3 else a for a in axes], I32)
            expected = check_op(infer_shapes, P, rng, op, [arr(shape), axes],
                                {"keep_dims": keep_dims}, values_matter={1})
            want = np.sum(np.ones(shape), axis=tuple(int(a) for a in axes), keepdims=keep_dims)
            assert expected == [want.shape]


def test_reduction_with_unknown_axes(infer_shapes):
    P = infer_shapes.Partial
    assert infer_shapes("Sum", [P((2, 3)), P((1,), I32)], {"keep_dims": True}) == [(None, None)]
    assert infer_shapes("Sum", [P((2, 3)), P((1,), I32)]) == [None]
    with pytest.raises(infer_shapes.Error, match="out of range"):
        infer_shapes("Sum", [P((2, 3)), np.array([2], I32)])


@pytest.mark.parametrize("op,np_fn", [("ArgMax", np.argmax), ("ArgMin", np.argmin)])
def test_arg_reductions_drop_the_axis(infer_shapes, rng, op, np_fn):
    P = infer_shapes.Partial
    for _ in range(4):
        shape = random_shape(rng, 1, 4)
        axis = int(rng.integers(-len(shape), len(shape)))
        expected = check_op(infer_shapes, P, rng, op, [arr(shape), np.array(axis, I32)],
                            values_matter={1})
        assert expected == [np_fn(np.ones(shape), axis=axis).shape]
    assert infer_shapes(op, [P((2, 3, 4)), P((), I32)]) == [(None, None)]


# ---- matrix products ---------------------------------------------------------------------

def test_mat_mul_with_transposes(infer_shapes, rng):
    P = infer_shapes.Partial
    for ta in (False, True):
        for tb in (False, True):
            m, k, n = (int(x) for x in rng.integers(1, 6, 3))
            a, b = arr((k, m) if ta else (m, k)), arr((n, k) if tb else (k, n))
            expected = check_op(infer_shapes, P, rng, "MatMul", [a, b],
                                {"transpose_a": ta, "transpose_b": tb})
            assert expected == [(m, n)]


def test_mat_mul_errors(infer_shapes):
    P = infer_shapes.Partial
    with pytest.raises(infer_shapes.Error) as e:
        infer_shapes("MatMul", [P((2, 3)), P((4, 5))], node="mm")
    assert e.value.code == INVALID_ARGUMENT
    assert "MatMul node 'mm': inner dimensions 3 and 4 differ" in e.value.message
    with pytest.raises(infer_shapes.Error, match="rank 2"):
        infer_shapes("MatMul", [P((2, 3, 4)), P((4, 5))])
    assert infer_shapes("MatMul", [P(None), P((4, 5))]) == [(None, 5)]


def test_batch_mat_mul_broadcasts_batch_dims(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(6):
        batch_a, batch_b = broadcastable_pair(rng)
        m, k, n = (int(x) for x in rng.integers(1, 5, 3))
        adj_x, adj_y = bool(rng.random() < 0.5), bool(rng.random() < 0.5)
        x = arr(batch_a + ((k, m) if adj_x else (m, k)))
        y = arr(batch_b + ((n, k) if adj_y else (k, n)))
        expected = check_op(infer_shapes, P, rng, "BatchMatMulV2", [x, y],
                            {"adj_x": adj_x, "adj_y": adj_y})
        assert expected == [np.broadcast_shapes(batch_a, batch_b) + (m, n)]
    with pytest.raises(infer_shapes.Error, match="inner dimensions"):
        infer_shapes("BatchMatMulV2", [P((2, 3, 4)), P((2, 5, 6))])
    with pytest.raises(infer_shapes.Error, match="broadcast"):
        infer_shapes("BatchMatMulV2", [P((2, 3, 4)), P((3, 4, 6))])


# ---- array ops -----------------------------------------------------------------------

def test_reshape_resolves_minus_one(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(6):
        shape = random_shape(rng, 1, 4)
        target = [int(d) for d in rng.permutation(shape)]
        target[int(rng.integers(len(target)))] = -1
        expected = check_op(infer_shapes, P, rng, "Reshape", [arr(shape), np.array(target, I32)],
                            values_matter={1})
        assert expected == [np.ones(shape).reshape(target).shape]
    assert infer_shapes("Reshape", [P((None, 4)), np.array([-1, 2], I32)]) == [(None, 2)]
    assert infer_shapes("Reshape", [P((None, 4)), P((3,), I32)]) == [(None, None, None)]
    with pytest.raises(infer_shapes.Error, match="cannot reshape"):
        infer_shapes("Reshape", [P((2, 3)), np.array([4, -1], I32)], node="r")
    with pytest.raises(infer_shapes.Error, match="cannot reshape"):
        infer_shapes("Reshape", [P((2, 3)), np.array([5], I32)])


def test_transpose_expand_dims_squeeze(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(4):
        shape = random_shape(rng, 1, 4)
        perm = rng.permutation(len(shape)).astype(I32)
        expected = check_op(infer_shapes, P, rng, "Transpose", [arr(shape), perm],
                            values_matter={1})
        assert expected == [np.transpose(np.ones(shape), perm).shape]
        axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
        expected = check_op(infer_shapes, P, rng, "ExpandDims", [arr(shape), np.array(axis, I32)],
                            values_matter={1})
        assert expected == [np.expand_dims(np.ones(shape), axis).shape]
        ones = tuple(1 if rng.random() < 0.5 else d for d in shape)
        squeeze = [i for i, d in enumerate(ones) if d == 1 and rng.random() < 0.5]
        expected = check_op(infer_shapes, P, rng, "Squeeze", [arr(ones)], {"squeeze_dims": squeeze})
        assert expected == [np.squeeze(np.ones(ones), axis=tuple(squeeze) or None).shape]
    with pytest.raises(infer_shapes.Error, match="permutation"):
        infer_shapes("Transpose", [P((2, 3)), np.array([0, 0], I32)])
    with pytest.raises(infer_shapes.Error, match="squeeze"):
        infer_shapes("Squeeze", [P((2, 3))], {"squeeze_dims": [0]})
    assert infer_shapes("Squeeze", [P((2, None, 1))]) == [None]  # ? may be 1
    assert infer_shapes("Squeeze", [P((2, None, 1))], {"squeeze_dims": [2]}) == [(2, None)]


def test_concat_pack_unpack(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(4):
        shape = random_shape(rng, 1, 4)
        axis = int(rng.integers(-len(shape), len(shape)))
        a = axis % len(shape)
        parts = [arr(shape[:a] + (int(rng.integers(1, 4)),) + shape[a + 1:]) for _ in range(3)]
        expected = check_op(infer_shapes, P, rng, "ConcatV2", parts + [np.array(axis, I32)],
                            arg_sizes=[3, 1], values_matter={3})
        assert expected == [np.concatenate(parts, axis).shape]
        pack_axis = int(rng.integers(-len(shape) - 1, len(shape) + 1))
        expected = check_op(infer_shapes, P, rng, "Pack", [arr(shape)] * 2, {"axis": pack_axis},
                            arg_sizes=[2])
        assert expected == [np.stack([np.ones(shape)] * 2, pack_axis).shape]
        expected = check_op(infer_shapes, P, rng, "Unpack", [arr(shape)],
                            {"num": shape[axis], "axis": axis})
        assert expected == [np.moveaxis(np.ones(shape), axis, 0).shape[1:]] * shape[axis]
    with pytest.raises(infer_shapes.Error, match="dimension 0"):
        infer_shapes("ConcatV2", [P((2, 3)), P((3, 3)), np.array(1, I32)], arg_sizes=[2, 1])
    assert infer_shapes("ConcatV2", [P((2, None)), P((2, 4)), np.array(1, I32)],
                        arg_sizes=[2, 1]) == [(2, None)]
    assert infer_shapes("ConcatV2", [P((None, 3)), P((2, 4)), P((), I32)],
                        arg_sizes=[2, 1]) == [(None, None)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("Unpack", [P((2, 3))], {"num": 3})


def test_slice_and_strided_slice(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(5):
        shape = random_shape(rng, 1, 4, 6)
        begin = np.array([int(rng.integers(0, d + 1)) for d in shape], I32)
        size = np.array([-1 if rng.random() < 0.3 else int(rng.integers(0, d - b + 1))
                         for d, b in zip(shape, begin)], I32)
        expected = check_op(infer_shapes, P, rng, "Slice", [arr(shape), begin, size],
                            values_matter={1, 2})
        index = tuple(slice(b, None if s < 0 else b + s) for b, s in zip(begin, size))
        want = np.ones(shape)[index]
        assert expected == [want.shape]
    for _ in range(40):
        shape = random_shape(rng, 1, 3, 6)
        n = len(shape)
        begin = np.array([int(rng.integers(-d - 2, d + 3)) for d in shape], I32)
        end = np.array([int(rng.integers(-d - 2, d + 3)) for d in shape], I32)
        strides = np.array([int(rng.choice([-3, -2, -1, 1, 2, 3])) for _ in range(n)], I32)
        masks = {name: int(rng.integers(0, 1 << n)) for name in ("begin_mask", "end_mask")}
        expected = check_op(infer_shapes, P, rng, "StridedSlice", [arr(shape), begin, end, strides],
                            masks, values_matter={1, 2, 3})
        bit = lambda mask, i: mask >> i & 1
        index = tuple(slice(None if bit(masks["begin_mask"], i) else int(begin[i]),
                            None if bit(masks["end_mask"], i) else int(end[i]), int(strides[i]))
                      for i in range(n))
        assert expected == [np.ones(shape)[index].shape]
    for _ in range(12):  # shrink and new axes
        shape = random_shape(rng, 1, 4, 6)
        n = len(shape)
        begin = [int(rng.integers(-d, d)) for d in shape]
        shrink = int(rng.integers(0, 1 << n))
        masks = {"shrink_axis_mask": shrink, "new_axis_mask": 0}
        if rng.random() < 0.5:  # a new axis entry at p; later entries move up by one
            p = int(rng.integers(0, n + 1))
            begin.insert(p, 0)
            masks = {"shrink_axis_mask": (shrink & ((1 << p) - 1)) | (shrink >> p << (p + 1)),
                     "new_axis_mask": 1 << p}
        begin = np.array(begin, I32)
        end, strides = begin + 1, np.ones(len(begin), I32)
        check_op(infer_shapes, P, rng, "StridedSlice", [arr(shape), begin, end, strides], masks,
                 values_matter={1, 2, 3})
    # numpy: x[..., 1:3] on [2,3,4] and x[None, :, 0]
    ints = lambda *v: np.array(v, I32)
    assert infer_shapes("StridedSlice", [P((2, 3, 4)), ints(0, 1), ints(0, 3), ints(1, 1)],
                        {"ellipsis_mask": 1}) == [(2, 3, 2)]
    assert infer_shapes("StridedSlice", [P((2, 3)), ints(0, 0, 0), ints(0, 0, 1), ints(1, 1, 1)],
                        {"new_axis_mask": 1, "begin_mask": 2, "end_mask": 2,
                         "shrink_axis_mask": 4}) == [(1, 2)]
    with pytest.raises(infer_shapes.Error, match="exceeds"):
        infer_shapes("Slice", [P((2, 3)), np.array([1, 0], I32), np.array([2, 1], I32)])


def test_gather_tile_pad_fill_range(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(4):
        params = random_shape(rng, 1, 3)
        indices = random_shape(rng, 0, 2)
        axis = int(rng.integers(-len(params), len(params)))
        idx = np.zeros(indices, I32)
        expected = check_op(infer_shapes, P, rng, "GatherV2",
                            [arr(params), idx, np.array(axis, I32)], values_matter={2})
        assert expected == [np.take(np.ones(params), idx, axis).shape]
        shape = random_shape(rng, 1, 3)
        multiples = rng.integers(0, 3, len(shape)).astype(I32)
        expected = check_op(infer_shapes, P, rng, "Tile", [arr(shape), multiples],
                            values_matter={1})
        assert expected == [np.tile(np.ones(shape), multiples).shape]
        pads = rng.integers(0, 3, (len(shape), 2)).astype(I32)
        expected = check_op(infer_shapes, P, rng, "Pad", [arr(shape), pads], values_matter={1})
        assert expected == [np.pad(np.ones(shape), pads).shape]
        dims = np.array(shape, I32)
        expected = check_op(infer_shapes, P, rng, "Fill", [dims, np.array(1.0, F32)],
                            values_matter={0})
        assert expected == [shape]
    for start, limit, delta in [(0, 10, 3), (5, -4, -2), (3, 3, 1), (-7, 8, 4)]:
        args = [np.array(v, I32) for v in (start, limit, delta)]
        expected = check_op(infer_shapes, P, rng, "Range", args, values_matter={0, 1, 2})
        assert expected == [np.arange(start, limit, delta).shape]
    # int64 bounds past 2**53 count exactly (doubles would make this 4)
    args = [np.array(v, I64) for v in (2**53 + 1, 2**53 + 3, 1)]
    assert check_op(infer_shapes, P, rng, "Range", args, values_matter={0, 1, 2}) == [(2,)]
    args = [np.array(v, F32) for v in (0.5, 2.25, 0.5)]
    assert infer_shapes("Range", args) == [np.arange(0.5, 2.25, 0.5).shape]
    assert infer_shapes("Range", [P((), I32), np.array(3, I32), np.array(1, I32)]) == [(None,)]
    with pytest.raises(infer_shapes.Error, match="delta"):
        infer_shapes("Range", [np.array(0, I32), np.array(3, I32), np.array(0, I32)])


def test_shape_size_rank(infer_shapes, rng):
    P = infer_shapes.Partial
    for op in ("Shape", "Size", "Rank"):
        check_op(infer_shapes, P, rng, op, [arr((2, 3, 4))])
    assert infer_shapes("Shape", [P((None, 3))]) == [(2,)]
    assert infer_shapes("Shape", [P(None)]) == [(None,)]
    assert infer_shapes("Size", [P(None)]) == [()]


def test_shape_n_pad_v2_and_broadcast_args(infer_shapes, rng):
    P = infer_shapes.Partial
    check_op(infer_shapes, P, rng, "ShapeN", [arr((2, 3, 4)), arr(())], arg_sizes=[2])
    assert infer_shapes("ShapeN", [P((None, 3)), P(None)], arg_sizes=[2]) == [(2,), (None,)]
    pads = np.array([[1, 2], [0, 3]], I32)
    check_op(infer_shapes, P, rng, "PadV2", [arr((2, 3)), pads, np.array(5, F32)],
             values_matter={1})
    with pytest.raises(infer_shapes.Error, match="constant_values"):
        infer_shapes("PadV2", [P((2, 3)), pads, P((2,))])
    check_op(infer_shapes, P, rng, "BroadcastArgs",
             [np.array([2, 1, 3], I32), np.array([4, 1], I32)])
    assert infer_shapes("BroadcastArgs", [P((None,), I32), P((2,), I32)]) == [(None,)]
    check_op(infer_shapes, P, rng, "UnravelIndex", [np.array([1, 5, 7], I32), np.array([2, 4], I32)])
    check_op(infer_shapes, P, rng, "UnravelIndex", [np.array(3, I32), np.array([2, 4], I32)])
    check_op(infer_shapes, P, rng, "Empty", [np.array([2, 3], I32)], {"dtype": np.dtype(F32)},
             values_matter={0})


def test_const_and_no_op(infer_shapes):
    value = np.arange(6, dtype=np.int64).reshape(3, 2, 1)
    assert infer_shapes("Const", [], {"value": value, "dtype": value.dtype}) == [(3, 2, 1)]
    assert infer_shapes("NoOp", []) == []


def test_placeholders_have_their_shape_attr(infer_shapes):
    P, S = infer_shapes.Partial, infer_shapes.ShapeAttr
    f32 = np.dtype(F32)
    assert infer_shapes("Placeholder", [], {"dtype": f32}) == [None]  # default: unknown rank
    assert infer_shapes("Placeholder", [], {"dtype": f32, "shape": S((None, 3))}) == [(None, 3)]
    assert infer_shapes("Placeholder", [], {"dtype": f32, "shape": S(())}) == [()]
    # PlaceholderWithDefault: whatever fits `shape` may be fed, so the input's dims do not
    # narrow it; an input that does not fit is refused.
    assert infer_shapes("PlaceholderWithDefault", [P((2, 3))],
                        {"shape": S((None, 3))}) == [(None, 3)]
    with pytest.raises(infer_shapes.Error, match="PlaceholderWithDefault node 'p'"):
        infer_shapes("PlaceholderWithDefault", [P((2, 3))], {"shape": S((4, 3))}, node="p")


# ---- neural-network ops ----------------------------------------------------------------

def test_bias_add_and_softmax(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(3):
        shape = random_shape(rng, 2, 4)
        check_op(infer_shapes, P, rng, "BiasAdd", [arr(shape), arr(shape[-1:])])
        check_op(infer_shapes, P, rng, "Softmax", [arr(shape)])
        check_op(infer_shapes, P, rng, "LogSoftmax", [arr(shape)])
    assert infer_shapes("BiasAdd", [P((2, None)), P((5,))]) == [(2, 5)]
    assert infer_shapes("BiasAdd", [P((2, 5, 3, 3)), P((5,))],
                        {"data_format": "NCHW"}) == [(2, 5, 3, 3)]
    with pytest.raises(infer_shapes.Error, match="channels"):
        infer_shapes("BiasAdd", [P((2, 4)), P((5,))])
    with pytest.raises(infer_shapes.Error, match="rank at least 1"):
        infer_shapes("Softmax", [P(())])


def test_conv_and_pooling(infer_shapes, rng):
    P = infer_shapes.Partial
    for _ in range(6):
        n, h, w, c = (int(x) for x in rng.integers(1, 9, 4))
        kh, kw = int(rng.integers(1, min(h, 3) + 1)), int(rng.integers(1, min(w, 3) + 1))
        s, d = int(rng.integers(1, 3)), 1
        padding = str(rng.choice(["SAME", "VALID"]))
        x = arr((n, h, w, c))
        check_op(infer_shapes, P, rng, "Conv2D", [x, arr((kh, kw, c, 3))],
                 {"strides": [1, s, s, 1], "padding": padding, "dilations": [1, d, d, 1]})
        for op in ("MaxPool", "AvgPool"):
            check_op(infer_shapes, P, rng, op, [x],
                     {"ksize": [1, kh, kw, 1], "strides": [1, s, s, 1], "padding": padding})
    assert infer_shapes("Conv2D", [P((1, 7, 7, 3)), P((3, 3, 3, 8))],
                        {"strides": [1, 2, 2, 1], "padding": "VALID",
                         "dilations": [1, 2, 2, 1]}) == [(1, 2, 2, 8)]
    assert infer_shapes("Conv2D", [P((1, 3, 7, 7)), P((3, 3, 3, 8))],
                        {"strides": [1, 1, 1, 1], "padding": "SAME",
                         "data_format": "NCHW"}) == [(1, 8, 7, 7)]
    assert infer_shapes("Conv2D", [P((1, 5, 5, 2)), P((3, 3, 2, 4))],
                        {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                         "explicit_paddings": [0, 0, 1, 1, 2, 2, 0, 0]}) == [(1, 5, 7, 4)]
    with pytest.raises(infer_shapes.Error, match="multiple of the filter depth"):
        infer_shapes("Conv2D", [P((1, 5, 5, 3)), P((3, 3, 2, 4))],
                     {"strides": [1, 1, 1, 1], "padding": "SAME"})
    with pytest.raises(infer_shapes.Error, match="does not fit"):
        infer_shapes("MaxPool", [P((1, 2, 2, 1))], {"ksize": [1, 3, 3, 1], "strides": [1, 1, 1, 1],
                                                    "padding": "VALID"})


def test_fused_batch_norm(infer_shapes, rng):
    P = infer_shapes.Partial
    x = arr((2, 3, 3, 4))
    stats = [arr((4,))] * 4
    expected = actual_shapes("FusedBatchNormV3", [x] + stats, {"is_training": False})
    inferred = infer_shapes("FusedBatchNormV3", [x] + stats, {"is_training": False})
    assert inferred[:5] == expected[:5]
    assert inferred[5] is None  # reserve_space_3 is the kernel's business
    partial = [P((2, 3, 3, None)), P((4,)), P((None,)), P((0,)), P((0,))]  # training: stats empty
    assert infer_shapes("FusedBatchNormV3", partial)[:2] == [(2, 3, 3, 4), (4,)]
    with pytest.raises(infer_shapes.Error, match="scale"):
        infer_shapes("FusedBatchNormV3", [P((2, 3, 3, 4)), P((5,)), P((4,)), P((4,)), P((4,))])


def _shape_attr(partial_class, dims):
    """A shape attr value: conftest's ShapeAttr, found beside its Partial."""
    import sys
    return sys.modules[partial_class.__module__].ShapeAttr(dims)


# A call per op that needs more than one [2,3] operand (unary) or two (binary).
_WINDOW3 = {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID"}
_WINDOW = {"strides": [1] * 4, "padding": "SAME"}
def _lstm_cell(P):
    """x [2, 5], cs_prev and h_prev [2, 4], w [9, 16], wci, wcf, wco [4], b [16]."""
    return [P((2, 5)), P((2, 4)), P((2, 4)), P((9, 16)), P((4,)), P((4,)), P((4,)), P((16,))]


def _block_lstm(P):
    """seq_len_max, then x [6, 2, 5] and _lstm_cell's weights."""
    return [P((), np.int64), P((6, 2, 5))] + _lstm_cell(P)[1:]


def _gru_cell(P):
    return [P((2, 5)), P((2, 4)), P((9, 8)), P((9, 4)), P((8,)), P((4,))]


_CALLS = {
    # random ops: the output is shaped by the `shape` operand's value
    **{op: (lambda P: ([np.array([2, 3], I32)], {"dtype": np.dtype(F32)}, None))
       for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal")},
    "RandomUniformInt": lambda P: ([np.array([2, 3], I32), np.array(0, I32), np.array(5, I32)], {}, None),
    "Multinomial": lambda P: ([P((2, 3)), np.array(4, I32)], {}, None),
    "StatelessMultinomial": lambda P: ([P((2, 3)), np.array(4, I32), np.array([1, 2], np.int64)], {}, None),
    "StatelessRandomUniformFullInt": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64)], {}, None),
    "StatelessRandomGammaV2": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64), P((3,))], {}, None),
    "StatelessRandomGammaV3": lambda P: ([np.array([2, 3], I32), np.array([1], np.uint64), np.array([0, 0], np.uint64),
                                         np.array(1, I32), P((3,))], {}, None),
    "StatelessRandomPoisson": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64), P((3,))],
                                         {"dtype": np.dtype(np.int32)}, None),
    "StatelessRandomBinomial": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64), P((3,), np.float64),
                                          P((3,), np.float64)], {"dtype": np.dtype(np.int32)}, None),
    "StatelessParameterizedTruncatedNormal": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64)]
                                                        + [P((3,))] * 4, {}, None),
    "StatelessShuffle": lambda P: ([P((2, 3)), np.array([1], np.uint64), np.array([0, 0], np.uint64),
                                   np.array(1, I32)], {}, None),
    **{op: (lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64)], {}, None))
       for op in ("StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal")},
    "StatelessRandomUniformInt": lambda P: ([np.array([2, 3], I32), np.array([1, 2], np.int64),
                                             np.array(0, I32), np.array(5, I32)], {}, None),
    **{op: (lambda P: ([np.array([2, 3], I32), np.array([1], np.uint64), np.array([0, 0], np.uint64),
                        np.array(1, I32)], {}, None))
       for op in ("StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                  "StatelessRandomUniformFullIntV2")},
    "StatelessRandomUniformIntV2": lambda P: ([np.array([2, 3], I32), np.array([1], np.uint64),
                                               np.array([0, 0], np.uint64), np.array(1, I32),
                                               np.array(0, I32), np.array(5, I32)], {}, None),
    **{op: (lambda P: ([np.array([1, 2], np.int64)], {}, None))
       for op in ("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounterAlg")},
    "ConcatV2": lambda P: ([P((2,)), P((3,)), np.array(0, I32)], {}, [2, 1]),
    "AddN": lambda P: ([P((2,))] * 2, {}, [2]),
    "Pack": lambda P: ([P((2,))] * 2, {}, [2]),
    "Unpack": lambda P: ([P((2, 3))], {"num": 2}, None),
    "MatMul": lambda P: ([P((2, 3)), P((3, 4))], {}, None),
    "BroadcastGradientArgs": lambda P: ([P((3,), I32), P((2,), I32)], {}, None),
    "BatchMatMulV2": lambda P: ([P((2, 3)), P((3, 4))], {}, None),
    # the older forms (tests/python_runtime/test_legacy_ops.py checks their shapes)
    "BatchMatMul": lambda P: ([P((2, 3)), P((3, 4))], {}, None),
    "Gather": lambda P: ([P((2, 3)), P((4,), I32)], {}, None),
    "Concat": lambda P: ([np.array(0, I32), P((2,)), P((3,))], {}, [1, 2]),
    "ParallelConcat": lambda P: ([P((1, 3)), P((1, 3))], {"shape": _shape_attr(P, (2, 3))}, [2]),
    "Reverse": lambda P: ([P((2, 3)), P((2,), bool)], {}, None),
    "PlaceholderV2": lambda P: ([], {"dtype": np.dtype(F32), "shape": _shape_attr(P, (2, 3))}, None),
    "MatrixDiagV2": lambda P: ([P((2, 3)), np.array(0, I32), np.array(-1, I32), np.array(-1, I32),
                                P(())], {}, None),
    "MatrixDiagPartV2": lambda P: ([P((2, 3)), np.array(0, I32), P(())], {}, None),
    "MatrixSetDiagV2": lambda P: ([P((2, 3)), P((2,)), np.array(0, I32)], {}, None),
    "SpaceToBatch": lambda P: ([P((1, 2, 2, 1)), np.zeros((2, 2), I32)], {"block_size": 2}, None),
    "BatchToSpace": lambda P: ([P((4, 1, 1, 1)), np.zeros((2, 2), I32)], {"block_size": 2}, None),
    **{op: (lambda P: ([P((3, 2)), P((3,), I32), np.array(4, I32)], {}, None))
       for op in ("SegmentSumV2", "SegmentProdV2", "SegmentMaxV2", "SegmentMinV2")},
    "HistogramFixedWidth": lambda P: ([P((2, 3)), P((2,)), np.array(4, I32)], {}, None),
    "Conv2D": lambda P: ([P((1, 3, 3, 1)), P((1, 1, 1, 1))], _WINDOW, None),
    "MaxPool": lambda P: ([P((1, 3, 3, 1))], {"ksize": [1] * 4, **_WINDOW}, None),
    "AvgPool": lambda P: ([P((1, 3, 3, 1))], {"ksize": [1] * 4, **_WINDOW}, None),
    "FusedBatchNormV3": lambda P: ([P((1, 2, 2, 3))] + [P((3,))] * 4, {}, None),
    "BiasAdd": lambda P: ([P((2, 3)), P((3,))], {}, None),
    "Cast": lambda P: ([P((2,))], {"DstT": np.dtype(I32)}, None),
    "Fill": lambda P: ([np.array([2], I32), P((), F32)], {}, None),
    "Range": lambda P: ([np.array(0, I32), np.array(3, I32), np.array(1, I32)], {}, None),
    "SelectV2": lambda P: ([P((2,), bool), P((2,)), P((2,))], {}, None),
    "ClipByValue": lambda P: ([P((2,)), P(()), P(())], {}, None),
    "LogicalAnd": lambda P: ([P((2,), bool)] * 2, {}, None),
    "LogicalOr": lambda P: ([P((2,), bool)] * 2, {}, None),
    "LogicalNot": lambda P: ([P((2,), bool)], {}, None),
    "BitwiseAnd": lambda P: ([P((2, 3), np.int32), P((3,), np.int32)], {}, None),
    "BitwiseOr": lambda P: ([P((2, 3), np.int32), P((3,), np.int32)], {}, None),
    "BitwiseXor": lambda P: ([P((2, 3), np.int32), P((3,), np.int32)], {}, None),
    "Invert": lambda P: ([P((2, 3), np.uint8)], {}, None),
    **{op: lambda P: ([P((2, 3), np.int32), P((3,), np.int32)], {}, None)
       for op in ("LeftShift", "RightShift")},
    "ComplexAbs": lambda P: ([P((2, 3), np.complex64)], {}, None),
    **{op: lambda P: ([P((2, 3), np.complex64)], {}, None)
       for op in ("Real", "Imag", "Angle", "Conj")},
    "Complex": lambda P: ([P((2, 3)), P((3,))], {}, None),
    "Slice": lambda P: ([P((2, 3)), np.array([0, 0], I32), np.array([1, 1], I32)], {}, None),
    "StridedSlice": lambda P: ([P((2, 3))] + [np.array([v], I32) for v in (0, 1, 1)], {}, None),
    "Reshape": lambda P: ([P((2, 3)), np.array([3, 2], I32)], {}, None),
    "Transpose": lambda P: ([P((2, 3)), np.array([1, 0], I32)], {}, None),
    "Tile": lambda P: ([P((2, 3)), np.array([1, 2], I32)], {}, None),
    "ReverseV2": lambda P: ([P((2, 3)), np.array([1], I32)], {}, None),
    **{op: lambda P: ([P((2, 3))], {}, None) for op in ("IsFinite", "IsNan", "IsInf")},
    "Pad": lambda P: ([P((2, 3)), np.zeros((2, 2), I32)], {}, None),
    "PadV2": lambda P: ([P((2, 3)), np.zeros((2, 2), I32), np.array(1, F32)], {}, None),
    "ShapeN": lambda P: ([P((2, 3)), P((4,))], {}, [2]),
    "Empty": lambda P: ([np.array([2, 3], I32)], {"dtype": np.dtype(F32)}, None),
    "UnravelIndex": lambda P: ([np.array([1, 5], I32), np.array([2, 4], I32)], {}, None),
    # runtime/ops/array_family_ops.cc (test_array_family_shapes checks the values)
    "InTopKV2": lambda P: ([P((2, 3)), P((2,), I32), np.array(1, I32)], {}, None),
    "InTopK": lambda P: ([P((2, 3)), P((2,), I32)], {"k": 1}, None),
    "UpperBound": lambda P: ([P((2, 3)), P((2, 4))], {}, None),
    "LowerBound": lambda P: ([P((2, 3)), P((2, 4))], {}, None),
    "DiagPart": lambda P: ([P((2, 3, 2, 3))], {}, None),
    "Bitcast": lambda P: ([P((2, 3))], {"type": np.dtype(np.uint8)}, None),
    **{op: lambda P: ([P((4, 3)), P((2,), I32), P((2, 3))], {}, None)
       for op in ("InplaceUpdate", "InplaceAdd", "InplaceSub")},
    **{op: lambda P: ([P((4,), I32)], {}, None)
       for op in ("DataFormatVecPermute", "DataFormatDimMap")},
    "BroadcastArgs": lambda P: ([np.array([2, 1], I32), np.array([3, 1, 1], I32)], {}, None),
    "GatherV2": lambda P: ([P((2, 3)), P((4,), I32), np.array(0, I32)], {}, None),
    # convolution-family and image ops (runtime/ops/conv_image_ops.cc)
    "DepthwiseConv2dNative": lambda P: ([P((1, 3, 3, 2)), P((1, 1, 2, 2))], _WINDOW, None),
    "Conv2DBackpropInput": lambda P: ([np.array([1, 3, 3, 2], I32), P((1, 1, 2, 4)), P((1, 3, 3, 4))],
                                      _WINDOW, None),
    "Conv3D": lambda P: ([P((1, 3, 3, 3, 1)), P((1, 1, 1, 1, 2))],
                         {"strides": [1] * 5, "padding": "SAME"}, None),
    "SpaceToBatchND": lambda P: ([P((1, 4, 4, 1)), np.array([2, 2], I32), np.zeros((2, 2), I32)], {}, None),
    "BatchToSpaceND": lambda P: ([P((4, 2, 2, 1)), np.array([2, 2], I32), np.zeros((2, 2), I32)], {}, None),
    "FusedBatchNorm": lambda P: ([P((1, 2, 2, 3))] + [P((3,))] * 4, {}, None),
    "FusedBatchNormV2": lambda P: ([P((1, 2, 2, 3))] + [P((3,))] * 4, {}, None),
    "ResizeBilinear": lambda P: ([P((1, 2, 2, 3)), np.array([4, 5], I32)], {}, None),
    # issue 22's backprop ops
    "Conv2DBackpropFilter": lambda P: ([P((1, 3, 3, 2)), np.array([1, 1, 2, 4], I32), P((1, 3, 3, 4))],
                                       _WINDOW, None),
    "DepthwiseConv2dNativeBackpropInput": lambda P: ([np.array([1, 3, 3, 2], I32), P((1, 1, 2, 2)),
                                                      P((1, 3, 3, 4))], _WINDOW, None),
    "DepthwiseConv2dNativeBackpropFilter": lambda P: ([P((1, 3, 3, 2)), np.array([1, 1, 2, 2], I32),
                                                       P((1, 3, 3, 4))], _WINDOW, None),
    "Conv3DBackpropInputV2": lambda P: ([np.array([1, 3, 3, 3, 2], I32), P((1, 1, 1, 2, 4)),
                                         P((1, 3, 3, 3, 4))], {"strides": [1] * 5, "padding": "SAME"}, None),
    "Conv3DBackpropFilterV2": lambda P: ([P((1, 3, 3, 3, 2)), np.array([1, 1, 1, 2, 4], I32),
                                          P((1, 3, 3, 3, 4))], {"strides": [1] * 5, "padding": "SAME"}, None),
    "MaxPoolGrad": lambda P: ([P((1, 3, 3, 1))] * 3, {"ksize": [1] * 4, **_WINDOW}, None),
    "MaxPoolGradGrad": lambda P: ([P((1, 3, 3, 1))] * 3, {"ksize": [1] * 4, **_WINDOW}, None),
    "AvgPoolGrad": lambda P: ([np.array([1, 3, 3, 1], I32), P((1, 3, 3, 1))], {"ksize": [1] * 4, **_WINDOW},
                              None),
    "FusedBatchNormGrad": lambda P: ([P((1, 2, 2, 3))] * 2 + [P((3,))] * 3, {}, None),
    "FusedBatchNormGradV2": lambda P: ([P((1, 2, 2, 3))] * 2 + [P((3,))] * 3, {}, None),
    "FusedBatchNormGradV3": lambda P: ([P((1, 2, 2, 3))] * 2 + [P((3,))] * 4, {}, None),
    "ResizeBilinearGrad": lambda P: ([P((1, 4, 5, 3)), P((1, 2, 2, 3))], {}, None),
    "ResizeNearestNeighborGrad": lambda P: ([P((1, 4, 5, 3)), np.array([2, 2], I32)], {}, None),
    "ResizeNearestNeighbor": lambda P: ([P((1, 2, 2, 3)), np.array([4, 5], I32)], {}, None),
    # the Keras layer sweep's ops (tools/keras_layer_sweep.py)
    **{op: (lambda P: ([P((1, 2, 2, 3)), np.array([4, 5], I32)], {}, None))
       for op in ("ResizeBicubic", "ResizeArea")},
    **{op: (lambda P: ([P((1, 4, 4, 4, 2))], {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1],
                                             "padding": "VALID"}, None))
       for op in ("MaxPool3D", "AvgPool3D")},
    "MaxPool3DGrad": lambda P: ([P((1, 4, 4, 4, 2)), P((1, 2, 2, 2, 2)), P((1, 2, 2, 2, 2))], _WINDOW3, None),
    "AvgPool3DGrad": lambda P: ([np.array([1, 4, 4, 4, 2], I32), P((1, 2, 2, 2, 2))], _WINDOW3, None),
    "MaxPool3DGradGrad": lambda P: ([P((1, 4, 4, 4, 2)), P((1, 2, 2, 2, 2)), P((1, 4, 4, 4, 2))], _WINDOW3,
                                    None),
    "ResizeBicubicGrad": lambda P: ([P((1, 4, 5, 3)), P((1, 2, 2, 3))], {}, None),
    # the fake-quantization ops and LRN (test_fake_quant_lrn_shapes)
    "FakeQuantWithMinMaxVars": lambda P: ([P((2, 3)), P(()), P(())], {}, None),
    "FakeQuantWithMinMaxVarsGradient": lambda P: ([P((2, 3)), P((2, 3)), P(()), P(())], {}, None),
    "FakeQuantWithMinMaxVarsPerChannel": lambda P: ([P((2, 3)), P((3,)), P((3,))], {}, None),
    "FakeQuantWithMinMaxVarsPerChannelGradient": lambda P: ([P((2, 3)), P((2, 3)), P((3,)), P((3,))],
                                                            {}, None),
    "LRN": lambda P: ([P((1, 2, 2, 3))], {}, None),
    # the fused RNN cells and TensorFlow 1's batch norm (test_rnn_block_and_batch_norm_global_shapes)
    **{op: (lambda P, g=g: ([P((1, 2, 2, 3)), P((3,)), P((3,)), P((3,)), P((1, 2, 2, 3)) if g else P((3,))],
                            {"variance_epsilon": 0.001, "scale_after_normalization": True}, None))
       for op, g in (("BatchNormWithGlobalNormalization", False), ("BatchNormWithGlobalNormalizationGrad", True))},
    "LSTMBlockCell": lambda P: (_lstm_cell(P), {}, None),
    "LSTMBlockCellGrad": lambda P: (_lstm_cell(P) + [P((2, 4))] * 8, {"use_peephole": False}, None),
    **{op: (lambda P: (_block_lstm(P), {}, None)) for op in ("BlockLSTM", "BlockLSTMV2")},
    **{op: (lambda P: (_block_lstm(P) + [P((6, 2, 4))] * 9, {"use_peephole": False}, None))
       for op in ("BlockLSTMGrad", "BlockLSTMGradV2")},
    "GRUBlockCell": lambda P: (_gru_cell(P), {}, None),
    "GRUBlockCellGrad": lambda P: (_gru_cell(P) + [P((2, 4))] * 4, {}, None),
    "BiasAddV1": lambda P: ([P((2, 3)), P((3,))], {}, None),
    "NthElement": lambda P: ([P((2, 3)), np.array(1, I32)], {}, None),
    # the CTC ops and EditDistance (test_ctc_shapes)
    **{op: (lambda P: ([P((5, 2, 4)), P((3, 2), I64), P((3,), I32), P((2,), I32)], {}, None))
       for op in ("CTCLoss", "CTCLossV2")},
    "CTCGreedyDecoder": lambda P: ([P((5, 2, 4)), P((2,), I32)], {}, None),
    "CTCBeamSearchDecoder": lambda P: ([P((5, 2, 4)), P((2,), I32)],
                                       {"beam_width": 3, "top_paths": 2}, None),
    "EditDistance": lambda P: ([P((3, 2), I64), P((3,)), np.array([2, 4], I64),
                                P((2, 2), I64), P((2,)), np.array([3, 2], I64)], {}, None),
    **{op: (lambda P, n=n: ([P((1, 4, 4, 2)), P((2, 2, 2)), P((1, 3, 3, 2))][:n],
                            {"strides": [1] * 4, "rates": [1] * 4, "padding": "VALID"}, None))
       for op, n in (("Dilation2D", 2), ("Dilation2DBackpropInput", 3), ("Dilation2DBackpropFilter", 3))},
    "MaxPoolV2": lambda P: ([P((1, 3, 3, 1)), np.array([1, 2, 2, 1], I32), np.array([1, 1, 1, 1], I32)],
                            {"padding": "VALID"}, None),
    **{op: (lambda P: ([P((1, 3, 3, 1)), P((1, 2, 2, 1)), P((1, 3, 3, 1)), np.array([1, 2, 2, 1], I32),
                        np.array([1, 1, 1, 1], I32)], {"padding": "VALID"}, None))
       for op in ("MaxPoolGradV2", "MaxPoolGradGradV2")},
    "MaxPoolWithArgmax": lambda P: ([P((1, 3, 3, 1))], {"ksize": [1, 2, 2, 1], **_WINDOW, "padding": "VALID"},
                                    None),
    "MaxPoolGradWithArgmax": lambda P: ([P((1, 3, 3, 1)), P((1, 2, 2, 1)), P((1, 2, 2, 1), np.int64)],
                                        {"ksize": [1, 2, 2, 1], **_WINDOW, "padding": "VALID"}, None),
    "LRNGrad": lambda P: ([P((1, 2, 2, 3))] * 3, {}, None),
    "MatrixBandPart": lambda P: ([P((2, 3)), np.array(0, np.int64), np.array(-1, np.int64)], {}, None),
    "Bucketize": lambda P: ([P((2, 3))], {"boundaries": [0.0, 1.0]}, None),
    "DepthToSpace": lambda P: ([P((1, 2, 2, 8))], {"block_size": 2}, None),
    "SpaceToDepth": lambda P: ([P((1, 2, 2, 3))], {"block_size": 2}, None),
    "MirrorPad": lambda P: ([P((2, 3)), np.ones((2, 2), I32)], {"mode": "SYMMETRIC"}, None),
    **{op: (lambda P: ([P((2, 3)), np.array(0, I32)], {}, None))
       for op in ("ArgMax", "ArgMin", "ExpandDims", "Sum", "Mean", "Prod", "Max", "Min",
                  "EuclideanNorm", "CumulativeLogsumexp")},
    "ConjugateTranspose": lambda P: ([P((2, 3)), np.array([1, 0], I32)], {}, None),
    "Cross": lambda P: ([P((2, 3)), P((None, 3))], {}, None),
    "PopulationCount": lambda P: ([P((2, 3), I32)], {}, None),
    "AccumulateNV2": lambda P: ([P((2,))] * 2, {"shape": _shape_attr(P, (2,))}, [2]),
    "Switch": lambda P: ([P((2, 3)), P((), bool)], {}, None),
    "Merge": lambda P: ([P((2, 3))] * 2, {}, [2]),
    "Enter": lambda P: ([P((2, 3))], {"frame_name": "loop"}, None),
    "LoopCond": lambda P: ([P((), bool)], {}, None),
    "TensorListReserve": lambda P: ([np.array([3], I32), np.array(2, I32)],
                                    {"element_dtype": np.dtype(F32)}, None),
    "TensorListFromTensor": lambda P: ([P((4, 3)), np.array([3], I32)], {}, None),
    # issue 17's ops
    "Einsum": lambda P: ([P((2, 3)), P((3, 4))], {"equation": "ab,bc->ac"}, [2]),
    "IdentityN": lambda P: ([P((2,)), P((3,), I32)], {}, [2]),
    "Select": lambda P: ([P((2,), bool), P((2,)), P((2,))], {}, None),
    "Split": lambda P: ([np.array(1, I32), P((2, 4))], {"num_split": 2}, None),
    "SplitV": lambda P: ([P((2, 4)), np.array([1, -1], np.int64), np.array(1, I32)],
                         {"num_split": 2}, None),
    "OneHot": lambda P: ([P((3,), np.int64), np.array(3, I32), P(()), P(())], {}, None),
    "BroadcastTo": lambda P: ([P((1, 3)), np.array([2, 3], I32)], {}, None),
    "TopKV2": lambda P: ([P((2, 3)), np.array(2, I32)], {}, None),
    **{op: (lambda P: ([P((2, 3)), np.array(1, I32)], {}, None)) for op in ("Cumsum", "Cumprod")},
    **{op: (lambda P: ([P((2, 3), bool), np.array(0, I32)], {}, None)) for op in ("All", "Any")},
    # issue 22's gradient kernels
    "SparseSoftmaxCrossEntropyWithLogits": lambda P: ([P((2, 3)), P((2,), np.int64)], {}, None),
    "UnsortedSegmentSum": lambda P: ([P((4, 3)), P((4,), I32), np.array(5, I32)], {}, None),
    "ConcatOffset": lambda P: ([np.array(0, I32), P((2,), I32), P((2,), I32)], {}, [1, 2]),
    "InvertPermutation": lambda P: ([P((4,), I32)], {}, None),
    "StridedSliceGrad": lambda P: ([np.array([2, 3], I32)] + [np.array([v], I32) for v in (0, 1, 1)]
                                   + [P((1, 3))], {}, None),
    "TensorStridedSliceUpdate": lambda P: ([P((2, 3))] + [np.array([v], I32) for v in (0, 1, 1)]
                                           + [P((1, 3))], {}, None),
    "MirrorPadGrad": lambda P: ([P((4, 5)), np.ones((2, 2), I32)], {"mode": "SYMMETRIC"}, None),
    # Keras preprocessing layers' ops
    "ScaleAndTranslate": lambda P: ([P((1, 2, 2, 3)), np.array([4, 5], I32), P((2,)), P((2,))],
                                    {}, None),
    "ScaleAndTranslateGrad": lambda P: ([P((1, 4, 5, 3)), P((1, 2, 2, 3)), P((2,)), P((2,))],
                                        {}, None),
    **{op: (lambda P: ([P((5, 4)), P((5,)), np.array(3, I32), P(()), P(())], {}, None))
       for op in ("NonMaxSuppressionV3", "NonMaxSuppressionV4")},
    "NonMaxSuppressionV5": lambda P: ([P((5, 4)), P((5,)), np.array(3, I32), P(()), P(()), P(())],
                                      {}, None),
    "CombinedNonMaxSuppression": lambda P: ([P((2, 5, 1, 4)), P((2, 5, 3)), np.array(2, I32),
                                             np.array(4, I32), P(()), P(())], {}, None),
    "NonMaxSuppressionWithOverlaps": lambda P: ([P((5, 5)), P((5,)), np.array(3, I32), P(()),
                                                 P(())], {}, None),
    "CropAndResize": lambda P: ([P((2, 4, 5, 3)), P((6, 4)), P((6,), I32), np.array([3, 2], I32)],
                                {}, None),
    "CropAndResizeGradImage": lambda P: ([P((6, 3, 2, 3)), P((6, 4)), P((6,), I32),
                                          np.array([2, 4, 5, 3], I32)],
                                         {"T": np.dtype(np.float32)}, None),
    "CropAndResizeGradBoxes": lambda P: ([P((6, 3, 2, 3)), P((2, 4, 5, 3)), P((6, 4)),
                                          P((6,), I32)], {}, None),
    "NonMaxSuppression": lambda P: ([P((5, 4)), P((5,)), np.array(3, I32)], {}, None),
    "NonMaxSuppressionV2": lambda P: ([P((5, 4)), P((5,)), np.array(3, I32), P(())], {}, None),
    "AdjustContrast": lambda P: ([P((2, 4, 3)), P(()), P(()), P(())], {}, None),
    "DrawBoundingBoxes": lambda P: ([P((2, 4, 5, 3)), P((2, 6, 4))], {}, None),
    "DrawBoundingBoxesV2": lambda P: ([P((2, 4, 5, 3)), P((2, 6, 4)), P((2, 3))], {}, None),
    "RandomCrop": lambda P: ([P((6, 5, 3)), np.array([2, 4], np.int64)], {}, None),
    **{op: (lambda P: ([P((2, 6, 5, 3)), np.array([3, 4], I32), P((2, 2))], {}, None))
       for op in ("ExtractGlimpse", "ExtractGlimpseV2")},
    "SampleDistortedBoundingBox": lambda P: ([np.array([6, 5, 3], I32), P((1, 2, 4))], {}, None),
    "SampleDistortedBoundingBoxV2": lambda P: ([np.array([6, 5, 3], I32), P((1, 2, 4)), P(())],
                                               {}, None),
    "StatelessSampleDistortedBoundingBox": lambda P: (
        [np.array([6, 5, 3], I32), P((1, 2, 4)), P(()), np.array([1, 2], I32)], {}, None),
    **{f"ImageProjectiveTransformV{v}": (lambda P, v=v: (
        [P((2, 4, 5, 3)), P((2, 8)), np.array([6, 7], I32)] + ([P(())] if v == 3 else []),
        {"interpolation": "BILINEAR"}, None)) for v in (2, 3)},
    "ExtractImagePatches": lambda P: ([P((2, 5, 6, 3))], {"ksizes": [1, 2, 3, 1],
                                      "strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1],
                                      "padding": "VALID"}, None),
    **{op: (lambda P: ([P((2, 4, 3)), P(())], {}, None))
       for op in ("AdjustHue", "AdjustSaturation", "AdjustContrastv2")},
    "Bincount": lambda P: ([P((2, 3), I32), np.array(4, I32), P((0,))], {}, None),
    # audio ops (tests/python_runtime/test_audio_ops.py)
    "EncodeWav": lambda P: ([P((5, 2)), np.array(8000, I32)], {}, None),
    "AudioSpectrogram": lambda P: ([P((40, 2))], {"window_size": 9, "stride": 4}, None),
    "Mfcc": lambda P: ([P((2, 3, 129)), np.array(8000, I32)], {}, None),
    "DenseBincount": lambda P: ([P((2, 3), I32), np.array(4, I32), P((0,))], {}, None),
    "RaggedBincount": lambda P: ([np.array([0, 2, 3], np.int64), P((3,), I32), np.array(4, I32),
                                  P((0,))], {}, None),
    "SparseBincount": lambda P: ([P((3, 2), np.int64), P((3,), I32), np.array([2, 5], np.int64),
                                  np.array(4, I32), P((0,))], {}, None),
    # debugging and sequence ops (test_debug_sequence_shapes checks their values)
    **{op: (lambda P: ([P((2, 3))], {"message": "m"}, None))
       for op in ("CheckNumerics", "CheckNumericsV2")},
    "EnsureShape": lambda P: ([P((2, None))], {"shape": _shape_attr(P, (None, 3))}, None),
    "StringFormat": lambda P: ([P((2, 3)), P((4,), I32)], {"template": "%s %s"}, [2]),
    "Roll": lambda P: ([P((2, 3)), np.array([1], I32), np.array([0], I32)], {}, None),
    "ReverseSequence": lambda P: ([P((2, 3)), P((2,), np.int64)], {"seq_dim": 1}, None),
    "LinSpace": lambda P: ([np.float32(0), np.float32(1), np.array(5, I32)], {}, None),
    **{op: (lambda P: ([P((4,))], {}, None)) for op in ("Unique", "UniqueWithCounts")},
    **{op: (lambda P: ([P((4, 3)), np.array([0], np.int64)], {}, None))
       for op in ("UniqueV2", "UniqueWithCountsV2")},
    "ListDiff": lambda P: ([P((4,)), P((2,))], {}, None),
    "SparseToDense": lambda P: ([P((2, 2), I32), np.array([3, 4], I32), P((2,)), P(())], {},
                                None),
    "MatrixDiagPartV3": lambda P: ([P((2, 3, 4)), np.array([-1, 1], I32), np.float32(0)], {}, None),
    "MatrixDiagV3": lambda P: ([P((2, 3)), np.array(0, I32), np.array(-1, I32), np.array(-1, I32),
                                np.float32(0)], {}, None),
    "MatrixSetDiagV3": lambda P: ([P((2, 3, 4)), P((2, 3)), np.array(0, I32)], {}, None),
    "L2Loss": lambda P: ([P((2, 3))], {}, None),
    **{op: (lambda P: ([P((2, 3, 3))], {}, None))
       for op in ("MatrixInverse", "MatrixDeterminant", "LogMatrixDeterminant", "Cholesky")},
    "MatrixSolve": lambda P: ([P((2, 3, 3)), P((2, 3, 4))], {}, None),
    "MatrixTriangularSolve": lambda P: ([P((3, 3)), P((2, 3, 4))], {}, None),
    "Svd": lambda P: ([P((2, 4, 3))], {"full_matrices": True}, None),
    "Qr": lambda P: ([P((2, 3, 4))], {}, None),
    **{op: (lambda P: ([P((2, 3, 3))], {}, None)) for op in ("SelfAdjointEigV2", "Lu")},
    "MatrixSolveLs": lambda P: ([P((2, 4, 3)), P((2, 4, 2)), np.float64(0.1)], {}, None),
    # the FFT family: complex transforms keep the shape; fft_length sizes the real ones
    **{op: (lambda P: ([P((2, 3, 4), np.complex64)], {}, None))
       for op in ("FFT", "IFFT", "FFT2D", "IFFT2D", "FFT3D", "IFFT3D")},
    **{op + suffix: (lambda P, rank=rank: ([P((2, 3, 4, 5)), np.array([4] * rank, I32)], {}, None))
       for rank, suffix in ((1, ""), (2, "2D"), (3, "3D")) for op in ("RFFT",)},
    **{op + suffix: (lambda P, rank=rank: ([P((2, 3, 4, 5), np.complex64), np.array([3] * rank, I32)],
                                           {}, None))
       for rank, suffix in ((1, ""), (2, "2D"), (3, "3D")) for op in ("IRFFT",)},
    # gathers/scatters by n-d indices, segment reductions (scatter_shape_fns.cc)
    **{op: (lambda P: ([P((2,), I32), P((3,), I32), P((2, 4)), P((3, 4))], {}, [2, 2]))
       for op in ("DynamicStitch", "ParallelDynamicStitch")},
    "DynamicPartition": lambda P: ([P((4, 3)), P((4,), I32)], {"num_partitions": 2}, None),
    "GatherNd": lambda P: ([P((4, 3)), P((2, 1), I32)], {}, None),
    "ScatterNd": lambda P: ([P((2, 1), I32), P((2, 3)), np.array([4, 3], I32)], {}, None),
    **{op: (lambda P: ([P((4, 3)), P((2, 1), I32), P((2, 3))], {}, None))
       for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
                  "TensorScatterMax", "TensorScatterMin")},
    **{op: (lambda P: ([P((4, 3)), P((4,), I32), np.array(5, I32)], {}, None))
       for op in ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")},
    **{op: (lambda P: ([P((4, 3)), P((4,), I32)], {}, None))
       for op in ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")},
    **{op: (lambda P: ([P((4, 3)), P((2,), I32), P((2,), I32)], {}, None))
       for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN")},
    **{op: (lambda P: ([P((4, 3)), P((2,), I32), P((2,), I32), np.array(5, I32)], {}, None))
       for op in ("SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments",
                  "SparseSegmentSqrtNWithNumSegments")},
    # SparseTensor ops (sparse_tensor_ops.cc): (indices [n, rank], values [n], shape [rank])
    "SparseReorder": lambda P: ([P((3, 2), I64), P((3,)), P((2,), I64)], {}, None),
    "SparseReshape": lambda P: ([P((3, 2), I64), P((2,), I64), P((3,), I64)], {}, None),
    "SparseFillEmptyRows": lambda P: ([P((3, 2), I64), P((3,)), np.array([4, 5], I64), P(())],
                                      {}, None),
    "SparseFillEmptyRowsGrad": lambda P: ([P((3,), I64), P((5,))], {}, None),
    "SparseTensorDenseMatMul": lambda P: ([P((3, 2), I64), P((3,)), np.array([4, 5], I64),
                                          P((5, 6))], {}, None),
    "SparseAdd": lambda P: ([P((3, 2), I64), P((3,)), P((2,), I64), P((4, 2), I64), P((4,)),
                            P((2,), I64), np.float32(0)], {}, None),
    "SparseAddGrad": lambda P: ([P((5,)), P((3, 2), I64), P((4, 2), I64), P((5, 2), I64)], {},
                                None),
    "SparseSlice": lambda P: ([P((3, 2), I64), P((3,)), P((2,), I64), P((2,), I64),
                              P((2,), I64)], {}, None),
    "SparseSliceGrad": lambda P: ([P((2,)), P((3, 2), I64), P((2,), I64), P((2, 2), I64)], {},
                                  None),
    "SparseReduceSum": lambda P: ([P((3, 2), I64), P((3,)), np.array([4, 5], I64),
                                  np.array([1], I32)], {}, None),
    "SparseConcat": lambda P: ([P((3, 2), I64), P((1, 2), I64), P((3,)), P((1,)), P((2,), I64),
                               P((2,), I64)], {"concat_dim": 1}, [2, 2, 2]),
}
# Ops without outputs (test_debug_sequence_shapes checks their operands' ranks).
_NO_OUTPUT_OPS = {"Assert", "PrintV2"}
# Ops whose inputs are TensorLists (DT_VARIANT, no numpy stand-in): their shape functions
# run in tests/python_runtime/test_tensor_list.py's graphs.
_LIST_INPUT_OPS = {"TensorListGetItem", "TensorListSetItem", "TensorListStack",
                   "TensorListLength", "TensorListElementShape", "TensorListPushBack",
                   "TensorListPopBack", "TensorListGather", "TensorListResize",
                   "TensorListConcatV2", "TensorListScatterIntoExistingList",
                   # (no list input, but the output is one: test_tensor_list_grow.py)
                   "TensorListSplit", "TensorListScatter", "TensorListScatterV2"}


# Resource-variable ops take a DT_RESOURCE handle (no array stands for it); ReadVariableOp's
# shape is the variable's, unknown while the graph is built (tests/python_runtime/test_variables.py checks them).
# The optimizer ops (ResourceApply*) have no outputs (test_training.py runs them).
_RESOURCE_OPS = {"VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
                 "AssignSubVariableOp", "VarIsInitializedOp", "DestroyResourceOp",
                 "ResourceApplyAdagrad", "ResourceApplyAdam", "ResourceApplyGradientDescent",
                 "ResourceApplyKerasMomentum", "ResourceApplyMomentum", "ResourceApplyRMSProp", "DisableCopyOnRead",
                 "ResourceGather", "ResourceScatterAdd", "ResourceScatterSub",
                 "ResourceScatterUpdate", "VariableShape", "ResourceScatterMul",
                 "ResourceScatterDiv", "ResourceScatterMin", "ResourceScatterMax",
                 "ResourceScatterNdUpdate", "ResourceScatterNdAdd", "ResourceScatterNdSub",
                 "ResourceScatterNdMin", "ResourceScatterNdMax", "ResourceGatherNd",
                 "ResourceStridedSliceAssign", "ResourceApplyAdamWithAmsgrad",
                 "ResourceApplyAdagradDA", "ResourceSparseApplyAdagradDA"}
# The TF1 optimizer ops and their sparse forms (test_training_ops_more.py runs them).
# tf.random.Generator's ops: tests/python_runtime/test_random_generator.py
_RESOURCE_OPS |= {"StatefulUniform", "StatefulUniformInt", "StatefulUniformFullInt",
                  "StatefulStandardNormalV2", "StatefulTruncatedNormal", "RngSkip", "RngReadAndSkip"}
_RESOURCE_OPS |= {"ResourceApplyAdaMax", "ResourceApplyAdadelta", "ResourceApplyAdagradV2", "ResourceApplyAddSign", "ResourceApplyCenteredRMSProp", "ResourceApplyFtrl", "ResourceApplyFtrlV2", "ResourceApplyPowerSign", "ResourceApplyProximalAdagrad", "ResourceApplyProximalGradientDescent", "ResourceSparseApplyAdagrad", "ResourceSparseApplyAdagradV2", "ResourceSparseApplyFtrl", "ResourceSparseApplyFtrlV2", "ResourceSparseApplyKerasMomentum", "ResourceSparseApplyMomentum", "ResourceSparseApplyRMSProp", "ResourceSparseApplyAdadelta", "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyProximalAdagrad", "ResourceSparseApplyProximalGradientDescent"}
# TensorArray ops take a DT_RESOURCE handle: tests/python_runtime/test_tensor_array_v3.py
# checks their shapes in graphs.
_TENSOR_ARRAY_OPS = {"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3",
                     "TensorArrayGatherV3", "TensorArrayScatterV3", "TensorArrayConcatV3",
                     "TensorArraySplitV3", "TensorArraySizeV3", "TensorArrayCloseV3",
                     "TensorArrayGradV3", "TensorArrayGradWithShape",
                     # stacks take resource handles too (test_tensor_array_v3.py)
                     "StackV2", "StackPushV2", "StackPopV2", "StackCloseV2"}
# Checkpoint ops: string operands, and RestoreV2's shapes are known only from the file;
# the string ops of the save/restore graphs (run in test_string_ops.py).
_CHECKPOINT_OPS = {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "StringJoin", "ShardedFilename",
                   "ShardedFilespec", "StaticRegexFullMatch"}
# Text preprocessing (string operands) and lookup tables (DT_RESOURCE handles):
# tests/runtime/test_shape_inference_vs_tensorflow.py compares their shape functions with
# TensorFlow's, tests/python_runtime/test_text_ops.py and test_lookup_tables.py run them.
_TEXT_OPS = {"StringLower", "StringUpper", "StringStrip", "StaticRegexReplace", "RegexReplace",
             "StringSplitV2", "StringNGrams", "Substr", "RaggedTensorToTensor", "HashTableV2",
             "MutableHashTableV2", "LookupTableImportV2", "InitializeTableV2",
             "LookupTableInsertV2", "LookupTableFindV2", "LookupTableSizeV2", "LookupTableRemoveV2", "MutableHashTableOfTensorsV2",
             "LookupTableExportV2",
             # the everyday string ops (test_everyday_string_ops.py runs them)
             "StringLength", "StringToNumber", "RegexFullMatch", "ReduceJoin",
             "UnsortedSegmentJoin", "StringSplit", "StringToHashBucket", "EncodeBase64",
             "DecodeBase64", "UnicodeDecode", "UnicodeDecodeWithOffsets", "UnicodeEncode",
             "UnicodeTranscode", "UnicodeScript"}

# String inputs (no numpy placeholder dtype here): the hash-bucket ops keep the input's
# shape, Fingerprint gives [rows, 8] (tests/python_runtime/test_preprocessing_ops.py).
_STRING_INPUT_OPS = {"StringToHashBucketFast", "StringToHashBucketStrong", "Fingerprint",
                     # serialized tf.Example inputs, list(shape) attrs: their shapes are
                     # checked in graphs by tests/python_runtime/test_parse_example.py
                     "ParseExampleV2", "ParseExample", "ParseSingleExample", "ParseTensor",
                     "SerializeTensor",
                     # audio and raw-decoding ops of string operands (test_audio_ops.py,
                     # test_decode_ops.py and test_audio_shapes below)
                     "DecodeWav", "ReadFile", "WriteFile", "DecodeRaw", "DecodePaddedRaw",
                     "DecodeCSV"}


def test_every_builtin_op_has_a_shape_function(infer_shapes):
    """An op without one would leave its outputs unknown; every built-in op (those of
    ops.pbtxt, not ops other tests register) answers."""
    from google.protobuf import text_format

    from opgen import _paths
    from opgen.protos import op_def_pb2
    builtin = text_format.Parse(_paths.bundled_ops_path().read_text(), op_def_pb2.OpList()).op
    assert len(builtin) >= 81
    P = infer_shapes.Partial
    unknown = []
    for op in builtin:
        if op.name in ("NoOp", "Const", "Placeholder", "PlaceholderWithDefault", "ControlTrigger"):
            continue  # no inputs: see test_const_and_no_op
        if op.name in _LIST_INPUT_OPS or op.name in _RESOURCE_OPS or op.name in _CHECKPOINT_OPS \
                or op.name in _TEXT_OPS or op.name in _TENSOR_ARRAY_OPS:
            continue
        if op.name in _STRING_INPUT_OPS or op.name in _NO_OUTPUT_OPS:
            continue
        if op.name in _FUNCTION_CALLS:
            continue  # outputs are what the called function makes: test_function_call_shapes
        if op.name in _CALLS:
            inputs, attrs, arg_sizes = _CALLS[op.name](P)
        else:  # element-wise, unary or binary
            inputs, attrs, arg_sizes = [P((2, 3))] * len(op.input_arg), {}, None
        if infer_shapes(op.name, inputs, attrs, arg_sizes)[0] is None:
            unknown.append(op.name)
    assert unknown == []


def test_audio_shapes(infer_shapes):
    """AudioSpectrogram: [channels, 1 + (samples - window) // stride, 1 + fft / 2] with fft
    the power of two at or above the window; Mfcc: [channels, frames, coefficients];
    EncodeWav: a scalar."""
    P = infer_shapes.Partial
    spec = infer_shapes("AudioSpectrogram", [P((40, 2))], {"window_size": 9, "stride": 4})[0]
    assert spec == (2, 8, 9)
    short = infer_shapes("AudioSpectrogram", [P((5, 3))], {"window_size": 9, "stride": 4})[0]
    assert short == (3, 0, 9)
    mfcc = infer_shapes("Mfcc", [P((2, 3, 129)), np.array(8000, I32)],
                        {"dct_coefficient_count": 7})[0]
    assert mfcc == (2, 3, 7)
    assert infer_shapes("EncodeWav", [P((5, 2)), np.array(8000, I32)], {})[0] == ()


def test_array_family_shapes(infer_shapes):
    """InTopK: one bool per row (rows and targets merged); Upper/LowerBound: values' shape;
    Diag doubles the shape, DiagPart halves it; Bitcast appends or drops the width ratio
    (a last dim that is not it fails, as TensorFlow's "does not match")."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    assert infer_shapes("InTopKV2", [P((None, 5)), P((3,), I32), np.array(1, I32)]) == [(3,)]
    with pytest.raises(Error):
        infer_shapes("InTopKV2", [P((2, 5)), P((3,), I32), np.array(1, I32)])
    assert infer_shapes("LowerBound", [P((2, 9)), P((None, 4))]) == [(None, 4)]
    with pytest.raises(Error):
        infer_shapes("UpperBound", [P((9,)), P((2, 4))])
    assert infer_shapes("Diag", [P((2, None))]) == [(2, None, 2, None)]
    assert infer_shapes("DiagPart", [P((None, 3, 2, None))]) == [(2, 3)]
    for bad in ((2, 3, 2), (2, 3), ()):
        with pytest.raises(Error):
            infer_shapes("DiagPart", [P(bad)])
    assert infer_shapes("Bitcast", [P((2, 3))], {"type": np.dtype(np.uint8)}) == [(2, 3, 4)]
    assert infer_shapes("Bitcast", [P((2, None), np.uint8)], {"type": np.dtype(np.int32)}) == [(2,)]
    with pytest.raises(Error):
        infer_shapes("Bitcast", [P((2, 3), np.uint8)], {"type": np.dtype(np.int32)})
def test_math_family_shapes(infer_shapes):
    """Cross merges a and b and wants a last dim of 3; AccumulateNV2 reports its shape attr
    (TensorFlow's ExplicitShape); ConjugateTranspose is Transpose's."""
    P, S, Error = infer_shapes.Partial, infer_shapes.ShapeAttr, infer_shapes.Error
    assert infer_shapes("Cross", [P((None, 3)), P((4, None))]) == [(4, 3)]
    assert infer_shapes("Cross", [P(None), P(None)]) == [None]
    for a, b in [((2, 4), (2, 4)), ((2, 3), (3, 3)), ((), ())]:
        with pytest.raises(Error):
            infer_shapes("Cross", [P(a), P(b)])
    assert infer_shapes("AccumulateNV2", [P(None)] * 2, {"shape": S((2, None))},
                        arg_sizes=[2]) == [(2, None)]
    assert infer_shapes("ConjugateTranspose", [P((2, 3, 4)), np.array([2, 0, 1], I32)]) == [
        (4, 2, 3)]


def test_debug_sequence_shapes(infer_shapes):
    """EnsureShape merges the input's shape with its attr (known sizes that differ fail);
    LinSpace is [num] for a known num; Unique's y is 1-D of unknown length, idx x's
    length; UniqueV2 keeps x's rank; SparseToDense is output_shape's value; Roll and
    ReverseSequence keep the input's shape; Assert has no outputs."""
    P, S, Error = infer_shapes.Partial, infer_shapes.ShapeAttr, infer_shapes.Error
    assert infer_shapes("EnsureShape", [P((2, None))], {"shape": S((None, 3))}) == [(2, 3)]
    assert infer_shapes("EnsureShape", [P(None)], {"shape": S((None, 3))}) == [(None, 3)]
    with pytest.raises(Error):
        infer_shapes("EnsureShape", [P((2, 4))], {"shape": S((None, 3))})
    with pytest.raises(Error):
        infer_shapes("EnsureShape", [P((2,))], {"shape": S((None, 3))})
    assert infer_shapes("LinSpace", [np.float32(0), np.float32(1), np.array(7, I32)]) == [(7,)]
    assert infer_shapes("LinSpace", [np.float32(0), np.float32(1), P((), I32)]) == [(None,)]
    with pytest.raises(Error):
        infer_shapes("LinSpace", [P((2,)), np.float32(1), np.array(7, I32)])
    assert infer_shapes("Unique", [P((5,))]) == [(None,), (5,)]
    assert infer_shapes("UniqueWithCounts", [P((5,))]) == [(None,), (5,), (None,)]
    with pytest.raises(Error):
        infer_shapes("Unique", [P((5, 2))])
    assert infer_shapes("UniqueV2", [P((5, 2)), np.array([1], np.int64)]) == [(None, None), (None,)]
    assert infer_shapes("ListDiff", [P((5,)), P((2,))]) == [(None,), (None,)]
    assert infer_shapes("SparseToDense", [P((2, 2), I32), np.array([3, 4], I32), P((2,)),
                                          P(())]) == [(3, 4)]
    assert infer_shapes("SparseToDense", [P((2, 2), I32), P((2,), I32), P((2,)),
                                          P(())]) == [(None, None)]
    assert infer_shapes("Roll", [P((2, None)), np.array(1, I32), np.array(0, I32)]) == [(2, None)]
    with pytest.raises(Error):
        infer_shapes("Roll", [P((2, 3)), np.array([1, 2], I32), np.array([0], I32)])
    assert infer_shapes("ReverseSequence", [P((4, 3)), P((3,), np.int64)],
                        {"seq_dim": 0, "batch_dim": 1}) == [(4, 3)]
    with pytest.raises(Error):
        infer_shapes("ReverseSequence", [P((4, 3)), P((4,), np.int64)],
                     {"seq_dim": 0, "batch_dim": 1})
    assert infer_shapes("Assert", [P((), np.bool_), P((2, 3))], {}, [1, 1]) == []
    assert infer_shapes("StringFormat", [P((2, 3))], {}, [1]) == [()]


_FUNCTION_CALLS = ("PartitionedCall", "StatefulPartitionedCall", "If", "StatelessIf", "Case",
                   "StatelessCase", "While", "StatelessWhile")


def test_function_call_shapes(infer_shapes):
    """A call's or a branch's outputs are unknown; a loop variable keeps its rank only
    (its dims may change between iterations)."""
    P = infer_shapes.Partial
    f = {"func": "f"}
    f32, i32 = np.dtype(np.float32), np.dtype(np.int32)
    loop = {"T": [f32, i32], "cond": f, "body": f}
    for op in ("While", "StatelessWhile"):
        assert infer_shapes(op, [P((2, 3)), P((), i32)], loop, [2]) == [(None, None), ()]
        assert infer_shapes(op, [P(None), P((), i32)], loop, [2]) == [None, ()]
    call = {"Tin": [f32], "Tout": [f32], "f": f}
    assert infer_shapes("PartitionedCall", [P((2, 3))], call, [1]) == [None]


def test_pool3d_and_bicubic_backprop_shapes(infer_shapes):
    """MaxPool3DGrad is shaped as orig_input, AvgPool3DGrad as orig_input_shape's value,
    MaxPool3DGradGrad as MaxPool3D's output (which orig_output must fit, and grad must be
    shaped as orig_input); ResizeBicubicGrad as original_image."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    window = {"ksize": [1, 3, 2, 2, 1], "strides": [1, 2, 2, 1, 1], "padding": "VALID"}
    x, y = P((2, 7, 6, 5, 3)), P((2, 3, 3, 4, 3))
    assert infer_shapes("MaxPool3DGrad", [P((2, 7, None, 5, 3)), y, y], window) == [(2, 7, None, 5, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MaxPool3DGrad", [P((7, 6, 5, 3)), y, y], window)
    assert infer_shapes("AvgPool3DGrad", [np.array([2, 7, 6, 5, 3], I32), y], window) == [(2, 7, 6, 5, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("AvgPool3DGrad", [np.array([2, 7, 6, 5], I32), y], window)
    assert infer_shapes("MaxPool3DGradGrad", [x, P((2, None, 3, 4, 3)), x], window) == [(2, 3, 3, 4, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MaxPool3DGradGrad", [x, P((2, 4, 3, 4, 3)), x], window)
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MaxPool3DGradGrad", [x, y, P((2, 7, 6, 4, 3))], window)
    assert infer_shapes("ResizeBicubicGrad", [P((1, 8, 8, 3)), P((1, 4, None, 3))], {}) == [(1, 4, None, 3)]


def test_keras_sweep_ops_shapes(infer_shapes):
    """3-D pooling windows each spatial dim (SAME: ceil(in / stride)); MatrixBandPart keeps
    its input's shape and wants a matrix and scalar band sizes; the resizes take `size`."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    window = {"ksize": [1, 3, 2, 2, 1], "strides": [1, 2, 2, 1, 1]}
    for op in ("MaxPool3D", "AvgPool3D"):
        assert infer_shapes(op, [P((2, 7, 6, 5, 3))], {**window, "padding": "VALID"}) == [(2, 3, 3, 4, 3)]
        assert infer_shapes(op, [P((2, 7, None, 5, 3))], {**window, "padding": "SAME"}) == [
            (2, 4, None, 5, 3)]
        with pytest.raises(ShapeInferenceError):
            infer_shapes(op, [P((2, 7, 6, 3))], {**window, "padding": "VALID"})
    band = [np.array(1, np.int64), np.array(-1, np.int64)]
    assert infer_shapes("MatrixBandPart", [P((4, None, 3))] + band) == [(4, None, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MatrixBandPart", [P((3,))] + band)
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MatrixBandPart", [P((3, 3)), np.array([1], np.int64), band[1]])
    for op in ("ResizeBicubic", "ResizeArea"):
        assert infer_shapes(op, [P((2, 5, 6, 3)), np.array([7, 9], I32)]) == [(2, 7, 9, 3)]
    assert infer_shapes("Bucketize", [P((2, None))], {"boundaries": [0.0]}) == [(2, None)]


def test_scatter_and_segment_shapes(infer_shapes, rng):
    """GatherNd: indices.shape[:-1] + params.shape[K:]; ScatterNd: its shape operand;
    TensorScatter*: the tensor's; the unsorted reductions [num_segments, ...]; the sorted
    and sparse ones an unknown number of rows (the last id + 1)."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    idx = np.array([[[0, 1]], [[2, 0]]], I32)
    expected = check_op(infer_shapes, P, rng, "GatherNd", [arr((3, 2, 5)), idx])
    assert expected == [(2, 1, 5)]
    expected = check_op(infer_shapes, P, rng, "ScatterNd",
                        [np.array([[1], [0]], I32), arr((2, 3)), np.array([4, 3], I32)],
                        values_matter={2})
    assert expected == [(4, 3)]
    expected = check_op(infer_shapes, P, rng, "TensorScatterAdd",
                        [arr((4, 3)), np.array([[1, 2]], I32), arr((1,))])
    assert expected == [(4, 3)]
    expected = check_op(infer_shapes, P, rng, "UnsortedSegmentProd",
                        [arr((4, 3)), np.array([0, 2, 2, 1], I32), np.array(5, I32)],
                        values_matter={2})
    assert expected == [(5, 3)]
    assert infer_shapes("SegmentMax", [P((4, 3)), P((4,), I32)]) == [(None, 3)]
    assert infer_shapes("SparseSegmentMean", [P((4, 3)), P((2,), I32), P((2,), I32)]) == [(None, 3)]
    stitch = [np.array([0, 4], I32), np.array([[2], [1]], I32), P((2, 3)), P((2, 1, 3))]
    assert infer_shapes("DynamicStitch", stitch, arg_sizes=[2, 2]) == [(5, 3)]
    stitch[0] = P((2,), I32)
    assert infer_shapes("DynamicStitch", stitch, arg_sizes=[2, 2]) == [(None, 3)]
    assert infer_shapes("DynamicPartition", [P((4, 3)), P((4,), I32)],
                        {"num_partitions": 2}) == [(None, 3), (None, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("GatherNd", [P((3, 2)), P((1, 3), I32)])
    with pytest.raises(ShapeInferenceError):
        infer_shapes("SegmentSum", [P((4, 3)), P((2, 2), I32)])


def test_preprocessing_ops_shapes(infer_shapes):
    """ScaleAndTranslate takes `size` like the resizes, its gradient the original image's
    shape; Bincount gives [size], DenseBincount [size] or [rows, size] (rank <= 2); the
    string ops keep their input's shape."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    pair = [P((2,)), P((2,))]
    assert infer_shapes("ScaleAndTranslate", [P((2, 5, 6, 3)), np.array([7, 9], I32)] + pair) == [
        (2, 7, 9, 3)]
    assert infer_shapes("ScaleAndTranslate", [P((2, 5, 6, 3)), P((2,), I32)] + pair) == [
        (2, None, None, 3)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("ScaleAndTranslate", [P((5, 6, 3)), np.array([7, 9], I32)] + pair)
    assert infer_shapes("ScaleAndTranslateGrad", [P((2, 7, 9, 3)), P((2, 5, None, 3))] + pair) == [
        (2, 5, None, 3)]
    none = P((0,))
    assert infer_shapes("Bincount", [P((2, 3), I32), np.array(4, I32), none]) == [(4,)]
    assert infer_shapes("Bincount", [P((2, 3), I32), P((), I32), none]) == [(None,)]
    assert infer_shapes("DenseBincount", [P((5,), I32), np.array(4, I32), none]) == [(4,)]
    assert infer_shapes("DenseBincount", [P((None, 3), I32), np.array(4, I32), none]) == [(None, 4)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("DenseBincount", [P((1, 2, 3), I32), np.array(4, I32), none])
    with pytest.raises(ShapeInferenceError):
        infer_shapes("DenseBincount", [P((3,), I32), np.array(-1, I32), none])
    assert infer_shapes("AsString", [P((2, None))]) == [(2, None)]
    ragged = [np.array([0, 2, 2, 5], np.int64), P((5,), I32), np.array(4, I32), none]
    assert infer_shapes("RaggedBincount", ragged) == [(3, 4)]
    sparse = [P((3, 2), np.int64), P((3,), I32), np.array([6, 9], np.int64), np.array(4, I32), none]
    assert infer_shapes("SparseBincount", sparse) == [(6, 4)]
    sparse1 = [P((3, 1), np.int64), P((3,), I32), P((1,), np.int64), np.array(4, I32), none]
    assert infer_shapes("SparseBincount", sparse1) == [(4,)]


def test_issue17_ops_shapes(infer_shapes):
    """Einsum, the splits, OneHot, BroadcastTo, TopKV2, Where and Select (v1): exact
    where the deciding operands are known, partial dims carried through."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    eq = {"equation": "abc,cde->abde"}
    assert infer_shapes("Einsum", [P((None, 5, 8)), P((8, 3, 4))], eq, [2]) == [(None, 5, 3, 4)]
    assert infer_shapes("Einsum", [P((2, 5, 8)), P((8, 3, 4))], eq, [2]) == [(2, 5, 3, 4)]
    assert infer_shapes("Einsum", [P((2, None, 8)), P((8, 7))], {"equation": "...b,bc->...c"},
                        [2]) == [(None, None, 7)]  # broadcast dims unknown with a partial shape
    with pytest.raises(ShapeInferenceError, match="dimension"):
        infer_shapes("Einsum", [P((2, 5, 8)), P((7, 3, 4))], eq, [2])
    with pytest.raises(ShapeInferenceError, match="'->'"):
        infer_shapes("Einsum", [P((2, 3)), P((3, 4))], {"equation": "ab,bc"}, [2])
    assert infer_shapes("Split", [np.array(1, I32), P((2, 6))], {"num_split": 3}) == [(2, 2)] * 3
    assert infer_shapes("SplitV", [P((2, 6)), np.array([1, -1], np.int64), np.array(-1, I32)],
                        {"num_split": 2}) == [(2, 1), (2, 5)]
    with pytest.raises(ShapeInferenceError, match="evenly divide"):
        infer_shapes("Split", [np.array(1, I32), P((2, 5))], {"num_split": 3})
    assert infer_shapes("OneHot", [P((2, None), np.int64), np.array(4, I32), P(()), P(())],
                        {"axis": 1}) == [(2, 4, None)]
    assert infer_shapes("BroadcastTo", [P((1, 3)), np.array([2, 4, 3], I32)]) == [(2, 4, 3)]
    with pytest.raises(ShapeInferenceError, match="broadcast"):
        infer_shapes("BroadcastTo", [P((2, 3)), np.array([4, 3], I32)])
    assert infer_shapes("TopKV2", [P((None, 9)), np.array(4, I32)]) == [(None, 4), (None, 4)]
    assert infer_shapes("Where", [P((2, 3), bool)]) == [(None, 2)]
    assert infer_shapes("Select", [P((4,), bool), P((4, 2)), P((4, None))]) == [(4, 2)]


def test_issue22_backprop_shapes(infer_shapes):
    """The backprops of the convolution, pooling, batch-norm and resize ops: the sizes
    input where its value is known, the forward input's shape otherwise, errors for
    sizes of the wrong length."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    sizes = np.array([3, 3, 2, 8], I32)
    assert infer_shapes("Conv2DBackpropFilter", [P((1, 5, 5, 2)), sizes, P((1, 5, 5, 8))], _WINDOW) == [
        (3, 3, 2, 8)]
    assert infer_shapes("DepthwiseConv2dNativeBackpropInput",
                        [np.array([2, 6, 7, 3], I32), P((3, 3, 3, 2)), P((2, 6, 7, 6))], _WINDOW) == [
        (2, 6, 7, 3)]
    with pytest.raises(ShapeInferenceError, match="filter_sizes"):
        infer_shapes("Conv2DBackpropFilter", [P((1, 5, 5, 2)), np.array([3, 3, 2], I32), P((1, 5, 5, 8))],
                     _WINDOW)
    pool = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
    assert infer_shapes("MaxPoolGrad", [P((None, 4, 6, 3)), P((None, 2, 3, 3)), P((None, 2, 3, 3))],
                        pool) == [(None, 4, 6, 3)]
    assert infer_shapes("MaxPoolGradGrad", [P((None, 4, 6, 3)), P((None, 2, 3, 3)), P((1, 4, 6, 3))],
                        pool) == [(None, 2, 3, 3)]
    with pytest.raises(ShapeInferenceError, match="grad against orig_input"):
        infer_shapes("MaxPoolGradGrad", [P((1, 4, 6, 3)), P((1, 2, 3, 3)), P((1, 4, 5, 3))], pool)
    assert infer_shapes("AvgPoolGrad", [np.array([2, 4, 6, 3], I32), P((2, 2, 3, 3))], pool) == [(2, 4, 6, 3)]
    out = infer_shapes("FusedBatchNormGradV3", [P((2, 5, None, 4)), P((2, 5, 3, None))] + [P((5,))] * 4,
                       {"data_format": "NCHW"})
    assert out == [(2, 5, 3, 4), (5,), (5,), (0,), (0,)]
    with pytest.raises(ShapeInferenceError, match="scale"):
        infer_shapes("FusedBatchNormGrad", [P((2, 2, 2, 4))] * 2 + [P((3,))] * 3, {})
    assert infer_shapes("ResizeBilinearGrad", [P((1, 8, 8, 3)), P((1, 4, None, 3))], {}) == [(1, 4, None, 3)]
    assert infer_shapes("ResizeNearestNeighborGrad", [P((1, 8, 8, 3)), np.array([4, 5], I32)], {}) == [
        (1, 4, 5, 3)]


def test_random_shuffle_keeps_its_input_shape(infer_shapes):
    """TensorFlow's RandomShuffle shape function is the identity's: rows move, the shape
    (unknown dims and rank too) stays."""
    P = infer_shapes.Partial
    assert infer_shapes("RandomShuffle", [P((5, None, 2))]) == [(5, None, 2)]
    assert infer_shapes("RandomShuffle", [P(None)]) == [None]
    assert infer_shapes("RandomShuffle", [P(())]) == [()]


def test_multinomial_is_batch_by_num_samples(infer_shapes):
    """[logits' rows, num_samples' value] (unknown while num_samples is); TensorFlow's
    checks: logits a matrix, num_samples a non-negative scalar."""
    P = infer_shapes.Partial
    assert infer_shapes("Multinomial", [P((2, 5)), np.array(7, I32)]) == [(2, 7)]
    assert infer_shapes("Multinomial", [P((None, 5)), P((), np.dtype(I32))]) == [(None, None)]
    for bad in ([P((2, 5, 1)), np.array(7, I32)], [P((2, 5)), np.array([7], I32)],
                [P((2, 5)), np.array(-1, I32)]):
        with pytest.raises(infer_shapes.Error):
            infer_shapes("Multinomial", bad)


def test_stateless_multinomial_and_shuffle_shapes(infer_shapes):
    """StatelessMultinomial: Multinomial's shape, with a [2] seed; StatelessShuffle keeps
    the value's shape and wants a vector key and counter and a scalar alg."""
    P = infer_shapes.Partial
    seed = np.array([1, 2], np.int64)
    assert infer_shapes("StatelessMultinomial", [P((2, 5)), np.array(7, I32), seed]) == [(2, 7)]
    assert infer_shapes("StatelessMultinomial", [P((None, 5)), P((), np.dtype(I32)), seed]) == [(None, None)]
    for bad in ([P((2, 5)), np.array(7, I32), np.array([1, 2, 3], np.int64)],
                [P((2, 5, 1)), np.array(7, I32), seed]):
        with pytest.raises(infer_shapes.Error):
            infer_shapes("StatelessMultinomial", bad)
    key, counter, alg = np.array([1], np.uint64), np.array([0, 0], np.uint64), np.array(1, I32)
    assert infer_shapes("StatelessShuffle", [P((5, None, 2)), key, counter, alg]) == [(5, None, 2)]
    assert infer_shapes("StatelessShuffle", [P(None), key, counter, alg]) == [None]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("StatelessShuffle", [P((5,)), key, counter, np.array([1], I32)])


def test_fft_shapes(infer_shapes):
    """Complex transforms keep the input's shape (rank >= the transform's); RFFT's inner
    dims are fft_length with the last n / 2 + 1, IRFFT's are fft_length; unknown sizes
    where fft_length is not a constant."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    c64 = np.complex64
    assert infer_shapes("FFT2D", [P((2, None, 4), c64)], {}) == [(2, None, 4)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("FFT3D", [P((3, 4), c64)], {})
    assert infer_shapes("RFFT", [P((2, 9)), np.array([8], I32)], {}) == [(2, 5)]
    assert infer_shapes("RFFT2D", [P((7, 6, 9)), np.array([5, 7], I32)], {}) == [(7, 5, 4)]
    assert infer_shapes("IRFFT3D", [P((1, 3, 4, 5), c64), np.array([2, 3, 8], I32)], {}) == [(1, 2, 3, 8)]
    assert infer_shapes("IRFFT", [P((2, 9), c64), P((1,), I32)], {}) == [(2, None)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("RFFT", [P((2, 9)), np.array([8, 8], I32)], {})


def test_matrix_diag_shapes(infer_shapes):
    """MatrixDiagPartV3: [..., num_diags (a band only), max_len]; MatrixDiagV3 infers the
    smallest square (or given) sizes; MatrixSetDiagV3 keeps the input's shape; L2Loss a
    scalar; unknown where k or the sizes are not constants."""
    P = infer_shapes.Partial
    k = np.array([-1, 2], I32)
    assert infer_shapes("MatrixDiagPartV3", [P((5, 3, 4)), k, np.float32(0)], {}) == [(5, 4, 3)]
    assert infer_shapes("MatrixDiagPartV3", [P((3, None)), np.array(1, I32), np.float32(0)],
                        {}) == [(None,)]
    assert infer_shapes("MatrixDiagPartV3", [P((3, 4)), P((2,), I32), np.float32(0)], {}) == [None]
    assert infer_shapes("MatrixDiagV3", [P((2, 2, 3)), np.array([0, 1], I32), np.array(-1, I32),
                                         np.array(-1, I32), np.float32(0)], {}) == [(2, 3, 3)]
    assert infer_shapes("MatrixDiagV3", [P((3,)), np.array(-2, I32), np.array(-1, I32),
                                         np.array(7, I32), np.float32(0)], {}) == [(5, 7)]
    assert infer_shapes("MatrixSetDiagV3", [P((2, None, 4)), P((2, 3)), np.array(0, I32)],
                        {}) == [(2, None, 4)]
    assert infer_shapes("L2Loss", [P((4, 5))], {}) == [()]


def test_linalg_shapes(infer_shapes):
    """Square inner dims (a known one fills in the other); determinants per matrix; the
    solves' rhs shape, MatrixTriangularSolve's batch dims broadcast."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    assert infer_shapes("MatrixInverse", [P((2, None, 4))], {}) == [(2, 4, 4)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("Cholesky", [P((3, 4))], {})
    assert infer_shapes("LogMatrixDeterminant", [P((5, 3, 3))], {}) == [(5,), (5,)]
    assert infer_shapes("MatrixDeterminant", [P((3, 3))], {}) == [()]
    assert infer_shapes("MatrixSolve", [P((2, 3, 3)), P((2, 3, 5))], {}) == [(2, 3, 5)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MatrixSolve", [P((3, 3)), P((4, 5))], {})
    assert infer_shapes("MatrixTriangularSolve", [P((4, 1, 3, 3)), P((2, 3, 5))], {}) == [(4, 2, 3, 5)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("MatrixTriangularSolve", [P((2, 3, 3)), P((4, 3, 5))], {})
def test_non_max_suppression_shapes(infer_shapes):
    """The selection is a vector of unknown length, or max_output_size rows when padded
    (known from a constant); boxes are [n, 4] with n the scores' length."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    rest = [P(()), P(())]
    assert infer_shapes("NonMaxSuppressionV3", [P((None, 4)), P((7,)), np.array(3, I32)]
                        + rest) == [(None,)]
    assert infer_shapes("NonMaxSuppressionV4", [P((7, 4)), P((7,)), np.array(3, I32)] + rest,
                        {"pad_to_max_output_size": True}) == [(3,), ()]
    assert infer_shapes("NonMaxSuppressionV4", [P((7, 4)), P((7,)), P((), I32)] + rest,
                        {"pad_to_max_output_size": True}) == [(None,), ()]
    assert infer_shapes("NonMaxSuppressionV5", [P((7, 4)), P((7,)), np.array(5, I32)] + rest
                        + [P(())], {"pad_to_max_output_size": True}) == [(5,), (5,), ()]
    assert infer_shapes("NonMaxSuppressionWithOverlaps", [P((None, 6)), P((None,)),
                                                          np.array(3, I32)] + rest) == [(None,)]
    for bad in ([P((7, 3)), P((7,))], [P((7, 4)), P((6,))], [P((7,)), P((7,))]):
        with pytest.raises(ShapeInferenceError):
            infer_shapes("NonMaxSuppressionV3", bad + [np.array(3, I32)] + rest)
    with pytest.raises(ShapeInferenceError):
        infer_shapes("NonMaxSuppressionV4", [P((7, 4)), P((7,)), np.array(-1, I32)] + rest,
                     {"pad_to_max_output_size": True})
    with pytest.raises(ShapeInferenceError):
        infer_shapes("NonMaxSuppressionWithOverlaps", [P((5, 6)), P((5,)), np.array(3, I32)] + rest)


def test_crop_and_resize_shapes(infer_shapes):
    """[num_boxes, crop_height, crop_width, depth], the crop size when it is a constant;
    the image gradient has image_size's shape, the boxes' gradient the boxes'."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    image, boxes, ind = P((2, None, 5, 3)), P((None, 4)), P((6,), I32)
    assert infer_shapes("CropAndResize", [image, boxes, ind, np.array([7, 2], I32)]) == [
        (6, 7, 2, 3)]
    assert infer_shapes("CropAndResize", [image, boxes, ind, P((2,), I32)]) == [
        (6, None, None, 3)]
    for bad in ([image, P((6, 3)), ind], [image, P((6, 4)), P((5,), I32)],
                [P((2, 5, 3)), boxes, ind]):
        with pytest.raises(ShapeInferenceError):
            infer_shapes("CropAndResize", bad + [np.array([7, 2], I32)])
    with pytest.raises(ShapeInferenceError):
        infer_shapes("CropAndResize", [image, boxes, ind, np.array([7, 2, 1], I32)])
    grads = P((6, 3, 2, 3))
    assert infer_shapes("CropAndResizeGradImage", [grads, boxes, ind, np.array([2, 4, 5, 3], I32)],
                        {"T": np.dtype(np.float32)}) == [(2, 4, 5, 3)]
    assert infer_shapes("CropAndResizeGradImage", [grads, boxes, ind, P((4,), I32)],
                        {"T": np.dtype(np.float32)}) == [(None, None, None, None)]
    assert infer_shapes("CropAndResizeGradBoxes", [grads, P((2, 4, 5, 3)), P((6, 4)), ind]) == [
        (6, 4)]


def test_extract_image_patches_shapes(infer_shapes):
    """[batch, out_rows, out_cols, ksize_rows * ksize_cols * depth], rows and columns as a
    dilated window's; unknown when the image's size is."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    attrs = {"ksizes": [1, 2, 3, 1], "strides": [1, 1, 2, 1], "rates": [1, 2, 1, 1]}
    image = [P((2, 5, 6, 3))]
    assert infer_shapes("ExtractImagePatches", image, {**attrs, "padding": "VALID"}) == [
        (2, 3, 2, 18)]
    assert infer_shapes("ExtractImagePatches", image, {**attrs, "padding": "SAME"}) == [
        (2, 5, 3, 18)]
    assert infer_shapes("ExtractImagePatches", [P((None, None, 6, 3))],
                        {**attrs, "padding": "SAME"}) == [(None, None, None, 18)]
    with pytest.raises(ShapeInferenceError):
        infer_shapes("ExtractImagePatches", [P((2, 1, 6, 3))], {**attrs, "padding": "VALID"})
    with pytest.raises(ShapeInferenceError):
        infer_shapes("ExtractImagePatches", [P((2, 5, 6, 3))],
                     {**attrs, "rates": [1, 1, 1, 1, 1], "padding": "VALID"})


def test_combined_non_max_suppression_shapes(infer_shapes):
    P = infer_shapes.Partial
    rest = [P(()), P(())]
    boxes, scores = P((2, 5, 1, 4)), P((None, 5, 3))
    assert infer_shapes("CombinedNonMaxSuppression", [boxes, scores, np.array(2, I32),
                                                      np.array(9, I32)] + rest) == [
        (2, 9, 4), (2, 9), (2, 9), (2,)]
    assert infer_shapes("CombinedNonMaxSuppression", [boxes, scores, np.array(2, I32),
                                                      np.array(9, I32)] + rest,
                        {"pad_per_class": True}) == [(2, 6, 4), (2, 6), (2, 6), (2,)]
    with pytest.raises(infer_shapes.Error):
        infer_shapes("CombinedNonMaxSuppression", [boxes, scores, np.array(2, I32),
                                                   np.array(0, I32)] + rest)


def test_sparse_tensor_shapes(infer_shapes):
    """The SparseTensor ops: entry counts where the inputs fix them, the dense outputs from
    constant shapes (SparseTensorDenseMatMul's adjoints, SparseReduceSum's axes), and
    operands of mismatched entry counts refused."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    a, v = P((3, 2), I64), P((3,))
    assert infer_shapes("SparseReorder", [a, v, P((2,), I64)]) == [(3, 2), (3,)]
    assert infer_shapes("SparseReshape", [a, P((2,), I64), P((4,), I64)]) == [(3, 4), (4,)]
    assert infer_shapes("SparseFillEmptyRows", [a, v, np.array([4, 5], I64), P(())]) == [
        (None, 2), (None,), (4,), (3,)]
    assert infer_shapes("SparseTensorDenseMatMul", [a, v, np.array([4, 5], I64), P((6, 5))],
                        {"adjoint_b": True}) == [(4, 6)]
    assert infer_shapes("SparseTensorDenseMatMul", [a, v, np.array([5, 4], I64), P((5, 6))],
                        {"adjoint_a": True}) == [(4, 6)]
    assert infer_shapes("SparseReduceSum", [a, v, np.array([4, 5], I64), np.array([-1], I32)],
                        {"keep_dims": True}) == [(4, 1)]
    assert infer_shapes("SparseConcat", [a, P((1, 2), I64), v, P((1,)), P((2,), I64),
                                         P((2,), I64)], {"concat_dim": 0}, [2, 2, 2]) == [
        (4, 2), (4,), (2,)]
    assert infer_shapes("SparseSegmentSumWithNumSegments",
                        [P((4, 3)), P((2,), I32), P((2,), I32), np.array(7, I32)]) == [(7, 3)]
    with pytest.raises(Error):
        infer_shapes("SparseReorder", [a, P((4,)), P((2,), I64)])
    with pytest.raises(Error):
        infer_shapes("SparseTensorDenseMatMul", [a, v, np.array([4, 5], I64), P((6, 5))])


def test_decomposition_shapes_as_tensorflow(infer_shapes):
    """Svd, Qr, SelfAdjointEigV2, Lu, MatrixSolveLs: the shapes TensorFlow 2.21's shape
    functions give (a factor an attr turns off is [0])."""
    ShapeInferenceError = infer_shapes.Error
    P = infer_shapes.Partial
    F64 = np.float64
    assert infer_shapes("Svd", [P((4, 5, 3))], {"compute_uv": False}) == [(4, 3), (0,), (0,)]
    assert infer_shapes("Svd", [P((4, 5, 3))], {"full_matrices": True}) == [(4, 3), (4, 5, 5), (4, 3, 3)]
    assert infer_shapes("Svd", [P((4, 3, 5))], {}) == [(4, 3), (4, 3, 3), (4, 5, 3)]
    assert infer_shapes("Svd", [P((4, None, 5))], {}) == [(4, None), (4, None, None), (4, 5, None)]
    assert infer_shapes("Svd", [P((4, None, 5))], {"full_matrices": True}) == [
        (4, None), (4, None, None), (4, 5, 5)]
    assert infer_shapes("Qr", [P((4, 3, 5))], {}) == [(4, 3, 3), (4, 3, 5)]
    assert infer_shapes("Qr", [P((4, 5, 3))], {}) == [(4, 5, 3), (4, 3, 3)]
    assert infer_shapes("Qr", [P((4, None, 3))], {"full_matrices": True}) == [(4, None, None), (4, None, 3)]
    assert infer_shapes("SelfAdjointEigV2", [P((4, None, 3))], {}) == [(4, 3), (4, 3, 3)]
    assert infer_shapes("SelfAdjointEigV2", [P((4, 3, 3))], {"compute_v": False}) == [(4, 3), (0,)]
    assert infer_shapes("Lu", [P((4, None, 3))], {}) == [(4, 3, 3), (4, 3)]
    assert infer_shapes("MatrixSolveLs", [P((None, 5, 3)), P((4, None, 2)), P((), F64)], {}) == [(4, 3, 2)]
    for op, inputs in [("Svd", [P((4,))]), ("Qr", [P((4,))]), ("SelfAdjointEigV2", [P((4, 2, 3))]),
                       ("Lu", [P((4, 2, 3))]),
                       ("MatrixSolveLs", [P((4, 5, 3)), P((4, 6, 2)), P((), F64)]),
                       ("MatrixSolveLs", [P((4, 5, 3)), P((5, 5, 2)), P((), F64)]),
                       ("MatrixSolveLs", [P((4, 5, 3)), P((5, 2)), P((), F64)]),
                       ("MatrixSolveLs", [P((5, 3)), P((5, 2)), P((1,), F64)])]:
        with pytest.raises(ShapeInferenceError):
            infer_shapes(op, inputs, {})


def test_fake_quant_lrn_shapes(infer_shapes):
    """The Vars ops take scalar ranges, the per-channel ones a range per last-dimension
    entry (merged with it); the gradients merge gradients with inputs. LRN is 4-D."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    assert infer_shapes("FakeQuantWithMinMaxArgs", [P((2, None))]) == [(2, None)]
    with pytest.raises(Error):
        infer_shapes("FakeQuantWithMinMaxVars", [P((2, 3)), P((1,)), P(())])
    assert infer_shapes("FakeQuantWithMinMaxVarsPerChannel", [P((2, None)), P((4,)), P((None,))]) == [(2, 4)]
    with pytest.raises(Error):
        infer_shapes("FakeQuantWithMinMaxVarsPerChannel", [P((2, 3)), P((4,)), P((3,))])
    with pytest.raises(Error):
        infer_shapes("FakeQuantWithMinMaxVarsPerChannel", [P(()), P((1,)), P((1,))])
    assert infer_shapes("FakeQuantWithMinMaxArgsGradient", [P((None, 3)), P((2, None))]) == [(2, 3)]
    assert infer_shapes("FakeQuantWithMinMaxVarsGradient", [P((None, 3)), P((2, None)), P(()), P(())]) == \
        [(2, 3), (), ()]
    assert infer_shapes("FakeQuantWithMinMaxVarsPerChannelGradient",
                        [P((None, 3)), P((2, None)), P((None,)), P((3,))]) == [(2, 3), (3,), (3,)]
    with pytest.raises(Error):  # TensorFlow's shape function takes rank 1 to 4
        infer_shapes("FakeQuantWithMinMaxVarsPerChannelGradient", [P((1, 1, 1, 1, 3))] * 2 + [P((3,))] * 2)
    assert infer_shapes("LRN", [P((1, None, 2, 3))]) == [(1, None, 2, 3)]
    with pytest.raises(Error):
        infer_shapes("LRN", [P((2, 3))])
    assert infer_shapes("LRNGrad", [P((1, None, 2, 3)), P((None, 4, 2, 3)), P((1, 4, None, 3))]) == [(1, 4, 2, 3)]
    with pytest.raises(Error):
        infer_shapes("LRNGrad", [P((1, 2, 2, 3)), P((1, 2, 2, 4)), P((1, 2, 2, 3))])


def test_max_pool_variant_shapes(infer_shapes):
    """MaxPoolV2 pools by its constant ksize and strides (unknown sizes otherwise);
    MaxPoolWithArgmax gives the pool twice; MaxPoolGradWithArgmax is shaped as input, its
    grad and argmax as the pool."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    k, s = np.array([1, 3, 2, 1], I32), np.array([1, 2, 2, 1], I32)
    assert infer_shapes("MaxPoolV2", [P((2, 7, 5, 3)), k, s], {"padding": "SAME"}) == [(2, 4, 3, 3)]
    assert infer_shapes("MaxPoolV2", [P((2, 7, 5, 3)), k, s], {"padding": "VALID"}) == [(2, 3, 2, 3)]
    assert infer_shapes("MaxPoolV2", [P((2, 7, 5, 3)), P((4,), I32), s], {"padding": "SAME"}) == \
        [(2, None, None, 3)]
    with pytest.raises(Error):
        infer_shapes("MaxPoolV2", [P((7, 5, 3)), k, s], {"padding": "SAME"})
    window = {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    assert infer_shapes("MaxPoolWithArgmax", [P((2, 7, None, 3))], window) == [(2, 4, None, 3)] * 2
    assert infer_shapes("MaxPoolGradWithArgmax", [P((2, 7, 5, 3)), P((2, 4, 3, 3)), P((2, 4, 3, 3), np.int64)],
                        window) == [(2, 7, 5, 3)]
    with pytest.raises(Error):
        infer_shapes("MaxPoolGradWithArgmax", [P((2, 7, 5, 3)), P((2, 4, 4, 3)), P((2, 4, 3, 3), np.int64)],
                     window)
    assert infer_shapes("MaxPoolGradGradV2", [P((2, 7, 5, 3)), P((2, 4, 3, 3)), P((2, 7, 5, 3)), k, s],
                        {"padding": "SAME"}) == [(2, 4, 3, 3)]


def test_bias_add_v1_shape(infer_shapes):
    P, Error = infer_shapes.Partial, infer_shapes.Error
    assert infer_shapes("BiasAddV1", [P((2, None, None)), P((4,))]) == [(2, None, 4)]
    with pytest.raises(Error):
        infer_shapes("BiasAddV1", [P((2, 3)), P((4,))])
    with pytest.raises(Error):
        infer_shapes("BiasAddV1", [P((3,)), P((3,))])


def test_ctc_shapes(infer_shapes):
    """CTCLoss: loss [batch], gradient shaped as inputs with the batch merged from
    sequence_length; the decoders: per path [n, 2], [n], [2], log_probability [batch,
    paths]; EditDistance: the larger dense shape without its last dim, when both are known."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    loss_in = [P((5, None, 4)), P((None, 2), I64), P((3,), I32), P((2,), I32)]
    assert infer_shapes("CTCLoss", loss_in) == [(2,), (5, 2, 4)]
    with pytest.raises(Error):
        infer_shapes("CTCLoss", [P((5, 3, 4)), P((3, 2), I64), P((3,), I32), P((2,), I32)])
    with pytest.raises(Error):
        infer_shapes("CTCLoss", [P((5, 2, 4)), P((3, 2), I64), P((4,), I32), P((2,), I32)])
    with pytest.raises(Error):
        infer_shapes("CTCLoss", [P((5, 2)), P((3, 2), I64), P((3,), I32), P((2,), I32)])
    assert infer_shapes("CTCGreedyDecoder", [P((5, None, 4)), P((3,), I32)]) == [
        (None, 2), (None,), (2,), (3, 1)]
    assert infer_shapes("CTCBeamSearchDecoder", [P((5, 2, 4)), P((2,), I32)],
                        {"beam_width": 3, "top_paths": 2}) == [
        (None, 2), (None, 2), (None,), (None,), (2,), (2,), (2, 2)]
    with pytest.raises(Error):
        infer_shapes("CTCGreedyDecoder", [P((5, 2, 4)), P((3,), I32)])
    ed = [P((3, 3), I64), P((3,)), np.array([2, 4, 5], I64), P((2, 3), I64), P((2,)),
          np.array([3, 1, 2], I64)]
    assert infer_shapes("EditDistance", ed) == [(3, 4)]
    assert infer_shapes("EditDistance", ed[:5] + [P((3,), I64)]) == [None]
    with pytest.raises(Error):
        infer_shapes("EditDistance", ed[:5] + [np.array([3, 1], I64)])


def test_nth_element_shape(infer_shapes):
    P, Error = infer_shapes.Partial, infer_shapes.Error
    assert infer_shapes("NthElement", [P((2, None, 5)), np.array(4, I32)]) == [(2, None)]
    assert infer_shapes("NthElement", [P((2, 5)), P((), I32)]) == [(2,)]
    with pytest.raises(Error):
        infer_shapes("NthElement", [P((2, 5)), np.array(5, I32)])
    with pytest.raises(Error):
        infer_shapes("NthElement", [P(()), np.array(0, I32)])


def test_dilation2d_shapes(infer_shapes):
    P, Error = infer_shapes.Partial, infer_shapes.Error
    attrs = {"strides": [1, 2, 1, 1], "rates": [1, 1, 2, 1], "padding": "VALID"}
    assert infer_shapes("Dilation2D", [P((2, 7, 6, 3)), P((3, 2, None))], attrs) == [(2, 3, 4, 3)]
    assert infer_shapes("Dilation2D", [P((2, 7, None, 3)), P((3, 2, 3))], {**attrs, "padding": "SAME"}) == \
        [(2, 4, None, 3)]
    with pytest.raises(Error):
        infer_shapes("Dilation2D", [P((2, 7, 6, 3)), P((3, 2, 4))], attrs)
    assert infer_shapes("Dilation2DBackpropFilter", [P((2, 7, 6, 3)), P((3, 2, 3)), P((2, 3, 4, 3))], attrs) == \
        [(3, 2, 3)]


def test_rnn_block_and_batch_norm_global_shapes(infer_shapes):
    """The cells' outputs are [batch, cell] (x's rows, the state's columns); BlockLSTM's
    [time, batch, b / 4]; the gradients are shaped as what they differentiate; TensorFlow
    1's batch norm merges the channel vectors with t's last dimension."""
    P, Error = infer_shapes.Partial, infer_shapes.Error
    assert infer_shapes("LSTMBlockCell", _lstm_cell(P)) == [(2, 4)] * 7
    assert infer_shapes("LSTMBlockCell", [P((None, 5)), P((2, None))] + _lstm_cell(P)[2:]) == [(None, None)] * 7
    assert infer_shapes("LSTMBlockCellGrad", _lstm_cell(P) + [P((2, 4))] * 8,
                        {"use_peephole": True}) == [(2, 4), (2, 16), (4,), (4,), (4,)]
    assert infer_shapes("BlockLSTM", _block_lstm(P)) == [(6, 2, 4)] * 7
    assert infer_shapes("BlockLSTMV2", [P((), np.int64), P((None, 2, 5))] + _lstm_cell(P)[1:]) == [(None, 2, 4)] * 7
    with pytest.raises(Error):  # b's length must divide by 4
        infer_shapes("BlockLSTM", _block_lstm(P)[:-1] + [P((15,))])
    with pytest.raises(Error):
        infer_shapes("BlockLSTM", [P((), np.int64), P((2, 5))] + _lstm_cell(P)[1:])
    assert infer_shapes("BlockLSTMGrad", _block_lstm(P) + [P((6, 2, 4))] * 9, {"use_peephole": True}) == \
        [(6, 2, 5), (2, 4), (2, 4), (9, 16), (4,), (4,), (4,), (16,)]
    assert infer_shapes("GRUBlockCell", _gru_cell(P)) == [(2, 4)] * 4
    assert infer_shapes("GRUBlockCellGrad", _gru_cell(P) + [P((2, 4))] * 4) == [(2, 5), (2, 4), (2, 4), (2, 8)]
    with pytest.raises(Error):  # w_ru's columns must be twice the cell size
        infer_shapes("GRUBlockCellGrad", _gru_cell(P)[:2] + [P((9, 7))] + _gru_cell(P)[3:] + [P((2, 4))] * 4)
    attrs = {"variance_epsilon": 0.001, "scale_after_normalization": False}
    assert infer_shapes("BatchNormWithGlobalNormalization",
                        [P((1, 2, 2, None)), P((3,)), P((None,)), P((3,)), P((3,))], attrs) == [(1, 2, 2, 3)]
    with pytest.raises(Error):
        infer_shapes("BatchNormWithGlobalNormalization", [P((1, 2, 2, 3))] + [P((4,))] * 4, attrs)
    assert infer_shapes("BatchNormWithGlobalNormalizationGrad",
                        [P((1, 2, None, 3)), P((3,)), P((3,)), P((3,)), P((1, None, 2, 3))], attrs) == \
        [(1, 2, 2, 3), (3,), (3,), (3,), (3,)]
