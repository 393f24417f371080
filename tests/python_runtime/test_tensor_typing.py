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


# ---- the generated stubs: Tensor from eager calls, Output from graph ones ----------------

EAGER_OPS = """\
import numpy as np
from opgen import ops

arr = np.ones((2, 3), np.float32)
values: np.ndarray = ops.relu(arr).numpy()
y = ops.relu(arr)
z = ops.mat_mul(y, ops.transpose(y, [1, 0]))
joined = ops.concat_v2([y, arr], 0).numpy()
scaled = (ops.add_v2(y, 1.0) * 2).numpy()
rows = ops.unpack(y, num=2)
first: np.ndarray = rows[0].numpy()
reveal_type(z)
reveal_type(rows)
"""

GRAPH_OPS = """\
import numpy as np
import opgen
from opgen import ops

g = opgen.Graph()
with g.as_default():
    x = ops.placeholder(opgen.float32, shape=[None, 3])
    y = ops.relu(x) * 2
    z = ops.concat_v2([y, y], 0)
    parts = ops.unpack(ops.reshape(z, [-1]), num=6)
    node_name: str = z.op.name
    reveal_type(x)
    reveal_type(z)
    reveal_type(parts)
    # a list mixing Outputs and numpy data matches no graph overload: Tensor | Output
    reveal_type(ops.concat_v2([y, np.ones((1, 3), np.float32)], 0))
with opgen.Session(graph=g) as session:
    session.run(z, {x: np.ones((2, 3), np.float32)})
"""

WRONG_OPS = """\
import numpy as np
import opgen
from opgen import ops

g = opgen.Graph()
with g.as_default():
    x = ops.placeholder(opgen.float32, shape=[None, 3])
    ops.relu(x).numpy()
ops.relu(np.ones(3)).op
"""


def _mypy(tmp_path, name, text):
    program = tmp_path / name
    program.write_text(text)
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary",
                           "--ignore-missing-imports", str(program)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    # (mypy before 2.0 spells list as builtins.list)
    return [line.split(": ", 1)[1].replace("builtins.list", "list")
            for line in done.stdout.splitlines() if ": " in line]


def test_mypy_types_generated_ops_by_mode(tmp_path):
    """Eager calls (numpy and Tensor inputs) return Tensor, so .numpy() type-checks;
    calls given a graph Output return Output; a wrong program is an error."""
    pytest.importorskip("mypy")
    tensor = 'note: Revealed type is "opgen.runtime.tensor.Tensor"'
    output = 'note: Revealed type is "opgen.runtime.graph.Output"'
    assert _mypy(tmp_path, "eager_ops.py", EAGER_OPS) == [
        tensor, 'note: Revealed type is "list[opgen.runtime.tensor.Tensor]"']
    assert _mypy(tmp_path, "graph_ops.py", GRAPH_OPS) == [
        output, output, 'note: Revealed type is "list[opgen.runtime.graph.Output]"',
        'note: Revealed type is "opgen.runtime.tensor.Tensor | opgen.runtime.graph.Output"']
    lines = _mypy(tmp_path, "wrong_ops.py", WRONG_OPS)
    assert [line.split("  [")[0] for line in lines] == [
        'error: "Output" has no attribute "numpy"',
        'error: "Tensor" has no attribute "op"'], lines
