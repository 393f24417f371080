"""InferenceContext::GetAttr of opgen's C++ headers for the attr kinds read through the
whole AttrValue (OPGEN_ShapeInferenceContextGetAttrValue): list(float), list(bool),
list(string), list(type), func and list(func). A shape function turns what it read into
the output's dims, which the graph shows when the node is made."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import opgen

SOURCE = r"""
#include <vector>

#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/shape_inference.h"

using namespace tensorflow;
using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;

// dims: each float * 4, each bool as 0/1, each string's length, each type's enum, the
// func's name length and attr count, and per list(func) element the same two.
REGISTER_OP("ShapeAttrLists")
    .Output("out: float")
    .Attr("floats: list(float)")
    .Attr("bools: list(bool)")
    .Attr("strings: list(string)")
    .Attr("types: list(type)")
    .Attr("f: func")
    .Attr("fs: list(func)")
    .SetShapeFn([](InferenceContext* c) {
      std::vector<float> floats;
      std::vector<bool> bools;
      std::vector<std::string> strings;
      std::vector<DataType> types;
      NameAttrList f;
      std::vector<NameAttrList> fs;
      TF_RETURN_IF_ERROR(c->GetAttr("floats", &floats));
      TF_RETURN_IF_ERROR(c->GetAttr("bools", &bools));
      TF_RETURN_IF_ERROR(c->GetAttr("strings", &strings));
      TF_RETURN_IF_ERROR(c->GetAttr("types", &types));
      TF_RETURN_IF_ERROR(c->GetAttr("f", &f));
      TF_RETURN_IF_ERROR(c->GetAttr("fs", &fs));
      std::vector<int64_t> floats_as_ints;  // a list(float) read as list(int) must fail
      if (c->GetAttr("floats", &floats_as_ints).ok() && !floats.empty())
        return errors::Internal("list(float) read as list(int)");
      std::vector<DimensionHandle> dims;
      for (float x : floats) dims.push_back(c->MakeDim(static_cast<int64_t>(x * 4)));
      for (bool b : bools) dims.push_back(c->MakeDim(b ? 1 : 0));
      for (const std::string& s : strings) dims.push_back(c->MakeDim(static_cast<int64_t>(s.size())));
      for (DataType t : types) dims.push_back(c->MakeDim(static_cast<int64_t>(t)));
      fs.insert(fs.begin(), f);
      for (const NameAttrList& g : fs) {
        dims.push_back(c->MakeDim(static_cast<int64_t>(g.name().size())));
        dims.push_back(c->MakeDim(static_cast<int64_t>(g.attr().size())));
      }
      c->set_output(0, c->MakeShape(dims));
      return OkStatus();
    });
"""


@pytest.fixture(scope="module")
def shape_attr_ops(tmp_path_factory):
    from opgen import _paths
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    where = tmp_path_factory.mktemp("shape_attrs")
    (where / "ops.cc").write_text(SOURCE)
    build = subprocess.run([cxx, "-std=c++17", "-O0", "-shared", "-fPIC", "-Wall", "-Werror",
                            f"-I{_paths.include_dir()}", str(where / "ops.cc"),
                            "-o", str(where / "libshape_attrs.so")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return opgen.load_op_library(where / "libshape_attrs.so")


def test_shape_function_reads_lists_and_funcs(shape_attr_ops):
    from opgen.protos import attr_value_pb2 as av
    g = opgen.Graph()
    f = av.AttrValue(func=av.NameAttrList(name="body", attr={"T": av.AttrValue(type=1)}))
    fs = av.AttrValue(list=av.AttrValue.ListValue(func=[
        av.NameAttrList(name="a"), av.NameAttrList(name="branch", attr={
            "N": av.AttrValue(i=2), "M": av.AttrValue(i=3)})]))
    op = g.create_op("ShapeAttrLists", [], {
        "floats": [0.5, 2.25], "bools": [True, False, True], "strings": ["", "abc"],
        "types": [opgen.int64, opgen.float16], "f": f, "fs": fs})
    assert op.outputs[0].shape == (2, 9, 1, 0, 1, 0, 3, 9, 19, 4, 1, 1, 0, 6, 2)
    op = g.create_op("ShapeAttrLists", [], {
        "floats": [], "bools": [], "strings": [], "types": [],
        "f": av.AttrValue(func=av.NameAttrList(name="g")),
        "fs": av.AttrValue(list=av.AttrValue.ListValue())})
    assert op.outputs[0].shape == (1, 0)
