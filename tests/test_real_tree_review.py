"""`review --base HEAD` on vllm-omni 0.30.0 with the shipped `.importlinter` committed: what an
edit of the configuration lets through, or newly reports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from helpers import Project, run_cli

pytestmark = pytest.mark.real_tree

R4 = "platform-classes-load-no-bodies"
FORBIDDEN = "vllm_omni.diffusion.quantization"


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repository(copy: Project) -> Project:
    """The release, with an eager import of a forbidden package added to the package root
    (which every platform module runs first), and the shipped configuration, committed."""
    root_init = copy.root / "vllm_omni/__init__.py"
    root_init.write_text(root_init.read_text() + f"\nimport {FORBIDDEN}\n")
    _git(copy.root, "init", "-q")
    _git(copy.root, "add", ".")
    _git(copy.root, "commit", "-q", "-m", "base")
    return copy


def _edit(project: Project, old: str, new: str) -> None:
    config = project.root / ".importlinter"
    text = config.read_text()
    assert old in text
    config.write_text(text.replace(old, new, 1))


def _review() -> tuple[int, dict[str, Any]]:
    result = run_cli("review", "--base", "HEAD", "--static", "--format", "json")
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def _changed(findings: list[dict[str, Any]]) -> set[tuple[str, str, str, tuple[str, ...]]]:
    return {
        (f["contract"], f["finding"]["importer"], f["finding"]["imported"], tuple(f["because"]))
        for f in findings
    }


def test_removing_the_package_from_forbidden_modules_is_loosened(repository: Project) -> None:
    _edit(repository, f"    {FORBIDDEN}\n", "")
    code, data = _review()
    assert code == 1
    assert _changed(data["loosened"]) == {(R4, "vllm_omni", FORBIDDEN, ("forbidden_modules",))}
    assert data["grew"] is False


def test_narrowing_follow_modules_is_loosened(repository: Project) -> None:
    _edit(
        repository,
        "follow_modules =\n    vllm_omni\n",
        "follow_modules =\n    vllm_omni.platforms\n",
    )
    code, data = _review()
    assert code == 1
    assert (R4, "vllm_omni", FORBIDDEN, ("follow_modules",)) in _changed(data["loosened"])


def test_removing_the_contract_is_loosened(repository: Project) -> None:
    text = (repository.root / ".importlinter").read_text()
    start = text.index(f"[importlinter:contract:{R4}]")
    end = text.index("[importlinter:contract:", start + 1)
    (repository.root / ".importlinter").write_text(text[:start] + text[end:])
    code, data = _review()
    assert code == 1
    assert _changed(data["loosened"]) == {(R4, "vllm_omni", FORBIDDEN, ("contract removed",))}


def test_adding_a_forbidden_module_exits_0_and_lists_what_it_newly_reports(
    repository: Project,
) -> None:
    _edit(repository, f"    {FORBIDDEN}\n", f"    {FORBIDDEN}\n    vllm_omni.data_entry_keys\n")
    code, data = _review()
    assert code == 0
    assert data["loosened"] == []
    newly = _changed(data["tightened"])
    assert newly and all(
        (contract, imported, because) == (R4, "vllm_omni.data_entry_keys", ("forbidden_modules",))
        for contract, _, imported, because in newly
    )


def test_removing_a_forbidden_module_that_hides_nothing_is_named_as_checking_less(
    repository: Project,
) -> None:
    _edit(repository, "    vllm_omni.diffusion.layers\n", "")
    code, data = _review()
    assert code == 1
    assert data["loosened"] == []  # no violation is hidden by it today
    assert data["loosened_options"] == [
        {
            "contract": R4,
            "name": "Importing a platform class loads no implementation body (R4)",
            "option": "forbidden_modules",
            "removed": ["vllm_omni.diffusion.layers"],
        }
    ]
    markdown = run_cli("review", "--base", "HEAD", "--static").stdout
    assert (
        "| Importing a platform class loads no implementation body (R4) "
        f"(`{R4}`) | forbidden_modules | `vllm_omni.diffusion.layers` |"
    ) in markdown


def test_an_import_added_to_the_platform_interface_is_named_with_its_chain(
    repository: Project,
) -> None:
    """The done-when of issue 45: a head commit that makes every platform class also load a new
    module, which breaks no contract, is named with the chain through `interface.py`."""
    interface = repository.root / "vllm_omni/platforms/interface.py"
    text = interface.read_text()
    line = text.count("\n", 0, text.index("import torch\n")) + 1
    interface.write_text(
        text.replace("import torch\n", "import vllm_omni.heavy_probe\nimport torch\n", 1)
    )
    (repository.root / "vllm_omni/heavy_probe.py").write_text("")
    _git(repository.root, "add", ".")
    _git(repository.root, "commit", "-q", "-m", "head")
    result = run_cli("review", "--base", "HEAD~1", "--static", "--format", "json")
    assert result.exit_code == 0, result.output
    changes = json.loads(result.stdout)["closure_changes"]
    sources = [
        f"vllm_omni.platforms.{backend}.platform"
        for backend in ("cuda", "musa", "npu", "rocm", "xpu")
    ]
    assert [change["module"] for change in changes] == sources
    added = {"path": "vllm_omni/platforms/interface.py", "line": line}
    for change in changes:
        assert (change["contracts"], change["lost"]) == ([R4], [])
        (gained,) = change["gained"]
        assert (gained["module"], gained["changed"], gained["breaks"]) == (
            "vllm_omni.heavy_probe",
            added,
            [],
        )
        last = gained["chain"][-1]
        assert (last["importer"], last["imported"], last["line_numbers"]) == (
            "vllm_omni.platforms.interface",
            "vllm_omni.heavy_probe",
            [line],
        )
    markdown = run_cli("review", "--base", "HEAD~1", "--static").stdout
    assert (
        "Importing `vllm_omni.platforms.cuda.platform` (a source module of "
        f"`{R4}`) now runs 1 more module."
    ) in markdown
    assert (
        f"`vllm_omni.platforms.interface -> vllm_omni.heavy_probe (l.{line}, module level)` "
        f"| `vllm_omni/platforms/interface.py:{line}` |"
    ) in markdown
