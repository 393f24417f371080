"""The C++ framework's functions and control flow (opgen::Function, CallFunction,
ops::Cond, ops::BuildWhileLoop): examples/cpp/flow_example.cc prints what numpy computes
for flow_programs' graphs, and flow_errors_probe.cc shows the builders refusing bad
input with opgen::Error while the graph stays usable. The example's values also come
out alike on TensorFlow's own C library when the tensorflow package is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# the shared programs and fixtures beside this file (importlib mode)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import flow_programs
from test_examples_c_cpp import _link_against_tensorflow

REPO = Path(__file__).resolve().parents[2]
FLOW_EXAMPLE = REPO / "examples" / "cpp" / "flow_example.cc"
PROBE = Path(__file__).resolve().parent / "flow_errors_probe.cc"
NOT_FOUND, INVALID_ARGUMENT = "5", "3"   # TF_Code values as the programs print them


needs_cpp = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler (c++) on PATH")


def _compile_and_run(source: Path, out: Path, flags: list[str]) -> str:
    subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", str(source),
                    f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(out)], check=True)
    run = subprocess.run([str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


@needs_cpp
def test_cpp_flow_example_prints_what_numpy_computes(tmp_path, flags):
    stdout = _compile_and_run(FLOW_EXAMPLE, tmp_path / "flow_example", flags)
    lines = flow_programs.check(stdout, NOT_FOUND, INVALID_ARGUMENT)
    assert lines["while_dtype"] == (
        "3 | BuildWhileLoop: body changed loop variable 2 from float32 to int32")
    assert "unexpected" not in lines


@pytest.fixture(scope="module")
def probe(tmp_path_factory, flags):
    if shutil.which("c++") is None:
        pytest.skip("no C++ compiler (c++) on PATH")
    stdout = _compile_and_run(PROBE, tmp_path_factory.mktemp("probe") / "probe", flags)
    return flow_programs.parse(stdout)


def test_a_builder_that_throws_drops_the_loop_and_the_graph_goes_on(probe):
    # Not an opgen::Error: it comes through unchanged; an Error keeps its code.
    assert probe["cond_throws"] == "other | cond builder failed"
    assert probe["body_throws"] == "12 | body builder failed"          # TF_UNIMPLEMENTED
    # TF_AbortWhile ran for each failed loop: none of their nodes is left in the graph,
    # and a loop built after them runs: x * 2**3.
    assert probe["ops_added_by_failures"] == "0"
    assert probe["loop_op"].split()[0] == "While"
    np.testing.assert_allclose([float(v) for v in probe["loop"].split()],
                               flow_programs.X * 8, rtol=1e-6)


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("c++") is None,
                    reason="no valgrind or C++ compiler on PATH")
def test_dropped_loops_and_functions_free_what_they_held(tmp_path, flags):
    # TF_AbortWhile frees a failed loop's two graphs (without it, valgrind finds them
    # lost); Function, calls, conds, loops and their gradients leak nothing and read
    # nothing freed, in the probe and the example.
    for source in (PROBE, FLOW_EXAMPLE):
        binary = tmp_path / source.stem
        subprocess.run(["c++", "-g", "-std=c++17", str(source),
                        f"-I{REPO / 'generated' / 'cpp'}", *flags, "-o", str(binary)], check=True)
        # Without device plugins: dlopen's handling of an installed plugin's $ORIGIN rpath
        # trips valgrind's known false positive in glibc's SSE2 strncmp (an 8-byte read
        # past a strdup'd string), which is not this code's.
        env = dict(os.environ, OPGEN_DISABLE_DEVICE_PLUGINS="1")
        run = subprocess.run(["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite",
                              "--error-exitcode=9", str(binary)],
                             capture_output=True, text=True, timeout=600, env=env)
        assert run.returncode == 0, source.name + run.stderr[-5000:]
        assert "definitely lost: 0 bytes" in run.stderr or "no leaks are possible" in run.stderr


def test_bad_loops_are_errors_with_clear_messages(probe):
    assert probe["body_outputs"] == (
        "3 | BuildWhileLoop: body gave 2 outputs for 3 loop variables")
    assert probe["cond_unset"] == "3 | BuildWhileLoop: cond's output is an empty Output"
    assert probe["cond_not_bool"] == "3 | BuildWhileLoop: cond's output is int32, not bool"
    assert probe["body_outer_tensor"] == (
        "3 | BuildWhileLoop: body's output 2 (x:0) is not in the graph being built")
    assert probe["body_reads_outer"] == (
        "3 | Node 'Mul': input x:0 is not an operation of this graph (a function or loop "
        "body may read only its arguments)")


def test_bad_functions_and_conds_are_errors(probe):
    assert probe["call_arity"] == "3 | function 'twice' takes 1 arguments, got 2"
    assert probe["call_dtype"] == "3 | function 'twice': argument 0 is int32, not float32"
    assert probe["cond_dtypes"] == (
        "3 | Cond: result 0 is float32 in then_branch and int32 in else_branch")
    assert probe["cond_counts"] == "3 | Cond: then_branch returns 2 results and else_branch 1"
    assert probe["function_outer_result"] == (
        "3 | function 'leaks': result 0 (x:0) is not in the graph being built")
    # an Output of another graph as an op's input: refused before TensorFlow's C API sees
    # it (which would link the two graphs and crash later)
    assert probe["function_outer_input"] == (
        "3 | Node 'Mul': input x:0 is not an operation of this graph (a function or loop "
        "body may read only its arguments)")
    code, message = probe["function_clash"].split(" | ", 1)
    assert code == "3" and "'twice'" in message and "different function" in message, message


def test_functions_calling_functions_and_the_ops_chosen(probe):
    x = flow_programs.X
    # quadruple calls twice twice; twice comes along into the root graph's library
    # (twice, quadruple and the loop's cond and body: 4 functions).
    np.testing.assert_allclose([float(v) for v in probe["quadruple"].split()], 4 * x)
    assert probe["library"] == "4"
    np.testing.assert_allclose([float(v) for v in probe["loop_calling"].split()], 8 * x)
    np.testing.assert_allclose([float(v) for v in probe["cond_stateless"].split()], 2 * x)
    # two functions' conds, both named "cond" inside them, keep their own branches
    np.testing.assert_allclose([float(v) for v in probe["by_ten"].split()], 10 * x)
    np.testing.assert_allclose([float(v) for v in probe["by_hundred"].split()], 100 * x)
    # an argument returned as it is, twice; calls and conds of no inputs; an identity branch
    for pred, sign in (("true", 1), ("false", -1)):
        printed = np.array([float(v) for v in probe[f"edge_{pred}"].split()])
        expected = np.concatenate([x, x, [7], x + 7, [1 if sign > 0 else 2], sign * x])
        np.testing.assert_allclose(printed, expected, err_msg=pred)
        # d(x + (x + 7) + cond(x, -x)) / dx
        np.testing.assert_allclose([float(v) for v in probe[f"edge_grad_{pred}"].split()],
                                   np.full(3, 2 + sign), err_msg=pred)
    # Stateless functions go through PartitionedCall / StatelessIf, stateful ones through
    # StatefulPartitionedCall / If, as TensorFlow's Python builds them.
    assert probe["call_op"] == "PartitionedCall PartitionedCall"
    assert probe["stateful_call_op"] == "StatefulPartitionedCall 1"
    assert probe["if_ops"] == "StatelessIf If cond_1"


@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("cc") is None
                    or shutil.which("nm") is None, reason="no C/C++ compiler or nm on PATH")
def test_cpp_flow_example_runs_alike_on_tensorflows_c_library(tmp_path, tensorflow_root):
    # TensorFlow's own TF_GraphToFunction, PartitionedCall, If and TF_FinishWhile (which
    # builds v1 frames there) behind the same code. Its C API has no If or While
    # gradients: the example leaves the gradient lines out.
    obj = tmp_path / "flow_example.o"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-c", str(FLOW_EXAMPLE),
                    f"-I{REPO / 'generated' / 'cpp'}", f"-I{tensorflow_root / 'include'}",
                    "-o", str(obj)], check=True)
    binary = tmp_path / "flow_on_tf"
    _link_against_tensorflow([obj], "c++", tensorflow_root, binary)
    linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
    assert str(tensorflow_root / "libtensorflow_cc.so.2") in linked   # the real one
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run = subprocess.run([str(binary), "no-gradients"], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    lines = flow_programs.parse(run.stdout)
    checked = 0
    for what, values in flow_programs.expected_values().items():
        if what.endswith("_grad") or "_grad_" in what:
            assert what not in lines
            continue
        printed = np.array([float(v) for v in lines[what].split()])
        np.testing.assert_allclose(printed, values.ravel(), rtol=1e-6, err_msg=what)
        checked += 1
    assert checked == 5   # function, cond_true, cond_false, while_count, while
    # TensorFlow's TF_FinishOperation says INVALID_ARGUMENT for an unknown op type
    # (NodeDefBuilder's errors), where opgen's runtime says NOT_FOUND.
    code, message = lines["missing_function"].split(" | ", 1)
    assert code == INVALID_ARGUMENT and "no_such_function" in message, message
    assert lines["while_dtype"].startswith(f"{INVALID_ARGUMENT} | ")


@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("cc") is None
                    or shutil.which("nm") is None, reason="no C/C++ compiler or nm on PATH")
def test_probe_prints_the_same_on_tensorflows_c_library(tmp_path, tensorflow_root, probe):
    # TensorFlow's own function library (TF_GraphToFunction with its content hashes,
    # TF_GraphCopyFunction, is_stateful), calls, Ifs and TF_NewWhile / TF_AbortWhile
    # behind the probe: every line as on opgen's runtime, but for what differs by design.
    obj = tmp_path / "probe.o"
    subprocess.run(["c++", "-std=c++17", "-Wall", "-c", str(PROBE),
                    f"-I{REPO / 'generated' / 'cpp'}", f"-I{tensorflow_root / 'include'}",
                    "-o", str(obj)], check=True)
    binary = tmp_path / "probe_on_tf"
    _link_against_tensorflow([obj], "c++", tensorflow_root, binary)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    run = subprocess.run([str(binary), "no-gradients"], capture_output=True, text=True,
                         timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]
    on_tf = flow_programs.parse(run.stdout)
    # TensorFlow's TF_FinishWhile builds v1 frames (the loop's last op is an Exit, and its
    # library holds no loop functions).
    assert on_tf.pop("loop_op").startswith("Exit loop_")
    assert on_tf.pop("library") == "2"
    # the same class of message, TensorFlow's ending in a full stop
    assert on_tf.pop("function_clash").rstrip(".") == probe["function_clash"]
    ours = {k: v for k, v in probe.items()
            if k not in ("loop_op", "library", "function_clash")
            and not k.startswith("edge_grad_")}
    assert on_tf == ours
