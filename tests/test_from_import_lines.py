"""What a `from` import binds, read from its own lines (`import_bindings.from_import_bindings`): the
reading the walks ask for each `from` import that runs at import time, so it parses each
statement once, however many lines it spans."""

from __future__ import annotations

import textwrap

import pytest

from helpers import patches_compiled
from importlinter_contracts.eager import import_bindings
from importlinter_contracts.eager.import_bindings import bracketed_from_import, from_import_bindings


def _lines(source: str) -> list[str]:
    return textwrap.dedent(source).splitlines()


def _bound(source: str, line: int) -> list[tuple[str, str, int, str | None, int]] | None:
    found = from_import_bindings(_lines(source), line)
    return None if found is None else [tuple(binding) for binding in found]


LONG = "from ..utils import (\n" + "".join(f"    name_{i},\n" for i in range(40)) + ")\n"


def test_a_statement_in_brackets_binds_each_name_on_its_first_line() -> None:
    assert _bound(LONG, 1) == [(f"name_{i}", "utils", 2, f"name_{i}", 1) for i in range(40)]


@patches_compiled
def test_a_statement_of_many_lines_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    parse = import_bindings.parse

    def counted(text: str) -> object:
        parsed.append(text)
        return parse(text)

    monkeypatch.setattr(import_bindings, "parse", counted)
    from_import_bindings(_lines(LONG), 1)
    assert len(parsed) == 1


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # A bracket in a comment or a string: the count of brackets says nothing.
        (
            """\
            from m import (a,  # b (c
                d as e)
            x = 1
            """,
            [("a", "m", 0, "a", 1), ("e", "m", 0, "d", 1)],
        ),
        (
            """\
            from m import (a)  # (
            x = 1
            """,
            [("a", "m", 0, "a", 1)],
        ),
        (
            """\
            from .m import a, \\
                b
            """,
            [("a", "m", 1, "a", 1), ("b", "m", 1, "b", 1)],
        ),
    ],
)
def test_comments_and_continuations(
    source: str, expected: list[tuple[str, str, int, str | None, int]]
) -> None:
    assert _bound(source, 1) == expected


def test_a_statement_that_does_not_parse_alone_is_left_to_the_call_reading() -> None:
    source = """\
        if x:
            pass
        else: from m import (
            a,
        )
        """
    assert _bound(source, 3) is None


def test_brackets_never_closed_give_none() -> None:
    assert _bound("from m import (\n    a,\n    b,\n", 1) is None


BRACKETED = [
    "from ..utils import (\n    a,\n    b as c,  # a comment (with a bracket\n)\n",
    "from m import (a, b)\n",
    "from m import (  # noqa\n    a,\n\n    b\n)  # done\n",
    "from . import (a,\n    b)\n",
    "from .m.n import (\n    a as b, c as d,\n    e,)\n",
]


@pytest.mark.parametrize("source", BRACKETED)
def test_names_in_brackets_are_read_as_ast_reads_them(source: str) -> None:
    lines = source.split("\n")
    found = bracketed_from_import(lines[0], [line.encode() for line in lines[1:]], 1)
    assert found is not None
    assert found == from_import_bindings(lines, 1)


@pytest.mark.parametrize(
    "source",
    [
        # Anything but names: `ast` reads it (`from_import_bindings`).
        "from m import (a,\n    b); x = 1\n",
        "from m import (a,\n    b) if x else y\n",
        "from m import (\n    a \\\n    , b)\n",
        "from m import (\n    a,, b)\n",
        "from m import (\n    a\n    b)\n",
        "from m import (\n    é)\n",
        "from m import (\n    a,\r\n    b)\r\n",
        "from m import ()\n",
        "from m import (\n    a,\n",
        "from m import a\n",
        "x = 1; from m import (\n    a)\n",
    ],
)
def test_anything_else_is_left_to_ast(source: str) -> None:
    lines = source.split("\n")
    assert bracketed_from_import(lines[0], [line.encode() for line in lines[1:]], 1) is None
