"""The part every contract here shares: its allowlist options and how they report, with a
warning about what the graph cannot see for the static ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions

from .._importlinter import AlertLevel, render_broken_contract_guidance
from ..configuration import check_session_options
from ..options import BooleanField, wrongly_typed
from ..rendering import print_finding
from ..report import (
    ContractFindings,
    Finding,
    Ignored,
    IgnoredImport,
    ImportFinding,
    is_import_finding,
)
from ..unseen import run_warnings
from .entries import (
    IMPORT_ENTRIES,
    Allowlist,
    AllowlistEntry,
    AllowlistField,
    EntryKind,
    EntryUse,
    entries_missing_reasons,
)

STALE_ENTRY_ADVICE = "remove this stale entry"


def stale_warning(kind: EntryKind, entry: str) -> str:
    """Return the warning for a stale entry under `unmatched_ignore_imports_alerting = warn`."""
    return f"No {kind.finding} matches ignored {kind.finding} {entry}: {STALE_ENTRY_ADVICE}."


class ContractWithAllowlist(Contract):
    """A contract whose allowlist (the option `entry_kind.option`) is shrink-only, with
    reasons.

    Subclasses declare that option's field, compute their findings, pass each through their
    allowlist's `excuse`, and build their result with `_contract_check`.
    """

    entry_kind: ClassVar[EntryKind]
    # Whether it runs the code it checks (`check --static` leaves such contracts out).
    executes_analysed_code: ClassVar[bool] = False

    # Each field reads as its parsed value on an instance, hence the annotations.
    require_reasons: bool = BooleanField(required=False, default=False)  # type: ignore[assignment]
    unmatched_ignore_imports_alerting: AlertLevel = fields.EnumField(  # type: ignore[assignment]
        AlertLevel, default=AlertLevel.ERROR
    )
    broken_contract_guidance: str | None = fields.TextField(required=False)  # type: ignore[assignment]

    def __init__(
        self, name: str, session_options: dict[str, Any], contract_options: dict[str, Any]
    ) -> None:
        # Under lint-imports, which reads no key of the importlinter section it does not know.
        check_session_options(session_options, "The importlinter section")
        # Before import-linter's fields read the options, which fail on a value of another
        # type with Python's own message, and read an empty one as given.
        errors = wrongly_typed(type(self), contract_options)
        if errors:
            raise InvalidContractOptions(errors)
        super().__init__(name, session_options, contract_options)

    def validate(self) -> None:
        if self.require_reasons:
            missing = self.entries_without_reasons()
            if missing:
                listed = ", ".join(f"'{entry}'" for entry in missing)
                raise InvalidContractOptions(
                    {
                        self.entry_kind.option: "require_reasons is true, but these entries "
                        f"give no reason: {listed}. End each with '# why it is allowed'."
                    }
                )

    def _entries(self) -> list[AllowlistEntry]:
        return list(getattr(self, self.entry_kind.option) or [])

    def entries_without_reasons(self) -> list[AllowlistEntry]:
        """Return the allowlist's entries that give no reason, or only the placeholder."""
        return entries_missing_reasons(self._entries())

    def missing_entries(self, findings: ContractFindings) -> list[str]:
        """Return the entries (without reasons) that would excuse every violation that an entry can
        excuse, for `importlinter-contracts allowlist`."""
        raise NotImplementedError

    def _contract_check(
        self,
        violations: list[Finding],
        ignored: Sequence[Ignored],
        allowlist: EntryUse,
        warnings: list[str] | None = None,
        stale_unknown: str | None = None,
        **specific: Any,
    ) -> ContractCheck:
        """The result, with stale entries handled as `unmatched_ignore_imports_alerting` says
        (unless `stale_unknown` says why which entries are stale cannot be told) and the folders
        the graph cannot see warned about; `specific` holds the contract type's own fields of
        `ContractFindings`."""
        alerting = self.unmatched_ignore_imports_alerting
        stale = [] if alerting is AlertLevel.NONE or stale_unknown else allowlist.stale()
        # A contract that runs the code sees those folders' modules load: no warning there.
        unseen = [] if self.executes_analysed_code else run_warnings(self.session_options)
        warnings = [*unseen, *(warnings or [])]
        if stale_unknown and self._entries():
            warnings.append(
                f"The {self.entry_kind.option} entries were not checked for stale ones: "
                f"{stale_unknown}."
            )
        warned_stale = stale if alerting is AlertLevel.WARN else []
        warnings += [stale_warning(self.entry_kind, entry.text) for entry in warned_stale]
        breaking_stale = stale if alerting is AlertLevel.ERROR else []
        findings: ContractFindings = {
            "violations": violations,
            "ignored": list[Ignored](ignored),
            "unmatched_ignores": [entry.text for entry in breaking_stale],
            "warned_unmatched_ignores": [entry.text for entry in warned_stale],
            **specific,  # type: ignore[typeddict-item]
        }
        return ContractCheck(
            kept=not violations and not breaking_stale,
            warnings=warnings,
            # import-linter prints the count as "ignored imports": other excused findings
            # (loaded modules) are named in the contract's own summary.
            ignored_import_count=len(ignored) if self.entry_kind is IMPORT_ENTRIES else 0,
            metadata=dict(findings),
        )

    def _render_stale_entries_and_guidance(self, check: ContractCheck) -> None:
        stale = check.metadata["unmatched_ignores"]
        if stale:
            output.print_error(
                f"{len(stale)} {self.entry_kind.option} "
                f"{'entry matches' if len(stale) == 1 else 'entries match'} no "
                f"{self.entry_kind.finding} that this contract would report:"
            )
            output.new_line()
            for entry in stale:
                print_finding(f"-   {entry}  ({STALE_ENTRY_ADVICE})")
            output.new_line()
        render_broken_contract_guidance(self.broken_contract_guidance)


class AllowlistedContract(ContractWithAllowlist):
    """A contract whose allowlist is `ignore_imports`: import expressions."""

    entry_kind = IMPORT_ENTRIES
    ignore_imports: list[AllowlistEntry] | None = AllowlistField(IMPORT_ENTRIES)  # type: ignore[assignment]

    def _allowlist(self, graph: ImportGraph) -> Allowlist:
        return Allowlist(graph, self._entries())

    def missing_entries(self, findings: ContractFindings) -> list[str]:
        return sorted(
            {
                f"{finding['importer']} -> {finding['imported']}"
                for finding in findings["violations"]
                if is_import_finding(finding)
            }
        )


def ignored_import(finding: ImportFinding, entry: AllowlistEntry) -> IgnoredImport:
    """Return a finding that an allowlist entry excuses, as the report lists it."""
    return {**finding, "entry": entry.text, "reason": entry.reason}
