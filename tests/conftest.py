from __future__ import annotations

import shutil
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import Project, copy_release
from importlinter_contracts import cache
from importlinter_contracts.eager.target import RUNNING, set_target
from vllm_omni_tree import NEWEST

SLOW_LEFT_OUT = pytest.StashKey[int]()


def leaves_out_slow(config: pytest.Config) -> bool:
    """Return whether this run leaves out the slow tests: a run chosen by a `-m` expression
    that does not name `slow`, as the fast loop (`-m "not real_tree"`) and the version matrix
    are. The whole suite (no `-m`) runs them, as `-m slow` does."""
    expression: str = config.option.markexpr
    return bool(expression) and "slow" not in expression


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """Collect with bytecode written: pytest keeps each test module as it rewrote it (its
    asserts made to explain themselves) in a git-ignored __pycache__, unless Python is told
    to write no bytecode (PYTHONDONTWRITEBYTECODE, as on this project's machine), when every
    worker rewrites every test module at every run: 1.5 s of CPU each. The tests then run
    as Python was told."""
    told = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = told


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """Refuse a test marked both slow and matrix (CI runs the matrix on every interpreter,
    where a slow test would cost its seconds six times over); then, once `-m` has chosen,
    leave the slow tests out where `leaves_out_slow` says so, counting them for the summary,
    or put them first, so that under xdist a worker takes each of them early and the others
    share the rest."""
    both = [
        item.nodeid
        for item in items
        if item.get_closest_marker("slow") and item.get_closest_marker("matrix")
    ]
    if both:
        raise pytest.UsageError(f"marked both slow and matrix: {', '.join(both)}")
    yield
    slow = [item for item in items if item.get_closest_marker("slow")]
    if not leaves_out_slow(config):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)
        return
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]
    config.stash[SLOW_LEFT_OUT] = len(slow)
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller prints the count
        config.workeroutput["slow_left_out"] = len(slow)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """Keep the count of slow tests a worker left out (each worker collects them all)."""
    left_out = node.workeroutput.get("slow_left_out")
    if left_out is not None:
        node.config.stash[SLOW_LEFT_OUT] = left_out


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    left_out = terminalreporter.config.stash.get(SLOW_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} slow test{'s' * (left_out != 1)} left out (each starts real "
            "programs for seconds): the whole suite (`python3 tools/dev.py test`, no -m) runs "
            'them, as `-m "slow and not real_tree"` does.'
        )


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
