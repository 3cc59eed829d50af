"""A contract's allowlist entries (`ignore_imports`, `ignore_loaded_modules`) in the
configuration text: where each one stands, and edits that change those lines and nothing else
(comments, order and spacing stay as they are).

INI files (`.importlinter`, `setup.cfg`) hold the entries as indented continuation lines;
TOML files (`pyproject.toml`) as a list of strings.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from importlinter import fields

from ..errors import ConfigurationEditError
from .entries import ENTRY_KINDS, PLACEHOLDER_REASON, parse_entry


@dataclass(frozen=True)
class EntrySpan:
    """Where one entry stands: its 1-based line, and the text span to delete to remove it."""

    text: str  # the entry as written, normalised as AllowlistEntry.text
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class AllowlistText:
    """A contract's allowlist in the text: its entries, and where a new one goes."""

    entries: list[EntrySpan]
    insert_at: int  # offset where new entries are inserted
    new_entry: str  # a new entry's text, `{}` standing for `importer -> imported  # reason`
    lead: str = ""  # text before the first new entry (a key, or a missing final newline)
    tail: str = ""  # text after the last new entry (the end of a new list)


def find_allowlist(
    text: str, contract_id: str, toml: bool, option: str = "ignore_imports"
) -> AllowlistText:
    """The entries of a contract's allowlist `option` (`ignore_imports` by default) in `text`.

    Raises ConfigurationEditError when the contract is not in the text.
    """
    return (_toml_allowlist if toml else _ini_allowlist)(text, contract_id, option)


def edit_allowlist(
    text: str,
    contract_id: str,
    toml: bool,
    remove: set[str],
    add: list[str],
    option: str = "ignore_imports",
) -> str:
    """`text` with the entries of `option` written as in `remove` deleted and `add` (import or
    module expressions) appended with the placeholder reason; every other byte stays."""
    allowlist = find_allowlist(text, contract_id, toml, option)
    spans = sorted((s for s in allowlist.entries if s.text in remove), key=lambda s: s.start)
    added = "".join(allowlist.new_entry.format(f"{a}  # {PLACEHOLDER_REASON}") for a in add)
    if added:
        added = allowlist.lead + added + allowlist.tail
    pieces = []
    position = 0
    for span in spans:
        if position <= allowlist.insert_at < span.start:
            pieces += [text[position : allowlist.insert_at], added]
            position = allowlist.insert_at
            added = ""
        pieces.append(text[position : span.start])
        position = span.end
    if added:
        insert_at = max(allowlist.insert_at, position)
        pieces += [text[position:insert_at], added]
        position = insert_at
    pieces.append(text[position:])
    return "".join(pieces)


def _lines_with_offsets(text: str) -> list[tuple[int, str]]:
    offsets = []
    position = 0
    for line in text.splitlines(keepends=True):
        offsets.append((position, line))
        position += len(line)
    return offsets


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _entry_text(value: str, option: str) -> str | None:
    try:
        return parse_entry(value, ENTRY_KINDS[option]).text
    except fields.ValidationError:
        return None  # not an entry this tool can read: left as it is


# INI


def _uninterpolated(value: str) -> str:
    # import-linter reads INI files with ConfigParser's interpolation, where %% stands for %.
    return value.replace("%%", "%")


_SECTION = re.compile(r"\s*\[(?P<name>[^\]]+)\]")
_KEY = re.compile(r"(?P<key>[^\s=:][^=:]*?)\s*[=:]\s*(?P<value>.*?)\s*$")


def _ini_allowlist(text: str, contract_id: str, option: str) -> AllowlistText:
    lines = _lines_with_offsets(text)
    newline = _newline(text)
    section = f"importlinter:contract:{contract_id}"
    headers = {i: m["name"] for i, (_, line) in enumerate(lines) if (m := _SECTION.match(line))}
    start = next((i for i, name in headers.items() if name == section), None)
    if start is None:
        raise ConfigurationEditError(f"no section [{section}]")
    end = next((i for i in headers if i > start), len(lines))
    entries: list[EntrySpan] = []
    key_index: int | None = None
    last_value_index = start
    in_value = False
    indent, indent_found = "    ", False
    for index in range(start + 1, end):
        offset, line = lines[index]
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue  # blank lines and comments neither start nor end a value
        if line[:1] not in (" ", "\t"):
            match = _KEY.match(line)
            in_value = match is not None and match["key"].strip().lower() == option
            if in_value and match is not None:
                key_index = last_value_index = index
                value = match["value"]
                if value and (entry := _entry_text(_uninterpolated(value), option)):
                    value_start = offset + line.index(value, len(match["key"]))
                    entries.append(
                        EntrySpan(entry, index + 1, value_start, value_start + len(value))
                    )
        elif in_value:
            last_value_index = index
            if entry := _entry_text(_uninterpolated(stripped), option):
                if not indent_found:
                    indent, indent_found = line[: len(line) - len(line.lstrip())], True
                entries.append(EntrySpan(entry, index + 1, offset, offset + len(line)))
    if key_index is None:
        # No such option yet: the key goes after the section's last non-blank line.
        last = max((i for i in range(start, end) if lines[i][1].strip()), default=start)
        offset, line = lines[last]
        lead = "" if line.endswith(("\n", "\r")) else newline
        return AllowlistText(
            [], offset + len(line), "    {}" + newline, lead + f"{option} =" + newline
        )
    offset, line = lines[last_value_index]
    lead = "" if line.endswith(("\n", "\r")) else newline
    return AllowlistText(entries, offset + len(line), indent + "{}" + newline, lead)


# TOML


_TABLE = re.compile(r"\s*\[\[?\s*(?P<name>[^\]]+?)\s*\]\]?")


def _toml_allowlist(text: str, contract_id: str, option: str) -> AllowlistText:
    lines = _lines_with_offsets(text)
    newline = _newline(text)
    tables = {
        i: m["name"]
        for i, (_, line) in enumerate(lines)
        if (m := _TABLE.match(line)) and not line.lstrip().startswith("#")
    }
    starts = list(tables)
    for position, start in enumerate(starts):
        if tables[start] != "tool.importlinter.contracts":
            continue
        end = starts[position + 1] if position + 1 < len(starts) else len(lines)
        body_start = lines[start][0] + len(lines[start][1])
        body_end = lines[end][0] if end < len(lines) else len(text)
        body = text[body_start:body_end]
        table = tomllib.loads(body)
        if table.get("id") != contract_id:
            continue
        return _toml_entries(text, body_start, body_end, newline, option)
    raise ConfigurationEditError(
        f"no [[tool.importlinter.contracts]] table with id = {contract_id!r}"
    )


_TOML_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


def _toml_entries(
    text: str, body_start: int, body_end: int, newline: str, option: str
) -> AllowlistText:
    key = re.compile(rf"(?m)^[ \t]*{option}[ \t]*=[ \t]*\[").search(text, body_start, body_end)
    if key is None:
        # No such option yet: the key goes after the table's last non-blank line.
        body = text[body_start:body_end]
        insert_at = body_start + len(body.rstrip())
        newline_end = text.find("\n", insert_at)
        if newline_end >= 0 and newline_end < body_end:
            insert_at, lead = newline_end + 1, ""
        else:
            lead = newline
        return AllowlistText(
            [],
            insert_at,
            '    "{}",' + newline,
            lead + f"{option} = [" + newline,
            "]" + newline,
        )
    entries = []
    position = key.end()
    closing = None
    last_element_end = None
    while position < body_end:
        character = text[position]
        if character == "#":
            position = text.find("\n", position)
            position = body_end if position < 0 else position
            continue
        if character in "\"'":
            match = _TOML_STRING.match(text, position)
            if match is None:
                raise ConfigurationEditError(f"an {option} string is not closed")
            value = tomllib.loads(f"v = {match.group()}")["v"]
            end = match.end()
            comma = re.compile(r"[ \t]*,?").match(text, end)
            end = comma.end() if comma else end
            line_start = text.rfind("\n", 0, position) + 1
            line_end = text.find("\n", end)
            alone = not text[line_start:position].strip() and (
                line_end < 0
                or not text[end:line_end].strip()
                or text[end:line_end].strip().startswith("#")
            )
            span_start, span_end = (
                (line_start, line_end + 1) if alone and line_end >= 0 else (position, end)
            )
            if (entry := _entry_text(value, option)) is not None:
                entries.append(
                    EntrySpan(entry, text.count("\n", 0, position) + 1, span_start, span_end)
                )
            last_element_end = match.end()
            position = match.end()
            continue
        if character == "]":
            closing = position
            break
        position += 1
    if closing is None:
        raise ConfigurationEditError(f"the {option} list is not closed")
    multiline = "\n" in text[key.end() : closing]
    if multiline:
        line_start = text.rfind("\n", 0, closing) + 1
        indent = "    "
        if entries:
            first = text[entries[0].start : entries[0].end]
            indent = first[: len(first) - len(first.lstrip())] or indent
        needs_comma = last_element_end is not None and not re.match(
            r"[ \t]*,", text[last_element_end:]
        )
        if needs_comma:
            # Rare: a last element without its comma; the new one follows on the same line.
            return AllowlistText(entries, last_element_end or closing, ', "{}"')
        return AllowlistText(entries, line_start, indent + '"{}",' + newline)
    separator = ", " if last_element_end is not None else ""
    return AllowlistText(entries, closing, separator + '"{}"')
