"""The Python that the analysed code runs on, which decides what runs at import time.

`python_version` (in the `[importlinter]` section, as mypy's) defaults to the version of the
interpreter running the linter. From 3.14 annotations are deferred (PEP 649/749): an
annotation runs only where something at import time asks for it. From 3.15 imports may be
lazy (PEP 810): `lazy import`, `__lazy_modules__`, and the global mode `lazy_imports`
(`normal` or `all`, as `-X lazy_imports` names them). Before 3.15, `__lazy_modules__` is an
ordinary variable and `lazy import` a syntax error. `assume_false` names the variables the
analysed code's tests may read that are false where it runs (`DIFFUSERS_SLOW_IMPORT`), as
`TYPE_CHECKING` always is: a block under such a test never runs on import.

The target is a setting of the process, as the running interpreter's version is: the
readers (`scopes`, `calls`, `outline`, and the process that reads files ahead) all read
it, and the import-scope cache is kept per target.
"""

import re
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..errors import ConfigurationError

LAZY_MODES = ("normal", "all")


class Target(NamedTuple):
    """The Python version the analysed code runs on, its global lazy-imports mode, and the
    names assumed false where it runs."""

    version: tuple[int, int]
    lazy_imports: str = "normal"
    assume_false: tuple[str, ...] = ()

    @property
    def deferred_annotations(self) -> bool:
        """Return whether annotations run only when asked for (PEP 649, Python 3.14)."""
        return self.version >= (3, 14)

    @property
    def lazy(self) -> bool:
        """Return whether imports may be lazy (PEP 810, Python 3.15)."""
        return self.version >= (3, 15)

    @property
    def shown(self) -> str:
        return f"{self.version[0]}.{self.version[1]}"


RUNNING = Target((sys.version_info[0], sys.version_info[1]))
# The newest Python whose import semantics the readers know.
NEWEST = (3, 15)
_current = RUNNING


def target_python() -> Target:
    """Return the target the readings are made for."""
    return _current


def set_target(chosen: Target) -> None:
    """Make the readings of this process those of `chosen`."""
    global _current
    _current = chosen


_VERSION = re.compile(r"3\.(\d{1,2})")


def target_of(session_options: Mapping[str, Any]) -> Target:
    """Return the target that the `[importlinter]` section's `python_version` and
    `lazy_imports` state (the running interpreter's version, `normal`, where unset).

    Raises ConfigurationError for a value that is not one.
    """
    given = session_options.get("python_version")
    version = RUNNING.version
    if given is not None:
        matched = _VERSION.fullmatch(str(given).strip()) if isinstance(given, str) else None
        if matched is None:
            raise ConfigurationError(
                f"[importlinter] python_version = {given!r}: not a Python 3 version; "
                'write it as mypy does, as a string such as "3.15".'
            )
        version = (3, int(matched[1]))
        if version > NEWEST:
            raise ConfigurationError(
                f"[importlinter] python_version = {given!r}: newer than any Python this "
                f"version of importlinter-contracts reads code for (3.{NEWEST[1]} at the "
                "newest); give the version the code runs on, or upgrade importlinter-contracts."
            )
    mode = session_options.get("lazy_imports", "normal")
    if not isinstance(mode, str) or mode.strip() not in LAZY_MODES:
        hint = (
            " (CPython 3.15 has no `none` mode: -X lazy_imports takes normal or all)"
            if isinstance(mode, str) and mode.strip() == "none"
            else ""
        )
        raise ConfigurationError(
            f"[importlinter] lazy_imports = {mode!r}: not a mode; use normal or all{hint}."
        )
    chosen = Target(version, mode.strip(), _assumed_false(session_options.get("assume_false")))
    if chosen.lazy_imports != "normal" and not chosen.lazy:
        raise ConfigurationError(
            f"[importlinter] lazy_imports = {chosen.lazy_imports}: lazy imports need Python "
            f"3.15, and python_version is {chosen.shown}."
        )
    return chosen


def _assumed_false(given: object) -> tuple[str, ...]:
    """The names `assume_false` lists (one per line in INI, a list in TOML), sorted.

    Raises ConfigurationError for an empty list, a name given twice, or one that is not an
    identifier.
    """
    if given is None:
        return ()
    names = [given] if isinstance(given, str) else given
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ConfigurationError(
            f"[importlinter] assume_false = {given!r}: not a list of names; give one name per "
            "line (a list of strings in TOML)."
        )
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise ConfigurationError(
            "[importlinter] assume_false is empty: name the variables that are false where "
            "the code runs, one per line, or leave the key out."
        )
    for name in names:
        if not name.isidentifier():
            hint = " (one name per line)" if len(name.split()) > 1 else ""
            raise ConfigurationError(
                f"[importlinter] assume_false: {name!r} is not a variable name{hint}."
            )
        if names.count(name) > 1:
            raise ConfigurationError(f"[importlinter] assume_false: {name} is given twice.")
    return tuple(sorted(names))
