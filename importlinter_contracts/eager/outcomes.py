"""What an eager_imports contract's walks found, kept between runs.

What the walks find depends on the contract's options, on the modules grimp found, on the
imports grimp reports for the modules they read and on those modules' files: a walk reaches a
module only through the imports of modules it read. So a run whose graph has the same modules
as the run that kept an outcome, where none of the files that run read has changed since and
grimp reports the same imported modules for each, finds the same: it checks the files'
modification times and the modules grimp reports each imports (a `stat` and a look at the
graph per module read) instead of walking.

Where some of those files have changed, what each of them answered the walks is kept too
(`EagerImports.answers`: the imports that run at import time, the calls, ...): each changed
file is asked the same questions again, in the same order, and where every answer is the same
(an edit inside a function nobody calls at import time, say), walks would ask the rest of the
files the same questions and get the same answers, so they would find the same. Any other run
walks, and keeps what it found for the next one.

The outcomes are kept in a file of their own, beside the import scopes' cache: a run that
uses one reads only that file.
"""

import marshal
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from ..cache import DIGEST_SIZE, code_identity, sealed, unsealed, write_cache
from ..locations import in_package_folders, modification_time
from ..report import IgnoredImport, ImportFinding, SmallestCutData

OUTCOMES_FILE = Path("importlinter_contracts") / "walk-outcomes.cache"

_MAGIC = b"importlinter-contracts walk outcomes\n"
# How many outcomes the file keeps, the newest: one per eager_imports contract, for a few
# configurations of each.
_KEPT = 16


class WalksFound(NamedTuple):
    """What the walks of an eager_imports check found: its violations, the imports its
    allowlist excused, the warnings of what they could not read, and the smallest cut (None
    without findings; a string where no report asked for it, `check._CUT_NOT_ASKED`). The
    file keeps it as a plain tuple."""

    violations: list[ImportFinding]
    ignored: list[IgnoredImport]
    warnings: list[str]
    smallest_cut: SmallestCutData | str | None


class KeptWalks(NamedTuple):
    """What walks found (`found`, a `WalksFound` as a plain tuple), with the files they
    read: each module's (`modules`), with the file's path and modification time when it was
    read and the digest of the modules grimp reported it imports then
    (`cache.imported_digest`, one after the other in `imported`); and what each file
    answered (`EagerImports.answers`, marshalled: read only where a file changed). The file
    keeps it as a plain tuple."""

    modules: tuple[str, ...]
    paths: tuple[str, ...]
    times: tuple[float, ...]
    imported: bytes
    found: tuple[object, ...]
    answers: bytes


# What a module's file answered one question of the walks (`questions.RecordedAnswers`):
# the question, what it was asked of besides the module (a line, a name; nothing for most)
# and the answer, as data `marshal` writes (a plain tuple: `marshal` writes no named one, and
# a walk keeps hundreds of thousands).
Answer = tuple[str, tuple[str | int, ...], object]
# What each module's file answered the walks, in the order asked.
Answers = dict[str, list[Answer]]
# Each file read: its path, modification time and imported modules' digest, by module.
FilesRead = dict[str, tuple[str, float, bytes]]


class KeptOutcome(NamedTuple):
    """What the walks found, and the files that changed since, each with its path then and
    what it answered the walks (to ask it again)."""

    found: WalksFound
    changed: dict[str, tuple[str, list[Answer]]]


class WalkOutcomes:
    """The outcomes kept in `cache_dir` (none without one) for the graph whose
    `graph_digest` (`ScopeIndex.graph_digest`) is given."""

    def __init__(self, cache_dir: Path | None, graph_digest: bytes) -> None:
        self._file = cache_dir / OUTCOMES_FILE if cache_dir else None
        self._graph = graph_digest
        self._kept: dict[bytes, KeptWalks] | None = None

    def modules_read(self, key: bytes) -> tuple[str, ...]:
        """Return the modules whose files the walks keyed `key` read, as `keep` kept them
        (none where nothing is kept for `key`): `get` is given what grimp reports each of
        them imports now."""
        kept = self._load().get(key)
        return () if kept is None else kept.modules

    def get(self, key: bytes, imported_digests: Mapping[str, bytes]) -> KeptOutcome | None:
        """Return what the walks keyed `key` found, as `keep` kept it, with the files that have
        changed since (none where no file has). A file has changed where its modification
        time has, or where grimp reports other imported modules for it (`imported_digests`:
        `cache.imported_digest` of each of the `modules_read`, now; a graph built from
        a stale cache of grimp's can). None where a file they read is gone, or is not where
        its package is found now."""
        kept = self._load().get(key)
        if kept is None:
            return None
        found = WalksFound._make(kept.found)
        changed = []
        for index, (module, path, time) in enumerate(
            zip(kept.modules, kept.paths, kept.times, strict=True)
        ):
            # A file elsewhere is another checkout's (two that share a cache folder, say).
            now = modification_time(path) if in_package_folders(path, module) else None
            if now is None:
                return None
            if now != time or imported_digests[module] != _nth_digest(kept.imported, index):
                changed.append(module)
        if not changed:
            return KeptOutcome(found, {})
        answered = _answers(kept.answers)
        if answered is None:
            return None
        # (A module that answered nothing cannot change what the walks find.)
        where = dict(zip(kept.modules, kept.paths, strict=True))
        asked: dict[str, tuple[str, list[Answer]]] = {}
        for module in changed:
            answers = _answers_of(answered, module)
            if answers is None:
                return None
            asked[module] = (where[module], answers)
        return KeptOutcome(found, asked)

    def keep(
        self, key: bytes, found: WalksFound, files_read: FilesRead, answers: Answers
    ) -> str | None:
        """Keep what the walks keyed `key` found, with the files they read and what each
        answered. A file that cannot be written costs only time: return a warning."""
        return self._write(
            key,
            KeptWalks(
                modules=tuple(files_read),
                paths=tuple(path for path, _, _ in files_read.values()),
                times=tuple(time for _, time, _ in files_read.values()),
                imported=b"".join(digest for _, _, digest in files_read.values()),
                found=tuple(found),  # (`marshal` writes no named tuple)
                answers=marshal.dumps(answers),
            ),
        )

    def keep_again(self, key: bytes, files_read: FilesRead) -> str | None:
        """Keep what `get` gave for `key` again, with what is now true of the files read
        since (those that changed, and answered the same)."""
        kept = self._load()[key]
        now = {
            module: (time, _nth_digest(kept.imported, index))
            for index, (module, time) in enumerate(zip(kept.modules, kept.times, strict=True))
        }
        now.update(
            (module, (time, digest))
            for module, (_, time, digest) in files_read.items()
            if module in now
        )
        return self._write(
            key,
            kept._replace(
                times=tuple(time for time, _ in now.values()),
                imported=b"".join(digest for _, digest in now.values()),
            ),
        )

    def _write(self, key: bytes, outcome: KeptWalks) -> str | None:
        if self._file is None:
            return None
        kept = dict(self._load())
        kept.pop(key, None)
        kept[key] = outcome
        data = {
            "format": code_identity(),
            "graph": self._graph,
            "outcomes": {key: tuple(walks) for key, walks in list(kept.items())[-_KEPT:]},
        }
        return write_cache(
            self._file,
            sealed(_MAGIC, marshal.dumps(data)),
            "walk-outcome cache",
            "the walks run again on the next run",
        )

    def _load(self) -> dict[bytes, KeptWalks]:
        """The outcomes kept for this graph (none for another: what the walks find depends
        on it)."""
        if self._kept is not None:
            return self._kept
        self._kept = {}
        if self._file is None:
            return self._kept
        try:
            data = marshal.loads(unsealed(_MAGIC, self._file.read_bytes()))
        except (OSError, EOFError, ValueError, TypeError):
            return self._kept  # none yet, or an unreadable file: it is made again
        if (
            isinstance(data, dict)
            and data.get("format") == code_identity()
            and data.get("graph") == self._graph
            and isinstance(data.get("outcomes"), dict)
        ):
            self._kept = {
                key: KeptWalks._make(kept)
                for key, kept in data["outcomes"].items()
                if _is_kept(kept)
            }
        return self._kept


def _nth_digest(digests: bytes, index: int) -> bytes:
    """The digest at `index` of digests kept one after the other."""
    return digests[index * DIGEST_SIZE : (index + 1) * DIGEST_SIZE]


def _answers(data: bytes) -> dict[object, object] | None:
    """Return the answers `keep` marshalled, or None where they are not a dict (each changed
    module's are checked as they are asked for: `_answers_of`)."""
    try:
        answers = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    return answers if isinstance(answers, dict) else None


def _answers_of(answers: dict[object, object], module: str) -> list[Answer] | None:
    """Return what `module` answered, of the answers `_answers` read; None where they have
    another shape (what each question is asked of is checked as it is asked again:
    `questions.answers_again`)."""
    answered = answers.get(module, [])
    if type(answered) is not list or not all(
        type(answer) is tuple
        and len(answer) == 3
        and type(answer[0]) is str
        and type(answer[1]) is tuple
        for answer in answered
    ):
        return None
    return answered


def _is_kept(kept: object) -> bool:
    """Whether `kept` has the shape `keep` writes (a `KeptWalks`, as a plain tuple)."""
    if not (type(kept) is tuple and len(kept) == len(KeptWalks._fields)):
        return False
    walks = KeptWalks._make(kept)
    if not (type(walks.found) is tuple and len(walks.found) == len(WalksFound._fields)):
        return False
    found = WalksFound._make(walks.found)
    return (
        type(found.violations) is list
        and type(found.ignored) is list
        and type(found.warnings) is list
        # (A string: the cut was not asked for.)
        and (found.smallest_cut is None or type(found.smallest_cut) in (dict, str))
        and type(walks.modules) is tuple
        and type(walks.paths) is tuple
        and type(walks.times) is tuple
        and type(walks.imported) is bytes
        and type(walks.answers) is bytes
        and len(walks.modules) == len(walks.paths) == len(walks.times)
        and len(walks.imported) == len(walks.modules) * DIGEST_SIZE
        and all(type(module) is str for module in walks.modules)
        and all(type(path) is str for path in walks.paths)
    )
