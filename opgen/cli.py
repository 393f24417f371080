"""The ``opgen`` command line: generate wrappers, list ops, dump the runtime registry,
list its kernels, run a frozen graph.

Every failure ends in one message on stderr and a non-zero exit status, never a
traceback (set ``OPGEN_DEBUG=1`` to see one), and nothing written.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from opgen import __version__
from opgen.cli_support import (LanguageList, complete_op_names, is_quiet, log, set_verbosity,
                               timed)

if TYPE_CHECKING:
    from opgen import pipeline

EXIT_STALE = 1      # --check found files that would change
EXIT_ERROR = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool its reader left


class _Failure(click.ClickException):
    """An expected failure: its message, and exit status EXIT_ERROR."""
    exit_code = EXIT_ERROR


def _fail(message: str) -> click.ClickException:
    from opgen.opdefs import cut_long_words  # names echoed from the input stay short
    return _Failure(cut_long_words(message))


def _source(ops: str | None, from_runtime: bool,
            from_library: str | None = None) -> pipeline.Source:
    """The OpList source --ops / --from-runtime / --from-library name."""
    from opgen import pipeline
    if from_library is not None and (ops is not None or from_runtime):
        raise click.UsageError("give one of --ops, --from-runtime and --from-library")
    if from_runtime and ops is not None:
        raise click.UsageError("give either --ops or --from-runtime, not both")
    return pipeline.Source(ops, from_runtime, from_library)


_ops_option = click.option(
    "--ops", "ops", metavar="PATH",
    help="OpList to read: protobuf text format or binary (what TF_GetAllOpList returns), "
         "told apart by content. '-' reads standard input. Default: the bundled ops.pbtxt.")
_api_def_option = click.option(
    "--api-def", "api_defs", multiple=True, metavar="DIR_OR_FILE",
    help="TensorFlow ApiDef text files (or folders of *.pbtxt) that rename, hide, skip, "
         "reorder and document ops; repeatable, later ones override earlier ones.")
_runtime_option = click.option(
    "--from-runtime", is_flag=True,
    help="Read the live op registry of the opgen runtime library instead "
         "(the library is found as opgen installs it, or via $OPGEN_RUNTIME_LIB).")
_library_option = click.option(
    "--from-library", "from_library", metavar="LIB.so",
    help="Read the ops an op library (plugin) registers when the opgen runtime loads it, "
         "as opgen.load_op_library does.")


def _input_options(command: Any) -> Any:
    """--ops, --from-runtime and --from-library: where a command reads its OpList
    (the parameters ops, from_runtime, from_library; :func:`_source` checks them)."""
    return _ops_option(_runtime_option(_library_option(command)))


def _option_group(parameter: str, build: Callable[..., Any],
                  *options: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Adds ``options`` to a command, which receives their values as one parameter,
    ``build(**values)`` (a click.BadParameter from ``build`` is a usage error)."""
    def decorate(command: Any) -> Any:
        names: list[str] = []

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in names}
            return command(*args, **kwargs, **{parameter: build(**values)})
        decorated: Any = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        names.extend(p.name for p in decorated.__click_params__[-len(options):] if p.name)
        return decorated
    return decorate


def _identity(**names: str | None) -> Any:
    from opgen.langs.identity import Identity, IdentityError
    try:
        return Identity(**{k: v for k, v in names.items() if v is not None})
    except IdentityError as e:
        raise click.BadParameter(str(e)) from None


def _name_option(flag: str, default: str, what: str,
                 metavar: str = "NAME") -> Callable[[Any], Any]:
    return click.option(flag, metavar=metavar, help=f"{what}  [default: {default}]")


_identity_options = _option_group(
    "identity", _identity,
    _name_option("--python-package", "python", "Python package (dotted) written to "
                 "OUT/<its folders>/, importable by that name with OUT on sys.path."),
    _name_option("--rust-crate", "opgen-ops", "Rust crate (Cargo package) name; its library "
                 "is the same with '_' for '-'."),
    _name_option("--rust-version", "0.1.0", "Rust crate version.", "VERSION"),
    _name_option("--go-module", "opgen.dev/tf", "Go module path (go.mod); the ops are in "
                 "its op package.", "PATH"),
    _name_option("--go-package", "tf", "Go name of the module's root package."),
    _name_option("--c-prefix", "opgen_", "C: prefix of every function and type, and of the "
                 "files (<prefix>ops.h, <prefix>ops.c).", "PREFIX"),
    _name_option("--cpp-namespace", "opgen::ops", "C++ namespace of the op classes; it also "
                 "names the header (a::b -> OUT/cpp/a_b.h)."))


def _selection(only: tuple[str, ...], exclude: tuple[str, ...], only_runnable: bool,
               kernel_docs: bool) -> dict[str, Any]:
    return {"only": only, "exclude": exclude, "only_runnable": only_runnable,
            "kernel_docs": kernel_docs}


_selection_options = _option_group(
    "selection", _selection,
    click.option("--only", multiple=True, metavar="PATTERN",
                 help="Generate only the ops whose name matches PATTERN (shell-style: * ? "
                      "[...], case-sensitive); repeatable. A pattern that matches no op is "
                      "an error."),
    click.option("--exclude", multiple=True, metavar="PATTERN",
                 help="Leave out the ops whose name matches PATTERN; repeatable."),
    click.option("--only-runnable", is_flag=True,
                 help="Generate only the ops the opgen runtime has a kernel for (built-in, "
                      "CUDA plugin, and --from-library's): no function that can only fail "
                      "with 'no kernel'."),
    click.option("--kernel-docs", is_flag=True,
                 help="End each op's docs (every language) with the devices and dtypes its "
                      "kernels in the opgen runtime run on. Off by default, so output for "
                      "an OpList stays the same whatever runtime is installed."))


def _quiet_on_closed_pipe() -> None:
    """The reader of our output went away (`opgen list | head`): stop quietly, as Unix
    tools do. stdout is pointed at /dev/null so the interpreter's final flush of what is
    still buffered cannot fail again and print a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    sys.exit(EXIT_BROKEN_PIPE)


class _Group(click.Group):
    """Turns every expected failure into a one-paragraph message."""

    def invoke(self, ctx: click.Context) -> Any:
        from opgen.generate import GenerateError
        from opgen.langs import UnknownLanguageError
        from opgen.opdefs import OpDefError, UnreadableError
        from opgen.pipeline import SourceError
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _quiet_on_closed_pipe()
        except UnreadableError as e:   # the path is the culprit, not the OpDefs
            raise _fail(f"{e}; nothing written") from None
        except OpDefError as e:
            count = len(e.problems)
            raise _fail(f"invalid OpList ({count} problem{'s' if count != 1 else ''}), "
                        f"nothing written:\n{e}") from None
        except (GenerateError, UnknownLanguageError, SourceError, FileNotFoundError,
                OSError) as e:
            raise _fail(f"{e}; nothing written") from None
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as e:  # a bug in opgen: still no traceback unless asked for
            if os.environ.get("OPGEN_DEBUG"):
                raise
            raise _fail(f"internal error: {type(e).__name__}: {e} (set OPGEN_DEBUG=1 for "
                        "a traceback); nothing written") from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="opgen")
@click.option("-q", "--quiet", is_flag=True, help="Print results and errors only: no progress "
              "or summary lines.")
@click.option("-v", "--verbose", is_flag=True, help="Also say what is loaded from where, and "
              "how long each step takes (on stderr).")
def main(quiet: bool, verbose: bool) -> None:
    """Generate language bindings for TensorFlow OpDefs.

    \b
    Shell completion (bash; zsh and fish likewise, see docs/generator.md):
      eval "$(_OPGEN_COMPLETE=bash_source opgen)"

    \b
    Examples:
      opgen generate --lang python --ops ops.pbtxt --out generated
      opgen generate --check --out generated      # exit 1 if anything is stale
      opgen list --ops tf-oplist.pb
      opgen show MatMul --ops tf-oplist.pb
      opgen diff tf-2.20-oplist.pb tf-2.21-oplist.pb
      opgen dump --from-runtime --out ops.pbtxt
      opgen kernels MatMul --device GPU
      opgen run model.pb --input x:0=image.npy --output probs:0 --benchmark 20
    """
    set_verbosity(quiet, verbose)


@main.command()
@click.option("--lang", "languages", type=LanguageList(), default="python", show_default=True,
              help="Comma-separated target languages: c, cpp, go, python, rust.")
@_input_options
@_api_def_option
@click.option("--out", "out_dir", default="generated", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Output folder; each language writes under OUT/<lang>/ (Python: "
                   "OUT/<package>/, see --python-package).")
@click.option("--check", is_flag=True,
              help="Write nothing; list the files that would change and exit 1 if any would.")
@click.option("--depfile", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a Make-style depfile (outputs: OpList file, ApiDef files and "
                   "templates), for CMake's DEPFILE or Ninja.")
@_selection_options
@_identity_options
def generate(languages: list[str], ops: str | None, from_runtime: bool, from_library: str | None,
             api_defs: tuple[str, ...], out_dir: Path, check: bool,
             depfile: Path | None, selection: dict[str, Any], identity: Any) -> None:
    """Generate wrapper code for every op of an OpList.

    Output is sorted by op name and byte-stable; files whose content is unchanged are
    not rewritten; files an earlier run wrote that are no longer produced are removed.
    Python goes to OUT/python/ (a package: __init__.py, __init__.pyi, _ops_*.py).
    C goes to OUT/c/ (opgen_ops.h, opgen_ops.c); C++ to OUT/cpp/ (opgen_framework.h,
    opgen_ops.h, header-only); Rust to OUT/rust/ (crate opgen-ops), Go to OUT/go/
    (module opgen.dev/tf). The --python-package ... --cpp-namespace options rename them.

    All ops are generated unless --only, --exclude or --only-runnable select some.
    --kernel-docs (off by default: the output then depends on the runtime installed)
    adds to each op's docs where it runs here; `opgen kernels` lists the same.

    \b
    Examples:
      opgen generate --lang python --ops ops.pbtxt --out generated
      cat oplist.pb | opgen generate --ops - --out build/gen
      opgen generate --from-runtime --out build/gen
      opgen generate --from-library build/libmy_ops.so --lang python --out gen
      opgen generate --check --ops ops.pbtxt --out generated
      opgen generate --ops ops.pbtxt --out gen --depfile gen/opgen.d
      opgen generate --ops tf-oplist.pb --api-def api_def/base_api --api-def api_def/python_api
      opgen generate --ops tf-oplist.pb --only-runnable --python-package myproj.tf_ops
      opgen generate --lang c,rust --only 'Conv*' --exclude '*Backprop*' --c-prefix my_
    """
    from opgen import generate as gen
    from opgen import pipeline

    names = languages  # checked by LanguageList before the OpList is read
    source = _source(ops, from_runtime, from_library)
    loaded = pipeline.load(source, api_defs)
    specs, described = _selected(loaded, source, **selection)
    with timed(f"rendered {', '.join(names)}"):
        files = gen.render_specs(specs, names, described, identity)
    stale = gen.stale_files(files, out_dir, names, identity)
    if depfile is not None and not check:
        inputs = source.files() + (loaded.api_defs.files if loaded.api_defs is not None else [])
        content = gen.depfile([out_dir / f.path for f in files], inputs + gen.template_paths(names))
        # An absolute path: the writer puts it beside, not under, the output folder.
        files.append(gen.GeneratedFile(depfile.resolve(), content))
    with timed(f"{'checked' if check else 'wrote'} {len(files)} files under {out_dir}"):
        result = gen.write(files, out_dir, check=check, remove=stale)
    listed = check or not is_quiet()   # what --check finds is its result; progress is not
    for path in result.changed if listed else ():
        click.echo(f"{'stale' if check else 'wrote'}: {out_dir / path}")
    for path in result.removed if listed else ():
        click.echo(f"{'obsolete' if check else 'removed'}: {out_dir / path}")
    if check and (result.changed or result.removed):
        log.info(f"{len(result.changed)} file(s) out of date, {len(result.removed)} obsolete; "
                 "run `opgen generate` without --check")
        sys.exit(EXIT_STALE)


def _selected(loaded: pipeline.Loaded, source: pipeline.Source, only: tuple[str, ...],
              exclude: tuple[str, ...], only_runnable: bool,
              kernel_docs: bool) -> tuple[list[Any], str]:
    """The specs `generate` writes (--only, --exclude, --only-runnable, --kernel-docs) and
    the OpList as the files' headers name it (with how many ops were selected)."""
    from opgen import generate as gen
    from opgen import op_selection
    kernels = op_selection.registered_kernels() if only_runnable or kernel_docs else {}
    try:
        specs = op_selection.select(loaded.specs, only, exclude,
                                    set(kernels) if only_runnable else None,
                                    where=source.describe())
    except op_selection.SelectionError as e:
        raise _fail(f"{e}; nothing written") from None
    if kernel_docs:
        specs = op_selection.with_kernel_docs(specs, kernels)
    described = gen.describe_oplist(loaded.oplist, canonical=loaded.canonical)
    if len(specs) != len(loaded.specs):
        described += f", {len(specs)} of them selected"
    return specs, described


@main.command("list")
@_input_options
def list_ops(ops: str | None, from_runtime: bool, from_library: str | None) -> None:
    """Print the op names of an OpList, one per line, sorted.

    \b
    Examples:
      opgen list
      opgen list --ops tf-oplist.pb | grep Conv
      opgen list --from-library build/libmy_ops.so
    """
    from opgen import pipeline
    oplist = pipeline.load(_source(ops, from_runtime, from_library), specs=False).oplist
    for name in sorted(op.name for op in oplist.op):
        click.echo(name)


@main.command()
@click.argument("op_name", metavar="OP", shell_complete=complete_op_names)
@_input_options
@_api_def_option
def show(op_name: str, ops: str | None, from_runtime: bool, from_library: str | None,
         api_defs: tuple[str, ...]) -> None:
    """Print the OpSpec of OP as the templates see it: names after ApiDefs, inputs,
    attrs (inferred, required, optional with defaults and allowed values), outputs, docs.

    \b
    Examples:
      opgen show AddV2
      opgen show Conv2D --ops tf-oplist.pb
      opgen show MatMul --ops tf-oplist.pb --api-def api_def/base_api
      opgen show WeightedSum --from-library build/libmy_ops.so
    """
    import difflib

    from opgen import pipeline
    from opgen import show as show_module
    source = _source(ops, from_runtime, from_library)
    specs = {spec.name: spec for spec in pipeline.load(source, api_defs).specs}
    spec = specs.get(op_name)
    if spec is None:
        where = source.describe()
        close = difflib.get_close_matches(op_name, list(specs), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise _fail(f"{where}: no op named '{op_name}' among {len(specs)} ops{hint}")
    click.echo(show_module.format_spec(spec), nl=False)


@main.command()
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="[NEW]", required=False)
@_input_options
@_api_def_option
@click.option("--old-api-def", "old_api_defs", multiple=True, metavar="DIR_OR_FILE",
              help="ApiDefs for OLD alone (repeatable); default: those of --api-def. With "
                   "them, renamed, deprecated and removed endpoints show up as changes.")
def diff(old: str, new: str | None, ops: str | None, from_runtime: bool,
         from_library: str | None, api_defs: tuple[str, ...],
         old_api_defs: tuple[str, ...]) -> None:
    """Compare two OpLists: added and removed ops, and every change to an op, each
    classified as breaking callers or compatible, one per line (OP: breaking|compatible:
    what), then a summary line. Exits 1 when anything breaks.

    NEW is a file, or else the OpList --ops, --from-runtime or --from-library names.

    \b
    Examples:
      opgen diff tf-2.20-oplist.pb tf-2.21-oplist.pb
      opgen diff old/ops.pbtxt ops.pbtxt --api-def api_def/python_api
      opgen diff ops.pbtxt ops.pbtxt --old-api-def old_api_def/ --api-def api_def/
      opgen diff ops.pbtxt --from-runtime
      opgen diff my_ops-1.0.pbtxt --from-library build/libmy_ops.so | grep breaking
    """
    from opgen import diff as diff_module
    from opgen import pipeline
    given = ops is not None or from_runtime or from_library is not None
    if new is not None and given:
        raise click.UsageError("give NEW or one of --ops, --from-runtime and --from-library, "
                               "not both")
    if new is None and not given:
        raise click.UsageError("say what to compare OLD with: NEW, --ops, --from-runtime "
                               "or --from-library")
    new_source = pipeline.Source(new) if new is not None else _source(ops, from_runtime,
                                                                        from_library)
    old_specs = pipeline.load(pipeline.Source(old), old_api_defs or api_defs,
                              api_defs_of_other_ops=True).specs
    new_specs = pipeline.load(new_source, api_defs).specs
    result = diff_module.diff_specs(old_specs, new_specs)
    click.echo(diff_module.format_diff(result), nl=False)
    if result.has_breaking:
        sys.exit(EXIT_STALE)


@main.command()
@_ops_option
@_runtime_option
@click.option("--format", "fmt", type=click.Choice(["text", "binary"]), default="text",
              show_default=True, help="Protobuf text format or binary wire format.")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path),
              help="File to write (atomically); default: standard output.")
def dump(ops: str | None, from_runtime: bool, fmt: str, out_file: Path | None) -> None:
    """Write an OpList out, sorted by op name.

    Usually the runtime's live registry: this is how ops.pbtxt is produced.

    \b
    Examples:
      opgen dump --from-runtime --out ops.pbtxt
      opgen dump --ops oplist.pb --format text
    """
    from opgen import generate as gen
    from opgen import opdefs, pipeline

    if not from_runtime and ops is None:
        raise click.UsageError("say what to dump: --from-runtime or --ops PATH")
    oplist = pipeline.load_oplist(_source(ops, from_runtime))
    data = opdefs.to_text(oplist).encode("utf-8") if fmt == "text" else opdefs.to_binary(oplist)
    if out_file is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    gen.write([gen.GeneratedFile(Path(out_file.name), data)], out_file.parent or Path("."))


@main.command()
@click.argument("op_names", metavar="[OP]...", nargs=-1, shell_complete=complete_op_names)
@click.option("--device", "device_type", metavar="TYPE",
              help="Only the kernels of this device type (CPU, GPU).")
@click.option("--from-library", "libraries", metavar="LIB.so", multiple=True,
              help="Load this op library (plugin) first, so its kernels are listed too; "
                   "repeatable.")
def kernels(op_names: tuple[str, ...], device_type: str | None, libraries: tuple[str, ...]) -> None:
    """Print the kernels the opgen runtime has, one per line, sorted: op, device type,
    dtypes (attr=dtype), then host-memory args, label and priority where set,
    tab-separated.

    GPU kernels are listed wherever opgen was built with its CUDA plugin, even on a
    machine without a GPU (a note on stderr says so): they are what a GPU would run.

    \b
    Examples:
      opgen kernels MatMul
      opgen kernels --device GPU | cut -f1 | sort -u
      opgen kernels --from-library build/libmy_ops.so WeightedSum
    """
    import opgen
    from opgen import pipeline
    from opgen.runtime.kernels import describe_kernel

    for path in libraries:
        pipeline.load_library(path)  # loads it, registering its kernels
    listed = list(opgen.registered_kernels().kernel)
    wanted = device_type.upper() if device_type else None
    if wanted is not None:
        known = sorted({k.device_type.upper() for k in listed})
        if wanted not in known:
            raise click.BadParameter(f"{device_type!r} has no kernels here; device types "
                                     f"with kernels: {', '.join(known)}",
                                     param_hint="'--device'")
        listed = [k for k in listed if k.device_type.upper() == wanted]
    if op_names:
        have = {k.op for k in listed}
        missing = [name for name in op_names if name not in have]
        if missing:
            where = f" on {wanted}" if wanted else ""
            raise _fail(f"no kernels{where} for {', '.join(missing)}")
        listed = [k for k in listed if k.op in set(op_names)]
    for line in sorted(describe_kernel(k) for k in listed):
        click.echo(line)
    reason = opgen.device_unavailable_reason("GPU")
    if reason and any(k.device_type == "GPU" for k in listed):
        log.info(f"note: GPU kernels are listed, but this machine has no GPU: {reason}")


@main.command("run")
@click.argument("model_path", metavar="MODEL", type=click.Path(exists=True, path_type=Path))
@click.option("--signature", "-s", default=None, metavar="NAME",
              help="For a SavedModel directory: the signature to run (default: "
                   "serving_default, or the only one). Inputs may be named by its keys.")
@click.option("--tags", default=None, metavar="TAG[,TAG]",
              help="For a SavedModel directory: the MetaGraphDef's tag set (default: the "
                   "only one, or serve).")
@click.option("--input", "-i", "inputs", multiple=True, metavar="NAME=FILE.npy",
              help="Feed this .npy array to the tensor NAME (\"x\" means \"x:0\"); repeatable.")
@click.option("--random-inputs", is_flag=True,
              help="Feed random values shaped as each Placeholder says (unknown sizes: 1).")
@click.option("--output", "-o", "outputs", multiple=True, metavar="NAME",
              help="Fetch this tensor; repeatable. Default: the outputs nothing else reads.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.npz", help="Save the outputs to this .npz (keys: tensor names).")
@click.option("--optimize/--no-optimize", default=None,
              help="Run with or without the session's graph optimizer "
                   "(default: on, unless $OPGEN_GRAPH_OPTIMIZER=0).")
@click.option("--benchmark", "runs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Time N runs after a warm-up and print latency percentiles.")
@click.option("--warmup", type=click.IntRange(min=0), default=2, show_default=True,
              help="Untimed runs before --benchmark's timed ones.")
def run(model_path: Path, signature: str | None, tags: str | None, inputs: tuple[str, ...],
        random_inputs: bool, outputs: tuple[str, ...], save_path: Path | None,
        optimize: bool | None, runs: int | None, warmup: int) -> None:
    """Run a frozen TensorFlow graph (a GraphDef .pb or .pbtxt), or a signature of a
    SavedModel directory, on .npy inputs and print or save its outputs.

    \b
    Examples:
      opgen run model.pb --input x:0=image.npy --output probs:0
      opgen run model.pb --random-inputs --benchmark 50
      opgen run model.pb -i x=batch.npy --save out.npz --no-optimize
      opgen run saved_model_dir --signature serving_default -i x=batch.npy
    """
    import numpy as np

    from opgen import run_model
    from opgen.runtime import errors

    try:
        model = run_model.load(model_path, signature, tags, optimize)
        if random_inputs and inputs:
            raise click.UsageError("give either --input or --random-inputs, not both")
        feeds = run_model.random_inputs(model) if random_inputs else run_model.read_inputs(model, list(inputs))
        fetches = run_model.check_outputs(model, list(outputs)) if outputs else run_model.guess_outputs(model)
        if not fetches:
            raise run_model.ModelError(f"{model_path} has no outputs to fetch: name them with --output")
        session = run_model.make_session(model, optimize)
        try:
            values = session.run(fetches, feeds)
            if runs is not None:
                with click.progressbar(length=runs, label="timing", file=sys.stderr,
                                       show_pos=True, hidden=is_quiet()) as bar:
                    last = [0]

                    def advance(done: int) -> None:
                        bar.update(done - last[0])
                        last[0] = done

                    timing = run_model.benchmark(session, fetches, feeds, runs, warmup, advance)
        finally:
            session.close()
    except run_model.ModelError as e:
        raise _fail(str(e)) from None
    except errors.OpError as e:
        raise _fail(f"running {model_path} failed: {type(e).__name__}: {e}") from None
    if save_path is not None:
        np.savez(save_path, **dict(zip(fetches, values)))
        log.info(f"saved {len(fetches)} output{'s' if len(fetches) != 1 else ''} to {save_path}")
    else:
        for name, value in zip(fetches, values):
            click.echo(run_model.describe(name, value))
    if runs is not None:
        click.echo(timing.summary())


@main.command()
@click.option("--cflags", is_flag=True,
              help="Compiler flags: -I for the runtime's C headers (tensorflow/c/c_api.h).")
@click.option("--libs", is_flag=True,
              help="Linker flags: -L, -l and -Wl,-rpath for the runtime library.")
@click.option("--cmake-dir", is_flag=True,
              help="The folder holding opgenConfig.cmake, for find_package(opgen) "
                   "(as opgen_DIR or CMAKE_PREFIX_PATH).")
@click.option("--pkgconfig-dir", is_flag=True,
              help="The folder holding opgen.pc, for PKG_CONFIG_PATH.")
def config(cflags: bool, libs: bool, cmake_dir: bool, pkgconfig_dir: bool) -> None:
    """Print where the installed headers, runtime library and CMake package live.
    `--cflags --libs` prints both on one line, as pkg-config does.

    \b
    Examples:
      cc prog.c $(opgen config --cflags --libs)
      cmake -DCMAKE_PREFIX_PATH="$(opgen config --cmake-dir)" ..
      PKG_CONFIG_PATH="$(opgen config --pkgconfig-dir)" pkg-config --cflags --libs opgen
    """
    from opgen import config as config_module
    for flag, given in (("--cmake-dir", cmake_dir), ("--pkgconfig-dir", pkgconfig_dir)):
        if given and (cflags or libs or (cmake_dir and pkgconfig_dir)):
            raise click.UsageError(f"{flag} prints a folder: ask for it alone")
    if cmake_dir or pkgconfig_dir:
        folder = config_module.cmake_dir() if cmake_dir else config_module.pkgconfig_dir()
        click.echo(str(folder))
    elif cflags or libs:
        parts = [config_module.cflags()] if cflags else []
        if libs:
            parts.append(config_module.libs())
        click.echo(" ".join(parts))
    else:
        raise click.UsageError("say what to print: --cflags, --libs (both may be given), "
                               "--cmake-dir or --pkgconfig-dir")


if __name__ == "__main__":  # pragma: no cover
    main()
