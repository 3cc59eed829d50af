from __future__ import annotations

from pathlib import Path

import pytest

from helpers import Project, copy_release
from vllm_omni_tree import NEWEST


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return Project(tmp_path)


@pytest.fixture
def copy(project: Project) -> Project:
    """The newest release beside the shipped configuration, to edit."""
    return copy_release(project, NEWEST)
