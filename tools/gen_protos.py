"""Regenerate ``opgen/protos/*_pb2.py`` from ``protos/*.proto``.

    python tools/gen_protos.py

protoc sees the files under the virtual path ``opgen/protos/``, so the generated
modules import each other as ``from opgen.protos import x_pb2``. Needs grpcio-tools
(part of the test extra); a test regenerates into a temporary folder and compares.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROTO_DIR = REPO / "protos"
PACKAGE_DIR = REPO / "opgen" / "protos"


def generate(out_root: Path) -> list[Path]:
    """Write the modules under ``out_root/opgen/protos/``; return their paths, sorted."""
    import grpc_tools
    from grpc_tools import protoc

    out_root.mkdir(parents=True, exist_ok=True)
    protos = sorted(PROTO_DIR.glob("*.proto"))
    # google/protobuf/*.proto (Any, BoolValue) come with grpcio-tools.
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    args = ["protoc", f"-Iopgen/protos={PROTO_DIR}", f"-I{well_known}",
            f"--python_out={out_root}"]
    args += [f"opgen/protos/{p.name}" for p in protos]
    if protoc.main(args) != 0:
        raise RuntimeError(f"protoc failed on {PROTO_DIR}")
    return sorted((out_root / "opgen" / "protos").glob("*_pb2.py"))


def main() -> int:
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for module in generate(Path(tmp)):
            shutil.copyfile(module, PACKAGE_DIR / module.name)
            print(f"wrote {PACKAGE_DIR / module.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
