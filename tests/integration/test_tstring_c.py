"""The TF_TString C API (tensorflow/c/tf_tstring.h) and TF_STRING tensors from C, compiled
against opgen's headers as a TensorFlow C program would be: the SMALL / LARGE / VIEW
kinds and their sizes and capacities, zero-filled TF_AllocateTensor strings, and a
string tensor fed through Placeholder -> Identity and a string Const fetched from a
session."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/tf_tstring.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "line %d: %s\n", __LINE__, #c); return 1; } } while (0)

static int same(const TF_TString* s, const char* want, size_t n) {
  return TF_StringGetSize(s) == n && memcmp(TF_StringGetDataPointer(s), want, n) == 0;
}

int main(void) {
  CHECK(sizeof(TF_TString) == 24);
  TF_TString s;
  TF_StringInit(&s);
  CHECK(TF_StringGetType(&s) == TF_TSTR_SMALL && TF_StringGetSize(&s) == 0);
  CHECK(TF_StringGetCapacity(&s) == 22);
  TF_StringCopy(&s, "hello", 5);
  CHECK(TF_StringGetType(&s) == TF_TSTR_SMALL && same(&s, "hello", 5));
  CHECK(TF_StringGetDataPointer(&s)[5] == '\0');
  char big[100];
  for (int i = 0; i < 100; ++i) big[i] = (char)('a' + i % 26);
  TF_StringCopy(&s, big, 100);
  CHECK(TF_StringGetType(&s) == TF_TSTR_LARGE && same(&s, big, 100));
  CHECK(TF_StringGetCapacity(&s) >= 100 && (TF_StringGetCapacity(&s) + 1) % 16 == 0);
  TF_StringCopy(&s, big, 22);  /* back to SMALL: the LARGE memory is freed */
  CHECK(TF_StringGetType(&s) == TF_TSTR_SMALL && same(&s, big, 22));
  TF_StringAssignView(&s, big, 50);
  CHECK(TF_StringGetType(&s) == TF_TSTR_VIEW && TF_StringGetDataPointer(&s) == big);
  CHECK(TF_StringGetCapacity(&s) == 0 && TF_StringGetSize(&s) == 50);
  TF_StringCopy(&s, big, 30);
  TF_StringDealloc(&s);
  CHECK(TF_StringGetType(&s) == TF_TSTR_SMALL && TF_StringGetSize(&s) == 0);

  int64_t dims[1] = {3};
  CHECK(TF_AllocateTensor(TF_STRING, dims, 1, 5) == NULL);  /* not 3 TF_TStrings */
  TF_Tensor* t = TF_AllocateTensor(TF_STRING, dims, 1, 3 * sizeof(TF_TString));
  CHECK(t != NULL);
  TF_TString* e = (TF_TString*)TF_TensorData(t);
  for (int i = 0; i < 3; ++i) CHECK(TF_StringGetSize(&e[i]) == 0);
  TF_StringCopy(&e[0], "a", 1);
  TF_StringCopy(&e[1], big, 100);
  TF_StringCopy(&e[2], "", 0);

  TF_Status* st = TF_NewStatus();
  TF_Graph* g = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(g, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation* p = TF_FinishOperation(d, st);
  CHECK(TF_GetCode(st) == TF_OK);
  d = TF_NewOperation(g, "Identity", "i");
  TF_AddInput(d, (TF_Output){p, 0});
  TF_Operation* id = TF_FinishOperation(d, st);
  CHECK(TF_GetCode(st) == TF_OK);
  d = TF_NewOperation(g, "Const", "c");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetAttrTensor(d, "value", t, st);
  CHECK(TF_GetCode(st) == TF_OK);
  TF_Operation* c = TF_FinishOperation(d, st);
  CHECK(TF_GetCode(st) == TF_OK);

  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* sess = TF_NewSession(g, opts, st);
  CHECK(TF_GetCode(st) == TF_OK);
  TF_Output feeds[1] = {{p, 0}};
  TF_Tensor* feed_values[1] = {t};
  TF_Output fetches[2] = {{id, 0}, {c, 0}};
  TF_Tensor* out[2] = {NULL, NULL};
  TF_SessionRun(sess, NULL, feeds, feed_values, 1, fetches, out, 2, NULL, 0, NULL, st);
  CHECK(TF_GetCode(st) == TF_OK);
  TF_DeleteTensor(t);  /* the outputs keep their own references or copies */
  for (int k = 0; k < 2; ++k) {
    CHECK(TF_TensorType(out[k]) == TF_STRING && TF_TensorElementCount(out[k]) == 3);
    const TF_TString* o = (const TF_TString*)TF_TensorData(out[k]);
    CHECK(same(&o[0], "a", 1) && same(&o[1], big, 100) && TF_StringGetSize(&o[2]) == 0);
    TF_DeleteTensor(out[k]);
  }
  TF_CloseSession(sess, st);
  TF_DeleteSession(sess, st);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(st);
  printf("ok\n");
  return 0;
}
"""


def test_tstring_c_api(tmp_path: Path):
    from opgen import _paths
    try:
        _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    flags = subprocess.run([sys.executable, "-m", "opgen", "config", "--cflags", "--libs"],
                           capture_output=True, text=True, cwd=tempfile.gettempdir(), check=True)
    source = tmp_path / "tstring.c"
    source.write_text(PROGRAM)
    binary = tmp_path / "tstring"
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", str(source), *flags.stdout.split(),
                    "-o", str(binary)], check=True)
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ok\n"
