"""Every error this package raises on purpose, under one base class.

Each message is one line that a user can act on: it names the option, file or module at
fault and, where there is one, what to do. import-linter prints the message of any exception
a contract raises, and `importlinter-contracts` prints it after its own name; neither shows a
traceback unless asked to (`--debug`). What only costs time or leaves a question open is a
warning instead (`warn`), which the console script prints as one line too.
"""

from __future__ import annotations

import difflib
import os
import sys
import warnings
from collections.abc import Iterable


class ImportlinterContractsError(Exception):
    """The base of every error raised here on purpose."""


class ConfigurationError(ImportlinterContractsError):
    """The configuration cannot be read, or cannot be checked as it stands."""


class NothingToCheckError(ConfigurationError):
    """Every contract selected was left out of the run (`check --static`, say); `reasons`
    says why, for each contract left out."""

    def __init__(self, message: str, reasons: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.reasons = reasons


class UsageError(ImportlinterContractsError):
    """A command line that cannot be run as given."""


class ContractConfigurationError(ConfigurationError):
    """A contract's options do not fit the analysed tree (a module that is not in the graph,
    no backend found); the message names the contract and the option."""

    def __init__(self, contract_name: str, option: str, message: str) -> None:
        super().__init__(
            f'Contract "{contract_name}" is not configured correctly: {option}: {message}'
        )


class UnreadableSourceError(ImportlinterContractsError):
    """A source file cannot be read reliably enough to classify its imports; the message
    names the file and the line, so that no verdict rests on a misreading."""


class ConfigurationEditError(ImportlinterContractsError):
    """An edit of the configuration file cannot be made safely; nothing was written."""


class FileWriteError(ImportlinterContractsError):
    """A file cannot be written; it was left as it was. `reason` says why, as the system
    does ("Permission denied")."""

    def __init__(self, message: str, reason: str | None) -> None:
        super().__init__(message)
        self.reason = reason or message


class MeasureError(ImportlinterContractsError):
    """`closure --measure` could not time the import: the interpreter cannot be run, the
    import raised or did not finish in time."""


class RevisionError(ImportlinterContractsError):
    """A git revision cannot be read: not a git repository, or an unknown revision."""


class UnknownModuleError(ImportlinterContractsError, KeyError):
    """A module asked about is not in the graph."""

    __str__ = Exception.__str__  # the message as written, not quoted as KeyError quotes it


class CacheWarning(UserWarning):
    """A cache cannot be used: the run goes on without it, and costs only time."""


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """Return the known word nearest to a misspelt one as a parenthesis to follow it in a
    message (`guessed`)."""
    nearest = difflib.get_close_matches(word, list(known), n=1)
    return guessed(nearest[0] if nearest else None)


def guessed(near: str | None) -> str:
    """Return the parenthesis that offers `near` for a misspelt word, ` (did you mean
    'near'?)`; '' for None (nothing is near)."""
    return f" (did you mean '{near}'?)" if near else ""


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn of `message` at the call from outside this package (and import-linter, which calls
    the contracts), however deep in them the warning is found: the line a Python session
    shows is the user's."""
    importlinter = sys.modules.get("importlinter")
    own = tuple(
        os.path.dirname(path) + os.sep
        for path in (__file__, getattr(importlinter, "__file__", None))
        if path is not None
    )
    frame = sys._getframe(1)
    level = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(own):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
