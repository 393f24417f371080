"""TensorList ops (DT_VARIANT lists of tensors) in sessions: TensorListReserve,
FromTensor, GetItem, SetItem, Stack, Length, ElementShape, a list carried through a
while loop (what a lowered Keras RNN does), and the errors of misuse. Expected values
come from numpy."""

from __future__ import annotations

import numpy as np
import pytest

from graph_def_builder import F32, I32, I64, VARIANT, GraphDefBuilder, run
from graph_def_builder import dtype_attr as _t
from opgen.runtime import errors


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


def from_tensor(b, name, x, shape, dtype=F32, shape_dtype=I32):
    b.const(name + "/shape", np.array(shape, np.int32 if shape_dtype == I32 else np.int64))
    return b.node(name, "TensorListFromTensor", [x, name + "/shape"], element_dtype=_t(dtype),
                  shape_type=_t(shape_dtype))


def get_item(b, name, handle, index, shape=(-1,), dtype=F32):
    b.const(name + "/shape", np.array(shape, np.int32))
    return b.node(name, "TensorListGetItem", [handle, index, name + "/shape"],
                  element_dtype=_t(dtype), Tshape=_t(I32))


def stack(b, name, handle, shape, dtype=F32, num_elements=-1):
    b.const(name + "/shape", np.array(shape, np.int32))
    return b.node(name, "TensorListStack", [handle, name + "/shape"], element_dtype=_t(dtype),
                  num_elements=num_elements)


@pytest.mark.parametrize("shape_dtype", [I32, I64])
def test_from_tensor_then_get_each_item(shape_dtype):
    x = np.arange(24, dtype=np.float32).reshape(4, 2, 3)
    b = GraphDefBuilder()
    b.placeholder("x", F32)
    b.placeholder("i", I32)
    from_tensor(b, "list", "x", [-1, 3], shape_dtype=shape_dtype)
    get_item(b, "item", "list", "i", shape=[2, 3])
    b.node("length", "TensorListLength", ["list"])
    b.node("element_shape", "TensorListElementShape", ["list"], shape_type=_t(shape_dtype))
    for i in range(4):
        item, length, shape = run(b, ["item:0", "length:0", "element_shape:0"], {"x:0": x, "i:0": i})
        np.testing.assert_array_equal(item, x[i])
        assert length == 4 and length.dtype == np.int32
        np.testing.assert_array_equal(shape, [2, 3])  # -1 merged with the slices' shape
        assert shape.dtype == (np.int32 if shape_dtype == I32 else np.int64)


def test_reserve_set_some_items_and_stack_with_zeros_for_the_rest():
    b = GraphDefBuilder()
    b.const("shape", np.array([3], np.int32))
    b.const("n", np.int32(4))
    b.node("list", "TensorListReserve", ["shape", "n"], element_dtype=_t(F32), shape_type=_t(I32))
    b.placeholder("v", F32)
    b.const("one", np.int32(1))
    b.const("three", np.int32(3))
    b.node("set1", "TensorListSetItem", ["list", "one", "v"], element_dtype=_t(F32))
    b.node("neg", "Neg", ["v"], T=_t(F32))
    b.node("set3", "TensorListSetItem", ["set1", "three", "neg"], element_dtype=_t(F32))
    stack(b, "stacked", "set3", [3], num_elements=4)
    stack(b, "before", "list", [3])
    get_item(b, "unset", "set3", "one", shape=[3])
    v = np.array([1, 2, 3], np.float32)
    stacked, before = run(b, ["stacked:0", "before:0"], {"v:0": v})
    np.testing.assert_array_equal(stacked, [[0, 0, 0], v, [0, 0, 0], -v])
    np.testing.assert_array_equal(before, np.zeros((4, 3), np.float32))  # lists are values


def test_a_list_built_in_a_while_loop():
    """out = [x[t] * 2 for t in range(T)], as an RNN's output TensorArray is made."""
    b = GraphDefBuilder()
    x = b.placeholder("x", F32)
    from_tensor(b, "input_list", x, [2])
    b.const("out_shape", np.array([2], np.int32))
    b.node("len", "TensorListLength", ["input_list"])
    b.node("out_list", "TensorListReserve", ["out_shape", "len"], element_dtype=_t(F32),
           shape_type=_t(I32))
    b.const("zero", np.int32(0))
    b.const("one", np.int32(1))
    b.const("two", np.float32(2))
    b.const("item_shape", np.array([2], np.int32))

    def cond(b, v, invs):
        return b.binary("loop/less", "Less", v[0], invs[0], I32)

    def body(b, v, invs):
        t, out = v
        _, inp, one, two, shape = invs
        item = b.node("loop/item", "TensorListGetItem", [inp, t, shape], element_dtype=_t(F32),
                      Tshape=_t(I32))
        doubled = b.binary("loop/doubled", "Mul", item, two, F32)
        new_out = b.node("loop/set", "TensorListSetItem", [out, t, doubled], element_dtype=_t(F32))
        return [b.binary("loop/t1", "AddV2", t, one, I32), new_out]

    exits = b.while_loop("loop", [("zero", I32), ("out_list", VARIANT)], cond, body,
                         invariants=[("len", I32), ("input_list", VARIANT), ("one", I32),
                                     ("two", F32), ("item_shape", I32)])
    stack(b, "result", exits[1], [2])
    xs = np.random.default_rng(0).normal(size=(7, 2)).astype(np.float32)
    np.testing.assert_array_equal(run(b, "result:0", {"x:0": xs}), xs * 2)


# ---- errors ----------------------------------------------------------------------------

def test_an_element_dtype_the_list_does_not_hold_is_an_error_naming_the_node():
    b = GraphDefBuilder()
    b.placeholder("x", F32)
    from_tensor(b, "list", "x", [-1])
    b.const("zero", np.int32(0))
    get_item(b, "wrong_type", "list", "zero", dtype=I32)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"(?s)op elements int32 but list elements float.*wrong_type"):
        run(b, "wrong_type:0", {"x:0": np.ones((2, 3), np.float32)})


def test_an_index_out_of_range_is_an_error():
    b = GraphDefBuilder()
    b.placeholder("x", F32)
    b.placeholder("i", I32)
    from_tensor(b, "list", "x", [-1])
    get_item(b, "item", "list", "i")
    with pytest.raises(errors.InvalidArgumentError, match=r"element 5 in a list with 2 elements"):
        run(b, "item:0", {"x:0": np.ones((2, 3), np.float32), "i:0": 5})
    with pytest.raises(errors.InvalidArgumentError, match=r"element -1 in a list"):
        run(b, "item:0", {"x:0": np.ones((2, 3), np.float32), "i:0": -1})


def test_setting_an_item_of_another_shape_is_an_error():
    b = GraphDefBuilder()
    b.const("shape", np.array([3], np.int32))
    b.const("n", np.int32(2))
    b.node("list", "TensorListReserve", ["shape", "n"], element_dtype=_t(F32), shape_type=_t(I32))
    b.placeholder("v", F32)
    b.const("zero", np.int32(0))
    b.node("set", "TensorListSetItem", ["list", "zero", "v"], element_dtype=_t(F32))
    with pytest.raises(errors.InvalidArgumentError, match=r"shape \[4\] in a list with element shape \[3\]"):
        run(b, "set", {"v:0": np.ones(4, np.float32)})


def test_stacking_unset_items_of_unknown_shape_is_an_error():
    b = GraphDefBuilder()
    b.const("shape", np.int32(-1))  # unknown rank
    b.const("n", np.int32(2))
    b.node("list", "TensorListReserve", ["shape", "n"], element_dtype=_t(F32), shape_type=_t(I32))
    stack(b, "stacked", "list", [-1])
    with pytest.raises(errors.InvalidArgumentError, match=r"not fully known"):
        run(b, "stacked:0")
    b2 = GraphDefBuilder()
    b2.const("shape", np.int32(-1))
    b2.const("n", np.int32(2))
    b2.node("list", "TensorListReserve", ["shape", "n"], element_dtype=_t(F32), shape_type=_t(I32))
    stack(b2, "stacked", "list", [-1], num_elements=3)
    with pytest.raises(errors.InvalidArgumentError, match=r"expected a list with 3 elements"):
        run(b2, "stacked:0")


def test_a_non_list_variant_input_is_an_error_not_a_crash():
    b = GraphDefBuilder()
    b.placeholder("x", F32)
    from_tensor(b, "list", "x", [-1])
    b.node("length", "TensorListLength", ["list"])
    # a loop variable that is a list through control flow is still a list
    b.placeholder("pred", 10)  # DT_BOOL
    b.node("switch", "Switch", ["list", "pred"], T=_t(VARIANT))
    b.node("length_true", "TensorListLength", ["switch:1"])
    assert run(b, "length_true:0", {"x:0": np.ones((5, 1), np.float32), "pred:0": True}) == 5
    with pytest.raises(errors.InvalidArgumentError, match="is dead"):
        run(b, "length_true:0", {"x:0": np.ones((5, 1), np.float32), "pred:0": False})
