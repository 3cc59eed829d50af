"""`closure` and `why` on vllm-omni 0.30.0: the same answers as the REPL, and a chain that
Graphviz renders."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import debt_history
from helpers import Project, run_cli
from importlinter_contracts import explore

pytestmark = pytest.mark.real_tree

PLATFORM = "vllm_omni.platforms.cuda.platform"
MODELS = "vllm_omni.model_executor.models"


def test_closure_lists_the_modules_explore_lists(copy: Project) -> None:
    result = run_cli("closure", "--no-cache", PLATFORM, "--format", "json")
    assert result.exit_code == 0, result.output
    modules = json.loads(result.stdout)["modules"]
    expected = explore.load(cache_dir=None).eager_closure(PLATFORM)
    assert sorted(modules) == list(expected)
    assert len(modules) >= 106
    assert [hop["imported"] for hop in modules[MODELS]][-1] == MODELS


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
    assert debt_history.needed_entries("0.18.0")["platform-backends-private"] == 1
    assert debt_history.needed_entries("0.30.0")["platform-backends-private"] == 8
