"""Which import statements run at import time: every eager and every deferred form."""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

import ast_walk as oracle
from importlinter_contracts.eager.scopes import (
    ImportScope,
    import_scopes,
    import_scopes_from_tokens,
)
from importlinter_contracts.eager.target import Target, set_target
from importlinter_contracts.errors import UnreadableSourceError

pytestmark = pytest.mark.matrix

Reader = Callable[[bytes], dict[int, ImportScope]]


# Every case is read both ways: with `ast` (which falls back to the tokenizer for syntax this
# Python cannot parse) and with the tokenizer alone.
@pytest.fixture(params=[import_scopes, import_scopes_from_tokens], ids=["ast", "tokens"])
def read(request: pytest.FixtureRequest) -> Reader:
    reader: Reader = request.param
    return reader


def scopes(read: Reader, source: str) -> dict[int, ImportScope]:
    return read(textwrap.dedent(source).encode())


def scope_of_marked(read: Reader, source: str) -> ImportScope:
    """The scope of the one import on the line marked `# <-`."""
    source = textwrap.dedent(source)
    (line,) = [n for n, text in enumerate(source.splitlines(), 1) if text.endswith("# <-")]
    return read(source.encode())[line]


EAGER = {
    "module level": ("import x  # <-\n", "module level"),
    "from import": ("from a.b import c  # <-\n", "module level"),
    "if": ("if flag:\n    import x  # <-\n", "module-level if"),
    "elif": ("if a:\n    pass\nelif b:\n    import x  # <-\n", "module-level elif"),
    "else": ("if a:\n    pass\nelse:\n    import x  # <-\n", "module-level else"),
    "try": ("try:\n    import x  # <-\nexcept ImportError:\n    x = None\n", "module-level try"),
    "except": ("try:\n    pass\nexcept ImportError:\n    import x  # <-\n", "module-level except"),
    "try else": (
        "try:\n    pass\nexcept E:\n    pass\nelse:\n    import x  # <-\n",
        "module-level try-else",
    ),
    "try else in an if": (
        'if os.name == "nt":\n    try:\n        import json\n    except ImportError:\n'
        "        pass\n    else:\n        import x  # <-\n",
        "module-level if > try-else",
    ),
    "finally": ("try:\n    pass\nfinally:\n    import x  # <-\n", "module-level finally"),
    "with": ("with ctx():\n    import x  # <-\n", "module-level with"),
    "async with": ("async with ctx():\n    import x  # <-\n", "module-level with"),
    "for": ("for i in range(2):\n    import x  # <-\n", "module-level for"),
    "for else": ("for i in ():\n    pass\nelse:\n    import x  # <-\n", "module-level for-else"),
    "async for else": (
        "async for i in g():\n    pass\nelse:\n    import x  # <-\n",
        "module-level for-else",
    ),
    "for else in an if": (
        "if a:\n    for i in ():\n        pass\n    else:\n        import x  # <-\n",
        "module-level if > for-else",
    ),
    "while": ("while cond():\n    import x  # <-\n    break\n", "module-level while"),
    "while else": (
        "while cond():\n    break\nelse:\n    import x  # <-\n",
        "module-level while-else",
    ),
    "while else in an if": (
        "if a:\n    while cond():\n        break\n    else:\n        import x  # <-\n",
        "module-level if > while-else",
    ),
    "match": ("match v:\n    case 1:\n        import x  # <-\n", "module-level match > case"),
    "match parenthesised": (
        "match (v):\n    case [1, *_]:\n        import x  # <-\n",
        "module-level match > case",
    ),
    "class body": ("class C:\n    import x  # <-\n", "class body of C"),
    "nested class": (
        "class C(Base, metaclass=M):\n    class D:\n        import x  # <-\n",
        "class body of C > class body of D",
    ),
    "class in try": (
        "try:\n    class C:\n        if a:\n            import x  # <-\nexcept E:\n    pass\n",
        "module-level try > class body of C > if",
    ),
    "else of TYPE_CHECKING": (
        "if TYPE_CHECKING:\n    pass\nelse:\n    import x  # <-\n",
        "module-level else",
    ),
    "not TYPE_CHECKING": ("if not TYPE_CHECKING:\n    import x  # <-\n", "module-level if"),
    "else of main guard": (
        'if __name__ == "__main__":\n    pass\nelse:\n    import x  # <-\n',
        "module-level else",
    ),
    "another name test": ('if __name__ == "pkg.mod":\n    import x  # <-\n', "module-level if"),
    "inline if": ("if flag: import x  # <-\n", "module-level if"),
    "inline class": ("class C: import x  # <-\n", "class body of C"),
    "after semicolon": ("y = 1; import x  # <-\n", "module level"),
    "after decorated def": (
        "@dec(lambda: 1)\ndef f():\n    pass\nimport x  # <-\n",
        "module level",
    ),
    "after dedent from def": (
        "def f():\n    if a:\n        return 1\nimport x  # <-\n",
        "module level",
    ),
    "header with lambda": ("if (lambda: 1)() and {1: 2}:\n    import x  # <-\n", "module-level if"),
    "header with depth-0 lambda": (
        "while lambda: 0:\n    import x  # <-\n    break\n",
        "module-level while",
    ),
    "match as a name": ("match = 1\nif match:\n    import x  # <-\n", "module-level if"),
    "else then if": (
        "if a:\n    pass\nelse:\n    if b:\n        import x  # <-\n",
        "module-level else > if",
    ),
    "elif in a class": (
        "class C:\n    if a:\n        pass\n    elif b:\n        import x  # <-\n",
        "class body of C > elif",
    ),
    "TYPE_CHECKING or another test": (
        "if TYPE_CHECKING or X:\n    import x  # <-\n",
        "module-level if",
    ),
    "tests decided false or two others": (
        "if TYPE_CHECKING or X or False or (Y if a else b):\n    import x  # <-\n",
        "module-level if",
    ),
    "else of TYPE_CHECKING or another test": (
        "if TYPE_CHECKING or X:\n    pass\nelse:\n    import x  # <-\n",
        "module-level else",
    ),
    "elif of TYPE_CHECKING or another test": (
        "if a:\n    pass\nelif (typing.TYPE_CHECKING\n      or X):\n    import x  # <-\n",
        "module-level elif",
    ),
    "elif after TYPE_CHECKING or another test": (
        'if X or __name__ == "__main__":\n    pass\nelif b:\n    import x  # <-\n',
        "module-level elif",
    ),
    "while TYPE_CHECKING or another test": (
        "while TYPE_CHECKING or cond():\n    import x  # <-\n    break\n",
        "module-level while",
    ),
    "else of TYPE_CHECKING and another test": (
        "if sys.version_info >= (3, 11) and TYPE_CHECKING:\n    pass\nelse:\n    import x  # <-\n",
        "module-level else",
    ),
    "not TYPE_CHECKING and another test": (
        "if not (X and TYPE_CHECKING):\n    import x  # <-\n",
        "module-level if",
    ),
    "a name that is no TYPE_CHECKING alias": (
        "from typing import Any as TC\nif TC:\n    import x  # <-\n",
        "module-level if",
    ),
    "if True": ("if True:\n    import x  # <-\n", "module-level if"),
    "if 1": ("if 1:\n    import x  # <-\n", "module-level if"),
    "elif True": ("if a:\n    pass\nelif True:\n    import x  # <-\n", "module-level elif"),
    "else of if False": ("if False:\n    pass\nelse:\n    import x  # <-\n", "module-level else"),
    "except star": (
        "try:\n    pass\nexcept* ValueError:\n    import x  # <-\n",
        "module-level except",
    ),
}

DEFERRED = {
    "function": ("def f():\n    import x  # <-\n", "inside def f"),
    "async function": ("async def f():\n    import x  # <-\n", "inside async def f"),
    "method": ("class C:\n    def m(self):\n        import x  # <-\n", "inside def m"),
    "nested function": ("def f():\n    def g():\n        import x  # <-\n", "inside def f"),
    "function in try": (
        "try:\n    def f():\n        if a:\n            import x  # <-\nexcept E:\n    pass\n",
        "inside def f",
    ),
    "inline def": ("def f(): import x  # <-\n", "inside def f"),
    "typed def": (
        "def f[T: int](a: T = {1: 2}) -> dict[str, int]:\n    import x  # <-\n",
        "inside def f",
    ),
    "TYPE_CHECKING": ("if TYPE_CHECKING:\n    import x  # <-\n", "under if TYPE_CHECKING"),
    "parenthesised TYPE_CHECKING": (
        "if (TYPE_CHECKING):\n    import x  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "typing.TYPE_CHECKING": (
        "if typing.TYPE_CHECKING:\n    import x  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "alias.TYPE_CHECKING": (
        "if t.TYPE_CHECKING:\n    from a import b  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "TYPE_CHECKING alias": (
        "from typing import TYPE_CHECKING as TC\nif TC:\n    import x  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "typing_extensions alias in brackets": (
        "from typing_extensions import (\n    Any,\n    TYPE_CHECKING as TC,\n)\n"
        "class C:\n    if (TC):\n        import x  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "if False": ("if False:\n    import x  # <-\n", "under if False"),
    "if 0": ("if 0:\n    import x  # <-\n", "under if 0"),
    "if (0x0)": (
        "try:\n    if (0x0):\n        import x  # <-\nexcept E:\n    pass\n",
        "under if 0",
    ),
    "inline TYPE_CHECKING": ("if TYPE_CHECKING: import x  # <-\n", "under if TYPE_CHECKING"),
    "main guard": (
        'if __name__ == "__main__":\n    import x  # <-\n',
        'under if __name__ == "__main__"',
    ),
    "main guard reversed": (
        "if '__main__' == __name__: import x  # <-\n",
        'under if __name__ == "__main__"',
    ),
    "TYPE_CHECKING and another test": (
        "if sys.version_info >= (3, 11) and TYPE_CHECKING:\n    import x  # <-\n",
        "under if TYPE_CHECKING",
    ),
    "tests decided false and another": (
        'if X and (t.TYPE_CHECKING or 0) and __name__ == "__main__":\n    import x  # <-\n',
        'under if (TYPE_CHECKING or 0) and __name__ == "__main__"',
    ),
}

# Analysed for Python 3.15, whose syntax `lazy import` is; read with the tokenizer where this
# Python cannot parse it.
LAZY_DEFERRED = {
    "lazy import": "lazy import x  # <-\n",
    "lazy from": "lazy from a import b  # <-\n",
}


@pytest.fixture
def for_315() -> None:
    set_target(Target((3, 15)))


@pytest.mark.usefixtures("for_315")
@pytest.mark.parametrize("source", LAZY_DEFERRED.values(), ids=LAZY_DEFERRED.keys())
def test_unused_lazy_imports_are_deferred(read: Reader, source: str) -> None:
    reason = "lazy import, not used at import time"
    assert scope_of_marked(read, source) == ImportScope(False, reason, lazy="lazy import")


# Each a SyntaxError in CPython 3.15.0 ("lazy import not allowed inside try/except blocks" for
# every clause of a `try`); a loop's `else` is not.
@pytest.mark.usefixtures("for_315")
@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("class C:\n    lazy import x\n", 2),
        ("try:\n    lazy import x\nexcept E:\n    pass\n", 2),
        ("try:\n    pass\nexcept E:\n    lazy import x\n", 4),
        ("try:\n    pass\nexcept E:\n    pass\nelse:\n    lazy import x\n", 6),
        ("try:\n    pass\nfinally:\n    lazy import x\n", 4),
    ],
    ids=["class body", "try", "except", "try-else", "finally"],
)
def test_a_lazy_import_where_python_refuses_one_is_refused(
    read: Reader, source: str, line: int
) -> None:
    with pytest.raises(UnreadableSourceError) as raised:
        read(source.encode())
    assert str(raised.value) == (
        f"line {line}: a `lazy` import is a syntax error here in Python 3.15 (in a function, a "
        "class body or a `try` statement, or of `*`)"
    )


@pytest.mark.skipif(sys.version_info >= (3, 15), reason="this Python parses `lazy import`")
@pytest.mark.usefixtures("for_315")
def test_a_lazy_import_whose_name_stands_elsewhere_is_refused_by_the_tokenizer(
    read: Reader,
) -> None:
    with pytest.raises(UnreadableSourceError, match=r"^line 1: Python 3\.1\d cannot parse "):
        read(b'lazy import heavy\nprint(f"{heavy}")\n')


def test_a_lazy_import_before_315_is_refused(read: Reader) -> None:
    set_target(Target((3, 12)))
    with pytest.raises(UnreadableSourceError) as raised:
        read(b"import os\nlazy import x\n")
    assert str(raised.value) == (
        "line 2: `lazy import` is a syntax error before Python 3.15, and python_version is 3.12"
    )


# The undecided tests each eager form runs under, by case (none where not listed).
EAGER_CONDITIONS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "if": (("if", "flag", 1),),
    "elif": (("else", "a", 1), ("if", "b", 3)),
    "else": (("else", "a", 1),),
    "except": (("except", "ImportError", 3),),
    "while": (("if", "cond()", 1),),
    "class in try": (("if", "a", 3),),
    "another name test": (("if", '__name__ == "pkg.mod"', 1),),
    "inline if": (("if", "flag", 1),),
    "header with lambda": (("if", "(lambda: 1)() and {1: 2}", 1),),
    "header with depth-0 lambda": (("if", "lambda: 0", 1),),
    "match as a name": (("if", "match", 2),),
    "else then if": (("else", "a", 1), ("if", "b", 4)),
    "elif in a class": (("else", "a", 2), ("if", "b", 4)),
    "TYPE_CHECKING or another test": (("if", "X", 1),),
    "tests decided false or two others": (("if", "X or (Y if a else b)", 1),),
    "else of TYPE_CHECKING or another test": (("else", "X", 1),),
    "elif of TYPE_CHECKING or another test": (("else", "a", 1), ("if", "X", 3)),
    "elif after TYPE_CHECKING or another test": (("else", "X", 1), ("if", "b", 3)),
    "while TYPE_CHECKING or another test": (("if", "cond()", 1),),
    "a name that is no TYPE_CHECKING alias": (("if", "TC", 2),),
    "except star": (("except", "ValueError", 3),),
    "try else in an if": (("if", 'os.name == "nt"', 1),),
    "for else in an if": (("if", "a", 1),),
    "while else in an if": (("if", "a", 1),),
    "elif True": (("else", "a", 1),),
}


@pytest.mark.parametrize(
    ("source", "reason", "conditions"),
    [(*EAGER[case], EAGER_CONDITIONS.get(case, ())) for case in EAGER],
    ids=EAGER.keys(),
)
def test_eager_forms(
    read: Reader, source: str, reason: str, conditions: tuple[tuple[str, str, int], ...]
) -> None:
    assert scope_of_marked(read, source) == ImportScope(True, reason, conditions)


# Each clause of a `try` and the `else` of each statement that has one, in an `if`, a class
# body and at module level: an `else` names its statement, but an `if`'s.
CLAUSES = """\
if a:
    try:
        import t
    except E:
        import e
    else:
        import te
    finally:
        import f
class C:
    for i in ():
        pass
    else:
        import fe
while b:
    break
else:
    import we
    try:
        pass
    finally:
        import wf
    if c:
        pass
    else:
        import ie
try:
    pass
except E:
    pass
else:
    while d:
        break
    else:
        import twe
"""
CLAUSE_REASONS = {
    3: "module-level if > try",
    5: "module-level if > except",
    7: "module-level if > try-else",
    9: "module-level if > finally",
    14: "class body of C > for-else",
    18: "module-level while-else",
    22: "module-level while-else > finally",
    26: "module-level while-else > else",
    35: "module-level try-else > while-else",
}


def test_each_clause_of_a_try_or_a_loop_names_its_statement(read: Reader) -> None:
    assert {line: scope.reason for line, scope in scopes(read, CLAUSES).items()} == CLAUSE_REASONS


@pytest.mark.parametrize(("source", "reason"), DEFERRED.values(), ids=DEFERRED.keys())
def test_deferred_forms(read: Reader, source: str, reason: str) -> None:
    assert scope_of_marked(read, source) == ImportScope(eager=False, reason=reason)


def test_strings_and_comments_that_look_like_imports_are_not_imports(read: Reader) -> None:
    assert (
        scopes(
            read,
            '''\
        """
        import x
        """
        # import y
        s = "from a import b"
        t = f"""
        import z
        """
        ''',
        )
        == {}
    )


def test_lazy_is_only_a_keyword_before_import(read: Reader) -> None:
    assert scopes(read, "lazy = 1\nlazy.import_module('x')\nimport y\n") == {
        3: ImportScope(eager=True, reason="module level")
    }


def test_multi_line_statements_are_keyed_by_their_first_line(read: Reader) -> None:
    assert set(scopes(read, "from a import (\n    b,\n    c,\n)\nimport d, \\\n    e\n")) == {1, 5}


def test_two_statements_on_one_line_share_the_eager_scope(read: Reader) -> None:
    assert scopes(read, "import a; import b\n") == {
        1: ImportScope(eager=True, reason="module level")
    }


@pytest.mark.usefixtures("for_315")
def test_syntax_newer_than_the_interpreter_is_read(read: Reader) -> None:
    source = """\
        type Alias[T] = list[T]
        lazy import heavy
        def f[T](x: T) -> T:
            import inner
            return x
        try:
            import optional
        except* ValueError:
            pass
        print(t"{other}")
        """
    assert {line: s.eager for line, s in scopes(read, source).items()} == {
        2: False,
        4: False,
        7: True,
    }


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('x = """never closed\nimport y\n', "line 1: EOF in multi-line string"),
        (
            "if x:\n        import a\n    import b\n",
            "line 3: unindent does not match any outer indentation level",
        ),
        ("if x\n    import y\n", "line 1: a compound statement has no colon"),
    ],
    ids=["unterminated string", "bad dedent", "header without colon"],
)
def test_files_that_do_not_tokenize_raise_with_the_line(
    read: Reader, source: str, message: str
) -> None:
    with pytest.raises(UnreadableSourceError) as raised:
        read(source.encode())
    assert str(raised.value) == message


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="Python 3.14 reads t-strings")
@pytest.mark.usefixtures("for_315")
def test_a_t_string_that_reuses_its_quote_is_refused_with_its_line(read: Reader) -> None:
    # Before 3.14, `t"{d["k"]}"` is a name and a string cut at the inner quote.
    with pytest.raises(
        UnreadableSourceError,
        match=r"^line 2: this Python's tokenizer cannot read the t-string t\"\{d\[\" "
        r"\(t-strings need Python 3\.14 or newer\)$",
    ):
        read(b'lazy import a\nif t"{d[":def h():#"]}":\n    import x\n')


@pytest.mark.usefixtures("for_315")
def test_f_and_t_strings_that_close_where_they_seem_to_are_read(read: Reader) -> None:
    source = (
        'lazy import a\nx = t"{d}" + f"{b!r:>{w}}" + rf"{x}" + f"""{\n1}"""\nif 1:\n  import y\n'
    )
    assert {line: s.eager for line, s in scopes(read, source).items()} == {1: False, 5: True}


def test_an_expression_too_deep_for_ast_is_read_with_the_tokenizer() -> None:
    source = "x = a" + ".b" * 20_000 + "\nif x:\n    import y\n"
    assert import_scopes(source.encode()) == {
        3: ImportScope(True, "module-level if", (("if", "x", 2),))
    }


def parses_here(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


# The oracle reads with `ast`: the forms this Python parses.
ORACLE_FORMS = {
    name: (source, eager)
    for forms, eager in ((EAGER, True), (DEFERRED, False))
    for name, (source, _) in forms.items()
    if parses_here(source)
}


@pytest.mark.parametrize(("source", "eager"), ORACLE_FORMS.values(), ids=ORACLE_FORMS.keys())
def test_the_independent_walk_reads_each_form_alike(
    tmp_path: Path, source: str, eager: bool
) -> None:
    path = tmp_path / "module.py"
    path.write_text(source)
    (line,) = [n for n, text in enumerate(source.splitlines(), 1) if text.endswith("# <-")]
    assert oracle.eager_import_lines(path)[line] is eager
