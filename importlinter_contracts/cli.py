"""The `importlinter-contracts` console script (also `python -m importlinter_contracts`)."""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from . import _importlinter
from .allowlist.sync import sync
from .cache import DEFAULT_CACHE_DIR
from .configuration import find_configuration
from .errors import ImportlinterContractsError, UsageError
from .files import write_atomically
from .outputs.github import github_annotations
from .report import SkippedContract
from .running import run_contracts, static_only

EXIT_KEPT = 0
EXIT_BROKEN = 1
EXIT_ERROR = 2


def _fail(message: str) -> NoReturn:
    for line in message.splitlines() or [message]:
        click.echo(f"importlinter-contracts: {line}", err=True)
    sys.exit(EXIT_ERROR)


def _version_message() -> str:
    linter, grimp = (importlib.metadata.version(name) for name in ("import-linter", "grimp"))
    return f"importlinter-contracts %(version)s (import-linter {linter}, grimp {grimp})"


@click.group()
@click.version_option(package_name="importlinter-contracts", message=_version_message())
def main() -> None:
    """Check import-linter contracts and report on them for machines and reviewers."""


def _session_options(command: Callable[..., None]) -> Callable[..., None]:
    """What every command takes, as lint-imports takes it: the configuration file (CONFIG_FILE
    or --config), --contract, --cache-dir, --no-cache, --verbose and --debug; the command gets
    `config`, `cache` (None: off) and `verbose`, and every error is reported as
    `_reporting_errors` says."""

    @functools.wraps(command)
    def wrapper(
        config_file: str | None,
        config: str | None,
        cache_dir: str | None,
        no_cache: bool,
        debug: bool,
        **kwargs: Any,
    ) -> None:
        cache = None if no_cache else Path(cache_dir) if cache_dir else DEFAULT_CACHE_DIR
        with _reporting_errors(debug):
            if config_file and config and config_file != config:
                raise UsageError(
                    f"Two configuration files given, {config_file} and --config {config}: give one."
                )
            command(config=config_file or config, cache=cache, **kwargs)

    for decorator in reversed(
        [
            click.argument("config_file", required=False, metavar="[CONFIG_FILE]"),
            click.option(
                "--config",
                default=None,
                help="The configuration file, as CONFIG_FILE (default: as lint-imports finds "
                "it: setup.cfg, .importlinter or pyproject.toml).",
            ),
            click.option(
                "--contract",
                "contracts",
                multiple=True,
                help="Only this contract id; may be repeated.",
            ),
            click.option(
                "--cache-dir",
                default=None,
                help=f"The cache directory (default: {DEFAULT_CACHE_DIR}).",
            ),
            click.option("--no-cache", is_flag=True, help="Neither read nor write any cache."),
            click.option(
                "--verbose",
                is_flag=True,
                help="Print lint-imports' progress lines, on stderr.",
            ),
            click.option(
                "--debug", is_flag=True, help="Show the full traceback of an unexpected error."
            ),
        ]
    ):
        wrapper = decorator(wrapper)
    return wrapper


@contextlib.contextmanager
def _reporting_errors(debug: bool) -> Iterator[None]:
    """Our errors as one line each on stderr, exit 2; an unexpected error likewise, or with
    `debug` its whole traceback (as `lint-imports --debug` shows it)."""
    try:
        yield
    except ImportlinterContractsError as error:
        if debug:
            raise
        _fail(str(error))
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as error:
        if debug:
            raise
        _fail(f"unexpected error: {type(error).__name__}: {error} (--debug shows where)")


@contextlib.contextmanager
def _quiet_stdout(verbose: bool) -> Iterator[io.StringIO]:
    """Nothing stray on stdout: import-linter draws transient progress there, and prints its
    --verbose lines there, while stdout must carry nothing but the report. The progress is
    dropped, the verbose lines go to stderr; without --verbose, what the contracts print
    while checking is kept in the buffer, for the text report to show."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(sys.stderr if verbose else printed):
        yield printed


_static_option = click.option(
    "--static",
    is_flag=True,
    help="Skip the contracts that run the code they check (runtime_isolation, and any type "
    "that does not declare executes_analysed_code = False), saying which on stderr.",
)


def _say_skipped(skipped: list[SkippedContract]) -> None:
    for contract in skipped:
        click.echo(
            f"importlinter-contracts: skipped {contract['id'] or contract['name']} "
            f"({contract['type']}): it {contract['reason']}.",
            err=True,
        )


@main.command()
@_session_options
@_static_option
@click.option(
    "--show-timings",
    is_flag=True,
    help="Show how long the graph build and each contract's check took (text and json).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="text: as lint-imports prints it; json: one JSON document on stdout; "
    "github: a GitHub Actions error annotation per finding.",
)
def check(
    config: str | None,
    contracts: tuple[str, ...],
    cache: Path | None,
    verbose: bool,
    static: bool,
    show_timings: bool,
    output_format: str,
) -> None:
    """Check the contracts, built-in ones included, as lint-imports does.

    Exit status: 0 when every contract checked is kept, 1 when any is broken, 2 on a
    configuration or usage error (the message goes to stderr).
    """
    with _quiet_stdout(verbose) as printed:
        result = run_contracts(
            config,
            contracts,
            cache,
            select=static_only if static else None,
            show_timings=show_timings,
            verbose=verbose,
        )
    _say_skipped(result.skipped)
    if output_format == "json":
        click.echo(json.dumps(result.as_data(), indent=2))
    elif output_format == "github":
        for command in github_annotations(result.as_data(), find_configuration(config)):
            click.echo(command)
    else:
        # What the contracts printed while checking, as lint-imports shows it.
        click.echo(printed.getvalue(), nl=False)
        _importlinter.render_report(result.report)
    sys.exit(EXIT_KEPT if result.kept else EXIT_BROKEN)


@main.command()
@_session_options
@_static_option
@click.option("--write", is_flag=True, help="Apply the change to the configuration file.")
def allowlist(
    config: str | None,
    contracts: tuple[str, ...],
    cache: Path | None,
    verbose: bool,
    static: bool,
    write: bool,
) -> None:
    """Show, as a unified diff of the configuration file, how each contract's allowlist
    (ignore_imports; ignore_loaded_modules) must change for the tree as it is: stale entries
    removed, new violations added with a '# TODO: reason' placeholder. With --write, apply
    it; nothing else in the file changes. Only the contracts that have an allowlist are
    checked.

    Exit status: 0 when nothing needs to change (or it was written), 1 when a change is
    shown, 2 on a configuration or usage error.
    """
    with _quiet_stdout(verbose):
        path, text, diff, skipped = sync(config, contracts, cache, verbose, static)
    _say_skipped(skipped)
    if not diff:
        click.echo(f"{path}: every allowlist matches the tree.", err=True)
        sys.exit(EXIT_KEPT)
    click.echo(diff, nl=False)
    if write:
        write_atomically(path, text.encode("utf-8"))
        click.echo(f"{path}: written.", err=True)
        sys.exit(EXIT_KEPT)
    sys.exit(EXIT_BROKEN)
