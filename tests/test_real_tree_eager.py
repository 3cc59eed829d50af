"""R4 on copies of the real vllm-omni tree, edited as the spec describes and in other ways."""

from __future__ import annotations

from pathlib import Path

import pytest

import ast_walk as oracle
from helpers import STATIC_CONTRACTS, Project, imports_of, shipped_entries
from importlinter_contracts import explore
from vllm_omni_tree import NEWEST, tree

R4_ID = "platform-classes-load-no-bodies"
PLATFORMS = "vllm_omni/platforms"
SHIPPED_FOLLOW = "    vllm_omni\n"
SPEC_FOLLOW = "    vllm_omni.platforms\n"

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
    """What the independent walk finds with the configuration of the copy: the shipped one
    (everything Python runs, with its allowlist) or the spec's (`spec_walk`)."""
    config = (project.root / ".importlinter").read_text()
    if f"follow_modules =\n{SHIPPED_FOLLOW}" in config:
        excused = frozenset(shipped_entries(R4_ID))
        violations, _ = oracle.vllm_omni_r4(project.root, "vllm_omni", excused)
        return violations
    violations, _ = oracle.vllm_omni_r4(project.root)
    return violations


def spec_walk(project: Project) -> Project:
    """The spec's narrower R4: imports followed through vllm_omni.platforms only, no
    allowlist (as docs/contracts/eager-imports.md shows it)."""
    config = project.root / ".importlinter"
    text = config.read_text()
    start = text.index("# The chains into forbidden code")
    end = text.index("require_reasons = true", start)
    text = text[:start] + text[end:]
    config.write_text(
        text.replace(f"follow_modules =\n{SHIPPED_FOLLOW}", f"follow_modules =\n{SPEC_FOLLOW}")
    )
    return project


def test_shipped_r4_is_kept_on_the_newest_release_with_its_chains_excused(copy: Project) -> None:
    report = copy.contract(R4_ID)
    assert report["kept"], report
    assert report["sources"] == [
        f"vllm_omni.platforms.{b}.platform" for b in ("cuda", "musa", "npu", "rocm", "xpu")
    ]
    assert imports_of(report["ignored"]) == shipped_entries(R4_ID)
    assert all(len(ignored["sources"]) == 5 for ignored in report["ignored"])
    excused = frozenset(shipped_entries(R4_ID))
    assert oracle.vllm_omni_r4(copy.root, "vllm_omni", excused) == (set(), excused)
    count = len(shipped_entries(R4_ID))
    # (The warning about the folders without __init__.py is R2's, the run's first contract.)
    assert (
        f"Importing a platform class loads no implementation body (R4) KEPT ({count} ignored imports)\n"
        in copy.lint_imports(*STATIC_CONTRACTS).output
    )


def test_the_registry_is_reached_and_its_parent_package_is_not_reported(copy: Project) -> None:
    closure = explore.load(cache_dir=None).eager_closure("vllm_omni.platforms.cuda.platform")
    # Reaching the allowed registry runs its parent package, which is forbidden.
    assert "vllm_omni.diffusion.attention.backends.registry" in closure
    assert "vllm_omni.diffusion.attention.backends" in closure
    report = copy.contract(R4_ID)
    assert "vllm_omni.diffusion.attention.backends" not in {
        finding["imported"] for finding in report["violations"] + report["ignored"]
    }


def test_the_registry_parent_package_is_still_followed(copy: Project) -> None:
    line = append(
        copy,
        "vllm_omni/diffusion/attention/backends/__init__.py",
        "from vllm_omni.diffusion.attention.backends import sdpa\n",
    )
    (violation,) = copy.contract(R4_ID)["violations"]
    assert (violation["importer"], violation["imported"], violation["line_numbers"]) == (
        "vllm_omni.diffusion.attention.backends",
        "vllm_omni.diffusion.attention.backends.sdpa",
        [line],
    )
    assert violation["chain"][-2]["imported"] == "vllm_omni.diffusion.attention.backends"
    assert violation["chain"][-2]["why"] == ["its parent package runs first"]
    assert imports_of([violation]) == oracle_violations(copy)


# Where a new eager path into forbidden code must still be reported: the package root, the
# config package that the root imports, and a module that every platform module reaches.
NEW_PATHS = {
    "package root": ("vllm_omni/__init__.py", "vllm_omni"),
    "config package": ("vllm_omni/config/__init__.py", "vllm_omni.config"),
    "platform interface": (f"{PLATFORMS}/interface.py", "vllm_omni.platforms.interface"),
    "patch module the root imports": ("vllm_omni/patch.py", "vllm_omni.patch"),
}


@pytest.mark.parametrize(("path", "importer"), NEW_PATHS.values(), ids=NEW_PATHS.keys())
def test_a_new_eager_import_into_forbidden_code_breaks_the_shipped_r4(
    copy: Project, path: str, importer: str
) -> None:
    line = append(copy, path, "import vllm_omni.diffusion.quantization\n")
    report = copy.contract(R4_ID)
    (violation,) = report["violations"]
    assert (violation["importer"], violation["imported"]) == (
        importer,
        "vllm_omni.diffusion.quantization",
    )
    assert violation["locations"] == [{"path": path, "line": line}]
    assert violation["why"] == ["module level"]
    assert f"{path}:{line}" in copy.lint_imports(*STATIC_CONTRACTS).output
    assert imports_of(report["violations"]) == oracle_violations(copy)


def test_the_spec_walk_is_kept_on_the_newest_release(copy: Project) -> None:
    report = spec_walk(copy).contract(R4_ID)
    assert report["kept"], report
    assert report["ignored"] == []
    assert oracle_violations(copy) == set()


@pytest.mark.parametrize("walk", ["shipped", "spec"])
def test_spec_probe_connector_import_in_cuda_platform_breaks_r4_for_cuda(
    copy: Project, walk: str
) -> None:
    if walk == "spec":
        spec_walk(copy)
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


@pytest.mark.parametrize("walk", ["shipped", "spec"])
def test_thin_hook_imported_at_module_level_that_imports_a_model_in_a_function_keeps_r4(
    copy: Project, walk: str
) -> None:
    if walk == "spec":
        spec_walk(copy)
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
    assert imports_of(copy.contract(R4_ID)["violations"]) == oracle_violations(copy)
    assert imports_of(spec_walk(copy).contract(R4_ID)["violations"]) == expected
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


QUANTIZATION = ("vllm_omni.patch", "vllm_omni.quantization.quack_fp8")


def test_the_shipped_r4_sees_the_quantization_patch_called_at_import_time(copy: Project) -> None:
    report = copy.contract(R4_ID)
    (ignored,) = [i for i in report["ignored"] if (i["importer"], i["imported"]) == QUANTIZATION]
    assert ignored["why"] == [
        "inside def _patch_fp8_use_quack_fused_bias, called at import time at l.481"
    ]
    assert ignored["locations"] == [{"path": "vllm_omni/patch.py", "line": 474}]
    (calls,) = ignored["chain"][-1]["calls"]
    assert [call["location"] for call in calls] == [{"path": "vllm_omni/patch.py", "line": 481}]
    assert ignored["entry"].startswith("vllm_omni.patch -> vllm_omni.quantization.quack_fp8 # ")


def test_without_the_call_the_quantization_entry_is_stale(copy: Project) -> None:
    patch = copy.root / "vllm_omni/patch.py"
    text = patch.read_text()
    assert text.count("\n_patch_fp8_use_quack_fused_bias()\n") == 1
    patch.write_text(text.replace("\n_patch_fp8_use_quack_fused_bias()\n", "\n"))
    report = copy.contract(R4_ID)
    assert not report["kept"] and report["violations"] == []
    (stale,) = report["unmatched_ignores"]
    assert stale.startswith("vllm_omni.patch -> vllm_omni.quantization.quack_fp8 # ")
    assert oracle_violations(copy) == set()


def test_a_cached_run_reports_what_a_run_without_a_cache_does_after_each_edit(
    copy: Project,
) -> None:
    # What the walks found is kept (`eager/outcomes.py`): reported again where nothing they
    # read changed, walked again where something did.
    def cached() -> object:
        result = copy.check_with_cache("--format", "json", "--contract", R4_ID)
        assert result.exit_code in (0, 1), result.output
        return result.stdout

    def uncached() -> object:
        result = copy.check("--format", "json", "--contract", R4_ID)
        assert result.exit_code in (0, 1), result.output
        return result.stdout

    kept = uncached()
    assert cached() == kept  # walked, and kept
    assert cached() == kept  # reported from what was kept
    for path in ("vllm_omni/patch.py", f"{PLATFORMS}/interface.py"):
        append(copy, path, "import vllm_omni.diffusion.quantization\n")
        broken = uncached()
        assert broken != kept
        assert cached() == broken
        assert cached() == broken
        kept = broken
