"""tensorflow/core/framework/attr_value.pb.h of opgen's C++ headers reads NameAttrList bytes
(what TF_OpKernelConstruction_GetAttrFunction returns, and the list(func) elements of
OPGEN_OpKernelConstructionGetAttrValue's AttrValue) without a protobuf library: a small
program built against the header parses messages the Python protobuf library wrote, and
prints what it read, which must equal what was written."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from opgen.protos import attr_value_pb2, types_pb2

PROGRAM = r"""
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "tensorflow/core/framework/attr_value.pb.h"

using tensorflow::AttrValue;
using tensorflow::NameAttrList;

static std::string Json(const NameAttrList& f);
static std::string Json(const AttrValue& v) {
  char number[64];
  switch (v.value_case()) {
    case AttrValue::kS: return "{\"s\": \"" + v.s() + "\"}";
    case AttrValue::kI: return "{\"i\": " + std::to_string(v.i()) + "}";
    case AttrValue::kF: std::snprintf(number, sizeof number, "%.9g", v.f());
                        return std::string("{\"f\": ") + number + "}";
    case AttrValue::kB: return std::string("{\"b\": ") + (v.b() ? "true" : "false") + "}";
    case AttrValue::kType: return "{\"type\": " + std::to_string(static_cast<int>(v.type())) + "}";
    case AttrValue::kFunc: return "{\"func\": " + Json(v.func()) + "}";
    case AttrValue::kList: {
      const AttrValue::ListValue& l = v.list();
      std::string out = "{\"list\": {\"s\": [";
      for (int k = 0; k < l.s_size(); ++k) out += (k ? ", \"" : "\"") + l.s(k) + "\"";
      out += "], \"i\": [";
      for (int k = 0; k < l.i_size(); ++k) out += (k ? ", " : "") + std::to_string(l.i(k));
      out += "], \"f\": [";
      for (int k = 0; k < l.f_size(); ++k) {
        std::snprintf(number, sizeof number, "%.9g", l.f(k));
        out += (k ? ", " : "") + std::string(number);
      }
      out += "], \"b\": [";
      for (int k = 0; k < l.b_size(); ++k) out += std::string(k ? ", " : "") + (l.b(k) ? "true" : "false");
      out += "], \"type\": [";
      for (int k = 0; k < l.type_size(); ++k) out += (k ? ", " : "") + std::to_string(static_cast<int>(l.type(k)));
      out += "], \"func\": [";
      for (const NameAttrList& f : l.func()) out += (&f == &l.func()[0] ? "" : ", ") + Json(f);
      return out + "], \"shapes\": " + std::to_string(l.shape_size()) + ", \"tensors\": " +
             std::to_string(l.tensor_size()) + "}}";
    }
    default: return "{}";
  }
}
static std::string Json(const NameAttrList& f) {
  std::string out = "{\"name\": \"" + f.name() + "\", \"attr\": {";
  bool first = true;
  for (const auto& [key, value] : f.attr()) {
    out += (first ? "\"" : ", \"") + key + "\": " + Json(value);
    first = false;
  }
  return out + "}}";
}

int main() {
  const std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  NameAttrList f;
  if (!f.ParseFromString(bytes)) { std::cout << "malformed" << std::endl; return 0; }
  std::cout << Json(f) << std::endl;
}
"""


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    from opgen import _paths
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    where = tmp_path_factory.mktemp("attr_value")
    (where / "read.cc").write_text(PROGRAM)
    build = subprocess.run([cxx, "-std=c++17", "-O0", "-Wall", "-Werror", f"-I{_paths.include_dir()}",
                            str(where / "read.cc"), "-o", str(where / "read")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]

    def read(data: bytes) -> str:
        return subprocess.run([str(where / "read")], input=data, capture_output=True,
                              check=True).stdout.decode().strip()
    return read


def test_name_and_scalar_attrs_read_back(reader):
    inner = attr_value_pb2.NameAttrList(name="inner_fn", attr={"k": attr_value_pb2.AttrValue(i=7)})
    f = attr_value_pb2.NameAttrList(name="my_fn", attr={
        "count": attr_value_pb2.AttrValue(i=-123456789012),
        "rate": attr_value_pb2.AttrValue(f=0.25),
        "label": attr_value_pb2.AttrValue(s=b"hello"),
        "flag": attr_value_pb2.AttrValue(b=True),
        "T": attr_value_pb2.AttrValue(type=types_pb2.DT_DOUBLE),
        "body": attr_value_pb2.AttrValue(func=inner),
    })
    got = json.loads(reader(f.SerializeToString()))
    assert got == {"name": "my_fn", "attr": {
        "count": {"i": -123456789012}, "rate": {"f": 0.25}, "label": {"s": "hello"},
        "flag": {"b": True}, "T": {"type": types_pb2.DT_DOUBLE},
        "body": {"func": {"name": "inner_fn", "attr": {"k": {"i": 7}}}}}}


def empty_list(**given):
    return {"list": {"s": [], "i": [], "f": [], "b": [], "type": [], "func": [], "shapes": 0,
                     "tensors": 0, **given}}


def test_lists_read_back(reader):
    """AttrValue.list of each kept kind (packed and unpacked numbers), list(func) with
    nested attrs; shapes and tensors are counted."""
    av = attr_value_pb2
    inner = av.NameAttrList(name="inner", attr={"k": av.AttrValue(list=av.AttrValue.ListValue(
        func=[av.NameAttrList(name="deep", attr={"n": av.AttrValue(i=2)})]))})
    f = av.NameAttrList(name="g", attr={
        "ints": av.AttrValue(list=av.AttrValue.ListValue(i=[1, -2, 2**40])),
        "floats": av.AttrValue(list=av.AttrValue.ListValue(f=[0.5, -3.25])),
        "bools": av.AttrValue(list=av.AttrValue.ListValue(b=[True, False, True])),
        "types": av.AttrValue(list=av.AttrValue.ListValue(type=[types_pb2.DT_INT64, types_pb2.DT_HALF])),
        "strings": av.AttrValue(list=av.AttrValue.ListValue(s=[b"a", b"", b"xyz"])),
        "funcs": av.AttrValue(list=av.AttrValue.ListValue(func=[av.NameAttrList(name="f1"), inner])),
        "shapes": av.AttrValue(list=av.AttrValue.ListValue(shape=[{"dim": [{"size": 3}]}, {}])),
        "tensors": av.AttrValue(list=av.AttrValue.ListValue(tensor=[{"dtype": 1}])),
        "empty": av.AttrValue(list=av.AttrValue.ListValue()),
    })
    got = json.loads(reader(f.SerializeToString()))
    assert got == {"name": "g", "attr": {
        "ints": empty_list(i=[1, -2, 2**40]), "floats": empty_list(f=[0.5, -3.25]),
        "bools": empty_list(b=[True, False, True]),
        "types": empty_list(type=[types_pb2.DT_INT64, types_pb2.DT_HALF]),
        "strings": empty_list(s=["a", "", "xyz"]),
        "funcs": empty_list(func=[{"name": "f1", "attr": {}}, {"name": "inner", "attr": {
            "k": empty_list(func=[{"name": "deep", "attr": {"n": {"i": 2}}}])}}]),
        "shapes": empty_list(shapes=2), "tensors": empty_list(tensors=1), "empty": empty_list()}}
    # numbers written unpacked (as an older writer may) read the same
    unpacked = b"".join([b"\x18\x07", b"\x18\x09", b"\x25\x00\x00\x80\x3f", b"\x28\x01"])
    value = av.AttrValue(list=av.AttrValue.ListValue.FromString(unpacked))
    assert list(value.list.i) == [7, 9] and list(value.list.f) == [1.0]  # what protobuf reads
    def field(number, payload):  # a length-delimited field (payloads under 128 bytes)
        return bytes([number << 3 | 2, len(payload)]) + payload
    raw = field(1, b"u") + field(2, field(1, b"x") + field(2, field(1, unpacked)))
    assert av.NameAttrList.FromString(raw) == av.NameAttrList(name="u", attr={"x": value})
    assert json.loads(reader(raw))["attr"]["x"] == empty_list(i=[7, 9], f=[1.0], b=[True])


def test_kinds_it_does_not_keep_and_empty_messages(reader):
    f = attr_value_pb2.NameAttrList(name="g", attr={
        "shape": attr_value_pb2.AttrValue(shape={"dim": [{"size": 3}]})})
    assert json.loads(reader(f.SerializeToString())) == {
        "name": "g", "attr": {"shape": {}}}  # VALUE_NOT_SET, skipped cleanly
    assert json.loads(reader(b"")) == {"name": "", "attr": {}}


def test_malformed_bytes_are_refused(reader):
    good = attr_value_pb2.NameAttrList(name="abc").SerializeToString()
    assert reader(good[:-1]) == "malformed"  # truncated
    assert reader(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff") == "malformed"  # bad varint
