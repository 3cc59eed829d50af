"""The runtime contract remembers the probe's result under a key of everything that can change
it: a run whose key matches starts no process. The probe counts its own runs: it appends a
line to runs.log whenever it is imported."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from test_runtime_isolation import TREE, configure

from helpers import Project

pytestmark = pytest.mark.matrix

COUNTING = {
    "pkg/connectors/__init__.py": """\
        import os
        with open("runs.log", "a") as log:
            log.write("run\\n")
        MODE = os.environ.get("PKG_MODE")
        """,
}


@pytest.fixture
def tree(project: Project) -> Project:
    project.write({**TREE, **COUNTING})
    configure(project)
    return project


def runs(project: Project) -> int:
    log = project.root / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def cached_report(project: Project, *args: str) -> dict[str, Any]:
    result = project.check_with_cache("--format", "json", "--contract", "runtime", *args)
    assert result.exit_code in (0, 1), result.output
    import json

    (contract,) = json.loads(result.stdout)["contracts"]
    return dict(contract)


def test_a_second_run_reuses_the_result_without_starting_the_probe(tree: Project) -> None:
    first = cached_report(tree)
    second = cached_report(tree)
    assert runs(tree) == 1
    assert (first["cached"], second["cached"]) == (False, True)
    assert {**first, "cached": True} == second
    text = tree.check_with_cache("--contract", "runtime").stdout
    assert runs(tree) == 1
    assert text.splitlines()[0] == (
        "Optional SDKs stay optional: detected pkg.platforms.cuda.platform.CudaPlatform "
        "(the probe's result from the cache: nothing it depends on has changed)"
    )


def test_changing_a_loaded_file_runs_the_probe_again(tree: Project) -> None:
    cached_report(tree)
    tree.write({"pkg/platforms/interface.py": "import pkg.platforms.npu.ops\n"})
    report = cached_report(tree)
    assert (runs(tree), report["cached"]) == (2, False)
    assert [v["kind"] for v in report["violations"]] == ["backend_loaded"]


def test_a_file_rewritten_with_the_same_content_is_still_a_match(tree: Project) -> None:
    cached_report(tree)
    interface = tree.root / "pkg/platforms/interface.py"
    interface.write_text(interface.read_text())
    os.utime(interface, ns=(1, 1))  # another modification time, same content
    assert cached_report(tree)["cached"]
    assert runs(tree) == 1


def test_a_module_added_to_a_loaded_package_runs_the_probe_again(tree: Project) -> None:
    cached_report(tree)
    tree.write({"pkg/platforms/newcomer.py": ""})
    assert not cached_report(tree)["cached"]
    assert runs(tree) == 2


def test_a_distribution_installed_on_the_path_runs_the_probe_again(tree: Project) -> None:
    cached_report(tree)
    before = os.stat(tree.root)
    (tree.root / "extra-1.0.dist-info").mkdir()
    # Only the list of distributions tells: the folder keeps its modification time.
    os.utime(tree.root, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert not cached_report(tree)["cached"]
    assert runs(tree) == 2


def test_an_environment_variable_the_code_read_is_in_the_key(
    tree: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    cached_report(tree)
    monkeypatch.setenv("UNREAD_BY_THE_PROBE", "1")
    assert cached_report(tree)["cached"]
    monkeypatch.setenv("PKG_MODE", "npu")
    assert not cached_report(tree)["cached"]
    assert cached_report(tree)["cached"]
    assert runs(tree) == 2


def test_an_option_the_probe_sees_runs_it_again_one_that_judges_its_result_does_not(
    tree: Project,
) -> None:
    cached_report(tree)
    configure(tree, "forbidden_loaded_modules = pkg.platforms.interface\n")
    judged = cached_report(tree)
    assert (judged["cached"], [v["kind"] for v in judged["violations"]]) == (
        True,
        ["forbidden_loaded"],
    )
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace("    fakesdk\n", "    fakesdk\n    othersdk\n"))
    assert not cached_report(tree)["cached"]
    assert runs(tree) == 2


def test_no_cache_runs_the_probe_every_time_and_keeps_nothing(tree: Project) -> None:
    for _ in range(2):
        assert not tree.contract("runtime")["cached"]
    assert runs(tree) == 2
    assert not (tree.root / ".import_linter_cache").exists()


def test_cache_dir_is_where_the_result_is_kept(tree: Project) -> None:
    cached_report(tree, "--cache-dir", "elsewhere")
    assert list(Path(tree.root, "elsewhere/importlinter_contracts/runtime").glob("*.json"))
    assert not cached_report(tree)["cached"]  # the default directory has nothing yet
    assert cached_report(tree, "--cache-dir", "elsewhere")["cached"]
    assert runs(tree) == 2


def test_an_unreadable_cache_entry_is_ignored_and_replaced(tree: Project) -> None:
    cached_report(tree)
    (entry,) = Path(tree.root, ".import_linter_cache/importlinter_contracts/runtime").iterdir()
    entry.write_text('{"format": 1, "files": "not a mapping"')
    assert not cached_report(tree)["cached"]
    assert cached_report(tree)["cached"]
    entry.write_text('{"format": 1}')
    assert not cached_report(tree)["cached"]
    assert runs(tree) == 3


def test_a_cache_that_cannot_be_written_is_a_warning_and_the_verdict_stands(
    tree: Project,
) -> None:
    cached_report(tree, "--no-cache")
    folder = tree.root / ".import_linter_cache/importlinter_contracts"
    folder.mkdir(parents=True)
    (folder / "runtime").write_text("a file where the folder goes")
    report = cached_report(tree)
    assert report["kept"]
    # The file is named by the key and the environment, digests this test cannot know.
    (warning,) = report["warnings"]
    assert re.fullmatch(
        r"The runtime-result cache \.import_linter_cache/importlinter_contracts/runtime"
        r"/[0-9a-f]+\.[0-9a-f]+\.json cannot be written \(File exists\): the probe runs"
        r" again on the next check\.",
        warning,
    ), warning
    assert not list(folder.glob("*.tmp"))


def test_a_file_changed_during_the_run_keeps_the_result_out_of_the_cache(tree: Project) -> None:
    tree.write(
        {
            "pkg/connectors/__init__.py": COUNTING["pkg/connectors/__init__.py"]
            + 'open("pkg/platforms/interface.py", "a").write("# touched\\n")\n'
        }
    )
    cached_report(tree)
    assert not cached_report(tree)["cached"]
    assert runs(tree) == 2
