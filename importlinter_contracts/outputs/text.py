"""Printing findings in lint-imports' style, with locations that stay on one line."""

from __future__ import annotations

from .. import _importlinter
from ..locations import link_text
from ..report import Hop, Location


def print_finding(text: str, *, indent: int = 0, bold: bool = False) -> None:
    """Print one line of a broken contract's details.

    Rich would wrap a long `path:line` over two lines, which editors and CI logs then fail
    to link, so these lines are never wrapped; `text` is printed as is, not as Rich markup.
    """
    _importlinter.console_line(text, indent=indent, bold=bold)


def print_note(text: str, *, indent: int = 0) -> None:
    """Print one line of what a contract saw, in the default colour, never wrapped."""
    _importlinter.console_line(text, indent=indent, bold=False, error=False)


def print_import(text: str, locations: list[Location]) -> None:
    """A finding's line, `-   importer -> imported (...)`, with its `path:line` under it."""
    print_finding(f"-   {text}")
    for where in locations:
        print_finding(link_text(where), indent=1)


def describe_import(importer: str, imported: str, line_numbers: list[int]) -> str:
    """`importer -> imported (l.3, l.5)`, as lint-imports writes an import."""
    return f"{importer} -> {imported} ({_importlinter.format_line_numbers(line_numbers)})"


def hop_locations(hop: Hop) -> list[Location]:
    """Where a hop's import lines stand, then where the calls that run them stand (the call
    at import time first), each once."""
    found = list(hop["locations"])
    for calls in hop.get("calls", []):
        for call in calls:
            where = call["location"]
            if where is not None and where not in found:
                found.append(where)
    return found


def describe_hop(hop: Hop) -> str:
    """A hop as one line: `a -> b (l.3, module level)`, or `a.b -> a (why)` for a parent."""
    if not hop["line_numbers"]:
        return f"{hop['importer']} -> {hop['imported']} ({hop['why'][0]})"
    lines = "; ".join(
        f"l.{line}, {why}" for line, why in zip(hop["line_numbers"], hop["why"], strict=True)
    )
    return f"{hop['importer']} -> {hop['imported']} ({lines})"
