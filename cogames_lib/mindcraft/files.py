"""Reading files from experiment trees that may hold anything: the hostile-file policy in one place.

- Only regular files are read. A FIFO, socket or device is never opened for reading content (a FIFO
  would block for ever, `/dev/zero` would fill memory); the open uses O_NONBLOCK and O_NOFOLLOW and the
  type is checked on the open descriptor, so a file swapped for a FIFO or a symlink between listing
  and reading is refused too.
- A symlink is followed only when its target is a regular file inside an allowed directory (the
  analysed root, or a symlinked experiment folder the walk entered); anything else is skipped and
  listed with the reason.
- Every read is capped (`DEFAULT_MAX_LOG_BYTES`, 64 MB, configurable): a multi-GB or sparse file is
  refused by its size on the descriptor before a byte is read, and a file that grows while read stops
  at the cap.
- Names are whatever the file system holds: Python gives undecodable bytes as lone surrogates
  (`surrogateescape`), which is lossless in memory (`os.fsencode(name)` restores the bytes) but cannot
  be written as UTF-8. `display_text` gives the printable form (`\\xNN` for each undecodable byte,
  escapes for control characters) used in every stored table and printed line.
"""

from __future__ import annotations

import os
import stat

DEFAULT_MAX_LOG_BYTES = 64 * 1024 * 1024
RESULTS_FILE_MAX_BYTES = 1024 * 1024  # results.txt is a small dict repr
_READ_CHUNK = 1 << 16
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
)
# st_mode file type -> the word a skipped-file reason uses
FILE_KINDS: tuple[tuple[object, str], ...] = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symlink"),
)
_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}


class RefusedFile(Exception):
    """A file the policy does not read; the message is the reason (one line)."""


def kind_of_mode(mode: int) -> str:
    for test, word in FILE_KINDS:
        if test(mode):  # type: ignore[operator]
            return word
    return "not a regular file"


def read_regular_file(path: str, max_bytes: int = DEFAULT_MAX_LOG_BYTES) -> bytes:
    """The bytes of a regular file, in as few syscalls as possible (no pathlib, no buffered reader).

    Raises `RefusedFile` (not a regular file, a symlink, larger than `max_bytes`) or `OSError`.
    """
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        if error.errno == getattr(os, "ELOOP", -1) or os.path.islink(path):
            raise RefusedFile("a symlink (not followed here)") from None
        raise
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(f"{kind_of_mode(info.st_mode)}, not a regular file")
        if info.st_size > max_bytes:
            raise RefusedFile(f"{info.st_size:,} bytes, over the {max_bytes:,}-byte cap")
        data = os.read(descriptor, info.st_size + 1)  # the whole file and a byte more: one read
        while info.st_size < len(data) <= max_bytes:  # it grew since fstat: read on, up to the cap
            chunk = os.read(descriptor, min(_READ_CHUNK, max_bytes + 1 - len(data)))
            if not chunk:
                break
            data += chunk
        if len(data) > max_bytes:
            raise RefusedFile(f"over the {max_bytes:,}-byte cap")
        return data
    finally:
        os.close(descriptor)


def inside(path: str, folder: str) -> bool:
    """`path` is `folder` or below it (both real paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def resolve_symlink(path: str, allowed: tuple[str, ...], want_dir: bool) -> tuple[str | None, str]:
    """(real path, "") when the symlink at `path` may be followed, else (None, reason).

    A file link must end at a regular file inside one of the `allowed` real directories; a directory
    link may point anywhere (a symlinked experiment folder), the walk guards against cycles.
    """
    real = os.path.realpath(path)
    try:
        info = os.stat(real)
    except OSError as error:
        return None, f"broken symlink ({error.strerror or error})"
    if want_dir:
        if not stat.S_ISDIR(info.st_mode):
            return None, f"symlink to {kind_of_mode(info.st_mode)}"
        return real, ""
    if not stat.S_ISREG(info.st_mode):
        return None, f"symlink to {kind_of_mode(info.st_mode)}, not a regular file"
    if not any(inside(real, folder) for folder in allowed):
        return None, "symlink to a file outside the analysed root"
    return real, ""


def display_text(text: str) -> str:
    """Printable, valid UTF-8 form of a name: undecodable bytes as `\\xNN`, control characters escaped."""
    if text.isprintable():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = os.fsencode(text).decode("utf-8", "backslashreplace")
    return text.translate(_CONTROL)


def valid_text(text: str) -> str:
    """Text from inside a log, writable as UTF-8: lone surrogates (`\\ud83d` escapes of broken emoji)
    become `\\ud83d`; everything else, newlines included, stays."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
