"""The readings of a file's text that spare the `ast` reading: its outline, an import read from
the lines around it, and the calls the text alone shows. Each answers exactly as the `ast`
reading does, or declines (and the `ast` reading answers)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest
from test_scopes import CLAUSE_REASONS, CLAUSES, DEFERRED, EAGER, EAGER_CONDITIONS

from helpers import patches_compiled
from importlinter_contracts.eager import calls as calls_module
from importlinter_contracts.eager.call_model import CalledName, CallReading
from importlinter_contracts.eager.call_storage import from_tuples, to_tuples
from importlinter_contracts.eager.outline import (
    never_runs,
    read_calls_of,
    read_outline,
    scope_of_line,
    text_calls,
)
from importlinter_contracts.eager.scopes import ImportScope, read_source

pytestmark = pytest.mark.matrix

CASES = {
    **{
        name: (source, ImportScope(True, reason, EAGER_CONDITIONS.get(name, ())))
        for name, (source, reason) in EAGER.items()
    },
    **{name: (source, ImportScope(False, reason)) for name, (source, reason) in DEFERRED.items()},
}

# The forms the outline leaves to the `ast` reading.
OUTLINE_DECLINES = {
    "match",
    "match parenthesised",
    "inline if",
    "inline class",
    "after semicolon",
    "inline def",
    "inline TYPE_CHECKING",
    "main guard reversed",
    "TYPE_CHECKING alias",
    "typing_extensions alias in brackets",
    "lazy import",
    "lazy from",
    "lazy in class",
}

# The forms whose import stands in a block whose test stands on other lines than its own
# header (an `elif`, an `else`, whose statement does too), or that an exception decides: the
# outline reads them. (An `if` whose test is a name or an attribute, on its header's line, is
# read from the lines.)
UNDER_A_TEST = {
    name
    for name, (_, reason) in EAGER.items()
    if {"elif", "else", "for-else", "while-else", "try-else", "while", "except"}.intersection(
        reason.removeprefix("module-level ").split(" > ")
    )
}

# The forms whose import the lines around it do not tell for certain (a test that is more
# than a name, a header with a string or with brackets over two lines), or that the outline
# declines too. (A file with a TYPE_CHECKING alias is not read so at all: `text_calls`
# declines it.)
LINE_DECLINES = (
    OUTLINE_DECLINES - {"TYPE_CHECKING alias"}
    | UNDER_A_TEST
    | {
        "TYPE_CHECKING or another test",
        "tests decided false or two others",
        "TYPE_CHECKING and another test",
        "not TYPE_CHECKING and another test",
        "tests decided false and another",
        "another name test",
        "header with lambda",
        "if (0x0)",
        "if 0",
        "if 1",
        "main guard",
        "not TYPE_CHECKING",
        "parenthesised TYPE_CHECKING",
    }
)


def marked(source: str) -> tuple[bytes, int]:
    source = textwrap.dedent(source)
    (line,) = [n for n, text in enumerate(source.splitlines(), 1) if text.endswith("# <-")]
    return source.encode(), line


@pytest.mark.parametrize(("source", "scope"), CASES.values(), ids=CASES.keys())
def test_the_outline_reads_each_form_as_ast_does_or_declines(
    request: pytest.FixtureRequest, source: str, scope: ImportScope
) -> None:
    text, line = marked(source)
    outline = read_outline(text)
    name = request.node.callspec.id
    if name in OUTLINE_DECLINES:
        assert outline is None
    else:
        assert outline is not None
        assert outline.scopes == read_source(text).scopes
        assert outline.scopes[line] == scope


def test_the_outline_names_the_statement_of_each_else_as_ast_does() -> None:
    text = CLAUSES.encode()
    outline = read_outline(text)
    assert outline is not None
    assert {line: scope.reason for line, scope in outline.scopes.items()} == CLAUSE_REASONS
    assert outline.scopes == read_source(text).scopes


def test_the_outline_declines_an_else_that_ends_no_statement() -> None:
    # (A syntax error, which the `ast` reading reports.)
    assert read_outline(b"x = 1\nelse:\n    import y\n") is None


@pytest.mark.parametrize(("source", "scope"), CASES.values(), ids=CASES.keys())
def test_an_import_is_read_from_its_lines_as_ast_does_or_declines(
    request: pytest.FixtureRequest, source: str, scope: ImportScope
) -> None:
    text, line = marked(source)
    found = scope_of_line(text.split(b"\n"), line)
    name = request.node.callspec.id
    if name == "TYPE_CHECKING alias":
        assert text_calls(text.decode("latin-1")) is None  # so the file is not read this way
    elif name in LINE_DECLINES:
        assert found is None
    else:
        assert found == read_source(text).scopes[line]
        assert found[:2] == scope[:2]


# Lines between an import and its block's header that could hide where the import stands.
UNSURE_LINES = {
    "a string": 'try:\n    x = "a"\n    import y\nexcept E:\n    pass\n',
    "a comment with a quote": "try:\n    # don't\n    import y\nexcept E:\n    pass\n",
    "a bracket left open": "try:\n    x = f(\n1)\n    import y\nexcept E:\n    pass\n",
    "a backslash": "try:\n    x = 1 + \\\n2\n    import y\nexcept E:\n    pass\n",
    "a header over two lines": "if (a and\n        b):\n    import y\n",
    "a header with a comment": "if a:  # why\n    import y\n",
    "a tab": "if a:\n\timport y\n",
}


@pytest.mark.parametrize("source", UNSURE_LINES.values(), ids=UNSURE_LINES.keys())
def test_lines_that_could_hide_where_an_import_stands_decline(source: str) -> None:
    lines = source.encode().split(b"\n")
    (line,) = [n for n, text in enumerate(lines, 1) if text.lstrip().startswith(b"import")]
    assert scope_of_line(lines, line) is None
    assert read_source(source.encode()).scopes[line].eager == (not source.startswith("def"))


def test_a_header_inside_a_string_above_an_import_is_not_taken_for_its_block() -> None:
    source = b'x = """\nif False:\n"""\ntry:\n    import y\nexcept E:\n    pass\n'
    assert scope_of_line(source.split(b"\n"), 5) == ImportScope(True, "module-level try")
    fooled = b'x = """\ndef f():\n    """; import z\n    import y\n'
    assert scope_of_line(fooled.split(b"\n"), 4) is None


TEXT_CALLS = {
    "no call": ("from pkg import f\n", ()),
    "a call at import time": ("from pkg import f\nf()\n", (("f", "pkg"),)),
    "a call in a function (the text does not tell)": (
        "from .m import f\ndef g():\n    return f(1)\n",
        (("f", "."),),
    ),
    "a call of a name bound in a function": (
        "def g():\n    from pkg import f\nx = f\n",
        (),
    ),
    "an attribute of a module": ("import pkg.a as m\nm.run()\n", (("m", "pkg"),)),
    "a decorator": ("from pkg import register\n@register\nclass C: ...\n", (("register", "pkg"),)),
    "an external package": ("from os import path\npath.join('a')\n", (("path", "os"),)),
    # A star import may bind any name called.
    "a star import": ("from pkg import *\nrun()\n", (("*", "pkg"),)),
    "a parenthesised import": (
        "from pkg import (  # the (first)\n    a,\n    b as c,\n)\nc()\n",
        (("c", "pkg"),),
    ),
    "a function of the file called": ("def f():\n    pass\nf()\n", None),
    "a line a backslash continues": ("from pkg import \\\n    f\nf()\n", None),
}


@pytest.mark.parametrize(("source", "expected"), TEXT_CALLS.values(), ids=TEXT_CALLS.keys())
def test_the_text_shows_every_call_through_an_import(
    source: str, expected: tuple[tuple[str, str], ...] | None
) -> None:
    assert text_calls(source.encode().decode("latin-1")) == expected


OUTLINE_CALLS = {
    "a call of a function that imports": (
        "def setup():\n    from pkg import heavy\nsetup()\n",
        (("setup", "pkg"),),
    ),
    "a call of a function that imports nothing": ("def setup():\n    return 1\nsetup()\n", ()),
    "a call through a function that calls one that imports": (
        "def a():\n    from . import heavy\ndef b():\n    a()\nb()\n",
        (("a", "."),),
    ),
    "a function that calls an imported name": (
        "from pkg import load\ndef b():\n    load()\nb()\n",
        (("b", "pkg"),),
    ),
    "a call only in a function's body": (
        "from pkg import load\ndef b():\n    load()\n",
        (),
    ),
    "a call in an f-string": ("from pkg import load\nx = f'{load()}'\n", (("load", "pkg"),)),
    "a call in an f-string whose text is not ASCII": (
        "from pkg import load\nx = f'\u00e9 {load()} \u2014 {{\u00e9}}'\n",
        (("load", "pkg"),),
    ),
    "a string after a name that ends in t": ("from pkg import load\nx = not'{load()}'\n", ()),
    "a matrix product": ("from pkg import load\nx = a @ (load)\n", ()),
    "a call in a default value": (
        "from pkg import load\ndef f(x=load()):\n    pass\n",
        (("load", "pkg"),),
    ),
    "a call in a class body": (
        "from pkg import load\nclass C:\n    x = load()\n",
        (("load", "pkg"),),
    ),
}


@pytest.mark.parametrize(("source", "expected"), OUTLINE_CALLS.values(), ids=OUTLINE_CALLS.keys())
def test_the_outline_names_the_calls_that_may_run_an_import(
    source: str, expected: tuple[tuple[str, str], ...]
) -> None:
    outline = read_outline(source.encode())
    assert outline is not None
    assert outline.callable_names == expected


def test_calls_read_from_the_outline_equal_those_of_the_whole_file() -> None:
    source = textwrap.dedent(
        '''\
        """A module."""
        import os
        from pkg import register, helper


        @register("x")
        def first(a=helper()):
            """Loads."""
            from pkg import heavy
            return heavy.run(os.sep)


        class C(Base):
            size = helper(1)

            def method(self):
                import pkg.other


        if os.name:
            def second():
                first()
                helper(
                    2,
                )


        @helper
        @register.each
        def third():
            pass
        first()
        '''
    ).encode()
    outlined, whole = _outlined_and_whole(source)
    assert (outlined.calls, outlined.bindings) == (whole.calls, whole.bindings)
    # (A function of a class body is known by the class's name and its own.)
    assert (
        sorted(outlined.functions)
        == sorted(whole.functions)
        == [
            "C.method",
            "first",
            "second",
            "third",
        ]
    )
    assert {name: outlined.functions[name] for name in outlined.functions} == dict(whole.functions)
    # Calling `third` calls what its decorators returned: its def's own lines do not show
    # them, the outline's reading of the file does, and the cache keeps them for a function
    # not read yet.
    assert outlined.functions["third"].calls == (
        CalledName(28, "helper()"),
        CalledName(29, "register.each()"),
    )
    outline = read_outline(source)
    assert outline is not None
    unread = read_calls_of(source, outline.bodies)
    assert unread is not None
    kept = from_tuples(to_tuples(unread), source.decode().splitlines, never_runs)
    assert dict(kept.functions) == dict(whole.functions)


# Found by the differential test (`test_outline_fuzz.py`): forms that both readings of the
# text leave to `ast`, where one of them answered otherwise before.
LEFT_TO_AST = {
    "a name Python normalises": "if \uff34\uff39\uff30\uff25_CHECKING:\n    import x\n",
    "a class named by a name Python normalises": "class \u210c:\n    import x\n",
    "a header after a line of a backslash": "if a:\n    pass\n\\\nif TYPE_CHECKING:\n    import x\n",
    "async and a backslash": "async \\\n def f():\n    import x\n",
    "a call after a semicolon": "from pkg import f;f()\n",
    "a parenthesised decorator": "from pkg import f\n@(f)\ndef g(): pass\n",
    "a conditional decorator": "from pkg import f, g\n@f if x else g\ndef h(): pass\n",
    "a decorator on a line continued": "from pkg import f\nx = (a\n     @ (f))\n",
    "a name Python normalises in an f-string": "from pkg import f\nx = f'{\uff46()}'\n",
}

# And forms that the text alone leaves to the outline.
LEFT_TO_THE_OUTLINE = {
    "import in a string": 'from pkg import f\nprint("import this", f())\n',
    "a bracket after import in a comment": "from pkg import f\n# import (see below\nf()\nx = (1)\n",
    "from .import": "from .import helper\nhelper()\n",
    "a name that is not ASCII": "from pkg import \u00e9\n\u00e9()\n",
    "def and a backslash": "def \\\n f():\n    from . import x\nf()\n",
    "a TYPE_CHECKING alias with a comment before as": (
        "from typing import (TYPE_CHECKING  # x\n    as T)\nif T:\n    import x\n"
    ),
    "a form feed": "\fif not TYPE_CHECKING:\n    pass\nelif flag:\n    from pkg import (load)\n",
}


@pytest.mark.parametrize("source", LEFT_TO_AST.values(), ids=LEFT_TO_AST.keys())
def test_forms_the_text_does_not_tell_are_left_to_ast(source: str) -> None:
    assert read_outline(source.encode()) is None
    assert text_calls(source.encode().decode("latin-1")) is None


T_STRINGS = {
    "a t-string": "from pkg import f\nx = t'{f()}'\n",
    "a raw t-string": 'from pkg import f\nx = Rt"{f()}"\n',
    "a t-string over lines": "from pkg import f\nx = tr'''{f()}\n'''\n",
}


@pytest.mark.parametrize("source", T_STRINGS.values(), ids=T_STRINGS.keys())
def test_the_outline_leaves_a_t_string_to_ast(source: str) -> None:
    # (The text alone may answer: it counts the calls in every string.)
    assert read_outline(source.encode()) is None


@pytest.mark.parametrize("source", LEFT_TO_THE_OUTLINE.values(), ids=LEFT_TO_THE_OUTLINE.keys())
def test_forms_the_text_alone_does_not_tell_are_left_to_the_outline(source: str) -> None:
    assert text_calls(source.encode().decode("latin-1")) is None


def test_a_comment_between_a_name_and_its_parenthesis_is_still_a_call() -> None:
    assert text_calls("from pkg import f\nx = (f  # c\n     ())\n") == (("f", "pkg"),)


def test_calls_on_a_line_the_outline_saw_no_statement_on_leave_the_file_to_ast() -> None:
    assert read_calls_of(b"if a:\n    pass\n\\\ndef f():\n    import x\n", ()) is None


@pytest.mark.parametrize(
    "source",
    [
        "from pkg import helpers\nresult = (helpers.  # c\n    setup())\n",
        "from pkg import helpers\nresult = helpers.\\\n    setup()\n",
    ],
    ids=["a comment after the dot", "a backslash after the dot"],
)
def test_a_call_of_an_attribute_split_after_its_dot_is_a_call(source: str) -> None:
    outline = read_outline(source.encode())
    assert outline is not None and outline.callable_names == (("helpers", "pkg"),)
    assert text_calls(source.encode().decode("latin-1")) in (None, (("helpers", "pkg"),))


@patches_compiled
def test_a_def_header_that_calls_nothing_is_not_parsed_with_the_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Long headers (annotations, defaults) that call nothing stand in as `def f():`; one whose
    # default calls keeps its header, and an overload's body on its header's line is read.
    source = textwrap.dedent(
        """\
        import pkg.lazy
        from typing import overload

        def plain(
            first: SomeVeryLongAnnotation[int],
            *,
            second: int = 3,
        ) -> Mapping[str, int]:
            import pkg.inside

        def calls(x=pkg.lazy.default()):
            return x

        @overload
        def over(
            x: AnotherAnnotation,
        ) -> int: ...


        class C:
            def method(self, value: Holder = None) -> None:
                pkg.lazy.go()
        """
    ).encode()
    module_level = _module_level_parsed(source, monkeypatch)
    assert "SomeVeryLongAnnotation" not in module_level
    assert "AnotherAnnotation" not in module_level
    assert "Holder" not in module_level
    assert "pkg.lazy.default()" in module_level


@patches_compiled
def test_a_def_header_whose_brackets_stand_in_strings_and_comments_calls_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A bracket in a string or a comment calls nothing: the header stands in as `def f():`.
    # An f-string's fields may call: its header is kept.
    source = textwrap.dedent(
        """\
        import pkg.lazy

        def quoted(
            mode: "Literal['a(b)']" = "bilinear(",  # (a comment)
            raw=rb"\\"(",
            doc='''(
            )''',
        ) -> None:
            import pkg.inside

        def formatted(x=f"{pkg.lazy.default()}"):
            return x

        class C:
            def method(self, name: str = "x", *, sep: str = ')') -> None:
                pkg.lazy.go()
        """
    ).encode()
    module_level = _module_level_parsed(source, monkeypatch)
    assert "bilinear" not in module_level
    assert "sep" not in module_level
    assert "pkg.lazy.default()" in module_level


def test_a_header_with_a_string_that_the_outline_ends_before_its_colon_is_kept() -> None:
    # The outline gives this one-line def a body on the line below: its header is kept, the
    # module so cut does not parse, and the file is read whole.
    source = textwrap.dedent(
        """\
        from typing import overload

        class C:
            @overload
            def get(self, s: slice) -> "C": ...

            def get(self, index):
                return index
        """
    ).encode()
    outline = read_outline(source)
    assert outline is not None and outline.bodies[0] == (5, 6, 6, 4)
    assert read_calls_of(source, outline.bodies) is None


def test_a_static_method_read_from_its_own_lines_is_not_called_through_its_class() -> None:
    # Its own lines start at `def`: the file's reading says it is static, so its first
    # parameter is not the class or object it is called through.
    source = textwrap.dedent(
        """\
        class C:
            @staticmethod
            def scalar(weight, size: int = 1):
                return weight.narrow(size)

            def method(self):
                return self.narrow()

            @property
            def value(self):
                return self.narrow()

            @value.setter
            @staticmethod
            def value(weight):
                return weight.narrow()
        """
    ).encode()
    outlined, whole = _outlined_and_whole(source)
    assert {name: outlined.functions[name] for name in whole.functions} == dict(whole.functions)
    assert [c.target for c in outlined.functions["C.scalar"].calls] == [
        "staticmethod()",
        "weight.narrow",
    ]


def _module_level_parsed(source: bytes, monkeypatch: pytest.MonkeyPatch) -> str:
    """The text `ast` parses of a file's code at import time, read from its outline; its calls
    and functions so read are those of its whole `ast` reading."""
    parsed: list[str] = []
    real = calls_module.parse

    def recorded(text: str, *args: Any) -> Any:
        parsed.append(text)
        return real(text, *args)

    monkeypatch.setattr(calls_module, "parse", recorded)
    outlined, whole = _outlined_and_whole(source)
    assert (outlined.calls, outlined.bindings) == (whole.calls, whole.bindings)
    assert {name: outlined.functions[name] for name in whole.functions} == dict(whole.functions)
    return parsed[0]


def _outlined_and_whole(source: bytes) -> tuple[CallReading, CallReading]:
    """A file's call reading from its outline (`ast` on its code at import time, each function
    from its own lines), and the whole `ast` reading of it, the first parsed first."""
    outline = read_outline(source)
    assert outline is not None
    outlined = read_calls_of(source, outline.bodies)
    whole = read_source(source).calls
    assert outlined is not None and whole is not None
    return outlined, whole
