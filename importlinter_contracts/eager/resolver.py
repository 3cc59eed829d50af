"""The call resolver: what the functions a module calls at import time run (their imports,
and the functions they call in turn), followed breadth first from call to call; the module
`__getattr__`s and lazy imports that its `from` imports call or load; and the dynamic imports
that this code runs (`importlib.import_module`), of names the text spells out, that a
function returns or that a call passes. What a call's name runs is name resolution's
(`name_resolution.NameResolver`: through the names the module's imports bind, re-exports,
classes and their bases).

It learns about a module only by asking `questions.ModuleQuestions`; it keeps the answers it
asks often (of the same module) so as to ask each once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from ..locations import location
from ..report import CallSite
from .call_model import (
    ARGUMENT,
    CLASS_CALL,
    GETATTR,
    RETURNED,
    RETURNED_BY,
    SERVED,
    SUPER_CALL,
    THROUGH,
    Binding,
    CalledName,
    DynamicImport,
    Function,
    argument_prefix,
    dynamic_import,
    is_getattr_key,
    is_lazy_key,
    passed_name,
    through_class,
)
from .conditions import Conditions, LocatedCondition, located
from .module_files import EagerLines
from .name_resolution import NameResolver
from .questions import ModuleQuestions
from .target import target_python

# A name a call passes (or a function returns): the argument's position, the name (None: not
# known), and the tests it is passed under, where they stand.
Passed = tuple[int, str | None, tuple[LocatedCondition, ...]]

# How many functions deep the names a function returns are followed (`f` returns `g()`...).
_MOST_RETURNS = 8


class Call(NamedTuple):
    """A call that runs a function at import time: `caller` (a module, and the function of it
    that makes the call, None at import time itself) calls `function` of `module` on `line`;
    `by_import` where the statement on that line is a `from` import (which calls a module
    `__getattr__`, or loads a lazy import), not a call."""

    caller: str
    caller_function: str | None
    line: int
    module: str
    function: str
    by_import: bool = False
    conditions: Conditions = ()  # the undecided tests of the caller that the call runs under
    # The qualified names the call passes, by the argument's position, where what calling a
    # function returns is passed (`resolve(detect())`): each, or None for one not known.
    passed: tuple[Passed, ...] = ()

    @property
    def called(self) -> str:
        """Return the function called, as reports name it: `module:name`."""
        return f"{self.module}:{_shown(self.function)}"

    def as_data(self) -> CallSite:
        return {
            "module": self.caller,
            "line": self.line,
            "function": self.called,
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


# An import statement that code run at import time runs: its module, line, why it runs, the
# calls that run it, the modules it imports (None for an import statement: grimp's; those
# of a dynamic import, `importlib.import_module("m")`), and the undecided tests it runs under
# (of each call, then of its own function).
CalledImport = tuple[
    str, int, str, tuple[Call, ...], tuple[str, ...] | None, tuple[LocatedCondition, ...]
]


def _tests_of(calls: tuple[Call, ...]) -> tuple[LocatedCondition, ...]:
    """The undecided tests that a chain of calls runs under, each where it stands."""
    return tuple(found for call in calls for found in located(call.caller, call.conditions))


class CallResolver:
    """What the calls made at import time run, as the graph's modules answer `ask`."""

    def __init__(self, ask: ModuleQuestions) -> None:
        self._ask = ask
        self._names = NameResolver(ask)
        # Files whose calls `ast` cannot read here: their path and why.
        self.calls_unread = self._names.calls_unread
        self._getattr_calls_of: dict[str, list[tuple[int, str, str, Conditions]]] = {}
        # The dynamic imports (`importlib.import_module(name)`) run at import time whose
        # name is computed otherwise than the text spells out: by file, the lines and callee.
        self.dynamic_unread: dict[str, set[tuple[int, str]]] = {}

    def called_imports(
        self,
        module: str,
        may_call: bool,
        getattr_calls: list[tuple[int, str, str, Conditions]],
    ) -> Iterator[CalledImport]:
        """Return the import statements that the functions `module` calls at import time run (where
        it `may_call` one, and the module `__getattr__`s its `from` imports call), in the
        order the calls are found (breadth first): each with its module, line, why it runs
        and the calls that run it; and the dynamic imports (`importlib.import_module("m")`)
        that this code runs, each with the modules it imports (None for an import
        statement: grimp's)."""
        queue: deque[tuple[Call, ...]] = deque()
        # Each function followed, with the tests of the chain of calls that ran it: one that
        # another chain runs under fewer of them (a subset) is followed again, so that what
        # it imports is shown under the fewest.
        ran: dict[tuple[str, str], frozenset[LocatedCondition]] = {}
        # (A function that is passed qualified names runs once for each set of them.)
        ran_passed: set[tuple[str, str, tuple[Passed, ...]]] = set()
        dynamic: list[CalledImport] = []

        def call(
            caller: str,
            function: str | None,
            calls: tuple[Call, ...],
            line: int,
            callees: Iterable[tuple[str, str]],
            by_import: bool = False,
            conditions: Conditions = (),
            passed: tuple[Passed, ...] = (),
        ) -> None:
            tests: frozenset[LocatedCondition] | None = None
            for callee, name in callees:
                if passed:
                    if (callee, name, passed) in ran_passed:
                        continue
                    ran_passed.add((callee, name, passed))
                else:
                    earlier = ran.get((callee, name))
                    if earlier is not None:
                        if not earlier:
                            continue  # (it ran under no test: nothing to show again)
                        if tests is None:
                            tests = frozenset((*_tests_of(calls), *located(caller, conditions)))
                        if not tests < earlier:
                            continue
                    elif tests is None:
                        tests = frozenset((*_tests_of(calls), *located(caller, conditions)))
                    ran[callee, name] = tests
                made = Call(caller, function, line, callee, name, by_import, conditions, passed)
                queue.append((*calls, made))

        def run(
            caller: str,
            function: str | None,
            calls: tuple[Call, ...],
            made: tuple[CalledName, ...],
            read: Function | None,
        ) -> None:
            """Follow what code of `caller` runs (the function `read`, or its code at import
            time): the module `__getattr__` that each of its `from` imports may call, and its
            calls. (In that order: a `__getattr__` that a `from` import calls is cited at the
            import, not at a later call of the name it binds, which would call it again.)"""
            local = () if read is None else read.bindings
            for binding in local:
                line = binding.line
                tests = () if read is None else read.conditions_of(line)
                call(
                    caller,
                    function,
                    calls,
                    line,
                    self._names.served_by(caller, binding),
                    True,
                    tests,
                )
            # (A call's `PASSES` targets sort before its own: gathered, then passed with it.)
            passing: dict[tuple[int, str], list[Passed]] = {}
            for found in made:
                target = found.target
                imported = dynamic_import(target)
                if imported is not None:
                    given = calls[-1].passed if calls else ()
                    for modules, returned_under in self._dynamic_modules(
                        caller, found.line, imported, local, given
                    ):
                        why = f"{imported.callee} at l.{found.line}"
                        if calls:
                            why += f", {_why(caller, calls)}"
                        under = (
                            *_tests_of(calls),
                            *located(caller, found.conditions),
                            *returned_under,
                        )
                        dynamic.append((caller, found.line, why, calls, modules, under))
                    continue
                passes = passed_name(target)
                if passes is not None:
                    passing.setdefault((found.line, passes.callee), []).extend(
                        (passes.position, name, returned_under)
                        for name, returned_under in self._returned_names(
                            caller, passes.function, local
                        )
                    )
                    continue
                callees: Iterable[tuple[str, str]]
                if target.startswith((CLASS_CALL, SUPER_CALL)):
                    callees = self._names.class_call_methods(caller, function, target)
                else:
                    callees = self._names.resolved(caller, target, local)
                given = tuple(passing.pop((found.line, target), ()))
                if all(name is None for _, name, _ in given):
                    given = ()  # (nothing known is passed: run as any call of it)
                elif not callees and self._given_unread(caller, target, local, given):
                    path = self._ask.path(caller)
                    self.dynamic_unread.setdefault(path, set()).add((found.line, target))
                call(caller, function, calls, found.line, callees, False, found.conditions, given)

        lazy = target_python().lazy
        for line, imported_from, key, tests in getattr_calls:
            call(module, None, (), line, [(imported_from, key)], True, tests)
        reading = self._names.calls_of(module) if may_call else None
        if reading is not None:
            run(module, None, (), reading.calls, None)
        yield from dynamic
        while queue:
            dynamic.clear()
            calls = queue.popleft()
            last = calls[-1]
            function = self._names.function(last.module, last.function.partition(THROUGH)[0])
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
                    if not scope.eager and scope.lazy and scope.lazy != SERVED:
                        why = f"{scope.lazy} at l.{line}, first used {why}"
                own = function.conditions_of(line)
                under = _tests_of(calls)
                if own:
                    under = (*under, *located(last.module, own))
                yield last.module, line, why, calls, None, under
            run(last.module, last.function, calls, function.calls, function)
            yield from dynamic

    def _given_unread(
        self, module: str, target: str, local: tuple[Binding, ...], given: tuple[Passed, ...]
    ) -> bool:
        """Whether a call that the walks cannot follow, of a function an external package's
        import binds (vllm's `resolve_obj_by_qualname`), is given qualified names of the
        graph's modules, which it may import: what it imports is not seen."""
        return any(
            name is not None and self._names.names_a_module(name) for _, name, _ in given
        ) and self._names.imported_from_outside(module, target, local)

    def _dynamic_modules(
        self,
        module: str,
        line: int,
        imported: DynamicImport,
        local: tuple[Binding, ...],
        passed: tuple[Passed, ...],
    ) -> Iterator[tuple[tuple[str, ...], tuple[LocatedCondition, ...]]]:
        """The modules of the graph that a dynamic import in `module`'s code imports, each
        with the tests it imports them under: of a name the text spells out, the module
        (`_resolve_dynamic_import`); of what calling a function returns, or of a prefix of
        the function's argument that its call `passed`, the module of each qualified name,
        under the tests it is returned under. A name that is not known is a warning."""
        name = imported.name or ""
        if imported.anchor not in (RETURNED_BY, ARGUMENT):
            modules = self._resolve_dynamic_import(module, line, imported)
            if modules:
                yield modules, ()
            return
        if imported.anchor == RETURNED_BY:
            names = list(self._returned_names(module, name, local))
            recipe = "0::"  # (the whole name)
        else:
            index = int(name.partition(":")[0])
            names = [(found, tests) for at, found, tests in passed if at == index]
            recipe = name
        unknown = not names
        for qualified, tests in names:
            prefix = None if qualified is None else argument_prefix(qualified, recipe)
            modules = (
                ()
                if prefix is None
                else self._resolve_dynamic_import(
                    module, line, imported._replace(anchor="", name=prefix)
                )
            )
            if modules:
                yield modules, tests
            unknown = unknown or qualified is None
        if unknown:
            path = self._ask.path(module)
            self.dynamic_unread.setdefault(path, set()).add((line, imported.callee))

    def _returned_names(
        self, module: str, function: str, local: tuple[Binding, ...], depth: int = 0
    ) -> Iterator[tuple[str | None, tuple[LocatedCondition, ...]]]:
        """The qualified names that calling `function` in `module` may return
        (`Function.returns`), each with the tests it is returned under; None for what may
        be anything else (a function that is not such, or not found)."""
        callees = self._names.resolved(module, function, local)
        if not callees or depth > _MOST_RETURNS:
            yield None, ()
            return
        for callee, name in callees:
            read = self._names.function(callee, name.partition(THROUGH)[0])
            if read is None or not read.returns:
                yield None, ()
                continue
            for returned in read.returns:
                tests = located(callee, returned.conditions)
                target = returned.target
                if target.startswith('"'):
                    yield target[1:], tests
                elif not target:
                    yield None, tests
                else:
                    for found, more in self._returned_names(
                        callee, target, read.bindings, depth + 1
                    ):
                        yield found, (*tests, *more)

    def _resolve_dynamic_import(
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
            if imported.anchor == "__package__" and not self._names.is_package(module):
                package = module.rpartition(".")[0]
            level = len(name) - len(name.lstrip("."))
            for _ in range(level - 1):
                package = package.rpartition(".")[0]
            rest = name.lstrip(".")
            name = f"{package}.{rest}" if rest else package
        while name and not self._ask.has_module(name):
            name = name.rpartition(".")[0]
        return (name,) if name else ()

    def getattr_calls(
        self, module: str, eager: EagerLines
    ) -> list[tuple[int, str, str, Conditions]]:
        """Return the module `__getattr__`s that the `from` imports of `module` that run at import
        time (its `eager` lines) call: each with the import's line, the module imported from,
        the key of the reading of its `__getattr__` (`NameResolver.served_by`) and the tests
        the import runs under. (The line grimp reports for an import says whether it is a `from`
        import: only those are read.)"""
        found = self._getattr_calls_of.get(module)
        if found is None:
            found = []
            texts = self._ask.from_import_lines(module)
            for imported, lines, _, tests in eager:
                from_lines = [
                    (line, under) for line, under in zip(lines, tests, strict=True) if line in texts
                ]
                if not from_lines or not self._names.may_serve_from(imported):
                    continue
                for line, under in from_lines:
                    for binding in self._names.from_import_bindings(module, line):
                        found += [(line, *c, under) for c in self._names.served_by(module, binding)]
            found = self._getattr_calls_of[module] = list(dict.fromkeys(found))
        return found

    def has_code(self, module: str) -> bool:
        """Return whether `module` is a module of the graph whose file is read
        (`NameResolver.has_code`)."""
        return self._names.has_code(module)

    def reexports(
        self, module: str, line: int, reaches: Callable[[str], bool]
    ) -> list[tuple[str, tuple[tuple[str, int, str], ...]]]:
        """Return where the names that the `from` import of `module` on `line` binds come
        from (`NameResolver.reexports`)."""
        return self._names.reexports(module, line, reaches)


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
