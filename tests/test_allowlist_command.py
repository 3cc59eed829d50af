"""`importlinter-contracts allowlist`: the allowlist edit a merge needs, as a diff or in place."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner, Result

from helpers import Project
from importlinter_contracts.cli import main

TREE = {
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/a.py": "from pkg.platforms.npu import models\n",
    "pkg/b.py": "def f():\n    import pkg.platforms.cuda.platform\n",
}

INI_CONTRACT = """\
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
# reasons are reviewed
require_reasons = true
ignore_imports =
        pkg.a -> pkg.platforms.npu.models    # NPU group 1
        pkg.gone -> pkg.platforms.npu.models # retired in step 9

[importlinter:contract:forbidden]
name = Built-in
type = forbidden
source_modules = pkg.b
forbidden_modules = pkg.a
ignore_imports = pkg.b -> pkg.a
unmatched_ignore_imports_alerting = none
"""


def allowlist(*args: str) -> Result:
    return CliRunner().invoke(main, ["allowlist", "--no-cache", *args], catch_exceptions=False)


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    project.configure(INI_CONTRACT)
    return project


def test_diff_removes_stale_entries_and_leaves_a_violation_to_fix(tree: Project) -> None:
    result = allowlist()
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/.importlinter\n"
        "+++ b/.importlinter\n"
        "@@ -13,7 +13,6 @@\n"
        " require_reasons = true\n"
        " ignore_imports =\n"
        "         pkg.a -> pkg.platforms.npu.models    # NPU group 1\n"
        "-        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n"
        " \n"
        " [importlinter:contract:forbidden]\n"
        " name = Built-in\n"
    )
    assert result.stderr == (
        ".importlinter: 1 violation that no entry excuses: left to fix (importlinter-contracts "
        "check shows where), not added (--add-violations adds an entry for each).\n"
    )


def test_an_exact_allowlist_with_a_violation_to_fix_passes(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text().replace(
            "        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n", ""
        )
    )
    tree.write({"pkg/c.py": "import pkg.platforms.npu.platform\n"})
    before = config.read_bytes()
    for args in ((), ("--write",)):
        result = allowlist(*args)
        assert (result.exit_code, result.stdout) == (0, "")
        assert result.stderr == (
            ".importlinter: 2 violations that no entry excuses: left to fix "
            "(importlinter-contracts check shows where), not added (--add-violations adds an "
            "entry for each).\n"
        )
    assert config.read_bytes() == before


def test_entries_without_reasons_are_named_at_their_lines(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text()
        .replace(
            "        pkg.a -> pkg.platforms.npu.models    # NPU group 1\n",
            "        pkg.a -> pkg.platforms.npu.models    # TODO: reason\n"
            "        pkg.a -> pkg.platforms.npu\n",
        )
        .replace(" # retired in step 9", "")
    )
    tree.write({"pkg/a.py": "from pkg.platforms.npu import models\nimport pkg.platforms.npu\n"})
    result = allowlist("--contract", "r2")
    assert result.exit_code == 1
    # The stale entry is removed by the diff, so only the others are named.
    assert result.stdout.splitlines()[-2:] == [
        ".importlinter:15: pkg.a -> pkg.platforms.npu.models # TODO: reason: no reason given, "
        "which require_reasons asks for: end the entry with '# why it is allowed'.",
        ".importlinter:16: pkg.a -> pkg.platforms.npu: no reason given, which require_reasons "
        "asks for: end the entry with '# why it is allowed'.",
    ]
    assert config.read_text().splitlines()[14:16] == [
        "        pkg.a -> pkg.platforms.npu.models    # TODO: reason",
        "        pkg.a -> pkg.platforms.npu",
    ]
    # Written, the stale entry goes; the reasons are still to be given.
    written = allowlist("--contract", "r2", "--write")
    assert written.exit_code == 1
    assert written.stderr.startswith(".importlinter: written.\n")
    assert len(allowlist("--contract", "r2").stdout.splitlines()) == 2
    # Without require_reasons, an entry need not give one.
    config.write_text(config.read_text().replace("require_reasons = true\n", ""))
    result = allowlist("--contract", "r2")
    assert (result.exit_code, result.stdout) == (0, "")


def test_add_violations_adds_an_entry_with_a_placeholder_for_each(tree: Project) -> None:
    result = allowlist("--add-violations")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- a/.importlinter\n"
        "+++ b/.importlinter\n"
        "@@ -13,7 +13,7 @@\n"
        " require_reasons = true\n"
        " ignore_imports =\n"
        "         pkg.a -> pkg.platforms.npu.models    # NPU group 1\n"
        "-        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n"
        "+        pkg.b -> pkg.platforms.cuda.platform  # TODO: reason\n"
        " \n"
        " [importlinter:contract:forbidden]\n"
        " name = Built-in\n"
    )


def test_write_changes_nothing_but_the_entries_concerned(tree: Project) -> None:
    config = tree.root / ".importlinter"
    before = config.read_bytes()
    result = allowlist("--add-violations", "--write")
    assert config.read_bytes() == before.replace(
        b"        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n",
        b"        pkg.b -> pkg.platforms.cuda.platform  # TODO: reason\n",
    )
    # Under require_reasons, the entry written with the placeholder still lacks its reason:
    # named at its line, exit status 1, as a plain `allowlist` names it next.
    unreasoned = (
        ".importlinter:16: pkg.b -> pkg.platforms.cuda.platform # TODO: reason: no reason "
        "given, which require_reasons asks for: end the entry with '# why it is allowed'.\n"
    )
    assert (result.exit_code, result.stderr) == (1, ".importlinter: written.\n")
    assert result.stdout.endswith(
        "+        pkg.b -> pkg.platforms.cuda.platform  # TODO: reason\n"
        " \n [importlinter:contract:forbidden]\n name = Built-in\n" + unreasoned
    )
    plain = allowlist()
    assert (plain.exit_code, plain.stdout) == (1, unreasoned)
    # The placeholder is still no reason: require_reasons rejects it until a person writes one.
    check = tree.check("--contract", "r2")
    assert (check.exit_code, check.stdout, check.stderr) == (
        2,
        "",
        'importlinter-contracts: Contract "R2" is not configured correctly: ignore_imports: '
        "require_reasons is true, but these entries give no reason: "
        "'pkg.b -> pkg.platforms.cuda.platform # TODO: reason'. End each with "
        "'# why it is allowed'.\n",
    )
    # Once written, the allowlist is in step and nothing more is proposed.
    config.write_bytes(config.read_bytes().replace(b"# TODO: reason", b"# NPU group 2"))
    assert tree.check("--contract", "r2").exit_code == 0
    again = allowlist()
    assert (again.exit_code, again.stdout) == (0, "")
    assert again.stderr == ".importlinter: every allowlist matches the tree.\n"


def test_pyproject_toml_is_edited_in_place(project: Project) -> None:
    project.write(TREE)
    pyproject = project.root / "pyproject.toml"
    pyproject.write_text(
        textwrap.dedent(
            """\
            [project]
            name = "demo"   # not ours

            [tool.importlinter]
            root_packages = ["pkg"]
            contract_types = ["backend_isolation: importlinter_contracts.BackendIsolationContract"]

            [[tool.importlinter.contracts]]
            id = "r2"
            name = "R2"
            type = "backend_isolation"
            container = "pkg.platforms"
            ignore_imports = [
                "pkg.a -> pkg.platforms.npu.models  # NPU group 1",
                "pkg.gone -> pkg.platforms.npu.models",  # stale
            ]
            """
        )
    )
    before = pyproject.read_text()
    assert allowlist("--add-violations", "--write").exit_code == 0
    assert pyproject.read_text() == before.replace(
        '    "pkg.gone -> pkg.platforms.npu.models",  # stale\n',
        '    "pkg.b -> pkg.platforms.cuda.platform  # TODO: reason",\n',
    )
    assert tree_is_kept(project)


def tree_is_kept(project: Project) -> bool:
    return bool(project.report()["kept"])


def test_contract_option_selects_what_is_synced(tree: Project) -> None:
    # A contract without an allowlist has nothing to change: no error, --static or not.
    for args in ((), ("--static",)):
        result = allowlist("--contract", "forbidden", *args)
        assert (result.exit_code, result.stdout) == (0, "")
        assert result.stderr == ".importlinter: every allowlist matches the tree.\n"


def test_configuration_errors_are_one_line(project: Project) -> None:
    result = allowlist("--config", "missing.ini")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "importlinter-contracts: Could not find missing.ini.\n"


RUNTIME_CONTRACT = """\
[importlinter:contract:rt]
name = RT
type = runtime_isolation
blocked_modules = torch_npu
probe_modules = pkg.platforms
ignore_loaded_modules =
    pkg.platforms.npu  # loaded
"""


SKIPS_RUNTIME = "rt (runtime_isolation) runs the code it checks, which --static skips"


def test_static_with_only_a_runtime_contract_is_an_error_as_for_check(project: Project) -> None:
    """Not "every allowlist matches the tree": the runtime contract's was not looked at."""
    project.write(TREE)
    project.configure(RUNTIME_CONTRACT)
    before = (project.root / ".importlinter").read_bytes()
    expected = f"importlinter-contracts: Nothing to check: {SKIPS_RUNTIME}.\n"
    for args in (("--static",), ("--static", "--write"), ("--static", "--contract", "rt")):
        result = allowlist(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected), args
    check = project.check("--static")
    assert (check.exit_code, check.stdout, check.stderr) == (2, "", expected)
    assert (project.root / ".importlinter").read_bytes() == before


def test_static_that_leaves_only_contracts_without_an_allowlist_is_an_error(
    project: Project,
) -> None:
    project.write(TREE)
    project.configure(RUNTIME_CONTRACT + "\n" + INI_CONTRACT.split("\n\n")[1])
    result = allowlist("--static")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"importlinter-contracts: Nothing to check: {SKIPS_RUNTIME}; forbidden (forbidden) has "
        "no allowlist.\n"
    )


def test_entries_without_reasons_are_named_where_the_file_has_them(tree: Project) -> None:
    """At their line in the file as it is, or as written: the stale entry above goes."""
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text().replace(
            "        pkg.a -> pkg.platforms.npu.models    # NPU group 1\n"
            "        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n",
            "        pkg.gone -> pkg.platforms.npu.models # retired in step 9\n"
            "        pkg.a -> pkg.platforms.npu.models\n",
        )
    )
    unreasoned = (
        ": pkg.a -> pkg.platforms.npu.models: no reason given, which require_reasons asks "
        "for: end the entry with '# why it is allowed'."
    )
    shown = allowlist("--contract", "r2")
    assert shown.exit_code == 1
    assert shown.stdout.splitlines()[-1] == ".importlinter:16" + unreasoned
    written = allowlist("--contract", "r2", "--write")
    assert written.exit_code == 1
    assert written.stdout.splitlines()[-1] == ".importlinter:15" + unreasoned
    assert config.read_text().splitlines()[14] == "        pkg.a -> pkg.platforms.npu.models"
    again = allowlist("--contract", "r2")
    assert (again.exit_code, again.stdout) == (1, ".importlinter:15" + unreasoned + "\n")


def test_an_entry_for_a_dynamic_import_is_proposed_and_then_kept(project: Project) -> None:
    project.write(
        {
            "pkg/models/llama.py": "",
            "pkg/registry.py": (
                "import importlib\n\n\ndef load_all():\n"
                "    importlib.import_module('pkg.models.llama')\n\n\nload_all()\n"
            ),
        }
    )
    project.configure(
        """\
        [importlinter:contract:eager]
        name = Eager
        type = eager_imports
        source_modules = pkg.registry
        follow_modules = pkg
        forbidden_modules = pkg.models
        """
    )
    config = project.root / ".importlinter"
    result = allowlist("--add-violations", "--write")
    assert (result.exit_code, result.stderr) == (0, ".importlinter: written.\n")
    assert config.read_text().endswith(
        "forbidden_modules = pkg.models\n"
        "ignore_imports =\n"
        "    pkg.registry -> pkg.models.llama  # TODO: reason\n"
    )
    # The entry excuses the dynamic import: nothing to remove, nothing to add.
    result = allowlist()
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == ".importlinter: every allowlist matches the tree.\n"
    assert tree_is_kept(project)
