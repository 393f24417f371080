"""C++ custom ops written for TensorFlow (examples/plugin_cpp: REGISTER_OP, OpKernel,
REGISTER_KERNEL_BUILDER, shape functions) built unchanged against opgen's headers
(runtime/include/tensorflow/core/...), loaded with opgen.load_op_library, and checked
against numpy: eager results, graph-time shapes from their shape functions, OP_REQUIRES
failures as the right error class and message, the OpDef their builders describe, and
the plugin's undefined symbols being the C API's only."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import opgen
from cpp_api_build import load_cpp_ops
from cpp_api_cases import describe_function, function_lists


@pytest.fixture(scope="module")
def cpp_ops_path(tmp_path_factory):
    return load_cpp_ops(tmp_path_factory)[0]


@pytest.fixture(scope="module")
def cpp_ops(tmp_path_factory):
    return load_cpp_ops(tmp_path_factory)[1]


def placeholder(graph, dtype, shape, name):
    return graph.create_op("Placeholder", [], {"dtype": dtype, "shape": shape}, name=name).outputs[0]


def test_guides_zero_out(cpp_ops):
    x = np.array([[5, 6, 7], [8, 9, 10]], np.int32)
    got = np.asarray(cpp_ops.zero_out(x))
    want = np.zeros_like(x)
    want.flat[0] = 5
    np.testing.assert_array_equal(got, want)
    got = np.asarray(cpp_ops.zero_out(x, preserve_index=4))
    want = np.zeros_like(x)
    want.flat[4] = 9
    assert got.dtype == np.int32 and got.shape == (2, 3)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_type_polymorphic_kernel_with_float_attrs(cpp_ops, dtype):
    x = (np.arange(-6, 6).reshape(3, 4) * 1.5).astype(dtype)
    got = np.asarray(cpp_ops.scale_clip(x, scale=0.75, limit=2.5))
    want = np.clip(x.astype(np.float64) * np.float32(0.75), -np.float32(2.5), np.float32(2.5)).astype(dtype)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_list_input_read_with_input_list(cpp_ops, dtype):
    rng = np.random.default_rng(3)
    values = [rng.standard_normal((2, 5)).astype(dtype) for _ in range(3)]
    weights = [0.5, -2.0, 1.25]
    got = np.asarray(cpp_ops.weighted_add_n(values, weights=weights))
    want = sum(np.float32(w).astype(dtype) * v for w, v in zip(weights, values))
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_matrix_views(cpp_ops, dtype):
    x = np.arange(6).reshape(2, 3).astype(dtype)
    got = np.asarray(cpp_ops.repeat_rows(x, times=3))
    np.testing.assert_array_equal(got, np.repeat(x, 3, axis=0))


def test_op_requires_in_constructor_and_compute(cpp_ops):
    cases = [
        (lambda: cpp_ops.zero_out(np.ones(3, np.int32), preserve_index=-1),
         "Need preserve_index >= 0, got -1"),
        (lambda: cpp_ops.zero_out(np.ones(3, np.int32), preserve_index=3),
         "preserve_index out of range"),
        (lambda: cpp_ops.scale_clip(np.ones(2, np.float32), limit=-0.5),
         "ScaleClip needs limit > 0, got -0.5"),
        (lambda: cpp_ops.weighted_add_n([np.ones(3), np.ones(3)], weights=[1.0]),
         "WeightedAddN got 1 weights for 2 values"),
        (lambda: cpp_ops.weighted_add_n([np.ones((2, 3)), np.ones(3)], weights=[1.0, 1.0]),
         "WeightedAddN needs values of one shape: value 1 has shape [3], value 0 [2,3]"),
        (lambda: cpp_ops.repeat_rows(np.ones(3, np.float32), times=2),
         "RepeatRows expects a matrix, got shape [3]"),
    ]
    for call, message in cases:
        with pytest.raises(opgen.errors.InvalidArgumentError) as info:
            call()
        assert info.value.code == 3  # TF_INVALID_ARGUMENT
        assert message in str(info.value)
    # the kernels still work afterwards
    np.testing.assert_array_equal(np.asarray(cpp_ops.zero_out(np.array([4, 2], np.int32))), [4, 0])


def test_type_constraints_pick_the_kernels(cpp_ops):
    with pytest.raises(opgen.errors.OpError):
        cpp_ops.repeat_rows(np.ones((2, 2), np.float64), times=2)  # no double kernel


def test_shape_functions_in_graph_mode(cpp_ops):
    g = opgen.Graph()
    x = placeholder(g, opgen.float32, [2, None], "x")
    y = placeholder(g, opgen.float32, [None, 3], "y")
    total = g.create_op("WeightedAddN", [[x, y]], {"weights": [1.0, 2.0]}).outputs[0]
    assert total.shape == (2, 3)  # Merge of [2,?] and [?,3]
    m = placeholder(g, opgen.float32, [None, 4], "m")
    assert g.create_op("RepeatRows", [m], {"times": 3}).outputs[0].shape == (None, 4)
    k = placeholder(g, opgen.int32, [5, 2], "k")
    assert g.create_op("RepeatRows", [k], {"times": 3}).outputs[0].shape == (15, 2)
    assert g.create_op("ZeroOut", [placeholder(g, opgen.int32, [7], "z")]).outputs[0].shape == (7,)
    assert g.create_op("ScaleClip", [m], {"limit": 1.0}).outputs[0].shape == (None, 4)
    assert g.create_op("CallCounter", []).outputs[0].shape == ()
    with opgen.Session(g) as sess:
        got = sess.run(total, {x: np.full((2, 3), 2.0), y: np.ones((2, 3))})
    np.testing.assert_allclose(got, np.full((2, 3), 4.0))


def test_shape_function_errors_at_graph_build_time(cpp_ops):
    g = opgen.Graph()
    a = placeholder(g, opgen.float32, [2, 3], "a")
    b = placeholder(g, opgen.float32, [2, 4], "b")
    with pytest.raises(Exception, match=re.escape(
            "Dimension 1 in both shapes must be equal, but are 3 and 4")):
        g.create_op("WeightedAddN", [[a, b]], {"weights": [1.0, 1.0]})
    with pytest.raises(Exception, match="Shape must be rank 2 but is rank 1"):
        g.create_op("RepeatRows", [placeholder(g, opgen.float32, [3], "v")], {"times": 2})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shape_attr_in_a_kernel_constructor(cpp_ops, dtype):
    got = np.asarray(cpp_ops.fill_shaped(shape=[2, 0, 3], value=2.5, T=dtype))
    assert got.dtype == dtype and got.shape == (2, 0, 3)
    got = np.asarray(cpp_ops.fill_shaped(shape=[3, 1], value=-0.75, T=dtype))
    np.testing.assert_array_equal(got, np.full((3, 1), -0.75, dtype))
    scalar = np.asarray(cpp_ops.fill_shaped(shape=[], value=4.0, T=dtype))
    assert scalar.shape == () and scalar == 4.0
    # TensorShape needs every dim: a partial shape fails where the kernel is made
    with pytest.raises(opgen.errors.InvalidArgumentError, match="unknown dim"):
        cpp_ops.fill_shaped(shape=[-1, 2], T=dtype)


def test_float_and_shape_attrs_in_a_shape_function(cpp_ops):
    g = opgen.Graph()
    y = g.create_op("FillShaped", [], {"T": opgen.float64, "shape": [4, 1, 2], "value": 0.5})
    assert y.outputs[0].shape == (4, 1, 2)
    with pytest.raises(Exception, match="FillShaped needs a finite value, got inf"):
        g.create_op("FillShaped", [], {"T": opgen.float32, "shape": [2], "value": float("inf")})
    # TensorShape from a partial shape attr fails in the shape function too
    with pytest.raises(Exception, match=r"not a fully defined shape: \[\?,2\]"):
        g.create_op("FillShaped", [], {"T": opgen.float32, "shape": [None, 2]})
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y.outputs[0]), np.full((4, 1, 2), 0.5))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_guide_style_functor_on_the_cpu_device(cpp_ops, dtype):
    """ScaleAndShift: the guide's kernel_example layout (a functor templated on
    Eigen::ThreadPoolDevice / Eigen::GpuDevice, reached by context->eigen_device<Device>())."""
    x = (np.arange(-5, 7).reshape(3, 4) * 1.5).astype(dtype)
    got = np.asarray(cpp_ops.scale_and_shift(x, scale=3.0, shift=-0.5))
    # the kernel casts the float attrs to T first, then computes in T
    want = x * np.array(3.0).astype(dtype) + np.array(-0.5).astype(dtype)
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, want.astype(dtype))
    np.testing.assert_array_equal(np.asarray(cpp_ops.scale_and_shift(x)), x * dtype(2))  # defaults
    assert np.asarray(cpp_ops.scale_and_shift(np.zeros((0, 3), dtype))).shape == (0, 3)
    g = opgen.Graph()
    p = placeholder(g, dtype, [None, 4], "p")
    y = g.create_op("ScaleAndShift", [p], {"scale": 0.5, "shift": 1.0}).outputs[0]
    assert y.shape == (None, 4)
    with opgen.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {p: x}),
                                      x * np.array(0.5).astype(dtype) + np.array(1.0).astype(dtype))


@pytest.mark.parametrize("shape, dims, rank", [
    ([None, 3, None], [-1, 3, -1], 3), ([4, 0], [4, 0], 2), ([], [], 0), (None, [], -1)])
def test_partial_shape_attr_in_a_kernel_constructor(cpp_ops, shape, dims, rank):
    """OpKernelConstruction::GetAttr(name, PartialTensorShape*) keeps unknown dims and an
    unknown rank, eagerly and in a graph."""
    got_dims, got_rank = cpp_ops.partial_shape_dims(shape=shape)
    assert np.asarray(got_dims).tolist() == dims and int(got_rank) == rank
    g = opgen.Graph()
    op = g.create_op("PartialShapeDims", [], {"shape": shape})
    with opgen.Session(g) as sess:
        got_dims, got_rank = sess.run([op.outputs[0], op.outputs[1]])
    assert np.asarray(got_dims).tolist() == dims and int(got_rank) == rank


def test_func_attr_in_a_kernel_constructor(cpp_ops):
    """OpKernelConstruction::GetAttr(name, NameAttrList*) reads the func attr the node holds
    (through TF_OpKernelConstruction_GetAttrFunction)."""
    from opgen.protos import attr_value_pb2
    for function_name in ["my_function", "f", "Δ_unicode_name_" + "x" * 300]:
        g = opgen.Graph()
        f = attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=function_name))
        op = g.create_op("FunctionName", [], {"f": f})
        assert op.outputs[0].shape == (None,) and op.outputs[1].shape == ()
        assert op.get_attr("f").name == function_name
        with opgen.Session(g) as sess:
            name, num_attrs = sess.run([op.outputs[0], op.outputs[1]])
        assert bytes(np.asarray(name, np.uint8)).decode() == function_name
        assert int(num_attrs) == 0
    # the attrs a function value is instantiated with travel along (T, and N)
    g = opgen.Graph()
    f = attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name="poly", attr={
        "T": attr_value_pb2.AttrValue(type=1), "N": attr_value_pb2.AttrValue(i=3)}))
    op = g.create_op("FunctionName", [], {"f": f})
    assert dict(op.get_attr("f").attr) == dict(f.func.attr)
    with opgen.Session(g) as sess:
        assert int(sess.run(op.outputs[1])) == 2
    g = opgen.Graph()
    op = g.create_op("FunctionName", [], {"f": attr_value_pb2.AttrValue(
        func=attr_value_pb2.NameAttrList(name=""))})
    with opgen.Session(g) as sess, pytest.raises(
            opgen.errors.InvalidArgumentError,
            match="FunctionName needs a function, got an empty name"):
        sess.run(op.outputs[1])


@pytest.mark.parametrize("case", ["names", "with_attrs", "empty"])
def test_list_func_attr_in_a_kernel_constructor(cpp_ops, case):
    """OpKernelConstruction::GetAttr(name, std::vector<NameAttrList>*) reads a list(func)
    attr, each function with its attrs (OPGEN_OpKernelConstructionGetAttrValue); the shape
    function reads it too (InferenceContext::GetAttr)."""
    from opgen.protos import attr_value_pb2 as av
    fs = function_lists(av)[case]
    g = opgen.Graph()
    op = g.create_op("FunctionList", [], {"fs": av.AttrValue(list=av.AttrValue.ListValue(func=fs))})
    assert op.outputs[0].shape == (None,) and op.outputs[1].shape == (len(fs),)
    assert list(op.get_attr("fs")) == fs  # the node keeps each function's attrs
    with opgen.Session(g) as sess:
        description, num_attrs = sess.run([op.outputs[0], op.outputs[1]])
    assert bytes(np.asarray(description, np.uint8)).decode() == ";".join(
        describe_function(f) for f in fs)
    assert np.asarray(num_attrs).tolist() == [len(f.attr) for f in fs]


def test_list_func_attr_failures(cpp_ops):
    from opgen.protos import attr_value_pb2 as av
    g = opgen.Graph()
    op = g.create_op("FunctionList", [], {"fs": av.AttrValue(list=av.AttrValue.ListValue(
        func=[av.NameAttrList(name="f"), av.NameAttrList(name="")]))})
    with opgen.Session(g) as sess, pytest.raises(
            opgen.errors.InvalidArgumentError,
            match="FunctionList needs function names, got an empty one"):
        sess.run(op.outputs[1])


STRINGS = np.array([[b"ab", b"", b"x" * 30], ["\u0394".encode(), b"a\x00b", b"hello"]], object)


def repeat_strings(strings, times, separator):
    """The reference of StringRepeat: each string `times` times, joined by `separator`."""
    joined = [separator.join([s] * times) for s in strings.flat]
    return np.array(joined, object).reshape(strings.shape), np.array([len(j) for j in joined],
                                                                      np.int32).reshape(strings.shape)


@pytest.mark.parametrize("times, separator", [(3, b"-|-"), (1, b""), (0, b","), (12, b"")])
def test_string_tensors_in_a_kernel(cpp_ops, times, separator):
    """flat<tstring>() of a string input, a DT_STRING output and temporary, assigned short
    (inline) and long (heap) strings, eagerly and in a graph."""
    want, want_lengths = repeat_strings(STRINGS, times, separator)
    got, lengths = cpp_ops.string_repeat(STRINGS, times=times, separator=separator)
    assert np.asarray(got).tolist() == want.tolist()
    np.testing.assert_array_equal(lengths, want_lengths)
    g = opgen.Graph()
    x = placeholder(g, opgen.string, [2, None], "x")
    op = g.create_op("StringRepeat", [x], {"times": times, "separator": separator})
    assert op.outputs[0].shape == (2, None) and op.outputs[1].shape == (2, None)
    with opgen.Session(g) as sess:
        got, lengths = sess.run([op.outputs[0], op.outputs[1]], {x: STRINGS})
    assert np.asarray(got).tolist() == want.tolist()
    np.testing.assert_array_equal(lengths, want_lengths)


def test_string_kernel_failure(cpp_ops):
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match="StringRepeat of a 1000-byte string 2000 times is over 1 MiB"):
        cpp_ops.string_repeat(np.array([b"x" * 1000], object), times=2000)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(3, 2, 4), (1, 5), (2,), (4, 0)])
def test_output_list_and_mutable_output(cpp_ops, dtype, shape):
    """OpOutputList (output_list, allocate, set, operator[]) and mutable_output: the rows of
    the input as separate outputs."""
    x = (np.arange(int(np.prod(shape))) * 1.5 - 4).astype(dtype).reshape(shape)
    got = cpp_ops.unstack_rows(x, num=shape[0])
    assert len(got) == shape[0]
    for row, want in zip(got, x):
        assert np.asarray(row).dtype == dtype
        np.testing.assert_array_equal(np.asarray(row), want)


def test_output_list_shapes_and_failures(cpp_ops):
    g = opgen.Graph()
    op = g.create_op("UnstackRows", [placeholder(g, opgen.float32, [3, None, 2], "v")], {"num": 3})
    assert [o.shape for o in op.outputs] == [(None, 2)] * 3
    with pytest.raises(Exception, match="must be 3"):
        g.create_op("UnstackRows", [placeholder(g, opgen.float32, [4, 2], "w")], {"num": 3})
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match=re.escape("UnstackRows needs 3 rows, got shape [4,2]")):
        cpp_ops.unstack_rows(np.ones((4, 2), np.float32), num=3)


def test_async_kernel(cpp_ops):
    """An AsyncOpKernel finishing on its own thread; OP_REQUIRES_ASYNC calls `done`."""
    x = np.array([[-3, 0, 7], [2**40, 5, -1]], np.int64)
    np.testing.assert_array_equal(cpp_ops.async_add_one(x), x + 1)
    g = opgen.Graph()
    v = placeholder(g, opgen.int64, [None], "v")
    y = g.create_op("AsyncAddOne", [v]).outputs[0]
    with opgen.Session(g) as sess:
        for n in [1, 100, 1000]:
            np.testing.assert_array_equal(sess.run(y, {v: np.arange(n)}), np.arange(n) + 1)
    with pytest.raises(opgen.errors.InvalidArgumentError,
                       match="AsyncAddOne needs a non-empty input"):
        cpp_ops.async_add_one(np.zeros(0, np.int64))


def test_eigen_expressions_fail_to_compile_with_a_message(tmp_path):
    """The Eigen device shim offers no expressions: using one stops the build with a
    message naming what to write instead."""
    from opgen import _paths
    cxx = shutil.which("c++") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    cases = {
        "device_assign": "void f(tensorflow::OpKernelContext* c, tensorflow::Tensor* y) {\n"
                         "  y->flat<float>().device(c->eigen_device<Eigen::ThreadPoolDevice>())"
                         " = y->flat<float>();\n}\n",
        "eigen_tensor": "void f() { Eigen::Tensor<float, 2, Eigen::RowMajor> t; }\n",
        "tensor_map": "void f() { Eigen::TensorMap<Eigen::Tensor<float, 1>> m; }\n",
    }
    for name, body in cases.items():
        source = tmp_path / f"{name}.cc"
        source.write_text('#include "tensorflow/core/framework/op_kernel.h"\n'
                          '#include "unsupported/Eigen/CXX11/Tensor"\n' + body)
        build = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", f"-I{_paths.include_dir()}",
                                str(source)], capture_output=True, text=True)
        assert build.returncode != 0, name
        assert "opgen: Eigen" in build.stderr and "docs/cpp_custom_ops.md" in build.stderr, (
            name, build.stderr[-2000:])


def test_stateful_op_keeps_its_kernel_state_in_a_session(cpp_ops):
    g = opgen.Graph()
    count = g.create_op("CallCounter", []).outputs[0]
    with opgen.Session(g) as sess:
        assert [int(sess.run(count)) for _ in range(3)] == [1, 2, 3]


def test_op_defs_from_the_builder(cpp_ops):
    ops = {op.name: op for op in cpp_ops.OP_LIST.op}
    assert sorted(ops) == ["AsyncAddOne", "CallCounter", "FillShaped", "FunctionList",
                           "FunctionName", "PartialShapeDims", "RepeatRows", "ScaleAndShift",
                           "ScaleClip", "StringRepeat", "UnstackRows", "WeightedAddN", "ZeroOut"]
    zero_out = ops["ZeroOut"]
    assert zero_out.summary == "Zeroes all elements of a tensor but one."
    assert zero_out.input_arg[0].description == "the tensor to copy."
    assert zero_out.attr[0].name == "preserve_index" and zero_out.attr[0].default_value.i == 0
    assert ops["CallCounter"].is_stateful and not zero_out.is_stateful
    assert ops["WeightedAddN"].input_arg[0].number_attr == "N"
    scale_clip = {a.name: a for a in ops["ScaleClip"].attr}
    assert scale_clip["scale"].default_value.f == 1.0
    assert list(scale_clip["T"].allowed_values.list.type) == [1, 2, 3, 9]


def test_plugin_needs_only_the_c_api(cpp_ops_path):
    """No C++ symbol of opgen's crosses the boundary: what the plugin takes from outside
    is C API functions (TF_, TFE_, OPGEN_) and the C/C++ standard libraries (versioned);
    and it exports no process-unique objects of namespace tensorflow that a second plugin
    would share."""
    if shutil.which("nm") is None:
        pytest.skip("nm is not installed")
    undefined = subprocess.run(["nm", "-D", "-u", str(cpp_ops_path)], capture_output=True,
                               text=True, check=True).stdout.split("\n")
    names = [line.split()[-1] for line in undefined if line.strip() and line.split()[0] == "U"]
    foreign = [n for n in names if not re.match(r"(TF_|TFE_|OPGEN_)\w+$", n) and "@" not in n]
    assert foreign == []
    assert "TF_RegisterKernelBuilder" in names and "TF_RegisterOpDefinition" in names
    defined = subprocess.run(["nm", "-D", "-C", "--defined-only", str(cpp_ops_path)],
                             capture_output=True, text=True, check=True).stdout.split("\n")
    shared = [line for line in defined if " u " in line and "tensorflow::" in line]
    assert shared == []


def test_bindings_generated_from_the_library(cpp_ops_path, tmp_path):
    """`opgen generate --from-library` reads the ops (and their Doc) from the C++ plugin."""
    run = subprocess.run([sys.executable, "-m", "opgen", "generate", "--from-library",
                          str(cpp_ops_path), "--lang", "cpp,python,rust", "--out", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    header = (tmp_path / "cpp" / "opgen_ops.h").read_text()
    assert "class ZeroOut" in header and "class WeightedAddN" in header
    assert "/// ZeroOut: Zeroes all elements of a tensor but one." in header
    python = "".join(p.read_text() for p in (tmp_path / "python").glob("_ops_*.py"))
    assert re.search(r"def zero_out\(\s*to_zero: TensorLike,\s*preserve_index: int = 0", python)
    assert "pub fn repeat_rows(" in (tmp_path / "rust" / "src" / "ops.rs").read_text()
