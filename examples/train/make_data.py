"""Writes the demo's data set and initial weights as raw little-endian files.

A synthetic "digits" set: ten 8x8 class prototypes (random blobs), each example one
prototype plus Gaussian noise, all from one fixed seed, so every run on every machine
writes the same bytes. The five training programs (and the tests' TensorFlow run) read
these files; nothing binary is committed.

    python make_data.py OUT_DIR

OUT_DIR gets one file per array (`NAME.f32` float32, `NAME.i32` int32, row-major) and
`manifest.txt`, a line per file: name, dtype, dims.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

SEED = 20261206
CLASSES = 10
BATCHES = 10   # the programs' step i trains on batch i % BATCHES
BATCH = 64
PIXELS = 64    # 8x8, one channel


def arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    prototypes = (rng.random((CLASSES, PIXELS)) > 0.6).astype(np.float32)
    labels = rng.integers(0, CLASSES, BATCHES * BATCH).astype(np.int32)
    images = prototypes[labels] + 0.4 * rng.standard_normal((labels.size, PIXELS))

    def init(*shape: int) -> np.ndarray:   # Glorot-uniform-like, fan-in from all but the last dim
        fan_in, fan_out = int(np.prod(shape[:-1])), shape[-1]
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, shape)

    return {
        "x": images, "labels": labels,
        # MLP: 64 -> 32 relu -> 10
        "mlp_w1": init(64, 32), "mlp_b1": 0.01 * rng.standard_normal(32),
        "mlp_w2": init(32, 10), "mlp_b2": 0.01 * rng.standard_normal(10),
        # CNN: 8x8x1 -> conv 3x3x8 SAME + bias + relu -> average pool 2x2 -> 4*4*8 -> 10
        "cnn_k": init(3, 3, 1, 8), "cnn_b1": 0.01 * rng.standard_normal(8),
        "cnn_w2": init(128, 10), "cnn_b2": 0.01 * rng.standard_normal(10),
    }


def write(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for name, value in arrays().items():
        value = value.astype("<i4" if value.dtype.kind == "i" else "<f4")
        suffix = "i32" if value.dtype.kind == "i" else "f32"
        (out / f"{name}.{suffix}").write_bytes(value.tobytes())
        manifest.append(f"{name}.{suffix} {'int32' if suffix == 'i32' else 'float32'} "
                        + " ".join(map(str, value.shape)))
    (out / "manifest.txt").write_text("\n".join(manifest) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_data.py OUT_DIR")
    write(Path(sys.argv[1]))
