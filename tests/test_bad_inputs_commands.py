"""Expected mistakes on the command line, each one clear line on stderr and exit 2 (never an
"unexpected error" with an exception's name): no configuration, a folder or device given as
the configuration, a file of the tree that does not parse, cannot be read or is not UTF-8,
`why` of one module to itself, a base configuration that is not UTF-8, a misspelt module, a
file's path given as a module, a module in a folder without `__init__.py`, an option's
misspelling, an empty --cache-dir, --config, CONFIG_FILE or --python, a usage error of click's."""

from __future__ import annotations

import json

import pytest
from click.testing import Result
from test_review import committed, git, review, review_data

from helpers import Project, configure_r2, run_cli

TREE = {
    "pkg/platforms/cuda/platform.py": "from pkg.platforms.cuda import hooks\n",
    "pkg/platforms/cuda/hooks.py": "import pkg.models.big\n",
    "pkg/platforms/npu/platform.py": "",
    "pkg/models/big.py": "",
}


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(TREE)
    configure_r2(project)
    return project


def error_line(result: Result) -> str:
    """The one line a command printed, which must be all it printed: on stderr, exit 2."""
    assert (result.exit_code, result.stdout) == (2, ""), result.output
    assert result.stderr.count("\n") == 1, result.stderr
    assert "unexpected error" not in result.stderr
    return result.stderr


GRAPH_COMMANDS = [
    ["closure", "pkg.platforms.cuda.platform"],
    ["why", "pkg.platforms.cuda.platform", "pkg.models.big"],
]
EVERY_COMMAND = [*GRAPH_COMMANDS, ["check"], ["allowlist"]]


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_no_configuration_names_the_folder_the_files_and_what_to_do(
    project: Project, args: list[str]
) -> None:
    project.write(TREE)
    assert error_line(run_cli(*args, "--no-cache")) == (
        f"importlinter-contracts: No configuration in {project.root}: none of setup.cfg, "
        ".importlinter, pyproject.toml has an importlinter section ([importlinter] in INI, "
        "[tool.importlinter] in TOML). Run the command in the folder that holds one, or give "
        "its path (CONFIG_FILE or --config).\n"
    )


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_folder_given_as_the_configuration_is_one_line(tree: Project, args: list[str]) -> None:
    assert error_line(run_cli(*args, "--no-cache", "--config", "pkg")) == (
        "importlinter-contracts: pkg is a folder: give the configuration file (setup.cfg, "
        ".importlinter, pyproject.toml or another).\n"
    )


CONFIGURATION_ADVICE = (
    "give the configuration file, or leave {} out for the one lint-imports finds."
)
EMPTY_VALUES = {
    "cache-dir": (
        ["--cache-dir", ""],
        "--cache-dir is empty: give a folder, or --no-cache for none.",
    ),
    "config": (["--config", ""], "--config is empty: " + CONFIGURATION_ADVICE.format("--config")),
    "config-file": ([""], "CONFIG_FILE is empty: " + CONFIGURATION_ADVICE.format("it")),
}


@pytest.mark.parametrize(("empty", "message"), EMPTY_VALUES.values(), ids=EMPTY_VALUES.keys())
@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_an_empty_value_is_one_line_not_the_default(
    tree: Project, args: list[str], empty: list[str], message: str
) -> None:
    assert error_line(run_cli(*args, *empty)) == f"importlinter-contracts: {message}\n"


@pytest.mark.parametrize("measure", [["--measure"], []], ids=["measure", "alone"])
def test_an_empty_python_to_measure_with_is_one_line(tree: Project, measure: list[str]) -> None:
    result = run_cli("closure", "pkg.platforms.cuda.platform", *measure, "--python", "")
    assert error_line(result) == (
        "importlinter-contracts: --python is empty: give an interpreter's path, or leave "
        "--python out for the one running this command.\n"
    )


USAGE_ERRORS = {
    "misspelt-option": (
        ["check", "--statik"],
        "No such option '--statik'. Did you mean '--static'? Run importlinter-contracts check "
        "--help for the usage.",
    ),
    "unknown-option": (
        ["check", "--bogus"],
        "No such option '--bogus'. Did you mean '--verbose'? Run importlinter-contracts check "
        "--help for the usage.",
    ),
    "refused-choice": (
        ["check", "--format", "xml"],
        "Invalid value for '--format': 'xml' is not one of 'text', 'json', 'github', 'sarif'. "
        "Run importlinter-contracts check --help for the usage.",
    ),
    "out-of-range": (
        ["closure", "pkg.core", "--measure", "--repeat", "0"],
        "Invalid value for '--repeat': 0 is not in the range x>=1. Run importlinter-contracts "
        "closure --help for the usage.",
    ),
    "missing-argument": (
        ["why", "pkg.core"],
        "Missing argument 'IMPORTED'. Run importlinter-contracts why --help for the usage.",
    ),
    "extra-argument": (
        ["check", ".importlinter", "more"],
        "Got unexpected extra argument (more). Run importlinter-contracts check --help for the "
        "usage.",
    ),
    "unknown-command": (
        ["chek"],
        "No such command 'chek'. Did you mean 'check'? Run importlinter-contracts --help for the "
        "usage.",
    ),
    "unknown-group-option": (
        ["--bogus"],
        "No such option '--bogus'. Run importlinter-contracts --help for the usage.",
    ),
}


@pytest.mark.parametrize(("args", "message"), USAGE_ERRORS.values(), ids=USAGE_ERRORS.keys())
def test_a_usage_error_is_one_line_with_clicks_reason(
    tree: Project, args: list[str], message: str
) -> None:
    assert error_line(run_cli(*args)) == f"importlinter-contracts: {message}\n"


def test_a_bare_command_still_shows_the_help() -> None:
    result = run_cli()
    assert result.stdout == ""
    assert result.stderr.startswith("Usage: main [OPTIONS] COMMAND [ARGS]...\n")


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_configuration_that_is_not_a_file_is_one_line(tree: Project, args: list[str]) -> None:
    assert error_line(run_cli(*args, "--no-cache", "--config", "/dev/null")) == (
        "importlinter-contracts: /dev/null is not a file: give the configuration file "
        "(setup.cfg, .importlinter, pyproject.toml or another).\n"
    )


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_file_that_does_not_parse_is_named_with_its_line(tree: Project, args: list[str]) -> None:
    tree.write({"pkg/broken.py": "x = 1\ndef f(:\n"})
    assert error_line(run_cli(*args, "--no-cache")) == (
        "importlinter-contracts: Syntax error in pkg/broken.py, line 2: def f(:\n"
    )


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cache"])
@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_file_that_cannot_be_read_is_named_with_what_to_do(
    tree: Project, args: list[str], cache: list[str]
) -> None:
    (tree.root / "pkg" / "ghost.py").symlink_to(tree.root / "nowhere.py")
    assert error_line(run_cli(*args, *cache)) == (
        "importlinter-contracts: pkg/ghost.py cannot be read (No such file or directory): fix "
        "it or remove it (Python could not import it either).\n"
    )


@pytest.mark.parametrize("cache", [["--no-cache"], []], ids=["no-cache", "cache"])
@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_file_that_is_not_utf_8_is_named_with_what_to_do(
    tree: Project, args: list[str], cache: list[str]
) -> None:
    (tree.root / "pkg" / "latin.py").write_bytes(b"NAME = 'caf\xe9'\n")
    assert error_line(run_cli(*args, *cache)) == (
        "importlinter-contracts: pkg/latin.py is not UTF-8 (invalid utf-8 sequence of 1 bytes "
        "from index 11): save it as UTF-8, or declare its encoding on its first or second line "
        "(# -*- coding: latin-1 -*-).\n"
    )


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=lambda args: args[0])
def test_a_file_that_declares_an_unknown_encoding_is_named_with_what_to_do(
    tree: Project, args: list[str]
) -> None:
    (tree.root / "pkg" / "odd.py").write_bytes(b"# -*- coding: klingon -*-\nimport os\n")
    assert error_line(run_cli(*args, "--no-cache")) == (
        "importlinter-contracts: pkg/odd.py declares an encoding Python does not know "
        "('klingon'): fix the coding line on its first or second line, or remove it to read "
        "the file as UTF-8.\n"
    )


def test_why_of_a_module_to_itself_is_one_line(tree: Project) -> None:
    result = run_cli("why", "--no-cache", "pkg.models.big", "pkg/models/big.py")
    assert error_line(result) == (
        "importlinter-contracts: pkg.models.big is both the importer and the imported: give two "
        "different modules.\n"
    )


def test_a_base_configuration_that_is_not_utf_8_is_reviewed_as_one_that_cannot_be_read(
    project: Project,
) -> None:
    committed(project)
    config = project.root / ".importlinter"
    text = config.read_bytes()
    config.write_bytes(text + b"# caf\xe9\n")
    git(project.root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "latin-1")
    config.write_bytes(text)
    error = f"at HEAD: .importlinter is not UTF-8 text (byte {len(text) + 6}): save it as UTF-8."
    code, data = review_data()
    assert code == 1  # every entry counts as added
    assert (data["base_has_configuration"], data["base_error"]) == (False, error)
    result = review()
    assert result.stderr == (
        "importlinter-contracts: warning: no findings are compared with the base's "
        f"configuration, which cannot be checked: {error}\n"
    )
    history = run_cli("review", "--history", "HEAD")
    assert history.stderr == f"importlinter-contracts: {error}\n"
    assert (history.exit_code, history.stdout) == (2, "")


LOOKUPS = {
    "misspelt-package": (
        "pkg.platform.cuda.platform",
        "pkg.platform.cuda.platform is not a module of the graph: did you mean "
        "pkg.platforms.cuda.platform?",
    ),
    "misspelt-module": (
        "pkg.platforms.cuda.platfrom",
        "pkg.platforms.cuda.platfrom is not a module of the graph: did you mean "
        "pkg.platforms.cuda.platform?",
    ),
    "misspelt-twice": (
        "pkg.platfroms.cdua.platform",
        "pkg.platfroms.cdua.platform is not a module of the graph: did you mean "
        "pkg.platforms.cuda.platform?",
    ),
    "nothing-near": ("pkg.zzz", "pkg.zzz is not a module of the graph."),
    "missing-file": (
        "pkg/platforms/cuda/platfrom.py",
        "pkg/platforms/cuda/platfrom.py (no such file; module pkg.platforms.cuda.platfrom) is not "
        "a module of the graph: did you mean pkg.platforms.cuda.platform?",
    ),
    "path-outside-the-root-packages": (
        "setup.py",
        "setup.py is neither a module of the graph nor a path below the root packages' folders "
        "(pkg): give a module's name, or the path of its file.",
    ),
    "folder-without-init": (
        "pkg.vendored.kernels",
        "pkg.vendored.kernels is not a module of the graph (pkg/vendored/__init__.py is "
        "missing: the graph leaves out a folder without one, and everything in it).",
    ),
    "file-in-a-folder-without-init": (
        "pkg/vendored/kernels.py",
        "pkg/vendored/kernels.py (a file; module pkg.vendored.kernels) is not a module of the "
        "graph (pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, "
        "and everything in it).",
    ),
    "blank-name": (" ", "' ' is not a module name: give a dotted name of identifiers."),
    "empty-name": ("", "'' is not a module name: give a dotted name of identifiers."),
    "no-file-in-a-folder-without-init": (
        "pkg/vendored/nothere.py",
        "pkg/vendored/nothere.py (no such file; module pkg.vendored.nothere) is not a module of "
        "the graph (pkg/vendored/__init__.py is missing: the graph leaves out a folder without one, and "
        "everything in it).",
    ),
}


@pytest.mark.parametrize(("module", "message"), LOOKUPS.values(), ids=LOOKUPS.keys())
@pytest.mark.parametrize("command", ["closure", "why-importer", "why-imported"])
def test_a_module_not_in_the_graph_says_why_or_what_is_near(
    tree: Project, module: str, message: str, command: str
) -> None:
    tree.write({"pkg/vendored/kernels.py": ""})
    (tree.root / "pkg/vendored/__init__.py").unlink()
    args = {
        "closure": ["closure", module],
        "why-importer": ["why", module, "pkg.models.big"],
        "why-imported": ["why", "pkg.platforms.cuda.platform", module],
    }[command]
    assert error_line(run_cli(*args, "--no-cache")) == f"importlinter-contracts: {message}\n"


@pytest.mark.parametrize(
    "path",
    ["pkg/platforms/cuda/platform.py", "./pkg/platforms/cuda/platform.py", "ABSOLUTE"],
)
def test_a_file_path_names_its_module(tree: Project, path: str) -> None:
    if path == "ABSOLUTE":
        path = str(tree.root / "pkg/platforms/cuda/platform.py")
    by_path = run_cli("closure", "--no-cache", path, "--format", "json")
    by_name = run_cli("closure", "--no-cache", "pkg.platforms.cuda.platform", "--format", "json")
    assert (by_path.exit_code, by_path.stderr) == (0, "")
    assert by_path.stdout == by_name.stdout
    assert json.loads(by_path.stdout)["module"] == "pkg.platforms.cuda.platform"
    why = run_cli("why", "--no-cache", path, "pkg/models/big.py", "--format", "json")
    assert why.exit_code == 0, why.output
    data = json.loads(why.stdout)
    assert (data["importer"], data["imported"]) == ("pkg.platforms.cuda.platform", "pkg.models.big")


def test_a_package_folder_or_its_init_names_the_package(tree: Project) -> None:
    for path in ("pkg/platforms/cuda", "pkg/platforms/cuda/__init__.py"):
        result = run_cli("closure", "--no-cache", path)
        assert result.exit_code == 0, result.output
        assert result.stdout.splitlines()[0] == "importing pkg.platforms.cuda runs 3 modules:"


def test_a_module_named_like_a_file_is_the_module(project: Project) -> None:
    # `pkg.py` is a module's name here (pkg/py.py), not a path.
    project.write({"pkg/py.py": "", "pkg/platforms/cuda/platform.py": ""})
    configure_r2(project)
    result = run_cli("closure", "--no-cache", "pkg.py")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "importing pkg.py runs 2 modules:"


R4_TYPO = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = pkg.platforms.cuda.platform
follow_module = pkg
forbidden_modules = pkg.models
"""


@pytest.mark.parametrize("command", ["check", "allowlist"])
def test_a_misspelt_required_option_is_the_did_you_mean_line_alone(
    project: Project, command: str
) -> None:
    project.write(TREE)
    project.configure(R4_TYPO)
    assert error_line(run_cli(command, "--no-cache")) == (
        'importlinter-contracts: Contract "R4" is not configured correctly: follow_module: '
        "Unrecognized option. Did you mean 'follow_modules'?\n"
    )


def test_a_missing_required_option_without_a_near_misspelling_is_still_said(
    project: Project,
) -> None:
    project.write(TREE)
    project.configure(R4_TYPO.replace("follow_module =", "unrelated_thing ="))
    result = run_cli("check", "--no-cache")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        'importlinter-contracts: Contract "R4" is not configured correctly: follow_modules: '
        "This is a required field.\n"
        'importlinter-contracts: Contract "R4" is not configured correctly: unrelated_thing: '
        "Unrecognized option.\n"
    )


R4 = """\
[importlinter:contract:r4]
name = R4
type = eager_imports
source_modules = {source}
follow_modules = {follow}
forbidden_modules = pkg.models
"""
CONTRACT_LOOKUPS = {
    "source": (
        R4.format(source="pkg.platforms.cuda.platfrom", follow="pkg"),
        "R4",
        "source_modules: 'pkg.platforms.cuda.platfrom' matches no module of the graph: did you "
        "mean 'pkg.platforms.cuda.platform'?",
    ),
    "source-wildcard": (  # a misspelt part, the wildcard kept
        R4.format(source="pkg.platfroms.*.platform", follow="pkg"),
        "R4",
        "source_modules: 'pkg.platfroms.*.platform' matches no module of the graph: did you "
        "mean 'pkg.platforms.*.platform'?",
    ),
    "follow": (
        R4.format(source="pkg.platforms.cuda.platform", follow="pkg.platfroms"),
        "R4",
        "follow_modules: 'pkg.platfroms' is not a module of the graph: did you mean "
        "'pkg.platforms'?",
    ),
    "container": (
        "[importlinter:contract:r2]\nname = R2\ntype = backend_isolation\n"
        "container = pkg.platfrom\n",
        "R2",
        "container: 'pkg.platfrom' is not a module of the graph: did you mean 'pkg.platforms'?",
    ),
}


@pytest.mark.parametrize(
    ("contract", "name", "message"), CONTRACT_LOOKUPS.values(), ids=CONTRACT_LOOKUPS.keys()
)
def test_a_contract_option_naming_no_module_suggests_the_nearest(
    project: Project, contract: str, name: str, message: str
) -> None:
    project.write(TREE)
    project.configure(contract)
    assert error_line(run_cli("check", "--no-cache")) == (
        f'importlinter-contracts: Contract "{name}" is not configured correctly: {message}\n'
    )
