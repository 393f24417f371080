"""opgen's Python functions against TensorFlow's own Python op generator (the one
``tf.load_op_library`` runs), on TensorFlow's registry: same function name, parameter
names, parameter order and default values for every op both emit (1903 of TensorFlow
2.21's 1908; it omits five whose names are Python keywords).

Runs only where ``tensorflow`` is importable in this interpreter. Run as a script
(``python tests/generator/test_tf_parity.py [OPLIST]``) to print the figure and every
difference; docs/parity.md lists the difference classes and why they exist.
"""

from __future__ import annotations

import ast
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from opgen import generate, model, opdefs

# Every compared op agrees (1903/1903 with TensorFlow 2.21): any new difference fails.
REQUIRED_AGREEMENT = 1.0

# TensorFlow's generator writes nothing for ops whose function name would be a Python
# keyword (Python 2's "print" included); opgen writes them as if_, for_, ... instead.
TF_OMITS = {"Assert", "For", "If", "Print", "While"}


class DTypeName(str):
    """``_dtypes.float32`` in either generator's output, as the name ``"float32"``."""


class _DTypes:
    def __getattr__(self, name: str) -> DTypeName:
        return DTypeName(name)


class _TFExecute:
    """Stands in for TensorFlow's ``_execute`` module in default expressions."""

    @staticmethod
    def make_tensor(text: str, attr_name: str) -> tuple:
        from google.protobuf import text_format

        from opgen.protos import tensor_pb2
        value = model._tensor(text_format.Parse(text, tensor_pb2.TensorProto()))
        return ("tensor", value.dtype.name, value.shape, value.values)


def _np_array_value(array) -> tuple:
    return ("tensor", array.dtype.name, tuple(array.shape), tuple(array.ravel().tolist()))


def _namespace() -> dict[str, Any]:
    import numpy as np

    class _NP:  # opgen spells tensor defaults _np.array([...], dtype=...).reshape(...)
        @staticmethod
        def array(values, dtype=None):
            return _Array(np.array(values, dtype=dtype))

    class _Array(tuple):
        """The value of an array, comparable with TensorFlow's, that can still reshape."""

        def __new__(cls, array):
            self = super().__new__(cls, _np_array_value(array))
            self.array = array
            return self

        def reshape(self, shape):
            return _Array(self.array.reshape(shape))

    return {"_dtypes": _DTypes(), "_execute": _TFExecute(), "_math": math, "_np": _NP(),
            "float": float}


@dataclass(frozen=True)
class Signature:
    function: str
    parameters: tuple[str, ...]
    defaults: tuple[Any, ...]          # aligned with the last len(defaults) parameters


def _default_value(node: ast.expr, namespace: dict[str, Any]) -> Any:
    # Both generators write defaults as expressions over a few module names; evaluating
    # them (ints and floats compare equal, 1 == 1.0) compares values, not spelling.
    return eval(compile(ast.Expression(node), "<default>", "eval"), dict(namespace))


def _signature(function: ast.FunctionDef, namespace: dict[str, Any]) -> Signature:
    args = function.args
    return Signature(function.name, tuple(a.arg for a in args.args),
                     tuple(_default_value(d, namespace) for d in args.defaults))


def tensorflow_signatures(oplist_bytes: bytes) -> dict[str, Signature]:
    """Op name -> the signature TensorFlow's generator gives its Python function."""
    from tensorflow.python.framework import _pywrap_python_op_gen

    source = _pywrap_python_op_gen.GetPythonWrappers(oplist_bytes).decode("utf-8")
    tree = ast.parse(source)
    namespace = _namespace()
    result = {}
    # The graph-building path of each function calls _apply_op_helper("OpName", ...).
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name.endswith("_eager_fallback"):
            continue
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "_apply_op_helper":
                result[call.args[0].value] = _signature(node, namespace)
                break
    return result


def opgen_signatures(oplist) -> dict[str, Signature]:
    """Op name -> the signature of opgen's generated function, read from its source."""
    namespace = _namespace()
    result = {}
    for f in generate.render(oplist, ["python"]):
        if not f.path.name.startswith("_ops_"):
            continue
        for node in ast.parse(f.content).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "_execute_op":
                    result[call.args[0].value] = _signature(node, namespace)
    return result


@dataclass
class Comparison:
    compared: list[str]
    differences: dict[str, list[str]]      # op -> what differs
    only_tensorflow: set[str]
    only_opgen: set[str]

    @property
    def agreement(self) -> float:
        return 1 - len(self.differences) / len(self.compared)


def compare(tf: dict[str, Signature], ours: dict[str, Signature]) -> Comparison:
    compared = sorted(set(tf) & set(ours))
    differences: dict[str, list[str]] = {}
    for op in compared:
        a, b = tf[op], ours[op]
        problems = []
        if a.function != b.function:
            problems.append(f"function name: TensorFlow {a.function}, opgen {b.function}")
        if a.parameters != b.parameters:
            problems.append(f"parameters: TensorFlow {a.parameters}, opgen {b.parameters}")
        elif a.defaults != b.defaults:
            problems.append(f"defaults: TensorFlow {a.defaults}, opgen {b.defaults}")
        if problems:
            differences[op] = problems
    return Comparison(compared, differences, set(tf) - set(ours), set(ours) - set(tf))


# ---------------------------------------------------------------------------- tests


# TensorFlow in this process: CI runs these in their own pytest invocation (-m tensorflow).
pytestmark = pytest.mark.tensorflow


@pytest.fixture(scope="module")
def tf_data(tf_oplist_path):
    pytest.importorskip("tensorflow.python.framework._pywrap_python_op_gen",
                        reason="TensorFlow is not installed")
    return Path(tf_oplist_path).read_bytes()


@pytest.fixture(scope="module")
def tf_signatures(tf_data):
    return tensorflow_signatures(tf_data)


@pytest.fixture(scope="module")
def comparison(tf_data, tf_signatures):
    return compare(tf_signatures, opgen_signatures(opdefs.load(tf_data)))


def test_signatures_agree_with_tensorflow_for_every_op(comparison):
    assert len(comparison.compared) >= 1903
    detail = "\n".join(f"{op}: {'; '.join(p)}" for op, p in list(comparison.differences.items())[:20])
    assert comparison.agreement >= REQUIRED_AGREEMENT, detail


def test_ops_only_one_side_emits_are_the_documented_ones(comparison):
    assert comparison.only_tensorflow == set()
    assert comparison.only_opgen == TF_OMITS


def test_comparison_notices_a_difference(tf_data, tf_signatures):
    # The comparison itself must be able to fail: a changed default is caught.
    oplist = type(opdefs.load(tf_data))()
    matmul = oplist.op.add()
    matmul.CopyFrom(next(op for op in opdefs.load(tf_data).op if op.name == "MatMul"))
    assert compare(tf_signatures, opgen_signatures(oplist)).differences == {}
    next(a for a in matmul.attr if a.name == "transpose_a").default_value.b = True
    assert list(compare(tf_signatures, opgen_signatures(oplist)).differences) == ["MatMul"]


if __name__ == "__main__":
    default = next((p / "shared" / "testdata" / "tf-2.21-oplist.pb"
                    for p in Path(__file__).resolve().parents
                    if (p / "shared" / "testdata" / "tf-2.21-oplist.pb").is_file()), None)
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default
    if path is None:
        sys.exit("usage: test_tf_parity.py OPLIST (no shared/testdata/tf-2.21-oplist.pb found)")
    data = path.read_bytes()
    result = compare(tensorflow_signatures(data), opgen_signatures(opdefs.load(data)))
    for op, problems in result.differences.items():
        print(f"{op}: {'; '.join(problems)}")
    print(f"only TensorFlow emits: {sorted(result.only_tensorflow)}")
    print(f"only opgen emits: {sorted(result.only_opgen)}")
    print(f"agreement: {len(result.compared) - len(result.differences)}/{len(result.compared)} "
          f"= {result.agreement:.2%}")
