"""An independent reading of a tree with Python's own `ast`: what a hand-written boundary test
does. The tests use it as their oracle, and the benchmark as its baseline:

    python tools/ast_walk.py TREE     # parse every file of TREE/vllm_omni, answer R2 and R4

It shares no code with the package: it parses files, resolves each import statement to the
module it loads, follows the functions that code running at import time calls, and answers
the rules directly.
"""

from __future__ import annotations

import ast
import dataclasses
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path


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
    return tuple(
        _statement(node, type_checking, eager)
        for node, type_checking, eager in _imports(ast.parse(path.read_bytes(), str(path)))
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
    """An `if` test that is false whenever the module is imported."""
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


@cache
def _read_calls(path: Path, mtime_ns: int, size: int) -> FileCalls:
    module = ast.parse(path.read_bytes(), str(path))
    aliases = _type_checking_aliases(module)
    # `from __future__ import annotations`: no annotation is evaluated.
    lazy = any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and "annotations" in [alias.name for alias in node.names]
        for node in module.body
    )

    def names_called(roots: list[ast.AST]) -> list[str]:
        found = []
        pending = list(roots)
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Lambda):
                pending += [d for d in [*node.args.defaults, *node.args.kw_defaults] if d]
                continue
            if isinstance(node, ast.Call) and _dotted_name(node.func):
                found.append(_dotted_name(node.func))
            pending += list(ast.iter_child_nodes(node))
        return [name for name in found if name]

    Defs = dict[str, list[ast.FunctionDef]]

    def run(body: list[ast.stmt], calls: list[str], imports: list, defs: Defs, local: bool):
        """`local`: inside a function's body, where a variable's annotation is not evaluated;
        `defs` collects the functions defined (by name; `C.f` for a class body's)."""
        for node in body:
            if isinstance(node, _Import):
                imports.append(_statement(node))
            elif isinstance(node, ast.ClassDef):
                decorators = node.decorator_list
                calls += [name for d in decorators if (name := _dotted_name(d))]
                calls += names_called([*decorators, *node.bases, *node.keywords])
                own: Defs = {}
                own_calls: list[str] = []
                # Its imports bind names its calls (and, taken loosely, the module's) run, and
                # the class's attributes (C.name).
                before = len(imports)
                run(node.body, own_calls, imports, own, False)
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
                a = node.args
                evaluated = [*decorators, *(d for d in [*a.defaults, *a.kw_defaults] if d)]
                if not lazy:
                    arguments = [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]
                    evaluated += [x.annotation for x in arguments if x and x.annotation]
                    evaluated += [node.returns] if node.returns else []
                calls += names_called(evaluated)
                if isinstance(node, ast.FunctionDef):
                    defs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.AnnAssign):
                parts = (
                    [node.target, node.value]
                    if local or lazy
                    else [node.target, node.value, node.annotation]
                )
                calls += names_called([x for x in parts if x])
            elif isinstance(node, ast.If):
                calls += names_called([node.test])
                never = _is_type_checking(node.test) or _is_main_guard(node.test)
                if not (never or _never_runs(node.test, aliases)):
                    run(node.body, calls, imports, defs, local)
                run(node.orelse, calls, imports, defs, local)
            else:
                for field, value in ast.iter_fields(node):
                    values = value if isinstance(value, list) else [value]
                    if values and isinstance(values[0], ast.stmt):
                        run(values, calls, imports, defs, local)
                    elif field == "handlers":
                        for handler in values:
                            calls += names_called([handler.type] if handler.type else [])
                            run(handler.body, calls, imports, defs, local)
                    elif field == "cases":
                        for case in values:
                            calls += names_called([case.guard] if case.guard else [])
                            run(case.body, calls, imports, defs, local)
                    else:
                        calls += names_called([v for v in values if isinstance(v, ast.AST)])

    def function(
        nodes: list[ast.FunctionDef],
    ) -> tuple[tuple[ImportStatement, ...], tuple[str, ...]]:
        """What calling a function runs: each definition's body, with the functions defined
        in it that it calls by name."""
        imports: list[ImportStatement] = []
        calls: list[str] = []
        for node in nodes:
            inner: Defs = {}
            body_calls: list[str] = []
            run(node.body, body_calls, imports, inner, True)
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
        return tuple(imports), tuple(calls)

    calls: list[str] = []
    bindings: list[ImportStatement] = []
    defs: Defs = {}
    run(module.body, calls, bindings, defs, False)
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
                    aliases = [
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
                    if aliases:
                        bindings.append(_statement(_with_names(st, aliases)))
    functions = {name: function(nodes) for name, nodes in defs.items()}
    return FileCalls(tuple(calls), tuple(bindings), functions)


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


def _functions_run(
    modules: dict[str, Path], module: str, target: str, local: tuple[ImportStatement, ...]
) -> set[tuple[str, str]]:
    """The functions (module, def name) that calling `target` in `module` may run: what the
    function's own imports bind to the name, a def of the module (`f`, `C.f`), and what the
    module's imports bind to it."""
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
    return found


def _in_module(
    modules: dict[str, Path], base: str, parts: list[str], seen: set[tuple[str, tuple[str, ...]]]
) -> set[tuple[str, str]]:
    """The functions that the dotted `parts` name in module `base` (`seen`: what was looked
    up already, in which module)."""
    while parts and f"{base}.{parts[0]}" in modules:
        base = f"{base}.{parts.pop(0)}"
    if not parts or (base, tuple(parts)) in seen:
        return set()
    seen.add((base, tuple(parts)))
    found = set()
    if ".".join(parts) in file_calls(modules[base]).functions:
        found.add((base, ".".join(parts)))
    for k in range(1, len(parts) + 1):
        bindings = file_calls(modules[base]).bindings
        for module, attribute in _bound(modules, base, ".".join(parts[:k]), bindings):
            rest = ([attribute] if attribute else []) + parts[k:]
            found |= _in_module(modules, module, rest, seen)
    return found


def _called_imports(modules: dict[str, Path], module: str) -> set[tuple[str, str]]:
    """(importer, imported) of each import in the functions that importing `module` calls,
    transitively."""
    pending = [
        function
        for name in file_calls(modules[module]).at_import
        for function in _functions_run(modules, module, name, ())
    ]
    ran = set(pending)
    found = set()
    while pending:
        owner, name = pending.pop()
        imports, calls = file_calls(modules[owner]).functions[name]
        is_package = modules[owner].name == "__init__.py"
        for node in imports:
            found |= {(owner, m) for m in imported_modules(node, owner, is_package, set(modules))}
        for called in calls:
            for function in _functions_run(modules, owner, called, imports) - ran:
                ran.add(function)
                pending.append(function)
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
    while queue:
        current = queue.pop()
        called = {imported for _, imported in _called_imports(modules, current)}
        # (A parent that is a folder without __init__.py runs no file.)
        parents = {parent for parent in _parents(current) if parent in modules}
        for target in parents | _eager_targets(modules, current) | called:
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
        while queue:
            module = queue.pop()
            # (A parent that is a folder without __init__.py runs no file.)
            parents = {p for p in _parents(module) if _inside(p, {follow}) and p in modules}
            edges = {(module, target) for target in parents | _eager_targets(modules, module)}
            # A function's imports run in its module's code, which is followed only inside
            # `follow` and outside forbidden code.
            edges |= {
                (owner, target)
                for owner, target in _called_imports(modules, module)
                if _inside(owner, {follow}) and not is_forbidden(owner)
            }
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
