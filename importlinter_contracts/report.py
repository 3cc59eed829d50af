"""Run the contracts of a configuration as lint-imports does, and turn the results into data."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from importlinter import configuration
from importlinter.application import use_cases
from importlinter.application.ports.reporting import Report
from importlinter.domain.contract import Contract, ContractCheck

from .cache import DEFAULT_CACHE_DIR, using_cache_directory

configuration.configure()


class ConfigurationError(Exception):
    """The configuration could not be read or checked; the message says why, in one line each."""


@dataclass(frozen=True)
class RunResult:
    """A checked configuration: import-linter's own report and the data of each contract."""

    report: Report
    contracts: list[dict[str, Any]]

    @property
    def kept(self) -> bool:
        return all(contract["kept"] for contract in self.contracts)

    def as_data(self) -> dict[str, Any]:
        return {"kept": self.kept, "contracts": self.contracts}


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
    # As lint-imports does: the packages under analysis may sit in the working directory.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        user_options = use_cases.read_user_options(config)
        if adjust is not None:
            registered = dict(use_cases._get_plugin_contract_types(user_options))
            for contract_options in user_options.contracts_options:
                adjust(contract_options, registered.get(str(contract_options.get("type"))))
        # lint-imports registers the built-in contract types itself; create_report does not.
        use_cases._register_built_in_contract_types()
        with using_cache_directory(cache_dir):
            report = use_cases.create_report(
                user_options,
                limit_to_contracts=contract_ids,
                cache_dir=None if cache_dir is None else str(cache_dir),
            )
    except Exception as error:  # lint-imports reports any exception as its message
        raise ConfigurationError(str(error) or type(error).__name__) from error
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
            contract_data(contract, check) for contract, check in report.get_contracts_and_checks()
        ],
    )


def contract_data(contract: Contract, check: ContractCheck) -> dict[str, Any]:
    """One contract's result as plain data (the JSON report's `contracts` items)."""
    data: dict[str, Any] = {
        "id": contract.contract_options.get("id"),
        "name": contract.name,
        "type": contract.contract_options.get("type"),
        "kept": check.kept,
    }
    if type(contract).__module__.startswith(__package__ or "importlinter_contracts"):
        data.update(check.metadata)
    else:
        data["violations"] = list(_links_in(check.metadata))
    data.setdefault("unmatched_ignores", [])
    data["warnings"] = list(check.warnings)
    return data


def _links_in(metadata: Any) -> Iterator[dict[str, Any]]:
    """The broken imports of a built-in contract, from whatever shape its metadata has.

    Every built-in contract stores its findings as chains of links, each a dict with
    `importer`, `imported` and `line_numbers`; a chain of several links is one violation.
    """
    if isinstance(metadata, dict):
        if {"importer", "imported", "line_numbers"} <= metadata.keys():
            yield _link(metadata)
            return
        for value in metadata.values():
            yield from _links_in(value)
    elif isinstance(metadata, list | tuple | set | frozenset):
        items = list(metadata)
        if items and all(isinstance(item, dict) and "importer" in item for item in items):
            links = [_link(item) for item in items]
            if len(links) == 1:
                yield links[0]
            else:
                yield {**links[0], "imported": links[-1]["imported"], "chain": links}
            return
        for item in items:
            yield from _links_in(item)
    elif hasattr(metadata, "__dict__"):
        yield from _links_in(vars(metadata))


def _link(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "importer": str(data["importer"]),
        "imported": str(data["imported"]),
        "line_numbers": [n for n in data.get("line_numbers", ()) if n is not None],
    }
