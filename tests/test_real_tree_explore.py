"""The explorer and the allowlist sync on real vllm-omni releases."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import ast_walk as oracle
from helpers import STATIC_CONTRACTS, Project, copy_release, shipped_entries
from importlinter_contracts import explore
from importlinter_contracts.allowlist.entries import parse_entry
from importlinter_contracts.cli import main

R2_ID = "platform-backends-private"
R4_ID = "platform-classes-load-no-bodies"

pytestmark = pytest.mark.real_tree


@pytest.fixture
def newest(copy: Project) -> explore.Explorer:
    return explore.load(cache_dir=None)


@pytest.mark.parametrize(
    "module",
    [
        "vllm_omni.platforms.cuda.platform",
        "vllm_omni.platforms.npu",
        "vllm_omni.distributed.omni_connectors.factory",
    ],
)
def test_eager_closure_is_what_an_independent_ast_walk_finds(
    newest: explore.Explorer, project: Project, module: str
) -> None:
    closure = newest.eager_closure(module)
    assert set(closure) == oracle.eager_closure(project.root, module)
    assert len(closure) > 10
    for target, chain in closure.items():
        assert chain.eager and (not chain or chain[-1].imported == target)


def test_why_shows_the_detector_imports_xpu_inside_a_function_that_a_registry_runs(
    newest: explore.Explorer,
) -> None:
    chain, at_import_time = newest.why("vllm_omni.platforms", "vllm_omni.platforms.xpu")
    assert not chain.eager
    (hop,) = chain.as_data()
    assert (hop["line_numbers"], hop["eager"], hop["why"]) == (
        [96],
        [False],
        ["inside def xpu_omni_platform_plugin"],
    )
    assert hop["locations"] == [{"path": "vllm_omni/platforms/__init__.py", "line": 96}]
    # Yet the detector runs at import time: vllm_omni, which runs first, loads mrope, whose
    # code asks for `current_omni_platform`, whose `__getattr__` calls every detector of the
    # literal registry `builtin_omni_platform_plugins` in a loop (l.141).
    assert at_import_time.eager
    hop = at_import_time.as_data()[-1]
    assert (hop["line_numbers"], hop["eager"], hop["why"]) == (
        [96],
        [True],
        [
            "inside def xpu_omni_platform_plugin, called by def "
            "resolve_current_omni_platform_cls_qualname at l.141, called by def "
            "__getattr__('current_omni_platform') at l.183, called at import time at l.20 of "
            "vllm_omni.model_executor.layers.rotary_embedding.mrope"
        ],
    )


@pytest.mark.parametrize("version", ["0.18.0", "0.24.0", "0.28.0"])
def test_allowlist_proposes_exactly_the_edits_an_older_release_needs(
    version: str, project: Project
) -> None:
    root = copy_release(project, version).root
    needed = {(i, m) for i, m, _ in oracle.backend_imports(root, "vllm_omni.platforms")}
    shipped = shipped_entries(R2_ID)
    result = CliRunner().invoke(
        main, ["allowlist", "--no-cache", "--add-violations", "--contract", R2_ID]
    )
    assert result.exit_code == (1 if needed != shipped else 0), result.output
    removed = {line[1:].strip() for line in result.stdout.splitlines() if line.startswith("-    ")}
    added = {line[1:].strip() for line in result.stdout.splitlines() if line.startswith("+    ")}
    assert {
        tuple(parse_entry(e).text.split(" # ")[0].split(" -> ")) for e in removed
    } == shipped - needed
    assert added == {f"{i} -> {m}  # TODO: reason" for i, m in needed - shipped}

    before = (root / ".importlinter").read_text()
    # --static: the runtime contract needs vllm-omni's dependencies, which this environment lacks.
    written = CliRunner().invoke(
        main, ["allowlist", "--no-cache", "--static", "--add-violations", "--write"]
    )
    after = (root / ".importlinter").read_text()
    # Every shipped contract requires reasons: each placeholder written is named, exit status 1.
    placeholders = after.count("# TODO: reason")
    assert written.exit_code == (1 if placeholders else 0), written.output
    assert sum("no reason given" in line for line in written.stdout.splitlines()) == placeholders
    kept_lines = [line for line in before.splitlines() if line not in removed_lines(before, after)]
    assert [line for line in after.splitlines() if "# TODO: reason" not in line] == kept_lines
    (root / ".importlinter").write_text(after.replace("# TODO: reason", f"# found on {version}"))
    check = CliRunner().invoke(main, ["check", "--no-cache", *STATIC_CONTRACTS])
    assert check.exit_code == 0, check.output


def removed_lines(before: str, after: str) -> set[str]:
    return set(before.splitlines()) - set(after.splitlines())
