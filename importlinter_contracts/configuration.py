"""The configuration file that lint-imports reads, found as lint-imports finds it."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

from .errors import ConfigurationError

_INI_CANDIDATES = ("setup.cfg", ".importlinter")
_TOML_CANDIDATES = ("pyproject.toml",)


def find_configuration(config: str | None) -> Path:
    """The file lint-imports reads: `config`, or the first candidate with an importlinter
    section in the working directory, in lint-imports' order."""
    if config:
        if not Path(config).is_file():
            raise ConfigurationError(f"Could not find {config}.")
        return Path(config)
    for name in _INI_CANDIDATES:
        parser = configparser.ConfigParser()
        if Path(name).is_file() and parser.read(name) and parser.has_section("importlinter"):
            return Path(name)
    for name in _TOML_CANDIDATES:
        if Path(name).is_file():
            data = tomllib.loads(Path(name).read_text(encoding="utf-8"))
            if data.get("tool", {}).get("importlinter"):
                return Path(name)
    raise ConfigurationError("Could not read any configuration.")


def is_toml(path: Path) -> bool:
    return path.suffix == ".toml"
