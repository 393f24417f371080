"""atheris target: the generator's OpList loaders, compiled and pure Python side by side.

The input is whatever ``opgen generate --ops FILE`` could be given: a binary OpList, an
``ops.pbtxt`` text, or neither. The promises checked, for every input:

- loading either succeeds or raises ``OpDefError`` with a message (every other exception
  is a finding, as is a crash of the compiled scanner ``opgen._oplist_scan``);
- the compiled scanner and the pure-Python path agree: both accept, with the same
  OpSpecs, or both refuse, with the same problems;
- what loads, renders in every language without an exception.

Run it (see README.md here for the sanitizer build of the compiled scanner):

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


def _outcome(data: bytes, compiled: bool):
    """('ok', specs) or ('refused', problems) for ``data``, on one of the two paths."""
    from opgen import model, opdef_wire, opdefs

    saved = opdef_wire._scanner
    if not compiled:
        opdef_wire._scanner = None
    try:
        try:
            oplist = opdefs.parse(data, "<fuzz>")
        except opdefs.OpDefError as e:
            message = str(e)
            if not message.strip():
                raise AssertionError("an OpDefError without a message") from e
            return "refused", message
        return "ok", (oplist, model.op_specs(oplist))
    finally:
        opdef_wire._scanner = saved


def test_one_input(data: bytes) -> None:
    from opgen import generate, opdef_wire

    compiled = _outcome(data, compiled=True)
    if opdef_wire.scanner() is not None:
        pure = _outcome(data, compiled=False)
        if compiled[0] != pure[0]:
            raise AssertionError(f"compiled path {compiled[0]}, pure Python {pure[0]}: "
                                 f"{compiled[1] if compiled[0] == 'refused' else pure[1]}")
        if compiled[0] == "refused" and compiled[1] != pure[1]:
            raise AssertionError(f"the two paths refuse differently:\n{compiled[1]}\n---\n{pure[1]}")
        if compiled[0] == "ok" and compiled[1][1] != pure[1][1]:
            raise AssertionError("the two paths build different OpSpecs")
    if compiled[0] == "ok":
        generate.render(compiled[1][0], ["python", "c", "cpp", "rust", "go"])


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
    from opgen import opdef_wire
    scanner = opdef_wire.scanner()
    print("fuzz_oplist: compiled scanner:", getattr(scanner, "__file__", "none"), flush=True)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
