"""A file's outline, read from its text without parsing its expressions: the scope of each
import statement, and the names that its code running at import time may call.

Parsing a file with `ast` builds an object for every name, operator and literal in it: a few
milliseconds for a file of a few hundred lines, and more than building the import graph for
a whole package. Whether an import runs at import time depends only on the blocks around it,
and those can be read from the text: strings and comments are blanked out (one pass, each
found with `str.find`), the lines that start a statement with a block keyword or an import
are found (a regular expression), and the blocks around each import follow from the
indentation, as Python reads it. The functions' bodies are then left out, and what runs at
import time is searched for calls of names that a `def` or an import of the file binds: only
such a call can run a function whose imports matter (`calls.py`), and a file with none needs
no `ast` reading of its calls.

The outline is exact where it answers, and answers only for text it reads as Python does:
anything else (a tab or form feed in an indentation, an import on its block header's line or
after a `;`, a `match` statement around an import, a `TYPE_CHECKING` alias, a `lazy import`,
an f-string whose quotes this reading cannot delimit, an encoding other than UTF-8) gives
None, and the `ast` reading answers instead.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from typing import NamedTuple

from .call_model import STAR, Body, CallReading
from .calls import read_calls_outlined
from .conditions import (
    ELSE,
    EXCEPT,
    IF,
    Block,
    Condition,
    always_runs,
    block_keyword,
    clauses,
    undecided_test,
)
from .parsing import parse
from .scopes import TC, ImportScope, never_runs_label, scope_in
from .target import target_python


def _statements(keywords: tuple[str, ...]) -> re.Pattern[str]:
    """The pattern of a line that starts with one of `keywords`, perhaps after `async`. Its
    lookahead for the keywords' first letters spares the engine trying each keyword on every
    line: it reads four times as fast."""
    firsts = "".join(sorted({"a", *(keyword[0] for keyword in keywords)}))
    return re.compile(
        rf"\n([ \t]*+)(?=[{firsts}])(?:(async)[ \t]+)?({'|'.join(keywords)})"
        r"\b[ \t]*+([^\W\d]\w*)?([^\n]*)"
    )


# The code is read with a newline put before it, so that every line starts after one, which
# the regular-expression engine looks for first.
# A header of a block that `scopes` labels, or an import statement, starting a line.
_IMPORT_KEYWORDS = ("import", "from", "lazy")
_BLOCK_KEYWORDS = ("if", "elif", "else", "try", "except", "finally", "with", "for", "while")
_STATEMENT = _statements((*_BLOCK_KEYWORDS, "def", "class", "match", "case", *_IMPORT_KEYWORDS))
# Those of them that a function's body is read for.
_BODY_STATEMENT = _statements(_IMPORT_KEYWORDS)
# A string, whole, from its opening quote; a lone quote is a string left open.
_STRING = re.compile(
    r"""'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''
    |\"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
    |'[^'\\\n]*(?:\\.[^'\\\n]*)*'
    |"[^"\\\n]*(?:\\.[^"\\\n]*)*"
    |'|\"""",
    re.VERBOSE | re.DOTALL,
)
# The prefix of a string that ends at `pos` (r, b, u, f, t and their pairs).
_PREFIX_LETTERS = "rRbBuUfFtT"
_PREFIX = re.compile(rf"(?<![\w])[{_PREFIX_LETTERS}]{{1,2}}")
# Marks the start of each line that continues inside a string.
_INSIDE_STRING = "\x01"
_NAME = re.compile(r"[^\W\d]\w*")
_ATTRIBUTE = re.compile(r"[^\W\d]\w*\.[^\W\d]\w*")
# The keyword of every import statement. (A pattern that starts with its literal text is
# searched for fast; a name that ends in it only makes the outline give up.)
_IMPORT_KEYWORD = re.compile(r"import\b")
_TC_ALIAS = re.compile(r"TYPE_CHECKING(?:\s|\\\n)+as\b")
# An `@` that is not followed by a dotted name, called or not (`_is_left_to_ast`).
_ODD_AT = re.compile(r"@(?![ \t]*[A-Za-z_][\w.]*[ \t]*(?:\(|$))", re.M)
_TAB_INDENT = re.compile(r"\n *\t")
_CODING = re.compile(rb"[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UTF_8 = frozenset({"utf-8", "utf8", "utf_8"})
# An import statement of one name: `import a.b [as c]`, `from [.]a import b [as c]`.
_ONE_NAME = re.compile(
    r"(?:from[ \t]++(\.*+)[ \t]*+([\w.]*+)[ \t]++)?import[ \t]++([^\W\d][\w.]*+)"
    r"(?:[ \t]++as[ \t]++([^\W\d]\w*+))?[ \t]*+"
)
_FROM = re.compile(r"from\s+(\.*)\s*([\w.]*)\s+import\s+(.*)", re.DOTALL)
_IMPORT = re.compile(r"import\s+(.*)", re.DOTALL)
_BRACES = re.compile(r"\{\{|\}\}|[{}]")
# Text whose braces pair up, each field closing before the next opens.
_SIMPLE_FIELDS = re.compile(r"[^{}]*+(?:\{[^{}]*+\}[^{}]*+)*+")
# Every bracket as a parenthesis, so that two `str.count`s count them.
_AS_PARENTHESES = str.maketrans("[{]}", "(())")
_MATCH = Block("match or case")


class Outline(NamedTuple):
    """What a file's text says about import time, without its expressions: the scope of each
    import statement (by the line it starts on); the names its code running at import time
    may call through which an import statement may run, each with the top-level package
    that statement imports from ("." for a relative import); and the lines of each function
    that is not inside another."""

    scopes: dict[int, ImportScope]
    callable_names: tuple[tuple[str, str], ...]
    bodies: tuple[Body, ...] = ()


class _Unread(Exception):
    """Something the outline does not read: the `ast` reading answers."""


def read_calls_of(source: bytes, bodies: tuple[Body, ...]) -> CallReading | None:
    """Return the calls of a file whose outline was read, with its functions' `bodies`:
    `calls.read_calls_outlined`, or None where the file, so cut, does not parse with this
    Python (the `ast` reading of the whole file then answers)."""
    try:
        return read_calls_outlined(source_lines(source), bodies, never_runs)
    except (_Unread, SyntaxError, ValueError, RecursionError, KeyError):
        # KeyError: a call on a line the outline saw no statement start on.
        return None


def never_runs(test: ast.expr) -> bool:
    """Return `scopes.never_runs_label` for a file with an outline (no TYPE_CHECKING alias)."""
    return never_runs_label(test, set()) is not None


def source_lines(source: bytes) -> list[str]:
    """Return the lines of a file as the outline reads them."""
    return _decode(source)[1:].split("\n")


def read_outline(source: bytes) -> Outline | None:
    """Return the outline of a file, or None where it cannot be read exactly from the text."""
    try:
        return _read(_decode(source))
    except _Unread:
        return None


def _decode(source: bytes) -> str:
    if source.startswith(b"\xef\xbb\xbf"):
        source = source[3:]
    # PEP 263: a coding declaration on either of the first two lines, split from the rest
    # without copying it.
    second = source.find(b"\n", source.find(b"\n") + 1)
    for line in (source if second < 0 else source[:second]).split(b"\n")[:2]:
        declared = _CODING.match(line)
        if declared and declared.group(1).decode("ascii", "replace").lower() not in _UTF_8:
            raise _Unread
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unread from None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    # A lone carriage return ends a line and a form feed resets an indentation; a null byte
    # makes the file unreadable to Python; the marker must be ours.
    if any(c in text for c in ("\r", "\f", "\0", _INSIDE_STRING)):
        raise _Unread
    text = "\n" + text
    # Most files have no tab at all, and the pattern tries every newline.
    if "\t" in text and _TAB_INDENT.search(text):
        raise _Unread
    return text


def _read(text: str) -> Outline:
    code, formatted = _blank(text)
    if _TC_ALIAS.search(code) or _is_left_to_ast(code):
        raise _Unread
    return _Outliner(text, code).read(formatted)


def _blank(text: str) -> tuple[str, list[str]]:
    """The code of a text: its comments left out, each string blanked to `""` (with its
    newlines, each line after one marked `_INSIDE_STRING`); and its f-strings, whose
    replacement fields hold code."""
    formatted: list[str] = []
    pieces: list[str] = []
    find = text.find
    size = len(text)
    # The next `#`, `'` and `"` (`size` where there is none), each found again once passed:
    # `str.find` scans far faster than a pattern tried at each position. The first of them
    # starts a comment or a string.
    comment = find("#")
    single = find("'")
    double = find('"')
    comment = size if comment < 0 else comment
    single = size if single < 0 else single
    double = size if double < 0 else double
    position = 0  # where the text not yet copied starts
    while True:
        start = comment if comment < single else single
        if double < start:
            start = double
        if start == size:
            break
        pieces.append(text[position:start])
        if start == comment:
            end = find("\n", start)
            end = size if end < 0 else end
        else:
            end = _string_end(text, start)
            # Most strings have no prefix: the character before the quote is not a letter
            # of one. A quote is never first: the text starts with a newline.
            if text[start - 1] in _PREFIX_LETTERS:
                prefix = _PREFIX.search(text, max(0, start - 2), start)
                letters = prefix.group().lower() if prefix and prefix.end() == start else ""
                if "t" in letters:
                    raise _Unread  # a t-string (PEP 750)
                if "f" in letters and find("{", start, end) >= 0:
                    found = text[start:end]
                    _check_fields(found)
                    formatted.append(found)
            newlines = text.count("\n", start, end)
            pieces.append('""' if not newlines else '"' + f"\n{_INSIDE_STRING}" * newlines + '"')
        position = end
        if comment < end:
            comment = find("#", end)
            comment = size if comment < 0 else comment
        if single < end:
            single = find("'", end)
            single = size if single < 0 else single
        if double < end:
            double = find('"', end)
            double = size if double < 0 else double
    pieces.append(text[position:])
    return "".join(pieces), formatted


def _string_end(text: str, start: int) -> int:
    """Where the string whose quote is at `start` ends (`_STRING`)."""
    # Most strings hold no backslash: one on a line ends at the next quote, a long one at
    # the first three quotes.
    quote = text[start]
    if not text.startswith(quote, start + 1):
        close = text.find(quote, start + 1)
        if (
            close >= 0
            and text.find("\n", start + 1, close) < 0
            and text.find("\\", start + 1, close) < 0
        ):
            return close + 1
    elif text.startswith(quote * 3, start):
        close = text.find(quote * 3, start + 3)
        if close >= 0 and text.find("\\", start + 3, close) < 0:
            return close + 3
    found = _STRING.match(text, start)
    if found is None or found.end() == start + 1:
        raise _Unread  # a string left open
    return found.end()


def _is_left_to_ast(code: str) -> bool:
    """Whether code (strings and comments blanked out) holds what these readings leave to
    `ast`: a name that is not ASCII (Python compares names after NFKC normalisation: fullwidth
    letters spelling TYPE_CHECKING are TYPE_CHECKING), a `;` (a statement that does not start
    its line), or a decorator that is not a dotted name, called or not (`@(f)`,
    `@f if c else g`: PEP 614), or a module that replaces itself in `sys.modules` (whose
    imports in untaken branches serve its names, `calls.served_imports`)."""
    # Each test is a scan for a character: one regular expression for all three would try
    # every position of the file.
    if not code.isascii() or ";" in code:
        return True
    if "__name__]" in code and _REPLACES_ITSELF.search(code):
        return True
    for match in _ODD_AT.finditer(code):
        start = match.start()
        if not code[code.rfind("\n", 0, start) + 1 : start].strip(" \t"):
            return True  # the `@` starts its line: a decorator (else a matrix product)
    return False


_REPLACES_ITSELF = re.compile(r"modules\[__name__\]\s*=")


def _check_fields(string: str) -> None:
    """Refuse an f-string whose replacement fields do not close (one that reuses its own
    quotes inside a field, PEP 701, which this reading ends too early), or hold a character
    that is not ASCII (a name Python normalises, as in `_is_left_to_ast`). Its literal text
    may hold any."""
    if string.isascii() and _SIMPLE_FIELDS.fullmatch(string):
        return  # as most are: fields of ASCII that close, none inside another, no `{{`
    depth = 0
    opened = 0  # where the field being read opened
    for brace in _BRACES.finditer(string):
        found = brace.group()
        if found in ("{{", "}}"):
            if depth == 0:
                continue  # an escaped brace of the literal text
            depth += 2 if found == "{{" else -2
        else:
            if depth == 0:
                opened = brace.start()
            depth += 1 if found == "{" else -1
        if depth < 0 or (depth == 0 and not string[opened : brace.end()].isascii()):
            raise _Unread
    if depth:
        raise _Unread


class _Outliner:
    """Reads the outline from the code with its strings and comments blanked out (the same
    lines with the same indentation), going back to the text only for an `if` test that is
    more than a name."""

    def __init__(self, text: str, code: str) -> None:
        self.text = text
        self.code = code
        self.brackets = code.translate(_AS_PARENTHESES)
        # The text's lines as far as split: the last one is the rest of the text, unless the
        # whole text is split.
        self._lines: list[str] = []
        self._split_whole = False
        # `if` headers, by offset, whose test is read when an import needs it; the tests read.
        self._ifs: dict[int, Block] = {}
        self._tests: dict[int, tuple[str | None, bool, str]] = {}
        self._bodies: list[tuple[int, int]] = []  # the offsets of the functions' bodies

    def read(self, formatted: list[str]) -> Outline:
        code = self.code
        scopes: dict[int, ImportScope] = {}
        # The open blocks: each header's indentation, and its block (or the offset and line
        # of an `if` header whose test is not read yet); the scope of an import in the
        # innermost one, once worked out.
        stack: list[tuple[int, _Entry]] = []
        # By indentation, the `if` and `elif` headers of the chain whose branch ended last.
        chains: dict[int, tuple[tuple[int, int], ...]] = {}
        # By indentation, the keyword of the last `for`, `while` or `try` header: an `else`
        # there that ends no `if` chain is its clause.
        owners: dict[int, str] = {}
        current: ImportScope | None = None
        imports: list[int] = []  # the offsets of the import statements outside functions
        # The functions defined at import time: the offsets of each one's body, and of the
        # import statements in it.
        functions: dict[str, _Function] = {}
        owner: _Function | None = None  # the function whose body is being read, if one of them
        bodies: list[Body] = []
        # Inside a function's body, which runs only when it is called, its imports all have
        # the scope of the def's block (worked out for the first), and nothing else of it is
        # read.
        body_end = -1
        body_line = body_depth = 0  # the line and bracket depth at the body's end
        body_blocks: list[_Entry] = []
        body_scope: ImportScope | None = None
        line = 0  # the line of `position` (line 1 starts after the newline put first)
        depth = 0  # brackets open at `position`
        position = 0
        count_lines = code.count
        count_brackets = self.brackets.count
        search = _STATEMENT.search
        search_body = _BODY_STATEMENT.search
        end = 0  # where the last statement matched ends
        while True:
            # Inside a function's body only its import statements are read: they are searched
            # for alone, up to the body's end (a newline, where the line of each ends).
            inside = end < body_end
            match = search_body(code, end, body_end) if inside else search(code, end)
            if match is None:
                if inside:
                    # The rest of the body holds no statement read: on from its end, where
                    # `_body` counted the lines and brackets.
                    end = position = body_end
                    line, depth = body_line, body_depth
                    continue
                break
            end = match.end()
            start = match.start() + 1
            indentation, is_async, keyword, name, _ = match.groups()
            line += count_lines("\n", position, start)
            depth += count_brackets("(", position, start) - count_brackets(")", position, start)
            position = start
            if depth:
                if depth < 0:
                    raise _Unread
                continue  # a line inside the brackets of a statement
            if code[start - 2] == "\\":
                # A backslash joins this line to the one before, which may hold the start of
                # this statement (`async \`, or nothing at all): left to `ast`.
                raise _Unread
            if keyword == "lazy":
                if name in ("import", "from"):
                    raise _Unread  # PEP 810: the `ast` reading knows which Python reads it
                continue
            if inside:
                if body_scope is None:
                    body_scope = _scope_of(
                        tuple(self._block(entry, tested=False) for entry in body_blocks)
                    )
                scopes[line] = body_scope
                if owner is not None:
                    owner.imports.append(start + len(indentation))
                continue
            indent = len(indentation)
            if keyword not in ("if", "elif", "else"):
                chains.pop(indent, None)
            if stack and stack[-1][0] >= indent:
                current = None
                while stack and stack[-1][0] >= indent:
                    stack.pop()
            if keyword == "import" or keyword == "from":
                if current is None:
                    if any(entry is _MATCH for _, entry in stack):
                        raise _Unread  # (the `ast` reading reads `match`)
                    current = _scope_of(tuple(self._block(entry) for _, entry in stack))
                scopes[line] = current
                imports.append(start + indent)
                # (What a class body imports, a call through the class may run.)
                for class_name in _classes(stack):
                    _function(functions, class_name).imports.append(start + indent)
            elif keyword == "if":
                stack.append((indent, (start + indent, line)))
                chains[indent] = ((start + indent, line),)
                current = None
            elif keyword == "def":
                if name is None:
                    raise _Unread
                block = _named_block("async def" if is_async else "def", name)
                body, body_end, body_depth = self._body(start + indent, line, indent)
                body_line = body[2]
                bodies.append(body)
                # (A function of a class body counts under its own name, which a call in the
                # class body runs, and under its class's, through which `C.f()` runs it.)
                owner = _function(functions, name)
                owner.bodies.append(self._bodies[-1])
                for class_name in _classes(stack):
                    _function(functions, class_name).calls.append(name)
                body_blocks = [entry for _, entry in stack]
                body_blocks.append(block)
                body_scope = None
            elif keyword == "class":
                if name is None:
                    raise _Unread
                stack.append((indent, _named_block("class", name)))
                current = None
            else:
                # A clause; `match` and `case` are soft keywords: a match statement or a name
                # (an import in a match statement is left to the `ast` reading). The clauses
                # of an `if` run under its tests, a `while` body under its test, an `except`
                # under its exception type.
                earlier = chains.pop(indent, ())
                here = (start + indent, line)
                entry: _Entry = _CLAUSES[keyword]
                if keyword in ("for", "while", "try"):
                    owners[indent] = keyword
                if keyword == "elif":
                    entry = _Tested("elif", (*earlier, here))
                    chains[indent] = (*earlier, here)
                elif keyword == "else" and earlier:
                    entry = _Tested("else", earlier)
                elif keyword == "else":
                    if indent not in owners:
                        raise _Unread  # (a syntax error: `ast` says so)
                    entry = _CLAUSES[block_keyword(owners[indent], keyword)]
                elif keyword in ("while", "except"):
                    entry = _Tested(keyword, (here,))
                stack.append((indent, entry))
                current = None
        # An import that does not start its line (`if x: import y`, `x = 1; import y`, or on
        # a line a backslash continues) is not read here.
        if len(_IMPORT_KEYWORD.findall(code)) != len(scopes):
            raise _Unread
        statements = [(start, self._read_logical_line(start)) for start in imports]
        regions = sorted([*self._bodies, *((s, s + len(text)) for s, text in statements)])
        bindings = [found for _, text in statements for found in _bindings(text)]
        names = self._callable_names(formatted, regions, functions, bindings)
        return Outline(scopes, names, tuple(bodies))

    def _callable_names(
        self,
        formatted: list[str],
        regions: list[tuple[int, int]],
        functions: dict[str, _Function],
        bindings: list[tuple[str, str]],
    ) -> tuple[tuple[str, str], ...]:
        """The names that the code running at import time (outside the `regions`: the
        functions' bodies and the import statements) calls, or uses as decorators, which an
        import binds, each with the top-level package it imports from; and a function of the
        file called then, with that of each import in its body and each name bound by an
        import that it calls, and so on for the functions of the file that it calls. (A
        call that reaches no import statement runs none.)"""
        code = self.code
        parts = []
        position = 0
        for start, end in regions:
            if start > position:
                parts.append(code[position:start])
            position = max(position, end)
        parts.append(code[position:])
        parts.extend(formatted)
        bound: dict[str, list[str]] = {}
        bound_by_star = []
        for name, top in bindings:
            if name.isidentifier():
                bound.setdefault(name, []).append(top)
            elif name == STAR:
                bound_by_star.append(top)
        candidates = [*functions, *bound]
        found: set[tuple[str, str]] = set()
        called = _called("\n".join(parts), candidates)
        # A star import may bind any name called.
        found.update((STAR, top) for top in bound_by_star)
        for name in called:
            found.update((name, top) for top in bound.get(name, ()))
        pending = [name for name in called if name in functions]
        done: set[str] = set()
        while pending:
            name = pending.pop()
            if name in done:
                continue
            done.add(name)
            function = functions[name]
            pending += function.calls
            for start in function.imports:
                found.update((name, top) for _, top in _bindings(self._read_logical_line(start)))
            for start, end in function.bodies:
                for callee in _called(code[start:end], candidates):
                    found.update((name, top) for top in bound.get(callee, ()))
                    if callee in functions:
                        pending.append(callee)
        return tuple(sorted(found))

    def _count_opened(self, start: int, end: int) -> int:
        """How many more brackets open than close between two offsets of the code."""
        return self.brackets.count("(", start, end) - self.brackets.count(")", start, end)

    def _read_logical_line(self, start: int) -> str:
        """The statement that starts at `start`, with the lines it continues on."""
        return self.code[start : self._logical_line_end(start)[0]]

    def _logical_line_end(self, start: int) -> tuple[int, int]:
        """Where the statement that starts at `start` ends (the newline after the lines it
        continues on, or the code's end), and how many more brackets open than close in it."""
        code = self.code
        newline = code.find("\n", start)
        if newline != -1 and code[newline - 1] != "\\" and not self._count_opened(start, newline):
            return newline, 0  # one line, as most are
        end = start
        depth = 0
        while True:
            newline = code.find("\n", end)
            if newline == -1:
                return len(code), depth + self._count_opened(end, len(code))
            depth += self._count_opened(end, newline)
            if depth <= 0 and code[newline - 1] != "\\":
                return newline, depth
            end = newline + 1

    def _body(self, start: int, line: int, indent: int) -> tuple[Body, int, int]:
        """The lines of the function whose `def` starts at `start` (on `line`, outside any
        bracket): the def's line, the first and last lines of its body (none when it is on
        the def's line), and the def's indentation; where the body ends, and how many more
        brackets open than close before that. The body ends before the first line that
        starts a statement at the def's indentation or less."""
        code = self.code
        count = self.brackets.count
        body, depth = self._logical_line_end(start)  # the newline that ends the header
        first = line + code.count("\n", start, body) + 1
        end = len(code)
        dedent = _dedent(indent)
        found = dedent.search(code, body)
        while found is not None:
            candidate = found.start() + 1
            if count("(", body, candidate) == count(")", body, candidate) and (
                code[candidate - 2] != "\\"
            ):
                end = candidate - 1  # the newline before it
                break
            found = dedent.search(code, candidate)
        if end == len(code):
            # Else the body's brackets balance: checked above.
            depth += self._count_opened(body, end)
        self._bodies.append((body, end))
        return (line, first, first - 1 + code.count("\n", body, end), indent), end, depth

    def _block(self, entry: _Entry, *, tested: bool = True) -> Block:
        """The block an entry of the stack opens; with `tested`, with the tests it runs under
        (as `scopes.scope_in` gives them; a deferred block's statements carry none)."""
        if isinstance(entry, Block):
            return entry
        if isinstance(entry, _Tested):
            if not tested:
                return _CLAUSES[entry.keyword]
            *earlier, own = entry.headers
            conditions: list[Condition] = []
            for number, header in enumerate(earlier if entry.keyword != "else" else entry.headers):
                keyword = "if" if number == 0 else "elif"
                never, _, test = self._test(keyword, *header)
                if not never:
                    conditions.append((ELSE, test, header[1]))
            if entry.keyword in ("elif", "while", "except"):
                never, always, test = self._test(entry.keyword, *own)
                if not always:
                    kind = EXCEPT if entry.keyword == "except" else IF
                    conditions.append((kind, test, own[1]))
            return Block(entry.keyword, None if conditions else True, tuple(conditions))
        start, line = entry
        block = self._ifs.get(start)
        if block is None:
            block = self._ifs[start] = _if_block(*self._test("if", start, line), line)
        if not tested and block.conditions:
            return _CLAUSES["if"]
        return block

    def _test(self, keyword: str, start: int, line: int) -> tuple[str | None, bool, str]:
        """Of the header of an `if`, `elif`, `while` or `except` at `start` (on `line`): the
        label of an `if` whose body never runs (`never_runs_label`), whether its body always
        runs (`always_runs`), and its test's text (an `except`'s exception type), as
        `conditions.source_text` gives it."""
        found = self._tests.get(start)
        if found is None:
            found = self._tests[start] = self._read_test(keyword, start, line)
        return found

    def _read_test(self, keyword: str, start: int, line: int) -> tuple[str | None, bool, str]:
        header = self._read_logical_line(start)
        stripped = header.strip()
        if keyword == "if" and stripped.endswith(":"):
            test = stripped[2:-1].strip()
            is_simple, never = _simple_test(test)
            if is_simple:
                return never, test == "True", test
        last = line + header.count("\n")
        if len(self._lines) <= last + 1 and not self._split_whole:
            # Most files read one test, near their start; split twice as far each time.
            limit = max(last + 1, 2 * len(self._lines))
            self._lines = self.text.split("\n", limit)
            self._split_whole = len(self._lines) <= limit
        lines = self._lines[line : last + 1]
        # (A byte-order mark stands before the first line's header.)
        text = "\n".join([lines[0].lstrip(" \t\ufeff"), *lines[1:]])
        if keyword == "elif":
            text = text[2:]  # (read as an `if`)
        source = f"try:\n pass\n{text}\n pass\n" if keyword == "except" else f"{text}\n pass\n"
        try:
            parsed = parse(source).body
        except (SyntaxError, ValueError, RecursionError):
            raise _Unread from None
        if len(parsed) != 1:
            raise _Unread
        node = parsed[0]
        found = clauses(node)
        tested = next((c.test for c in found if c.keyword in ("if", "while", "except")), None)
        if not found or (tested is None and keyword != "except"):
            raise _Unread

        def text_of(node: ast.AST) -> str:
            return " ".join((ast.get_source_segment(source, node) or "").split())

        if keyword == "except" or not isinstance(tested, ast.expr):
            return None, False, "" if tested is None else text_of(tested)
        text = undecided_test(tested, text_of, never_runs)
        if keyword == "while":
            return None, False, text
        never = never_runs_label(tested, set()) if keyword == "if" else None
        return never, always_runs(tested, never_runs), text


def _classes(stack: list[tuple[int, _Entry]]) -> Iterator[str]:
    """The names of the classes whose bodies hold the blocks open on `stack`."""
    for _, entry in stack:
        if isinstance(entry, Block) and entry.keyword == "class":
            yield entry.name


def _simple_test(test: str) -> tuple[bool, str | None]:
    """For an `if` test that is a name or an attribute of a name: True, and the block it
    makes when its body never runs ("if TYPE_CHECKING", "if False"; None when it may run).
    (False, None) for any other test."""
    assumed = target_python().assume_false
    if _NAME.fullmatch(test):
        if test in assumed:
            return True, f"if {test}"
        return True, "if TYPE_CHECKING" if test == TC else "if False" if test == "False" else None
    if _ATTRIBUTE.fullmatch(test):
        name = test.rpartition(".")[2]
        return True, "if TYPE_CHECKING" if name == TC else f"if {name}" if name in assumed else None
    return False, None


def _named_block(keyword: str, name: str) -> Block:
    """The block of a def, a class or an `if` whose body never runs (`if`, "TYPE_CHECKING"):
    one object for each, so that the scope of the blocks around an import is worked out
    once."""
    block = _NAMED.get((keyword, name))
    if block is None:
        block = _NAMED[keyword, name] = Block(keyword, keyword == "class", name=name)
    return block


def _scope_of(blocks: tuple[Block, ...]) -> ImportScope:
    """`scopes.scope_in`, once for each sequence of blocks."""
    scope = _SCOPES.get(blocks)
    if scope is None:
        scope = _SCOPES[blocks] = scope_in(list(blocks))
    return scope


_NAMED: dict[tuple[str, str], Block] = {}
_SCOPES: dict[tuple[Block, ...], ImportScope] = {}
_CLAUSES = {
    keyword: Block(keyword, None if keyword in ("while", "except") else True)
    for keyword in (
        *("if", "elif", "else", "try", "except", "finally", "with", "for", "while"),
        *(block_keyword(statement, "else") for statement in ("for", "while", "try")),
    )
}
_CLAUSES["match"] = _CLAUSES["case"] = _MATCH
# The clauses whose tests `scope_of_line` does not read from their header alone (an `elif`'s
# and an `else`'s stand on the lines of the chain before it, as does the statement an `else`
# ends): it leaves an eager import in one to the outline.
_TESTED_ELSEWHERE = frozenset({"elif", "else", "while", "except"})


class _Tested(NamedTuple):
    """A clause whose statements run under tests of headers (each an offset and a line) that
    are read when an import needs them: an `elif` (the chain's earlier headers, then its own),
    the `else` of an `if` (the chain's headers), a `while` or an `except` (its own)."""

    keyword: str
    headers: tuple[tuple[int, int], ...]


# What the stack of open blocks holds: a block, an `if` header (offset, line) whose test is
# read when an import needs it, or a clause under tests (`_Tested`).
_Entry = Block | tuple[int, int] | _Tested


@functools.cache
def _dedent(indent: int) -> re.Pattern[str]:
    """A line that starts at this indentation or less (not blank, not inside a string)."""
    return re.compile(rf"\n[ \t]{{0,{indent}}}+[^ \t\n{_INSIDE_STRING}]")


def _bindings(statement: str) -> list[tuple[str, str]]:
    """The names an import statement binds, each with the top-level package it imports
    from ("." for a relative import)."""
    simple = _ONE_NAME.fullmatch(statement)
    if simple is not None:  # one name imported, as most statements do
        dots, module, name, alias = simple.groups()
        if module is None:  # import name [as alias]
            return [(alias or name.partition(".")[0], name.partition(".")[0])]
        if "." not in name:
            return [(alias or name, "." if dots else module.partition(".")[0])]
    statement = statement.replace("\\\n", " ")
    found = _FROM.match(statement)
    if found is not None:
        dots, module, names = found.groups()
        top = "." if dots else module.partition(".")[0]
        names = names.strip()
        if names.startswith("(") and names.endswith(")"):
            names = names[1:-1]
        return [(_bound_name(item, from_import=True), top) for item in _items(names)]
    found = _IMPORT.match(statement)
    if found is None:
        raise _Unread
    return [
        (_bound_name(item, from_import=False), item.partition(".")[0])
        for item in _items(found.group(1))
    ]


def _items(names: str) -> list[str]:
    return [item.strip() for item in names.split(",") if item.strip()]


def _bound_name(item: str, *, from_import: bool) -> str:
    words = item.split()
    if len(words) == 3 and words[1] == "as":
        return words[2]
    if len(words) != 1:
        raise _Unread
    return words[0] if from_import else words[0].partition(".")[0]


class _Function:
    """A function defined at import time: the offsets of its body (of each, for a name
    defined more than once) and of the import statements in it; or a class, whose functions
    (`calls`) and whose body's imports a call of the class's name may run."""

    __slots__ = ("bodies", "calls", "imports")

    def __init__(self) -> None:
        self.bodies: list[tuple[int, int]] = []
        self.imports: list[int] = []
        self.calls: list[str] = []


def _function(functions: dict[str, _Function], name: str) -> _Function:
    """The function or class of that name in `functions`, added where it is not yet."""
    found = functions.get(name)
    if found is None:
        found = functions[name] = _Function()
    return found


def _called(text: str, names: list[str]) -> set[str]:
    """Those of `names` that `text` calls (or uses as decorators)."""
    if len(names) > 32 and text.isascii():
        # Each name is searched for through the whole text. Where there are many, the text's
        # words are found first, all at once, with a dot kept before each attribute and put
        # after `def ` and `class `: a name that is no word of its own is not called there,
        # as `_is_called` reads it, and is not searched for.
        words = set(
            text.replace("def ", "def.")
            .replace("class ", "class.")
            .replace(".", " .")
            .translate(_WORD_BREAKS)
            .split()
        )
        names = [name for name in names if name in words]
    called = set()
    for name in names:
        size = len(name)
        position = text.find(name)
        while position != -1:
            if _is_called(text, position, position + size):
                called.add(name)
                break
            position = text.find(name, position + size)
    return called


# Each ASCII character that is not in a dotted name, as a space.
_WORD_BREAKS = str.maketrans(
    {chr(code): " " for code in range(128) if not (chr(code).isalnum() or chr(code) in "_.")}
)
# What follows a name that is called: spaces, newlines inside brackets (and comments, in
# text not blanked), the closing brackets of a parenthesised callee, or attributes, then an
# opening parenthesis.
_CALL_AFTER_NAME = re.compile(r"(?:\s|\\\n|#[^\n]*+|\)|\.(?:\s|\\\n|#[^\n]*+)*+\w++)*+\(")


def _is_called(text: str, position: int, end: int) -> bool:
    """Whether the name found from `position` to `end` is called there (or used as a
    decorator, or returned): a whole name, not an attribute, not the name a def or class
    statement binds."""
    # This runs for every occurrence of every name asked about, and most fail at the
    # character before or after it: each test looks at one character first (a slice, a
    # method call or a pattern costs more than the test).
    before = text[position - 1] if position else ""
    if before and (before.isalnum() or before == "_" or before == "."):
        return False
    after = text[end] if end < len(text) else ""
    if after and (after.isalnum() or after == "_"):
        return False
    if before == " " and (
        (position >= 4 and text[position - 4 : position - 1] == "def")
        or (position >= 6 and text[position - 6 : position - 1] == "class")
    ):
        return False  # the name a def or class statement binds
    if after == "(" or (
        # (What `_CALL_AFTER_NAME` may start with.)
        after
        and (after.isspace() or after in "\\#).")
        and _CALL_AFTER_NAME.match(text, end) is not None
    ):
        return True
    # After a space or a tab, it may follow `return` (after a letter, it is not a whole name).
    return _after_at(text, position) or (before in (" ", "\t") and _returned(text, position))


def _returned(text: str, position: int) -> bool:
    """Whether the name at `position` follows `return` (what a function returns may be
    called: `@f(x)` calls what `f(x)` returns)."""
    before = text[max(0, position - 64) : position].rstrip(" \t")
    return before.endswith("return") and not (
        len(before) > 6 and (before[-7].isalnum() or before[-7] in "_.")
    )


def _after_at(text: str, position: int) -> bool:
    """Whether `position` follows an `@` (after spaces): a decorator, which is called."""
    index = position - 1
    while index >= 0 and text[index] in " \t\n\\":
        index -= 1
    return index >= 0 and text[index] == "@"


# Reading one import from the lines around it. An import statement that starts at column 0
# is at module level; one that is indented is in the block of the nearest line above it with
# less indentation, which is that block's header, if that line starts a statement. It does
# when no line from it down to the import has a quote (no string is open across them), each
# has as many closing brackets as opening ones (none is open across them) and none ends with
# a backslash: then, as the import starts a statement, so does every line there. A line that
# is not certain gives None, and the outline answers.

_HEADER_LINE = re.compile(
    rb"(?:(async)[ \t]+)?(if|elif|else|try|except|finally|with|for|while|def|class)\b"
    rb"[ \t]*+([A-Za-z_]\w*)?"
)
_UNSURE = frozenset(b"'\"\\\t\f\r")


def scope_of_line(lines: list[bytes], number: int) -> ImportScope | None:
    """Return the scope of the import statement that starts on line `number` (1-based) of a file
    split at its newlines, from the lines around it alone; None where they do not tell it
    for certain. (For a file that binds no alias of TYPE_CHECKING, which `text_calls`
    declines: an `if NAME:` here is not one.)"""
    text = lines[number - 1]
    code = text.lstrip(b" ")
    if not code.startswith((b"import ", b"from ")) or (
        number > 1 and lines[number - 2].endswith(b"\\")
    ):
        return None
    indent = len(text) - len(code)
    blocks: list[Block] = []
    index = number - 1
    while indent:
        index -= 1
        while index >= 0:
            line = lines[index]
            code = line.lstrip(b" ")
            if code and (_UNSURE.intersection(code) or _unbalanced(code)):
                return None
            if code and not code.startswith(b"#") and len(line) - len(code) < indent:
                break
            index -= 1
        else:
            return None
        header = _HEADER_LINE.match(code)
        if (
            header is None
            or not code.endswith(b":")
            or b"#" in code
            or (index and lines[index - 1].endswith(b"\\"))
        ):
            return None
        block = _line_block(header, code, index + 1)
        if block is None:
            return None
        blocks.append(block)
        indent = len(line) - len(code)
    scope = _scope_of(tuple(reversed(blocks)))
    if scope.eager and any(block.keyword in _TESTED_ELSEWHERE for block in blocks):
        return None  # (the tests it runs under stand on other lines: the outline's)
    return scope


def _unbalanced(code: bytes) -> bool:
    """Whether a line (without strings, as checked) opens or closes a bracket for another:
    its comment left out."""
    code = code.partition(b"#")[0]
    return code.count(b"(") + code.count(b"[") + code.count(b"{") != code.count(b")") + code.count(
        b"]"
    ) + code.count(b"}")


def _line_block(header: re.Match[bytes], code: bytes, line: int) -> Block | None:
    """The block a header on `line` opens (an `if` with the test it runs under, as the
    outline reads it: `_Outliner._block`); None where its line alone does not tell."""
    is_async, keyword, name = header.groups()
    word = keyword.decode()
    if word == "def" or word == "class":
        if name is None:
            return None
        keyword = "class" if word == "class" else "async def" if is_async else "def"
        return _named_block(keyword, name.decode())
    if word != "if":
        return _CLAUSES[word]
    test = code[2:-1].strip().decode()
    is_simple, never_runs = _simple_test(test)
    if not is_simple:
        return None
    return _if_block(never_runs, test == "True", test, line)


def _if_block(never: str | None, always: bool, test: str, line: int) -> Block:
    """The block of an `if` on `line`: named for a test that never holds (`never`), plain for
    one that always does, else with its test as the one condition it runs under."""
    if never:
        return _named_block("if", never.removeprefix("if "))
    return _CLAUSES["if"] if always else Block("if", None, ((IF, test, line),))


# What the text alone says of the calls at import time: a superset. Each name an import
# statement binds (anywhere in the file: in a string or a comment too, and inside functions)
# that the file calls anywhere, with the top-level package it is imported from.

_FROM_BEFORE = re.compile(r"\bfrom[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+$")
# An import statement of one name, on a line of its own: what `_FROM_BEFORE`,
# `_statement_rest` and `_text_bindings` read of it, in one match. (Possessive: where it
# matches, each part is what their greedy patterns take.)
_SIMPLE_IMPORT = re.compile(
    r"[ \t]*+(?:from[ \t]++(?P<dots>\.*+)[ \t]*+(?P<module>[\w.]*+)[ \t]++)?"
    r"(?P<keyword>)import[ \t]++(?P<name>[\w.]++)(?:[ \t]++as[ \t]++(?P<alias>\w++))?[ \t]*+"
)
# The names that def and class statements bind, and perhaps a few more (`undef x` in a
# string): a superset is all `text_calls` needs. (Each pattern starts with its keyword, which
# the engine searches for fast; a `\b` before it, or alternatives, make the engine try every
# position of the text: 15 times as slow.)
_DEF_NAME = re.compile(r"def[ \t]+([A-Za-z_]\w*)")
_CLASS_NAME = re.compile(r"class[ \t]+([A-Za-z_]\w*)")
# What an import statement's names may be written with: any other character (a quote, a
# bracket, an operator) says that it is something else (a string that looks like one).
_IMPORTED_NAMES = re.compile(r"[\w\s,.*]*")
_WORDS = re.compile(r"[A-Za-z_][\w.]*")


def text_calls(text: str) -> tuple[tuple[str, str], ...] | None:
    """Return the names an import binds that the text calls (or uses as decorators), each with
    the top-level package it imports from ("." for a relative import, or where the text
    does not say): a superset of what code running at import time calls through an import.
    None where the file calls a function of its own, or a class of its own (`C()`, `C.f()`),
    which the outline follows (or where the text cannot be read so). (`text`: the file's
    bytes as latin-1, as `calls_beyond_names` reads them too.)"""
    # Strings and comments are not told from code here: what `_is_left_to_ast` finds, any
    # line a backslash continues and any form feed (which resets an indentation),
    # anywhere in the text, leave the file to the outline. (A str knows whether it is ASCII.)
    if not text.isascii() or "\\\n" in text or "\f" in text:
        return None
    if ("TYPE_CHECKING" in text and _TC_ALIAS.search(text)) or _is_left_to_ast(text):
        return None
    if _called(text, list({*_DEF_NAME.findall(text), *_CLASS_NAME.findall(text)})):
        return None
    bound: dict[str, set[str]] = {}
    kept = []  # the text without its import statements, where their names do not count
    position = 0
    for start in _keyword_starts(text, "import"):
        line_start = text.rfind("\n", 0, start) + 1
        if start and text[start - 1] == ".":
            return None  # `from .import x`, or text that is not code
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            continue  # the end of a longer name
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        simple = _SIMPLE_IMPORT.fullmatch(text, line_start, end)
        if simple is not None and simple.start("keyword") == start:
            # One name on a line of its own, as most are: what the lines below find of it.
            dots, module, name, alias = simple.group("dots", "module", "name", "alias")
            if alias is not None and ("TYPE_CHECKING" in name or "TYPE_CHECKING" in alias):
                return None
            top = name.partition(".")[0]
            if module is not None:
                top = "." if dots or not module else module.partition(".")[0]
            bound.setdefault(
                alias if alias is not None else name if module is not None else top, set()
            ).add(top)
            kept.append(text[position:start])
            position = max(position, end)
            continue
        before = _FROM_BEFORE.search(text, line_start, start)
        if text[line_start : start if before is None else before.start()].strip():
            # Not the start of a statement: in a string or a comment, or after a block's
            # header on its line.
            return None
        end, rest = _statement_rest(text, start + len("import"))
        if rest is None or not _IMPORTED_NAMES.fullmatch(rest):
            return None  # not an import statement as this reading knows them
        if "TYPE_CHECKING" in rest and "as" in rest.split():
            return None  # an alias of TYPE_CHECKING, with a comment around `as`
        for name, top in _text_bindings(before, rest):
            bound.setdefault(name, set()).add(top)
        kept.append(text[position:start])
        position = max(position, end)
    kept.append(text[position:])
    called = _called("".join(kept), [name for name in bound if name.isidentifier()])
    # A star import may bind any name called.
    if STAR in bound:
        called.add(STAR)
    return tuple(sorted((name, top) for name in called for top in bound[name]))


def _keyword_starts(text: str, keyword: str) -> list[int]:
    """Where `keyword` starts in `text`, not followed by a letter, a digit or `_` (as
    `keyword\\b` finds it, in ASCII text, and faster)."""
    found = []
    size = len(keyword)
    start = text.find(keyword)
    while start != -1:
        end = start + size
        if end == len(text) or not (text[end].isalnum() or text[end] == "_"):
            found.append(start)
        start = text.find(keyword, end)
    return found


def _statement_rest(text: str, start: int) -> tuple[int, str | None]:
    """Where the statement that `import` ends at `start` ends, and what follows `import` in
    it (on its line, or to the closing parenthesis), without comments; None where this
    reading cannot tell."""
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    rest = text[start:end].partition("#")[0].strip()
    if rest.endswith("\\"):
        return end, None
    if not rest.startswith("("):
        return end, rest.partition(";")[0]
    close = start
    parts = []
    while True:
        newline = text.find("\n", close)
        line = text[close : len(text) if newline == -1 else newline].partition("#")[0]
        if ")" in line:
            parts.append(line.partition(")")[0])
            return (len(text) if newline == -1 else newline), " ".join(parts).replace("(", " ", 1)
        parts.append(line)
        if newline == -1:
            return len(text), None
        close = newline + 1


def _text_bindings(before: re.Match[str] | None, rest: str) -> list[tuple[str, str]]:
    """The names an import binds, read leniently: a form this reading does not know binds
    every name in it, from a package it does not know (".")."""
    found: list[tuple[str, str]] = []
    for item in rest.split(","):
        words = item.split()
        if not words:
            continue
        if len(words) == 3 and words[1] == "as":
            name = words[2]
        elif len(words) == 1:
            name = words[0] if before is not None else words[0].partition(".")[0]
        else:
            found.extend((word, ".") for word in _WORDS.findall(item))
            continue
        if before is not None:
            dots, module = before.groups()
            top = "." if dots or not module else module.partition(".")[0]
        else:
            top = words[0].partition(".")[0]
        found.append((name, top))
    return found


# Calls that the names a file's code calls do not show (`callable_names`), which the `ast`
# reading of its calls follows: a dynamic import, a name bound to functions or classes and
# then called (`X = A if c else B; X.f()`), a callee that is an expression (`(a if c else
# b)()`, `REG[key]()`), and a class of the file called through (`D.f()`, whose `f` may be a
# base's). They are read from the file's bytes as latin-1 text, with ASCII patterns (what
# bytes patterns match in the bytes): str methods are native code when compiled, bytes ones
# calls through Python.
_DYNAMIC_CALL = re.compile(r"\b(?:import_module|__import__)[ \t]*\(", re.ASCII)
# Each pattern below starts with one character or word that the engine looks for first (a
# `^` or a `\b` first makes it try every position of the file: three to five times as slow),
# and its quantifiers are possessive where giving back cannot make a match.
# A line that assigns alternatives to a name, perhaps annotated, read from the newline
# before it: its value, up to a comment, holds a `[` or the word `if`, `or` or `and`, or is a
# name.
_ASSIGNED_ALTERNATIVES = re.compile(
    r"\n[ \t]*+([A-Za-z_]\w*+)[ \t]*+(?::[^=\n]*+)?=(?!=)[ \t]*+"
    r"(?:[^#\n\[]*+\[|[^#\n]*?\b(?:if|or|and)\b|[A-Za-z_][\w.]*+[ \t]*+(?=#|\n|\Z))",
    re.ASCII,
)
# (A class statement starts its line: checked for each match, as few lines are one.)
_DERIVED_CLASS = re.compile(r"class[ \t]++([A-Za-z_]\w*+)[ \t]*+\([ \t]*+[A-Za-z_]", re.ASCII)
# A callee that is an expression: a subscript called (`REG[key]()`, `REG[key].f()`), or a
# parenthesised expression called whose last bracket-free part holds `else`, `or` or `and`
# (`(a if c else b)()`): the call is found first, then the words before its `)`.
_INDEXED_CALL = re.compile(r"\][ \t]*+(?:\.[ \t]*+\w++[ \t]*+)?\(", re.ASCII)
_PARENTHESISED_CALL = re.compile(r"\)[ \t]*+(?:\.[ \t]*+\w++[ \t]*+)?\(", re.ASCII)
_ALTERNATIVE_WORD = re.compile(r"\b(?:else|or|and)\b", re.ASCII)
# The names a `for` (a loop's or a comprehension's) binds, each element of what it loops
# over in turn: one called calls what a registry holds (`for h in HOOKS: h()`). Only a call
# of the name itself counts: one of its methods (`key.startswith(...)`) is in most loops, and
# a registry of the file's own classes names them (`_refers_to_its_own`).
_LOOP_TARGETS = re.compile(r"for[ \t(]++([\w \t,()]+?)[ \t)]*+\bin\b", re.ASCII)


def _assigned_alternatives(text: str) -> list[str]:
    """The names that lines of `text` assign alternatives to (a value that holds a `[` or
    the word `if`, `or` or `and`), or a name: `NAME [: annotation] = value`, the value up to
    a comment."""
    # A newline put first: the first line too starts after one.
    return _ASSIGNED_ALTERNATIVES.findall("\n" + text)


def calls_beyond_names(text: str) -> bool:
    """Return whether the file's code (its bytes as latin-1 `text`) may make a call that
    `callable_names` does not show: a dynamic import (`importlib.import_module`), a call of
    a name it binds to functions or classes (by assignment or as a loop's target), of a
    callee that is an expression, or through a class that derives from another; or a
    function or class of its own named other than to be called (`_refers_to_its_own`). (A
    superset: such a file has its calls read with `ast`.)"""
    # Cheapest first: a subscript called, which half the files have, is found by a pattern
    # the engine searches for fast; the names are looked for before the dynamic call's
    # pattern, which is slow; a callee that is an expression is found by patterns alone;
    # the names a file binds to alternatives are searched for one occurrence at a time,
    # the most costly.
    if _INDEXED_CALL.search(text):
        return True
    if ("import_module" in text or "__import__" in text) and _DYNAMIC_CALL.search(text):
        return True
    for call in _PARENTHESISED_CALL.finditer(text):
        end = call.start()
        start = max(text.rfind("(", 0, end), text.rfind(")", 0, end), text.rfind("\n", 0, end))
        if _ALTERNATIVE_WORD.search(text, start + 1, end):
            return True
    names = _assigned_alternatives(text)
    for match in _DERIVED_CLASS.finditer(text):
        start = match.start()
        if not text[text.rfind("\n", 0, start) + 1 : start].strip(" \t"):
            names.append(match[1])
    if any(_called(text, [name]) for name in sorted(set(names))):
        return True
    targets = {name for match in _LOOP_TARGETS.finditer(text) for name in _WORDS.findall(match[1])}
    if any(_called_itself(text, name) for name in sorted(targets)):
        return True
    return _refers_to_its_own(text)


def _called_itself(text: str, name: str) -> bool:
    """Whether the text calls the name itself, not an attribute of it: `h()`, `h (x)`. (Found
    from `name(` and `name (`, literal text the engine finds fast: a pattern that starts with a
    look-behind is tried at every position of the text, and a loop's target is often one
    letter, found everywhere.)"""
    spaced = (match.start() for match in _spaced_call(name).finditer(text))
    for found in (_opening(text, name), spaced):
        for position in found:
            before = text[position - 1] if position else ""
            if not (before and (before.isalnum() or before in "_.")):
                return True
    return False


def _opening(text: str, name: str) -> Iterator[int]:
    """Where `name(` starts in the text."""
    called = name + "("
    position = text.find(called)
    while position != -1:
        yield position
        position = text.find(called, position + len(called))


@functools.cache
def _spaced_call(name: str) -> re.Pattern[str]:
    """`name (`, with spaces or tabs before the bracket."""
    return re.compile(re.escape(name) + r"[ \t]++\(")


def _refers_to_its_own(text: str) -> bool:
    """Whether the text names a function or class it defines other than to call it, in its
    def or class statement, in an import statement, in quotes or as a string's prefix
    (`HOOKS = [f, g]`, then `for h in HOOKS: h()`; `map(f, xs)`; `X = f`): a call through
    another name, which no name called shows."""
    for name in {*_DEF_NAME.findall(text), *_CLASS_NAME.findall(text)}:
        size = len(name)
        position = text.find(name)
        while position != -1:
            end = position + size
            before = text[position - 1] if position else ""
            after = text[end] if end < len(text) else ""
            whole = not (before and (before.isalnum() or before in "_.")) and not (
                after and (after.isalnum() or after == "_")
            )
            # (Before a quote: in quotes, or a string's prefix, `f"..."`.)
            if whole and after not in ("'", '"'):
                head = text[text.rfind("\n", 0, position) + 1 : position].strip()
                stated = head.endswith(("def", "class")) or head.startswith(("from ", "import "))
                if not stated and not _is_called(text, position, end):
                    return True
            position = text.find(name, end)
    return False
