"""The questions a walk asks (`eager/questions.py`): each one's answer is kept, so that a file
that answers any of them otherwise makes the walks walk again, rather than a kept verdict
being reused (a silent false KEPT)."""

from __future__ import annotations

import inspect
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import Project
from importlinter_contracts.eager import walk as eager_walk
from importlinter_contracts.eager.questions import (
    FileAnswers,
    ModuleQuestions,
    RecordedAnswers,
)

pytestmark = pytest.mark.matrix

# The Protocol's methods: every question a walk may ask.
QUESTIONS = sorted(
    name
    for name, _ in inspect.getmembers(ModuleQuestions, inspect.isfunction)
    if not name.startswith("_")
)

# A tree whose walk asks every question of a file it reads (see `fakes` for the two that
# only a Python 3.15 reading or a file `ast` cannot read here would ask).
FILES = {
    "pkg/platforms/interface.py": (
        "READY = True\n\n\ndef __getattr__(name):\n    import pkg.models.qwen\n    return name\n"
    ),
    "pkg/platforms/cuda/platform.py": (
        "from pkg.platforms import interface\n"
        "from pkg.platforms.interface import READY\n"
        "from .hooks import install\n"
        "import pkg.platforms.cuda.unread\n"
        "install()\n"
    ),
    "pkg/platforms/cuda/hooks.py": "def install():\n    import pkg.models.mistral\n",
    "pkg/platforms/cuda/unread.py": "from .hooks import install\ninstall()\n",
    "pkg/models/mistral.py": "",
    "pkg/models/qwen.py": "",
}

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules =
    pkg.platforms.cuda.platform
follow_modules =
    pkg.platforms
forbidden_modules =
    pkg.models
"""

UNREAD = "pkg.platforms.cuda.unread"


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers that make the walk ask its last two questions: every file has a lazy import
    its code does not use (`lazily_bound` is asked), and `ast` cannot read the calls of
    `UNREAD` here (`calls_unread`, and its `path` for the warning)."""
    calls = FileAnswers.calls
    monkeypatch.setattr(FileAnswers, "has_unused_lazy", lambda self, module: True)
    monkeypatch.setattr(
        FileAnswers,
        "calls",
        lambda self, module: None if module == UNREAD else calls(self, module),
    )


@pytest.fixture
def tree(project: Project, fakes: None) -> Project:
    project.write(FILES)
    # (Python 3.15: a walk asks the scope of each import in a called function.)
    project.configure(R4, session="python_version = 3.15\n")
    return project


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources walked from, from now on."""
    walked: list[str] = []
    real = eager_walk.walk

    def recording(source: str, *args: Any, **kwargs: Any) -> Any:
        walked.append(source)
        return real(source, *args, **kwargs)

    # (The check, `eager.check`, imports it from its module where it walks.)
    monkeypatch.setattr(eager_walk, "walk", recording)
    return walked


def report(tree: Project) -> dict[str, Any]:
    result = tree.check_with_cache("--format", "json")
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def touch_every_file(root: Path) -> None:
    """Change every file's modification time: each is asked its questions again."""
    for path in (root / "pkg").rglob("*.py"):
        time = path.stat().st_mtime + 10
        os.utime(path, (time, time))


def perturbed(value: Any) -> Any:
    """Another answer of the same shape as `value`."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return value + " (perturbed)"
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        first = value._fields[0]
        return value._replace(**{first: perturbed(getattr(value, first))})
    if isinstance(value, tuple):
        return value + value[:1] if value else ("perturbed",)
    return (*value, 0)  # the lines of `from` imports


def test_the_interface_is_implemented_and_recorded_whole() -> None:
    assert len(QUESTIONS) > 10
    for name in QUESTIONS:
        assert callable(getattr(FileAnswers, name))
        assert callable(getattr(RecordedAnswers, name))


def test_the_tree_asks_every_question_and_asked_again_answers_the_same(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: set[str] = set()
    keep = RecordedAnswers._keep

    def noting(self: RecordedAnswers, module: str, question: str, *rest: Any) -> None:
        asked.add(question)
        keep(self, module, question, *rest)

    monkeypatch.setattr(RecordedAnswers, "_keep", noting)
    first = report(tree)
    assert asked == set(QUESTIONS)
    (contract,) = first["contracts"]
    assert {(v["importer"], v["imported"]) for v in contract["violations"]} == {
        ("pkg.platforms.cuda.hooks", "pkg.models.mistral"),
        ("pkg.platforms.interface", "pkg.models.qwen"),
    }
    touch_every_file(tree.root)
    walks.clear()
    assert report(tree) == first
    assert walks == []


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_file_that_answers_any_question_otherwise_makes_the_walks_walk_again(
    tree: Project, walks: list[str], monkeypatch: pytest.MonkeyPatch, question: str
) -> None:
    first = report(tree)
    touch_every_file(tree.root)
    answer: Callable[..., Any] = getattr(FileAnswers, question)
    changed: list[object] = []

    def changing(self: FileAnswers, *asked: Any) -> Any:
        found = answer(self, *asked)
        if changed or found is None:
            return found
        changed.append(found)
        return perturbed(found)

    monkeypatch.setattr(FileAnswers, question, changing)
    walks.clear()
    after = report(tree)
    # Asked again, one file answered one question otherwise: what the walks found then is
    # not what they would find now.
    assert walks != [], f"a kept verdict was reused although `{question}` answered otherwise"
    assert changed
    assert after == first  # (walked with the file's answers, changed only the once)


def test_an_import_turned_into_a_from_import_is_walked_again(
    project: Project, walks: list[str]
) -> None:
    # The same module imported on the same line, so the same eager lines: but a `from`
    # import of a package with a module `__getattr__` calls it (for a name it does not
    # bind), which a plain import does not. Which lines are `from` imports is a question
    # of its own.
    project.write(
        {
            "pkg/lazy/__init__.py": (
                "def __getattr__(name):\n    import pkg.models.qwen\n    return name\n"
            ),
            "pkg/lazy/x.py": "",
            "pkg/models/qwen.py": "",
            "pkg/platforms/cuda/platform.py": "import pkg.lazy.x\n",
        }
    )
    project.configure(R4.replace("pkg.platforms\n", "pkg.platforms\n    pkg.lazy\n"))
    assert report(project)["contracts"][0]["violations"] == []
    (project.root / "pkg/platforms/cuda/platform.py").write_text("from pkg.lazy import x\n")
    walks.clear()
    after = report(project)
    assert walks != []
    assert after == json.loads(project.check("--format", "json").stdout)
    assert [v["imported"] for v in after["contracts"][0]["violations"]] == ["pkg.models.qwen"]
