"""An OpList read with each op's args, attrs and deprecation left as their wire bytes.

A message field and a ``bytes`` field have the same wire format (length-delimited), so
the bytes of an OpList parse as ``OpListWire``: OpList and OpDef with every message-typed
field of OpDef declared ``bytes``. One C call then gives every ``ArgDef`` and ``AttrDef``
as its serialized bytes, where reading them through ``oplist.op`` costs a Python object
per arg and attr and a ``SerializeToString`` call for each. TensorFlow's registry has
13,000 args and attrs but fewer than 3,000 distinct ones: the bytes are the keys by which
validation (:mod:`opgen.opdefs`) and the specs (:mod:`opgen.model`) do each distinct one
once, parsing it back with ``ArgDef.FromString`` / ``AttrDef.FromString``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from opgen.protos import op_def_pb2, types_pb2

# proto3 keeps DataType numbers it does not know (type: 99999): no generator can name them.
DATA_TYPES = frozenset(types_pb2.DataType.values())


def _wire_classes() -> tuple[Any, Any]:
    """OpListWire and OpDefWire, built from OpDef's own descriptor so the field numbers cannot drift."""
    field_type = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="opgen/opdef_wire.proto",
                                              package="opgen.wire", syntax="proto2")
    opdef = file.message_type.add()
    op_def_pb2.OpDef.DESCRIPTOR.CopyToProto(opdef)
    opdef.name = "OpDefWire"
    del opdef.nested_type[:]
    for field in opdef.field:
        if field.type == field_type.TYPE_MESSAGE:
            field.type = field_type.TYPE_BYTES
            field.ClearField("type_name")
        if field.label != field_type.LABEL_REPEATED:
            field.label = field_type.LABEL_OPTIONAL   # proto2: HasField("deprecation") works
    oplist = file.message_type.add(name="OpListWire")
    oplist.field.add(name="op", number=op_def_pb2.OpList.OP_FIELD_NUMBER,
                     label=field_type.LABEL_REPEATED, type=field_type.TYPE_MESSAGE,
                     type_name=".opgen.wire.OpDefWire")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return (message_factory.GetMessageClass(pool.FindMessageTypeByName("opgen.wire.OpListWire")),
            message_factory.GetMessageClass(pool.FindMessageTypeByName("opgen.wire.OpDefWire")))


OpListWire, OpDefWire = _wire_classes()


def wire_ops(oplist: op_def_pb2.OpList, canonical: bytes | None = None) -> Sequence[Any]:
    """The ops of ``oplist`` as ``OpDefWire`` messages, in order; ``canonical`` is
    :func:`canonical_bytes` of it where the caller has them.

    Deterministic serialization orders map entries (a func attr's attrs), so equal args
    and attrs give equal bytes.
    """
    ops: Sequence[Any] = OpListWire.FromString(
        canonical_bytes(oplist) if canonical is None else canonical).op
    return ops


def canonical_bytes(oplist: op_def_pb2.OpList) -> bytes:
    """The OpList's bytes, deterministic: equal args and attrs give equal bytes."""
    data: bytes = oplist.SerializeToString(deterministic=True)
    return data
