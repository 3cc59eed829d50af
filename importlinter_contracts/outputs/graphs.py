"""Chains of imports as pictures: Graphviz DOT, and Mermaid (which GitHub renders in
Markdown). Each hop is an edge labelled with its lines (and `conditional` where it runs only
where a test holds that the tool cannot decide); a parent package (which Python runs before its
submodule) is a dotted edge labelled so; an import that does not run at import time is labelled
`deferred`, as the text says it, and in DOT is dashed (Mermaid draws it dotted, as it has no
dashed edge). Where two chains share an edge, it is drawn eager if either's hop is."""

from __future__ import annotations

import json
from collections.abc import Iterable

from .._importlinter import format_line_numbers
from ..report import Hop

PARENT = "parent runs first"


def _label(hop: Hop) -> str:
    if not hop["line_numbers"]:
        return PARENT
    lines = format_line_numbers(hop["line_numbers"])
    if _deferred(hop):
        return f"{lines}, deferred"
    return f"{lines}, conditional" if "conditions" in hop else lines


def _deferred(hop: Hop) -> bool:
    return bool(hop["line_numbers"]) and not any(hop.get("eager", [True]))


def _edges(hops: Iterable[Hop]) -> list[Hop]:
    seen: dict[tuple[str, str], Hop] = {}
    for hop in hops:
        key = (hop["importer"], hop["imported"])
        if key not in seen or (_deferred(seen[key]) and not _deferred(hop)):
            seen[key] = hop
    return list(seen.values())


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
    for hop in _edges(hops):
        style = "dotted" if not hop["line_numbers"] else "dashed" if _deferred(hop) else "solid"
        lines.append(
            f"  {quoted(hop['importer'])} -> {quoted(hop['imported'])} "
            f"[label={quoted(_label(hop))}, style={style}];"
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
    for hop in _edges(hops):
        arrow = "-.->" if not hop["line_numbers"] or _deferred(hop) else "-->"
        label = _label(hop).replace('"', "'")
        edges.append(f'  {node(hop["importer"])} {arrow}|"{label}"| {node(hop["imported"])}')
    nodes = [f'  {ids[module]}["{module}"]' for module in ids]
    return "\n".join([f"---\ntitle: {title}\n---", "graph LR", *nodes, *edges]) + "\n"
