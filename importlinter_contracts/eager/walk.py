"""What importing a module runs: its eager imports, followed from module to module, and the
imports inside the functions it calls at import time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, cast

from grimp import ImportGraph

from ..errors import UnreadableSourceError
from ..locations import location, locations
from ..modules import parents
from ..report import Condition, Hop
from .conditions import Conditions, LocatedCondition, located, shown
from .module_files import EagerLines
from .outcomes import Answers
from .questions import FileAnswers, ModuleQuestions, RecordedAnswers
from .resolver import Call, CallResolver
from .scope_cache import ScopeIndex
from .scopes import ImportScope
from .target import target_python

PARENT_PACKAGE = "its parent package runs first"


class EagerHop(NamedTuple):
    """One step by which importing a module runs another.

    Either import lines (with why each runs at import time or not), or a parent package,
    which Python runs before any of its submodules (no lines). A line inside a function runs
    because of `calls` (per line; empty for a line that runs by itself): the call at import
    time first, then each call by which one function runs the next. The hop's `origin` is the
    module whose import runs it: its importer, or the module that makes the calls.

    Every line of a walk's hop runs at import time; the REPL also holds imports of the graph
    whose lines need not (`at_import_time`).
    """

    importer: str
    imported: str
    line_numbers: tuple[int, ...] = ()
    why: tuple[str, ...] = ()
    calls: tuple[tuple[Call, ...], ...] = ()
    origin: str = ""
    # Per line, the undecided tests it runs under, each where it stands (none: empty).
    conditions: tuple[tuple[LocatedCondition, ...], ...] = ()
    # Per line, whether it runs at import time (every line does: empty, as on a walk's hops).
    at_import_time: tuple[bool, ...] = ()

    @property
    def is_import(self) -> bool:
        return bool(self.line_numbers)

    @property
    def eager(self) -> bool:
        """Return whether importing the importer runs this hop: a parent package, or a line
        that runs at import time."""
        return not self.at_import_time or any(self.at_import_time)

    @property
    def conditional(self) -> bool:
        """Return whether the hop runs only where a test the tool cannot decide holds: every
        line of it runs under one."""
        return bool(self.conditions) and all(self.conditions)

    @property
    def runs_from(self) -> str:
        """Return the module whose import runs this hop."""
        return self.origin or self.importer

    def as_data(self, *, eager: bool = False) -> Hop:
        """Return the hop as reports hold it, its keys in `report.Hop`'s order; with `eager`,
        saying of each line whether it runs at import time, as `closure`, `why` and the REPL
        say of each line they show."""
        hop: Hop = {
            "importer": self.importer,
            "imported": self.imported,
            "line_numbers": list(self.line_numbers),
            "why": list(self.why) if self.is_import else [PARENT_PACKAGE],
            "locations": locations(self.importer, list(self.line_numbers)),
        }
        if eager and self.is_import:
            hop["eager"] = list(self.at_import_time) or [True] * len(self.line_numbers)
        if any(self.calls):
            hop["calls"] = [[call.as_data() for call in calls] for calls in self.calls]
        if self.conditional:
            hop["conditions"] = [
                [condition_data(condition) for condition in tests] for tests in self.conditions
            ]
        return hop


def condition_data(condition: LocatedCondition) -> Condition:
    """Return a test a hop runs under, as reports give it."""
    module, kind, test, line = condition
    return {
        "module": module,
        "line": line,
        "kind": kind,
        "test": test,
        "shown": shown((kind, test, line)),
        "location": location(module, line),
    }


# What a walk's `decide` says of a hop: enter its target (True), do not (False), or stop
# there and say so (anything else: each contract has its own).
Decision = TypeVar("Decision")
Decide = Callable[[EagerHop], Decision]


def unconditionally(decide: Decide[Decision]) -> Decide[Decision | bool]:
    """Return `decide` for a walk that takes no conditional hop (`EagerHop.conditional`): what
    such a walk reaches, every machine runs. (Keep the one it returns for every such walk:
    walks share what a `decide` said.)"""

    def decided(hop: EagerHop) -> Decision | bool:
        return False if hop.conditional else decide(hop)

    return decided


# The calls of each line of a hop whose lines run by themselves, by how many lines it has.
_NO_CALLS = [((),) * count for count in range(64)]


def _no_calls(count: int) -> tuple[tuple[Call, ...], ...]:
    return _NO_CALLS[count] if count < len(_NO_CALLS) else ((),) * count


# One line of a hop: its number, why it runs, the calls that run it and the tests it runs under.
_Line = tuple[int, str, tuple[Call, ...], tuple[LocatedCondition, ...]]


def located_per_line(
    module: str, tests: tuple[Conditions, ...]
) -> tuple[tuple[LocatedCondition, ...], ...]:
    """Return the `conditions` field of a hop of `module`'s own lines, whose tests are
    `tests`."""
    if not any(tests):
        return ()
    return tuple(located(module, line) for line in tests)


class Offer:
    """A hop a walk offers from a module: the module it imports (`target`); the hop, or,
    for one made only when first taken (None until then), the module's eager lines of that
    import (`eager`: the module it imports, the lines, why each runs); the hop's importer
    where that is another module (whose code runs only once it has been entered); and what
    the walk's `decide` said of it once asked (None until then)."""

    __slots__ = ("decision", "eager", "hop", "importer", "target")

    def __init__(
        self,
        target: str,
        hop: EagerHop | None,
        importer: str | None = None,
        eager: tuple[str, tuple[int, ...], tuple[str, ...], tuple[Conditions, ...]] | None = None,
    ) -> None:
        self.target = target
        self.hop = hop
        self.importer = importer
        self.eager = eager
        # (Of the one `decide` whose walks share the offer: `EagerImports.adjacency`.)
        self.decision: object = None

    def taken_from(self, module: str) -> EagerHop:
        """Return the hop, made now where it was not yet (from `module`'s eager lines)."""
        hop = self.hop
        if hop is None:
            assert self.eager is not None
            _, lines, reasons, tests = self.eager
            hop = self.hop = EagerHop(
                module,
                self.target,
                lines,
                reasons,
                _no_calls(len(lines)),
                module,
                located_per_line(module, tests),
            )
        return hop


class EagerImports:
    """The eager imports of each module of a graph, worked out once per module: the imports
    that run when the module is imported, and those inside the functions it calls then.

    What it knows of a module it asks (`questions.ModuleQuestions`) of the graph and the
    modules' files (`scopes`); with `recorded`, each question is kept with its answer
    (`answers`)."""

    def __init__(self, graph: ImportGraph, scopes: ScopeIndex, *, recorded: bool = False) -> None:
        self.graph = graph
        live = FileAnswers(graph, scopes)
        self._recorded = RecordedAnswers(live) if recorded else None
        self._ask: ModuleQuestions = self._recorded or live
        self._resolver = CallResolver(self._ask)
        self._hops: dict[str, list[EagerHop]] = {}
        self._adjacent: dict[tuple[bool, Decide[Any]], dict[str, list[Offer]]] = {}
        self._parents: dict[str, str | None] = {}
        # What `adjacent` asked of a module whose hops are not made yet: whether it may
        # call, and its eager lines (`_find` asks no file twice).
        self._asked: dict[str, tuple[bool, EagerLines | None]] = {}
        # (What the walks could not read, from the resolver: files whose calls `ast` cannot
        # read here, by path with why; dynamic imports whose module name is computed, by
        # path with their lines and callees.)
        self.calls_unread = self._resolver.calls_unread
        self.dynamic_unread = self._resolver.dynamic_unread

    @property
    def answers(self) -> Answers:
        """Return what each module's file answered, in the order asked (of a `recorded` one): what
        the walks found holds while every file they read answers the same
        (`questions.answers_again`)."""
        return {} if self._recorded is None else self._recorded.answers

    def of(self, module: str) -> list[EagerHop]:
        """Return the imports that run when `module` is imported: its own eager imports, sorted by
        imported module, then those that its calls at import time run."""
        hops = self._hops.get(module)
        if hops is None:
            hops = self._hops[module] = self._find(module, *self._asked.pop(module, (None, None)))
        return hops

    def adjacency(self, include_parents: bool, decide: Decide[Any]) -> dict[str, list[Offer]]:
        """Return what walks that decide with `decide` offer from each module they have entered so
        far (`adjacent`), kept with the decisions: several walks, from different modules,
        share them."""
        return self._adjacent.setdefault((include_parents, decide), {})

    def adjacent(self, module: str, include_parents: bool, decide: Decide[Any]) -> list[Offer]:
        """Return what a walk that decides with `decide` offers once it enters `module`: with
        `include_parents`, a hop to its nearest parent package in the graph first, then the
        hops `of` it. (A hop of a line that runs by itself is made when a walk first takes
        it: most imports are of modules already reached.)"""
        adjacency = self.adjacency(include_parents, decide)
        found = adjacency.get(module)
        if found is not None:
            return found
        offers: list[Offer] = []
        if include_parents:
            parent = self._parents.get(module, module)
            if parent == module:
                parent = self._parents[module] = next(
                    (p for p in parents(module) if self._ask.has_module(p)), None
                )
            if parent is not None:
                offers.append(Offer(parent, EagerHop(module, parent)))
        own_lines = None  # (where importing the module runs no function)
        if self._hops.get(module) is None:
            if self._ask.may_call(module):
                self._asked[module] = (True, None)
            else:
                own_lines = self._ask.eager_lines(module)
                self._asked[module] = (False, own_lines)
                if self._resolver.getattr_calls(module, own_lines):
                    own_lines = None
        if own_lines is not None:
            # Only lines that run by themselves: each hop is made when first taken.
            offers.extend(Offer(eager[0], None, None, eager) for eager in own_lines)
        else:
            for hop in self.of(module):
                importer = hop.importer
                offers.append(Offer(hop.imported, hop, None if importer == module else importer))
        adjacency[module] = offers
        return offers

    def lines(self, importer: str, imported: str) -> list[tuple[int, ImportScope]]:
        """Return each line on which `importer` imports `imported`, with whether it runs at import
        time and why, in line order (as the line reads, without the calls that may run it)."""
        found = {}
        for detail in self.graph.get_import_details(importer=importer, imported=imported):
            line = detail["line_number"]
            if detail.get("is_lazy") and not target_python().lazy:
                # (grimp marks PEP 810 lazy imports itself.)
                raise UnreadableSourceError(
                    f"{self._ask.path(importer)}:{line}: `lazy import` is a syntax error before "
                    f"Python 3.15, and python_version is {target_python().shown}."
                )
            found[line] = self._ask.scope(importer, line)
        return sorted(found.items())

    def _find(
        self, module: str, may_call: bool | None = None, eager: EagerLines | None = None
    ) -> list[EagerHop]:
        """The hops `of` a module, given what `adjacent` asked of it already (`_asked`)."""
        hops = []
        new = EagerHop._make
        if eager is None:
            eager = self._ask.eager_lines(module)
        for imported, line_numbers, reasons, tests in eager:
            none = _no_calls(len(line_numbers))
            tested = located_per_line(module, tests)
            hops.append(new((module, imported, line_numbers, reasons, none, module, tested, ())))
        if may_call is None:
            may_call = self._ask.may_call(module)
        getattr_calls = self._resolver.getattr_calls(module, eager)
        if not (may_call or getattr_calls):
            return hops
        called: dict[tuple[str, str], list[_Line]] = {}
        for importer, line, why, calls, modules, under in self._resolver.called_imports(
            module, may_call, getattr_calls
        ):
            if modules is None:
                modules = self._ask.imported_on(importer, line)
            for imported in modules:
                found = called.setdefault((importer, imported), [])
                # An import that several chains of calls run (a method run for two classes,
                # a function called twice) is shown once: by the first found, the shortest,
                # unless a later one runs it under fewer tests (a subset of them).
                for index, other in enumerate(found):
                    if other[0] == line:
                        if set(under) < set(other[3]):
                            found[index] = (line, why, calls, under)
                        break
                else:
                    found.append((line, why, calls, under))
        if not called:
            return hops
        # The lines that calls run join those of the same import, in line order.
        lines: dict[tuple[str, str], list[_Line]] = {
            (hop.importer, hop.imported): list(
                zip(
                    hop.line_numbers,
                    hop.why,
                    hop.calls,
                    hop.conditions or ((),) * len(hop.line_numbers),
                    strict=True,
                )
            )
            for hop in hops
        }
        for key, found in called.items():
            lines.setdefault(key, []).extend(found)
        hops = []
        for (importer, imported), found in lines.items():
            found.sort(key=lambda item: item[0])
            conditions = tuple(tests for _, _, _, tests in found)
            hops.append(
                EagerHop(
                    importer=importer,
                    imported=imported,
                    line_numbers=tuple(line for line, _, _, _ in found),
                    why=tuple(why for _, why, _, _ in found),
                    calls=tuple(calls for _, _, calls, _ in found),
                    origin=module,
                    conditions=conditions if any(conditions) else (),
                )
            )
        return hops

    def reexports(
        self, module: str, line: int, reaches: Callable[[str], bool]
    ) -> list[tuple[str, tuple[tuple[str, int, str], ...]]]:
        """Return where the names that the `from` import of `module` on `line` binds come
        from (`CallResolver.reexports`)."""
        return self._resolver.reexports(module, line, reaches)

    def packages_with_code(self) -> set[str]:
        """Return the top-level packages whose functions the walks follow."""
        return {
            top for top in self.graph.modules if "." not in top and self._resolver.has_code(top)
        }


def calls_unread_warnings(eager_imports: EagerImports) -> list[str]:
    """Return a warning for each file read whose calls `ast` cannot read here."""
    return [
        f"{path}: calls at import time are not followed in this file, which ast cannot read "
        f"here ({reason}): imports that such calls would run are not seen."
        for path, reason in sorted(eager_imports.calls_unread.items())
    ]


def dynamic_import_warnings(eager_imports: EagerImports) -> list[str]:
    """Return a warning for each dynamic import run at import time whose module name the text does
    not spell out."""
    return [
        f"{path}:{line}: {callee} runs at import time with a module name computed at run "
        "time: the modules it imports are not seen."
        for path, found in sorted(eager_imports.dynamic_unread.items())
        for line, callee in sorted(found)
    ]


def walk(
    source: str,
    eager_imports: EagerImports,
    decide: Decide[Decision],
    *,
    include_parents: bool,
) -> tuple[dict[str, EagerHop | None], list[tuple[EagerHop, Decision]]]:
    """Return everything importing `source` runs, breadth first: each module with the hop
    that first reached it (None for the source); and each hop where the walk stopped and
    said so, with what `decide` said.

    `decide(hop)` says, for a hop out of an entered module whose target is not reached yet,
    whether to enter its target (True: and so follow the target's own hops), not to (False),
    or to stop there and say so (anything else, returned with the hop). It is asked once per
    hop: later walks with the same `decide` (from other modules) reuse its answer. With
    `include_parents`, entering a module also offers a hop to its parent package. A hop that
    a call runs in another module's code is offered once that module has been entered (its
    code runs only then).
    """
    reached: dict[str, EagerHop | None] = {source: None}
    queue = [source]
    waiting: dict[str, list[Offer]] = {}
    stops: list[tuple[EagerHop, Decision]] = []

    adjacency = eager_imports.adjacency(include_parents, decide)
    # The queue grows while it is read: a breadth-first walk. (The common cases are written
    # out: this loop runs for each module reached, from each source.)
    for module in queue:
        offers = adjacency.get(module)
        if offers is None:
            offers = eager_imports.adjacent(module, include_parents, decide)
        for offer in offers:
            target = offer.target
            if target in reached:
                continue
            importer = offer.importer
            if importer is not None and importer not in reached:
                waiting.setdefault(importer, []).append(offer)
                continue
            hop = offer.hop
            if hop is None:
                hop = offer.taken_from(module)
            if offer.decision is True and not waiting:
                reached[target] = hop
                queue.append(target)
            else:
                _offer(offer, hop, decide, reached, queue, waiting, stops)
    return reached, stops


def _offer(
    offer: Offer,
    hop: EagerHop,
    decide: Decide[Decision],
    reached: dict[str, EagerHop | None],
    queue: list[str],
    waiting: dict[str, list[Offer]],
    stops: list[tuple[EagerHop, Decision]],
) -> None:
    """Ask `decide` about a hop the walk may take (once), and take it or record the stop;
    entering a module also offers the hops its code runs that waited for it."""
    # (A function of its own, not one nested in `walk`: a nested function that calls itself
    # holds itself through its closure, a reference cycle that keeps everything the walk
    # reached alive until the cyclic garbage collector, which the eager-import contract
    # pauses, runs. Collecting them then took 0.8 s on the benchmark's 20,000-module tree.)
    decision = offer.decision
    if decision is None:
        decision = offer.decision = decide(hop)
    if decision is True:
        imported = offer.target
        reached[imported] = hop
        queue.append(imported)
        for later in waiting.pop(imported, ()):
            if later.target not in reached:
                assert later.hop is not None  # (a hop made by a call: made with its offer)
                _offer(later, later.hop, decide, reached, queue, waiting, stops)
    elif decision is not False:
        # (What this walk's `decide` said: the offers of one `decide` hold its decisions.)
        stops.append((hop, cast(Decision, decision)))


def chain_to(reached: dict[str, EagerHop | None], module: str) -> list[EagerHop]:
    """Return the hops from the walk's source to `module`."""
    chain = []
    hop = reached[module]
    while hop is not None:
        chain.append(hop)
        hop = reached[hop.runs_from]
    return chain[::-1]
