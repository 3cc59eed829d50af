"""Finding and editing `ignore_imports` entries in INI and TOML text, byte for byte."""

from __future__ import annotations

import re

import pytest

from importlinter_contracts.allowlist.config_text import (
    AllowlistEdit,
    edit_allowlists,
    entry_lines,
)
from importlinter_contracts.errors import ConfigurationEditError


def edit_allowlist(
    text: str, contract_id: str, toml: bool, remove: set[str], add: list[str]
) -> str:
    """`text` with `ignore_imports` of one contract edited as `allowlist --write` does."""
    new = tuple(f"{expression}  # TODO: reason" for expression in add)
    edit = AllowlistEdit(contract_id, "ignore_imports", frozenset(remove), new)
    return edit_allowlists(text, toml, [edit])


INI = """\
; vllm-omni boundary
[importlinter]
root_package = pkg

[importlinter:contract:r2]
name   =   Backends are private   ; odd spacing stays
type = backend_isolation
ignore_imports =
\tpkg.a -> pkg.platforms.npu.x   #  NPU group 1
    # a comment inside the list stays
    pkg.b->pkg.platforms.npu.y

    pkg.c -> pkg.platforms.xpu  # XPU
container = pkg.platforms

[importlinter:contract:other]
name = Other
type = backend_isolation
ignore_imports =
    pkg.a -> pkg.platforms.npu.x  # NPU group 1
"""


def test_ini_entries_are_found_with_their_lines() -> None:
    entries = [
        "pkg.a -> pkg.platforms.npu.x # NPU group 1",
        "pkg.b->pkg.platforms.npu.y",
        "pkg.c -> pkg.platforms.xpu # XPU",
        "pkg.z -> pkg.platforms.xpu",
    ]
    assert entry_lines(INI, False, "r2", "ignore_imports", entries) == {
        "pkg.a -> pkg.platforms.npu.x # NPU group 1": 9,
        "pkg.b->pkg.platforms.npu.y": 11,
        "pkg.c -> pkg.platforms.xpu # XPU": 13,
    }


def test_ini_round_trip_without_changes_is_identical() -> None:
    assert edit_allowlist(INI, "r2", False, set(), []) == INI


def test_ini_edit_removes_and_adds_only_the_entries_concerned() -> None:
    edited = edit_allowlist(
        INI, "r2", False, {"pkg.b->pkg.platforms.npu.y"}, ["pkg.d -> pkg.platforms.npu.z"]
    )
    assert edited == INI.replace("    pkg.b->pkg.platforms.npu.y\n", "").replace(
        "    pkg.c -> pkg.platforms.xpu  # XPU\n",
        "    pkg.c -> pkg.platforms.xpu  # XPU\n\tpkg.d -> pkg.platforms.npu.z  # TODO: reason\n",
    )


def test_ini_entry_on_the_key_line_and_crlf_and_no_final_newline() -> None:
    text = (
        "[importlinter:contract:r2]\r\nname = R2\r\nignore_imports = pkg.a -> pkg.b  # why\r\nx = 1"
    )
    assert entry_lines(text, False, "r2", "ignore_imports", ["pkg.a -> pkg.b # why"]) == {
        "pkg.a -> pkg.b # why": 3
    }
    assert edit_allowlist(text, "r2", False, {"pkg.a -> pkg.b # why"}, ["pkg.c -> pkg.d"]) == (
        "[importlinter:contract:r2]\r\nname = R2\r\nignore_imports =\r\n"
        "    pkg.c -> pkg.d  # TODO: reason\r\nx = 1"
    )


def test_ini_without_ignore_imports_gets_the_key_at_the_end_of_the_section() -> None:
    text = "[importlinter:contract:r2]\nname = R2\n\n\n[importlinter:contract:next]\nname = N\n"
    assert edit_allowlist(text, "r2", False, set(), ["pkg.a -> pkg.b", "pkg.c -> pkg.d"]) == (
        "[importlinter:contract:r2]\nname = R2\nignore_imports =\n"
        "    pkg.a -> pkg.b  # TODO: reason\n    pkg.c -> pkg.d  # TODO: reason\n"
        "\n\n[importlinter:contract:next]\nname = N\n"
    )


def test_ini_without_final_newline_after_the_last_entry() -> None:
    text = "[importlinter:contract:r2]\nignore_imports =\n    pkg.a -> pkg.b"
    assert edit_allowlist(text, "r2", False, set(), ["pkg.c -> pkg.d"]) == (
        "[importlinter:contract:r2]\nignore_imports =\n    pkg.a -> pkg.b\n"
        "    pkg.c -> pkg.d  # TODO: reason"
    )


TOML = """\
[tool.importlinter]
root_packages = ["pkg"]   # the root

[[tool.importlinter.contracts]]
id = "other"
ignore_imports = ["pkg.a -> pkg.platforms.npu.x # NPU"]

[[tool.importlinter.contracts]]
name = "Backends are private"
id = "r2"
type = "backend_isolation"
ignore_imports = [
  # keep this comment
  "pkg.a -> pkg.platforms.npu.x  # NPU group 1",
  'pkg.b -> pkg.platforms.npu.y',   # trailing comment
      "pkg.c -> pkg.platforms.xpu  # XPU \\u00e9",
]
container = "pkg.platforms"
"""


def test_toml_entries_are_found_with_their_lines() -> None:
    entries = [
        "pkg.a -> pkg.platforms.npu.x # NPU group 1",
        "pkg.b -> pkg.platforms.npu.y",
        "pkg.c -> pkg.platforms.xpu # XPU \u00e9",
        "pkg.z -> pkg.platforms.xpu",
    ]
    assert entry_lines(TOML, True, "r2", "ignore_imports", entries) == {
        "pkg.a -> pkg.platforms.npu.x # NPU group 1": 14,
        "pkg.b -> pkg.platforms.npu.y": 15,
        "pkg.c -> pkg.platforms.xpu # XPU \u00e9": 16,
    }


def test_toml_edit_removes_and_adds_only_the_entries_concerned() -> None:
    edited = edit_allowlist(
        TOML, "r2", True, {"pkg.b -> pkg.platforms.npu.y"}, ["pkg.d -> pkg.platforms.npu.z"]
    )
    assert edited == TOML.replace(
        "  'pkg.b -> pkg.platforms.npu.y',   # trailing comment\n", ""
    ).replace(
        '      "pkg.c -> pkg.platforms.xpu  # XPU \\u00e9",\n]',
        '      "pkg.c -> pkg.platforms.xpu  # XPU \\u00e9",\n  "pkg.d -> pkg.platforms.npu.z  # TODO: reason",\n]',
    )


def test_toml_inline_list_and_missing_list() -> None:
    assert edit_allowlist(TOML, "other", True, set(), ["pkg.e -> pkg.f"]) == TOML.replace(
        'ignore_imports = ["pkg.a -> pkg.platforms.npu.x # NPU"]',
        'ignore_imports = ["pkg.a -> pkg.platforms.npu.x # NPU", "pkg.e -> pkg.f  # TODO: reason"]',
    )
    text = '[[tool.importlinter.contracts]]\nid = "r2"\nname = "R2"\n\n[tool.other]\n'
    assert edit_allowlist(text, "r2", True, set(), ["pkg.a -> pkg.b"]) == (
        '[[tool.importlinter.contracts]]\nid = "r2"\nname = "R2"\n'
        'ignore_imports = [\n    "pkg.a -> pkg.b  # TODO: reason",\n]\n\n[tool.other]\n'
    )


def test_unknown_contract_is_an_error() -> None:
    with pytest.raises(
        ConfigurationEditError, match=r"^no section \[importlinter:contract:nope\]$"
    ):
        edit_allowlist(INI, "nope", False, set(), ["pkg.a -> pkg.b"])
    with pytest.raises(
        ConfigurationEditError,
        match="^" + re.escape("no [[tool.importlinter.contracts]] table with id = 'nope'") + "$",
    ):
        edit_allowlist(TOML, "nope", True, set(), ["pkg.a -> pkg.b"])
