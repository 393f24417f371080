"""StridedSlice's operands for a numpy index tuple, shared by the CPU and GPU tests."""

from __future__ import annotations


def strided_slice_args(spec):
    """begin, end, strides and masks for a numpy index tuple."""
    begin, end, strides = [], [], []
    masks = {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
             "shrink_axis_mask": 0}
    for i, entry in enumerate(spec):
        b, e, s = 0, 0, 1
        if entry is Ellipsis:
            masks["ellipsis_mask"] |= 1 << i
        elif entry is None:
            masks["new_axis_mask"] |= 1 << i
        elif isinstance(entry, int):
            b, e = entry, entry + 1
            masks["shrink_axis_mask"] |= 1 << i
        else:
            s = entry.step if entry.step is not None else 1
            if entry.start is None:
                masks["begin_mask"] |= 1 << i
            else:
                b = entry.start
            if entry.stop is None:
                masks["end_mask"] |= 1 << i
            else:
                e = entry.stop
        begin.append(b), end.append(e), strides.append(s)
    return begin, end, strides, masks
