"""No silent pass in the options, and no riddle in the messages: a key of the importlinter
section that nothing reads, a value given twice, a name no module can have, a package that is
not on the path, a TOML error. Each case asserts the exact one-line message; most build the
contract, or check the section, in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from importlinter import Contract
from importlinter.domain.contract import InvalidContractOptions

from helpers import Project, configure_r2, run_cli
from importlinter_contracts import (
    BackendIsolationContract,
    EagerImportContract,
    RuntimeIsolationContract,
)
from importlinter_contracts.allowlist.entries import entry_text
from importlinter_contracts.configuration import (
    IMPORTLINTER_KEYS,
    OWN_KEYS,
    check_session_options,
    find_configuration,
)
from importlinter_contracts.errors import ConfigurationError

SESSION = {"root_packages": ["pkg"]}
KNOWN = (
    "assume_false, contract_types, exclude_type_checking_imports, include_external_packages, "
    "lazy_imports, python_version, root_package, root_packages, show_timings"
)
OURS = ["backend_isolation: importlinter_contracts.BackendIsolationContract"]


# 1. The importlinter section: every key is one that import-linter or this package reads.

UNKNOWN_KEYS = {
    "python-version-misspelt": (
        {**SESSION, "python_verison": "3.15"},
        "[importlinter]: python_verison is not an option (did you mean 'python_version'?); "
        f"the options: {KNOWN}.",
    ),
    "lazy-imports-singular": (
        {**SESSION, "lazy_import": "all"},
        "[importlinter]: lazy_import is not an option (did you mean 'lazy_imports'?); "
        f"the options: {KNOWN}.",
    ),
    "nothing-near": (
        {**SESSION, "colour": "yes", "contract_types": OURS},
        f"[importlinter]: colour is not an option; the options: {KNOWN}.",
    ),
    "toml-contract-singular": (
        {**SESSION, "contract": [{"name": "R2"}]},
        "[importlinter]: contract is not an option; each contract is a table of "
        "[[tool.importlinter.contracts]] in TOML, an [importlinter:contract:ID] section in INI.",
    ),
    "misspelt-beside-another-packages-type": (
        {**SESSION, "root_pakages": ["x"], "contract_types": ["other: otherpkg.Contract"]},
        "[importlinter]: root_pakages is not an option (did you mean 'root_packages'?); "
        f"the options: {KNOWN}.",
    ),
}


@pytest.mark.parametrize(("session", "message"), UNKNOWN_KEYS.values(), ids=UNKNOWN_KEYS.keys())
def test_a_key_of_the_section_that_nothing_reads_is_an_error(
    session: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        check_session_options(session, "[importlinter]")
    assert str(raised.value) == message


def test_every_key_import_linter_and_this_package_read_is_accepted() -> None:
    every = {key: "x" for key in (*IMPORTLINTER_KEYS, *OWN_KEYS)} | {
        key: "true" for key in ("include_external_packages", "exclude_type_checking_imports")
    }
    every["show_timings"] = "False"  # (as import-linter gives a TOML boolean)
    for value in ("True", "false"):
        check_session_options({**SESSION, "exclude_type_checking_imports": value}, "[x]")
    check_session_options({**every, "root_packages": ["x"], "contract_types": OURS}, "[x]")
    check_session_options({"root_package": "pkg"}, "[x]")
    # Another package's contract type may read keys of its own: only a misspelling is refused.
    check_session_options(
        {**SESSION, "colour": "yes", "contract_types": [*OURS, "other: otherpkg.Contract"]},
        "[x]",
    )


@pytest.fixture
def tree(project: Project) -> Project:
    project.write({"pkg/platforms/cuda/platform.py": "", "pkg/platforms/npu/platform.py": ""})
    return project


@pytest.mark.parametrize("command", ["check", "allowlist", "closure"])
def test_a_misspelt_key_stops_every_command_naming_the_file(tree: Project, command: str) -> None:
    configure_r2(tree, session="python_verison = 3.15\n")
    args = [command, "pkg.platforms"] if command == "closure" else [command]
    result = run_cli(*args, "--no-cache")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: .importlinter [importlinter]: python_verison is not an "
        f"option (did you mean 'python_version'?); the options: {KNOWN}.\n"
    )


def test_a_misspelt_key_stops_lint_imports(tree: Project) -> None:
    configure_r2(tree, session="lazy_import = all\n")
    result = tree.lint_imports()
    assert result.exit_code == 1
    assert (
        "The importlinter section: lazy_import is not an option (did you mean 'lazy_imports'?)"
        in " ".join(result.output.split())
    )


def test_a_toml_section_is_named_as_toml_writes_it(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = ["pkg"]\npython_verison = "3.15"\n'
        f'contract_types = ["{OURS[0]}"]\n\n[[tool.importlinter.contracts]]\nid = "r2"\n'
        'name = "R2"\ntype = "backend_isolation"\ncontainer = "pkg.platforms"\n'
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: pyproject.toml [tool.importlinter]: python_verison is not an "
        f"option (did you mean 'python_version'?); the options: {KNOWN}.\n",
    )


def test_a_configuration_without_root_package_says_so(tree: Project) -> None:
    (tree.root / ".importlinter").write_text(
        "[importlinter]\n\n[importlinter:contract:r2]\nname = R2\ntype = forbidden\n"
        "source_modules = pkg.a\nforbidden_modules = pkg.b\n"
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: .importlinter [importlinter] has no root_packages: give the "
        "packages to analyse (root_packages, or root_package for one).\n",
    )


# 2. A contract's options: a value given twice, a name that no module can have.

R2 = {"container": "pkg.platforms"}
R4 = {"source_modules": ["pkg.a"], "follow_modules": ["pkg"], "forbidden_modules": ["x"]}
RUNTIME = {"probe_modules": ["pkg.a"], "blocked_modules": ["torch_npu"]}
TWICE = "is given more than once; give each value once."

OPTION_ERRORS = {
    "backends-twice": (
        BackendIsolationContract,
        {**R2, "backends": ["cuda", "npu", "cuda"]},
        {"backends": f"'cuda' {TWICE}"},
    ),
    "neutral-children-twice": (
        BackendIsolationContract,
        {**R2, "neutral_children": ["common", "utils", "utils", "common"]},
        {
            "neutral_children": "'common' and 'utils' are given more than once; give each value "
            "once."
        },
    ),
    "source-modules-twice": (
        EagerImportContract,
        {**R4, "source_modules": ["pkg.a", "pkg.b", "pkg.a"]},
        {"source_modules": f"'pkg.a' {TWICE}"},
    ),
    "forbidden-modules-twice": (
        EagerImportContract,
        {**R4, "forbidden_modules": ["torch_xla", "torch_xla"]},
        {"forbidden_modules": f"'torch_xla' {TWICE}"},
    ),
    "blocked-modules-twice": (
        RuntimeIsolationContract,
        {**RUNTIME, "blocked_modules": ["torch_npu", "torch_npu"]},
        {"blocked_modules": f"'torch_npu' {TWICE}"},
    ),
    # The optional lists too: the same field.
    "allowed-modules-twice": (
        EagerImportContract,
        {**R4, "allowed_modules": ["x.y", "x.y"]},
        {"allowed_modules": f"'x.y' {TWICE}"},
    ),
    "forbidden-loaded-modules-twice": (
        RuntimeIsolationContract,
        {**RUNTIME, "forbidden_loaded_modules": ["torch_npu", "torch_npu"]},
        {"forbidden_loaded_modules": f"'torch_npu' {TWICE}"},
    ),
    "pip-name": (
        EagerImportContract,
        {**R4, "forbidden_modules": ["torch-xla"]},
        {"forbidden_modules": "'torch-xla' is not a module name: did you mean 'torch_xla'?"},
    ),
    "leading-dot": (
        EagerImportContract,
        {**R4, "forbidden_modules": [".torch_xla"]},
        {"forbidden_modules": "'.torch_xla' is not a module name: did you mean 'torch_xla'?"},
    ),
    "doubled-dot": (
        EagerImportContract,
        {**R4, "source_modules": ["pkg..a"]},
        {"source_modules": "'pkg..a' is not a module name: did you mean 'pkg.a'?"},
    ),
    "a-files-path": (
        EagerImportContract,
        {**R4, "allowed_modules": ["pkg/a.py", "pkg/b/__init__.py"]},
        {"allowed_modules": "'pkg/a.py' is not a module name: did you mean 'pkg.a'?"},
    ),
    "a-packages-path": (
        RuntimeIsolationContract,
        {**RUNTIME, "probe_modules": ["pkg/b/__init__.py"]},
        {"probe_modules": "'pkg/b/__init__.py' is not a module name: did you mean 'pkg.b'?"},
    ),
    "nothing-to-suggest": (
        EagerImportContract,
        {**R4, "allowed_modules": ["pkg.a+b"]},
        {"allowed_modules": "'pkg.a+b' is not a module name: give a dotted name of identifiers."},
    ),
    "blocked-pip-name": (
        RuntimeIsolationContract,
        {**RUNTIME, "blocked_modules": ["torch-npu"]},
        {"blocked_modules": "'torch-npu' is not a module name: did you mean 'torch_npu'?"},
    ),
    "blocked-wildcard": (
        RuntimeIsolationContract,
        {**RUNTIME, "blocked_modules": ["torch_*"]},
        {"blocked_modules": "'torch_*' is not a module name: give a dotted name of identifiers."},
    ),
}


@pytest.mark.parametrize(
    ("contract_class", "options", "errors"), OPTION_ERRORS.values(), ids=OPTION_ERRORS.keys()
)
def test_an_option_given_twice_or_not_a_module_name_is_an_error(
    contract_class: type[Contract], options: dict[str, Any], errors: dict[str, str]
) -> None:
    with pytest.raises(InvalidContractOptions) as raised:
        contract_class("C", dict(SESSION), {"type": "t", **options})
    assert raised.value.errors == errors


def test_wildcards_stay_module_expressions() -> None:
    EagerImportContract(
        "C", dict(SESSION), {"type": "t", **R4, "forbidden_modules": ["pkg.*.cuda", "pkg.**"]}
    )


def test_an_external_pip_name_is_an_error_not_a_pass(tree: Project) -> None:
    # With external packages in the graph, a name no module has matched nothing and was KEPT.
    tree.write({"pkg/a.py": "import torch_xla\n"})
    tree.configure(
        """\
        [importlinter:contract:r4]
        name = R4
        type = eager_imports
        source_modules = pkg.a
        follow_modules = pkg
        forbidden_modules = torch-xla
        """,
        session="include_external_packages = true\n",
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        'importlinter-contracts: Contract "R4" is not configured correctly: forbidden_modules: '
        "'torch-xla' is not a module name: did you mean 'torch_xla'?\n",
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            'python_version = "3.15"',
            '.importlinter [importlinter]: python_version = "3.15": INI keeps the quotes as '
            "part of the value; write python_version = 3.15.",
        ),
        (
            "lazy_imports = 'all'",
            ".importlinter [importlinter]: lazy_imports = 'all': INI keeps the quotes as part of "
            "the value; write lazy_imports = all.",
        ),
    ],
)
def test_a_quoted_ini_value_is_told_to_lose_its_quotes(
    tree: Project, line: str, message: str
) -> None:
    configure_r2(tree, session=f"{line}\n")
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (2, f"importlinter-contracts: {message}\n")


# 3. Where the root package is not on the path: the layout that would put it there.


@pytest.mark.parametrize("command", [["check"], ["closure", "acme"]], ids=["check", "closure"])
def test_a_src_layout_says_which_path_to_set(project: Project, command: list[str]) -> None:
    project.write({"src/acme/core.py": ""})
    project.configure("", root_package="acme")
    result = run_cli(*command, "--no-cache")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "importlinter-contracts: Could not find package 'acme' in your Python path: it is in "
        "src/: set PYTHONPATH=src (or install the package: pip install -e .).\n",
    )


# 4. A TOML error names the table and the key whose value it is in.

TOML_ERRORS = {
    "array-never-closed": (
        '[tool.importlinter]\nroot_packages = ["pkg"\n',
        "Unclosed array (at end of document), in [tool.importlinter], key root_packages",
    ),
    "array-closed-too-late": (
        '[tool.importlinter]\nroot_packages = ["pkg"\ncontract_types = []\n',
        "Unclosed array (at line 3, column 1), in [tool.importlinter], key root_packages",
    ),
    "string-never-closed": (
        '[tool.importlinter]\nroot_packages = ["pkg"]\n\n[[tool.importlinter.contracts]]\n'
        'name = "R2\n',
        "Illegal character '\\n' (at line 5, column 11), in [[tool.importlinter.contracts]], "
        "key name",
    ),
    "header-never-closed": (
        "[tool.importlinter\n",
        "Expected ']' at the end of a table declaration (at line 1, column 19), in "
        "[tool.importlinter",
    ),
    "before-any-table": (
        "name = \n",
        "Invalid value (at line 1, column 8), in the document's top level, key name",
    ),
}


@pytest.mark.parametrize(("text", "message"), TOML_ERRORS.values(), ids=TOML_ERRORS.keys())
def test_a_toml_error_names_the_table_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    with pytest.raises(ConfigurationError) as raised:
        find_configuration(str(path))
    assert str(raised.value) == f"{path}: {message}."


# 5. An allowlist entry that cannot be read is named with its file and line.

WRONG_ARROW = (
    'Contract "{name}" is not configured correctly: ignore_imports: Entry '
    "'pkg.b => pkg.platforms.cuda # an arrow of another kind' is not an import expression "
    '(Must be in the form "package.importer -> package.imported"): write it as '
    '"package.importer -> package.imported  # reason".'
)


@pytest.mark.parametrize("command", ["check", "allowlist"])
def test_an_entry_with_a_wrong_arrow_names_its_file_and_line_in_ini(
    tree: Project, command: str
) -> None:
    configure_r2(
        tree,
        "ignore_imports =\n    pkg.a -> pkg.platforms.npu  # fine\n"
        "    pkg.b => pkg.platforms.cuda  # an arrow of another kind\n",
    )
    line = (
        (tree.root / ".importlinter")
        .read_text()
        .splitlines()
        .index("    pkg.b => pkg.platforms.cuda  # an arrow of another kind")
    )
    result = run_cli(command, "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        f"importlinter-contracts: .importlinter:{line + 1}: "
        f"{WRONG_ARROW.format(name='Backends are private')}\n",
    )


@pytest.mark.parametrize(
    "entry",
    ["pkg.my-mod -> pkg.platforms.cuda  # a pip name", "pkg.b -> pkg.platforms.cuda ; why"],
    ids=["hyphen", "semicolon"],
)
@pytest.mark.parametrize("command", ["check", "allowlist"])
def test_an_entry_whose_module_is_not_a_name_names_its_file_and_line(
    tree: Project, command: str, entry: str
) -> None:
    configure_r2(tree, f"ignore_imports =\n    {entry}\n")
    line = (tree.root / ".importlinter").read_text().splitlines().index(f"    {entry}")
    result = run_cli(command, "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        f'importlinter-contracts: .importlinter:{line + 1}: Contract "Backends are private" '
        f"is not configured correctly: ignore_imports: Entry '{entry_text(entry)}' is not an "
        "import expression (a module on either side is not a dotted name, * or ** standing "
        'for a name): write it as "package.importer -> package.imported  # reason".\n',
    )


def test_an_entry_with_a_wrong_arrow_names_its_file_and_line_in_toml(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(
        f'[tool.importlinter]\nroot_packages = ["pkg"]\ncontract_types = ["{OURS[0]}"]\n\n'
        '[[tool.importlinter.contracts]]\nid = "r2"\nname = "R2"\ntype = "backend_isolation"\n'
        'container = "pkg.platforms"\nignore_imports = [\n'
        '    "pkg.a -> pkg.platforms.npu  # fine",\n'
        '    "pkg.b => pkg.platforms.cuda  # an arrow of another kind",\n]\n'
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        f"importlinter-contracts: pyproject.toml:12: {WRONG_ARROW.format(name='R2')}\n",
    )


def test_root_packages_on_one_ini_line_is_not_read_letter_by_letter(tree: Project) -> None:
    (tree.root / ".importlinter").write_text(
        "[importlinter]\nroot_packages = pkg\n\n[importlinter:contract:r2]\nname = R2\n"
        "type = forbidden\nsource_modules = pkg.a\nforbidden_modules = pkg.b\n"
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: .importlinter [importlinter]: root_packages = pkg: a list (in "
        "INI, one package per line below the key); for one package, write root_package = "
        "pkg.\n",
    )


def test_root_packages_as_one_toml_string_is_advised_in_toml(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_packages = "pkg"\n\n[[tool.importlinter.contracts]]\n'
        'id = "r2"\nname = "R2"\ntype = "forbidden"\nsource_modules = ["pkg.a"]\n'
        'forbidden_modules = ["pkg.b"]\n'
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: pyproject.toml [tool.importlinter]: root_packages = "pkg": a '
        'list (in TOML, ["pkg"]); for one package, write root_package = "pkg".\n',
    )


# 6. What import-linter would read otherwise than meant, or fail on with Python's message: a
# root package that no module can be, a boolean it reads as false, a configuration with no
# contracts, a byte-order mark, a TOML id or contracts table of another type.

ROOT_PACKAGES = {
    "empty": ([""], "root package '' is not a module name: give a dotted name of identifiers."),
    "pip-name": (["my-pkg"], "root package 'my-pkg' is not a module name: did you mean 'my_pkg'?"),
    "leading-dot": ([".pkg"], "root package '.pkg' is not a module name: did you mean 'pkg'?"),
    "not-top-level": (
        ["pkg.platforms"],
        "root package 'pkg.platforms' is not a top-level package: give 'pkg' (the contracts "
        "name the modules inside it).",
    ),
    "toml-integer": ([5], "root package 5 (an integer): give a package's name."),
    "twice": (
        ["pkg", "pkg"],
        "root package 'pkg' is given more than once; give each package once.",
    ),
}


@pytest.mark.parametrize(("roots", "message"), ROOT_PACKAGES.values(), ids=ROOT_PACKAGES.keys())
def test_a_root_package_no_module_can_be_is_an_error(roots: list[Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        check_session_options({"root_packages": roots}, "[importlinter]")
    assert str(raised.value) == f"[importlinter]: {message}"


BOOLEANS = {
    "ini-maybe": ("include_external_packages", "maybe", "maybe"),
    "ini-yes": ("exclude_type_checking_imports", "yes", "yes"),
    "ini-one": ("show_timings", "1", "1"),
    "toml-integer": ("include_external_packages", 1, "1 (an integer)"),
}


@pytest.mark.parametrize(("key", "value", "shown"), BOOLEANS.values(), ids=BOOLEANS.keys())
def test_a_boolean_key_import_linter_would_read_as_false_is_an_error(
    key: str, value: object, shown: str
) -> None:
    with pytest.raises(ConfigurationError) as raised:
        check_session_options({**SESSION, key: value}, "[importlinter]")
    assert str(raised.value) == (
        f"[importlinter]: {key} = {shown}: give true or false (import-linter reads any other "
        "value as false)."
    )


def test_a_root_package_that_is_not_top_level_stops_the_command(tree: Project) -> None:
    configure_r2(tree)
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace("root_package = pkg", "root_package = pkg.x"))
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "importlinter-contracts: .importlinter [importlinter]: root package 'pkg.x' is not a "
        "top-level package: give 'pkg' (the contracts name the modules inside it).\n",
    )


TOML_HEAD = f'[tool.importlinter]\nroot_packages = ["pkg"]\ncontract_types = ["{OURS[0]}"]\n'
TOML_R2 = 'name = "R2"\ntype = "backend_isolation"\ncontainer = "pkg.platforms"\n'
NO_CONTRACTS = {
    "ini": (
        ".importlinter",
        f"[importlinter]\nroot_package = pkg\ncontract_types =\n    {OURS[0]}\n",
        "an [importlinter:contract:ID] section",
    ),
    "toml": ("pyproject.toml", TOML_HEAD, "a table of [[tool.importlinter.contracts]]"),
}


@pytest.mark.parametrize(("name", "text", "where"), NO_CONTRACTS.values(), ids=NO_CONTRACTS.keys())
@pytest.mark.parametrize("command", ["check", "allowlist"])
def test_a_configuration_without_contracts_is_an_error_not_a_pass(
    tree: Project, name: str, text: str, where: str, command: str
) -> None:
    (tree.root / name).write_text(text)
    result = run_cli(command, "--no-cache")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"importlinter-contracts: {name} has no contracts, so nothing would be checked: give "
        f"each contract {where}.\n",
    )


def test_toml_contracts_as_one_table_is_an_error_naming_the_brackets(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(
        TOML_HEAD + '\n[tool.importlinter.contracts]\nid = "r2"\n' + TOML_R2
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: pyproject.toml [tool.importlinter]: contracts is a table, not "
        "an array of tables: write each contract as a table of its own under "
        "[[tool.importlinter.contracts]] (two brackets).\n",
    )


def test_a_toml_id_that_is_not_a_string_is_an_error(tree: Project) -> None:
    (tree.root / "pyproject.toml").write_text(
        TOML_HEAD + "\n[[tool.importlinter.contracts]]\nid = 2\n" + TOML_R2
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "R2" is not configured correctly: id: found 2 (an '
        "integer); give the id as a string.\n",
    )


@pytest.mark.parametrize("name", [".importlinter", "pyproject.toml"])
def test_a_byte_order_mark_is_named_with_what_to_do(tree: Project, name: str) -> None:
    configure_r2(tree)
    text = (tree.root / ".importlinter").read_text()
    if name == "pyproject.toml":
        (tree.root / ".importlinter").unlink()
        text = TOML_HEAD + '\n[[tool.importlinter.contracts]]\nid = "r2"\n' + TOML_R2
    (tree.root / name).write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        f"importlinter-contracts: {name} starts with a byte-order mark, which import-linter "
        "reads as text before the first section: save it as UTF-8 without one.\n",
    )


def test_a_contract_type_registered_twice_is_an_error(tree: Project) -> None:
    configure_r2(tree)
    config = tree.root / ".importlinter"
    config.write_text(
        config.read_text().replace(
            "contract_types =\n",
            "contract_types =\n    backend_isolation: importlinter_contracts.EagerImportContract\n",
        )
    )
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: contract_types: 'backend_isolation' is registered twice, the "
        "second time as 'backend_isolation: importlinter_contracts.BackendIsolationContract': "
        "give each contract type a name of its own.\n",
    )


def test_a_pattern_in_backends_is_told_the_children(tree: Project) -> None:
    configure_r2(tree, "backends = cu*\n")
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract "Backends are private" is not configured correctly: '
        "backends: 'cu*' is not a child of 'pkg.platforms'; its children are: cuda, npu.\n",
    )


@pytest.mark.parametrize(
    ("session", "message"),
    [
        (
            "python_version = 3\n",
            ".importlinter [importlinter]: python_version = '3': not a Python 3 version; write it as mypy "
            'does, as a string such as "3.15".',
        ),
        (
            "lazy_imports = some\n",
            ".importlinter [importlinter]: lazy_imports = 'some': not a mode; use normal or all.",
        ),
    ],
    ids=["python_version", "lazy_imports"],
)
def test_a_target_python_that_is_not_one_is_an_error_without_eager_contracts(
    tree: Project, session: str, message: str
) -> None:
    configure_r2(tree, session=session)
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        f"importlinter-contracts: {message}\n",
    )


def test_an_empty_contract_name_is_an_error(tree: Project) -> None:
    configure_r2(tree)
    config = tree.root / ".importlinter"
    config.write_text(config.read_text().replace("name = Backends are private", "name ="))
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stderr) == (
        2,
        'importlinter-contracts: Contract with id "r2" is not configured correctly: name: '
        "empty; give the name that reports show for it.\n",
    )
