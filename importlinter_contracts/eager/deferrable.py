"""Whether an import statement can be made lazy (PEP 810) safely, or why not: the one
answer that the smallest cut prefers and `fix` edits by, whatever the form of the edit.

Python makes an import lazy only at module level (an `if`, `with`, `for`, `while` or
`match` block included), never in a `try`, a class body or a function, never a star import
or a `__future__` one. Deferring is not proven safe, besides: where the import does not run
at import time already (`if TYPE_CHECKING:`), or is lazy already; where a name it binds is
used at import time (`import_time_uses`: it would load there anyway); where it shares its
line with another statement (which the edit would change too); where the file names
`set_lazy_imports_filter` (which may refuse any lazy import); where it binds only names that
the file neither uses nor lists in `__all__` (`import a.plugins`, `from a import plugins as
_plugins`, for what importing it does, which deferred would never run); and where the file
cannot be read. (The `__lazy_modules__` form refuses more: `deferral.edit`.)
"""

from __future__ import annotations

import ast
import io
import sys
import tokenize
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

from ..errors import UnreadableSourceError
from ..locations import display_path
from .conditions import Clause, walk
from .import_time_uses import ImportTimeUse, import_time_uses
from .parsing import parse, parse_error
from .scopes import ImportScope, import_scopes

_FILTER = "set_lazy_imports_filter"


class NotLazy(NamedTuple):
    """Why an import statement cannot be made lazy safely; `use`, where that is a use at
    import time of a name it binds (the first)."""

    reason: str
    use: ImportTimeUse | None = None


class Deferrable(NamedTuple):
    """A file's reading for `deferrable`: its syntax tree and text (None where it cannot be
    read) and the encoding that gives its bytes back from the text, the import statements
    that can be made lazy, by their first line, and why each other line's cannot. `unread`:
    whether every line is refused because the file cannot be read."""

    module: ast.Module | None
    text: str
    encoding: str
    statements: dict[int, ast.Import | ast.ImportFrom]
    refused: dict[int, NotLazy]
    unread: bool


def deferrable(path: Path, shown: str, lines: Collection[int]) -> Deferrable:
    """Return, for each import statement of the file `path` (`shown` in the uses) that
    starts on one of `lines`, whether it can be made lazy safely, or why not, on the target
    Python raised to 3.15."""

    def refuse_all(reason: str, unread: bool, module: ast.Module | None = None) -> Deferrable:
        refused = {line: NotLazy(reason) for line in lines}
        return Deferrable(module, text, encoding, {}, refused, unread)

    text, encoding = "", "utf-8"
    try:
        source = path.read_bytes()
    except OSError as error:
        return refuse_all(f"the file cannot be read ({error.strerror})", unread=True)
    try:
        text, encoding = source_text(source)
    except (SyntaxError, UnicodeError) as error:
        return refuse_all(str(error), unread=True)
    try:
        module = parse(source)
    except (SyntaxError, ValueError, RecursionError) as error:
        shown_python = f"{sys.version_info[0]}.{sys.version_info[1]}"
        return refuse_all(
            f"Python {shown_python}, running here, cannot parse the file ({error})", unread=True
        )
    if _FILTER in text:
        return refuse_all(
            f"the file names {_FILTER}, which may refuse any lazy import", False, module
        )
    try:
        scopes = _import_scopes(source, shown, module)
        uses = import_time_uses(shown, source, set(lines), module)
    except UnreadableSourceError as error:
        return refuse_all(f"its imports cannot be read ({error})", True, module)
    found = _statements(module)
    used_anywhere = _names_used(module)
    statements: dict[int, ast.Import | ast.ImportFrom] = {}
    refused: dict[int, NotLazy] = {}
    for line in lines:
        node, reason = _statement(found, line)
        if node is None:
            refused[line] = NotLazy(reason)
            continue
        why = _why_not(node, scopes, uses, used_anywhere)
        if why is None:
            statements[line] = node
        else:
            refused[line] = why
    return Deferrable(module, text, encoding, statements, refused, False)


def source_text(source: bytes) -> tuple[str, str]:
    """Return a file's text, decoded as Python decodes it (its coding cookie, else UTF-8),
    with its byte-order mark as the text's first character, and the encoding that gives
    the same bytes back from that text (and from an edit of it that adds ASCII).

    Raises UnicodeError when the text does not encode back to the same bytes, SyntaxError
    for a cookie Python does not know, or a byte-order mark with another cookie.
    """
    declared, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    # (The mark is kept as text, as the diff shows it; the UTF-8 codec keeps it so.)
    encoding = "utf-8" if declared == "utf-8-sig" else declared
    try:
        text = source.decode(encoding)
    except UnicodeDecodeError as error:
        raise UnicodeError(
            f"the file cannot be read as {declared} ({error.reason} at byte {error.start})"
        ) from None
    try:
        exact = text.encode(encoding) == source
    except UnicodeEncodeError:
        exact = False
    if not exact:
        raise UnicodeError(
            "the file cannot be edited byte for byte: decoded as its coding cookie says "
            f"({declared}), it does not encode back to the same bytes"
        )
    return text, encoding


def _import_scopes(source: bytes, shown: str, module: ast.Module) -> dict[int, ImportScope]:
    """Return `import_scopes(source, module)`.

    Raises UnreadableSourceError when it cannot finish (a Python whose `ast` parses a deeply
    nested expression may still not walk it).
    """
    try:
        return import_scopes(source, module)
    except RecursionError as error:
        raise UnreadableSourceError(f"{shown}: {parse_error(error)}") from None


class _Statements(NamedTuple):
    """A file's statements, found in one walk through its blocks (`conditions.walk`): the
    clauses each statement stands in (outermost first), by the statement, the import
    statements by the line each starts on, and every statement."""

    places: dict[int, tuple[Clause, ...]]
    imports: dict[int, list[ast.Import | ast.ImportFrom]]
    every: list[ast.stmt]


def _statements(module: ast.Module) -> _Statements:
    places: dict[int, tuple[Clause, ...]] = {}
    imports: dict[int, list[ast.Import | ast.ImportFrom]] = {}
    every: list[ast.stmt] = []
    outermost: tuple[Clause, ...] = ()
    for node, place in walk(module.body, outermost, _inside):
        every.append(node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.setdefault(node.lineno, []).append(node)
            places[id(node)] = place
    return _Statements(places, imports, every)


def _inside(place: tuple[Clause, ...], clause: Clause) -> tuple[Clause, ...]:
    return (*place, clause)


def _statement(found: _Statements, line: int) -> tuple[ast.Import | ast.ImportFrom | None, str]:
    """The import statement that starts on `line`, or None and why not."""
    imports = found.imports.get(line)
    if not imports:
        return None, "no import statement starts on this line"
    node = imports[0]
    place = found.places[id(node)]
    ancestors = [clause.node for clause in place]
    span = range(node.lineno, (node.end_lineno or node.lineno) + 1)
    shared = [
        other
        for other in found.every
        if other is not node
        and (other.lineno in span or (other.end_lineno in span and other not in ancestors))
    ]
    if shared:
        return None, "it shares its line with another statement, which the edit would change too"
    for clause in reversed(place):
        if clause.statement == "def":
            return None, (
                f"it is inside `def {clause.name}`, which runs it only when called: the call "
                "that runs it at import time is what to defer (fix does not edit calls)"
            )
        if clause.statement == "class":
            return None, f"it is in the body of class {clause.name}, where an import cannot be lazy"
        if clause.statement == "try":
            return None, (
                "it is inside a `try` statement, where an import cannot be lazy (an ImportError "
                "it catches would be raised at the first use instead)"
            )
    return node, ""


def _why_not(
    node: ast.Import | ast.ImportFrom,
    scopes: dict[int, ImportScope],
    uses: dict[int, tuple[ImportTimeUse, ...]],
    used_anywhere: set[str],
) -> NotLazy | None:
    """Why `node` cannot be made lazy safely, or None where it can."""
    if any(alias.name == "*" for alias in node.names):
        return NotLazy("a star import (`from ... import *`) cannot be lazy")
    if isinstance(node, ast.ImportFrom) and node.module == "__future__" and not node.level:
        return NotLazy("a `__future__` import cannot be lazy")
    if getattr(node, "is_lazy", 0):
        return NotLazy("it is lazy already")
    scope = scopes.get(node.lineno)
    if scope is not None and not scope.eager:
        if scope.lazy:  # (as the engine reads it for the target)
            return NotLazy(f"it is lazy already ({scope.reason})")
        return NotLazy(f"it does not run at import time already ({scope.reason})")
    found = uses.get(node.lineno, ())
    if found:
        return NotLazy(f"{found[0]}: deferred, it would load there anyway", found[0])
    # (`import a.b` binds `a`, but is used where `a.b` is read.)
    if not any((alias.asname or alias.name) in used_anywhere for alias in node.names):
        return NotLazy(
            "no name it binds is used in the file or listed in its __all__: an import made for "
            "what importing the module does, which deferred would never run"
        )
    return None


def _names_used(module: ast.Module) -> set[str]:
    """The names the file's code loads anywhere, each dotted name it reads with its prefixes
    (`a.b.c`: `a`, `a.b`, `a.b.c`, which `import a.b` binds), and the strings of its
    `__all__`."""
    found: set[str] = set()
    for node in ast.walk(module):
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.insert(0, node.attr)
            node = node.value
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for end in range(len(parts) + 1):
                found.add(".".join([node.id, *parts[:end]]))
    for node in module.body:
        if isinstance(node, ast.Assign | ast.AugAssign) and "__all__" in assigned_names(node):
            found.update(
                each.value
                for each in ast.walk(node.value)
                if isinstance(each, ast.Constant) and isinstance(each.value, str)
            )
    return found


def assigned_names(node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> list[str]:
    """Return the plain names that an assignment statement assigns."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [target.id for target in targets if isinstance(target, ast.Name)]


def why_not_lazy(path: Path, lines: Collection[int]) -> dict[int, NotLazy | None]:
    """Return, for the import statement starting on each of `lines` of the file `path`, why
    it cannot be made lazy safely, or None where it can (the file read once).

    Raises UnreadableSourceError when the file cannot be read or parsed here.
    """
    shown = display_path(path)
    reading = deferrable(path, shown, lines)
    if reading.unread:
        raise UnreadableSourceError(f"{shown}: {reading.refused[next(iter(lines))].reason}")
    return {line: reading.refused.get(line) for line in lines}
