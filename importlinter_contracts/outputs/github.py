"""GitHub Actions workflow commands for the findings of a report, and for what a change adds
to import time (`review`), so that they show on the changed lines of a pull request."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..allowlist.config_text import entry_lines
from ..allowlist.contract import STALE_ENTRY_ADVICE, stale_warning
from ..allowlist.entries import ENTRY_KINDS, IMPORT_ENTRIES, EntryKind
from ..configuration import is_toml, read_configuration_text
from ..rendering import chain_locations, describe_hop, describe_import
from ..report import (
    ClosureChange,
    ContractResult,
    Finding,
    Hop,
    Location,
    Report,
    RuntimeFinding,
    is_import_finding,
)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def repository_path(path: str, root: Path) -> str:
    """Return a path relative to `root`, the repository's root, as GitHub and SARIF's `%SRCROOT%`
    read it: the report's paths are relative to the working directory, which may be a
    subfolder."""
    return Path(os.path.relpath(Path(path).resolve(), root.resolve())).as_posix()


def _command(
    message: str, title: str, where: Location | None, root: Path, kind: str = "error"
) -> str:
    properties = []
    if where is not None:
        properties.append(f"file={_escape_property(repository_path(where['path'], root))}")
        if where["line"] is not None:
            properties.append(f"line={where['line']}")
    properties.append(f"title={_escape_property(title)}")
    return f"::{kind} {','.join(properties)}::{_escape_data(message)}"


def finding_message(finding: Finding) -> str:
    """Return a finding in one line, every hop with its lines."""
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
    if not is_import_finding(finding):
        return None
    if "sources" in finding:  # an eager chain: where it starts, in the source module
        return chain_start(finding["chain"])
    return finding["locations"][0] if finding["locations"] else None


def chain_start(chain: list[Hop]) -> Location | None:
    """Return where an eager chain starts: its first line, in the source module's file (None
    for a chain of parent packages alone)."""
    return next(iter(chain_locations(chain)), None)


def closure_annotations(changes: list[ClosureChange], root: Path) -> list[str]:
    """Return one command per module that importing a watched module runs now and did not at
    the base (`review`'s `closure_changes`), `::error` for one that breaks a contract, else
    `::notice`: on the line of its chain that the change added or altered, else where the
    chain starts; paths relative to `root`, the repository's root."""
    commands = []
    for change in changes:
        for gained in change["gained"]:
            chain = gained["chain"]
            text = f"importing {change['module']} now runs {gained['module']}"
            if gained["breaks"]:
                text += f", which breaks {', '.join(gained['breaks'])}"
            text += ", by way of " + " then ".join(map(describe_hop, chain))
            commands.append(
                _command(
                    text,
                    f"Import time: {change['module']}",
                    gained["changed"] or chain_start(chain),
                    root,
                    kind="error" if gained["breaks"] else "notice",
                )
            )
    return commands


def stale_entries(
    contract: ContractResult, config_text: str, config: Path
) -> list[tuple[str, str, Location]]:
    """Return each stale allowlist entry of a contract, as its level ("error", or "warning" under
    `unmatched_ignore_imports_alerting = warn`), a message and where the entry stands in the
    configuration. An entry that breaks the contract and is not found is still reported, at the
    file; a warned entry not found is left to its warning, which then has no location."""
    breaking = contract["unmatched_ignores"]
    warned = contract.get("warned_unmatched_ignores", [])
    # Where each stands, and whether it names imports or loaded modules.
    lines: dict[str, tuple[int | None, EntryKind]] = {}
    if (breaking or warned) and contract["id"]:
        for kind in ENTRY_KINDS.values():
            found = entry_lines(
                config_text, is_toml(config), contract["id"], kind.option, [*breaking, *warned]
            )
            lines.update((entry, (line, kind)) for entry, line in found.items())
    stale = []
    for entry in breaking:
        line, kind = lines.get(entry, (None, IMPORT_ENTRIES))
        stale.append(
            (
                "error",
                f"{entry}: no {kind.finding} matches it; {STALE_ENTRY_ADVICE}",
                Location(path=str(config), line=line),
            )
        )
    for entry in warned:
        if entry in lines:
            line, kind = lines[entry]
            # The contract's own warning, so that it is not reported twice.
            stale.append(
                ("warning", stale_warning(kind, entry), Location(path=str(config), line=line))
            )
    return stale


def unlocated_warnings(
    contract: ContractResult, stale: list[tuple[str, str, Location]]
) -> list[str]:
    """Return the contract's warnings but those of the `stale` entries (`stale_entries`), which are
    reported at their lines."""
    located = {message for _, message, _ in stale}
    return [warning for warning in contract["warnings"] if warning not in located]


def github_annotations(report: Report, config: Path, root: Path) -> list[str]:
    """Return one `::error` command per violation and per stale allowlist entry (which points at its
    line in the configuration file), one `::warning` per warning; paths relative to `root`,
    the repository's root."""
    config_text = read_configuration_text(config)
    commands = []
    for contract in report["contracts"]:
        title = f"{contract['name']} ({contract['id']})" if contract["id"] else contract["name"]
        for finding in contract["violations"]:
            commands.append(_command(finding_message(finding), title, _where(finding), root))
        stale = stale_entries(contract, config_text, config)
        for level, message, where in stale:
            commands.append(_command(message, title, where, root, kind=level))
        for warning in unlocated_warnings(contract, stale):
            commands.append(_command(warning, title, None, root, kind="warning"))
    return commands
