"""The readings that spare `ast` (`eager/outline.py`), on every file of real codebases: where
they answer, they answer as the `ast` reading does (itself checked against the independent
walk), line for line; they answer for most files; and what they say of calls never leaves
out a call that may run an import."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_outline_fuzz import reached_packages

import ast_walk as oracle
import other_trees
from importlinter_contracts.eager.outline import read_outline, scope_of_line, text_calls
from importlinter_contracts.eager.scopes import read_source
from vllm_omni_tree import NEWEST, tree

pytestmark = pytest.mark.real_tree


def trees() -> dict[str, tuple[Path, str]]:
    """Each codebase: the folder of its package, and the package."""
    return {
        f"vllm-omni {NEWEST}": (tree(NEWEST) / "vllm_omni", "vllm_omni"),
        "vllm": (other_trees.tree("vllm") / "vllm", "vllm"),
        "lmdeploy": (other_trees.tree("lmdeploy") / "lmdeploy", "lmdeploy"),
    }


@pytest.fixture(scope="module", params=["vllm-omni", "vllm", "lmdeploy"])
def codebase(request: pytest.FixtureRequest) -> tuple[Path, str]:
    name = request.param
    return next(found for key, found in trees().items() if key.startswith(name))


def test_the_outline_reads_every_import_as_ast_does(codebase: tuple[Path, str]) -> None:
    folder, _ = codebase
    files = sorted(folder.rglob("*.py"))
    answered = 0
    for path in files:
        source = path.read_bytes()
        outline = read_outline(source)
        if outline is None:
            continue
        answered += 1
        assert outline.scopes == read_source(source).scopes, path
        eager = {line: scope.eager for line, scope in outline.scopes.items()}
        assert eager == oracle.eager_import_lines(path), path
    assert answered >= 0.98 * len(files)


def test_an_import_read_from_its_lines_is_read_as_ast_does(codebase: tuple[Path, str]) -> None:
    folder, _ = codebase
    asked = answered = 0
    for path in sorted(folder.rglob("*.py")):
        source = path.read_bytes()
        if text_calls(source.decode("latin-1")) is None:
            continue  # not read so (a function of its own called, a TYPE_CHECKING alias)
        expected = read_source(source).scopes
        lines = source.split(b"\n")
        for line, scope in expected.items():
            asked += 1
            found = scope_of_line(lines, line)
            if found is not None:
                answered += 1
                assert found == scope, (path, line)
    assert answered >= 0.8 * asked


def test_what_the_text_and_the_outline_say_of_calls_leaves_none_out(
    codebase: tuple[Path, str],
) -> None:
    folder, package = codebase
    needed = 0
    for path in sorted(folder.rglob("*.py")):
        source = path.read_bytes()
        calls = read_source(source).calls
        # A call at import time may run an import of the package (as `ast` reads the file).
        if calls is None or not reached_packages(calls) & {".", package}:
            continue
        needed += 1
        outline = read_outline(source)
        if outline is not None:
            assert any(top in (".", package) for _, top in outline.callable_names), path
        named = text_calls(source.decode("latin-1"))
        if named is not None:
            assert any(top in (".", package) for _, top in named), path
    assert needed > 10
