"""Writing a file so that a crash, a kill or a full disk leaves the old file or the new one,
never a part of either."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from .errors import FileWriteError


def write_atomically(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace the contents of the file `path` with `data`, or create it.

    The data goes to a temporary file in the same folder, flushed and (when `durable`) synced
    to disk, which then replaces the file in one rename: a reader, or a process killed at any
    point, sees the old file (or none) or the new one. A symbolic link stays a link and its
    target is replaced. An existing file's mode is kept, and its owner where the system
    allows; a new file gets the mode the process's umask gives a new file. A file that only
    saves work (a cache) needs no `durable` write: one lost in a crash is only made again.

    Raises FileWriteError, with the file untouched and no temporary file left, when the file
    is read-only or the new one cannot be written.
    """
    target = Path(os.path.realpath(path))
    try:
        status: os.stat_result | None = target.stat()
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise FileWriteError(
            f"cannot write {path} ({error.strerror}); nothing was written.", error.strerror
        ) from None
    if status is None:
        mode = _NEW_FILE_MODE & ~_umask()
    else:
        mode = stat.S_IMODE(status.st_mode)
        # The rename needs only the folder to be writable: a file marked read-only (no write
        # permission for anyone, or none for us) is refused, as an editor would.
        if not mode & 0o222 or not os.access(target, os.W_OK):
            raise FileWriteError(
                f"{path} is read-only; nothing was written.", os.strerror(errno.EACCES)
            )
    # Named before it is made, and made inside the `try` that removes it: a signal that comes
    # just as it is made still finds it by name. (Holding the signals in this thread cannot
    # do that: one sent to the process is taken by any thread not holding it, such as
    # grimp's, and its handler then runs here at once.) 64 random bits never meet another
    # writer's name; if one did, the open fails and that file is left alone.
    temporary = os.path.join(target.parent, f".{target.name}.{os.urandom(8).hex()}.tmp")
    descriptor = -1
    try:
        descriptor = os.open(temporary, _TEMPORARY_FILE_FLAGS, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            if durable:
                os.fsync(file.fileno())
        os.chmod(temporary, mode)
        if status is not None and (status.st_uid, status.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(PermissionError):  # only root may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
        os.replace(temporary, target)
    except BaseException as error:
        made = descriptor != -1
        if made or not isinstance(error, FileExistsError):  # (that name is another's file)
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if not isinstance(error, OSError):
            raise
        where = "" if made else f": no file can be made in {target.parent}"
        raise FileWriteError(
            f"cannot write {path}{where} ({error.strerror}); nothing was written.",
            error.strerror,
        ) from None
    if durable:
        _sync_folder(target.parent)


# What `open()` asks for a new file; the umask takes away from it.
_NEW_FILE_MODE = 0o666

# What `tempfile.mkstemp` opens its file with: made here, never an existing file or link.
_TEMPORARY_FILE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _umask() -> int:
    """The process's umask, which can only be read by setting it (and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable, where the system can sync a folder."""
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
