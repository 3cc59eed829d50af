"""Run the contracts of a configuration as lint-imports does, and report them as data."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from grimp.exceptions import SourceSyntaxError
from importlinter import Contract, ContractCheck
from importlinter.domain.contract import NoSuchContractType, registry

from . import _importlinter
from .allowlist.entries import ENTRY_KINDS
from .cache import DEFAULT_CACHE_DIR, using_caches
from .configuration import (
    find_configuration,
    is_toml,
    read_configuration_text,
    read_user_options,
    section_name,
    selected_contract_ids,
)
from .eager.cut_request import asked_for
from .eager.target import target_of
from .errors import (
    ConfigurationError,
    ContractConfigurationError,
    ImportlinterContractsError,
    NothingToCheckError,
    did_you_mean,
)
from .locations import location, locations
from .modules import is_within
from .options import describe
from .report import (
    SCHEMA_VERSION,
    CheckTiming,
    ContractFindings,
    ContractResult,
    Finding,
    Hop,
    ImportFinding,
    Location,
    Report,
    SkippedContract,
    contract_key,
)

_importlinter.configure()


# Why a contract is left out of a run (a phrase that follows "it"), or None to check it.
ContractSelection = Callable[[type[Contract]], str | None]


def executes_analysed_code(contract_class: type[Contract]) -> bool:
    """Return whether a contract type runs the code it checks, as its class attribute
    `executes_analysed_code` declares; import-linter's own types only read the import graph.
    A type that declares nothing counts as running it: a static-only run never runs code
    that no one vouched it would not."""
    declared = getattr(contract_class, "executes_analysed_code", None)
    if isinstance(declared, bool):
        return declared
    return not is_within(contract_class.__module__, "importlinter")


def static_only(contract_class: type[Contract]) -> str | None:
    """Return the selection of `check --static`: why a contract type that runs the analysed
    code is left out, or None to check it."""
    if executes_analysed_code(contract_class):
        return "runs the code it checks, which --static skips"
    return None


@dataclass(frozen=True)
class RunResult:
    """A checked configuration: import-linter's own report, and ours."""

    report: _importlinter.Report
    contracts: list[ContractResult]
    skipped: list[SkippedContract]
    configuration: Path  # the file read
    show_timings: bool = False

    @property
    def kept(self) -> bool:
        return all(contract["kept"] for contract in self.contracts)

    def as_data(self) -> Report:
        """Return the run as the report's data (`report.Report`)."""
        data: Report = {
            "schema_version": SCHEMA_VERSION,
            "kept": self.kept,
            "contracts": self.contracts,
            "skipped": self.skipped,
        }
        if self.show_timings:
            data["graph_build_ms"] = self.report.graph_building_duration
        return data


def read_configuration(config: str | None) -> tuple[Path, _importlinter.UserOptions]:
    """Return the file that `config` names or lint-imports finds, and its options as
    lint-imports reads them, checked (`configuration.read_user_options`), and the target
    Python with them, whichever contracts read it: every command reads the configuration
    here, first, so that a file that cannot be parsed is named with its line.

    Raises ConfigurationError for a configuration that cannot be read or checked.
    """
    configuration = find_configuration(config)
    user_options = read_user_options(config, configuration)
    try:
        target_of(user_options.session_options)  # (read by eager_imports and runtime_isolation)
    except ConfigurationError as error:
        # (Named as the file's section, as the other options' errors are.)
        message = str(error).replace("[importlinter]", section_name(configuration) + ":", 1)
        raise ConfigurationError(message) from None
    return configuration, user_options


def run_contracts(
    config: str | None = None,
    contract_ids: tuple[str, ...] = (),
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    adjust: Callable[[dict[str, Any], type[Contract] | None], None] | None = None,
    select: ContractSelection | None = None,
    show_timings: bool = False,
    verbose: bool = False,
    smallest_cuts: bool = True,
) -> RunResult:
    """Return the result of checking the configuration's contracts (built-in ones included)
    as lint-imports would; `adjust` may first change the options of each contract, given its
    class when the configuration registers it (None for a built-in type); `select` may leave
    contracts out, which the result lists as skipped. `show_timings` adds the graph build's
    and each contract's duration to the result; `verbose` prints lint-imports' progress
    lines. `smallest_cuts`: whether the result holds the smallest cut of each kept
    eager_imports contract with excused imports, too (a broken one's it always holds).

    Raises ConfigurationError when lint-imports would stop with an error instead of a report,
    NothingToCheckError when `select` leaves nothing to check.
    """
    # As lint-imports does: the packages under analysis may sit in the working directory. Only
    # while the contracts run, so that nothing there stands in for a module imported later.
    working_directory = os.getcwd()
    added = working_directory not in sys.path
    if added:
        sys.path.insert(0, working_directory)
    try:
        with asked_for(smallest_cuts):
            return _run_contracts(
                config, contract_ids, cache_dir, adjust, select, show_timings, verbose
            )
    finally:
        if added:
            sys.path.remove(working_directory)


def _run_contracts(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    adjust: Callable[[dict[str, Any], type[Contract] | None], None] | None,
    select: ContractSelection | None,
    show_timings: bool,
    verbose: bool,
) -> RunResult:
    try:
        configuration, user_options = read_configuration(config)
        _check_contracts(user_options, configuration)
        contract_ids = selected_contract_ids(
            contract_ids, user_options.contracts_options, configuration
        )
        registered = _importlinter.plugin_contract_types(user_options)
        if adjust is not None:
            for contract_options in user_options.contracts_options:
                adjust(contract_options, registered.get(str(contract_options.get("type"))))
        _importlinter.register_contract_types(user_options)
        skipped = _leave_out(user_options, registered, contract_ids, select) if select else []
        requested = contract_ids
        contract_ids = tuple(i for i in requested if i not in {c["id"] for c in skipped})
        if skipped and (not user_options.contracts_options or (requested and not contract_ids)):
            raise NothingToCheckError(
                "Nothing to check: "
                + "; ".join(f"{named(c)} {c['reason']}" for c in skipped)
                + ".",
                tuple(c["reason"] for c in skipped),
            )
        with using_caches(cache_dir, user_options.session_options):
            report = _importlinter.create_report(
                user_options,
                limit_to_contracts=contract_ids,
                show_timings=show_timings,
                verbose=verbose,
            )
    except ImportlinterContractsError:
        raise
    except SourceSyntaxError as error:
        raise _importlinter.unparsable_source(error) from None
    except NoSuchContractType as error:
        names = ", ".join(
            f'"{options.get("name", options.get("id"))}"'
            for options in user_options.contracts_options
            if options.get("type") == str(error)
        )
        types = sorted({*_importlinter.contract_type_names(), *registered})
        raise ConfigurationError(
            f"Contract {names} has type '{error}', which is neither built in nor registered "
            f"under contract_types{did_you_mean(str(error), types)}; the types: "
            f"{', '.join(types)}."
        ) from None
    except Exception as error:  # lint-imports reports any exception as its message
        # One line: import-linter's messages may span several.
        raise ConfigurationError(" ".join(str(error).split()) or type(error).__name__) from error
    if report.could_not_run:
        raise ConfigurationError(
            "\n".join(
                _entry_line(configuration, user_options, name, field, message)
                + f'Contract "{name}" is not configured correctly: {field}: {message}'
                for name, invalid in report.invalid_contract_options.items()
                for field, message in _importlinter.option_errors(invalid.errors).items()
            )
        )
    results = [
        contract_result(contract, check, report.get_duration(contract) if show_timings else None)
        for contract, check in report.get_contracts_and_checks()
    ]
    return RunResult(report, results, skipped, configuration, show_timings)


def _entry_line(
    configuration: Path,
    user_options: _importlinter.UserOptions,
    name: str,
    option: str,
    message: str,
) -> str:
    """Return where the allowlist entry that an option's error names is (`FILE:LINE: `), as
    the errors of entries without reasons say it; empty for any other error."""
    entry = re.match(r"Entry '(.*)' is not ", message)
    ids = [c.get("id") for c in user_options.contracts_options if c.get("name") == name]
    if entry is None or option not in ENTRY_KINDS or len(ids) != 1 or ids[0] is None:
        return ""
    # (Imported here: only this error reads the file's text to find the line.)
    from .allowlist.config_text import entry_lines

    text = read_configuration_text(configuration)
    line = entry_lines(text, is_toml(configuration), str(ids[0]), option, [entry[1]]).get(entry[1])
    return "" if line is None else f"{configuration}:{line}: "


def _check_contracts(user_options: _importlinter.UserOptions, configuration: Path) -> None:
    """Raises ConfigurationError for a configuration without contracts (which would check
    nothing and pass), and, naming the contract and the option, for a contract whose name is
    missing, empty or not a string, whose type is missing or not a string, or whose id is not
    a string: import-linter reads them unchecked, and a missing one fails as a bare KeyError."""
    if not user_options.contracts_options:
        where = (
            "a table of [[tool.importlinter.contracts]]"
            if is_toml(configuration)
            else "an [importlinter:contract:ID] section"
        )
        raise ConfigurationError(
            f"{configuration} has no contracts, so nothing would be checked: give each "
            f"contract {where}."
        )
    for number, options in enumerate(user_options.contracts_options, 1):
        name = options.get("name")
        if not isinstance(name, str) or not name.strip():
            contract = f'with id "{options["id"]}"' if "id" in options else f"number {number}"
            if name is None:
                found = "missing"
            else:
                found = "empty" if isinstance(name, str) else f"found {describe(name)}"
            raise ConfigurationError(
                f"Contract {contract} is not configured correctly: name: {found}; give the "
                "name that reports show for it."
            )
        contract_id = options.get("id")
        if contract_id is not None and not isinstance(contract_id, str):
            raise ContractConfigurationError(
                name, "id", f"found {describe(contract_id)}; give the id as a string."
            )
        contract_type = options.get("type")
        if not isinstance(contract_type, str):
            found = "missing" if contract_type is None else f"found {describe(contract_type)}"
            raise ContractConfigurationError(
                name,
                "type",
                f"{found}; give a built-in type or one registered under contract_types.",
            )


def _leave_out(
    user_options: _importlinter.UserOptions,
    registered: dict[str, type[Contract]],
    contract_ids: tuple[str, ...],
    select: ContractSelection,
) -> list[SkippedContract]:
    """Remove from the configuration the contracts that `select` leaves out (of those that
    `contract_ids` names, when it names any), and say which and why; `registered` holds the
    configuration's own contract types."""
    kept_options: list[dict[str, Any]] = []
    skipped: list[SkippedContract] = []
    for options in user_options.contracts_options:
        contract_type = str(options.get("type"))
        try:
            contract_class = registered.get(contract_type) or registry.get_contract_class(
                contract_type
            )
        except NoSuchContractType:  # lint-imports reports it when it checks the contract
            reason = None
        else:
            reason = select(contract_class)
        if reason is None or (contract_ids and options.get("id") not in contract_ids):
            kept_options.append(options)
        else:
            skipped.append(
                {
                    "id": options.get("id"),
                    "name": str(options.get("name")),
                    "type": contract_type,
                    "reason": reason,
                }
            )
    user_options.contracts_options[:] = kept_options
    return skipped


def named(contract: SkippedContract) -> str:
    """Return a skipped contract as messages name it: its id (or name) and type."""
    return f"{contract_key(contract)} ({contract['type']})"


def contract_result(
    contract: Contract, check: ContractCheck, check_ms: int | None = None
) -> ContractResult:
    """Return one contract's result as the report holds it, with how long its check took (if
    given)."""
    if is_within(type(contract).__module__, __package__):
        findings = cast(ContractFindings, check.metadata)
    else:
        findings = built_in_findings(check)
    timing: CheckTiming = {} if check_ms is None else {"check_ms": check_ms}
    return {
        "id": contract.contract_options.get("id"),
        "name": contract.name,
        "type": str(contract.contract_options.get("type")),
        "kept": check.kept,
        "warnings": list(check.warnings),
        **findings,
        **timing,
    }


def built_in_findings(check: ContractCheck) -> ContractFindings:
    """Return a built-in (or another plugin's) contract's broken imports, in our report's shape."""
    if check.kept:
        return {"violations": [], "ignored": [], "unmatched_ignores": []}
    violations: list[ImportFinding] = []
    for broken in _importlinter.broken_chains(check.metadata):
        hops = [_hop(link) for link in broken.chain]
        first = hops[0]
        finding: ImportFinding = {
            "importer": first["importer"],
            "imported": hops[-1]["imported"],
            "line_numbers": first["line_numbers"],
            # Without lines (acyclic_siblings), the importer's file.
            "locations": first["locations"] or _file_of(first["importer"]),
        }
        if len(hops) > 1:
            finding["chain"] = hops
        if broken.extra_firsts:
            finding["extra_firsts"] = [_hop(link) for link in broken.extra_firsts]
        if broken.extra_lasts:
            finding["extra_lasts"] = [_hop(link) for link in broken.extra_lasts]
        if broken.import_count is not None:
            finding["import_count"] = broken.import_count
        violations.append(finding)
    return {"violations": list[Finding](violations), "ignored": [], "unmatched_ignores": []}


def _hop(link: _importlinter.Link) -> Hop:
    lines = [line for line in link["line_numbers"] if line is not None]
    return {
        "importer": link["importer"],
        "imported": link["imported"],
        "line_numbers": lines,
        "why": [],
        "locations": locations(link["importer"], lines),
    }


def _file_of(module: str) -> list[Location]:
    where = location(module, None)
    return [] if where is None else [where]
