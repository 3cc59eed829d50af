"""The readings that spare `ast` (`eager/outline.py`) against the `ast` reading, on thousands
of generated files: nested blocks of every kind, imports of every form, strings, comments and
f-strings that look like code, backslashes, semicolons, decorators, names that Python
normalises, encodings, tabs, form feeds, carriage returns. Where a reading answers, it
answers as `ast` does (for calls: it names every package a call at import time may reach).
The cases it found are in `test_outline.py`."""

from __future__ import annotations

import random
from typing import Any

import pytest

from importlinter_contracts.eager.call_model import Binding, CallReading
from importlinter_contracts.eager.outline import (
    read_calls_of,
    read_outline,
    scope_of_line,
    text_calls,
)
from importlinter_contracts.eager.scopes import read_source

pytestmark = pytest.mark.matrix

# Names Python reads as others after NFKC normalisation: black-letter H is H, fullwidth
# letters spelling TYPE are TYPE.
FRAKTUR_H = "\u210c"
WIDE_TYPE = "\uff34\uff39\uff30\uff25"
NAMES = ["f", "g", "load", "helper", "H", FRAKTUR_H, "\u00e9", "x", "y"]
MODULES = ["pkg", "pkg.sub", "os", "ext.mod"]
TESTS = [
    "TYPE_CHECKING",
    "typing.TYPE_CHECKING",
    "False",
    "0",
    "flag",
    "not TYPE_CHECKING",
    "(TYPE_CHECKING)",
    '__name__ == "__main__"',
    "TYPE_CHECKING or flag",
    "flag and TYPE_CHECKING",
    "(0 or  # why's\n        flag or TYPE_CHECKING)",
    "a.b.TYPE_CHECKING",
    "\\\n        TYPE_CHECKING",
    "0x0",
    "None",
    "TYPE_CHECKING  # why's",
    "f()",
    "x == 'if a:'",
    "(flag and\n        other)",
    f"{WIDE_TYPE}_CHECKING",
    "lambda: 1",
]


def an_import(r: random.Random) -> str:
    m, n, n2, n3 = r.choice(MODULES), r.choice(NAMES), r.choice(NAMES), r.choice(NAMES)
    return r.choice(
        [
            f"import {m}",
            f"import {m} as {n}",
            f"from . import {n}",
            f"from .{m} import {n}",
            f"from {m} import {n}, {n2} as {n3}",
            f"from {m} import *",
            f"from {m} import (\n{{i}}    {n},\n{{i}}    {n2} as {n3},  # it's\n{{i}})",
            f"from {m} import \\\n{{i}}    {n}",
            f"import {m}; import os",
            f"x = 1; import {m}",
            f"from .import {n}",
            f"from {m} import {n};{n}()",
            f"from {m} import ({n})",
            f"from {m} import {n}  # comment 'q",
            f"from {m} \\\n{{i}}    import {n}",
            f"import {m}, os.path as p",
            f"from typing import {WIDE_TYPE}_CHECKING as tc",
            "from typing import (TYPE_CHECKING  # x\n{i}    as T)",
        ]
    )


def a_statement(r: random.Random) -> str:
    n = r.choice(NAMES)
    return r.choice(
        [
            "pass",
            f"{n}()",
            f"z = {n}(1)",
            f"z = {n}.run()",
            f"z = lambda: {n}()",
            'z = """\n{i}import fake\nif TYPE_CHECKING:\n    import nothing\ndef q():\n"""',
            "z = 'it\\'s import x'",
            "z = r'\\\\'",
            f'z = f"{{{{{n}()!r}}}}"',
            "z = f'{a[\"k\"]}'",
            "z = b'import x'",
            "# comment with ' quote and import y",
            f"z = {{{{\n{{i}}    'import x': 1,\n{{i}}    \"if y:\": {n}(),\n{{i}}}}}}",
            "lazy = 1",
            "match = 1",
            "\u00e9 = 1",
            f"z = ({n}\n{{i}}     )()",
            f"z = ({n}  # c\n{{i}}     ())",
            f"z = ({n}.  # c\n{{i}}     run())",
            f"z = {n}.\\\n{{i}}     run()",
            f"z = 1 + \\\n{{i}}    {n}()",
            f'print("import this", {n}())',
            f"# import (see below\n{{i}}{n}()",
            "z = 'a\\\nimport b'",
            f"z = rf'{{{{{n}()}}}}'",
            f"z = f'\u00e9 {{{{{n}()}}}} \u2014 {{{{{{{{x}}}}}}}}'",
            f"z = a @ {n}()",
            f"z = (a\n{{i}}     @ {n}())",
            f"z = x if\\\n{{i}}    y else {n}()",
            "z = [a\n{i}for a in b\n{i}if a]",
            "z = [\nimport_ for import_ in x\n]",
            "# if TYPE_CHECKING:\n{i}#     import q",
            'z = {\n\'a\': f"""\n{{g()}}\nimport q\n"""}',
            "z = 'a:' ; w = \"#\"",
            "z = (  # (\n1)",
            "if TYPE_CHECKING: pass",
            "if a: pass\n{i}else: pass",
            "\\\n",
        ]
    )


def a_header(r: random.Random, kind: str, in_async: bool) -> str:
    n = r.choice(NAMES)
    prefix = "async " if in_async and r.random() < 0.3 else ""
    return {
        "if": lambda: f"if {r.choice(TESTS)}:",
        "while": lambda: r.choice(["while flag:", "while (\n    flag):"]),
        "for": lambda: f"{prefix}for i in {n}():",
        "with": lambda: (
            prefix
            + r.choice(
                [f"with {n}():", f"with ({n}() as a,\n      g() as b):", f"with {n}() as \\\n c:"]
            )
        ),
        "def": lambda: r.choice(
            [
                f"def {n}(a={r.choice(NAMES)}()):",
                f"def {n}():",
                f"def {n}(\n    a,\n):",
                f"def \\\n        {n}():",
                f"def {n}() -> 'int':",
            ]
        ),
        "async def": lambda: r.choice([f"async def {n}():", f"async \\\n    def {n}():"]),
        "class": lambda: r.choice(
            [
                f"class {n.upper()}C:",
                f"class C{n}(Base, metaclass=M):",
                f"class {FRAKTUR_H}:",
                f"class Hé(\n    {n}()):",
            ]
        ),
    }[kind]()


def a_block(
    r: random.Random, depth: int, indent: int, in_async: bool, budget: list[int]
) -> list[str]:
    out: list[str] = []
    for _ in range(r.randint(1, 3)):
        if budget[0] <= 0:
            break
        budget[0] -= 1
        i = " " * indent
        roll = r.random()
        if depth < 4 and roll < 0.45:
            kind = r.choice(
                [
                    "if",
                    "try",
                    "with",
                    "for",
                    "while",
                    "def",
                    "class",
                    "async def",
                    "match",
                    "one line",
                    "decorated",
                    "after backslash",
                ]
            )
            inner = indent + r.choice([4, 4, 2, 1, 8])
            if kind == "one line":
                header = r.choice([f"if {r.choice(TESTS[:5])}: ", "class C: ", "def f(): "])
                out.append(i + header + an_import(r).replace("{i}", i))
                continue
            if kind == "after backslash":
                out.append(i + r.choice(["\\", "async \\"]))
                kind = r.choice(["if", "def"])
            if kind == "decorated":
                decorator = r.choice(["@f", "@(g)", "@load.reg(1)", f"@ \\\n{i}helper"])
                out.append(i + r.choice([decorator, f"@{FRAKTUR_H}", "@f if x else g"]))
                kind = r.choice(["def", "class"])
            if kind == "try":
                out.append(i + "try:")
                out += a_block(r, depth + 1, inner, in_async, budget)
                out.append(i + r.choice(["except ImportError:", "except (A, B) as e:", "finally:"]))
                out += a_block(r, depth + 1, inner, in_async, budget)
            elif kind == "match":
                out.append(i + r.choice(["match x:", "match (x):"]))
                out.append(" " * inner + r.choice(["case 1:", "case [a, *_]:", "case _ if f():"]))
                out += a_block(r, depth + 2, inner + 4, in_async, budget)
            else:
                out.append(i + a_header(r, kind, in_async).replace("\n", "\n" + i))
                out += a_block(r, depth + 1, inner, kind == "async def" or in_async, budget)
                if kind == "if":
                    for _ in range(r.randint(0, 2)):
                        test = r.choice(["flag", *TESTS]).replace("\n", "\n" + i)
                        out.append(i + f"elif {test}:")
                        out += a_block(r, depth + 1, inner, in_async, budget)
                if kind in ("if", "for", "while") and r.random() < 0.4:
                    out.append(i + "else:")
                    out += a_block(r, depth + 1, inner, in_async, budget)
        elif roll < 0.75:
            out.append(i + an_import(r).replace("{i}", i))
        else:
            out.append(i + a_statement(r).replace("{i}", i))
    return out or [" " * indent + "pass"]


def a_file(r: random.Random) -> bytes:
    text = "\n".join(a_block(r, 0, 0, False, [r.randint(3, 25)])) + "\n" * (r.random() < 0.9)
    if r.random() < 0.15:
        text = f"# -*- coding: {r.choice(['utf-8', 'latin-1', 'UTF8'])} -*-\n" + text
    if r.random() < 0.1:
        text = '"""Doc with import x\n    and if y:\n"""\n' + text
    if r.random() < 0.05:
        text = text.replace("    ", "\t")
    if r.random() < 0.05:
        text = text.replace("\n", "\n\f", 1)
    data = text.encode()
    if r.random() < 0.08:
        data = data.replace(b"\n", b"\r\n")
    if r.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    return data


def reached_packages(calls: CallReading) -> set[str]:
    """The top-level packages ("." for a relative import) of the imports that the `ast`
    reading's calls at import time may run: through a name an import binds, or in the body
    of a function of the file, called directly or through another."""

    def top(binding: Binding) -> str:
        return "." if binding.level else binding.module.partition(".")[0]

    bound: dict[str, set[str]] = {}
    for binding in calls.bindings:
        bound.setdefault(binding.name, set()).add(top(binding))
    found: set[str] = set()
    pending: list[str] = []
    seen: set[str] = set()
    for call in calls.calls:
        found |= bound.get(call.target.partition(".")[0], set())
        if call.target in calls.functions:
            pending.append(call.target)
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        function = calls.functions[name]
        found |= {top(binding) for binding in function.bindings}
        for call in function.calls:
            found |= bound.get(call.target.partition(".")[0], set())
            if call.target in calls.functions:
                pending.append(call.target)
    return found


def disagreements(data: bytes) -> list[tuple[str, Any]]:
    """Where a reading answers otherwise than the `ast` reading, on a path that the scope
    cache takes: `text_calls`, and `scope_of_line` after it, only for a file without a
    carriage return (and `scope_of_line` only where `text_calls` answered)."""
    found: list[tuple[str, Any]] = []
    reading = read_source(data)
    reached = reached_packages(reading.calls) if reading.calls is not None else set()

    def misses(names: tuple[tuple[str, str], ...]) -> list[str]:
        tops = {top for _, top in names}
        return sorted(p for p in reached if "." not in tops and p not in tops)

    outline = read_outline(data)
    if outline is not None:
        if outline.scopes != reading.scopes:
            found.append(("outline scopes", (outline.scopes, reading.scopes)))
        if misses(outline.callable_names):
            found.append(("outline calls", misses(outline.callable_names)))
        calls = read_calls_of(data, outline.bodies)
        if (
            calls is not None
            and reading.calls is not None
            and (calls.calls, calls.bindings, calls.functions)
            != (reading.calls.calls, reading.calls.bindings, reading.calls.functions)
        ):
            found.append(("calls of the outline", calls))
    if b"\r" in data:
        return found
    names = text_calls(data.decode("latin-1"))
    if names is None:
        return found
    if misses(names):
        found.append(("text calls", misses(names)))
    lines = data.split(b"\n")
    for line, scope in reading.scopes.items():
        answer = scope_of_line(lines, line)
        if answer is not None and answer != scope:
            found.append(("scope of a line", (line, answer, scope)))
    return found


@pytest.mark.parametrize("seed", range(4))
def test_the_readings_answer_as_ast_does_or_decline(seed: int) -> None:
    r = random.Random(seed)
    files = answered = 0
    found = []
    while files < 1500:
        data = a_file(r)
        try:
            compile(data, "<generated>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            continue
        files += 1
        answered += read_outline(data) is not None
        found += [(kind, data, detail) for kind, detail in disagreements(data)]
    assert found[:3] == []
    # The outline reads a good share of them (so the comparison above is not empty).
    assert answered > files // 10
