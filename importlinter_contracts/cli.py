"""The `importlinter-contracts` console script (also `python -m importlinter_contracts`)."""

from __future__ import annotations

import contextlib
import functools
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
from .errors import ImportlinterContractsError
from .outputs.github import github_annotations
from .running import run_contracts

EXIT_KEPT = 0
EXIT_BROKEN = 1
EXIT_ERROR = 2


def _fail(message: str) -> NoReturn:
    for line in message.splitlines() or [message]:
        click.echo(f"importlinter-contracts: {line}", err=True)
    sys.exit(EXIT_ERROR)


@click.group()
def main() -> None:
    """Check import-linter contracts and report on them for machines and reviewers."""


def _session_options(command: Callable[..., None]) -> Callable[..., None]:
    """--config, --contract, --cache-dir, --no-cache and --debug; the cache is passed on as
    `cache` (None: off), and every error is reported as `_reporting_errors` says."""

    @functools.wraps(command)
    def wrapper(cache_dir: str | None, no_cache: bool, debug: bool, **kwargs: Any) -> None:
        cache = None if no_cache else Path(cache_dir) if cache_dir else DEFAULT_CACHE_DIR
        with _reporting_errors(debug):
            command(cache=cache, **kwargs)

    for option in reversed(
        [
            click.option(
                "--config",
                default=None,
                help="The configuration file (default: as lint-imports finds it).",
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
                "--debug", is_flag=True, help="Show the full traceback of an unexpected error."
            ),
        ]
    ):
        wrapper = option(wrapper)
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
def _quiet_stdout() -> Iterator[io.StringIO]:
    """Nothing stray on stdout: import-linter draws transient progress there, which must
    carry nothing but the report. What was printed meanwhile is kept in the buffer."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        yield printed


@main.command()
@_session_options
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
    config: str | None, contracts: tuple[str, ...], cache: Path | None, output_format: str
) -> None:
    """Check the contracts, built-in ones included, as lint-imports does.

    Exit status: 0 when every contract is kept, 1 when any is broken, 2 on a configuration
    or usage error (the message goes to stderr).
    """
    with _quiet_stdout() as printed:
        result = run_contracts(config, contracts, cache)
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
@click.option("--write", is_flag=True, help="Apply the change to the configuration file.")
def allowlist(
    config: str | None, contracts: tuple[str, ...], cache: Path | None, write: bool
) -> None:
    """Show, as a unified diff of the configuration file, how each contract's ignore_imports
    must change for the tree as it is: stale entries removed, new violations added with a
    '# TODO: reason' placeholder. With --write, apply it; nothing else in the file changes.

    Exit status: 0 when nothing needs to change (or it was written), 1 when a change is
    shown, 2 on a configuration or usage error.
    """
    with _quiet_stdout():
        path, text, diff = sync(config, contracts, cache)
    if not diff:
        click.echo(f"{path}: every allowlist matches the tree.", err=True)
        sys.exit(EXIT_KEPT)
    click.echo(diff, nl=False)
    if write:
        path.write_bytes(text.encode("utf-8"))
        click.echo(f"{path}: written.", err=True)
        sys.exit(EXIT_KEPT)
    sys.exit(EXIT_BROKEN)
