"""What importing a module runs: its eager imports, followed from module to module."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from grimp import ImportGraph

from ..locations import locations
from ..modules import has_module, parents
from ..report import Hop
from .scope_cache import ScopeIndex
from .scopes import ImportScope

PARENT_PACKAGE = "its parent package runs first"
# grimp marks PEP 810 lazy imports itself.
_LAZY = ImportScope(eager=False, reason="lazy import")


@dataclass(frozen=True)
class EagerHop:
    """One step by which importing a module runs another.

    Either an eager import (with its lines and why each runs at import time), or a parent
    package, which Python runs before any of its submodules (no lines).
    """

    importer: str
    imported: str
    line_numbers: tuple[int, ...] = ()
    why: tuple[str, ...] = ()

    @property
    def is_import(self) -> bool:
        return bool(self.line_numbers)

    def as_data(self) -> Hop:
        return {
            "importer": self.importer,
            "imported": self.imported,
            "line_numbers": list(self.line_numbers),
            "why": list(self.why) if self.is_import else [PARENT_PACKAGE],
            "locations": locations(self.importer, list(self.line_numbers)),
        }


class EagerImports:
    """The eager imports of each module of a graph, worked out once per module."""

    def __init__(self, graph: ImportGraph, scopes: ScopeIndex) -> None:
        self.graph = graph
        self._scopes = scopes
        self._hops: dict[str, list[EagerHop]] = {}

    def of(self, module: str) -> list[EagerHop]:
        """The imports of `module` that run when it is imported, sorted by imported module."""
        hops = self._hops.get(module)
        if hops is None:
            hops = self._hops[module] = list(self._find(module))
        return hops

    def lines(self, importer: str, imported: str) -> list[tuple[int, ImportScope]]:
        """Each line on which `importer` imports `imported`, with whether it runs at import
        time and why, in line order."""
        found = {}
        for detail in self.graph.get_import_details(importer=importer, imported=imported):
            line = detail["line_number"]
            found[line] = _LAZY if detail.get("is_lazy") else self._scopes.scope(importer, line)
        return sorted(found.items())

    def _find(self, module: str) -> Iterator[EagerHop]:
        for imported in sorted(self.graph.find_modules_directly_imported_by(module)):
            eager = [(line, scope) for line, scope in self.lines(module, imported) if scope.eager]
            if eager:
                yield EagerHop(
                    importer=module,
                    imported=imported,
                    line_numbers=tuple(line for line, _ in eager),
                    why=tuple(scope.reason for _, scope in eager),
                )


def walk(
    source: str,
    eager_imports: EagerImports,
    enter: Callable[[EagerHop], bool],
    *,
    include_parents: bool,
) -> dict[str, EagerHop | None]:
    """Everything importing `source` runs, breadth first: each module with the hop that first
    reached it (None for the source).

    `enter(hop)` sees every hop out of an entered module and says whether to enter its
    target (and so follow the target's own hops). With `include_parents`, entering a
    module also offers a hop to its parent package.
    """
    reached: dict[str, EagerHop | None] = {source: None}
    queue = deque([source])

    def offer(hop: EagerHop) -> None:
        if hop.imported not in reached and enter(hop):
            reached[hop.imported] = hop
            queue.append(hop.imported)

    while queue:
        module = queue.popleft()
        if include_parents:
            # The nearest parent in the graph; entering it offers its own parent in turn.
            parent = next((p for p in parents(module) if has_module(eager_imports.graph, p)), None)
            if parent is not None:
                offer(EagerHop(importer=module, imported=parent))
        for hop in eager_imports.of(module):
            offer(hop)
    return reached


def chain_to(reached: dict[str, EagerHop | None], module: str) -> list[EagerHop]:
    """The hops from the walk's source to `module`."""
    chain = []
    hop = reached[module]
    while hop is not None:
        chain.append(hop)
        hop = reached[hop.importer]
    return chain[::-1]
