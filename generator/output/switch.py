"""Putting a new tree in a live folder's place: by exchanging the two in one step, where the system can."""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
from pathlib import Path

_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def exchange(first: Path, second: Path) -> bool:
    """Swap two folders at once (Linux renameat2 RENAME_EXCHANGE): every reader sees one or the other, never
    neither. False, and nothing done, where the system or the file system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(second))


def switch(new: Path, live: Path, aside: Path) -> None:
    """Put the folder `new` where `live` is, and the live one (if any) where `new` was: in one step where the
    system can exchange them, else by three renames through `aside` (a moment without the live folder)."""
    if not live.exists():
        os.rename(new, live)
    elif not exchange(new, live):
        shutil.rmtree(aside, ignore_errors=True)
        os.rename(live, aside)
        try:
            os.rename(new, live)
        except OSError:
            os.rename(aside, live)
            raise
        os.rename(aside, new)


def restore(live: Path, aside: Path) -> None:
    """Put back the live folder that a switch through renames, stopped between its first two, left aside (and
    no live folder): the next one to switch would take the place for empty and delete what was set aside."""
    if not live.exists() and aside.is_dir():
        os.rename(aside, live)
