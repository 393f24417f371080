"""Inputs shared by the tests of examples/plugin_cpp under opgen (test_cpp_api.py) and
under TensorFlow (test_cpp_api_with_tensorflow.py), with their numpy/Python references."""

from __future__ import annotations


def describe_function(f) -> str:
    """What examples/plugin_cpp/function_list.cc writes for a NameAttrList: the reference."""
    def value(v):
        kind = v.WhichOneof("value")
        if kind == "s":
            return f"'{v.s.decode()}'"
        if kind == "f":
            return f"{v.f:g}"
        if kind == "b":
            return "true" if v.b else "false"
        if kind == "type":
            return {1: "float", 2: "double", 3: "int32", 9: "int64"}[v.type]
        if kind == "func":
            return describe_function(v.func)
        if kind == "list":
            return "[" + ",".join(str(i) for i in v.list.i) + "]"
        return str(getattr(v, kind))
    return f.name + "(" + ",".join(f"{k}={value(f.attr[k])}" for k in sorted(f.attr)) + ")"


def function_lists(av):
    """list(func) values: plain names, functions with attrs of each kind (a nested
    function's own attrs, a list), none; `av` is attr_value_pb2 (opgen's or TensorFlow's)."""
    return {
        "names": [av.NameAttrList(name="f"), av.NameAttrList(name="g_2")],
        "with_attrs": [
            av.NameAttrList(name="branch_a", attr={
                "T": av.AttrValue(type=2), "N": av.AttrValue(i=-3), "rate": av.AttrValue(f=0.25),
                "label": av.AttrValue(s=b"hi"), "on": av.AttrValue(b=True),
                "dims": av.AttrValue(list=av.AttrValue.ListValue(i=[4, 5]))}),
            av.NameAttrList(name="branch_b"),
            av.NameAttrList(name="branch_c", attr={"body": av.AttrValue(func=av.NameAttrList(
                name="inner", attr={"T": av.AttrValue(type=1)}))})],
        "empty": [],
    }
