"""opgen.pipeline: the one path from an OpList source to validated OpSpecs that the
CLI's generate, list, show and diff take."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen import _paths, model, opdefs, pipeline

from .test_bad_input import API_DEFS, MATMUL_OPS


@pytest.fixture
def files(tmp_path):
    ops = tmp_path / "ops.pbtxt"
    ops.write_text(MATMUL_OPS)
    api = tmp_path / "api.pbtxt"
    api.write_text(API_DEFS)
    return ops, api


def test_load_validates_applies_api_defs_and_builds_specs(files):
    ops, api = files
    loaded = pipeline.load(pipeline.Source(str(ops)), [api])
    assert [s.name for s in loaded.specs] == ["MatMul", "Scale"]
    assert loaded.specs == model.op_specs(opdefs.load(ops), loaded.api_defs)
    assert loaded.specs[0].endpoints[0] == "linalg.MatrixProduct"
    assert loaded.canonical == loaded.oplist.SerializeToString(deterministic=True)


def test_load_without_specs_reads_and_validates_only(files, tmp_path):
    ops, _ = files
    loaded = pipeline.load(pipeline.Source(str(ops)), specs=False)
    assert [op.name for op in loaded.oplist.op] == ["MatMul", "Scale"]
    assert loaded.specs == [] and loaded.canonical is None
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('op {\n  name: "Bad-Name"\n}\n')
    with pytest.raises(opdefs.OpDefError) as caught:
        pipeline.load(pipeline.Source(str(bad)), specs=False)
    assert str(caught.value).startswith(f"{bad}:2:3: op 'Bad-Name': invalid op name")


def test_api_defs_must_fit_unless_told_to_leave_out_other_ops(files, tmp_path):
    _, api = files
    older = tmp_path / "older.pbtxt"
    older.write_text(MATMUL_OPS.split("op {\n  name: \"Scale\"")[0])   # MatMul alone
    with pytest.raises(opdefs.OpDefError, match="Scale.*not in the OpList"):
        pipeline.load(pipeline.Source(str(older)), [api])
    loaded = pipeline.load(pipeline.Source(str(older)), [api], api_defs_of_other_ops=True)
    assert [s.name for s in loaded.specs] == ["MatMul"]
    assert set(loaded.api_defs.by_op) == {"MatMul"}


def test_source_names_its_files():
    assert pipeline.Source().files() == [Path(_paths.bundled_ops_path())]
    assert pipeline.Source("ops.pb").files() == [Path("ops.pb")]
    assert pipeline.Source("-").files() == []
    assert pipeline.Source(from_runtime=True).files() == []
    assert pipeline.Source(from_library="lib.so").files() == [Path("lib.so")]
    assert pipeline.Source().describe() == "the bundled ops.pbtxt"
    assert pipeline.Source(from_runtime=True).describe() == "the runtime registry"


def test_library_loader_refuses_what_is_no_library(tmp_path):
    with pytest.raises(FileNotFoundError, match="no op library at"):
        pipeline.load_library(str(tmp_path / "missing.so"))
    not_a_library = tmp_path / "x.so"
    not_a_library.write_bytes(b"not an ELF file")
    try:
        import opgen.runtime._lib as runtime_lib
        runtime_lib.lib()
    except OSError as e:   # no runtime library in this build (FileNotFoundError too)
        pytest.skip(f"the opgen runtime is not available: {e}")
    with pytest.raises(pipeline.SourceError, match=f"cannot load op library {not_a_library}"):
        pipeline.load_library(str(not_a_library))
