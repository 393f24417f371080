"""The example plugin (examples/plugin/my_ops.c) loaded with opgen.load_op_library:
wrapped in Python, numbers against numpy, shapes and shape errors at graph-build time
from the plugin's shape function, kernel failures as Python exceptions, a library that
redefines an op refused, and `opgen generate --from-library`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import opgen
from plugin_build import EXAMPLE, compile_plugin

SHAPE_MESSAGE = "WeightedSum needs values of one shape: dimension 1 of value 1 is 4, of value 0 3"


def placeholder(graph, dtype, shape, name):
    return graph.create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name).outputs[0]


def test_library_module_wraps_the_op(my_ops, my_ops_path):
    assert "weighted_sum" in dir(my_ops)
    assert [op.name for op in my_ops.OP_LIST.op] == ["WeightedSum"]
    op = my_ops.OP_LIST.op[0]
    assert [a.name for a in op.attr] == ["N", "T", "weights"]
    assert op.input_arg[0].number_attr == "N"
    assert opgen.load_op_library(my_ops_path) is my_ops          # idempotent
    assert opgen.load_op_library(str(my_ops_path)) is my_ops


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_weighted_sum_matches_numpy(my_ops, dtype):
    rng = np.random.default_rng(7)
    values = [rng.standard_normal((3, 4, 5)).astype(dtype) for _ in range(3)]
    weights = [0.5, -2.0, 3.25]
    got = np.asarray(my_ops.weighted_sum(values, weights=weights))
    want = sum(np.float32(w).astype(dtype) * v for w, v in zip(weights, values))
    assert got.dtype == dtype and got.shape == (3, 4, 5)
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-12)


def test_type_constraint_rejects_other_dtypes(my_ops):
    with pytest.raises(opgen.errors.OpError, match="int32|T"):
        my_ops.weighted_sum([np.ones(2, np.int32)], weights=[1.0])


def test_kernel_failures_raise_with_the_plugins_message(my_ops):
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match="WeightedSum needs values of one shape: value 1 differs"):
        my_ops.weighted_sum([np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)],
                            weights=[1.0, 1.0])
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match="WeightedSum got 3 weights for 2 values"):
        my_ops.weighted_sum([np.ones(2, np.float32)] * 2, weights=[1.0, 2.0, 3.0])
    # the op still works afterwards
    np.testing.assert_allclose(
        np.asarray(my_ops.weighted_sum([np.ones(2, np.float32)] * 2, weights=[1.0, 2.0])),
        [3.0, 3.0])


def test_shape_function_output_shapes_in_graph_mode(my_ops):
    g = opgen.Graph()
    x = placeholder(g, opgen.float32, [2, None], "x")
    y = placeholder(g, opgen.float32, [None, 3], "y")
    total = g.create_op("WeightedSum", [[x, y]], {"weights": [1.0, 2.0]}).outputs[0]
    # the plugin returns input 0's shape once the inputs are checked compatible
    assert total.shape == (2, None)
    assert total.dtype == opgen.float32
    with opgen.Session(g) as sess:
        got = sess.run(total, {x: np.full((2, 3), 2.0), y: np.ones((2, 3))})
    np.testing.assert_allclose(got, np.full((2, 3), 4.0))


def test_shape_error_at_graph_build_time_has_the_plugins_message(my_ops):
    g = opgen.Graph()
    x = placeholder(g, opgen.float32, [2, 3], "x")
    y = placeholder(g, opgen.float32, [2, 4], "y")
    with pytest.raises(opgen.errors.InvalidArgumentError, match=SHAPE_MESSAGE):
        g.create_op("WeightedSum", [[x, y]], {"weights": [1.0, 1.0]}, name="bad")
    assert "bad" not in g
    z = placeholder(g, opgen.float32, [2], "z")
    with pytest.raises(opgen.errors.InvalidArgumentError, match="value 1 has rank 1"):
        g.create_op("WeightedSum", [[x, z]], {"weights": [1.0, 1.0]})


def test_library_redefining_an_op_is_refused(my_ops, tmp_path):
    """A second library registering WeightedSum: a clear error, every later load the
    same error, and the first definition and kernels keep working."""
    from opgen import _paths
    copy = tmp_path / "again.c"
    shutil.copy(EXAMPLE, copy)
    path = compile_plugin(copy, tmp_path / "libagain.so", _paths.include_dir())
    for _ in range(2):
        with pytest.raises(opgen.errors.AlreadyExistsError, match="WeightedSum"):
            opgen.load_op_library(path)
    ones = [np.ones(3, np.float64)] * 2
    np.testing.assert_allclose(np.asarray(my_ops.weighted_sum(ones, weights=[1.0, 1.5])),
                               [2.5] * 3)


def test_missing_library_is_not_found(tmp_path):
    with pytest.raises(opgen.errors.NotFoundError, match="nope.so"):
        opgen.load_op_library(tmp_path / "nope.so")


def test_cli_generates_from_library(my_ops_path, tmp_path):
    from click.testing import CliRunner

    from opgen.cli import main
    result = CliRunner().invoke(main, ["generate", "--from-library", str(my_ops_path),
                                       "--lang", "python", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    generated = "".join(p.read_text() for p in (tmp_path / "python").glob("_ops_*.py"))
    assert re.search(r"def weighted_sum\(\s*values", generated)
    assert '_execute_op("WeightedSum"' in generated
    assert "ops (sha256" in (tmp_path / "python" / "__init__.py").read_text()


def test_cli_reports_a_missing_library(tmp_path):
    from click.testing import CliRunner

    from opgen.cli import main
    result = CliRunner().invoke(main, ["generate", "--from-library", str(tmp_path / "x.so"),
                                       "--out", str(tmp_path)])
    assert result.exit_code == 2 and "no op library" in result.output


def test_cli_lists_a_librarys_kernels(my_ops_path):
    from click.testing import CliRunner

    from opgen.cli import main
    result = CliRunner().invoke(main, ["kernels", "--from-library", str(my_ops_path),
                                       "WeightedSum"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["WeightedSum\tCPU\tT=float32", "WeightedSum\tCPU\tT=float64"]


def test_cli_list_show_and_diff_read_a_library(my_ops_path, tmp_path):
    """list, show and diff take --from-library as generate does (one shared option)."""
    from click.testing import CliRunner

    from opgen.cli import main
    listed = CliRunner().invoke(main, ["list", "--from-library", str(my_ops_path)])
    assert listed.exit_code == 0, listed.output
    assert listed.stdout == "WeightedSum\n"
    shown = CliRunner().invoke(main, ["show", "WeightedSum", "--from-library", str(my_ops_path)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.splitlines()[0] == "op WeightedSum"
    assert "    weights: list(float)" in shown.stdout
    # the library's OpList written out with one more op: diff names it as removed
    from opgen import opdefs, pipeline
    old = pipeline.load_library(str(my_ops_path))
    old.op.add(name="Retired")
    (tmp_path / "old.pbtxt").write_text(opdefs.to_text(old))
    diffed = CliRunner().invoke(main, ["diff", str(tmp_path / "old.pbtxt"),
                                       "--from-library", str(my_ops_path)])
    assert diffed.exit_code == 1, diffed.output
    assert diffed.stdout.splitlines() == [
        "Retired: breaking: op removed",
        "1 breaking change(s) (1 removed op(s), 0 changed op(s)), 0 compatible change(s), "
        "0 added op(s)"]


def test_cli_generate_counts_a_librarys_kernels_as_runnable(my_ops_path, tmp_path):
    """--only-runnable and --kernel-docs see the kernels the library registers."""
    from click.testing import CliRunner

    from opgen.cli import main
    result = CliRunner().invoke(main, ["generate", "--from-library", str(my_ops_path),
                                       "--only-runnable", "--kernel-docs", "--lang", "python,go",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    python = (tmp_path / "python" / "_ops_w.py").read_text()
    assert "Kernels in the opgen runtime: CPU for float32, float64." in python
    assert "// Kernels in the opgen runtime: CPU for float32, float64." in \
        (tmp_path / "go" / "op" / "ops.go").read_text()
