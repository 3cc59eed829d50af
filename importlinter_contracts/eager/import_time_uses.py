"""Whether the names an import statement binds are used while its module is imported.

A lazy import (PEP 810) loads its module at the first use of a name it binds: a use while
the module is imported loads it then, and deferring the import gains nothing. The uses are
read as the engine reads a lazy import's (`eager.lazy`): the expressions that run at import
time (the module body and its blocks, class bodies, decorators, default values, bases, and
the annotations that Python evaluates there), and the bodies of the file's own functions
that code calls at import time (`eager.calls`, as the engine resolves a call by name: `f()`,
`C.f()`, a decorator, and what those functions call in turn); and, more broadly than the
engine, as an edit must (`_MayRun`), what that code may run otherwise: a lambda it does not
bind to a name, a function or a lambda it names without calling it (`map(f, ...)`, `v()`
after `v = lambda: ...`), a method whose name it reads, a class's special methods where it
names the class (`C()`). Lazy imports exist from Python
3.15, which evaluates annotations only when asked for (PEP 649): the uses are those of the
target Python, raised to 3.15 where it is older (before, the import is eager anyway).

A use through another module (a function of this one that another calls at import time, a
name another module's code reads at import time) is not in the file: `fix --write` re-checks
the contracts, and the engine's walk follows those.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Collection, Iterator
from typing import NamedTuple

from ..errors import UnreadableSourceError
from .call_model import RETURNED, CallReading
from .calls import annotations_run, lazy_annotations, read_calls
from .conditions import Clause, own_statements, walk
from .lazy import bound_names, import_time_loads
from .parsing import parse, parse_error
from .target import Target, set_target, target_python

LAZY_FROM = (3, 15)


class ImportTimeUse(NamedTuple):
    """A use, while its module is imported, of a name an import statement binds: the file
    and line of the use, the name, and how the code that uses it runs then ("at module
    level", "in a decorator of f", "in f, called at import time at l.12")."""

    path: str
    line: int
    name: str
    how: str

    def __str__(self) -> str:
        return f"`{self.name}` is used at import time at {self.path}:{self.line} ({self.how})"


def lazy_target(target: Target) -> Target:
    """Return the Python on which an import of code that runs on `target` can be lazy:
    `target`, or 3.15 where it is older."""
    return target if target.lazy else target._replace(version=LAZY_FROM)


@contextlib.contextmanager
def reading_for(target: Target) -> Iterator[None]:
    """Read as `target` runs the code, within the block (the engine's readings are made for
    the process's target)."""
    before = target_python()
    set_target(target)
    try:
        yield
    finally:
        set_target(before)


def import_time_uses(
    path: str, source: bytes, lines: Collection[int], module: ast.Module | None = None
) -> dict[int, tuple[ImportTimeUse, ...]]:
    """Return, for each module-level import statement that starts on one of `lines`, the
    uses at import time of the names it binds (none: deferring it loads nothing then), on
    the target Python raised to 3.15; `module`: the file's syntax tree, where the caller
    has parsed it already.

    Raises UnreadableSourceError when the running Python cannot parse the file, or its
    reading cannot finish (an expression nested too deeply to walk).
    """
    if module is None:
        try:
            module = parse(source)
        except (SyntaxError, ValueError, RecursionError) as error:
            raise UnreadableSourceError(
                f"{path}: cannot be parsed by this Python ({error}), so the uses of its "
                "imports cannot be read"
            ) from None
    try:
        return _import_time_uses(path, source, lines, module)
    except RecursionError as error:
        raise UnreadableSourceError(f"{path}: {parse_error(error)}") from None


def _import_time_uses(
    path: str, source: bytes, lines: Collection[int], module: ast.Module
) -> dict[int, tuple[ImportTimeUse, ...]]:
    imports = [
        node
        for node in own_statements(module.body)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    text = source.decode("utf-8", "replace")
    with reading_for(lazy_target(target_python())):
        policy = lazy_annotations(module, text)
        loads = import_time_loads(module, lambda node: annotations_run(policy, node))
        # Every import taken as lazy, as the engine reads a lazy import's names: the call
        # reading then keeps, for each function, the imports whose names its body loads.
        # (Every `if` taken as one that may run: a call under `if TYPE_CHECKING:` counts.)
        lazy_names: dict[str, tuple[int, ...]] = {}
        for statement in imports:
            for name in bound_names(statement):
                if name not in loads:
                    lazy_names[name] = (*lazy_names.get(name, ()), statement.lineno)
        calls = read_calls(module, lambda test: False, text, lazy_names)
    definitions = _definitions(module)
    may_run = _MayRun(module)
    found: dict[int, tuple[ImportTimeUse, ...]] = {}
    for statement in imports:
        if statement.lineno not in lines:
            continue
        names = bound_names(statement)
        uses = [
            ImportTimeUse(path, line, name, how)
            for name in names
            for line, how in loads.get(name, ())
        ]
        uses += _called_uses(path, statement.lineno, names, calls, definitions)
        uses += [
            ImportTimeUse(path, line, name, how)
            for line, name, how in may_run.uses
            if name in names and (line, name) not in {(use.line, use.name) for use in uses}
        ]
        # (One use per line and name, the engine's reading first, then by line.)
        unique = {(use.line, use.name): use for use in reversed(uses)}
        found[statement.lineno] = tuple(sorted(unique.values(), key=lambda use: use.line))
    return found


def _definitions(module: ast.Module) -> dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The functions defined at import time, by the engine's keys (`f`, `C.f`)."""
    found: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node, key in _bindings(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.setdefault(key, []).append(node)
    return found


def _called_uses(
    path: str,
    line: int,
    names: list[str],
    calls: CallReading,
    definitions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]],
) -> list[ImportTimeUse]:
    """The uses of `names` (bound by the import on `line`) in the bodies of the file's
    functions that its code calls at import time, each with the call that runs it."""
    uses: list[ImportTimeUse] = []
    for call in calls.calls:
        reached: dict[str, None] = {}
        waiting = [call.target, call.target + RETURNED]
        while waiting:
            key = waiting.pop()
            function = calls.functions.get(key)
            if function is None or key in reached:
                continue
            reached[key] = None
            waiting += [c.target for c in function.calls]
            waiting += [c.target + RETURNED for c in function.calls]
        for key in reached:
            if line not in calls.functions[key].imports:
                continue
            for node in definitions.get(key.removesuffix(RETURNED), ()):
                for found in ast.walk(node):
                    if (
                        isinstance(found, ast.Name)
                        and isinstance(found.ctx, ast.Load)
                        and found.id in names
                    ):
                        called = key.removesuffix(RETURNED)
                        how = f"in {called}, called at import time at l.{call.line}"
                        uses.append(ImportTimeUse(path, found.lineno, found.id, how))
    return uses


_Callable = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


class _MayRun:
    """What import-time code may run beyond the calls the engine resolves, taken broadly, as
    an edit that defers an import must (a wrong deferral breaks the code, a missed one only
    keeps an import): a lambda that is not bound to a name where it stands (`(lambda:
    x)()`, `map(lambda _: x, ...)`), a function or a lambda of the file that such code
    names other than by calling it (`map(f, ...)`, `v = lambda: x` then `v()`), a method
    whose name it reads as an attribute (`C().m()`), and the special methods of a class it
    names (`C()` runs `__init__`); and so on, through what those run. `uses`: each name
    that code loads, by line, with how it runs."""

    def __init__(self, module: ast.Module) -> None:
        # By the name that reaches each: a function's (or a lambda's), a method's (as an
        # attribute), a special method's class.
        named: dict[str, list[tuple[_Callable, str]]] = {}
        methods: dict[str, list[tuple[_Callable, str]]] = {}
        specials: dict[str, list[tuple[_Callable, str]]] = {}
        for node, key in _bindings(module):
            owner, _, name = key.rpartition(".")
            if not owner:
                named.setdefault(name, []).append((node, key))
            elif name.startswith("__") and name.endswith("__"):
                specials.setdefault(owner.rpartition(".")[2], []).append((node, key))
            else:
                methods.setdefault(name, []).append((node, key))
        bound = {
            id(node)
            for table in (named, methods, specials)
            for each in table.values()
            for node, _ in each
        }
        ran: set[int] = set()
        waiting: list[ast.AST] = list(module.body)
        self.uses: list[tuple[int, str, str]] = []
        while waiting:
            names, attributes, anonymous = _read(waiting.pop(), bound)
            started: list[tuple[_Callable, str]] = [
                (node, f"in a lambda at l.{node.lineno}") for node in anonymous
            ]
            for name, line in names.items():
                started += [
                    (node, f"in {key}, which code run at import time names at l.{line}")
                    for node, key in named.get(name, [])
                ]
                started += [
                    (node, f"in {key}, whose class code run at import time names at l.{line}")
                    for node, key in specials.get(name, [])
                ]
            for name, line in attributes.items():
                started += [
                    (node, f"in {key}, whose name code run at import time reads at l.{line}")
                    for node, key in methods.get(name, [])
                ]
            for node, how in started:
                if id(node) in ran:
                    continue
                ran.add(id(node))
                body: ast.AST = (
                    node.body if isinstance(node, ast.Lambda) else ast.Module(node.body, [])
                )
                waiting.append(body)
                for each in ast.walk(body):
                    if isinstance(each, ast.Name) and isinstance(each.ctx, ast.Load):
                        self.uses.append((each.lineno, each.id, how))


def _bindings(module: ast.Module) -> Iterator[tuple[_Callable, str]]:
    """The functions defined at import time, and the lambdas assigned there to plain names,
    by the engine's keys (`f`, `C.f`)."""
    for node, prefix in walk(module.body, "", _class_prefix):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node, prefix + node.name
        elif (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Lambda)
            and all(isinstance(target, ast.Name) for target in node.targets)
        ):
            yield from (
                (node.value, prefix + t.id) for t in node.targets if isinstance(t, ast.Name)
            )


def _class_prefix(prefix: str, clause: Clause) -> str | None:
    """The prefix of the keys of what a clause's statements define: `C.` in class C's body;
    None for a def's (whose statements run when called)."""
    if clause.statement == "def":
        return None
    return f"{prefix}{clause.name}." if clause.statement == "class" else prefix


def _read(
    code: ast.AST, bound: set[int]
) -> tuple[dict[str, int], dict[str, int], list[ast.Lambda]]:
    """The names that `code` loads outside the bodies of its functions (each with its first
    line), the attributes it reads, and its lambdas but those of `bound` (assigned to a
    name, and run where that name is)."""
    names: dict[str, int] = {}
    attributes: dict[str, int] = {}
    anonymous: list[ast.Lambda] = []
    waiting = [code]
    while waiting:
        node = waiting.pop()
        if isinstance(node, ast.Lambda):
            if id(node) not in bound:
                anonymous.append(node)
            waiting += [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            # (Its body runs when called; what stands around it runs now.)
            arguments = node.args
            waiting += [*node.decorator_list, *arguments.defaults]
            waiting += [d for d in arguments.kw_defaults if d]
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.setdefault(node.id, node.lineno)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            attributes.setdefault(node.attr, node.lineno)
        waiting += list(ast.iter_child_nodes(node))
    return names, attributes, anonymous
