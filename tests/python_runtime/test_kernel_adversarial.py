"""No op of the runtime can be crashed, hung or made to return garbage from Python: every
registered op gets the adversarial calls of adversarial_cases.py (through execute_op and
the op's generated function eagerly, in a graph of Const inputs and in a graph of fed
Placeholders), run in child processes so that a crash
fails only the op's test, naming the input that crashed it. A call must return a result
(the same in every mode and from run to run, and the same for a strided, Fortran-order,
byte-swapped or unaligned array as for a plain one; for an op whose OpDef is stateful, a
random draw, the same dtypes and shapes) or raise a clear error (an
opgen.errors class other than Internal / Unknown, TypeError or ValueError); invalid input
must raise."""

from __future__ import annotations

import os
import pytest

import adversarial_cases as ac
import adversarial_sweep

pytestmark = pytest.mark.usefixtures("runtime_lib")


OPS = ac.builtin_op_names()


@pytest.fixture(scope="module")
def sweep():
    cases = ac.all_cases(ac.runtime_op_defs())
    # A sanitizer build runs several times slower: give each case more time there.
    timeout = 120.0 if "asan" in os.environ.get("LD_PRELOAD", "") else 30.0
    failures, ran, registered = adversarial_sweep.sweep(timeout=timeout, jobs=2)
    return cases, failures, ran, registered


def test_every_registered_op_is_swept(sweep):
    cases, _, ran, registered = sweep
    assert registered == OPS, "a fresh runtime registers other ops than ops.pbtxt holds"
    per_op = {name: [c for c in cases if c.op == name] for name in registered}
    thin = {name: len(c) for name, c in per_op.items() if len(c) < 15 and name != "NoOp"}
    assert not thin, f"ops with too few adversarial cases: {thin}"
    assert ran == len(cases)


@pytest.mark.parametrize("op", OPS)
def test_op_survives_adversarial_calls(op, sweep):
    cases, failures, _, _ = sweep
    mine = [(i, verdict) for i, verdict in sorted(failures.items()) if cases[i].op == op]
    if mine:
        pytest.fail(f"{len(mine)} of {sum(c.op == op for c in cases)} adversarial calls of {op} "
                    "misbehaved:\n" + "\n".join(f"#{i} {cases[i].describe()}\n    {verdict}"
                                                for i, verdict in mine[:20]), pytrace=False)


def test_the_sweep_reports_a_crash_as_the_case_that_crashed(monkeypatch, tmp_path):
    """The harness itself: a child killed mid-case fails that case and the sweep goes on
    with the next one."""
    import subprocess
    import sys

    script = tmp_path / "fake_worker.py"
    script.write_text(
        "import json, os, sys\n"
        "first, last = int(sys.argv[2]), int(sys.argv[3])\n"
        "for i in range(first, last):\n"
        "    print(json.dumps({'start': i}), flush=True)\n"
        "    if i == 1: os.abort()\n"
        "    print(json.dumps({'done': i, 'verdict': None}), flush=True)\n"
        "print(json.dumps({'end': last, 'registered': ['Fake']}), flush=True)\n")
    real_popen = subprocess.Popen

    def popen(args, **kwargs):
        return real_popen([sys.executable, str(script)] + args[2:], **kwargs)

    monkeypatch.setattr(adversarial_sweep.subprocess, "Popen", popen)
    failures, ran, registered = adversarial_sweep._sweep_range(0, 4, timeout=10, only_op=None)
    assert list(failures) == [1] and "killed by signal 6" in failures[1]
    assert registered == ["Fake"]
    assert ran == 4
