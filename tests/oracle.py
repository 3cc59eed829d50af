"""An independent reading of the real tree with Python's own `ast`, for differential tests.

It shares no code with the package: it walks every file, resolves each import statement to
the module it loads, and answers R2 directly.
"""

from __future__ import annotations

import ast
from pathlib import Path


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


def import_statements(source: str) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it sits under `if TYPE_CHECKING:`."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, type_checking: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append((node, type_checking))
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, type_checking)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, type_checking)

    visit(ast.parse(source), False)
    return found


def imported_modules(
    node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: set[str]
) -> set[str]:
    """The modules of the tree an import statement names, as Python would resolve them."""

    def existing(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    targets: set[str | None] = set()
    if isinstance(node, ast.Import):
        targets = {existing(alias.name) for alias in node.names}
    else:
        if node.level:
            base_parts = importer.split(".")
            if not is_package:
                base_parts.pop()
            base_parts = base_parts[: len(base_parts) - (node.level - 1)]
            base = ".".join(base_parts + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        for alias in node.names:
            candidate = f"{base}.{alias.name}"
            targets.add(candidate if candidate in modules else existing(base))
    return {t for t in targets if t}


def backend_imports(
    tree: Path, container: str, marker: str = "platform"
) -> set[tuple[str, str, int]]:
    """(importer, imported, line) of every import of a backend from outside it, TYPE_CHECKING skipped."""
    modules = modules_of(tree, container.split(".")[0])
    names = set(modules)
    backends = {m for m in names if m.rpartition(".")[0] == container and f"{m}.{marker}" in names}
    found = set()
    for importer, path in modules.items():
        source = path.read_text(encoding="utf-8")
        if container not in source and "from ." not in source:
            continue
        for node, type_checking in import_statements(source):
            if type_checking:
                continue
            for imported in imported_modules(node, importer, path.name == "__init__.py", names):
                for backend in backends:
                    inside = lambda m, b=backend: m == b or m.startswith(b + ".")  # noqa: E731
                    if inside(imported) and not any(inside(importer, b) for b in backends):
                        found.add((importer, imported, node.lineno))
    return found


def eager_import_lines(source: str) -> dict[int, bool]:
    """Line of each import statement -> whether it runs at import time, by walking the AST."""
    found: dict[int, bool] = {}

    def visit(node: ast.AST, eager: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found[node.lineno] = found.get(node.lineno, False) or eager
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            eager = False
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            visit(node.test, eager)
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, eager)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, eager)

    visit(ast.parse(source), True)
    return found


def _eager_targets(modules: dict[str, Path], module: str) -> set[str]:
    """The modules an import statement of `module` that runs at import time names."""
    path = modules[module]
    source = path.read_text(encoding="utf-8")
    lines = eager_import_lines(source)
    found = set()
    for node, type_checking in import_statements(source):
        if not type_checking and lines.get(node.lineno):
            found |= imported_modules(node, module, path.name == "__init__.py", set(modules))
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
        for target in _parents(current) | _eager_targets(modules, current):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def eager_violations(
    tree: Path,
    sources: set[str],
    follow: str,
    forbidden: set[str],
    allowed: set[str],
) -> set[tuple[str, str]]:
    """(importer, imported) of each forbidden module that importing a source runs (R4).

    Imports that run at import time are followed through `follow`; parent packages inside
    `follow` run before their submodules; TYPE_CHECKING blocks never run.
    """
    modules = modules_of(tree, follow.split(".")[0])
    violations = set()
    for source in sources:
        seen = {source}
        queue = [source]
        while queue:
            module = queue.pop()
            parents = {p for p in _parents(module) if _inside(p, {follow})}
            for target in parents | _eager_targets(modules, module):
                if _inside(target, forbidden) and not _inside(target, allowed):
                    violations.add((module, target))
                elif target not in seen and _inside(target, {follow}):
                    seen.add(target)
                    queue.append(target)
    return violations
