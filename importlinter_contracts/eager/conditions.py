"""The tests that decide whether a statement runs at import time, as data.

A statement in a block stands under the tests of the blocks around it (of its own function
only: a function's body runs under the tests of the call that runs it). A test is decided
where the tool knows its value on every machine, mypy's `reachability` style: false for
`TYPE_CHECKING` (and a name bound to it), `__name__ == "__main__"`, `False`, `0`, a name that
`assume_false` lists, and an `or` of such tests; a block whose test is false never runs on
import. Any other test is undecided: the statement runs on some machines, and a hop it makes
carries the test as a `Condition`.

A condition is a plain tuple (`marshal`, which keeps the caches, writes no named one), made
and read by the functions here alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import NamedTuple

# What a condition says of its test (`kind`):
IF = "if"  # the test of an `if`, `elif` or `while` is true
ELSE = "else"  # the test of an `if` is false: its `else` (an `elif`: `not (A)`, then its own)
EXCEPT = "except"  # the `try` raised, and this handler's exception matched: the test is its type
UNLESS = "unless"  # an earlier `if` of the function, whose body returns or raises, did not
# A function that may return other names returned this one, which it returns under no test
# of its own: the test is `f() == "name"`.
RETURNS = "returns"

KINDS = (IF, ELSE, EXCEPT, UNLESS, RETURNS)

# Kind, the test's source text (its whitespace collapsed), the line of its statement.
Condition = tuple[str, str, int]
Conditions = tuple[Condition, ...]
# A condition where it stands: the module whose code holds the test, then the condition.
LocatedCondition = tuple[str, str, str, int]


def located(module: str, conditions: Conditions) -> tuple[LocatedCondition, ...]:
    """Return conditions of `module`'s code, each with the module."""
    return tuple((module, kind, test, line) for kind, test, line in conditions)


def shown(condition: Condition) -> str:
    """Return the test a condition stands for, as Python would write it: `A`, `not (A)`,
    `except ImportError`."""
    kind, test, _ = condition
    if kind in (IF, RETURNS):
        return test
    if kind == EXCEPT:
        return f"except {test}" if test else "except"
    if test.startswith("not ") and _is_negation(test):
        return test.removeprefix("not ").strip()
    return f"not ({test})"


def _is_negation(test: str) -> bool:
    """Whether a test is `not` applied to the whole of the rest (`not a`, not `not a or b`)."""
    try:
        parsed = ast.parse(test, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return False
    return isinstance(parsed, ast.UnaryOp) and isinstance(parsed.op, ast.Not)


class Clause(NamedTuple):
    """One block of statements of a compound statement that is not a def or class: the
    statement's keyword (`if`, `for`, `while`, `with`, `try`, `match`) and the clause's (`if`,
    `for`, `while`, `with`, `try`, `except`, `else`, `finally`, `case`), its statements, the
    line its header stands on, and what it tests: an `if` (and its `else`) or a `while` its
    test, an `except` its exception type (and the name it binds), a `case` its pattern (and
    its guard)."""

    statement: str
    keyword: str
    body: list[ast.stmt]
    line: int
    test: ast.AST | None = None
    guard: ast.expr | None = None
    name: str | None = None


# The nodes a compound statement's clauses stand in, besides statements: what a walk over
# `ast.iter_child_nodes` meets as a block's holder. (This module alone names the kinds of
# compound statement: the readers ask `clauses`.)
CLAUSE_NODES = (ast.ExceptHandler, ast.match_case)
# The nodes a walk through a file's blocks visits, leaving out its expressions (which hold no
# statement): statements and the clauses they stand in.
BLOCK_NODES = (ast.stmt, *CLAUSE_NODES)


def clauses(node: ast.AST) -> list[Clause]:
    """Return the clauses of a compound statement that is not a def or class, in the order
    they stand; none for any other node."""
    if isinstance(node, ast.If):
        return [
            Clause("if", "if", node.body, node.lineno, node.test),
            Clause("if", "else", node.orelse, node.lineno, node.test),
        ]
    if isinstance(node, ast.For | ast.AsyncFor | ast.While):
        keyword = "while" if isinstance(node, ast.While) else "for"
        test = node.test if isinstance(node, ast.While) else None
        return [
            Clause(keyword, keyword, node.body, node.lineno, test),
            Clause(keyword, "else", node.orelse, node.lineno),
        ]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [Clause("with", "with", node.body, node.lineno)]
    if isinstance(node, ast.Try | ast.TryStar):
        return [
            Clause("try", "try", node.body, node.lineno),
            *(
                Clause("try", "except", h.body, h.lineno, h.type, name=h.name)
                for h in node.handlers
            ),
            Clause("try", "else", node.orelse, node.lineno),
            Clause("try", "finally", node.finalbody, node.lineno),
        ]
    if isinstance(node, ast.Match):
        return [
            Clause("match", "case", case.body, case.pattern.lineno, case.pattern, case.guard)
            for case in node.cases
        ]
    return []


def clause_conditions(clause: Clause, lines: SourceLines) -> Conditions:
    """Return the test a clause's statements run under beyond those of its statement: an
    `if` or `while` body's test, an `if`'s `else` with that test false, an `except`
    handler's exception type; none for any other clause."""
    if clause.keyword == "except":
        text = "" if clause.test is None else source_text(lines, clause.test)
        return ((EXCEPT, text, clause.line),)
    if clause.test is None or clause.keyword not in ("if", "while", "else"):
        return ()
    kind = ELSE if clause.keyword == "else" else IF
    return ((kind, source_text(lines, clause.test), clause.line),)


def always_runs(test: ast.expr, never_runs: Callable[[ast.expr], bool]) -> bool:
    """Return whether an `if` body always runs on import: its test a true constant (`True`,
    `1`), or `not` a test that never runs (`never_runs`, of the reading that asks)."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    return (
        isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and never_runs(test.operand)
    )


def match_subject(node: ast.AST) -> ast.expr | None:
    """Return what a `match` statement matches; None for any other node."""
    return node.subject if isinstance(node, ast.Match) else None


def is_condition(value: object) -> bool:
    """Return whether a value read back from a cache is a condition."""
    return (
        type(value) is tuple
        and len(value) == 3
        and value[0] in KINDS
        and type(value[1]) is str
        and type(value[2]) is int
    )


class SourceLines:
    """A file's lines as `ast` numbers them, split from its text (or got from `source`) when
    first asked for: most files have no test worth reading."""

    __slots__ = ("_lines", "_source")

    def __init__(self, source: str | Callable[[], list[str]]) -> None:
        self._source = source
        self._lines: list[str] | None = None

    def get(self) -> list[str]:
        if self._lines is None:
            source = self._source
            self._lines = _NEWLINE.split(source) if isinstance(source, str) else source()
        return self._lines


_NEWLINE = re.compile(r"\r\n|\r|\n")


def source_text(lines: SourceLines, node: ast.AST) -> str:
    """Return the source text of a node, its whitespace collapsed (its `ast.unparse` where the
    lines do not hold it)."""
    line = getattr(node, "lineno", 0)
    end = getattr(node, "end_lineno", None)
    found = lines.get()
    if end is None or not 0 < line <= end <= len(found):
        return ast.unparse(node)
    start_col = getattr(node, "col_offset", 0)
    end_col = getattr(node, "end_col_offset", 0)
    # (Offsets count UTF-8 bytes.)
    if line == end:
        text = found[line - 1].encode()[start_col:end_col].decode("utf-8", "replace")
    else:
        parts = [found[line - 1].encode()[start_col:].decode("utf-8", "replace")]
        parts += found[line : end - 1]
        parts.append(found[end - 1].encode()[:end_col].decode("utf-8", "replace"))
        text = "\n".join(parts)
    return " ".join(text.split())
