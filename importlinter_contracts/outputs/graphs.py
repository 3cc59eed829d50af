"""Chains of imports as pictures: Graphviz DOT, and Mermaid (which GitHub renders in
Markdown). An edge from A to B says that importing A runs B. It is labelled with the lines
that do it, and `conditional` where it runs only where a test holds that the tool cannot
decide. An import inside a function that a call at import time runs is drawn from the module
that makes the call, labelled with the import's line and module and the call's line: `l.96 of
pkg.a, called at l.20`, or `l.96, called at l.20` where the module calls a function of its own.
A parent package (which Python runs before its submodule) is a dotted edge labelled so; an
import that does not run at import time is labelled `deferred`, as the text says it, and in
DOT is dashed (Mermaid draws it dotted, as it has no dashed edge). The lines of one import
that run and those that do not are two edges; where two chains share an edge, it shows the
lines of both."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ..report import Hop

PARENT = "parent runs first"

# An edge: its tail, its head and how it is drawn (DOT's style): `solid` where importing the
# tail runs the head, `dashed` for a deferred import, `dotted` for a parent package.
Edge = tuple[str, str, str]


def _edges(hops: Iterable[Hop]) -> dict[Edge, dict[str, bool]]:
    """The edges that draw the hops, in the order first drawn, each with its lines as its label
    shows them and whether every hop that holds the line runs it only where a test holds."""
    edges: dict[Edge, dict[str, bool]] = {}
    for hop in hops:
        importer, imported = hop["importer"], hop["imported"]
        count = len(hop["line_numbers"])
        if not count:
            edges.setdefault((importer, imported, "dotted"), {})
            continue
        for line, runs, calls, tests in zip(
            hop["line_numbers"],
            hop.get("eager", [True] * count),
            hop.get("calls", [[]] * count),
            hop.get("conditions", [[]] * count),
            strict=True,
        ):
            if not runs:
                edge, shown = (importer, imported, "dashed"), f"l.{line}"
            elif calls:
                # The call at import time comes first: the module that makes it runs the line.
                caller, at = calls[0]["module"], calls[0]["line"]
                of = "" if caller == importer else f" of {importer}"
                edge, shown = (caller, imported, "solid"), f"l.{line}{of}, called at l.{at}"
            else:
                edge, shown = (importer, imported, "solid"), f"l.{line}"
            lines = edges.setdefault(edge, {})
            lines[shown] = lines.get(shown, True) and bool(tests)
    return edges


def _label(style: str, lines: dict[str, bool]) -> str:
    if style == "dotted":
        return PARENT
    shown = ", ".join(lines)
    if style == "dashed":
        return f"{shown}, deferred"
    return f"{shown}, conditional" if all(lines.values()) else shown


def dot(title: str, hops: Iterable[Hop]) -> str:
    """Return a DOT digraph of the hops."""

    def quoted(text: str) -> str:
        # A DOT string: double quotes, backslash escapes; DOT reads UTF-8, which Graphviz
        # shows as written (it has no \u escapes).
        return json.dumps(text, ensure_ascii=False)

    lines = [
        f"digraph {quoted(title)} {{",
        "  rankdir=LR;",
        '  node [shape=box, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for (tail, head, style), shown in _edges(hops).items():
        lines.append(
            f"  {quoted(tail)} -> {quoted(head)} "
            f"[label={quoted(_label(style, shown))}, style={style}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def mermaid(title: str, hops: Iterable[Hop]) -> str:
    """Return a Mermaid flowchart of the hops, for a fenced ```mermaid block."""
    ids: dict[str, str] = {}

    def node(module: str) -> str:
        if module not in ids:
            ids[module] = f"m{len(ids)}"
        return ids[module]

    edges = []
    for (tail, head, style), shown in _edges(hops).items():
        arrow = "-->" if style == "solid" else "-.->"
        label = _label(style, shown).replace('"', "'")
        edges.append(f'  {node(tail)} {arrow}|"{label}"| {node(head)}')
    nodes = [f'  {ids[module]}["{module}"]' for module in ids]
    return "\n".join([f"---\ntitle: {title}\n---", "graph LR", *nodes, *edges]) + "\n"
