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

# What a condition says of its test (`kind`):
IF = "if"  # the test of an `if`, `elif` or `while` is true
ELSE = "else"  # the test of an `if` is false: its `else` (an `elif`: `not (A)`, then its own)
EXCEPT = "except"  # the `try` raised, and this handler's exception matched: the test is its type
UNLESS = "unless"  # an earlier `if` of the function, whose body returns or raises, did not

KINDS = (IF, ELSE, EXCEPT, UNLESS)

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
    if kind == IF:
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
