"""What each allowlist must become for the tree as it is now, as an edit of the config file."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, cast

from ..configuration import find_configuration, is_toml, read_configuration_text
from ..errors import ConfigurationEditError, ConfigurationError, NothingToCheckError
from ..report import ContractFindings, is_import_finding
from ..running import run_contracts
from .config_text import AllowlistEdit, edit_allowlists
from .contract import AllowlistedContract
from .entries import PLACEHOLDER_REASON


def _report_everything(contract_options: dict[str, Any], contract_class: type | None) -> None:
    # Placeholder reasons must not stop the sync, and stale entries must be listed.
    if contract_class is not None and issubclass(contract_class, AllowlistedContract):
        contract_options["require_reasons"] = "false"
        contract_options["unmatched_ignore_imports_alerting"] = "error"


def _has_an_allowlist(contract_class: type) -> str | None:
    # Only these need checking; the others (runtime_isolation) would run the analysed code.
    return None if issubclass(contract_class, AllowlistedContract) else "has no allowlist"


def needed_changes(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
) -> list[AllowlistEdit]:
    """For each selected contract with an allowlist, the stale entries to remove and the
    imports to add, each with a reason still to be written."""
    try:
        result = run_contracts(
            config,
            contract_ids,
            cache_dir,
            adjust=_report_everything,
            select=_has_an_allowlist,
            verbose=verbose,
        )
    except NothingToCheckError:  # no selected contract has an allowlist: nothing to change
        return []
    changes = []
    for contract, check in result.report.get_contracts_and_checks():
        if not isinstance(contract, AllowlistedContract):
            continue
        findings = cast(ContractFindings, check.metadata)
        missing = sorted(
            {
                f"{finding['importer']} -> {finding['imported']}"
                for finding in findings["violations"]
                if is_import_finding(finding)
            }
        )
        stale = findings["unmatched_ignores"]
        if missing or stale:
            contract_id = contract.contract_options.get("id")
            if contract_id is None:
                raise ConfigurationError(
                    f'Contract "{contract.name}" has no id, which the allowlist edit needs.'
                )
            changes.append(
                AllowlistEdit(
                    contract_id,
                    "ignore_imports",
                    frozenset(stale),
                    tuple(f"{expression}  # {PLACEHOLDER_REASON}" for expression in missing),
                )
            )
    return changes


def sync(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
) -> tuple[Path, str, str]:
    """The configuration file, its text with every allowlist in step, and the unified diff.

    Raises ConfigurationEditError when the edit cannot be made safely.
    """
    path = find_configuration(config)
    original = read_configuration_text(path)
    changes = needed_changes(config, contract_ids, cache_dir, verbose)
    try:
        text = edit_allowlists(original, is_toml(path), changes)
    except ConfigurationEditError as error:
        raise ConfigurationEditError(
            f"{path}: the allowlists cannot be edited safely: {error}; the file is unchanged."
        ) from None
    diff = "".join(
        difflib.unified_diff(
            original.splitlines(keepends=True),
            text.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )
    return path, text, diff
