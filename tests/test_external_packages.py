"""A forbidden module outside the root packages (an SDK such as torch_xla): checked with
`include_external_packages = true`, an error that says so without it, never a KEPT that
checked nothing."""

from __future__ import annotations

import sys

import pytest

from helpers import Project

pytestmark = pytest.mark.matrix

R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.a
follow_modules = pkg
forbidden_modules = {forbidden}
"""
INCLUDE = "include_external_packages = true\n"
ERROR = 'importlinter-contracts: Contract "R4" is not configured correctly: forbidden_modules: '
OPTION = "include_external_packages = true in the importlinter section"


def configure(project: Project, forbidden: str, session: str = "") -> None:
    project.configure(R4.format(forbidden=forbidden), session=session)


def error_of(project: Project) -> str:
    result = project.check("--contract", "r4")
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    return result.stderr


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(
        {
            "pkg/a.py": "import pkg.b\n",
            "pkg/b.py": "import torch_xla.core.xla_model\n\ndef later():\n    import sdk\n",
        }
    )
    return project


@pytest.mark.parametrize(
    ("forbidden", "message"),
    [
        (
            "torch_xla",
            "'torch_xla' is not one of the root packages (pkg) and is not installed here: if it "
            f"is an external package, set {OPTION}, so that the graph holds the imports of it, "
            "installed or not.",
        ),
        (
            "torch_xla.core",
            "'torch_xla' (of 'torch_xla.core') is not one of the root packages (pkg) and is not "
            f"installed here: if it is an external package, set {OPTION}, so that the graph "
            "holds the imports of it, installed or not.",
        ),
    ],
)
def test_without_the_option_an_sdk_that_is_not_installed_is_an_error(
    tree: Project, forbidden: str, message: str
) -> None:
    configure(tree, forbidden)
    assert error_of(tree) == ERROR + message + "\n"


def test_without_the_option_an_installed_package_is_named_and_not_imported(
    tree: Project,
) -> None:
    # Importing it would leave a mark: finding it must not run it.
    tree.write({"sdk/__init__.py": "open('imported', 'w').close()\n"})
    configure(tree, "sdk")
    where = tree.root / "sdk" / "__init__.py"
    assert error_of(tree) == (
        f"{ERROR}'sdk' is an external package (installed at {where}), which the graph holds "
        f"only with {OPTION}: set it to check imports of it.\n"
    )
    configure(tree, "sdk.tools")
    assert error_of(tree) == (
        f"{ERROR}'sdk.tools' is inside the external package 'sdk' (installed at {where}), "
        f"which the graph holds only with {OPTION}, and then as one module: set it, and "
        "forbid 'sdk'.\n"
    )
    assert not (tree.root / "imported").exists()
    assert "sdk" not in sys.modules


def test_a_package_of_python_is_an_external_package(tree: Project) -> None:
    configure(tree, "json")
    assert error_of(tree) == (
        f"{ERROR}'json' is an external package (installed at "
        f"{sys.modules['json'].__file__}), which the graph holds only with {OPTION}: set it to "
        "check imports of it.\n"
    )


def test_with_the_option_a_forbidden_sdk_is_checked(tree: Project) -> None:
    configure(tree, "torch_xla", session=INCLUDE)
    report = tree.contract("r4")
    assert not report["kept"]
    assert [(v["importer"], v["imported"], v["line_numbers"]) for v in report["violations"]] == [
        ("pkg.b", "torch_xla", [1])
    ]
    assert [hop["importer"] for hop in report["violations"][0]["chain"]] == ["pkg.a", "pkg.b"]
    assert report["warnings"] == []


def test_with_the_option_an_sdk_imported_in_a_function_only_is_kept(tree: Project) -> None:
    configure(tree, "sdk", session=INCLUDE)
    report = tree.contract("r4")
    assert (report["kept"], report["violations"], report["warnings"]) == (True, [], [])


def test_with_the_option_an_sdk_nothing_imports_is_kept_without_a_warning(
    tree: Project,
) -> None:
    """grimp's graph holds every external package any module imports: one it lacks is
    imported nowhere, so the contract holds."""
    configure(tree, "torch_npu", session=INCLUDE)
    report = tree.contract("r4")
    assert (report["kept"], report["violations"], report["warnings"]) == (True, [], [])
    tree.write({"pkg/b.py": "import torch_npu\n"})
    assert not tree.contract("r4")["kept"]


def test_with_the_option_a_module_inside_an_sdk_is_an_error(tree: Project) -> None:
    configure(tree, "torch_xla.core", session=INCLUDE)
    assert error_of(tree) == (
        f"{ERROR}'torch_xla.core' is inside the external package 'torch_xla', which the graph "
        "holds as one module: forbid 'torch_xla'.\n"
    )


def test_the_verdict_is_lint_imports_verdict(tree: Project) -> None:
    configure(tree, "\n    torch_xla\n    sdk", session=INCLUDE)
    assert tree.check("--contract", "r4").exit_code == 1
    assert tree.lint_imports("--contract", "r4").exit_code == 1
    configure(tree, "torch_xla")
    result = tree.lint_imports("--contract", "r4")
    assert result.exit_code == 1
    assert " ".join(result.output.split()) == (
        "Contract \"R4\" is not configured correctly: forbidden_modules: 'torch_xla' is not one "
        "of the root packages (pkg) and is not installed here: if it is an external package, "
        f"set {OPTION}, so that the graph holds the imports of it, installed or not."
    )


def test_an_sdk_beside_modules_of_the_graph_is_an_error_all_the_same(tree: Project) -> None:
    """The contract checks pkg.b, and not torch_xla: not a partial KEPT."""
    configure(tree, "\n    pkg.b\n    torch_xla")
    assert error_of(tree) == (
        f"{ERROR}'torch_xla' is not one of the root packages (pkg) and is not installed here: "
        f"if it is an external package, set {OPTION}, so that the graph holds the imports of "
        "it, installed or not.\n"
    )
