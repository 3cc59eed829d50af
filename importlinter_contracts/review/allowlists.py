"""What a configuration change does to each allowlist: the entries added (with their
reasons), removed, and re-reasoned, per contract.

An entry is the same entry when its expression is the same, wherever it stands and however
it is spaced; a changed reason is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from importlinter import fields

from .. import _importlinter
from ..allowlist.entries import ENTRY_KINDS, parse_entry
from ..errors import ConfigurationError
from ..report import contract_key
from .revisions import as_file

# The options that hold an allowlist, in any contract type.
ALLOWLIST_OPTIONS = tuple(ENTRY_KINDS)


class Entry(TypedDict):
    option: str
    expression: str
    reason: str | None


class ReasonChange(TypedDict):
    option: str
    expression: str
    before: str | None
    after: str | None


class ContractAllowlists(TypedDict):
    """One contract's allowlists, before and after."""

    id: str
    name: str
    type: str
    before: int  # entries at the base (0 for a contract the base does not have)
    after: int
    added: list[Entry]
    removed: list[Entry]
    reason_changed: list[ReasonChange]


@dataclass(frozen=True)
class Configuration:
    """A configuration as import-linter reads it: session options and each contract's options."""

    session: dict[str, Any]
    contracts: dict[str, dict[str, Any]]  # by contract id (or name, when it has none)

    @classmethod
    def from_text(cls, text: str, filename: str) -> Configuration:
        """Return the configuration `text` holds, read as import-linter reads a file called
        `filename`.

        Raises ConfigurationError when it cannot be read as a configuration.
        """
        with as_file(text, filename) as path:
            try:
                options = _importlinter.read_user_options(str(path))
            except Exception as error:
                raise ConfigurationError(
                    f"{filename}: cannot be read as a configuration: {error}"
                ) from error
        return cls(
            session=dict(options.session_options),
            contracts={
                contract_key(contract): dict(contract) for contract in options.contracts_options
            },
        )

    @classmethod
    def empty(cls) -> Configuration:
        """Return a configuration with no contract, for a base that cannot be read."""
        return cls(session={}, contracts={})


def entries(contract: dict[str, Any]) -> dict[tuple[str, str], Entry]:
    """Return a contract's allowlist entries, by option and expression."""
    found: dict[tuple[str, str], Entry] = {}
    for option in ALLOWLIST_OPTIONS:
        raw = contract.get(option) or []
        for line in [raw] if isinstance(raw, str) else raw:
            if not str(line).strip():
                continue
            expression, reason = expression_and_reason(str(line))
            found[(option, expression)] = {
                "option": option,
                "expression": expression,
                "reason": reason,
            }
    return found


def expression_and_reason(line: str) -> tuple[str, str | None]:
    """Return an entry's expression, written one way however the line spaces it, and its reason."""
    try:
        entry = parse_entry(line)
    except fields.ValidationError:
        # Not an import expression (a loaded-module entry, say): its words, spaced once.
        text, hash_sign, reason = " ".join(line.split()).partition("#")
        return text.strip(), (reason.strip() or None) if hash_sign else None
    return str(entry.expression), entry.reason


def compare(base: Configuration, current: Configuration) -> list[ContractAllowlists]:
    """Return each contract with an allowlist at either side, and how its entries changed."""
    found = []
    for contract_id in sorted(base.contracts.keys() | current.contracts.keys()):
        before_contract = base.contracts.get(contract_id, {})
        after_contract = current.contracts.get(contract_id, {})
        before, after = entries(before_contract), entries(after_contract)
        if not before and not after:
            continue
        shown = after_contract or before_contract
        found.append(
            ContractAllowlists(
                id=contract_id,
                name=str(shown.get("name", contract_id)),
                type=str(shown.get("type", "")),
                before=len(before),
                after=len(after),
                added=[after[key] for key in sorted(after.keys() - before.keys())],
                removed=[before[key] for key in sorted(before.keys() - after.keys())],
                reason_changed=[
                    ReasonChange(
                        option=key[0],
                        expression=key[1],
                        before=before[key]["reason"],
                        after=after[key]["reason"],
                    )
                    for key in sorted(before.keys() & after.keys())
                    if before[key]["reason"] != after[key]["reason"]
                ],
            )
        )
    return found
