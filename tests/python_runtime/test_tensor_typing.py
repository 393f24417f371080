"""Issue 20 part 1: type checkers see ``opgen.Tensor`` as the class it is (not Any), and
its operators return Tensors: mypy on a small eager program."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROGRAM = """\
import numpy as np
import opgen

t = opgen.constant([1.0])
u = (t + 1) * t
a = u.numpy()
reveal_type(t + t)
reveal_type(2 * t)
reveal_type(t[0])
reveal_type(-t)
reveal_type(t @ t)
reveal_type(a)
reveal_type(opgen.Tensor)
b: np.ndarray = a
t.no_such_attribute
"""


def test_mypy_sees_tensor_operators(tmp_path):
    pytest.importorskip("mypy")
    program = tmp_path / "eager_program.py"
    program.write_text(PROGRAM)
    # Run from the repository root so mypy reads this checkout's opgen (its cache,
    # .mypy_cache there, makes later runs fast).
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary",
                           "--ignore-missing-imports", str(program)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    lines = [line.split(": ", 1)[1] for line in done.stdout.splitlines() if ": " in line]
    tensor = 'note: Revealed type is "opgen.runtime.tensor.Tensor"'
    assert lines[:5] == [tensor] * 5, done.stdout + done.stderr
    assert "numpy.ndarray" in lines[5], lines[5]
    assert "opgen.runtime.tensor.Tensor" in lines[6] and "Any" not in lines[6], lines[6]
    # ... and it is no Any: an attribute it lacks is an error
    assert lines[7].startswith('error: "Tensor" has no attribute "no_such_attribute"'), lines
    assert len(lines) == 8, done.stdout
