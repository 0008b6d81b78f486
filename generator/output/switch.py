"""Exchanging two folders in one step, where the system can."""

from __future__ import annotations

import ctypes
import errno
import os
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
