"""Preview: build in memory, serve it (on this machine unless told otherwise), rebuild on every save and reload open pages; never writes public/."""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from watchfiles import DefaultFilter, watch

from ..content.findings import Finding
from ..engine import Memory, Options, build
from ..engine.pool import default_jobs
from ..engine.records import SearchRecord
from ..engine.indexing import make_search, search_plan
from ..output.store import MemoryStore
from ..site.outputs import output_file
from .preview_server import EVERYWHERE, PreviewServer, preview_url
from .live import Live, Snapshot, overlay, reload_script, scheduled_banner

DEBOUNCE_MS, STEP_MS, IDLE_MS = 50, 10, 200
# The index of a save waits this long: the open pages reload first, and are served without the planning of
# the index holding the interpreter's lock as they are.
INDEX_AFTER_S = 0.15


def _interrupt_in(pid: int) -> Callable[[int, Any], None]:
    """A Ctrl-C (or SIGTERM) handler that stops the preview (process `pid`), which then abandons its build and
    withdraws its announcement; a forked build worker that inherits it before the pool sets its own leaves
    Ctrl-C to the preview instead of printing a traceback of its own, and ends on SIGTERM as it would have."""

    def interrupt(signum: int, frame: Any) -> None:
        if os.getpid() == pid:
            raise KeyboardInterrupt
        if signum == signal.SIGTERM:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)

    return interrupt


@dataclass
class Rebuilt:
    """One finished build, for the terminal: what triggered it (`sources`), the output files it wrote or
    deleted (`rewritten`), what it found."""

    snapshot: Snapshot
    sources: list[str]
    rewritten: list[str]
    ok: bool
    seconds: float
    error: BaseException | None = None


@dataclass
class _Built:
    """One build into the store in memory: its findings and, if it succeeded, its files, the banner of each
    scheduled story's page by file (the preview shows them, the build does not), the output files it wrote or
    deleted, and what its search index is made from."""

    findings: tuple[Finding, ...]
    files: dict[str, bytes] | None = None
    banners: dict[str, bytes] = field(default_factory=dict)
    rewritten: list[str] = field(default_factory=list)
    searchable: tuple | None = None


class Preview:
    """Bind on construction (so the URL is known), then build, serve and watch on threads until close()."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 8000, drafts: bool = False,
                 on_build: Callable[[Rebuilt], None] | None = None,
                 on_notes: Callable[[list[Finding]], None] | None = None) -> None:
        """`on_build`: told of each rebuild; `on_notes`: of what indexing the search found to say (LP901)."""
        self.root, self.drafts, self.on_build = root.resolve(), drafts, on_build or (lambda rebuilt: None)
        self.on_notes = on_notes or (lambda notes: None)
        self.live = Live()
        self.server = PreviewServer(host, port, self.live)
        bound, self.port = self.server.server_address[:2]
        self.url = preview_url(host, bound, self.port)
        self.everywhere = bound in EVERYWHERE  # reachable from other devices, at an address of this machine's
        self._stop = threading.Event()
        self._indexing = threading.Lock()  # one Pagefind run at a time
        self.memory = Memory()              # the last good build's files, and what it learned, so that a save
                                            # rebuilds only what it changed
        self._search_store = MemoryStore()  # the search index, made after each build's reload (see _index)
        self._search: SearchRecord | None = None
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        """Serve at once (a 'Building…' page until the first build is in), and watch; the watcher builds first."""
        ready = threading.Event()
        for target, args in ((self.server.serve_forever, (0.2,)), (self._watch, (ready,))):
            thread = threading.Thread(target=target, args=args, name=f"ledgerpress-{target.__name__}", daemon=True)
            thread.start()
            self._threads.append(thread)
        ready.wait(10)

    def run(self) -> None:
        """start(), then wait for Ctrl-C; always close the watcher and the server."""
        # (the build's pool workers put SIGTERM back to its default: the pool stops them with it)
        main = threading.current_thread() is threading.main_thread()
        previous = {signum: signal.signal(signum, _interrupt_in(os.getpid())) for signum in (signal.SIGINT, signal.SIGTERM)
                    if main and signal.getsignal(signum) not in (signal.SIG_IGN, None)}  # an ignored one stays so
        try:
            self.start()
            while not self._stop.wait(0.25):  # timed: the kernel may hand Ctrl-C to another thread, and Python
                pass                          # runs the handler only when the main thread next wakes
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
            for signum, handler in previous.items():
                signal.signal(signum, handler)

    def close(self) -> None:
        self._stop.set()
        self.live.close()
        if self._threads:  # shutdown() waits for serve_forever(), so only once it has run
            self.server.shutdown()
        self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=1)  # a build in flight is abandoned: it is a daemon thread

    def wait_for(self, version: int, timeout: float = 30) -> Snapshot:
        """Block until a snapshot at least this new is live (what the tests wait on)."""
        deadline = time.monotonic() + timeout
        snapshot = self.live.snapshot
        while snapshot.version < version and time.monotonic() < deadline:
            snapshot = self.live.wait(snapshot.version, deadline - time.monotonic()) or snapshot
        return snapshot

    def watched(self) -> list[Path]:
        """content/ (site.toml, manifests, stories, pages) and the site's own templates/, if it has one."""
        found = [path for path in (self.root / "content", self.root / "templates") if path.is_dir()]
        return found or [self.root]

    def _watch(self, ready: threading.Event) -> None:
        """Build once the watcher is live (so no save is missed), then once per batch of changes. A watched folder
        made or removed meanwhile (a site's first templates/) starts the watcher again on the new set, and the
        first build after it looks at every input: what was saved there before the watcher saw it counts too."""
        folders, sources = self.watched(), []
        while not self._stop.is_set():
            first = True
            try:
                for changes in watch(*folders, watch_filter=DefaultFilter(), debounce=DEBOUNCE_MS, step=STEP_MS,
                                     rust_timeout=IDLE_MS, yield_on_timeout=True, stop_event=self._stop,
                                     raise_interrupt=False):
                    if first or changes:
                        ready.set()
                        self.rebuild(sorted({*sources, *(self._shown(path) for _, path in changes)}),
                                     None if first else {path for _, path in changes})
                        first, sources = False, []
                    if self.watched() != folders:  # looked for, not watched: the root holds public/, .git and more
                        break
            except FileNotFoundError:  # removed before the watcher saw it: look again, without spinning
                self._stop.wait(IDLE_MS / 1000)
            found = self.watched()
            sources += sorted(self._shown(str(path)) for path in set(found) ^ set(folders))
            folders = found

    def _shown(self, path: str) -> str:
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path

    def rebuild(self, sources: list[str], changed: set[str] | None = None) -> Rebuilt:
        """Build in memory; swap the files in (or keep the last good ones), and only then wake the pages.
        `changed`: the files the watcher saw change since the last build (None: look at every input)."""
        started = time.perf_counter()
        error = None
        try:
            built = self._build(changed)
        except Exception as err:  # a bug in the generator must not take the preview down with it
            error = err
            built = _Built((Finding("ledgerpress", 1, 1, "INTERNAL",
                                    f"the build crashed: {type(err).__name__}: {err}"),))
        old = self.live.snapshot
        ok = built.files is not None
        # the last search index serves until the new one is ready (see _index)
        files = {**old.search, **built.files} if built.files is not None else old.files
        banners = built.banners if ok else old.scheduled
        rewritten = sorted(built.rewritten)
        snapshot = old
        if old.version == 0 or rewritten or built.findings != old.findings or banners != old.scheduled:
            errors = [finding for finding in built.findings if finding.severity == "error"]
            tail = (overlay(errors) + reload_script(old.version + 1)).encode("utf-8")
            snapshot = Snapshot(old.version + 1, files, built.findings, time.perf_counter() - started, tail, banners,
                                old.search)
            self.live.swap(snapshot)
        rebuilt = Rebuilt(snapshot, sources, rewritten, ok, time.perf_counter() - started, error)
        self.on_build(rebuilt)
        if built.searchable is not None:  # off the watcher thread: the next save must not wait for its index
            indexing = threading.Timer(INDEX_AFTER_S, self._index, args=(snapshot, built.searchable))
            indexing.name, indexing.daemon = "search-index", True
            indexing.start()
        return rebuilt

    def _build(self, changed: set[str] | None) -> _Built:
        """One build into memory, from the last good build's memo (`changed`: what the watcher saw since)."""
        self.memory.changed = changed
        report = build(self.root, self.memory, Options(self.drafts, self.url, search=False, scheduled=True))
        if report.refused is not None:  # (memory refuses only a build time that cannot be read)
            return _Built((Finding("SOURCE_DATE_EPOCH", 1, 1, "LP002", report.refused),))
        if not report.ok:
            return _Built(tuple(report.findings))
        banners = {output_file(url_path): scheduled_banner(when) for _, url_path, when in report.scheduled}
        return _Built(tuple(report.findings), self.memory.files, banners, report.changed, self.memory.searchable)

    def _index(self, snapshot: Snapshot, searchable: tuple) -> None:
        """Pagefind indexes again the shards whose pages changed, at the lowest CPU priority, after the reload;
        its files join the same snapshot version (no second reload) unless a newer build came first."""
        with self._indexing:
            if self.live.snapshot is not snapshot or self._stop.is_set():
                return  # a newer build came first (its own index follows), or the preview was closed meanwhile
            plan = search_plan(*searchable)
            try:
                found = make_search(plan, self._search, self._search_store, snapshot.files.__getitem__,
                                    default_jobs(), nice=True)
            except BaseException:  # as in _build: the next index may keep a bundle this one had half replaced
                self._search_store.abort()
                raise
            if found.record is not None:
                self._search_store.commit(found.record.outputs)
            else:
                self._search_store.abort()
            self._search = found.record
        self._indexed(snapshot, found.notes, self._search_store.files if found.record else {})

    def _indexed(self, snapshot: Snapshot, notes: list[Finding], files: dict[str, bytes]) -> None:
        if notes:
            self.on_notes(notes)
        if files:
            served = dict(snapshot.files)
            for path in snapshot.search:
                del served[path]
            served.update(files)
            self.live.replace(snapshot, dataclasses.replace(snapshot, files=served, search=files))

