"""The report as SARIF 2.1.0, the format code-scanning dashboards read: one result per
violation, stale allowlist entry and warning, one rule per contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..configuration import read_configuration_text
from ..report import Finding, Location, Report, contract_key, is_import_finding
from .github import finding_message, repository_path, stale_entries, unlocated_warnings

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/vllm-project/importlinter-contracts"


def _artifact(path: str, root: Path) -> dict[str, Any]:
    # A relative URI reference (RFC 3986), percent-encoded as `Path.as_uri` encodes a path:
    # a space, '%' or '#' is data, not a delimiter.
    return {"uri": quote(repository_path(path, root)), "uriBaseId": "%SRCROOT%"}


def _locations(where: list[Location], root: Path) -> list[dict[str, Any]]:
    found = []
    for location in where[:1]:
        physical: dict[str, Any] = {"artifactLocation": _artifact(location["path"], root)}
        if location["line"] is not None:
            physical["region"] = {"startLine": location["line"]}
        found.append({"physicalLocation": physical})
    return found


def _result(rule: str, level: str, text: str, where: list[Location], root: Path) -> dict[str, Any]:
    return {
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": _locations(where, root),
    }


def _finding_locations(finding: Finding) -> list[Location]:
    return finding["locations"] if is_import_finding(finding) else []


def sarif_log(report: Report, config: Path, root: Path) -> dict[str, Any]:
    """Return the SARIF log of a report; paths relative to `root`, the repository's root."""
    config_text = read_configuration_text(config)
    rules = []
    results = []
    for contract in report["contracts"]:
        rule = contract_key(contract)
        rules.append(
            {
                "id": rule,
                "name": contract["type"],
                "shortDescription": {"text": contract["name"]},
                "properties": {"kept": contract["kept"]},
            }
        )
        for finding in contract["violations"]:
            results.append(
                _result(rule, "error", finding_message(finding), _finding_locations(finding), root)
            )
        stale = stale_entries(contract, config_text, config)
        for level, message, where in stale:
            results.append(_result(rule, level, message, [where], root))
        for warning in unlocated_warnings(contract, stale):
            results.append(_result(rule, "warning", warning, [], root))
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "importlinter-contracts",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root.resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }
