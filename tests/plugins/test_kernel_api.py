"""The kernel C API as a plugin sees it (tests/plugins/kernel_api_probe.c): every attr
getter returns what the node was given, kernel labels pick kernels through the node's
"_kernel" attr, temp allocation, forwarding, the kernel's name and dtypes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import opgen
from opgen.protos import attr_value_pb2, tensor_pb2, types_pb2

sys.path.insert(0, str(Path(__file__).parent))
from plugin_build import compile_plugin


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    from opgen import _paths
    path = compile_plugin(Path(__file__).parent / "kernel_api_probe.c",
                          tmp_path_factory.mktemp("probe") / "libprobe.so", _paths.include_dir())
    return opgen.load_op_library(path)


def tensor_list(*arrays):
    value = attr_value_pb2.AttrValue()
    for a in arrays:
        t = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_content=a.tobytes())
        for d in a.shape:
            t.tensor_shape.dim.add(size=d)
        value.list.tensor.append(t)
    return value


def run_probe(extra_attrs, name="probe"):
    g = opgen.Graph()
    x = g.create_op("Const", [], {"dtype": opgen.float32,
                                  "value": np.array([1.0, 2.0], np.float32)}).outputs[0]
    attrs = {"t": np.array([7.5, -1.0], np.float32),
             "tl": tensor_list(np.zeros(3, np.float32), np.zeros((1, 1), np.float32))}
    attrs.update(extra_attrs)
    y = g.create_op("OpgenKernelApiProbe", [x], attrs, name=name).outputs[0]
    with opgen.Session(g) as sess:
        return sess.run(y)


def test_every_attr_getter_reads_what_the_node_holds(probe):
    with pytest.raises(opgen.errors.CancelledError) as caught:
        run_probe({"report": True, "i": 3, "ls": ["ab", "cde"]})
    message = str(caught.value)
    want_construction = (
        "name=probe i=3 i32=3 f=1.5 b=1 ty=3 s=hello(5) li=4/4,-5/-5, lf=0.25, lb=1,0, "
        "lt=1,9, ls(5)=ab,cde, small_storage_code=3 t=7.5,-1 tl=3,1, has_i=1 has_zz=0 "
        "wrong_kind_code=3 untouched=42 func_of_int=1/3 func_of_none=1/3 value_of_i=1803 "
        "value_of_none=1/3")
    assert want_construction in message
    want_compute = ("kernel=probe inputs=1 outputs=1 in_dtype=1 out_dtype=1 forwarded=-1 "
                    "host_in=1 bad_in=0/11 step=1 stream=0/9 device_id=-1 "
                    "borrowed=1 bad_borrowed=1/11")
    assert want_compute in message


def test_attrs_set_by_the_caller_reach_the_kernel(probe):
    with pytest.raises(opgen.errors.CancelledError) as caught:
        run_probe({"report": True, "i": -7, "f": 0.5, "b": False, "ty": opgen.float64,
                   "s": "xy", "li": [9], "lf": [1.0, 2.0], "lb": [False], "ls": [],
                   "lt": [opgen.bool]}, name="other")
    assert ("name=other i=-7 i32=-7 f=0.5 b=0 ty=2 s=xy(2) li=9/9, lf=1,2, lb=0, lt=10, "
            "ls(0)= ") in str(caught.value)


def test_temp_and_output_allocation_compute_the_result(probe):
    np.testing.assert_array_equal(run_probe({"i": 3}), [4.0, 5.0])


def test_kernel_label_selects_the_labelled_kernel(probe):
    np.testing.assert_array_equal(run_probe({"i": 3, "_kernel": "minus"}), [-2.0, -1.0])
    with pytest.raises(opgen.errors.NotFoundError, match="label='minus'"):
        run_probe({"_kernel": "nothing"})
