"""Writes TensorFlow's op registry as the tests' fixtures want it (tests/conftest.py):
the bytes of TF_GetAllOpList() and the same OpList in text format. Run by .ci/run with
the TensorFlow venv's interpreter: python .ci/tf_oplist.py OUT_DIR"""

import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import op_def_pb2  # noqa: E402
from tensorflow.python.client import pywrap_tf_session as c_api  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
buf = c_api.TF_GetAllOpList()
try:
    data = c_api.TF_GetBuffer(buf)
finally:
    c_api.TF_DeleteBuffer(buf)
(out / "tf-2.21-oplist.pb").write_bytes(data)
(out / "tf-2.21-ops.pbtxt").write_text(text_format.MessageToString(op_def_pb2.OpList.FromString(data)))
print(f"{len(op_def_pb2.OpList.FromString(data).op)} ops written to {out}")
