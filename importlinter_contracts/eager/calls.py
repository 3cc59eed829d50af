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
The records a reading is made of and the keys in them are `call_model`'s; what an expression
calls is read by `call_expressions`, what an import statement binds by `import_bindings`;
the cache keeps a reading as `call_storage` says.
"""

from __future__ import annotations

import ast
import functools
import operator
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from ..errors import UnreadableSourceError
from .call_expressions import (
    calls_in,
    computed_strings,
    decorator_calls,
    dotted_alternatives,
    dotted_name,
    iterated_alternatives,
    iterated_strings,
    leaves_function,
    parameter_strings,
    read_module_tables,
    split_prefix,
    strings_of,
    target_names,
)
from .call_model import (
    ARGUMENT,
    CLASS_CALL,
    GETATTR,
    RETURNED,
    STAR,
    Binding,
    Body,
    CalledName,
    CallReading,
    Function,
    ModuleTables,
    NeverRuns,
    Served,
    dynamic_import,
    getattr_key,
    is_getattr_key,
    lazy_key,
)
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
    match_subject,
    own_statements,
    undecided_test,
)
from .conditions import source_text as _source_text
from .import_bindings import (
    bindings_of,
    served_imports,
)
from .lazy import LazyNames
from .parsing import parse, parse_error
from .target import target_python


def _takes_argument(target: str) -> bool:
    """Whether a call's target is a dynamic import of a prefix of an argument (`ARGUMENT`)."""
    imported = dynamic_import(target)
    return imported is not None and imported.anchor == ARGUMENT


# What a function decorated `@staticmethod` calls for its decorator (`_decorated`).
_STATIC_DECORATOR = "staticmethod" + RETURNED


def _is_static(node: ast.FunctionDef) -> bool:
    """Whether a def is decorated `@staticmethod` (its first parameter is not the class or
    the object it is called through)."""
    return any(dotted_name(decorator) == "staticmethod" for decorator in node.decorator_list)


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
            found.append(CalledName(call.line, CLASS_CALL + rest, call.conditions))
            continue
        found.append(call)
        for alternative in aliases.get(head, ()):
            found.append(CalledName(call.line, alternative + dot + rest, call.conditions))
    return found


def _local_aliases(node: ast.FunctionDef, tables: ModuleTables) -> dict[str, list[str]]:
    """The names a function binds to one or more functions or classes (its own scope's): by
    assignment, or as a loop's variable over a registry of them."""
    found: dict[str, list[str]] = {}
    for statement in own_statements(node.body):
        if isinstance(statement, ast.Assign):
            names = dotted_alternatives(statement.value, tables.registries)
            for target in statement.targets:
                if isinstance(target, ast.Name) and names:
                    found.setdefault(target.id, []).extend(
                        name for name in names if name.partition(".")[0] != target.id
                    )
        elif isinstance(statement, ast.For | ast.AsyncFor):
            taken = iterated_alternatives(statement.target, statement.iter, tables)
            for name, alternatives in taken.items():
                found.setdefault(name, []).extend(alternatives)
    return found


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
        read_module_tables(module.body),
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
        served = served_imports(module.body, (lines, never_runs))
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
                    found.update(strings_of(side) or ())
                    if isinstance(side, ast.Name):
                        found.update(reader.tables.collections.get(side.id, ()))
        elif (subject := match_subject(inner)) is not None and _is_name(subject, parameter):
            for case in clauses(inner):
                if isinstance(case.test, ast.pattern):
                    found.update(_case_strings(case.test) or ())
    return found


def _is_name(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


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
                deleted |= target_names(target)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found |= {binding.name for binding in bindings_of(node) if binding.name != STAR}
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                found |= target_names(target)
        elif isinstance(node, ast.AugAssign) or (
            isinstance(node, ast.AnnAssign) and node.value is not None
        ):
            found |= target_names(node.target)
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
            for clause in clauses(node):
                _bound_in(clause.body, never_runs, deleted)  # (for what it deletes)
    return found


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
    for function in _defs(module):
        own = own_statements(function.body)
        names = {name for node in own if isinstance(node, ast.Global) for name in node.names}
        for node in own if names else ():
            if isinstance(node, ast.Delete):
                for target in node.targets:
                    deleted |= target_names(target) & names
            elif not isinstance(function, ast.FunctionDef):
                continue  # (an `async def` called only makes a coroutine)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                bindings.extend(b for b in bindings_of(node) if b.name in names)
            elif isinstance(node, ast.FunctionDef) and node.name in names:
                functions.setdefault(node.name, []).append(node)
    return tuple(bindings), functions, deleted


def _defs(module: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The defs of a module, at any depth, in the order `ast.walk` gives them: breadth first
    through the statements alone, which hold every def, not through their expressions."""
    waiting: deque[ast.AST] = deque([module])
    while waiting:
        node = waiting.popleft()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node
        for field in node._fields:
            if field in _BLOCK_FIELDS:
                waiting.extend(getattr(node, field))


# The fields of a statement that hold statements, or the clauses that hold them.
_BLOCK_FIELDS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})


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
    runs at import time is parsed (each body stands in as `pass`), and a function's body is
    read from its own lines when first asked for (`FunctionBodies`): the same reading, at a
    fraction of the cost for a file of many functions. Raises SyntaxError (or ValueError)
    where the file, so cut, does not parse. (A file whose functions may bind a module's name
    with `global` is read whole, as `read_calls` reads it.)
    """
    text = "\n".join(lines)
    if "global" in text and _may_declare_global(lines):
        return read_calls(parse(text), never_runs, text)
    kept = list(lines)
    for line, first, last, indent in bodies:
        if first <= last:
            kept[first - 1] = " " * (indent + 1) + "pass"
            kept[first:last] = [""] * (last - first)
            stub = _stub_def(lines[line - 1 : first - 1])
            if stub is not None:
                kept[line - 1] = stub
                kept[line : first - 1] = [""] * (first - 1 - line)
    module = parse("\n".join(kept))
    lazy = lazy_annotations(module, text)
    tables = read_module_tables(module.body)
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
    annotations call nothing (`_calls_nothing`); None for any other. Most headers are so, and
    `ast` reads a long one slowly, where only its calls count (its body is read from its own
    lines, `FunctionBodies`)."""
    text = "\n".join(header)
    found = _DEF_LINE.match(text)
    if found is None or not _calls_nothing(text):
        return None
    indent, is_async, name = found.groups()
    return f"{indent}{is_async or ''}def {name}():"


def _calls_nothing(header: str) -> bool:
    """Whether a def's header calls nothing: no string and no bracket but its parameters' own;
    or else, its strings and comments left out, no bracket but its parameters' own, no
    f-string or t-string, whose fields may call, no quote that starts no whole string, and its
    colon last: where the outline ends a header elsewhere, the header is kept, and the module,
    which then does not parse, is read whole."""
    if "'" not in header and '"' not in header:
        if header.count("(") == 1:
            return True
        if "#" not in header:
            return False
    code: list[str] = []
    start = 0
    for part in _STRING_OR_COMMENT.finditer(header):
        if part["quote"] or (part["string"] and _FORMATTED.search(_word_before(header, part))):
            return False
        code.append(header[start : part.start()])
        start = part.end()
    code.append(header[start:])
    left = "".join(code)
    return left.count("(") == 1 and left.rstrip().endswith(":")


def _word_before(text: str, part: re.Match[str]) -> str:
    """The word right before a string: its prefix, or a keyword as in `else"x"`."""
    end = start = part.start()
    while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:end]


# In a def's header: a comment; a string; a quote that starts no whole string.
_STRING_OR_COMMENT = re.compile(
    r"(?P<comment>#[^\n]*)|(?P<string>"
    + "|".join(
        (
            r"'''(?:[^'\\]|\\.|'(?!''))*'''",
            r'"""(?:[^"\\]|\\.|"(?!""))*"""',
            r"'(?:[^'\\\n]|\\.)*'",
            r'"(?:[^"\\\n]|\\.)*"',
        )
    )
    + r")|(?P<quote>['\"])",
    re.DOTALL,
)
# A prefix that makes a string an f-string or a PEP 750 t-string, or a word that may.
_FORMATTED = re.compile("[fFtT]")


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

    def _calls(self, nodes: Sequence[ast.AST]) -> Iterable[CalledName]:
        if not nodes:
            return ()
        return self._tested(calls_in(nodes, self.tables, self.loops, self._shown))

    def _shown(self, test: ast.expr) -> str:
        return _source_text(self.lines, test)

    def _tested(self, calls: Iterable[CalledName]) -> Iterable[CalledName]:
        """The calls, each with the tests it runs under: its statement's, then its own (an
        operand's, `calls_in`)."""
        conditions = self.conditions
        if not conditions:
            return calls
        return [
            CalledName(call.line, call.target, (*conditions, *call.conditions)) for call in calls
        ]

    def _bind_strings(self, node: ast.Assign) -> None:
        """Keep the strings a variable is assigned where the text spells them out
        (`module = _MODULES[name]`, `name = PREFIX + "x"`), which a dynamic import after it
        may use; forget those of one assigned anything else."""
        found = computed_strings(node.value, self.tables, self.loops)
        names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        unpacked = [t.elts for t in node.targets if isinstance(t, ast.Tuple | ast.List)]
        forgotten = [] if found else names
        if unpacked:
            # (`module, name = qualname.rsplit(".", 1)`: the first, a prefix of an argument.)
            forgotten = forgotten + [
                t.id for elements in unpacked for t in elements if isinstance(t, ast.Name)
            ]
            prefix = split_prefix(node.value, self.loops)
            first = unpacked[0][0] if len(unpacked) == 1 and unpacked[0] else None
            if prefix is not None and isinstance(first, ast.Name):
                forgotten.remove(first.id)
                self.loops = {**self.loops, first.id: (prefix,)}
        if found:
            self.loops = {**self.loops, **dict.fromkeys(names, tuple(sorted(found)))}
        if any(name in self.loops for name in forgotten):
            self.loops = {k: v for k, v in self.loops.items() if k not in forgotten}

    def _note(self, node: ast.stmt) -> None:
        """Keep what a statement of the module's own code (`module_level`) binds that calls
        may run: a class (with its bases), a name bound to functions or classes."""
        if isinstance(node, ast.ClassDef):
            key = ".".join([*self.class_path, node.name])
            self.classes.setdefault(key, []).extend(
                name
                for base in node.bases
                for name in dotted_alternatives(base, self.tables.registries)
            )
        elif isinstance(node, ast.Assign) and not self.class_path:
            names = dotted_alternatives(node.value, self.tables.registries)
            for target in node.targets:
                if isinstance(target, ast.Name) and names:
                    self.aliases.setdefault(target.id, []).extend(names)
        elif isinstance(node, ast.For | ast.AsyncFor) and not self.class_path:
            taken = iterated_alternatives(node.target, node.iter, self.tables)
            for name, alternatives in taken.items():
                self.aliases.setdefault(name, []).extend(alternatives)

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
            if self.module_level:
                self._note(node)
            if isinstance(node, ast.Import | ast.ImportFrom):
                bindings.extend(bindings_of(node))
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
                # Most defs read with the module have a header that calls nothing.
                if run:
                    calls.extend(self._calls(run))
                    calls.extend(self._tested(decorator_calls(node.decorator_list)))
                if functions is not None and isinstance(node, ast.FunctionDef):
                    functions.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                calls.extend(self._calls([*node.decorator_list, *node.bases, *node.keywords]))
                calls.extend(self._tested(decorator_calls(node.decorator_list)))
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
                # The test's text, which each of its blocks' tests holds, worked out once.
                test = undecided_test(node.test, self._shown, self.never_runs) if undecided else ""
                if decided is not False and not never:
                    if undecided:
                        self.conditions = (*around, (IF, test, node.lineno))
                    self.run(
                        node.body, calls, bindings, functions, imports, annotations=annotations
                    )
                self.conditions = around
                if decided is not True:
                    if undecided:
                        self.conditions = (*around, (ELSE, test, node.lineno))
                    self.run(
                        node.orelse, calls, bindings, functions, imports, annotations=annotations
                    )
                self.conditions = around
                taken = node.body if decided else node.orelse
                if decided is not None and taken and isinstance(taken[-1], ast.Return | ast.Raise):
                    return  # (the branch taken leaves the function: nothing after it runs)
                if undecided and leaves_function(node.body) and not leaves_function(node.orelse):
                    # What follows runs only where the test is false.
                    self.conditions = (*around, (UNLESS, test, node.lineno))
                elif undecided and leaves_function(node.orelse) and not leaves_function(node.body):
                    self.conditions = (*around, (IF, test, node.lineno))
            elif isinstance(node, ast.For) and (
                taken_by := iterated_strings(node.target, node.iter, self.tables, self.loops)
            ):
                # (Its variables take the strings of the collection: a dynamic import in its
                # body may name them.)
                calls.extend(self._calls(_expressions(node)))
                outer = self.loops
                self.loops = {**outer, **taken_by}
                for clause in clauses(node):
                    self.run(
                        clause.body, calls, bindings, functions, imports, annotations=annotations
                    )
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
                    self.conditions = (
                        *around,
                        *clause_conditions(clause, self.lines, self.never_runs),
                    )
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
            own = own_statements(node.body)
            defined: dict[str, list[ast.FunctionDef]] = {}
            for statement in own:
                if isinstance(statement, ast.FunctionDef):
                    defined.setdefault(statement.name, []).append(statement)
                elif isinstance(statement, ast.Import | ast.ImportFrom):
                    bindings.extend(bindings_of(statement))
            for statement in own:
                if isinstance(statement, ast.Return) and statement.value is not None:
                    target = dotted_name(statement.value)
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
        strings = strings_of(right)
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
            outer, self.loops = self.loops, parameter_strings(node)
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
            body_calls = _through_method(body_calls, first, _local_aliases(node, self.tables))
            body_calls.extend(_decorated(node))
            ran: set[str] = set()
            while (waiting := own.keys() - ran) and (
                called := [c for c in body_calls if c.target in waiting]
            ):
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
            callees = dotted_alternatives(value.func, reader.tables.registries)
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
    if not leaves_function(node.body):
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
        if (name := dotted_name(decorator))
    ]


def _in_order(calls: list[CalledName]) -> tuple[CalledName, ...]:
    # Each call once, the first found: a set would give the calls of one name on one line
    # (under different tests) in the order of their strings' hashes, which differs per run.
    return tuple(sorted(dict.fromkeys(calls), key=_LINE_AND_TARGET))


_LINE_AND_TARGET = operator.itemgetter(0, 1)


# Of the statements met most often, the fields that hold their expressions, in their order,
# an operator's left out as it calls nothing: `_expressions` reads them straight.
_EXPRESSION_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Expr: ("value",),
    ast.Assign: ("targets", "value"),
    ast.AugAssign: ("target", "value"),
    ast.AnnAssign: ("target", "annotation", "value"),
    ast.Return: ("value",),
    ast.Delete: ("targets",),
    ast.Raise: ("exc", "cause"),
    ast.Assert: ("test", "msg"),
    ast.For: ("target", "iter"),
    ast.AsyncFor: ("target", "iter"),
    ast.While: ("test",),
    ast.Pass: (),
    ast.Break: (),
    ast.Continue: (),
    ast.Global: (),
    ast.Nonlocal: (),
}


def _expressions(node: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that are not blocks of statements."""
    found: list[ast.AST] = []
    fields = _EXPRESSION_FIELDS.get(type(node))
    if fields is not None:
        for name in fields:
            value = getattr(node, name)
            if type(value) is list:
                found += value
            elif value is not None:
                found.append(value)
        return found
    for field, value in ast.iter_fields(node):
        if field in _BLOCK_FIELDS:
            continue
        if isinstance(value, list):
            found += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST):
            found.append(value)
    for handler in getattr(node, "handlers", []):
        if handler.type is not None:
            found.append(handler.type)
    for case in getattr(node, "cases", []):
        if case.guard is not None:
            found.append(case.guard)
    return found
