"""SaveV2 / RestoreV2 / MergeV2Checkpoints and opgen.train.Saver: round trips, the
committed TensorFlow-written checkpoints (tests/fixtures/checkpoints, made by
tools/make_checkpoint_fixtures.py) read back to their values, and the errors a missing,
truncated or corrupted checkpoint, a missing name or a wrong dtype or shape gives."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "checkpoints"


@pytest.fixture(scope="module")
def expected() -> dict[str, np.ndarray]:
    with np.load(FIXTURES / "expected.npz", allow_pickle=True) as data:
        return {k: data[k] for k in data.files}


def _of(expected, checkpoint):
    return {k.split("/", 1)[1]: v for k, v in expected.items() if k.startswith(checkpoint + "/")}


def _dtype(value: np.ndarray):
    return opgen.string if value.dtype == object else opgen.as_dtype(value.dtype)


def _restore(prefix, names, types):
    return ops.restore_v2(str(prefix), list(names), [""] * len(names), list(types))


def _save(prefix, values: dict[str, np.ndarray]):
    names = list(values)
    tensors = [opgen.constant(values[n]) if values[n].dtype == object
               else opgen.convert_to_tensor(values[n]) for n in names]
    ops.save_v2(str(prefix), names, [""] * len(names), tensors)


def _assert_equal(got, want, name):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.shape == want.shape, name
    if want.dtype == object:
        assert got.dtype == object and got.tolist() == want.tolist(), name
    else:
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("checkpoint", ["raw", "saver", "object"])
def test_tensorflow_written_checkpoints_restore(expected, checkpoint):
    values = _of(expected, checkpoint)
    restored = _restore(FIXTURES / checkpoint, values, [_dtype(v) for v in values.values()])
    for (name, want), got in zip(values.items(), restored):
        _assert_equal(got, want, name)


def test_tensorflow_object_graph_is_a_string(expected):
    graph = _restore(FIXTURES / "object", ["_CHECKPOINTABLE_OBJECT_GRAPH"], [opgen.string])[0]
    assert graph.dtype == opgen.string and graph.shape == () and len(graph.numpy()[()]) > 10


def test_round_trip_writes_tensorflows_bytes(expected, tmp_path):
    values = _of(expected, "raw")
    values = {n: values[n] for n in sorted(values)}  # the order TensorFlow's fixture used
    _save(tmp_path / "ck", values)
    restored = _restore(tmp_path / "ck", values, [_dtype(v) for v in values.values()])
    for (name, want), got in zip(values.items(), restored):
        _assert_equal(got, want, name)
    # The same tensors in the same order: the data file is TensorFlow's byte for byte.
    assert (tmp_path / "ck.data-00000-of-00001").read_bytes() == \
        (FIXTURES / "raw.data-00000-of-00001").read_bytes()


def test_merge(tmp_path):
    _save(tmp_path / "part0" / "p", {"a": np.arange(3, dtype=np.float32)})
    _save(tmp_path / "part1" / "p", {"b": np.array([b"x" * 40], dtype=object)})
    ops.merge_v2_checkpoints([str(tmp_path / "part0" / "p"), str(tmp_path / "part1" / "p")],
                             str(tmp_path / "merged"))
    a, b = _restore(tmp_path / "merged", ["a", "b"], [opgen.float32, opgen.string])
    np.testing.assert_array_equal(a.numpy(), np.arange(3, dtype=np.float32))
    assert b.numpy().tolist() == [b"x" * 40]
    assert sorted(os.listdir(tmp_path)) == ["merged.data-00000-of-00002",
                                            "merged.data-00001-of-00002", "merged.index"]


# ---- errors ------------------------------------------------------------------------------

def test_missing_checkpoint_and_name(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nothing"):
        _restore(tmp_path / "nothing", ["a"], [opgen.float32])
    with pytest.raises(errors.NotFoundError, match="Key missing not found"):
        _restore(FIXTURES / "raw", ["missing"], [opgen.float32])


def test_dtype_mismatch_names_the_tensor():
    with pytest.raises(errors.InvalidArgumentError, match=r"'floats'.*float.*int32"):
        _restore(FIXTURES / "raw", ["floats"], [opgen.int32])


def _copy(tmp_path, name="raw") -> Path:
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(FIXTURES / (name + suffix), tmp_path / (name + suffix))
    return tmp_path / name


def test_corrupt_data_is_data_loss(tmp_path):
    prefix = _copy(tmp_path)
    data = bytearray((tmp_path / "raw.data-00000-of-00001").read_bytes())
    data[-3] ^= 0x40  # inside the last tensor, "u8"
    (tmp_path / "raw.data-00000-of-00001").write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match=r"'u8'.*checksum"):
        _restore(prefix, ["u8"], [opgen.uint8])
    _restore(prefix, ["floats"], [opgen.float32])  # the others still read


def test_truncated_files_are_data_loss(tmp_path):
    prefix = _copy(tmp_path)
    data = tmp_path / "raw.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[:-5])
    with pytest.raises(errors.DataLossError, match="truncated"):
        _restore(prefix, ["u8"], [opgen.uint8])
    index = tmp_path / "raw.index"
    index.write_bytes(index.read_bytes()[:-10])
    with pytest.raises(errors.DataLossError, match=r"raw\.index"):
        _restore(prefix, ["floats"], [opgen.float32])


def test_corrupt_index_is_data_loss(tmp_path):
    prefix = _copy(tmp_path)
    index = bytearray((tmp_path / "raw.index").read_bytes())
    index[20] ^= 0x01
    (tmp_path / "raw.index").write_bytes(bytes(index))
    with pytest.raises(errors.DataLossError, match="checksum"):
        _restore(prefix, ["floats"], [opgen.float32])


def test_failed_save_keeps_the_previous_checkpoint(tmp_path):
    _save(tmp_path / "ck", {"a": np.ones(2, np.float32)})
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(errors.InvalidArgumentError, match="twice"):
        ops.save_v2(str(tmp_path / "ck"), ["a", "a"], ["", ""], [np.zeros(1, np.float32)] * 2)
    assert sorted(os.listdir(tmp_path)) == before
    np.testing.assert_array_equal(_restore(tmp_path / "ck", ["a"], [opgen.float32])[0].numpy(),
                                  np.ones(2, np.float32))


def test_slices_are_refused(tmp_path):
    with pytest.raises(errors.UnimplementedError, match="slice"):
        ops.save_v2(str(tmp_path / "ck"), ["a"], ["4 0,2"], [np.zeros(2, np.float32)])


# ---- opgen.train.Saver -------------------------------------------------------------------

def test_saver_eager(tmp_path):
    w = opgen.Variable(np.arange(4, dtype=np.float32).reshape(2, 2), name="w")
    b = opgen.Variable(np.array([5, -6], np.int64), name="b")
    saver = opgen.train.Saver([w, b])
    path = saver.save(None, str(tmp_path / "model"), global_step=3)
    assert path == str(tmp_path / "model-3")
    assert opgen.train.latest_checkpoint(str(tmp_path)) == path
    w.assign(np.zeros((2, 2), np.float32))
    b.assign(np.zeros(2, np.int64))
    saver.restore(None, path)
    np.testing.assert_array_equal(w.numpy(), np.arange(4, dtype=np.float32).reshape(2, 2))
    np.testing.assert_array_equal(b.numpy(), [5, -6])


def test_saver_restores_tensorflow_saver_checkpoint(expected):
    w = opgen.Variable(np.zeros((2, 2), np.float32), name="w")
    b = opgen.Variable(np.zeros(2, np.int64), name="b")
    opgen.train.Saver([w, b]).restore(None, str(FIXTURES / "saver"))
    _assert_equal(w.numpy(), expected["saver/w"], "w")
    _assert_equal(b.numpy(), expected["saver/b"], "b")


def test_saver_shape_mismatch(tmp_path):
    w = opgen.Variable(np.zeros(3, np.float32), name="w")
    b = opgen.Variable(np.zeros(2, np.int64), name="b")
    with pytest.raises(errors.InvalidArgumentError, match="'w'"):
        opgen.train.Saver([w, b]).restore(None, str(FIXTURES / "saver"))


def test_saver_graph_mode(tmp_path):
    g = opgen.Graph()
    with g.as_default():
        v = opgen.Variable(np.array([1.0, 2.0], np.float32), name="v")
        s = opgen.Variable(np.array(b"text", dtype=object), name="s")
        saver = opgen.train.Saver()
        bump = v.assign_add(np.ones(2, np.float32))
    with opgen.Session(graph=g) as sess:
        sess.run(opgen.variables_initializer([v, s]))
        path = saver.save(sess, str(tmp_path / "g"))
        sess.run(bump)
        np.testing.assert_array_equal(sess.run(v.value()), [2.0, 3.0])
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run(v.value()), [1.0, 2.0])
        assert sess.run(s.value()) == b"text"
    assert g.get_operation_by_name("save/SaveV2").type == "SaveV2"


def test_graph_building_checks_operand_ranks():
    g = opgen.Graph()
    with g.as_default():
        prefixes = g.create_op("Placeholder", [], {"dtype": opgen.string, "shape": [2]},
                               name="prefixes").outputs[0]
        with pytest.raises(errors.InvalidArgumentError, match="prefix"):
            ops.restore_v2(prefixes, ["a"], [""], [opgen.float32])
        with pytest.raises(errors.InvalidArgumentError, match="length"):
            ops.save_v2("p", ["a", "b"], [""], [np.zeros(1, np.float32)] * 2)
        restored = ops.restore_v2("p", ["a"], [""], [opgen.float32])
        assert restored[0].shape is None  # known only from the file


def test_saver_object_checkpoint_by_name_and_missing_names(expected, tmp_path):
    v = opgen.Variable(np.zeros(3, np.float32), name="v")
    opgen.train.Saver({"v/.ATTRIBUTES/VARIABLE_VALUE": v}).restore(None, str(FIXTURES / "object"))
    _assert_equal(v.numpy(), expected["object/v/.ATTRIBUTES/VARIABLE_VALUE"], "v")
    with pytest.raises(errors.NotFoundError, match="Key v not found"):
        opgen.train.Saver([v]).restore(None, str(FIXTURES / "object"))
    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(np.zeros(2, np.float32), name="missing")
        saver = opgen.train.Saver()
    with opgen.Session(graph=g) as sess, pytest.raises(errors.NotFoundError, match="missing"):
        saver.restore(sess, str(FIXTURES / "saver"))
    assert w.name == "missing:0"


def test_saver_keeps_max_to_keep(tmp_path):
    v = opgen.Variable(np.zeros(1, np.float32), name="v")
    saver = opgen.train.Saver([v], max_to_keep=2)
    for step in range(4):
        saver.save(None, str(tmp_path / "m"), global_step=step)
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".index")) == \
        ["m-2.index", "m-3.index"]
    state = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "m-3"' in state and 'all_model_checkpoint_paths: "m-2"' in state
    assert opgen.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-3")
