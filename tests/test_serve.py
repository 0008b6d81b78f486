"""The preview server for real: loopback HTTP, a live watcher, server-sent events, the last good build on errors."""

from __future__ import annotations

import gzip
import html
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from generator.output.media import content_type
from generator.serve import Preview
from generator.serve.preview_server import site_key
from tests.conftest import STORY_PATH, base_files, write_tree

STORY_URL = "/stories/2026-11-21/council-funds-the-quay-street-busway/"
WAIT = 30  # seconds: a bound, never a sleep


def request(preview: Preview, target: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """One raw request (http.client sends the target exactly as given: no dot-segment clean-up)."""
    host, port = preview.server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=WAIT)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def raw_request(preview: Preview, target: str) -> tuple[int, bytes]:
    """A request line written byte for byte (NUL included), for the traversal tests."""
    with socket.create_connection(preview.server.server_address[:2], timeout=WAIT) as sock:
        host = "%s:%d" % preview.server.server_address[:2]
        sock.sendall(b"GET " + target.encode("latin-1") + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\nConnection: close\r\n\r\n")
        reply = b"".join(iter(lambda: sock.recv(65536), b""))
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


class Events:
    """An open /__ledgerpress/events stream, read line by line with a deadline."""

    def __init__(self, preview: Preview, version: int | None = None) -> None:
        host, port = preview.server.server_address[:2]
        self.connection = http.client.HTTPConnection(host, port, timeout=WAIT)
        query = "" if version is None else f"?v={version}"
        self.connection.request("GET", f"/__ledgerpress/events{query}")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"

    def next_reload(self) -> int:
        """Block until the next `reload` event; its data is the version now live."""
        event = None
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: ") and event == "reload":
                return int(line[len("data: "):])
        raise AssertionError("no reload event")

    def close(self) -> None:
        self.connection.close()


def started(site: Path) -> Preview:
    server = Preview(site, "127.0.0.1", 0)
    server.start()
    assert server.wait_for(1, WAIT).files is not None
    return server


@pytest.fixture
def preview(site: Path):
    """A server of its own, for tests that edit the site."""
    server = started(site)
    yield server
    server.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the tests that only read."""
    site = write_tree(tmp_path_factory.mktemp("shared") / "site", base_files())
    (site / "secret.txt").write_text("top secret")
    server = started(site)
    yield server
    server.close()


def edit(site: Path, old: str, new: str) -> None:
    story = site / STORY_PATH
    text = story.read_text()
    assert old in text
    story.write_text(text.replace(old, new))


def test_serves_the_build_from_memory_with_content_types(shared: Preview):
    expected = {
        "/": "text/html; charset=utf-8",
        STORY_URL: "text/html; charset=utf-8",
        STORY_URL + "index.json": "application/json",
        STORY_URL + "index.md": "text/markdown; charset=utf-8",
        "/feed.xml": "application/atom+xml; charset=utf-8",
        "/feed.json": "application/feed+json",
        "/sitemap.xml": "application/xml; charset=utf-8",
        "/style.css": "text/css; charset=utf-8",
        "/robots.txt": "text/plain; charset=utf-8",
    }
    files = shared.live.snapshot.files
    if "pagefind/pagefind.js" in files:
        expected["/pagefind/pagefind.js"] = "text/javascript; charset=utf-8"
    for target, kind in expected.items():
        status, headers, body = request(shared, target)
        assert (status, headers["content-type"]) == (200, kind), target
        assert int(headers["content-length"]) == len(body)
    status, _, body = request(shared, STORY_URL)
    assert f'rel="canonical" href="{shared.url}{STORY_URL}"'.encode() in body  # links work on the shared host
    assert not (shared.root / "public").exists()


def test_folders_redirect_and_missing_pages_get_the_site_404(shared: Preview):
    status, headers, _ = request(shared, STORY_URL.rstrip("/") + "?x=1")
    assert status == 301 and headers["location"] == STORY_URL + "?x=1"
    status, headers, body = request(shared, "/no/such/page/")
    assert status == 404 and headers["content-type"] == "text/html; charset=utf-8"
    assert shared.live.snapshot.files["404.html"].split(b"</body>")[0] in body
    status, headers, body = request(shared, STORY_URL, method="HEAD")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0


def test_reload_script_goes_into_served_html_only(shared: Preview):
    stored = shared.live.snapshot.files
    assert not any(b"__ledgerpress" in data for data in stored.values())
    _, _, page = request(shared, STORY_URL)
    assert page.count(b"/__ledgerpress/events?v=1") == 1 and page.rstrip().endswith(b"</html>")
    _, _, variant = request(shared, STORY_URL + "index.md")
    assert variant == stored[STORY_URL[1:] + "index.md"]


def test_an_edit_reloads_pages_only_after_the_new_build_is_live(preview: Preview, site: Path):
    events = Events(preview, version=1)
    try:
        edit(site, "on a 9 to 2 vote.", "on a 9 to 2 vote, after a long night.")
        version = events.next_reload()
        _, _, page = request(preview, STORY_URL)  # the very first fetch after the event already sees the edit
        assert b"after a long night" in page
        assert f"events?v={version}".encode() in page
    finally:
        events.close()


def test_an_edit_the_watcher_saw_is_built_without_a_look_at_every_file(preview: Preview, site: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    """The watcher names the saved file (by the path the scan knows it by), so only it is read again; a new
    file, which only a whole scan can place, is built too."""
    import generator.engine.destinations

    whole = generator.engine.destinations.scan
    scans = []
    monkeypatch.setattr(generator.engine.destinations, "scan", lambda *args: scans.append(args) or whole(*args))
    events = Events(preview, version=1)
    try:
        edit(site, "on a 9 to 2 vote.", "on a 9 to 2 vote, before dawn.")
        events.next_reload()
        assert b"before dawn" in request(preview, STORY_URL)[2] and scans == []
        (site / "content/pages/colophon.md").write_text('---\ntitle: "Colophon"\n---\n\nSet in the sans of the day.\n')
        events.next_reload()
        assert b"sans of the day" in request(preview, "/colophon/")[2] and len(scans) == 1
    finally:
        events.close()


def test_a_templates_folder_made_after_the_start_is_watched(preview: Preview, site: Path):
    """A site's first templates/ (made while the preview runs) is an input like content/: its templates are
    built in, and every later save in it rebuilds."""
    assert not (site / "templates").exists()
    events = Events(preview, version=1)
    try:
        (site / "templates").mkdir()
        (site / "templates/style.css").write_text("body { color: teal }\n")
        events.next_reload()
        assert request(preview, "/style.css")[2] == b"body { color: teal }\n"
        (site / "templates/style.css").write_text("body { color: plum }\n")
        events.next_reload()
        assert request(preview, "/style.css")[2] == b"body { color: plum }\n"
    finally:
        events.close()


def test_the_search_index_is_served_through_a_rebuild_and_then_follows_the_edit(preview: Preview, site: Path):
    """A save's build is shown with the last index (the terminal names only the files the build changed), then
    the index made for it joins the same version."""
    deadline = time.monotonic() + WAIT
    while not preview.live.snapshot.search and time.monotonic() < deadline:
        time.sleep(0.05)
    first = preview.live.snapshot
    assert "pagefind/shards.json" in first.search and first.search.items() <= first.files.items()
    rebuilt: list = []
    preview.on_build = rebuilt.append
    events = Events(preview, version=first.version)
    try:
        edit(site, "on a 9 to 2 vote.", "on a 9 to 2 vote, quokkas watching.")
        version = events.next_reload()
    finally:
        events.close()
    [done] = rebuilt
    assert done.rewritten and all(path.startswith("stories/") or path.endswith((".xml", ".json"))
                                  for path in done.rewritten)
    assert not any(path.startswith("pagefind/") for path in done.rewritten)
    shown = preview.wait_for(version, WAIT)
    assert shown.search.items() <= shown.files.items() and "pagefind/shards.json" in shown.files
    while shown.search is first.search and time.monotonic() < deadline + WAIT:
        time.sleep(0.05)
        shown = preview.live.snapshot
    assert shown.version == version and shown.search is not first.search
    assert shown.search.items() <= shown.files.items()
    assert b"quokkas" in shown.files[STORY_URL.lstrip("/") + "index.html"]
    fragments = [gzip.decompress(data) for path, data in shown.search.items() if path.endswith(".pf_fragment")]
    assert any(b"quokkas" in text for text in fragments)



def test_a_search_index_that_crashed_leaves_nothing_for_the_next_to_commit(preview: Preview, site: Path,
                                                                             monkeypatch: pytest.MonkeyPatch):
    """The index of a save crashes with its bundle in; the save undone, the next index keeps the last one whole."""
    from generator.site.search import SHARDS

    deadline = time.monotonic() + WAIT
    while not preview.live.snapshot.search and time.monotonic() < deadline:
        time.sleep(0.05)
    first = preview.live.snapshot.search
    assert first
    crashed = threading.Event()
    receive = preview._search_store.receive

    def crash_after_the_listing(receipt):
        receive(receipt)
        if receipt.path == SHARDS:
            crashed.set()
            raise RuntimeError("a bug in the index")

    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the crash's traceback, on its thread
    with monkeypatch.context() as patch:
        patch.setattr(preview._search_store, "receive", crash_after_the_listing)
        edit(site, "on a 9 to 2 vote.", "on a 9 to 2 vote, quokkas watching.")
        assert crashed.wait(WAIT)
        with preview._indexing:  # the crashed index is over
            pass
    version = preview.live.snapshot.version
    edit(site, "on a 9 to 2 vote, quokkas watching.", "on a 9 to 2 vote.")
    shown = preview.wait_for(version + 1, WAIT)
    while shown.search is first and time.monotonic() < deadline + WAIT:
        time.sleep(0.05)
        shown = preview.live.snapshot
    assert shown.search == first

def test_a_page_served_before_a_rebuild_reloads_as_soon_as_it_listens(shared: Preview):
    events = Events(shared, version=0)  # the build moved on between serving the page and opening the stream
    try:
        assert events.next_reload() == shared.live.snapshot.version
    finally:
        events.close()


def test_a_broken_story_shows_its_findings_over_the_last_good_build_then_recovers(preview: Preview, site: Path):
    events = Events(preview, version=1)
    try:
        good = (site / STORY_PATH).read_text()
        (site / STORY_PATH).write_text(good.replace("title: ", '"<i>oops</i>": "x"\ntitle: ', 1).replace(
            "the transit agency says. [cites: 1000000000000000002]", "the transit agency says."))
        expected = [str(f) for f in check_site(Run(site)).findings if f.severity == "error"]
        assert any("LP003" in line for line in expected) and any("LP030" in line for line in expected)
        events.next_reload()
        status, _, page = request(preview, STORY_URL)
        assert status == 200 and b"Quay Street busway" in page  # the last good build, under the banner
        text = page.decode()
        assert 'id="ledgerpress-errors"' in text and "<i>oops</i>" not in text
        for line in expected:
            assert html.escape(line) in text
        assert re.search(re.escape(STORY_PATH) + r":\d+:\d+: LP030 ", html.unescape(text))
        status, _, listing = request(preview, "/__ledgerpress/errors")
        assert status == 200 and all(html.escape(line) in listing.decode() for line in expected)

        (site / STORY_PATH).write_text(good)
        events.next_reload()
        status, _, page = request(preview, STORY_URL)
        assert status == 200 and b"ledgerpress-errors" not in page
    finally:
        events.close()



def test_a_build_that_crashed_leaves_nothing_for_the_next_to_commit(preview: Preview, site: Path,
                                                                      monkeypatch: pytest.MonkeyPatch):
    """A crash after the story's page was made: the save undone, the next build holds that page already and
    makes nothing, so a page the crashed build left behind must not be what it commits."""
    import generator.engine.pipeline

    def crash(*args, **kwargs):
        raise RuntimeError("a bug in the site's pages")

    events = Events(preview, version=1)
    try:
        with monkeypatch.context() as patch:
            patch.setattr(generator.engine.pipeline, "_make_pages", crash)
            edit(site, "on a 9 to 2 vote.", "on a 9 to 2 vote, in a crash.")
            events.next_reload()
            assert any(finding.code == "INTERNAL" for finding in preview.live.snapshot.findings)
        edit(site, "on a 9 to 2 vote, in a crash.", "on a 9 to 2 vote.")
        events.next_reload()
        status, _, page = request(preview, STORY_URL)
        assert status == 200 and b"in a crash" not in page and b"on a 9 to 2 vote." in page
    finally:
        events.close()

def test_a_site_broken_from_the_start_shows_the_error_page_until_fixed(tmp_path: Path):
    site = write_tree(tmp_path / "site", {**base_files(), "content/manifests/1000000000000000002.json": "{"})
    server = Preview(site, "127.0.0.1", 0)
    server.start()
    try:
        server.wait_for(1, WAIT)
        status, _, page = request(server, "/")
        assert status == 500 and b"Build failed" in page and b"LP100" in page
        events = Events(server, version=1)
        write_tree(site, {"content/manifests/1000000000000000002.json": base_files()[
            "content/manifests/1000000000000000002.json"]})
        events.next_reload()
        events.close()
        assert request(server, "/")[0] == 200
    finally:
        server.close()


TRAVERSALS = [
    "/../secret.txt", "/stories/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/%2e%2e/secret.txt",
    "/..%2fsecret.txt", "/..%2Fcontent/site.toml", "//etc/passwd", "/%2fetc/passwd", "/a\\..\\secret.txt",
    "/%5c..%5csecret.txt", "/index.html%00.txt", "/\x00", "http://example.org/../secret.txt", "*", "/%ff%fe",
    "/__ledgerpress/../secret.txt", "/content/site.toml", "/secret.txt", "/..", "/./index.html",
]


def test_paths_that_leave_the_site_are_refused(shared: Preview):
    for target in TRAVERSALS:
        status, body = raw_request(shared, target)
        assert status in (400, 404) and b"top secret" not in body and b"base_url" not in body, target


def test_many_concurrent_requests(shared: Preview):
    streams = [Events(shared, version=1) for _ in range(4)]  # open tabs hold threads of their own
    targets = [STORY_URL, "/", "/feed.xml", STORY_URL + "index.json", "/missing/"] * 40
    try:
        with ThreadPoolExecutor(max_workers=50) as pool:
            results = list(pool.map(lambda target: request(shared, target)[0], targets))
    finally:
        for stream in streams:
            stream.close()
    assert results == [404 if target == "/missing/" else 200 for target in targets]


def test_ctrl_c_stops_cleanly(site: Path):
    process = subprocess.Popen([sys.executable, "-m", "generator", "serve", "--root", str(site), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    lines: list[str] = []
    built = threading.Event()

    def read() -> None:
        for line in process.stderr:
            lines.append(line)
            if line.startswith("built in"):
                built.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert built.wait(WAIT), "".join(lines)
        url = re.search(r"http://127\.0\.0\.1:(\d+)", "".join(lines))
        connection = http.client.HTTPConnection("127.0.0.1", int(url[1]), timeout=WAIT)
        connection.request("GET", "/")
        assert connection.getresponse().status == 200
        connection.close()
        process.send_signal(signal.SIGINT)
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
    reader.join(WAIT)
    assert "Traceback" not in "".join(lines) and "Stopped." in "".join(lines)


def test_binds_to_loopback_by_default(site: Path):
    server = Preview(site, port=0)
    try:
        assert server.server.server_address[0] == "127.0.0.1" and server.url.startswith("http://127.0.0.1:")
    finally:
        server.server.server_close()



@pytest.mark.parametrize(("host", "loopback"), [("0.0.0.0", "127.0.0.1"), ("::", "[::1]")])
def test_bound_to_every_interface_the_pages_link_to_loopback(tmp_path: Path, host: str, loopback: str):
    """0.0.0.0 and :: are no address a browser can visit (Hugo's --bind 0.0.0.0 links to localhost too)."""
    if ":" in host and not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    site = write_tree(tmp_path / "site", base_files())
    try:
        server = Preview(site, host, 0)
    except OSError as err:
        pytest.skip(f"cannot listen on {host}: {err}")
    try:
        port = server.server.server_address[1]
        assert server.url == f"http://{loopback}:{port}"
        server.start()
        home = server.wait_for(1, WAIT).files["index.html"].decode()
        assert f'href="http://{loopback}:{port}/feed.xml"' in home and f"{host}:{port}" not in home
    finally:
        server.close()

def test_site_key_and_content_type():
    assert site_key("/") == "" and site_key("/a/b/") == "a/b/" and site_key("/a%20b?x=1") == "a b"
    assert site_key("/a/../b") is None and site_key("/%2e%2e/") is None and site_key("//x") is None
    assert content_type("pagefind/fragment/en_3bdcab7.pf_fragment") == "application/octet-stream"
    assert content_type("pagefind/x.wasm") == "application/wasm"
    assert content_type("newsrooms/city/feed.xml") == "application/atom+xml; charset=utf-8"


def with_host(preview: Preview, target: str, host: str | None) -> tuple[int, bytes]:
    """One raw request with the Host header given (None: without one)."""
    with socket.create_connection(preview.server.server_address[:2], timeout=WAIT) as sock:
        line = b"" if host is None else b"Host: " + host.encode("latin-1") + b"\r\n"
        sock.sendall(b"GET " + target.encode("latin-1") + b" HTTP/1.1\r\n" + line + b"Connection: close\r\n\r\n")
        reply = b"".join(iter(lambda: sock.recv(65536), b""))
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_only_requests_for_the_preview_s_own_address_are_answered(shared: Preview):
    """DNS rebinding: a page at evil.example whose name then resolves to 127.0.0.1 sends Host: evil.example."""
    port = shared.server.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}", None):
        assert with_host(shared, "/", host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}", "127.0.0.1", f"localhost.evil:{port}",
                 f"127.0.0.1.nip.io:{port}", f"[::1]x:{port}", "", f"10.0.0.1:{port}", f"localhost:{port}:{port}"):
        status, body = with_host(shared, STORY_URL, host)
        assert status == 403 and b"council" not in body.lower(), host


def test_bound_to_every_interface_any_ip_address_is_its_own():
    from generator.serve.preview_server import PreviewServer
    from generator.serve.live import Live

    server = PreviewServer("0.0.0.0", 0, Live())
    try:
        port = server.server_address[1]
        assert server.host_allowed(f"192.168.1.20:{port}") and server.host_allowed(f"localhost:{port}")
        assert not server.host_allowed(f"rebind.evil.example:{port}") and not server.host_allowed("192.168.1.20:1")
    finally:
        server.server_close()


def test_connections_past_the_limit_get_a_503_and_threads_stay_bounded(shared: Preview):
    from generator.serve.preview_server import MAX_CONNECTIONS

    before = threading.active_count()
    idle = [socket.create_connection(shared.server.server_address[:2], timeout=WAIT) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.3)  # the server takes them in
        extra = socket.create_connection(shared.server.server_address[:2], timeout=WAIT)
        with extra:
            reply = extra.recv(1024)
        assert reply.startswith(b"HTTP/1.1 503")
        assert threading.active_count() <= before + MAX_CONNECTIONS
    finally:
        for sock in idle:
            sock.close()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and request(shared, "/")[0] != 200:
        time.sleep(0.1)
    assert request(shared, "/")[0] == 200


@pytest.mark.parametrize("query", ["v=%C2%B2", "v=\xb2", "v=abc", "v=-1", "v=1e3", "v=" + "9" * 40])
def test_a_bad_version_in_the_event_stream_s_query_is_a_400(shared: Preview, query: str, capfd):
    status, body = with_host(shared, "/__ledgerpress/events?" + query, None)
    assert status == 400 and b"version number" in body
    assert "Traceback" not in capfd.readouterr().err
