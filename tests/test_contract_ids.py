"""One lookup of `--contract` ids for every command: an id that no contract has is an error
that names the nearest id and every id, never a run that checks nothing and passes."""

from __future__ import annotations

import json

import pytest
from test_review import committed

from helpers import Project, run_cli

IDS = "its ids: layers, r2, r4."


@pytest.mark.parametrize(
    "command",
    [
        ["check"],
        ["check", "--static"],
        ["allowlist"],
        ["allowlist", "--write"],
        ["review", "--base", "HEAD"],
    ],
)
@pytest.mark.parametrize(
    ("asked", "message"),
    [
        (
            "r44",
            "--contract r44: no contract of .importlinter has this id (did you mean 'r4'?); " + IDS,
        ),
        ("nope", "--contract nope: no contract of .importlinter has this id; " + IDS),
        (
            "other.ini:r4",
            "--contract other.ini:r4: the configuration read is .importlinter, not other.ini; "
            + IDS,
        ),
    ],
    ids=["near", "far", "other-file"],
)
def test_an_unknown_id_is_an_error_in_every_command(
    project: Project, command: list[str], asked: str, message: str
) -> None:
    committed(project)
    before = (project.root / ".importlinter").read_bytes()
    result = run_cli(*command, "--no-cache", "--contract", "r2", "--contract", asked)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"importlinter-contracts: {message}\n"
    assert (project.root / ".importlinter").read_bytes() == before


@pytest.mark.parametrize("command", [["check"], ["allowlist"], ["review", "--base", "HEAD"]])
def test_an_id_after_the_configurations_file_name_is_that_id(
    project: Project, command: list[str]
) -> None:
    committed(project)
    by_id = run_cli(*command, "--no-cache", "--contract", "r4")
    by_file = run_cli(*command, "--no-cache", "--contract", f"{project.root}/.importlinter:r4")
    assert by_id.exit_code in (0, 1), by_id.output
    assert (by_file.exit_code, by_file.stdout) == (by_id.exit_code, by_id.stdout)


def test_review_takes_the_id_of_a_contract_the_change_removed(project: Project) -> None:
    committed(project)
    text = (project.root / ".importlinter").read_text()
    (project.root / ".importlinter").write_text(text.split("[importlinter:contract:layers]")[0])
    result = run_cli("review", "--base", "HEAD", "--no-cache", "--contract", "layers")
    assert result.exit_code == 1, result.output
    assert (
        "| Built-in (`layers`) | `pkg.platforms.cuda.platform -> pkg.models (l.1)` | contract removed |"
        in result.stdout
    )
    result = run_cli("review", "--base", "HEAD", "--no-cache", "--contract", "layer")
    assert result.stderr == (
        "importlinter-contracts: --contract layer: no contract of .importlinter has this id "
        "(did you mean 'layers'?); its ids: layers, r2, r4.\n"
    )


def test_a_configuration_without_ids_says_so(project: Project) -> None:
    project.write({"pkg/a.py": ""})
    (project.root / "pyproject.toml").write_text(
        '[tool.importlinter]\nroot_package = "pkg"\n\n[[tool.importlinter.contracts]]\n'
        'name = "F"\ntype = "forbidden"\nsource_modules = ["pkg.a"]\nforbidden_modules = ["pkg"]\n'
    )
    result = run_cli("check", "--no-cache", "--contract", "f")
    assert (result.exit_code, result.stderr) == (
        2,
        "importlinter-contracts: --contract f: no contract of pyproject.toml has an id; give "
        "the contracts to select ids (id = ...).\n",
    )


def test_history_shows_the_contracts_asked_for_and_refuses_an_unknown_id(
    project: Project,
) -> None:
    committed(project)
    result = run_cli("review", "--history", "HEAD", "--format", "json", "--contract", "r2")
    assert result.exit_code == 0, result.output
    (point,) = json.loads(result.stdout)
    assert point["entries"] == {"r2": 2}
    result = run_cli("review", "--history", "HEAD", "--contract", "r22")
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "importlinter-contracts: --contract r22: no contract of .importlinter has this id "
        "(did you mean 'r2'?); its ids: layers, r2, r4.\n"
    )
