"""The gather, scatter and segment kernels on shapes large enough to split over the CPU
pool: results against numpy (exact: the kernels fold each output row's contributions in
index order, as np.add.at and friends do) and byte-identical between one thread and
five (OPGEN_NUM_THREADS is fixed per process, so each count runs in a child process).
Duplicate indices, unsorted and negative ids and empty segments included."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("runtime_lib")

# Run in a child: every case's opgen result, saved under the case's name.
CHILD = r"""
import sys
import numpy as np
import opgen
from opgen import ops
a = dict(np.load(sys.argv[1]))
out = {}
out["uss"] = ops.unsorted_segment_sum(a["data"], a["uids"], np.int32(700))
out["uss16"] = ops.unsorted_segment_sum(a["data16"], a["uids"], np.int64(700))
out["ussint"] = ops.unsorted_segment_sum(a["ints"], a["uids"], np.int32(700))
out["usmax"] = ops.unsorted_segment_max(a["data"], a["uids"], np.int32(700))
out["usmin"] = ops.unsorted_segment_min(a["data"], a["uids"], np.int32(700))
out["usprod"] = ops.unsorted_segment_prod(a["near1"], a["uids"], np.int32(700))
out["ssum"] = ops.segment_sum(a["data"], a["sids"])
out["ssum16"] = ops.segment_sum(a["data16"], a["sids"])
out["smean"] = ops.segment_mean(a["data"], a["sids"])
out["smax"] = ops.segment_max(a["data"], a["sids"])
out["spsum"] = ops.sparse_segment_sum(a["data"], a["pidx"], a["pids"])
out["spmean"] = ops.sparse_segment_mean(a["data"], a["pidx"], a["pids"])
out["spsqrtn"] = ops.sparse_segment_sqrt_n(a["data"], a["pidx"], a["pids"])
out["gather"] = ops.gather_v2(a["data"], a["pidx"], np.int32(0))
out["gather1"] = ops.gather_v2(a["cube"], a["cidx"], np.int64(1))
out["gnd"] = ops.gather_nd(a["image"], a["pix"])
out["snd"] = ops.scatter_nd(a["dup"], a["upd"], np.int64(a["image"].shape))
out["tsadd"] = ops.tensor_scatter_add(a["image"], a["dup"], a["upd"])
out["tsupd"] = ops.tensor_scatter_update(a["image"], a["dup"], a["upd"])
out["tsmax"] = ops.tensor_scatter_max(a["image"], a["dup"], a["upd"])
v = opgen.Variable(a["table"])
out["rgather"] = opgen.runtime.execute_op("ResourceGather", [v.handle, a["ridx"]],
                                          {"dtype": v.dtype})[0]
opgen.runtime.execute_op("ResourceScatterAdd", [v.handle, a["ridx"], a["rupd"]], {})
out["rsadd"] = v.numpy()
w = opgen.Variable(a["table"])
opgen.runtime.execute_op("ResourceScatterUpdate", [w.handle, a["ridx"], a["rupd"]], {})
out["rsupd"] = w.numpy()
# rows of 256 and more: the unsorted ids and scatters split over the pool too
out["usswide"] = ops.unsorted_segment_sum(a["wide"], a["wids"], np.int32(300))
out["usmaxwide"] = ops.unsorted_segment_max(a["wide"], a["wids"], np.int32(300))
out["sndwide"] = ops.scatter_nd(a["wdup"], a["wupd"], np.int32([4, 16, 16, 256]))
out["tsupdwide"] = ops.tensor_scatter_update(np.zeros((4, 16, 16, 256), np.float32), a["wdup"],
                                             a["wupd"])
x = opgen.Variable(a["wtable"])
opgen.runtime.execute_op("ResourceScatterAdd", [x.handle, a["wridx"], a["wide"]], {})
out["rsaddwide"] = x.numpy()
np.savez(sys.argv[2], **{k: np.asarray(v) for k, v in out.items()})
"""


def _inputs():
    rng = np.random.default_rng(20261207)
    n, width = 20000, 64
    data = rng.standard_normal((n, width)).astype(np.float32)
    # sorted ids with a gap (segments 100..199 empty); sparse ids likewise (400..899)
    sids = np.sort(rng.choice(np.r_[0:100, 200:3000], n)).astype(np.int32)
    pids = np.sort(rng.choice(np.r_[0:400, 900:2500], 30000)).astype(np.int64)
    image = rng.standard_normal((8, 64, 64, 16)).astype(np.float32)
    pix = np.stack([rng.integers(0, d, n) for d in image.shape[:3]], 1).astype(np.int32)
    # 20000 rows onto 4*16*16 pixels: every pixel updated many times
    dup = np.stack([rng.integers(0, d, n) for d in (4, 16, 16)], 1).astype(np.int64)
    return {
        "data": data, "data16": data.astype(np.float16),
        "ints": rng.integers(-1000, 1000, (n, width)).astype(np.int32),
        "near1": rng.uniform(0.9, 1.1, (n, width)),
        "uids": rng.integers(-2, 650, n).astype(np.int32),  # negatives dropped; 650.. empty
        "sids": sids, "pids": pids,
        "pidx": rng.integers(0, n, 30000).astype(np.int32),
        "cube": rng.standard_normal((8, 5000, 16)).astype(np.float32),
        "cidx": rng.integers(0, 5000, 4000).astype(np.int64),
        "image": image, "pix": pix, "dup": dup,
        "upd": rng.standard_normal((n, 16)).astype(np.float32),
        "table": rng.standard_normal((5000, width)).astype(np.float32),
        "ridx": rng.integers(0, 5000, n).astype(np.int32),
        "rupd": rng.standard_normal((n, width)).astype(np.float32),
        "wide": rng.standard_normal((4000, 256)).astype(np.float32),
        "wids": rng.integers(-2, 280, 4000).astype(np.int32),
        "wdup": np.stack([rng.integers(0, d, 4000) for d in (4, 16, 16)], 1).astype(np.int32),
        "wupd": rng.standard_normal((4000, 256)).astype(np.float32),
        "wtable": rng.standard_normal((500, 256)).astype(np.float32),
        "wridx": rng.integers(0, 500, 4000).astype(np.int64),
    }


def _at(fn, fill, shape, dtype, where, values):
    out = np.full(shape, fill, dtype)
    fn.at(out, where, values)
    return out


def _counts(ids, segments):
    return np.bincount(ids, minlength=segments).astype(np.float32)[:, None]


def _references(a):
    data, uids = a["data"], a["uids"]
    keep = uids >= 0
    u, d = uids[keep], data[keep]
    f32 = np.float32
    ref = {
        "uss": _at(np.add, 0, (700, 64), f32, u, d),
        "uss16": _at(np.add, 0, (700, 64), np.float16, u, a["data16"][keep]),
        "ussint": _at(np.add, 0, (700, 64), np.int32, u, a["ints"][keep]),
        "usmax": _at(np.maximum, np.finfo(f32).min, (700, 64), f32, u, d),
        "usmin": _at(np.minimum, np.finfo(f32).max, (700, 64), f32, u, d),
        "usprod": _at(np.multiply, 1, (700, 64), np.float64, u, a["near1"][keep]),
        "gather": np.take(data, a["pidx"], axis=0),
        "gather1": np.take(a["cube"], a["cidx"], axis=1),
        "gnd": a["image"][tuple(a["pix"].T)],
    }
    sids, segs = a["sids"], int(a["sids"][-1]) + 1
    sums = _at(np.add, 0, (segs, 64), f32, sids, data)
    counts = _counts(sids, segs)
    ref["ssum"] = sums
    ref["ssum16"] = _at(np.add, 0, (segs, 64), f32, sids,
                        a["data16"].astype(f32)).astype(np.float16)
    ref["smean"] = np.where(counts > 0, sums / np.maximum(counts, 1), f32(0))
    smax = _at(np.maximum, -np.inf, (segs, 64), f32, sids, data)
    ref["smax"] = np.where(counts > 0, smax, f32(0))
    pids, psegs = a["pids"], int(a["pids"][-1]) + 1
    psums = _at(np.add, 0, (psegs, 64), f32, pids, data[a["pidx"]])
    pc = _counts(pids, psegs)
    ref["spsum"] = psums
    ref["spmean"] = np.where(pc > 0, psums / np.maximum(pc, 1), f32(0))
    ref["spsqrtn"] = np.where(pc > 0, psums / np.sqrt(np.maximum(pc, 1).astype(np.float64)
                                                      ).astype(f32), f32(0))
    at = tuple(a["dup"].T)
    image, upd = a["image"], a["upd"]
    ref["snd"] = _at(np.add, 0, image.shape, f32, at, upd)
    tsadd = image.copy()
    np.add.at(tsadd, at, upd)
    tsmax = image.copy()
    np.maximum.at(tsmax, at, upd)
    tsupd = image.copy()
    for r, row in enumerate(a["dup"]):  # in order: the last duplicate wins
        tsupd[tuple(row)] = upd[r]
    ref.update(tsadd=tsadd, tsmax=tsmax, tsupd=tsupd)
    table, ridx, rupd = a["table"], a["ridx"], a["rupd"]
    ref["rgather"] = table[ridx]
    rsadd = table.copy()
    np.add.at(rsadd, ridx, rupd)
    rsupd = table.copy()
    for r, i in enumerate(ridx):
        rsupd[i] = rupd[r]
    ref.update(rsadd=rsadd, rsupd=rsupd)
    wide, wids = a["wide"], a["wids"]
    wk = wids >= 0
    ref["usswide"] = _at(np.add, 0, (300, 256), f32, wids[wk], wide[wk])
    ref["usmaxwide"] = _at(np.maximum, np.finfo(f32).min, (300, 256), f32, wids[wk], wide[wk])
    wat = tuple(a["wdup"].T)
    ref["sndwide"] = _at(np.add, 0, (4, 16, 16, 256), f32, wat, a["wupd"])
    tsupdwide = np.zeros((4, 16, 16, 256), f32)
    for r, row in enumerate(a["wdup"]):
        tsupdwide[tuple(row)] = a["wupd"][r]
    ref["tsupdwide"] = tsupdwide
    rsaddwide = a["wtable"].copy()
    np.add.at(rsaddwide, a["wridx"], wide)
    ref["rsaddwide"] = rsaddwide
    return ref


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """The inputs, numpy's results, and the child's results with 1 and 5 threads."""
    folder = tmp_path_factory.mktemp("segpar")
    arrays = _inputs()
    np.savez(folder / "in.npz", **arrays)
    got = {}
    for threads in ("1", "5"):
        path = folder / f"out{threads}.npz"
        env = dict(os.environ, OPGEN_NUM_THREADS=threads)
        proc = subprocess.run([sys.executable, "-c", CHILD, str(folder / "in.npz"), str(path)],
                              cwd=folder, env=env, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-3000:]
        got[threads] = dict(np.load(path))
    return _references(arrays), got


CASES = ["uss", "uss16", "ussint", "usmax", "usmin", "usprod", "ssum", "ssum16", "smean",
         "smax", "spsum", "spmean", "spsqrtn", "gather", "gather1", "gnd", "snd", "tsadd",
         "tsupd", "tsmax", "rgather", "rsadd", "rsupd", "usswide", "usmaxwide", "sndwide",
         "tsupdwide", "rsaddwide"]


@pytest.mark.parametrize("case", CASES)
def test_large_calls_match_numpy_exactly(results, case):
    ref, got = results
    for threads in ("1", "5"):
        g = got[threads][case]
        assert g.dtype == ref[case].dtype and g.shape == ref[case].shape, (case, threads)
        np.testing.assert_array_equal(g, ref[case], err_msg=f"{case}, {threads} threads")


@pytest.mark.parametrize("case", CASES)
def test_five_threads_give_the_bytes_of_one(results, case):
    _, got = results
    assert got["1"][case].tobytes() == got["5"][case].tobytes(), case


def test_the_cases_cover_empty_segments_duplicates_and_dropped_ids():
    a = _inputs()
    assert (a["uids"] < 0).any() and len(np.unique(a["uids"][a["uids"] >= 0])) < 700
    assert len(np.unique(a["sids"])) < int(a["sids"][-1]) + 1
    assert len(np.unique(a["pids"])) < int(a["pids"][-1]) + 1
    assert len(np.unique(a["dup"], axis=0)) < len(a["dup"])
    assert len(np.unique(a["ridx"])) < len(a["ridx"])


def test_large_calls_reject_a_bad_index_with_the_kernels_messages():
    from opgen import ops
    from opgen.runtime import errors

    a = _inputs()
    ids = a["uids"].copy()
    ids[-1] = 700
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"segment_ids\[19999\] = 700 is out of range \[0, 700\)"):
        ops.unsorted_segment_sum(a["data"], ids, np.int32(700))
    idx = a["pidx"].copy()
    idx[-1] = 20000
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"GatherV2: index 20000 is not in \[0, 20000\)"):
        ops.gather_v2(a["data"], idx, np.int32(0))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Bad: indices\[29999\] == 20000 out of range \[0, 20000\)"):
        ops.sparse_segment_sum(a["data"], idx, a["pids"])
