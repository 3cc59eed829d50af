"""The shipped `.importlinter` on real vllm-omni releases (downloaded into the cache once)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import ast_walk as oracle
from helpers import STATIC_CONTRACTS, Project
from importlinter_contracts import explore
from vllm_omni_tree import NEWEST, tree

R2_ID = "platform-backends-private"

pytestmark = pytest.mark.real_tree


@pytest.fixture(scope="module")
def newest() -> Path:
    return tree(NEWEST)


def test_shipped_configuration_is_kept_on_the_newest_release(copy: Project) -> None:
    result = copy.check(*STATIC_CONTRACTS)
    assert result.exit_code == 0, result.output
    report = copy.report(*STATIC_CONTRACTS)
    assert report["kept"]
    (r2,) = [c for c in report["contracts"] if c["id"] == R2_ID]
    assert len(r2["ignored"]) == 8 and all(
        i["reason"].startswith("RFC 6691") for i in r2["ignored"]
    )


def test_function_level_backend_import_in_a_neutral_module_is_reported(copy: Project) -> None:
    neutral = copy.root / "vllm_omni/distributed/omni_connectors/utils/config.py"
    lines = neutral.read_text().count("\n")
    with neutral.open("a") as handle:
        handle.write("\n\ndef _probe():\n    from vllm_omni.platforms.npu import platform\n")
    r2 = copy.contract(R2_ID)
    assert not r2["kept"]
    assert r2["violations"] == [
        {
            "backend": "npu",
            "importer": "vllm_omni.distributed.omni_connectors.utils.config",
            "imported": "vllm_omni.platforms.npu.platform",
            "line_numbers": [lines + 4],
            "locations": [
                {"path": "vllm_omni/distributed/omni_connectors/utils/config.py", "line": lines + 4}
            ],
        }
    ]
    output = copy.lint_imports(*STATIC_CONTRACTS).output
    assert f"vllm_omni/distributed/omni_connectors/utils/config.py:{lines + 4}" in output


def test_removing_an_allowlisted_import_makes_its_entry_stale(copy: Project) -> None:
    codec = copy.root / "vllm_omni/model_executor/models/moss_tts/modeling_moss_tts_codec.py"
    source = codec.read_text()
    line = "from vllm_omni.platforms.npu.models.moss_tts_streaming_decode_wrapper import"
    assert line in source
    codec.write_text(source.replace(line, "from somewhere_else import"))
    r2 = copy.contract(R2_ID)
    assert not r2["kept"] and r2["violations"] == []
    assert r2["unmatched_ignores"] == [
        "vllm_omni.model_executor.models.moss_tts.modeling_moss_tts_codec -> "
        "vllm_omni.platforms.npu.models.moss_tts_streaming_decode_wrapper "
        "# RFC 6691 NPU group 1 (added after the RFC inventory)"
    ]
    assert "(remove this stale entry)" in copy.lint_imports(*STATIC_CONTRACTS).output


@pytest.mark.parametrize(
    "version", ["0.18.0", "0.20.0", "0.22.0", "0.24.0", "0.26.0", "0.28.0", NEWEST]
)
def test_empty_allowlist_reports_exactly_what_an_ast_walk_finds(
    version: str, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = tree(version)
    monkeypatch.syspath_prepend(str(release))
    project.configure(
        textwrap.dedent(
            """\
            [importlinter:contract:r2]
            name = R2
            type = backend_isolation
            container = vllm_omni.platforms
            """
        ),
        root_package="vllm_omni",
        session="exclude_type_checking_imports = true\n",
    )
    found = {
        (v["importer"], v["imported"], line)
        for v in project.contract("r2")["violations"]
        for line in v["line_numbers"]
    }
    expected = oracle.backend_imports(release, "vllm_omni.platforms")
    assert expected, "the oracle found nothing: the comparison would prove nothing"
    assert found == expected


def test_shipped_contracts_warn_about_the_folders_the_graph_leaves_out(copy: Project) -> None:
    report = copy.report(*STATIC_CONTRACTS)
    expected = (
        "4 folders below the root packages hold .py files but no __init__.py, so the import "
        "graph leaves out the 37 modules in them: no import into, out of or within them is "
        "checked. Add an __init__.py to each (or, for a namespace package, use import-linter's "
        "namespace-package support: name its portions as root packages): vllm_omni/benchmarks, "
        "vllm_omni/diffusion/attention/ops, vllm_omni/diffusion/interaction/modality_handlers, "
        "vllm_omni/diffusion/models/mammoth_moda2."
    )
    # Once per run: the first static contract warns.
    assert [c["warnings"] for c in report["contracts"]] == [[expected], []]
    graph = explore.load(cache_dir=None).graph
    every_file = set(oracle.modules_of(copy.root, "vllm_omni"))
    assert len(every_file - graph.modules) == 37
