"""Name resolution: what a dotted name in a module's code may be, against the modules of
the graph, their classes and their methods. A name leads to the functions (or classes) it
names through the names the module's imports bind, re-exports of any length, the names it
binds to alternatives, classes and their bases (`C.f`, `cls.f()`, `super().f()`), and the
module `__getattr__`s that looking a name up, or a `from` import, calls; a `from` import
loads the lazy imports it names. The call resolver (`resolver`) asks it what each call it
follows runs.

It learns about a module only by asking `questions.ModuleQuestions`; it keeps the answers it
asks often (of the same module) so as to ask each once.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

from .call_model import (
    CLASS_CALL,
    GETATTR,
    RETURNED,
    STAR,
    THROUGH,
    Binding,
    Function,
    getattr_key,
    is_getattr_key,
    lazy_key,
    through_class,
)
from .questions import ImportTimeCalls, ModuleQuestions
from .target import target_python

# A dotted name (of a function, a class, a re-export) in a module of the graph.
_Name = tuple[str, tuple[str, ...]]


class NameResolver:
    """What the dotted names in the code of the graph's modules name, as the modules answer
    `ask`."""

    def __init__(self, ask: ModuleQuestions) -> None:
        self._ask = ask
        self._code: dict[str, bool] = {}
        self._packages: dict[str, bool] = {}
        self._calls: dict[str, ImportTimeCalls | None] = {}
        # Files whose calls `ast` cannot read here: their path and why.
        self.calls_unread: dict[str, str] = {}
        self._functions_of_name: dict[_Name, tuple[tuple[str, str], ...]] = {}
        self._getattr_defined: dict[str, bool] = {}
        self._lazy_bound_of: dict[str, tuple[str, ...]] = {}
        self._classes_of_name: dict[_Name, tuple[tuple[str, str], ...]] = {}
        # What a module's code reaches, asked once: every module that calls a function or
        # imports from a module asks again what it is (`CallResolver.called_imports` runs
        # per module).
        self._resolved: dict[
            tuple[str, str, int], tuple[tuple[Binding, ...], tuple[tuple[str, str], ...]]
        ] = {}
        self._getattr_of: dict[str, bool] = {}
        self._functions: dict[tuple[str, str], Function | None] = {}
        self._served: dict[tuple[str, Binding], tuple[tuple[str, str], ...]] = {}
        self._bindings_by_name: dict[str, dict[str, list[tuple[int, Binding]]]] = {}

    def resolved(
        self, module: str, target: str, local: tuple[Binding, ...]
    ) -> tuple[tuple[str, str], ...]:
        """Return what `_resolve` finds, kept: the same call is resolved for every module whose
        code reaches it. (Keyed by the identity of `local`, which the entry holds, so that
        the key stays its own.)"""
        key = (module, target, id(local))
        found = self._resolved.get(key)
        if found is None or found[0] is not local:
            found = self._resolved[key] = (local, tuple(self._resolve(module, target, local)))
        return found[1]

    def served_by(self, module: str, binding: Binding) -> tuple[tuple[str, str], ...]:
        """Return what an import of `module` calls or loads where it runs (the `__getattr__` it
        calls, `_getattr_called`; the lazy imports it loads, `_lazy_loaded`), kept."""
        key = (module, binding)
        found = self._served.get(key)
        if found is None:
            found = self._served[key] = (
                *self._getattr_called(module, binding),
                *self._lazy_loaded(module, binding),
            )
        return found

    def _naming_in(self, module: str, names: list[str]) -> Iterator[tuple[Binding, list[str]]]:
        """`_naming` of the names `module`'s imports bind (of a module whose calls are read),
        through an index of them by the first name each binds, made once per module (a
        module binds hundreds, and each name its code calls is looked up)."""
        index = self._bindings_by_name.get(module)
        if index is None:
            reading = self.calls_of(module)
            index = self._bindings_by_name[module] = {}
            for at, binding in enumerate(() if reading is None else reading.bindings):
                first = STAR if binding.name == STAR else binding.name.partition(".")[0]
                index.setdefault(first, []).append((at, binding))
        named = index.get(names[0], [])
        stars = index.get(STAR, [])
        # (In the order of the file: the first binding found is the first followed.)
        ordered = sorted([*named, *stars]) if named and stars else named or stars
        return _naming([binding for _, binding in ordered], names)

    def class_call_methods(
        self, module: str, function: str | None, target: str
    ) -> Iterator[tuple[str, str]]:
        """Return the methods that `cls.f()` or `self.f()` (`<cls>.f`), or `super().f()`
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
            reading = self.calls_of(module)
            bases = () if reading is None else reading.classes.get(owner, ())
            for base in bases:
                for start in self._classes_named((module, tuple(base.split(".")))):
                    found.update(dict.fromkeys(self._methods(start, attribute, through)))
        return iter(found)

    def _derived(self, module: str, owner: str) -> list[tuple[str, str]]:
        """A class of `module`, and those of its classes that derive from it (by name)."""
        reading = self.calls_of(module)
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
            reading = self.calls_of(module)
            if reading is None:
                continue
            dotted = ".".join(names)
            if dotted in reading.classes:
                classes[module, dotted] = None
            leads = [
                self._named(module, binding, names[0], rest)
                for binding, rest in self._naming_in(module, list(names))
            ]
            leads += [
                (module, (*alternative.split("."), *names[1:]))
                for alternative in reading.aliases.get(names[0], ())
            ]
            submodule = f"{module}.{names[0]}"
            if len(names) > 1 and self.has_code(submodule):
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
        bound = self._bindings_naming(module, names, local)
        reading = self.calls_of(module)
        found: dict[tuple[str, str], None] = {}
        if reading is not None and self._defines(module, target):
            found[module, target] = None
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

    def imported_from_outside(self, module: str, target: str, local: tuple[Binding, ...]) -> bool:
        """Return whether the name a call of `target` in `module` starts with is bound by an
        import from a module whose code is not read (an external package's)."""
        return any(
            not binding.level and not self.has_code(binding.module)
            for binding, _ in self._bindings_naming(module, target.split("."), local)
        )

    def _bindings_naming(
        self, module: str, names: list[str], local: tuple[Binding, ...]
    ) -> list[tuple[Binding, list[str]]]:
        """The imports that bind the first of dotted `names` in `module`'s code: the calling
        function's own (`local`), then the module's (of a module whose calls are read), each
        with the rest of the names."""
        bound = list(_naming(local, names))
        if self.calls_of(module) is not None:
            bound += self._naming_in(module, names)
        return bound

    def names_a_module(self, qualified: str) -> bool:
        """Return whether a qualified name is, or is inside, a module of the graph below its
        top-level package (`pkg.platforms.cpu.CpuPlatform`)."""
        parts = qualified.split(".")
        return any(self.has_code(".".join(parts[:end])) for end in range(2, len(parts) + 1))

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
        """Return where the names that the `from` import of `module` on `line` binds come from,
        followed through re-exports as calls are (`_named`, of any length), up to a module
        that `reaches` says is far enough: each such module, with the re-exports on the way
        (module, line, name). A name another module's file binds explicitly is followed
        there only (a star import binds any name, so it is followed where nothing names
        it); a name of the import's own module that is a submodule is left out: the graph
        holds that import itself."""
        found: dict[str, tuple[tuple[str, int, str], ...]] = {}
        queue: deque[tuple[_Name, tuple[tuple[str, int, str], ...]]] = deque()
        for binding in self.from_import_bindings(module, line):
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
            reading = self.calls_of(base)
            if reading is None:
                continue
            naming = list(self._naming_in(base, list(names)))
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
        while names and self.has_code(f"{module}.{names[0]}"):
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
        if not self.is_package(base):
            names.insert(0, "__path__")
        for name in names:
            if not self._binds(base, name):
                yield base, getattr_key(name)

    def may_serve_from(self, imported: str) -> bool:
        """Return whether a `from` import that grimp reports imports `imported` (a module of the
        graph's code) may call a module `__getattr__` or load a lazy import: the module it
        imports from, `imported` or the package of a submodule it names, may define a
        `__getattr__` or take its place in `sys.modules` (`_getattr_called`, `_lazy_loaded`);
        on Python 3.15, any. Asked first: most import from neither, and their lines are not
        read."""
        if not self.has_code(imported):
            return False
        if target_python().lazy or self._may_define_getattr(imported):
            return True
        package = imported.rpartition(".")[0]
        return bool(package) and self.has_code(package) and self._may_define_getattr(package)

    def _lazy_loaded(self, module: str, binding: Binding) -> Iterator[tuple[str, str]]:
        """What a `from` import of `module` loads of the lazy imports (PEP 810) of the module
        it imports from, that nothing there uses: the name it imports (every one, for a star
        import), with the key of its reading."""
        if binding.attribute is None or "." in binding.name:
            return  # (not a `from` import; or the same import, as an attribute of a class)
        base = self._imported_from(module, binding)
        if not self.has_code(base):
            return
        if not target_python().lazy and not self._may_define_getattr(base):
            return  # (before 3.15, only a module replaced in sys.modules serves names)
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
        # (Asked of a module once for each name looked up on it: asked once.)
        found = self._getattr_of.get(module)
        if found is None:
            found = self._getattr_of[module] = (
                self.has_code(module)
                and self._may_define_getattr(module)
                and self._defines(module, GETATTR)
            )
        return found

    def _imported_from(self, module: str, binding: Binding) -> str:
        """The module an import of `module` imports (from)."""
        base = binding.module
        if binding.level:
            package = module if self.is_package(module) else module.rpartition(".")[0]
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
        if not self.has_code(base):
            return None
        if binding.attribute is None:
            return base, None
        submodule = f"{base}.{binding.attribute}"
        return (submodule, None) if self.has_code(submodule) else (base, binding.attribute)

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
        reading = self.calls_of(module)
        if reading is not None:
            dotted = ".".join(names)
            if self._defines(module, dotted):
                found[module, dotted] = None
            leads = [
                self._named(module, binding, names[0], rest)
                for binding, rest in self._naming_in(module, list(names))
            ]
            leads += self._leads_through_classes(module, names, reading)
            if self._asks_getattr(module, names[0]):
                # Looking up a name the module does not bind calls its `__getattr__`
                # (`import pkg.lazy; pkg.lazy.Model()`); where the name is a submodule (that
                # it may import: nothing else need have), the rest is looked up in that.
                found[module, getattr_key(names[0])] = None
                if len(names) > 1 and self.has_code(f"{module}.{names[0]}"):
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

    def has_code(self, module: str) -> bool:
        """Return whether `module` is a module of the graph whose file is read: not an external
        package (squashed), whose functions are not followed."""
        found = self._code.get(module)
        if found is None:
            found = self._code[module] = self._ask.has_code(module)
        return found

    def from_import_bindings(self, module: str, line: int) -> tuple[Binding, ...]:
        """Return what the `from` import statements of `module` on `line` bind."""
        found = self._ask.from_import_bindings(module, line)
        if found is None:
            # (From the file's call reading; one `ast` cannot read here is a warning.)
            reading = self.calls_of(module)
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
            if self._ask.has_unused_lazy(module) and self.calls_of(module) is not None:
                found = self._ask.lazily_bound(module)
            self._lazy_bound_of[module] = found
        return found

    def function(self, module: str, name: str) -> Function | None:
        """Return what calling the function `name` of `module` runs; None where its file's
        calls are not read, or it defines no such function."""
        # (Asked for each chain of calls that reaches the function: asked once.)
        key = (module, name)
        try:
            return self._functions[key]
        except KeyError:
            pass
        found = None if self.calls_of(module) is None else self._ask.function(module, name)
        self._functions[key] = found
        return found

    def calls_of(self, module: str) -> ImportTimeCalls | None:
        """Return the calls `module`'s file makes at import time, with the names its imports bind
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
        return self.calls_of(module) is not None and self._ask.defines(module, name)

    def _binds(self, module: str, name: str) -> bool:
        """Whether `module`'s file binds `name` at import time whatever happens (of a file
        whose calls are read, that defines a module `__getattr__`: `_certainly_bound`)."""
        return self.calls_of(module) is not None and self._ask.binds(module, name)

    def is_package(self, module: str) -> bool:
        """Return whether `module` is a package."""
        found = self._packages.get(module)
        if found is None:
            found = self._packages[module] = self._ask.is_package(module)
        return found


def _owner_of(function: str) -> str | None:
    """The class whose method a function's key names (`C.f`); None for a function of the
    module, a module `__getattr__`."""
    if is_getattr_key(function) or "." not in function.removesuffix(RETURNED):
        return None
    return function.removesuffix(RETURNED).rpartition(".")[0]


def _naming(bindings: Iterable[Binding], names: list[str]) -> Iterator[tuple[Binding, list[str]]]:
    """The bindings that may bind the dotted `names` (`f`, `m.f`, `C.f`): each with the names
    that follow what it binds. A star import binds any first name; a class body's import
    binds `C.name`."""
    dotted = ".".join(names)
    for binding in bindings:
        if binding.name == STAR:
            yield binding, names[1:]
        elif dotted == binding.name or dotted.startswith(binding.name + "."):
            yield binding, names[binding.name.count(".") + 1 :]
