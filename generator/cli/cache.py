"""The cache as the commands use it: a memo loaded to be kept for the process's life, and the site checked
through the check's own memo (for `check` and `publish`)."""

from __future__ import annotations

import contextlib
import gc
from pathlib import Path
from typing import TYPE_CHECKING

from .options import build_now

if TYPE_CHECKING:
    from ..engine.check import Checked
    from ..engine.memo import Memo


def load_memo_kept(root: Path, options: str, key: str) -> Memo | None:
    """The last run's memo, which this process keeps to its end: loaded with the cyclic collector paused and
    then frozen, so that no pass of the collector walks it (none could free any of it)."""
    from ..engine.memo import load_memo

    gc.disable()
    try:
        return load_memo(root, options, key)
    finally:
        gc.freeze()
        gc.enable()


def site_checked(root: Path, force: bool = False) -> Checked:
    """Every rule over the site as a build sees it (`check`, `publish`), with the memo of the last check: a
    file whose bytes it read (against the same manifests, site.toml and generator) is not read again. The
    memo is kept apart from the builds' (it holds no outputs); one that cannot be saved costs only the next
    check's head start."""
    from ..engine.check import check_key, check_site, learned
    from ..engine.memo import MemoDamaged, save_memo
    from ..engine.pool import default_jobs
    from ..engine.state import content_digests, load_state, scan

    _, inputs = scan(root, None if force else load_state(root))  # the build's stamps spare reading unchanged files
    digests = content_digests(root, inputs)
    key, options = check_key(inputs, digests, drafts=False)
    memo = None if force else load_memo_kept(root, options, key)
    checked = check_site(root, drafts=False, jobs=default_jobs(), memo=memo, digests=digests, now=build_now())
    if checked.config is not None:
        with contextlib.suppress(OSError, MemoDamaged):
            save_memo(root, learned(checked, checked.records, key, options, memo))
    return checked
