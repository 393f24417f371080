"""tensorflow/core/platform/tstring.h of opgen's C++ headers: a small program built against
the header and the runtime (whose TF_String* functions it calls) runs tstring through short
(inline) and long (heap) values, views, copies, moves and edits, and prints what it got,
which must equal what std::string-like semantics give (Python's bytes here)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

PROGRAM = r"""
#include <cstdio>
#include <string>
#include <utility>

#include "tensorflow/core/platform/tstring.h"

using tensorflow::tstring;

static void Show(const char* what, const tstring& s) {
  std::printf("%s %d ", what, static_cast<int>(s.type()));
  for (char c : std::string(s)) std::printf("%02x", static_cast<unsigned char>(c));
  std::printf("\n");
}

int main() {
  tstring small("abc");
  Show("small", small);
  tstring large(std::string(40, 'L'));
  Show("large", large);
  tstring copy(large);
  copy[0] = 'c';  // the copy owns its bytes
  Show("copy", copy);
  Show("original", large);
  tstring moved(std::move(copy));
  Show("moved", moved);
  Show("moved_from", copy);
  small.append("defghijklmnopqrstuvwxyz");  // past the 22 inline bytes
  Show("grown", small);
  small.resize(2);
  Show("shrunk", small);
  small.resize(4, 'z');
  Show("padded", small);
  const std::string owner = "viewed bytes";
  tstring view;
  view.assign_as_view(owner);
  Show("view", view);
  view.mutable_data()[0] = 'V';  // copies the view first: the owner is unchanged
  Show("unviewed", view);
  std::printf("owner %s\n", owner.c_str());
  tstring self(std::string(30, 's') + "tail");
  self.assign(self.data() + 30, 4);  // a part of itself
  Show("self", self);
  tstring nul(std::string("a\0b", 3));
  Show("nul", nul);
  std::printf("compare %d %d %d %d\n", tstring("a") < tstring("b"), tstring("x") == "x",
              "y" != tstring("x"), tstring("ab") == std::string("ab"));
  small = "q";
  small += 'r';
  small.push_back('s');
  Show("assigned", small);
  small.clear();
  Show("cleared", small);
}
"""


def test_tstring(tmp_path):
    from opgen import _paths
    cxx = shutil.which("c++") or shutil.which("g++")
    runtime = os.environ.get("OPGEN_RUNTIME_LIB")
    if cxx is None or not runtime or not Path(runtime).exists():
        pytest.skip("needs a C++ compiler and $OPGEN_RUNTIME_LIB")
    (tmp_path / "t.cc").write_text(PROGRAM)
    build = subprocess.run([cxx, "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror",
                            f"-I{_paths.include_dir()}", str(tmp_path / "t.cc"), runtime,
                            f"-Wl,-rpath,{Path(runtime).parent}", "-o", str(tmp_path / "t")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    got = {line.split()[0]: line.split()[1:] for line in lines}
    small, large, view = "0", "1", "3"  # TF_TString_Type

    def want(kind, data: bytes):
        return [kind, data.hex()] if data else [kind]
    assert got["small"] == want(small, b"abc")
    assert got["large"] == want(large, b"L" * 40)
    assert got["copy"] == want(large, b"c" + b"L" * 39)
    assert got["original"] == want(large, b"L" * 40)
    assert got["moved"] == want(large, b"c" + b"L" * 39)
    assert got["moved_from"] == want(small, b"")
    assert got["grown"] == want(large, b"abcdefghijklmnopqrstuvwxyz")
    assert got["shrunk"] == want(small, b"ab")
    assert got["padded"] == want(small, b"abzz")
    assert got["view"] == want(view, b"viewed bytes")
    assert got["unviewed"] == want(small, b"Viewed bytes")
    assert got["owner"] == ["viewed", "bytes"]
    assert got["self"] == want(small, b"tail")
    assert got["nul"] == want(small, b"a\0b")
    assert got["compare"] == ["1", "1", "1", "1"]
    assert got["assigned"] == want(small, b"qrs")
    assert got["cleared"] == want(small, b"")
