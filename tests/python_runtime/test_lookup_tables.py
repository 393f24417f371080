"""Lookup tables (HashTableV2, MutableHashTableV2 and the import, initialize, find,
insert, size and export ops), eagerly and in sessions, against a Python dict: missing
keys get the default, dtypes are checked as TensorFlow checks them, a HashTable is
filled once, a MutableHashTable changes, a session keeps its tables across runs and a
new session starts without them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.runtime import errors
from tf_reference import run_tf

pytestmark = pytest.mark.usefixtures("runtime_lib")

_names = itertools.count()


def _s(values, shape=None):
    array = np.empty(len(values), object)
    array[:] = [v.encode() if isinstance(v, str) else v for v in values]
    return array.reshape(shape) if shape else array


def _table(key_dtype, value_dtype, mutable=False):
    make = ops.mutable_hash_table_v2 if mutable else ops.hash_table_v2
    return make(key_dtype=key_dtype, value_dtype=value_dtype,
                shared_name=f"test_table_{next(_names)}")


def _strings(xs):
    return [x.encode() if isinstance(x, str) else x for x in xs]


# (key dtype, value dtype, keys, values, probes, default)
PAIRS = [
    (opgen.string, opgen.int64, _s(["a", "b", "", "\u00e9"]), np.int64([1, 2, 3, 4]),
     _s(["b", "zz", "", "\u00e9", "A", "a"], (2, 3)), np.int64(-1)),
    (opgen.int64, opgen.int64, np.int64([5, -7, 2**40]), np.int64([50, 70, 1]),
     np.int64([[5, 6], [2**40, -7]]), np.int64(0)),
    (opgen.int64, opgen.string, np.int64([1, 2]), _s(["one", "two"]),
     np.int64([2, 3, 1]), _s(["?"])[0]),
    (opgen.string, opgen.string, _s(["k", "L" * 40]), _s(["v", "w" * 30]),
     _s(["L" * 40, "k", "x"]), _s(["-"])[0]),
    (opgen.int32, opgen.float32, np.int32([3, 4]), np.float32([0.5, -1.25]),
     np.int32([4, 0, 3]), np.float32(np.nan)),
    (opgen.string, opgen.float64, _s(["p"]), np.float64([2.5]), _s(["p", "q"]),
     np.float64(7)),
    (opgen.int64, opgen.int32, np.int64([9]), np.int32([90]), np.int64([9, 8]), np.int32(-9)),
    (opgen.string, opgen.bool, _s(["t", "f"]), np.bool_([True, False]), _s(["f", "t", "?"]),
     np.bool_(True)),
]


def _expected(keys, values, probes, default):
    table = dict(zip(keys.ravel().tolist(), values.ravel().tolist()))
    want = [table.get(k, default.item() if hasattr(default, "item") else default)
            for k in probes.ravel().tolist()]
    return np.array(want, dtype=values.dtype).reshape(probes.shape)


@pytest.mark.parametrize("pair", range(len(PAIRS)))
@pytest.mark.parametrize("mutable", [False, True])
def test_find_gives_the_dicts_values_and_the_default(pair, mutable):
    key_dtype, value_dtype, keys, values, probes, default = PAIRS[pair]
    t = _table(key_dtype, value_dtype, mutable)
    ops.lookup_table_import_v2(t, keys, values)
    got = ops.lookup_table_find_v2(t, probes, default).numpy()
    np.testing.assert_array_equal(got, _expected(keys, values, probes, default))
    assert got.dtype == values.dtype
    assert ops.lookup_table_size_v2(t).numpy() == len(keys)
    k, v = ops.lookup_table_export_v2(t, Tkeys=key_dtype, Tvalues=value_dtype)
    assert sorted(zip(k.numpy().tolist(), v.numpy().tolist())) == sorted(
        zip(keys.tolist(), values.tolist()))


def test_hash_table_fills_once_and_refuses_other_data():
    t = _table(opgen.string, opgen.int64)
    with pytest.raises(errors.FailedPreconditionError, match="not initialized"):
        ops.lookup_table_find_v2(t, _s(["a"]), np.int64(0)).numpy()
    assert ops.lookup_table_size_v2(t).numpy() == 0
    ops.initialize_table_v2(t, _s(["a", "b"]), np.int64([1, 2]))
    ops.lookup_table_import_v2(t, _s(["b", "a"]), np.int64([2, 1]))  # the same data: fine
    # TensorFlow 2.21 compares only the sizes: other data of one size is ignored ...
    ops.lookup_table_import_v2(t, _s(["x", "y"]), np.int64([8, 9]))
    got = ops.lookup_table_find_v2(t, _s(["a", "b", "x"]), np.int64(-1)).numpy()
    assert got.tolist() == [1, 2, -1]
    # ... and data of another size refused.
    with pytest.raises(errors.FailedPreconditionError, match="different data"):
        ops.lookup_table_import_v2(t, _s(["a"]), np.int64([5]))
    with pytest.raises(errors.FailedPreconditionError, match="different data"):
        ops.initialize_table_v2(t, _s(["a", "b", "c"]), np.int64([1, 2, 3]))
    with pytest.raises(errors.UnimplementedError, match="Insert"):
        ops.lookup_table_insert_v2(t, _s(["c"]), np.int64([3]))
    dup = _table(opgen.string, opgen.int64)
    with pytest.raises(errors.FailedPreconditionError, match="different value for same key"):
        ops.lookup_table_import_v2(dup, _s(["a", "a"]), np.int64([1, 2]))
    ops.lookup_table_import_v2(dup, _s(["a", "a"]), np.int64([1, 1]))
    assert ops.lookup_table_size_v2(dup).numpy() == 1


def test_mutable_table_inserts_replaces_and_takes_per_key_defaults():
    t = _table(opgen.string, opgen.int64, mutable=True)
    assert ops.lookup_table_find_v2(t, _s(["a"]), np.int64(-1)).numpy().tolist() == [-1]
    ops.lookup_table_insert_v2(t, _s(["a", "b"]), np.int64([1, 2]))
    ops.lookup_table_insert_v2(t, _s(["b", "c"]), np.int64([20, 30]))
    got = ops.lookup_table_find_v2(t, _s(["a", "b", "c", "d"]), np.int64([-1, -2, -3, -4]))
    assert got.numpy().tolist() == [1, 20, 30, -4]
    ops.lookup_table_import_v2(t, _s(["z"]), np.int64([26]))  # replaces everything
    assert ops.lookup_table_size_v2(t).numpy() == 1
    assert ops.lookup_table_find_v2(t, _s(["a", "z"]), np.int64(0)).numpy().tolist() == [0, 26]


def test_dtype_and_shape_errors_are_invalid_argument():
    t = _table(opgen.string, opgen.int64)
    ops.lookup_table_import_v2(t, _s(["a"]), np.int64([1]))
    with pytest.raises(errors.InvalidArgumentError, match="Key must be type string but got int64"):
        ops.lookup_table_find_v2(t, np.int64([1]), np.int64(0)).numpy()
    with pytest.raises(errors.InvalidArgumentError, match="Value must be type int64 but got int32"):
        ops.lookup_table_find_v2(t, _s(["a"]), np.int32(0)).numpy()
    with pytest.raises(errors.InvalidArgumentError, match="default_value"):
        ops.lookup_table_find_v2(t, _s(["a", "b"]), np.int64([0, 1, 2])).numpy()
    m = _table(opgen.string, opgen.int64, mutable=True)
    with pytest.raises(errors.InvalidArgumentError, match="Expected shape"):
        ops.lookup_table_insert_v2(m, _s(["a", "b"]), np.int64([1]))
    with pytest.raises(errors.InvalidArgumentError, match="vector"):
        ops.initialize_table_v2(_table(opgen.string, opgen.int64), _s(["a"], (1, 1)),
                                np.int64([[1]]))
    with pytest.raises(errors.InvalidArgumentError):
        ops.lookup_table_export_v2(t, Tkeys=opgen.int64, Tvalues=opgen.int64)


def test_a_destroyed_table_is_not_found():
    t = _table(opgen.int64, opgen.int64)
    ops.lookup_table_import_v2(t, np.int64([1]), np.int64([2]))
    ops.destroy_resource_op(t, ignore_lookup_error=False)
    with pytest.raises(errors.NotFoundError):
        ops.lookup_table_size_v2(t).numpy()


def test_session_keeps_its_tables_across_runs_and_a_new_one_starts_empty():
    g = opgen.Graph()
    with g.as_default():
        table = g.create_op("HashTableV2", [], {"key_dtype": opgen.string,
                                                "value_dtype": opgen.int64},
                            name="vocab").outputs[0]
        keys = opgen.constant(_s(["the", "fox"]))
        init = g.create_op("InitializeTableV2", [table, keys, opgen.constant(np.int64([0, 1]))],
                           {}, name="init")
        x = g.create_op("Placeholder", [], {"dtype": opgen.string, "shape": [None]},
                        name="x").outputs[0]
        ids = ops.lookup_table_find_v2(table, x, np.int64(-1))
        size = ops.lookup_table_size_v2(table)
    with opgen.Session(g) as sess:
        with pytest.raises(errors.FailedPreconditionError, match="not initialized"):
            sess.run(ids, {x: _s(["fox"])})
        sess.run(init)
        assert sess.run(ids, {x: _s(["fox", "cat", "the"])}).tolist() == [1, -1, 0]
        assert sess.run(size) == 2
    with opgen.Session(g) as fresh:
        assert fresh.run(size) == 0


# ---- removal, and tables of tensors --------------------------------------------------------

def test_mutable_table_removes_keys_and_a_hash_table_refuses_to():
    t = _table(opgen.int64, opgen.string, mutable=True)
    ops.lookup_table_insert_v2(t, np.int64([1, 2, 3, 4]), _s(["a", "b", "c", "d"]))
    ops.lookup_table_remove_v2(t, np.int64([[2, 9], [4, 2]]))  # 9: absent, ignored
    assert ops.lookup_table_size_v2(t).numpy() == 2
    got = ops.lookup_table_find_v2(t, np.int64([1, 2, 3, 4]), _s(["-"])[0]).numpy()
    assert got.tolist() == _strings(["a", "-", "c", "-"])
    k, v = ops.lookup_table_export_v2(t, Tkeys=opgen.int64, Tvalues=opgen.string)
    assert sorted(zip(k.numpy().tolist(), v.numpy().tolist())) == [(1, b"a"), (3, b"c")]
    ops.lookup_table_insert_v2(t, np.int64([2]), _s(["B"]))  # a removed key comes back
    assert ops.lookup_table_find_v2(t, np.int64([2]), _s(["-"])[0]).numpy().tolist() == [b"B"]
    with pytest.raises(errors.InvalidArgumentError, match="Key must be type int64 but got int32"):
        ops.lookup_table_remove_v2(t, np.int32([1]))
    fixed = _table(opgen.int64, opgen.int64)
    ops.lookup_table_import_v2(fixed, np.int64([1]), np.int64([10]))
    with pytest.raises(errors.UnimplementedError, match="Remove not supported"):
        ops.lookup_table_remove_v2(fixed, np.int64([1]))


def _tensor_table(key_dtype, value_dtype, value_shape):
    return ops.mutable_hash_table_of_tensors_v2(key_dtype=key_dtype, value_dtype=value_dtype,
                                                value_shape=value_shape,
                                                shared_name=f"test_table_{next(_names)}")


def test_table_of_tensors_holds_a_row_per_key():
    t = _tensor_table(opgen.string, opgen.float32, [2])
    ops.lookup_table_insert_v2(t, _s(["a", "b", "c"]), np.float32([[1, 2], [3, 4], [5, 6]]))
    ops.lookup_table_insert_v2(t, _s(["b"]), np.float32([[30, 40]]))
    ops.lookup_table_remove_v2(t, _s(["a"]))
    probes = _s(["b", "a", "c", "zz"], (2, 2))
    got = ops.lookup_table_find_v2(t, probes, np.float32([-1, -2])).numpy()
    np.testing.assert_array_equal(got, np.float32([[[30, 40], [-1, -2]], [[5, 6], [-1, -2]]]))
    per_key = np.float32([[[0, 0], [7, 8]], [[0, 0], [9, 10]]])  # one default per key
    got = ops.lookup_table_find_v2(t, probes, per_key).numpy()
    np.testing.assert_array_equal(got, np.float32([[[30, 40], [7, 8]], [[5, 6], [9, 10]]]))
    k, v = ops.lookup_table_export_v2(t, Tkeys=opgen.string, Tvalues=opgen.float32)
    assert v.numpy().shape == (2, 2)
    assert sorted(zip(k.numpy().tolist(), v.numpy().tolist())) == [(b"b", [30, 40]), (b"c", [5, 6])]
    with pytest.raises(errors.InvalidArgumentError, match=r"Expected shape \[2,2\] for value"):
        ops.lookup_table_insert_v2(t, _s(["x", "y"]), np.float32([1, 2]))
    with pytest.raises(errors.InvalidArgumentError, match="for default value"):
        ops.lookup_table_find_v2(t, _s(["b"]), np.float32(0)).numpy()
    ops.lookup_table_import_v2(t, _s(["q"]), np.float32([[1, 1]]))  # replaces everything
    assert ops.lookup_table_size_v2(t).numpy() == 1


def test_table_of_tensors_matrix_values_and_bools():
    t = _tensor_table(opgen.int64, opgen.bool, [2, 3])
    values = np.arange(12).reshape(2, 2, 3) % 3 == 0
    ops.lookup_table_insert_v2(t, np.int64([5, 6]), values)
    got = ops.lookup_table_find_v2(t, np.int64([6, 7, 5]), np.ones((2, 3), bool)).numpy()
    np.testing.assert_array_equal(got, np.stack([values[1], np.ones((2, 3), bool), values[0]]))


TF_SCRIPT = r"""
import os, pickle, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
t = tf.raw_ops.MutableHashTableOfTensorsV2(key_dtype=tf.string, value_dtype=tf.int64,
                                           value_shape=[3], shared_name="t")
tf.raw_ops.LookupTableInsertV2(table_handle=t, keys=["a", "b", "c", "d"],
                               values=np.arange(12).reshape(4, 3))
tf.raw_ops.LookupTableRemoveV2(table_handle=t, keys=[["b", "zz"], ["d", "b"]])
out = {"size": tf.raw_ops.LookupTableSizeV2(table_handle=t).numpy(),
       "find": tf.raw_ops.LookupTableFindV2(table_handle=t, keys=[["a", "b"], ["c", "d"]],
                                            default_value=np.int64([-1, -2, -3])).numpy()}
errors = {}
for name, fn in {
    "insert_shape": lambda: tf.raw_ops.LookupTableInsertV2(table_handle=t, keys=["x"],
                                                          values=np.int64([1, 2, 3])),
    "default_shape": lambda: tf.raw_ops.LookupTableFindV2(table_handle=t, keys=["a"],
                                                         default_value=np.int64([1, 2])),
    "remove_hash_table": lambda: tf.raw_ops.LookupTableRemoveV2(
        table_handle=tf.raw_ops.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64),
        keys=["a"]),
}.items():
    try:
        fn()
        errors[name] = None
    except tf.errors.OpError as e:
        errors[name] = (type(e).__name__, e.message.split(" [Op:")[0].split("}} ")[-1])
out["errors"] = errors
pickle.dump(out, open(sys.argv[1], "wb"))
"""


def test_remove_and_tables_of_tensors_match_tensorflow(tmp_path):
    import pickle
    run_tf(["-c", TF_SCRIPT, tmp_path / "out.pkl"], cwd=tmp_path, timeout=300)
    want = pickle.loads((tmp_path / "out.pkl").read_bytes())
    t = _tensor_table(opgen.string, opgen.int64, [3])
    ops.lookup_table_insert_v2(t, _s(["a", "b", "c", "d"]), np.arange(12).reshape(4, 3))
    ops.lookup_table_remove_v2(t, _s(["b", "zz", "d", "b"], (2, 2)))
    assert ops.lookup_table_size_v2(t).numpy() == want["size"]
    got = ops.lookup_table_find_v2(t, _s(["a", "b", "c", "d"], (2, 2)), np.int64([-1, -2, -3]))
    np.testing.assert_array_equal(got.numpy(), want["find"])
    calls = {
        "insert_shape": lambda: ops.lookup_table_insert_v2(t, _s(["x"]), np.int64([1, 2, 3])),
        "default_shape": lambda: ops.lookup_table_find_v2(t, _s(["a"]), np.int64([1, 2])).numpy(),
        "remove_hash_table": lambda: ops.lookup_table_remove_v2(
            _table(opgen.string, opgen.int64), _s(["a"])),
    }
    for name, call in calls.items():
        kind, message = want["errors"][name]
        with pytest.raises(getattr(errors, kind)) as info:
            call()
        assert message in str(info.value), (name, message, str(info.value))
