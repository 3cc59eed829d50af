"""GitHub Actions workflow commands for the findings of a report, so that they show on the
changed lines of a pull request."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..allowlist.config_text import entry_lines
from ..allowlist.entries import ENTRY_KINDS, IMPORT_ENTRIES, EntryKind
from ..configuration import is_toml, read_configuration_text
from ..report import Finding, Location, Report, RuntimeFinding, is_import_finding
from .text import describe_hop, describe_import


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(message: str, title: str, where: Location | None) -> str:
    properties = []
    if where is not None:
        properties.append(f"file={_escape_property(where['path'])}")
        if where["line"] is not None:
            properties.append(f"line={where['line']}")
    properties.append(f"title={_escape_property(title)}")
    return f"::error {','.join(properties)}::{_escape_data(message)}"


def _message(finding: Finding) -> str:
    if not is_import_finding(finding):
        return cast(RuntimeFinding, finding)["message"]
    if "sources" in finding:  # an eager import, with the chain that reaches it
        *before, last = finding["chain"]
        text = f"{describe_hop(last)}, runs when importing {', '.join(finding['sources'])}"
        if before:
            text += " by way of " + " then ".join(map(describe_hop, before))
        return text
    hops: list[Mapping[str, Any]] = [*finding.get("chain", [])] or [finding]
    text = " then ".join(map(_describe, hops))
    text += "".join(f"; also from {_describe(hop)}" for hop in finding.get("extra_firsts", []))
    text += "".join(f"; also to {_describe(hop)}" for hop in finding.get("extra_lasts", []))
    if "import_count" in finding:
        text += f" ({finding['import_count']} imports)"
    return text


def _describe(hop: Mapping[str, Any]) -> str:
    return describe_import(hop["importer"], hop["imported"], hop["line_numbers"])


def _where(finding: Finding) -> Location | None:
    if is_import_finding(finding) and finding["locations"]:
        return finding["locations"][0]
    return None


def github_annotations(report: Report, config: Path) -> list[str]:
    """One `::error` command per violation and per stale allowlist entry; a stale entry
    points at its line in the configuration file."""
    config_text = read_configuration_text(config)
    commands = []
    for contract in report["contracts"]:
        title = f"{contract['name']} ({contract['id']})" if contract["id"] else contract["name"]
        for finding in contract["violations"]:
            commands.append(_command(_message(finding), title, _where(finding)))
        # Where each stale entry stands, and whether it names imports or loaded modules; an
        # entry not found is still reported, at the file.
        lines: dict[str, tuple[int | None, EntryKind]] = {}
        if contract["unmatched_ignores"] and contract["id"]:
            for kind in ENTRY_KINDS.values():
                found = entry_lines(
                    config_text,
                    is_toml(config),
                    contract["id"],
                    kind.option,
                    contract["unmatched_ignores"],
                )
                lines.update((entry, (line, kind)) for entry, line in found.items())
        for entry in contract["unmatched_ignores"]:
            line, kind = lines.get(entry, (None, IMPORT_ENTRIES))
            where: Location = {"path": str(config), "line": line}
            commands.append(
                _command(
                    f"{entry}: no {kind.finding} matches it; remove this stale entry", title, where
                )
            )
    return commands
