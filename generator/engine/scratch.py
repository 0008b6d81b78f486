"""The scratch folders a build or a preview works in (named after the process that made them), and the removal
of those that runs killed before they could remove their own."""

from __future__ import annotations

import os
import shutil
import time

LEFTOVER_AGE_S = 3600  # a scratch folder without a process id (an older ledgerpress) is removed after an hour


def clear_leftovers(folder: str, prefix: str) -> None:
    """Remove the scratch folders in `folder` named `prefix`<process id>-… whose process no longer runs (or,
    without a process id, older than an hour): ours only, never another user's."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not entry.is_dir(follow_symlinks=False) or info.st_uid != os.getuid():
            continue
        owner = entry.name[len(prefix):].split("-")[0]
        gone = not running(int(owner)) if owner.isascii() and owner.isdigit() else \
            time.time() - info.st_mtime > LEFTOVER_AGE_S
        if gone:
            shutil.rmtree(entry.path, ignore_errors=True)


def running(pid: int) -> bool:
    """Whether a process of this id runs (another user's counts; no id at all, or one past any pid, does not)."""
    if pid <= 0:  # 0 and below name groups of processes, not one
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        pass
    return True
