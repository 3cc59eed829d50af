"""The `importlinter-contracts` console script (also `python -m importlinter_contracts`)."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__, _importlinter
from .allowlist.entries import PLACEHOLDER_REASON
from .cache import DEFAULT_CACHE_DIR
from .deferral.edit import FORMS, IN_FUNCTIONS, KEYWORD, LAZY_MODULES
from .errors import CacheWarning, ImportlinterContractsError, MeasureError, UsageError
from .files import write_atomically
from .report import ClosureReport, Hop, SkippedContract, WhyReport, contract_key
from .running import named, run_contracts, static_only

# Each command imports what only it needs when it runs (explore, measure, review, fix, the
# allowlist's sync, the report formats other than text): every start of the console script
# pays for what this module imports, and `check`, which a hook runs on every commit, needs
# none of them.

EXIT_KEPT = 0
EXIT_BROKEN = 1
EXIT_ERROR = 2


def _fail(message: str) -> NoReturn:
    for line in message.splitlines() or [message]:
        click.echo(f"importlinter-contracts: {line}", err=True)
    sys.exit(EXIT_ERROR)


def _print_version(context: click.Context, _: click.Parameter, value: bool) -> None:
    """--version: this package's, import-linter's and grimp's, read only when asked for, and
    which build of this package runs (compiled or pure Python)."""
    if not value or context.resilient_parsing:
        return
    import importlib.metadata

    from .compiled import build

    linter, grimp = (importlib.metadata.version(name) for name in ("import-linter", "grimp"))
    click.echo(
        f"importlinter-contracts {__version__} (import-linter {linter}, grimp {grimp}; {build()})"
    )
    context.exit()


def _exit_status(statuses: str) -> str:
    """Return the end of a command's help: its exit statuses, the signals' ones last."""
    return (
        f"Exit status: {statuses} A run that SIGINT (Ctrl-C), SIGTERM or SIGHUP ends exits "
        "with 128 + the signal's number: 130, 143 or 129."
    )


class _Commands(click.Group):
    """The console script's commands, whose usage errors (an unknown command or option, a
    value that an option refuses, a missing argument) are one line, as every other mistake
    is, where click would print the usage and a hint on lines of their own."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        with _usage_errors_in_one_line():
            return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        # (A command's own options are parsed here, as the command is chosen.)
        with _usage_errors_in_one_line():
            return super().invoke(ctx)


# What click (8.2 and later) raises to show the help of a bare `importlinter-contracts`.
_HELP_AS_ERROR: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


@contextlib.contextmanager
def _usage_errors_in_one_line() -> Iterator[None]:
    """Each usage error of click as one line, `_fail`'s, with click's reason and the command
    whose --help shows the usage; the help that a bare `importlinter-contracts` shows (a
    usage error from click 8.2 on) as click shows it."""
    try:
        yield
    except click.UsageError as error:
        if isinstance(error, _HELP_AS_ERROR):
            raise
        context = error.ctx
        command = "importlinter-contracts"
        if context is not None and context.parent is not None:
            command += f" {context.info_name}"
        reason = error.format_message()
        end = "" if reason.endswith((".", "?")) else "."
        _fail(f"{reason}{end} Run {command} --help for the usage.")


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def main() -> None:
    """Check import-linter contracts and report on them for machines and reviewers.

    A run that SIGINT (Ctrl-C), SIGTERM or SIGHUP ends stops every process it started and
    exits with 128 + the signal's number (130 for Ctrl-C).
    """


def _session_options(command: Callable[..., None]) -> Callable[..., None]:
    """What every command that checks contracts takes, as lint-imports takes it: the
    configuration file (CONFIG_FILE or --config), --contract, --cache-dir, --no-cache,
    --verbose and --debug; the command gets `config`, `contracts`, `cache` (None: off) and
    `verbose`, and every error is reported as `_reporting_errors` says."""
    return _graph_options(
        click.option(
            "--contract",
            "contracts",
            multiple=True,
            help="Only this contract id; may be repeated.",
        )(command)
    )


def _graph_options(command: Callable[..., None]) -> Callable[..., None]:
    """The session options of a command that asks the graph and checks no contract: as
    `_session_options`, without --contract."""

    @functools.wraps(command)
    def wrapper(
        config_file: str | None,
        config: str | None,
        cache_dir: str | None,
        no_cache: bool,
        debug: bool,
        **kwargs: Any,
    ) -> None:
        with _reporting_errors(debug), _cache_warnings_on_stderr():
            found = "give the configuration file, or leave {} out for the one lint-imports finds"
            _not_empty("CONFIG_FILE", config_file, found.format("it"))
            _not_empty("--config", config, found.format("--config"))
            _not_empty("--cache-dir", cache_dir, "give a folder, or --no-cache for none")
            cache = None if no_cache else Path(cache_dir) if cache_dir else DEFAULT_CACHE_DIR
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


def _not_empty(option: str, value: str | None, advice: str) -> None:
    """Raises UsageError for an option (or argument) given empty, which would read as not
    given, the default taken without a word; `advice` says what to give."""
    if value is not None and not value.strip():
        raise UsageError(f"{option} is empty: {advice}.")


@contextlib.contextmanager
def _reporting_errors(debug: bool) -> Iterator[None]:
    """Our errors as one line each on stderr, exit 2; an unexpected error likewise, or with
    `debug` its whole traceback (as `lint-imports --debug` shows it)."""
    try:
        yield
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as error:
        if debug:
            # Printed rather than raised: an uncaught exception would exit with 1, which
            # says that a contract is broken.
            click.echo(traceback.format_exc(), err=True, nl=False)
            sys.exit(EXIT_ERROR)
        if isinstance(error, ImportlinterContractsError):
            _fail(str(error))
        _fail(f"unexpected error: {type(error).__name__}: {error} (--debug shows where)")


@contextlib.contextmanager
def _cache_warnings_on_stderr() -> Iterator[None]:
    """Each warning that a cache cannot be used (`CacheWarning`: every command that builds
    the graph may give one), as one line on stderr when it comes, once however often the
    command builds the graph (review and fix --write build it twice)."""
    shown: set[str] = set()
    show_other = warnings.showwarning

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if not issubclass(category, CacheWarning):
            show_other(message, category, *args, **kwargs)
        elif str(message) not in shown:
            shown.add(str(message))
            click.echo(f"importlinter-contracts: warning: {message}", err=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", CacheWarning)
        warnings.showwarning = show
        yield


@contextlib.contextmanager
def _warnings_on_stderr() -> Iterator[list[str]]:
    """Python warnings from the explorer (a file whose calls cannot be read, a dynamic import
    whose module name is computed, a cache that cannot be written) as one line each on
    stderr, after the command's own output; and, once the block has run, in the list it
    gives (for the JSON output)."""
    found: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield found
    found += dict.fromkeys(str(warning.message) for warning in caught)
    cache = {str(w.message) for w in caught if issubclass(w.category, CacheWarning)}
    for message in found:
        if message in cache:
            # (Said once however often the command built the graph: `_cache_warnings_on_stderr`.)
            warnings.warn(message, CacheWarning, stacklevel=1)
        else:
            click.echo(f"importlinter-contracts: warning: {message}", err=True)


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
            f"importlinter-contracts: skipped {named(contract)}: it {contract['reason']}.",
            err=True,
        )


@main.command(
    epilog=_exit_status(
        "0 when every contract checked is kept, 1 when any is broken, 2 on a configuration or "
        "usage error (the message goes to stderr)."
    )
)
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
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="text: as lint-imports prints it; json: one JSON document on stdout; "
    "github: a GitHub Actions annotation per finding; sarif: SARIF 2.1.0 for code scanning.",
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
    """Check the contracts, built-in ones included, as lint-imports does."""
    with _quiet_stdout(verbose) as printed:
        result = run_contracts(
            config,
            contracts,
            cache,
            select=static_only if static else None,
            show_timings=show_timings,
            verbose=verbose,
            # (Only the json report shows a kept contract's.)
            smallest_cuts=output_format == "json",
        )
    _say_skipped(result.skipped)
    if output_format == "json":
        click.echo(json.dumps(result.as_data(), indent=2))
    elif output_format == "github":
        from .outputs.github import github_annotations
        from .review.revisions import source_root

        for command in github_annotations(result.as_data(), result.configuration, source_root()):
            click.echo(command)
    elif output_format == "sarif":
        from .outputs.sarif import sarif_log
        from .review.revisions import source_root

        log = sarif_log(result.as_data(), result.configuration, source_root())
        click.echo(json.dumps(log, indent=2))
    else:
        # What the contracts printed while checking, as lint-imports shows it.
        click.echo(printed.getvalue(), nl=False)
        _importlinter.render_report(result.report)
    sys.exit(EXIT_KEPT if result.kept else EXIT_BROKEN)


@main.command(
    epilog=_exit_status(
        "0 when the allowlists are exact (or the diff was written and every entry gives its "
        "reason), 1 when a change is shown or an entry lacks its reason, 2 on a configuration or "
        "usage error."
    )
)
@_session_options
@_static_option
@click.option("--write", is_flag=True, help="Apply the change to the configuration file.")
@click.option(
    "--add-violations",
    is_flag=True,
    help=f"Also add an entry for each violation, with a '# {PLACEHOLDER_REASON}' placeholder: "
    "to record existing debt when a contract is adopted, not to excuse a new import.",
)
def allowlist(
    config: str | None,
    contracts: tuple[str, ...],
    cache: Path | None,
    verbose: bool,
    static: bool,
    write: bool,
    add_violations: bool,
) -> None:
    """Show how each contract's allowlist (ignore_imports; ignore_loaded_modules) is not
    exact for the tree as it is: its stale entries removed, as a unified diff of the
    configuration file, and, where require_reasons is set, the entries that give no reason.
    A violation is left to fix (check shows it); with --add-violations, an entry is added
    for it. With --write, apply the diff; nothing else in the file changes. Only the
    contracts that have an allowlist are checked.
    """
    from .allowlist_sync import sync

    with _quiet_stdout(verbose):
        found = sync(config, contracts, cache, verbose, static, add_violations, write)
    _say_skipped(found.skipped)
    path = found.path
    written = bool(found.diff and write)
    if written:
        # Before anything is printed: a write that fails is an error, which prints nothing on
        # stdout.
        write_atomically(path, found.text.encode("utf-8"))
    click.echo(found.diff, nl=False)
    for entry, line in found.unreasoned:
        where = f"{path}:{line}" if line is not None else str(path)
        click.echo(
            f"{where}: {entry}: no reason given, which require_reasons asks for: end the entry "
            "with '# why it is allowed'."
        )
    if written:
        click.echo(f"{path}: written.", err=True)
    unlisted = found.unlisted_violations
    if unlisted:
        violations = f"{unlisted} violation{'s' if unlisted > 1 else ''} that no entry excuses"
        click.echo(
            f"{path}: {violations}: left to fix (importlinter-contracts check shows "
            "where), not added (--add-violations adds an entry for each).",
            err=True,
        )
    elif not found.diff and not found.unreasoned:
        click.echo(f"{path}: every allowlist matches the tree.", err=True)
    sys.exit(EXIT_BROKEN if found.unreasoned or (found.diff and not write) else EXIT_KEPT)


@main.command(
    epilog=_exit_status(
        "0 when there is nothing to change, or the edit was written and every contract is kept; 1 "
        "when a change is shown and not written, an import is left as it is, a broken contract has"
        " nothing to defer (a stale allowlist entry, say), or a contract is still broken after the"
        " edit; 2 on a configuration or usage error, or when a file cannot be written."
    )
)
@_session_options
@click.option(
    "--form",
    type=click.Choice(list(FORMS)),
    default=None,
    help=f"{KEYWORD}: `lazy import` / `lazy from` (Python 3.15 and later; written only by "
    f"Python 3.15 or later); {LAZY_MODULES}: an entry in the module's __lazy_modules__, which "
    f"changes nothing before Python 3.15; {IN_FUNCTIONS}: the import moved into the functions "
    "that use it, for every Python (default: lazy where python_version and the running "
    "Python are 3.15 or later, lazy-modules where only python_version is, else "
    f"{IN_FUNCTIONS}).",
)
@click.option("--write", is_flag=True, help="Apply the edit to the source files, and check again.")
def fix(
    config: str | None,
    contracts: tuple[str, ...],
    cache: Path | None,
    verbose: bool,
    form: str | None,
    write: bool,
) -> None:
    """Show, as a unified diff of the source files, the edit that defers each import of the
    eager_imports contracts' smallest cuts (the fewest imports to defer for no eager chain
    to reach a forbidden module): lazy (PEP 810) for Python 3.15, else moved into the
    functions that use it. An import that cannot be proven safe to defer (a name it binds
    is used at import time, it sits in a try statement, ...) is left as it is, with why,
    on stderr. With --write, apply the diff (each file replaced atomically, after every
    file reads back as it must and is found writable) and check the contracts again.
    """
    from .deferral import fix as deferral_fix

    deferral_fix.check_form(form, write)
    with _quiet_stdout(verbose):
        found = deferral_fix.plan(deferral_fix.check_eager(config, contracts, cache), form)
    _say_skipped([c for c in found.skipped if c["reason"] != deferral_fix.NOT_EAGER])
    click.echo(found.diff, nl=False)
    for refusal in found.refused:
        click.echo(f"importlinter-contracts: {refusal}", err=True)
    if found.form == LAZY_MODULES and not found.target.lazy and found.edits:
        click.echo(
            f"importlinter-contracts: python_version is {found.target.shown}: __lazy_modules__ "
            "changes nothing before Python 3.15: these imports stay eager there, and the "
            f"contracts, checked for {found.target.shown}, stay broken.",
            err=True,
        )
    for key in found.uncut:
        click.echo(
            f"importlinter-contracts: contract {key} is broken, and fix has nothing to defer for "
            "it: importlinter-contracts check says why.",
            err=True,
        )
    if not write or not found.edits:
        if not found.edits and not found.refused and not found.uncut:
            click.echo("importlinter-contracts: nothing to defer.", err=True)
        sys.exit(EXIT_BROKEN if found.edits or found.refused or found.uncut else EXIT_KEPT)
    deferral_fix.write(found.edits)
    for edit in found.edits:
        click.echo(f"{edit.path}: written.", err=True)
    with _quiet_stdout(verbose):
        again = deferral_fix.check_eager(config, contracts, cache)
    for contract in again.contracts:
        verdict = "KEPT" if contract["kept"] else "BROKEN"
        shown = contract_key(contract)
        click.echo(
            f"importlinter-contracts: after the edit, contract {shown} is {verdict}"
            f"{deferral_fix.stale_after(contract)}.",
            err=True,
        )
    sys.exit(EXIT_KEPT if again.kept and not found.refused else EXIT_BROKEN)


@main.command(
    epilog=_exit_status(
        "1 when an allowlist grew, the change stops reporting a finding or makes a contract check "
        "less, or an import now runs a module that it did not and that a contract forbids; 0 "
        "otherwise; 2 on an error (not a git repository, an unknown revision)."
    )
)
@_session_options
@click.option(
    "--base",
    metavar="REF",
    help="The git revision to compare the configuration with (e.g. the pull request's base).",
)
@click.option(
    "--history",
    "revisions",
    metavar="REF",
    multiple=True,
    help="Instead: the allowlist sizes at each of these revisions; may be repeated.",
)
@click.option(
    "--static",
    is_flag=True,
    help="Skip the contracts that run the code they check, on both sides.",
)
@click.option(
    "--closure",
    "closures_of",
    metavar="MODULE",
    multiple=True,
    help="Also compare what importing MODULE runs, at the base and now (as the eager_imports "
    "contracts' source modules are); may be repeated.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["markdown", "json", "github"]),
    default="markdown",
    show_default=True,
    help="markdown: a summary to post as a pull-request comment; json: the same as data; "
    "github: a GitHub Actions annotation per module that an import now runs, on the line "
    "the change added.",
)
def review(
    config: str | None,
    contracts: tuple[str, ...],
    cache: Path | None,
    verbose: bool,
    base: str | None,
    revisions: tuple[str, ...],
    static: bool,
    closures_of: tuple[str, ...],
    output_format: str,
) -> None:
    """Review a change against a git revision: per contract, the allowlist entries added
    (with their reasons), removed and re-reasoned, the contracts' verdicts, and the findings
    that the base revision's configuration reports on the current tree but the current
    configuration does not (loosened) or the other way round (tightened).

    Contracts that the change makes check less (removed, or a source, forbidden or followed
    module removed) are named too, even where no finding is hidden by it today.

    What importing each eager_imports source module (and each --closure MODULE) runs now and
    did not at the base, each with the chain that reaches it, or no longer runs: information,
    unless a module it now runs is forbidden, which breaks its contract.
    """
    if bool(base) == bool(revisions):
        raise UsageError("give either --base REF or --history REF (repeatable).")
    from .outputs.markdown import history_markdown, review_markdown
    from .review import closures, summary

    if revisions:
        if closures_of or output_format == "github":
            raise UsageError(
                "--history gives allowlist sizes as markdown or json: --closure and --format "
                "github go with --base REF."
            )
        points = summary.history(config, list(revisions), contracts)
        if output_format == "json":
            click.echo(json.dumps(points, indent=2))
        else:
            click.echo(history_markdown(points), nl=False)
        sys.exit(EXIT_KEPT)
    assert base is not None
    with _quiet_stdout(verbose), _warnings_on_stderr():
        found = summary.review(
            config,
            base,
            contracts,
            cache,
            select=static_only if static else None,
            closures_of=closures_of,
        )
    if output_format == "json":
        click.echo(json.dumps(found, indent=2))
    elif output_format == "github":
        from .outputs.github import closure_annotations
        from .review.revisions import source_root

        for command in closure_annotations(found["closure_changes"], source_root()):
            click.echo(command)
    else:
        click.echo(review_markdown(found), nl=False)
    if found["base_error"] is not None:
        click.echo(
            "importlinter-contracts: warning: no findings are compared with the base's "
            f"configuration, which cannot be checked: {found['base_error']}",
            err=True,
        )
    if found["closure_error"] is not None:
        click.echo(
            "importlinter-contracts: warning: what the change adds to import time cannot be "
            f"told: {found['closure_error']}",
            err=True,
        )
    loosened = found["loosened"] or found["loosened_options"]
    breaks = closures.contracts_broken(found["closure_changes"])
    sys.exit(EXIT_BROKEN if found["grew"] or loosened or breaks else EXIT_KEPT)


_graph_format = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "dot", "mermaid"]),
    default="text",
    show_default=True,
    help=(
        "text: as the REPL shows it; json: the report's hops; dot: a Graphviz graph; "
        "mermaid: a graph that GitHub renders in Markdown."
    ),
)


def _echo_found(
    output_format: str,
    title: str,
    hops: list[Hop],
    data: ClosureReport | WhyReport,
    found: object,
) -> None:
    """Print what `closure` or `why` found: `data` as JSON, `hops` as a DOT or Mermaid graph
    titled `title`, or `found` as text."""
    if output_format == "json":
        click.echo(json.dumps(data, indent=2))
    elif output_format in ("dot", "mermaid"):
        from .outputs import graphs

        graph = graphs.dot if output_format == "dot" else graphs.mermaid
        click.echo(graph(title, hops), nl=False)
    else:
        click.echo(repr(found))


# The module arguments come before the session options' optional CONFIG_FILE.
@main.command(
    epilog=_exit_status(
        "0 when the closure is shown (and, with --measure, measured), 2 on an error or when "
        "the import cannot be measured."
    )
)
@click.argument("module")
@_graph_options
@_graph_format
@click.option(
    "--measure",
    "measure_import",
    is_flag=True,
    help="Also import MODULE in a fresh interpreter with -X importtime, which runs the "
    "analysed code (the static contracts never do), and show each module's measured time, "
    "the costliest chains and what it loaded outside the closure.",
)
@click.option(
    "--python",
    metavar="PATH",
    help="With --measure: the interpreter to import MODULE with (default: the one running "
    "this command).",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    metavar="N",
    help="With --measure: import it N times, and show the median (default: 1).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="With --measure: how long one import may take before it is killed (default: 300).",
)
def closure(
    config: str | None,
    cache: Path | None,
    verbose: bool,
    module: str,
    output_format: str,
    measure_import: bool,
    python: str | None,
    repeat: int | None,
    timeout: float | None,
) -> None:
    """What importing MODULE runs: every module, with the chain of steps that loads it.

    With --measure, what each module of it costs, measured: the static closure is printed
    first, so that when the import cannot be measured (it raises, the interpreter cannot be
    run or lacks a dependency, the timeout passes) it is still shown, followed by one line
    on stderr and exit status 2.
    """
    from . import explore, measure

    _not_empty(
        "--python",
        python,
        "give an interpreter's path, or leave --python out for the one running this command",
    )
    request = measure.request_of(measure_import, python, repeat, timeout, output_format)
    with _quiet_stdout(verbose), _warnings_on_stderr() as warned:
        explorer = explore.load(config, cache)
        module = explorer.module(module)  # a file's path names its module
        found = explorer.eager_closure(module)
    hops = {name: found.step_to(name) for name in found}
    data: ClosureReport = {
        "module": module,
        "modules": {
            name: {
                "reached_from": found.reached_from(name),
                "hop": None if hop is None else hop.as_data(eager=True),
            }
            for name, hop in hops.items()
        },
        "warnings": warned,
    }
    for name in found.conditional:
        data["modules"][name]["conditional"] = True
    measured, failure = None, None
    if request is not None:
        try:
            measured = measure.MeasuredClosure(
                request,
                module,
                {name: found.reached_from(name) for name in found},
                measure.measure(request, module),
                explorer.root_packages,
                explorer.computed_imports(),
            )
        except MeasureError as error:
            failure = error
        if measured is not None:
            for name, entry in data["modules"].items():
                measured.add_to(name, entry)
        data["measured"] = measured.as_data() if measured else None
        if failure is not None:
            data["measure_error"] = str(failure)
    _echo_found(
        output_format,
        f"importing {module}",
        [hop for entry in data["modules"].values() if (hop := entry["hop"]) is not None],
        data,
        found,
    )
    if measured is not None and output_format == "text":
        click.echo(measured.text())
    if failure is not None:
        raise failure


@main.command(epilog=_exit_status("0 when a chain exists, 1 when none does, 2 on an error."))
@click.argument("importer")
@click.argument("imported")
@_graph_options
@_graph_format
def why(
    config: str | None,
    cache: Path | None,
    verbose: bool,
    importer: str,
    imported: str,
    output_format: str,
) -> None:
    """How IMPORTER comes to import IMPORTED: the shortest chain of imports, and the
    shortest that runs at import time when that is another.
    """
    from . import explore

    with _quiet_stdout(verbose), _warnings_on_stderr() as warned:
        explorer = explore.load(config, cache)
        importer, imported = explorer.module(importer), explorer.module(imported)
        chains = explorer.why(importer, imported)
    data: WhyReport = {
        "importer": importer,
        "imported": imported,
        "shortest": chains[0].as_data() if chains else None,
        "shortest_eager": next((chain.as_data() for chain in chains if chain.eager), None),
        "warnings": warned,
    }
    _echo_found(
        output_format,
        f"{importer} to {imported}",
        [hop for chain in chains for hop in chain.as_data()],
        data,
        chains,
    )
    sys.exit(EXIT_KEPT if chains else EXIT_BROKEN)
