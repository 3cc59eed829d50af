"""The tests that decide whether a statement runs at import time, as data.

A statement in a block stands under the tests of the blocks around it (of its own function
only: a function's body runs under the tests of the call that runs it). A test is decided
where the tool knows its value on every machine, mypy's `reachability` style: false for
`TYPE_CHECKING` (and a name bound to it), `__name__ == "__main__"`, `False`, `0`, a name that
`assume_false` lists, an `or` of such tests, and an `and` with such a test among its
operands; a block whose test is false never runs on import. Any other test is undecided: the
statement runs on some machines, and a hop it makes carries the test as a `Condition`, which
leaves out the operands of an `or` that are false (`undecided_test`: `TYPE_CHECKING or X` is
`X`).

A condition is a plain tuple (`marshal`, which keeps the caches, writes no named one), made
and read by the functions here alone.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple, TypeVar

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
    """One block of statements of a compound statement: the statement's keyword (`if`, `for`,
    `while`, `with`, `try`, `match`, `def`, `class`) and the clause's (`if`, `elif`, `for`,
    `while`, `with`, `try`, `except`, `else`, `finally`, `case`, `def`, `async def`,
    `class`), its statements, the line its header stands on, and what it tests: an `if` or
    `elif` or a `while` its test, an `except` its exception type (and the name it binds), a
    `case` its pattern (and its guard); a def's or class's name. An `elif` or the `else` of
    an `if` runs after the chain's `earlier` tests, each with its line, were false. `node`:
    the compound statement."""

    statement: str
    keyword: str
    body: list[ast.stmt]
    line: int
    node: ast.stmt
    test: ast.AST | None = None
    guard: ast.expr | None = None
    name: str | None = None
    earlier: tuple[tuple[ast.expr, int], ...] = ()


class Block(NamedTuple):
    """One block a statement stands in, as every reader gives it: the clause's keyword as
    `block_keyword` gives it (and `match or case` where the outline does not tell the two
    apart); whether its statements run when the module is imported, given that those around it
    do (mypy's reachability as a tri-state: True always, False never, None only where its tests
    hold); the undecided tests they run under beyond those of the blocks around it, where read
    (an `elif`'s: the earlier tests false, then its own); and what names it: a def's or class's
    name, or the test of an `if` whose body never runs (`TYPE_CHECKING`). `scopes.scope_in`
    renders the blocks around an import as the reason it gives."""

    keyword: str
    runs: bool | None = True
    conditions: Conditions = ()
    name: str = ""


def block_keyword(statement: str, keyword: str) -> str:
    """Return the keyword of the block of a clause of `statement`: the clause's, but the `else`
    of a `for`, `while` or `try` is `for-else`, `while-else`, `try-else`, which a reason
    would otherwise give as an `if`'s (an `if`'s stays `else`)."""
    if keyword == "else" and statement != "if":
        return f"{statement}-else"
    return keyword


# The nodes a compound statement's clauses stand in, besides statements: what a walk over
# `ast.iter_child_nodes` meets as a block's holder. (This module alone names the kinds of
# compound statement: the readers ask `clauses` and `walk`.)
CLAUSE_NODES = (ast.ExceptHandler, ast.match_case)
# The nodes a walk through a file's blocks visits, leaving out its expressions (which hold no
# statement): statements and the clauses they stand in.
BLOCK_NODES = (ast.stmt, *CLAUSE_NODES)


def clauses(node: ast.AST) -> list[Clause]:
    """Return the clauses of a compound statement that is not a def or class, in the order
    they stand (an `if`'s `elif`s as clauses of their own); none for any other node."""
    if not isinstance(node, _COMPOUND):
        return []  # Most statements are answered with this one test.
    if isinstance(node, ast.If):
        found = [Clause("if", "if", node.body, node.lineno, node, node.test)]
        earlier: tuple[tuple[ast.expr, int], ...] = ((node.test, node.lineno),)
        chain = node
        # `elif` is an `if` alone in the else branch, starting where its `if` does.
        while (
            len(chain.orelse) == 1
            and isinstance(inner := chain.orelse[0], ast.If)
            and inner.col_offset == node.col_offset
        ):
            found.append(
                Clause("if", "elif", inner.body, inner.lineno, node, inner.test, earlier=earlier)
            )
            earlier = (*earlier, (inner.test, inner.lineno))
            chain = inner
        found.append(Clause("if", "else", chain.orelse, node.lineno, node, earlier=earlier))
        return found
    if isinstance(node, ast.For | ast.AsyncFor | ast.While):
        keyword = "while" if isinstance(node, ast.While) else "for"
        test = node.test if isinstance(node, ast.While) else None
        return [
            Clause(keyword, keyword, node.body, node.lineno, node, test),
            Clause(keyword, "else", node.orelse, node.lineno, node),
        ]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [Clause("with", "with", node.body, node.lineno, node)]
    if isinstance(node, ast.Try | ast.TryStar):
        return [
            Clause("try", "try", node.body, node.lineno, node),
            *(
                Clause("try", "except", h.body, h.lineno, node, h.type, name=h.name)
                for h in node.handlers
            ),
            Clause("try", "else", node.orelse, node.lineno, node),
            Clause("try", "finally", node.finalbody, node.lineno, node),
        ]
    if isinstance(node, ast.Match):
        return [
            Clause("match", "case", case.body, case.pattern.lineno, node, case.pattern, case.guard)
            for case in node.cases
        ]
    return []


# The statements `clauses` gives clauses of.
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)


def body_clause(node: ast.stmt) -> Clause | None:
    """Return the body of a def or class as a clause; None for any other statement."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        keyword = "def" if isinstance(node, ast.FunctionDef) else "async def"
        return Clause("def", keyword, node.body, node.lineno, node, name=node.name)
    if isinstance(node, ast.ClassDef):
        return Clause("class", "class", node.body, node.lineno, node, name=node.name)
    return None


_Around = TypeVar("_Around")


def walk(
    statements: list[ast.stmt],
    around: _Around,
    enter: Callable[[_Around, Clause], _Around | None],
) -> Iterator[tuple[ast.stmt, _Around]]:
    """Return each statement of a block in the order Python reads them, those of the clauses
    of its compound statements too (a def's and a class's bodies are clauses: `body_clause`),
    each with what the reader makes of the blocks it stands in: `around` for the block's own
    statements, and for a clause's, `enter(what the statement stands in, clause)`; a clause
    for which `enter` gives None is not walked. The one traversal of compound statements that
    the readers share; `own_statements` gives its order where no reader's blocks count."""
    # (A stack of iterators rather than a recursive generator: no frame per nesting level.)
    waiting: list[tuple[Iterator[ast.stmt], _Around]] = [(iter(statements), around)]
    while waiting:
        block, within = waiting[-1]
        node = next(block, None)
        if node is None:
            waiting.pop()
            continue
        yield node, within
        own = body_clause(node)
        parts = [own] if own is not None else clauses(node)
        if not parts:
            continue
        entered = [(clause.body, enter(within, clause)) for clause in parts]
        # (Pushed last first: the first clause's statements come next.)
        waiting += [(iter(body), inner) for body, inner in reversed(entered) if inner is not None]


def own_statements(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Return the statements of a block's own scope in the order they stand: those of the
    block and of its compound statements' clauses, not of the defs and classes in it (whose
    names are their own). `walk`'s order, without its work for each block."""
    found: list[ast.stmt] = []
    _add_own_statements(statements, found)
    return found


def _add_own_statements(statements: list[ast.stmt], found: list[ast.stmt]) -> None:
    # Recursive, as Python refuses blocks nested 100 deep.
    for node in statements:
        found.append(node)
        for clause in clauses(node):
            _add_own_statements(clause.body, found)


def clause_conditions(
    clause: Clause, lines: SourceLines, never_runs: Callable[[ast.expr], bool]
) -> Conditions:
    """Return the tests a clause's statements run under beyond those of its statement: an
    `if` or `while` body's test, an `elif`'s or an `else`'s earlier tests of its chain false
    (then an `elif`'s own), each as `undecided_test` gives it with the reading's
    `never_runs`; an `except` handler's exception type; none for any other clause."""
    if clause.keyword == "except":
        handled = "" if clause.test is None else source_text(lines, clause.test)
        return ((EXCEPT, handled, clause.line),)

    def text(node: ast.expr) -> str:
        return source_text(lines, node)

    earlier = tuple(
        (ELSE, undecided_test(test, text, never_runs), line) for test, line in clause.earlier
    )
    if clause.keyword in ("if", "elif", "while") and isinstance(clause.test, ast.expr):
        return (*earlier, (IF, undecided_test(clause.test, text, never_runs), clause.line))
    return earlier


def undecided_test(
    test: ast.expr, text: Callable[[ast.expr], str], never_runs: Callable[[ast.expr], bool]
) -> str:
    """Return the text of what an `if`, `elif` or `while` test leaves undecided, as a condition
    holds it: of an `or` some of whose operands a reading decides false (`never_runs`), the
    others, each as its `text` gives it (`TYPE_CHECKING or X`: `X`, as the `or` holds where
    `X` does); of any other test, the whole test's `text` (of an `or` whose every operand is
    false too: its block never runs, or is an `elif`'s, which is not decided). Every reader
    makes the condition of such a test, and of its `else`, here, deciding in its own way
    (the TYPE_CHECKING aliases it knows, `assume_false`)."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)):
        return text(test)
    kept = [operand for operand in test.values if not never_runs(operand)]
    if not kept or len(kept) == len(test.values):
        return text(test)
    if len(kept) == 1:
        return text(kept[0])
    # (An operand bound looser than `or` stood in brackets, which its text leaves out.)
    return " or ".join(
        f"({text(operand)})" if isinstance(operand, _LOOSER_THAN_OR) else text(operand)
        for operand in kept
    )


_LOOSER_THAN_OR = (ast.IfExp, ast.Lambda, ast.NamedExpr)


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
