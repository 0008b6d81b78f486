"""Where a build goes, and where it keeps what the next build starts from: an output folder (`Folder`: the
inputs' state and the memo in the site's .ledgerpress-cache/) or this process's memory (`Memory`: the preview,
the tests). Another way to keep build state is another Destination. The standard library and orjson at the
top, as engine/run.py: a build with nothing to do imports nothing more."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..content.layout import CACHE_DIR
from ..output.folder import FolderStore
from ..output.look import LiveLook
from ..output.store import MemoryStore, OutputStore
from .report import os_reason
from .state import State, load_state, rescan, save_state, scan, settle

if TYPE_CHECKING:
    from .memo import Memo
    from .pipeline import BuildResult


class Destination(Protocol):
    """Where a build goes, and where it keeps what the next build starts from."""

    name: str         # where, as the report says it (and the options' key records it)
    out: Path | None  # the output folder, if the outputs go to one
    skips: bool       # a build with nothing to do stops before it reads anything

    def last(self, root: Path) -> State | None:
        """The last good build's state."""

    def scan(self, root: Path, last: State | None, key: str) -> State:
        """Every input as it is now, for a build with these options (`key`)."""

    def unchanged(self, root: Path, last: State, now: State) -> None:
        """Nothing to build: keep what the scan learned (a file hashed again whose bytes are the same)."""

    def open(self, root: Path, state: State) -> contextlib.AbstractContextManager[Destination]:
        """Ready for a build of these inputs; what it refuses is a Refused, an OutputRefused, a Locked or an
        OSError."""

    def memo(self, root: Path, key: str, options: str) -> Memo | None:
        """What the last good build learned, if it was made for this key."""

    def store(self, root: Path, state: State) -> OutputStore: ...

    def keep(self, root: Path, state: State, result: BuildResult) -> list[str]:
        """Keep what the next build starts from; notes on what could not be kept."""


@dataclass
class Folder:
    """An output folder (public/), switched in whole; what the next build starts from is kept in the site's
    .ledgerpress-cache/ (the inputs' state and the memo)."""

    out: Path
    skips = True
    look: LiveLook | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.out = self.out.resolve()
        self.name = str(self.out)

    def last(self, root: Path) -> State | None:
        return load_state(root)

    def scan(self, root: Path, last: State | None, key: str) -> State:
        started, inputs = scan(root, last)
        return State(key, started, inputs)

    def unchanged(self, root: Path, last: State, now: State) -> None:
        # Files hashed again, their bytes the same (touched by a checkout or a copy, or changed just before the
        # last scan): what the scan knew of them is kept, or every later build would hash them again.
        if any(seen is not last.inputs.get(path) and seen[3] != "unread" for path, seen in now.inputs.items()):
            with contextlib.suppress(OSError):
                save_state(root, dataclasses.replace(last, started_ns=now.started_ns, inputs=settle(now.inputs)))

    @contextlib.contextmanager
    def open(self, root: Path, state: State) -> Iterator[Folder]:
        """The live files' stats are compared with the record in a forked process while the engine loads."""
        with LiveLook(self.out) as self.look:
            try:
                yield self
            finally:
                self.look = None

    def memo(self, root: Path, key: str, options: str) -> Memo | None:
        from .memo import load_memo

        return load_memo(root, options, key)

    def store(self, root: Path, state: State) -> OutputStore:
        return FolderStore(self.out, root, state.build, self.look)

    def keep(self, root: Path, state: State, result: BuildResult) -> list[str]:
        from .memo import MemoDamaged, save_memo

        state.inputs = settle(state.inputs)  # what changed while the build ran is read again by the next one
        try:
            save_state(root, state)
            if result.memo is not None:
                save_memo(root, result.memo)
        except (OSError, MemoDamaged) as err:  # the site is built: only the next build's head start is lost
            why = err.path if isinstance(err, MemoDamaged) else os_reason(err, CACHE_DIR)
            return [f"the build cache could not be saved ({why}): the next build reads and renders everything "
                    "again"]
        return []


@dataclass
class Memory:
    """Outputs in this process's memory (the preview, the tests): `files` holds the last good build, and the
    memo and the inputs' last scan are kept here for the next build rather than in .ledgerpress-cache/. A
    build into memory always runs (with the memo, a build with nothing changed makes nothing)."""

    files_store: MemoryStore = field(default_factory=MemoryStore)
    learned: Memo | None = None       # the last good build's memo
    scanned: State | None = None      # the inputs as the last build (good or not) found them
    changed: set[str] | None = None   # the files a watcher saw change since that scan (None: look at every one)
    searchable: tuple | None = None   # what the last good build's search index would be made from
    name = "memory"
    out = None
    skips = False

    @property
    def files(self) -> dict[str, bytes]:
        return self.files_store.files

    def last(self, root: Path) -> State | None:
        return self.scanned

    def scan(self, root: Path, last: State | None, key: str) -> State:
        found = rescan(last, self.changed) if last is not None and self.changed is not None else None
        started, inputs = found or scan(root, last)  # a watcher's report spares a look at every file
        self.scanned, self.changed = State(key, started, inputs), None
        return self.scanned

    def unchanged(self, root: Path, last: State, now: State) -> None:
        pass

    @contextlib.contextmanager
    def open(self, root: Path, state: State) -> Iterator[Memory]:
        yield self

    def memo(self, root: Path, key: str, options: str) -> Memo | None:
        # (kept when a build fails, less the indexes it took over, which the next build makes afresh)
        return self.learned if self.learned is not None and self.learned.key == key else None

    def store(self, root: Path, state: State) -> OutputStore:
        return self.files_store

    def keep(self, root: Path, state: State, result: BuildResult) -> list[str]:
        self.learned, self.searchable = result.memo, result.searchable
        return []
