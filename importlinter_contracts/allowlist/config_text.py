"""A contract's allowlist in the configuration text: where its entries stand, and edits that
change those entries and no other byte.

TOML files (`pyproject.toml`) are edited through tomlkit, which keeps the text's layout; only
the lines it changed are taken into the original text, so that what tomlkit would re-render
elsewhere (a spaced table header, say) stays as written. INI files (`.importlinter`,
`setup.cfg`) are edited line by line, with configparser's own rule for what continues a value
(a line indented deeper than its key, even one that looks like `[a section]`). Every edit is
read back as import-linter reads the file (tomllib; configparser) and must give exactly the
intended lists, every other value unchanged; otherwise it is refused.
"""

from __future__ import annotations

import configparser
import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

from ..configuration import ini_values, toml_values
from ..errors import ConfigurationEditError
from .entries import entry_text


@dataclass(frozen=True)
class AllowlistEdit:
    """One contract's allowlist option: the entries to remove, and those to append."""

    contract_id: str
    option: str
    remove: frozenset[str]  # entries as `entry_text` gives them
    add: tuple[str, ...]  # new entries, as they are to be written


def edit_allowlists(text: str, toml: bool, edits: Sequence[AllowlistEdit]) -> str:
    """Return `text` with the edits made, every byte outside the edited lists as it was.

    Raises ConfigurationEditError when an edit cannot be made, or when the new text would not
    read back, as import-linter reads it, with exactly the intended lists and every other
    value unchanged.
    """
    edited = text
    for edit in edits:
        edited = _edit(edited, toml, edit)
    (_check_toml if toml else _check_ini)(text, edited, edits)
    return edited


def entry_lines(
    text: str, toml: bool, contract_id: str, option: str, entries: Iterable[str]
) -> dict[str, int]:
    """Return the 1-based line of each of these entries (as `entry_text` gives them) in the text:
    the first line that replacing the entry changes. Entries not found are left out."""
    lines = {}
    for entry in entries:
        removal = AllowlistEdit(contract_id, option, frozenset({entry}), ())
        try:
            if _edit(text, toml, removal) == text:
                continue
            # Replaced, not removed: the last entry removed takes its option, whose key would
            # be the first line to change.
            edited = _edit(text, toml, replace(removal, add=("-",)))
        except ConfigurationEditError:
            return {}
        before, after = _lines(text), _lines(edited)
        changed = next(
            (i for i, (old, new) in enumerate(zip(before, after, strict=False)) if old != new),
            None if len(before) == len(after) else min(len(before), len(after)),
        )
        if changed is not None:
            lines[entry] = changed + 1
    return lines


def _edit(text: str, toml: bool, edit: AllowlistEdit) -> str:
    edited = (_edit_toml if toml else _edit_ini)(text, edit)
    if text and not _ending(_lines(text)[-1]):
        # The file had no final line break: it still has none.
        last = _lines(edited)[-1] if edited else ""
        edited = edited[: len(edited) - len(_ending(last))]
    return edited


# Lines, as import-linter reads them: it opens the file with universal newlines.

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _lines(text: str) -> list[str]:
    """The lines of `text`, each with its line break (the last one may have none)."""
    return _LINE.findall(text)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _neighbour_ending(lines: Sequence[str], start: int, end: int) -> str:
    """The line break of the lines around `lines[start:end]`: the one above, those replaced,
    then the one below."""
    around = [*lines[max(start - 1, 0) : start], *lines[start:end], *lines[end : end + 1]]
    return next((_ending(line) for line in around if _ending(line)), "\n")


# TOML


def _edit_toml(text: str, edit: AllowlistEdit) -> str:
    try:
        document = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise ConfigurationEditError(f"tomlkit cannot read the file: {error}") from None
    rendered = document.as_string()
    table = _toml_contract(document, edit.contract_id)
    values = table.get(edit.option)
    if values is None or isinstance(values, tomlkit.items.String):
        # import-linter reads a string as a list of that one entry: it becomes that list,
        # the string kept as written unless it is removed, the comment after it kept too.
        kept = [] if values is None or entry_text(values) in edit.remove else [values]
        if not kept and not edit.add:
            if values is None:
                return text
            _remove_option(table, edit.option)  # an empty list would be a configuration error
            return _merge(text, rendered, document.as_string())
        array = tomlkit.array()
        array.extend([*kept, *edit.add])
        # An inline table must stay on one line; a table gets one entry a line.
        array.multiline(bool(kept or edit.add) and not isinstance(table, tomlkit.items.InlineTable))
        if values is not None:
            array.trivia.comment_ws = values.trivia.comment_ws
            array.trivia.comment = values.trivia.comment
            table[edit.option] = array
        else:
            _add_before_closing_comments(table, edit.option, array)
    elif not isinstance(values, tomlkit.items.Array):
        raise ConfigurationEditError(
            f"{edit.option} of contract '{edit.contract_id}' is not a list of strings"
        )
    else:
        for index in reversed(range(len(values))):
            if isinstance(values[index], str) and entry_text(values[index]) in edit.remove:
                del values[index]
        if not values and not edit.add:
            # An empty list would be a configuration error: the option goes, and with it the
            # comments inside its brackets, which can annotate no entry now.
            _remove_option(table, edit.option)
            return _merge(text, rendered, document.as_string())
        layout = values.as_string()
        if "\n" in layout:
            indent = _toml_item_indent(layout)
            for entry in edit.add:
                values.add_line(entry, indent=indent)
        else:
            values.extend(edit.add)
    return _merge(text, rendered, document.as_string())


def _toml_contract(document: tomlkit.TOMLDocument, contract_id: str) -> Any:
    """The table (or inline table) of `tool.importlinter.contracts` with this id."""
    tool = document.get("tool")
    importlinter = tool.get("importlinter") if isinstance(tool, Mapping) else None
    contracts = importlinter.get("contracts") if isinstance(importlinter, Mapping) else None
    found = [
        table
        for table in (contracts if isinstance(contracts, list) else [])
        if isinstance(table, Mapping) and table.get("id") == contract_id
    ]
    if not found:
        raise ConfigurationEditError(
            f"no [[tool.importlinter.contracts]] table with id = {contract_id!r}"
        )
    if len(found) > 1:
        raise ConfigurationEditError(f"more than one contract has id = {contract_id!r}")
    return found[0]


def _add_before_closing_comments(table: Any, option: str, value: Any) -> None:
    """Add the option to the table after its last value, as the INI edit does: the comments
    and blank lines that end a table introduce what follows it (`# Ruff settings` above
    `[tool.ruff]`), and tomlkit would add it after them."""
    if isinstance(table, tomlkit.items.InlineTable):
        table[option] = value
        return
    body = table.value.body  # tomlkit's own list: the (key, item) pairs in order
    start = len(body)
    while start and isinstance(
        body[start - 1][1], tomlkit.items.Whitespace | tomlkit.items.Comment
    ):
        start -= 1
    closing = body[start:]
    del body[start:]
    table[option] = value
    body.extend(closing)


def _remove_option(table: Any, option: str) -> None:
    """Remove the option from the table; from an inline table with the comma and space that
    set it off, which tomlkit would leave (`{id = "r2", name = "R2" }`)."""
    if not isinstance(table, tomlkit.items.InlineTable):
        del table[option]
        return
    body = table.value.body  # tomlkit's own list: the (key, item) pairs in order
    (index,) = [i for i, (key, _) in enumerate(body) if key is not None and key.key == option]
    start, end = index, index + 1
    while start and body[start - 1][0] is None:  # the separator after the key before
        start -= 1
    if start == 0:  # the first key: the separator after it goes instead
        start = index
        while end < len(body) and body[end][0] is None and any(k for k, _ in body[end:]):
            end += 1
    del body[start:end]


def _toml_item_indent(layout: str) -> str:
    """The indent of a multi-line array's entries: its first string's, else one level more
    than its closing bracket's."""
    if item := re.search(r"\n([ \t]*)[\"']", layout):
        return item.group(1)
    closing = re.search(r"\n([ \t]*)\]$", layout)
    return (closing.group(1) if closing else "") + "    "


def _merge(original: str, rendered: str, edited: str) -> str:
    """`original` with the lines that differ between `rendered` (tomlkit's rendering of the
    original) and `edited` (its rendering after the edit) replaced, each new line ending as
    its neighbours do."""
    ours, base, theirs = _lines(original), _lines(rendered), _lines(edited)
    if len(ours) != len(base):
        raise ConfigurationEditError("tomlkit would change the file's line structure")
    merged: list[str] = []
    matcher = difflib.SequenceMatcher(None, base, theirs, autojunk=False)
    for operation, start, end, new_start, new_end in matcher.get_opcodes():
        if operation == "equal":
            merged += ours[start:end]
            continue
        if [line.rstrip("\r\n") for line in base[start:end]] != [
            line.rstrip("\r\n") for line in ours[start:end]
        ]:
            raise ConfigurationEditError("the list stands on a line that tomlkit rewrites")
        ending = _neighbour_ending(ours, start, end)
        merged += [
            line.rstrip("\r\n") + ending if _ending(line) else line
            for line in theirs[new_start:new_end]
        ]
    return "".join(merged)


def _check_toml(original: str, edited: str, edits: Sequence[AllowlistEdit]) -> None:
    expected = toml_values(original)
    try:
        found = toml_values(edited)
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationEditError(f"the edited file would not parse ({error})") from None
    for edit in edits:
        (table,) = [
            contract
            for contract in expected["tool"]["importlinter"]["contracts"]
            if contract.get("id") == edit.contract_id
        ]
        written = table.get(edit.option, [])
        intended = _intended([written] if isinstance(written, str) else written, edit)
        _set_list(table, edit.option, intended)
    if found != expected:
        raise ConfigurationEditError(_mismatch(edits))


# INI


@dataclass(frozen=True)
class _IniLine:
    """A line as configparser reads it: what it is, and the section and option it is in."""

    text: str  # with its line break
    kind: str  # "header", "key", "continuation", "comment", "blank" or "other"
    section: str | None
    option: str | None  # the option this line starts or continues
    value_start: int = 0  # on a key line: where its value begins

    @property
    def value(self) -> str:
        """The value on a key or continuation line, as configparser takes it."""
        return self.text[self.value_start :].strip()

    @property
    def indent(self) -> str:
        return self.text[: len(self.text) - len(self.text.lstrip())]


_COMMENT_PREFIXES = ("#", ";")  # ConfigParser's defaults, which import-linter keeps


def _ini_lines(text: str) -> list[_IniLine]:
    """Every line, classified as `configparser.ConfigParser()` reads it: a line indented
    deeper than the key before it continues that key's value, whatever it looks like;
    comment lines and blank lines do not end a value."""
    lines = []
    section = option = None
    key_indent = 0
    for line in _lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(_COMMENT_PREFIXES):
            kind = "blank" if not stripped else "comment"
            lines.append(_IniLine(line, kind, section, option))
            continue
        indent = len(line) - len(line.lstrip())
        if section is not None and option is not None and indent > key_indent:
            lines.append(_IniLine(line, "continuation", section, option))
            continue
        key_indent = indent
        if header := configparser.ConfigParser.SECTCRE.match(stripped):
            section, option = header["header"], None
            lines.append(_IniLine(line, "header", section, None))
        elif section is not None and (key := configparser.ConfigParser.OPTCRE.match(stripped)):
            option = key["option"].rstrip().lower()  # configparser lowercases keys
            lines.append(_IniLine(line, "key", section, option, indent + key.start("value")))
        else:
            lines.append(_IniLine(line, "other", section, option))
    return lines


def _contract_section(sections: Iterable[str | None], contract_id: str) -> str:
    """The section of a contract: import-linter takes every section named `importlinter:…`
    as a contract whose id is the part after the last colon."""
    found = [
        name
        for name in dict.fromkeys(sections)
        if name and name.startswith("importlinter:") and name.split(":")[-1] == contract_id
    ]
    if not found:
        raise ConfigurationEditError(f"no section [importlinter:contract:{contract_id}]")
    if len(found) > 1:
        raise ConfigurationEditError(f"more than one section has the id {contract_id!r}")
    return found[0]


def _uninterpolated(value: str) -> str:
    # import-linter reads INI files with ConfigParser's interpolation, where %% stands for %.
    return value.replace("%%", "%")


def _edit_ini(text: str, edit: AllowlistEdit) -> str:
    lines = _ini_lines(text)
    section = _contract_section((line.section for line in lines), edit.contract_id)
    numbers = [i for i, line in enumerate(lines) if line.section == section]
    keys = [i for i in numbers if lines[i].kind == "key" and lines[i].option == edit.option]
    added = [entry.replace("%", "%%") for entry in edit.add]
    replaced: dict[int, str] = {}
    removed: set[int] = set()
    if not keys:
        if not edit.add:
            return text
        # The option goes after the section's last line that is not blank or a comment.
        anchor = max(i for i in numbers if lines[i].kind not in ("blank", "comment"))
        key_indent = next((lines[i].indent for i in numbers if lines[i].kind == "key"), "")
        new = [f"{key_indent}{edit.option} =", *(f"{key_indent}    {entry}" for entry in added)]
    else:
        (key,) = keys  # configparser refuses a repeated option
        values = [
            i for i in numbers if lines[i].kind == "continuation" and lines[i].option == edit.option
        ]
        key_value_kept = bool(lines[key].value)
        if key_value_kept and entry_text(_uninterpolated(lines[key].value)) in edit.remove:
            key_text = lines[key].text
            replaced[key] = key_text[: lines[key].value_start].rstrip() + _ending(key_text)
            key_value_kept = False
        removed = {i for i in values if entry_text(_uninterpolated(lines[i].value)) in edit.remove}
        if not (key_value_kept or len(removed) < len(values) or added):
            # An empty list would be a configuration error: the option goes. The comment lines
            # among its values stay, as configparser reads none of them.
            removed.add(key)
        anchor = values[-1] if values else key
        indent = lines[values[0]].indent if values else lines[key].indent + "    "
        new = [f"{indent}{entry}" for entry in added]
    return _rewrite_lines([line.text for line in lines], replaced, removed, anchor, new)


def _rewrite_lines(
    lines: list[str], replaced: dict[int, str], removed: set[int], anchor: int, new: list[str]
) -> str:
    """The lines with some replaced or removed, and `new` inserted after line `anchor`, each
    new line ending as its neighbours do."""
    ending = _neighbour_ending(lines, anchor, anchor + 1)
    result = []
    for number, line in enumerate(lines):
        if number not in removed:
            result.append(replaced.get(number, line))
        if number == anchor and new:
            if number not in removed and not _ending(result[-1]):
                result[-1] += ending
            result += [line + ending for line in new]
    return "".join(result)


def _ini_list(value: str) -> list[str]:
    """An INI value as import-linter's list fields read it: one item a line, blanks skipped."""
    return [line for line in value.strip().split("\n") if line.strip()]


def _check_ini(original: str, edited: str, edits: Sequence[AllowlistEdit]) -> None:
    expected: dict[str, dict[str, Any]] = ini_values(original)
    try:
        found: dict[str, dict[str, Any]] = ini_values(edited)
    except configparser.Error as error:
        message = " ".join(error.message.split())
        raise ConfigurationEditError(f"the edited file would not parse ({message})") from None
    for edit in edits:
        name = _contract_section(expected, edit.contract_id)
        intended = _intended(_ini_list(expected[name].get(edit.option, "")), edit)
        _set_list(expected[name], edit.option, intended)
        if edit.option in found.get(name, {}):
            found[name][edit.option] = _ini_list(found[name][edit.option])
    if found != expected:
        raise ConfigurationEditError(_mismatch(edits))


# Both


def _intended(values: list[Any], edit: AllowlistEdit) -> list[Any]:
    kept = [v for v in values if not (isinstance(v, str) and entry_text(v) in edit.remove)]
    return [*kept, *edit.add]


def _set_list(options: dict[str, Any], option: str, values: list[Any]) -> None:
    """Set the option to the list, or, for an empty one, which is an error, leave it out."""
    if values:
        options[option] = values
    else:
        options.pop(option, None)


def _mismatch(edits: Sequence[AllowlistEdit]) -> str:
    lists = ", ".join(f"{edit.option} of contract '{edit.contract_id}'" for edit in edits)
    return (
        f"the edited file would not read back with exactly the intended {lists} "
        "and every other value unchanged"
    )
