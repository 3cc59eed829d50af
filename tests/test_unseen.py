"""What the graph cannot see: folders without __init__.py below the root packages are warned
about once per run (by its first static contract), and named when they are why a module is
not in the graph."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from helpers import Project, configure_r2
from importlinter_contracts import unseen as unseen_module
from importlinter_contracts._importlinter import build_graph, read_user_options
from importlinter_contracts.cache import DEFAULT_CACHE_DIR, using_caches
from importlinter_contracts.unseen import scan

pytestmark = pytest.mark.matrix

TREE = {
    "pkg/platforms/cuda/platform.py": "",
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/neutral.py": "",
    # Below: the folders that lose their __init__.py (see `unseen`).
    "pkg/vendored/kernels.py": "from pkg.platforms.npu import models\n",
    "pkg/vendored/ops/fused.py": "",
    "pkg/legacy/inner/deep.py": "",
    # Neither holds a module: a folder whose name is no identifier, one with no .py file.
    "pkg/my-scripts/run.py": "",
    "pkg/data/README.md": "",
}
NO_INIT = ["pkg/vendored", "pkg/legacy", "pkg/legacy/inner", "pkg/my-scripts", "pkg/data"]

WARNING = (
    "3 folders below the root packages hold .py files but no __init__.py, so the import graph "
    "leaves out the 4 modules in them: no import into, out of or within them is checked. Add an "
    "__init__.py to each (or, for a namespace package, use import-linter's namespace-package "
    "support: name its portions as root packages): pkg/legacy, pkg/legacy/inner, pkg/vendored."
)

R4 = """\
[importlinter:contract:r4]
name = Platforms load no models
type = eager_imports
source_modules =
    {source}
follow_modules =
    {follow}
forbidden_modules =
    pkg.platforms.npu.models
"""


def remove_inits(project: Project, folders: list[str]) -> None:
    for folder in folders:
        (project.root / folder / "__init__.py").unlink()


@pytest.fixture
def unseen(project: Project) -> Project:
    project.write(TREE)
    remove_inits(project, NO_INIT)
    return project


def r2_and_r4(
    project: Project,
    r2_options: str = "",
    source: str = "pkg.platforms.*.platform",
    follow: str = "pkg.platforms",
) -> None:
    configure_r2(project, r2_options)
    config = project.root / ".importlinter"
    config.write_text(config.read_text() + "\n" + R4.format(source=source, follow=follow))


def test_the_first_static_contract_of_a_run_warns_about_folders_without_init(
    unseen: Project,
) -> None:
    r2_and_r4(unseen)
    report = unseen.report()
    assert [(c["id"], c["kept"], c["warnings"]) for c in report["contracts"]] == [
        ("r2", True, [WARNING]),
        ("r4", True, []),
    ]
    output = " ".join(unseen.lint_imports().output.split())
    assert output.count(WARNING) == 1
    # Whichever contracts a run checks, its first static one warns.
    assert unseen.contract("r4")["warnings"] == [WARNING]
    assert unseen.contract("r2")["warnings"] == [WARNING]


def test_the_warning_comes_before_the_contracts_own_warnings(unseen: Project) -> None:
    r2_and_r4(
        unseen,
        "ignore_imports = pkg.neutral -> pkg.platforms.npu\n"
        "unmatched_ignore_imports_alerting = warn\n",
    )
    assert unseen.contract("r2")["warnings"] == [
        WARNING,
        "No import matches ignored import pkg.neutral -> pkg.platforms.npu: remove this stale entry.",
    ]


def test_one_folder_is_named_in_the_singular(project: Project) -> None:
    project.write({"pkg/platforms/cuda/platform.py": "", "pkg/vendored/kernels.py": ""})
    remove_inits(project, ["pkg/vendored"])
    configure_r2(project)
    assert project.contract("r2")["warnings"] == [
        "1 folder below the root packages holds .py files but no __init__.py, so the import graph "
        "leaves out the 1 module in it: no import into, out of or within it is checked. Add an "
        "__init__.py to each (or, for a namespace package, use import-linter's namespace-package "
        "support: name its portions as root packages): pkg/vendored."
    ]


def test_only_the_first_five_folders_are_listed(project: Project) -> None:
    project.write(
        {"pkg/platforms/cuda/platform.py": "", **{f"pkg/v{i}/m.py": "" for i in range(7)}}
    )
    remove_inits(project, [f"pkg/v{i}" for i in range(7)])
    configure_r2(project)
    (warning,) = project.contract("r2")["warnings"]
    assert warning.startswith("7 folders below the root packages hold .py files")
    assert warning.endswith(": pkg/v0, pkg/v1, pkg/v2, pkg/v3, pkg/v4, and 2 more.")


def test_no_warning_once_every_folder_has_its_init(unseen: Project) -> None:
    r2_and_r4(unseen)
    assert unseen.contract("r2")["warnings"] == [WARNING]
    for folder in ["pkg/vendored", "pkg/legacy", "pkg/legacy/inner"]:
        (unseen.root / folder / "__init__.py").touch()
    # A new run scans afresh, and now sees the import the folder hid.
    r2 = unseen.contract("r2")
    assert r2["warnings"] == []
    assert [(v["importer"], v["imported"]) for v in r2["violations"]] == [
        ("pkg.vendored.kernels", "pkg.platforms.npu.models")
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            "container = pkg.vendored.ops",
            "container: 'pkg.vendored.ops' is not a module of the graph (pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, and everything in it).",
        ),
        (
            "container = pkg.legacy.inner",
            "container: 'pkg.legacy.inner' is not a module of the graph (pkg/legacy/__init__.py and pkg/legacy/inner/__init__.py are missing: the graph leaves out a folder without one, and everything in it).",
        ),
        ("container = pkg.nowhere", "container: 'pkg.nowhere' is not a module of the graph."),
        (
            "container = pkg.platforms\nbackends =\n    cuda\n    xpu",
            "backends: 'xpu' is not a child of 'pkg.platforms' (pkg/platforms/xpu/__init__.py is missing: the graph leaves out a folder without one, and everything in it); its children are: cuda, npu.",
        ),
        (
            "container = pkg.platforms\nbackends = *\nneutral_children = xpu",
            "neutral_children: 'xpu' is not a child of 'pkg.platforms' (pkg/platforms/xpu/__init__.py is missing: the graph leaves out a folder without one, and everything in it); its children are: cuda, npu.",
        ),
    ],
    ids=["container", "nested", "no-such-module", "named-backend", "neutral-child"],
)
def test_r2_errors_name_the_missing_init(unseen: Project, options: str, message: str) -> None:
    unseen.write({"pkg/platforms/xpu/platform.py": ""})
    remove_inits(unseen, ["pkg/platforms/xpu"])
    unseen.configure(
        f"[importlinter:contract:r2]\nname = Backends are private\ntype = backend_isolation\n{options}\n"
    )
    result = unseen.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "Backends are private" is not configured correctly: {message}\n'
    )


@pytest.mark.parametrize(
    ("source", "follow", "message"),
    [
        (
            "pkg.platforms.*.platform",
            "pkg.vendored",
            "follow_modules: 'pkg.vendored' is not a module of the graph (pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, and everything in it).",
        ),
        (
            "pkg.legacy.**",
            "pkg.platforms",
            "source_modules: 'pkg.legacy.**' matches no module of the graph (pkg/legacy/__init__.py and pkg/legacy/inner/__init__.py are missing: the graph leaves out a folder without one, and everything in it).",
        ),
        (
            "pkg.vendored.kernels",
            "pkg.platforms",
            "source_modules: 'pkg.vendored.kernels' matches no module of the graph (pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, and everything in it).",
        ),
        (
            "pkg.nowhere.*",
            "pkg.platforms",
            "source_modules: 'pkg.nowhere.*' matches no module of the graph.",
        ),
    ],
    ids=["follow", "source-wildcard", "source", "no-such-module"],
)
def test_eager_errors_name_the_missing_init(
    unseen: Project, source: str, follow: str, message: str
) -> None:
    unseen.configure(R4.format(source=source, follow=follow))
    result = unseen.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "Platforms load no models" is not configured correctly: {message}\n'
    )


def files_as_modules(root: Path, top: str) -> set[str]:
    found = set()
    for path in (root / top).rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if all(part.isidentifier() for part in parts[:-1]):
            found.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


@pytest.mark.parametrize(
    ("root_package", "files", "no_init", "hidden_folders"),
    [
        ("pkg", TREE, NO_INIT, ["pkg/legacy", "pkg/legacy/inner", "pkg/vendored"]),
        (
            # A namespace root: grimp holds its folders without __init__.py above the first
            # package, and leaves out those inside one.
            "ns",
            {
                "ns/a/mod.py": "",
                "ns/plain/b/mod.py": "",
                "ns/b/hidden/mod.py": "",
                "ns/b/hidden/sub/mod.py": "",
            },
            ["ns", "ns/plain", "ns/b/hidden", "ns/b/hidden/sub"],
            ["ns/b/hidden", "ns/b/hidden/sub"],
        ),
    ],
    ids=["regular-root", "namespace-root"],
)
def test_what_the_scan_leaves_out_is_exactly_what_grimp_leaves_out(
    project: Project,
    root_package: str,
    files: dict[str, str],
    no_init: list[str],
    hidden_folders: list[str],
) -> None:
    project.write(files)
    remove_inits(project, no_init)
    project.configure("", root_package=root_package)
    found = scan([(root_package, project.root / root_package)])
    assert [str(folder.relative_to(project.root)) for folder in found.folders] == hidden_folders
    with using_caches(None, {}):
        graph = build_graph(read_user_options(str(project.root / ".importlinter")))
    in_graph = set(graph.modules)
    left_out = set(found.missing_inits)
    assert not in_graph & left_out
    # Every module a file makes is in the graph or left out (namespace packages aside).
    assert files_as_modules(project.root, root_package) <= in_graph | left_out
    assert found.file_count == len(files_as_modules(project.root, root_package) - in_graph)


def test_the_folders_are_listed_once_per_run(
    unseen: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[list[tuple[str, Path]]] = []

    def counting_scan(roots: list[tuple[str, Path]]) -> unseen_module.UnseenFolders:
        scans.append(roots)
        return scan(roots)

    monkeypatch.setattr(unseen_module, "scan", counting_scan)
    r2_and_r4(unseen)
    assert [c["warnings"] for c in unseen.report()["contracts"]] == [[WARNING], []]
    assert scans == [[("pkg", unseen.root / "pkg")]]
    # A new run scans afresh, and warns again.
    assert [c["warnings"] for c in unseen.report()["contracts"]] == [[WARNING], []]
    assert len(scans) == 2


def settled(root: Path) -> None:
    """Date every folder below `root` an hour back: the scan keeps only folders whose time
    tells whether they change after it."""
    past = time.time() - 3600
    for folder in [root, *(path for path in root.rglob("*") if path.is_dir())]:
        os.utime(folder, (past, past))


def test_the_cache_keeps_the_listing_until_a_folder_changes(
    unseen: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    scans: list[object] = []
    real = unseen_module._scanned

    def counting(roots: list[tuple[str, Path]], timed: bool) -> object:
        scans.append(roots)
        return real(roots, timed)

    monkeypatch.setattr(unseen_module, "_scanned", counting)
    r2_and_r4(unseen)
    settled(unseen.root)

    def warnings() -> list[list[str]]:
        result = unseen.check_with_cache("--format", "json")
        return [c["warnings"] for c in json.loads(result.stdout)["contracts"]]

    assert warnings() == [[WARNING], []]
    assert len(scans) == 1
    assert warnings() == [[WARNING], []]
    assert len(scans) == 1  # (as the cache keeps it)
    # A folder without __init__.py more: its parent's time changes, and the tree is listed
    # again.
    (unseen.root / "pkg/extra").mkdir()
    (unseen.root / "pkg/extra/tool.py").write_text("")
    settled(unseen.root / "pkg/extra")
    more = WARNING.replace("3 folders", "4 folders").replace("4 modules", "5 modules")
    more = more.replace("pkg/legacy, pkg/legacy/inner", "pkg/extra, pkg/legacy, pkg/legacy/inner")
    assert warnings() == [[more], []]
    assert len(scans) == 2
    # A file added deep inside (its folder's time changes), then removed.
    # (A folder changed just before a scan: the scan is not kept, and listed again.)
    (unseen.root / "pkg/vendored/ops/more.py").write_text("")
    assert warnings()[0] == [more.replace("5 modules", "6 modules")]
    assert len(scans) == 3
    (unseen.root / "pkg/vendored/ops/more.py").unlink()
    settled(unseen.root)
    assert warnings() == [[more], []]
    assert warnings() == [[more], []]
    assert len(scans) == 4
    # Without the cache, the folders are listed every run.
    assert [c["warnings"] for c in unseen.report()["contracts"]] == [[more], []]
    assert len(scans) == 5
    # A folder that holds a symbolic link: its target may change with no folder's time.
    (unseen.root / "pkg/vendored/link.py").symlink_to(unseen.root / "pkg/vendored/kernels.py")
    settled(unseen.root)
    linked = more.replace("5 modules", "6 modules")
    assert warnings() == warnings() == [[linked], []]
    assert len(scans) == 7


def test_a_cache_that_cannot_be_written_gives_a_warning_and_the_run_goes_on(
    unseen: Project,
) -> None:
    r2_and_r4(unseen)
    (unseen.root / DEFAULT_CACHE_DIR / unseen_module.CACHE_FILE).mkdir(parents=True)
    settled(unseen.root)  # (a scan of folders that changed just before is not kept)
    result = unseen.check_with_cache("--format", "json")
    assert [c["warnings"] for c in json.loads(result.stdout)["contracts"]] == [
        [
            WARNING,
            "The unseen-folders cache .import_linter_cache/importlinter_contracts/"
            "unseen-folders.cache cannot be written (Is a directory): the folders are listed "
            "again on the next run.",
        ],
        [],
    ]


SHADOWED = (
    "1 module file beside a package of the same name: Python imports the package and never the "
    "file, but the import graph reads the file for the module, so no import of the package's "
    "__init__.py is checked. Remove it (or rename it): pkg/platforms/npu.py."
)


def test_a_run_warns_once_about_a_module_file_beside_its_package(
    project: Project,
) -> None:
    project.write(
        {
            "pkg/platforms/cuda/platform.py": "",
            "pkg/platforms/npu/platform.py": "",
            # Python runs pkg/platforms/npu/__init__.py for pkg.platforms.npu; grimp reads this.
            "pkg/platforms/npu.py": "",
            "pkg/platforms/npu/models.py": "",
        }
    )
    r2_and_r4(project)
    report = project.report()
    assert [(c["id"], c["warnings"]) for c in report["contracts"]] == [
        ("r2", [SHADOWED]),
        ("r4", []),
    ]
    (project.root / "pkg/platforms/npu.py").unlink()
    assert [c["warnings"] for c in project.report()["contracts"]] == [[], []]


def test_module_files_beside_their_packages_are_named_in_the_plural(project: Project) -> None:
    project.write(
        {
            "pkg/platforms/cuda/platform.py": "",
            "pkg/platforms/cuda.py": "",
            "pkg/platforms/npu/platform.py": "",
            "pkg/platforms/npu.py": "",
        }
    )
    configure_r2(project)
    assert project.contract("r2")["warnings"] == [
        "2 module files beside a package of the same name: Python imports the package and never "
        "the files, but the import graph reads the files for the module, so no import of the "
        "package's __init__.py is checked. Remove them (or rename them): pkg/platforms/cuda.py, "
        "pkg/platforms/npu.py."
    ]


def test_forbidden_modules_matching_nothing_name_the_missing_init(unseen: Project) -> None:
    unseen.configure(
        R4.format(source="pkg.platforms.*.platform", follow="pkg.platforms").replace(
            "    pkg.platforms.npu.models\n", "    pkg.vendored.kernels\n"
        )
    )
    result = unseen.check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "Platforms load no models" is not configured '
        "correctly: forbidden_modules: 'pkg.vendored.kernels' matches no module of the graph "
        "(pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, and "
        "everything in it), so the contract would check nothing.\n"
    )
