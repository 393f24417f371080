"""Issue 18, part 8: opgen's CPU kernels against ``tf.raw_ops``, one test per registered
(op, dtypes) pair, over the calls of cases.py (random and special values, empty tensors,
the hand-written classes). TensorFlow runs once, in a child process of the interpreter
$OPGEN_TF_PYTHON names; the test skips without one,
and fails if that child crashes. Known differences are strict xfails
(known_differences.py), each explained in docs/conformance.md.

    OPGEN_TF_PYTHON=/path/to/python pytest tests/conformance -q
    python tests/conformance/test_vs_tensorflow.py   # a table of the disagreeing pairs
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "python_runtime"))
sys.path.insert(0, str(HERE.parent))  # tf_reference, also when run as a script

import cases  # noqa: E402
import compare  # noqa: E402
import known_differences  # noqa: E402
import wire  # noqa: E402
from tf_reference import run_tf, tf_python  # noqa: E402


def _compared_pairs():
    try:
        pairs = cases.registered_pairs()
    except Exception as e:  # noqa: BLE001 (no runtime library: nothing to collect)
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"no runtime: {e}"))]
    params = []
    for pair in pairs:
        if cases.not_compared_reason(pair.op) or cases.not_compared_pair_reason(pair):
            continue
        reason = known_differences.reason(pair)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(pair, id=pair.id, marks=marks))
    return params


def _encode_calls(all_calls):
    store = wire.ArrayStore()
    docs = []
    for call in all_calls:
        op_def = cases.op_defs()[call.op]
        names = [arg.name for arg in op_def.input_arg]
        docs.append({
            "op": call.op,
            "inputs": {n: wire.encode_value(store, v) for n, v in zip(names, call.inputs)},
            "attrs": {k: wire.encode_value(store, v) for k, v in call.tf_attrs.items()},
        })
    return docs, store


def run_tensorflow(all_calls) -> list:
    """TensorFlow's result of each call: ("outputs", [arrays]) or ("error", message)."""
    docs, store = _encode_calls(all_calls)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "calls.json").write_text(json.dumps(docs))
        store.save(tmp / "calls.npz")
        run_tf([HERE / "tf_runner.py", tmp / "calls.json", tmp / "calls.npz",
                tmp / "results.json", tmp / "results.npz"], cwd=tmp)
        results = json.loads((tmp / "results.json").read_text())
        blobs = dict(np.load(tmp / "results.npz"))
    return [("error", r["error"]) if "error" in r else
            ("outputs", [wire.get_array(blobs, ref) for ref in r["outputs"]]) for r in results]


def run_opgen(call):
    from opgen.runtime import execute_op
    try:
        result = execute_op(call.op, list(call.inputs), dict(call.attrs))
    except Exception as e:  # noqa: BLE001 (every error is a result to compare)
        return ("error", f"{type(e).__name__}: {e}")
    out = []
    for t in wire.flatten(result):
        array = np.asarray(t)
        if array.dtype.kind == "V" and cases.bfloat16 is not None:
            array = array.view(cases.bfloat16)
        out.append(array)
    return ("outputs", out)


@pytest.fixture(scope="session")
def tensorflow_results():
    """{pair: [(call, TensorFlow's result)]} for every compared pair, TensorFlow run once."""
    tf_python()  # skips before the cases are built when there is no TensorFlow
    by_pair = {}
    all_calls = []
    for param in _compared_pairs():
        pair = param.values[0]
        if pair is None:
            continue
        calls = cases.cases_for_pair(pair)
        by_pair[pair] = calls
        all_calls += calls
    results = iter(run_tensorflow(all_calls))
    return {pair: [(call, next(results)) for call in calls] for pair, calls in by_pair.items()}


def pair_disagreements(pair, tf_results) -> list[str]:
    problems = []
    for call, want in tf_results:
        problem = compare.disagreement(call.op, run_opgen(call), want,
                                       compare.compared_outputs(call))
        if problem:
            problems.append(f"{call.what}: {problem}")
    return problems


@pytest.mark.parametrize("pair", _compared_pairs())
def test_agrees_with_tensorflow(pair, tensorflow_results):
    problems = pair_disagreements(pair, tensorflow_results[pair])
    assert not problems, f"{pair.id} differs from tf.raw_ops.{pair.op}:\n" + "\n".join(problems)


def test_every_known_difference_names_a_registered_pair():
    """A stale entry (an op renamed, a dtype dropped) would xfail nothing."""
    ids = {p.id for p in cases.registered_pairs()}
    ops = {p.op for p in cases.registered_pairs()}
    for key in known_differences.KNOWN:
        assert key in ids or key in ops, f"known_differences names {key!r}, which is not registered"


if __name__ == "__main__":  # a table of every disagreeing pair, for docs/conformance.md
    pairs = [p.values[0] for p in _compared_pairs() if p.values[0] is not None]
    by_pair = {pair: cases.cases_for_pair(pair) for pair in pairs}
    all_calls = [c for calls in by_pair.values() for c in calls]
    results = iter(run_tensorflow(all_calls))
    agree = 0
    for pair, calls in by_pair.items():
        problems = pair_disagreements(pair, [(c, next(results)) for c in calls])
        agree += not problems
        if problems:
            print(f"{pair.id}: {problems[0]}" + (f" (+{len(problems) - 1})" if len(problems) > 1 else ""))
    print(f"{agree}/{len(pairs)} pairs agree; {len(all_calls)} calls")
