"""Loading OpLists from text, binary, stdin and bytes, told apart by content; every
problem reported with the op name and, for text, FILE:LINE:COL."""

from __future__ import annotations

import io

import pytest

from opgen import opdefs
from opgen.protos import op_def_pb2

GOOD = '''\
op {
  name: "MatMul"
  input_arg { name: "a" type_attr: "T" }
  input_arg { name: "b" type_attr: "T" }
  output_arg { name: "product" type_attr: "T" }
  attr { name: "transpose_a" type: "bool" default_value { b: false } }
  attr { name: "T" type: "type" allowed_values { list { type: [DT_FLOAT, DT_DOUBLE] } } }
}
op {
  name: "NoOp"
}
'''


def test_text_and_binary_are_told_apart_by_content_not_extension(pbtxt):
    text_oplist = opdefs.load(pbtxt(GOOD, name="ops.pb"))
    binary_path = pbtxt("", name="ops.pbtxt")
    binary_path.write_bytes(text_oplist.SerializeToString())
    binary_oplist = opdefs.load(binary_path)
    assert [op.name for op in text_oplist.op] == ["MatMul", "NoOp"]
    assert binary_oplist == text_oplist
    assert opdefs.load(text_oplist.SerializeToString()) == text_oplist
    assert opdefs.load(GOOD.encode()) == text_oplist


def test_dash_reads_stdin(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(GOOD.encode())))
    assert len(opdefs.load("-").op) == 2


def test_empty_input_is_an_empty_oplist():
    assert len(opdefs.load(b"").op) == 0


def test_text_syntax_error_carries_file_line_column(pbtxt):
    path = pbtxt('op {\n  name: "A"\n  input_arg { name: "x" typo: DT_FLOAT }\n}\n')
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(path)
    [problem] = info.value.problems
    assert str(problem).startswith(f"{path}:3:")
    assert "typo" in str(problem)


def test_truncated_binary_is_refused():
    data = opdefs.load(GOOD.encode()).SerializeToString()
    with pytest.raises(opdefs.OpDefError, match="truncated or corrupt"):
        opdefs.load(data[:-7])


def test_missing_file_is_an_opdef_error(tmp_path):
    with pytest.raises(opdefs.OpDefError, match="cannot read"):
        opdefs.load(tmp_path / "absent.pbtxt")


BAD = '''\
op {
  name: "UndefinedAttr"
  input_arg { name: "x" type_attr: "T" }
}
op {
  name: "WrongKinds"
  input_arg { name: "x" type_attr: "N" }
  input_arg { name: "y" type: DT_FLOAT number_attr: "T" }
  input_arg { name: "z" type_list_attr: "T" }
  attr { name: "N" type: "int" has_minimum: true minimum: 1 }
  attr { name: "T" type: "type" }
}
op {
  name: "BadDefaults"
  attr { name: "T" type: "type" default_value { type: DT_INT32 }
         allowed_values { list { type: [DT_FLOAT] } } }
  attr { name: "mode" type: "string" default_value { s: "x" }
         allowed_values { list { s: ["a", "b"] } } }
  attr { name: "k" type: "int" default_value { i: 0 } has_minimum: true minimum: 1 }
  attr { name: "wrong" type: "int" default_value { f: 1.0 } }
  attr { name: "kind" type: "complex" }
}
op {
  name: "Duplicates"
  input_arg { name: "x" type: DT_FLOAT }
  output_arg { name: "x" type: DT_FLOAT }
  attr { name: "a" type: "int" }
  attr { name: "a" type: "int" }
}
op {
  name: "NoType"
  input_arg { name: "x" }
}
op {
  name: "NoOp"
}
op {
  name: "NoOp"
}
'''


@pytest.fixture
def bad_problems(pbtxt):
    path = pbtxt(BAD)
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(path)
    return path, [str(p) for p in info.value.problems]


def _lines_about(problems, op):
    return [p for p in problems if f"op '{op}'" in p]


def test_every_problem_is_reported_with_op_and_location(bad_problems):
    path, problems = bad_problems
    assert len(problems) >= 12
    [undefined] = _lines_about(problems, "UndefinedAttr")
    assert undefined.startswith(f"{path}:2:3: op 'UndefinedAttr':")
    assert "type_attr 'T' names no attr" in undefined
    assert all(p.startswith(f"{path}:6:3:") for p in _lines_about(problems, "WrongKinds"))


def test_arg_attr_references_must_have_the_right_kind(bad_problems):
    _, problems = bad_problems
    text = "\n".join(_lines_about(problems, "WrongKinds"))
    assert "input 'x': type_attr 'N' must name a 'type' attr, but it is 'int'" in text
    assert "input 'y': number_attr 'T' must name a 'int' attr" in text
    assert "input 'z': type_list_attr 'T' must name a 'list(type)' attr" in text


def test_defaults_must_be_allowed_and_above_minimum(bad_problems):
    path, problems = bad_problems
    text = "\n".join(_lines_about(problems, "BadDefaults"))
    assert "attr 'T': default DT_INT32 is not among the allowed values DT_FLOAT" in text
    assert "attr 'mode': default 'x' is not among the allowed values 'a', 'b'" in text
    assert "attr 'k': default 0 is below the minimum 1" in text
    assert "attr 'wrong': default_value must hold a 'int' value, not 'f'" in text
    assert "attr 'kind': unknown attr type 'complex'" in text
    assert all(p.startswith(f"{path}:14:3:") for p in _lines_about(problems, "BadDefaults"))


def test_duplicates_and_missing_types(bad_problems):
    path, problems = bad_problems
    text = "\n".join(problems)
    assert "op 'Duplicates': duplicate name 'x' (output arg)" in text
    assert "op 'Duplicates': duplicate name 'a' (attr)" in text
    assert "op 'NoType': input 'x': needs exactly one of 'type', 'type_attr'" in text
    [dup] = [p for p in problems if "duplicate op name" in p]
    assert dup.startswith(f"{path}:38:3: op 'NoOp': duplicate op name (first defined at {path}:35:3)")


def test_binary_input_problems_name_the_op_and_its_index():
    oplist = op_def_pb2.OpList()
    op = oplist.op.add(name="Broken")
    op.input_arg.add(name="x", type_attr="T")
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(oplist.SerializeToString())
    assert str(info.value) == "<bytes> (op #0): op 'Broken': input 'x': type_attr 'T' names no attr of this op"


def test_location_scanner_ignores_braces_and_names_in_strings_and_comments(pbtxt):
    path = pbtxt('# op { name: "Fake" }\nop {\n  summary: "a { op name: }"\n'
                 '  input_arg { name: "x" type_attr: "T" }\n  name: "Real"\n}\n')
    with pytest.raises(opdefs.OpDefError) as info:
        opdefs.load(path)
    assert str(info.value).startswith(f"{path}:5:3: op 'Real':")


def test_dump_text_is_sorted_and_round_trips():
    oplist = opdefs.load(GOOD.encode())
    reversed_list = op_def_pb2.OpList()
    reversed_list.op.extend(reversed(oplist.op))
    text = opdefs.to_text(reversed_list)
    assert text == opdefs.to_text(oplist)
    assert opdefs.load(text.encode()) == oplist
    assert opdefs.load(opdefs.to_binary(reversed_list)) == oplist


def test_text_with_a_byte_order_mark_loads():
    assert len(opdefs.load(b"\xef\xbb\xbf" + GOOD.encode()).op) == 2


def test_to_binary_is_the_sorted_oplist_serialized(tf_oplist_path):
    from opgen import _paths
    for path in (_paths.bundled_ops_path(), tf_oplist_path):
        oplist = opdefs.load(path)
        expected = opdefs.sorted_oplist(oplist).SerializeToString(deterministic=True)
        assert opdefs.to_binary(oplist) == expected
        assert op_def_pb2.OpList.FromString(expected) == opdefs.sorted_oplist(oplist)


def test_wire_ops_hold_each_arg_and_attr_serialized(tf_oplist_path):
    from opgen import opdef_wire
    oplist = opdefs.load(tf_oplist_path)
    wire = opdef_wire.wire_ops(oplist)
    assert len(wire) == len(oplist.op)
    for op, wire_op in zip(oplist.op, wire):
        assert wire_op.name == op.name and wire_op.summary == op.summary
        for field in ("input_arg", "output_arg", "attr"):
            assert list(getattr(wire_op, field)) == [
                part.SerializeToString(deterministic=True) for part in getattr(op, field)]
        assert wire_op.HasField("deprecation") == op.HasField("deprecation")
    deprecated = next(op for op in oplist.op if op.HasField("deprecation"))
    empty = op_def_pb2.OpList(op=[op_def_pb2.OpDef(name="Old", deprecation={})])
    assert opdef_wire.wire_ops(empty)[0].HasField("deprecation")   # present though empty
    assert deprecated.deprecation.version > 0


def _broken_copies(oplist, seed: int, count: int):
    """OpLists of 30 ops of ``oplist``, each with a few random breakages."""
    import random
    rng = random.Random(seed)
    ops = list(oplist.op)
    for _ in range(count):
        sub = op_def_pb2.OpList(op=rng.sample(ops, 30))
        for _ in range(rng.randrange(1, 8)):
            op = sub.op[rng.randrange(len(sub.op))]
            args = op.input_arg if op.input_arg and rng.random() < 0.5 else op.output_arg
            arg = args[rng.randrange(len(args))] if args else None
            attr = op.attr[rng.randrange(len(op.attr))] if op.attr else None
            change = rng.randrange(10)
            if change == 0:
                op.name = rng.choice(["bad name", "Add", ops[rng.randrange(len(ops))].name])
            elif attr is not None and change == 1:
                attr.name = rng.choice(["1x", "T", "x", ""])
            elif attr is not None and change == 2:
                attr.type = rng.choice(["int", "type", "list(type)", "bogus", "float"])
            elif attr is not None and change == 3:
                attr.has_minimum, attr.minimum = rng.random() < 0.7, rng.choice([-1, 0, 2])
            elif attr is not None and change == 4:
                attr.default_value.type = rng.choice([1, 2, 9])
            elif attr is not None and change == 5:
                del op.attr[rng.randrange(len(op.attr))]
            elif arg is not None and change == 6:
                arg.name = rng.choice(["X", "x", "output", "T"])
            elif arg is not None and change == 7:
                arg.type = rng.choice([0, 1])
            elif arg is not None and change == 8:
                arg.number_attr = rng.choice(["", "N", "T"])
            elif arg is not None:
                arg.type_list_attr = rng.choice(["", "T", "Tout"])
        yield sub


def test_validation_reports_what_validate_opdef_reports_for_each_op(tf_oplist_path):
    # validate_oplist decides most ops valid without validate_opdef (each distinct arg
    # and attr checked once); it must never pass an op validate_opdef finds fault with.
    seen = 0
    for oplist in _broken_copies(opdefs.load(tf_oplist_path), seed=4, count=80):
        expected, first = [], {}
        for index, op in enumerate(oplist.op):
            duplicate_of = first.setdefault(op.name, index)
            if duplicate_of != index:
                expected.append(f"op '{op.name}': duplicate op name (first defined at op #{duplicate_of})")
            expected += [f"op '{op.name or f'#{index}'}': {m}" for m in opdefs.validate_opdef(op)]
        assert [str(p) for p in opdefs.validate_oplist(oplist)] == expected
        seen += len(expected)
    assert seen > 200
