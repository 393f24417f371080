"""Stateful random ops through the eager C API alone (random_capi.c): two TFE_Execute
calls of a seeded RandomUniform give TensorFlow's first and second eager values (the
context caches the kernel, as TensorFlow's eager context does), TFE_ContextClearCaches
starts the sequence over, and another context has its own. TensorFlow 2.21 runs in the
child interpreter $OPGEN_TF_PYTHON (skipped without it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from tf_reference import run_tf, tf_env

PROGRAM = Path(__file__).resolve().parent / "random_capi.c"

_TF_SCRIPT = r"""
import numpy as np
import tensorflow as tf
for _ in range(3):
    v = tf.raw_ops.RandomUniform(shape=tf.constant([5], tf.int32), dtype=tf.float32, seed=17, seed2=4)
    print(" ".join(f"{b:08x}" for b in np.asarray(v).view(np.uint32)))
"""


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    from opgen import _paths
    try:
        library = _paths.runtime_library_path()
    except FileNotFoundError as e:
        pytest.skip(str(e))
    binary = tmp_path_factory.mktemp("random") / "random_capi"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", str(PROGRAM),
                    f"-I{_paths.include_dir()}", f"-L{library.parent}",
                    f"-l:{library.name}", f"-Wl,-rpath,{library.parent}", "-o", str(binary)],
                   check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, cwd="/")
    assert run.returncode == 0, run.stdout + run.stderr
    return dict(line.split(": ", 1) for line in run.stdout.splitlines())


@pytest.fixture(scope="module")
def tensorflow_values():
    r = run_tf(["-c", _TF_SCRIPT], env=tf_env(CUDA_VISIBLE_DEVICES=""), timeout=300)
    return r.stdout.splitlines()


def test_consecutive_tfe_execute_calls_continue_tensorflows_sequence(lines, tensorflow_values):
    assert [lines["call0"], lines["call1"], lines["call2"]] == tensorflow_values
    assert lines["call0"] != lines["call1"]


def test_clearing_the_caches_starts_over_and_contexts_are_apart(lines, tensorflow_values):
    assert lines["cleared"] == tensorflow_values[0]
    assert lines["other_context"] == tensorflow_values[0]
