"""Replace a file atomically and keep what its owner set on it.

The new text goes to a `mkstemp` file (random name, O_EXCL, O_NOFOLLOW, 0600) in the folder
of the real file (a symlink is followed, so the link stays a link and the rename stays on one
filesystem), gets the old file's mode, group and (as root) owner, is fsynced and renamed over.
The previous version is kept as NAME.bak the same way. A temp file never outlives a failure.

Links are followed only when this user (or root) made them: a link another user planted
(`pub/handoff.md` -> a 0600 file in root's home) is refused, as OpenSSH and vim refuse, and
a link to nothing never creates its target (opening a dangling link made files at its end).
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

_NEW_FILE_MODE = 0o666  # what open() would create, less the umask


class SessionReadOnlyError(PermissionError):
    """The file has no write bit for its owner: the user asked for it not to change."""

    def __init__(self, path: Path | str) -> None:
        super().__init__(errno.EACCES, "read-only (chmod u+w to let cockpit save)", str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class SaveError(OSError):
    """A save that failed for a reason the system gave; str() is `path: reason`."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class SaveTooLargeError(SaveError):
    """A save that would write a file the next load refuses: nothing is written."""


def _umask() -> int:
    # /proc avoids os.umask(), which sets the mask process-wide for an instant.
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_MAX_HOPS = 40  # the kernel's own limit on links in one lookup


def owner_name(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def _others_can_write(folder: str) -> str:
    try:
        mode = os.stat(folder).st_mode
    except OSError:
        return ""
    if mode & stat.S_ISVTX and mode & stat.S_IWOTH:
        return ", a sticky folder anyone can write"
    if mode & (stat.S_IWOTH | stat.S_IWGRP):
        return ", a folder others can write"
    return ""


def refuse_foreign_link(path: Path | str, link: str, st: os.stat_result) -> None:
    """SaveError unless the link at LINK was made by this user or root: another user's link
    is what an attacker plants to make a root-run cockpit write where they cannot."""
    if st.st_uid in (os.geteuid(), 0):
        return
    folder = os.path.dirname(link) or "."
    raise SaveError(errno.EPERM, f"{link} is a symlink owned by {owner_name(st.st_uid)} in {folder}"
                    f"{_others_can_write(folder)}: not followed (remove it, or give the real path)", str(path))


def resolve_link_chain(path: Path | str) -> tuple[Path, bool]:
    """(the file PATH names at the end of its links, whether a link was followed). Each link
    of the chain is checked (`refuse_foreign_link`); a loop is an error naming PATH."""
    current = os.path.abspath(path)
    followed = False
    for _ in range(_MAX_HOPS):
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            break
        except OSError as exc:
            raise SaveError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        if not stat.S_ISLNK(st.st_mode):
            break
        refuse_foreign_link(path, current, st)
        followed = True
        # The folder's real path, then the link's text: "../x" means from where the link is.
        current = os.path.join(os.path.realpath(os.path.dirname(current)), os.readlink(current))
    else:
        raise SaveError(errno.ELOOP, "a loop of symlinks", str(path))
    return Path(os.path.realpath(os.path.dirname(current))) / os.path.basename(current), followed


def real_path(path: Path) -> Path:
    """Follow a chain of symlinks to the file they name (which may not exist yet)."""
    return resolve_link_chain(path)[0]


def refuse_dangling(path: Path | str, target: Path) -> None:
    raise SaveError(errno.ENOENT, f"a symlink to {target}, which does not exist: cockpit does not create "
                    "a file through a link (create the file first, or give the real path)", str(path))


def fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot sync a folder; the rename itself is still atomic
    finally:
        os.close(fd)


def _write_temp(folder: Path, name: str, chunks: Iterable[bytes], like: os.stat_result | None,
                new_mode: int | None = None) -> tuple[str, os.stat_result]:
    """Write CHUNKS to a fresh temp file in FOLDER with LIKE's mode and ownership; fsynced.

    Returns its path and its fstat after the last write (a rename keeps its inode, size and
    mtime: the signature of the file it becomes); on any failure it is removed and raised.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        try:
            if like is not None:
                _copy_ownership(fd, like)
                os.fchmod(fd, stat.S_IMODE(like.st_mode))
            else:
                os.fchmod(fd, (_NEW_FILE_MODE & ~_umask()) if new_mode is None else new_mode)
            for chunk in chunks:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view):]
            os.fsync(fd)
            written = os.fstat(fd)
        finally:
            os.close(fd)  # may itself report a failed write (NFS, quotas)
    except BaseException:
        _remove(tmp)
        raise
    return tmp, written


def _copy_ownership(fd: int, like: os.stat_result) -> None:
    if os.geteuid() == 0:
        os.fchown(fd, like.st_uid, like.st_gid)
        return
    if like.st_gid != os.getegid():
        try:
            os.fchown(fd, -1, like.st_gid)  # allowed when the user is in that group
        except PermissionError:
            pass


def _remove(tmp: str | None) -> None:
    if tmp is None:
        return
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


def _refuse_unwritable(path: Path, target: Path, st: os.stat_result) -> None:
    # Mode bits, not os.access: as root access() says yes, but a file the user made 0444
    # says "do not change this" to root as well.
    if not st.st_mode & stat.S_IWUSR:
        raise SessionReadOnlyError(path)
    # The rename needs only the folder: without this a user could replace a file that is
    # not theirs to write. (Root may; a read-only filesystem is named when the temp fails.)
    if os.geteuid() != 0 and not os.access(target, os.W_OK):
        raise SaveError(errno.EACCES, "Permission denied", str(path))


def write_atomic(path: Path, data: str, keep_backup: bool = True, new_mode: int | None = None) -> os.stat_result:
    """Replace the file PATH names with DATA; the old file kept as NAME.bak beside it.

    At every instant the file holds either the old or the new complete text. Returns the
    new file's stat as written (its signature, taken before anyone else could change it).
    A file that exists keeps its mode; a new one gets NEW_MODE (None: what the umask gives). Raises
    SessionReadOnlyError for a read-only file and SaveError (`path: reason`) for any
    other failure, with nothing left behind.
    """
    path = Path(path)
    target, via_link = resolve_link_chain(path)
    folder = target.parent
    try:
        st: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise SaveError(exc.errno, _reason(exc, folder), str(path)) from exc
    if st is None and via_link:
        refuse_dangling(path, target)
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise SaveError(errno.EINVAL, "not a regular file", str(path))
        _refuse_unwritable(path, target, st)
    tmp = bak_tmp = None
    try:
        tmp, written = _write_temp(folder, target.name, [data.encode("utf-8")], st, new_mode)
        if keep_backup and st is not None:
            # O_NOFOLLOW: a link swapped in since the check is not read into our .bak.
            with os.fdopen(os.open(target, os.O_RDONLY | os.O_NOFOLLOW), "rb") as old:
                bak_tmp, _ = _write_temp(folder, f"{target.name}.bak", iter(lambda: old.read(1 << 20), b""), st)
            os.replace(bak_tmp, folder / f"{target.name}.bak")
            bak_tmp = None
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise SaveError(exc.errno, _reason(exc, folder), str(path)) from exc
    finally:
        _remove(tmp)
        _remove(bak_tmp)
    fsync_dir(folder)
    return written


def _reason(exc: OSError, folder: Path) -> str:
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and exc.filename and Path(exc.filename).parent == folder:
        return f"cannot write in {folder}: {reason}"
    return reason
