"""tf.Example messages built with the protobuf library from a descriptor written here
(field numbers of TensorFlow's example.proto / feature.proto), the independent reference
that test inputs for the Example parsing ops are serialized with; no TensorFlow import."""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="opgen_test_example.proto",
                                           package="opgen_test", syntax="proto3")

    def message(name, *fields, oneof=None):
        m = f.message_type.add(name=name)
        if oneof:
            m.oneof_decl.add(name=oneof)
        for field_name, number, ftype, label, type_name, packed in fields:
            fd = m.field.add(name=field_name, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
            if oneof:
                fd.oneof_index = 0
            if packed:
                fd.options.packed = True
        return m

    rep, opt = _F.LABEL_REPEATED, _F.LABEL_OPTIONAL
    message("BytesList", ("value", 1, _F.TYPE_BYTES, rep, None, False))
    message("FloatList", ("value", 1, _F.TYPE_FLOAT, rep, None, True))
    message("Int64List", ("value", 1, _F.TYPE_INT64, rep, None, True))
    message("Feature", ("bytes_list", 1, _F.TYPE_MESSAGE, opt, ".opgen_test.BytesList", False),
            ("float_list", 2, _F.TYPE_MESSAGE, opt, ".opgen_test.FloatList", False),
            ("int64_list", 3, _F.TYPE_MESSAGE, opt, ".opgen_test.Int64List", False),
            oneof="kind")
    features = message("Features", ("feature", 1, _F.TYPE_MESSAGE, rep,
                                    ".opgen_test.Features.FeatureEntry", False))
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=_F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=_F.TYPE_MESSAGE, label=opt,
                    type_name=".opgen_test.Feature")
    message("Example", ("features", 1, _F.TYPE_MESSAGE, opt, ".opgen_test.Features", False))
    return f


_pool = descriptor_pool.DescriptorPool()
_pool.Add(_file())


def _class(name: str):
    return message_factory.GetMessageClass(_pool.FindMessageTypeByName("opgen_test." + name))


Example = _class("Example")
Feature = _class("Feature")


def example(**features) -> bytes:
    """A serialized Example: key=list of floats / ints / bytes (the list's element type
    picks the kind), None for an empty Feature."""
    e = Example()
    for key, values in features.items():
        f = e.features.feature[key]
        if values is None:
            f.SetInParent()
        elif values and isinstance(values[0], bytes):
            f.bytes_list.value.extend(values)
        elif values and isinstance(values[0], float):
            f.float_list.value.extend(values)
        elif values and isinstance(values[0], int):
            f.int64_list.value.extend(values)
        else:
            raise ValueError(f"{key}: give a non-empty list or None")
    return e.SerializeToString()


def parses(serialized: bytes) -> bool:
    """Whether the protobuf library accepts `serialized` as an Example."""
    try:
        Example.FromString(serialized)
    except Exception:  # noqa: BLE001 - protobuf raises DecodeError (or RuntimeWarning-ish)
        return False
    return True
