"""`closure` and `why` on vllm-omni 0.30.0: the same answers as the REPL, and a chain that
Graphviz renders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_graph_commands import chains_of

import debt_history
from helpers import REPO, Project, run_cli
from importlinter_contracts import explore

pytestmark = pytest.mark.real_tree

PLATFORM = "vllm_omni.platforms.cuda.platform"
MODELS = "vllm_omni.model_executor.models"


def test_closure_lists_the_modules_explore_lists(copy: Project) -> None:
    result = run_cli("closure", "--no-cache", PLATFORM, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    modules = data["modules"]
    expected = explore.load(cache_dir=None).eager_closure(PLATFORM)
    assert sorted(modules) == list(expected)
    assert len(modules) >= 106
    assert modules[MODELS]["hop"]["imported"] == MODELS
    assert chains_of(data) == {module: expected[module].as_data() for module in expected}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_the_chain_to_the_models_package_renders_with_graphviz(copy: Project) -> None:
    result = run_cli("why", "--no-cache", PLATFORM, MODELS, "--format", "dot")
    assert result.exit_code == 0, result.output
    rendered = subprocess.run(
        ["dot", "-Tsvg"], input=result.stdout, capture_output=True, text=True, check=False
    )
    assert (rendered.returncode, rendered.stderr) == (0, "")
    assert "vllm_omni.config.model" in rendered.stdout


def test_debt_history_counts_the_allowlist_each_release_needs() -> None:
    scripts = Path(sys.executable).parent
    assert debt_history.needed_entries("0.18.0", scripts)["platform-backends-private"] == 1
    assert debt_history.needed_entries("0.30.0", scripts)["platform-backends-private"] == 8


def test_debt_history_without_a_venv_says_what_to_run_first(tmp_path: Path) -> None:
    # A bare Python, in a copy of the tools without the repository's .venv beside them.
    tools = tmp_path / "repo" / "tools"
    shutil.copytree(REPO / "tools", tools)
    (tmp_path / "repo" / ".importlinter").write_text("")
    bare = [getattr(sys, "_base_executable", sys.executable), "-S"]
    result = subprocess.run(
        [*bare, str(tools / "debt_history.py"), "--releases", "0.30.0"],
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")},
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"debt_history.py: {bare[0]} has no import-linter and importlinter-contracts, and "
        f"there is no {tmp_path}/repo/.venv: run first, in {tmp_path}/repo: "
        "python3 tools/dev.py lint\n"
    )
