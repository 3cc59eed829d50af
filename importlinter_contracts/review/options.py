"""Contracts that a configuration change makes check less, whether or not a finding is hidden by
it today: a contract removed, or a value removed from an option each of whose values is
something checked (a source or forbidden module, a followed package, a probe), and not
covered by a value that stays (a package that holds it).
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..modules import is_within
from .allowlists import Configuration

# Per contract type, the options each of whose values is checked: fewer values, less checked.
CHECKED_OPTIONS = {
    "eager_imports": ("source_modules", "forbidden_modules", "follow_modules"),
    "backend_isolation": ("backends",),
    "runtime_isolation": ("probe_modules", "blocked_modules", "forbidden_loaded_modules"),
    "forbidden": ("source_modules", "forbidden_modules"),
    "independence": ("modules",),
    "layers": ("layers", "containers"),
    "acyclic_siblings": ("ancestors",),
}


class LoosenedOption(TypedDict):
    """A contract that checks less after the change: the values an option lost (option None:
    the contract is removed)."""

    contract: str
    name: str
    option: str | None
    removed: list[str]


def _values(raw: Any) -> list[str]:
    lines = [raw] if isinstance(raw, str) else list(raw or [])
    return [" ".join(str(line).split()) for line in lines if str(line).strip()]


def _covered(value: str, kept: list[str]) -> bool:
    """Whether a value that stays checks `value` too: the same, or a package that holds it."""
    return any(value == other or ("*" not in other and is_within(value, other)) for other in kept)


def loosened_options(
    base: Configuration, current: Configuration, contract_ids: tuple[str, ...]
) -> list[LoosenedOption]:
    """Return each contract of the base (each that `contract_ids` names, when it names any) that
    the current configuration removes, or whose checked options lost a value."""
    found: list[LoosenedOption] = []
    for contract_id, before in sorted(base.contracts.items()):
        if contract_ids and contract_id not in contract_ids:
            continue
        name = str(before.get("name", contract_id))
        after = current.contracts.get(contract_id)
        if after is None:
            found.append({"contract": contract_id, "name": name, "option": None, "removed": []})
            continue
        if before.get("type") != after.get("type"):
            continue  # another contract, which the findings compare
        for option in CHECKED_OPTIONS.get(str(before.get("type")), ()):
            if option not in before or option not in after:
                continue  # an option left unset means its default, which may check more
            kept = _values(after[option])
            removed = [value for value in _values(before[option]) if not _covered(value, kept)]
            if removed:
                found.append(
                    {"contract": contract_id, "name": name, "option": option, "removed": removed}
                )
    return found
