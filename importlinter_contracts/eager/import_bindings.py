"""What import statements bind (`Binding`): of a parsed import statement; of a `from`
import read from its own lines, without parsing the file (`simple_from_import`,
`bracketed_from_import`, `from_import_bindings`, which grimp's lines ask of); and the names
that a module replaced in `sys.modules` serves by importing them when first looked up
(`served_imports`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from .call_expressions import leaves_function
from .call_model import (
    STAR,
    Binding,
    NeverRuns,
    Served,
)
from .conditions import (
    UNLESS,
    Clause,
    Conditions,
    SourceLines,
    clause_conditions,
    clauses,
    undecided_test,
    walk,
)
from .conditions import source_text as _source_text
from .parsing import parse


def served_imports(
    statements: list[ast.stmt], tests: tuple[SourceLines, NeverRuns] | None = None
) -> dict[str, Served]:
    """Return, of a module whose code at import time puts another object in its place in
    `sys.modules` (`sys.modules[__name__] = _LazyModule(...)`, as diffusers' and transformers'
    packages do), the names that its imports under an `if` bind, each with the lines of those
    imports: that object serves each name by importing it when it is first looked up, as they
    do. Of any other module, none. With the file's lines and its reading's way of deciding a
    test (`tests`), the tests of the blocks inside that `if` are kept with each import (`try:
    if not X: raise ... else: import y`: y only if X)."""
    replaced = False
    found: dict[str, list[int]] = {}
    tested: dict[int, Conditions] = {}

    def enter(around: tuple[bool, Conditions], clause: Clause) -> tuple[bool, Conditions] | None:
        """Of a clause's statements: whether an `if` holds them, and the tests inside it."""
        if clause.statement in ("def", "class"):
            return None
        under_if, conditions = around
        more = _clause_tests(clause, tests) if under_if else ()
        if not under_if and clause.statement == "if" and clause.keyword != "if":
            # (The first `if` of a chain is what serves them: the tests after it are read.)
            more = _clause_tests(clause._replace(earlier=clause.earlier[1:]), tests)
        return under_if or clause.statement == "if", (*conditions, *more)

    outermost: tuple[bool, Conditions] = (False, ())
    for node, (under_if, conditions) in walk(statements, outermost, enter):
        if isinstance(node, ast.Assign) and any(_is_own_entry(t) for t in node.targets):
            replaced = True
        elif isinstance(node, ast.Import | ast.ImportFrom) and under_if:
            for binding in bindings_of(node):
                if binding.name != STAR:
                    found.setdefault(binding.name, []).append(node.lineno)
            if conditions:
                tested[node.lineno] = conditions
    if not replaced:
        return {}
    return {
        name: Served(
            tuple(sorted(found_lines)),
            tuple((line, tested[line]) for line in sorted(found_lines) if line in tested),
        )
        for name, found_lines in found.items()
    }


def _clause_tests(clause: Clause, tests: tuple[SourceLines, NeverRuns] | None) -> Conditions:
    """The tests a clause's statements run under, read where `tests` are given: of an `if`,
    its test or its negation; of a `try`, the handlers' exception types, and for its `else`,
    the negation of each `if` of its body that raises."""
    if tests is None:
        return ()
    lines, never_runs = tests
    if clause.statement == "try" and clause.keyword == "else":

        def text(node: ast.expr) -> str:
            return _source_text(lines, node)

        body = clauses(clause.node)[0].body
        return tuple(
            (UNLESS, undecided_test(inner.test, text, never_runs), inner.lineno)
            for inner in body
            if isinstance(inner, ast.If) and leaves_function(inner.body) and not inner.orelse
        )
    return clause_conditions(clause, lines, never_runs)


def _is_own_entry(target: ast.expr) -> bool:
    """Whether an assignment's target is `sys.modules[__name__]`."""
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.value, ast.Attribute)
        and target.value.attr == "modules"
        and isinstance(target.slice, ast.Name)
        and target.slice.id == "__name__"
    )


# A `from` import on a line of its own, as grimp reports a line (stripped): the dots, the
# module, the names.
_SIMPLE_FROM_IMPORT = re.compile(
    r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+([\w \t,]+?)[ \t]*"
)


def simple_from_import(text: str, line: int) -> tuple[Binding, ...] | None:
    """Return what a `from` import on `line` binds, where `text` (the line) holds nothing else:
    None for any other line (the statement's own lines then tell, `from_import_bindings`)."""
    if not text.isascii():
        return None  # (Python reads names in their NFKC form, which `ast` gives)
    match = _SIMPLE_FROM_IMPORT.fullmatch(text)
    if match is None:
        return None
    dots, module, names = match.groups()
    return _listed(names.split(","), module, len(dots), line)


def _listed(items: list[str], module: str, level: int, line: int) -> tuple[Binding, ...] | None:
    """What the names a `from` import lists bind (`name`, `name as other`); None where an
    item is anything else."""
    found = []
    for item in items:
        words = item.split()
        if len(words) == 1 and words[0].isidentifier():
            found.append(Binding(words[0], module, level, words[0], line))
        elif len(words) == 3 and words[1] == "as" and words[0].isidentifier():
            found.append(Binding(words[2], module, level, words[0], line))
        else:
            return None
    return tuple(found)


# The first line of a `from` import whose names stand in brackets: the dots, the module, and
# what follows the bracket.
_BRACKETED_FROM_IMPORT = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*\((.*)")
# A line of the names in brackets: names, `as`, commas and a comment.
_NAMES_IN_BRACKETS = re.compile(rb"[\w \t,]*")


def bracketed_from_import(
    text: str, following: list[bytes], line: int
) -> tuple[Binding, ...] | None:
    """Return what a `from` import on `line` binds, where `text` (the line, stripped) opens
    brackets that hold only names, and `following` (the file's lines, as bytes, from the next
    one on) closes them before anything but a comment: None for any other statement (its
    own lines then tell, `from_import_bindings`). Read without `ast`: most `from` imports of
    many names are written so."""
    match = _BRACKETED_FROM_IMPORT.fullmatch(text)
    if match is None or not text.isascii():
        return None
    dots, module, rest = match.groups()
    names = []
    for raw in [rest.encode(), *following[:_STATEMENT_LINES]]:
        code, _, comment = raw.partition(b"#")
        if b"\r" in comment or not comment.isascii():
            return None
        inside, closed, after = code.partition(b")")
        if not _NAMES_IN_BRACKETS.fullmatch(inside) or (closed and after.strip()):
            return None
        names.append(inside.decode())
        if closed:
            break
    else:
        return None
    items = " ".join(names).split(",")
    if items and not items[-1].strip():
        items.pop()  # (a comma after the last name)
    return _listed(items, module, len(dots), line) or None


def from_import_bindings(lines: list[str], line: int) -> tuple[Binding, ...] | None:
    """Return what the `from` import statements that start on `line` of a file bind, read from the
    statement's own lines (those that follow, where it goes on in brackets or after a
    backslash); None where they do not parse alone (`else: from m import x`, say): the file's
    call reading has them then."""
    text = lines[line - 1].lstrip()
    for end in range(line, min(line + _STATEMENT_LINES, len(lines)) + 1):
        goes_on = text.rstrip().endswith("\\") or sum(map(text.count, "([{")) > sum(
            map(text.count, ")]}")
        )
        if goes_on and end < len(lines) and not _COMMENT_OR_STRING.search(text):
            # Brackets outside comments and strings still open: no parse can succeed yet
            # (parsing at each line made a statement of n lines cost n parses).
            text += "\n" + lines[end]
            continue
        try:
            module = parse(text)
        except (SyntaxError, ValueError):
            if end == len(lines) or not goes_on:
                return None
            text += "\n" + lines[end]
            continue
        return tuple(
            binding._replace(line=line)
            for node in ast.walk(module)
            if isinstance(node, ast.ImportFrom) and node.lineno == 1
            for binding in bindings_of(node)
        )
    return None


# The most lines a statement is read from by `from_import_bindings`.
_STATEMENT_LINES = 100
# Where brackets may stand in a comment or a string, their count says nothing.
_COMMENT_OR_STRING = re.compile("[#'\"]")


def bindings_of(node: ast.Import | ast.ImportFrom) -> Iterator[Binding]:
    """Return the names an import statement binds."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield Binding(alias.asname, alias.name, line=node.lineno)
            else:
                top = alias.name.partition(".")[0]
                yield Binding(top, top, line=node.lineno)
    else:
        for alias in node.names:
            yield Binding(
                alias.asname or alias.name, node.module or "", node.level, alias.name, node.lineno
            )
