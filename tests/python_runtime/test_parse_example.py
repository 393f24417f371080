"""ParseExampleV2, ParseExample, ParseSingleExample, ParseTensor and SerializeTensor
against TensorFlow 2.21 (a child
process, $OPGEN_TF_PYTHON) on the same serialized tf.Example protos, built with the
protobuf library (example_protos.py): dense (fixed, defaulted, variable-length with
padding), sparse and ragged keys of every dtype, missing keys, empty examples, names,
TensorFlow's messages for missing, mistyped and miscounted features; eager and in a graph.
Malformed bytes (truncated, wrong wire types) raise InvalidArgumentError; an end-to-end
SavedModel whose serving signature parses Examples gives TensorFlow's outputs."""

from __future__ import annotations

import pickle
import textwrap

import numpy as np
import pytest
from tf_reference import run_tf, tf_env

import opgen
from opgen.runtime import errors

from example_protos import Example, Feature, example, parses

pytestmark = pytest.mark.usefixtures("runtime_lib")

F, I64, S = "float32", "int64", "string"
NP = {F: np.float32, I64: np.int64, S: object}


def case(id, serialized, sparse=(), dense=(), ragged=(), names=()):
    """dense: (key, dtype, shape, default list); shape[0] -1 is variable-length (then the
    default is [padding scalar]). ragged: (key, dtype, split dtype)."""
    return {"id": id, "serialized": serialized, "names": list(names), "sparse": list(sparse),
            "dense": list(dense), "ragged": list(ragged)}


EX = [example(a=[1.0, 2.0], b=[3, 4, 5], s=[b"x", b"yz"]),
      example(a=[5.0, 6.0], b=[7], s=[b""]),
      example(a=[-1.5, 0.25], c=[9.0, 8.0, 7.0, 6.0])]
EMPTY = example()


def _unpacked_floats() -> bytes:
    """Feature float_list with each value its own fixed32 field (protobuf accepts both)."""
    values = b"".join(b"\x0d" + np.float32(v).tobytes() for v in (1.5, -2.0))
    float_list = b"\x12" + bytes([len(values)]) + values
    return _wrap("u", float_list)


def _unpacked_ints() -> bytes:
    values = b"\x08\x03\x08\x96\x01\x08" + b"\xff" * 9 + b"\x01"   # 3, 150, -1
    return _wrap("u", b"\x1a" + bytes([len(values)]) + values)


def _wrap(key: str, feature: bytes) -> bytes:
    entry = b"\x0a" + bytes([len(key)]) + key.encode() + b"\x12" + bytes([len(feature)]) + feature
    features = b"\x0a" + bytes([len(entry)]) + entry
    return b"\x0a" + bytes([len(features)]) + features


def _two_kinds() -> bytes:
    """One Feature holding float_list then int64_list: the later oneof member wins."""
    f1, f2 = Feature(), Feature()
    f1.float_list.value.append(5.0)
    f2.int64_list.value.extend([7, 8])
    return _wrap("k", f1.SerializeToString() + f2.SerializeToString())


CASES = [
    case("dense_fixed", EX, dense=[("a", F, [2], [])]),
    case("dense_defaults", EX, dense=[("c", F, [4], [0.5, 1.5, 2.5, 3.5]), ("z", I64, [2], [4, 5]),
                                      ("q", S, [1], [b"dflt"]), ("a", F, [1, 2], [])]),
    case("dense_2d", [example(m=[1.0, 2.0, 3.0, 4.0]), example(m=[5.0, 6.0, 7.0, 8.0])],
         dense=[("m", F, [2, 2], [])]),
    case("dense_strings_ints", EX, dense=[("a", F, [2], []), ("d", I64, [], [42])]),
    case("varlen_pad", EX, dense=[("b", I64, [-1], [-9]), ("s", S, [-1], [b"pad"]),
                                  ("c", F, [-1, 2], [0.5])]),
    case("sparse_all_types", EX, sparse=[("a", F), ("b", I64), ("s", S), ("none", F)]),
    case("ragged_all_types", EX, ragged=[("a", F, I64), ("b", I64, "int32"), ("s", S, I64),
                                         ("none", S, "int32")]),
    case("mixed", EX + [EMPTY], sparse=[("b", I64)], dense=[("c", F, [4], [0.0] * 4)],
         ragged=[("s", S, I64)]),
    case("empty_examples", [EMPTY, b""], sparse=[("a", F)], dense=[("a", F, [1], [3.0])],
         ragged=[("a", I64, I64)]),
    case("empty_batch", [], sparse=[("a", F)], dense=[("a", F, [2], []), ("b", I64, [-1], [0])],
         ragged=[("a", F, I64)]),
    case("empty_feature", [example(a=None, b=[1])], sparse=[("a", F)],
         dense=[("a", F, [1], [7.0]), ("v", F, [-1], [0.0])], ragged=[("a", I64, I64)]),
    # (TensorFlow's one-example path fails to find dense keys when a key is both sparse
    # and ragged: not a case to copy, so the keys differ here)
    case("scalar", EX[0], sparse=[("b", I64)], dense=[("a", F, [2], []), ("s", S, [-1], [b""])]),
    case("scalar_ragged", EX[0], ragged=[("b", I64, I64), ("s", S, "int32")]),
    case("names", EX, dense=[("a", F, [2], [])], names=[b"n0", b"n1", b"n2"]),
    case("duplicate_key_last_wins", [EX[0] + example(a=[3.0])], ragged=[("a", F, I64)]),
    case("unpacked_floats", [_unpacked_floats(), EMPTY], ragged=[("u", F, I64)]),
    case("unpacked_ints", [_unpacked_ints()], sparse=[("u", I64)]),
    case("features_of_another_wire_type_skipped", [b"\x08\x01", EX[0]], sparse=[("a", F)]),
    case("unknown_fields", [EX[0] + b"\x12\x00" + b"\x18\x05"], sparse=[("b", I64)]),
    # errors, with TensorFlow's messages
    case("missing_required", [EX[0], EMPTY], dense=[("a", F, [2], [])]),
    case("missing_required_named", [EX[0], EMPTY], dense=[("a", F, [2], [])],
         names=[b"first", b"second"]),
    case("missing_required_scalar", EMPTY, dense=[("a", F, [2], [])]),
    case("empty_feature_required", [example(a=None)], dense=[("a", F, [2], [])]),
    case("dense_wrong_type", EX, dense=[("b", F, [1], [])]),
    case("dense_wrong_count", EX, dense=[("a", F, [3], [])]),
    case("dense_wrong_count_named", EX, dense=[("a", F, [3], [])], names=[b"p", b"q", b"r"]),
    case("varlen_not_multiple", EX, dense=[("b", I64, [-1, 2], [])]),
    case("varlen_not_multiple_scalar", EX[0], dense=[("b", I64, [-1, 2], [])]),
    case("sparse_wrong_type", EX, sparse=[("b", S)]),
    case("ragged_wrong_type", EX, ragged=[("s", I64, I64)]),
    case("default_wrong_shape", EX, dense=[("a", F, [2], [1.0, 2.0, 3.0])]),
    case("varlen_default_not_one_element", EX, sparse=[("a", F)],
         dense=[("a", F, [2], []), ("b", I64, [-1, 3], [])]),
    case("wrong_wire_type_features", [b"\x0a\x02\x08\x01"], sparse=[("a", F)]),
    case("start_group", [b"\x0b"], sparse=[("a", F)]),
]
ERROR_CASES = {c["id"] for c in CASES[CASES.index(next(c for c in CASES
                                                        if c["id"] == "missing_required")):]}

TF_SCRIPT = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    import tensorflow as tf
    cases = pickle.load(open(sys.argv[1], "rb"))
    D = {"float32": tf.float32, "int64": tf.int64, "string": tf.string, "int32": tf.int32}
    def shape(s):
        return tf.TensorShape([None if d == -1 else d for d in s])
    def default(dtype, shape_, values):
        if shape_ and shape_[0] == -1 and values:
            return tf.constant(values[0], D[dtype])
        if not values or len(values) != int(np.prod(shape_)):
            return tf.constant(values, D[dtype])
        return tf.reshape(tf.constant(values, D[dtype]), [d for d in shape_])
    out = {}
    for c in cases:
        try:
            r = tf.raw_ops.ParseExampleV2(
                serialized=c["serialized"], names=c["names"],
                sparse_keys=[k for k, _ in c["sparse"]], dense_keys=[d[0] for d in c["dense"]],
                ragged_keys=[k for k, _, _ in c["ragged"]],
                dense_defaults=[default(d[1], d[2], d[3]) for d in c["dense"]],
                num_sparse=len(c["sparse"]), sparse_types=[D[t] for _, t in c["sparse"]],
                ragged_value_types=[D[t] for _, t, _ in c["ragged"]],
                ragged_split_types=[D[t] for _, _, t in c["ragged"]],
                dense_shapes=[shape(d[2]) for d in c["dense"]])
            out[c["id"]] = [[(t.numpy().tolist(), list(t.shape)) for t in group] for group in r]
        except tf.errors.OpError as e:
            out[c["id"]] = ("error", type(e).__name__, e.message)
    # ParseExample (v1) and ParseSingleExample, through the raw ops
    ex = cases[0]["serialized"]
    r = tf.raw_ops.ParseExample(serialized=ex, names=[], sparse_keys=["b"], dense_keys=["a"],
                                dense_defaults=[tf.constant([], tf.float32)],
                                sparse_types=[tf.int64], dense_shapes=[[2]])
    out["v1"] = [[t.numpy().tolist() for t in group] for group in r]
    r = tf.raw_ops.ParseSingleExample(serialized=ex[0], dense_defaults=[
        tf.constant([], tf.float32), tf.constant([b"d"], tf.string)], num_sparse=1,
        sparse_keys=["s"], dense_keys=["a", "zz"], sparse_types=[tf.string],
        dense_shapes=[[2], [1]])
    out["single"] = [[t.numpy().tolist() for t in group] for group in r]
    for name, fn in [("v1_missing", lambda: tf.raw_ops.ParseExample(
            serialized=ex, names=[], sparse_keys=[], dense_keys=["zz"],
            dense_defaults=[tf.constant([], tf.float32)], sparse_types=[], dense_shapes=[[1]])),
            ("single_missing", lambda: tf.raw_ops.ParseSingleExample(
            serialized=ex[0], dense_defaults=[tf.constant([], tf.float32)], num_sparse=0,
            sparse_keys=[], dense_keys=["zz"], sparse_types=[], dense_shapes=[[1]]))]:
        try:
            fn()
            out[name] = None
        except tf.errors.OpError as e:
            out[name] = ("error", type(e).__name__, e.message)
    pickle.dump(out, open(sys.argv[2], "wb"))
""")


@pytest.fixture(scope="module")
def tf_ref(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parse_example_tf")
    (folder / "cases.pkl").write_bytes(pickle.dumps(CASES))
    run_tf(["-c", TF_SCRIPT, str(folder / "cases.pkl"), str(folder / "out.pkl")], cwd=folder)
    return pickle.loads((folder / "out.pkl").read_bytes())


def _default(dtype, shape, values):
    if shape and shape[0] == -1 and values:
        return np.array(values[0], NP[dtype])
    if not values or len(values) != int(np.prod(shape)):
        return np.array(values, NP[dtype])
    return np.array(values, NP[dtype]).reshape(shape)


def _inputs(c):
    return dict(serialized=np.array(c["serialized"], object), names=np.array(c["names"], object),
                sparse_keys=np.array([k for k, _ in c["sparse"]], object),
                dense_keys=np.array([d[0] for d in c["dense"]], object),
                ragged_keys=np.array([k for k, _, _ in c["ragged"]], object),
                dense_defaults=[_default(*d[1:]) for d in c["dense"]])


def _attrs(c):
    return dict(num_sparse=len(c["sparse"]), sparse_types=[t for _, t in c["sparse"]],
                ragged_value_types=[t for _, t, _ in c["ragged"]],
                ragged_split_types=[t for _, _, t in c["ragged"]],
                dense_shapes=[d[2] for d in c["dense"]])


def _as_lists(groups):
    return [[(np.asarray(t).tolist(), list(np.asarray(t).shape)) for t in group]
            for group in groups]


def _tf_message(want) -> str:
    """TensorFlow's message less its "{{function_node ...}} " prefix and " [Op:...]"."""
    return want[2].split(" [Op:")[0].split("}} ")[-1]


@pytest.mark.parametrize("c", CASES, ids=[c["id"] for c in CASES])
def test_parse_example_v2_matches_tensorflow_eagerly(c, tf_ref):
    want = tf_ref[c["id"]]
    assert (c["id"] in ERROR_CASES) == (want[0] == "error"), want
    if want[0] == "error":
        with pytest.raises(errors.InvalidArgumentError) as e:
            opgen.ops.parse_example_v2(**_inputs(c), **_attrs(c))
        assert want[1] == "InvalidArgumentError"
        if not c["id"].startswith(("wrong_wire", "start_group")):
            assert _tf_message(want) in str(e.value)
        else:   # TensorFlow quotes the raw bytes too
            assert "Could not parse example input" in str(e.value)
        return
    got = opgen.ops.parse_example_v2(**_inputs(c), **_attrs(c))
    assert _as_lists(got) == want


GRAPH_CASES = [c for c in CASES if c["id"] not in ERROR_CASES]


@pytest.mark.parametrize("c", GRAPH_CASES, ids=[c["id"] for c in GRAPH_CASES])
def test_parse_example_v2_in_a_graph(c, tf_ref):
    """Fed through a placeholder; the static shapes agree with what runs."""
    inputs = _inputs(c)
    serialized = inputs.pop("serialized")
    g = opgen.Graph()
    with g.as_default():
        ph = opgen.ops.placeholder(opgen.string, shape=serialized.shape)
        outs = opgen.ops.parse_example_v2(ph, **inputs, **_attrs(c))
    flat = [t for group in outs for t in group]
    with opgen.Session(graph=g) as session:
        values = session.run(flat, {ph: serialized}) if flat else []
    want = [t for group in tf_ref[c["id"]] for t in group]
    assert [(np.asarray(v).tolist(), list(np.asarray(v).shape)) for v in values] == want
    for out, value in zip(flat, values):
        static = out.shape.as_list() if hasattr(out.shape, "as_list") else list(out.shape)
        assert len(static) == np.asarray(value).ndim
        assert all(s is None or s == v for s, v in zip(static, np.asarray(value).shape))


def test_parse_example_v1_and_single_match_tensorflow(tf_ref):
    ex = np.array(CASES[0]["serialized"], object)
    got = opgen.ops.parse_example(ex, np.array([], object), [np.array("b", object)],
                                  [np.array("a", object)], [np.array([], np.float32)],
                                  sparse_types=[I64], dense_shapes=[[2]])
    assert [[np.asarray(t).tolist() for t in group] for group in got] == tf_ref["v1"]
    got = opgen.ops.parse_single_example(
        ex[0], [np.array([], np.float32), np.array([b"d"], object)], num_sparse=1,
        sparse_keys=["s"], dense_keys=["a", "zz"], sparse_types=[S], dense_shapes=[[2], [1]])
    assert [[np.asarray(t).tolist() for t in group] for group in got] == tf_ref["single"]
    with pytest.raises(errors.InvalidArgumentError) as e:
        opgen.ops.parse_example(ex, np.array([], object), [], [np.array("zz", object)],
                                [np.array([], np.float32)], sparse_types=[], dense_shapes=[[1]])
    assert _tf_message(tf_ref["v1_missing"]) in str(e.value)
    with pytest.raises(errors.InvalidArgumentError) as e:
        opgen.ops.parse_single_example(ex[0], [np.array([], np.float32)], num_sparse=0,
                                       sparse_keys=[], dense_keys=["zz"], sparse_types=[],
                                       dense_shapes=[[1]])
    assert _tf_message(tf_ref["single_missing"]) in str(e.value)


def test_a_feature_set_twice_keeps_the_later_kind_as_protobuf_does():
    """Feature's `kind` is a oneof: protobuf keeps the member set last (TensorFlow's fast
    parser looks at the first tag instead; serializers never write both)."""
    data = _two_kinds()
    f = Example.FromString(data).features.feature["k"]
    assert f.WhichOneof("kind") == "int64_list"
    got = opgen.ops.parse_example_v2(np.array([data], object), np.array([], object),
                                     np.array(["k"], object), np.array([], object),
                                     np.array([], object), [], num_sparse=1, sparse_types=[I64],
                                     ragged_value_types=[], ragged_split_types=[],
                                     dense_shapes=[])
    assert got.sparse_values[0].tolist() == list(f.int64_list.value) == [7, 8]


def _parse_sparse(serialized: bytes):
    return opgen.ops.parse_example_v2(np.array([serialized], object), np.array([], object),
                                      np.array(["a"], object), np.array([], object),
                                      np.array([], object), [], num_sparse=1,
                                      sparse_types=[F], ragged_value_types=[],
                                      ragged_split_types=[], dense_shapes=[])


GOOD = example(a=[1.0, 2.0, 3.0], b=[1, 2], s=[b"abc"])


@pytest.mark.parametrize("cut", range(1, len(GOOD)))
def test_truncated_examples_raise(cut):
    """Every proper prefix that protobuf refuses raises InvalidArgumentError (no crash);
    the ones protobuf accepts parse."""
    prefix = GOOD[:cut]
    if parses(prefix):
        _parse_sparse(prefix)
        return
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse example input"):
        _parse_sparse(prefix)


@pytest.mark.parametrize("bad", [
    # b"\x0a\x05": TensorFlow reads this truncated field as empty; protobuf refuses it
    b"\x0a\x05", b"\x0a\x03\x0a\x01", b"\x0a\x80", b"\xff" * 11, b"\x0f", b"\x0c",
    b"\x0a\x02\x0a\x05", _wrap("a", b"\x12\x03\x0d\x00\x00"), _wrap("a", b"\x12\x02\x0a\x05"),
    _wrap("a", b"\x1a\x02\x08\x80"), _wrap("a", b"\x12\x02\x08\x01"), _wrap("a", b"\x0a\x02\x08\x01"),
    _wrap("a", b"\x08\x01"),
], ids=lambda b: b.hex())
def test_malformed_bytes_raise_invalid_argument(bad):
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse example input"):
        _parse_sparse(bad)


def test_random_corruptions_never_crash():
    """Flipped bytes of a valid Example: parse or InvalidArgumentError, and where protobuf
    accepts the bytes and keeps the feature a float list, the same values."""
    rng = np.random.default_rng(7)
    raised = 0
    for _ in range(300):
        data = bytearray(GOOD)
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(len(data))] = int(rng.integers(256))
        try:
            got = _parse_sparse(bytes(data))
        except errors.InvalidArgumentError:
            raised += 1
            continue
        if parses(bytes(data)):
            f = Example.FromString(bytes(data)).features.feature
            if "a" in f and f["a"].WhichOneof("kind") == "float_list":
                np.testing.assert_array_equal(got.sparse_values[0],
                                              np.array(f["a"].float_list.value, np.float32))
    assert raised > 0


def test_shapes_in_a_graph():
    """Static shapes: batch + dense shape (unknown for a variable length), [?, rank + 1]
    sparse indices, [rank + 1] sparse shapes, batch + 1 row splits."""
    g = opgen.Graph()
    with g.as_default():
        ph = opgen.ops.placeholder(opgen.string, shape=[4])
        out = opgen.ops.parse_example_v2(
            ph, [], ["s"], ["d", "v"], ["r"], [np.zeros([2, 3], np.float32), np.int64(0)],
            num_sparse=1, sparse_types=[I64], ragged_value_types=[S], ragged_split_types=[I64],
            dense_shapes=[[2, 3], [-1]])

    def dims(t):
        return t.shape.as_list() if hasattr(t.shape, "as_list") else list(t.shape)
    assert dims(out.sparse_indices[0]) == [None, 2]
    assert dims(out.sparse_shapes[0]) == [2]
    assert dims(out.dense_values[0]) == [4, 2, 3]
    assert dims(out.dense_values[1]) == [4, None]
    assert dims(out.ragged_row_splits[0]) == [5]


# ---- end to end: a serving SavedModel that takes serialized Examples ---------------------

SAVED_MODEL_SCRIPT = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    import tensorflow as tf
    out_dir, examples_path, result_path = sys.argv[1:4]
    rng = np.random.default_rng(3)

    class Served(tf.Module):
        def __init__(self):
            self.w = tf.Variable(rng.normal(size=(5, 3)).astype(np.float32))
            self.b = tf.Variable(rng.normal(size=(3,)).astype(np.float32))

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string, name="examples")])
        def serve(self, examples):
            spec = {"x": tf.io.FixedLenFeature([3], tf.float32),
                    "w": tf.io.FixedLenFeature([1], tf.float32, default_value=[1.0]),
                    "n": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True,
                                                       default_value=0),
                    "tag": tf.io.FixedLenFeature([], tf.string, default_value="none")}
            f = tf.io.parse_example(examples, spec)
            count = tf.cast(tf.reduce_sum(f["n"], axis=1, keepdims=True), tf.float32)
            features = tf.concat([f["x"], f["w"], count], axis=1)
            y = tf.nn.relu(tf.matmul(features, self.w) + self.b)
            return {"y": y, "tag": f["tag"], "n": f["n"]}

    m = Served()
    tf.saved_model.save(m, out_dir, signatures={"serving_default": m.serve})
    examples = pickle.load(open(examples_path, "rb"))
    loaded = tf.saved_model.load(out_dir)
    got = loaded.signatures["serving_default"](examples=tf.constant(examples))
    pickle.dump({k: v.numpy() for k, v in got.items()}, open(result_path, "wb"))
""")


def test_serving_saved_model_parsing_examples_gives_tensorflows_outputs(tmp_path):
    examples = [example(x=[0.5, -1.0, 2.0], w=[0.25], n=[1, 2, 3], tag=[b"a"]),
                example(x=[1.0, 1.0, 1.0]),
                example(x=[-2.0, 0.0, 3.5], n=[7], tag=[b"bb"])]
    (tmp_path / "examples.pkl").write_bytes(pickle.dumps(examples))
    run_tf(["-c", SAVED_MODEL_SCRIPT, tmp_path / "model", tmp_path / "examples.pkl",
            tmp_path / "want.pkl"], cwd=tmp_path, env=tf_env(CUDA_VISIBLE_DEVICES=""))
    want = pickle.loads((tmp_path / "want.pkl").read_bytes())
    from opgen import saved_model

    with saved_model.load(tmp_path / "model") as model:
        got = model.signatures["serving_default"](examples=np.array(examples, object))
    assert set(got) == set(want) == {"y", "tag", "n"}
    np.testing.assert_allclose(got["y"], want["y"], rtol=2e-5, atol=2e-6)
    assert np.asarray(got["tag"]).tolist() == want["tag"].tolist() == [b"a", b"none", b"bb"]
    assert np.asarray(got["n"]).tolist() == want["n"].tolist() == [[1, 2, 3], [0, 0, 0], [7, 0, 0]]
    assert np.abs(want["y"]).sum() > 0   # the model is not trivially zero


def test_reshape_of_strings_copies_the_elements():
    """tf.io.parse_example reshapes string defaults: Reshape of strings as numpy's, a -1
    solved, long strings (heap-held) intact, and TensorFlow's message for a bad shape."""
    x = np.array([[b"a", b"bb"], [b"c" * 40, b""]], object)
    for shape in ([4], [1, -1], [-1, 1, 2], [2, 2]):
        got = opgen.ops.reshape(x, np.array(shape, np.int64))
        assert np.asarray(got).tolist() == x.reshape(shape).tolist()
    with pytest.raises(errors.InvalidArgumentError, match="tensor with 4 values"):
        opgen.ops.reshape(x, np.array([3, -1], np.int32))


# ---- ParseTensor / SerializeTensor -----------------------------------------------------

TENSOR_CASES = {
    "float32": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
    "float64": np.array([1e-300, -0.0, np.inf], np.float64),
    "float16": np.array([[0.5, -2.0]], np.float16),
    "int32": np.array(-7, np.int32),
    "int64": np.array([[1 << 40], [-3]], np.int64),
    "uint8": np.arange(5, dtype=np.uint8),
    "bool": np.array([True, False, True]),
    "complex64": np.array([1 + 2j, -3j], np.complex64),
    "empty": np.zeros([0, 3], np.float32),
    "string": np.array([[b"a", b""], [b"x" * 30, b"\x00\xff"]], object),
}

TENSOR_SCRIPT = textwrap.dedent("""
    import pickle, sys
    import numpy as np
    import tensorflow as tf
    cases = pickle.load(open(sys.argv[1], "rb"))
    out = {}
    for name, value in cases.items():
        out[name] = tf.io.serialize_tensor(tf.constant(value)).numpy()
    def err(fn):
        try:
            fn()
        except tf.errors.OpError as e:
            return e.message
    out["mismatch"] = err(lambda: tf.io.parse_tensor(out["float32"], tf.int32))
    out["garbage"] = err(lambda: tf.io.parse_tensor(b"\\x0a", tf.int32))
    pickle.dump(out, open(sys.argv[2], "wb"))
""")


@pytest.fixture(scope="module")
def tf_tensors(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serialize_tensor_tf")
    (folder / "cases.pkl").write_bytes(pickle.dumps(TENSOR_CASES))
    run_tf(["-c", TENSOR_SCRIPT, str(folder / "cases.pkl"), str(folder / "out.pkl")], cwd=folder)
    return pickle.loads((folder / "out.pkl").read_bytes())


@pytest.mark.parametrize("name", list(TENSOR_CASES))
def test_serialize_tensor_writes_tensorflows_bytes_and_parse_tensor_reads_them(name, tf_tensors):
    value = TENSOR_CASES[name]
    dtype = "string" if value.dtype == object else value.dtype
    assert np.asarray(opgen.ops.serialize_tensor(value)).item() == tf_tensors[name]
    back = np.asarray(opgen.ops.parse_tensor(np.array(tf_tensors[name], object), out_type=dtype))
    assert back.shape == value.shape
    assert back.tolist() == value.tolist() or np.array_equal(back, value)
    g = opgen.Graph()
    with g.as_default():
        ph = opgen.ops.placeholder(opgen.string, shape=[])
        out = opgen.ops.parse_tensor(ph, out_type=dtype)
    with opgen.Session(graph=g) as session:
        assert np.asarray(session.run(out, {ph: np.array(tf_tensors[name], object)})).tolist() \
            == back.tolist()


def test_parse_tensor_errors_are_tensorflows(tf_tensors):
    with pytest.raises(errors.InvalidArgumentError) as e:
        opgen.ops.parse_tensor(np.array(tf_tensors["float32"], object), out_type="int32")
    assert _tf_message((None, None, tf_tensors["mismatch"])) in str(e.value)
    with pytest.raises(errors.InvalidArgumentError) as e:
        opgen.ops.parse_tensor(np.array(b"\x0a", object), out_type="int32")
    assert "Could not parse `serialized` as TensorProto" in tf_tensors["garbage"]
    assert "Could not parse `serialized` as TensorProto" in str(e.value)
    with pytest.raises(errors.InvalidArgumentError, match="to be a scalar"):
        opgen.ops.parse_tensor(np.array([b"", b""], object), out_type="int32")
