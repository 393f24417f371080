"""Live: TensorFlow 2.21 writes fresh SavedModels with the fixture script
(tests/fixtures/saved_models/make_saved_models.py, in a child process with
$OPGEN_TF_PYTHON) and opgen loads them: the TF1 model and the TF2 ones (functions called
through StatefulPartitionedCall, While and If) give TensorFlow's outputs. Skipped without
TensorFlow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from opgen import saved_model
from opgen.runtime import _lib
from tf_reference import run_tf, tf_python

SCRIPT = Path(__file__).resolve().parents[1] / "fixtures" / "saved_models" / "make_saved_models.py"

pytestmark = pytest.mark.tensorflow


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    tf_python()  # skips first when there is no TensorFlow
    try:
        _lib.lib()
    except FileNotFoundError as e:
        pytest.skip(f"runtime library not available: {e}")
    out = tmp_path_factory.mktemp("saved_models")
    run_tf([SCRIPT, out], cwd=out)
    return out


@pytest.mark.parametrize("name", ["tf1_dense", "keras_dense", "keras_conv", "keras_lstm",
                                  "module_flow"])
def test_fresh_saved_models(fresh, name):
    assert sum(f.stat().st_size for f in (fresh / name).rglob("*") if f.is_file()) < 2 << 20
    expected: dict = {}
    with np.load(fresh / f"{name}_io.npz") as data:
        for key in data.files:
            signature, side, arg = key.split("/")
            expected.setdefault(signature, {"in": {}, "out": {}})[side][arg] = data[key]
    with saved_model.load(fresh / name) as model:
        for signature, io in expected.items():
            got = model.signatures[signature](**io["in"])
            for key, want in io["out"].items():
                np.testing.assert_allclose(got[key], want, rtol=2e-5, atol=2e-6)
