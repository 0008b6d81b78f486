"""Corrections: dated notes at the top of the story in all three formats, dateModified and schema.org
`correction`, the corrections/ page and its Atom feed (valid RFC 4287, read by feedparser)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import feedparser
from lxml import etree, html

from tests.conftest import STORY, STORY_PATH, build_in_memory, write_tree
from tests.test_site import story_file

STORY_URL = "stories/2026-11-21/council-funds-the-quay-street-busway/"
BASE = "https://test.example.org"
ATOM = "{http://www.w3.org/2005/Atom}"
SCHEMAS = Path(__file__).parent / "schemas"
CORRECTIONS = """corrections:
  - date: 2026-11-23T08:15:00Z
    text: "An earlier version said the vote was 8 to 3; it was 9 to 2."
    manifest: "1000000000000000001"
  - date: 2026-11-22
    text: "An earlier version misnamed the transit agency."
"""


def corrected(site: Path) -> Path:
    other_path, other_text = story_file(0, 24, 9)
    other = other_text.replace("trust: reported\n", 'trust: reported\ncorrections:\n  - date: 2026-11-25\n'
                                                    '    text: "The report reached the council a day later than we said."\n')
    return write_tree(site, {STORY_PATH: STORY.replace("trust: confirmed\n", "trust: confirmed\n" + CORRECTIONS),
                             other_path: other})


def test_corrections_are_at_the_top_of_the_story_in_three_formats(site: Path):
    built = build_in_memory(corrected(site))
    assert built.ok, built.findings
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    notes = page.cssselect("aside.corrections li")
    assert [note.get("id") for note in notes] == ["correction-1", "correction-2"]  # oldest first, as they were made
    assert notes[0].cssselect("time")[0].get("datetime") == "2026-11-22"
    assert "misnamed the transit agency" in notes[0].text_content()
    assert notes[1].cssselect('a[href="#manifest-1000000000000000001"]')
    body = page.cssselect("article.story > .story-text > *")
    assert [e.get("class") for e in body[:2]] == ["story-head", "corrections"]  # before the article's text
    updated = page.cssselect(".story-head .meta time")[1]
    assert updated.get("datetime") == "2026-11-23T08:15:00Z"
    data = json.loads(built.files[STORY_URL + "index.json"])
    assert data["updated"] == "2026-11-23T08:15:00Z" and data["last_updated"] == "2026-11-23"
    assert data["corrections"][1] == {"number": 2, "anchor": "correction-2", "date": "2026-11-23T08:15:00Z",
                                      "text": "An earlier version said the vote was 8 to 3; it was 9 to 2.",
                                      "manifest_id": "1000000000000000001"}
    markdown = built.files[STORY_URL + "index.md"].decode()
    assert "last-updated: 2026-11-23\n" in markdown
    assert "> **Correction, 2026-11-22:** An earlier version misnamed the transit agency.\n" in markdown
    assert markdown.index("> **Correction") < markdown.index("## The vote")


def test_structured_data_has_the_correction_and_the_date_modified(site: Path):
    built = build_in_memory(corrected(site))
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    article = json.loads(page.cssselect('script[type="application/ld+json"]')[0].text)
    assert article["dateModified"] == "2026-11-23T08:15:00Z"
    assert article["correction"][1] == {"@type": "CorrectionComment", "datePublished": "2026-11-23T08:15:00Z",
                                        "text": "An earlier version said the vote was 8 to 3; it was 9 to 2.",
                                        "url": f"{BASE}/{STORY_URL}#correction-2"}
    assert page.cssselect('meta[property="article:modified_time"]')[0].get("content") == "2026-11-23T08:15:00Z"


def test_the_corrections_page_lists_every_correction_newest_first(site: Path):
    built = build_in_memory(corrected(site))
    page = html.fromstring(built.files["corrections/index.html"])
    links = [a.get("href") for a in page.cssselect(".correction-story a")]
    assert links == ["/stories/2026-11-24/the-amber-report-reaches-the-council/#correction-1",
                     f"/{STORY_URL}#correction-2"]  # page_size is 2
    assert page.cssselect('link[rel="next"]')[0].get("href") == f"{BASE}/corrections/page/2/"
    second = html.fromstring(built.files["corrections/page/2/index.html"])
    assert [a.get("href") for a in second.cssselect(".correction-story a")] == [f"/{STORY_URL}#correction-1"]


def test_the_corrections_page_gives_every_date_in_one_form_and_names_the_source_by_its_title(site: Path):
    """A day-only correction read "Saturday 28 November 2026", a timed one "26 November 2026, 09:40 GMT"; and
    the source a correction is about was its bare id."""
    built = build_in_memory(corrected(site))
    pages = [html.fromstring(built.files[path]) for path in ("corrections/index.html", "corrections/page/2/index.html")]
    dates = [time.text for page in pages for time in page.cssselect(".correction-date time")]
    assert len(dates) == 3 and all(re.fullmatch(r"2026-11-\d\d", date) for date in dates), dates
    about = pages[0].cssselect(".byline a[href$='/manifests/1000000000000000001/']")
    assert [a.text_content() for a in about] == ["Council minutes, November session"]


def test_the_corrections_feed_is_valid_atom_read_by_feedparser(site: Path, tmp_path: Path):
    built = build_in_memory(corrected(site))
    feed = built.files["corrections/feed.xml"]
    assert shutil.which("jing"), "jing is missing: apt-get install jing (see .ci/run)"
    (tmp_path / "corrections.xml").write_bytes(feed)
    run = subprocess.run(["jing", "-c", str(SCHEMAS / "atom.rnc"), str(tmp_path / "corrections.xml")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    parsed = feedparser.parse(feed)
    assert not parsed.bozo and parsed.feed.link == f"{BASE}/corrections/"
    assert [entry.link for entry in parsed.entries] == [
        f"{BASE}/stories/2026-11-24/the-amber-report-reaches-the-council/#correction-1",
        f"{BASE}/{STORY_URL}#correction-2", f"{BASE}/{STORY_URL}#correction-1"]
    assert parsed.entries[1].title == "Correction: Council funds the Quay Street busway"
    assert parsed.entries[1].published == "2026-11-23T08:15:00Z"
    assert etree.fromstring(feed).findtext(f"{ATOM}updated") == "2026-11-25T00:00:00Z"


def test_a_site_without_corrections_says_so(site: Path):
    built = build_in_memory(site)
    assert "No story has needed a correction yet." in built.files["corrections/index.html"].decode()
    assert etree.fromstring(built.files["corrections/feed.xml"]).findall(f"{ATOM}entry") == []


def test_a_story_is_never_updated_before_it_was_published(site: Path):
    """An `updated` dated before publication is LP002 at its line (it was passed over silently), and the build
    is refused: no page says the story changed before it appeared."""
    early = STORY.replace("published: 2026-11-21T10:30:00Z\n", "published: 2026-11-21T10:30:00Z\nupdated: 2026-11-20\n")
    refused = build_in_memory(write_tree(site, {STORY_PATH: early}))
    assert not refused.ok and [(f.code, f.line) for f in refused.findings] == [("LP002", 5)], refused.findings
    assert refused.files == {}


def test_a_correction_dated_after_the_build_waits_for_its_time(site: Path):
    """Corrections dated after the build's time were shown, and moved the feed's <updated>."""
    import datetime as dt

    from click.testing import CliRunner

    from generator.cli import cli

    corrected(site)
    early = build_in_memory(site, search=False, now=dt.datetime(2026, 11, 22, 12, tzinfo=dt.timezone.utc))
    assert early.ok, early.findings
    story = json.loads(early.files[STORY_URL + "index.json"])
    assert [c["date"] for c in story["corrections"]] == ["2026-11-22"] and story["updated"] == "2026-11-22"
    assert "8 to 3" not in early.files[STORY_URL + "index.html"].decode()
    assert b"8 to 3" not in early.files["corrections/index.html"] and b"8 to 3" not in early.files["feed.xml"]
    assert b"2026-11-23" not in early.files["feed.xml"]
    late = build_in_memory(site, search=False, now=dt.datetime(2026, 11, 23, 8, 15, tzinfo=dt.timezone.utc))
    assert [c["date"] for c in json.loads(late.files[STORY_URL + "index.json"])["corrections"]] == [
        "2026-11-22", "2026-11-23T08:15:00Z"]
    runner = CliRunner()
    before = runner.invoke(cli, ["build", "--root", str(site), "--no-search", "--now", "2026-11-23T08:00:00Z"])
    assert before.exit_code == 0, before.output
    due = runner.invoke(cli, ["build", "--root", str(site), "--no-search", "--now", "2026-11-23T08:15:00Z"])
    assert "up to date" not in due.output and "8 to 3" in (site / "public" / STORY_URL / "index.html").read_text()
    back = runner.invoke(cli, ["build", "--root", str(site), "--no-search", "--now", "2026-11-23T08:00:00Z"])
    assert "up to date" not in back.output and "8 to 3" not in (site / "public" / STORY_URL / "index.html").read_text()
