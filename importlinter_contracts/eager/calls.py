"""Which functions a module calls while it is imported, and what those functions import and
call in turn: read from the file's syntax tree, never by running it.

Code that runs at import time (the module body and its if/try/with/for/while/match blocks,
class bodies, decorators, default argument values and annotations, class bases) may call a
function; that function's body then runs at import time too, its imports included. This
module records, per file, the calls made at import time, each function defined at import
time with the imports and calls of its body, and the names that import statements bind, so
that `walk` can resolve a call (`f()`, `m.f()`, `n.f()` after `import m as n`, `f()` after
`from m import f` or `from m import *`) to the functions it may run. A function defined in
a class body at import time is known as `C.f`: a call of `C.f`, or of `f` in that class body
(which may also be the module's `f`), may run it. A name bound more than once (a def in each
branch of an `if`, a def that a `try` imports instead) may run any of its bindings: each is
followed, and so is what a function binds to a module's name with `global`. A function
defined inside another and called by it runs as part of it; one it returns runs when what it
returns is called (`f()`: `@f(x)`, `f(x)(y)`). A module `__getattr__` (PEP 562), which a
`from` import of a name the module does not bind calls, is read for each string it compares
its parameter with (`getattr_key`), with the names the module binds. A method's calls
through its first parameter (`cls.f()`, `self.f()`) and `super().f()` are kept as such
(`CLASS_CALL`, `SUPER_CALL`), for `walk` to resolve through the class the method runs for;
with the file's classes and their bases, and the names it binds to one or more functions or
classes (`X = A if c else B`: `aliases`), which a call of a callee expression also names
(`(a if c else b)()`). A call of `importlib.import_module` or `__import__` is kept with the
module names it may import where the text spells them out (`DYNAMIC_IMPORT`): a literal, a
literal prefix joined with each string of a literal collection a loop iterates, a module's
literal dict looked up; or where the resolver may work them out: what calling a function
returns (`import_module(detect())`), or a prefix of an argument of the function the call
stands in (`qualname.rsplit(".", 1)`), with each call that passes what calling a function
returns (`PASSES`) and, of each function that may return a qualified name, what it returns
(`Function.returns`). Calls of anything else (methods of objects, functions passed as
arguments, what else Python calls implicitly) are not resolved.

Only `ast` reads calls; a file that the running Python cannot parse has no call reading.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, cast

from ..errors import UnreadableSourceError
from .conditions import (
    ELSE,
    IF,
    RETURNS,
    UNLESS,
    Conditions,
    SourceLines,
    always_runs,
    clause_conditions,
    clauses,
    is_condition,
    match_subject,
)
from .conditions import source_text as _source_text
from .lazy import LazyNames
from .parsing import parse, parse_error
from .target import target_python

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
# the pieces the token reader shares with it live below this module.)
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
_DYNAMIC_CALLEES = ("import_module", "__import__")
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
# What a variable holds where it is what calling a function returns, or a prefix of an
# argument: `_MARK` then ANCHOR:NAME, among the strings `_computed_strings` works out (a
# `:` in it keeps any string joined with it from being read as a module name).
_MARK = "\x00"
_PREFIX_METHODS = ("rsplit", "rpartition", "partition", "split")
# The most names one such call is read as (a prefix joined with each of a few collections).
_MOST_NAMES = 256


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


def _takes_argument(target: str) -> bool:
    """Whether a call's target is a dynamic import of a prefix of an argument (`ARGUMENT`)."""
    imported = dynamic_import(target)
    return imported is not None and imported.anchor == ARGUMENT


def _marker(anchor: str, name: str) -> str:
    return f"{_MARK}{anchor}:{name}"


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


def _read_module_tables(statements: list[ast.stmt]) -> ModuleTables:
    """The module's names bound (at module level, in its blocks) to literals only: each
    literal they are assigned, merged; not a name also bound to anything else."""
    strings: dict[str, set[str]] = {}
    values: dict[str, set[str]] = {}
    registries: dict[str, set[str]] = {}
    collections: dict[str, set[str]] = {}
    mappings: dict[str, set[tuple[str, str]]] = {}
    other: set[str] = set()
    single: set[str] = set()  # (bound to a string: not a collection)
    for node in _module_statements(statements):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        for target, value in pairs:
            if not isinstance(target, ast.Name) or isinstance(node, ast.AugAssign):
                other |= _target_names(target)
                continue
            found = _literal_strings(value)
            names = _literal_names(value)
            if found is None and not names:
                other.add(target.id)
                continue
            if found is not None:
                strings.setdefault(target.id, set()).update(found)
                if isinstance(value, ast.Constant):
                    single.add(target.id)
                else:
                    collections.setdefault(target.id, set()).update(found)
                if isinstance(value, ast.Dict):
                    values.setdefault(target.id, set()).update(_dict_string_values(value))
                    mappings.setdefault(target.id, set()).update(_string_items(value))
            if names:
                registries.setdefault(target.id, set()).update(names)

    def kept(table: dict[str, set[str]], dropped: set[str]) -> dict[str, tuple[str, ...]]:
        return {name: tuple(sorted(found)) for name, found in table.items() if name not in dropped}

    return ModuleTables(
        kept(strings, other),
        kept(values, other),
        kept(registries, other),
        kept(collections, other | single),
        {
            name: tuple(item for pair in sorted(pairs) for item in pair)
            for name, pairs in mappings.items()
            if name not in other
        },
    )


def _string_items(node: ast.Dict) -> set[tuple[str, str]]:
    return {
        (key.value, value.value)
        for key, value in zip(node.keys, node.values, strict=True)
        if isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    }


def _looked_up(table: tuple[str, ...], keys: set[str]) -> set[str]:
    """The values of a dict kept as its keys and values in turn, for these keys."""
    return {table[index + 1] for index in range(0, len(table), 2) if table[index] in keys}


def _module_statements(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements at module level, in its blocks too (not in defs or classes)."""
    for node in statements:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for block in _blocks(node):
                yield from _module_statements(block)


def _literal_strings(node: ast.expr) -> set[str] | None:
    """The strings a literal string is, or a literal collection of strings iterates (a
    tuple, list or set's elements, a dict's keys); None for anything else."""
    if isinstance(node, ast.Dict):
        keys = [key for key in node.keys if key is not None]
        if len(keys) != len(node.keys):
            return None
        return _strings(ast.Tuple(elts=keys)) if keys else None
    return _strings(node)


def _dict_string_values(node: ast.Dict) -> set[str]:
    return {
        value.value
        for value in node.values
        if isinstance(value, ast.Constant) and isinstance(value.value, str)
    }


def _literal_names(node: ast.expr) -> list[str]:
    """The dotted names a literal registry holds: a dict's values, a tuple's or a list's
    elements, where they are names."""
    if isinstance(node, ast.Dict):
        elements = node.values
    elif isinstance(node, ast.Tuple | ast.List):
        elements = node.elts
    else:
        return []
    return [name for element in elements if (name := _dotted(element))]


def _alternatives(node: ast.expr, registries: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The dotted names an expression may be, as a callee or a name bound to one: a name
    (`f`, `m.C`), each branch of a conditional expression (`A if c else B`), each operand
    of `or` and `and`, each value of a literal dict or element of a tuple or list
    subscripted (`{"a": A, "b": B}[key]`), or of a module's name bound to one (`REG[key]`)."""
    dotted = _dotted(node)
    if dotted is not None:
        return [dotted]
    if isinstance(node, ast.IfExp):
        return _alternatives(node.body, registries) + _alternatives(node.orelse, registries)
    if isinstance(node, ast.BoolOp):
        return [name for value in node.values for name in _alternatives(value, registries)]
    if isinstance(node, ast.NamedExpr):
        return _alternatives(node.value, registries)
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id in registries:
            return list(registries[node.value.id])
        return _literal_names(node.value)
    return []


def _find_dynamic_imports(
    node: ast.Call, callee: str, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The targets (`DYNAMIC_IMPORT`) of a call of `import_module` or `__import__`: one
    per name it may import, or one that says its name is computed otherwise."""
    arguments = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
    positional = list(node.args)
    name_node = positional[0] if positional else arguments.get("name")
    is_import = callee.rpartition(".")[2] == "__import__"
    anchor = ""
    fromlist: tuple[str, ...] = ()
    dots = ""
    if is_import:
        level = positional[4] if len(positional) > 4 else arguments.get("level")
        listed = positional[3] if len(positional) > 3 else arguments.get("fromlist")
        if listed is not None:
            fromlist = tuple(sorted(_strings(listed) or ()))
        if level is not None:
            if not (isinstance(level, ast.Constant) and type(level.value) is int):
                name_node = None
            elif level.value > 0:
                anchor, dots = "__package__", "." * level.value
    else:
        package = positional[1] if len(positional) > 1 else arguments.get("package")
        if isinstance(package, ast.Name) and package.id in ("__name__", "__package__"):
            anchor = package.id
        elif package is not None:
            name_node = None
    names = None if name_node is None else _computed_strings(name_node, tables, loops)
    marked = [name for name in names or () if name.startswith(_MARK)]
    if marked:
        # (A name that a function returns, or a prefix of an argument: followed where the
        # call stands, absolute and whole, for `import_module`.)
        if is_import or anchor or len(marked) != len(names or ()):
            return [f"{DYNAMIC_IMPORT}{callee}::"]
        return [f"{DYNAMIC_IMPORT}{callee}:{name.removeprefix(_MARK)}" for name in sorted(marked)]
    if dots and names is not None:
        names = {dots + name for name in names}
    if not names or any(":" in name for name in names):
        return [f"{DYNAMIC_IMPORT}{callee}::"]
    found = set(names)
    found |= {f"{name}.{item}" for name in names for item in fromlist if item != "*"}
    return [f"{DYNAMIC_IMPORT}{callee}:{anchor}:{name}" for name in sorted(found)]


def _computed_strings(
    node: ast.expr, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> set[str] | None:
    """The strings an expression may be, where the text spells them out: a literal, a name
    a loop takes from a literal collection (`for name in ("a", "b")`) or the module binds to
    a literal, and these joined (an f-string, `+`, `"%s" % x`, `"{}".format(x)`); None
    otherwise."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        found = loops.get(node.id)
        if found is None:
            found = tables.strings.get(node.id)
        return None if found is None else set(found)
    if isinstance(node, ast.JoinedStr):
        parts: list[set[str]] = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion not in (-1, 115):
                    return None
                inner = _computed_strings(value.value, tables, loops)
            else:
                inner = _computed_strings(value, tables, loops)
            if inner is None:
                return None
            parts.append(inner)
        return _joined(parts)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in tables.mappings
    ):
        keys = _computed_strings(node.slice, tables, loops)
        return None if keys is None else _looked_up(tables.mappings[node.value.id], keys)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _computed_strings(node.left, tables, loops)
        right = _computed_strings(node.right, tables, loops)
        return None if left is None or right is None else _joined([left, right])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        formats = _computed_strings(node.left, tables, loops)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _formatted(formats, items, tables, loops, lambda f, a: f % tuple(a))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.keywords
    ):
        formats = _computed_strings(node.func.value, tables, loops)
        return _formatted(formats, node.args, tables, loops, lambda f, a: f.format(*a))
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        # What calling a function returns: known where the resolver follows the call (not a
        # method of a variable's value, `name.strip()`).
        callees = _alternatives(node.func, tables.registries)
        if not callees or any(callee.partition(".")[0] in loops for callee in callees):
            return None
        return {_marker(RETURNED_BY, callee) for callee in callees}
    if isinstance(node, ast.Subscript) and _is_zero(node.slice):
        prefix = _argument_prefix(node.value, loops)
        return None if prefix is None else {prefix}
    return None


def _is_zero(node: ast.expr) -> bool:
    return _int_constant(node) == 0


def _int_constant(node: ast.expr) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _argument_prefix(node: ast.expr, loops: Mapping[str, tuple[str, ...]]) -> str | None:
    """The prefix of an argument that `node` splits (`qualname.rsplit(".", 1)`,
    `qualname.rpartition(".")`, `qualname.partition(":")`, `qualname.split(".")`), whose
    first part is the prefix; None for anything else."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _PREFIX_METHODS
        and isinstance(node.func.value, ast.Name)
        and not node.keywords
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value
    ):
        return None
    method = node.func.attr
    limit = [_int_constant(argument) for argument in node.args[1:]]
    if "partition" in method and limit:
        return None
    if method == "rsplit" and limit != [1]:
        # (Split at every separator, the first part is the same from either end.)
        method = "split" if not limit else ""
    if method == "split" and not (not limit or (len(limit) == 1 and (limit[0] or 0) >= 1)):
        return None
    if not method:
        return None
    whole = loops.get(node.func.value.id, ())
    if len(whole) != 1 or not whole[0].startswith(_MARK + ARGUMENT + ":"):
        return None
    index, method_before, _ = whole[0].removeprefix(_MARK + ARGUMENT + ":").split(":", 2)
    if method_before:
        return None  # (a prefix of a prefix: not read)
    return _marker(ARGUMENT, f"{index}:{method}:{node.args[0].value}")


def _joined(parts: list[set[str]]) -> set[str] | None:
    found = {""}
    for part in parts:
        found = {before + after for before in found for after in part}
        if len(found) > _MOST_NAMES:
            return None
    return found


def _formatted(
    formats: set[str] | None,
    items: list[ast.expr],
    tables: ModuleTables,
    loops: Mapping[str, tuple[str, ...]],
    apply: Callable[[str, list[str]], str],
) -> set[str] | None:
    if formats is None:
        return None
    values = []
    for item in items:
        taken = _computed_strings(item, tables, loops)
        if taken is None:
            return None
        values.append(sorted(taken))
    combinations: list[list[str]] = [[]]
    for found_values in values:
        combinations = [[*before, value] for before in combinations for value in found_values]
        if len(combinations) * len(formats) > _MOST_NAMES:
            return None
    found: set[str] = set()
    for text in formats:
        for combination in combinations:
            try:
                found.add(apply(text, combination))
            except (TypeError, ValueError, IndexError, KeyError):
                return None
    return found


def _iterated(
    target: ast.expr,
    iterable: ast.expr,
    tables: ModuleTables,
    loops: Mapping[str, tuple[str, ...]],
) -> dict[str, tuple[str, ...]]:
    """The strings a loop's variables take from a literal collection it iterates (`for name
    in ("a", "b")`, a module's name bound to one, a dict's `.keys()`, `.values()` or
    `.items()`, through `sorted`, `list`, `tuple` or `set`): none where it cannot tell."""
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id in ("sorted", "list", "tuple", "set")
        and len(iterable.args) == 1
    ):
        iterable = iterable.args[0]
    method = None
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("keys", "values", "items")
        and not iterable.args
    ):
        method, iterable = iterable.func.attr, iterable.func.value
    keys: set[str] | None
    dict_values: set[str] | None = None
    if isinstance(iterable, ast.Name) and iterable.id not in loops:
        keys = set(tables.strings.get(iterable.id, ())) or None
        dict_values = set(tables.values.get(iterable.id, ())) or None
    elif isinstance(iterable, ast.Dict):
        keys = _literal_strings(iterable)
        dict_values = _dict_string_values(iterable) or None
    elif method is None and not isinstance(iterable, ast.Constant):
        keys = _literal_strings(iterable)  # (a string iterates its characters: not read)
    else:
        keys = None
    if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        found = {}
        first, second = target.elts
        if isinstance(first, ast.Name) and keys:
            found[first.id] = tuple(sorted(keys))
        if isinstance(second, ast.Name) and dict_values:
            found[second.id] = tuple(sorted(dict_values))
        return found
    taken = dict_values if method == "values" else keys
    if isinstance(target, ast.Name) and taken:
        return {target.id: tuple(sorted(taken))}
    return {}


# What a function decorated `@staticmethod` calls for its decorator (`_decorated`).
_STATIC_DECORATOR = "staticmethod" + RETURNED


def _is_static(node: ast.FunctionDef) -> bool:
    """Whether a def is decorated `@staticmethod` (its first parameter is not the class or
    the object it is called through)."""
    return any(_dotted(decorator) == "staticmethod" for decorator in node.decorator_list)


def _owner(function: str) -> str | None:
    """The class (its dotted name in the module) that a function's key says defines it."""
    if is_getattr_key(function) or function.endswith(RETURNED) or "." not in function:
        return None
    return function.rpartition(".")[0]


def _through_method(
    calls: list[CalledName], first: str | None, aliases: Mapping[str, list[str]]
) -> list[CalledName]:
    """A function's calls, with those through a method's `first` parameter (`cls.f()`,
    `self.f()`) made calls through the class it runs for (`<cls>.f`), and those of a name it
    binds to one or more functions or classes (`impl = A if c else B; impl()`) made calls
    of each too."""
    found = []
    for call in calls:
        head, dot, rest = call.target.partition(".")
        if first is not None and dot and head == first:
            found.append(call._replace(target=CLASS_CALL + rest))
            continue
        found.append(call)
        for alternative in aliases.get(head, ()):
            found.append(call._replace(target=alternative + dot + rest))
    return found


def _local_aliases(
    node: ast.FunctionDef, registries: Mapping[str, tuple[str, ...]]
) -> dict[str, list[str]]:
    """The names a function binds to one or more functions or classes (its own scope's)."""
    found: dict[str, list[str]] = {}
    for statement in _own_statements(node.body):
        if isinstance(statement, ast.Assign):
            names = _alternatives(statement.value, registries)
            for target in statement.targets:
                if isinstance(target, ast.Name) and names:
                    found.setdefault(target.id, []).extend(
                        name for name in names if name.partition(".")[0] != target.id
                    )
    return found


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


def served_imports(
    statements: list[ast.stmt], lines: SourceLines | None = None
) -> dict[str, Served]:
    """Return, of a module whose code at import time puts another object in its place in
    `sys.modules` (`sys.modules[__name__] = _LazyModule(...)`, as diffusers' and transformers'
    packages do), the names that its imports under an `if` bind, each with the lines of those
    imports: that object serves each name by importing it when it is first looked up, as they
    do. Of any other module, none. With the file's `lines`, the tests of the blocks inside
    that `if` are kept with each import (`try: if not X: raise ... else: import y`: y only if
    X)."""
    replaced = False
    found: dict[str, list[int]] = {}
    tested: dict[int, Conditions] = {}
    # Each statement, with whether an `if` holds it, and the tests inside that `if`.
    pending: list[tuple[ast.stmt, bool, Conditions]] = [(s, False, ()) for s in statements]
    while pending:
        node, under_if, conditions = pending.pop()
        if isinstance(node, ast.Assign) and any(_is_own_entry(t) for t in node.targets):
            replaced = True
        elif isinstance(node, ast.Import | ast.ImportFrom) and under_if:
            for binding in _bindings(node):
                if binding.name != STAR:
                    found.setdefault(binding.name, []).append(node.lineno)
            if conditions:
                tested[node.lineno] = conditions
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for block, more in _tested_blocks(node, lines if under_if else None):
                inside = under_if or isinstance(node, ast.If)
                pending += [(statement, inside, (*conditions, *more)) for statement in block]
    if not replaced:
        return {}
    return {
        name: Served(
            tuple(sorted(found_lines)),
            tuple((line, tested[line]) for line in sorted(found_lines) if line in tested),
        )
        for name, found_lines in found.items()
    }


def _tested_blocks(
    node: ast.stmt, lines: SourceLines | None
) -> Iterator[tuple[list[ast.stmt], Conditions]]:
    """The blocks of a statement, each with the tests it runs under (read where `lines` are
    given): of an `if`, its test or its negation; of a `try`, the handlers' exception types,
    and for its `else`, the negation of each `if` of its body that raises."""
    found = clauses(node)
    for clause in found:
        if lines is None:
            yield clause.body, ()
        elif clause.statement == "try" and clause.keyword == "else":
            yield (
                clause.body,
                tuple(
                    (UNLESS, _source_text(lines, inner.test), inner.lineno)
                    for inner in found[0].body
                    if isinstance(inner, ast.If) and _leaves(inner.body) and not inner.orelse
                ),
            )
        else:
            yield clause.body, clause_conditions(clause, lines)


def _is_own_entry(target: ast.expr) -> bool:
    """Whether an assignment's target is `sys.modules[__name__]`."""
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr == "modules"
        and isinstance(target.slice, ast.Name)
        and target.slice.id == "__name__"
    )


def read_calls(
    module: ast.Module,
    never_runs: NeverRuns,
    text: str,
    lazy_names: LazyNames | None = None,
    served: Mapping[str, Served] | None = None,
) -> CallReading:
    """Return the call reading of a parsed file, whose `text` is given; `lazy_names`: the names its
    lazy imports bind that code at import time does not use (`lazy.read_lazy`); `served`:
    its `served_imports`, where the caller has them."""
    lines = SourceLines(text)
    reader = _Reader(
        never_runs,
        lazy_annotations(module, text),
        lazy_names or {},
        _read_module_tables(module.body),
        lines,
    )
    calls, defined, bindings = reader.read(module)
    # (Only a file whose text says `global` declares a name global.)
    global_bindings, global_functions, global_deletes = (
        _through_global(module) if "global" in text else ((), {}, set[str]())
    )
    for name, nodes in global_functions.items():
        defined.setdefault(name, []).extend(nodes)
    functions = {
        name: reader.function(nodes, owner=_owner(name)) for name, nodes in defined.items()
    }
    for name, lazy_lines in (lazy_names or {}).items():
        functions[lazy_key(name)] = Function(lazy_lines, (), ())
    if served is None:
        served = served_imports(module.body, lines)
    for name, imports in served.items():
        functions[lazy_key(name)] = Function(imports.lines, (), (), imports.conditions)
    for name, nodes in defined.items():
        returned = reader.returned(nodes)
        if returned.imports or returned.calls:
            functions[name + RETURNED] = returned
    names: frozenset[str] = frozenset()
    if GETATTR in defined:
        functions.update(_getattr_readings(reader, defined[GETATTR]))
        names = _certainly_bound(module.body, never_runs) - global_deletes
    return CallReading(
        calls, functions, bindings + global_bindings, names, *_classes_and_aliases(reader)
    )


def _classes_and_aliases(
    reader: _Reader,
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    return (
        {name: tuple(dict.fromkeys(bases)) for name, bases in reader.classes.items()},
        {name: tuple(dict.fromkeys(found)) for name, found in reader.aliases.items()},
    )


# A `from` import on a line of its own, as grimp reports a line (stripped): the dots, the
# module, the names.
_SIMPLE_FROM_IMPORT = re.compile(
    r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+([\w \t,]+?)[ \t]*"
)


def simple_from_import(text: str, line: int) -> tuple[Binding, ...] | None:
    """Return what a `from` import on `line` binds, where `text` (the line) holds nothing else:
    None for any other line (the statement's own lines then tell, `from_import_bindings`)."""
    if not text.isascii():
        return None  # (Python reads names in their NFKC form, which `ast` gives)
    match = _SIMPLE_FROM_IMPORT.fullmatch(text)
    if match is None:
        return None
    dots, module, names = match.groups()
    found = []
    for item in names.split(","):
        words = item.split()
        if len(words) == 1 and words[0].isidentifier():
            found.append(Binding(words[0], module, len(dots), words[0], line))
        elif len(words) == 3 and words[1] == "as" and words[0].isidentifier():
            found.append(Binding(words[2], module, len(dots), words[0], line))
        else:
            return None
    return tuple(found)


# The first line of a `from` import whose names stand in brackets: the dots, the module, and
# what follows the bracket.
_BRACKETED_FROM_IMPORT = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*\((.*)")
# A line of the names in brackets: names, `as`, commas and a comment.
_NAMES_IN_BRACKETS = re.compile(rb"[\w \t,]*")


def bracketed_from_import(
    text: str, following: list[bytes], line: int
) -> tuple[Binding, ...] | None:
    """Return what a `from` import on `line` binds, where `text` (the line, stripped) opens
    brackets that hold only names, and `following` (the file's lines, as bytes, from the next
    one on) closes them before anything but a comment: None for any other statement (its
    own lines then tell, `from_import_bindings`). Read without `ast`: most `from` imports of
    many names are written so."""
    match = _BRACKETED_FROM_IMPORT.fullmatch(text)
    if match is None or not text.isascii():
        return None
    dots, module, rest = match.groups()
    names = []
    for raw in [rest.encode(), *following[:_STATEMENT_LINES]]:
        code, _, comment = raw.partition(b"#")
        if b"\r" in comment or not comment.isascii():
            return None
        inside, closed, after = code.partition(b")")
        if not _NAMES_IN_BRACKETS.fullmatch(inside) or (closed and after.strip()):
            return None
        names.append(inside.decode())
        if closed:
            break
    else:
        return None
    items = " ".join(names).split(",")
    if items and not items[-1].strip():
        items.pop()  # (a comma after the last name)
    found = []
    for item in items:
        words = item.split()
        if len(words) == 1 and words[0].isidentifier():
            found.append(Binding(words[0], module, len(dots), words[0], line))
        elif len(words) == 3 and words[1] == "as" and words[0].isidentifier():
            found.append(Binding(words[2], module, len(dots), words[0], line))
        else:
            return None
    return tuple(found) or None


def from_import_bindings(lines: list[str], line: int) -> tuple[Binding, ...] | None:
    """Return what the `from` import statements that start on `line` of a file bind, read from the
    statement's own lines (those that follow, where it goes on in brackets or after a
    backslash); None where they do not parse alone (`else: from m import x`, say): the file's
    call reading has them then."""
    text = lines[line - 1].lstrip()
    for end in range(line, min(line + _STATEMENT_LINES, len(lines)) + 1):
        goes_on = text.rstrip().endswith("\\") or sum(map(text.count, "([{")) > sum(
            map(text.count, ")]}")
        )
        if goes_on and end < len(lines) and not _COMMENT_OR_STRING.search(text):
            # Brackets outside comments and strings still open: no parse can succeed yet
            # (parsing at each line made a statement of n lines cost n parses).
            text += "\n" + lines[end]
            continue
        try:
            module = parse(text)
        except (SyntaxError, ValueError):
            if end == len(lines) or not goes_on:
                return None
            text += "\n" + lines[end]
            continue
        return tuple(
            binding._replace(line=line)
            for node in ast.walk(module)
            if isinstance(node, ast.ImportFrom) and node.lineno == 1
            for binding in _bindings(node)
        )
    return None


# The most lines a statement is read from by `from_import_bindings`.
_STATEMENT_LINES = 100
# Where brackets may stand in a comment or a string, their count says nothing.
_COMMENT_OR_STRING = re.compile("[#'\"]")


def _getattr_readings(reader: _Reader, nodes: list[ast.FunctionDef]) -> dict[str, Function]:
    """A module `__getattr__`'s readings: for each string it compares its parameter with,
    and for any other name."""
    compared = sorted({value for node in nodes for value in _compared_strings(node, reader)})
    return {
        getattr_key(value): reader.function(nodes, asked=True, attribute=value)
        for value in [*compared, None]
    }


def _parameter(node: ast.FunctionDef) -> str | None:
    """A function's first parameter, whose tests a module `__getattr__`'s readings work out;
    None where the function binds that name again, or is decorated (its tests are then not
    worked out)."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    if not arguments or node.decorator_list:
        return None  # (a decorator may call it with another name than the one looked up)
    name = arguments[0].arg
    for inner in ast.walk(node):
        if inner is not node and name in _names_bound_by(inner):
            return None
    return name


def _names_bound_by(node: ast.AST) -> tuple[str | None, ...]:
    """The names that a node binds (or deletes, or declares another scope's) by itself:
    a target, an `except ... as` name, a def's or a class's, an import's, a `match`
    capture, a `global` or `nonlocal` name."""
    if isinstance(node, ast.Name):
        return () if isinstance(node.ctx, ast.Load) else (node.id,)
    if isinstance(node, ast.Global | ast.Nonlocal):
        return tuple(node.names)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return (node.name,)
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
        return (node.name,)
    if isinstance(node, ast.MatchMapping):
        return (node.rest,)
    if isinstance(node, ast.alias):
        return (node.asname or node.name.partition(".")[0],)
    return ()


def _compared_strings(node: ast.FunctionDef, reader: _Reader) -> set[str]:
    """The strings a function compares its first parameter with (`name == "x"`, `name in
    ("x", "y")`, `name in NAMES` of a module's literal collection, `case "x":`)."""
    parameter = reader.parameter(node)
    found: set[str] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Compare):
            sides = (inner.left, *inner.comparators)
            if any(_is_name(side, parameter) for side in sides):
                for side in sides:
                    found.update(_strings(side) or ())
                    if isinstance(side, ast.Name):
                        found.update(reader.tables.collections.get(side.id, ()))
        elif (subject := match_subject(inner)) is not None and _is_name(subject, parameter):
            for case in clauses(inner):
                if isinstance(case.test, ast.pattern):
                    found.update(_case_strings(case.test) or ())
    return found


def _is_name(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _strings(node: ast.expr) -> set[str] | None:
    """The strings a literal is, or holds (a tuple, list or set of strings); None for
    anything else."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        found: set[str] = set()
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            found.add(element.value)
        return found
    return None


def _case_strings(pattern: ast.pattern) -> set[str] | None:
    """The strings a `case` pattern matches exactly (`"x"`, `"x" | "y"`); None for a
    pattern that may match others."""
    if isinstance(pattern, ast.MatchValue):
        value = pattern.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return {value.value}
        return None
    if isinstance(pattern, ast.MatchOr):
        found: set[str] = set()
        for alternative in pattern.patterns:
            strings = _case_strings(alternative)
            if strings is None:
                return None
            found |= strings
        return found
    return None


def _certainly_bound(statements: list[ast.stmt], never_runs: NeverRuns) -> frozenset[str]:
    """The names that a module's code binds at import time whatever happens while it runs,
    which a module `__getattr__` is then never asked for: those that statements at module
    level assign (`=`, an annotated or augmented assignment), define (a def, a class) or
    import (not by a star import), and those bound in both branches of an `if` (in the
    `else` alone, of one whose test never holds, such as `if TYPE_CHECKING:`), in a `try`
    body and each `except` clause that does not end in `raise` (after an import that failed,
    say), or in its `finally`. Not in a loop, a `match` or a `with` (which a context manager
    may leave early), nor by `:=` (which may not run), a `with`'s `as`, or a function's
    `global`; nor a name deleted or caught (`except ... as name`, which Python deletes)
    anywhere at module level."""
    deleted: set[str] = set()
    found = _bound_in(statements, never_runs, deleted)
    return frozenset(found - deleted)


def _bound_in(statements: list[ast.stmt], never_runs: NeverRuns, deleted: set[str]) -> set[str]:
    """`_certainly_bound` of a block; what it deletes goes into `deleted`."""
    found: set[str] = set()
    for node in statements:
        if isinstance(node, ast.Delete):
            for target in node.targets:
                deleted |= _target_names(target)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {binding.name for binding in _bindings(node) if binding.name != STAR}
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                found |= _target_names(target)
        elif isinstance(node, ast.AugAssign) or (
            isinstance(node, ast.AnnAssign) and node.value is not None
        ):
            found |= _target_names(node.target)
        elif isinstance(node, ast.If):
            orelse = _bound_in(node.orelse, never_runs, deleted)
            found |= (
                orelse
                if never_runs(node.test)
                else _bound_in(node.body, never_runs, deleted) & orelse
            )
        elif (parts := clauses(node)) and parts[0].statement == "try":
            blocks = {clause.keyword: clause.body for clause in parts if clause.keyword != "except"}
            completed = _bound_in(blocks["try"] + blocks["else"], never_runs, deleted)
            for handler in parts:
                if handler.keyword != "except":
                    continue
                if handler.name:
                    deleted.add(handler.name)
                if handler.body and isinstance(handler.body[-1], ast.Raise):
                    _bound_in(handler.body, never_runs, deleted)  # (for what it deletes)
                    continue  # (the module's import fails this way)
                completed &= _bound_in(handler.body, never_runs, deleted)
            found |= completed | _bound_in(blocks["finally"], never_runs, deleted)
        else:
            for block in _blocks(node):
                _bound_in(block, never_runs, deleted)  # (for what it deletes)
    return found


def _target_names(target: ast.expr) -> set[str]:
    """The names an assignment's target binds itself (not an attribute's, an item's)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return {name for item in target.elts for name in _target_names(item)}
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return set()


def _through_global(
    module: ast.Module,
) -> tuple[tuple[Binding, ...], dict[str, list[ast.FunctionDef]], set[str]]:
    """What the functions of a file do to the module's names they declare `global`: the
    names their imports bind and the functions they define (`def setup(): global f; from m
    import f`, or `def f(): ...` there), each one more binding of the module's name, whether
    or not the function runs (a call of `f` at import time that finds `f` bound must come
    after some binding of it has run); and the names they delete (`del f`), which a module
    `__getattr__` may then be asked for."""
    bindings: list[Binding] = []
    functions: dict[str, list[ast.FunctionDef]] = {}
    deleted: set[str] = set()
    for function in ast.walk(module):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        own = list(_own_statements(function.body))
        names = {name for node in own if isinstance(node, ast.Global) for name in node.names}
        for node in own if names else ():
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    deleted |= _target_names(target) & names
            elif not isinstance(function, ast.FunctionDef):
                continue  # (an `async def` called only makes a coroutine)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                bindings.extend(b for b in _bindings(node) if b.name in names)
            elif isinstance(node, ast.FunctionDef) and node.name in names:
                functions.setdefault(node.name, []).append(node)
    return tuple(bindings), functions, deleted


def _own_statements(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a function's own scope, in its blocks too: not those of the
    functions and classes it defines (whose `global` names are their own)."""
    for node in statements:
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for block in _blocks(node):
                yield from _own_statements(block)


# A `global` statement, perhaps (in a string or a comment too): where one stands in a
# function, the file is read whole with `ast` (`_through_global`).
_GLOBAL = re.compile(r"global[ \t]+[A-Za-z_]")


def _may_declare_global(lines: list[str]) -> bool:
    for line in lines:
        if "global" in line:
            for match in _GLOBAL.finditer(line):
                before = line[: match.start()].rstrip()
                if not before or before.endswith((":", ";")):
                    return True
    return False


def lazy_annotations(module: ast.Module, text: str) -> bool | None:
    """Return whether the file's annotations are left unevaluated: True under `from __future__
    import annotations` (which Python allows only at the top of a file), False where Python
    evaluates them where they stand (before 3.14, or where the file's `text` names a way to
    ask for them, `__annotations__`, `inspect.get_annotations`, `typing.get_type_hints`,
    `annotationlib`, `inspect.signature`), None where they run only when asked for (PEP 649,
    from Python 3.14): those of a decorated def or class, or of a class with a base or a
    keyword (`@dataclass`, `NamedTuple`, a metaclass may ask), are taken as asked for."""
    if any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(alias.name == "annotations" for alias in node.names)
        for node in module.body
    ):
        return True
    if not target_python().deferred_annotations or _ASKS_FOR_ANNOTATIONS.search(text):
        return False
    return None


_ASKS_FOR_ANNOTATIONS = re.compile(
    r"\b(__annotations__|__annotate__|get_annotations|get_type_hints|annotationlib|signature)\b"
)


def annotations_run(policy: bool | None, node: ast.AST) -> bool:
    """Return whether the annotations of a def, of a class body or of the module body run at import
    time, under the file's `lazy_annotations` policy."""
    if policy is not None:
        return not policy
    if isinstance(node, ast.ClassDef):
        return bool(node.decorator_list or node.bases or node.keywords)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return bool(node.decorator_list)
    return False


def read_calls_outlined(
    lines: list[str], bodies: Sequence[Body], never_runs: NeverRuns
) -> CallReading:
    """Return the call reading of a file whose functions' `bodies` are known: only the code that
    runs at import time is parsed (each body stands in as `...`), and a function's body is
    read from its own lines when first asked for (`FunctionBodies`): the same reading, at a
    fraction of the cost for a file of many functions. Raises SyntaxError (or ValueError)
    where the file, so cut, does not parse. (A file whose functions may bind a module's name
    with `global` is read whole, as `read_calls` reads it.)
    """
    if _may_declare_global(lines):
        return read_calls(parse("\n".join(lines)), never_runs, "\n".join(lines))
    kept = list(lines)
    for line, first, last, indent in bodies:
        if first <= last:
            kept[first - 1] = " " * (indent + 1) + "..."
            kept[first:last] = [""] * (last - first)
            stub = _stub_def(lines[line - 1 : first - 1])
            if stub is not None:
                kept[line - 1] = stub
                kept[line : first - 1] = [""] * (first - 1 - line)
    module = parse("\n".join(kept))
    lazy = lazy_annotations(module, "\n".join(lines))
    tables = _read_module_tables(module.body)
    reader = _Reader(never_runs, lazy, {}, tables, SourceLines(lambda: lines))
    calls, defined, bindings = reader.read(module)
    by_line = {body[0]: body for body in bodies}
    functions = FunctionBodies(
        {name: tuple(by_line[node.lineno] for node in nodes) for name, nodes in defined.items()},
        lambda: lines,
        never_runs,
        lazy,
        # (A def read from its own lines starts at `def`: its decorators are read here.)
        decorated={
            name: found
            for name, nodes in defined.items()
            if (found := tuple(call for node in nodes for call in _decorated(node)))
        },
        tables=tables,
    )
    names: frozenset[str] = frozenset()
    if GETATTR in defined:
        # Read now, from its own lines: a module `__getattr__` is read for each name.
        own = functions.bodies[GETATTR]
        own_defs = [_parse_def(lines, body) for body in own]
        for read_alone, node in zip(own_defs, defined[GETATTR], strict=True):
            # (Its own lines start at `def`: its decorators are the module's reading's.)
            read_alone.decorator_list = node.decorator_list
        readings = _getattr_readings(reader, own_defs)
        functions.bodies.update(dict.fromkeys(readings, own))
        functions.read.update(readings)
        names = _certainly_bound(module.body, never_runs)
    return CallReading(calls, functions, bindings, names, *_classes_and_aliases(reader))


# A def's first line: its indentation, `async`, its name.
_DEF_LINE = re.compile(r"([ \t]*)(async[ \t]+)?def[ \t]+(\w+)[ \t]*\(")


def _stub_def(header: list[str]) -> str | None:
    """The first line of a def that binds the same name and runs nothing where it stands,
    for the lines of a def's header (from `def` to its colon) whose parameters' defaults and
    annotations call nothing: no bracket but the parameters' own, no string (which may hold
    one); None for any other. Most headers are so, and `ast` reads a long one slowly, where
    only its calls count (its body is read from its own lines, `FunctionBodies`)."""
    text = "\n".join(header)
    found = _DEF_LINE.match(text)
    if found is None or text.count("(") != 1 or "'" in text or '"' in text:
        return None
    indent, is_async, name = found.groups()
    return f"{indent}{is_async or ''}def {name}():"


class FunctionBodies(Mapping[str, Function]):
    """A file's functions defined at import time, each read (with `ast`) from its own lines
    (each definition's, for a name defined more than once) when first asked for;
    `lazy_annotations` as the file has it; and what calling each decorated one calls for its
    decorators (`_decorated`, read with the file: its own lines start at `def`)."""

    def __init__(
        self,
        bodies: dict[str, tuple[Body, ...]],
        lines: Callable[[], list[str]],
        never_runs: NeverRuns,
        lazy_annotations: bool | None,
        read: dict[str, Function] | None = None,
        decorated: dict[str, tuple[CalledName, ...]] | None = None,
        tables: ModuleTables | None = None,
    ) -> None:
        self.bodies = bodies
        self.tables = tables or ModuleTables()
        self.read = read if read is not None else {}
        self.decorated = decorated if decorated is not None else {}
        self.lazy_annotations = lazy_annotations
        self._lines = lines
        self._never_runs = never_runs

    def __getitem__(self, name: str) -> Function:
        found = self.read.get(name)
        if found is None:
            lines = self._lines()
            reader = _Reader(
                self._never_runs, self.lazy_annotations, {}, self.tables, SourceLines(self._lines)
            )
            # (What a function returns, called, is read from the function's lines.)
            own = name.removesuffix(RETURNED)
            read = (
                reader.returned
                if own != name
                else functools.partial(
                    reader.function, owner=_owner(name), static=self._static(own)
                )
            )
            try:
                found = read([_parse_def(lines, body) for body in self.bodies[own]])
                if own == name and own in self.decorated:
                    found = found._replace(calls=_in_order([*found.calls, *self.decorated[own]]))
            except (SyntaxError, ValueError, RecursionError):
                # Lines that do not parse alone: read every function from the whole file.
                try:
                    tree = parse("\n".join(lines))
                except (SyntaxError, ValueError, RecursionError) as error:
                    # Syntax newer than this Python's, which grimp read.
                    raise UnreadableSourceError(
                        f"cannot read def {name}, which import-time code calls: "
                        f"{parse_error(error)}"
                    ) from None
                _, defined, _ = reader.read(tree)
                self.read.update(
                    (key, reader.function(nodes, owner=_owner(key)))
                    for key, nodes in defined.items()
                )
                found = read(defined[own]) if own != name else self.read[name]
            self.read[name] = found
        return found

    def _static(self, name: str) -> frozenset[int]:
        """The lines of the defs of `name` decorated `@staticmethod`: its own lines start at
        `def`, so the file's reading says which (`decorated`), each just above its def."""
        defs = sorted(body[0] for body in self.bodies[name])
        marks = [c.line for c in self.decorated.get(name, ()) if c.target == _STATIC_DECORATOR]
        return frozenset(
            next(line for line in defs if line > mark) for mark in marks if mark < defs[-1]
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self.bodies)

    def __len__(self) -> int:
        return len(self.bodies)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.removesuffix(RETURNED) in self.bodies


def _parse_def(lines: list[str], body: Body) -> ast.FunctionDef:
    """A function's def, parsed from its own lines (put where they stand, so that `ast`
    numbers them as in the file; one at an indentation in a block that runs `if 1:`)."""
    line, first, last, indent = body
    own = "\n".join(lines[line - 1 : max(last, first - 1)])
    if indent:
        parsed = parse("\n" * (line - 2) + "if 1:\n" + own).body[0]
        assert isinstance(parsed, ast.If)
        parsed = parsed.body[0]
    else:
        parsed = parse("\n" * (line - 1) + own).body[0]
    if not isinstance(parsed, ast.FunctionDef) or parsed.lineno != line:
        raise ValueError(f"line {line}: not a function")
    return parsed


class _Reader:
    def __init__(
        self,
        never_runs: NeverRuns,
        lazy_annotations: bool | None,
        lazy_names: LazyNames,
        tables: ModuleTables | None = None,
        lines: SourceLines | None = None,
    ) -> None:
        self.never_runs = never_runs
        # The file's lines, for the text of a test; the undecided tests of the function (or
        # the module's code) being read that the statement read now runs under; and the
        # tests of each import statement of the function, by line.
        self.lines = lines or SourceLines("")
        self.conditions: Conditions = ()
        self.import_conditions: dict[int, Conditions] = {}
        # Whether annotations are evaluated where they stand (`lazy_annotations`).
        self.policy = lazy_annotations
        self.lazy_names = lazy_names
        self.tables = tables or ModuleTables()
        # The strings the variables of the loops being read take (`for name in ("a", "b")`).
        self.loops: dict[str, tuple[str, ...]] = {}
        # While the module's own code is read: its classes (by dotted name, with their
        # bases) and its names bound to functions or classes (`aliases`).
        self.module_level = False
        self.class_path: list[str] = []
        self.classes: dict[str, list[str]] = {}
        self.aliases: dict[str, list[str]] = {}
        # While a module `__getattr__`'s body is read for one name: its parameter, and the
        # name (None: one it compares its parameter with no string as).
        self.asked: tuple[str | None, str | None] | None = None
        # By function node (`id`): its parameter (`_parameter`) and the lines of the lazy
        # imports whose names its body loads, which each reading of a `__getattr__` (one
        # per string it compares its parameter with) would otherwise work out again.
        self._parameters: dict[int, str | None] = {}
        self._lazy_loaded: dict[int, list[int]] = {}
        # While a function's body is read: its `return` statements and what its own names
        # are assigned, each with the tests it runs under (`_qualified_returns`).
        self.returns: list[tuple[ast.Return, Conditions]] = []
        self.assigned: dict[str, list[tuple[ast.expr, Conditions]]] | None = None

    def parameter(self, node: ast.FunctionDef) -> str | None:
        """Return `_parameter(node)`, worked out once per node."""
        key = id(node)
        if key not in self._parameters:
            self._parameters[key] = _parameter(node)
        return self._parameters[key]

    def read(
        self, module: ast.Module
    ) -> tuple[tuple[CalledName, ...], dict[str, list[ast.FunctionDef]], tuple[Binding, ...]]:
        """A module's calls at import time, the functions it defines then (each definition
        of a name) and the names its imports bind then."""
        calls: list[CalledName] = []
        bindings: list[Binding] = []
        functions: dict[str, list[ast.FunctionDef]] = {}
        self.module_level = True
        self.run(
            module.body,
            calls,
            bindings,
            functions,
            annotations=annotations_run(self.policy, module),
        )
        self.module_level = False
        return _in_order(calls), functions, tuple(bindings)

    def _calls(self, nodes: Iterable[ast.AST]) -> Iterator[CalledName]:
        return self._tested(_calls(nodes, self.tables, self.loops))

    def _tested(self, calls: Iterable[CalledName]) -> Iterator[CalledName]:
        """The calls, each with the tests it runs under."""
        conditions = self.conditions
        if not conditions:
            return iter(calls)
        return (call._replace(conditions=conditions) for call in calls)

    def _under(self, kind: str, test: ast.expr, line: int) -> Conditions:
        """The tests a block runs under: those of the blocks around it, then its own."""
        return (*self.conditions, (kind, _source_text(self.lines, test), line))

    def _bind_strings(self, node: ast.Assign) -> None:
        """Keep the strings a variable is assigned where the text spells them out
        (`module = _MODULES[name]`, `name = PREFIX + "x"`), which a dynamic import after it
        may use; forget those of one assigned anything else."""
        found = _computed_strings(node.value, self.tables, self.loops)
        names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        unpacked = [t.elts for t in node.targets if isinstance(t, ast.Tuple | ast.List)]
        forgotten = [] if found else names
        if unpacked:
            # (`module, name = qualname.rsplit(".", 1)`: the first, a prefix of an argument.)
            forgotten = forgotten + [
                t.id for elements in unpacked for t in elements if isinstance(t, ast.Name)
            ]
            prefix = _argument_prefix(node.value, self.loops)
            first = unpacked[0][0] if len(unpacked) == 1 and unpacked[0] else None
            if prefix is not None and isinstance(first, ast.Name):
                forgotten.remove(first.id)
                self.loops = {**self.loops, first.id: (prefix,)}
        if found:
            self.loops = {**self.loops, **dict.fromkeys(names, tuple(sorted(found)))}
        if any(name in self.loops for name in forgotten):
            self.loops = {k: v for k, v in self.loops.items() if k not in forgotten}

    def _note(self, node: ast.stmt) -> None:
        """Keep what a statement of the module's own code binds that calls may run: a class
        (with its bases), a name bound to functions or classes."""
        if not self.module_level:
            return
        if isinstance(node, ast.ClassDef):
            key = ".".join([*self.class_path, node.name])
            self.classes.setdefault(key, []).extend(
                name for base in node.bases for name in _alternatives(base, self.tables.registries)
            )
        elif isinstance(node, ast.Assign) and not self.class_path:
            names = _alternatives(node.value, self.tables.registries)
            for target in node.targets:
                if isinstance(target, ast.Name) and names:
                    self.aliases.setdefault(target.id, []).extend(names)

    def run(
        self,
        statements: list[ast.stmt],
        calls: list[CalledName],
        bindings: list[Binding],
        functions: dict[str, list[ast.FunctionDef]] | None,
        imports: list[int] | None = None,
        *,
        annotations: bool,
    ) -> None:
        """Record what `statements` do when they run: their calls, the names their imports
        bind, the lines of their imports (`imports`, inside a function), and (`functions`)
        the functions they define; `annotations`: whether a variable's annotation is
        evaluated here (at module level and in a class body, not in a function's). Each
        call and import is kept with the undecided tests it runs under."""
        outer = self.conditions
        try:
            self._run(statements, calls, bindings, functions, imports, annotations=annotations)
        finally:
            self.conditions = outer

    def _run(
        self,
        statements: list[ast.stmt],
        calls: list[CalledName],
        bindings: list[Binding],
        functions: dict[str, list[ast.FunctionDef]] | None,
        imports: list[int] | None,
        *,
        annotations: bool,
    ) -> None:
        for node in statements:
            self._note(node)
            if isinstance(node, ast.Import | ast.ImportFrom):
                bindings.extend(_bindings(node))
                if imports is not None:
                    imports.append(node.lineno)
                    if self.conditions:
                        self.import_conditions.setdefault(node.lineno, self.conditions)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # Decorators, defaults and annotations run where the def stands; the body
                # when called. Calling an async def only makes a coroutine: its body is not
                # followed.
                arguments = node.args
                run = [*node.decorator_list, *arguments.defaults]
                run += [default for default in arguments.kw_defaults if default]
                if annotations_run(self.policy, node):
                    run += _annotations(node)
                calls.extend(self._calls(run))
                calls.extend(self._tested(_decorators(node.decorator_list)))
                if functions is not None and isinstance(node, ast.FunctionDef):
                    functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                calls.extend(self._calls([*node.decorator_list, *node.bases, *node.keywords]))
                calls.extend(self._tested(_decorators(node.decorator_list)))
                # A class body runs where it stands; its functions run only when called, by
                # their name in the body or as `C.f`. A name in the body is looked up in the
                # class as it stands then, else in the module (and a nested class or a
                # comprehension sees only the module's): a call of a name the class defines
                # may run either. What its imports bind are attributes of the class, which
                # its own calls may run: they count with the module's.
                body_calls: list[CalledName] = []
                own: dict[str, list[ast.FunctionDef]] = {}
                before = len(bindings)
                self.class_path.append(node.name)
                self.run(
                    node.body,
                    body_calls,
                    bindings,
                    own,
                    imports,
                    annotations=annotations_run(self.policy, node),
                )
                self.class_path.pop()
                # (And as attributes of the class, `C.name`, that a call through it runs.)
                bindings.extend(
                    binding._replace(name=f"{node.name}.{binding.name}")
                    for binding in bindings[before:]
                )
                calls.extend(body_calls)
                calls.extend(
                    call._replace(target=f"{node.name}.{call.target}")
                    for call in body_calls
                    if call.target in own
                )
                if functions is not None:
                    for name, nodes in own.items():
                        functions.setdefault(f"{node.name}.{name}", []).extend(nodes)
            elif isinstance(node, ast.If):
                calls.extend(self._calls([node.test]))
                decided = self._decided(node.test)
                never = self.never_runs(node.test)
                undecided = (
                    decided is None and not never and not always_runs(node.test, self.never_runs)
                )
                around = self.conditions
                if decided is not False and not never:
                    if undecided:
                        self.conditions = self._under(IF, node.test, node.lineno)
                    self.run(
                        node.body, calls, bindings, functions, imports, annotations=annotations
                    )
                self.conditions = around
                if decided is not True:
                    if undecided:
                        self.conditions = self._under(ELSE, node.test, node.lineno)
                    self.run(
                        node.orelse, calls, bindings, functions, imports, annotations=annotations
                    )
                self.conditions = around
                taken = node.body if decided else node.orelse
                if decided is not None and taken and isinstance(taken[-1], ast.Return | ast.Raise):
                    return  # (the branch taken leaves the function: nothing after it runs)
                if undecided and _leaves(node.body) and not _leaves(node.orelse):
                    # What follows runs only where the test is false.
                    self.conditions = self._under(UNLESS, node.test, node.lineno)
                elif undecided and _leaves(node.orelse) and not _leaves(node.body):
                    self.conditions = self._under(IF, node.test, node.lineno)
            elif isinstance(node, ast.For) and (
                taken_by := _iterated(node.target, node.iter, self.tables, self.loops)
            ):
                # (Its variables take the strings of the collection: a dynamic import in its
                # body may name them.)
                calls.extend(self._calls(_expressions(node)))
                outer = self.loops
                self.loops = {**outer, **taken_by}
                for block in _blocks(node):
                    self.run(block, calls, bindings, functions, imports, annotations=annotations)
                self.loops = outer
            elif (
                self.asked
                and (subject := match_subject(node)) is not None
                and _is_name(subject, self.asked[0])
            ):
                calls.extend(self._calls(_expressions(node)))
                for case in clauses(node):
                    pattern = case.test
                    strings = _case_strings(pattern) if isinstance(pattern, ast.pattern) else None
                    if strings is None or self.asked[1] in strings:
                        self.run(
                            case.body, calls, bindings, functions, imports, annotations=annotations
                        )
                        if strings is not None and case.guard is None:
                            break  # (the case that matches: no other runs)
            else:
                if isinstance(node, ast.AnnAssign) and not annotations:
                    calls.extend(self._calls([node.target] + ([node.value] if node.value else [])))
                else:
                    calls.extend(self._calls(_expressions(node)))
                around = self.conditions
                for clause in clauses(node):
                    self.conditions = (*around, *clause_conditions(clause, self.lines))
                    self.run(
                        clause.body, calls, bindings, functions, imports, annotations=annotations
                    )
                self.conditions = around
            if isinstance(node, ast.Assign):
                self._bind_strings(node)  # (after its value, which runs first)
                target = node.targets[0]
                if self.assigned is not None and isinstance(target, ast.Name):
                    found = self.assigned.setdefault(target.id, [])
                    found.append((node.value, self.conditions))
            elif isinstance(node, ast.Return):
                self.returns.append((node, self.conditions))

    def returned(self, nodes: list[ast.FunctionDef]) -> Function:
        """What calling what a function returns runs: a function it defines and returns
        (`def deco(g): ...` then `return deco`, a decorator factory's), which sees the names
        its imports bind; a function it returns by name, called."""
        inner: list[ast.FunctionDef] = []
        calls: list[CalledName] = []
        bindings: list[Binding] = []
        for node in nodes:
            own = list(_own_statements(node.body))
            defined: dict[str, list[ast.FunctionDef]] = {}
            for statement in own:
                if isinstance(statement, ast.FunctionDef):
                    defined.setdefault(statement.name, []).append(statement)
                elif isinstance(statement, ast.Import | ast.ImportFrom):
                    bindings.extend(_bindings(statement))
            for statement in own:
                if isinstance(statement, ast.Return) and statement.value is not None:
                    target = _dotted(statement.value)
                    if target in defined:
                        inner += defined[target]
                    elif target is not None:
                        calls.append(CalledName(statement.lineno, target))
        if not inner and not calls:
            return Function((), (), ())
        found = self.function(inner) if inner else Function((), (), ())
        return Function(
            found.imports,
            _in_order([*found.calls, *calls]),
            (*found.bindings, *bindings),
            found.conditions,
        )

    def _decided(self, test: ast.expr) -> bool | None:
        """Whether an `if` test is true, in a module `__getattr__` read for one name, where
        it compares the parameter with strings (`==`, `!=`, `in`, `not in`, with `and`,
        `or`, `not`); None where it cannot tell."""
        if self.asked is None:
            return None
        parameter, name = self.asked
        if _is_name(test, parameter):
            return True  # (a name is never empty)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._decided(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            values = [self._decided(value) for value in test.values]
            deciding = isinstance(test.op, ast.Or)  # (True decides an `or`, False an `and`)
            if deciding in values:
                return deciding
            return None if None in values else not deciding
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
            return None
        (operator,), (right,) = test.ops, test.comparators
        left = test.left
        if isinstance(operator, ast.Eq | ast.NotEq) and _is_name(right, parameter):
            left, right = right, left
        strings = _strings(right)
        if isinstance(right, ast.Name) and right.id in self.tables.collections:
            strings = set(self.tables.collections[right.id])
        if not _is_name(left, parameter) or strings is None:
            return None
        if isinstance(operator, ast.Eq | ast.NotEq):
            if not isinstance(right, ast.Constant):
                return None  # (a string equals no tuple: rare enough not to read)
            return (name in strings) == isinstance(operator, ast.Eq)
        if isinstance(operator, ast.In | ast.NotIn) and not isinstance(right, ast.Constant):
            return (name in strings) == isinstance(operator, ast.In)
        return None

    def function(
        self,
        nodes: list[ast.FunctionDef],
        *,
        asked: bool = False,
        attribute: str | None = None,
        owner: str | None = None,
        static: frozenset[int] = frozenset(),
    ) -> Function:
        """What calling a function runs: any of its definitions (`nodes`), each with the
        functions it defines and calls by name (which run as part of it). A module
        `__getattr__` `asked` for `attribute` (None: a name it compares its parameter with no
        string as) runs only the branches of its tests of its parameter that this name
        takes. `static`: the lines of the defs decorated `@staticmethod` where their own
        lines, read from `def` on, do not show it."""
        calls: list[CalledName] = []
        bindings: list[Binding] = []
        imports: list[int] = []
        returns: list[CalledName] = []
        outer_tests, self.conditions = self.conditions, ()
        outer_imports, self.import_conditions = self.import_conditions, {}
        outer_returns, outer_assigned = self.returns, self.assigned
        for node in nodes:
            self.returns, self.assigned = [], {}
            # (Each definition's own: a name one defines inside itself is another's module
            # function.)
            body_calls: list[CalledName] = []
            own: dict[str, list[ast.FunctionDef]] = {}
            self.asked = (self.parameter(node), attribute) if asked else None
            # (Its own variables' strings; a module `__getattr__`'s parameter is the name
            # it is read for: `_MODULES[name]`.)
            outer, self.loops = self.loops, _parameters(node)
            if self.asked and self.asked[0] and self.asked[1] is not None:
                self.loops[self.asked[0]] = (self.asked[1],)
            self.run(node.body, body_calls, bindings, own, imports, annotations=False)
            self.loops = outer
            self.asked = None
            if self.returns:
                returns += _qualified_returns(node, self.returns, self.assigned, self)
            # (A method of class `owner`: `cls.f()` and `self.f()` call through the class
            # it runs for.)
            arguments = [*node.args.posonlyargs, *node.args.args]
            is_static = _is_static(node) or node.lineno in static
            first = arguments[0].arg if owner and arguments and not is_static else None
            body_calls = _through_method(
                body_calls, first, _local_aliases(node, self.tables.registries)
            )
            body_calls.extend(_decorated(node))
            ran: set[str] = set()
            while called := [c for c in body_calls if c.target in own.keys() - ran]:
                ran.update(c.target for c in called)
                for name in dict.fromkeys(c.target for c in called):
                    under = next(c.conditions for c in called if c.target == name)
                    found = self._inner(own[name], under)
                    imports.extend(found.imports)
                    body_calls.extend(found.calls)
                    bindings.extend(found.bindings)
            calls.extend(call for call in body_calls if call.target not in own)
            if self.lazy_names:
                imports.extend(self._lazy_imports_loaded(node, self.lazy_names))
        tested = tuple(sorted(self.import_conditions.items()))
        self.conditions, self.import_conditions = outer_tests, outer_imports
        self.returns, self.assigned = outer_returns, outer_assigned
        return Function(
            tuple(sorted(set(imports))), _in_order(calls), tuple(bindings), tested, tuple(returns)
        )

    def _inner(self, nodes: list[ast.FunctionDef], under: Conditions) -> Function:
        """What a function that a function defines and calls runs, its imports and calls under
        the tests of that call (`under`) too; its imports' tests join the caller's."""
        found = self.function(nodes)
        if any(_takes_argument(call.target) for call in found.calls):
            # (Its arguments are not those of the function that calls it.)
            found = found._replace(
                calls=tuple(
                    c._replace(target=c.target.partition(f":{ARGUMENT}:")[0] + "::")
                    if _takes_argument(c.target)
                    else c
                    for c in found.calls
                )
            )
        if under:
            found = found._replace(
                calls=tuple(c._replace(conditions=(*under, *c.conditions)) for c in found.calls)
            )
        for line in found.imports:
            tests = (*under, *found.conditions_of(line))
            if tests:
                self.import_conditions.setdefault(line, tests)
        return found

    def _lazy_imports_loaded(
        self, node: ast.FunctionDef, lazy_names: dict[str, tuple[int, ...]]
    ) -> list[int]:
        """The lines of the lazy imports whose names `node`'s body loads: each such import
        runs then (PEP 810)."""
        key = id(node)
        if key not in self._lazy_loaded:
            self._lazy_loaded[key] = [
                line
                for found in ast.walk(node)
                if isinstance(found, ast.Name) and found.id in lazy_names
                for line in lazy_names[found.id]
            ]
        return self._lazy_loaded[key]


def _qualified_returns(
    node: ast.FunctionDef,
    returns: list[tuple[ast.Return, Conditions]],
    assigned: dict[str, list[tuple[ast.expr, Conditions]]],
    reader: _Reader,
) -> list[CalledName]:
    """What a function may return, where that may be a qualified name (`Function.returns`):
    each string it returns (`'"' + the string`), each function whose return value it returns
    (`return f()`, `REG[key]()`, a name of its own assigned one: the function), anything else
    (""), each on the line it stands on with the tests it is returned under (those of its
    `return`, of the assignment of the name returned, of a conditional expression's branch).
    A string returned under no test of its own, by a function that may return something else
    (`None`, too, by falling off its end), is returned under `RETURNS`. None where nothing it
    returns is a string or a function's return value."""
    found: list[tuple[int, str | None, Conditions]] = []

    def alternatives(value: ast.expr | None, line: int, conditions: Conditions) -> None:
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            found.append((line, None, conditions))
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.append((value.lineno, '"' + value.value, conditions))
        elif isinstance(value, ast.IfExp):
            test = _source_text(reader.lines, value.test)
            alternatives(value.body, line, (*conditions, (IF, test, value.lineno)))
            alternatives(value.orelse, line, (*conditions, (ELSE, test, value.lineno)))
        elif isinstance(value, ast.Call) and not value.args and not value.keywords:
            callees = _alternatives(value.func, reader.tables.registries)
            found.extend((value.lineno, callee, conditions) for callee in callees or [""])
        else:
            found.append((line, "", conditions))

    for statement, conditions in returns:
        value = statement.value
        if isinstance(value, ast.Name) and value.id in assigned:
            for bound, where in assigned[value.id]:
                tests = (*where, *[test for test in conditions if test not in where])
                if not _exclusive(tests):  # (an assignment the return cannot follow)
                    alternatives(bound, statement.lineno, tests)
        else:
            alternatives(value, statement.lineno, conditions)
    if not any(target for _, target, _ in found):
        return []
    if not _leaves(node.body):
        found.append((node.lineno, None, ()))
    found = list(dict.fromkeys(found))
    several = len(found) > 1
    return [
        CalledName(
            line,
            target,
            ((RETURNS, f'{node.name}() == "{target[1:]}"', line),)
            if several and not conditions and target.startswith('"')
            else conditions,
        )
        for line, target, conditions in found
        if target is not None
    ]


def _exclusive(conditions: Conditions) -> bool:
    """Whether tests cannot all hold: one test both true and false (`if` and its `else`, or
    the test of an `if` whose body leaves the function)."""
    holds: dict[tuple[str, int], bool] = {}
    for kind, test, line in conditions:
        if kind in (IF, ELSE, UNLESS) and holds.setdefault((test, line), kind == IF) != (
            kind == IF
        ):
            return True
    return False


def _parameters(node: ast.FunctionDef) -> dict[str, tuple[str, ...]]:
    """A function's positional parameters, each as the whole of an argument (`ARGUMENT`)."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    return {
        argument.arg: (_marker(ARGUMENT, f"{index}::"),) for index, argument in enumerate(arguments)
    }


def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """A def's annotations, which Python evaluates where the def runs."""
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    every += [argument for argument in (arguments.vararg, arguments.kwarg) if argument]
    found = [argument.annotation for argument in every if argument.annotation]
    return found + ([node.returns] if node.returns else [])


def _decorated(node: ast.FunctionDef) -> list[CalledName]:
    """What calling a decorated function calls besides its body: what each of its decorators
    returned (`@deco`: the wrapper `deco(g)` made, which mostly calls the body). Not for
    `@deco(x)`, whose function is what `deco(x)` returns called: one level deeper."""
    return [
        CalledName(decorator.lineno, name + RETURNED)
        for decorator in node.decorator_list
        if (name := _dotted(decorator))
    ]


def _in_order(calls: list[CalledName]) -> tuple[CalledName, ...]:
    return tuple(sorted(set(calls), key=lambda call: (call.line, call.target)))


def _bindings(node: ast.Import | ast.ImportFrom) -> Iterator[Binding]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield Binding(alias.asname, alias.name, line=node.lineno)
            else:
                top = alias.name.partition(".")[0]
                yield Binding(top, top, line=node.lineno)
    else:
        for alias in node.names:
            yield Binding(
                alias.asname or alias.name, node.module or "", node.level, alias.name, node.lineno
            )


def _expressions(node: ast.stmt) -> Iterator[ast.AST]:
    """The parts of a statement that are not blocks of statements."""
    for field, value in ast.iter_fields(node):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        if isinstance(value, list):
            yield from (item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            yield value
    for handler in getattr(node, "handlers", []):
        if handler.type is not None:
            yield handler.type
    for case in getattr(node, "cases", []):
        if case.guard is not None:
            yield case.guard


def _leaves(block: list[ast.stmt]) -> bool:
    """Whether a block ends by leaving its function (`return`, `raise`)."""
    return bool(block) and isinstance(block[-1], ast.Return | ast.Raise)


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks of statements of a compound statement that is not a def or class."""
    return (clause.body for clause in clauses(node))


# The nodes that hold no call: a name (its child is its context), a constant, an operator.
_LEAVES = (
    ast.Name,
    ast.Constant,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
)


def _calls(
    nodes: Iterable[ast.AST],
    tables: ModuleTables | None = None,
    loops: Mapping[str, tuple[str, ...]] | None = None,
) -> Iterator[CalledName]:
    """Every call of a dotted name in these expressions, except in a lambda's body (which
    runs only when called); of each name a callee expression may be (`(a if c else b)()`,
    `REG[key]()`, `(a or b).f()`); through `super()` (`<super>.f`); and each dynamic import
    (`DYNAMIC_IMPORT`), whose name may use a variable that a loop around it (`loops`, or a
    comprehension's) takes from a literal collection."""
    tables = tables or ModuleTables()
    stack = [(node, loops or {}) for node in nodes]
    while stack:
        node, taken = stack.pop()
        if isinstance(node, _LEAVES):
            continue  # (nothing below: most of the nodes, which `iter_child_nodes` is slow on)
        if isinstance(node, ast.Lambda):
            defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            stack.extend((default, taken) for default in defaults)
            continue
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = dict(taken)
            for generator in node.generators:
                inner.update(_iterated(generator.target, generator.iter, tables, inner))
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
            continue
        if isinstance(node, ast.Call):
            yield from _called(node, tables, taken)
        stack.extend((child, taken) for child in ast.iter_child_nodes(node))


def _called(
    node: ast.Call, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> Iterator[CalledName]:
    """What one call calls (`_calls`)."""
    line = node.lineno
    function = node.func
    target = _dotted(function)
    if target is not None:
        yield CalledName(line, target)
        if target.rpartition(".")[2] in _DYNAMIC_CALLEES:
            for found in _find_dynamic_imports(node, target, tables, loops):
                yield CalledName(line, found)
        else:
            for index, argument in enumerate(node.args):
                for returning in _returned_by(argument, tables, loops):
                    yield CalledName(line, f"{PASSES}{target}:{index}:{returning}")
    elif isinstance(function, ast.Call) and (called := _dotted(function.func)):
        yield CalledName(line, called + RETURNED)  # `f(x)(y)`: what `f(x)` returns
    elif isinstance(function, ast.Attribute):
        base = function.value
        if isinstance(base, ast.Call) and _dotted(base.func) == "super":
            yield CalledName(line, SUPER_CALL + function.attr)
        else:
            for name in _alternatives(base, tables.registries):
                yield CalledName(line, f"{name}.{function.attr}")
    else:
        for name in _alternatives(function, tables.registries):
            yield CalledName(line, name)


def _returned_by(
    node: ast.expr, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The functions whose return value an argument is (`f()`, `REG[key]()`, a variable
    assigned one of these), where it is nothing else."""
    if isinstance(node, ast.Name):
        if node.id not in loops:
            return []
    elif not (isinstance(node, ast.Call) and not node.args and not node.keywords):
        return []
    found = _computed_strings(node, tables, loops) or ()
    marker = _MARK + RETURNED_BY + ":"
    if not all(name.startswith(marker) for name in found):
        return []
    return sorted(name.removeprefix(marker) for name in found)


def _decorators(decorators: list[ast.expr]) -> Iterator[CalledName]:
    """A decorator written as a name (`@f`, `@m.f`) is called with what it decorates; one
    written as a call (`@f(x)`) calls what that call returns."""
    for decorator in decorators:
        target = _dotted(decorator)
        if target is not None:
            yield CalledName(decorator.lineno, target)
        elif isinstance(decorator, ast.Call) and (called := _dotted(decorator.func)):
            yield CalledName(decorator.lineno, called + RETURNED)


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


Stored = tuple[object, ...]

# The cache stores a reading as nested tuples of strings and numbers (`marshal` writes those):
# these two functions are each other's inverse, and `from_tuples` refuses (ValueError)
# anything that `to_tuples` does not write.


def to_tuples(reading: CallReading) -> Stored:
    """Return the reading as tuples: a function is kept with its lines where it is read from them
    (`FunctionBodies`), read or not yet."""
    functions = reading.functions
    stored: Stored
    if isinstance(functions, FunctionBodies):
        stored = tuple(
            (
                name,
                bodies,
                function_to_tuple(functions.read[name]) if name in functions.read else None,
                tuple(tuple(call) for call in functions.decorated.get(name, ())),
            )
            for name, bodies in functions.bodies.items()
        )
        lazy = functions.lazy_annotations
        tables = tuple(_table_to_tuple(table) for table in functions.tables)
    else:
        stored = tuple(
            (name, None, function_to_tuple(function), ()) for name, function in functions.items()
        )
        lazy = False  # (every function is read)
        tables = ((),) * len(ModuleTables._fields)
    calls, bindings, classes, aliases = calls_to_tuples(reading)
    return calls, stored, bindings, lazy, tuple(sorted(reading.names)), classes, aliases, tables


def calls_to_tuples(reading: CallReading) -> tuple[Stored, Stored, Stored, Stored]:
    """Return a reading's calls at import time, the names its imports bind, its classes and
    the names it binds to functions or classes, as tuples."""
    return (
        tuple(tuple(call) for call in reading.calls),
        tuple(tuple(binding) for binding in reading.bindings),
        _table_to_tuple(reading.classes),
        _table_to_tuple(reading.aliases),
    )


def _table_to_tuple(table: Mapping[str, tuple[str, ...]]) -> Stored:
    return tuple(sorted(table.items()))


def _table_from_tuple(data: object) -> dict[str, tuple[str, ...]]:
    found = {}
    for item in _tuple(data):
        name, values = _tuple(item, 2)
        found[_str(name)] = tuple(_str(value) for value in _tuple(values))
    return found


def from_tuples(data: object, lines: Callable[[], list[str]], never_runs: NeverRuns) -> CallReading:
    """Return the reading `to_tuples` made; `lines` gives the file's lines, for the functions
    kept with their lines and not read yet.

    Raises ValueError where `data` does not have the shape `to_tuples` gives.
    """
    calls, functions, bindings, lazy, names, classes, aliases, tables = _tuple(data, 8)
    read: dict[str, Function] = {}
    bodies: dict[str, tuple[Body, ...]] = {}
    decorated: dict[str, tuple[CalledName, ...]] = {}
    for function in _tuple(functions):
        name, lines_of, stored, decorators = _tuple(function, 4)
        name = _str(name)
        if decorators:
            decorated[name] = _calls_from_tuples(decorators)
        if lines_of is not None:
            bodies[name] = tuple(_body(body) for body in _tuple(lines_of))
        if stored is not None:
            read[name] = _function_from_tuple(stored)
        elif lines_of is None:
            raise ValueError("a function neither read nor with its lines")
    if lazy is not None and type(lazy) is not bool:
        raise ValueError("not a boolean")
    module = ModuleTables._make(
        _table_from_tuple(table) for table in _tuple(tables, len(ModuleTables._fields))
    )
    return CallReading(
        _calls_from_tuples(calls),
        FunctionBodies(bodies, lines, never_runs, lazy, read, decorated, module)
        if bodies
        else read,
        _bindings_from_tuples(bindings),
        frozenset(_str(name) for name in _tuple(names)),
        _table_from_tuple(classes),
        _table_from_tuple(aliases),
    )


def _body(data: object) -> Body:
    first, second, third, fourth = _tuple(data, 4)
    return _int(first), _int(second), _int(third), _int(fourth)


def function_to_tuple(function: Function) -> Stored:
    """Return a function's reading as tuples (what `from_tuples` reads back)."""
    return (
        function.imports,
        tuple(tuple(call) for call in function.calls),
        tuple(tuple(binding) for binding in function.bindings),
        function.conditions,
        tuple(tuple(returned) for returned in function.returns),
    )


def _function_from_tuple(data: object) -> Function:
    imports, calls, bindings, conditions, returns = _tuple(data, 5)
    return Function(
        cast(tuple[int, ...], _tuple(imports)),
        _calls_from_tuples(calls),
        _bindings_from_tuples(bindings),
        tuple(_line_conditions(item) for item in _tuple(conditions)),
        _calls_from_tuples(returns),
    )


def _line_conditions(data: object) -> tuple[int, Conditions]:
    line, tests = _tuple(data, 2)
    return _int(line), _conditions(tests)


# The cache is sealed (`scope_cache`): what it holds was written by this version, and only
# its shape is checked here.


def _bindings_from_tuples(data: object) -> tuple[Binding, ...]:
    return tuple(Binding._make(_tuple(binding, 5)) for binding in _tuple(data))


def _calls_from_tuples(data: object) -> tuple[CalledName, ...]:
    found = []
    for call in _tuple(data):
        line, target, conditions = _tuple(call, 3)
        found.append(CalledName(_int(line), _str(target), _conditions(conditions)))
    return tuple(found)


def _conditions(data: object) -> Conditions:
    found = _tuple(data)
    if not all(is_condition(condition) for condition in found):
        raise ValueError("not a condition")
    return cast(Conditions, found)


def _tuple(value: object, length: int | None = None) -> Stored:
    if not isinstance(value, tuple) or (length is not None and len(value) != length):
        raise ValueError("not a tuple of the expected length")
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise ValueError("not an integer")
    return value


def _str(value: object) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value
