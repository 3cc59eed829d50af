"""What each allowlist must become for the tree as it is now, as an edit of the config file:
the `allowlist` command's work, which runs the contracts (`running`), so it stands above
them, beside the other commands' modules, not in `allowlist/`, which the contracts import."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, NamedTuple, cast

from importlinter import fields

from .allowlist.config_text import AllowlistEdit, edit_allowlists, entry_lines
from .allowlist.contract import ContractWithAllowlist
from .allowlist.entries import PLACEHOLDER_REASON, entry_text
from .configuration import find_configuration, is_toml, read_configuration_text
from .errors import ConfigurationEditError, ConfigurationError, NothingToCheckError
from .report import ContractFindings, SkippedContract
from .running import run_contracts, static_only

NO_ALLOWLIST = "has no allowlist"


class Unreasoned(NamedTuple):
    """An entry that gives no reason (or the placeholder) in a contract with
    require_reasons, and its 1-based line in the configuration file (as written, after
    `--write`), if found."""

    entry: str
    line: int | None


class AllowlistState(NamedTuple):
    """What `sync` found: the configuration file, its text with the allowlists in step, the
    unified diff, the entries that lack a reason, how many violations no entry excuses (and
    none was added for), and the contracts that `static` left out."""

    path: Path
    text: str
    diff: str
    unreasoned: list[Unreasoned]
    unlisted_violations: int
    skipped: list[SkippedContract]


def _report_everything(requires_reasons: dict[str, bool]) -> Any:
    """An `adjust` for run_contracts: placeholder reasons must not stop the sync, and stale
    entries must be listed; whether each contract required reasons goes into
    `requires_reasons`, by contract id (or name)."""

    def adjust(contract_options: dict[str, Any], contract_class: type | None) -> None:
        if contract_class is None or not issubclass(contract_class, ContractWithAllowlist):
            return
        value = contract_options.get("require_reasons", "false")
        try:
            # import-linter's reader gives a TOML boolean as a string, as INI gives it.
            required = fields.BooleanField().parse(value) if isinstance(value, str) else None
        except fields.ValidationError:
            required = None
        if required is None:
            return  # a value that the contract rejects, as lint-imports does
        requires_reasons[str(contract_options.get("id") or contract_options.get("name"))] = required
        contract_options["require_reasons"] = "false"
        contract_options["unmatched_ignore_imports_alerting"] = "error"

    return adjust


def _selection(static: bool) -> Any:
    """Only the contracts with an allowlist need checking; with `static`, not those that run
    the code they check (runtime_isolation) either."""

    def select(contract_class: type) -> str | None:
        if not issubclass(contract_class, ContractWithAllowlist):
            return NO_ALLOWLIST
        return static_only(contract_class) if static else None

    return select


class NeededChanges(NamedTuple):
    """The edits of each allowlist; its entries without a reason (where reasons are
    required), as (contract id or None, option, entry): those in the file, and those that
    the edits add with the placeholder; how many violations are left unlisted, and the
    contracts left out."""

    edits: list[AllowlistEdit]
    unreasoned: list[tuple[str | None, str, str]]
    unreasoned_added: list[tuple[str | None, str, str]]
    unlisted_violations: int
    skipped: list[SkippedContract]


def needed_changes(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
    static: bool = False,
    add_violations: bool = False,
) -> NeededChanges:
    """Return, for each selected contract with an allowlist, the stale entries to remove;
    with `add_violations`, the imports (or loaded modules) to add, each with a reason still
    to be written, else how many there are; and the entries that give no reason where the
    contract requires one.

    Raises ConfigurationError when a contract's findings cannot tell what its allowlist
    needs (a runtime contract whose probe failed), NothingToCheckError when `static` leaves
    out every selected contract that has an allowlist, as `check --static` does.
    """
    requires_reasons: dict[str, bool] = {}
    try:
        result = run_contracts(
            config,
            contract_ids,
            cache_dir,
            adjust=_report_everything(requires_reasons),
            select=_selection(static),
            verbose=verbose,
            smallest_cuts=False,  # (the allowlist needs the findings alone)
        )
    except NothingToCheckError as error:
        if any(reason != NO_ALLOWLIST for reason in error.reasons):
            raise  # an allowlist left unchecked (--static) is not one in step
        return NeededChanges([], [], [], 0, [])  # no selected contract has an allowlist
    changes = []
    unreasoned = []
    unreasoned_added = []
    unlisted = 0
    for contract, check in result.report.get_contracts_and_checks():
        if not isinstance(contract, ContractWithAllowlist):
            continue
        findings = cast(ContractFindings, check.metadata)
        missing = contract.missing_entries(findings)
        stale = findings["unmatched_ignores"]
        contract_id = contract.contract_options.get("id")
        option = contract.entry_kind.option
        requires = requires_reasons.get(str(contract_id or contract.name))
        if requires:
            unreasoned += [
                (contract_id, option, entry.text)
                for entry in contract.entries_without_reasons()
                if entry.text not in stale
            ]
        if not add_violations:
            unlisted += len(missing)
            missing = []
        added = tuple(f"{expression}  # {PLACEHOLDER_REASON}" for expression in missing)
        if requires:  # the placeholder is no reason
            unreasoned_added += [(contract_id, option, entry_text(entry)) for entry in added]
        if added or stale:
            if contract_id is None:
                raise ConfigurationError(
                    f'Contract "{contract.name}" has no id, which the allowlist edit needs.'
                )
            changes.append(AllowlistEdit(contract_id, option, frozenset(stale), added))
    left_out = [skipped for skipped in result.skipped if skipped["reason"] != NO_ALLOWLIST]
    return NeededChanges(changes, unreasoned, unreasoned_added, unlisted, left_out)


def sync(
    config: str | None,
    contract_ids: tuple[str, ...],
    cache_dir: Path | None,
    verbose: bool = False,
    static: bool = False,
    add_violations: bool = False,
    write: bool = False,
) -> AllowlistState:
    """Return the configuration file, its text with every allowlist in step (stale entries
    removed; with `add_violations`, an entry with a placeholder reason added for each
    violation), the unified diff, and what else keeps the allowlists from being exact: the
    entries without a reason are those of the file as it stands, or with `write`, as that
    text will stand once written, with the entries added.

    Raises ConfigurationEditError when the edit cannot be made safely.
    """
    path = find_configuration(config)
    original = read_configuration_text(path)
    needed = needed_changes(config, contract_ids, cache_dir, verbose, static, add_violations)
    try:
        text = edit_allowlists(original, is_toml(path), needed.edits)
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
    on_disk = text if write else original
    listed = needed.unreasoned + (needed.unreasoned_added if write else [])
    unreasoned = [
        Unreasoned(
            entry,
            entry_lines(on_disk, is_toml(path), contract_id, option, [entry]).get(entry)
            if contract_id is not None
            else None,
        )
        for contract_id, option, entry in listed
    ]
    return AllowlistState(path, text, diff, unreasoned, needed.unlisted_violations, needed.skipped)
