"""The call reading as data: the records a file's reading is made of (`Binding`,
`CalledName`, `Function`, `CallReading`, `ModuleTables`, `Served`) and the keys that encode
in a call's target or a function's name what is not a plain dotted name (a module
`__getattr__` asked for a name, a lazily bound name, a call through a class, a dynamic
import, a call that passes what a function returns).

The reader (`calls`) makes these records, the cache (`call_storage`) stores them, and the
resolver (`resolver`, `name_resolution`) reads them: none of them needs the others here.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import NamedTuple

from .conditions import Conditions

# Named tuples: a reading kept in the cache is made of thousands of them.


class Binding(NamedTuple):
    """A name an import statement binds: `import a.b` binds `a` to module `a`; `import a.b
    as n` binds `n` to `a.b`; `from m import y as z` binds `z` to `y` of `m` (a submodule
    or an attribute), `m` relative by `level` dots."""

    name: str
    module: str
    level: int = 0
    attribute: str | None = None
    line: int = 0  # the import statement's


class CalledName(NamedTuple):
    """A call of a dotted name (`f`, `m.f`, `a.b.f`) on a line, and the undecided tests of its
    function (or of the module's code) that it runs under."""

    line: int
    target: str
    conditions: Conditions = ()


class Function(NamedTuple):
    """What calling a function defined at import time runs: the import statements of its body
    (by line), its calls, and the names its own imports bind (of each of its definitions, for
    a name defined more than once; with those of the functions it defines and calls)."""

    imports: tuple[int, ...]
    calls: tuple[CalledName, ...]
    bindings: tuple[Binding, ...]
    # The undecided tests of the function that each import (by line) runs under, where any.
    conditions: tuple[tuple[int, Conditions], ...] = ()
    # Of a function that may return a qualified name (a string it spells out, or what calling
    # another function returns: `_qualified_returns`), what each of its returns may be.
    returns: tuple[CalledName, ...] = ()

    def conditions_of(self, line: int) -> Conditions:
        """Return the undecided tests the import on `line` runs under."""
        for found, conditions in self.conditions:
            if found == line:
                return conditions
        return ()


class CallReading(NamedTuple):
    """A file's calls at import time, its functions, and the names its import-time imports
    bind; of a file that defines a module `__getattr__`, the names its code binds at import
    time whatever happens (`names`, `_certainly_bound`), which that function is never asked
    for."""

    calls: tuple[CalledName, ...]
    functions: Mapping[str, Function]
    bindings: tuple[Binding, ...]
    names: frozenset[str] = frozenset()
    # The classes defined at import time (`C`, `C.Inner`), each with its bases as written;
    # and the module's names bound to one or more classes or functions by an assignment
    # (`X = A if c else B`, `X = A or B`, `X = {"a": A}[k]`, `X = A`): each alternative.
    classes: Mapping[str, tuple[str, ...]] = {}
    aliases: Mapping[str, tuple[str, ...]] = {}


# Decides whether an `if` body never runs on import (TYPE_CHECKING, main guard, False, 0).
# It stays a function of the test, not data computed once and passed down: the tests it is
# asked of are those of the code a reading parses, and an outlined file's functions are
# parsed only when first asked for (`FunctionBodies`, a cached reading with no tree at
# all), so a set of the `if`s that never run would mean reading every function's `if`s up
# front, which the outline is there to spare; and `import_time_uses` asks with one that
# says no to every test. (Its one other form, `scopes.never_runs_label` with a file's
# aliases of TYPE_CHECKING, could become those aliases as data once that function and
# the pieces the token reader shares with it live below the reader, `calls`.)
NeverRuns = Callable[[ast.expr], bool]

# A function's lines: its def's, the first and last of its body (the first after the last
# when the body is on the def's line), and the def's indentation.
Body = tuple[int, int, int, int]

# The name a star import binds (`from m import *`): any name, that `m` may define.
STAR = "*"

# A module's `__getattr__` (PEP 562), which Python calls for a name the module does not bind
# (`from m import name`). It is read once for each string it compares its parameter with,
# and once for any other name: the function `getattr_key(name)` of the reading.
GETATTR = "__getattr__"


# What a function returns, called: `f()` for `f`'s (a decorator with arguments, `@f(x)`, calls
# what `f(x)` returns with the function it decorates).
RETURNED = "()"


# Calls through the class a method runs for: `cls.f()` or `self.f()` in a method (`<cls>.f`),
# `super().f()` (`<super>.f`). A method called through a class (`D.f()`, where `f` may be a
# base's) is known by its key and the class it runs for: `C.f@module:D` (`through`).
CLASS_CALL = "<cls>."
SUPER_CALL = "<super>."
THROUGH = "@"

# A call of `importlib.import_module`, `importlib.__import__` or `__import__` whose module
# name the text spells out: `<import>CALLEE:ANCHOR:NAME`, ANCHOR `__name__` or `__package__`
# for a relative name (`package=__package__`), empty for an absolute one; NAME empty where
# the name is computed otherwise (`import_module(name)`).
DYNAMIC_IMPORT = "<import>"


# Two more ANCHORs, for a name that `import_module` is given from elsewhere than the text: what
# calling a function returns (`import_module(detect())`: NAME the function, as called), and
# a prefix of an argument of the function the call stands in (`module, _ = qualname.rsplit(".",
# 1); import_module(module)`: NAME `INDEX:METHOD:SEPARATOR`, the parameter's position, and
# `rsplit`, `rpartition`, `partition` or `split` with its separator, or `:` for the whole).
RETURNED_BY = "()"
ARGUMENT = "(argument)"
# A call that passes what calling a function returns as an argument (`resolve(detect())`, or a
# variable assigned it): `<passes>CALLEE:INDEX:FUNCTION`, kept beside the call of CALLEE itself.
PASSES = "<passes>"


class DynamicImport(NamedTuple):
    """A call of `importlib.import_module` (or `__import__`): the callee as written, the
    anchor of a relative name (`__name__`, `__package__`; "" for an absolute one; or
    `RETURNED_BY`, `ARGUMENT`), and the name (None: computed otherwise, not followed)."""

    callee: str
    anchor: str
    name: str | None


def dynamic_import(target: str) -> DynamicImport | None:
    """Return the dynamic import that a call's target stands for; None for any other call."""
    if not target.startswith(DYNAMIC_IMPORT):
        return None
    callee, anchor, name = target.removeprefix(DYNAMIC_IMPORT).split(":", 2)
    return DynamicImport(callee, anchor, name or None)


class PassedName(NamedTuple):
    """A call that passes what calling `function` returns as its argument at `position`
    (`PASSES`): of `callee`."""

    callee: str
    position: int
    function: str


def passed_name(target: str) -> PassedName | None:
    """Return what a call's target stands for where it is a `PASSES` one; None otherwise."""
    if not target.startswith(PASSES):
        return None
    callee, index, function = target.removeprefix(PASSES).split(":")
    return PassedName(callee, int(index), function)


def argument_prefix(name: str, recipe: str) -> str | None:
    """Return the module name that a function whose dynamic import takes a prefix of an
    argument (`ARGUMENT`, its `recipe` `INDEX:METHOD:SEPARATOR`) imports, given `name`; None
    where that prefix is empty."""
    _, method, separator = recipe.split(":", 2)
    if method == "rsplit":
        found = name.rsplit(separator, 1)[0]
    elif method == "rpartition":
        found = name.rpartition(separator)[0]
    elif method in ("partition", "split"):
        found = name.partition(separator)[0]
    else:
        found = name
    return found or None


def through_class(function: str) -> tuple[str, tuple[str, str] | None]:
    """Return a function's key, and the class (module, dotted name) it was called through,
    where known (`C.f@pkg.m:D`)."""
    own, _, through = function.partition(THROUGH)
    if not through:
        return own, None
    module, _, name = through.partition(":")
    return own, (module, name)


class ModuleTables(NamedTuple):
    """What a module's names bound to literals hold, which calls in its code may use: the
    strings each names (a string, or the elements or keys of a literal collection of them),
    the string values of a literal dict, the dotted names a literal dict's values or a
    tuple's or list's elements are (a registry of classes or functions); the names bound
    only to collections (`name in NAMES` tests membership, not a substring); and each
    literal dict of strings to strings, as its keys and values in turn (`_MODULES[name]`)."""

    strings: Mapping[str, tuple[str, ...]] = {}
    values: Mapping[str, tuple[str, ...]] = {}
    registries: Mapping[str, tuple[str, ...]] = {}
    collections: Mapping[str, tuple[str, ...]] = {}
    mappings: Mapping[str, tuple[str, ...]] = {}


def getattr_key(name: str | None) -> str:
    """Return the key of the reading of a module's `__getattr__` asked for `name` (None: for a name
    it compares its parameter with none of)."""
    return f"{GETATTR}:{name or ''}"


# A name that a lazy import binds and code at import time does not use (PEP 810): a `from`
# import of it from another module loads it, as calling this "function" runs the import.
LAZY_IMPORT = "lazy import"


def lazy_key(name: str) -> str:
    """Return the key of the reading of what looking up a lazily bound `name` runs."""
    return f"{LAZY_IMPORT}:{name}"


def is_lazy_key(function: str) -> bool:
    """Return whether a function's key is that of a reading of a lazily bound name."""
    return function.startswith(LAZY_IMPORT + ":")


def is_getattr_key(function: str) -> bool:
    """Return whether a function's key is that of a reading of a module `__getattr__`."""
    return function.startswith(GETATTR + ":")


# What makes the imports a module serves lazy (`served_imports`), as its scopes say.
SERVED = "served by what replaces the module in sys.modules"


class Served(NamedTuple):
    """The imports that serve a name (`served_imports`): their lines, and the tests each runs
    under inside the `if` that holds it, where any."""

    lines: tuple[int, ...]
    conditions: tuple[tuple[int, Conditions], ...] = ()
