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
import tokenize
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Literal, NamedTuple, cast, overload

from ..errors import UnreadableSourceError

# Named tuples: a reading kept in the cache is made of thousands of them.


class Binding(NamedTuple):
    """A name an import statement binds: `import a.b` binds `a` to module `a`; `import a.b
    as n` binds `n` to `a.b`; `from m import y as z` binds `z` to `y` of `m` (a submodule
    or an attribute), `m` relative by `level` dots."""

    name: str
    module: str
    level: int = 0
    attribute: str | None = None


class Call(NamedTuple):
    """A call of a dotted name (`f`, `m.f`, `a.b.f`) on a line."""

    line: int
    target: str


class Function(NamedTuple):
    """What calling a module-level function runs: the import statements of its body (by
    line), its calls, and the names its own imports bind."""

    imports: tuple[int, ...]
    calls: tuple[Call, ...]
    bindings: tuple[Binding, ...]


class CallReading(NamedTuple):
    """A file's calls at import time, its functions, and the names its import-time imports
    bind."""

    calls: tuple[Call, ...]
    functions: Mapping[str, Function]
    bindings: tuple[Binding, ...]


# Decides whether an `if` body never runs on import (TYPE_CHECKING, main guard, False, 0).
NeverRuns = Callable[[ast.expr], bool]

# A function's lines: its def's, the first and last of its body (the first after the last
# when the body is on the def's line), and the def's indentation.
Body = tuple[int, int, int, int]


def read_calls(module: ast.Module, never_runs: NeverRuns) -> CallReading:
    """The call reading of a parsed file."""
    reader = _Reader(never_runs)
    calls, defined, bindings = reader.read(module)
    functions = {name: reader.function(node) for name, node in defined.items()}
    return CallReading(calls, functions, bindings)


def read_calls_outlined(
    lines: list[str], bodies: Sequence[Body], never_runs: NeverRuns
) -> CallReading:
    """The call reading of a file whose functions' `bodies` are known: only the code that
    runs at import time is parsed (each body stands in as `...`), and a function's body is
    read from its own lines when first asked for (`FunctionBodies`): the same reading, at a
    fraction of the cost for a file of many functions. Raises SyntaxError (or ValueError)
    where the file, so cut, does not parse.
    """
    kept = list(lines)
    for _, first, last, indent in bodies:
        if first <= last:
            kept[first - 1] = " " * (indent + 1) + "..."
            kept[first:last] = [""] * (last - first)
    calls, defined, bindings = _Reader(never_runs).read(parse("\n".join(kept)))
    by_line = {body[0]: body for body in bodies}
    functions = FunctionBodies(
        {name: by_line[node.lineno] for name, node in defined.items()},
        lambda: lines,
        never_runs,
    )
    return CallReading(calls, functions, bindings)


class FunctionBodies(Mapping[str, Function]):
    """A file's functions defined at import time, each read (with `ast`) from its own lines
    when first asked for."""

    def __init__(
        self,
        bodies: dict[str, Body],
        lines: Callable[[], list[str]],
        never_runs: NeverRuns,
        read: dict[str, Function] | None = None,
    ) -> None:
        self.bodies = bodies
        self.read = read if read is not None else {}
        self._lines = lines
        self._never_runs = never_runs

    def __getitem__(self, name: str) -> Function:
        found = self.read.get(name)
        if found is None:
            lines = self._lines()
            try:
                found = _function_of(lines, self.bodies[name], self._never_runs)
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
                reader = _Reader(self._never_runs)
                _, defined, _ = reader.read(tree)
                self.read.update((key, reader.function(node)) for key, node in defined.items())
                found = self.read[name]
            self.read[name] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.bodies)

    def __len__(self) -> int:
        return len(self.bodies)

    def __contains__(self, name: object) -> bool:
        return name in self.bodies


@overload
def parse(source: str | bytes) -> ast.Module: ...
@overload
def parse(source: str | bytes, mode: Literal["eval"]) -> ast.Expression: ...
def parse(source: str | bytes, mode: str = "exec") -> ast.AST:
    """`ast.parse`, without the warnings Python gives about the code it reads (an invalid
    escape sequence, say): they are Python's to give when it runs that code, and here they
    would only print `<unknown>:1: SyntaxWarning` in the middle of a linter's report."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source, mode=mode)


def parse_error(error: Exception) -> str:
    """What stopped `ast` or the tokenizer reading a file, in a few words, with its line."""
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}"
    if isinstance(error, RecursionError):
        return "an expression nested too deeply"
    if isinstance(error, tokenize.TokenError):
        message, (line, _) = error.args
        return f"line {line}: {message}"
    return str(error)


def _function_of(lines: list[str], body: Body, never_runs: NeverRuns) -> Function:
    """A function read from its own lines (put where they stand, so that `ast` numbers them
    as in the file; one at an indentation in a block that runs `if 1:`)."""
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
    return _Reader(never_runs).function(parsed)


class _Reader:
    def __init__(self, never_runs: NeverRuns) -> None:
        self.never_runs = never_runs

    def read(
        self, module: ast.Module
    ) -> tuple[tuple[Call, ...], dict[str, ast.FunctionDef], tuple[Binding, ...]]:
        """A module's calls at import time, the functions it defines then and the names its
        imports bind then."""
        calls: list[Call] = []
        bindings: list[Binding] = []
        functions: dict[str, ast.FunctionDef] = {}
        self.run(module.body, calls, bindings, functions)
        return _in_order(calls), functions, tuple(bindings)

    def run(
        self,
        statements: list[ast.stmt],
        calls: list[Call],
        bindings: list[Binding],
        functions: dict[str, ast.FunctionDef] | None,
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
                    functions[node.name] = node
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


Stored = tuple[object, ...]

# The cache stores a reading as nested tuples of strings and numbers (`marshal` writes those):
# these two functions are each other's inverse, and `from_tuples` refuses (ValueError)
# anything that `to_tuples` does not write.


def to_tuples(reading: CallReading) -> Stored:
    """The reading as tuples: a function is kept with its lines where it is read from them
    (`FunctionBodies`), read or not yet."""
    functions = reading.functions
    stored: Stored
    if isinstance(functions, FunctionBodies):
        stored = tuple(
            (
                name,
                body,
                function_to_tuple(functions.read[name]) if name in functions.read else None,
            )
            for name, body in functions.bodies.items()
        )
    else:
        stored = tuple(
            (name, None, function_to_tuple(function)) for name, function in functions.items()
        )
    calls, bindings = calls_to_tuples(reading)
    return calls, stored, bindings


def calls_to_tuples(reading: CallReading) -> tuple[Stored, Stored]:
    """A reading's calls at import time, and the names its imports bind, as tuples."""
    return (
        tuple(tuple(call) for call in reading.calls),
        tuple(tuple(binding) for binding in reading.bindings),
    )


def from_tuples(data: object, lines: Callable[[], list[str]], never_runs: NeverRuns) -> CallReading:
    """The reading `to_tuples` made; `lines` gives the file's lines, for the functions kept
    with their lines and not read yet."""
    calls, functions, bindings = _tuple(data, 3)
    read: dict[str, Function] = {}
    bodies: dict[str, Body] = {}
    for function in _tuple(functions):
        name, body, stored = _tuple(function, 3)
        name = _str(name)
        if body is not None:
            first, second, third, fourth = _tuple(body, 4)
            bodies[name] = (_int(first), _int(second), _int(third), _int(fourth))
        if stored is not None:
            read[name] = _function_from_tuple(stored)
        elif body is None:
            raise ValueError("a function neither read nor with its lines")
    return CallReading(
        _calls_from_tuples(calls),
        FunctionBodies(bodies, lines, never_runs, read) if bodies else read,
        _bindings_from_tuples(bindings),
    )


def function_to_tuple(function: Function) -> Stored:
    return (
        function.imports,
        tuple(tuple(call) for call in function.calls),
        tuple(tuple(binding) for binding in function.bindings),
    )


def _function_from_tuple(data: object) -> Function:
    imports, calls, bindings = _tuple(data, 3)
    return Function(
        cast(tuple[int, ...], _tuple(imports)),
        _calls_from_tuples(calls),
        _bindings_from_tuples(bindings),
    )


# The cache is sealed (`scope_cache`): what it holds was written by this version, and only
# its shape is checked here.


def _bindings_from_tuples(data: object) -> tuple[Binding, ...]:
    return tuple(Binding._make(_tuple(binding, 4)) for binding in _tuple(data))


def _calls_from_tuples(data: object) -> tuple[Call, ...]:
    return tuple(Call._make(_tuple(call, 2)) for call in _tuple(data))


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
