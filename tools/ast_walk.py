"""An independent reading of a tree with Python's own `ast`: what a hand-written boundary test
does. The tests use it as their oracle, and the benchmark as its baseline:

    python tools/ast_walk.py TREE     # parse every file of TREE/vllm_omni, answer R2 and R4

It shares no code with the package: it parses files, resolves each import statement to the
module it loads, follows the functions that code running at import time calls, and answers
the rules directly.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# The Python the analysed code runs on (`analyse_for`): from 3.14 annotations run only when
# asked for (PEP 649), from 3.15 imports may be lazy (PEP 810).
TARGET = {"version": sys.version_info[:2], "lazy_imports": "normal"}


def analyse_for(version: tuple[int, int], lazy_imports: str = "normal") -> None:
    """Read every file as the Python `version` runs it, in the global lazy-imports mode."""
    TARGET.update(version=version, lazy_imports=lazy_imports)
    _read.cache_clear()
    _read_calls.cache_clear()


_ASKS = re.compile(
    r"\b(?:__annotations__|__annotate__|get_annotations|get_type_hints|annotationlib|signature)\b"
)


def _annotations_rule(module: ast.Module, text: bytes) -> Callable[[ast.AST], bool]:
    """Whether a def's, a class body's or the module's annotations are evaluated: never
    under `from __future__ import annotations`; always before 3.14 or where the file names a
    way to ask for them; from 3.14, for a decorated def and a class with a decorator, a base
    or a keyword (which may ask), taken loosely."""
    if any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and "annotations" in [alias.name for alias in node.names]
        for node in module.body
    ):
        return lambda node: False
    if TARGET["version"] < (3, 14) or _ASKS.search(text.decode("utf-8", "replace")):
        return lambda node: True

    def asked(node: ast.AST) -> bool:
        if isinstance(node, ast.ClassDef):
            return bool(node.decorator_list or node.bases or node.keywords)
        return isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and bool(
            node.decorator_list
        )

    return asked


def _names_bound(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {
        a.asname or (a.name.split(".")[0] if isinstance(node, ast.Import) else a.name)
        for a in node.names
    }


def _lazy(module: ast.Module, text: bytes) -> dict[int, set[str]]:
    """For Python 3.15: the lazy import statements (by line) that nothing at import time
    uses, with the names they bind. Lazy: `lazy import`, a module `__lazy_modules__` lists
    (a literal), or any under `lazy_imports = all`; only at module level outside `try`, and
    not a star import. A lazy import whose name a load at import time (outside function and
    lambda bodies, in annotations only where evaluated) uses runs then. After
    `set_lazy_imports_filter`, none is lazy."""
    if TARGET["version"] < (3, 15) or (TARGET["lazy_imports"] == "normal" and b"lazy" not in text):
        return {}
    lazy: dict[int, tuple[ast.AST, set[str]]] = {}
    listed: set[str] | None = None
    filtered = False

    def visit(body: list[ast.stmt], in_try: bool) -> None:
        nonlocal listed, filtered
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                if filtered or in_try or any(a.name == "*" for a in node.names):
                    continue
                if isinstance(node, ast.Import):
                    keys = [a.name for a in node.names]
                else:
                    keys = [node.module] if node.module and not node.level else []
                if (
                    getattr(node, "is_lazy", 0)
                    or TARGET["lazy_imports"] == "all"
                    or (listed is not None and keys and set(keys) <= listed)
                ):
                    lazy[node.lineno] = (node, _names_bound(node))
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if "set_lazy_imports_filter" in ast.unparse(node):
                filtered = True
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__lazy_modules__" for t in node.targets
            ):
                value = node.value
                ok = isinstance(value, ast.List | ast.Tuple | ast.Set) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
                )
                listed = {e.value for e in value.elts} if ok else None  # type: ignore[attr-defined]
            in_block = in_try or isinstance(node, ast.Try | ast.TryStar)
            for field in ("body", "orelse", "finalbody"):
                if not isinstance(node, ast.With | ast.AsyncWith) or field == "body":
                    visit(getattr(node, field, []), in_block)
            for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
                visit(clause.body, in_block)

    visit(module.body, False)
    if not lazy:
        return {}
    evaluated = _annotations_rule(module, text)
    loads: set[str] = set()

    def load(node: ast.AST | None) -> None:
        if node is None:
            return
        pending = [node]
        while pending:
            part = pending.pop()
            if isinstance(part, ast.Lambda):
                pending += [d for d in [*part.args.defaults, *part.args.kw_defaults] if d]
                continue
            if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
                loads.add(part.id)
            pending += list(ast.iter_child_nodes(part))

    def run(body: list[ast.stmt], annotations: bool) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                a = node.args
                for part in [*node.decorator_list, *a.defaults, *a.kw_defaults]:
                    load(part)
                if evaluated(node):
                    arguments = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                    for x in arguments:
                        load(x.annotation if x else None)
                    load(node.returns)
            elif isinstance(node, ast.ClassDef):
                for part in [*node.decorator_list, *node.bases, *node.keywords]:
                    load(part)
                run(node.body, evaluated(node))
            elif isinstance(node, ast.AnnAssign):
                load(node.target)
                load(node.value)
                if annotations:
                    load(node.annotation)
            else:
                for _field, value in ast.iter_fields(node):
                    for part in value if isinstance(value, list) else [value]:
                        if isinstance(part, ast.stmt):
                            run([part], annotations)
                        elif isinstance(part, ast.ExceptHandler | ast.match_case):
                            if isinstance(part, ast.ExceptHandler):
                                load(part.type)
                            else:
                                load(part.guard)
                                load(part.pattern)
                            run(part.body, annotations)
                        elif isinstance(part, ast.AST):
                            load(part)

    run(module.body, evaluated(module))
    return {line: names for line, (_, names) in lazy.items() if not names & loads}


@dataclass(frozen=True)
class ImportStatement:
    """What one import statement names, where it stands, and whether it runs when imported."""

    line: int
    type_checking: bool
    eager: bool
    module: str | None  # `from MODULE import ...`; None for `import a, b`
    level: int
    names: tuple[str, ...]
    asnames: tuple[str | None, ...] = ()
    scope: str = ""  # "C." for a statement of class C's body: it binds C.name too


def _statement(node: _Import, type_checking: bool = False, eager: bool = True) -> ImportStatement:
    return ImportStatement(
        node.lineno,
        type_checking,
        eager,
        node.module if isinstance(node, ast.ImportFrom) else None,
        node.level if isinstance(node, ast.ImportFrom) else 0,
        tuple(alias.name for alias in node.names),
        tuple(alias.asname for alias in node.names),
    )


@cache
def _read(path: Path, mtime_ns: int, size: int) -> tuple[ImportStatement, ...]:
    # Only what is needed is kept: holding every syntax tree would slow the garbage collector.
    text = path.read_bytes()
    module = ast.parse(text, str(path))
    unused = _lazy(module, text)
    return tuple(
        _statement(node, type_checking, eager and node.lineno not in unused)
        for node, type_checking, eager in _imports(module)
    )


def statements(path: Path) -> tuple[ImportStatement, ...]:
    """The file's import statements, read once for as long as the file is unchanged."""
    stat = path.stat()
    return _read(path, stat.st_mtime_ns, stat.st_size)


def modules_of(tree: Path, top: str) -> dict[str, Path]:
    found = {}
    for path in (tree / top).rglob("*.py"):
        parts = list(path.relative_to(tree).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _type_checking_aliases(module: ast.Module) -> set[str]:
    """Names bound by `from typing import TYPE_CHECKING as NAME` anywhere in the file."""
    return {
        alias.asname
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.module in ("typing", "typing_extensions")
        for alias in node.names
        if alias.name == "TYPE_CHECKING" and alias.asname
    }


def _never_runs(test: ast.expr, aliases: set[str]) -> bool:
    """An `if` test that is false whenever the module is imported: an `or` of such tests, or
    `TYPE_CHECKING` and the main guard, an `and` with one of them."""
    if isinstance(test, ast.BoolOp):
        found = [
            _is_type_checking(value) or _is_main_guard(value) or _never_runs(value, aliases)
            for value in test.values
        ]
        return all(found) if isinstance(test.op, ast.Or) else any(found)
    if isinstance(test, ast.Name) and test.id in aliases:
        return True
    return isinstance(test, ast.Constant) and type(test.value) in (bool, int) and not test.value


_Import = ast.Import | ast.ImportFrom


def _is_main_guard(test: ast.expr) -> bool:
    if not isinstance(test, ast.Compare) or len(test.comparators) != 1:
        return False
    pair = {ast.unparse(test.left), ast.unparse(test.comparators[0])}
    return isinstance(test.ops[0], ast.Eq) and pair in (
        {"__name__", "'__main__'"},
        {"__name__", '"__main__"'},
    )


def _imports(module: ast.Module) -> list[tuple[_Import, bool, bool]]:
    """Each import statement, with whether it sits under `if TYPE_CHECKING:` and whether it
    runs at import time. Only statements are visited: expressions hold no import statement."""
    found: list[tuple[_Import, bool, bool]] = []
    aliases = _type_checking_aliases(module)

    def visit(statements: list[ast.stmt], type_checking: bool, eager: bool) -> None:
        for node in statements:
            if isinstance(node, _Import):
                found.append((node, type_checking, eager))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(node.body, type_checking, False)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.body, True, False)
                visit(node.orelse, type_checking, eager)
            elif isinstance(node, ast.If) and (
                _is_main_guard(node.test) or _never_runs(node.test, aliases)
            ):
                visit(node.body, type_checking, False)  # runs as a script, not on import
                visit(node.orelse, type_checking, eager)
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []), type_checking, eager)
                for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
                    visit(clause.body, type_checking, eager)

    visit(module.body, False, True)
    return found


def imported_modules(
    node: ImportStatement, importer: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The modules of the tree an import statement names, as Python would resolve them."""

    def existing(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    targets: set[str | None] = set()
    if node.module is None and not node.level:
        targets = {existing(name) for name in node.names}
    else:
        if node.level:
            base_parts = importer.split(".")
            if not is_package:
                base_parts.pop()
            base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        for name in node.names:
            candidate = f"{base}.{name}"
            targets.add(candidate if candidate in modules else existing(base))
    return {t for t in targets if t}


def backend_imports(
    tree: Path,
    container: str,
    marker: str = "platform",
    backends: str | set[str] | None = None,
    neutral: frozenset[str] = frozenset(),
) -> set[tuple[str, str, int]]:
    """(importer, imported, line) of every import of a backend from outside any backend (R2),
    with TYPE_CHECKING blocks skipped.

    The backends are the children of `container` named in `backends` ("*" for every child),
    or by default every child package with a `marker` module; never a child in `neutral`.
    """
    modules = modules_of(tree, container.split(".")[0])
    names = set(modules)
    children = {m.rpartition(".")[2] for m in names if m.rpartition(".")[0] == container}
    if backends == "*":
        chosen = children - neutral
    elif backends is not None:
        chosen = set(backends)
    else:
        chosen = {c for c in children - neutral if f"{container}.{c}.{marker}" in names}
    packages = {f"{container}.{c}" for c in chosen}
    found = set()
    for importer, path in modules.items():
        if _inside(importer, packages):
            continue  # a backend's code may import another backend (cross_backend_imports)
        for node in statements(path):
            if node.type_checking:
                continue
            for imported in imported_modules(node, importer, path.name == "__init__.py", names):
                if _inside(imported, packages):
                    found.add((importer, imported, node.line))
    return found


def eager_import_lines(path: Path) -> dict[int, bool]:
    """Line of each import statement -> whether it runs at import time."""
    found: dict[int, bool] = {}
    for node in statements(path):
        found[node.line] = found.get(node.line, False) or node.eager
    return found


def _eager_targets(modules: dict[str, Path], module: str) -> set[str]:
    """The modules an import statement of `module` that runs at import time names."""
    path = modules[module]
    found = set()
    for node in statements(path):
        if not node.type_checking and node.eager:
            found |= imported_modules(node, module, path.name == "__init__.py", set(modules))
    return found


# Calls at import time: a function called while a module is imported runs its body then, and
# the imports in it. Resolved: `f()` of the module's own def, names bound by its imports
# (`m.f()`, `n.f()`, `f()` after `from m import f`), through `from` re-exports; not methods or
# anything else. A lambda's body runs only when called; so does an async def's.


@dataclass(frozen=True)
class FileCalls:
    at_import: tuple[str, ...]  # the dotted names called while the module is imported
    bindings: tuple[ImportStatement, ...]  # the imports that bind its module-level names
    functions: dict[str, tuple[tuple[ImportStatement, ...], tuple[str, ...]]]  # def: body's
    names: frozenset[str]  # every name its code binds at import time
    run_imports: tuple[ImportStatement, ...]  # the import statements that run at import time
    # Its module `__getattr__`, called for a name: the imports and calls that run.
    getattr_for: Callable[[str], tuple[tuple[ImportStatement, ...], tuple[str, ...]]]
    # Its lazy imports that nothing uses at import time, by the names they bind (3.15): a
    # `from` import of the name loads it.
    lazily_bound: dict[str, tuple[ImportStatement, ...]] = dataclasses.field(default_factory=dict)
    # Its classes (dotted, with the bases as written), and its names bound to functions or
    # classes (each alternative).
    classes: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    aliases: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)


@cache
def _read_calls(path: Path, mtime_ns: int, size: int) -> FileCalls:
    text = path.read_bytes()
    module = ast.parse(text, str(path))
    aliases = _type_checking_aliases(module)
    evaluated = _annotations_rule(module, text)
    # Lazy imports that nothing at import time uses (Python 3.15): a function that loads a
    # name one binds runs it.
    unused = _lazy(module, text)
    lazily_bound = {
        name: node
        for node in ast.walk(module)
        if isinstance(node, _Import) and node.lineno in unused
        for name in unused[node.lineno]
    }

    literals = _module_literals(module)
    loop_strings: list[dict[str, set[str]]] = [{}]  # the strings each loop variable takes

    def names_called(roots: list[ast.AST]) -> list[str]:
        found: list[str | None] = []
        pending: list[tuple[ast.AST, dict[str, set[str]]]] = [(r, loop_strings[-1]) for r in roots]
        while pending:
            node, loops = pending.pop()
            if isinstance(node, ast.Lambda):
                pending += [(d, loops) for d in [*node.args.defaults, *node.args.kw_defaults] if d]
                continue
            if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
                loops = dict(loops)
                for generator in node.generators:
                    loops.update(_loop_strings(generator.target, generator.iter, literals, loops))
            elif isinstance(node, ast.Call) and _dotted_name(node.func):
                name = _dotted_name(node.func)
                found.append(name)
                if name.split(".")[-1] in ("import_module", "__import__"):
                    found += _dynamic_names(node, name, literals, loops)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
                # `f(x)(y)` calls what `f(x)` returns: "f()".
                inner = _dotted_name(node.func.func)
                found.append(f"{inner}()" if inner else None)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                value = node.func.value
                if isinstance(value, ast.Call) and _dotted_name(value.func) == "super":
                    found.append(f"<super>.{node.func.attr}")
                else:
                    found += [f"{name}.{node.func.attr}" for name in _choices(value, literals)]
            elif isinstance(node, ast.Call):
                found += _choices(node.func, literals)
            pending += [(child, loops) for child in ast.iter_child_nodes(node)]
        return [name for name in found if name]

    Defs = dict[str, list[ast.FunctionDef]]

    def run(
        body: list[ast.stmt],
        calls: list[str],
        imports: list,
        defs: Defs,
        local: bool,
        asked: tuple[str | None, str] | None = None,
        annotations: bool = False,
    ):
        """`local`: inside a function's body, where a variable's annotation is not evaluated;
        `defs` collects the functions defined (by name; `C.f` for a class body's). In a
        module `__getattr__` called for a name, `asked` is its parameter and that name: only
        the branches of its tests of the parameter that the name takes run."""
        for node in body:
            if isinstance(node, _Import):
                imports.append(_statement(node))
            elif isinstance(node, ast.ClassDef):
                decorators = node.decorator_list
                calls += [name for d in decorators if (name := _dotted_name(d))]
                # `@f(x)` calls what `f(x)` returns with what it decorates.
                calls += [
                    f"{name}()"
                    for d in decorators
                    if isinstance(d, ast.Call) and (name := _dotted_name(d.func))
                ]
                calls += names_called([*decorators, *node.bases, *node.keywords])
                own: Defs = {}
                own_calls: list[str] = []
                # Its imports bind names its calls (and, taken loosely, the module's) run, and
                # the class's attributes (C.name).
                before = len(imports)
                run(node.body, own_calls, imports, own, False, annotations=evaluated(node))
                imports += [
                    dataclasses.replace(st, scope=f"{node.name}.{st.scope}")
                    for st in imports[before:]
                ]
                # A name the class defines: the class's, or the module's (as the class
                # stands when the call runs; nested classes and comprehensions see only the
                # module's).
                calls += own_calls + [f"{node.name}.{c}" for c in own_calls if c in own]
                for name, nodes in own.items():
                    defs.setdefault(f"{node.name}.{name}", []).extend(nodes)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                decorators = node.decorator_list
                calls += [name for d in decorators if (name := _dotted_name(d))]
                # `@f(x)` calls what `f(x)` returns with what it decorates.
                calls += [
                    f"{name}()"
                    for d in decorators
                    if isinstance(d, ast.Call) and (name := _dotted_name(d.func))
                ]
                a = node.args
                parts = [*decorators, *(d for d in [*a.defaults, *a.kw_defaults] if d)]
                if evaluated(node):
                    arguments = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                    parts += [x.annotation for x in arguments if x and x.annotation]
                    parts += [node.returns] if node.returns else []
                calls += names_called(parts)
                if isinstance(node, ast.FunctionDef):
                    defs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.AnnAssign):
                parts = (
                    [node.target, node.value]
                    if local or not annotations
                    else [node.target, node.value, node.annotation]
                )
                calls += names_called([x for x in parts if x])
            elif isinstance(node, ast.If):
                calls += names_called([node.test])
                never = _is_type_checking(node.test) or _is_main_guard(node.test)
                value = _truth(*asked, literals.collections)(node.test) if asked else None
                if not (never or _never_runs(node.test, aliases)) and value is not False:
                    run(node.body, calls, imports, defs, local, asked, annotations)
                if value is not True:
                    run(node.orelse, calls, imports, defs, local, asked, annotations)
                if value is not None:
                    branch = node.body if value else node.orelse
                    if branch and isinstance(branch[-1], ast.Return | ast.Raise):
                        break  # (it leaves the function)
            elif isinstance(node, ast.Assign):
                calls += names_called([*node.targets, node.value])
                # A variable assigned strings the text spells out keeps them (after the
                # value, which runs first); one assigned anything else does not.
                spelled = _spelled(node.value, literals, loop_strings[-1])
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        if spelled:
                            loop_strings[-1][target.id] = spelled
                        else:
                            loop_strings[-1].pop(target.id, None)
            elif isinstance(node, ast.For) and (
                taken := _loop_strings(node.target, node.iter, literals, loop_strings[-1])
            ):
                calls += names_called([node.target, node.iter])
                loop_strings.append({**loop_strings[-1], **taken})
                run(node.body, calls, imports, defs, local, asked)
                loop_strings.pop()
                run(node.orelse, calls, imports, defs, local, asked)
            elif isinstance(node, ast.Match) and asked and _is_name(node.subject, asked[0]):
                calls += names_called([node.subject] + [c.guard for c in node.cases if c.guard])
                for case in node.cases:
                    strings = _literal_strings(case.pattern)
                    if strings is None or asked[1] in strings:
                        run(case.body, calls, imports, defs, local, asked, annotations)
                        if strings is not None and case.guard is None:
                            break
            else:
                for field, value in ast.iter_fields(node):
                    values = value if isinstance(value, list) else [value]
                    if values and isinstance(values[0], ast.stmt):
                        run(values, calls, imports, defs, local, asked, annotations)
                    elif field == "handlers":
                        for handler in values:
                            calls += names_called([handler.type] if handler.type else [])
                            run(handler.body, calls, imports, defs, local, asked, annotations)
                    elif field == "cases":
                        for case in values:
                            calls += names_called([case.guard] if case.guard else [])
                            run(case.body, calls, imports, defs, local, asked, annotations)
                    else:
                        calls += names_called([v for v in values if isinstance(v, ast.AST)])

    def function(
        nodes: list[ast.FunctionDef], asked: tuple[str] | None = None, method: bool = False
    ) -> tuple[tuple[ImportStatement, ...], tuple[str, ...]]:
        """What calling a function runs: each definition's body, with the functions defined
        in it that it calls by name; of a module `__getattr__` `asked` for a name, the
        branches of its tests of its parameter that this name takes."""
        imports: list[ImportStatement] = []
        calls: list[str] = []
        for node in nodes:
            inner: Defs = {}
            body_calls: list[str] = []
            arguments = [*node.args.posonlyargs, *node.args.args]
            # (Decorated, it may be called with another name than the one looked up.)
            parameter = arguments[0].arg if arguments and not node.decorator_list else None
            if any(
                (
                    isinstance(part, ast.Name)
                    and part.id == parameter
                    and not isinstance(part.ctx, ast.Load)
                )
                or (isinstance(part, ast.Global | ast.Nonlocal) and parameter in part.names)
                or (
                    part is not node
                    and isinstance(part, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and part.name == parameter
                )
                or (
                    isinstance(part, ast.ExceptHandler | ast.MatchAs | ast.MatchStar)
                    and part.name == parameter
                )
                or (isinstance(part, ast.MatchMapping) and part.rest == parameter)
                or (
                    isinstance(part, ast.alias)
                    and (part.asname or part.name.split(".")[0]) == parameter
                )
                for part in ast.walk(node)
            ):
                parameter = None  # (bound again: its tests are not worked out)
            # (A function's own variables; a `__getattr__`'s parameter is the name asked.)
            loop_strings.append({parameter: {asked[0]}} if asked and parameter else {})
            run(
                node.body,
                body_calls,
                imports,
                inner,
                True,
                (parameter, asked[0]) if asked else None,
            )
            loop_strings.pop()
            # A method's calls through its first parameter (`cls.f()`, `self.f()`) look `f`
            # up on the class it runs for; a name the function binds to functions or
            # classes (`impl = a if c else b`) calls each.
            first = (
                arguments[0].arg
                if method
                and arguments
                and "staticmethod" not in [_dotted_name(d) for d in node.decorator_list]
                else None
            )
            bound_here: dict[str, list[str]] = {}
            for st in _function_scope(node):
                if isinstance(st, ast.Assign):
                    for target in st.targets:
                        if isinstance(target, ast.Name):
                            bound_here.setdefault(target.id, []).extend(
                                c
                                for c in _choices(st.value, literals)
                                if c.split(".")[0] != target.id
                            )
            rewritten = []
            for c in body_calls:
                head, dot, rest = c.partition(".")
                if first is not None and dot and head == first:
                    rewritten.append(f"<cls>.{rest}")
                    continue
                rewritten.append(c)
                rewritten += [alt + dot + rest for alt in bound_here.get(head, ())]
            body_calls = rewritten
            # Called, a decorated def runs what each of its decorators returned (`@d`: the
            # wrapper `d(g)` made), as well as its body; not for `@d(x)`, one level deeper.
            body_calls += [f"{name}()" for d in node.decorator_list if (name := _dotted_name(d))]
            done = set()
            pending = [c for c in body_calls if c in inner]
            while pending:
                name = pending.pop()
                if name in done:
                    continue
                done.add(name)
                more_imports, more_calls = function(inner[name])
                imports += more_imports
                body_calls += more_calls
                pending += [c for c in more_calls if c in inner]
            calls += [c for c in body_calls if c not in inner]
            # A lazily bound name it loads runs the lazy import now.
            imports += [
                _statement(lazily_bound[part.id])
                for part in ast.walk(node)
                if isinstance(part, ast.Name) and part.id in lazily_bound
            ]
        return tuple(imports), tuple(calls)

    calls: list[str] = []
    bindings: list[ImportStatement] = []
    defs: Defs = {}
    run(module.body, calls, bindings, defs, False, annotations=evaluated(module))
    # (A lazy import nothing uses looks up nothing in the module it imports from.)
    run_imports = tuple(st for st in bindings if st.line not in unused)
    names = _bound_names(module, aliases)
    # A name a function declares `global` is the module's: what the function imports or
    # defines under it binds the module's name (counted whether or not the function runs).
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef):
            scope = _function_scope(node)
            declared = {name for st in scope if isinstance(st, ast.Global) for name in st.names}
            for st in scope:
                if isinstance(st, ast.FunctionDef) and st.name in declared:
                    defs.setdefault(st.name, []).append(st)
                elif isinstance(st, _Import):
                    kept = [
                        alias
                        for alias in st.names
                        if (
                            alias.asname
                            or (
                                alias.name.split(".")[0]
                                if isinstance(st, ast.Import)
                                else alias.name
                            )
                        )
                        in declared
                    ]
                    if kept:
                        bindings.append(_statement(_with_names(st, kept)))
    functions = {name: function(nodes, method="." in name) for name, nodes in defs.items()}

    def returned(
        nodes: list[ast.FunctionDef],
    ) -> tuple[tuple[ImportStatement, ...], tuple[str, ...]]:
        """What calling what these defs return runs: a def of their own that they return
        (with their own imports, which that def sees), or a name they return, called."""
        imports: list[ImportStatement] = []
        calls: list[str] = []
        for node in nodes:
            scope = _function_scope(node)
            inner = [st for st in scope if isinstance(st, ast.FunctionDef)]
            returns = [
                name
                for st in scope
                if isinstance(st, ast.Return) and st.value and (name := _dotted_name(st.value))
            ]
            for name in returns:
                chosen = [d for d in inner if d.name == name]
                if chosen:
                    more_imports, more_calls = function(chosen)
                    imports += more_imports
                    calls += more_calls
                else:
                    calls.append(name)
            if returns:
                # (Its own imports, which ran, bind the names of what it returns.)
                imports += [_statement(i) for i in scope if isinstance(i, _Import)]
        return tuple(imports), tuple(calls)

    functions.update({f"{name}()": returned(nodes) for name, nodes in defs.items()})
    getattr_defs = defs.get("__getattr__", [])
    return FileCalls(
        tuple(calls),
        tuple(bindings),
        functions,
        frozenset(names),
        run_imports,
        cache(lambda name: function(getattr_defs, (name,))),
        lazily_bound={name: (_statement(node),) for name, node in lazily_bound.items()},
        classes=_module_classes(module.body, ""),
        aliases=_module_aliases(module.body, literals),
    )


# Module-level names bound only to literals: the strings each iterates or is (`keys`), the
# string values of a dict (`values`), and the dotted names of a registry's values.


@dataclass(frozen=True)
class Literals:
    keys: dict[str, set[str]]
    values: dict[str, set[str]]
    registry: dict[str, list[str]]
    collections: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    mappings: dict[str, dict[str, set[str]]] = dataclasses.field(default_factory=dict)


def _module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    found = []
    pending = list(body)
    while pending:
        node = pending.pop(0)
        found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            pending += getattr(node, field, None) or []
        for clause in [*getattr(node, "handlers", []), *getattr(node, "cases", [])]:
            pending += clause.body
    return found


def _str_items(node: ast.expr) -> set[str] | None:
    if isinstance(node, ast.Dict):
        items = node.keys
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        items = node.elts
    else:
        items = [node]
    if not items or not all(
        isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items
    ):
        return None
    return {i.value for i in items}  # type: ignore[union-attr]


def _module_literals(module: ast.Module) -> Literals:
    keys: dict[str, set[str]] = {}
    values: dict[str, set[str]] = {}
    registry: dict[str, list[str]] = {}
    collections: dict[str, set[str]] = {}
    mappings: dict[str, dict[str, set[str]]] = {}
    spoiled: set[str] = set()
    strings_only: set[str] = set()
    for node in _module_level(module.body):
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.AugAssign):
            spoiled |= _plain_names(node.target)
            continue
        else:
            continue
        for target, value in pairs:
            if not isinstance(target, ast.Name):
                spoiled |= _plain_names(target)
                continue
            strings = _str_items(value)
            names = []
            if isinstance(value, ast.Dict | ast.Tuple | ast.List):
                elements = value.values if isinstance(value, ast.Dict) else value.elts
                names = [n for e in elements if (n := _dotted_name(e))]
            if strings is None and not names:
                spoiled.add(target.id)
            if strings is not None:
                keys.setdefault(target.id, set()).update(strings)
                if isinstance(value, ast.Constant):
                    strings_only.add(target.id)
                else:
                    collections.setdefault(target.id, set()).update(strings)
                if isinstance(value, ast.Dict):
                    for k, v in zip(value.keys, value.values, strict=True):
                        if isinstance(v, ast.Constant) and isinstance(v.value, str):
                            mappings.setdefault(target.id, {}).setdefault(k.value, set()).add(
                                v.value
                            )
                    values.setdefault(target.id, set()).update(
                        v.value
                        for v in value.values
                        if isinstance(v, ast.Constant) and isinstance(v.value, str)
                    )
            if names:
                registry.setdefault(target.id, []).extend(names)
    return Literals(
        {k: v for k, v in keys.items() if k not in spoiled},
        {k: v for k, v in values.items() if k not in spoiled},
        {k: v for k, v in registry.items() if k not in spoiled},
        {k: v for k, v in collections.items() if k not in spoiled | strings_only},
        {k: v for k, v in mappings.items() if k not in spoiled},
    )


def _choices(node: ast.expr, literals: Literals) -> list[str]:
    """The dotted names an expression may stand for: a name, the branches of `a if c else
    b`, the operands of `or` / `and`, the values of a literal registry subscripted."""
    name = _dotted_name(node)
    if name:
        return [name]
    if isinstance(node, ast.IfExp):
        return _choices(node.body, literals) + _choices(node.orelse, literals)
    if isinstance(node, ast.BoolOp):
        return [c for v in node.values for c in _choices(v, literals)]
    if isinstance(node, ast.NamedExpr):
        return _choices(node.value, literals)
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id in literals.registry:
            return list(literals.registry[node.value.id])
        if isinstance(node.value, ast.Dict | ast.Tuple | ast.List):
            v = node.value
            return [
                n
                for e in (v.values if isinstance(v, ast.Dict) else v.elts)
                if (n := _dotted_name(e))
            ]
    return []


def _loop_strings(
    target: ast.expr, iterable: ast.expr, literals: Literals, loops: dict[str, set[str]]
) -> dict[str, set[str]]:
    """What a loop's variables take from a literal collection of strings it iterates."""
    while (
        isinstance(iterable, ast.Call)
        and _dotted_name(iterable.func) in ("sorted", "list", "tuple", "set")
        and len(iterable.args) == 1
    ):
        iterable = iterable.args[0]
    view = None
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("keys", "values", "items")
        and not iterable.args
    ):
        view, iterable = iterable.func.attr, iterable.func.value
    if isinstance(iterable, ast.Name) and iterable.id not in loops:
        keys = literals.keys.get(iterable.id)
        values = literals.values.get(iterable.id)
    elif isinstance(iterable, ast.Dict):
        keys = _str_items(iterable)
        values = {
            v.value
            for v in iterable.values
            if isinstance(v, ast.Constant) and isinstance(v.value, str)
        }
    elif view is None and isinstance(iterable, ast.Tuple | ast.List | ast.Set):
        keys, values = _str_items(iterable), None
    else:
        keys = values = None
    if view == "items":
        found = {}
        if isinstance(target, ast.Tuple) and len(target.elts) == 2:
            k, v = target.elts
            if isinstance(k, ast.Name) and keys:
                found[k.id] = keys
            if isinstance(v, ast.Name) and values:
                found[v.id] = values
        return found
    chosen = values if view == "values" else keys
    return {target.id: chosen} if isinstance(target, ast.Name) and chosen else {}


def _spelled(node: ast.expr, literals: Literals, loops: dict[str, set[str]]) -> set[str] | None:
    """The strings an expression may be, where the text spells them out."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        if node.id in loops:
            return loops[node.id]
        return literals.keys.get(node.id)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in literals.mappings
    ):
        looked_up = _spelled(node.slice, literals, loops)
        table = literals.mappings[node.value.id]
        if looked_up is None:
            return None
        return {v for k in looked_up for v in table.get(k, ())}
    pieces: list[ast.expr] | None = None
    if isinstance(node, ast.JoinedStr):
        pieces = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec or v.conversion not in (-1, ord("s")):
                    return None
                pieces.append(v.value)
            else:
                pieces.append(v)
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        pieces = [node.left, node.right]
    if pieces is not None:
        result = {""}
        for piece in pieces:
            options = _spelled(piece, literals, loops)
            if options is None:
                return None
            result = {a + b for a in result for b in options}
        return result
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        template, args = (
            node.left,
            (node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]),
        )
        apply = lambda t, a: t % tuple(a)  # noqa: E731
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.keywords
    ):
        template, args = node.func.value, node.args
        apply = lambda t, a: t.format(*a)  # noqa: E731
    else:
        return None
    templates = _spelled(template, literals, loops)
    options = [_spelled(a, literals, loops) for a in args]
    if templates is None or any(o is None for o in options):
        return None
    rows: list[list[str]] = [[]]
    for o in options:
        rows = [[*r, x] for r in rows for x in sorted(o)]  # type: ignore[arg-type]
    try:
        return {apply(t, r) for t in templates for r in rows}
    except (TypeError, ValueError, IndexError, KeyError):
        return None


def _dynamic_names(
    node: ast.Call, callee: str, literals: Literals, loops: dict[str, set[str]]
) -> list[str]:
    """A call of `import_module` / `__import__`: `<dyn>ANCHOR:NAME` for each module name it
    may import (`<dyn>?` where the name is computed otherwise)."""
    keywords = {k.arg: k.value for k in node.keywords}
    args = node.args

    def argument(index: int, name: str) -> ast.expr | None:
        return args[index] if len(args) > index else keywords.get(name)

    name = argument(0, "name")
    anchor, prefix, extra = "", "", set()
    if callee.split(".")[-1] == "__import__":
        level, fromlist = argument(4, "level"), argument(3, "fromlist")
        if fromlist is not None:
            extra = {
                e.value
                for e in getattr(fromlist, "elts", [])
                if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value != "*"
            }
        if level is not None:
            if not (isinstance(level, ast.Constant) and type(level.value) is int):
                return ["<dyn>?"]
            if level.value:
                anchor, prefix = "__package__", "." * level.value
    else:
        package = argument(1, "package")
        if package is not None:
            if not (isinstance(package, ast.Name) and package.id in ("__name__", "__package__")):
                return ["<dyn>?"]
            anchor = package.id
    names = None if name is None else _spelled(name, literals, loops)
    if not names:
        return ["<dyn>?"]
    names = {prefix + n for n in names}
    names |= {f"{n}.{e}" for n in names for e in extra}
    return [f"<dyn>{anchor}:{n}" for n in sorted(names)]


def _dynamic_statement(call: str, owner: str, is_package: bool) -> ImportStatement | None:
    """The import statement a dynamic import stands for, in `owner`'s code."""
    if call == "<dyn>?":
        return None
    anchor, _, name = call.removeprefix("<dyn>").partition(":")
    if not name.startswith("."):
        return ImportStatement(0, False, True, None, 0, (name,))
    if not anchor or (anchor == "__name__" and not is_package):
        return None  # (relative to no package, or to a module that is not one: it fails)
    rest = name.lstrip(".")
    level = len(name) - len(rest)
    module, _, last = rest.rpartition(".")
    if not last:
        return ImportStatement(0, False, True, None, level, ())
    return ImportStatement(0, False, True, module or None, level, (last,))


def _module_classes(body: list[ast.stmt], prefix: str) -> dict[str, tuple[str, ...]]:
    """The classes the module's code defines (dotted, nested ones too), with their bases."""
    found: dict[str, tuple[str, ...]] = {}
    for node in _module_level(body):
        if isinstance(node, ast.ClassDef):
            key = prefix + node.name
            bases = tuple(b for base in node.bases for b in _choices(base, Literals({}, {}, {})))
            found[key] = tuple(dict.fromkeys(found.get(key, ()) + bases))
            found.update(_module_classes(node.body, key + "."))
    return found


def _module_aliases(body: list[ast.stmt], literals: Literals) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for node in _module_level(body):
        if isinstance(node, ast.Assign):
            choices = _choices(node.value, literals)
            for target in node.targets:
                if isinstance(target, ast.Name) and choices:
                    found[target.id] = tuple(
                        dict.fromkeys(found.get(target.id, ()) + tuple(choices))
                    )
    return found


def _function_scope(function: ast.FunctionDef) -> list[ast.stmt]:
    """Every statement of a function's own scope (not of a def, lambda or class inside it)."""
    found: list[ast.stmt] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        pending += [
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
        ]
    return found


def _with_names(node: _Import, aliases: list[ast.alias]) -> _Import:
    if isinstance(node, ast.Import):
        return ast.Import(names=aliases, lineno=node.lineno)
    return ast.ImportFrom(module=node.module, names=aliases, level=node.level, lineno=node.lineno)


def _is_name(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _literal_strings(pattern: ast.pattern) -> frozenset[str] | None:
    """The strings a `case` pattern is (`"a"`, `"a" | "b"`); None for any other pattern."""
    if isinstance(pattern, ast.MatchOr):
        parts = [_literal_strings(p) for p in pattern.patterns]
        return None if None in parts else frozenset().union(*parts)  # type: ignore[arg-type]
    if (
        isinstance(pattern, ast.MatchValue)
        and isinstance(pattern.value, ast.Constant)
        and isinstance(pattern.value.value, str)
    ):
        return frozenset([pattern.value.value])
    return None


# What a module `__getattr__`'s tests of its parameter may be made of to be worked out here.
_DECIDABLE = (
    ast.Compare,
    ast.BoolOp,
    ast.UnaryOp,
    ast.Name,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Eq,
    ast.NotEq,
    ast.In,
    ast.NotIn,
    ast.And,
    ast.Or,
    ast.Not,
    ast.Load,
)


def _truth(
    parameter: str | None, name: str, collections: dict[str, set[str]] | None = None
) -> Callable[[ast.expr], bool | None]:
    """Works out a test of a `__getattr__` called for `name` where it is made of its
    parameter, strings and comparisons (a module's name bound only to literal collections
    of strings stands for its strings)."""

    class Literal(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            if collections and node.id in collections and node.id != parameter:
                return ast.Tuple([ast.Constant(v) for v in sorted(collections[node.id])])
            return node

    def truth(test: ast.expr) -> bool | None:
        test = Literal().visit(copy.deepcopy(test))
        parts = list(ast.walk(test))
        if (
            not all(isinstance(part, _DECIDABLE) for part in parts)
            or not any(_is_name(part, parameter) for part in parts)  # type: ignore[arg-type]
            or any(isinstance(part, ast.Name) and part.id != parameter for part in parts)
            or any(
                isinstance(part, ast.Constant) and not isinstance(part.value, str) for part in parts
            )
        ):
            return None
        for part in parts:
            if isinstance(part, ast.Compare):
                # Only the parameter against strings: not a substring, nor a tuple's equality.
                if len(part.ops) != 1:
                    return None
                sides = [part.left, part.comparators[0]]
                if isinstance(part.ops[0], ast.In | ast.NotIn):
                    if not (
                        _is_name(sides[0], parameter)
                        and isinstance(sides[1], ast.Tuple | ast.List | ast.Set)
                    ):
                        return None
                elif not (
                    any(_is_name(side, parameter) for side in sides)
                    and any(isinstance(side, ast.Constant) for side in sides)
                ):
                    return None
        return bool(_value(test, parameter, name))

    return truth


def _value(node: ast.AST, parameter: str | None, name: str) -> object:
    """The value of a test that `_truth` checked, `parameter` being `name`."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return name
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return tuple(_value(element, parameter, name) for element in node.elts)
    if isinstance(node, ast.UnaryOp):
        return not _value(node.operand, parameter, name)
    if isinstance(node, ast.BoolOp):
        values = [bool(_value(v, parameter, name)) for v in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    assert isinstance(node, ast.Compare)
    left = _value(node.left, parameter, name)
    right = _value(node.comparators[0], parameter, name)
    operator = node.ops[0]
    if isinstance(operator, ast.Eq | ast.NotEq):
        return (left == right) == isinstance(operator, ast.Eq)
    return (left in right) == isinstance(operator, ast.In)  # type: ignore[operator]


def _bound_names(module: ast.Module, aliases: set[str]) -> set[str]:
    """The names a module's code binds at import time on every way through it (a module
    `__getattr__` is never asked for them): by `=` (annotated or augmented too), a def, a
    class or an import (not `*`) at module level; in both branches of an `if` (in the
    `else` alone where the test never holds); in a `try` body and in each handler that does
    not end in `raise`, or in its `finally`. Nothing a loop, a `match` or a `with` binds,
    nor `:=`, nor a function through `global`; less any name deleted at module level, or
    by a function that declares it `global`, or caught by `except ... as`."""
    deleted: set[str] = set()
    found = _bound_in(module.body, aliases, deleted)
    for function in ast.walk(module):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            scope = _function_scope(function)
            declared = {name for st in scope if isinstance(st, ast.Global) for name in st.names}
            for st in scope:
                if isinstance(st, ast.Delete):
                    deleted |= {n for t in st.targets for n in _plain_names(t)} & declared
    return found - deleted


def _plain_names(target: ast.expr) -> set[str]:
    """The names an assignment's target binds (not an attribute or an item)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _plain_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return set().union(*(_plain_names(e) for e in target.elts))
    return set()


def _bound_in(body: list[ast.stmt], aliases: set[str], deleted: set[str]) -> set[str]:
    """The names `body` binds, as `_bound_names` counts them; those it deletes (anywhere in
    it) go into `deleted`."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                deleted |= _plain_names(target)
        elif isinstance(node, ast.Import):
            found |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found |= {alias.asname or alias.name for alias in node.names if alias.name != "*"}
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                found |= _plain_names(target)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            if not (isinstance(node, ast.AnnAssign) and node.value is None):
                found |= _plain_names(node.target)
        elif isinstance(node, ast.If):
            never = _is_type_checking(node.test) or _is_main_guard(node.test)
            body_names = _bound_in(node.body, aliases, deleted)
            else_names = _bound_in(node.orelse, aliases, deleted)
            if never or _never_runs(node.test, aliases):
                found |= else_names
            else:
                found |= body_names & else_names
        elif isinstance(node, ast.Try | ast.TryStar):
            every_way = _bound_in(node.body + node.orelse, aliases, deleted)
            for handler in node.handlers:
                if handler.name:
                    deleted.add(handler.name)
                names = _bound_in(handler.body, aliases, deleted)
                if not (handler.body and isinstance(handler.body[-1], ast.Raise)):
                    every_way &= names
            found |= every_way | _bound_in(node.finalbody, aliases, deleted)
        else:
            cases = getattr(node, "cases", [])
            for block in [getattr(node, "body", []), getattr(node, "orelse", [])]:
                _bound_in(block, aliases, deleted)
            for case in cases:
                _bound_in(case.body, aliases, deleted)
    return found


def _dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def file_calls(path: Path) -> FileCalls:
    stat = path.stat()
    return _read_calls(path, stat.st_mtime_ns, stat.st_size)


def _absolute(importer: str, is_package: bool, node: ImportStatement) -> str:
    if not node.level:
        return node.module or ""
    parts = importer.split(".")
    if not is_package:
        parts.pop()
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _bound(
    modules: dict[str, Path], importer: str, name: str, imports: tuple[ImportStatement, ...]
) -> list[tuple[str, str | None]]:
    """What `name` refers to through these imports of `importer`: (module, None) for a
    module, (module, attribute) for an attribute of one (a star import may bind any name)."""
    found: list[tuple[str, str | None]] = []
    is_package = modules[importer].name == "__init__.py"
    for node in imports:
        for imported, asname in zip(
            node.names, node.asnames or (None,) * len(node.names), strict=True
        ):
            top = imported.split(".")[0]
            if node.module is None and not node.level:
                if asname and node.scope + asname == name and imported in modules:
                    found.append((imported, None))
                elif asname is None and node.scope + top == name and top in modules:
                    found.append((top, None))
            elif node.scope + (asname or imported) == name or (imported == "*" and "." not in name):
                base = _absolute(importer, is_package, node)
                attribute = name if imported == "*" else imported
                if f"{base}.{attribute}" in modules:
                    found.append((f"{base}.{attribute}", None))
                elif base in modules:
                    found.append((base, attribute))
    return found


VIA = "|via|"  # `C.f|via|pkg.m:D`: a method of C, run for the class D it was called through


def _functions_run(
    modules: dict[str, Path], module: str, target: str, local: tuple[ImportStatement, ...]
) -> set[tuple[str, str]]:
    """The functions (module, def name) that calling `target` in `module` may run: those of
    `_plainly_run`, and the methods of each class it calls through (`D.f()`: `f` of D or of
    a base), known with that class (a plain one is dropped where it is)."""
    if target.endswith("()"):
        # (A module `__getattr__` runs where the name is looked up, whatever it returns.)
        return {
            (m, n if n.startswith("__getattr__ for ") else f"{n}()")
            for m, n in _functions_run(modules, module, target[:-2], local)
        }
    if target.startswith("<dyn>"):
        return set()
    parts = target.split(".")
    plain = _plainly_run(modules, module, target, local)
    through = set()
    if len(parts) > 1:
        for cls in _classes_in(modules, module, parts[:-1], local, set()):
            through |= _for_class(_method_lookup(modules, cls, parts[-1:], set()), cls)
    kept = {(m, n.split(VIA)[0]) for m, n in through}
    return through | {f for f in plain if f not in kept}


def _for_class(found: set[tuple[str, str]], cls: tuple[str, str]) -> set[tuple[str, str]]:
    return {
        (m, n if n.startswith("__getattr__ for ") or "." not in n else f"{n}{VIA}{cls[0]}:{cls[1]}")
        for m, n in found
    }


def _plainly_run(
    modules: dict[str, Path], module: str, target: str, local: tuple[ImportStatement, ...]
) -> set[tuple[str, str]]:
    """What the function's own imports bind to the name, a def of the module (`f`, `C.f`),
    what the module's imports bind to it, and what the names it binds to functions or
    classes may be (`X = A if c else B`)."""
    parts = target.split(".")
    calls = file_calls(modules[module])
    found = set()
    if target in calls.functions:
        found.add((module, target))
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for imports in (local, calls.bindings):
        for k in range(1, len(parts) + 1):  # the name bound: `m`, or `C.m` of a class
            for base, attribute in _bound(modules, module, ".".join(parts[:k]), imports):
                rest = ([attribute] if attribute else []) + parts[k:]
                found |= _in_module(modules, base, rest, seen)
    for alternative in calls.aliases.get(parts[0], ()):
        found |= _in_module(modules, module, alternative.split(".") + parts[1:], seen)
    return found


def _classes_in(
    modules: dict[str, Path],
    base: str,
    parts: list[str],
    local: tuple[ImportStatement, ...],
    seen: set[tuple[str, tuple[str, ...]]],
) -> set[tuple[str, str]]:
    """The classes (module, dotted name) that the dotted `parts` name in module `base`."""
    found: set[tuple[str, str]] = set()
    if not parts or (base, tuple(parts)) in seen:
        return found
    seen.add((base, tuple(parts)))
    calls = file_calls(modules[base])
    if ".".join(parts) in calls.classes:
        found.add((base, ".".join(parts)))
    for alternative in calls.aliases.get(parts[0], ()):
        found |= _classes_in(modules, base, alternative.split(".") + parts[1:], (), seen)
    for imports in (local, calls.bindings):
        for k in range(1, len(parts) + 1):
            for module, attribute in _bound(modules, base, ".".join(parts[:k]), imports):
                rest = ([attribute] if attribute else []) + parts[k:]
                while rest and f"{module}.{rest[0]}" in modules:
                    module = f"{module}.{rest.pop(0)}"
                found |= _classes_in(modules, module, rest, (), seen)
    return found


def _method_lookup(
    modules: dict[str, Path], cls: tuple[str, str], attribute: list[str], seen: set
) -> set[tuple[str, str]]:
    """The functions `attribute` looked up on a class may be: its own, else a base's."""
    module, name = cls
    key = ".".join([name, *attribute])
    found = _plainly_run(modules, module, key, ())
    if key not in file_calls(modules[module]).functions:
        for base in file_calls(modules[module]).classes.get(name, ()):
            for other in _classes_in(modules, module, base.split("."), (), set()):
                if other not in seen:
                    seen.add(other)
                    found |= _method_lookup(modules, other, attribute, seen)
    return found


def _class_calls(
    modules: dict[str, Path], owner: str, function: str, called: str
) -> set[tuple[str, str]]:
    """What `cls.f()` (`<cls>.f`) or `super().f()` (`<super>.f`) in a method may run."""
    own, _, via = function.partition(VIA)
    cls_name = own.removesuffix("()").rpartition(".")[0]
    if not cls_name or own.startswith("__getattr__ for "):
        return set()
    through = tuple(via.split(":")) if via else None
    attribute = called.split(".")[1:]
    classes = file_calls(modules[owner]).classes
    found = set()
    if called.startswith("<cls>."):
        if through:
            starts = [through]
        else:
            names = [cls_name]
            for name in names:
                names += [c for c, bases in classes.items() if name in bases and c not in names]
            starts = [(owner, name) for name in names]
        for start in starts:
            found |= _for_class(_method_lookup(modules, start, attribute, set()), start)
    else:
        for base in classes.get(cls_name, ()):
            for start in _classes_in(modules, owner, base.split("."), (), set()):
                methods = _method_lookup(modules, start, attribute, set())
                found |= _for_class(methods, through) if through else methods
    return found


def _in_module(
    modules: dict[str, Path], base: str, parts: list[str], seen: set[tuple[str, tuple[str, ...]]]
) -> set[tuple[str, str]]:
    """The functions that the dotted `parts` name in module `base` (`seen`: what was looked
    up already, in which module)."""
    found = set()
    while parts and f"{base}.{parts[0]}" in modules:
        calls = file_calls(modules[base])
        if "__getattr__" in calls.functions and parts[0] not in calls.names:
            # A submodule the package does not bind: its `__getattr__` is called for it
            # (which may import it; taken loosely: not where it was imported before, which
            # sets it), then the rest is looked up in the submodule.
            found.add((base, f"__getattr__ for {parts[0]}"))
        base = f"{base}.{parts.pop(0)}"
    if not parts or (base, tuple(parts)) in seen:
        return found
    seen.add((base, tuple(parts)))
    calls = file_calls(modules[base])
    if ".".join(parts) in calls.functions:
        found.add((base, ".".join(parts)))
    if "__getattr__" in calls.functions and parts[0] not in calls.names:
        # A name the module does not bind, looked up on it: its `__getattr__` runs.
        found.add((base, f"__getattr__ for {parts[0]}"))
    for k in range(1, len(parts) + 1):
        bindings = file_calls(modules[base]).bindings
        for module, attribute in _bound(modules, base, ".".join(parts[:k]), bindings):
            rest = ([attribute] if attribute else []) + parts[k:]
            found |= _in_module(modules, module, rest, seen)
    for alternative in calls.aliases.get(parts[0], ()):
        found |= _in_module(modules, base, alternative.split(".") + parts[1:], seen)
    # A method a class does not define may be a base's (`D.f` of `class D(C)`).
    if (
        len(parts) > 1
        and ".".join(parts[:-1]) in calls.classes
        and ".".join(parts) not in calls.functions
    ):
        for b in calls.classes[".".join(parts[:-1])]:
            found |= _in_module(modules, base, b.split(".") + parts[-1:], seen)
    return found


def _called_imports(modules: dict[str, Path], module: str) -> set[tuple[str, str]]:
    """(importer, imported) of each import in the functions that importing `module` calls,
    transitively; and in a module `__getattr__` that a `from` import calls (PEP 562)."""
    at_import = file_calls(modules[module])
    pending: list[tuple[str, str]] = [
        function
        for name in at_import.at_import
        for function in _functions_run(modules, module, name, ())
    ]
    pending += _getattr_run(modules, module, at_import.run_imports)
    pending += _lazy_run(modules, module, at_import.run_imports)
    ran = set(pending)
    found = set()

    def dynamic(owner: str, calls: tuple[str, ...]) -> None:
        # (`importlib.import_module("m")`: an import of `m` where the call runs.)
        is_package = modules[owner].name == "__init__.py"
        for called in calls:
            if called.startswith("<dyn>"):
                node = _dynamic_statement(called, owner, is_package)
                if node is not None:
                    found.update(
                        (owner, m) for m in imported_modules(node, owner, is_package, set(modules))
                    )

    dynamic(module, at_import.at_import)
    while pending:
        owner, name = pending.pop()
        if name.startswith("__getattr__ for "):
            imports, calls = file_calls(modules[owner]).getattr_for(name[len("__getattr__ for ") :])
        elif name.startswith("lazy "):
            imports, calls = file_calls(modules[owner]).lazily_bound[name[len("lazy ") :]], ()
        else:
            imports, calls = file_calls(modules[owner]).functions[name.split(VIA)[0]]
        is_package = modules[owner].name == "__init__.py"
        for node in imports:
            found |= {(owner, m) for m in imported_modules(node, owner, is_package, set(modules))}
        dynamic(owner, calls)
        for function in [
            *(
                f
                for called in calls
                for f in (
                    _class_calls(modules, owner, name, called)
                    if called.startswith(("<cls>.", "<super>."))
                    else _functions_run(modules, owner, called, imports)
                )
            ),
            *_getattr_run(modules, owner, imports),
            *_lazy_run(modules, owner, imports),
        ]:
            if function not in ran:
                ran.add(function)
                pending.append(function)
    return found


def _getattr_run(
    modules: dict[str, Path], importer: str, imports: tuple[ImportStatement, ...]
) -> list[tuple[str, str]]:
    """The module `__getattr__`s that these `from` imports of `importer` call: of the module
    imported from, for each name imported that it does not bind itself (`__all__` for `*`),
    and first for `__path__`, which Python asks a module that is not a package for."""
    found = []
    is_package = modules[importer].name == "__init__.py"
    for node in imports:
        if node.scope or (node.module is None and not node.level):
            continue
        base = _absolute(importer, is_package, node)
        if base not in modules:
            continue
        calls = file_calls(modules[base])
        if "__getattr__" not in calls.functions:
            continue
        asked = ["__all__" if name == "*" else name for name in node.names]
        if modules[base].name != "__init__.py":
            asked.insert(0, "__path__")
        found += [(base, f"__getattr__ for {name}") for name in asked if name not in calls.names]
    return found


def _lazy_run(
    modules: dict[str, Path], importer: str, imports: tuple[ImportStatement, ...]
) -> list[tuple[str, str]]:
    """The lazy imports (PEP 810) of other modules that these `from` imports of `importer`
    load: of each name imported (every one, for `*`) that the module imported from binds
    lazily, and does not use itself at import time."""
    found = []
    is_package = modules[importer].name == "__init__.py"
    for node in imports:
        if node.scope or (node.module is None and not node.level):
            continue
        base = _absolute(importer, is_package, node)
        if base not in modules:
            continue
        lazy = file_calls(modules[base]).lazily_bound
        names = lazy if "*" in node.names else [n for n in node.names if n in lazy]
        found += [(base, f"lazy {name}") for name in names]
    return found


def _parents(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _inside(module: str, packages: set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def eager_closure(tree: Path, module: str) -> set[str]:
    """Every module of the tree that importing `module` runs: it, its parent packages, and
    whatever their imports that run at import time run, followed everywhere."""
    modules = modules_of(tree, module.split(".")[0])
    seen = {module}
    queue = [module]
    # Imports in the functions of a module not loaded yet: they run once it is.
    waiting: set[Edge] = set()
    while queue:
        current = queue.pop()
        waiting |= _called_imports(modules, current)
        called = {edge for edge in waiting if edge[0] in seen}
        waiting -= called
        # (A parent that is a folder without __init__.py runs no file.)
        parents = {parent for parent in _parents(current) if parent in modules}
        for target in parents | _eager_targets(modules, current) | {i for _, i in called}:
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


Edge = tuple[str, str]


def eager_violations(
    tree: Path,
    sources: set[str],
    follow: str,
    forbidden: set[str],
    allowed: set[str],
    excused: frozenset[Edge] = frozenset(),
) -> tuple[set[Edge], set[Edge]]:
    """(importer, imported) of each forbidden module that importing a source runs (R4), and
    the `excused` imports met on the way.

    Imports that run at import time are followed through `follow`; parent packages inside
    `follow` run before their submodules, and the parent packages of an allowed module are
    allowed; TYPE_CHECKING blocks never run. An excused import is neither reported nor
    followed.
    """
    modules = modules_of(tree, follow.split(".")[0])
    allowed_parents = {parent for module in allowed for parent in _parents(module)}

    def is_forbidden(module: str) -> bool:
        return (
            _inside(module, forbidden)
            and not _inside(module, allowed)
            and module not in allowed_parents
        )

    violations = set()
    met = set()
    for source in sources:
        seen = {source}
        queue = [source]
        # Imports in the functions of a module not loaded yet: they run once it is.
        waiting: set[Edge] = set()
        while queue:
            module = queue.pop()
            # (A parent that is a folder without __init__.py runs no file.)
            parents = {p for p in _parents(module) if _inside(p, {follow}) and p in modules}
            edges = {(module, target) for target in parents | _eager_targets(modules, module)}
            # A function's imports run in its module's code, which is followed only inside
            # `follow` and outside forbidden code.
            waiting |= {
                (owner, target)
                for owner, target in _called_imports(modules, module)
                if _inside(owner, {follow}) and not is_forbidden(owner)
            }
            edges |= {edge for edge in waiting if edge[0] in seen}
            waiting -= edges
            for importer, target in sorted(edges):
                if target not in parents and (importer, target) in excused:
                    met.add((importer, target))
                elif is_forbidden(target):
                    violations.add((importer, target))
                elif target not in seen and _inside(target, {follow}):
                    seen.add(target)
                    queue.append(target)
    return violations, met


def vllm_omni_r4(
    tree: Path, follow: str = "vllm_omni.platforms", excused: frozenset[Edge] = frozenset()
) -> tuple[set[Edge], set[Edge]]:
    """R4 as the spec states it for vllm-omni, on the release in `tree` (by default with the
    spec's walk, through vllm_omni.platforms only): its violations and the excused imports
    met."""
    backends = {p.parent.name for p in (tree / "vllm_omni/platforms").glob("*/platform.py")}
    return eager_violations(
        tree,
        sources={f"vllm_omni.platforms.{b}.platform" for b in backends},
        follow=follow,
        forbidden={
            *(
                f"vllm_omni.platforms.{b}.{part}"
                for b in backends
                for part in ("models", "layers", "quant", "omni_connectors")
            ),
            "vllm_omni.model_executor.models",
            "vllm_omni.model_executor.layers",
            "vllm_omni.diffusion.models",
            "vllm_omni.diffusion.layers",
            "vllm_omni.diffusion.attention.backends",
            "vllm_omni.quantization",
            "vllm_omni.diffusion.quantization",
            "vllm_omni.distributed.omni_connectors",
        },
        allowed={"vllm_omni.diffusion.attention.backends.registry"},
        excused=excused,
    )


def main(tree: Path) -> None:
    """Answer R2 and R4 for the vllm-omni release in `tree` as a hand-written test would:
    parse every file, then walk the imports."""
    for path in modules_of(tree, "vllm_omni").values():
        statements(path)
    r2 = backend_imports(tree, "vllm_omni.platforms")
    r4, _ = vllm_omni_r4(tree)
    print(f"R2: {len(r2)} neutral-to-backend imports; R4: {len(r4)} eager forbidden imports")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
