"""tools/dev.py, the two commands of a clone: it makes the .venv where there is none, installs
the project into it when pyproject.toml has changed since it last did, and otherwise installs
nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import dev
from helpers import REPO


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A clone without a .venv; the commands that set-up would run, recorded (a venv made
    by them is a folder with a bin/python in it)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    venv = tmp_path / ".venv"
    monkeypatch.setattr(dev, "REPO", tmp_path)
    monkeypatch.setattr(dev, "VENV", venv)
    monkeypatch.setattr(dev, "STAMP", venv / ".dev-installed")
    ran: list[list[str]] = []

    def run(command: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        ran.append([str(part) for part in command])
        if command[1:3] == ["-m", "venv"]:
            (venv / "bin").mkdir(parents=True)
            (venv / "bin" / "python").touch()
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(dev.subprocess, "run", run)
    return ran


def test_a_clone_without_a_venv_gets_one_with_the_project_installed(
    clone: list[list[str]], tmp_path: Path
) -> None:
    python = dev.set_up()
    assert python == tmp_path / ".venv" / "bin" / "python"
    assert clone == [
        [sys.executable, "-m", "venv", str(tmp_path / ".venv")],
        [str(python), "-m", "pip", "install", "--quiet", "-e", ".[dev]"],
    ]


def test_a_set_up_venv_installs_nothing_until_pyproject_changes(
    clone: list[list[str]], tmp_path: Path
) -> None:
    dev.set_up()
    clone.clear()
    dev.set_up()
    assert clone == []

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '2'\n")
    python = dev.set_up()
    assert clone == [[str(python), "-m", "pip", "install", "--quiet", "-e", ".[dev]"]]


def test_without_a_command_it_prints_its_usage_and_exits_2() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "tools" / "dev.py")], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"{dev.__doc__}\n"
