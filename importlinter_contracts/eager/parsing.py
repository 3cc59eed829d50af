"""Python's own parser (`ast`) as the readers use it: without the warnings it gives about the
code it reads, and with what stopped it said in a few words."""

from __future__ import annotations

import ast
import tokenize
import warnings
from typing import Literal, overload


@overload
def parse(source: str | bytes) -> ast.Module: ...
@overload
def parse(source: str | bytes, mode: Literal["eval"]) -> ast.Expression: ...
def parse(source: str | bytes, mode: str = "exec") -> ast.AST:
    """Return `ast.parse(source, mode=mode)`, without the warnings Python gives about the
    code it reads (an invalid escape sequence, say): they are Python's to give when it runs
    that code, and here they would only print `<unknown>:1: SyntaxWarning` in the middle of
    a linter's report."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ast.parse(source, mode=mode)


def parse_error(error: Exception) -> str:
    """Return what stopped `ast` or the tokenizer reading a file, in a few words, with its
    line."""
    if isinstance(error, SyntaxError):
        return f"line {error.lineno}: {error.msg}"
    if isinstance(error, RecursionError):
        return "an expression nested too deeply"
    if isinstance(error, tokenize.TokenError):
        message, (line, _) = error.args
        return f"line {line}: {message}"
    return str(error)
