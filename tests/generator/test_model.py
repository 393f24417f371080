"""OpSpec splits attrs into inferred, required and optional, in the caller's order,
and classifies each argument."""

from __future__ import annotations

import dataclasses

import pytest
from google.protobuf import text_format

from opgen import opdefs
from opgen.model import NO_DEFAULT, ArgKind, OpSpec, op_specs
from opgen.protos import op_def_pb2

CONCAT = '''
    name: "ConcatLike"
    input_arg { name: "values" type_attr: "T" number_attr: "N" }
    input_arg { name: "axis" type_attr: "Tidx" }
    input_arg { name: "extras" type_list_attr: "Tlist" }
    output_arg { name: "output" type_attr: "T" }
    output_arg { name: "shape" type: DT_INT32 }
    attr { name: "N" type: "int" has_minimum: true minimum: 2 }
    attr { name: "T" type: "type" }
    attr { name: "out_type" type: "type" }
    attr { name: "mode" type: "string" default_value { s: "fast" } allowed_values { list { s: ["fast", "slow"] } } }
    attr { name: "Tidx" type: "type" default_value { type: DT_INT32 } }
    attr { name: "Tlist" type: "list(type)" }
    attr { name: "count" type: "int" }
'''


def _spec(text=CONCAT) -> OpSpec:
    return OpSpec.from_opdef(text_format.Parse(text, op_def_pb2.OpDef()))


def test_attrs_split_into_inferred_required_and_optional_in_opdef_order():
    spec = _spec()
    assert [a.name for a in spec.inferred_attrs] == ["N", "T", "Tidx", "Tlist"]
    assert [a.name for a in spec.required_attrs] == ["out_type", "count"]
    assert [a.name for a in spec.optional_attrs] == ["mode"]
    assert [a.name for a in spec.caller_attrs] == ["out_type", "count", "mode"]
    assert spec.attr("N").inferred_from == ("values",)
    assert spec.attr("T").inferred_from == ("values",)


def test_attr_details():
    spec = _spec()
    assert spec.attr("N").minimum == 2
    assert spec.attr("count").default is NO_DEFAULT
    assert spec.attr("mode").default == "fast"
    assert spec.attr("mode").allowed_values == ("fast", "slow")
    assert spec.attr("Tidx").default.name == "int32"


def test_arg_kinds():
    spec = _spec()
    kinds = {a.name: a.kind for a in spec.inputs + spec.outputs}
    assert kinds == {"values": ArgKind.NUMBER_LIST, "axis": ArgKind.SINGLE,
                     "extras": ArgKind.TYPE_LIST, "output": ArgKind.SINGLE,
                     "shape": ArgKind.SINGLE}
    assert spec.outputs[1].fixed_type.name == "int32"
    assert spec.inputs[0].type_attr == "T" and spec.inputs[0].number_attr == "N"


def test_op_specs_are_sorted_by_name_and_frozen():
    oplist = text_format.Parse('op { name: "B" } op { name: "A" } op { name: "_C" }',
                               op_def_pb2.OpList())
    specs = op_specs(oplist)
    assert [s.name for s in specs] == ["A", "B", "_C"]
    try:
        specs[0].name = "X"
    except AttributeError:
        pass
    else:
        raise AssertionError("OpSpec must be frozen")


def test_docs_and_flags_carry_over():
    spec = _spec('''
        name: "Old" summary: "Does it." description: "At length."
        deprecation { version: 12 explanation: "Use New." }
        is_stateful: true is_commutative: true
    ''')
    assert (spec.summary, spec.description) == ("Does it.", "At length.")
    assert spec.deprecation.version == 12 and spec.deprecation.explanation == "Use New."
    assert spec.is_stateful and spec.is_commutative and not spec.is_aggregate


# --- the fast paths of op_specs build the same specs the plain constructors would


@pytest.fixture(params=["bundled", "tensorflow"])
def registry(request):
    from opgen import _paths, opdefs
    if request.param == "bundled":
        return opdefs.load(_paths.bundled_ops_path())
    return opdefs.load(request.getfixturevalue("tf_oplist_path"))


def _rebuilt(record):
    """``record`` made again through its dataclass constructor."""
    return dataclasses.replace(record)


def test_specs_hold_every_field_and_equal_constructor_built_ones(registry):
    for spec in op_specs(registry):
        for record in (spec, *spec.inputs, *spec.outputs, *spec.inferred_attrs, *spec.caller_attrs):
            assert {f.name for f in dataclasses.fields(record)} <= set(vars(record))
            assert _rebuilt(record) == record
        assert spec.caller_attrs == spec.required_attrs + spec.optional_attrs
        assert spec.signature_inputs == spec.inputs   # no ApiDef reorders them
        for attr in spec.inferred_attrs + spec.caller_attrs:
            assert attr.is_list == attr.type.startswith("list(")
            assert attr.element_type == (attr.type[5:-1] if attr.is_list else attr.type)


def test_op_specs_share_identical_arg_and_attr_specs(registry):
    specs = op_specs(registry)
    alone = sorted((OpSpec.from_opdef(op) for op in registry.op), key=lambda s: s.name)
    assert specs == alone
    attrs = [a for s in specs for a in s.inferred_attrs + s.caller_attrs]
    args = [a for s in specs for a in s.inputs + s.outputs]
    assert len({id(a) for a in attrs}) < len(attrs) and len({id(a) for a in args}) < len(args)
    # a shared attr is only shared by ops whose inputs infer it the same way
    for spec in specs:
        for attr in spec.inferred_attrs:
            assert set(attr.inferred_from) <= {a.name for a in spec.inputs}


def test_specs_share_identical_args_and_attrs_across_ops():
    """One object per distinct ArgDef / AttrDef, and one per attr and the inputs it is
    inferred from."""
    two_ops = """
    op { name: "Neg" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
         attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
         attr { name: "keep" type: "bool" default_value { b: true } } }
    op { name: "Abs" input_arg { name: "x" type_attr: "T" } output_arg { name: "y" type_attr: "T" }
         attr { name: "T" type: "type" allowed_values { list { type: DT_FLOAT type: DT_INT32 } } }
         attr { name: "keep" type: "bool" default_value { b: true } } }
    """
    specs = {s.name: s for s in op_specs(opdefs.load(two_ops.encode()))}
    neg, abs_ = specs["Neg"], specs["Abs"]
    assert neg.inputs[0] is abs_.inputs[0] and neg.outputs[0] is abs_.outputs[0]
    assert neg.inferred_attrs[0] is abs_.inferred_attrs[0]
    assert neg.optional_attrs[0] is abs_.optional_attrs[0]
    assert neg.inferred_attrs[0].inferred_from == ("x",)


@pytest.fixture
def api_def_specs(tmp_path):
    from opgen import api_def

    from .test_bad_input import API_DEFS, MATMUL_OPS

    extra = 'op { name: "Plain" input_arg { name: "x" type: DT_FLOAT } }\n'
    oplist = opdefs.load((MATMUL_OPS + extra).encode())
    (tmp_path / "api.pbtxt").write_text(API_DEFS)
    api_defs = api_def.load([tmp_path / "api.pbtxt"])
    return oplist, api_defs, {s.name: s for s in op_specs(oplist, api_defs)}


def test_specs_with_api_defs_hold_every_field(api_def_specs):
    """The one builder fills every field of every record, with ApiDefs or without: a
    field added to a record but not to model.build_spec fails here (and in
    test_specs_hold_every_field_and_equal_constructor_built_ones)."""
    _, _, specs = api_def_specs
    for spec in specs.values():
        for record in (spec, *spec.inputs, *spec.outputs, *spec.inferred_attrs, *spec.caller_attrs):
            assert {f.name for f in dataclasses.fields(record)} <= set(vars(record))
            assert _rebuilt(record) == record
    matmul = specs["MatMul"]
    assert matmul.endpoints == ("linalg.MatrixProduct", "Dot")
    assert [a.public_name for a in matmul.signature_inputs] == ["right", "left"]
    assert [a.name for a in matmul.inputs] == ["a", "b"]   # OpDef order, what runs
    assert matmul.inputs[1].description == "The right factor."
    assert matmul.summary == "Multiplies two matrices."
    assert matmul.optional_attrs[0].default is True        # the ApiDef's default
    assert matmul.inferred_attrs[0].inferred_from == ("a", "b")
    assert specs["Scale"].visibility == "HIDDEN" and specs["Plain"].visibility == "VISIBLE"
    assert specs["Scale"].required_attrs == ()                # a default makes it optional
    assert specs["Scale"].optional_attrs[0].public_name == "by"


def test_from_opdef_builds_as_op_specs_does(api_def_specs):
    oplist, api_defs, specs = api_def_specs
    for op in oplist.op:
        alone = OpSpec.from_opdef(op, api_defs.get(op.name))
        assert alone == specs[op.name] and repr(alone) == repr(specs[op.name])


def test_op_specs_checks_api_defs_against_the_oplist(api_def_specs):
    oplist, api_defs, _ = api_def_specs
    del oplist.op[0]   # MatMul, which an ApiDef names
    with pytest.raises(opdefs.OpDefError, match="MatMul.*not in the OpList"):
        op_specs(oplist, api_defs)
