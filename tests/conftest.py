from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import Project, copy_release
from importlinter_contracts import cache
from importlinter_contracts.eager.target import RUNNING, set_target
from vllm_omni_tree import NEWEST


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the slow tests first, so that under xdist a worker takes each of them early and the
    others share the rest, and refuse a test marked both slow and matrix: CI runs the matrix
    on every interpreter, where a slow test would cost its seconds six times over."""
    both = [
        item.nodeid
        for item in items
        if item.get_closest_marker("slow") and item.get_closest_marker("matrix")
    ]
    if both:
        raise pytest.UsageError(f"marked both slow and matrix: {', '.join(both)}")
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return Project(tmp_path)


@pytest.fixture
def copy(project: Project) -> Project:
    """The newest release beside the shipped configuration, to edit."""
    return copy_release(project, NEWEST)


@pytest.fixture
def other_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This package as another version of it would be, which `cache.code_identity` reads: a
    copy, the same until a test changes it (then `cache.code_identity.cache_clear()`)."""
    copy = tmp_path / "other" / "importlinter_contracts"
    shutil.copytree(Path(cache.__file__).parent, copy)
    monkeypatch.setattr(cache, "__file__", str(copy / "cache.py"))
    cache.code_identity.cache_clear()
    yield copy
    cache.code_identity.cache_clear()  # (before `monkeypatch` puts the package back)


@pytest.fixture(autouse=True)
def _readings_for_the_running_python() -> Iterator[None]:
    """Each test starts with the readings made for the running Python: a check sets the
    target Python of the process (`python_version`), which would carry over."""
    yield
    set_target(RUNNING)
