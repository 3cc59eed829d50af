"""What each allowlist must become for the tree as it is now, as an edit of the config file."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from ..configuration import find_configuration, is_toml
from ..errors import ConfigurationError
from ..report import ContractFindings
from ..running import run_contracts
from .config_text import edit_allowlist
from .contract import ContractWithAllowlist


@dataclass(frozen=True)
class AllowlistChange:
    """One contract's allowlist (`option`): the stale entries to remove and those to add."""

    contract_id: str
    option: str
    stale: list[str]
    missing: list[str]


def _report_everything(contract_options: dict[str, Any], contract_class: type | None) -> None:
    # Placeholder reasons must not stop the sync, and stale entries must be listed.
    if contract_class is not None and issubclass(contract_class, ContractWithAllowlist):
        contract_options["require_reasons"] = "false"
        contract_options["unmatched_ignore_imports_alerting"] = "error"


def needed_changes(
    config: str | None, contract_ids: tuple[str, ...], cache_dir: Path | None
) -> list[AllowlistChange]:
    """For each selected contract with an allowlist, what its entries lack or have too many."""
    result = run_contracts(config, contract_ids, cache_dir, adjust=_report_everything)
    changes = []
    for contract, check in result.report.get_contracts_and_checks():
        if not isinstance(contract, ContractWithAllowlist):
            continue
        findings = cast(ContractFindings, check.metadata)
        missing = contract.missing_entries(findings)
        stale = findings["unmatched_ignores"]
        if missing or stale:
            contract_id = contract.contract_options.get("id")
            if contract_id is None:
                raise ConfigurationError(
                    f'Contract "{contract.name}" has no id, which the allowlist edit needs.'
                )
            changes.append(AllowlistChange(contract_id, contract.entry_kind.option, stale, missing))
    return changes


def sync(
    config: str | None, contract_ids: tuple[str, ...], cache_dir: Path | None
) -> tuple[Path, str, str]:
    """The configuration file, its text with every allowlist in step, and the unified diff."""
    path = find_configuration(config)
    original = path.read_bytes().decode("utf-8")
    text = original
    for change in needed_changes(config, contract_ids, cache_dir):
        text = edit_allowlist(
            text,
            change.contract_id,
            is_toml(path),
            set(change.stale),
            change.missing,
            change.option,
        )
    diff = "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
    return path, text, diff
