"""Manifests made and pulled: fresh ids, atomic writes, and `manifests pull` against a real HTTP server on
loopback (a token, 401, 404, 5xx then success, answers that are not manifests)."""

from __future__ import annotations

import json
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.content import manifest_store
from generator.content.config import ManifestsTable
from generator.content.manifest_pull import StoreError, pull
from generator.content.manifest_store import mint_id, write_new, write_replacing
from tests.commands import ledgerpress
from tests.conftest import MANIFEST_A, base_files, write_tree

TOKEN = "s3cret-token"
A, B = "1000000000000000001", "1000000000000000002"


class Store(ThreadingHTTPServer):
    """A manifest service on loopback: per path, the answers to give in turn (the last one repeats)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Answer)
        self.answers: dict[str, list[tuple[int, bytes, float, float]]] = {}  # status, body, delay, between bytes
        self.seen: list[tuple[str, str | None, float]] = []  # path, Authorization header, when
        self.token: str | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/manifests/{{id}}"

    def give(self, manifest_id: str, *answers: tuple) -> None:
        """Answers as (status, body[, seconds before the headers[, seconds between the body's bytes]])."""
        self.answers[f"/manifests/{manifest_id}"] = [(*a, 0.0, 0.0)[:4] for a in answers]


class Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        store: Store = self.server  # type: ignore[assignment]
        auth = self.headers.get("Authorization")
        store.seen.append((self.path, auth, time.monotonic()))
        queue = store.answers.get(self.path, [(404, b'{"error": "not found"}', 0.0, 0.0)])
        status, body, delay, drip = queue.pop(0) if len(queue) > 1 else queue[0]
        if store.token is not None and auth != f"Bearer {store.token}":
            status, body, delay, drip = 401, b'{"error": "unauthorized"}', 0.0, 0.0
        time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not drip:
            self.wfile.write(body)
            return
        try:
            for byte in body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(drip)
        except OSError:  # the client gave up
            pass

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the stdlib's name
        pass


@pytest.fixture
def store() -> Iterator[Store]:
    server = Store()
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _site(tmp_path: Path, store: Store, extra: str = "retries = 2\nbackoff = 0.2\ntimeout = 2\n") -> Path:
    """The test site with manifest A taken away (its story still cites it) and the store configured."""
    files = base_files()
    files["content/site.toml"] += f'\n[manifests]\nstore = "{store.url}"\n{extra}'
    files[f"content/manifests/{A}.json"] = None
    return write_tree(tmp_path / "site", files)


def test_pull_fetches_what_stories_cite_with_the_token(tmp_path: Path, store: Store):
    site = _site(tmp_path, store)
    store.token = TOKEN
    store.give(A, (200, MANIFEST_A.encode()))
    before = ledgerpress("check", cwd=site)
    assert before.returncode == 1 and "LP022" in before.stdout and "manifests pull" in before.stderr
    pulled = ledgerpress("manifests", "pull", cwd=site, env={"LEDGERPRESS_MANIFEST_TOKEN": TOKEN})
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout == f"written content/manifests/{A}.json\n"
    assert pulled.stderr.splitlines()[-1] == "1 written, 0 updated, 0 unchanged, 0 failed"
    assert [(path, auth) for path, auth, _ in store.seen] == [(f"/manifests/{A}", f"Bearer {TOKEN}")]
    assert json.loads((site / f"content/manifests/{A}.json").read_text()) == json.loads(MANIFEST_A)
    assert TOKEN not in pulled.stdout + pulled.stderr
    after = ledgerpress("check", cwd=site)
    assert after.returncode == 0 and after.stdout == "", after.stdout
    again = ledgerpress("manifests", "pull", A, "-v", cwd=site, env={"LEDGERPRESS_MANIFEST_TOKEN": TOKEN})
    assert again.returncode == 0 and again.stdout == "" and f"unchanged content/manifests/{A}.json" in again.stderr
    nothing = ledgerpress("manifests", "pull", cwd=site)
    assert nothing.returncode == 0 and "nothing to pull" in nothing.stderr


def test_401_without_and_with_a_wrong_token(tmp_path: Path, store: Store):
    site = _site(tmp_path, store)
    store.token = TOKEN
    store.give(A, (200, MANIFEST_A.encode()))
    missing = ledgerpress("manifests", "pull", cwd=site)
    assert missing.returncode == 1 and "wants a token (401): set LEDGERPRESS_MANIFEST_TOKEN" in missing.stderr
    wrong = ledgerpress("manifests", "pull", cwd=site, env={"LEDGERPRESS_MANIFEST_TOKEN": "nope"})
    assert wrong.returncode == 1 and "refused the token (401): check LEDGERPRESS_MANIFEST_TOKEN" in wrong.stderr
    assert not (site / f"content/manifests/{A}.json").exists()


def test_every_id_gets_its_own_outcome(tmp_path: Path, store: Store):
    """404, 5xx then success, 5xx for good, bad JSON, a schema failure and a wrong id: each reported, only
    the good answer written."""
    site = _site(tmp_path, store)
    good = MANIFEST_A.replace(A, "m-retried")
    store.give("m-retried", (503, b"busy"), (502, b"busy"), (200, good.encode()))
    store.give("m-down", (500, b"down"))
    store.give("m-json", (200, b'{"id": "m-json", "title": '))
    store.give("m-schema", (200, b'{"id": "m-schema", "title": "No claims"}'))
    store.give("m-other", (200, MANIFEST_A.encode()))
    ids = ["m-missing", "m-retried", "m-down", "m-json", "m-schema", "m-other", "not an id"]
    pulled = ledgerpress("manifests", "pull", *ids, "-v", cwd=site)
    assert pulled.returncode == 1
    assert pulled.stdout == "written content/manifests/m-retried.json\n"
    err = pulled.stderr
    assert "/manifests/m-missing: the store has no manifest 'm-missing' (404)" in err
    assert "/manifests/m-down: the store answered 500 after 2 retries" in err
    assert re.search(r"content/manifests/m-json\.json:1:\d+: LP100 not valid JSON .* \(in the store's answer from "
                     r"http://127\.0\.0\.1:\d+/manifests/m-json: not written\)", err)
    assert "content/manifests/m-schema.json:1:1: LP100 required field 'source' is missing" in err
    assert "content/manifests/m-other.json:2:3: LP101" in err
    assert "'not an id' is not a manifest id" in err
    assert err.count("retried after GET /manifests/m-retried") == 2
    assert err.splitlines()[-1] == "1 written, 0 updated, 0 unchanged, 6 failed"
    assert sorted(p.name for p in (site / "content/manifests").iterdir()) == [f"{B}.json", "m-retried.json"]
    tries = [when for path, _, when in store.seen if path == "/manifests/m-retried"]
    assert len(tries) == 3 and tries[2] - tries[1] >= 0.35  # backoff: 0, then 2 x 0.2 s
    assert len([path for path, _, _ in store.seen if path == "/manifests/m-down"]) == 3


def test_slow_and_huge_answers_are_refused(tmp_path: Path, store: Store):
    site = _site(tmp_path, store, "retries = 0\ntimeout = 0.5\nmax_bytes = 1000\n")
    store.give("slow", (200, MANIFEST_A.encode(), 2.0))
    store.give("huge", (200, b" " * 5000 + MANIFEST_A.encode()))
    store.give("drip", (200, MANIFEST_A.encode(), 0.0, 0.05))  # each byte well within the timeout, 30 s in all
    started = time.monotonic()
    pulled = ledgerpress("manifests", "pull", "slow", "huge", "drip", cwd=site)
    assert pulled.returncode == 1 and time.monotonic() - started < 20
    assert "/manifests/slow: no answer after 0 retries (" in pulled.stderr
    assert "more than max_bytes (1,000)" in pulled.stderr
    assert "/manifests/drip: the answer took longer than timeout (0.5 s) to arrive" in pulled.stderr


def test_pull_needs_a_store_and_a_site(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    refused = ledgerpress("manifests", "pull", cwd=site)
    assert refused.returncode == 1 and "no manifest store: add `[manifests]`" in refused.stderr
    outside = ledgerpress("manifests", "pull", cwd=tmp_path)
    assert outside.returncode == 1 and "no ledgerpress site" in outside.stderr


@pytest.mark.parametrize("url", ["http://records.example.org/{id}", "http://127.attacker.example/{id}",
                                 "http://127.0.0.1.nip.io/{id}", "http://[::ffff:8.8.8.8]/{id}"])
def test_a_token_never_goes_over_plain_http_to_another_machine(tmp_path: Path, url: str):
    store = ManifestsTable(store=url)
    with pytest.raises(StoreError, match="plain http"):
        next(pull(tmp_path, store, ["x"], "token"))


def test_store_urls_must_hold_the_id(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    toml = site / "content/site.toml"
    toml.write_text(toml.read_text() + '\n[manifests]\nstore = "https://records.example.org/m"\n')
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 1 and "content/site.toml" in checked.stdout and "manifests.store" in checked.stdout


def test_manifest_new_writes_a_valid_manifest_with_fresh_ids(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    made = ledgerpress("manifest", "new", "--title", "Transit board minutes", "--source-url",
                       "https://transit.example.org/board/12", "--source-name", "transit-board", "--published",
                       "2026-11-20T08:00:00+01:00", "--brief", "The board's December session.",
                       "--claim", "The board approved the timetable.", "--claim", "The vote was unanimous.", cwd=site)
    assert made.returncode == 0, made.stderr
    path = site / made.stdout.strip()
    data = json.loads(path.read_text())
    assert path.name == f"{data['id']}.json" and re.fullmatch(r"\d{19}", data["id"])
    assert data["source"] == {"name": "transit-board", "url": "https://transit.example.org/board/12"}
    assert data["published"] == "2026-11-20T08:00:00+01:00" and data["brief"] == "The board's December session."
    assert [c["text"] for c in data["claims"]] == ["The board approved the timetable.", "The vote was unanimous."]
    assert len({data["id"], *(c["id"] for c in data["claims"])}) == 3
    assert ledgerpress("check", cwd=site).returncode == 0


def test_manifest_new_without_claims_leaves_one_to_fill_in(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    made = ledgerpress("manifest", "new", "--title", "Minutes", "--source-url", "https://x.example.org/", cwd=site)
    assert made.returncode == 0
    assert "LP100 claims.0.text is empty: expected non-empty text" in made.stderr
    assert "write the source's claims in" in made.stderr
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 1 and f"{made.stdout.strip()}:" in checked.stdout


@pytest.mark.parametrize(("args", "message"), [
    (("--title", "T", "--source-url", "ftp://x.org/a"), "is not an http or https URL"),
    (("--title", " ", "--source-url", "https://x.org/a"), "the title is empty"),
    (("--title", "T", "--source-url", "https://x.org/a", "--published", "last week"), "not an ISO 8601"),
    (("--source-url", "https://x.org/a"), "Missing option '--title'"),
    (("--title", "T", "--source-url", "https://[::1/c"), "is not an http or https URL"),
    (("--title", "T", "--source-url", "https://x.org/a", "--published", "0001-01-01T00:00:00+05:00"),
     "must fall between the years 1000 and 9999"),
    (("--title", "T", "--source-url", "https://x.org/a", "--id", "bad id"), "'bad id' is not an id"),
    (("--title", "T", "--source-url", "https://x.org/a", "--id", A), f"content/manifests/{A}.json exists already"),
    (("--title", "T", "--source-url", "https://x.org/a", "--claim", "c", "--claim-id", "x", "--claim-id", "y"),
     "2 claim ids for 1 --claim"),
    (("--title", "T", "--source-url", "https://x.org/a", "--claim", "c", "--claim", "d", "--claim-id", "x",
      "--claim-id", "x"), "'x' is given twice"),
])
def test_manifest_new_refuses_bad_options(tmp_path: Path, args: tuple[str, ...], message: str):
    site = write_tree(tmp_path / "site", base_files())
    refused = ledgerpress("manifest", "new", *args, cwd=site)
    assert refused.returncode == 2 and message in refused.stderr
    assert sorted(p.name for p in (site / "content/manifests").iterdir()) == [f"{A}.json", f"{B}.json"]


def test_manifest_new_keeps_the_ids_a_newsroom_gives(tmp_path: Path):
    """A newsroom importing records keeps their ids: the manifest's (--id) and its claims' (--claim-id, in
    order); a claim past the last id given gets a fresh one. The manifest checks clean."""
    site = write_tree(tmp_path / "site", base_files())
    made = ledgerpress("manifest", "new", "--title", "Invoice register", "--source-url", "https://x.example.org/r",
                       "--id", "INV-2026-0042", "--claim", "The invoice was paid.", "--claim", "It was late.",
                       "--claim-id", "line-1", cwd=site)
    assert made.returncode == 0 and made.stdout.strip() == "content/manifests/INV-2026-0042.json", made.stderr
    data = json.loads((site / "content/manifests/INV-2026-0042.json").read_text())
    assert data["id"] == "INV-2026-0042" and data["claims"][0] == {"id": "line-1", "text": "The invoice was paid."}
    assert re.fullmatch(r"\d{19}", data["claims"][1]["id"]) and "LP1" not in made.stderr


def test_new_and_manifest_new_say_in_one_line_where_they_cannot_write(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    shutil.rmtree(site / "content/manifests")
    (site / "content/manifests").write_text("")
    manifest = ledgerpress("manifest", "new", "--title", "T", "--source-url", "https://x.org/a", cwd=site)
    assert manifest.returncode == 1 and "Error: cannot write content/manifests: File exists" in manifest.stderr
    shutil.rmtree(site / "content/stories")
    (site / "content/stories").write_text("")
    story = ledgerpress("new", "Title", "--newsroom", "city", "--beat", "policy", cwd=site)
    assert story.returncode == 1 and "Traceback" not in story.stderr
    assert re.search(r"Error: cannot write content/stories/\d{4}-\d\d-\d\d: Not a directory", story.stderr)


def test_minted_ids_sort_by_time_and_skip_taken_ones(monkeypatch):
    first = mint_id()
    assert re.fullmatch(r"\d{19}", first)
    draws = iter([7, 7, 8])
    monkeypatch.setattr(manifest_store.secrets, "randbits", lambda bits: next(draws))
    monkeypatch.setattr(manifest_store.time, "time", lambda: 1_800_000_000.0)
    taken = mint_id()
    assert mint_id({taken}) != taken and int(taken) > int(first)


def test_writes_are_whole_and_never_replace_by_accident(tmp_path: Path):
    target = tmp_path / "m" / "x.json"
    write_new(target, "one\n")
    with pytest.raises(FileExistsError):
        write_new(target, "two\n")
    assert target.read_text() == "one\n"
    write_replacing(target, "three\n")
    assert target.read_text() == "three\n" and [p.name for p in target.parent.iterdir()] == ["x.json"]



@pytest.mark.parametrize("written", [TOKEN + "\r", TOKEN + "\r\n", f"  {TOKEN}\n"])
def test_a_token_read_from_a_windows_file_is_sent_without_its_line_end(tmp_path: Path, store: Store, written: str):
    site = _site(tmp_path, store)
    store.token = TOKEN
    store.give(A, (200, MANIFEST_A.encode()))
    pulled = ledgerpress("manifests", "pull", cwd=site, env={"LEDGERPRESS_MANIFEST_TOKEN": written})
    assert pulled.returncode == 0, pulled.stderr
    assert [auth for _, auth, _ in store.seen] == [f"Bearer {TOKEN}"]


@pytest.mark.parametrize("written", [f"{TOKEN}\rX-Evil: 1", f"{TOKEN} {TOKEN}", f"{TOKEN}\x1b[2J", f"{TOKEN}é"])
def test_a_token_a_header_cannot_carry_is_refused_and_never_printed(tmp_path: Path, store: Store, written: str):
    site = _site(tmp_path, store)
    pulled = ledgerpress("manifests", "pull", cwd=site, env={"LEDGERPRESS_MANIFEST_TOKEN": written})
    assert pulled.returncode == 1 and "holds a character an HTTP header cannot carry" in pulled.stderr
    assert TOKEN not in pulled.stdout + pulled.stderr and store.seen == []


def test_a_store_on_this_machine_is_never_asked_through_a_proxy(tmp_path: Path, store: Store):
    """With http_proxy set, the token went in plain HTTP to the proxy on another machine."""
    proxy = Store()
    threading.Thread(target=proxy.serve_forever, args=(0.05,), daemon=True).start()
    try:
        site = _site(tmp_path, store)
        store.token = TOKEN
        store.give(A, (200, MANIFEST_A.encode()))
        address = f"http://127.0.0.1:{proxy.server_address[1]}"
        pulled = ledgerpress("manifests", "pull", cwd=site, env={
            "LEDGERPRESS_MANIFEST_TOKEN": TOKEN, "http_proxy": address, "HTTP_PROXY": address, "ALL_PROXY": address,
            "all_proxy": address, "no_proxy": "", "NO_PROXY": ""})
        assert pulled.returncode == 0, pulled.stderr
        assert proxy.seen == [] and [auth for _, auth, _ in store.seen] == [f"Bearer {TOKEN}"]
    finally:
        proxy.shutdown()
        proxy.server_close()


def test_a_store_sending_its_headers_a_byte_at_a_time_is_given_up_on_as_a_whole(tmp_path: Path):
    """Each byte within the timeout, the headers never ending: the timeout bounded each read, not the answer."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.sendall(b"HTTP/1.1 200 OK\r\n")
            while not stop.is_set():
                try:
                    connection.sendall(b"X-Slow: a\r\n")
                except OSError:
                    return
                time.sleep(0.1)

    threading.Thread(target=drip, daemon=True).start()
    files = base_files()
    files["content/site.toml"] += (f'\n[manifests]\nstore = "http://127.0.0.1:{listener.getsockname()[1]}/{{id}}"\n'
                                   "retries = 0\ntimeout = 0.5\n")
    site = write_tree(tmp_path / "site", files)
    started = time.monotonic()
    try:
        pulled = ledgerpress("manifests", "pull", A, cwd=site)
    finally:
        stop.set()
        listener.close()
    assert pulled.returncode == 1 and time.monotonic() - started < 15
    assert "no whole answer within 1 s" in pulled.stderr
