"""The review as Markdown, ready to post as a pull-request comment."""

from __future__ import annotations

from typing import cast

from ..locations import link_text
from ..rendering import describe_hop, describe_import, smallest_cut_heading
from ..report import ClosureChange, Finding, RuntimeFinding, contract_key, is_import_finding
from ..review import closures
from ..review.allowlists import ContractAllowlists
from ..review.effects import ChangedFinding
from ..review.options import LoosenedOption
from ..review.summary import ContractCut, HistoryPoint, ReviewReport


def _cell(text: str | None) -> str:
    """Text for a table cell: pipes escaped, lines joined."""
    return " ".join((text or "").split()).replace("|", "\\|")


def _code(text: str) -> str:
    return f"`{_cell(text)}`"


def _finding(finding: Finding) -> str:
    if is_import_finding(finding):
        return _code(
            describe_import(finding["importer"], finding["imported"], finding["line_numbers"])
        )
    return _cell(cast(RuntimeFinding, finding)["message"])


def _contract_table(
    changes: list[ContractAllowlists], verdicts: dict[str, bool], skipped: set[str]
) -> list[str]:
    lines = [
        "| contract | verdict now | entries before | after | net |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for change in changes:
        verdict = verdicts.get(change["id"])
        if change["id"] in skipped:
            shown = "not checked (--static)"
        elif verdict is None:
            shown = "removed"
        else:
            shown = "kept" if verdict else "**broken**"
        net = change["after"] - change["before"]
        lines.append(
            f"| {_cell(change['name'])} (`{change['id']}`) | {shown} | {change['before']} "
            f"| {change['after']} | {'+' if net > 0 else ''}{net} |"
        )
    return lines


def _entries(change: ContractAllowlists) -> list[str]:
    rows = [
        *(("added", e["expression"], _cell(e["reason"]) or "(none)") for e in change["added"]),
        *(("removed", e["expression"], _cell(e["reason"])) for e in change["removed"]),
        *(
            ("reason changed", e["expression"], f"{_cell(e['before'])} → {_cell(e['after'])}")
            for e in change["reason_changed"]
        ),
    ]
    if not rows:
        return []
    return [
        "",
        f"#### {_cell(change['name'])} (`{change['id']}`)",
        "",
        "| | entry | reason |",
        "| --- | --- | --- |",
        *(f"| {kind} | {_code(expression)} | {reason} |" for kind, expression, reason in rows),
    ]


def _changed(title: str, findings: list[ChangedFinding]) -> list[str]:
    if not findings:
        return []
    return [
        "",
        f"#### {title}",
        "",
        "| contract | finding | what changed |",
        "| --- | --- | --- |",
        *(
            f"| {_cell(f['name'])} (`{f['contract']}`) | {_finding(f['finding'])} "
            f"| {_cell(', '.join(f['because'])) or '(not known)'} |"
            for f in findings
        ),
    ]


def _loosened_options(found: list[LoosenedOption]) -> list[str]:
    if not found:
        return []
    return [
        "",
        "#### Checks less: what the configuration change no longer checks",
        "",
        "| contract | option | no longer checked |",
        "| --- | --- | --- |",
        *(
            f"| {_cell(f['name'])} (`{f['contract']}`) | "
            + (
                "contract removed | (all of it) |"
                if f["option"] is None
                else f"{f['option']} | {', '.join(map(_code, f['removed']))} |"
            )
            for f in found
        ),
    ]


def _smallest_cut(found: ContractCut) -> list[str]:
    rows = []
    for statement in found["cut"]["statements"]:
        imported = ", ".join(statement["imported"])
        where = statement["location"]
        shown = link_text(where) if where else f"l.{statement['line']}"
        use = statement["import_time_use"]
        lazy = "yes"
        if statement["uses_unread"] is not None:
            lazy = f"not known: {_cell(statement['uses_unread'])}"
        elif use is not None:
            used_at = link_text({"path": use["path"], "line": use["line"]})
            lazy = (
                f"no: {_code(use['name'])} is used at import time ({_cell(use['how'])}), "
                f"{_code(used_at)}"
            )
        elif statement["not_lazy"] is not None:
            lazy = f"no: {_cell(statement['not_lazy'])}"
        call = statement["call"]
        calls = f" calls {call['function']}" if call is not None else ""
        rows.append(
            f"| {_code(statement['importer'] + calls + ' -> ' + imported)} | {_code(shown)} "
            f"| {_cell(statement['why'])} | {len(statement['cuts'])} | {lazy} |"
        )
    return [
        "",
        f"#### What to defer: {_cell(found['name'])} (`{found['id']}`)",
        "",
        _cell(smallest_cut_heading(found["cut"], found["excused"])),
        "",
        "| import | where | runs | chains | can be lazy |",
        "| --- | --- | --- | ---: | --- |",
        *rows,
    ]


def _breaks(contracts: list[str]) -> str:
    return f" (**breaks** {', '.join(map(_code, contracts))})" if contracts else ""


def _closure_changes(changes: list[ClosureChange]) -> list[str]:
    if not changes:
        return []
    lines = ["", "#### Import time: what importing a module runs now, and no longer runs"]
    for change in changes:
        contracts = ", ".join(f"`{_cell(c)}`" for c in change["contracts"])
        source = f" (a source module of {contracts})" if contracts else ""
        gained, lost = len(change["gained"]), len(change["lost"])
        what = [f"now runs {gained} more module{'s' if gained != 1 else ''}"] if gained else []
        what += [f"no longer runs {lost} module{'s' if lost != 1 else ''}"] if lost else []
        lines += ["", f"Importing `{change['module']}`{source} {' and '.join(what)}."]
        if change["gained"]:
            lines += [
                "",
                "| now runs | by way of | the change's line |",
                "| --- | --- | --- |",
                *(
                    f"| `{found['module']}`{_breaks(found['breaks'])} | "
                    + " then ".join(_code(describe_hop(hop)) for hop in found["chain"])
                    + f" | {_code(link_text(found['changed'])) if found['changed'] else '(none)'} |"
                    for found in change["gained"]
                ),
            ]
        if change["lost"]:
            lines += ["", "No longer runs: " + ", ".join(map(_code, change["lost"])) + "."]
    return lines


def review_markdown(report: ReviewReport) -> str:
    """Return the review: a summary line, a table of allowlists, then per contract its changed
    entries (added first), then what the configuration change lets through and what it no
    longer checks, then what to defer for each eager_imports contract with chains to cut, then
    what importing each module watched runs now and did not, and no longer runs."""
    added = sum(len(change["added"]) for change in report["allowlists"])
    removed = sum(len(change["removed"]) for change in report["allowlists"])
    heading = (
        f"### Import contracts: review against `{report['base']}` ({report['base_commit'][:12]})"
    )
    summary = []
    if report["grew"]:
        summary.append(f"**The allowlists grew**: {added} added, {removed} removed.")
    else:
        summary.append(f"The allowlists did not grow: {added} added, {removed} removed.")
    if report["loosened"]:
        summary.append(
            f"**The configuration change stops reporting {len(report['loosened'])} "
            f"finding{'s' if len(report['loosened']) != 1 else ''}.**"
        )
    if report["loosened_options"]:
        count = len(report["loosened_options"])
        summary.append(
            f"**The configuration change makes {count} contract{'s' if count != 1 else ''} "
            "check less.**"
        )
    if report["base_error"] is not None:
        added_all = "" if report["base_has_configuration"] else ", every entry counts as added,"
        summary.append(
            f"**The configuration at `{report['base']}` cannot be checked**{added_all} and "
            f"there are no findings of it to compare with: {_cell(report['base_error'])}"
        )
    elif not report["base_has_configuration"]:
        summary.append(
            f"`{report['base']}` has no {report['configuration']}: every entry counts as added, "
            "and there is no earlier configuration to compare findings with."
        )
    if report["closure_error"] is not None:
        summary.append(
            "**What the change adds to import time cannot be told**: "
            f"{_cell(report['closure_error'])}"
        )
    if report["closure_changes"]:
        count = len(report["closure_changes"])
        summary.append(
            f"Importing {count} module{'s' if count != 1 else ''} runs other modules than at "
            f"`{report['base']}` (import time, below)."
        )
    broken = closures.contracts_broken(report["closure_changes"])
    if broken:
        summary.append(
            f"**A module that an import now runs breaks {', '.join(map(_code, broken))}.**"
        )
    lines = [heading, "", " ".join(summary)]
    if report["allowlists"]:
        skipped = {contract_key(c) for c in report["skipped"]}
        lines += ["", *_contract_table(report["allowlists"], report["verdicts"], skipped)]
    for change in report["allowlists"]:
        lines += _entries(change)
    lines += _changed("No longer reported because the configuration changed", report["loosened"])
    lines += _loosened_options(report["loosened_options"])
    lines += _changed("Newly reported: the configuration change tightened", report["tightened"])
    for found in report["smallest_cuts"]:
        lines += _smallest_cut(found)
    lines += _closure_changes(report["closure_changes"])
    return "\n".join(lines) + "\n"


def history_markdown(points: list[HistoryPoint]) -> str:
    """Return a table: a row per revision, a column per contract, the entries of its allowlists."""
    contracts = sorted({contract for point in points for contract in point["entries"]})
    lines = [
        "| revision | " + " | ".join(f"`{c}`" for c in contracts) + " |",
        "| --- | " + " | ".join("---:" for _ in contracts) + " |",
    ]
    for point in points:
        counts = [str(point["entries"].get(c, "")) for c in contracts]
        lines.append(f"| `{_cell(point['revision'])}` | " + " | ".join(counts) + " |")
    return "\n".join(lines) + "\n"
