"""The README and the documentation site show nothing that is not run: every fenced block is
preceded by `<!-- test: TREE [options] -->`, and run on that tree here, its output compared
where it shows one, or by `<!-- untested: REASON -->`. docs/contributing.md describes the
markers ("Documentation that cannot drift")."""

from __future__ import annotations

import ast
import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from importlinter.domain.contract import COMMON_CONTRACT_OPTIONS

import importlinter_contracts
from command_server import CommandServer
from helpers import REPO, pytest_lines
from importlinter_contracts import configuration
from importlinter_contracts.cli import main
from vllm_omni_tree import NEWEST, runtime_environment, tree

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
URL = "https://github.com/vllm-project/importlinter-contracts"
TAG = "v" + importlinter_contracts.__version__
REQUIREMENT = f"importlinter-contracts @ git+{URL}@{TAG}"

# Trees whose blocks run in a scenario (in order, in one copy of the tree), and those whose
# blocks are checked one by one.
SCENARIO_TREES = {"vllm-omni", "acme", "acme-src", "empty", "per-module", "registry", "repository"}
REAL_TREES = {"vllm-omni", "repository"}
CHECKED_TREES = {"ci", "install", "synopsis"}
LANGUAGES = {"console", "ini", "toml", "python", "yaml", "text", "json"}

ACME = {
    "acme/__init__.py": "",
    "acme/core.py": "",
    "acme/models/__init__.py": "",
    "acme/platforms/__init__.py": "",
    "acme/platforms/cuda/__init__.py": "",
    "acme/platforms/cuda/platform.py": "",
    "acme/platforms/npu/__init__.py": "",
    "acme/platforms/npu/platform.py": "",
}

# The layouts of docs/layouts.md: one module per backend, as vllm's and DeepSpeed's, and
# backends as plugins found through a registry.
LAYOUTS = {
    "per-module": {
        "lib/__init__.py": "",
        "lib/engine.py": "from lib.platforms import current_platform\n",
        "lib/models/__init__.py": "",
        "lib/models/llama.py": "",
        "lib/platforms/__init__.py": (
            "import importlib\n\n\n"
            "def current_platform(name):\n"
            '    return importlib.import_module(f"lib.platforms.{name}").Platform()\n'
        ),
        "lib/platforms/interface.py": "class PlatformBase: ...\n",
        "lib/platforms/cuda.py": (
            "from lib.platforms.interface import PlatformBase\n\n\n"
            "class Platform(PlatformBase): ...\n"
        ),
        "lib/platforms/rocm.py": (
            "from lib.platforms.cuda import Platform as CudaPlatform\n\n\n"
            "class Platform(CudaPlatform): ...\n"
        ),
    },
    "registry": {
        "lib/__init__.py": "",
        "lib/engine.py": "from lib.plugins import registry\n",
        "lib/models/__init__.py": "",
        "lib/models/llama.py": "",
        "lib/plugins/__init__.py": "",
        "lib/plugins/registry.py": (
            "import importlib\n\n"
            'PLUGINS = {"cuda": "lib.plugins.cuda.plugin", "npu": "lib.plugins.npu.plugin"}\n\n\n'
            "def load(name):\n"
            "    return importlib.import_module(PLUGINS[name])\n"
        ),
        "lib/plugins/cuda/__init__.py": "",
        "lib/plugins/cuda/plugin.py": "",
        "lib/plugins/cuda/kernels.py": "",
        "lib/plugins/npu/__init__.py": "",
        "lib/plugins/npu/plugin.py": "",
        "lib/plugins/default/__init__.py": "",
        "lib/plugins/default/plugin.py": "",
    },
}

MARKER = re.compile(r"^<!-- (test|untested): ?(.*?) ?-->$")
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


@dataclass
class Block:
    """A fenced block of a document, with the marker before it."""

    document: Path
    line: int  # of the opening fence
    language: str
    text: str
    marker: str | None  # "test" or "untested"
    argument: str  # the tree and options, or the reason

    def __str__(self) -> str:
        return f"{self.document.relative_to(REPO)}:{self.line}"

    @property
    def tree(self) -> str:
        return self.argument.split()[0] if self.argument else ""

    @property
    def options(self) -> dict[str, str]:
        """`key=value` options, and flags (as `flag: ""`)."""
        words = self.argument.split()[1:]
        return dict(word.partition("=")[::2] for word in words)

    @property
    def runtime(self) -> bool:
        return "runtime" in self.options

    @property
    def exit_status(self) -> int:
        return int(self.options.get("exit", "0"))


def blocks_of(document: Path) -> Iterator[Block]:
    lines = document.read_text().splitlines()
    number = 0
    while number < len(lines):
        fence = FENCE.match(lines[number])
        if fence is None:
            number += 1
            continue
        indent, language = fence.groups()
        end = lines.index(f"{indent}```", number + 1)
        text = "\n".join(line.removeprefix(indent) for line in lines[number + 1 : end]) + "\n"
        before = next((line.strip() for line in reversed(lines[:number]) if line.strip()), "")
        marker = MARKER.match(before)
        yield Block(
            document,
            number + 1,
            language,
            text,
            marker[1] if marker else None,
            marker[2] if marker else "",
        )
        number = end + 1


BLOCKS = [block for document in DOCUMENTS for block in blocks_of(document)]


def test_every_block_is_run_or_says_why() -> None:
    unmarked = [
        f"{block}: ```{block.language} without <!-- test: ... --> or <!-- untested: ... -->"
        for block in BLOCKS
        if block.marker is None
    ]
    bad = [
        f"{block}: <!-- {block.marker}: {block.argument} -->"
        for block in BLOCKS
        if (block.marker == "untested" and not block.argument)
        or (block.marker == "test" and block.tree not in SCENARIO_TREES | CHECKED_TREES)
        or block.language not in LANGUAGES
    ]
    assert unmarked + bad == []


def test_the_docs_run_something_on_every_tree() -> None:
    # (So that a marker misspelt everywhere cannot leave a tree's scenario empty.)
    trees = {block.tree for block in BLOCKS if block.marker == "test"}
    assert trees == SCENARIO_TREES | CHECKED_TREES


NAMED_TEST = re.compile(r"`(test_\w+\.py)::(test_\w+)(?:\[([^\]`]+)\])?`")
NAMED = {
    match.groups() for document in DOCUMENTS for match in NAMED_TEST.finditer(document.read_text())
}
NAMED_FILES = {f"tests/{file}" for file, _, _ in NAMED}

# Tests whose every case the evidence page must list: what is not followed, or taken loosely,
# is what a user cannot see otherwise, and each case is a row of the eager-import rules.
LISTED_WHOLE = (
    "test_eager_calls.py::test_forms_documented_as_not_followed_are_not_followed",
    "test_eager_calls.py::test_forms_taken_loosely_report_more_than_python_loads",
)


@pytest.fixture(scope="module")
def collected() -> list[str]:
    """Return the lines of `pytest --collect-only -q` on the test files the docs name and
    those of LISTED_WHOLE: one collection, for the tests below."""
    listed = {f"tests/{test.partition('::')[0]}" for test in LISTED_WHOLE}
    # (Collecting asserts nothing: the modules are imported as they are, not rewritten.)
    return pytest_lines("--collect-only", "--assert=plain", *sorted(NAMED_FILES | listed))


def test_the_tests_the_docs_name_exist(collected: list[str]) -> None:
    ids = {line.split("::", 1)[1] for line in collected if line.partition("::")[0] in NAMED_FILES}
    missing = []
    for file, function, case in sorted(NAMED, key=str):
        cases = {i.partition("[")[2].rstrip("]") for i in ids if i.startswith(function + "[")}
        if case is None:
            found = function in ids or bool(cases)
        else:
            # A fixture's parameters come first (`[ast-if]`): the case is the last part.
            found = any(c == case or c.endswith(f"-{case}") for c in cases)
        if not found:
            missing.append(f"{file}::{function}" + (f"[{case}]" if case else ""))
    assert missing == []


@pytest.mark.parametrize("test", LISTED_WHOLE)
def test_the_rules_list_every_form_not_followed_or_taken_loosely(
    test: str, collected: list[str]
) -> None:
    cases = [line for line in collected if line.partition("[")[0] == f"tests/{test}"]
    assert cases
    evidence = (REPO / "docs" / "evidence.md").read_text()
    assert [case for case in cases if f"`{case.removeprefix('tests/')}`" not in evidence] == []


# Pages for contributors, which may name tests; the user pages say the rules in sentences.
NAMING_TESTS = {"contributing.md", "reliability.md", "evidence.md"}
TEST_NAME = re.compile(r"test_\w+\.py|::test_\w+")


@pytest.mark.parametrize(
    "document",
    [document for document in DOCUMENTS if document.name not in NAMING_TESTS],
    ids=lambda path: str(path.relative_to(REPO)),
)
def test_a_user_page_names_no_test(document: Path) -> None:
    # HTML comments, which the site does not show, may: the docs tests' markers say why.
    visible = re.sub(r"<!--.*?-->", "", document.read_text(), flags=re.S)
    named = [
        f"{number}: {match}"
        for number, line in enumerate(visible.splitlines(), 1)
        for match in TEST_NAME.findall(line)
    ]
    assert named == []


def checked(tree_name: str) -> list[Block]:
    return [block for block in BLOCKS if block.marker == "test" and block.tree == tree_name]


def commands_of(block: Block) -> list[str]:
    return [line[2:] for line in block.text.splitlines() if line.startswith("$ ")]


@pytest.mark.parametrize("block", checked("ci"), ids=str)
def test_ci_runs_the_commands_shown(block: Block) -> None:
    ci = {line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()}
    assert [command for command in commands_of(block) if command not in ci] == []


@pytest.mark.parametrize("block", checked("install"), ids=str)
def test_the_install_command_names_the_repository_and_the_version_tag(block: Block) -> None:
    assert commands_of(block) == [f'pip install "{REQUIREMENT}"']


def options_of(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def help_of(command: tuple[str, ...]) -> str:
    """Return what `COMMAND --help` prints: for the console script, its click command's help,
    made in this process (a process of its own would only start Python); for a tool, the
    tool's, run by this Python."""
    if command[0] == "importlinter-contracts":
        # As wide as in a pipe: 80 columns (shutil.get_terminal_size's), less the 2 that
        # click leaves; CliRunner would make it 80.
        helped = CliRunner().invoke(
            main,
            [*command[1:], "--help"],
            prog_name=command[0],
            terminal_width=78,
            catch_exceptions=False,
        )
        assert helped.exit_code == 0, helped.output
        return helped.output
    return subprocess.run(
        [sys.executable, str(REPO / command[1]), "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize("block", checked("synopsis"), ids=str)
def test_a_synopsis_has_the_options_of_the_command(block: Block) -> None:
    # Each usage on a line of its own, going on on indented lines; a command may have several.
    usages: dict[tuple[str, ...], set[str]] = {}
    for line in block.text.splitlines():
        if not line.startswith(" "):
            words = shlex.split(line)
            if words[0] == "importlinter-contracts":
                sub = () if words[1].startswith("--") else (words[1],)
                command: tuple[str, ...] = (words[0], *sub)
            else:
                command = (words[0], words[1])
            usages.setdefault(command, set())
        usages[command] |= options_of(line)
    for command, shown in usages.items():
        # --config FILE is written as CONFIG_FILE; --help, as always, left out.
        assert shown == options_of(help_of(command)) - {"--help", "--config"}, " ".join(command)


# The scenarios.


def scenarios() -> Iterator[object]:
    groups: dict[tuple[str, str, bool, str], list[Block]] = {}
    for block in BLOCKS:
        if block.marker == "test" and block.tree in SCENARIO_TREES:
            separate = block.options.get("scenario", "")
            key = (str(block.document.relative_to(REPO)), block.tree, block.runtime, separate)
            groups.setdefault(key, []).append(block)
    for (document, tree_name, runtime, separate), blocks in groups.items():
        marks = [pytest.mark.real_tree] if tree_name in REAL_TREES or runtime else []
        name = ":".join(
            [
                document,
                tree_name,
                *(["runtime"] if runtime else []),
                *([separate] if separate else []),
            ]
        )
        yield pytest.param(tree_name, runtime, blocks, marks=marks, id=name)


@dataclass
class Scenario:
    folder: Path
    env: dict[str, str]
    # Before the command that checks a configuration block: where the package is found.
    check_prefix: str = ""

    def run(self, command: str, block: Block) -> str:
        completed = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command],
            cwd=self.folder,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
            timeout=900,
        )
        assert completed.returncode == block.exit_status, (
            f"{block}: `{command}` exited with {completed.returncode}, not "
            f"{block.exit_status}:\n{completed.stdout}"
        )
        return completed.stdout


def environment(*scripts: Path) -> dict[str, str]:
    """The environment of the commands: a shell's, with SCRIPTS first on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(
        PATH=os.pathsep.join([*map(str, scripts), env["PATH"]]),
        COLUMNS="80",
        PYTHONUNBUFFERED="1",
    )
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CommandServer]:
    """The server whose console script runs the scenarios' `importlinter-contracts`, each run
    a process of its own, in the commands' environment."""
    started = CommandServer(
        tmp_path_factory.mktemp("command-server"), environment(Path(sys.executable).parent)
    )
    yield started
    started.close()


def set_up(tree_name: str, runtime: bool, folder: Path, server: CommandServer) -> Scenario:
    if runtime:
        venv = runtime_environment()
        if venv is None:
            pytest.skip(
                "the runtime environment is not prepared (python3 tools/vllm_omni_tree.py runtime)"
            )
        env = environment(venv / "bin")
    else:
        # This package's: the console script of the server first.
        env = environment(server.scripts, Path(sys.executable).parent)
    if tree_name == "repository":
        return Scenario(REPO, env)
    if tree_name == "vllm-omni":
        shutil.copytree(tree(NEWEST) / "vllm_omni", folder / "vllm_omni")
        shutil.copy(REPO / ".importlinter", folder / ".importlinter")
        return Scenario(folder, env)
    if tree_name == "empty":
        return Scenario(folder, env)
    prefix = "src/" if tree_name == "acme-src" else ""
    for name, text in LAYOUTS.get(tree_name, ACME).items():
        (folder / prefix / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / prefix / name).write_text(text)
    return Scenario(folder, env, "PYTHONPATH=src " if prefix else "")


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the lines match, a `...` line standing for any lines."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[start:]) for start in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def run_console(scenario: Scenario, block: Block) -> None:
    steps: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line.rstrip())
    for command, expected in steps:
        output = scenario.run(command, block).strip("\n").splitlines()
        output = [line.rstrip() for line in output]
        while expected and not expected[-1]:
            expected.pop()
        if expected:
            assert matches(expected, output), f"{block}: `{command}` printed:\n" + "\n".join(output)


SECTION = re.compile(r"^\[(.+)\]\s*$", re.M)


def sections(text: str) -> dict[str, str]:
    """The sections of an INI text, each with its text (the text before the first, under "")."""
    starts = [(m.start(), m[1]) for m in SECTION.finditer(text)]
    found = {"": text[: starts[0][0]] if starts else text}
    for (start, name), (end, _) in zip(starts, [*starts[1:], (len(text), "")], strict=True):
        found[name] = text[start:end].rstrip("\n") + "\n\n"
    return found


def run_ini(scenario: Scenario, block: Block) -> None:
    path = scenario.folder / ".importlinter"
    config = sections(path.read_text()) if path.exists() else {"": ""}
    shown = sections(block.text)
    del shown[""]
    config.update(shown)
    path.write_text("".join(config.values()).rstrip("\n") + "\n")
    contracts = [
        f"--contract {name.removeprefix('importlinter:contract:')}"
        for name in shown
        if name.startswith("importlinter:contract:")
    ]
    check = ["importlinter-contracts check .importlinter", *contracts]
    scenario.run(scenario.check_prefix + " ".join(check), block)


def run_python(scenario: Scenario, block: Block) -> None:
    if "file" in block.options:
        path = scenario.folder / block.options["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        before = path.read_text() if path.exists() else ""
        if "prepend" in block.options:
            path.write_text(block.text + before)
        elif "append" in block.options:
            path.write_text(before + block.text)
        else:
            path.write_text(block.text)
        return
    assert block.text.startswith(">>> "), f"{block}: a python block needs file= or >>>"
    doctest_run = subprocess.run(
        [sys.executable, "-c", DOCTEST],
        input=block.text,
        cwd=scenario.folder,
        env=scenario.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert doctest_run.returncode == 0, f"{block}:\n{doctest_run.stdout}{doctest_run.stderr}"


DOCTEST = f"""\
import doctest, sys
test = doctest.DocTestParser().get_doctest(sys.stdin.read(), {{}}, "docs", None, 0)
runner = doctest.DocTestRunner(optionflags={doctest.ELLIPSIS})
runner.run(test)
sys.exit(1 if runner.failures else 0)
"""


def run_yaml(scenario: Scenario, block: Block) -> None:
    data = yaml.safe_load(block.text)
    if isinstance(data, dict) and "repos" in data:
        hooks = {
            hook["id"]: hook
            for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
        }
        for repo in data["repos"]:
            for hook in repo["hooks"]:
                if repo["repo"] == "local":
                    assert hook["additional_dependencies"] == [REQUIREMENT], block
                    entry = hook["entry"]
                else:
                    assert (repo["repo"], repo["rev"]) == (URL, TAG), block
                    entry = hooks[hook["id"]]["entry"]
                scenario.run(entry, block)
        return
    steps = (
        [step for job in data["jobs"].values() for step in job["steps"]]
        if isinstance(data, dict)
        else data
    )
    ran = 0
    for step in steps:
        command = step.get("run", "")
        if command.startswith("pip install") and "importlinter-contracts" in command:
            assert shlex.split(command)[2:] == [REQUIREMENT], f"{block}: {command}"
        elif command.startswith("importlinter-contracts"):
            scenario.run(command, block)
            ran += 1
    assert ran, f"{block}: no importlinter-contracts command in it"


def run_toml(scenario: Scenario, block: Block) -> None:
    (scenario.folder / "pyproject.toml").write_text(block.text)
    scenario.run(f"{scenario.check_prefix}importlinter-contracts check pyproject.toml", block)


RUNNERS = {
    "console": run_console,
    "ini": run_ini,
    "toml": run_toml,
    "python": run_python,
    "yaml": run_yaml,
}


@pytest.mark.parametrize(("tree_name", "runtime", "blocks"), list(scenarios()))
def test_what_the_docs_show_runs_as_shown(
    tree_name: str, runtime: bool, blocks: list[Block], tmp_path: Path, server: CommandServer
) -> None:
    scenario = set_up(tree_name, runtime, tmp_path, server)
    for block in blocks:
        RUNNERS[block.language](scenario, block)


# The options the configuration page lists: every one the code reads, and no other. What
# the code reads is found in it: the contract classes' fields, and the keys looked up in a
# `session_options` mapping, here and in the functions of import-linter that this package
# calls (reading its configuration, building its graph).

CONFIGURATION = REPO / "docs" / "configuration.md"
OPTION_ROW = re.compile(r"^\| `(\w+)` \|", re.M)
REGISTERED = re.compile(r"`\w+: importlinter_contracts\.(\w+)`")


def configuration_sections() -> dict[str, str]:
    """The `## ` sections of the configuration page, by heading."""
    parts = re.split(r"^## ", CONFIGURATION.read_text(), flags=re.M)[1:]
    return {part.partition("\n")[0]: part for part in parts}


def listed_options(section: str) -> set[str]:
    """The options a section lists: the first cell of each row of its table."""
    return set(OPTION_ROW.findall(section))


def _is_session_options(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name.endswith("session_options")


def session_keys_read(tree: ast.Module) -> tuple[set[str], dict[str, set[str]]]:
    """The keys a module's code looks up in a `session_options` mapping (`s["k"]`,
    `s.get("k")`, `"k" in s`, and `s.get(key)` for each `key` of a loop over a module-level
    tuple of strings), and the names each of its functions calls."""
    tuples: dict[str, set[str]] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Tuple | ast.List):
            strings = {
                element.value
                for element in statement.value.elts
                if isinstance(element, ast.Constant) and isinstance(element.value, str)
            }
            if len(strings) == len(statement.value.elts):
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        tuples[target.id] = strings
    loops = {
        node.target.id: tuples[node.iter.id]
        for node in ast.walk(tree)
        if isinstance(node, ast.comprehension | ast.For)
        and isinstance(node.target, ast.Name)
        and isinstance(node.iter, ast.Name)
        and node.iter.id in tuples
    }

    def keys_of(key: ast.expr) -> set[str]:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return {key.value}
        return loops.get(key.id, set()) if isinstance(key, ast.Name) else set()

    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_session_options(node.value):
            keys |= keys_of(node.slice)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and _is_session_options(node.func.value)
            and node.args
        ):
            keys |= keys_of(node.args[0])
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is_session_options(node.comparators[0])
        ):
            keys |= keys_of(node.left)
    calls = {
        function.name: {
            node.func.id
            for node in ast.walk(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
    }
    return keys, calls


def session_options_read() -> set[str]:
    """The `[importlinter]` options that this package reads, and those that the functions of
    import-linter's use cases it calls read (following their calls within that module)."""
    read: set[str] = set()
    package = Path(importlinter_contracts.__file__).parent
    for path in package.rglob("*.py"):
        read |= session_keys_read(ast.parse(path.read_text()))[0]
    from importlinter.application import use_cases

    source = ast.parse(Path(use_cases.__file__).read_text())
    called = {
        node.attr
        for node in ast.walk(ast.parse((package / "_importlinter.py").read_text()))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "_use_cases"
    }
    functions = {
        function.name: function for function in source.body if isinstance(function, ast.FunctionDef)
    }
    seen: set[str] = set()
    while called - seen:
        name = (called - seen).pop()
        seen.add(name)
        if name in functions:
            keys, calls = session_keys_read(ast.Module([functions[name]], []))
            read |= keys
            called |= calls[name]
    return read


def test_the_configuration_page_lists_every_option_of_the_importlinter_section() -> None:
    accepted = {*configuration.IMPORTLINTER_KEYS, *configuration.OWN_KEYS}
    # The keys the code accepts are those it reads, and those the page lists.
    assert session_options_read() <= accepted
    assert listed_options(configuration_sections()["The `[importlinter]` section"]) == accepted


def test_the_configuration_page_lists_every_option_of_each_contract_type() -> None:
    sections = configuration_sections()
    assert listed_options(sections["Every contract"]) == COMMON_CONTRACT_OPTIONS
    listed = {
        registered[1]: listed_options(section)
        for section in sections.values()
        if (registered := REGISTERED.search(section))
    }
    accepted = {
        name: set(getattr(importlinter_contracts, name)._get_field_names())
        for name in importlinter_contracts.__all__
        if name.endswith("Contract")
    }
    assert listed == accepted
