"""Bad inputs and faults around the configuration: the allowlist edit, the file write, the
package's own imports, the options every contract type shares, and the command line's error
paths.

Each case asserts the exact outcome (the one-line message and the exit status, or the
verdict) and that no file changed unless the case is an edit that was asked for. The bad
inputs of the eager reading and of the runtime contract are in test_bad_inputs_eager.py and
test_bad_inputs_runtime.py.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from helpers import CONTRACT_TYPES, Project
from importlinter_contracts import files
from importlinter_contracts.allowlist import config_text
from importlinter_contracts.allowlist.config_text import AllowlistEdit, edit_allowlists
from importlinter_contracts.cli import main
from importlinter_contracts.errors import ConfigurationEditError

BIN = Path(sys.executable).parent

TREE = {
    "pkg/platforms/npu/platform.py": "",
    "pkg/platforms/npu/models.py": "",
    "pkg/platforms/cuda/platform.py": "",
    "pkg/a.py": "from pkg.platforms.npu import models\n",
    "pkg/b.py": "def f():\n    import pkg.platforms.cuda.platform\n",
}
A = "pkg.a -> pkg.platforms.npu.models"  # an import that breaks R2
B = "pkg.b -> pkg.platforms.cuda.platform"  # another one
GONE = "pkg.gone -> pkg.platforms.npu.models"  # an entry that excuses nothing
NEW_A = f"{A}  # TODO: reason"  # as `allowlist` writes a new entry
NEW_B = f"{B}  # TODO: reason"


def allowlist(*args: str) -> Result:
    """The allowlist command as a contract's adoption runs it: new violations added too."""
    return CliRunner().invoke(
        main, ["allowlist", "--no-cache", "--add-violations", *args], catch_exceptions=False
    )


def check(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", "--no-cache", *args], catch_exceptions=False)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` (caches aside), to show that nothing changed."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not {"__pycache__", ".import_linter_cache"} & set(path.parts)
    }


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    return project


# 1. The allowlist edit: every case writes a file that import-linter reads with exactly the
# intended list, every other byte as it was.

TOML_HEAD = """\
[tool.importlinter]
root_packages = ["pkg"]   # a comment that stays
contract_types = ["backend_isolation: importlinter_contracts.BackendIsolationContract"]

[[tool.importlinter.contracts]]
id = "r2"
name = "R2"
type = "backend_isolation"
container = "pkg.platforms"
"""


def inline_contract(ignore_imports: str) -> str:
    """TOML_HEAD's settings with its contract written inline, its `ignore_imports` as given
    (TOML text)."""
    return (
        TOML_HEAD.split("\n\n")[0]
        + '\ncontracts = [\n    {id = "r2", name = "R2", type = "backend_isolation", '
        + f'container = "pkg.platforms", ignore_imports = {ignore_imports}}},\n]\n'
    )


INI_HEAD = """\
[importlinter]
root_package = pkg
contract_types =
    backend_isolation: importlinter_contracts.BackendIsolationContract

[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms
"""

EDITS = {
    "toml-one-line-list-last-entry-stale": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = ["{A}", "{GONE}"]\n',
        TOML_HEAD + f'ignore_imports = ["{A}", "{NEW_B}"]\n',
    ),
    "toml-one-line-list-first-entry-stale": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = ["{GONE}", "{A}"]  # kept\n',
        TOML_HEAD + f'ignore_imports = ["{A}", "{NEW_B}"]  # kept\n',
    ),
    "toml-multi-line-list-without-trailing-comma-last-entry-stale": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = [\n    "{A}",\n    "{GONE}"\n]\n',
        TOML_HEAD + f'ignore_imports = [\n    "{A}",\n    "{NEW_B}",\n]\n',
    ),
    "toml-triple-quoted-entries": (
        "pyproject.toml",
        TOML_HEAD
        + f'ignore_imports = [\n    """{A}  # NPU""",\n    """\n    {GONE}\n    """,\n]\n',
        TOML_HEAD + f'ignore_imports = [\n    """{A}  # NPU""",\n    "{NEW_B}",\n]\n',
    ),
    "toml-other-multi-line-string-holds-an-ignore-imports-line": (
        "pyproject.toml",
        TOML_HEAD
        + 'broken_contract_guidance = """\nEach entry of\nignore_imports = [\nneeds a reason.\n"""\n'
        + f'ignore_imports = [\n    "{A}",\n]\n',
        TOML_HEAD
        + 'broken_contract_guidance = """\nEach entry of\nignore_imports = [\nneeds a reason.\n"""\n'
        + f'ignore_imports = [\n    "{A}",\n    "{NEW_B}",\n]\n',
    ),
    "toml-inline-contracts": (
        "pyproject.toml",
        inline_contract(f'["{GONE}"]'),
        inline_contract(f'["{NEW_A}", "{NEW_B}"]'),
    ),
    "toml-spaced-table-header": (
        "pyproject.toml",
        TOML_HEAD.replace(
            "[[tool.importlinter.contracts]]", '[[ tool . importlinter . "contracts" ]]'
        )
        + f'ignore_imports = [\n    "{GONE}",  # gone\n    "{A}",\n]\n',
        TOML_HEAD.replace(
            "[[tool.importlinter.contracts]]", '[[ tool . importlinter . "contracts" ]]'
        )
        + f'ignore_imports = [\n    "{A}",\n    "{NEW_B}",\n]\n',
    ),
    "toml-no-final-newline": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = [\n    "{A}",\n]',
        TOML_HEAD + f'ignore_imports = [\n    "{A}",\n    "{NEW_B}",\n]',
    ),
    "toml-no-final-newline-and-no-list-yet": (
        "pyproject.toml",
        TOML_HEAD.rstrip("\n"),
        TOML_HEAD + f'ignore_imports = [\n    "{NEW_A}",\n    "{NEW_B}",\n]',
    ),
    # A new list goes after the table's last value, as in INI: the comments and blank lines
    # that end the table introduce the next one.
    "toml-no-list-yet-and-the-next-table-has-a-comment-banner": (
        "pyproject.toml",
        TOML_HEAD + "\n# ----\n# Ruff settings follow\n[tool.ruff]\nline-length = 100\n",
        TOML_HEAD
        + f'ignore_imports = [\n    "{NEW_A}",\n    "{NEW_B}",\n]\n'
        + "\n# ----\n# Ruff settings follow\n[tool.ruff]\nline-length = 100\n",
    ),
    "toml-no-list-yet-and-a-comment-ends-the-file": (
        "pyproject.toml",
        TOML_HEAD + "# the end\n",
        TOML_HEAD + f'ignore_imports = [\n    "{NEW_A}",\n    "{NEW_B}",\n]\n# the end\n',
    ),
    # import-linter reads a string as a list of that one entry.
    "toml-stale-string-becomes-a-list-keeping-its-comment": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = "{GONE}"  # kept\nrequire_reasons = false\n',
        TOML_HEAD + f'ignore_imports = [\n    "{NEW_A}",\n    "{NEW_B}",\n]  # kept\n'
        "require_reasons = false\n",
    ),
    "toml-string-kept-as-written-in-the-new-list": (
        "pyproject.toml",
        TOML_HEAD + "ignore_imports = '''" + A + "  # NPU'''\n",
        TOML_HEAD + "ignore_imports = [\n    '''" + A + f"  # NPU''',\n    \"{NEW_B}\",\n]\n",
    ),
    "toml-inline-contract-with-a-string": (
        "pyproject.toml",
        inline_contract(f'"{A}"'),
        inline_contract(f'["{A}", "{NEW_B}"]'),
    ),
    "toml-mixed-line-endings": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = [\r\n    "{A}",\r\n]\r\n# after\n',
        TOML_HEAD + f'ignore_imports = [\r\n    "{A}",\r\n    "{NEW_B}",\r\n]\r\n# after\n',
    ),
    "ini-continuation-line-that-looks-like-a-section": (
        ".importlinter",
        INI_HEAD
        + "broken_contract_guidance =\n    Move the import behind the interface.\n"
        + f"    [See RFC 6691]\nignore_imports =\n    {A}  # NPU\n    {GONE}\n",
        INI_HEAD
        + "broken_contract_guidance =\n    Move the import behind the interface.\n"
        + f"    [See RFC 6691]\nignore_imports =\n    {A}  # NPU\n    {NEW_B}\n",
    ),
    "ini-value-on-the-key-line": (
        ".importlinter",
        INI_HEAD + f"ignore_imports = {GONE}\nrequire_reasons = false\n",
        INI_HEAD + f"ignore_imports =\n    {NEW_A}\n    {NEW_B}\nrequire_reasons = false\n",
    ),
    "ini-no-final-newline": (
        ".importlinter",
        INI_HEAD + f"ignore_imports =\n    {A}",
        INI_HEAD + f"ignore_imports =\n    {A}\n    {NEW_B}",
    ),
    "ini-mixed-line-endings": (
        ".importlinter",
        INI_HEAD.replace("\n", "\r\n") + f"ignore_imports =\n\t{A}\n\n[other]\r\nx = 1\r\n",
        INI_HEAD.replace("\n", "\r\n")
        + f"ignore_imports =\n\t{A}\n\t{NEW_B}\n\n[other]\r\nx = 1\r\n",
    ),
    "ini-comments-inside-the-value-and-percent-signs": (
        ".importlinter",
        INI_HEAD + f"ignore_imports =\n    # reviewed\n    {A}  # 100%% NPU\n; end\n    {GONE}\n",
        INI_HEAD + f"ignore_imports =\n    # reviewed\n    {A}  # 100%% NPU\n; end\n    {NEW_B}\n",
    ),
    "ini-no-list-yet": (
        ".importlinter",
        INI_HEAD + "\n\n[importlinter:contract:other]\nname = O\ntype = forbidden\n"
        "source_modules = pkg.a\nforbidden_modules = pkg.b\n",
        INI_HEAD + f"ignore_imports =\n    {NEW_A}\n    {NEW_B}\n"
        "\n\n[importlinter:contract:other]\nname = O\ntype = forbidden\n"
        "source_modules = pkg.a\nforbidden_modules = pkg.b\n",
    ),
}


@pytest.mark.parametrize(("name", "before", "after"), EDITS.values(), ids=EDITS.keys())
def test_allowlist_write_edits_only_the_list(
    tree: Project, name: str, before: str, after: str
) -> None:
    config = tree.root / name
    config.write_bytes(before.encode())
    others = {k: v for k, v in snapshot(tree.root).items() if k != name}
    result = allowlist("--write")
    assert (result.exit_code, result.stderr) == (0, f"{name}: written.\n")
    assert config.read_bytes() == after.encode()
    assert {k: v for k, v in snapshot(tree.root).items() if k != name} == others
    # import-linter reads the new list: the contract is kept, nothing more to change.
    assert check().exit_code == 0
    again = allowlist()
    assert (again.exit_code, again.stdout) == (0, "")


def test_the_option_edited_is_a_parameter() -> None:
    text = INI_HEAD + "ignore_loaded_modules =\n    torch_npu  # vendored\n    gone\n"
    edit = AllowlistEdit("r2", "ignore_loaded_modules", frozenset({"gone"}), ("vllm_ascend",))
    assert edit_allowlists(text, False, [edit]) == (
        INI_HEAD + "ignore_loaded_modules =\n    torch_npu  # vendored\n    vllm_ascend\n"
    )
    toml = TOML_HEAD + 'ignore_loaded_modules = ["gone"]\n'
    assert edit_allowlists(toml, True, [edit]) == (
        TOML_HEAD + 'ignore_loaded_modules = ["vllm_ascend"]\n'
    )


# Its last entry removed, an allowlist goes with its option: an empty list is an error. The
# comments among an INI list's values stay (configparser reads none of them); those inside a
# TOML list's brackets, or after it, go with it.
LAST_ENTRY_REMOVALS = {
    "ini-entries-on-their-own-lines": (
        ".importlinter",
        INI_HEAD + f"ignore_imports =\n    {GONE}  # retired\nrequire_reasons = false\n",
        INI_HEAD + "require_reasons = false\n",
    ),
    "ini-value-on-the-key-line": (
        ".importlinter",
        INI_HEAD + f"ignore_imports = {GONE}\n\n[other]\nx = 1\n",
        INI_HEAD + "\n[other]\nx = 1\n",
    ),
    "ini-comments-inside-the-value": (
        ".importlinter",
        INI_HEAD + f"ignore_imports =\n    # reviewed\n    {GONE}\n; end\n",
        INI_HEAD + "    # reviewed\n; end\n",
    ),
    "ini-no-final-newline": (
        ".importlinter",
        INI_HEAD + f"ignore_imports =\n    {GONE}",
        INI_HEAD.rstrip("\n"),
    ),
    "toml-multi-line-list": (
        "pyproject.toml",
        TOML_HEAD
        + f'ignore_imports = [\n    # retired\n    "{GONE}",  # gone\n]  # list\nrequire_reasons = false\n',
        TOML_HEAD + "require_reasons = false\n",
    ),
    "toml-string": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = "{GONE}"  # kept\n\n[tool.ruff]\nline-length = 100\n',
        TOML_HEAD + "\n[tool.ruff]\nline-length = 100\n",
    ),
    "toml-no-final-newline": (
        "pyproject.toml",
        TOML_HEAD + f'ignore_imports = ["{GONE}"]',
        TOML_HEAD.rstrip("\n"),
    ),
    "toml-inline-contract": (
        "pyproject.toml",
        inline_contract(f'["{GONE}"]'),
        inline_contract("").replace(", ignore_imports = ", ""),
    ),
}


@pytest.mark.parametrize(
    ("name", "before", "after"), LAST_ENTRY_REMOVALS.values(), ids=LAST_ENTRY_REMOVALS.keys()
)
def test_allowlist_write_removes_an_option_left_empty(
    tree: Project, name: str, before: str, after: str
) -> None:
    config = tree.root / name
    config.write_bytes(before.encode())
    others = {k: v for k, v in snapshot(tree.root).items() if k != name}
    written = CliRunner().invoke(main, ["allowlist", "--no-cache", "--write"])
    assert written.exit_code == 0
    assert written.stderr.startswith(f"{name}: written.\n")
    assert config.read_bytes() == after.encode()
    assert {k: v for k, v in snapshot(tree.root).items() if k != name} == others
    # import-linter reads the file: the contract now excuses nothing, and nothing is stale.
    report = json.loads(check("--format", "json").stdout)
    assert [(c["id"], c["ignored"], c["unmatched_ignores"]) for c in report["contracts"]] == [
        ("r2", [], [])
    ]


@pytest.mark.parametrize(
    ("contract", "after"),
    [
        (
            f'{{id = "r2", ignore_imports = ["{GONE}"], name = "R2"}}',
            '{id = "r2", name = "R2"}',
        ),
        (
            f'{{ ignore_imports = ["{GONE}"] , id = "r2" ,name = "R2" }}',
            '{ id = "r2" ,name = "R2" }',
        ),
    ],
    ids=["between-two-options", "first"],
)
def test_an_inline_contract_loses_the_option_and_its_separator(contract: str, after: str) -> None:
    edit = AllowlistEdit("r2", "ignore_imports", frozenset({GONE}), ())
    toml = f"[tool.importlinter]\ncontracts = [{contract}]\n"
    assert edit_allowlists(toml, True, [edit]) == f"[tool.importlinter]\ncontracts = [{after}]\n"


# An edit that would not read back as intended is refused, and nothing is written. The
# editors above get every case right, so a faulty one stands in for a bug of theirs.

FAULTY_EDITS: dict[str, tuple[str, Callable[[str], str], str]] = {
    "toml-does-not-parse": (
        "pyproject.toml",
        lambda text: text.replace("ignore_imports = [", "ignore_imports = [["),
        "the edited file would not parse (Unclosed array (at end of document))",
    ),
    "toml-changes-another-value": (
        "pyproject.toml",
        lambda text: text.replace('name = "R2"', 'name = "R3"'),
        "the edited file would not read back with exactly the intended ignore_imports of "
        "contract 'r2' and every other value unchanged",
    ),
    "ini-wrong-list": (
        ".importlinter",
        lambda text: text.replace(NEW_A, A),
        "the edited file would not read back with exactly the intended ignore_imports of "
        "contract 'r2' and every other value unchanged",
    ),
    "ini-does-not-parse": (
        ".importlinter",
        lambda text: text + "[importlinter:contract:r2]\n",
        "the edited file would not parse (While reading from '<string>' [line 13]: section "
        "'importlinter:contract:r2' already exists)",
    ),
}


@pytest.mark.parametrize(
    ("name", "fault", "reason"), FAULTY_EDITS.values(), ids=FAULTY_EDITS.keys()
)
def test_edit_that_does_not_read_back_is_refused(
    tree: Project,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    fault: Callable[[str], str],
    reason: str,
) -> None:
    toml = name.endswith(".toml")
    before = (
        (TOML_HEAD + f'ignore_imports = [\n    "{GONE}",\n]\n')
        if toml
        else (INI_HEAD + f"ignore_imports =\n    {GONE}\n")
    )
    (tree.root / name).write_text(before)
    editor = "_edit_toml" if toml else "_edit_ini"
    real = getattr(config_text, editor)
    monkeypatch.setattr(config_text, editor, lambda text, edit: fault(real(text, edit)))
    files_before = snapshot(tree.root)
    result = allowlist("--write")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"importlinter-contracts: {name}: the allowlists cannot be edited safely: {reason}; "
        "the file is unchanged.\n"
    )
    assert snapshot(tree.root) == files_before


def test_two_sections_with_one_id_are_not_edited(tree: Project) -> None:
    text = INI_HEAD + f"ignore_imports =\n    {GONE}\n\n[importlinter:r2]\nname = Again\n"
    edit = AllowlistEdit("r2", "ignore_imports", frozenset({GONE}), ())
    with pytest.raises(ConfigurationEditError, match=r"^more than one section has the id 'r2'$"):
        edit_allowlists(text, False, [edit])


def test_contract_without_an_id_is_not_edited(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(TOML_HEAD.replace('id = "r2"\n', ""))
    files_before = snapshot(tree.root)
    result = allowlist("--write")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "R2" has no id, which the allowlist edit needs.\n'
    )
    assert snapshot(tree.root) == files_before


def test_allowlist_in_step_writes_nothing(tree: Project) -> None:
    (tree.root / ".importlinter").write_text(INI_HEAD + f"ignore_imports =\n    {A}\n    {B}\n")
    files_before = snapshot(tree.root)
    result = allowlist("--write")
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == ".importlinter: every allowlist matches the tree.\n"
    assert snapshot(tree.root) == files_before


# 2. The write: atomic, the file's mode and symlink kept, and a one-line error when it cannot
# be made.

STALE_INI = INI_HEAD + f"ignore_imports =\n    {A}\n    {GONE}\n"
WRITTEN_INI = INI_HEAD + f"ignore_imports =\n    {A}\n    {NEW_B}\n"


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_write_keeps_the_mode(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(STALE_INI)
    config.chmod(0o640)
    assert allowlist("--write").exit_code == 0
    assert config.read_text() == WRITTEN_INI
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert leftovers(tree.root) == []


def test_symlinked_configuration_updates_its_target(tree: Project) -> None:
    target = tree.root / "shared" / "importlinter.ini"
    target.parent.mkdir()
    target.write_text(STALE_INI)
    link = tree.root / ".importlinter"
    link.symlink_to(Path("shared") / "importlinter.ini")
    result = allowlist("--write")
    assert (result.exit_code, result.stderr) == (0, ".importlinter: written.\n")
    assert link.is_symlink() and os.readlink(link) == str(Path("shared") / "importlinter.ini")
    assert target.read_text() == WRITTEN_INI
    assert leftovers(tree.root) == leftovers(target.parent) == []


def test_read_only_file_is_a_one_line_error(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(STALE_INI)
    config.chmod(0o444)
    files_before = snapshot(tree.root)
    result = allowlist("--write")
    # An expected mistake prints nothing on stdout: no diff, which would read as written.
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: .importlinter is read-only; nothing was written.\n"
    )
    assert snapshot(tree.root) == files_before
    assert leftovers(tree.root) == []


def _permissions_apply() -> list[str]:
    """A command prefix under which file permissions apply: root overrides them, unless it
    runs without the capabilities to."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root overrides file permissions, and setpriv is not installed")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_read_only_folder_is_a_one_line_error(tree: Project) -> None:
    config = tree.root / ".importlinter"
    config.write_text(STALE_INI)
    tree.root.chmod(0o555)
    try:
        files_before = snapshot(tree.root)
        result = _run_allowlist_write(tree.root, prefix=_permissions_apply())
        assert result.returncode == 2
        assert result.stderr == (
            "importlinter-contracts: cannot write .importlinter: no file can be made in "
            f"{tree.root.resolve()} (Permission denied); nothing was written.\n"
        )
        assert snapshot(tree.root) == files_before
    finally:
        tree.root.chmod(0o755)


@pytest.mark.parametrize(
    ("failing", "fault", "outcome"),
    [
        (
            "replace",
            OSError(28, "No space left on device"),
            (
                2,
                "importlinter-contracts: cannot write .importlinter (No space left on device); "
                "nothing was written.\n",
            ),
        ),
        (
            "fsync",
            OSError(5, "Input/output error"),
            (
                2,
                "importlinter-contracts: cannot write .importlinter (Input/output error); "
                "nothing was written.\n",
            ),
        ),
        # Between writing the temporary file and replacing the original: click's answer to ^C.
        ("replace", KeyboardInterrupt(), (1, "\nAborted!\n")),
    ],
    ids=["replace-fails", "fsync-fails", "interrupted-before-replace"],
)
def test_failed_write_leaves_the_file_and_no_temporary_file(
    tree: Project,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
    fault: BaseException,
    outcome: tuple[int, str],
) -> None:
    config = tree.root / ".importlinter"
    config.write_text(STALE_INI)
    files_before = snapshot(tree.root)

    def fail(*args: object) -> None:
        raise fault

    monkeypatch.setattr(files.os, failing, fail)
    result = allowlist("--write")
    assert (result.exit_code, result.stderr) == outcome
    assert result.stdout == ""
    assert snapshot(tree.root) == files_before
    assert leftovers(tree.root) == []


def _run_allowlist_write(
    cwd: Path, prefix: list[str] | None = None, preexec_fn: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(prefix or []),
            str(BIN / "importlinter-contracts"),
            "allowlist",
            "--no-cache",
            "--add-violations",
            "--write",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=preexec_fn,
    )


def test_file_size_limit_leaves_the_file(tree: Project) -> None:
    """A write cut short (`ulimit -f`) fails with one line and leaves the file as it was."""
    import resource

    config = tree.root / ".importlinter"
    padding = "".join(f"# padding line {n}\n" for n in range(20_000))  # about 500 kB
    config.write_text(padding + STALE_INI)
    files_before = snapshot(tree.root)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))

    result = _run_allowlist_write(tree.root, preexec_fn=limit)
    assert result.returncode == 2
    assert result.stderr == (
        "importlinter-contracts: cannot write .importlinter (File too large); nothing was written.\n"
    )
    assert snapshot(tree.root) == files_before
    assert leftovers(tree.root) == []


KILLED = -9  # strace ends with the signal that killed the process it traced
needs_strace = pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")


@pytest.mark.slow
@needs_strace
def test_kill_at_any_point_of_the_write_leaves_the_old_file_or_the_new_one(tree: Project) -> None:
    """SIGKILL at each write(2) of the run (the new file's data, the diff on stdout, the
    message), and at the fsync(2) and rename(2) that commit it: the file is always the old
    one or the new one, whole. (Which write is which depends on the run, on what Python
    writes of its own, so each is tried in turn.)"""
    config = tree.root / ".importlinter"

    def killed_at(injection: str) -> bool:
        """Whether the file is the new one after a kill at `injection`."""
        config.write_text(STALE_INI)
        for leftover in leftovers(tree.root):
            (tree.root / leftover).unlink()
        strace = ["strace", "-f", "-qq", "-o", os.devnull, "-e", f"inject={injection}"]
        result = _run_allowlist_write(tree.root, prefix=strace)
        written = config.read_text()
        # (A run with fewer writes than `when` ends before it: it wrote the new file.)
        assert result.returncode == KILLED or (result.returncode, written) == (0, WRITTEN_INI)
        assert written in (STALE_INI, WRITTEN_INI), injection
        # A kill can leave only the temporary file, never a partial configuration.
        assert all(name.startswith("..importlinter.") for name in leftovers(tree.root))
        return written == WRITTEN_INI

    at_writes = [killed_at(f"write:signal=SIGKILL:when={n}") for n in range(1, 7)]
    # The kills hit before the rename (the old file) and after it (the new one): one point
    # of no return, the rename, which is after the fsync of the data.
    assert at_writes == sorted(at_writes) and at_writes[0] is False and at_writes[-1] is True
    assert not killed_at("fsync:signal=SIGKILL:when=1")
    assert not killed_at("rename:signal=SIGKILL:when=1")


@needs_strace
def test_injected_write_error_leaves_the_file_and_no_temporary_file(tree: Project) -> None:
    """No space left at the write(2) of the new file's data (found by failing each write in
    turn: the one that fails the edit) leaves the file as it was and no temporary file."""
    config = tree.root / ".importlinter"
    message = (
        "importlinter-contracts: cannot write .importlinter (No space left on device); "
        "nothing was written.\n"
    )
    for n in range(1, 7):
        config.write_text(STALE_INI)
        files_before = snapshot(tree.root)
        inject = f"inject=write:error=ENOSPC:when={n}"
        result = _run_allowlist_write(
            tree.root, prefix=["strace", "-f", "-qq", "-o", os.devnull, "-e", inject]
        )
        if result.returncode == 2 and result.stderr == message:
            break
    else:
        raise AssertionError("no write of the new file's data was failed")
    assert snapshot(tree.root) == files_before
    assert leftovers(tree.root) == []


# 3. Nothing from the working directory runs: a module there named like one that our package
# imports (standard library or third party) must not stand in for it.

TRACER = """\
import importlib.abc, json, os, sys

names, started = [], [{start}]


class Tracer(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "importlinter_contracts":
            started[0] = True
        elif started[0] and "." not in name and name not in sys.modules:
            names.append(name)
        return None


sys.meta_path.insert(0, Tracer())
try:
    sys.argv = {argv!r}
    {run}
finally:
    with open({out!r}, "w") as file:
        json.dump(sorted(set(names)), file)
"""

PLANTED = """\
import os
open(os.path.join({markers!r}, "{name}." + str(os.getpid())), "w").close()
raise SystemExit(3)
"""

STATIC_CONTRACTS = f"""\
[importlinter]
root_package = pkg
{CONTRACT_TYPES}
[importlinter:contract:r2]
name = R2
type = backend_isolation
container = pkg.platforms

[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.a
follow_modules = pkg
forbidden_modules = pkg.platforms.npu
"""

RUNTIME_CONTRACT = """
[importlinter:contract:rt]
name = RT
type = runtime_isolation
blocked_modules = torch_npu
probe_modules = pkg.platforms.cuda.platform
"""

LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"
OUR_CLI = "from importlinter_contracts.cli import main; main()"


def imported_names(folder: Path, argv: list[str], run: str, start: bool) -> set[str]:
    """The top-level modules a run imports that were not loaded when our package started to
    import (from its start with `start`), failed attempts included: each one a file in the
    working directory could stand in for."""
    out = folder.parent / f"names-{os.getpid()}.json"
    tracer = TRACER.format(start=start, argv=argv, run=run, out=str(out))
    subprocess.run([sys.executable, "-c", tracer], cwd=folder, capture_output=True, check=False)
    names = set(json.loads(out.read_text()))
    out.unlink()
    return names - {"pkg", "importlinter_contracts"}


def plant(folder: Path, names: set[str], markers: Path) -> None:
    for name in names:
        (folder / f"{name}.py").write_text(PLANTED.format(markers=str(markers), name=name))


@pytest.fixture
def planted(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    folder = tmp_path / "repo"
    Project(folder).write(TREE)
    markers = tmp_path / "markers"
    markers.mkdir()
    yield folder, markers


def test_lint_imports_runs_no_module_of_the_working_directory(
    planted: tuple[Path, Path],
) -> None:
    folder, markers = planted
    (folder / ".importlinter").write_text(STATIC_CONTRACTS)
    argv = ["lint-imports", "--no-cache"]
    names = imported_names(folder, argv, LINT_IMPORTS, start=False)
    assert "contextvars" in names  # the one the sweep found, among the others
    clean = subprocess.run(
        [BIN / "lint-imports", "--no-cache", "--no-logo"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    plant(folder, names, markers)
    result = subprocess.run(
        [BIN / "lint-imports", "--no-cache", "--no-logo"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    assert sorted(os.listdir(markers)) == []
    assert (result.returncode, result.stdout) == (clean.returncode, clean.stdout)
    assert "R2 BROKEN" in result.stdout and "R4 BROKEN" in result.stdout


@pytest.mark.parametrize(
    "command",
    [[str(BIN / "importlinter-contracts")], [sys.executable, "-m", "importlinter_contracts"]],
    ids=["console-script", "python-m"],
)
# (`PYTHONPATH=.`, as a user may run it: the working directory on sys.path from the start.)
@pytest.mark.parametrize("pythonpath", [None, "."], ids=["", "PYTHONPATH=."])
def test_our_check_runs_no_module_of_the_working_directory(
    planted: tuple[Path, Path], command: list[str], pythonpath: str | None
) -> None:
    folder, markers = planted
    (folder / ".importlinter").write_text(STATIC_CONTRACTS)
    argv = ["importlinter-contracts", "check", "--no-cache", "--format", "json"]
    names = imported_names(folder, argv, OUR_CLI, start=True)
    assert {"contextvars", "configparser", "click", "importlinter", "grimp", "signal"} <= names
    plant(folder, names, markers)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [*command, "check", "--no-cache", "--format", "json"],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env if pythonpath is None else {**env, "PYTHONPATH": pythonpath},
    )
    assert sorted(os.listdir(markers)) == []
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert [(c["id"], c["kept"]) for c in report["contracts"]] == [("r2", False), ("r4", False)]


def test_runtime_contract_imports_its_runner_with_no_module_of_the_working_directory(
    planted: tuple[Path, Path],
) -> None:
    """The runtime contract runs the analysed code in a child by design; lint-imports' own
    process still runs none of the planted modules."""
    folder, markers = planted
    (folder / ".importlinter").write_text(STATIC_CONTRACTS + RUNTIME_CONTRACT)
    argv = ["lint-imports", "--no-cache", "--contract", "rt"]
    names = imported_names(folder, argv, LINT_IMPORTS, start=False)
    assert "subprocess" in names
    plant(folder, names, markers)
    child = subprocess.Popen(
        [BIN / "lint-imports", "--no-cache", "--contract", "rt"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    child.wait()
    assert [name for name in os.listdir(markers) if name.endswith(f".{child.pid}")] == []


# 4. No silent pass: an empty required list or option of one value, or two allowlist entries
# for the same imports, is a configuration error naming the contract and the option.

EMPTY = "This list is empty; give at least one value."
REQUIRED_LISTS = [  # the required list options, which may not be given empty
    "backends",
    "source_modules",
    "follow_modules",
    "forbidden_modules",
    "probe_modules",
    "blocked_modules",
]
# The optional ones, which may not be given empty either: left out, each says the same.
OPTIONAL_LISTS = [
    "ignore_imports",
    "eager_imports-ignore_imports",
    "allowed_modules",
    "forbidden_loaded_modules",
    "ignore_loaded_modules",
]
EAGER = "type = eager_imports\nsource_modules = pkg.a\nfollow_modules = pkg\nforbidden_modules = pkg.b\n"
RUNTIME = "type = runtime_isolation\nblocked_modules = torch_npu\nprobe_modules = pkg.a\n"
TOML_EAGER = (
    'type = "eager_imports"\nsource_modules = ["pkg.a"]\nfollow_modules = ["pkg"]\n'
    'forbidden_modules = ["pkg.b"]\n'
)
TOML_RUNTIME = (
    'type = "runtime_isolation"\nblocked_modules = ["torch_npu"]\nprobe_modules = ["pkg.a"]\n'
)


@pytest.mark.parametrize(
    ("contract", "option", "message"),
    [
        (
            "type = backend_isolation\ncontainer = pkg.platforms\nbackends =\n",
            "backends",
            EMPTY,
        ),
        (
            "type = eager_imports\nsource_modules =\nfollow_modules = pkg\n"
            "forbidden_modules = pkg.platforms",
            "source_modules",
            EMPTY,
        ),
        (
            "type = eager_imports\nsource_modules = pkg.a\nfollow_modules =\n"
            "forbidden_modules = pkg.platforms",
            "follow_modules",
            EMPTY,
        ),
        (
            "type = eager_imports\nsource_modules = pkg.a\nfollow_modules = pkg\n"
            "forbidden_modules =\n\n",
            "forbidden_modules",
            EMPTY,
        ),
        (
            "type = runtime_isolation\nblocked_modules = torch_npu\nprobe_modules =\n",
            "probe_modules",
            EMPTY,
        ),
        (
            "type = runtime_isolation\nblocked_modules =\nprobe_modules = pkg.a\n",
            "blocked_modules",
            EMPTY,
        ),
        (
            "type = backend_isolation\ncontainer = pkg.platforms\nignore_imports =\n",
            "ignore_imports",
            EMPTY,
        ),
        (EAGER + "ignore_imports =\n", "ignore_imports", EMPTY),
        (EAGER + "allowed_modules =\n\n", "allowed_modules", EMPTY),
        (RUNTIME + "forbidden_loaded_modules =\n", "forbidden_loaded_modules", EMPTY),
        (RUNTIME + "ignore_loaded_modules =\n", "ignore_loaded_modules", EMPTY),
        (
            "type = backend_isolation\ncontainer = pkg.platforms\nignore_imports =\n"
            f"    {A}  # NPU\n    {B}\n    {A}   #   NPU\n",
            "ignore_imports",
            f"These entries allow the same imports: '{A} # NPU', '{A} # NPU'. Keep one of each.",
        ),
        (
            "type = eager_imports\nsource_modules = pkg.a\nfollow_modules = pkg\n"
            "forbidden_modules = pkg.platforms\nignore_imports =\n"
            f"    {A}  # NPU\n    {A.replace(' -> ', '->')}  # another reason\n",
            "ignore_imports",
            f"These entries allow the same imports: '{A} # NPU', "
            f"'{A.replace(' -> ', '->')} # another reason'. Keep one of each.",
        ),
    ],
    ids=[*REQUIRED_LISTS, *OPTIONAL_LISTS, "identical-entries", "same-import-two-reasons"],
)
def test_no_silent_pass_in_ini(tree: Project, contract: str, option: str, message: str) -> None:
    tree.configure(f"[importlinter:contract:c]\nname = C\n{contract}\n")
    files_before = snapshot(tree.root)
    result = check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "C" is not configured correctly: {option}: {message}\n'
    )
    lint = tree.lint_imports()
    assert lint.exit_code == 1
    assert f"{option}: {message}" in " ".join(lint.output.split())
    assert snapshot(tree.root) == files_before


@pytest.mark.parametrize(
    ("contract", "option"),
    [
        ('type = "backend_isolation"\ncontainer = "pkg.platforms"\nbackends = []', "backends"),
        (
            'type = "eager_imports"\nsource_modules = []\nfollow_modules = ["pkg"]\n'
            'forbidden_modules = ["pkg.platforms"]',
            "source_modules",
        ),
        (
            'type = "eager_imports"\nsource_modules = ["pkg.a"]\nfollow_modules = []\n'
            'forbidden_modules = ["pkg.platforms"]',
            "follow_modules",
        ),
        (
            'type = "eager_imports"\nsource_modules = ["pkg.a"]\nfollow_modules = ["pkg"]\n'
            'forbidden_modules = [""]',
            "forbidden_modules",
        ),
        (
            'type = "runtime_isolation"\nblocked_modules = ["torch_npu"]\nprobe_modules = []',
            "probe_modules",
        ),
        (
            'type = "runtime_isolation"\nblocked_modules = []\nprobe_modules = ["pkg.a"]',
            "blocked_modules",
        ),
        (
            'type = "backend_isolation"\ncontainer = "pkg.platforms"\nignore_imports = []',
            "ignore_imports",
        ),
        (TOML_EAGER + "ignore_imports = []", "ignore_imports"),
        (TOML_EAGER + "allowed_modules = []", "allowed_modules"),
        (TOML_RUNTIME + "forbidden_loaded_modules = []", "forbidden_loaded_modules"),
        (TOML_RUNTIME + 'ignore_loaded_modules = [""]', "ignore_loaded_modules"),
    ],
    ids=[*REQUIRED_LISTS, *OPTIONAL_LISTS],
)
def test_no_silent_pass_in_toml(tree: Project, contract: str, option: str) -> None:
    registered = ", ".join(
        f'"{line.strip()}"' for line in CONTRACT_TYPES.splitlines()[1:] if line.strip()
    )
    (tree.root / "pyproject.toml").write_text(
        f'[tool.importlinter]\nroot_packages = ["pkg"]\ncontract_types = [{registered}]\n\n'
        f'[[tool.importlinter.contracts]]\nid = "c"\nname = "C"\n{contract}\n'
    )
    result = check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "C" is not configured correctly: {option}: {EMPTY}\n'
    )


# The options of one value, given empty: import-linter's fields read `''` as a module of that
# name, a marker, or the default.
EMPTY_VALUES = {
    "container": "a module's name",
    "backend_marker": "a string",
    "cross_backend_imports": '"allow" or "forbid"',
    "count_reexports": "true or false",
}


@pytest.mark.parametrize(("option", "expected"), EMPTY_VALUES.items(), ids=EMPTY_VALUES.keys())
@pytest.mark.parametrize("form", ["ini", "toml"])
def test_an_empty_option_of_one_value_says_what_to_give(
    tree: Project, option: str, expected: str, form: str
) -> None:
    options = {"container": "pkg.platforms", option: ""}
    if form == "ini":
        given = "".join(f"{key} = {value}\n" for key, value in options.items())
        tree.configure(f"[importlinter:contract:c]\nname = C\ntype = backend_isolation\n{given}")
    else:
        given = "".join(f'{key} = "{value}"\n' for key, value in options.items())
        _write_toml(tree.root, f'id = "c"\nname = "C"\ntype = "backend_isolation"\n{given}')
    result = check()
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f'importlinter-contracts: Contract "C" is not configured correctly: {option}: This '
        f"option is empty; give {expected}.\n"
    )


def _write_toml(root: Path, contracts: str, contract_types: str | None = None) -> None:
    if contract_types is None:
        contract_types = (
            "["
            + ", ".join(
                f'"{line.strip()}"' for line in CONTRACT_TYPES.splitlines()[1:] if line.strip()
            )
            + "]"
        )
    (root / "pyproject.toml").write_text(
        f'[tool.importlinter]\nroot_packages = ["pkg"]\ncontract_types = {contract_types}\n\n'
        f"[[tool.importlinter.contracts]]\n{contracts}\n"
    )


R2_TOML = 'id = "c"\nname = "C"\ntype = "backend_isolation"\ncontainer = "pkg.platforms"\n'
EAGER_TOML = (
    'id = "c"\nname = "C"\ntype = "eager_imports"\nsource_modules = ["pkg.a"]\n'
    'follow_modules = ["pkg"]\n'
)
RUNTIME_TOML = (
    'id = "c"\nname = "C"\ntype = "runtime_isolation"\nblocked_modules = ["torch_npu"]\n'
    'probe_modules = ["pkg.a"]\n'
)
NOT_CONFIGURED = 'Contract "C" is not configured correctly: '
LIST = "give a list of strings."

# TOML gives numbers, tables and dates as they are, where import-linter's fields expect the
# strings that INI gives: each is one line naming the option, what was found and what to give.
WRONG_TYPES = {
    "integer-for-a-list": (
        R2_TOML + "backends = 5",
        f"{NOT_CONFIGURED}backends: found 5 (an integer); {LIST}",
    ),
    "table-for-a-list": (
        R2_TOML + "neutral_children = {x = 1}",
        f"{NOT_CONFIGURED}neutral_children: found {{x = 1}} (a table); {LIST}",
    ),
    "integers-in-the-allowlist": (
        R2_TOML + "ignore_imports = [1, 2]",
        f"{NOT_CONFIGURED}ignore_imports: found [1, 2] (a list holding an integer); {LIST}",
    ),
    "integer-for-a-boolean": (
        R2_TOML + "require_reasons = 1",
        f"{NOT_CONFIGURED}require_reasons: found 1 (an integer); give true or false.",
    ),
    "number-for-an-enum": (
        R2_TOML + "unmatched_ignore_imports_alerting = 1.5",
        f"{NOT_CONFIGURED}unmatched_ignore_imports_alerting: found 1.5 (a number); "
        'give "none", "warn" or "error".',
    ),
    "two-wrong-options-of-eager-imports": (
        EAGER_TOML + 'forbidden_modules = [["pkg.platforms"]]\ninclude_ancestors = 2024-01-01',
        f'{NOT_CONFIGURED}forbidden_modules: found [["pkg.platforms"]] (a list holding a list); '
        f"{LIST}\n{NOT_CONFIGURED}include_ancestors: found 2024-01-01 (a date or time); "
        "give true or false.",
    ),
    "number-for-a-string": (
        RUNTIME_TOML + "python = 3.11",
        f"{NOT_CONFIGURED}python: found 3.11 (a number); give a string.",
    ),
    "no-type": (
        'id = "c"\nname = "C"\ncontainer = "pkg.platforms"',
        f"{NOT_CONFIGURED}type: missing; give a built-in type or one registered under "
        "contract_types.",
    ),
    "integer-for-the-type": (
        'id = "c"\nname = "C"\ntype = 1\ncontainer = "pkg.platforms"',
        f"{NOT_CONFIGURED}type: found 1 (an integer); give a built-in type or one registered "
        "under contract_types.",
    ),
    "no-name": (
        'id = "c"\ntype = "backend_isolation"\ncontainer = "pkg.platforms"',
        'Contract with id "c" is not configured correctly: name: missing; give the name that '
        "reports show for it.",
    ),
    "no-name-and-no-id": (
        'type = "backend_isolation"\ncontainer = "pkg.platforms"',
        "Contract number 1 is not configured correctly: name: missing; give the name that "
        "reports show for it.",
    ),
}


@pytest.mark.parametrize(("contract", "message"), WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_wrongly_typed_toml_options_are_one_line(
    tree: Project, contract: str, message: str
) -> None:
    _write_toml(tree.root, contract)
    # `allowlist` sets these two options itself, whatever the file says.
    sets_it = "require_reasons" in contract or "alerting" in contract
    for command in ("check",) if sets_it else ("check", "allowlist"):
        result = CliRunner().invoke(main, [command, "--no-cache"], catch_exceptions=False)
        assert (result.exit_code, result.stdout) == (2, ""), command
        assert result.stderr == "".join(
            f"importlinter-contracts: {line}\n" for line in message.splitlines()
        )


def test_a_number_of_seconds_may_be_a_toml_number(tree: Project) -> None:
    _write_toml(tree.root, RUNTIME_TOML + "timeout = 30")
    assert check().exit_code == 0


CONTRACT_TYPE_ERRORS = {
    "no-such-class": (
        '["backend_isolation: importlinter_contracts.NoSuch"]',
        "contract_types: 'backend_isolation: importlinter_contracts.NoSuch' cannot be loaded: "
        "AttributeError: module 'importlinter_contracts' has no attribute 'NoSuch'",
    ),
    "misspelt-class": (
        '["eager_imports: importlinter_contracts.EagerImportsContract"]',
        "contract_types: 'eager_imports: importlinter_contracts.EagerImportsContract' cannot be "
        "loaded: AttributeError: module 'importlinter_contracts' has no attribute "
        "'EagerImportsContract' (did you mean 'EagerImportContract'?)",
    ),
    "no-such-module": (
        '["backend_isolation: nosuchpackage.Contract"]',
        "contract_types: 'backend_isolation: nosuchpackage.Contract' cannot be loaded: "
        "ModuleNotFoundError: No module named 'nosuchpackage'",
    ),
    "not-a-contract": (
        # (A class whose module every supported Python names alike: 3.13 moved pathlib's.)
        '["backend_isolation: json.JSONDecoder"]',
        "contract_types: 'backend_isolation: json.JSONDecoder' cannot be loaded: TypeError: "
        "<class 'json.decoder.JSONDecoder'> is not a subclass of Contract.",
    ),
    "not-a-class": (
        '["backend_isolation: os.getcwd"]',
        "contract_types: 'backend_isolation: os.getcwd' names no class.",
    ),
    "no-colon-and-space": (
        '["backend_isolation:importlinter_contracts.BackendIsolationContract"]',
        "contract_types: 'backend_isolation:importlinter_contracts.BackendIsolationContract' "
        "is not of the form 'name: package.module.Class'.",
    ),
    "not-a-string": (
        "[{backend_isolation = 1}]",
        "contract_types: {backend_isolation = 1} (a table) is not of the form "
        "'name: package.module.Class'.",
    ),
    "a-string-not-a-list": (
        '"backend_isolation: importlinter_contracts.BackendIsolationContract"',
        'contract_types: found "backend_isolation: importlinter_contracts.'
        "BackendIsolationContract\" (a string); give a list of 'name: package.module.Class' "
        "entries (in INI, one per line).",
    ),
}


@pytest.mark.parametrize(
    ("contract_types", "message"), CONTRACT_TYPE_ERRORS.values(), ids=CONTRACT_TYPE_ERRORS.keys()
)
def test_contract_types_that_cannot_be_loaded_are_one_line(
    tree: Project, contract_types: str, message: str
) -> None:
    _write_toml(tree.root, R2_TOML, contract_types)
    for command in ("check", "allowlist"):
        result = CliRunner().invoke(main, [command, "--no-cache"], catch_exceptions=False)
        assert (result.exit_code, result.stdout) == (2, ""), command
        assert result.stderr == f"importlinter-contracts: {message}\n"


# 5. The command line's error paths: one line, exit status 2, no traceback, nothing written.


def test_discovered_ini_with_a_duplicate_section(tree: Project) -> None:
    (tree.root / "setup.cfg").write_text("[metadata]\nname = x\n\n[metadata]\nversion = 1\n")
    tree.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg.platforms\n"
    )
    files_before = snapshot(tree.root)
    expected = (
        "importlinter-contracts: While reading from 'setup.cfg' [line 4]: "
        "section 'metadata' already exists\n"
    )
    for command in (
        ["check", "--no-cache"],
        ["check", "--no-cache", "--format", "github"],
        ["allowlist", "--no-cache", "--write"],
    ):
        result = CliRunner().invoke(main, command, catch_exceptions=False)
        assert (result.exit_code, result.stdout, result.stderr) == (2, "", expected), command
    assert snapshot(tree.root) == files_before


def test_github_annotations_with_inline_toml_contracts_and_a_stale_entry(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(inline_contract(f'["{A}", "{B}", "{GONE}"]'))
    result = check("--format", "github")
    assert (result.exit_code, result.stderr) == (1, "")
    assert result.stdout == (
        "::error file=pyproject.toml,line=5,title=R2 (r2)::"
        f"{GONE}: no import matches it; remove this stale entry\n"
    )


CLI_ERRORS = {
    "config-file-missing": (
        ["check", "--config", "missing.ini"],
        None,
        "Could not find missing.ini.",
    ),
    "named-config-does-not-parse": (
        ["check", "--config", "other.ini"],
        ("other.ini", INI_HEAD + "[importlinter]\n"),
        "While reading from 'other.ini' [line 10]: section 'importlinter' already exists",
    ),
    "unknown-contract-id": (
        ["check", "--contract", "nope"],
        INI_HEAD,
        "--contract nope: no contract of .importlinter has this id; its ids: r2.",
    ),
    "unknown-contract-type": (
        ["check"],
        INI_HEAD.replace("type = backend_isolation", "type = backend_isolatoin"),
        "Contract \"R2\" has type 'backend_isolatoin', which is neither built in nor "
        "registered under contract_types (did you mean 'backend_isolation'?); the types: "
        "acyclic_siblings, backend_isolation, forbidden, independence, layers, private_modules, "
        "protected.",
    ),
    "toml-syntax-error": (
        ["allowlist", "--write"],
        ("pyproject.toml", TOML_HEAD.replace('id = "r2"', 'id = "r2')),
        "pyproject.toml: Illegal character '\\n' (at line 6, column 9), in "
        "[[tool.importlinter.contracts]], key id.",
    ),
    "ini-lone-percent": (
        ["check"],
        INI_HEAD + f"ignore_imports =\n    {A}  # 100% sure\n",
        ".importlinter: option ignore_imports of [importlinter:contract:r2] has a '%' not "
        "written '%%' (INI values are read with interpolation, where '%%' stands for '%').",
    ),
    "not-utf-8": (
        ["allowlist", "--write"],
        (".importlinter", INI_HEAD.encode() + b"# caf\xe9\n"),
        ".importlinter is not UTF-8 text (byte 217): save it as UTF-8.",
    ),
    "unknown-option": (
        ["allowlist"],
        INI_HEAD + "ignore_import = pkg.a -> pkg.b\n",
        'Contract "R2" is not configured correctly: ignore_import: Unrecognized option. '
        "Did you mean 'ignore_imports'?",
    ),
}


@pytest.mark.parametrize(("args", "config", "message"), CLI_ERRORS.values(), ids=CLI_ERRORS.keys())
def test_cli_errors_are_one_line(
    tree: Project, args: list[str], config: str | tuple[str, str | bytes] | None, message: str
) -> None:
    if isinstance(config, str):
        (tree.root / ".importlinter").write_text(config)
    elif config is not None:
        name, content = config
        path = tree.root / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    files_before = snapshot(tree.root)
    result = CliRunner().invoke(main, [*args, "--no-cache"], catch_exceptions=False)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"importlinter-contracts: {message}\n"
    assert snapshot(tree.root) == files_before


def test_an_empty_contract_id_is_shown_quoted(project: Project) -> None:
    project.write({"pkg/a.py": ""})
    project.configure(
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\ncontainer = pkg\n"
    )
    result = project.check("--contract", "")
    assert result.exit_code == 2
    assert result.output.endswith(
        "--contract '': no contract of .importlinter has this id; its ids: r2.\n"
    )
