"""Printing findings in lint-imports' style, with locations that stay on one line."""

from __future__ import annotations

from importlinter.application import output
from rich.markup import escape


def print_finding(text: str, *, indent: int = 0, bold: bool = False) -> None:
    """Print one line of a broken contract's details.

    Rich would wrap a long `path:line` over two lines, which editors and CI logs then fail
    to link, so these lines are never wrapped; `text` is printed as is, not as Rich markup.
    """
    output.console.print(
        " " * (output.INDENT_SIZE * indent) + escape(text),
        style=f"bold {output.COLORS[output.ERROR]}" if bold else output.COLORS[output.ERROR],
        soft_wrap=True,
    )


def print_import(text: str, locations: list[str | None]) -> None:
    """A finding's line, `-   importer -> imported (...)`, with its `path:line` under it."""
    print_finding(f"-   {text}")
    for where in locations:
        if where:
            print_finding(where, indent=1)
