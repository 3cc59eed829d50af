"""GitHub Actions workflow commands for the findings of a report, so that they show on the
changed lines of a pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config_file import find_allowlist, is_toml
from .locations import location


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(message: str, title: str, where: str | None) -> str:
    properties = []
    if where:
        path, _, line = where.rpartition(":")
        if not line.isdigit():
            path, line = where, ""
        properties.append(f"file={_escape_property(path)}")
        if line:
            properties.append(f"line={line}")
    properties.append(f"title={_escape_property(title)}")
    return f"::error {','.join(properties)}::{_escape_data(message)}"


def _where(violation: dict[str, Any]) -> str | None:
    locations = [where for where in violation.get("locations", []) if where]
    if locations:
        return str(locations[0])
    if "importer" in violation:
        lines = violation.get("line_numbers") or [None]
        return location(violation["importer"], lines[0])
    return None


def _message(violation: dict[str, Any]) -> str:
    if "message" in violation:
        return str(violation["message"])
    text = f"{violation['importer']} -> {violation['imported']}"
    if violation.get("why"):
        text += f" ({', '.join(violation['why'])})"
    if violation.get("sources"):
        text += f", runs when importing {', '.join(violation['sources'])}"
    return text


def github_annotations(data: dict[str, Any], config: Path) -> list[str]:
    """One `::error` command per violation and per stale allowlist entry; a stale entry
    points at its line in the configuration file."""
    config_text = config.read_bytes().decode("utf-8") if config.is_file() else ""
    commands = []
    for contract in data["contracts"]:
        title = f"{contract['name']} ({contract['id']})" if contract.get("id") else contract["name"]
        for violation in contract["violations"]:
            commands.append(_command(_message(violation), title, _where(violation)))
        if contract["unmatched_ignores"]:
            lines = {
                span.text: span.line
                for span in find_allowlist(config_text, contract["id"], is_toml(config)).entries
            }
            for entry in contract["unmatched_ignores"]:
                where = f"{config}:{lines[entry]}" if entry in lines else str(config)
                commands.append(
                    _command(
                        f"{entry}: no import matches it; remove this stale entry", title, where
                    )
                )
    return commands
