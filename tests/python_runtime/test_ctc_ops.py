"""The CTC ops and EditDistance against TensorFlow 2.21 (tests/tf_reference.py; skipped
without it): CTCLoss's loss and gradient outputs (repeated labels, labels of blanks only,
the collapse / merge / ignore-longer attrs, float and double), the greedy and beam-search
decoders (top_paths > 1, merge_repeated, blank_index), EditDistance (normalize, empty
truths and hypotheses, rank 3, strings), TensorFlow's errors for bad operands, and the
gradient of tf.nn.ctc_loss taken by opgen.GradientTape and by opgen.gradients, and a
SavedModel of a CTC head TensorFlow wrote."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops, saved_model
from opgen.protos import op_def_pb2
from opgen.runtime import _lib, errors
from nn_extra_reference import Case, check, run_tensorflow
from tf_reference import run_tf, run_tf_script, tf_python

RNG = np.random.default_rng(20261208)


def logits(t, b, c, dtype=np.float32):
    return (RNG.standard_normal((t, b, c)) * 2).astype(dtype)


def sparse_labels(seqs):
    """labels_indices [n, 2] and labels_values [n] of one label list per batch entry."""
    idx = [[b, i] for b, s in enumerate(seqs) for i in range(len(s))]
    vals = [v for s in seqs for v in s]
    return np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int32)


def loss_case(cid, x, seqs, lengths, **attrs):
    ind, val = sparse_labels(seqs)
    return Case(cid, "CTCLoss", {"inputs": x, "labels_indices": ind, "labels_values": val,
                                 "sequence_length": np.array(lengths, np.int32)}, attrs)


def random_seqs(batch, classes, longest):
    return [list(RNG.integers(0, classes - 1, RNG.integers(1, longest + 1))) for _ in range(batch)]


LOSS_CASES = [
    loss_case("random", logits(10, 4, 6), random_seqs(4, 6, 4), [10, 8, 6, 9]),
    # repeated labels need a blank between them unless merging is off
    loss_case("repeats", logits(8, 3, 4), [[1, 1, 2], [0, 0, 0], [2, 1, 1]], [8, 7, 8]),
    loss_case("repeats_collapsed", logits(8, 3, 4), [[1, 1, 2], [0, 0, 0], [2, 1, 1]], [8, 7, 8],
              preprocess_collapse_repeated=True),
    loss_case("repeats_unmerged", logits(8, 3, 4), [[1, 1, 2], [0, 0, 0], [2, 1, 1]], [8, 7, 8],
              ctc_merge_repeated=False),
    loss_case("collapsed_unmerged", logits(8, 3, 4), [[1, 1, 2], [0, 0, 0], [2, 2, 1]], [8, 7, 8],
              preprocess_collapse_repeated=True, ctc_merge_repeated=False),
    # no alignment fits: an infinite loss, the softmax as gradient
    loss_case("no_path", logits(4, 2, 5), [[1, 1, 1, 1], [2]], [4, 3]),
    loss_case("as_long_as_input", logits(5, 2, 5), [[1, 2, 3, 0, 1], [2, 0]], [5, 3]),
    # labels of blanks (or larger) only: TensorFlow's result (not one step: TensorFlow
    # writes outside its buffers then)
    loss_case("blank_labels", logits(6, 3, 5), [[4], [4, 4], [7]], [6, 5, 2]),
    loss_case("ignore_longer", logits(6, 3, 5), [[1, 2, 3, 0], [2], [1, 3]], [3, 6, 0],
              ignore_longer_outputs_than_inputs=True),
    loss_case("double", logits(9, 3, 7, np.float64), random_seqs(3, 7, 4), [9, 5, 7]),
    loss_case("double_repeats", logits(7, 2, 4, np.float64), [[1, 1], [2, 2, 2]], [7, 7],
              ctc_merge_repeated=False),
    loss_case("one_step", logits(1, 2, 3), [[1], [0]], [1, 1]),
]


def greedy_case(cid, x, lengths, **attrs):
    return Case(cid, "CTCGreedyDecoder",
                {"inputs": x, "sequence_length": np.array(lengths, np.int32)}, attrs)


def beam_case(cid, x, lengths, **attrs):
    return Case(cid, "CTCBeamSearchDecoder",
                {"inputs": x, "sequence_length": np.array(lengths, np.int32)}, attrs)


# Few classes and steps make repeats and blanks frequent.
DECODER_CASES = [
    greedy_case("greedy", logits(12, 4, 4), [12, 5, 0, 9]),
    greedy_case("greedy_merged", logits(12, 4, 3), [12, 10, 11, 1], merge_repeated=True),
    greedy_case("greedy_blank0", logits(10, 3, 4), [10, 4, 7], blank_index=0, merge_repeated=True),
    greedy_case("greedy_blank_neg", logits(10, 3, 4), [10, 4, 7], blank_index=-3),
    greedy_case("greedy_double", logits(8, 2, 5, np.float64), [8, 3]),
    greedy_case("greedy_negative_length", logits(4, 2, 5), [-1, 3]),
    beam_case("beam", logits(10, 3, 5), [10, 7, 4], beam_width=4, top_paths=3),
    beam_case("beam_unmerged", logits(10, 3, 3), [10, 9, 6], beam_width=5, top_paths=2,
              merge_repeated=False),
    beam_case("beam_merged", logits(10, 3, 3), [10, 9, 6], beam_width=5, top_paths=2),
    beam_case("beam_narrow", logits(12, 2, 6), [12, 11], beam_width=1, top_paths=1),
    beam_case("beam_wide", logits(8, 2, 4), [8, 6], beam_width=16, top_paths=4),
    beam_case("beam_double", logits(9, 2, 5, np.float64), [9, 5], beam_width=3, top_paths=3),
    beam_case("beam_empty_length", logits(4, 2, 5), [0, 4], beam_width=3, top_paths=1),
]


def sparse(rows, shape, dtype=np.int64):
    """A SparseTensor's three parts from {index tuple: value} in row-major order."""
    keys = sorted(rows)
    ind = np.array(keys, np.int64).reshape(-1, len(shape))
    vals = np.array([rows[k] for k in keys], dtype) if keys else np.zeros((0,), dtype)
    return ind, vals, np.array(shape, np.int64)


def ed_case(cid, hyp, truth, **attrs):
    h, t = hyp, truth
    return Case(cid, "EditDistance", {
        "hypothesis_indices": h[0], "hypothesis_values": h[1], "hypothesis_shape": h[2],
        "truth_indices": t[0], "truth_values": t[1], "truth_shape": t[2]}, attrs)


def seq_rows(seqs, extra=()):
    return {(*extra, b, i): v for b, s in enumerate(seqs) for i, v in enumerate(s)}


EDIT_CASES = [
    ed_case("ed", sparse(seq_rows([[1, 2, 3], [4], [5, 5]]), [3, 3]),
            sparse(seq_rows([[1, 3], [4, 4, 1], [5]]), [3, 3])),
    ed_case("ed_raw", sparse(seq_rows([[1, 2, 3], [4], [5, 5]]), [3, 3]),
            sparse(seq_rows([[1, 3], [4, 4, 1], [5]]), [3, 3]), normalize=False),
    # entry 1 has no truth (infinity normalized), entry 2 no hypothesis, entry 3 neither
    ed_case("ed_empty", sparse({(0, 0): 1, (1, 0): 2, (1, 1): 3}, [4, 2]),
            sparse({(0, 0): 1, (2, 0): 7}, [4, 2])),
    ed_case("ed_empty_raw", sparse({(0, 0): 1, (1, 0): 2, (1, 1): 3}, [4, 2]),
            sparse({(0, 0): 1, (2, 0): 7}, [4, 2]), normalize=False),
    ed_case("ed_no_truth", sparse({(0, 1): 1, (1, 0): 2}, [2, 2]), sparse({}, [2, 2])),
    ed_case("ed_rank3", sparse({(0, 0, 0): 1, (0, 0, 1): 2, (1, 1, 0): 3}, [2, 2, 2]),
            sparse({(0, 0, 0): 1, (0, 1, 0): 2, (1, 1, 1): 3}, [2, 3, 2])),
    ed_case("ed_float", sparse(seq_rows([[0.5, 1.5], [2.0]]), [2, 2], np.float32),
            sparse(seq_rows([[0.5, 2.5], [2.0]]), [2, 2], np.float32)),
    ed_case("ed_string", sparse(seq_rows([["a", "bc"], ["d"]]), [2, 2], np.str_),
            sparse(seq_rows([["a", "b"], ["d", "e"]]), [2, 2], np.str_)),
    ed_case("ed_bool", sparse(seq_rows([[True, False, True]]), [1, 3], np.bool_),
            sparse(seq_rows([[False, True]]), [1, 2], np.bool_), normalize=False),
]

_X = logits(4, 2, 5)
_ind, _val = sparse_labels([[1, 2], [3]])
_LEN = np.int32([4, 3])


def _loss_err(cid, ind=_ind, val=_val, lengths=_LEN, x=_X, **attrs):
    return Case(cid, "CTCLoss", {"inputs": x, "labels_indices": ind, "labels_values": val,
                                 "sequence_length": np.asarray(lengths, np.int32)}, attrs)


ERROR_CASES = [
    _loss_err("err_empty_label", *sparse_labels([[1], []])),
    _loss_err("err_too_long", *sparse_labels([[1, 2, 3], [1]]), lengths=[2, 3]),
    _loss_err("err_length_past_time", lengths=[5, 3]),
    _loss_err("err_negative_length", lengths=[-1, 3]),
    _loss_err("err_batch_mismatch", lengths=[4, 3, 2]),
    _loss_err("err_label_after_blank", *sparse_labels([[4, 1], [2]])),
    _loss_err("err_negative_label", *sparse_labels([[-1], [2]])),
    _loss_err("err_unsorted", np.int64([[1, 0], [0, 0]]), np.int32([1, 2])),
    _loss_err("err_repeated_index", np.int64([[0, 0], [0, 0]]), np.int32([1, 2])),
    _loss_err("err_batch_index", np.int64([[0, 0], [2, 0]]), np.int32([1, 2])),
    _loss_err("err_index_columns", np.zeros((2, 1), np.int64), np.int32([1, 2])),
    _loss_err("err_rows", _ind, np.int32([1, 2, 3, 4])),
    _loss_err("err_rank", x=_X[0]),
    _loss_err("err_no_time", x=np.zeros((0, 2, 5), np.float32)),
    _loss_err("err_no_batch", np.zeros((0, 2), np.int64), np.zeros(0, np.int32), [],
              x=np.zeros((4, 0, 5), np.float32)),
    greedy_case("err_greedy_blank", _X, _LEN, blank_index=5),
    greedy_case("err_greedy_length", _X, [5, 3]),
    greedy_case("err_greedy_batch", _X, [4]),
    greedy_case("err_greedy_empty", np.zeros((0, 2, 5), np.float32), [0, 0]),
    beam_case("err_beam_paths", _X, _LEN, beam_width=2, top_paths=3),
    beam_case("err_beam_leaves", _X, [0, 3], beam_width=3, top_paths=2),
    beam_case("err_beam_length", _X, [5, 3], beam_width=3, top_paths=1),
    ed_case("err_ed_rank1", (np.zeros((1, 1), np.int64), np.int64([1]), np.int64([2])),
            (np.zeros((1, 1), np.int64), np.int64([1]), np.int64([2]))),
    ed_case("err_ed_ranks", sparse({(0, 0): 1}, [2, 2]), sparse({(0, 0, 0): 1}, [2, 2, 2])),
    ed_case("err_ed_no_output", sparse({}, [0, 2]), sparse({}, [0, 3])),
    ed_case("err_ed_negative_shape", sparse({(0, 0): 1}, [-2, 2]), sparse({(0, 0): 1}, [2, 2])),
    ed_case("err_ed_outside", sparse({(5, 0): 1}, [2, 2]), sparse({(0, 0): 1}, [2, 2])),
    ed_case("err_ed_values", (np.int64([[0, 0]]), np.int64([1, 2]), np.int64([2, 2])),
            sparse({(0, 0): 1}, [2, 2])),
    ed_case("err_ed_overflow", sparse({(0, 0): 1}, [2 ** 40, 2 ** 40]), sparse({(0, 0): 1}, [2, 2])),
]

ALL_CASES = LOSS_CASES + DECODER_CASES + EDIT_CASES + ERROR_CASES


@pytest.fixture(scope="module")
def tf_out():
    return run_tensorflow(ALL_CASES)


@pytest.mark.parametrize("case", LOSS_CASES, ids=lambda c: c.id)
def test_ctc_loss_and_gradient_output_match_tensorflow(case, tf_out):
    assert case.id + ":error" not in tf_out
    check(case, tf_out, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", DECODER_CASES, ids=lambda c: c.id)
def test_decoders_match_tensorflow(case, tf_out):
    assert case.id + ":error" not in tf_out
    check(case, tf_out, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("case", EDIT_CASES, ids=lambda c: c.id)
def test_edit_distance_matches_tensorflow(case, tf_out):
    assert case.id + ":error" not in tf_out
    check(case, tf_out, rtol=0, atol=0)


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.id)
def test_bad_operands_fail_as_in_tensorflow(case, tf_out):
    assert case.id + ":error" in tf_out
    check(case, tf_out)


def test_error_codes():
    # TensorFlow's decoders report mismatched lengths as failed preconditions; the
    # loss and EditDistance as invalid arguments (an index outside the output: internal).
    with pytest.raises(errors.FailedPreconditionError):
        ops.ctc_greedy_decoder(_X, np.int32([5, 3]))
    with pytest.raises(errors.InvalidArgumentError):
        ops.ctc_loss(_X, _ind, _val, np.int32([5, 3]))
    with pytest.raises(errors.InternalError):
        ops.edit_distance(*sparse({(5, 0): 1}, [2, 2]), *sparse({(0, 0): 1}, [2, 2]))


def test_classes_zero_is_refused():
    # TensorFlow's kernel reads outside its buffers here; opgen refuses.
    with pytest.raises(errors.InvalidArgumentError, match="num_classes must be at least 1"):
        ops.ctc_loss(np.zeros((4, 2, 0), np.float32), _ind, _val, _LEN)


def test_ctc_loss_v2_has_no_kernel_and_the_same_gradient_function():
    # TensorFlow's CPU builds register CTCLossV2's OpDef (its kernel is cuDNN's) and its
    # gradient; opgen does the same: running it fails for want of a kernel.
    op_list = op_def_pb2.OpList.FromString(_lib.all_op_list_bytes())
    assert "CTCLossV2" in {op.name for op in op_list.op}
    with pytest.raises(errors.OpError):
        ops.ctc_loss_v2(_X, _ind, _val, _LEN)
    g = opgen.Graph()
    with g.as_default():
        x = ops.placeholder(opgen.float32, shape=[4, 2, 5])
        loss, _ = ops.ctc_loss_v2(x, _ind, _val, _LEN)
        (dx,) = opgen.gradients(loss, x)
        assert dx.op.type == "Mul"


# tf.nn.ctc_loss (time-major logits, sparse labels, blank last) and its gradient,
# weighted per entry, on the tape; also the second derivative's refusal in a graph.
TF_NN_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import numpy as np
    import tensorflow as tf

    a = dict(np.load(sys.argv[1]))
    x = tf.constant(a["x"])
    labels = tf.SparseTensor(a["ind"], a["val"], a["shape"])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.nn.ctc_loss(labels, x, label_length=None, logit_length=a["len"],
                              logits_time_major=True, blank_index=-1)
        total = tf.reduce_sum(loss * a["w"])
    out = {"loss": loss.numpy(), "grad": tape.gradient(total, x).numpy()}

    @tf.function
    def second(x):
        loss = tf.nn.ctc_loss(labels, x, None, a["len"], logits_time_major=True, blank_index=-1)
        (g,) = tf.gradients(tf.reduce_sum(loss), x)
        return tf.gradients(tf.reduce_sum(g), x)
    try:
        second.get_concrete_function(tf.TensorSpec(a["x"].shape, tf.float32))
        out["second"] = np.array("")
    except LookupError as e:
        out["second"] = np.array(str(e))
    np.savez(sys.argv[2], **out)
""")


def test_ctc_loss_gradient_matches_tensorflow():
    x = logits(9, 3, 6)
    ind, val = sparse_labels([[1, 1, 2], [4, 0], [3]])
    arrays = {"x": x, "ind": ind, "val": val, "shape": np.int64([3, 3]),
              "len": np.int32([9, 6, 4]), "w": np.float32([1.0, -0.5, 2.0])}
    want = run_tf_script(TF_NN_SCRIPT, arrays)
    # the tape, eagerly
    xt = opgen.constant(x)
    with opgen.GradientTape() as tape:
        tape.watch(xt)
        loss, _ = ops.ctc_loss(xt, ind, val, arrays["len"])
        total = ops.sum(ops.mul(loss, arrays["w"]), np.int32(0))
    np.testing.assert_allclose(loss.numpy(), want["loss"], rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(tape.gradient(total, xt).numpy(), want["grad"], rtol=2e-5, atol=2e-6)
    # opgen.gradients in a graph; the second derivative fails with TensorFlow's message
    g = opgen.Graph()
    with g.as_default():
        xp = ops.placeholder(opgen.float32, shape=list(x.shape))
        loss, _ = ops.ctc_loss(xp, ind, val, arrays["len"])
        (dx,) = opgen.gradients(ops.sum(ops.mul(loss, arrays["w"]), np.int32(0)), xp)
        assert str(want["second"]), "TensorFlow took a second derivative"
        with pytest.raises(LookupError) as info:
            opgen.gradients(ops.sum(dx, np.int32([0, 1, 2])), xp)
        # (TensorFlow's graph message shows the reason as a bytes literal)
        assert str(info.value).split("Reason: ")[1] in str(want["second"])
    with opgen.Session(g) as sess:
        np.testing.assert_allclose(sess.run(dx, {xp: x}), want["grad"], rtol=2e-5, atol=2e-6)


MODEL_SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "ctc_model" / "make_ctc_model.py"


@pytest.mark.usefixtures("runtime_lib")
def test_ctc_saved_model_gives_tensorflows_outputs(tmp_path):
    """A SavedModel TensorFlow wrote (tf.nn.ctc_loss over sparse labels made from dense
    ones, both decoders, tf.edit_distance) loads and runs in opgen with its outputs."""
    tf_python()
    run_tf([MODEL_SCRIPT, tmp_path], cwd=tmp_path)
    with np.load(tmp_path / "io.npz") as io:
        io = dict(io)
    with saved_model.load(tmp_path / "model") as model:
        got = model.signatures["serving_default"](
            logits=io["logits"], labels=io["labels"], lengths=io["lengths"])
    assert set(got) == {"loss", "greedy", "beam0", "beam_lp", "cer"}
    for key in ("greedy", "beam0", "cer"):
        np.testing.assert_array_equal(np.asarray(got[key]), io[key], err_msg=key)
    for key in ("loss", "beam_lp"):
        np.testing.assert_allclose(np.asarray(got[key]), io[key], rtol=2e-6, err_msg=key)
