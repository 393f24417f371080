"""``OpSpec``: the language-neutral view of one op that every language layer reads.

Built once per op from a validated ``OpDef`` (see :mod:`opgen.opdefs`). It answers
the questions every target language asks: which inputs are lists and of what kind,
which attrs the caller never passes (they follow from the inputs), which ones the
caller must pass, and which ones have defaults, in the order the caller sees them.
Attr values are plain Python values (or the small value classes below), never protos.
"""

from __future__ import annotations

import enum
import functools
import math
import operator
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from opgen import opdef_wire
from opgen.api_def import validate as validate_api_defs
from opgen.api_def import visibility as api_def_visibility
from opgen.opdefs import OpDefError
from opgen.protos import op_def_pb2, types_pb2

if TYPE_CHECKING:
    from opgen.api_def import ApiDefSet
    from opgen.protos import api_def_pb2


class ArgKind(enum.Enum):
    SINGLE = "single"            # one tensor
    NUMBER_LIST = "number_list"  # N tensors of one type (number_attr)
    TYPE_LIST = "type_list"      # tensors of a list of types (type_list_attr)


@dataclass(frozen=True)
class DType:
    """A ``DataType`` value: its enum number and the name Python users know (``float32``)."""

    enum: int
    name: str

    @classmethod
    def from_enum(cls, value: int) -> DType:
        return _dtype(value)


@dataclass(frozen=True)
class Shape:
    """A ``TensorShapeProto``: ``dims`` is None for an unknown rank; None dims are unknown."""

    dims: tuple[int | None, ...] | None


@dataclass(frozen=True)
class TensorValue:
    """A ``TensorProto`` default: dtype, shape and the values in row-major order."""

    dtype: DType
    shape: tuple[int, ...]
    values: tuple[Any, ...]


@dataclass(frozen=True)
class FuncValue:
    """A ``NameAttrList``: a function name (its attrs are not needed for defaults)."""

    name: str


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


#: ``AttrSpec.default`` of an attr the caller must pass.
NO_DEFAULT: Any = _NoDefault()


@dataclass(frozen=True)
class ArgSpec:
    name: str
    kind: ArgKind
    type_attr: str | None = None        # the 'type' attr giving this arg's dtype
    fixed_type: DType | None = None     # the dtype when the OpDef fixes it
    number_attr: str | None = None      # NUMBER_LIST: the 'int' attr counting tensors
    type_list_attr: str | None = None   # TYPE_LIST: the 'list(type)' attr
    is_ref: bool = False
    description: str = ""
    api_name: str = ""                  # the ApiDef's rename_to, when it renames the arg

    @property
    def public_name(self) -> str:
        """The name callers see: the ApiDef rename, else the OpDef name."""
        return self.api_name or self.name


@dataclass(frozen=True)
class AttrSpec:
    name: str
    type: str                                   # "int", "list(type)", ...
    default: Any = NO_DEFAULT                   # Python value; NO_DEFAULT when required
    allowed_values: tuple[Any, ...] | None = None
    minimum: int | None = None
    inferred_from: tuple[str, ...] = ()         # names of the inputs it follows from
    description: str = ""
    api_name: str = ""                          # the ApiDef's rename_to, if any

    @property
    def public_name(self) -> str:
        return self.api_name or self.name

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @functools.cached_property   # asked often while rendering; frozen, so computed once
    def is_list(self) -> bool:
        return self.type.startswith("list(")

    @functools.cached_property
    def element_type(self) -> str:
        return self.type[5:-1] if self.is_list else self.type


@dataclass(frozen=True)
class Deprecation:
    version: int
    explanation: str


@dataclass(frozen=True)
class DeprecatedEndpoint:
    """An ApiDef endpoint kept for old callers.

    ``removed_in`` is the ApiDef's ``deprecation_version``: the major API version that no
    longer has the name (TensorFlow exports a name with version 2 or lower only in its 1.x
    API); 0 if unset.
    """

    name: str
    removed_in: int = 0


@dataclass(frozen=True)
class OpSpec:
    name: str
    inputs: tuple[ArgSpec, ...]
    outputs: tuple[ArgSpec, ...]
    inferred_attrs: tuple[AttrSpec, ...]    # follow from the inputs; callers never pass them
    required_attrs: tuple[AttrSpec, ...]    # not inferred, no default
    optional_attrs: tuple[AttrSpec, ...]    # not inferred, with a default
    summary: str = ""
    description: str = ""
    deprecation: Deprecation | None = None
    is_stateful: bool = False
    is_commutative: bool = False
    is_aggregate: bool = False
    allows_uninitialized_input: bool = False
    is_distributed_communication: bool = False
    control_outputs: tuple[str, ...] = field(default=())
    # From ApiDefs (defaults without any): how callers see the op.
    visibility: str = "VISIBLE"                 # VISIBLE, HIDDEN (internal) or SKIP
    endpoints: tuple[str, ...] = ()             # public names, first one primary
    deprecated_endpoints: tuple[DeprecatedEndpoint, ...] = ()   # those of endpoints kept for old callers
    input_order: tuple[str, ...] = ()           # OpDef input names in signature order

    @functools.cached_property   # frozen, so computed once; from_opdef fills it in
    def signature_inputs(self) -> tuple[ArgSpec, ...]:
        """The inputs in the order callers pass them (ApiDef ``arg_order``).

        ``inputs`` keeps OpDef order, which is what the runtime receives.
        """
        if not self.input_order:
            return self.inputs
        by_name = {a.name: a for a in self.inputs}
        return tuple(by_name[n] for n in self.input_order)

    @functools.cached_property
    def caller_attrs(self) -> tuple[AttrSpec, ...]:
        """The attrs a caller passes, in signature order: required, then optional."""
        return self.required_attrs + self.optional_attrs

    def endpoint_deprecation(self, endpoint: str) -> DeprecatedEndpoint | None:
        for deprecated in self.deprecated_endpoints:
            if deprecated.name == endpoint:
                return deprecated
        return None

    def attr(self, name: str) -> AttrSpec:
        for attrs in (self.inferred_attrs, self.required_attrs, self.optional_attrs):
            for attr in attrs:
                if attr.name == name:
                    return attr
        raise KeyError(name)

    @classmethod
    def from_opdef(cls, op: op_def_pb2.OpDef, api_def: api_def_pb2.ApiDef | None = None,
                   *, shared: SharedSpecs | None = None) -> OpSpec:
        """The spec of ``op``, with the overrides of ``api_def`` (validated) applied.

        ``shared`` lets the specs of many ops share their identical arg and attr specs.
        The spec is built as :func:`op_specs` builds every op's (:func:`build_spec`).
        """
        wire = opdef_wire.OpDefWire.FromString(op.SerializeToString(deterministic=True))
        return build_spec(wire, api_def, SharedSpecs() if shared is None else shared)


_new_object = object.__new__
_Record = TypeVar("_Record")
_NOTHING: Any = types.MappingProxyType({})   # the overrides of an op without an ApiDef


def make_frozen(cls: type[_Record], values: dict[str, Any]) -> _Record:
    """An instance of the frozen dataclass ``cls`` whose ``__dict__`` is ``values``: every
    field, plus any cached properties already known.

    The generated ``__init__`` of a frozen dataclass sets each field through
    ``object.__setattr__``, which makes it ~3x slower than this; generating TensorFlow's
    registry builds some 20,000 such records. ``tests/generator/test_model.py`` checks that
    what this builds holds every field and equals what the constructor builds.
    """
    record: _Record = _new_object(cls)
    record.__dict__.update(values)
    return record


def _endpoints(endpoints: Iterable[Any]) -> tuple[tuple[str, ...], tuple[DeprecatedEndpoint, ...]]:
    """The names, the first non-deprecated one moved to the front, and the deprecated ones.

    An endpoint is deprecated when it says so or names a ``deprecation_version``, as in
    TensorFlow's Python generator. ApiDefs should list the canonical endpoint first; one
    that lists a deprecated name first still gets a current name as the primary. When
    every endpoint is deprecated, the first stays primary.
    """
    endpoints = list(endpoints)
    deprecated = tuple(DeprecatedEndpoint(e.name, max(e.deprecation_version, 0))
                       for e in endpoints if e.deprecated or e.deprecation_version > 0)
    names = [e.name for e in endpoints]
    stale = {d.name for d in deprecated}
    primary = next((n for n in names if n not in stale), names[0])
    names.remove(primary)
    return (primary, *names), deprecated


def _deprecation(op: Any, api_def: api_def_pb2.ApiDef | None) -> Deprecation | None:
    """The OpDef's deprecation (``op`` an ``OpDefWire``), else the one an ApiDef
    declares (deprecation_message)."""
    if op.HasField("deprecation"):
        proto = op_def_pb2.OpDeprecation.FromString(op.deprecation)
        return Deprecation(proto.version, proto.explanation)
    if api_def is not None and api_def.deprecation_message:
        return Deprecation(api_def.deprecation_version, api_def.deprecation_message)
    return None


def op_specs(oplist: op_def_pb2.OpList | Iterable[op_def_pb2.OpDef],
             api_defs: ApiDefSet | None = None, *, canonical: bytes | None = None
             ) -> list[OpSpec]:
    """``OpSpec`` of every op, sorted by op name whatever the input order.

    ``api_defs`` rename and document; they are checked against ``oplist`` first
    (:class:`opgen.opdefs.OpDefError` lists every way they do not fit). Ops they mark
    SKIP are still returned (with ``visibility == "SKIP"``), languages leave them out.
    ``canonical`` is ``opdef_wire.canonical_bytes(oplist)`` where the caller has it.
    """
    if not isinstance(oplist, op_def_pb2.OpList):
        ops = op_def_pb2.OpList()
        ops.op.extend(oplist)
        oplist, canonical = ops, None
    if api_defs is not None:
        problems = validate_api_defs(api_defs, oplist)
        if problems:
            raise OpDefError(problems)
    lookup = api_defs.get if api_defs is not None else _no_api_def
    shared = SharedSpecs()
    specs = [build_spec(op, lookup(op.name), shared)
             for op in opdef_wire.wire_ops(oplist, canonical)]
    return sorted(specs, key=_spec_name)


def _no_api_def(name: str) -> None:
    return None


_spec_name = operator.attrgetter("name")


def build_spec(op: Any, api_def: api_def_pb2.ApiDef | None, shared: SharedSpecs) -> OpSpec:
    """The one builder of an ``OpSpec``: from ``op``, an ``OpDefWire``
    (:mod:`opgen.opdef_wire`, its args and attrs as bytes), with the overrides of
    ``api_def`` (validated) applied. An arg or attr an earlier op had costs a dict lookup
    in ``shared``, unless the ApiDef renames or documents this op's own."""
    overrides = _Overrides(api_def) if api_def is not None else None
    if overrides is not None and overrides.any:
        arg_spec, attr_spec = overrides.arg_spec, overrides.attr_spec
        out_spec = overrides.output_spec
    else:
        arg_spec = out_spec = shared.arg
        attr_spec = shared.attr
    # [:] makes a list in one call, where iterating a upb container ends in a formatted
    # IndexError
    inputs = tuple([arg_spec(key) for key in op.input_arg[:]])
    inferred_from = _inferred_from(inputs) if inputs else None
    inferred: list[AttrSpec] = []
    required: list[AttrSpec] = []
    optional: list[AttrSpec] = []
    for key in op.attr[:]:
        spec = attr_spec(key)
        if inferred_from:
            sources = inferred_from.get(spec.name)
            if sources:
                inferred.append(shared.inferred(spec, key, sources))
                continue
        (required if spec.default is NO_DEFAULT else optional).append(spec)
    required_attrs, optional_attrs = tuple(required), tuple(optional)
    name = op.name
    values = {
        "name": name,
        "inputs": inputs,
        "outputs": tuple([out_spec(key) for key in op.output_arg[:]]),
        "inferred_attrs": tuple(inferred),
        "required_attrs": required_attrs,
        "optional_attrs": optional_attrs,
        "summary": op.summary,
        "description": op.description,
        "deprecation": _deprecation(op, api_def),
        "is_stateful": op.is_stateful,
        "is_commutative": op.is_commutative,
        "is_aggregate": op.is_aggregate,
        "allows_uninitialized_input": op.allows_uninitialized_input,
        "is_distributed_communication": op.is_distributed_communication,
        "control_outputs": tuple(op.control_output[:]),
        "visibility": "VISIBLE",
        "endpoints": (name,),
        "deprecated_endpoints": (),
        "input_order": (),
        # the cached properties, known here for free
        "signature_inputs": inputs,
        "caller_attrs": required_attrs + optional_attrs,
    }
    if api_def is not None:
        _apply_api_def(values, api_def)
    return make_frozen(OpSpec, values)


def _apply_api_def(values: dict[str, Any], api_def: api_def_pb2.ApiDef) -> None:
    """What an ApiDef changes of a spec's op-level ``values``: docs, names, visibility,
    the callers' input order."""
    values["summary"] = api_def.summary or values["summary"]
    description = api_def.description or values["description"]
    if api_def.description_prefix:
        description = api_def.description_prefix + ("\n\n" + description if description else "")
    if api_def.description_suffix:
        description = (description + "\n\n" if description else "") + api_def.description_suffix
    values["description"] = description
    if api_def.endpoint:
        values["endpoints"], values["deprecated_endpoints"] = _endpoints(api_def.endpoint)
    values["visibility"] = api_def_visibility(api_def)
    input_order = tuple(api_def.arg_order)
    if input_order:
        values["input_order"] = input_order
        by_name = {a.name: a for a in values["inputs"]}
        values["signature_inputs"] = tuple(by_name[n] for n in input_order)


class _Overrides:
    """An ApiDef's renames, docs and attr defaults, and the arg and attr specs built with
    them (one op's own: they are not shared with other ops)."""

    def __init__(self, api_def: api_def_pb2.ApiDef) -> None:
        items = [*api_def.in_arg, *api_def.out_arg, *api_def.attr]
        self.renames = {item.name: item.rename_to for item in items if item.rename_to}
        self.docs = {item.name: item.description for item in [*api_def.in_arg, *api_def.attr]
                     if item.description}
        self.out_docs = {item.name: item.description for item in api_def.out_arg
                         if item.description}
        self.defaults = {item.name: item.default_value for item in api_def.attr
                         if item.HasField("default_value")}
        self.any = bool(self.renames or self.docs or self.out_docs or self.defaults)

    def arg_spec(self, key: bytes) -> ArgSpec:
        return _arg_spec(_ArgDef.FromString(key), self.renames, self.docs)

    def output_spec(self, key: bytes) -> ArgSpec:
        return _arg_spec(_ArgDef.FromString(key), self.renames, self.out_docs)

    def attr_spec(self, key: bytes) -> AttrSpec:
        return _attr_spec(_AttrDef.FromString(key), None, self.renames, self.docs,
                          self.defaults, None)


def _inferred_from(inputs: Iterable[ArgSpec]) -> dict[str, list[str]]:
    """attr name -> the names of the inputs whose dtype or length it gives."""
    inferred_from: dict[str, list[str]] = {}
    for arg in inputs:
        for attr_name in (arg.type_attr, arg.number_attr, arg.type_list_attr):
            if attr_name:
                inferred_from.setdefault(attr_name, []).append(arg.name)
    return inferred_from


class SharedSpecs:
    """The arg and attr specs built so far, by the serialized ``ArgDef``/``AttrDef`` they
    come from: ops repeat the same ones (TensorFlow's 1,900 ops have 5,757 attrs but 1,301
    distinct ones, 7,367 args but 1,636 distinct ones), and a spec is immutable, so one
    object serves every op that has it (a list default is a list: read it, never change
    it). Identical protos serialize to identical bytes; the reverse need not hold (map
    order), which only costs a second, equal spec. An attr that inputs infer is kept
    under (bytes, *the input names).
    """

    def __init__(self) -> None:
        self.args: dict[bytes, ArgSpec] = {}
        self.attrs: dict[Any, AttrSpec] = {}
        # allowed dtype lists repeat too (every numeric type, every float type)
        self.allowed_types: dict[tuple[int, ...], tuple[DType, ...]] = {}

    def arg(self, key: bytes) -> ArgSpec:
        """The spec of the ``ArgDef`` serialized as ``key``, without ApiDef overrides."""
        spec = self.args.get(key)
        if spec is None:
            spec = self.args[key] = _arg_spec(_ArgDef.FromString(key), _NOTHING, _NOTHING)
        return spec

    def attr(self, key: bytes) -> AttrSpec:
        """The spec of the ``AttrDef`` serialized as ``key`` as if no input inferred it,
        without ApiDef overrides."""
        spec = self.attrs.get(key)
        if spec is None:
            spec = self.attrs[key] = _attr_spec(_AttrDef.FromString(key), None, _NOTHING,
                                                _NOTHING, _NOTHING, self)
        return spec

    def inferred(self, spec: AttrSpec, key: bytes, sources: list[str]) -> AttrSpec:
        """``spec`` (of the AttrDef serialized as ``key``) of an attr the inputs
        ``sources`` infer; shared when ``spec`` is."""
        if self.attrs.get(key) is not spec:   # an op's own (ApiDef overrides)
            return make_frozen(AttrSpec, {**spec.__dict__, "inferred_from": tuple(sources)})
        sources_key = (key, *sources)
        inferred = self.attrs.get(sources_key)
        if inferred is None:
            inferred = self.attrs[sources_key] = make_frozen(
                AttrSpec, {**spec.__dict__, "inferred_from": tuple(sources)})
        return inferred


_ArgDef, _AttrDef = op_def_pb2.OpDef.ArgDef, op_def_pb2.OpDef.AttrDef


_SINGLE, _NUMBER_LIST, _TYPE_LIST = ArgKind.SINGLE, ArgKind.NUMBER_LIST, ArgKind.TYPE_LIST


def _arg_spec(arg: op_def_pb2.OpDef.ArgDef, renames: Mapping[str, str],
              docs: Mapping[str, str]) -> ArgSpec:
    """The spec of one ``ArgDef``, each proto field read once."""
    name = arg.name
    type_attr, number_attr, type_list_attr = arg.type_attr, arg.number_attr, arg.type_list_attr
    fixed = arg.type
    return make_frozen(ArgSpec, {
        "name": name,
        "kind": _TYPE_LIST if type_list_attr else _NUMBER_LIST if number_attr else _SINGLE,
        "type_attr": type_attr or None,
        "fixed_type": _dtype(fixed) if fixed else None,
        "number_attr": number_attr or None,
        "type_list_attr": type_list_attr or None,
        "is_ref": arg.is_ref,
        "description": docs.get(name) or arg.description,
        "api_name": renames.get(name, ""),
    })


def _attr_spec(attr: op_def_pb2.OpDef.AttrDef, sources: list[str] | None,
               renames: Mapping[str, str], docs: Mapping[str, str], defaults: Mapping[str, Any],
               shared: SharedSpecs | None) -> AttrSpec:
    name, attr_type = attr.name, attr.type
    is_list = attr_type.startswith("list(")
    element = attr_type[5:-1] if is_list else attr_type
    allowed = None
    if attr.HasField("allowed_values"):
        allowed = _allowed_values(attr.allowed_values.list, element, shared)
    override = defaults.get(name)
    if override is not None:
        default = attr_value_to_python(override, attr_type)
    elif attr.HasField("default_value"):
        default = attr_value_to_python(attr.default_value, attr_type)
    else:
        default = NO_DEFAULT
    return make_frozen(AttrSpec, {
        "name": name,
        "type": attr_type,
        "default": default,
        "allowed_values": allowed,
        "minimum": attr.minimum if attr.has_minimum else None,
        "inferred_from": tuple(sources) if sources else (),
        "description": docs.get(name) or attr.description,
        "api_name": renames.get(name, ""),
        "is_list": is_list,             # the cached properties
        "element_type": element,
    })


def _allowed_values(list_value: Any, element: str, shared: SharedSpecs | None) -> tuple[Any, ...]:
    if element != "type" or shared is None:
        return tuple(_list_values(list_value, element))
    key = tuple(list_value.type[:])   # [:]: one call (see _spec_from_wire)
    types = shared.allowed_types.get(key)
    if types is None:
        types = shared.allowed_types[key] = tuple([_dtype(v) for v in key])
    return types


# ------------------------------------------------------------------ AttrValue -> Python

_FIELD = {"string": "s", "int": "i", "float": "f", "bool": "b", "type": "type",
          "shape": "shape", "tensor": "tensor", "func": "func"}


def attr_value_to_python(value: Any, attr_type: str) -> Any:
    """An ``AttrValue`` of ``attr_type`` as a Python value (a list for list types)."""
    if attr_type.startswith("list("):
        return list(_list_values(value.list, attr_type[5:-1]))
    return _scalar(getattr(value, _FIELD[attr_type]), attr_type)


def _list_values(list_value: Any, element: str) -> Iterable[Any]:
    return (_scalar(v, element) for v in getattr(list_value, _FIELD[element]))


def _scalar(value: Any, element: str) -> Any:
    if element == "string":
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value)
    if element == "type":
        return DType.from_enum(value)
    if element == "shape":
        return _shape(value)
    if element == "tensor":
        return _tensor(value)
    if element == "func":
        return FuncValue(value.name)
    if element == "float":
        return float(value)
    return value


def _shape(proto: Any) -> Shape:
    if proto.unknown_rank:
        return Shape(None)
    return Shape(tuple(d.size if d.size >= 0 else None for d in proto.dim))


_TENSOR_FIELDS = ("float_val", "double_val", "int_val", "int64_val", "bool_val", "string_val",
                  "uint32_val", "uint64_val", "half_val", "scomplex_val", "dcomplex_val")


def _tensor(proto: Any) -> TensorValue:
    dtype = DType.from_enum(proto.dtype)
    shape = tuple(max(d.size, 0) for d in proto.tensor_shape.dim)
    size = math.prod(shape)
    if proto.tensor_content:
        import numpy as np  # only here and for float16: generation needs no numpy otherwise
        np_dtype = np.dtype("float16" if dtype.name == "float16" else dtype.name)
        values = tuple(np.frombuffer(proto.tensor_content, np_dtype).tolist())
    else:
        values = ()
        for name in _TENSOR_FIELDS:
            if len(getattr(proto, name)):
                values = tuple(getattr(proto, name))
                break
        if dtype.name == "float16" and values:
            import numpy as np
            values = tuple(np.array(values, np.uint16).view(np.float16).astype(float).tolist())
        if dtype.name in ("complex64", "complex128"):
            values = tuple(complex(r, i) for r, i in zip(values[::2], values[1::2]))
        if dtype.name == "string":
            values = tuple(bytes(v) for v in values)
        # TensorProto may list fewer values than the shape holds: the last one repeats.
        if values and len(values) < size:
            values = values + (values[-1],) * (size - len(values))
        if not values and size:
            zero = b"" if dtype.name == "string" else False if dtype.name == "bool" else 0
            values = (zero,) * size
    return TensorValue(dtype, shape, values)


# ------------------------------------------------------------------------ dtype names

# The names TensorFlow's Python API gives DataType values where they differ from the enum.
_DTYPE_NAMES = {"DT_FLOAT": "float32", "DT_DOUBLE": "float64", "DT_HALF": "float16"}


@functools.cache
def _dtype(value: int) -> DType:
    return DType(value, dtype_name(value))


@functools.cache
def dtype_name(value: int) -> str:
    """``DT_FLOAT`` -> ``float32``, ``DT_INT32_REF`` -> ``int32_ref``, as in ``tf.DType.name``."""
    try:
        enum_name: str = types_pb2.DataType.Name(value)
    except ValueError:
        return f"dtype_{value}"
    ref = enum_name.endswith("_REF")
    base = enum_name[:-4] if ref else enum_name
    name = _DTYPE_NAMES.get(base, base[3:].lower())
    return name + ("_ref" if ref else "")
