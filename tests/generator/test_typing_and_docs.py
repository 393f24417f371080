"""Type hints and stubs (mypy accepts correct calls and rejects a str for an int attr),
docstrings with summary, description, Args with allowed types and Returns, and
deprecated ops that warn once with their version and explanation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from opgen import _paths, generate, opdefs

DEPRECATED = '''
op {
  name: "OldAdd"
  input_arg { name: "x" type_attr: "T" }
  input_arg { name: "y" type_attr: "T" }
  output_arg { name: "z" type_attr: "T" }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_INT32] } } }
  attr { name: "mode" type: "string" default_value { s: "fast" } allowed_values { list { s: ["fast", "exact"] } } }
  deprecation { version: 27 explanation: "Use AddV2 instead." }
  summary: "Adds, the old way."
  description: "Kept for old graphs."
}
op {
  name: "Split2"
  input_arg { name: "value" type: DT_FLOAT }
  output_arg { name: "first" type: DT_FLOAT }
  output_arg { name: "rest" type: DT_FLOAT number_attr: "N" }
  attr { name: "N" type: "int" has_minimum: true minimum: 1 }
}
'''


@pytest.fixture
def package(tmp_path, fake_runtime, import_generated):
    generate.generate(opdefs.load(DEPRECATED.encode()), ["python"], tmp_path)
    return import_generated(tmp_path / "python")


def test_deprecated_op_warns_once_with_version_and_explanation(package):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        package.old_add(1, 2)
        package.old_add(1, 2)
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1
    assert str(deprecations[0].message) == \
        "OldAdd is deprecated since GraphDef version 27: Use AddV2 instead."
    assert deprecations[0].filename == __file__   # points at the caller


def test_docstring_has_summary_description_args_with_types_and_returns(package):
    doc = package.old_add.__doc__
    assert doc.startswith("Adds, the old way.\n\n    Kept for old graphs.\n")
    assert "Deprecated at GraphDef version 27: Use AddV2 instead." in doc
    assert "x: A `Tensor`. Must be one of the following types: `float32`, `int32`." in doc
    assert "y: A `Tensor`. Must have the same type as `x`." in doc
    assert 'mode: An optional `string` from: `"fast"`, `"exact"`. Defaults to `"fast"`.' in doc
    assert "Returns:\n      A `Tensor`. Has the same type as `x`." in doc


def test_several_outputs_give_a_namedtuple_named_after_the_op(package, fake_runtime):
    fake_runtime.outputs = 2
    result = package.split2(1.0, N=3)
    assert type(result).__name__ == "Split2" and result._fields == ("first", "rest")
    assert result.rest == "Split2:1"


def _mypy(tmp_path: Path, sources: dict[str, str]) -> subprocess.CompletedProcess:
    out = tmp_path / "out"
    generate.generate(opdefs.load(_paths.bundled_ops_path()), ["python"], out)
    shutil.copytree(out / "python", tmp_path / "pkgs" / "genops")
    for name, text in sources.items():
        (tmp_path / name).write_text(text)
    import opgen
    search = [str(tmp_path / "pkgs")]
    opgen_root = Path(opgen.__file__).resolve().parents[1]
    if "site-packages" not in str(opgen_root):
        search.append(str(opgen_root))   # a source checkout: not an installed package
    env = dict(os.environ, MYPYPATH=os.pathsep.join(search))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
         "--cache-dir", str(tmp_path / "cache"), "--python-version", "3.10",
         *sources], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


GOOD = '''
import numpy as np

import genops

x = np.ones((2, 2), np.float32)
product = genops.mat_mul(x, x, transpose_a=True, name="mm")
pieces = genops.unpack(x, num=2, axis=0)
first = pieces[0]
reshaped = genops.reshape(product, [4])
total = genops.add_n([x, x, 1.0])
cast = genops.cast(x, "int32")
values, indices = genops.arg_max(x, 0), genops.arg_min(x, 0, output_type="int32")
genops.no_op()
'''

BAD = '''
import numpy as np

import genops

x = np.ones((2, 2), np.float32)
genops.unpack(x, num="2")
'''


def test_mypy_accepts_good_calls_and_rejects_a_str_for_an_int_attr(tmp_path):
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    result = _mypy(tmp_path, {"good.py": GOOD, "bad.py": BAD})
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert [line for line in lines if line.startswith("good.py")] == []
    # (the stub's overloads, Output in -> Output out and eager in -> Tensor out, make
    # the error mypy's "no overload variant" with the call's argument types)
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 1, result.stdout + result.stderr
    assert errors[0].startswith('bad.py:7: error: No overload variant of "unpack" matches '
                                'argument types "ndarray'), errors
    assert errors[0].endswith('"str"  [call-overload]'), errors
    assert any("num: int" in line for line in lines), lines


def test_with_the_real_runtime_outputs_are_namedtuples_lists_or_tensors():
    ops = pytest.importorskip("opgen.ops", reason="opgen.ops is installed by `pip install .`")
    import numpy as np

    import opgen
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 2, 3)
    scale, zero = np.ones(3, np.float32), np.zeros(3, np.float32)
    result = ops.fused_batch_norm_v3(x, scale, zero, zero, scale, is_training=False)
    assert type(result).__name__ == "FusedBatchNormV3"
    assert result._fields == ("y", "batch_mean", "batch_variance", "reserve_space_1",
                              "reserve_space_2", "reserve_space_3")
    np.testing.assert_allclose(np.asarray(result.y), x / np.sqrt(1 + 1e-4), rtol=1e-5)
    pieces = ops.unpack(np.arange(6).reshape(3, 2), num=3)
    assert isinstance(pieces, list) and [np.asarray(p).tolist() for p in pieces] == [[0, 1], [2, 3], [4, 5]]
    assert isinstance(ops.add_v2(1.0, 2.0), opgen.Tensor)


def test_with_the_real_runtime_attr_checks_name_op_attr_and_allowed_set():
    ops = pytest.importorskip("opgen.ops", reason="opgen.ops is installed by `pip install .`")
    import numpy as np

    import opgen
    x = np.ones((1, 2, 2, 1), np.float32)
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match="AvgPool.*'padding'.*'SAMEX'.*'SAME', 'VALID'"):
        ops.avg_pool(x, [1, 1, 1, 1], [1, 1, 1, 1], "SAMEX")
    with pytest.raises(opgen.errors.InvalidArgumentError, match="Unpack.*'num'.*minimum 0"):
        ops.unpack(x, num=-1)
