"""Which import statements of a source file run when the module is imported.

Eager: the module body, including the bodies of if/elif/else, try/except/else/finally, with,
for, while, match/case and class bodies at any nesting. Deferred: anything inside a def or
async def, the bodies of `if TYPE_CHECKING:` (also through an alias bound by `from typing
import TYPE_CHECKING as NAME`), `if __name__ == "__main__":`, `if False:` and `if 0:`, an `or`
of these and an `and` with one of them (none runs on import; their else branches do), and
PEP 810 `lazy import` / `lazy from ... import`.

A file is read with `ast` when the running interpreter can parse it (C speed), and otherwise
with the tokenizer, which also reads syntax newer than the interpreter; the two readings agree
line for line. A `lazy import` is refused there: whether it runs at import time depends on the
uses of its names, which only `ast` reads (`lazy.py`). The calls made at import time
(`calls.py`) are read from the `ast` reading only: a file read with the tokenizer has none.
Nothing is imported or executed. Each import is keyed by the line its statement starts on, as
grimp numbers it.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from tokenize import TokenInfo
from typing import NamedTuple, TypeGuard

from ..errors import UnreadableSourceError
from .call_model import SERVED, CallReading, Served
from .calls import annotations_run, lazy_annotations, read_calls
from .conditions import (
    ELSE,
    EXCEPT,
    IF,
    Block,
    Clause,
    Condition,
    Conditions,
    SourceLines,
    always_runs,
    block_keyword,
    clause_conditions,
    source_text,
    undecided_test,
    walk,
)
from .import_bindings import served_imports
from .lazy import LazyNames, read_lazy
from .parsing import parse, parse_error
from .target import RUNNING, target_python

# Kinds of tokens that never start or end a statement.
_SKIPPED = frozenset({tokenize.NL, tokenize.COMMENT, tokenize.ENCODING})
_CLAUSES = frozenset(
    {"if", "elif", "else", "try", "except", "finally", "with", "for", "while", "match", "case"}
)
_OPENING = frozenset("([{")
_CLOSING = frozenset(")]}")


class ImportScope(NamedTuple):
    """Whether an import statement runs at import time, and why; of one that does, the
    undecided tests of the blocks around it (outermost first)."""

    eager: bool
    reason: str
    conditions: Conditions = ()
    # Of a lazy import (PEP 810): what makes it lazy ("lazy import", "lazy by lazy_imports =
    # all"), which a function that uses its names says when it runs it.
    lazy: str = ""


class SourceReading(NamedTuple):
    """What a file says about import time: the scope of each import statement, by the line
    its statement starts on, and its calls (None when `ast` cannot parse the file here, with
    the reason in `calls_unread`)."""

    scopes: dict[int, ImportScope]
    calls: CallReading | None
    calls_unread: str = ""


def read_source(source: bytes) -> SourceReading:
    """Return the reading of a file: with `ast`, or with the tokenizer when `ast` cannot
    parse it here (then without its calls).

    Raises UnreadableSourceError when the source can be read neither way.
    """
    try:
        module = parse(source)
    except (SyntaxError, ValueError, RecursionError) as error:
        # RecursionError: a deeply nested expression (a chain of thousands of attributes)
        # that the interpreter compiles but `ast` cannot build; the tokenizer reads it flat.
        return SourceReading(import_scopes_from_tokens(source), None, parse_error(error))
    parsed = _read_parsed(module, source)
    calls = read_calls(
        module,
        _never_runs_given(parsed.aliases),
        parsed.text,
        parsed.lazy_names,
        parsed.served,
    )
    return SourceReading(parsed.scopes, calls)


class _Parsed(NamedTuple):
    """What a parsed file says about its imports, which its call reading asks: their scopes,
    the names bound to `TYPE_CHECKING`, its lazy imports' names (None where none can be
    lazy), what it serves in place of itself in `sys.modules`, and its text."""

    scopes: dict[int, ImportScope]
    aliases: set[str]
    lazy_names: LazyNames | None
    served: dict[str, Served]
    text: str


def _read_parsed(module: ast.Module, source: bytes) -> _Parsed:
    text = _decoded(source)
    lines = SourceLines(text)
    scopes, aliases = _scopes(module, lines)
    chosen = target_python()
    lazy_names = None
    if chosen.lazy and (b"lazy" in source or chosen.lazy_imports != "normal"):
        policy = lazy_annotations(module, text)
        lazy_names = read_lazy(module, scopes, chosen, lambda node: annotations_run(policy, node))
    elif b"lazy" in source:
        for node in ast.walk(module):
            if getattr(node, "is_lazy", 0):
                raise UnreadableSourceError(_lazy_too_new(getattr(node, "lineno", 0)))
    served = served_imports(module.body, (lines, _never_runs_given(aliases)))
    for imports in served.values():
        for line in imports.lines:
            scopes[line] = scopes[line]._replace(lazy=SERVED)
    return _Parsed(scopes, aliases, lazy_names, served, text)


def _decoded(source: bytes) -> str:
    """A file's text as `ast` reads it: in its declared encoding, without a byte-order mark
    (the columns of `ast`'s nodes count from after it)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except SyntaxError:
        encoding = "utf-8"
    return source.decode(encoding, "replace").removeprefix("\ufeff")


def _lazy_too_new(line: int) -> str:
    return (
        f"line {line}: `lazy import` is a syntax error before Python 3.15, and python_version "
        f"is {target_python().shown}"
    )


def import_scopes(source: bytes, module: ast.Module | None = None) -> dict[int, ImportScope]:
    """Return the scope of every import statement, by the line number its statement starts on;
    `module`: the file's syntax tree, where the caller has parsed it already.

    Two statements on one line (`import a; import b`) always share a scope.

    Raises UnreadableSourceError when the source can be read neither way.
    """
    if module is None:
        return read_source(source).scopes
    return _read_parsed(module, source).scopes


def _scopes(module: ast.Module, lines: SourceLines) -> tuple[dict[int, ImportScope], set[str]]:
    """The scope of each import of a module, and the names that `from typing import
    TYPE_CHECKING as NAME` binds, in the order Python runs them."""
    scopes: dict[int, ImportScope] = {}
    aliases: set[str] = set()

    def enter(blocks: tuple[Block, ...], clause: Clause) -> tuple[Block, ...]:
        return (*blocks, *_opened(clause, blocks, aliases, lines))

    outermost: tuple[Block, ...] = ()
    for node, blocks in walk(module.body, outermost, enter):
        if isinstance(node, ast.Import | ast.ImportFrom):
            _add(scopes, node.lineno, scope_in(blocks))
            if isinstance(node, ast.ImportFrom) and node.module in _TYPING and not node.level:
                aliases.update(a.asname for a in node.names if a.name == TC and a.asname)
    return scopes, aliases


def _opened(
    clause: Clause, around: tuple[Block, ...], aliases: set[str], lines: SourceLines
) -> tuple[Block, ...]:
    """The blocks a clause opens inside those `around` it (a `match` statement's cases stand
    in its block)."""
    keyword = block_keyword(clause.statement, clause.keyword)
    if clause.statement in ("def", "class"):
        return (Block(keyword, keyword == "class", name=clause.name or ""),)
    if clause.statement == "match":
        return (Block("match"), Block("case"))
    # (The tests of a deferred block's statements are not read: its imports carry none.)
    tested = not any(block.runs is False for block in around)
    decided = _never_runs_given(aliases)
    if clause.statement != "if":
        if not tested:
            return (Block(keyword, None if keyword in ("while", "except") else True),)
        conditions = clause_conditions(clause, lines, decided)
        return (Block(keyword, None if conditions else True, conditions),)
    never = never_runs_label(clause.test, aliases) if isinstance(clause.test, ast.expr) else None
    if keyword == "if" and never:
        return (Block("if", False, name=never.removeprefix("if ")),)
    if not tested:
        return (Block(keyword, None),)

    def text(test: ast.expr) -> str:
        return source_text(lines, test)

    # Each earlier test of the chain was false, but one that never holds says nothing.
    earlier: Conditions = tuple(
        (ELSE, undecided_test(test, text, decided), line)
        for number, (test, line) in enumerate(clause.earlier)
        if number or not decided(test)
    )
    if keyword == "else":
        return (Block("else", None if earlier else True, earlier),)
    assert isinstance(clause.test, ast.expr)
    if always_runs(clause.test, decided):
        return (Block(keyword, None if earlier else True, earlier),)
    own: Condition = (IF, undecided_test(clause.test, text, decided), clause.line)
    return (Block(keyword, None, (*earlier, own)),)


def never_runs_label(test: ast.expr, aliases: set[str]) -> str | None:
    """Return the label of an `if` whose body never runs on import, or None: `if TYPE_CHECKING:`
    (an alias of it, or `<name>.TYPE_CHECKING`), `if __name__ == "__main__":`, `if False:`,
    `if 0:`, a name that `assume_false` lists (or `<name>.NAME`), an `or` of such tests
    (`if TYPE_CHECKING or DIFFUSERS_SLOW_IMPORT:`), and an `and` with such a test among its
    operands, which the label names (`if sys.version_info >= (3, 11) and TYPE_CHECKING:` is
    `if TYPE_CHECKING`)."""
    name = test.id if isinstance(test, ast.Name) else None
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name):
        name = test.attr
    if name is not None:
        if name == TC or (name in aliases and isinstance(test, ast.Name)):
            return "if TYPE_CHECKING"
        if name in target_python().assume_false:
            return f"if {name}"
        return None
    if _is_main_test(test):
        return _MAIN
    if isinstance(test, ast.Constant) and (test.value is False or _is_int_zero(test.value)):
        return f"if {test.value!r}"
    if isinstance(test, ast.BoolOp):
        labels = [never_runs_label(value, aliases) for value in test.values]
        if _is_or(test) and all(labels):
            return "if " + " or ".join(str(label).removeprefix("if ") for label in labels)
        # (An `and` never holds where one of its operands never does.)
        if isinstance(test.op, ast.And) and any(labels):
            named = [
                (value, label.removeprefix("if "))
                for value, label in zip(test.values, labels, strict=True)
                if label
            ]
            return "if " + " and ".join(f"({t})" if _is_or(v) else t for v, t in named)
    return None


def _never_runs_given(aliases: set[str]) -> Callable[[ast.expr], bool]:
    """Return whether a test never holds (`never_runs_label`), as a reading of a file that binds
    these names to TYPE_CHECKING asks it (the names bound so far, as the set grows)."""
    return lambda test: never_runs_label(test, aliases) is not None


def _is_or(test: ast.expr) -> TypeGuard[ast.BoolOp]:
    return isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or)


def _is_int_zero(value: object) -> bool:
    return type(value) is int and value == 0


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
    ):
        return False
    sides = [test.left, test.comparators[0]]
    names = [side.id for side in sides if isinstance(side, ast.Name)]
    strings = [side.value for side in sides if isinstance(side, ast.Constant)]
    return names == ["__name__"] and strings == ["__main__"]


_MAIN = 'if __name__ == "__main__"'
# The name of `typing.TYPE_CHECKING`, whose `if` body never runs (read by `outline` too).
TC = "TYPE_CHECKING"
_TYPING = frozenset({"typing", "typing_extensions"})


def import_scopes_from_tokens(source: bytes) -> dict[int, ImportScope]:
    """Return `import_scopes`, read with the tokenizer: for syntax `ast` cannot parse here.

    Raises UnreadableSourceError when the source does not tokenize.
    """
    scopes: dict[int, ImportScope] = {}
    stack: list[tuple[int, Block]] = []  # each open block with the indent depth of its body
    depth = 0
    pending: Block | None = None  # a header whose indented body has not started yet
    aliases: set[str] = set()  # names bound by `from typing import TYPE_CHECKING as NAME`
    lazy: list[tuple[int, list[str], Counter[str]]] = []  # each lazy import: line, names bound
    chains: dict[int, Conditions] = {}
    owners: dict[int, str] = {}
    try:
        for kind, tokens in _lines(source):
            if kind == tokenize.INDENT:
                depth += 1
                if pending is not None:
                    stack.append((depth, pending))
                    pending = None
            elif kind == tokenize.DEDENT:
                depth -= 1
                while stack and stack[-1][0] > depth:
                    stack.pop()
            else:
                blocks = [block for _, block in stack]
                pending = _record_statements(
                    tokens, blocks, scopes, aliases, lazy, (chains, owners)
                )
    except UnreadableSourceError:
        raise
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError) as error:
        raise UnreadableSourceError(parse_error(error)) from None
    # How often each word stands in the file, in strings and comments too (a replacement
    # field of an f-string is one string token before Python 3.12).
    words = Counter(re.findall(r"\w+", source.decode("utf-8", "replace")))
    for line, bound, _ in lazy:
        # A lazy import whose names stand nowhere else in the file is used by none of its
        # code: it runs at no time that this file decides. Otherwise only `ast` can tell.
        used = [name for name in bound if words[name] > sum(o[2][name] for o in lazy)]
        if used:
            raise UnreadableSourceError(
                f"line {line}: Python {RUNNING.shown} cannot parse this `lazy import`, and "
                f"whether code running at import time uses {used[0]} decides whether it runs "
                f"then (python_version {target_python().shown}): run the linter on Python 3.15 "
                "or newer"
            )
    return scopes


def _lines(source: bytes) -> Iterator[tuple[int, list[TokenInfo]]]:
    """INDENT and DEDENT events, and each logical line as its significant tokens."""
    line: list[TokenInfo] = []
    previous: TokenInfo | None = None
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type in _SKIPPED:
            continue
        if token.type == tokenize.STRING:
            _check_string(token, previous)
        previous = token
        if token.type == tokenize.ERRORTOKEN:
            if token.string.isspace():
                continue
            # Python 3.11's tokenizer marks what it cannot read (a PEP 701 f-string, say) and
            # reads on as if it were code: what follows could be misread, so stop here.
            raise UnreadableSourceError(
                f"line {token.start[0]}: this Python's tokenizer cannot read {token.string!r} here"
            )
        if token.type in (tokenize.INDENT, tokenize.DEDENT):
            yield token.type, []
        elif token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                yield tokenize.NEWLINE, line
            line = []
        else:
            line.append(token)


def _check_string(token: TokenInfo, previous: TokenInfo | None) -> None:
    """Refuse a string token that this Python's tokenizer has cut short.

    Before Python 3.12 (PEP 701), an f-string ends at the next quote of its own kind, even
    inside a replacement field: `f"{d["k"]}"` reads as `f"{d["`, then code, so what follows
    (a colon, a `def`, a `#`) could be misread without any error. Python 3.12 and 3.13 read
    a t-string (3.14) as a name and a plain string, with the same effect. Such a string is cut
    inside a replacement field, which leaves it invalid on its own: refuse it, naming its line.
    """
    text = shown = token.string
    prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))].lower()
    kind = "f-string" if "f" in prefix else None
    if (
        previous is not None
        and previous.type == tokenize.NAME
        and previous.end == token.start
        and previous.string.lower() in _T_STRING_PREFIXES
    ):
        # Its replacement fields are read as an f-string's are.
        kind, shown = "t-string", previous.string + text
        text = previous.string.lower().replace("t", "f") + text
    if kind is None:
        return
    try:
        parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        needs = (
            "its quotes need Python 3.12" if kind == "f-string" else "t-strings need Python 3.14"
        )
        shown = shown if len(shown) <= 20 else shown[:20] + "..."
        raise UnreadableSourceError(
            f"line {token.start[0]}: this Python's tokenizer cannot read the {kind} {shown} "
            f"({needs} or newer)"
        ) from None


# A name that stands right before a string makes it a t-string (PEP 750).
_T_STRING_PREFIXES = frozenset({"t", "tr", "rt"})


def _record_statements(
    tokens: list[TokenInfo],
    blocks: list[Block],
    scopes: dict[int, ImportScope],
    aliases: set[str],
    lazy: list[tuple[int, list[str], Counter[str]]],
    ends: tuple[dict[int, Conditions], dict[int, str]],
) -> Block | None:
    """Record the imports of one logical line; return the block its header opens, if any.
    `ends`: by nesting, the tests of the `if` (and its `elif`s) whose branch ended last, each
    false, which an `else` or `elif` there runs under; and the keyword of the last `if`,
    `for`, `while` or `try` there, whose clause an `else` there is."""
    chains = ends[0]
    start = 0
    while start < len(tokens):
        first = tokens[start]
        if first.string == "@" and first.type == tokenize.OP:
            return None  # a decorator: an expression, never an import
        header = _header(tokens, start, blocks, aliases, ends)
        if header is not None:
            block, colon = header
            if colon + 1 == len(tokens):
                return block
            # A body on the header's own line: `if x: import y`.
            inner = [*blocks, block]
            return _record_statements(tokens[colon + 1 :], inner, scopes, aliases, lazy, ends)
        chains.pop(len(blocks), None)
        end = _statement_end(tokens, start)
        _record(tokens[start:end], blocks, scopes, aliases, lazy)
        start = end + 1
    return None


def _header(
    tokens: list[TokenInfo],
    start: int,
    blocks: list[Block],
    aliases: set[str],
    ends: tuple[dict[int, Conditions], dict[int, str]],
) -> tuple[Block, int] | None:
    """The block a compound statement's header opens and the index of its colon, or None
    (`ends`: `_record_statements`')."""
    first = tokens[start]
    if first.type != tokenize.NAME:
        return None
    word = first.string
    following = tokens[start + 1] if start + 1 < len(tokens) else None
    prefix = ""
    if word == "async" and following is not None and following.string in ("def", "for", "with"):
        word, prefix = following.string, "async "
        start += 1
        following = tokens[start + 1] if start + 1 < len(tokens) else None
    if word == "match" and not _is_match_statement(tokens, start):
        return None
    if word == "case" and not (blocks and blocks[-1].keyword == "match"):
        return None
    if word not in _CLAUSES and word not in ("def", "class"):
        return None
    colon = _header_colon(tokens, start + 1)
    if word == "def":
        name = following.string if following is not None else "?"
        return Block(f"{prefix}def", False, name=name), colon
    if word == "class":
        name = following.string if following is not None else "?"
        return Block("class", name=name), colon
    test = tokens[start + 1 : colon]
    nesting = len(blocks)
    chains, owners = ends
    earlier = chains.pop(nesting, ()) if word in ("elif", "else") else ()
    chains.pop(nesting, None)
    if word in _STATEMENTS_WITH_ELSE:
        owners[nesting] = word
    elif word == "else":
        # (An `else` that follows no such statement is a syntax error: read as an `if`'s.)
        word = block_keyword(owners.get(nesting, "if"), word)
    parsed = _parsed_test(test) if word in ("if", "elif", "while") else None
    never = never_runs_label(parsed, aliases) if word == "if" and parsed is not None else None
    if never:
        chains[nesting] = ()
        return Block("if", False, name=never.removeprefix("if ")), colon
    if any(block.runs is False for block in blocks):
        return Block(word, None if word in _TESTED else True), colon  # (its tests are not read)
    conditions: Conditions = ()
    if word in ("if", "elif", "while"):
        decided = _never_runs_given(aliases)
        condition: Condition = (IF, _undecided_text(test, parsed, decided), first.start[0])
        always = word != "while" and parsed is not None and always_runs(parsed, decided)
        conditions = earlier if always else (*earlier, condition)
        if word != "while":
            chains[nesting] = (*earlier, (ELSE, condition[1], condition[2]))
    elif word == "else":
        conditions = earlier
    elif word == "except":
        conditions = ((EXCEPT, _handler_text(test), first.start[0]),)
    return Block(word, None if conditions else True, conditions), colon


# The clauses that run only where a test holds.
_TESTED = frozenset({"if", "elif", "else", "while", "except"})
# The compound statements that may end with an `else` clause.
_STATEMENTS_WITH_ELSE = frozenset({"if", "for", "while", "try"})


def _undecided_text(
    test: list[TokenInfo], parsed: ast.expr | None, never_runs: Callable[[ast.expr], bool]
) -> str:
    """`conditions.undecided_test`, of a test's tokens (`parsed`: the test they spell, None
    where this Python cannot parse it): an operand of an `or` is what stands between two
    `or`s outside brackets."""
    if parsed is None:
        return _test_text(test)
    spelled = {id(parsed): test}
    if _is_or(parsed):
        # (No operand holds an `or` outside brackets: it would be a conditional expression's
        # or a lambda's, which stand in brackets in an operand of an `or`.)
        operands = _or_operands(_unbracketed(test))
        spelled.update(
            (id(node), found) for node, found in zip(parsed.values, operands, strict=True)
        )

    def text(node: ast.expr) -> str:
        return _test_text(spelled[id(node)])

    return undecided_test(parsed, text, never_runs)


def _or_operands(test: list[TokenInfo]) -> list[list[TokenInfo]]:
    """The tokens of a test split at each `or` outside brackets."""
    cuts = [-1, *_names_outside_brackets(test, "or"), len(test)]
    return [test[start + 1 : end] for start, end in itertools.pairwise(cuts)]


def _names_outside_brackets(tokens: list[TokenInfo], name: str) -> list[int]:
    """The indexes of the tokens that are the name (a keyword: `or`, `as`) and that no bracket
    encloses."""
    found = []
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSING:
            depth -= 1
        elif depth == 0 and token.type == tokenize.NAME and token.string == name:
            found.append(index)
    return found


def _test_text(test: list[TokenInfo]) -> str:
    """A test's source text as `conditions.source_text` gives it from `ast`: from its first
    token to its last, its whitespace collapsed, without brackets around the whole (those of a
    tuple are its own)."""
    test = _unbracketed(test)
    if not test:
        return ""
    first, last = test[0], test[-1]
    rows = {token.start[0]: token.line for token in test}
    if first.start[0] == last.end[0]:
        text = first.line[first.start[1] : last.end[1]]
    else:
        parts = [first.line[first.start[1] :]]
        parts += [rows[row] for row in sorted(rows) if first.start[0] < row < last.start[0]]
        parts.append(last.line[: last.end[1]])
        text = "\n".join(parts)
    return " ".join(text.split())


def _unbracketed(test: list[TokenInfo]) -> list[TokenInfo]:
    """A test's tokens without brackets around the whole (those of a tuple are its own)."""
    while len(test) > 2 and test[0].string == "(" and _closing(test) == len(test) - 1:
        inner = test[1:-1]
        if _outside_brackets(inner, 0, ",") is not None:
            break
        test = inner
    return test


def _closing(tokens: list[TokenInfo]) -> int:
    """The index of the bracket that closes the one `tokens` starts with."""
    depth = 0
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in _OPENING:
            depth += 1
        elif token.type == tokenize.OP and token.string in _CLOSING:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _handler_text(test: list[TokenInfo]) -> str:
    """The exception type of an `except` (or `except*`) header's tokens, without `as NAME`."""
    if test and test[0].string == "*":
        test = test[1:]
    named = _names_outside_brackets(test, "as")
    return _test_text(test[: named[0]] if named else test)


def _is_match_statement(tokens: list[TokenInfo], start: int) -> bool:
    # `match` is a soft keyword: a match statement's header is its whole logical line and
    # ends with a colon, which no other statement starting with the name `match` does.
    last = tokens[-1]
    return (
        len(tokens) > start + 2
        and tokens[start + 1].string not in (":", "=", ".")
        and last.type == tokenize.OP
        and last.string == ":"
    )


def _parsed_test(test: list[TokenInfo]) -> ast.expr | None:
    try:
        return parse(" ".join(token.string for token in test), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None  # (syntax this Python cannot read: no test it decides)


def _header_colon(tokens: list[TokenInfo], start: int) -> int:
    """The index of the colon that ends a compound statement's header."""
    colon = _outside_brackets(tokens, start, ":")
    if colon is None:
        raise UnreadableSourceError(
            f"line {tokens[start - 1].start[0]}: a compound statement has no colon"
        )
    return colon


def _statement_end(tokens: list[TokenInfo], start: int) -> int:
    """The index of the `;` that ends the simple statement at `start`, or the line's end."""
    semicolon = _outside_brackets(tokens, start, ";")
    return len(tokens) if semicolon is None else semicolon


def _outside_brackets(tokens: list[TokenInfo], start: int, symbol: str) -> int | None:
    """The index of the first `symbol` from `start` that no bracket encloses; a colon that
    ends a lambda's parameters does not count."""
    nesting = 0
    lambdas = 0
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token.type == tokenize.NAME and token.string == "lambda" and nesting == 0:
            lambdas += 1
        elif token.type != tokenize.OP:
            continue
        elif token.string in _OPENING:
            nesting += 1
        elif token.string in _CLOSING:
            nesting -= 1
        elif nesting == 0 and token.string == symbol:
            if symbol == ":" and lambdas:
                lambdas -= 1
            else:
                return index
    return None


def _record(
    statement: list[TokenInfo],
    blocks: list[Block],
    scopes: dict[int, ImportScope],
    aliases: set[str],
    lazy: list[tuple[int, list[str], Counter[str]]],
) -> None:
    words = [token.string for token in statement[:2] if token.type == tokenize.NAME]
    if words[:1] in (["import"], ["from"]):
        scope = scope_in(blocks)
        if words[0] == "from" and len(statement) > 2 and statement[1].string in _TYPING:
            names = [token.string for token in statement]
            aliases.update(
                names[i + 2]
                for i, name in enumerate(names[:-2])
                if name == TC and names[i + 1] == "as"
            )
    elif words[:1] == ["lazy"] and words[1:] in (["import"], ["from"]):
        line = statement[0].start[0]
        if not target_python().lazy:
            raise UnreadableSourceError(_lazy_too_new(line))
        strings = [token.string for token in statement]
        if "*" in strings or any(block.keyword in _NEVER_LAZY for block in blocks):
            raise UnreadableSourceError(
                f"line {line}: a `lazy` import is a syntax error here in Python 3.15"
                " (in a function, a class body or a `try` statement, or of `*`)"
            )
        lazy.append(
            (
                line,
                _lazily_bound(strings),
                Counter(token.string for token in statement if token.type == tokenize.NAME),
            )
        )
        scope = ImportScope(False, "lazy import, not used at import time", lazy="lazy import")
    else:
        return
    _add(scopes, statement[0].start[0], scope)


def _lazily_bound(words: list[str]) -> list[str]:
    """The names a `lazy import` or `lazy from` statement binds, from its words."""
    names = words[words.index("import") + 1 :]
    bound = []
    for part in " ".join(names).replace("(", " ").replace(")", " ").split(","):
        parts = part.split()
        if not parts:
            continue
        if len(parts) >= 3 and parts[-2] == "as":
            bound.append(parts[-1])
        else:
            name = "".join(parts)
            bound.append(name.partition(".")[0] if words[1] == "import" else name)
    return bound


def _add(scopes: dict[int, ImportScope], line: int, scope: ImportScope) -> None:
    earlier = scopes.get(line)
    if earlier is None or (scope.eager and not earlier.eager):
        scopes[line] = scope


def scope_in(blocks: Sequence[Block]) -> ImportScope:
    """Return the scope of an import statement inside `blocks` (outermost first): deferred
    by the first block whose statements never run on import, else at import time by the
    innermost, under the tests of the blocks. The one place a reason is rendered."""
    for block in blocks:
        if block.runs is False:
            where = "inside " if block.keyword in _DEFS else "under "
            return ImportScope(eager=False, reason=where + _label(block))
    if not blocks:
        return ImportScope(eager=True, reason="module level")
    labels = [_label(block) for block in blocks]
    if blocks[0].keyword != "class":
        labels[0] = f"module-level {labels[0]}"
    conditions = tuple(condition for block in blocks for condition in block.conditions)
    return ImportScope(eager=True, reason=" > ".join(labels), conditions=conditions)


_DEFS = ("def", "async def")
# The blocks where Python 3.15 refuses a `lazy` import.
_NEVER_LAZY = frozenset({*_DEFS, "class", "try", "except", "try-else", "finally"})


def _label(block: Block) -> str:
    """How a reason names a block: `def f`, `class body of C`, `if TYPE_CHECKING`, `try`."""
    if block.keyword == "class":
        return f"class body of {block.name}"
    if block.name:
        return f"{block.keyword} {block.name}"
    return block.keyword
