"""What importing a module runs: its eager imports, followed from module to module, and the
imports inside the functions it calls at import time."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from grimp import ImportGraph
from grimp.exceptions import ModuleNotPresent

from ..locations import display_path, location, locations
from ..modules import has_module, parents
from ..report import CallSite, Hop
from .calls import Binding, CallReading, Function
from .scope_cache import ScopeIndex
from .scopes import ImportScope

PARENT_PACKAGE = "its parent package runs first"
# grimp marks PEP 810 lazy imports itself.
_LAZY = ImportScope(eager=False, reason="lazy import")
# How many `from m import f` re-exports a call is followed through to the function's module.
_RE_EXPORTS = 10


@dataclass(frozen=True)
class Call:
    """A call that runs a function at import time: `caller` (a module, and the function of it
    that makes the call, None at import time itself) calls `function` of `module` on `line`."""

    caller: str
    caller_function: str | None
    line: int
    module: str
    function: str

    def as_data(self) -> CallSite:
        return {
            "module": self.caller,
            "line": self.line,
            "function": f"{self.module}:{self.function}",
            "location": location(self.caller, self.line),
        }


@dataclass(frozen=True)
class EagerHop:
    """One step by which importing a module runs another.

    Either eager import lines (with why each runs at import time), or a parent package,
    which Python runs before any of its submodules (no lines). A line inside a function runs
    because of `calls` (per line; empty for a line that runs by itself): the call at import
    time first, then each call by which one function runs the next. The hop's `origin` is the
    module whose import runs it: its importer, or the module that makes the calls.
    """

    importer: str
    imported: str
    line_numbers: tuple[int, ...] = ()
    why: tuple[str, ...] = ()
    calls: tuple[tuple[Call, ...], ...] = ()
    origin: str = ""

    @property
    def is_import(self) -> bool:
        return bool(self.line_numbers)

    @property
    def runs_from(self) -> str:
        """The module whose import runs this hop."""
        return self.origin or self.importer

    def as_data(self) -> Hop:
        hop: Hop = {
            "importer": self.importer,
            "imported": self.imported,
            "line_numbers": list(self.line_numbers),
            "why": list(self.why) if self.is_import else [PARENT_PACKAGE],
            "locations": locations(self.importer, list(self.line_numbers)),
        }
        if any(self.calls):
            hop["calls"] = [[call.as_data() for call in calls] for calls in self.calls]
        return hop


class EagerImports:
    """The eager imports of each module of a graph, worked out once per module: the imports
    that run when the module is imported, and those inside the functions it calls then."""

    def __init__(self, graph: ImportGraph, scopes: ScopeIndex) -> None:
        self.graph = graph
        self._scopes = scopes
        self._hops: dict[str, list[EagerHop]] = {}
        self._imports_by_line: dict[str, dict[int, list[str]]] = {}
        # Files whose calls `ast` cannot read here: their path and why.
        self.calls_unread: dict[str, str] = {}

    def of(self, module: str) -> list[EagerHop]:
        """The imports that run when `module` is imported: its own eager imports, sorted by
        imported module, then those that its calls at import time run."""
        hops = self._hops.get(module)
        if hops is None:
            hops = self._hops[module] = self._find(module)
        return hops

    def lines(self, importer: str, imported: str) -> list[tuple[int, ImportScope]]:
        """Each line on which `importer` imports `imported`, with whether it runs at import
        time and why, in line order (as the line reads, without the calls that may run it)."""
        found = {}
        for detail in self.graph.get_import_details(importer=importer, imported=imported):
            line = detail["line_number"]
            found[line] = _LAZY if detail.get("is_lazy") else self._scopes.scope(importer, line)
        return sorted(found.items())

    def _find(self, module: str) -> list[EagerHop]:
        lines: dict[tuple[str, str], list[tuple[int, str, tuple[Call, ...]]]] = {}
        for imported in sorted(self.graph.find_modules_directly_imported_by(module)):
            for line, scope in self.lines(module, imported):
                if scope.eager:
                    lines.setdefault((module, imported), []).append((line, scope.reason, ()))
        for importer, line, why, calls in self._called_imports(module):
            for imported in self._imported_on(importer, line):
                lines.setdefault((importer, imported), []).append((line, why, calls))
        hops = []
        for (importer, imported), found in lines.items():
            found.sort(key=lambda item: item[0])
            hops.append(
                EagerHop(
                    importer=importer,
                    imported=imported,
                    line_numbers=tuple(line for line, _, _ in found),
                    why=tuple(why for _, why, _ in found),
                    calls=tuple(calls for _, _, calls in found),
                    origin=module,
                )
            )
        return hops

    def _called_imports(self, module: str) -> Iterator[tuple[str, int, str, tuple[Call, ...]]]:
        """The import statements that the functions `module` calls at import time run, in
        the order the calls are found (breadth first): each with its module, line, why it
        runs and the calls that run it."""
        reading = self._calls_of(module)
        if reading is None:
            return
        queue: deque[tuple[Call, ...]] = deque()
        ran: set[tuple[str, str]] = set()

        def call(
            caller: str,
            function: str | None,
            calls: tuple[Call, ...],
            line: int,
            target: str,
            local: tuple[Binding, ...],
        ) -> None:
            for callee, name in self._resolve(caller, target, local):
                if (callee, name) not in ran:
                    ran.add((callee, name))
                    queue.append((*calls, Call(caller, function, line, callee, name)))

        for found in reading.calls:
            call(module, None, (), found.line, found.target, ())
        while queue:
            calls = queue.popleft()
            last = calls[-1]
            function = self._function(last.module, last.function)
            if function is None:
                continue
            for line in function.imports:
                yield last.module, line, _why(last.module, calls), calls
            for found in function.calls:
                call(last.module, last.function, calls, found.line, found.target, function.bindings)

    def _resolve(
        self, module: str, target: str, local: tuple[Binding, ...]
    ) -> Iterator[tuple[str, str]]:
        """The functions (module, name) that calling `target` in `module` may run: a
        function of the module itself, or one reached through the names its imports bind."""
        head, *rest = target.split(".")
        bound = [binding for binding in local if binding.name == head]
        reading = self._calls_of(module)
        if not bound and reading is not None:
            if not rest and head in reading.functions:
                yield module, head
                return
            bound = [binding for binding in reading.bindings if binding.name == head]
        for binding in bound:
            found = self._bound(module, binding)
            if found is not None:
                yield from self._attribute(*found, rest, _RE_EXPORTS)

    def _bound(self, module: str, binding: Binding) -> tuple[str, str | None] | None:
        """What an import binds: a module of the graph (None), or an attribute of one."""
        base = binding.module
        if binding.level:
            package = module if self._is_package(module) else module.rpartition(".")[0]
            for _ in range(binding.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        if not self._has_code(base):
            return None
        if binding.attribute is None:
            return base, None
        submodule = f"{base}.{binding.attribute}"
        return (submodule, None) if self._has_code(submodule) else (base, binding.attribute)

    def _attribute(
        self, module: str, attribute: str | None, rest: list[str], re_exports: int
    ) -> Iterator[tuple[str, str]]:
        """Follow `attribute` of `module`, then the dotted `rest`, to a function."""
        names = ([attribute] if attribute else []) + rest
        while names and self._has_code(f"{module}.{names[0]}"):
            module = f"{module}.{names.pop(0)}"
        if len(names) != 1:
            return  # a module itself, or an attribute of an attribute (a method, say)
        name = names[0]
        reading = self._calls_of(module)
        if reading is None:
            return
        if name in reading.functions:
            yield module, name
        elif re_exports:
            for binding in reading.bindings:
                if binding.name == name:
                    found = self._bound(module, binding)
                    if found is not None:
                        yield from self._attribute(*found, [], re_exports - 1)

    def _has_code(self, module: str) -> bool:
        """Whether `module` is a module of the graph whose file is read: not an external
        package (squashed), whose functions are not followed."""
        try:
            return not self.graph.is_module_squashed(module)
        except ModuleNotPresent:
            return False

    def _function(self, module: str, name: str) -> Function | None:
        reading = self._calls_of(module)
        return None if reading is None else reading.functions.get(name)

    def _calls_of(self, module: str) -> CallReading | None:
        reading = self._scopes.reading(module)
        if reading.calls is None:
            self.calls_unread.setdefault(
                display_path(self._scopes.path(module)), reading.calls_unread
            )
        return reading.calls

    def _is_package(self, module: str) -> bool:
        return self._scopes.path(module).name == "__init__.py"

    def _imported_on(self, module: str, line: int) -> list[str]:
        """The modules an import statement of `module` on `line` imports, as grimp resolved
        them."""
        by_line = self._imports_by_line.get(module)
        if by_line is None:
            by_line = self._imports_by_line[module] = {}
            for imported in sorted(self.graph.find_modules_directly_imported_by(module)):
                for detail in self.graph.get_import_details(importer=module, imported=imported):
                    if not detail.get("is_lazy"):
                        by_line.setdefault(detail["line_number"], []).append(imported)
        return by_line.get(line, [])


def calls_unread_warnings(eager_imports: EagerImports) -> list[str]:
    """A warning for each file read whose calls `ast` cannot read here."""
    return [
        f"{path}: calls at import time are not followed in this file, which ast cannot read "
        f"here ({reason}): imports that such calls would run are not seen."
        for path, reason in sorted(eager_imports.calls_unread.items())
    ]


def _why(module: str, calls: tuple[Call, ...]) -> str:
    """Why an import inside a function runs at import time: `inside def f, called by def g at
    l.30, called at import time at l.12 of pkg.a` (a call's module named where it is not
    the importer's)."""
    parts = [f"inside def {calls[-1].function}"]
    for call in reversed(calls):
        of = "" if call.caller == module else f" of {call.caller}"
        by = f"by def {call.caller_function}" if call.caller_function else "at import time"
        parts.append(f"called {by} at l.{call.line}{of}")
    return ", ".join(parts)


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
    module also offers a hop to its parent package. A hop that a call runs in another
    module's code is offered once that module has been entered (its code runs only then).
    """
    reached: dict[str, EagerHop | None] = {source: None}
    queue = deque([source])
    waiting: dict[str, list[EagerHop]] = {}

    def offer(hop: EagerHop) -> None:
        if hop.importer not in reached:
            waiting.setdefault(hop.importer, []).append(hop)
        elif hop.imported not in reached and enter(hop):
            reached[hop.imported] = hop
            queue.append(hop.imported)
            for later in waiting.pop(hop.imported, []):
                offer(later)

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
        hop = reached[hop.runs_from]
    return chain[::-1]
