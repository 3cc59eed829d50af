"""Modules and packages: the one membership test, and lookups whose cost does not grow with
the graph.

`graph.modules` copies every module name into a new set on each call, and grimp's
`find_matching_modules` scans them all, even for a plain name: on a 50,000-module tree that
is milliseconds per question.
"""

from __future__ import annotations

import difflib
import importlib.machinery
import importlib.util
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import grimp
from grimp import ImportGraph
from grimp.exceptions import ModuleNotPresent
from importlinter.domain.imports import ModuleExpression


def is_within(module: str, package: str) -> bool:
    """Return whether `module` is `package` itself or one of its descendants."""
    return module == package or module.startswith(package + ".")


def within(module: str, packages: Iterable[str]) -> bool:
    """Return whether `module` is one of the packages or inside one of them."""
    if isinstance(packages, set | frozenset):
        # Look the module and its parents up: as many lookups as the module has parts.
        while True:
            if module in packages:
                return True
            end = module.rfind(".")
            if end == -1:
                return False
            module = module[:end]
    return any(is_within(module, package) for package in packages)


def parents(module: str) -> Iterator[str]:
    """Yield the packages Python runs before `module`, innermost first."""
    while "." in module:
        module = module.rpartition(".")[0]
        yield module


def has_module(graph: ImportGraph, module: str) -> bool:
    """Return whether the graph holds `module`."""
    try:
        graph.is_module_squashed(module)  # a lookup of one module, which raises if it is absent
    except ModuleNotPresent:
        return False
    return True


def nearest_module(graph: ImportGraph, module: str) -> str | None:
    """Return the module of the graph whose name is nearest to `module`'s (a misspelling of
    it), or None when none is near: part by part, each part the nearest among the children of
    the packages found so far (so that the cost grows with the packages, not the graph).
    `module` may be an expression: a `*` or `**` stands for the children or descendants of
    those packages, and stays in the expression returned (`pkg.platforms.*.platform` for
    `pkg.platfroms.*.platform`)."""
    found: set[str] | None = None  # what the parts so far match; None before the first
    parts = []
    for part in module.split("."):
        if found is None:
            top = {name for name in graph.modules if "." not in name}
            children = set(graph.modules) if part == "**" else top
        else:
            children = set()
            for package in found:
                if graph.is_module_squashed(package):  # an external package: no children
                    continue
                if part == "**":
                    children |= graph.find_descendants(package)
                else:
                    children |= graph.find_children(package)
        if part in ("*", "**"):
            found = children
            parts.append(part)
            continue
        names = {child.rpartition(".")[2] for child in children}
        if part not in names:
            near = difflib.get_close_matches(part, sorted(names), n=1)
            if not near:
                return None
            part = near[0]
        parts.append(part)
        found = {child for child in children if child.rpartition(".")[2] == part}
    nearest = ".".join(parts)
    return None if nearest == module or not found else nearest


def matching_modules(graph: ImportGraph, expression: ModuleExpression) -> set[str]:
    """Return the modules an import-linter module expression (wildcards allowed) names."""
    if expression.has_wildcard_expression():
        return set(graph.find_matching_modules(expression.expression))
    return {expression.expression} if has_module(graph, expression.expression) else set()


def names_matching(expressions: Iterable[str], names: Iterable[str]) -> dict[str, set[str]]:
    """Return, for each module expression, the names (not in any graph: a run's loaded modules, say)
    that it matches: itself, or with `*` and `**` wildcards as import-linter matches them."""
    known = set(names)
    graph = None
    matched = {}
    for expression in expressions:
        if "*" not in expression:
            matched[expression] = {expression} & known
            continue
        if graph is None:  # grimp matches wildcards against a graph: one of just these names
            graph = grimp.ImportGraph()
            for name in known:
                graph.add_module(name)
        matched[expression] = set(graph.find_matching_modules(expression))
    return matched


def included_external_packages(session_options: Mapping[str, Any]) -> bool:
    """Return whether the session's graph holds the external packages its modules import
    (`include_external_packages`, read as import-linter reads it)."""
    return session_options.get("include_external_packages") in ("True", "true", True)


def is_external(graph: ImportGraph, expression: str) -> bool:
    """Return whether a module expression names a module outside the root packages: its top-level
    package is not one of the graph's own (a package the graph holds as one squashed module,
    an external one, or none)."""
    top = expression.partition(".")[0]
    if "*" in top:
        return False
    return not has_module(graph, top) or graph.is_module_squashed(top)


def outside_the_graph(
    graph: ImportGraph, expression: str, include_external: bool, root_packages: Iterable[str]
) -> str | None:
    """Return why a module expression that matches nothing names what the graph cannot hold, when
    its top-level package is not one of the root packages; None when it is one.

    An external package is found as Python would find it, without importing it (a
    top-level name has no parent package to run).
    """
    if not is_external(graph, expression):
        return None
    top = expression.partition(".")[0]
    inside = f"'{expression}' is inside the external package '{top}'"
    if include_external:
        return f"{inside}, which the graph holds as one module: forbid '{top}'."
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    option = "include_external_packages = true in the importlinter section"
    if spec is None:
        named = f"'{expression}'" if expression == top else f"'{top}' (of '{expression}')"
        return (
            f"{named} is not one of the root packages ({', '.join(root_packages)}) and is not "
            f"installed here: if it is an external package, set {option}, so that the graph "
            "holds the imports of it, installed or not."
        )
    if expression == top:
        return (
            f"'{top}' is an external package ({_where(spec)}), which the graph holds only with "
            f"{option}: set it to check imports of it."
        )
    return (
        f"{inside} ({_where(spec)}), which the graph holds only with {option}, and then as "
        f"one module: set it, and forbid '{top}'."
    )


def _where(spec: importlib.machinery.ModuleSpec) -> str:
    if spec.origin in ("built-in", "frozen"):
        return "part of Python"
    if spec.origin is None:  # a namespace package
        return f"installed in {', '.join(spec.submodule_search_locations or [])}"
    return f"installed at {spec.origin}"
