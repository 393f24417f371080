"""Load an ``OpList`` from any of its sources and check that every ``OpDef`` makes sense.

Sources: protobuf text format (``ops.pbtxt``), the binary ``OpList`` that
``TF_GetAllOpList`` returns, and the runtime's live registry. Which of text and binary a
file holds is decided by its content, never its name. Problems are collected, not
raised one at a time: :class:`OpDefError` carries all of them, each with the op it
belongs to and, for text input, ``FILE:LINE:COLUMN``.
"""

from __future__ import annotations

import codecs
import ctypes
import operator
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from google.protobuf import message as _message
from google.protobuf import text_format

from opgen import opdef_wire
from opgen.protos import op_def_pb2, types_pb2

#: ``--ops -`` reads the OpList from standard input.
STDIN = "-"

OpsSource = str | Path | bytes

# TensorFlow's own rules (op_def_util): op names are CamelCase, with a leading "_" for
# internal ops and ">" separating a namespace.
_OP_NAME = re.compile(r"^_*[A-Za-z][A-Za-z0-9_]*(>[A-Za-z][A-Za-z0-9_]*)*\Z")
_ARG_NAME = re.compile(r"^[a-z_][a-z0-9_]*\Z")
_ATTR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
_SCALAR_ATTR_TYPES = ("string", "int", "float", "bool", "type", "shape", "tensor", "func")
ATTR_TYPES = frozenset(_SCALAR_ATTR_TYPES) | {f"list({t})" for t in _SCALAR_ATTR_TYPES}
_DATA_TYPES = opdef_wire.DATA_TYPES
# The AttrValue oneof field each attr type's value lives in.
_VALUE_FIELD = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
                "shape": "shape", "tensor": "tensor", "func": "func"}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where, which op, what."""

    location: str          # "FILE:LINE:COL", "FILE", or "" when unknown
    op: str                # the op's name, "" for problems not tied to one op
    message: str

    def __str__(self) -> str:
        where = f"{printable(self.location)}: " if self.location else ""
        what = f"op '{shown_name(self.op)}': " if self.op else ""
        return f"{where}{what}{cut_long_words(printable(self.message))}"


# Names echoed in messages are cut to this many characters: a damaged or hostile file
# can hold a name of any length, and a message must stay readable.
MAX_SHOWN_NAME = 100
_LONG_WORD = re.compile(r"[^\s'\"]{" + str(MAX_SHOWN_NAME + 1) + ",}")


def shown_name(name: str) -> str:
    """`name` made printable and cut to MAX_SHOWN_NAME characters (saying how long it
    was), for messages."""
    name = printable(name)
    if len(name) <= MAX_SHOWN_NAME:
        return name
    return f"{name[:MAX_SHOWN_NAME - 40]}...({len(name)} characters)"


def cut_long_words(text: str) -> str:
    """`text` with every run longer than MAX_SHOWN_NAME characters without spaces or
    quotes (a name, a value echoed from the input) cut as :func:`shown_name` cuts it."""
    if len(text) <= MAX_SHOWN_NAME:
        return text
    return _LONG_WORD.sub(lambda m: shown_name(m.group()), text)


def printable(text: str) -> str:
    """``text`` with control and other unprintable characters escaped (``\\n``,
    ``\\x1b``): a name read from a damaged file cannot break a message across lines or
    drive the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)


class OpDefError(Exception):
    """The OpList could not be read, or some OpDefs in it are invalid."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class UnreadableError(OpDefError):
    """An input file that cannot be read at all (missing, a folder, no permission): the
    culprit is the path, not the OpDefs, and messages say so."""


# --------------------------------------------------------------------------- loading


def read_source(source: OpsSource) -> tuple[bytes, str]:
    """The raw bytes of ``source`` (a path, ``"-"`` for stdin, or bytes) and a display name."""
    if isinstance(source, bytes):
        return source, "<bytes>"
    if str(source) == STDIN:
        return sys.stdin.buffer.read(), "<stdin>"
    if isinstance(source, str) and "{" in source and not os.path.lexists(source):
        # OpList text passed where a path belongs; naming it as a path would print it all
        raise OpDefError([Problem("<str>", "", "a str names a file, and no file has this "
                                  "name; to parse OpList text, pass it as bytes")])
    return read_file(Path(source), "OpList"), str(source)


def read_file(path: Path, what: str) -> bytes:
    """The bytes of ``path``; :class:`OpDefError` naming it and ``what`` it should hold
    when it cannot be read (missing, a folder, no permission, a NUL in the name)."""
    try:
        return path.read_bytes()
    except OSError as e:
        reason = e.strerror or str(e)
    except ValueError as e:   # a path with a NUL character: no file can have it
        reason = str(e)
    raise UnreadableError([Problem(str(path), "", f"cannot read the {what}: {reason}")])


def load(source: OpsSource, *, validate: bool = True) -> op_def_pb2.OpList:
    """Read and (by default) validate an OpList from a path, ``"-"`` or bytes."""
    data, display = read_source(source)
    return parse(data, display, validate=validate)


def parse(data: bytes, display: str = "<bytes>", *, validate: bool = True) -> op_def_pb2.OpList:
    """Parse text or binary OpList ``data``; ``display`` names it in error messages."""
    oplist = _parse_binary(data)
    text = None
    if oplist is None:
        oplist, text = _parse_text(data, display)
    if validate:
        if text is None:   # the bytes at hand: no need to serialize the OpList again
            problems = _problems(oplist, opdef_wire.OpListWire.FromString(data).op,
                                 _binary_locator(display))
        else:
            problems = validate_oplist(oplist, _text_locator(text, display))
        if problems:
            raise OpDefError(problems)
    return oplist


def _parse_binary(data: bytes) -> op_def_pb2.OpList | None:
    """``data`` as a binary OpList, or None when it does not parse as one with ops."""
    if not data or _looks_like_text(data):
        # An empty input is an empty OpList either way; text is left to the text parser
        # (a text file is never valid wire format holding ops anyway).
        return None
    try:
        oplist = op_def_pb2.OpList.FromString(data)
    except _message.DecodeError:
        return None
    return oplist if oplist.op else None


def _looks_like_text(data: bytes) -> bool:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\t\n\r\f\v" for c in text)


def _mostly_text(data: bytes) -> bool:
    """Whether ``data`` that is not clean text is text with a few bad bytes (an editing
    accident: report where they are) rather than a damaged binary OpList, where every
    field's tag and length is a control byte."""
    text = data.decode("utf-8", "replace")
    bad = sum(1 for c in text if c == "\ufffd" or not (c.isprintable() or c in "\t\n\r\f\v"))
    return bad <= max(4, len(text) // 100)


def decode_text(data: bytes, display: str, what: str) -> str:
    """``data`` as UTF-8 text (a leading BOM dropped); :class:`OpDefError` at the
    ``FILE:LINE:COLUMN`` of the first byte that is not UTF-8."""
    body = data[len(codecs.BOM_UTF8):] if data.startswith(codecs.BOM_UTF8) else data
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        line = body.count(b"\n", 0, e.start) + 1
        line_start = body.rfind(b"\n", 0, e.start) + 1
        column = len(body[line_start:e.start].decode("utf-8", "replace")) + 1
        raise OpDefError([Problem(f"{display}:{line}:{column}", "", (
            f"{what}: byte 0x{body[e.start]:02x} is not UTF-8 text"))]) from None


def syntax_problem(error: text_format.ParseError, text: str, display: str,
                   what: str) -> Problem:
    """A protobuf text-format error as a Problem located at ``FILE:LINE:COLUMN``."""
    line, column = error.GetLine(), error.GetColumn()
    # protobuf puts "LINE:COL : " in front, and for most errors the whole line it was
    # reading in quotes: the location says where, and a line can be very long.
    message = re.sub(r"^\d+:\d+\s*:\s*", "", str(error))
    if line is not None and 0 < line <= text.count("\n") + 1:
        echo = f"'{text.split(chr(10))[line - 1]}': "
        if message.startswith(echo):
            message = message[len(echo):]
    where = f"{display}:{line}:{column}" if line is not None else display
    return Problem(where, "", f"{what}: {message}")


def _parse_text(data: bytes, display: str) -> tuple[op_def_pb2.OpList, str]:
    if not _looks_like_text(data) and not _mostly_text(data):
        raise OpDefError([_binary_problem(data, display)])
    text = decode_text(data, display, "syntax error")
    oplist = op_def_pb2.OpList()
    parse_text_message(text, oplist, display, "syntax error")
    return oplist, text


def parse_text_message(text: str, message: Any, display: str, what: str) -> None:
    """Merges protobuf text `text` into `message`; :class:`OpDefError` at the
    ``FILE:LINE:COLUMN`` of what does not parse, including a value its field cannot
    hold (an enum number outside int32, an int64 out of range), which protobuf
    reports without a location."""
    try:
        if _LocatingParser is not None:
            _LocatingParser().ParseLines(text.split("\n"), message)
        else:  # pragma: no cover - a protobuf without the parser class
            text_format.Parse(text, message)
    except text_format.ParseError as e:
        raise OpDefError([syntax_problem(e, text, display, what)]) from None
    except ValueError as e:  # (only without _LocatingParser)
        raise OpDefError([Problem(display, "", f"{what}: {e}")]) from None


def _locating_parser() -> Any:
    """protobuf's text parser, with a value its field cannot hold reported as a
    ParseError at the value (protobuf raises a bare ValueError from setattr). None
    where this protobuf has no such class: then errors name the file only."""
    base = getattr(text_format, "_Parser", None)
    if base is None or not hasattr(base, "_MergeScalarField"):  # pragma: no cover
        return None

    class LocatingParser(base):  # type: ignore[valid-type,misc]  # a class found at run time
        def _MergeScalarField(self, tokenizer: Any, message: Any, field: Any) -> Any:
            try:
                return super()._MergeScalarField(tokenizer, message, field)
            except ValueError as e:  # ParseError is no ValueError: this is setattr's
                raise tokenizer.ParseErrorPreviousToken(
                    f"field '{field.name}': {e}") from None
    return LocatingParser


_LocatingParser = _locating_parser()


def _binary_problem(data: bytes, display: str) -> Problem:
    """What is wrong with ``data`` read as a binary OpList: the first op field (tag 1,
    length-delimited) that is not one, is cut short or does not parse as an OpDef."""
    pos, index, end = 0, 0, len(data)
    while pos < end:
        where = f"{display} (op #{index}, byte {pos})"
        tag, pos = _read_varint(data, pos)
        if tag != _OP_FIELD_TAG[0]:
            return Problem(where, "", "not a valid OpList: neither protobuf text format nor "
                                      "binary (where an op should start, there is none)")
        length, pos = _read_varint(data, pos)
        if length is None:
            return Problem(where, "", "not a valid binary OpList: the op's length is cut "
                                      "short (truncated or corrupt?)")
        if pos + length > end:
            return Problem(where, _wire_op_name(data[pos:end]), (
                f"not a valid binary OpList: the op needs {length} bytes, {end - pos} remain "
                "(truncated or corrupt?)"))
        body = data[pos:pos + length]
        try:
            op_def_pb2.OpDef.FromString(body)
        except _message.DecodeError as e:
            return Problem(where, _wire_op_name(body),
                           f"not a valid binary OpList: the op does not parse ({e}; corrupt?)")
        pos += length
        index += 1
    return Problem(display, "", "not a valid OpList (truncated or corrupt?)")


def _wire_op_name(body: bytes) -> str:
    """The name of a serialized OpDef whose first field is its name, as far as it can be
    read ("" when it cannot): to say which op is damaged."""
    if not body.startswith(b"\n"):
        return ""
    length, pos = _read_varint(body, 1)
    if length is None or pos + length > len(body):
        return ""
    return body[pos:pos + length].decode("utf-8", "replace")


def _read_varint(data: bytes, pos: int) -> tuple[int | None, int]:
    """The varint at ``pos`` and the position after it; None when ``data`` ends inside it."""
    value, shift = 0, 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
    return None, pos


def load_runtime_registry(library: str | Path | None = None) -> op_def_pb2.OpList:
    """The live op registry of the opgen runtime library, through ``TF_GetAllOpList``,
    without the runtime's internal ``_Opgen*`` ops.

    ``library`` defaults to :func:`opgen._paths.runtime_library_path`. Raises
    ``FileNotFoundError`` when there is no library, :class:`OpDefError` when the
    registry it returns is invalid.
    """
    from opgen import _paths

    path = Path(library) if library is not None else _paths.runtime_library_path()
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        raise FileNotFoundError(f"cannot load the runtime library {path}: {e}") from None

    class _TFBuffer(ctypes.Structure):  # TF_Buffer from tensorflow/c/tf_buffer.h
        _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t),
                    ("data_deallocator", ctypes.c_void_p)]

    lib.TF_GetAllOpList.restype = ctypes.POINTER(_TFBuffer)
    lib.TF_GetAllOpList.argtypes = []
    lib.TF_DeleteBuffer.restype = None
    lib.TF_DeleteBuffer.argtypes = [ctypes.POINTER(_TFBuffer)]
    buffer = lib.TF_GetAllOpList()
    if not buffer:
        raise OpDefError([Problem(str(path), "", "TF_GetAllOpList returned no buffer")])
    try:
        data = ctypes.string_at(buffer.contents.data, buffer.contents.length)
    finally:
        lib.TF_DeleteBuffer(buffer)
    oplist = op_def_pb2.OpList()
    try:
        oplist.ParseFromString(data)
    except _message.DecodeError as e:
        raise OpDefError([Problem(f"{path} (TF_GetAllOpList)", "", f"corrupt OpList: {e}")]) from e
    problems = validate_oplist(oplist, _binary_locator(f"{path} (TF_GetAllOpList)"))
    if problems:
        raise OpDefError(problems)
    # The runtime's own internal ops (the graph optimizer's fused kernels) are no part of
    # what a graph is built from: no binding gets them.
    public = [op for op in oplist.op if not op.name.startswith(RUNTIME_INTERNAL_PREFIX)]
    del oplist.op[:]
    oplist.op.extend(public)
    return oplist


#: Ops the opgen runtime registers for itself (the session optimizer's fused ops);
#: :func:`load_runtime_registry` leaves them out.
RUNTIME_INTERNAL_PREFIX = "_Opgen"


def sorted_oplist(oplist: op_def_pb2.OpList) -> op_def_pb2.OpList:
    """A copy of ``oplist`` with its ops sorted by name."""
    result = op_def_pb2.OpList()
    result.op.extend(sorted(oplist.op, key=lambda op: op.name))
    return result


def to_text(oplist: op_def_pb2.OpList) -> str:
    """Protobuf text format of ``oplist``, ops sorted by name (what ``opgen dump`` writes)."""
    return str(text_format.MessageToString(sorted_oplist(oplist)))


def to_binary(oplist: op_def_pb2.OpList, *, canonical: bytes | None = None) -> bytes:
    """Binary ``oplist``, ops sorted by name: the bytes of
    ``sorted_oplist(oplist).SerializeToString(deterministic=True)``, without copying the ops.

    An OpList has no field but ``op`` (1), so its wire format is each op as a
    length-delimited field 1: the tag byte, the length as a varint, the op's bytes.
    Serializing the whole list is one call, where serializing op by op is one per op;
    its fields are then put in name order. ``canonical`` is that one call's result
    (``opdef_wire.canonical_bytes(oplist)``) where the caller has it.
    """
    data = opdef_wire.canonical_bytes(oplist) if canonical is None else canonical
    names = [op.name for op in oplist.op]
    fields = _op_fields(data)
    if fields is None or len(fields) != len(names):   # unknown fields beside the ops
        return b"".join(_OP_FIELD_TAG + _varint(len(body)) + body
                        for body in (op.SerializeToString(deterministic=True)
                                     for op in sorted(oplist.op, key=_op_name)))
    return b"".join([fields[i] for i in sorted(range(len(names)), key=names.__getitem__)])


def _op_fields(data: bytes) -> list[bytes] | None:
    """The op fields of a serialized OpList, each with its tag and length; None when
    ``data`` holds a field that is not an op."""
    fields = []
    pos, end = 0, len(data)
    while pos < end:
        if data[pos] != _OP_FIELD_TAG[0]:
            return None
        start, length, shift = pos + 1, 0, 0
        while True:   # the length varint
            byte = data[start]
            start += 1
            length |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        fields.append(data[pos:start + length])
        pos = start + length
    return fields


_OP_FIELD_TAG = bytes([1 << 3 | 2])   # field 1, wire type 2 (length-delimited)
_op_name = operator.attrgetter("name")


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


# ------------------------------------------------------------------------- locations

Locator = Callable[[int, str], str]   # (index in OpList, op name) -> location


def _binary_locator(display: str) -> Locator:
    return lambda index, name: f"{display} (op #{index})"


def _text_locator(text: str, display: str) -> Locator:
    positions: list[tuple[int, int]] = []

    def locate(index: int, name: str) -> str:
        # Scanning the text for op blocks costs ~50 ms on TensorFlow's registry: done
        # once, on the first problem, never for a valid OpList.
        if not positions:
            positions.extend(op_block_positions(text))
        if index < len(positions):
            line, col = positions[index]
            return f"{display}:{line}:{col}"
        return display
    return locate


def op_block_positions(text: str, key: str = "name") -> list[tuple[int, int]]:
    """1-based (line, column) of each top-level ``op`` block's ``key`` field, in order.

    A small scanner: tracks nesting depth outside strings and comments, and notes the
    ``key`` token at depth 1 (inside ``op { ... }``); an op without one is located at
    its ``op`` token. ApiDef files use ``key="graph_op_name"``.
    """
    positions: list[tuple[int, int]] = []
    depth = 0
    named = True
    token = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[{}<>]|[A-Za-z_][A-Za-z0-9_]*')
    for lineno, line in enumerate(text.splitlines(), start=1):
        for m in token.finditer(line):
            tok = m.group()
            if tok in "{<":
                depth += 1
            elif tok in "}>":
                depth -= 1
            elif depth == 0 and tok == "op":
                positions.append((lineno, m.start() + 1))
                named = False
            elif depth == 1 and tok == key and not named:
                positions[-1] = (lineno, m.start() + 1)
                named = True
    return positions


# ------------------------------------------------------------------------ validation


def validate_oplist(oplist: op_def_pb2.OpList, locate: Locator | None = None) -> list[Problem]:
    """Every problem in ``oplist``; an empty list means it is fine."""
    return _problems(oplist, opdef_wire.wire_ops(oplist), locate or (lambda index, name: ""))


def _problems(oplist: op_def_pb2.OpList, wire_ops: Sequence[Any], locate: Locator) -> list[Problem]:
    """:func:`validate_oplist`, with ``wire_ops`` the ops of ``oplist`` as ``OpDefWire``."""
    problems: list[Problem] = []
    first_seen: dict[str, int] = {}
    names = _ValidNames()
    checked = _CheckedParts(names)
    for index, op in enumerate(wire_ops):
        name = op.name
        duplicate_of = first_seen.setdefault(name, index)
        if duplicate_of == index and _OP_NAME.match(name) and checked.op_is_valid(op):
            continue   # the common case: no messages, no location to compute
        messages = validate_opdef(oplist.op[index], names)
        if duplicate_of == index and not messages:
            continue
        where = locate(index, name)
        shown = name or f"#{index}"   # a nameless op is known by its index
        if duplicate_of != index:
            problems.append(Problem(where, shown, (
                f"duplicate op name (first defined at "
                f"{locate(duplicate_of, name) or f'op #{duplicate_of}'})")))
        problems.extend(Problem(where, shown, message) for message in messages)
    return problems


class _CheckedParts:
    """Whether an op is valid, from its ``OpDefWire``: each distinct arg and attr (by its
    bytes) is checked once, and an op then costs dict lookups and its cross-checks (names
    distinct, the attrs its args name exist with the right type). Says only valid or
    not: :func:`validate_opdef` describes the problems of an op that is not.
    """

    def __init__(self, names: _ValidNames) -> None:
        self.names = names
        # bytes -> (name, role) of a valid attr, else False; role: its type, or "count"
        # for an int with a minimum >= 0 (what a number_attr needs)
        self.attrs: dict[bytes, tuple[str, str] | bool] = {}
        # bytes -> (name, ((attr name, role it needs), ...)) of a valid arg, else False
        self.args: dict[bytes, tuple[str, tuple[tuple[str, str], ...]] | bool] = {}

    def op_is_valid(self, op: Any) -> bool:
        attr_facts, arg_facts = self.attrs, self.args
        # [:] makes the list in one call, where iterating a upb container ends in a
        # formatted IndexError. A part cached as invalid (False) is checked again by
        # `or`: its op takes the slow path anyway.
        found = [attr_facts.get(key) or self._attr(key) for key in op.attr[:]]
        if False in found:
            return False
        roles = dict(found)  # type: ignore[arg-type]  # no False left in it
        if len(roles) != len(found):
            return False   # a duplicate attr name
        seen = set(roles)
        for key in op.input_arg[:] + op.output_arg[:]:
            facts = arg_facts.get(key) or self._arg(key)
            if not facts:
                return False
            name, needs = facts  # type: ignore[misc]  # a tuple: False returned above
            if name in seen:
                return False
            seen.add(name)
            for attr_name, role in needs:
                if roles.get(attr_name) != role:
                    return False
        return True

    def _attr(self, key: bytes) -> tuple[str, str] | bool:
        attr = op_def_pb2.OpDef.AttrDef.FromString(key)
        facts: tuple[str, str] | bool = False
        if not _validate_attr(attr, self.names):
            role = attr.type
            if role == "int" and attr.has_minimum and attr.minimum >= 0:
                role = "count"
            facts = (attr.name, role)
        self.attrs[key] = facts
        return facts

    def _arg(self, key: bytes) -> tuple[str, tuple[tuple[str, str], ...]] | bool:
        arg = op_def_pb2.OpDef.ArgDef.FromString(key)
        type_attr, number_attr, type_list_attr = arg.type_attr, arg.number_attr, arg.type_list_attr
        facts: tuple[str, tuple[tuple[str, str], ...]] | bool = False
        if (self.names.arg(arg.name) and (arg.type == 0 or arg.type in _DATA_TYPES)
                and (arg.type != 0) + bool(type_attr) + bool(type_list_attr) == 1
                and not (number_attr and type_list_attr)):
            needs = []
            if type_attr:
                needs.append((type_attr, "type"))
            if number_attr:
                needs.append((number_attr, "count"))
            if type_list_attr:
                needs.append((type_list_attr, "list(type)"))
            facts = (arg.name, tuple(needs))
        self.args[key] = facts
        return facts


class _ValidNames:
    """Arg and attr names found valid so far in one validation: a registry repeats the
    same ones ("T", "x", "output") thousands of times, and a set lookup is much cheaper
    than a regex match."""

    def __init__(self) -> None:
        self.args: set[str] = set()
        self.attrs: set[str] = set()

    def arg(self, name: str) -> bool:
        return name in self.args or self._check(_ARG_NAME, self.args, name)

    def attr(self, name: str) -> bool:
        return name in self.attrs or self._check(_ATTR_NAME, self.attrs, name)

    @staticmethod
    def _check(pattern: re.Pattern[str], valid: set[str], name: str) -> bool:
        if pattern.match(name) is None:
            return False
        valid.add(name)
        return True


# attr type -> (is a list, element type, the AttrValue field its values live in)
_ATTR_TYPE_PARTS = {t: (t.startswith("list("), t[5:-1] if t.startswith("list(") else t,
                        _VALUE_FIELD[t[5:-1] if t.startswith("list(") else t])
                    for t in ATTR_TYPES}
# An arg's fields that name attrs, and the type the attr they name must have.
_ARG_ATTR_FIELDS = (("type_attr", "type"), ("number_attr", "int"), ("type_list_attr", "list(type)"))


def validate_opdef(op: op_def_pb2.OpDef, _names: _ValidNames | None = None) -> list[str]:
    """Messages describing what is wrong with one OpDef (empty when it is valid)."""
    names = _names or _ValidNames()
    valid_args = names.args
    errors: list[str] = []
    if not _OP_NAME.match(op.name):
        errors.append(f"invalid op name {op.name!r}: expected CamelCase letters, digits, "
                      "'_' and '>' namespace separators")
    attrs = {}
    for attr in op.attr:
        name = attr.name
        if name in attrs:
            errors.append(f"duplicate name '{name}' (attr)")
        attrs[name] = attr
        attr_errors = _validate_attr(attr, names)
        if attr_errors:
            errors.extend(attr_errors)
    seen = set(attrs)
    for kind, args in (("input", op.input_arg), ("output", op.output_arg)):
        for arg in args:
            name = arg.name
            if name in seen:
                errors.append(f"duplicate name '{name}' ({kind} arg)")
            seen.add(name)
            # The common case needs no more checks: a known-good name, one tensor of a
            # fixed type or of a 'type' attr.
            type_attr = arg.type_attr
            if (name in valid_args and not arg.number_attr and not arg.type_list_attr
                    and (arg.type in _DATA_TYPES and not type_attr if arg.type else type_attr)
                    and (not type_attr or (type_attr in attrs and attrs[type_attr].type == "type"))):
                continue
            errors.extend(_validate_arg(kind, arg, attrs, names))
    return errors


def _validate_arg(kind: str, arg: op_def_pb2.OpDef.ArgDef, attrs: dict[str, Any],
                  names: _ValidNames) -> list[str]:
    name = arg.name
    has_type = arg.type != 0
    type_attr, number_attr, type_list_attr = arg.type_attr, arg.number_attr, arg.type_list_attr
    valid_name = names.arg(name)
    errors = []
    what = f"{kind} '{name}'"
    if not valid_name:
        errors.append(f"{what}: invalid name, expected lower_case letters, digits and '_'")
    type_sources = [field for field, present in (("type", has_type), ("type_attr", type_attr),
                                                 ("type_list_attr", type_list_attr)) if present]
    if len(type_sources) != 1:
        errors.append(f"{what}: needs exactly one of 'type', 'type_attr' and 'type_list_attr'"
                      f" (has {', '.join(type_sources) or 'none'})")
    if number_attr and type_list_attr:
        errors.append(f"{what}: 'number_attr' and 'type_list_attr' cannot be combined")
    if has_type and arg.type not in _DATA_TYPES:
        errors.append(f"{what}: type {arg.type} is not a DataType")
    for (field, wanted), attr_name in zip(_ARG_ATTR_FIELDS, (type_attr, number_attr, type_list_attr)):
        if not attr_name:
            continue
        attr = attrs.get(attr_name)
        if attr is None:
            errors.append(f"{what}: {field} '{attr_name}' names no attr of this op")
        elif attr.type != wanted:
            errors.append(f"{what}: {field} '{attr_name}' must name a '{wanted}' attr, "
                          f"but it is '{attr.type}'")
        elif field == "number_attr" and (not attr.has_minimum or attr.minimum < 0):
            errors.append(f"{what}: number_attr '{attr_name}' needs a minimum >= 0")
    return errors


def _validate_attr(attr: op_def_pb2.OpDef.AttrDef, names: _ValidNames) -> list[str]:
    name = attr.name
    if name not in names.attrs and not names.attr(name):
        return [f"attr '{attr.name}': invalid name, expected letters, digits and '_'"]
    parts = _ATTR_TYPE_PARTS.get(attr.type)
    if parts is None:
        return [f"attr '{attr.name}': unknown attr type '{attr.type}' "
                f"(known: {', '.join(sorted(ATTR_TYPES))})"]
    is_list, element, field = parts
    has_minimum = attr.has_minimum
    has_allowed = attr.HasField("allowed_values")
    has_default = attr.HasField("default_value")
    if not (has_minimum or has_allowed or has_default):
        return []
    what = f"attr '{attr.name}'"
    errors = []
    if has_minimum and element != "int" and not is_list:
        errors.append(f"{what}: a minimum only applies to 'int' and list attrs, not '{attr.type}'")
    if has_allowed:
        if element not in ("type", "string"):
            errors.append(f"{what}: allowed_values only apply to type and string attrs")
        elif attr.allowed_values.WhichOneof("value") != "list":
            errors.append(f"{what}: allowed_values must be a list")
        elif element == "type":
            errors.extend(f"{what}: allowed value {value} is not a DataType"
                          for value in attr.allowed_values.list.type if value not in _DATA_TYPES)
    if not has_default:
        return errors
    default = attr.default_value
    kind = default.WhichOneof("value")
    expected = "list" if is_list else field
    if kind != expected:
        errors.append(f"{what}: default_value must hold a '{attr.type}' value, not '{kind}'")
        return errors
    if is_list:
        values = list(getattr(default.list, field))
        # ListFields gives the set fields in field-number order, which is _VALUE_FIELD's.
        other = [d.name for d, _ in default.list.ListFields() if d.name != field]
        if other:
            errors.append(f"{what}: list default holds '{other[0]}' values, not '{element}'")
    else:
        values = [getattr(default, field)]
    if element == "type":
        errors.extend(f"{what}: default {value} is not a DataType"
                      for value in values if value not in _DATA_TYPES)
    if has_allowed and element in ("type", "string"):
        allowed = list(getattr(attr.allowed_values.list, field))
        for value in values:
            if value not in allowed:
                errors.append(f"{what}: default {_show(element, value)} is not among the "
                              f"allowed values {', '.join(_show(element, a) for a in allowed)}")
    if has_minimum:
        if is_list and len(values) < attr.minimum:
            errors.append(f"{what}: default has {len(values)} elements, fewer than the "
                          f"minimum {attr.minimum}")
        elif not is_list and element == "int" and values[0] < attr.minimum:
            errors.append(f"{what}: default {values[0]} is below the minimum {attr.minimum}")
    return errors


def _show(element: str, value: Any) -> str:
    if element == "type":
        try:
            return str(types_pb2.DataType.Name(value))
        except ValueError:
            return str(value)
    if element == "string":
        return repr(value.decode("utf-8", "backslashreplace"))
    return repr(value)
