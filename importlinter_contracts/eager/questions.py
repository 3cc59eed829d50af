"""The questions a walk asks of the graph's modules, as one interface (`ModuleQuestions`).

A walk (`walk.py`) learns about a module only by asking these questions; what it finds is a
function of their answers. So what walks found holds again where every file they read
answers the same questions the same (`outcomes.py`). Three implementations:

- `FileAnswers`, the live one: grimp's graph and the modules' files (`ScopeIndex`);
- `RecordedAnswers`, which wraps another and keeps every question asked of it and its
  answer, as data `marshal` writes, by the module asked about: the walk does nothing for it;
- `answers_again`, which asks a changed file each kept question again, through the same
  methods, and says whether every answer is the same.

A question added to the interface is recorded only once `RecordedAnswers` records it:
`tests/test_eager_questions.py` changes each question's answer in turn and expects the walks
to walk again.
"""

import typing
from collections.abc import Collection, Mapping
from typing import NamedTuple, Protocol

from grimp import ImportGraph
from grimp.exceptions import ModuleNotPresent

from ..errors import UnreadableSourceError
from ..locations import display_path
from ..modules import has_module
from .call_model import (
    Binding,
    CalledName,
    CallReading,
    Function,
    getattr_key,
    is_getattr_key,
    is_lazy_key,
)
from .call_storage import function_to_tuple
from .module_files import EagerLines, may_call
from .outcomes import Answer, Answers
from .scope_cache import ScopeIndex
from .scopes import ImportScope


class ImportTimeCalls(NamedTuple):
    """What a file's code calls at import time, with the names its imports bind, its classes
    (with their bases) and the names it binds to classes or functions (`CallReading`, less
    its functions and the names it binds whatever happens: those are questions of their
    own, `function`, `defines` and `binds`, so that an edit to a function nobody calls
    answers the same)."""

    calls: tuple[CalledName, ...]
    bindings: tuple[Binding, ...]
    classes: Mapping[str, tuple[str, ...]]
    aliases: Mapping[str, tuple[str, ...]]


class ModuleQuestions(Protocol):
    """Every question a walk asks of grimp's graph and of a module's file. The first
    argument is the module asked about; the answers of one module's questions depend on its
    file, on what grimp reports of it and on which modules the graph has, nothing else."""

    def has_module(self, module: str) -> bool:
        """Return whether `module` is a module of the graph."""
        ...

    def has_code(self, module: str) -> bool:
        """Return whether `module` is a module of the graph whose file is read: not an
        external package (squashed), whose functions are not followed."""
        ...

    def is_package(self, module: str) -> bool:
        """Return whether `module`'s file is a package's `__init__.py`."""
        ...

    def path(self, module: str) -> str:
        """Return the path of `module`'s file, as messages show it."""
        ...

    def may_call(self, module: str) -> bool:
        """Return whether `module`'s code at import time may call a function that runs an
        import of a module whose top-level package has code (a relative import's
        included)."""
        ...

    def eager_lines(self, module: str) -> EagerLines:
        """Return the modules `module` imports at import time, each with the lines of its
        import statements that run then and why each does."""
        ...

    def from_import_lines(self, module: str) -> Collection[int]:
        """Return the lines of `module` that may be `from` imports, as grimp reports them."""
        ...

    def from_import_bindings(self, module: str, line: int) -> tuple[Binding, ...] | None:
        """Return what the `from` imports of `module` on `line` bind, read from the line; None
        where the line does not tell (the file's `calls` have them then)."""
        ...

    def imported_on(self, module: str, line: int) -> tuple[str, ...]:
        """Return the modules the import statement of `module` on `line` imports, as grimp
        resolved them."""
        ...

    def scope(self, module: str, line: int) -> ImportScope:
        """Return whether the import statement on `line` of `module` runs at import time, and
        why. Raise UnreadableSourceError where no statement starts there."""
        ...

    def may_define_getattr(self, module: str) -> bool:
        """Return whether `module`'s file may define a module `__getattr__` (its text names
        one)."""
        ...

    def has_unused_lazy(self, module: str) -> bool:
        """Return whether `module`'s file has a lazy import (PEP 810) that its code at import
        time does not use."""
        ...

    def calls(self, module: str) -> ImportTimeCalls | None:
        """Return what `module`'s code calls at import time (`ImportTimeCalls`); None where
        `ast` cannot read the file here (`calls_unread` says why)."""
        ...

    def calls_unread(self, module: str) -> str:
        """Return why `ast` cannot read `module`'s calls here ("" where it can)."""
        ...

    def function(self, module: str, name: str) -> Function | None:
        """Return what calling the function `name` of `module` (a key of its reading: `f`,
        `C.f`, a `__getattr__`'s) runs; None where the file defines no such function. Raise
        UnreadableSourceError where its body cannot be read."""
        ...

    def defines(self, module: str, name: str) -> bool:
        """Return whether `module`'s file defines a function `name` at import time."""
        ...

    def binds(self, module: str, name: str) -> bool:
        """Return whether `module`'s file binds `name` at import time whatever happens (of a
        file that defines a module `__getattr__`)."""
        ...

    def lazily_bound(self, module: str) -> tuple[str, ...]:
        """Return the names `module`'s lazy imports bind that its code at import time does
        not use, sorted."""
        ...


# The questions, by name, each with the types of what it is asked of after the module.
QUESTIONS: dict[str, tuple[type, ...]] = {
    name: tuple(
        kind
        for argument, kind in typing.get_type_hints(getattr(ModuleQuestions, name)).items()
        if argument not in ("module", "return")
    )
    for name in sorted(vars(ModuleQuestions))
    if not name.startswith("_")
}


class FileAnswers:
    """The questions answered from grimp's `graph` and the modules' files (`scopes`): each
    method returns what `ModuleQuestions` says it does."""

    def __init__(self, graph: ImportGraph, scopes: ScopeIndex) -> None:
        self._graph = graph
        self._scopes = scopes
        self._calls: dict[str, ImportTimeCalls | None] = {}

    def has_module(self, module: str) -> bool:
        return has_module(self._graph, module)

    def has_code(self, module: str) -> bool:
        try:
            return not self._graph.is_module_squashed(module)
        except ModuleNotPresent:
            return False

    def is_package(self, module: str) -> bool:
        return self._scopes.is_package(module)

    def path(self, module: str) -> str:
        return display_path(self._scopes.path(module))

    def may_call(self, module: str) -> bool:
        return may_call(self._scopes.callable_names(module), self.has_code)

    def eager_lines(self, module: str) -> EagerLines:
        return self._scopes.eager_lines(module, self._graph)

    def from_import_lines(self, module: str) -> Collection[int]:
        return self._scopes.from_lines(module, self._graph).keys()

    def from_import_bindings(self, module: str, line: int) -> tuple[Binding, ...] | None:
        text = self._scopes.from_lines(module, self._graph).get(line, "")
        return self._scopes.from_import_bindings(module, line, text)

    def imported_on(self, module: str, line: int) -> tuple[str, ...]:
        return self._scopes.imported_on(module, line, self._graph)

    def scope(self, module: str, line: int) -> ImportScope:
        return self._scopes.scope(module, line)

    def may_define_getattr(self, module: str) -> bool:
        return self._scopes.may_define_getattr(module)

    def has_unused_lazy(self, module: str) -> bool:
        return self._scopes.has_unused_lazy(module)

    def calls(self, module: str) -> ImportTimeCalls | None:
        try:
            return self._calls[module]
        except KeyError:
            pass
        reading = self._reading(module)
        found = self._calls[module] = (
            None
            if reading is None
            else ImportTimeCalls(reading.calls, reading.bindings, reading.classes, reading.aliases)
        )
        return found

    def calls_unread(self, module: str) -> str:
        return self._scopes.reading(module).calls_unread

    def function(self, module: str, name: str) -> Function | None:
        reading = self._reading(module)
        if reading is None:
            return None
        try:
            found = reading.functions.get(name)
            if found is None and is_getattr_key(name):
                # (A name that the module's `__getattr__` compares its parameter with no
                # string as.)
                found = reading.functions.get(getattr_key(None))
        except UnreadableSourceError as error:
            raise UnreadableSourceError(f"{self.path(module)}: {error}") from None
        return found

    def defines(self, module: str, name: str) -> bool:
        reading = self._reading(module)
        return reading is not None and name in reading.functions

    def binds(self, module: str, name: str) -> bool:
        reading = self._reading(module)
        return reading is not None and name in reading.names

    def lazily_bound(self, module: str) -> tuple[str, ...]:
        reading = self._reading(module)
        functions = () if reading is None else reading.functions
        return tuple(sorted(key.partition(":")[2] for key in functions if is_lazy_key(key)))

    def _reading(self, module: str) -> CallReading | None:
        return self._scopes.reading(module).calls


_NOTHING: tuple[str | int, ...] = ()


class RecordedAnswers:
    """The questions answered by `asked`, each kept with its answer (`answers`): each method
    returns `asked`'s answer."""

    def __init__(self, asked: ModuleQuestions) -> None:
        self._asked = asked
        self.answers: Answers = {}

    def _keep(self, module: str, question: str, of: tuple[str | int, ...], answer: object) -> None:
        found = self.answers.get(module)
        if found is None:
            found = self.answers[module] = []
        found.append((question, of, answer))

    def has_module(self, module: str) -> bool:
        found = self._asked.has_module(module)
        self._keep(module, "has_module", _NOTHING, found)
        return found

    def has_code(self, module: str) -> bool:
        found = self._asked.has_code(module)
        self._keep(module, "has_code", _NOTHING, found)
        return found

    def is_package(self, module: str) -> bool:
        found = self._asked.is_package(module)
        self._keep(module, "is_package", _NOTHING, found)
        return found

    def path(self, module: str) -> str:
        found = self._asked.path(module)
        self._keep(module, "path", _NOTHING, found)
        return found

    def may_call(self, module: str) -> bool:
        found = self._asked.may_call(module)
        self._keep(module, "may_call", _NOTHING, found)
        return found

    def eager_lines(self, module: str) -> EagerLines:
        found = self._asked.eager_lines(module)
        self._keep(module, "eager_lines", _NOTHING, found)
        return found

    def from_import_lines(self, module: str) -> Collection[int]:
        found = self._asked.from_import_lines(module)
        self._keep(module, "from_import_lines", _NOTHING, tuple(sorted(found)))
        return found

    def from_import_bindings(self, module: str, line: int) -> tuple[Binding, ...] | None:
        found = self._asked.from_import_bindings(module, line)
        kept = None if found is None else tuple(tuple(binding) for binding in found)
        self._keep(module, "from_import_bindings", (line,), kept)
        return found

    def imported_on(self, module: str, line: int) -> tuple[str, ...]:
        found = self._asked.imported_on(module, line)
        self._keep(module, "imported_on", (line,), found)
        return found

    def scope(self, module: str, line: int) -> ImportScope:
        found = self._asked.scope(module, line)
        self._keep(module, "scope", (line,), tuple(found))
        return found

    def may_define_getattr(self, module: str) -> bool:
        found = self._asked.may_define_getattr(module)
        self._keep(module, "may_define_getattr", _NOTHING, found)
        return found

    def has_unused_lazy(self, module: str) -> bool:
        found = self._asked.has_unused_lazy(module)
        self._keep(module, "has_unused_lazy", _NOTHING, found)
        return found

    def calls(self, module: str) -> ImportTimeCalls | None:
        found = self._asked.calls(module)
        self._keep(module, "calls", _NOTHING, None if found is None else _calls_as_data(found))
        return found

    def calls_unread(self, module: str) -> str:
        found = self._asked.calls_unread(module)
        self._keep(module, "calls_unread", _NOTHING, found)
        return found

    def function(self, module: str, name: str) -> Function | None:
        found = self._asked.function(module, name)
        kept = None if found is None else function_to_tuple(found)
        self._keep(module, "function", (name,), kept)
        return found

    def defines(self, module: str, name: str) -> bool:
        found = self._asked.defines(module, name)
        self._keep(module, "defines", (name,), found)
        return found

    def binds(self, module: str, name: str) -> bool:
        found = self._asked.binds(module, name)
        self._keep(module, "binds", (name,), found)
        return found

    def lazily_bound(self, module: str) -> tuple[str, ...]:
        found = self._asked.lazily_bound(module)
        self._keep(module, "lazily_bound", _NOTHING, found)
        return found


def _calls_as_data(calls: ImportTimeCalls) -> tuple[object, ...]:
    return (
        tuple(tuple(call) for call in calls.calls),
        tuple(tuple(binding) for binding in calls.bindings),
        tuple(sorted(calls.classes.items())),
        tuple(sorted(calls.aliases.items())),
    )


def answers_again(asked: ModuleQuestions, module: str, answers: list[Answer]) -> bool:
    """Return whether `module`'s file, asked by `asked` (live: `FileAnswers`) each question
    it answered before (`answers`, as `RecordedAnswers` kept them and `marshal` read them
    back) in the same order, answers each the same: then, as every other file read then is
    unchanged, walks would find what they found then. An answer of another shape (not kept
    by this version) is not the same. Raise UnreadableSourceError where the file cannot be
    read."""
    recorded = RecordedAnswers(asked)
    for question, of, _ in answers:
        kinds = QUESTIONS.get(question)
        if kinds is None or len(of) != len(kinds):
            return False
        if not all(type(argument) is kind for argument, kind in zip(of, kinds, strict=True)):
            return False
        # (Through the method of the same name: the one the walk asked.)
        getattr(recorded, question)(module, *of)
    return recorded.answers.get(module, []) == answers
