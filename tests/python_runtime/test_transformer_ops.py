"""Einsum equals numpy.einsum: the equations Keras' MultiHeadAttention and EinsumDense
emit, on every dtype the CPU registers (float32/64, half, bfloat16, int32, int64);
transposes, diagonals and traces, sums over a label of one operand, outer products,
broadcasting ellipses; a generated set of random equations; and INVALID_ARGUMENT for
bad equations and shapes, with the messages naming the problem."""

from __future__ import annotations

import numpy as np
import pytest

from kernel_dtypes import FLOAT16S, as_numpy, name
from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")
rng = np.random.default_rng(17)

EINSUM_DTYPES = [np.float32, np.float64] + FLOAT16S + [np.int32, np.int64]


def operand(shape, dtype):
    if np.issubdtype(np.dtype(dtype), np.integer):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def einsum(equation, *inputs):
    return as_numpy(ops.einsum(list(inputs), equation=equation))


def reference(equation, *inputs):
    """numpy's einsum, in float64 for floats (then rounded once to the dtype), as the
    kernels accumulate in float (float32 GEMMs for half and bfloat16)."""
    dtype = inputs[0].dtype
    wide = [x.astype(np.float64) if not np.issubdtype(dtype, np.integer) else x for x in inputs]
    return np.einsum(equation, *wide).astype(dtype)


def check(equation, *inputs, products=1):
    got = einsum(equation, *inputs)
    want = reference(equation, *inputs)
    assert got.dtype == want.dtype and got.shape == want.shape, (equation, got.shape, want.shape)
    dtype = np.dtype(want.dtype)
    if np.issubdtype(dtype, np.integer):
        np.testing.assert_array_equal(got, want, err_msg=equation)
        return
    scale = np.sqrt(max(products, 1))
    tol = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}.get(dtype, 1.6e-2)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                               rtol=tol, atol=tol * scale, err_msg=equation)


# (equation, shapes, products per output element): MultiHeadAttention's projections and
# attention products, EinsumDense's.
KERAS = [
    ("abc,cde->abde", [(2, 5, 8), (8, 3, 4)], 8),       # query/key/value projection
    ("aecd,abcd->acbe", [(2, 6, 3, 4), (2, 5, 3, 4)], 4),  # attention scores
    ("acbe,aecd->abcd", [(2, 3, 5, 6), (2, 6, 3, 4)], 6),  # scores @ values
    ("abcd,cde->abe", [(2, 5, 3, 4), (3, 4, 8)], 12),   # output projection
    ("ab,bc->ac", [(4, 6), (6, 5)], 6),
    ("abc,cd->abd", [(2, 3, 6), (6, 5)], 6),
    ("...b,bc->...c", [(2, 3, 6), (6, 5)], 6),
    ("...b,bc->...c", [(6,), (6, 5)], 6),
]


@pytest.mark.parametrize("dtype", EINSUM_DTYPES, ids=name)
@pytest.mark.parametrize("equation, shapes, products", KERAS, ids=[k[0] for k in KERAS])
def test_keras_equations(dtype, equation, shapes, products):
    check(equation, *[operand(s, dtype) for s in shapes], products=products)


def test_keras_attention_at_model_size():
    """BERT-base-like shapes (batch 2, 128 tokens, 12 heads of 64): the GEMM path."""
    q = operand((2, 128, 12, 64), np.float32)
    k = operand((2, 128, 12, 64), np.float32)
    scores = einsum("aecd,abcd->acbe", k, q)
    np.testing.assert_allclose(scores, np.einsum("aecd,abcd->acbe", k, q), rtol=1e-4, atol=1e-4)
    w = operand((768, 12, 64), np.float32)
    x = operand((2, 128, 768), np.float32)
    np.testing.assert_allclose(einsum("abc,cde->abde", x, w), np.einsum("abc,cde->abde", x, w),
                               rtol=1e-4, atol=1e-4)


GENERAL = [
    ("ij->ji", [(3, 4)]),
    ("abc->cab", [(2, 3, 4)]),
    ("abc->abc", [(2, 3, 4)]),
    ("ii->i", [(4, 4)]),          # a diagonal (TensorFlow computes it too)
    ("ii->", [(4, 4)]),           # a trace
    ("iij->ij", [(3, 3, 2)]),
    ("ij->i", [(3, 5)]),          # a sum over a label of the only operand
    ("ij->", [(3, 5)]),
    ("...ij->...ji", [(2, 3, 4, 5)]),
    ("i,j->ij", [(3,), (4,)]),    # outer products
    ("ab,cd->abcd", [(2, 3), (4, 2)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),   # element-wise (batch labels only)
    ("ij,ij->", [(3, 4), (3, 4)]),     # a dot product
    ("i,i->", [(7,), (7,)]),
    ("bij,bjk->bik", [(3, 2, 4), (3, 4, 5)]),
    ("bij,bkj->bik", [(3, 2, 4), (3, 5, 4)]),
    ("abc,bd->ad", [(2, 3, 4), (3, 5)]),    # c is summed within the first operand
    ("ij,jk->k", [(3, 4), (4, 5)]),         # i likewise
    ("ij,kl->", [(2, 3), (4, 5)]),
    ("ji,jk->ik", [(4, 3), (4, 5)]),        # a transposed operand, read as one
    ("ij,kj->ki", [(3, 4), (5, 4)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),  # broadcast batch dims
    ("...ij,jk->...ik", [(3, 4), (4, 2)]),              # an empty ellipsis
    ("i...,i...->...", [(3, 2, 2), (3, 1, 2)]),
    ("aB,Bc->ac", [(2, 3), (3, 4)]),                    # upper-case labels
    ("ij,jk->ik", [(0, 3), (3, 4)]),                    # empty operands
    ("ij,jk->ik", [(2, 0), (0, 4)]),                    # an empty contraction: zeros
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32] + FLOAT16S, ids=name)
@pytest.mark.parametrize("equation, shapes", GENERAL, ids=[g[0] for g in GENERAL])
def test_general_equations(dtype, equation, shapes):
    check(equation, *[operand(s, dtype) for s in shapes], products=8)


def random_equation(r):
    """Two operands over labels a..f (sometimes a label twice in one operand), sizes 1-4,
    an output of distinct labels in random order."""
    labels = list("abcdef")
    sizes = {l: int(r.integers(1, 5)) for l in labels}
    ops_labels = []
    for _ in range(int(r.integers(1, 3))):
        n = int(r.integers(1, 5))
        picked = list(r.choice(labels, size=n, replace=False))
        if r.random() < 0.15:
            picked.append(picked[0])  # a diagonal
            r.shuffle(picked)
        ops_labels.append("".join(picked))
    used = sorted(set("".join(ops_labels)))
    out = [l for l in used if r.random() < 0.5]
    r.shuffle(out)
    equation = ",".join(ops_labels) + "->" + "".join(out)
    shapes = [tuple(sizes[l] for l in o) for o in ops_labels]
    return equation, shapes


def test_generated_equations_match_numpy():
    r = np.random.default_rng(2026)
    for _ in range(150):
        equation, shapes = random_equation(r)
        inputs = [r.uniform(-1, 1, size=s) for s in shapes]
        got = einsum(equation, *inputs)
        np.testing.assert_allclose(got, np.einsum(equation, *inputs), rtol=1e-12, atol=1e-12,
                                   err_msg=equation)
        f32 = [x.astype(np.float32) for x in inputs]
        np.testing.assert_allclose(einsum(equation, *f32), np.einsum(equation, *inputs),
                                   rtol=1e-5, atol=1e-5, err_msg=equation)


def test_repeated_calls_with_other_shapes_replan():
    """The kernel caches its plan by shapes: new shapes give new, right answers."""
    for shape in [(2, 3, 4), (5, 3, 4), (2, 3, 4)]:
        x = operand(shape, np.float32)
        w = operand((4, 6), np.float32)
        check("abc,cd->abd", x, w, products=4)


BAD = [
    ("ij,jk", [(2, 3), (3, 4)], "'->'"),
    ("ij->i->j", [(2, 3)], "'->'"),
    ("ij,jk->ik", [(2, 3), (4, 4)], "dimension"),           # mismatched contraction
    ("ijk,jk->ik", [(2, 3), (3, 4)], "rank"),               # rank against subscripts
    ("ij,jk->il", [(2, 3), (3, 4)], "'l'"),                 # output label in no input
    ("ij,jk->iik", [(2, 3), (3, 4)], "repeats"),
    ("i j,jk->ik", [(2, 3), (3, 4)], "invalid character"),
    ("i.j,jk->ik", [(2, 3), (3, 4)], "'.'"),
    ("...ij,jk->ik", [(2, 2, 3), (3, 4)], "ellipsis"),      # broadcast dims without '...' out
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 3, 4)], "dimension"),  # batch 2 vs 3
    ("ii->i", [(2, 3)], "dimension"),                       # a diagonal of unequal sides
    ("ij,jk->ik", [(2, 3)], "input subscripts"),            # one input, two subscripts
]


@pytest.mark.parametrize("equation, shapes, phrase", BAD, ids=[b[0] for b in BAD])
def test_bad_equations_and_shapes_are_invalid_argument(equation, shapes, phrase):
    with pytest.raises(errors.InvalidArgumentError, match=None) as info:
        einsum(equation, *[np.ones(s, np.float32) for s in shapes])
    assert phrase in str(info.value), str(info.value)


def test_three_operands_are_refused_as_tensorflow_does():
    with pytest.raises(errors.InvalidArgumentError, match="1 or 2 input subscripts"):
        einsum("ij,jk,kl->il", *[np.ones((2, 2), np.float32)] * 3)
