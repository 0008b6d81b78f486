"""Preview: build in memory, serve it on loopback, rebuild on every save and reload open pages; never writes public/."""

from __future__ import annotations

import dataclasses
import html
import ipaddress
import json
import os
import re
import signal
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from watchfiles import DefaultFilter, watch

from . import __version__
from .content.findings import Finding
from .content.layout import key_of
from .engine.build import Options, build_site
from .engine.memo import Memo
from .engine.pool import default_jobs
from .engine.records import SearchRecord
from .engine.search import make_search, search_plan
from .engine.state import State, code_digest, content_digests, options_key, scan
from .output.media import TEXT, TYPES, content_type
from .output.store import MemoryStore
from .site.search import BUNDLE

TOOLS = "/__ledgerpress/"
SEARCH = BUNDLE + "/"
DEBOUNCE_MS, STEP_MS, IDLE_MS = 50, 20, 200
KEEPALIVE_S = 15.0
MAX_CONNECTIONS = 64  # served at once (a thread each, event streams included); more get a 503 at once
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
_VERSION = re.compile(r"[0-9]{1,18}")
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^:\[\]]+)(?::([0-9]{1,5}))?")  # a Host header: name or [IPv6], port


def site_key(target: str) -> str | None:
    """The output path a request names ('' or 'x/' for folders), or None if it tries to leave the site."""
    if not target.startswith("/") or target.startswith("//"):
        return None
    raw = urlsplit(target).path
    if "\\" in raw or "\x00" in raw or "%5c" in raw.lower() or "%00" in raw:
        return None
    try:
        path = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        return None
    parts = path.split("/")[1:]
    if "\\" in path or "\x00" in path or any(part in (".", "..") for part in parts) or "" in parts[:-1]:
        return None
    return "/".join(parts)


@dataclass(frozen=True)
class Snapshot:
    """What the server shows: the last good files, the newest build's findings, the version pages reload on."""

    version: int
    files: dict[str, bytes] | None = None  # None until a build has succeeded
    findings: tuple[Finding, ...] = ()
    seconds: float = 0.0
    tail: bytes = field(default=b"", compare=False)  # injected before </body> of served HTML

    @property
    def errors(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.severity == "error"]


def reload_script(version: int) -> str:
    return (f'<script>(()=>{{const s=new EventSource("{TOOLS}events?v={version}");'
            's.addEventListener("reload",()=>{s.close();location.reload()})})()</script>')


def overlay(errors: list[Finding]) -> str:
    """A banner over the last good page: the findings that stopped the newest build, escaped."""
    if not errors:
        return ""
    lines = html.escape("\n".join(str(finding) for finding in errors))
    count = f'{len(errors)} error{"s" * (len(errors) != 1)}'
    return ('<div id="ledgerpress-errors" role="alert" style="position:fixed;left:0;right:0;bottom:0;'
            'z-index:2147483647;max-height:50vh;overflow:auto;margin:0;padding:12px 16px;background:#2b0b0e;'
            'color:#fff;border-top:4px solid #e5484d;font:14px/1.45 ui-monospace,Menlo,Consolas,monospace">'
            f'<strong>Build failed: {count}; showing the last good build.</strong> '
            f'<a href="{TOOLS}errors" style="color:#ffb3b8">All findings</a>'
            f'<pre style="white-space:pre-wrap;margin:8px 0 0">{lines}</pre></div>')


def error_page(snapshot: Snapshot) -> bytes:
    """The dedicated page that lists every finding of the newest build (or says it is still building)."""
    if snapshot.version == 0:
        title, lead = "Building…", "The first build is running; this page reloads when it is done."
    elif snapshot.errors:
        title, lead = "Build failed", "Fix these and save: the page reloads by itself."
    else:
        title, lead = "No errors", "The newest build passed every check."
    items = "".join(f"<li><code>{html.escape(str(f))}</code>{' (warning)' * (f.severity != 'error')}</li>"
                    for f in snapshot.findings)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title} · ledgerpress</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
            f'<body style="font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem">'
            f'<h1>{title}</h1><p>{lead}</p><ul>{items}</ul>'
            f'<p><a href="/">Home</a></p>{reload_script(snapshot.version)}</body></html>\n').encode("utf-8")


def with_tail(page: bytes, tail: bytes) -> bytes:
    at = page.rfind(b"</body>")
    return page + tail if at < 0 else page[:at] + tail + page[at:]


class Live:
    """The current snapshot and the wake-up for event streams: a new build is swapped in first, announced after."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.snapshot = Snapshot(0)
        self.closed = False

    def swap(self, snapshot: Snapshot) -> None:
        with self._changed:
            self.snapshot = snapshot
            self._changed.notify_all()

    def replace(self, current: Snapshot, snapshot: Snapshot) -> bool:
        """Swap in snapshot only if current is still live (a later build wins over a late search index)."""
        with self._changed:
            if self.snapshot is not current:
                return False
            self.snapshot = snapshot
            self._changed.notify_all()
            return True

    def wait(self, seen: int, timeout: float) -> Snapshot | None:
        """The snapshot once its version differs from seen (or the timeout passed); None when closing."""
        with self._changed:
            self._changed.wait_for(lambda: self.closed or self.snapshot.version != seen, timeout)
            return None if self.closed else self.snapshot

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()


class Handler(BaseHTTPRequestHandler):
    """GET/HEAD from the in-memory build; /__ledgerpress/ holds the event stream, the error page and a status."""

    server: PreviewServer
    server_version = "ledgerpress-preview"
    protocol_version = "HTTP/1.1"
    timeout = 60

    def do_GET(self) -> None:
        self._respond(head=False)

    def do_HEAD(self) -> None:
        self._respond(head=True)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: the terminal is for builds and findings."""

    def _respond(self, head: bool) -> None:
        if not self.server.host_allowed(self.headers.get("Host")):
            # DNS rebinding: a web page whose name resolves to 127.0.0.1 must not read the preview
            return self._send(403, b"403 forbidden: this preview answers only to its own address\n", TEXT, head)
        key = site_key(self.path)
        if key is None:
            return self._send(400, b"400 bad request: that path is outside the site\n", TEXT, head)
        if self.path.startswith(TOOLS):
            return self._tool(key.removeprefix(TOOLS[1:]), head)
        snapshot = self.server.live.snapshot
        if snapshot.files is None:
            return self._send(503 if snapshot.version == 0 else 500, error_page(snapshot), TYPES[".html"], head)
        files = snapshot.files
        name = key + "index.html" if key == "" or key.endswith("/") else key
        status = 200
        if name not in files and f"{key}/index.html" in files:
            query = urlsplit(self.path).query
            location = urlsplit(self.path).path + "/" + (f"?{query}" if query else "")
            return self._send(301, b"", TEXT, head, {"Location": location})
        if name not in files:
            status, name = 404, "404.html"
        data = files.get(name, b"404 not found\n")
        kind = content_type(name) if name in files else TEXT
        if kind.startswith("text/html"):
            data = with_tail(data, snapshot.tail)
        self._send(status, data, kind, head)

    def _tool(self, name: str, head: bool) -> None:
        snapshot = self.server.live.snapshot
        if name == "events" and not head:
            return self._events(snapshot)
        if name == "errors":
            return self._send(200, error_page(snapshot), TYPES[".html"], head)
        if name == "status":
            status = {"version": snapshot.version, "built": snapshot.files is not None, "seconds": snapshot.seconds,
                      "errors": [str(f) for f in snapshot.errors], "findings": [f.as_dict() for f in snapshot.findings]}
            return self._send(200, json.dumps(status).encode(), "application/json", head)
        self._send(404, b"404 not found\n", TEXT, head)

    def _events(self, snapshot: Snapshot) -> None:
        """Server-sent events: `reload` whenever the version differs from the one the page was served at."""
        values = parse_qs(urlsplit(self.path).query, max_num_fields=16).get("v", [""]) if len(self.path) < 2048 else [""]
        if values[0] and not _VERSION.fullmatch(values[0]):  # (str.isdigit() passes '²', which int() refuses)
            return self._send(400, b"400 bad request: v must be a version number\n", TEXT, False)
        seen = int(values[0]) if values[0] else snapshot.version
        self.close_connection = True
        self.send_response(200)
        for name, value in (("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                            ("Connection", "close")):
            self.send_header(name, value)
        self.end_headers()
        self._stream(b"retry: 500\n\n")
        while snapshot is not None:
            if snapshot.version != seen:
                seen = snapshot.version
                self._stream(f"event: reload\ndata: {seen}\n\n".encode())
            else:
                self._stream(b": keep-alive\n\n")
            snapshot = self.server.live.wait(seen, KEEPALIVE_S)

    def _stream(self, chunk: bytes) -> None:
        self.wfile.write(chunk)
        self.wfile.flush()

    def _send(self, status: int, data: bytes, kind: str, head: bool, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        headers = {"Content-Type": kind, "Content-Length": str(len(data)), "Cache-Control": "no-store",
                   "X-Content-Type-Options": "nosniff", **(extra or {})}
        if status == 503:
            headers["Retry-After"] = "1"
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if not head:
            self.wfile.write(data)


class PreviewServer(ThreadingHTTPServer):
    """A thread per connection, at most MAX_CONNECTIONS at once; a long backlog so that a burst of requests
    is queued, not refused. It answers only requests whose Host names it (see host_allowed)."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, host: str, port: int, live: Live) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.live = live
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__((host, port), Handler)
        self.hosts, self.any_address = served_hosts(host, self.server_address[0])

    def server_bind(self) -> None:
        """Bind without HTTPServer's reverse DNS lookup of the host (slow on some machines)."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[0], self.server_address[1]

    def host_allowed(self, header: str | None) -> bool:
        """Whether a request's Host header names this server: one of `hosts` with our port (the port may go
        unsaid on port 80); bound to every interface, any IP address too. A name that merely resolves here
        (DNS rebinding) is refused; a request without a Host header (not a browser's) is answered."""
        if header is None:
            return True
        found = _HOST.fullmatch(header.strip().lower())
        if found is None:
            return False
        name, port = found[1], found[2]
        if port != str(self.server_port) and not (port is None and self.server_port == 80):
            return False
        return name in self.hosts or (self.any_address and _is_ip(name))

    def process_request(self, request, client_address) -> None:
        """A thread for the connection if one of MAX_CONNECTIONS is free, else a 503 written from here."""
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1)
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n")
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a closed tab is not an error
            super().handle_error(request, client_address)


def served_hosts(host: str, bound: str) -> tuple[frozenset[str], bool]:
    """The names a request's Host may give for this server (lower-case, IPv6 in brackets), and whether it
    listens on every interface (then any IP address is its own too): the address as given and as bound,
    and on loopback or every interface also localhost, 127.0.0.1 and [::1] (and this machine's name)."""
    def shown(name: str) -> str:
        return f"[{name}]" if ":" in name and not name.startswith("[") else name

    names = {shown(host.lower()), shown(bound.lower())}
    everywhere = bound in ("0.0.0.0", "::")
    if everywhere or _is_loopback(bound):
        names.update(LOOPBACK_NAMES)
    if everywhere:
        names.add(socket.gethostname().lower())
    return frozenset(names), everywhere


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
    except ValueError:
        return False
    return True


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _interrupt(signum, frame) -> None:
    """Ctrl-C stops the preview, which then abandons its build; a forked build worker that inherited this
    handler leaves Ctrl-C to the preview instead of printing a traceback of its own."""
    if os.getpid() == _PREVIEW_PID:
        raise KeyboardInterrupt


_PREVIEW_PID = os.getpid()


@dataclass
class Rebuilt:
    """One finished build, for the terminal: what triggered it, what it changed, what it found."""

    snapshot: Snapshot
    sources: list[str]
    changed: list[str]
    ok: bool
    seconds: float
    error: BaseException | None = None


class Preview:
    """Bind on construction (so the URL is known), then build, serve and watch on threads until close()."""

    def __init__(self, root: Path, host: str = "127.0.0.1", port: int = 8000, drafts: bool = False,
                 on_build: Callable[[Rebuilt], None] | None = None) -> None:
        self.root, self.drafts, self.on_build = root, drafts, on_build or (lambda rebuilt: None)
        self.live = Live()
        self.server = PreviewServer(host, port, self.live)
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{self.server.server_address[1]}"
        self._stop = threading.Event()
        self._indexing = threading.Lock()  # one Pagefind run at a time
        self.store = MemoryStore()          # the last good build's files
        self._memo: Memo | None = None      # and what it learned, so that a save rebuilds only what it changed
        self._search_store = MemoryStore()  # the search index, made after each build's reload (see _index)
        self._search: SearchRecord | None = None
        self._state: State | None = None    # and the inputs it read
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
        global _PREVIEW_PID
        _PREVIEW_PID = os.getpid()
        # SIGINT only: the build's process pool stops its workers with SIGTERM, which must keep its default.
        handle = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) not in (
            signal.SIG_IGN, None)  # an ignored Ctrl-C (nohup, `&` in a script) stays ignored
        previous = signal.signal(signal.SIGINT, _interrupt) if handle else None
        try:
            self.start()
            while not self._stop.wait(0.25):  # timed: the kernel may hand Ctrl-C to another thread, and Python
                pass                          # runs the handler only when the main thread next wakes
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    def close(self) -> None:
        self._stop.set()
        self.live.close()
        if self._threads:  # shutdown() waits for serve_forever(), so only once it has run
            self.server.shutdown()
        self.server.server_close()
        for thread in self._threads:
            thread.join(timeout=1)  # a build in flight is abandoned: it is a daemon thread

    def wait_for(self, version: int, timeout: float = 30) -> Snapshot:
        """Block until a snapshot at least this new is live (tests and benchmarks)."""
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
        """Build once the watcher is live (so no save is missed), then once per batch of changes."""
        first = True
        for changes in watch(*self.watched(), watch_filter=DefaultFilter(), debounce=DEBOUNCE_MS, step=STEP_MS,
                             rust_timeout=IDLE_MS, yield_on_timeout=True, stop_event=self._stop,
                             raise_interrupt=False):
            if first or changes:
                ready.set()
                self.rebuild(sorted(self._shown(path) for _, path in changes))
                first = False

    def _shown(self, path: str) -> str:
        try:
            return Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path

    def rebuild(self, sources: list[str]) -> Rebuilt:
        """Build in memory; swap the files in (or keep the last good ones), and only then wake the pages."""
        started = time.perf_counter()
        error = None
        try:
            files, findings, searchable = self._build()
        except Exception as err:  # a bug in the generator must not take the preview down with it
            error = err
            crash = Finding("ledgerpress", 1, 1, "INTERNAL", f"the build crashed: {type(err).__name__}: {err}")
            findings, files, searchable = (crash,), None, None
        old = self.live.snapshot
        if files is not None:  # the last search index serves until the new one is ready (see _index)
            files = {**{p: d for p, d in (old.files or {}).items() if p.startswith(SEARCH)}, **files}
        good = files if files is not None else old.files
        before = old.files or {}
        changed = sorted(path for path, data in (good or {}).items()
                         if before.get(path) is not data and before.get(path) != data)
        changed += sorted(set(old.files or ()) - set(good or ()))
        snapshot = old
        if old.version == 0 or changed or findings != old.findings:
            errors = [finding for finding in findings if finding.severity == "error"]
            tail = (overlay(errors) + reload_script(old.version + 1)).encode("utf-8")
            snapshot = Snapshot(old.version + 1, good, findings, time.perf_counter() - started, tail)
            self.live.swap(snapshot)
        rebuilt = Rebuilt(snapshot, sources, changed, files is not None, time.perf_counter() - started, error)
        self.on_build(rebuilt)
        if searchable is not None:  # off the watcher thread: the next save must not wait for the index of this one
            threading.Thread(target=self._index, args=(snapshot, searchable), name="search-index", daemon=True).start()
        return rebuilt

    def _build(self) -> tuple[dict[str, bytes] | None, tuple[Finding, ...], tuple | None]:
        """One build into the store in memory, from the last good build's memo: its files if it succeeded, and
        what its search index is made from."""
        key = options_key(__version__, drafts=self.drafts, base_url=self.url, out="serve")
        scanned, inputs = scan(self.root, self._state)
        digests = content_digests(self.root, inputs)
        memo_key = key_of(code_digest(inputs), digests.get("content/site.toml", ""), key)
        memo = self._memo if self._memo is not None and self._memo.key == memo_key else None
        result = build_site(self.root, self.store, Options(self.drafts, self.url, search=False), memo, digests,
                            memo_key=(memo_key, key))
        if not result.ok:
            self.store.abort()
            return None, tuple(result.findings), None
        self.store.commit(result.outputs)
        self._memo, self._state = result.memo, State(key, scanned, inputs)
        return self.store.files, tuple(result.findings), result.searchable

    def _index(self, snapshot: Snapshot, searchable: tuple) -> None:
        """Pagefind indexes again the shards whose pages changed, at the lowest CPU priority, after the reload;
        its files join the same snapshot version (no second reload) unless a newer build came first."""
        with self._indexing:
            if self.live.snapshot is not snapshot:
                return  # a newer build came first; its own index follows
            plan = search_plan(*searchable)
            found = make_search(plan, self._search, self._search_store, snapshot.files.__getitem__, default_jobs(),
                                nice=True)
            if found.record is not None:
                self._search_store.commit(found.record.outputs)
            else:
                self._search_store.abort()
            self._search = found.record
        self._indexed(snapshot, found.notes, self._search_store.files if found.record else {})

    def _indexed(self, snapshot: Snapshot, notes: list[Finding], files: dict[str, bytes]) -> None:
        for note in notes:
            print(f"{note} (warning)", file=sys.stderr)
        if files:
            kept = {path: data for path, data in snapshot.files.items() if not path.startswith(SEARCH)}
            self.live.replace(snapshot, dataclasses.replace(snapshot, files={**kept, **files}))
