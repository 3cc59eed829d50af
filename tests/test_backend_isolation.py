"""Rule R2 on synthetic packages: no module outside a backend imports that backend."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import Project, configure_r2, imports_of, run_cli

pytestmark = pytest.mark.matrix

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
        "warned_unmatched_ignores": [],
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


MODULE_BACKENDS = {
    "pkg/platforms/__init__.py": "def detect():\n    from pkg.platforms import xpu\n",
    "pkg/platforms/interface.py": "",
    "pkg/platforms/cuda.py": "from pkg.platforms import interface\n",
    "pkg/platforms/rocm.py": "",
    "pkg/platforms/xpu.py": "",
    "pkg/platforms/zen_cpu.py": "from pkg.platforms import cuda\n",
    "pkg/neutral.py": "import pkg.platforms.interface\nfrom pkg.platforms.rocm import on_gfx950\n",
}


def test_every_child_is_a_backend_but_the_neutral_children(project: Project) -> None:
    project.write(MODULE_BACKENDS)
    configure_r2(project, "backends = *\nneutral_children = interface\n")
    report = project.contract("r2")
    assert report["backends"] == ["cuda", "rocm", "xpu", "zen_cpu"]
    assert imports_of(report["violations"]) == {
        ("pkg.platforms", "pkg.platforms.xpu"),
        ("pkg.neutral", "pkg.platforms.rocm"),
    }


def test_every_child_without_neutral_children_makes_the_interface_a_backend(
    project: Project,
) -> None:
    project.write(MODULE_BACKENDS)
    configure_r2(project, "backends = *\n")
    report = project.contract("r2")
    assert report["backends"] == ["cuda", "interface", "rocm", "xpu", "zen_cpu"]
    # cuda -> interface is a cross-backend import now, allowed by default.
    assert imports_of(report["violations"]) == {
        ("pkg.platforms", "pkg.platforms.xpu"),
        ("pkg.neutral", "pkg.platforms.interface"),
        ("pkg.neutral", "pkg.platforms.rocm"),
    }


def test_every_child_includes_packages_and_new_children(project: Project) -> None:
    project.write({**MODULE_BACKENDS, "pkg/platforms/npu/ops.py": ""})
    project.write({"pkg/neutral.py": "from pkg.platforms.npu import ops\n"})
    configure_r2(project, "backends = *\nneutral_children = interface\n")
    report = project.contract("r2")
    assert report["backends"] == ["cuda", "npu", "rocm", "xpu", "zen_cpu"]
    assert imports_of(report["violations"]) == {
        ("pkg.platforms", "pkg.platforms.xpu"),
        ("pkg.neutral", "pkg.platforms.npu.ops"),
    }


def test_neutral_children_are_left_out_of_the_discovery(project: Project) -> None:
    project.write(
        {
            **PLATFORMS,
            "pkg/platforms/default/platform.py": "",
            "pkg/platforms/default/cache.py": "",
            "pkg/platforms/cuda/ops.py": "from pkg.platforms.default import cache\n",
            "pkg/neutral.py": "from pkg.platforms.default import cache\n",
        }
    )
    configure_r2(project, "neutral_children = default\ncross_backend_imports = forbid\n")
    report = project.contract("r2")
    assert report["backends"] == ["cuda", "npu"]
    assert report["kept"], report["violations"]


def test_without_neutral_children_the_default_package_is_a_backend(project: Project) -> None:
    project.write(
        {
            **PLATFORMS,
            "pkg/platforms/default/platform.py": "",
            "pkg/platforms/default/cache.py": "",
            "pkg/platforms/cuda/ops.py": "from pkg.platforms.default import cache\n",
        }
    )
    configure_r2(project, "cross_backend_imports = forbid\n")
    report = project.contract("r2")
    assert report["backends"] == ["cuda", "default", "npu"]
    assert imports_of(report["violations"]) == {
        ("pkg.platforms.cuda.ops", "pkg.platforms.default.cache")
    }


def test_neutral_children_leave_named_backends_alone(project: Project) -> None:
    project.write(MODULE_BACKENDS)
    configure_r2(project, "backends =\n    cuda\n    rocm\nneutral_children = interface\n")
    assert project.contract("r2")["backends"] == ["cuda", "rocm"]


R2_OPTION_ERRORS = [
    (
        "backends =\n    *\n    cuda\n",
        "backends: '*' names every child of the container; list no other name beside it (leave children out with neutral_children).",
    ),
    (
        "backends =\n    cuda\n    interface\nneutral_children = interface\n",
        "neutral_children: 'interface' is also listed in backends; a child is either a backend or neutral.",
    ),
    (
        "backends =\n    cuda\n    rocm\nneutral_children =\n    rocm\n    cuda\n",
        "neutral_children: 'cuda', 'rocm' are also listed in backends; a child is either a backend or neutral.",
    ),
    (
        "backends = *\nneutral_children = interfaze\n",
        "neutral_children: 'interfaze' is not a child of 'pkg.platforms'; its children are: cuda, interface, rocm, xpu, zen_cpu.",
    ),
    (
        "backends = *\nneutral_children =\n    cuda\n    interface\n    rocm\n    xpu\n    zen_cpu\n",
        "backends: every child of 'pkg.platforms' is in neutral_children, so '*' names no backend.",
    ),
    (
        "backends = *\nneutral_children =\n",
        "neutral_children: This list is empty; give at least one value.",
    ),
    (
        "neutral_children = interface\n",
        "backends: no child package of 'pkg.platforms' outside neutral_children has a 'platform' module; set backend_marker, or name the backends with backends = ... (or backends = * for every child).",
    ),
]


@pytest.mark.parametrize(
    ("options", "message"),
    R2_OPTION_ERRORS,
    ids=[
        "star-beside-names",
        "named-and-neutral",
        "two-named-and-neutral",
        "neutral-child-missing",
        "every-child-neutral",
        "neutral-children-empty",
        "none-discovered-outside-neutral",
    ],
)
def test_backend_and_neutral_children_errors(project: Project, options: str, message: str) -> None:
    project.write(MODULE_BACKENDS)
    configure_r2(project, options)
    result = project.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "Backends are private" is not configured correctly: {message}\n'
    )
    lint = project.lint_imports()
    assert lint.exit_code == 1
    assert " ".join(message.split()) in " ".join(lint.output.split())


# Lightning's layout: one module per accelerator, each re-exported by the container's
# `__init__` (whose own imports of them are allowlisted: it is the registry).
REEXPORTS = {
    "pkg/accelerators/__init__.py": """\
        \"\"\"The accelerators.\"\"\"
        from pkg.accelerators.accelerator import Accelerator
        from pkg.accelerators.cpu import CPUAccelerator
        from pkg.accelerators.registry import XLAAccelerator
        from .cuda import CUDAAccelerator as CUDAAccelerator
        """,
    "pkg/accelerators/accelerator.py": "class Accelerator:\n    pass\n",
    "pkg/accelerators/registry.py": "from pkg.accelerators.xla import XLAAccelerator\n",
    "pkg/accelerators/cpu.py": "class CPUAccelerator:\n    pass\n",
    "pkg/accelerators/cuda.py": "class CUDAAccelerator:\n    pass\n",
    "pkg/accelerators/xla.py": "class XLAAccelerator:\n    pass\n",
    "pkg/trainer.py": "import os\nfrom pkg.accelerators import Accelerator, CUDAAccelerator\n",
}

REEXPORT_CONTRACT = """\
[importlinter:contract:r2]
name = Accelerators are private
type = backend_isolation
container = pkg.accelerators
backends =
    cpu
    cuda
    xla
ignore_imports =
    pkg.accelerators -> pkg.accelerators.*  # the registry of accelerators
    pkg.accelerators.registry -> pkg.accelerators.xla  # the registry of accelerators
{options}
"""


@pytest.fixture
def reexports(project: Project) -> Project:
    project.write(REEXPORTS)
    return project


def configure_reexports(project: Project, options: str = "") -> None:
    project.configure(REEXPORT_CONTRACT.format(options=options))


@pytest.mark.parametrize("options", ["", "count_reexports = false"], ids=["default", "false"])
def test_a_name_the_container_reexports_is_not_counted_by_default(
    reexports: Project, options: str
) -> None:
    configure_reexports(reexports, options)
    assert reexports.contract("r2")["kept"]


def test_a_name_the_container_reexports_counts_as_importing_its_backend(
    reexports: Project,
) -> None:
    configure_reexports(reexports, "count_reexports = true")
    (violation,) = reexports.contract("r2")["violations"]
    assert violation == {
        "backend": "cuda",
        "importer": "pkg.trainer",
        "imported": "pkg.accelerators.cuda",
        "line_numbers": [2],
        "locations": [{"path": "pkg/trainer.py", "line": 2}],
        "chain": [
            {
                "importer": "pkg.trainer",
                "imported": "pkg.accelerators",
                "line_numbers": [2],
                "why": ["imports CUDAAccelerator from pkg.accelerators"],
                "locations": [{"path": "pkg/trainer.py", "line": 2}],
            },
            {
                "importer": "pkg.accelerators",
                "imported": "pkg.accelerators.cuda",
                "line_numbers": [5],
                "why": ["re-exports CUDAAccelerator"],
                "locations": [{"path": "pkg/accelerators/__init__.py", "line": 5}],
            },
        ],
    }
    output = reexports.lint_imports().output
    assert (
        "-   pkg.trainer -> pkg.accelerators.cuda (l.2): imports CUDAAccelerator from "
        "pkg.accelerators, re-exported by pkg.accelerators (l.5)\n"
        "    pkg/trainer.py:2\n"
        "    pkg/accelerators/__init__.py:5\n"
    ) in output


def test_a_reexport_chain_is_followed_to_the_backend(reexports: Project) -> None:
    configure_reexports(reexports, "count_reexports = true")
    reexports.write({"pkg/trainer.py": "from pkg.accelerators import XLAAccelerator as X\n"})
    (violation,) = reexports.contract("r2")["violations"]
    assert (violation["importer"], violation["imported"]) == ("pkg.trainer", "pkg.accelerators.xla")
    assert [(hop["importer"], hop["line_numbers"], hop["why"]) for hop in violation["chain"]] == [
        ("pkg.trainer", [1], ["imports XLAAccelerator from pkg.accelerators"]),
        ("pkg.accelerators", [4], ["re-exports XLAAccelerator"]),
        ("pkg.accelerators.registry", [1], ["re-exports XLAAccelerator"]),
    ]
    assert (
        "re-exported by pkg.accelerators (l.4), then pkg.accelerators.registry (l.1)"
        in reexports.lint_imports().output
    )


@pytest.mark.parametrize(
    "trainer",
    [
        # A name the container defines or re-exports from a neutral module.
        "from pkg.accelerators import Accelerator\n",
        # The container itself, and the names looked up on it: not an import of a name.
        "import pkg.accelerators\npkg.accelerators.CUDAAccelerator()\n",
        # The backend's own module imports its name back: it is its own.
        "",
    ],
    ids=["neutral-name", "module-import", "nothing"],
)
def test_what_is_not_a_reexport_of_a_backend_is_not_counted(
    reexports: Project, trainer: str
) -> None:
    configure_reexports(reexports, "count_reexports = true")
    reexports.write(
        {
            "pkg/trainer.py": trainer,
            "pkg/accelerators/cuda.py": "from pkg.accelerators import CUDAAccelerator\n",
        }
    )
    assert reexports.contract("r2")["kept"]


def test_a_backend_importing_a_name_another_backend_reexports_counts_when_forbidden(
    reexports: Project,
) -> None:
    reexports.write(
        {
            "pkg/trainer.py": "",
            "pkg/accelerators/cpu.py": "from pkg.accelerators import CUDAAccelerator\n",
        }
    )
    configure_reexports(reexports, "count_reexports = true")
    assert reexports.contract("r2")["kept"]
    configure_reexports(reexports, "count_reexports = true\ncross_backend_imports = forbid")
    (violation,) = reexports.contract("r2")["violations"]
    assert (violation["importer"], violation["imported"]) == (
        "pkg.accelerators.cpu",
        "pkg.accelerators.cuda",
    )


def test_an_allowlist_entry_of_the_backend_module_excuses_the_reexport(
    reexports: Project,
) -> None:
    # (The entry continues ignore_imports, which the options follow.)
    configure_reexports(
        reexports,
        "    pkg.trainer -> pkg.accelerators.cuda  # the trainer picks\ncount_reexports = true",
    )
    report = reexports.contract("r2")
    assert report["kept"]
    (ignored,) = [i for i in report["ignored"] if i["importer"] == "pkg.trainer"]
    assert ignored["chain"][1]["locations"] == [{"path": "pkg/accelerators/__init__.py", "line": 5}]


def test_count_reexports_that_is_not_a_boolean_is_an_error(reexports: Project) -> None:
    configure_reexports(reexports, "count_reexports = perhaps")
    result = reexports.check()
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Accelerators are private" is not configured '
        "correctly: count_reexports: 'perhaps' is not a boolean: give true or false.\n",
    )


def test_the_allowlist_command_brings_a_reexport_in_step(reexports: Project) -> None:
    configure_reexports(reexports, "count_reexports = true")
    result = run_cli("allowlist", "--no-cache", "--add-violations", "--write")
    assert result.exit_code == 0, result.output
    assert "pkg.trainer -> pkg.accelerators.cuda" in (reexports.root / ".importlinter").read_text()
    report = reexports.contract("r2")
    assert report["kept"], report
    assert ("pkg.trainer", "pkg.accelerators.cuda") in {
        (i["importer"], i["imported"]) for i in report["ignored"]
    }


@pytest.mark.parametrize(
    ("trainer", "imported"),
    [
        ("from pkg.accelerators import CUDAAccelerator\n", {"pkg.accelerators.cuda"}),
        # A name the container binds explicitly comes from there, not from the star.
        ("from pkg.accelerators import Accelerator\n", set()),
    ],
    ids=["only-the-star-binds-it", "named-elsewhere"],
)
def test_a_star_import_of_the_container_is_followed_where_nothing_names_the_name(
    reexports: Project, trainer: str, imported: set[str]
) -> None:
    reexports.write(
        {
            "pkg/accelerators/__init__.py": "from .cuda import *\nfrom .accelerator import Accelerator\n",
            "pkg/trainer.py": trainer,
        }
    )
    configure_reexports(reexports, "count_reexports = true")
    assert {v["imported"] for v in reexports.contract("r2")["violations"]} == imported


def test_a_star_import_from_the_container_is_a_warning_with_count_reexports(
    reexports: Project,
) -> None:
    reexports.write({"pkg/trainer.py": "import os\nfrom pkg.accelerators import *  # noqa\n"})
    configure_reexports(reexports)
    assert reexports.contract("r2")["warnings"] == []
    configure_reexports(reexports, "count_reexports = true")
    report = reexports.contract("r2")
    assert report["kept"]
    assert report["warnings"] == [
        "pkg/trainer.py:2: 'from pkg.accelerators import *' is not counted by count_reexports, "
        "as which names it binds is not known statically: import the names it uses."
    ]


def test_the_backend_module_a_reexport_names_is_where_python_finds_the_name(
    reexports: Project,
) -> None:
    # Expectations from the interpreter: the module that defines what the name is bound to.
    names = ["Accelerator", "CPUAccelerator", "CUDAAccelerator", "XLAAccelerator"]
    reexports.write(
        {"pkg/trainer.py": "".join(f"from pkg.accelerators import {n}\n" for n in names)}
    )
    configure_reexports(reexports, "count_reexports = true")
    found = {(v["line_numbers"][0], v["imported"]) for v in reexports.contract("r2")["violations"]}
    ran = subprocess.run(
        [
            sys.executable,
            "-c",
            "import importlib, sys\n"
            "for n in sys.argv[1:]:\n"
            "    print(getattr(importlib.import_module('pkg.accelerators'), n).__module__)\n",
            *names,
        ],
        cwd=reexports.root,
        capture_output=True,
        text=True,
        check=True,
    )
    backends = {"pkg.accelerators.cpu", "pkg.accelerators.cuda", "pkg.accelerators.xla"}
    expected = {
        (line, module)
        for line, module in enumerate(ran.stdout.split(), start=1)
        if module in backends
    }
    assert (
        found
        == expected
        == {
            (2, "pkg.accelerators.cpu"),
            (3, "pkg.accelerators.cuda"),
            (4, "pkg.accelerators.xla"),
        }
    )
