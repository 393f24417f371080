"""The fused RNN cells of TensorFlow 1 (LSTMBlockCell, BlockLSTM, BlockLSTMV2, GRUBlockCell),
their gradient ops and the gradients registered for BlockLSTM(V2), against TensorFlow 2.21
(its own interpreter, tests/tf_reference.py; skipped without it): every output over
peepholes, cell clips, forget biases, seq_len_max short of the time dimension, half and
float; the gradients through opgen.GradientTape and opgen.gradients; TensorFlow's messages
for bad inputs; and a TF1-style graph with BlockLSTM that TensorFlow wrote."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf_script

pytestmark = pytest.mark.usefixtures("runtime_lib")

rng = np.random.default_rng(7117)
f32, f16 = np.float32, np.float16
B, I, C, T = 3, 5, 4, 6  # batch, input size, cell size, time steps

# Run by TensorFlow's interpreter: each case is a raw op's outputs, or the gradients of the
# outputs named in "outs" (weighted by the arrays dy<k>) with respect to the inputs "wrt".
TF_SCRIPT = textwrap.dedent("""
    import json, os, sys
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf

    spec, arrays, out = json.load(open(sys.argv[1])), dict(np.load(sys.argv[2])), {}
    for case in spec:
        cid = case["id"]
        inputs = {k: tf.constant(arrays[cid + ":" + k]) for k in case["inputs"]}
        op = getattr(tf.raw_ops, case["op"])
        try:
            if case.get("grad_op"):
                # TensorFlow's tape would take BlockLSTMV2 through the V1 gradient op, which
                # reads V2's gates in the wrong order; its own BlockLSTMGradV2 is the reference.
                y = op(**inputs, **case["attrs"])
                dys = [tf.constant(arrays[cid + ":dy" + str(k)]) for k in range(len(case["outs"]))]
                results = list(getattr(tf.raw_ops, case["grad_op"])(
                    **inputs, i=y[0], cs=y[1], f=y[2], o=y[3], ci=y[4], co=y[5], h=y[6],
                    cs_grad=dys[0], h_grad=dys[1], use_peephole=case["attrs"].get("use_peephole", False)))
            elif case["wrt"]:
                with tf.GradientTape() as tape:
                    for k in case["wrt"]:
                        tape.watch(inputs[k])
                    y = op(**inputs, **case["attrs"])
                dys = [tf.constant(arrays[cid + ":dy" + str(k)]) for k in range(len(case["outs"]))]
                results = tape.gradient([y[k] for k in case["outs"]],
                                        [inputs[k] for k in case["wrt"]], output_gradients=dys)
            else:
                y = op(**inputs, **case["attrs"])
                results = list(y) if isinstance(y, (list, tuple)) else [y]
            for i, r in enumerate(results):
                out[cid + ":" + str(i)] = r.numpy()
        except (tf.errors.OpError, ValueError, TypeError) as e:
            out[cid + ":error"] = np.array(str(e).splitlines()[0])
    np.savez(sys.argv[3], **out)
""")


def snake(op: str) -> str:
    return {"BlockLSTMV2": "block_lstmv2", "BlockLSTMGradV2": "block_lstm_grad_v2"}.get(
        op, re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op).lower())


class Case:
    """An op's outputs (or its error), or the gradients of outputs `outs` weighted by `dys`
    with respect to inputs `wrt`. `seq` marks a BlockLSTM call whose steps from seq on are
    compared for cs and h only (TensorFlow leaves the other outputs unset there)."""

    def __init__(self, cid, op, inputs, attrs=None, wrt=(), outs=(), dys=(), seq=None,
                 message=None):
        self.id, self.op, self.inputs, self.attrs = cid, op, inputs, dict(attrs or {})
        self.wrt, self.outs, self.dys, self.seq, self.message = list(wrt), list(outs), list(dys), seq, message

    def spec(self):
        grad_op = "BlockLSTMGradV2" if self.wrt and self.op == "BlockLSTMV2" else None
        return {"id": self.id, "op": self.op, "inputs": list(self.inputs), "attrs": self.attrs,
                "wrt": self.wrt, "outs": self.outs, "grad_op": grad_op}

    def arrays(self):
        a = {f"{self.id}:{k}": v for k, v in self.inputs.items()}
        a.update({f"{self.id}:dy{k}": d for k, d in enumerate(self.dys)})
        return a

    def run_opgen(self):
        fn = getattr(ops, snake(self.op))
        if not self.wrt:
            return [t.numpy() for t in fn(**self.inputs, **self.attrs)]
        inputs = {k: opgen.constant(v) for k, v in self.inputs.items()}
        with opgen.GradientTape() as tape:
            tape.watch([inputs[k] for k in self.wrt])
            y = fn(**inputs, **self.attrs)
        grads = tape.gradient([y[k] for k in self.outs], [inputs[k] for k in self.wrt],
                              output_gradients=[opgen.constant(d) for d in self.dys])
        return [g.numpy() for g in grads]


def u(*shape, dtype=f32, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def lstm_inputs(dtype, time=None):
    x = u(time, B, I, dtype=dtype) if time else u(B, I, dtype=dtype)
    return {"x": x, "cs_prev": u(B, C, dtype=dtype), "h_prev": u(B, C, dtype=dtype),
            "w": u(I + C, 4 * C, dtype=dtype), "wci": u(C, dtype=dtype), "wcf": u(C, dtype=dtype),
            "wco": u(C, dtype=dtype), "b": u(4 * C, dtype=dtype)}


def gru_inputs():
    return {"x": u(B, I), "h_prev": u(B, C), "w_ru": u(I + C, 2 * C), "w_c": u(I + C, C),
            "b_ru": u(2 * C), "b_c": u(C)}


CELL_ATTRS = [{}, {"use_peephole": True}, {"use_peephole": True, "cell_clip": 0.3},
              {"cell_clip": -1.0, "forget_bias": 0.25}, {"use_peephole": True, "cell_clip": 0.0}]
V2_ATTRS = [{}, {"use_peephole": True}, {"use_peephole": True, "cell_clip": 0.3},
            {"cell_clip": -1.0}, {"cell_clip": 3.0}]
GATES = ["i", "cs", "f", "o", "ci", "co", "h"]


def forward_cases():
    cases = []
    for dtype in (f32, f16):
        dn = np.dtype(dtype).name
        for k, attrs in enumerate(CELL_ATTRS):
            cases.append(Case(f"cell-{dn}-{k}", "LSTMBlockCell", lstm_inputs(dtype), attrs))
        for op, table in (("BlockLSTM", CELL_ATTRS), ("BlockLSTMV2", V2_ATTRS)):
            for k, attrs in enumerate(table):
                for seq in (T, 4, 0):
                    inputs = {"seq_len_max": np.int64(seq), **lstm_inputs(dtype, T)}
                    cases.append(Case(f"{op}-{dn}-{k}-{seq}", op, inputs, attrs, seq=seq))
    for k in range(3):
        cases.append(Case(f"gru-{k}", "GRUBlockCell", gru_inputs()))
    return cases


def grad_op_cases():
    """The gradient ops on forward values opgen computed (the forward is compared above)."""
    cases = []
    for dtype in (f32, f16):
        dn = np.dtype(dtype).name
        for peep in (False, True):
            inputs = lstm_inputs(dtype)
            fwd = [t.numpy() for t in ops.lstm_block_cell(**inputs, use_peephole=peep, cell_clip=0.0)]
            cases.append(Case(f"cellgrad-{dn}-{peep}", "LSTMBlockCellGrad",
                              {**inputs, **dict(zip(GATES[:6], fwd[:6])), "cs_grad": u(B, C, dtype=dtype),
                               "h_grad": u(B, C, dtype=dtype)}, {"use_peephole": peep}))
            for fwd_op, grad_op in (("block_lstm", "BlockLSTMGrad"), ("block_lstmv2", "BlockLSTMGradV2")):
                for seq in (T, 3, 0):
                    inputs = {"seq_len_max": np.int64(seq), **lstm_inputs(dtype, T)}
                    fwd = [t.numpy() for t in getattr(ops, fwd_op)(**inputs, use_peephole=peep)]
                    cases.append(Case(f"{grad_op}-{dn}-{peep}-{seq}", grad_op,
                                      {**inputs, **dict(zip(GATES, fwd)), "cs_grad": u(T, B, C, dtype=dtype),
                                       "h_grad": u(T, B, C, dtype=dtype)}, {"use_peephole": peep}))
    for k in range(3):
        inputs = gru_inputs()
        r, uu, c, _ = [t.numpy() for t in ops.gru_block_cell(**inputs)]
        cases.append(Case(f"grugrad-{k}", "GRUBlockCellGrad", {**inputs, "r": r, "u": uu, "c": c, "d_h": u(B, C)}))
    return cases


WRT = ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"]


def tape_cases():
    """The registered gradients of BlockLSTM and BlockLSTMV2 (through cs and h)."""
    cases = []
    for op, table in (("BlockLSTM", CELL_ATTRS), ("BlockLSTMV2", V2_ATTRS)):
        for k, attrs in enumerate(table[:3]):
            for seq in (T, 4):
                inputs = {"seq_len_max": np.int64(seq), **lstm_inputs(f32, T)}
                cases.append(Case(f"tape-{op}-{k}-{seq}", op, inputs, attrs, wrt=WRT, outs=[1, 6],
                                  dys=[u(T, B, C), u(T, B, C)]))
    return cases


def error_cases():
    good = lstm_inputs(f32)
    block = {"seq_len_max": np.int64(2), **lstm_inputs(f32, 3)}
    gru = gru_inputs()
    return [
        Case("e-cell-b", "LSTMBlockCell", {**good, "b": u(12)}),
        Case("e-cell-w", "LSTMBlockCell", {**good, "w": u(I + C, 12)}),
        Case("e-cell-h", "LSTMBlockCell", {**good, "h_prev": u(B + 1, C)}),
        Case("e-cell-empty", "LSTMBlockCell", {**good, "x": u(0, I), "cs_prev": u(0, C), "h_prev": u(0, C)}),
        Case("e-block-seq-rank", "BlockLSTM", {**block, "seq_len_max": np.array([2], np.int64)}),
        Case("e-block-x-rank", "BlockLSTM", {**block, "x": u(3, B * I)}, message="x must be"),
        Case("e-block-wci", "BlockLSTM", {**block, "wci": u(C + 1)}),
        Case("e-block-b", "BlockLSTMV2", {**block, "b": u(4 * C + 4)}),
        Case("e-block-cs", "BlockLSTM", {**block, "cs_prev": u(B + 1, C)}),
        Case("e-gru-bc", "GRUBlockCell", {**gru, "b_c": u(C - 1)}),
        Case("e-gru-wru", "GRUBlockCell", {**gru, "w_ru": u(I + C, 2 * C + 1)}),
        Case("e-gru-h", "GRUBlockCell", {**gru, "h_prev": u(B + 2, C)}),
    ]


def _grad_error_cases():
    inputs = {"seq_len_max": np.int64(2), **lstm_inputs(f32, 3)}
    fwd = dict(zip(GATES, [t.numpy() for t in ops.block_lstm(**inputs)]))
    full = {**inputs, **fwd, "cs_grad": u(3, B, C), "h_grad": u(3, B, C)}
    return [Case("e-bgrad-b", "BlockLSTMGrad", {**full, "b": u(4 * C + 4)}, {"use_peephole": False}),
            Case("e-bgrad-i", "BlockLSTMGrad", {**full, "i": u(3, B)}, {"use_peephole": False})]


ALL = forward_cases() + grad_op_cases() + tape_cases() + error_cases() + _grad_error_cases()
BY_ID = {c.id: c for c in ALL}


@pytest.fixture(scope="module")
def tf_results():
    arrays = {}
    for c in ALL:
        arrays.update(c.arrays())
    return run_tf_script(TF_SCRIPT, arrays, [c.spec() for c in ALL])


def _tolerance(case):
    half = any(getattr(v, "dtype", None) == f16 for v in case.inputs.values())
    return (3e-2, 3e-2) if half else (2e-5, 2e-5)


@pytest.mark.parametrize("cid", [c.id for c in ALL if not c.id.startswith("e-")])
def test_matches_tensorflow(cid, tf_results):
    case = BY_ID[cid]
    assert f"{cid}:error" not in tf_results, str(tf_results.get(f"{cid}:error"))
    got = case.run_opgen()
    assert f"{cid}:{len(got)}" not in tf_results
    rtol, atol = _tolerance(case)
    for k, g in enumerate(got):
        want = tf_results[f"{cid}:{k}"]
        assert g.shape == want.shape and g.dtype == want.dtype, (k, g.shape, want.shape, g.dtype, want.dtype)
        if case.seq is not None and case.seq < T:
            if GATES[k] in ("cs", "h"):
                assert not g[case.seq:].any() and not want[case.seq:].any()
            else:  # TensorFlow leaves these unset; opgen's are zeros
                assert not g[case.seq:].any()
            g, want = g[:case.seq], want[:case.seq]
        np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=f"{cid} output {k}")


@pytest.mark.parametrize("cid", [c.id for c in ALL if c.id.startswith("e-")])
def test_errors_match_tensorflow(cid, tf_results):
    case = BY_ID[cid]
    err = tf_results.get(f"{cid}:error")
    assert err is not None, f"{cid}: TensorFlow computes"
    message = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", str(err))
    message = re.sub(r"\s*\[Op:\w+\].*$", "", message)
    with pytest.raises(errors.InvalidArgumentError) as info:
        case.run_opgen()
    want = case.message if case.message is not None else message
    assert want in str(info.value), f"{cid}: opgen said {info.value}, TensorFlow {message}"


@pytest.mark.parametrize("seq", [5, -1])
def test_seq_len_max_outside_the_time_dimension_is_refused(seq):
    # TensorFlow 2.21's kernels abort the process here (a failed CHECK in Tensor::Slice);
    # opgen refuses with the message of TensorFlow's later range check.
    inputs = {"seq_len_max": np.int64(seq), **lstm_inputs(f32, 3)}
    with pytest.raises(errors.InvalidArgumentError, match=f"seq_len_max must be between 0 and 3 but is {seq}"):
        ops.block_lstm(**inputs)
    fwd = dict(zip(GATES, [t.numpy() for t in ops.block_lstm(**{**inputs, "seq_len_max": np.int64(3)})]))
    with pytest.raises(errors.InvalidArgumentError, match=f"seq_len_max must be between 0 and 3 but is {seq}"):
        ops.block_lstm_grad(**inputs, **fwd, cs_grad=u(3, B, C), h_grad=u(3, B, C), use_peephole=False)


def test_block_lstm_grad_refuses_w_columns_not_a_multiple_of_4():
    # TensorFlow 2.21 reads past w here; opgen refuses with its later versions' message.
    inputs = {"seq_len_max": np.int64(2), **lstm_inputs(f32, 3)}
    fwd = dict(zip(GATES, [t.numpy() for t in ops.block_lstm(**inputs)]))
    with pytest.raises(errors.InvalidArgumentError,
                       match="w matrix columns must be a positive multiple of 4, but got 18"):
        ops.block_lstm_grad(**{**inputs, "w": u(I + C, 18)}, **fwd, cs_grad=u(3, B, C),
                            h_grad=u(3, B, C), use_peephole=False)


def test_graph_gradients_equal_the_gradient_op():
    """opgen.gradients through BlockLSTM builds BlockLSTMGrad on cs's and h's gradients."""
    inputs = {"seq_len_max": np.int64(T), **lstm_inputs(f32, T)}
    dcs, dh = u(T, B, C), u(T, B, C)
    g = opgen.Graph()
    with g.as_default():
        ins = {k: opgen.constant(v) for k, v in inputs.items()}
        y = ops.block_lstm(**ins, use_peephole=True)
        grads = opgen.gradients([y[1], y[6]], [ins[k] for k in WRT], grad_ys=[dcs, dh])
    with opgen.Session(graph=g) as sess:
        got = sess.run(grads)
        fwd = sess.run(list(y))
    want = ops.block_lstm_grad(**inputs, **dict(zip(GATES, fwd)), cs_grad=dcs, h_grad=dh, use_peephole=True)
    for k, (a, b) in enumerate(zip(got, want)):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-6, atol=1e-6, err_msg=WRT[k])


# A TF1-style graph: BlockLSTM on placeholders and a loss's gradient, built with
# tf.compat.v1 and written by TensorFlow; opgen imports the GraphDef and runs it.
GRAPH_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
    import numpy as np
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    a = dict(np.load(sys.argv[1]))
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None, a["x"].shape[2]], name="x")
        w = tf.constant(a["w"], name="w")
        b = tf.constant(a["b"], name="b")
        zeros = tf.zeros([tf.shape(x)[1], a["b"].shape[0] // 4])
        peep = tf.zeros([a["b"].shape[0] // 4])
        seq = tf.cast(tf.shape(x)[0], tf.int64)
        out = tf.raw_ops.BlockLSTM(seq_len_max=seq, x=x, cs_prev=zeros, h_prev=zeros, w=w, wci=peep,
                                   wcf=peep, wco=peep, b=b, forget_bias=1.0, cell_clip=-1.0)
        h = tf.identity(out.h, name="h")
        loss = tf.reduce_sum(tf.square(out.h[-1]), name="loss")
        dw, = tf.compat.v1.gradients(loss, [w])
        dw = tf.identity(dw, name="dw")
        with tf.compat.v1.Session(graph=g) as sess:
            hv, dwv = sess.run([h, dw], {x: a["x"]})
    np.savez(sys.argv[2], graph=np.frombuffer(g.as_graph_def().SerializeToString(), np.uint8),
             h=hv, dw=dwv)
""")


def test_tf1_graph_with_block_lstm_runs_as_in_tensorflow():
    arrays = {"x": u(T, B, I), "w": u(I + C, 4 * C), "b": u(4 * C)}
    tf_out = run_tf_script(GRAPH_SCRIPT, arrays)
    graph_def = opgen.GraphDef.FromString(tf_out["graph"].tobytes()) if hasattr(opgen, "GraphDef") \
        else tf_out["graph"].tobytes()
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(graph=g) as sess:
        h, dw = sess.run(["h:0", "dw:0"], {"x:0": arrays["x"]})
    np.testing.assert_allclose(h, tf_out["h"], rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(dw, tf_out["dw"], rtol=2e-5, atol=2e-5)
