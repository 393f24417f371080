"""atheris target: the generator's OpList loaders and its one OpSpec builder.

The input is whatever ``opgen generate --ops FILE`` could be given: a binary OpList, an
``ops.pbtxt`` text, or neither. The promises checked, for every input:

- loading either succeeds or raises ``OpDefError`` with a message (every other exception
  is a finding);
- what loads builds the same OpSpecs op by op (``OpSpec.from_opdef``) as for the whole
  list (``model.op_specs``), and renders in every language without an exception.

Run it (see README.md here):

    python tools/fuzz/fuzz_oplist.py -max_total_time=60 CORPUS_DIR [SEED_FILES...]

With ``--make-seeds DIR`` it writes seed inputs (small text and binary OpLists cut from
the bundled ``ops.pbtxt``) into DIR and exits.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def make_seeds(folder: Path) -> None:
    from opgen import opdefs
    from opgen.protos import op_def_pb2

    oplist = opdefs.load(REPO / "ops.pbtxt")
    folder.mkdir(parents=True, exist_ok=True)
    ops = sorted(oplist.op, key=lambda op: op.name)
    for start in range(0, len(ops), 12):
        part = op_def_pb2.OpList(op=ops[start:start + 3])
        (folder / f"text-{start}.pbtxt").write_text(opdefs.to_text(part))
        (folder / f"binary-{start}.pb").write_bytes(opdefs.to_binary(part))


def test_one_input(data: bytes) -> None:
    from opgen import generate, model, opdefs

    try:
        oplist = opdefs.parse(data, "<fuzz>")
    except opdefs.OpDefError as e:
        if not str(e).strip():
            raise AssertionError("an OpDefError without a message") from e
        return
    specs = model.op_specs(oplist)
    alone = sorted((model.OpSpec.from_opdef(op) for op in oplist.op), key=lambda s: s.name)
    if repr(alone) != repr(specs):   # repr: nan defaults equal themselves
        raise AssertionError("OpSpec.from_opdef and op_specs build different OpSpecs")
    generate.render(oplist, ["python", "c", "cpp", "rust", "go"])


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--make-seeds":
        make_seeds(Path(sys.argv[2]))
        return
    import atheris

    import opgen.generate  # noqa: F401  (loaded before instrument_all)
    import opgen.model  # noqa: F401
    import opgen.opdefs  # noqa: F401
    # instrument_all rather than instrument_imports: an editable install imports opgen
    # through its own loader, which instrument_imports does not see into.
    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
