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
