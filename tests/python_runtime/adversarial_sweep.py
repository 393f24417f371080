"""Runs the cases of adversarial_cases.py in child processes, so that a crash, an abort
or a hang fails one case, named by its op and input, and the sweep goes on.

A child (``python adversarial_sweep.py --worker FIRST``) runs cases FIRST, FIRST+1 ...
and writes one JSON line before and after each; the parent restarts a child after the
case that killed the last one. Each case runs eagerly (through ``execute_op`` and through
the op's generated function), in a graph of Const inputs and in a graph of fed
Placeholders, and is judged in the child (see ``judge``).

    python tests/python_runtime/adversarial_sweep.py [--op NAME] [--timeout S] [--jobs N]

runs the sweep by hand and prints every failure (set OPGEN_RUNTIME_LIB, LD_PRELOAD and
ASAN_OPTIONS / UBSAN_OPTIONS for a sanitizer build)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import adversarial_cases as ac  # noqa: E402

# Memory a child may map without a sanitizer: a kernel that tries to allocate what no
# machine has must fail cleanly, not page the test machine to death.
CHILD_ADDRESS_SPACE = 6 << 30


# ---- child side: run and judge one case ---------------------------------------------------

def _allowed_exception(exc: BaseException) -> bool:
    from opgen.runtime import errors
    if isinstance(exc, (errors.InternalError, errors.UnknownError)):
        return False  # a failure the runtime did not expect: a bug, not a clear error
    return isinstance(exc, (errors.OpError, TypeError, ValueError))


def _flatten(result):
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return [leaf for entry in result for leaf in _flatten(entry)]
    return [result]


def _digest(arrays):
    """What two runs of a case must agree on: dtype, shape and bytes of each output."""
    out = []
    for array in arrays:
        array = np.asarray(array)
        if array.dtype.kind in "OS":  # string tensors (object arrays of bytes, or a scalar
            # fetch's bytes): their values, not the objects' addresses
            out.append(("string", list(array.shape), repr(array.reshape(-1).tolist())))
        else:
            content = np.ascontiguousarray(array).tobytes().hex()
            out.append((array.dtype.str, list(array.shape), content))
    return out


def _run_eager(case, inputs=None, attrs=None):
    from opgen.runtime import execute_op
    result = execute_op(case.op, list(case.inputs if inputs is None else inputs),
                        dict(case.attrs if attrs is None else attrs))
    return _digest([np.asarray(t) for t in _flatten(result)]), None


def _feed_dtype(value):
    """The dtype of a Placeholder that could stand for `value`, or None when `value` is
    not array data a Placeholder can be fed."""
    from opgen.runtime import dtypes
    if not isinstance(value, (np.ndarray, np.generic)) or np.asarray(value).dtype.kind in "OUSVMm":
        return None
    try:
        return dtypes.as_dtype(np.asarray(value).dtype.newbyteorder("="))
    except (TypeError, ValueError, KeyError):
        return None


_GENERATED = {}


def _generated_function(op_type: str):
    """The generated wrapper of `op_type` from ``opgen.ops`` (installed), or from the
    checked-in generated/python package in a source tree; None where neither loads."""
    if "module" not in _GENERATED:
        try:
            from opgen import ops as module
        except ImportError:
            import importlib.util
            package = HERE.parents[1] / "generated" / "python"
            spec = importlib.util.spec_from_file_location(
                "opgen.ops", package / "__init__.py", submodule_search_locations=[str(package)])
            module = importlib.util.module_from_spec(spec)
            sys.modules["opgen.ops"] = module
            spec.loader.exec_module(module)
        _GENERATED["module"] = module
        _GENERATED["names"] = {name.replace("_", ""): name for name in module.__all__}
    name = _GENERATED["names"].get(op_type.lower())
    return getattr(_GENERATED["module"], name) if name else None


def _run_generated(case):
    """The case through its generated function: inputs positionally, attrs by name."""
    fn = _generated_function(case.op)
    result = fn(*case.inputs, **case.attrs)
    return _digest([np.asarray(t) for t in _flatten(result)]), None


def _placeholder_for(value):
    """A fed Placeholder (in the default graph) standing in for `value`, or None."""
    from opgen.runtime import execute_op
    dtype = _feed_dtype(value)
    if dtype is None:
        return None
    return execute_op("Placeholder", [], {"dtype": dtype, "shape": list(np.shape(value))})[0]


def _run_graph(case, fed: bool):
    import opgen
    from opgen.runtime import execute_op
    graph = opgen.Graph()
    feeds = {}
    with graph.as_default():
        inputs = list(case.inputs)
        if fed:
            for i, value in enumerate(inputs):
                entries = value if isinstance(value, list) else [value]
                replaced = []
                for entry in entries:
                    node = _placeholder_for(entry)
                    if node is not None:
                        feeds[node] = entry
                    replaced.append(entry if node is None else node)
                inputs[i] = replaced if isinstance(value, list) else replaced[0]
        result = execute_op(case.op, inputs, dict(case.attrs))
    outputs = [o for o in _flatten(result) if isinstance(o, opgen.Output)]
    with opgen.Session(graph) as session:
        values = session.run(outputs, feeds) if outputs else []
    for output, value in zip(outputs, values):
        static = output.shape
        actual = np.asarray(value).shape
        if static is not None and (len(static) != len(actual) or any(
                s is not None and s != a for s, a in zip(static, actual))):
            return None, f"graph: inferred shape {list(static)} but the kernel gave {list(actual)}"
    return _digest(values), None


def _is_stateful(op_type: str) -> bool:
    if "stateful" not in _GENERATED:
        _GENERATED["stateful"] = {op.name for op in ac.runtime_op_defs() if op.is_stateful}
    return op_type in _GENERATED["stateful"]


def _comparable(attempt, stateful: bool):
    """What two runs must agree on: a stateful op (its OpDef says so: a random draw) may
    give other values each run, so only its outputs' dtypes and shapes are compared."""
    kind, detail = attempt
    if kind != "ok" or not stateful:
        return attempt
    return kind, [(dtype, shape) for dtype, shape, _ in detail]


def _input_count(op_type: str) -> int:
    if "counts" not in _GENERATED:
        _GENERATED["counts"] = {op.name: len(op.input_arg) for op in ac.runtime_op_defs()}
    return _GENERATED["counts"][op_type]


def _attempt(fn, *args):
    """('ok', digest) / ('error', 'Class: message') / ('bad', reason)."""
    try:
        digest, problem = fn(*args)
    except Exception as exc:  # noqa: BLE001 - which exception it is is what is judged
        text = f"{type(exc).__name__}: {exc}"
        return ("error", text) if _allowed_exception(exc) else ("bad", f"raised {text}")
    if problem:
        return "bad", problem
    return "ok", digest


def judge(case) -> str | None:
    """None when the case behaved, else what went wrong."""
    stateful = _is_stateful(case.op)
    eager = _comparable(_attempt(_run_eager, case), stateful)
    runs = {"eager": eager}
    if eager[0] == "bad":
        return f"eager: {eager[1]}"
    if eager[0] == "ok":
        again = _comparable(_attempt(_run_eager, case), stateful)
        if again != eager:
            return "eager: two runs of the same call differ (uninitialised output?)"
    op_def_inputs = _input_count(case.op)
    if op_def_inputs == len(case.inputs) and _generated_function(case.op) is not None:
        generated = _comparable(_attempt(_run_generated, case), stateful)
        if generated[0] == "bad":
            return f"generated function: {generated[1]}"
        if (generated[0] == "ok") != (eager[0] == "ok") or (eager[0] == "ok" and generated != eager):
            return (f"the generated function and execute_op differ: {_short(generated[1])} vs "
                    f"{_short(eager[1])}")
    if "graph" in case.modes:
        runs["graph"] = _comparable(_attempt(_run_graph, case, False), stateful)
    if "fed" in case.modes and any(_feed_dtype(v) is not None for v in case.inputs
                                   if not isinstance(v, list)):
        runs["fed"] = _comparable(_attempt(_run_graph, case, True), stateful)
    for mode, (kind, detail) in runs.items():
        if kind == "bad":
            return f"{mode}: {detail}"
    if case.expect == ac.OK and eager[0] != "ok":
        return f"the baseline call failed: {eager[1]}"
    if case.expect == ac.ERROR:
        passed = [mode for mode, (kind, _) in runs.items() if kind == "ok"]
        if passed:
            return f"invalid input accepted ({', '.join(passed)}): returned {_short(runs[passed[0]][1])}"
    results = {mode: detail for mode, (kind, detail) in runs.items() if kind == "ok"}
    if len({json.dumps(d) for d in results.values()}) > 1:
        return "results differ between modes: " + "; ".join(
            f"{m}={_short(d)}" for m, d in results.items())
    if case.expect == ac.SAME:
        reference = _comparable(_attempt(_run_eager, case, *case.reference), stateful)
        if reference != eager:
            return (f"result differs from the same values in a plain array: got "
                    f"{_short(eager[1])}, want {_short(reference[1])}")
    return None


def _short(detail) -> str:
    if isinstance(detail, str):
        return detail[:200]
    return "; ".join(f"{dtype}{shape} {data[:32]}{'...' if len(data) > 32 else ''}"
                     for dtype, shape, data in detail)


def worker(first: int, last: int, only_op: str | None) -> None:
    if "asan" not in os.environ.get("LD_PRELOAD", ""):
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))
    cases = ac.all_cases(ac.runtime_op_defs())
    out = sys.stdout
    for i in range(first, min(last, len(cases))):
        case = cases[i]
        if only_op and case.op != only_op:
            continue
        out.write(json.dumps({"start": i}) + "\n")
        out.flush()
        try:
            verdict = judge(case)
        except Exception as exc:  # noqa: BLE001 - a failure of the harness, reported as such
            verdict = f"sweep error: {type(exc).__name__}: {exc}"
        out.write(json.dumps({"done": i, "verdict": verdict}) + "\n")
        out.flush()
    out.write(json.dumps({"end": len(cases), "registered": ac.registered_op_names()}) + "\n")
    out.flush()


# ---- parent side ------------------------------------------------------------------------------

def _child_env():
    env = dict(os.environ)
    # The child imports the same opgen as this process (an installed wheel in CI, where
    # the checkout has no compiled runtime), not whatever the checkout holds.
    import opgen
    where = str(Path(opgen.__file__).resolve().parents[1])
    env["PYTHONPATH"] = where + os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else where
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def sweep(timeout: float = 20.0, only_op: str | None = None, jobs: int = 2):
    """({case index: verdict} for the cases that failed, crashes and hangs included;
    the number of cases run; the ops a fresh process's runtime registers). The cases are
    split into `jobs` ranges, each run by its own chain of child processes."""
    total = len(ac.all_cases(ac.runtime_op_defs()))
    bounds = [total * k // jobs for k in range(jobs + 1)]
    with ThreadPoolExecutor(jobs) as pool:
        parts = list(pool.map(lambda k: _sweep_range(bounds[k], bounds[k + 1], timeout, only_op),
                              range(jobs)))
    failures: dict[int, str] = {}
    registered: list[str] = []
    for part, _, names in parts:
        failures.update(part)
        registered = registered or names
    return failures, sum(ran for _, ran, _ in parts), registered


def _sweep_range(first: int, last: int, timeout: float, only_op: str | None):
    failures: dict[int, str] = {}
    ran, registered = 0, []
    while first < last:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(first), str(last)]
            + (["--op", only_op] if only_op else []),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_child_env(), cwd=str(HERE))
        current, stderr_tail, buffer = None, b"", b""
        selector = selectors.DefaultSelector()
        selector.register(proc.stdout, selectors.EVENT_READ, "out")
        selector.register(proc.stderr, selectors.EVENT_READ, "err")
        deadline = time.monotonic() + timeout * 6  # start-up: imports and the registry
        finished = hung = False
        open_streams = 2
        while open_streams:
            events = selector.select(timeout=max(deadline - time.monotonic(), 0))
            if not events:
                hung = True
                break
            for key, _ in events:
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_streams -= 1
                elif key.data == "err":
                    stderr_tail = (stderr_tail + chunk)[-8000:]
                else:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        try:
                            record = json.loads(line)
                        except ValueError:
                            continue
                        if "start" in record:
                            current = record["start"]
                            deadline = time.monotonic() + timeout
                        elif "done" in record:
                            ran += 1
                            if record["verdict"]:
                                failures[record["done"]] = record["verdict"]
                            current, first = None, record["done"] + 1
                        elif "end" in record:
                            finished, registered = True, record["registered"]
        selector.close()
        if hung:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        if finished:
            break
        if current is None:
            raise RuntimeError(f"the sweep worker died outside a case (exit {proc.returncode}): "
                               + stderr_tail.decode(errors="replace"))
        if hung:
            failures[current] = f"hang: no result after {timeout:.0f} s"
        else:
            how = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                   else f"exited with status {proc.returncode}")
            failures[current] = (f"crash: the process {how}; its stderr ends:\n"
                                 + stderr_tail.decode(errors="replace")[-4000:])
        ran += 1
        first = current + 1
    return failures, ran, registered


def main(argv):
    if argv[:1] == ["--worker"]:
        only = argv[argv.index("--op") + 1] if "--op" in argv else None
        worker(int(argv[1]), int(argv[2]), only)
        return 0
    only = argv[argv.index("--op") + 1] if "--op" in argv else None
    timeout = float(argv[argv.index("--timeout") + 1]) if "--timeout" in argv else 20.0
    jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 2
    start = time.monotonic()
    failures, ran, _ = sweep(timeout, only, jobs)
    cases = ac.all_cases(ac.runtime_op_defs())
    for i, verdict in sorted(failures.items()):
        print(f"FAIL #{i} {cases[i].describe()}\n    {verdict}\n")
    print(f"{len(failures)} failures in {ran} cases, {time.monotonic() - start:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
