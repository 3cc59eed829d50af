"""Finding modules in the graph at a cost that does not grow with the graph, and in packages.

`graph.modules` copies every module name into a new set on each call, and grimp's
`find_matching_modules` scans them all, even for a plain name: on a 50,000-module tree that
is milliseconds per question.
"""

from __future__ import annotations

from grimp import ImportGraph
from grimp.exceptions import ModuleNotPresent
from importlinter.domain.imports import ModuleExpression


def has_module(graph: ImportGraph, module: str) -> bool:
    try:
        graph.is_module_squashed(module)  # a lookup of one module, which raises if it is absent
    except ModuleNotPresent:
        return False
    return True


def matching_modules(graph: ImportGraph, expression: ModuleExpression) -> set[str]:
    """The modules an import-linter module expression (wildcards allowed) names."""
    if expression.has_wildcard_expression():
        return set(graph.find_matching_modules(expression.expression))
    return {expression.expression} if has_module(graph, expression.expression) else set()


def within(module: str, packages: set[str]) -> bool:
    """Whether `module` is one of the packages or inside one of them."""
    return module in packages or any(module.startswith(package + ".") for package in packages)
