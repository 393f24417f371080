"""ParseExampleV2 (what tf.io.parse_example runs in serving signatures) against TensorFlow.

TensorFlow runs in its own interpreter (--tf-python, a venv with tensorflow; never a
dependency of opgen), this same file in --worker mode: it serializes the batches with
tf.train.Example, writes them for opgen to parse too, and times eager
tf.raw_ops.ParseExampleV2 on them. opgen runs in this process (execute_op on runtime
tensors). Every figure is the median of --repeats timings; the ratio is TensorFlow's time
over opgen's (above 1: opgen is faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_parse_example.py \
        [--tf-python "$OPGEN_TF_PYTHON"] [--repeats 20]
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile

import numpy as np
from _timing import median_seconds as _median_seconds

# name -> (batch, dense float features of 16, sparse int64 ids per example, ragged strings)
CASES = {
    "1024 x (dense 16 floats, 8 sparse ids, 2 strings)": (1024, 1, 8, 2),
    "256 x 20 dense features of 16 floats": (256, 20, 0, 0),
    "4096 x (1 dense of 16 floats)": (4096, 1, 0, 0),
}


def median_seconds(fn, repeats: int) -> float:
    return _median_seconds(fn, repeats, warmup=2)


def spec(case):
    """(sparse keys, dense keys, ragged keys) and the attrs, the same in both processes."""
    _, dense, sparse, ragged = case
    dense_keys = [f"d{i}" for i in range(dense)]
    sparse_keys = ["ids"] if sparse else []
    ragged_keys = ["words"] if ragged else []
    attrs = {"num_sparse": len(sparse_keys), "sparse_types": ["int64"] * len(sparse_keys),
             "ragged_value_types": ["string"] * len(ragged_keys),
             "ragged_split_types": ["int64"] * len(ragged_keys),
             "dense_shapes": [[16]] * len(dense_keys)}
    return sparse_keys, dense_keys, ragged_keys, attrs


def worker(path: str, repeats: int) -> None:
    import tensorflow as tf
    rng = np.random.default_rng(0)
    batches, times = {}, {}
    for name, case in CASES.items():
        batch, dense, sparse, ragged = case
        examples = []
        for _ in range(batch):
            feature = {f"d{i}": tf.train.Feature(float_list=tf.train.FloatList(
                value=rng.standard_normal(16).tolist())) for i in range(dense)}
            if sparse:
                feature["ids"] = tf.train.Feature(int64_list=tf.train.Int64List(
                    value=rng.integers(0, 1 << 40, int(rng.integers(0, 2 * sparse))).tolist()))
            if ragged:
                feature["words"] = tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[b"word%d" % rng.integers(1000) for _ in range(ragged)]))
            examples.append(tf.train.Example(features=tf.train.Features(feature=feature))
                            .SerializeToString())
        batches[name] = examples
        sparse_keys, dense_keys, ragged_keys, attrs = spec(case)
        serialized = tf.constant(examples)
        defaults = [tf.constant([], tf.float32)] * len(dense_keys)
        attrs = dict(attrs, sparse_types=[tf.int64] * len(sparse_keys),
                     ragged_value_types=[tf.string] * len(ragged_keys),
                     ragged_split_types=[tf.int64] * len(ragged_keys))

        def run(serialized=serialized, sk=sparse_keys, dk=dense_keys, rk=ragged_keys,
                defaults=defaults, attrs=attrs):
            out = tf.raw_ops.ParseExampleV2(serialized=serialized, names=[], sparse_keys=sk,
                                            dense_keys=dk, ragged_keys=rk,
                                            dense_defaults=defaults, **attrs)
            return [t.numpy() for group in out for t in group]
        times[name] = median_seconds(run, repeats)
    with open(path, "wb") as f:
        pickle.dump({"batches": batches, "times": times}, f)


def time_opgen(batches: dict, repeats: int) -> dict:
    import opgen
    out = {}
    for name, case in CASES.items():
        sparse_keys, dense_keys, ragged_keys, attrs = spec(case)
        tensors = [opgen.convert_to_tensor(np.array(batches[name], object)),
                   opgen.convert_to_tensor(np.array([], object)),
                   opgen.convert_to_tensor(np.array(sparse_keys, object)),
                   opgen.convert_to_tensor(np.array(dense_keys, object)),
                   opgen.convert_to_tensor(np.array(ragged_keys, object)),
                   [opgen.convert_to_tensor(np.array([], np.float32)) for _ in dense_keys]]
        out[name] = median_seconds(
            lambda tensors=tensors, attrs=attrs: [
                t.numpy() for group in opgen.execute_op("ParseExampleV2", tensors, attrs)
                for t in (group if isinstance(group, list) else [group])], repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON", ""))
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.repeats)
        return
    if not os.path.exists(args.tf_python):
        sys.exit("TensorFlow is needed to serialize the batches (--tf-python)")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tf.pkl")
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        env.pop("PYTHONPATH", None)
        result = subprocess.run([args.tf_python, __file__, "--worker", path, "--repeats",
                                 str(args.repeats)], capture_output=True, text=True, env=env)
        if result.returncode != 0:
            sys.exit(f"TensorFlow worker failed:\n{result.stderr[-2000:]}")
        with open(path, "rb") as f:
            reference = pickle.load(f)
    mine = time_opgen(reference["batches"], args.repeats)
    print(f"{'case':<52}{'opgen ms':>10}{'TF ms':>10}{'TF/opgen':>10}")
    ratios = []
    for name, t in reference["times"].items():
        ratios.append(t / mine[name])
        print(f"{name:<52}{mine[name] * 1e3:>10.3f}{t * 1e3:>10.3f}{ratios[-1]:>10.2f}")
    print(f"geometric mean TF/opgen: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
