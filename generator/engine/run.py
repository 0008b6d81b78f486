"""The one call that builds a site, for every caller (the command line, the preview, the agent desk, the tests):
`build(root, into, options) -> Report`, into an output folder (`Folder`) or into memory (`Memory`). Each keeps
between builds what the next one starts from: a folder in the site's .ledgerpress-cache/, memory in itself.
A build with nothing to do answers from the saved state before the rest of the engine is imported: this
module and those it imports at the top use the standard library and orjson only."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .. import __version__
from ..content.layout import CACHE_DIR
from ..output.folder import FolderStore, OutputRefused
from ..output.lock import Locked
from ..output.look import LiveLook
from ..output.store import CommitStats, MemoryStore, OutputStore
from .clock import BadTime, build_time
from .build_options import Options
from .report import Counts, Report, Scheduled, os_reason
from .state import State, content_digests, load_state, memo_key, options_key, rescan, save_state, scan, settle

if TYPE_CHECKING:
    from .inputs import SiteInputs
    from .memo import Memo
    from .pipeline import BuildResult

Progress = Callable[[str, int, int], None]  # (stage, done, total): told as stories are read and rendered


class Refused(Exception):
    """What stops a build at its output, as the one line its report gives."""


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


def build(root: Path, into: Destination, options: Options = Options(), progress: Progress | None = None) -> Report:
    """Check the site at `root`, then make what changed into `into`; nothing is made if an error remains, and
    `into` keeps the last good build whole. Whatever stops the build is in the report, never raised."""
    started = time.perf_counter()
    root = root.resolve()  # one spelling of every input's path in the cache, whichever way the root is named
    try:
        options = dataclasses.replace(options, now=options.now or build_time())
    except BadTime as err:
        return Report(into.name, refused=str(err))
    key = options_key(__version__, drafts=options.drafts, base_url=options.base_url, out=into.name)
    last = None if options.force else into.last(root)
    state = into.scan(root, last, key)
    if last is not None and into.skips and _up_to_date(last, state, into, options):
        into.unchanged(root, last, state)
        return _last_report(last, into.name, started)
    report = Report(into.name)
    try:
        with into.open(root, state):
            result, stats = _built(root, into, state, options, progress)
    except (Refused, OutputRefused, Locked) as err:
        report.refused = str(err)
        return report
    except OSError as err:
        report.refused = f"cannot write {os_reason(err, into.name)}; {Path(into.name).name}/ left as it was"
        return report
    report.findings, report.learned = result.findings, result.memo
    report.scheduled = [Scheduled(*due) for due in result.scheduled]
    if stats is not None:
        _record(state, result, stats)
        report.counts, report.changed, report.search = _counts(state.summary), stats.paths, result.searched
        report.notes = into.keep(root, state, result)
    report.seconds = time.perf_counter() - started
    return report


def _up_to_date(last: State, now: State, into: Destination, options: Options) -> bool:
    """Nothing that shapes the site changed since the last build, whose output is in place as it left it (with
    the search index asked for: a build that could not make it is followed by one that tries again), and the
    build's time leaves the same stories scheduled (none fell due, none built is ahead of it)."""
    if last.options != now.options or (options.search and not last.summary.get("search")):
        return False
    return last.stale(now.inputs, into.out, int(options.now.timestamp())) is None


def _last_report(last: State, out: str, started: float) -> Report:
    scheduled = [Scheduled(path, url_path, dt.datetime.fromtimestamp(due, dt.timezone.utc))
                 for path, url_path, due in last.scheduled]
    return Report(out, list(last.findings), up_to_date=True, counts=_counts(last.summary), scheduled=scheduled,
                  search=bool(last.summary.get("search")), seconds=time.perf_counter() - started)


def _built(root: Path, into: Destination, state: State, options: Options,
           progress: Progress | None) -> tuple[BuildResult, CommitStats | None]:
    """The pipeline's result, and the store's commit stats when it succeeded (None: nothing was committed)."""
    from .inputs import Prior, Run  # only now: a build with nothing to do stops before the engine is imported
    from .memo import MemoDamaged
    from .pipeline import build_site

    digests = content_digests(root, state.inputs)
    key = memo_key(state.inputs, digests, state.options)
    try:
        memo = None if options.force else into.memo(root, key, state.options)
        store = into.store(root, state)
        try:
            result = build_site(Run(root, options, Prior(memo, digests, (key, state.options)), progress=progress), store)
            return result, store.commit(result.outputs) if result.ok else None
        finally:
            store.abort()  # (the lock, if commit() has not let go of it)
    except MemoDamaged as err:  # found only when read, halfway through: nothing is published
        raise Refused(f"{err}; {Path(into.name).name}/ left as it was") from None


def _record(state: State, result: BuildResult, stats: CommitStats) -> None:
    """What the next build's state says of this one: its findings, the stories it left scheduled, its counts."""
    due = result.scheduled[0] if result.scheduled else None
    state.findings = list(result.findings)
    state.scheduled = [(path, url_path, int(when.timestamp())) for path, url_path, when in result.scheduled]
    state.summary = {"stories": result.stories, "pages": result.pages, "files": stats.files, "written": stats.written,
                     "skipped": stats.unchanged, "deleted": stats.deleted, "search": int(result.searched),
                     "next_due": int(due[2].timestamp()) if due else 0,
                     "newest": int(result.newest.timestamp()) if result.newest else 0}


def _counts(summary: dict[str, int]) -> Counts:
    return Counts(summary.get("stories", 0), summary.get("pages", 0), summary.get("files", 0),
                  summary.get("written", 0), summary.get("skipped", 0), summary.get("deleted", 0))


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


def check(root: Path, force: bool = False, now: dt.datetime | None = None) -> SiteInputs:
    """Every rule over the site as a build sees it (`check`, `publish`), with the memo of the last check: a
    file whose bytes it read (against the same manifests, site.toml and generator) is not read again. The
    memo is kept apart from the builds' (it holds no outputs); one that cannot be saved costs only the next
    check's head start."""
    from .site_check import check_key, check_site, learned
    from .inputs import Prior, Run
    from .memo import MemoDamaged, load_memo, save_memo

    root = root.resolve()
    _, inputs = scan(root, None if force else load_state(root))  # the build's stamps spare reading unchanged files
    digests = content_digests(root, inputs)
    key, options = check_key(inputs, digests, drafts=False)
    memo = None if force else load_memo(root, options, key)
    prior = Prior(memo, digests, (key, options))
    checked = check_site(Run(root, Options(now=now or build_time()), prior))
    if checked.config is not None:
        with contextlib.suppress(OSError, MemoDamaged):
            save_memo(root, learned(checked, checked.records, prior))
    return checked
