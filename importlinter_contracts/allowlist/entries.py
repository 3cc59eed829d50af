"""The shrink-only allowlist: entries that carry their reason.

An entry is an import expression in import-linter's syntax (`ignore_imports`), or a module
expression (`ignore_loaded_modules` of the runtime contract), optionally followed by
`# reason`. Unlike import-linter's built-in contracts, an entry counts as used only when it
excuses a finding of its own contract: an entry whose import is gone, or no longer breaks the
rule, is stale, so the list can only shrink.
"""

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, cast

from grimp import ImportGraph
from importlinter import fields
from importlinter.domain.imports import ImportExpression, ModuleExpression

from ..modules import has_module, names_matching
from ..options import NonEmptyListField

# What `importlinter-contracts allowlist` writes for a new entry: a reason still to be written.
PLACEHOLDER_REASON = "TODO: reason"


class EntryKind(NamedTuple):
    """What the entries of one allowlist option name, and how a person writes one."""

    option: str
    expression: str  # what each entry gives, e.g. "an import expression"
    example: str  # an entry, without its reason
    finding: str  # what an entry excuses, e.g. "import"
    parse: Callable[[str], ImportExpression | ModuleExpression]


def _module_names(text: str) -> bool:
    """Whether the parts of a module expression are names (or `*`, `**` standing for them)."""
    return all(part.isidentifier() or part in ("*", "**") for part in text.strip().split("."))


def _module_expression(text: str) -> ModuleExpression:
    """A module expression, whose parts are names (import-linter's field lets any text pass,
    which as an entry would never match)."""
    expression = fields.ModuleExpressionField().parse(text)
    if not _module_names(text):
        raise fields.ValidationError("not a dotted module name, * or ** standing for a name")
    return expression


def _import_expression(text: str) -> ImportExpression:
    """An import expression, whose modules' parts are names: import-linter's field lets any
    text pass, which grimp refuses when the contract checks, naming neither the contract nor
    the option."""
    expression = fields.ImportExpressionField().parse(text)
    if not all(_module_names(side) for side in text.split("->")):
        raise fields.ValidationError(
            "a module on either side is not a dotted name, * or ** standing for a name"
        )
    return expression


IMPORT_ENTRIES = EntryKind(
    "ignore_imports",
    "an import expression",
    "package.importer -> package.imported",
    "import",
    _import_expression,
)
LOADED_MODULE_ENTRIES = EntryKind(
    "ignore_loaded_modules",
    "a module expression",
    "package.module",
    "loaded module",
    _module_expression,
)
ENTRY_KINDS = {kind.option: kind for kind in (IMPORT_ENTRIES, LOADED_MODULE_ENTRIES)}


class AllowlistEntry(NamedTuple):
    """One allowlist line: an import or module expression and why it is allowed."""

    expression: ImportExpression | ModuleExpression
    reason: str | None
    text: str

    @property
    def has_reason(self) -> bool:
        return self.reason is not None and self.reason != PLACEHOLDER_REASON

    def __str__(self) -> str:
        return self.text


def entry_text(text: str) -> str:
    """Return an entry as it is reported and matched: its runs of white space made single spaces."""
    return " ".join(text.split())


def parse_entry(text: str, kind: EntryKind = IMPORT_ENTRIES) -> AllowlistEntry:
    """Return the entry that `importer -> imported  # reason` (or for module entries `module  #
    reason`; the reason is optional) parses to.

    Raises fields.ValidationError naming the entry when it is malformed.
    """
    line = entry_text(text)
    expression_text, hash_sign, reason = line.partition("#")
    try:
        expression = kind.parse(expression_text.strip())
    except fields.ValidationError as error:
        raise fields.ValidationError(
            f"Entry '{line}' is not {kind.expression} ({error.message.rstrip('.')}): "
            f'write it as "{kind.example}  # reason".'
        ) from None
    return AllowlistEntry(
        expression=expression,
        reason=reason.strip() or None if hash_sign else None,
        text=line,
    )


class AllowlistEntryField(fields.Field):  # type: ignore[type-arg]
    """A field for one allowlist entry, reason included."""

    def __init__(self, kind: EntryKind = IMPORT_ENTRIES) -> None:
        super().__init__()
        self.kind = kind

    def parse(self, raw_data: str | list[str]) -> AllowlistEntry:
        if isinstance(raw_data, list):
            raise fields.ValidationError("Expected a single value, got multiple values.")
        return parse_entry(raw_data, self.kind)


class AllowlistField(NonEmptyListField):
    """An allowlist option: entries of which no two allow the same imports, or loaded modules
    (the second of two would never go stale, so the list could no longer only shrink)."""

    def __init__(self, kind: EntryKind = IMPORT_ENTRIES) -> None:
        super().__init__(subfield=AllowlistEntryField(kind), required=False)
        self.kind = kind

    def repeated(self, values: list[Any]) -> str | None:
        by_expression: dict[str, list[AllowlistEntry]] = {}
        for entry in values:
            by_expression.setdefault(str(entry.expression), []).append(entry)
        repeated = [same for same in by_expression.values() if len(same) > 1]
        if not repeated:
            return None
        listed = "; ".join(", ".join(f"'{entry}'" for entry in same) for same in repeated)
        return f"These entries allow the same {self.kind.finding}s: {listed}. Keep one of each."


def entries_missing_reasons(entries: Iterable[AllowlistEntry]) -> list[AllowlistEntry]:
    """Return the entries that give no reason, or only the placeholder."""
    return [entry for entry in entries if not entry.has_reason]


class EntryUse:
    """Which entries of one contract excused a finding; the others are `stale()`."""

    def __init__(self, entries: Iterable[AllowlistEntry]) -> None:
        self.entries = list(entries)
        self._used: set[AllowlistEntry] = set()

    def _use(self, matching: list[AllowlistEntry] | None) -> AllowlistEntry | None:
        """The first of the matching entries (marking every one used), or None."""
        if not matching:
            return None
        self._used.update(matching)
        return matching[0]

    def stale(self) -> list[AllowlistEntry]:
        """Return the entries that excused no finding."""
        return [entry for entry in self.entries if entry not in self._used]


class Allowlist(EntryUse):
    """The `ignore_imports` entries of one contract, each matched once against the modules of
    the graph and the names in `also`.

    Contracts ask `excuse(importer, imported)` for each finding: an entry excuses an import
    whose importer and imported module its two module expressions match, whether the graph
    holds that import or not (a dynamic import, `importlib.import_module("m")`, which an
    eager_imports walk follows; backend_isolation's name re-exported from a backend). `also`
    are such findings' (importer, imported) pairs whose modules the graph may not hold.
    """

    def __init__(
        self,
        graph: ImportGraph,
        entries: Iterable[AllowlistEntry],
        also: Iterable[tuple[str, str]] = (),
    ) -> None:
        super().__init__(entries)
        # By importer, each entry that matches it with the imported modules it matches, in the
        # entries' order.
        self._entries_by_importer: dict[str, list[tuple[AllowlistEntry, set[str]]]] = {}
        expressions = [cast(ImportExpression, entry.expression) for entry in self.entries]
        matched = _modules_matching(
            graph,
            {side.expression for e in expressions for side in (e.importer, e.imported)},
            {module for pair in also for module in pair},
        )
        for entry, expression in zip(self.entries, expressions, strict=True):
            imported = matched[expression.imported.expression]
            if imported:
                for importer in matched[expression.importer.expression]:
                    self._entries_by_importer.setdefault(importer, []).append((entry, imported))

    def excuse(self, importer: str, imported: str) -> AllowlistEntry | None:
        """Return the first entry that allows this import (marking every such entry used)."""
        return self._use(
            [
                entry
                for entry, modules in self._entries_by_importer.get(importer, ())
                if imported in modules
            ]
        )


def _modules_matching(
    graph: ImportGraph, expressions: Iterable[str], names: Iterable[str]
) -> dict[str, set[str]]:
    """Return, for each module expression, the modules of the graph and the `names` it matches."""
    matched = names_matching(expressions, names)
    for expression, modules in matched.items():
        if "*" in expression:
            modules.update(graph.find_matching_modules(expression))
        elif has_module(graph, expression):
            modules.add(expression)
    return matched


class LoadedModuleAllowlist(EntryUse):
    """The `ignore_loaded_modules` entries of one contract, matched against the loaded
    modules of a run: an entry names modules exactly, `*` and `**` as in import-linter."""

    def __init__(self, loaded: Iterable[str], entries: Iterable[AllowlistEntry]) -> None:
        super().__init__(entries)
        self._entries_by_module: dict[str, list[AllowlistEntry]] = {}
        matched = names_matching((str(entry.expression) for entry in self.entries), loaded)
        for entry in self.entries:
            for module in matched[str(entry.expression)]:
                self._entries_by_module.setdefault(module, []).append(entry)

    def excuse(self, module: str) -> AllowlistEntry | None:
        """Return the first entry that allows this loaded module (marking every such entry
        used)."""
        return self._use(self._entries_by_module.get(module))
