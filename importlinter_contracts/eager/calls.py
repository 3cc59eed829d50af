"""Which functions a module calls while it is imported, and what those functions import and
call in turn: read from the file's syntax tree, never by running it.

Code that runs at import time (the module body and its if/try/with/for/while/match blocks,
class bodies, decorators, default argument values, class bases) may call a function; that
function's body then runs at import time too, its imports included. This module records, per
file, the calls made at import time, each function defined at import time with the imports
and calls of its body, and the names that import statements bind, so that `walk` can resolve
a call (`f()`, `m.f()`, `n.f()` after `import m as n`, `f()` after `from m import f`) to the
function it runs. Calls of anything else (methods, attributes of objects, functions passed
around) are not resolved.

Only `ast` reads calls; a file that the running Python cannot parse has no call reading.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Binding:
    """A name an import statement binds: `import a.b` binds `a` to module `a`; `import a.b
    as n` binds `n` to `a.b`; `from m import y as z` binds `z` to `y` of `m` (a submodule
    or an attribute), `m` relative by `level` dots."""

    name: str
    module: str
    level: int = 0
    attribute: str | None = None


@dataclass(frozen=True)
class Call:
    """A call of a dotted name (`f`, `m.f`, `a.b.f`) on a line."""

    line: int
    target: str


@dataclass(frozen=True)
class Function:
    """What calling a module-level function runs: the import statements of its body (by
    line), its calls, and the names its own imports bind."""

    imports: tuple[int, ...]
    calls: tuple[Call, ...]
    bindings: tuple[Binding, ...]


@dataclass(frozen=True)
class CallReading:
    """A file's calls at import time, its functions, and the names its import-time imports
    bind."""

    calls: tuple[Call, ...]
    functions: dict[str, Function]
    bindings: tuple[Binding, ...]


# Decides whether an `if` body never runs on import (TYPE_CHECKING, main guard, False, 0).
NeverRuns = Callable[[ast.expr], bool]


def read_calls(module: ast.Module, never_runs: NeverRuns) -> CallReading:
    """The call reading of a parsed file."""
    reader = _Reader(never_runs)
    calls: list[Call] = []
    bindings: list[Binding] = []
    reader.run(module.body, calls, bindings, reader.functions)
    return CallReading(_in_order(calls), reader.functions, tuple(bindings))


class _Reader:
    def __init__(self, never_runs: NeverRuns) -> None:
        self.never_runs = never_runs
        self.functions: dict[str, Function] = {}

    def run(
        self,
        statements: list[ast.stmt],
        calls: list[Call],
        bindings: list[Binding],
        functions: dict[str, Function] | None,
        imports: list[int] | None = None,
    ) -> None:
        """Record what `statements` do when they run: their calls, the names their imports
        bind, the lines of their imports (`imports`, inside a function), and (`functions`, at
        import time) the functions they define."""
        for node in statements:
            if isinstance(node, ast.Import | ast.ImportFrom):
                bindings.extend(_bindings(node))
                if imports is not None:
                    imports.append(node.lineno)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # Decorators and defaults run where the def stands; the body when called.
                # Calling an async def only makes a coroutine: its body is not followed.
                arguments = node.args
                defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]
                calls.extend(_calls([*node.decorator_list, *defaults]))
                calls.extend(_decorators(node.decorator_list))
                if functions is not None and isinstance(node, ast.FunctionDef):
                    functions[node.name] = self.function(node)
            elif isinstance(node, ast.ClassDef):
                calls.extend(_calls([*node.decorator_list, *node.bases, *node.keywords]))
                calls.extend(_decorators(node.decorator_list))
                # A class body runs where it stands (what its imports bind are attributes of
                # the class); its methods run only when called.
                self.run(node.body, calls, [], None, imports)
            elif isinstance(node, ast.If):
                calls.extend(_calls([node.test]))
                if not self.never_runs(node.test):
                    self.run(node.body, calls, bindings, functions, imports)
                self.run(node.orelse, calls, bindings, functions, imports)
            else:
                calls.extend(_calls(_expressions(node)))
                for block in _blocks(node):
                    self.run(block, calls, bindings, functions, imports)

    def function(self, node: ast.FunctionDef) -> Function:
        calls: list[Call] = []
        bindings: list[Binding] = []
        imports: list[int] = []
        self.run(node.body, calls, bindings, None, imports)
        return Function(tuple(imports), _in_order(calls), tuple(bindings))


def _in_order(calls: list[Call]) -> tuple[Call, ...]:
    return tuple(sorted(set(calls), key=lambda call: (call.line, call.target)))


def _bindings(node: ast.Import | ast.ImportFrom) -> Iterator[Binding]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield Binding(alias.asname, alias.name)
            else:
                top = alias.name.partition(".")[0]
                yield Binding(top, top)
    else:
        for alias in node.names:
            if alias.name != "*":
                yield Binding(alias.asname or alias.name, node.module or "", node.level, alias.name)


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


def _blocks(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The blocks of statements of a compound statement that is not a def, class or if."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block
    for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
        yield clause.body


def _calls(nodes: Iterable[ast.AST]) -> Iterator[Call]:
    """Every call of a dotted name in these expressions, except in a lambda's body (which
    runs only when called)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Lambda):
            stack.extend([*node.args.defaults, *(d for d in node.args.kw_defaults if d)])
            continue
        if isinstance(node, ast.Call):
            target = _dotted(node.func)
            if target is not None:
                yield Call(node.lineno, target)
        stack.extend(ast.iter_child_nodes(node))


def _decorators(decorators: list[ast.expr]) -> Iterator[Call]:
    """A decorator written as a name (`@f`, `@m.f`) is called with what it decorates."""
    for decorator in decorators:
        target = _dotted(decorator)
        if target is not None:
            yield Call(decorator.lineno, target)


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


# The cache stores a reading as JSON: these two functions are each other's inverse, and
# `from_json` refuses (ValueError) anything that `to_json` does not write.


def to_json(reading: CallReading) -> dict[str, object]:
    return {
        "calls": [[call.line, call.target] for call in reading.calls],
        "functions": {
            name: [
                list(function.imports),
                [[call.line, call.target] for call in function.calls],
                [_binding_to_json(binding) for binding in function.bindings],
            ]
            for name, function in reading.functions.items()
        },
        "bindings": [_binding_to_json(binding) for binding in reading.bindings],
    }


def from_json(data: object) -> CallReading:
    record = _mapping(data)
    if set(record) != {"calls", "functions", "bindings"}:
        raise ValueError("not a call reading")
    functions = {}
    for name, value in _mapping(record["functions"]).items():
        imports, calls, bindings = _list(value, 3)
        functions[_str(name)] = Function(
            tuple(_int(line) for line in _list(imports)),
            _calls_from_json(calls),
            tuple(_binding_from_json(binding) for binding in _list(bindings)),
        )
    return CallReading(
        _calls_from_json(record["calls"]),
        functions,
        tuple(_binding_from_json(binding) for binding in _list(record["bindings"])),
    )


def _binding_to_json(binding: Binding) -> list[object]:
    return [binding.name, binding.module, binding.level, binding.attribute]


def _binding_from_json(data: object) -> Binding:
    name, module, level, attribute = _list(data, 4)
    return Binding(
        _str(name), _str(module), _int(level), None if attribute is None else _str(attribute)
    )


def _calls_from_json(data: object) -> tuple[Call, ...]:
    calls = []
    for item in _list(data):
        line, target = _list(item, 2)
        calls.append(Call(_int(line), _str(target)))
    return tuple(calls)


def _mapping(value: object) -> dict[object, object]:
    if not isinstance(value, dict):
        raise ValueError("not a mapping")
    return value


def _list(value: object, length: int | None = None) -> list[object]:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        raise ValueError("not a list of the expected length")
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise ValueError("not an integer")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError("not a string")
    return value
