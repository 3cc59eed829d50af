"""The edit that makes an import statement lazy (PEP 810), where it can be proven safe.

Three forms, as the option `form` chooses: the import moved into the functions that use
it, for every Python (`functions`); or, for Python 3.15, the soft keyword (`lazy import
a.b`, `lazy from a import b`), a syntax error before Python 3.15; or the module's
`__lazy_modules__` (the names CPython looks up for each import: `"a.b"` for `import
a.b`, `"a"` for `from a import b`), created above the file's first statement (after its
docstring and `__future__` imports) or extended where the file assigns it one literal
list, tuple or set, which older Pythons ignore. These two make the import lazy only where
CPython allows one: at module level (an `if`, `with`, `for`, `while` or `match` block
included), never in a `try`, a class body or a function, never a star import or a
`__future__` one.

An import is refused, with the reason, where deferring it cannot be proven safe, as
`eager.deferrable` says for every form (the one answer the smallest cut prefers by); and, in
the `__lazy_modules__` form, a relative import (which the engine does not look up there), an
import whose module another import of the file not to be deferred also names (the list names
modules, not statements), or a file whose `__lazy_modules__` it cannot read. Each edited
file is read back before it is offered (`check_edited`); a file is read, and written, in the
encoding Python reads it in (its coding cookie; its byte-order mark kept first), and the
edit goes after its docstring, its `__future__` imports and what shares their lines.
"""

from __future__ import annotations

import ast
import io
import sys
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from ..eager.deferrable import assigned_names, deferrable, source_text
from ..eager.import_time_uses import lazy_target, reading_for
from ..eager.parsing import parse, parse_error
from ..eager.scopes import read_source
from ..eager.target import target_python
from .functions import moved_into_functions
from .module_getattr import served_by_getattr

KEYWORD = "lazy"
LAZY_MODULES = "lazy-modules"
IN_FUNCTIONS = "in-functions"
FORMS = (KEYWORD, LAZY_MODULES, IN_FUNCTIONS)

_NAME = "__lazy_modules__"


class Refusal(NamedTuple):
    """An import statement left as it is, and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: not made lazy: {self.reason}."


class FileEdit(NamedTuple):
    """A source file's text before and after the edit, the import lines made lazy, and the
    encoding that gives the file's bytes from its text (its byte-order mark, where it has
    one, is the text's first character)."""

    path: str
    original: str
    edited: str
    lines: tuple[int, ...]
    encoding: str = "utf-8"


class LazyEdits(NamedTuple):
    """The edits of each file, and the imports refused."""

    edits: list[FileEdit]
    refused: list[Refusal]


class Checked(NamedTuple):
    """What the check found on an import statement's line: the module whose file holds it,
    and the modules it imports there (any one of them names the statement)."""

    importer: str
    imported: tuple[str, ...]


def lazy_edits(
    statements: Iterable[tuple[str, int]],
    form: str,
    checked: Mapping[tuple[str, int], Checked] | None = None,
) -> LazyEdits:
    """Return the edits that make each import statement (a file, and the line its statement
    starts on) lazy in `form`, and the statements refused, with why. `checked`: what the
    check found on those lines, where it is known; a statement that is not that import now
    (the file changed since) is refused.

    A file whose edit does not read back as it must (`check_edited`) is left as it is: each
    of its statements is refused, with why.
    """
    by_file: dict[str, list[int]] = {}
    for path, line in statements:
        by_file.setdefault(path, [])
        if line not in by_file[path]:
            by_file[path].append(line)
    edits: list[FileEdit] = []
    refused: list[Refusal] = []
    known = checked or {}
    for path, lines in by_file.items():
        found = {line: known[path, line] for line in lines if (path, line) in known}
        edit, refusals = _edit_file(path, sorted(lines), form, found)
        refused += refusals
        if edit is None:
            continue
        wrong = check_edited(edit, form)
        if wrong is None:
            edits.append(edit)
            continue
        why = f"the edited file does not read back as it must ({wrong}): left as it is"
        refused += [Refusal(path, line, why) for line in edit.lines]
    return LazyEdits(edits, refused)


def _edit_file(
    path: str, lines: list[int], form: str, checked: Mapping[int, Checked]
) -> tuple[FileEdit | None, list[Refusal]]:
    reading = deferrable(Path(path), path, lines)
    module = reading.module
    changed = {} if module is None else _changed(module, path, checked)
    for line in changed:
        reading.statements.pop(line, None)
    refused = [
        Refusal(path, line, changed.get(line) or why.reason)
        for line, why in reading.refused.items()
    ]
    refused += [
        Refusal(path, line, why) for line, why in changed.items() if line not in reading.refused
    ]
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
    if form == IN_FUNCTIONS and chosen:
        serve = served_by_getattr if Path(path).name == "__init__.py" else moved_into_functions
        # (The byte-order mark stays first, whatever lines the edit removes.)
        mark = _MARK if reading.text.startswith(_MARK) else ""
        moved = serve(source_lines(reading.text.removeprefix(mark)), module, path, chosen)
        refused += [Refusal(path, line, why) for line, why in moved.refused.items()]
        refused.sort(key=lambda refusal: refusal.line)
        if moved.edited is None:
            return None, refused
        edited = mark + moved.edited
        return FileEdit(path, reading.text, edited, moved.lines, reading.encoding), refused
    refused.sort(key=lambda refusal: refusal.line)
    if not chosen:
        return None, refused
    if form == KEYWORD:
        edited = _with_keyword(reading.text, chosen)
    else:
        edited = _with_lazy_modules(reading.text, module, chosen, declared)
    made = tuple(node.lineno for node in chosen)
    return FileEdit(path, reading.text, edited, made, reading.encoding), refused


def _changed(module: ast.Module, path: str, checked: Mapping[int, Checked]) -> dict[int, str]:
    """Why each statement of `checked` is not now the import the check found on its line
    (none where it is)."""
    starting: dict[int, ast.Import | ast.ImportFrom] = {}
    for each in ast.walk(module):
        if isinstance(each, ast.Import | ast.ImportFrom):
            starting.setdefault(each.lineno, each)
    package = Path(path).name == "__init__.py"
    why: dict[int, str] = {}
    for line, found in checked.items():
        node = starting.get(line)
        wanted = found.imported[0] if found.imported else found.importer
        if node is None:
            why[line] = (
                f"the file changed since the check: no import starts on this line now, where "
                f"it imported {wanted} (run fix again)"
            )
        elif not set(found.imported) & _named(node, found.importer, package):
            shown = ", ".join(alias.name for alias in node.names)
            if isinstance(node, ast.ImportFrom):
                shown = "." * node.level + (node.module or "")
            why[line] = (
                f"the file changed since the check: this line imports {shown}, not {wanted} "
                "(run fix again)"
            )
    return why


def _named(node: ast.Import | ast.ImportFrom, importer: str, package: bool) -> set[str]:
    """The modules an import statement of `importer` (a package's `__init__` or not) may
    import: `import a.b` imports `a` and `a.b`; `from a import b`, `a` and `a.b`."""
    if isinstance(node, ast.Import):
        return {
            ".".join(parts[:end])
            for alias in node.names
            for parts in [alias.name.split(".")]
            for end in range(1, len(parts) + 1)
        }
    base = node.module or ""
    if node.level:
        parts = importer.split(".")
        kept = len(parts) - node.level + (1 if package else 0)
        base = ".".join([*parts[: max(kept, 0)], *([base] if base else [])])
    return {base, *(f"{base}.{alias.name}" for alias in node.names)}


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


_MARK = "\ufeff"


def _column(line: str, offset: int) -> int:
    """The index in `line` of a UTF-8 byte offset, as `ast` gives columns (after the
    byte-order mark, which `ast` does not count, on the first line)."""
    mark = len(_MARK) if line.startswith(_MARK) else 0
    return mark + len(line[mark:].encode("utf-8")[:offset].decode("utf-8"))


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
    if declared.node is not None:
        new = [name for name in dict.fromkeys(added) if name not in declared.names]
        return _extended(text, declared.node, new)
    listed = ", ".join(f'"{name}"' for name in dict.fromkeys(added))
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] or "\n"
    statement = f"{_NAME} = [{listed}]{ending}"
    before = _lazy_modules_line(module) - 1
    if before == 0 and lines and lines[0].startswith(_MARK):
        lines[0] = lines[0][len(_MARK) :]
        statement = _MARK + statement
    lines.insert(before, statement)
    return "".join(lines)


def _extended(text: str, node: ast.Assign | ast.AnnAssign, names: list[str]) -> str:
    """`text` with `names` added to the literal that `node` assigns to `__lazy_modules__`,
    everything else in it kept: its layout, its comments, its trailing comma. Over lines,
    each name goes on a line of its own before the closing bracket, indented as the last
    item."""
    value = node.value
    assert isinstance(value, ast.List | ast.Tuple | ast.Set)
    if not names:
        return text
    lines = source_lines(text)
    closing_line = (value.end_lineno or value.lineno) - 1
    closing = _column(lines[closing_line], value.end_col_offset or 0) - 1
    quoted = [f'"{name}"' for name in names]
    last = value.elts[-1] if value.elts else None
    comma = last is not None and _comma_after(lines, last, (closing_line, closing))
    opened = value.lineno if last is None else (last.end_lineno or last.lineno)
    own_lines = closing_line > opened - 1
    closing_text = lines[closing_line]
    if own_lines and not closing_text[:closing].strip():
        if last is not None:
            indentation = _indentation(lines[last.lineno - 1])
        else:
            indentation = _indentation(lines[value.lineno - 1]) + "    "
        ending = closing_text[len(closing_text.rstrip("\r\n")) :] or "\n"
        added = "".join(f"{indentation}{each},{ending}" for each in quoted)
        lines.insert(closing_line, added)
        if last is not None and not comma:
            end_line = (last.end_lineno or last.lineno) - 1
            end = _column(lines[end_line], last.end_col_offset or 0)
            lines[end_line] = lines[end_line][:end] + "," + lines[end_line][end:]
        return "".join(lines)
    joined = ", ".join(quoted)
    if last is None:
        single = isinstance(value, ast.Tuple) and len(names) == 1
        inserted = joined + ("," if single else "")
    else:
        inserted = (" " if comma else ", ") + joined
    if last is not None and not comma:
        end_line = (last.end_lineno or last.lineno) - 1
        end = _column(lines[end_line], last.end_col_offset or 0)
        lines[end_line] = lines[end_line][:end] + inserted + lines[end_line][end:]
    else:
        lines[closing_line] = closing_text[:closing] + inserted + closing_text[closing:]
    return "".join(lines)


def _comma_after(lines: list[str], last: ast.expr, closing: tuple[int, int]) -> bool:
    """Whether a comma stands between the expression `last` and the closing bracket (its
    line's index, and its index in the line): only blanks, line ends, backslashes,
    comments and a comma can be there."""
    first = (last.end_lineno or last.lineno) - 1
    start = _column(lines[first], last.end_col_offset or 0)
    between = "".join(lines[first : closing[0] + 1])
    between = between[start : len(between) - len(lines[closing[0]]) + closing[1]]
    return "," in "".join(part.partition("#")[0] for part in source_lines(between))


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f" + _MARK))].lstrip(_MARK)


def _lazy_modules_line(module: ast.Module) -> int:
    """The line before which `__lazy_modules__` goes: that of the first statement after the
    docstring and the `__future__` imports (whose place Python fixes), and after any
    statement that shares a line with them (which the edit leaves where it is)."""
    header_end = 0
    for index, node in enumerate(module.body):
        docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        )
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        decorators: list[ast.expr] = getattr(node, "decorator_list", [])
        first = min([node.lineno, *(d.lineno for d in decorators)])
        if docstring or future or first <= header_end:
            header_end = max(header_end, node.end_lineno or node.lineno)
            continue
        return first
    raise AssertionError("an edited file has an import statement")


def check_edited(edit: FileEdit, form: str) -> str | None:
    """Return why an edited file does not read back as the engine reads it for the Python
    its lazy imports run on, or None where it does: compiled as it stands, its docstring,
    and every statement but the edited imports (and `__lazy_modules__`) unchanged, and each
    edited import lazy. Where the running Python cannot parse `lazy import` (before 3.15),
    check instead that the file is the original with `lazy ` inserted before those imports,
    each a module-level statement outside a `try` (where Python 3.15's grammar takes the
    keyword), which `lazy_edits` made sure of on the original's syntax tree."""
    if form == IN_FUNCTIONS:
        # (`functions` read the move back on the syntax tree: here, that it compiles.)
        return _compiles(edit)
    if form == KEYWORD and sys.version_info < (3, 15):
        original = source_lines(edit.original)
        back = [
            line.replace("lazy ", "", 1) if number in edit.lines else line
            for number, line in enumerate(source_lines(edit.edited), 1)
        ]
        if back != original:
            return "it is not the original with `lazy ` before each import made lazy"
        return None
    wrong = _compiles(edit)
    if wrong is not None:
        return wrong
    source = edit.edited.encode(edit.encoding)
    module = parse(source)
    before = parse(edit.original.encode(edit.encoding))
    if ast.get_docstring(module, clean=False) != ast.get_docstring(before, clean=False):
        return "the module's docstring would change"
    if _shape(module) != _shape(before):
        return "it would change more than its imports"
    with reading_for(lazy_target(target_python())):
        scopes = read_source(source).scopes
    shift = len(source_lines(edit.edited)) - len(source_lines(edit.original))
    for line in edit.lines:
        scope = scopes.get(line + shift)
        if scope is None or scope.eager or not scope.lazy:
            return f"l.{line + shift}, an edited import, does not read as lazy"
    return None


def _compiles(edit: FileEdit) -> str | None:
    """Return why the edited file would not parse or compile here, or would be decoded
    otherwise than it was written (a coding cookie that the edit moves into the first two
    lines, or out of them), or None."""
    source = edit.edited.encode(edit.encoding)
    try:
        if source_text(source) != (edit.edited, edit.encoding):
            return "Python would decode it otherwise than the original"
    except (SyntaxError, UnicodeError) as error:
        return f"Python would decode it otherwise than the original ({error})"
    try:
        parse(source)
    except (SyntaxError, ValueError) as error:
        return f"it would not parse ({parse_error(error)})"
    try:
        # (Compiled, not run: what `ast` leaves to the compiler, a misplaced `__future__`
        # import.)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, edit.path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"it would not compile ({getattr(error, 'msg', error)})"
    return None


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
