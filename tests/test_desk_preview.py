"""The desk started without --allow-write writes nothing; with --allow-build it builds as `ledgerpress build`
does; and it finds a story's page in the `ledgerpress serve` preview running beside it."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.commands import LEDGERPRESS
from tests.conftest import STORY_PATH, base_files, write_tree
from tests.desk_agent import Agent, stdio_agent
from tests.test_desk import FIXED, MISTAKES_PATH

WAIT = 30  # seconds: a bound, never a sleep


def _files(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted((site / "content").rglob("*"))
            if path.is_file()}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    draft = FIXED.replace("trust: reported", "trust: reported\ndraft: true")
    return write_tree(tmp_path_factory.mktemp("desk-preview") / "site", {**base_files(), MISTAKES_PATH: draft})


@pytest.fixture(scope="module")
def agent(site: Path) -> Iterator[Agent]:
    with stdio_agent(site, "--allow-build") as connected:
        yield connected


def test_a_read_only_desk_writes_nothing_and_builds_when_allowed(agent: Agent, site: Path):
    before = _files(site)
    drafted = agent.call("draft_story", title="Anything", newsroom="city", beat="policy")
    assert drafted["error"]["code"] == "read_only" and "--allow-write" in drafted["error"]["message"]
    read = agent.call("read_story", path=MISTAKES_PATH)
    updated = agent.call("update_story", path=MISTAKES_PATH, text=read["text"], expected_hash=read["content_hash"])
    assert updated["error"]["code"] == "read_only"
    assert agent.call("check_story", text=read["text"], path=MISTAKES_PATH)["clean"]
    built = agent.call("build", drafts=True, search=False)
    assert built["ok"] and built["refused"] is None and built["findings"] == [], built
    assert built["stories"] == 2 and built["written"] == built["files"] > 0 and not built["up_to_date"], built
    assert built["summary"].startswith("built ") and f"files in {site / 'public'} (" in built["summary"], built
    again = agent.call("build", drafts=True, search=False)
    assert again["up_to_date"] and again["files"] == built["files"] and again["written"] == built["written"]
    assert (site / "public" / STORY_PATH.removeprefix("content/").removesuffix(".md") / "index.html").is_file()
    assert (site / "public/stories/2026-11-22/the-busway-budget-passed-9-to-2/index.html").is_file()
    assert _files(site) == before


def test_preview_url_finds_the_running_preview_and_forgets_it_when_it_stops(agent: Agent, site: Path):
    assert agent.call("preview_url", path=STORY_PATH)["running"] is False
    serve = subprocess.Popen([str(LEDGERPRESS), "serve", "--port", "0", "--root", str(site)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT
        while not (found := agent.call("preview_url", path=STORY_PATH))["served"] and time.monotonic() < deadline:
            assert serve.poll() is None, serve.stderr.read()
            time.sleep(0.2)
        assert found["running"] and found["served"] and found["drafts"] is False
        assert found["story_url"] == f"{found['url']}stories/2026-11-21/council-funds-the-quay-street-busway/"
        draft = agent.call("preview_url", path=MISTAKES_PATH)  # serve leaves drafts out without --drafts
        assert draft["running"] and draft["served"] is False and "--drafts" in draft["note"]
    finally:
        serve.send_signal(signal.SIGINT)
        serve.communicate(timeout=WAIT)
    assert not (site / ".ledgerpress-cache/serve.json").exists()
    assert agent.call("preview_url", path=STORY_PATH)["running"] is False


def test_a_preview_that_stops_first_leaves_the_one_it_replaced_announced(tmp_path: Path):
    """Two previews of one site (on two ports): the second to start announces itself; when it stops first,
    the first, still running, is announced again; once neither runs, nothing is."""
    import json
    import sys

    from generator.desk.preview import ANNOUNCEMENT, announce, announced, withdraw

    first = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (tmp_path / ".ledgerpress-cache").mkdir()
        earlier = {"url": "http://127.0.0.1:8001", "pid": first.pid, "drafts": False}
        (tmp_path / ".ledgerpress-cache" / ANNOUNCEMENT).write_text(json.dumps(earlier))
        second = announce(tmp_path, "http://127.0.0.1:8002", True)
        assert announced(tmp_path)["url"] == "http://127.0.0.1:8002"
        withdraw(second)
        assert announced(tmp_path) == earlier
    finally:
        first.kill()
        first.wait()
    second = announce(tmp_path, "http://127.0.0.1:8002", True)
    withdraw(second)
    assert announced(tmp_path) is None and not (tmp_path / ".ledgerpress-cache" / ANNOUNCEMENT).exists()


@pytest.mark.parametrize("pid", [2**70, 0, -1])
def test_an_announcement_whose_pid_no_process_can_have_is_no_preview(tmp_path: Path, pid: int):
    """A serve.json written by hand (or damaged) with a pid past any process's, or one naming a group of
    processes, announces no preview: the desk says none runs, it does not fail."""
    import json

    from generator.desk.preview import ANNOUNCEMENT, announced

    (tmp_path / ".ledgerpress-cache").mkdir()
    (tmp_path / ".ledgerpress-cache" / ANNOUNCEMENT).write_text(json.dumps({"url": "http://127.0.0.1:8001",
                                                                             "pid": pid}))
    assert announced(tmp_path) is None


def test_the_desk_builds_in_its_own_process_through_the_engine_s_call(site: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch):
    """No build process is started: the desk's build is the engine's one call, and answers with its report as
    data (a finding with its place and code, not a line to parse)."""
    import shutil

    from generator.desk import preview
    from generator.desk.site import Desk

    root = tmp_path / "copy"
    shutil.copytree(site / "content", root / "content")
    (root / "content/stories/2026-11-21/council-funds-the-quay-street-busway.md").write_text(
        (site / STORY_PATH).read_text() + "\nA closing line that cites nothing.\n")
    monkeypatch.setattr(subprocess, "Popen", None)  # any process started fails loudly
    built = preview.build(Desk(root, allow_build=True), search=False)
    assert not built.ok and built.refused is None and not (root / "public").exists()
    assert [(f.path, f.code) for f in built.findings if f.severity == "error"] == [(STORY_PATH, "LP030")]


def test_a_preview_stuck_mid_answer_is_given_up_on_as_a_whole():
    """A preview that sends its status line a byte at a time kept each read within urllib's timeout and the
    tool call waiting for ever."""
    from generator.desk.preview import ASK_S, _answers

    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            for byte in b"HTTP/1.0 200 OK" * 100:
                if stop.is_set():
                    return
                connection.sendall(bytes([byte]))
                time.sleep(0.05)

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    try:
        assert _answers(f"http://127.0.0.1:{listener.getsockname()[1]}/stories/x/") is False
    finally:
        stop.set()
        listener.close()
    assert time.monotonic() - started < ASK_S + 1
