"""R4 on copies of the real vllm-omni tree, edited as the spec describes and in other ways."""

from __future__ import annotations

from pathlib import Path

import pytest

import ast_walk as oracle
from helpers import STATIC_CONTRACTS, Project, imports_of
from vllm_omni_tree import NEWEST, tree

R4_ID = "platform-classes-load-no-bodies"
PLATFORMS = "vllm_omni/platforms"

pytestmark = pytest.mark.real_tree


@pytest.fixture(scope="module")
def newest() -> Path:
    return tree(NEWEST)


def append(project: Project, relative: str, text: str) -> int:
    """Append lines to a file of the copy; return the line number of the first one."""
    path = project.root / relative
    first = path.read_text().count("\n") + 1
    with path.open("a") as handle:
        handle.write(text)
    return first


def oracle_violations(project: Project) -> set[tuple[str, str]]:
    return oracle.vllm_omni_r4(project.root)


def test_shipped_r4_is_kept_on_the_newest_release(copy: Project) -> None:
    report = copy.contract(R4_ID)
    assert report["kept"], report
    assert report["sources"] == [
        f"vllm_omni.platforms.{b}.platform" for b in ("cuda", "musa", "npu", "rocm", "xpu")
    ]
    assert oracle_violations(copy) == set()


def test_spec_probe_connector_import_in_cuda_platform_breaks_r4_for_cuda(copy: Project) -> None:
    line = append(
        copy,
        f"{PLATFORMS}/cuda/platform.py",
        "from vllm_omni.platforms.npu import omni_connectors\n",
    )
    report = copy.contract(R4_ID)
    (violation,) = report["violations"]
    assert violation["importer"] == "vllm_omni.platforms.cuda.platform"
    assert violation["imported"] == "vllm_omni.platforms.npu.omni_connectors"
    assert violation["sources"] == ["vllm_omni.platforms.cuda.platform"]
    assert violation["locations"] == [
        {"path": "vllm_omni/platforms/cuda/platform.py", "line": line}
    ]
    assert violation["why"] == ["module level"]
    assert (
        f"vllm_omni/platforms/cuda/platform.py:{line}"
        in copy.lint_imports(*STATIC_CONTRACTS).output
    )
    assert imports_of(report["violations"]) == oracle_violations(copy)


def test_thin_hook_imported_at_module_level_that_imports_a_model_in_a_function_keeps_r4(
    copy: Project,
) -> None:
    copy.write(
        {
            f"{PLATFORMS}/cuda/model_hooks.py": (
                "def load_fish():\n"
                "    from vllm_omni.model_executor.models.fish_speech import fish_speech\n"
                "    return fish_speech\n"
            )
        }
    )
    append(
        copy,
        f"{PLATFORMS}/cuda/platform.py",
        "from vllm_omni.platforms.cuda.model_hooks import load_fish\n",
    )
    assert copy.contract(R4_ID)["kept"]
    assert oracle_violations(copy) == set()


EDITS = {
    "class body of the platform class": (
        f"{PLATFORMS}/xpu/platform.py",
        "\n\nclass _Extra:\n    from vllm_omni.diffusion.layers import norm\n",
        {("vllm_omni.platforms.xpu.platform", "vllm_omni.diffusion.layers.norm")},
    ),
    "module-level try in a patch hook": (
        f"{PLATFORMS}/rocm/patch/__init__.py",
        "\ntry:\n    import vllm_omni.quantization\nexcept ImportError:\n    pass\n",
        {("vllm_omni.platforms.rocm.patch", "vllm_omni.quantization")},
    ),
    "method of the platform class": (
        f"{PLATFORMS}/npu/platform.py",
        "\n\nclass _Extra:\n    def load(self):\n        import vllm_omni.diffusion.models\n",
        set(),
    ),
    "TYPE_CHECKING in a backend package": (
        f"{PLATFORMS}/musa/__init__.py",
        "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import vllm_omni.model_executor.models\n",
        set(),
    ),
    "backend package init reached as a parent": (
        f"{PLATFORMS}/musa/__init__.py",
        "\nimport vllm_omni.distributed.omni_connectors.factory\n",
        {("vllm_omni.platforms.musa", "vllm_omni.distributed.omni_connectors.factory")},
    ),
    "platforms init reached as a parent": (
        f"{PLATFORMS}/__init__.py",
        "\nwith open(__file__):\n    from vllm_omni.platforms.npu.quant import kv_quant_npu\n",
        {("vllm_omni.platforms", "vllm_omni.platforms.npu.quant.kv_quant_npu")},
    ),
    "registry stays allowed, its siblings do not": (
        f"{PLATFORMS}/interface.py",
        "\nfrom vllm_omni.diffusion.attention.backends import registry, sdpa\n",
        {("vllm_omni.platforms.interface", "vllm_omni.diffusion.attention.backends.sdpa")},
    ),
    "import outside the follow scope is not followed": (
        f"{PLATFORMS}/cuda/platform.py",
        "\nimport vllm_omni.entrypoints.utils\n",
        set(),
    ),
}


@pytest.mark.parametrize(("path", "text", "expected"), EDITS.values(), ids=EDITS.keys())
def test_edits_report_exactly_the_eager_imports_python_would_run(
    copy: Project, path: str, text: str, expected: set[tuple[str, str]]
) -> None:
    assert (copy.root / path).exists()
    append(copy, path, text)
    assert imports_of(copy.contract(R4_ID)["violations"]) == expected
    assert oracle_violations(copy) == expected


def test_both_readings_agree_with_an_independent_ast_walk_on_the_newest_release(
    newest: Path,
) -> None:
    from importlinter_contracts.eager.scopes import import_scopes, import_scopes_from_tokens

    compared = 0
    for path in sorted((newest / "vllm_omni").rglob("*.py")):
        source = path.read_bytes()
        tokens = import_scopes_from_tokens(source)
        assert {line: scope.eager for line, scope in tokens.items()} == oracle.eager_import_lines(
            path
        ), path
        assert import_scopes(source) == tokens, path
        compared += len(tokens)
    assert compared > 10_000
