"""What each allowlist must become for the tree as it is now, as an edit of the config file."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, cast

from ..configuration import find_configuration, is_toml, read_configuration_text
from ..errors import ConfigurationEditError, ConfigurationError, NothingToCheckError
from ..report import ContractFindings, SkippedContract
from ..running import run_contracts, static_only
from .config_text import AllowlistEdit, edit_allowlists
from .contract import ContractWithAllowlist
from .entries import PLACEHOLDER_REASON

NO_ALLOWLIST = "has no allowlist"


def _report_everything(contract_options: dict[str, Any], contract_class: type | None) -> None:
    # Placeholder reasons must not stop the sync, and stale entries must be listed.
    if contract_class is not None and issubclass(contract_class, ContractWithAllowlist):
        contract_options["require_reasons"] = "false"
        contract_options["unmatched_ignore_imports_alerting"] = "error"


def _selection(static: bool) -> Any:
    """Only the contracts with an allowlist need checking; with `static`, not those that run
    the code they check (runtime_isolation) either."""

    def select(contract_class: type) -> str | None:
        if not issubclass(contract_class, ContractWithAllowlist):
            return NO_ALLOWLIST
        return static_only(contract_class) if static else None

    return select


def needed_changes(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
    static: bool = False,
) -> tuple[list[AllowlistEdit], list[SkippedContract]]:
    """For each selected contract with an allowlist, the stale entries to remove and the
    imports (or loaded modules) to add, each with a reason still to be written; and the
    contracts that `static` left out.

    Raises ConfigurationError when a contract's findings cannot tell what its allowlist
    needs (a runtime contract whose probe failed).
    """
    try:
        result = run_contracts(
            config,
            contract_ids,
            cache_dir,
            adjust=_report_everything,
            select=_selection(static),
            verbose=verbose,
        )
    except NothingToCheckError:  # no selected contract has an allowlist: nothing to change
        return [], []
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
            changes.append(
                AllowlistEdit(
                    contract_id,
                    contract.entry_kind.option,
                    frozenset(stale),
                    tuple(f"{expression}  # {PLACEHOLDER_REASON}" for expression in missing),
                )
            )
    left_out = [skipped for skipped in result.skipped if skipped["reason"] != NO_ALLOWLIST]
    return changes, left_out


def sync(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
    static: bool = False,
) -> tuple[Path, str, str, list[SkippedContract]]:
    """The configuration file, its text with every allowlist in step, the unified diff, and
    the contracts that `static` left out.

    Raises ConfigurationEditError when the edit cannot be made safely.
    """
    path = find_configuration(config)
    original = read_configuration_text(path)
    changes, left_out = needed_changes(config, contract_ids, cache_dir, verbose, static)
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
            # git's a/ and b/ prefixes, for a path relative to the working directory.
            fromfile=f"a/{path}" if not path.is_absolute() else str(path),
            tofile=f"b/{path}" if not path.is_absolute() else str(path),
        )
    )
    return path, text, diff, left_out
