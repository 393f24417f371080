"""TensorFlow 2.21 as a reference, run in its own interpreter and never imported here.

The interpreter is the one $OPGEN_TF_PYTHON names; there is no default, so that no test
depends on where one machine keeps it. Without it (unset, missing, or no tensorflow
package there) the calling test skips and says why.

`run_tf_script` is the usual exchange: the test's arrays go to the child as an .npz,
the child's results come back as one. The child's command line is

    python -c SCRIPT [spec.json] [in.npz] out.npz

with spec.json there when a spec is given and in.npz when arrays are given; the script
writes out.npz with np.savez. `run_tf` is the plain form, for children that speak
something else (JSON on stdout, files of their own)."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

ENV_VAR = "OPGEN_TF_PYTHON"
# TensorFlow's import alone takes seconds; a reference run that takes minutes has hung.
DEFAULT_TIMEOUT = 600
_STDERR_TAIL = 3000
_NO_TENSORFLOW = "No module named 'tensorflow'"


class TFReferenceError(RuntimeError):
    """The TensorFlow child failed; the message ends with the tail of its stderr."""


def tf_python() -> Path:
    """The TensorFlow interpreter, or a skip of the calling test when there is none."""
    value = os.environ.get("OPGEN_TF_PYTHON", "")
    if not value:
        pytest.skip(f"no TensorFlow interpreter: {ENV_VAR} is not set")
    path = Path(value)
    if not path.is_file():
        pytest.skip(f"no TensorFlow interpreter: {ENV_VAR}={value} does not exist")
    return path


def tf_env(**extra: str) -> dict[str, str]:
    """The child's environment: ours, quiet TensorFlow logging, and no PYTHONPATH (the
    checkout's opgen must not shadow anything in TensorFlow's own environment)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    env.update(extra)
    return env


def run_tf(args: list, *, input: str | None = None, timeout: float = DEFAULT_TIMEOUT,
           cwd: str | Path | None = None, env: dict[str, str] | None = None,
           check: bool = True, text: bool = True) -> subprocess.CompletedProcess:
    """Run `$OPGEN_TF_PYTHON *args` with its output captured (as str, or bytes when `text`
    is false). It runs in `cwd`, by default the temporary folder, never the checkout
    (whose opgen/ would be importable). Skips when the interpreter has no tensorflow;
    raises TFReferenceError when the child fails and `check` is set."""
    python = tf_python()
    result = subprocess.run([str(python), *map(str, args)], input=input, capture_output=True,
                            text=text, timeout=timeout, check=False,
                            cwd=str(cwd) if cwd is not None else tempfile.gettempdir(),
                            env=env if env is not None else tf_env())
    stderr = result.stderr if text else result.stderr.decode(errors="replace")
    if result.returncode != 0 and _NO_TENSORFLOW in stderr:
        pytest.skip(f"{python} ({ENV_VAR}) has no TensorFlow")
    if check and result.returncode != 0:
        raise TFReferenceError(f"{python} exited with {result.returncode}; stderr ends:\n"
                               f"{stderr[-_STDERR_TAIL:]}")
    return result


def run_tf_script(script: str, arrays: dict | None = None, spec=None, *,
                  timeout: float = DEFAULT_TIMEOUT, env: dict[str, str] | None = None
                  ) -> dict[str, np.ndarray]:
    """Run SCRIPT in the TensorFlow interpreter over `arrays` (written as in.npz) and
    `spec` (JSON), in a fresh temporary folder, and return what it saved as out.npz."""
    with tempfile.TemporaryDirectory(prefix="opgen-tf-") as folder:
        work = Path(folder)
        args = []
        if spec is not None:
            (work / "spec.json").write_text(json.dumps(spec))
            args.append(work / "spec.json")
        if arrays is not None:
            np.savez(work / "in.npz", **arrays)
            args.append(work / "in.npz")
        args.append(work / "out.npz")
        run_tf(["-c", script, *args], timeout=timeout, cwd=work, env=env)
        with np.load(work / "out.npz") as out:
            return {key: out[key] for key in out.files}
