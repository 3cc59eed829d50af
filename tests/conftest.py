from __future__ import annotations

import sys
from pathlib import Path

import pytest

from helpers import Project

# The real-tree tests fetch vllm-omni releases with the repository's own tool.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return Project(tmp_path)
