"""Rule R2 on synthetic packages: no module outside a backend imports that backend."""

from __future__ import annotations

import pytest

from helpers import Project, configure_r2, imports_of

PLATFORMS = {
    "pkg/platforms/__init__.py": "",
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/platforms/cuda/ops.py": "",
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models/fish.py": "",
    "pkg/platforms/npu/quant.py": "",
    "pkg/neutral.py": "",
}


def violations(project: Project) -> set[tuple[str, str]]:
    return imports_of(project.contract("r2")["violations"])


@pytest.fixture
def platforms(project: Project) -> Project:
    project.write(PLATFORMS)
    configure_r2(project)
    return project


def test_clean_tree_is_kept(platforms: Project) -> None:
    platforms.write({"pkg/neutral.py": "import pkg.platforms.interface\n"})
    result = platforms.check()
    assert result.exit_code == 0, result.output
    assert platforms.contract("r2") == {
        "id": "r2",
        "name": "Backends are private",
        "type": "backend_isolation",
        "kept": True,
        "violations": [],
        "ignored": [],
        "unmatched_ignores": [],
        "backends": ["cuda", "npu"],
        "warnings": [],
    }


@pytest.mark.parametrize(
    ("source", "imported", "line"),
    [
        ("import pkg.platforms.npu.platform\n", "pkg.platforms.npu.platform", 1),
        ("import pkg.platforms.npu.models.fish as f\n", "pkg.platforms.npu.models.fish", 1),
        ("from pkg.platforms.npu import quant\n", "pkg.platforms.npu.quant", 1),
        ("from pkg.platforms.npu.quant import something\n", "pkg.platforms.npu.quant", 1),
        ("from pkg.platforms import npu\n", "pkg.platforms.npu", 1),
        ("from .platforms.npu import platform\n", "pkg.platforms.npu.platform", 1),
        (
            "def f():\n    if True:\n        from pkg.platforms.npu import platform\n",
            "pkg.platforms.npu.platform",
            3,
        ),
        ("class C:\n    import pkg.platforms.npu.quant\n", "pkg.platforms.npu.quant", 2),
        (
            "try:\n    import pkg.platforms.npu.quant\nexcept ImportError:\n    pass\n",
            "pkg.platforms.npu.quant",
            2,
        ),
        (
            "x = 1\nfrom pkg.platforms.npu.models import (\n    fish,\n)\n",
            "pkg.platforms.npu.models.fish",
            2,
        ),
    ],
    ids=[
        "import",
        "import-as",
        "from-pkg-import-submodule",
        "from-module-import-name",
        "from-container-import-backend",
        "relative",
        "function-level",
        "class-body",
        "module-level-try",
        "multi-line",
    ],
)
def test_neutral_import_of_a_backend_is_reported_with_its_line(
    platforms: Project, source: str, imported: str, line: int
) -> None:
    platforms.write({"pkg/neutral.py": source})
    (violation,) = platforms.contract("r2")["violations"]
    assert violation == {
        "backend": "npu",
        "importer": "pkg.neutral",
        "imported": imported,
        "line_numbers": [line],
        "locations": [{"path": "pkg/neutral.py", "line": line}],
    }


def test_lazy_import_statement_is_reported(platforms: Project) -> None:
    platforms.write({"pkg/neutral.py": "lazy import pkg.platforms.npu.quant\n"})
    assert violations(platforms) == {("pkg.neutral", "pkg.platforms.npu.quant")}


def test_import_a_b_c_reports_the_deepest_module(platforms: Project) -> None:
    platforms.write({"pkg/neutral.py": "import pkg.platforms.npu.models.fish\n"})
    assert violations(platforms) == {("pkg.neutral", "pkg.platforms.npu.models.fish")}


def test_container_init_and_neutral_siblings_are_neutral(platforms: Project) -> None:
    platforms.write(
        {
            "pkg/platforms/__init__.py": "def detect():\n    from pkg.platforms.cuda import platform\n",
            "pkg/platforms/interface.py": "import pkg.platforms.npu.quant\n",
        }
    )
    assert violations(platforms) == {
        ("pkg.platforms", "pkg.platforms.cuda.platform"),
        ("pkg.platforms.interface", "pkg.platforms.npu.quant"),
    }


def test_a_backend_may_import_itself(platforms: Project) -> None:
    platforms.write(
        {"pkg/platforms/npu/platform.py": "from .models import fish\nfrom . import quant\n"}
    )
    assert platforms.contract("r2")["kept"]


@pytest.mark.parametrize("session", ["", "exclude_type_checking_imports = false\n"])
def test_type_checking_imports_count_when_not_excluded(project: Project, session: str) -> None:
    project.write(PLATFORMS)
    project.write(
        {
            "pkg/neutral.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.platforms.npu.quant\n"
        }
    )
    configure_r2(project, session=session)
    assert violations(project) == {("pkg.neutral", "pkg.platforms.npu.quant")}


def test_type_checking_imports_are_skipped_when_excluded(project: Project) -> None:
    project.write(PLATFORMS)
    project.write(
        {
            "pkg/neutral.py": "import typing\nif typing.TYPE_CHECKING:\n    import pkg.platforms.npu.quant\n"
        }
    )
    configure_r2(project, session="exclude_type_checking_imports = true\n")
    assert project.contract("r2")["kept"]


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("", set()),
        ("cross_backend_imports = allow", set()),
        ("cross_backend_imports = forbid", {("pkg.platforms.cuda.ops", "pkg.platforms.npu.quant")}),
    ],
)
def test_cross_backend_imports(
    project: Project, option: str, expected: set[tuple[str, str]]
) -> None:
    project.write({**PLATFORMS, "pkg/platforms/cuda/ops.py": "import pkg.platforms.npu.quant\n"})
    configure_r2(project, option)
    assert violations(project) == expected


def test_backends_named_explicitly_may_be_modules(project: Project) -> None:
    project.write(
        {
            "pkg/backends/cpu.py": "",
            "pkg/backends/gpu.py": "from pkg.backends import cpu\n",
            "pkg/backends/registry.py": "from pkg.backends import gpu\n",
        }
    )
    project.configure(
        """\
        [importlinter:contract:r2]
        name = Backends are private
        type = backend_isolation
        container = pkg.backends
        backends =
            cpu
            gpu
        cross_backend_imports = forbid
        """
    )
    report = project.contract("r2")
    assert report["backends"] == ["cpu", "gpu"]
    assert imports_of(report["violations"]) == {
        ("pkg.backends.gpu", "pkg.backends.cpu"),
        ("pkg.backends.registry", "pkg.backends.gpu"),
    }


def test_backend_marker_chooses_which_children_are_backends(project: Project) -> None:
    project.write(
        {
            "pkg/platforms/cuda/device.py": "",
            "pkg/platforms/npu/platform.py": "",
            "pkg/neutral.py": "import pkg.platforms.cuda.device\nimport pkg.platforms.npu.platform\n",
        }
    )
    configure_r2(project, "backend_marker = device")
    report = project.contract("r2")
    assert report["backends"] == ["cuda"]
    assert imports_of(report["violations"]) == {("pkg.neutral", "pkg.platforms.cuda.device")}


def test_text_report_groups_by_backend_with_path_and_line(platforms: Project) -> None:
    platforms.write(
        {
            "pkg/neutral.py": "import os\nimport pkg.platforms.npu.quant\nimport pkg.platforms.cuda.ops\n",
            "pkg/platforms/interface.py": "\n\nfrom pkg.platforms.npu.models import fish\n",
        }
    )
    configure_r2(platforms, "broken_contract_guidance = Move the import into the backend.")
    result = platforms.lint_imports()
    assert result.exit_code == 1
    output = result.output
    cuda = output.index("Only pkg.platforms.cuda may import pkg.platforms.cuda:")
    npu = output.index("Only pkg.platforms.npu may import pkg.platforms.npu:")
    assert cuda < output.index("-   pkg.neutral -> pkg.platforms.cuda.ops (l.3)") < npu
    assert "    pkg/neutral.py:3\n" in output
    assert "-   pkg.neutral -> pkg.platforms.npu.quant (l.2)\n    pkg/neutral.py:2\n" in output
    assert "-   pkg.platforms.interface -> pkg.platforms.npu.models.fish (l.3)\n" in output
    assert "    pkg/platforms/interface.py:3\n" in output
    assert output.rstrip().endswith("Move the import into the backend.")
