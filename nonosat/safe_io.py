"""Safe file input and output: bounded reads of regular files only, and atomic writes through a
temporary that cannot be hijacked.

* :func:`read_bounded` opens with ``O_NONBLOCK`` (so a FIFO never blocks), checks with ``fstat``
  that the file is a regular file (FIFOs, ``/dev/zero``, ``/dev/urandom``, sockets and other
  devices are refused, also behind a symbolic link), and reads at most ``max_bytes`` (a file that
  grows while being read is refused too).  Every puzzle, certificate and results file nonosat
  reads goes through it.
* :func:`atomic_write` writes a new file beside the target with :func:`tempfile.mkstemp`
  (``O_CREAT | O_EXCL`` under an unpredictable name: a planted symbolic link or file is never
  followed or reused), then renames it over the target, so a failure never leaves a half-written
  file and a link at the target is replaced, not written through.
* :func:`claimed_directory` does the same for a directory (a certificate): filled in a fresh
  hidden sibling, then renamed into place (:func:`publish_directory`).

Both raise :class:`~nonosat.errors.FormatError` (one line naming the file), never ``OSError``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from nonosat import interrupts
from nonosat.errors import FormatError

#: Bytes read per ``os.read`` call.
_CHUNK = 1 << 20

#: The process umask, read once (``os.umask`` can only be read by setting it, which is not
#: thread-safe).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _kind(mode: int) -> str:
    """What a non-regular file is, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_bounded(path: str | os.PathLike[str], max_bytes: int, what: str = "file") -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    Never blocks (``O_NONBLOCK``: a FIFO without a writer is refused, not waited on) and never
    reads without bound (``/dev/zero`` is refused by ``fstat`` before any read).

    Parameters
    ----------
    path : path-like
    max_bytes : int
        Largest size accepted, in bytes.
    what : str
        What the file should be (``"puzzle file"``, ``"certificate file"``), for messages.

    Returns
    -------
    bytes

    Raises
    ------
    FormatError
        A missing or unreadable file, a directory, FIFO, device or socket, or a file larger than
        ``max_bytes`` (checked before reading, and again while reading).
    """
    name = str(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            raise FormatError(name, None, f"is a directory, not a {what}") from None
        raise FormatError(name, None, exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FormatError(
                name,
                None,
                f"is {_kind(info.st_mode)}, not a {what}; nonosat reads only regular files",
            )
        if info.st_size > max_bytes:
            raise FormatError(name, None, _too_large(info.st_size, max_bytes, what))
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise FormatError(name, None, _too_large(total, max_bytes, what))
        return b"".join(chunks)
    except OSError as exc:
        raise FormatError(name, None, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _too_large(size: int, max_bytes: int, what: str) -> str:
    return (
        f"{what} is larger than {max_bytes} bytes (found {size}"
        f"{' or more' if size == max_bytes + 1 else ''}); raise the limit with "
        "NONOSAT_MAX_FILE_BYTES"
    )


def atomic_write(path: str | os.PathLike[str], data: bytes, force: bool = False) -> None:
    """Write ``data`` to ``path`` atomically and safely.

    The bytes go to a new temporary file in the target's directory, created by
    :func:`tempfile.mkstemp` (``O_EXCL``, unpredictable name, mode from the umask like an
    ordinary file), flushed, then renamed over ``path``.  Without ``force`` an existing ``path``
    (even a dangling symbolic link) is never replaced: the temporary is hard-linked to ``path``,
    which fails if anything is there, closing the window between a check and the rename.  A
    symbolic link at ``path`` is replaced by the file, never written through.

    Raises
    ------
    FormatError
        ``path`` exists and not ``force``; ``path`` is a directory, FIFO, device or socket (never
        replaced, even with ``force``); the directory is missing or not writable; the disk is
        full (the temporary is removed).
    """
    target = Path(path)
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        # even with --force: renaming over /dev/null or a FIFO would replace the node itself
        raise FormatError(str(target), None, f"is {_kind(mode)}; nonosat writes only regular files")
    if not force and mode is not None:
        raise FormatError(str(target), None, "already exists; use --force to overwrite it")
    directory = target.parent if str(target.parent) else Path(".")
    # an interrupt does not unwind a write half-way: the file is written or not at all (and a
    # process ended at once after an interrupt removes the temporary first)
    with interrupts.deferred(), contextlib.ExitStack() as stack:
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".nonosat-tmp",
                                       dir=directory)
        except OSError as exc:
            raise FormatError(str(target), None, exc.strerror or str(exc)) from None
        stack.enter_context(interrupts.temporary(tmp))
        try:
            try:
                os.fchmod(fd, 0o666 & ~_UMASK)
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            finally:
                os.close(fd)
            if force:
                os.replace(tmp, target)
            else:
                try:
                    os.link(tmp, target, follow_symlinks=False)
                except FileExistsError:
                    raise FormatError(
                        str(target), None, "already exists; use --force to overwrite it"
                    ) from None
                except OSError as exc:
                    if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP,
                                         errno.EXDEV):
                        raise
                    os.replace(tmp, target)  # no hard links on this file system
                else:
                    os.unlink(tmp)
        except OSError as exc:
            _remove(tmp)
            raise FormatError(str(target), None, exc.strerror or str(exc)) from None
        except BaseException:
            _remove(tmp)
            raise
    interrupts.check()


def _remove(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


@contextlib.contextmanager
def claimed_directory(out: str | os.PathLike[str], force: bool = False,
                      own: frozenset[str] = frozenset()) -> Iterator[Path]:
    """A fresh directory to fill, renamed to ``out`` when the block ends without an error.

    The directory is a hidden sibling of ``out`` made by :func:`tempfile.mkdtemp` (created
    exclusively, under an unpredictable name, ``*.nonosat-tmp``), declared a temporary
    (:func:`nonosat.interrupts.temporary`: a process that must end at once after Ctrl-C or
    SIGTERM removes it first), and removed if the block raises (an interrupt included).  When
    the block ends it is renamed to ``out`` (:func:`publish_directory`), so ``out`` holds every
    file written in the block or nothing new: never a half-written directory, and two writers
    never share one.

    Parameters
    ----------
    out : path
        The directory to make; it may exist empty.
    force : bool
        Replace an existing non-empty ``out``: what it holds besides the names of ``own``
        (other files of the user's) is copied into the fresh directory first (symbolic links
        as links), then the old ``out`` is moved aside and removed once the new one is in
        place.  An interrupt before that leaves the old ``out`` as it was.
    own : frozenset of str
        The names the block writes (a certificate's files, of any kind): with ``force`` the old
        ones are not carried over (stale ones disappear).

    Raises
    ------
    FormatError
        ``out`` is a file, or a non-empty directory without ``force`` (checked before the block
        and again at the rename: another run may have made it meanwhile); the directory cannot
        be made.
    """
    import shutil

    target = Path(out)
    check_directory_claim(target, force)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name[:100]}.", suffix=".nonosat-tmp",
                                    dir=target.parent))
        os.chmod(tmp, 0o777 & ~_UMASK)  # as an ordinary mkdir (mkdtemp makes it 0700)
    except OSError as exc:
        raise FormatError(str(target), None, exc.strerror or str(exc)) from None
    with interrupts.temporary(tmp):
        try:
            if force and target.is_dir():
                _carry_over(target, tmp, own)
            yield tmp
            with interrupts.deferred():
                check_directory_claim(target, force)
                publish_directory(tmp, target, force)
        except FileExistsError:
            raise FormatError(str(target), None, "directory is not empty (written meanwhile by "
                              "another run?); use --force to overwrite") from None
        except OSError as exc:
            raise FormatError(str(target), None, exc.strerror or str(exc)) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # nothing there once renamed
    interrupts.check()


def check_directory_claim(out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, or a non-empty directory without ``force``.

    Raises
    ------
    FormatError
    """
    if out.exists() and not out.is_dir():
        raise FormatError(str(out), None, "is a file, not a directory")
    if out.is_dir() and not force and any(out.iterdir()):
        raise FormatError(str(out), None, "directory is not empty; use --force to overwrite")


def _carry_over(old: Path, new: Path, own: frozenset[str]) -> None:
    """Copy what ``old`` holds besides the names of ``own`` (and stale ``*.nonosat-tmp``
    temporaries) into ``new``; symbolic links are copied as links, never followed."""
    import shutil

    for entry in old.iterdir():
        if entry.name in own or entry.name.endswith(".nonosat-tmp"):
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), new / entry.name)
        elif entry.is_dir():
            shutil.copytree(entry, new / entry.name, symlinks=True)
        elif entry.is_file():
            shutil.copy2(entry, new / entry.name)


def publish_directory(claim: Path, out: Path, force: bool) -> None:
    """Rename the directory ``claim`` to ``out`` (atomic; an empty ``out`` is replaced).

    Raises
    ------
    FileExistsError
        ``out`` exists and is not an empty directory, and not ``force`` (with ``force`` it is
        moved aside, then removed, and the rename is tried again).
    OSError
        Any other failure of the rename.
    """
    import shutil

    for _ in range(100):
        try:
            os.rename(claim, out)  # atomic; refuses a non-empty directory, a file or a link
            return
        except OSError as exc:
            if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR, errno.EISDIR):
                raise
            if not force:
                raise FileExistsError(exc.errno, exc.strerror, str(out)) from None
        old = Path(tempfile.mkdtemp(prefix=".old-", dir=out.parent))
        try:
            os.rename(out, old / "x")
        except FileNotFoundError:
            pass  # removed meanwhile: try the rename again
        shutil.rmtree(old, ignore_errors=True)
    raise FileExistsError(errno.EEXIST, "still being replaced by another run", str(out))
