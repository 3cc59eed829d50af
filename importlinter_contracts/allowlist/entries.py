"""The shrink-only allowlist: `ignore_imports` entries that carry their reason.

An entry is an import expression in import-linter's syntax, optionally followed by
`# reason`. Unlike import-linter's built-in contracts, an entry counts as used only when it
excuses a finding of its own contract: an entry whose import is gone, or no longer breaks the
rule, is stale, so the list can only shrink.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from grimp import ImportGraph
from importlinter import fields
from importlinter.domain.imports import ImportExpression

# What `importlinter-contracts allowlist` writes for a new entry: a reason still to be written.
PLACEHOLDER_REASON = "TODO: reason"


@dataclass(frozen=True)
class AllowlistEntry:
    """One `ignore_imports` line: an import expression and why it is allowed."""

    expression: ImportExpression
    reason: str | None
    text: str

    @property
    def has_reason(self) -> bool:
        return self.reason is not None and self.reason != PLACEHOLDER_REASON

    def __str__(self) -> str:
        return self.text


def entry_text(text: str) -> str:
    """An entry as it is reported and matched: its runs of white space made single spaces."""
    return " ".join(text.split())


def parse_entry(text: str) -> AllowlistEntry:
    """Parse `importer -> imported  # reason` (the reason is optional).

    Raises fields.ValidationError naming the entry when it is malformed.
    """
    line = entry_text(text)
    expression_text, hash_sign, reason = line.partition("#")
    try:
        expression = fields.ImportExpressionField().parse(expression_text.strip())
    except fields.ValidationError as error:
        raise fields.ValidationError(
            f"Entry '{line}' is not an import expression ({error.message.rstrip('.')}): "
            'write it as "package.importer -> package.imported  # reason".'
        ) from None
    return AllowlistEntry(
        expression=expression,
        reason=reason.strip() or None if hash_sign else None,
        text=line,
    )


class AllowlistEntryField(fields.Field):  # type: ignore[type-arg]
    """A field for one allowlist entry, reason included."""

    def parse(self, raw_data: str | list[str]) -> AllowlistEntry:
        if isinstance(raw_data, list):
            raise fields.ValidationError("Expected a single value, got multiple values.")
        return parse_entry(raw_data)


class AllowlistField(fields.ListField):
    """An allowlist option: entries of which no two allow the same imports (the second of
    two would never go stale, so the list could no longer only shrink)."""

    def __init__(self) -> None:
        super().__init__(subfield=AllowlistEntryField(), required=False)

    def parse(self, raw_data: str | list[str]) -> list[Any]:
        entries: list[AllowlistEntry] = super().parse(raw_data)
        by_expression: dict[str, list[AllowlistEntry]] = {}
        for entry in entries:
            by_expression.setdefault(str(entry.expression), []).append(entry)
        repeated = [same for same in by_expression.values() if len(same) > 1]
        if repeated:
            listed = "; ".join(", ".join(f"'{entry}'" for entry in same) for same in repeated)
            raise fields.ValidationError(
                f"These entries allow the same imports: {listed}. Keep one of each."
            )
        return entries


def entries_missing_reasons(entries: Iterable[AllowlistEntry]) -> list[AllowlistEntry]:
    return [entry for entry in entries if not entry.has_reason]


class Allowlist:
    """The entries of one contract, matched against the graph once.

    Contracts ask `excuse(importer, imported)` for each finding; entries that never excuse
    anything are `stale()`.
    """

    def __init__(self, graph: ImportGraph, entries: Iterable[AllowlistEntry]) -> None:
        self.entries = list(entries)
        self._entries_by_import: dict[tuple[str, str], list[AllowlistEntry]] = {}
        for entry in self.entries:
            for match in graph.find_matching_direct_imports(
                import_expression=str(entry.expression)
            ):
                key = (match["importer"], match["imported"])
                self._entries_by_import.setdefault(key, []).append(entry)
        self._used: set[AllowlistEntry] = set()

    def excuse(self, importer: str, imported: str) -> AllowlistEntry | None:
        """Return the first entry that allows this import (marking every such entry used)."""
        matching = self._entries_by_import.get((importer, imported))
        if not matching:
            return None
        self._used.update(matching)
        return matching[0]

    def stale(self) -> list[AllowlistEntry]:
        return [entry for entry in self.entries if entry not in self._used]
