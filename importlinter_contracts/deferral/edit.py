"""The edit that makes an import statement lazy (PEP 810), where it can be proven safe.

Two forms, as the option `form` chooses: the soft keyword (`lazy import a.b`, `lazy from a
import b`), a syntax error before Python 3.15; or the module's `__lazy_modules__` (the
names CPython looks up for each import: `"a.b"` for `import a.b`, `"a"` for `from a import
b`), created above the file's first statement (after its docstring and `__future__`
imports) or extended where the file assigns it one literal list, tuple or set, which older
Pythons ignore. Both make the import lazy only where CPython allows one: at module level
(an `if`, `with`, `for`, `while` or `match` block included), never in a `try`, a class body
or a function, never a star import or a `__future__` one.

An import is refused, with the reason, where deferring it cannot be proven safe, as
`eager.deferrable` says for every form (the one answer the smallest cut prefers by); and, in
the `__lazy_modules__` form, a relative import (which the engine does not look up there), an
import whose module another import of the file not to be deferred also names (the list names
modules, not statements), or a file whose `__lazy_modules__` it cannot read. Each edited
file is read back before it is offered (`check_edited`).
"""

from __future__ import annotations

import ast
import io
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from ..eager.deferrable import assigned_names, deferrable
from ..eager.import_time_uses import lazy_target, reading_for
from ..eager.parsing import parse
from ..eager.scopes import read_source
from ..eager.target import target_python
from ..errors import UnreadableSourceError

KEYWORD = "lazy"
LAZY_MODULES = "lazy-modules"
FORMS = (KEYWORD, LAZY_MODULES)

_NAME = "__lazy_modules__"


class Refusal(NamedTuple):
    """An import statement left as it is, and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: not made lazy: {self.reason}."


class FileEdit(NamedTuple):
    """A source file's text before and after the edit, and the import lines made lazy."""

    path: str
    original: str
    edited: str
    lines: tuple[int, ...]


class LazyEdits(NamedTuple):
    """The edits of each file, and the imports refused."""

    edits: list[FileEdit]
    refused: list[Refusal]


def lazy_edits(statements: Iterable[tuple[str, int]], form: str) -> LazyEdits:
    """Return the edits that make each import statement (a file, and the line its statement
    starts on) lazy in `form`, and the statements refused, with why.

    Raises UnreadableSourceError when an edited file does not read back as it must.
    """
    by_file: dict[str, list[int]] = {}
    for path, line in statements:
        by_file.setdefault(path, [])
        if line not in by_file[path]:
            by_file[path].append(line)
    edits: list[FileEdit] = []
    refused: list[Refusal] = []
    for path, lines in by_file.items():
        edit, refusals = _edit_file(path, sorted(lines), form)
        refused += refusals
        if edit is not None:
            check_edited(edit, form)
            edits.append(edit)
    return LazyEdits(edits, refused)


def _edit_file(path: str, lines: list[int], form: str) -> tuple[FileEdit | None, list[Refusal]]:
    reading = deferrable(Path(path), path, lines)
    refused = [Refusal(path, line, why.reason) for line, why in reading.refused.items()]
    module = reading.module
    if module is None or not reading.statements:
        return None, sorted(refused, key=lambda refusal: refusal.line)
    declared = _declared(module) if form == LAZY_MODULES else None
    chosen: list[ast.Import | ast.ImportFrom] = []
    for line, node in sorted(reading.statements.items()):
        reason = _why_not_in_lazy_modules(node, declared) if form == LAZY_MODULES else ""
        if reason:
            refused.append(Refusal(path, line, reason))
        else:
            chosen.append(node)
    if form == LAZY_MODULES:
        chosen, more = _alone_in_their_modules(module, chosen)
        refused += [Refusal(path, line, reason) for line, reason in more]
    refused.sort(key=lambda refusal: refusal.line)
    if not chosen:
        return None, refused
    if form == KEYWORD:
        edited = _with_keyword(reading.text, chosen)
    else:
        edited = _with_lazy_modules(reading.text, module, chosen, declared)
    return FileEdit(path, reading.text, edited, tuple(node.lineno for node in chosen)), refused


def _alone_in_their_modules(
    module: ast.Module, chosen: list[ast.Import | ast.ImportFrom]
) -> tuple[list[ast.Import | ast.ImportFrom], list[tuple[int, str]]]:
    """The imports of `chosen` whose `__lazy_modules__` names make no other import of the
    file lazy (the list names modules, not statements), and why each other one is refused."""
    every = [
        node
        for statement in module.body
        for node in ast.walk(statement)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    refused: list[tuple[int, str]] = []
    while True:
        kept = {id(node) for node in chosen}
        others = {key: node for node in every if id(node) not in kept for key in _keys(node)}
        clash = next((n for n in chosen if any(key in others for key in _keys(n))), None)
        if clash is None:
            return chosen, refused
        key = next(key for key in _keys(clash) if key in others)
        refused.append(
            (
                clash.lineno,
                f'__lazy_modules__ names modules, not statements: "{key}" would also make the '
                f"import at l.{others[key].lineno} lazy, which is not to be deferred; use --form "
                "lazy",
            )
        )
        chosen = [node for node in chosen if node is not clash]


def _why_not_in_lazy_modules(node: ast.Import | ast.ImportFrom, declared: _Declared | None) -> str:
    """Why `node`, which can be made lazy, cannot be in `__lazy_modules__`, or "" where it
    can."""
    if isinstance(node, ast.ImportFrom) and node.level:
        return (
            "a relative import, which the linter does not look up in __lazy_modules__: "
            "write it absolute, or use --form lazy"
        )
    assert declared is not None
    if declared.problem:
        return declared.problem
    if declared.node is not None and declared.node.lineno > node.lineno:
        return (
            f"{_NAME} is assigned after it (l.{declared.node.lineno}), and Python reads it "
            "at each import"
        )
    if declared.node is not None and all(key in declared.names for key in _keys(node)):
        return f"it is lazy already ({_NAME} at l.{declared.node.lineno} lists it)"
    return ""


class _Declared(NamedTuple):
    """The file's `__lazy_modules__`: its one literal assignment at module level (None: no
    assignment), the names it lists, or why it cannot be extended."""

    node: ast.Assign | ast.AnnAssign | None
    names: tuple[str, ...]
    problem: str


def _declared(module: ast.Module) -> _Declared:
    assignments = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
        and _NAME in assigned_names(node)
    ]
    if not assignments:
        return _Declared(None, (), "")
    first = assignments[0]
    if (
        len(assignments) > 1
        or not isinstance(first, ast.Assign | ast.AnnAssign)
        or first not in module.body
        or not isinstance(first.value, ast.List | ast.Tuple | ast.Set)
        or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in first.value.elts
        )
    ):
        return _Declared(
            None,
            (),
            f"the file assigns {_NAME} other than once at module level to a literal list, "
            f"tuple or set of strings (l.{first.lineno}), which the edit cannot extend",
        )
    names = tuple(str(e.value) for e in first.value.elts if isinstance(e, ast.Constant))
    return _Declared(first, names, "")


def _keys(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names CPython looks up in `__lazy_modules__` for an (absolute) import."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module] if node.module else []


def source_lines(text: str) -> list[str]:
    """Return the lines of a source text, each with its end, as Python numbers them (on
    `\\n`, `\\r\\n` and `\\r` only, not on the other breaks `str.splitlines` takes)."""
    return io.StringIO(text, newline="").readlines()


def _column(line: str, offset: int) -> int:
    """The index in `line` of a UTF-8 byte offset, as `ast` gives columns."""
    return len(line.encode("utf-8")[:offset].decode("utf-8"))


def _with_keyword(text: str, nodes: list[ast.Import | ast.ImportFrom]) -> str:
    lines = source_lines(text)
    for node in nodes:
        line = lines[node.lineno - 1]
        column = _column(line, node.col_offset)
        lines[node.lineno - 1] = line[:column] + "lazy " + line[column:]
    return "".join(lines)


def _with_lazy_modules(
    text: str,
    module: ast.Module,
    nodes: list[ast.Import | ast.ImportFrom],
    declared: _Declared | None,
) -> str:
    assert declared is not None
    lines = source_lines(text)
    added = [key for node in nodes for key in _keys(node)]
    every = list(dict.fromkeys([*declared.names, *added]))
    if declared.node is not None:
        value = declared.node.value
        assert isinstance(value, ast.List | ast.Tuple | ast.Set)
        brackets = {ast.List: "[]", ast.Tuple: "()", ast.Set: "{}"}[type(value)]
        opening, closing = brackets[0], brackets[1]
        listed = ", ".join(f'"{name}"' for name in every)
        comma = "," if isinstance(value, ast.Tuple) and len(every) == 1 else ""
        new = f"{opening}{listed}{comma}{closing}"
        first, last = value.lineno - 1, (value.end_lineno or value.lineno) - 1
        start = _column(lines[first], value.col_offset)
        end = _column(lines[last], value.end_col_offset or 0)
        lines[first : last + 1] = [lines[first][:start] + new + lines[last][end:]]
        return "".join(lines)
    listed = ", ".join(f'"{name}"' for name in every)
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] or "\n"
    statement = f"{_NAME} = [{listed}]{ending}"
    before = _first_statement(module)
    lines.insert(before - 1, statement)
    return "".join(lines)


def _first_statement(module: ast.Module) -> int:
    """The line before which `__lazy_modules__` goes: that of the first statement after the
    docstring and the `__future__` imports (whose place Python fixes)."""
    for index, node in enumerate(module.body):
        docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not docstring and not future:
            decorators: list[ast.expr] = getattr(node, "decorator_list", [])
            return min([node.lineno, *(d.lineno for d in decorators)])
    raise AssertionError("an edited file has an import statement")


def check_edited(edit: FileEdit, form: str) -> None:
    """Read an edited file back as the engine reads it for the Python its lazy imports run
    on: every statement but the edited imports (and `__lazy_modules__`) unchanged, and each
    edited import lazy. Where the running Python cannot parse `lazy import` (before 3.15),
    check instead that the file is the original with `lazy ` inserted before those imports,
    each a module-level statement outside a `try` (where Python 3.15's grammar takes the
    keyword), which `lazy_edits` made sure of on the original's syntax tree.

    Raises UnreadableSourceError when it does not read back so.
    """
    if form == KEYWORD and sys.version_info < (3, 15):
        original = source_lines(edit.original)
        back = [
            line.replace("lazy ", "", 1) if number in edit.lines else line
            for number, line in enumerate(source_lines(edit.edited), 1)
        ]
        if back != original:
            raise UnreadableSourceError(
                f"{edit.path}: the edit does not read back as the original; nothing was written"
            )
        return
    source = edit.edited.encode("utf-8")
    try:
        module = parse(source)
    except (SyntaxError, ValueError) as error:
        raise UnreadableSourceError(
            f"{edit.path}: the edited file would not parse ({error}); nothing was written"
        ) from None
    if _shape(module) != _shape(parse(edit.original.encode("utf-8"))):
        raise UnreadableSourceError(
            f"{edit.path}: the edit would change more than its imports; nothing was written"
        )
    with reading_for(lazy_target(target_python())):
        scopes = read_source(source).scopes
    shift = len(source_lines(edit.edited)) - len(source_lines(edit.original))
    for line in edit.lines:
        scope = scopes.get(line + shift)
        if scope is None or scope.eager or not scope.reason.startswith("lazy"):
            raise UnreadableSourceError(
                f"{edit.path}:{line + shift}: the edited import does not read as lazy; "
                "nothing was written"
            )


def _shape(module: ast.Module) -> str:
    """The file's syntax tree without line numbers, `lazy` keywords and `__lazy_modules__`."""
    body = [
        node
        for node in module.body
        if not (isinstance(node, ast.Assign | ast.AnnAssign) and _NAME in assigned_names(node))
    ]
    for node in ast.walk(module):
        if isinstance(node, ast.Import | ast.ImportFrom) and getattr(node, "is_lazy", False):
            setattr(node, "is_lazy", 0)  # noqa: B010  (Python 3.15's field)
    return ast.dump(ast.Module(body=body, type_ignores=module.type_ignores))
