"""What importing a module runs: its eager imports, followed from module to module, and the
imports inside the functions it calls at import time."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, TypeVar, cast

from grimp import ImportGraph

from ..errors import UnreadableSourceError
from ..locations import location, locations
from ..modules import parents
from ..report import CallSite, Hop
from .calls import (
    CLASS_CALL,
    GETATTR,
    RETURNED,
    STAR,
    SUPER_CALL,
    THROUGH,
    Binding,
    CalledName,
    DynamicImport,
    Function,
    dynamic_import,
    getattr_key,
    is_getattr_key,
    is_lazy_key,
    lazy_key,
    through_class,
)
from .lazy import reason_of_call
from .module_files import EagerLines
from .outcomes import Answers
from .questions import (
    FileAnswers,
    ImportTimeCalls,
    ModuleQuestions,
    RecordedAnswers,
)
from .scope_cache import ScopeIndex
from .scopes import ImportScope
from .target import target_python

PARENT_PACKAGE = "its parent package runs first"


class Call(NamedTuple):
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
            "function": f"{self.module}:{_shown(self.function)}",
            "location": location(self.caller, self.line),
        }


def _shown(function: str) -> str:
    """A function called, as a report names it: `f`, `C.f`, `f()` (what `f` returns, called),
    or `__getattr__('name')` (a module's, that a `from` import or a lookup of the name on the
    module calls)."""
    if is_getattr_key(function):
        return f"{GETATTR}({function.partition(':')[2]!r})"
    if is_lazy_key(function):
        return f"{function.partition(':')[2]} (lazily imported)"
    own, through = through_class(function)
    if through is not None:
        return f"{own} (through {through[0]}.{through[1]})"
    return function


def _defined(function: str) -> str:
    """A function called, as the reason of an import in it says it: `def f`, or `the function
    f returns`."""
    if function.partition(THROUGH)[0].endswith(RETURNED):
        return f"the function {function.partition(THROUGH)[0].removesuffix(RETURNED)} returns"
    return f"def {_shown(function)}"


class EagerHop(NamedTuple):
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


# What a walk's `decide` says of a hop: enter its target (True), do not (False), or stop
# there and say so (anything else: each contract has its own).
Decision = TypeVar("Decision")
Decide = Callable[[EagerHop], Decision]

# The calls of each line of a hop whose lines run by themselves, by how many lines it has.
_NO_CALLS = [((),) * count for count in range(64)]


def _no_calls(count: int) -> tuple[tuple[Call, ...], ...]:
    return _NO_CALLS[count] if count < len(_NO_CALLS) else ((),) * count


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
        eager: tuple[str, tuple[int, ...], tuple[str, ...]] | None = None,
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
            _, lines, reasons = self.eager
            hop = self.hop = EagerHop._make(
                (module, self.target, lines, reasons, _no_calls(len(lines)), module)
            )
        return hop


# A dotted name (of a function, a class, a re-export) in a module of the graph.
_Name = tuple[str, tuple[str, ...]]


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
        self._hops: dict[str, list[EagerHop]] = {}
        self._adjacent: dict[tuple[bool, Decide[Any]], dict[str, list[Offer]]] = {}
        self._parents: dict[str, str | None] = {}
        self._code: dict[str, bool] = {}
        self._packages: dict[str, bool] = {}
        self._calls: dict[str, ImportTimeCalls | None] = {}
        # Files whose calls `ast` cannot read here: their path and why.
        self.calls_unread: dict[str, str] = {}
        self._functions_of_name: dict[_Name, tuple[tuple[str, str], ...]] = {}
        self._getattr_calls_of: dict[str, list[tuple[int, str, str]]] = {}
        self._getattr_defined: dict[str, bool] = {}
        self._lazy_bound_of: dict[str, tuple[str, ...]] = {}
        # The dynamic imports (`importlib.import_module(name)`) run at import time whose
        # name is computed otherwise than the text spells out: by file, the lines and callee.
        self.dynamic_unread: dict[str, set[tuple[int, str]]] = {}
        self._classes_of_name: dict[_Name, tuple[tuple[str, str], ...]] = {}

    @property
    def answers(self) -> Answers:
        """What each module's file answered, in the order asked (of a `recorded` one): what
        the walks found holds while every file they read answers the same
        (`questions.answers_again`)."""
        return {} if self._recorded is None else self._recorded.answers

    def of(self, module: str) -> list[EagerHop]:
        """The imports that run when `module` is imported: its own eager imports, sorted by
        imported module, then those that its calls at import time run."""
        hops = self._hops.get(module)
        if hops is None:
            hops = self._hops[module] = self._find(module)
        return hops

    def adjacency(self, include_parents: bool, decide: Decide[Any]) -> dict[str, list[Offer]]:
        """What walks that decide with `decide` offer from each module they have entered so
        far (`adjacent`), kept with the decisions: several walks, from different modules,
        share them."""
        return self._adjacent.setdefault((include_parents, decide), {})

    def adjacent(self, module: str, include_parents: bool, decide: Decide[Any]) -> list[Offer]:
        """What a walk that decides with `decide` offers once it enters `module`: with
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
        if self._hops.get(module) is None and not self._may_call(module):
            own_lines = self._eager_lines(module)
            if self._getattr_calls(module, own_lines):
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
        """Each line on which `importer` imports `imported`, with whether it runs at import
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

    def _find(self, module: str) -> list[EagerHop]:
        hops = []
        new = EagerHop._make
        eager = self._eager_lines(module)
        for imported, line_numbers, reasons in eager:
            hops.append(
                new((module, imported, line_numbers, reasons, _no_calls(len(line_numbers)), module))
            )
        may_call = self._may_call(module)
        getattr_calls = self._getattr_calls(module, eager)
        if not (may_call or getattr_calls):
            return hops
        called: dict[tuple[str, str], list[tuple[int, str, tuple[Call, ...]]]] = {}
        for importer, line, why, calls, modules in self._called_imports(
            module, may_call, getattr_calls
        ):
            if modules is None:
                modules = self._imported_on(importer, line)
            for imported in modules:
                found = called.setdefault((importer, imported), [])
                # (A method run for two classes runs its imports once for each: the first
                # found, by the shortest chain of calls, says why.)
                if all(line != other for other, _, _ in found):
                    found.append((line, why, calls))
        if not called:
            return hops
        # The lines that calls run join those of the same import, in line order.
        lines = {
            (hop.importer, hop.imported): list(
                zip(hop.line_numbers, hop.why, hop.calls, strict=True)
            )
            for hop in hops
        }
        for key, found in called.items():
            lines.setdefault(key, []).extend(found)
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

    def _called_imports(
        self, module: str, may_call: bool, getattr_calls: list[tuple[int, str, str]]
    ) -> Iterator[tuple[str, int, str, tuple[Call, ...], tuple[str, ...] | None]]:
        """The import statements that the functions `module` calls at import time run (where
        it `may_call` one, and the module `__getattr__`s its `from` imports call), in the
        order the calls are found (breadth first): each with its module, line, why it runs
        and the calls that run it; and the dynamic imports (`importlib.import_module("m")`)
        that this code runs, each with the modules it imports (None for an import
        statement: grimp's)."""
        queue: deque[tuple[Call, ...]] = deque()
        ran: set[tuple[str, str]] = set()
        dynamic: list[tuple[str, int, str, tuple[Call, ...], tuple[str, ...]]] = []

        def call(
            caller: str,
            function: str | None,
            calls: tuple[Call, ...],
            line: int,
            callees: Iterable[tuple[str, str]],
        ) -> None:
            for callee, name in callees:
                if (callee, name) not in ran:
                    ran.add((callee, name))
                    queue.append((*calls, Call(caller, function, line, callee, name)))

        def run(
            caller: str,
            function: str | None,
            calls: tuple[Call, ...],
            made: tuple[CalledName, ...],
            bindings: tuple[Binding, ...],
            local: tuple[Binding, ...],
        ) -> None:
            """Follow what code of `caller` runs: its calls, and the module `__getattr__`
            that each of its `from` imports (`bindings`) may call."""
            for found in made:
                target = found.target
                imported = dynamic_import(target)
                if imported is not None:
                    modules = self._dynamically_imported(caller, found.line, imported)
                    if modules:
                        why = f"{imported.callee} at l.{found.line}"
                        if calls:
                            why += f", {_why(caller, calls)}"
                        dynamic.append((caller, found.line, why, calls, modules))
                    continue
                if target.startswith((CLASS_CALL, SUPER_CALL)):
                    callees = self._through_class(caller, function, target)
                else:
                    callees = self._resolve(caller, target, local)
                call(caller, function, calls, found.line, callees)
            for binding in bindings:
                call(caller, function, calls, binding.line, self._getattr_called(caller, binding))
                call(caller, function, calls, binding.line, self._lazy_loaded(caller, binding))

        lazy = target_python().lazy
        reading = self._calls_of(module) if may_call else None
        if reading is not None:
            run(module, None, (), reading.calls, (), ())
        for line, imported_from, key in getattr_calls:
            call(module, None, (), line, [(imported_from, key)])
        yield from dynamic
        while queue:
            dynamic.clear()
            calls = queue.popleft()
            last = calls[-1]
            function = self._function(last.module, last.function.partition(THROUGH)[0])
            if function is None:
                continue
            for line in function.imports:
                if is_lazy_key(last.function):
                    # (Looking the name up from another module loads it.)
                    of = f" of {last.caller}" if last.caller != last.module else ""
                    why = f"by the import at l.{last.line}{of}"
                    if len(calls) > 1:
                        why += ", " + _why(last.caller, calls[:-1])
                else:
                    why = _why(last.module, calls)
                if lazy:  # (a lazy import that the function's use of its name runs)
                    scope = self._ask.scope(last.module, line)
                    if not scope.eager:
                        why = reason_of_call(scope.reason, line, why) or why
                yield last.module, line, why, calls, None
            run(
                last.module,
                last.function,
                calls,
                function.calls,
                function.bindings,
                function.bindings,
            )
            yield from dynamic

    def _dynamically_imported(
        self, module: str, line: int, imported: DynamicImport
    ) -> tuple[str, ...]:
        """The module of the graph that a dynamic import in `module`'s code imports (the
        nearest one of the graph that its name is in, where it names one outside it); none
        where its name is computed otherwise, which a warning says."""
        name = imported.name
        if name is None or (name.startswith(".") and not imported.anchor):
            path = self._ask.path(module)
            self.dynamic_unread.setdefault(path, set()).add((line, imported.callee))
            return ()
        if imported.anchor:
            package = module
            if imported.anchor == "__package__" and not self._is_package(module):
                package = module.rpartition(".")[0]
            level = len(name) - len(name.lstrip("."))
            for _ in range(level - 1):
                package = package.rpartition(".")[0]
            rest = name.lstrip(".")
            name = f"{package}.{rest}" if rest else package
        while name and not self._ask.has_module(name):
            name = name.rpartition(".")[0]
        return (name,) if name else ()

    def _through_class(
        self, module: str, function: str | None, target: str
    ) -> Iterator[tuple[str, str]]:
        """The methods that `cls.f()` or `self.f()` (`<cls>.f`), or `super().f()`
        (`<super>.f`), in a method of `module` may run: `f` as the class the method was
        called through has it (where known; else as its own class and those of the module
        that derive from it have it), or as the bases of the method's class have it. Each is
        known with the class it runs for."""
        if function is None:
            return iter(())
        own, through = through_class(function)
        owner = own.removesuffix(RETURNED).rpartition(".")[0]
        if not owner:
            return iter(())
        attribute = target.partition(".")[2].split(".")
        found: dict[tuple[str, str], None] = {}
        if target.startswith(CLASS_CALL):
            starts = [through] if through else self._derived(module, owner)
            for start in starts:
                found.update(dict.fromkeys(self._methods(start, attribute, start)))
        else:
            reading = self._calls_of(module)
            bases = () if reading is None else reading.classes.get(owner, ())
            for base in bases:
                for start in self._classes_named((module, tuple(base.split(".")))):
                    found.update(dict.fromkeys(self._methods(start, attribute, through)))
        return iter(found)

    def _derived(self, module: str, owner: str) -> list[tuple[str, str]]:
        """A class of `module`, and those of its classes that derive from it (by name)."""
        reading = self._calls_of(module)
        found = [owner]
        if reading is not None:
            for name in found:
                found += [
                    other
                    for other, bases in reading.classes.items()
                    if name in bases and other not in found
                ]
        return [(module, name) for name in found]

    def _methods(
        self, start: tuple[str, str], attribute: list[str], through: tuple[str, str] | None
    ) -> Iterator[tuple[str, str]]:
        """The functions that `attribute` looked up on the class `start` may be (its own,
        a base's), each known with the class `through` which it runs for."""
        module, name = start
        for callee, key in self._functions_named((module, (*name.split("."), *attribute))):
            if through is not None and _owner_of(key) is not None:
                key = f"{key}{THROUGH}{through[0]}:{through[1]}"
            yield callee, key

    def _classes_named(self, start: _Name) -> tuple[tuple[str, str], ...]:
        """The classes (module, dotted name) that a name may be: one the module defines, or
        one that the names its imports bind, or it binds to classes, lead to."""
        found = self._classes_of_name.get(start)
        if found is not None:
            return found
        classes: dict[tuple[str, str], None] = {}
        pending, seen = [start], {start}
        while pending:
            module, names = pending.pop()
            reading = self._calls_of(module)
            if reading is None:
                continue
            dotted = ".".join(names)
            if dotted in reading.classes:
                classes[module, dotted] = None
            leads = [
                self._named(module, binding, names[0], rest)
                for binding, rest in _naming(reading.bindings, list(names))
            ]
            leads += [
                (module, (*alternative.split("."), *names[1:]))
                for alternative in reading.aliases.get(names[0], ())
            ]
            submodule = f"{module}.{names[0]}"
            if len(names) > 1 and self._has_code(submodule):
                # (Past a `__getattr__` that looking the submodule up calls: `_in_module`.)
                leads.append(self._in_module(submodule, list(names[1:])))
            for lead in leads:
                if lead is not None and lead not in seen:
                    seen.add(lead)
                    pending.append(lead)
        found = self._classes_of_name[start] = tuple(classes)
        return found

    def _resolve(
        self, module: str, target: str, local: tuple[Binding, ...]
    ) -> Iterator[tuple[str, str]]:
        """The functions (module, name) that calling `target` in `module` may run: those
        reached through the names that the calling function's own imports bind (`local`),
        a function of the module itself (`f`, or `C.f` of a class), and those reached
        through the names the module's imports bind. (A name both defined and imported may
        run either; and a function's local names are those of any function defined in it
        that it calls, too: each is followed.) `f()`: what the function `f` returns, called."""
        if target.endswith(RETURNED):
            called = self._resolve(module, target.removesuffix(RETURNED), local)
            # (A module `__getattr__` runs where the name is looked up; what it returns is
            # not known.)
            return iter(
                [
                    (callee, name if is_getattr_key(name) else name + RETURNED)
                    for callee, name in called
                ]
            )
        names = target.split(".")
        bound = list(_naming(local, names))
        reading = self._calls_of(module)
        found: dict[tuple[str, str], None] = {}
        if reading is not None:
            if self._defines(module, target):
                found[module, target] = None
            bound += _naming(reading.bindings, names)
        for binding, rest in bound:
            name = self._named(module, binding, names[0], rest)
            if name is not None:
                found.update(dict.fromkeys(self._functions_named(name)))
        if reading is not None:
            found.update(dict.fromkeys(self._through_names(module, tuple(names), reading)))
            # (A method known with the class it runs for is not followed again without it.)
            through = {
                (callee, key.partition(THROUGH)[0]) for callee, key in found if THROUGH in key
            }
            return iter([function for function in found if function not in through])
        return iter(found)

    def _through_names(
        self, module: str, names: tuple[str, ...], reading: ImportTimeCalls
    ) -> Iterator[tuple[str, str]]:
        """What calling the dotted `names` in `module` may run through its classes and the
        names it binds to functions or classes (`_visit_name`): each method of a class it
        calls through (`D.f()`, `f` its own or a base's), known with the class it runs for."""
        if names[0] in reading.aliases or ".".join(names[:-1]) in reading.classes:
            yield from self._functions_named((module, names))
        if len(names) > 1:
            for start in self._classes_named((module, names[:-1])):
                yield from self._methods(start, [names[-1]], start)

    def _named(self, module: str, binding: Binding, name: str, rest: list[str]) -> _Name | None:
        """What a binding in `module` of the first of the dotted names followed by `rest`
        names: a module of the graph and the dotted names of a function (or of a class, a
        module, a re-export) in it; None where that is a module itself, or outside the
        graph's code."""
        found = self._bound(module, binding, name)
        if found is None:
            return None
        base, attribute = found
        return self._in_module(base, ([attribute] if attribute else []) + rest)

    def reexports(
        self, module: str, line: int, reaches: Callable[[str], bool]
    ) -> list[tuple[str, tuple[tuple[str, int, str], ...]]]:
        """Where the names that the `from` import of `module` on `line` binds come from,
        followed through re-exports as calls are (`_named`, of any length), up to a module
        that `reaches` says is far enough: each such module, with the re-exports on the way
        (module, line, name). A name another module's file binds explicitly is followed
        there only (a star import binds any name, so it is followed where nothing names
        it); a name of the import's own module that is a submodule is left out: the graph
        holds that import itself."""
        found: dict[str, tuple[tuple[str, int, str], ...]] = {}
        queue: deque[tuple[_Name, tuple[tuple[str, int, str], ...]]] = deque()
        for binding in self._from_import_bindings(module, line):
            if binding.name == STAR or binding.attribute is None:
                continue  # (which names a star import binds is not known here)
            start = self._named(module, binding, binding.name, [])
            if start is not None and not reaches(start[0]):
                queue.append((start, ()))
        seen: set[_Name] = set()
        while queue:
            name, way = queue.popleft()
            if name in seen:
                continue
            seen.add(name)
            base, names = name
            reading = self._calls_of(base)
            if reading is None:
                continue
            naming = list(_naming(reading.bindings, list(names)))
            explicit = [(b, rest) for b, rest in naming if b.name != STAR]
            for binding, rest in explicit or naming:
                bound = self._bound(base, binding, names[0])
                if bound is None:
                    continue
                then, attribute = bound
                step = (*way, (base, binding.line, names[0]))
                if reaches(then):
                    found.setdefault(then, step)
                    continue
                following = self._in_module(then, ([attribute] if attribute else []) + rest)
                if following is not None and reaches(following[0]):
                    found.setdefault(following[0], step)
                elif following is not None:
                    queue.append((following, step))
        return sorted(found.items())

    def _in_module(self, module: str, names: list[str]) -> _Name | None:
        """What the dotted `names` name in `module`: the submodules they name first, then
        the dotted names in the last of those; None where they name a module itself. (Not
        past a module whose `__getattr__` looking up the next name calls, where it does not
        bind it: `_visit_name` follows both that call and the submodule. Python does not
        call it where the submodule was imported before, which sets it; which modules were
        is not known here.)"""
        while names and self._has_code(f"{module}.{names[0]}"):
            if self._asks_getattr(module, names[0]):
                break
            module = f"{module}.{names.pop(0)}"
        return (module, tuple(names)) if names else None

    def _getattr_called(self, module: str, binding: Binding) -> Iterator[tuple[str, str]]:
        """The module `__getattr__` (PEP 562) that a `from` import of `module` calls (with
        the key of its reading for the name), for each name the module it imports from does
        not bind at import time (a name it binds only under `if TYPE_CHECKING:`, say, which
        is how lazy loading is often typed): the name imported (`__all__`, for a star
        import); and, where that module is not a package, `__path__`, which Python looks up
        first for any `from` import."""
        if binding.attribute is None or "." in binding.name:
            return  # (not a `from` import; or the same import, as an attribute of a class)
        base = self._imported_from(module, binding)
        if not self._has_getattr(base):
            return
        names = ["__all__" if binding.name == STAR else binding.attribute]
        if not self._is_package(base):
            names.insert(0, "__path__")
        for name in names:
            if not self._binds(base, name):
                yield base, getattr_key(name)

    def _lazy_loaded(self, module: str, binding: Binding) -> Iterator[tuple[str, str]]:
        """What a `from` import of `module` loads of the lazy imports (PEP 810) of the module
        it imports from, that nothing there uses: the name it imports (every one, for a star
        import), with the key of its reading."""
        if not target_python().lazy or binding.attribute is None or "." in binding.name:
            return  # (not a `from` import; or the same import, as an attribute of a class)
        base = self._imported_from(module, binding)
        if not self._has_code(base):
            return
        names = self._lazily_bound(base)
        for name in names if binding.name == STAR else [binding.attribute]:
            if name in names:
                yield base, lazy_key(name)

    def _asks_getattr(self, module: str, name: str) -> bool:
        """Whether looking `name` up on `module` calls its module `__getattr__`: it defines
        one, and does not bind the name."""
        return self._has_getattr(module) and not self._binds(module, name)

    def _has_getattr(self, module: str) -> bool:
        """Whether `module` is of the graph's code and defines a module `__getattr__`."""
        return (
            self._has_code(module)
            and self._may_define_getattr(module)
            and self._defines(module, GETATTR)
        )

    def _imported_from(self, module: str, binding: Binding) -> str:
        """The module an import of `module` imports (from)."""
        base = binding.module
        if binding.level:
            package = module if self._is_package(module) else module.rpartition(".")[0]
            for _ in range(binding.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        return base

    def _bound(self, module: str, binding: Binding, name: str) -> tuple[str, str | None] | None:
        """What an import binds to `name`: a module of the graph (None), or an attribute of
        one (a star import binds any)."""
        if binding.name == STAR:
            binding = binding._replace(attribute=name)
        base = self._imported_from(module, binding)
        if not self._has_code(base):
            return None
        if binding.attribute is None:
            return base, None
        submodule = f"{base}.{binding.attribute}"
        return (submodule, None) if self._has_code(submodule) else (base, binding.attribute)

    def _functions_named(self, start: _Name) -> tuple[tuple[str, str], ...]:
        """The functions (module, name) that a name may be: one the module defines (`f`, or
        `C.f` of a class), or one that the names its imports bind lead to (a re-export of a
        function, a class or a module), through re-exports of any length; and the module
        `__getattr__` that looking the name up calls, where the module defines one and does
        not bind the name.

        Kept per name, as many calls name the same function through the same re-exports
        (a package's `__init__` that star-imports its submodules, which star-import it back,
        is followed once per name, not once per call). Names that lead to each other (star
        imports of each other) all lead to the same functions: such a cycle is found once
        (Tarjan's strongly connected components), and each of its names is kept with all of
        the cycle's functions."""
        named = self._functions_of_name
        if start not in named:
            self._visit_name(start, {}, {}, [], {})
        return named[start]

    def _visit_name(
        self,
        name: _Name,
        order: dict[_Name, int],
        low: dict[_Name, int],
        open_names: list[_Name],
        partial: dict[_Name, dict[tuple[str, str], None]],
    ) -> None:
        """One step of `_functions_named`'s search: the functions `name` leads to, through
        the names not yet searched that it leads to (in `order`, with the lowest order each
        reaches in `low`; `open_names` those whose cycle is not finished, with what they
        lead to so far in `partial`)."""
        # (A method, not a function nested in `_functions_named`: a nested function that
        # calls itself holds itself through its closure, a reference cycle through `self`
        # that keeps everything the walks read alive until the cyclic garbage collector runs
        # (`walk._offer`).)
        named = self._functions_of_name
        order[name] = low[name] = len(order)
        open_names.append(name)
        found = partial[name] = {}
        module, names = name
        reading = self._calls_of(module)
        if reading is not None:
            dotted = ".".join(names)
            if self._defines(module, dotted):
                found[module, dotted] = None
            leads = [
                self._named(module, binding, names[0], rest)
                for binding, rest in _naming(reading.bindings, list(names))
            ]
            leads += self._leads_through_classes(module, names, reading)
            if self._asks_getattr(module, names[0]):
                # Looking up a name the module does not bind calls its `__getattr__`
                # (`import pkg.lazy; pkg.lazy.Model()`); where the name is a submodule (that
                # it may import: nothing else need have), the rest is looked up in that.
                found[module, getattr_key(names[0])] = None
                if len(names) > 1 and self._has_code(f"{module}.{names[0]}"):
                    leads.append(self._in_module(f"{module}.{names[0]}", list(names[1:])))
            for then in leads:
                if then is None:
                    continue
                if then not in named and then not in order:
                    self._visit_name(then, order, low, open_names, partial)
                if then in named:  # (a cycle of its own, done)
                    found.update(dict.fromkeys(named[then]))
                elif then in partial:  # (in this name's cycle)
                    low[name] = min(low[name], low[then])
                    found.update(partial[then])
        if low[name] == order[name]:
            # `name` is the first of its cycle that the search reached: every name of the
            # cycle, found after it, leads to what it leads to.
            cycle = open_names[open_names.index(name) :]
            del open_names[len(open_names) - len(cycle) :]
            for member in cycle:
                named[member] = tuple({**partial.pop(member), **found})

    def _leads_through_classes(
        self, module: str, names: tuple[str, ...], reading: ImportTimeCalls
    ) -> list[_Name]:
        """The names that a dotted name leads to through a module's classes and the names it
        binds to functions or classes: each alternative of `X = A if c else B` (`X.f`: `A.f`,
        `B.f`), and the bases of a class whose method it names but that does not define it
        (`D.f`: `C.f` for `class D(C)`)."""
        leads: list[_Name] = [
            (module, (*alternative.split("."), *names[1:]))
            for alternative in reading.aliases.get(names[0], ())
        ]
        owner = ".".join(names[:-1])
        if (
            len(names) > 1
            and owner in reading.classes
            and not self._defines(module, ".".join(names))
        ):
            leads += [(module, (*base.split("."), names[-1])) for base in reading.classes[owner]]
        return leads

    def _getattr_calls(self, module: str, eager: EagerLines) -> list[tuple[int, str, str]]:
        """The module `__getattr__`s that the `from` imports of `module` that run at import
        time (its `eager` lines) call: each with the import's line, the module imported from
        and the key of the reading of its `__getattr__` (`_getattr_called`). (The line grimp
        reports for an import says whether it is a `from` import: only those are read.)"""
        found = self._getattr_calls_of.get(module)
        if found is None:
            found = []
            texts = self._ask.from_import_lines(module)
            for imported, lines, _ in eager:
                for line in lines if self._has_code(imported) else ():
                    if line in texts:
                        for binding in self._from_import_bindings(module, line):
                            found += [(line, *c) for c in self._getattr_called(module, binding)]
                            found += [(line, *c) for c in self._lazy_loaded(module, binding)]
            found = self._getattr_calls_of[module] = list(dict.fromkeys(found))
        return found

    def packages_with_code(self) -> set[str]:
        """The top-level packages whose functions the walks follow."""
        return {top for top in self.graph.modules if "." not in top and self._has_code(top)}

    def _has_code(self, module: str) -> bool:
        """Whether `module` is a module of the graph whose file is read: not an external
        package (squashed), whose functions are not followed."""
        found = self._code.get(module)
        if found is None:
            found = self._code[module] = self._ask.has_code(module)
        return found

    # What the walks ask of a module's file, each through `self._ask` (none of them asks
    # another question directly). Asked often of the same module, some are kept here, so as
    # to be asked once.

    def _may_call(self, module: str) -> bool:
        return self._ask.may_call(module)

    def _from_import_bindings(self, module: str, line: int) -> tuple[Binding, ...]:
        found = self._ask.from_import_bindings(module, line)
        if found is None:
            # (From the file's call reading; one `ast` cannot read here is a warning.)
            reading = self._calls_of(module)
            bindings = () if reading is None else reading.bindings
            found = tuple(binding for binding in bindings if binding.line == line)
        return found

    def _may_define_getattr(self, module: str) -> bool:
        # (Asked of a module once for each module that imports it: asked once.)
        found = self._getattr_defined.get(module)
        if found is None:
            found = self._getattr_defined[module] = self._ask.may_define_getattr(module)
        return found

    def _lazily_bound(self, module: str) -> tuple[str, ...]:
        """The names `module`'s lazy imports bind that its code at import time does not use
        (Python 3.15)."""
        # (Asked of a module once for each module that imports from it: asked once.)
        found = self._lazy_bound_of.get(module)
        if found is None:
            found = ()
            if self._ask.has_unused_lazy(module) and self._calls_of(module) is not None:
                found = self._ask.lazily_bound(module)
            self._lazy_bound_of[module] = found
        return found

    def _eager_lines(self, module: str) -> EagerLines:
        return self._ask.eager_lines(module)

    def _function(self, module: str, name: str) -> Function | None:
        if self._calls_of(module) is None:
            return None
        return self._ask.function(module, name)

    def _calls_of(self, module: str) -> ImportTimeCalls | None:
        """The calls `module`'s file makes at import time, with the names its imports bind
        (which of its functions there are: `_defines`); None where `ast` cannot read them
        here, which a warning says."""
        try:
            return self._calls[module]
        except KeyError:
            pass
        found = self._calls[module] = self._ask.calls(module)
        if found is None:
            self.calls_unread.setdefault(self._ask.path(module), self._ask.calls_unread(module))
        return found

    def _defines(self, module: str, name: str) -> bool:
        """Whether `module`'s file defines a function `name` at import time (of a file whose
        calls are read)."""
        return self._calls_of(module) is not None and self._ask.defines(module, name)

    def _binds(self, module: str, name: str) -> bool:
        """Whether `module`'s file binds `name` at import time whatever happens (of a file
        whose calls are read, that defines a module `__getattr__`: `_certainly_bound`)."""
        return self._calls_of(module) is not None and self._ask.binds(module, name)

    def _is_package(self, module: str) -> bool:
        found = self._packages.get(module)
        if found is None:
            found = self._packages[module] = self._ask.is_package(module)
        return found

    def _imported_on(self, module: str, line: int) -> tuple[str, ...]:
        """The modules an import statement of `module` on `line` imports, as grimp resolved
        them."""
        return self._ask.imported_on(module, line)


def _owner_of(function: str) -> str | None:
    """The class whose method a function's key names (`C.f`); None for a function of the
    module, a module `__getattr__`."""
    if is_getattr_key(function) or "." not in function.removesuffix(RETURNED):
        return None
    return function.removesuffix(RETURNED).rpartition(".")[0]


def _naming(bindings: tuple[Binding, ...], names: list[str]) -> Iterator[tuple[Binding, list[str]]]:
    """The bindings that may bind the dotted `names` (`f`, `m.f`, `C.f`): each with the names
    that follow what it binds. A star import binds any first name; a class body's import
    binds `C.name`."""
    dotted = ".".join(names)
    for binding in bindings:
        if binding.name == STAR:
            yield binding, names[1:]
        elif dotted == binding.name or dotted.startswith(binding.name + "."):
            yield binding, names[binding.name.count(".") + 1 :]


def calls_unread_warnings(eager_imports: EagerImports) -> list[str]:
    """A warning for each file read whose calls `ast` cannot read here."""
    return [
        f"{path}: calls at import time are not followed in this file, which ast cannot read "
        f"here ({reason}): imports that such calls would run are not seen."
        for path, reason in sorted(eager_imports.calls_unread.items())
    ]


def dynamic_import_warnings(eager_imports: EagerImports) -> list[str]:
    """A warning for each dynamic import run at import time whose module name the text does
    not spell out."""
    return [
        f"{path}:{line}: {callee} runs at import time with a module name computed at run "
        "time: the modules it imports are not seen."
        for path, found in sorted(eager_imports.dynamic_unread.items())
        for line, callee in sorted(found)
    ]


def _why(module: str, calls: tuple[Call, ...]) -> str:
    """Why an import inside a function runs at import time: `inside def f, called by def g at
    l.30, called at import time at l.12 of pkg.a` (a call's module named where it is not
    the importer's)."""
    parts = [f"inside {_defined(calls[-1].function)}"]
    for call in reversed(calls):
        of = "" if call.caller == module else f" of {call.caller}"
        by = f"by {_defined(call.caller_function)}" if call.caller_function else "at import time"
        parts.append(f"called {by} at l.{call.line}{of}")
    return ", ".join(parts)


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
    """The hops from the walk's source to `module`."""
    chain = []
    hop = reached[module]
    while hop is not None:
        chain.append(hop)
        hop = reached[hop.runs_from]
    return chain[::-1]
