"""Generator speed on TensorFlow's full registry, and import time of what it generates.

    python benchmarks/bench_generate.py [--oplist tf-2.21-oplist.pb] [--repeats 5]

Measures (medians of --repeats):
1. the whole CLI process `opgen generate --ops OPLIST --out TMP` (interpreter start,
   imports, load, render, write), wall and CPU seconds;
2. in-process: opgen's load + render of every op, against TensorFlow's C++ Python op
   generator (`_pywrap_python_op_gen.GetPythonWrappers`, what tf.load_op_library runs)
   on the same bytes, when tensorflow is importable here: the ratio tf/opgen; with
   --stages, also the CPU time of each stage of opgen's (load and validation, OpSpecs,
   the Python text, the templates);
3. `import` of the generated package with warm bytecode, in a fresh interpreter; then
   the first call's extra cost (one submodule and opgen.runtime); and, with
   tensorflow, the import of TensorFlow's own generated module for the same registry.

Run it on an idle machine: a loaded one inflates wall times (the CPU times say how
much). PYTHONDONTWRITEBYTECODE is removed for the import timings.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# ../shared/testdata beside the checkout (or beside a folder of worktrees).
DEFAULT_OPLIST = next((p / "shared" / "testdata" / "tf-2.21-oplist.pb"
                       for p in Path(__file__).resolve().parents
                       if (p / "shared" / "testdata" / "tf-2.21-oplist.pb").is_file()),
                      Path("tf-2.21-oplist.pb"))


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cli_process(oplist: Path, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of one `opgen generate` process into a fresh folder."""
    walls, cpus = [], []
    for _ in range(repeats):
        out = Path(tempfile.mkdtemp(prefix="opgen-bench-"))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "opgen", "generate", "--ops", str(oplist),
                        "--out", str(out)], check=True, stdout=subprocess.DEVNULL, env=_env())
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        shutil.rmtree(out)
    return statistics.median(walls), statistics.median(cpus)


def _median(fn, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of ``fn()`` (CPU time is what a loaded machine distorts least)."""
    fn()  # warm up: imports and caches on both sides
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return statistics.median(walls), statistics.median(cpus)


def in_process(oplist: Path, repeats: int):
    from opgen import generate, opdefs

    data = oplist.read_bytes()
    ours = _median(lambda: generate.render(opdefs.load(data), ["python"]), repeats)
    try:
        from tensorflow.python.framework import _pywrap_python_op_gen
    except ImportError:
        return ours, None
    theirs = _median(lambda: _pywrap_python_op_gen.GetPythonWrappers(data), repeats)
    return ours, theirs


def stages(oplist: Path, repeats: int) -> dict[str, float]:
    """Median CPU seconds of each stage of ``generate.render(opdefs.load(data), ["python"])``."""
    from opgen import generate, langs, model, opdef_wire, opdefs

    data = oplist.read_bytes()
    python = langs.get("python")
    env = generate._environment("python")
    samples: dict[str, list[float]] = {}
    for run in range(repeats + 1):   # the first one warms up
        clock = time.process_time()
        times = []
        loaded = opdefs.load(data)
        times.append(("load and validate", time.process_time()))
        with generate.cyclic_gc_paused():   # the rest as render does it
            canonical = opdef_wire.canonical_bytes(loaded)
            specs = model.op_specs(loaded, canonical=canonical)
            times.append(("OpSpecs (and serializing the OpList once)", time.process_time()))
            source = generate.describe_oplist(loaded, canonical=canonical)
            times.append(("describe the OpList (sha256)", time.process_time()))
            files = python.files(specs, source)
            times.append(("Python names, signatures, docstrings", time.process_time()))
            for template, _, context in files:
                env.get_template(template).render(**context).encode("utf-8")
            times.append(("Jinja templates", time.process_time()))
        if run:
            for label, end in times:
                samples.setdefault(label, []).append(end - clock)
                clock = end
        del loaded, specs, files
    return {label: statistics.median(values) for label, values in samples.items()}


def _import_seconds(folder: Path, statement: str, repeats: int) -> float:
    """Median seconds of ``statement`` in a fresh interpreter with ``folder`` on sys.path."""
    code = ("import sys, time; sys.path.insert(0, %r); t = time.perf_counter(); %s; "
            "print(time.perf_counter() - t)") % (str(folder), statement)
    subprocess.run([sys.executable, "-c", code], check=True, env=_env(),
                   stdout=subprocess.DEVNULL)   # writes the bytecode
    samples = [float(subprocess.run([sys.executable, "-c", code], check=True, env=_env(),
                                    capture_output=True, text=True).stdout)
               for _ in range(repeats)]
    return statistics.median(samples)


def import_times(oplist: Path, repeats: int) -> dict[str, float]:
    from opgen import generate, opdefs

    folder = Path(tempfile.mkdtemp(prefix="opgen-bench-import-"))
    generate.generate(opdefs.load(oplist), ["python"], folder)
    (folder / "python").rename(folder / "tfops")
    result = {
        "import tfops": _import_seconds(folder, "import tfops", repeats),
        "import tfops; tfops.add_v2 (first op: submodule + opgen.runtime)":
            _import_seconds(folder, "import tfops; tfops.add_v2", repeats),
        "import tfops; dir(tfops); tfops.__all__":
            _import_seconds(folder, "import tfops; dir(tfops); tfops.__all__", repeats),
    }
    try:
        from tensorflow.python.framework import _pywrap_python_op_gen
    except ImportError:
        return result
    (folder / "tf_gen_ops.py").write_bytes(_pywrap_python_op_gen.GetPythonWrappers(oplist.read_bytes()))
    result["TensorFlow's generated module: import tf_gen_ops"] = \
        _import_seconds(folder, "import tf_gen_ops", max(1, repeats // 2))
    shutil.rmtree(folder)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--oplist", type=Path, default=DEFAULT_OPLIST)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--stages", action="store_true",
                        help="also time each stage of opgen's in-process generation")
    args = parser.parse_args()
    print(f"OpList: {args.oplist}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    wall, cpu = cli_process(args.oplist, args.repeats)
    print(f"CLI process `opgen generate` (every op, Python):  wall {wall:.3f} s, CPU {cpu:.3f} s")
    ours, theirs = in_process(args.oplist, args.repeats)
    for kind, index in (("wall", 0), ("CPU", 1)):
        line = f"in-process load + render, {kind}: opgen {ours[index]:.3f} s"
        if theirs is not None:
            line += (f", TensorFlow's C++ generator {theirs[index]:.3f} s, "
                     f"ratio tf/opgen {theirs[index] / ours[index]:.2f}")
        print(line)
    if args.stages:
        for label, seconds in stages(args.oplist, args.repeats).items():
            print(f"  stage {label}: CPU {seconds * 1000:.1f} ms")
    for label, seconds in import_times(args.oplist, args.repeats).items():
        print(f"{label}: {seconds * 1000:.1f} ms")


if __name__ == "__main__":
    main()
