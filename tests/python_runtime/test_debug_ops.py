"""The debugging ops of tf.debugging, tf.print and tf.ensure_shape: Assert, CheckNumerics,
CheckNumericsV2, EnsureShape, Snapshot, PrintV2 and StringFormat, eagerly and in graphs,
against TensorFlow 2.21 (run once in a child process, $OPGEN_TF_PYTHON): the text of
TensorFlow's tensor summaries (v1 in Assert's message, v2 in StringFormat) for every
dtype and `summarize`, the messages of its errors, a graph TensorFlow freezes with
tf.debugging.assert_* and check_numerics inside a tf.function, and a SavedModel with them
and a tf.print."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

import opgen
from opgen.protos import graph_pb2
from opgen.runtime import errors, execute_op
from tf_reference import run_tf, tf_python

try:
    from ml_dtypes import bfloat16
except ImportError:  # a dependency of opgen; without it the bfloat16 cases are left out
    bfloat16 = None

pytestmark = pytest.mark.usefixtures("runtime_lib")


def _run(op, inputs, attrs=None):
    return [t.numpy() for t in execute_op(op, inputs, attrs or {})]


def _strings(*values):
    array = np.empty(len(values), object)
    array[:] = values
    return array


def _string(value: bytes):
    return np.array(value, object)


# ---- the summaries' cases: (values, dtype name, shape) ---------------------------------

SUMMARY_CASES = {
    "scalar": ([5], "int32", []),
    "vec10": (list(range(1, 11)), "int32", [10]),
    "vec3": ([1, 2, 3], "int64", [3]),
    "mat": (list(range(12)), "int64", [3, 4]),
    "big": (list(range(100)), "int32", [10, 10]),
    "t3": (list(range(24)), "int16", [2, 3, 4]),
    "t4": (list(range(2 * 3 * 7 * 2)), "uint16", [2, 3, 7, 2]),
    "floats": ([1.5, -0.25, float("nan"), float("inf"), float("-inf"), -0.0, 1e-5,
                123456789.0, 3.14159274, 1e30, 1e-40], "float32", [11]),
    # 5e-324 and -1e-310 are subnormal: TensorFlow flushes them to zero, and shows 0
    "doubles": ([0.1, 1e20, 1 / 3, 2.0 ** 60, -1e-300, 5e-324, -1e-310, 123.0], "float64",
                [8]),
    "half": ([1.5, 2.25, 65504.0, -0.0009765625, 0.1], "float16", [5]),
    "bf16": ([1.5, 3.0, -2.5e10, 0.1], "bfloat16", [4]),
    "fscalar": ([0.1], "float32", []),
    "bool": ([True, False, True, True, False], "bool", [5]),
    "bool2": ([True, False, True, False], "bool", [2, 2]),
    "i8": ([-128, 4, 127], "int8", [3]),
    "u8": ([200, 4], "uint8", [2]),
    "u32": ([4294967295, 0], "uint32", [2]),
    "i64": ([-(2 ** 63), 2 ** 63 - 1], "int64", [2]),
    "u64": ([2 ** 64 - 1], "uint64", [1]),
    "empty": ([], "float32", [0]),
    "empty2": ([], "int32", [2, 0]),
    "c64": ([1.0, 2.0, 3.0, 4.0, 5.0], "complex64", [5]),  # TensorFlow shows each as "?"
    "c128": ([1.0, -1.0, 0.5, 2.0], "complex128", [2, 2]),
    "strings": (["a", "b'c", 'd"e', "x\ny\t\x01\x7f\\", "h\u00e9llo"], "string", [5]),
    "strscalar": (["hi there"], "string", []),
    "strmat": (["a", "bb", "", "d", "e", "f"], "string", [2, 3]),
}
SUMMARIZE = [-1, 0, 1, 2, 3, 4]


def _array(values, dtype, shape):
    if dtype == "string":
        return _strings(*[v.encode() for v in values]).reshape(shape)
    if dtype == "bfloat16":
        return np.array(values, np.float32).astype(bfloat16).reshape(shape)
    return np.array(values, dtype).reshape(shape)


def _summary_params():
    return [(case, s) for case in SUMMARY_CASES for s in SUMMARIZE
            if not (SUMMARY_CASES[case][1] == "bfloat16" and bfloat16 is None)]


NUMERIC_COMBOS = [[1.0, float("nan")], [float("inf"), 1.0], [float("-inf"), 2.0],
                  [float("nan"), float("inf")], [float("nan"), float("-inf")],
                  [float("inf"), float("-inf")], [float("nan"), float("inf"), float("-inf")]]
FLOAT_TYPES = ["float32", "float64", "float16", "bfloat16"]
ENSURE_CASES = [((2, 3), [2, 4]), ((2, 3), [-1, 4]), ((2, 3), [2]), ((), [2]),
                ((2, 0), [2, 1])]

TF_SCRIPT = textwrap.dedent(r"""
    import json, re, sys
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)

    spec = json.load(open(sys.argv[1]))
    out = {}

    def tensor(values, dtype, shape):
        if dtype == "string":
            return tf.reshape(tf.constant(values, tf.string), shape)
        if dtype == "bfloat16":
            return tf.reshape(tf.cast(tf.constant(values, tf.float32), tf.bfloat16), shape)
        return tf.reshape(tf.constant(np.array(values, dtype)), shape)

    def message(fn):
        try:
            fn()
        except tf.errors.OpError as e:
            text = e.message.split(" [Op:")[0]
            return type(e).__name__, text.split("}} ", 1)[-1]
        return None, None

    for name, (values, dtype, shape) in spec["summaries"].items():
        t = tensor(values, dtype, shape)
        for s in spec["summarize"]:
            out[f"format/{name}/{s}"] = tf.strings.format(
                "{}", (t,), summarize=s).numpy().decode("utf-8", "surrogateescape")
            _, text = message(lambda: tf.raw_ops.Assert(condition=False, data=[t], summarize=s))
            out[f"assert/{name}/{s}"] = text
    for i, combo in enumerate(spec["combos"]):
        for dtype in spec["floats"]:
            for op in ("CheckNumerics", "CheckNumericsV2"):
                fn = getattr(tf.raw_ops, op)
                x = tf.cast(tf.constant(combo, tf.float64), dtype)
                out[f"{op}/{i}/{dtype}"] = message(lambda: fn(tensor=x, message="msg here"))
    for i, (shape, want) in enumerate(spec["ensure"]):
        want = [None if d < 0 else d for d in want]
        out[f"ensure/{i}"] = message(lambda: tf.raw_ops.EnsureShape(
            input=tf.zeros(shape), shape=want))
    out["assert/mixed"] = message(lambda: tf.raw_ops.Assert(
        condition=False, data=["x is wrong:", tf.constant([1.5, 2.0]), tf.constant(7)]))
    out["assert/vector"] = message(lambda: tf.raw_ops.Assert(condition=[True, False], data=[1]))
    out["format/template"] = tf.raw_ops.StringFormat(
        inputs=[tf.constant([1, 2]), tf.constant("s"), tf.constant(2.5)],
        template="a={} b=<> c={}, d={}", placeholder="{}").numpy().decode()
    out["format/default"] = tf.raw_ops.StringFormat(inputs=[tf.constant(3)]).numpy().decode()
    out["format/none"] = tf.raw_ops.StringFormat(inputs=[], template="no holes").numpy().decode()
    out["format/mismatch"] = message(lambda: tf.raw_ops.StringFormat(
        inputs=[1], template="{} and {}", placeholder="{}"))
    out["format/braces"] = message(lambda: tf.raw_ops.StringFormat(
        inputs=[1], template="{} {{}}", placeholder="{}"))
    out["print/stream"] = message(lambda: tf.raw_ops.PrintV2(input="x", output_stream="bogus"))
    out["print/rank"] = message(lambda: tf.raw_ops.PrintV2(input=["x", "y"]))

    # A frozen tf.function with tf.debugging checks (lowered to Switch/Merge conds).
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def checked(x):
        tf.debugging.assert_non_negative(x, message="x must be >= 0")
        y = tf.debugging.check_numerics(tf.math.log(x), "log of x")
        tf.debugging.assert_less(tf.reduce_sum(x), 100.0, summarize=4)
        y = tf.ensure_shape(y, [None])
        return y * 2.0

    graph_def = convert_variables_to_constants_v2(checked.get_concrete_function()).graph
    graph_def = graph_def.as_graph_def()
    open(sys.argv[3], "wb").write(graph_def.SerializeToString())
    for i, x in enumerate(spec["frozen_inputs"]):
        try:
            out[f"frozen/{i}"] = ["ok", checked(tf.constant(x, tf.float32)).numpy().tolist()]
        except tf.errors.OpError as e:
            lines = [l for l in e.message.splitlines()
                     if "assertion failed" in l or "Tensor had" in l]
            out[f"frozen/{i}"] = [type(e).__name__, lines[0].strip()]

    # The same checks and a tf.print in a SavedModel (functional control flow inside).
    class Checked(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32, name="x")])
        def serve(self, x):
            tf.debugging.assert_non_negative(x, message="x must be >= 0")
            tf.print("sum:", tf.reduce_sum(x), output_stream=sys.stdout)
            return {"y": tf.debugging.check_numerics(tf.math.log(x), "log of x")}

    module = Checked()
    tf.saved_model.save(module, sys.argv[4], signatures={"serving_default": module.serve})
    for i, x in enumerate(spec["frozen_inputs"]):
        try:
            y = module.serve(tf.constant(x, tf.float32))["y"]
            out[f"saved/{i}"] = ["ok", y.numpy().tolist()]
        except tf.errors.OpError as e:
            lines = [l for l in e.message.splitlines()
                     if "assertion failed" in l or "Tensor had" in l]
            out[f"saved/{i}"] = [type(e).__name__, lines[0].strip()]

    # Snapshot has no gradient: tf.GradientTape and tf.gradients fail through it (off
    # the path, or behind a stop_gradient, it is not differentiated)
    def lookup_error(fn):
        try:
            fn()
        except LookupError as e:
            return ["LookupError", str(e)]
        return None

    x = tf.constant([1.0, 2.0])
    def snapshot_tape(through):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = through(tf.raw_ops.Snapshot(input=x)) * 3.0 + x
        return tape.gradient(y, x)
    out["snapshot/tape"] = lookup_error(lambda: snapshot_tape(lambda s: s))
    out["snapshot/graph"] = lookup_error(lambda: tf.function(
        lambda x: tf.gradients(tf.raw_ops.Snapshot(input=x) * 3.0, x))(x))
    out["snapshot/stopped"] = snapshot_tape(tf.stop_gradient).numpy().tolist()
    json.dump(out, open(sys.argv[2], "w"))
""")

FROZEN_INPUTS = [[1.0, 2.0, 4.0], [-1.0, 2.0], [0.0, 2.0], [50.0, 60.0], []]


@pytest.fixture(scope="module")
def tf_ref(tmp_path_factory):
    tf_python()  # skip before any work when there is no TensorFlow
    folder = tmp_path_factory.mktemp("debug_tf")
    spec = {"summaries": SUMMARY_CASES, "summarize": SUMMARIZE, "combos": NUMERIC_COMBOS,
            "floats": FLOAT_TYPES, "ensure": ENSURE_CASES, "frozen_inputs": FROZEN_INPUTS}
    (folder / "spec.json").write_text(json.dumps(spec))
    run_tf(["-c", TF_SCRIPT, folder / "spec.json", folder / "out.json", folder / "frozen.pb",
            folder / "saved_model"], cwd=folder)
    ref = json.loads((folder / "out.json").read_text())
    ref["frozen.pb"] = (folder / "frozen.pb").read_bytes()
    ref["saved_model"] = str(folder / "saved_model")
    return ref


def _error(fn) -> tuple[str | None, str]:
    try:
        fn()
    except errors.OpError as e:
        return type(e).__name__, str(e)
    return None, ""


# ---- summaries ---------------------------------------------------------------------------

@pytest.mark.parametrize("case,summarize", _summary_params())
def test_string_format_summarizes_as_tensorflow(case, summarize, tf_ref):
    x = _array(*SUMMARY_CASES[case])
    (got,) = _run("StringFormat", [[x]], {"template": "{}", "placeholder": "{}",
                                           "summarize": summarize})
    text = got.item().decode("utf-8", "surrogateescape")
    assert text == tf_ref[f"format/{case}/{summarize}"]


@pytest.mark.parametrize("case,summarize", _summary_params())
def test_assert_message_summarizes_as_tensorflow(case, summarize, tf_ref):
    x = _array(*SUMMARY_CASES[case])
    kind, text = _error(lambda: _run("Assert", [np.bool_(False), [x]], {"summarize": summarize}))
    assert kind == "InvalidArgumentError"
    want = tf_ref[f"assert/{case}/{summarize}"]
    assert want.startswith("assertion failed: ")
    assert text.split(": ", 1)[1] == want  # after opgen's "Assert: " prefix


def test_string_format_templates_and_errors(tf_ref):
    (got,) = _run("StringFormat", [[np.int32([1, 2]), _string(b"s"), np.float32(2.5)]],
                  {"template": "a={} b=<> c={}, d={}", "placeholder": "{}"})
    assert got.item().decode() == tf_ref["format/template"]
    (got,) = _run("StringFormat", [[np.int32(3)]])
    assert got.item().decode() == tf_ref["format/default"] == "3"
    (got,) = _run("StringFormat", [[]], {"template": "no holes"})
    assert got.item().decode() == tf_ref["format/none"]
    kind, text = _error(lambda: _run("StringFormat", [[np.int32(1)]],
                                     {"template": "{} and {}", "placeholder": "{}"}))
    assert (kind, tf_ref["format/mismatch"][0]) == ("InvalidArgumentError",) * 2
    assert tf_ref["format/mismatch"][1] in text
    # "{{}}" holds a placeholder too: two here, for one input
    kind, text = _error(lambda: _run("StringFormat", [[np.int32(1)]],
                                     {"template": "{} {{}}", "placeholder": "{}"}))
    assert kind == tf_ref["format/braces"][0] and tf_ref["format/braces"][1] in text


# ---- Assert --------------------------------------------------------------------------------

def test_assert_passes_and_fails_with_tensorflows_message(tf_ref):
    assert _run("Assert", [np.bool_(True), [np.float32([1, 2])]]) == []
    kind, text = _error(lambda: _run("Assert", [np.bool_(False), [
        _string(b"x is wrong:"), np.float32([1.5, 2.0]), np.int32(7)]]))
    assert [kind, text.split(": ", 1)[1]] == tf_ref["assert/mixed"]
    kind, text = _error(lambda: _run("Assert", [np.bool_([True, False]), [np.int32(1)]]))
    assert kind == tf_ref["assert/vector"][0] and tf_ref["assert/vector"][1] in text


def _const(g, value):
    value = np.asarray(value)
    return g.create_op("Const", [], {"dtype": opgen.as_dtype(value.dtype), "value": value}).outputs[0]


def test_assert_and_check_numerics_in_a_graph():
    """An Assert gates nothing by itself: run as a target it fails or passes; a
    CheckNumerics on a fed value fails only for the feeds with NaN or Inf."""
    g = opgen.Graph()
    with g.as_default():
        x = g.create_op("Placeholder", [], {"dtype": opgen.float32}, name="x").outputs[0]
        zero = _const(g, np.float32(0))
        ok = g.create_op("All", [g.create_op("GreaterEqual", [x, zero]).outputs[0],
                                 _const(g, np.int32(0))]).outputs[0]
        check = g.create_op("Assert", [ok, [_const(g, _string(b"x < 0:")), x]],
                            {"summarize": 2}, name="check")
        y = g.create_op("CheckNumerics", [x], {"message": "x"}).outputs[0]
    with opgen.Session(g) as s:
        s.run(check, {x: np.float32([1, 2, 3])})
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"assertion failed: \[x < 0:\] \[1 -2\.\.\.\]"):
            s.run(check, {x: np.float32([1, -2, 3])})
        np.testing.assert_array_equal(s.run(y, {x: np.float32([1, -2])}), [1, -2])
        with pytest.raises(errors.InvalidArgumentError, match="x : Tensor had Inf values"):
            s.run(y, {x: np.float32([1, np.inf])})


# ---- CheckNumerics ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOAT_TYPES)
@pytest.mark.parametrize("op", ["CheckNumerics", "CheckNumericsV2"])
def test_check_numerics_messages_match_tensorflow(op, dtype, tf_ref):
    if dtype == "bfloat16" and bfloat16 is None:
        pytest.skip("no ml_dtypes")
    np_dtype = bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    for i, combo in enumerate(NUMERIC_COMBOS):
        x = np.array(combo, np.float64).astype(np_dtype)
        kind, text = _error(lambda x=x: _run(op, [x], {"message": "msg here"}))
        want_kind, want = tf_ref[f"{op}/{i}/{dtype}"]
        assert kind == want_kind == "InvalidArgumentError"
        assert text == f"{op}: {want}", combo
    finite = np.array([1.0, -2.5, 0.0, 6e4], np.float64).astype(np_dtype)
    (got,) = _run(op, [finite], {"message": "m"})
    np.testing.assert_array_equal(np.asarray(got, np.float64), np.asarray(finite, np.float64))


def test_check_numerics_of_large_doubles_is_not_inf():
    """1e300 is finite in float64 (it would be Inf if narrowed to float32)."""
    (got,) = _run("CheckNumerics", [np.float64([1e300, -1e308])], {"message": "m"})
    np.testing.assert_array_equal(got, [1e300, -1e308])


# ---- EnsureShape and Snapshot -------------------------------------------------------------

def test_ensure_shape_messages_match_tensorflow(tf_ref):
    for i, (shape, want) in enumerate(ENSURE_CASES):
        kind, text = _error(lambda shape=shape, want=want: _run(
            "EnsureShape", [np.zeros(shape, np.float32)], {"shape": want}))
        assert kind == tf_ref[f"ensure/{i}"][0] == "InvalidArgumentError"
        assert tf_ref[f"ensure/{i}"][1] in text


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int16", "int32",
                                   "int64", "uint8", "uint16", "uint32", "uint64", "bool",
                                   "complex64", "complex128"])
def test_ensure_shape_and_snapshot_keep_values(dtype):
    x = (np.arange(12) % 5).astype(dtype).reshape(3, 4)
    for shape in ([3, 4], [-1, 4], [3, None], None):  # None: an unknown rank
        (got,) = _run("EnsureShape", [x], {"shape": shape})
        np.testing.assert_array_equal(got, x)
        assert got.dtype == x.dtype
    (copy,) = _run("Snapshot", [x])
    np.testing.assert_array_equal(copy, x)
    assert copy.dtype == x.dtype


def test_snapshot_has_no_gradient_as_in_tensorflow(tf_ref):
    """TensorFlow registers no gradient for Snapshot: its tape and tf.gradients raise a
    LookupError through one; opgen's graph gradients and tape raise NotFoundError (a
    LookupError) there too. Off the path or behind a StopGradient nothing fails."""
    assert tf_ref["snapshot/tape"][0] == tf_ref["snapshot/graph"][0] == "LookupError"
    assert "Snapshot" in tf_ref["snapshot/tape"][1]
    message = r"No gradient defined for op: Snapshot"
    g = opgen.Graph()
    with g.as_default():
        x = opgen.ops.placeholder(opgen.float32, shape=[2])
        y = opgen.ops.snapshot(x) * 3.0
        with pytest.raises(errors.NotFoundError, match=message) as caught:
            opgen.gradients(y, x)
        assert isinstance(caught.value, LookupError)
        (dx,) = opgen.gradients(opgen.ops.stop_gradient(opgen.ops.snapshot(x)) + x, x)
    np.testing.assert_array_equal(opgen.Session(g).run(dx, {x: np.float32([1, 2])}), [1, 1])
    x = opgen.constant(np.float32([1.0, 2.0]))
    for through, fails in ((lambda s: s, True), (opgen.ops.stop_gradient, False)):
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = through(opgen.ops.snapshot(x)) * 3.0 + x
        if fails:
            with pytest.raises(errors.NotFoundError, match=message):
                tape.gradient(y, x)
        else:
            got = tape.gradient(y, x).numpy().tolist()
            assert got == tf_ref["snapshot/stopped"] == [1.0, 1.0]


def test_a_snapshot_gradient_may_be_registered():
    """With no built-in entry, a user's registration is the only one (as
    tf.RegisterGradient("Snapshot") would be); removing it brings the error back."""
    from opgen.runtime import gradients_impl

    @opgen.RegisterGradient("Snapshot")
    def _snapshot_grad(op, grad):
        return [grad * 2.0]

    try:
        x = opgen.constant(np.float32([1.0, 2.0]))
        with opgen.GradientTape() as tape:
            tape.watch(x)
            y = opgen.ops.snapshot(x) * 3.0
        assert tape.gradient(y, x).numpy().tolist() == [6.0, 6.0]
    finally:
        gradients_impl._unregister("Snapshot")
    with opgen.GradientTape() as tape:
        tape.watch(x)
        y = opgen.ops.snapshot(x) * 3.0
    with pytest.raises(errors.NotFoundError, match="No gradient defined for op: Snapshot"):
        tape.gradient(y, x)


def test_ensure_shape_of_strings():
    x = _strings(b"a", b"bc")
    (got,) = _run("EnsureShape", [x], {"shape": [2]})
    assert list(got) == [b"a", b"bc"]
    with pytest.raises(errors.InvalidArgumentError, match=r"expected shape \[3\]"):
        _run("EnsureShape", [x], {"shape": [3]})


# ---- PrintV2 ---------------------------------------------------------------------------------

def test_print_writes_to_the_stream_with_end(capfd, tmp_path):
    _run("PrintV2", [_string(b"to stdout")], {"output_stream": "stdout", "end": "!\n"})
    _run("PrintV2", [_string(b"to stderr")])
    _run("PrintV2", [_string(b"logged")], {"output_stream": "log(info)", "end": ""})
    out, err = capfd.readouterr()
    assert out == "to stdout!\n"
    assert err == "to stderr\nlogged"
    path = tmp_path / "printed.txt"
    for text in (b"one", b"two"):
        _run("PrintV2", [_string(text)], {"output_stream": f"file://{path}"})
    assert path.read_text() == "one\ntwo\n"


def test_print_errors_match_tensorflow(tf_ref):
    kind, text = _error(lambda: _run("PrintV2", [_string(b"x")], {"output_stream": "bogus"}))
    assert kind == tf_ref["print/stream"][0] and tf_ref["print/stream"][1] in text
    kind, text = _error(lambda: _run("PrintV2", [_strings(b"x", b"y")]))
    assert kind == tf_ref["print/rank"][0] and tf_ref["print/rank"][1] in text


def test_print_of_a_formatted_tensor_in_a_graph(capfd):
    """tf.print's graph: StringFormat then PrintV2, ordered by a control edge."""
    g = opgen.Graph()
    with g.as_default():
        x = g.create_op("Placeholder", [], {"dtype": opgen.int32}, name="x").outputs[0]
        text = g.create_op("StringFormat", [[x]], {"template": "x: {}", "placeholder": "{}",
                                                   "summarize": 2}).outputs[0]
        printed = g.create_op("PrintV2", [text], {"output_stream": "stdout"})
    with opgen.Session(g) as s:
        s.run(printed, {x: np.arange(1, 8, dtype=np.int32)})
    assert capfd.readouterr().out == "x: [1 2 ... 6 7]\n"


# ---- a graph TensorFlow froze ---------------------------------------------------------------

def test_frozen_tf_function_with_debugging_checks(tf_ref):
    graph_def = graph_pb2.GraphDef.FromString(tf_ref["frozen.pb"])
    assert {"Assert", "CheckNumerics", "EnsureShape"} <= {n.op for n in graph_def.node}
    g = opgen.Graph()
    with g.as_default():
        opgen.import_graph_def(graph_def, name="")
    with opgen.Session(g) as s:
        for i, x in enumerate(FROZEN_INPUTS):
            kind, want = tf_ref[f"frozen/{i}"]
            feed = {"x:0": np.float32(x)}
            if kind == "ok":
                np.testing.assert_allclose(s.run("Identity:0", feed), want, rtol=1e-6)
                continue
            with pytest.raises(errors.InvalidArgumentError) as info:
                s.run("Identity:0", feed)
            assert kind == "InvalidArgumentError"
            assert want in str(info.value), x


def test_saved_model_with_debugging_checks_and_print(tf_ref, capfd):
    """tf.debugging checks and tf.print inside a SavedModel's function: the same values
    and errors as TensorFlow's, and the print on stdout."""
    from opgen import saved_model
    with saved_model.load(tf_ref["saved_model"]) as model:
        serve = model.signatures["serving_default"]
        for i, x in enumerate(FROZEN_INPUTS):
            kind, want = tf_ref[f"saved/{i}"]
            capfd.readouterr()  # what the calls before printed
            if kind == "ok":
                np.testing.assert_allclose(serve(x=np.float32(x))["y"], want, rtol=1e-6)
                assert capfd.readouterr().out == f"sum: {np.float32(x).sum():g}\n"
                continue
            with pytest.raises(errors.InvalidArgumentError) as info:
                serve(x=np.float32(x))
            assert kind == "InvalidArgumentError"
            assert want in str(info.value), x
