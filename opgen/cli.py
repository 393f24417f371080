"""The ``opgen`` command line: generate wrappers, list ops, dump the runtime registry.

Every failure ends in one message on stderr and a non-zero exit status, never a
traceback (set ``OPGEN_DEBUG=1`` to see one), and nothing written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from opgen import __version__

EXIT_STALE = 1      # --check found files that would change
EXIT_ERROR = 2


def _fail(message: str) -> "click.ClickException":
    error = click.ClickException(message)
    error.exit_code = EXIT_ERROR
    return error


def _load(ops: str | None, from_runtime: bool):
    """The OpList named by --ops / --from-runtime, validated."""
    from opgen import _paths, opdefs

    if from_runtime:
        if ops is not None:
            raise click.UsageError("give either --ops or --from-runtime, not both")
        return opdefs.load_runtime_registry()
    if ops is None:
        ops = str(_paths.bundled_ops_path())
    return opdefs.load(ops)


_ops_option = click.option(
    "--ops", "ops", metavar="PATH",
    help="OpList to read: protobuf text format or binary (what TF_GetAllOpList returns), "
         "told apart by content. '-' reads standard input. Default: the bundled ops.pbtxt.")
_runtime_option = click.option(
    "--from-runtime", is_flag=True,
    help="Read the live op registry of the opgen runtime library instead "
         "(the library is found as opgen installs it, or via $OPGEN_RUNTIME_LIB).")


class _Group(click.Group):
    """Turns every expected failure into a one-paragraph message."""

    def invoke(self, ctx):
        from opgen.generate import GenerateError
        from opgen.langs import UnknownLanguageError
        from opgen.opdefs import OpDefError
        try:
            return super().invoke(ctx)
        except OpDefError as e:
            count = len(e.problems)
            raise _fail(f"invalid OpList ({count} problem{'s' if count != 1 else ''}), "
                        f"nothing written:\n{e}") from None
        except (GenerateError, UnknownLanguageError, FileNotFoundError, OSError) as e:
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
def main() -> None:
    """Generate language bindings for TensorFlow OpDefs.

    \b
    Examples:
      opgen generate --lang python --ops ops.pbtxt --out generated
      opgen generate --check --out generated      # exit 1 if anything is stale
      opgen list --ops tf-oplist.pb
      opgen dump --from-runtime --out ops.pbtxt
    """


@main.command()
@click.option("--lang", "languages", default="python", show_default=True, metavar="LANGS",
              help="Comma-separated target languages.")
@_ops_option
@_runtime_option
@click.option("--out", "out_dir", default="generated", show_default=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Output folder; each language writes under OUT/<lang>/.")
@click.option("--check", is_flag=True,
              help="Write nothing; list the files that would change and exit 1 if any would.")
@click.option("--depfile", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write a Make-style depfile (outputs: OpList file and templates), "
                   "for CMake's DEPFILE or Ninja.")
def generate(languages: str, ops: str | None, from_runtime: bool, out_dir: Path, check: bool,
             depfile: Path | None) -> None:
    """Generate wrapper code for every op of an OpList.

    Output is sorted by op name and byte-stable; files whose content is unchanged are
    not rewritten. Python goes to OUT/python/__init__.py.

    \b
    Examples:
      opgen generate --lang python --ops ops.pbtxt --out generated
      cat oplist.pb | opgen generate --ops - --out build/gen
      opgen generate --from-runtime --out build/gen
      opgen generate --check --ops ops.pbtxt --out generated
      opgen generate --ops ops.pbtxt --out gen --depfile gen/opgen.d
    """
    from opgen import generate as gen
    from opgen import langs

    names = [name.strip() for name in languages.split(",") if name.strip()]
    if not names:
        raise click.BadParameter(f"no language given; known: {', '.join(langs.known())}",
                                 param_hint="--lang")
    for name in names:
        langs.get(name)  # unknown languages fail before the OpList is read
    oplist = _load(ops, from_runtime)
    files = gen.render(oplist, names)
    if depfile is not None and not check:
        from opgen import _paths
        source = [] if from_runtime or ops == "-" else [Path(ops or _paths.bundled_ops_path())]
        content = gen.depfile([out_dir / f.path for f in files], source + gen.template_paths(names))
        # An absolute path: the writer puts it beside, not under, the output folder.
        files.append(gen.GeneratedFile(depfile.resolve(), content))
    result = gen.write(files, out_dir, check=check)
    for path in result.changed:
        shown = out_dir / path
        click.echo(f"{'stale' if check else 'wrote'}: {shown}")
    if check and result.changed:
        click.echo(f"{len(result.changed)} file(s) out of date; run `opgen generate` "
                   "without --check", err=True)
        sys.exit(EXIT_STALE)


@main.command("list")
@_ops_option
@_runtime_option
def list_ops(ops: str | None, from_runtime: bool) -> None:
    """Print the op names of an OpList, one per line, sorted.

    \b
    Examples:
      opgen list
      opgen list --ops tf-oplist.pb | grep Conv
    """
    oplist = _load(ops, from_runtime)
    for name in sorted(op.name for op in oplist.op):
        click.echo(name)


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
    from opgen import opdefs

    if not from_runtime and ops is None:
        raise click.UsageError("say what to dump: --from-runtime or --ops PATH")
    oplist = _load(ops, from_runtime)
    data = opdefs.to_text(oplist).encode("utf-8") if fmt == "text" else opdefs.to_binary(oplist)
    if out_file is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    gen.write([gen.GeneratedFile(Path(out_file.name), data)], out_file.parent or Path("."))


if __name__ == "__main__":  # pragma: no cover
    main()
