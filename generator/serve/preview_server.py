"""The preview's HTTP side: files from the live snapshot, the event stream pages reload on, and a server that
answers only to its own address and serves a bounded number of connections."""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from ..output.media import TEXT, TYPES, content_type
from .live import TOOLS, Live, Snapshot, error_page, with_tail

KEEPALIVE_S = 15.0
MAX_CONNECTIONS = 64  # served at once (a thread each, event streams included); more get a 503 at once
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
EVERYWHERE = ("0.0.0.0", "::")  # addresses that bind every interface, as the socket reports them
_VERSION = re.compile(r"[0-9]{1,18}")
_HOST = re.compile(r"(\[[0-9a-f:.]+\]|[^:\[\]]+)(?::([0-9]{1,5}))?")  # a Host header: name or [IPv6], port


def site_key(target: str) -> str | None:
    """The output path a request names ('' or 'x/' for folders), or None if it tries to leave the site."""
    if not target.startswith("/") or target.startswith("//"):
        return None
    try:
        raw = urlsplit(target).path
    except ValueError:  # a bracket left open where a host would be: "/\n/[" reads as "//[" once cleaned
        return None
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
            data = with_tail(data, snapshot.scheduled.get(name, b"") + snapshot.tail)
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


def preview_url(host: str, bound: str, port: int) -> str:
    """The address the pages link to and the terminal shows: bound to every interface, this machine's loopback
    (of the same family), since 0.0.0.0 and :: are no address a browser can visit."""
    if bound in EVERYWHERE:
        host = "::1" if ":" in bound else "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def served_hosts(host: str, bound: str) -> tuple[frozenset[str], bool]:
    """The names a request's Host may give for this server (lower-case, IPv6 in brackets), and whether it
    listens on every interface (then any IP address is its own too): the address as given and as bound,
    and on loopback or every interface also localhost, 127.0.0.1 and [::1] (and this machine's name)."""
    def shown(name: str) -> str:
        return f"[{name}]" if ":" in name and not name.startswith("[") else name

    names = {shown(host.lower()), shown(bound.lower())}
    everywhere = bound in EVERYWHERE
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


