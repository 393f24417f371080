"""``opgen run``: a frozen graph run from the shell on .npy inputs gives TensorFlow's
recorded outputs (printed or saved), times itself with --benchmark, and reports bad
input in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from opgen.cli import main

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "tf_models"


@pytest.fixture(autouse=True)
def graph_runtime(runtime_lib):
    if not hasattr(runtime_lib, "TF_NewGraph"):
        pytest.skip("this runtime was built without the graph API")


@pytest.fixture
def cnn(tmp_path):
    io = np.load(MODELS / "cnn_io.npz")
    np.save(tmp_path / "image.npy", io["input"])
    return (MODELS / "cnn.pb", str(io["input_name"]), str(io["output_name"]),
            tmp_path / "image.npy", io["output"])


def invoke(*args):
    return CliRunner().invoke(main, ["run", *map(str, args)])


@pytest.mark.parametrize("optimize", [[], ["--optimize"], ["--no-optimize"]])
def test_saved_outputs_are_tensorflows(cnn, tmp_path, optimize):
    model, input_name, output_name, image, expected = cnn
    result = invoke(model, "--input", f"{input_name}={image}", "--output", output_name,
                    "--save", tmp_path / "out.npz", *optimize)
    assert result.exit_code == 0, result.output
    saved = np.load(tmp_path / "out.npz")
    np.testing.assert_allclose(saved[output_name], expected, rtol=1e-5, atol=1e-7)


def test_outputs_are_guessed_and_printed(cnn):
    model, input_name, output_name, image, expected = cnn
    # "image" for "image:0"; the output nobody reads is the model's result
    result = invoke(model, "-i", f"{input_name.split(':')[0]}={image}")
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first == f"{output_name}: float32 {list(expected.shape)}"
    printed = np.array(eval(result.stdout.split("\n", 1)[1], {"array": np.array}))
    np.testing.assert_allclose(printed, expected, rtol=0, atol=1e-6)  # printed to 6 places


def test_benchmark_prints_percentiles(cnn):
    model, input_name, output_name, image, _ = cnn
    result = invoke(model, "--random-inputs", "--output", output_name, "--benchmark", 5,
                    "--warmup", 1)
    assert result.exit_code == 0, result.output
    summary = result.stdout.strip().splitlines()[-1]
    assert summary.startswith("5 runs: median ") and "p90" in summary and "p99" in summary


@pytest.mark.parametrize("args, message", [
    (["--input", "nope:0={image}"], "has no tensor 'nope:0'"),
    (["--input", "{input}"], "NAME=FILE.npy"),
    ([], "no value for input"),
    (["--input", "{input}={image}", "--output", "ghost:0"], "no tensor 'ghost:0' to fetch"),
    (["--input", "{input}={image}", "--random-inputs"], "not both"),
])
def test_bad_arguments_fail_in_one_line(cnn, args, message):
    model, input_name, _, image, _ = cnn
    args = [a.format(image=image, input=input_name) for a in args]
    result = invoke(model, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_wrong_input_shape_names_the_input(cnn, tmp_path):
    model, input_name, _, _, _ = cnn
    np.save(tmp_path / "small.npy", np.zeros((1, 3), np.float32))
    result = invoke(model, "--input", f"{input_name}={tmp_path / 'small.npy'}")
    assert result.exit_code == 2
    assert "InvalidArgumentError" in result.output and input_name in result.output


def test_a_file_that_is_not_a_graph(tmp_path):
    bad = tmp_path / "model.pb"
    bad.write_bytes(b"\xff\xff\xff not a graph")
    result = invoke(bad, "--random-inputs")
    assert result.exit_code == 2 and "GraphDef" in result.output
