"""Corrupted inputs never crash the CLI: whatever is wrong with an OpList or an ApiDef
file, `opgen` exits with its documented status and one message that names the file, the
op when the problem is an op's, and LINE:COLUMN for text input; never a traceback.

Real inputs (the bundled ops.pbtxt, slices of TensorFlow's registry in text and binary,
small ApiDef files) are corrupted by Hypothesis: byte flips, truncation, insertion and
broken length fields for binary; deleted and inserted characters and tokens, unbalanced
braces, bad enum names, bad escapes, non-UTF-8 bytes, wrong field names and duplicated
ops for text. The oracle is protobuf's own parser: where it rejects text, opgen must
report the same LINE:COLUMN; where it accepts the input, any error is about content and
must name an op.

Runs derandomized with few examples; OPGEN_FUZZ_EXAMPLES=2000 hunts for bugs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from google.protobuf import message as protobuf_message
from google.protobuf import text_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgen import api_def, generate, model, opdefs
from opgen.cli import EXIT_ERROR, EXIT_STALE, main
from opgen.protos import api_def_pb2, op_def_pb2

from .conftest import REPO, TF_OPLIST, TF_OPLIST_TEXT

# protobuf's Python parser reads an unknown escape ("\\q") as the two characters, with a
# DeprecationWarning from Python's codec: accepted, as protobuf accepts it.
pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid (octal )?escape sequence:DeprecationWarning")

LANGUAGES = ("python", "c", "cpp", "rust", "go")
_SCALE = int(os.environ.get("OPGEN_FUZZ_EXAMPLES", "0"))


def fuzz_settings(examples: int):
    """A few derandomized examples in CI; OPGEN_FUZZ_EXAMPLES=N runs N, randomly."""
    return settings(max_examples=_SCALE or examples, deadline=None, derandomize=not _SCALE,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                    database=None)


# ------------------------------------------------------------------------ real inputs


def _text_blocks(text: str) -> list[str]:
    """The top-level ``op { ... }`` blocks of a text file written one block per op."""
    starts = [m.start() for m in re.finditer(r"(?m)^op \{", text)]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


@functools.lru_cache(maxsize=None)
def bundled_text() -> str:
    return (REPO / "ops.pbtxt").read_text()


@functools.lru_cache(maxsize=None)
def tf_text_blocks() -> list[str]:
    return _text_blocks(TF_OPLIST_TEXT.read_text()) if TF_OPLIST_TEXT else []


@functools.lru_cache(maxsize=None)
def tf_binary() -> bytes:
    return TF_OPLIST.read_bytes() if TF_OPLIST else b""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_fields(data: bytes, start: int = 0, end: int | None = None,
                  depth: int = 2) -> list[tuple[int, int, int]]:
    """(offset of the length varint, its end, the length) of each length-delimited field
    of well-formed wire ``data``, down to ``depth`` levels of messages (strings included:
    their bytes are walked too but rarely look like fields, and then only shallowly)."""
    end = len(data) if end is None else end
    found = []
    pos = start
    try:
        while pos < end:
            tag, pos = _varint(data, pos)
            wire = tag & 7
            if wire == 0:
                _, pos = _varint(data, pos)
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            elif wire == 2:
                length, body = _varint(data, pos)
                found.append((pos, body, length))
                if depth > 1:
                    found += length_fields(data, body, body + length, depth - 1)
                pos = body + length
            else:
                break
    except IndexError:
        pass
    return [f for f in found if f[1] + f[2] <= len(data)]


@functools.lru_cache(maxsize=None)
def tf_binary_ops() -> list[bytes]:
    """Each op field of TensorFlow's binary OpList, tag and length included."""
    data = tf_binary()
    ops, pos = [], 0
    while pos < len(data):
        length, body = _varint(data, pos + 1)
        ops.append(data[pos:body + length])
        pos = body + length
    return ops


def tf_text_slice():
    """A few consecutive ops of TensorFlow's text registry (real text, not re-printed)."""
    blocks = tf_text_blocks()
    return st.integers(0, len(blocks) - 1).flatmap(
        lambda i: st.integers(1, 6).map(lambda n: "".join(blocks[i:i + n])))


def tf_binary_slice():
    """A few consecutive op fields of TensorFlow's binary registry: a binary OpList."""
    ops = tf_binary_ops()
    return st.integers(0, len(ops) - 1).flatmap(
        lambda i: st.integers(1, 6).map(lambda n: b"".join(ops[i:i + n])))


MATMUL_OPS = '''op {
  name: "MatMul"
  input_arg { name: "a" type_attr: "T" }
  input_arg { name: "b" type_attr: "T" }
  output_arg { name: "product" type_attr: "T" }
  attr { name: "transpose_a" type: "bool" default_value { b: false } }
  attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
  summary: "Multiplies matrices."
}
op {
  name: "Scale"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "y" type: DT_FLOAT }
  attr { name: "factor" type: "float" }
}
'''

API_DEFS = '''op {
  graph_op_name: "MatMul"
  endpoint { name: "linalg.MatrixProduct" }
  endpoint { name: "Dot" deprecated: true deprecation_version: 2 }
  in_arg { name: "a" rename_to: "left" }
  in_arg { name: "b" rename_to: "right" description: "The right factor." }
  attr { name: "transpose_a" default_value { b: true } }
  arg_order: "b"
  arg_order: "a"
  summary: "Multiplies two matrices."
  description: <<END
The product of `left` and `right`.

Both must have the same dtype.
END
}
op {
  graph_op_name: "Scale"
  visibility: HIDDEN
  attr { name: "factor" rename_to: "by" default_value { f: 2.5 } }
}
'''

# ------------------------------------------------------------------------ corruptions

# Tokens whose insertion breaks text format in interesting ways (or, inside a string,
# changes content only).
TOKENS = ["{", "}", "<", ">", ":", '"', "'", "\\", "#", "\n", "[", "]", ",", ";", "-",
          " op ", "op {", "name", 'name: "X"', "type: DT_BOGUS", "type: DT_FLOAT", "attr {",
          "input_arg {", "default_value { i: 3 }", "type_attr: \"T\"", "number_attr: \"N\"",
          '"\\x"', '"\\q"', '"\\777"', '"\\u12"', '"\\', "1e999", "0x", "-9223372036854775809",
          "true", "\t", "\x00", "\x01", "\x7f", "\u00e9", "\u202e", "\ufeff", "<<END",
          "graph_op_name: \"MatMul\"", "visibility: NOPE", "endpoint { name: \"1x\" }"]
NON_UTF8 = [b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"]
FIELD_NAMES = r"\b(name|type|type_attr|number_attr|type_list_attr|input_arg|output_arg|attr|" \
              r"default_value|allowed_values|list|summary|description|graph_op_name|endpoint|" \
              r"visibility|rename_to|arg_order|in_arg|out_arg|minimum|has_minimum|is_stateful)\b"
BAD_NAMES = ["nmae", "Name", "typ", "input", "attrs", "x", "deprecated_name", "op"]
ENUM_VALUES = r"\b(DT_[A-Z0-9_]+|HIDDEN|SKIP|VISIBLE|true|false)\b"
BAD_ENUMS = ["DT_NOPE", "dt_float", "DT_FLOAT32", "99999", "-1", "DT_", "HIDDENN", "VISIBLE"]
ODD_NUMBERS = ["nan", "inf", "-inf", "1e999", "-0", "0.0", "9223372036854775807",
               "-9223372036854775808", "4294967296", "-1", "1.5", "0x7f", "true"]
ODD_STRINGS = ['"*/ /* \\" \\\\ \\n"', '"{{ x }} ${y} `z` %s"', '"\\u2028\\u0000"', '"\\xff\\xfe"',
               '"caf\u00e9 \U0001f600"', '"\\t\\r\\a\\v"', '"DT_FLOAT"', '"name"']
BAD_STRINGS = ['"\\x"', '"\\q"', '"\\400"', '"\\u"', '"\\U0011ffff"', '"unterminated',
               '"a\\"', "'mixed\"", '""', '"1bad"', '"has space"', '"T"', '"N"']


@st.composite
def corrupt_text(draw, text: str) -> bytes:
    """``text`` with one or two corruptions, as bytes (some are not UTF-8)."""
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(["delete", "token", "bytes", "field", "enum", "string",
                                     "number", "brace", "duplicate", "drop_block"]))
        n = len(text)
        at = draw(st.integers(0, n))
        if kind == "delete" and n:
            text = text[:at] + text[at + draw(st.integers(1, 30)):]
        elif kind == "token":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "bytes":
            raw = text.encode()
            at = draw(st.integers(0, len(raw)))
            return raw[:at] + draw(st.sampled_from(NON_UTF8)) + raw[at:]
        elif kind in ("field", "enum", "string", "number"):
            pattern, bad = {"field": (FIELD_NAMES, BAD_NAMES),
                            "enum": (ENUM_VALUES, BAD_ENUMS),
                            "string": (r'"(?:[^"\\\n]|\\.)*"', BAD_STRINGS + ODD_STRINGS),
                            "number": (r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?\b", ODD_NUMBERS)}[kind]
            matches = list(re.finditer(pattern, text))
            if matches:
                m = draw(st.sampled_from(matches))
                text = text[:m.start()] + draw(st.sampled_from(bad)) + text[m.end():]
        elif kind == "brace":
            braces = [i for i, c in enumerate(text) if c in "{}"]
            if braces:
                i = draw(st.sampled_from(braces))
                text = text[:i] + text[i + 1:]
        elif kind in ("duplicate", "drop_block"):
            blocks = _text_blocks(text)
            if blocks:
                block = draw(st.sampled_from(blocks))
                text = text + block if kind == "duplicate" else text.replace(block, "", 1)
    return text.encode()


@st.composite
def corrupt_binary(draw, data: bytes) -> bytes:
    """``data`` with one or two corruptions: flips, truncation, insertion, bad lengths."""
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "length", "duplicate"]))
        n = len(data)
        if kind == "flip" and n:
            at = draw(st.integers(0, n - 1))
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1:]
        elif kind == "truncate" and n:
            data = data[:draw(st.integers(0, n - 1))]
        elif kind == "insert":
            at = draw(st.integers(0, n))
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
        elif kind == "length":
            fields = length_fields(data)
            if fields:
                start, end, length = draw(st.sampled_from(fields))
                new = draw(st.one_of(st.integers(0, length + 64), st.integers(2**28, 2**35),
                                     st.sampled_from([length - 1, length + 1, 0])))
                data = data[:start] + _encode_varint(max(new, 0)) + data[end:]
        elif kind == "duplicate":
            fields = [f for f in length_fields(data, depth=1)]
            if fields:
                start, end, length = draw(st.sampled_from(fields))
                data = data + data[start - 1:end + length]
    return data


# --------------------------------------------------------------------------- oracles

Runner = CliRunner()
_PROBLEM_START = re.compile(r"^Error: ")


@contextlib.contextmanager
def workdir():
    """A fresh folder per example (function-scoped fixtures do not reset between them)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bad-input-") as folder:
        yield Path(folder)


def run(args: list[str], stdin: bytes | None = None):
    # OPGEN_DEBUG=1: a bug in opgen escapes as its own exception instead of becoming an
    # "internal error" message, so the check below sees it.
    return Runner.invoke(main, [str(a) for a in args], input=stdin, env={"OPGEN_DEBUG": "1"})


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte ``offset``."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


def text_oracle(data: bytes, message_type) -> tuple[str, tuple[int, int] | None]:
    """How protobuf's own parser sees ``data``: ("ok", None), ("syntax", (line, col))
    or ("syntax", None) when it gives no position."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        return "syntax", _position(data, e.start)
    if message_type is api_def_pb2.ApiDefs:
        text = api_def.expand_heredocs(text)
    try:
        text_format.Parse(text, message_type())
    except text_format.ParseError as e:
        return "syntax", (e.GetLine(), e.GetColumn()) if e.GetLine() is not None else None
    return "ok", None


def binary_parses(data: bytes) -> bool:
    try:
        return len(op_def_pb2.OpList.FromString(data).op) > 0
    except protobuf_message.DecodeError:
        return False


def assert_clean_exit(result, allowed: set[int]) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"opgen raised {type(result.exception).__name__}: "
                             f"{result.exception}\n{result.output}") from result.exception
    assert result.exit_code in allowed, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert "internal error" not in result.output, result.output


def assert_reports(result, path: Path, data: bytes, *, is_text: bool,
                   message_type=op_def_pb2.OpList) -> None:
    """An error about ``path`` (holding ``data``) says what the oracle says it must."""
    output = result.output
    assert _PROBLEM_START.search(output), output
    assert str(path) in output, output
    if is_text and _looks_textual(data):
        verdict, position = text_oracle(data, message_type)
        if verdict == "syntax":
            assert position is None or f"{path}:{position[0]}:{position[1]}: " in output, \
                (position, output)
            return
    elif not binary_parses(data):
        return
    # The input parses: the problems are about content, each located and naming its op.
    problems = [line for line in output.splitlines()[1:] if line.strip()]
    assert problems, output
    where = r":\d+:\d+" if is_text else r" \(op #\d+\)"
    for line in problems:
        assert re.match(rf"{re.escape(str(path))}{where}: op '", line), line


def _looks_textual(data: bytes) -> bool:
    """Mostly text: how a text seed with a few bad bytes still counts as text."""
    text = data.decode("utf-8", "replace")
    bad = sum(1 for c in text if c == "\ufffd" or not (c.isprintable() or c in "\t\n\r\f\v"))
    return bad <= max(4, len(text) // 100)


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------------ OpList: CLI

COMMANDS = st.sampled_from([("generate", lang) for lang in LANGUAGES]
                           + [("check", None), ("depfile", None), ("show", None),
                              ("diff_old", None), ("diff_new", None)])


def run_command(command: tuple[str, str | None], folder: Path, bad: Path, clean: Path):
    """Run one CLI command on the corrupted OpList ``bad``; ``clean`` is a valid one."""
    kind, lang = command
    out = folder / "out"
    if kind == "generate":
        return run(["generate", "--lang", lang, "--ops", bad, "--out", out]), {0, EXIT_ERROR}
    if kind == "check":
        return (run(["generate", "--check", "--lang", "python,c,cpp,rust,go", "--ops", bad,
                     "--out", out]), {0, EXIT_STALE, EXIT_ERROR})
    if kind == "depfile":
        return (run(["generate", "--ops", bad, "--out", out, "--depfile", folder / "gen.d"]),
                {0, EXIT_ERROR})
    if kind == "show":
        return run(["show", "MatMul", "--ops", bad]), {0, EXIT_ERROR}
    old, new = (bad, clean) if kind == "diff_old" else (clean, bad)
    return run(["diff", old, new]), {0, EXIT_STALE, EXIT_ERROR}


def check_oplist(command, data: bytes, *, is_text: bool, clean: bytes) -> None:
    with workdir() as folder:
        check_oplist_in(folder, command, data, is_text=is_text, clean=clean)


def check_oplist_in(folder: Path, command, data: bytes, *, is_text: bool, clean: bytes) -> None:
    bad = write(folder, "bad.pbtxt" if is_text else "bad.pb", data)
    clean_path = write(folder, "clean.pbtxt", clean)
    result, allowed = run_command(command, folder, bad, clean_path)
    assert_clean_exit(result, allowed)
    if result.exit_code == 0 and command == ("generate", "python"):
        for module in (folder / "out" / "python").glob("*.py"):   # odd values, valid code
            compile(module.read_text(), str(module), "exec")
    if result.exit_code == EXIT_ERROR:
        if command[0] == "show" and "no op named 'MatMul'" in result.output:
            assert f"Error: {bad}: no op named 'MatMul'" in result.output
            return
        assert_reports(result, bad, data, is_text=is_text)
        assert not (folder / "out").exists() and not (folder / "gen.d").exists()


@fuzz_settings(60)
@given(st.data(), COMMANDS)
def test_corrupted_bundled_oplist(data, command):
    corrupted = data.draw(corrupt_text(bundled_text()))
    check_oplist(command, corrupted, is_text=True, clean=MATMUL_OPS.encode())


@pytest.mark.skipif(TF_OPLIST_TEXT is None, reason="TensorFlow's text OpList is absent")
@fuzz_settings(80)
@given(st.data(), COMMANDS)
def test_corrupted_tensorflow_text(data, command):
    corrupted = data.draw(tf_text_slice().flatmap(corrupt_text))
    check_oplist(command, corrupted, is_text=True, clean=MATMUL_OPS.encode())


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's binary OpList is absent")
@fuzz_settings(100)
@given(st.data(), COMMANDS)
def test_corrupted_tensorflow_binary(data, command):
    corrupted = data.draw(tf_binary_slice().flatmap(corrupt_binary))
    check_oplist(command, corrupted, is_text=False, clean=MATMUL_OPS.encode())


@pytest.mark.skipif(TF_OPLIST is None, reason="TensorFlow's binary OpList is absent")
@fuzz_settings(10)
@given(st.data())
def test_corrupted_whole_tensorflow_registry(data):
    """The whole registry, where corrupted length fields can point far away."""
    corrupted = data.draw(corrupt_binary(tf_binary()))
    with workdir() as folder:
        bad = write(folder, "tf.pb", corrupted)
        result = run(["show", "MatMul", "--ops", bad])
    assert_clean_exit(result, {0, EXIT_ERROR})
    if result.exit_code == EXIT_ERROR and "no op named" not in result.output:
        assert_reports(result, bad, corrupted, is_text=False)


# ------------------------------------------------------------------------ ApiDef: CLI


@fuzz_settings(80)
@given(st.data(), st.sampled_from(["python", "c", "cpp", "rust", "go", "show", "diff"]))
def test_corrupted_api_def(data, command):
    with workdir() as folder:
        check_api_def_in(folder, command, data.draw(corrupt_text(API_DEFS)))


def check_api_def_in(folder: Path, command: str, corrupted: bytes) -> None:
    ops = write(folder, "ops.pbtxt", MATMUL_OPS.encode())
    bad = write(folder, "api_def.pbtxt", corrupted)
    if command == "show":
        result = run(["show", "MatMul", "--ops", ops, "--api-def", bad])
        allowed = {0, EXIT_ERROR}
    elif command == "diff":
        result = run(["diff", ops, ops, "--api-def", bad])
        allowed = {0, EXIT_STALE, EXIT_ERROR}
    else:
        result = run(["generate", "--lang", command, "--ops", ops, "--api-def", bad,
                      "--out", folder / "out"])
        allowed = {0, EXIT_ERROR}
    assert_clean_exit(result, allowed)
    if result.exit_code == EXIT_ERROR:
        assert_reports(result, bad, corrupted, is_text=True, message_type=api_def_pb2.ApiDefs)
        assert not (folder / "out").exists()


# ------------------------------------------------------------- the library raises OpDefError


@fuzz_settings(100)
@given(st.one_of(tf_binary_slice().flatmap(corrupt_binary) if TF_OPLIST else st.nothing(),
                 corrupt_text(MATMUL_OPS),
                 st.binary(max_size=64)))
def test_library_raises_opdef_error(data):
    """opdefs.load(bytes) and what follows it raise OpDefError, never a protobuf or
    Unicode error, and its problems are what the CLI prints for the same bytes."""
    try:
        oplist = opdefs.load(data)
    except opdefs.OpDefError as e:
        assert e.problems and all(p.location.startswith("<bytes>") for p in e.problems)
        with workdir() as folder:
            result = run(["generate", "--ops", "-", "--out", folder], stdin=data)
        assert_clean_exit(result, {EXIT_ERROR})
        assert result.output.split("\n", 1)[1] == f"{e}\n".replace("<bytes>", "<stdin>")
        return
    generate.render(oplist, list(LANGUAGES))   # a valid OpList renders in every language


@fuzz_settings(60)
@given(corrupt_text(API_DEFS))
def test_library_api_def_load_raises_opdef_error(data):
    with workdir() as folder:
        path = write(folder, "api.pbtxt", data)
        try:
            api_defs = api_def.load([path])
        except opdefs.OpDefError as e:
            assert e.problems and all(p.location.startswith(str(path)) for p in e.problems)
            return
    oplist = opdefs.load(MATMUL_OPS.encode())
    problems = api_def.validate(api_defs, oplist)
    if not problems:
        model.op_specs(oplist, api_defs)
    assert all(p.location.startswith(str(path)) and p.op for p in problems)


# ------------------------------------------------------------- files that are not files


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ops.pbtxt").write_text(MATMUL_OPS)
    return tmp_path


def _error(result) -> str:
    assert_clean_exit(result, {EXIT_ERROR})
    return result.output


def test_a_folder_given_as_the_oplist(folder):
    # The path is the culprit: the message does not call the OpList invalid.
    assert f"Error: {folder}: cannot read the OpList: Is a directory; nothing written" in \
        _error(run(["generate", "--ops", folder, "--out", folder / "o"]))
    assert f"{folder}: cannot read the OpList: Is a directory" in \
        _error(run(["diff", folder, folder / "ops.pbtxt"]))


def test_a_missing_or_unreachable_oplist(folder):
    missing = folder / "missing.pbtxt"
    assert f"{missing}: cannot read the OpList: No such file or directory" in \
        _error(run(["show", "MatMul", "--ops", missing]))
    under_a_file = folder / "ops.pbtxt" / "x.pbtxt"
    assert f"{under_a_file}: cannot read the OpList: Not a directory" in \
        _error(run(["generate", "--ops", under_a_file, "--out", folder / "o"]))


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0,
                    reason="root reads files whatever their mode")
def test_an_unreadable_oplist_and_api_def(folder):
    locked = folder / "locked.pbtxt"
    locked.write_text(MATMUL_OPS)
    locked.chmod(0)
    assert f"{locked}: cannot read the OpList: Permission denied" in \
        _error(run(["generate", "--ops", locked, "--out", folder / "o"]))
    assert f"{locked}: cannot read the ApiDef file: Permission denied" in _error(run(
        ["generate", "--ops", folder / "ops.pbtxt", "--api-def", locked, "--out", folder / "o"]))


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="Linux only")
def test_a_file_whose_read_fails():
    """/proc/self/mem fails to read (EIO) even for root, where modes do not count."""
    assert "/proc/self/mem: cannot read the OpList: Input/output error" in \
        _error(run(["show", "MatMul", "--ops", "/proc/self/mem"]))


def test_standard_input_is_named_stdin(folder):
    oplist = opdefs.load(MATMUL_OPS.encode())
    matmul, scale = (len(op.SerializeToString()) for op in oplist.op)
    # Each op is a tag byte, a one-byte length and its bytes; 9 bytes of Scale cut off.
    assert f"<stdin> (op #1, byte {2 + matmul}): op 'Scale': not a valid binary OpList: " \
           f"the op needs {scale} bytes, {scale - 9} remain" in _error(run(
               ["generate", "--ops", "-", "--out", folder / "o"],
               stdin=oplist.SerializeToString()[:-9]))
    assert "<stdin>:2:8: syntax error: Expected \"{\"." in _error(
        run(["generate", "--ops", "-", "--out", folder / "o"], stdin=b'op {\n  attr "x" }'))


def test_api_def_paths_that_are_not_readable_files(folder):
    ops = folder / "ops.pbtxt"
    missing = folder / "nope"
    assert f"{missing}: no such ApiDef file or folder" in _error(
        run(["generate", "--ops", ops, "--api-def", missing, "--out", folder / "o"]))
    apis = folder / "apis"
    (apis / "sub.pbtxt").mkdir(parents=True)   # a folder whose name looks like a file's
    assert f"{apis / 'sub.pbtxt'}: cannot read the ApiDef file: Is a directory" in _error(
        run(["generate", "--ops", ops, "--api-def", apis, "--out", folder / "o"]))


def test_an_empty_file_is_an_empty_oplist_but_an_unknown_op_for_show(folder):
    empty = folder / "empty.pbtxt"
    empty.write_bytes(b"")
    result = run(["generate", "--lang", "python,c", "--ops", empty, "--out", folder / "o"])
    assert_clean_exit(result, {0})
    assert f"Error: {empty}: no op named 'MatMul' among 0 ops" in \
        _error(run(["show", "MatMul", "--ops", empty]))
    empty_api = folder / "empty_api.pbtxt"
    empty_api.write_bytes(b"")
    assert_clean_exit(run(["show", "MatMul", "--ops", folder / "ops.pbtxt",
                           "--api-def", empty_api]), {0})


def test_outputs_that_cannot_be_written(folder):
    ops = folder / "ops.pbtxt"
    assert f"Invalid value for '--out': Directory '{ops}' is a file" in \
        _error(run(["generate", "--ops", ops, "--out", ops]))
    under_a_file = ops / "gen"
    assert f"cannot write under {under_a_file}: [Errno 20] Not a directory" in \
        _error(run(["generate", "--ops", ops, "--out", under_a_file]))
    assert f"Invalid value for '--depfile': File '{folder}' is a directory" in \
        _error(run(["generate", "--ops", ops, "--out", folder / "o", "--depfile", folder]))
    assert not (folder / "o").exists()


# ------------------------------------------------- what the fuzzing found, one case each


def _problems(data: bytes) -> str:
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(data)
    return str(info.value)


def test_a_number_that_is_no_data_type_names_the_op():
    text = b'op {\n  name: "A"\n  input_arg { name: "x" type: 9999 }\n' \
           b'  attr { name: "T" type: "type" default_value { type: 777 } ' \
           b'allowed_values { list { type: DT_FLOAT type: 555 } } }\n}\n'
    assert _problems(text).splitlines() == [
        "<bytes>:2:3: op 'A': attr 'T': allowed value 555 is not a DataType",
        "<bytes>:2:3: op 'A': attr 'T': default 777 is not a DataType",
        "<bytes>:2:3: op 'A': attr 'T': default 777 is not among the allowed values "
        "DT_FLOAT, 555",
        "<bytes>:2:3: op 'A': input 'x': type 9999 is not a DataType"]


def test_an_unknown_visibility_number_names_the_api_def(tmp_path):
    ops = write(tmp_path, "ops.pbtxt", MATMUL_OPS.encode())
    api = write(tmp_path, "api.pbtxt", b'op {\n  graph_op_name: "Scale"\n  visibility: 7\n}\n')
    assert f"{api}:2:3: op 'Scale': visibility 7 is not one of DEFAULT_VISIBILITY, VISIBLE, " \
           "SKIP, HIDDEN" in _error(run(["show", "Scale", "--ops", ops, "--api-def", api]))


def test_a_byte_that_is_not_utf8_is_located_in_oplists_and_api_defs(tmp_path):
    # Columns count characters: the two bytes of the \u00e9 before it are one.
    assert _problems(b'op {\n  summary: "caf\xc3\xa9 \xff"\n}\n') == \
        "<bytes>:2:18: syntax error: byte 0xff is not UTF-8 text"
    api = write(tmp_path, "api.pbtxt", b'op {\n  graph_op_name: "Scale"\n  summary: "\xc3"\n}\n')
    with pytest.raises(opdefs.OpDefError) as info:
        api_def.load([api])
    assert str(info.value) == f"{api}:3:13: ApiDef syntax error: byte 0xc3 is not UTF-8 text"


def test_damaged_names_are_escaped_and_nameless_duplicates_named_by_index():
    oplist = op_def_pb2.OpList()
    oplist.op.add(name="Bad\nName\x1b[31m")
    oplist.op.add()
    oplist.op.add()
    assert _problems(oplist.SerializeToString()).splitlines() == [
        "<bytes> (op #0): op 'Bad\\nName\\x1b[31m': invalid op name 'Bad\\nName\\x1b[31m': "
        "expected CamelCase letters, digits, '_' and '>' namespace separators",
        "<bytes> (op #1): op '#1': invalid op name '': expected CamelCase letters, digits, "
        "'_' and '>' namespace separators",
        "<bytes> (op #2): op '#2': duplicate op name (first defined at <bytes> (op #1))",
        "<bytes> (op #2): op '#2': invalid op name '': expected CamelCase letters, digits, "
        "'_' and '>' namespace separators"]


def test_a_syntax_error_on_a_long_line_does_not_repeat_the_line():
    line = b'op { name: "A" summary: "' + b"x" * 5000 + b'" input_arg { type: DT_NOPE } }'
    assert _problems(line) == "<bytes>:1:5046: syntax error: Enum type \"opgen.DataType\" " \
                              "has no value named DT_NOPE."


def test_paths_that_no_file_can_have():
    assert _problems_of("a\0b") == "a\\x00b: cannot read the OpList: embedded null byte"
    assert _problems_of('op { name: "A" }') == \
        "<str>: a str names a file, and no file has this name; to parse OpList text, pass " \
        "it as bytes"


def _problems_of(source: str) -> str:
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(source)
    return str(info.value)
