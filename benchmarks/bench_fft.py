"""The FFT family (FFT, IFFT, RFFT, IRFFT, RFFT2D/3D, IRFFT2D) against numpy.fft and TensorFlow.

opgen runs in this process (eager execute_op on runtime tensors, the result copied out
to numpy); numpy.fft (pocketfft: single precision for float32/complex64 input, one
thread) runs in the same process, its calls interleaved with opgen's; TensorFlow 2.21
runs in its own interpreter (--tf-python, default $OPGEN_TF_PYTHON; never imported
here), this same file in --worker mode, eager raw_ops on tf.constant inputs. Lengths
are powers of two and not (1000, the prime 1021, odd 1001), single rows and batches of
rows, and image-like 2-D/3-D shapes. Every figure is the median of --repeats samples;
a ratio above 1 means opgen is faster. The first opgen result of each case is checked
against numpy.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_fft.py \
        [--repeats 15] [--tf-python "$OPGEN_TF_PYTHON"] [--only RFFT]

OPGEN_NUM_THREADS=1 compares one core with numpy's one; with it, --clock cpu times
process CPU time instead of wall time (steadier on a machine shared with other jobs).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np
from _timing import median_seconds, median_seconds_each

# (name, op, input dtype, input shape, fft_length or None); IRFFT inputs are the
# spectra of real signals of fft_length.
CASES = [
    ("fft c64 256", "FFT", "complex64", (256,), None),
    ("fft c64 1000", "FFT", "complex64", (1000,), None),
    ("fft c64 4096", "FFT", "complex64", (4096,), None),
    ("fft c64 65536", "FFT", "complex64", (65536,), None),
    ("fft c64 64x1024", "FFT", "complex64", (64, 1024), None),
    ("fft c64 128x1000", "FFT", "complex64", (128, 1000), None),
    ("fft c128 4096", "FFT", "complex128", (4096,), None),
    ("fft c128 1021", "FFT", "complex128", (1021,), None),
    ("ifft c64 4096", "IFFT", "complex64", (4096,), None),
    ("ifft c64 64x1024", "IFFT", "complex64", (64, 1024), None),
    ("rfft f32 256", "RFFT", "float32", (256,), (256,)),
    ("rfft f32 1000", "RFFT", "float32", (1000,), (1000,)),
    ("rfft f32 1001", "RFFT", "float32", (1001,), (1001,)),
    ("rfft f32 4096", "RFFT", "float32", (4096,), (4096,)),
    ("rfft f32 65536", "RFFT", "float32", (65536,), (65536,)),
    ("rfft f32 64x1024", "RFFT", "float32", (64, 1024), (1024,)),
    ("rfft f32 128x1000", "RFFT", "float32", (128, 1000), (1000,)),
    ("rfft f64 4096", "RFFT", "float64", (4096,), (4096,)),
    ("rfft f64 1021", "RFFT", "float64", (1021,), (1021,)),
    ("irfft c64 256", "IRFFT", "complex64", (129,), (256,)),
    ("irfft c64 1000", "IRFFT", "complex64", (501,), (1000,)),
    ("irfft c64 4096", "IRFFT", "complex64", (2049,), (4096,)),
    ("irfft c64 65536", "IRFFT", "complex64", (32769,), (65536,)),
    ("irfft c64 64x1024", "IRFFT", "complex64", (64, 513), (1024,)),
    ("irfft c128 4096", "IRFFT", "complex128", (2049,), (4096,)),
    ("rfft2d f32 256x256", "RFFT2D", "float32", (256, 256), (256, 256)),
    ("rfft2d f32 8x128x128", "RFFT2D", "float32", (8, 128, 128), (128, 128)),
    ("rfft2d f32 480x640", "RFFT2D", "float32", (480, 640), (480, 640)),
    ("irfft2d c64 256x256", "IRFFT2D", "complex64", (256, 129), (256, 256)),
    ("rfft3d f32 64x64x64", "RFFT3D", "float32", (64, 64, 64), (64, 64, 64)),
]

NUMPY = {"FFT": np.fft.fft, "IFFT": np.fft.ifft, "RFFT": np.fft.rfft, "IRFFT": np.fft.irfft,
         "RFFT2D": np.fft.rfft2, "IRFFT2D": np.fft.irfft2, "RFFT3D": np.fft.rfftn}


def case_input(op: str, dtype: str, shape: tuple) -> np.ndarray:
    """The same values in both processes."""
    rng = np.random.default_rng(0)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def op_attrs(op: str, dtype: str) -> dict:
    """Tcomplex / Treal as dtype names (each side converts)."""
    if op.startswith("RFFT"):
        return {"Tcomplex": "complex64" if dtype == "float32" else "complex128"}
    if op.startswith("IRFFT"):
        return {"Treal": "float32" if dtype == "complex64" else "float64"}
    return {}


def numpy_call(op: str, x: np.ndarray, n):
    fn = NUMPY[op]
    if op == "RFFT3D":
        return lambda: fn(x, axes=(-3, -2, -1))
    if op.startswith("IRFFT"):
        return lambda: fn(x, n[-1]) if len(n) == 1 else fn(x, s=n)
    return lambda: fn(x)


def selected(only: str | None):
    return [c for c in CASES if only is None or c[1] == only or c[0].startswith(only.lower())]


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_tensorflow(repeats: int, only: str | None, clock: str = "wall") -> dict:
    import tensorflow as tf
    out = {}
    for name, op, dtype, shape, n in selected(only):
        x = tf.constant(case_input(op, dtype, shape))
        fn = getattr(tf.raw_ops, op)
        kwargs = {"input": x, **op_attrs(op, dtype)}
        if n is not None:
            kwargs["fft_length"] = tf.constant(np.int32(n))
        out[name] = median_seconds(lambda fn=fn, kwargs=kwargs: fn(**kwargs).numpy(), repeats,
                                   warmup=2, clock=CLOCKS[clock])
    return out


def run_tensorflow(tf_python: str | None, repeats: int, only: str | None,
                   clock: str) -> dict | None:
    if not tf_python or not os.path.exists(tf_python):
        return None
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)
    args = [tf_python, __file__, "--worker", "--repeats", str(repeats), "--clock", clock]
    if only:
        args += ["--only", only]
    result = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        print(f"TensorFlow worker failed:\n{result.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("OPGEN_TF_PYTHON"))
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--only", default=None, help="an op (RFFT) or a case-name prefix")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(time_tensorflow(args.repeats, args.only, args.clock)))
        return
    import opgen
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"OPGEN_NUM_THREADS={os.environ.get('OPGEN_NUM_THREADS')}, median of {args.repeats} "
          f"({args.clock} clock), "
          f"load average {os.getloadavg()[0]:.1f}, numpy {np.__version__}")
    tf_times = run_tensorflow(args.tf_python, args.repeats, args.only, args.clock)
    print(f"{'case':<24}{'opgen ms':>10}{'numpy ms':>10}{'np/opgen':>9}{'TF ms':>9}{'TF/opgen':>9}"
          f"{'max err':>9}")
    np_ratios, tf_ratios = [], []
    for name, op, dtype, shape, n in selected(args.only):
        x = case_input(op, dtype, shape)
        attrs = {k: opgen.as_dtype(v) for k, v in op_attrs(op, dtype).items()}
        tensors = [opgen.convert_to_tensor(x)]
        if n is not None:
            tensors.append(opgen.convert_to_tensor(np.int32(n)))
        got = opgen.execute_op(op, tensors, attrs)[0].numpy()
        reference = numpy_call(op, x.astype(np.complex128 if dtype.startswith("c") else np.float64),
                               n)()
        err = float(np.abs(got - reference).max() / (np.abs(reference).max() or 1.0))
        mine, theirs = median_seconds_each(
            [lambda op=op, t=tensors, a=attrs: opgen.execute_op(op, t, a)[0].numpy(),
             numpy_call(op, x, n)], args.repeats, warmup=2, clock=CLOCKS[args.clock])
        np_ratios.append(theirs / mine)
        t = tf_times.get(name) if tf_times else None
        if t:
            tf_ratios.append(t / mine)
        print(f"{name:<24}{mine * 1e3:>10.3f}{theirs * 1e3:>10.3f}{theirs / mine:>9.2f}"
              f"{(t or float('nan')) * 1e3:>9.3f}{(t / mine if t else float('nan')):>9.2f}"
              f"{err:>9.1e}", flush=True)
    for label, ratios in (("numpy/opgen", np_ratios), ("TF/opgen", tf_ratios)):
        if ratios:
            print(f"geometric mean {label}: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
