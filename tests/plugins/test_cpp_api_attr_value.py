"""tensorflow/core/framework/attr_value.pb.h of opgen's C++ headers reads NameAttrList bytes
(what TF_OpKernelConstruction_GetAttrFunction returns) without a protobuf library: a small
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


def test_kinds_it_does_not_keep_and_empty_messages(reader):
    f = attr_value_pb2.NameAttrList(name="g", attr={
        "shape": attr_value_pb2.AttrValue(shape={"dim": [{"size": 3}]}),
        "ints": attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(i=[1, 2]))})
    assert json.loads(reader(f.SerializeToString())) == {
        "name": "g", "attr": {"shape": {}, "ints": {}}}  # VALUE_NOT_SET, skipped cleanly
    assert json.loads(reader(b"")) == {"name": "", "attr": {}}


def test_malformed_bytes_are_refused(reader):
    good = attr_value_pb2.NameAttrList(name="abc").SerializeToString()
    assert reader(good[:-1]) == "malformed"  # truncated
    assert reader(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff") == "malformed"  # bad varint
