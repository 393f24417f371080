"""The string ops of TensorFlow's save/restore graphs (StringJoin, ShardedFilename,
ShardedFilespec, StaticRegexFullMatch) and Select / SelectV2 on strings, against Python's
own formatting, `re.fullmatch` and numpy's `where`; bad operands give errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from opgen import ops
from opgen.runtime import errors

pytestmark = pytest.mark.usefixtures("runtime_lib")

# Short (inline) and LARGE TF_TStrings, empty and binary ones.
WORDS = [b"", b"ab", b"L" * 40, b"\x00\xff", "h\u00e9".encode()]


def _objects(values, shape=None):
    array = np.empty(len(values), object)
    array[:] = values
    return array.reshape(shape) if shape else array


def test_string_join_scalars_and_tensors():
    left = _objects(WORDS)
    right = _objects([w[::-1] + b"!" for w in WORDS])
    got = ops.string_join([left, _objects([b"::"])[0], right], separator="|").numpy()
    assert got.tolist() == [a + b"|::|" + b for a, b in zip(WORDS, right)]
    assert ops.string_join([_objects([b"a"])[0], _objects([b"b"])[0]]).numpy() == b"ab"


def test_string_join_shape_mismatch_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match="StringJoin"):
        ops.string_join([_objects([b"a", b"b"]), _objects([b"a", b"b", b"c"])]).numpy()


@pytest.mark.parametrize("shard, total", [(0, 1), (3, 12), (99999, 100000)])
def test_sharded_filename_and_filespec(shard, total):
    base = _objects([b"/tmp/x/part"])[0]
    got = ops.sharded_filename(base, np.int32(shard), np.int32(total)).numpy()
    assert got == b"/tmp/x/part-%05d-of-%05d" % (shard, total)
    assert ops.sharded_filespec(base, np.int32(total)).numpy() == (
        b"/tmp/x/part-?????-of-%05d" % total)


def test_sharded_filename_wants_scalars():
    with pytest.raises(errors.InvalidArgumentError):
        ops.sharded_filename(_objects([b"a", b"b"]), np.int32(0), np.int32(1)).numpy()


@pytest.mark.parametrize("pattern", ["^s3://.*", "[a-c]+x?", "a.*b", "(foo|bar)\\d{2}"])
def test_static_regex_full_match_is_pythons_fullmatch(pattern):
    words = [b"s3://bucket/x", b"/tmp/s3://", b"abcx", b"abc", b"azzb", b"azzbc",
             b"foo12", b"bar1", b""]
    got = ops.static_regex_full_match(_objects(words, (3, 3)), pattern=pattern).numpy()
    want = np.array([re.fullmatch(pattern, w.decode()) is not None for w in words]).reshape(3, 3)
    np.testing.assert_array_equal(got, want)


def test_static_regex_bad_pattern_is_an_error():
    with pytest.raises(errors.InvalidArgumentError, match="pattern"):
        ops.static_regex_full_match(_objects([b"a"]), pattern="(unclosed").numpy()


@pytest.mark.parametrize("condition_shape", [(), (5,)])
def test_select_on_strings(condition_shape):
    t = _objects(WORDS)
    e = _objects([w + b"-else" * 5 for w in WORDS])
    condition = np.array([True, False, True, True, False])[: 5 if condition_shape else 1]
    condition = condition.reshape(condition_shape)
    got = ops.select(condition, t, e).numpy()
    np.testing.assert_array_equal(got, np.where(condition, t, e))


def test_select_v2_on_strings_broadcasts():
    condition = np.array([[True], [False]])
    t = _objects(WORDS[:3])
    e = _objects([b"E" * 30])[0]
    got = ops.select_v2(condition, t, e).numpy()
    assert got.tolist() == np.where(condition, t, e).tolist()
