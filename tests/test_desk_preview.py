"""The desk started without --allow-write writes nothing; with --allow-build it builds as `ledgerpress build`
does; and it finds a story's page in the `ledgerpress serve` preview running beside it."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from tests.commands import LEDGERPRESS
from tests.conftest import STORY_PATH, base_files, write_tree
from tests.desk_agent import stdio_agent
from tests.test_desk import FIXED, MISTAKES_PATH

WAIT = 30  # seconds: a bound, never a sleep


def _files(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted((site / "content").rglob("*"))
            if path.is_file()}


def test_a_read_only_desk_writes_nothing_and_builds_when_allowed(tmp_path: Path):
    site = write_tree(tmp_path / "site", {**base_files(), MISTAKES_PATH: FIXED.replace("trust: reported",
                                                                                       "trust: reported\ndraft: true")})
    before = _files(site)
    with stdio_agent(site, "--allow-build") as agent:
        drafted = agent.call("draft_story", title="Anything", newsroom="city", beat="policy")
        assert drafted["error"]["code"] == "read_only" and "--allow-write" in drafted["error"]["message"]
        read = agent.call("read_story", path=MISTAKES_PATH)
        updated = agent.call("update_story", path=MISTAKES_PATH, text=read["text"], expected_hash=read["content_hash"])
        assert updated["error"]["code"] == "read_only"
        assert agent.call("check_story", text=read["text"], path=MISTAKES_PATH)["clean"]
        built = agent.call("build", search=False)
        assert built["ok"] and built["exit_code"] == 0 and built["findings"] == [], built
        assert built["summary"].startswith("built ") and f"files in {site / 'public'} (" in built["summary"], built
        assert (site / "public" / STORY_PATH.removeprefix("content/").removesuffix(".md") / "index.html").is_file()
        assert not (site / "public/stories/2026-11-22").exists()  # a draft, and the build had no --drafts
        assert agent.call("build", drafts=True, search=False)["ok"]
        assert (site / "public/stories/2026-11-22/the-busway-budget-passed-9-to-2/index.html").is_file()
    assert _files(site) == before


def test_preview_url_finds_the_running_preview_and_forgets_it_when_it_stops(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    with stdio_agent(site) as agent:
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
            missing = agent.call("preview_url", path="content/stories/2026-11-29/not-written-yet.md")
            assert missing["running"] and missing["served"] is False and "--drafts" in missing["note"]
        finally:
            serve.send_signal(signal.SIGINT)
            serve.communicate(timeout=WAIT)
        assert not (site / ".ledgerpress-cache/serve.json").exists()
        assert agent.call("preview_url", path=STORY_PATH)["running"] is False
