"""The one door to import-linter's internals.

import-linter promises contract authors `importlinter.Contract`, `ContractCheck`, `fields` and
`output`, and the value types the fields parse into (`importlinter.domain.imports`). This
package also needs what `lint-imports` does around the contracts, which import-linter keeps
in modules it does not promise to keep, some behind underscore names. Every such use goes
through this module and nowhere else, so that an import-linter release that moves one breaks
here, in one place; `.ci/run` runs the tests against the oldest and the newest import-linter
that `pyproject.toml` admits. What this relies on:

- `importlinter.configuration.configure()`: installs lint-imports' settings (graph builder,
  option readers, timer), as its console script does at start-up.
- `importlinter.application.use_cases`: `read_user_options(config)` and
  `create_report(user_options, limit_to_contracts, cache_dir, show_timings, verbose)`, and the
  private `_register_built_in_contract_types()` (2.17; 2.16 has
  `_register_contract_types(user_options)` instead), `_parse_contract_type_string(string)`,
  `_get_include_external_packages(user_options)` and
  `_get_exclude_type_checking_imports(user_options)`.
- `importlinter.application.app_config.settings.GRAPH_BUILDER.build(...)`.
- `importlinter.application.ports.reporting.Report`: `get_contracts_and_checks()`,
  `get_duration(contract)`, `graph_building_duration`, `could_not_run`,
  `invalid_contract_options`.
- `importlinter.application.rendering.render_report(report)`.
- `importlinter.application.contract_utils`: `AlertLevel` and
  `render_broken_contract_guidance(text)`.
- `importlinter.contracts._common.format_line_numbers(lines)`.
- `importlinter.application.output`: `console`, `INDENT_SIZE`, `COLORS`, `ERROR`, for lines
  printed without Rich's wrapping.
- The metadata the built-in contract types store when broken (`broken_chains` below reads it).
- `importlinter.domain.contract.registry._classes_by_name`: the registered contract types.
- The messages of `Contract`'s option checks, "This is a required field." and "Unrecognized
  option. Did you mean '...'?" (`option_errors` below reads them).
"""

import dataclasses
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

from grimp import ImportGraph
from grimp.exceptions import SourceSyntaxError
from importlinter import Contract, output
from importlinter import configuration as _configuration
from importlinter.application import contract_utils as _contract_utils
from importlinter.application import rendering as _rendering
from importlinter.application import use_cases as _use_cases
from importlinter.application.app_config import settings as _settings
from importlinter.application.ports.reporting import Report
from importlinter.application.user_options import UserOptions
from importlinter.contracts import _common
from importlinter.domain import contract as _contract

from .cache import grimp_cache_directory, without_caches
from .errors import (
    CacheWarning,
    ConfigurationError,
    UnreadableSourceError,
    did_you_mean,
    warn,
)
from .locations import display_path
from .options import describe

__all__ = [
    "AlertLevel",
    "BrokenChain",
    "Link",
    "Report",
    "UserOptions",
    "broken_chains",
    "build_graph",
    "configure",
    "console_line",
    "contract_type_names",
    "create_report",
    "format_line_numbers",
    "option_errors",
    "plugin_contract_types",
    "read_user_options",
    "register_contract_types",
    "render_broken_contract_guidance",
    "render_report",
    "unparsable_source",
]

AlertLevel = _contract_utils.AlertLevel
render_broken_contract_guidance = _contract_utils.render_broken_contract_guidance
format_line_numbers = _common.format_line_numbers
render_report = _rendering.render_report
read_user_options = _use_cases.read_user_options


def create_report(
    user_options: UserOptions,
    limit_to_contracts: tuple[str, ...],
    show_timings: bool,
    verbose: bool,
) -> Report:
    """Return lint-imports' report of the configuration, with the graph built as `build_graph`
    builds it (with the caches that `cache.using_caches` chose)."""
    builder = _settings.GRAPH_BUILDER
    _settings.configure(GRAPH_BUILDER=_WithoutAnUnusableCache(builder))
    try:
        report: Report = _use_cases.create_report(
            user_options,
            limit_to_contracts=limit_to_contracts,
            cache_dir=_graph_cache(),
            show_timings=show_timings,
            verbose=verbose,
        )
    finally:
        _settings.configure(GRAPH_BUILDER=builder)
    return report


def _graph_cache() -> str | None:
    """grimp's cache folder of the run (`cache.using_caches`), as lint-imports passes it."""
    folder = grimp_cache_directory()
    return None if folder is None else str(folder)


class _WithoutAnUnusableCache:
    """lint-imports' graph builder, which builds the graph again without grimp's cache where
    the build with it fails: a cache file of another shape (`null`), a folder where a file
    should be, a folder that cannot be written. grimp's message names no file, and the cache
    only saves time: the graph without it is the same. The rest of the run uses no cache
    either (`cache.without_caches`), and one warning (`CacheWarning`) names the folder."""

    def __init__(self, builder: Any) -> None:
        self.builder = builder

    def build(self, root_package_names: list[str], cache_dir: str | None, **options: Any) -> Any:
        try:
            return self.builder.build(
                root_package_names=root_package_names, cache_dir=cache_dir, **options
            )
        except SourceSyntaxError:
            raise
        except Exception as error:
            if cache_dir is None:
                raise _unreadable_file(error) from error
            try:
                graph = self.builder.build(
                    root_package_names=root_package_names, cache_dir=None, **options
                )
            except SourceSyntaxError:
                raise
            except Exception as uncached_error:
                raise _unreadable_file(uncached_error) from uncached_error
            without_caches()
            reason = " ".join(str(error).split()) or type(error).__name__
            # A folder that is there holds what grimp cannot use; one that is not, after grimp
            # tried to write it, cannot be made.
            advice = (
                "delete the folder to start it afresh"
                if os.path.lexists(cache_dir)
                else "the folder cannot be created: give --cache-dir a writable folder, or "
                "--no-cache for none"
            )
            warn(
                f"The graph cache {display_path(Path(cache_dir))} cannot be used ({reason}): "
                f"this run uses no cache, as with --no-cache; {advice}.",
                CacheWarning,
            )
            return graph


# grimp's message for a file that is not UTF-8 (nor declares its encoding).
_NOT_UTF_8 = re.compile(r"Failed to decode file (.+) as UTF-8: (.+)")
_UNKNOWN_ENCODING = re.compile(r"Failed to decode file (.+) \(unknown encoding '(.*)'\)")


def _unreadable_file(error: Exception) -> Exception:
    """Return grimp's error for a file of the tree that cannot be read (a symbolic link to
    nothing, bytes that are not UTF-8) as ours, which names the file as every report does
    and says what to do; any other error as it is."""
    if isinstance(error, OSError) and error.filename is not None:
        return UnreadableSourceError(
            f"{display_path(Path(error.filename))} cannot be read ({error.strerror}): fix it "
            "or remove it (Python could not import it either)."
        )
    unknown = _UNKNOWN_ENCODING.fullmatch(str(error)) if isinstance(error, UnicodeError) else None
    if unknown is not None:
        return UnreadableSourceError(
            f"{display_path(Path(unknown[1]))} declares an encoding Python does not know "
            f"({unknown[2]!r}): fix the coding line on its first or second line, or remove "
            "it to read the file as UTF-8."
        )
    not_utf_8 = _NOT_UTF_8.fullmatch(str(error)) if isinstance(error, UnicodeError) else None
    if not_utf_8 is not None:
        return UnreadableSourceError(
            f"{display_path(Path(not_utf_8[1]))} is not UTF-8 ({not_utf_8[2]}): save it as "
            "UTF-8, or declare its encoding on its first or second line "
            "(# -*- coding: latin-1 -*-)."
        )
    return error


def register_contract_types(user_options: UserOptions) -> None:
    """Register the contract types a report needs, as lint-imports does before it creates one
    (`create_report` does not)."""
    if hasattr(_use_cases, "_register_built_in_contract_types"):  # import-linter 2.17
        _use_cases._register_built_in_contract_types()
    else:  # 2.16: the built-in types and the configuration's own, in one call
        _use_cases._register_contract_types(user_options)  # type: ignore[attr-defined,unused-ignore]


def contract_type_names() -> list[str]:
    """Return the names of the contract types registered so far (built in, and those the
    configuration registers once `register_contract_types` or a report has), sorted."""
    return sorted(_contract.registry._classes_by_name)


def configure() -> None:
    """Install lint-imports' settings, once."""
    _configuration.configure()


def plugin_contract_types(user_options: UserOptions) -> dict[str, type[Contract]]:
    """Return the contract types the configuration registers (`contract_types`), by name.

    Raises ConfigurationError naming the entry that cannot be loaded: import-linter fails on
    it with a bare assertion or the import's own error, which name no option.
    """
    entries = user_options.session_options.get("contract_types", [])
    if not isinstance(entries, list):
        raise ConfigurationError(
            f"contract_types: found {describe(entries)}; give a list of "
            "'name: package.module.Class' entries (in INI, one per line)."
        )
    registered = {}
    for entry in entries:
        if not isinstance(entry, str) or len(entry.split(": ")) != 2:
            found = f"'{entry}'" if isinstance(entry, str) else describe(entry)
            raise ConfigurationError(
                f"contract_types: {found} is not of the form 'name: package.module.Class'."
            )
        try:
            name, contract_class = _use_cases._parse_contract_type_string(entry)
        except AssertionError:  # the form was checked: what it names is not a class
            raise ConfigurationError(f"contract_types: '{entry}' names no class.") from None
        except Exception as error:
            raise ConfigurationError(
                f"contract_types: '{entry}' cannot be loaded: {type(error).__name__}: {error}"
                f"{_own_class_meant(entry, error)}"
            ) from error
        if name in registered:
            raise ConfigurationError(
                f"contract_types: '{name}' is registered twice, the second time as '{entry}': "
                "give each contract type a name of its own."
            )
        registered[name] = contract_class
    return registered


def _own_class_meant(entry: str, error: Exception) -> str:
    """Return, for a `contract_types` entry that names a class this package does not export,
    the exported contract type nearest to it as a parenthesis (`did_you_mean`); '' for any
    other entry or error."""
    module, _, name = entry.partition(": ")[2].strip().rpartition(".")
    if module != __package__ or not isinstance(error, AttributeError):
        return ""
    # (The package is imported before any module of it: read, not imported, since importing
    # it here would make this module depend on every contract type it registers.)
    exported: list[str] = sys.modules[__package__].__all__
    return did_you_mean(name, (each for each in exported if not each.startswith("_")))


# import-linter's messages for a missing required option and for an unrecognized one that is
# near a known one.
_REQUIRED = "This is a required field."
_DID_YOU_MEAN = re.compile(r"^Unrecognized option\. Did you mean '([^']+)'\?$")


def option_errors(errors: Mapping[str, str]) -> dict[str, str]:
    """Return import-linter's errors of a contract's options, by option, without the "required"
    error of an option that an unrecognized option's "Did you mean" names: the misspelling is
    the mistake, and saying first that the option it meant is missing misleads."""
    meant = {found[1] for message in errors.values() if (found := _DID_YOU_MEAN.match(message))}
    return {
        option: message
        for option, message in errors.items()
        if not (option in meant and message == _REQUIRED)
    }


def build_graph(user_options: UserOptions) -> ImportGraph:
    """Return the graph lint-imports would build for this configuration, with grimp's cache
    that `cache.using_caches` chose; where that cannot be used, built without it, as
    `create_report` builds it.

    Raises UnreadableSourceError for a file of the tree that does not parse.
    """
    try:
        graph: ImportGraph = _WithoutAnUnusableCache(_settings.GRAPH_BUILDER).build(
            root_package_names=user_options.session_options["root_packages"],
            cache_dir=_graph_cache(),
            include_external_packages=_use_cases._get_include_external_packages(user_options),
            exclude_type_checking_imports=_use_cases._get_exclude_type_checking_imports(
                user_options
            ),
        )
    except SourceSyntaxError as error:
        raise unparsable_source(error) from None
    return graph


def unparsable_source(error: SourceSyntaxError) -> UnreadableSourceError:
    """Return grimp's error for a file that does not parse as ours, which names the file as
    every report does (relative to the working directory), with the line."""
    return UnreadableSourceError(
        f"Syntax error in {display_path(Path(error.filename))}, line {error.lineno or '?'}: "
        f"{(error.text or '<unavailable>').strip()}"
    )


def console_line(text: str, *, indent: int, bold: bool, error: bool = True) -> None:
    """Print one line (in lint-imports' error colour unless not an `error`), never wrapped,
    not read as markup."""
    from rich.markup import escape

    _style = output.COLORS[output.ERROR] if error else ""
    output.console.print(
        " " * (output.INDENT_SIZE * indent) + escape(text),
        style=f"bold {_style}".strip() if bold else _style,
        soft_wrap=True,
    )


class Link(TypedDict):
    """One direct import as the built-in contracts store it (their `_common.Link`)."""

    importer: str
    imported: str
    line_numbers: tuple[int | None, ...]


class BrokenChain(NamedTuple):
    """One violation of a built-in contract: a chain of links (a single link for a direct
    import) and the other links that stand in for its first or last one."""

    chain: list[Link]
    extra_firsts: Sequence[Link] = ()
    extra_lasts: Sequence[Link] = ()
    import_count: int | None = None  # acyclic_siblings reports counts, not lines


def broken_chains(metadata: Mapping[str, Any]) -> list[BrokenChain]:
    """Return the violations a broken built-in contract stores in its metadata, every importer,
    imported and line number that lint-imports prints included.

    forbidden and independence: `invalid_chains[*].chains[*]`, a list of links (forbidden) or
    a detailed chain (`chain`, `extra_firsts`, `extra_lasts`). layers:
    `invalid_dependencies[*].routes[*]`, detailed chains. protected:
    `illegal_imports[*].illegal_links[*]` and private_modules: `illegal_imports[*]`, direct
    imports. acyclic_siblings: `summaries[*].dependencies`, pairs of sibling packages with a
    count of imports. The metadata of another plugin's contract type is searched for links.
    """
    if "summaries" in metadata:
        return [
            BrokenChain(
                [_link(dependency.downstream, dependency.upstream, ())],
                import_count=dependency.num_imports,
            )
            for summary in metadata["summaries"]
            for dependency in sorted(summary.dependencies)
        ]
    if "invalid_dependencies" in metadata:
        return [
            _chain(route)
            for dependency in metadata["invalid_dependencies"]
            for route in dependency["routes"]
        ]
    if "invalid_chains" in metadata:
        return [_chain(chain) for item in metadata["invalid_chains"] for chain in item["chains"]]
    if "illegal_imports" in metadata:
        return [
            BrokenChain([_link(**link)])
            for item in metadata["illegal_imports"]
            for link in (item.illegal_links if hasattr(item, "illegal_links") else [item])
        ]
    return list(_links_in(metadata))


def _link(importer: str, imported: str, line_numbers: Any) -> Link:
    return {
        "importer": str(importer),
        "imported": str(imported),
        "line_numbers": tuple(line_numbers),
    }


def _chain(value: Any) -> BrokenChain:
    if isinstance(value, Mapping):  # a detailed chain
        return BrokenChain(
            [_link(**link) for link in value["chain"]],
            [_link(**link) for link in value["extra_firsts"]],
            [_link(**link) for link in value["extra_lasts"]],
        )
    return BrokenChain([_link(**link) for link in value])


def _links_in(value: Any) -> Iterator[BrokenChain]:
    """Each link found anywhere in a value, as a direct import."""
    if isinstance(value, Mapping) and {"importer", "imported", "line_numbers"} <= set(value):
        yield BrokenChain([_link(value["importer"], value["imported"], value["line_numbers"])])
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _links_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _links_in(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _links_in(getattr(value, field.name))
