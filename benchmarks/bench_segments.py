"""Gather, scatter and segment kernels on embedding- and image-like shapes, against numpy
and TensorFlow.

Each op runs through the generated wrappers (`opgen.ops`) on inputs that are already
runtime tensors (the kernel plus one dispatch). The reference in the same process is
numpy's nearest equivalent (np.take, fancy indexing, np.add.at, np.maximum.at, a
gather then np.add.reduceat); TensorFlow 2.21's tf.raw_ops with the same inputs run in
a child process of --tf-python (default $OPGEN_TF_PYTHON; TensorFlow is never imported
here). Figures are medians (--stat min: the fastest) of --repeats samples taken in turn; ratios are reference
time over opgen time (above 1: opgen is faster). Each op's first result is checked
against numpy.

    python benchmarks/bench_segments.py [--repeats 15] [--stat median|min] [--only GatherV2]
                                        [--tf-python PY]

Unset OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE for the run; OPGEN_NUM_THREADS=1 times one
core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _timing import median_seconds_each

import opgen
from opgen import ops

# Run by the TensorFlow interpreter: the median time of each case's raw op, eagerly.
_TF_TIMER = r"""
import json, os, statistics, sys, time
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow as tf
folder, repeats, stat = sys.argv[1], int(sys.argv[2]), sys.argv[3]
result = {}
for case in json.load(open(os.path.join(folder, "cases.json"))):
    arrays = np.load(os.path.join(folder, case["name"] + ".npz"))
    kwargs = {k: tf.constant(arrays[k]) for k in arrays.files}
    fn = getattr(tf.raw_ops, case["op"])
    for _ in range(2):
        fn(**kwargs)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(**kwargs).numpy()
        times.append(time.perf_counter() - start)
    result[case["name"]] = min(times) if stat == "min" else statistics.median(times)
print(json.dumps(result))
"""

TABLE_ROWS, WIDTH = 100_000, 64


def sum_at(rows, ids, segments, fn=np.add, fill=0.0):
    out = np.full((segments,) + rows.shape[1:], fill, rows.dtype)
    fn.at(out, ids, rows)
    return out


def sorted_sum(rows, ids, segments):
    """A sorted segment sum through np.add.reduceat (empty segments: 0)."""
    out = np.zeros((segments,) + rows.shape[1:], rows.dtype)
    present, starts = np.unique(ids, return_index=True)
    out[present] = np.add.reduceat(rows, starts, axis=0)
    return out


def bag_mean(table, idx, seg, segments):
    sums = sorted_sum(table[idx], seg, segments)
    counts = np.bincount(seg, minlength=segments).astype(table.dtype)
    return sums / np.maximum(counts, 1)[:, None]


def cases():
    """(name, raw op, inputs by TF argument name, numpy fn) for each benchmark."""
    rng = np.random.default_rng(0)
    table = rng.standard_normal((TABLE_ROWS, WIDTH), dtype=np.float32)
    out = []
    for n in (4096, 65536):
        idx = rng.integers(0, TABLE_ROWS, n, dtype=np.int32)
        out.append((f"GatherV2 100kx64 [{n // 1024}k]", "GatherV2",
                    {"params": table, "indices": idx, "axis": np.int32(0)},
                    lambda idx=idx: np.take(table, idx, axis=0)))
    data = rng.standard_normal((65536, WIDTH), dtype=np.float32)
    for segments in (1000, 10000):
        ids = rng.integers(0, segments, len(data), dtype=np.int32)
        out.append((f"UnsortedSegmentSum 64kx64->{segments}", "UnsortedSegmentSum",
                    {"data": data, "segment_ids": ids, "num_segments": np.int32(segments)},
                    lambda ids=ids, s=segments: sum_at(data, ids, s)))
    ids = rng.integers(0, 10000, len(data), dtype=np.int32)
    out.append(("UnsortedSegmentMax 64kx64->10000", "UnsortedSegmentMax",
                {"data": data, "segment_ids": ids, "num_segments": np.int32(10000)},
                lambda ids=ids: sum_at(data, ids, 10000, np.maximum, np.finfo(np.float32).min)))
    sorted_ids = np.sort(rng.integers(0, 10000, len(data), dtype=np.int32))
    out.append(("SegmentSum 64kx64->10000", "SegmentSum",
                {"data": data, "segment_ids": sorted_ids},
                lambda: sorted_sum(data, sorted_ids, int(sorted_ids[-1]) + 1)))
    # An embedding bag: 64k lookups into the table, 4k bags of 16.
    idx = rng.integers(0, TABLE_ROWS, 65536, dtype=np.int32)
    bags = np.repeat(np.arange(4096, dtype=np.int32), 16)
    out.append(("SparseSegmentMean bag 64k->4k", "SparseSegmentMean",
                {"data": table, "indices": idx, "segment_ids": bags},
                lambda: bag_mean(table, idx, bags, 4096)))
    out.append(("SparseSegmentSum bag 64k->4k", "SparseSegmentSum",
                {"data": table, "indices": idx, "segment_ids": bags},
                lambda: sorted_sum(table[idx], bags, 4096)))
    # Image-like: pixels of a [16, 64, 64, 32] batch picked / scattered by (b, y, x).
    image = rng.standard_normal((16, 64, 64, 32), dtype=np.float32)
    pix = np.stack([rng.integers(0, d, 32768) for d in image.shape[:3]], 1).astype(np.int32)
    at = tuple(pix.T)
    out.append(("GatherNd 16x64x64x32 [32k,3]", "GatherNd",
                {"params": image, "indices": pix}, lambda: image[at]))
    updates = rng.standard_normal((32768, 32), dtype=np.float32)
    shape = np.array(image.shape, np.int32)
    out.append(("ScatterNd 32k rows->16x64x64x32", "ScatterNd",
                {"indices": pix, "updates": updates, "shape": shape},
                lambda: _scatter(at, updates, image.shape)))
    out.append(("TensorScatterAdd 32k->16x64x64x32", "TensorScatterAdd",
                {"tensor": image, "indices": pix, "updates": updates},
                lambda: _scatter(at, updates, image.shape, image)))
    return out


def _scatter(at, updates, shape, base=None):
    out = np.zeros(shape, updates.dtype) if base is None else base.copy()
    np.add.at(out, at, updates)
    return out


def snake(op: str) -> str:
    return {"GatherV2": "gather_v2", "GatherNd": "gather_nd", "ScatterNd": "scatter_nd"}.get(
        op, "".join("_" + c.lower() if c.isupper() else c for c in op).lstrip("_"))


def tf_python(given: str | None) -> str | None:
    for candidate in (given, os.environ.get("OPGEN_TF_PYTHON")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def tf_medians(tf_exe: str, selected, repeats: int, stat: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        for name, _, inputs, _ in selected:
            np.savez(Path(tmp) / f"{name}.npz", **inputs)
        (Path(tmp) / "cases.json").write_text(
            json.dumps([{"name": name, "op": op} for name, op, _, _ in selected]))
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PYTHONPATH")}
        result = subprocess.run([tf_exe, "-c", _TF_TIMER, tmp, str(repeats), stat], capture_output=True,
                                text=True, env=env, cwd=tmp)
        if result.returncode != 0:
            print(f"# TensorFlow child failed: {result.stderr.strip().splitlines()[-1:]}")
            return {}
        return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--only", default=None, help="run the cases whose name contains this")
    parser.add_argument("--tf-python", default=None)
    parser.add_argument("--stat", choices=["median", "min"], default="median")
    args = parser.parse_args(argv)
    stat = min if args.stat == "min" else statistics.median
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            print(f"note: {name} is set; unset it for numbers comparable with TensorFlow's")
    selected = [c for c in cases() if args.only is None or args.only in c[0]]
    tf_exe = tf_python(args.tf_python)
    tf_times = tf_medians(tf_exe, selected, args.repeats, args.stat) if tf_exe else {}
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"OPGEN_NUM_THREADS={os.environ.get('OPGEN_NUM_THREADS')}, {args.stat} of "
          f"{args.repeats}, load average {os.getloadavg()[0]:.1f}"
          f"{'' if tf_exe else ', no TensorFlow (--tf-python / $OPGEN_TF_PYTHON)'}")
    print(f"{'case':36s} {'opgen ms':>9s} {'numpy ms':>9s} {'np/opgen':>8s} {'TF ms':>8s} "
          f"{'TF/opgen':>8s}")
    for name, op, inputs, numpy_fn in selected:
        tensors = {k: opgen.convert_to_tensor(v) for k, v in inputs.items()}
        fn = getattr(ops, snake(op))
        got = np.asarray(fn(**tensors))
        np.testing.assert_allclose(got, numpy_fn(), rtol=1e-4, atol=1e-4)
        t_opgen, t_numpy = median_seconds_each([lambda f=fn, t=tensors: f(**t), numpy_fn], args.repeats,
                                               warmup=2, stat=stat)
        t_tf = tf_times.get(name)
        tf_cols = (f"{t_tf * 1e3:8.3f} {t_tf / t_opgen:8.2f}" if t_tf else f"{'-':>8s} {'-':>8s}")
        print(f"{name:36s} {t_opgen * 1e3:9.3f} {t_numpy * 1e3:9.3f} {t_numpy / t_opgen:8.2f} "
              f"{tf_cols}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
