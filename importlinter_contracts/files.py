"""Writing a file so that a crash, a kill or a full disk leaves the old file or the new one,
never a part of either."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .errors import FileWriteError


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the contents of the existing file `path` with `data`.

    The data goes to a temporary file in the same folder, flushed and synced to disk, which
    then replaces the file in one rename: a reader, or a process killed at any point, sees the
    old file or the new one. A symbolic link stays a link and its target is replaced. The
    file's mode is kept, and its owner where the system allows.

    Raises FileWriteError, with the file untouched and no temporary file left, when the file
    is read-only or the new one cannot be written.
    """
    target = Path(os.path.realpath(path))
    try:
        status = target.stat()
    except OSError as error:
        raise FileWriteError(
            f"cannot write {path} ({error.strerror}); nothing was written."
        ) from None
    mode = stat.S_IMODE(status.st_mode)
    # The rename needs only the folder to be writable: a file marked read-only (no write
    # permission for anyone, or none for us) is refused, as an editor would.
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise FileWriteError(f"{path} is read-only; nothing was written.")
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".tmp", dir=target.parent
        )
    except OSError as error:
        raise FileWriteError(
            f"cannot write {path}: no file can be made in {target.parent} ({error.strerror}); "
            "nothing was written."
        ) from None
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, mode)
        if (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(PermissionError):  # only root may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise FileWriteError(
                f"cannot write {path} ({error.strerror}); nothing was written."
            ) from None
        raise
    _sync_folder(target.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable, where the system can sync a folder."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
