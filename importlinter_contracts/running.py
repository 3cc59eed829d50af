"""Run the contracts of a configuration as lint-imports does, and report them as data."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from importlinter import Contract, ContractCheck
from importlinter.domain.contract import NoSuchContractType

from . import _importlinter
from .cache import DEFAULT_CACHE_DIR, using_cache_directory
from .configuration import find_configuration
from .errors import ConfigurationError, ImportlinterContractsError
from .locations import location, locations
from .report import (
    SCHEMA_VERSION,
    ContractFindings,
    ContractResult,
    Finding,
    Hop,
    ImportFinding,
    Location,
    Report,
)

_importlinter.configure()


@dataclass(frozen=True)
class RunResult:
    """A checked configuration: import-linter's own report, and ours."""

    report: _importlinter.Report
    contracts: list[ContractResult]

    @property
    def kept(self) -> bool:
        return all(contract["kept"] for contract in self.contracts)

    def as_data(self) -> Report:
        return {"schema_version": SCHEMA_VERSION, "kept": self.kept, "contracts": self.contracts}


def run_contracts(
    config: str | None = None,
    contract_ids: tuple[str, ...] = (),
    cache_dir: Path | None = DEFAULT_CACHE_DIR,
    adjust: Callable[[dict[str, Any], type[Contract] | None], None] | None = None,
) -> RunResult:
    """Check the configuration's contracts (built-in ones included) as lint-imports would;
    `adjust` may first change the options of each contract, given its class when the
    configuration registers it (None for a built-in type).

    Raises ConfigurationError when lint-imports would stop with an error instead of a report.
    """
    # As lint-imports does: the packages under analysis may sit in the working directory. Only
    # while the contracts run, so that nothing there stands in for a module imported later.
    working_directory = os.getcwd()
    added = working_directory not in sys.path
    if added:
        sys.path.insert(0, working_directory)
    try:
        return _run_contracts(config, contract_ids, cache_dir, adjust)
    finally:
        if added:
            sys.path.remove(working_directory)


def _run_contracts(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    adjust: Callable[[dict[str, Any], type[Contract] | None], None] | None,
) -> RunResult:
    try:
        # Read first by us, so that a file that cannot be parsed is named with its line.
        find_configuration(config)
        user_options = _importlinter.read_user_options(config)
        if adjust is not None:
            registered = _importlinter.plugin_contract_types(user_options)
            for contract_options in user_options.contracts_options:
                adjust(contract_options, registered.get(str(contract_options.get("type"))))
        _importlinter.register_contract_types(user_options)
        with using_cache_directory(cache_dir):
            report = _importlinter.create_report(
                user_options,
                limit_to_contracts=contract_ids,
                cache_dir=None if cache_dir is None else str(cache_dir),
            )
    except ImportlinterContractsError:
        raise
    except NoSuchContractType as error:
        names = ", ".join(
            f'"{options.get("name", options.get("id"))}"'
            for options in user_options.contracts_options
            if options.get("type") == str(error)
        )
        raise ConfigurationError(
            f"Contract {names} has type '{error}', which is neither built in nor registered "
            "under contract_types."
        ) from None
    except Exception as error:  # lint-imports reports any exception as its message
        # One line: import-linter's messages may span several.
        raise ConfigurationError(" ".join(str(error).split()) or type(error).__name__) from error
    if report.could_not_run:
        raise ConfigurationError(
            "\n".join(
                f'Contract "{name}" is not configured correctly: {field}: {message}'
                for name, invalid in report.invalid_contract_options.items()
                for field, message in invalid.errors.items()
            )
        )
    return RunResult(
        report=report,
        contracts=[
            contract_result(contract, check)
            for contract, check in report.get_contracts_and_checks()
        ],
    )


def contract_result(contract: Contract, check: ContractCheck) -> ContractResult:
    """One contract's result as the report holds it."""
    if type(contract).__module__.startswith(f"{__package__}."):
        findings = cast(ContractFindings, check.metadata)
    else:
        findings = built_in_findings(check)
    return {
        "id": contract.contract_options.get("id"),
        "name": contract.name,
        "type": str(contract.contract_options.get("type")),
        "kept": check.kept,
        "warnings": list(check.warnings),
        **findings,
    }


def built_in_findings(check: ContractCheck) -> ContractFindings:
    """A built-in (or another plugin's) contract's broken imports, in our report's shape."""
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
