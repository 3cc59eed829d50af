"""The edit that defers an import on every Python: the statement moves from the module body
into each function (or method) that uses the names it binds, keeping its aliases, so that it
runs when one of them is called, not when the module is imported. A comment that ends the
import's last line goes with it, and so do the blank lines it would leave too many of
(`with_blank_lines_left`, which `module_getattr` uses too).

Where that cannot be proven safe the import is left, with why: a statement inside a block
(`if`, `with`, ...); a name it binds that code outside a function uses (a lambda, a
comprehension or any expression of the module body, which `eager.deferrable` mostly refuses
already), that the file binds again or declares `global`, or that an annotation names (Pythons
before 3.14 evaluate one where the def stands, and `typing.get_type_hints` reads it from the
module); a name its `__all__` lists, or a name another module of the package may take from
it, whose importers would no longer find it (a package's `__init__` is `module_getattr`'s);
and a function whose body starts on the line of its `def` or of its
docstring's end, where the import cannot go on a line of its own.
"""

from __future__ import annotations

import ast
import copy
import itertools
import re
from pathlib import Path
from typing import NamedTuple

from ..eager.lazy import bound_names

_Def = ast.FunctionDef | ast.AsyncFunctionDef


class Moved(NamedTuple):
    """The file's text after the move (None: nothing moved), the import lines moved, and
    why each other one is left."""

    edited: str | None
    lines: tuple[int, ...]
    refused: dict[int, str]


def moved_into_functions(
    lines: list[str], module: ast.Module, path: str, nodes: list[ast.Import | ast.ImportFrom]
) -> Moved:
    """Return the file of `lines` (each with its end; parsed: `module`) with each import of
    `nodes` moved into the functions that use its names, where that can be proven safe."""
    parents = {id(child): node for node in ast.walk(module) for child in ast.iter_child_nodes(node)}
    refused: dict[int, str] = {}
    moves: list[tuple[ast.Import | ast.ImportFrom, dict[int, tuple[_Def, list[str]]]]] = []
    for node in nodes:
        why, owners = _owners(module, parents, node, path)
        if why:
            refused[node.lineno] = why
        else:
            moves.append((node, owners))
    if not moves:
        return Moved(None, (), refused)
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] or "\n"
    # (Edits from the end of the file up, so that each one's line numbers hold.)
    inserted: dict[int, list[str]] = {}
    removed: set[int] = set()
    for node, owners in moves:
        removed.update(range(node.lineno - 1, node.end_lineno or node.lineno))
        comment = _trailing_comment(lines, node)
        for function, names in owners.values():
            at, indentation = _insertion(lines, function)
            copied = with_names(node, names)
            inserted.setdefault(at, []).append(
                f"{indentation}{ast.unparse(copied)}{comment}{ending}"
            )
    removed = with_blank_lines_left(lines, removed)
    edited: list[str] = []
    for index, line in enumerate(lines):
        edited += inserted.get(index, [])
        if index not in removed:
            edited.append(line)
    text = "".join(edited)
    made = tuple(node.lineno for node, _ in moves)
    if not _reads_back(text, module, moves):
        why = "the moved import does not read back as the same syntax tree, moved"
        return Moved(None, (), {**refused, **dict.fromkeys(made, why)})
    return Moved(text, made, refused)


def with_blank_lines_left(lines: list[str], removed: set[int]) -> set[int]:
    """Return the lines to remove of `lines` (by index): `removed`, and the blank lines that
    removing them would leave too many of. Where removed lines stood among blank lines, the
    blank lines left between the code (or comments) around them are the longest run that stood
    together before (`import a` between two blank lines leaves one, not two); before the first
    line of code or after the last, none."""
    found = set(removed)
    code = [index for index, line in enumerate(lines) if line.strip() and index not in removed]
    bounds = [-1, *code, len(lines)]
    for above, below in itertools.pairwise(bounds):
        between = range(above + 1, below)
        if not any(index in removed for index in between):
            continue
        runs: list[list[int]] = [[]]
        for index in between:
            if index in removed:
                runs.append([])
            else:
                runs[-1].append(index)
        edge = above == -1 or below == len(lines)
        kept: list[int] = [] if edge else max(runs, key=lambda run: len(run))
        found.update(index for run in runs for index in run if index not in kept)
    return found


def _reads_back(
    text: str,
    module: ast.Module,
    moves: list[tuple[ast.Import | ast.ImportFrom, dict[int, tuple[_Def, list[str]]]]],
) -> bool:
    """Whether the edited `text` parses to the original's syntax tree with the same move
    made on the tree: each import out of the module body, and into each function after
    its docstring (so that the text's lines, indentation and line ends are right)."""
    try:
        edited = ast.parse(text.lstrip("\ufeff"))
    except (SyntaxError, ValueError):
        return False
    expected = copy.deepcopy(module)
    functions = {
        (node.lineno, node.col_offset): node
        for node in ast.walk(expected)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    lines = {node.lineno for node, _ in moves}
    expected.body = [
        node
        for node in expected.body
        if not (isinstance(node, ast.Import | ast.ImportFrom) and node.lineno in lines)
    ]
    added: dict[int, int] = {}
    for node, owners in moves:
        for function, names in owners.values():
            target = functions[function.lineno, function.col_offset]
            at = (1 if _is_docstring(target.body[0]) else 0) + added.get(id(target), 0)
            target.body.insert(at, with_names(node, names))
            added[id(target)] = added.get(id(target), 0) + 1
    return ast.dump(edited) == ast.dump(expected)


def _owners(
    module: ast.Module,
    parents: dict[int, ast.AST],
    node: ast.Import | ast.ImportFrom,
    path: str,
) -> tuple[str, dict[int, tuple[_Def, list[str]]]]:
    """Why `node` cannot move into the functions that use its names ("" where it can), and
    those functions, by id, each with the names it uses."""
    if node not in module.body:
        return (
            "it is inside a block (`if`, `with`, ...): only a statement of the module body is "
            "moved into functions",
            {},
        )
    names = bound_names(node)
    owners: dict[int, tuple[_Def, list[str]]] = {}
    for found in ast.walk(module):
        for bound in _bindings_of(found, node):
            if bound == "*":
                return (
                    f"a star import at l.{getattr(found, 'lineno', 0)} may bind its names too",
                    {},
                )
            if bound in names:
                return f"`{bound}` is bound again at l.{getattr(found, 'lineno', 0)}", {}
        if isinstance(found, ast.Constant) and isinstance(found.value, str):
            listed = found.value
            if listed in names and _in_all(found, parents):
                return f"`{listed}` is listed in __all__, for importers to take", {}
            spelled = [name for name in names if name in _WORD.findall(listed)]
            if spelled and _in_annotation(found, parents):
                return (
                    f"`{spelled[0]}` is named in an annotation at l.{found.lineno}, which "
                    "typing.get_type_hints reads from the module",
                    {},
                )
        if not (isinstance(found, ast.Name) and found.id in names):
            continue
        if _in_annotation(found, parents):
            return (
                f"`{found.id}` is named in an annotation at l.{found.lineno}, which Pythons "
                "before 3.14 evaluate where it stands",
                {},
            )
        function = _owner(found, parents)
        if function is None:
            return f"`{found.id}` is used outside a function at l.{found.lineno}", {}
        if function.body[0].lineno == function.lineno or _header_shared(function):
            return (
                f"the body of `def {function.name}` starts on the line of its `def` or "
                "docstring, where the import cannot go on a line of its own",
                {},
            )
        used = owners.setdefault(id(function), (function, []))[1]
        if found.id not in used:
            used.append(found.id)
    # (`import a.b` binds the package `a`, which no importer takes from this module.)
    offered = [
        name
        for alias, name in zip(node.names, names, strict=True)
        if not (isinstance(node, ast.Import) and alias.asname is None and "." in alias.name)
    ]
    taken = _taken_elsewhere(path, offered)
    for name in offered:
        if name in taken:
            return (
                f"`{name}` may be taken from this module by {taken[name]} (its importers "
                "would no longer find it)",
                {},
            )
    return "", owners


def _bindings_of(node: ast.AST, imported: ast.AST) -> list[str]:
    """The names `node` binds or declares, where it is not the import `imported` (`*`: a
    star import, which may bind any)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom) and node is not imported:
        return [
            "*" if alias.name == "*" else name
            for alias, name in zip(node.names, bound_names(node), strict=True)
        ]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    return []


def _in_all(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, ast.stmt):
        parent = parents.get(id(parent))
    return isinstance(parent, ast.Assign | ast.AugAssign | ast.AnnAssign) and any(
        isinstance(target, ast.Name) and target.id == "__all__"
        for target in (parent.targets if isinstance(parent, ast.Assign) else [parent.target])
    )


def _in_annotation(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    child, parent = node, parents.get(id(node))
    while parent is not None:
        if isinstance(parent, ast.arg) and parent.annotation is child:
            return True
        if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef) and parent.returns is child:
            return True
        if isinstance(parent, ast.AnnAssign) and parent.annotation is child:
            return True
        child, parent = parent, parents.get(id(parent))
    return False


def _owner(node: ast.AST, parents: dict[int, ast.AST]) -> _Def | None:
    """The outermost function whose body holds `node`, where only classes stand around it
    (a module-level def, or a method), else None."""
    path: list[ast.AST] = [node]
    parent = parents.get(id(node))
    while parent is not None:
        path.append(parent)
        parent = parents.get(id(parent))
    # path[-1] is the module; walk down to the first def, through classes only.
    for index in range(len(path) - 2, -1, -1):
        ancestor = path[index]
        if isinstance(ancestor, ast.ClassDef):
            continue
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef) and index > 0:
            inside = path[index - 1]
            return ancestor if any(inside is statement for statement in ancestor.body) else None
        return None
    return None


def _header_shared(function: _Def) -> bool:
    """Whether the function's first statement after its docstring shares a line with it."""
    body = function.body
    if len(body) > 1 and _is_docstring(body[0]):
        return body[1].lineno == (body[0].end_lineno or body[0].lineno)
    return False


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _trailing_comment(lines: list[str], node: ast.stmt) -> str:
    """Return the comment that ends the last line of `node`, with the blanks before it, as
    written ("" where the line ends with none)."""
    line = lines[(node.end_lineno or node.lineno) - 1]
    # (The offset counts UTF-8 bytes.)
    tail = line.encode()[node.end_col_offset or 0 :].decode().rstrip("\r\n")
    return tail if tail.lstrip(" \t").startswith("#") else ""


def _insertion(lines: list[str], function: _Def) -> tuple[int, str]:
    """The index of the line before which the import goes in `function` (after its
    docstring), and the indentation of its body."""
    body = function.body
    first = body[0]
    if _is_docstring(first) and len(body) > 1:
        first = body[1]
    elif _is_docstring(first):
        line = lines[first.lineno - 1]
        indentation = line[: len(line) - len(line.lstrip(" \t"))]
        return first.end_lineno or first.lineno, indentation
    line = lines[first.lineno - 1]
    return first.lineno - 1, line[: len(line) - len(line.lstrip(" \t"))]


def with_names(node: ast.Import | ast.ImportFrom, names: list[str]) -> ast.stmt:
    """The import statement `node` with only the aliases that bind `names`."""
    copied = copy.deepcopy(node)
    copied.names = [alias for alias in copied.names if bound_names(_alone(node, alias))[0] in names]
    return copied


def _alone(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> ast.Import | ast.ImportFrom:
    if isinstance(node, ast.Import):
        return ast.Import(names=[alias])
    return ast.ImportFrom(module=node.module, names=[alias], level=node.level)


_WORD = re.compile(r"\w+")


def _taken_elsewhere(path: str, names: list[str]) -> dict[str, str]:
    """The names of `names` that another file of the package holding `path` may take from
    it, each with one such file: one that imports the name from the module (or `*`), or
    binds the module and reads an attribute of that name, or spells the module's dotted
    name and the name (`mock.patch("pkg.m.Name")`); or, where the file cannot be parsed
    here, names both the module and the name as words."""
    file = Path(path)
    root = package_root(file)
    this = module_name(file, root)
    taken: dict[str, str] = {}
    for other in sorted(root.rglob("*.py")):
        if other.resolve() == file.resolve():
            continue
        try:
            text = other.read_text("utf-8", "replace")
        except OSError:
            continue
        words = set(_WORD.findall(text))
        wanted = set(names) & words
        if not wanted or file.stem not in words:
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            found = wanted
        else:
            found = _taken_by(tree, module_name(other, root), other, this, wanted, text)
        for name in sorted(found):
            taken.setdefault(name, str(other))
    return taken


def package_root(file: Path) -> Path:
    """Return the folder of the top package that holds the file (its own folder, where that
    is no package)."""
    root = file.parent
    while (root / "__init__.py").is_file() and (root.parent / "__init__.py").is_file():
        root = root.parent
    return root


def module_name(file: Path, root: Path | None = None) -> str:
    """Return the module name of a file of the package in `root` (by default its own)."""
    parts = [*file.relative_to((root or package_root(file)).parent).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _taken_by(
    tree: ast.Module, importer: str, file: Path, module: str, names: set[str], text: str
) -> set[str]:
    """The names of `names` that the file of `importer` (parsed: `tree`) may take from
    `module`."""
    package = importer if file.name == "__init__.py" else importer.rpartition(".")[0]
    parent, _, stem = module.rpartition(".")
    binds_module = False
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: max(len(package.split(".")) - node.level + 1, 0)]
                base = ".".join([*up, *([base] if base else [])])
            for alias in node.names:
                if base == module and alias.name in {*names, "*"}:
                    found |= names if alias.name == "*" else {alias.name}
                binds_module |= base == parent and alias.name == stem
        elif isinstance(node, ast.Import):
            binds_module |= any(alias.name == module for alias in node.names)
    if binds_module or module in text:
        found |= {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in names
        }
        if module in text:
            found |= {name for name in names if f"{module}.{name}" in text}
    return found
