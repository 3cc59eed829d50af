"""The configuration file that lint-imports reads, found and read as lint-imports does."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path
from typing import Any

from .errors import ConfigurationError

_INI_CANDIDATES = ("setup.cfg", ".importlinter")
_TOML_CANDIDATES = ("pyproject.toml",)


def find_configuration(config: str | None) -> Path:
    """The file lint-imports reads: `config`, or the first candidate with an importlinter
    section in the working directory, in lint-imports' order.

    Raises ConfigurationError, naming the file, when there is none or a candidate cannot be
    read (lint-imports stops on it too).
    """
    if config:
        if not Path(config).is_file():
            raise ConfigurationError(f"Could not find {config}.")
        return Path(config)
    for name in _INI_CANDIDATES:
        if Path(name).is_file() and _read_ini(Path(name)).has_section("importlinter"):
            return Path(name)
    for name in _TOML_CANDIDATES:
        if Path(name).is_file() and _read_toml(Path(name)).get("tool", {}).get("importlinter"):
            return Path(name)
    raise ConfigurationError("Could not read any configuration.")


def is_toml(path: Path) -> bool:
    return path.suffix == ".toml"


def read_configuration_text(path: Path) -> str:
    """The file's text, line breaks as they are (import-linter reads it as UTF-8 text)."""
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigurationError(
            f"{path} is not UTF-8 text (byte {error.start + 1}): save it as UTF-8."
        ) from None
    except OSError as error:
        raise ConfigurationError(f"Could not read {path}: {error.strerror}.") from None


def _read_ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()  # as import-linter's reader makes it
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except configparser.Error as error:
        # configparser's message names the file and the line.
        raise ConfigurationError(" ".join(error.message.split())) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"Could not read {path}: {error}.") from None
    return parser


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigurationError(f"{path}: {error}.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"Could not read {path}: {error}.") from None
