"""StridedSlice equals numpy's basic indexing, for random index expressions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opgen.runtime import errors, execute_op
from strided_slice_args import strided_slice_args

pytestmark = pytest.mark.usefixtures("runtime_lib")


@st.composite
def arrays_and_indices(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    bound = st.one_of(st.none(), st.integers(-7, 7))
    step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
    entries, dims_named = [], 0
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kind = draw(st.sampled_from(["slice", "slice", "index", "new", "ellipsis"]))
        if kind == "ellipsis" and Ellipsis not in entries:
            entries.append(Ellipsis)
        elif kind == "new":
            entries.append(None)
        elif dims_named < len(shape):
            dim = shape[dims_named] if Ellipsis not in entries else None
            if kind == "index" and dim:
                entries.append(draw(st.integers(-dim, dim - 1)))
                dims_named += 1
            elif kind == "slice":
                entries.append(slice(draw(bound), draw(bound), draw(step)))
                dims_named += 1
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape), tuple(entries)


@settings(max_examples=300, deadline=None, derandomize=True)  # the same examples every run
@given(arrays_and_indices())
def test_strided_slice_matches_numpy_indexing(case):
    x, spec = case
    try:
        want = x[spec]
    except IndexError:
        return  # numpy refuses it (an index past a dimension ellipsis shifted); skip
    begin, end, strides, masks = strided_slice_args(spec)
    if not begin:
        begin, end, strides = [0], [0], [1]
        masks["begin_mask"] = masks["end_mask"] = 1
    got = execute_op("StridedSlice", [x, np.array(begin, np.int32), np.array(end, np.int32),
                                      np.array(strides, np.int32)], masks)[0]
    np.testing.assert_array_equal(np.asarray(got), want, err_msg=str(spec))


def test_bad_strided_slices_are_errors():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="non-zero"):
        execute_op("StridedSlice", [x, [0], [1], [0]], {})
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        execute_op("StridedSlice", [x, [5], [6], [1]], {"shrink_axis_mask": 1})
