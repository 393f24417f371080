"""How calls and results cross between the test process and the TensorFlow child: one
JSON document plus one .npz of raw bytes (uint8), so that neither side needs the other's
numpy version or a pickle, and bfloat16 travels as its bits.

This file is imported by both sides: the TensorFlow side has numpy and ml_dtypes (a
TensorFlow dependency) but not opgen."""

from __future__ import annotations

import numpy as np

try:
    from ml_dtypes import bfloat16
except ImportError:
    bfloat16 = None


def dtype_from_name(name: str):
    if name == "bfloat16":
        return np.dtype(bfloat16)
    return np.dtype(name)


class ArrayStore:
    """Arrays by key for an .npz, as raw bytes plus (dtype name, shape)."""

    def __init__(self):
        self.blobs = {}

    def put(self, array) -> dict:
        array = np.require(np.asarray(array), requirements="C")  # keeps 0-d arrays 0-d
        if array.dtype.byteorder == ">":
            array = array.astype(array.dtype.newbyteorder("="))
        key = f"a{len(self.blobs)}"
        self.blobs[key] = np.frombuffer(array.tobytes(), np.uint8)
        return {"array": key, "dtype": array.dtype.name, "shape": list(array.shape)}

    def save(self, path):
        np.savez(path, **self.blobs)


def get_array(blobs, ref: dict) -> np.ndarray:
    data = blobs[ref["array"]].tobytes()
    return np.frombuffer(data, dtype_from_name(ref["dtype"])).reshape(ref["shape"]).copy()


def encode_value(store: ArrayStore, value):
    """An input or attr value as JSON (arrays into `store`)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return store.put(value)
    if isinstance(value, list) and value and all(isinstance(v, (np.ndarray, np.generic)) for v in value):
        return {"list": [store.put(v) for v in value]}
    if hasattr(value, "as_datatype_enum"):  # an opgen DType
        return {"dtype_enum": int(value.as_datatype_enum)}
    if isinstance(value, list):
        return {"plain_list": [encode_value(store, v) for v in value]}
    return {"plain": value}


def decode_value(blobs, value, dtype_of_enum):
    if "array" in value:
        return get_array(blobs, value)
    if "list" in value:
        return [get_array(blobs, v) for v in value["list"]]
    if "dtype_enum" in value:
        return dtype_of_enum(value["dtype_enum"])
    if "plain_list" in value:
        return [decode_value(blobs, v, dtype_of_enum) for v in value["plain_list"]]
    return value["plain"]


def flatten(result) -> list:
    """An op's result (a tensor, a list of them, nested lists, or None) as a flat list."""
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return [leaf for entry in result for leaf in flatten(entry)]
    return [result]
