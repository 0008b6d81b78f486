"""The agent desk as an agent meets it: `ledgerpress mcp --allow-write` started as a subprocess, spoken to over
stdio with the MCP SDK's own client. Findings are those `ledgerpress check` gives; writes stay drafts, in
content/stories/, behind a content-hash precondition; every refusal is structured; every call is logged."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.types import CallToolResult

from generator.desk.calls import guarded
from generator.desk.checking import MAX_TEXT
from generator.desk.errors import DeskError
from generator.desk.site import Desk
from generator.desk.tools import TOOLS
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.commands import ledgerpress
from tests.conftest import MANIFEST_A, SITE_TOML, STORY, STORY_PATH, add_uncited_line, base_files, demo_copy, write_tree
from tests.desk_agent import Agent, stdio_agent

MISTAKES_PATH = "content/stories/2026-11-22/the-busway-budget-passed-9-to-2.md"
# Three mistakes: a figure no claim states, a mistyped manifest id, a paragraph that cites nothing.
MISTAKES = """\
---
title: "The busway budget passed 9 to 2"
description: "Two council members voted against the Quay Street busway budget."
published: 2026-11-22T08:00:00Z
newsroom: city
beat: policy
trust: reported
ledger:
  - manifest: "1000000000000000001"
    claims: ["2000000000000000011", "2000000000000000012"]
  - manifest: "1000000000000000002"
    claims: ["2000000000000000021"]
---

## The budget

The council approved a busway budget of 12,600,000 dollars. [cites: 1000000000000000001]

The vote was 9 to 2. [cites: 100000000000000001]

Ridership on Quay Street buses rose 14% in a year.

Riders on Quay Street buses rose 14% in a year, the agency said. [cites: 1000000000000000002]
"""
EXPECTED = [  # (line, column, code, did you mean)
    (17, 41, "LP031", None),
    (19, 22, "LP020", "1000000000000000001"),
    (21, 1, "LP030", None),
]
FIXED = (MISTAKES.replace("12,600,000", "12,500,000")
         .replace("[cites: 100000000000000001]", "[cites: 1000000000000000001]")
         .replace("in a year.\n", "in a year. [cites: 1000000000000000002]\n"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("desk") / "site", base_files())


@pytest.fixture(scope="module")
def agent(site: Path) -> Iterator[Agent]:
    with stdio_agent(site, "--allow-write") as connected:
        yield connected


def _stories(site: Path) -> dict[str, bytes]:
    return {path.relative_to(site).as_posix(): path.read_bytes() for path in sorted(site.rglob("*")) if path.is_file()
            and not path.relative_to(site).as_posix().startswith(".ledgerpress-cache/")}


def test_the_tools_are_listed_each_with_its_input_and_output_schema(agent: Agent):
    tools = {tool.name: tool for tool in agent.tools()}
    assert sorted(tools) == ["build", "check_story", "draft_story", "explain_rule", "get_manifest", "list_manifests",
                             "preview_url", "read_story", "update_story"]
    for tool in tools.values():
        assert tool.input_schema["type"] == "object" and tool.output_schema["type"] == "object", tool.name
        assert tool.description
    assert tools["check_story"].input_schema["required"] == ["text"]
    assert tools["update_story"].input_schema["required"] == ["path", "text", "expected_hash"]
    assert tools["list_manifests"].input_schema["properties"]["limit"]["maximum"] == 100
    assert tools["check_story"].annotations.read_only_hint and not tools["update_story"].annotations.read_only_hint


def test_check_story_gives_exactly_the_findings_check_gives_and_writes_nothing(agent: Agent, site: Path,
                                                                              tmp_path: Path):
    before = _stories(site)
    checked = agent.call("check_story", text=MISTAKES, path=MISTAKES_PATH)
    assert [(f["line"], f["column"], f["code"], f["did_you_mean"]) for f in checked["findings"]] == EXPECTED
    assert (checked["errors"], checked["warnings"], checked["clean"], checked["draft"]) == (3, 0, False, False)
    assert checked["content_hash"] == hashlib.sha256(MISTAKES.encode()).hexdigest()[:32]
    assert _stories(site) == before
    saved = write_tree(tmp_path / "saved", {**base_files(), MISTAKES_PATH: MISTAKES})
    cli = ledgerpress("check", "--format", "json", "--root", str(saved), cwd=tmp_path)
    assert cli.returncode == 1, cli.stderr
    assert _as_check_prints(checked["findings"]) == json.loads(cli.stdout)
    assert [f["text"] for f in checked["findings"]] == [f"{MISTAKES_PATH}:{f['line']}:{f['column']}: {f['code']} "
                                                        f"{f['message']}" for f in checked["findings"]]
    assert agent.call("check_story", text=FIXED, path=MISTAKES_PATH)["clean"]


def _as_check_prints(findings: list[dict]) -> list[dict]:
    return [{"path": f["path"], "line": f["line"], "col": f["column"], "code": f["code"], "severity": f["severity"],
             "message": f["message"]} for f in findings]


def test_the_desk_checks_again_what_changed_and_still_finds_what_check_finds(tmp_path: Path):
    """Between checks another story, a manifest and site.toml change and files go: each answer is that of a
    check from scratch (`check_site` as `ledgerpress check` runs it) of the site with the text saved."""
    files = base_files()
    site = write_tree(tmp_path / "site", files)
    edits = [{},
             {STORY_PATH: STORY.replace("12,500,000 dollars on", "12,600,000 dollars on")},  # another story
             {"content/manifests/1000000000000000001.json": MANIFEST_A.replace("12,500,000", "12,600,000")},
             {"content/site.toml": SITE_TOML + '\n[checks]\nLP030 = "warning"\n'},
             {STORY_PATH: None, "content/manifests/1000000000000000002.json": None}]
    seen = []
    with stdio_agent(site) as desk:
        for step, edit in enumerate(edits):
            write_tree(site, edit)
            files.update(edit)
            saved = write_tree(tmp_path / f"saved-{step}", {**files, MISTAKES_PATH: MISTAKES})
            expected = [f.as_dict() for f in check_site(Run(saved)).findings if f.path == MISTAKES_PATH]
            found = desk.call("check_story", text=MISTAKES, path=MISTAKES_PATH)["findings"]
            assert _as_check_prints(found) == expected, step
            seen.append([(f["code"], f["severity"]) for f in found])
    assert len({tuple(codes) for codes in seen}) == 4, seen  # the manifest, site.toml and deletions changed them


def test_the_desk_s_first_check_starts_from_the_last_ledgerpress_check(tmp_path: Path, stories_read: list[str]):
    """After `ledgerpress check`, the desk's first check reads only the stories changed since (and the text it
    is given), and finds what a check from scratch finds."""
    from generator.desk.recheck import SiteChecks

    root = demo_copy(tmp_path / "site")
    assert ledgerpress("check", cwd=root).returncode == 0
    stories_read.clear()  # (the command ran in this process: what it read is not the desk's)
    edited = add_uncited_line(root, 2)
    found = SiteChecks(root).check(False, {MISTAKES_PATH: MISTAKES.encode()}).findings
    assert sorted(stories_read) == sorted([edited.relative_to(root).as_posix(), MISTAKES_PATH])
    saved = tmp_path / "saved"
    shutil.copytree(root / "content", saved / "content")
    write_tree(saved, {MISTAKES_PATH: MISTAKES})
    assert found == check_site(Run(saved)).findings


def test_checks_with_and_without_drafts_in_turn_each_read_only_what_changed(tmp_path: Path, stories_read: list[str]):
    """An agent checks a draft (drafts included), then updates a story (checked without drafts): the desk keeps
    what it read for each, so neither call reads the whole site again."""
    from generator.desk.recheck import SiteChecks

    checks = SiteChecks(demo_copy(tmp_path / "site"))
    for drafts in (False, True):
        checks.check(drafts, {})
    stories_read.clear()
    for drafts in (False, True, False):
        checks.check(drafts, {})
    assert stories_read == []


def test_check_story_places_the_text_where_its_front_matter_says(agent: Agent):
    assert agent.call("check_story", text=FIXED)["path"] == MISTAKES_PATH
    drafted = agent.call("check_story", text=MISTAKES.replace("trust: reported", "trust: reported\ndraft: true"))
    assert drafted["draft"] and {f["severity"] for f in drafted["findings"]} == {"warning"}
    assert agent.call("check_story", text=drafted.get("text", MISTAKES), drafts=True)["checked_as"] == "build --drafts"
    assert agent.call("check_story", text="no front matter")["error"]["code"] == "path_needed"


def test_draft_then_update_with_a_stale_hash_then_a_fresh_one(agent: Agent, site: Path):
    drafted = agent.call("draft_story", title="Busway works start in March", newsroom="city", beat="policy",
                         date="2026-11-23T09:00:00Z")
    path = "content/stories/2026-11-23/busway-works-start-in-march.md"
    assert drafted["path"] == path and (site / path).read_text() == drafted["text"]
    assert "draft: true" in drafted["text"] and "slug: busway-works-start-in-march" in drafted["text"]
    assert [f["code"] for f in drafted["check"]["findings"]] == ["LP002", "LP004", "LP004", "LP004"]
    text = drafted["text"].replace('description: ""', 'description: "Works on the busway start in March."')
    human = drafted["text"] + "\nA note a person added meanwhile. [cites: REPLACE with the manifest id]\n"
    (site / path).write_text(human)
    stale = agent.call("update_story", path=path, text=text, expected_hash=drafted["content_hash"])
    assert stale["error"]["code"] == "stale" and (site / path).read_text() == human
    fresh = agent.call("read_story", path=path)
    assert fresh["text"] == human and fresh["draft"]
    assert fresh["url_path"] == "/stories/2026-11-23/busway-works-start-in-march/"
    updated = agent.call("update_story", path=path, text=text, expected_hash=fresh["content_hash"])
    assert (site / path).read_text() == text
    assert updated["content_hash"] == hashlib.sha256(text.encode()).hexdigest()[:32]
    assert [f["code"] for f in updated["check"]["findings"]] == ["LP004", "LP004", "LP004"]
    again = agent.call("update_story", path=path, text=text, expected_hash=fresh["content_hash"])
    assert again["error"]["code"] == "stale" and again["error"]["current_hash"] == updated["content_hash"]


def test_a_file_is_never_replaced_by_a_draft_nor_a_published_story_changed(agent: Agent, site: Path):
    first = agent.call("draft_story", title="Second reading", newsroom="city", beat="policy", date="2026-11-24")
    again = agent.call("draft_story", title="Second reading", newsroom="city", beat="policy", date="2026-11-24")
    assert again["error"]["code"] == "exists" and (site / first["path"]).read_text() == first["text"]
    published = agent.call("read_story", path=STORY_PATH)
    assert not published["draft"]
    refused = agent.call("update_story", path=STORY_PATH, text=published["text"].replace("trust: confirmed",
                         "trust: confirmed\ndraft: true"), expected_hash=published["content_hash"])
    assert refused["error"]["code"] == "published" and (site / STORY_PATH).read_text() == published["text"]
    undrafted = first["text"].replace("draft: true", "draft: false")
    publishing = agent.call("update_story", path=first["path"], text=undrafted, expected_hash=first["content_hash"])
    assert publishing["error"]["code"] == "would_publish" and (site / first["path"]).read_text() == first["text"]
    bad = agent.call("draft_story", title="Anything", newsroom="nowhere", beat="policy")
    assert bad["error"] == {"code": "refused", "field": "newsroom",
                            "message": "`newsroom`: 'nowhere' is not one of city, science (from site.toml): use one "
                                       "of them, or add nowhere under [newsrooms] in content/site.toml"}


@pytest.mark.parametrize("path", [
    "../site.toml", "/etc/passwd", "content/site.toml", "content/pages/terms/reuse.md",
    "content/stories/2026-11-21/../../site.toml", "content/stories/2026-11-21/x/../../../site.toml",
    "content/stories/2026-11-21/Upper.md", "content/stories/2026-11-21/x.txt", "content/stories/x.md",
    "content/stories/2026-13-01/x.md", "content/stories/2026-11-21\\x.md", "content/stories/elsewhere/x.md",
])
def test_paths_outside_stories_are_refused(agent: Agent, site: Path, path: str):
    before = _stories(site)
    update = {"text": "---\ndraft: true\n---\n", "expected_hash": "x"}
    for tool, arguments in (("read_story", {}), ("update_story", update), ("check_story", {"text": MISTAKES}),
                            ("preview_url", {})):
        refused = agent.call(tool, path=path, **arguments)["error"]
        assert refused["code"] == "bad_path" and "content/stories/<YYYY-MM-DD>/<slug>.md" in refused["message"]
    assert _stories(site) == before


def test_symbolic_links_out_of_stories_are_refused(agent: Agent, site: Path, tmp_path: Path):
    outside = write_tree(tmp_path / "outside", {"x.md": "---\ndraft: true\n---\n"})
    os.symlink(outside, site / "content/stories/2026-12-01")
    os.symlink(outside / "x.md", site / "content/stories/2026-11-21/linked.md")
    try:
        for path in ("content/stories/2026-12-01/x.md", "content/stories/2026-11-21/linked.md"):
            text = "---\ndraft: true\n---\nchanged\n"
            refused = agent.call("update_story", path=path, text=text,
                                 expected_hash=hashlib.sha256(b"---\ndraft: true\n---\n").hexdigest()[:32])
            assert refused["error"]["code"] == "bad_path" and "symbolic link" in refused["error"]["message"]
        made = agent.call("draft_story", title="Out", newsroom="city", beat="policy", date="2026-12-01")
        assert made["error"]["code"] == "bad_path" and os.listdir(outside) == ["x.md"]
        assert (outside / "x.md").read_text() == "---\ndraft: true\n---\n"
    finally:
        (site / "content/stories/2026-12-01").unlink()
        (site / "content/stories/2026-11-21/linked.md").unlink()


def test_a_file_where_the_desk_writes_a_folder_is_a_refusal_not_a_bug(agent: Agent, site: Path):
    stories = site / "content/stories"
    stories.rename(site / "stories-aside")
    stories.write_text("not a folder\n")
    try:
        made = agent.call("draft_story", title="Blocked", newsroom="city", beat="policy", date="2026-12-03")
        assert made["error"]["code"] == "file_system" and made["error"]["path"] == "content/stories/2026-12-03"
        assert "Not a directory" in made["error"]["message"]
    finally:
        stories.unlink()
        (site / "stories-aside").rename(stories)


def test_refusals_are_structured_never_tracebacks(agent: Agent):
    assert agent.call("no_such_tool")["error"]["code"] == "unknown_tool"
    wrong = agent.call("list_manifests", limit=500, text=7)["error"]
    assert wrong["code"] == "invalid_arguments"
    assert {problem["field"] for problem in wrong["problems"]} == {"limit", "text"}
    assert agent.call("check_story")["error"]["problems"] == [{"field": "text", "problem": "Field required"}]
    missing = agent.call("get_manifest", id="100000000000000002")["error"]
    assert missing["code"] == "unknown_manifest" and missing["did_you_mean"] == "1000000000000000002"
    assert agent.call("explain_rule", code="LP2O")["error"]["code"] == "unknown_rule"
    assert agent.call("list_manifests", published_after="last week")["error"]["code"] == "bad_date"
    assert agent.call("check_story", text="x" * 1_000_001)["error"]["code"] == "too_large"
    assert agent.call("build")["error"]["code"] == "build_not_allowed"


def test_manifests_found_by_text_newsroom_and_date_and_paged(agent: Agent):
    page = agent.call("list_manifests", limit=1)
    assert [m["id"] for m in page["manifests"]] == ["1000000000000000001"] and page["total"] == 2
    rest = agent.call("list_manifests", limit=1, cursor=page["next_cursor"])
    assert [m["id"] for m in rest["manifests"]] == ["1000000000000000002"] and rest["next_cursor"] is None
    found = agent.call("list_manifests", text="QUAY ridership")["manifests"]
    assert [m["id"] for m in found] == ["1000000000000000002"]
    assert agent.call("list_manifests", newsroom="science")["total"] == 0
    assert agent.call("list_manifests", newsroom="city")["total"] == 2
    assert agent.call("list_manifests", published_before="2026-11-19")["total"] == 1
    assert agent.call("list_manifests", published_after="2026-11-20T09:00:00Z")["total"] == 1
    manifest = agent.call("get_manifest", id="1000000000000000001")
    assert [claim["id"] for claim in manifest["claims"]] == ["2000000000000000011", "2000000000000000012"]
    assert [(s["path"], s["claims"]) for s in manifest["cited_by"]] == [
        (STORY_PATH, ["2000000000000000011", "2000000000000000012"])]
    assert manifest["cite_until"] == "2026-12-20T09:00:00Z" and manifest["retracted"] is None


def test_rules_and_the_format_can_be_read(agent: Agent):
    rule = agent.call("explain_rule", code="lp020")
    assert rule["code"] == "LP020" and rule["severity"] == "error" and "did you mean" in rule["fails"]["findings"][0]
    assert rule["fails"]["changes"] == [{"path": "content/stories/2026-11-21/council-funds-the-quay-street-busway.md",
                                         "before": "[cites: ridership]", "after": "[cites: ridershp]"}]
    uris = {resource.uri for resource in agent.resources()}
    assert {"ledgerpress://site", "ledgerpress://rules", "ledgerpress://docs/stories.md",
            "ledgerpress://docs/agents.md"} <= uris
    facts = json.loads(agent.read("ledgerpress://site"))
    assert facts["newsrooms"] == {"city": "City", "science": "Science"} and facts["write"] and not facts["build"]
    severities = {rule["code"]: rule["severity"] for rule in json.loads(agent.read("ledgerpress://rules"))}
    assert severities["LP031"] == "error" and severities["LP901"] == "warning"  # (LP901 is a warning by default)
    assert agent.call("explain_rule", code="LP901")["severity"] == "warning"
    assert agent.read("ledgerpress://rules/LP030").startswith("LP030  ")
    assert agent.read("ledgerpress://docs/stories.md").startswith("# ")


def test_every_call_is_logged_with_its_arguments_digest(agent: Agent, site: Path):
    log = site / ".ledgerpress-cache/desk.log"
    before = len(log.read_text().splitlines())
    agent.call("check_story", text=FIXED, path=MISTAKES_PATH)
    agent.call("no_such_tool", secret="words")
    lines = [json.loads(line) for line in log.read_text().splitlines()[before:]]
    canonical = json.dumps({"text": FIXED, "path": MISTAKES_PATH}, sort_keys=True, separators=(",", ":"),
                           ensure_ascii=False)
    assert [(line["tool"], line["outcome"], line["transport"]) for line in lines] == [
        ("check_story", "ok", "stdio"), ("no_such_tool", "refused:unknown_tool", "stdio")]
    assert lines[0]["arguments"] == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert "words" not in log.read_text() and "Quay" not in log.read_text()


def _in_process(desk: Desk, tool: str, **arguments: Any) -> dict:
    """A tool called as the server calls it, in this process: its result, or {"error": {...}} when refused."""
    run = next(run for name, run, _ in TOOLS if name == tool)
    result = guarded(desk, tool, functools.partial(run, desk))(**arguments)
    return result.structured_content if isinstance(result, CallToolResult) else result.model_dump()


def test_a_fifo_among_the_stories_is_refused_not_waited_on(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    path = "content/stories/2026-11-21/waiting.md"
    os.mkfifo(site / path)
    desk, answers = Desk(site, allow_write=True), []
    calls = [("read_story", {}), ("update_story", {"text": "---\ndraft: true\n---\n", "expected_hash": "x"})]
    reading = threading.Thread(target=lambda: answers.extend(_in_process(desk, tool, path=path, **arguments)
                                                             for tool, arguments in calls), daemon=True)
    reading.start()
    reading.join(30)
    while reading.is_alive():  # a reader waits for a writer: be one, so that the thread ends
        with contextlib.suppress(OSError):  # no reader at this moment
            os.close(os.open(site / path, os.O_WRONLY | os.O_NONBLOCK))
        reading.join(1)
    assert [answer.get("error", {}).get("code") for answer in answers] == ["bad_path", "bad_path"]
    assert "is not a regular file (a FIFO)" in answers[0]["error"]["message"]


def test_a_file_system_error_on_a_descriptor_is_a_refusal_not_a_bug(tmp_path: Path):
    desk = Desk(write_tree(tmp_path / "site", base_files()))
    unnamed = guarded(desk, "read_story", lambda: os.stat(2**20))()  # no such descriptor: its filename is an int
    assert unnamed.structured_content["error"]["code"] == "file_system"
    assert unnamed.structured_content["error"]["path"] == "the site"


@pytest.mark.parametrize("date", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00", "0500-01-01T00:00:00Z"])
def test_a_date_with_no_utc_day_is_refused_or_found_never_a_bug(agent: Agent, site: Path, tmp_path: Path, date: str):
    before = _stories(site)
    drafted = agent.call("draft_story", title="Out of time", newsroom="city", beat="policy", date=date)["error"]
    assert drafted["code"] == "refused" and drafted["field"] == "date" and "years 1000 and 9999" in drafted["message"]
    text = FIXED.replace("published: 2026-11-22T08:00:00Z", f"published: {date}")
    assert agent.call("check_story", text=text)["error"]["code"] == "path_needed"
    placed = "content/stories/2026-11-22/out-of-time.md"
    found = agent.call("check_story", text=text, path=placed)["findings"]
    assert ("LP002", "published: must fall between the years 1000 and 9999 (in UTC)") in [
        (f["code"], f["message"]) for f in found]
    assert _stories(site) == before
    saved = write_tree(tmp_path / "saved", {**base_files(), placed: text, "content/stories/x/out-of-time.md": text})
    checked = ledgerpress("check", "--root", str(saved), cwd=tmp_path)
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    assert checked.stdout.count("LP002 published: must fall between the years 1000 and 9999") == 2


def test_a_cursor_no_page_gave_is_refused(agent: Agent):
    for cursor in ("²", "١", "2", "999999999"):  # digits int() does not take; past the two manifests there are
        refused = agent.call("list_manifests", limit=1, cursor=cursor)["error"]
        assert refused["code"] == "bad_cursor", cursor
    assert agent.call("list_manifests", limit=1, cursor="1")["next_cursor"] is None
    assert agent.call("list_manifests", text="nothing like it", cursor="0")["total"] == 0


@pytest.mark.parametrize("linked", ["content", "content/stories"])
def test_a_site_whose_stories_folder_is_a_symbolic_link_is_not_written_through_it(agent: Agent, site: Path,
                                                                                  tmp_path: Path, linked: str):
    moved = tmp_path / "elsewhere"
    (site / linked).rename(moved)
    os.symlink(moved, site / linked)
    try:
        made = agent.call("draft_story", title="Through a link", newsroom="city", beat="policy", date="2026-12-02")
        assert made["error"]["code"] == "bad_path" and f"{linked} is a symbolic link" in made["error"]["message"]
        assert not list(moved.rglob("through-a-link.md"))
        assert agent.call("read_story", path=STORY_PATH)["error"]["code"] == "bad_path"
    finally:
        (site / linked).unlink()
        moved.rename(site / linked)


def test_a_link_to_a_large_file_is_refused_as_a_link(tmp_path: Path):
    """The desk reads no story through a symbolic link, whatever the link leads to."""
    from generator.desk.drafts import _read

    (tmp_path / "big.md").write_bytes(b"x" * (MAX_TEXT + 1))
    (tmp_path / "story.md").symlink_to(tmp_path / "big.md")
    with pytest.raises(DeskError) as refused:
        _read(tmp_path / "story.md", "content/stories/2026-11-22/story.md")
    assert refused.value.code == "bad_path" and "symbolic link" in str(refused.value)


def test_a_site_toml_that_cannot_be_read_is_one_refusal_with_its_findings(agent: Agent, site: Path):
    (site / "content/site.toml").write_text("title = \n", encoding="utf-8")
    for refused in (agent.call("list_manifests")["error"], agent.call("check_story", text=FIXED)["error"]):
        assert refused["code"] == "site_broken" and refused["findings"][0].startswith("content/site.toml:1:")
    assert "so no story can be checked" in agent.call("check_story", text=FIXED)["error"]["message"]


def test_a_manifest_at_the_end_of_the_calendar_can_be_cited_until_then(tmp_path: Path):
    """get_manifest added manifest_max_age_days to a manifest published 9999-12-31: an OverflowError (internal
    error) for the agent."""
    from generator.desk.manifest_search import get_manifest

    manifest = json.loads(MANIFEST_A)
    manifest["published"] = "9999-12-31T00:00:00Z"
    root = write_tree(tmp_path / "site", {**base_files(), "content/manifests/1000000000000000001.json": json.dumps(
        manifest), "content/site.toml": SITE_TOML.replace("manifest_max_age_days = 30", "manifest_max_age_days = 36500")})
    assert get_manifest(Desk(root).checks, "1000000000000000001").cite_until == "9999-12-31T23:59:59Z"


def test_a_desk_with_an_unreadable_source_date_epoch_does_not_start(tmp_path: Path):
    """Every check the desk made failed (an internal error) when SOURCE_DATE_EPOCH could not be read."""
    root = write_tree(tmp_path / "site", base_files())
    started = ledgerpress("mcp", cwd=root, env={"SOURCE_DATE_EPOCH": "soon"}, stdin="")
    assert started.returncode == 2 and "SOURCE_DATE_EPOCH 'soon' is not a whole number" in started.stderr
