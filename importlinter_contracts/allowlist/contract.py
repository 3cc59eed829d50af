"""The part every static contract here shares: its allowlist options and how they report,
with a warning about what the graph cannot see."""

from __future__ import annotations

from typing import Any, ClassVar

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions

from .._importlinter import AlertLevel, render_broken_contract_guidance
from ..outputs.text import print_finding
from ..report import ContractFindings, Finding, IgnoredImport, ImportFinding
from ..unseen import unseen_folders
from .entries import Allowlist, AllowlistEntry, AllowlistField, entries_missing_reasons

STALE_ENTRY_ADVICE = "remove this stale entry"


class AllowlistedContract(Contract):
    """A contract whose `ignore_imports` is a shrink-only allowlist with reasons.

    Subclasses compute their findings, pass each through `Allowlist.excuse`, and build their
    result with `_contract_check`.
    """

    # They read the import graph and source files, never run them (`check --static` runs them).
    executes_analysed_code: ClassVar[bool] = False

    # Each field reads as its parsed value on an instance, hence the annotations.
    ignore_imports: list[AllowlistEntry] | None = AllowlistField()  # type: ignore[assignment]
    require_reasons: bool = fields.BooleanField(required=False, default=False)  # type: ignore[assignment]
    unmatched_ignore_imports_alerting: AlertLevel = fields.EnumField(  # type: ignore[assignment]
        AlertLevel, default=AlertLevel.ERROR
    )
    broken_contract_guidance: str | None = fields.TextField(required=False)  # type: ignore[assignment]

    def validate(self) -> None:
        if self.require_reasons:
            missing = entries_missing_reasons(self._entries())
            if missing:
                listed = ", ".join(f"'{entry}'" for entry in missing)
                raise InvalidContractOptions(
                    {
                        "ignore_imports": f"require_reasons is true, but these entries give no "
                        f"reason: {listed}. End each with '# why it is allowed'."
                    }
                )

    def _entries(self) -> list[AllowlistEntry]:
        return list(self.ignore_imports or [])

    def _allowlist(self, graph: ImportGraph) -> Allowlist:
        return Allowlist(graph, self._entries())

    def _contract_check(
        self,
        violations: list[Finding],
        ignored: list[IgnoredImport],
        allowlist: Allowlist,
        warnings: list[str] | None = None,
        **specific: Any,
    ) -> ContractCheck:
        """The result, with stale entries handled as `unmatched_ignore_imports_alerting` says
        and the folders the graph cannot see warned about; `specific` holds the contract
        type's own fields of `ContractFindings`."""
        alerting = self.unmatched_ignore_imports_alerting
        stale = [] if alerting is AlertLevel.NONE else allowlist.stale()
        unseen = unseen_folders(self.session_options).warning()
        warnings = [*([unseen] if unseen else []), *(warnings or [])]
        if alerting is AlertLevel.WARN:
            warnings += [
                f"No import matches ignored import {entry}: {STALE_ENTRY_ADVICE}."
                for entry in stale
            ]
        breaking_stale = stale if alerting is AlertLevel.ERROR else []
        findings: ContractFindings = {
            "violations": violations,
            "ignored": ignored,
            "unmatched_ignores": [entry.text for entry in breaking_stale],
            **specific,  # type: ignore[typeddict-item]
        }
        return ContractCheck(
            kept=not violations and not breaking_stale,
            warnings=warnings,
            ignored_import_count=len(ignored),
            metadata=dict(findings),
        )

    def _render_stale_entries_and_guidance(self, check: ContractCheck) -> None:
        stale = check.metadata["unmatched_ignores"]
        if stale:
            output.print_error(
                f"{len(stale)} ignore_imports "
                f"{'entry matches' if len(stale) == 1 else 'entries match'} no import "
                "that this contract would report:"
            )
            output.new_line()
            for entry in stale:
                print_finding(f"-   {entry}  ({STALE_ENTRY_ADVICE})")
            output.new_line()
        render_broken_contract_guidance(self.broken_contract_guidance)


def ignored_import(finding: ImportFinding, entry: AllowlistEntry) -> IgnoredImport:
    """A finding that an allowlist entry excuses, as the report lists it."""
    return {**finding, "entry": entry.text, "reason": entry.reason}
