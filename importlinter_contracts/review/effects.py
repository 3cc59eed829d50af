"""What a configuration change lets through: the base revision's configuration and the
current one, both checked against the current tree, and the findings that differ.

A finding that only the base configuration reports is loosened, unless a newly added
allowlist entry excuses it (that is an allowlist addition, which `allowlists` reports); a
finding that only the current configuration reports is tightened. Each names what changed
in its contract, when that can be told: the options whose values differ, a removed contract,
a changed type, or changed session options.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypedDict, cast

from ..report import (
    SCHEMA_VERSION,
    ContractResult,
    Finding,
    IgnoredImport,
    IgnoredModule,
    Report,
    RuntimeFinding,
    contract_key,
    is_import_finding,
)
from ..running import ContractSelection, run_contracts
from .allowlists import ALLOWLIST_OPTIONS, Configuration, Entry, expression_and_reason
from .revisions import as_file

# Options that name or describe a contract without changing what it checks.
_DESCRIPTIVE = frozenset({"id", "name", "broken_contract_guidance", *ALLOWLIST_OPTIONS})


class ChangedFinding(TypedDict):
    """A finding that one configuration reports and the other does not."""

    contract: str
    name: str
    finding: Finding
    because: list[str]  # what changed: option names, "contract removed", "type: a -> b", ...


class Effects(TypedDict):
    loosened: list[ChangedFinding]
    tightened: list[ChangedFinding]


def run_configuration(
    text: str,
    filename: str,
    contract_ids: tuple[str, ...] | None,
    cache_dir: Path | None,
    select: ContractSelection | None,
) -> Report:
    """Return the report of the configuration `text` (read as a file called `filename`) on the
    tree of the working directory: every contract for `()`, those named, or none for None.

    Raises what `running.run_contracts` raises: ConfigurationError, NothingToCheckError.
    """
    if contract_ids is None:
        return {"schema_version": SCHEMA_VERSION, "kept": True, "contracts": [], "skipped": []}
    with as_file(text, filename) as path:
        return run_contracts(str(path), contract_ids, cache_dir, select=select).as_data()


def _key(finding: Finding) -> tuple[str, ...]:
    if is_import_finding(finding):
        return (finding["importer"], finding["imported"])
    runtime = cast(RuntimeFinding, finding)
    return (runtime["kind"], runtime.get("module", ""), *runtime.get("modules", []))


def _findings(report: Report) -> dict[tuple[str, tuple[str, ...]], tuple[ContractResult, Finding]]:
    return {
        (contract_key(contract), _key(finding)): (contract, finding)
        for contract in report["contracts"]
        for finding in contract["violations"]
    }


def _changes(contract_id: str, base: Configuration, current: Configuration) -> list[str]:
    before = base.contracts.get(contract_id)
    after = current.contracts.get(contract_id)
    if after is None:
        return ["contract removed"]
    if before is None:
        return ["contract added"]
    if before.get("type") != after.get("type"):
        return [f"type: {before.get('type')} -> {after.get('type')}"]
    changed = [
        option
        for option in sorted(before.keys() | after.keys())
        if option not in _DESCRIPTIVE and before.get(option) != after.get(option)
    ]
    changed += [
        f"session: {option}"
        for option in sorted(base.session.keys() | current.session.keys())
        if base.session.get(option) != current.session.get(option)
    ]
    return changed


def _excused_by(contract: ContractResult | None, finding: Finding, entries: set[str]) -> bool:
    """Whether `contract` excuses `finding` with one of these entries (by expression): an
    import by an import entry, a loaded module by a loaded-module entry."""
    if contract is None:
        return False
    for ignored in contract["ignored"]:
        if expression_and_reason(ignored["entry"])[0] not in entries:
            continue
        if is_import_finding(finding):
            excused = cast(IgnoredImport, ignored)
            if (excused.get("importer"), excused.get("imported")) == _key(finding):
                return True
        elif cast(IgnoredModule, ignored).get("module") in cast(RuntimeFinding, finding).get(
            "modules", []
        ):
            return True
    return False


def compare(
    base_report: Report,
    current_report: Report,
    base: Configuration,
    current: Configuration,
    added_entries: Iterable[tuple[str, Entry]],
    removed_entries: Iterable[tuple[str, Entry]],
) -> Effects:
    """Return the findings that the change of configuration stops or starts reporting, leaving out
    those that an added entry now excuses or a removed entry no longer does: the allowlist
    review shows those."""
    before, after = _findings(base_report), _findings(current_report)
    contracts = [
        {contract_key(c): c for c in report["contracts"]}
        for report in (base_report, current_report)
    ]
    added, removed = _by_contract(added_entries), _by_contract(removed_entries)

    def changed(
        keys: Iterable[Any], side: dict[Any, tuple[ContractResult, Finding]]
    ) -> list[ChangedFinding]:
        found = []
        for key in sorted(keys):
            contract, finding = side[key]
            contract_id = key[0]
            found.append(
                ChangedFinding(
                    contract=contract_id,
                    name=contract["name"],
                    finding=finding,
                    because=_changes(contract_id, base, current),
                )
            )
        return found

    gone = [
        key
        for key in before.keys() - after.keys()
        if not _excused_by(contracts[1].get(key[0]), before[key][1], added.get(key[0], set()))
    ]
    new = [
        key
        for key in after.keys() - before.keys()
        if not _excused_by(contracts[0].get(key[0]), after[key][1], removed.get(key[0], set()))
    ]
    return Effects(loosened=changed(gone, before), tightened=changed(new, after))


def _by_contract(entries: Iterable[tuple[str, Entry]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for contract_id, entry in entries:
        found.setdefault(contract_id, set()).add(entry["expression"])
    return found
