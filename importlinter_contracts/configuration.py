"""The configuration file that lint-imports reads, found and read as lint-imports does."""

from __future__ import annotations

import codecs
import configparser
import difflib
import importlib.util
import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import _importlinter
from .errors import ConfigurationError, UsageError, did_you_mean, guessed
from .options import describe, not_a_module_name, toml_value

_INI_CANDIDATES = ("setup.cfg", ".importlinter")
_TOML_CANDIDATES = ("pyproject.toml",)
_LOOKED_FOR = ", ".join((*_INI_CANDIDATES, *_TOML_CANDIDATES))


def find_configuration(config: str | None) -> Path:
    """Return the file lint-imports reads: `config`, or the first candidate with an importlinter
    section in the working directory, in lint-imports' order.

    Raises ConfigurationError, naming the file, when there is none or a candidate cannot be
    read (lint-imports stops on it too), and naming the folder and the files looked for when
    no file has a section.
    """
    if config:
        path = Path(config)
        if path.is_dir():
            raise ConfigurationError(
                f"{config} is a folder: give the configuration file ({_LOOKED_FOR} or another)."
            )
        if path.exists() and not path.is_file():
            raise ConfigurationError(
                f"{config} is not a file: give the configuration file ({_LOOKED_FOR} or another)."
            )
        if not path.is_file():
            raise ConfigurationError(f"Could not find {config}.")
        (_has_toml_table if is_toml(path) else _has_ini_section)(path)  # parses, or says why not
        return path
    for name in _INI_CANDIDATES:
        if Path(name).is_file() and _has_ini_section(Path(name)):
            return Path(name)
    for name in _TOML_CANDIDATES:
        if Path(name).is_file() and _has_toml_table(Path(name)):
            return Path(name)
    raise ConfigurationError(
        f"No configuration in {Path.cwd()}: none of {_LOOKED_FOR} has an importlinter "
        "section ([importlinter] in INI, [tool.importlinter] in TOML). Run the command in the "
        "folder that holds one, or give its path (CONFIG_FILE or --config)."
    )


def selected_contract_ids(
    requested: Iterable[str], contracts: Iterable[Mapping[str, Any]], configuration: Path
) -> tuple[str, ...]:
    """Return the ids that `--contract` asked for, each as the configuration's `contracts`
    (their options) write it: `FILE:ID`, which lint-imports also takes, is ID where FILE is
    the `configuration` read. Every command looks its `--contract` ids up here.

    Raises UsageError for an id that no contract has, naming the nearest and every id: a
    selection that selects nothing would check nothing and say it passed.
    """
    ids = [str(options["id"]) for options in contracts if options.get("id") is not None]
    selected = []
    for asked in requested:
        found = asked
        if asked not in ids and ":" in asked:
            # An id has no colon: the part before the last one names the file.
            filename, _, found = asked.rpartition(":")
            if os.path.realpath(filename) != os.path.realpath(configuration):
                raise UsageError(
                    f"--contract {asked}: the configuration read is {configuration}, not "
                    f"{filename}; its ids: {', '.join(sorted(set(ids)))}."
                )
        if found not in ids:
            raise UsageError(_unknown_id(asked, found, ids, configuration))
        selected.append(found)
    return tuple(selected)


def _shown(asked: str) -> str:
    """An id as given, quoted where it is empty or has spaces around it."""
    return asked if asked and asked.strip() == asked else repr(asked)


def _unknown_id(asked: str, found: str, ids: list[str], configuration: Path) -> str:
    if not ids:
        return (
            f"--contract {_shown(asked)}: no contract of {configuration} has an id; give the "
            "contracts to select ids (id = ...)."
        )
    return (
        f"--contract {_shown(asked)}: no contract of {configuration} has this id"
        f"{did_you_mean(found, ids)}; its ids: {', '.join(sorted(set(ids)))}."
    )


# The keys of the importlinter section that import-linter reads (2.16 and 2.17; TOML's
# `contracts` is taken out before), and those this package reads (`eager.target`).
IMPORTLINTER_KEYS = (
    "root_package",
    "root_packages",
    "include_external_packages",
    "exclude_type_checking_imports",
    "contract_types",
    "show_timings",
)
OWN_KEYS = ("python_version", "lazy_imports", "assume_false")
# The keys that import-linter reads as booleans: "true" (or "True", as it gives a TOML
# boolean) is true, and any other value false.
_BOOLEAN_KEYS = ("include_external_packages", "exclude_type_checking_imports", "show_timings")
# The contract types whose session keys are known: import-linter's and this package's.
_KNOWN_PACKAGES = ("importlinter", "importlinter_contracts")


def check_session_options(
    session_options: Mapping[str, Any], section: str, toml: bool = False
) -> None:
    """Check the keys of the importlinter section (`section` names it: `[importlinter]`, say),
    which no contract option reads: a misspelt key is ignored by import-linter, and the code
    is then read for the running Python, say. `toml`: whether the file is TOML, for the
    advice to be written in its syntax (lint-imports does not tell a contract which file it
    read: INI's is given there).

    A key that neither import-linter nor this package reads is an error, unless the
    configuration registers a contract type of another package, which may read keys of its
    own: then only a key near a known one is (a misspelling).

    Raises ConfigurationError naming the key, with the nearest known one; for
    `root_packages` given as one string (one INI line), which import-linter reads letter by
    letter; for a root package that no module can be, or a boolean other than true or false.
    """
    roots = session_options.get("root_packages")
    if isinstance(roots, str):
        shown, form = (
            (toml_value(roots), f"in TOML, {toml_value([roots])}")
            if toml
            else (roots, "in INI, one package per line below the key")
        )
        raise ConfigurationError(
            f"{section}: root_packages = {shown}: a list ({form}); for one package, write "
            f"root_package = {shown}."
        )
    if isinstance(roots, list):
        for package in roots:
            error = _not_a_root_package(package, roots)
            if error:
                raise ConfigurationError(f"{section}: root package {error}")
    for key in _BOOLEAN_KEYS:
        value = session_options.get(key)
        if value is not None and value not in ("true", "True", "false", "False"):
            found = value if isinstance(value, str) else describe(value)
            raise ConfigurationError(
                f"{section}: {key} = {found}: give true or false (import-linter reads any "
                "other value as false)."
            )
    known = (*IMPORTLINTER_KEYS, *OWN_KEYS)
    types = session_options.get("contract_types")
    foreign = isinstance(types, list) and any(
        isinstance(entry, str)
        and entry.partition(":")[2].strip().partition(".")[0] not in _KNOWN_PACKAGES
        for entry in types
    )
    for key in session_options:
        if key in known:
            continue
        # (`contracts` is TOML's array of contracts, which import-linter takes out before.)
        nearest = difflib.get_close_matches(key, (*known, "contracts"), n=1)
        if foreign and not nearest:
            continue
        if nearest == ["contracts"]:
            raise ConfigurationError(
                f"{section}: {key} is not an option; each contract is a table of "
                "[[tool.importlinter.contracts]] in TOML, an [importlinter:contract:ID] section "
                "in INI."
            )
        raise ConfigurationError(
            f"{section}: {key} is not an option{guessed(nearest[0] if nearest else None)}; the "
            f"options: {', '.join(sorted(known))}."
        )


def _not_a_root_package(package: object, roots: list[Any]) -> str | None:
    """Return why `package`, of the root packages `roots`, cannot be one (import-linter says
    only that it cannot find it, or names its own exception), or None."""
    if not isinstance(package, str):
        return f"{describe(package)}: give a package's name."
    error = not_a_module_name(package, wildcards=False)
    if error:
        return error
    if "." in package:
        top = package.partition(".")[0]
        return (
            f"'{package}' is not a top-level package: give '{top}' (the contracts name the "
            "modules inside it)."
        )
    if roots.count(package) > 1:
        return f"'{package}' is given more than once; give each package once."
    return None


def read_user_options(config: str | None, configuration: Path) -> _importlinter.UserOptions:
    """Return the options of `configuration` (the file that `config` names or lint-imports
    finds) as lint-imports reads them, the section's keys checked (`check_session_options`).

    Raises ConfigurationError for a section without root packages (which import-linter
    reports as a bare KeyError), with a key that nothing reads, or with a root package that
    is not on the Python path (saying where it is, for a src layout).
    """
    if is_toml(configuration):
        _check_toml_contracts(configuration)
    try:
        user_options = _importlinter.read_user_options(config)
    except KeyError as error:
        if error.args != ("root_package",):
            raise
        raise ConfigurationError(
            f"{section_name(configuration)} has no root_packages: give the packages to "
            "analyse (root_packages, or root_package for one)."
        ) from None
    section = section_name(configuration)
    check_session_options(user_options.session_options, section, is_toml(configuration))
    for package in user_options.session_options["root_packages"]:
        # (A top-level name, as checked: finding it runs no code, where a parent package
        # would run.)
        if importlib.util.find_spec(package) is None:
            raise ConfigurationError(package_not_found(package))
    if not is_toml(configuration):
        for key in OWN_KEYS:
            value = user_options.session_options.get(key)
            if isinstance(value, str) and len(value) > 1 and value[0] == value[-1] in "\"'":
                raise ConfigurationError(
                    f"{section}: {key} = {value}: INI keeps the quotes as part of the value; "
                    f"write {key} = {value[1:-1]}."
                )
    return user_options


def _check_toml_contracts(path: Path) -> None:
    """Raises ConfigurationError where `contracts` of the TOML file's importlinter table is not
    an array of tables (`[tool.importlinter.contracts]`, one table, for
    `[[tool.importlinter.contracts]]`): import-linter's reader fails on it with Python's own
    message."""
    table = toml_values(read_configuration_text(path)).get("tool", {}).get("importlinter", {})
    contracts = table.get("contracts", [])
    if not isinstance(contracts, list) or not all(isinstance(c, dict) for c in contracts):
        found = "a table" if isinstance(contracts, dict) else describe(contracts)
        raise ConfigurationError(
            f"{section_name(path)}: contracts is {found}, not an array of tables: write "
            "each contract as a table of its own under [[tool.importlinter.contracts]] "
            "(two brackets)."
        )


def package_not_found(package: str) -> str:
    """Return that a root package is not on the Python path, and what would put it there: the
    folder of the working directory's tree that holds it (a src layout: `src/mypkg`), if
    one does."""
    found = sorted(
        folder.parent
        for pattern in (f"*/{package}/__init__.py", f"*/*/{package}/__init__.py")
        for folder in Path().glob(pattern)
        if not any(part.startswith(".") or part == "site-packages" for part in folder.parts)
    )
    if found:
        where = found[0].parent.as_posix()
        advice = (
            f"it is in {where}/: set PYTHONPATH={where} (or install the package: pip install -e .)"
        )
    else:
        advice = (
            "run in the folder that holds it, set PYTHONPATH to that folder, or install the package"
        )
    return f"Could not find package '{package}' in your Python path: {advice}."


def section_name(path: Path) -> str:
    """Return the importlinter section of the configuration file `path` as messages name it."""
    return f"{path} [tool.importlinter]" if is_toml(path) else f"{path} [importlinter]"


def is_toml(path: Path) -> bool:
    """Return whether import-linter reads `path` as TOML (it tells by the suffix)."""
    return path.suffix == ".toml"


def read_configuration_text(path: Path) -> str:
    """Return the file's text, line breaks as they are (import-linter reads it as UTF-8 text).

    Raises ConfigurationError when it cannot be read or is not UTF-8.
    """
    try:
        content = path.read_bytes()
    except OSError as error:
        raise ConfigurationError(f"Could not read {path}: {error.strerror}.") from None
    return configuration_text(content, path)


def configuration_text(content: bytes, path: Path) -> str:
    """Return the text of the configuration file `path` (as it is now or was at some
    revision), which import-linter reads as UTF-8.

    Raises ConfigurationError, naming the file and the first byte that is not UTF-8.
    """
    if content.startswith(codecs.BOM_UTF8):
        raise ConfigurationError(
            f"{path} starts with a byte-order mark, which import-linter reads as text before "
            "the first section: save it as UTF-8 without one."
        )
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigurationError(
            f"{path} is not UTF-8 text (byte {error.start + 1}): save it as UTF-8."
        ) from None


def universal_newlines(text: str) -> str:
    """Return the text with every line break a newline, as import-linter opens the file."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def ini_values(text: str, source: str = "<string>") -> dict[str, dict[str, str]]:
    """Return every section's values as import-linter's INI reader gets them, interpolation done.

    Raises configparser.Error.
    """
    parser = configparser.ConfigParser()  # as import-linter's reader makes it
    parser.read_string(universal_newlines(text), source=source)
    return {name: dict(parser[name]) for name in parser.sections()}


def toml_values(text: str) -> dict[str, Any]:
    """Return the document as import-linter's TOML reader gets it.

    Raises tomllib.TOMLDecodeError.
    """
    return tomllib.loads(universal_newlines(text))


_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)$")
# A table's header: a bracketed dotted key, closed or not (an error may be in the header).
_TOML_HEADER = re.compile(r"\s*(\[\[?[A-Za-z0-9_.\-\"' ]+\]?\]?)\s*(#.*)?$")
_TOML_KEY = re.compile(r"\s*([A-Za-z0-9_.\-\"' ]+?)\s*=")


def _toml_place(text: str, message: str) -> str:
    """Return where a TOML error stands, as `, in [table], key name`: the table and the key
    whose value the error is in (tomllib says only the line and column, or "end of
    document" for a bracket never closed). An error at a line's first column is that the
    value begun on a line before it did not end."""
    lines = text.split("\n")
    position = _TOML_POSITION.search(message)
    if position is None:
        last = len(lines)
    else:
        line, column = int(position[1]), int(position[2])
        last = line - 1 if column == 1 else line
    key = None
    for number in range(last, 0, -1):
        line_text = lines[number - 1]
        header = _TOML_HEADER.match(line_text)
        if header:
            table = header[1]
            break
        found = _TOML_KEY.match(line_text)
        if found and key is None:
            key = found[1].strip()
    else:
        table = "the document's top level"
    return f", in {table}" + (f", key {key}" if key else "")


def _has_ini_section(path: Path) -> bool:
    try:
        return "importlinter" in ini_values(read_configuration_text(path), str(path))
    except configparser.InterpolationSyntaxError as error:
        raise ConfigurationError(
            f"{path}: option {error.option} of [{error.section}] has a '%' not written '%%' "
            "(INI values are read with interpolation, where '%%' stands for '%')."
        ) from None
    except configparser.InterpolationError as error:
        message = " ".join(error.message.split())
        raise ConfigurationError(
            f"{path}: option {error.option} of [{error.section}]: {message}"
        ) from None
    except configparser.Error as error:
        # configparser's message names the file and the line.
        raise ConfigurationError(" ".join(error.message.split())) from None


def _has_toml_table(path: Path) -> bool:
    try:
        data = toml_values(read_configuration_text(path))
    except tomllib.TOMLDecodeError as error:
        text = universal_newlines(read_configuration_text(path))
        raise ConfigurationError(f"{path}: {error}{_toml_place(text, str(error))}.") from None
    return bool(data.get("tool", {}).get("importlinter"))
